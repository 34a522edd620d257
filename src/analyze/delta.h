/*-------------------------------------------------------------------------
 *
 * delta.h
 *	  The incremental plan of a dynamic table's query (delta.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DYNVIEW_DELTA_H
#define DYNVIEW_DELTA_H

#include "nodes/parsenodes.h"

typedef enum DvPlanKind
{
	DV_PLAN_FULL,				/* refreshed in full: reason_code says why */
	DV_PLAN_SPJ,				/* scan, filter, project, inner joins */
	DV_PLAN_GROUPED				/* the same under GROUP BY / DISTINCT: affected groups */
} DvPlanKind;

/* One source occurrence (range table entry) of the query */
typedef struct DvPlanSource
{
	int			rtindex;
	Oid			relid;
	bool		only;			/* FROM ONLY */
	char	   *qualified;		/* schema.name as deparsed */
	char	   *marker;			/* alias in the template: dv_src_<rtindex> */
	char	   *enr_name;		/* its window's relation: dv_delta_<branch>_<rtindex> */
	List	   *columns;		/* String names of the columns read */
	int64		delta_rows;		/* rows in its window (-1: not read yet) */
} DvPlanSource;

typedef struct DvPlan
{
	DvPlanKind	kind;
	const char *reason_code;	/* FULL only */
	char	   *reason;
	List	   *sources;		/* of DvPlanSource * */
	List	   *key_columns;	/* GROUPED: output column names of the keys */
	bool		keys_unique;	/* GROUPED: one row per key (GROUP BY, DISTINCT); not for windows */
	List	   *key_delta_names;	/* GROUPED: the key columns' names in the delta (NIL: key_columns) */
	char	   *template_sql;	/* the input query with markers */
	List	   *branches;		/* UNION ALL: the SPJ plan of each branch (no template) */
	List	   *output_names;	/* UNION ALL: the result's column names (char *) */
} DvPlan;

extern DvPlan *dv_plan_query(Query *query);
extern char *dv_delta_sql(DvPlan *plan);

#endif							/* DYNVIEW_DELTA_H */
