/*-------------------------------------------------------------------------
 *
 * optree.c
 *	  The operator tree of a query level and the SQL of its delta (the
 *	  rules are in optree.h).
 *
 * Every operator's output columns are named c<rti>_<attno> after the
 * source column they carry, so that an expression of the level (a Var of
 * range table entry rti, column attno) is deparsed over any operator's
 * relation by naming that relation's alias for rti: ruleutils prints the
 * expression against a stand-in range table whose entry rti has those
 * column names (deparse_context_for_plan_tree with an alias per entry).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/relation.h"
#include "access/sysattr.h"
#include "access/stratnum.h"
#include "access/transam.h"
#include "catalog/pg_aggregate.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_constraint.h"
#include "catalog/pg_index.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_type.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/plannodes.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/tlist.h"
#include "parser/parse_agg.h"
#include "parser/parse_relation.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteManip.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/numeric.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/typcache.h"
#include "utils/tuplesort.h"
#include "utils/tuplestore.h"
#include "executor/executor.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "parser/parse_oper.h"
#include "utils/rel.h"
#include "utils/spccache.h"
#include "storage/bufmgr.h"
#include "utils/syscache.h"
#include "utils/ruleutils.h"

#include "dynview.h"
#include "analyze/optree.h"

/* ---------------------------------------------------------------------
 * Sublinks to semi- and anti-joins
 * ---------------------------------------------------------------------
 */

/* level-0 range table indexes an expression reads (varlevelsup counted) */
typedef struct VarnoContext
{
	Bitmapset  *varnos;
	int			sublevels_up;
} VarnoContext;

static bool
varnos_walker(Node *node, VarnoContext *ctx)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
	{
		if (((Var *) node)->varlevelsup == ctx->sublevels_up)
			ctx->varnos = bms_add_member(ctx->varnos, ((Var *) node)->varno);
		return false;
	}
	if (IsA(node, Query))
	{
		bool		r;

		ctx->sublevels_up++;
		r = query_tree_walker((Query *) node, varnos_walker, ctx, 0);
		ctx->sublevels_up--;
		return r;
	}
	return expression_tree_walker(node, varnos_walker, ctx);
}

static Bitmapset *
expr_varnos(Node *node)
{
	VarnoContext ctx = {NULL, 0};

	(void) varnos_walker(node, &ctx);
	return ctx.varnos;
}

/* the columns each level-0 range table entry's Vars read (varlevelsup counted) */
typedef struct ColumnsContext
{
	Bitmapset **cols;			/* per range table index (1-based), a selectedCols set */
	int			nrtes;
	int			sublevels_up;
} ColumnsContext;

static bool
columns_walker(Node *node, ColumnsContext *ctx)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
	{
		Var		   *v = (Var *) node;

		if (v->varlevelsup == ctx->sublevels_up && v->varno >= 1 && v->varno <= ctx->nrtes)
			ctx->cols[v->varno] = bms_add_member(ctx->cols[v->varno],
												 v->varattno - FirstLowInvalidHeapAttributeNumber);
		return false;
	}
	if (IsA(node, Query))
	{
		bool		r;

		ctx->sublevels_up++;
		r = query_tree_walker((Query *) node, columns_walker, ctx, 0);
		ctx->sublevels_up--;
		return r;
	}
	return expression_tree_walker(node, columns_walker, ctx);
}

/*
 * narrow_sublink_columns - the subquery s of an EXISTS / IN made a semi- or
 * anti-join: its relations are read for the columns its conditions (and
 * an IN's test, test_tlist) read only.  The parser marks every column of
 * "EXISTS (SELECT * ...)" selected, and the operators read the columns
 * selected (DvPlanSource.columns): the join's right side would carry, and
 * the window of its source would consolidate, whole rows that only their
 * join columns decide (TPC-H Q21: all 16 columns of lineitem, its comment
 * among them, for l2 and l3).  Only when every entry of s is a relation
 * (no JOIN entry whose alias Vars stand for its relations' columns); the
 * columns row-level security reads are added later (dv_captured_columns).
 * What change capture keeps is decided on the query as written.
 */
static void
narrow_sublink_columns(Query *s, List *test_tlist)
{
	ColumnsContext ctx;
	ListCell   *lc;
	int			rti = 0;

	foreach(lc, s->rtable)
	{
		if (lfirst_node(RangeTblEntry, lc)->rtekind != RTE_RELATION)
			return;
	}
	ctx.nrtes = list_length(s->rtable);
	ctx.cols = palloc0(sizeof(Bitmapset *) * (ctx.nrtes + 1));
	ctx.sublevels_up = 0;
	(void) columns_walker((Node *) s->jointree, &ctx);
	(void) columns_walker((Node *) test_tlist, &ctx);
	foreach(lc, s->rtable)
	{
		RangeTblEntry *rte = lfirst_node(RangeTblEntry, lc);

		rti++;
		rte->selectedCols = ctx.cols[rti];
	}
}

/* replaces the PARAM_SUBLINK Params of an IN's test by the subquery's outputs */
static Node *
sublink_param_mutator(Node *node, List *tlist)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Param) && ((Param *) node)->paramkind == PARAM_SUBLINK)
	{
		TargetEntry *te = list_nth_node(TargetEntry, tlist, ((Param *) node)->paramid - 1);

		return copyObject((Node *) te->expr);
	}
	return expression_tree_mutator(node, sublink_param_mutator, (void *) tlist);
}

/* is the aggregate PostgreSQL's count or regr_count (0, not NULL, over no rows)? */
static bool
builtin_count(Oid aggfnoid)
{
	char	   *name = get_func_name(aggfnoid);

	return aggfnoid < FirstGenbkiObjectId &&
		(strcmp(name, "count") == 0 || strcmp(name, "regr_count") == 0);
}

/*
 * is the aggregate NULL over no rows (the value the LEFT JOIN gives a row
 * that no group matches)?  Of the built-in aggregates, count and
 * regr_count are not (they start from 0), nor the hypothetical-set ones
 * (rank(x) WITHIN GROUP (...) over no rows is 1); the others are (avg,
 * var_samp, ... start from a state of zeros that their final function
 * turns into NULL).  Any other aggregate's value over no rows is its final
 * function applied to its initial state: NULL for sure only when that
 * state is NULL (no INITCOND) and the final function is absent or strict.
 */
static bool
agg_null_without_rows(Oid aggfnoid)
{
	HeapTuple	tup = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(aggfnoid));
	Form_pg_aggregate agg;
	bool		initnull;
	bool		result;

	if (!HeapTupleIsValid(tup))
		return false;
	agg = (Form_pg_aggregate) GETSTRUCT(tup);
	(void) SysCacheGetAttr(AGGFNOID, tup, Anum_pg_aggregate_agginitval, &initnull);
	if (agg->aggkind == AGGKIND_HYPOTHETICAL)
		result = false;
	else if (aggfnoid < FirstGenbkiObjectId)
		result = !builtin_count(aggfnoid);
	else
		result = initnull && (!OidIsValid(agg->aggfinalfn) || func_strict(agg->aggfinalfn));
	ReleaseSysCache(tup);
	return result;
}

/* does expr evaluate to NULL whenever every aggregate in it does (on no rows)? */
static bool
null_without_rows(Node *expr)
{
	ListCell   *lc;

	if (expr == NULL)
		return false;
	if (IsA(expr, Aggref))
		return agg_null_without_rows(((Aggref *) expr)->aggfnoid);
	if (IsA(expr, RelabelType))
		return null_without_rows((Node *) ((RelabelType *) expr)->arg);
	if (IsA(expr, OpExpr) || IsA(expr, FuncExpr))
	{
		List	   *args = IsA(expr, OpExpr) ? ((OpExpr *) expr)->args : ((FuncExpr *) expr)->args;
		Oid			func = IsA(expr, OpExpr) ? get_opcode(((OpExpr *) expr)->opno) : ((FuncExpr *) expr)->funcid;

		if (!func_strict(func) || (IsA(expr, FuncExpr) && ((FuncExpr *) expr)->funcretset))
			return false;
		foreach(lc, args)
		{
			if (null_without_rows(lfirst(lc)))
				return true;
		}
	}
	return false;
}

/* is an aggregate's value over no rows neither count's 0 nor NULL (agg_null_without_rows)? */
static bool
empty_value_unknown(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Aggref))
	{
		Aggref	   *a = (Aggref *) node;

		return !builtin_count(a->aggfnoid) && !agg_null_without_rows(a->aggfnoid);
	}
	return expression_tree_walker(node, empty_value_unknown, context);
}

/* an aggregate's value over no rows: count's 0, NULL for the others (empty_value_unknown) */
static Node *
empty_value_mutator(Node *node, void *context)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Aggref))
	{
		Aggref	   *a = (Aggref *) node;

		if (builtin_count(a->aggfnoid))
			return (Node *) makeConst(INT8OID, -1, InvalidOid, sizeof(int64), Int64GetDatum(0), false, FLOAT8PASSBYVAL);
		return (Node *) makeNullConst(a->aggtype, -1, a->aggcollid);
	}
	return expression_tree_mutator(node, empty_value_mutator, context);
}

/*
 * Vars, aggregates or placeholders of a level more than "above" levels up
 * from the node's own (a Query's own level is its inside), counted as the
 * walk enters subqueries.
 */
typedef struct OuterRefs
{
	int			sublevels_up;
	int			above;
} OuterRefs;

static bool
outer_refs_walker(Node *node, OuterRefs *ctx)
{
	int			limit;

	if (node == NULL)
		return false;
	limit = ctx->sublevels_up + ctx->above;
	if (IsA(node, Var))
		return (int) ((Var *) node)->varlevelsup > limit;
	if (IsA(node, Aggref))
		return (int) ((Aggref *) node)->agglevelsup > limit;
	if (IsA(node, PlaceHolderVar))
		return (int) ((PlaceHolderVar *) node)->phlevelsup > limit;
	if (IsA(node, Query))
	{
		bool		r;

		ctx->sublevels_up++;
		r = query_tree_walker((Query *) node, outer_refs_walker, ctx, 0);
		ctx->sublevels_up--;
		return r;
	}
	return expression_tree_walker(node, outer_refs_walker, ctx);
}

static bool
refs_above(Node *node, int above)
{
	OuterRefs	ctx = {IsA(node, Query) ? -1 : 0, above};

	return outer_refs_walker(node, &ctx);
}

/*
 * do equalities under these two collations agree?  The grouped subquery
 * groups its inner key under the key's own collation, while the correlated
 * subquery compared under the equality's (ct.t = co.t COLLATE "C" over a
 * case-insensitive column): a group would merge rows that the equality
 * tells apart, or the reverse.  Deterministic collations all compare equal
 * exactly the same strings.
 */
static bool
same_equality(Oid collation, Oid other)
{
	if (collation == other)
		return true;
	return OidIsValid(collation) && OidIsValid(other) &&
		get_collation_isdeterministic(collation) && get_collation_isdeterministic(other);
}

/* does the expression (or query) read a level above its own? */
static bool
has_outer_refs(Node *node)
{
	return refs_above(node, 0);
}

/*
 * does the subquery read a level above its parent (two or more levels up)?
 * Converted into a join of its parent, such a reference would name a
 * relation that is not below that join: the query it reads is another
 * level's.
 */
static bool
reads_beyond_parent(Query *s)
{
	return refs_above((Node *) s, 1);
}

/* has the expression Vars of its own level (levelsup 0)? */
static bool
has_level0_vars(Node *node)
{
	return expr_varnos(node) != NULL;
}

typedef struct ScalarContext
{
	Query	   *q;				/* the level the subqueries are joined to */
	List	   *joins;			/* of JoinExpr: one LEFT JOIN per subquery */
} ScalarContext;

/*
 * scalar_to_join - a scalar subquery that is an aggregate without GROUP BY,
 * correlated (if at all) by equalities "inner = outer" in its WHERE,
 * becomes a LEFT JOIN of the level with the subquery grouped by the inner
 * sides (one row per key, so no row of the level multiplies), and the
 * sublink the Var of its value (for a row that no group joins, its value
 * over no rows).  Uncorrelated, it is one row joined to every row.  NULL if
 * it cannot be.
 */
static Node *
scalar_to_join(SubLink *sl, ScalarContext *ctx)
{
	Query	   *s = copyObject((Query *) sl->subselect);
	List	   *inner_keys = NIL;
	List	   *outer_keys = NIL;
	List	   *opnos = NIL;
	List	   *inner_left = NIL;	/* int: the operator's left operand is the inner key */
	List	   *kept = NIL;
	ListCell   *lc;
	TargetEntry *value = NULL;
	List	   *tlist = NIL;
	RangeTblEntry *rte;
	List	   *colnames = NIL;
	int			rti;
	Node	   *quals = NULL;
	JoinExpr   *j;
	int			n = 0;
	Var		   *v;

	if (reads_beyond_parent(s))
		return NULL;
	if (s->hasSubLinks)
		dv_optree_convert_sublinks(s);
	if (s->commandType != CMD_SELECT || !s->hasAggs || s->groupClause || s->groupingSets ||
		s->havingQual || s->hasWindowFuncs || s->setOperations || s->limitCount ||
		s->limitOffset || s->hasTargetSRFs || s->distinctClause || s->cteList || s->rowMarks ||
		s->hasSubLinks || s->jointree == NULL || s->jointree->fromlist == NIL)
		return NULL;
	foreach(lc, s->targetList)
	{
		if (!lfirst_node(TargetEntry, lc)->resjunk)
		{
			if (value)
				return NULL;
			value = lfirst_node(TargetEntry, lc);
		}
	}
	{
		OuterRefs	ctx = {0, 0};

		/* (the range table: LATERAL references, functions of outer columns) */
		if (value == NULL || has_outer_refs((Node *) value->expr) ||
			range_table_walker(s->rtable, outer_refs_walker, &ctx, 0))
			return NULL;
	}
	foreach(lc, make_ands_implicit((Expr *) s->jointree->quals))
	{
		Node	   *c = lfirst(lc);
		OpExpr	   *op = (OpExpr *) c;
		Node	   *l,
				   *r;
		bool		left = true;
		TypeCacheEntry *tc;

		if (!has_outer_refs(c))
		{
			kept = lappend(kept, c);
			continue;
		}
		if (!IsA(c, OpExpr) || list_length(op->args) != 2)
			return NULL;
		l = linitial(op->args);
		r = lsecond(op->args);
		if (has_outer_refs(l) && !has_outer_refs(r))
		{
			Node	   *t = l;

			l = r;
			r = t;
			left = false;
		}
		/* inner side of this level only; outer side of the level above only */
		if (has_outer_refs(l) || has_level0_vars(r) || !has_level0_vars(l) ||
			contain_volatile_functions(r) || checkExprHasSubLink(r) ||
			!same_equality(op->inputcollid, exprCollation(l)))
			return NULL;

		/*
		 * the inner key's type's equality, or a cross-type equality of its
		 * btree family (int4 = int8: a count or a sum compared with a
		 * column), which agrees with it: the groups by the inner key's own
		 * equality are the rows that one outer value matches
		 */
		tc = lookup_type_cache(exprType(l), TYPECACHE_EQ_OPR | TYPECACHE_BTREE_OPFAMILY);
		if (exprType(l) == exprType(r) ? op->opno != tc->eq_opr :
			(!OidIsValid(tc->btree_opf) ||
			 get_op_opfamily_strategy(op->opno, tc->btree_opf) != BTEqualStrategyNumber))
			return NULL;
		inner_keys = lappend(inner_keys, l);
		outer_keys = lappend(outer_keys, r);
		opnos = lappend_oid(opnos, op->opno);
		inner_left = lappend_int(inner_left, left);
	}
	/* (a row that no group joins gets the value over no rows, which must be known) */
	if (inner_keys != NIL && empty_value_unknown((Node *) value->expr, NULL))
		return NULL;

	/* the subquery, grouped by its inner keys: dv_k1..dv_kn, dv_v */
	foreach(lc, inner_keys)
	{
		Node	   *k = lfirst(lc);
		TargetEntry *te;
		SortGroupClause *sgc = makeNode(SortGroupClause);
		Oid			sortop;
		Oid			eqop;
		bool		hashable;

		n++;
		te = makeTargetEntry((Expr *) k, n, psprintf("dv_k%d", n), false);
		get_sort_group_operators(exprType(k), false, true, false, &sortop, &eqop, NULL, &hashable);
		if (!OidIsValid(eqop) || (!OidIsValid(sortop) && !hashable))
			return NULL;
		te->ressortgroupref = n;
		sgc->tleSortGroupRef = n;
		sgc->eqop = eqop;
		sgc->sortop = sortop;
		sgc->hashable = hashable;
		s->groupClause = lappend(s->groupClause, sgc);
		tlist = lappend(tlist, te);
		colnames = lappend(colnames, makeString(pstrdup(te->resname)));
	}
	tlist = lappend(tlist, makeTargetEntry(value->expr, ++n, pstrdup("dv_v"), false));
	colnames = lappend(colnames, makeString(pstrdup("dv_v")));
	s->targetList = tlist;
	s->sortClause = NIL;
	s->jointree->quals = (Node *) make_ands_explicit(kept);
	if (kept == NIL)
		s->jointree->quals = NULL;

	rte = makeNode(RangeTblEntry);
	rte->rtekind = RTE_SUBQUERY;
	rte->subquery = s;
	rte->alias = NULL;
	rte->eref = makeAlias(psprintf("dv_scalar_%d", list_length(ctx->q->rtable) + 1), colnames);
	rte->inFromCl = true;
	ctx->q->rtable = lappend(ctx->q->rtable, rte);
	rti = list_length(ctx->q->rtable);

	/* ON inner = outer, the outer side now of this level */
	n = 0;
	foreach(lc, outer_keys)
	{
		Node	   *outer = copyObject(lfirst(lc));
		Node	   *k = list_nth(inner_keys, foreach_current_index(lc));

		Expr	   *kv;
		bool		kv_first;

		n++;
		IncrementVarSublevelsUp(outer, -1, 1);
		kv = (Expr *) makeVar(rti, n, exprType(k), exprTypmod(k), exprCollation(k), 0);
		/* (a cross-type operator takes its operands in its own order; else outer first) */
		kv_first = exprType(k) != exprType(outer) && list_nth_int(inner_left, n - 1);
		quals = make_and_qual(quals,
							  (Node *) make_opclause(list_nth_oid(opnos, n - 1), BOOLOID, false,
													 kv_first ? kv : (Expr *) outer,
													 kv_first ? (Expr *) outer : kv,
													 InvalidOid, exprCollation(k)));
	}
	j = makeNode(JoinExpr);
	j->jointype = JOIN_LEFT;
	j->rarg = (Node *) makeNode(RangeTblRef);
	((RangeTblRef *) j->rarg)->rtindex = rti;
	j->quals = quals;
	ctx->joins = lappend(ctx->joins, j);
	v = makeVar(rti, list_length(inner_keys) + 1, exprType((Node *) value->expr),
				exprTypmod((Node *) value->expr), exprCollation((Node *) value->expr), 0);
	if (inner_keys == NIL || null_without_rows((Node *) value->expr))
		return (Node *) v;

	/*
	 * A row that no group joins gets the subquery's value over no rows
	 * (count's 0): CASE WHEN dv_k1 IS NULL THEN <value, count = 0 and the
	 * other aggregates NULL> ELSE dv_v END (a joined group's key is not
	 * NULL: it equals the outer side).
	 */
	{
		CaseExpr   *ce = makeNode(CaseExpr);
		CaseWhen   *cw = makeNode(CaseWhen);
		NullTest   *nt = makeNode(NullTest);
		Node	   *k1 = linitial(inner_keys);

		nt->arg = (Expr *) makeVar(rti, 1, exprType(k1), exprTypmod(k1), exprCollation(k1), 0);
		nt->nulltesttype = IS_NULL;
		nt->location = -1;
		cw->expr = (Expr *) nt;
		cw->result = (Expr *) empty_value_mutator(copyObject((Node *) value->expr), NULL);
		cw->location = -1;
		ce->casetype = exprType((Node *) value->expr);
		ce->casecollid = exprCollation((Node *) value->expr);
		ce->args = list_make1(cw);
		ce->defresult = (Expr *) v;
		ce->location = -1;
		return (Node *) ce;
	}
}

static Node *
scalar_mutator(Node *node, ScalarContext *ctx)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, SubLink) && ((SubLink *) node)->subLinkType == EXPR_SUBLINK)
	{
		Node	   *v = scalar_to_join((SubLink *) node, ctx);

		return v ? v : node;
	}
	if (IsA(node, SubLink))
		return node;			/* (EXISTS and IN: their own conversion) */
	return expression_tree_mutator(node, scalar_mutator, (void *) ctx);
}

/*
 * decorrelate_scalars - the scalar subqueries of the level's WHERE that
 * scalar_to_join can turn into LEFT JOINs, turned.
 */
static void
decorrelate_scalars(Query *q)
{
	ScalarContext ctx = {q, NIL};
	Node	   *quals;
	Node	   *tree;
	ListCell   *lc;

	if (q->jointree == NULL || q->jointree->fromlist == NIL)
		return;
	quals = scalar_mutator(q->jointree->quals, &ctx);
	/* the SELECT list too, of a level without grouping (one row per joined row) */
	if (!q->hasAggs && !q->groupClause && !q->groupingSets && !q->hasWindowFuncs &&
		!q->distinctClause && !q->hasTargetSRFs)
		q->targetList = (List *) scalar_mutator((Node *) q->targetList, &ctx);
	if (ctx.joins == NIL)
		return;
	tree = (Node *) makeFromExpr(q->jointree->fromlist, NULL);
	foreach(lc, ctx.joins)
	{
		JoinExpr   *j = lfirst_node(JoinExpr, lc);

		j->larg = tree;
		tree = (Node *) j;
	}
	q->jointree = makeFromExpr(list_make1(tree), quals);
}

typedef struct HavingWalk
{
	bool		ok;				/* level-0 Vars only inside aggregates, sublinks uncorrelated scalars */
	bool		sublink;		/* has a scalar sublink */
	List	   *aggrefs;		/* the aggregates (distinct by equal()) */
} HavingWalk;

static bool
having_walker(Node *node, HavingWalk *ctx)
{
	if (node == NULL)
		return false;
	if (IsA(node, Aggref))
	{
		if (((Aggref *) node)->agglevelsup == 0 && !list_member(ctx->aggrefs, node))
			ctx->aggrefs = lappend(ctx->aggrefs, node);
		return false;
	}
	if (IsA(node, SubLink))
	{
		SubLink    *sl = (SubLink *) node;

		if (sl->subLinkType != EXPR_SUBLINK || has_outer_refs(sl->subselect))
			ctx->ok = false;
		ctx->sublink = true;
		return false;
	}
	if ((IsA(node, Var) && ((Var *) node)->varlevelsup == 0) || IsA(node, GroupingFunc) ||
		IsA(node, PlaceHolderVar))
	{
		ctx->ok = false;
		return false;
	}
	return expression_tree_walker(node, having_walker, (void *) ctx);
}

typedef struct HavingMap
{
	List	   *aggrefs;
	List	   *resnos;			/* int: the subquery's column of each aggregate */
} HavingMap;

static Node *
having_mutator(Node *node, HavingMap *m)
{
	ListCell   *la;
	ListCell   *lr;

	if (node == NULL)
		return NULL;
	if (IsA(node, Aggref))
	{
		forboth(la, m->aggrefs, lr, m->resnos)
		{
			if (equal(node, lfirst(la)))
				return (Node *) makeVar(1, lfirst_int(lr), exprType(node), exprTypmod(node),
										exprCollation(node), 0);
		}
		elog(ERROR, "dynview: aggregate of HAVING not found");
	}
	if (IsA(node, SubLink))
		return (Node *) copyObject(node);
	return expression_tree_mutator(node, having_mutator, (void *) m);
}

/*
 * dv_optree_split_having - a grouped level whose HAVING compares its
 * aggregates with an uncorrelated scalar subquery (TPC-H Q11: a group is
 * kept if its sum exceeds a fraction of the sum over every group) becomes
 * a level over the grouped level as a subquery in FROM (its other HAVING
 * conditions kept, each aggregate those conditions read one more column),
 * with those conditions as its WHERE over the subquery's columns: the
 * scalar subquery is then a join (decorrelate_scalars) with the grouped
 * subquery, an operator whose affected groups are recomputed.  Returns q
 * itself when it has no such condition.
 */
Query *
dv_optree_split_having(Query *q)
{
	List	   *keep = NIL;
	List	   *moved = NIL;
	HavingWalk	walk = {true, false, NIL};
	HavingMap	map = {NIL, NIL};
	Query	   *sub;
	Query	   *outer;
	RangeTblEntry *rte;
	RangeTblRef *rtr;
	List	   *colnames = NIL;
	ListCell   *lc;
	int			resno;

	if (q->havingQual == NULL || !checkExprHasSubLink(q->havingQual) || q->groupingSets ||
		q->hasWindowFuncs || q->distinctClause || q->hasTargetSRFs || q->limitCount ||
		q->limitOffset || q->setOperations || q->rowMarks || q->cteList ||
		q->commandType != CMD_SELECT || q->jointree == NULL || q->jointree->fromlist == NIL)
		return q;
	foreach(lc, make_ands_implicit((Expr *) q->havingQual))
	{
		HavingWalk	w = {true, false, NIL};

		(void) having_walker(lfirst(lc), &w);
		if (!w.sublink)
		{
			keep = lappend(keep, lfirst(lc));
			continue;
		}
		if (!w.ok)
			return q;
		moved = lappend(moved, lfirst(lc));
		(void) having_walker(lfirst(lc), &walk);
	}
	if (moved == NIL)
		return q;

	/* the grouped level, every column an output (GROUP BY's own ones too), and the aggregates */
	sub = copyObject(q);
	sub->havingQual = keep ? (Node *) make_ands_explicit(keep) : NULL;
	sub->sortClause = NIL;
	sub->hasSubLinks = checkExprHasSubLink((Node *) sub->targetList) ||
		checkExprHasSubLink((Node *) sub->jointree) || checkExprHasSubLink(sub->havingQual);
	foreach(lc, sub->targetList)
	{
		TargetEntry *te = lfirst_node(TargetEntry, lc);

		if (te->resjunk || te->resname == NULL)
			te->resname = psprintf("dv_j%d", te->resno);
		te->resjunk = false;
		colnames = lappend(colnames, makeString(pstrdup(te->resname)));
	}
	resno = list_length(sub->targetList);
	foreach(lc, walk.aggrefs)
	{
		resno++;
		sub->targetList = lappend(sub->targetList,
								  makeTargetEntry(copyObject(lfirst(lc)), resno, psprintf("dv_h%d", resno), false));
		colnames = lappend(colnames, makeString(psprintf("dv_h%d", resno)));
		map.aggrefs = lappend(map.aggrefs, lfirst(lc));
		map.resnos = lappend_int(map.resnos, resno);
	}

	/* SELECT <its columns> FROM (sub) dv_having WHERE <the conditions moved> ORDER BY ... */
	rte = makeNode(RangeTblEntry);
	rte->rtekind = RTE_SUBQUERY;
	rte->subquery = sub;
	rte->eref = makeAlias("dv_having", colnames);
	rte->inFromCl = true;
	rtr = makeNode(RangeTblRef);
	rtr->rtindex = 1;
	outer = makeNode(Query);
	outer->commandType = CMD_SELECT;
	outer->querySource = q->querySource;
	outer->canSetTag = true;
	outer->rtable = list_make1(rte);
	outer->jointree = makeFromExpr(list_make1(rtr),
								   (Node *) make_ands_explicit((List *) having_mutator((Node *) moved, &map)));
	outer->hasSubLinks = true;
	foreach(lc, q->targetList)
	{
		TargetEntry *te = lfirst_node(TargetEntry, lc);
		TargetEntry *nte = makeTargetEntry((Expr *) makeVar(1, te->resno, exprType((Node *) te->expr),
															  exprTypmod((Node *) te->expr),
															  exprCollation((Node *) te->expr), 0),
										   te->resno, te->resname ? pstrdup(te->resname) : NULL, te->resjunk);

		nte->ressortgroupref = te->ressortgroupref;
		outer->targetList = lappend(outer->targetList, nte);
	}
	outer->sortClause = copyObject(q->sortClause);
	return outer;
}

/* "SELECT <its outputs> FROM (s) dv_in": s as the one FROM item of a simple query */
static Query *
wrap_subquery(Query *s)
{
	Query	   *w = makeNode(Query);
	RangeTblEntry *rte = makeNode(RangeTblEntry);
	RangeTblRef *rtr = makeNode(RangeTblRef);
	List	   *colnames = NIL;
	ListCell   *lc;

	foreach(lc, s->targetList)
	{
		TargetEntry *te = lfirst_node(TargetEntry, lc);

		colnames = lappend(colnames, makeString(pstrdup(te->resname ? te->resname : "?column?")));
		if (!te->resjunk)
			w->targetList = lappend(w->targetList,
									makeTargetEntry((Expr *) makeVar(1, te->resno, exprType((Node *) te->expr),
																	 exprTypmod((Node *) te->expr),
																	 exprCollation((Node *) te->expr), 0),
													te->resno, te->resname, false));
	}
	rte->rtekind = RTE_SUBQUERY;
	rte->subquery = s;
	rte->eref = makeAlias("dv_in", colnames);
	rte->inFromCl = true;
	rtr->rtindex = 1;
	w->commandType = CMD_SELECT;
	w->canSetTag = true;
	w->rtable = list_make1(rte);
	w->jointree = makeFromExpr(list_make1(rtr), NULL);
	return w;
}

void
dv_optree_convert_sublinks(Query *q)
{
	List	   *conjuncts;
	List	   *kept = NIL;
	Node	   *tree;
	ListCell   *lc;
	bool		any = false;

	decorrelate_scalars(q);
	if (q->jointree == NULL || q->jointree->quals == NULL || q->jointree->fromlist == NIL)
	{
		q->hasSubLinks = checkExprHasSubLink((Node *) q);
		return;
	}
	conjuncts = make_ands_implicit((Expr *) q->jointree->quals);
	tree = (Node *) makeFromExpr(q->jointree->fromlist, NULL);
	foreach(lc, conjuncts)
	{
		Node	   *c = lfirst(lc);
		bool		negated = false;
		SubLink    *sl;
		Query	   *s;
		int			offset = list_length(q->rtable);
		List	   *inner = NIL;
		List	   *theta = NIL;
		ListCell   *lq;
		JoinExpr   *j;

		if (is_notclause(c))
		{
			negated = true;
			c = (Node *) get_notclausearg((Expr *) c);
		}
		if (!IsA(c, SubLink) ||
			(((SubLink *) c)->subLinkType != EXISTS_SUBLINK &&
			 ((SubLink *) c)->subLinkType != ANY_SUBLINK))
		{
			kept = lappend(kept, lfirst(lc));
			continue;
		}
		sl = (SubLink *) c;
		/* (a sublink of a subquery that reads the level above it stays: see reads_beyond_parent) */
		if (reads_beyond_parent((Query *) sl->subselect))
		{
			kept = lappend(kept, lfirst(lc));
			continue;
		}
		s = copyObject((Query *) sl->subselect);
		/* (an EXISTS in the subquery's WHERE becomes a semi-join inside it first) */
		if (s->hasSubLinks)
			dv_optree_convert_sublinks(s);
		if (dv_plain_select(s, true))
			narrow_sublink_columns(s, sl->subLinkType == ANY_SUBLINK ? s->targetList : NIL);
		else
		{
			/*
			 * An uncorrelated subquery of another kind (GROUP BY, DISTINCT,
			 * ...) is read as a subquery in FROM, an operator of its own.
			 */
			if (has_outer_refs((Node *) s))
			{
				kept = lappend(kept, lfirst(lc));
				continue;
			}
			s = wrap_subquery(s);
		}

		/* its entries join this level's range table; outer references become level 0 */
		OffsetVarNodes((Node *) s, offset, 0);
		IncrementVarSublevelsUp((Node *) s, -1, 1);
		q->rtable = list_concat(q->rtable, s->rtable);
		foreach(lq, make_ands_implicit((Expr *) s->jointree->quals))
		{
			Bitmapset  *v = expr_varnos(lfirst(lq));

			/* conditions on the subquery's rows alone filter them; the rest join */
			if (bms_next_member(v, -1) > offset || (v == NULL && !contain_volatile_functions(lfirst(lq))))
				inner = lappend(inner, lfirst(lq));
			else
				theta = lappend(theta, lfirst(lq));
		}
		if (sl->subLinkType == ANY_SUBLINK)
		{
			Node	   *test = sublink_param_mutator(copyObject(sl->testexpr), s->targetList);

			/*
			 * NOT IN keeps a row only if the test is false for every row of
			 * the subquery: a row where it is true or NULL excludes it.
			 */
			if (negated)
			{
				BooleanTest *bt = makeNode(BooleanTest);

				bt->arg = (Expr *) test;
				bt->booltesttype = IS_NOT_FALSE;
				bt->location = -1;
				test = (Node *) bt;
			}
			theta = lappend(theta, test);
		}
		j = makeNode(JoinExpr);
		j->jointype = negated ? JOIN_ANTI : JOIN_SEMI;
		j->larg = tree;
		j->rarg = (Node *) makeFromExpr(s->jointree->fromlist, (Node *) make_ands_explicit(inner));
		j->quals = theta ? (Node *) make_ands_explicit(theta) : NULL;
		j->rtindex = 0;
		tree = (Node *) makeFromExpr(list_make1(j), NULL);
		any = true;
	}
	if (!any)
	{
		q->hasSubLinks = checkExprHasSubLink((Node *) q);
		return;
	}
	q->jointree = (FromExpr *) tree;
	q->jointree->quals = kept ? (Node *) make_ands_explicit(kept) : NULL;
	q->hasSubLinks = checkExprHasSubLink((Node *) q);
}

/* ---------------------------------------------------------------------
 * Building the tree
 * ---------------------------------------------------------------------
 */

static DvOp *
new_op(DvOpKind kind)
{
	DvOp	   *op = palloc0(sizeof(DvOp));

	op->kind = kind;
	return op;
}

static DvOp *
make_join(JoinType jointype, DvOp *l, DvOp *r, List *quals)
{
	DvOp	   *op = new_op(DV_OP_JOIN);

	op->jointype = jointype;
	op->left = l;
	op->right = r;
	op->quals = quals;
	op->rels = bms_union(l->rels, r->rels);
	op->cols = jointype == JOIN_SEMI || jointype == JOIN_ANTI ? l->cols : list_concat_copy(l->cols, r->cols);
	return op;
}

static DvOp *
make_filter(DvOp *child, List *quals)
{
	DvOp	   *op = new_op(DV_OP_FILTER);

	op->left = child;
	op->quals = quals;
	op->rels = child->rels;
	op->cols = child->cols;
	return op;
}

static DvOp *
make_scan(Query *q, DvPlanSource *src)
{
	DvOp	   *op = new_op(DV_OP_SCAN);
	ListCell   *lc;

	op->source = src;
	op->rels = bms_make_singleton(src->rtindex);
	foreach(lc, src->columns)
	{
		DvOpCol    *col = palloc0(sizeof(DvOpCol));
		AttrNumber	attno = get_attnum(src->relid, strVal(lfirst(lc)));
		Oid			type;
		int32		typmod;
		Oid			collation;

		get_atttypetypmodcoll(src->relid, attno, &type, &typmod, &collation);
		col->rti = src->rtindex;
		col->attno = attno;
		col->type = getBaseTypeAndTypmod(type, &typmod);
		col->typmod = typmod;
		op->cols = lappend(op->cols, col);
	}
	return op;
}

/* the reason text of a subquery that could not be an operator (dv_optree_build) */
static char *build_detail = NULL;

/* does a relation anywhere in the query get read with another role's rights (a view's owner)? */
static bool other_owner_walker(Node *node, void *context);

bool
dv_optree_reads_as_other_role(Node *node)
{
	return other_owner_walker(node, NULL);
}

static bool
other_owner_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
		return query_tree_walker((Query *) node, other_owner_walker, context, QTW_EXAMINE_RTES_BEFORE);
	if (IsA(node, RangeTblEntry))
	{
		RangeTblEntry *rte = (RangeTblEntry *) node;

		return rte->rtekind == RTE_RELATION && OidIsValid(rte->checkAsUser) &&
			rte->checkAsUser != GetUserId();
	}
	return expression_tree_walker(node, other_owner_walker, context);
}

/*
 * make_group - the subquery in FROM at rti as an operator, planned on its
 * own (dv_plan_node): its output columns are c<rti>_<resno>.
 */
static DvOp *
make_group(Query *q, int rti, const char **reason)
{
	RangeTblEntry *rte = rt_fetch(rti, q->rtable);
	DvOp	   *op;
	DvPlan	   *inner;
	ListCell   *lc;

	/*
	 * (LATERAL reads the row it joins; a security barrier view must be
	 * applied before the conditions of the query; a view of another owner
	 * reads its tables with that owner's rights, which the generated
	 * statements, run as the table's owner, would not have)
	 */
	if (rte->lateral || rte->security_barrier || other_owner_walker((Node *) rte->subquery, NULL))
	{
		*reason = "SUBQUERY_IN_FROM";
		return NULL;
	}
	inner = dv_plan_node(rte->subquery);
	if (inner->kind == DV_PLAN_FULL || inner->branches != NIL)
	{
		*reason = inner->kind == DV_PLAN_FULL ? inner->reason_code : "SUBQUERY_IN_FROM";
		build_detail = inner->kind == DV_PLAN_FULL ? inner->reason : NULL;
		return NULL;
	}
	/* (its recomputed old row may spell a key otherwise than the table: spelling.c) */
	if (dv_group_spelling_reaches(q, rti))
	{
		*reason = "SUBQUERY_IN_FROM";
		build_detail = pstrdup("A subquery in FROM grouped by a column whose equal values can print differently (numeric without a declared scale, float, interval, jsonb, citext, a nondeterministic collation) is not incremental when the query reads that column other than by comparing it with =: which spelling a group shows is up to the plan.");
		return NULL;
	}
	op = new_op(DV_OP_GROUP);
	op->inner = inner;
	op->rels = bms_make_singleton(rti);
	foreach(lc, rte->subquery->targetList)
	{
		TargetEntry *te = lfirst_node(TargetEntry, lc);
		DvOpCol    *col;

		if (te->resjunk)
			continue;
		col = palloc0(sizeof(DvOpCol));
		col->rti = rti;
		col->attno = te->resno;
		col->type = exprType((Node *) te->expr);
		col->typmod = exprTypmod((Node *) te->expr);
		op->cols = lappend(op->cols, col);
	}
	return op;
}

/* a function in FROM at rti as an operator: columns c<rti>_<n> */
static DvOp *
make_func(Query *q, int rti)
{
	RangeTblEntry *rte = rt_fetch(rti, q->rtable);
	DvOp	   *op = new_op(DV_OP_FUNC);
	List	   *colvars = NIL;
	ListCell   *lc;

	op->func = rte;
	op->rels = bms_make_singleton(rti);
	op->lateral = expr_varnos((Node *) rte->functions) != NULL;
	expandRTE(rte, rti, 0, -1, false, NULL, &colvars);
	foreach(lc, colvars)
	{
		Var		   *v = lfirst_node(Var, lc);
		DvOpCol    *col = palloc0(sizeof(DvOpCol));

		col->rti = rti;
		col->attno = v->varattno;
		col->type = v->vartype;
		col->typmod = v->vartypmod;
		op->cols = lappend(op->cols, col);
	}
	return op;
}

/*
 * reduce_outer_join - the join type of the outer join op once conjunct c
 * holds above it: a condition that cannot be true when the columns of a
 * nullable side are all NULL (strict in them: find_nonnullable_rels, as
 * PostgreSQL's own reduce_outer_joins asks) drops every row that side was
 * padded for, so that side is no longer nullable: a left join becomes an
 * inner join, a full join a left or right one.  TPC-H Q17's "l_quantity <
 * (SELECT 0.2 * avg(...) ...)", made a left join with the grouped subquery
 * (decorrelate_scalars), is then an inner join, without the unmatched-rows
 * terms (anti-join rule) of its delta.  op->jointype when c does not.
 */
static JoinType
reduce_outer_join(DvOp *op, Node *c)
{
	Relids		nonnullable;
	bool		left_strict;
	bool		right_strict;

	if (op->jointype != JOIN_LEFT && op->jointype != JOIN_RIGHT && op->jointype != JOIN_FULL)
		return op->jointype;
	nonnullable = find_nonnullable_rels(c);
	left_strict = bms_overlap(nonnullable, op->left->rels);
	right_strict = bms_overlap(nonnullable, op->right->rels);
	switch (op->jointype)
	{
		case JOIN_LEFT:
			return right_strict ? JOIN_INNER : JOIN_LEFT;
		case JOIN_RIGHT:
			return left_strict ? JOIN_INNER : JOIN_RIGHT;
		case JOIN_FULL:
			if (left_strict && right_strict)
				return JOIN_INNER;
			return left_strict ? JOIN_LEFT : right_strict ? JOIN_RIGHT : JOIN_FULL;
		default:
			return op->jointype;
	}
}

/*
 * push_qual - put conjunct c on op: into the lowest operator whose rows
 * have its columns, passing inner joins, filters and the preserved side of
 * outer, semi- and anti-joins; where it cannot go further, as a filter
 * (above an outer join, on its nullable side) or as a join condition.  An
 * outer join that c makes one with fewer nullable sides (reduce_outer_join)
 * is made so first.
 */
static DvOp *
push_qual(DvOp *op, Node *c, Bitmapset *varnos)
{
	if (op->kind == DV_OP_JOIN)
		op->jointype = reduce_outer_join(op, c);
	switch (op->kind)
	{
		case DV_OP_SCAN:
		case DV_OP_GROUP:
		case DV_OP_FUNC:
			return make_filter(op, list_make1(c));
		case DV_OP_FILTER:
			op->left = push_qual(op->left, c, varnos);
			return op;
		case DV_OP_JOIN:
			break;
	}
	switch (op->jointype)
	{
		case JOIN_INNER:
			if (bms_is_subset(varnos, op->left->rels))
				op->left = push_qual(op->left, c, varnos);
			/*
			 * (not into a function that reads the left side's row: a filter
			 * over it would hide it from right_sql, which writes it LATERAL,
			 * and its columns would be read from no row; the join keeps the
			 * condition)
			 */
			else if (bms_is_subset(varnos, op->right->rels) &&
					 !(op->right->kind == DV_OP_FUNC && op->right->lateral))
				op->right = push_qual(op->right, c, varnos);
			else
				op->quals = lappend(op->quals, c);
			return op;
		case JOIN_LEFT:
		case JOIN_SEMI:
		case JOIN_ANTI:
			if (bms_is_subset(varnos, op->left->rels))
			{
				op->left = push_qual(op->left, c, varnos);
				return op;
			}
			break;
		case JOIN_RIGHT:
			if (bms_is_subset(varnos, op->right->rels))
			{
				op->right = push_qual(op->right, c, varnos);
				return op;
			}
			break;
		default:
			break;
	}
	return make_filter(op, list_make1(c));
}

/*
 * or_implied_quals - for an OR over the rows of several relations, the
 * condition on each one's row alone that it implies: for relation rti, the
 * OR of each arm's conjuncts that read rti's row alone, when every arm has
 * one (else nothing is implied on rti).  TPC-H Q19's three arms each name
 * their lineitem quantities beside their part's brand: lineitem's rows
 * must have a quantity of one of the three ranges.  A list of the
 * conditions, none volatile; NIL when there is none.  The planner derives
 * the same ones to filter a relation's rows early (extract_restriction_or_clauses).
 */
static List *
or_implied_quals(BoolExpr *or)
{
	Bitmapset  *varnos = expr_varnos((Node *) or);
	List	   *implied = NIL;
	int			rti = -1;

	if (bms_membership(varnos) != BMS_MULTIPLE)
		return NIL;
	while ((rti = bms_next_member(varnos, rti)) >= 0)
	{
		List	   *arms = NIL;
		ListCell   *la;

		foreach(la, or->args)
		{
			List	   *kept = NIL;
			ListCell   *lc;

			foreach(lc, make_ands_implicit((Expr *) lfirst(la)))
			{
				Bitmapset  *v = expr_varnos(lfirst(lc));

				if (bms_membership(v) == BMS_SINGLETON && bms_is_member(rti, v))
					kept = lappend(kept, lfirst(lc));
			}
			if (kept == NIL)
			{
				arms = NIL;
				break;
			}
			arms = lappend(arms, make_ands_explicit(kept));
		}
		if (arms != NIL)
			implied = lappend(implied, copyObject(make_orclause(arms)));
	}
	return implied;
}

/* mark the filter of op's tree whose one condition is c (just pushed) as implied */
static void
mark_implied(DvOp *op, Node *c)
{
	if (op == NULL)
		return;
	if (op->kind == DV_OP_FILTER && list_length(op->quals) == 1 && linitial(op->quals) == c)
		op->implied = true;
	mark_implied(op->left, c);
	if (op->kind == DV_OP_JOIN)
		mark_implied(op->right, c);
}

static DvOp *
push_quals(DvOp *op, Node *quals)
{
	List	   *conjuncts = NIL;
	List	   *implied = NIL;
	ListCell   *lc;

	/*
	 * An OR whose arms share conjuncts is the AND of those and of the OR of
	 * the rest (the planner's canonicalize_qual, here on the ORs alone, the
	 * other conditions kept as they are): TPC-H Q19's join key and its
	 * lineitem conditions common to its three arms become conditions of
	 * their own, a hashable join key and a filter on lineitem's rows that
	 * the read of its changes applies (24,219 change rows read at SF1, of
	 * which 1,700 pass).  Then each OR over several relations implies a
	 * condition on each one's rows (or_implied_quals), pushed down beside
	 * it: redundant below the OR, which stays.  Both hold under WHERE's
	 * reading of a condition (true keeps the row, false or NULL drops it),
	 * which is every one here (an inner join's or a WHERE's), and only
	 * without volatile functions (factored, one would be called once per
	 * row instead of once per arm) or subqueries (left where they are).
	 */
	foreach(lc, make_ands_implicit((Expr *) quals))
	{
		Node	   *c = lfirst(lc);

		if (is_orclause(c) && !contain_volatile_functions(c) && !checkExprHasSubLink(c))
		{
			Node	   *canon = (Node *) canonicalize_qual((Expr *) copyObject(c), false);
			ListCell   *lo;

			foreach(lo, make_ands_implicit((Expr *) canon))
			{
				conjuncts = lappend(conjuncts, lfirst(lo));
				if (is_orclause(lfirst(lo)))
				{
					List	   *more = or_implied_quals((BoolExpr *) lfirst(lo));

					conjuncts = list_concat(conjuncts, more);
					implied = list_concat(implied, more);
				}
			}
		}
		else
			conjuncts = lappend(conjuncts, c);
	}
	foreach(lc, conjuncts)
	{
		Node	   *c = lfirst(lc);

		/* (a condition without columns, or a volatile one, stays on top) */
		if (expr_varnos(c) == NULL)
			op = make_filter(op, list_make1(c));
		else
			op = push_qual(op, c, expr_varnos(c));
		if (list_member_ptr(implied, c))
			mark_implied(op, c);
	}
	return op;
}

/*
 * lateral_ok - may right be joined to left this way?  A function that reads
 * columns (LATERAL) must be the right side of an inner or left join and
 * read only the left side's; a function or subquery elsewhere reads none.
 */
static bool
lateral_ok(DvOp *left, DvOp *right, JoinType jointype)
{
	if (left && left->kind == DV_OP_FUNC && left->lateral)
		return false;
	if (right->kind != DV_OP_FUNC || !right->lateral)
		return true;
	return left != NULL && (jointype == JOIN_INNER || jointype == JOIN_LEFT) &&
		bms_is_subset(expr_varnos((Node *) right->func->functions), left->rels);
}

/*
 * connected_order - the order in which the items of a FROM list (children,
 * built operators) are joined, left-deep: the first item that a conjunct of
 * quals_list (the level's WHERE and the enclosing levels' that apply to
 * its rows, build's outer_quals; implicit AND) joins to another, then each
 * time the first remaining item that a conjunct joins to those already
 * joined, and only
 * when none is, the first remaining one (a cross product that no condition
 * can avoid, last).  An unconnected pair joined first would be a cross
 * product in every term of the delta that reads it: with TPC-H Q9's FROM
 * list "part, supplier, lineitem, ..." the change of a part would be joined
 * with every supplier before any lineitem narrows it, and the planner
 * cannot reorder across the WITH entries the terms are kept in.  So Q9 is joined as part,
 * lineitem, supplier, partsupp, orders, nation; a list already connected
 * keeps its order, but for narrowing items (narrowing_item): of the
 * remaining items a condition joins to those already joined, a scan that
 * a condition of its own filters and that is joined by a column with a
 * unique index is taken before the others, since it can only drop rows and
 * every later join then reads fewer (TPC-H Q21's "supplier, lineitem l1,
 * orders, nation": the changed lineitems met the nation filter, which
 * keeps one in 25, after one probe of orders each; now nation comes right
 * after supplier).  And a first item that narrows the item f it joins,
 * when f has a header (header_item: a narrowing item joined by a column
 * leading a unique index of f), gives way to f and its header: TPC-H Q8's
 * "part, supplier, lineitem, orders, ..." is joined lineitem, orders,
 * part, supplier, ...: the term of lineitem's change probed orders' key
 * (about 3,000 orders for 12,000 changed lineitems, their pages just
 * written) and kept one in six rows before part, instead of reading part
 * whole (12,771 pages, 750,000 rows) for the hash of its filtered rows.
 * Inner joins only: the order changes no row.  A list
 * with a function that reads other items' columns (LATERAL) keeps its
 * order too (lateral_ok checks it).  Returns a new list (children is not
 * changed).
 */
static bool keyed_equality(Node *qual, Bitmapset *rels, Bitmapset *other_rels, Var **v_out,
						   Node **x_out, Oid *opno_out);
static bool bare_scan(DvOp *op);

/*
 * unique_column - has relation relid a valid, non-partial unique index on
 * column attno alone (dv_index_tuples)?  With leading, one whose first
 * column is attno is enough (the rows of one value of attno are then told
 * apart by the index's other columns: TPC-H's lineitem_pkey on l_orderkey,
 * l_linenumber).  Opens relid briefly (AccessShareLock).
 */
static bool
unique_column(Oid relid, AttrNumber attno, bool leading)
{
	Relation	rel = relation_open(relid, AccessShareLock);
	List	   *indexes = dv_index_tuples(rel);
	bool		unique = false;
	ListCell   *lc;

	foreach(lc, indexes)
	{
		Form_pg_index idx = (Form_pg_index) GETSTRUCT((HeapTuple) lfirst(lc));

		if (idx->indisunique && (leading ? idx->indnkeyatts >= 1 : idx->indnkeyatts == 1) &&
			idx->indkey.values[0] == attno)
			unique = true;
	}
	list_free_deep(indexes);
	relation_close(rel, AccessShareLock);
	return unique;
}

/*
 * narrowing_item - would joining child (an item of a FROM list) to the
 * items joined so far (their range table indexes joined) only drop rows?
 * True when child is a scan of a source, some conjunct of quals (the
 * level's WHERE, implicit AND) filters it alone, and some conjunct
 * "v = x" (keyed_equality) joins it, v a column of child with a unique
 * index of its own (unique_column: not the statistics, so that the tree's
 * shape does not follow ANALYZE), x an expression of joined's columns:
 * each joined row then meets at most one of child's rows, which the filter
 * may drop.  A choice of order only, not of rows.  Opens child's relation
 * briefly (AccessShareLock).
 */
static bool
narrowing_item(DvOp *child, Bitmapset *joined, List *quals)
{
	bool		filtered = false;
	ListCell   *lc;

	if (child->kind != DV_OP_SCAN)
		return false;
	foreach(lc, quals)
	{
		Bitmapset  *varnos = expr_varnos(lfirst(lc));

		if (varnos != NULL && bms_equal(varnos, child->rels) && !contain_volatile_functions(lfirst(lc)))
		{
			filtered = true;
			break;
		}
	}
	if (!filtered)
		return false;
	foreach(lc, quals)
	{
		Var		   *v;
		Node	   *x;
		Oid			opno;

		if (keyed_equality(lfirst(lc), child->rels, joined, &v, &x, &opno) &&
			unique_column(child->source->relid, v->varattno, false))
			return true;
	}
	return false;
}

/*
 * header_item - of children, the header of item f: another item h that
 * narrows f alone (narrowing_item) by a conjunct "v = x" of quals whose x
 * is a column of f leading a unique index of f's own (unique_column,
 * leading), such as orders for TPC-H's lineitem (l_orderkey = o_orderkey,
 * lineitem_pkey on l_orderkey, l_linenumber): f's rows are keyed under
 * h's, so the rows of f a change writes share few of h's rows, and h's
 * filter drops them one probe of h's key each.  NULL when f is not a scan,
 * or none is; the first such item when several are.  except is never
 * taken.
 */
static DvOp *
header_item(DvOp *f, List *children, List *quals, DvOp *except)
{
	ListCell   *lc;

	if (f->kind != DV_OP_SCAN)
		return NULL;
	foreach(lc, children)
	{
		DvOp	   *h = lfirst(lc);
		ListCell   *lq;

		if (h == f || h == except || !narrowing_item(h, f->rels, quals))
			continue;
		foreach(lq, quals)
		{
			Var		   *v;
			Node	   *x;
			Oid			opno;

			if (keyed_equality(lfirst(lq), h->rels, f->rels, &v, &x, &opno) &&
				unique_column(h->source->relid, v->varattno, false) &&
				IsA(x, Var) && ((Var *) x)->varattno > 0 &&
				unique_column(f->source->relid, ((Var *) x)->varattno, true))
				return h;
		}
	}
	return NULL;
}

static List *
connected_order(List *children, List *quals_list)
{
	List	   *conjuncts = NIL;
	List	   *rest;
	List	   *order;
	Bitmapset  *joined;
	ListCell   *lc;

	if (list_length(children) < 3)
		return list_copy(children);
	foreach(lc, children)
	{
		DvOp	   *child = lfirst(lc);

		if (child->kind == DV_OP_FUNC && child->lateral)
			return list_copy(children);
	}
	foreach(lc, quals_list)
	{
		Bitmapset  *varnos = expr_varnos(lfirst(lc));

		/* (a conjunct of one item, or of none, joins nothing) */
		if (bms_membership(varnos) == BMS_MULTIPLE)
			conjuncts = lappend(conjuncts, varnos);
	}
	/* (the first item that a conjunct joins to another: an isolated one comes last) */
	order = NIL;
	foreach(lc, children)
	{
		DvOp	   *child = lfirst(lc);
		ListCell   *lq;

		foreach(lq, conjuncts)
		{
			if (bms_overlap(lfirst(lq), child->rels) && !bms_is_subset(lfirst(lq), child->rels))
			{
				order = list_make1(child);
				break;
			}
		}
		if (order != NIL)
			break;
	}
	if (order == NIL)
		order = list_make1(linitial(children));

	/*
	 * (a first item that narrows the item f it joins, when f has a header
	 * h: f and h first, so that f's change meets its header's filter, one
	 * probe of h's key per changed row, before the first item, which the
	 * term of f's change would read whole)
	 */
	foreach(lc, children)
	{
		DvOp	   *f = lfirst(lc);
		DvOp	   *h;

		if (f == linitial(order) || !narrowing_item(linitial(order), f->rels, quals_list))
			continue;
		h = header_item(f, children, quals_list, linitial(order));
		if (h != NULL)
		{
			order = list_make2(f, h);
			break;
		}
	}
	joined = NULL;
	rest = list_copy(children);
	foreach(lc, order)
	{
		joined = bms_add_members(joined, ((DvOp *) lfirst(lc))->rels);
		rest = list_delete_ptr(rest, lfirst(lc));
	}
	while (rest != NIL)
	{
		DvOp	   *next = NULL;

		foreach(lc, rest)
		{
			DvOp	   *child = lfirst(lc);
			Bitmapset  *both = bms_union(joined, child->rels);
			ListCell   *lq;
			bool		connects = false;

			foreach(lq, conjuncts)
			{
				Bitmapset  *varnos = lfirst(lq);

				if (bms_is_subset(varnos, both) && bms_overlap(varnos, joined) &&
					bms_overlap(varnos, child->rels))
				{
					connects = true;
					break;
				}
			}
			if (!connects)
				continue;
			/* (the first connected item, unless a later one narrows: narrowing_item) */
			if (next == NULL)
				next = child;
			if (narrowing_item(child, joined, quals_list))
			{
				next = child;
				break;
			}
		}
		if (next == NULL)
			next = linitial(rest);
		order = lappend(order, next);
		joined = bms_add_members(joined, next->rels);
		rest = list_delete_ptr(rest, next);
	}
	return order;
}

/*
 * build - the operator of a join tree node; NULL with *reason when it has
 * none.  outer_quals: the conjuncts of the enclosing FROM lists' WHERE that
 * filter this node's rows (a FROM list under a semi- or anti-join, as
 * EXISTS and IN are pulled up, has none of its own), read only to choose
 * the order of a FROM list's items (connected_order); the conditions are
 * applied where they stand.
 */
static DvOp *
build(Query *q, Node *node, List *sources, const char **reason, List *outer_quals)
{
	if (IsA(node, RangeTblRef))
	{
		int			rti = ((RangeTblRef *) node)->rtindex;
		ListCell   *lc;

		foreach(lc, sources)
		{
			if (((DvPlanSource *) lfirst(lc))->rtindex == rti)
			{
				DvOp	   *scan = make_scan(q, lfirst(lc));
				RangeTblEntry *rte = rt_fetch(rti, q->rtable);

				/* row-level security: the policies filter the source's rows (delta.c checked them) */
				return rte->securityQuals ? make_filter(scan, copyObject(rte->securityQuals)) : scan;
			}
		}
		if (rt_fetch(rti, q->rtable)->rtekind == RTE_SUBQUERY)
			return make_group(q, rti, reason);
		if (rt_fetch(rti, q->rtable)->rtekind == RTE_FUNCTION)
		{
			ListCell   *lf;

			/* (a column definition list: record-returning functions) */
			foreach(lf, rt_fetch(rti, q->rtable)->functions)
			{
				if (lfirst_node(RangeTblFunction, lf)->funccolnames != NIL)
				{
					*reason = "UNSUPPORTED_FROM_ITEM";
					return NULL;
				}
			}
			return make_func(q, rti);
		}
		*reason = "UNSUPPORTED_FROM_ITEM";
		return NULL;
	}
	if (IsA(node, FromExpr))
	{
		FromExpr   *f = (FromExpr *) node;
		DvOp	   *op = NULL;
		List	   *children = NIL;
		List	   *quals;
		ListCell   *lc;

		/* (a copy: make_ands_implicit returns an AND's own list of arguments) */
		quals = list_concat(list_copy(make_ands_implicit((Expr *) f->quals)), outer_quals);
		foreach(lc, f->fromlist)
		{
			DvOp	   *child = build(q, lfirst(lc), sources, reason, quals);

			if (child == NULL)
				return NULL;
			children = lappend(children, child);
		}

		/*
		 * The enclosing levels' conditions order a list of scans only: the
		 * order of subqueries and functions in the tree numbers their
		 * states (dv_optree_assign_states), which a table keeps.
		 */
		foreach(lc, children)
		{
			if (!bare_scan(lfirst(lc)))
			{
				quals = make_ands_implicit((Expr *) f->quals);
				break;
			}
		}
		children = connected_order(children, quals);
		foreach(lc, children)
		{
			DvOp	   *child = lfirst(lc);

			if (!lateral_ok(op, child, JOIN_INNER))
			{
				*reason = "UNSUPPORTED_FROM_ITEM";
				return NULL;
			}
			op = op ? make_join(JOIN_INNER, op, child, NIL) : child;
		}
		if (op == NULL)
		{
			*reason = "NO_SOURCE";
			return NULL;
		}
		return f->quals ? push_quals(op, f->quals) : op;
	}
	if (IsA(node, JoinExpr))
	{
		JoinExpr   *j = (JoinExpr *) node;
		/* (the WHERE above filters both sides of an inner join, an outer join's preserved side) */
		DvOp	   *l = build(q, j->larg, sources, reason,
							  j->jointype == JOIN_RIGHT || j->jointype == JOIN_FULL ? NIL : outer_quals);
		DvOp	   *r = l ? build(q, j->rarg, sources, reason,
								  j->jointype == JOIN_INNER || j->jointype == JOIN_RIGHT ? outer_quals : NIL) : NULL;

		if (r == NULL)
			return NULL;
		if (!lateral_ok(l, r, j->jointype))
		{
			*reason = "UNSUPPORTED_FROM_ITEM";
			return NULL;
		}
		switch (j->jointype)
		{
			case JOIN_INNER:
				return j->quals ? push_quals(make_join(JOIN_INNER, l, r, NIL), j->quals)
					: make_join(JOIN_INNER, l, r, NIL);
			case JOIN_LEFT:
			case JOIN_RIGHT:
			case JOIN_FULL:
			case JOIN_SEMI:
			case JOIN_ANTI:
				return make_join(j->jointype, l, r, make_ands_implicit((Expr *) j->quals));
			default:
				break;
		}
	}
	*reason = "UNSUPPORTED_FROM_ITEM";
	return NULL;
}

DvOp *
dv_optree_build(Query *q, List *sources, const char **reason, char **detail)
{
	DvOp	   *root;

	/* expressions read the sources' columns, not a join's (USING, aliases) */
	q->jointree = (FromExpr *) flatten_join_alias_vars(q, (Node *) q->jointree);
	build_detail = NULL;
	root = build(q, (Node *) q->jointree, sources, reason, NIL);
	*detail = root ? NULL : build_detail;
	return root;
}

List *
dv_optree_nested_sources(DvOp *op)
{
	switch (op->kind)
	{
		case DV_OP_SCAN:
		case DV_OP_FUNC:
			return NIL;
		case DV_OP_GROUP:
			return list_copy(op->inner->sources);
		case DV_OP_FILTER:
			return dv_optree_nested_sources(op->left);
		case DV_OP_JOIN:
			return list_concat(dv_optree_nested_sources(op->left), dv_optree_nested_sources(op->right));
	}
	return NIL;
}

bool
dv_optree_has_groups(DvOp *op)
{
	switch (op->kind)
	{
		case DV_OP_SCAN:
			return false;
		case DV_OP_GROUP:
		case DV_OP_FUNC:
			return true;
		case DV_OP_FILTER:
			return dv_optree_has_groups(op->left);
		case DV_OP_JOIN:
			return dv_optree_has_groups(op->left) || dv_optree_has_groups(op->right);
	}
	return false;
}

Bitmapset *
dv_optree_hidden_rels(DvOp *op)
{
	if (op == NULL || op->kind == DV_OP_SCAN || op->kind == DV_OP_GROUP || op->kind == DV_OP_FUNC)
		return NULL;
	if (op->kind == DV_OP_FILTER)
		return dv_optree_hidden_rels(op->left);
	if (op->jointype == JOIN_SEMI || op->jointype == JOIN_ANTI)
		return bms_union(dv_optree_hidden_rels(op->left), op->right->rels);
	return bms_union(dv_optree_hidden_rels(op->left), dv_optree_hidden_rels(op->right));
}

/* ---------------------------------------------------------------------
 * SQL
 * ---------------------------------------------------------------------
 */

/*
 * Which of a grouped subquery's affected groups group_sql_over computes,
 * given the relation of their keys (columns k1..kn): KEYS_K1, those whose
 * first key is some k1; KEYS_K1_NULL, those whose first key is NULL if a
 * NULL k1 is there (KEYS_K1 and KEYS_K1_NULL together: every affected
 * group, each once).  With by_pair: KEYS_PAIR, those of the keys whose k1
 * and k2 are both non-NULL, found by both; KEYS_NULLS, those whose first
 * key is NULL if a NULL k1 is there, and those whose second key is NULL
 * and first key is some k1 of a key whose k2 is NULL (KEYS_PAIR and
 * KEYS_NULLS together: every affected group, each once).
 */
#define KEYS_K1 0
#define KEYS_K1_NULL 1
#define KEYS_PAIR 2
#define KEYS_NULLS 3

typedef struct DvGen
{
	Query	   *q;
	List	   *stand_in;		/* range table of the level's size, columns c<rti>_<attno> */
	StringInfo	with;			/* the WITH chain of deltas (shared with inner levels) */
	int		   *next_id;		/* numbers its entries */

	/*
	 * (shared like with) pairs of a subquery operator and the WITH entry
	 * holding its rows now, computed once by its delta (global_extreme_delta)
	 * and read from there wherever its rows now are read
	 */
	List	  **new_ctes;
	DvOp	   *lateral_left;	/* a LATERAL function's left side, written as ... */
	const char *lateral_alias;	/* ... this alias */

	/*
	 * The rows of the scan of range table entry restrict_rti restricted to
	 * the affected keys of a grouped subquery (group_sql): column
	 * restrict_attno among relation restrict_keys's column k1 (or NULL).
	 */
	int			restrict_rti;
	AttrNumber	restrict_attno;
	const char *restrict_keys;
	bool		restrict_null;

	/*
	 * With restrict_attno2 (a group operator whose index lookups use its
	 * first two keys, by_pair): restrict_mode KEYS_PAIR, the rows whose
	 * (restrict_attno, restrict_attno2) equal some non-NULL (k1, k2) of
	 * restrict_keys; KEYS_NULLS, the rows of KEYS_NULLS's groups
	 */
	AttrNumber	restrict_attno2;
	int			restrict_mode;

	/*
	 * The delta of grouped subquery operator keys_filter_op recomputes only
	 * the affected groups whose keys (alias k) pass keys_filter
	 * (partner_keys_filter), or all when NULL; with keys_filter_delta,
	 * those too that pass it (the keys of the left side's delta: a
	 * semi-join in a branch of its own, a UNION, not an EXISTS under an OR,
	 * which would read the delta again for each key).
	 */
	DvOp	   *keys_filter_op;
	const char *keys_filter;
	const char *keys_filter_delta;

	/*
	 * keys_filter in the form partner_keys_filter writes after a keyed read
	 * (keyed_shared_rows), "seen OR (unread AND probe)", in its three
	 * parts (else NULL): seen, the key is among the keys read by key or the
	 * left delta's; unread, it is not among the keys the keyed read looked
	 * for; probe, the source has a row for it.  The changed keys are then
	 * cut by "seen OR unread" before their DISTINCT (group_delta), the
	 * probe made after it, once a key.
	 */
	const char *keys_split_seen;
	const char *keys_split_unread;
	const char *keys_split_probe;

	/*
	 * The scan under filters (bare_scan) whose rows now the partner filter
	 * of the join being written reads (partner_scan), or NULL: a term of its
	 * left side's delta that reads it whole writes it as a MATERIALIZED WITH
	 * entry (shared_rows) that the partner filter then reads too, unless it
	 * can read it by key in one index scan for the keys of its delta
	 * (keyed_shared_rows, below), and one that would probe it counts
	 * share_rows more probes (the changed keys of the grouped subquery,
	 * which the partner filter probes it for).
	 */
	DvOp	   *share_op;
	int64		share_rows;
	bool		share_probed;	/* (set when such a term probed it instead) */

	/*
	 * Where such a term read that scan by key instead (keyed_shared_rows):
	 * the scan (keyed_op), the MATERIALIZED WITH entry of its rows whose
	 * column keyed_var is "keyed_opno" some k1 of the WITH entry keyed_keys
	 * (the non-NULL keys of the term's delta, duplicates kept), or NULL.
	 * Only the partner filter reads that entry (its rows for other keys are
	 * not there); every other reading of the scan reads the source.
	 */
	DvOp	   *keyed_op;
	const char *keyed_rows;
	const char *keyed_keys;
	Var		   *keyed_var;
	Oid			keyed_opno;

	/*
	 * The rows of the scan of range table entry reach_rti restricted to
	 * those whose column reach_attno is "reach_op ANY (reach_array)": the
	 * values a delta's rows equate it with (reach_restrict), or 0.
	 */
	int			reach_rti;
	AttrNumber	reach_attno;
	const char *reach_op;
	const char *reach_array;
	Oid			reach_opno;		/* the equality, "v reach_opno x" */
	const char *reach_keys;		/* "SELECT DISTINCT x AS k1 FROM dother o" */
	bool		reach_done;		/* set when a scan was written so restricted */

	/*
	 * The inner joins above the operator whose delta is being written,
	 * nearest last, through which every row of that delta reaches the
	 * level's output (only inner joins and filters between), each joining
	 * it to a scan under filters only (bare_scan) on its right: their
	 * conditions imply filters on the scans below (implied_restrict).  NIL
	 * outside such a chain.
	 */
	List	   *implied_above;

	/*
	 * The operators whose delta was written as a WITH entry of this level,
	 * and the names of those entries, in step (delta_cte; the latest last):
	 * where implied_restrict finds the keys of a join's delta below the
	 * one it joins (delta_keys_source)
	 */
	List	   *delta_ops;
	List	   *delta_names;

	/*
	 * The grouped subquery operator whose new state rows are being computed
	 * (dv_optree_state_new_sql), its state not yet replaced: the left join
	 * that is its input may count a row's matches from it
	 * (pad_count_from_state), or NULL.
	 */
	DvOp	   *pad_state_op;

	/*
	 * The inner join demand_op (the left side of a semi-join) whose right
	 * side, a grouped subquery, has its delta's rows (alias d) cut to the
	 * keys that pass demand_test (semi_demand), or NULL.
	 */
	DvOp	   *demand_op;
	const char *demand_test;
	const char *demand_key_test;	/* the same test of a key relation's k1 (alias k) */
} DvGen;

/* a generator for level q; inner levels share their outer one's WITH chain */
static void
gen_init(DvGen *g, Query *q, DvGen *outer)
{
	int			rti = 0;
	ListCell   *lc;

	g->q = q;
	g->stand_in = NIL;
	g->lateral_left = NULL;
	g->lateral_alias = NULL;
	g->restrict_rti = 0;
	g->restrict_attno2 = 0;
	g->restrict_mode = KEYS_K1;
	g->keys_filter_op = NULL;
	g->keys_filter = NULL;
	g->keys_filter_delta = NULL;
	g->keys_split_seen = NULL;
	g->keys_split_unread = NULL;
	g->keys_split_probe = NULL;
	g->share_op = NULL;
	g->share_rows = 0;
	g->share_probed = false;
	g->keyed_op = NULL;
	g->keyed_rows = NULL;
	g->reach_rti = 0;
	g->implied_above = NIL;
	g->delta_ops = NIL;
	g->delta_names = NIL;
	g->pad_state_op = NULL;
	g->demand_op = NULL;
	g->demand_test = NULL;
	g->demand_key_test = NULL;
	if (outer)
	{
		g->with = outer->with;
		g->next_id = outer->next_id;
		g->new_ctes = outer->new_ctes;
	}
	else
	{
		g->with = makeStringInfo();
		g->next_id = palloc0(sizeof(int));
		g->new_ctes = palloc0(sizeof(List *));
	}
	foreach(lc, q->rtable)
	{
		RangeTblEntry *orig = lfirst_node(RangeTblEntry, lc);
		RangeTblEntry *rte = makeNode(RangeTblEntry);
		List	   *names = NIL;
		int			n = 0;

		rti++;
		if (orig->rtekind == RTE_RELATION && orig->relkind != RELKIND_VIEW)
		{
			Relation	rel = relation_open(orig->relid, AccessShareLock);

			n = RelationGetNumberOfAttributes(rel);
			relation_close(rel, AccessShareLock);
		}
		else if (orig->rtekind == RTE_SUBQUERY && orig->subquery)
			n = list_length(orig->subquery->targetList);
		else if (orig->rtekind == RTE_FUNCTION)
			n = list_length(orig->eref->colnames);
		for (int i = 1; i <= n; i++)
			names = lappend(names, makeString(psprintf("c%d_%d", rti, i)));
		rte->rtekind = RTE_NAMEDTUPLESTORE;
		rte->enrname = psprintf("dv_stand_in_%d", rti);
		rte->eref = makeAlias(rte->enrname, names);
		rte->inFromCl = true;
		g->stand_in = lappend(g->stand_in, rte);
	}
}

/* a Var's name is its varno's, whatever the parser noted as its syntax */
static Node *
plain_var_mutator(Node *node, void *context)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Var))
	{
		Var		   *v = (Var *) copyObject(node);

		v->varnosyn = v->varno;
		v->varattnosyn = v->varattno;
		return (Node *) v;
	}
	return expression_tree_mutator(node, plain_var_mutator, context);
}

/*
 * deparse - expr as SQL, each Var of a scan under a written alias.a's,
 * under b's otherwise (NULL: none).
 */
static char *
deparse(DvGen *g, Node *expr, DvOp *a, const char *a_alias, DvOp *b, const char *b_alias)
{
	PlannedStmt *pstmt = makeNode(PlannedStmt);
	List	   *names = NIL;
	List	   *ctx;

	for (int rti = 1; rti <= list_length(g->stand_in); rti++)
	{
		const char *name = "dv_none";

		if (a && bms_is_member(rti, a->rels))
			name = a_alias;
		else if (b && bms_is_member(rti, b->rels))
			name = b_alias;
		names = lappend(names, (char *) name);
	}
	pstmt->commandType = CMD_SELECT;
	pstmt->rtable = g->stand_in;
	ctx = deparse_context_for_plan_tree(pstmt, names);
	return deparse_expression(plain_var_mutator(expr, NULL), ctx, true, false);
}

static char *
deparse_quals(DvGen *g, List *quals, DvOp *a, const char *a_alias, DvOp *b, const char *b_alias)
{
	if (quals == NIL)
		return "true";
	return deparse(g, (Node *) make_ands_explicit(quals), a, a_alias, b, b_alias);
}

static char *
col_name(DvOpCol *col)
{
	return psprintf("c%d_%d", col->rti, col->attno);
}

/* "a.c1_1, a.c1_2, " for op's columns (empty when it has none) */
static char *
col_list(DvOp *op, const char *alias)
{
	StringInfoData buf;
	ListCell   *lc;

	initStringInfo(&buf);
	foreach(lc, op->cols)
		appendStringInfo(&buf, "%s.%s, ", alias, col_name(lfirst(lc)));
	return buf.data;
}

/* "c1_1, c1_2, " for op's columns (empty when it has none) */
static char *
col_list_bare(DvOp *op)
{
	StringInfoData buf;
	ListCell   *lc;

	initStringInfo(&buf);
	foreach(lc, op->cols)
		appendStringInfo(&buf, "%s, ", col_name(lfirst(lc)));
	return buf.data;
}

/* "NULL::type AS c1_1, ..., " for op's columns */
static char *
null_list(DvOp *op)
{
	StringInfoData buf;
	ListCell   *lc;

	initStringInfo(&buf);
	foreach(lc, op->cols)
	{
		DvOpCol    *col = lfirst(lc);

		appendStringInfo(&buf, "NULL::%s AS %s, ",
						 format_type_extended(col->type, col->typmod,
											  FORMAT_TYPE_TYPEMOD_GIVEN | FORMAT_TYPE_FORCE_QUALIFY),
						 col_name(col));
	}
	return buf.data;
}

/* "a.c1_1, a.c1_2" without the trailing comma, or "" */
static char *
chop(char *list)
{
	size_t		len = strlen(list);

	if (len >= 2)
		list[len - 2] = '\0';
	return list;
}

/* is the window of some source under op (possibly) not empty? */
static bool
has_delta(DvOp *op)
{
	ListCell   *lc;

	switch (op->kind)
	{
		case DV_OP_SCAN:
			return op->source->delta_rows != 0;
		case DV_OP_FILTER:
			return has_delta(op->left);
		case DV_OP_JOIN:
			return has_delta(op->left) || has_delta(op->right);
		case DV_OP_FUNC:
			return false;
		case DV_OP_GROUP:
			foreach(lc, op->inner->sources)
			{
				if (((DvPlanSource *) lfirst(lc))->delta_rows != 0)
					return true;
			}
			return false;
	}
	return true;
}

/*
 * pair_condition - the condition that the row whose first two group keys
 * are the expressions k1 and k2 (of types type1, type2) is one of the
 * groups of mode KEYS_PAIR or KEYS_NULLS of the keys of relation keys,
 * each key compared by its type's equality; NULL if a type has none.  The
 * KEYS_NULLS condition leads with "k1 IS NULL OR k2 IS NULL", which the
 * indexes of the keys' columns serve (a BitmapOr): it reads the rows with
 * a NULL key, none where the keys' columns have no NULL (TPC-H), and two
 * terms less to plan than KEYS_K1_NULL and a set of NULL second keys apart.
 */
static char *
pair_condition(const char *k1, Oid type1, const char *k2, Oid type2, const char *keys, int mode)
{
	char	   *eq1 = dv_equality_operator(type1);
	char	   *eq2 = dv_equality_operator(type2);

	if (eq1 == NULL || eq2 == NULL)
		return NULL;
	if (mode == KEYS_PAIR)
		return psprintf("EXISTS (SELECT FROM %s k WHERE (%s) %s k.k1 AND (%s) %s k.k2)", keys, k1, eq1, k2, eq2);
	return psprintf("(%s OR %s) AND "
					"((%s AND EXISTS (SELECT FROM %s k WHERE %s)) OR "
					"(%s AND (%s) %s ANY (SELECT k.k1 FROM %s k WHERE %s)))",
					dv_null_test_sql(k1, type1), dv_null_test_sql(k2, type2),
					dv_null_test_sql(k1, type1), keys, dv_null_test_sql("k.k1", type1),
					dv_null_test_sql(k2, type2), k1, eq1, keys, dv_null_test_sql("k.k2", type2));
}

/*
 * scan_restriction - "<alias>.<column> = ANY (keys)" (or "IS NULL", or a
 * pair_condition) when the scan op is the one a grouped subquery's affected
 * keys restrict (DvGen.restrict_rti), else NULL
 */
static char *
scan_restriction(DvGen *g, DvOp *op, const char *alias)
{
	ListCell   *lc;
	ListCell   *ln;

	if (g->restrict_rti == 0 || op->source->rtindex != g->restrict_rti)
		return NULL;
	if (g->restrict_attno2 != 0)
	{
		char	   *c1 = NULL;
		char	   *c2 = NULL;
		Oid			t1 = InvalidOid;
		Oid			t2 = InvalidOid;

		forboth(lc, op->cols, ln, op->source->columns)
		{
			DvOpCol    *col = lfirst(lc);

			if (col->attno == g->restrict_attno && c1 == NULL)
			{
				c1 = psprintf("%s.%s", alias, quote_identifier(strVal(lfirst(ln))));
				t1 = col->type;
			}
			if (col->attno == g->restrict_attno2 && c2 == NULL)
			{
				c2 = psprintf("%s.%s", alias, quote_identifier(strVal(lfirst(ln))));
				t2 = col->type;
			}
		}
		/*
		 * (never without it: the pair's term and the NULL keys' term would
		 * each compute the affected groups, counted twice)
		 */
		if (c1 == NULL || c2 == NULL)
			elog(ERROR, "dynview: a grouped subquery's group keys are not columns of the scan they restrict");
		return pair_condition(c1, t1, c2, t2, g->restrict_keys, g->restrict_mode);
	}
	forboth(lc, op->cols, ln, op->source->columns)
	{
		DvOpCol    *col = lfirst(lc);
		char	   *eq;

		if (col->attno != g->restrict_attno)
			continue;
		if (g->restrict_null)
			return dv_null_test_sql(psprintf("%s.%s", alias, quote_identifier(strVal(lfirst(ln)))),
									col->type);
		eq = dv_equality_operator(col->type);
		return eq ? psprintf("%s.%s %s ANY (SELECT k.k1 FROM %s k)", alias,
							 quote_identifier(strVal(lfirst(ln))), eq, g->restrict_keys) : NULL;
	}
	return NULL;
}

/*
 * preserved_scan - is the scan of rti reached from op through filters,
 * inner joins and the preserved side of outer, semi- and anti-joins only
 * (so that a restriction of its rows is one of op's rows)?
 */
static bool
preserved_scan(DvOp *op, int rti)
{
	switch (op->kind)
	{
		case DV_OP_SCAN:
			return op->source->rtindex == rti;
		case DV_OP_FILTER:
			return preserved_scan(op->left, rti);
		case DV_OP_JOIN:
			if (op->jointype == JOIN_INNER)
				return preserved_scan(op->left, rti) || preserved_scan(op->right, rti);
			if (op->jointype == JOIN_LEFT || op->jointype == JOIN_SEMI || op->jointype == JOIN_ANTI)
				return preserved_scan(op->left, rti);
			if (op->jointype == JOIN_RIGHT)
				return preserved_scan(op->right, rti);
			return false;
		default:
			return false;
	}
}

static char *rows_sql(DvGen *g, DvOp *op);

/*
 * old_rows_sql - the rows of tree as they were at the previous data
 * snapshot: its rows now less its delta, OLD = NEW - DELTA.  Rows its delta
 * inserted on balance leave (consolidated by the text of the rows, the
 * copies of one text numbered), rows it deleted on balance come back.
 * Restricted like the rows now (DvGen.restrict_rti), so that a grouped
 * subquery's affected groups cost their rows, driven by the delta.
 */
static char *
old_rows_sql(DvGen *g, DvOp *tree, const char *dtree)
{
	char	   *ncols = chop(col_list(tree, "n"));
	char	   *xcols = chop(col_list(tree, "x"));
	char	   *net = psprintf("SELECT ROW(%s)::text AS dv_t, pg_catalog.sum(x.dv_weight) AS dv_w FROM %s x GROUP BY 1",
							   xcols, dtree);

	return psprintf("SELECT %s FROM (SELECT n.*, pg_catalog.row_number() OVER (PARTITION BY ROW(%s)::text) AS dv_i "
					"FROM (%s) n) n LEFT JOIN (%s) m ON m.dv_t = ROW(%s)::text "
					"WHERE n.dv_i > GREATEST(COALESCE(m.dv_w, 0), 0) "
					"UNION ALL SELECT %s FROM (SELECT DISTINCT ON (ROW(%s)::text) x.*, m.dv_w AS dv_net FROM %s x "
					"JOIN (%s) m ON m.dv_t = ROW(%s)::text WHERE m.dv_w < 0) x, "
					"pg_catalog.generate_series(1, (-x.dv_net)::pg_catalog.int8) dv_g",
					ncols, ncols, rows_sql(g, tree), net, ncols,
					xcols, xcols, dtree, net, xcols);
}

static char *rows_sql(DvGen *g, DvOp *op);
static bool reads_state(DvOp *op);
static char *state_qualified(DvOp *op);
static bool reads_filter_state(DvGen *g, DvOp *op);

/* leave out the implied filters in the statements generated now (optree.h) */
static bool leave_implied_filters = false;
static bool reads_filter_state_reached(DvGen *g, DvOp *op);
static DvOpCol *filter_state_key(DvOp *op);
static bool selective_qual(Node *qual);
static double qual_fraction(Node *qual, Relation rel, double reltuples);
static DvOp *filter_chain_scan(DvOp *op);
static const char *filter_state_key_name(DvOp *op);
static bool constant_filter_qual(Node *qual);
static List *extreme_aggrefs(DvOp *op);
static char *right_sql(DvGen *g, DvOp *right, DvOp *left, const char *alias);
static OpExpr *not_in_test(List *quals, DvOp *keep, DvOp *other, List **rest);
static char *quals_and(DvGen *g, List *quals, DvOp *a, const char *a_alias, DvOp *b, const char *b_alias);
static char *reach_sql(DvGen *g, DvOp *keep, DvOp *other, const char *dother, List *quals);
static bool bare_scan(DvOp *op);

/* (operator state of grouped subqueries: at the end of the file) */
typedef enum GroupAggKind
{
	GROUP_AGG_COUNT,			/* count(*), count(x): n */
	GROUP_AGG_SUM,				/* sum of integers or numeric: n, s (z, pi, ni, sc) */
	GROUP_AGG_AVG				/* avg of the same: n, s (z, pi, ni, sc) */
} GroupAggKind;

/* an aggregate of a grouped subquery operator kept in its state */
typedef struct GroupAgg
{
	Aggref	   *aggref;
	GroupAggKind kind;
	Node	   *arg;			/* NULL: count(*) */
	Oid			argtype;
	int			scale;			/* numeric: the scale of every input (z: NaNs); -1 else */
	bool		scale_tracked;	/* numeric of no one scale: z, pi, ni, sc kept */
} GroupAgg;

static bool is_group_state(DvOp *op);
static bool reads_group_state(DvOp *op);
static char *pad_count_from_state(DvGen *g, DvOp *join);
static bool preserved_scan(DvOp *op, int rti);
static bool group_state_eligible(DvOp *op);
static char *group_state_sql(DvGen *g, DvOp *op, bool old, const char *keys, bool null_keys);
static void group_state_delta(DvGen *g, DvOp *op, StringInfo terms);
static char *group_state_fill_sql(DvGen *ig, DvOp *op);
static char *group_state_new_sql(DvGen *ig, DvOp *op, const char *d);
static char *group_state_columns(DvOp *op);
static const char *group_state_explain_scales(DvOp *op);
static char *group_state_new_beyond_blocks(DvGen *ig, DvOp *op, List *aggs, const char *rows);
static List *group_state_aggs(DvOp *op, bool *ok);
static bool group_aggs_scale_tracked(List *aggs);
static char *group_state_sums(DvGen *ig, DvOp *op, List *aggs, const char *w);
static char *group_state_values(DvOp *op, List *aggs, const char *rel, const char *prefix);
static char *group_state_rows(DvGen *g, DvOp *op, List *aggs, const char *values);
static bool group_state_key_hashed(DvOp *op, int i);
static List *group_state_value_names(List *aggs);
static char *group_state_value_columns(List *aggs, const char *prefix, const char *as);
static char *group_state_key_list(DvOp *op, const char *alias);
static char *partner_rows_sql(DvGen *g, DvOp *join);
static bool partner_bounded(DvOp *join);
static bool bare_scan(DvOp *op);
static DvOp *partner_scan(DvOp *left, Node *e);
static const char *shared_name(DvGen *g, DvOp *op);

/* its rows now (NEW) */
#define new_sql(g, op) rows_sql((g), (op))

/*
 * window_call_sql - a window function of a window subquery operator
 * (DvPlan.window_node) over the rows of its input (alias d): the function
 * called by its qualified name with its arguments (each deparsed), its
 * FILTER, and its window written out from the WindowClause (PARTITION BY,
 * ORDER BY with the sort operator and where NULLs go, the frame), since
 * ruleutils deparses a window only as part of a whole query.
 */
static char *
window_call_sql(DvGen *g, WindowFunc *wf, Query *wq, DvOp *tree)
{
	StringInfoData buf;
	WindowClause *wc = NULL;
	ListCell   *lc;
	int			fo;

	foreach(lc, wq->windowClause)
		if (lfirst_node(WindowClause, lc)->winref == wf->winref)
			wc = lfirst_node(WindowClause, lc);
	if (wc == NULL)
		elog(ERROR, "dynview: no window clause for winref %u", wf->winref);
	initStringInfo(&buf);
	appendStringInfo(&buf, "%s(", quote_qualified_identifier(get_namespace_name(get_func_namespace(wf->winfnoid)),
															  get_func_name(wf->winfnoid)));
	if (wf->winstar)
		appendStringInfoChar(&buf, '*');
	foreach(lc, wf->args)
		appendStringInfo(&buf, "%s%s", foreach_current_index(lc) ? ", " : "",
						 deparse(g, lfirst(lc), tree, "d", NULL, NULL));
	appendStringInfoChar(&buf, ')');
	if (wf->aggfilter)
		appendStringInfo(&buf, " FILTER (WHERE %s)", deparse(g, (Node *) wf->aggfilter, tree, "d", NULL, NULL));
	appendStringInfoString(&buf, " OVER (");
	foreach(lc, wc->partitionClause)
		appendStringInfo(&buf, "%s%s", foreach_current_index(lc) ? ", " : "PARTITION BY ",
						 deparse(g, get_sortgroupclause_expr(lfirst(lc), wq->targetList), tree, "d", NULL, NULL));
	foreach(lc, wc->orderClause)
	{
		SortGroupClause *sgc = lfirst_node(SortGroupClause, lc);

		appendStringInfo(&buf, "%s(%s) USING %s NULLS %s", foreach_current_index(lc) ? ", " : " ORDER BY ",
						 deparse(g, get_sortgroupclause_expr(sgc, wq->targetList), tree, "d", NULL, NULL),
						 dv_operator_sql(sgc->sortop), sgc->nulls_first ? "FIRST" : "LAST");
	}
	fo = wc->frameOptions;
	if (fo & FRAMEOPTION_NONDEFAULT)
	{
		const char *bounds[2] = {NULL, NULL};

		appendStringInfoString(&buf, (fo & FRAMEOPTION_RANGE) ? " RANGE " :
							   (fo & FRAMEOPTION_ROWS) ? " ROWS " : " GROUPS ");
		for (int end = 0; end < 2; end++)
		{
			int			unb_p = end ? FRAMEOPTION_END_UNBOUNDED_PRECEDING : FRAMEOPTION_START_UNBOUNDED_PRECEDING;
			int			unb_f = end ? FRAMEOPTION_END_UNBOUNDED_FOLLOWING : FRAMEOPTION_START_UNBOUNDED_FOLLOWING;
			int			cur = end ? FRAMEOPTION_END_CURRENT_ROW : FRAMEOPTION_START_CURRENT_ROW;
			int			off_p = end ? FRAMEOPTION_END_OFFSET_PRECEDING : FRAMEOPTION_START_OFFSET_PRECEDING;
			int			off_f = end ? FRAMEOPTION_END_OFFSET_FOLLOWING : FRAMEOPTION_START_OFFSET_FOLLOWING;
			Node	   *offset = end ? wc->endOffset : wc->startOffset;

			if (fo & unb_p)
				bounds[end] = "UNBOUNDED PRECEDING";
			else if (fo & unb_f)
				bounds[end] = "UNBOUNDED FOLLOWING";
			else if (fo & cur)
				bounds[end] = "CURRENT ROW";
			else if (fo & (off_p | off_f))
				bounds[end] = psprintf("%s %s", deparse(g, offset, tree, "d", NULL, NULL),
									   (fo & off_p) ? "preceding" : "following");
		}
		if (fo & FRAMEOPTION_BETWEEN)
			appendStringInfo(&buf, "BETWEEN %s AND %s", bounds[0], bounds[1]);
		else
			appendStringInfoString(&buf, bounds[0]);
		if (fo & FRAMEOPTION_EXCLUDE_CURRENT_ROW)
			appendStringInfoString(&buf, " EXCLUDE CURRENT ROW");
		else if (fo & FRAMEOPTION_EXCLUDE_GROUP)
			appendStringInfoString(&buf, " EXCLUDE GROUP");
		else if (fo & FRAMEOPTION_EXCLUDE_TIES)
			appendStringInfoString(&buf, " EXCLUDE TIES");
	}
	appendStringInfoChar(&buf, ')');
	return buf.data;
}

/*
 * group_sql - the rows of the subquery operator op over NEW or OLD rows of
 * its input, or, given the name of the relation of its affected keys
 * (columns k1..kn), the rows of the groups whose first key is among them
 * (a superset: the other groups come out alike from NEW and OLD and
 * cancel), or with null_keys the groups whose first key is NULL if a NULL
 * is among them.  Columns c<rti>_<resno>.
 */
static char *
group_sql_over(DvGen *g, DvOp *op, const char *dtree, const char *keys, int mode, const char *input);
static bool by_pair(DvOp *op);

/*
 * keyed_delta_sql - the name of a WITH entry of the rows of relation dtree
 * (the delta of the grouped subquery operator op's input) whose first group
 * key is among keys' k1 (or NULL, with null_keys), for the groups' rows as
 * they were (OLD = NEW - DELTA, old_rows_sql) over those groups only: the
 * rows of the other groups would be consolidated, then dropped by the
 * groups' own key condition (TPC-H Q17: the whole change of lineitem for
 * the few parts of the brand and container the query reads).  A row's
 * copies in NEW and DELTA print the same, so have the same key: the
 * restriction keeps or drops them together.
 */
static char *add_cte(DvGen *g, const char *sql);
static char *add_cte_as(DvGen *g, const char *sql, bool materialized);

static char *
keyed_delta_sql(DvGen *ig, DvOp *op, const char *dtree, const char *keys, int mode)
{
	Node	   *k1expr = (Node *) linitial_node(TargetEntry, op->inner->input_tlist)->expr;
	char	   *k1 = deparse(ig, k1expr, op->inner->tree, "d", NULL, NULL);
	char	   *eq = dv_equality_operator(exprType(k1expr));

	if (mode == KEYS_PAIR || mode == KEYS_NULLS)
	{
		Node	   *k2expr = (Node *) lsecond_node(TargetEntry, op->inner->input_tlist)->expr;

		return add_cte(ig, psprintf("SELECT * FROM %s d WHERE %s", dtree,
									pair_condition(k1, exprType(k1expr),
												   deparse(ig, k2expr, op->inner->tree, "d", NULL, NULL),
												   exprType(k2expr), keys, mode)));
	}
	if (mode == KEYS_K1_NULL)
		return add_cte(ig, psprintf("SELECT * FROM %s d WHERE %s", dtree,
									dv_null_test_sql(k1, exprType(k1expr))));
	return add_cte(ig, psprintf("SELECT * FROM %s d WHERE (%s) %s ANY (SELECT k.k1 FROM %s k)",
								dtree, k1, eq ? eq : "=", keys));
}

/*
 * topn_rows_sql - the rows of a subquery operator with ORDER BY ... LIMIT
 * (node_topn) out of sql, the rows of its query without LIMIT (columns
 * c<rti>_<resno> of gq's output): its first node_topn_count after
 * node_topn_offset in its order, each sort key by its own operator.
 */
static char *
topn_rows_sql(DvOp *op, Query *gq, const char *sql)
{
	DvPlan	   *inner = op->inner;
	int			rti = bms_singleton_member(op->rels);
	StringInfoData buf;
	ListCell   *lk;
	ListCell   *lp;

	initStringInfo(&buf);
	appendStringInfo(&buf, "SELECT * FROM (%s) t ORDER BY ", sql);
	forboth(lk, inner->node_topn_order, lp, inner->node_topn_pos)
	{
		DvSortKey  *sk = lfirst(lk);
		int			n = 0;
		int			resno = 0;
		ListCell   *lt;

		foreach(lt, gq->targetList)
		{
			TargetEntry *te = lfirst_node(TargetEntry, lt);

			if (!te->resjunk && ++n == lfirst_int(lp))
			{
				resno = te->resno;
				break;
			}
		}
		if (resno == 0)
			elog(ERROR, "dynview: a sort key of a subquery's ORDER BY ... LIMIT is not among its columns");
		appendStringInfo(&buf, "%st.c%d_%d USING %s NULLS %s", foreach_current_index(lk) ? ", " : "",
						 rti, resno, dv_operator_sql(sk->sortop), sk->nulls_first ? "FIRST" : "LAST");
	}
	appendStringInfo(&buf, " LIMIT " INT64_FORMAT " OFFSET " INT64_FORMAT,
					 inner->node_topn_count, inner->node_topn_offset);
	return buf.data;
}

/*
 * grouping_sets_sql - GROUPING SETS (...) of a grouped level gq, its sets
 * expanded (ROLLUP and CUBE written out), each expression deparsed over
 * tree as d
 */
static char *
grouping_sets_sql(DvGen *ig, Query *gq, DvOp *tree)
{
	StringInfoData buf;
	ListCell   *ls;

	initStringInfo(&buf);
	appendStringInfoString(&buf, "GROUPING SETS (");
	foreach(ls, expand_grouping_sets(gq->groupingSets, gq->groupDistinct, -1))
	{
		ListCell   *lr;

		appendStringInfoString(&buf, foreach_current_index(ls) ? ", (" : "(");
		foreach(lr, (List *) lfirst(ls))
			appendStringInfo(&buf, "%s%s", foreach_current_index(lr) ? ", " : "",
							 deparse(ig, (Node *) get_sortgroupref_tle(lfirst_int(lr), gq->targetList)->expr,
									 tree, "d", NULL, NULL));
		appendStringInfoChar(&buf, ')');
	}
	appendStringInfoChar(&buf, ')');
	return buf.data;
}

/*
 * old_by_sums - are the groups as they were of the grouped subquery
 * operator op derived from sums (group_sql over OLD)?  Where every
 * aggregate is a count or a sum or avg of integers or of numeric of one
 * scale (the aggregates a grouped state keeps, group_state_eligible, less
 * the scale_tracked ones), a group's old state is its state over NEW less
 * its delta's weighted state, per group key: count, the non-NULL inputs'
 * count, their exact sum and NaN count, each NEW + (-DELTA) in one
 * aggregate over both; the group was there where its count stays above 0.
 * Exact by that algebra, and its values printed as the state's are
 * (group_state_values), so no row of NEW is formatted as text, sorted and
 * paired with the delta's as old_rows_sql does (TPC-H Q18: 31 of the 96 ms
 * of its delta statement at SF 0.3).  min/max, floats, numeric without one
 * scale and anything else keep old_rows_sql.
 */
static bool
old_by_sums(DvOp *op)
{
	bool		ok;

	if (!group_state_eligible(op))
		return false;
	return !group_aggs_scale_tracked(group_state_aggs(op, &ok)) && ok;
}

/* explain()'s words for old_by_sums, "" where it does not hold */
static const char *
old_by_sums_explain(DvOp *op)
{
	return old_by_sums(op) ? ", the old ones by counts and sums over new rows less the delta's, per group" : "";
}

static char *
group_sql(DvGen *g, DvOp *op, const char *dtree, const char *keys, int mode)
{
	return group_sql_over(g, op, dtree, keys, mode, NULL);
}

/*
 * by_pair - does the grouped subquery operator op, which keeps no state,
 * find its affected groups by its first two keys (KEYS_PAIR and
 * KEYS_NULLS): its index lookups use both (grouprule.c assess_two_keys),
 * and both keys are columns of one scan that its rows keep (preserved_scan)
 */
static bool
by_pair(DvOp *op)
{
	Node	   *k1;
	Node	   *k2;

	if (op->kind != DV_OP_GROUP || op->index_rule_keys != 2 || reads_group_state(op) ||
		op->inner->kind != DV_PLAN_GROUPED || op->inner->node_topn ||
		list_length(op->inner->input_tlist) < 2)
		return false;
	k1 = (Node *) linitial_node(TargetEntry, op->inner->input_tlist)->expr;
	k2 = (Node *) lsecond_node(TargetEntry, op->inner->input_tlist)->expr;
	return IsA(k1, Var) && IsA(k2, Var) && ((Var *) k1)->varlevelsup == 0 &&
		((Var *) k2)->varlevelsup == 0 && ((Var *) k1)->varno == ((Var *) k2)->varno &&
		preserved_scan(op->inner->tree, ((Var *) k1)->varno) &&
		dv_equality_operator(exprType(k1)) != NULL && dv_equality_operator(exprType(k2)) != NULL;
}

/* group_sql over the rows of a given statement (input, columns of the input's tree), if not NULL */
static char *
group_sql_over(DvGen *g, DvOp *op, const char *dtree, const char *keys, int mode, const char *input)
{
	bool		null_keys = mode == KEYS_K1_NULL;
	bool		pair = keys != NULL && (mode == KEYS_PAIR || mode == KEYS_NULLS);

	DvPlan	   *inner = op->inner;
	Query	   *gq = inner->kind == DV_PLAN_GROUPED ? inner->grouped_level : inner->level;
	int			rti = bms_singleton_member(op->rels);
	DvGen		ig;
	StringInfoData buf;
	ListCell   *lc;
	bool		first = true;
	bool		by_sums;
	bool		ok;

	/* (groups kept in a state: read from there) */
	if (input == NULL && reads_group_state(op))
		return group_state_sql(g, op, dtree != NULL, keys, null_keys);
	gen_init(&ig, inner->level, g);
	initStringInfo(&buf);
	appendStringInfoString(&buf, "SELECT ");
	if (inner->kind == DV_PLAN_GROUPED && gq->hasDistinctOn)
	{
		appendStringInfoString(&buf, "DISTINCT ON (");
		foreach(lc, gq->distinctClause)
			appendStringInfo(&buf, "%s%s", foreach_current_index(lc) ? ", " : "",
							 deparse(&ig, (Node *) get_sortgroupclause_expr(lfirst(lc), gq->targetList),
									 inner->tree, "d", NULL, NULL));
		appendStringInfoString(&buf, ") ");
	}
	else if (inner->kind == DV_PLAN_GROUPED && gq->distinctClause)
		appendStringInfoString(&buf, "DISTINCT ");
	foreach(lc, gq->targetList)
	{
		TargetEntry *te = lfirst_node(TargetEntry, lc);

		if (te->resjunk)
			continue;
		appendStringInfo(&buf, "%s%s AS c%d_%d", first ? "" : ", ",
						 inner->window_node && IsA(te->expr, WindowFunc)
						 ? window_call_sql(&ig, (WindowFunc *) te->expr, gq, inner->tree)
						 : deparse(&ig, (Node *) te->expr, inner->tree, "d", NULL, NULL), rti, te->resno);
		first = false;
	}
	if (keys)
	{
		/* the affected keys restrict the scan the first key is a column of, if any */
		Node	   *k1expr = (Node *) linitial_node(TargetEntry, inner->input_tlist)->expr;

		if (pair)
		{
			Assert(by_pair(op));
			ig.restrict_rti = ((Var *) k1expr)->varno;
			ig.restrict_attno = ((Var *) k1expr)->varattno;
			ig.restrict_attno2 = ((Var *) lsecond_node(TargetEntry, inner->input_tlist)->expr)->varattno;
			ig.restrict_mode = mode;
			ig.restrict_keys = keys;
		}
		else if (IsA(k1expr, Var) && ((Var *) k1expr)->varlevelsup == 0 &&
				 preserved_scan(inner->tree, ((Var *) k1expr)->varno))
		{
			ig.restrict_rti = ((Var *) k1expr)->varno;
			ig.restrict_attno = ((Var *) k1expr)->varattno;
			ig.restrict_keys = keys;
			ig.restrict_null = null_keys;
		}
	}
	if (input == NULL && dtree != NULL && keys != NULL)
		dtree = keyed_delta_sql(&ig, op, dtree, keys, mode);
	by_sums = input == NULL && dtree != NULL && old_by_sums(op);
	if (by_sums)
	{
		/* (OLD per group: the sums of NEW less the delta's, old_by_sums) */
		char	   *ncols = chop(col_list(inner->tree, "n"));

		resetStringInfo(&buf);
		appendStringInfo(&buf, "SELECT %s FROM (SELECT %s, 1::pg_catalog.int8 AS dv_weight FROM (%s) n "
						 "UNION ALL SELECT %s, -x.dv_weight FROM %s x) d",
						 group_state_sums(&ig, op, group_state_aggs(op, &ok), "d.dv_weight * "),
						 ncols, rows_sql(&ig, inner->tree), chop(col_list(inner->tree, "x")), dtree);
	}
	else
		appendStringInfo(&buf, " FROM (%s) d", input ? input :
						 dtree ? old_rows_sql(&ig, inner->tree, dtree) : rows_sql(&ig, inner->tree));
	ig.restrict_rti = 0;
	ig.restrict_attno2 = 0;

	/*
	 * (by pair: the scan's rows and the delta's, restricted by both keys,
	 * are those of the affected groups already, exactly: no condition on
	 * the groups' keys again, a second semi-join to plan and run)
	 */
	if (pair)
		;
	else if (keys)
	{
		Node	   *k1expr = (Node *) linitial_node(TargetEntry, inner->input_tlist)->expr;
		char	   *k1 = deparse(&ig, k1expr, inner->tree, "d", NULL, NULL);

		/*
		 * (the type's own equality, named with its schema: a bare IN under
		 * the refresh's search_path would find another one, such as text's
		 * for citext, and miss rows of the group)
		 */
		char	   *eq = dv_equality_operator(exprType(k1expr));

		if (null_keys)
			appendStringInfo(&buf, " WHERE %s AND EXISTS (SELECT FROM %s k WHERE %s)",
							 dv_null_test_sql(k1, exprType(k1expr)), keys,
							 dv_null_test_sql("k.k1", exprType(k1expr)));
		else
			appendStringInfo(&buf, " WHERE (%s) %s ANY (SELECT k.k1 FROM %s k)", k1, eq ? eq : "=", keys);
	}
	if (by_sums)
	{
		List	   *aggs = group_state_aggs(op, &ok);

		appendStringInfoString(&buf, " GROUP BY ");
		for (int i = 1; i <= list_length(inner->input_tlist); i++)
			appendStringInfo(&buf, "%s%d", i > 1 ? ", " : "", i);
		return group_state_rows(g, op, aggs, group_state_values(op, aggs, psprintf("(%s)", buf.data), ""));
	}
	if (inner->kind == DV_PLAN_GROUPED && gq->groupingSets)
		appendStringInfo(&buf, " GROUP BY %s", grouping_sets_sql(&ig, gq, inner->tree));
	else if (inner->kind == DV_PLAN_GROUPED && gq->groupClause)
	{
		appendStringInfoString(&buf, " GROUP BY ");
		foreach(lc, gq->groupClause)
			appendStringInfo(&buf, "%s%s", foreach_current_index(lc) ? ", " : "",
							 deparse(&ig, (Node *) get_sortgroupclause_expr(lfirst(lc), gq->targetList),
									 inner->tree, "d", NULL, NULL));
	}
	if (inner->kind == DV_PLAN_GROUPED && gq->havingQual)
		appendStringInfo(&buf, " HAVING %s", deparse(&ig, gq->havingQual, inner->tree, "d", NULL, NULL));
	/* (DISTINCT ON: the first row of each value in the level's order) */
	if (inner->kind == DV_PLAN_GROUPED && gq->hasDistinctOn)
	{
		appendStringInfoString(&buf, " ORDER BY ");
		foreach(lc, gq->sortClause)
		{
			SortGroupClause *sgc = lfirst_node(SortGroupClause, lc);

			appendStringInfo(&buf, "%s%s USING %s NULLS %s", foreach_current_index(lc) ? ", " : "",
							 deparse(&ig, (Node *) get_sortgroupclause_expr(sgc, gq->targetList),
									 inner->tree, "d", NULL, NULL),
							 dv_operator_sql(sgc->sortop), sgc->nulls_first ? "FIRST" : "LAST");
		}
	}
	if (inner->node_topn)
		return topn_rows_sql(op, gq, buf.data);
	return buf.data;
}

static char *reach_group_sql(DvGen *g, DvOp *join);

static char *
rows_sql(DvGen *g, DvOp *op)
{
	StringInfoData buf;

	/*
	 * (computed once in a WITH entry: a subquery operator by its delta,
	 * global_extreme_delta, or a scan a partner filter shares, shared_rows)
	 */
	if (shared_name(g, op) != NULL)
		return psprintf("SELECT * FROM %s", shared_name(g, op));
	initStringInfo(&buf);
	switch (op->kind)
	{
		case DV_OP_SCAN:
			{
				DvPlanSource *src = op->source;
				ListCell   *lc;
				ListCell   *ln;

				appendStringInfoString(&buf, "SELECT ");
				forboth(lc, op->cols, ln, src->columns)
					appendStringInfo(&buf, "%ss.%s AS %s", foreach_current_index(lc) ? ", " : "",
									 quote_identifier(strVal(lfirst(ln))), col_name(lfirst(lc)));
				appendStringInfo(&buf, " FROM %s%s s", src->only ? "ONLY " : "", src->qualified);
				if (scan_restriction(g, op, "s"))
					appendStringInfo(&buf, " WHERE %s", scan_restriction(g, op, "s"));
				if (g->reach_rti != 0 && src->rtindex == g->reach_rti)
				{
					forboth(lc, op->cols, ln, src->columns)
					{
						if (((DvOpCol *) lfirst(lc))->attno == g->reach_attno)
						{
							appendStringInfo(&buf, " %s s.%s %s ANY (%s) OFFSET 0",
											 scan_restriction(g, op, "s") ? "AND" : "WHERE",
											 quote_identifier(strVal(lfirst(ln))), g->reach_op, g->reach_array);
							g->reach_done = true;
						}
					}
				}
				break;
			}
		case DV_OP_GROUP:
			{
				/*
				 * (its input unchanged: the aggregate over the extreme rows
				 * it keeps, as at the data snapshot)
				 */
				if (reads_state(op) && !has_delta(op) && !is_group_state(op))
					return extreme_aggrefs(op) == NIL
						? psprintf("SELECT * FROM %s", state_qualified(op))
						: group_sql_over(g, op, NULL, NULL, false,
										 psprintf("SELECT %s FROM %s x", chop(col_list(op->inner->tree, "x")),
												  state_qualified(op)));

				/*
				 * An aggregate without GROUP BY (one row, such as an
				 * uncorrelated scalar subquery made a join): computed once
				 * per statement, a CTE kept whole, not again for each row
				 * of a nested loop it is joined to.
				 */
				if (op->inner->kind == DV_PLAN_GROUPED && op->inner->input_tlist == NIL &&
					!op->inner->window_node)
				{
					char	   *name = add_cte_as(g, group_sql(g, op, NULL, NULL, false), true);

					*g->new_ctes = lappend(*g->new_ctes, list_make2(op, name));
					return psprintf("SELECT * FROM %s", name);
				}
				return group_sql(g, op, NULL, NULL, false);
			}
		case DV_OP_FUNC:
			{
				ListCell   *lc;

				appendStringInfoString(&buf, "SELECT * FROM ROWS FROM (");
				foreach(lc, op->func->functions)
					appendStringInfo(&buf, "%s%s", foreach_current_index(lc) ? ", " : "",
									 deparse(g, lfirst_node(RangeTblFunction, lc)->funcexpr,
											 g->lateral_left, g->lateral_alias, NULL, NULL));
				appendStringInfo(&buf, ")%s f(%s)", op->func->funcordinality ? " WITH ORDINALITY" : "",
								 chop(col_list_bare(op)));
				break;
			}
		case DV_OP_FILTER:
			/* (its rows now kept in a filter state: the same rows, dv_optree_state_new_sql) */
			if (reads_filter_state(g, op))
			{
				appendStringInfo(&buf, "SELECT * FROM %s", state_qualified(op));
				/* (restricted as the scan would be: the key's values, reach_restrict) */
				if (reads_filter_state_reached(g, op))
				{
					appendStringInfo(&buf, " s WHERE s.%s %s ANY (%s) OFFSET 0", col_name(filter_state_key(op)),
									 g->reach_op, g->reach_array);
					g->reach_done = true;
				}
				break;
			}
			/* (the OR above applies it: a build's input leaves it to the planner) */
			if (leave_implied_filters && op->implied)
			{
				appendStringInfoString(&buf, rows_sql(g, op->left));
				break;
			}
			appendStringInfo(&buf, "SELECT * FROM (%s) f WHERE %s", rows_sql(g, op->left),
							 deparse_quals(g, op->quals, op->left, "f", NULL, NULL));
			break;
		case DV_OP_JOIN:
			{
				const char *theta = deparse_quals(g, op->quals, op->left, "l", op->right, "r");

				List	   *rest;
				OpExpr	   *t = op->jointype == JOIN_ANTI ? not_in_test(op->quals, op->left, op->right, &rest) : NULL;

				if (t)
				{
					/* NOT IN: no row where x = y, x is not NULL unless nothing matches, no y NULL */
					char	   *r = rows_sql(g, op->right);
					const char *and_rest = quals_and(g, rest, op->left, "l", op->right, "r");

					appendStringInfo(&buf, "SELECT * FROM (%s) l WHERE NOT EXISTS (SELECT FROM (%s) r WHERE %s%s) "
									 "AND NOT (%s AND EXISTS (SELECT FROM (%s) r WHERE %s)) "
									 "AND NOT EXISTS (SELECT FROM (%s) r WHERE %s%s)",
									 rows_sql(g, op->left), r, and_rest,
									 deparse(g, (Node *) t, op->left, "l", op->right, "r"),
									 dv_null_test_sql(deparse(g, linitial(t->args), op->left, "l", NULL, NULL),
													  exprType(linitial(t->args))),
									 r, rest ? deparse_quals(g, rest, op->left, "l", op->right, "r") : "true",
									 r, and_rest,
									 dv_null_test_sql(deparse(g, lsecond(t->args), op->right, "r", NULL, NULL),
													  exprType(lsecond(t->args))));
					break;
				}
				if (op->jointype == JOIN_SEMI || op->jointype == JOIN_ANTI)
				{
					char	   *r = partner_rows_sql(g, op);

					appendStringInfo(&buf, "SELECT * FROM (%s) l WHERE %sEXISTS (SELECT FROM %s r WHERE %s)",
									 rows_sql(g, op->left), op->jointype == JOIN_ANTI ? "NOT " : "",
									 r ? r : psprintf("(%s)", rows_sql(g, op->right)), theta);
					break;
				}
				{
					char	   *l;
					char	   *r;

					/* (the left side first: reach_group_sql needs to know its scan was restricted) */
					g->reach_done = false;
					l = rows_sql(g, op->left);
					r = reach_group_sql(g, op);
					if (r == NULL)
						r = partner_rows_sql(g, op);
					appendStringInfo(&buf, "SELECT %s FROM (%s) l %s JOIN %s r ON %s",
									 chop(psprintf("%s%s", col_list(op->left, "l"), col_list(op->right, "r"))),
									 l,
									 op->jointype == JOIN_LEFT ? "left" : op->jointype == JOIN_RIGHT ? "right" :
									 op->jointype == JOIN_FULL ? "full" : "inner",
									 r ? r : right_sql(g, op->right, op->left, "l"), theta);
				}
				break;
			}
	}
	return buf.data;
}

static char *delta_cte(DvGen *g, DvOp *op);
static void group_delta(DvGen *g, DvOp *op, StringInfo terms);
static char *add_cte(DvGen *g, const char *sql);
static List *extreme_aggrefs(DvOp *op);
static void global_extreme_delta(DvGen *g, DvOp *op, DvGen *ig, const char *d, List *aggrefs, StringInfo terms);
static void state_extreme_delta(DvGen *g, DvOp *op, StringInfo terms);
static void value_state_delta(DvGen *g, DvOp *op, StringInfo terms);

/*
 * group_key_attno - the output column (resno) of the subquery operator op
 * that is its first group key (the first key of its input's delta), or 0
 * if it has no keys or outputs none as a plain column.
 */
static AttrNumber
group_key_attno_n(DvOp *op, int n)
{
	DvPlan	   *inner = op->inner;
	Query	   *gq;
	Node	   *k1;
	ListCell   *lc;

	if (op->kind != DV_OP_GROUP || inner->kind != DV_PLAN_GROUPED || list_length(inner->input_tlist) <= n ||
		inner->node_topn)
		return 0;
	gq = inner->grouped_level;
	k1 = plain_var_mutator((Node *) list_nth_node(TargetEntry, inner->input_tlist, n)->expr, NULL);
	foreach(lc, gq->targetList)
	{
		TargetEntry *te = lfirst_node(TargetEntry, lc);

		if (!te->resjunk && equal(plain_var_mutator((Node *) te->expr, NULL), k1))
			return te->resno;
	}
	return 0;
}

static AttrNumber
group_key_attno(DvOp *op)
{
	return group_key_attno_n(op, 0);
}

static Node *group_key_match_n(DvOp *grp, DvOp *other, List *quals, Oid *opno, int n);

static Node *
group_key_match(DvOp *grp, DvOp *other, List *quals, Oid *opno)
{
	return group_key_match_n(grp, other, quals, opno, 0);
}

/*
 * group_key_match_n - a condition of the join (quals) "e = key", key the
 * first group key of the grouped subquery operator grp and e an expression
 * of the row of the join's other side (operator other) alone, compared by
 * the key type's own (strict) equality under a collation that agrees with
 * the group's: then only a group whose key is some e can join a row of
 * other.  Returns e (and its operator in *opno), or NULL if no condition is
 * such.  Of the group key numbered n from 0 (group_key_match: the first).
 */
static Node *
group_key_match_n(DvOp *grp, DvOp *other, List *quals, Oid *opno, int n)
{
	AttrNumber	kattno = group_key_attno_n(grp, n);
	int			rti;
	ListCell   *lc;

	if (kattno == 0)
		return NULL;
	rti = bms_singleton_member(grp->rels);
	foreach(lc, quals)
	{
		OpExpr	   *e = (OpExpr *) lfirst(lc);
		Node	   *a;
		Node	   *b;
		Bitmapset  *avars;

		if (!IsA(e, OpExpr) || list_length(e->args) != 2)
			continue;
		a = linitial(e->args);
		b = lsecond(e->args);
		if (IsA(a, Var) && ((Var *) a)->varno == rti && ((Var *) a)->varlevelsup == 0)
		{
			Node	   *t = a;

			a = b;
			b = t;
		}
		if (!IsA(b, Var) || ((Var *) b)->varno != rti || ((Var *) b)->varattno != kattno ||
			((Var *) b)->varlevelsup != 0)
			continue;
		avars = expr_varnos(a);
		if (avars == NULL || !bms_is_subset(avars, other->rels) || has_outer_refs(a) ||
			contain_volatile_functions(a) || checkExprHasSubLink(a) || exprType(a) != exprType(b) ||
			e->opno != lookup_type_cache(exprType(b), TYPECACHE_EQ_OPR)->eq_opr ||
			!func_strict(get_opcode(e->opno)) ||
			!same_equality(e->inputcollid, exprCollation(b)))
			continue;
		*opno = e->opno;
		return a;
	}
	return NULL;
}

/*
 * keyed_group_sql - "(rows)" of the grouped subquery operator grp, a side
 * of a join whose other side is read as its delta (relation dother, the
 * rows of operator other): when the join equates grp's first group key
 * with an expression e of other's row (group_key_match), only the groups
 * whose key is some e of the delta can join it, so only those are computed
 * (group_sql over the keys of the delta: the subquery's input restricted
 * by them, through an index on the key where there is one) instead of
 * every group of the subquery.  NULL if the join has no such condition.
 * A subquery that finds its groups by its first two keys (by_pair) and
 * whose second key the join equates with an expression e2 of other's row
 * as well is computed for the delta's pairs (e, e2) only (KEYS_PAIR: its
 * index looked up by both keys; TPC-H Q20's changed partsupp rows: the
 * lineitems of each (part, supplier), not of each part, a fourth of them).
 */
static char *
keyed_group_sql(DvGen *g, DvOp *grp, DvOp *other, const char *dother, List *quals)
{
	Oid			opno;
	Oid			opno2;
	Node	   *e = group_key_match(grp, other, quals, &opno);
	Node	   *e2;

	if (e == NULL)
		return NULL;
	e2 = by_pair(grp) ? group_key_match_n(grp, other, quals, &opno2, 1) : NULL;
	if (e2 != NULL)
		return psprintf("(%s)", group_sql(g, grp, NULL,
										  add_cte(g, psprintf("SELECT DISTINCT %s AS k1, %s AS k2 FROM %s o",
															  deparse(g, e, other, "o", NULL, NULL),
															  deparse(g, e2, other, "o", NULL, NULL), dother)),
										  KEYS_PAIR));
	return psprintf("(%s)", group_sql(g, grp, NULL,
									  add_cte(g, psprintf("SELECT DISTINCT %s AS k1 FROM %s o",
														  deparse(g, e, other, "o", NULL, NULL), dother)),
									  false));
}

/*
 * partner_scan - the scan under filters only (bare_scan) of left whose
 * columns e (an expression of left's row) reads, when left's rows keep
 * that scan's rows (preserved_scan: filters, inner joins, the preserved
 * side of outer, semi- and anti-joins), or NULL.  Every row of left, now
 * or as it was, then holds a row of that scan, now or as it was, with the
 * same e: the keys e takes over left's rows are among those it takes over
 * the scan's rows now and the rows of left's delta (a row left no longer
 * has is in that delta).
 */
static DvOp *
partner_scan(DvOp *left, Node *e)
{
	Bitmapset  *varnos = expr_varnos(e);
	int			rti;
	DvOp	   *op = left;

	if (bms_membership(varnos) != BMS_SINGLETON)
		return NULL;
	rti = bms_singleton_member(varnos);
	if (!preserved_scan(left, rti))
		return NULL;
	for (;;)
	{
		if (bare_scan(op))
		{
			DvOp	   *scan = op;

			while (scan->kind == DV_OP_FILTER)
				scan = scan->left;
			return scan->source->rtindex == rti ? op : NULL;
		}
		if (op->kind == DV_OP_FILTER)
			op = op->left;
		else if (op->kind == DV_OP_JOIN && op->jointype == JOIN_INNER)
			op = preserved_scan(op->left, rti) ? op->left : op->right;
		else if (op->kind == DV_OP_JOIN && op->jointype == JOIN_RIGHT)
			op = op->right;
		else if (op->kind == DV_OP_JOIN)
			op = op->left;
		else
			return NULL;
	}
}

/*
 * partner_keys_filter - for the delta of the grouped subquery operator
 * right, the right side of a join whose rows it only matches (inner, left,
 * semi- and anti-join: a group that joins no row of the left side adds
 * nothing to the join's delta), with a condition "e = key"
 * (group_key_match): the condition on its affected keys (alias k, first
 * key k1) that some row of the left side, now (NEW) or in its delta (the
 * rows it had and no longer has), has e = k1.  A changed group that no row
 * of the left side can join is then not recomputed at all.  NULL if there
 * is no such condition.  When e reads one scan of the left side whose rows
 * the left side keeps (partner_scan), the rows now are that scan's (a
 * superset of the keys: a changed group kept in vain is recomputed, and
 * its change joins no row), read by key as the scan alone (TPC-H Q17:
 * part by part_pkey for each changed part, not also lineitem), or, when
 * the left side's delta read the scan whole, from that read (shared_rows);
 * when it read the scan for its keys in one keyed read (keyed_shared_rows),
 * from that read for the keys among them, by key for the others.
 * The keys of the rows of the left side's delta are tested apart, by
 * *delta_filter ("k.k1 = ANY (its keys)"; NULL if there is no delta): the
 * caller takes the keys that pass either in a UNION, so that each test is
 * a semi-join the planner hashes (TPC-H Q18 at scale factor 1: 1,500
 * changed orders, an EXISTS over the delta's 15,000 rows under an OR read
 * them again for each of the 3,000 changed keys, 1.8 s of a 2.1 s refresh).
 */
static char *
partner_keys_filter(DvGen *g, DvOp *join, const char *dl, const char **delta_filter)
{
	Oid			opno;
	Node	   *e;
	DvOp	   *now;
	char	   *eq;

	*delta_filter = NULL;
	if (join->jointype != JOIN_INNER && join->jointype != JOIN_LEFT &&
		join->jointype != JOIN_SEMI && join->jointype != JOIN_ANTI)
		return NULL;
	e = group_key_match(join->right, join->left, join->quals, &opno);
	if (e == NULL)
		return NULL;
	now = partner_scan(join->left, e);
	if (now == NULL)
		now = join->left;

	/*
	 * (read whole once already, shared_rows: its keys and the delta's as one
	 * set, a semi-join the planner hashes, spilling if need be, where an
	 * EXISTS inside an OR would be a subplan, hashed only if it fits in
	 * memory and else scanning the entry again for each key)
	 */
	if (now != join->left && shared_name(g, now) != NULL)
	{
		char	   *se = deparse(g, e, now, "o", NULL, NULL);

		return psprintf("k.k1 %s ANY (SELECT %s FROM (%s) o%s)", dv_operator_sql(opno), se, new_sql(g, now),
						dl ? psprintf(" UNION ALL SELECT %s FROM %s o",
									  deparse(g, e, join->left, "o", NULL, NULL), dl) : "");
	}
	eq = psprintf("(%s) %s k.k1", deparse(g, e, now, "o", NULL, NULL), dv_operator_sql(opno));

	/*
	 * (read by key once already, keyed_shared_rows: a key among the keys
	 * read has its rows there, as the whole read would; a key of the left
	 * side's delta passes; any other is probed.  The same equality, whose
	 * transitivity makes "k1 = x" and "v = k1" give "v = x", of one type)
	 */
	if (now != join->left && now == g->keyed_op && g->keyed_rows != NULL && IsA(e, Var) &&
		((Var *) e)->varno == g->keyed_var->varno && ((Var *) e)->varattno == g->keyed_var->varattno &&
		((Var *) e)->varlevelsup == 0 && opno == g->keyed_opno &&
		(!OidIsValid(exprCollation(e)) || get_collation_isdeterministic(exprCollation(e))))
	{
		char	   *se = deparse(g, e, now, "o", NULL, NULL);

		g->keys_split_seen = psprintf("k.k1 %s ANY (SELECT %s FROM %s o%s)",
									  dv_operator_sql(opno), se, g->keyed_rows,
									  dl ? psprintf(" UNION ALL SELECT %s FROM %s o",
													deparse(g, e, join->left, "o", NULL, NULL), dl) : "");
		g->keys_split_unread = psprintf("NOT (k.k1 %s ANY (SELECT p.k1 FROM %s p))",
										dv_operator_sql(opno), g->keyed_keys);
		g->keys_split_probe = psprintf("EXISTS (SELECT FROM (%s) o WHERE %s OFFSET 0)", new_sql(g, now), eq);
		return psprintf("(%s OR (%s AND %s))", g->keys_split_seen, g->keys_split_unread, g->keys_split_probe);
	}

	/*
	 * (where the left side's delta probed that scan by key, probe_rows
	 * having counted these probes too, the filter probes it by key as well:
	 * OFFSET 0 keeps the planner from hashing the scan read whole instead)
	 */
	if (dl != NULL)
		*delta_filter = psprintf("k.k1 %s ANY (SELECT %s FROM %s o)", dv_operator_sql(opno),
								 deparse(g, e, join->left, "o", NULL, NULL), dl);
	return psprintf("EXISTS (SELECT FROM (%s) o WHERE %s%s)", new_sql(g, now), eq,
					g->share_probed ? " OFFSET 0" : "");
}

/*
 * semi_demand - for the semi-join semi whose right side is a filtered
 * scan (bare_scan under a filter) matched by a condition "a = b", a a
 * column of the left side, b one of the right side's scan, both of one
 * type under its own strict equality: when the left side is an inner join
 * equating a with the first group key of a grouped subquery on its right
 * (group_key_match), sets g->demand_op to that join and g->demand_test to
 * the condition on that key (its delta's rows as d) that some row of the right side, now or
 * in its delta dr, has b equal to it.  The semi-join reads its left side's
 * delta only for the rows that matched before (exist_terms: m - s > 0),
 * and a row whose a has no match now nor in dr matched nothing before:
 * every row of the join's delta with such a key (the key equals a in every
 * row that joins it) adds nothing, so the changed groups of the subquery
 * are cut to those keys before the join looks up their left rows (TPC-H
 * Q20: the changed (part, supplier) groups of lineitem tested against the
 * forest parts by part_pkey, 90% dropped, before the partsupp lookup).
 */
static void
semi_demand(DvGen *g, DvOp *semi, const char *dr)
{
	DvOp	   *join = semi->left;
	DvOp	   *right = semi->right;
	Oid			opno;
	Node	   *e;
	ListCell   *lc;

	if (join->kind != DV_OP_JOIN || join->jointype != JOIN_INNER || join->right == NULL ||
		join->right->kind != DV_OP_GROUP || !has_delta(join->right) ||
		right->kind != DV_OP_FILTER || !bare_scan(right))
		return;
	e = group_key_match(join->right, join->left, join->quals, &opno);
	if (e == NULL || !IsA(e, Var))
		return;
	foreach(lc, semi->quals)
	{
		OpExpr	   *q = (OpExpr *) lfirst(lc);
		Node	   *a;
		Node	   *b;
		Var		   *key;
		char	   *bs;
		char	   *x;

		if (!IsA(q, OpExpr) || list_length(q->args) != 2 || q->opno != opno)
			continue;
		a = linitial(q->args);
		b = lsecond(q->args);
		if (!IsA(a, Var) || ((Var *) a)->varno != ((Var *) e)->varno)
		{
			Node	   *t = a;

			a = b;
			b = t;
		}
		if (!IsA(a, Var) || ((Var *) a)->varno != ((Var *) e)->varno ||
			((Var *) a)->varattno != ((Var *) e)->varattno || ((Var *) a)->varlevelsup != 0 ||
			!IsA(b, Var) || ((Var *) b)->varlevelsup != 0 ||
			!bms_is_member(((Var *) b)->varno, right->rels) ||
			exprType(b) != exprType(e) || !same_equality(q->inputcollid, exprCollation(e)))
			continue;
		key = makeVar(bms_singleton_member(join->right->rels), group_key_attno(join->right),
					  exprType(e), exprTypmod(e), exprCollation(e), 0);
		bs = deparse(g, b, right, "o", NULL, NULL);
		x = deparse(g, (Node *) key, join->right, "d", NULL, NULL);
		g->demand_op = join;
		g->demand_test = psprintf("(EXISTS (SELECT FROM (%s) o WHERE %s %s %s)%s%s%s)",
								  new_sql(g, right), bs, dv_operator_sql(opno), x,
								  dr ? psprintf(" OR EXISTS (SELECT FROM %s o WHERE ", dr) : "",
								  dr ? psprintf("%s %s %s", bs, dv_operator_sql(opno), x) : "",
								  dr ? ")" : "");
		g->demand_key_test = psprintf("(EXISTS (SELECT FROM (%s) o WHERE %s %s k.k1)%s%s%s)",
									  new_sql(g, right), bs, dv_operator_sql(opno),
									  dr ? psprintf(" OR EXISTS (SELECT FROM %s o WHERE ", dr) : "",
									  dr ? psprintf("%s %s k.k1", bs, dv_operator_sql(opno)) : "",
									  dr ? ")" : "");
		return;
	}
}

/* the WITH entry holding op's rows now (registered in g->new_ctes), or NULL */
static const char *
shared_name(DvGen *g, DvOp *op)
{
	ListCell   *lc;

	foreach(lc, *g->new_ctes)
	{
		if (linitial(lfirst(lc)) == op)
			return lsecond(lfirst(lc));
	}
	return NULL;
}

/*
 * shared_rows - "(rows)" now of the scan bare (g->share_op), read whole by
 * a term of a join's delta: a MATERIALIZED WITH entry, registered in
 * g->new_ctes, so that the partner filter (partner_keys_filter), and any
 * other reading of its rows now in the statement, reads the rows of that
 * one read instead of the source again (TPC-H Q17 at scale factor 1: part
 * read whole for the 12,000 changed lineitems, then probed once more by
 * key for each of their 12,000 parts; now the 200 parts of one brand and
 * container the read kept, hashed).  The entry holds the rows the read
 * kept; a term reading them joins them as it would the scan.
 */
static char *
shared_rows(DvGen *g, DvOp *bare)
{
	char	   *name = add_cte_as(g, rows_sql(g, bare), true);

	*g->new_ctes = lappend(*g->new_ctes, list_make2(bare, name));
	return psprintf("(SELECT * FROM %s)", name);
}

/*
 * reach_group_sql - "(rows)" now of the grouped subquery operator
 * join->right of an inner or left join whose left side was just written
 * restricted by reach_restrict (g->reach_done: its scan of range table
 * entry reach_rti kept only the rows whose column reach_attno is some x of
 * a delta) when the join equates that same column with the subquery's
 * first group key k1 (group_key_match) by the same equality: every row of
 * the left side then has a v among the x, so only the groups whose k1 is
 * one of them can join it, and only those are computed (group_sql over the
 * delta's x: its input restricted by them, through an index on the key
 * where there is one).  Not for a subquery that keeps a state: its groups
 * read from the state by key made TPC-H Q20's change of parts 3x dearer
 * than the state read whole (bench/README.md, twelfth session, s12-q20; the
 * plan not traced).  This is
 * the term of a semi-join that matches its right side's delta with its
 * left side now (exist_terms): TPC-H Q20's changed forest parts find their
 * partsupp rows by part and the year's quantities of those parts only, not
 * every (part, supplier) group of the year's lineitems.  For a left join a
 * left row whose group was not computed has none: its k1 would be among
 * the x.  NULL if the rule does not apply.  Only where the equality is the
 * same operator for both (so the x of a key k1 = v = x are equal to it by
 * its transitivity) and, for a collatable type, under a deterministic
 * collation, and a restriction that names its values as a relation
 * (reach_keys; reach_set).
 */
static char *
reach_group_sql(DvGen *g, DvOp *join)
{
	Oid			opno;
	Node	   *e;
	Oid			coll;

	if (g->reach_rti == 0 || !g->reach_done || g->reach_keys == NULL ||
		join->right->kind != DV_OP_GROUP || reads_group_state(join->right) ||
		(join->jointype != JOIN_INNER && join->jointype != JOIN_LEFT) ||
		!preserved_scan(join->left, g->reach_rti))
		return NULL;
	e = group_key_match(join->right, join->left, join->quals, &opno);
	if (e == NULL || !IsA(e, Var) || ((Var *) e)->varno != g->reach_rti ||
		((Var *) e)->varattno != g->reach_attno || ((Var *) e)->varlevelsup != 0 ||
		opno != g->reach_opno)
		return NULL;
	coll = exprCollation(e);
	if (OidIsValid(coll) && !get_collation_isdeterministic(coll))
		return NULL;
	return psprintf("(%s)", group_sql(g, join->right, NULL, add_cte(g, g->reach_keys), false));
}

/*
 * partner_rows_sql - "(rows)" now of the grouped subquery operator
 * join->right that keeps no state because it is partner-bounded
 * (partner_bounded: the join equates its only group key k1 with an
 * expression e of the left side, whose rows are filtered by constants):
 * only the groups whose key is some e of the left side's rows now can
 * match a row, so only those are computed (group_sql over those keys: its
 * input restricted by them, through an index on the key where there is
 * one) instead of every group of the subquery.  The others would join no
 * row (e = k1 is strict: no NULL key matches either).  This is the initial
 * build's and every NEW(left) join NEW(right) term's (TPC-H Q17: the
 * average quantity of the parts of one brand and container, not of every
 * part, as PostgreSQL's correlated subplan computes it).  NULL if the
 * rule does not apply.
 */
static char *
partner_rows_sql(DvGen *g, DvOp *join)
{
	Oid			opno;
	Node	   *e;

	if (join->right->kind != DV_OP_GROUP || reads_group_state(join->right) || !partner_bounded(join))
		return NULL;
	e = group_key_match(join->right, join->left, join->quals, &opno);
	if (e == NULL)
		return NULL;
	return psprintf("(%s)", group_sql(g, join->right, NULL,
									  add_cte(g, psprintf("SELECT DISTINCT %s AS k1 FROM (%s) o",
														  deparse(g, e, join->left, "o", NULL, NULL),
														  new_sql(g, join->left))),
									  false));
}

/*
 * not_in_test - the "(x = y) IS NOT FALSE" that NOT IN became
 * (dv_optree_convert_sublinks), when x reads only keep's side and y only
 * other's and "=" is strict; *rest gets the other conditions.  Such a
 * condition is never hashed nor indexed, so its rows are found as those
 * where x = y, or x is NULL, or y is NULL (the same rows: a strict "=" is
 * NULL exactly when an argument is).  NULL if there is none.
 */
static OpExpr *
not_in_test(List *quals, DvOp *keep, DvOp *other, List **rest)
{
	OpExpr	   *found = NULL;
	ListCell   *lc;

	*rest = NIL;
	foreach(lc, quals)
	{
		BooleanTest *bt = (BooleanTest *) lfirst(lc);
		OpExpr	   *op;

		if (found == NULL && IsA(bt, BooleanTest) && bt->booltesttype == IS_NOT_FALSE &&
			IsA(bt->arg, OpExpr) && list_length(((OpExpr *) bt->arg)->args) == 2 &&
			func_strict(get_opcode(((OpExpr *) bt->arg)->opno)) &&
			bms_is_subset(expr_varnos(linitial(((OpExpr *) bt->arg)->args)), keep->rels) &&
			bms_is_subset(expr_varnos(lsecond(((OpExpr *) bt->arg)->args)), other->rels) &&
			!contain_volatile_functions((Node *) bt->arg))
		{
			op = (OpExpr *) bt->arg;
			found = op;
			continue;
		}
		*rest = lappend(*rest, lfirst(lc));
	}
	return found;
}

/*
 * reach_sql - the condition on keep's row (alias k) that a row of other's
 * delta (relation dother, alias o) matches it by quals: EXISTS, or for an
 * uncorrelated NOT IN test "x = ANY (y of the delta)" (hashed), x NULL and
 * a delta, or a NULL y in the delta.
 */
static char *
reach_sql(DvGen *g, DvOp *keep, DvOp *other, const char *dother, List *quals)
{
	List	   *rest;
	OpExpr	   *t = not_in_test(quals, keep, other, &rest);

	if (t == NULL || rest != NIL)
		return psprintf("EXISTS (SELECT FROM %s o WHERE %s)", dother,
						deparse_quals(g, quals, keep, "k", other, "o"));
	return psprintf("((%s) %s ANY (SELECT %s FROM %s o) OR (%s AND EXISTS (SELECT FROM %s o)) "
					"OR EXISTS (SELECT FROM %s o WHERE %s))",
					deparse(g, linitial(t->args), keep, "k", NULL, NULL), dv_operator_sql(t->opno),
					deparse(g, lsecond(t->args), other, "o", NULL, NULL), dother,
					dv_null_test_sql(deparse(g, linitial(t->args), keep, "k", NULL, NULL),
									 exprType(linitial(t->args))), dother,
					dother, dv_null_test_sql(deparse(g, lsecond(t->args), other, "o", NULL, NULL),
											 exprType(lsecond(t->args))));
}

/*
 * delta_rows_under - the rows of the windows of the sources under op (an
 * upper bound of the size of its delta but for joins), -1 if one is unknown
 */
static int64
delta_rows_under(DvOp *op)
{
	int64		l;
	int64		r;
	int64		n = 0;
	ListCell   *lc;

	switch (op->kind)
	{
		case DV_OP_SCAN:
			return op->source->delta_rows;
		case DV_OP_FILTER:
			return delta_rows_under(op->left);
		case DV_OP_JOIN:
			l = delta_rows_under(op->left);
			r = delta_rows_under(op->right);
			return l < 0 || r < 0 ? -1 : l + r;
		case DV_OP_FUNC:
			return 0;
		case DV_OP_GROUP:
			foreach(lc, op->inner->sources)
			{
				int64		d = ((DvPlanSource *) lfirst(lc))->delta_rows;

				if (d < 0)
					return -1;
				n += d;
			}
			return n;
	}
	return -1;
}

/*
 * reach_set - restrict the scan of range table entry rti to the rows whose
 * column attno is "opno ANY (array_sql)" when rows_sql next writes it
 * (g->reach_*; reach_reset undoes it); keys_sql, "SELECT DISTINCT x AS k1
 * FROM ...", the same values as a relation for reach_group_sql, or NULL.
 * g->reach_done is left as it is.  Allocates in the current memory context.
 */
static void
reach_set(DvGen *g, int rti, AttrNumber attno, Oid opno, const char *array_sql, const char *keys_sql)
{
	g->reach_rti = rti;
	g->reach_attno = attno;
	g->reach_op = dv_operator_sql(opno);
	g->reach_opno = opno;
	g->reach_array = array_sql;
	g->reach_keys = keys_sql;
}

/* reach_reset - undo reach_set: rows_sql writes scans unrestricted */
static void
reach_reset(DvGen *g)
{
	g->reach_rti = 0;
}

/*
 * reach_restrict - before the rows now of keep are written for a term that
 * matches them with the delta of other (relation dother, alias o) by quals:
 * when a condition of quals is "v = e", v a column of a scan whose rows
 * reach keep's as they are (preserved_scan), e an expression of other's
 * row alone and "=" a btree or hash equality, only rows whose v equals
 * some e of the delta can match, so that scan is restricted to
 * "v = ANY (ARRAY(SELECT e FROM dother o))" (g->reach_*; reach_reset
 * clears them).  The array is computed once, before the scan; the planner
 * does not know its size when it plans and assumes a few values, so it
 * looks each value up through an index on v where there is one, instead of
 * reading keep's rows whole and joining them with the delta by hash
 * (TPC-H Q21: the lineitems of the changed orders through lineitem's
 * primary key, not every lineitem of the query's suppliers).  The term
 * keeps its condition; this one only narrows what is read.  Only when v
 * leads an index (else the restricted scan would read the relation whole,
 * and a plan driven through another of its columns may be better).  Of
 * several such conditions, the one whose column has the fewest rows per
 * value (leading_rows_per_value: a unique column, else pg_statistic's
 * number of distinct values), so that the fewest rows are read: TPC-H Q9
 * reads partsupp by the changed lineitems' ps_partkey (4 rows a value),
 * not by their ps_suppkey (80 rows a value).  The restricted
 * scan is a subquery of its own (OFFSET 0), read once: else, as the inner
 * side of a nested loop driven by the delta, each of its loops would look
 * up every value of the array again besides the join's own key.  Only for a
 * delta of at most DV_REACH_MAX_ROWS rows of change (beyond, one index
 * descent per value costs more than reading the rows once).  Nor for a
 * relation that stays in shared buffers (probe_cheaper's resident) when
 * one descent for each of the delta's rows costs more than reading it
 * whole: the planner then hashes it, cut by the term's other conditions
 * first (TPC-H Q21's supplier, 10,000 rows, was looked up for each of the
 * 7,622 changed late lineitems, ~6,900 descents, before the nation filter
 * kept 1 in 25), unless keep holds a grouped subquery or a function
 * (dv_optree_has_groups), whose reached groups only are computed
 * through the restriction (reach_group_sql).
 */
#define DV_REACH_MAX_ROWS 100000

static bool probe_cheaper(Oid relid, double n, double distinct, double rows_per_value,
						  double index_pages, bool in_key_order, bool *resident);

/*
 * leading_rows_per_value - if relation relid has a valid, non-partial index
 * whose first column is attno, the number of its rows one value of attno
 * has on average (1 when a unique index has attno alone; else the
 * statistics' non-NULL rows per value, dv_rows_per_value, or reltuples
 * when they are unknown: the worst case); -1 when no such index exists.
 * With index_pages, *index_pages gets the pages of the smallest such index
 * (pg_class.relpages, at least 1).  Opens relid briefly (AccessShareLock).
 */
static double
leading_rows_per_value(Oid relid, AttrNumber attno, double *index_pages)
{
	Relation	rel = relation_open(relid, AccessShareLock);
	List	   *indexes = dv_index_tuples(rel);
	bool		found = false;
	bool		unique = false;
	double		result = -1;
	double		pages = -1;
	ListCell   *lc;

	foreach(lc, indexes)
	{
		Form_pg_index idx = (Form_pg_index) GETSTRUCT((HeapTuple) lfirst(lc));

		if (idx->indnkeyatts > 0 && idx->indkey.values[0] == attno)
		{
			HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(idx->indexrelid));

			found = true;
			if (idx->indisunique && idx->indnkeyatts == 1)
				unique = true;
			if (HeapTupleIsValid(tup))
			{
				double		p = Max((double) ((Form_pg_class) GETSTRUCT(tup))->relpages, 1.0);

				if (pages < 0 || p < pages)
					pages = p;
				ReleaseSysCache(tup);
			}
		}
	}
	list_free_deep(indexes);
	if (unique)
		result = 1.0;
	else if (found)
	{
		double		null_rows;
		double		rows = dv_rows_per_value(rel, attno, &null_rows);

		result = rows < 0 ? Max(rel->rd_rel->reltuples, 1.0) : Max(rows, 1.0);
	}
	relation_close(rel, AccessShareLock);
	if (index_pages)
		*index_pages = Max(pages, 1.0);
	return result;
}

/*
 * keyed_equality - is qual "v = x" (either way round) with v a column of
 * one of rels (a plain column of this query level) and x an expression of
 * other_rels' columns alone (no outer reference, volatile function or
 * subquery), "=" a btree or hash equality (so an index of v's relation can
 * serve it) under v's and x's collation?  Then *v, *x and *opno (the
 * operator as "v op x") are set.
 */
static bool
keyed_equality(Node *qual, Bitmapset *rels, Bitmapset *other_rels, Var **v_out, Node **x_out,
			   Oid *opno_out)
{
	OpExpr	   *e = (OpExpr *) qual;
	Node	   *v;
	Node	   *x;
	Oid			opno;
	Bitmapset  *xvars;

	if (!IsA(e, OpExpr) || list_length(e->args) != 2)
		return false;
	v = linitial(e->args);
	x = lsecond(e->args);
	opno = e->opno;
	if (!(IsA(v, Var) && bms_is_member(((Var *) v)->varno, rels)))
	{
		v = lsecond(e->args);
		x = linitial(e->args);
		opno = get_commutator(e->opno);
	}
	if (!IsA(v, Var) || ((Var *) v)->varlevelsup != 0 || ((Var *) v)->varattno <= 0 ||
		!bms_is_member(((Var *) v)->varno, rels) || !OidIsValid(opno))
		return false;
	xvars = expr_varnos(x);
	if (xvars == NULL || !bms_is_subset(xvars, other_rels) || has_outer_refs(x) ||
		contain_volatile_functions(x) || checkExprHasSubLink(x) ||
		!(op_mergejoinable(opno, exprType(v)) || op_hashjoinable(opno, exprType(v))) ||
		(OidIsValid(e->inputcollid) &&
		 (exprCollation(v) != e->inputcollid || exprCollation(x) != e->inputcollid)))
		return false;
	*v_out = (Var *) v;
	*x_out = x;
	*opno_out = opno;
	return true;
}

static void
reach_restrict(DvGen *g, DvOp *keep, DvOp *other, const char *dother, List *quals)
{
	int64		n;
	ListCell   *lc;
	double		best = -1;

	g->reach_rti = 0;
	if (dother == NULL || g->restrict_rti != 0)
		return;
	n = delta_rows_under(other);
	if (n < 0 || n > DV_REACH_MAX_ROWS)
		return;
	foreach(lc, quals)
	{
		Var		   *v;
		Node	   *x;
		Oid			opno;
		double		rows;
		double		index_pages;
		bool		resident;
		Oid			relid;
		char	   *xs;

		if (!keyed_equality(lfirst(lc), keep->rels, other->rels, &v, &x, &opno) ||
			!preserved_scan(keep, v->varno) ||
			rt_fetch(v->varno, g->q->rtable)->rtekind != RTE_RELATION ||
			!OidIsValid(get_array_type(exprType(x))))
			continue;
		relid = rt_fetch(v->varno, g->q->rtable)->relid;
		rows = leading_rows_per_value(relid, v->varattno, &index_pages);
		if (rows < 0 || (best >= 0 && rows >= best))
			continue;
		/* (a small relation the probes would cost more than reading: read whole) */
		if (!dv_optree_has_groups(keep) &&
			!probe_cheaper(relid, (double) n, (double) n, Max(rows, 1.0), index_pages, false, &resident) &&
			resident)
			continue;
		best = rows;
		xs = deparse(g, x, other, "o", NULL, NULL);
		reach_set(g, v->varno, v->varattno, opno, psprintf("ARRAY(SELECT %s FROM %s o)", xs, dother),
				  psprintf("SELECT DISTINCT %s AS k1 FROM %s o", xs, dother));
	}
}

/*
 * bare_scan - is op a scan of a source, under filters only?  An inner
 * join's term that joins such a side now with the other side's delta by an
 * indexed column is driven by the delta through that index by the planner
 * itself (a parameterized nested loop, estimated from the delta's true
 * size), so delta_cte does not restrict it (reach_restrict): the planner
 * takes a restricted scan for 10 rows whatever the size of the delta, the
 * estimates of the terms built on it fall short by as much, and a nested
 * loop planned for one row then scans the restricted side again, every
 * value of the array, for each row of the delta (quadratic: TPC-H Q9's
 * orders for each changed lineitem of a green part).
 */
static bool
bare_scan(DvOp *op)
{
	while (op->kind == DV_OP_FILTER)
		op = op->left;
	return op->kind == DV_OP_SCAN;
}

/*
 * probe_cheaper - by the planner's own costs, is reading the rows of n
 * values of a column leading an index of relation relid (rows_per_value
 * rows a value, the index index_pages pages) through that index, one
 * descent a value, cheaper than reading the relation whole (the hash join
 * the planner would make of it)?  The descents cost what btcostestimate
 * charges (log2 of the rows plus 50 operators), each row fetched an index
 * and a heap tuple; the relation read whole a tuple and an operator a row.
 * Pages are counted only when the relation and the index do not fit in a
 * DV_PROBE_RESIDENT_SHARE-th of shared_buffers (else they are taken as
 * resident: at scale 1000 TPC-H's part, 1,277 pages, stays in the 128 MB
 * between refreshes and 1,200 probes cost less than its 75,000 rows): the
 * probes fetch index_pages_fetched's pages of each (the Mackert-Lohman
 * estimate the planner uses for repeated index scans) at the tablespace's
 * random_page_cost, the whole read its pages at seq_page_cost.  At scale
 * 10000 part is 12,771 pages in 128 MB, and 12,089 changed lineitems
 * fetch about 8,200 of them at random, each read from the OS cache into
 * shared buffers and evicting another (1,013 ms, against a sequential read
 * through a ring buffer), so the source is read whole; a change of a
 * tenth of that is probed.  The pages are those of distinct (<= n)
 * values: a probe of a value probed before finds its pages in shared
 * buffers (the 12,088 lineitems of 3,000 changed orders probe orders_pkey
 * for 3,000 orders); the operators are counted per probe.  false when the
 * relation has no statistics.  With resident, *resident says whether the
 * relation and the index were taken as resident (set even then).
 *
 * in_key_order: the n values (all distinct) are read in one index scan over
 * their array (keyed_shared_rows), which sorts them and descends the index
 * once per value in key order, so each index and heap page it needs is
 * read once, in order: those pages (the expected distinct pages among the
 * rows and the values) are charged at seq_page_cost, not random_page_cost.
 * TPC-H Q17 at SF1: 12,000 changed parts out of 750,000, about 7,800 of
 * part's 12,771 pages, against its whole read, 750,000 rows filtered
 * besides (bench/README.md, fifteenth session).
 */
#define DV_PROBE_RESIDENT_SHARE 4

static bool
probe_cheaper(Oid relid, double n, double distinct, double rows_per_value, double index_pages,
			  bool in_key_order, bool *resident)
{
	Relation	rel = relation_open(relid, AccessShareLock);
	double		pages = Max((double) rel->rd_rel->relpages, 1.0);
	double		tuples = rel->rd_rel->reltuples;
	Oid			spcid = rel->rd_rel->reltablespace;
	double		fetched = n * rows_per_value;
	double		fetched_distinct = distinct * rows_per_value;
	double		random_cost;
	double		seq_cost;
	double		probe;
	double		scan;

	relation_close(rel, AccessShareLock);
	if (resident)
		*resident = pages + index_pages <= (double) NBuffers / DV_PROBE_RESIDENT_SHARE;
	if (tuples < 1)
		return false;
	get_tablespace_page_costs(spcid, &random_cost, &seq_cost);
	probe = n * (ceil(log2(tuples)) + 50) * cpu_operator_cost +
		fetched * (cpu_index_tuple_cost + cpu_tuple_cost);
	scan = tuples * (cpu_tuple_cost + cpu_operator_cost) + n * cpu_operator_cost;
	if (pages + index_pages > (double) NBuffers / DV_PROBE_RESIDENT_SHARE)
	{
		PlannerInfo root;

		MemSet(&root, 0, sizeof(root));
		root.type = T_PlannerInfo;
		root.total_table_pages = pages + index_pages;
		if (in_key_order)
			probe += (pages * (1.0 - exp(-fetched_distinct / pages)) +
					  index_pages * (1.0 - exp(-distinct / index_pages))) * seq_cost;
		else
			probe += (index_pages_fetched(fetched_distinct, (BlockNumber) pages, index_pages, &root) +
					  index_pages_fetched(distinct, (BlockNumber) index_pages, pages, &root)) * random_cost;
		scan += pages * seq_cost;
	}
	return probe < scan;
}

/*
 * probe_rows - the "(rows)" of the scan bare (a source under filters only:
 * bare_scan), now, to be joined by quals with the delta of other (its
 * relation dother), read by key for each row of that delta instead of
 * whole: "LATERAL (SELECT * FROM (rows) <alias> WHERE quals OFFSET 0)", a
 * subquery the planner keeps (OFFSET 0), driven by the delta's rows, its
 * condition on the key a parameter of an index scan of the source.  The
 * planner, left to itself, hash-joins a delta of a thousand rows with the
 * source read whole (its random page cost makes a thousand index probes
 * dearer than one scan): TPC-H Q8's and Q17's part, 75,000 rows read and
 * filtered for the 1,200 changed lineitems of a 0.1% change at scale 1000,
 * the largest part of their refresh (perf: the hash's build and the pages
 * the backend touches for the first time), where one probe of part_pkey a
 * changed row costs a few microseconds.  Only when quals has a condition
 * "v = e" (v a column of the source leading one of its indexes with at
 * most DV_PROBE_MAX_ROWS rows per value, leading_rows_per_value; e an
 * expression of other's row alone; "=" a btree or hash equality, so that
 * the index can serve it), the source has at least DV_PROBE_MIN_ROWS rows
 * (pg_class.reltuples) and the probes are cheaper than reading the source
 * whole by the planner's costs, the delta's rows counted
 * (probe_cheaper: pages count only for a source too large to stay in
 * shared buffers): else NULL, and the term joins them as before, the
 * planner choosing how (the delta's true size registered with it).  The
 * rows are the same: the term's condition is the same, only evaluated
 * inside.  Where only the distinct count made the probes cheaper, each
 * distinct key is probed once instead (probe_once_sql), and *on_theta
 * tells the caller to join that with the delta ON theta rather than
 * CROSS JOIN it.  alias is the source's alias in quals ("r" for the right
 * side, "l" for the left), other_alias the delta's.
 */
#define DV_PROBE_MAX_ROWS 10
#define DV_PROBE_MIN_ROWS 10000

/*
 * implied_restrict - before the rows now of the scan bare (under filters
 * only, bare_scan) are written for the term of inner join join that joins
 * them with the delta of its left side: when an inner join above
 * (above_joins: g->implied_above where join's delta is written) joins
 * bare's rows to an unchanged scan T by "v = x" (v a column of bare
 * leading one of its indexes, x a column of T, keyed_equality), a row of bare reaches the level's output only if v
 * equals some x of T's rows now that pass T's filters and join, by the
 * conditions of the joins above, the other unchanged small scans of that
 * chain (T's and theirs filtered, the chain's own conditions only): so the
 * scan is restricted to "v = ANY (ARRAY(SELECT x FROM chain))" (g->reach_*,
 * written by rows_sql with OFFSET 0 like reach_restrict's; reach_reset
 * clears them).  Exact: the chain is unchanged (its delta empty, so only
 * the terms joining its rows now with the delta below it exist), every
 * join between is inner and every operator a filter or an inner join, so
 * a row cut here would have been dropped by the joins above; the term
 * keeps its own condition.  TPC-H Q8: customer joined to the changed
 * lineitems' orders, then to nation n1 and region 'AMERICA'; the planner,
 * left to itself, joins nation and region first and reads customer by one
 * bitmap heap scan per nation of AMERICA (five scans over nearly all of
 * customer's pages, 20,821 buffers); so restricted, customer is read in
 * one bitmap heap scan of the array's five nations (4,507 buffers) and
 * hashed (bench/README.md, seventeenth session).
 *
 * Only where it pays and cannot mislead the planner: bare is a source of
 * at least DV_PROBE_MIN_ROWS rows too large to stay in shared buffers
 * (probe_cheaper's resident: a resident one the planner hashes cheaply, and
 * TPC-H Q5's supplier so restricted was slower), and the delta's rows that
 * reach the join would not be cheaper probed into bare one by one
 * (probe_cheaper; else the planner drives them into bare's index, which
 * the fenced subquery would forbid).  Those rows are the window rows under
 * the join's left side, times the share of its relations' rows that the
 * other filtered chains above join to them keep (implied_share: the
 * chain's distinct values, counted by a statement, times the column's rows
 * per value): TPC-H Q7's customer is joined after the suppliers of two
 * nations cut the delta to 586 rows, which the planner probes; so
 * restricted it was read whole, +40%.  Every member of a chain has at most
 * DV_IMPLIED_MAX_ROWS rows (pg_class.reltuples: the array and the count
 * are cheap), and one member at least a filter (else the chain implies
 * nothing but the joins' integrity).  Of several conditions, the one whose
 * column has the fewest rows per value.  Not inside a grouped subquery's
 * affected groups (restrict_rti).
 */
#define DV_IMPLIED_MAX_ROWS 1000

static double
rel_tuples(Oid relid)
{
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	double		tuples = -1;

	if (HeapTupleIsValid(tup))
	{
		Form_pg_class form = (Form_pg_class) GETSTRUCT(tup);

		if (form->relkind == RELKIND_RELATION && form->relpages > 0)
			tuples = form->reltuples;
		ReleaseSysCache(tup);
	}
	return tuples;
}

/* the scan under bare's filters (bare_scan(bare) holds) */
static DvOp *
scan_of(DvOp *bare)
{
	while (bare->kind == DV_OP_FILTER)
		bare = bare->left;
	return bare;
}

/* may the bare scan op be a member of an implied chain: unchanged and small? */
static bool
implied_member(DvOp *op)
{
	double		tuples;

	if (!bare_scan(op) || has_delta(op))
		return false;
	tuples = rel_tuples(scan_of(op)->source->relid);
	return tuples >= 0 && tuples <= DV_IMPLIED_MAX_ROWS;
}

/* the conditions of quals that read only rels' columns and some of them of both a and b */
static List *
chain_quals(List *quals, Bitmapset *a, Bitmapset *b)
{
	List	   *result = NIL;
	ListCell   *lc;

	foreach(lc, quals)
	{
		Bitmapset  *vars = expr_varnos(lfirst(lc));

		if (vars && bms_is_subset(vars, bms_union(a, b)) && bms_overlap(vars, a) &&
			bms_overlap(vars, b) && !contain_volatile_functions(lfirst(lc)) &&
			!checkExprHasSubLink(lfirst(lc)) && !has_outer_refs(lfirst(lc)))
			result = lappend(result, lfirst(lc));
	}
	return result;
}

/*
 * implied_chain - the chain of unchanged small scans (implied_member) that
 * starts at the right side of above (one of above_joins) and takes in
 * every other such right side that a join of above_joins joins to it by
 * conditions of their columns alone (chain_quals), as inner joins with
 * those conditions; *filtered says whether a member is under a filter
 */
static DvOp *
implied_chain(List *above_joins, DvOp *above, bool *filtered)
{
	DvOp	   *chain = above->right;
	bool		grown = true;

	*filtered = chain->kind == DV_OP_FILTER;
	while (grown)
	{
		ListCell   *lm;

		grown = false;
		foreach(lm, above_joins)
		{
			DvOp	   *m = lfirst(lm);
			List	   *quals;

			if (bms_overlap(m->right->rels, chain->rels) || !implied_member(m->right))
				continue;
			quals = chain_quals(m->quals, chain->rels, m->right->rels);
			if (quals == NIL)
				continue;
			chain = make_join(JOIN_INNER, chain, m->right, quals);
			*filtered |= m->right->kind == DV_OP_FILTER;
			grown = true;
		}
	}
	return chain;
}

/*
 * implied_values - the number of distinct values of x over the rows now of
 * chain (its members have at most DV_IMPLIED_MAX_ROWS rows each), counted
 * by a statement; -1 if unknown (also when a member's rows are a WITH entry
 * of the statement being written, shared_name)
 */
static bool
chain_shared(DvGen *g, DvOp *op)
{
	if (shared_name(g, op) != NULL)
		return true;
	return (op->left && chain_shared(g, op->left)) || (op->right && chain_shared(g, op->right));
}

static double
implied_values(DvGen *g, DvOp *chain, Node *x)
{
	bool		reach_done = g->reach_done;
	char	   *sql;
	double		result = -1;

	/* (a member read from a WITH entry of the statement: not a statement of its own) */
	if (chain_shared(g, chain))
		return -1;
	sql = psprintf("SELECT pg_catalog.count(DISTINCT %s) FROM (%s) c",
				   deparse(g, x, chain, "c", NULL, NULL), rows_sql(g, chain));
	g->reach_done = reach_done;
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute(sql, true, 1) == SPI_OK_SELECT && SPI_processed == 1)
	{
		bool		isnull;
		Datum		d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);

		if (!isnull)
			result = (double) DatumGetInt64(d);
	}
	SPI_finish();
	return result;
}

/*
 * implied_share - the share of the rows of the relation of Var v that
 * have a value of x among the rows now of chain (its values counted,
 * times v's rows per value by the statistics), at most 1; 1 when unknown
 */
static double
implied_share(DvGen *g, DvOp *chain, Var *v, Node *x)
{
	RangeTblEntry *rte = rt_fetch(v->varno, g->q->rtable);
	double		k;
	double		rows;
	double		tuples;
	double		null_rows;
	Relation	rel;

	if (rte->rtekind != RTE_RELATION || (tuples = rel_tuples(rte->relid)) < 1)
		return 1.0;
	rel = relation_open(rte->relid, AccessShareLock);
	rows = dv_rows_per_value(rel, v->varattno, &null_rows);
	relation_close(rel, AccessShareLock);
	if (rows < 0 || (k = implied_values(g, chain, x)) < 0)
		return 1.0;
	return Min(1.0, k * Max(rows, 1.0) / tuples);
}

/* a condition "v = x" of a join above, v a column of rels, x of a filtered implied chain */
typedef struct ImpliedLink
{
	Var		   *v;
	Node	   *x;
	Oid			opno;			/* as "v opno x" */
	DvOp	   *chain;			/* implied_chain */
} ImpliedLink;

/*
 * implied_links - the ImpliedLinks of the joins of above_joins from a
 * column of rels to an unchanged small scan whose chain has a filter
 */
static List *
implied_links(List *above_joins, Bitmapset *rels)
{
	List	   *result = NIL;
	ListCell   *le;

	foreach(le, above_joins)
	{
		DvOp	   *above = lfirst(le);
		ListCell   *lc;

		if (!implied_member(above->right))
			continue;
		foreach(lc, above->quals)
		{
			ImpliedLink *link = palloc(sizeof(ImpliedLink));
			bool		filtered;

			if (!keyed_equality(lfirst(lc), rels, above->right->rels, &link->v, &link->x, &link->opno))
				continue;
			link->chain = implied_chain(above_joins, above, &filtered);
			if (filtered)
				result = lappend(result, link);
		}
	}
	return result;
}

static double window_distinct(DvOp *op, Node *x);

/*
 * delta_name - the WITH entry last written at this level for the delta of
 * op (delta_cte), or NULL
 */
static const char *
delta_name(DvGen *g, DvOp *op)
{
	const char *result = NULL;
	ListCell   *lo;
	ListCell   *ln;

	forboth(lo, g->delta_ops, ln, g->delta_names)
	{
		if (lfirst(lo) == op)
			result = lfirst(ln);
	}
	return result;
}

/*
 * delta_keys_source - the operator at or below op whose delta holds every
 * value of column x (a column of a source under op) that the rows of op's
 * delta carry, with an upper bound of its distinct values of x in
 * *distinct; NULL when none is known.  From op down: through a filter
 * (its delta is a subset of its child's) and through an inner join whose
 * side without x has no delta (its delta is the other side's delta joined
 * to that side now, x as it was), down to the inner join whose side with x
 * is a scan under filters (bare_scan), which is returned: its delta's x
 * values are those of that scan's window (window_distinct) and, when its
 * other side has a delta too, those of the scan's rows now that the other
 * side's delta reaches by a condition "k = y" of the join, k a column of
 * the scan with one row per value (leading_rows_per_value: a unique index,
 * or the statistics' estimate), counted as the distinct y of the other
 * side's window (a scan under filters too).  The bound only steers a cost
 * decision (implied_restrict); the restriction it serves is exact whatever
 * it is.  TPC-H Q8: customer's key o_custkey, from the join of the changed
 * lineitems to orders: at most their distinct l_orderkey (3,000 orders for
 * 12,043 lineitems) plus the distinct o_custkey of the orders window.
 * Returns; no memory context or lock of its own (window_distinct counts
 * the window in the refresh's).
 */
static DvOp *
delta_keys_source(DvOp *op, Var *x, double *distinct)
{
	for (;;)
	{
		DvOp	   *side;
		DvOp	   *other;
		double		d;
		bool		bounded;
		ListCell   *lc;

		if (op->kind == DV_OP_FILTER)
		{
			op = op->left;
			continue;
		}
		if (op->kind != DV_OP_JOIN || op->jointype != JOIN_INNER)
			return NULL;
		if (bms_is_member(x->varno, op->left->rels))
		{
			side = op->left;
			other = op->right;
		}
		else if (bms_is_member(x->varno, op->right->rels))
		{
			side = op->right;
			other = op->left;
		}
		else
			return NULL;
		if (!bare_scan(side))
		{
			if (has_delta(other))
				return NULL;
			op = side;
			continue;
		}
		d = has_delta(side) ? window_distinct(side, (Node *) x) : 0;
		if (d < 0)
			return NULL;
		if (has_delta(other))
		{
			DvOp	   *scan = scan_of(side);

			bounded = false;
			if (!bare_scan(other))
				return NULL;
			foreach(lc, op->quals)
			{
				Var		   *k;
				Node	   *y;
				Oid			opno;
				double		dy;

				if (!keyed_equality(lfirst(lc), side->rels, other->rels, &k, &y, &opno) ||
					k->varno != scan->source->rtindex ||
					leading_rows_per_value(scan->source->relid, k->varattno, NULL) != 1.0 ||
					(dy = window_distinct(other, y)) < 0)
					continue;
				d += dy;
				bounded = true;
				break;
			}
			if (!bounded)
				return NULL;
		}
		*distinct = d;
		return op;
	}
}

/*
 * implied_keys - implied_restrict's alternative to the fence: bare's scan
 * restricted to the values of x that the delta below carries, "v = ANY
 * (ARRAY(SELECT x FROM <that delta's WITH entry>))" (g->reach_*, written by
 * rows_sql as reach_restrict's), when a condition "v = x" of join (v of
 * bare's scan leading an index with key_rows rows a value, its pages
 * index_pages; x a column of the left side) has a source of its keys
 * below (delta_keys_source) and reading bare by that source's distinct
 * keys (at most its bound, at most n), in key order, costs less than
 * reading bare whole (probe_cheaper).  Exact as reach_restrict is: every
 * row of join's left delta has its x among that entry's (the operators
 * between pass x on unchanged and add no rows of their own), and the term
 * keeps its condition.  The keys come from that entry, not from the left
 * delta's own: the left delta is then read once, so the planner still
 * joins it as it likes (TPC-H Q8: customer before part, probed by the
 * rows customer keeps), where reading it twice would make PostgreSQL plan
 * it apart, on the terms' estimate (s16-low: part read whole).  TPC-H Q8
 * at SF1: the ~1,350 customers of the changed orders read by
 * customer_pkey, ~1,300 of customer's pages, instead of the 4,440 of the
 * fence's read of AMERICA's 59,887 customers, hashed (bench/README.md,
 * eighteenth session).  true when so restricted.
 */
static bool
implied_keys(DvGen *g, DvOp *join, DvOp *scan, double n, double key_rows, double index_pages)
{
	ListCell   *lc;

	foreach(lc, join->quals)
	{
		Var		   *v;
		Node	   *x;
		Oid			opno;
		double		distinct;
		DvOp	   *src;
		const char *name;
		char	   *xs;

		if (!keyed_equality(lfirst(lc), scan->rels, join->left->rels, &v, &x, &opno) ||
			v->varno != scan->source->rtindex || !IsA(x, Var) ||
			!OidIsValid(get_array_type(exprType(x))) ||
			leading_rows_per_value(scan->source->relid, v->varattno, NULL) != key_rows ||
			(src = delta_keys_source(join->left, (Var *) x, &distinct)) == NULL ||
			(name = delta_name(g, src)) == NULL)
			continue;
		distinct = Max(Min(distinct, n), 1.0);
		if (!probe_cheaper(scan->source->relid, distinct, distinct, Max(key_rows, 1.0), index_pages,
						   true, NULL))
			continue;
		xs = deparse(g, x, src, "o", NULL, NULL);
		reach_set(g, v->varno, v->varattno, opno, psprintf("ARRAY(SELECT %s FROM %s o)", xs, name),
				  psprintf("SELECT DISTINCT %s AS k1 FROM %s o", xs, name));
		return true;
	}
	return false;
}

static void
implied_restrict(DvGen *g, DvOp *join, DvOp *bare, List *above_joins)
{
	DvOp	   *scan = scan_of(bare);
	Oid			relid = scan->source->relid;
	double		best = -1;
	double		reach;
	double		key_rows = -1;
	double		index_pages = 1;
	int64		n;
	bool		resident;
	Var		   *fence_v = NULL;
	Node	   *fence_x = NULL;
	Oid			fence_opno = InvalidOid;
	DvOp	   *fence_chain = NULL;
	ListCell   *le;

	g->reach_rti = 0;
	if (above_joins == NIL || g->restrict_rti != 0 || scan->source->rtindex <= 0 ||
		rt_fetch(scan->source->rtindex, g->q->rtable)->rtekind != RTE_RELATION)
		return;
	n = delta_rows_under(join->left);
	if (rel_tuples(relid) < DV_PROBE_MIN_ROWS || n <= 0)
		return;

	/* the implied condition: of several, the column with the fewest rows per value */
	foreach(le, implied_links(above_joins, scan->rels))
	{
		ImpliedLink *link = lfirst(le);
		double		rows;

		if (!OidIsValid(get_array_type(exprType(link->x))))
			continue;
		rows = leading_rows_per_value(relid, link->v->varattno, NULL);
		if (rows < 0 || (best >= 0 && rows >= best))
			continue;
		best = rows;
		fence_v = link->v;
		fence_x = link->x;
		fence_opno = link->opno;
		fence_chain = link->chain;
	}
	if (fence_chain == NULL)
		return;

	/* (the join's key of bare: the fewest rows per value) */
	foreach(le, join->quals)
	{
		Var		   *v;
		Node	   *x;
		Oid			opno;
		double		p;
		double		r;

		if (!keyed_equality(lfirst(le), scan->rels, join->left->rels, &v, &x, &opno))
			continue;
		r = leading_rows_per_value(relid, v->varattno, &p);
		if (r >= 0 && (key_rows < 0 || r < key_rows))
		{
			key_rows = r;
			index_pages = p;
		}
	}

	/* (bare resident in shared buffers: the planner's own hash of it is cheap) */
	probe_cheaper(relid, (double) n, (double) n, Max(key_rows, 1.0), index_pages, false, &resident);
	if (resident)
		return;

	/*
	 * The delta's rows that reach the join: its window rows, cut by the
	 * chains the joins above join to the left side (the planner joins those
	 * first when they cut: TPC-H Q7's nations of the suppliers)
	 */
	reach = (double) n;
	foreach(le, implied_links(above_joins, join->left->rels))
	{
		ImpliedLink *link = lfirst(le);

		reach *= implied_share(g, link->chain, link->v, link->x);
	}

	/* (those rows cheaper probed into bare one by one: the planner does so, left free) */
	if (key_rows >= 0 &&
		probe_cheaper(relid, reach, reach, Max(key_rows, 1.0), index_pages, false, NULL))
		return;

	/* (or by the distinct keys of the delta below, in key order: implied_keys) */
	if (key_rows >= 0 && implied_keys(g, join, scan, (double) n, key_rows, index_pages))
		return;

	{
		bool		reach_done = g->reach_done;
		char	   *sql = rows_sql(g, fence_chain);

		g->reach_done = reach_done;
		reach_set(g, fence_v->varno, fence_v->varattno, fence_opno,
				  psprintf("ARRAY(SELECT %s FROM (%s) c)",
						   deparse(g, fence_x, fence_chain, "c", NULL, NULL), sql),
				  NULL);
	}
}

/*
 * dv_store_distinct - the number of distinct non-NULL values of column attno
 * (1-based, of shape desc) among the rows of store, equal under the type's
 * default btree equality and the collation; *nulls (when not NULL) set to
 * the number of NULLs.  -1 when the type has no default btree ordering and
 * equality.  The rows are read through a read pointer of their own, rewound
 * first, as the executor's scan of an ephemeral relation reads them (read
 * pointer 0 is selected again after); the values are sorted (tuplesort, the
 * type's ordering under the collation) and equal neighbours counted once.
 * Memory: the current context's (the sort's own is freed).
 */
double
dv_store_distinct(Tuplestorestate *store, TupleDesc desc, int attno, Oid collation, double *nulls)
{
	Oid			type = TupleDescAttr(desc, attno - 1)->atttypid;
	TypeCacheEntry *typentry;
	Tuplesortstate *sort;
	TupleTableSlot *slot;
	int			ptr;
	double		distinct = 0;
	double		nnull = 0;
	Datum		prev = (Datum) 0;
	bool		have_prev = false;
	Datum		value;
	bool		isnull;

	typentry = lookup_type_cache(type, TYPECACHE_LT_OPR | TYPECACHE_EQ_OPR_FINFO);
	if (!OidIsValid(typentry->lt_opr) || !OidIsValid(typentry->eq_opr_finfo.fn_oid))
		return -1;
	sort = tuplesort_begin_datum(type, typentry->lt_opr, collation, false,
								 work_mem, NULL, TUPLESORT_NONE);
	slot = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);
	ptr = tuplestore_alloc_read_pointer(store, EXEC_FLAG_REWIND);
	tuplestore_select_read_pointer(store, ptr);
	tuplestore_rescan(store);
	while (tuplestore_gettupleslot(store, true, false, slot))
	{
		value = slot_getattr(slot, attno, &isnull);
		if (isnull)
			nnull++;
		else
			tuplesort_putdatum(sort, value, false);
	}
	tuplestore_select_read_pointer(store, 0);
	ExecDropSingleTupleTableSlot(slot);
	tuplesort_performsort(sort);
	while (tuplesort_getdatum(sort, true, &value, &isnull, NULL))
	{
		if (!have_prev ||
			!DatumGetBool(FunctionCall2Coll(&typentry->eq_opr_finfo, collation, prev, value)))
			distinct++;
		prev = value;
		have_prev = true;
	}
	tuplesort_end(sort);
	if (nulls != NULL)
		*nulls = nnull;
	return distinct;
}

/* a count of window_distinct, kept with its source for the refresh (DvPlanSource.delta_distinct) */
typedef struct WindowDistinct
{
	AttrNumber	attno;			/* the source's column */
	Oid			collation;		/* the collation it was sorted under */
	double		distinct;
} WindowDistinct;

/*
 * window_distinct - the number of distinct non-NULL values of x in the
 * window of the source that op scans (op a scan under filters only), as the
 * refresh read it (DvPlanSource.delta_store); -1 when unknown: x not a
 * column of that source, no rows kept, or a type without a default btree
 * ordering and equality.  Counted over the whole window, so an upper bound
 * of the values among the rows its filters keep (dv_store_distinct, under
 * the column's collation).  A column is counted once per refresh (the count
 * kept in DvPlanSource.delta_distinct, read by the plan decisions after).
 */
static double
window_distinct(DvOp *op, Node *x)
{
	DvPlanSource *src;
	Var		   *var = (Var *) x;
	TupleDesc	desc;
	const char *name;
	int			attno = -1;
	double		distinct;
	WindowDistinct *kept;
	MemoryContext old;
	ListCell   *lc;

	while (op->kind == DV_OP_FILTER)
		op = op->left;
	if (op->kind != DV_OP_SCAN || !IsA(x, Var) || var->varno != op->source->rtindex ||
		var->varattno <= 0 || op->source->delta_store == NULL || op->source->delta_rows <= 0)
		return -1;
	src = op->source;
	foreach(lc, src->delta_distinct)
	{
		kept = lfirst(lc);
		if (kept->attno == var->varattno && kept->collation == var->varcollid)
			return kept->distinct;
	}
	desc = src->delta_desc;
	name = get_attname(src->relid, var->varattno, true);
	for (int i = 0; name != NULL && i < desc->natts; i++)
	{
		if (!TupleDescAttr(desc, i)->attisdropped &&
			strcmp(NameStr(TupleDescAttr(desc, i)->attname), name) == 0)
			attno = i + 1;
	}
	if (attno < 0 || TupleDescAttr(desc, attno - 1)->atttypid != var->vartype)
		distinct = -1;
	else
		distinct = dv_store_distinct(src->delta_store, desc, attno, var->varcollid, NULL);
	/* (kept where the window's rows are: it goes with them) */
	old = MemoryContextSwitchTo(GetMemoryChunkContext(desc));
	kept = palloc(sizeof(WindowDistinct));
	kept->attno = var->varattno;
	kept->collation = var->varcollid;
	kept->distinct = distinct;
	src->delta_distinct = lappend(src->delta_distinct, kept);
	MemoryContextSwitchTo(old);
	return distinct;
}

/*
 * probe_once_sql - the probes of probe_rows made once per distinct key
 * instead of once per changed row, when the probes were found cheaper by
 * counting distinct keys (window_distinct: TPC-H Q8's 12,046 changed
 * lineitems of 3,000 orders probe orders_pkey 12,046 times, 50,000 buffer
 * touches, where 3,000 probes find the same rows):
 * "(SELECT k.dv_probe_key, p.* FROM (SELECT DISTINCT x AS dv_probe_key FROM
 * dother o) k CROSS JOIN LATERAL (SELECT * FROM (rows) <alias> WHERE v op
 * k.dv_probe_key OFFSET 0) p)", which the term joins
 * with the delta by its whole condition (probe_rows' *on_theta): every row
 * of bare with v op x for some changed row's x is among them, so the join
 * keeps exactly the pairs the per-row probe kept.  The PostgreSQL planner
 * would not make this itself (Memoize): it takes every parameter value of a
 * column without statistics (the delta's) as distinct.  Only where the
 * values DISTINCT merges are those op cannot tell apart: op the key type's
 * default equality, or an equality of that type's btree family (int4 =
 * int8), under the collation the condition uses (keyed_equality: the same
 * for v and x).  A NULL x is probed like any other value (not filtered
 * out: a composite key with a NULL field is not NULL to IS NOT NULL, yet
 * its record equality may match).  NULL when not so (the per-row probe is
 * written).  other_alias is the delta's alias in
 * x: "l" when bare is the right side.
 */
static char *
probe_once_sql(DvGen *g, DvOp *bare, DvOp *other, const char *dother, Var *v, Node *x,
			   Oid opno, const char *alias)
{
	const char *other_alias = strcmp(alias, "r") == 0 ? "l" : "r";
	TypeCacheEntry *tc = lookup_type_cache(exprType(x), TYPECACHE_EQ_OPR | TYPECACHE_BTREE_OPFAMILY);
	char	   *key;

	if (opno != tc->eq_opr &&
		(!OidIsValid(tc->btree_opf) ||
		 get_op_opfamily_strategy(opno, tc->btree_opf) != BTEqualStrategyNumber))
		return NULL;
	key = deparse(g, x, other, other_alias, NULL, NULL);
	return psprintf("(SELECT k.dv_probe_key, p.* FROM (SELECT DISTINCT %s AS dv_probe_key FROM %s %s) k "
					"CROSS JOIN LATERAL (SELECT * FROM (%s) %s WHERE %s %s k.dv_probe_key OFFSET 0) p)",
					key, dother, other_alias, rows_sql(g, bare), alias,
					deparse(g, (Node *) v, bare, alias, NULL, NULL), dv_operator_sql(opno));
}

/*
 * probed_scan - the scan under the filters of bare (bare_scan), when its
 * source has at least DV_PROBE_MIN_ROWS rows (pg_class.reltuples: a
 * smaller one is read whole, its rows hashed), else NULL
 */
static DvOp *
probed_scan(DvOp *bare)
{
	DvOp	   *scan = bare;
	HeapTuple	tup;
	double		tuples;

	while (scan->kind == DV_OP_FILTER)
		scan = scan->left;
	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(scan->source->relid));
	if (!HeapTupleIsValid(tup))
		return NULL;
	tuples = ((Form_pg_class) GETSTRUCT(tup))->reltuples;
	ReleaseSysCache(tup);
	return tuples < DV_PROBE_MIN_ROWS ? NULL : scan;
}

/*
 * probe_start - the scan under the filters of bare (probed_scan) that the
 * delta of other (relation dother) may read by key instead of whole, and
 * *n that delta's number of rows: NULL when bare is no bare scan
 * (bare_scan), there is no delta, a restriction of this term is being
 * written (g->restrict_rti), the delta's size is unknown (explain()) or
 * the source is small (probed_scan)
 */
static DvOp *
probe_start(DvGen *g, DvOp *bare, DvOp *other, const char *dother, int64 *n)
{
	if (dother == NULL || !bare_scan(bare) || g->restrict_rti != 0)
		return NULL;
	/* (its rows now kept in a filter state: that is read whole, hashed) */
	for (DvOp *f = bare; f->kind == DV_OP_FILTER; f = f->left)
	{
		if (reads_filter_state(g, f))
			return NULL;
	}
	*n = delta_rows_under(other);
	if (*n < 0)
		return NULL;
	return probed_scan(bare);
}

/*
 * ProbeKey - a condition "v op x" of a join's quals by which the delta of
 * one side may read scan, the other, by key (probe_key): v a column of
 * scan's source leading an index, rows its rows per value in it (at most
 * DV_PROBE_MAX_ROWS), index_pages that index's size
 */
typedef struct ProbeKey
{
	Var		   *v;
	Node	   *x;
	Oid			opno;
	double		rows;
	double		index_pages;
} ProbeKey;

/*
 * probe_key - is qual (of the quals joining bare to other) such a
 * condition on scan (probe_start's) (keyed_equality, leading_rows_per_value)?
 * Fills *key.
 */
static bool
probe_key(Node *qual, DvOp *bare, DvOp *other, DvOp *scan, ProbeKey *key)
{
	if (!keyed_equality(qual, bare->rels, other->rels, &key->v, &key->x, &key->opno) ||
		key->v->varno != scan->source->rtindex)
		return false;
	key->rows = leading_rows_per_value(scan->source->relid, key->v->varattno, &key->index_pages);
	return key->rows >= 1 && key->rows <= DV_PROBE_MAX_ROWS;
}

static char *
probe_rows(DvGen *g, DvOp *bare, DvOp *other, const char *dother, List *quals,
		   const char *theta, const char *alias, bool *on_theta)
{
	DvOp	   *scan;
	int64		n;
	ListCell   *lc;
	bool		keyed = false;
	char	   *once = NULL;

	if ((scan = probe_start(g, bare, other, dother, &n)) == NULL)
		return NULL;
	/* (the partner filter probes it again for the changed keys of its subquery: shared_rows) */
	if (bare == g->share_op)
		n += g->share_rows;
	foreach(lc, quals)
	{
		ProbeKey	k;
		bool		resident;

		if (!probe_key(lfirst(lc), bare, other, scan, &k))
			continue;
		if (probe_cheaper(scan->source->relid, (double) n, (double) n, k.rows, k.index_pages, false, &resident))
		{
			keyed = true;
			break;
		}

		/*
		 * (the probes of a value probed before find its pages read: counted
		 * by distinct values; only pages depend on them, and a resident
		 * source's are not counted, so its answer is the one above without
		 * the count: a sort of the window's values, 0.4 ms of the dashboard
		 * pipeline's 1,270 product ids)
		 */
		if (bare != g->share_op && !resident)
		{
			double		distinct = window_distinct(other, k.x);

			if (distinct >= 0 && distinct < (double) n &&
				probe_cheaper(scan->source->relid, (double) n, distinct, k.rows, k.index_pages, false, NULL))
			{
				keyed = true;
				once = probe_once_sql(g, bare, other, dother, k.v, k.x, k.opno, alias);
				break;
			}
		}
	}
	*on_theta = false;
	if (!keyed)
		return NULL;
	if (bare == g->share_op)
		g->share_probed = true;
	if (once != NULL)
	{
		*on_theta = true;
		return once;
	}
	return psprintf("LATERAL (SELECT * FROM (%s) %s WHERE %s OFFSET 0)", rows_sql(g, bare), alias, theta);
}

/*
 * keyed_shared_rows - "(rows)" now of the scan bare (g->share_op: the scan
 * the partner filter of the join being written reads, bare_scan), to be
 * joined by quals with the delta of other (relation dother), read by key
 * in one index scan instead of whole: a MATERIALIZED WITH entry of the
 * scan's rows whose column v is "op ANY (ARRAY(keys))", keys the x of the
 * delta's rows but the null value (a WITH entry of its own;
 * "num_nonnulls(x) > 0", not IS NOT NULL, which is false for a composite
 * key with a NULL field that the record equality matches; not made
 * distinct: the index scan sorts its array and drops the duplicates, and
 * the partner filter's "NOT (k1 = ANY (keys))" is a hashed subplan, so a
 * DISTINCT would only hash the delta's keys once more), for a
 * condition "v = x" of quals (keyed_equality; v leading an index of the
 * source with at most DV_PROBE_MAX_ROWS rows a value, x of the same type
 * as v, "=" that type's default equality).  The term joins it as it would
 * the scan: every row of the delta with a non-NULL x finds its matches
 * there, one with a NULL x none anywhere ("=" is strict).  The partner
 * filter reads it for its keys among those keys (g->keyed_rows,
 * partner_keys_filter) and probes the source for the others, where the
 * whole read (shared_rows) served both (TPC-H Q17 at SF1: part's 750,000
 * rows read for the 12,000 changed lineitems, 93 ms of a 122 ms delta
 * statement; by key about 60% of that with part's pages in the OS cache
 * only, a quarter with them in shared buffers; bench/README.md, fifteenth
 * session).  NULL (nothing written) when the source has under
 * DV_PROBE_MIN_ROWS rows, the delta's size is unknown (explain()), or the
 * keyed read is not cheaper (probe_cheaper, in key order).
 */
static char *
keyed_shared_rows(DvGen *g, DvOp *bare, DvOp *other, const char *dother, List *quals)
{
	DvOp	   *scan;
	int64		n;
	ListCell   *lc;

	if (bare != g->share_op || g->reach_rti != 0 ||
		(scan = probe_start(g, bare, other, dother, &n)) == NULL)
		return NULL;
	foreach(lc, quals)
	{
		ProbeKey	k;
		double		distinct;
		char	   *xs;
		char	   *keys;
		char	   *sql;

		/*
		 * (the type's default equality: the array's duplicates dropped by
		 * the index scan are none that the join's equality tells apart)
		 */
		if (!probe_key(lfirst(lc), bare, other, scan, &k) || exprType(k.x) != k.v->vartype ||
			!OidIsValid(get_array_type(k.v->vartype)) ||
			lookup_type_cache(k.v->vartype, TYPECACHE_EQ_OPR)->eq_opr != k.opno)
			continue;
		distinct = window_distinct(other, k.x);
		if (distinct < 0 || distinct > (double) n)
			distinct = (double) n;
		if (!probe_cheaper(scan->source->relid, Max(distinct, 1.0), Max(distinct, 1.0), k.rows, k.index_pages,
						   true, NULL))
			continue;
		xs = deparse(g, k.x, other, "o", NULL, NULL);
		keys = add_cte(g, psprintf("SELECT %s AS k1 FROM %s o WHERE pg_catalog.num_nonnulls(%s) > 0",
								   xs, dother, xs));
		/* (the scan written restricted by rows_sql, as reach_restrict does) */
		reach_set(g, k.v->varno, k.v->varattno, k.opno, psprintf("ARRAY(SELECT k.k1 FROM %s k)", keys), NULL);
		g->reach_done = false;
		sql = rows_sql(g, bare);
		reach_reset(g);
		if (!g->reach_done)
			return NULL;
		g->keyed_op = bare;
		g->keyed_rows = add_cte_as(g, sql, true);
		g->keyed_keys = keys;
		g->keyed_var = k.v;
		g->keyed_opno = k.opno;
		return psprintf("(SELECT * FROM %s)", g->keyed_rows);
	}
	return NULL;
}

/* "q AND " for a condition list (nothing when empty) */
static char *
quals_and(DvGen *g, List *quals, DvOp *a, const char *a_alias, DvOp *b, const char *b_alias)
{
	return quals ? psprintf("%s AND ", deparse_quals(g, quals, a, a_alias, b, b_alias)) : "";
}

/*
 * match_count_sql - the number of other's rows (NEW, alias o) that match
 * the row of keep (alias k) by quals: count(*), or for a NOT IN test the
 * rows where x = y plus, if x is NULL, every row, else those where y is NULL.
 * With cap (an expression of k's row, at least 1), each count stops at cap
 * rows (a LIMIT): the result is exact below cap and at least cap otherwise,
 * which is all the semi and anti rules ask (whether m is 0, and whether
 * m - s is, for a cap of GREATEST(s, 0) + 1: exist_terms), so that a row
 * with many matches reads one or two of them instead of all.
 */
static char *
match_count_sql(DvGen *g, DvOp *keep, DvOp *other, List *quals, const char *cap)
{
	List	   *rest;
	OpExpr	   *t = not_in_test(quals, keep, other, &rest);
	char	   *rows;
	const char *limit = cap ? psprintf(" LIMIT %s", cap) : "";

	g->lateral_left = keep;
	g->lateral_alias = "k";
	rows = new_sql(g, other);
	g->lateral_left = NULL;
	g->lateral_alias = NULL;
	if (t == NULL)
		return psprintf("(SELECT pg_catalog.count(*) FROM (SELECT FROM (%s) o WHERE %s%s) o)", rows,
						deparse_quals(g, quals, keep, "k", other, "o"), limit);
	return psprintf("((SELECT pg_catalog.count(*) FROM (SELECT FROM (%s) o WHERE %s%s%s) o) + "
					"CASE WHEN %s THEN (SELECT pg_catalog.count(*) FROM (SELECT FROM (%s) o WHERE %s%s) o) "
					"ELSE (SELECT pg_catalog.count(*) FROM (SELECT FROM (%s) o WHERE %s%s%s) o) END)",
					rows, quals_and(g, rest, keep, "k", other, "o"),
					deparse(g, (Node *) t, keep, "k", other, "o"), limit,
					dv_null_test_sql(deparse(g, linitial(t->args), keep, "k", NULL, NULL),
									 exprType(linitial(t->args))),
					rows, rest ? deparse_quals(g, rest, keep, "k", other, "o") : "true", limit,
					rows, quals_and(g, rest, keep, "k", other, "o"),
					dv_null_test_sql(deparse(g, lsecond(t->args), other, "o", NULL, NULL),
									 exprType(lsecond(t->args))), limit);
}

/*
 * match_sums_sql - the rows of relation krel (alias k: keep's columns and
 * dv_rid, a number of its own per row) with dv_s, the sum of the weights of
 * the rows of other's delta (relation dother) that match each by quals (0
 * when none, or when dother is NULL): one join of krel with the delta,
 * summed per dv_rid, which the planner hashes by the equalities of quals,
 * instead of a subquery per row of krel that reads the whole delta (a cost
 * of rows of krel times rows of the delta: TPC-H Q13's customers of the
 * changed orders, each against every changed order).  The sums are a
 * MATERIALIZED WITH entry: krel's rows are often estimated at one (after
 * filters the planner cannot size), and the planner then joined them by a
 * nested loop that aggregated the sums again for each row of krel (TPC-H
 * Q22 at SF1: 381 customers, 70 of a 163 ms statement); read from the
 * entry, a rescan costs a read of its rows.
 */
static char *
match_sums_sql(DvGen *g, const char *krel, DvOp *keep, DvOp *other, const char *dother, List *quals)
{
	char	   *sums;

	if (dother == NULL)
		return psprintf("SELECT k.*, 0::pg_catalog.int8 AS dv_s FROM %s k", krel);
	sums = add_cte_as(g, psprintf("SELECT k.dv_rid, pg_catalog.sum(o.dv_weight) AS dv_s "
								  "FROM %s k JOIN %s o ON %s GROUP BY k.dv_rid",
								  krel, dother, deparse_quals(g, quals, keep, "k", other, "o")), true);
	return psprintf("SELECT k.*, COALESCE(s.dv_s, 0)::pg_catalog.int8 AS dv_s FROM %s k LEFT JOIN %s s "
					"ON s.dv_rid = k.dv_rid", krel, sums);
}

/*
 * key_sums - when every condition of quals is "a = b" with a an expression
 * of keep's row alone and b one of other's alone, both of one type and one
 * collation and "=" that type's default equality (the one GROUP BY groups
 * by) under it, or a condition on other's row alone, and at least one is
 * an equality: a WITH entry of the sums of the weights of other's delta
 * (relation dother; the rows the conditions on other's row alone keep) per
 * value of its b's (dv_k1, ..., and dv_s; groups whose sum is 0 left out,
 * as a sum of 0 changes no count), and in *on the condition that joins it
 * (alias s) to keep's rows (alias k).  Rows of b equal under that equality
 * match the same rows of keep, so a row of keep joined to its group gets
 * the sum of the weights of its matches, and a row that meets no group has
 * a sum of 0: what match_sums_sql computes, here by one join on the keys,
 * which the planner can hash whatever it estimates, instead of the reached
 * rows numbered (dv_rid) and joined to their sums by that number (a nested
 * loop of 385 x 385 rows on a one-row estimate: TPC-H Q22 at SF1).  NULL
 * when a condition has another form (a NOT IN test, an inequality, a
 * cross-type equality, sides of two collations, a condition on keep's row
 * alone), or reads a level above, a subquery or a volatile function.
 */
static char *
key_sums(DvGen *g, DvOp *keep, DvOp *other, const char *dother, List *quals, char **on)
{
	StringInfoData keys;
	StringInfoData cond;
	StringInfoData group;
	List	   *other_quals = NIL;
	int			i = 0;
	ListCell   *lc;

	if (dother == NULL || quals == NIL)
		return NULL;
	initStringInfo(&keys);
	initStringInfo(&cond);
	initStringInfo(&group);
	foreach(lc, quals)
	{
		OpExpr	   *e = (OpExpr *) lfirst(lc);
		Node	   *a;
		Node	   *b;
		Bitmapset  *avars;
		Bitmapset  *bvars;
		Bitmapset  *vars = expr_varnos((Node *) e);
		TypeCacheEntry *tce;

		/* (a condition on other's row alone filters the delta before it is summed) */
		if (vars && bms_is_subset(vars, other->rels) && !has_outer_refs((Node *) e) &&
			!checkExprHasSubLink((Node *) e) && !contain_volatile_functions((Node *) e))
		{
			other_quals = lappend(other_quals, e);
			continue;
		}
		i++;
		if (!IsA(e, OpExpr) || list_length(e->args) != 2 || e->opresulttype != BOOLOID || e->opretset)
			return NULL;
		a = linitial(e->args);
		b = lsecond(e->args);
		avars = expr_varnos(a);
		bvars = expr_varnos(b);
		if (!(avars && bms_is_subset(avars, keep->rels) && bvars && bms_is_subset(bvars, other->rels)))
		{
			Node	   *t = a;

			a = b;
			b = t;
			avars = expr_varnos(a);
			bvars = expr_varnos(b);
		}
		if (!(avars && bms_is_subset(avars, keep->rels) && bvars && bms_is_subset(bvars, other->rels)) ||
			exprType(a) != exprType(b) || has_outer_refs((Node *) e) ||
			checkExprHasSubLink((Node *) e) || contain_volatile_functions((Node *) e))
			return NULL;
		tce = lookup_type_cache(exprType(b), TYPECACHE_EQ_OPR);
		/* (both sides of one collation: the join "a = dv_k" must not meet two implicit ones) */
		if (!OidIsValid(tce->eq_opr) || e->opno != tce->eq_opr || e->inputcollid != exprCollation(b) ||
			exprCollation(a) != exprCollation(b))
			return NULL;
		appendStringInfo(&keys, "%s AS dv_k%d, ", deparse(g, b, other, "o", NULL, NULL), i);
		appendStringInfo(&cond, "%s(%s) %s s.dv_k%d", i > 1 ? " AND " : "",
						 deparse(g, a, keep, "k", NULL, NULL), dv_operator_sql(e->opno), i);
		appendStringInfo(&group, "%s%d", i > 1 ? ", " : "", i);
	}
	if (i == 0)
		return NULL;
	*on = cond.data;
	return add_cte(g, psprintf("SELECT %spg_catalog.sum(o.dv_weight) AS dv_s FROM %s o WHERE %s GROUP BY %s "
							   "HAVING pg_catalog.sum(o.dv_weight) <> 0",
							   keys.data, dother, deparse_quals(g, other_quals, other, "o", NULL, NULL),
							   group.data));
}

/*
 * pad_count_from_state - for the left join join whose left side has no
 * delta, the number of matches now of a row of its left side that the
 * right side's delta reaches (alias k, its dv_s the delta's matching
 * weights) as "the matches it had + dv_s", the matches it had read from the
 * state of the grouped subquery operator above (g->pad_state_op, whose new
 * state rows are being computed: its state is still the previous
 * refresh's), instead of counted in the right side now (an index probe per
 * reached row: TPC-H Q13's orders of each customer a changed order reaches).
 * Only when that state counts exactly those matches: the join is the
 * operator's whole input, grouped by one column of a scan on the left that
 * no left row has NULL and no two left rows share (so a group is one left
 * row, and with the left side unchanged it is the same row as before), and
 * one of its kept aggregates, without FILTER, reads a column of a scan on
 * the right that is declared NOT NULL and never padded below the join (its
 * non-NULL count n<j> is the group's matched rows, its padded row counting
 * 0).  NULL when that does not hold: the count is then taken in the right
 * side now (match_count_sql).
 */
/*
 * (a column of a relation read by rte declared NOT NULL: in the rows of its
 * inheritance children too, which a child may drop but a partition may not)
 */
static bool
column_not_null(RangeTblEntry *rte, AttrNumber attno)
{
	HeapTuple	tup;
	bool		notnull;

	if (rte->rtekind != RTE_RELATION)
		return false;
	if (rte->inh && get_rel_relkind(rte->relid) != RELKIND_PARTITIONED_TABLE && has_subclass(rte->relid))
		return false;
	tup = SearchSysCache2(ATTNUM, ObjectIdGetDatum(rte->relid), Int16GetDatum(attno));
	if (!HeapTupleIsValid(tup))
		return false;
	notnull = ((Form_pg_attribute) GETSTRUCT(tup))->attnotnull;
	ReleaseSysCache(tup);
	return notnull;
}

static char *
pad_count_from_state(DvGen *g, DvOp *join)
{
	DvOp	   *grp = g->pad_state_op;
	Query	   *level;
	Node	   *key;
	Var		   *kv;
	RangeTblEntry *rte;
	TypeCacheEntry *tce;
	List	   *aggs;
	bool		ok;
	int			n = 0;
	ListCell   *lc;

	if (grp == NULL || grp->inner == NULL || grp->inner->tree != join || join->jointype != JOIN_LEFT ||
		list_length(grp->inner->input_tlist) != 1 || group_state_key_hashed(grp, 1))
		return NULL;
	level = grp->inner->level;

	/* the group key: a column of a left scan, never NULL, unique among the left rows */
	key = strip_implicit_coercions((Node *) linitial_node(TargetEntry, grp->inner->input_tlist)->expr);
	if (!IsA(key, Var))
		return NULL;
	kv = (Var *) key;
	if (kv->varlevelsup != 0 || kv->varattno <= 0 || kv->varno < 1 || kv->varno > list_length(level->rtable) ||
		!preserved_scan(join->left, kv->varno))
		return NULL;
	rte = rt_fetch(kv->varno, level->rtable);
	if (!column_not_null(rte, kv->varattno))
		return NULL;
	tce = lookup_type_cache(kv->vartype, TYPECACHE_EQ_OPR);
	if (!OidIsValid(tce->eq_opr) ||
		!dv_optree_input_key(level, join->left, kv, tce->eq_opr, kv->varcollid))
		return NULL;

	/* an aggregate that counts the matched rows */
	aggs = group_state_aggs(grp, &ok);
	if (!ok)
		return NULL;
	foreach(lc, aggs)
	{
		GroupAgg   *ga = lfirst(lc);
		Node	   *arg = ga->arg ? strip_implicit_coercions(ga->arg) : NULL;
		Var		   *v;
		RangeTblEntry *r;

		if (arg == NULL || !IsA(arg, Var) || ga->aggref->aggfilter != NULL)
			continue;
		v = (Var *) arg;
		if (v->varlevelsup != 0 || v->varattno <= 0 || v->varno < 1 || v->varno > list_length(level->rtable) ||
			!preserved_scan(join->right, v->varno))
			continue;
		r = rt_fetch(v->varno, level->rtable);
		if (!column_not_null(r, v->varattno))
			continue;
		n = foreach_current_index(lc) + 1;
		break;
	}
	if (n == 0)
		return NULL;
	return psprintf("(COALESCE((SELECT x.n%d FROM %s x WHERE x.k1 %s %s), 0) + k.dv_s)",
					n, state_qualified(grp), dv_equality_operator(kv->vartype),
					deparse(g, key, join->left, "k", NULL, NULL));
}

/*
 * right_sql - "(rows)" of the right side of a join, "LATERAL (rows)" for a
 * function that reads the row of the left side (left, written as alias)
 */
static char *
right_sql(DvGen *g, DvOp *right, DvOp *left, const char *alias)
{
	char	   *sql;

	if (right->kind != DV_OP_FUNC || !right->lateral)
		return psprintf("(%s)", rows_sql(g, right));
	g->lateral_left = left;
	g->lateral_alias = alias;
	sql = psprintf("LATERAL (%s)", rows_sql(g, right));
	g->lateral_left = NULL;
	g->lateral_alias = NULL;
	return sql;
}

/* add a term to the WITH chain, materialized or as the planner likes; its name */
static char *
add_cte_as(DvGen *g, const char *sql, bool materialized)
{
	char	   *name = psprintf("dv_d%d", ++*g->next_id);

	appendStringInfo(g->with, "%s%s AS %s(%s)", g->with->len ? ", " : "", name,
					 materialized ? "MATERIALIZED " : "", sql);
	return name;
}

/* add a term to the WITH chain; its name */
static char *
add_cte(DvGen *g, const char *sql)
{
	return add_cte_as(g, sql, false);
}

/*
 * exist_terms - the delta of keep's rows weighted by a predicate of their
 * number of matches in other (semi: m > 0; anti, and the padded rows of an
 * outer join: m = 0), with pad_before / pad_after written around keep's
 * columns.  See optree.h for the rule.
 *
 * The rows each term reads (keep's rows now that the delta of other
 * reaches, and keep's delta) are a WITH entry of their own, numbered
 * (dv_rid), read once: the sums of the delta's weights per row are joined
 * to them by that number (match_sums_sql), and the counts of matches now (m,
 * a subquery per row: by an index of other where it has one) are computed
 * on those rows only, after any filter or join below them, never pushed
 * down into keep's rows before those cut them (the WITH entry is a fence).
 */
static void
exist_terms(DvGen *g, StringInfo terms, DvOp *keep, const char *dkeep, DvOp *other, const char *dother,
			List *quals, bool exists, const char *pad_before, const char *pad_after,
			const char *m_reached)
{
	const char *pred = exists ? "> 0" : "= 0";
	const char *m;
	const char *cols = col_list(keep, "k");
	char	   *knew;
	char	   *on = NULL;
	char	   *sums = key_sums(g, keep, other, dother, quals, &on);

	/*
	 * (a LATERAL function on the other side reads keep's row, written k;
	 * the count stops past the matches the delta's s can account for)
	 */
	m = match_count_sql(g, keep, other, quals, "GREATEST(k.dv_s, 0) + 1");
	reach_restrict(g, keep, other, dother, quals);
	knew = new_sql(g, keep);
	reach_reset(g);

	/*
	 * (the rows of keep the delta reaches are numbered in a WITH entry of
	 * their own, read once, for their sums, match_sums_sql; the OFFSET 0
	 * keeps dv_m a column of its own, each count computed once per row:
	 * pulled up, the count would be copied into each of its uses in dv_w
	 * and its test)
	 */
	if (dother)
	{
		/*
		 * (with the delta's sums by key, key_sums, the reached rows are
		 * those that meet a group, joined to it: their sums come with them)
		 */
		char	   *reached = sums
			? psprintf("SELECT k.*, s.dv_s::pg_catalog.int8 AS dv_s FROM (%s) k JOIN %s s ON %s", knew, sums, on)
			: match_sums_sql(g, add_cte(g, psprintf("SELECT k.*, pg_catalog.row_number() OVER () AS dv_rid FROM (%s) k WHERE %s",
													knew, reach_sql(g, keep, other, dother, quals))),
							 keep, other, dother, quals);

		appendStringInfo(terms,
						 "%sSELECT %s%s%sk.dv_w AS dv_weight FROM ("
						 "SELECT k.*, (CASE WHEN k.dv_m %s THEN 1 ELSE 0 END - CASE WHEN k.dv_m - k.dv_s %s THEN 1 ELSE 0 END)::pg_catalog.int8 AS dv_w FROM ("
						 "SELECT k.*, %s AS dv_m FROM (%s) k OFFSET 0) k) k "
						 "WHERE k.dv_w <> 0",
						 terms->len ? " UNION ALL " : "", pad_before, cols, pad_after,
						 pred, pred, m_reached ? m_reached : m, reached);
	}
	if (dkeep)
	{
		const char *krel;

		if (sums)
			krel = psprintf("SELECT k.*, COALESCE(s.dv_s, 0)::pg_catalog.int8 AS dv_s FROM %s k LEFT JOIN %s s ON %s",
							dkeep, sums, on);
		else
			krel = match_sums_sql(g, dother
								  ? add_cte(g, psprintf("SELECT k.*, pg_catalog.row_number() OVER () AS dv_rid FROM %s k", dkeep))
								  : dkeep,
								  keep, other, dother, quals);
		appendStringInfo(terms,
						 "%sSELECT %s%s%sk.dv_weight FROM ("
						 "SELECT k.*, %s AS dv_m FROM (%s) k) k WHERE k.dv_m - k.dv_s %s",
						 terms->len ? " UNION ALL " : "", pad_before, cols, pad_after,
						 m, krel, pred);
	}
}

/*
 * group_delta - the delta of a subquery operator: an SPJ subquery's is its
 * tree's; a grouped one's is its affected groups over NEW (+1) less the same
 * groups over OLD (-1), the groups found by the keys of its input's delta.
 */
static void
group_delta(DvGen *g, DvOp *op, StringInfo terms)
{
	DvPlan	   *inner = op->inner;
	int			rti = bms_singleton_member(op->rels);
	DvGen		ig;
	char	   *d;
	char	   *keys = NULL;
	ListCell   *lc;

	/*
	 * ORDER BY ... LIMIT: its rows over its input now (+1) and as it was
	 * (-1), the first rows of each in its order
	 */
	if (inner->node_topn)
	{
		gen_init(&ig, inner->level, g);
		d = delta_cte(&ig, inner->tree);
		appendStringInfo(terms, "SELECT s.*, 1::pg_catalog.int8 AS dv_weight FROM (%s) s "
						 "UNION ALL SELECT s.*, -1::pg_catalog.int8 FROM (%s) s",
						 group_sql(g, op, NULL, NULL, false), group_sql(g, op, d, NULL, false));
		return;
	}
	/* (groups kept in a state: from the state's new rows, not the input's delta) */
	if (reads_group_state(op) && has_delta(inner->tree))
	{
		group_state_delta(g, op, terms);
		return;
	}
	gen_init(&ig, inner->level, g);
	d = delta_cte(&ig, inner->tree);
	if (inner->kind == DV_PLAN_SPJ)
	{
		appendStringInfoString(terms, "SELECT ");
		foreach(lc, inner->input_tlist)
		{
			TargetEntry *te = lfirst_node(TargetEntry, lc);

			if (!te->resjunk)
				appendStringInfo(terms, "%s AS c%d_%d, ", deparse(&ig, (Node *) te->expr, inner->tree, "d", NULL, NULL),
								 rti, te->resno);
		}
		appendStringInfo(terms, "d.dv_weight FROM %s d", d);
		return;
	}
	if (d != NULL && inner->input_tlist == NIL && extreme_aggrefs(op) == NIL && reads_state(op))
	{
		value_state_delta(g, op, terms);
		return;
	}
	if (d != NULL && extreme_aggrefs(op) != NIL)
	{
		if (reads_state(op))
			state_extreme_delta(g, op, terms);
		else
			global_extreme_delta(g, op, &ig, d, extreme_aggrefs(op), terms);
		return;
	}
	if (inner->input_tlist != NIL)
	{
		StringInfoData k;
		StringInfoData names;
		int			prefix;

		initStringInfo(&k);
		initStringInfo(&names);
		appendStringInfoString(&k, "SELECT DISTINCT ");
		prefix = k.len;
		foreach(lc, inner->input_tlist)
		{
			appendStringInfo(&k, "%s%s AS k%d", foreach_current_index(lc) ? ", " : "",
							 deparse(&ig, (Node *) lfirst_node(TargetEntry, lc)->expr, inner->tree, "d", NULL, NULL),
							 foreach_current_index(lc) + 1);
			appendStringInfo(&names, "%sk.k%d", foreach_current_index(lc) ? ", " : "",
							 foreach_current_index(lc) + 1);
		}
		appendStringInfo(&k, " FROM %s d", d);
		if (g->keys_filter_op == op && g->keys_filter && !g->keys_filter_delta && g->keys_split_seen)
		{
			/*
			 * (after a keyed read, "seen OR (unread AND probe)": every
			 * changed row's key tested by "seen OR unread", two hashed
			 * subplans, before the DISTINCT, which then merges the few
			 * that pass, where it merged all the changed keys first (TPC-H
			 * Q17: 12,000 changed parts of lineitem, 13 in the partner's
			 * filter); the probe made after it, once a key, on those not
			 * seen.  The same keys pass (three-valued logic alike: seen
			 * NULL leaves "unread AND probe" to decide in both forms);
			 * seen is computed once a row (OFFSET 0), its subplan built
			 * once.)
			 */
			keys = add_cte(g, psprintf("SELECT %s FROM (SELECT DISTINCT * FROM (SELECT k.*, (%s) AS dv_seen FROM (SELECT %s) k OFFSET 0) k "
									   "WHERE k.dv_seen OR %s) k WHERE k.dv_seen OR %s",
									   names.data, g->keys_split_seen, k.data + prefix,
									   g->keys_split_unread, g->keys_split_probe));
		}
		else if (g->keys_filter_op == op && g->keys_filter && g->keys_filter_delta)
		{
			/* (the changed keys written once, read by both filters) */
			char	   *changed = add_cte(g, k.data);

			keys = add_cte(g, psprintf("SELECT * FROM %s k WHERE %s UNION SELECT * FROM %s k WHERE %s",
									   changed, g->keys_filter, changed, g->keys_filter_delta));
		}
		else if (g->keys_filter_op == op && g->keys_filter)
			keys = add_cte(g, psprintf("SELECT * FROM (%s) k WHERE %s", k.data, g->keys_filter));
		else
			keys = add_cte(g, k.data);
	}
	/* (found by both first keys where the index serves them: by_pair) */
	if (keys && by_pair(op))
	{
		appendStringInfo(terms, "SELECT s.*, 1::pg_catalog.int8 AS dv_weight FROM (%s) s "
						 "UNION ALL SELECT s.*, -1::pg_catalog.int8 FROM (%s) s "
						 "UNION ALL SELECT s.*, 1::pg_catalog.int8 FROM (%s) s "
						 "UNION ALL SELECT s.*, -1::pg_catalog.int8 FROM (%s) s",
						 group_sql(g, op, NULL, keys, KEYS_PAIR), group_sql(g, op, d, keys, KEYS_PAIR),
						 group_sql(g, op, NULL, keys, KEYS_NULLS), group_sql(g, op, d, keys, KEYS_NULLS));
		return;
	}
	appendStringInfo(terms, "SELECT s.*, 1::pg_catalog.int8 AS dv_weight FROM (%s) s "
					 "UNION ALL SELECT s.*, -1::pg_catalog.int8 FROM (%s) s",
					 group_sql(g, op, NULL, keys, KEYS_K1), group_sql(g, op, d, keys, KEYS_K1));
	if (keys)
		appendStringInfo(terms, " UNION ALL SELECT s.*, 1::pg_catalog.int8 FROM (%s) s "
						 "UNION ALL SELECT s.*, -1::pg_catalog.int8 FROM (%s) s",
						 group_sql(g, op, NULL, keys, KEYS_K1_NULL), group_sql(g, op, d, keys, KEYS_K1_NULL));
}

static bool
collect_aggrefs_walker(Node *node, List **aggrefs)
{
	if (node == NULL)
		return false;
	if (IsA(node, Aggref))
	{
		*aggrefs = lappend(*aggrefs, node);
		return false;			/* (an aggregate's argument has none of this level) */
	}
	if (IsA(node, Query))
		return false;
	return expression_tree_walker(node, collect_aggrefs_walker, (void *) aggrefs);
}

/*
 * numeric_fixed_scale - the scale every non-NULL value of the numeric
 * expression e (over the range table of q) has, or -1 if it is not known
 * to be one: a column or cast with a declared scale, a constant, an integer
 * cast to numeric, a sum or difference (the greater scale) or product (the
 * sum of the scales) of such, their sum, min or max, and a column of a
 * subquery in FROM that is one.  Then equal values print alike.
 */
static int
numeric_fixed_scale(Node *e, Query *q)
{
	if (e == NULL || exprType(e) != NUMERICOID)
		return -1;
	if (exprTypmod(e) >= (int32) VARHDRSZ)
	{
		/*
		 * numeric(p, s): s is the typmod's low 11 bits, signed (as numeric.c
		 * decodes it); a negative scale (numeric(5, -2)) rounds to hundreds,
		 * leaving values without decimals, at display scale 0
		 */
		int			scale = ((((exprTypmod(e) - VARHDRSZ) & 0x7ff) ^ 1024) - 1024);

		return Max(scale, 0);
	}
	if (IsA(e, Const))
	{
		Const	   *c = (Const *) e;

		char	   *text;
		char	   *point;

		if (c->constisnull)
			return -1;
		text = DatumGetCString(DirectFunctionCall1(numeric_out, c->constvalue));
		if (strspn(text, "-0123456789.") != strlen(text))
			return -1;			/* NaN, Infinity */
		point = strchr(text, '.');
		return point ? (int) strlen(point + 1) : 0;
	}
	if (IsA(e, Var))
	{
		Var		   *v = (Var *) e;
		RangeTblEntry *rte;
		TargetEntry *tle;

		if (q == NULL || v->varlevelsup != 0 || v->varno < 1 || v->varno > list_length(q->rtable))
			return -1;
		rte = rt_fetch(v->varno, q->rtable);
		if (rte->rtekind != RTE_SUBQUERY || rte->subquery->setOperations != NULL ||
			rte->subquery->hasTargetSRFs)
			return -1;
		tle = get_tle_by_resno(rte->subquery->targetList, v->varattno);
		if (tle == NULL)
			return -1;
		return numeric_fixed_scale((Node *) tle->expr, rte->subquery);
	}
	if (IsA(e, FuncExpr))
	{
		FuncExpr   *f = (FuncExpr *) e;

		/* int2, int4, int8 to numeric: scale 0 */
		if ((f->funcid == F_NUMERIC_INT2 || f->funcid == F_NUMERIC_INT4 || f->funcid == F_NUMERIC_INT8) &&
			list_length(f->args) == 1)
			return 0;
		return -1;
	}
	if (IsA(e, OpExpr) && list_length(((OpExpr *) e)->args) == 2)
	{
		OpExpr	   *o = (OpExpr *) e;
		int			l = numeric_fixed_scale(linitial(o->args), q);
		int			r = numeric_fixed_scale(lsecond(o->args), q);

		if (l < 0 || r < 0)
			return -1;
		if (o->opfuncid == F_NUMERIC_ADD || o->opfuncid == F_NUMERIC_SUB)
			return Max(l, r);
		if (o->opfuncid == F_NUMERIC_MUL && l + r <= NUMERIC_MAX_DISPLAY_SCALE)
			return l + r;
		return -1;
	}
	if (IsA(e, Aggref))
	{
		Aggref	   *a = (Aggref *) e;

		if (a->aggfnoid == F_SUM_INT8 && a->aggfilter == NULL)
			return 0;
		if (a->aggfilter != NULL || list_length(a->args) != 1 ||
			(a->aggfnoid != F_SUM_NUMERIC && a->aggfnoid != F_MIN_NUMERIC && a->aggfnoid != F_MAX_NUMERIC))
			return -1;
		return numeric_fixed_scale((Node *) linitial_node(TargetEntry, a->args)->expr, q);
	}
	return -1;
}

/* numeric_fixed_scale for other modules (delta.c: sums that need no scale counts) */
int
dv_numeric_fixed_scale(Node *e, Query *q)
{
	return numeric_fixed_scale(e, q);
}

/*
 * extreme_aggrefs - the aggregates of a global aggregate subquery operator
 * (no GROUP BY, grouping sets or DISTINCT) if every one is a plain aggregate
 * equal to the first of its input in an ordering (pg_aggregate.aggsortop:
 * min, max, bool_and, bool_or and the like), of one argument, without
 * DISTINCT, ORDER BY or FILTER; NIL otherwise.
 */
static List *
extreme_aggrefs(DvOp *op)
{
	DvPlan	   *inner = op->inner;
	Query	   *gq;
	List	   *aggrefs = NIL;
	ListCell   *lc;

	if (op->kind != DV_OP_GROUP || inner->kind != DV_PLAN_GROUPED || inner->input_tlist != NIL ||
		inner->node_topn)
		return NIL;
	gq = inner->grouped_level;
	if (!gq->hasAggs || gq->groupClause || gq->groupingSets || gq->distinctClause ||
		gq->hasWindowFuncs || gq->hasTargetSRFs)
		return NIL;
	(void) collect_aggrefs_walker((Node *) gq->targetList, &aggrefs);
	(void) collect_aggrefs_walker(gq->havingQual, &aggrefs);
	foreach(lc, aggrefs)
	{
		Aggref	   *a = lfirst_node(Aggref, lc);
		HeapTuple	tup;
		Oid			sortop;

		if (a->agglevelsup != 0 || a->aggkind != AGGKIND_NORMAL || a->aggdistinct || a->aggorder ||
			a->aggfilter || list_length(a->args) != 1 || a->aggstar ||
			contain_volatile_functions((Node *) a->args))
			return NIL;

		/*
		 * Of equal values that print differently (numeric 2.5 and 2.50,
		 * float 0 and -0), which one min or max returns depends on the order
		 * it meets them in: the first row in the ordering may not be the one
		 * the query shows.  Such extremes are recomputed, as in a group,
		 * unless every value has one scale (TPC-H Q15's sum of products of
		 * numeric(15,2) columns).
		 */
		if (!dv_equality_is_identity(exprType((Node *) linitial_node(TargetEntry, a->args)->expr),
									 exprTypmod((Node *) linitial_node(TargetEntry, a->args)->expr),
									 a->inputcollid) &&
			numeric_fixed_scale((Node *) linitial_node(TargetEntry, a->args)->expr, gq) < 0)
			return NIL;
		tup = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(a->aggfnoid));
		if (!HeapTupleIsValid(tup))
			return NIL;
		sortop = ((Form_pg_aggregate) GETSTRUCT(tup))->aggsortop;
		ReleaseSysCache(tup);
		if (!OidIsValid(sortop))
			return NIL;
	}
	return aggrefs;
}

/*
 * global_extreme_delta - the delta of a global aggregate subquery operator
 * whose aggregates are all extremes (extreme_aggrefs): its one row now and
 * its row as it was, each computed once.  The input's rows now (NEW) are
 * computed once (a WITH entry, which the operator's rows now are read from
 * wherever the statement reads them) and aggregated; for each aggregate j
 * its first row in j's ordering is kept (e_j).  If no inserted row of the
 * input's delta (weight > 0) reaches an extreme, m_j, of the rows now (its
 * value not NULL and not after m_j in j's ordering), the row that gave m_j
 * was there before the change, so each aggregate over the rows as they
 * were is its value over e_1..e_n and the deleted rows (weight < 0): the
 * rows as they were are those minus the net inserted ones plus the net
 * deleted ones, and a deleted row that is not deleted on balance has an
 * inserted copy, which reaches no extreme.  Otherwise the rows as they were
 * are computed as for any grouped subquery (its input's NEW less DELTA).
 * The two rows cancel when their text is the same: the delta is empty when
 * the aggregates did not change.
 */
static void
global_extreme_delta(DvGen *g, DvOp *op, DvGen *ig, const char *d, List *aggrefs, StringInfo terms)
{
	DvPlan	   *inner = op->inner;
	char	   *ni = add_cte(g, rows_sql(ig, inner->tree));
	char	   *cols = chop(col_list(inner->tree, "x"));
	StringInfoData reduced;
	StringInfoData reach;
	char	   *ok;
	char	   *now;
	char	   *was;
	ListCell   *lc;

	initStringInfo(&reduced);
	initStringInfo(&reach);
	foreach(lc, aggrefs)
	{
		Aggref	   *a = lfirst_node(Aggref, lc);
		Node	   *arg = (Node *) linitial_node(TargetEntry, a->args)->expr;
		HeapTuple	tup = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(a->aggfnoid));
		char	   *sortop;
		char	   *collate;
		char	   *ej;

		if (!HeapTupleIsValid(tup))
			elog(ERROR, "cache lookup failed for aggregate %u", a->aggfnoid);
		sortop = dv_operator_sql(((Form_pg_aggregate) GETSTRUCT(tup))->aggsortop);
		ReleaseSysCache(tup);
		collate = OidIsValid(a->inputcollid)
			? psprintf(" COLLATE %s", generate_collation_name(a->inputcollid)) : "";
		ej = add_cte(g, psprintf("SELECT * FROM %s x ORDER BY (%s)%s USING %s NULLS LAST LIMIT 1", ni,
								 deparse(ig, arg, inner->tree, "x", NULL, NULL), collate, sortop));
		appendStringInfo(&reduced, "SELECT %s FROM %s x UNION ALL ", cols, ej);

		/*
		 * a row of the delta reaches m_j unless m_j comes first (m_j OP x);
		 * a NULL x never does, and with m_j NULL (no e_j) every other one does
		 */
		if (foreach_current_index(lc) > 0)
			appendStringInfoString(&reach, " OR ");
		appendStringInfo(&reach, "((%s) IS NOT NULL AND NOT EXISTS (SELECT FROM %s e WHERE (%s)%s %s (%s)%s))",
						 deparse(ig, arg, inner->tree, "x", NULL, NULL), ej,
						 deparse(ig, arg, inner->tree, "e", NULL, NULL), collate, sortop,
						 deparse(ig, arg, inner->tree, "x", NULL, NULL), collate);
	}
	appendStringInfo(&reduced, "SELECT %s FROM %s x WHERE x.dv_weight < 0", cols, d);
	ok = add_cte(g, psprintf("SELECT NOT EXISTS (SELECT FROM %s x WHERE x.dv_weight > 0 AND (%s)) AS dv_ok",
							 d, reach.data));
	now = add_cte(g, group_sql_over(g, op, NULL, NULL, false, psprintf("SELECT * FROM %s", ni)));
	*g->new_ctes = lappend(*g->new_ctes, list_make2(op, now));
	was = add_cte(g, psprintf("SELECT s.* FROM (%s) s WHERE (SELECT dv_ok FROM %s) "
							  "UNION ALL SELECT s.* FROM (%s) s WHERE NOT (SELECT dv_ok FROM %s)",
							  group_sql_over(g, op, NULL, NULL, false, reduced.data), ok,
							  group_sql(g, op, d, NULL, false), ok));
	appendStringInfo(terms, "SELECT n.*, 1::pg_catalog.int8 AS dv_weight FROM %s n "
					 "WHERE NOT EXISTS (SELECT FROM %s o WHERE ROW(o.*)::text = ROW(n.*)::text) "
					 "UNION ALL SELECT o.*, -1::pg_catalog.int8 FROM %s o "
					 "WHERE NOT EXISTS (SELECT FROM %s n WHERE ROW(n.*)::text = ROW(o.*)::text)",
					 now, was, was, now);
}

/* ---------------------------------------------------------------------
 * Operator state: the extreme rows of a global aggregate (optree.h)
 * ---------------------------------------------------------------------
 */

/* read operator states in the statements generated now (an incremental refresh) */
static bool use_state = false;

void
dv_optree_use_state(bool use)
{
	use_state = use;
}

void
dv_optree_leave_implied_filters(bool on)
{
	leave_implied_filters = on;
}

char *
dv_optree_state_name(DvOp *op)
{
	return psprintf("ext_%u_%d", op->state_table, op->state_id);
}

static char *
state_qualified(DvOp *op)
{
	return psprintf("dynview_state.%s", quote_identifier(dv_optree_state_name(op)));
}

static char *state_column_type(Oid type, int32 typmod);

/*
 * state_shape_matches - are the columns of state table relid those op's
 * state has (names, types, NOT NULL, in order: dv_optree_state_columns)?
 * A table built for another operator (states are numbered by the plan's
 * shape, which a new version of the rules may change) or altered by hand
 * is not read: the refresh is FULL (STATE_MISSING) and rebuilds it.
 */
static bool
state_shape_matches(DvOp *op, Oid relid)
{
	Relation	rel = try_relation_open(relid, AccessShareLock);
	StringInfoData have;
	bool		same;

	if (rel == NULL)
		return false;
	initStringInfo(&have);
	for (int i = 0; i < RelationGetDescr(rel)->natts; i++)
	{
		Form_pg_attribute a = TupleDescAttr(RelationGetDescr(rel), i);

		if (a->attisdropped)
			continue;
		appendStringInfo(&have, "%s%s %s%s", have.len ? ", " : "", NameStr(a->attname),
						 state_column_type(a->atttypid, a->atttypmod), a->attnotnull ? " NOT NULL" : "");
	}
	relation_close(rel, AccessShareLock);
	same = strcmp(have.data, dv_optree_state_columns(op)) == 0;
	pfree(have.data);
	return same;
}

/*
 * dv_optree_state_usable - has op a state, is its table there and owned by
 * the dynamic table's owner (who alone writes it)?  Catalog lookups only.
 */
bool
dv_optree_state_usable(DvOp *op)
{
	Oid			nsp;
	Oid			relid;
	Oid			owners[2];

	if (op->state_id == 0)
		return false;
	nsp = get_namespace_oid("dynview_state", true);
	relid = OidIsValid(nsp) ? get_relname_relid(dv_optree_state_name(op), nsp) : InvalidOid;
	if (!OidIsValid(relid))
		return false;
	for (int i = 0; i < 2; i++)
	{
		HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(i == 0 ? relid : op->state_table));

		if (!HeapTupleIsValid(tup))
			return false;
		owners[i] = ((Form_pg_class) GETSTRUCT(tup))->relowner;
		ReleaseSysCache(tup);
	}
	return owners[0] == owners[1] && state_shape_matches(op, relid);
}

/* does the statement generated now read op's state? */
static bool
reads_state(DvOp *op)
{
	return use_state && op->kind == DV_OP_GROUP && op->state_id > 0 && dv_optree_state_usable(op);
}

/* the scan under the filter op and the filters below it, or NULL if another operator is */
static DvOp *
filter_chain_scan(DvOp *op)
{
	while (op != NULL && op->kind == DV_OP_FILTER)
		op = op->left;
	return op != NULL && op->kind == DV_OP_SCAN ? op : NULL;
}

/* the conditions of the filter op and of the filters below it, down to its scan (palloc'd list) */
static List *
filter_chain_quals(DvOp *op)
{
	List	   *quals = NIL;

	for (; op->kind == DV_OP_FILTER; op = op->left)
		quals = list_concat(quals, op->quals);
	return quals;
}

/*
 * reads_filter_state - does the statement generated now read the rows now
 * of the filter op from its filter state (optree.h)?  Not while its scan
 * is being read restricted to a grouped subquery's affected keys
 * (g->restrict_rti: the source is read so restricted, as without a
 * state), nor restricted to the values a delta equates a column with
 * (g->reach_rti) unless that column is the key of an optional state
 * (DvOp state_optional, always built with its index on the key; a
 * partner filter's state made by an older build has none): then the
 * state is read so restricted, through that index (TPC-H Q22's customers
 * of the changed orders), reads_filter_state_reached.
 */
static bool
reads_filter_state(DvGen *g, DvOp *op)
{
	Index		rti;

	if (!use_state || op->kind != DV_OP_FILTER || op->state_id == 0 || filter_chain_scan(op) == NULL)
		return false;
	rti = filter_chain_scan(op)->source->rtindex;
	if (g != NULL && g->restrict_rti == (int) rti)
		return false;
	if (g != NULL && g->reach_rti == (int) rti &&
		(!op->state_optional || filter_state_key(op) == NULL || filter_state_key(op)->attno != g->reach_attno))
		return false;
	return dv_optree_state_usable(op);
}

/* is the filter state read now (reads_filter_state) restricted to the values g->reach_array? */
static bool
reads_filter_state_reached(DvGen *g, DvOp *op)
{
	return g != NULL && g->reach_rti != 0 && g->reach_rti == (int) filter_chain_scan(op)->source->rtindex;
}

/*
 * filter_state_key - can the filter op keep its rows now in a filter state
 * (optree.h), and by which of its columns are the rows a window changes
 * found?  op a filter over a scan under filters only (bare_scan: the top
 * of the chain holds the state), one of whose conditions compares a column
 * or an expression with constants, or is an OR of such comparisons
 * (selective_qual: it keeps the rows of a few values),
 * whose source has a primary key whose first column is one of the scan's
 * columns (the window's rows carry it; its index reads the source's rows
 * of the changed keys), compared by its type's default equality (the
 * index's operator family), with an array type.  Each column of the scan
 * has the source column's own type (not a domain: the state's column has
 * the base type the window has) and, if collatable, the default collation
 * (the state's column has it), and can be stored.  The column, or NULL.
 * (Exactness does not rest on the key being unique: every row of the
 * state whose key equals a changed one is replaced by every row of the
 * source with that key now.)  Needs a transaction (catalog reads);
 * uncached (filter_state_key caches it).
 */
static DvOpCol *
filter_state_key_ask(DvOp *op)
{
	DvOp	   *scan;
	Relation	rel;
	Oid			pk;
	AttrNumber	attno = InvalidAttrNumber;
	Oid			opfamily = InvalidOid;
	DvOpCol    *key = NULL;
	bool		constant = false;
	List	   *quals;
	ListCell   *lc;

	if (op->kind != DV_OP_FILTER || (scan = filter_chain_scan(op)) == NULL)
		return NULL;
	quals = filter_chain_quals(op);
	foreach(lc, quals)
		constant = constant || selective_qual(lfirst(lc));
	if (!constant || contain_mutable_functions((Node *) quals) || has_outer_refs((Node *) quals) ||
		checkExprHasSubLink((Node *) quals) || !bms_equal(expr_varnos((Node *) quals), scan->rels))
		return NULL;
	rel = try_relation_open(scan->source->relid, AccessShareLock);
	if (rel == NULL)
		return NULL;
	pk = RelationGetPrimaryKeyIndex(rel);
	relation_close(rel, AccessShareLock);
	if (OidIsValid(pk))
	{
		Relation	index = index_open(pk, AccessShareLock);

		if (index->rd_index->indnkeyatts >= 1)
		{
			attno = index->rd_index->indkey.values[0];
			opfamily = index->rd_opfamily[0];
		}
		index_close(index, AccessShareLock);
	}
	if (attno <= 0)
		return NULL;
	foreach(lc, op->cols)
	{
		DvOpCol    *col = lfirst(lc);
		Oid			type;
		int32		typmod;
		Oid			coll;

		get_atttypetypmodcoll(scan->source->relid, col->attno, &type, &typmod, &coll);
		if (type != col->type || get_typtype(col->type) == TYPTYPE_PSEUDO ||
			(OidIsValid(coll) && coll != DEFAULT_COLLATION_OID))
			return NULL;
		if (col->attno == attno)
			key = col;
	}
	if (key == NULL || !OidIsValid(get_array_type(key->type)))
		return NULL;
	{
		TypeCacheEntry *tc = lookup_type_cache(key->type, TYPECACHE_EQ_OPR | TYPECACHE_BTREE_OPFAMILY);

		if (!OidIsValid(tc->eq_opr) || tc->btree_opf != opfamily)
			return NULL;
	}
	return key;
}

/*
 * filter_state_key - filter_state_key_ask, asked once per operator: its
 * answer, a column or none, kept in op (state_key, state_key_known), so
 * with the operator tree and dropped with it (the plan cache entry's; a
 * catalog change that could change the answer invalidates that entry).
 * Set only once the answer is complete (an error leaves it unasked).
 */
static DvOpCol *
filter_state_key(DvOp *op)
{
	if (!op->state_key_known)
	{
		op->state_key = filter_state_key_ask(op);
		op->state_key_known = true;
	}
	return op->state_key;
}

/*
 * filter_state_rows_ask - the rows the filter chain op keeps, as estimated
 * from the statistics of its source (pg_class.reltuples, the product of its
 * conditions' qual_fraction), and that fraction in *fraction; -1 when the
 * source was never analysed.  Catalog reads (AccessShareLock on the source).
 */
static double
filter_state_rows_ask(DvOp *op, double *fraction)
{
	Relation	rel = try_relation_open(filter_chain_scan(op)->source->relid, AccessShareLock);
	double		tuples;
	double		f = 1.0;
	ListCell   *lc;

	*fraction = 1.0;
	if (rel == NULL)
		return -1;
	tuples = rel->rd_rel->reltuples;
	if (tuples > 0)
	{
		foreach(lc, filter_chain_quals(op))
			f *= qual_fraction(lfirst(lc), rel, tuples);
	}
	relation_close(rel, AccessShareLock);
	*fraction = f;
	return tuples < 0 ? -1 : f * tuples;
}

/*
 * filter_state_rows - filter_state_rows_ask, asked once per operator: its
 * answers kept in op (state_rows, state_fraction, state_rows_known) like
 * filter_state_key's, so with the operator tree and dropped with it (the
 * plan cache entry's, which a relcache invalidation of the source drops:
 * ANALYZE and VACUUM, which change reltuples and the statistics, send
 * one).  Set only once the answer is complete (an error leaves it unasked).
 */
static double
filter_state_rows(DvOp *op, double *fraction)
{
	if (!op->state_rows_known)
	{
		op->state_rows = filter_state_rows_ask(op, &op->state_fraction);
		op->state_rows_known = true;
	}
	*fraction = op->state_fraction;
	return op->state_rows;
}

/*
 * The most rows, and the largest fraction of its source's rows, that an
 * optional filter state (DvOp state_optional) is built for: below that,
 * reading the state whole and hashing it costs less than probing the
 * source by key for a change of a few thousand rows (TPC-H Q19's parts,
 * Q22's customers: bench/README.md), and the state's copy is small.  A
 * source of fewer than DV_PROBE_MIN_ROWS rows is read whole anyway.
 */
#define DV_FILTER_STATE_MAX_ROWS 100000
#define DV_FILTER_STATE_MAX_FRACTION 0.1

/* does the estimate of filter_state_rows fall within the bounds divided by div? */
static bool
filter_state_small(DvOp *op, double div)
{
	double		fraction;
	double		rows = filter_state_rows(op, &fraction);
	double		tuples = rows >= 0 && fraction > 0 ? rows / fraction : -1;

	return rows >= 0 && tuples >= DV_PROBE_MIN_ROWS &&
		rows <= DV_FILTER_STATE_MAX_ROWS / div && fraction <= DV_FILTER_STATE_MAX_FRACTION / div;
}

/*
 * dv_optree_filter_state_chosen - is op's filter state built when the
 * table's states are (its creation, a FULL refresh)?  Every filter state
 * wanted by a partner filter; an optional one (state_optional) when its
 * filter keeps at most DV_FILTER_STATE_MAX_ROWS rows and
 * DV_FILTER_STATE_MAX_FRACTION of its source by the statistics
 * (filter_state_rows).  Catalog reads.
 */
bool
dv_optree_filter_state_chosen(DvOp *op)
{
	if (op->kind != DV_OP_FILTER || op->state_id == 0)
		return false;
	return !op->state_optional || filter_state_small(op, 1);
}

/*
 * dv_optree_filter_state_unneeded - may op, an optional filter state whose
 * table is not there (not built: dv_optree_filter_state_chosen was false,
 * or dropped), go without it until the next FULL refresh, its source read
 * as without a state?  Unless the statistics now give a quarter of the
 * bounds or less (so that statistics moving around them do not make
 * refreshes FULL one after the other); then the refresh is FULL and builds
 * it.  False for any other operator.  Catalog reads.
 */
bool
dv_optree_filter_state_unneeded(DvOp *op)
{
	return op->kind == DV_OP_FILTER && op->state_id > 0 && op->state_optional &&
		!filter_state_small(op, 4);
}

/*
 * dv_optree_filter_state_index_column - the column of op's filter state
 * that its index is built on (the key: the rows a window changes are
 * replaced by it, and a read restricted to a delta's values of it probes
 * it), or NULL when op keeps no filter state.
 */
char *
dv_optree_filter_state_index_column(DvOp *op)
{
	if (op->kind != DV_OP_FILTER || op->state_id == 0 || filter_state_key(op) == NULL)
		return NULL;
	return col_name(filter_state_key(op));
}

/* the source's name of the filter state's key column (explain()), quoted */
static const char *
filter_state_key_name(DvOp *op)
{
	ListCell   *lc;
	ListCell   *ln;

	forboth(lc, op->cols, ln, filter_chain_scan(op)->source->columns)
	{
		if (lfirst(lc) == filter_state_key(op))
			return quote_identifier(strVal(lfirst(ln)));
	}
	return "?";
}

/*
 * filter_state_new_sql - the rows now of the filter op with a filter state
 * (dv_optree_state_new_sql; its scan's window registered): the state's
 * rows whose key no row of the window has (an anti-join), and the source's rows now of
 * the window's keys that pass the filter (read by key: "= ANY (ARRAY)",
 * and a NULL key, which "=" matches nowhere, by IS NULL).  A row the
 * window did not change is as it was at the data snapshot, when the state
 * was exact.
 */
static char *
filter_state_new_sql(DvOp *op)
{
	DvOpCol    *key = filter_state_key(op);
	DvGen		ig;
	char	   *d;
	char	   *keys;
	char	   *kc;
	char	   *eq;
	char	   *now;
	char	   *nulls;
	char	   *kept;
	Oid			eqopr;
	bool		save = use_state;

	if (key == NULL)
		elog(ERROR, "filter state without a key column");
	eqopr = lookup_type_cache(key->type, TYPECACHE_EQ_OPR)->eq_opr;
	eq = dv_operator_sql(eqopr);
	kc = col_name(key);
	gen_init(&ig, op->state_level, NULL);
	d = delta_cte(&ig, filter_chain_scan(op));
	if (d == NULL)
		return NULL;
	keys = add_cte(&ig, psprintf("SELECT d.%s AS k1 FROM %s d", kc, d));
	/* (an anti-join the planner hashes; a NULL key matches no "=": tested apart) */
	kept = psprintf("SELECT * FROM %s x WHERE NOT EXISTS (SELECT FROM %s k WHERE x.%s %s k.k1) "
					"AND NOT (x.%s IS NULL AND EXISTS (SELECT FROM %s k WHERE k.k1 IS NULL))",
					state_qualified(op), keys, kc, eq, kc, keys);
	/* (the source read, not the state: the scan restricted as reach_restrict does) */
	use_state = false;
	PG_TRY();
	{
		reach_set(&ig, filter_chain_scan(op)->source->rtindex, key->attno, eqopr,
				  psprintf("ARRAY(SELECT k.k1 FROM %s k WHERE k.k1 IS NOT NULL)", keys), NULL);
		ig.reach_done = false;
		now = rows_sql(&ig, op);
		if (!ig.reach_done)
			elog(ERROR, "filter state's key column not read");
		reach_reset(&ig);
		nulls = psprintf("SELECT * FROM (%s) n WHERE n.%s IS NULL AND EXISTS (SELECT FROM %s k WHERE k.k1 IS NULL)",
						 rows_sql(&ig, op), kc, keys);
	}
	PG_FINALLY();
	{
		use_state = save;
	}
	PG_END_TRY();
	return psprintf("WITH %s %s UNION ALL %s UNION ALL %s", ig.with->data, kept, now, nulls);
}

/*
 * value_state_eligible - can the subquery operator op keep its row?  Any
 * other aggregate without GROUP BY (one row at most: no windows, no
 * set-returning functions) whose columns can be stored.
 */
static bool
value_state_eligible(DvOp *op)
{
	DvPlan	   *inner = op->inner;
	ListCell   *lc;

	if (inner->kind != DV_PLAN_GROUPED || inner->input_tlist != NIL || inner->window_node ||
		inner->grouped_level == NULL || inner->grouped_level->hasTargetSRFs ||
		inner->grouped_level->hasWindowFuncs || inner->grouped_level->groupingSets)
		return false;
	foreach(lc, op->cols)
	{
		if (get_typtype(((DvOpCol *) lfirst(lc))->type) == TYPTYPE_PSEUDO)
			return false;
	}
	return true;
}

/*
 * state_eligible - can the subquery operator op keep its extreme rows?  A
 * global aggregate of extremes (extreme_aggrefs) whose aggregates compare
 * under the default collation (or none: the state's columns have their
 * type's default collation) and whose input's columns can be stored.
 */
static bool
state_eligible(DvOp *op)
{
	List	   *aggrefs = extreme_aggrefs(op);
	ListCell   *lc;

	if (op->inner->tree == NULL || op->inner->node_topn)
		return false;
	if (op->inner->input_tlist != NIL)
		return group_state_eligible(op);
	if (aggrefs == NIL)
		return value_state_eligible(op);
	foreach(lc, aggrefs)
	{
		Aggref	   *a = lfirst_node(Aggref, lc);

		if (OidIsValid(a->inputcollid) && a->inputcollid != DEFAULT_COLLATION_OID)
			return false;
	}
	foreach(lc, op->inner->tree->cols)
	{
		if (get_typtype(((DvOpCol *) lfirst(lc))->type) == TYPTYPE_PSEUDO)
			return false;
	}
	return true;
}

static void assign_states_plan(DvPlan *plan, Oid relid, int *n, List **ops);
static void assign_states_node(DvPlan *input, Oid relid, int *n, List **ops);

/*
 * constant_filter_qual_ex - is qual a comparison of a column with constants
 * by equality (col = const, col IN (consts))?  Such a filter keeps the rows
 * of a few values of the column.  With expr, the column may also be an
 * expression of the level's columns (TPC-H Q22's substring(c_phone from 1
 * for 2) IN (...): it keeps the rows of a few values of the expression;
 * the caller checks it is immutable).  *nvalues (if not NULL) gets the
 * number of constants, *arg the column or expression compared.
 */
static bool
constant_filter_qual_ex(Node *qual, bool expr, int *nvalues, Node **arg)
{
	List	   *args;
	Oid			opno;
	Node	   *a;
	Node	   *b;
	List	   *interp;
	ListCell   *lc;
	bool		eq = false;
	int			n = 1;

	if (IsA(qual, OpExpr) && list_length(((OpExpr *) qual)->args) == 2)
	{
		args = ((OpExpr *) qual)->args;
		opno = ((OpExpr *) qual)->opno;
	}
	else if (IsA(qual, ScalarArrayOpExpr) && ((ScalarArrayOpExpr *) qual)->useOr)
	{
		args = ((ScalarArrayOpExpr *) qual)->args;
		opno = ((ScalarArrayOpExpr *) qual)->opno;
	}
	else
		return false;
	a = strip_implicit_coercions(linitial(args));
	b = strip_implicit_coercions(lsecond(args));
	if (IsA(a, Const))
	{
		Node	   *t = a;

		/* (const = ANY (column): not the rows of a few values of an expression) */
		if (expr && IsA(qual, ScalarArrayOpExpr))
			return false;
		a = b;
		b = t;
	}
	if (IsA(a, Var))
	{
		if (((Var *) a)->varlevelsup != 0)
			return false;
	}
	else if (!expr || !contain_var_clause(a) || contain_vars_of_level(a, 1) ||
			 checkExprHasSubLink(a) || contain_aggs_of_level(a, 0) || contain_windowfuncs(a))
		return false;
	if (IsA(b, ArrayExpr) && IsA(qual, ScalarArrayOpExpr))
	{
		/* (IN (c1, c2...) before the planner folds it into one constant) */
		foreach(lc, ((ArrayExpr *) b)->elements)
		{
			Node	   *c = strip_implicit_coercions(lfirst(lc));

			if (!IsA(c, Const) || ((Const *) c)->constisnull)
				return false;
		}
		n = list_length(((ArrayExpr *) b)->elements);
	}
	else if (!IsA(b, Const) || ((Const *) b)->constisnull)
		return false;
	else if (IsA(qual, ScalarArrayOpExpr) && IsA(strip_implicit_coercions(linitial(args)), Const) == false &&
			 type_is_array(((Const *) b)->consttype))
	{
		ArrayType  *arr = DatumGetArrayTypeP(((Const *) b)->constvalue);

		n = ArrayGetNItems(ARR_NDIM(arr), ARR_DIMS(arr));
	}
	interp = get_op_btree_interpretation(opno);
	foreach(lc, interp)
		eq |= ((OpBtreeInterpretation *) lfirst(lc))->strategy == BTEqualStrategyNumber;
	list_free_deep(interp);
	if (nvalues)
		*nvalues = n;
	if (arg)
		*arg = a;
	return eq;
}

/* constant_filter_qual_ex of a column only */
static bool
constant_filter_qual(Node *qual)
{
	return constant_filter_qual_ex(qual, false, NULL, NULL);
}

/*
 * selective_qual - does qual keep the rows of a few values of some column
 * or expression: a comparison with constants by equality
 * (constant_filter_qual_ex, expressions too), an AND of which one
 * conjunct is, or an OR each of whose arms is (TPC-H Q19's part-only
 * disjunction implied by its OR of conjunct groups: brand and container
 * in each)?  Shape only, no statistics.
 */
static bool
selective_qual(Node *qual)
{
	ListCell   *lc;

	if (constant_filter_qual_ex(qual, true, NULL, NULL))
		return true;
	if (is_andclause(qual))
	{
		foreach(lc, ((BoolExpr *) qual)->args)
		{
			if (selective_qual(lfirst(lc)))
				return true;
		}
		return false;
	}
	if (is_orclause(qual))
	{
		foreach(lc, ((BoolExpr *) qual)->args)
		{
			if (!selective_qual(lfirst(lc)))
				return false;
		}
		return true;
	}
	return false;
}

/*
 * qual_fraction - the fraction of rel's rows (reltuples of them, > 0)
 * that qual keeps, as estimated for a filter state (filter_state_rows):
 * a comparison with n constants (constant_filter_qual_ex) keeps n x the
 * rows per value of its column over reltuples (dv_rows_per_value), or
 * n x DV_FILTER_STATE_EQ_SEL of an expression or a column without
 * statistics (PostgreSQL's own default equality selectivity); an AND the
 * product of its conjuncts', an OR the sum of its arms' (at most 1); any
 * other condition 1.  Catalog reads; rel open and locked by the caller.
 */
#define DV_FILTER_STATE_EQ_SEL 0.005

static double
qual_fraction(Node *qual, Relation rel, double reltuples)
{
	int			n;
	Node	   *arg;
	double		f;
	ListCell   *lc;

	if (constant_filter_qual_ex(qual, true, &n, &arg))
	{
		double		per = -1;
		double		null_rows;

		if (IsA(arg, Var) && ((Var *) arg)->varattno > 0)
			per = dv_rows_per_value(rel, ((Var *) arg)->varattno, &null_rows);
		f = per >= 0 ? n * per / reltuples : n * DV_FILTER_STATE_EQ_SEL;
		return Min(f, 1.0);
	}
	if (is_andclause(qual))
	{
		f = 1.0;
		foreach(lc, ((BoolExpr *) qual)->args)
			f *= qual_fraction(lfirst(lc), rel, reltuples);
		return f;
	}
	if (is_orclause(qual))
	{
		f = 0.0;
		foreach(lc, ((BoolExpr *) qual)->args)
			f += qual_fraction(lfirst(lc), rel, reltuples);
		return Min(f, 1.0);
	}
	return 1.0;
}

/*
 * has_constant_filter - does a filter of op's rows (op a filter, the
 * sides of its inner joins, the preserved side of its other joins) compare
 * a column with constants (constant_filter_qual)?
 */
static bool
has_constant_filter(DvOp *op)
{
	ListCell   *lc;

	if (op == NULL)
		return false;
	switch (op->kind)
	{
		case DV_OP_FILTER:
			foreach(lc, op->quals)
			{
				if (constant_filter_qual(lfirst(lc)))
					return true;
			}
			return has_constant_filter(op->left);
		case DV_OP_JOIN:
			if (op->jointype == JOIN_INNER && has_constant_filter(op->right))
				return true;
			return op->jointype != JOIN_RIGHT && op->jointype != JOIN_FULL &&
				has_constant_filter(op->left);
		default:
			return false;
	}
}

/*
 * partner_bounded - should the grouped subquery operator join->right keep
 * no state, its changed groups recomputed (the affected-groups rule) with
 * the partner filter (partner_keys_filter)?  When the join (inner, left,
 * semi- or anti-join) equates its only group key with an expression of
 * the left side (group_key_match), and the left side's rows are filtered
 * by a comparison of a column with constants (has_constant_filter), the
 * partner filter drops every changed group that no left row joins before
 * any is recomputed: few groups are recomputed however many the change
 * reaches (TPC-H Q17: the 2 parts of one brand and container among the
 * 1,188 parts a change of 150 orders reaches), where a state would look up
 * and rewrite every changed group (the partner filter does not apply to a
 * state: a state row must follow every change of its group).  Measured in
 * bench/README.md.
 */
static bool
partner_bounded(DvOp *join)
{
	DvOp	   *grp = join->right;
	Oid			opno;

	if (grp == NULL || grp->kind != DV_OP_GROUP || grp->inner == NULL || grp->inner->node_topn ||
		grp->inner->input_tlist == NIL || list_length(grp->inner->input_tlist) != 1)
		return false;
	if (join->jointype != JOIN_INNER && join->jointype != JOIN_LEFT &&
		join->jointype != JOIN_SEMI && join->jointype != JOIN_ANTI)
		return false;
	if (group_key_match(grp, join->left, join->quals, &opno) == NULL)
		return false;
	return has_constant_filter(join->left);
}

/*
 * The subquery operators given a state so far by dv_optree_assign_states
 * (during one call): an operator whose subquery is the same as one of
 * theirs shares its state (same_state_op).
 */
static List *numbered_state_ops = NIL;

/* the level of the plan whose operators dv_optree_assign_states is numbering */
static Query *assign_level = NULL;

/* the optional filter states numbered so far (DV_FILTER_STATE_ID_BASE + n) */
static int	assign_optional_n = 0;

/*
 * want_optional_filter_state - mark op, a side of an inner join, as
 * wanting an optional filter state (DvOp state_optional) when it is a
 * filter over a scan under filters only one of whose conditions is
 * selective (selective_qual) and no partner filter wants its state
 * already; filter_state_key decides whether it can keep one.
 */
static void
want_optional_filter_state(DvOp *op)
{
	ListCell   *lc;

	if (op == NULL || op->kind != DV_OP_FILTER || op->state_wanted || filter_chain_scan(op) == NULL)
		return;
	foreach(lc, filter_chain_quals(op))
	{
		if (selective_qual(lfirst(lc)))
		{
			op->state_wanted = true;
			op->state_optional = true;
			return;
		}
	}
}

/*
 * same_state_op - an operator numbered before op (numbered_state_ops)
 * whose subquery is the same as op's (its level, grouped level and group
 * keys equal(): a CTE or view the query reads in two places, TPC-H Q15's
 * revenues per supplier, joined and under max()), or NULL.  Both compute
 * the same rows from the same sources at the same snapshot, so they keep
 * one state, maintained once per refresh (dv_optree_state_ops lists it
 * once) and read by both.
 */
static DvOp *
same_state_op(DvOp *op)
{
	ListCell   *lc;

	foreach(lc, numbered_state_ops)
	{
		DvOp	   *o = lfirst(lc);

		if (o->inner->kind == op->inner->kind &&
			equal(o->inner->level, op->inner->level) &&
			equal(o->inner->grouped_level, op->inner->grouped_level) &&
			equal(o->inner->input_tlist, op->inner->input_tlist))
			return o;
	}
	return NULL;
}

/*
 * number op's operators that can keep a state, pre-order (outer before
 * inner); listing them (ops), an operator that shares its state with
 * another (same_state_op) is listed once, at its last place in that order:
 * inner operators are computed first (the list is read backwards), and
 * each reading of the shared subquery is inside no operator listed after it
 */
static void
assign_states_op(DvOp *op, Oid relid, int *n, List **ops)
{
	if (op == NULL)
		return;
	switch (op->kind)
	{
		case DV_OP_GROUP:
			if (op->state_id == 0 && relid != InvalidOid && op->no_state_reason == NULL &&
				state_eligible(op))
			{
				DvOp	   *same = same_state_op(op);

				if (same)
				{
					op->state_table = same->state_table;
					op->state_id = same->state_id;
					op->index_rule_index = same->index_rule_index;
					op->index_rows = same->index_rows;
					op->index_rule_keys = same->index_rule_keys;
				}
				else
				{
					op->state_table = relid;
					op->state_id = ++*n;
					/* (or recomputed through an index instead: grouprule.c) */
					if (op->inner->input_tlist != NIL)
						dv_optree_index_rule_assess(op);
					numbered_state_ops = lappend(numbered_state_ops, op);
				}
			}
			if (op->state_id > 0 && ops && !list_member_ptr(*ops, op))
			{
				ListCell   *lc;

				foreach(lc, *ops)
				{
					DvOp	   *o = lfirst(lc);

					if (o->state_table == op->state_table && o->state_id == op->state_id)
					{
						*ops = foreach_delete_current(*ops, lc);
						break;
					}
				}
				*ops = lappend(*ops, op);
			}
			assign_states_plan(op->inner, relid, n, ops);
			break;
		case DV_OP_FILTER:
			/* (a filter state: the scan a partner filter reads, marked by the join above) */
			if (op->state_wanted && op->state_id == 0 && relid != InvalidOid && assign_level != NULL &&
				filter_state_key(op) != NULL)
			{
				op->state_table = relid;
				/* (an optional one numbered apart: the others keep their names either way) */
				op->state_id = op->state_optional ? DV_FILTER_STATE_ID_BASE + ++assign_optional_n : ++*n;
				op->state_level = assign_level;
			}
			if (op->state_id > 0 && ops && !list_member_ptr(*ops, op))
				*ops = lappend(*ops, op);
			assign_states_op(op->left, relid, n, ops);
			break;
		case DV_OP_JOIN:
			if (relid != InvalidOid && partner_bounded(op))
			{
				Oid			opno;
				Node	   *e = group_key_match(op->right, op->left, op->quals, &opno);
				DvOp	   *s = e ? partner_scan(op->left, e) : NULL;

				if (s != NULL && s->kind == DV_OP_FILTER)
				{
					s->state_wanted = true;
					s->state_optional = false;
				}
			}
			/*
			 * (each side of an inner join that is a selective filter over a
			 * scan: its rows now are read for the other side's delta, by key
			 * or whole; an optional filter state, built where it keeps few
			 * rows: TPC-H Q19's parts, Q22's customers)
			 */
			if (relid != InvalidOid && op->jointype == JOIN_INNER)
			{
				want_optional_filter_state(op->left);
				want_optional_filter_state(op->right);
			}
			assign_states_op(op->left, relid, n, ops);
			if (relid != InvalidOid && op->right->kind == DV_OP_GROUP && op->right->state_id == 0 &&
				partner_bounded(op))
				op->right->no_state_reason = "joined on its group key to rows filtered by constants: the changed groups no such row joins are not recomputed, fewer than a state would rewrite";
			assign_states_op(op->right, relid, n, ops);
			break;
		default:
			break;
	}
}

/*
 * assign_states_node - the input of a top-N or window plan (its delta is
 * that of a subquery operator over it, dv_node_delta_sql): a GROUP BY that
 * can keep its groups gets that operator, made once in the plan's memory
 * (the plan cache's: relid valid) and numbered before the input's own
 * operators (TPC-H Q21: the count per supplier under ORDER BY ... LIMIT).
 */
static void
assign_states_node(DvPlan *input, Oid relid, int *n, List **ops)
{
	if (input == NULL)
		return;
	if (input->node_op == NULL && relid != InvalidOid && input->kind == DV_PLAN_GROUPED &&
		input->input_tlist != NIL && !input->window_node)
	{
		DvOp	   *op = new_op(DV_OP_GROUP);

		op->inner = input;
		op->rels = bms_make_singleton(1);
		if (state_eligible(op))
		{
			op->state_table = relid;
			op->state_id = ++*n;
			input->node_op = op;
		}
	}
	if (input->node_op && ops && !list_member_ptr(*ops, input->node_op))
		*ops = lappend(*ops, input->node_op);
	assign_states_plan(input, relid, n, ops);
}

static void
assign_states_plan(DvPlan *plan, Oid relid, int *n, List **ops)
{
	ListCell   *lc;
	Query	   *outer_level = assign_level;

	if (plan == NULL)
		return;
	assign_level = plan->level;
	assign_states_op(plan->tree, relid, n, ops);
	assign_level = outer_level;
	assign_states_node(plan->topn_input, relid, n, ops);
	assign_states_node(plan->window_input, relid, n, ops);
	foreach(lc, plan->branches)
		assign_states_plan(lfirst(lc), relid, n, ops);
}

/*
 * dv_optree_assign_states - number the operators of plan that keep a state
 * for dynamic table relid (the plan belongs to that table: the plan cache's
 * entry).  The numbers depend on the plan's shape alone, so the same
 * definition gives the same state tables.
 */
void
dv_optree_assign_states(DvPlan *plan, Oid relid)
{
	int			n = 0;

	numbered_state_ops = NIL;
	assign_optional_n = 0;
	PG_TRY();
	{
		assign_states_plan(plan, relid, &n, NULL);
	}
	PG_FINALLY();
	{
		list_free(numbered_state_ops);
		numbered_state_ops = NIL;
		assign_level = NULL;
	}
	PG_END_TRY();
}

/* the operators of plan with a state, outer before inner (palloc'd list) */
List *
dv_optree_state_ops(DvPlan *plan)
{
	int			n = 0;
	List	   *ops = NIL;

	assign_states_plan(plan, InvalidOid, &n, &ops);
	return ops;
}

/*
 * dv_optree_some_state_kept - has one of the plan's operators a state that
 * a refresh keeps?  Any but an optional filter state whose table is not
 * there (not built, or not usable: its source is read instead, see
 * dv_optree_filter_state_chosen).  Catalog reads.
 */
bool
dv_optree_some_state_kept(DvPlan *plan)
{
	ListCell   *lc;

	foreach(lc, dv_optree_state_ops(plan))
	{
		DvOp	   *op = lfirst(lc);

		if (!(op->kind == DV_OP_FILTER && op->state_optional && !dv_optree_state_usable(op)))
			return true;
	}
	return false;
}

/* "(arg) COLLATE c" of aggregate a over alias, and its sort operator */
static char *
extreme_sort_key(DvGen *ig, DvOp *op, Aggref *a, const char *alias, char **sortop)
{
	Node	   *arg = (Node *) linitial_node(TargetEntry, a->args)->expr;
	HeapTuple	tup = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(a->aggfnoid));

	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for aggregate %u", a->aggfnoid);
	*sortop = dv_operator_sql(((Form_pg_aggregate) GETSTRUCT(tup))->aggsortop);
	ReleaseSysCache(tup);
	return psprintf("(%s)%s", deparse(ig, arg, op->inner->tree, alias, NULL, NULL),
					OidIsValid(a->inputcollid)
					? psprintf(" COLLATE %s", generate_collation_name(a->inputcollid)) : "");
}

/*
 * state_reach_sql - the condition that a row of the input (alias x)
 * reaches an extreme of op's state: for some aggregate its argument is not
 * NULL and no state row comes strictly before it in the aggregate's order.
 */
static char *
state_reach_sql(DvGen *ig, DvOp *op)
{
	StringInfoData buf;
	ListCell   *lc;

	initStringInfo(&buf);
	foreach(lc, extreme_aggrefs(op))
	{
		char	   *sortop;
		char	   *x = extreme_sort_key(ig, op, lfirst(lc), "x", &sortop);
		char	   *e = extreme_sort_key(ig, op, lfirst(lc), "e", &sortop);

		appendStringInfo(&buf, "%s(%s IS NOT NULL AND NOT EXISTS (SELECT FROM %s e WHERE %s %s %s))",
						 buf.len ? " OR " : "", x, state_qualified(op), e, sortop, x);
	}
	return buf.data;
}

/* the first row of relation rel in each aggregate's order: op's state rows */
static char *
extreme_rows_sql(DvGen *ig, DvOp *op, const char *rel)
{
	StringInfoData buf;
	char	   *cols = chop(col_list(op->inner->tree, "x"));
	ListCell   *lc;

	initStringInfo(&buf);
	foreach(lc, extreme_aggrefs(op))
	{
		char	   *sortop;
		char	   *key = extreme_sort_key(ig, op, lfirst(lc), "x", &sortop);

		appendStringInfo(&buf, "%s(SELECT %s FROM %s x ORDER BY %s USING %s NULLS LAST LIMIT 1)",
						 buf.len ? " UNION ALL " : "", cols, rel, key, sortop);
	}
	return buf.data;
}

/*
 * value_state_delta - the delta of a global aggregate subquery operator
 * that keeps its row (a value state) and whose input changed: its row now,
 * computed before the statement (dv_optree_state_new_sql; the statement
 * reads it wherever it reads the operator's rows now), less its row as it
 * was, the state's; the two cancel when their text is the same.
 */
static void
value_state_delta(DvGen *g, DvOp *op, StringInfo terms)
{
	char	   *state = state_qualified(op);
	char	   *now = add_cte(g, psprintf("SELECT * FROM %s", dv_optree_state_new_name(op)));

	*g->new_ctes = lappend(*g->new_ctes, list_make2(op, now));
	appendStringInfo(terms, "SELECT n.*, 1::pg_catalog.int8 AS dv_weight FROM %s n "
					 "WHERE NOT EXISTS (SELECT FROM %s o WHERE ROW(o.*)::text = ROW(n.*)::text) "
					 "UNION ALL SELECT o.*, -1::pg_catalog.int8 FROM %s o "
					 "WHERE NOT EXISTS (SELECT FROM %s n WHERE ROW(n.*)::text = ROW(o.*)::text)",
					 now, state, state, now);
}

/*
 * state_extreme_delta - global_extreme_delta with the state of op: its row
 * as it was is the aggregate over the state (the input's extreme rows at
 * the previous data snapshot), its row now the aggregate over the new
 * state rows, computed before the statement (dv_optree_state_new_sql, the
 * relation dv_optree_state_new_name).  The two cancel when their text is
 * the same.
 */
static void
state_extreme_delta(DvGen *g, DvOp *op, StringInfo terms)
{
	char	   *cols = chop(col_list(op->inner->tree, "x"));
	char	   *now;
	char	   *was;

	now = add_cte(g, group_sql_over(g, op, NULL, NULL, false,
									psprintf("SELECT %s FROM %s x", cols, dv_optree_state_new_name(op))));
	*g->new_ctes = lappend(*g->new_ctes, list_make2(op, now));
	was = add_cte(g, group_sql_over(g, op, NULL, NULL, false,
									psprintf("SELECT %s FROM %s x", cols, state_qualified(op))));
	appendStringInfo(terms, "SELECT n.*, 1::pg_catalog.int8 AS dv_weight FROM %s n "
					 "WHERE NOT EXISTS (SELECT FROM %s o WHERE ROW(o.*)::text = ROW(n.*)::text) "
					 "UNION ALL SELECT o.*, -1::pg_catalog.int8 FROM %s o "
					 "WHERE NOT EXISTS (SELECT FROM %s n WHERE ROW(n.*)::text = ROW(o.*)::text)",
					 now, was, was, now);
}

/*
 * dv_optree_state_fill_sql - the state rows of op over its input now.
 * Deparsed under the safe search_path.
 */
char *
dv_optree_state_fill_sql(DvOp *op)
{
	int			nestlevel = NewGUCNestLevel();
	DvGen		ig;
	char	   *n;
	char	   *sql;

	(void) set_config_option("search_path", DV_SAFE_SEARCH_PATH,
							 PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
	dv_set_output_styles();
	if (op->kind == DV_OP_FILTER)
	{
		/* (a filter state: the filtered scan's rows, from the source) */
		bool		save = use_state;

		gen_init(&ig, op->state_level, NULL);
		use_state = false;
		PG_TRY();
		{
			sql = rows_sql(&ig, op);
		}
		PG_FINALLY();
		{
			use_state = save;
		}
		PG_END_TRY();
		AtEOXact_GUC(true, nestlevel);
		return sql;
	}
	gen_init(&ig, op->inner->level, NULL);
	if (is_group_state(op))
	{
		n = group_state_fill_sql(&ig, op);
		sql = ig.with->len ? psprintf("WITH %s %s", ig.with->data, n) : n;
	}
	else if (extreme_aggrefs(op) != NIL)
	{
		n = add_cte(&ig, rows_sql(&ig, op->inner->tree));
		sql = psprintf("WITH %s %s", ig.with->data, extreme_rows_sql(&ig, op, n));
	}
	else
	{
		/* a value state: the operator's row */
		n = group_sql(&ig, op, NULL, NULL, false);
		sql = ig.with->len ? psprintf("WITH %s %s", ig.with->data, n) : n;
	}
	AtEOXact_GUC(true, nestlevel);
	return sql;
}

/*
 * the SQL of a state column's type, schema-qualified (the state table is
 * created under a search_path of pg_catalog only, where an enum or domain of
 * public would not be found), with its typmod
 */
static char *
state_column_type(Oid type, int32 typmod)
{
	return format_type_extended(type, typmod, FORMAT_TYPE_TYPEMOD_GIVEN | FORMAT_TYPE_FORCE_QUALIFY);
}

/* the state table's columns: those of op's input */
char *
dv_optree_state_columns(DvOp *op)
{
	StringInfoData buf;
	ListCell   *lc;

	if (is_group_state(op))
		return group_state_columns(op);
	initStringInfo(&buf);
	foreach(lc, extreme_aggrefs(op) != NIL ? op->inner->tree->cols : op->cols)
	{
		DvOpCol    *col = lfirst(lc);

		appendStringInfo(&buf, "%s%s %s", buf.len ? ", " : "", col_name(col),
						 state_column_type(col->type, col->typmod));
	}
	return buf.data;
}

/* the relation of op's new state rows during a refresh (dv_optree_state_new_sql) */
char *
dv_optree_state_new_name(DvOp *op)
{
	return psprintf("dv_state_new_%d", op->state_id);
}

/*
 * dv_optree_state_new_sql - op's state rows at the refresh's snapshot (run
 * during an incremental refresh, its windows registered, before its
 * statements, which read them as dv_optree_state_new_name): a filter
 * state's rows, the filtered scan's rows now (filter_state_new_sql); a value
 * state's row, the operator's row over its input now; the extreme rows,
 * the first rows of the state and the inserted rows of the input's delta
 * when no deleted row reaches an extreme (the state's rows are all still
 * there, and no other row comes before them), else of the input now.  NULL
 * if the input has no change or op reads no state.  The statement of an
 * operator inside op's input reads that operator's new rows: inner
 * operators first.
 */
char *
dv_optree_state_new_sql(DvOp *op)
{
	int			nestlevel;
	DvGen		ig;
	char	   *state;
	char	   *cols;
	char	   *d;
	char	   *ok;
	char	   *cand;
	char	   *sql = NULL;

	if (!has_delta(op) || !(op->kind == DV_OP_FILTER ? reads_filter_state(NULL, op) : reads_state(op)))
		return NULL;
	nestlevel = NewGUCNestLevel();
	(void) set_config_option("search_path", DV_SAFE_SEARCH_PATH,
							 PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
	dv_set_output_styles();
	/* (a filter state: its rows now, filter_state_new_sql) */
	if (op->kind == DV_OP_FILTER)
	{
		sql = filter_state_new_sql(op);
		AtEOXact_GUC(true, nestlevel);
		return sql;
	}
	state = state_qualified(op);
	gen_init(&ig, op->inner->level, NULL);
	if (is_group_state(op))
	{
		ig.pad_state_op = op;
		d = delta_cte(&ig, op->inner->tree);
		ig.pad_state_op = NULL;
		if (d != NULL)
		{
			char	   *rows = group_state_new_sql(&ig, op, d);

			sql = psprintf("WITH %s %s", ig.with->data, rows);
		}
		AtEOXact_GUC(true, nestlevel);
		return sql;
	}
	if (extreme_aggrefs(op) == NIL)
	{
		char	   *now = group_sql(&ig, op, NULL, NULL, false);

		sql = ig.with->len ? psprintf("WITH %s %s", ig.with->data, now) : now;
		AtEOXact_GUC(true, nestlevel);
		return sql;
	}
	cols = chop(col_list(op->inner->tree, "x"));
	d = delta_cte(&ig, op->inner->tree);
	if (d != NULL)
	{
		ok = add_cte(&ig, psprintf("SELECT NOT EXISTS (SELECT FROM %s x WHERE x.dv_weight < 0 AND (%s)) AS dv_ok",
								   d, state_reach_sql(&ig, op)));
		cand = add_cte(&ig, psprintf("SELECT %s FROM %s x WHERE (SELECT dv_ok FROM %s) "
									 "UNION ALL SELECT %s FROM %s x WHERE x.dv_weight > 0 AND (SELECT dv_ok FROM %s) "
									 "UNION ALL SELECT %s FROM (%s) x WHERE NOT (SELECT dv_ok FROM %s)",
									 cols, state, ok, cols, d, ok,
									 cols, rows_sql(&ig, op->inner->tree), ok));
		sql = psprintf("WITH %s %s", ig.with->data, extreme_rows_sql(&ig, op, cand));
	}
	AtEOXact_GUC(true, nestlevel);
	return sql;
}

/*
 * dv_optree_state_replace_first - is op's state replaced by its new rows as
 * soon as they are computed (a grouped state: its rows now are the state,
 * group_state_sql), rather than after the refresh's statements (the other
 * states, whose rules read the state as it was)?
 */
bool
dv_optree_state_replace_first(DvOp *op)
{
	return is_group_state(op) || op->kind == DV_OP_FILTER;
}

/* the statement that makes op's new state rows its state (dv_optree_state_replace_first says when) */
char *
dv_optree_state_replace_sql(DvOp *op)
{
	if (is_group_state(op))
	{
		bool		ok;
		List	   *aggs = group_state_aggs(op, &ok);
		char	   *ncols = group_state_value_columns(aggs, "n.", NULL);
		List	   *names = group_state_value_names(aggs);
		StringInfoData set;
		ListCell   *lc;

		/* (the changed groups by the state row's ctid: gone at 0, updated, or new) */
		initStringInfo(&set);
		foreach(lc, names)
			appendStringInfo(&set, "%s%s = n.%s", foreach_current_index(lc) ? ", " : "",
							 (char *) lfirst(lc), (char *) lfirst(lc));
		return psprintf("MERGE INTO %s s USING %s n ON s.ctid = n.dv_ctid "
						"AND s.ctid = ANY (ARRAY(SELECT m.dv_ctid FROM %s m WHERE m.dv_ctid IS NOT NULL)) "
						"WHEN MATCHED AND n.dv_count <= 0 THEN DELETE "
						"WHEN MATCHED THEN UPDATE SET %s "
						"WHEN NOT MATCHED AND n.dv_count > 0 THEN INSERT VALUES (%s%s)",
						state_qualified(op), dv_optree_state_new_name(op), dv_optree_state_new_name(op), set.data,
						group_state_key_list(op, "n"), ncols);
	}
	return psprintf("WITH dv_old AS (DELETE FROM %s) INSERT INTO %s SELECT * FROM %s",
					state_qualified(op), state_qualified(op), dv_optree_state_new_name(op));
}

/* the name of op's delta in the WITH chain, NULL if it is empty */
static char *
delta_cte(DvGen *g, DvOp *op)
{
	StringInfoData terms;
	List	   *above = g->implied_above;

	if (!has_delta(op))
		return NULL;
	initStringInfo(&terms);

	/*
	 * (the chain of inner joins above goes on only into a filter's child and
	 * an inner join's left side, g->implied_above; set there below)
	 */
	g->implied_above = NIL;
	switch (op->kind)
	{
		case DV_OP_SCAN:
			{
				ListCell   *lc;
				ListCell   *ln;

				appendStringInfoString(&terms, "SELECT ");
				forboth(lc, op->cols, ln, op->source->columns)
					appendStringInfo(&terms, "%s AS %s, ", quote_identifier(strVal(lfirst(ln))),
									 col_name(lfirst(lc)));
				appendStringInfo(&terms, "dv_weight FROM %s", op->source->enr_name);
				break;
			}
		case DV_OP_FILTER:
			{
				DvOp	   *below = op->left;
				const char *quals = deparse_quals(g, op->quals, op->left, "f", NULL, NULL);

				/*
				 * (a chain of filters over a scan whose window read applied
				 * every conjunct of the chain, window_filtered: tested again,
				 * through dynview._window_filtered(), whose planner support
				 * guesses it to keep at least a third of the rows; as it is,
				 * the planner without statistics would guess an equality to
				 * keep 1 row in 200)
				 */
				while (below->kind == DV_OP_FILTER)
					below = below->left;
				g->implied_above = above;
				if (below->kind == DV_OP_SCAN && below->source->window_filtered)
					appendStringInfo(&terms, "SELECT * FROM %s f WHERE dynview._window_filtered(%s)",
									 delta_cte(g, op->left), quals);
				else
					appendStringInfo(&terms, "SELECT * FROM %s f WHERE %s", delta_cte(g, op->left), quals);
				break;
			}
		case DV_OP_GROUP:
			group_delta(g, op, &terms);
			break;
		case DV_OP_FUNC:
			break;				/* (has_delta: none) */
		case DV_OP_JOIN:
			{
				char	   *dl;
				char	   *dr;
				const char *theta = deparse_quals(g, op->quals, op->left, "l", op->right, "r");
				const char *cols = psprintf("%s%s", col_list(op->left, "l"), col_list(op->right, "r"));
				bool		left_outer;
				bool		right_outer;
				bool		demand_first;
				DvOp	   *share_op = g->share_op;
				int64		share_rows = g->share_rows;

				/*
				 * (the scan the partner filter below reads: read once with
				 * the left side's delta where that reads it whole)
				 */
				if (op->right->kind == DV_OP_GROUP && has_delta(op->right) && !reads_group_state(op->right) &&
					has_delta(op->left) &&
					(op->jointype == JOIN_INNER || op->jointype == JOIN_LEFT ||
					 op->jointype == JOIN_SEMI || op->jointype == JOIN_ANTI))
				{
					Oid			opno;
					Node	   *e = group_key_match(op->right, op->left, op->quals, &opno);
					DvOp	   *s = e ? partner_scan(op->left, e) : NULL;

					if (s != NULL && s != op->left)
					{
						g->share_op = s;
						g->share_rows = Max(delta_rows_under(op->right), 0);
					}
				}
				g->share_probed = false;
				/* (the semi-join's demand on the grouped subquery below its left side) */
				dr = NULL;
				demand_first = op->jointype == JOIN_SEMI && has_delta(op->left) &&
					op->right->kind != DV_OP_GROUP;
				if (demand_first)
				{
					DvOp	   *demand_op = g->demand_op;
					const char *demand_test = g->demand_test;
					const char *demand_key_test = g->demand_key_test;

					dr = delta_cte(g, op->right);
					g->demand_op = NULL;
					semi_demand(g, op, dr);
					dl = delta_cte(g, op->left);
					g->demand_op = demand_op;
					g->demand_test = demand_test;
					g->demand_key_test = demand_key_test;
				}
				else
				{
					/* (an inner join to a scan: its conditions imply filters below) */
					if (op->jointype == JOIN_INNER && bare_scan(op->right))
						g->implied_above = has_delta(op->right) ? above : lappend(list_copy(above), op);
					else if (op->jointype == JOIN_INNER && op->right->kind != DV_OP_GROUP)
						g->implied_above = above;
					dl = delta_cte(g, op->left);
					g->implied_above = NIL;
				}
				g->share_op = share_op;
				g->share_rows = share_rows;

				/* (a changed group of a subquery on the right that no left row joins adds nothing) */
				if (op->right->kind == DV_OP_GROUP && has_delta(op->right))
				{
					g->keys_split_seen = g->keys_split_unread = g->keys_split_probe = NULL;
					g->keys_filter = partner_keys_filter(g, op, dl, &g->keys_filter_delta);
					g->share_probed = false;
					g->keyed_op = NULL;
					g->keyed_rows = NULL;
					g->keys_filter_op = g->keys_filter ? op->right : NULL;

					/*
					 * (a subquery that keeps no state recomputes only the
					 * changed groups whose key passes the semi-join's
					 * demand: the others' rows would be dropped from its
					 * delta below; one with a state keeps every group)
					 */
					if (g->demand_op == op && g->demand_key_test && !reads_group_state(op->right) &&
						op->right->inner->input_tlist != NIL)
					{
						g->keys_filter = g->keys_filter
							? psprintf("%s AND %s", g->keys_filter, g->demand_key_test) : g->demand_key_test;
						g->keys_split_seen = g->keys_split_unread = g->keys_split_probe = NULL;
						if (g->keys_filter_delta)
							g->keys_filter_delta = psprintf("%s AND %s", g->keys_filter_delta, g->demand_key_test);
						g->keys_filter_op = op->right;
					}
				}
				if (!demand_first)
					dr = delta_cte(g, op->right);
				g->keys_filter_op = NULL;
				g->keys_filter = NULL;
				g->keys_filter_delta = NULL;
				g->keys_split_seen = g->keys_split_unread = g->keys_split_probe = NULL;
				if (dr && g->demand_op == op)
					dr = add_cte(g, psprintf("SELECT * FROM %s d WHERE %s", dr, g->demand_test));

				if (op->jointype == JOIN_SEMI || op->jointype == JOIN_ANTI)
				{
					exist_terms(g, &terms, op->left, dl, op->right, dr, op->quals,
								op->jointype == JOIN_SEMI, "", "", NULL);
					break;
				}
				/*
				 * Only the side an outer join preserves changed: the join is
				 * linear in that side while the other stays as it is, so its
				 * delta is the changed rows outer-joined to the other side
				 * now, each with its weight (delta(l) LEFT JOIN new(r)): the
				 * inner join's rows and the padded ones in one probe of the
				 * other side per changed row, not one for the matches and
				 * another for their count (exist_terms).
				 */
				left_outer = dl != NULL && dr == NULL &&
					(op->jointype == JOIN_LEFT || op->jointype == JOIN_FULL);
				right_outer = dr != NULL && dl == NULL &&
					(op->jointype == JOIN_RIGHT || op->jointype == JOIN_FULL);

				/* the inner join's rows */
				if (dl)
				{
					char	   *right = keyed_group_sql(g, op->right, op->left, dl, op->quals);
					bool		on_theta = false;
					char	   *probe = right ? NULL :
						probe_rows(g, op->right, op->left, dl, op->quals, theta, "r", &on_theta);

					if (probe && on_theta)
						appendStringInfo(&terms, "SELECT %sl.dv_weight FROM %s l %s %s r ON %s",
										 cols, dl, left_outer ? "LEFT JOIN" : "JOIN", probe, theta);
					else if (probe)
						appendStringInfo(&terms, "SELECT %sl.dv_weight FROM %s l %s %s r%s",
										 cols, dl, left_outer ? "LEFT JOIN" : "CROSS JOIN", probe,
										 left_outer ? " ON true" : "");
					else
					{
						if (right == NULL && op->right == g->share_op)
							right = keyed_shared_rows(g, op->right, op->left, dl, op->quals);
						if (right == NULL && op->right == g->share_op)
							right = shared_rows(g, op->right);
						if (right == NULL)
						{
							if (!bare_scan(op->right))
								reach_restrict(g, op->right, op->left, dl, op->quals);
							else if (op->jointype == JOIN_INNER)
								implied_restrict(g, op, op->right, above);
							right = right_sql(g, op->right, op->left, "l");
							reach_reset(g);
						}
						appendStringInfo(&terms, "SELECT %sl.dv_weight FROM %s l %s %s r ON %s",
										 cols, dl, left_outer ? "LEFT JOIN" : "JOIN", right, theta);
					}
				}
				if (dr)
				{
					char	   *left = keyed_group_sql(g, op->left, op->right, dr, op->quals);
					bool		on_theta = false;
					char	   *probe = left ? NULL :
						probe_rows(g, op->left, op->right, dr, op->quals, theta, "l", &on_theta);

					if (probe && on_theta)
						appendStringInfo(&terms, "%sSELECT %sr.dv_weight FROM %s r %s %s l ON %s",
										 terms.len ? " UNION ALL " : "", cols, dr,
										 right_outer ? "LEFT JOIN" : "JOIN", probe, theta);
					else if (probe)
						appendStringInfo(&terms, "%sSELECT %sr.dv_weight FROM %s r %s %s l%s",
										 terms.len ? " UNION ALL " : "", cols, dr,
										 right_outer ? "LEFT JOIN" : "CROSS JOIN", probe,
										 right_outer ? " ON true" : "");
					else
					{
						if (left == NULL && op->left == g->share_op)
							left = keyed_shared_rows(g, op->left, op->right, dr, op->quals);
						if (left == NULL && op->left == g->share_op)
							left = shared_rows(g, op->left);
						if (left == NULL)
						{
							if (!bare_scan(op->left))
								reach_restrict(g, op->left, op->right, dr, op->quals);
							left = psprintf("(%s)", new_sql(g, op->left));
							reach_reset(g);
						}
						appendStringInfo(&terms, "%sSELECT %sr.dv_weight FROM %s l %s %s r ON %s",
										 terms.len ? " UNION ALL " : "", cols,
										 left, right_outer ? "RIGHT JOIN" : "JOIN", dr, theta);
					}
				}
				if (dl && dr)
					appendStringInfo(&terms, " UNION ALL SELECT %s-(l.dv_weight * r.dv_weight) FROM %s l JOIN %s r ON %s",
									 cols, dl, dr, theta);
				/* and the rows an outer join pads with NULLs (unless padded above) */
				if ((op->jointype == JOIN_LEFT || op->jointype == JOIN_FULL) && !left_outer)
					exist_terms(g, &terms, op->left, dl, op->right, dr, op->quals, false,
								"", null_list(op->right),
								dl == NULL ? pad_count_from_state(g, op) : NULL);
				if ((op->jointype == JOIN_RIGHT || op->jointype == JOIN_FULL) && !right_outer)
					exist_terms(g, &terms, op->right, dr, op->left, dl, op->quals, false,
								null_list(op->left), "", NULL);
				break;
			}
	}
	/* (a delta that cancels out can still have no term: an empty relation of the right shape) */
	if (terms.len == 0)
		appendStringInfo(&terms, "SELECT %s0::pg_catalog.int8 AS dv_weight WHERE false", null_list(op));
	g->implied_above = above;
	{
		char	   *name = add_cte(g, terms.data);

		g->delta_ops = lappend(g->delta_ops, op);
		g->delta_names = lappend(g->delta_names, name);
		return name;
	}
}

/* "expr AS name, ..." of the level's output over alias d */
static char *
output_list(DvGen *g, List *tlist, DvOp *root)
{
	StringInfoData buf;
	ListCell   *lc;

	initStringInfo(&buf);
	foreach(lc, tlist)
	{
		TargetEntry *te = lfirst_node(TargetEntry, lc);

		if (te->resjunk)
			continue;
		appendStringInfo(&buf, "%s AS %s, ", deparse(g, (Node *) te->expr, root, "d", NULL, NULL),
						 quote_identifier(te->resname));
	}
	return buf.data;
}

char *
dv_optree_delta_sql(Query *q, DvOp *root, List *tlist)
{
	DvGen		g;
	char	   *d;
	char	   *out;

	gen_init(&g, q, NULL);
	out = output_list(&g, tlist, root);
	d = delta_cte(&g, root);
	if (d == NULL)
		elog(ERROR, "dynview: delta requested with every source's delta empty");
	return psprintf("WITH %s SELECT %sd.dv_weight FROM %s d", g.with->data, out, d);
}

/*
 * dv_node_delta_sql - the changed rows of a query level planned as an
 * operator (dv_plan_node: the input of a top-N query, a branch of a set
 * operation), as its subquery operator would give them, named as its
 * output columns, with dv_weight.
 */
char *
dv_node_delta_sql(DvPlan *input)
{
	Query	   *gq = input->kind == DV_PLAN_GROUPED ? input->grouped_level : input->level;
	DvOp	   *op = input->node_op ? input->node_op : new_op(DV_OP_GROUP);
	DvGen		g;
	char	   *d;
	StringInfoData out;
	ListCell   *lc;
	int			nestlevel = NewGUCNestLevel();

	(void) set_config_option("search_path", DV_SAFE_SEARCH_PATH,
							 PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
	dv_set_output_styles();
	if (input->node_op == NULL)
	{
		op->inner = input;
		op->rels = bms_make_singleton(1);
	}
	gen_init(&g, input->level, NULL);
	d = delta_cte(&g, op);
	if (d == NULL)
		elog(ERROR, "dynview: delta requested with every source's delta empty");
	initStringInfo(&out);
	foreach(lc, gq->targetList)
	{
		TargetEntry *te = lfirst_node(TargetEntry, lc);

		if (!te->resjunk)
			appendStringInfo(&out, "d.c1_%d AS %s, ", te->resno, quote_identifier(te->resname));
	}
	AtEOXact_GUC(true, nestlevel);
	return psprintf("WITH %s SELECT %sd.dv_weight FROM %s d", g.with->data, out.data, d);
}

/*
 * dv_node_new_sql - the rows now of a query level planned as an operator
 * (the input of a top-N or window query) that keeps its groups in a state,
 * read from that state (its sources' windows empty, dv_optree_use_state
 * on: the initial build, right after the state was filled), named as its
 * output columns; NULL when the level keeps no state or it cannot be read.
 */
char *
dv_node_new_sql(DvPlan *input)
{
	DvOp	   *op = input->node_op;
	Query	   *gq;
	DvGen		g;
	char	   *rows;
	StringInfoData out;
	ListCell   *lc;
	int			nestlevel;

	if (op == NULL || !reads_group_state(op) || has_delta(op))
		return NULL;
	gq = input->kind == DV_PLAN_GROUPED ? input->grouped_level : input->level;
	nestlevel = NewGUCNestLevel();
	(void) set_config_option("search_path", DV_SAFE_SEARCH_PATH,
							 PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
	dv_set_output_styles();
	gen_init(&g, input->level, NULL);
	rows = group_sql(&g, op, NULL, NULL, false);
	initStringInfo(&out);
	foreach(lc, gq->targetList)
	{
		TargetEntry *te = lfirst_node(TargetEntry, lc);

		if (!te->resjunk)
			appendStringInfo(&out, "%sd.c1_%d AS %s", out.len ? ", " : "", te->resno,
							 quote_identifier(te->resname));
	}
	AtEOXact_GUC(true, nestlevel);
	return psprintf("%sSELECT %s FROM (%s) d", g.with->len ? psprintf("WITH %s ", g.with->data) : "",
					out.data, rows);
}

char *
dv_optree_new_sql(Query *q, DvOp *root, List *tlist)
{
	DvGen		g;

	char	   *rows;

	gen_init(&g, q, NULL);
	rows = psprintf("SELECT %s1::pg_catalog.int8 AS dv_weight FROM (%s) d",
					output_list(&g, tlist, root), new_sql(&g, root));
	/* (with the CTEs the rows refer to: aggregates without GROUP BY, computed once) */
	return g.with->len > 0 ? psprintf("WITH %s %s", g.with->data, rows) : rows;
}

/*
 * explain_quals - a condition of the level as the user wrote it: over the
 * level's own range table, under the aliases of the query (made unique as
 * EXPLAIN does: a table read twice under one alias is "o" and "o_1"), not
 * the generated column names of the delta statements (c<n>_<m>), which
 * mean nothing to the reader of explain().
 */
static List *
explain_names(DvGen *g)
{
	Bitmapset  *rels = NULL;

	for (int rti = 1; rti <= list_length(g->q->rtable); rti++)
		rels = bms_add_member(rels, rti);
	return select_rtable_names_for_explain(g->q->rtable, rels);
}

static char *
explain_quals(DvGen *g, List *quals)
{
	PlannedStmt *pstmt = makeNode(PlannedStmt);
	List	   *ctx;

	if (quals == NIL)
		return "true";
	pstmt->commandType = CMD_SELECT;
	pstmt->rtable = g->q->rtable;
	ctx = deparse_context_for_plan_tree(pstmt, explain_names(g));
	return deparse_expression(plain_var_mutator((Node *) make_ands_explicit(quals), NULL), ctx, true, false);
}

/*
 * explain_window_filter - for a filter over a scan (through filters only),
 * which of its conjuncts the window read of the source applies before the
 * changes reach the delta (refresh/incremental.c window_filter_conjuncts,
 * for the caller as the owner), as "; ..." text; "" when none.  The
 * refresh also needs the change buffer's columns of the query's types, and
 * the source read once by the query (or the conjunct in every reading).
 */
static char *
explain_window_filter(DvGen *g, DvOp *op)
{
	DvOp	   *scan = op->left;
	List	   *leakproof = NIL;
	List	   *built_in = NIL;
	ListCell   *lc;
	StringInfoData buf;

	while (scan->kind == DV_OP_FILTER)
		scan = scan->left;
	if (scan->kind != DV_OP_SCAN)
		return "";
	foreach(lc, op->quals)
	{
		switch (dv_window_conjunct_kind(lfirst(lc), scan->source->relid, GetUserId()))
		{
			case DV_WINDOW_CONJUNCT_LEAKPROOF:
				leakproof = lappend(leakproof, lfirst(lc));
				break;
			case DV_WINDOW_CONJUNCT_BUILT_IN:
				built_in = lappend(built_in, lfirst(lc));
				break;
			case DV_WINDOW_CONJUNCT_NONE:
				break;
		}
	}
	if (leakproof == NIL && built_in == NIL)
		return "";
	/* (the whole filter, of one kind: not spelled again) */
	if (list_length(leakproof) == list_length(op->quals))
		return "; applied first by the read of its changes (leakproof)";
	if (list_length(built_in) == list_length(op->quals))
		return "; applied first by the read of its changes (built-in functions: read again without it if they fail)";
	initStringInfo(&buf);
	appendStringInfoString(&buf, "; the read of its changes applies first");
	if (leakproof != NIL)
		appendStringInfo(&buf, " %s (leakproof)", explain_quals(g, leakproof));
	if (built_in != NIL)
		appendStringInfo(&buf, "%s %s (built-in functions: read again without them if they fail)",
						 leakproof != NIL ? " and" : "", explain_quals(g, built_in));
	return buf.data;
}

static void
explain_op(DvGen *g, StringInfo buf, DvOp *op, int depth)
{
	static const char *const rules[] = {
		[JOIN_INNER] = "inner join: delta(l) x new(r) + new(l) x delta(r) - delta(l) x delta(r)",
		[JOIN_LEFT] = "left join: inner join's rule + unmatched left rows (anti-join rule), padded",
		[JOIN_RIGHT] = "right join: inner join's rule + unmatched right rows (anti-join rule), padded",
		[JOIN_FULL] = "full join: inner join's rule + unmatched rows of both sides, padded",
		[JOIN_SEMI] = "semi-join (EXISTS, IN): rows whose matches go 0 <-> n, + delta(l) that match",
		[JOIN_ANTI] = "anti-join (NOT EXISTS, NOT IN): rows whose matches go 0 <-> n, + delta(l) without",
	};

	appendStringInfoSpaces(buf, depth * 2);
	switch (op->kind)
	{
		case DV_OP_SCAN:
			{
				/* the alias the conditions above name it by */
				const char *name = list_nth(explain_names(g), op->source->rtindex - 1);
				RangeTblEntry *rte = rt_fetch(op->source->rtindex, g->q->rtable);

				appendStringInfo(buf, "scan %s%s", op->source->only ? "ONLY " : "", op->source->qualified);
				if (name && strcmp(name, get_rel_name(rte->relid)) != 0)
					appendStringInfo(buf, " AS %s", quote_identifier(name));
				appendStringInfoString(buf, ": its window of changes\n");
				return;
			}
		case DV_OP_GROUP:
			{
				DvGen		ig;

				/*
				 * named as the conditions above name it (a scalar subquery
				 * made a join is dv_scalar_<n>, its value dv_v, its
				 * correlation columns dv_k<n>), with its group keys
				 */
				const char *name = list_nth(explain_names(g), bms_singleton_member(op->rels) - 1);
				StringInfoData keys;
				ListCell   *lc;

				initStringInfo(&keys);
				foreach(lc, op->inner->key_columns)
					appendStringInfo(&keys, "%s%s", foreach_current_index(lc) ? ", " : "",
									 quote_identifier(lfirst(lc)));
				gen_init(&ig, op->inner->level, g);
				appendStringInfo(buf, "subquery%s%s", name ? " " : "", name ? quote_identifier(name) : "");
				if (op->inner->node_topn)
				{
					initStringInfo(&keys);
					foreach(lc, op->inner->node_topn_order)
					{
						DvSortKey  *sk = lfirst(lc);
						Oid			opfamily;
						Oid			opcintype;
						int16		strategy = BTLessStrategyNumber;
						bool		desc;

						(void) get_ordering_op_properties(sk->sortop, &opfamily, &opcintype, &strategy);
						desc = strategy == BTGreaterStrategyNumber;
						appendStringInfo(&keys, "%s%s%s%s", foreach_current_index(lc) ? ", " : "",
										 quote_identifier(sk->column), desc ? " DESC" : "",
										 sk->nulls_first == desc ? "" : sk->nulls_first ? " NULLS FIRST" : " NULLS LAST");
					}
					appendStringInfo(buf, " (ORDER BY %s LIMIT " INT64_FORMAT " OFFSET " INT64_FORMAT "%s%s, no state): its first rows recomputed over new rows (+) and over old rows (-) when its input changed\n",
									 keys.data, op->inner->node_topn_count, op->inner->node_topn_offset,
									 op->inner->kind == DV_PLAN_SPJ ? "" : ", over its ",
									 op->inner->kind == DV_PLAN_SPJ ? "" :
									 op->inner->window_node ? "window functions" :
									 op->inner->input_tlist == NIL ? "aggregate" : "GROUP BY");
				}
				else if (op->inner->kind == DV_PLAN_SPJ)
					appendStringInfoString(buf, ": the delta of its operators\n");
				else if (op->inner->window_node && op->inner->input_tlist == NIL)
					appendStringInfo(buf, " (window without a PARTITION BY key shared by its windows%s): one partition, recomputed over new rows (+) and over old rows (-) when its input changed\n",
									 op->inner->grouped_level->groupClause ? ", over its GROUP BY" : "");
				else if (op->inner->window_node)
					appendStringInfo(buf, " (window partitioned by %s%s): the partitions whose keys its input's delta has, recomputed over new rows (+) and over old rows (-)\n",
									 keys.data, op->inner->grouped_level->groupClause ? ", over its GROUP BY" : "");
				else if (op->inner->input_tlist == NIL && op->state_id > 0 && extreme_aggrefs(op) == NIL)
					appendStringInfo(buf, " (aggregate without GROUP BY): state dynview_state.%s, its row; read from the state when its input has no change; else recomputed over new rows, its old row the state's\n",
									 quote_identifier(psprintf("ext_<table oid>_%d", op->state_id)));
				else if (op->inner->input_tlist == NIL && op->state_id > 0)
					appendStringInfo(buf, " (aggregate without GROUP BY, extremes): state dynview_state.%s, its input's first row in each aggregate's order; old value over the state, new value over the state and the inserted rows, recomputed over new rows only when a deleted row reaches an extreme; read from the state when its input has no change\n",
									 quote_identifier(psprintf("ext_<table oid>_%d", op->state_id)));
				else if (op->inner->input_tlist == NIL && op->inner->grouped_level &&
						 op->inner->grouped_level->groupingSets)
					appendStringInfoString(buf, " (GROUPING SETS, no state): recomputed over new rows (+) and over old rows (-) when its input changed\n");
				else if (op->inner->input_tlist == NIL)
					appendStringInfoString(buf, " (aggregate without GROUP BY): recomputed over new rows and over old rows when its input changed\n");
				else if (is_group_state(op) && !dv_optree_state_usable(op) && dv_optree_index_rule_serves(op))
					appendStringInfo(buf, " (GROUP BY %s, no state: %s): the groups whose keys its input's delta has, recomputed through the index over new rows (+) and over old rows (-)%s\n",
									 keys.data, dv_optree_index_rule_reason(op), old_by_sums_explain(op));
				else if (is_group_state(op))
					appendStringInfo(buf, " (GROUP BY %s, aggregates kept in state): state dynview_state.%s, per group its input rows and its aggregates' non-NULL counts and exact sums%s; the groups whose keys its input's delta has, old rows from the state (-), new rows from the state plus the aggregated delta (+)\n",
									 keys.data, quote_identifier(psprintf("ext_<table oid>_%d", op->state_id)),
									 group_state_explain_scales(op));
				else if (op->no_state_reason)
					appendStringInfo(buf, " (GROUP BY %s, no state: %s): the groups whose keys its input's delta has and some row of the join's other side joins, recomputed over new rows (+) and over old rows (-)%s\n",
									 keys.data, op->no_state_reason, old_by_sums_explain(op));
				else
					appendStringInfo(buf, " (GROUP BY %s): the groups whose keys its input's delta has, recomputed over new rows (+) and over old rows (-)%s\n",
									 keys.data, old_by_sums_explain(op));
				/* (its input may read its state when a refresh does: pad_count_from_state) */
				if (is_group_state(op) && op->state_id > 0 && dv_optree_state_usable(op))
					ig.pad_state_op = op;
				explain_op(&ig, buf, op->inner->tree, depth + 1);
				return;
			}
		case DV_OP_FUNC:
			appendStringInfo(buf, "function%s: %s\n", op->lateral ? " (LATERAL)" : "",
							 op->lateral ? "applied to each changed row of the left side" : "no changes of its own");
			return;
		case DV_OP_FILTER:
			/* (an optional state not built: said only where its source is not small) */
			appendStringInfo(buf, "filter %s: applied to the delta%s%s\n", explain_quals(g, op->quals),
							 explain_window_filter(g, op),
							 op->state_id > 0 && op->state_optional && !dv_optree_state_usable(op) ?
							 (rel_tuples(filter_chain_scan(op)->source->relid) < DV_PROBE_MIN_ROWS ? "" :
							  psprintf("; no state %s (kept only where the statistics say the filter keeps at most %d rows and %g of its source's): its source read",
									  quote_identifier(psprintf("ext_<table oid>_%d", op->state_id)),
									   DV_FILTER_STATE_MAX_ROWS, DV_FILTER_STATE_MAX_FRACTION)) :
							 op->state_id > 0 ?
							 psprintf("; state dynview_state.%s, its rows now (read for the scan's rows now); the rows whose key %s its window has replaced from the source before the statements",
									  quote_identifier(psprintf("ext_<table oid>_%d", op->state_id)),
									  filter_state_key_name(op)) : "");
			explain_op(g, buf, op->left, depth + 1);
			return;
		case DV_OP_JOIN:
			appendStringInfo(buf, "%s ON %s%s\n", rules[op->jointype], explain_quals(g, op->quals),
							 pad_count_from_state(g, op) ?
							 "; an unmatched row's matches, when the left side has no change, counted from the state of the subquery above (its matches before plus the delta's)" : "");
			explain_op(g, buf, op->left, depth + 1);
			explain_op(g, buf, op->right, depth + 1);
			return;
	}
}

char *
dv_optree_explain(Query *q, DvOp *root)
{
	DvGen		g;
	StringInfoData buf;

	gen_init(&g, q, NULL);
	initStringInfo(&buf);
	explain_op(&g, &buf, root, 0);
	if (buf.len > 0)
		buf.data[--buf.len] = '\0';
	return buf.data;
}

/* ---------------------------------------------------------------------
 * Operator state: the groups of a grouped subquery (optree.h)
 * ---------------------------------------------------------------------
 */


/*
 * group_state_agg - the kept form of aggregate a of the level q (whose Vars
 * its argument reads), or NULL if it is not algebraic over exact numbers:
 * count(*), count(x) (x not a row), sum and avg of int2, int4, int8 and of
 * numeric, without DISTINCT or ORDER BY.  FILTER is part of the input.  A
 * numeric whose every value has one scale (numeric_fixed_scale: a sum of
 * such prints as PostgreSQL's does, at that scale, however many rows left
 * the group) keeps its NaNs counted; any other numeric is scale_tracked
 * (dv_scale_unit_sql: its infinities and its live inputs per display scale
 * counted too).
 */
static GroupAgg *
group_state_agg(Aggref *a, Query *q)
{
	GroupAgg   *ga = palloc0(sizeof(GroupAgg));

	if (a->agglevelsup != 0 || a->aggkind != AGGKIND_NORMAL || a->aggvariadic ||
		a->aggorder != NIL || a->aggdistinct != NIL)
		return NULL;
	ga->aggref = a;
	ga->scale = -1;
	if (a->aggstar)
	{
		if (a->aggfnoid != F_COUNT_)
			return NULL;
		ga->kind = GROUP_AGG_COUNT;
		return ga;
	}
	if (list_length(a->args) != 1)
		return NULL;
	ga->arg = (Node *) linitial_node(TargetEntry, a->args)->expr;
	ga->argtype = exprType(ga->arg);
	switch (a->aggfnoid)
	{
		case F_COUNT_ANY:
			if (type_is_rowtype(ga->argtype))
				return NULL;	/* ("x IS NOT NULL" would test a row's fields) */
			ga->kind = GROUP_AGG_COUNT;
			return ga;
		case F_SUM_INT2:
		case F_SUM_INT4:
		case F_SUM_INT8:
			ga->kind = GROUP_AGG_SUM;
			return ga;
		case F_AVG_INT2:
		case F_AVG_INT4:
		case F_AVG_INT8:
			ga->kind = GROUP_AGG_AVG;
			return ga;
		case F_SUM_NUMERIC:
		case F_AVG_NUMERIC:
			ga->kind = a->aggfnoid == F_SUM_NUMERIC ? GROUP_AGG_SUM : GROUP_AGG_AVG;
			ga->scale = numeric_fixed_scale(ga->arg, q);
			ga->scale_tracked = ga->scale < 0;
			return ga;
		default:
			return NULL;
	}
}

/*
 * group_state_aggs - the aggregates of the grouped subquery operator op
 * (its output and HAVING, each once), kept; *ok false if one cannot be.
 */
static List *
group_state_aggs(DvOp *op, bool *ok)
{
	Query	   *gq = op->inner->grouped_level;
	List	   *found = NIL;
	List	   *aggs = NIL;
	ListCell   *lc;

	*ok = true;
	(void) collect_aggrefs_walker((Node *) gq->targetList, &found);
	(void) collect_aggrefs_walker(gq->havingQual, &found);
	foreach(lc, found)
	{
		Node	   *a = plain_var_mutator(lfirst(lc), NULL);
		GroupAgg   *ga;
		ListCell   *lk;
		bool		seen = false;

		foreach(lk, aggs)
			seen = seen || equal(((GroupAgg *) lfirst(lk))->aggref, a);
		if (seen)
			continue;
		ga = group_state_agg((Aggref *) a, op->inner->level);
		if (ga == NULL)
		{
			*ok = false;
			return NIL;
		}
		aggs = lappend(aggs, ga);
	}
	return aggs;
}

/*
 * An expression of the grouped level (output, HAVING) over the values of a
 * group kept in the state: its group keys become columns k1..kn and its
 * aggregates columns a1..am of a relation of the state's values (range
 * table entry varno, after the stand-ins); ok false if some other column
 * of the input, a sublink, window or grouping function remains.
 */
typedef struct StateValueMap
{
	List	   *keys;			/* the group key expressions (plain Vars) */
	List	   *aggs;			/* of GroupAgg */
	int			varno;
	bool		ok;
} StateValueMap;

static Node *
state_value_mutator(Node *node, StateValueMap *m)
{
	ListCell   *lc;

	if (node == NULL)
		return NULL;
	foreach(lc, m->keys)
	{
		if (equal(node, lfirst(lc)))
			return (Node *) makeVar(m->varno, foreach_current_index(lc) + 1, exprType(node),
									exprTypmod(node), exprCollation(node), 0);
	}
	if (IsA(node, Aggref))
	{
		foreach(lc, m->aggs)
		{
			Aggref	   *a = ((GroupAgg *) lfirst(lc))->aggref;

			if (equal(node, a))
				return (Node *) makeVar(m->varno, list_length(m->keys) + foreach_current_index(lc) + 1,
										a->aggtype, -1, a->aggcollid, 0);
		}
		m->ok = false;
		return node;
	}
	if (IsA(node, Var) || IsA(node, SubLink) || IsA(node, WindowFunc) ||
		IsA(node, GroupingFunc) || IsA(node, Query))
	{
		m->ok = false;
		return node;
	}
	return expression_tree_mutator(node, state_value_mutator, (void *) m);
}

/* the group keys of op's grouped level (its input's delta keys), as plain Vars */
static List *
group_state_keys(DvOp *op)
{
	List	   *keys = NIL;
	ListCell   *lc;

	foreach(lc, op->inner->input_tlist)
		keys = lappend(keys, plain_var_mutator((Node *) lfirst_node(TargetEntry, lc)->expr, NULL));
	return keys;
}

/* expr of op's grouped level over the state's values (NULL if it does not map) */
static Node *
state_value_expr(DvOp *op, List *aggs, int varno, Node *expr)
{
	StateValueMap m;
	Node	   *e;

	m.keys = group_state_keys(op);
	m.aggs = aggs;
	m.varno = varno;
	m.ok = true;
	e = state_value_mutator(plain_var_mutator(expr, NULL), &m);
	return m.ok ? e : NULL;
}

/*
 * group_state_eligible - can the subquery operator op keep its groups?  A
 * GROUP BY (no grouping sets, DISTINCT, windows, set-returning functions
 * or LIMIT, no top-N over the groups: its rows are cut after the grouping,
 * topn_rows_sql) whose aggregates are all kept (group_state_aggs), whose group
 * keys compare as identity (dv_equality_is_identity: a group's key prints
 * as every row of the group does), with a btree equality, under their
 * type's default collation, and whose output and HAVING read the group
 * keys and the aggregates only.
 */
static bool
group_state_eligible(DvOp *op)
{
	DvPlan	   *inner = op->inner;
	Query	   *gq = inner->grouped_level;
	List	   *aggs;
	bool		ok;
	ListCell   *lc;

	if (inner->kind != DV_PLAN_GROUPED || inner->window_node || inner->tree == NULL || inner->node_topn ||
		gq == NULL || gq->groupClause == NIL || gq->groupingSets || gq->distinctClause ||
		gq->hasTargetSRFs || gq->hasWindowFuncs || gq->limitCount || gq->limitOffset ||
		list_length(inner->input_tlist) != list_length(gq->groupClause))
		return false;
	aggs = group_state_aggs(op, &ok);
	if (!ok)
		return false;
	foreach(lc, group_state_keys(op))
	{
		Node	   *k = lfirst(lc);
		Oid			coll = exprCollation(k);
		TypeCacheEntry *tc = lookup_type_cache(exprType(k), TYPECACHE_EQ_OPR | TYPECACHE_BTREE_OPFAMILY);

		if (!OidIsValid(tc->eq_opr) || !OidIsValid(tc->btree_opf) ||
			(OidIsValid(coll) && coll != DEFAULT_COLLATION_OID) ||
			!dv_equality_is_identity(exprType(k), exprTypmod(k), coll) ||
			get_typtype(exprType(k)) == TYPTYPE_PSEUDO || type_is_rowtype(exprType(k)))
			return false;
	}
	foreach(lc, gq->targetList)
	{
		TargetEntry *te = lfirst_node(TargetEntry, lc);

		if (!te->resjunk && state_value_expr(op, aggs, 1, (Node *) te->expr) == NULL)
			return false;
	}
	if (gq->havingQual && state_value_expr(op, aggs, 1, gq->havingQual) == NULL)
		return false;
	return true;
}

/* is op a grouped subquery operator that keeps its groups (and reads them now)? */
static bool
is_group_state(DvOp *op)
{
	return op->kind == DV_OP_GROUP && op->state_id > 0 && op->inner->input_tlist != NIL;
}

static bool
reads_group_state(DvOp *op)
{
	return is_group_state(op) && reads_state(op);
}

/* the input of aggregate ga over the input's row (alias d): NULL where FILTER fails */
static char *
group_agg_input(DvGen *ig, DvOp *op, GroupAgg *ga)
{
	char	   *x = ga->arg ? psprintf("(%s)", deparse(ig, ga->arg, op->inner->tree, "d", NULL, NULL)) : "1";

	if (ga->aggref->aggfilter)
		return psprintf("CASE WHEN %s THEN %s END",
						deparse(ig, (Node *) ga->aggref->aggfilter, op->inner->tree, "d", NULL, NULL), x);
	return x;
}

/*
 * Sums of numeric without one scale (GroupAgg.scale_tracked).  PostgreSQL's
 * sum(numeric) (numeric.c numeric_sum, do_numeric_accum) counts NaN, +Infinity
 * and -Infinity inputs apart and adds the finite ones, the sum's display
 * scale the largest of theirs: sum(1.0, 1.00) is 2.00, and once the 1.00 row
 * is gone the sum is 1.0.  The result is NaN with a NaN input or with both
 * infinities, else an infinity if one was input, else the sum.  avg
 * (numeric_avg) is that sum divided by the count of finite inputs by
 * numeric division (numeric_div, whose result scale follows from the two
 * operands'), the special values as for sum.  A state that only adds would
 * keep the largest scale ever added, so the state keeps per group and
 * aggregate j:
 *	z<j>, pi<j>, ni<j>	the live NaN, +Infinity and -Infinity inputs
 *	s<j>				the exact sum of the live finite inputs
 *	sc<j>				the live finite inputs counted per display scale k in
 *						one exact integer, sum of weight * 10^(19 k) (a count,
 *						below 10^19, per 19-digit block: the encoding of
 *						aggstate.c's sc<j> for the table's own aggregates).
 * The largest live scale is the index of the highest non-zero block,
 * (digits - 1) / 19, and the sum is round(s<j>, that scale): exact, as no
 * live input has digits beyond it.  No group is recomputed for a scale that
 * dropped.  Scales above DV_SCALE_BLOCKS_MAX (a product of long fractions;
 * numeric allows 16383) share one block: a changed group with a live input
 * of such a scale has its state recomputed from its input rows now
 * (group_state_new_sql), s<j> then being PostgreSQL's own sum, with its own
 * display scale, which the value shows unrounded.
 */
/*
 * dv_scale_unit_sql, dv_scale_of_counts_sql, dv_scale_beyond_blocks_sql -
 * the scale counts of numeric inputs, in SQL (optree.h).  One encoding for
 * the grouped states here and the table's own aggregate states (aggstate.c).
 */
char *
dv_scale_unit_sql(const char *x)
{
	StringInfoData buf;

	/* literal constants for the usual scales: no string built per row */
	initStringInfo(&buf);
	appendStringInfo(&buf, "CASE pg_catalog.scale(%s) WHEN 0 THEN 1::pg_catalog.numeric", x);
	for (int k = 1; k <= 8; k++)
		appendStringInfo(&buf, " WHEN %d THEN '1%0*d'::pg_catalog.numeric", k, 19 * k, 0);
	appendStringInfo(&buf, " ELSE ('1' OPERATOR(pg_catalog.||) pg_catalog.repeat('0', 19 * "
					 "LEAST(pg_catalog.scale(%s), %d)))::pg_catalog.numeric END",
					 x, DV_SCALE_BLOCKS_MAX + 1);
	return buf.data;
}

char *
dv_scale_of_counts_sql(const char *sc)
{
	return psprintf("CASE WHEN %s > 0 THEN (pg_catalog.length((%s)::pg_catalog.text) - 1) / 19 ELSE 0 END",
					sc, sc);
}

char *
dv_scale_beyond_blocks_sql(const char *sc)
{
	return psprintf("(%s >= ('1' OPERATOR(pg_catalog.||) pg_catalog.repeat('0', %d))::pg_catalog.numeric)",
					sc, 19 * (DV_SCALE_BLOCKS_MAX + 1));
}

/* does aggregate ga keep its NaN inputs counted (z<j>)? */
static bool
group_agg_counts_nan(GroupAgg *ga)
{
	return ga->kind != GROUP_AGG_COUNT && (ga->scale >= 0 || ga->scale_tracked);
}

/* is any aggregate of aggs scale_tracked? */
static bool
group_aggs_scale_tracked(List *aggs)
{
	ListCell   *lc;

	foreach(lc, aggs)
	{
		if (((GroupAgg *) lfirst(lc))->scale_tracked)
			return true;
	}
	return false;
}

/*
 * SQL: the value of sum (or, avg, its sum) of scale_tracked aggregate j
 * from state columns prefixed by "x.<prefix>", for a group with a non-NULL
 * input (see above)
 */
static char *
group_tracked_sum_value(int j, const char *prefix)
{
	char	   *sc = psprintf("x.%ssc%d", prefix, j);

	return psprintf("CASE WHEN x.%sz%d > 0 OR (x.%spi%d > 0 AND x.%sni%d > 0) THEN 'NaN'::pg_catalog.numeric "
					"WHEN x.%spi%d > 0 THEN 'Infinity'::pg_catalog.numeric "
					"WHEN x.%sni%d > 0 THEN '-Infinity'::pg_catalog.numeric "
					"WHEN %s THEN x.%ss%d "
					"ELSE pg_catalog.round(x.%ss%d, %s) END",
					prefix, j, prefix, j, prefix, j, prefix, j, prefix, j,
					dv_scale_beyond_blocks_sql(sc), prefix, j, prefix, j, dv_scale_of_counts_sql(sc));
}

/*
 * the explain text of op's scale_tracked aggregates (a grouped subquery
 * operator that keeps its groups), "" if none
 */
static const char *
group_state_explain_scales(DvOp *op)
{
	bool		ok;
	List	   *aggs = group_state_aggs(op, &ok);
	StringInfoData buf;
	ListCell   *lc;

	initStringInfo(&buf);
	foreach(lc, aggs)
	{
		if (((GroupAgg *) lfirst(lc))->scale_tracked)
			appendStringInfo(&buf, "%sa%d", buf.len ? ", " : "", foreach_current_index(lc) + 1);
	}
	if (buf.len == 0)
		return "";
	return psprintf(", and for the sums of numeric without one scale (%s) their NaN and infinite inputs and their live finite inputs counted per display scale (a sum shows the largest live scale, exactly, without recomputing the group; a changed group with a live input of a scale above %d is recomputed over its input rows now)",
					buf.data, DV_SCALE_BLOCKS_MAX);
}

/*
 * group_state_sums - "k1, .., dv_count, n1, s1, z1, .." of op's groups over
 * rows of its input (alias d), each row counted w times (w: "d.dv_weight *"
 * over a delta, "" over rows), for a GROUP BY 1..n: the state's columns:
 *	k<i>		the group keys
 *	dv_count	the input rows of the group (a group at 0 is gone)
 *	n<j>		the rows whose input of aggregate j is not NULL
 *	s<j>		sum, avg: the exact sum of those inputs (numeric; of a
 *				numeric, without its NaNs)
 *	z<j>		sum, avg of numeric: the NaN inputs (the result is NaN)
 *	pi<j>, ni<j>, sc<j>	sum, avg of numeric without one scale: the
 *				+Infinity and -Infinity inputs, the finite inputs counted per
 *				display scale (dv_scale_unit_sql); s<j> sums the finite ones
 */
static char *
group_state_sums(DvGen *ig, DvOp *op, List *aggs, const char *w)
{
	StringInfoData buf;
	ListCell   *lc;

	initStringInfo(&buf);
	foreach(lc, op->inner->input_tlist)
		appendStringInfo(&buf, "%s AS k%d, ",
						 deparse(ig, (Node *) lfirst_node(TargetEntry, lc)->expr, op->inner->tree, "d", NULL, NULL),
						 foreach_current_index(lc) + 1);
	if (*w == '\0')
	{
		/*
		 * Unweighted (the state's fill from the rows of a group, each at
		 * least one): the same values through counts and FILTER, which cost
		 * less than sums of CASE over every input row.
		 */
		appendStringInfoString(&buf, "pg_catalog.count(*) AS dv_count");
		foreach(lc, aggs)
		{
			GroupAgg   *ga = lfirst(lc);
			int			j = foreach_current_index(lc) + 1;
			char	   *x = group_agg_input(ig, op, ga);

			appendStringInfo(&buf, ", pg_catalog.count(%s) AS n%d", x, j);
			if (ga->kind == GROUP_AGG_COUNT)
				continue;
			if (ga->scale >= 0)
				appendStringInfo(&buf, ", CASE WHEN pg_catalog.count(%s) > 0 THEN COALESCE(pg_catalog.sum(%s) FILTER (WHERE %s <> 'NaN'::pg_catalog.numeric), 0) END AS s%d"
								 ", pg_catalog.count(*) FILTER (WHERE %s = 'NaN'::pg_catalog.numeric) AS z%d",
								 x, x, x, j, x, j);
			else if (ga->scale_tracked)
				appendStringInfo(&buf, ", CASE WHEN pg_catalog.count(%s) > 0 THEN COALESCE(pg_catalog.sum(%s) FILTER (WHERE pg_catalog.scale(%s) IS NOT NULL), 0) END AS s%d"
								 ", pg_catalog.count(*) FILTER (WHERE %s = 'NaN'::pg_catalog.numeric) AS z%d"
								 ", pg_catalog.count(*) FILTER (WHERE %s = 'Infinity'::pg_catalog.numeric) AS pi%d"
								 ", pg_catalog.count(*) FILTER (WHERE %s = '-Infinity'::pg_catalog.numeric) AS ni%d"
								 ", COALESCE(pg_catalog.sum(%s), 0) AS sc%d",
								 x, x, x, j, x, j, x, j, x, j, dv_scale_unit_sql(x), j);
			else
				appendStringInfo(&buf, ", pg_catalog.sum(%s::pg_catalog.numeric) AS s%d", x, j);
		}
		return buf.data;
	}
	appendStringInfo(&buf, "pg_catalog.sum(%s1)::pg_catalog.int8 AS dv_count", w);
	foreach(lc, aggs)
	{
		GroupAgg   *ga = lfirst(lc);
		int			j = foreach_current_index(lc) + 1;
		char	   *x = group_agg_input(ig, op, ga);

		appendStringInfo(&buf, ", pg_catalog.sum(%sCASE WHEN %s IS NULL THEN 0 ELSE 1 END)::pg_catalog.int8 AS n%d",
						 w, x, j);
		if (ga->kind == GROUP_AGG_COUNT)
			continue;
		if (ga->scale >= 0)
			appendStringInfo(&buf, ", pg_catalog.sum(%sCASE WHEN %s = 'NaN'::pg_catalog.numeric THEN 0 ELSE %s END) AS s%d"
							 ", pg_catalog.sum(%sCASE WHEN %s = 'NaN'::pg_catalog.numeric THEN 1 ELSE 0 END)::pg_catalog.int8 AS z%d",
							 w, x, x, j, w, x, j);
		else if (ga->scale_tracked)
			appendStringInfo(&buf, ", pg_catalog.sum(%sCASE WHEN pg_catalog.scale(%s) IS NOT NULL THEN %s ELSE 0 END) AS s%d"
							 ", pg_catalog.sum(%sCASE WHEN %s = 'NaN'::pg_catalog.numeric THEN 1 ELSE 0 END)::pg_catalog.int8 AS z%d"
							 ", pg_catalog.sum(%sCASE WHEN %s = 'Infinity'::pg_catalog.numeric THEN 1 ELSE 0 END)::pg_catalog.int8 AS pi%d"
							 ", pg_catalog.sum(%sCASE WHEN %s = '-Infinity'::pg_catalog.numeric THEN 1 ELSE 0 END)::pg_catalog.int8 AS ni%d"
							 ", COALESCE(pg_catalog.sum(%s%s), 0) AS sc%d",
							 w, x, x, j, w, x, j, w, x, j, w, x, j, w, dv_scale_unit_sql(x), j);
		else
			appendStringInfo(&buf, ", pg_catalog.sum(%s%s::pg_catalog.numeric) AS s%d", w, x, j);
	}
	return buf.data;
}

/*
 * the state's columns after the keys, "dv_count, n1, s1, z1, ..." each
 * prefixed by prefix, and named <as><column> when as is not NULL
 */
static List *
group_state_value_names(List *aggs)
{
	List	   *names = list_make1("dv_count");
	ListCell   *lc;

	foreach(lc, aggs)
	{
		GroupAgg   *ga = lfirst(lc);
		int			j = foreach_current_index(lc) + 1;

		names = lappend(names, psprintf("n%d", j));
		if (ga->kind != GROUP_AGG_COUNT)
			names = lappend(names, psprintf("s%d", j));
		if (group_agg_counts_nan(ga))
			names = lappend(names, psprintf("z%d", j));
		if (ga->scale_tracked)
		{
			names = lappend(names, psprintf("pi%d", j));
			names = lappend(names, psprintf("ni%d", j));
			names = lappend(names, psprintf("sc%d", j));
		}
	}
	return names;
}

static char *
group_state_value_columns(List *aggs, const char *prefix, const char *as)
{
	StringInfoData buf;
	List	   *names = group_state_value_names(aggs);
	ListCell   *lc;

	initStringInfo(&buf);
	foreach(lc, names)
	{
		appendStringInfo(&buf, "%s%s%s", foreach_current_index(lc) ? ", " : "", prefix, (char *) lfirst(lc));
		if (as)
			appendStringInfo(&buf, " AS %s%s", as, (char *) lfirst(lc));
	}
	return buf.data;
}

/* "x.k1, .., x.kn, " */
static char *
group_state_key_list(DvOp *op, const char *alias)
{
	StringInfoData buf;

	initStringInfo(&buf);
	for (int i = 1; i <= list_length(op->inner->input_tlist); i++)
		appendStringInfo(&buf, "%s.k%d, ", alias, i);
	return buf.data;
}

/*
 * group_state_values - "SELECT x.k1.., a1.." of the groups of relation rel
 * (alias x: state columns, prefixed by prefix, with count_col > 0): each
 * aggregate's value as PostgreSQL computes it from count and sum: a sum of
 * integers cast to its type (int8, or numeric for int8's); of numeric, the
 * sum at its inputs' scale, or NaN; avg, sum / count in numeric division
 * (int8_avg and numeric_avg divide so); NULL without a non-NULL input.
 */
static char *
group_state_values(DvOp *op, List *aggs, const char *rel, const char *prefix)
{
	StringInfoData buf;
	ListCell   *lc;

	initStringInfo(&buf);
	appendStringInfo(&buf, "SELECT %s", group_state_key_list(op, "x"));
	foreach(lc, aggs)
	{
		GroupAgg   *ga = lfirst(lc);
		int			j = foreach_current_index(lc) + 1;
		char	   *n = psprintf("x.%sn%d", prefix, j);
		char	   *s = psprintf("x.%ss%d", prefix, j);
		char	   *v;

		if (ga->scale >= 0)
			s = psprintf("CASE WHEN x.%sz%d > 0 THEN 'NaN'::pg_catalog.numeric ELSE pg_catalog.round(%s, %d) END",
						 prefix, j, s, ga->scale);
		else if (ga->scale_tracked)
			s = group_tracked_sum_value(j, prefix);
		if (ga->kind == GROUP_AGG_COUNT)
			v = n;
		else if (ga->kind == GROUP_AGG_AVG)
			v = psprintf("CASE WHEN %s > 0 THEN (%s) OPERATOR(pg_catalog./) %s::pg_catalog.numeric END", n, s, n);
		else
			v = psprintf("CASE WHEN %s > 0 THEN (%s)::%s END", n, s,
						 format_type_extended(ga->aggref->aggtype, -1, FORMAT_TYPE_FORCE_QUALIFY));
		appendStringInfo(&buf, "%s AS a%d", v, j);
		if (lnext(aggs, lc))
			appendStringInfoString(&buf, ", ");
	}
	if (aggs == NIL)
	{
		/* no aggregate (a GROUP BY of keys only): drop the last key's ", " */
		buf.len -= 2;
		buf.data[buf.len] = '\0';
	}
	appendStringInfo(&buf, " FROM %s x WHERE x.%sdv_count > 0", rel, prefix);
	return buf.data;
}

/*
 * deparse_state_value - expr of op's grouped level over relation alias v of
 * the state's values (group_state_values): ruleutils deparses the level's
 * own expression with its keys and aggregates made columns of v.
 */
static char *
deparse_state_value(DvGen *ig, DvOp *op, List *aggs, Node *expr, const char *alias)
{
	int			varno = list_length(ig->stand_in) + 1;
	Node	   *e = state_value_expr(op, aggs, varno, expr);
	RangeTblEntry *rte = makeNode(RangeTblEntry);
	List	   *names = NIL;
	List	   *colnames = NIL;
	PlannedStmt *pstmt = makeNode(PlannedStmt);

	if (e == NULL)
		elog(ERROR, "dynview: an expression of a grouped subquery does not map to its state");
	for (int i = 1; i <= list_length(op->inner->input_tlist); i++)
		colnames = lappend(colnames, makeString(psprintf("k%d", i)));
	for (int j = 1; j <= list_length(aggs); j++)
		colnames = lappend(colnames, makeString(psprintf("a%d", j)));
	rte->rtekind = RTE_NAMEDTUPLESTORE;
	rte->enrname = "dv_state_values";
	rte->eref = makeAlias(rte->enrname, colnames);
	rte->inFromCl = true;
	for (int rti = 1; rti < varno; rti++)
		names = lappend(names, "dv_none");
	names = lappend(names, (char *) alias);
	pstmt->commandType = CMD_SELECT;
	pstmt->rtable = lappend(list_copy(ig->stand_in), rte);
	return deparse_expression(e, deparse_context_for_plan_tree(pstmt, names), true, false);
}

/*
 * group_state_rows - op's rows (columns c<rti>_<resno>) over the values of
 * its groups (the SQL of group_state_values): its output, where HAVING
 * holds for the group.
 */
static char *
group_state_rows(DvGen *g, DvOp *op, List *aggs, const char *values)
{
	Query	   *gq = op->inner->grouped_level;
	int			rti = bms_singleton_member(op->rels);
	DvGen		ig;
	StringInfoData buf;
	ListCell   *lc;
	bool		first = true;

	gen_init(&ig, op->inner->level, g);
	initStringInfo(&buf);
	appendStringInfoString(&buf, "SELECT ");
	foreach(lc, gq->targetList)
	{
		TargetEntry *te = lfirst_node(TargetEntry, lc);

		if (te->resjunk)
			continue;
		appendStringInfo(&buf, "%s%s AS c%d_%d", first ? "" : ", ",
						 deparse_state_value(&ig, op, aggs, (Node *) te->expr, "v"), rti, te->resno);
		first = false;
	}
	appendStringInfo(&buf, " FROM (%s) v", values);
	if (gq->havingQual)
		appendStringInfo(&buf, " WHERE %s", deparse_state_value(&ig, op, aggs, gq->havingQual, "v"));
	return buf.data;
}

/*
 * group_state_sql - group_sql of op from its state: its groups now, the
 * state (a refresh makes the new rows of a grouped state its state as soon
 * as they are computed, before the statements that read it:
 * dv_optree_state_replace_first), so that a row that looks its group up
 * (a semi-join's match count, per row) costs an index lookup of the state,
 * not a scan of the changed groups' new rows; restricted to the groups
 * whose first key is among keys' k1 (or, with null_keys, to those whose
 * first key is NULL if a NULL is) when keys is not NULL: an index lookup of
 * the state per key.  (old: the groups as they were, which no rule reads:
 * the state before its replacement)
 */
static char *
group_state_sql(DvGen *g, DvOp *op, bool old, const char *keys, bool null_keys)
{
	bool		ok;
	List	   *aggs = group_state_aggs(op, &ok);
	char	   *state = state_qualified(op);
	char	   *cols = psprintf("%s%s", group_state_key_list(op, "x"), group_state_value_columns(aggs, "x.", NULL));
	const char *key_cond = "";
	char	   *rel;

	/* (the keys as an array: an index scan of the state, in each branch below) */
	if (keys && null_keys)
	{
		Oid			k1type = exprType((Node *) linitial_node(TargetEntry, op->inner->input_tlist)->expr);

		key_cond = psprintf(" AND %s AND EXISTS (SELECT FROM %s k WHERE %s)",
							dv_null_test_sql("x.k1", k1type), keys, dv_null_test_sql("k.k1", k1type));
	}
	else if (keys)
		key_cond = psprintf(" AND x.k1 %s ANY (ARRAY(SELECT k.k1 FROM %s k))",
							dv_equality_operator(exprType((Node *) linitial_node(TargetEntry, op->inner->input_tlist)->expr)),
							keys);
	if (keys && !null_keys && group_state_key_hashed(op, 1))
		key_cond = psprintf("%s AND %s = ANY (ARRAY(SELECT %s FROM %s k))", key_cond,
							dv_key_hash_sql("x.k1"), dv_key_hash_sql("k.k1"), keys);
	if (old && has_delta(op))
		elog(ERROR, "dynview: the old groups of a grouped state are not kept");
	rel = psprintf("(SELECT %s FROM %s x WHERE true%s)", cols, state, key_cond);
	return group_state_rows(g, op, aggs, group_state_values(op, aggs, rel, ""));
}

/*
 * group_state_delta - the delta of a grouped subquery operator that keeps
 * its groups, whose input changed: the changed groups' rows now (+1) from
 * their new state rows, less their rows as they were (-1) from the old
 * values those carry (dv_optree_state_new_sql), each where it has input
 * rows and HAVING holds.
 */
static void
group_state_delta(DvGen *g, DvOp *op, StringInfo terms)
{
	bool		ok;
	List	   *aggs = group_state_aggs(op, &ok);
	char	   *rel;

	/*
	 * (no keys_filter: a changed group costs its two rows here, less than
	 * finding whether some row of the other side joins it, which reads
	 * that side now)
	 */
	rel = add_cte(g, psprintf("SELECT * FROM %s k", dv_optree_state_new_name(op)));
	appendStringInfo(terms, "SELECT s.*, 1::pg_catalog.int8 AS dv_weight FROM (%s) s "
					 "UNION ALL SELECT s.*, -1::pg_catalog.int8 FROM (%s) s",
					 group_state_rows(g, op, aggs, group_state_values(op, aggs, rel, "")),
					 group_state_rows(g, op, aggs, group_state_values(op, aggs, rel, "o_")));
}

/* the state's rows of op over its input now (a FULL refresh's fill) */
static char *
group_state_fill_sql(DvGen *ig, DvOp *op)
{
	bool		ok;
	List	   *aggs = group_state_aggs(op, &ok);
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfo(&buf, "SELECT %s FROM (%s) d GROUP BY ", group_state_sums(ig, op, aggs, ""),
					 rows_sql(ig, op->inner->tree));
	for (int i = 1; i <= list_length(op->inner->input_tlist); i++)
		appendStringInfo(&buf, "%s%d", i > 1 ? ", " : "", i);
	return buf.data;
}

/*
 * group_state_new_sql - the new state rows of op's changed groups: for each
 * group key of its input's delta, the keys, dv_ctid (the state row's, NULL
 * for a new group), the state's columns after the delta, and o_<column>
 * as they were (NULL for a new group).  The state row is found by the keys
 * through the state's index; a NULL key through IS NOT DISTINCT FROM.
 */
static char *
group_state_new_sql(DvGen *ig, DvOp *op, const char *d)
{
	bool		ok;
	List	   *aggs = group_state_aggs(op, &ok);
	StringInfoData a;
	StringInfoData eq;
	StringInfoData nulls;
	StringInfoData anynull;
	StringInfoData buf;
	char	   *agg;
	ListCell   *lc;

	initStringInfo(&a);
	appendStringInfo(&a, "SELECT %s FROM %s d GROUP BY ", group_state_sums(ig, op, aggs, "d.dv_weight * "), d);
	initStringInfo(&eq);
	initStringInfo(&nulls);
	initStringInfo(&anynull);
	foreach(lc, op->inner->input_tlist)
	{
		int			i = foreach_current_index(lc) + 1;

		appendStringInfo(&a, "%s%d", i > 1 ? ", " : "", i);
		appendStringInfo(&eq, "%sx.k%d %s a.k%d", i > 1 ? " AND " : "", i,
						 dv_equality_operator(exprType((Node *) lfirst_node(TargetEntry, lc)->expr)), i);
		appendStringInfo(&nulls, "%sx.k%d IS NOT DISTINCT FROM a.k%d", i > 1 ? " AND " : "", i, i);
		if (group_state_key_hashed(op, i))
		{
			char	   *hash = psprintf(" AND %s = %s", dv_key_hash_sql(psprintf("x.k%d", i)),
										dv_key_hash_sql(psprintf("a.k%d", i)));

			appendStringInfoString(&eq, hash);
			appendStringInfoString(&nulls, hash);
		}
		appendStringInfo(&anynull, "%sa.k%d IS NULL", i > 1 ? " OR " : "", i);
	}
	agg = add_cte(ig, a.data);
	initStringInfo(&buf);
	appendStringInfo(&buf, "SELECT %ss.dv_ctid, COALESCE(s.dv_count, 0) + a.dv_count AS dv_count",
					 group_state_key_list(op, "a"));
	foreach(lc, aggs)
	{
		GroupAgg   *ga = lfirst(lc);
		int			j = foreach_current_index(lc) + 1;

		appendStringInfo(&buf, ", COALESCE(s.n%d, 0) + a.n%d AS n%d", j, j, j);
		if (ga->kind != GROUP_AGG_COUNT)
			appendStringInfo(&buf, ", COALESCE(s.s%d, 0) + COALESCE(a.s%d, 0) AS s%d", j, j, j);
		if (group_agg_counts_nan(ga))
			appendStringInfo(&buf, ", COALESCE(s.z%d, 0) + a.z%d AS z%d", j, j, j);
		if (ga->scale_tracked)
			appendStringInfo(&buf, ", COALESCE(s.pi%d, 0) + a.pi%d AS pi%d, COALESCE(s.ni%d, 0) + a.ni%d AS ni%d"
							 ", COALESCE(s.sc%d, 0) + a.sc%d AS sc%d",
							 j, j, j, j, j, j, j, j, j);
	}
	appendStringInfo(&buf, ", %s FROM %s a LEFT JOIN LATERAL (SELECT x.ctid AS dv_ctid, x.* FROM %s x WHERE %s "
					 "UNION ALL SELECT x.ctid, x.* FROM %s x WHERE (%s) AND %s) s ON true",
					 group_state_value_columns(aggs, "s.", "o_"), agg, state_qualified(op), eq.data,
					 state_qualified(op), anynull.data, nulls.data);
	if (group_aggs_scale_tracked(aggs))
		return group_state_new_beyond_blocks(ig, op, aggs, buf.data);
	return buf.data;
}

/*
 * group_state_new_beyond_blocks - the new state rows (SQL rows, group_state_new_sql)
 * of op, whose aggregates aggs include a scale_tracked one, with the state
 * columns of each group that has a live input of a scale above
 * DV_SCALE_BLOCKS_MAX recomputed from its input rows now (the fill's
 * sums, group_state_fill_sql), which give its sums at PostgreSQL's own
 * display scale.  The recompute runs only when there is such a group (a
 * one-time filter), over those groups' rows.
 */
static char *
group_state_new_beyond_blocks(DvGen *ig, DvOp *op, List *aggs, const char *rows)
{
	char	   *rel = add_cte(ig, rows);
	List	   *names = group_state_value_names(aggs);
	StringInfoData beyond;
	StringInfoData match;
	StringInfoData join;
	StringInfoData cols;
	StringInfoData groupby;
	char	   *flagged;
	ListCell   *lc;

	initStringInfo(&beyond);
	foreach(lc, aggs)
	{
		if (((GroupAgg *) lfirst(lc))->scale_tracked)
			appendStringInfo(&beyond, "%s%s", beyond.len ? " OR " : "",
							 dv_scale_beyond_blocks_sql(psprintf("n.sc%d", foreach_current_index(lc) + 1)));
	}
	flagged = add_cte(ig, psprintf("SELECT %sn.dv_count FROM %s n WHERE %s",
								   group_state_key_list(op, "n"), rel, beyond.data));
	initStringInfo(&match);
	initStringInfo(&join);
	initStringInfo(&groupby);
	foreach(lc, op->inner->input_tlist)
	{
		int			i = foreach_current_index(lc) + 1;

		appendStringInfo(&groupby, "%s%d", i > 1 ? ", " : "", i);
		appendStringInfo(&match, " AND f.k%d IS NOT DISTINCT FROM (%s)", i,
						 deparse(ig, (Node *) lfirst_node(TargetEntry, lc)->expr, op->inner->tree, "d", NULL, NULL));
		appendStringInfo(&join, "%sn.k%d IS NOT DISTINCT FROM r.k%d", i > 1 ? " AND " : "", i, i);
	}
	initStringInfo(&cols);
	foreach(lc, names)
	{
		char	   *name = lfirst(lc);

		/* (a group with no input row left: counts 0, and gone) */
		if (name[0] == 's' && name[1] != 'c')
			appendStringInfo(&cols, ", r.%s", name);
		else
			appendStringInfo(&cols, ", COALESCE(r.%s, 0)", name);
	}
	return psprintf("SELECT n.* FROM %s n WHERE NOT (%s) "
					"UNION ALL SELECT %sn.dv_ctid%s, %s FROM %s n LEFT JOIN "
					"(SELECT %s FROM (%s) d WHERE (SELECT EXISTS (SELECT FROM %s)) "
					"AND EXISTS (SELECT FROM %s f WHERE true%s) GROUP BY %s) r ON %s WHERE %s",
					rel, beyond.data,
					group_state_key_list(op, "n"), cols.data, group_state_value_columns(aggs, "n.o_", NULL), rel,
					group_state_sums(ig, op, aggs, ""), rows_sql(ig, op->inner->tree), flagged,
					flagged, match.data, groupby.data, join.data, beyond.data);
}

/* the state table's columns of op's groups (group_state_sums) */
static char *
group_state_columns(DvOp *op)
{
	bool		ok;
	List	   *aggs = group_state_aggs(op, &ok);
	StringInfoData buf;
	ListCell   *lc;

	initStringInfo(&buf);
	foreach(lc, op->inner->input_tlist)
	{
		Node	   *k = (Node *) lfirst_node(TargetEntry, lc)->expr;
		int32		typmod = exprTypmod(k);
		Oid			type = getBaseTypeAndTypmod(exprType(k), &typmod);

		appendStringInfo(&buf, "k%d %s, ", foreach_current_index(lc) + 1, state_column_type(type, typmod));
	}
	appendStringInfo(&buf, "dv_count %s NOT NULL", state_column_type(INT8OID, -1));
	foreach(lc, aggs)
	{
		GroupAgg   *ga = lfirst(lc);
		int			j = foreach_current_index(lc) + 1;

		appendStringInfo(&buf, ", n%d %s NOT NULL", j, state_column_type(INT8OID, -1));
		if (ga->kind != GROUP_AGG_COUNT)
			appendStringInfo(&buf, ", s%d %s", j, state_column_type(NUMERICOID, -1));
		if (group_agg_counts_nan(ga))
			appendStringInfo(&buf, ", z%d %s NOT NULL", j, state_column_type(INT8OID, -1));
		if (ga->scale_tracked)
			appendStringInfo(&buf, ", pi%d %s NOT NULL, ni%d %s NOT NULL, sc%d %s NOT NULL",
							 j, state_column_type(INT8OID, -1), j, state_column_type(INT8OID, -1),
							 j, state_column_type(NUMERICOID, -1));
	}
	return buf.data;
}

/*
 * group_state_key_hashed - is op's state indexed on its i-th group key
 * (1-based) by the key's hash (keys.c dv_key_hashed: its values may be too
 * long for a B-tree entry)?  Lookups by that key then compare hashes too.
 */
static bool
group_state_key_hashed(DvOp *op, int i)
{
	Node	   *k = (Node *) list_nth_node(TargetEntry, op->inner->input_tlist, i - 1)->expr;

	return dv_key_hashed(exprType(k), exprTypmod(k), exprCollation(k), list_length(op->inner->input_tlist));
}

/*
 * dv_optree_state_key_columns - the index elements of the group keys of
 * op's state (a grouped subquery operator that keeps its groups), k1..kn
 * (char *), a hashed key as its hash (dv_key_hash_sql); NIL for another
 * state.  *hashed (may be NULL) tells whether a key is hashed: the index
 * cannot then be unique (two keys may share a hash).
 */
List *
dv_optree_state_key_columns(DvOp *op, bool *hashed)
{
	List	   *cols = NIL;

	if (hashed)
		*hashed = false;
	if (!is_group_state(op))
		return NIL;
	for (int i = 1; i <= list_length(op->inner->input_tlist); i++)
	{
		char	   *col = psprintf("k%d", i);

		if (group_state_key_hashed(op, i))
		{
			col = dv_key_hash_sql(col);
			if (hashed)
				*hashed = true;
		}
		cols = lappend(cols, col);
	}
	return cols;
}
