/*-------------------------------------------------------------------------
 *
 * deltastats.c
 *	  Column statistics of the ephemeral named relations a refresh's
 *	  statements read (its windows of changes, the rows of its states), for
 *	  PostgreSQL's planner (issue 14: the dashboard's detail layer).
 *
 * The planner has no statistics for an ephemeral relation: it knows its row
 * count (the range table entry's enrtuples) and nothing of its columns.  An
 * estimate that needs the number of distinct values of such a column then
 * uses PostgreSQL's defaults; the one that matters is the hash join's
 * (estimate_hash_bucket_stats): with no distinct count it assumes a tenth
 * of the hashed rows share each probe's bucket, so hashing a window of a
 * thousand changes looks a hundred times dearer than it is, and the planner
 * hashes the other side instead, whole.  The dashboard's detail layer hashed
 * its 10,000 products at every refresh to join 1,234 changed orders (1.9 ms
 * of its 14) where hashing the changes and reading the products once costs
 * half of that.
 *
 * So, while dynview.delta_statistics is on, get_relation_stats_hook answers
 * for the columns of the ephemeral relations registered by a refresh
 * (incremental.c, dv_register_store) with a pg_statistic row of its own
 * making: the fraction of NULLs and the number of distinct values, counted
 * over the relation's rows when the planner first asks for that column
 * (dv_registered_column_stats: rows in memory, at most 100,000), as a
 * negative stadistinct (a fraction of the rows).  No histogram nor most
 * common values.  Other range table entries, and relations of other names,
 * shapes or transactions, are left to the hook installed before ours (or
 * to PostgreSQL).  Statistics only steer the plan; a statement's result is
 * the same with or without them.  A statement's kept plan
 * (statements.c) depends on them: the shape of each relation it names
 * records whether they were given.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/pg_statistic.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/selfuncs.h"

#include "dynview.h"

static get_relation_stats_hook_type prev_get_relation_stats_hook = NULL;
static TupleDesc statistic_desc = NULL;	/* pg_statistic's, in TopMemoryContext */

/* a pg_statistic row of column attnum: nullfrac and stadistinct only */
static HeapTuple
statistics_row(AttrNumber attnum, double nullfrac, double stadistinct)
{
	Datum		values[Natts_pg_statistic];
	bool		nulls[Natts_pg_statistic];

	if (statistic_desc == NULL)
	{
		Relation	rel = table_open(StatisticRelationId, AccessShareLock);
		MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

		statistic_desc = CreateTupleDescCopy(RelationGetDescr(rel));
		MemoryContextSwitchTo(old);
		table_close(rel, AccessShareLock);
	}
	memset(values, 0, sizeof(values));
	memset(nulls, false, sizeof(nulls));
	values[Anum_pg_statistic_starelid - 1] = ObjectIdGetDatum(InvalidOid);
	values[Anum_pg_statistic_staattnum - 1] = Int16GetDatum(attnum);
	values[Anum_pg_statistic_stainherit - 1] = BoolGetDatum(false);
	values[Anum_pg_statistic_stanullfrac - 1] = Float4GetDatum((float4) nullfrac);
	values[Anum_pg_statistic_stawidth - 1] = Int32GetDatum(0);
	values[Anum_pg_statistic_stadistinct - 1] = Float4GetDatum((float4) stadistinct);
	/* stakindN, staopN, stacollN: 0, no slot; stanumbersN, stavaluesN: NULL */
	for (int i = 0; i < STATISTIC_NUM_SLOTS; i++)
	{
		nulls[Anum_pg_statistic_stanumbers1 - 1 + i] = true;
		nulls[Anum_pg_statistic_stavalues1 - 1 + i] = true;
	}
	return heap_form_tuple(statistic_desc, values, nulls);
}

static void
free_statistics_row(HeapTuple tuple)
{
	heap_freetuple(tuple);
}

static bool
delta_stats_hook(PlannerInfo *root, RangeTblEntry *rte, AttrNumber attnum,
				 VariableStatData *vardata)
{
	double		distinct;
	double		nulls;

	if (rte->rtekind == RTE_NAMEDTUPLESTORE && dv_delta_statistics && attnum > 0 &&
		rte->enrtuples > 0 &&
		dv_registered_column_stats(rte->enrname, rte->coltypes, rte->enrtuples, attnum,
								   &distinct, &nulls))
	{
		double		rows = rte->enrtuples;

		/*
		 * As ANALYZE would store a count that grows with the rows: a
		 * fraction of them (all non-NULL values distinct: -(1 - nullfrac)).
		 * No value: no distinct count, as for an all-NULL column.
		 */
		vardata->statsTuple = statistics_row(attnum, nulls / rows,
											 distinct > 0 ? -(distinct / rows) : 0);
		vardata->freefunc = free_statistics_row;
		vardata->acl_ok = true;
		return true;
	}
	if (prev_get_relation_stats_hook)
		return prev_get_relation_stats_hook(root, rte, attnum, vardata);
	return false;
}

/*
 * dv_delta_stats_init - install the hook (_PG_init)
 */
void
dv_delta_stats_init(void)
{
	prev_get_relation_stats_hook = get_relation_stats_hook;
	get_relation_stats_hook = delta_stats_hook;
}
