/*-------------------------------------------------------------------------
 *
 * statements.c
 *	  Per-backend cache of the prepared statements of incremental refreshes
 *	  (issue 13: "SQL per operator ... planned once per table and cached";
 *	  issue 14: the per-refresh cost of the dashboard pipeline).
 *
 * An incremental refresh runs a few dozen generated statements (the delta
 * of the operator tree, the apply of the table, the aggregate state, the
 * operator states).  Their text depends on the table's refresh plan
 * (plancache.c), on which sources changed and on the statement's shape (a
 * window of inserts only runs no DELETE), not on the window's bounds, which
 * are read into ephemeral named relations first (dv_register_tuples) or
 * passed as parameters.  So the same texts come back at every refresh, and
 * each was parsed, analysed, rewritten and planned anew.  Here the SPI plan
 * of each is kept (SPI_keepplan) and used again.
 *
 * An entry is keyed by:
 *	- the dynamic table being refreshed (dv_statements_begin), so that its
 *	  entries are dropped whenever the table's entry in plancache.c is
 *	  (definition replaced, new owner, a source altered, ...:
 *	  dv_statements_forget);
 *	- the statement's text and parameter types;
 *	- the shape of each ephemeral named relation the text names: its column
 *	  types and the order of magnitude of its row count (a factor of
 *	  sqrt(10)).  PostgreSQL's plan cache does not know these relations: a
 *	  kept plan is never revalidated when one of them changes type, and
 *	  the row count the planner estimates is the one the relation had when
 *	  the statement was parsed (it is copied into the query's range table).
 *	  A window 10x larger than the one the statement was prepared for is
 *	  another entry, prepared for its size: a plan made for a 10-row window
 *	  is never used for a 1M-row one.
 *
 * Plans: a statement without parameters has one plan whatever it runs on
 * (nothing to substitute), so PostgreSQL plans it once (generic) and keeps
 * that plan until a relation, function or type it uses changes (its own
 * invalidation, which also re-parses the text).  The parameters of the
 * generated statements are arrays of key values ("key = ANY ($1)",
 * dv_key_restriction), whose length a generic plan does not know (the
 * planner assumes 10 elements).  Where every array has at most
 * DV_STATEMENTS_SMALL_ARRAY elements, the statement gets its generic plan,
 * kept like the others: a plan made for 10 keys used for up to 100.  Where
 * one is longer, it is another entry, prepared with CURSOR_OPT_CUSTOM_PLAN:
 * its parse and analysis are kept, and it is planned at each execution with
 * the values.  Where the parameters are scalars (the boundary row of a
 * top-N table, apply_topn, or of a window over a large table) and no array
 * is long, the entry is prepared
 * without either option, so that PostgreSQL's plan cache chooses as it does
 * for any prepared statement (plan_cache_mode auto): custom plans for the
 * first five executions, then the generic plan when its estimated cost is
 * not above theirs on average (the planning saved counted).  Where the
 * caller knows that the values cannot change the plan much (the boundary
 * row of a window without PARTITION BY over a small table, apply_window:
 * the windows are computed over every row of the query and its output
 * filtered, and the table is read whole for less than a planning costs),
 * the generic plan is kept at once: with exact selectivities the custom
 * plans looked cheaper than the generic one, and the dashboard's rank
 * layer (50 rows) was planned again at every refresh (0.3 ms of ~12,
 * pipeline_profile.sh, twenty-fifth session).
 *
 * Statements run outside a begin/end scope (FULL refreshes, the build) are
 * prepared and freed as before.  The cache holds at most
 * DV_STATEMENTS_MAX entries; the least recently used makes room.  Entries
 * dropped are freed only when no cached statement is executing (a
 * statement may run code that drops entries: dv_statements_forget from
 * plancache.c during a nested refresh).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/hashfn.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "storage/proc.h"
#include "utils/array.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "dynview.h"

#define DV_STATEMENTS_MAX 256

/* parameters that are arrays of at most this many elements get a generic plan */
#define DV_STATEMENTS_SMALL_ARRAY 100

typedef struct StatementEntry
{
	Oid			relid;			/* the dynamic table whose refresh runs it */
	uint32		hash;			/* of sql */
	char	   *sql;			/* in TopMemoryContext */
	char	   *shape;			/* parameter types and ephemeral relations, in TopMemoryContext */
	SPIPlanPtr	plan;			/* kept (SPI_keepplan) */
	uint64		last_used;
} StatementEntry;

static StatementEntry entries[DV_STATEMENTS_MAX];
static int	nentries = 0;
static uint64 use_clock = 0;

/* plans dropped while a cached statement ran, freed when none runs */
static List *dropped = NIL;		/* of SPIPlanPtr, in TopMemoryContext */
static int	executing = 0;

/* the table whose refresh statements are cached now, in which transaction */
static Oid	scope_relid = InvalidOid;
static LocalTransactionId scope_lxid = InvalidLocalTransactionId;

static void
free_entry(StatementEntry *e)
{
	MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

	dropped = lappend(dropped, e->plan);
	MemoryContextSwitchTo(old);
	pfree(e->sql);
	pfree(e->shape);
	*e = entries[--nentries];
}

static void
free_dropped(void)
{
	ListCell   *lc;

	if (executing > 0 || dropped == NIL)
		return;
	foreach(lc, dropped)
		SPI_freeplan((SPIPlanPtr) lfirst(lc));
	list_free(dropped);
	dropped = NIL;
}

/*
 * dv_statements_begin - from now until dv_statements_end (or the end of the
 * transaction), the statements run by exec_statement_params are those of
 * the incremental refresh of relid, and are kept.
 */
void
dv_statements_begin(Oid relid)
{
	scope_relid = relid;
	scope_lxid = MyProc->lxid;
}

void
dv_statements_end(void)
{
	scope_relid = InvalidOid;
	scope_lxid = InvalidLocalTransactionId;
}

/* dv_statements_scope - the table whose statements are kept now, or InvalidOid */
Oid
dv_statements_scope(void)
{
	return scope_lxid == MyProc->lxid ? scope_relid : InvalidOid;
}

/*
 * dv_statements_forget - drop the kept statements of relid (every table's
 * if InvalidOid).  Called by plancache.c when it drops the table's entry.
 */
void
dv_statements_forget(Oid relid)
{
	for (int i = nentries - 1; i >= 0; i--)
	{
		if (!OidIsValid(relid) || entries[i].relid == relid)
			free_entry(&entries[i]);
	}
	free_dropped();
}

/*
 * dv_statements_prepare - the SPI plan of sql with nargs parameters of the
 * given types and values (nulls as SPI takes them, NULL for none): the kept
 * one (*kept true; do not free it) when the current scope is an
 * incremental refresh and the statement was prepared for it with the same
 * shape, else prepared now (kept when in a scope).  scalars_generic: the
 * caller knows that the values of its scalar parameters cannot change the
 * plan much (DvParams.generic): a generic plan, as for small arrays.
 * Errors if it cannot be prepared.  Run it with dv_statements_run.
 */
SPIPlanPtr
dv_statements_prepare(const char *sql, int nargs, Oid *types, Datum *values, const char *nulls,
					  bool scalars_generic, bool *kept)
{
	StringInfoData shape;
	uint32		hash;
	SPIPlanPtr	plan;
	StatementEntry *e;
	bool		cache = OidIsValid(scope_relid) && scope_lxid == MyProc->lxid;
	bool		generic = true;
	bool		scalar = false;
	int			options = 0;

	*kept = false;
	free_dropped();
	if (!cache)
	{
		plan = SPI_prepare(sql, nargs, types);
		if (plan == NULL)
			elog(ERROR, "could not prepare a refresh statement: %s", SPI_result_code_string(SPI_result));
		return plan;
	}

	/*
	 * (small arrays of keys: a generic plan; a long one: planned with the
	 * values; scalars alone: PostgreSQL's choice)
	 */
	for (int i = 0; i < nargs && generic; i++)
	{
		if (!type_is_array(types[i]))
			scalar = true;
		else if (!(nulls && nulls[i] == 'n'))
			generic = ArrayGetNItems(ARR_NDIM(DatumGetArrayTypeP(values[i])),
									 ARR_DIMS(DatumGetArrayTypeP(values[i]))) <= DV_STATEMENTS_SMALL_ARRAY;
	}
	if (!generic)
		options = CURSOR_OPT_CUSTOM_PLAN;
	else if ((!scalar || scalars_generic) && nargs > 0)
		options = CURSOR_OPT_GENERIC_PLAN;
	initStringInfo(&shape);
	for (int i = 0; i < nargs; i++)
		appendStringInfo(&shape, "%u,", types[i]);
	appendStringInfoString(&shape, options == CURSOR_OPT_CUSTOM_PLAN ? "custom;" :
						   options == CURSOR_OPT_GENERIC_PLAN ? "generic;" : "chosen;");
	dv_registered_tuples_shape(sql, &shape);
	hash = hash_bytes((const unsigned char *) sql, strlen(sql));
	for (int i = 0; i < nentries; i++)
	{
		e = &entries[i];
		if (e->hash == hash && e->relid == scope_relid && strcmp(e->shape, shape.data) == 0 &&
			strcmp(e->sql, sql) == 0)
		{
			e->last_used = ++use_clock;
			*kept = true;
			pfree(shape.data);
			return e->plan;
		}
	}

	plan = SPI_prepare_cursor(sql, nargs, types, options);
	if (plan == NULL)
		elog(ERROR, "could not prepare a refresh statement: %s", SPI_result_code_string(SPI_result));
	if (SPI_keepplan(plan) != 0)
		elog(ERROR, "could not keep the plan of a refresh statement");

	/* room: the least recently used goes */
	if (nentries == DV_STATEMENTS_MAX)
	{
		int			oldest = 0;

		for (int i = 1; i < nentries; i++)
			if (entries[i].last_used < entries[oldest].last_used)
				oldest = i;
		free_entry(&entries[oldest]);
	}
	e = &entries[nentries++];
	e->relid = scope_relid;
	e->hash = hash;
	e->sql = MemoryContextStrdup(TopMemoryContext, sql);
	e->shape = MemoryContextStrdup(TopMemoryContext, shape.data);
	e->plan = plan;
	e->last_used = ++use_clock;
	pfree(shape.data);
	*kept = true;
	return plan;
}

/*
 * statements_executing - a kept statement starts (true) or ends (false)
 * running, normally or by error
 */
static void
statements_executing(bool start)
{
	if (start)
		executing++;
	else if (executing > 0)
		executing--;
}

/*
 * dv_statements_run - run(plan, arg) for a plan of dv_statements_prepare:
 * a kept one counted as executing while it runs (also when run raises
 * an error), one that is not kept freed afterwards.
 */
void
dv_statements_run(SPIPlanPtr plan, bool kept, void (*run) (SPIPlanPtr plan, void *arg), void *arg)
{
	if (kept)
		statements_executing(true);
	PG_TRY();
	{
		run(plan, arg);
	}
	PG_FINALLY();
	{
		if (kept)
			statements_executing(false);
	}
	PG_END_TRY();
	if (!kept)
		SPI_freeplan(plan);
}

