/*-------------------------------------------------------------------------
 *
 * grouprule.c
 *	  Which rule a grouped subquery operator follows: its groups kept in a
 *	  state, or its affected groups recomputed from its source through an
 *	  index (the index-recompute rule).
 *
 * A grouped subquery operator whose aggregates can be kept
 * (group_state_eligible in optree.c) keeps its groups in a state table
 * dynview_state.ext_<table oid>_<n>: each refresh looks up and rewrites
 * the state row of every changed group, and the table's creation (and each
 * FULL refresh) fills the state with one row per group of the whole
 * subquery.  Recomputing the affected groups instead (the rule without
 * state: the groups over the input now, +1, and as they were, -1) reads
 * the rows of each changed group twice; when the subquery reads one source
 * and its first group key leads an index of that source, those reads are
 * index lookups of a few rows, cheaper than the state's upkeep (TPC-H Q18:
 * lineitem's groups per l_orderkey, 4 rows each through lineitem's primary
 * key, against a state of 1.5 million groups at scale factor 1).
 *
 * The cost model is the planner's statistics of that source: the rows per
 * value of the first group key (the affected groups are found by that key:
 * optree.c group_sql), the non-NULL rows over the key column's n_distinct
 * (pg_statistic), or the NULL rows (one group) if more, or 1 where the key
 * alone is unique and not NULL (a unique index of that column alone).  The index-recompute rule is chosen when a
 * key value has at most DV_INDEX_RECOMPUTE_MAX_ROWS rows; without
 * statistics (never analysed) the state is kept, as before this rule.
 *
 * The choice is made when the state is built (the table's creation, a FULL
 * refresh) and kept until the next one: a state table that exists is read
 * and kept up to date (it is exact at the data snapshot: built then, kept
 * by every incremental refresh, dropped by FULL ones); an operator without
 * it recomputes its groups through the index as long as the index serves
 * (dv_optree_index_rule_serves: it is there, and the statistics give at most
 * 4 x the bound, so that statistics moving around the bound do not make
 * refreshes FULL), else the refresh is FULL (STATE_MISSING) and builds the
 * state.  The operator keeps its state number either way, so that the other
 * operators' states keep their names.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/relation.h"
#include "catalog/pg_class.h"
#include "catalog/pg_index.h"
#include "nodes/nodeFuncs.h"
#include "parser/parsetree.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

#include "dynview.h"
#include "analyze/optree.h"

/*
 * The most rows per value of the first group key for which a grouped
 * subquery recomputes its affected groups through an index instead of
 * keeping a state.  A changed group then costs about twice this many index
 * tuples read (its rows now and as they were), against one state row read,
 * rewritten and re-indexed; measured in bench/README.md (TPC-H Q18: 4 rows
 * per key).
 */
#define DV_INDEX_RECOMPUTE_MAX_ROWS 8

/*
 * key_index - a valid, non-partial index of rel whose first nkeys columns
 * (1 or 2) are attnos[], each compared by the equality eqops[] under
 * collations[] (its operator family has it): the one whose key is
 * shortest, InvalidOid if none.  *unique_alone (nkeys 1): it is unique on
 * that column alone.
 */
static Oid
key_index(Relation rel, int nkeys, const AttrNumber *attnos, const Oid *eqops, const Oid *collations,
		  bool *unique_alone)
{
	List	   *indexes = RelationGetIndexList(rel);
	Oid			best = InvalidOid;
	int			best_keys = 0;
	ListCell   *lc;

	*unique_alone = false;
	foreach(lc, indexes)
	{
		HeapTuple	tup = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(lfirst_oid(lc)));
		Form_pg_index idx;
		bool		isnull;
		bool		serves = true;
		Datum		d;
		oidvector  *indclass;
		oidvector  *indcoll;

		if (!HeapTupleIsValid(tup))
			continue;
		idx = (Form_pg_index) GETSTRUCT(tup);
		if (!idx->indisvalid || !idx->indisready || idx->indnkeyatts < nkeys ||
			!heap_attisnull(tup, Anum_pg_index_indpred, NULL))
		{
			ReleaseSysCache(tup);
			continue;
		}
		d = SysCacheGetAttr(INDEXRELID, tup, Anum_pg_index_indclass, &isnull);
		indclass = (oidvector *) DatumGetPointer(d);
		d = SysCacheGetAttr(INDEXRELID, tup, Anum_pg_index_indcollation, &isnull);
		indcoll = (oidvector *) DatumGetPointer(d);
		for (int i = 0; i < nkeys; i++)
		{
			if (idx->indkey.values[i] != attnos[i] ||
				!op_in_opfamily(eqops[i], get_opclass_family(indclass->values[i])) ||
				indcoll->values[i] != collations[i])
				serves = false;
		}
		if (serves)
		{
			/* (NULLs of a unique index are distinct: their group can be large) */
			if (nkeys == 1 && idx->indisunique && idx->indnkeyatts == 1 &&
				(idx->indnullsnotdistinct || TupleDescAttr(RelationGetDescr(rel), attnos[0] - 1)->attnotnull))
				*unique_alone = true;
			if (!OidIsValid(best) || idx->indnkeyatts < best_keys)
			{
				best = idx->indexrelid;
				best_keys = idx->indnkeyatts;
			}
		}
		ReleaseSysCache(tup);
	}
	list_free(indexes);
	return best;
}

/*
 * rows_per_value - the statistics' rows of rel per distinct value of
 * column attno: its non-NULL rows over n_distinct, or its NULL rows (one
 * group, found by IS NULL) if more; -1 if they have none
 */
static double
rows_per_value(Relation rel, AttrNumber attno)
{
	double		null_rows;
	double		rows = dv_rows_per_value(rel, attno, &null_rows);

	if (rows < 0)
		return null_rows > 0 ? null_rows : -1;
	return Max(rows, null_rows);
}

/*
 * assess_two_keys - for assess (below), when the first group key alone
 * reads too many rows per value: if the second group key is a column of
 * the same scan and an index leads with both (k1, k2), the affected groups
 * can be found by both keys (optree.c group_sql_over, by_pair), and the rows
 * per (k1, k2) value read are estimated as PostgreSQL's planner estimates
 * a number of groups without extended statistics: the columns independent,
 * the rows per k1 value spread over k2's distinct values (at least one
 * row), or the rows whose k1 or k2 is NULL if more (the groups with a NULL
 * key are found among them: optree.c KEYS_NULLS).
 * Sets op->index_rule_index, op->index_rows and op->index_rule_keys = 2 when
 * that is within the bound; leaves them otherwise.  Only with the setting
 * dynview.index_recompute_pairs (on by default since a change of the side
 * the keys are matched with reads only the changed keys' groups, optree.c
 * reach_group_sql: bench/README.md, twelfth session, s12-q20).
 * A subquery built without state under it and assessed without it later
 * recomputes by its first key while that index serves, else its refresh is
 * FULL (STATE_MISSING) and builds the state: exact either way.
 */
static void
assess_two_keys(DvOp *op, Relation rel, Var *v1, Oid eqop1, Oid coll1)
{
	DvPlan	   *inner = op->inner;
	Node	   *k2;
	Var		   *v2;
	Oid			eqop2;
	Oid			index;
	double		null1;
	double		null2;
	double		per1;
	double		per2;
	double		nonnull2;
	double		ndistinct2;
	double		rows;
	AttrNumber	attnos[2];
	Oid			eqops[2];
	Oid			colls[2];
	bool		unique_alone;

	if (list_length(inner->input_tlist) < 2)
		return;
	k2 = (Node *) lsecond_node(TargetEntry, inner->input_tlist)->expr;
	if (!IsA(k2, Var))
		return;
	v2 = (Var *) k2;
	if (v2->varlevelsup != 0 || v2->varno != v1->varno || v2->varattno <= 0 ||
		v2->varattno == v1->varattno)
		return;
	eqop2 = lookup_type_cache(exprType(k2), TYPECACHE_EQ_OPR)->eq_opr;
	if (!OidIsValid(eqop2))
		return;
	attnos[0] = v1->varattno;
	attnos[1] = v2->varattno;
	eqops[0] = eqop1;
	eqops[1] = eqop2;
	colls[0] = coll1;
	colls[1] = exprCollation(k2);
	index = key_index(rel, 2, attnos, eqops, colls, &unique_alone);
	if (!OidIsValid(index))
		return;
	per1 = dv_rows_per_value(rel, v1->varattno, &null1);
	per2 = dv_rows_per_value(rel, v2->varattno, &null2);
	if (per1 < 0 || per2 < 0)
		return;
	nonnull2 = rel->rd_rel->reltuples - null2;
	ndistinct2 = per2 > 0 ? nonnull2 / per2 : 0;
	rows = Max(1, per1 / Max(1, Min(ndistinct2, per1)));
	rows = Max(rows, null1 + null2);
	if (per1 == 0)
		rows = 0;
	if (rows <= DV_INDEX_RECOMPUTE_MAX_ROWS)
	{
		op->index_rule_index = index;
		op->index_rows = rows;
		op->index_rule_keys = 2;
	}
}

/*
 * dv_optree_index_rule_assess - for the grouped subquery operator op,
 * which can keep its groups in a state: the index through which its
 * affected groups would be recomputed and the rows per key value that
 * reads, by the statistics (op->index_rule_index, op->index_rows; -1 when
 * no index serves or there are no statistics).  An index serves when the
 * operator's input is one scan of a table (filtered or not; not an
 * inheritance parent read with its children) and its first group key is a
 * column of that table that leads the index, compared by the key type's
 * equality under the key's collation.  Reads the catalogs; needs a
 * transaction.
 */
void
dv_optree_index_rule_assess(DvOp *op)
{
	DvPlan	   *inner = op->inner;
	DvOp	   *scan;
	Node	   *k1;
	Var		   *v;
	RangeTblEntry *rte;
	Relation	rel;
	Oid			eqop;
	bool		unique_alone;

	op->index_rows = -1;
	op->index_rule_index = InvalidOid;
	op->index_rule_keys = 1;
	if (op->kind != DV_OP_GROUP || inner == NULL || inner->kind != DV_PLAN_GROUPED ||
		inner->input_tlist == NIL || inner->window_node || inner->tree == NULL)
		return;
	scan = inner->tree;
	while (scan->kind == DV_OP_FILTER)
		scan = scan->left;
	if (scan->kind != DV_OP_SCAN)
		return;
	k1 = (Node *) linitial_node(TargetEntry, inner->input_tlist)->expr;
	if (!IsA(k1, Var))
		return;
	v = (Var *) k1;
	if (v->varlevelsup != 0 || v->varno != scan->source->rtindex || v->varattno <= 0)
		return;
	rte = rt_fetch(v->varno, inner->level->rtable);
	if (rte->rtekind != RTE_RELATION || rte->relid != scan->source->relid)
		return;
	eqop = lookup_type_cache(exprType(k1), TYPECACHE_EQ_OPR)->eq_opr;
	if (!OidIsValid(eqop))
		return;
	rel = relation_open(rte->relid, AccessShareLock);
	if (rel->rd_rel->relkind == RELKIND_RELATION &&
		(!rel->rd_rel->relhassubclass || scan->source->only))
	{
		AttrNumber	attno = v->varattno;
		Oid			collation = exprCollation(k1);

		op->index_rule_index = key_index(rel, 1, &attno, &eqop, &collation, &unique_alone);
		if (OidIsValid(op->index_rule_index))
			op->index_rows = unique_alone ? 1 : rows_per_value(rel, v->varattno);
		if ((op->index_rows < 0 || op->index_rows > DV_INDEX_RECOMPUTE_MAX_ROWS) && dv_index_recompute_pairs)
			assess_two_keys(op, rel, v, eqop, exprCollation(k1));
	}
	relation_close(rel, AccessShareLock);
}

/*
 * dv_optree_index_rule_chosen - does op recompute its affected groups
 * through an index rather than keep a state, when its state is built (a
 * FULL refresh, the table's creation)?  At most DV_INDEX_RECOMPUTE_MAX_ROWS
 * rows per key value.
 */
bool
dv_optree_index_rule_chosen(DvOp *op)
{
	return op->kind == DV_OP_GROUP && op->state_id > 0 && OidIsValid(op->index_rule_index) &&
		op->index_rows >= 0 && op->index_rows <= DV_INDEX_RECOMPUTE_MAX_ROWS;
}

/*
 * dv_optree_index_rule_serves - may op, which has no state table (it was
 * not built: dv_optree_index_rule_chosen), go on recomputing its affected
 * groups through the index until the next FULL refresh?  While the index
 * serves and a key value has at most 4 x DV_INDEX_RECOMPUTE_MAX_ROWS rows
 * (so that statistics that move around the bound do not make refreshes
 * FULL one after the other); else the refresh is FULL and builds the state.
 */
bool
dv_optree_index_rule_serves(DvOp *op)
{
	return op->kind == DV_OP_GROUP && op->state_id > 0 && OidIsValid(op->index_rule_index) &&
		op->index_rows >= 0 && op->index_rows <= 4 * DV_INDEX_RECOMPUTE_MAX_ROWS;
}

/* why op recomputes its groups through its index (explain()), palloc'd */
char *
dv_optree_index_rule_reason(DvOp *op)
{
	DvOp	   *scan = op->inner->tree;
	Var		   *v = (Var *) linitial_node(TargetEntry, op->inner->input_tlist)->expr;

	while (scan->kind == DV_OP_FILTER)
		scan = scan->left;
	if (op->index_rule_keys == 2)
	{
		Var		   *v2 = (Var *) lsecond_node(TargetEntry, op->inner->input_tlist)->expr;

		return psprintf("its first two group keys %s, %s lead index %s of %s, about %.1f rows per pair of key values (statistics, the columns taken as independent; at most %d when its state is built): "
						"a changed group recomputed through the index by both keys costs less than a state's upkeep",
						quote_identifier(get_attname(scan->source->relid, v->varattno, false)),
						quote_identifier(get_attname(scan->source->relid, v2->varattno, false)),
						quote_identifier(get_rel_name(op->index_rule_index)), scan->source->qualified,
						op->index_rows, DV_INDEX_RECOMPUTE_MAX_ROWS);
	}
	return psprintf("its first group key %s leads index %s of %s, about %.1f rows per key value (statistics; at most %d when its state is built): "
					"a changed group recomputed through the index costs less than a state's upkeep",
					quote_identifier(get_attname(scan->source->relid, v->varattno, false)),
					quote_identifier(get_rel_name(op->index_rule_index)), scan->source->qualified,
					op->index_rows, DV_INDEX_RECOMPUTE_MAX_ROWS);
}
