/*-------------------------------------------------------------------------
 *
 * analyze.c
 *	  Checks of a dynamic table's query: parse, analyse and rewrite it with
 *	  PostgreSQL's own code, collect its sources, deparse it into the
 *	  schema-qualified SQL that refreshes run, and validate the other
 *	  arguments of the API (schedule, refresh mode, wal_level).
 *
 * The sources are found in the rewritten query (views inlined), so they are
 * base tables and dynamic tables.  The definition that FULL refreshes run
 * keeps the views, so that their owners' privileges apply as in any query
 * (a user with SELECT on a view can build a dynamic table over it).  It is
 * deparsed with
 * search_path = "pg_catalog, pg_temp", which makes the deparser qualify every
 * other name; refreshes run it under that same search_path.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xlog.h"
#include "catalog/catalog.h"
#include "catalog/namespace.h"
#include "access/htup_details.h"
#include "access/sysattr.h"
#include "catalog/pg_attribute.h"
#include "catalog/pg_class.h"
#include "catalog/pg_constraint.h"
#include "executor/executor.h"
#include "nodes/nodeFuncs.h"
#include "parser/analyze.h"
#include "rewrite/rewriteHandler.h"
#include "tcop/tcopprot.h"
#include "utils/builtins.h"
#include "utils/datetime.h"
#include "utils/fmgroids.h"
#include "utils/formatting.h"
#include "utils/regproc.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/ruleutils.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "dynview.h"
#include "analyze/delta.h"

typedef struct CollectContext
{
	Oid			self_relid;
	List	   *relids;			/* of Oid, deduplicated */
	List	   *columns;		/* parallel to relids: Bitmapset of selectedCols */
} CollectContext;

static bool
collect_sources_walker(Node *node, CollectContext *ctx)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
		return query_tree_walker((Query *) node, collect_sources_walker, ctx,
								 QTW_EXAMINE_RTES_BEFORE);
	if (IsA(node, RangeTblEntry))
	{
		RangeTblEntry *rte = (RangeTblEntry *) node;

		if (rte->rtekind != RTE_RELATION || rte->relkind == RELKIND_VIEW)
			return false;		/* views were inlined; their RTEs only check permissions */
		if (rte->relid == ctx->self_relid)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
					 errmsg("dynamic table \"%s\" cannot read itself", get_rel_name(rte->relid)),
					 errhint("Dynamic tables must form an acyclic graph.")));
		if (get_rel_persistence(rte->relid) == RELPERSISTENCE_TEMP)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("dynamic tables cannot read temporary table \"%s\"", get_rel_name(rte->relid)),
					 errhint("Use an ordinary (permanent or unlogged) table as the source.")));
		if (rte->relkind != RELKIND_RELATION && rte->relkind != RELKIND_PARTITIONED_TABLE &&
			rte->relkind != RELKIND_MATVIEW && rte->relkind != RELKIND_FOREIGN_TABLE)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("dynamic tables cannot read relation \"%s\" of this kind",
							get_rel_name(rte->relid)),
					 errhint("Sources must be tables, partitioned tables, materialized views, foreign tables or views over them.")));
		{
			int			pos = -1;
			ListCell   *l;

			foreach(l, ctx->relids)
			{
				if (lfirst_oid(l) == rte->relid)
				{
					pos = foreach_current_index(l);
					break;
				}
			}

			if (pos < 0)
			{
				ctx->relids = lappend_oid(ctx->relids, rte->relid);
				ctx->columns = lappend(ctx->columns, dv_captured_columns(rte));
			}
			else
			{
				ListCell   *cell = list_nth_cell(ctx->columns, pos);

				lfirst(cell) = bms_union(lfirst(cell), rte->selectedCols);
			}
		}
		return false;
	}
	return expression_tree_walker(node, collect_sources_walker, ctx);
}

static bool
policy_columns_walker(Node *node, Bitmapset **cols)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var) && ((Var *) node)->varlevelsup == 0)
		*cols = bms_add_member(*cols, ((Var *) node)->varattno - FirstLowInvalidHeapAttributeNumber);
	return expression_tree_walker(node, policy_columns_walker, cols);
}

/*
 * dv_policy_columns - the columns that the row-level security policies
 * applied to rte (its securityQuals, added by the rewriter) read, as a
 * selectedCols set: they are captured with the columns the query reads.
 */
Bitmapset *
dv_policy_columns(RangeTblEntry *rte)
{
	Bitmapset  *cols = NULL;

	(void) policy_columns_walker((Node *) rte->securityQuals, &cols);
	return cols;
}

/*
 * dv_captured_columns - the columns of a source that change capture keeps
 * for a query: those it reads and those its row-level security policies
 * read, as a selectedCols set.
 */
Bitmapset *
dv_captured_columns(RangeTblEntry *rte)
{
	return bms_union(rte->selectedCols, dv_policy_columns(rte));
}

/*
 * dv_column_names - the names of the columns of relid in a selectedCols set
 * (attnums offset by FirstLowInvalidHeapAttributeNumber); a whole-row
 * reference (attnum 0) means every column.  System columns are left out.
 */
List *
dv_column_names(Oid relid, Bitmapset *cols)
{
	List	   *names = NIL;
	bool		all = bms_is_member(0 - FirstLowInvalidHeapAttributeNumber, cols);
	for (AttrNumber att = 1;; att++)
	{
		HeapTuple	tup = SearchSysCache2(ATTNUM, ObjectIdGetDatum(relid), Int16GetDatum(att));

		if (!HeapTupleIsValid(tup))
			break;
		if (!all && !bms_is_member(att - FirstLowInvalidHeapAttributeNumber, cols))
		{
			ReleaseSysCache(tup);
			continue;
		}
		if (!((Form_pg_attribute) GETSTRUCT(tup))->attisdropped)
			names = lappend(names, makeString(pstrdup(NameStr(((Form_pg_attribute) GETSTRUCT(tup))->attname))));
		ReleaseSysCache(tup);
	}
	return names;
}

/* ExecCheckRTPerms for every range table of the query tree */
static bool
check_permissions_walker(Node *node, void *ctx)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
	{
		Query	   *q = (Query *) node;

		ExecCheckRTPerms(q->rtable, true);
		return query_tree_walker(q, check_permissions_walker, ctx, 0);
	}
	return expression_tree_walker(node, check_permissions_walker, ctx);
}

/*
 * dv_check_definition_permissions - may the current user read everything the
 * analysed, rewritten query q reads (tables behind views as the views'
 * owners)?  ERROR 42501 if not.  Refreshes check this every time, as the
 * table's owner: an incremental refresh reads only change buffers and
 * deltas, so a REVOKE or an ALTER ... OWNER TO would otherwise go unnoticed.
 */
void
dv_check_definition_permissions(Query *q)
{
	check_permissions_walker((Node *) q, NULL);
}

/* FOR UPDATE/SHARE anywhere in the query tree (subqueries and CTEs too)? */
static bool
has_row_marks(Node *node, void *ctx)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
	{
		if (((Query *) node)->rowMarks != NIL)
			return true;
		return query_tree_walker((Query *) node, has_row_marks, ctx, 0);
	}
	return expression_tree_walker(node, has_row_marks, ctx);
}

/*
 * query_error_callback - an error with a position in the query text points
 * into that text (shown as the internal query), not into the statement that
 * passed it (the call of create_dynamic_table, say), as PostgreSQL does for
 * the body of a SQL function.  A relation that does not exist, named
 * without quotes but with upper case letters, gets a hint on quoting
 * (dv_case_folding_hint).
 */
static void
query_error_callback(void *arg)
{
	int			pos = geterrposition();
	const char *text = (const char *) arg;

	if (pos > 0)
	{
		errposition(0);
		internalerrposition(pos);
		internalerrquery(text);
		if (geterrcode() == ERRCODE_UNDEFINED_TABLE && pos <= (int) strlen(text))
		{
			const char *start = text + pos - 1;
			size_t		len = strspn(start, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_$.");
			char	   *hint = dv_case_folding_hint(pnstrdup(start, len));

			if (hint != NULL)
				errhint("%s", hint);
		}
	}
}

/*
 * dv_case_folding_hint - for a relation name as written, without quotes,
 * that did not resolve: when a part of it has upper case letters, a hint
 * that such a name is folded to lower case and how to quote it (palloc'd);
 * else NULL.  Looks nothing up (it may run in an error callback).
 */
char *
dv_case_folding_hint(const char *name)
{
	StringInfoData quoted;
	bool		upper = false;
	const char *p = name;

	if (strchr(name, '"') != NULL || *name == '\0')
		return NULL;
	initStringInfo(&quoted);
	while (*p)
	{
		size_t		len = strcspn(p, ".");
		char	   *part = pnstrdup(p, len);
		bool		part_upper = false;

		for (const char *c = part; *c; c++)
			part_upper = part_upper || (*c >= 'A' && *c <= 'Z');
		upper = upper || part_upper;
		appendStringInfo(&quoted, part_upper ? "\"%s\"" : "%s", part);
		p += len;
		if (*p == '.')
		{
			appendStringInfoChar(&quoted, '.');
			p++;
		}
	}
	if (!upper)
		return NULL;
	return psprintf("Unquoted names are folded to lower case: %s means %s. To name a relation whose name has upper case letters, quote it: %s.",
					name, asc_tolower(name, strlen(name)), quoted.data);
}

/*
 * parse_select - parse and analyse query_text, which must be one SELECT
 * that writes nothing.  Returns the analysed (not rewritten) Query.
 */
static Query *
parse_select(const char *query_text)
{
	ErrorContextCallback callback;
	List	   *raw;
	RawStmt    *rs;
	Query	   *q;

	callback.callback = query_error_callback;
	callback.arg = (void *) query_text;
	callback.previous = error_context_stack;
	error_context_stack = &callback;
	raw = pg_parse_query(query_text);
	if (list_length(raw) != 1)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("the query of a dynamic table must be exactly one SELECT statement"),
				 errdetail("The text holds %d statements.", list_length(raw)),
				 raw == NIL ?
				 errhint("Pass the text of one SELECT statement.") :
				 errhint("Remove the extra statements.")));
	rs = linitial_node(RawStmt, raw);
	if (!IsA(rs->stmt, SelectStmt) || ((SelectStmt *) rs->stmt)->intoClause != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("the query of a dynamic table must be a SELECT statement"),
				 errhint("Pass a SELECT (or VALUES, or a WITH ... SELECT) that writes nothing.")));

	q = parse_analyze_fixedparams(rs, query_text, NULL, 0, NULL);
	error_context_stack = callback.previous;
	if (q->commandType != CMD_SELECT || q->utilityStmt != NULL)
		elog(ERROR, "SELECT statement analysed into a non-SELECT query");
	if (q->hasModifyingCTE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("the query of a dynamic table must not write"),
				 errdetail("It contains a data-modifying WITH clause."),
				 errhint("Pass a query that only reads.")));
	if (has_row_marks((Node *) q, NULL))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("the query of a dynamic table must not lock rows"),
				 errdetail("It contains FOR UPDATE, FOR SHARE or a similar locking clause."),
				 errhint("Remove the locking clause.")));
	return q;
}

/* is func_id a function that advances or sets a sequence? (check_functions_in_node) */
static bool
sequence_write_checker(Oid func_id, void *context)
{
	if (func_id == F_NEXTVAL || func_id == F_SETVAL_REGCLASS_INT8 || func_id == F_SETVAL_REGCLASS_INT8_BOOL)
	{
		*(Oid *) context = func_id;
		return true;
	}
	return false;
}

/*
 * dv_analyze_query - check a dynamic table's query and describe it.
 *
 * self_relid, when valid, is the dynamic table being replaced: reading it is
 * an error.  Runs as the current user, who must be able to SELECT from every
 * source.  Result in the current memory context.  Needs a transaction.
 */
DvAnalyzedQuery *
dv_analyze_query(const char *query_text, Oid self_relid)
{
	DvAnalyzedQuery *aq = palloc0(sizeof(DvAnalyzedQuery));
	Query	   *q;
	List	   *rewritten;
	CollectContext ctx = {self_relid, NIL, NIL};
	ListCell   *lc;
	ListCell   *lc2;
	int			nestlevel;

	q = parse_select(query_text);
	rewritten = QueryRewrite(copyObject(q));
	if (list_length(rewritten) != 1)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("the query of a dynamic table must rewrite into a single SELECT"),
				 errhint("Rules that turn a SELECT into several statements are not supported.")));
	aq->query = linitial_node(Query, rewritten);

	/*
	 * A sequence is written by nextval() and setval(): every refresh, FULL or
	 * incremental, would advance it again (views inlined: theirs too).  A
	 * function of the user's that calls them is volatile: FULL, and called
	 * at each refresh (doc/supported-sql.md).
	 */
	{
		Oid			func = InvalidOid;

		if (dv_find_function((Node *) aq->query, sequence_write_checker, &func))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("the query of a dynamic table must not advance or set a sequence"),
					 errdetail("It calls %s.", format_procedure(func)),
					 errhint("Every refresh would call it again. Number the rows with row_number() OVER (ORDER BY ...), "
							 "or give the source table a column whose DEFAULT is nextval().")));
	}

	collect_sources_walker((Node *) aq->query, &ctx);
	forboth(lc, ctx.relids, lc2, ctx.columns)
	{
		Oid			relid = lfirst_oid(lc);
		DvSource   *src = palloc0(sizeof(DvSource));

		src->relid = relid;
		src->schema_name = get_namespace_name(get_rel_namespace(relid));
		src->table_name = get_rel_name(relid);
		src->columns = dv_column_names(relid, lfirst(lc2));
		aq->sources = lappend(aq->sources, src);
	}

	foreach(lc, aq->query->targetList)
	{
		TargetEntry *te = lfirst_node(TargetEntry, lc);

		if (te->resjunk)
			continue;
		aq->column_names = lappend(aq->column_names, makeString(pstrdup(te->resname)));
		aq->column_types = lappend_oid(aq->column_types, exprType((Node *) te->expr));
		aq->column_typmods = lappend_int(aq->column_typmods, exprTypmod((Node *) te->expr));
	}
	if (aq->column_names == NIL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("the query of a dynamic table must return at least one column"),
				 errhint("Add a column to the SELECT list.")));

	/*
	 * Deparse with a search_path that makes every name outside pg_catalog
	 * qualified, then analyse the text again as refreshes will: this proves
	 * that it round-trips and checks the caller's SELECT rights on what the
	 * refreshes will read.
	 */
	nestlevel = NewGUCNestLevel();
	(void) set_config_option("search_path", DV_SAFE_SEARCH_PATH,
							 PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
	dv_set_output_styles();	/* constants are read back in these styles */
	aq->definition = pg_get_querydef(q, false);
	aq->definition_tree = nodeToString(q);
	check_permissions_walker((Node *) parse_select(aq->definition), NULL);
	AtEOXact_GUC(true, nestlevel);

	/* what AUTO resolves to: incremental where the engine can, else FULL and why */
	{
		DvPlan	   *plan = dv_plan_query(aq->query);

		if (plan->kind == DV_PLAN_FULL)
		{
			aq->full_reason_code = plan->reason_code;
			aq->full_reason = plan->reason;
		}
		else
		{
			foreach(lc, aq->sources)
			{
				DvSource   *src = lfirst(lc);

				if (dv_source_is_capturable(src->relid))
					continue;
				aq->full_reason_code = "SOURCE_NOT_CAPTURED";
				aq->full_reason = psprintf("Changes of \"%s\" (an unlogged or foreign table, a partitioned table with such partitions, or a materialized view) are not captured.",
										   src->table_name);
				break;
			}
		}
	}
	return aq;
}

/*
 * dv_source_is_capturable - are the changes of source relid captured: a
 * permanent table (not a system catalog), a dynamic table (its refreshes
 * write its buffer), or a partitioned table whose leaves' are
 * (cdc/partitions.c)?  Otherwise its readers are FULL (SOURCE_NOT_CAPTURED).
 */
bool
dv_source_is_capturable(Oid relid)
{
	char		kind = get_rel_relkind(relid);

	if (kind == RELKIND_RELATION &&
		get_rel_persistence(relid) == RELPERSISTENCE_PERMANENT &&
		!IsCatalogRelationOid(relid))
		return true;
	if (kind == RELKIND_RELATION && dv_is_dynamic_table(relid))
		return true;
	return kind == RELKIND_PARTITIONED_TABLE && dv_partition_tree_capturable(relid);
}

/*
 * dv_definition_tree - the stored definition parsed and analysed (not
 * rewritten: views stay views) under the fixed search_path, as
 * nodeToString text to keep in the catalog (palloc'd in the caller's
 * context).  It refers to columns by number, so a renamed source column
 * deparses with its new name, as a view's rule does.
 */
char *
dv_definition_tree(const char *definition)
{
	int			nestlevel = NewGUCNestLevel();
	char	   *tree;

	(void) set_config_option("search_path", DV_SAFE_SEARCH_PATH,
							 PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
	dv_set_output_styles();		/* its constants were written in these */
	tree = nodeToString(parse_select(definition));
	AtEOXact_GUC(true, nestlevel);
	return tree;
}

/*
 * dv_parse_definition - the stored definition of a dynamic table, parsed,
 * analysed and rewritten (views inlined), under the fixed search_path.
 */
Query *
dv_parse_definition(const char *sql)
{
	int			nestlevel = NewGUCNestLevel();
	List	   *rewritten = NIL;
	MemoryContext context = CurrentMemoryContext;

	(void) set_config_option("search_path", DV_SAFE_SEARCH_PATH,
							 PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
	dv_set_output_styles();		/* its constants were written in these */
	PG_TRY();
	{
		rewritten = QueryRewrite(parse_select(sql));
	}
	PG_CATCH();
	{
		/* point into the stored definition, not into the caller's statement */
		ErrorData  *edata;

		MemoryContextSwitchTo(context);
		edata = CopyErrorData();
		FlushErrorState();
		edata->internalquery = pstrdup(sql);
		if (edata->cursorpos > 0)
			edata->internalpos = edata->cursorpos;
		edata->cursorpos = 0;
		edata->context = pstrdup("the stored definition of a dynamic table");
		if (edata->hint == NULL &&
			(edata->sqlerrcode == ERRCODE_UNDEFINED_TABLE || edata->sqlerrcode == ERRCODE_UNDEFINED_COLUMN ||
			 edata->sqlerrcode == ERRCODE_UNDEFINED_FUNCTION))
			edata->hint = pstrdup("Something the definition names was dropped, renamed or changed; restore it, "
								  "or give the table a new definition with dynview.create_or_replace_dynamic_table(). "
								  "The table keeps its last good data meanwhile.");
		ReThrowError(edata);
	}
	PG_END_TRY();
	AtEOXact_GUC(true, nestlevel);
	if (list_length(rewritten) != 1)
		elog(ERROR, "definition rewrote into %d queries", list_length(rewritten));
	return linitial_node(Query, rewritten);
}

/*
 * dv_validate_schedule - check a schedule argument; returns its normal form
 * (palloc'd): 'downstream', 'manual', or the interval as given.
 */
char *
dv_validate_schedule(const char *schedule)
{
	Interval	minimum = {USECS_PER_SEC, 0, 0};
	Interval	iv;
	struct pg_itm_in itm;
	int			dtype;
	char	   *fields[MAXDATEFIELDS];
	int			ftype[MAXDATEFIELDS];
	char		workbuf[256];
	int			nf;
	int			dterr;

	if (pg_strcasecmp(schedule, "downstream") == 0)
		return pstrdup("downstream");
	if (pg_strcasecmp(schedule, "manual") == 0)
		return pstrdup("manual");

	/* a cron expression (every 5 minutes: star-slash-5 and four stars) would parse as 5 seconds */
	if (strpbrk(schedule, "*/,?#") != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid schedule \"%s\"", schedule),
				 errdetail("A schedule is an interval, not a cron expression."),
				 errhint("Use an interval such as '5 minutes', or 'manual' and a pg_cron job that calls dynview.refresh() (doc/pg-cron.md).")));

	/* parse without throwing, so that the error can say what a schedule is */
	dterr = ParseDateTime(schedule, workbuf, sizeof(workbuf), fields, ftype, MAXDATEFIELDS, &nf);
	if (dterr == 0)
		dterr = DecodeInterval(fields, ftype, nf, INTERVAL_FULL_RANGE, &dtype, &itm);
	if (dterr == DTERR_BAD_FORMAT)
		dterr = DecodeISO8601Interval(unconstify(char *, schedule), &dtype, &itm);
	if (dterr == 0 && dtype == DTK_DELTA && itmin2interval(&itm, &iv) != 0)
		dterr = DTERR_FIELD_OVERFLOW;
	if (dterr != 0 || dtype != DTK_DELTA)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid schedule \"%s\"", schedule),
				 errhint("A schedule is an interval of at least 1 second such as '1 minute' or '5 seconds', 'downstream', or 'manual'.")));

	if (DatumGetInt32(DirectFunctionCall2(interval_cmp, IntervalPGetDatum(&iv),
										  IntervalPGetDatum(&minimum))) < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("schedule \"%s\" is shorter than 1 second", schedule),
				 errhint("Use an interval of at least 1 second, 'downstream', or 'manual'.")));
	return pstrdup(schedule);
}

/*
 * dv_validate_refresh_mode - 'auto' | 'incremental' | 'full' (any case);
 * returns the lower-case form.
 */
char *
dv_validate_refresh_mode(const char *mode)
{
	if (pg_strcasecmp(mode, "auto") == 0)
		return pstrdup("auto");
	if (pg_strcasecmp(mode, "incremental") == 0)
		return pstrdup("incremental");
	if (pg_strcasecmp(mode, "full") == 0)
		return pstrdup("full");
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid refresh mode \"%s\"", mode),
			 errhint("Use 'auto', 'incremental' or 'full'.")));
	return NULL;				/* keep compiler quiet */
}

/*
 * dv_check_wal_level - dynamic tables capture changes from the WAL.
 */
void
dv_check_wal_level(void)
{
	if (wal_level < WAL_LEVEL_LOGICAL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("dynamic tables need wal_level = logical"),
				 errdetail("The server runs with wal_level = %s.", GetConfigOption("wal_level", false, false)),
				 errhint("Set wal_level = logical in postgresql.conf and restart the server.")));
}
