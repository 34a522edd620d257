/*-------------------------------------------------------------------------
 *
 * setop.h
 *	  Set operations (UNION / INTERSECT / EXCEPT [ALL]) as operators of the
 *	  compositional engine (setop.c).
 *
 * A set operation tree is rewritten into a query of the operators the
 * engine already has, so that it composes at any depth (as a subquery in
 * FROM, under a join, an aggregate, a semi-join, a window, a top-N):
 *
 *	X UNION ALL Y	the full join of X and Y ON false, each row of either side
 *					padded with NULLs for the other's columns and its columns
 *					read back by a tag column (dv_t, 1 on each side's rows):
 *					DELTA = DELTA(X) + DELTA(Y), weights kept (the full join's
 *					rule with a condition that never holds);
 *	X op Y (UNION, INTERSECT, EXCEPT, INTERSECT ALL, EXCEPT ALL)
 *					the same union grouped by every column (NULLs equal, the
 *					columns' equality, as the set operation compares), with
 *					cl = count(left tag) and cr = count(right tag) per value:
 *					UNION		one row per value;
 *					INTERSECT	HAVING cl > 0 AND cr > 0, one row;
 *					EXCEPT		HAVING cl > 0 AND cr = 0, one row;
 *					INTERSECT ALL	least(cl, cr) rows (generate_series);
 *					EXCEPT ALL		cl - cr rows where cl > cr.
 *
 * The grouped level is a GROUP operator (optree.c): a row's new multiplicity
 * f(cl, cr) minus the old one, for the values the branches' deltas touch,
 * with the counts per value kept in a state table in dynview_state where
 * the engine keeps a grouped subquery's aggregates (explain() names it), or
 * recomputed over the branches restricted to those values.  Nested trees
 * compose: each branch is a subquery of its own, itself a set operation.
 * Columns are cast to the set operation's types, typmods and collations.
 *
 * The rewritten query is built from the branches' Query trees deparsed by
 * ruleutils (pg_get_querydef, every name outside pg_catalog qualified) and
 * analysed again; no text is searched or replaced.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DYNVIEW_SETOP_H
#define DYNVIEW_SETOP_H

#include "nodes/parsenodes.h"

/*
 * dv_setop_rewrite - the query (whose setOperations is set) as a query of
 * joins, grouping and set-returning functions with the same rows, or NULL
 * with *why set when it cannot be rewritten (a branch that reads the outer
 * query or a WITH query of it, row-level security, views of other roles).
 */
extern Query *dv_setop_rewrite(Query *query, const char **why);

#endif							/* DYNVIEW_SETOP_H */
