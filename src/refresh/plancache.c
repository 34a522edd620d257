/*-------------------------------------------------------------------------
 *
 * plancache.c
 *	  Per-backend cache of each dynamic table's definition, parsed, analysed
 *	  and rewritten, and of its refresh plan (the DvPlan with its operator
 *	  tree, dv_plan_query), so that a refresh does not parse, analyse and
 *	  plan its table's query again (issue 13: "planned once per table and
 *	  cached").  The scheduler's worker and a backend that calls refresh()
 *	  both keep theirs.
 *
 * An entry is keyed by the dynamic table, its owner (the plan is built as
 * the owner) and the definition text, so a replaced definition or a new
 * owner misses.  It depends on the catalogs the analysis read; PostgreSQL's
 * own dependency extraction (extract_query_dependencies, as the plan cache
 * uses) names the relations (sources, views behind them, the table itself
 * is added), and an entry is dropped when one of them gets a relcache
 * invalidation (ALTER, CREATE OR REPLACE VIEW, a new index or policy,
 * ANALYZE ...), when all relcache entries are invalidated, or when any
 * function, type, operator, cast, collation, operator class or schema
 * changes, or any role or role membership (coarse: those changes are rare).
 * The rewriter applied the row-level security policies of the owner's
 * roles to the definition, and the refresh's checks of them ran as well
 * (a role that leaves a group a policy names, or loses BYPASSRLS, must not
 * keep reading through a kept entry): PostgreSQL's own plan cache does not
 * watch role membership.  Invalidations are taken at
 * the start of each transaction and at each lock acquisition, so a lookup
 * after the refresh locked its tables sees every committed change.
 *
 * What the cache returns is shared with later refreshes: callers must not
 * change it.  The fields a refresh writes, a source's delta_rows and its
 * window's store and counts (delta_store, delta_desc, delta_distinct), are
 * reset at each lookup (delta_rows to -1, not read yet).  An entry also
 * keeps whether the table's writes may run user code
 * (dv_plan_cache_own_writes) and its query's signature
 * (dv_plan_cache_signature), dropped with it.  Entries live in their own
 * memory contexts under CacheMemoryContext; an entry dropped is freed in a
 * later transaction (what a caller holds stays valid until its transaction
 * ends); an entry that failed to build is not kept.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "nodes/pg_list.h"
#include "optimizer/optimizer.h"
#include "storage/lmgr.h"
#include "storage/proc.h"
#include "utils/inval.h"
#include "utils/memutils.h"
#include "utils/syscache.h"

#include "dynview.h"
#include "analyze/delta.h"
#include "analyze/optree.h"

typedef struct PlanCacheEntry
{
	Oid			relid;			/* the dynamic table */
	Oid			owner;			/* its owner when built */
	char	   *definition;		/* the definition text it was built from */
	MemoryContext context;		/* holds the entry and all it points to */
	List	   *relations;		/* OIDs whose relcache invalidation drops it */
	Query	   *query;			/* parsed, analysed, rewritten */
	DvPlan	   *plan;			/* NULL until asked for */
	int			own_writes;		/* dv_plan_cache_own_writes: -1 until asked */
	char	   *signature;		/* dv_plan_cache_signature: NULL until asked */
	bool		valid;
} PlanCacheEntry;

static List *entries = NIL;		/* of PlanCacheEntry *, in CacheMemoryContext */

/*
 * Entries dropped in the current transaction: freed in a later one, so that
 * what a caller got from the cache earlier in this transaction stays valid.
 */
static List *retired = NIL;
static LocalTransactionId retired_lxid = InvalidLocalTransactionId;
static bool callbacks_registered = false;

/*
 * While an entry is built, the invalidations that arrive (the parse's locks
 * take them) are noted: one that concerns what the entry read keeps it from
 * being cached (used once, built again next time).
 */
#define MAX_NOTED 32
static bool building = false;
static bool build_disturbed = false;
static int	noted_count = 0;
static Oid	noted[MAX_NOTED];

static void
invalidate_all(void)
{
	ListCell   *lc;

	if (building)
		build_disturbed = true;
	foreach(lc, entries)
		((PlanCacheEntry *) lfirst(lc))->valid = false;
}

static void
relcache_callback(Datum arg, Oid relid)
{
	ListCell   *lc;

	if (building)
	{
		if (!OidIsValid(relid) || noted_count >= MAX_NOTED)
			build_disturbed = true;
		else
			noted[noted_count++] = relid;
	}
	if (!OidIsValid(relid))
	{
		invalidate_all();
		return;
	}
	foreach(lc, entries)
	{
		PlanCacheEntry *e = lfirst(lc);

		if (e->valid && list_member_oid(e->relations, relid))
			e->valid = false;
	}
}

static void
syscache_callback(Datum arg, int cacheid, uint32 hashvalue)
{
	invalidate_all();
}

static void
register_callbacks(void)
{
	static const int caches[] = {PROCOID, TYPEOID, OPEROID, CASTSOURCETARGET, COLLOID,
	CLAOID, NAMESPACEOID, AMOPOPID, AUTHOID, AUTHMEMROLEMEM};

	if (callbacks_registered)
		return;
	CacheRegisterRelcacheCallback(relcache_callback, (Datum) 0);
	for (int i = 0; i < lengthof(caches); i++)
		CacheRegisterSyscacheCallback(caches[i], syscache_callback, (Datum) 0);
	callbacks_registered = true;
}

/* take an entry out of the cache; its memory goes in a later transaction */
static void
retire(PlanCacheEntry *e)
{
	MemoryContext old = MemoryContextSwitchTo(CacheMemoryContext);

	/* (the generated statements kept for its refreshes go with it: statements.c) */
	dv_statements_forget(e->relid);
	entries = list_delete_ptr(entries, e);
	retired = lappend(retired, e);
	retired_lxid = MyProc->lxid;
	MemoryContextSwitchTo(old);
}

/* retire the entries that are no longer valid; free those of earlier transactions */
static void
drop_invalid(void)
{
	ListCell   *lc;

	if (retired != NIL && retired_lxid != MyProc->lxid)
	{
		foreach(lc, retired)
			MemoryContextDelete(((PlanCacheEntry *) lfirst(lc))->context);
		list_free(retired);
		retired = NIL;
	}
	foreach(lc, entries)
	{
		PlanCacheEntry *e = lfirst(lc);

		if (!e->valid)
		{
			retire(e);
			/* (the list changed: start over) */
			drop_invalid();
			return;
		}
	}
}

/*
 * dv_plan_cache_set_delta_rows - set every source's delta_rows of plan (a
 * plan of the cache) to rows, and forget whether its window was read
 * filtered (window_filtered): -1 (not read yet) before a refresh reads the
 * windows; 0 while the initial build generates SQL that reads the states
 * it has just filled (refresh/aggstate.c: an operator whose sources have
 * no change reads its state as the rows it has now).
 */
void
dv_plan_cache_set_delta_rows(DvPlan *plan, int64 rows)
{
	ListCell   *lc;

	foreach(lc, plan->sources)
	{
		((DvPlanSource *) lfirst(lc))->delta_rows = rows;
		((DvPlanSource *) lfirst(lc))->delta_store = NULL;
		((DvPlanSource *) lfirst(lc))->delta_desc = NULL;
		((DvPlanSource *) lfirst(lc))->delta_distinct = NIL;
		((DvPlanSource *) lfirst(lc))->window_filtered = false;
	}
	if (plan->topn_input)
		dv_plan_cache_set_delta_rows(plan->topn_input, rows);
	foreach(lc, plan->branches)
		dv_plan_cache_set_delta_rows((DvPlan *) lfirst(lc), rows);
}

static void
reset_delta_rows(DvPlan *plan)
{
	dv_plan_cache_set_delta_rows(plan, -1);
}

/*
 * lappend into a list kept in the given context (the entries list must
 * outlive the transaction)
 */
static List *
lappend_cxt(MemoryContext context, List *list, void *datum)
{
	MemoryContext old = MemoryContextSwitchTo(context);

	list = lappend(list, datum);
	MemoryContextSwitchTo(old);
	return list;
}

/*
 * lookup - the valid entry of the table (as owned and defined now), built
 * when missing.  Parses the definition as the current user (the caller
 * runs as the owner).
 */
static PlanCacheEntry *
lookup(DvTable *dt)
{
	ListCell   *lc;
	PlanCacheEntry *e;
	MemoryContext context;
	MemoryContext old;
	List	   *invalitems = NIL;
	bool		rls = false;

	register_callbacks();
	/* changes committed by others since: their invalidations first */
	AcceptInvalidationMessages();
	drop_invalid();
	foreach(lc, entries)
	{
		e = lfirst(lc);
		if (e->relid == dt->relid && e->owner == dt->owner &&
			strcmp(e->definition, dt->definition) == 0)
		{
			ListCell   *lc2;

			/*
			 * Lock what the parse would have locked (it held AccessShareLock
			 * on every relation it read until the end of the transaction),
			 * taking the invalidations that come with the locks: a change
			 * committed meanwhile drops the entry and it is built again.
			 */
			foreach(lc2, e->relations)
				LockRelationOid(lfirst_oid(lc2), AccessShareLock);
			if (!e->valid)
				break;
			return e;
		}
	}

	/* an older entry of the table (other definition or owner, or invalid) goes */
	for (;;)
	{
		PlanCacheEntry *older = NULL;

		foreach(lc, entries)
		{
			if (((PlanCacheEntry *) lfirst(lc))->relid == dt->relid)
				older = lfirst(lc);
		}
		if (older == NULL)
			break;
		retire(older);
	}

	building = true;
	build_disturbed = false;
	noted_count = 0;
	context = AllocSetContextCreate(CacheMemoryContext, "dynview plan cache entry",
									ALLOCSET_SMALL_SIZES);
	old = MemoryContextSwitchTo(context);
	PG_TRY();
	{
		e = palloc0(sizeof(PlanCacheEntry));
		e->relid = dt->relid;
		e->owner = dt->owner;
		e->definition = pstrdup(dt->definition);
		e->context = context;
		e->own_writes = -1;
		e->valid = true;
		e->query = dv_parse_definition(dt->definition);
		extract_query_dependencies((Node *) e->query, &e->relations, &invalitems, &rls);
		e->relations = lappend_oid(e->relations, dt->relid);
	}
	PG_CATCH();
	{
		building = false;
		MemoryContextSwitchTo(old);
		MemoryContextDelete(context);
		PG_RE_THROW();
	}
	PG_END_TRY();
	building = false;
	MemoryContextSwitchTo(old);
	MemoryContextSetIdentifier(context, e->definition);

	/*
	 * An invalidation that arrived while it was built (the parse's locks take
	 * them) may concern what it read before: use it this once, build it
	 * again next time.
	 */
	for (int i = 0; i < noted_count && !build_disturbed; i++)
		build_disturbed = list_member_oid(e->relations, noted[i]);
	if (build_disturbed)
		e->valid = false;
	entries = lappend_cxt(CacheMemoryContext, entries, e);
	return e;
}

/*
 * dv_plan_cache_query - the table's definition parsed, analysed and
 * rewritten (as dv_parse_definition), from the cache.  Read-only: shared
 * with later refreshes of this backend.  Call as the table's owner.
 */
Query *
dv_plan_cache_query(DvTable *dt)
{
	return lookup(dt)->query;
}

/*
 * dv_plan_cache_plan - the table's refresh plan (dv_plan_query of its
 * definition), from the cache, every source's delta_rows reset to -1.
 * Read-only but for delta_rows.  Call as the table's owner.
 */
DvPlan *
dv_plan_cache_plan(DvTable *dt)
{
	PlanCacheEntry *e = lookup(dt);

	if (e->plan == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(e->context);

		PG_TRY();
		{
			/* (the planner may change the tree it is given) */
			e->plan = dv_plan_query(copyObject(e->query));
			/* (its operators that keep a state name them after the table) */
			dv_optree_assign_states(e->plan, dt->relid);
		}
		PG_CATCH();
		{
			MemoryContextSwitchTo(old);
			e->plan = NULL;
			e->valid = false;
			PG_RE_THROW();
		}
		PG_END_TRY();
		MemoryContextSwitchTo(old);
	}
	reset_delta_rows(e->plan);
	return e->plan;
}

/*
 * dv_plan_cache_own_writes - decide(dt) (refresh.c writes_are_own: may the
 * refresh's writes run user code?), asked once per cache entry and kept
 * with it: what it reads (the table's triggers, rules, constraints,
 * policies, column types and indexes, and the functions the query and the
 * indexes call) changes only with a relcache invalidation of the table or
 * a change of a function or type, each of which drops the entry.  An
 * answer made while the entry was dropped is returned, not kept.  Call as
 * the table's owner.
 */
bool
dv_plan_cache_own_writes(DvTable *dt, bool (*decide) (DvTable *dt))
{
	PlanCacheEntry *e = lookup(dt);
	bool		own;

	if (e->own_writes >= 0)
		return e->own_writes == 1;
	own = decide(dt);
	/* (decide locks and may so take an invalidation that drops e) */
	if (e->valid)
		e->own_writes = own ? 1 : 0;
	return own;
}

/*
 * dv_plan_cache_signature - make(dt) (refresh.c definition_signature: the
 * signature of the cached query's nodeToString text, which every refresh
 * compares with the stored one), kept in the entry: it follows from the
 * entry's query alone, which is shared read-only and dropped with the
 * entry (a view it inlines redefined, an ALTER of a relation it reads, a
 * function or type changed).  An answer made while the entry was dropped
 * is returned, not kept.  The result is palloc'd or the entry's: the
 * caller must not change it.  Call as the table's owner.
 */
char *
dv_plan_cache_signature(DvTable *dt, char *(*make) (DvTable *dt))
{
	PlanCacheEntry *e = lookup(dt);
	char	   *signature;

	if (e->signature != NULL)
		return e->signature;
	signature = make(dt);
	/* (make looks the entry up again, and may so take an invalidation that drops e) */
	if (e->valid)
		e->signature = MemoryContextStrdup(e->context, signature);
	return signature;
}
