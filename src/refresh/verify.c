/*-------------------------------------------------------------------------
 *
 * verify.c
 *	  dynview.verify(): the oracle of every test.  Recomputes a dynamic
 *	  table's query at its data snapshot and compares the result with the
 *	  table's contents as a multiset.
 *
 * Rows are compared by their text form (record_out), which is stricter than
 * equality (1.0 and 1.00 differ) and works for every type.  The data
 * snapshot is rebuilt from the catalog (pg_snapshot plus the in-progress
 * subtransactions it had); it sees exactly what the refresh saw unless a row
 * version it needs was pruned meanwhile (a row changed after the refresh and
 * vacuumed), which can only cause a reported difference, never a missed one
 * for rows the refresh wrote.  Call it right after a refresh.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/snapmgr.h"

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

/*
 * dv_verify - true when the table equals its query at its data snapshot;
 * otherwise a WARNING lists up to 10 differing rows.  Needs SPI.  The query
 * runs as the table's owner.
 */
bool
dv_verify(Oid relid)
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

	foreach(lc, dt->sources)
	{
		DvSource   *src = lfirst(lc);

		char	   *renamed = NULL;

		if (!OidIsValid(src->relid) || get_rel_name(src->relid) == NULL ||
			dv_source_renamed_away(dt, src, &renamed))
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("cannot verify dynamic table \"%s.%s\": its source %s does not exist",
							dt->schema_name, dt->table_name,
							quote_qualified_identifier(src->schema_name, src->table_name)),
					 errhint("The table keeps the data of its last refresh; verify it again once the source exists and the table was refreshed.")));
	}

	dv_run_as_owner(dt->owner, &save_nestlevel, &save_userid, &save_sec);
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
	if (ndiff > 0)
		ereport(WARNING,
				(errmsg("dynamic table \"%s.%s\" differs from its query at its data snapshot in %d rows",
						dt->schema_name, dt->table_name, ndiff),
				 errdetail_internal("%s", detail.data)));
	return ndiff == 0;
}
