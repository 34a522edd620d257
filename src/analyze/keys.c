/*-------------------------------------------------------------------------
 *
 * keys.c
 *	  The unique key of an SPJ query level, derived over its operator tree
 *	  (optree.h): the output columns that no two rows of the result share
 *	  (two NULLs counted as equal, as the table's UNIQUE NULLS NOT DISTINCT
 *	  index counts them), or none.
 *
 * Every operator of the tree gets the column sets its rows are unique on
 * ("keys"), bottom-up:
 *	scan	 each unique index of the source that is valid, immediate, has
 *			 neither predicate nor expressions: its columns (NOT NULL or
 *			 NULLS NOT DISTINCT: a key; else unique only among rows without
 *			 a NULL in them, good for the join rule below only).  None for a
 *			 parent read with inheritance children that are not partitions.
 *	filter	 its child's keys (it drops rows only).
 *	group	 a subquery in FROM: its group keys (GROUP BY, DISTINCT, DISTINCT
 *			 ON, not windows), the empty key of a global aggregate (one row),
 *			 or its own derived key (an SPJ subquery).
 *	function a function in FROM that returns no set: the empty key (one row).
 *	inner	 kX + kY for every pair of keys (each pair of rows meets once);
 *			 and kX alone when the join condition equates every column of a
 *			 key of Y with an expression of X's row (or a constant) by an
 *			 equality of the family the key is unique by: a row of X then
 *			 meets at most one row of Y; the same the other way round.
 *	left	 kX + kY (a row of X is padded only when it meets none), and kX
 *			 alone when the condition equates a key of Y as above (a row of
 *			 X gives exactly one row).  Right: the mirror.
 *	full	 kX + kY only, and only when no row of X has every column of kX
 *			 NULL or no row of Y every column of kY (else X's padded row and
 *			 Y's padded row could agree on the key).  No key of one side
 *			 alone: Y's unmatched rows are padded with NULLs for X's columns.
 *	semi, anti	its left side's keys (the right side's rows are not rows of
 *			 the result).
 *
 * The key of the level is the shortest key of the root whose columns are
 * all output columns (plain column references), where a column may be
 * stood in for by one that an inner join condition or a filter equates it
 * with ("o.product_id = p.product_id": both are equal in every row that
 * passes, and both NULL in a row padded by an outer join above), and
 * whose uniqueness is by the output column type's default equality with
 * the column's own collation (the unique index built on the dynamic table
 * is).  Uniqueness by an equality that is not identity (numeric 1.0 and
 * 1.00, char(n)) is fine: rows are still matched by their text form in an
 * incremental refresh and by their binary image (*=) in a FULL one; the key
 * only says that no two rows are equal on it.  An empty key (at most one
 * row) is any one column the unique index and a hash join can take.
 *
 * The same keys, before projection, tell whether a column alone is unique
 * among a grouped level's input rows (dv_optree_input_key): then its
 * count(DISTINCT) is its count (delta.c keeps no multiplicities for it).
 *
 * The indexes dynview builds on keys of its own tables (state tables) index
 * a key column whose values may not fit a B-tree entry (about 2.7 kB) by
 * a hash of its value instead (dv_key_hashed, dv_key_hash_sql): statements
 * that look rows up by such a key compare the hashes, which the index
 * finds, and the values, which decide.
 *
 * Catalog lookups only (indexes of the sources, locked by the parser
 * already); needs a transaction.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/relation.h"
#include "access/stratnum.h"
#include "catalog/pg_class.h"
#include "catalog/pg_index.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_statistic.h"
#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "optimizer/tlist.h"
#include "parser/parsetree.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

#include "dynview.h"
#include "analyze/delta.h"
#include "analyze/optree.h"

/* a column of a key: column attno of range table entry rti, unique by eqop under collation */
typedef struct KeyCol
{
	int			rti;
	AttrNumber	attno;
	Oid			eqop;			/* an equality operator (btree strategy 3 of its family) */
	Oid			collation;		/* InvalidOid: not collatable */
} KeyCol;

typedef struct Key
{
	List	   *cols;			/* of KeyCol *; NIL: at most one row */
	bool		never_null;		/* no row has every column NULL */
	bool		nulls_distinct; /* unique only among rows without NULL in it
								 * (a unique index over nullable columns):
								 * good for the join rule only */
} Key;

/* more keys than this per operator are not kept (shortest first) */
#define MAX_KEYS 8

static List *op_keys(Query *q, DvOp *op, List **pairs);

static Key *
make_key(List *cols, bool never_null, bool nulls_distinct)
{
	Key		   *k = palloc0(sizeof(Key));

	k->cols = cols;
	k->never_null = never_null;
	k->nulls_distinct = nulls_distinct;
	return k;
}

static KeyCol *
make_col(int rti, AttrNumber attno, Oid eqop, Oid collation)
{
	KeyCol	   *c = palloc0(sizeof(KeyCol));

	c->rti = rti;
	c->attno = attno;
	c->eqop = eqop;
	c->collation = collation;
	return c;
}

/* add k to keys, shortest first, at most MAX_KEYS */
static List *
add_key(List *keys, Key *k)
{
	ListCell   *lc;
	int			i = 0;

	foreach(lc, keys)
	{
		if (list_length(((Key *) lfirst(lc))->cols) > list_length(k->cols))
			break;
		i++;
	}
	if (i >= MAX_KEYS)
		return keys;
	keys = list_insert_nth(keys, i, k);
	if (list_length(keys) > MAX_KEYS)
		keys = list_truncate(keys, MAX_KEYS);
	return keys;
}

/*
 * same_equality - is opno an equality operator (btree strategy 3 of a
 * family) whose family also has eqop as its equality: the two call the same
 * values equal (cross-type members included).
 */
static bool
same_equality(Oid opno, Oid eqop)
{
	List	   *families;
	ListCell   *lc;

	if (!OidIsValid(opno) || !OidIsValid(eqop))
		return false;
	families = get_mergejoin_opfamilies(opno);
	foreach(lc, families)
	{
		if (get_op_opfamily_strategy(eqop, lfirst_oid(lc)) == BTEqualStrategyNumber)
			return true;
	}
	return false;
}

/*
 * dv_rows_per_value - by the statistics (pg_class.reltuples and the
 * column's pg_statistic row, as ANALYZE left them), the rows of rel that
 * one non-NULL value of column attno has on average; *null_rows gets the
 * rows whose attno is NULL.  -1 when unknown (never analysed, no
 * statistics of the column, or no distinct count), 0 for an empty
 * relation.  The one estimate that choosing a key to restrict a scan by
 * (optree.c) and the index-recompute rule (grouprule.c) share.  rel is
 * open and locked by the caller.
 */
double
dv_rows_per_value(Relation rel, AttrNumber attno, double *null_rows)
{
	double		reltuples = rel->rd_rel->reltuples;
	HeapTuple	tup;
	double		ndistinct;
	double		nullfrac;

	*null_rows = 0;
	if (reltuples < 0)
		return -1;
	if (reltuples == 0)
		return 0;
	tup = SearchSysCache3(STATRELATTINH, ObjectIdGetDatum(RelationGetRelid(rel)),
						  Int16GetDatum(attno), BoolGetDatum(false));
	if (!HeapTupleIsValid(tup))
		return -1;
	ndistinct = ((Form_pg_statistic) GETSTRUCT(tup))->stadistinct;
	nullfrac = ((Form_pg_statistic) GETSTRUCT(tup))->stanullfrac;
	ReleaseSysCache(tup);
	*null_rows = reltuples * nullfrac;
	/* (stadistinct < 0: minus the fraction of the rows that are distinct) */
	if (ndistinct < 0)
		ndistinct = -ndistinct * reltuples;
	if (ndistinct <= 0)
		return -1;
	return reltuples * (1 - nullfrac) / ndistinct;
}

/*
 * dv_index_tuples - the pg_index rows (copies, palloc'd in the current
 * memory context) of the indexes of rel that speak for all of its rows
 * now: valid, live and without predicate.  The one walk over a relation's
 * indexes that dynview's uses of them (keys here, a relation's leading
 * index columns in optree.c, a dynamic table's distinct rows in refresh.c)
 * share; each adds its own tests (unique, immediate, without expressions).
 * rel is open and locked by the caller.
 */
List *
dv_index_tuples(Relation rel)
{
	List	   *indexes = RelationGetIndexList(rel);
	List	   *tuples = NIL;
	ListCell   *lc;

	foreach(lc, indexes)
	{
		HeapTuple	tup = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(lfirst_oid(lc)));
		Form_pg_index index;

		if (!HeapTupleIsValid(tup))
			continue;
		index = (Form_pg_index) GETSTRUCT(tup);
		if (index->indisvalid && index->indislive && heap_attisnull(tup, Anum_pg_index_indpred, NULL))
			tuples = lappend(tuples, heap_copytuple(tup));
		ReleaseSysCache(tup);
	}
	list_free(indexes);
	return tuples;
}

/*
 * scan_keys - the unique indexes of a source (module header).  The
 * relation is locked by the query already.
 */
static List *
scan_keys(DvPlanSource *src)
{
	Relation	rel;
	List	   *indexes;
	List	   *keys = NIL;
	ListCell   *lc;

	/* a parent's indexes say nothing of its inheritance children's rows */
	if (!src->only && get_rel_relkind(src->relid) != RELKIND_PARTITIONED_TABLE &&
		has_subclass(src->relid))
		return NIL;
	rel = relation_open(src->relid, AccessShareLock);
	indexes = dv_index_tuples(rel);
	foreach(lc, indexes)
	{
		HeapTuple	tup = lfirst(lc);
		Form_pg_index index = (Form_pg_index) GETSTRUCT(tup);
		Datum		d;
		bool		isnull;
		oidvector  *indclass;
		oidvector  *indcoll;
		List	   *cols = NIL;
		bool		ok;
		bool		notnull = true;

		ok = index->indisunique && index->indimmediate &&
			heap_attisnull(tup, Anum_pg_index_indexprs, NULL);
		d = SysCacheGetAttr(INDEXRELID, tup, Anum_pg_index_indclass, &isnull);
		indclass = (oidvector *) DatumGetPointer(d);
		d = SysCacheGetAttr(INDEXRELID, tup, Anum_pg_index_indcollation, &isnull);
		indcoll = (oidvector *) DatumGetPointer(d);
		for (int k = 0; ok && k < index->indnkeyatts; k++)
		{
			AttrNumber	attno = index->indkey.values[k];
			Oid			family = get_opclass_family(indclass->values[k]);
			Oid			type = get_opclass_input_type(indclass->values[k]);
			Oid			eqop = get_opfamily_member(family, type, type, BTEqualStrategyNumber);

			ok = attno > 0 && OidIsValid(eqop);
			if (!ok)
				break;
			notnull = notnull && TupleDescAttr(RelationGetDescr(rel), attno - 1)->attnotnull;
			cols = lappend(cols, make_col(src->rtindex, attno, eqop, indcoll->values[k]));
		}
		if (ok && cols != NIL)
			keys = add_key(keys, make_key(cols, notnull,
										  !notnull && !index->indnullsnotdistinct));
	}
	list_free_deep(indexes);
	relation_close(rel, AccessShareLock);
	return keys;
}

/* the non-junk entry of tlist named name, if exactly one has that name */
static TargetEntry *
named_entry(List *tlist, const char *name)
{
	TargetEntry *found = NULL;
	ListCell   *lc;

	foreach(lc, tlist)
	{
		TargetEntry *te = lfirst_node(TargetEntry, lc);

		if (te->resjunk || te->resname == NULL || strcmp(te->resname, name) != 0)
			continue;
		if (found)
			return NULL;
		found = te;
	}
	return found;
}

/*
 * group_keys - the key of a subquery in FROM (module header): its output
 * columns at (rti, resno).
 */
static List *
group_keys(Query *q, DvOp *op)
{
	int			rti = bms_singleton_member(op->rels);
	Query	   *sub = rt_fetch(rti, q->rtable)->subquery;
	DvPlan	   *inner = op->inner;
	List	   *cols = NIL;
	ListCell   *lc;

	if (sub == NULL || inner == NULL)
		return NIL;
	if (inner->kind == DV_PLAN_GROUPED && inner->keys_unique && !inner->window_node)
	{
		/* a global aggregate: one row (with HAVING, at most one) */
		if (inner->key_columns == NIL)
			return (sub->groupClause == NIL && sub->distinctClause == NIL && !sub->hasWindowFuncs &&
					sub->hasAggs && sub->groupingSets == NIL) ?
				list_make1(make_key(NIL, false, false)) : NIL;
		foreach(lc, inner->key_columns)
		{
			TargetEntry *te = named_entry(sub->targetList, lfirst(lc));
			SortGroupClause *sgc = NULL;

			if (te == NULL || te->ressortgroupref == 0)
				return NIL;
			sgc = get_sortgroupref_clause_noerr(te->ressortgroupref, sub->groupClause);
			if (sgc == NULL)
				sgc = get_sortgroupref_clause_noerr(te->ressortgroupref, sub->distinctClause);
			if (sgc == NULL)
				return NIL;
			cols = lappend(cols, make_col(rti, te->resno, sgc->eqop, exprCollation((Node *) te->expr)));
		}
		return list_make1(make_key(cols, false, false));
	}
	if (inner->kind == DV_PLAN_SPJ && inner->spj_key != NIL && inner->branches == NIL)
	{
		foreach(lc, inner->spj_key)
		{
			TargetEntry *te = named_entry(sub->targetList, lfirst(lc));

			if (te == NULL)
				return NIL;
			cols = lappend(cols, make_col(rti, te->resno,
										  lookup_type_cache(exprType((Node *) te->expr), TYPECACHE_EQ_OPR)->eq_opr,
										  exprCollation((Node *) te->expr)));
		}
		return list_make1(make_key(cols, false, false));
	}
	return NIL;
}

/* a function in FROM that returns no set: one row */
static List *
func_keys(DvOp *op)
{
	ListCell   *lc;

	foreach(lc, op->func->functions)
	{
		if (expression_returns_set(lfirst_node(RangeTblFunction, lc)->funcexpr))
			return NIL;
	}
	return list_make1(make_key(NIL, false, false));
}

/* the range table indexes of level-0 Vars in node */
static bool
varnos_walker(Node *node, Bitmapset **varnos)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
	{
		if (((Var *) node)->varlevelsup == 0)
			*varnos = bms_add_member(*varnos, ((Var *) node)->varno);
		return false;
	}
	if (IsA(node, Query))
		return true;			/* (a sublink's query: not followed) */
	return expression_tree_walker(node, varnos_walker, varnos);
}

/* strip binary-compatible relabelings */
static Node *
strip_relabel(Node *node)
{
	while (node && IsA(node, RelabelType))
		node = (Node *) ((RelabelType *) node)->arg;
	return node;
}

/*
 * equated - does a conjunct of quals equate column c (of the rows of
 * side) with an expression of the rows of other, or a constant, by an
 * equality of c's family under c's collation?
 */
static bool
equated(List *quals, KeyCol *c, Bitmapset *other)
{
	ListCell   *lc;

	foreach(lc, quals)
	{
		Node	   *qual = lfirst(lc);
		OpExpr	   *op;

		if (is_andclause(qual))
		{
			if (equated(((BoolExpr *) qual)->args, c, other))
				return true;
			continue;
		}
		if (!IsA(qual, OpExpr) || list_length(((OpExpr *) qual)->args) != 2)
			continue;
		op = (OpExpr *) qual;
		for (int side = 0; side < 2; side++)
		{
			Var		   *v = (Var *) strip_relabel(side == 0 ? linitial(op->args) : lsecond(op->args));
			Node	   *e = side == 0 ? lsecond(op->args) : linitial(op->args);
			Bitmapset  *varnos = NULL;

			if (!IsA(v, Var) || v->varlevelsup != 0 || v->varno != c->rti || v->varattno != c->attno)
				continue;
			if (varnos_walker(e, &varnos) || !bms_is_subset(varnos, other) ||
				contain_volatile_functions(e) || expression_returns_set(e))
				continue;
			if (OidIsValid(c->collation) && op->inputcollid != c->collation)
				continue;
			if (same_equality(op->opno, c->eqop))
				return true;
		}
	}
	return false;
}

/* is a key of side (keys) equated column by column with other's rows by quals? */
static bool
unique_match(List *keys, List *quals, Bitmapset *other)
{
	ListCell   *lk;

	foreach(lk, keys)
	{
		Key		   *k = lfirst(lk);
		ListCell   *lc;
		bool		all = true;

		foreach(lc, k->cols)
			all = all && equated(quals, lfirst(lc), other);
		if (all)
			return true;
	}
	return false;
}

/*
 * add_pairs - the "Var = Var" conjuncts of quals (same type and
 * collation, the type's default equality): either column stands for the
 * other in the output.
 */
static void
add_pairs(List *quals, List **pairs)
{
	ListCell   *lc;

	foreach(lc, quals)
	{
		Node	   *qual = lfirst(lc);
		OpExpr	   *op = (OpExpr *) qual;
		Var		   *l;
		Var		   *r;

		if (is_andclause(qual))
		{
			add_pairs(((BoolExpr *) qual)->args, pairs);
			continue;
		}
		if (!IsA(qual, OpExpr) || list_length(op->args) != 2)
			continue;
		l = linitial(op->args);
		r = lsecond(op->args);
		if (IsA(l, Var) && IsA(r, Var) && l->varlevelsup == 0 && r->varlevelsup == 0 &&
			l->vartype == r->vartype && l->varcollid == r->varcollid &&
			op->inputcollid == l->varcollid &&
			op->opno == lookup_type_cache(l->vartype, TYPECACHE_EQ_OPR)->eq_opr)
			*pairs = lappend(*pairs, list_make2(l, r));
	}
}

/* kx + ky: a pair of rows (their columns come from distinct range table entries) */
static Key *
combine(Key *kx, Key *ky, bool never_null)
{
	return make_key(list_concat_copy(kx->cols, ky->cols), never_null, false);
}

static List *
join_keys(Query *q, DvOp *op, List **pairs)
{
	List	   *lkeys = op_keys(q, op->left, pairs);
	List	   *rkeys;
	List	   *keys = NIL;
	ListCell   *la;
	ListCell   *lb;
	bool		left_unique = false;	/* a row of left meets at most one of right */
	bool		right_unique = false;

	if (op->jointype == JOIN_SEMI || op->jointype == JOIN_ANTI)
		return lkeys;
	rkeys = op_keys(q, op->right, pairs);
	if (op->jointype == JOIN_INNER)
		add_pairs(op->quals, pairs);
	if (op->jointype == JOIN_INNER || op->jointype == JOIN_LEFT)
		left_unique = unique_match(rkeys, op->quals, op->left->rels);
	if (op->jointype == JOIN_INNER || op->jointype == JOIN_RIGHT)
		right_unique = unique_match(lkeys, op->quals, op->right->rels);

	foreach(la, lkeys)
	{
		Key		   *kl = lfirst(la);

		if (kl->nulls_distinct)
			continue;
		if (left_unique)
			keys = add_key(keys, make_key(kl->cols, kl->never_null, false));
		foreach(lb, rkeys)
		{
			Key		   *kr = lfirst(lb);

			if (kr->nulls_distinct)
				continue;
			switch (op->jointype)
			{
				case JOIN_INNER:
					keys = add_key(keys, combine(kl, kr, kl->never_null || kr->never_null));
					break;
				case JOIN_LEFT:
					keys = add_key(keys, combine(kl, kr, kl->never_null));
					break;
				case JOIN_RIGHT:
					keys = add_key(keys, combine(kl, kr, kr->never_null));
					break;
				case JOIN_FULL:
					if (kl->never_null || kr->never_null)
						keys = add_key(keys, combine(kl, kr, kl->never_null && kr->never_null));
					break;
				default:
					break;
			}
		}
	}
	if (right_unique)
	{
		foreach(lb, rkeys)
		{
			Key		   *kr = lfirst(lb);

			if (!kr->nulls_distinct)
				keys = add_key(keys, make_key(kr->cols, kr->never_null, false));
		}
	}
	return keys;
}

/*
 * op_keys - the keys of op's rows (module header); the column pairs that
 * its inner joins and filters equate are added to *pairs.
 */
static List *
op_keys(Query *q, DvOp *op, List **pairs)
{
	check_stack_depth();
	switch (op->kind)
	{
		case DV_OP_SCAN:
			return scan_keys(op->source);
		case DV_OP_FILTER:
			add_pairs(op->quals, pairs);
			return op_keys(q, op->left, pairs);
		case DV_OP_GROUP:
			return group_keys(q, op);
		case DV_OP_FUNC:
			return func_keys(op);
		case DV_OP_JOIN:
			return join_keys(q, op, pairs);
	}
	return NIL;
}

/*
 * add_equated - same (a list of Vars) with the columns that pairs (lists of
 * two Vars an equality joins) equate with s appended, each once: one step of
 * following the columns a join or WHERE equality makes equal to a column.
 */
static List *
add_equated(List *same, Var *s, List *pairs)
{
	ListCell   *lp;

	foreach(lp, pairs)
	{
		for (int side = 0; side < 2; side++)
		{
			Var		   *a = side == 0 ? linitial(lfirst(lp)) : lsecond(lfirst(lp));
			Var		   *b = side == 0 ? lsecond(lfirst(lp)) : linitial(lfirst(lp));
			ListCell   *lk;
			bool		known = false;

			if (a->varno != s->varno || a->varattno != s->varattno)
				continue;
			foreach(lk, same)
			{
				Var		   *k = lfirst(lk);

				known = known || (k->varno == b->varno && k->varattno == b->varattno);
			}
			if (!known)
				same = lappend(same, b);
		}
	}
	return same;
}

/*
 * output_name - the name of an output column (a plain reference, level 0)
 * that holds column (rti, attno) or one equated with it (pairs, followed
 * transitively); *var gets that output column.  NULL if none.
 */
static char *
output_name(Query *q, int rti, AttrNumber attno, List *pairs, Var **var)
{
	List	   *same = list_make1(makeVar(rti, attno, InvalidOid, -1, InvalidOid, 0));
	ListCell   *ls;

	/* the columns equal to it: a breadth-first walk of the pairs */
	foreach(ls, same)
	{
		Var		   *s = lfirst(ls);
		ListCell   *lt;

		foreach(lt, q->targetList)
		{
			TargetEntry *te = lfirst_node(TargetEntry, lt);
			Var		   *v = (Var *) te->expr;

			if (!te->resjunk && te->resname != NULL && IsA(v, Var) && v->varlevelsup == 0 &&
				v->varno == s->varno && v->varattno == s->varattno)
			{
				*var = v;
				return te->resname;
			}
		}
		same = add_equated(same, s, pairs);
	}
	return NULL;
}

/*
 * dv_btree_family - the default B-tree operator family of type, whose "="
 * dynview's statements use, or InvalidOid when it has none or when the
 * family compares nothing of this type: an array's or a row type's family
 * (array_ops, record_ops) compares only elements or fields that compare,
 * which the type cache's comparison function says (xid[], aclitem[], a row
 * with an xid: "=" and hashing, but a B-tree index on them fails to build or
 * to take a second entry).  Type cache lookups only.
 */
Oid
dv_btree_family(Oid type)
{
	TypeCacheEntry *tc = lookup_type_cache(type, TYPECACHE_BTREE_OPFAMILY | TYPECACHE_CMP_PROC);

	return OidIsValid(tc->cmp_proc) ? tc->btree_opf : InvalidOid;
}

/* can the unique index and a keyed FULL refresh's hash join take a column of this type? */
static bool
indexable(Oid type)
{
	TypeCacheEntry *tc = lookup_type_cache(type, TYPECACHE_EQ_OPR | TYPECACHE_HASH_PROC);

	return OidIsValid(tc->eq_opr) && OidIsValid(tc->hash_proc) && OidIsValid(dv_btree_family(type));
}

/*
 * dv_optree_unique_key - the derived key of an SPJ level (module header):
 * output column names (char *), in the key's order, or NIL.  Result in the
 * current memory context.
 */
List *
dv_optree_unique_key(Query *q, DvOp *tree)
{
	List	   *pairs = NIL;
	List	   *keys = op_keys(q, tree, &pairs);
	ListCell   *lk;

	foreach(lk, keys)
	{
		Key		   *k = lfirst(lk);
		List	   *names = NIL;
		ListCell   *lc;
		bool		ok = true;

		if (k->nulls_distinct)
			continue;
		if (k->cols == NIL)
		{
			/* at most one row: any column the index can take */
			foreach(lc, q->targetList)
			{
				TargetEntry *te = lfirst_node(TargetEntry, lc);

				if (!te->resjunk && te->resname && indexable(exprType((Node *) te->expr)))
					return list_make1(pstrdup(te->resname));
			}
			continue;
		}
		foreach(lc, k->cols)
		{
			KeyCol	   *c = lfirst(lc);
			Var		   *v = NULL;
			char	   *name = output_name(q, c->rti, c->attno, pairs, &v);

			if (name == NULL ||
				!same_equality(lookup_type_cache(v->vartype, TYPECACHE_EQ_OPR)->eq_opr, c->eqop) ||
				(OidIsValid(c->collation) && c->collation != v->varcollid))
			{
				ok = false;
				break;
			}
			if (!list_member(names, makeString(name)))
				names = lappend(names, makeString(name));
		}
		if (ok)
		{
			List	   *result = NIL;

			foreach(lc, names)
				result = lappend(result, strVal(lfirst(lc)));
			return result;
		}
	}
	return NIL;
}

/*
 * same_column - is column (rti, attno) the Var v, or equated with it by the
 * pairs (followed transitively, as output_name does)?
 */
static bool
same_column(int rti, AttrNumber attno, Var *v, List *pairs)
{
	List	   *same = list_make1(makeVar(rti, attno, InvalidOid, -1, InvalidOid, 0));
	ListCell   *ls;

	foreach(ls, same)
	{
		Var		   *s = lfirst(ls);

		if (s->varno == v->varno && s->varattno == v->varattno)
			return true;
		same = add_equated(same, s, pairs);
	}
	return false;
}

/*
 * dv_optree_input_key - is column v (a Var of the level, level 0) alone a
 * key of the level's input rows, the rows of tree (which its aggregates
 * read): no two of them hold non-null values of v that are equal by eqop
 * (an equality of a btree family) under collation?  Then count(DISTINCT v)
 * is count(v) (aggregate state, delta.c).  True for a one-column key on v
 * or a column equated with it, unique by eqop's family with the same
 * collation (a unique index over a nullable column counts too: NULLs are
 * counted by neither), and for the empty key (at most one row).  Catalog
 * lookups only; needs a transaction.
 */
bool
dv_optree_input_key(Query *q, DvOp *tree, Var *v, Oid eqop, Oid collation)
{
	List	   *pairs = NIL;
	List	   *keys;
	ListCell   *lk;

	if (v->varlevelsup != 0 || v->varattno <= 0)
		return false;
	keys = op_keys(q, tree, &pairs);
	foreach(lk, keys)
	{
		Key		   *k = lfirst(lk);
		KeyCol	   *c;

		if (k->cols == NIL)
			return true;
		if (list_length(k->cols) != 1)
			continue;
		c = linitial(k->cols);
		if (same_column(c->rti, c->attno, v, pairs) &&
			same_equality(eqop, c->eqop) &&
			(!OidIsValid(c->collation) || c->collation == collation))
			return true;
	}
	return false;
}

/*
 * The bytes a B-tree index entry of dynview's key columns may take, all
 * columns together: below the limit of an 8 kB page (BTMaxItemSize, about
 * 2.7 kB), with room for the entry's header and alignment.
 */
#define DV_KEY_INDEX_BYTES 2000

/*
 * dv_key_hashed - is a key column of type (typmod) among nkeys key columns
 * indexed by a hash of its value (dv_key_hash_sql) rather than by its value:
 * a variable-length type without a declared bound that keeps its share of
 * DV_KEY_INDEX_BYTES (text, unconstrained varchar, bytea, arrays, jsonb,
 * composites), which a B-tree entry would refuse once a value is long
 * ("index row requires N bytes"), when the type can be hashed.  Not numeric:
 * its entry passes 2 kB only beyond some 4,000 digits, and its index also
 * serves range lookups (a top-N table's order), which a hash cannot.  Not
 * under a nondeterministic collation (collation: the column's): equal values
 * hash alike only when the hash is taken under that very collation, and a
 * lookup's other side may carry another.  A domain counts as its base type.
 * Needs a transaction (catalog lookups).
 */
bool
dv_key_hashed(Oid type, int32 typmod, Oid collation, int nkeys)
{
	int32		max_bytes;

	type = getBaseTypeAndTypmod(type, &typmod);
	if (get_typlen(type) != -1 || type == NUMERICOID)
		return false;
	/* (equal values under a nondeterministic collation hash alike only under it) */
	if (OidIsValid(collation) && !get_collation_isdeterministic(collation))
		return false;
	max_bytes = type_maximum_size(type, typmod);
	if (max_bytes > 0 && max_bytes <= DV_KEY_INDEX_BYTES / Max(nkeys, 1))
		return false;
	return OidIsValid(lookup_type_cache(type, TYPECACHE_HASH_EXTENDED_PROC)->hash_extended_proc);
}

/*
 * dv_key_hash_sql - the SQL of the hash of key value expr that dynview's
 * index stores for a hashed key column (dv_key_hashed): never NULL (a NULL
 * key hashes as a row of one NULL), equal for values equal by the type's
 * default equality, so "hash(a) = hash(b) AND (a = b OR both NULL)" finds
 * a row through the index and keeps the NULLS NOT DISTINCT matching.
 * Palloc'd in the current context.
 */
char *
dv_key_hash_sql(const char *expr)
{
	return psprintf("pg_catalog.hash_record_extended(ROW(%s), 0)", expr);
}
