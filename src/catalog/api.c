/*-------------------------------------------------------------------------
 *
 * api.c
 *	  The SQL-callable functions of schema dynview (design section 2).
 *
 * Each function validates its arguments before it changes anything, opens
 * one SPI connection, and calls into catalog.c / analyze.c / refresh.c.
 * An error anywhere aborts the caller's (sub)transaction, so nothing is left
 * half done.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/xact.h"
#include "catalog/index.h"
#include "catalog/namespace.h"
#include "catalog/partition.h"
#include "catalog/pg_class.h"
#include "catalog/pg_index.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "tcop/utility.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/regproc.h"
#include "utils/syscache.h"
#include "utils/tuplestore.h"
#include "utils/memutils.h"
#include "utils/varlena.h"

#include "dynview.h"
#include "analyze/delta.h"
#include "analyze/optree.h"
#include "cdc/cdc.h"

PG_FUNCTION_INFO_V1(dynview_create_dynamic_table);
PG_FUNCTION_INFO_V1(dynview_create_or_replace_dynamic_table);
PG_FUNCTION_INFO_V1(dynview_drop_dynamic_table);
PG_FUNCTION_INFO_V1(dynview_refresh);
PG_FUNCTION_INFO_V1(dynview_alter_dynamic_table);
PG_FUNCTION_INFO_V1(dynview_suspend);
PG_FUNCTION_INFO_V1(dynview_resume);
PG_FUNCTION_INFO_V1(dynview_verify);

static char *
text_arg(FunctionCallInfo fcinfo, int n, const char *argname)
{
	if (PG_ARGISNULL(n))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("argument \"%s\" must not be null", argname),
				 errhint("Pass a value for \"%s\".", argname)));
	return text_to_cstring(PG_GETARG_TEXT_PP(n));
}

static void
read_create_args(FunctionCallInfo fcinfo, DvCreateArgs *args)
{
	memset(args, 0, sizeof(DvCreateArgs));
	args->name = text_arg(fcinfo, 0, "name");
	args->query = text_arg(fcinfo, 1, "query");
	args->schedule = dv_validate_schedule(text_arg(fcinfo, 2, "schedule"));
	args->refresh_mode = dv_validate_refresh_mode(text_arg(fcinfo, 3, "refresh_mode"));
	args->initialize = PG_ARGISNULL(4) ? true : PG_GETARG_BOOL(4);
	if (!PG_ARGISNULL(5))
	{
		Datum	   *elems;
		bool	   *nulls;
		int			n;

		args->primary_key = PG_GETARG_ARRAYTYPE_P(5);
		deconstruct_array(args->primary_key, TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls, &n);
		if (n == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("primary_key must name at least one column"),
					 errhint("Pass NULL to let dynview derive the key.")));
		for (int i = 0; i < n; i++)
		{
			if (nulls[i])
				ereport(ERROR,
						(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
						 errmsg("primary_key must not contain nulls"),
						 errhint("List the key columns of the query's result by name.")));
			args->key_columns = lappend(args->key_columns, TextDatumGetCString(elems[i]));
		}
	}
}

/*
 * resolve_mode - the effective mode of a new definition.  Until the
 * incremental engine exists every table is FULL; 'incremental' is refused
 * with the reason.
 */
static const char *
resolve_mode(const char *refresh_mode, DvAnalyzedQuery *aq)
{
	if (strcmp(refresh_mode, "full") == 0)
	{
		if (aq->full_reason_code == NULL)
		{
			aq->full_reason_code = "FULL_REQUESTED";
			aq->full_reason = pstrdup("refresh_mode => 'full' was requested.");
		}
		return "FULL";
	}
	if (strcmp(refresh_mode, "incremental") == 0 && aq->full_reason_code != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("this query cannot be refreshed incrementally"),
				 errdetail("%s (%s)", aq->full_reason, aq->full_reason_code),
				 errhint("Use refresh_mode => 'auto' or 'full'.")));
	return aq->full_reason_code ? "FULL" : "INCREMENTAL";
}

static void
check_key_columns(DvCreateArgs *args, DvAnalyzedQuery *aq)
{
	ListCell   *lc;

	foreach(lc, args->key_columns)
	{
		char	   *col = lfirst(lc);
		ListCell   *lc2;
		bool		found = false;

		foreach(lc2, aq->column_names)
			found |= strcmp(strVal(lfirst(lc2)), col) == 0;
		if (!found)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_COLUMN),
					 errmsg("primary_key column \"%s\" is not a column of the query", col),
					 errhint("Name columns of the query's result.")));
	}
}

/*
 * check_column_names - reject a query whose result has two columns of one
 * name (a table cannot have them): an ERROR with SQLSTATE 42701 naming the
 * column, before anything is created or replaced.  No locks, no memory kept.
 */
static void
check_column_names(DvAnalyzedQuery *aq)
{
	ListCell   *lc;

	foreach(lc, aq->column_names)
	{
		ListCell   *lc2;

		for_each_cell(lc2, aq->column_names, lnext(aq->column_names, lc))
		{
			if (strcmp(strVal(lfirst(lc)), strVal(lfirst(lc2))) == 0)
				ereport(ERROR,
						(errcode(ERRCODE_DUPLICATE_COLUMN),
						 errmsg("the query of a dynamic table gives column name \"%s\" more than once",
								strVal(lfirst(lc))),
						 errdetail("A dynamic table has exactly its query's columns, and a table's columns have distinct names."),
						 errhint("Give each column of the query's result its own name with AS.")));
		}
	}
}

/* reject a definition whose dynamic sources read the table (schema.name) */
static void
check_cycles(DvAnalyzedQuery *aq, const char *schema_name, const char *table_name)
{
	ListCell   *lc;

	foreach(lc, aq->sources)
	{
		DvSource   *src = lfirst(lc);

		if (dv_is_dynamic_table(src->relid) &&
			dv_catalog_reaches(src->relid, schema_name, table_name))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
					 errmsg("dynamic table \"%s.%s\" would depend on itself through \"%s.%s\"",
							schema_name, table_name, src->schema_name, src->table_name),
					 errhint("Dynamic tables must form an acyclic graph.")));
	}
}

/* the unique index for primary_key => (NULLS NOT DISTINCT) */
static void
create_key_index(const char *qualified, List *key_columns)
{
	StringInfoData sql;
	ListCell   *lc;

	if (key_columns == NIL)
		return;
	initStringInfo(&sql);
	appendStringInfo(&sql, "CREATE UNIQUE INDEX ON %s (", qualified);
	foreach(lc, key_columns)
		appendStringInfo(&sql, "%s%s", foreach_current_index(lc) ? ", " : "",
						 quote_identifier(lfirst(lc)));
	appendStringInfoString(&sql, ") NULLS NOT DISTINCT");
	if (SPI_execute(sql.data, false, 0) != SPI_OK_UTILITY)
		elog(ERROR, "could not create key index: %s", sql.data);
}

/*
 * create_apply_index - the index incremental refreshes find rows with: for
 * grouped queries a unique index (NULLS NOT DISTINCT) on the group keys,
 * else an index on the first column.  Skipped for types without btree.
 */
/*
 * apply_index_name - the name of dynview's own apply index of table relid:
 * "<table>_dv_apply", or, when that would be cut to NAMEDATALEN (two long
 * table names would share it, and replacing one table's definition dropped
 * the other's index) or another relation has it, "<table cut>_<oid>_dv_apply".
 */
static char *
apply_index_name(const char *relname, Oid relid)
{
	Oid			nspid = get_rel_namespace(relid);
	char	   *tail;
	int			len;

	if (strlen(relname) + strlen("_dv_apply") < NAMEDATALEN)
	{
		char	   *name = psprintf("%s_dv_apply", relname);
		Oid			existing = get_relname_relid(name, nspid);

		if (!OidIsValid(existing) || IndexGetRelation(existing, true) == relid)
			return name;
	}
	tail = psprintf("_%u_dv_apply", relid);
	len = pg_mbcliplen(relname, strlen(relname), NAMEDATALEN - 1 - strlen(tail));
	return psprintf("%.*s%s", len, relname, tail);
}

/*
 * find_apply_index - dynview's apply index of relid, or InvalidOid: the index
 * of relid named as apply_index_name names it now, else one of its indexes
 * whose name ends in "_dv_apply" (named after the table's old name: ALTER
 * TABLE ... RENAME TO renames no index).  Never another table's.
 */
static Oid
find_apply_index(Oid relid)
{
	Oid			nspid = get_rel_namespace(relid);
	Oid			index = get_relname_relid(apply_index_name(get_rel_name(relid), relid), nspid);
	Relation	rel;
	List	   *indexes;
	ListCell   *lc;

	if (OidIsValid(index) && IndexGetRelation(index, true) == relid)
		return index;
	index = InvalidOid;
	rel = relation_open(relid, AccessShareLock);
	indexes = RelationGetIndexList(rel);
	foreach(lc, indexes)
	{
		char	   *name = get_rel_name(lfirst_oid(lc));
		size_t		len = name ? strlen(name) : 0;

		if (len > strlen("_dv_apply") && strcmp(name + len - strlen("_dv_apply"), "_dv_apply") == 0)
		{
			index = lfirst_oid(lc);
			break;
		}
	}
	list_free(indexes);
	relation_close(rel, AccessShareLock);
	return index;
}

/*
 * drop_apply_index - drop dynview's apply index of relid, if it has one
 * (find_apply_index).
 */
static void
drop_apply_index(Oid relid)
{
	Oid			nspid = get_rel_namespace(relid);
	Oid			index = find_apply_index(relid);

	if (!OidIsValid(index))
		return;
	if (SPI_execute(psprintf("DROP INDEX %s",
							 quote_qualified_identifier(get_namespace_name(nspid), get_rel_name(index))),
					false, 0) != SPI_OK_UTILITY)
		elog(ERROR, "could not drop the apply index of relation %u", relid);
}

/*
 * apply_index_shape - the columns (List of char *, names of the table's
 * columns) and uniqueness of the apply index create_apply_index makes for
 * aq, or NIL when none is made (a global aggregate, a column type without
 * btree, or unique_only and the rows are not known distinct).
 */
static List *
apply_index_shape(DvAnalyzedQuery *aq, bool unique_only, bool *unique)
{
	DvPlan	   *plan = dv_plan_query(aq->query);
	List	   *cols = NIL;
	ListCell   *lc;

	if (plan->kind == DV_PLAN_GROUPED || (plan->kind == DV_PLAN_WINDOW && plan->key_columns != NIL))
		cols = plan->key_columns;
	else if (plan->kind == DV_PLAN_WINDOW)
		cols = list_make1(((DvSortKey *) linitial(plan->window_order))->column);
	else if (plan->spj_key != NIL)
		cols = plan->spj_key;
	else
		cols = list_make1(strVal(linitial(aq->column_names)));
	if (cols == NIL)
		return NIL;				/* a global aggregate: one row */
	*unique = (plan->kind == DV_PLAN_GROUPED && plan->keys_unique) || plan->spj_key != NIL;
	if (unique_only && !*unique)
		return NIL;
	foreach(lc, cols)
	{
		const char *col = lfirst(lc);
		ListCell   *ln;
		ListCell   *ltype;

		forboth(ln, aq->column_names, ltype, aq->column_types)
		{
			if (strcmp(strVal(lfirst(ln)), col) == 0 && !OidIsValid(dv_btree_family(lfirst_oid(ltype))))
				return NIL;		/* no btree: incremental refreshes scan */
		}
	}
	return cols;
}

static void
create_apply_index(const char *qualified, Oid relid, DvAnalyzedQuery *aq, bool unique_only)
{
	bool		unique = false;
	List	   *cols = apply_index_shape(aq, unique_only, &unique);
	ListCell   *lc;
	StringInfoData sql;

	if (cols == NIL)
		return;
	initStringInfo(&sql);
	appendStringInfo(&sql, "CREATE %sINDEX %s ON %s (",
					 unique ? "UNIQUE " : "",
					 quote_identifier(apply_index_name(get_rel_name(relid), relid)), qualified);
	foreach(lc, cols)
		appendStringInfo(&sql, "%s%s", foreach_current_index(lc) ? ", " : "",
						 quote_identifier((const char *) lfirst(lc)));
	appendStringInfo(&sql, ")%s", unique ? " NULLS NOT DISTINCT" : "");
	if (SPI_execute(sql.data, false, 0) != SPI_OK_UTILITY)
		elog(ERROR, "could not create index: %s", sql.data);
}

/*
 * apply_index - dynview's apply index for a table without primary_key: an
 * INCREMENTAL table's (incremental refreshes find rows with it), or the
 * unique one of a table refreshed FULL on request whose query dynview
 * could refresh incrementally and whose rows it knows to be distinct (a
 * FULL refresh then matches rows by that key, refresh.c).
 */
static void
apply_index(const char *qualified, Oid relid, DvCreateArgs *args, DvAnalyzedQuery *aq,
			const char *effective)
{
	if (args->key_columns != NIL)
		return;
	if (strcmp(effective, "INCREMENTAL") == 0)
		create_apply_index(qualified, relid, aq, false);
	else if (aq->full_reason_code != NULL && strcmp(aq->full_reason_code, "FULL_REQUESTED") == 0)
		create_apply_index(qualified, relid, aq, true);
}

/*
 * apply_index_matches - is index (dynview's apply index of relid) the one
 * apply_index_shape describes: unique or not alike, on those columns?
 */
static bool
apply_index_matches(Oid index, Oid relid, List *cols, bool unique)
{
	HeapTuple	tup = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(index));
	Form_pg_index form;
	bool		same;

	if (!HeapTupleIsValid(tup))
		return false;
	form = (Form_pg_index) GETSTRUCT(tup);
	same = form->indisunique == unique && form->indnkeyatts == list_length(cols) &&
		heap_attisnull(tup, Anum_pg_index_indexprs, NULL) &&
		heap_attisnull(tup, Anum_pg_index_indpred, NULL);
	for (int k = 0; same && k < form->indnkeyatts; k++)
		same = form->indkey.values[k] == get_attnum(relid, (const char *) list_nth(cols, k));
	ReleaseSysCache(tup);
	return same;
}

static bool
index_is_unique(Oid index)
{
	HeapTuple	tup = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(index));
	bool		unique;

	if (!HeapTupleIsValid(tup))
		return false;
	unique = ((Form_pg_index) GETSTRUCT(tup))->indisunique;
	ReleaseSysCache(tup);
	return unique;
}

/*
 * index_has_row_type_key - does a key column of index hold a composite type
 * (dv_row_type_held: directly, or as an array's elements, a domain's base
 * type, a range's bounds)?  ALTER TYPE
 * ... DROP ATTRIBUTE changes no stored value, so the index keeps entries
 * that the values, read with the type as it is now, no longer tell apart:
 * a unique index would refuse a refresh's rows (catalog.c
 * append_row_type_shape makes such a change a source's alteration).
 */
static bool
index_has_row_type_key(Oid index, Oid relid)
{
	HeapTuple	tup = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(index));
	Form_pg_index form;
	bool		found = false;

	if (!HeapTupleIsValid(tup))
		return false;
	form = (Form_pg_index) GETSTRUCT(tup);
	for (int k = 0; k < form->indnkeyatts && !found; k++)
	{
		Oid			typid;

		if (form->indkey.values[k] == 0)
			continue;			/* (an expression: dynview's apply indexes have none) */
		typid = get_atttype(relid, form->indkey.values[k]);
		found = OidIsValid(dv_row_type_held(typid));
	}
	ReleaseSysCache(tup);
	return found;
}

/*
 * dv_catalog_sync_apply_index - give dynamic table dt the apply index its
 * definition, analysed now, calls for, when the one it has differs.  The
 * keys that make it unique may come from a source's primary key or unique
 * indexes (analyze/keys.c): once one is dropped, the table's rows need not
 * be distinct any more, and a unique apply index would refuse them (every
 * refresh failed on "<table>_dv_apply"); once one is added, the index may
 * be unique, on other columns.  Called twice by a FULL refresh that found a
 * source's signature changed (catalog.c: its unique indexes are part of it),
 * the definition changed or a source recreated: before it writes the table
 * (create false), to drop an index that differs, and, when that call
 * returned true, after it wrote the table (create true), to create the
 * index on the new contents (the old ones need not be unique on the new
 * key).  One on a composite type is made again too: the type's attributes
 * may have changed (index_has_row_type_key).  A table with primary_key has
 * no apply index.  Runs as the table's
 * owner: DROP INDEX locks the table AccessExclusive until the refresh
 * commits (as a refresh that changes the table's column types does).
 * Needs SPI.
 */
bool
dv_catalog_sync_apply_index(DvTable *dt, bool create)
{
	DvAnalyzedQuery *aq;
	bool		unique = false;
	List	   *cols = NIL;
	Oid			index;
	Oid			types[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(dt->relid)};
	bool		pending = false;
	int			save_nestlevel;
	Oid			save_userid;
	int			save_sec;

	dv_catalog_exec("SELECT 1 FROM dynview.dynamic_table_catalog WHERE relid = $1::regclass "
					"AND primary_key IS NOT NULL", 1, types, values, NULL, -1);
	if (SPI_processed > 0 || get_rel_relkind(dt->relid) != RELKIND_RELATION)
		return false;

	dv_run_as_owner(dt->owner, &save_nestlevel, &save_userid, &save_sec);
	aq = dv_analyze_query(dt->definition, dt->relid);
	/* (a FULL table's apply index is a unique one, made when it could be incremental) */
	if (strcmp(dt->effective_mode, "INCREMENTAL") == 0)
		cols = apply_index_shape(aq, false, &unique);
	else if (aq->full_reason_code == NULL)
		cols = apply_index_shape(aq, true, &unique);

	index = find_apply_index(dt->relid);
	if (create)
	{
		if (cols != NIL && !OidIsValid(index))
		{
			create_apply_index(quote_qualified_identifier(dt->schema_name, dt->table_name),
							   dt->relid, aq, strcmp(dt->effective_mode, "INCREMENTAL") != 0);
			CommandCounterIncrement();
		}
	}
	else if (cols != NIL ? !OidIsValid(index) || !apply_index_matches(index, dt->relid, cols, unique) ||
			 index_has_row_type_key(index, dt->relid)
			 : OidIsValid(index) && index_is_unique(index))	/* (a non-unique one refuses no row) */
	{
		drop_apply_index(dt->relid);
		CommandCounterIncrement();
		pending = cols != NIL;
	}
	dv_restore_user(save_nestlevel, save_userid, save_sec);
	return pending;
}

/*
 * rethrow_build_error - in the PG_CATCH of a creation's (or a replacement's)
 * build and indexes, with oldcontext the memory context before the PG_TRY:
 * rethrow the error; one of a key value too long for the B-tree entries of
 * dynview's own indexes (refresh.c dv_key_too_long: a group key, a DISTINCT
 * column or an apply key of several kB) gets a hint for the creator instead
 * of PostgreSQL's (an index on a hash of the value, not the user's to make)
 * or the refresh's (the table's last good data, which a creation has not).
 */
static void rethrow_build_error(MemoryContext oldcontext) pg_attribute_noreturn();

static void
rethrow_build_error(MemoryContext oldcontext)
{
	ErrorData  *edata;

	MemoryContextSwitchTo(oldcontext);
	edata = CopyErrorData();
	FlushErrorState();
	if (dv_key_too_long(edata))
		edata->hint = pstrdup("A key of the dynamic table (a group key, a DISTINCT column, or the column its rows are found by) "
							  "took a value longer than dynview's B-tree index can hold (about 2.7 kB), in any refresh mode. "
							  "Give the table a definition whose key is short (for instance, group by md5() of the long value), "
							  "or use a materialized view.");
	ReThrowError(edata);
}

/* the key index (primary_key) or dynview's apply index of a new dynamic table */
static void
create_indexes(const char *qualified, Oid relid, DvCreateArgs *args, DvAnalyzedQuery *aq,
			   const char *effective)
{
	create_key_index(qualified, args->key_columns);
	apply_index(qualified, relid, args, aq, effective);
}

static Oid
create_new(DvCreateArgs *args, RangeVar *rv, Oid nspid)
{
	DvAnalyzedQuery *aq;
	const char *effective;
	char	   *nspname = get_namespace_name(nspid);
	char	   *qualified = quote_qualified_identifier(nspname, rv->relname);
	Oid			relid;
	int			save_nestlevel;
	Oid			save_userid;
	int			save_sec;

	aq = dv_analyze_query(args->query, InvalidOid);
	check_cycles(aq, nspname, rv->relname);
	check_column_names(aq);
	check_key_columns(args, aq);
	effective = resolve_mode(args->refresh_mode, aq);

	/* the table, as the current user (its owner), from the qualified definition */
	dv_run_as_owner(GetUserId(), &save_nestlevel, &save_userid, &save_sec);
	if (SPI_execute(psprintf("CREATE TABLE %s AS %s WITH NO DATA", qualified, aq->definition),
					false, 0) != SPI_OK_UTILITY)
		elog(ERROR, "could not create dynamic table %s", qualified);
	CommandCounterIncrement();
	relid = get_relname_relid(rv->relname, nspid);
	if (!OidIsValid(relid))
		elog(ERROR, "dynamic table %s vanished after creation", qualified);
	if (!args->initialize)
		create_indexes(qualified, relid, args, aq, effective);
	dv_restore_user(save_nestlevel, save_userid, save_sec);
	CommandCounterIncrement();
	/* in a publication FOR ALL TABLES or TABLES IN SCHEMA already? */
	dv_publication_identity(relid, "dynamic table");
	dv_catalog_insert(relid, args->query, aq, args->schedule, args->refresh_mode,
					  effective, args->primary_key);
	dv_catalog_set_definition_tree(relid, aq->definition_tree);
	/* before the initial build's snapshot (design section 4) */
	dv_tracking_start(aq->sources, strcmp(args->refresh_mode, "incremental") == 0);
	CommandCounterIncrement();
	if (args->initialize)
	{
		/*
		 * Built first, indexed afterwards, as CREATE MATERIALIZED VIEW and
		 * CREATE INDEX would: the build writes the empty table in bulk
		 * (refresh.c), an index is sorted once instead of kept up row by
		 * row.  A key the rows do not honour fails the creation here.
		 */
		MemoryContext oldcontext = CurrentMemoryContext;

		PG_TRY();
		{
			(void) dv_refresh_pipeline(relid, DV_TRIGGER_CREATION);
			dv_run_as_owner(GetUserId(), &save_nestlevel, &save_userid, &save_sec);
			create_indexes(qualified, relid, args, aq, effective);
			dv_restore_user(save_nestlevel, save_userid, save_sec);
		}
		PG_CATCH();
		{
			rethrow_build_error(oldcontext);
		}
		PG_END_TRY();
		CommandCounterIncrement();
	}
	return relid;
}

/*
 * lock_pipeline - the refresh locks of relid and of every dynamic table it
 * reads now, in OID order, as a pipeline refresh takes them: the replaced
 * definition's initial build refreshes the pipeline, and taking relid's
 * lock first deadlocked with a refresh of that pipeline waiting for it
 * (the thirty-second session's tester; older than the refresh lock).
 * Upstreams the new definition adds are locked by its build, later.
 */
static void
lock_pipeline(Oid relid)
{
	List	   *tables = list_copy(dv_catalog_upstream_closure(relid));
	ListCell   *lc;

	list_sort(tables, list_oid_cmp);
	foreach(lc, tables)
		dv_lock_refresh_write(lfirst_oid(lc));
}

/*
 * replace_existing - new definition for an existing dynamic table, keeping
 * the table: existing columns must keep names and types, new ones are
 * appended.
 */
static void
replace_existing(DvCreateArgs *args, Oid relid)
{
	DvAnalyzedQuery *aq;
	const char *effective;
	Relation	rel;
	TupleDesc	desc;
	char	   *nspname = get_namespace_name(get_rel_namespace(relid));
	char	   *relname = get_rel_name(relid);
	char	   *qualified = quote_qualified_identifier(nspname, relname);
	ListCell   *lname,
			   *ltype,
			   *ltypmod;
	int			attno = 0;
	StringInfoData add;

	lock_pipeline(relid);
	aq = dv_analyze_query(args->query, relid);
	check_cycles(aq, nspname, relname);
	check_column_names(aq);
	check_key_columns(args, aq);
	effective = resolve_mode(args->refresh_mode, aq);

	rel = relation_open(relid, AccessShareLock);
	desc = RelationGetDescr(rel);
	initStringInfo(&add);
	forthree(lname, aq->column_names, ltype, aq->column_types, ltypmod, aq->column_typmods)
	{
		const char *newname = strVal(lfirst(lname));
		Oid			newtype = lfirst_oid(ltype);
		int32		newtypmod = lfirst_int(ltypmod);
		Form_pg_attribute att = NULL;

		while (attno < desc->natts && TupleDescAttr(desc, attno)->attisdropped)
			attno++;
		if (attno < desc->natts)
			att = TupleDescAttr(desc, attno++);
		if (att == NULL)
		{
			appendStringInfo(&add, "%sADD COLUMN %s %s", add.len ? ", " : "",
							 quote_identifier(newname),
							 format_type_extended(newtype, newtypmod,
												  FORMAT_TYPE_TYPEMOD_GIVEN | FORMAT_TYPE_FORCE_QUALIFY));
			continue;
		}
		if (strcmp(NameStr(att->attname), newname) != 0)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("cannot replace column \"%s\" of dynamic table \"%s\" by column \"%s\"",
							NameStr(att->attname), relname, newname),
					 errdetail("Existing columns must keep their names and order; new columns may only be appended."),
					 errhint("Drop the dynamic table with dynview.drop_dynamic_table() and create it again.")));
		if (att->atttypid != newtype || att->atttypmod != newtypmod)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("cannot replace column \"%s\" of dynamic table \"%s\" from type %s to type %s",
							newname, relname,
							format_type_with_typemod(att->atttypid, att->atttypmod),
							format_type_with_typemod(newtype, newtypmod)),
					 errhint("Drop the dynamic table with dynview.drop_dynamic_table() and create it again.")));
	}
	while (attno < desc->natts && TupleDescAttr(desc, attno)->attisdropped)
		attno++;
	if (attno < desc->natts)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot drop column \"%s\" of dynamic table \"%s\"",
						NameStr(TupleDescAttr(desc, attno)->attname), relname),
				 errdetail("The new query returns fewer columns than the table has."),
				 errhint("Drop the dynamic table with dynview.drop_dynamic_table() and create it again.")));
	relation_close(rel, AccessShareLock);

	if (add.len > 0)
	{
		int			save_nestlevel;
		Oid			save_userid;
		int			save_sec;

		dv_run_as_owner(GetUserId(), &save_nestlevel, &save_userid, &save_sec);
		dv_guard_allow_column_ddl(relid);
		if (SPI_execute(psprintf("ALTER TABLE %s %s", qualified, add.data), false, 0) != SPI_OK_UTILITY)
			elog(ERROR, "could not add columns to %s", qualified);
		dv_guard_allow_column_ddl(InvalidOid);
		dv_restore_user(save_nestlevel, save_userid, save_sec);
	}
	/* dynview's apply index follows the definition (user indexes stay) */
	{
		int			save_nestlevel;
		Oid			save_userid;
		int			save_sec;

		dv_run_as_owner(GetUserId(), &save_nestlevel, &save_userid, &save_sec);
		drop_apply_index(relid);
		dv_restore_user(save_nestlevel, save_userid, save_sec);
	}
	dv_catalog_replace_definition(relid, args->query, aq, args->schedule, args->refresh_mode,
								  effective, args->primary_key);
	dv_catalog_set_definition_tree(relid, aq->definition_tree);
	dv_tracking_start(aq->sources, strcmp(args->refresh_mode, "incremental") == 0);
	dv_tracking_release_unused();
	CommandCounterIncrement();
	if (args->initialize)
	{
		MemoryContext oldcontext = CurrentMemoryContext;

		PG_TRY();
		{
			(void) dv_refresh_pipeline(relid, DV_TRIGGER_CREATION);
		}
		PG_CATCH();
		{
			rethrow_build_error(oldcontext);
		}
		PG_END_TRY();
	}
	else
		dv_refresh_empty(relid);	/* the old rows do not fit the new definition */
	{
		int			save_nestlevel;
		Oid			save_userid;
		int			save_sec;

		/* after the refill: the new keys hold for the new contents */
		dv_run_as_owner(GetUserId(), &save_nestlevel, &save_userid, &save_sec);
		apply_index(qualified, relid, args, aq, effective);
		dv_restore_user(save_nestlevel, save_userid, save_sec);
	}
}

/*
 * dv_create_dynamic_table - create the dynamic table args describes, or,
 * with replace, give an existing one the new definition.  The body of
 * create_dynamic_table() and create_or_replace_dynamic_table(), and of
 * CREATE MATERIALIZED VIEW ... WITH (dynview.*) (hooks/matview.c): one set
 * of checks and errors for both.  Arguments validated by the caller
 * (dv_validate_schedule, dv_validate_refresh_mode).
 */
Oid
dv_create_dynamic_table(DvCreateArgs *args, bool replace)
{
	RangeVar   *rv;
	Oid			nspid;
	Oid			existing;

	dv_check_wal_level();
	/* before anything is written: the slot's creation waits for writers */
	if (dv_shmem_available())
		dv_tracking_wait_for_decoder();

	rv = makeRangeVarFromNameList(stringToQualifiedNameList(args->name));
	nspid = RangeVarGetAndCheckCreationNamespace(rv, NoLock, &existing);
	if (isAnyTempNamespace(nspid))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("dynamic tables cannot be temporary"),
				 errhint("Create the dynamic table in a permanent schema.")));

	SPI_connect();
	/* (before the analysis locks the sources: cdc/tracking.c) */
	dv_tracking_lock_first_start(args->query);
	if (OidIsValid(existing))
	{
		if (!replace)
			ereport(ERROR,
					(errcode(ERRCODE_DUPLICATE_TABLE),
					 errmsg("relation \"%s\" already exists", args->name),
					 errhint("Use dynview.create_or_replace_dynamic_table() to change a dynamic table's definition, or choose another name.")));
		/* a partitioned dynamic table, and each partition, take its definition */
		if (dv_is_partitioned_dynamic_table(existing))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("create_or_replace_dynamic_table cannot create or replace a partitioned dynamic table"),
					 errdetail("Each partition is a dynamic table of its own, filled from its own data snapshot."),
					 errhint("Drop it with DROP TABLE and create it again with create_dynamic_table(..., partition_by => ...).")));
		if (get_rel_relispartition(existing) &&
			dv_is_partitioned_dynamic_table(get_partition_parent(existing, false)))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("cannot replace the definition of \"%s\", a partition of partitioned dynamic table \"%s\"",
							args->name, get_rel_name(get_partition_parent(existing, false))),
					 errdetail("A partition's query is the table's definition with dynview.partition() replaced by its value."),
					 errhint("Drop the partitioned dynamic table and create it again with the new definition.")));
		if (!dv_is_dynamic_table(existing))
			ereport(ERROR,
					(errcode(ERRCODE_WRONG_OBJECT_TYPE),
					 errmsg("\"%s\" is not a dynamic table", args->name),
					 errhint("Only dynamic tables can be replaced; drop the relation or choose another name.")));
		if (!pg_class_ownercheck(existing, GetUserId()))
			aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_TABLE, args->name);
		replace_existing(args, existing);
	}
	else
		existing = create_new(args, rv, nspid);
	SPI_finish();
	dv_shmem_wake_scheduler_at_commit();
	return existing;
}

/*
 * create_partitioned - create_dynamic_table(..., partition_by => column
 * [, retention => interval]): the partitioned path (catalog/partitioned.c),
 * as create_partitioned_dynamic_table.  A partitioned dynamic table is
 * built deferred (initialize is not used); its schedule (the function's
 * default '1 minute' too) is that of the partition of the greatest value.
 */
static Oid
create_partitioned(FunctionCallInfo fcinfo, DvCreateArgs *args, bool replace)
{
	DvPartitionedArgs pargs;

	if (replace)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("create_or_replace_dynamic_table cannot create or replace a partitioned dynamic table"),
				 errdetail("Each partition is a dynamic table of its own, filled from its own data snapshot."),
				 errhint("Drop it with DROP TABLE and create it again with create_dynamic_table(..., partition_by => ...).")));
	memset(&pargs, 0, sizeof(pargs));
	pargs.name = args->name;
	pargs.query = args->query;
	pargs.partition_by = text_to_cstring(PG_GETARG_TEXT_PP(6));
	pargs.primary_key = args->primary_key;
	pargs.refresh_mode = args->refresh_mode;
	pargs.schedule = args->schedule;
	if (!PG_ARGISNULL(7))
	{
		pargs.retention = PG_GETARG_INTERVAL_P(7);
		dv_check_partition_retention(pargs.retention);
	}
	return dv_create_partitioned_dynamic_table(&pargs);
}

/*
 * create_or_replace - shared body of the two create functions: arguments
 * name, query, schedule, refresh_mode, initialize, primary_key,
 * partition_by, retention.
 */
static Oid
create_or_replace(FunctionCallInfo fcinfo, bool replace)
{
	DvCreateArgs args;

	read_create_args(fcinfo, &args);
	if (PG_NARGS() > 6 && !PG_ARGISNULL(6))
		return create_partitioned(fcinfo, &args, replace);
	if (PG_NARGS() > 7 && !PG_ARGISNULL(7))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("retention needs partition_by"),
				 errhint("Retention drops partitions of a partitioned dynamic table.")));
	return dv_create_dynamic_table(&args, replace);
}

Datum
dynview_create_dynamic_table(PG_FUNCTION_ARGS)
{
	PG_RETURN_OID(create_or_replace(fcinfo, false));
}

Datum
dynview_create_or_replace_dynamic_table(PG_FUNCTION_ARGS)
{
	PG_RETURN_OID(create_or_replace(fcinfo, true));
}

Datum
dynview_drop_dynamic_table(PG_FUNCTION_ARGS)
{
	char	   *name = text_arg(fcinfo, 0, "name");
	bool		if_exists = PG_ARGISNULL(1) ? false : PG_GETARG_BOOL(1);
	Oid			relid;

	SPI_connect();
	relid = dv_resolve_dynamic_table(name, if_exists, true);
	if (!OidIsValid(relid))
		ereport(NOTICE,
				(errmsg("dynamic table \"%s\" does not exist, skipping", name)));
	else
	{
		char	   *qualified = dv_relation_qualified_name(relid);

		/* the sql_drop event trigger does the bookkeeping */
		if (SPI_execute(psprintf("DROP TABLE %s", qualified), false, 0) != SPI_OK_UTILITY)
			elog(ERROR, "could not drop %s", qualified);
	}
	SPI_finish();
	PG_RETURN_VOID();
}

Datum
dynview_refresh(PG_FUNCTION_ARGS)
{
	char	   *name = text_arg(fcinfo, 0, "name");
	Datum		result;

	/* (it writes: the table, its state, the history) */
	PreventCommandIfReadOnly("dynview.refresh()");
	PreventCommandDuringRecovery("dynview.refresh()");
	SPI_connect();
	result = dv_refresh_pipeline(dv_resolve_dynamic_table(name, false, true), DV_TRIGGER_MANUAL);
	SPI_finish();
	PG_RETURN_DATUM(result);
}

/*
 * dv_alter_dynamic_table - new schedule and/or refresh mode (NULL keeps
 * one, both validated by the caller) of dynamic table relid, whose owner
 * the caller checked.  alter_dynamic_table() and ALTER MATERIALIZED VIEW
 * ... SET (dynview.*).  Needs SPI.
 */
void
dv_alter_dynamic_table(Oid relid, const char *schedule, const char *mode)
{
	/*
	 * (with RowExclusiveLock too, as a refresh: a transaction that alters
	 * and then refreshes the table holds both, so no one takes SHARE on it
	 * in between and then waits for the refresh lock: a deadlock)
	 */
	dv_lock_refresh_write(relid);
	dv_catalog_set_schedule(relid, schedule, mode);
	dv_shmem_wake_scheduler_at_commit();
	if (mode != NULL)
	{
		DvTable    *dt = dv_catalog_load(relid);
		DvAnalyzedQuery *aq = dv_analyze_query(dt->definition, relid);	/* qualified */
		const char *effective = resolve_mode(mode, aq);

		dv_catalog_set_effective_mode(relid, effective,
									  strcmp(effective, "FULL") == 0 ? aq->full_reason_code : NULL,
									  strcmp(effective, "FULL") == 0 ? aq->full_reason : NULL);
	}
}

Datum
dynview_alter_dynamic_table(PG_FUNCTION_ARGS)
{
	char	   *name = text_arg(fcinfo, 0, "name");
	char	   *schedule = PG_ARGISNULL(1) ? NULL : dv_validate_schedule(text_to_cstring(PG_GETARG_TEXT_PP(1)));
	char	   *mode = PG_ARGISNULL(2) ? NULL : dv_validate_refresh_mode(text_to_cstring(PG_GETARG_TEXT_PP(2)));
	Oid			relid = RangeVarGetRelid(makeRangeVarFromNameList(stringToQualifiedNameList(name)), NoLock, true);

	if (OidIsValid(relid) && dv_is_partitioned_dynamic_table(relid))
	{
		/* its schedule and mode, and those of every partition */
		if (schedule != NULL)
			schedule = dv_partition_schedule(schedule);
		if (!pg_class_ownercheck(relid, GetUserId()))
			aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_TABLE, get_rel_name(relid));
		SPI_connect();
		dv_partitioned_alter(relid, schedule, mode, NULL, false);
		SPI_finish();
		dv_shmem_wake_scheduler_at_commit();
		PG_RETURN_VOID();
	}
	SPI_connect();
	dv_alter_dynamic_table(dv_resolve_dynamic_table(name, false, true), schedule, mode);
	SPI_finish();
	PG_RETURN_VOID();
}

Datum
dynview_suspend(PG_FUNCTION_ARGS)
{
	char	   *name = text_arg(fcinfo, 0, "name");

	SPI_connect();
	dv_catalog_set_state(dv_resolve_dynamic_table(name, false, true), "SUSPENDED", "USER_SUSPENDED");
	SPI_finish();
	PG_RETURN_VOID();
}

Datum
dynview_resume(PG_FUNCTION_ARGS)
{
	char	   *name = text_arg(fcinfo, 0, "name");

	SPI_connect();
	dv_catalog_set_state(dv_resolve_dynamic_table(name, false, true), "ACTIVE", NULL);
	dv_shmem_wake_scheduler_at_commit();
	SPI_finish();
	PG_RETURN_VOID();
}

Datum
dynview_verify(PG_FUNCTION_ARGS)
{
	char	   *name = text_arg(fcinfo, 0, "name");
	Oid			relid;
	bool		ok;
	bool		unknown;

	SPI_connect();
	relid = dv_resolve_dynamic_table(name, false, false);
	if (pg_class_aclcheck(relid, GetUserId(), ACL_SELECT) != ACLCHECK_OK)
		aclcheck_error(ACLCHECK_NO_PRIV, OBJECT_TABLE, name);
	ok = dv_verify(relid, &unknown);
	SPI_finish();
	if (unknown)
		PG_RETURN_NULL();
	PG_RETURN_BOOL(ok);
}

/*
 * explain_rows - the rows of dynview.explain(): what AUTO resolves to, why,
 * the sources, the key, and the delta statement.
 */
static void
explain_rows(FunctionCallInfo fcinfo, const char *query_text, Oid self_relid)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	DvAnalyzedQuery *aq;
	DvPlan	   *plan;
	StringInfoData sources;
	ListCell   *lc;
	Datum		values[2];
	bool		nulls[2] = {false, false};

	InitMaterializedSRF(fcinfo, 0);
	SPI_connect();
	aq = dv_analyze_query(query_text, self_relid);
	plan = dv_plan_query(aq->query);
	/* (a dynamic table's operators that keep a state, as its refreshes number them) */
	if (OidIsValid(self_relid))
		dv_optree_assign_states(plan, self_relid);
	dv_optree_use_state(false);	/* (the statements shown read no state) */

	initStringInfo(&sources);
	foreach(lc, aq->sources)
	{
		DvSource   *src = lfirst(lc);

		appendStringInfo(&sources, "%s%s (%s)", foreach_current_index(lc) ? ", " : "",
						 quote_qualified_identifier(src->schema_name, src->table_name),
						 dv_is_dynamic_table(src->relid) ? "dynamic table" : "table");
	}

#define EXPLAIN_ROW(k, v) \
	do { \
		values[0] = CStringGetTextDatum(k); \
		nulls[1] = (v) == NULL; \
		values[1] = (v) ? CStringGetTextDatum(v) : (Datum) 0; \
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls); \
	} while (0)

	EXPLAIN_ROW("mode", aq->full_reason_code ? "FULL" : "INCREMENTAL");
	EXPLAIN_ROW("reason_code", aq->full_reason_code);
	EXPLAIN_ROW("reason", aq->full_reason);
	EXPLAIN_ROW("operator", plan->kind == DV_PLAN_SPJ && plan->branches != NIL ?
				"UNION ALL of branches (also GROUPING SETS, ROLLUP, CUBE: a branch per grouping set), each maintained by its own operator tree" :
				plan->kind == DV_PLAN_SPJ ? "operator tree without grouping at its top (delta rule of each operator)" :
				plan->kind == DV_PLAN_TOPN ? "ORDER BY ... LIMIT (recomputed only when a change reaches the rows it holds)" :
				plan->kind == DV_PLAN_WINDOW && plan->window_order != NIL ?
				"window without PARTITION BY (the rows from the first changed row in the window's order recomputed)" :
				plan->kind == DV_PLAN_WINDOW ? "window with PARTITION BY over grouped rows (affected partitions recomputed)" :
				plan->agg_state && plan->key_columns == NIL ? "global aggregate (state kept in place)" :
				plan->agg_state ? "GROUP BY/DISTINCT (aggregate state kept in place per group)" :
				plan->kind == DV_PLAN_GROUPED && plan->keys_unique ? "GROUP BY/DISTINCT (affected groups recomputed)" :
				plan->kind == DV_PLAN_GROUPED ? "window with PARTITION BY (affected partitions recomputed)" :
				"full recompute");
	EXPLAIN_ROW("sources", sources.data);
	EXPLAIN_ROW("operator tree", dv_plan_tree_text(plan));
	if (plan->kind == DV_PLAN_GROUPED || (plan->kind == DV_PLAN_WINDOW && plan->key_columns != NIL))
	{
		StringInfoData keys;

		initStringInfo(&keys);
		foreach(lc, plan->key_columns)
			appendStringInfo(&keys, "%s%s", foreach_current_index(lc) ? ", " : "",
							 quote_identifier(lfirst(lc)));
		EXPLAIN_ROW("key", keys.data);
	}
	else if (plan->kind == DV_PLAN_SPJ && plan->spj_key != NIL)
	{
		StringInfoData keys;

		initStringInfo(&keys);
		foreach(lc, plan->spj_key)
			appendStringInfo(&keys, "%s%s", foreach_current_index(lc) ? ", " : "",
							 quote_identifier(lfirst(lc)));
		appendStringInfoString(&keys, " (derived from the sources' unique keys through the joins; unique index)");
		EXPLAIN_ROW("key", keys.data);
	}
	else if (plan->kind == DV_PLAN_SPJ)
		EXPLAIN_ROW("key", "(none: rows are matched as a multiset, found through the first column)");
	if (plan->agg_state)
	{
		StringInfoData rules;

		initStringInfo(&rules);
		foreach(lc, plan->aggs)
		{
			DvAgg	   *agg = lfirst(lc);
			static const char *const rule[] = {
				[DV_AGG_COUNT_STAR] = "count added in place",
				[DV_AGG_COUNT] = "non-null count added in place",
				[DV_AGG_SUM] = "sum and non-null count added in place",
				[DV_AGG_AVG] = "sum and non-null count added in place, divided",
				[DV_AGG_MIN] = "least of inserted values; group recomputed when its minimum is removed",
				[DV_AGG_MAX] = "greatest of inserted values; group recomputed when its maximum is removed",
				[DV_AGG_COUNT_DISTINCT] = "multiplicity per value in a state table, a row per group or per group and value (dynview.distinct_values_per_row); counted at 0 -> n, uncounted at n -> 0",
				[DV_AGG_BOOL_AND] = "counts of non-null and true inputs added in place; true when they are equal",
				[DV_AGG_BOOL_OR] = "counts of non-null and true inputs added in place; true when some input is true",
				[DV_AGG_VAR_SAMP] = "non-null count, sum and sum of squares added in place; computed from them as numeric does",
				[DV_AGG_VAR_POP] = "non-null count, sum and sum of squares added in place; computed from them as numeric does",
				[DV_AGG_STDDEV_SAMP] = "non-null count, sum and sum of squares added in place; computed from them as numeric does",
				[DV_AGG_STDDEV_POP] = "non-null count, sum and sum of squares added in place; computed from them as numeric does",
			};

			static const char *const call[] = {
				[DV_AGG_COUNT_STAR] = "count(*)",
				[DV_AGG_COUNT] = "count(x%d)",
				[DV_AGG_SUM] = "sum(x%d)",
				[DV_AGG_AVG] = "avg(x%d)",
				[DV_AGG_MIN] = "min(x%d)",
				[DV_AGG_MAX] = "max(x%d)",
				[DV_AGG_COUNT_DISTINCT] = "count(DISTINCT x%d)",
				[DV_AGG_BOOL_AND] = "bool_and(x%d)",
				[DV_AGG_BOOL_OR] = "bool_or(x%d)",
				[DV_AGG_VAR_SAMP] = "var_samp(x%d)",
				[DV_AGG_VAR_POP] = "var_pop(x%d)",
				[DV_AGG_STDDEV_SAMP] = "stddev_samp(x%d)",
				[DV_AGG_STDDEV_POP] = "stddev_pop(x%d)",
			};
			int			j = foreach_current_index(lc) + 1;

			appendStringInfo(&rules, "%sa%d = ", j > 1 ? "; " : "", j);
			appendStringInfo(&rules, call[agg->kind], j);
			if (agg->distinct_by_key)
				appendStringInfo(&rules, " (written count(DISTINCT x%d): x%d is a unique key of the input, so no two rows share a value)", j, j);
			appendStringInfo(&rules, ": %s", rule[agg->kind]);
			if (agg->scale_tracked)
				appendStringInfoString(&rules, ", live inputs counted per display scale (the sums kept at the scale numeric gives them; a group with NaN or infinity changed is recomputed)");
			if (((Aggref *) agg->aggref)->aggfilter != NULL)
				appendStringInfo(&rules, " (its FILTER is part of the input: x%d is NULL where the filter is not true)", j);
			if (agg->fill_arg > 0 && agg->fill_arg != j)
				appendStringInfo(&rules, "; built from x%d, the same input, sharing its aggregate calls", agg->fill_arg);
			if (agg->arg_computed && agg->fill_arg == j &&
				agg->kind != DV_AGG_COUNT && agg->kind != DV_AGG_COUNT_DISTINCT)
				appendStringInfo(&rules, "; x%d is an expression, computed once per row below the aggregation of a serial build", j);
			if (agg->arg_notnull && agg->kind != DV_AGG_COUNT_STAR && agg->kind != DV_AGG_COUNT &&
				agg->kind != DV_AGG_COUNT_DISTINCT)
				appendStringInfo(&rules, "; x%d is a NOT NULL column: its non-null count built as count(*)", j);
			else if (agg->count_shares_sum)
				appendStringInfo(&rules, "; its non-null count built with dynview._nonnull_count(x%d), sharing the sum's transition state", agg->fill_arg > 0 ? agg->fill_arg : j);
		}
		EXPLAIN_ROW("aggregates", rules.data);
	}
	else if (plan->kind == DV_PLAN_GROUPED && plan->state_reason)
		EXPLAIN_ROW("aggregates", psprintf("affected groups recomputed from the sources, not kept in place: %s",
										   plan->state_reason));
	EXPLAIN_ROW("definition", aq->definition);
	if (plan->kind != DV_PLAN_FULL)
		EXPLAIN_ROW("delta", dv_delta_sql(plan));
	SPI_finish();
}

PG_FUNCTION_INFO_V1(dynview_explain);
PG_FUNCTION_INFO_V1(dynview_explain_dynamic_table);

Datum
dynview_explain(PG_FUNCTION_ARGS)
{
	explain_rows(fcinfo, text_arg(fcinfo, 0, "query"), InvalidOid);
	return (Datum) 0;
}

Datum
dynview_explain_dynamic_table(PG_FUNCTION_ARGS)
{
	char	   *name = text_arg(fcinfo, 0, "name");
	Oid			relid;
	char	   *query;

	SPI_connect();
	relid = dv_resolve_dynamic_table(name, false, false);
	/* the stored definition: schema-qualified, whatever the caller's search_path */
	query = MemoryContextStrdup(TopTransactionContext, dv_catalog_load(relid)->definition);
	SPI_finish();
	explain_rows(fcinfo, query, relid);
	return (Datum) 0;
}
