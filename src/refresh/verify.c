/*-------------------------------------------------------------------------
 *
 * verify.c
 *	  dynview.verify(): the oracle of every test.  Recomputes a dynamic
 *	  table's query at its data snapshot and compares the result with the
 *	  table's contents as a multiset.
 *
 * Rows are compared by their text form (record_out), which is stricter than
 * equality (1.0 and 1.00, 0 and -0 differ) and works for every type; then,
 * when every column's type has an equality, also as a multiset by equality
 * (EXCEPT ALL), which sees values that print alike but differ.  The data
 * snapshot is rebuilt from the catalog (pg_snapshot plus the in-progress
 * subtransactions it had); it sees exactly what the refresh saw unless a row
 * version it needs was pruned meanwhile (a row changed after the refresh and
 * vacuumed), which can only cause a reported difference, never a missed one
 * for rows the refresh wrote.  So a difference is reported as such (false)
 * only when no such row version can have been removed or hidden: in the
 * REPEATABLE READ transaction that refreshed the table (rows_held), or when
 * no transaction that the data snapshot does not see wrote a source.
 * Otherwise verify cannot tell, and returns NULL with a WARNING that says
 * why and how to verify reliably (the refresh and verify in one REPEATABLE
 * READ transaction, whose snapshot holds the removal horizon back).  A
 * difference is not reported either when a source was altered since the
 * table's last refresh, or written by this transaction since
 * (unreadable_source): NULL and a WARNING that says what to do.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_inherits.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/typcache.h"

#include "dynview.h"

#define VERIFY_MAX_REPORTED 10

typedef struct RowCount
{
	char	   *row;
	int64		count;
} RowCount;

static int
rowcount_cmp(const void *a, const void *b)
{
	return strcmp(((const RowCount *) a)->row, ((const RowCount *) b)->row);
}

/* run "SELECT text, count" and return its rows sorted by text */
static RowCount *
fetch_counts(const char *sql, Snapshot snapshot, int *n)
{
	SPIPlanPtr	plan = SPI_prepare(sql, 0, NULL);
	RowCount   *rows;
	int			rc;

	if (plan == NULL)
		elog(ERROR, "could not prepare verify statement: %s", SPI_result_code_string(SPI_result));
	rc = SPI_execute_snapshot(plan, NULL, NULL, snapshot, InvalidSnapshot, true, false, 0);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "verify statement failed: %s", SPI_result_code_string(rc));
	*n = (int) SPI_processed;
	rows = palloc(sizeof(RowCount) * Max(*n, 1));
	for (int i = 0; i < *n; i++)
	{
		bool		isnull;

		rows[i].row = SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1);
		rows[i].count = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2, &isnull));
	}
	qsort(rows, *n, sizeof(RowCount), rowcount_cmp);
	SPI_freeplan(plan);
	return rows;
}

/* has every column of the table a type with an equality (EXCEPT ALL needs one)? */
static bool
has_equality(Oid relid)
{
	Relation	rel = relation_open(relid, AccessShareLock);
	TupleDesc	desc = RelationGetDescr(rel);
	bool		all = true;

	for (int i = 0; i < desc->natts && all; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (!att->attisdropped &&
			!OidIsValid(lookup_type_cache(att->atttypid, TYPECACHE_EQ_OPR)->eq_opr))
			all = false;
	}
	relation_close(rel, AccessShareLock);
	return all;
}

/*
 * differ_by_equality - how many rows the table and its query at the data
 * snapshot differ by, compared as multisets by equality: the table's rows
 * (read now) become an ephemeral relation, so that one statement at the
 * data snapshot can take EXCEPT ALL both ways.  Runs as the table's owner.
 */
static int64
differ_by_equality(DvTable *dt, const char *target)
{
	/* (a fresh copy: a snapshot that was active once is freed when popped) */
	Snapshot	data_snapshot = dv_catalog_data_snapshot(dt->relid);
	int			save_nestlevel;
	Oid			save_userid;
	int			save_sec;
	SPIPlanPtr	plan;
	bool		isnull;
	int64		n;

	dv_run_as_owner(dt->owner, &save_nestlevel, &save_userid, &save_sec);
	PushActiveSnapshot(GetTransactionSnapshot());
	if (SPI_execute(psprintf("SELECT * FROM %s", target), true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read dynamic table \"%s\"", dt->table_name);
	PopActiveSnapshot();
	dv_register_tuples("dv_verify_rows");
	/* (the relation is scanned once: a second scan of its tuplestore would find it read) */
	plan = SPI_prepare(psprintf("WITH dv_t AS MATERIALIZED (SELECT * FROM dv_verify_rows), "
								"dv_q AS MATERIALIZED (%s) "
								"SELECT pg_catalog.count(*) FROM ("
								"(SELECT * FROM dv_t EXCEPT ALL SELECT * FROM dv_q) "
								"UNION ALL (SELECT * FROM dv_q EXCEPT ALL SELECT * FROM dv_t)) dv_x",
								dt->definition),
					   0, NULL);
	if (plan == NULL)
		elog(ERROR, "could not prepare verify statement: %s", SPI_result_code_string(SPI_result));
	if (SPI_execute_snapshot(plan, NULL, NULL, data_snapshot, InvalidSnapshot, true, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "verify statement failed");
	n = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	SPI_freeplan(plan);
	dv_unregister_tuples("dv_verify_rows");
	dv_restore_user(save_nestlevel, save_userid, save_sec);
	return n;
}

/*
 * rows_held - are the row versions the data snapshot sees certainly still
 * there?  Only in a REPEATABLE READ or SERIALIZABLE transaction that took
 * the data snapshot itself (the table was refreshed in it): its snapshot
 * has held the removal horizon back since before the refresh.  The horizon
 * as this backend computes it now says nothing: its own statement's xmin
 * (held back by any transaction running, also in another database, which
 * does not hold back VACUUM here) counts in it, and VACUUM leaves its own
 * and other VACUUMs' xmin out; a page VACUUM marked all-visible is then read
 * by an old snapshot as if every row on it were visible to it.
 */
static bool
rows_held(DvTable *dt, Snapshot data_snapshot)
{
	return data_snapshot == NULL ||
		(IsolationUsesXactSnapshot() && dv_refreshed_in_this_transaction(dt));
}

/* the WARNING of a verify that cannot tell (rows not held, a source changed) */
static void
cannot_tell(DvTable *dt, int64 ndiff)
{
	ereport(WARNING,
			(errcode(ERRCODE_SNAPSHOT_TOO_OLD),
			 errmsg("cannot verify dynamic table \"%s.%s\": its query at its data snapshot differs in %lld rows, but row versions that snapshot sees may have been removed",
					dt->schema_name, dt->table_name, (long long) ndiff),
			 errdetail("A source was changed after the data snapshot, outside a REPEATABLE READ transaction that refreshed the table: pruning or VACUUM may have removed (or marked all-visible) row versions the recomputation needs, so the difference may not be real."),
			 errhint("Refresh and verify in one REPEATABLE READ transaction: BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT dynview.refresh(...); SELECT dynview.verify(...); COMMIT;")));
}

/*
 * unreadable_source - a difference found, may it come from what the table
 * is known to lack?  Then verify cannot tell, whatever the isolation level,
 * and a WARNING says why and what to do:
 *	- a source altered since the table's last refresh (its signature
 *	  differs from the one the refresh recorded: a column's type, a column
 *	  added or dropped, a key, a rewrite or TRUNCATE), or the table marked
 *	  for a FULL refresh for its sources' sake (SOURCE_PARTITIONS_CHANGED,
 *	  DEFINITION_CHANGED, UPSTREAM_RECREATED, RESTORED): the next refresh
 *	  recomputes it in full, and until then the data snapshot may read the
 *	  sources otherwise than the refresh did (a rewrite is not MVCC-safe: its
 *	  rows carry the later transaction's xid; a type's output changed; a
 *	  partition attached holds rows from before);
 *	- a source table this transaction may have written since the table's
 *	  last refresh in it (or at all, when the table was not refreshed in it):
 *	  the data snapshot is read with the transaction's own changes, which
 *	  the table lacks.  Told by the transaction's write watch (txnwatch.c)
 *	  where the table was refreshed in the transaction, else by a write lock
 *	  held on the source (a lock that writes take, taken without a write,
 *	  counts too).
 * A table written by other than its refreshes (CHANGED_OUTSIDE_REFRESH)
 * differs for real: reported as false.
 */
static bool
unreadable_source(DvTable *dt, int64 ndiff)
{
	char	   *altered = dv_catalog_source_altered(dt->relid);
	const char *pending = dt->next_refresh_full;
	bool		refreshed_here = dv_refreshed_in_this_transaction(dt);
	ListCell   *lc;

	if (altered != NULL ||
		(pending != NULL && strcmp(pending, "CHANGED_OUTSIDE_REFRESH") != 0 &&
		 strcmp(pending, "CHANGE_RETENTION_EXCEEDED") != 0))
	{
		ereport(WARNING,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 altered ?
				 errmsg("cannot verify dynamic table \"%s.%s\": its query at its data snapshot differs in %lld rows, but its source %s was altered after its last refresh",
						dt->schema_name, dt->table_name, (long long) ndiff, altered) :
				 errmsg("cannot verify dynamic table \"%s.%s\": its query at its data snapshot differs in %lld rows, but its next refresh is FULL (%s)",
						dt->schema_name, dt->table_name, (long long) ndiff, pending),
				 errdetail("The table is as its last refresh left it, and its next refresh recomputes it in full; until then its sources may read otherwise at its data snapshot (a table rewrite is not MVCC-safe, a column's type or a partition may have changed)."),
				 errhint("Refresh the table, then verify it.")));
		return true;
	}
	foreach(lc, dt->sources)
	{
		DvSource   *src = lfirst(lc);
		List	   *rels;
		ListCell   *lr;

		/* (an upstream dynamic table is written by refreshes only: its rows are what they are) */
		if (!OidIsValid(src->relid) || src->is_dynamic || get_rel_relkind(src->relid) == RELKIND_VIEW)
			continue;
		rels = find_all_inheritors(src->relid, NoLock, NULL);
		foreach(lr, rels)
		{
			Oid			relid = lfirst_oid(lr);

			if (refreshed_here ? !dv_watch_changed_since(dt->relid, relid) : !dv_holds_write_lock(relid))
				continue;
			ereport(WARNING,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("cannot verify dynamic table \"%s.%s\": its query at its data snapshot differs in %lld rows, but this transaction may have changed its source %s since the table's last refresh",
							dt->schema_name, dt->table_name, (long long) ndiff,
							dv_relation_qualified_name(relid)),
					 errdetail("The query is read at the data snapshot with this transaction's own changes, which the table lacks until it is refreshed again; the transaction wrote the source, or holds a lock that writes take on it."),
					 errhint("Verify before changing a source or after COMMIT, or refresh the table first.")));
			return true;
		}
	}
	return false;
}

/*
 * dv_verify - true when the table equals its query at its data snapshot;
 * otherwise a WARNING lists up to 10 differing rows.  Needs SPI.  The query
 * runs as the table's owner; the rows are listed only to the owner (and
 * members of the owning role): the query and the table are read with the
 * owner's rights, and row-level security on the table may hide rows from
 * the caller.  *unknown is set when a difference may come from row versions
 * removed since the refresh (header comment): the result is then NULL.
 */
bool
dv_verify(Oid relid, bool *unknown)
{
	DvTable    *dt = dv_catalog_load(relid);
	Snapshot	data_snapshot = dv_catalog_data_snapshot(relid);
	char	   *target = quote_qualified_identifier(dt->schema_name, dt->table_name);
	RowCount   *query_rows = NULL;
	RowCount   *table_rows;
	int			nquery = 0;
	int			ntable;
	int			i = 0;
	int			j = 0;
	int			ndiff = 0;
	StringInfoData detail;
	ListCell   *lc;
	int			save_nestlevel;
	Oid			save_userid;
	int			save_sec;
	bool		show_rows = pg_class_ownercheck(relid, GetUserId());
	bool		passed;

	*unknown = false;
	/* (a partition runs its parent's query as its owner: one owned by another role is refused) */
	dv_check_partition_owned(relid);
	passed = !rows_held(dt, data_snapshot);
	foreach(lc, dt->sources)
	{
		DvSource   *src = lfirst(lc);

		char	   *renamed = NULL;

		if (!OidIsValid(src->relid) || get_rel_name(src->relid) == NULL ||
			dv_source_renamed_away(dt, src, &renamed))
		{
			Oid			nsp = get_namespace_oid(src->schema_name, true);

			/* (one of that name exists: after a restore, or dropped and created again) */
			if (renamed == NULL && OidIsValid(nsp) && OidIsValid(get_relname_relid(src->table_name, nsp)))
				ereport(ERROR,
						(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
						 errmsg("cannot verify dynamic table \"%s.%s\": its source %s is not linked to it yet",
								dt->schema_name, dt->table_name,
								quote_qualified_identifier(src->schema_name, src->table_name)),
						 errdetail("The table's catalog names another relation of that name: the database was restored from a dump, or the source was dropped and created again."),
						 errhint("Refresh the table first: the refresh links the source of that name (a FULL refresh), then verify it.")));
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("cannot verify dynamic table \"%s.%s\": its source %s does not exist",
							dt->schema_name, dt->table_name,
							quote_qualified_identifier(src->schema_name, src->table_name)),
					 errhint("The table keeps the data of its last refresh; verify it again once the source exists and the table was refreshed.")));
		}
	}

	dv_run_as_owner(dt->owner, &save_nestlevel, &save_userid, &save_sec);
	dv_refuse_row_security_off(dt, "verify");
	if (data_snapshot != NULL)
		query_rows = fetch_counts(psprintf("SELECT ROW(dv_q.*)::text, pg_catalog.count(*) FROM (%s) dv_q GROUP BY 1",
										   dt->definition), data_snapshot, &nquery);
	PushActiveSnapshot(GetTransactionSnapshot());
	table_rows = fetch_counts(psprintf("SELECT ROW(dv_t.*)::text, pg_catalog.count(*) FROM %s dv_t GROUP BY 1", target),
							  GetActiveSnapshot(), &ntable);
	PopActiveSnapshot();
	dv_restore_user(save_nestlevel, save_userid, save_sec);

	initStringInfo(&detail);
	while (i < nquery || j < ntable)
	{
		int			c;
		const char *row;
		int64		in_query = 0;
		int64		in_table = 0;

		if (i >= nquery)
			c = 1;
		else if (j >= ntable)
			c = -1;
		else
			c = strcmp(query_rows[i].row, table_rows[j].row);
		if (c <= 0)
		{
			row = query_rows[i].row;
			in_query = query_rows[i++].count;
		}
		else
			row = table_rows[j].row;
		if (c >= 0)
			in_table = table_rows[j++].count;
		if (in_query != in_table)
		{
			if (ndiff < VERIFY_MAX_REPORTED)
				appendStringInfo(&detail, "%s%s: %lld in the table, %lld in the query",
								 ndiff ? "\n" : "", row, (long long) in_table, (long long) in_query);
			ndiff++;
		}
	}
	if (ndiff > 0 && unreadable_source(dt, ndiff))
	{
		*unknown = true;
		return false;
	}
	if (ndiff > 0 && passed && dv_sources_changed_after(dt))
	{
		cannot_tell(dt, ndiff);
		*unknown = true;
		return false;
	}
	if (ndiff > 0)
	{
		if (show_rows)
			ereport(WARNING,
					(errmsg("dynamic table \"%s.%s\" differs from its query at its data snapshot in %d rows",
							dt->schema_name, dt->table_name, ndiff),
					 errdetail_internal("%s", detail.data)));
		else
			ereport(WARNING,
					(errmsg("dynamic table \"%s.%s\" differs from its query at its data snapshot in %d rows",
							dt->schema_name, dt->table_name, ndiff),
					 errdetail("The differing rows are shown to the table's owner only.")));
		return false;
	}
	if (data_snapshot != NULL && has_equality(dt->relid))
	{
		int64		nequal = differ_by_equality(dt, target);

		if (nequal > 0 && unreadable_source(dt, nequal))
		{
			*unknown = true;
			return false;
		}
		if (nequal > 0 && passed && dv_sources_changed_after(dt))
		{
			cannot_tell(dt, nequal);
			*unknown = true;
			return false;
		}
		if (nequal > 0)
		{
			ereport(WARNING,
					(errmsg("dynamic table \"%s.%s\" differs from its query at its data snapshot in %lld rows compared by equality",
							dt->schema_name, dt->table_name, (long long) nequal),
					 errdetail("Their text is the same; a value prints alike but is not equal.")));
			return false;
		}
	}
	return true;
}
