/*-------------------------------------------------------------------------
 *
 * spelling.c
 *	  Does the spelling of a grouped subquery's key reach the rows of the
 *	  level above it?
 *
 * Some types have equal values that print differently: numeric without a
 * declared scale (4.5 and 4.50), float (0 and -0), interval ('1 day' and
 * '24:00:00'), jsonb, citext, nondeterministic collations
 * (dv_equality_is_identity).  A GROUP BY groups such values together and
 * its row shows the key as one of the group's rows spells it, whichever
 * the plan meets first.  A grouped subquery operator without a state of its
 * own (optree.h, rule "group") recomputes each changed group over its input
 * now (+1) and as it was (-1); the old row it computes shows the key as
 * some old row spells it, not necessarily as the row the table holds was
 * spelled.  When the group's aggregates did not change and the old and new
 * rows print alike, they cancel, and the table keeps its spelling even if
 * the row that gave it was deleted (numeric 4.5 and 4.50, the 4.5 row
 * deleted: the table shows 4.5, the query 4.50).
 *
 * The spelling only matters where it reaches the rows the level computes:
 * a key that the level above compares by equality only (a join's ON, a
 * decorrelated scalar subquery's correlation, an IN turned into a
 * semi-join) yields the same rows whatever its spelling.  Any other use
 * (the key in the output, cast to text, an argument of a function or an
 * aggregate, a GROUP BY above, the subquery's HAVING) makes the operator FULL
 * (SUBQUERY_IN_FROM); optree.c make_group asks.
 *
 * Needs a transaction (catalog lookups).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/stratnum.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/pg_list.h"
#include "optimizer/optimizer.h"
#include "parser/parsetree.h"
#include "utils/lsyscache.h"

#include "dynview.h"
#include "analyze/delta.h"

/* the subquery's group keys whose equal values can print differently */
typedef struct KeyContext
{
	List	   *keys;			/* of Node * */
} KeyContext;

/* the level's columns that carry such a key's spelling */
typedef struct UseContext
{
	List	   *columns;		/* of Var * (varno, varattno; level 0) */
	int			sublevels_up;
} UseContext;

/*
 * is opno an equality of a btree operator family (cross-type ones
 * included), compared under collation (or not collatable)?  Equal values
 * of its operand then give the same answer whatever their spelling.
 */
static bool
is_equality(Oid opno, Oid inputcollid, Node *operand)
{
	List	   *interpretations;
	ListCell   *lc;
	bool		equality = false;

	if (OidIsValid(inputcollid) && inputcollid != exprCollation(operand))
		return false;
	interpretations = get_op_btree_interpretation(opno);
	foreach(lc, interpretations)
	{
		OpBtreeInterpretation *i = lfirst(lc);

		if (i->strategy == BTEqualStrategyNumber)
			equality = true;
	}
	list_free_deep(interpretations);
	return equality;
}

/* strip binary-compatible relabelings (varchar to text and the like) */
static Node *
strip_relabel(Node *node)
{
	while (node != NULL && IsA(node, RelabelType))
		node = (Node *) ((RelabelType *) node)->arg;
	return node;
}

/*
 * The walkers below share one shape: an operand of an equality (=, = ANY)
 * that is one of the tracked expressions is a safe use and not looked
 * into; any other occurrence is a use that carries the spelling.
 */

static bool key_walker(Node *node, KeyContext *ctx);

static bool
is_key(Node *node, KeyContext *ctx)
{
	ListCell   *lc;

	node = strip_relabel(node);
	foreach(lc, ctx->keys)
	{
		if (equal(node, lfirst(lc)))
			return true;
	}
	return false;
}

/* does an expression of the subquery's output carry a key's spelling? */
static bool
key_walker(Node *node, KeyContext *ctx)
{
	if (node == NULL)
		return false;
	if (is_key(node, ctx))
		return true;
	/* (an aggregate reads every row of its group, not one spelling) */
	if (IsA(node, Aggref) || IsA(node, GroupingFunc))
		return false;
	if (IsA(node, OpExpr) && list_length(((OpExpr *) node)->args) == 2)
	{
		OpExpr	   *op = (OpExpr *) node;
		Node	   *l = linitial(op->args);
		Node	   *r = lsecond(op->args);

		if (is_equality(op->opno, op->inputcollid, is_key(l, ctx) ? l : r))
			return (!is_key(l, ctx) && key_walker(l, ctx)) ||
				(!is_key(r, ctx) && key_walker(r, ctx));
	}
	if (IsA(node, ScalarArrayOpExpr) && ((ScalarArrayOpExpr *) node)->useOr)
	{
		ScalarArrayOpExpr *op = (ScalarArrayOpExpr *) node;
		Node	   *l = linitial(op->args);

		if (is_key(l, ctx) && is_equality(op->opno, op->inputcollid, l))
			return key_walker(lsecond(op->args), ctx);
	}
	return expression_tree_walker(node, key_walker, ctx);
}

/* is node a Var of the level that carries a key's spelling? */
static bool
is_tracked(Node *node, UseContext *ctx)
{
	Var		   *v;
	ListCell   *lc;

	node = strip_relabel(node);
	if (node == NULL || !IsA(node, Var))
		return false;
	v = (Var *) node;
	if (v->varlevelsup != ctx->sublevels_up)
		return false;
	foreach(lc, ctx->columns)
	{
		Var		   *c = lfirst(lc);

		if (c->varno == v->varno && (c->varattno == v->varattno || v->varattno == 0))
			return true;
	}
	return false;
}

/* does the level read a tracked column other than as an operand of an equality? */
static bool
use_walker(Node *node, UseContext *ctx)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
	{
		bool		found;

		ctx->sublevels_up++;
		found = query_tree_walker((Query *) node, use_walker, ctx, QTW_IGNORE_JOINALIASES);
		ctx->sublevels_up--;
		return found;
	}
	if (is_tracked(node, ctx))
		return true;
	if (IsA(node, OpExpr) && list_length(((OpExpr *) node)->args) == 2)
	{
		OpExpr	   *op = (OpExpr *) node;
		Node	   *l = linitial(op->args);
		Node	   *r = lsecond(op->args);

		if (is_equality(op->opno, op->inputcollid, is_tracked(l, ctx) ? l : r))
			return (!is_tracked(l, ctx) && use_walker(l, ctx)) ||
				(!is_tracked(r, ctx) && use_walker(r, ctx));
	}
	if (IsA(node, ScalarArrayOpExpr) && ((ScalarArrayOpExpr *) node)->useOr)
	{
		ScalarArrayOpExpr *op = (ScalarArrayOpExpr *) node;
		Node	   *l = linitial(op->args);

		if (is_tracked(l, ctx) && is_equality(op->opno, op->inputcollid, l))
			return use_walker(lsecond(op->args), ctx);
	}
	return expression_tree_walker(node, use_walker, ctx);
}

/* does expression e read a tracked column (at level 0)? */
static bool
reads_tracked(Node *node, UseContext *ctx)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
		return is_tracked(node, ctx);
	return expression_tree_walker(node, reads_tracked, ctx);
}

/*
 * dv_group_spelling_reaches - is the subquery in FROM at rti of q grouped
 * by a key whose equal values can print differently
 * (dv_key_equality_is_identity), and does q read an output of it that carries
 * the key's spelling other than as an operand of an equality (=, = ANY;
 * under the key's collation), or does the subquery's HAVING?  Then the rows q computes depend on which
 * spelling the subquery's row shows, which its recomputed old row cannot
 * know (see the file header).  Join alias columns that pass such an output
 * on are followed.  Allocates in the current memory context.
 */
bool
dv_group_spelling_reaches(Query *q, int rti)
{
	RangeTblEntry *rte = rt_fetch(rti, q->rtable);
	Query	   *sq = rte->subquery;
	KeyContext	keys = {NIL};
	UseContext	uses = {NIL, 0};
	ListCell   *lc;
	bool		grew;

	if (rte->rtekind != RTE_SUBQUERY || sq == NULL || sq->groupClause == NIL)
		return false;
	foreach(lc, sq->targetList)
	{
		TargetEntry *te = lfirst_node(TargetEntry, lc);
		Node	   *e = (Node *) te->expr;

		if (te->ressortgroupref != 0 &&
			get_sortgroupref_clause_noerr(te->ressortgroupref, sq->groupClause) != NULL &&
			!dv_key_equality_is_identity(exprType(e), exprTypmod(e), exprCollation(e)))
			keys.keys = lappend(keys.keys, strip_relabel(e));
	}
	if (keys.keys == NIL)
		return false;
	foreach(lc, sq->targetList)
	{
		TargetEntry *te = lfirst_node(TargetEntry, lc);

		if (!te->resjunk && key_walker((Node *) te->expr, &keys))
			uses.columns = lappend(uses.columns, makeVar(rti, te->resno, InvalidOid, -1, InvalidOid, 0));
	}
	/* (a HAVING that reads the spelling keeps a group or not by the row the plan met first) */
	if (sq->havingQual != NULL && key_walker(sq->havingQual, &keys))
		return true;
	if (uses.columns == NIL)
		return false;

	/* the join alias columns that pass a tracked column on, to a fixed point */
	do
	{
		int			jrti = 0;

		grew = false;
		foreach(lc, q->rtable)
		{
			RangeTblEntry *j = lfirst_node(RangeTblEntry, lc);
			ListCell   *la;
			int			attno = 0;

			jrti++;
			if (j->rtekind != RTE_JOIN)
				continue;
			foreach(la, j->joinaliasvars)
			{
				Var		   *col;

				attno++;
				if (lfirst(la) == NULL || !reads_tracked((Node *) lfirst(la), &uses))
					continue;
				col = makeVar(jrti, attno, InvalidOid, -1, InvalidOid, 0);
				if (!is_tracked((Node *) col, &uses))
				{
					uses.columns = lappend(uses.columns, col);
					grew = true;
				}
			}
		}
	} while (grew);

	return query_tree_walker(q, use_walker, &uses, QTW_IGNORE_JOINALIASES);
}
