/*-------------------------------------------------------------------------
 *
 * refresh.c
 *	  Refresh of one dynamic table, and of a pipeline (a dynamic table with
 *	  its upstream dynamic tables, in topological order, in one transaction
 *	  at one data snapshot).
 *
 * Invariants:
 *	- A dynamic table's contents equal its query evaluated at its data
 *	  snapshot S (design section 5).  A refresh reads every source with the
 *	  one snapshot it stores as the new data snapshot.
 *	- Readers are never blocked: new contents are written with DELETE and
 *	  INSERT in the refresh's transaction (no TRUNCATE, no
 *	  AccessExclusiveLock), so readers see the old contents until it commits.
 *	- Two refreshes of one table serialise on its refresh lock
 *	  (dv_lock_refresh: an object lock, which readers, VACUUM and
 *	  autovacuum do not conflict with); so does COPY FROM into it.  A
 *	  pipeline takes the refresh locks of all its tables, in OID order, and
 *	  their RowExclusiveLock for the writes (dv_lock_refresh_write), before
 *	  it takes its snapshot, so a refresh never starts from contents that
 *	  another refresh replaced after its snapshot.
 *	- No lock is taken on sources beyond the AccessShareLock of reading them.
 *	- The query and the writes run as the dynamic table's owner, with
 *	  search_path = "pg_catalog, pg_temp", inside a security-restricted
 *	  operation (as REFRESH MATERIALIZED VIEW does).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#ifdef __GLIBC__
#include <malloc.h>
#include <sys/mman.h>
#endif

#include "access/relation.h"
#include "access/transam.h"
#include "access/xact.h"
#include "utils/resowner.h"
#include "access/xlog.h"
#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "executor/tuptable.h"
#include "access/tableam.h"
#include "catalog/namespace.h"
#include "catalog/indexing.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_class.h"
#include "catalog/partition.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_index.h"
#include "catalog/pg_statistic.h"
#include "catalog/pg_subscription_rel.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "nodes/nodeFuncs.h"
#include "rewrite/rewriteHandler.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "optimizer/cost.h"
#include "optimizer/paths.h"
#include "storage/bufmgr.h"
#include "utils/typcache.h"
#include "catalog/dependency.h"
#include "catalog/toasting.h"
#include "commands/matview.h"
#include "commands/tablecmds.h"
#include "executor/executor.h"
#include "nodes/makefuncs.h"
#include "tcop/tcopprot.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/rls.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"
#include "optimizer/optimizer.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

#include "dynview.h"
#include "cdc/cdc.h"
#include "analyze/delta.h"

static void sync_buffers(List *sources);

/*
 * dv_run_as_owner - switch to the dynamic table's owner, in a
 * security-restricted operation, with the fixed search_path.  Undo with
 * dv_restore_user (error exits are undone by transaction abort).
 */
void
dv_run_as_owner(Oid owner, int *save_nestlevel, Oid *save_userid, int *save_sec)
{
	GetUserIdAndSecContext(save_userid, save_sec);
	SetUserIdAndSecContext(owner, *save_sec | SECURITY_LOCAL_USERID_CHANGE |
						   SECURITY_RESTRICTED_OPERATION);
	*save_nestlevel = NewGUCNestLevel();
	(void) set_config_option("search_path", DV_SAFE_SEARCH_PATH,
							 PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
	dv_set_output_styles();
}

/*
 * dv_set_output_styles - the float digits and the date, interval and bytea
 * output styles that refreshes and deparsed definitions use
 * (GUC_ACTION_SAVE: the caller's GUC nest level undoes them).  Deparsed
 * constants are read back with them.
 */
void
dv_set_output_styles(void)
{
	/*
	 * Values compared or passed as text must round-trip exactly, and two
	 * different values must never print alike, whatever the session says:
	 * all digits of floats (a float constant deparsed under
	 * extra_float_digits = 0 lost its last digits: '1.0000000000000002'
	 * became '1'), ISO dates (a numeric UTC offset: 01:30 of a repeated DST
	 * hour prints twice alike in the SQL style), hex bytea.  String
	 * constants are deparsed for, and read back with, standard conforming
	 * strings (under the session's "off", a backslash was written doubled,
	 * which every other session reads as two), and an array constant's NULL
	 * element is read as a null, not as the string 'NULL' (array_nulls).
	 */
	static const char *const settings[][2] = {
		{"extra_float_digits", "3"},
		{"standard_conforming_strings", "on"},
		{"array_nulls", "on"},
		{"DateStyle", "ISO, YMD"},
		{"IntervalStyle", "postgres"},
		{"bytea_output", "hex"},
	};

	for (int i = 0; i < lengthof(settings); i++)
		(void) set_config_option(settings[i][0], settings[i][1],
								 PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
}

void
dv_restore_user(int save_nestlevel, Oid save_userid, int save_sec)
{
	AtEOXact_GUC(false, save_nestlevel);
	SetUserIdAndSecContext(save_userid, save_sec);
}

/*
 * dv_full_refresh_sql - the two statements of a FULL refresh, run in this order
 * at the same snapshot: delete the rows of the table that the query's
 * result does not have, then insert the result's rows that the table does
 * not have.  Rows are matched as a multiset by their text form (the form
 * verify() compares; ROW(alias.*), which a column of that name cannot shadow), so unchanged rows are not rewritten, counts are
 * honest, every column type works, and a unique index on the table never
 * sees a row twice (deletes come first).  restrict_q / restrict_t (on
 * aliases dv_q and dv_t), when given, limit both sides alike to some rows
 * (the affected groups of an incremental refresh).  query is the result's
 * SQL (NULL: the table's definition).
 */
void
dv_full_refresh_sql(DvTable *dt, const char *query, const char *restrict_q, const char *restrict_t,
					char **delete_sql, char **insert_sql, bool returning)
{
	char	   *target = quote_qualified_identifier(dt->schema_name, dt->table_name);
	char	   *where_q = restrict_q ? psprintf(" WHERE %s", restrict_q) : "";
	char	   *where_t = restrict_t ? psprintf(" WHERE %s", restrict_t) : "";

	*delete_sql = psprintf("WITH dv_new AS MATERIALIZED ("
						   "  SELECT ROW(dv_q.*)::text AS dv_key,"
						   "         pg_catalog.row_number() OVER (PARTITION BY ROW(dv_q.*)::text) AS dv_n"
						   "  FROM (%s) dv_q%s), "
						   "dv_old AS MATERIALIZED ("
						   "  SELECT dv_t.ctid AS dv_ctid, ROW(dv_t.*)::text AS dv_key,"
						   "         pg_catalog.row_number() OVER (PARTITION BY ROW(dv_t.*)::text) AS dv_n"
						   "  FROM %s dv_t%s) "
						   "DELETE FROM %s dv_t USING dv_old o"
						   "  WHERE dv_t.ctid = o.dv_ctid AND NOT EXISTS ("
						   "    SELECT 1 FROM dv_new n WHERE n.dv_key = o.dv_key AND n.dv_n = o.dv_n)%s",
						   query ? query : dt->definition, where_q, target, where_t, target,
						   returning ? " RETURNING dv_t.*" : "");
	*insert_sql = psprintf("WITH dv_new AS MATERIALIZED ("
						   "  SELECT ROW(dv_q.*)::%s AS dv_row, ROW(dv_q.*)::text AS dv_key,"
						   "         pg_catalog.row_number() OVER (PARTITION BY ROW(dv_q.*)::text) AS dv_n"
						   "  FROM (%s) dv_q%s), "
						   "dv_old AS MATERIALIZED ("
						   "  SELECT ROW(dv_t.*)::text AS dv_key,"
						   "         pg_catalog.row_number() OVER (PARTITION BY ROW(dv_t.*)::text) AS dv_n"
						   "  FROM %s dv_t%s) "
						   "INSERT INTO %s SELECT (n.dv_row).* FROM dv_new n WHERE NOT EXISTS ("
						   "    SELECT 1 FROM dv_old o WHERE o.dv_key = n.dv_key AND o.dv_n = n.dv_n)%s",
						   target, query ? query : dt->definition, where_q, target, where_t, target,
						   returning ? " RETURNING *" : "");
}

/* the hint of an index entry too long for a key in a refresh (dv_key_too_long) */
#define KEY_TOO_LONG_HINT \
	"A key of the dynamic table (a group key, a DISTINCT column, or the column its rows are found by) " \
	"took a value longer than dynview's B-tree index can hold (about 2.7 kB). " \
	"Remove the row, or give the table a definition whose key is short (for instance, group by md5() " \
	"of the long value) with dynview.create_or_replace_dynamic_table(). " \
	"The table keeps its last good data meanwhile."

/*
 * dv_rethrow_refresh_error - rethrow an error of the generated refresh
 * statement sql under the given context line, without the statement itself
 * (it is dynview's, not the user's) but with the context of a trigger or
 * function it ran; an error of the statement itself that says the
 * definition no longer fits its sources gets a hint on what to do.  sql
 * NULL: the statement ran in the executor directly (dv_exec_fill), so what
 * the context says is all inside it.
 */
void
dv_rethrow_refresh_error(ErrorData *edata, const char *sql, const char *context)
{
	char	   *inner = NULL;
	bool		in_user_code;

	/*
	 * What the context says inside the generated statement (a trigger or a
	 * function it ran, with its line) stays: it is the user's code.  The
	 * generated statement itself, and what called the refresh, make way for
	 * one line naming the table.
	 */
	if (edata->context && sql)
	{
		char	   *at = strstr(edata->context, psprintf("SQL statement \"%s\"", sql));

		if (at != NULL && at > edata->context)
		{
			inner = pnstrdup(edata->context, at - edata->context);
			while (*inner && inner[strlen(inner) - 1] == '\n')
				inner[strlen(inner) - 1] = '\0';
			if (*inner == '\0')
				inner = NULL;
		}
	}
	else if (edata->context && sql == NULL && edata->context[0] != '\0')
	{
		/* the statement ran in the executor directly: all its context is inside it */
		inner = pstrdup(edata->context);
		while (*inner && inner[strlen(inner) - 1] == '\n')
			inner[strlen(inner) - 1] = '\0';
		if (*inner == '\0')
			inner = NULL;
	}
	in_user_code = inner != NULL;
	edata->context = in_user_code ? psprintf("%s\n%s", inner, context) : pstrdup(context);
	edata->internalquery = NULL;
	edata->internalpos = 0;
	edata->cursorpos = 0;
	if (edata->hint == NULL && !in_user_code &&
		(edata->sqlerrcode == ERRCODE_UNDEFINED_COLUMN || edata->sqlerrcode == ERRCODE_UNDEFINED_TABLE ||
		 edata->sqlerrcode == ERRCODE_UNDEFINED_FUNCTION || edata->sqlerrcode == ERRCODE_DATATYPE_MISMATCH))
		edata->hint = pstrdup("A source of the dynamic table was altered so that its definition no longer fits; "
							  "restore the source, or give the table a new definition with dynview.create_or_replace_dynamic_table(). "
							  "The table keeps its last good data meanwhile.");
	if (!in_user_code && dv_key_too_long(edata))
		edata->hint = pstrdup(KEY_TOO_LONG_HINT);
	ReThrowError(edata);
}

/*
 * dv_key_too_long - is edata the error of a key value too long for a B-tree
 * entry (about 2.7 kB) or for an index entry at all?  In one of dynview's own
 * indexes (the table's apply index, its aggregate state, its count(DISTINCT)
 * multiplicities) PostgreSQL's hint (an index on a hash of the value) is not
 * the user's to follow: the callers give one of their own.  Recognised by
 * the untranslated message of the two errors that refuse such an entry.
 */
bool
dv_key_too_long(const ErrorData *edata)
{
	return edata->sqlerrcode == ERRCODE_PROGRAM_LIMIT_EXCEEDED && edata->message_id &&
		(strcmp(edata->message_id, "index row size %zu exceeds btree version %u maximum %zu for index \"%s\"") == 0 ||
		 strcmp(edata->message_id, "index row requires %zu bytes, maximum size is %zu") == 0);
}

/*
 * build_state_and_index - after a FULL refresh's rows: the apply index that
 * follows the keys (apply_index_pending) and the aggregate state (unless
 * state_built), at snapshot.  Their statements are dynview's: an index entry
 * too long for a key (dv_key_too_long) gets the refresh's hint instead of
 * PostgreSQL's, as it does in the refresh's own statements.
 */
static void
build_state_and_index(DvTable *dt, Snapshot snapshot, bool apply_index_pending, bool state_built)
{
	MemoryContext oldcontext = CurrentMemoryContext;

	PG_TRY();
	{
		if (apply_index_pending)
			(void) dv_catalog_sync_apply_index(dt, true);
		/* aggregate state at the same snapshot, for the next incremental refresh */
		if (!state_built)
			dv_agg_state_rebuild(dt, snapshot);
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(oldcontext);
		edata = CopyErrorData();
		FlushErrorState();
		if (dv_key_too_long(edata))
			edata->hint = pstrdup(KEY_TOO_LONG_HINT);
		ReThrowError(edata);
	}
	PG_END_TRY();
}

/*
 * run_write - run one refresh statement at the snapshot as a dynview write;
 * an error names the dynamic table instead of showing the statement.
 * Returns the rows processed.
 */
static uint64
run_write(DvTable *dt, const char *sql, Snapshot snapshot, int expected_rc)
{
	int			rc;
	uint64		processed = dv_exec_statement(sql, snapshot, false, "refresh",
											  psprintf("%s.%s", dt->schema_name, dt->table_name), &rc);

	if (rc != expected_rc)
		elog(ERROR, "refresh statement of \"%s\" failed: %s", dt->table_name, SPI_result_code_string(rc));
	return processed;
}

/* does the table hold no row at the snapshot? */
static bool
table_is_empty(DvTable *dt, Snapshot snapshot)
{
	SPIPlanPtr	plan = SPI_prepare(psprintf("SELECT 1 FROM %s LIMIT 1",
										   quote_qualified_identifier(dt->schema_name, dt->table_name)),
								  0, NULL);

	if (plan == NULL || SPI_execute_snapshot(plan, NULL, NULL, snapshot, InvalidSnapshot, true, false, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read dynamic table \"%s\"", dt->table_name);
	SPI_freeplan(plan);
	return SPI_processed == 0;
}

/*
 * rows_are_distinct - does a unique index of the dynamic table guarantee
 * that no two of its rows are alike: an immediate or deferred unique index
 * without predicate or expressions whose key columns are NOT NULL or
 * NULLS NOT DISTINCT (the derived key's index is of that kind).  Then a
 * FULL refresh need not number the table's copies of a row.  *key gets the
 * index's columns (attribute numbers) when each has an equality operator a
 * hash or merge join can use (then rows are matched by key, full_refresh_apply),
 * else NIL.
 */
static bool
rows_are_distinct(Oid relid, List **key)
{
	Relation	rel = table_open(relid, AccessShareLock);
	List	   *indexes = dv_index_tuples(rel);
	bool		distinct = false;
	ListCell   *lc;

	*key = NIL;
	foreach(lc, indexes)
	{
		HeapTuple	tup = lfirst(lc);
		Form_pg_index index = (Form_pg_index) GETSTRUCT(tup);
		bool		ok;
		bool		joinable = true;
		List	   *cols = NIL;

		ok = index->indisunique && heap_attisnull(tup, Anum_pg_index_indexprs, NULL);
		for (int k = 0; ok && k < index->indnkeyatts; k++)
		{
			AttrNumber	att = index->indkey.values[k];
			TypeCacheEntry *tc;

			ok = att > 0 && (index->indnullsnotdistinct ||
							 TupleDescAttr(RelationGetDescr(rel), att - 1)->attnotnull);
			if (!ok)
				break;
			tc = lookup_type_cache(TupleDescAttr(RelationGetDescr(rel), att - 1)->atttypid,
								   TYPECACHE_EQ_OPR | TYPECACHE_HASH_PROC);
			joinable = joinable && OidIsValid(tc->eq_opr) && OidIsValid(tc->hash_proc);
			cols = lappend_int(cols, att);
		}
		if (ok)
		{
			distinct = true;
			if (joinable)
			{
				*key = cols;
				break;
			}
		}
	}
	list_free_deep(indexes);
	table_close(rel, AccessShareLock);
	return distinct;
}

/*
 * key_column_plain - may a FULL refresh join the table's rows on key column
 * att (of rel) itself rather than on the key as one record: the column is
 * NOT NULL, or its statistics (ANALYZE, autovacuum's included) say at most
 * 1% of its values are NULL.  A plain column = takes no NULL as equal to a
 * NULL, so a row with a NULL key column meets no row of the other side: the
 * table's is deleted and the result's inserted, an unchanged row rewritten,
 * exact all the same (the deletes are read first, so the unique index never
 * sees the row twice; two such rows of the result violate it).  The record's
 * =, NULL-safe, costs far more: the keyed difference of 900k rows spent 1.7x
 * the CPU on it (bench/README.md, thirteenth session, branch s13-full).  No
 * statistics: the record, so that a table whose key is often NULL (a FULL
 * JOIN's) is not rewritten in part by every refresh.
 */
static bool
key_column_plain(Relation rel, AttrNumber att)
{
	HeapTuple	tup;
	bool		plain;

	if (TupleDescAttr(RelationGetDescr(rel), att - 1)->attnotnull)
		return true;
	tup = SearchSysCache3(STATRELATTINH, ObjectIdGetDatum(RelationGetRelid(rel)),
						  Int16GetDatum(att), BoolGetDatum(false));
	if (!HeapTupleIsValid(tup))
		return false;
	plain = ((Form_pg_statistic) GETSTRUCT(tup))->stanullfrac <= 0.01;
	ReleaseSysCache(tup);
	return plain;
}

/*
 * can_fill - may the first build write the dynamic table as CREATE
 * MATERIALIZED VIEW writes a view (dv_exec_fill: frozen rows that no index,
 * trigger, rule or constraint sees): a plain table this transaction created
 * (were the transaction to abort, the table goes with its rows) that has
 * no index, trigger, rule, CHECK or NOT NULL constraint, row-level
 * security or column of a domain type.
 */
static bool
can_fill(DvTable *dt)
{
	Relation	rel = table_open(dt->relid, AccessShareLock);
	TupleDesc	desc = RelationGetDescr(rel);
	List	   *indexes = RelationGetIndexList(rel);
	bool		ok = rel->rd_rel->relkind == RELKIND_RELATION &&
		rel->rd_createSubid != InvalidSubTransactionId &&
		indexes == NIL && !rel->rd_rel->relhastriggers && !rel->rd_rel->relhasrules &&
		rel->rd_rel->relchecks == 0 && !rel->rd_rel->relrowsecurity;

	for (int i = 0; ok && i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		ok = att->attisdropped || (!att->attnotnull && get_typtype(att->atttypid) != TYPTYPE_DOMAIN);
	}
	list_free(indexes);
	table_close(rel, AccessShareLock);
	return ok;
}

/*
 * full_refresh_in_parallel - is the query of a FULL refresh worth a
 * parallel plan: parallel workers may be used and a source is at least
 * min_parallel_table_scan_size (the size from which the planner considers a
 * parallel scan; a partitioned or inheritance source counts as large).  Then
 * full_refresh_apply computes the difference with CREATE TABLE AS, which
 * PostgreSQL plans in parallel (a statement that writes the table, or has a
 * data-modifying WITH, never is).
 */
static bool
full_refresh_in_parallel(DvTable *dt)
{
	ListCell   *lc;

	if (max_parallel_workers_per_gather <= 0 || max_parallel_workers <= 0 ||
		InSecurityRestrictedOperation() || RecoveryInProgress() ||
		pg_database_aclcheck(MyDatabaseId, dt->owner, ACL_CREATE_TEMP) != ACLCHECK_OK)
		return false;
	foreach(lc, dt->sources)
	{
		Oid			relid = ((DvSource *) lfirst(lc))->relid;
		Relation	rel = try_relation_open(relid, AccessShareLock);
		bool		large;

		if (rel == NULL)
			continue;
		large = rel->rd_rel->relkind == RELKIND_PARTITIONED_TABLE || rel->rd_rel->relhassubclass ||
			(RELKIND_HAS_STORAGE(rel->rd_rel->relkind) &&
			 RelationGetNumberOfBlocks(rel) >= (BlockNumber) min_parallel_table_scan_size);
		relation_close(rel, AccessShareLock);
		if (large)
			return true;
	}
	return false;
}

/*
 * writes_are_own - can the refresh's write statements run no user code that
 * writes: the dynamic table runs none when written (dv_relid_runs_user_code:
 * no trigger, foreign keys included, rule, CHECK constraint, row-level
 * security, default, column of a type whose values run code that is not
 * built in, dv_type_runs_user_code: a domain, an array of one, a type
 * whose default operator class is a superuser's, ..., nor an index whose
 * expressions, predicate or comparisons call such code), and its query
 * calls none either (dv_calls_user_code: a function declared IMMUTABLE may
 * still write, through a volatile one it calls) nor computes a value of
 * such a type nor groups or sorts with such an operator
 * (dv_values_run_user_code: forming a value that holds a domain runs its
 * CHECK constraints, and the state kept of it has its type), and no state
 * table of it runs user code when written (dv_agg_state_runs_user_code,
 * the same test of each state table: the guard refuses all of it there,
 * but an older build let a superuser make some).  Then what they write is
 * dynview's own and is not decoded (dv_refresh_mark_own_writes); a write
 * of user code under that mark would never be captured, and the dynamic
 * tables over the table it wrote would miss it for good (regress
 * brk14_own_writes, brk15_domain_state, brk16_domain_values,
 * brk17_user_opclass).  Call as the table's owner.  Asked once per plan
 * cache entry (dv_plan_cache_own_writes, kept with the cached plan and
 * dropped with it), not at every refresh.
 */
static bool
writes_are_own(DvTable *dt)
{
	Node	   *query;

	if (dv_relid_runs_user_code(dt->relid))
		return false;
	query = (Node *) dv_plan_cache_query(dt);
	return !contain_volatile_functions(query) && !dv_calls_user_code(query) &&
		!dv_values_run_user_code(query) && !dv_agg_state_runs_user_code(dt->relid);
}

/*
 * dv_refuse_row_security_off - with row_security off, fail (42501, with a
 * hint) when row-level security policies of a source apply to the dynamic
 * table's owner: the table holds the rows they let the owner read, and
 * PostgreSQL would fail the read anyway, with a message that names the
 * source only and, for a role that does not own it, no hint (row_security =
 * off asks for an error instead of filtered rows).  action names what fails
 * ("refresh", "verify").  Any user may call it (the owner is asked for by
 * OID); reads the relation cache of each source, no lock.  A table read
 * behind a view is read as the view's owner: a policy that applies to that
 * role only still fails with PostgreSQL's error.
 */
void
dv_refuse_row_security_off(DvTable *dt, const char *action)
{
	ListCell   *lc;

	if (row_security)
		return;
	foreach(lc, dt->sources)
	{
		DvSource   *src = lfirst(lc);

		if (check_enable_rls(src->relid, dt->owner, true) == RLS_ENABLED)
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("cannot %s dynamic table \"%s.%s\" with row_security off",
							action, dt->schema_name, dt->table_name),
					 errdetail("Row-level security policies of its source %s apply to the table's owner %s: the table holds the rows they let the owner read, and row_security = off makes every such read fail instead.",
							   quote_qualified_identifier(src->schema_name, src->table_name),
							   quote_identifier(GetUserNameFromId(dt->owner, false))),
					 errhint("Run it with row_security on (SET row_security = on; a setting of the role or the database applies to scheduled refreshes too), or exempt the owner from the policies (BYPASSRLS).")));
	}
}

/*
 * check_owner_may_read - dv_check_definition_permissions of dt's query, as
 * its owner: PostgreSQL's error (42501 "permission denied for table ...")
 * gets a hint saying whose right is missing and what to do.
 */
static void
check_owner_may_read(DvTable *dt)
{
	MemoryContext context = CurrentMemoryContext;
	Query	   *query = dv_plan_cache_query(dt);

	PG_TRY();
	{
		dv_check_definition_permissions(query);
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(context);
		edata = CopyErrorData();
		FlushErrorState();
		if (edata->sqlerrcode == ERRCODE_INSUFFICIENT_PRIVILEGE && edata->hint == NULL)
			edata->hint = psprintf("A refresh reads the sources as the table's owner %s: grant it the right (GRANT SELECT), or give the table an owner that has it (ALTER TABLE ... OWNER TO). The table keeps its data meanwhile.",
								   quote_identifier(GetUserNameFromId(dt->owner, false)));
		ReThrowError(edata);
	}
	PG_END_TRY();
}

/*
 * dv_temp_table_name - a name base_<relid> for a temporary table a refresh
 * of relid makes and drops, free in this session's temporary schema: the
 * session may hold a temporary table of that name itself (made by its user,
 * or left by a refresh of the same table further up this transaction), or a
 * type of that name (a table's row type takes its name), and CREATE TABLE
 * would then fail with "already exists".  A taken name gets a
 * suffix _1, _2, ... until one is free.  The caller creates the table before
 * anything else may create one in this backend.
 */
char *
dv_temp_table_name(const char *base, Oid relid)
{
	Oid			nsp = LookupExplicitNamespace("pg_temp", true);
	char	   *name = psprintf("%s_%u", base, relid);

	/* (no temporary schema yet in this session: no temporary table either) */
	for (int n = 1; OidIsValid(nsp) &&
		 (OidIsValid(get_relname_relid(name, nsp)) ||
		  SearchSysCacheExists2(TYPENAMENSP, CStringGetDatum(name), ObjectIdGetDatum(nsp))); n++)
		name = psprintf("%s_%u_%d", base, relid, n);
	return name;
}

/*
 * full_diff_create - the temporary table a parallel FULL refresh of dt
 * writes its difference to: (dv_ctid tid, dv_row <the table's row type>,
 * dv_in boolean: dv_row is to be inserted),
 * made with PostgreSQL's DefineRelation as the owner, outside the
 * security-restricted operation that later runs the query (as REFRESH
 * MATERIALIZED VIEW CONCURRENTLY makes its temporary table; a
 * security-restricted operation cannot create one).  No event trigger
 * sees it (no DDL statement runs).  Returns its OID.
 */
static Oid
full_diff_create(DvTable *dt)
{
	CreateStmt *stmt = makeNode(CreateStmt);
	Oid			save_userid;
	int			save_sec;
	ObjectAddress addr;

	stmt->relation = makeRangeVar("pg_temp", dv_temp_table_name("dv_full", dt->relid), -1);
	stmt->relation->relpersistence = RELPERSISTENCE_TEMP;
	stmt->tableElts = list_make3(makeColumnDef("dv_ctid", TIDOID, -1, InvalidOid),
								 makeColumnDef("dv_row", get_rel_type_id(dt->relid), -1, InvalidOid),
								 makeColumnDef("dv_in", BOOLOID, -1, InvalidOid));
	stmt->oncommit = ONCOMMIT_NOOP;
	stmt->if_not_exists = false;
	GetUserIdAndSecContext(&save_userid, &save_sec);
	SetUserIdAndSecContext(dt->owner, save_sec | SECURITY_LOCAL_USERID_CHANGE);
	addr = DefineRelation(stmt, RELKIND_RELATION, dt->owner, NULL, NULL);
	CommandCounterIncrement();
	NewRelationCreateToastTable(addr.objectId, (Datum) 0);
	CommandCounterIncrement();
	SetUserIdAndSecContext(save_userid, save_sec);
	return addr.objectId;
}

/*
 * The rows a keyed FULL refresh read from the table (0) and matched with a
 * row of the result (1), counted by dynview._full_refresh_count() as the
 * refresh's statement runs (in the leader: the function is parallel
 * restricted).
 */
static int64 full_counts[2];

PG_FUNCTION_INFO_V1(dynview_full_refresh_count);

/* dynview._full_refresh_count(slot) - count one row in slot 0 or 1; true */
Datum
dynview_full_refresh_count(PG_FUNCTION_ARGS)
{
	full_counts[PG_GETARG_INT32(0) == 0 ? 0 : 1]++;
	PG_RETURN_BOOL(true);
}

/*
 * The direct apply of recomputed rows holds both sides in memory: at most
 * this many rows each, within work_mem (a recompute of more, a window that
 * shifted whole, say, is left to full_refresh_apply's statement, whose join
 * spills to disk; the rows read first are then read again, at most this
 * many).
 */
#define DV_DIFF_MAX_ROWS 10000

static bool
diff_fits(SPITupleTable *tuptable, uint64 n)
{
	return tuptable != NULL && n <= DV_DIFF_MAX_ROWS &&
		MemoryContextMemAllocated(tuptable->tuptabcxt, true) <= (Size) work_mem * 1024;
}

/*
 * restricted_direct - full_refresh_apply's difference for an incremental
 * refresh's recompute of some rows (params: its restriction), where the
 * direct apply can write the table (apply.c, dv_apply_begin): two reading
 * statements, the table's rows that where_t keeps (with their ctids) and
 * the query's rows that where_q keeps (cast to the table's row type, as the
 * statement casts them), then matched, deleted and inserted in C
 * (dv_apply_diff: by key, attribute numbers, where one is given and a
 * unique index on it, else by text form) instead of the FULL JOIN, DELETE
 * and INSERT statement (issue 14: the dashboard's GMV and rank layers spent
 * ~1 and ~0.5 ms per refresh on that statement, for 50 rows).  Returns
 * false, having written nothing, where that statement must run: the
 * direct apply cannot write the table, a side has more rows than
 * DV_DIFF_MAX_ROWS or work_mem holds, or dv_apply_diff leaves the rows to
 * it (two rows with one key).
 */
static bool
restricted_direct(DvTable *dt, List *key, const char *query, const char *where_q,
				  const char *where_t, DvParams *params, Snapshot snapshot,
				  DvRefreshResult *res, int32 *seq)
{
	char	   *target = quote_qualified_identifier(dt->schema_name, dt->table_name);
	List	   *names = NIL;
	DvApply    *a;
	SPITupleTable *old;
	SPITupleTable *new = NULL;
	uint64		nold;
	uint64		nnew = 0;
	uint64		deleted;
	uint64		inserted;
	int			nestlevel;
	bool		done;
	ListCell   *lc;

	foreach(lc, key)
		names = lappend(names, get_attname(dt->relid, (AttrNumber) lfirst_int(lc), false));
	a = dv_apply_begin(dt, names);
	if (a == NULL)
		return false;
	if (key != NIL && !dv_apply_can_delete(a))
	{
		dv_apply_end(a);
		return false;
	}
	/* (no JIT, as for the statement it replaces: full_refresh_apply) */
	nestlevel = NewGUCNestLevel();
	(void) set_config_option("jit", "off", PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
	nold = dv_exec_at_params(psprintf("SELECT dv_t.ctid, dv_t.* FROM %s dv_t%s LIMIT %d",
									  target, where_t, DV_DIFF_MAX_ROWS + 1),
							 snapshot, false, params);
	old = SPI_tuptable;
	if (diff_fits(old, nold))
	{
		nnew = dv_exec_at_params(psprintf("SELECT (dv_r.dv_row).* FROM (SELECT ROW(dv_q.*)::%s AS dv_row"
										  " FROM (%s) dv_q%s OFFSET 0) dv_r LIMIT %d",
										  target, query, where_q, DV_DIFF_MAX_ROWS + 1),
								 snapshot, false, params);
		new = SPI_tuptable;
	}
	AtEOXact_GUC(true, nestlevel);
	if (!diff_fits(old, nold) || !diff_fits(new, nnew))
	{
		elog(DEBUG1, "dynview: dynamic table \"%s\": recomputed rows applied by a statement: more than %d rows or work_mem",
			 dt->table_name, DV_DIFF_MAX_ROWS);
		dv_apply_end(a);
		return false;
	}
	done = dv_apply_diff(a, key != NIL, old, nold, new, nnew, snapshot, seq, &deleted, &inserted);
	dv_apply_end(a);
	if (done)
	{
		res->rows_deleted = (int64) deleted;
		res->rows_inserted = (int64) inserted;
	}
	return done;
}

/*
 * full_refresh_apply - a FULL refresh in one pass: the query is evaluated
 * once, the table read once, and the difference applied (rows of the table
 * that the result does not have deleted, then the result's rows the table
 * does not have inserted); unchanged rows are not rewritten.
 *
 * The result's rows are cast to the table's row type first (as they would
 * be stored).  Where a unique index makes the table's rows distinct and its
 * columns can be joined on (rows_are_distinct), rows are joined by that
 * key alone (so that the join needs no sort or hash of whole rows, which
 * REFRESH MATERIALIZED VIEW CONCURRENTLY's join on key and row does) and a
 * joined pair is unchanged only when identical: the same binary image (the
 * *= operator), so 1.0 never stands for 1.00 (identical images print
 * alike; rows that differ in their images only are rewritten, which is
 * exact too); a pair that differs is a changed row, its old row deleted
 * and the new one inserted (dv_in).  Two rows of the result with one key
 * would both meet the table's row of that key: the rows read and the
 * unchanged pairs are counted (dynview._full_refresh_count) and such a
 * result fails the refresh (one unchanged pair too many), or violates the
 * index (a copy inserted).  Otherwise rows
 * are matched as a multiset by their text form (the form verify()
 * compares): copies of one row are numbered on each side and matched copy
 * by copy; where a unique index makes the table's rows distinct, only the
 * result's copies are numbered (a second copy there finds no match, is
 * inserted and violates the index, as it should).  Either way the
 * difference is one FULL JOIN whose unmatched rows alone are kept; the
 * table's rows that go are deleted by their ctids (a TID scan); readers are
 * not blocked (DELETE and INSERT, the refresh lock held by the caller).
 *
 * diffrel valid (full_refresh_in_parallel; full_diff_create made it): the
 * difference is first written to that temporary table by a plan that may
 * run the query with parallel workers (dv_exec_fill); a statement that
 * writes, as the apply does, never does.  It is dropped afterwards.  Else
 * the difference is a WITH query of the applying statement.
 *
 * The DELETE's rows are read before the INSERT runs (the UNION ALL reads
 * them first), so a row deleted and inserted again under the same key does
 * not meet itself in the unique index (had it run the other way round, the
 * index would raise an error, never keep a wrong row).
 *
 * When the table has its own change buffer (a downstream reads it), the
 * deleted and inserted rows are written there with weights -1 and +1.
 * Sets res->rows_deleted and rows_inserted.  Runs as the caller set up
 * (the owner, in dv_run_as_owner); needs SPI.
 */
static void
full_refresh_apply(DvTable *dt, const char *query, const char *restrict_q, const char *restrict_t,
				   DvParams *params, Snapshot snapshot, bool own_buffer, Oid diffrel,
				   DvRefreshResult *res, int32 *seq)
{
	char	   *target = quote_qualified_identifier(dt->schema_name, dt->table_name);
	char	   *where_q = restrict_q ? psprintf(" WHERE %s", restrict_q) : "";
	char	   *where_t = restrict_t ? psprintf(" WHERE %s", restrict_t) : "";
	List	   *key;
	bool		distinct = rows_are_distinct(dt->relid, &key);
	char	   *diff;
	char	   *diff_rel;
	char	   *temp_name = NULL;
	char	   *sql;
	int			rc;
	uint64		n;
	int			nestlevel;

	if (params != NULL && !OidIsValid(diffrel) &&
		restricted_direct(dt, key, query, where_q, where_t, params, snapshot, res, seq))
		return;
	if (key != NIL)
	{
		/*
		 * By key: a join on the key columns; a joined pair is unchanged
		 * only when identical (*=).  The result's side is cast to the
		 * table's row type and its key columns taken from that row.
		 */
		Relation	rel = table_open(dt->relid, AccessShareLock);
		StringInfoData ocols;
		StringInfoData ncols;
		StringInfoData cond;
		ListCell   *lc;

		bool		nullable = false;

		initStringInfo(&ocols);
		initStringInfo(&ncols);
		initStringInfo(&cond);
		foreach(lc, key)
			nullable = nullable || !key_column_plain(rel, lfirst_int(lc));
		/*
		 * A key column with many NULLs (NULLS NOT DISTINCT): the key is one
		 * record, whose = (hashable) takes two NULLs as equal, so a row with a
		 * NULL key matches too; else a column = per key column, which the
		 * planner hashes or sorts far more cheaply (key_column_plain).
		 */
		if (nullable)
		{
			appendStringInfoString(&ocols, ", ROW(");
			appendStringInfoString(&ncols, ", ROW(");
		}
		foreach(lc, key)
		{
			int			k = foreach_current_index(lc) + 1;
			const char *col = quote_identifier(NameStr(TupleDescAttr(RelationGetDescr(rel), lfirst_int(lc) - 1)->attname));

			if (nullable)
			{
				appendStringInfo(&ocols, "%sdv_t.%s", k > 1 ? ", " : "", col);
				appendStringInfo(&ncols, "%s(dv_r.dv_row).%s", k > 1 ? ", " : "", col);
				continue;
			}
			appendStringInfo(&ocols, ", dv_t.%s AS dv_k%d", col, k);
			appendStringInfo(&ncols, ", (dv_r.dv_row).%s AS dv_k%d", col, k);
			appendStringInfo(&cond, "%so.dv_k%d = n.dv_k%d", k > 1 ? " AND " : "", k, k);
		}
		if (nullable)
		{
			appendStringInfoString(&ocols, ") AS dv_k");
			appendStringInfoString(&ncols, ") AS dv_k");
			appendStringInfoString(&cond, "o.dv_k = n.dv_k");
		}
		table_close(rel, AccessShareLock);
		diff = psprintf("SELECT o.dv_ctid, n.dv_row, n.dv_in IS NOT NULL AS dv_in"
						"  FROM (SELECT * FROM (SELECT dv_t.ctid AS dv_ctid, ROW(dv_t.*)::%s AS dv_old%s FROM %s dv_t%s"
						"        OFFSET 0) dv_o WHERE dynview._full_refresh_count(0)) o"
						"  FULL JOIN (SELECT dv_r.dv_row, true AS dv_in%s"
						"             FROM (SELECT ROW(dv_q.*)::%s AS dv_row FROM (%s) dv_q%s OFFSET 0) dv_r) n"
						"    ON %s"
						"  WHERE o.dv_ctid IS NULL OR n.dv_in IS NULL"
						"     OR NOT (o.dv_old OPERATOR(pg_catalog.*=) n.dv_row) OR NOT dynview._full_refresh_count(1)",
						target, ocols.data, target, where_t, ncols.data, target, query, where_q, cond.data);
	}
	else
	{
		/*
		 * By text: each row's text with its copy number is one key ("<row
		 * text>:<n>"): a row's text never is a prefix of another's
		 * (record_out quotes a field's parentheses), so the key is
		 * unambiguous, and the join on it is a hash join that sorts nothing
		 * beyond the numbering.  Each row's text is computed once (OFFSET 0
		 * keeps the subquery whole).
		 */
		diff = psprintf("SELECT o.dv_ctid, n.dv_row, o.dv_key IS NULL AS dv_in"
						"  FROM (SELECT dv_o.dv_ctid, dv_o.dv_text || %s AS dv_key"
						"        FROM (SELECT dv_t.ctid AS dv_ctid, ROW(dv_t.*)::text COLLATE \"C\" AS dv_text"
						"              FROM %s dv_t%s OFFSET 0) dv_o) o"
						"  FULL JOIN (SELECT dv_s.dv_row, dv_s.dv_text || ':' ||"
						"                    pg_catalog.row_number() OVER (PARTITION BY dv_s.dv_text) AS dv_key"
						"             FROM (SELECT dv_r.dv_row, dv_r.dv_row::text COLLATE \"C\" AS dv_text"
						"                   FROM (SELECT ROW(dv_q.*)::%s AS dv_row FROM (%s) dv_q%s) dv_r OFFSET 0) dv_s) n"
						"    ON o.dv_key = n.dv_key"
						"  WHERE o.dv_key IS NULL OR n.dv_key IS NULL",
						distinct ? "':1'" :
						"':' || pg_catalog.row_number() OVER (PARTITION BY dv_o.dv_text)",
						target, where_t, target, query, where_q);
	}

	/*
	 * The planner cannot estimate the join of row texts (it takes a few
	 * distinct values, many matches), so the statement's cost looks huge and
	 * JIT would compile it with full optimization: seconds, more than it
	 * saves (bench/full.sh).  The user's query inside runs without JIT too.
	 */
	full_counts[0] = full_counts[1] = 0;
	nestlevel = NewGUCNestLevel();
	(void) set_config_option("jit", "off", PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
	if (OidIsValid(diffrel))
	{
		temp_name = quote_qualified_identifier(get_namespace_name(get_rel_namespace(diffrel)),
											   get_rel_name(diffrel));
		(void) dv_exec_fill(diff, snapshot, "refresh", psprintf("%s.%s", dt->schema_name, dt->table_name),
							diffrel);
		sql = "";
		diff_rel = temp_name;
	}
	else
	{
		sql = psprintf("WITH dv_j AS MATERIALIZED (%s), ", diff);
		diff_rel = "dv_j";
	}
	sql = psprintf("%s%s"
				   "dv_d AS (DELETE FROM %s dv_t WHERE dv_t.ctid = ANY (ARRAY("
				   "  SELECT dv_j.dv_ctid FROM %s dv_j WHERE dv_j.dv_ctid IS NOT NULL)) RETURNING dv_t.*), "
				   "dv_i AS (INSERT INTO %s SELECT (dv_j.dv_row).* FROM %s dv_j WHERE dv_j.dv_in RETURNING *) "
				   "%s",
				   OidIsValid(diffrel) ? "WITH " : "", sql, target, diff_rel, target, diff_rel,
				   own_buffer ?
				   "SELECT -1 AS dv_weight, dv_d.* FROM dv_d UNION ALL SELECT 1, dv_i.* FROM dv_i" :
				   "SELECT dv_w, pg_catalog.count(*) FROM (SELECT -1 AS dv_w FROM dv_d UNION ALL SELECT 1 FROM dv_i) dv_u GROUP BY dv_w");
	if (params != NULL)
	{
		/* an incremental refresh's recompute (its statements name it so) */
		n = dv_exec_at_params(sql, snapshot, false, params);
		rc = SPI_OK_SELECT;
	}
	else
		n = dv_exec_statement(sql, snapshot, false, "refresh",
							  psprintf("%s.%s", dt->schema_name, dt->table_name), &rc);
	AtEOXact_GUC(true, nestlevel);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "refresh statement of \"%s\" failed: %s", dt->table_name, SPI_result_code_string(rc));
	res->rows_deleted = res->rows_inserted = 0;
	if (!own_buffer)
	{
		for (uint64 i = 0; i < n; i++)
		{
			bool		isnull;
			int32		w = DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull));
			int64		count = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2, &isnull));

			if (w < 0)
				res->rows_deleted = count;
			else
				res->rows_inserted = count;
		}
	}
	else
	{
		/*
		 * Rows of weight -1 first, then +1 (stable partition, whatever order
		 * they came in), each part written with its weight.  The weight is
		 * the first column: dv_write_own_buffer matches buffer columns by
		 * name, a later column of the same name wins, so a table column named
		 * dv_weight still lands in its own place.
		 */
		SPITupleTable *tuptable = SPI_tuptable;
		HeapTuple  *sorted = palloc(sizeof(HeapTuple) * Max(n, 1));
		SPITupleTable part = *tuptable;
		uint64		k = 0;

		for (int pass = 0; pass < 2; pass++)
			for (uint64 i = 0; i < n; i++)
			{
				bool		isnull;
				int32		w = DatumGetInt32(SPI_getbinval(tuptable->vals[i], tuptable->tupdesc, 1, &isnull));

				if ((w < 0) == (pass == 0))
					sorted[k++] = tuptable->vals[i];
				if (pass == 0 && w < 0)
					res->rows_deleted++;
			}
		res->rows_inserted = (int64) n - res->rows_deleted;
		part.vals = sorted;
		dv_write_own_buffer(dt, &part, (uint64) res->rows_deleted, -1, seq);
		part.vals = sorted + res->rows_deleted;
		dv_write_own_buffer(dt, &part, (uint64) res->rows_inserted, +1, seq);
	}
	/*
	 * By key, every row of the table that stays is one unchanged pair; a
	 * row in more pairs than that has more than one row of the result
	 * with its key, which the unique index does not allow (a copy inserted
	 * would have violated it).
	 */
	if (key != NIL && full_counts[1] != full_counts[0] - res->rows_deleted)
		ereport(ERROR,
				(errcode(ERRCODE_UNIQUE_VIOLATION),
				 errmsg("the query of dynamic table \"%s\" gives a row more than once", dt->table_name),
				 errdetail("A unique index of the table allows each row once."),
				 errhint("Drop the unique index, or give the table a query whose rows are distinct.")));
	if (OidIsValid(diffrel))
	{
		ObjectAddress addr;

		/* (the rows are copied out of SPI's result already) */
		ObjectAddressSet(addr, RelationRelationId, diffrel);
		performDeletion(&addr, DROP_RESTRICT, PERFORM_DELETION_INTERNAL);
		CommandCounterIncrement();
	}
}

/*
 * dv_full_refresh_restricted - recompute some rows of an incremental
 * table in one pass (the affected groups, partitions or window rows):
 * full_refresh_apply over the rows of query (NULL: the definition) and of
 * the table that restrict_q / restrict_t (SQL on aliases dv_q / dv_t, with
 * parameters params) keep, the query evaluated once.  The deleted and
 * inserted rows reach the table's own change buffer, if it has one.  Sets
 * res->rows_deleted and rows_inserted; statements run as
 * dv_exec_at_params's (the current table, as the caller set up).
 */
void
dv_full_refresh_restricted(DvTable *dt, const char *query, const char *restrict_q,
						   const char *restrict_t, DvParams *params, Snapshot snapshot,
						   DvRefreshResult *res, int32 *seq)
{
	Oid			nsp = get_namespace_oid("dynview_buffer", true);
	bool		own_buffer = OidIsValid(nsp) &&
		OidIsValid(get_relname_relid(psprintf("changes_%u", dt->relid), nsp));

	full_refresh_apply(dt, query ? query : dt->definition, restrict_q, restrict_t, params,
					   snapshot, own_buffer, InvalidOid, res, seq);
}

/* does the deparsed definition name the qualified relation (as a whole token)? */
static bool
names_relation(const char *definition, const char *qualified)
{
	size_t		len = strlen(qualified);

	for (const char *p = strstr(definition, qualified); p != NULL; p = strstr(p + 1, qualified))
	{
		char		before = p == definition ? ' ' : p[-1];
		char		after = p[len];

		if (!(isalnum((unsigned char) before) || before == '_' || before == '"' || before == '.' ||
			  (unsigned char) before >= 0x80) &&
			!(isalnum((unsigned char) after) || after == '_' || after == '$' || after == '"' ||
			  (unsigned char) after >= 0x80))
			return true;
	}
	return false;
}

/*
 * dv_source_renamed_away - has an existing source been renamed (or moved)
 * so that the stored definition, which names it, no longer finds it?  Then
 * *new_name is its new qualified name.  A source read only through a view
 * (the view follows it) just gets its new name recorded: not renamed away.
 */
bool
dv_source_renamed_away(DvTable *dt, DvSource *src, char **new_name)
{
	char	   *name = get_rel_name(src->relid);
	char	   *schema = get_namespace_name(get_rel_namespace(src->relid));
	char	   *stored = quote_qualified_identifier(src->schema_name, src->table_name);

	if (strcmp(name, src->table_name) == 0 && strcmp(schema, src->schema_name) == 0)
		return false;
	*new_name = quote_qualified_identifier(schema, name);
	if (!names_relation(dt->definition, stored))
	{
		dv_catalog_rename_source(dt->relid, src, schema, name);
		return false;
	}
	return true;
}

/*
 * find_missing_sources - bring the source list up to date: a missing source
 * whose name resolves again is recorded with its new OID (*recreated set);
 * returns the name of a source still missing, or NULL.
 */
static char *
find_missing_sources(DvTable *dt, bool *recreated)
{
	ListCell   *lc;
	char	   *missing = NULL;

	*recreated = false;
	foreach(lc, dt->sources)
	{
		DvSource   *src = lfirst(lc);
		Oid			nsp;
		Oid			relid = InvalidOid;

		if (OidIsValid(src->relid) && SearchSysCacheExists1(RELOID, ObjectIdGetDatum(src->relid)))
		{
			char	   *renamed;

			if (!dv_source_renamed_away(dt, src, &renamed))
				continue;
			/* renamed or moved: the definition names it no more; a table of that name may */
			nsp = get_namespace_oid(src->schema_name, true);
			relid = OidIsValid(nsp) ? get_relname_relid(src->table_name, nsp) : InvalidOid;
			if (OidIsValid(relid))
			{
				src->relid = relid;
				dv_catalog_update_source(dt->relid, src);
				*recreated = true;
				continue;
			}
			if (missing == NULL)
				missing = psprintf("%s (renamed to %s)",
								   quote_qualified_identifier(src->schema_name, src->table_name), renamed);
			continue;
		}
		nsp = get_namespace_oid(src->schema_name, true);
		if (OidIsValid(nsp))
			relid = get_relname_relid(src->table_name, nsp);
		if (OidIsValid(relid))
		{
			src->relid = relid;
			dv_catalog_update_source(dt->relid, src);
			*recreated = true;
		}
		else if (missing == NULL)
			missing = quote_qualified_identifier(src->schema_name, src->table_name);
	}
	return missing;
}

/* does the tree read a column whose name is no longer the one it was analysed with? */
static bool
renamed_column_walker(Node *node, void *context)
{
	ListCell   *lc;

	if (node == NULL)
		return false;
	if (!IsA(node, Query))
		return expression_tree_walker(node, renamed_column_walker, context);
	foreach(lc, ((Query *) node)->rtable)
	{
		RangeTblEntry *rte = lfirst_node(RangeTblEntry, lc);
		ListCell   *lc2;

		if (rte->rtekind != RTE_RELATION)
			continue;
		foreach(lc2, rte->eref->colnames)
		{
			const char *then = strVal(lfirst(lc2));
			HeapTuple	tuple;
			bool		renamed = false;

			if (then[0] == '\0')
				continue;		/* dropped before the analysis */
			tuple = SearchSysCacheAttNum(rte->relid, foreach_current_index(lc2) + 1);
			if (!HeapTupleIsValid(tuple))
				continue;
			/* (a column dropped since is no rename: the deparse would fail) */
			renamed = !((Form_pg_attribute) GETSTRUCT(tuple))->attisdropped &&
				strcmp(NameStr(((Form_pg_attribute) GETSTRUCT(tuple))->attname), then) != 0;
			ReleaseSysCache(tuple);
			if (renamed)
				return true;
		}
	}
	return query_tree_walker((Query *) node, renamed_column_walker, context, 0);
}

/*
 * dv_subxact_caught - in the PG_CATCH of a subtransaction begun with
 * BeginInternalSubTransaction from oldcontext and oldowner: the error
 * copied into oldcontext and flushed, the subtransaction rolled back, and
 * oldcontext and oldowner current again.
 */
ErrorData *
dv_subxact_caught(MemoryContext oldcontext, ResourceOwner oldowner)
{
	ErrorData  *edata;

	MemoryContextSwitchTo(oldcontext);
	edata = CopyErrorData();
	FlushErrorState();
	RollbackAndReleaseCurrentSubTransaction();
	MemoryContextSwitchTo(oldcontext);
	CurrentResourceOwner = oldowner;
	return edata;
}

/*
 * dv_as_owner_caught - step(dt, arg) as the table's owner, with the settings
 * of its refreshes (search_path pg_catalog, pg_temp; the output styles), in
 * a subtransaction of its own.  If step raised an error: false, nothing of
 * it kept, and *error (when error is not NULL) the error in the caller's
 * memory context.  An error that says nothing of the step's own question
 * is re-thrown, as the caller's: a cancel, a lock not granted within
 * lock_timeout (or NOWAIT), a deadlock, a serialization failure.  (A lock
 * timeout caught here read as "the definition no longer analyses": the
 * refresh then tried the rename path and the analysis again, waiting three
 * times lock_timeout before it failed.)  If not: true,
 * and what step wrote kept when keep, rolled back when not (a question
 * asked without leaving a trace: the guard's "does the definition still
 * analyse?").  What step allocates stays in the caller's memory context.
 */
bool
dv_as_owner_caught(DvTable *dt, void (*step) (DvTable *dt, void *arg), void *arg,
				   bool keep, ErrorData **error)
{
	MemoryContext oldcontext = CurrentMemoryContext;
	ResourceOwner oldowner = CurrentResourceOwner;
	bool		ok = true;

	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(oldcontext);
	PG_TRY();
	{
		int			save_nestlevel;
		Oid			save_userid;
		int			save_sec;

		dv_run_as_owner(dt->owner, &save_nestlevel, &save_userid, &save_sec);
		(void) set_config_option("search_path", DV_SAFE_SEARCH_PATH,
								 PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
		dv_set_output_styles();	/* constants are read back in these styles */
		step(dt, arg);
		dv_restore_user(save_nestlevel, save_userid, save_sec);
		if (keep)
			ReleaseCurrentSubTransaction();
		else
			RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(oldcontext);
		CurrentResourceOwner = oldowner;
	}
	PG_CATCH();
	{
		ErrorData  *edata = dv_subxact_caught(oldcontext, oldowner);

		if (edata->sqlerrcode == ERRCODE_QUERY_CANCELED ||
			edata->sqlerrcode == ERRCODE_LOCK_NOT_AVAILABLE ||
			edata->sqlerrcode == ERRCODE_T_R_DEADLOCK_DETECTED ||
			edata->sqlerrcode == ERRCODE_T_R_SERIALIZATION_FAILURE)
			ReThrowError(edata);
		if (error != NULL)
			*error = edata;
		else
			FreeErrorData(edata);
		ok = false;
	}
	PG_END_TRY();
	return ok;
}

/* the definition analysed into the plan cache, where the refresh finds it */
static void
analyse_step(DvTable *dt, void *arg)
{
	(void) dv_plan_cache_query(dt);
}

/* follow_renames' deparse of the kept tree, when a name in it changed */
typedef struct RenameStep
{
	Query	   *tree;
	bool		broken;			/* the definition no longer analyses */
	char	   *sql;			/* out: the new definition, or NULL */
	char	   *new_tree;		/* out: its analysed tree */
} RenameStep;

static void
rename_step(DvTable *dt, void *arg)
{
	RenameStep *r = arg;

	/* (every relation still there, by OID; locks for the deparse) */
	AcquireRewriteLocks(r->tree, true, false);
	if (!r->broken && !renamed_column_walker((Node *) r->tree, NULL))
		return;
	r->sql = pg_get_querydef(r->tree, false);
	/* it must analyse as refreshes will, to the same output columns */
	r->new_tree = dv_definition_tree(r->sql);
	(void) dv_parse_definition(r->sql);
}

/*
 * follow_renames - after a source column the definition reads was renamed
 * (ALTER TABLE ... RENAME COLUMN), the stored SQL names it no more.  Like a
 * view's rule, the catalog keeps the definition's analysed tree, whose
 * columns are numbers: deparsed now, it names the new column (and keeps
 * the output column's name).  The new SQL and its tree replace the stored
 * ones, before the pipeline's checks see the definition (which then finds
 * the sources' shape changed: the refresh is FULL, SOURCE_ALTERED, and the
 * change buffers take the new column names).  Looked at when a source's
 * shape changed since the table's last refresh, and when the definition no
 * longer analyses (the analysis, caught, goes to the plan cache): a
 * function it calls or a value of an enum it names was renamed (ALTER
 * FUNCTION / ALTER TYPE ... RENAME), which a view follows too.  A tree that
 * no longer deparses or analyses (a column dropped, a source replaced) is
 * left alone: the refresh then fails as before, with its hint.
 */
static void
follow_renames(DvTable *dt)
{
	char	   *tree_text;
	RenameStep	r = {0};

	/*
	 * (the stored tree is read only when it is needed: a large text,
	 * compressed, which every refresh of every layer read and decompressed,
	 * ~0.07 ms of the dashboard's pipeline refresh, bench/README.md,
	 * twentieth session; a table without one is left alone as before)
	 */
	if (dv_catalog_source_altered(dt->relid) == NULL)
	{
		bool		analyses = dv_as_owner_caught(dt, analyse_step, NULL, true, NULL);

		/*
		 * (the analysis locks the table: dropped while this waited for it,
		 * it is 42P01, neither a definition to follow nor one changed)
		 */
		if (!dv_is_dynamic_table(dt->relid))
			(void) dv_catalog_load(dt->relid);
		if (analyses)
			return;
		r.broken = true;
	}
	if ((tree_text = dv_catalog_get_definition_tree(dt->relid)) == NULL)
		return;
	r.tree = (Query *) stringToNode(tree_text);
	if (!IsA(r.tree, Query))
		return;
	if (!dv_as_owner_caught(dt, rename_step, &r, true, NULL) || r.sql == NULL || strcmp(r.sql, dt->definition) == 0)
		return;
	dv_catalog_set_definition(dt->relid, r.sql);
	dv_catalog_set_definition_tree(dt->relid, r.new_tree);
	dt->definition = r.sql;
	CommandCounterIncrement();
}

/*
 * row_security_flag - does a Query of the tree say hasRowSecurity?  With
 * *clear, clears the flag in each (of a copy) and looks on.
 */
static bool
row_security_flag(Node *node, bool *clear)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
	{
		if (!*clear && ((Query *) node)->hasRowSecurity)
			return true;
		if (*clear)
			((Query *) node)->hasRowSecurity = false;
		return query_tree_walker((Query *) node, row_security_flag, clear, 0);
	}
	return expression_tree_walker(node, row_security_flag, clear);
}

/*
 * definition_tree_text - the definition parsed, analysed and rewritten
 * now, as nodeToString text: its signature (dv_signature) is the
 * definition's.  The views it reads are inlined, so replacing one of them
 * changes it (the stored text does not change).
 */
static char *
definition_tree_text(DvTable *dt)
{
	Query	   *query = dv_plan_cache_query(dt);
	bool		clear = false;

	/*
	 * (hasRowSecurity says only that row-level security is enabled on a
	 * relation read, also when no policy applies to the owner, who then
	 * reads every row: a superuser or BYPASSRLS owner, or the policies name
	 * other roles.  The policies that do apply are in the tree as security
	 * quals, and so is the qual that lets an ordinary owner read no row
	 * when no policy applies to it.  The cached tree is shared: the flags
	 * are cleared in a copy.)
	 */
	if (row_security_flag((Node *) query, &clear))
	{
		query = copyObject(query);
		clear = true;
		(void) row_security_flag((Node *) query, &clear);
	}
	return nodeToString(query);
}

/*
 * definition_signature - dv_signature of definition_tree_text: what
 * dv_plan_cache_signature keeps with the cached query (its nodeToString
 * and hash were ~0.1 ms of each refresh of the dashboard's three layers,
 * bench/README.md, twentieth session).  Call as the table's owner.
 */
static char *
definition_signature(DvTable *dt)
{
	return dv_signature(definition_tree_text(dt));
}

/* do the two DvSource lists name the same relations, in the same order? */
static bool
same_sources(List *a, List *b)
{
	ListCell   *la;
	ListCell   *lb;

	if (list_length(a) != list_length(b))
		return false;
	forboth(la, a, lb, b)
	{
		if (((DvSource *) lfirst(la))->relid != ((DvSource *) lfirst(lb))->relid)
			return false;
	}
	return true;
}

/*
 * definition_changed - has the definition, analysed now (views inlined),
 * changed since the table's last check (a view was redefined)?  Then the
 * table's sources are analysed again, new ones tracked, and, when mark_full,
 * its next refresh is FULL (DEFINITION_CHANGED): all before the pipeline's
 * snapshot.  The first call for a table records the signature.  After a
 * FULL recompute it is called with mark_full false: the table now holds
 * what the definition gives as analysed now (an upstream dynamic table
 * this pipeline refreshed first may have changed its column types, which
 * changes the analysed tree), so the next refresh need not be FULL again.
 */
static bool
definition_changed(DvTable *dt, bool mark_full)
{
	char	   *stored = dv_catalog_get_signature(dt->relid);
	char	   *tree;
	char	   *signature;
	char	   *altered;
	DvAnalyzedQuery *aq;
	int			save_nestlevel;
	Oid			save_userid;
	int			save_sec;
	bool		same;

	dv_run_as_owner(dt->owner, &save_nestlevel, &save_userid, &save_sec);
	signature = dv_plan_cache_signature(dt, definition_signature);
	dv_restore_user(save_nestlevel, save_userid, save_sec);
	if (stored != NULL && strcmp(stored, signature) == 0)
		return false;
	/*
	 * (the text itself, and its signature from it: an older build's stored
	 * md5 is compared with the text, and what is stored is the text's)
	 */
	dv_run_as_owner(dt->owner, &save_nestlevel, &save_userid, &save_sec);
	tree = definition_tree_text(dt);
	dv_restore_user(save_nestlevel, save_userid, save_sec);
	signature = dv_signature(tree);
	/* (one stored by an older build, an md5, is compared as one, then stored anew) */
	same = stored != NULL && dv_signature_matches(stored, tree);
	dv_catalog_set_signature(dt->relid, signature);
	/* first check: nothing to compare with */
	if (stored == NULL || same)
		return false;

	/*
	 * The sources may be others now: analyse them again and track the new
	 * ones, also when a FULL refresh is due anyway (its own reason is kept)
	 * or a source was altered too (its buffer is synced here, since the
	 * new source list records the sources' current shape).
	 */
	if ((altered = dv_catalog_source_altered(dt->relid)) != NULL)
		sync_buffers(dt->sources);
	dv_run_as_owner(dt->owner, &save_nestlevel, &save_userid, &save_sec);
	aq = dv_analyze_query(dt->definition, dt->relid);
	dv_restore_user(save_nestlevel, save_userid, save_sec);

	/*
	 * The same sources, one of them altered (ADD COLUMN changes the analysed
	 * tree too): their recorded signatures stay, so that the refresh finds
	 * the source altered and names it (SOURCE_ALTERED); they are recorded
	 * anew when it succeeds.
	 */
	if (altered != NULL && same_sources(dt->sources, aq->sources))
	{
		dv_tracking_start(aq->sources, strcmp(dt->refresh_mode, "incremental") == 0);
		return true;
	}
	dv_catalog_set_sources(dt->relid, aq->sources);
	dv_tracking_start(aq->sources, strcmp(dt->refresh_mode, "incremental") == 0);
	dv_tracking_release_unused();
	if (mark_full && dt->next_refresh_full == NULL)
		dv_catalog_set_next_full(dt->relid, altered ? "SOURCE_ALTERED" : "DEFINITION_CHANGED");
	return true;
}

/* a collation's name, schema-qualified: retype_columns runs with search_path pg_catalog, pg_temp */
static char *
qualified_collation_name(Oid collation)
{
	HeapTuple	tup = SearchSysCache1(COLLOID, ObjectIdGetDatum(collation));
	Form_pg_collation coll;
	char	   *name;

	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for collation %u", collation);
	coll = (Form_pg_collation) GETSTRUCT(tup);
	name = quote_qualified_identifier(get_namespace_name(coll->collnamespace), NameStr(coll->collname));
	ReleaseSysCache(tup);
	return name;
}

/* the partitioned dynamic table that relid is a partition of, or InvalidOid */
static Oid
partition_parent(Oid relid)
{
	Oid			parent = get_rel_relispartition(relid) ? get_partition_parent(relid, false) : InvalidOid;

	return OidIsValid(parent) && dv_is_partitioned_dynamic_table(parent) ? parent : InvalidOid;
}

/*
 * column_type_changes - the ALTER TABLE actions that give the dynamic
 * table's columns the types (with typmod and collation) of its query's
 * output columns now, or NULL when they agree.  They differ after a
 * source column's type changed (ALTER COLUMN ... TYPE: int to bigint,
 * numeric(5,2) to numeric(9,2), varchar(4) to varchar(12)), or an upstream
 * dynamic table's did: the query's values would then be cast to the old
 * types on insert, i.e. truncated or refused.  *described lists the
 * changes for the refresh's reason ("code varchar(4) to varchar(12)").
 * The actions convert no value (USING NULL): the caller empties the table
 * first; *cast_actions (when not NULL) gets the same actions that cast the
 * values instead (for a partitioned dynamic table whose other partitions
 * keep their rows: partition_parent).  Parses the definition as the
 * table's owner.
 */
static char *
column_type_changes(DvTable *dt, char **cast_actions, char **described)
{
	Query	   *query;
	Relation	rel;
	TupleDesc	desc;
	ListCell   *lc;
	int			attno = 0;
	StringInfoData actions;
	StringInfoData cast;
	StringInfoData what;
	int			save_nestlevel;
	Oid			save_userid;
	int			save_sec;

	dv_run_as_owner(dt->owner, &save_nestlevel, &save_userid, &save_sec);
	query = dv_plan_cache_query(dt);
	dv_restore_user(save_nestlevel, save_userid, save_sec);

	initStringInfo(&actions);
	initStringInfo(&cast);
	initStringInfo(&what);
	rel = relation_open(dt->relid, AccessShareLock);
	desc = RelationGetDescr(rel);
	foreach(lc, query->targetList)
	{
		TargetEntry *te = lfirst_node(TargetEntry, lc);
		Form_pg_attribute att;
		Oid			type = exprType((Node *) te->expr);
		int32		typmod = exprTypmod((Node *) te->expr);
		Oid			collation = exprCollation((Node *) te->expr);
		char	   *typename;
		char	   *action;

		if (te->resjunk)
			continue;
		while (attno < desc->natts && TupleDescAttr(desc, attno)->attisdropped)
			attno++;
		if (attno >= desc->natts)
			break;				/* (a column count that differs fails the refresh's INSERT) */
		att = TupleDescAttr(desc, attno++);
		if (att->atttypid == type && att->atttypmod == typmod &&
			(att->attcollation == collation || !OidIsValid(collation)))
			continue;
		typename = format_type_extended(type, typmod, FORMAT_TYPE_TYPEMOD_GIVEN | FORMAT_TYPE_FORCE_QUALIFY);
		action = psprintf("ALTER COLUMN %s TYPE %s", quote_identifier(NameStr(att->attname)), typename);
		if (OidIsValid(collation) && collation != att->attcollation)
			action = psprintf("%s COLLATE %s", action, qualified_collation_name(collation));
		appendStringInfo(&actions, "%s%s USING NULL::%s", actions.len ? ", " : "", action, typename);
		appendStringInfo(&cast, "%s%s", cast.len ? ", " : "", action);
		appendStringInfo(&what, "%s%s %s to %s", what.len ? ", " : "", NameStr(att->attname),
						 format_type_with_typemod(att->atttypid, att->atttypmod),
						 format_type_with_typemod(type, typmod));
	}
	relation_close(rel, AccessShareLock);
	*described = what.data;
	if (cast_actions)
		*cast_actions = cast.len ? cast.data : NULL;
	return actions.len ? actions.data : NULL;
}

/*
 * sync_buffers - dv_tracking_sync_buffers of the sources, after what a
 * refresh of a source in this pipeline kept back from its buffer is written
 * there (its rows have the buffer's columns as they were)
 */
static void
sync_buffers(List *sources)
{
	ListCell   *lc;

	foreach(lc, sources)
	{
		DvSource   *src = lfirst(lc);

		if (OidIsValid(src->relid))
			dv_handoff_flush(src->relid);
	}
	dv_tracking_sync_buffers(sources);
}

/*
 * retype_columns - run the actions of column_type_changes on the (emptied)
 * dynamic table, as its owner (the caller switched to it).  An object that
 * depends on such a column (a view on the dynamic table, say) makes
 * PostgreSQL refuse: then the refresh fails with what to do, and the table
 * keeps its contents (the transaction rolls back).
 *
 * A partition of partitioned dynamic table parent has its parent's columns:
 * the actions run on parent, as parent's owner.  Where the other partitions
 * hold rows, their values are cast (cast_actions, column_type_changes'),
 * and each of them recomputes in full at its next refresh, its
 * source altered; a value without a cast to the new type (text to int,
 * varchar(12) to varchar(4)) fails the refresh, with a hint to drop such
 * partitions.  Where they hold none, the actions convert nothing (as for
 * an unpartitioned table), so that a type without a cast from the old one
 * does not stop the parent from ever taking a partition again.
 */
static void
retype_columns(DvTable *dt, Oid parent, const char *actions, const char *cast_actions,
			   const char *described)
{
	MemoryContext caller_context = CurrentMemoryContext;
	Oid			altered = OidIsValid(parent) ? parent : dt->relid;
	char	   *target = quote_qualified_identifier(get_namespace_name(get_rel_namespace(altered)),
													get_rel_name(altered));
	Oid			save_target;
	int			save_level;
	int			save_nestlevel = -1;
	Oid			save_userid = InvalidOid;
	int			save_sec = 0;

	/* (the ALTER runs as the parent's owner, and PostgreSQL wants it to own every partition) */
	if (OidIsValid(parent))
		dv_check_partition_owners(parent);
	dv_guard_begin_write(&save_target, &save_level);
	PG_TRY();
	{
		if (OidIsValid(parent))
		{
			/* (this partition is emptied already: rows are the other partitions') */
			if (dv_partitioned_holds_rows(parent))
				actions = cast_actions;
			dv_run_as_owner(dv_rel_owner(parent), &save_nestlevel, &save_userid, &save_sec);
		}
		dv_guard_allow_column_ddl(altered);
		if (SPI_execute(psprintf("ALTER TABLE %s %s", target, actions), false, 0) != SPI_OK_UTILITY)
			elog(ERROR, "could not change the column types of dynamic table \"%s\"", dt->table_name);
		dv_guard_allow_column_ddl(InvalidOid);
		if (save_nestlevel >= 0)
			dv_restore_user(save_nestlevel, save_userid, save_sec);
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		dv_guard_allow_column_ddl(InvalidOid);
		dv_guard_end_write(save_target, save_level);
		MemoryContextSwitchTo(caller_context);
		edata = CopyErrorData();
		FlushErrorState();
		if (save_nestlevel >= 0)
			dv_restore_user(save_nestlevel, save_userid, save_sec);
		/* (a lock not had, a cancel, a deadlock: as PostgreSQL says them, to retry) */
		if (dv_error_to_retry(edata))
			ReThrowError(edata);
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cannot change the column types of dynamic table \"%s\" to those of its query",
						dt->table_name),
				 edata->detail ?
				 errdetail("A source's column types changed (%s); changing the table's columns failed: %s (%s)",
						   described, edata->message, edata->detail) :
				 errdetail("A source's column types changed (%s); changing the table's columns failed: %s",
						   described, edata->message),
				 OidIsValid(parent) ?
				 errhint("\"%s\" is a partition of \"%s\", whose other partitions keep their values, cast to the new types: "
						 "drop the partitions (DROP TABLE) whose values have no cast to them, or the objects that depend on these columns. "
						 "The table keeps its last good data meanwhile.", dt->table_name, get_rel_name(parent)) :
				 errhint("Drop the objects that depend on these columns, or give the table a new definition with "
						 "dynview.create_or_replace_dynamic_table(). The table keeps its last good data meanwhile.")));
	}
	PG_END_TRY();
	dv_guard_end_write(save_target, save_level);
}

/* the texts of the reasons a table was marked for a FULL refresh (next_refresh_full) */
static const struct
{
	const char *code;
	const char *text;
}			pending_full_reasons[] = {
	{"UPSTREAM_RECREATED", "A source was dropped and created again; the table was recomputed in full."},
	{"SOURCE_ALTERED", "The columns, keys or storage of a source changed since the last refresh (ALTER TABLE, a unique index created or dropped, VACUUM FULL or CLUSTER); the table was recomputed in full."},
	{"DEFINITION_CHANGED", "The definition, analysed again, differs from the one of the last refresh (a view it reads was redefined, or the row-level security of a source changed for the table's owner); the table was recomputed in full."},
	{"CHANGED_OUTSIDE_REFRESH", "The table was written by other than its refreshes (COPY FROM, or a subscription's apply worker); it was recomputed in full."},
	{"UPSTREAM_CHANGED_OUTSIDE_REFRESH", "An upstream dynamic table was written by other than its refreshes (COPY FROM, or a subscription's apply worker); its change buffer does not hold those rows, so the table was recomputed in full."},
	{"CHANGE_RETENTION_EXCEEDED", "The table held its sources' changes longer than dynview.change_retention; they were pruned and the table was recomputed in full."},
	{"SOURCE_PARTITIONS_CHANGED", "A partition or inheritance child holding rows was attached to, detached from or dropped from a source, or one was switched between logged and unlogged; none of this logs row changes, so the table was recomputed in full."},
	{"RESTORED", "The table's catalog row was restored from another database or cluster; its data snapshot named that database's transactions and was not trusted, so the table was recomputed in full."},
};

/*
 * resolve_effective_mode - what the declared mode (auto or incremental)
 * resolves to now, recorded in the catalog when it differs from what the
 * catalog says.  The plan depends on more than the definition's text:
 * CREATE OR REPLACE FUNCTION may make a function it calls VOLATILE (the plan
 * is FULL, VOLATILE_FUNCTION) or IMMUTABLE again, a source may be made
 * UNLOGGED or LOGGED again; a DBA reads effective_mode (and
 * explain_dynamic_table()) to learn how the table is refreshed.
 *
 * Turning FULL, the catalog changes but this refresh goes on as it would
 * have (the incremental path finds the plan FULL and says why, after its
 * own checks: SOURCE_ALTERED first).  Turning INCREMENTAL, this refresh
 * takes the incremental path (dt->effective_mode is set), as after
 * alter_dynamic_table(refresh_mode => 'auto'): its checks make it FULL
 * where the table's data snapshot or a source's buffer is not fit (the
 * buffers' column types are synced with their sources' first, as a FULL
 * table's refreshes do not).  A FULL mode that does not come from the plan
 * stays: refresh_mode => 'full', and a source that is not captured
 * (dv_source_is_capturable) while any is.
 *
 * Reads the plan from the cache (analysed again after such a change) as
 * the table's owner.  Needs SPI.
 */
static void
resolve_effective_mode(DvTable *dt)
{
	DvPlan	   *plan;
	bool		incremental = strcmp(dt->effective_mode, "INCREMENTAL") == 0;
	int			save_nestlevel;
	Oid			save_userid;
	int			save_sec;
	ListCell   *lc;

	if (strcmp(dt->refresh_mode, "full") == 0 ||
		(!incremental && (dt->mode_reason_code == NULL ||
						  strcmp(dt->mode_reason_code, "FULL_REQUESTED") == 0)))
		return;
	dv_run_as_owner(dt->owner, &save_nestlevel, &save_userid, &save_sec);
	plan = dv_plan_cache_plan(dt);
	dv_restore_user(save_nestlevel, save_userid, save_sec);
	if (incremental && plan->kind == DV_PLAN_FULL)
		dv_catalog_set_effective_mode(dt->relid, "FULL", plan->reason_code, plan->reason);
	else if (!incremental && plan->kind != DV_PLAN_FULL)
	{
		foreach(lc, dt->sources)
		{
			DvSource   *src = lfirst(lc);

			if (OidIsValid(src->relid) && !dv_source_is_capturable(src->relid))
				return;
		}
		dv_catalog_set_effective_mode(dt->relid, "INCREMENTAL", NULL, NULL);
		sync_buffers(dt->sources);
		dt->effective_mode = "INCREMENTAL";
		dt->mode_reason_code = NULL;
		dt->mode_reason = NULL;
	}
}

static char *
pending_full_reason(const char *code)
{
	for (int i = 0; i < lengthof(pending_full_reasons); i++)
	{
		if (strcmp(pending_full_reasons[i].code, code) == 0)
			return pstrdup(pending_full_reasons[i].text);
	}
	return psprintf("The previous state requires a full refresh (%s).", code);
}

/*
 * check_sources_not_rewritten - refuse a refresh at snapshot (a REPEATABLE
 * READ or SERIALIZABLE transaction's) when another transaction rewrote a
 * source table (or a partition or child of one) after it in a way that is
 * not MVCC-safe: ALTER TABLE that rewrites writes every row again under its
 * own transaction, so the older snapshot sees the new storage empty (also
 * TRUNCATE followed by inserts).  The refresh would record the source as
 * empty at its data snapshot, and nothing later would tell it otherwise (a
 * tester's table stayed empty for good).  Found by:
 *	- the storage pg_class showed at snapshot, this transaction's own catalog
 *	  changes left out (its GRANT carries the other's new storage), differing
 *	  from the storage now;
 *	- not assigned by this transaction (its own rewrite is no concern: its
 *	  later commands see the rows it wrote);
 *	- and the snapshot seeing no row of the storage now but this
 *	  transaction's own (rows it inserted after the rewrite are in the new
 *	  storage too), where a new snapshot sees one (VACUUM FULL, CLUSTER and
 *	  SET TABLESPACE keep the rows' transaction ids: MVCC-safe, not
 *	  refused).
 */
static void
check_sources_not_rewritten(DvTable *dt, Snapshot snapshot)
{
	ListCell   *lc;
	Relation	pg_class_rel;
	SnapshotData others;

	if (!IsolationUsesXactSnapshot())
		return;					/* (a new snapshot per refresh: taken after any rewrite it sees) */
	/* (snapshot without this transaction's own changes: none has a command id below the first) */
	others = *snapshot;
	others.curcid = FirstCommandId;
	pg_class_rel = table_open(RelationRelationId, AccessShareLock);
	foreach(lc, dt->sources)
	{
		DvSource   *src = lfirst(lc);
		List	   *rels;
		ListCell   *lr;

		if (!OidIsValid(src->relid) || get_rel_relkind(src->relid) == RELKIND_VIEW)
			continue;
		rels = find_all_inheritors(src->relid, NoLock, NULL);
		foreach(lr, rels)
		{
			Oid			relid = lfirst_oid(lr);
			ScanKeyData key;
			SysScanDesc scan;
			HeapTuple	tup;
			Oid			then = InvalidOid;
			Relation	rel;
			bool		unsafe;

			ScanKeyInit(&key, Anum_pg_class_oid, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(relid));
			scan = systable_beginscan(pg_class_rel, ClassOidIndexId, true, &others, 1, &key);
			if (HeapTupleIsValid(tup = systable_getnext(scan)))
				then = ((Form_pg_class) GETSTRUCT(tup))->relfilenode;
			systable_endscan(scan);
			if (!OidIsValid(then))
				continue;		/* (made since, or no storage of its own) */
			rel = try_relation_open(relid, AccessShareLock);
			if (rel == NULL)
				continue;
			unsafe = RELKIND_HAS_STORAGE(rel->rd_rel->relkind) &&
				rel->rd_rel->relfilenode != then &&
				rel->rd_createSubid == InvalidSubTransactionId &&
				rel->rd_firstRelfilenodeSubid == InvalidSubTransactionId &&
				!dv_relation_sees_row(rel, snapshot, true) && dv_relation_sees_row(rel, NULL, false);
			relation_close(rel, AccessShareLock);
			if (unsafe)
				ereport(ERROR,
						(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
						 errmsg("could not refresh dynamic table \"%s\": its source \"%s\" was rewritten after this transaction's snapshot",
								dt->table_name, get_rel_name(relid)),
						 errdetail("A table rewrite (ALTER TABLE, or TRUNCATE and new rows) is not MVCC-safe: the snapshot of this %s transaction sees the table empty.",
								   IsolationIsSerializable() ? "SERIALIZABLE" : "REPEATABLE READ"),
						 errhint("Refresh the table in a new transaction.")));
		}
	}
	table_close(pg_class_rel, AccessShareLock);
}

/*
 * dv_refresh_one - refresh one dynamic table at the given snapshot, which
 * the caller registered (and whose command id it keeps current), and write
 * its history row.  The caller holds the table's refresh lock.
 *
 * Returns the history row (composite Datum, in the SPI caller's context);
 * *refreshed says whether the table got new contents at the snapshot (the
 * caller then records the snapshot as its data snapshot).  Errors of the
 * query propagate.  Needs SPI.
 */
Datum
dv_refresh_one(Oid relid, DvRefreshTrigger trigger, Snapshot snapshot, XLogRecPtr lsn,
			   bool *refreshed)
{
	DvTable    *dt = dv_catalog_load(relid);
	DvRefreshResult res = {0};
	bool		recreated;
	char	   *missing;
	char	   *insert_sql;
	int			save_nestlevel;
	Oid			save_userid;
	int			save_sec;
	bool		done = false;
	bool		own_buffer;
	char	   *altered;
	int32		seq = 0;

	res.start_time = GetCurrentTimestamp();
	res.data_lsn = lsn;
	/* (a refresh of another table that failed in this transaction left its own say) */
	dv_refresh_mark_own_writes(false);
	/* the sources' signatures as this refresh begins, before its plan is looked up */
	dv_catalog_note_signatures(relid);

	missing = find_missing_sources(dt, &recreated);
	if (missing)
	{
		res.state = "SUCCEED";
		res.refresh_mode = "NO_DATA";
		res.mode_reason_code = "UPSTREAM_MISSING";
		res.mode_reason = psprintf("Source %s does not exist; the table keeps its data until a table of that name exists again (or its definition is replaced).", missing);
		res.data_lsn = InvalidXLogRecPtr;
		res.end_time = GetCurrentTimestamp();
		return dv_history_insert(dt, trigger, &res);
	}

	check_sources_not_rewritten(dt, snapshot);

	/*
	 * A partition of a partitioned dynamic table runs its parent's query as
	 * the partition's owner: they must be one role (a partition that a
	 * superuser's refresh made, before partitions were made as their
	 * parent's owner, ran the parent owner's functions as the superuser).
	 */
	dv_check_partition_owned(relid);

	/*
	 * The owner must still be allowed to read every source, whatever this
	 * refresh reads (an incremental one reads change buffers): a REVOKE or an
	 * ALTER ... OWNER TO fails the refresh (42501), and the table keeps its
	 * data.
	 */
	dv_run_as_owner(dt->owner, &save_nestlevel, &save_userid, &save_sec);
	dv_refuse_row_security_off(dt, "refresh");
	check_owner_may_read(dt);
	/* writes that only dynview makes are not decoded (the decoder need not read them) */
	dv_refresh_mark_own_writes(dv_plan_cache_own_writes(dt, writes_are_own));
	dv_restore_user(save_nestlevel, save_userid, save_sec);
	resolve_effective_mode(dt);

	/* only this table's refresh statements may write it (hooks/guard.c) */
	dv_guard_set_refreshing(relid, dt->sources);
	res.refresh_mode = "FULL";
	if (dt->next_refresh_full)
	{
		res.mode_reason_code = dt->next_refresh_full;
		/* (marked when the definition's analysed tree changed with a source's columns: name it) */
		if (strcmp(dt->next_refresh_full, "SOURCE_ALTERED") == 0 &&
			(altered = dv_catalog_source_altered(relid)) != NULL)
			res.mode_reason = psprintf("The columns or storage of %s changed since the last refresh (ALTER TABLE: a column added, dropped or retyped; or VACUUM FULL or CLUSTER); it was recomputed in full.",
									   altered);
		else
			res.mode_reason = pending_full_reason(dt->next_refresh_full);
	}
	else if (strcmp(dt->effective_mode, "INCREMENTAL") == 0 && !dt->has_data_snapshot)
	{
		res.mode_reason_code = "INITIAL_BUILD";
		res.mode_reason = pstrdup("The table had no contents yet; it was built in full.");
	}
	else if (strcmp(dt->effective_mode, "INCREMENTAL") == 0 &&
			 (altered = dv_catalog_source_altered(relid)) != NULL)
	{
		bool		known;
		Oid			truncated = dv_refresh_truncated_source(dt, snapshot, lsn, &known);

		if (OidIsValid(truncated))
		{
			/* (named as dv_catalog_source_altered names a source) */
			int			nestlevel = dv_safe_search_path_push();
			char	   *name = DatumGetCString(DirectFunctionCall1(regclassout, ObjectIdGetDatum(truncated)));

			dv_safe_search_path_pop(nestlevel);
			res.mode_reason_code = "SOURCE_TRUNCATED";
			res.mode_reason = strcmp(name, altered) == 0 ?
				psprintf("%s was truncated (TRUNCATE) since the last refresh; it was recomputed in full.", name) :
				psprintf("%s was truncated (TRUNCATE) since the last refresh, and the columns, keys or storage of %s changed (ALTER TABLE, a unique index created or dropped, VACUUM FULL or CLUSTER); it was recomputed in full.",
						 name, altered);
		}
		else
		{
			res.mode_reason_code = "SOURCE_ALTERED";
			res.mode_reason = psprintf("The columns, keys or storage of %s changed since the last refresh (%s); it was recomputed in full.",
									   altered, known ? "ALTER TABLE, a unique index created or dropped, VACUUM FULL or CLUSTER" :
									   "ALTER TABLE, a unique index created or dropped, TRUNCATE, VACUUM FULL or CLUSTER");
		}
		sync_buffers(dt->sources);
	}
	else if (strcmp(dt->effective_mode, "INCREMENTAL") == 0)
	{
		const char *code = NULL;
		char	   *reason = NULL;

		done = dv_refresh_incremental(dt, snapshot, lsn, &res, &code, &reason);
		if (!done)
		{
			res.refresh_mode = "FULL";
			res.rows_inserted = res.rows_deleted = 0;
			res.mode_reason_code = code;
			res.mode_reason = reason;
		}
	}
	else if (dv_catalog_source_altered(relid) == NULL &&
			 dv_sources_unchanged(dt, snapshot, lsn))
	{
		/* a FULL-mode table whose sources did not change: nothing to recompute */
		res.refresh_mode = "NO_DATA";
		done = true;
	}
	else
	{
		res.mode_reason_code = dt->mode_reason_code;
		res.mode_reason = dt->mode_reason;
	}

	if (!done)
	{
		char	   *retype_what = NULL;
		char	   *retype;
		bool		state_built = false;
		bool		fill = false;
		char	   *build_query = NULL;
		bool		apply_index_pending = false;
		Oid			parent;
		char	   *retype_cast;

		/*
		 * A source's keys (its primary key, unique indexes, NOT NULL) or the
		 * definition changed, or a source is another table of the same name
		 * now: the apply index follows the keys the plan derives now.  One
		 * that differs is dropped before the table is written (a unique index
		 * on a key that is one no more would refuse the rows), and the new
		 * one made once it holds the new rows.
		 */
		if (dv_catalog_source_altered(relid) != NULL ||
			(dt->next_refresh_full != NULL &&
			 (strcmp(dt->next_refresh_full, "DEFINITION_CHANGED") == 0 ||
			  strcmp(dt->next_refresh_full, "UPSTREAM_RECREATED") == 0 ||
			  strcmp(dt->next_refresh_full, "RESTORED") == 0)))
			apply_index_pending = dv_catalog_sync_apply_index(dt, false);
		parent = partition_parent(relid);
		retype = column_type_changes(dt, &retype_cast, &retype_what);

		/* a downstream reads the table: write what changed into its buffer too */
		own_buffer = OidIsValid(get_relname_relid(psprintf("changes_%u", relid),
												  get_namespace_oid("dynview_buffer", false)));
		insert_sql = NULL;
		dv_run_as_owner(dt->owner, &save_nestlevel, &save_userid, &save_sec);
		if (retype != NULL)
		{
			/*
			 * The query's column types changed: empty the table, give it the
			 * new types (no value is converted, so none is truncated), and
			 * fill it.  Downstream tables see their source altered and
			 * recompute in full; the old values in the own buffer are
			 * dropped like those of an altered source's buffer.
			 */
			res.rows_deleted = (int64) run_write(dt, psprintf("DELETE FROM %s%s",
															  quote_qualified_identifier(dt->schema_name, dt->table_name),
															  own_buffer ? " RETURNING *" : ""),
												 snapshot, own_buffer ? SPI_OK_DELETE_RETURNING : SPI_OK_DELETE);
			if (own_buffer)
				dv_write_own_buffer(dt, SPI_tuptable, (uint64) res.rows_deleted, -1, &seq);
			/* (what this refresh kept back from its buffer goes there with the old types) */
			dv_handoff_flush(dt->relid);
			retype_columns(dt, parent, retype, retype_cast, retype_what);
			if (own_buffer)
			{
				DvSource   *self = palloc0(sizeof(DvSource));

				self->relid = relid;
				dv_tracking_sync_buffers(list_make1(self));
			}
			res.mode_reason = psprintf("%s The types of its query's columns changed (%s): the table's columns took them.",
									   res.mode_reason ? res.mode_reason : "", retype_what);
			insert_sql = psprintf("INSERT INTO %s %s%s",
								  quote_qualified_identifier(dt->schema_name, dt->table_name),
								  dt->definition, own_buffer ? " RETURNING *" : "");
		}
		else if (!dt->has_data_snapshot && table_is_empty(dt, snapshot))
		{
			/*
			 * The first build of an empty table: nothing to compare with.  A
			 * table with aggregate state, or a top-N table with the state of
			 * its input's first rows, is written from its state, built
			 * first, so the sources are read once.  A table this transaction
			 * created without index, trigger or constraint (create_dynamic_table
			 * makes its indexes after the build) is filled as CREATE
			 * MATERIALIZED VIEW fills a view: a plan that may be parallel,
			 * rows written in bulk.
			 */
			char	   *projection;

			dv_restore_user(save_nestlevel, save_userid, save_sec);
			build_state_and_index(dt, snapshot, false, false);
			state_built = true;
			projection = dv_agg_state_projection(dt, snapshot);
			dv_run_as_owner(dt->owner, &save_nestlevel, &save_userid, &save_sec);
			build_query = projection ? projection : dt->definition;
			fill = !own_buffer && can_fill(dt);
			insert_sql = psprintf("INSERT INTO %s %s%s",
								  quote_qualified_identifier(dt->schema_name, dt->table_name),
								  build_query, own_buffer ? " RETURNING *" : "");
		}
		if (insert_sql == NULL)
		{
			/* the query once, the difference applied in one pass */
			Oid			diffrel = InvalidOid;

			/* (the temporary table is made outside the security-restricted operation) */
			dv_restore_user(save_nestlevel, save_userid, save_sec);
			if (full_refresh_in_parallel(dt))
				diffrel = full_diff_create(dt);
			dv_run_as_owner(dt->owner, &save_nestlevel, &save_userid, &save_sec);
			full_refresh_apply(dt, dt->definition, NULL, NULL, NULL, snapshot, own_buffer, diffrel,
							   &res, &seq);
		}
		else if (fill)
			res.rows_inserted = (int64) dv_exec_fill(build_query, snapshot, "refresh",
													 psprintf("%s.%s", dt->schema_name, dt->table_name),
													 dt->relid);
		else
		{
			res.rows_inserted = (int64) run_write(dt, insert_sql, snapshot,
												  own_buffer ? SPI_OK_INSERT_RETURNING : SPI_OK_INSERT);
			if (own_buffer)
				dv_write_own_buffer(dt, SPI_tuptable, (uint64) res.rows_inserted, +1, &seq);
		}
		/*
		 * A table restored from another database has no definition tree (its
		 * OIDs were that database's): the definition just ran, so its tree
		 * now is the one to follow renames with.
		 */
		if (dv_catalog_get_definition_tree(relid) == NULL)
			dv_catalog_set_definition_tree(relid, dv_definition_tree(dt->definition));
		dv_restore_user(save_nestlevel, save_userid, save_sec);
		build_state_and_index(dt, snapshot, apply_index_pending, state_built);
		/* (the definition as recomputed is the one the next refresh compares with) */
		(void) definition_changed(dt, false);
	}

	dv_guard_set_refreshing(InvalidOid, NIL);
	dv_refresh_mark_own_writes(false);
	res.state = "SUCCEED";
	res.data_snapshot = dv_snapshot_to_text(snapshot);
	res.end_time = GetCurrentTimestamp();
	*refreshed = true;
	dv_watch_refreshed(relid, dt->sources);
	return dv_history_insert(dt, trigger, &res);
}

/*
 * dv_refresh_empty - empty a dynamic table (a replaced definition built
 * later, initialize => false): no rows, no data snapshot.  Needs SPI.
 */
void
dv_refresh_empty(Oid relid)
{
	DvTable    *dt = dv_catalog_load(relid);
	int			save_nestlevel;
	Oid			save_userid;
	int			save_sec;
	int32		seq = 0;
	uint64		n;

	dv_lock_refresh_write(relid);
	dv_guard_set_refreshing(relid, dt->sources);
	dv_refresh_mark_own_writes(false);
	dv_run_as_owner(dt->owner, &save_nestlevel, &save_userid, &save_sec);
	n = run_write(dt, psprintf("DELETE FROM %s RETURNING *", quote_qualified_identifier(dt->schema_name, dt->table_name)),
				  GetTransactionSnapshot(), SPI_OK_DELETE_RETURNING);
	/* downstreams see the rows go */
	dv_write_own_buffer(dt, SPI_tuptable, n, -1, &seq);
	dv_restore_user(save_nestlevel, save_userid, save_sec);
	dv_guard_set_refreshing(InvalidOid, NIL);
	dv_agg_state_drop(relid);
	dv_catalog_clear_data(relid);
}

/*
 * check_no_concurrent_refresh - in a REPEATABLE READ or SERIALIZABLE
 * transaction the snapshot was taken before the locks: if another
 * transaction refreshed one of the tables since, this one cannot see that
 * refresh's data snapshot and state, and must not build on them.
 */
static void
check_no_concurrent_refresh(List *order, Snapshot snapshot)
{
	SPIPlanPtr	plan;
	Oid			types[1] = {OIDOID};
	ListCell   *lc;
	Oid			save_userid;
	int			save_sec;
	int			nestlevel;

	/* a catalog read (as dv_catalog_exec runs one), at this transaction's snapshot */
	GetUserIdAndSecContext(&save_userid, &save_sec);
	SetUserIdAndSecContext(BOOTSTRAP_SUPERUSERID, save_sec | SECURITY_LOCAL_USERID_CHANGE);
	nestlevel = dv_safe_search_path_push();
	/* (also a mark for a FULL refresh: the decoder may have pruned what it no longer holds) */
	plan = SPI_prepare("SELECT coalesce(data_snapshot::pg_catalog.text, '') || '/' || coalesce(next_refresh_full, '') "
					   "FROM dynview.dynamic_table_catalog WHERE relid OPERATOR(pg_catalog.=) $1::pg_catalog.regclass",
					   1, types);
	if (plan == NULL)
		elog(ERROR, "could not prepare the concurrent refresh check");
	foreach(lc, order)
	{
		Datum		values[1] = {ObjectIdGetDatum(lfirst_oid(lc))};
		char	   *seen = NULL;
		char	   *latest = NULL;

		if (SPI_execute_snapshot(plan, values, NULL, snapshot, InvalidSnapshot, true, false, 1) == SPI_OK_SELECT &&
			SPI_processed == 1)
			seen = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
		if (SPI_execute_snapshot(plan, values, NULL, GetLatestSnapshot(), InvalidSnapshot, true, false, 1) == SPI_OK_SELECT &&
			SPI_processed == 1)
			latest = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
		if (seen && latest && strcmp(seen, latest) != 0)
			ereport(ERROR,
					(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
					 errmsg("could not serialize access due to a concurrent refresh of dynamic table \"%s\"",
							get_rel_name(lfirst_oid(lc))),
					 errdetail("This transaction's snapshot was taken before another transaction refreshed the table."),
					 errhint("Retry the transaction, or refresh outside a REPEATABLE READ or SERIALIZABLE transaction.")));
	}
	SPI_freeplan(plan);
	dv_safe_search_path_pop(nestlevel);
	SetUserIdAndSecContext(save_userid, save_sec);
}

/*
 * reads_any - the first of the tables in list that the dynamic table reads
 * (directly or not), or InvalidOid if it reads none of them.
 */
static Oid
reads_any(Oid relid, List *list)
{
	ListCell   *lc;

	if (list == NIL)
		return InvalidOid;
	foreach(lc, dv_catalog_upstream_closure(relid))
	{
		if (lfirst_oid(lc) != relid && list_member_oid(list, lfirst_oid(lc)))
			return lfirst_oid(lc);
	}
	return InvalidOid;
}

static int
oid_cell_cmp(const ListCell *a, const ListCell *b)
{
	Oid			x = lfirst_oid(a);
	Oid			y = lfirst_oid(b);

	return (x > y) - (x < y);
}

/*
 * subscription_target - does a subscription's apply worker write relid?
 * Its writes pass no hook of dynview's.
 */
static bool
subscription_target(Oid relid)
{
	Relation	rel = table_open(SubscriptionRelRelationId, AccessShareLock);
	ScanKeyData key;
	SysScanDesc scan;
	bool		found;

	ScanKeyInit(&key, Anum_pg_subscription_rel_srrelid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(relid));
	scan = systable_beginscan(rel, SubscriptionRelSrrelidSrsubidIndexId, true, NULL, 1, &key);
	found = HeapTupleIsValid(systable_getnext(scan));
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return found;
}

/*
 * dv_refresh_skip_reason - does the error of a scheduled refresh mean "try
 * again at the next cycle" rather than a failure?  If so, the reason code
 * (LOCK_TIMEOUT: a lock was not granted within dynview.lock_timeout;
 * CAPTURE_UNAVAILABLE: the decoder of this database cannot run now) and the
 * history text in *reason; else NULL.  Skipped refreshes do not count
 * towards dynview.max_consecutive_failures, so a table is not suspended
 * while its database's change capture is down.
 */
const char *
dv_refresh_skip_reason(ErrorData *edata, char **reason)
{
	if (edata->sqlerrcode == ERRCODE_LOCK_NOT_AVAILABLE)
	{
		*reason = dv_lock_timeout_reason(edata->message);
		return "LOCK_TIMEOUT";
	}
	if ((edata->sqlerrcode == ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE ||
		 edata->sqlerrcode == ERRCODE_CONFIGURATION_LIMIT_EXCEEDED) && dv_capture_unavailable())
	{
		*reason = psprintf("%s%s%s The refresh is retried at the next cycle; dynview.cdc_status shows the decoder's state.",
						   edata->message, edata->detail ? ": " : ".", edata->detail ? edata->detail : "");
		return "CAPTURE_UNAVAILABLE";
	}
	return NULL;
}

/*
 * dv_refresh_pipeline - refresh relid and, first, every dynamic table it
 * reads (directly or not), all at one snapshot in the current transaction.
 * The upstreams' history rows say trigger UPSTREAM; relid's says trigger.
 *
 * Returns relid's history row.  Needs SPI.
 */
/*
 * keep_freed_memory - from the first refresh of this backend on (when
 * dynview.keep_freed_memory is on), glibc's malloc keeps the memory the
 * backend frees rather than returning it to the system at once.
 *
 * A refresh runs dozens of statements, each with its executor memory,
 * tuplestores of the windows and deltas, SPI results and hash tables; the
 * memory contexts free their blocks when a statement ends.  By default
 * malloc maps a block of more than 128 kB (raised dynamically up to 32 MB
 * as such blocks are freed) with mmap and unmaps it when it is freed, and
 * trims the top of its heap beyond twice that: the next statement's blocks
 * are new pages again, and every new page costs a page fault, expensive in
 * a virtual machine (bench/README.md, eighth session: a warm refresh at
 * TPC-H SF 0.3 takes 24-77% fewer page faults with this, and for most
 * queries 10-35% less CPU).  With the threshold fixed at 32 MB and the
 * trim threshold at 64 MB, the blocks come from the heap and are reused.
 * The price: a backend that refreshed keeps up to 64 MB of freed memory
 * for its later allocations (its resident size does not shrink back).
 * Process-wide and not undone (turning the setting off later keeps it for
 * this backend).  Only where malloc is glibc's.
 *
 * At the same time (a backend's first refresh: a new connection's, which
 * is how pg_cron and psql users refresh) the heap is grown by
 * PREFAULT_BYTES made resident in one madvise(MADV_POPULATE_WRITE) call:
 * such a refresh touches 400-1,300 new pages of memory (bench/README.md,
 * fifteenth session, branch s15-conn), and each first touch is a page
 * fault, each a trap into this virtual machine's hypervisor, where one
 * call populating 1,024 pages costs a fraction of that.  4 MB: 8 MB was
 * no faster for an INCREMENTAL refresh and slower for a NO_DATA one.
 */
#define PREFAULT_BYTES (4 * 1024 * 1024)
static void
keep_freed_memory(void)
{
#ifdef __GLIBC__
	static bool done = false;

	if (done || !dv_keep_freed_memory)
		return;
	(void) mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
	(void) mallopt(M_TRIM_THRESHOLD, 64 * 1024 * 1024);
	done = true;
#ifdef MADV_POPULATE_WRITE
	{
		char	   *block = malloc(PREFAULT_BYTES);
		uintptr_t	page = (uintptr_t) sysconf(_SC_PAGESIZE);

		/*
		 * Freed, the block stays at the top of the heap (below the trim
		 * threshold), its pages resident for the statements that follow.
		 * Where the kernel lacks MADV_POPULATE_WRITE (before Linux 5.14)
		 * madvise fails and the pages come one fault at a time, as before.
		 */
		if (block != NULL)
		{
			uintptr_t	start = TYPEALIGN(page, (uintptr_t) block);
			uintptr_t	end = TYPEALIGN_DOWN(page, (uintptr_t) block + PREFAULT_BYTES);

			(void) madvise((void *) start, end - start, MADV_POPULATE_WRITE);
			free(block);
		}
	}
#endif
#endif
}

Datum
dv_refresh_pipeline(Oid relid, DvRefreshTrigger trigger)
{
	List	   *order;
	List	   *lockorder;
	List	   *done = NIL;
	List	   *failed = NIL;
	List	   *skipped = NIL;	/* lock timeouts, capture down: retried, not failures */
	const char *skip_code = NULL;	/* the reason code of the last of them */
	ListCell   *lc;
	Snapshot	snapshot;
	TimestampTz taken_at;
	XLogRecPtr	lsn;
	Datum		result = (Datum) 0;
	bool		changed;

	/*
	 * Called by a trigger or function that a refresh statement runs: a
	 * refresh inside a refresh would change the table under the statement
	 * that is applying its delta.
	 */
	if (dv_guard_in_refresh_statement())
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cannot refresh dynamic table \"%s\" during a refresh", get_rel_name(relid)),
				 errdetail("A trigger, rule or function run by a refresh statement may not start a refresh."),
				 errhint("Refresh the table after the statement, or from dynview's scheduler.")));
	keep_freed_memory();

	/*
	 * A source that was dropped and has appeared again: record it, mark the
	 * table for a FULL refresh and track the new source, all before the
	 * snapshot is taken (design section 4).  A recreated upstream dynamic
	 * table joins the pipeline, so look again until nothing changes.
	 */
	do
	{
		changed = false;
		order = dv_catalog_upstream_closure(relid);
		foreach(lc, order)
		{
			DvTable    *dt = dv_catalog_load(lfirst_oid(lc));
			bool		recreated;
			char	   *missing;

			/* (before anything parses its definition: rewriting it fails then) */
			dv_refuse_row_security_off(dt, "refresh");
			missing = find_missing_sources(dt, &recreated);

			if (missing == NULL && !recreated)
				follow_renames(dt);

			/*
			 * (a table with a missing source refreshes NO_DATA: nothing to
			 * analyse).  FULL-mode tables too: they skip the recompute when
			 * no source changed, which a redefined view must prevent.
			 */
			if (missing == NULL && definition_changed(dt, true))
				changed = true;
			/* written by a subscription since, for all dynview knows */
			if (dt->next_refresh_full == NULL && subscription_target(dt->relid))
				dv_catalog_mark_changed_outside(dt->relid);
			if (missing == NULL && recreated)
			{
				DvAnalyzedQuery *aq;
				int			save_nestlevel;
				Oid			save_userid;
				int			save_sec;

				dv_catalog_set_next_full(dt->relid, "UPSTREAM_RECREATED");
				/* the sources with the columns the query reads, for their buffers */
				dv_run_as_owner(dt->owner, &save_nestlevel, &save_userid, &save_sec);
				aq = dv_analyze_query(dt->definition, dt->relid);

				/*
				 * The kept tree names the old source by OID: renames are
				 * followed in the source the definition now reads.
				 */
				dv_catalog_set_definition_tree(dt->relid, dv_definition_tree(dt->definition));
				dv_restore_user(save_nestlevel, save_userid, save_sec);
				dv_tracking_start(aq->sources, strcmp(dt->refresh_mode, "incremental") == 0);
				changed = true;
			}
		}
		CommandCounterIncrement();
	} while (changed);

	lockorder = list_copy(order);
	list_sort(lockorder, oid_cell_cmp);
	foreach(lc, lockorder)
		dv_lock_refresh_write(lfirst_oid(lc));

	/* S_new: taken after the locks; one for the whole pipeline */
	snapshot = RegisterSnapshot(GetTransactionSnapshot());
	if (IsolationUsesXactSnapshot())
		check_no_concurrent_refresh(order, snapshot);
	taken_at = GetCurrentTimestamp();
	lsn = dv_capture_position();	/* L: after every commit visible in S_new */
	/* (what each refresh writes for its downstreams is kept for those after it: incremental.c) */
	dv_handoff_begin(relid, order);
	foreach(lc, order)
	{
		Oid			oid = lfirst_oid(lc);
		Oid			upstream;
		bool		refreshed = false;
		DvRefreshTrigger t = oid == relid ? trigger : DV_TRIGGER_UPSTREAM;

		/* the scheduler's pg_stat_activity names the table (manual refreshes show the caller's query) */
		if (trigger == DV_TRIGGER_SYSTEM_SCHEDULED)
			pgstat_report_activity(STATE_RUNNING,
								   psprintf("dynview: refreshing dynamic table %s (pipeline of %s)",
											dv_relation_qualified_name(oid),
											dv_relation_qualified_name(relid)));
		/* see what the upstream refreshes before it wrote */
		CommandCounterIncrement();
		snapshot->curcid = GetCurrentCommandId(false);
		if (trigger != DV_TRIGGER_SYSTEM_SCHEDULED && (oid == relid || pg_class_ownercheck(oid, GetUserId()) ||
													   pg_class_aclcheck(oid, GetUserId(), ACL_SELECT) == ACLCHECK_OK))
		{
			/* a manual refresh: any error is the caller's */
			result = dv_refresh_one(oid, t, snapshot, lsn, &refreshed);
		}
		else if (trigger != DV_TRIGGER_SYSTEM_SCHEDULED)
		{
			/*
			 * An upstream the caller may not read, refreshed as its owner:
			 * its error text can carry its sources' values, which the caller
			 * must not see (as refresh_history hides them).
			 */
			MemoryContext oldcontext = CurrentMemoryContext;

			PG_TRY();
			{
				result = dv_refresh_one(oid, t, snapshot, lsn, &refreshed);
			}
			PG_CATCH();
			{
				ErrorData  *edata;

				MemoryContextSwitchTo(oldcontext);
				edata = CopyErrorData();
				FlushErrorState();
				ereport(ERROR,
						(errcode(edata->sqlerrcode),
						 errmsg("refresh of upstream dynamic table \"%s\" failed", get_rel_name(oid)),
						 errdetail("You may not read \"%s\", so its error is not shown.", get_rel_name(oid)),
						 errhint("Its owner sees the error when refreshing it.")));
			}
			PG_END_TRY();
		}
		else if (OidIsValid(upstream = reads_any(oid, skipped)))
		{
			dv_history_skipped(oid, t, skip_code,
							   strcmp(skip_code, "LOCK_TIMEOUT") == 0 ?
							   psprintf("Upstream dynamic table %s of this pipeline could not take a lock within dynview.lock_timeout; retried at the next cycle.",
										dv_relation_qualified_name(upstream)) :
							   psprintf("Upstream dynamic table %s of this pipeline was skipped: change capture cannot run now; retried at the next cycle.",
										dv_relation_qualified_name(upstream)));
			skipped = lappend_oid(skipped, oid);
		}
		else if (OidIsValid(upstream = reads_any(oid, failed)))
		{
			/* scheduled: an upstream failed, this table waits for the next cycle (its error is not shown: this table's readers may not read it) */
			dv_history_failure(oid, t, "UPSTREAM_FAILED",
							   psprintf("Upstream dynamic table %s of this pipeline failed to refresh; its own history row has the error.",
										dv_relation_qualified_name(upstream)));
			failed = lappend_oid(failed, oid);
		}
		else
		{
			/* scheduled: each table in a subtransaction; a failure leaves the others */
			MemoryContext oldcontext = CurrentMemoryContext;
			ResourceOwner oldowner = CurrentResourceOwner;

			BeginInternalSubTransaction(NULL);
			MemoryContextSwitchTo(oldcontext);
			PG_TRY();
			{
				result = dv_refresh_one(oid, t, snapshot, lsn, &refreshed);
				ReleaseCurrentSubTransaction();
				MemoryContextSwitchTo(oldcontext);
				CurrentResourceOwner = oldowner;
			}
			PG_CATCH();
			{
				ErrorData  *edata;
				char	   *reason;
				const char *code;

				edata = dv_subxact_caught(oldcontext, oldowner);
				code = dv_refresh_skip_reason(edata, &reason);

				if (code)
				{
					/* dynview.lock_timeout (scheduler.c), capture down: try again later */
					dv_history_skipped(oid, t, code, reason);
					skipped = lappend_oid(skipped, oid);
					skip_code = code;
				}
				else
				{
					dv_history_failure(oid, t, "FAILED", dv_error_text(edata));
					failed = lappend_oid(failed, oid);
				}
				refreshed = false;
			}
			PG_END_TRY();
		}
		if (refreshed)
		{
			done = lappend_oid(done, oid);
			dv_handoff_complete(oid);
		}
	}
	/* (what a refresh kept back from its buffer and a reader still needs is written) */
	dv_handoff_end(done);
	/* at the top level, when the transaction's own xids are all known */
	foreach(lc, done)
		dv_catalog_record_success(lfirst_oid(lc), snapshot, taken_at, lsn, "SUCCEED");
	UnregisterSnapshot(snapshot);
	return result;
}
