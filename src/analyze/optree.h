/*-------------------------------------------------------------------------
 *
 * optree.h
 *	  The operator tree of one query level and the SQL of its delta
 *	  (optree.c).
 *
 * A query level's FROM and WHERE (after subqueries are pulled up and
 * EXISTS / IN sublinks turned into semi- and anti-joins) become a tree of
 * operators over weighted rows (Z-sets): scans of sources, filters, and
 * joins of every kind.  Each operator has two relations in SQL:
 *	NEW		its rows at the refresh's snapshot (every weight 1), and
 *	DELTA	its change since the previous data snapshot, rows with a weight
 *			(column dv_weight: +n inserted, -n deleted);
 * OLD = NEW - DELTA is never written out: each rule is arranged to read NEW
 * and DELTA only, so that the planner can drive a small DELTA into indexes
 * of NEW.  The rules (X, Y the children, m(x) the number of Y rows that
 * match x, s(x) the sum of the weights of the DELTA(Y) rows that match x,
 * so that the old number of matches is m(x) - s(x)):
 *
 *	scan	 DELTA = the source's window of change rows
 *	filter	 DELTA = filter(DELTA(X))
 *	inner	 DELTA = DELTA(X) join NEW(Y) + NEW(X) join DELTA(Y)
 *					 - DELTA(X) join DELTA(Y)			(weights multiplied)
 *	semi	 DELTA = NEW(X) rows matching DELTA(Y), weight [m > 0] - [m - s > 0]
 *					 + DELTA(X) rows, weight w * [m - s > 0]
 *	anti	 the same with [m = 0] and [m - s = 0]
 *	left	 inner + the anti rule of (X, Y) padded with NULLs for Y's columns
 *	right	 inner + the anti rule of (Y, X) padded for X's columns
 *	full	 inner + both
 *	function a function in FROM (immutable): no delta of its own; as the right
 *			 side of an inner or left join it may read the left side's row
 *			 (LATERAL), and the join's delta is the left side's delta joined
 *			 to it row by row
 *	group	 a subquery in FROM: SPJ, its own tree's DELTA; GROUP BY, DISTINCT
 *			 or a global aggregate, its groups whose keys the DELTA of its
 *			 input has, recomputed over NEW (+1) and over OLD (-1), where OLD
 *			 is its input's NEW less its input's DELTA (restricted to the
 *			 affected keys like NEW); window functions, their partitions whose
 *			 keys the DELTA of the input has (all rows when the windows share
 *			 no partition key), recomputed the same way
 *
 * A grouped subquery G joined by a condition "e = k1" (k1 its first group
 * key, e an expression of the other side X's row, the key type's strict
 * equality) is read by the key:
 *	- in DELTA(X) join NEW(G), NEW(G) is computed for the groups whose key
 *	  is some e of DELTA(X) only (TPC-H Q17: the avg of the parts a changed
 *	  lineitem has, not of every part);
 *	- as the right side of an inner, left, semi- or anti-join, DELTA(G)
 *	  recomputes only the affected groups that some row of NEW(X) or of
 *	  DELTA(X) has e = k1 for: another group joins no row before or after
 *	  the change and adds nothing to the join's delta (Q17: of the parts a
 *	  change has, those of the brand and container the query reads).
 *
 * A term that reads one side X of a join now against the other side's
 * delta (semi, anti and the padded rows: NEW(X) rows matching DELTA(Y);
 * inner: NEW(X) join DELTA(Y)), with a join condition "v = e" (v a column
 * of a scan of X that leads an index, e an expression of Y's row, a btree
 * or hash equality), reads that scan restricted to
 * v = ANY (ARRAY(SELECT e FROM DELTA(Y))), a subquery of its own (OFFSET 0),
 * when the sources under Y have at most 100,000 rows of change: an index
 * lookup per changed key instead of X read whole (optree.c reach_restrict;
 * TPC-H Q21).  Of several such conditions, the one whose column has the
 * fewest rows per value (pg_statistic); in an inner join's terms, not when X
 * is a scan (under filters) alone: the planner drives the delta into its
 * index itself, estimated from the delta's true size (TPC-H Q9).
 *
 * In an inner join's term that joins a scan's rows now (a source under
 * filters) with the delta of its left side, when the inner joins above
 * join that scan by "v = x" to an unchanged chain of small scans, one of
 * them filtered, the scan is read restricted to
 * v = ANY (ARRAY(SELECT x FROM the chain)), a subquery of its own (OFFSET
 * 0): a row cut so would be dropped by the joins above.  Only for a scan
 * too large to stay in shared buffers whose rows the delta would not be
 * cheaper to probe (optree.c implied_restrict; TPC-H Q8's customer, read
 * in one bitmap scan of its nation index instead of once per nation).
 * Unless reading it by the distinct keys the delta carries is cheaper, in
 * key order: then it is read as v = ANY (ARRAY(SELECT x FROM the WITH
 * entry of the join below that brings x in)), the joins between having no
 * delta on their other side (optree.c implied_keys; TPC-H Q8's customer,
 * read by the changed orders' ~1,350 customers, not 59,887 of AMERICA).
 *
 * The items of a FROM list are joined left-deep in the order of their join
 * conditions (the first item, then each time the first that a WHERE
 * conjunct joins to those before it; an item no conjunct joins comes when
 * nothing else is left), never two unconnected items first: TPC-H Q9's
 * "part, supplier, lineitem, ..." is joined as part, lineitem, supplier, ...
 *
 * In the semi, anti and padded-row terms, s(x) comes from one join of the
 * rows x (numbered, a WITH entry) with DELTA(Y), summed per row, not from a
 * subquery per x over DELTA(Y) (rows times delta: TPC-H Q13); and m(x) is
 * counted up to GREATEST(s, 0) + 1 rows only (LIMIT): exact below, at least
 * that above, which decides [m = 0] and [m - s = 0] alike (exist_terms).
 * A grouped subquery's OLD over its affected keys subtracts the DELTA of
 * its input restricted to those keys (keyed_delta_sql), not the whole of it
 * (TPC-H Q17: the change of lineitem for the few parts the query reads).
 *
 * In the semi, anti and padded terms, the rows read (NEW(X) rows matching
 * DELTA(Y), and DELTA(X)) are a WITH entry numbered by row_number(): s(x)
 * is one join of it with DELTA(Y) grouped by that number (hashed on the
 * condition's equalities, not a scan of DELTA(Y) per row), and m(x) a
 * count per row of that entry (by an index of Y where one fits), after any
 * filter or join below it (the entry is a fence: TPC-H Q21, Q22, Q4).
 * When the condition is only equalities "a = b" of one type under its
 * default equality (a of X, b of Y), besides conditions on Y's row alone,
 * DELTA(Y) is instead summed per value of the b's (filtered by those
 * conditions, zero sums dropped), and the rows x are joined to those sums
 * by the equalities: no numbering, one join the planner can hash whatever
 * its estimate of x (optree.c key_sums; TPC-H Q22's 385 reached customers
 * had been joined to their sums by a nested loop planned for one row).  An
 * EXISTS / IN subquery's relations are read for the columns its conditions
 * and IN's test read (optree.c narrow_sublink_columns), not all that
 * "SELECT *" names.
 *
 * A global aggregate subquery whose aggregates are all extremes (min, max,
 * bool_and, bool_or: pg_aggregate.aggsortop) computes its input's NEW once
 * (a WITH entry; its one row now is read from there by the whole statement)
 * and its row as it was over the first row of NEW in each aggregate's order
 * plus the deleted rows of the input's DELTA, when no inserted row reaches
 * an extreme (else over NEW - DELTA); the two rows cancel when their text
 * is the same (TPC-H Q15: max(total_revenue) over a grouped view).
 *
 * Operators compose: a child's NEW and DELTA are any operator's.  A
 * subtree whose sources have an empty window has an empty DELTA and its
 * terms are left out.  Expressions (join conditions, filters, the level's
 * output) are PostgreSQL's own analysed expressions, deparsed by ruleutils
 * over the operator's inputs; no text is searched or replaced.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DYNVIEW_OPTREE_H
#define DYNVIEW_OPTREE_H

#include "nodes/parsenodes.h"
#include "nodes/bitmapset.h"

#include "analyze/delta.h"

typedef enum DvOpKind
{
	DV_OP_SCAN,					/* a source's rows */
	DV_OP_FILTER,				/* rows of its child for which quals hold */
	DV_OP_JOIN,					/* jointype: inner, left, right, full, semi, anti */
	DV_OP_GROUP,				/* a subquery in FROM planned on its own (inner) */
	DV_OP_FUNC					/* a function in FROM (LATERAL: of the left side's row) */
} DvOpKind;

/* an output column of an operator: column attno of range table entry rti */
typedef struct DvOpCol
{
	int			rti;
	AttrNumber	attno;
	Oid			type;			/* the change buffer's type: domains as their base */
	int32		typmod;
} DvOpCol;

typedef struct DvOp
{
	DvOpKind	kind;
	JoinType	jointype;		/* DV_OP_JOIN */
	struct DvOp *left;			/* DV_OP_JOIN, and DV_OP_FILTER's child */
	struct DvOp *right;			/* DV_OP_JOIN */
	List	   *quals;			/* implicit AND: the join condition or the filter */
	DvPlanSource *source;		/* DV_OP_SCAN */
	DvPlan	   *inner;			/* DV_OP_GROUP: the subquery's plan (SPJ or GROUPED) */
	RangeTblEntry *func;		/* DV_OP_FUNC: its range table entry */
	bool		lateral;		/* DV_OP_FUNC: reads columns of the join's left side */
	Bitmapset  *rels;			/* range table indexes of the scans below */
	List	   *cols;			/* of DvOpCol *: the output columns */

	/*
	 * DV_OP_GROUP, a global aggregate of extremes in the plan of dynamic
	 * table state_table (dv_optree_assign_states): its state, the input's
	 * first row in each aggregate's order, is kept in
	 * dynview_state.ext_<state_table>_<state_id>; 0: no state.  Operators
	 * of the same subquery (a WITH query or view read twice) share one
	 * number, one state (dv_optree_state_ops lists one of them).
	 */
	Oid			state_table;
	int			state_id;

	/*
	 * DV_OP_GROUP with GROUP BY: why it keeps no state although it could
	 * (explain() says it), NULL otherwise.  Set by dv_optree_assign_states.
	 */
	const char *no_state_reason;

	/*
	 * DV_OP_GROUP with GROUP BY and a state number (grouprule.c): the index
	 * of its source through which its affected groups can be recomputed
	 * instead (InvalidOid: none serves), and the rows per value of its
	 * first group key that reads, by the statistics (-1: unknown).  Set by
	 * dv_optree_assign_states.
	 */
	Oid			index_rule_index;
	double		index_rows;

	/*
	 * How many of its first group keys the index lookups use: 1, or 2
	 * where the first alone reads too many rows per value and an index
	 * leads with both (grouprule.c assess_two_keys)
	 */
	int			index_rule_keys;

	/*
	 * DV_OP_FILTER over a scan under filters only (a filter state, optree.c
	 * filter_state_key): state_wanted, set by dv_optree_assign_states when
	 * it is the scan a partner filter reads (partner_scan of a
	 * partner-bounded join); with a state number (state_table, state_id),
	 * state_level, the level its quals and columns are over, and
	 * state_key, its column of the source's primary key's first column, by
	 * which the rows its window changes are read again (state_key_known
	 * once asked: NULL then means it can keep none).  state_optional:
	 * wanted as a side of an inner join only (not by a partner filter),
	 * its state is built only where the statistics say its filter keeps
	 * few rows (dv_optree_filter_state_chosen), numbered apart
	 * (DV_FILTER_STATE_ID_BASE + n) so that the other states keep their
	 * names whether it is built or not.  state_rows and state_fraction:
	 * the estimate of the rows its filter keeps and of their fraction of
	 * the source (optree.c filter_state_rows), once asked
	 * (state_rows_known), kept like state_key.
	 */
	bool		state_wanted;
	bool		state_optional;
	/*
	 * implied: a filter whose one condition push_quals derived from an OR
	 * over several relations (or_implied_quals), redundant below that OR;
	 * a build's input leaves it out (dv_optree_leave_implied_filters).
	 */
	bool		implied;
	Query	   *state_level;
	DvOpCol    *state_key;
	bool		state_key_known;
	double		state_rows;
	double		state_fraction;
	bool		state_rows_known;
} DvOp;

/*
 * dv_optree_convert_sublinks - EXISTS, NOT EXISTS, IN (= ANY) and NOT IN
 * (<> ALL, with its NULL semantics) conjuncts of the level's WHERE whose
 * subquery is a simple query (scans, filters, inner joins) become semi- and
 * anti-joins (JoinExpr of JOIN_SEMI / JOIN_ANTI, rtindex 0) in the join
 * tree; the subquery's range table is appended.  Other sublinks stay.
 * Modifies q in place.
 */
extern void dv_optree_convert_sublinks(Query *q);

/*
 * dv_optree_split_having - a grouped level whose HAVING compares its
 * aggregates with an uncorrelated scalar subquery, as a level over the
 * grouped level (a subquery in FROM) with those conditions as its WHERE;
 * q itself if it has none.
 */
extern Query *dv_optree_split_having(Query *q);

/*
 * dv_optree_build - the operator tree of the level's join tree and WHERE,
 * or NULL with *reason (a reason code) if a FROM item is not a source, a
 * join or a subquery that can be an operator (*detail: why, or NULL).  sources are the level's DvPlanSources; WHERE conjuncts are pushed
 * down to the lowest operator that has their columns, through inner joins
 * and to the preserved side of outer, semi- and anti-joins.
 */
extern DvOp *dv_optree_build(Query *q, List *sources, const char **reason, char **detail);

/*
 * dv_optree_delta_sql - the level's output (tlist over q's range table)
 * computed over the DELTA of root: a WITH chain of the operators' deltas
 * and a SELECT of tlist's expressions and dv_weight.  The sources'
 * delta_rows say which windows are empty (-1: unknown, not empty).
 */
extern char *dv_optree_delta_sql(Query *q, DvOp *root, List *tlist);

/* the same over NEW(root), every weight 1 */
extern char *dv_optree_new_sql(Query *q, DvOp *root, List *tlist);

/* the tree as text for explain(): one operator a line, indented */
extern char *dv_optree_explain(Query *q, DvOp *root);

/* the sources of the subqueries planned as operators (their windows are read too) */
extern List *dv_optree_nested_sources(DvOp *root);

/*
 * does the query read a relation with another role's rights (a view of
 * another owner, anywhere in it)?  The operators' statements read the
 * sources themselves, as the table's owner.
 */
extern bool dv_optree_reads_as_other_role(Node *node);

/*
 * Operator state (refresh/aggstate.c builds it, refresh/incremental.c keeps
 * it): a global aggregate subquery operator whose aggregates are all
 * extremes (min, max, bool_and, bool_or: pg_aggregate.aggsortop) keeps its
 * input's first row in each aggregate's order (the extreme rows: one per
 * aggregate) in dynview_state.ext_<table oid>_<n>, exact at the table's
 * data snapshot.  Its row as it was is then the aggregate over the state;
 * its row now, when no deleted row of its input's delta reaches an extreme
 * (is not strictly after it in the aggregate's order), the aggregate over
 * the state and the inserted rows of the delta, else over its input now;
 * when its input has no change, the aggregate over the state.  So a max
 * over a grouped subquery (TPC-H Q15) costs the subquery's affected groups,
 * not the whole subquery, unless the change reaches the extreme row.
 *
 * dv_optree_assign_states numbers the operators of plan (and of the
 * subqueries planned as operators under it, outer before inner) that can
 * keep such a state, for dynamic table relid; dv_optree_state_ops lists
 * them in that order, an operator whose subquery is equal() to one
 * numbered before it sharing that one's number and state (listed once, at
 * its last place: TPC-H Q15's revenues, joined and under max(), one state
 * maintained once).  Any other aggregate without GROUP BY keeps its row
 * (a value state): read from the state when its input has no change, its
 * old row when it has.  The state is read only between
 * dv_optree_use_state(true) and (false), which an incremental refresh sets
 * around its statements, and only when its table exists and belongs to the
 * dynamic table's owner (else the rule without state is used and the state
 * is rebuilt by the next FULL refresh).
 */
extern void dv_optree_assign_states(struct DvPlan *plan, Oid relid);

/*
 * A filter state: the rows now of a scan under a filter of constants that a
 * partner filter reads (the left side of a join to a partner-bounded
 * grouped subquery: TPC-H Q17's parts of one brand and container), kept in
 * dynview_state.ext_<table oid>_<n> with the scan's columns, when the
 * source has a primary key whose first column is among them.  Before the
 * statements of an incremental refresh whose window has rows of that
 * source, the state's rows whose key some window row has are replaced by
 * the source's rows of those keys now that pass the filter (read by key);
 * every other row is unchanged since the data snapshot.  The statements
 * then read the state wherever they read the filtered scan now (not where
 * the scan is read restricted to some keys: the source, as before), so a
 * join's delta joins the changed rows to the few rows kept instead of
 * reading the source by key for each.  Built with the other states,
 * dropped with them, listed by dv_optree_state_ops; explain() shows it.
 */
extern List *dv_optree_state_ops(struct DvPlan *plan);
extern bool dv_optree_some_state_kept(struct DvPlan *plan);
/*
 * dv_store_distinct - the number of distinct non-NULL values of column attno
 * (1-based) of the rows of a tuplestore of shape desc, under the type's
 * default btree equality and the collation; *nulls (if not NULL) gets the
 * number of NULLs.  -1 for a type without a default btree ordering.  Reads
 * the rows through a read pointer of its own (read pointer 0 is selected
 * after); memory of the current context.  Used for window_distinct's plan
 * decisions and for the planner's statistics of ephemeral relations
 * (refresh/deltastats.c).
 */
struct Tuplestorestate;
extern double dv_store_distinct(struct Tuplestorestate *store, struct TupleDescData *desc, int attno,
								Oid collation, double *nulls);

extern void dv_optree_use_state(bool use);

/*
 * While on, the SQL generated leaves out the filters derived from an OR
 * over several relations (DvOp implied), which the OR above them still
 * applies: PostgreSQL derives the same conditions from the OR itself
 * (extract_restriction_or_clauses) and, given them twice, counts their
 * selectivity twice.  Only for the input of an aggregate state's fill
 * (aggstate.c); a filter state's own rows keep them.
 */
extern void dv_optree_leave_implied_filters(bool on);
extern char *dv_optree_state_name(DvOp *op);	/* unqualified, in dynview_state */
extern bool dv_optree_state_usable(DvOp *op);

/* the state's rows over the input now (fill: after a FULL refresh), and its columns */
extern char *dv_optree_state_fill_sql(DvOp *op);
extern char *dv_optree_state_columns(DvOp *op);

/*
 * During an incremental refresh, before its statements: the state's rows at
 * its snapshot (NULL if the operator's input has no change), which the
 * refresh registers as relation dv_optree_state_new_name (inner operators
 * first) and its statements read; the statement that makes them the state,
 * run right after they are computed when dv_optree_state_replace_first
 * (a grouped state: its rows now are then the state's), else after the
 * statements.
 */
extern char *dv_optree_state_new_sql(DvOp *op);
extern char *dv_optree_state_new_name(DvOp *op);
extern char *dv_optree_state_replace_sql(DvOp *op);
extern bool dv_optree_state_replace_first(DvOp *op);

/*
 * The live finite inputs of a numeric sum or avg counted per display scale
 * k in one exact numeric, sum of weight * 10^(19 k) (a count below 10^19
 * per 19-digit block; adding two such counts is numeric addition), so that
 * a kept sum shows the largest scale of its live inputs (1.0 + 1.00 = 2.00,
 * 1.0 again once 1.00 is deleted).  Scales above DV_SCALE_BLOCKS_MAX share
 * one block, whose groups are recomputed.  SQL text:
 *	dv_scale_unit_sql(x)			the block of numeric expression x (NULL
 *									for NULL, NaN and the infinities)
 *	dv_scale_of_counts_sql(sc)		the largest live scale of counts sc (0
 *									when none)
 *	dv_scale_beyond_blocks_sql(sc)	do counts sc hold a scale above
 *									DV_SCALE_BLOCKS_MAX?
 */
#define DV_SCALE_BLOCKS_MAX 1000
extern char *dv_scale_unit_sql(const char *x);
extern char *dv_scale_of_counts_sql(const char *sc);
extern char *dv_scale_beyond_blocks_sql(const char *sc);

/*
 * dv_numeric_fixed_scale - the scale every non-NULL value of the numeric
 * expression e (over q's range table; q may be NULL) has, -1 if not known
 * to be one (a declared scale, constants, integers, and sums, differences
 * and products of such)
 */
extern int	dv_numeric_fixed_scale(Node *e, Query *q);

/*
 * A grouped subquery operator (GROUP BY at any depth: a CTE, a subquery in
 * FROM, a decorrelated correlated subquery) whose aggregates are algebraic
 * over exact numbers (count(*), count(x), sum and avg of integers and of
 * numeric whose values have one scale, FILTER included) keeps its groups in
 * dynview_state.ext_<table oid>_<n>: per group its keys k1..kn, dv_count
 * (input rows), and per aggregate n<j> (non-NULL inputs), s<j> (their exact
 * sum), z<j> (numeric: NaN inputs).  Its new state rows are those of the
 * groups its input's delta has (the state row, found by the keys, plus the
 * delta aggregated; its old values and ctid carried along), its delta
 * their rows now (+1) less their rows as they were (-1), each computed
 * from the values by the level's own output and HAVING; its rows now the
 * state with those groups replaced (so an extreme over it, as TPC-H Q15's
 * max, reads the state, not the subquery's input); after the statements a
 * MERGE by ctid deletes emptied groups, updates changed ones and inserts
 * new ones.  dv_optree_state_key_columns lists the state's key columns as
 * index elements (NIL for the other states): a unique index (NULLS NOT
 * DISTINCT) covers them all, and each after the first has an index of its
 * own (a join or semi-join may look groups up by another key than the
 * first: TPC-H Q20's supplier of (part, supplier)).  A key whose values may
 * be too long for a B-tree entry is indexed by its hash (keys.c
 * dv_key_hashed); the index over all keys is then not unique (*hashed).
 */
extern List *dv_optree_state_key_columns(DvOp *op, bool *hashed);

/*
 * A filter state wanted by an inner join only (DvOp state_optional) is
 * built, at the table's creation and by each FULL refresh, when the
 * statistics say its filter keeps few rows (dv_optree_filter_state_chosen);
 * an incremental refresh reads and keeps it when its table is there, and
 * without it reads the source as before, unless the statistics now say
 * it keeps far fewer rows (dv_optree_filter_state_unneeded false): then
 * the refresh is FULL (STATE_MISSING) and builds it.
 */
#define DV_FILTER_STATE_ID_BASE 1000
extern bool dv_optree_filter_state_chosen(DvOp *op);
extern bool dv_optree_filter_state_unneeded(DvOp *op);
extern char *dv_optree_filter_state_index_column(DvOp *op);

/*
 * The index-recompute rule of grouped subqueries (grouprule.c): a grouped
 * subquery operator that could keep its groups (one source, its first group
 * key leading an index of it, few rows per key value) keeps no state and
 * recomputes its affected groups through the index.  The choice is made
 * when the states are built (creation, FULL refresh: no state table is
 * built when dv_optree_index_rule_chosen) and holds until the next: an
 * operator whose state table exists reads and keeps it; one without goes
 * on recomputing while dv_optree_index_rule_serves, else the refresh is
 * FULL (STATE_MISSING) and builds the state.
 */
extern void dv_optree_index_rule_assess(DvOp *op);
extern bool dv_optree_index_rule_chosen(DvOp *op);
extern bool dv_optree_index_rule_serves(DvOp *op);
extern char *dv_optree_index_rule_reason(DvOp *op);

/* has the tree a subquery or function operator (rows not keyed by the sources' keys)? */
extern bool dv_optree_has_groups(DvOp *root);

/* range table indexes whose rows do not reach the output (right of semi/anti) */
extern Bitmapset *dv_optree_hidden_rels(DvOp *root);

/*
 * dv_optree_unique_key - the key derived for an SPJ level over its tree
 * (keys.c): output column names (char *) that no two rows of the result
 * share (NULLs counted equal), or NIL
 */
extern List *dv_optree_unique_key(Query *q, DvOp *root);

/*
 * dv_optree_input_key - is column v alone a key of the level's input rows
 * (the rows tree gives its aggregates), by eqop's btree family under
 * collation (keys.c)?
 */
extern bool dv_optree_input_key(Query *q, DvOp *tree, Var *v, Oid eqop, Oid collation);

/*
 * dv_key_hashed, dv_key_hash_sql - whether dynview's index on a key column
 * of its own tables holds a hash of the value (a value may be too long for
 * a B-tree entry), and that hash's SQL (keys.c)
 */
extern bool dv_key_hashed(Oid type, int32 typmod, Oid collation, int nkeys);
extern char *dv_key_hash_sql(const char *expr);

#endif							/* DYNVIEW_OPTREE_H */
