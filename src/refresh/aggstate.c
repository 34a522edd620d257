/*-------------------------------------------------------------------------
 *
 * aggstate.c
 *	  Aggregates kept in place (design section 6): the per-group state of a
 *	  GROUP BY (or global) aggregate query lives in a state table
 *	  dynview_state.agg_<relid>, never in the user-visible table, and an
 *	  incremental refresh adds the weighted delta of the aggregation's input
 *	  to it instead of recomputing the groups.
 *
 * The state table has one row per group (exactly one for a global
 * aggregate, also over empty input):
 *	g1..gn		  the group keys
 *	dv_count	  rows in the group (a group whose count reaches 0 disappears)
 *	dv_recompute  set while the group must be recomputed from the sources
 *	a1..am		  the value of each aggregate, as the query would compute it
 *	n<j>, s<j>	  non-null count (sum, avg, min, max, bool_*, variance family)
 *				  and exact sum (avg, variance family)
 *	q<j>		  variance family: exact sum of squares
 *	sc<j>		  sum/avg of numeric without a declared scale: the live inputs
 *				  counted per display scale (see scale_unit)
 *	nt<j>		  bool_and/bool_or: the true inputs (false ones are n - nt)
 * (An aggregate without GROUP BY inside the query, a subquery operator,
 * keeps dynview_state.ext_<relid>_<n>: analyze/optree.h; built here too.)
 * count(DISTINCT x) keeps multiplicities in dynview_state.dist_<relid>_<j>,
 * either one row per group and value (g1..gn, v, dv_mult) or, when the
 * planner estimates few values per group (dynview.distinct_values_per_row,
 * choose_arrays), one row per group (g1..gn, vs, ms): its non-null values
 * and their multiplicities as two arrays of one order; a value counts when
 * its multiplicity goes 0 -> n and stops at n -> 0.  min/max take
 * least/greatest of inserted values; a
 * change that removes the current extreme flags the group for recompute,
 * which reads only that group's input at the refresh's snapshot.  (The
 * comparisons use the state column's collation, which is the aggregate's
 * input collation, as is the delta's: no explicit COLLATE, which PostgreSQL
 * would resolve across the MERGE's SET list.)
 *
 * The state is built by every FULL refresh of an incremental table (at the
 * same snapshot, so it always matches the data snapshot) and dropped with
 * the table.  State tables are members of the extension and owned by the
 * dynamic table's owner, as whom refreshes read and write them.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/table.h"
#include "access/transam.h"
#include "access/xact.h"
#include "catalog/dependency.h"
#include "catalog/namespace.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "commands/matview.h"
#include "commands/vacuum.h"
#include "executor/executor.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "libpq/pqformat.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "parser/parse_oper.h"
#include "tcop/tcopprot.h"
#include "utils/acl.h"
#include "utils/guc.h"
#include "utils/ruleutils.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/typcache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/syscache.h"
#include "access/genam.h"
#include "access/htup_details.h"
#include "access/stratnum.h"
#include "catalog/indexing.h"
#include "utils/fmgroids.h"

#include "dynview.h"
#include "cdc/cdc.h"
#include "analyze/delta.h"
#include "analyze/optree.h"

#define DV_STATE_SCHEMA "dynview_state"

static char *
state_name(Oid relid)
{
	return psprintf("agg_%u", relid);
}

static char *
dist_name(Oid relid, int j)
{
	return psprintf("dist_%u_%d", relid, j);
}

static char *
qualified_state(const char *name)
{
	return psprintf("%s.%s", DV_STATE_SCHEMA, quote_identifier(name));
}

/* top-N: the input's first rows (topn_) and the row they sort before (topnb_) */
static char *
topn_name(Oid relid)
{
	return psprintf("topn_%u", relid);
}

static char *
topn_bound_name(Oid relid)
{
	return psprintf("topnb_%u", relid);
}

/* the state table of dynamic table relid, InvalidOid if it has none */
Oid
dv_agg_state_relid(Oid relid)
{
	Oid			nsp = get_namespace_oid(DV_STATE_SCHEMA, true);

	if (!OidIsValid(nsp))
		return InvalidOid;
	return get_relname_relid(state_name(relid), nsp);
}

/*
 * state_table_owner - the owner of state table name (unqualified, in
 * dynview_state), InvalidOid when there is no such table
 */
static Oid
state_table_owner(const char *name)
{
	Oid			nsp = get_namespace_oid(DV_STATE_SCHEMA, true);
	Oid			relid = OidIsValid(nsp) ? get_relname_relid(name, nsp) : InvalidOid;

	return OidIsValid(relid) ? dv_rel_owner(relid) : InvalidOid;
}

/*
 * dv_agg_state_usable - are the state tables of plan there and owned by the
 * table's owner?  If not, *reason says why (the caller refreshes in full,
 * which rebuilds them).
 */
bool
dv_agg_state_usable(DvTable *dt, DvPlan *plan, char **reason)
{
	Oid			nsp = get_namespace_oid(DV_STATE_SCHEMA, true);
	ListCell   *lc;
	List	   *names = list_make1(state_name(dt->relid));

	foreach(lc, plan->aggs)
	{
		DvAgg	   *agg = lfirst(lc);
		char	   *dist = dist_name(dt->relid, foreach_current_index(lc) + 1);

		if (agg->kind == DV_AGG_COUNT_DISTINCT)
			names = lappend(names, dist);

		/*
		 * A count(DISTINCT x) kept as count(x) because x is a key of the
		 * input (delta.c) must not continue a state built while it was not
		 * (a unique index created on a source since): that state counted
		 * each value once, and adding the changes' non-null counts to it
		 * would be wrong if the values repeated then.  A state built by
		 * multiplicities has their table.
		 */
		if (agg->distinct_by_key && OidIsValid(nsp) && OidIsValid(get_relname_relid(dist, nsp)))
		{
			*reason = psprintf("count(DISTINCT) argument %d became a unique key of the input since the aggregate state was built; the state was rebuilt without its multiplicities with a full refresh.",
							   foreach_current_index(lc) + 1);
			return false;
		}
	}
	foreach(lc, names)
	{
		Oid			owner = state_table_owner(lfirst(lc));

		if (!OidIsValid(owner))
		{
			*reason = psprintf("The table's aggregate state %s.%s was missing (dropped, or not restored); it was rebuilt with a full refresh.",
							   DV_STATE_SCHEMA, (char *) lfirst(lc));
			return false;
		}
		if (owner != dt->owner)
		{
			*reason = pstrdup("The table's owner changed; its aggregate state was rebuilt, owned by the new owner, with a full refresh.");
			return false;
		}
	}

	/*
	 * The state keeps scale counts sc<j> exactly for the sums the plan
	 * tracks scales of: a state built by a version that tracked others (or
	 * fewer) does not fit the plan's statements.
	 */
	foreach(lc, plan->aggs)
	{
		DvAgg	   *agg = lfirst(lc);
		int			j = foreach_current_index(lc) + 1;

		if ((get_attnum(get_relname_relid(state_name(dt->relid), nsp), psprintf("sc%d", j)) != InvalidAttrNumber) !=
			agg->scale_tracked)
		{
			*reason = psprintf("The table's aggregate state was built %s scale counts for aggregate %d, which its plan now %s; it was rebuilt with a full refresh.",
							   agg->scale_tracked ? "without" : "with", j,
							   agg->scale_tracked ? "keeps" : "does not keep");
			return false;
		}
	}
	return true;
}

/* the tables of dynview_state (nsp) whose names begin with prefix: *relids */
static void
state_relations_named(Oid nsp, const char *prefix, List **relids)
{
	Relation	classes = table_open(RelationRelationId, AccessShareLock);
	NameData	low;
	NameData	high;
	ScanKeyData keys[2];
	SysScanDesc scan;
	HeapTuple	tuple;

	/* (names from prefix to prefix with its last byte incremented, in the index's C order) */
	namestrcpy(&low, prefix);
	namestrcpy(&high, prefix);
	NameStr(high)[strlen(prefix) - 1]++;
	ScanKeyInit(&keys[0], Anum_pg_class_relname, BTGreaterEqualStrategyNumber, F_NAMEGE,
				NameGetDatum(&low));
	ScanKeyInit(&keys[1], Anum_pg_class_relname, BTLessStrategyNumber, F_NAMELT, NameGetDatum(&high));
	scan = systable_beginscan(classes, ClassNameNspIndexId, true, NULL, 2, keys);
	while (HeapTupleIsValid(tuple = systable_getnext(scan)))
	{
		Form_pg_class form = (Form_pg_class) GETSTRUCT(tuple);

		if (form->relnamespace == nsp && form->relkind == RELKIND_RELATION)
			*relids = lappend_oid(*relids, form->oid);
	}
	systable_endscan(scan);
	table_close(classes, AccessShareLock);
}

/*
 * state_relations - the OIDs of the state tables (dynview_state) of dynamic
 * table relid, in the caller's memory context: its aggregate state, its
 * count(DISTINCT) multiplicities (dist_<relid>_<j>), its top-N rows and
 * bound, and its operators' states (ext_<relid>_<n>, optree.h).  Read by
 * name from pg_class's index (a refresh of a new connection asks it:
 * writes_are_own), no statement.
 */
static List *
state_relations(Oid relid)
{
	Oid			nsp = get_namespace_oid(DV_STATE_SCHEMA, true);
	List	   *relids = NIL;
	char	   *names[3];

	if (!OidIsValid(nsp))
		return NIL;
	names[0] = state_name(relid);
	names[1] = topn_name(relid);
	names[2] = topn_bound_name(relid);
	for (int i = 0; i < lengthof(names); i++)
	{
		Oid			state = get_relname_relid(names[i], nsp);

		if (OidIsValid(state) && get_rel_relkind(state) == RELKIND_RELATION)
			relids = lappend_oid(relids, state);
	}
	state_relations_named(nsp, psprintf("dist_%u_", relid), &relids);
	state_relations_named(nsp, psprintf("ext_%u_", relid), &relids);
	return relids;
}

/*
 * dv_agg_state_runs_user_code - may writing a state table of dynamic table
 * relid run user code (dv_relation_runs_user_code: a trigger, a rule, a
 * CHECK constraint, a column default, row-level security, an access
 * method other than heap, a column of a
 * type whose values run code that is not built in, or an index that runs
 * such code; the state's column types follow the query's value types,
 * which writes_are_own asks too, this asks what was built)?  Then the
 * refresh's writes are not dynview's own (writes_are_own, refresh.c).
 * The guard refuses all of these on a state table, to superusers too
 * (hooks/guard.c refuse_internal_ddl), and state tables are created USING
 * heap (create_state_table); this asks what is there, so that one made
 * before (an older build let superusers make them, or took a
 * default_table_access_method) is not run under the mark.  Takes
 * AccessShareLock on each state table and its indexes while it asks
 * (dv_relid_runs_user_code).
 */
bool
dv_agg_state_runs_user_code(Oid relid)
{
	ListCell   *lc;

	foreach(lc, state_relations(relid))
	{
		if (dv_relid_runs_user_code(lfirst_oid(lc)))
			return true;
	}
	return false;
}

/* drop the state tables of dynamic table relid (a FULL refresh rebuilds them) */
void
dv_agg_state_drop(Oid relid)
{
	List	   *victims = state_relations(relid);
	ListCell   *lc;

	foreach(lc, victims)
	{
		ObjectAddress obj;

		/* no longer a member of the extension, so that it can go alone */
		deleteDependencyRecordsForClass(RelationRelationId, lfirst_oid(lc),
										ExtensionRelationId, DEPENDENCY_EXTENSION);
		CommandCounterIncrement();
		ObjectAddressSet(obj, RelationRelationId, lfirst_oid(lc));
		performDeletion(&obj, DROP_RESTRICT, PERFORM_DELETION_INTERNAL);
	}
	if (victims != NIL)
		CommandCounterIncrement();
}

/* "p.g1, p.g2, " (with trailing separator when any) */
static char *
key_list(int nkeys, const char *prefix)
{
	StringInfoData buf;

	initStringInfo(&buf);
	for (int k = 1; k <= nkeys; k++)
		appendStringInfo(&buf, "%sg%d, ", prefix, k);
	return buf.data;
}

/* "p.g1, p.g2" without separator, "1" when no keys */
static char *
key_cols(int nkeys, const char *prefix)
{
	char	   *l = key_list(nkeys, prefix);

	if (nkeys == 0)
		return "1";
	l[strlen(l) - 2] = '\0';
	return l;
}

/* " GROUP BY g1, g2" or "" */
static char *
group_by_p(int nkeys, const char *prefix, const char *extra)
{
	StringInfoData buf;

	initStringInfo(&buf);
	if (nkeys == 0 && extra == NULL)
		return "";
	appendStringInfoString(&buf, " GROUP BY ");
	for (int k = 1; k <= nkeys; k++)
		appendStringInfo(&buf, "%s%sg%d", k > 1 ? ", " : "", prefix, k);
	if (extra)
		appendStringInfo(&buf, "%s%s", nkeys > 0 ? ", " : "", extra);
	return buf.data;
}

static char *
group_by(int nkeys, const char *extra)
{
	return group_by_p(nkeys, "", extra);
}

/*
 * KeyMatch - how SQL compares the group keys g1..g<nkeys> of one relation
 * (alias l) with those of a relation r that holds the keys of a change
 * (key_match), NULL matching NULL.  Without a NULL key in r, plain equality
 * of every key, which an index on the keys and a hash join can take.
 *
 * With NULL keys, (l.g = r.g OR (l.g IS NULL AND r.g IS NULL)) per key
 * could be neither hashed nor looked up by all the keys in an index: a
 * nested loop read every group with a NULL first key for each changed group
 * with one (121 s for 5,000 changed groups among 150,000, 50,000 of them
 * with a NULL first key).  So the match is written per pattern of NULLs
 * that r's rows show (patterns: a List of Bitmapsets of the keys, numbered
 * from 1, that are NULL, the empty set for rows without NULL): one arm per
 * pattern, its NULL keys IS NULL on both sides and its other keys equal,
 * which an index on the keys takes whole (a B-tree takes IS NULL), each
 * arm a lookup of its own (a BitmapOr).  The first arm writes its
 * equalities "l = r", the others "r = l": PostgreSQL factors a condition
 * written alike in every arm out of the OR (find_duplicate_ors), and a
 * join's OR arm is then looked up in an index without it (only the
 * relation's own restrictions join an arm's index conditions), so a key
 * equal in every arm would leave "g1 IS NULL" alone to an arm's lookup:
 * every group with a NULL there, per changed group (1.2 s for two changed
 * groups among 2,000,000, found by a tester).  More than
 * DV_NULL_PATTERNS patterns: the record alone (below) where it can be
 * had, else the per-key form for the keys NULL in some (beside the record,
 * the per-key form only offered the planner that index lookup of every
 * group with a NULL first key, which it took where it expected few
 * changed groups: 7 s for 938, found by a tester).
 *
 * And where every key's type has a hash function (types: each key's base
 * type, named; NIL otherwise), the keys are also compared as one record,
 * whose = takes two NULLs as equal and which the planner can hash or merge
 * for many groups: r is then read through key_rel, which adds that record
 * (dv_k) to its rows.  (record = compares fields of one type only: each
 * key is cast to its base type without a type modifier on both sides, so
 * that a domain's key and its base type's meet and no value is cut.)
 */

typedef struct KeyMatch
{
	int			nkeys;
	Bitmapset  *nulls;			/* the keys NULL in some row of r */
	List	   *patterns;		/* NIL: more than DV_NULL_PATTERNS */
	List	   *types;
} KeyMatch;

/*
 * key_match_of_result - the KeyMatch of a relation whose keys are those of
 * the last SPI result's rows (the group keys in its first nkeys columns)
 */
static KeyMatch
key_match_of_result(int nkeys)
{
	KeyMatch	km = {nkeys, NULL, NIL, NIL};
	bool		hashable = true;

	km.patterns = dv_null_patterns(SPI_tuptable, SPI_processed, nkeys, &km.nulls, NULL);
	if (km.nulls == NULL)
		return km;
	for (int k = 1; k <= nkeys && hashable; k++)
	{
		Oid			type = getBaseType(SPI_gettypeid(SPI_tuptable->tupdesc, k));

		hashable = OidIsValid(lookup_type_cache(type, TYPECACHE_HASH_PROC)->hash_proc);
		km.types = lappend(km.types, format_type_extended(type, -1, FORMAT_TYPE_TYPEMOD_GIVEN |
														  FORMAT_TYPE_FORCE_QUALIFY));
	}
	if (!hashable)
		km.types = NIL;
	return km;
}

/* the keys as one record (KeyMatch): "ROW(p.g1::t1, ...)", or of columns */
static char *
key_record(const KeyMatch *km, const char *alias, List *columns)
{
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfoString(&buf, "ROW(");
	for (int k = 1; k <= km->nkeys; k++)
	{
		if (columns)
			appendStringInfo(&buf, "%s%s.%s::%s", k > 1 ? ", " : "", alias,
							 quote_identifier(list_nth(columns, k - 1)), (char *) list_nth(km->types, k - 1));
		else
			appendStringInfo(&buf, "%s%s.g%d::%s", k > 1 ? ", " : "", alias, k,
							 (char *) list_nth(km->types, k - 1));
	}
	appendStringInfoChar(&buf, ')');
	return buf.data;
}

/*
 * is key_match a B-tree lookup by all the keys: plain equalities (no NULL key
 * among the changed groups) or an arm per pattern of NULLs?  (Otherwise the
 * record, or the per-key form, which a lookup would answer with every group
 * that has a NULL key.)
 */
static bool
key_match_indexed(const KeyMatch *km)
{
	return km->nulls == NULL || km->patterns != NIL;
}

/* does key_match compare the keys as a record too (and need key_rel)? */
static bool
key_match_by_record(const KeyMatch *km)
{
	return km->nulls != NULL && km->types != NIL;
}

/*
 * key_rel - SQL: the FROM item that reads relation (or subquery) from as
 * the r side of key_match: from itself, or its rows with their keys as one
 * record, dv_k (KeyMatch)
 */
static char *
key_rel(const KeyMatch *km, const char *from)
{
	if (!key_match_by_record(km))
		return pstrdup(from);
	return psprintf("(SELECT dv_kr.*, %s AS dv_k FROM %s dv_kr)", key_record(km, "dv_kr", NIL), from);
}

/*
 * column_key_match - SQL: the keys of l and r equal (KeyMatch), l's keys
 * named by the column names l_columns (quoted here) instead of g1..g<nkeys>
 * when it is not NIL; r read through key_rel
 */
static char *
column_key_match(const KeyMatch *km, const char *l, List *l_columns, const char *r)
{
	StringInfoData buf;
	char	  **lk = palloc(sizeof(char *) * (km->nkeys + 1));

	for (int k = 1; k <= km->nkeys; k++)
		lk[k] = l_columns ? psprintf("%s.%s", l, quote_identifier(list_nth(l_columns, k - 1)))
			: psprintf("%s.g%d", l, k);
	initStringInfo(&buf);
	appendStringInfoString(&buf, "true");
	if (key_match_by_record(km))
		appendStringInfo(&buf, " AND %s.dv_k = %s", r, key_record(km, l, l_columns));
	if (km->nulls != NULL && key_match_indexed(km))
	{
		ListCell   *lc;

		/* one arm per pattern of NULLs */
		appendStringInfoString(&buf, " AND (");
		foreach(lc, km->patterns)
		{
			Bitmapset  *pattern = lfirst(lc);

			appendStringInfo(&buf, "%s(true", foreach_current_index(lc) > 0 ? " OR " : "");
			for (int k = 1; k <= km->nkeys; k++)
			{
				if (bms_is_member(k, pattern))
					appendStringInfo(&buf, " AND %s IS NULL AND %s.g%d IS NULL", lk[k], r, k);
				else if (foreach_current_index(lc) == 0)
					appendStringInfo(&buf, " AND %s = %s.g%d", lk[k], r, k);
				else
					appendStringInfo(&buf, " AND %s.g%d = %s", r, k, lk[k]);
			}
			appendStringInfoChar(&buf, ')');
		}
		appendStringInfoChar(&buf, ')');
		return buf.data;
	}
	if (key_match_by_record(km))
		return buf.data;		/* (the per-key form only misleads: below) */
	for (int k = 1; k <= km->nkeys; k++)
	{
		if (bms_is_member(k, km->nulls))
			appendStringInfo(&buf, " AND (%s = %s.g%d OR (%s IS NULL AND %s.g%d IS NULL))",
							 lk[k], r, k, lk[k], r, k);
		else
			appendStringInfo(&buf, " AND %s = %s.g%d", lk[k], r, k);
	}
	return buf.data;
}

/* key_match - SQL: the group keys g1..g<nkeys> of l and r equal (KeyMatch) */
static char *
key_match(const KeyMatch *km, const char *l, const char *r)
{
	return column_key_match(km, l, NIL, r);
}

static bool
has_arg(DvAgg *agg)
{
	return agg->kind != DV_AGG_COUNT_STAR;
}

static bool
has_n(DvAgg *agg)
{
	return agg->kind == DV_AGG_SUM || agg->kind == DV_AGG_AVG ||
		agg->kind == DV_AGG_MIN || agg->kind == DV_AGG_MAX ||
		agg->kind == DV_AGG_BOOL_AND || agg->kind == DV_AGG_BOOL_OR ||
		agg->kind == DV_AGG_VAR_SAMP || agg->kind == DV_AGG_VAR_POP ||
		agg->kind == DV_AGG_STDDEV_SAMP || agg->kind == DV_AGG_STDDEV_POP;
}

/* var_samp, var_pop, stddev_samp, stddev_pop: count, sum and sum of squares */
static bool
is_variance(DvAgg *agg)
{
	return agg->kind == DV_AGG_VAR_SAMP || agg->kind == DV_AGG_VAR_POP ||
		agg->kind == DV_AGG_STDDEV_SAMP || agg->kind == DV_AGG_STDDEV_POP;
}

/* does the state keep the exact sum s<j>? */
static bool
has_s(DvAgg *agg)
{
	return agg->kind == DV_AGG_AVG || is_variance(agg);
}

/* does the group delta carry d<j>_s and d<j>_special? */
static bool
sums_numbers(DvAgg *agg)
{
	return agg->kind == DV_AGG_SUM || agg->kind == DV_AGG_AVG || is_variance(agg);
}

static const char *
variance_function(DvAgg *agg)
{
	switch (agg->kind)
	{
		case DV_AGG_VAR_SAMP:
			return "var_samp";
		case DV_AGG_VAR_POP:
			return "var_pop";
		case DV_AGG_STDDEV_SAMP:
			return "stddev_samp";
		default:
			return "stddev_pop";
	}
}

static bool
is_bool(DvAgg *agg)
{
	return agg->kind == DV_AGG_BOOL_AND || agg->kind == DV_AGG_BOOL_OR;
}

/*
 * The display scale of a numeric sum (numeric without a declared scale) is
 * the largest scale among its live finite inputs: sum(1.00, 1) is 2.00, and
 * once 1.00 is deleted the sum is 1, not 1.00.  Adding and subtracting keeps
 * the largest scale ever added, so the state counts the live inputs of each
 * scale k in one exact integer, sc = sum of weight * 10^(19 k): a count
 * (below 2^63 < 10^19) per 19-digit block, and adding two such vectors
 * block by block is numeric addition, with no carry while every count is
 * in [0, 10^19).  The largest live scale is then the index of the highest
 * non-zero block, (digits - 1) / 19, and the value is round(sum, that
 * scale), which is exact: the live inputs have no digits beyond it.  (A side
 * table of counts per scale would cost a statement and a join per refresh;
 * keeping only the largest scale and its count, as PostgreSQL's own inverse
 * transition does, would recompute a group whenever its last input of that
 * scale went.)  Scales above DV_SCALE_BLOCKS_MAX share one block: a group with
 * a live input of such a scale is recomputed from the sources (they come
 * from multiplying long fractions; 10^(19 * 1001) is far inside numeric's
 * range).  NaN and the infinities count in no block; they make their group
 * recomputed (d<j>_special).
 */
/* SQL: the block of input x<j> in sc<j>, NULL for NULL, NaN and infinities */
static char *
scale_unit(int j)
{
	return dv_scale_unit_sql(psprintf("x%d", j));
}

static bool
is_extreme(DvAgg *agg)
{
	return agg->kind == DV_AGG_MIN || agg->kind == DV_AGG_MAX;
}

/*
 * fill_arg - the input column the state fill reads for aggregate j: the
 * first one with the same input expression (DvAgg.fill_arg), so that
 * sum(x), avg(x) and their state's sum(x) and count(x) are the same
 * aggregate calls or share one transition state in PostgreSQL's Agg node
 * (the value is the same column's, so nothing kept changes)
 */
static char *
fill_arg(DvAgg *agg, int j)
{
	return psprintf("x%d", agg->fill_arg > 0 ? agg->fill_arg : j);
}

/*
 * fill_input - the input of the state fill: input itself, or, when an
 * aggregate's input x<j> is an expression that the fill reads in more than
 * one aggregate call (its value and its non-null count, its sum, sum of
 * squares or scale counts), input evaluated below the aggregation.
 * PostgreSQL pulls a plain subquery up into the query that reads it and
 * then evaluates each aggregate's argument in that aggregate's own
 * transition step: sum(x) and count(x) of x = l_extendedprice * (1 -
 * l_discount) would compute the product twice per row (TPC-H Q1: the fill
 * 1.5x the query's own aggregation).  OFFSET 0 keeps the subquery a scan
 * of its own whose projection computes each x<j> once.  Only for the fill
 * over the whole input: a restriction by group keys (the recompute of
 * flagged groups) must reach the sources, and a subquery with OFFSET does
 * not take quals pushed down.  Nor is such a subquery read in parallel:
 * where the input as it is gets a parallel plan, the fill takes that one
 * (fill_state's alt).
 */
static char *
fill_input(DvPlan *plan, char *input)
{
	ListCell   *lc;

	foreach(lc, plan->aggs)
	{
		DvAgg	   *agg = lfirst(lc);

		if (agg->arg_computed && (has_n(agg) || is_bool(agg)))
			return psprintf("SELECT * FROM (%s) dv_i0 OFFSET 0", input);
	}
	return input;
}

/*
 * the aggregation of the input that gives a state row from scratch:
 * "count(*) AS dv_count, a1, ..., aux" over input columns x<j>.  The
 * non-null count of a NOT NULL column (DvAgg.arg_notnull) is count(*), the
 * same call as dv_count's; that of a numeric or bigint sum or avg that may
 * be null (DvAgg.count_shares_sum) is dynview._nonnull_count(x), whose
 * transition is sum(numeric)'s and avg(numeric)'s (bigint's likewise), so
 * that PostgreSQL computes a<j>, s<j> and n<j> with one transition state per
 * row: count(x) beside them is one more transition call per row (TPC-H Q1's serial fill: 6.6 s with its
 * five counts, 4.3 s with them shared).
 */
static char *
state_from_input(DvPlan *plan)
{
	StringInfoData buf;
	ListCell   *lc;

	initStringInfo(&buf);
	appendStringInfoString(&buf, "pg_catalog.count(*) AS dv_count, false AS dv_recompute");
	foreach(lc, plan->aggs)
	{
		DvAgg	   *agg = lfirst(lc);
		int			j = foreach_current_index(lc) + 1;
		char	   *x = fill_arg(agg, j);

		switch (agg->kind)
		{
			case DV_AGG_COUNT_STAR:
				appendStringInfo(&buf, ", pg_catalog.count(*) AS a%d", j);
				break;
			case DV_AGG_COUNT:
				appendStringInfo(&buf, ", pg_catalog.count(*) FILTER (WHERE %s) AS a%d", x, j);
				break;
			case DV_AGG_SUM:
				appendStringInfo(&buf, ", pg_catalog.sum(%s) AS a%d", x, j);
				break;
			case DV_AGG_AVG:
				appendStringInfo(&buf, ", pg_catalog.avg(%s) AS a%d", x, j);
				break;
			case DV_AGG_MIN:
				appendStringInfo(&buf, ", pg_catalog.min(%s) AS a%d", x, j);
				break;
			case DV_AGG_MAX:
				appendStringInfo(&buf, ", pg_catalog.max(%s) AS a%d", x, j);
				break;
			case DV_AGG_COUNT_DISTINCT:
				appendStringInfo(&buf, ", pg_catalog.count(DISTINCT %s) AS a%d", x, j);
				break;
			case DV_AGG_BOOL_AND:
				appendStringInfo(&buf, ", pg_catalog.bool_and(%s) AS a%d", x, j);
				break;
			case DV_AGG_BOOL_OR:
				appendStringInfo(&buf, ", pg_catalog.bool_or(%s) AS a%d", x, j);
				break;
			case DV_AGG_VAR_SAMP:
			case DV_AGG_VAR_POP:
			case DV_AGG_STDDEV_SAMP:
			case DV_AGG_STDDEV_POP:
				appendStringInfo(&buf, ", pg_catalog.%s(%s) AS a%d", variance_function(agg), x, j);
				break;
		}
	}
	foreach(lc, plan->aggs)
	{
		DvAgg	   *agg = lfirst(lc);
		int			j = foreach_current_index(lc) + 1;
		char	   *x = fill_arg(agg, j);

		if (has_n(agg) && agg->arg_notnull)
			appendStringInfo(&buf, ", pg_catalog.count(*) AS n%d", j);
		else if (agg->count_shares_sum)
			appendStringInfo(&buf, ", dynview._nonnull_count(%s) AS n%d", x, j);
		else if (has_n(agg))
			appendStringInfo(&buf, ", pg_catalog.count(%s) AS n%d", x, j);
		if (has_s(agg))
			appendStringInfo(&buf, ", pg_catalog.sum(%s)::pg_catalog.numeric AS s%d", x, j);
		if (is_variance(agg))
			appendStringInfo(&buf, ", pg_catalog.sum(%s::pg_catalog.numeric * %s::pg_catalog.numeric) AS q%d",
							 x, x, j);
		if (agg->scale_tracked)
			appendStringInfo(&buf, ", COALESCE(pg_catalog.sum(%s), 0) AS sc%d", dv_scale_unit_sql(x), j);
		if (is_bool(agg))
			appendStringInfo(&buf, ", pg_catalog.count(*) FILTER (WHERE %s) AS nt%d", x, j);
	}
	return buf.data;
}

/* the names of the state columns after the keys, in order */
static List *
state_value_columns(DvPlan *plan)
{
	List	   *cols = list_make2(pstrdup("dv_count"), pstrdup("dv_recompute"));
	ListCell   *lc;

	foreach(lc, plan->aggs)
		cols = lappend(cols, psprintf("a%d", foreach_current_index(lc) + 1));
	foreach(lc, plan->aggs)
	{
		DvAgg	   *agg = lfirst(lc);
		int			j = foreach_current_index(lc) + 1;

		if (has_n(agg))
			cols = lappend(cols, psprintf("n%d", j));
		if (has_s(agg))
			cols = lappend(cols, psprintf("s%d", j));
		if (is_variance(agg))
			cols = lappend(cols, psprintf("q%d", j));
		if (agg->scale_tracked)
			cols = lappend(cols, psprintf("sc%d", j));
		if (is_bool(agg))
			cols = lappend(cols, psprintf("nt%d", j));
	}
	return cols;
}

/*
 * create a state table as the extension's, owned by the table's owner: heap
 * whatever default_table_access_method says (its writes are marked as
 * dynview's own, which another access method's code must not run inside:
 * regress brk18_internal_table_am); with vacuum, autovacuum at 1% of its
 * rows changed
 */
static void
create_state_table(DvTable *dt, const char *name, const char *columns, bool vacuum)
{
	ObjectAddress obj;
	ObjectAddress ext;
	Oid			relid;

	dv_catalog_exec(psprintf("CREATE TABLE %s (%s) USING heap%s", qualified_state(name), columns,
							 vacuum ? " WITH (autovacuum_vacuum_scale_factor = 0.01)" : ""),
					0, NULL, NULL, NULL, -1);
	CommandCounterIncrement();
	relid = get_relname_relid(name, get_namespace_oid(DV_STATE_SCHEMA, false));
	ObjectAddressSet(obj, RelationRelationId, relid);
	ObjectAddressSet(ext, ExtensionRelationId, get_extension_oid("dynview", false));
	recordDependencyOn(&obj, &ext, DEPENDENCY_EXTENSION);
	dv_catalog_exec(psprintf("ALTER TABLE %s OWNER TO %s", qualified_state(name),
							 quote_identifier(GetUserNameFromId(dt->owner, false))),
					0, NULL, NULL, NULL, -1);
	CommandCounterIncrement();
	/* published FOR ALL TABLES: its updates and deletes need an identity */
	dv_publication_identity(relid, "aggregate state table");
}

/* unique index (NULLS NOT DISTINCT) on cols when every key type has btree */
static void
create_state_index(DvPlan *plan, const char *name, const char *lead)
{
	ListCell   *lc;
	StringInfoData cols;

	initStringInfo(&cols);
	if (lead)
		appendStringInfoString(&cols, lead);
	foreach(lc, plan->key_btree)
	{
		if (!lfirst_int(lc))
			return;
		appendStringInfo(&cols, "%sg%d", cols.len > 0 ? ", " : "", foreach_current_index(lc) + 1);
	}
	if (cols.len == 0)
		return;
	dv_catalog_exec(psprintf("CREATE UNIQUE INDEX ON %s (%s) NULLS NOT DISTINCT",
							 qualified_state(name), cols.data),
					0, NULL, NULL, NULL, -1);
}

/* do the state tables have their unique indexes (every group key has a btree)? */
static bool
state_indexed(DvPlan *plan)
{
	ListCell   *lc;

	foreach(lc, plan->key_btree)
	{
		if (!lfirst_int(lc))
			return false;
	}
	return true;
}

/*
 * dist_arrays - does the multiplicity table distid keep one row per group
 * (columns vs, ms: choose_arrays) rather than one per group and value?
 * The shape is the table's, chosen when it was built.
 */
static bool
dist_arrays(Oid distid)
{
	return OidIsValid(distid) && get_attnum(distid, "vs") != InvalidAttrNumber;
}

/* the planner's estimate of the rows of the SELECT sql */
static double
planned_rows(const char *sql)
{
	return dv_plan_fill(sql)->planTree->plan_rows;
}

/*
 * choose_arrays - keep the multiplicities of count(DISTINCT x<j>) one row
 * per group, its values and their counts in two arrays (g1..gn, vs, ms),
 * rather than one row per group and value?  When the planner estimates
 * at most dynview.distinct_values_per_row distinct non-null x per group of
 * the input (the SELECT input: g1..gn, x<j>), for a grouped query whose
 * keys all have a btree (the state's unique indexes) and an x whose type
 * has an array type.  The build then writes and indexes a row per group,
 * as the query's own result, instead of a row per group and value (TPC-H
 * Q16 at SF1: 27,840 rows against 1,765,092, whose writing and index were
 * most of its creation's cost over CREATE MATERIALIZED VIEW; bench/README.md),
 * and a refresh rewrites the arrays of each changed group (dv_agg_state_apply),
 * a cost in the group's values.  Plans two statements; call as the table's
 * owner.
 */
static bool
choose_arrays(DvPlan *plan, DvAgg *agg, int j, const char *input)
{
	int			nkeys = list_length(plan->key_columns);
	Aggref	   *a = (Aggref *) agg->aggref;
	double		pairs;
	double		groups;

	if (dv_distinct_values_per_row <= 0 || nkeys == 0 || !state_indexed(plan) || a == NULL ||
		!IsA(a, Aggref) || list_length(a->args) != 1 ||
		!OidIsValid(get_array_type(exprType((Node *) linitial_node(TargetEntry, a->args)->expr))))
		return false;
	pairs = planned_rows(psprintf("SELECT %sx%d FROM (%s) dv_i WHERE x%d IS NOT NULL%s",
								  key_list(nkeys, ""), j, input, j, group_by(nkeys, psprintf("x%d", j))));
	groups = planned_rows(psprintf("SELECT %s FROM (%s) dv_i%s", key_cols(nkeys, ""), input,
								   group_by(nkeys, NULL)));
	return pairs <= groups * dv_distinct_values_per_row;
}

/*
 * dist_arrays_fill_sql - the multiplicities of count(DISTINCT x<j>) one row
 * per group (choose_arrays) from the input: g1..gn, vs, ms, and then, when
 * with_counts, the group's rows and its distinct non-null x (the state's
 * dv_count and count(DISTINCT), ArrayFillReceiver).  A group whose x are
 * all null has null arrays (the caller keeps no multiplicity row for it).
 * The two arrays are aggregated from the same rows in the same order.
 */
static char *
dist_arrays_fill_sql(int nkeys, int j, const char *input, bool with_counts)
{
	return psprintf("SELECT %spg_catalog.array_agg(x) FILTER (WHERE x IS NOT NULL) AS vs, "
					"pg_catalog.array_agg(c) FILTER (WHERE x IS NOT NULL) AS ms%s "
					"FROM (SELECT %sx%d AS x, pg_catalog.count(*) AS c FROM (%s) dv_i%s%s) dv_c%s",
					key_list(nkeys, ""),
					with_counts ? ", pg_catalog.sum(c)::pg_catalog.int8, pg_catalog.count(x)" : "",
					key_list(nkeys, ""), j, input,
					with_counts ? "" : psprintf(" WHERE x%d IS NOT NULL", j),
					group_by(nkeys, psprintf("x%d", j)), group_by(nkeys, NULL));
}

/*
 * read_states_now - while on, the SQL generated for plan reads the states
 * of its operators that have one as their rows now (analyze/optree.c: an
 * operator whose sources have no change reads its state as it is).  The
 * initial build turns it on once a state is filled, for the statements
 * that follow (a state over another state, the table from its states), so
 * that the sources are read once; off, the SQL reads the sources.  Only
 * around the generation of SQL, which runs no query.
 */
static void
read_states_now(DvPlan *plan, bool on)
{
	dv_optree_use_state(on);
	dv_plan_cache_set_delta_rows(plan, on ? 0 : -1);
}

/*
 * rows_fit_table - does the SELECT sql give, column by column, the types
 * of relation rel's columns (and the column's typmod, or none where the
 * column has none)?  Then its rows can be stored as they are, without the
 * casts of an INSERT (dv_exec_fill).  Parses and analyses sql.
 */
static bool
rows_fit_table(const char *sql, Relation rel)
{
	RawStmt    *raw = linitial_node(RawStmt, pg_parse_query(sql));
	Query	   *query = linitial_node(Query, pg_analyze_and_rewrite_fixedparams(raw, sql, NULL, 0, NULL));
	TupleDesc	desc = RelationGetDescr(rel);
	ListCell   *lc;
	int			att = 0;

	foreach(lc, query->targetList)
	{
		TargetEntry *te = lfirst_node(TargetEntry, lc);
		Form_pg_attribute a;

		if (te->resjunk)
			continue;
		while (att < desc->natts && TupleDescAttr(desc, att)->attisdropped)
			att++;
		if (att >= desc->natts)
			return false;
		a = TupleDescAttr(desc, att++);
		if (exprType((Node *) te->expr) != a->atttypid ||
			(a->atttypmod >= 0 && exprTypmod((Node *) te->expr) != a->atttypmod))
			return false;
	}
	while (att < desc->natts && TupleDescAttr(desc, att)->attisdropped)
		att++;
	return att == desc->natts;
}

/*
 * fill_state - write the rows of the SELECT sql, run at snapshot, into the
 * state table name (unqualified, in dynview_state) of dt; call as the
 * table's owner.  A state table this very subtransaction created and that
 * has no index, trigger, rule or CHECK constraint yet (its indexes come
 * after the fill) is filled as CREATE MATERIALIZED VIEW fills a view
 * (dv_exec_fill): a plan that may use parallel workers, rows written in
 * bulk and frozen (an abort takes the table with them).  Its NOT NULL
 * columns are not checked then: the fills write counts, COALESCEd sums,
 * constants and values they filter on IS NOT NULL there.  Any other state
 * table gets an INSERT.
 *
 * alt, when not NULL, is another spelling of the same rows (fill_input:
 * the input not kept apart by OFFSET 0), filled instead of sql when the
 * fill is in bulk and alt's plan uses parallel workers (plans_parallel).
 * Kept a subquery with OFFSET 0, the input is never read in parallel by
 * PostgreSQL 15 (no partial aggregation over it), while CREATE
 * MATERIALIZED VIEW of the query aggregates in its workers: TPC-H Q1 at
 * SF1, 6.6 s against the view's 3.8 s in wall time, though its fill
 * costs 1.1x the view's CPU serially (bench/README.md).
 */
static bool plans_parallel(const char *sql);

/*
 * fillable - may the state table relid be filled in bulk (dv_exec_fill)?
 * Created in this very subtransaction, and no index, trigger, rule, CHECK
 * constraint nor row security yet.
 */
static bool
fillable(Oid relid)
{
	Relation	rel = table_open(relid, AccessShareLock);
	List	   *indexes = RelationGetIndexList(rel);
	bool		bulk = rel->rd_createSubid == GetCurrentSubTransactionId() &&
		indexes == NIL && !rel->rd_rel->relhastriggers && !rel->rd_rel->relhasrules &&
		rel->rd_rel->relchecks == 0 && !rel->rd_rel->relrowsecurity;

	list_free(indexes);
	table_close(rel, AccessShareLock);
	return bulk;
}

static void
fill_state(DvTable *dt, const char *name, const char *sql, const char *alt, Snapshot snapshot)
{
	Oid			relid = get_relname_relid(name, get_namespace_oid(DV_STATE_SCHEMA, false));
	bool		bulk = fillable(relid);
	Relation	rel;

	/*
	 * The fill stores the query's values as they are (an INSERT would cast
	 * them): only when each output column has its column's type, and the
	 * column's typmod or none.
	 */
	if (bulk && alt != NULL && plans_parallel(alt))
		sql = alt;
	rel = table_open(relid, AccessShareLock);
	if (bulk)
		bulk = rows_fit_table(sql, rel);
	table_close(rel, AccessShareLock);
	if (bulk)
		(void) dv_exec_fill(sql, snapshot, "refresh",
							psprintf("%s.%s", dt->schema_name, dt->table_name), relid);
	else
		dv_exec_at(psprintf("INSERT INTO %s %s", qualified_state(name), sql), snapshot, false);
}

/*
 * plans_parallel - would the SELECT sql, planned as dv_exec_fill plans it
 * (dv_plan_fill: parallel workers allowed where they save enough), use
 * parallel workers?  Parses, analyses and plans it (the plan is not kept:
 * dv_exec_fill plans the chosen spelling again, about a millisecond).
 */
static bool
plans_parallel(const char *sql)
{
	return dv_plan_fill(sql)->parallelModeNeeded;
}

/*
 * analyze_state - the statistics of the state table name (unqualified, in
 * dynview_state), just filled: the build statements that follow read it
 * (an operator over it, the table from the states, a top-N's first rows),
 * and so does the first refresh.  Without them the planner takes a table
 * that was never vacuumed nor analysed for at least 10 pages, and its
 * distinct values per key from its defaults: TPC-H Q11's table from its
 * states joined the one row of its total (estimated 1,360 rows) with the
 * groups, an estimate of 1.8M rows and a cost above jit_above_cost, so the
 * statement was compiled by JIT; analysed, 1 row, cost 561, no JIT.
 * At STATE_STATISTICS_TARGET (analyze_state_columns).
 */
static void analyze_state_columns(const char *name, const char *columns);

static void
analyze_state(const char *name)
{
	analyze_state_columns(name, NULL);
}

/*
 * analyze_input_state - analyze_state of the groups' state of a top-N or
 * window input (node_input_op) with nkeys group keys k1..kn: every column
 * but its keys after the first.  Such a state is read whole, by its first
 * key, or by all its keys (which its unique index finds as one row, with
 * or without statistics of k2..kn), never by another key alone; ANALYZE
 * spends its time sorting each column's sample, and keys such as a
 * customer's name, address and comment sort by the collation (TPC-H Q10
 * at scale 3000, a state of 13,234 groups: 73-76 ms of CPU for the whole
 * table, 14-15 ms without k2..k7, of a creation of ~750 ms; bench/README.md).
 */
static char *column_list_but_keys(Oid relid, const char *prefix, int nkeys);

static void
analyze_input_state(const char *name, int nkeys)
{
	Oid			relid = get_relname_relid(name, get_namespace_oid(DV_STATE_SCHEMA, false));

	analyze_state_columns(name, column_list_but_keys(relid, "", nkeys));
}

/*
 * The statistics target of a state's ANALYZE at its build (analyze_state),
 * when default_statistics_target is higher: ANALYZE samples 300 rows per
 * unit of target and sorts each column's sample, whatever the state's
 * size; a state's statements need its size (which its index build sets
 * too), its keys' distinct values (its unique index says they are) and
 * rough selectivities, not 100 histogram buckets.  TPC-H Q13 at SF1, the
 * 300,000 customers' counts: 69-91 ms of CPU at 100, 17-25 ms at 10, of a
 * ~1.9 s creation (bench/README.md, fifteenth session).  Autovacuum's
 * later ANALYZE of the state uses the setting as it is.
 */
#define STATE_STATISTICS_TARGET 10

/*
 * analyze_state_columns - ANALYZE of the state table name (unqualified, in
 * dynview_state), of its columns (a column list, or NULL: all), at
 * STATE_STATISTICS_TARGET; runs as the catalog's statements
 * (dv_catalog_exec): ANALYZE itself works as the state's owner.
 */
static void
analyze_state_columns(const char *name, const char *columns)
{
	int			level = NewGUCNestLevel();

	if (default_statistics_target > STATE_STATISTICS_TARGET)
		(void) set_config_option("default_statistics_target", CppAsString2(STATE_STATISTICS_TARGET),
								 PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
	dv_catalog_exec(psprintf("ANALYZE %s%s%s%s", qualified_state(name), columns ? " (" : "",
							 columns ? columns : "", columns ? ")" : ""),
					0, NULL, NULL, NULL, -1);
	AtEOXact_GUC(true, level);
	CommandCounterIncrement();
}

/*
 * node_input_op - is op the groups of the input of a top-N or window plan
 * (plan's or a branch's: assign_states_node in optree.c)?  Such a state is
 * read whole, or by all its group keys (the changed groups), never joined
 * on one of its other keys: it needs no index on each key after the first
 * (TPC-H Q10: seven group keys, the customer's columns, six such indexes
 * that nothing read).
 */
static bool
node_input_op(DvPlan *plan, DvOp *op)
{
	ListCell   *lc;

	if (plan == NULL)
		return false;
	if ((plan->topn_input && plan->topn_input->node_op == op) ||
		(plan->window_input && plan->window_input->node_op == op))
		return true;
	foreach(lc, plan->branches)
	{
		if (node_input_op(lfirst(lc), op))
			return true;
	}
	return false;
}

/*
 * build_operator_states - the states of the plan's operators that keep one
 * (analyze/optree.h: the extreme rows of a global aggregate of extremes,
 * the row of another aggregate without GROUP BY, the groups of a GROUP BY
 * unless they are recomputed through an index: dv_optree_index_rule_chosen),
 * created and filled from the sources at snapshot, not from states (which
 * this rebuild replaces).
 * Needs SPI; the tables are gone (dv_agg_state_drop).
 */
static void
build_operator_states(DvTable *dt, DvPlan *plan, Snapshot snapshot)
{
	List	   *ops = dv_optree_state_ops(plan);
	List	   *filled = NIL;	/* of (fill statement, columns, state name) */

	dv_optree_use_state(false);
	/*
	 * Inner operators first (the list is outer before inner): the fill of an
	 * operator over another that keeps a state reads that state, filled just
	 * before, instead of computing its rows from the sources once more
	 * (TPC-H Q15: the greatest revenue over the revenues per supplier).
	 */
	for (int i = list_length(ops) - 1; i >= 0; i--)
	{
		DvOp	   *op = list_nth(ops, i);
		char	   *name = dv_optree_state_name(op);
		char	   *fill;
		int			save_nestlevel;
		Oid			save_userid;
		int			save_sec;

		/* (its groups recomputed through an index of its source instead: grouprule.c) */
		if (dv_optree_index_rule_chosen(op))
			continue;
		/* (an optional filter state whose filter keeps too many rows: optree.h) */
		if (op->kind == DV_OP_FILTER && !dv_optree_filter_state_chosen(op))
			continue;
		/* (generated before its own table exists: it reads the others' only) */
		dv_run_as_owner(dt->owner, &save_nestlevel, &save_userid, &save_sec);
		read_states_now(plan, true);
		fill = dv_optree_state_fill_sql(op);
		read_states_now(plan, false);
		dv_restore_user(save_nestlevel, save_userid, save_sec);

		/*
		 * An operator the query has twice (a CTE or view read in two places:
		 * TPC-H Q15's revenues per supplier, joined and under max()) has the
		 * same fill statement and columns: its state is a copy of the first's.
		 */
		{
			ListCell   *lf;
			char	   *columns = dv_optree_state_columns(op);

			foreach(lf, filled)
			{
				List	   *f = lfirst(lf);

				if (strcmp(linitial(f), fill) == 0 && strcmp(lsecond(f), columns) == 0)
				{
					filled = lappend(filled, list_make3(fill, columns, name));
					fill = psprintf("SELECT * FROM %s", qualified_state(lthird(f)));
					break;
				}
			}
			if (lf == NULL)
				filled = lappend(filled, list_make3(fill, columns, name));
		}
		create_state_table(dt, name, dv_optree_state_columns(op), false);
		if (dv_optree_state_key_columns(op, NULL) != NIL)
		{
			/* (room on each page: a changed group's row is updated in place, HOT) */
			dv_catalog_exec(psprintf("ALTER TABLE %s SET (fillfactor = 80)", qualified_state(name)),
							0, NULL, NULL, NULL, -1);
		}
		dv_set_current_table(quote_qualified_identifier(dt->schema_name, dt->table_name));
		dv_run_as_owner(dt->owner, &save_nestlevel, &save_userid, &save_sec);
		fill_state(dt, name, fill, NULL, snapshot);
		dv_restore_user(save_nestlevel, save_userid, save_sec);
		/* the indexes after the fill (fill_state writes in bulk into a table without one) */
		if (dv_optree_state_key_columns(op, NULL) != NIL)
		{
			bool		hashed;
			List	   *keys = dv_optree_state_key_columns(op, &hashed);
			StringInfoData all;
			ListCell   *lk;

			CommandCounterIncrement();
			initStringInfo(&all);
			foreach(lk, keys)
			{
				appendStringInfo(&all, "%s%s", all.len ? ", " : "", (char *) lfirst(lk));
				if (foreach_current_index(lk) > 0 && !node_input_op(plan, op))
					dv_catalog_exec(psprintf("CREATE INDEX ON %s (%s)", qualified_state(name), (char *) lfirst(lk)),
									0, NULL, NULL, NULL, -1);
			}
			/* (hashed keys: two groups may share the hashes, so not unique) */
			dv_catalog_exec(psprintf("CREATE %sINDEX ON %s (%s)%s", hashed ? "" : "UNIQUE ",
									 qualified_state(name), all.data, hashed ? "" : " NULLS NOT DISTINCT"),
							0, NULL, NULL, NULL, -1);
		}
		/* (a filter state: on its key, by which rows are replaced and reads restricted) */
		if (dv_optree_filter_state_index_column(op) != NULL)
		{
			CommandCounterIncrement();
			dv_catalog_exec(psprintf("CREATE INDEX ON %s (%s)", qualified_state(name),
									 dv_optree_filter_state_index_column(op)),
							0, NULL, NULL, NULL, -1);
		}
		CommandCounterIncrement();
		if (node_input_op(plan, op) && dv_optree_state_key_columns(op, NULL) != NIL)
			analyze_input_state(name, list_length(dv_optree_state_key_columns(op, NULL)));
		else
			analyze_state(name);
	}
}

/*
 * topn_fill_from_state - fill the state of a top-N table whose input keeps
 * its groups in a state (build_operator_states just filled it) from that
 * state: the input's rows read from it, in the query's order, the first
 * topn_state_rows + 1 (as dv_topn_state_fill, which evaluates the query
 * again: TPC-H Q3, Q10, Q21, the revenues of the orders or customers per
 * group).  False, nothing done, when the input keeps no readable state.
 * Runs as the table's owner.
 */
static bool
topn_fill_from_state(DvTable *dt, DvPlan *plan, Snapshot snapshot)
{
	char	   *rows;
	uint64		n;

	read_states_now(plan, true);
	rows = dv_node_new_sql(plan->topn_input);
	read_states_now(plan, false);
	if (rows == NULL)
		return false;
	n = dv_exec_at(psprintf("SELECT * FROM (%s) dv_n ORDER BY %s LIMIT %lld", rows, plan->topn_order,
							(long long) plan->topn_state_rows + 1),
				   snapshot, false);
	dv_register_tuples("dv_topn_fill");
	dv_topn_state_store(dt, plan, snapshot, "dv_topn_fill", n);
	dv_unregister_tuples("dv_topn_fill");
	return true;
}

/*
 * distinct_once_agg - the number j of the plan's one count(DISTINCT x<j>)
 * when every other aggregate is count(*) and the query has GROUP BY: then
 * the state row of a group and its multiplicities follow from the input's
 * rows counted per (group, x<j>) (fill_distinct_once); 0 otherwise.
 */
static int
distinct_once_agg(DvPlan *plan)
{
	ListCell   *lc;
	int			found = 0;

	if (plan->key_columns == NIL)
		return 0;
	foreach(lc, plan->aggs)
	{
		DvAgg	   *agg = lfirst(lc);

		if (agg->scale_tracked)
			return 0;
		if (agg->kind == DV_AGG_COUNT_DISTINCT && found == 0)
			found = foreach_current_index(lc) + 1;
		else if (agg->kind != DV_AGG_COUNT_STAR)
			return 0;
	}
	return found;
}

/*
 * The multiplicities' writer of fill_distinct_once that also counts, per
 * group, the rows it writes: the rows of the fill are (g1..gn, x, count),
 * one per group and x; a group's state row is the sum of its counts
 * (dv_count and each count(*)) and its number of non-null x (the
 * count(DISTINCT x)), which its shutdown writes into the state table, in
 * bulk (dv_bulk_receiver, as the fill writes), so that the
 * state needs no second pass over the multiplicities (TPC-H Q16 at SF1:
 * 1,765,092 multiplicities, a hash aggregate of 1.6 s of CPU read them
 * again; bench/README.md).  The groups are those of GROUP BY g1..gn: the
 * same equality operator (get_sort_group_operators) and collation, and
 * the key values of a group's first row, as the hash aggregate over the
 * multiplicities, read in the order written, kept them.  Given up (the
 * groups forgotten, state_written false: the caller aggregates the
 * multiplicities instead) when a key type cannot be hashed, when the state
 * table's columns are not the ones written here, or when the groups take
 * more memory than a hash join may (get_hash_memory_limit).
 */
typedef struct GroupCounts
{
	int64		rows;			/* counts summed: dv_count, each count(*) */
	int64		values;			/* non-null x: count(DISTINCT x) */
} GroupCounts;

typedef struct DistinctCountReceiver
{
	DestReceiver pub;
	DestReceiver *rel;			/* the multiplicities' writer */
	Oid			state;			/* the state table */
	int			nkeys;
	int			naggs;
	int			j;				/* a<j> is the count(DISTINCT) */
	MemoryContext parent;		/* the caller's (not the executor's, freed first) */
	MemoryContext cxt;			/* the groups' */
	MemoryContext tmpcxt;		/* a row's hashing */
	TupleHashTable groups;		/* NULL: not counted */
	int64		nonnull;		/* rows written with a non-null x */
	bool		state_written;
} DistinctCountReceiver;

/*
 * state_fits_counts - does the state table state have the columns g1..gn
 * of the types of keys' first nkeys columns (and their typmods, or none),
 * then dv_count, dv_recompute and naggs counts a1..ak (int8)?  (The
 * writers of the state rows that count, DistinctCountReceiver and
 * ArrayFillReceiver, store them as they are.)
 */
static bool
state_fits_counts(Oid state, TupleDesc keys, int nkeys, int naggs)
{
	Relation	rel = table_open(state, AccessShareLock);
	TupleDesc	desc = RelationGetDescr(rel);
	bool		ok = desc->natts == nkeys + 2 + naggs;

	for (int i = 0; ok && i < desc->natts; i++)
	{
		Form_pg_attribute a = TupleDescAttr(desc, i);

		if (a->attisdropped)
			ok = false;
		else if (i < nkeys)
			ok = a->atttypid == TupleDescAttr(keys, i)->atttypid &&
				(a->atttypmod < 0 || a->atttypmod == TupleDescAttr(keys, i)->atttypmod);
		else
			ok = a->atttypid == (i == nkeys + 1 ? BOOLOID : INT8OID);
	}
	table_close(rel, AccessShareLock);
	return ok;
}

static void
distinct_count_startup(DestReceiver *self, int operation, TupleDesc typeinfo)
{
	DistinctCountReceiver *r = (DistinctCountReceiver *) self;
	/* (the hash table keeps them: the caller's context, not the executor's) */
	AttrNumber *cols = MemoryContextAlloc(r->parent, sizeof(AttrNumber) * r->nkeys);
	Oid		   *eqops = MemoryContextAlloc(r->parent, sizeof(Oid) * r->nkeys);
	Oid		   *colls = MemoryContextAlloc(r->parent, sizeof(Oid) * r->nkeys);
	Oid		   *eqfuncs;
	FmgrInfo   *hashfuncs;
	MemoryContext old;

	r->rel->rStartup(r->rel, operation, typeinfo);
	if (!OidIsValid(r->state) || typeinfo->natts != r->nkeys + 2 ||
		!state_fits_counts(r->state, typeinfo, r->nkeys, r->naggs))
		return;
	for (int i = 0; i < r->nkeys; i++)
	{
		bool		hashable;

		get_sort_group_operators(TupleDescAttr(typeinfo, i)->atttypid, false, false, false,
								 NULL, &eqops[i], NULL, &hashable);
		if (!OidIsValid(eqops[i]) || !hashable)
			return;
		cols[i] = i + 1;
		colls[i] = TupleDescAttr(typeinfo, i)->attcollation;
	}
	r->cxt = AllocSetContextCreate(r->parent, "dynview group counts", ALLOCSET_DEFAULT_SIZES);
	r->tmpcxt = AllocSetContextCreate(r->parent, "dynview group hashing", ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(r->cxt);
	execTuplesHashPrepare(r->nkeys, eqops, &eqfuncs, &hashfuncs);
	r->groups = BuildTupleHashTableExt(NULL, typeinfo, r->nkeys, cols, eqfuncs, hashfuncs, colls,
									   1024, sizeof(GroupCounts), r->cxt, r->cxt, r->tmpcxt, false);
	MemoryContextSwitchTo(old);
}

static bool
distinct_count_receive(TupleTableSlot *slot, DestReceiver *self)
{
	DistinctCountReceiver *r = (DistinctCountReceiver *) self;
	bool		isnew;
	TupleHashEntry entry;
	GroupCounts *c;

	if (!r->rel->receiveSlot(slot, r->rel))
		return false;
	slot_getsomeattrs(slot, r->nkeys + 2);
	if (!slot->tts_isnull[r->nkeys])
		r->nonnull++;
	if (r->groups == NULL)
		return true;
	entry = LookupTupleHashEntry(r->groups, slot, &isnew, NULL);
	MemoryContextReset(r->tmpcxt);
	if (isnew)
	{
		if (MemoryContextMemAllocated(r->cxt, true) > get_hash_memory_limit())
		{
			/* too many groups: forgotten, the caller aggregates the multiplicities */
			r->groups = NULL;
			MemoryContextReset(r->cxt);
			return true;
		}
		entry->additional = MemoryContextAllocZero(r->cxt, sizeof(GroupCounts));
	}
	c = (GroupCounts *) entry->additional;
	c->rows += DatumGetInt64(slot->tts_values[r->nkeys + 1]);
	if (!slot->tts_isnull[r->nkeys])
		c->values++;
	return true;
}

static void
distinct_count_shutdown(DestReceiver *self)
{
	DistinctCountReceiver *r = (DistinctCountReceiver *) self;
	DestReceiver *dest;
	Relation	rel;
	TupleTableSlot *out;
	TupleTableSlot *group;
	TupleHashIterator iter;
	TupleHashEntry entry;

	r->rel->rShutdown(r->rel);
	if (r->groups == NULL)
		return;
	rel = table_open(r->state, AccessShareLock);
	out = MakeSingleTupleTableSlot(RelationGetDescr(rel), &TTSOpsVirtual);
	group = MakeSingleTupleTableSlot(r->groups->tableslot->tts_tupleDescriptor, &TTSOpsMinimalTuple);
	dest = dv_bulk_receiver(r->state);
	dest->rStartup(dest, CMD_INSERT, RelationGetDescr(rel));
	InitTupleHashIterator(r->groups, &iter);
	while ((entry = ScanTupleHashTable(r->groups, &iter)) != NULL)
	{
		GroupCounts *c = (GroupCounts *) entry->additional;

		ExecClearTuple(out);
		ExecStoreMinimalTuple(entry->firstTuple, group, false);
		slot_getsomeattrs(group, r->nkeys);
		for (int i = 0; i < r->nkeys; i++)
		{
			out->tts_values[i] = group->tts_values[i];
			out->tts_isnull[i] = group->tts_isnull[i];
		}
		out->tts_values[r->nkeys] = Int64GetDatum(c->rows);
		out->tts_isnull[r->nkeys] = false;
		out->tts_values[r->nkeys + 1] = BoolGetDatum(false);
		out->tts_isnull[r->nkeys + 1] = false;
		for (int k = 1; k <= r->naggs; k++)
		{
			out->tts_values[r->nkeys + 1 + k] = Int64GetDatum(k == r->j ? c->values : c->rows);
			out->tts_isnull[r->nkeys + 1 + k] = false;
		}
		ExecStoreVirtualTuple(out);
		dest->receiveSlot(out, dest);
	}
	TermTupleHashIterator(&iter);
	dest->rShutdown(dest);
	dest->rDestroy(dest);
	ExecDropSingleTupleTableSlot(group);
	ExecDropSingleTupleTableSlot(out);
	table_close(rel, AccessShareLock);
	r->state_written = true;
}

static void
distinct_count_destroy(DestReceiver *self)
{
	DistinctCountReceiver *r = (DistinctCountReceiver *) self;

	r->rel->rDestroy(r->rel);
	if (r->cxt)
		MemoryContextDelete(r->cxt);
	if (r->tmpcxt)
		MemoryContextDelete(r->tmpcxt);
	r->cxt = r->tmpcxt = NULL;
	r->groups = NULL;
}

/* the multiplicities' writer into dist that counts the groups into state (InvalidOid: does not) */
static DistinctCountReceiver *
distinct_count_receiver(Oid dist, Oid state, int nkeys, int naggs, int j)
{
	DistinctCountReceiver *r = palloc0(sizeof(DistinctCountReceiver));

	dv_dest_receiver_init(&r->pub, DestTransientRel, distinct_count_startup, distinct_count_receive,
						  distinct_count_shutdown, distinct_count_destroy);
	r->rel = dv_bulk_receiver(dist);
	r->parent = CurrentMemoryContext;
	r->state = state;
	r->nkeys = nkeys;
	r->naggs = naggs;
	r->j = j;
	return r;
}

/*
 * ArrayFillReceiver - the writer of fill_distinct_arrays: each row of the
 * fill (g1..gn, vs, ms, rows, values: dist_arrays_fill_sql with counts) is
 * a group; its multiplicity row (g1..gn, vs, ms) goes to the multiplicity
 * table unless its x are all null, its state row (g1..gn, dv_count = rows,
 * dv_recompute = false, a<j> = values, every other a<k> = rows: they are
 * count(*)) to the state table, both in bulk (dv_bulk_receiver).
 */
typedef struct ArrayFillReceiver
{
	DestReceiver pub;
	DestReceiver *dist;
	DestReceiver *state;
	Oid			distid;
	Oid			stateid;
	int			nkeys;
	int			naggs;
	int			j;
	TupleTableSlot *dslot;
	TupleTableSlot *sslot;
} ArrayFillReceiver;

static void
array_fill_startup(DestReceiver *self, int operation, TupleDesc typeinfo)
{
	ArrayFillReceiver *r = (ArrayFillReceiver *) self;
	Relation	rel;

	rel = table_open(r->distid, AccessShareLock);
	r->dslot = MakeSingleTupleTableSlot(CreateTupleDescCopy(RelationGetDescr(rel)), &TTSOpsVirtual);
	table_close(rel, AccessShareLock);
	rel = table_open(r->stateid, AccessShareLock);
	r->sslot = MakeSingleTupleTableSlot(CreateTupleDescCopy(RelationGetDescr(rel)), &TTSOpsVirtual);
	table_close(rel, AccessShareLock);
	r->dist->rStartup(r->dist, operation, r->dslot->tts_tupleDescriptor);
	r->state->rStartup(r->state, operation, r->sslot->tts_tupleDescriptor);
}

static bool
array_fill_receive(TupleTableSlot *slot, DestReceiver *self)
{
	ArrayFillReceiver *r = (ArrayFillReceiver *) self;
	int			nk = r->nkeys;

	slot_getallattrs(slot);
	if (!slot->tts_isnull[nk])
	{
		ExecClearTuple(r->dslot);
		for (int i = 0; i < nk + 2; i++)
		{
			r->dslot->tts_values[i] = slot->tts_values[i];
			r->dslot->tts_isnull[i] = slot->tts_isnull[i];
		}
		ExecStoreVirtualTuple(r->dslot);
		if (!r->dist->receiveSlot(r->dslot, r->dist))
			return false;
	}
	ExecClearTuple(r->sslot);
	for (int i = 0; i < nk; i++)
	{
		r->sslot->tts_values[i] = slot->tts_values[i];
		r->sslot->tts_isnull[i] = slot->tts_isnull[i];
	}
	r->sslot->tts_values[nk] = slot->tts_values[nk + 2];
	r->sslot->tts_isnull[nk] = false;
	r->sslot->tts_values[nk + 1] = BoolGetDatum(false);
	r->sslot->tts_isnull[nk + 1] = false;
	for (int k = 1; k <= r->naggs; k++)
	{
		r->sslot->tts_values[nk + 1 + k] = slot->tts_values[k == r->j ? nk + 3 : nk + 2];
		r->sslot->tts_isnull[nk + 1 + k] = false;
	}
	ExecStoreVirtualTuple(r->sslot);
	return r->state->receiveSlot(r->sslot, r->state);
}

static void
array_fill_shutdown(DestReceiver *self)
{
	ArrayFillReceiver *r = (ArrayFillReceiver *) self;

	r->dist->rShutdown(r->dist);
	r->state->rShutdown(r->state);
	ExecDropSingleTupleTableSlot(r->dslot);
	ExecDropSingleTupleTableSlot(r->sslot);
	r->dslot = r->sslot = NULL;
}

static void
array_fill_destroy(DestReceiver *self)
{
	ArrayFillReceiver *r = (ArrayFillReceiver *) self;

	r->dist->rDestroy(r->dist);
	r->state->rDestroy(r->state);
	pfree(r);
}

/*
 * do the columns of table relid, from the first, have the types of the
 * SELECT sql's first ncols columns (and their typmods, or none), and have
 * the table no other column than ncols?  (The rows are stored as they are.)
 */
static bool
columns_fit(Oid relid, const char *sql, int ncols)
{
	RawStmt    *raw = linitial_node(RawStmt, pg_parse_query(sql));
	Query	   *query = linitial_node(Query, pg_analyze_and_rewrite_fixedparams(raw, sql, NULL, 0, NULL));
	Relation	rel = table_open(relid, AccessShareLock);
	TupleDesc	desc = RelationGetDescr(rel);
	bool		ok = desc->natts == ncols;

	for (int i = 0; ok && i < ncols; i++)
	{
		TargetEntry *te = list_nth_node(TargetEntry, query->targetList, i);
		Form_pg_attribute a = TupleDescAttr(desc, i);

		ok = !a->attisdropped && exprType((Node *) te->expr) == a->atttypid &&
			(a->atttypmod < 0 || exprTypmod((Node *) te->expr) == a->atttypmod);
	}
	table_close(rel, AccessShareLock);
	return ok;
}

/*
 * fill_distinct_arrays - fill_distinct_once for multiplicities kept one row
 * per group (choose_arrays): one evaluation of the input, counted per
 * (group, x) and aggregated per group (dist_arrays_fill_sql), each group
 * written as its multiplicity row and its state row (ArrayFillReceiver).
 * No ALTER TABLE, no row with a null x to delete: the arrays hold the
 * non-null x only, a group's rows count its null x too.  Returns false,
 * nothing done, when either table cannot be filled in bulk or its columns
 * are not the fill's (the caller fills each from the input).
 */
static bool
fill_distinct_arrays(DvTable *dt, DvPlan *plan, const char *input, Snapshot snapshot, int j,
					 Oid distid, Oid stateid)
{
	int			nkeys = list_length(plan->key_columns);
	int			naggs = list_length(plan->aggs);
	char	   *sql = dist_arrays_fill_sql(nkeys, j, input, true);
	ArrayFillReceiver *r;
	Relation	dist;
	bool		fits;

	if (!OidIsValid(stateid) || !fillable(stateid) || !columns_fit(distid, sql, nkeys + 2))
		return false;
	dist = table_open(distid, AccessShareLock);
	fits = state_fits_counts(stateid, RelationGetDescr(dist), nkeys, naggs);
	table_close(dist, AccessShareLock);
	if (!fits)
		return false;
	r = palloc0(sizeof(ArrayFillReceiver));
	dv_dest_receiver_init(&r->pub, DestTransientRel, array_fill_startup, array_fill_receive,
						  array_fill_shutdown, array_fill_destroy);
	r->dist = dv_bulk_receiver(distid);
	r->state = dv_bulk_receiver(stateid);
	r->distid = distid;
	r->stateid = stateid;
	r->nkeys = nkeys;
	r->naggs = naggs;
	r->j = j;
	(void) dv_exec_fill_into(sql, snapshot, "refresh", psprintf("%s.%s", dt->schema_name, dt->table_name),
							 (DestReceiver *) r, distid);
	r->pub.rDestroy((DestReceiver *) r);
	CommandCounterIncrement();
	return true;
}

/*
 * fill_distinct_once - fill the aggregate state and the multiplicity table
 * of a grouped query whose aggregates are one count(DISTINCT x) and
 * count(*)s (distinct_once_agg: TPC-H Q16) from one evaluation of its input
 * (the SELECT input, columns g1..gn and x<j>).  The input's rows counted
 * per (group, x) are written straight into the multiplicity table, in bulk
 * and with a plan that may be parallel (dv_exec_fill: the table was created
 * in this transaction and has no index yet), its column v made nullable
 * for the fill (the rows with a null x count in their group's count(*)
 * too) unless x is a NOT NULL column no outer join nulls
 * (DvAgg.arg_notnull).  They are written sorted in the order of the multiplicities'
 * index, built last.  A group's state row follows from them: the sum of its
 * counts (dv_count, and each count(*)) and the number of its non-null x
 * (count(DISTINCT x): the rows are distinct per group and x, by the same
 * equality as GROUP BY and DISTINCT use), counted by the multiplicities'
 * writer as it writes them and written after them (DistinctCountReceiver),
 * or, when it gave up, read from the multiplicities by a second pass.  Last the rows with a null x are
 * deleted (if any were written) and v is NOT NULL again (as the table was
 * created; not altered at all when x cannot be null: an ALTER TABLE that
 * scans every multiplicity saved).  Before, the
 * counts went to a temporary table first and were copied into the
 * multiplicities (TPC-H Q16 at scale 1000: 175,727 rows, 0.4 s of a 2.5 s
 * build; bench/README.md); before that, the state's fill evaluated the input
 * with a count(DISTINCT), which sorts each group and is never parallel, and
 * the multiplicities' fill evaluated it again.  Multiplicities kept one
 * row per group (choose_arrays) are filled by fill_distinct_arrays instead.
 * Returns false, nothing done, when the query has another shape, or the
 * multiplicity table was not created in this subtransaction or has an
 * index (it could not be written in bulk).  Call as the table's owner
 * (dv_run_as_owner).
 */
static bool
fill_distinct_once(DvTable *dt, DvPlan *plan, const char *input, Snapshot snapshot)
{
	int			j = distinct_once_agg(plan);
	int			nkeys = list_length(plan->key_columns);
	char	   *dist;
	char	   *qdist;
	StringInfoData buf;
	Oid			distid;
	Oid			stateid;
	DistinctCountReceiver *counter;
	uint64		written;
	int64		nonnull;
	bool		nullable;
	bool		state_written;

	if (j == 0)
		return false;
	dist = dist_name(dt->relid, j);
	qdist = qualified_state(dist);
	distid = get_relname_relid(dist, get_namespace_oid(DV_STATE_SCHEMA, false));
	if (!OidIsValid(distid) || !fillable(distid))
		return false;
	stateid = get_relname_relid(state_name(dt->relid), get_namespace_oid(DV_STATE_SCHEMA, false));
	if (dist_arrays(distid))
		return fill_distinct_arrays(dt, plan, input, snapshot, j, distid, stateid);
	counter = distinct_count_receiver(distid, OidIsValid(stateid) && fillable(stateid) ? stateid : InvalidOid,
									  nkeys, list_length(plan->aggs), j);

	/*
	 * The counts per (group, x), a null x included, into the multiplicities;
	 * v made nullable for them unless x is a NOT NULL column that no outer
	 * join nulls (DvAgg.arg_notnull: TPC-H Q16's ps_suppkey), which gives no
	 * null x: then neither ALTER TABLE, nor the scan of SET NOT NULL over
	 * every multiplicity.
	 */
	nullable = !((DvAgg *) list_nth(plan->aggs, j - 1))->arg_notnull;
	if (nullable)
	{
		dv_catalog_exec(psprintf("ALTER TABLE %s ALTER COLUMN v DROP NOT NULL", qdist), 0, NULL, NULL, NULL, -1);
		CommandCounterIncrement();
	}
	if (state_indexed(plan))
	{
		/*
		 * In the order of the index built on (v, g1, ..., gn) afterwards
		 * (create_state_index), grouped by the same sort: the index build
		 * reads its rows presorted, which its sort checks first and then
		 * does not sort again (TPC-H Q16 at scale 3000, 516,742 rows whose
		 * keys are two texts compared by the collation: 455-586 ms of CPU
		 * for the index over rows in hash order, 204-271 ms over sorted
		 * ones; the sort costs the fill 105-158 ms more than its hash
		 * aggregate, which spills at work_mem; bench/README.md).  The
		 * planner would hash the groups (cheaper alone): hashing is off for
		 * this statement only.  Every key and x sort: PostgreSQL groups a
		 * count(DISTINCT) by sorting (its keys have a btree, state_indexed,
		 * checked all the same: else the hashed fill, and no index).
		 */
		int			level = NewGUCNestLevel();
		char	   *order = psprintf("x%d%s", j, nkeys > 0 ? psprintf(", %s", key_cols(nkeys, "")) : "");

		(void) set_config_option("enable_hashagg", "off", PGC_USERSET, PGC_S_SESSION,
								 GUC_ACTION_SAVE, true, 0, false);
		written = dv_exec_fill_into(psprintf("SELECT %sx%d, pg_catalog.count(*) FROM (%s) dv_i GROUP BY %s ORDER BY %s",
											 key_list(nkeys, ""), j, input, order, order),
									snapshot, "refresh", psprintf("%s.%s", dt->schema_name, dt->table_name),
									(DestReceiver *) counter, distid);
		AtEOXact_GUC(true, level);
	}
	else
		written = dv_exec_fill_into(psprintf("SELECT %sx%d, pg_catalog.count(*) FROM (%s) dv_i%s",
											 key_list(nkeys, ""), j, input, group_by(nkeys, psprintf("x%d", j))),
									snapshot, "refresh", psprintf("%s.%s", dt->schema_name, dt->table_name),
									(DestReceiver *) counter, distid);
	nonnull = counter->nonnull;
	state_written = counter->state_written;
	counter->pub.rDestroy((DestReceiver *) counter);
	CommandCounterIncrement();

	/*
	 * The state: counts summed, the non-null x counted; written by the
	 * multiplicities' writer as it wrote them, unless it gave up (then read
	 * from the multiplicities)
	 */
	if (!state_written)
	{
		initStringInfo(&buf);
		appendStringInfo(&buf, "SELECT %spg_catalog.sum(dv_mult)::pg_catalog.int8 AS dv_count, false AS dv_recompute",
						 key_list(nkeys, ""));
		for (int k = 1; k <= list_length(plan->aggs); k++)
		{
			if (k == j)
				appendStringInfo(&buf, ", pg_catalog.count(v) AS a%d", j);
			else
				appendStringInfo(&buf, ", pg_catalog.sum(dv_mult)::pg_catalog.int8 AS a%d", k);
		}
		appendStringInfo(&buf, " FROM %s%s", qdist, group_by(nkeys, NULL));
		fill_state(dt, state_name(dt->relid), buf.data, NULL, snapshot);
	}

	/*
	 * The multiplicities are of the non-null x only, as the table was made.
	 * A group has one row per distinct x, a null x included: only if the
	 * rows written outnumber those with a non-null x (counted as they were
	 * written) is there a row with a null x to delete (a scan of the
	 * multiplicities saved otherwise).
	 */
	CommandCounterIncrement();
	if ((int64) written != nonnull)
	{
		dv_exec_at(psprintf("DELETE FROM %s WHERE v IS NULL", qdist), snapshot, false);
		CommandCounterIncrement();
	}
	if (nullable)
	{
		dv_catalog_exec(psprintf("ALTER TABLE %s ALTER COLUMN v SET NOT NULL", qdist), 0, NULL, NULL, NULL, -1);
		CommandCounterIncrement();
	}
	return true;
}

/*
 * reads_optional_filter_state - does plan's input, spelled by
 * read_states_now, read an optional filter state (optree.h: a selective
 * filter on a side of an inner join, kept when its statistics say it keeps
 * few rows), built just before by build_operator_states?
 *
 * The aggregate state's fill over such an input is planned with
 * min_parallel_table_scan_size 0: the state holds the rows the view's plan
 * drives its joins from (a parallel scan of the source under the filter,
 * the other sides read by key in the workers), but it is small (TPC-H Q8's 5,000 parts of part's 750,000: 40 pages), and
 * PostgreSQL scans a table of less than min_parallel_table_scan_size (8 MB
 * by default) only serially.  Q8's fill at SF1 then took a parallel scan of
 * customer as its driver instead, 365,000 lineitems read by key
 * (estimated 136,910, 2.3 s) against the view's 40,000 (0.6 s); allowed a
 * parallel scan of the state, it drives from it (estimated 88,662, 0.38 s).
 * A parallel plan is still taken only for a large estimated gain
 * (dv_plan_fill).  Catalog lookups only.
 */
static bool
reads_optional_filter_state(DvPlan *plan)
{
	ListCell   *lc;

	foreach(lc, dv_optree_state_ops(plan))
	{
		DvOp	   *op = lfirst(lc);

		if (op->kind == DV_OP_FILTER && op->state_optional && dv_optree_filter_state_chosen(op) &&
			dv_optree_state_usable(op))
			return true;
	}
	return false;
}

/*
 * dv_agg_state_rebuild - after a FULL refresh at snapshot: drop the table's
 * state and, if its plan keeps aggregates in place, build it from the
 * sources at the same snapshot.  Needs SPI.
 */
void
dv_agg_state_rebuild(DvTable *dt, Snapshot snapshot)
{
	DvPlan	   *plan;
	int			save_nestlevel;
	Oid			save_userid;
	int			save_sec;
	int			nkeys;
	StringInfoData cols;
	ListCell   *lc;
	char	   *input;

	dv_agg_state_drop(dt->relid);
	if (strcmp(dt->effective_mode, "INCREMENTAL") != 0)
		return;
	dv_run_as_owner(dt->owner, &save_nestlevel, &save_userid, &save_sec);
	plan = dv_plan_cache_plan(dt);
	dv_restore_user(save_nestlevel, save_userid, save_sec);
	build_operator_states(dt, plan, snapshot);
	if (plan->kind == DV_PLAN_TOPN && plan->topn_state_rows > 0)
	{
		char	   *like = psprintf("LIKE %s", quote_qualified_identifier(dt->schema_name, dt->table_name));

		create_state_table(dt, topn_name(dt->relid), like, false);
		create_state_table(dt, topn_bound_name(dt->relid), like, false);
		dv_set_current_table(quote_qualified_identifier(dt->schema_name, dt->table_name));
		dv_run_as_owner(dt->owner, &save_nestlevel, &save_userid, &save_sec);
		if (!topn_fill_from_state(dt, plan, snapshot))
			dv_topn_state_fill(dt, plan, snapshot);
		dv_restore_user(save_nestlevel, save_userid, save_sec);
		CommandCounterIncrement();
		return;
	}
	if (!plan->agg_state)
		return;
	nkeys = list_length(plan->key_columns);

	/* the state table */
	initStringInfo(&cols);
	foreach(lc, plan->key_types)
		appendStringInfo(&cols, "g%d %s, ", foreach_current_index(lc) + 1, (char *) lfirst(lc));
	appendStringInfoString(&cols, "dv_count pg_catalog.int8 NOT NULL, dv_recompute boolean NOT NULL");
	foreach(lc, plan->aggs)
	{
		DvAgg	   *agg = lfirst(lc);

		appendStringInfo(&cols, ", a%d %s%s", foreach_current_index(lc) + 1, agg->value_type,
						 is_extreme(agg) ? agg->arg_collate : "");
	}
	foreach(lc, plan->aggs)
	{
		DvAgg	   *agg = lfirst(lc);
		int			j = foreach_current_index(lc) + 1;

		if (has_n(agg))
			appendStringInfo(&cols, ", n%d pg_catalog.int8 NOT NULL", j);
		if (has_s(agg))
			appendStringInfo(&cols, ", s%d pg_catalog.numeric", j);
		if (is_variance(agg))
			appendStringInfo(&cols, ", q%d pg_catalog.numeric", j);
		if (agg->scale_tracked)
			appendStringInfo(&cols, ", sc%d pg_catalog.numeric NOT NULL", j);
		if (is_bool(agg))
			appendStringInfo(&cols, ", nt%d pg_catalog.int8 NOT NULL", j);
	}
	create_state_table(dt, state_name(dt->relid), cols.data, true);

	/*
	 * filled as the owner (it reads the sources) at the refresh's snapshot;
	 * an input over operators that keep a state reads their states, just
	 * filled (TPC-H Q13: the customers' order counts, counted per count)
	 */
	dv_run_as_owner(dt->owner, &save_nestlevel, &save_userid, &save_sec);
	read_states_now(plan, true);
	/*
	 * (without the filters dynview derives from an OR over several
	 * relations: the planner derives them from the OR, which the input
	 * keeps, and counted both, TPC-H Q7's two nations, each FRANCE or
	 * GERMANY, were estimated 1 row instead of 2 and its fill a quarter of
	 * its rows, so that its parallel plan saved less than dv_plan_fill asks
	 * and the fill ran serially: 3.3-3.4 s against 2.2 s parallel, the
	 * view's 2.2 s; bench/README.md, twenty-first session)
	 */
	dv_optree_leave_implied_filters(true);
	PG_TRY();
	{
		input = dv_input_sql(plan);
	}
	PG_FINALLY();
	{
		dv_optree_leave_implied_filters(false);
	}
	PG_END_TRY();
	read_states_now(plan, false);

	/*
	 * the multiplicity tables of count(DISTINCT): one row per group and
	 * value, or one per group (choose_arrays, which plans the input as its
	 * owner)
	 */
	foreach(lc, plan->aggs)
	{
		DvAgg	   *agg = lfirst(lc);
		int			j = foreach_current_index(lc) + 1;
		ListCell   *lk;

		if (agg->kind != DV_AGG_COUNT_DISTINCT)
			continue;
		resetStringInfo(&cols);
		foreach(lk, plan->key_types)
			appendStringInfo(&cols, "g%d %s, ", foreach_current_index(lk) + 1, (char *) lfirst(lk));
		if (choose_arrays(plan, agg, j, input))
			appendStringInfo(&cols, "vs %s[]%s NOT NULL, ms pg_catalog.int8[] NOT NULL",
							 agg->arg_type, agg->arg_collate);
		else
			appendStringInfo(&cols, "v %s%s NOT NULL, dv_mult pg_catalog.int8 NOT NULL",
							 agg->arg_type, agg->arg_collate);
		dv_restore_user(save_nestlevel, save_userid, save_sec);
		create_state_table(dt, dist_name(dt->relid, j), cols.data, true);
		dv_run_as_owner(dt->owner, &save_nestlevel, &save_userid, &save_sec);
	}
	dv_restore_user(save_nestlevel, save_userid, save_sec);
	dv_set_current_table(quote_qualified_identifier(dt->schema_name, dt->table_name));
	dv_run_as_owner(dt->owner, &save_nestlevel, &save_userid, &save_sec);

	if (!fill_distinct_once(dt, plan, input, snapshot))
	{
		char	   *shared = fill_input(plan, input);
		int			level = NewGUCNestLevel();

		/* (an optional filter state may drive the fill in parallel: reads_optional_filter_state) */
		if (reads_optional_filter_state(plan))
			(void) set_config_option("min_parallel_table_scan_size", "0", PGC_USERSET, PGC_S_SESSION,
									 GUC_ACTION_SAVE, true, 0, false);

		/* (the input as it is, where it is kept apart: read in parallel if it may be) */
		fill_state(dt, state_name(dt->relid),
				   psprintf("SELECT %s%s FROM (%s) dv_i%s", key_list(nkeys, ""),
							state_from_input(plan), shared, group_by(nkeys, NULL)),
				   shared == input ? NULL :
				   psprintf("SELECT %s%s FROM (%s) dv_i%s", key_list(nkeys, ""),
							state_from_input(plan), input, group_by(nkeys, NULL)),
				   snapshot);
		foreach(lc, plan->aggs)
		{
			int			j = foreach_current_index(lc) + 1;

			if (((DvAgg *) lfirst(lc))->kind != DV_AGG_COUNT_DISTINCT)
				continue;
			if (dist_arrays(get_relname_relid(dist_name(dt->relid, j), get_namespace_oid(DV_STATE_SCHEMA, false))))
				fill_state(dt, dist_name(dt->relid, j), dist_arrays_fill_sql(nkeys, j, input, false), NULL, snapshot);
			else
				fill_state(dt, dist_name(dt->relid, j),
						   psprintf("SELECT %sx%d, pg_catalog.count(*) FROM (%s) dv_i WHERE x%d IS NOT NULL%s",
									key_list(nkeys, ""), j, input, j, group_by(nkeys, psprintf("x%d", j))),
						   NULL, snapshot);
		}
		AtEOXact_GUC(true, level);
	}
	dv_restore_user(save_nestlevel, save_userid, save_sec);

	/* indexes last: faster than maintaining them while filling */
	create_state_index(plan, state_name(dt->relid), NULL);
	foreach(lc, plan->aggs)
	{
		char	   *dist = dist_name(dt->relid, foreach_current_index(lc) + 1);

		if (((DvAgg *) lfirst(lc))->kind == DV_AGG_COUNT_DISTINCT)
			create_state_index(plan, dist,
							   dist_arrays(get_relname_relid(dist, get_namespace_oid(DV_STATE_SCHEMA, false))) ? NULL : "v");
	}
	CommandCounterIncrement();
}

static char *column_list(Oid relid, const char *prefix);

/*
 * topn_projection - the rows of a top-N table (no OFFSET) from the state
 * dv_topn_state_fill just wrote at snapshot, or NULL when it cannot give
 * them.  The fill read the query's first topn_state_rows + 1 rows; the
 * state holds those that sort strictly before the last (the bound), or all
 * of them when there were no more (no bound).  The query's first topn_rows
 * rows are then the state's first topn_rows in the query's order when the
 * state has that many (rows that tie with the n-th are picked among as the
 * query's LIMIT picks among them), or the whole state when it has no
 * bound; else (rows tie with the bound before the n-th) NULL.  Runs as the
 * table's owner.
 */
static char *
topn_projection(DvTable *dt, DvPlan *plan, Snapshot snapshot)
{
	char	   *state = dv_topn_state_table(dt->relid, false);
	char	   *bound = dv_topn_state_table(dt->relid, true);
	bool		isnull;
	int64		held;

	/* (read as writes: they see what the fill just wrote) */
	if (dv_exec_at(psprintf("SELECT pg_catalog.count(*) FROM %s", state), snapshot, false) != 1)
		elog(ERROR, "dynview: could not count the state of a top-N table");
	held = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	if (held < plan->topn_rows &&
		dv_exec_at(psprintf("SELECT 1 FROM %s", bound), snapshot, false) > 0)
		return NULL;
	return psprintf("SELECT %s FROM %s ORDER BY %s LIMIT " INT64_FORMAT,
					column_list(dt->relid, ""), state, plan->topn_order, plan->topn_rows);
}

/*
 * spj_projection - the rows of a table without grouping at its top whose
 * operators keep states (dv_agg_state_rebuild just filled them): its tree's
 * rows now, each operator that keeps a state read from it (TPC-H Q15, Q20:
 * the revenues per supplier, the quantities per part and supplier, not
 * computed again from lineitem), or NULL when those rows do not have the
 * table's column types exactly (the definition then builds the table).
 * Runs as the table's owner.
 */
static char *
spj_projection(DvTable *dt, DvPlan *plan)
{
	char	   *sql;
	Relation	rel;
	bool		fits;

	read_states_now(plan, true);
	sql = psprintf("SELECT %s FROM (%s) dv_n", column_list(dt->relid, "dv_n."), dv_input_sql(plan));
	read_states_now(plan, false);
	rel = table_open(dt->relid, AccessShareLock);
	fits = rows_fit_table(sql, rel);
	table_close(rel, AccessShareLock);
	return fits ? sql : NULL;
}

/*
 * some_state_built - does one of the plan's operators that can keep a state
 * keep one (build_operator_states built it)?  Where none does (each
 * recomputes its groups through an index: dv_optree_index_rule_chosen),
 * the table's rows from its tree would compute every group of each from
 * its source (TPC-H Q20: the quantities of every part and supplier of a
 * year, a scan of lineitem), while the definition's plan looks up the
 * groups it needs (the parts of one name's prefix, through lineitem's
 * index on (l_partkey, l_suppkey)): the definition builds the table.
 */
static bool
some_state_built(DvPlan *plan)
{
	ListCell   *lc;

	foreach(lc, dv_optree_state_ops(plan))
	{
		/* (a filter state holds a source's rows, no groups to project from) */
		if (((DvOp *) lfirst(lc))->kind != DV_OP_FILTER && !dv_optree_index_rule_chosen(lfirst(lc)))
			return true;
	}
	return false;
}

/*
 * dv_agg_state_projection - the dynamic table's rows computed from its
 * state (dv_agg_state_rebuild just built it at snapshot): from the
 * aggregate state, or the first rows of a top-N table from the state of its
 * input's first rows (topn_projection); a query, or NULL when the table
 * keeps no state that gives them.  The initial build writes the table from
 * it, so the sources are read once, for the state.  Needs SPI.
 */
char *
dv_agg_state_projection(DvTable *dt, Snapshot snapshot)
{
	Oid			nsp = get_namespace_oid(DV_STATE_SCHEMA, true);
	Oid			state = OidIsValid(nsp) ? get_relname_relid(state_name(dt->relid), nsp) : InvalidOid;
	DvPlan	   *plan;
	int			save_nestlevel;
	Oid			save_userid;
	int			save_sec;
	char	   *sql = NULL;

	if (strcmp(dt->effective_mode, "INCREMENTAL") != 0)
		return NULL;
	dv_run_as_owner(dt->owner, &save_nestlevel, &save_userid, &save_sec);
	plan = dv_plan_cache_plan(dt);
	if (plan->kind == DV_PLAN_TOPN && plan->topn_state_rows > 0 && plan->topn_offset == 0 &&
		OidIsValid(nsp) && OidIsValid(get_relname_relid(topn_name(dt->relid), nsp)))
		sql = topn_projection(dt, plan, snapshot);
	else if (plan->kind == DV_PLAN_SPJ && plan->branches == NIL && some_state_built(plan))
		sql = spj_projection(dt, plan);
	dv_restore_user(save_nestlevel, save_userid, save_sec);
	if (sql != NULL || !OidIsValid(state) || !plan->agg_state)
		return sql;
	return dv_state_projection_sql(plan, state);
}

/*
 * The group delta's sums of dv_w * e over its rows (e a numeric expression
 * of the row; NULL when every e is NULL) are taken without a multiplication
 * per row where the weight is 1 or -1: nearly every row (a change row's
 * weight; a join's rows multiply two such), and a numeric multiplication
 * (with the weight's cast) per aggregate per row was the largest per-row
 * cost of the statement (TPC-H Q1's seven sums: about 8 us a row).  Each
 * row enters one of three sums (weighted_sums: <col>_p of the rows of
 * weight 1, <col>_m of weight -1, <col>_o of dv_w * e for the others),
 * which the statement's outer level combines (combined_sum).  Exact:
 * numeric sums; NaN and the infinities still make the result NaN or
 * infinite (d<j>_special), though not always the same one.
 *
 * Each aggregate call and each input expression is written once in the
 * statement's text (group_delta_sql): the combination names the three
 * sums' columns, not the sums, and a display scale's block (scale_unit,
 * nine numeric literals) is one column of the input.  The text is parsed,
 * analysed and planned once per backend (statements.c), in a new
 * connection's first refresh: when each sum's three aggregate calls were
 * written twice in its value and twice more in its NaN test, and a scale
 * block's CASE six times, TPC-H Q14's statement had 10,844 characters and
 * took 3.3 ms to parse and analyse, a third of its first execution (now
 * 4,099 characters, 1.7 ms; bench/README.md, sixteenth session).
 */
static char *
weighted_sums(const char *e, const char *e_other, const char *col)
{
	/* (e_other: e as the others' weights multiply it; NULL: e itself) */
	return psprintf(", pg_catalog.sum(%s) FILTER (WHERE dv_w = 1) AS %s_p"
					", pg_catalog.sum(%s) FILTER (WHERE dv_w = -1) AS %s_m"
					", pg_catalog.sum(dv_w * %s) FILTER (WHERE dv_w <> 1 AND dv_w <> -1) AS %s_o",
					e, col, e, col, e_other ? e_other : e, col);
}

/*
 * SQL: the weighted sums of input x<j> of an aggregate (weighted_sums), as
 * numeric sums.  An integer input (smallint, integer, bigint, a domain over
 * one) is summed as bigint where its weight is 1 or -1: PostgreSQL's
 * sum(bigint) is numeric, exact, and adds in a 128-bit integer, not in
 * numeric, and the cast to bigint allocates nothing (the dashboard's
 * sum(quantity), 1,268 rows a refresh); the other weights' products stay
 * numeric, which cannot overflow.
 */
static char *
input_sums(DvAgg *agg, int j)
{
	char	   *num = psprintf("x%d::pg_catalog.numeric", j);
	Oid			base = OidIsValid(agg->arg_typid) ? getBaseType(agg->arg_typid) : InvalidOid;

	if (base == INT2OID || base == INT4OID || base == INT8OID)
		return weighted_sums(psprintf("x%d::pg_catalog.int8", j), num, psprintf("dv_s%d", j));
	return weighted_sums(num, NULL, psprintf("dv_s%d", j));
}

/* SQL: the weighted sum from the columns weighted_sums made under col */
static char *
combined_sum(const char *col)
{
	return psprintf("(CASE WHEN %s_p IS NULL AND %s_m IS NULL AND %s_o IS NULL THEN NULL "
					"ELSE COALESCE(%s_p, 0) - COALESCE(%s_m, 0) + COALESCE(%s_o, 0) END)",
					col, col, col, col, col, col);
}

/*
 * group_delta_sql - SQL: the group delta dv_gd(g.., dv_dcount, d<j>_...)
 * of input, whose rows have the keys g.., the inputs x.., their weight dv_w
 * and count(DISTINCT)'s transitions c<j>: the aggregates per group (inner
 * level), then the columns of dv_gd from them.  With only_changed, the
 * groups whose every count and sum is 0 are left out (group_delta_changed).
 */
static char *group_delta_changed(DvPlan *plan);
static void group_restrictions(DvPlan *plan, const KeyMatch *km, char **restrict_q, char **restrict_t,
							   DvParams *params);

static char *
group_delta_sql(DvPlan *plan, const char *input, bool only_changed)
{
	int			nkeys = list_length(plan->key_columns);
	char	   *keys = key_list(nkeys, "");
	StringInfoData units;
	StringInfoData inner;
	StringInfoData outer;
	ListCell   *lc;
	char	   *sql;

	initStringInfo(&units);
	initStringInfo(&inner);
	initStringInfo(&outer);
	foreach(lc, plan->aggs)
	{
		DvAgg	   *agg = lfirst(lc);
		int			j = foreach_current_index(lc) + 1;
		const char *ext = agg->kind == DV_AGG_MAX ? "max" : "min";

		switch (agg->kind)
		{
			case DV_AGG_COUNT_STAR:
				break;
			case DV_AGG_COUNT:
				appendStringInfo(&inner, ", pg_catalog.sum(dv_w) FILTER (WHERE x%d)::pg_catalog.int8 AS d%d_n", j, j);
				appendStringInfo(&outer, ", d%d_n", j);
				break;
			case DV_AGG_SUM:
			case DV_AGG_AVG:
			case DV_AGG_VAR_SAMP:
			case DV_AGG_VAR_POP:
			case DV_AGG_STDDEV_SAMP:
			case DV_AGG_STDDEV_POP:

				/*
				 * (d<j>_special from the sum itself: NaN or an infinity in
				 * the input makes the sum NaN or infinite, and a finite sum
				 * has neither, so no second test per row)
				 */
				{
					char	   *s = combined_sum(psprintf("dv_s%d", j));

					appendStringInfo(&inner, ", pg_catalog.sum(dv_w) FILTER (WHERE x%d IS NOT NULL)::pg_catalog.int8 AS d%d_n%s",
									 j, j, input_sums(agg, j));
					appendStringInfo(&outer, ", d%d_n, %s AS d%d_s, %s IN ('NaN', 'Infinity', '-Infinity') AS d%d_special",
									 j, s, j, s, j);
				}
				if (is_variance(agg))
				{
					appendStringInfoString(&inner,
										   weighted_sums(psprintf("(x%d::pg_catalog.numeric * x%d::pg_catalog.numeric)", j, j), NULL,
														 psprintf("dv_q%d", j)));
					appendStringInfo(&outer, ", %s AS d%d_q", combined_sum(psprintf("dv_q%d", j)), j);
				}
				if (agg->scale_tracked)
				{
					appendStringInfo(&units, ", %s AS dv_u%d", scale_unit(j), j);
					appendStringInfoString(&inner, weighted_sums(psprintf("dv_u%d", j), NULL, psprintf("dv_sc%d", j)));
					appendStringInfo(&outer, ", %s AS d%d_sc", combined_sum(psprintf("dv_sc%d", j)), j);
				}
				break;
			case DV_AGG_BOOL_AND:
			case DV_AGG_BOOL_OR:
				appendStringInfo(&inner, ", pg_catalog.sum(dv_w) FILTER (WHERE x%d IS NOT NULL)::pg_catalog.int8 AS d%d_n"
								 ", pg_catalog.sum(dv_w) FILTER (WHERE x%d)::pg_catalog.int8 AS d%d_t",
								 j, j, j, j);
				appendStringInfo(&outer, ", d%d_n, d%d_t", j, j);
				break;
			case DV_AGG_MIN:
			case DV_AGG_MAX:
				appendStringInfo(&inner, ", pg_catalog.sum(dv_w) FILTER (WHERE x%d IS NOT NULL)::pg_catalog.int8 AS d%d_n"
								 ", pg_catalog.%s(x%d) FILTER (WHERE dv_w > 0) AS d%d_p"
								 ", pg_catalog.%s(x%d) FILTER (WHERE dv_w < 0) AS d%d_m",
								 j, j, ext, j, j, ext, j, j);
				appendStringInfo(&outer, ", d%d_n, d%d_p, d%d_m", j, j, j);
				break;
			case DV_AGG_COUNT_DISTINCT:
				appendStringInfo(&inner, ", pg_catalog.sum(c%d)::pg_catalog.int8 AS d%d_c", j, j);
				appendStringInfo(&outer, ", d%d_c", j);
				break;
		}
	}
	sql = psprintf("SELECT %sdv_dcount%s FROM (SELECT %spg_catalog.sum(dv_w)::pg_catalog.int8 AS dv_dcount%s "
				   "FROM (SELECT *%s FROM (%s) dv_v) dv_u%s) dv_a",
				   keys, outer.data, keys, inner.data, units.data, input, group_by(nkeys, NULL));
	if (only_changed)
		sql = psprintf("SELECT * FROM (%s) dv_g WHERE %s", sql, group_delta_changed(plan));
	return sql;
}

/*
 * linear_aggregates - is every aggregate's group delta a sum over the input
 * rows of weight times a function of the row (count, sum, avg, the variance
 * family, bool_and/or counted as n and nt)?  Then the delta of the input
 * need not be consolidated first: a row added and removed in one window
 * adds w - w = 0 to every sum, and d<j>_special (a sum that is NaN or
 * infinite) merely recomputes its group.  min/max take the extreme of the
 * inserted and of the removed rows, which such a pair would move (an
 * inserted value that is no longer there), and count(DISTINCT) needs net
 * multiplicities per value: those keep the consolidated input dv_in.
 */
static bool
linear_aggregates(DvPlan *plan)
{
	ListCell   *lc;

	foreach(lc, plan->aggs)
	{
		DvAgg	   *agg = lfirst(lc);

		if (is_extreme(agg) || agg->kind == DV_AGG_COUNT_DISTINCT)
			return false;
	}
	return true;
}

/* dv_agg_state_linear - linear_aggregates for incremental.c (its windows read as they are) */
bool
dv_agg_state_linear(DvPlan *plan)
{
	return linear_aggregates(plan);
}

/*
 * absent_groups_unchanged - how many groups of the group delta dv_gd the
 * state's MERGE left alone because they were not in the state and their
 * delta adds no row (dv_dcount 0, every non-NULL count 0): absent before,
 * absent after, whatever their sums.  Such a group reaches dv_gd when the
 * delta's rows are not consolidated and a sum does not cancel to 0: a pair
 * +r/-r with a NaN (NaN - NaN is NaN), which an operator's delta (a
 * semi-join's rows whose matches changed beside the join's delta rows)
 * yields even over consolidated windows.  Counted only when the MERGE
 * processed fewer rows than dv_gd has, after it (a group it deleted had a
 * negative dv_dcount): a group with other counts is still a mismatch.
 */
static uint64
absent_groups_unchanged(DvPlan *plan, const KeyMatch *km, const char *st, Snapshot snapshot)
{
	StringInfoData sql;
	ListCell   *lc;
	bool		isnull;
	Datum		d;

	initStringInfo(&sql);
	appendStringInfo(&sql, "SELECT pg_catalog.count(*) FROM %s d WHERE d.dv_dcount = 0", key_rel(km, "dv_gd"));
	foreach(lc, plan->aggs)
	{
		DvAgg	   *agg = lfirst(lc);
		int			j = foreach_current_index(lc) + 1;

		if (agg->kind == DV_AGG_COUNT || has_n(agg))
			appendStringInfo(&sql, " AND COALESCE(d.d%d_n, 0) = 0", j);
	}
	appendStringInfo(&sql, " AND NOT EXISTS (SELECT 1 FROM %s s WHERE %s)", st,
					 key_match(km, "s", "d"));
	dv_exec_at(sql.data, snapshot, true);
	d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	return isnull ? 0 : (uint64) DatumGetInt64(d);
}

/*
 * SQL: does the group delta dv_g change its group?  (linear_aggregates
 * only: some count or sum of it is not 0)
 */
static char *
group_delta_changed(DvPlan *plan)
{
	StringInfoData buf;
	ListCell   *lc;

	initStringInfo(&buf);
	appendStringInfoString(&buf, "COALESCE(dv_g.dv_dcount, 0) <> 0");
	foreach(lc, plan->aggs)
	{
		DvAgg	   *agg = lfirst(lc);
		int			j = foreach_current_index(lc) + 1;

		if (agg->kind == DV_AGG_COUNT || has_n(agg))
			appendStringInfo(&buf, " OR COALESCE(dv_g.d%d_n, 0) <> 0", j);
		if (sums_numbers(agg))
			appendStringInfo(&buf, " OR COALESCE(dv_g.d%d_s, 0) <> 0", j);
		if (is_variance(agg))
			appendStringInfo(&buf, " OR COALESCE(dv_g.d%d_q, 0) <> 0", j);
		if (sums_numbers(agg) && agg->scale_tracked)
			appendStringInfo(&buf, " OR COALESCE(dv_g.d%d_sc, 0) <> 0", j);
		if (is_bool(agg))
			appendStringInfo(&buf, " OR COALESCE(dv_g.d%d_t, 0) <> 0", j);
	}
	return buf.data;
}

/* SQL: the scale counts sc<j> after the group delta d (added to state row s if matched) */
static char *
new_scale_counts(int j, bool matched)
{
	return matched ? psprintf("(s.sc%d + COALESCE(d.d%d_sc, 0))", j, j)
		: psprintf("COALESCE(d.d%d_sc, 0)", j);
}

/*
 * SQL: the exact sum of state column col<j> after the group delta's
 * d<j>_<dcol>, NULL when no non-null input is left (n is the new non-null
 * count).  When scale_tracked it has the display scale PostgreSQL's
 * accumulator would have: the largest live input scale for a sum, twice
 * that for a sum of squares (squared).
 */
static char *
new_sum(DvAgg *agg, int j, const char *col, const char *dcol, const char *n, bool matched, bool squared)
{
	char	   *sum = psprintf("%sCOALESCE(d.d%d_%s, 0)",
							   matched ? psprintf("COALESCE(s.%s%d, 0) + ", col, j) : "", j, dcol);

	if (agg->scale_tracked)
		sum = psprintf("pg_catalog.round(%s, %s(%s))", sum, squared ? "2 * " : "",
					   dv_scale_of_counts_sql(new_scale_counts(j, matched)));
	return psprintf("CASE WHEN %s = 0 THEN NULL ELSE %s END", n, sum);
}

/*
 * SQL: var_samp/var_pop/stddev_samp/stddev_pop from the new non-null count
 * n, sum sum and sum of squares sq, digit for digit as numeric.c's
 * numeric_stddev_internal computes them: NULL below 2 (sample) or 1 inputs;
 * NaN when an input is NaN or infinite; 0 when N * sum(X*X) - sum(X)^2,
 * computed exactly at the sums' scales, is not positive; else that divided
 * by N * (N - 1) or N * N with numeric division's own scale (the same
 * division as numeric "/"), and for stddev its square root rounded (half
 * up) to that same scale.  SQL's sqrt() may choose more digits; its result,
 * rounded to the scale, can then be one unit off (double rounding), so the
 * root is settled exactly: r is right when (r - h)^2 <= v < (r + h)^2,
 * h half a unit.
 */
static char *
variance_value(DvAgg *agg, const char *n, const char *sum, const char *sq)
{
	bool		sample = agg->kind == DV_AGG_VAR_SAMP || agg->kind == DV_AGG_STDDEV_SAMP;
	char	   *v = psprintf("SELECT dv_v.num, CASE WHEN dv_v.n <= %d THEN NULL "
							 "WHEN dv_v.sx IN ('NaN', 'Infinity', '-Infinity') THEN 'NaN'::pg_catalog.numeric "
							 "WHEN dv_v.num <= 0 THEN 0::pg_catalog.numeric "
							 "ELSE dv_v.num / (dv_v.n::pg_catalog.numeric * (dv_v.n - %d)::pg_catalog.numeric) END AS v "
							 "FROM (SELECT dv_i.n, dv_i.sx, dv_i.n::pg_catalog.numeric * dv_i.sq - dv_i.sx * dv_i.sx AS num "
							 "FROM (SELECT %s AS n, %s AS sx, %s AS sq) dv_i) dv_v",
							 sample ? 1 : 0, sample ? 1 : 0, n, sum, sq);

	if (agg->kind == DV_AGG_VAR_SAMP || agg->kind == DV_AGG_VAR_POP)
		return psprintf("(SELECT dv_w.v FROM (%s) dv_w)", v);
	return psprintf("(SELECT CASE WHEN dv_r.v IS NULL OR dv_r.v = 'NaN' OR dv_r.num <= 0 THEN dv_r.v "
					"WHEN dv_r.r > 0 AND (dv_r.r - dv_r.h) * (dv_r.r - dv_r.h) > dv_r.v THEN dv_r.r - dv_r.u "
					"WHEN (dv_r.r + dv_r.h) * (dv_r.r + dv_r.h) <= dv_r.v THEN dv_r.r + dv_r.u "
					"ELSE dv_r.r END "
					"FROM (SELECT dv_w.v, dv_w.num, "
					"pg_catalog.round(pg_catalog.sqrt(dv_w.v), pg_catalog.scale(dv_w.v)) AS r, "
					"('1e-' || pg_catalog.scale(dv_w.v))::pg_catalog.numeric AS u, "
					"('5e-' || (pg_catalog.scale(dv_w.v) + 1))::pg_catalog.numeric AS h "
					"FROM (%s) dv_w) dv_r)", v);
}

/*
 * the group delta's column by which aggregate j (agg) may flag a group for a
 * recompute: d<j>_special (true: a NaN or infinite sum) for a sum of numbers,
 * d<j>_m (not NULL: an extreme went) for min/max; NULL for the others.  The
 * MERGE's recompute_condition and group_delta_may_flag's look in C read it.
 */
static char *
flag_column(DvAgg *agg, int j)
{
	if (sums_numbers(agg))
		return psprintf("d%d_special", j);
	if (is_extreme(agg))
		return psprintf("d%d_m", j);
	return NULL;
}

/*
 * can the MERGE flag any group of the group delta in SPI_tuptable for a
 * recompute (recompute_condition)?  Only a delta's NaN or infinite sum
 * (d<j>_special) or an extreme that went (d<j>_m not NULL) flags one, or a
 * scale that the state alone tells; no state row is flagged when a refresh
 * starts (step 5 recomputes every changed group the MERGE flags and clears
 * its flag, in the refresh's transaction).  So a delta without them needs
 * no look at the state for flagged groups.  A column that is not found
 * answers yes.
 */
static bool
group_delta_may_flag(DvPlan *plan)
{
	List	   *attnos = NIL;
	ListCell   *lc;

	foreach(lc, plan->aggs)
	{
		DvAgg	   *agg = lfirst(lc);
		char	   *column = flag_column(agg, foreach_current_index(lc) + 1);
		int			attno;

		if (agg->scale_tracked)
			return true;
		if (column == NULL)
			continue;
		attno = SPI_fnumber(SPI_tuptable->tupdesc, column);
		if (attno <= 0)
			return true;
		attnos = lappend_int(attnos, sums_numbers(agg) ? attno : -attno);
	}
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		foreach(lc, attnos)
		{
			int			attno = lfirst_int(lc);
			bool		isnull;
			Datum		d = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, abs(attno), &isnull);

			/* d<j>_special true; d<j>_m present */
			if (!isnull && (attno < 0 || DatumGetBool(d)))
				return true;
		}
	}
	return false;
}

/*
 * does applying the group delta d to state row s need a recompute? (SQL;
 * group_delta_may_flag reads the same columns of the delta, flag_column's,
 * in C)
 */
static char *
recompute_condition(DvPlan *plan, bool matched)
{
	StringInfoData buf;
	ListCell   *lc;

	initStringInfo(&buf);
	appendStringInfoString(&buf, matched ? "COALESCE(s.dv_recompute" : "COALESCE(false");
	foreach(lc, plan->aggs)
	{
		DvAgg	   *agg = lfirst(lc);
		int			j = foreach_current_index(lc) + 1;

		if (agg->scale_tracked)
			appendStringInfo(&buf, " OR %s", dv_scale_beyond_blocks_sql(new_scale_counts(j, matched)));
		if (sums_numbers(agg))
			appendStringInfo(&buf, " OR COALESCE(d.%s, false)", flag_column(agg, j));
		else if (is_extreme(agg) && matched)
			appendStringInfo(&buf, " OR (d.%s %s s.a%d)", flag_column(agg, j),
							 agg->kind == DV_AGG_MIN ? "<=" : ">=", j);
		else if (is_extreme(agg))
			appendStringInfo(&buf, " OR d.%s IS NOT NULL", flag_column(agg, j));
	}
	appendStringInfoString(&buf, ", false)");
	return buf.data;
}

/* SET list of the MERGE's update (matched) or its VALUES (not matched) */
static char *
merge_values(DvPlan *plan, int nkeys, bool matched)
{
	StringInfoData buf;
	ListCell   *lc;
	const char *count = matched ? "(s.dv_count + d.dv_dcount)" : "d.dv_dcount";

	initStringInfo(&buf);
	if (!matched)
		appendStringInfoString(&buf, key_list(nkeys, "d."));
	appendStringInfo(&buf, matched ? "dv_count = %s, dv_recompute = %s" : "%s, %s",
					 count, recompute_condition(plan, matched));
	foreach(lc, plan->aggs)
	{
		DvAgg	   *agg = lfirst(lc);
		int			j = foreach_current_index(lc) + 1;
		char	   *n = matched ? psprintf("(s.n%d + COALESCE(d.d%d_n, 0))", j, j)
			: psprintf("COALESCE(d.d%d_n, 0)", j);
		char	   *set = matched ? psprintf(", a%d = ", j) : ", ";
		const char *ext = agg->kind == DV_AGG_MAX ? "GREATEST" : "LEAST";

		switch (agg->kind)
		{
			case DV_AGG_COUNT_STAR:
				appendStringInfo(&buf, "%s%s", set, count);
				break;
			case DV_AGG_COUNT:
				appendStringInfo(&buf, "%s%s", set, matched ? psprintf("s.a%d + COALESCE(d.d%d_n, 0)", j, j) : n);
				break;
			case DV_AGG_SUM:
				if (agg->scale_tracked)
					appendStringInfo(&buf, "%s%s", set, new_sum(agg, j, "a", "s", n, matched, false));
				else
					appendStringInfo(&buf, "%sCASE WHEN %s = 0 THEN NULL ELSE (%sCOALESCE(d.d%d_s, 0))::%s END",
									 set, n, matched ? psprintf("COALESCE(s.a%d::pg_catalog.numeric, 0) + ", j) : "",
									 j, agg->value_type);
				break;
			case DV_AGG_AVG:
				/* numeric_avg divides the sum, with its display scale, by the count */
				appendStringInfo(&buf, "%s(%s) / %s::pg_catalog.numeric",
								 set, new_sum(agg, j, "s", "s", n, matched, false), n);
				break;
			case DV_AGG_VAR_SAMP:
			case DV_AGG_VAR_POP:
			case DV_AGG_STDDEV_SAMP:
			case DV_AGG_STDDEV_POP:
				appendStringInfo(&buf, "%s%s", set,
								 variance_value(agg, n, new_sum(agg, j, "s", "s", n, matched, false),
												new_sum(agg, j, "q", "q", n, matched, true)));
				break;
			case DV_AGG_BOOL_AND:
			case DV_AGG_BOOL_OR:
				appendStringInfo(&buf, "%sCASE WHEN %s = 0 THEN NULL ELSE %s%sCOALESCE(d.d%d_t, 0) %s %s END",
								 set, n, matched ? psprintf("s.nt%d", j) : "", matched ? " + " : "", j,
								 agg->kind == DV_AGG_BOOL_AND ? "=" : ">",
								 agg->kind == DV_AGG_BOOL_AND ? n : "0");
				break;
			case DV_AGG_MIN:
			case DV_AGG_MAX:
				if (matched)
					appendStringInfo(&buf, "%sCASE WHEN %s = 0 THEN NULL ELSE %s(s.a%d, d.d%d_p) END",
									 set, n, ext, j, j);
				else
					appendStringInfo(&buf, "%sCASE WHEN %s = 0 THEN NULL ELSE d.d%d_p END", set, n, j);
				break;
			case DV_AGG_COUNT_DISTINCT:
				appendStringInfo(&buf, "%s%sCOALESCE(d.d%d_c, 0)", set,
								 matched ? psprintf("s.a%d + ", j) : "", j);
				break;
		}
	}
	foreach(lc, plan->aggs)
	{
		DvAgg	   *agg = lfirst(lc);
		int			j = foreach_current_index(lc) + 1;
		char	   *n = matched ? psprintf("(s.n%d + COALESCE(d.d%d_n, 0))", j, j)
			: psprintf("COALESCE(d.d%d_n, 0)", j);

		if (has_n(agg) && matched)
			appendStringInfo(&buf, ", n%d = %s", j, n);
		else if (has_n(agg))
			appendStringInfo(&buf, ", %s", n);
		if (has_s(agg))
			appendStringInfo(&buf, ", %s%s", matched ? psprintf("s%d = ", j) : "",
							 new_sum(agg, j, "s", "s", n, matched, false));
		if (is_variance(agg))
			appendStringInfo(&buf, ", %s%s", matched ? psprintf("q%d = ", j) : "",
							 new_sum(agg, j, "q", "q", n, matched, true));
		if (agg->scale_tracked)
			appendStringInfo(&buf, ", %s%s", matched ? psprintf("sc%d = ", j) : "",
							 new_scale_counts(j, matched));
		if (is_bool(agg))
			appendStringInfo(&buf, ", %s%s%sCOALESCE(d.d%d_t, 0)", matched ? psprintf("nt%d = ", j) : "",
							 matched ? psprintf("s.nt%d", j) : "", matched ? " + " : "", j);
	}
	return buf.data;
}

/*
 * dv_agg_state_apply - apply the delta of the aggregation's input (the
 * plan's sources' windows, registered by the caller) to the state and write
 * the affected groups' rows of the table (*no_group: linear aggregates whose
 * delta changed no group, nothing written).  Returns false if the state does
 * not agree with the changes (a row removed that was never counted) or with
 * the table (*why then says so; else it is left NULL): the caller then
 * refreshes in full, which rebuilds the state.  Runs as the table's owner.
 *
 * Statements that read the state tables run with read_only false, so that
 * SPI advances the snapshot's command id and they see this refresh's (and
 * this transaction's) earlier writes; with read_only true the refresh's
 * snapshot would be used exactly as taken, before them.
 */
bool
dv_agg_state_apply(DvTable *dt, DvPlan *plan, Snapshot snapshot, DvRefreshResult *res, int32 *seq,
				   bool *no_group, char **why)
{
	Oid			state = dv_agg_state_relid(dt->relid);
	char	   *st = qualified_state(state_name(dt->relid));
	int			nkeys = list_length(plan->key_columns);
	char	   *keys = key_list(nkeys, "");
	StringInfoData cols;
	StringInfoData sql;
	StringInfoData uni;
	ListCell   *lc;
	List	   *enrs = NIL;
	uint64		ngroups;
	uint64		n;
	bool		may_recompute = false;
	char	   *restrict_q = NULL;
	char	   *restrict_t = NULL;
	bool		ok = true;
	KeyMatch	km;
	DvParams	params;
	DvParams	recompute_params;

	initStringInfo(&sql);
	if (linear_aggregates(plan))
	{
		/*
		 * 1-3 in one pass: every aggregate is linear in the weights (see
		 * linear_aggregates), so the delta's weighted rows go straight into
		 * the per-group sums; a pair +r/-r adds nothing to any of them.  The
		 * groups whose every sum is 0 are dropped, as the consolidation
		 * would have dropped their rows (a group the changes do not touch
		 * must not reach the MERGE, whose row count checks the state).
		 */
		ngroups = dv_exec_at(group_delta_sql(plan, psprintf("SELECT *, dv_weight AS dv_w FROM (%s) dv_d",
															 dv_delta_sql(plan)),
											 true),
							 snapshot, true);
		*no_group = ngroups == 0;
		if (ngroups == 0)
			return true;		/* the changes cancel out before the aggregation */
		km = key_match_of_result(nkeys);
		may_recompute = group_delta_may_flag(plan);
		group_restrictions(plan, &km, &restrict_q, &restrict_t, &params);
		dv_register_tuples("dv_gd");
		enrs = lappend(enrs, "dv_gd");
	}
	else
	{
		/* 1. the consolidated delta of the input: dv_in(g.., x.., dv_weight) */
		initStringInfo(&cols);
		appendStringInfoString(&cols, keys);
		foreach(lc, plan->aggs)
		{
			if (has_arg(lfirst(lc)))
				appendStringInfo(&cols, "x%d, ", foreach_current_index(lc) + 1);
		}
		appendStringInfo(&sql, "SELECT %spg_catalog.sum(dv_weight)::pg_catalog.int8 AS dv_weight FROM (%s) dv_d",
						 cols.data, dv_delta_sql(plan));
		if (cols.len > 0)
			appendStringInfo(&sql, " GROUP BY %.*s", cols.len - 2, cols.data);

		/*
		 * Equal inputs of different display scales (1 and 1.00) are different
		 * inputs to a scale-tracked aggregate: an UPDATE from one to the other
		 * must not cancel out here.
		 */
		foreach(lc, plan->aggs)
		{
			if (((DvAgg *) lfirst(lc))->scale_tracked)
				appendStringInfo(&sql, ", pg_catalog.scale(x%d)", foreach_current_index(lc) + 1);
		}
		appendStringInfoString(&sql, " HAVING pg_catalog.sum(dv_weight) <> 0");
		if (dv_exec_at(sql.data, snapshot, true) == 0)
			return true;			/* the changes cancel out before the aggregation */

		/*
		 * Every relation matched against the state below holds keys of dv_in
		 * only: without a NULL key here, the matches are plain equalities
		 * (key_match).
		 */
		km = key_match_of_result(nkeys);
		dv_register_tuples("dv_in");
		enrs = lappend(enrs, "dv_in");

		/* 2. count(DISTINCT): multiplicities, and the values that appear or go */
		initStringInfo(&uni);
		appendStringInfo(&uni, "SELECT %sdv_weight AS dv_w", keys);
		foreach(lc, plan->aggs)
		{
			DvAgg	   *agg = lfirst(lc);
			int			j = foreach_current_index(lc) + 1;

			if (has_arg(agg))
				appendStringInfo(&uni, ", x%d", j);
			if (agg->kind == DV_AGG_COUNT_DISTINCT)
				appendStringInfo(&uni, ", NULL::pg_catalog.int8 AS c%d", j);
		}
		appendStringInfoString(&uni, " FROM dv_in");
		foreach(lc, plan->aggs)
		{
			DvAgg	   *agg = lfirst(lc);
			int			j = foreach_current_index(lc) + 1;
			char	   *dist = qualified_state(dist_name(dt->relid, j));
			char	   *dd = psprintf("dv_dd%d", j);
			char	   *dtr = psprintf("dv_dt%d", j);
			ListCell   *lc2;
			bool		arrays;

			if (agg->kind != DV_AGG_COUNT_DISTINCT)
				continue;
			arrays = dist_arrays(get_relname_relid(dist_name(dt->relid, j), get_namespace_oid(DV_STATE_SCHEMA, false)));
			dv_exec_at(psprintf("SELECT %sx%d AS v, pg_catalog.sum(dv_weight)::pg_catalog.int8 AS dv_w "
								"FROM dv_in WHERE x%d IS NOT NULL%s HAVING pg_catalog.sum(dv_weight) <> 0",
								keys, j, j, group_by(nkeys, psprintf("x%d", j))),
					   snapshot, true);
			dv_register_tuples(dd);
			enrs = lappend(enrs, dd);
			if (arrays)
			{
				/*
				 * One row per group (choose_arrays): the changed groups'
				 * rows (dv_mo<j>, found by their index: plain equality for
				 * keys without a null, the null-matching form only for keys
				 * with one, which uses the index's first column alone), their
				 * multiplicities unnested and the delta summed per (group,
				 * value): om the old multiplicity, dw its change (dv_mg<j>);
				 * 0 -> n and n -> 0 as below.  Those rows are then deleted by
				 * their ctids and each group's arrays written anew, a group
				 * left without values not.
				 */
				char	   *mo = psprintf("dv_mo%d", j);
				char	   *mg = psprintf("dv_mg%d", j);
				StringInfoData eq;
				StringInfoData anynull;

				initStringInfo(&eq);
				initStringInfo(&anynull);
				for (int k = 1; k <= nkeys; k++)
				{
					appendStringInfo(&eq, "%ss.g%d = k.g%d", k > 1 ? " AND " : "", k, k);
					appendStringInfo(&anynull, "%sg%d IS NULL", k > 1 ? " OR " : "", k);
				}
				n = dv_exec_at(psprintf("SELECT s.ctid AS dv_ctid, %ss.vs, s.ms "
										"FROM (SELECT DISTINCT %s FROM %s) k JOIN %s s ON %s "
										"UNION ALL SELECT s.ctid, %ss.vs, s.ms "
										"FROM %s k JOIN %s s ON %s",
										key_list(nkeys, "s."), key_cols(nkeys, ""), dd, dist, eq.data,
										key_list(nkeys, "s."),
										key_rel(&km, psprintf("(SELECT DISTINCT %s FROM %s WHERE %s)",
															  key_cols(nkeys, ""), dd, anynull.data)),
										dist, key_match(&km, "s", "k")),
							   snapshot, false);
				dv_register_tuples(mo);
				enrs = lappend(enrs, mo);
				dv_exec_at(psprintf("SELECT %sv, pg_catalog.sum(om)::pg_catalog.int8 AS om, "
									"pg_catalog.sum(dw)::pg_catalog.int8 AS dw FROM ("
									"SELECT %su.v, u.m AS om, 0::pg_catalog.int8 AS dw FROM %s o "
									"CROSS JOIN LATERAL ROWS FROM (pg_catalog.unnest(o.vs), pg_catalog.unnest(o.ms)) u(v, m) "
									"UNION ALL SELECT %sv, 0::pg_catalog.int8, dv_w FROM %s) dv_m%s",
									keys, key_list(nkeys, "o."), mo, keys, dd, group_by(nkeys, "v")),
						   snapshot, false);
				dv_register_tuples(mg);
				enrs = lappend(enrs, mg);
				if (n > 0)
					dv_exec_at(psprintf("DELETE FROM %s WHERE ctid = ANY (ARRAY(SELECT dv_ctid FROM %s))", dist, mo),
							   snapshot, false);
				dv_exec_at(psprintf("INSERT INTO %s SELECT %s"
									"pg_catalog.array_agg(v) FILTER (WHERE om + dw <> 0), "
									"pg_catalog.array_agg(om + dw) FILTER (WHERE om + dw <> 0) "
									"FROM %s%s HAVING pg_catalog.bool_or(om + dw <> 0)",
									dist, keys, mg, group_by(nkeys, NULL)),
						   snapshot, false);
				dv_exec_at(psprintf("SELECT %spg_catalog.sum(CASE WHEN om = 0 AND om + dw > 0 THEN 1 "
									"  WHEN om > 0 AND om + dw = 0 THEN -1 ELSE 0 END)::pg_catalog.int8 AS dv_c, "
									"  pg_catalog.bool_or(om + dw < 0) AS dv_bad FROM %s%s",
									keys, mg, group_by(nkeys, NULL)),
						   snapshot, true);
			}
			else if (state_indexed(plan))
			{
				/*
				 * One probe per changed value: add the delta by upsert (on the
				 * unique index of (v, g..)) and compare each new multiplicity
				 * with its delta.  A stored multiplicity is never 0, so new ==
				 * delta means 0 -> n; new == 0 means n -> 0 (that row is then
				 * deleted); new < 0 means the state was not what the data
				 * snapshot says.
				 */
				char	   *up = psprintf("dv_up%d", j);

				dv_exec_at(psprintf("WITH dv_u AS (INSERT INTO %s AS s SELECT %sd.v, d.dv_w FROM %s d "
									"  ON CONFLICT (v%s%s) DO UPDATE SET dv_mult = s.dv_mult + excluded.dv_mult "
									"  RETURNING s.*) "
									"SELECT %su.v, u.dv_mult, d.dv_w FROM dv_u u JOIN %s d ON u.v = d.v AND %s",
									dist, key_list(nkeys, "d."), dd, nkeys > 0 ? ", " : "",
									nkeys > 0 ? key_cols(nkeys, "") : "",
									key_list(nkeys, "u."), key_rel(&km, dd), key_match(&km, "u", "d")),
						   snapshot, false);
				dv_register_tuples(up);
				enrs = lappend(enrs, up);
				dv_exec_at(psprintf("SELECT %spg_catalog.sum(CASE WHEN dv_mult = dv_w THEN 1 "
									"  WHEN dv_mult = 0 THEN -1 ELSE 0 END)::pg_catalog.int8 AS dv_c, "
									"  pg_catalog.bool_or(dv_mult < 0) AS dv_bad FROM %s%s",
									keys, up, group_by(nkeys, NULL)),
						   snapshot, true);
			}
			else
				dv_exec_at(psprintf("SELECT %spg_catalog.sum(CASE WHEN s.dv_mult IS NULL THEN 1 "
									"  WHEN s.dv_mult + d.dv_w = 0 THEN -1 ELSE 0 END)::pg_catalog.int8 AS dv_c, "
									"  pg_catalog.bool_or(COALESCE(s.dv_mult, 0) + d.dv_w < 0) AS dv_bad "
									"FROM %s d LEFT JOIN %s s ON s.v = d.v AND %s%s",
									key_list(nkeys, "d."), key_rel(&km, dd), dist, key_match(&km, "s", "d"),
									group_by_p(nkeys, "d.", NULL)),
						   snapshot, false);
			for (uint64 i = 0; i < SPI_processed; i++)
			{
				bool		isnull;
				Datum		bad = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc,
												SPI_tuptable->tupdesc->natts, &isnull);

				if (!isnull && DatumGetBool(bad))
					ok = false;
			}
			if (!ok)
				break;
			dv_register_tuples(dtr);
			enrs = lappend(enrs, dtr);
			if (arrays)
				;				/* (written above) */
			else if (state_indexed(plan))
				/* the values that went: only they have multiplicity 0 */
				dv_exec_at(psprintf("DELETE FROM %s s WHERE s.v = ANY (ARRAY(SELECT v FROM dv_up%d WHERE dv_mult = 0)) "
									"AND s.dv_mult = 0", dist, j),
						   snapshot, false);
			else
				dv_exec_at(psprintf("MERGE INTO %s s USING %s d ON s.v = d.v AND %s "
									"WHEN MATCHED AND s.dv_mult + d.dv_w = 0 THEN DELETE "
									"WHEN MATCHED THEN UPDATE SET dv_mult = s.dv_mult + d.dv_w "
									"WHEN NOT MATCHED THEN INSERT VALUES (%sd.v, d.dv_w)",
									dist, key_rel(&km, dd), key_match(&km, "s", "d"), key_list(nkeys, "d.")),
						   snapshot, false);

			/* its transitions join the union the group delta is taken from */
			appendStringInfo(&uni, " UNION ALL SELECT %s0::pg_catalog.int8", keys);
			foreach(lc2, plan->aggs)
			{
				DvAgg	   *other = lfirst(lc2);
				int			k = foreach_current_index(lc2) + 1;

				if (has_arg(other))
					appendStringInfo(&uni, ", NULL::%s", other->arg_type);
				if (other->kind == DV_AGG_COUNT_DISTINCT)
					appendStringInfo(&uni, k == j ? ", dv_c" : ", NULL::pg_catalog.int8");
			}
			appendStringInfo(&uni, " FROM %s", dtr);
		}

		if (ok)
		{
			/* 3. the delta of each group: dv_gd(g.., dv_dcount, d<j>_...) */
			ngroups = dv_exec_at(group_delta_sql(plan, uni.data, false), snapshot, true);
			may_recompute = group_delta_may_flag(plan);
			group_restrictions(plan, &km, &restrict_q, &restrict_t, &params);
			dv_register_tuples("dv_gd");
			enrs = lappend(enrs, "dv_gd");
		}
	}

	if (ok)
	{
		/*
		 * The state must have a row for exactly the affected groups the table
		 * has a row for (one row per group; a global aggregate's one row):
		 * otherwise it was changed behind dynview's back.
		 */
		resetStringInfo(&sql);
		if (nkeys == 0)
			appendStringInfo(&sql, "SELECT pg_catalog.count(*) = 1 FROM %s", st);
		else
		{
			/*
			 * (each changed group has a state row exactly when it has a table
			 * row: the same groups, not only as many, which a state that lost
			 * one group and gained another would pass.  One statement: the
			 * changed groups left-joined to both, which the planner hashes; a
			 * state or table row is told by its ctid, never NULL.  A row met
			 * twice, which the unique indexes do not allow, would only repeat
			 * its group's test.  Correlated EXISTS per group rescanned the
			 * table once per group, with the relation's size asked of the
			 * kernel at each rescan.)
			 */
			appendStringInfo(&sql, "SELECT COALESCE(pg_catalog.bool_and((s.ctid IS NOT NULL) = (dv_vt.ctid IS NOT NULL)), true) "
							 "FROM %s d LEFT JOIN %s s ON %s LEFT JOIN %s dv_vt ON %s",
							 key_rel(&km, "dv_gd"), st, key_match(&km, "s", "d"),
							 quote_qualified_identifier(dt->schema_name, dt->table_name),
							 column_key_match(&km, "dv_vt", plan->key_columns, "d"));
		}
		dv_exec_at(sql.data, snapshot, false);
		{
			bool		isnull;

			ok = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
		}
		if (!ok)
			*why = pstrdup("The aggregate state and the table did not have rows for the same changed groups (one of them was written behind dynview's back); both were recomputed in full.");
	}

	if (ok)
	{

		/* 4. the state: groups appear, change, disappear */
		resetStringInfo(&sql);
		appendStringInfo(&sql, "MERGE INTO %s s USING %s d ON %s ", st, key_rel(&km, "dv_gd"), key_match(&km, "s", "d"));
		if (nkeys > 0)
			appendStringInfoString(&sql, "WHEN MATCHED AND s.dv_count + d.dv_dcount = 0 THEN DELETE ");
		appendStringInfo(&sql, "WHEN MATCHED AND s.dv_count + d.dv_dcount >= %d THEN UPDATE SET %s ",
						 nkeys > 0 ? 1 : 0, merge_values(plan, nkeys, true));
		appendStringInfo(&sql, "WHEN NOT MATCHED AND d.dv_dcount > 0 THEN INSERT VALUES (%s)",
						 merge_values(plan, nkeys, false));
		n = dv_exec_at(sql.data, snapshot, false);
		/* a group the delta removes more rows from than it had */
		ok = n == ngroups;
		if (!ok && nkeys > 0)
		{
			ok = n + absent_groups_unchanged(plan, &km, st, snapshot) == ngroups;
			/* (no group changed: NO_DATA where the windows cancel out) */
			if (ok && n == 0)
				*no_group = true;
		}
	}

	/*
	 * (the changed groups' state rows are found from dv_gd, one lookup per
	 * changed group where the match is an index's (KeyMatch: no NULL key,
	 * or a few patterns of them): dv_recompute is nearly always false, so
	 * the planner took the flagged rows for one and nest-looped them
	 * against the changed groups, quadratic in the change, after reading
	 * the whole state for them.  With the per-key form a lookup would read
	 * every group with a NULL key per changed group: there a join, which
	 * the record match lets the planner hash, the flag tested above it,
	 * where the planner's estimate of it cannot make the join a nested
	 * loop.)
	 */
	if (ok && may_recompute &&
		dv_exec_at(key_match_indexed(&km)
				   ? psprintf("SELECT %s FROM %s d CROSS JOIN LATERAL (SELECT * FROM %s s WHERE %s OFFSET 0) s "
							  "WHERE s.dv_recompute",
							  key_cols(nkeys, "s."), key_rel(&km, "dv_gd"), st, key_match(&km, "s", "d"))
				   : psprintf("SELECT %s FROM (SELECT %ss.dv_recompute FROM %s s JOIN %s d ON %s OFFSET 0) s "
							  "WHERE s.dv_recompute",
							  key_cols(nkeys, "s."), key_list(nkeys, "s."), st, key_rel(&km, "dv_gd"),
							  key_match(&km, "s", "d")),
				   snapshot, false) > 0)
	{
		/*
		 * 5. groups whose extreme went (or with NaN/Infinity): recomputed
		 * from the input, restricted to them (dv_rc, their keys, matched as
		 * KeyMatch says for them) so that the state's update matches each
		 * recomputed group by its keys alone
		 */
		List	   *gcols = NIL;
		char	   *colsets = "";
		char	   *restrict_i;
		KeyMatch	rc = key_match_of_result(nkeys);

		for (int k = 1; k <= nkeys; k++)
			gcols = lappend(gcols, psprintf("g%d", k));
		foreach(lc, state_value_columns(plan))
			colsets = psprintf("%s%s%s = r.%s", colsets, colsets[0] ? ", " : "",
							   (char *) lfirst(lc), (char *) lfirst(lc));
		restrict_i = dv_key_restriction(gcols, "dv_i", SPI_tuptable, SPI_processed, &recompute_params, NULL);
		dv_register_tuples("dv_rc");
		enrs = lappend(enrs, "dv_rc");
		dv_exec_at_params(psprintf("UPDATE %s s SET %s FROM %s r WHERE %s",
								   st, colsets,
								   key_rel(&rc, psprintf("(SELECT %s%s FROM (%s) dv_i WHERE %s "
														 "AND EXISTS (SELECT 1 FROM %s dv_c WHERE %s)%s)",
														 keys, state_from_input(plan), dv_input_sql(plan),
														 restrict_i, key_rel(&rc, "dv_rc"),
														 key_match(&rc, "dv_i", "dv_c"),
														 group_by(nkeys, NULL))),
								   key_match(&rc, "s", "r")),
						  snapshot, false, &recompute_params);
	}

	if (ok)
	{
		/*
		 * 6. the table's rows of the affected groups, from the state (their
		 * keys taken from the group delta's rows: group_restrictions)
		 */
		dv_full_refresh_restricted(dt, dv_state_projection_sql(plan, state), restrict_q, restrict_t,
								   &params, snapshot, res, seq);
	}
	foreach(lc, enrs)
		dv_unregister_tuples((const char *) lfirst(lc));
	return ok;
}

/*
 * group_restrictions - the restrictions of dv_agg_state_apply's step 6 (the
 * table's rows of the affected groups, and the state's projection of them)
 * to the keys of the group delta, from the last SPI result, the group
 * delta's rows, whose first columns are the keys g1..g<nkeys>
 * (group_delta_sql): taken there rather than by reading the keys back from
 * dv_gd, which holds those same rows, in a statement of their own.  km is
 * how dv_gd's keys are matched (key_match).  The strings and params
 * (dv_key_restriction's) are palloc'd in the current memory context.
 *
 * dv_key_restriction narrows each key column apart (a = ANY ($1) AND b =
 * ANY ($2)), which an index can take; for a key of several columns that is
 * every combination of the changed values, and a column it cannot narrow
 * (an array, a type without equality) is not narrowed at all.  Step 6 then
 * rewrites the table's rows of groups that did not change from their state
 * rows, which the agreement check (step 3) did not look at: a state row
 * lost or added there (written behind dynview's back) would delete or add a
 * table row silently.  So where the restriction is not exactly the changed
 * groups, it also keeps only the groups of dv_gd, exactly the groups the
 * check compared: a semi-join on all the keys, which the planner hashes
 * (key_match: with a NULL key, as one record).
 */
static void
group_restrictions(DvPlan *plan, const KeyMatch *km, char **restrict_q, char **restrict_t,
				   DvParams *params)
{
	bool		exact;

	*restrict_q = dv_key_restriction(plan->key_columns, "dv_q", SPI_tuptable, SPI_processed, params, &exact);
	*restrict_t = dv_key_restriction(plan->key_columns, "dv_t", SPI_tuptable, SPI_processed, params, NULL);
	if (!exact)
	{
		char	   *gd = key_rel(km, "dv_gd");

		*restrict_q = psprintf("%s AND EXISTS (SELECT 1 FROM %s dv_g WHERE %s)", *restrict_q, gd,
							   column_key_match(km, "dv_q", plan->key_columns, "dv_g"));
		*restrict_t = psprintf("%s AND EXISTS (SELECT 1 FROM %s dv_g WHERE %s)", *restrict_t, gd,
							   column_key_match(km, "dv_t", plan->key_columns, "dv_g"));
	}
}

/*
 * Top-N state (design section 6): for ORDER BY ... LIMIT n without OFFSET,
 * dynview_state.topn_<relid> holds every row of the query's input (the query
 * without its LIMIT) that sorts strictly before the row in
 * dynview_state.topnb_<relid>, the bound; with no bound row it holds the
 * whole input.  Both have the dynamic table's columns.  The changed rows of
 * the input that sort before the bound keep the state exact; its first n
 * rows are the table, so a held row that leaves or sinks is replaced from
 * the state, and the input is read again only when fewer than n rows remain
 * before the bound.
 */

/* the state tables of a top-N table: are they there and the owner's? */
bool
dv_topn_state_usable(DvTable *dt)
{
	/* (a missing table has no owner: InvalidOid, never a role's) */
	return state_table_owner(topn_name(dt->relid)) == dt->owner &&
		state_table_owner(topn_bound_name(dt->relid)) == dt->owner;
}

/* the qualified names of the state and its bound */
char *
dv_topn_state_table(Oid relid, bool bound)
{
	return qualified_state(bound ? topn_bound_name(relid) : topn_name(relid));
}

/* "c1, c2" of relid's columns, each prefixed */
static char *
column_list(Oid relid, const char *prefix)
{
	return column_list_but_keys(relid, prefix, 0);
}

/* column_list without the columns k2..k<nkeys> (a state's keys after its first) */
static char *
column_list_but_keys(Oid relid, const char *prefix, int nkeys)
{
	Relation	rel = relation_open(relid, AccessShareLock);
	TupleDesc	desc = RelationGetDescr(rel);
	StringInfoData buf;

	initStringInfo(&buf);
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		bool		later_key = false;

		if (att->attisdropped)
			continue;
		for (int k = 2; k <= nkeys && !later_key; k++)
			later_key = strcmp(NameStr(att->attname), psprintf("k%d", k)) == 0;
		if (!later_key)
			appendStringInfo(&buf, "%s%s%s", buf.len ? ", " : "", prefix, quote_identifier(NameStr(att->attname)));
	}
	relation_close(rel, AccessShareLock);
	return buf.data;
}

/* a column name for generated SQL that no column of relid has */
char *
dv_unused_column_name(Oid relid, const char *base)
{
	char	   *name = pstrdup(base);

	while (get_attnum(relid, name) != InvalidAttrNumber)
		name = psprintf("%s_", name);
	return pstrdup(quote_identifier(name));
}

/*
 * topn_state_sql - the table's definition with LIMIT topn_state_rows + 1:
 * its tree, parsed again, with that LIMIT, deparsed as the definition is.
 */
static char *
topn_state_sql(DvTable *dt, DvPlan *plan)
{
	Query	   *q = dv_parse_definition(dt->definition);
	char	   *sql;
	int			nestlevel;

	q->limitCount = (Node *) makeConst(INT8OID, -1, InvalidOid, sizeof(int64),
									   Int64GetDatum(plan->topn_state_rows + 1), false, FLOAT8PASSBYVAL);
	q->limitOffset = NULL;
	nestlevel = NewGUCNestLevel();
	(void) set_config_option("search_path", DV_SAFE_SEARCH_PATH,
							 PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
	dv_set_output_styles();		/* constants are read back in these styles */
	sql = pg_get_querydef(q, false);
	AtEOXact_GUC(true, nestlevel);
	return sql;
}

/*
 * dv_topn_state_fill - fill the state tables of a top-N table from its
 * input at snapshot (one evaluation of the query with LIMIT
 * topn_state_rows + 1): with that many rows, the last is the bound and the
 * state the rows that sort strictly before it (those that tie with it
 * stay out); with fewer, the state is every row and there is no bound.
 * Runs as the table's owner; the state tables exist.
 */
void
dv_topn_state_fill(DvTable *dt, DvPlan *plan, Snapshot snapshot)
{
	uint64		n;

	n = dv_exec_at(topn_state_sql(dt, plan), snapshot, true);
	dv_register_tuples("dv_topn_fill");
	dv_topn_state_store(dt, plan, snapshot, "dv_topn_fill", n);
	dv_unregister_tuples("dv_topn_fill");
}

/*
 * dv_topn_state_store - the state of a top-N table from the n rows of the
 * registered tuples rows (the table's columns, any order), which are every
 * row of the input that sorts before the last of them: with more than
 * topn_state_rows, the row at that position + 1 in the query's order is the
 * bound and the state the rows that sort strictly before it (those that tie
 * with it stay out); else the state is every row and there is no bound.
 */
void
dv_topn_state_store(DvTable *dt, DvPlan *plan, Snapshot snapshot, const char *rows, uint64 n)
{
	char	   *state = dv_topn_state_table(dt->relid, false);
	char	   *bound = dv_topn_state_table(dt->relid, true);
	char	   *cols = column_list(dt->relid, "");
	char	   *flag = dv_unused_column_name(dt->relid, "dv_src");
	char	   *before = dv_unused_column_name(dt->relid, "dv_bounds_before");

	dv_exec_at(psprintf("DELETE FROM %s", state), snapshot, false);
	dv_exec_at(psprintf("DELETE FROM %s", bound), snapshot, false);
	if (n <= (uint64) plan->topn_state_rows)
		dv_exec_at(psprintf("INSERT INTO %s SELECT %s FROM %s", state, cols, rows), snapshot, false);
	else
	{
		dv_exec_at(psprintf("INSERT INTO %s SELECT %s FROM %s ORDER BY %s OFFSET %lld LIMIT 1",
							bound, cols, rows, plan->topn_order, (long long) plan->topn_state_rows),
				   snapshot, false);
		/* the bound sorts first among the rows that tie with it */
		dv_exec_at(psprintf("INSERT INTO %s SELECT %s FROM ("
							"  SELECT *, pg_catalog.count(*) FILTER (WHERE %s = 1) OVER (ORDER BY %s, %s DESC ROWS UNBOUNDED PRECEDING) AS %s"
							"  FROM (SELECT %s, 0 AS %s FROM %s UNION ALL SELECT %s, 1 FROM %s) dv_u) dv_v "
							"WHERE %s = 0 AND %s = 0",
							state, cols, flag, plan->topn_order, flag, before,
							cols, flag, rows, cols, bound, flag, before),
				   snapshot, false);
	}
}

/*
 * serialized_state - the bytea PostgreSQL's serialization function
 * serialize (numeric_avg_serialize, int8_avg_serialize) makes of the
 * aggregate transition state of the final function call fcinfo (its first
 * argument, not NULL), as a read-only StringInfo at its start
 */
static void
serialized_state(FunctionCallInfo fcinfo, PGFunction serialize, StringInfo buf)
{
	LOCAL_FCINFO(sfcinfo, 1);
	bytea	   *serialized;

	if (!AggCheckCallContext(fcinfo, NULL))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("dynview._nonnull_count's final function called outside an aggregate")));
	InitFunctionCallInfoData(*sfcinfo, NULL, 1, InvalidOid, fcinfo->context, NULL);
	sfcinfo->args[0].value = PG_GETARG_DATUM(0);
	sfcinfo->args[0].isnull = false;
	serialized = DatumGetByteaPP(serialize(sfcinfo));
	buf->data = VARDATA_ANY(serialized);
	buf->len = VARSIZE_ANY_EXHDR(serialized);
	buf->maxlen = buf->len;
	buf->cursor = 0;
}

/*
 * dynview_numeric_nonnull_count_final - the final function of the aggregate
 * dynview._nonnull_count(numeric): the count of non-null inputs (NaN and
 * infinities included, as count(x) counts them) from the transition state
 * of sum(numeric) and avg(numeric), which PostgreSQL shares with theirs
 * over the same input (DvAgg.count_shares_sum).  That state is private to
 * numeric.c; it is read through numeric_avg_serialize, PostgreSQL's own
 * serialization of it for parallel aggregation: N (int8), the sum, then
 * maxScale (int4), maxScaleCount, and the NaN, +Infinity and -Infinity
 * counts (int8 each) that N leaves out.  A NULL state (no input row) is 0.
 * Called only as an aggregate's final function (numeric_avg_serialize
 * requires the aggregate's context).
 */
PG_FUNCTION_INFO_V1(dynview_numeric_nonnull_count_final);

Datum
dynview_numeric_nonnull_count_final(PG_FUNCTION_ARGS)
{
	StringInfoData buf;
	int64		count;

	if (PG_ARGISNULL(0))
		PG_RETURN_INT64(0);
	serialized_state(fcinfo, numeric_avg_serialize, &buf);
	/* N, then the three counts at the end (past the sum, maxScale, maxScaleCount) */
	if (buf.len < 8 + 4 + 8 + 3 * 8)
		elog(ERROR, "unexpected serialized numeric aggregate state of %d bytes", buf.len);
	count = pq_getmsgint64(&buf);
	buf.cursor = buf.len - 3 * 8;
	count += pq_getmsgint64(&buf);
	count += pq_getmsgint64(&buf);
	count += pq_getmsgint64(&buf);
	PG_RETURN_INT64(count);
}

/*
 * dynview_int8_nonnull_count_final - the same for dynview._nonnull_count(
 * bigint), from the transition state of sum(bigint) and avg(bigint)
 * (int8_avg_accum): int8_avg_serialize writes N (int8) first, then the sum.
 */
PG_FUNCTION_INFO_V1(dynview_int8_nonnull_count_final);

Datum
dynview_int8_nonnull_count_final(PG_FUNCTION_ARGS)
{
	StringInfoData buf;

	if (PG_ARGISNULL(0))
		PG_RETURN_INT64(0);
	serialized_state(fcinfo, int8_avg_serialize, &buf);
	if (buf.len < 8)
		elog(ERROR, "unexpected serialized bigint aggregate state of %d bytes", buf.len);
	PG_RETURN_INT64(pq_getmsgint64(&buf));
}
