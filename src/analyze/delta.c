/*-------------------------------------------------------------------------
 *
 * delta.c
 *	  The incremental plan of a dynamic table's query: which operator class
 *	  it is, why not if it is not, and the SQL of its delta (design
 *	  section 6).
 *
 * A query level becomes a tree of operators (optree.c: scans, filters,
 * joins of every kind, subqueries and functions), after its simple
 * subqueries are pulled up, its WITH queries inlined, its EXISTS / IN
 * sublinks turned into semi- and anti-joins and its aggregate scalar
 * subqueries into joins with grouped subqueries.  What is above the tree
 * decides the plan's kind:
 *	SPJ		  a projection: the result's delta is the tree's delta projected
 *			  (also UNION ALL, GROUPING SETS: the UNION ALL of branches, each
 *			  an operator);
 *	GROUPED	  GROUP BY (any aggregates, HAVING), DISTINCT, DISTINCT ON, window
 *			  functions with PARTITION BY, and UNION / INTERSECT / EXCEPT, with
 *			  the keys in the output: the groups whose keys the input's delta
 *			  touches are recomputed from the sources, or their aggregates are
 *			  kept in place (aggstate.c);
 *	TOPN	  ORDER BY ... LIMIT: the input's changed rows against the table's
 *			  last row, added to the held rows when their first rows stay the
 *			  result;
 *	WINDOW	  window functions without PARTITION BY (the rows from the first
 *			  changed input row in the window's order recomputed) or over GROUP
 *			  BY (the partitions the changed groups touch), the input planned
 *			  as an operator.
 * A window with PARTITION BY in a subquery, or partitioned only by columns
 * not in the output (read as SELECT * FROM (query)), is a subquery operator
 * whose affected partitions are recomputed (DvPlan.window_node).
 * Everything else refreshes in full, with a reason code.
 *
 * The delta inputs are the ephemeral named relations dv_delta_<level>_<rti>
 * (a source's window of buffer rows, registered by incremental.c), so the
 * generated statements read sources at the refresh's snapshot and buffer
 * rows read at a newer one.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "catalog/pg_am.h"
#include "catalog/pg_attribute.h"
#include "catalog/pg_class.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_constraint.h"
#include "catalog/pg_inherits.h"
#include "access/relation.h"
#include "access/sysattr.h"
#include "access/table.h"
#include "access/transam.h"
#include "catalog/pg_type.h"
#include "utils/rel.h"
#include "utils/typcache.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_amop.h"
#include "catalog/pg_amproc.h"
#include "catalog/pg_range.h"
#include "access/genam.h"
#include "utils/catcache.h"
#include "access/htup_details.h"
#include "utils/syscache.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteManip.h"
#include "catalog/pg_collation.h"
#include "optimizer/tlist.h"
#include "parser/parse_agg.h"
#include "parser/parse_oper.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rls.h"
#include "utils/regproc.h"
#include "utils/ruleutils.h"

#include "dynview.h"
#include "analyze/delta.h"
#include "analyze/optree.h"
#include "analyze/setop.h"
#include "cdc/cdc.h"

static DvPlan *
full_plan(const char *code, const char *fmt,...) pg_attribute_printf(2, 3);

/* check_functions_in_node's checker: is func not immutable?  (*context gets it) */
static bool
mutable_function_checker(Oid func, void *context)
{
	if (func_volatile(func) == PROVOLATILE_IMMUTABLE)
		return false;
	*(Oid *) context = func;
	return true;
}

/* dv_find_function's walker context: the checker and its argument */
typedef struct FindFunction
{
	check_function_callback checker;
	void	   *context;
} FindFunction;

static bool
find_function_walker(Node *node, FindFunction *find)
{
	if (node == NULL)
		return false;
	if (check_functions_in_node(node, find->checker, find->context))
		return true;
	if (IsA(node, Query))
		return query_tree_walker((Query *) node, find_function_walker, find, 0);
	return expression_tree_walker(node, find_function_walker, find);
}

/*
 * dv_find_function - does node (an expression or a Query, its subqueries
 * and sublinks included) call a function for which checker (a
 * check_functions_in_node checker, given context) is true?  The checker
 * keeps what it found in context.
 */
bool
dv_find_function(Node *node, check_function_callback checker, void *context)
{
	FindFunction find = {checker, context};

	return find_function_walker(node, &find);
}

/*
 * volatile_plan - FULL, VOLATILE_FUNCTION, for a query that
 * contain_mutable_functions: the reason names the function (a cast such as
 * timestamptz to date is a stable function too, and the user may not see
 * one in the query), or the construct when it is not a function call
 * (CURRENT_DATE and its kin, nextval through a default).
 */
static DvPlan *
volatile_plan(Query *query)
{
	Oid			func = InvalidOid;

	if (dv_find_function((Node *) query, mutable_function_checker, &func) && OidIsValid(func))
		return full_plan("VOLATILE_FUNCTION",
						 "The query calls %s, a %s function: its result can change while the sources do not.",
						 format_procedure(func),
						 func_volatile(func) == PROVOLATILE_VOLATILE ? "volatile" : "stable");
	return full_plan("VOLATILE_FUNCTION",
					 "The query calls a volatile or stable function (such as random() or now()).");
}

/*
 * key_type_has_equality - can a refresh's SQL compare a group key's values
 * with "=": those of its type with each other and with those of the type
 * its change buffers store it as (dv_buffer_column_type: a domain's base
 * type; an array of a domain's: the array of that base type), as the
 * statements that find the changed groups do.  A domain over an enum or a
 * range has no "=" that resolves by name (enum's polymorphic "=" does not
 * take a domain), an array of a domain none with the array of its base
 * type, though PostgreSQL groups both through their operator classes.
 * Other types are taken as they are: their "=" is what the grouping used.
 */
static bool
key_type_has_equality(Oid type)
{
	int32		typmod = -1;
	Oid			stored = dv_buffer_column_type(type, &typmod);
	Oid			pairs[3][2];

	if (stored == type)
		return true;
	pairs[0][0] = type;
	pairs[0][1] = type;
	pairs[1][0] = type;
	pairs[1][1] = stored;
	pairs[2][0] = stored;
	pairs[2][1] = type;
	for (int i = 0; i < 3; i++)
	{
		Operator	op = oper(NULL, list_make2(makeString("pg_catalog"), makeString("=")),
							  pairs[i][0], pairs[i][1], true, -1);

		if (op == NULL)
			op = oper(NULL, list_make1(makeString("=")), pairs[i][0], pairs[i][1], true, -1);
		if (op == NULL)
			return false;
		ReleaseSysCache(op);
	}
	return true;
}

static DvPlan *
full_plan(const char *code, const char *fmt,...)
{
	DvPlan	   *plan = palloc0(sizeof(DvPlan));
	va_list		args;
	char		buf[1024];

	va_start(args, fmt);
	vsnprintf(buf, sizeof(buf), fmt, args);
	va_end(args);
	plan->kind = DV_PLAN_FULL;
	plan->reason_code = code;
	plan->reason = pstrdup(buf);
	return plan;
}

/* has a window clause without PARTITION BY? */
static bool
window_without_partition(Query *q)
{
	ListCell   *lc;

	foreach(lc, q->windowClause)
	{
		WindowClause *wc = lfirst_node(WindowClause, lc);

		if (wc->partitionClause == NIL)
			return true;
	}
	return false;
}

/*
 * window_partition_keys - the output columns that every window of the query
 * partitions by: recomputing the partitions whose key values the input's
 * delta touches is exact (a window function only sees its partition).
 */
static List *
window_partition_keys(Query *q, bool hidden_too)
{
	List	   *keys = NIL;
	ListCell   *lc;
	bool		first = true;

	foreach(lc, q->windowClause)
	{
		WindowClause *wc = lfirst_node(WindowClause, lc);
		List	   *these = NIL;
		ListCell   *lp;

		foreach(lp, wc->partitionClause)
		{
			TargetEntry *te = get_sortgroupclause_tle(lfirst_node(SortGroupClause, lp), q->targetList);

			if (!te->resjunk || hidden_too)
				these = lappend(these, te);
		}
		keys = first ? these : list_intersection(keys, these);
		first = false;
	}
	return keys;
}

/* check the join tree: only inner joins over plain relations */
static const char *
check_jointree(Query *q, Node *node)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, RangeTblRef))
	{
		RangeTblEntry *rte = rt_fetch(((RangeTblRef *) node)->rtindex, q->rtable);

		if (rte->rtekind == RTE_RELATION || rte->rtekind == RTE_FUNCTION)
			return NULL;			/* (a function: an operator, optree.c) */
		if (rte->rtekind == RTE_SUBQUERY)
			return "SUBQUERY_IN_FROM";
		return "UNSUPPORTED_FROM_ITEM";
	}
	if (IsA(node, FromExpr))
	{
		ListCell   *lc;

		foreach(lc, ((FromExpr *) node)->fromlist)
		{
			const char *r = check_jointree(q, lfirst(lc));

			if (r)
				return r;
		}
		return NULL;
	}
	if (IsA(node, JoinExpr))
	{
		JoinExpr   *j = (JoinExpr *) node;
		const char *r;

		r = check_jointree(q, j->larg);
		return r ? r : check_jointree(q, j->rarg);
	}
	return "UNSUPPORTED_FROM_ITEM";
}

static const char *
reason_text(const char *code)
{
	if (strcmp(code, "SUBQUERY_IN_FROM") == 0)
		return "A subquery, view or WITH query in FROM that cannot be an operator (LATERAL, a security barrier view, a view owned by another role, a recursive or MATERIALIZED WITH query) is not incremental yet.";
	return "A FROM item other than a table is not incremental.";
}

/*
 * strip_grouping - q without what makes rows of groups: GROUP BY, HAVING,
 * DISTINCT, windows, aggregates; ORDER BY (it does not matter for a table)
 */
static void
strip_grouping(Query *q)
{
	q->groupClause = NIL;
	q->groupDistinct = false;
	q->havingQual = NULL;
	q->distinctClause = NIL;
	q->hasDistinctOn = false;
	q->windowClause = NIL;
	q->hasWindowFuncs = false;
	q->sortClause = NIL;
	q->hasAggs = false;
}

/* collect the distinct Aggrefs of an expression tree */
static bool
collect_aggrefs(Node *node, List **aggrefs)
{
	if (node == NULL)
		return false;
	if (IsA(node, Aggref))
	{
		*aggrefs = list_append_unique(*aggrefs, node);
		return false;
	}
	return expression_tree_walker(node, collect_aggrefs, (void *) aggrefs);
}

/*
 * SQL of a type, schema-qualified, with its typmod.  The typmod always counts
 * as given: without it format_type spells bpchar of no length "character",
 * which CREATE TABLE reads as character(1) (with it, "bpchar").
 */
static char *
type_sql(Oid type, int32 typmod)
{
	return format_type_extended(type, typmod, FORMAT_TYPE_TYPEMOD_GIVEN | FORMAT_TYPE_FORCE_QUALIFY);
}

/*
 * dv_equality_is_identity - are two values of this type (with this typmod
 * and collation) that its default equality calls equal always the same
 * value, printing alike?  Then a row kept per equal value (a group's key, a
 * consolidated change) is the row the query shows.  Decided from a set of
 * built-in types known to compare bit for bit, so that a type nobody
 * checked (an extension's, interval, jsonb, float: 0 and -0, numeric
 * without a declared scale: 1.0 and 1.00, bpchar without a length: 'a' and
 * 'a ', a nondeterministic collation) counts as not identity.  Domains are
 * judged by their base type.  Needs a transaction (catalog lookups).
 */
bool
dv_equality_is_identity(Oid type, int32 typmod, Oid collation)
{
	Oid			base = getBaseTypeAndTypmod(type, &typmod);

	if (OidIsValid(collation) && !get_collation_isdeterministic(collation))
		return false;
	switch (base)
	{
		case BOOLOID:
		case INT2OID:
		case INT4OID:
		case INT8OID:
		case OIDOID:
		case CHAROID:
		case NAMEOID:
		case TEXTOID:
		case VARCHAROID:
		case BYTEAOID:
		case DATEOID:
		case TIMEOID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
		case UUIDOID:
		case MONEYOID:
		case BITOID:
		case VARBITOID:
		case PG_LSNOID:
		case XID8OID:
			return true;
		case BPCHAROID:
			/* char(n) pads every value to n characters */
			return typmod >= 0;
		case NUMERICOID:
			/* every value has the declared scale (and there is no -0) */
			return typmod >= 0;
		default:
			break;
	}
	/* (enum values are compared by their OID) */
	if (type_is_enum(base))
		return true;

	/*
	 * Arrays compare dimensions, lower bounds and elements, a NULL element
	 * equal only to NULL: identity when their elements' equality is.
	 */
	if (OidIsValid(get_element_type(base)) && !type_is_rowtype(get_element_type(base)))
		return dv_equality_is_identity(get_element_type(base), -1, collation);
	return false;
}

/*
 * dv_key_equality_is_identity - dv_equality_is_identity, and also true for
 * a composite type (a table's row type, CREATE TYPE ... AS, a domain over
 * one; not an anonymous record, whose columns the type does not tell)
 * whose live columns' equality all is identity, with their typmods and
 * collations, at any depth: record_eq compares column by column with each
 * column's default equality under the column's collation and holds two
 * NULL columns equal, so two values it calls equal hold the same columns
 * with NULLs in the same places, and print alike (a NULL record and a
 * record of NULLs are not equal: they are two keys).  Asked of the keys a
 * subquery operator keeps one row of (identity_group_keys, DISTINCT ON,
 * spelling.c dv_group_spelling_reaches), whose rows are recomputed by
 * group; not (yet) of aggregate states kept in place or min/max values,
 * which dv_equality_is_identity decides.  Needs a transaction.
 */
bool
dv_key_equality_is_identity(Oid type, int32 typmod, Oid collation)
{
	Oid			base;
	TupleDesc	desc;
	bool		identity = true;

	if (dv_equality_is_identity(type, typmod, collation))
		return true;
	base = getBaseType(type);
	if (base == RECORDOID || get_typtype(base) != TYPTYPE_COMPOSITE)
		return false;
	check_stack_depth();
	desc = lookup_rowtype_tupdesc(base, -1);
	for (int i = 0; identity && i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		identity = att->attisdropped ||
			dv_key_equality_is_identity(att->atttypid, att->atttypmod, att->attcollation);
	}
	ReleaseTupleDesc(desc);
	return identity;
}

/*
 * dv_equality_operator - "OPERATOR(schema.=)" of the type's default equality
 * (its default btree or hash operator class), for generated SQL: written
 * out by OID so that it is found whatever the search_path (the refresh's is
 * pg_catalog only; a user-defined type's "=" may live elsewhere).  NULL if
 * the type has none.  Result palloc'd in the current memory context.
 */
char *
dv_equality_operator(Oid type)
{
	Oid			opr = lookup_type_cache(type, TYPECACHE_EQ_OPR)->eq_opr;

	return OidIsValid(opr) ? dv_operator_sql(opr) : NULL;
}

/*
 * dv_null_test_sql - the SQL condition that the value x (SQL text) of type
 * type is the null value itself: "(x) IS NULL", except for a composite type,
 * where IS NULL is true also for a row whose fields are all NULL, a value
 * that the record equality matches (two NULL fields compare equal), GROUP BY
 * keeps apart from the null value, and a strict operator takes: there
 * "pg_catalog.num_nulls(x) = 1".  For generated SQL that splits values into
 * the null value and the others compared by "=" (the keys of affected
 * groups, NOT IN's NULL rules).  Result palloc'd.
 */
char *
dv_null_test_sql(const char *x, Oid type)
{
	if (type_is_rowtype(type))
		return psprintf("pg_catalog.num_nulls(%s) = 1", x);
	return psprintf("(%s) IS NULL", x);
}

/* "OPERATOR(schema.name)" of an operator, found whatever the search_path */
char *
dv_operator_sql(Oid opno)
{
	HeapTuple	tup = SearchSysCache1(OPEROID, ObjectIdGetDatum(opno));
	char	   *sql;

	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for operator %u", opno);
	sql = psprintf("OPERATOR(%s.%s)",
				   quote_identifier(get_namespace_name(((Form_pg_operator) GETSTRUCT(tup))->oprnamespace)),
				   NameStr(((Form_pg_operator) GETSTRUCT(tup))->oprname));
	ReleaseSysCache(tup);
	return sql;
}

static char *
collate_sql(Oid collation)
{
	return OidIsValid(collation) ? psprintf(" COLLATE %s", generate_collation_name(collation)) : "";
}

/*
 * classify_aggref - the in-place rule of an aggregate, or NULL if its groups
 * must be recomputed: count(*), count(x), sum/avg of exact numbers (integers
 * and numeric; float sums depend on the order of additions), min/max of a
 * type with a btree ordering, count(DISTINCT x) of a type with btree
 * equality, bool_and/every/bool_or, and the variance family (var_samp,
 * var_pop, stddev_samp, stddev_pop and their aliases) of integers and
 * numeric.  A numeric argument whose values may have different scales is
 * scale_tracked: the display scale of its sum is the largest scale of the
 * live inputs, which a state that only adds would keep after those rows are
 * gone, so aggstate.c counts the live inputs per scale.  An argument of one
 * scale (dv_numeric_fixed_scale over q: a declared scale, or sums,
 * differences and products of such and constants, as TPC-H's
 * l_extendedprice * (1 - l_discount)) needs no counts: its sum has that
 * scale while it has an input.  A FILTER becomes
 * part of the input (agg_state_input); count(*) FILTER is a count(x).  No
 * ORDER BY, ordered-set or other aggregates.
 */
static DvAgg *
classify_aggref(Aggref *a, Query *q)
{
	DvAgg	   *agg;
	char	   *name;
	Node	   *arg = NULL;
	Oid			argtype = InvalidOid;
	TypeCacheEntry *tc = NULL;

	if (a->agglevelsup != 0 || a->aggkind != AGGKIND_NORMAL ||
		a->aggvariadic || a->aggorder != NIL ||
		get_func_namespace(a->aggfnoid) != PG_CATALOG_NAMESPACE)
		return NULL;
	name = get_func_name(a->aggfnoid);
	agg = palloc0(sizeof(DvAgg));
	agg->aggref = (Node *) a;
	agg->value_type = type_sql(a->aggtype, -1);
	agg->arg_collate = "";
	if (a->aggstar)
	{
		if (strcmp(name, "count") != 0 || a->aggdistinct != NIL)
			return NULL;
		agg->kind = DV_AGG_COUNT_STAR;
		if (a->aggfilter != NULL)
		{
			/* counts the rows whose input "CASE WHEN f THEN true END" is not NULL */
			agg->kind = DV_AGG_COUNT;
			agg->arg_type = "boolean";
			agg->arg_typid = BOOLOID;
		}
		return agg;
	}
	if (list_length(a->args) != 1)
		return NULL;
	arg = (Node *) linitial_node(TargetEntry, a->args)->expr;
	argtype = exprType(arg);
	agg->arg_type = type_sql(argtype, -1);
	agg->arg_typid = argtype;
	agg->arg_collate = collate_sql(a->inputcollid);
	tc = lookup_type_cache(argtype, TYPECACHE_EQ_OPR | TYPECACHE_BTREE_OPFAMILY);
	if (a->aggdistinct != NIL)
	{
		/* a row value counts even with NULL fields, which "v IS NOT NULL" would drop */
		if (strcmp(name, "count") != 0 || !OidIsValid(tc->eq_opr) || !OidIsValid(tc->btree_opf) ||
			type_is_rowtype(argtype))
			return NULL;
		agg->kind = DV_AGG_COUNT_DISTINCT;
	}
	else if (strcmp(name, "count") == 0)
	{
		/* "x IS NOT NULL" would test a row's fields */
		if (type_is_rowtype(argtype))
			return NULL;
		agg->kind = DV_AGG_COUNT;
		agg->arg_type = "boolean";
		agg->arg_typid = BOOLOID;
		agg->arg_collate = "";
	}
	else if ((strcmp(name, "sum") == 0 || strcmp(name, "avg") == 0) &&
			 (argtype == INT2OID || argtype == INT4OID || argtype == INT8OID || argtype == NUMERICOID))
	{
		agg->kind = strcmp(name, "sum") == 0 ? DV_AGG_SUM : DV_AGG_AVG;
		agg->scale_tracked = argtype == NUMERICOID && dv_numeric_fixed_scale(arg, q) < 0;
	}
	else if ((strcmp(name, "var_samp") == 0 || strcmp(name, "variance") == 0 ||
			  strcmp(name, "var_pop") == 0 || strcmp(name, "stddev_samp") == 0 ||
			  strcmp(name, "stddev") == 0 || strcmp(name, "stddev_pop") == 0) &&
			 (argtype == INT2OID || argtype == INT4OID || argtype == INT8OID || argtype == NUMERICOID))
	{
		/* (float inputs are summed in floating point: not kept) */
		if (strcmp(name, "var_pop") == 0)
			agg->kind = DV_AGG_VAR_POP;
		else if (strcmp(name, "stddev_pop") == 0)
			agg->kind = DV_AGG_STDDEV_POP;
		else if (strncmp(name, "var", 3) == 0)
			agg->kind = DV_AGG_VAR_SAMP;
		else
			agg->kind = DV_AGG_STDDEV_SAMP;
		/* the sums' scales decide the result's digits, declared or not */
		agg->scale_tracked = argtype == NUMERICOID;
	}
	else if ((strcmp(name, "bool_and") == 0 || strcmp(name, "every") == 0 ||
			  strcmp(name, "bool_or") == 0) && argtype == BOOLOID)
		agg->kind = strcmp(name, "bool_or") == 0 ? DV_AGG_BOOL_OR : DV_AGG_BOOL_AND;
	else if ((strcmp(name, "min") == 0 || strcmp(name, "max") == 0) &&
			 OidIsValid(tc->btree_opf) && OidIsValid(tc->eq_opr) && a->aggtype == argtype)
		agg->kind = strcmp(name, "min") == 0 ? DV_AGG_MIN : DV_AGG_MAX;
	else
		return NULL;
	return agg;
}

/* maps group key expressions and aggregates to the state table's columns */
typedef struct StateMap
{
	List	   *group_exprs;	/* Expr of each group key, in order */
	List	   *aggs;			/* DvAgg * */
	bool		failed;			/* an input column outside keys and aggregates */
} StateMap;

/* state columns: g1..gn, dv_count, dv_recompute, a1..am, then the others */
static Node *
to_state_mutator(Node *node, StateMap *m)
{
	ListCell   *lc;

	if (node == NULL)
		return NULL;
	foreach(lc, m->group_exprs)
	{
		if (equal(node, lfirst(lc)))
			return (Node *) makeVar(1, foreach_current_index(lc) + 1, exprType(node),
									exprTypmod(node), exprCollation(node), 0);
	}
	if (IsA(node, Aggref))
	{
		foreach(lc, m->aggs)
		{
			DvAgg	   *agg = lfirst(lc);

			if (equal(node, agg->aggref))
				return (Node *) makeVar(1, list_length(m->group_exprs) + 3 + foreach_current_index(lc),
										((Aggref *) node)->aggtype, -1, ((Aggref *) node)->aggcollid, 0);
		}
		m->failed = true;
		return node;
	}
	if (IsA(node, Var))
	{
		m->failed = true;
		return node;
	}
	return expression_tree_mutator(node, to_state_mutator, (void *) m);
}

/* the query level over the state table (rtable not yet set), or NULL */
static Query *
state_query(Query *query, List *keys, List *aggs)
{
	Query	   *p = copyObject(query);
	StateMap	m;
	List	   *tl = NIL;
	ListCell   *lc;

	m.group_exprs = NIL;
	m.aggs = aggs;
	m.failed = false;
	foreach(lc, keys)
		m.group_exprs = lappend(m.group_exprs, ((TargetEntry *) lfirst(lc))->expr);
	foreach(lc, p->targetList)
	{
		TargetEntry *te = lfirst_node(TargetEntry, lc);

		if (te->resjunk)
			continue;
		te->expr = (Expr *) to_state_mutator((Node *) te->expr, &m);
		te->ressortgroupref = 0;
		te->resorigtbl = InvalidOid;
		te->resorigcol = 0;
		tl = lappend(tl, te);
	}
	if (m.failed)
		return NULL;
	p->targetList = tl;
	strip_grouping(p);
	return p;
}

/*
 * agg_state_eligible - can the aggregates of this (GROUP BY, DISTINCT or
 * global) query level be kept in a state table?  (DISTINCT and a GROUP BY
 * without aggregates keep a row count per group: the multiplicities of
 * design section 6.)  Fills plan's aggregate fields when
 * plan is given.  No HAVING, DISTINCT, grouping sets or windows; every
 * aggregate has an in-place rule; every output is an expression of group
 * keys and aggregates.
 */
/*
 * plain_equality - is equality of e's values what a count(DISTINCT) state
 * can keep: a built-in type (or a domain over one) other than float, and a
 * deterministic collation?  Values equal under a nondeterministic
 * collation, or under an extension type's own operators (citext), may
 * arrive as several rows of one group in one delta.
 */
static bool
plain_equality(Node *e)
{
	Oid			collation = exprCollation(e);

	if (getBaseType(exprType(e)) >= FirstNormalObjectId)
		return false;
	if (getBaseType(exprType(e)) == FLOAT4OID || getBaseType(exprType(e)) == FLOAT8OID)
		return false;
	return !OidIsValid(collation) || get_collation_isdeterministic(collation);
}

/*
 * integral_extract - is e extract(field FROM date or timestamp) of a field
 * whose value is a whole number?  Such a numeric always has scale 0 (or is
 * +-Infinity, for an infinite date), so its equal values print alike,
 * although numeric's in general do not (1.0 and 1.00).  TPC-H groups by
 * extract(year FROM ...).  (Other fields, like second and epoch, have
 * fixed scales too, but are left out: no need to rely on that.)
 */
static bool
integral_extract(Node *e)
{
	static const char *const fields[] = {
		"year", "month", "day", "hour", "minute", "quarter", "week", "dow", "isodow",
		"doy", "decade", "century", "millennium", "isoyear"
	};
	FuncExpr   *f;
	Const	   *field;
	char	   *name;

	if (!IsA(e, FuncExpr))
		return false;
	f = (FuncExpr *) e;
	if ((f->funcid != F_EXTRACT_TEXT_DATE && f->funcid != F_EXTRACT_TEXT_TIMESTAMP) ||
		list_length(f->args) != 2 || !IsA(linitial(f->args), Const))
		return false;
	field = linitial_node(Const, f->args);
	if (field->constisnull || field->consttype != TEXTOID)
		return false;
	name = TextDatumGetCString(field->constvalue);
	for (int i = 0; i < lengthof(fields); i++)
	{
		if (pg_strcasecmp(name, fields[i]) == 0)
			return true;
	}
	return false;
}

/* is e's equality identity (dv_equality_is_identity), with e's typmod and collation? */
static bool
identity_equality(Node *e)
{
	return dv_equality_is_identity(exprType(e), exprTypmod(e), exprCollation(e)) ||
		integral_extract(e);
}

/* as identity_equality, for a subquery operator's keys (dv_key_equality_is_identity) */
static bool
identity_key(Node *e)
{
	return dv_key_equality_is_identity(exprType(e), exprTypmod(e), exprCollation(e)) ||
		integral_extract(e);
}

static bool
agg_state_eligible(Query *query, List *keys, DvPlan *plan)
{
	List	   *aggrefs = NIL;
	List	   *aggs = NIL;
	ListCell   *lc;
	Query	   *sq;

	/* DISTINCT alone is a GROUP BY of every output column, with no aggregate */
#define NOT_ELIGIBLE(...) \
	do { \
		if (plan) \
			plan->state_reason = psprintf(__VA_ARGS__); \
		return false; \
	} while (0)
	if (query->distinctClause && (query->groupClause || query->hasAggs))
		NOT_ELIGIBLE("DISTINCT together with GROUP BY or aggregates");
	if (query->havingQual)
		NOT_ELIGIBLE("HAVING");
	if (query->groupingSets || query->groupDistinct)
		NOT_ELIGIBLE("GROUPING SETS");
	if (query->hasWindowFuncs || query->hasSubLinks)
		NOT_ELIGIBLE("window functions or subqueries");
	foreach(lc, query->targetList)
	{
		TargetEntry *te = lfirst_node(TargetEntry, lc);

		if (!te->resjunk)
			collect_aggrefs((Node *) te->expr, &aggrefs);
	}
	foreach(lc, aggrefs)
	{
		Aggref	   *a = lfirst_node(Aggref, lc);
		DvAgg	   *agg = classify_aggref(a, query);

		if (agg == NULL)
			NOT_ELIGIBLE("%s(%s%s)%s has no in-place rule (count, sum and avg of integers or numeric, min, max, count(DISTINCT), bool_and, bool_or, every, and variance and stddev of integers or numeric have, with or without FILTER)",
						 get_func_name(a->aggfnoid), a->aggdistinct ? "DISTINCT " : "",
						 a->args ? format_type_be(exprType((Node *) linitial_node(TargetEntry, a->args)->expr)) : "*",
						 a->aggorder ? " with ORDER BY" : "");
		/*
		 * min and max show one of the values: kept in place only when equal
		 * values are identical.  count(DISTINCT) counts values by equality,
		 * which its multiplicities keep whatever the spelling, but needs
		 * plain operators and no arrays ("v = ANY (ARRAY(...))" would take
		 * an array apart).  count, sum, avg and the boolean aggregates show
		 * no input value (a numeric sum shows the inputs' largest scale,
		 * which aggstate.c tracks).
		 */
		if (((agg->kind == DV_AGG_MIN || agg->kind == DV_AGG_MAX) &&
			 !identity_equality((Node *) linitial_node(TargetEntry, a->args)->expr)) ||
			(agg->kind == DV_AGG_COUNT_DISTINCT &&
			 (!plain_equality((Node *) linitial_node(TargetEntry, a->args)->expr) ||
			  type_is_array(exprType((Node *) linitial_node(TargetEntry, a->args)->expr)))))
			NOT_ELIGIBLE("%s(%s%s): equal values of this type are not always identical (float: 0 and -0, numeric without a declared scale: 1.0 and 1.00, interval, jsonb, a nondeterministic collation, a type of an extension) or it is an array",
						 get_func_name(a->aggfnoid), a->aggdistinct ? "DISTINCT " : "",
						 format_type_be(exprType((Node *) linitial_node(TargetEntry, a->args)->expr)));
		aggs = lappend(aggs, agg);
	}
	foreach(lc, keys)
	{
		if (!identity_equality((Node *) ((TargetEntry *) lfirst(lc))->expr))
			NOT_ELIGIBLE("group key \"%s\": equal values of its type are not always identical (float: 0 and -0; numeric without a declared scale: 1.0 and 1.00; interval, jsonb, bpchar without a length, a nondeterministic collation, a type of an extension), and a kept row would keep the first spelling",
						 ((TargetEntry *) lfirst(lc))->resname);
	}
	sq = state_query(query, keys, aggs);
	if (sq == NULL)
		NOT_ELIGIBLE("an output column is neither a group key nor computed from group keys and aggregates");
#undef NOT_ELIGIBLE
	if (plan)
	{
		plan->aggs = aggs;
		plan->state_query = sq;
		foreach(lc, keys)
		{
			Node	   *e = (Node *) ((TargetEntry *) lfirst(lc))->expr;
			TypeCacheEntry *tc = lookup_type_cache(exprType(e), TYPECACHE_BTREE_OPFAMILY);

			plan->key_types = lappend(plan->key_types,
									  psprintf("%s%s", type_sql(exprType(e), exprTypmod(e)),
											   collate_sql(exprCollation(e))));
			plan->key_btree = lappend_int(plan->key_btree, OidIsValid(tc->btree_opf));
		}
	}
	return true;
}

/*
 * count_distinct_over_keys - count(DISTINCT x) where x alone is a key of the
 * level's input (dv_optree_input_key, by the equality and collation DISTINCT
 * compares with) counts every non-null x once: it is count(x), kept as a
 * non-null count in the state row instead of a table of multiplicities.
 * Only a plain column (the key is of columns); the plan's tree is built.
 */
static void
count_distinct_over_keys(DvPlan *plan, Query *q)
{
	ListCell   *lc;

	foreach(lc, plan->aggs)
	{
		DvAgg	   *agg = lfirst(lc);
		Aggref	   *a = (Aggref *) agg->aggref;
		Node	   *arg;

		if (agg->kind != DV_AGG_COUNT_DISTINCT || list_length(a->args) != 1 ||
			list_length(a->aggdistinct) != 1)
			continue;
		arg = (Node *) linitial_node(TargetEntry, a->args)->expr;
		if (!IsA(arg, Var) ||
			!dv_optree_input_key(q, plan->tree, (Var *) arg,
								 linitial_node(SortGroupClause, a->aggdistinct)->eqop,
								 a->inputcollid))
			continue;
		agg->kind = DV_AGG_COUNT;
		agg->arg_type = "boolean";
		agg->arg_typid = BOOLOID;
		agg->arg_collate = "";
		agg->distinct_by_key = true;
	}
}

/*
 * agg_state_input - the input's target list for aggregate state: the
 * group keys g1..gn, then the input x<j> of each aggregate j.
 */
/*
 * notnull_column - is e a column of a table of q declared NOT NULL?  (The
 * caller has checked that no outer join of q can null it.)
 */
static bool
notnull_column(Query *q, Node *e)
{
	Var		   *v = (Var *) e;
	RangeTblEntry *rte;
	HeapTuple	tp;
	bool		result = false;

	if (!IsA(e, Var) || v->varlevelsup != 0 || v->varattno <= 0 ||
		v->varno < 1 || v->varno > list_length(q->rtable))
		return false;
	rte = rt_fetch(v->varno, q->rtable);
	if (rte->rtekind != RTE_RELATION)
		return false;
	tp = SearchSysCache2(ATTNUM, ObjectIdGetDatum(rte->relid), Int16GetDatum(v->varattno));
	if (HeapTupleIsValid(tp))
	{
		result = ((Form_pg_attribute) GETSTRUCT(tp))->attnotnull;
		ReleaseSysCache(tp);
	}
	return result;
}

static void
agg_state_input(DvPlan *plan, Query *q, List *keys)
{
	List	   *tl = NIL;
	ListCell   *lc;
	ListCell   *lc2;
	int			resno = 1;
	bool		outer = false;

	/* an outer join nulls the columns of its nullable side: no column is then taken as NOT NULL */
	foreach(lc, q->rtable)
	{
		RangeTblEntry *rte = lfirst(lc);

		if (rte->rtekind == RTE_JOIN && rte->jointype != JOIN_INNER)
			outer = true;
	}

	foreach(lc, keys)
	{
		TargetEntry *te = copyObject((TargetEntry *) lfirst(lc));

		te->resno = resno;
		te->resname = psprintf("g%d", resno++);
		te->ressortgroupref = 0;
		te->resjunk = false;
		plan->key_columns = lappend(plan->key_columns, pstrdup(((TargetEntry *) lfirst(lc))->resname));
		tl = lappend(tl, te);
	}
	foreach(lc, plan->aggs)
	{
		DvAgg	   *agg = lfirst(lc);
		Aggref	   *a = (Aggref *) agg->aggref;
		Expr	   *arg;

		if (agg->kind == DV_AGG_COUNT_STAR)
			continue;
		if (a->aggstar)
			arg = (Expr *) makeBoolConst(true, false);
		else
			arg = copyObject(linitial_node(TargetEntry, a->args)->expr);
		if (a->aggfilter != NULL)
		{
			/*
			 * agg(x) FILTER (WHERE f) is agg(CASE WHEN f THEN x END): every
			 * aggregate kept in place ignores NULL inputs.  An x of a domain
			 * is taken as its base type, as PostgreSQL's own CASE takes it:
			 * the NULL of the domain itself would be checked against the
			 * domain's NOT NULL (count(x) keeps its argument's type).
			 */
			CaseExpr   *c = makeNode(CaseExpr);
			CaseWhen   *w = makeNode(CaseWhen);
			Oid			argtype = exprType((Node *) arg);

			if (get_typtype(argtype) == TYPTYPE_DOMAIN)
			{
				int32		basemod = -1;
				Oid			base = getBaseTypeAndTypmod(argtype, &basemod);

				arg = (Expr *) makeRelabelType(arg, base, basemod, exprCollation((Node *) arg),
											   COERCE_IMPLICIT_CAST);
			}

			w->expr = copyObject(a->aggfilter);
			w->result = arg;
			w->location = -1;
			c->casetype = exprType((Node *) arg);
			c->casecollid = exprCollation((Node *) arg);
			c->args = list_make1(w);
			c->defresult = (Expr *) makeNullConst(exprType((Node *) arg), exprTypmod((Node *) arg),
												  exprCollation((Node *) arg));
			c->location = -1;
			arg = (Expr *) c;
		}
		if (agg->kind == DV_AGG_COUNT)
		{
			NullTest   *nt = makeNode(NullTest);

			nt->arg = arg;
			nt->nulltesttype = IS_NOT_NULL;
			nt->argisrow = false;
			nt->location = -1;
			arg = (Expr *) nt;
		}
		agg->arg_notnull = !outer && notnull_column(q, (Node *) arg);
		agg->arg_computed = !IsA(arg, Var);
		agg->count_shares_sum = (agg->kind == DV_AGG_SUM || agg->kind == DV_AGG_AVG) &&
			(agg->arg_typid == NUMERICOID || agg->arg_typid == INT8OID) && !agg->arg_notnull;
		agg->fill_arg = foreach_current_index(lc) + 1;
		foreach(lc2, tl)
		{
			TargetEntry *te = lfirst(lc2);

			if (strncmp(te->resname, "x", 1) == 0 && equal(te->expr, arg))
			{
				agg->fill_arg = atoi(te->resname + 1);
				break;
			}
		}
		tl = lappend(tl, makeTargetEntry(arg, resno++,
										 psprintf("x%d", foreach_current_index(lc) + 1), false));
	}
	q->targetList = tl;
	strip_grouping(q);
}

/*
 * Subqueries, views and WITH queries in FROM that are themselves simple
 * (scans, filters, projections, inner joins) are pulled up into the query
 * that reads them, as PostgreSQL's planner does, so that the one-level delta
 * rules apply to the result.
 */

/*
 * dv_plain_select - is s one plain SELECT level of scans, filters and joins:
 * no grouping, DISTINCT (unless for a sublink, where it changes nothing),
 * windows, LIMIT, set operations, set-returning functions, sublinks, WITH
 * or locking, and every table read with the current user's rights?  A view
 * reads its tables with its owner's rights, the generated SQL with the
 * caller's: only views of the current user (the dynamic table's owner,
 * when refreshing) qualify.  For a sublink (EXISTS, IN: optree.c) its FROM
 * may hold joins of every kind and subqueries (operators of their own);
 * pulled up, only inner joins.
 */
bool
dv_plain_select(Query *s, bool for_sublink)
{
	ListCell   *lc;

	if (s->commandType != CMD_SELECT || s->setOperations || s->hasAggs || s->groupClause ||
		s->groupingSets || s->havingQual || s->hasWindowFuncs || (s->distinctClause && !for_sublink) ||
		s->limitCount || s->limitOffset || s->hasTargetSRFs || s->hasSubLinks || s->cteList ||
		s->rowMarks || s->hasRecursive || s->hasModifyingCTE || s->hasForUpdate ||
		s->jointree == NULL || s->jointree->fromlist == NIL)
		return false;
	foreach(lc, s->rtable)
	{
		RangeTblEntry *r = lfirst_node(RangeTblEntry, lc);

		if (r->rtekind != RTE_RELATION && r->rtekind != RTE_JOIN && r->rtekind != RTE_RESULT &&
			!(for_sublink && r->rtekind == RTE_SUBQUERY && !r->lateral))
			return false;
		if (r->rtekind == RTE_RELATION && OidIsValid(r->checkAsUser) && r->checkAsUser != GetUserId())
			return false;
		if (!for_sublink && r->rtekind == RTE_JOIN && r->jointype != JOIN_INNER)
			return false;
	}
	return true;
}

/* is this FROM item a simple query that can be pulled up? */
static bool
pullable_subquery(RangeTblEntry *rte)
{
	return rte->rtekind == RTE_SUBQUERY && !rte->lateral && !rte->security_barrier &&
		rte->subquery != NULL && dv_plain_select(rte->subquery, false);
}

/* a range table entry that nothing references any more */
static void
retire_rte(RangeTblEntry *rte)
{
	rte->rtekind = RTE_RESULT;
	rte->subquery = NULL;
	rte->joinaliasvars = NIL;
	rte->joinleftcols = rte->joinrightcols = NIL;
	rte->joinmergedcols = 0;
	rte->eref = makeAlias(rte->eref->aliasname, NIL);
}

/*
 * flatten_inner_joins - the leaves (RangeTblRefs) of a tree of inner joins
 * and the AND of their conditions: "a JOIN b ON x" read as "a, b WHERE x".
 * The join entries are retired (callers checked that nothing reads a join's
 * own columns).  False if the tree has another kind of join.
 */
static bool
flatten_inner_joins(Query *q, Node *node, List **leaves, Node **quals)
{
	if (IsA(node, RangeTblRef))
	{
		*leaves = lappend(*leaves, node);
		return true;
	}
	if (IsA(node, FromExpr))
	{
		ListCell   *lc;

		foreach(lc, ((FromExpr *) node)->fromlist)
		{
			if (!flatten_inner_joins(q, lfirst(lc), leaves, quals))
				return false;
		}
		if (((FromExpr *) node)->quals)
			*quals = make_and_qual(*quals, ((FromExpr *) node)->quals);
		return true;
	}
	if (IsA(node, JoinExpr))
	{
		JoinExpr   *j = (JoinExpr *) node;

		if (j->jointype != JOIN_INNER || j->alias || j->join_using_alias)
			return false;
		if (!flatten_inner_joins(q, j->larg, leaves, quals) ||
			!flatten_inner_joins(q, j->rarg, leaves, quals))
			return false;
		if (j->quals)
			*quals = make_and_qual(*quals, j->quals);
		retire_rte(rt_fetch(j->rtindex, q->rtable));
		return true;
	}
	return false;
}

/* pull up the simple subquery at rtindex into q, whose join tree is flat (in place) */
static void
pull_up_subquery(Query *q, int rtindex)
{
	RangeTblEntry *rte = rt_fetch(rtindex, q->rtable);
	Query	   *s = copyObject(rte->subquery);
	int			offset = list_length(q->rtable);
	List	   *leaves = NIL;
	List	   *fromlist = NIL;
	Node	   *quals = NULL;
	ListCell   *lc;

	OffsetVarNodes((Node *) s, offset, 0);
	q->targetList = (List *) ReplaceVarsFromTargetList((Node *) q->targetList, rtindex, 0, rte,
													   s->targetList, REPLACEVARS_REPORT_ERROR, 0, NULL);
	q->jointree = (FromExpr *) ReplaceVarsFromTargetList((Node *) q->jointree, rtindex, 0, rte,
														 s->targetList, REPLACEVARS_REPORT_ERROR, 0, NULL);
	q->havingQual = ReplaceVarsFromTargetList(q->havingQual, rtindex, 0, rte,
											  s->targetList, REPLACEVARS_REPORT_ERROR, 0, NULL);
	q->rtable = list_concat(q->rtable, s->rtable);
	if (!flatten_inner_joins(q, (Node *) s->jointree, &leaves, &quals))
		elog(ERROR, "dynview: a pulled-up subquery has a join that is not inner");
	foreach(lc, q->jointree->fromlist)
	{
		if (IsA(lfirst(lc), RangeTblRef) && ((RangeTblRef *) lfirst(lc))->rtindex == rtindex)
			fromlist = list_concat(fromlist, leaves);
		else
			fromlist = lappend(fromlist, lfirst(lc));
	}
	q->jointree->fromlist = fromlist;
	if (quals)
		q->jointree->quals = make_and_qual(q->jointree->quals, quals);
	/* the entry stays (range table indexes must not move), unreferenced */
	retire_rte(rte);
}

/*
 * inline_ctes - a WITH query of this level that is a plain SELECT reading no
 * other WITH query becomes a subquery in FROM where it is referenced, at
 * this level or in a subquery below it (a scalar subquery over it).
 */
typedef struct InlineContext
{
	Query	   *q;				/* the level whose WITH queries are inlined */
	int			depth;			/* of the walk below q */
	bool		all;			/* has every reference been inlined? */
} InlineContext;

static bool
inline_ctes_walker(Node *node, InlineContext *ctx)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
	{
		bool		r;

		ctx->depth++;
		r = query_tree_walker((Query *) node, inline_ctes_walker, ctx, QTW_EXAMINE_RTES_BEFORE);
		ctx->depth--;
		return r;
	}
	if (IsA(node, RangeTblEntry))
	{
		RangeTblEntry *rte = (RangeTblEntry *) node;
		ListCell   *lcte;

		if (rte->rtekind != RTE_CTE || rte->ctelevelsup != ctx->depth)
			return false;
		if (rte->self_reference)
		{
			ctx->all = false;
			return false;
		}
		foreach(lcte, ctx->q->cteList)
		{
			CommonTableExpr *cte = lfirst_node(CommonTableExpr, lcte);
			Query	   *cq = (Query *) cte->ctequery;
			ListCell   *lr;
			bool		ok = !cte->cterecursive &&
				cte->ctematerialized != CTEMaterializeAlways && IsA(cq, Query) &&
				cq->commandType == CMD_SELECT && !cq->hasSubLinks && cq->cteList == NIL;

			if (strcmp(cte->ctename, rte->ctename) != 0)
				continue;
			foreach(lr, ok ? cq->rtable : NIL)
			{
				if (lfirst_node(RangeTblEntry, lr)->rtekind == RTE_CTE)
					ok = false;
			}
			if (!ok)
			{
				ctx->all = false;
				break;
			}
			rte->rtekind = RTE_SUBQUERY;
			rte->subquery = copyObject(cq);
			rte->security_barrier = false;
			rte->ctename = NULL;
			rte->ctelevelsup = 0;
			rte->coltypes = rte->coltypmods = rte->colcollations = NIL;
			break;
		}
		return false;
	}
	return expression_tree_walker(node, inline_ctes_walker, ctx);
}

static void
inline_ctes(Query *q)
{
	InlineContext ctx = {q, 0, true};

	(void) query_tree_walker(q, inline_ctes_walker, &ctx, QTW_EXAMINE_RTES_BEFORE);
	if (ctx.all)
		q->cteList = NIL;
}

/* does the query level read a join's own columns (USING, NATURAL, join aliases)? */
static bool
reads_join_columns_walker(Node *node, Query *q)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
		return ((Var *) node)->varlevelsup == 0 &&
			rt_fetch(((Var *) node)->varno, q->rtable)->rtekind == RTE_JOIN;
	if (IsA(node, JoinExpr) && (((JoinExpr *) node)->usingClause || ((JoinExpr *) node)->isNatural))
		return true;
	return expression_tree_walker(node, reads_join_columns_walker, (void *) q);
}

/* q with its simple subqueries, views and WITH queries in FROM pulled up */
static Query *
pull_up_simple_subqueries(Query *q)
{
	bool		again = true;

	List	   *leaves = NIL;
	Node	   *quals = NULL;
	ListCell   *lc;
	bool		any = false;

	if (q->cteList)
		inline_ctes(q);
	foreach(lc, q->rtable)
	{
		RangeTblEntry *rte = lfirst_node(RangeTblEntry, lc);

		if (rte->rtekind == RTE_SUBQUERY && rte->subquery)
		{
			rte->subquery = pull_up_simple_subqueries(rte->subquery);
			any |= pullable_subquery(rte);
		}
	}
	/*
	 * only when there is something to pull up: the join tree is flattened
	 * first (a set operation's branches are no FROM items: kept)
	 */
	if (!any || q->setOperations ||
		reads_join_columns_walker((Node *) q->targetList, q) ||
		reads_join_columns_walker((Node *) q->jointree, q) ||
		reads_join_columns_walker(q->havingQual, q))
		return q;
	{
		Query	   *copy = copyObject(q);

		if (!flatten_inner_joins(copy, (Node *) copy->jointree, &leaves, &quals))
			return q;
		copy->jointree = makeFromExpr(leaves, quals);
		q = copy;
	}

	while (again)
	{
		again = false;
		foreach(lc, q->rtable)
		{
			RangeTblEntry *rte = lfirst_node(RangeTblEntry, lc);

			if (rte->rtekind != RTE_SUBQUERY || rte->subquery == NULL)
				continue;
			if (pullable_subquery(rte))
			{
				pull_up_subquery(q, foreach_current_index(lc) + 1);
				again = true;
				break;
			}
		}
	}
	return q;
}

/*
 * dv_plan_query - classify a rewritten query and prepare its delta SQL.
 * Result in the current memory context.  Needs a transaction.
 */
static DvPlan *plan_level(Query *query, int branch, bool allow_state, bool as_node);

/* numbers the query levels planned as operators (their windows' relation names) */
static int next_node_level = 0;

/* planning the subquery of plan_hidden_partition's wrapper: not wrapped again */
static bool wrapping_window = false;

/*
 * plan_hidden_partition - window functions partitioned by expressions none
 * of which is an output column: the table's rows of a partition cannot be
 * found by its key, so the query is planned as a subquery operator of
 * "SELECT * FROM (query)": its delta is the affected partitions' rows
 * computed over the rows now (+1) and as they were (-1), applied to the
 * table as a multiset (SPJ).
 */
static DvPlan *
plan_hidden_partition(Query *query, bool allow_state)
{
	Query	   *q = makeNode(Query);
	RangeTblEntry *rte = makeNode(RangeTblEntry);
	RangeTblRef *rtr = makeNode(RangeTblRef);
	List	   *names = NIL;
	DvPlan	   *plan;
	ListCell   *lc;
	AttrNumber	attno = 0;

	q->commandType = CMD_SELECT;
	q->querySource = QSRC_ORIGINAL;
	q->canSetTag = true;
	foreach(lc, query->targetList)
	{
		TargetEntry *te = lfirst_node(TargetEntry, lc);

		if (!te->resjunk)
			names = lappend(names, makeString(pstrdup(te->resname ? te->resname : "?column?")));
	}
	rte->rtekind = RTE_SUBQUERY;
	rte->subquery = copyObject(query);
	rte->subquery->sortClause = NIL;
	rte->alias = makeAlias("dv_window", NIL);
	rte->eref = makeAlias("dv_window", names);
	rte->inFromCl = true;
	q->rtable = list_make1(rte);
	rtr->rtindex = 1;
	q->jointree = makeFromExpr(list_make1(rtr), NULL);
	foreach(lc, query->targetList)
	{
		TargetEntry *te = lfirst_node(TargetEntry, lc);

		if (te->resjunk)
			continue;
		attno++;
		q->targetList = lappend(q->targetList,
								makeTargetEntry((Expr *) makeVar(1, attno, exprType((Node *) te->expr),
																 exprTypmod((Node *) te->expr),
																 exprCollation((Node *) te->expr), 0),
												attno, te->resname ? pstrdup(te->resname) : NULL, false));
	}
	wrapping_window = true;
	plan = plan_level(q, 0, allow_state, false);
	wrapping_window = false;
	if (plan->kind == DV_PLAN_FULL)
		return full_plan("WINDOW_FUNCTION",
						 "The window functions share no PARTITION BY column that is a column of the result, and as a subquery they are not incremental (%s: %s)",
						 plan->reason_code, plan->reason);
	return plan;
}
static DvPlan *plan_over_subquery(Query *query, int branch);
static DvPlan *plan_top_n(Query *query);

/* the leaf queries of a set operation tree, and whether every operation is UNION ALL */
static void
set_op_leaves(Query *q, Node *node, List **leaves, bool *union_all)
{
	if (IsA(node, RangeTblRef))
	{
		*leaves = lappend(*leaves, rt_fetch(((RangeTblRef *) node)->rtindex, q->rtable)->subquery);
		return;
	}
	if (((SetOperationStmt *) node)->op != SETOP_UNION || !((SetOperationStmt *) node)->all)
		*union_all = false;
	set_op_leaves(q, ((SetOperationStmt *) node)->larg, leaves, union_all);
	set_op_leaves(q, ((SetOperationStmt *) node)->rarg, leaves, union_all);
}

/*
 * Conditions a window read may apply to change rows (dv_window_conjunct_kind).
 */

/* check_functions_in_node's checker: is the function not built in? */
static bool
not_built_in(Oid func, void *context)
{
	return func >= FirstNormalObjectId;
}

/*
 * built_in_walker - does node hold anything but plain expressions calling
 * built-in functions only?  A whitelist of node types: those whose every
 * function call check_functions_in_node reports (OpExpr and its kin,
 * FuncExpr, CoerceViaIO's output and input functions, RowCompareExpr's
 * operators), those that call none (Var, Const, BoolExpr, NullTest, CASE,
 * COALESCE, a relabelling), and GREATEST/LEAST of a built-in type (its
 * default btree comparison, which check_functions_in_node does not see).
 * Anything else (a domain's CHECK, a subscript, XML, a parameter, a
 * sublink) may run other code: true; and so does a value of a type that is
 * not built in (an array or row of one compared by a built-in function).
 */
static bool
built_in_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;

	/*
	 * Every value of a built-in type: built-in functions that compare or
	 * hash arrays and rows (array_eq, record_eq) call their elements'
	 * functions, a user type's own.
	 */
	if (!IsA(node, List) && !IsA(node, CaseWhen) && exprType(node) >= FirstNormalObjectId)
		return true;
	switch (nodeTag(node))
	{
		case T_Var:
		case T_Const:
		case T_List:
		case T_BoolExpr:
		case T_NullTest:
		case T_BooleanTest:
		case T_RelabelType:
		case T_CaseExpr:
		case T_CaseWhen:
		case T_CaseTestExpr:
		case T_CoalesceExpr:
		case T_ArrayExpr:
		case T_ArrayCoerceExpr:
		case T_RowExpr:
		case T_FuncExpr:
		case T_OpExpr:
		case T_DistinctExpr:
		case T_NullIfExpr:
		case T_ScalarArrayOpExpr:
		case T_CoerceViaIO:
		case T_RowCompareExpr:
			break;
		case T_MinMaxExpr:
			if (((MinMaxExpr *) node)->minmaxtype >= FirstNormalObjectId)
				return true;
			break;
		default:
			return true;
	}
	if (check_functions_in_node(node, not_built_in, NULL))
		return true;
	return expression_tree_walker(node, built_in_walker, context);
}

/* dv_calls_user_code's walker: a domain coercion, at any level */
static bool
domain_coercion_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, CoerceToDomain))
		return true;
	if (IsA(node, Query))
		return query_tree_walker((Query *) node, domain_coercion_walker, context, 0);
	return expression_tree_walker(node, domain_coercion_walker, context);
}

/*
 * type_within_any - does test hold for type, or for a type a value of it
 * holds, at any depth: an array's element type, a range's subtype, a
 * multirange's range, a composite type's (live) column types?  A domain is
 * not looked into (test sees it).
 */
static bool
type_within_any(Oid type, bool (*test) (Oid type))
{
	Oid			inner;

	check_stack_depth();
	if (test(type))
		return true;
	switch (get_typtype(type))
	{
		case TYPTYPE_DOMAIN:
			return false;
		case TYPTYPE_RANGE:
			inner = get_range_subtype(type);
			break;
		case TYPTYPE_MULTIRANGE:
			inner = get_multirange_range(type);
			break;
		case TYPTYPE_COMPOSITE:
			{
				TupleDesc	desc = lookup_rowtype_tupdesc(type, -1);
				bool		holds = false;

				for (int i = 0; !holds && i < desc->natts; i++)
					holds = !TupleDescAttr(desc, i)->attisdropped &&
						type_within_any(TupleDescAttr(desc, i)->atttypid, test);
				ReleaseTupleDesc(desc);
				return holds;
			}
		default:
			inner = get_element_type(type);
			break;
	}
	return OidIsValid(inner) && type_within_any(inner, test);
}

static bool
is_domain(Oid type)
{
	return get_typtype(type) == TYPTYPE_DOMAIN;
}

/*
 * dv_type_holds_domain - is type a domain, or may a value of it hold one:
 * an array of one, a range or multirange over one, a composite type with a
 * column that holds one (at any depth)?  Forming such a value (a cast from
 * text, jsonb_populate_record, a state write's coercion of array_agg's
 * result) runs the domain's CHECK constraints.  Reads the type cache; no
 * lock.
 */
bool
dv_type_holds_domain(Oid type)
{
	return type_within_any(type, is_domain);
}

/*
 * type_itself_runs_user_code - is type a domain (its CHECK constraints), or
 * is its default btree or hash operator family not built in, or has it an
 * operator or support function that is not, or an input or output
 * function that is not, or is it a range whose subtype operator class,
 * canonical or subtype_diff function is not?  (dv_type_runs_user_code, at
 * one level)
 */
static bool
type_itself_runs_user_code(Oid type)
{
	TypeCacheEntry *tc;
	HeapTuple	tup;
	bool		user = false;

	if (is_domain(type))
		return true;
	/*
	 * A range compares its bounds with its subtype's operator class (not
	 * necessarily the subtype's default one) and may have a canonical and a
	 * subtype difference function (a GiST index of it calls subtype_diff;
	 * regress user_code_ranges, brk18_range_subtype).
	 */
	if (get_typtype(type) == TYPTYPE_RANGE)
	{
		tup = SearchSysCache1(RANGETYPE, ObjectIdGetDatum(type));
		if (HeapTupleIsValid(tup))
		{
			Form_pg_range r = (Form_pg_range) GETSTRUCT(tup);

			user = r->rngcanonical >= FirstNormalObjectId || r->rngsubdiff >= FirstNormalObjectId ||
				dv_index_column_runs_user_code(r->rngsubtype, get_opclass_family(r->rngsubopc),
											   get_opclass_input_type(r->rngsubopc));
			ReleaseSysCache(tup);
		}
		if (user)
			return true;
	}
	tc = lookup_type_cache(type, TYPECACHE_EQ_OPR | TYPECACHE_LT_OPR | TYPECACHE_GT_OPR |
						   TYPECACHE_CMP_PROC | TYPECACHE_HASH_PROC | TYPECACHE_HASH_EXTENDED_PROC |
						   TYPECACHE_BTREE_OPFAMILY | TYPECACHE_HASH_OPFAMILY);
	if (tc->btree_opf >= FirstNormalObjectId || tc->hash_opf >= FirstNormalObjectId ||
		(OidIsValid(tc->eq_opr) && get_opcode(tc->eq_opr) >= FirstNormalObjectId) ||
		(OidIsValid(tc->lt_opr) && get_opcode(tc->lt_opr) >= FirstNormalObjectId) ||
		(OidIsValid(tc->gt_opr) && get_opcode(tc->gt_opr) >= FirstNormalObjectId) ||
		tc->cmp_proc >= FirstNormalObjectId || tc->hash_proc >= FirstNormalObjectId ||
		tc->hash_extended_proc >= FirstNormalObjectId)
		return true;

	tup = SearchSysCache1(TYPEOID, ObjectIdGetDatum(type));
	if (HeapTupleIsValid(tup))
	{
		Form_pg_type t = (Form_pg_type) GETSTRUCT(tup);

		user = t->typinput >= FirstNormalObjectId || t->typoutput >= FirstNormalObjectId ||
			t->typreceive >= FirstNormalObjectId || t->typsend >= FirstNormalObjectId;
		ReleaseSysCache(tup);
	}
	return user;
}

/*
 * dv_type_runs_user_code - may forming, comparing or hashing a value of
 * type run code that is not built in?  True for a type that holds a domain
 * (dv_type_holds_domain: its CHECK constraints run), one whose default
 * btree or hash operator family (what GROUP BY, DISTINCT, a unique index,
 * a MERGE's or a join's "=" and a hash use) is not built in or has an
 * operator or support function that is not (a superuser may give a
 * built-in type without one, point, an operator class written in
 * PL/pgSQL: regress brk17_user_opclass), or whose input or output function
 * is not built in, or a range whose own subtype operator class (which
 * compares its bounds), canonical or subtype_diff function is not; at any
 * depth (an array's elements, a range's subtype, a
 * composite type's columns: array_eq and record_eq call theirs).  Reads
 * the type cache and syscache; no lock.
 */
bool
dv_type_runs_user_code(Oid type)
{
	return type_within_any(type, type_itself_runs_user_code);
}

/*
 * family_members_run_user_code - has operator family opfamily an operator
 * or support function between two values of type that is not built in?
 * (A superuser's operator class may put its own members for a new type
 * into a built-in family.)  Reads the syscache; no lock.
 */
static bool
family_members_run_user_code(Oid opfamily, Oid type)
{
	CatCList   *members;
	bool		user = false;

	members = SearchSysCacheList3(AMOPSTRATEGY, ObjectIdGetDatum(opfamily),
								  ObjectIdGetDatum(type), ObjectIdGetDatum(type));
	for (int i = 0; !user && i < members->n_members; i++)
	{
		Form_pg_amop op = (Form_pg_amop) GETSTRUCT(&members->members[i]->tuple);

		user = op->amopopr >= FirstNormalObjectId || get_opcode(op->amopopr) >= FirstNormalObjectId;
	}
	ReleaseSysCacheList(members);
	if (user)
		return true;
	members = SearchSysCacheList3(AMPROCNUM, ObjectIdGetDatum(opfamily),
								  ObjectIdGetDatum(type), ObjectIdGetDatum(type));
	for (int i = 0; !user && i < members->n_members; i++)
		user = ((Form_pg_amproc) GETSTRUCT(&members->members[i]->tuple))->amproc >= FirstNormalObjectId;
	ReleaseSysCacheList(members);
	return user;
}

/*
 * dv_index_column_runs_user_code - may an index key column of type type,
 * compared by operator family opfamily for its input type opcintype (an
 * operator class's family and input type, or a range's subtype operator
 * class), run code that is not built in when a row is written: the type
 * runs some (dv_type_runs_user_code), or the family is not built in, or
 * one of its operators or support functions for opcintype is not.  The
 * one definition of the guard (hooks/guard.c check_internal_index, before
 * such an index is made on a state table) and of the refreshes' backstop
 * (dv_index_runs_user_code).  Reads the type cache and syscache; no lock.
 */
bool
dv_index_column_runs_user_code(Oid type, Oid opfamily, Oid opcintype)
{
	return opfamily >= FirstNormalObjectId || dv_type_runs_user_code(type) ||
		(OidIsValid(opcintype) && opcintype != type && dv_type_runs_user_code(opcintype)) ||
		family_members_run_user_code(opfamily, opcintype);
}

/*
 * dv_index_runs_user_code - may writing a row into index run code that is
 * not built in: its expressions or predicate call some
 * (dv_calls_user_code), its access method is not built in, or a key
 * column's comparison does (dv_index_column_runs_user_code, asked of the
 * operator class's input type: the table's column types are the caller's
 * to ask).  The index open and locked by the caller.
 */
bool
dv_index_runs_user_code(Relation index)
{
	if (index->rd_rel->relam >= FirstNormalObjectId ||
		dv_calls_user_code((Node *) RelationGetIndexExpressions(index)) ||
		dv_calls_user_code((Node *) RelationGetIndexPredicate(index)))
		return true;
	for (int i = 0; i < IndexRelationGetNumberOfKeyAttributes(index); i++)
	{
		if (dv_index_column_runs_user_code(index->rd_opcintype[i], index->rd_opfamily[i],
										   index->rd_opcintype[i]))
			return true;
	}
	return false;
}

/*
 * dv_relation_runs_user_code - may writing a row into table rel (a
 * dynamic table, a state table) run code that is not built in: a trigger
 * (foreign keys included), a rule, a CHECK constraint, row-level security
 * (a policy's expressions run for each row written where they apply), a
 * column default, a table access method other than heap (another's code
 * writes its rows; dynview creates its change buffers and state tables
 * USING heap), a live column of a type whose values run such code
 * (dv_type_runs_user_code) or an index that does
 * (dv_index_runs_user_code)?  Then a refresh's writes to it are not
 * dynview's own (refresh.c writes_are_own, aggstate.c
 * dv_agg_state_runs_user_code; both through dv_relid_runs_user_code).
 * rel open and locked by the caller; takes AccessShareLock on its indexes,
 * released when each is closed.
 */
bool
dv_relation_runs_user_code(Relation rel)
{
	TupleDesc	desc = RelationGetDescr(rel);
	ListCell   *lc;

	if (rel->rd_rel->relhastriggers || rel->rd_rel->relhasrules ||
		rel->rd_rel->relchecks > 0 || rel->rd_rel->relrowsecurity ||
		rel->rd_rel->relam != HEAP_TABLE_AM_OID)
		return true;
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (!att->attisdropped && (att->atthasdef || dv_type_runs_user_code(att->atttypid)))
			return true;
	}
	foreach(lc, RelationGetIndexList(rel))
	{
		Relation	index = index_open(lfirst_oid(lc), AccessShareLock);
		bool		runs = dv_index_runs_user_code(index);

		index_close(index, AccessShareLock);
		if (runs)
			return true;
	}
	return false;
}

/*
 * dv_relid_runs_user_code - dv_relation_runs_user_code of the table relid,
 * for callers that do not have it open: opens it with AccessShareLock and
 * closes it, releasing the lock (its indexes' likewise).
 */
bool
dv_relid_runs_user_code(Oid relid)
{
	Relation	rel = table_open(relid, AccessShareLock);
	bool		runs = dv_relation_runs_user_code(rel);

	table_close(rel, AccessShareLock);
	return runs;
}

/* does a list of SortGroupClauses name an operator whose function is not built in? */
static bool
sort_group_runs_user_code(List *clauses)
{
	ListCell   *lc;

	foreach(lc, clauses)
	{
		SortGroupClause *sgc = lfirst(lc);

		if ((OidIsValid(sgc->eqop) && get_opcode(sgc->eqop) >= FirstNormalObjectId) ||
			(OidIsValid(sgc->sortop) && get_opcode(sgc->sortop) >= FirstNormalObjectId))
			return true;
	}
	return false;
}

/* a node exprType() answers for: one that computes a value */
static bool
computes_value(Node *node)
{
	switch (nodeTag(node))
	{
		case T_Var:
		case T_Const:
		case T_Param:
		case T_Aggref:
		case T_GroupingFunc:
		case T_WindowFunc:
		case T_SubscriptingRef:
		case T_FuncExpr:
		case T_NamedArgExpr:
		case T_OpExpr:
		case T_DistinctExpr:
		case T_NullIfExpr:
		case T_ScalarArrayOpExpr:
		case T_BoolExpr:
		case T_SubLink:
		case T_FieldSelect:
		case T_FieldStore:
		case T_RelabelType:
		case T_CoerceViaIO:
		case T_ArrayCoerceExpr:
		case T_ConvertRowtypeExpr:
		case T_CollateExpr:
		case T_CaseExpr:
		case T_CaseTestExpr:
		case T_ArrayExpr:
		case T_RowExpr:
		case T_RowCompareExpr:
		case T_CoalesceExpr:
		case T_MinMaxExpr:
		case T_SQLValueFunction:
		case T_XmlExpr:
		case T_NullTest:
		case T_BooleanTest:
		case T_CoerceToDomain:
		case T_CoerceToDomainValue:
		case T_SetToDefault:
		case T_NextValueExpr:
		case T_PlaceHolderVar:
			return true;
		default:
			return false;
	}
}

/* dv_values_run_user_code's walker */
static bool
user_value_walker(Node *node, void *context)
{
	ListCell   *lc;

	if (node == NULL)
		return false;
	if (IsA(node, Query))
	{
		Query	   *query = (Query *) node;

		/* (the operators that group, sort and tell rows apart: not expressions) */
		if (sort_group_runs_user_code(query->groupClause) ||
			sort_group_runs_user_code(query->distinctClause) ||
			sort_group_runs_user_code(query->sortClause))
			return true;
		foreach(lc, query->windowClause)
			if (sort_group_runs_user_code(((WindowClause *) lfirst(lc))->partitionClause) ||
				sort_group_runs_user_code(((WindowClause *) lfirst(lc))->orderClause))
				return true;
		return query_tree_walker(query, user_value_walker, context, QTW_EXAMINE_RTES_BEFORE);
	}
	/* (an aggregate's ORDER BY and DISTINCT; a UNION's, INTERSECT's or EXCEPT's grouping) */
	if (IsA(node, SortGroupClause))
		return sort_group_runs_user_code(list_make1(node));
	if (IsA(node, SetOperationStmt) &&
		sort_group_runs_user_code(((SetOperationStmt *) node)->groupClauses))
		return true;
	if (IsA(node, RangeTblEntry))
	{
		RangeTblEntry *rte = (RangeTblEntry *) node;

		/*
		 * (a column definition list's types: jsonb_to_record(j) AS r(d dom)
		 * forms r.d, read or not; a table function's columns likewise)
		 */
		if (rte->rtekind == RTE_FUNCTION)
			foreach(lc, rte->functions)
			{
				ListCell   *t;

				foreach(t, ((RangeTblFunction *) lfirst(lc))->funccoltypes)
					if (dv_type_runs_user_code(lfirst_oid(t)))
						return true;
			}
		if (rte->rtekind == RTE_TABLEFUNC)
			foreach(lc, rte->tablefunc->coltypes)
				if (dv_type_runs_user_code(lfirst_oid(lc)))
					return true;
		return false;
	}
	if (computes_value(node) && dv_type_runs_user_code(exprType(node)))
		return true;
	return expression_tree_walker(node, user_value_walker, context);
}

/*
 * dv_values_run_user_code - may evaluating node (an expression or a
 * Query, at any level) form, read, compare or hash a value of a type whose
 * handling runs code that is not built in (dv_type_runs_user_code), or
 * group, sort or tell rows apart with an operator that is not built in?
 * A domain's CHECK constraints run wherever a value of a type holding it
 * is formed, not only in a coercion to the domain: a built-in function
 * that forms a value of such a type runs them too (a cast from text to a
 * composite type with a column of the domain, jsonb_populate_record into
 * it: the query names neither the domain nor user code; regress
 * brk16_domain_values), and the state dynview keeps of such a value has
 * its type (count(DISTINCT x): the multiplicities' value column, or their
 * array of values, into which the refresh's statements coerce an
 * array_agg(x) of the base type: regress brk15_domain_state).  A type's
 * default operator class, which GROUP BY, the refresh's joins and its
 * indexes use, may be a superuser's, in PL/pgSQL (regress
 * brk17_user_opclass).  So every value the query computes is asked, by its
 * type, not only its Vars and coercions, and so are the operators of its
 * GROUP BY, DISTINCT, ORDER BY, windows, set operations and aggregates'
 * ORDER BY and DISTINCT.
 */
bool
dv_values_run_user_code(Node *node)
{
	return user_value_walker(node, NULL);
}

/*
 * dv_calls_user_code - may evaluating node (an expression or a Query, its
 * subqueries and sublinks included) run code that is not built in: a
 * function, operator, cast or aggregate whose function is not below
 * FirstNormalObjectId, or a coercion to a domain (whose CHECK constraints
 * may call any function)?  Whatever its declared volatility, such code may
 * write: a PL/pgSQL function declared IMMUTABLE may call a volatile one,
 * whose statements then write.
 */
bool
dv_calls_user_code(Node *node)
{
	return dv_find_function(node, not_built_in, NULL) || domain_coercion_walker(node, NULL);
}

/* check_functions_in_node's checker: may the role in *context not execute func? */
static bool
not_executable(Oid func, void *context)
{
	return pg_proc_aclcheck(func, *(Oid *) context, ACL_EXECUTE) != ACLCHECK_OK;
}

static bool not_leakproof(Oid func, void *context);

/* check_functions_in_node's checker: a function not built in and not leakproof? */
static bool
user_not_leakproof(Oid func, void *context)
{
	return func >= FirstNormalObjectId && not_leakproof(func, context);
}

/*
 * dv_window_conjunct_kind - may a window read (the change rows of a
 * source, read as the bootstrap superuser before the rows of changes that
 * later changes undid cancel out) apply qual, a conjunct of the query's
 * filter on source relid read by owner, and how?
 *
 * Only an expression of the row alone may be: no subquery, no function
 * that is not immutable (its answer on a change row is then its answer on
 * the source row the change row stands for, whose values it holds), none
 * the owner may not execute (the delta statements, which run as the owner,
 * would fail on it).  Then:
 * - LEAKPROOF: every function that sees a column is leakproof (the
 *   built-in comparisons of most types): it raises no error for any input,
 *   so it may see every change row, undone ones and rows a policy hides.
 *   And every other function is built in or leakproof too (which only a
 *   superuser can declare): the read runs no other role's code as the
 *   superuser (a function given no column, "v > f(0)", runs all the same).
 * - BUILT_IN: it calls built-in functions only (OIDs below
 *   FirstNormalObjectId, with dynview.window_filter_functions on): they run
 *   no code of any role as the superuser, but may raise an error on a row
 *   the query would never evaluate them on (a/b of a row with b = 0 that a
 *   later change deleted), so the window read that applies them falls back
 *   to one without them when it fails (refresh/incremental.c).  Not for a
 *   source with row-level security enabled, whether or not it applies to
 *   the owner (check_enable_rls other than RLS_NONE): where it does, an
 *   error (or its absence) would tell of rows the policy hides.
 * - NONE: left to the delta statements.
 * The Vars' match with the change buffer's columns is the caller's to check.
 */
DvWindowConjunct
dv_window_conjunct_kind(Node *qual, Oid relid, Oid owner)
{
	Oid			func;

	if (contain_subplans(qual) || checkExprHasSubLink(qual) || contain_mutable_functions(qual) ||
		dv_find_function(qual, not_executable, &owner))
		return DV_WINDOW_CONJUNCT_NONE;
	/*
	 * (every function leakproof, not only those given a column: the read
	 * runs as the bootstrap superuser, and "v > f(0)" calls f all the same;
	 * contain_leaked_vars passes it, since f sees no column)
	 */
	if (!contain_leaked_vars(qual) && !dv_find_function(qual, user_not_leakproof, &func))
		return DV_WINDOW_CONJUNCT_LEAKPROOF;
	if (!dv_window_filter_functions || built_in_walker(qual, NULL) ||
		check_enable_rls(relid, owner, true) != RLS_NONE)
		return DV_WINDOW_CONJUNCT_NONE;
	return DV_WINDOW_CONJUNCT_BUILT_IN;
}

/*
 * row_security_walker - every relation anywhere in the query tree
 * (subqueries, views' bodies, sublinks) whose row-level security applies to
 * the role it is read as, appended to *found.
 */
static bool
row_security_walker(Node *node, List **found)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
		return query_tree_walker((Query *) node, row_security_walker, found, QTW_EXAMINE_RTES_BEFORE);
	if (IsA(node, RangeTblEntry))
	{
		RangeTblEntry *rte = (RangeTblEntry *) node;

		if (rte->rtekind == RTE_RELATION &&
			check_enable_rls(rte->relid, rte->checkAsUser, true) == RLS_ENABLED)
			*found = lappend(*found, rte);
		return false;
	}
	return expression_tree_walker(node, row_security_walker, found);
}

/* check_functions_in_node's checker: is the function not leakproof? (its OID kept) */
static bool
not_leakproof(Oid func, void *context)
{
	if (get_func_leakproof(func))
		return false;
	*(Oid *) context = func;
	return true;
}

/*
 * leaky_conditions - the same for every level of the query: its join tree
 * (WHERE, ON, and the sublinks in them, whole) and those of its subqueries
 * in FROM and WITH queries, which become operators of the tree whose
 * conditions are pushed down to the change rows as the level's are.
 */
static bool
leaky_conditions(Query *query, Oid *func)
{
	ListCell   *lc;

	/* (a condition: join trees, sublinks) */
	if (dv_find_function((Node *) query->jointree, not_leakproof, func))
		return true;
	foreach(lc, query->rtable)
	{
		RangeTblEntry *rte = lfirst_node(RangeTblEntry, lc);

		if (rte->rtekind == RTE_SUBQUERY && rte->subquery && leaky_conditions(rte->subquery, func))
			return true;
	}
	foreach(lc, query->cteList)
	{
		CommonTableExpr *cte = lfirst_node(CommonTableExpr, lc);

		if (IsA(cte->ctequery, Query) && leaky_conditions((Query *) cte->ctequery, func))
			return true;
	}
	return false;
}

/*
 * row_security_reason - why the row-level security of a source that
 * applies to its reader keeps the query from being incremental, or NULL.
 * A policy is a filter on the source's rows, applied to its change rows as
 * to its rows (a filter over the scan), when it is an expression of the row
 * alone: no function that is not immutable (current_user: the policy then
 * depends on who reads), no subquery (other tables).  The change rows hold
 * the rows the policy hides too, and the generated statements are planned
 * without the security barrier, so a condition of the query evaluated
 * before the policy must not be able to leak them: every function called by
 * a condition (WHERE, ON, EXISTS, IN) must be leakproof, at every level (a
 * subquery's WHERE is pushed down to the change rows too).
 */
static char *
row_security_reason(Query *query)
{
	List	   *secured = NIL;
	ListCell   *lc;
	Oid			func = InvalidOid;

	(void) row_security_walker((Node *) query, &secured);
	foreach(lc, secured)
	{
		RangeTblEntry *rte = lfirst_node(RangeTblEntry, lc);
		Oid			reader = OidIsValid(rte->checkAsUser) ? rte->checkAsUser : GetUserId();
		Bitmapset  *cols = dv_policy_columns(rte);
		int			col = -1;

		/*
		 * PostgreSQL evaluates a policy without the reader's column
		 * privileges; the generated statements name its columns as the
		 * query's own, so a column the reader may not select would make them
		 * fail where the query runs.
		 */
		if (pg_class_aclcheck(rte->relid, reader, ACL_SELECT) != ACLCHECK_OK)
		{
			while ((col = bms_next_member(cols, col)) >= 0)
			{
				AttrNumber	attno = col + FirstLowInvalidHeapAttributeNumber;

				if (attno > 0 && pg_attribute_aclcheck(rte->relid, attno, reader, ACL_SELECT) != ACLCHECK_OK)
					return psprintf("Row-level security of \"%s\" applies to the role that reads it (%s), and a policy reads column \"%s\", which that role may not select: each refresh recomputes the query under the policy.",
									get_rel_name(rte->relid), GetUserNameFromId(reader, false),
									get_attname(rte->relid, attno, false));
			}
		}
		if (contain_mutable_functions((Node *) rte->securityQuals) ||
			checkExprHasSubLink((Node *) rte->securityQuals))
			return psprintf("Row-level security of \"%s\" applies to the role that reads it (%s), and a policy calls a function that is not immutable (such as current_user) or reads another table: each refresh recomputes the query under the policy.",
							get_rel_name(rte->relid),
							GetUserNameFromId(OidIsValid(rte->checkAsUser) ? rte->checkAsUser : GetUserId(), false));
	}
	if (secured != NIL && leaky_conditions(query, &func))
		return psprintf("Row-level security of \"%s\" applies to the role that reads it, and a condition of the query calls %s(), which is not leakproof: applied to change rows before the policy, it could see rows the policy hides, so each refresh recomputes the query under the policy.",
						get_rel_name(linitial_node(RangeTblEntry, secured)->relid), get_func_name(func));
	return NULL;
}

/* one grouping set: the keys that are not in it read as NULL, GROUPING() as its bits */
typedef struct GroupingSetContext
{
	List	   *absent;			/* expressions of the group keys not in the set */
	List	   *set;			/* sortgrouprefs of the set */
} GroupingSetContext;

static Node *
grouping_set_mutator(Node *node, GroupingSetContext *ctx)
{
	ListCell   *lc;

	if (node == NULL)
		return NULL;
	if (IsA(node, Aggref))
		return node;			/* (an aggregate reads its rows' values) */
	if (IsA(node, GroupingFunc))
	{
		GroupingFunc *gf = (GroupingFunc *) node;
		int32		bits = 0;

		foreach(lc, gf->refs)
			bits = (bits << 1) | (list_member_int(ctx->set, lfirst_int(lc)) ? 0 : 1);
		return (Node *) makeConst(INT4OID, -1, InvalidOid, sizeof(int32), Int32GetDatum(bits), false, true);
	}
	foreach(lc, ctx->absent)
	{
		if (equal(node, lfirst(lc)))
			return (Node *) makeNullConst(exprType(node), exprTypmod(node), exprCollation(node));
	}
	return expression_tree_mutator(node, grouping_set_mutator, (void *) ctx);
}

/*
 * plan_grouping_sets - GROUPING SETS, ROLLUP, CUBE: the UNION ALL of one
 * GROUP BY per grouping set (its absent keys NULL, GROUPING() a constant),
 * each an operator whose affected groups are recomputed (SPJ over
 * branches, as a UNION ALL with grouped branches).
 */
static DvPlan *
plan_grouping_sets(Query *query)
{
	List	   *sets = expand_grouping_sets(query->groupingSets, query->groupDistinct, -1);
	DvPlan	   *plan = palloc0(sizeof(DvPlan));
	ListCell   *ls;
	ListCell   *lc;

	plan->kind = DV_PLAN_SPJ;
	foreach(lc, query->targetList)
	{
		TargetEntry *te = lfirst_node(TargetEntry, lc);

		if (!te->resjunk)
			plan->output_names = lappend(plan->output_names, pstrdup(te->resname));
	}
	foreach(ls, sets)
	{
		Query	   *b = copyObject(query);
		GroupingSetContext ctx = {NIL, (List *) lfirst(ls)};
		List	   *group = NIL;
		DvPlan	   *bp;

		foreach(lc, query->groupClause)
		{
			SortGroupClause *sgc = lfirst_node(SortGroupClause, lc);

			if (list_member_int(ctx.set, sgc->tleSortGroupRef))
				group = lappend(group, copyObject(sgc));
			else
				ctx.absent = lappend(ctx.absent, get_sortgroupclause_expr(sgc, query->targetList));
		}
		b->groupingSets = NIL;
		b->groupDistinct = false;
		b->groupClause = group;
		b->sortClause = NIL;
		b->targetList = (List *) grouping_set_mutator((Node *) b->targetList, &ctx);
		b->havingQual = grouping_set_mutator(b->havingQual, &ctx);
		/* (a key that is NULL in this set is no group key of it) */
		foreach(lc, b->targetList)
		{
			TargetEntry *te = lfirst_node(TargetEntry, lc);

			if (te->ressortgroupref && !list_member_int(ctx.set, te->ressortgroupref))
				te->ressortgroupref = 0;
		}
		bp = dv_plan_node(b);
		if (bp->kind == DV_PLAN_FULL || bp->branches != NIL)
			return full_plan("GROUPING_SETS", "A grouping set is not incremental (%s: %s)",
							 bp->kind == DV_PLAN_FULL ? bp->reason_code : "SET_OPERATION",
							 bp->kind == DV_PLAN_FULL ? bp->reason : "a set operation");
		plan->branches = lappend(plan->branches, bp);
		plan->sources = list_concat(plan->sources, list_copy(bp->sources));
	}
	return plan;
}

/*
 * plan_setop_operator - a set operation at the top whose branches are not
 * each incremental on their own (UNION ALL of SPJ branches, or the touched
 * values recomputed): the set operation as an operator of the tree
 * (setop.c), its branches operators below it.  When that is FULL too, the
 * reason of the branch that is not incremental as an operator (its own
 * code: GROUPING_SETS, ORDER_BY_LIMIT, ...), else the given FULL plan.
 */
static DvPlan *
plan_setop_operator(Query *query, DvPlan *full)
{
	DvPlan	   *plan = plan_level(query, 0, true, false);

	if (plan->kind != DV_PLAN_FULL || strcmp(plan->reason_code, "SET_OPERATION") != 0)
		return plan;
	return full;
}

/*
 * dv_plan_query - classify a rewritten query and prepare its delta SQL.
 * Result in the current memory context.  Needs a transaction.
 *
 * A UNION ALL of SPJ branches is SPJ too: its delta is the UNION ALL of the
 * branches' deltas.  A UNION (without ALL at its top) of SPJ branches is the
 * DISTINCT of their UNION ALL (whatever the ALL of the operations below it):
 * GROUPED, every column a key, the rows whose values the branches' deltas
 * touch recomputed.
 */
DvPlan *
dv_plan_query(Query *query)
{
	List	   *leaves = NIL;
	DvPlan	   *plan;
	ListCell   *lc;
	bool		distinct;
	bool		union_all = true;
	char	   *rls_reason;

	/*
	 * First, before any other reason (the policy's own expressions, such as
	 * current_user, would otherwise count as the query's functions):
	 * row-level security that applies to the role a source is read as (the
	 * table's owner, or a view's owner), unless its policies are filters
	 * that can be applied to change rows (row_security_reason).
	 */
	next_node_level = 0;
	wrapping_window = false;
	rls_reason = row_security_reason(query);
	if (rls_reason != NULL)
		return full_plan("ROW_LEVEL_SECURITY", "%s", rls_reason);

	if (query->groupingSets && query->setOperations == NULL && !query->limitCount &&
		!query->limitOffset && !query->hasWindowFuncs && !query->distinctClause)
		return plan_grouping_sets(query);
	if (query->setOperations == NULL)
		return plan_level(query, 0, true, false);
	/* ORDER BY ... LIMIT over a set operation: top-N over its operator (setop.c) */
	if (query->limitCount || query->limitOffset)
		return plan_top_n(query);
	set_op_leaves(query, query->setOperations, &leaves, &union_all);
	distinct = !((SetOperationStmt *) query->setOperations)->all;

	/*
	 * UNION ALL (all the way down): the result's delta is its branches'.
	 * Any other tree of UNION, INTERSECT and EXCEPT: a row's multiplicity in
	 * the result depends only on its value's multiplicities in the branches,
	 * so the rows whose values the branches' deltas touch are recomputed
	 * (GROUPED, every column a key; unique unless the top operation is ALL).
	 */
	plan = palloc0(sizeof(DvPlan));
	plan->kind = union_all ? DV_PLAN_SPJ : DV_PLAN_GROUPED;
	plan->keys_unique = !union_all && distinct;
	foreach(lc, query->targetList)
	{
		TargetEntry *te = lfirst_node(TargetEntry, lc);

		if (!te->resjunk)
			plan->output_names = lappend(plan->output_names, pstrdup(te->resname));
	}
	if (!union_all)
		plan->key_columns = plan->output_names;
	foreach(lc, leaves)
	{
		DvPlan	   *b = dv_plan_node(lfirst_node(Query, lc));

		if (b->kind == DV_PLAN_FULL || b->branches != NIL)
			return plan_setop_operator(query,
									   full_plan("SET_OPERATION", "A branch of the set operation is not incremental (%s: %s)",
												 b->kind == DV_PLAN_FULL ? b->reason_code : "SET_OPERATION",
												 b->kind == DV_PLAN_FULL ? b->reason : "a nested set operation in a subquery"));
		plan->branches = lappend(plan->branches, b);
		plan->sources = list_concat(plan->sources, list_copy(b->sources));
	}
	return plan;
}

/*
 * plan_over_subquery - a filter/projection over one grouped (or windowed)
 * subquery in FROM: the outer rows of a group depend on that group only, so
 * the subquery's affected groups, traced to the outer columns that pass its
 * keys through, are recomputed (GROUPED).  Anything else is FULL.
 */
static DvPlan *
plan_over_subquery(Query *query, int branch)
{
	RangeTblRef *rtr;
	RangeTblEntry *rte;
	DvPlan	   *inner;
	ListCell   *lk;

	if (list_length(query->jointree->fromlist) != 1 ||
		!IsA(linitial(query->jointree->fromlist), RangeTblRef) ||
		query->hasAggs || query->groupClause || query->hasWindowFuncs ||
		query->distinctClause || query->setOperations)
		return full_plan("SUBQUERY_IN_FROM", "%s", reason_text("SUBQUERY_IN_FROM"));
	rtr = linitial_node(RangeTblRef, query->jointree->fromlist);
	rte = rt_fetch(rtr->rtindex, query->rtable);
	if (rte->rtekind != RTE_SUBQUERY || rte->lateral)
		return full_plan("SUBQUERY_IN_FROM", "%s", reason_text("SUBQUERY_IN_FROM"));
	inner = plan_level(rte->subquery, branch, false, false);
	if (inner->kind != DV_PLAN_GROUPED)
		return full_plan("SUBQUERY_IN_FROM", "%s", reason_text("SUBQUERY_IN_FROM"));

	/* every key of the subquery must reach the result as a plain column */
	inner->key_delta_names = inner->key_columns;
	inner->key_columns = NIL;
	foreach(lk, inner->key_delta_names)
	{
		const char *key = lfirst(lk);
		AttrNumber	attno = 0;
		ListCell   *lc;
		char	   *outer_name = NULL;

		foreach(lc, rte->subquery->targetList)
		{
			TargetEntry *te = lfirst_node(TargetEntry, lc);

			if (!te->resjunk && te->resname && strcmp(te->resname, key) == 0)
				attno = te->resno;
		}
		foreach(lc, query->targetList)
		{
			TargetEntry *te = lfirst_node(TargetEntry, lc);

			if (!te->resjunk && IsA(te->expr, Var) &&
				((Var *) te->expr)->varno == rtr->rtindex &&
				((Var *) te->expr)->varattno == attno && ((Var *) te->expr)->varlevelsup == 0)
				outer_name = pstrdup(te->resname);
		}
		if (attno == 0 || outer_name == NULL)
			return full_plan("SUBQUERY_IN_FROM",
							 "The grouping columns of the subquery in FROM are not all columns of the result.");
		inner->key_columns = lappend(inner->key_columns, outer_name);
	}
	return inner;
}

/* a constant, non-negative int8 LIMIT/OFFSET value into *v (0 if absent) */
static bool
const_count(Node *e, int64 *v)
{
	*v = 0;
	if (e == NULL)
		return true;
	e = eval_const_expressions(NULL, e);	/* (LIMIT 2 is int8(2)) */
	if (!IsA(e, Const) || ((Const *) e)->consttype != INT8OID || ((Const *) e)->constisnull)
		return false;
	*v = DatumGetInt64(((Const *) e)->constvalue);
	return *v >= 0;
}

/* is name among the names (char *)? */
static bool
name_in(List *names, const char *name)
{
	ListCell   *lc;

	foreach(lc, names)
		if (name && lfirst(lc) && strcmp(lfirst(lc), name) == 0)
			return true;
	return false;
}

/*
 * plan_top_n - ORDER BY ... LIMIT n [OFFSET m]: the table holds at most
 * n rows of the ordered result (those after the first m).  The input (the query without ORDER BY and
 * LIMIT) is planned as an operator, whose delta gives the rows that changed
 * before the limit; a refresh whose changed rows all sort after the table's
 * last row changes nothing, and one that reaches the table's rows (or a
 * table of fewer than n rows) recomputes it (refresh.c: TOP_N_CHANGED).
 * Sort keys must be columns of the result, sorted by their type's default
 * ordering.
 */
static DvPlan *
plan_top_n(Query *query)
{
	DvPlan	   *plan;
	DvPlan	   *input;
	Query	   *iq;
	int64		count;
	int64		offset;
	StringInfoData order;
	ListCell   *lc;
	int64		state_rows = 0;

	if (query->limitOption != LIMIT_OPTION_COUNT || query->limitCount == NULL ||
		!const_count(query->limitCount, &count) || !const_count(query->limitOffset, &offset) ||
		query->sortClause == NIL || query->hasDistinctOn)
		return full_plan("ORDER_BY_LIMIT", "LIMIT is incremental with ORDER BY, a constant count and no WITH TIES.");
	initStringInfo(&order);
	foreach(lc, query->sortClause)
	{
		SortGroupClause *sgc = lfirst_node(SortGroupClause, lc);
		TargetEntry *te = get_sortgroupclause_tle(sgc, query->targetList);
		TypeCacheEntry *tc = lookup_type_cache(exprType((Node *) te->expr), TYPECACHE_LT_OPR | TYPECACHE_GT_OPR);

		if (te->resjunk || te->resname == NULL || (sgc->sortop != tc->lt_opr && sgc->sortop != tc->gt_opr))
			return full_plan("ORDER_BY_LIMIT",
							 "ORDER BY ... LIMIT is incremental when every sort key is a column of the result, ordered by its type's default ordering.");
		appendStringInfo(&order, "%s%s %s nulls %s", foreach_current_index(lc) ? ", " : "",
						 quote_identifier(te->resname), sgc->sortop == tc->lt_opr ? "asc" : "desc",
						 sgc->nulls_first ? "first" : "last");
	}
	iq = copyObject(query);
	iq->limitCount = iq->limitOffset = NULL;
	iq->sortClause = NIL;

	/*
	 * The state of a top-N without OFFSET: its first rows beyond the limit
	 * (twice as many, and 100 more), so that a held row that leaves or sinks
	 * is replaced from it (refresh/aggstate.c fills it with the definition's
	 * tree, LIMIT set to state_rows + 1).
	 */
	if (offset == 0 && count > 0 && count <= DV_TOPN_STATE_MAX)
		state_rows = 2 * count + 100;

	/*
	 * The input's changed rows are computed by its operator's statements,
	 * which read the sources as the table's owner: a grouped view of another
	 * role, which a level reads through the view, would be read without the
	 * view owner's rights (permission denied at the first refresh).
	 */
	if (dv_optree_reads_as_other_role((Node *) iq))
		return full_plan("ORDER_BY_LIMIT",
						 "The query under ORDER BY ... LIMIT reads a view owned by another role, whose tables its changed rows would be computed from with the rights of the table's owner.");
	input = dv_plan_node(iq);
	if (input->kind == DV_PLAN_FULL || input->branches != NIL)
		return full_plan("ORDER_BY_LIMIT", "The query under ORDER BY ... LIMIT is not incremental (%s).",
						 input->kind == DV_PLAN_FULL ? input->reason_code : "SET_OPERATION");
	plan = palloc0(sizeof(DvPlan));
	plan->kind = DV_PLAN_TOPN;
	plan->topn_input = input;
	plan->topn_order = order.data;
	/*
	 * the table holds rows offset + 1 ... offset + count of the result: a
	 * change reaches them when it sorts before or with its last row, whose
	 * position in the table is count, not count + offset
	 */
	plan->topn_rows = count;
	plan->topn_offset = offset;
	plan->topn_state_rows = state_rows;
	plan->sources = input->sources;

	/*
	 * rows that tie in the order are alike when the sort keys are every
	 * output column, or hold the input's key (its group keys, or the
	 * sources' primary keys passed through): one row per key
	 */
	{
		List	   *sorted = NIL;
		List	   *key = NIL;
		bool		all = true;

		/* (GROUPING SETS: no keys, yet many rows) */
		bool		grouping_sets = input->grouped_level && input->grouped_level->groupingSets;

		foreach(lc, query->sortClause)
			sorted = lappend(sorted, get_sortgroupclause_tle(lfirst_node(SortGroupClause, lc), query->targetList)->resname);
		foreach(lc, query->targetList)
			if (!lfirst_node(TargetEntry, lc)->resjunk && !name_in(sorted, lfirst_node(TargetEntry, lc)->resname))
				all = false;
		if (input->kind == DV_PLAN_GROUPED && input->keys_unique && !input->window_node && !grouping_sets)
			key = input->key_columns;
		else if (input->kind == DV_PLAN_SPJ)
			key = input->spj_key;
		plan->topn_unique_order = all;
		if (!all && (key != NIL || (input->kind == DV_PLAN_GROUPED && input->keys_unique && !input->window_node &&
									!grouping_sets)))
		{
			plan->topn_unique_order = true;
			foreach(lc, key)
				if (!name_in(sorted, lfirst(lc)))
					plan->topn_unique_order = false;
		}
	}
	return plan;
}

/* collect the window functions of an expression tree (not below sublinks) */
static bool
window_funcs_walker(Node *node, List **funcs)
{
	if (node == NULL)
		return false;
	if (IsA(node, WindowFunc))
	{
		*funcs = lappend(*funcs, node);
		return false;			/* (a window function's arguments hold none) */
	}
	return expression_tree_walker(node, window_funcs_walker, (void *) funcs);
}

/*
 * dv_aggregate_is_mutable - is FN an aggregate with a support function that
 * is not immutable (transition, final, combine, (de)serial, moving-aggregate
 * functions)?  pg_proc marks every aggregate immutable, so its result can
 * change while its input does not only through these.  False for a function
 * that is no aggregate.
 */
bool
dv_aggregate_is_mutable(Oid fn)
{
	HeapTuple	tuple = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(fn));
	bool		mutable = false;

	if (HeapTupleIsValid(tuple))
	{
		Form_pg_aggregate agg = (Form_pg_aggregate) GETSTRUCT(tuple);
		Oid			fns[] = {agg->aggtransfn, agg->aggfinalfn, agg->aggcombinefn, agg->aggserialfn,
		agg->aggdeserialfn, agg->aggmtransfn, agg->aggminvtransfn, agg->aggmfinalfn};

		for (int i = 0; i < lengthof(fns); i++)
			mutable |= OidIsValid(fns[i]) && func_volatile(fns[i]) != PROVOLATILE_IMMUTABLE;
		ReleaseSysCache(tuple);
	}
	return mutable;
}

/*
 * mutable_aggregate - an aggregate (plain or a window's) with a support
 * function that is not immutable (pg_proc marks every aggregate immutable,
 * so contain_mutable_functions does not see it): its result can change
 * while its input does not.
 */
static bool
mutable_aggregate(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Aggref) && dv_aggregate_is_mutable(((Aggref *) node)->aggfnoid))
		return true;
	if (IsA(node, WindowFunc) && dv_aggregate_is_mutable(((WindowFunc *) node)->winfnoid))
		return true;
	return expression_tree_walker(node, mutable_aggregate, context);
}

/*
 * looks_back_only - does a window function's value at a row depend only on
 * the rows that sort before it and its peers (its frame ends at the current
 * row or before, or it ignores the frame)?  rank, dense_rank, row_number,
 * lag with a non-negative constant offset, first_value, last_value,
 * nth_value and aggregates over such a frame.  ntile, percent_rank,
 * cume_dist (the partition's size) and lead do not.
 */
static bool
looks_back_only(WindowFunc *wf, WindowClause *wc)
{
	bool		frame_used = wf->winagg;

	switch (wf->winfnoid)
	{
		case F_ROW_NUMBER:
		case F_RANK_:
		case F_DENSE_RANK_:
		case F_LAG_ANYELEMENT:
			break;
		case F_LAG_ANYELEMENT_INT4:
		case F_LAG_ANYCOMPATIBLE_INT4_ANYCOMPATIBLE:
			{
				Node	   *offset = eval_const_expressions(NULL, lsecond(wf->args));

				/* (a negative offset reads the rows that follow) */
				if (!IsA(offset, Const) || ((Const *) offset)->constisnull ||
					DatumGetInt32(((Const *) offset)->constvalue) < 0)
					return false;
				break;
			}
		case F_FIRST_VALUE:
		case F_LAST_VALUE:
		case F_NTH_VALUE:
			frame_used = true;
			break;
		default:
			if (!wf->winagg)
				return false;
	}
	return !frame_used ||
		(wc->frameOptions & (FRAMEOPTION_END_UNBOUNDED_FOLLOWING | FRAMEOPTION_END_OFFSET_FOLLOWING |
							 FRAMEOPTION_START_OFFSET_FOLLOWING)) == 0;
}

/*
 * plan_window - a query whose window functions have no PARTITION BY, or
 * are over grouped rows: the query without its window functions is the
 * input, planned as an operator (dv_plan_node: SPJ or grouped), whose delta
 * gives the input rows that changed (old images -1, new +1).
 *
 * Without PARTITION BY (every window sorted alike): a row's window values
 * depend only on the rows that sort before it and its peers (looks_back_only),
 * so the rows of the result that sort strictly before the first changed
 * input row (old and new images alike, in the window's order) are those of
 * the table, with the same values; the refresh recomputes the rows from
 * that position on (ties included), the window still evaluated over every
 * row (apply_window in incremental.c).
 *
 * With PARTITION BY over GROUP BY: a partition's rows depend on its input
 * rows only, so the partitions whose keys the changed grouped rows have are
 * recomputed, as for a window over plain rows.  The sort keys and partition
 * keys must be columns of the result, so that the table's rows are found by
 * them.
 */
static DvPlan *
plan_window(Query *query)
{
	List	   *unpartitioned = NIL;
	List	   *partitioned = NIL;
	List	   *funcs = NIL;
	List	   *order = NIL;
	List	   *keys = NIL;
	Query	   *iq;
	List	   *tl = NIL;
	List	   *read = NIL;
	DvPlan	   *input;
	DvPlan	   *plan;
	ListCell   *lc;
	int			resno = 1;

	if (query->distinctClause)
		return full_plan("WINDOW_FUNCTION", "DISTINCT over window functions is not incremental yet.");
	/*
	 * ORDER BY ... LIMIT over window functions: the top-N rule over the
	 * windows as a subquery operator (recomputed over the rows now and as
	 * they were when its input changed)
	 */
	if (query->limitCount || query->limitOffset)
		return plan_top_n(query);
	if (query->groupingSets)
		return full_plan("WINDOW_FUNCTION", "Window functions over GROUPING SETS, ROLLUP or CUBE are not incremental yet.");
	if (query->hasTargetSRFs)
		return full_plan("SET_RETURNING_FUNCTION", "Set-returning functions in the SELECT list of a query with window functions are not incremental.");
	if (contain_mutable_functions((Node *) query))
		return volatile_plan(query);
	if (mutable_aggregate((Node *) query->targetList, NULL) ||
		mutable_aggregate((Node *) query->havingQual, NULL))
		return full_plan("VOLATILE_FUNCTION",
						 "An aggregate of the query has a volatile or stable support function, so its result can change while its input does not.");
	foreach(lc, query->windowClause)
	{
		WindowClause *wc = lfirst_node(WindowClause, lc);

		if (wc->partitionClause == NIL)
			unpartitioned = lappend(unpartitioned, wc);
		else
			partitioned = lappend(partitioned, wc);
	}
	(void) window_funcs_walker((Node *) query->targetList, &funcs);
	foreach(lc, query->targetList)
	{
		TargetEntry *te = lfirst_node(TargetEntry, lc);

		/* the window functions' own subqueries would read tables the input does not */
		if (contain_window_function((Node *) te->expr) && checkExprHasSubLink((Node *) te->expr))
			return full_plan("SUBQUERY", "A window function's argument has a subquery.");
	}

	if (unpartitioned != NIL && partitioned != NIL)
		return full_plan("UNSUPPORTED_WINDOW_WITHOUT_PARTITION",
						 "Window functions with and without PARTITION BY in one query are not incremental yet.");
	if (unpartitioned != NIL)
	{
		WindowClause *first = linitial(unpartitioned);

		if (first->orderClause == NIL)
			return full_plan("UNSUPPORTED_WINDOW_WITHOUT_PARTITION",
							 "A window function without PARTITION BY and ORDER BY depends on every row.");
		foreach(lc, unpartitioned)
		{
			WindowClause *wc = lfirst_node(WindowClause, lc);

			if (!equal(wc->orderClause, first->orderClause))
				return full_plan("UNSUPPORTED_WINDOW_WITHOUT_PARTITION",
								 "Window functions without PARTITION BY are incremental when they share one ORDER BY.");
		}
		foreach(lc, funcs)
		{
			WindowFunc *wf = lfirst_node(WindowFunc, lc);
			WindowClause *wc = list_nth_node(WindowClause, query->windowClause, 0);
			ListCell   *lw;

			foreach(lw, query->windowClause)
				if (lfirst_node(WindowClause, lw)->winref == wf->winref)
					wc = lfirst_node(WindowClause, lw);
			if (!looks_back_only(wf, wc))
				return full_plan("UNSUPPORTED_WINDOW_WITHOUT_PARTITION",
								 "A window function without PARTITION BY is incremental when its value depends only on the rows before it and its peers (rank, dense_rank, row_number, lag, first_value, last_value, nth_value, aggregates over a frame that ends at the current row); %s does not.",
								 format_procedure(wf->winfnoid));
		}
		foreach(lc, first->orderClause)
		{
			SortGroupClause *sgc = lfirst_node(SortGroupClause, lc);
			TargetEntry *te = get_sortgroupclause_tle(sgc, query->targetList);
			DvSortKey  *key = palloc0(sizeof(DvSortKey));

			if (te->resjunk || te->resname == NULL)
				return full_plan("UNSUPPORTED_WINDOW_WITHOUT_PARTITION",
								 "A window function without PARTITION BY is incremental when every expression of its ORDER BY is a column of the result, so that the table's rows are found by it.");
			key->column = pstrdup(te->resname);
			key->sortop = sgc->sortop;
			key->eqop = get_equality_op_for_ordering_op(sgc->sortop, NULL);
			key->nulls_first = sgc->nulls_first;
			key->collation = exprCollation((Node *) te->expr);
			if (!OidIsValid(key->eqop))
				return full_plan("UNSUPPORTED_WINDOW_WITHOUT_PARTITION",
								 "The ORDER BY of a window function sorts by an operator that is not a btree ordering.");
			order = lappend(order, key);
		}
	}
	else
	{
		foreach(lc, window_partition_keys(query, false))
			keys = lappend(keys, pstrdup(lfirst_node(TargetEntry, lc)->resname));
		if (keys == NIL)
			return full_plan("WINDOW_FUNCTION",
							 "The window functions share no PARTITION BY column that is a column of the result.");
	}

	/* the input: the query without its window functions and ORDER BY */
	iq = copyObject(query);
	foreach(lc, iq->targetList)
	{
		TargetEntry *te = lfirst_node(TargetEntry, lc);

		/*
		 * (what the window functions and the expressions only the windows
		 * sort or partition by read: below)
		 */
		if (contain_window_function((Node *) te->expr) ||
			(te->resjunk && (te->ressortgroupref == 0 ||
							 get_sortgroupref_clause_noerr(te->ressortgroupref, iq->groupClause) == NULL)))
		{
			/*
			 * (a subquery there reads tables the input does not: a window
			 * function's argument is refused above; a sort or partition
			 * expression's, second tester of the thirtieth session, was
			 * left out of the input, and a change of its table missed)
			 */
			if (checkExprHasSubLink((Node *) te->expr))
				return full_plan("SUBQUERY", "A window's ORDER BY or PARTITION BY expression has a subquery.");
			read = list_concat(read, pull_var_clause((Node *) te->expr,
													 PVC_INCLUDE_AGGREGATES | PVC_RECURSE_WINDOWFUNCS |
													 PVC_RECURSE_PLACEHOLDERS));
			continue;
		}
		if (!te->resjunk && te->resname &&
			(strcmp(te->resname, "dv_weight") == 0 || strcmp(te->resname, "dv_row") == 0))
			return full_plan("RESERVED_COLUMN_NAME", "Output columns named dv_weight or dv_row are reserved by dynview.");
		te->resno = resno++;
		tl = lappend(tl, te);
	}

	/*
	 * Every column (or, over GROUP BY, aggregate) that a window function or
	 * a window's sort or partition expression reads is a column of the
	 * input too (named dv_wcol<n>), so that a change of it alone is a
	 * changed input row: sum(x) OVER (ORDER BY id) without x in the result
	 * saw an update of x as a row deleted and inserted alike, which cancel
	 * (tester of the thirtieth session), and the rows after it kept their
	 * sums.
	 */
	foreach(lc, read)
	{
		Node	   *expr = lfirst(lc);
		bool		have = false;
		ListCell   *lt;
		char	   *name;

		foreach(lt, tl)
			have = have || equal(lfirst_node(TargetEntry, lt)->expr, expr);
		if (have)
			continue;
		for (int n = list_length(tl) + 1;; n++)
		{
			bool		taken = false;

			/* (no output column's name, nor one given already: second tester) */
			name = psprintf("dv_wcol%d", n);
			foreach(lt, list_concat_copy(iq->targetList, tl))
			{
				TargetEntry *te = lfirst_node(TargetEntry, lt);

				taken = taken || (te->resname && strcmp(te->resname, name) == 0);
			}
			if (!taken)
				break;
		}
		tl = lappend(tl, makeTargetEntry((Expr *) copyObject(expr), resno++, name, false));
	}
	iq->targetList = tl;
	iq->windowClause = NIL;
	iq->hasWindowFuncs = false;
	iq->sortClause = NIL;
	if (dv_optree_reads_as_other_role((Node *) iq))
		return full_plan("WINDOW_FUNCTION",
						 "The query under the window functions reads a view owned by another role, whose tables its changed rows would be computed from with the rights of the table's owner.");
	input = dv_plan_node(iq);
	if (input->kind == DV_PLAN_FULL)
		return full_plan(input->reason_code, "%s", input->reason);
	if (input->branches != NIL)
		return full_plan("WINDOW_FUNCTION", "The query under the window functions is a set operation.");

	plan = palloc0(sizeof(DvPlan));
	plan->kind = DV_PLAN_WINDOW;
	plan->window_input = input;
	plan->window_order = order;
	plan->key_columns = keys;
	foreach(lc, iq->targetList)
	{
		TargetEntry *te = lfirst_node(TargetEntry, lc);

		if (!te->resjunk)
			plan->window_input_columns = lappend(plan->window_input_columns, pstrdup(te->resname));
	}
	plan->sources = input->sources;
	return plan;
}

/*
 * dv_plan_node - a subquery in FROM planned as an operator of the query
 * that reads it (optree.c): SPJ (its delta is its tree's), or GROUP BY /
 * DISTINCT / a global aggregate without windows (its affected groups are
 * recomputed over new and old rows).  FULL otherwise, with the reason.
 */
static DvPlan *plan_node_top_n(Query *query);

/*
 * A subquery operator without a state of its own keeps one row per group
 * (GROUP BY, DISTINCT, DISTINCT ON, grouping sets, a set operation's
 * values) and is recomputed over its input now and as it was: when equal
 * values of a key can print differently (numeric without a scale, float,
 * interval, jsonb, a nondeterministic collation), the old row it computes
 * may be another spelling than the one the table holds, the two cancel,
 * and the table keeps a spelling no source row has any more.
 */
#define NONIDENTITY_KEY_REASON \
	"A subquery in FROM that keeps one row per group or per distinct value of a column whose equal values can print differently (numeric without a declared scale, float, interval, jsonb, a nondeterministic collation) is not incremental: which spelling it keeps is up to the plan."

/*
 * do the DISTINCT keys of q compare as identity (identity_equality)?  (Not
 * checked: GROUP BY keys, which a join or semi-join above mostly compares
 * by = only, as a decorrelated scalar subquery does; a grouped row whose
 * aggregates change is not the old row, and its apply finds the mismatch.)
 */
static bool
identity_group_keys(Query *q)
{
	ListCell   *lc;

	foreach(lc, q->targetList)
	{
		TargetEntry *te = lfirst_node(TargetEntry, lc);

		if (te->ressortgroupref != 0 &&
			get_sortgroupref_clause_noerr(te->ressortgroupref, q->distinctClause) != NULL &&
			!identity_key((Node *) te->expr))
			return false;
	}
	return true;
}

DvPlan *
dv_plan_node(Query *sub)
{
	DvPlan	   *plan;

	/* (ORDER BY ... LIMIT: the query without LIMIT, marked node_topn) */
	if (sub->limitCount || sub->limitOffset)
		return plan_node_top_n(sub);
	plan = plan_level(sub, 1000 + next_node_level++, false, true);

	if (plan->kind == DV_PLAN_GROUPED && !plan->window_node &&
		(!plan->keys_unique || plan->grouped_level == NULL))
		return full_plan("SUBQUERY_IN_FROM", "A subquery in FROM with window functions, or with DISTINCT over GROUP BY, is not incremental yet.");
	if (plan->kind == DV_PLAN_GROUPED && !plan->window_node && plan->grouped_level != NULL &&
		!identity_group_keys(plan->grouped_level))
		return full_plan("SUBQUERY_IN_FROM", "%s", NONIDENTITY_KEY_REASON);
	return plan;
}

/*
 * plan_node_top_n - a subquery operator (in FROM, or under a semi-join)
 * with ORDER BY ... LIMIT n [OFFSET m]: its query without LIMIT planned as
 * an operator (dv_plan_node), marked node_topn.  The operator's rows are
 * the first n after m of that query's rows in the order; its delta is its
 * rows over its input now (+1) less its rows over its input as it was
 * (-1), computed when its input changed (optree.c topn_delta).  Where rows
 * that tie in the order need not be alike, which of them the subquery keeps
 * is up to the plan: FULL (ORDER_BY_LIMIT).
 */
static DvPlan *
plan_node_top_n(Query *query)
{
	DvPlan	   *input;
	Query	   *iq;
	int64		count;
	int64		offset;
	List	   *order = NIL;
	List	   *pos = NIL;
	List	   *sorted = NIL;
	List	   *key = NIL;
	bool		all = true;
	bool		unique;
	ListCell   *lc;

	if (query->setOperations)
		return full_plan("SET_OPERATION", "Nested set operations are not incremental yet.");
	if (query->limitOption != LIMIT_OPTION_COUNT || query->limitCount == NULL ||
		!const_count(query->limitCount, &count) || !const_count(query->limitOffset, &offset) ||
		query->sortClause == NIL || query->hasDistinctOn)
		return full_plan("ORDER_BY_LIMIT",
						 "LIMIT in a subquery is incremental with ORDER BY, a constant count, no WITH TIES and no DISTINCT ON.");
	foreach(lc, query->sortClause)
	{
		SortGroupClause *sgc = lfirst_node(SortGroupClause, lc);
		TargetEntry *te = get_sortgroupclause_tle(sgc, query->targetList);
		DvSortKey  *sk;
		int			n = 0;
		ListCell   *lt;

		if (te->resjunk || te->resname == NULL)
			return full_plan("ORDER_BY_LIMIT",
							 "ORDER BY ... LIMIT in a subquery is incremental when every sort key is a column of its result.");
		foreach(lt, query->targetList)
		{
			TargetEntry *t = lfirst_node(TargetEntry, lt);

			if (!t->resjunk)
				n++;
			if (t == te)
				break;
		}
		sk = palloc0(sizeof(DvSortKey));
		sk->column = pstrdup(te->resname);
		sk->sortop = sgc->sortop;
		sk->eqop = sgc->eqop;
		sk->nulls_first = sgc->nulls_first;
		sk->collation = exprCollation((Node *) te->expr);
		order = lappend(order, sk);
		pos = lappend_int(pos, n);
		sorted = lappend(sorted, te->resname);
	}
	iq = copyObject(query);
	iq->limitCount = iq->limitOffset = NULL;
	iq->limitOption = LIMIT_OPTION_DEFAULT;
	input = dv_plan_node(iq);
	if (input->kind == DV_PLAN_FULL)
		return input;
	if (input->branches != NIL)
		return full_plan("SET_OPERATION", "The query under a subquery's ORDER BY ... LIMIT is a set operation.");

	/*
	 * rows that tie are alike when the sort keys are every output column, or
	 * hold the input's key (as plan_top_n)
	 */
	/* (tied rows of a column whose equal values print differently are not alike) */
	foreach(lc, query->targetList)
		if (!lfirst_node(TargetEntry, lc)->resjunk &&
			(!name_in(sorted, lfirst_node(TargetEntry, lc)->resname) ||
			 !identity_equality((Node *) lfirst_node(TargetEntry, lc)->expr)))
			all = false;
	if (input->kind == DV_PLAN_GROUPED && input->keys_unique && !input->window_node &&
		!(input->grouped_level && input->grouped_level->groupingSets))
		key = input->key_columns;
	else if (input->kind == DV_PLAN_SPJ)
		key = input->spj_key;
	unique = all;
	if (!all && key != NIL)
	{
		unique = true;
		foreach(lc, key)
			if (!name_in(sorted, lfirst(lc)))
				unique = false;
	}
	if (!unique)
		return full_plan("ORDER_BY_LIMIT",
						 "Rows of a subquery's ORDER BY ... LIMIT can tie in its order without being alike (the sort keys are neither every column nor a key of its rows), so which of them it keeps is up to the plan.");
	input->node_topn = true;
	input->node_topn_count = count;
	input->node_topn_offset = offset;
	input->node_topn_order = order;
	input->node_topn_pos = pos;
	return input;
}

static DvPlan *
plan_level(Query *query, int branch, bool allow_state, bool as_node)
{
	DvPlan	   *plan;
	Query	   *q;
	ListCell   *lc;
	const char *r;
	int			rti;
	List	   *keys = NIL;
	char	   *detail;

	/* a set operation below the top: joins and grouping of its branches (setop.c) */
	if (query->setOperations)
	{
		const char *why;

		/* (its WITH queries inlined into the branches first, where they can be) */
		query = dv_setop_rewrite(pull_up_simple_subqueries(copyObject(query)), &why);
		if (query == NULL)
			return full_plan("SET_OPERATION", "%s", why);
	}
	query = pull_up_simple_subqueries(copyObject(query));
	/* a scalar subquery in HAVING: a condition over the grouped level as a subquery */
	query = dv_optree_split_having(query);
	/* EXISTS, IN and their negations become semi- and anti-joins */
	dv_optree_convert_sublinks(query);
	/* outputs read the sources' columns, not a join's (USING, FULL JOIN's COALESCE) */
	query->targetList = (List *) flatten_join_alias_vars(query, (Node *) query->targetList);
	/* windows without PARTITION BY, or over grouped rows: over their input's delta */
	if (query->hasWindowFuncs && !as_node && branch == 0 &&
		(window_without_partition(query) || query->hasAggs || query->groupClause))
		return plan_window(query);
	if (query->hasWindowFuncs)
	{
		/*
		 * (a subquery operator whose windows share no partition key is one
		 * partition: recomputed over new and old rows when its input changed)
		 */
		if (window_without_partition(query) && !as_node)
			return full_plan("UNSUPPORTED_WINDOW_WITHOUT_PARTITION",
							 "A window function without PARTITION BY depends on every row.");
		if (query->distinctClause || query->groupingSets ||
			((query->hasAggs || query->groupClause) && !as_node))
			return full_plan("WINDOW_FUNCTION", "Window functions over grouped or DISTINCT rows are not incremental yet.");
		if (query->hasAggs || query->groupClause)
		{
			ListCell   *lk;

			/*
			 * a subquery operator over grouped rows: its partitions are found
			 * in its input by a GROUP BY expression they are partitioned by
			 * (whole groups, so whole partitions)
			 */
			foreach(lk, window_partition_keys(query, true))
			{
				TargetEntry *te = lfirst_node(TargetEntry, lk);

				if (te->ressortgroupref != 0 &&
					get_sortgroupref_clause_noerr(te->ressortgroupref, query->groupClause) != NULL)
					keys = lappend(keys, te);
			}
		}
		else
			keys = window_partition_keys(query, false);
		/* partitioned by columns not in the output: the query as a subquery operator */
		if (keys == NIL && !as_node && branch == 0 && !wrapping_window)
			return plan_hidden_partition(query, allow_state);
		/* (a subquery operator's partitions are found in its input, not in a table) */
		if (keys == NIL && as_node && !query->hasAggs && !query->groupClause)
			keys = window_partition_keys(query, true);
		if (keys == NIL && !as_node)
			return full_plan("WINDOW_FUNCTION",
							 "The window functions share no PARTITION BY column that is a column of the result.");
		if (as_node)
		{
			ListCell   *lt;

			foreach(lt, query->targetList)
			{
				TargetEntry *te = lfirst_node(TargetEntry, lt);

				if (contain_window_function((Node *) te->expr) && !IsA(te->expr, WindowFunc))
					return full_plan("SUBQUERY_IN_FROM",
									 "A subquery in FROM whose window function is part of an expression is not incremental yet.");
			}
			if (mutable_aggregate((Node *) query->targetList, NULL))
				return full_plan("VOLATILE_FUNCTION",
								 "An aggregate of the query has a volatile or stable support function, so its result can change while its input does not.");
		}
	}
	if (query->limitCount || query->limitOffset)
		return as_node || branch != 0 ? full_plan("ORDER_BY_LIMIT", "LIMIT and OFFSET in a subquery or a UNION branch are not incremental yet.")
			: plan_top_n(query);
	if (contain_mutable_functions((Node *) query))
		return volatile_plan(query);
	/* (an untouched group keeps its value: its aggregates must not change by themselves) */
	if (mutable_aggregate((Node *) query->targetList, NULL) ||
		mutable_aggregate((Node *) query->havingQual, NULL))
		return full_plan("VOLATILE_FUNCTION",
						 "An aggregate of the query has a volatile or stable support function, so its result can change while its input does not.");
	if (query->hasSubLinks)
		return full_plan("SUBQUERY", "Subqueries in expressions (EXISTS, IN, scalar subqueries) are not incremental yet.");
	if (query->cteList)
		return full_plan("SUBQUERY_IN_FROM", "Recursive WITH queries, and WITH queries that read other WITH queries or are MATERIALIZED, are not incremental yet.");
	/*
	 * A set-returning function in the SELECT list of a level without
	 * grouping makes rows of each row: applied to the delta's rows, each
	 * keeping its weight.
	 */
	if (query->hasTargetSRFs &&
		(query->hasAggs || query->groupClause || query->distinctClause || query->hasWindowFuncs))
		return full_plan("SET_RETURNING_FUNCTION", "Set-returning functions in the SELECT list of a grouped query are not incremental.");
	/*
	 * GROUPING SETS, ROLLUP, CUBE in a subquery operator: its rows recomputed
	 * over its input now (+) and as it was (-) when its input changed
	 * (GROUPED without keys: a row of one set covers the groups of others)
	 */
	if (query->groupingSets && (!as_node || query->hasWindowFuncs || query->distinctClause))
		return full_plan("GROUPING_SETS", "GROUPING SETS, ROLLUP and CUBE under window functions or DISTINCT are not incremental yet.");
	/*
	 * DISTINCT ON keeps, per value of its expressions, the first row in the
	 * ORDER BY: the rows of a value depend on the input rows of that value
	 * only, so the values the input's delta touches are recomputed (GROUPED,
	 * the DISTINCT ON expressions the keys).
	 */
	if (query->hasDistinctOn)
	{
		if (query->hasAggs || query->groupClause || query->hasWindowFuncs)
			return full_plan("DISTINCT_ON", "DISTINCT ON over grouped rows or window functions is not incremental yet.");
		foreach(lc, query->distinctClause)
		{
			TargetEntry *te = get_sortgroupclause_tle(lfirst_node(SortGroupClause, lc), query->targetList);

			if (te->resjunk)
				return full_plan("DISTINCT_ON", "A DISTINCT ON expression is not a column of the result, so its rows cannot be found in the table.");
			keys = lappend(keys, te);
		}
	}
	if (query->rowMarks)
		return full_plan("LOCKING_CLAUSE", "Locking clauses are not supported.");
	r = check_jointree(query, (Node *) query->jointree);
	if (r && strcmp(r, "SUBQUERY_IN_FROM") == 0)
	{
		/*
		 * a filter over one grouped subquery keeps its groups' keys; else
		 * operators.  (Not for a level planned as an operator: its delta
		 * must have the level's own columns, which the subquery's grouped
		 * plan does not give when the level projects them otherwise.)
		 */
		if (!as_node)
		{
			DvPlan	   *over = plan_over_subquery(query, branch);

			if (over->kind != DV_PLAN_FULL)
				return over;
		}
	}
	else if (r)
		return full_plan(r, "%s", reason_text(r));
	if (query->jointree->fromlist == NIL)
		return full_plan("NO_SOURCE", "The query reads no table.");

	/* the group keys, by output column name (windows: their common partition keys) */
	if (keys != NIL || query->hasWindowFuncs || query->groupingSets)
		;						/* (a window's keys are its partitions', or none) */
	else if (query->groupClause != NIL)
	{
		foreach(lc, query->groupClause)
		{
			SortGroupClause *sgc = lfirst_node(SortGroupClause, lc);
			TargetEntry *te = get_sortgroupclause_tle(sgc, query->targetList);

			if (te->resjunk)
				return full_plan("GROUP_KEY_NOT_IN_OUTPUT",
								 "A GROUP BY expression is not a column of the result, so its groups cannot be found in the table.");
			keys = lappend(keys, te);
		}
	}
	else if (query->hasAggs && !as_node && !(allow_state && agg_state_eligible(query, NIL, NULL)))
		return full_plan("GLOBAL_AGGREGATE",
						 "An aggregate without GROUP BY is incremental only with count, sum and avg of integers or numeric, min, max, count(DISTINCT), bool_and, bool_or, every, and variance and stddev of integers or numeric, without HAVING.");
	else if (query->distinctClause != NIL)
	{
		foreach(lc, query->targetList)
		{
			TargetEntry *te = lfirst_node(TargetEntry, lc);

			if (!te->resjunk)
				keys = lappend(keys, te);
		}
	}

	foreach(lc, keys)
	{
		Oid			type = exprType((Node *) lfirst_node(TargetEntry, lc)->expr);

		if (!key_type_has_equality(type))
			return full_plan("GROUP_KEY_NO_EQUALITY",
							 "A GROUP BY or DISTINCT column of type %s has no = operator that SQL can name (a domain over an enum or a range, or an array of a domain): PostgreSQL groups it through its operator class, but a refresh finds the changed groups by =.",
							 format_type_be(type));
	}

	foreach(lc, query->targetList)
	{
		TargetEntry *te = lfirst_node(TargetEntry, lc);

		if (!te->resjunk && te->resname &&
			(strcmp(te->resname, "dv_weight") == 0 || strcmp(te->resname, "dv_row") == 0))
			return full_plan("RESERVED_COLUMN_NAME", "Output columns named dv_weight or dv_row are reserved by dynview.");
	}

	/*
	 * (A group key whose equality is not identity, 0 and -0 say, is fine:
	 * the affected groups are found by the type's equality and recomputed,
	 * and rows are written when their text differs; only an aggregate state
	 * would keep one spelling, see agg_state_eligible.)
	 */
	plan = palloc0(sizeof(DvPlan));
	plan->kind = keys != NIL || query->hasAggs || query->groupingSets ||
		(as_node && query->hasWindowFuncs) ? DV_PLAN_GROUPED : DV_PLAN_SPJ;
	plan->keys_unique = !query->hasWindowFuncs;
	plan->agg_state = allow_state && !query->hasWindowFuncs && !query->hasDistinctOn &&
		(query->hasAggs || query->groupClause || query->distinctClause) &&
		agg_state_eligible(query, keys, plan);
	q = copyObject(query);

	/* the sources: every relation of the (one-level) range table */
	rti = 0;
	foreach(lc, q->rtable)
	{
		RangeTblEntry *rte = lfirst_node(RangeTblEntry, lc);
		DvPlanSource *src;

		rti++;
		/* (a pulled-up view's range table keeps its unreferenced OLD/NEW entries) */
		if (rte->rtekind != RTE_RELATION || rte->relkind == RELKIND_VIEW)
			continue;
		if (get_rel_namespace(rte->relid) == PG_CATALOG_NAMESPACE)
			return full_plan("SYSTEM_CATALOG_SOURCE", "System catalogs are not captured.");
		src = palloc0(sizeof(DvPlanSource));
		src->rtindex = rti;
		src->relid = rte->relid;
		src->only = !rte->inh;
		src->qualified = quote_qualified_identifier(get_namespace_name(get_rel_namespace(rte->relid)),
													get_rel_name(rte->relid));
		src->enr_name = psprintf("dv_delta_%d_%d", branch, rti);
		src->delta_rows = -1;
		if (bms_is_member(InvalidAttrNumber - FirstLowInvalidHeapAttributeNumber, rte->selectedCols))
			return full_plan("WHOLE_ROW_REFERENCE",
							 "The query uses a whole row of \"%s\" as a value; only its columns are captured.",
							 get_rel_name(rte->relid));
		{
			int			first = bms_next_member(rte->selectedCols, -1);

			if (first >= 0 && first < InvalidAttrNumber - FirstLowInvalidHeapAttributeNumber)
				return full_plan("SYSTEM_COLUMN",
								 "The query reads a system column (ctid, xmin, ...) of \"%s\", which change capture does not have.",
								 get_rel_name(rte->relid));
		}
		/* (dynamic tables are always permanent) */
		if (rte->relkind == RELKIND_RELATION &&
			get_rel_persistence(rte->relid) != RELPERSISTENCE_PERMANENT)
			return full_plan("SOURCE_NOT_CAPTURED",
							 "\"%s\" is not WAL-logged (unlogged or temporary): its changes are not captured.",
							 get_rel_name(rte->relid));
		/* (a partition created or attached unlogged or foreign later: planned again then) */
		if (rte->inh && rte->relkind == RELKIND_PARTITIONED_TABLE &&
			!dv_partition_tree_capturable(rte->relid))
			return full_plan("SOURCE_NOT_CAPTURED",
							 dv_is_partitioned_dynamic_table(rte->relid) ?
							 "\"%s\" is a partitioned dynamic table: its partitions' changes are not captured for the tables that read it." :
							 "\"%s\" has a partition whose changes are not captured (an unlogged, temporary or foreign table).",
							 get_rel_name(rte->relid));
		if (!rte->inh && rte->relkind == RELKIND_PARTITIONED_TABLE)
			return full_plan("PARTITIONED_ONLY",
							 "\"%s\" is partitioned and read with ONLY, which reads none of its partitions' rows; its captured changes are its partitions'.",
							 get_rel_name(rte->relid));
		/* (inheritance children are captured with their parent: cdc/partitions.c) */
		if (rte->inh && rte->relkind == RELKIND_RELATION && has_subclass(rte->relid) &&
			!dv_partition_tree_capturable(rte->relid))
			return full_plan("INHERITANCE_CHILDREN",
							 "\"%s\" has an inheritance child whose changes are not captured (an unlogged, temporary or foreign table; read it with ONLY to use the parent's rows alone).",
							 get_rel_name(rte->relid));
		if (rte->tablesample)
			return full_plan("TABLESAMPLE", "TABLESAMPLE depends on where rows are stored, not on their changes.");

		src->columns = dv_column_names(rte->relid, dv_captured_columns(rte));
		{
			ListCell   *lcol;

			foreach(lcol, src->columns)
			{
				const char *col = strVal(lfirst(lcol));

				if (dv_buffer_meta_column(col))
					return full_plan("RESERVED_COLUMN_NAME",
									 "Source column \"%s\" of \"%s\" has the name of a change buffer's own column, so it is not captured.",
									 col, get_rel_name(rte->relid));
			}
		}
		plan->sources = lappend(plan->sources, src);
	}

	plan->tree = dv_optree_build(q, plan->sources, &r, &detail);
	if (plan->tree == NULL)
		return full_plan(r, "%s", detail ? detail : reason_text(r));
	/* the sources of subqueries planned as operators have windows too */
	plan->sources = list_concat(plan->sources, dv_optree_nested_sources(plan->tree));
	if (plan->sources == NIL)
		return full_plan("NO_SOURCE", "The query reads no table.");
	if (as_node && plan->kind == DV_PLAN_GROUPED && query->hasDistinctOn && !query->hasWindowFuncs)
	{
		/*
		 * DISTINCT ON in a subquery operator: the values its input's delta
		 * has recomputed (optree.c group_sql_over), the first row of each
		 * in the level's ORDER BY, which must tell apart rows that are not
		 * alike: every output column sorted
		 */
		List	   *sorted = NIL;

		foreach(lc, query->sortClause)
			sorted = lappend(sorted, get_sortgroupclause_tle(lfirst_node(SortGroupClause, lc), query->targetList));
		foreach(lc, query->targetList)
		{
			if (!lfirst_node(TargetEntry, lc)->resjunk && !list_member_ptr(sorted, lfirst(lc)))
				return full_plan("DISTINCT_ON",
								 "DISTINCT ON in a subquery is incremental when its ORDER BY sorts every output column, so that the row it keeps of each value does not depend on the plan.");
			if (!lfirst_node(TargetEntry, lc)->resjunk &&
				!identity_key((Node *) lfirst_node(TargetEntry, lc)->expr))
				return full_plan("DISTINCT_ON", "%s", NONIDENTITY_KEY_REASON);
		}
		plan->grouped_level = query;
	}
	else if (as_node && plan->kind == DV_PLAN_GROUPED && query->hasWindowFuncs)
	{
		/* a window's partitions, for the GROUP operator that reads it (optree.c) */
		plan->grouped_level = query;
		plan->window_node = true;
	}
	else if (plan->kind == DV_PLAN_GROUPED && !query->hasWindowFuncs && !query->hasDistinctOn &&
		!(query->groupClause && query->distinctClause))
	{
		/* the level with its grouping, for a GROUP operator in the query that reads it */
		plan->grouped_level = query;
		query->havingQual = flatten_join_alias_vars(query, query->havingQual);
	}
	/* (a set-returning function repeats a row's key) */
	if (plan->kind == DV_PLAN_SPJ && !query->hasTargetSRFs)
		plan->spj_key = dv_optree_unique_key(q, plan->tree);

	/* the input whose delta is computed: SPJ as is; GROUPED: its group keys */
	if (plan->agg_state)
	{
		count_distinct_over_keys(plan, q);
		agg_state_input(plan, q, keys);
	}
	else if (plan->kind == DV_PLAN_GROUPED)
	{
		List	   *tl = NIL;
		int			resno = 1;

		foreach(lc, keys)
		{
			TargetEntry *te = copyObject((TargetEntry *) lfirst(lc));

			te->resno = resno++;
			te->ressortgroupref = 0;
			/* (a window's partition key that is not an output column has no name) */
			plan->key_columns = lappend(plan->key_columns,
										te->resname ? pstrdup(te->resname) :
										IsA(te->expr, Var) && ((Var *) te->expr)->varlevelsup == 0 ?
										get_rte_attribute_name(rt_fetch(((Var *) te->expr)->varno, q->rtable),
															   ((Var *) te->expr)->varattno) :
										pstrdup("?expression?"));
			tl = lappend(tl, te);
		}
		q->targetList = tl;
		strip_grouping(q);
		q->groupingSets = NIL;
	}
	else
	{
		/* ORDER BY does not matter for a table */
		q->sortClause = NIL;
	}
	plan->level = q;
	plan->input_tlist = q->targetList;
	return plan;
}

/*
 * optree_sql - the SQL of the plan's input over its operator tree: the
 * delta, or the rows at the snapshot (weight 1).  Deparsed with the
 * search_path and output styles that the refresh runs with.
 */
static char *
optree_sql(DvPlan *plan, bool delta)
{
	int			nestlevel = NewGUCNestLevel();
	char	   *sql;

	(void) set_config_option("search_path", DV_SAFE_SEARCH_PATH,
							 PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
	dv_set_output_styles();	/* constants are read back in these styles */
	sql = delta ? dv_optree_delta_sql(plan->level, plan->tree, plan->input_tlist)
		: dv_optree_new_sql(plan->level, plan->tree, plan->input_tlist);
	AtEOXact_GUC(true, nestlevel);
	return sql;
}

/*
 * dv_delta_sql - the SQL of the input's delta: rows of the SPJ query (or of
 * the group keys, or the aggregates' inputs) with their weight in column
 * dv_weight; of a UNION ALL (set operation, grouping sets) the branches'
 * deltas, of a top-N query its input's changed rows.
 */
char *
dv_delta_sql(DvPlan *plan)
{
	StringInfoData sql;
	ListCell   *lci;

	if (plan->kind == DV_PLAN_TOPN)
		return dv_node_delta_sql(plan->topn_input);
	if (plan->kind == DV_PLAN_WINDOW)
		return dv_node_delta_sql(plan->window_input);
	initStringInfo(&sql);
	if (plan->branches != NIL)
	{
		/* UNION ALL: the branches' deltas, each with its own columns' names */
		foreach(lci, plan->branches)
		{
			DvPlan	   *b = lfirst(lci);
			bool		any = false;
			ListCell   *lcs;

			foreach(lcs, b->sources)
				any |= ((DvPlanSource *) lfirst(lcs))->delta_rows != 0;
			if (any)
			{
				/* named as the result, whichever branch comes first */
				StringInfoData names;
				ListCell   *lcn;

				initStringInfo(&names);
				foreach(lcn, plan->output_names)
					appendStringInfo(&names, "%s, ", quote_identifier(lfirst(lcn)));
				appendStringInfo(&sql, "%sSELECT * FROM (%s) dv_b(%sdv_weight)",
								 sql.len > 0 ? " UNION ALL " : "", dv_node_delta_sql(b), names.data);
			}
		}
		if (sql.len == 0)
			elog(ERROR, "dynview: delta requested with every source's delta empty");
		return sql.data;
	}
	return optree_sql(plan, true);
}

/* text with every line indented by n spaces */
static char *
indent_text(const char *text, int n)
{
	StringInfoData buf;
	const char *p = text;

	initStringInfo(&buf);
	while (*p)
	{
		const char *nl = strchr(p, '\n');
		int			len = nl ? nl - p + 1 : strlen(p);

		appendStringInfoSpaces(&buf, n);
		appendBinaryStringInfo(&buf, p, len);
		p += len;
	}
	return buf.data;
}

/*
 * grouping_text - the grouping step of a GROUPED plan, for explain(): which
 * groups a refresh touches and how it gets their new rows, so that the
 * reader sees what a change costs (the operators below it give the delta
 * whose keys pick the groups).
 */
static char *
grouping_text(DvPlan *plan)
{
	StringInfoData keys;
	ListCell   *lc;

	initStringInfo(&keys);
	foreach(lc, plan->key_columns)
		appendStringInfo(&keys, "%s%s", foreach_current_index(lc) ? ", " : "",
						 quote_identifier(lfirst(lc)));
	if (plan->agg_state && plan->key_columns == NIL)
		return pstrdup("aggregate without GROUP BY: state kept in place, the delta below added to it");
	if (plan->agg_state)
		return psprintf("group by %s: aggregate state kept in place per group, the delta below added to it", keys.data);
	if (!plan->keys_unique)
		return psprintf("window partitioned by %s: the partitions whose keys the delta below has, recomputed", keys.data);
	if (plan->key_columns == NIL)
		return pstrdup("aggregate without GROUP BY: recomputed when the delta below is not empty");
	if (plan->branches != NIL)
		return psprintf("set operation on every column (%s): the rows whose values the branches' deltas have, recomputed", keys.data);
	if (plan->node_op && plan->node_op->state_id > 0)
		return psprintf("group by %s, aggregates kept in state: state dynview_state.%s, per group its input rows and its aggregates' non-NULL counts and exact sums; the groups whose keys the delta below has, old rows from the state (-), new rows from the state plus the aggregated delta (+)",
						keys.data, quote_identifier(psprintf("ext_<table oid>_%d", plan->node_op->state_id)));
	return psprintf("group by %s: the groups whose keys the delta below has, recomputed", keys.data);
}

/*
 * dv_window_order_sql - the window's ORDER BY (a WINDOW plan without
 * PARTITION BY) over the columns of alias, operators and collations
 * written out so that the refresh's search_path does not matter.
 */
char *
dv_window_order_sql(DvPlan *plan, const char *alias)
{
	StringInfoData buf;
	ListCell   *lc;

	initStringInfo(&buf);
	foreach(lc, plan->window_order)
	{
		DvSortKey  *key = lfirst(lc);

		appendStringInfo(&buf, "%s%s.%s%s USING %s NULLS %s", buf.len ? ", " : "",
						 alias, quote_identifier(key->column), collate_sql(key->collation),
						 dv_operator_sql(key->sortop), key->nulls_first ? "FIRST" : "LAST");
	}
	return buf.data;
}

/* the window step of a WINDOW plan, for explain() */
static char *
window_text(DvPlan *plan)
{
	StringInfoData buf;
	ListCell   *lc;

	initStringInfo(&buf);
	if (plan->window_order == NIL)
	{
		foreach(lc, plan->key_columns)
			appendStringInfo(&buf, "%s%s", foreach_current_index(lc) ? ", " : "",
							 quote_identifier(lfirst(lc)));
		return psprintf("window partitioned by %s over grouped rows: the partitions whose keys the changed rows below have (old and new), recomputed",
						buf.data);
	}
	foreach(lc, plan->window_order)
	{
		DvSortKey  *key = lfirst(lc);

		appendStringInfo(&buf, "%s%s USING %s NULLS %s", foreach_current_index(lc) ? ", " : "",
						 quote_identifier(key->column), get_opname(key->sortop),
						 key->nulls_first ? "FIRST" : "LAST");
	}
	return psprintf("window without PARTITION BY, ordered by %s: rows before the first changed row below (old or new) keep their values; the rows from it on (its peers included) recomputed",
					buf.data);
}

/*
 * dv_plan_tree_text - the operator trees of the plan for explain(): the
 * level's, or each branch's (UNION ALL, set operations, grouping sets),
 * under the step that groups them (GROUP BY, DISTINCT, a window, top-N);
 * NULL for FULL.
 */
char *
dv_plan_tree_text(DvPlan *plan)
{
	StringInfoData buf;
	ListCell   *lc;
	char	   *tree;

	if (plan->kind == DV_PLAN_FULL)
		return NULL;
	if (plan->kind == DV_PLAN_TOPN)
	{
		if (plan->topn_state_rows > 0)
			return psprintf("top %lld rows by %s, with state dynview_state.topn_<table oid>: the input's first rows up to %lld, all of those that sort strictly before a bound row (dynview_state.topnb_<table oid>; none when the state holds the whole input); the changed rows that sort before the bound are added to the state, and its first %lld rows are the new table; recomputed from the input (LIMIT %lld) when the state holds fewer than %lld rows%s\n%s",
							(long long) plan->topn_rows, plan->topn_order, (long long) plan->topn_state_rows,
							(long long) plan->topn_rows, (long long) plan->topn_state_rows + 1,
							(long long) plan->topn_rows,
							plan->topn_unique_order ? "" : ", or its rows tie at the limit (rows that tie need not be alike)",
							indent_text(dv_plan_tree_text(plan->topn_input), 2));
		if (plan->topn_offset == 0)
			return psprintf("top %lld rows by %s: a change that sorts after the table's last row writes nothing; one that reaches the held rows is added to them, and their first %lld rows are the new table when the last of them sorts %s, or the table held every row; otherwise recomputed\n%s",
							(long long) plan->topn_rows, plan->topn_order, (long long) plan->topn_rows,
							plan->topn_unique_order ? "before or with the old last row (rows that tie are alike)"
							: "before the old last row and before the next of them (rows that tie need not be alike)",
							indent_text(dv_plan_tree_text(plan->topn_input), 2));
		return psprintf("top %lld rows%s by %s: recomputed only when a changed row sorts before or with the table's last row, or the table holds fewer than %lld rows\n%s",
						(long long) plan->topn_rows,
						plan->topn_offset > 0 ? psprintf(" after the first %lld", (long long) plan->topn_offset) : "",
						plan->topn_order, (long long) plan->topn_rows,
						indent_text(dv_plan_tree_text(plan->topn_input), 2));
	}
	if (plan->kind == DV_PLAN_WINDOW)
		return psprintf("%s\n%s", window_text(plan), indent_text(dv_plan_tree_text(plan->window_input), 2));
	if (plan->branches == NIL)
		tree = dv_optree_explain(plan->level, plan->tree);
	else
	{
		initStringInfo(&buf);
		foreach(lc, plan->branches)
		{
			DvPlan	   *b = lfirst(lc);

			appendStringInfo(&buf, "%sbranch %d:\n%s", buf.len ? "\n" : "", foreach_current_index(lc) + 1,
							 indent_text(dv_plan_tree_text(b), 2));
		}
		tree = buf.data;
	}
	if (plan->kind == DV_PLAN_GROUPED)
		return psprintf("%s\n%s", grouping_text(plan), indent_text(tree, 2));
	return tree;
}

/*
 * dv_input_sql - the input of an aggregate-state plan over the sources as
 * they are at the statement's snapshot: the tree's rows, weight 1.
 */
char *
dv_input_sql(DvPlan *plan)
{
	return optree_sql(plan, false);
}

/*
 * dv_state_projection_sql - the result's rows computed from the state table
 * state_relid: the query level with its group keys and aggregates replaced
 * by the state's columns (deparsed, names qualified).
 *
 * Every incremental refresh of a table with aggregate state asks for it
 * (its affected groups are recomputed from the state): the text is kept in
 * the plan (projection_sql, in the plan's memory context) for the state
 * table it was made for, and made again for another one (a state rebuilt
 * is a new table).  Deparsed under a fixed search_path and output styles,
 * it depends on the plan and that table's column names only, and a plan
 * is dropped from the plan cache when a function, type, operator,
 * collation or schema changes (plancache.c), so a kept text never names
 * what is no longer there.  The deparse was ~0.07 ms of each refresh of
 * the dashboard's GMV layer (bench/README.md, twentieth session).
 * Returns the kept text: the caller must not change it.
 */
char *
dv_state_projection_sql(DvPlan *plan, Oid state_relid)
{
	Query	   *p;
	RangeTblEntry *rte;
	RangeTblRef *rtr;
	Relation	rel;
	List	   *colnames = NIL;
	char	   *sql;
	int			nestlevel;

	if (plan->projection_sql != NULL && plan->projection_state == state_relid)
		return plan->projection_sql;
	p = copyObject(plan->state_query);
	rte = makeNode(RangeTblEntry);
	rtr = makeNode(RangeTblRef);
	rel = relation_open(state_relid, AccessShareLock);

	for (int i = 0; i < RelationGetDescr(rel)->natts; i++)
		colnames = lappend(colnames, makeString(pstrdup(NameStr(TupleDescAttr(RelationGetDescr(rel), i)->attname))));
	relation_close(rel, AccessShareLock);
	rte->rtekind = RTE_RELATION;
	rte->relid = state_relid;
	rte->relkind = RELKIND_RELATION;
	rte->rellockmode = AccessShareLock;
	rte->alias = makeAlias("dv_s", NIL);
	rte->eref = makeAlias("dv_s", colnames);
	rte->inh = false;
	rte->inFromCl = true;
	rte->requiredPerms = ACL_SELECT;
	rtr->rtindex = 1;
	p->rtable = list_make1(rte);
	p->jointree = makeFromExpr(list_make1(rtr), NULL);
	p->cteList = NIL;
	p->rowMarks = NIL;

	nestlevel = NewGUCNestLevel();
	(void) set_config_option("search_path", DV_SAFE_SEARCH_PATH,
							 PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
	dv_set_output_styles();	/* constants are read back in these styles */
	sql = pg_get_querydef(p, false);
	AtEOXact_GUC(true, nestlevel);
	/* (the old text may still be in use by a caller: left to the plan's context) */
	plan->projection_sql = MemoryContextStrdup(GetMemoryChunkContext(plan), sql);
	plan->projection_state = state_relid;
	return plan->projection_sql;
}
