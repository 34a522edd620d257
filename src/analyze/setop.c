/*-------------------------------------------------------------------------
 *
 * setop.c
 *	  Set operations as operators of the compositional engine: a set
 *	  operation tree rewritten into full joins ON false (UNION ALL) and
 *	  grouped levels with counts per value (the others), see setop.h.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "nodes/parsenodes.h"
#include "parser/analyze.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteHandler.h"
#include "tcop/tcopprot.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/ruleutils.h"

#include "dynview.h"
#include "analyze/delta.h"
#include "analyze/setop.h"

/*
 * does the subtree read a level above the one it starts at (a Var, an
 * aggregate or a WITH query of an outer level)?  *depth: the number of
 * query levels entered below the start, -1 before the start itself.
 */
static bool
outer_ref_walker(Node *node, int *depth)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
		return (int) ((Var *) node)->varlevelsup > *depth;
	if (IsA(node, Aggref))
	{
		if ((int) ((Aggref *) node)->agglevelsup > *depth)
			return true;
	}
	if (IsA(node, GroupingFunc))
	{
		if ((int) ((GroupingFunc *) node)->agglevelsup > *depth)
			return true;
	}
	if (IsA(node, RangeTblEntry))
	{
		RangeTblEntry *rte = (RangeTblEntry *) node;

		return (rte->rtekind == RTE_CTE && (int) rte->ctelevelsup > *depth) ||
			rte->securityQuals != NIL ||
			(rte->rtekind == RTE_RELATION && OidIsValid(rte->checkAsUser) &&
			 rte->checkAsUser != GetUserId());
	}
	if (IsA(node, Query))
	{
		bool		found;

		(*depth)++;
		found = query_tree_walker((Query *) node, outer_ref_walker, (void *) depth,
								  QTW_EXAMINE_RTES_BEFORE);
		(*depth)--;
		return found;
	}
	return expression_tree_walker(node, outer_ref_walker, (void *) depth);
}

/* "1, ..., n": the output columns by position (GROUP BY) */
static char *
positions(int n)
{
	StringInfoData buf;

	initStringInfo(&buf);
	for (int i = 1; i <= n; i++)
		appendStringInfo(&buf, "%s%d", i > 1 ? ", " : "", i);
	return buf.data;
}

/* "v1, ..., vn" qualified by alias (NULL: not qualified) */
static char *
column_list(const char *alias, int n)
{
	StringInfoData buf;

	initStringInfo(&buf);
	for (int i = 1; i <= n; i++)
		appendStringInfo(&buf, "%s%s%sv%d", i > 1 ? ", " : "", alias ? alias : "", alias ? "." : "", i);
	return buf.data;
}

/*
 * one side of a set operation: its child's rows (columns v1..vn) cast to
 * the operation's column types, typmods and collations, and the tag dv_in
 * (1), as a subquery named alias
 */
static char *
side_sql(const char *child, SetOperationStmt *op, const char *alias)
{
	StringInfoData buf;
	ListCell   *lt,
			   *lm,
			   *lc;
	int			i = 0;

	initStringInfo(&buf);
	appendStringInfoString(&buf, "(SELECT ");
	forthree(lt, op->colTypes, lm, op->colTypmods, lc, op->colCollations)
	{
		Oid			coll = lfirst_oid(lc);

		i++;
		appendStringInfo(&buf, "CAST(x.v%d AS %s)", i,
						 format_type_extended(lfirst_oid(lt), lfirst_int(lm),
											  FORMAT_TYPE_TYPEMOD_GIVEN | FORMAT_TYPE_FORCE_QUALIFY));
		if (OidIsValid(coll))
			appendStringInfo(&buf, " COLLATE %s", generate_collation_name(coll));
		appendStringInfo(&buf, " AS v%d, ", i);
	}
	appendStringInfo(&buf, "1 AS dv_in FROM (%s) x(%s)) %s", child, column_list(NULL, i), alias);
	return buf.data;
}

/*
 * the SQL of a node of the set operation tree, its columns named v1..vn:
 * a leaf's query deparsed, or the operation over its two sides
 */
static char *
node_sql(Query *top, Node *node, const char **why)
{
	SetOperationStmt *op;
	char	   *l;
	char	   *r;
	StringInfoData cases;
	StringInfoData buf;
	const char *name;
	int			n;

	if (IsA(node, RangeTblRef))
	{
		Query	   *leaf = rt_fetch(((RangeTblRef *) node)->rtindex, top->rtable)->subquery;
		int			depth = -1;

		if (outer_ref_walker((Node *) leaf, &depth))
		{
			*why = "A branch of the set operation reads a column or a WITH query of an outer query level, a table under row-level security, or a view owned by another role.";
			return NULL;
		}
		return pg_get_querydef(leaf, false);
	}
	op = (SetOperationStmt *) node;
	l = node_sql(top, op->larg, why);
	if (l == NULL)
		return NULL;
	r = node_sql(top, op->rarg, why);
	if (r == NULL)
		return NULL;
	n = list_length(op->colTypes);

	initStringInfo(&cases);
	for (int i = 1; i <= n; i++)
		appendStringInfo(&cases, "%sCASE WHEN dv_left.dv_in IS NOT NULL THEN dv_left.v%d ELSE dv_right.v%d END AS v%d",
						 i > 1 ? ", " : "", i, i, i);
	l = side_sql(l, op, "dv_left");
	r = side_sql(r, op, "dv_right");
	initStringInfo(&buf);
	if (op->op == SETOP_UNION && op->all)
	{
		appendStringInfo(&buf, "SELECT %s FROM %s FULL JOIN %s ON false", cases.data, l, r);
		return buf.data;
	}
	if (!op->all)
	{
		appendStringInfo(&buf, "SELECT %s FROM %s FULL JOIN %s ON false GROUP BY %s", cases.data, l, r,
						 positions(n));
		if (op->op == SETOP_INTERSECT)
			appendStringInfoString(&buf, " HAVING pg_catalog.count(dv_left.dv_in) > 0 AND pg_catalog.count(dv_right.dv_in) > 0");
		else if (op->op == SETOP_EXCEPT)
			appendStringInfoString(&buf, " HAVING pg_catalog.count(dv_left.dv_in) > 0 AND pg_catalog.count(dv_right.dv_in) = 0");
		return buf.data;
	}
	/* INTERSECT ALL, EXCEPT ALL: a row per unit of the multiplicity */
	name = op->op == SETOP_INTERSECT ? "dv_intersect_all" : "dv_except_all";
	appendStringInfo(&buf, "SELECT %s FROM (SELECT %s, %s AS dv_n FROM %s FULL JOIN %s ON false GROUP BY %s HAVING %s) %s "
					 "CROSS JOIN LATERAL pg_catalog.generate_series(1::pg_catalog.int8, %s.dv_n) dv_copy",
					 column_list(name, n), cases.data,
					 op->op == SETOP_INTERSECT
					 ? "LEAST(pg_catalog.count(dv_left.dv_in), pg_catalog.count(dv_right.dv_in))"
					 : "pg_catalog.count(dv_left.dv_in) - pg_catalog.count(dv_right.dv_in)",
					 l, r, positions(n),
					 op->op == SETOP_INTERSECT
					 ? "pg_catalog.count(dv_left.dv_in) > 0 AND pg_catalog.count(dv_right.dv_in) > 0"
					 : "pg_catalog.count(dv_left.dv_in) > pg_catalog.count(dv_right.dv_in)",
					 name, name);
	return buf.data;
}

/* the name a set operation's subquery has in the rewritten query (explain shows it) */
static const char *
op_name(SetOperationStmt *op)
{
	switch (op->op)
	{
		case SETOP_UNION:
			return op->all ? "dv_union_all" : "dv_union";
		case SETOP_INTERSECT:
			return op->all ? "dv_intersect_all" : "dv_intersect";
		case SETOP_EXCEPT:
			return op->all ? "dv_except_all" : "dv_except";
		default:
			return "dv_setop";
	}
}

/* is node a tree of UNION ALL only (no value kept once per equal value)? */
static bool
union_all_tree(Node *node)
{
	SetOperationStmt *op;

	if (!IsA(node, SetOperationStmt))
		return true;
	op = (SetOperationStmt *) node;
	return op->op == SETOP_UNION && op->all && union_all_tree(op->larg) && union_all_tree(op->rarg);
}

Query *
dv_setop_rewrite(Query *query, const char **why)
{
	SetOperationStmt *top = (SetOperationStmt *) query->setOperations;
	StringInfoData sql;
	char	   *body;
	int			nestlevel;
	int			i = 0;
	ListCell   *lc;
	List	   *raw;
	List	   *rewritten;
	Query	   *q;

	*why = NULL;
	if (top == NULL || !IsA(top, SetOperationStmt))
		elog(ERROR, "dv_setop_rewrite: not a set operation");
	if (query->cteList != NIL)
	{
		*why = "A set operation whose WITH query is not inlined into its branches (MATERIALIZED, recursive) is not incremental as a subquery yet.";
		return NULL;
	}
	if (query->limitCount || query->limitOffset || query->rowMarks)
	{
		*why = "LIMIT, OFFSET or a locking clause over a set operation in a subquery is not incremental yet.";
		return NULL;
	}
	if (list_length(top->colTypes) == 0)
	{
		*why = "A set operation without columns is not incremental.";
		return NULL;
	}
	if (!union_all_tree((Node *) top))
	{
		ListCell   *lt,
				   *lm,
				   *lcoll;

		/*
		 * one row per value: recomputed over the branches now and as they
		 * were, the old row of a value whose equal values print differently
		 * could be another spelling than the table's (dv_plan_node)
		 */
		forthree(lt, top->colTypes, lm, top->colTypmods, lcoll, top->colCollations)
		{
			if (!dv_equality_is_identity(lfirst_oid(lt), lfirst_int(lm), lfirst_oid(lcoll)))
			{
				*why = "A set operation below the top of the query over a column whose equal values can print differently (numeric without a declared scale, float, interval, jsonb, a nondeterministic collation) is not incremental: which spelling it keeps is up to the plan.";
				return NULL;
			}
		}
	}

	/*
	 * Deparse with a search_path that qualifies every name outside
	 * pg_catalog and the output styles that constants are read back in, and
	 * analyse the text under the same settings.
	 */
	nestlevel = NewGUCNestLevel();
	(void) set_config_option("search_path", DV_SAFE_SEARCH_PATH,
							 PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
	dv_set_output_styles();
	body = node_sql(query, (Node *) top, why);
	if (body == NULL)
	{
		AtEOXact_GUC(true, nestlevel);
		return NULL;
	}
	initStringInfo(&sql);
	appendStringInfoString(&sql, "SELECT ");
	foreach(lc, query->targetList)
	{
		TargetEntry *te = lfirst_node(TargetEntry, lc);

		if (te->resjunk)
			continue;
		i++;
		appendStringInfo(&sql, "%s%s.v%d AS %s", i > 1 ? ", " : "", op_name(top), i,
						 quote_identifier(te->resname ? te->resname : "?column?"));
	}
	appendStringInfo(&sql, " FROM (%s) %s", body, op_name(top));
	raw = pg_parse_query(sql.data);
	q = parse_analyze_fixedparams(linitial_node(RawStmt, raw), sql.data, NULL, 0, NULL);
	rewritten = QueryRewrite(q);
	AtEOXact_GUC(true, nestlevel);
	if (list_length(rewritten) != 1)
		elog(ERROR, "dynview: the rewritten set operation is not one query");
	q = linitial_node(Query, rewritten);
	/* (ORDER BY over the set operation does not matter for its rows) */
	return q;
}
