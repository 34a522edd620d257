/*-------------------------------------------------------------------------
 *
 * delta.h
 *	  The incremental plan of a dynamic table's query (delta.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DYNVIEW_DELTA_H
#define DYNVIEW_DELTA_H

#include "nodes/nodeFuncs.h"
#include "nodes/parsenodes.h"
#include "utils/relcache.h"

typedef enum DvPlanKind
{
	DV_PLAN_FULL,				/* refreshed in full: reason_code says why */
	DV_PLAN_SPJ,				/* scan, filter, project, inner joins */
	DV_PLAN_GROUPED,			/* the same under GROUP BY / DISTINCT: affected groups */
	DV_PLAN_TOPN,				/* ORDER BY ... LIMIT over an SPJ or grouped input */
	DV_PLAN_WINDOW				/* window functions over an SPJ or grouped input:
								 * without PARTITION BY, the rows from the first
								 * changed one in the window's order; over GROUP BY
								 * with PARTITION BY, the affected partitions */
} DvPlanKind;

/*
 * A sort key of a WINDOW plan's window (its ORDER BY): an output column,
 * the operator it sorts by (the "less than" of the ordering: > for DESC),
 * the equality of the same btree family, where NULLs go, and the
 * collation the window sorts with.
 */
typedef struct DvSortKey
{
	char	   *column;
	Oid			sortop;
	Oid			eqop;
	bool		nulls_first;
	Oid			collation;
} DvSortKey;

/*
 * An aggregate that a GROUPED plan maintains in place in the table's state
 * table (design section 6), instead of recomputing its groups.
 */
typedef enum DvAggKind
{
	DV_AGG_COUNT_STAR,			/* count(*) */
	DV_AGG_COUNT,				/* count(x): input x IS NOT NULL; also count(*) FILTER */
	DV_AGG_SUM,					/* sum(x), x integer or numeric */
	DV_AGG_AVG,					/* avg(x), x integer or numeric */
	DV_AGG_MIN,					/* min(x), x with a btree ordering */
	DV_AGG_MAX,					/* max(x) */
	DV_AGG_COUNT_DISTINCT,		/* count(DISTINCT x): multiplicities in a table */
	DV_AGG_BOOL_AND,			/* bool_and(x), every(x): counts of true and non-null */
	DV_AGG_BOOL_OR,				/* bool_or(x) */
	DV_AGG_VAR_SAMP,			/* var_samp(x), variance(x), x integer or numeric:
								 * count, sum and sum of squares */
	DV_AGG_VAR_POP,				/* var_pop(x) */
	DV_AGG_STDDEV_SAMP,			/* stddev_samp(x), stddev(x) */
	DV_AGG_STDDEV_POP			/* stddev_pop(x) */
} DvAggKind;

typedef struct DvAgg
{
	DvAggKind	kind;
	Node	   *aggref;			/* the Aggref, to match in the target list */
	char	   *value_type;		/* the aggregate's result type (SQL, qualified) */
	char	   *arg_type;		/* its input column's type (NULL: count(*)) */
	Oid			arg_typid;		/* the same type's OID (InvalidOid: count(*)) */
	char	   *arg_collate;	/* " COLLATE ..." for comparisons of the input, or "" */
	bool		scale_tracked;	/* sum/avg of numeric without a declared scale,
								 * variance family of numeric: live inputs
								 * counted per display scale */
	bool		distinct_by_key;	/* COUNT written count(DISTINCT x) over a key
									 * of the input (dv_optree_input_key): no
									 * two input rows share a non-null x */
	int			fill_arg;		/* the state fill reads x<fill_arg>: the first
								 * aggregate whose input equals this one's, so
								 * PostgreSQL shares their transition states */
	bool		arg_notnull;	/* x is a NOT NULL column no outer join nulls:
								 * the fill counts it as count(*) */
	bool		arg_computed;	/* x is an expression, not a column */
	bool		count_shares_sum;	/* sum or avg of a numeric or bigint x
									 * that may be null: the fill counts it
									 * with dynview._nonnull_count(x), whose
									 * transition state is the sum's */
} DvAgg;

/*
 * (An aggregate's FILTER (WHERE f) is part of its input: x<j> is
 * CASE WHEN f THEN x END, which every kind above ignores as NULL.)
 */

/* One source occurrence (range table entry) of the query */
typedef struct DvPlanSource
{
	int			rtindex;
	Oid			relid;
	bool		only;			/* FROM ONLY */
	char	   *qualified;		/* schema.name as deparsed */
	char	   *enr_name;		/* its window's relation: dv_delta_<branch>_<rtindex> */
	List	   *columns;		/* String names of the columns read */
	int64		delta_rows;		/* rows in its window (-1: not read yet) */
	/*
	 * Its window's rows while the refresh that read them generates its SQL
	 * (the ephemeral relation's tuplestore and row shape, owned by it;
	 * NULL but then), for counts of distinct keys (optree.c,
	 * window_distinct).
	 */
	struct Tuplestorestate *delta_store;
	struct TupleDescData *delta_desc;
	/*
	 * The counts window_distinct made of that window (its own entries, in
	 * delta_desc's memory context): each column counted once per refresh.
	 * NIL whenever delta_store is set or cleared.
	 */
	List	   *delta_distinct;
	/*
	 * The conjuncts of its filter that its window read may apply
	 * (refresh/incremental.c, window_filter_conjuncts), computed at the first
	 * refresh that asks, for this buffer, owner, setting and row-level
	 * security state of the source, and kept with the plan.
	 */
	bool		filter_known;
	Oid			filter_buffer;
	Oid			filter_owner;
	bool		filter_functions;	/* dynview.window_filter_functions then */
	int			filter_rls;		/* check_enable_rls(relid, owner) then */
	List	   *filter_conjuncts;	/* SQL of each, in the query's order */
	List	   *filter_leakproof;	/* those that cannot fail (DV_WINDOW_CONJUNCT_LEAKPROOF) */
	bool		filter_complete;	/* filter_conjuncts are every conjunct of its filters */

	/*
	 * Set by each refresh's window read: the window was read from the buffer
	 * (not from a window shared by several occurrences) with every conjunct
	 * of the filters above its scan applied (filter_complete, and not the
	 * leakproof fallback), so nearly all its rows pass them.  The filters'
	 * delta still tests them (the read's text, deparsed under its own
	 * settings, need not mean what the query's parsed filter means), but
	 * through dynview._window_filtered(), whose planner support guesses the
	 * test to keep at least a third of the rows (optree.c delta_cte,
	 * incremental.c dynview_window_filtered_support): without statistics
	 * the planner would guess an equality to keep 1 row in 200 (TPC-H Q21's
	 * 1,031 changed 'F' orders estimated at 5, joined with their lineitems
	 * by a nested loop).
	 */
	bool		window_filtered;
} DvPlanSource;

/* the largest LIMIT of a top-N that keeps a state of its next rows */
#define DV_TOPN_STATE_MAX 10000

typedef struct DvPlan
{
	DvPlanKind	kind;
	const char *reason_code;	/* FULL only */
	char	   *reason;
	List	   *sources;		/* of DvPlanSource * */
	List	   *key_columns;	/* GROUPED: output column names of the keys */
	bool		keys_unique;	/* GROUPED: one row per key (GROUP BY, DISTINCT); not for windows */
	List	   *key_delta_names;	/* GROUPED: the key columns' names in the delta (NIL: key_columns) */
	bool		window_node;	/* GROUPED subquery operator of window functions with
								 * PARTITION BY: grouped_level is the window level and
								 * its keys the partition keys (output columns or not) */
	struct DvOp *tree;			/* the level's operator tree (optree.h) */
	Query	   *level;			/* the level its Vars refer to */
	List	   *input_tlist;	/* the input whose delta is computed, over level */
	Query	   *grouped_level;	/* GROUPED: level with its GROUP BY/DISTINCT, aggregates, HAVING */

	/*
	 * TOPN: the query without ORDER BY and LIMIT, planned as an operator
	 * (its delta: the changed rows before the limit), the ORDER BY over the
	 * result's column names, the LIMIT (rows the table holds at most: those
	 * after the OFFSET) and the OFFSET
	 */
	struct DvPlan *topn_input;
	char	   *topn_order;
	int64		topn_rows;
	int64		topn_offset;
	bool		topn_unique_order;	/* rows that tie in the order are alike: the sort
									 * keys are every column, or hold a key of them */

	/*
	 * TOPN without OFFSET: the state kept in dynview_state.topn_<relid>
	 * (refresh/aggstate.c), the input's rows that sort strictly before a
	 * bound row (dynview_state.topnb_<relid>; none: the whole input), up to
	 * topn_state_rows of them (filled by the definition with LIMIT
	 * topn_state_rows + 1).  0: no state (OFFSET, or a LIMIT above
	 * DV_TOPN_STATE_MAX).
	 */
	int64		topn_state_rows;

	/*
	 * WINDOW: the query without its window functions (and ORDER BY),
	 * planned as an operator (its delta: the changed input rows), the names
	 * of its output columns, and either the window's sort keys (no
	 * PARTITION BY: window_order) or the partition keys (key_columns).
	 */
	struct DvPlan *window_input;
	List	   *window_input_columns;	/* of char * */
	List	   *window_order;	/* of DvSortKey * */
	List	   *branches;		/* UNION ALL: the SPJ plan of each branch (no template) */

	/*
	 * The input of a TOPN or WINDOW plan: the subquery operator over it
	 * whose delta dv_node_delta_sql computes, kept with the plan when it
	 * keeps its groups in a state (optree.c assign_states_node), or NULL
	 */
	struct DvOp *node_op;
	List	   *output_names;	/* UNION ALL: the result's column names (char *) */

	/*
	 * A subquery operator with ORDER BY ... LIMIT n [OFFSET m] (dv_plan_node,
	 * node_topn): the plan is its query without LIMIT, of which the operator
	 * keeps the first node_topn_count rows after node_topn_offset in the
	 * order node_topn_order (of DvSortKey *, column the output column's
	 * name), whose columns are the output columns at 1-based positions
	 * node_topn_pos (among the non-junk ones).  Its order is unique up to
	 * rows that are alike (every output column sorted, or a key of its
	 * input), so the rows it keeps do not depend on the plan.
	 */
	bool		node_topn;
	int64		node_topn_count;
	int64		node_topn_offset;
	List	   *node_topn_order;
	List	   *node_topn_pos;	/* int */
	List	   *spj_key;		/* SPJ: output columns no two rows share (NULLs
								 * equal), derived from the sources' unique keys
								 * through the joins (analyze/keys.c), or NIL */

	/*
	 * GROUPED with aggregate state (aggs != NIL, or a global aggregate): the
	 * template's columns are the group keys g1..gn and one input x<j> per
	 * aggregate j (1-based, none for count(*)); state_query is the query
	 * level whose group keys and aggregates map to the state table's columns.
	 */
	bool		agg_state;
	List	   *aggs;			/* of DvAgg * */
	List	   *key_types;		/* SQL type (with COLLATE) of each group key */
	List	   *key_btree;		/* int: has the key type a btree ordering? */
	Query	   *state_query;
	char	   *state_reason;	/* GROUPED without state: why not (for explain) */

	/*
	 * dv_state_projection_sql's text for the state table projection_state,
	 * kept in the plan's memory context (the one field a refresh fills in a
	 * shared plan: the text follows from the plan and that table alone, and
	 * the plan cache drops the plan when a function, type, operator or
	 * schema its deparsed names could follow changes)
	 */
	Oid			projection_state;
	char	   *projection_sql;
} DvPlan;

extern DvPlan *dv_plan_query(Query *query);
extern DvPlan *dv_plan_node(Query *sub);
extern bool dv_plain_select(Query *s, bool for_sublink);
extern char *dv_node_delta_sql(DvPlan *node);
extern char *dv_node_new_sql(DvPlan *node);
extern char *dv_delta_sql(DvPlan *plan);
extern char *dv_input_sql(DvPlan *plan);
extern char *dv_plan_tree_text(DvPlan *plan);
extern char *dv_window_order_sql(DvPlan *plan, const char *alias);
extern char *dv_state_projection_sql(DvPlan *plan, Oid state_relid);
extern bool dv_equality_is_identity(Oid type, int32 typmod, Oid collation);

/* spelling.c */
extern bool dv_group_spelling_reaches(Query *q, int rti);
extern bool dv_aggregate_is_mutable(Oid fn);
extern char *dv_equality_operator(Oid type);
extern char *dv_null_test_sql(const char *x, Oid type);
extern char *dv_operator_sql(Oid opno);

/* does node call a function checker accepts? (delta.c) */
extern bool dv_find_function(Node *node, check_function_callback checker, void *context);
extern bool dv_calls_user_code(Node *node);
extern bool dv_type_holds_domain(Oid type);
extern bool dv_type_runs_user_code(Oid type);
extern bool dv_key_equality_is_identity(Oid type, int32 typmod, Oid collation);
extern bool dv_index_column_runs_user_code(Oid type, Oid opfamily, Oid opcintype);
extern bool dv_index_runs_user_code(Relation index);
extern bool dv_relation_runs_user_code(Relation rel);
extern bool dv_relid_runs_user_code(Oid relid);
extern bool dv_values_run_user_code(Node *node);

/* how a window read may apply a conjunct of the filter on a source (delta.c) */
typedef enum DvWindowConjunct
{
	DV_WINDOW_CONJUNCT_NONE,	/* left to the delta statements */
	DV_WINDOW_CONJUNCT_LEAKPROOF,	/* cannot fail: applied always */
	DV_WINDOW_CONJUNCT_BUILT_IN /* built-in, immutable, may fail: the read falls back without it */
} DvWindowConjunct;

extern DvWindowConjunct dv_window_conjunct_kind(Node *qual, Oid relid, Oid owner);

#endif							/* DYNVIEW_DELTA_H */
