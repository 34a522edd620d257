/*-------------------------------------------------------------------------
 *
 * matview.c
 *	  PostgreSQL's materialized-view statements for dynamic tables, in the
 *	  utility hook (guard.c calls dv_matview_translate first), the way
 *	  TimescaleDB takes CREATE MATERIALIZED VIEW ... WITH (timescaledb.*)
 *	  for its continuous aggregates:
 *
 *	- CREATE MATERIALIZED VIEW [IF NOT EXISTS] name WITH (dynview.schedule
 *	  = ..., dynview.refresh_mode = ..., dynview.primary_key = 'a, b') AS
 *	  query [WITH [NO] DATA] creates a dynamic table through the same code
 *	  as dynview.create_dynamic_table() (dv_create_dynamic_table), with the
 *	  query's text as written (found with PostgreSQL's own scanner); WITH NO
 *	  DATA is initialize => false.  A CREATE MATERIALIZED VIEW without a
 *	  dynview.* option is PostgreSQL's own.
 *	- REFRESH MATERIALIZED VIEW [CONCURRENTLY] name of a dynamic table is
 *	  dynview.refresh(name) (trigger MANUAL).
 *	- DROP, ALTER (SET (dynview.*), RENAME, OWNER TO, SET SCHEMA, and the
 *	  rest of ALTER MATERIALIZED VIEW) of a dynamic table run as the same
 *	  statements on a table (a dynamic table is one), so the rest of the
 *	  hook guards them as it guards ALTER TABLE.  SET (dynview.schedule,
 *	  dynview.refresh_mode) is dynview.alter_dynamic_table(); it is taken in
 *	  ALTER TABLE of a dynamic table, too.
 *
 * The dynamic table is an ordinary table whatever statement made it, so
 * pg_dump emits CREATE TABLE for it (doc/upgrading.md).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "parser/scanner.h"
#include "parser/gram.h"
#include "parser/scansup.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/varlena.h"

#include "dynview.h"
#include "cdc/cdc.h"

#define DV_OPTION_NAMESPACE "dynview"

/* is def a dynview.* option? */
static bool
is_dynview_option(DefElem *def)
{
	return def->defnamespace != NULL && strcmp(def->defnamespace, DV_OPTION_NAMESPACE) == 0;
}

static bool
has_dynview_option(List *options)
{
	ListCell   *lc;

	foreach(lc, options)
	{
		if (is_dynview_option(lfirst_node(DefElem, lc)))
			return true;
	}
	return false;
}

static void
unknown_option(DefElem *def)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unrecognized parameter \"%s.%s\"", DV_OPTION_NAMESPACE, def->defname),
			 errhint("The parameters of a dynamic table are dynview.schedule, dynview.refresh_mode, dynview.primary_key, dynview.partition_by and dynview.retention.")));
}

/* the relation rv names, if it exists and is a dynamic table */
static Oid
dynamic_relation(RangeVar *rv)
{
	Oid			relid = rv ? RangeVarGetRelid(rv, NoLock, true) : InvalidOid;

	return OidIsValid(relid) && dv_guard_is_dynamic_table(relid) ? relid : InvalidOid;
}

/* rv as a name dynview's functions take (schema-qualified if it was) */
static char *
rangevar_name(RangeVar *rv)
{
	return rv->schemaname ? quote_qualified_identifier(rv->schemaname, rv->relname)
		: pstrdup(quote_identifier(rv->relname));
}

/*
 * query_text - the text of the query of CREATE MATERIALIZED VIEW ... AS
 * query [WITH [NO] DATA], as written: from the token after the first AS
 * outside parentheses (names and the column list come before it, the
 * options are in parentheses) to the end of the statement, less a final
 * WITH DATA or WITH NO DATA.
 */
static char *
query_text(const char *queryString, int location, int len)
{
	char	   *stmt;
	core_yyscan_t yyscanner;
	core_yy_extra_type yyextra;
	core_YYSTYPE yylval;
	YYLTYPE		yylloc;
	int			depth = 0;
	bool		after_as = false;
	int			start = -1;
	int			end;
	int			last_tok[3] = {0, 0, 0};
	int			last_loc[3] = {-1, -1, -1};

	if (location < 0)
		location = 0;
	stmt = len > 0 ? pnstrdup(queryString + location, len) : pstrdup(queryString + location);
	end = strlen(stmt);
	yyscanner = scanner_init(stmt, &yyextra, &ScanKeywords, ScanKeywordTokens);
	for (;;)
	{
		int			tok = core_yylex(&yylval, &yylloc, yyscanner);

		if (tok == 0)
			break;
		if (depth == 0 && tok == ';')
		{
			end = yylloc;
			break;
		}
		if (after_as)
		{
			start = yylloc;
			after_as = false;
		}
		if (tok == '(')
			depth++;
		else if (tok == ')')
			depth--;
		else if (depth == 0 && start < 0 && tok == AS)
			after_as = true;
		if (depth == 0 && start >= 0)
		{
			last_tok[0] = last_tok[1];
			last_loc[0] = last_loc[1];
			last_tok[1] = last_tok[2];
			last_loc[1] = last_loc[2];
			last_tok[2] = tok;
			last_loc[2] = yylloc;
		}
	}
	scanner_finish(yyscanner);
	if (start < 0)
		ereport(ERROR,
				(errcode(ERRCODE_SYNTAX_ERROR),
				 errmsg("could not find the query of CREATE MATERIALIZED VIEW"),
				 errhint("Use dynview.create_dynamic_table().")));
	if (last_tok[2] == DATA_P && last_tok[1] == WITH && last_loc[1] > start)
		end = last_loc[1];
	else if (last_tok[2] == DATA_P && last_tok[1] == NO && last_tok[0] == WITH && last_loc[0] > start)
		end = last_loc[0];
	while (end > start && scanner_isspace(stmt[end - 1]))
		end--;
	return pnstrdup(stmt + start, end - start);
}

/* the columns of dynview.primary_key = 'a, b' (identifiers as SQL takes them) */
static void
primary_key_option(DefElem *def, DvCreateArgs *args)
{
	char	   *raw = pstrdup(defGetString(def));
	List	   *names;
	Datum	   *elems;
	ListCell   *lc;

	if (!SplitIdentifierString(raw, ',', &names) || names == NIL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid value for parameter \"dynview.primary_key\": \"%s\"", defGetString(def)),
				 errdetail("The value is a comma-separated list of column names, e.g. 'dept_id' or 'a, b'.")));
	elems = palloc(sizeof(Datum) * list_length(names));
	foreach(lc, names)
	{
		args->key_columns = lappend(args->key_columns, pstrdup(lfirst(lc)));
		elems[foreach_current_index(lc)] = CStringGetTextDatum(lfirst(lc));
	}
	args->primary_key = construct_array(elems, list_length(names), TEXTOID, -1, false, TYPALIGN_INT);
}

/*
 * create_matview - CREATE MATERIALIZED VIEW ... WITH (dynview.*): a
 * dynamic table.
 */
static void
create_matview(CreateTableAsStmt *stmt, const char *queryString, int location, int len)
{
	IntoClause *into = stmt->into;
	DvCreateArgs args;
	ListCell   *lc;
	char	   *partition_by = NULL;
	char	   *retention = NULL;
	bool		schedule_given = false;

	if (into->colNames != NIL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("a dynamic table cannot rename its query's columns"),
				 errdetail("A dynamic table has exactly its query's columns."),
				 errhint("Name the columns in the query with AS.")));
	if (into->accessMethod != NULL || into->tableSpaceName != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("USING and TABLESPACE are not supported for dynamic tables"),
				 errhint("Move the table with ALTER TABLE ... SET TABLESPACE after creating it.")));
	/* (UNLOGGED is refused by PostgreSQL's grammar for materialized views) */

	memset(&args, 0, sizeof(args));
	args.name = rangevar_name(into->rel);
	args.schedule = "1 minute";
	args.refresh_mode = "auto";
	args.initialize = !into->skipData;
	foreach(lc, into->options)
	{
		DefElem    *def = lfirst_node(DefElem, lc);

		if (!is_dynview_option(def))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("parameter \"%s%s%s\" is not supported for dynamic tables",
							def->defnamespace ? def->defnamespace : "", def->defnamespace ? "." : "",
							def->defname),
					 errhint("Set storage parameters with ALTER TABLE ... SET (...) after creating the dynamic table.")));
		if (strcmp(def->defname, "schedule") == 0)
		{
			args.schedule = defGetString(def);
			schedule_given = true;
		}
		else if (strcmp(def->defname, "refresh_mode") == 0)
			args.refresh_mode = defGetString(def);
		else if (strcmp(def->defname, "primary_key") == 0)
			primary_key_option(def, &args);
		else if (strcmp(def->defname, "partition_by") == 0)
			partition_by = defGetString(def);
		else if (strcmp(def->defname, "retention") == 0)
			retention = defGetString(def);
		else
			unknown_option(def);
	}
	args.schedule = dv_validate_schedule(args.schedule);
	args.refresh_mode = dv_validate_refresh_mode(args.refresh_mode);

	if (stmt->if_not_exists)
	{
		Oid			existing;

		(void) RangeVarGetAndCheckCreationNamespace(into->rel, NoLock, &existing);
		if (OidIsValid(existing))
		{
			ereport(NOTICE,
					(errcode(ERRCODE_DUPLICATE_TABLE),
					 errmsg("relation \"%s\" already exists, skipping", into->rel->relname)));
			return;
		}
	}
	args.query = query_text(queryString, location, len);
	if (partition_by != NULL)
	{
		/*
		 * a partitioned dynamic table: created empty; partitions by REFRESH
		 * (catalog/partitioned.c); its schedule, 'manual' unless given, is
		 * that of every partition
		 */
		DvPartitionedArgs pargs;

		memset(&pargs, 0, sizeof(pargs));
		pargs.name = args.name;
		pargs.query = args.query;
		pargs.partition_by = partition_by;
		pargs.primary_key = args.primary_key;
		pargs.refresh_mode = args.refresh_mode;
		pargs.schedule = schedule_given ? args.schedule : NULL;
		if (retention != NULL)
			pargs.retention = dv_partition_retention(retention, true);
		(void) dv_create_partitioned_dynamic_table(&pargs);
		return;
	}
	if (retention != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("parameter \"dynview.retention\" needs \"dynview.partition_by\""),
				 errhint("Retention drops partitions of a partitioned dynamic table.")));
	(void) dv_create_dynamic_table(&args, false);
}

/*
 * alter_options - the dynview.* parameters of ALTER ... SET (...) of
 * dynamic table relid, taken out of stmt's commands (which then hold the
 * rest), applied as dynview.alter_dynamic_table() does.
 */
static void
alter_options(AlterTableStmt *stmt, Oid relid)
{
	char	   *schedule = NULL;
	char	   *mode = NULL;
	char	   *retention = NULL;
	bool		reset_retention = false;
	List	   *cmds = NIL;
	ListCell   *lc;
	bool		any = false;
	bool		partitioned = dv_is_partitioned_dynamic_table(relid);

	foreach(lc, stmt->cmds)
	{
		AlterTableCmd *cmd = lfirst_node(AlterTableCmd, lc);
		List	   *rest = NIL;
		ListCell   *lo;

		if (cmd->subtype != AT_SetRelOptions && cmd->subtype != AT_ResetRelOptions)
		{
			cmds = lappend(cmds, cmd);
			continue;
		}
		foreach(lo, (List *) cmd->def)
		{
			DefElem    *def = lfirst_node(DefElem, lo);

			if (!is_dynview_option(def))
			{
				rest = lappend(rest, def);
				continue;
			}
			if (cmd->subtype == AT_ResetRelOptions && strcmp(def->defname, "retention") == 0 && partitioned)
				reset_retention = true;
			else if (cmd->subtype == AT_ResetRelOptions)
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("cannot reset parameter \"%s.%s\" of a dynamic table", DV_OPTION_NAMESPACE, def->defname),
						 errhint("Set it to a value with SET (%s.%s = ...).", DV_OPTION_NAMESPACE, def->defname)));
			else if (strcmp(def->defname, "schedule") == 0)
				schedule = partitioned ? dv_partition_schedule(defGetString(def))
					: dv_validate_schedule(defGetString(def));
			else if (strcmp(def->defname, "refresh_mode") == 0)
				mode = dv_validate_refresh_mode(defGetString(def));
			else if (strcmp(def->defname, "retention") == 0 && partitioned)
				retention = defGetString(def);
			else if (strcmp(def->defname, "retention") == 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("parameter \"dynview.retention\" needs \"dynview.partition_by\""),
						 errhint("Retention drops partitions of a partitioned dynamic table.")));
			else if (strcmp(def->defname, "partition_by") == 0)
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("cannot change the partitioning of a dynamic table with ALTER"),
						 errhint("Drop it and create it again.")));
			else if (strcmp(def->defname, "primary_key") == 0)
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("cannot change the primary key of a dynamic table with ALTER"),
						 errhint("Give the table a new definition with dynview.create_or_replace_dynamic_table().")));
			else
				unknown_option(def);
			any = true;
		}
		if (rest != NIL)
		{
			cmd->def = (Node *) rest;
			cmds = lappend(cmds, cmd);
		}
	}
	stmt->cmds = cmds;
	if (!any)
		return;
	if (!pg_class_ownercheck(relid, GetUserId()))
		aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_TABLE, get_rel_name(relid));
	if (partitioned)
	{
		/* T's and every partition's schedule and mode; the retention */
		SPI_connect();
		dv_partitioned_alter(relid, schedule, mode,
							 retention ? dv_partition_retention(retention, true) : NULL, reset_retention);
		SPI_finish();
		dv_shmem_wake_scheduler_at_commit();
		return;
	}
	SPI_connect();
	dv_alter_dynamic_table(relid, schedule, mode);
	SPI_finish();
}

/* pstmt with stmt as its statement */
static PlannedStmt *
with_statement(PlannedStmt *pstmt, Node *stmt)
{
	PlannedStmt *copy = makeNode(PlannedStmt);

	memcpy(copy, pstmt, sizeof(PlannedStmt));
	copy->utilityStmt = stmt;
	return copy;
}

/*
 * dv_matview_translate - what the utility statement pstmt is for dynview.
 * Returns the statements to run in its place (pstmt itself, unchanged, for
 * the statements that are not about dynamic tables): statements on tables
 * for materialized-view statements that name dynamic tables, NIL when it
 * did all the work itself (CREATE, REFRESH).  Needs a transaction and the
 * extension.
 */
List *
dv_matview_translate(PlannedStmt *pstmt, const char *queryString)
{
	Node	   *parsetree = pstmt->utilityStmt;
	Oid			relid;

	if (IsA(parsetree, CreateTableAsStmt))
	{
		CreateTableAsStmt *stmt = (CreateTableAsStmt *) parsetree;

		if (stmt->objtype == OBJECT_MATVIEW && has_dynview_option(stmt->into->options))
		{
			create_matview(stmt, queryString, pstmt->stmt_location, pstmt->stmt_len);
			return NIL;
		}
	}
	else if (IsA(parsetree, RefreshMatViewStmt))
	{
		RefreshMatViewStmt *stmt = (RefreshMatViewStmt *) parsetree;

		if (OidIsValid(relid = dynamic_relation(stmt->relation)))
		{
			if (stmt->skipData)
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("cannot empty dynamic table \"%s\" with REFRESH ... WITH NO DATA",
								get_rel_name(relid)),
						 errhint("Stop its scheduled refreshes with dynview.suspend(), or drop it.")));
			if (dv_is_partitioned_dynamic_table(relid))
			{
				/* one partition: the value of dynview.partition */
				if (dv_partition_setting == NULL || dv_partition_setting[0] == '\0')
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							 errmsg("\"%s\" is a partitioned dynamic table, and dynview.partition is not set",
									get_rel_name(relid)),
							 errhint("SET dynview.partition = 'value' first, to fill or refresh that partition.")));
				if (!pg_class_ownercheck(relid, GetUserId()))
					aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_TABLE, get_rel_name(relid));
				SPI_connect();
				(void) dv_refresh_partition(relid, dv_partition_setting);
				SPI_finish();
				return NIL;
			}
			SPI_connect();
			(void) dv_refresh_pipeline(dv_resolve_dynamic_table(rangevar_name(stmt->relation), false, true),
									   DV_TRIGGER_MANUAL);
			SPI_finish();
			return NIL;
		}
	}
	else if (IsA(parsetree, DropStmt) && ((DropStmt *) parsetree)->removeType == OBJECT_MATVIEW)
	{
		DropStmt   *stmt = (DropStmt *) parsetree;
		List	   *dynamic = NIL;
		List	   *others = NIL;
		ListCell   *lc;
		List	   *result = NIL;

		foreach(lc, stmt->objects)
		{
			if (OidIsValid(dynamic_relation(makeRangeVarFromNameList(lfirst(lc)))))
				dynamic = lappend(dynamic, lfirst(lc));
			else
				others = lappend(others, lfirst(lc));
		}
		if (dynamic == NIL)
			return list_make1(pstmt);
		if (others != NIL)
		{
			DropStmt   *rest = copyObject(stmt);

			rest->objects = others;
			result = lappend(result, with_statement(pstmt, (Node *) rest));
		}
		stmt = copyObject(stmt);
		stmt->objects = dynamic;
		stmt->removeType = OBJECT_TABLE;
		return lappend(result, with_statement(pstmt, (Node *) stmt));
	}
	else if (IsA(parsetree, AlterTableStmt))
	{
		AlterTableStmt *stmt = (AlterTableStmt *) parsetree;

		if ((stmt->objtype == OBJECT_MATVIEW || stmt->objtype == OBJECT_TABLE) &&
			OidIsValid(relid = dynamic_relation(stmt->relation)))
		{
			List	   *result;
			ListCell   *lc;

			stmt = copyObject(stmt);
			stmt->objtype = OBJECT_TABLE;
			alter_options(stmt, relid);
			result = stmt->cmds == NIL ? NIL : list_make1(with_statement(pstmt, (Node *) stmt));
			/* OWNER TO of a partitioned dynamic table: its partitions too (refreshes run as their owner) */
			foreach(lc, stmt->cmds)
			{
				AlterTableCmd *cmd = lfirst_node(AlterTableCmd, lc);

				if (cmd->subtype == AT_ChangeOwner && dv_is_partitioned_dynamic_table(relid))
				{
					ListCell   *lp;

					foreach(lp, find_inheritance_children(relid, NoLock))
					{
						AlterTableStmt *part = makeNode(AlterTableStmt);

						part->relation = makeRangeVar(get_namespace_name(get_rel_namespace(lfirst_oid(lp))),
													  get_rel_name(lfirst_oid(lp)), -1);
						part->objtype = OBJECT_TABLE;
						part->cmds = list_make1(copyObject(cmd));
						result = lappend(result, with_statement(pstmt, (Node *) part));
					}
				}
			}
			return result;
		}
	}
	else if (IsA(parsetree, RenameStmt))
	{
		RenameStmt *stmt = (RenameStmt *) parsetree;

		if ((stmt->renameType == OBJECT_MATVIEW ||
			 (stmt->renameType == OBJECT_COLUMN && stmt->relationType == OBJECT_MATVIEW)) &&
			OidIsValid(dynamic_relation(stmt->relation)))
		{
			stmt = copyObject(stmt);
			if (stmt->renameType == OBJECT_MATVIEW)
				stmt->renameType = OBJECT_TABLE;
			else
				stmt->relationType = OBJECT_TABLE;
			return list_make1(with_statement(pstmt, (Node *) stmt));
		}
	}
	else if (IsA(parsetree, AlterObjectSchemaStmt))
	{
		AlterObjectSchemaStmt *stmt = (AlterObjectSchemaStmt *) parsetree;

		if (stmt->objectType == OBJECT_MATVIEW && OidIsValid(dynamic_relation(stmt->relation)))
		{
			stmt = copyObject(stmt);
			stmt->objectType = OBJECT_TABLE;
			return list_make1(with_statement(pstmt, (Node *) stmt));
		}
	}
	return list_make1(pstmt);
}
