/*-------------------------------------------------------------------------
 *
 * guard.c
 *	  Keeps dynamic tables written by dynview only, and keeps the catalogs
 *	  right when tables are dropped with plain DDL.
 *
 *	- ExecutorStart hook: INSERT/UPDATE/DELETE/MERGE whose target is a
 *	  dynamic table fails unless it is a refresh statement of that very
 *	  table: started by dynview (dv_guard_begin_write) at the executor
 *	  nesting level dynview issued it at; so does one whose target is a
 *	  state table (refuse_state_write).  Statements nested inside it
 *	  (triggers, functions, foreign key actions) are one level deeper, so
 *	  they cannot write any dynamic table, not even the one refreshed, nor
 *	  a source of the table being refreshed.
 *	  ExecutorStart/Run/Finish count the nesting level (as
 *	  pg_stat_statements does), restored on error by PG_FINALLY.
 *	  Rows dynview writes without a statement (the history row and the
 *	  catalog row's data snapshot, catalog.c) meet the same checks through
 *	  dv_guard_note_write; while the direct apply writes a dynamic table
 *	  without a statement (apply.c), what that runs is one level deeper than
 *	  the statement it stands for (dv_guard_begin_direct_write).
 *	- ProcessUtility hook: TRUNCATE of a dynamic table fails (no refresh
 *	  truncates), also when TRUNCATE reaches it through an inheritance
 *	  parent or, with CASCADE, through a foreign key, unless the table holds
 *	  no tuple (a parallel pg_restore truncates each table it has just made
 *	  before its COPY: looked at under TRUNCATE's own locks, check_truncated,
 *	  and nothing run by that TRUNCATE may refresh it); so does
 *	  TRUNCATE of a change buffer or state table (refuse_internal_truncate),
 *	  and a rule or trigger on one; and DDL that would run code inside
 *	  dynview's own (never decoded) writes to them or reshape them, to
 *	  superusers too but for dynview's own DDL (refuse_internal_ddl); and,
 *	  outside the extension's scripts, CREATE OR REPLACE of its functions,
 *	  functions created, moved or renamed in schema dynview, and ALTER
 *	  FUNCTION, OWNER TO or SET SCHEMA of one of its functions
 *	  (refuse_function_ddl); and ALTER COLUMN ... TYPE of a source that
 *	  leaves a dynamic table's stored definition unable to analyse
 *	  (refuse_retype).
 *	  Rules and BEFORE ROW triggers on a dynamic table, and a dynamic table as an
 *	  inheritance parent, child or partition, are refused: each would let
 *	  statements other than its refreshes change what it holds.
 *	- COPY FROM into a dynamic table is allowed, so that pg_dump output
 *	  restores; it marks the table's next refresh FULL
 *	  (CHANGED_OUTSIDE_REFRESH), as a refresh does for a table that a
 *	  subscription writes (refresh.c).
 *	- ProcessUtility hook: DROP DATABASE of a database with dynview first
 *	  stops its decoder and drops its slot (a slot would block the drop).
 *	- ProcessUtility hook: partitions created in, attached to, detached
 *	  from or dropped from a captured partitioned source (cdc/partitions.c).
 *	- The sql_drop event trigger function unregisters dropped dynamic
 *	  tables and marks dropped sources missing in their downstreams.
 *	- Object access and ProcessUtility hooks: while a refresh runs, what it
 *	  runs (a trigger, a function the planner folds) may not drop or alter
 *	  a dynamic table, a source of the table being refreshed, or a column,
 *	  index, partition or policy of one (refuse_refresh_ddl,
 *	  refuse_refresh_utility).
 *
 * Whether a relation is a dynamic table is cached per backend in a hash
 * table keyed by OID.  dynview sends a relcache invalidation for a table
 * whenever it registers or unregisters it; the relcache callback drops that
 * entry (or all of them), so every backend sees the change at its next
 * transaction (and the changing backend at its next command).  All hooks do
 * nothing when the extension is not installed in the current database.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/relation.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/transam.h"
#include "access/xact.h"
#include "catalog/dependency.h"
#include "catalog/heap.h"
#include "catalog/index.h"
#include "catalog/indexing.h"
#include "catalog/namespace.h"
#include "catalog/objectaccess.h"
#include "catalog/partition.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_trigger.h"
#include "commands/dbcommands.h"
#include "commands/defrem.h"
#include "commands/event_trigger.h"
#include "commands/extension.h"
#include "commands/trigger.h"
#include "executor/executor.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "parser/parse_func.h"
#include "parser/parsetree.h"
#include "storage/lmgr.h"
#include "storage/proc.h"
#include "tcop/utility.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/catcache.h"
#include "utils/fmgroids.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

#include "optimizer/planner.h"
#include "dynview.h"
#include "cdc/cdc.h"
#include "analyze/delta.h"

PG_FUNCTION_INFO_V1(dynview_on_sql_drop);

typedef struct GuardEntry
{
	Oid			relid;			/* hash key */
	bool		is_dynamic;
} GuardEntry;

static HTAB *guard_cache = NULL;
static Oid	guard_cache_catalog = InvalidOid;	/* catalog OID the cache is for */

static planner_hook_type prev_planner = NULL;
static ExecutorStart_hook_type prev_ExecutorStart = NULL;
static ExecutorRun_hook_type prev_ExecutorRun = NULL;
static ExecutorFinish_hook_type prev_ExecutorFinish = NULL;
static ProcessUtility_hook_type prev_ProcessUtility = NULL;

/* executor nesting: a statement run by another (trigger, function) is deeper */
static int	exec_nesting = 0;

/*
 * The dynamic table being refreshed (dv_guard_set_refreshing), InvalidOid
 * if none, and its sources that are not dynamic tables (in
 * TopMemoryContext).
 */
static Oid	refreshing = InvalidOid;
static List *refreshing_sources = NIL;

/*
 * Where the refresh runs (set with refreshing): the executor and utility
 * nesting levels and the subtransaction it was set in.  What runs deeper
 * (planning, the executor, a utility statement nested in dynview's own) is
 * a trigger's, rule's or function's, not dynview's (refuse_refresh_ddl).
 * An abort of that subtransaction ends the refresh (guard_subxact_callback).
 */
static int	refreshing_exec_level = -1;
static int	refreshing_utility_level = -1;
static SubTransactionId refreshing_subxact = InvalidSubTransactionId;

/*
 * The refresh statement running now (dv_guard_begin_write): the dynamic
 * table it may write and the nesting level it was started at.  InvalidOid
 * and -1 when dynview runs no write statement.
 */
static Oid	write_target = InvalidOid;
static int	write_level = -1;

static void
guard_relcache_callback(Datum arg, Oid relid)
{
	if (guard_cache == NULL)
		return;
	if (!OidIsValid(relid))
	{
		hash_destroy(guard_cache);
		guard_cache = NULL;
	}
	else
		(void) hash_search(guard_cache, &relid, HASH_REMOVE, NULL);
}

/* look relid up in catalog table (of schema dynview) through its primary key index */
static bool
lookup_catalog(Oid catalog, const char *table, Oid relid)
{
	Relation	rel;
	SysScanDesc scan;
	ScanKeyData key;
	Oid			nsp = get_rel_namespace(catalog);
	Oid			index = get_relname_relid(psprintf("%s_pkey", table), nsp);
	Oid			tableid = get_relname_relid(table, nsp);
	bool		found;

	if (!OidIsValid(index) || !OidIsValid(tableid))
		return false;
	/* NULL if DROP EXTENSION dropped it while we waited for the lock */
	rel = try_relation_open(tableid, AccessShareLock);
	if (rel == NULL)
		return false;
	ScanKeyInit(&key, 1, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(relid));
	scan = systable_beginscan(rel, index, true, NULL, 1, &key);
	found = HeapTupleIsValid(systable_getnext(scan));
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return found;
}

/*
 * a dynamic table, or a partitioned dynamic table (whose partitions are
 * dynamic tables: catalog/partitioned.c), guarded alike
 */
static bool
lookup_dynamic_table(Oid catalog, Oid relid)
{
	return lookup_catalog(catalog, DV_CATALOG_TABLE, relid) ||
		(get_rel_relkind(relid) == RELKIND_PARTITIONED_TABLE &&
		 lookup_catalog(catalog, "partitioned_table_catalog", relid));
}

/*
 * is_dynamic_table - is relid a dynamic table?  Cheap for relations seen
 * before.  False while dynview's own extension script runs (its catalog is
 * half made); other extensions' scripts are guarded like any statement.
 */
static bool
is_dynamic_table(Oid relid)
{
	Oid			catalog;
	GuardEntry *entry;
	bool		found;

	if (!OidIsValid(relid) || !IsTransactionState())
		return false;
	catalog = dv_catalog_relid();
	if (!OidIsValid(catalog))
		return false;
	if (creating_extension && CurrentExtensionObject == get_extension_oid("dynview", true))
		return false;
	if (guard_cache != NULL && guard_cache_catalog != catalog)
	{
		hash_destroy(guard_cache);
		guard_cache = NULL;
	}
	if (guard_cache == NULL)
	{
		HASHCTL		ctl;

		ctl.keysize = sizeof(Oid);
		ctl.entrysize = sizeof(GuardEntry);
		ctl.hcxt = CacheMemoryContext;
		guard_cache = hash_create("dynview dynamic table cache", 64, &ctl,
								  HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
		guard_cache_catalog = catalog;
	}
	entry = hash_search(guard_cache, &relid, HASH_FIND, NULL);
	if (entry == NULL)
	{
		bool		is_dynamic = lookup_dynamic_table(catalog, relid);

		/* the lookup may have processed invalidations that reset the cache */
		if (guard_cache == NULL)
			return is_dynamic;
		entry = hash_search(guard_cache, &relid, HASH_ENTER, &found);
		entry->is_dynamic = is_dynamic;
	}
	return entry->is_dynamic;
}

/* is the statement starting now one that dynview issued for a refresh? */
static bool
own_statement(void)
{
	return write_level >= 0 && exec_nesting == write_level;
}

static void
refuse_write(Oid relid, const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_WRONG_OBJECT_TYPE),
			 errmsg("cannot modify dynamic table \"%s\"", get_rel_name(relid)),
			 errdetail("%s", detail ? detail : "Dynamic tables are written only by their refreshes."),
			 errhint("Change the sources of the dynamic table and use dynview.refresh().")));
}

/* the schema of relid when it is one of dynview's internal schemas (buffers, states), else NULL */
static const char *
internal_schema(Oid relid)
{
	Oid			nspid = OidIsValid(relid) ? get_rel_namespace(relid) : InvalidOid;
	const char *schema = OidIsValid(nspid) ? get_namespace_name(nspid) : NULL;

	if (schema == NULL ||
		(strcmp(schema, DV_BUFFER_SCHEMA) != 0 && strcmp(schema, "dynview_state") != 0))
		return NULL;
	return schema;
}

/*
 * Utility nesting: a utility statement run by another (an event trigger's,
 * a function's called by it) is deeper.  dynview's own DDL on its change
 * buffers and state tables (dv_catalog_exec: dv_guard_begin_own_ddl) is
 * the statement that arrives one utility level below the caller, at the
 * caller's executor level, in the caller's transaction: what runs nested in
 * it (an event trigger, a trigger of a catalog row it writes) is deeper and
 * is not dynview's.
 */
static int	utility_nesting = 0;
static DvGuardOwnDdl own_ddl_levels = {-1, -1, InvalidLocalTransactionId};

static bool
own_ddl(void)
{
	return own_ddl_levels.utility >= 0 && own_ddl_levels.lxid == MyProc->lxid &&
		utility_nesting == own_ddl_levels.utility + 1 && exec_nesting == own_ddl_levels.exec;
}

/*
 * dv_guard_begin_own_ddl - the next utility statement dynview runs at the
 * current levels is its own DDL on its internal tables (refuse_internal_ddl
 * lets it pass).  The previous state goes to *save, for
 * dv_guard_end_own_ddl (also on error).
 */
void
dv_guard_begin_own_ddl(DvGuardOwnDdl *save)
{
	*save = own_ddl_levels;
	own_ddl_levels.utility = utility_nesting;
	own_ddl_levels.exec = exec_nesting;
	own_ddl_levels.lxid = MyProc->lxid;
}

void
dv_guard_end_own_ddl(const DvGuardOwnDdl *save)
{
	own_ddl_levels = *save;
}

/* the one detail of why code must not run inside writes to dynview's internal tables */
#define INTERNAL_CODE_DETAIL \
	"Code it runs on the rows written (a constraint, default, policy, index expression or predicate, an operator class's or access method's functions, a referencing table's foreign key action) would run inside change capture's and refreshes' writes, which dynview marks as its own and never decodes: what that code wrote would be missed for good by the dynamic tables reading it."

/* what: the message, with %s for the table's qualified name */
static void
refuse_internal_code(const char *schema, const char *name, const char *what)
{
	char	   *qualified = psprintf("%s.%s", schema, name);

	ereport(ERROR,
			(errcode(ERRCODE_WRONG_OBJECT_TYPE),
			 errmsg(what, qualified),
			 errdetail("It is a change buffer or state table of dynview. " INTERNAL_CODE_DETAIL),
			 errhint("Index a state table's columns only (built-in types, operator classes and access methods), set storage parameters, or index and alter the dynamic table itself.")));
}

/* the internal table (change buffer or state table) rv names, or InvalidOid */
static Oid
internal_named(RangeVar *rv, const char **schema)
{
	Oid			relid = rv ? RangeVarGetRelid(rv, NoLock, true) : InvalidOid;

	*schema = internal_schema(relid);
	return *schema != NULL ? relid : InvalidOid;
}

/*
 * refuse_internal_truncate - TRUNCATE of a change buffer (dynview_buffer)
 * or a state table (dynview_state) fails: dynview never truncates them, and
 * emptied by hand they lose the changes or state the next refreshes build
 * on, which no refresh can tell from "nothing changed" (the dynamic tables
 * would silently miss rows).  Even a superuser is refused; DROP EXTENSION or
 * dropping the dynamic tables removes them.
 */
static void
refuse_internal_truncate(Oid relid)
{
	const char *schema = internal_schema(relid);

	if (schema == NULL)
		return;
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("cannot truncate \"%s.%s\"", schema, get_rel_name(relid)),
			 errdetail(strcmp(schema, DV_BUFFER_SCHEMA) == 0
					   ? "It is a change buffer of dynview: the dynamic tables reading its source would miss the changes it holds."
					   : "It is a state table of dynview: the next refreshes of its dynamic table build on it."),
			 errhint("Refresh the dynamic tables: dynview prunes the changes every table has consumed, and a FULL refresh rebuilds a table's state.")));
}

/*
 * refuse_state_write - a statement that is not one of dynview's own
 * (own_statement: a refresh's or a build's, dv_guard_begin_write) may not
 * write a state table (dynview_state), not even its owner (the dynamic
 * table's owner owns its states): the refreshes build on what they wrote
 * there, and a row changed by hand made the dynamic table differ from its
 * query, silently, until a FULL refresh (regress brk19_state_writes), as a
 * write to the dynamic table itself would (refuse_write).  A superuser
 * may (a DBA repairing or testing: the refreshes' backstops then find
 * what they can, INCREMENTAL_MISMATCH, STATE_MISSING).  Change buffers are written by change capture without
 * statements and pruned by the decoder's; TRUNCATE is refused apart
 * (refuse_internal_truncate).
 */
static void
refuse_state_write(Oid relid)
{
	const char *schema = internal_schema(relid);

	if (schema == NULL || strcmp(schema, "dynview_state") != 0 || superuser())
		return;
	ereport(ERROR,
			(errcode(ERRCODE_WRONG_OBJECT_TYPE),
			 errmsg("cannot modify \"%s.%s\"", schema, get_rel_name(relid)),
			 errdetail("It is a state table of dynview, written only by the refreshes of its dynamic table, which build on what they wrote there."),
			 errhint("Change the sources of the dynamic table and use dynview.refresh(); a FULL refresh rebuilds a table's state.")));
}

/*
 * refreshing_source_of - the source of the table being refreshed that relid
 * is: relid itself, or the partitioned source or inheritance parent it is a
 * partition or child of (its rows are the source's); InvalidOid if none, or
 * if no refresh runs.
 */
static Oid
refreshing_source_of(Oid relid)
{
	ListCell   *lc;

	if (refreshing_sources == NIL)
		return InvalidOid;
	if (list_member_oid(refreshing_sources, relid))
		return relid;
	foreach(lc, dv_relation_ancestors(relid))
	{
		if (list_member_oid(refreshing_sources, lfirst_oid(lc)))
			return lfirst_oid(lc);
	}
	return InvalidOid;
}

/* the detail of a refused write or DDL when relid is part of source (refreshing_source_of) */
static int
source_detail(Oid relid, Oid source, const char *what)
{
	if (source == relid)
		return errdetail("A trigger, rule or function run by a refresh may not %s a source of the table being refreshed.", what);
	return errdetail("A trigger, rule or function run by a refresh may not %s a source of the table being refreshed; \"%s\" is %s of its source \"%s\".",
					 what, get_rel_name(relid),
					 get_rel_relispartition(relid) ? "a partition" : "an inheritance child",
					 get_rel_name(source));
}

/*
 * check_source_write - a statement nested in a refresh statement (a trigger
 * or function it runs) may not write a source of the table being refreshed:
 * the refresh has read it, and its data snapshot will count this
 * transaction's changes as seen.
 */
static void
check_source_write(Oid relid)
{
	Oid			source;

	if (write_level < 0)
		return;
	source = refreshing_source_of(relid);
	if (OidIsValid(source))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cannot modify \"%s\" during a refresh of dynamic table \"%s\"",
						get_rel_name(relid), get_rel_name(write_target)),
				 source_detail(relid, source, "write"),
				 errhint("Write the source before or after the refresh.")));
}

/*
 * a write that is no refresh statement, for the same-transaction watch
 * (txnwatch.c): to relid, or to through, a partition or inheritance child of
 * relid (InvalidOid: relid itself), which a refused commit names
 */
static void
watch_write(Oid relid, Oid through)
{
	if (write_level >= 0)
		dv_watch_written_in_refresh(relid);
	else
		dv_watch_written_through(relid, through);
}

/*
 * a write to relid and to its ancestors: the partitioned tables a partition
 * is part of, the inheritance parents a child's rows are read through (a
 * table reading the parent reads them)
 */
static void
watch_write_up(Oid relid)
{
	ListCell   *lc;

	watch_write(relid, InvalidOid);
	foreach(lc, dv_relation_ancestors(relid))
		watch_write(lfirst_oid(lc), relid);
}

/*
 * a write to relid and its ancestors (watch_write_up), and to the partitions
 * or inheritance children its rows may reach
 */
static void
watch_write_tree(Oid relid)
{
	watch_write_up(relid);
	if (has_subclass(relid))
	{
		ListCell   *lc;

		foreach(lc, find_all_inheritors(relid, NoLock, NULL))
			watch_write(lfirst_oid(lc), InvalidOid);
	}
}

/*
 * guard_write - what a statement writing relid meets as it starts: refused
 * when relid is a dynamic table other than the target of dynview's own
 * refresh statement; otherwise, a write of a source during a refresh
 * statement is refused, and other writes are noted for the
 * same-transaction watch (txnwatch.c).
 */
static void
guard_write(Oid relid, bool own)
{
	if (!(own && relid == write_target) && is_dynamic_table(relid))
		refuse_write(relid, write_level >= 0 && !own
					 ? "A trigger, rule or function run by a refresh may not write a dynamic table."
					 : NULL);
	if (!own)
	{
		refuse_state_write(relid);
		check_source_write(relid);
	}
	/* a refresh's own writes count when they reach its buffer (dv_write_own_buffer) */
	if (!own && (dv_watch_active() || write_level >= 0))
	{
		/* rows routed to partitions, or updated in inheritance children */
		watch_write_tree(relid);
	}
}

/*
 * dv_guard_note_write - a row dynview writes to relid without a statement
 * (a heap and index write through the executor's routines, as the history
 * row: catalog.c) meets the guard as a statement writing relid would: a
 * dynamic table reading relid sees the write in the same-transaction watch.
 */
void
dv_guard_note_write(Oid relid)
{
	guard_write(relid, false);
}

/*
 * What planning runs is nested too: a function folded to a constant (an
 * IMMUTABLE one may write all the same), a partition pruned by a
 * comparison written in PL/pgSQL.  Planned at the level of a refresh
 * statement, it counted as that statement (own_statement) and could write
 * the table being refreshed and its sources (regress
 * brk37_planning_guard).
 */
static PlannedStmt *
guard_planner(Query *parse, const char *query_string, int cursorOptions, ParamListInfo boundParams)
{
	PlannedStmt *result;

	exec_nesting++;
	PG_TRY();
	{
		if (prev_planner)
			result = prev_planner(parse, query_string, cursorOptions, boundParams);
		else
			result = standard_planner(parse, query_string, cursorOptions, boundParams);
	}
	PG_FINALLY();
	{
		exec_nesting--;
	}
	PG_END_TRY();
	return result;
}

static void
guard_ExecutorStart(QueryDesc *queryDesc, int eflags)
{
	PlannedStmt *stmt = queryDesc->plannedstmt;
	ListCell   *lc;

	if (stmt->resultRelations != NIL && !(eflags & EXEC_FLAG_EXPLAIN_ONLY))
	{
		bool		own = own_statement();

		foreach(lc, stmt->resultRelations)
			guard_write(rt_fetch(lfirst_int(lc), stmt->rtable)->relid, own);
	}
	/* (what starting runs, e.g. initial partition pruning, is nested too) */
	exec_nesting++;
	PG_TRY();
	{
		if (prev_ExecutorStart)
			prev_ExecutorStart(queryDesc, eflags);
		else
			standard_ExecutorStart(queryDesc, eflags);
	}
	PG_FINALLY();
	{
		exec_nesting--;
	}
	PG_END_TRY();
}

static void
guard_ExecutorRun(QueryDesc *queryDesc, ScanDirection direction, uint64 count, bool execute_once)
{
	exec_nesting++;
	PG_TRY();
	{
		if (prev_ExecutorRun)
			prev_ExecutorRun(queryDesc, direction, count, execute_once);
		else
			standard_ExecutorRun(queryDesc, direction, count, execute_once);
	}
	PG_FINALLY();
	{
		exec_nesting--;
	}
	PG_END_TRY();
}

/*
 * AFTER triggers (and foreign key actions) fire here.  A statement that
 * wrote relations is noted again once it has finished: a refresh run in the
 * middle of it (from a trigger, or a function in the statement) saw only
 * the rows written before, and counts this transaction as seen, so the
 * rows written after it must count as written after that refresh.
 */
static void
guard_ExecutorFinish(QueryDesc *queryDesc)
{
	PlannedStmt *stmt = queryDesc->plannedstmt;
	ListCell   *lc;

	exec_nesting++;
	PG_TRY();
	{
		if (prev_ExecutorFinish)
			prev_ExecutorFinish(queryDesc);
		else
			standard_ExecutorFinish(queryDesc);
	}
	PG_FINALLY();
	{
		exec_nesting--;
	}
	PG_END_TRY();
	if (stmt->resultRelations != NIL && !own_statement() && dv_watch_active())
	{
		foreach(lc, stmt->resultRelations)
		{
			Oid			relid = rt_fetch(lfirst_int(lc), stmt->rtable)->relid;

			watch_write_tree(relid);
		}
	}
}

/*
 * truncated_relations - every relation TRUNCATE would empty: the named ones,
 * their inheritance children (unless ONLY), and with CASCADE the tables
 * whose foreign keys reference any of them, repeatedly (as ExecuteTruncate
 * finds them).  Relations that do not exist are left out (TRUNCATE fails
 * on them by itself).
 */
static List *
truncated_relations(TruncateStmt *stmt, List **named)
{
	List	   *relids = NIL;
	ListCell   *lc;

	*named = NIL;
	foreach(lc, stmt->relations)
	{
		RangeVar   *rv = lfirst_node(RangeVar, lc);
		Oid			relid = RangeVarGetRelid(rv, NoLock, true);

		if (!OidIsValid(relid))
			continue;
		*named = lappend_oid(*named, relid);
		relids = list_append_unique_oid(relids, relid);
		if (rv->inh && has_subclass(relid))
			relids = list_concat_unique_oid(relids, find_all_inheritors(relid, NoLock, NULL));
	}
	if (stmt->behavior == DROP_CASCADE && relids != NIL)
	{
		for (;;)
		{
			List	   *more = list_difference_oid(heap_truncate_find_FKs(relids), relids);

			if (more == NIL)
				break;
			relids = list_concat(relids, more);
		}
	}
	return relids;
}

/*
 * holds_tuple - whether relid (a partitioned table: any of its partitions)
 * holds any tuple, dead ones included: a row deleted by a refresh stays
 * visible to older snapshots until VACUUM removes it, and TRUNCATE, which
 * is not MVCC-safe, would take it from them; with no tuple at all, no
 * snapshot sees a row, and TRUNCATE changes nothing.
 *
 * locked: the caller holds TRUNCATE's AccessExclusiveLock on relid (not
 * a partitioned table: check_truncated), so the answer stays true until
 * commit.  Else this is the early look before TRUNCATE waits for that
 * lock: a table is read only if AccessShareLock is free at once, and that
 * lock is given back (kept, TRUNCATE's lock would be an upgrade, and two
 * TRUNCATEs of one table would deadlock); a table it cannot read counts as
 * empty (the look under TRUNCATE's lock decides).  A row a VACUUM removes
 * after the early look was seen makes a refusal that the look under the
 * lock would not have made: conservative.
 */
static bool
holds_tuple(Oid relid, bool locked)
{
	Relation	rel;
	TableScanDesc scan;
	TupleTableSlot *slot;
	bool		found;
	char		relkind = get_rel_relkind(relid);

	if (relkind == RELKIND_PARTITIONED_TABLE)
	{
		ListCell   *lc;

		/* (under TRUNCATE's lock: locked with the parent, none made since) */
		foreach(lc, find_all_inheritors(relid, NoLock, NULL))
		{
			if (lfirst_oid(lc) != relid && holds_tuple(lfirst_oid(lc), locked))
				return true;
		}
		return false;
	}
	if (relkind != RELKIND_RELATION)
		return locked;
	if (!locked && !ConditionalLockRelationOid(relid, AccessShareLock))
		return false;
	rel = try_relation_open(relid, NoLock);
	if (rel == NULL)
		found = false;			/* (dropped: TRUNCATE says so) */
	else
	{
		scan = table_beginscan(rel, SnapshotAny, 0, NULL);
		slot = table_slot_create(rel, NULL);
		found = table_scan_getnextslot(scan, ForwardScanDirection, slot);
		ExecDropSingleTupleTableSlot(slot);
		table_endscan(scan);
		relation_close(rel, NoLock);
	}
	if (!locked)
		UnlockRelationOid(relid, AccessShareLock);
	return found;
}

/*
 * The TRUNCATE statement running now, if it reaches a dynamic table: the
 * relations it names (as looked up before it ran, for the refusal's
 * detail), and the dynamic tables it was let empty (check_truncated), which
 * nothing run by it (a BEFORE TRUNCATE trigger) may refresh: the refresh's
 * rows would be emptied with the table (dv_guard_set_refreshing).
 */
static bool truncate_running = false;
static List *truncate_named = NIL;
static List *truncate_allowed = NIL;
static List *truncate_locked = NIL;	/* locked by check_truncated, not by TRUNCATE */

/*
 * may_truncate - whether the current role may truncate the dynamic table
 * relid as far as the guard is concerned: with the TRUNCATE privilege, or
 * as an inheritance child or partition (PostgreSQL checks the privilege of
 * the table TRUNCATE names, not of its children).  A role that may not is
 * refused as before (cannot modify), whether the table holds rows or not.
 */
static bool
may_truncate(Oid relid)
{
	return has_superclass(relid) ||
		pg_class_aclcheck(relid, GetUserId(), ACL_TRUNCATE) == ACLCHECK_OK;
}

static const char *
truncate_detail(Oid relid, bool named)
{
	return named || list_member_oid(truncate_named, relid) ?
		"Dynamic tables are written only by their refreshes; TRUNCATE is allowed only of one that holds no row (as a parallel pg_restore truncates the tables it has just made)." :
		"TRUNCATE reaches it through an inheritance parent or, with CASCADE, a foreign key.";
}

/*
 * check_truncated - TRUNCATE checks the dynamic table relid
 * (truncate_check_rel's object access hook, OAT_TRUNCATE): for a table it
 * names, just before it takes its lock; for a partition or child, and a
 * table CASCADE reaches, under it.  So the table is looked at under
 * TRUNCATE's own lock, taken here in TRUNCATE's order (a named table's a
 * moment early), after the name was resolved again if it changed while
 * TRUNCATE waited, and a partition is looked at after its parent was
 * locked (none can be made since).  A partitioned table's partitions are
 * looked at (holds_tuple's early look) to refuse it by its own name; each
 * is looked at again under its lock.
 */
static void
check_truncated(Oid relid)
{
	MemoryContext old;

	/*
	 * Not locked yet: a table TRUNCATE names (it locks its children and the
	 * tables CASCADE reaches before it checks them), looked up by the name
	 * it has now (truncate_named was looked up before the wait).
	 */
	bool		named = !CheckRelationOidLockedByMe(relid, AccessExclusiveLock, true);

	if (!may_truncate(relid))
		refuse_write(relid, NULL);
	if (get_rel_relkind(relid) == RELKIND_PARTITIONED_TABLE)
	{
		if (holds_tuple(relid, false))
			refuse_write(relid, truncate_detail(relid, named));
		return;
	}
	if (named)
	{
		LockRelationOid(relid, AccessExclusiveLock);
		/* (given back if TRUNCATE then empties another table of the name: truncate_unlock) */
		old = MemoryContextSwitchTo(TopMemoryContext);
		truncate_locked = lappend_oid(truncate_locked, relid);
		MemoryContextSwitchTo(old);
	}
	/* (dropped while this waited: TRUNCATE looks the name up again, and comes back) */
	if (!SearchSysCacheExists1(RELOID, ObjectIdGetDatum(relid)))
		return;
	if (holds_tuple(relid, true))
		refuse_write(relid, truncate_detail(relid, named));
	old = MemoryContextSwitchTo(TopMemoryContext);
	truncate_allowed = lappend_oid(truncate_allowed, relid);
	MemoryContextSwitchTo(old);
}

/*
 * truncate_unlock - after TRUNCATE: the locks check_truncated took on a
 * table that TRUNCATE then did not empty (renamed while TRUNCATE waited,
 * and the name led to another table) are given back, as TRUNCATE gives
 * back its own (RangeVarGetRelidExtended); the others stay, as TRUNCATE's.
 */
static void
truncate_unlock(TruncateStmt *stmt)
{
	List	   *named;
	List	   *emptied;
	ListCell   *lc;

	if (truncate_locked == NIL)
		return;
	emptied = truncated_relations(stmt, &named);
	foreach(lc, truncate_locked)
	{
		if (!list_member_oid(emptied, lfirst_oid(lc)))
			UnlockRelationOid(lfirst_oid(lc), AccessExclusiveLock);
	}
}

static object_access_hook_type prev_object_access = NULL;

/*
 * nested_in_refresh - does code that a refresh runs run now (a function the
 * planner folds, a trigger, an operator's function), deeper than the
 * refresh's own levels?  dynview's own DDL in a refresh (retype_columns:
 * the table's column types; the FULL refresh's work tables; state tables)
 * runs at those levels, or one utility level below them.
 */
static bool
nested_in_refresh(void)
{
	return OidIsValid(refreshing) &&
		(exec_nesting > refreshing_exec_level || utility_nesting > refreshing_utility_level + 1);
}

/*
 * refuse_refresh_ddl - code that a refresh runs may not drop or alter a
 * dynamic table, nor a source of the table being refreshed (a partition or
 * inheritance child of one included), nor a column or an index of one: the
 * refresh's statements were made for them as they were (a refresh reading
 * a table its own transaction dropped failed with internal errors, such as
 * "type with OID 0 does not exist"; one whose source gained a partition
 * missed its rows for good).  what: "drop" or "alter"; relid a table or an
 * index; attname the column dropped, or NULL.  The caller checked
 * nested_in_refresh().
 */
static void
refuse_refresh_ddl(const char *what, Oid relid, const char *attname)
{
	char		relkind = get_rel_relkind(relid);
	Oid			table = relid;
	Oid			source;
	bool		dynamic;
	const char *part;

	if (relkind == RELKIND_INDEX || relkind == RELKIND_PARTITIONED_INDEX)
		table = IndexGetRelation(relid, true);
	if (!OidIsValid(table))
		return;
	source = refreshing_source_of(table);
	dynamic = !OidIsValid(source) && is_dynamic_table(table);
	if (!OidIsValid(source) && !dynamic)
		return;
	part = attname ? "a column of" : table != relid ? "an index of" : NULL;
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_IN_USE),
			 attname ?
			 errmsg("cannot %s column \"%s\" of \"%s\" during a refresh of dynamic table \"%s\"",
					what, attname, get_rel_name(table), get_rel_name(refreshing)) :
			 table != relid ?
			 errmsg("cannot %s index \"%s\" of \"%s\" during a refresh of dynamic table \"%s\"",
					what, get_rel_name(relid), get_rel_name(table), get_rel_name(refreshing)) :
			 errmsg("cannot %s \"%s\" during a refresh of dynamic table \"%s\"",
					what, get_rel_name(relid), get_rel_name(refreshing)),
			 dynamic ?
			 errdetail("A trigger, rule or function run by a refresh may not %s %s%sa dynamic table.",
					   what, part ? part : "", part ? " " : "") :
			 source_detail(table, source, psprintf("%s%s%s", what, part ? " " : "", part ? part : "")),
			 errhint("Run the DDL before or after the refresh.")));
}

/* refuse_refresh_ddl of the relation a RangeVar names, if it exists */
static void
refuse_refresh_ddl_on(const char *what, RangeVar *rv, const char *attname)
{
	Oid			relid = rv ? RangeVarGetRelid(rv, NoLock, true) : InvalidOid;

	if (OidIsValid(relid))
		refuse_refresh_ddl(what, relid, attname);
}

/*
 * refuse_refresh_utility - refuse_refresh_ddl of what a utility statement
 * run by a refresh drops or alters, before it runs: DROP TABLE and DROP
 * INDEX (the object access hook sees a table's indexes dropped before the
 * table, and would name an index); ALTER TABLE, with subcommands that call
 * no post-alter hook on the table (ADD COLUMN; ATTACH and DETACH
 * PARTITION, INHERIT and NO INHERIT, which change the rows a source holds
 * and name a second table, checked too); CREATE TABLE ... PARTITION OF or
 * INHERITS a source (refused as the source's alteration, which names the
 * source, not the new table); and policies and rules of a table
 * (the refresh's later statements would see other rows; a rule "_RETURN"
 * makes an empty table a view).
 */
static void
refuse_refresh_utility(Node *parsetree)
{
	ListCell   *lc;

	if (!nested_in_refresh())
		return;
	if (IsA(parsetree, AlterTableStmt))
	{
		AlterTableStmt *stmt = (AlterTableStmt *) parsetree;

		foreach(lc, stmt->cmds)
		{
			AlterTableCmd *cmd = lfirst(lc);

			if (cmd->subtype == AT_DropColumn)
				refuse_refresh_ddl_on("drop", stmt->relation, cmd->name);
			else if (cmd->subtype == AT_AttachPartition || cmd->subtype == AT_DetachPartition ||
					 cmd->subtype == AT_DetachPartitionFinalize)
				refuse_refresh_ddl_on("alter", ((PartitionCmd *) cmd->def)->name, NULL);
			else if (cmd->subtype == AT_AddInherit || cmd->subtype == AT_DropInherit)
				refuse_refresh_ddl_on("alter", (RangeVar *) cmd->def, NULL);
		}
		refuse_refresh_ddl_on("alter", stmt->relation, NULL);
	}
	else if (IsA(parsetree, CreateStmt) || IsA(parsetree, CreateForeignTableStmt))
	{
		/* a partition or an inheritance child of a source: refused as the source's alteration */
		foreach(lc, ((CreateStmt *) parsetree)->inhRelations)
			refuse_refresh_ddl_on("alter", lfirst_node(RangeVar, lc), NULL);
	}
	else if (IsA(parsetree, CreatePolicyStmt))
		refuse_refresh_ddl_on("alter", ((CreatePolicyStmt *) parsetree)->table, NULL);
	else if (IsA(parsetree, RuleStmt))
		refuse_refresh_ddl_on("alter", ((RuleStmt *) parsetree)->relation, NULL);
	else if (IsA(parsetree, AlterPolicyStmt))
		refuse_refresh_ddl_on("alter", ((AlterPolicyStmt *) parsetree)->table, NULL);
	else if (IsA(parsetree, DropStmt))
	{
		DropStmt   *stmt = (DropStmt *) parsetree;

		foreach(lc, stmt->objects)
		{
			List	   *names = lfirst(lc);

			if (stmt->removeType == OBJECT_TABLE || stmt->removeType == OBJECT_INDEX ||
				stmt->removeType == OBJECT_FOREIGN_TABLE)
				refuse_refresh_ddl_on("drop", makeRangeVarFromNameList(names), NULL);
			else if (stmt->removeType == OBJECT_POLICY)
				/* (the table's name, then the policy's) */
				refuse_refresh_ddl_on("alter", makeRangeVarFromNameList(list_truncate(list_copy(names),
																					 list_length(names) - 1)),
									  NULL);
		}
	}
}

static void
guard_object_access(ObjectAccessType access, Oid classId, Oid objectId, int subId, void *arg)
{
	if (prev_object_access)
		prev_object_access(access, classId, objectId, subId, arg);
	/* (called for every object access, namespace searches included: the flag first) */
	if (truncate_running && access == OAT_TRUNCATE && is_dynamic_table(objectId))
		check_truncated(objectId);
	if (OidIsValid(refreshing) && classId == RelationRelationId &&
		(access == OAT_DROP || access == OAT_POST_ALTER) &&
		nested_in_refresh())
		refuse_refresh_ddl(access == OAT_DROP ? "drop" : "alter", objectId,
						   access == OAT_DROP && subId > 0 ? get_attname(objectId, subId, false) : NULL);
}

/* the relation a RangeVar names, if it exists and is a dynamic table */
static Oid
dynamic_table_named(RangeVar *rv)
{
	Oid			relid = rv ? RangeVarGetRelid(rv, NoLock, true) : InvalidOid;

	return OidIsValid(relid) && is_dynamic_table(relid) ? relid : InvalidOid;
}

static void
refuse_inheritance(Oid relid)
{
	ereport(ERROR,
			(errcode(ERRCODE_WRONG_OBJECT_TYPE),
			 errmsg("dynamic table \"%s\" cannot take part in inheritance or partitioning",
					get_rel_name(relid)),
			 errdetail("Rows written through a parent would change the dynamic table outside its refreshes, and a child's rows would show in it."),
			 errhint("Create a dynamic table whose query reads the tables instead.")));
}

/* the dynamic table whose columns dynview itself is changing (dv_guard_allow_column_ddl), and in which transaction */
static Oid	ddl_allowed = InvalidOid;
static LocalTransactionId ddl_allowed_lxid = InvalidLocalTransactionId;

/*
 * check_foreign_keys - node is a table element or ALTER TABLE definition: a
 * foreign key that references a dynamic table is refused.  A refresh writes
 * a changed row as a delete and an insert, so ON DELETE CASCADE would
 * delete the referencing rows of a row that stays, and NO ACTION would
 * make the refresh fail.
 */
static void
check_foreign_keys(Node *node)
{
	List	   *constraints = NIL;
	ListCell   *lc;
	Oid			relid;

	if (node == NULL)
		return;
	if (IsA(node, ColumnDef))
		constraints = ((ColumnDef *) node)->constraints;
	else if (IsA(node, Constraint))
		constraints = list_make1(node);
	foreach(lc, constraints)
	{
		Constraint *c = lfirst_node(Constraint, lc);
		const char *schema;

		/* (its ON DELETE or ON UPDATE action would run inside dynview's own writes) */
		if (c->contype == CONSTR_FOREIGN && c->pktable != NULL &&
			OidIsValid(internal_named(c->pktable, &schema)))
			refuse_internal_code(schema, c->pktable->relname, "a foreign key cannot reference \"%s\"");
		if (c->contype == CONSTR_FOREIGN && c->pktable != NULL &&
			OidIsValid(relid = dynamic_table_named(c->pktable)))
			ereport(ERROR,
					(errcode(ERRCODE_WRONG_OBJECT_TYPE),
					 errmsg("a foreign key cannot reference dynamic table \"%s\"", get_rel_name(relid)),
					 errdetail("A refresh writes a changed row as a delete and an insert, which referencing rows would not survive."),
					 errhint("Check the reference with a trigger, or reference the dynamic table's sources.")));
	}
}

/*
 * dv_guard_allow_column_ddl - dynview itself is about to change the columns
 * of dynamic table relid (a replaced definition, a retype after a source's
 * column types changed); InvalidOid ends it.  An error leaves it set for one
 * table in that transaction only.
 */
void
dv_guard_allow_column_ddl(Oid relid)
{
	ddl_allowed = relid;
	ddl_allowed_lxid = MyProc->lxid;
}

/*
 * check_structure - refuse DDL that would let other statements change what
 * a dynamic table holds: a rule on it (a refresh's INSERT or DELETE would
 * run the rule's actions, or be replaced by them), and inheritance or
 * partitioning with it as parent or child, and a BEFORE ROW trigger on it
 * (it could change or skip the rows a refresh writes).
 */
static void
check_structure(Node *parsetree)
{
	Oid			relid;
	ListCell   *lc;

	/*
	 * A change buffer or state table takes no rule or trigger: a BEFORE ROW
	 * trigger on a state could change the values refreshes build on (the
	 * dynamic table then wrong until its next FULL refresh), a deferred one
	 * would fail every refresh, and none is any use.
	 */
	if (IsA(parsetree, RuleStmt) || IsA(parsetree, CreateTrigStmt))
	{
		RangeVar   *rv = IsA(parsetree, RuleStmt) ? ((RuleStmt *) parsetree)->relation
			: ((CreateTrigStmt *) parsetree)->relation;
		Oid			target = rv ? RangeVarGetRelid(rv, NoLock, true) : InvalidOid;
		const char *schema = internal_schema(target);
		Oid			dvnsp = get_namespace_oid(DV_SCHEMA, true);

		/*
		 * Nor does dynview.decoder_state: only the decoder worker writes it,
		 * and all it writes there is its own (never decoded), so that what
		 * a trigger or rule wrote would be missed.
		 */
		if (OidIsValid(target) && OidIsValid(dvnsp) &&
			target == get_relname_relid("decoder_state", dvnsp))
			ereport(ERROR,
					(errcode(ERRCODE_WRONG_OBJECT_TYPE),
					 errmsg("cannot create a %s on \"%s.%s\"", IsA(parsetree, RuleStmt) ? "rule" : "trigger",
							DV_SCHEMA, rv->relname),
					 errdetail("It is written only by dynview's decoder, whose writes there are never decoded: what a %s wrote would be missed by the dynamic tables reading it.",
							   IsA(parsetree, RuleStmt) ? "rule" : "trigger"),
					 errhint("Read dynview.cdc_status instead.")));
		if (schema != NULL)
			ereport(ERROR,
					(errcode(ERRCODE_WRONG_OBJECT_TYPE),
					 errmsg("cannot create a %s on \"%s.%s\"", IsA(parsetree, RuleStmt) ? "rule" : "trigger",
							schema, rv->relname),
					 errdetail("It is a change buffer or state table of dynview, written only by change capture and refreshes."),
					 errhint("Put the %s on a source table or a dynamic table.",
							 IsA(parsetree, RuleStmt) ? "rule" : "trigger")));
	}
	if (IsA(parsetree, RuleStmt))
	{
		if (OidIsValid(relid = dynamic_table_named(((RuleStmt *) parsetree)->relation)))
			ereport(ERROR,
					(errcode(ERRCODE_WRONG_OBJECT_TYPE),
					 errmsg("cannot create a rule on dynamic table \"%s\"", get_rel_name(relid)),
					 errdetail("A rule would run other statements, or none, whenever a refresh writes the table."),
					 errhint("Put the rule on a source table, or read the dynamic table from a view.")));
	}
	else if (IsA(parsetree, CreateTrigStmt))
	{
		CreateTrigStmt *stmt = (CreateTrigStmt *) parsetree;

		/*
		 * A deferred trigger would fire inside the refresh's security-
		 * restricted operation, which PostgreSQL refuses: every refresh
		 * would fail.
		 */
		if (stmt->isconstraint && (stmt->deferrable || stmt->initdeferred) &&
			OidIsValid(relid = dynamic_table_named(stmt->relation)))
			ereport(ERROR,
					(errcode(ERRCODE_WRONG_OBJECT_TYPE),
					 errmsg("cannot create a deferrable constraint trigger on dynamic table \"%s\"", get_rel_name(relid)),
					 errdetail("A deferred trigger cannot fire within a refresh, which is a security-restricted operation."),
					 errhint("Use an AFTER trigger that is not deferrable.")));
		/* (AFTER triggers and statement triggers see the rows; they cannot change them) */
		if (stmt->row && (stmt->timing & TRIGGER_TYPE_BEFORE) &&
			OidIsValid(relid = dynamic_table_named(stmt->relation)))
			ereport(ERROR,
					(errcode(ERRCODE_WRONG_OBJECT_TYPE),
					 errmsg("cannot create a BEFORE ROW trigger on dynamic table \"%s\"", get_rel_name(relid)),
					 errdetail("The trigger could change or skip the rows a refresh writes."),
					 errhint("Use an AFTER trigger.")));
	}
	else if (IsA(parsetree, CreateStmt) || IsA(parsetree, CreateForeignTableStmt))
	{
		/* (a CreateForeignTableStmt starts with its CreateStmt) */
		foreach(lc, ((CreateStmt *) parsetree)->inhRelations)
		{
			if (OidIsValid(relid = dynamic_table_named(lfirst_node(RangeVar, lc))))
				refuse_inheritance(relid);
		}
		foreach(lc, ((CreateStmt *) parsetree)->tableElts)
			check_foreign_keys(lfirst(lc));
	}
	else if (IsA(parsetree, AlterTableStmt))
	{
		AlterTableStmt *stmt = (AlterTableStmt *) parsetree;
		Oid			altered = InvalidOid;

		if (stmt->objtype == OBJECT_TABLE)
			altered = dynamic_table_named(stmt->relation);
		foreach(lc, stmt->cmds)
		{
			AlterTableCmd *cmd = lfirst_node(AlterTableCmd, lc);

			if (cmd->subtype == AT_AddConstraint || cmd->subtype == AT_AddColumn)
				check_foreign_keys(cmd->def);
			/*
			 * columns of a dynamic table change only with its definition (nor
			 * become identity columns: one GENERATED ALWAYS refuses the values
			 * the refreshes' INSERT writes, and a direct apply wrote them)
			 */
			if (OidIsValid(altered) && (altered != ddl_allowed || ddl_allowed_lxid != MyProc->lxid) &&
				(cmd->subtype == AT_AddColumn || cmd->subtype == AT_DropColumn ||
				 cmd->subtype == AT_AlterColumnType || cmd->subtype == AT_AddOf ||
				 cmd->subtype == AT_AddIdentity || cmd->subtype == AT_SetIdentity))
				ereport(ERROR,
						(errcode(ERRCODE_WRONG_OBJECT_TYPE),
						 errmsg("cannot change the columns of dynamic table \"%s\"", get_rel_name(altered)),
						 errdetail("A dynamic table has exactly its query's columns, filled by its refreshes."),
						 errhint("Give the table a new definition with dynview.create_or_replace_dynamic_table().")));

			if (cmd->subtype == AT_AddInherit &&
				(OidIsValid(relid = dynamic_table_named(stmt->relation)) ||
				 OidIsValid(relid = dynamic_table_named((RangeVar *) cmd->def))))
				refuse_inheritance(relid);
			/* (but the partitions dynview attaches to a partitioned dynamic table) */
			if (cmd->subtype == AT_AttachPartition &&
				OidIsValid(relid = dynamic_table_named(((PartitionCmd *) cmd->def)->name)) &&
				(relid != ddl_allowed || ddl_allowed_lxid != MyProc->lxid))
				refuse_inheritance(relid);
			/* a partition of a partitioned dynamic table stays its partition */
			if ((cmd->subtype == AT_DetachPartition || cmd->subtype == AT_DetachPartitionFinalize) &&
				OidIsValid(altered) && get_rel_relkind(altered) == RELKIND_PARTITIONED_TABLE)
				ereport(ERROR,
						(errcode(ERRCODE_WRONG_OBJECT_TYPE),
						 errmsg("cannot detach a partition of partitioned dynamic table \"%s\"",
								get_rel_name(altered)),
						 errdetail("Each partition holds the query's result for its value, filled by refreshes of the table."),
						 errhint("Drop the partition with DROP TABLE, or let the table's retention drop it.")));
		}
		/* dynview's allowance is for its one statement */
		if (OidIsValid(altered) && altered == ddl_allowed)
			ddl_allowed = InvalidOid;
	}
	else if (IsA(parsetree, RenameStmt))
	{
		RenameStmt *stmt = (RenameStmt *) parsetree;
		const char *schema;

		/*
		 * dynview's schemas keep their names: the decoder and refreshes name
		 * them in their statements, and a change decoded while one was
		 * renamed was lost, so that the tables over it missed it for good
		 * once the name came back (regress brk18_buffer_rename)
		 */
		if (stmt->renameType == OBJECT_SCHEMA && stmt->subname != NULL &&
			(strcmp(stmt->subname, DV_SCHEMA) == 0 || strcmp(stmt->subname, DV_BUFFER_SCHEMA) == 0 ||
			 strcmp(stmt->subname, "dynview_state") == 0))
			ereport(ERROR,
					(errcode(ERRCODE_WRONG_OBJECT_TYPE),
					 errmsg("cannot rename schema \"%s\"", stmt->subname),
					 errdetail("It is a schema of dynview, which change capture and refreshes find by its name."),
					 errhint("Leave dynview's schemas their names; drop the extension to remove them.")));

		/*
		 * A change buffer is found by its name and its columns by theirs
		 * (the source's): renamed, its source is no longer captured where
		 * the refreshes read, and every refresh of the tables over it was
		 * FULL (SOURCE_NOT_TRACKED) until it got its name back (regress
		 * brk18_buffer_rename).  dynview never renames one.
		 */
		if (stmt->relation != NULL && !own_ddl() &&
			OidIsValid(internal_named(stmt->relation, &schema)) &&
			strcmp(schema, DV_BUFFER_SCHEMA) == 0)
			ereport(ERROR,
					(errcode(ERRCODE_WRONG_OBJECT_TYPE),
					 errmsg("cannot rename change buffer \"%s.%s\" or its columns", schema,
							stmt->relation->relname),
					 errdetail("Change capture and refreshes find a change buffer by its name, and its columns by the names of its source's columns."),
					 errhint("Rename the source table or its columns instead: its buffer follows.")));
		if (stmt->renameType == OBJECT_COLUMN && stmt->relationType == OBJECT_TABLE &&
			OidIsValid(relid = dynamic_table_named(stmt->relation)))
			ereport(ERROR,
					(errcode(ERRCODE_WRONG_OBJECT_TYPE),
					 errmsg("cannot rename a column of dynamic table \"%s\"", get_rel_name(relid)),
					 errdetail("A dynamic table's columns are named by its query."),
					 errhint("Give the table a new definition with dynview.create_or_replace_dynamic_table().")));
	}
}

/*
 * check_internal_index - a superuser's CREATE INDEX on a state table may
 * only index columns, with a built-in access method and no expression or
 * predicate, each key column one whose comparison runs no user code with
 * its operator class (named or its type's default): the definition the
 * refreshes' backstop asks of an index already there
 * (dv_index_column_runs_user_code: the column's type runs none, the
 * class's family and its members for the class's type are built in);
 * such an index runs no user code when refreshes write the state.  A change buffer takes no index at all:
 * change capture appends its rows with heap_insert and heap_multi_insert,
 * which write no index entries (decoder.c, incremental.c), so an index
 * would miss them and a read through it would miss changes.
 */
static void
check_internal_index(IndexStmt *stmt, Oid relid, const char *schema)
{
	const char *name = get_rel_name(relid);
	Oid			am;
	ListCell   *lc;

	if (strcmp(schema, DV_BUFFER_SCHEMA) == 0)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("cannot index change buffer \"%s.%s\"", schema, name),
				 errdetail("Change capture appends rows to change buffers without writing index entries: an index would miss them."),
				 errhint("Index the source table or the dynamic table instead.")));
	am = get_index_am_oid(stmt->accessMethod, false);
	if (am >= FirstNormalObjectId || stmt->whereClause != NULL)
		refuse_internal_code(schema, name, am >= FirstNormalObjectId
							 ? "cannot index \"%s\" with an access method that is not built in"
							 : "cannot create a partial index on \"%s\"");
	foreach(lc, stmt->indexParams)
	{
		IndexElem  *elem = lfirst_node(IndexElem, lc);
		AttrNumber	att = elem->name ? get_attnum(relid, elem->name) : InvalidAttrNumber;
		Oid			type;
		Oid			opclass;

		if (elem->expr != NULL)
			refuse_internal_code(schema, name, "cannot create an expression index on \"%s\"");
		/* (a column that does not exist: DefineIndex says so) */
		if (att == InvalidAttrNumber)
			continue;
		type = get_atttype(relid, att);
		opclass = elem->opclass != NIL ? ResolveOpClass(elem->opclass, type, stmt->accessMethod, am)
			: GetDefaultOpClass(type, am);
		/* (a type without a default operator class: DefineIndex says so) */
		if (!OidIsValid(opclass))
			continue;
		if (dv_index_column_runs_user_code(type, get_opclass_family(opclass),
										   get_opclass_input_type(opclass)))
			refuse_internal_code(schema, name, "cannot index a column of \"%s\" whose type or operator class is not built in");
	}
}

/*
 * internal_alter_allowed - the ALTER TABLE (ALTER INDEX) actions a
 * superuser may take on a change buffer or state table (a DBA tuning
 * them): storage parameters, statistics targets, column storage and
 * compression, clustering and tablespaces, none of which runs code on the
 * rows written or changes what refreshes and change capture read.
 */
static bool
internal_alter_allowed(AlterTableType subtype)
{
	switch (subtype)
	{
		case AT_SetRelOptions:
		case AT_ResetRelOptions:
		case AT_ReplaceRelOptions:
		case AT_SetStatistics:
		case AT_SetStorage:
		case AT_SetCompression:
		case AT_ClusterOn:
		case AT_DropCluster:
		case AT_SetTableSpace:
			return true;
		default:
			return false;
	}
}

/*
 * refuse_internal_ddl - DDL that would shape a change buffer or state
 * table (or one of its indexes) other than dynview does, or let code run
 * inside the writes to it.  dynview's own DDL (own_ddl) passes.
 *
 * The writes to these tables (change capture's, the refreshes' own writes:
 * refresh.c writes_are_own) are marked as dynview's own, which the decoder
 * never decodes; a CHECK constraint, a default, a row-level security
 * policy, an index expression or predicate, an operator class's functions,
 * or a foreign key action of a referencing table runs inside them, and
 * what such code writes to any table is then never captured: the dynamic
 * tables over that table miss it for good (regress brk14_internal_ddl,
 * brk17_superuser_state_index).  So:
 *	- a role that is not superuser may not ALTER, index or move them at all
 *	  (a state table is owned by its dynamic table's owner);
 *	- a superuser (a DBA tuning them) may index a state table's columns
 *	  (check_internal_index) and take the ALTER actions of
 *	  internal_alter_allowed; nothing else, since PostgreSQL offers no
 *	  role that passes every check;
 *	- nobody may make one a partition (ATTACH PARTITION clones the
 *	  parent's indexes and triggers into it) or a parent (INHERIT, CREATE
 *	  TABLE ... INHERITS: a child's rows would show in its reads), point a
 *	  foreign key at it (check_foreign_keys: its actions run on the
 *	  refreshes' deletes), or give it a policy.
 * Rules and triggers on them are refused by check_structure.
 */
static void
refuse_internal_ddl(Node *parsetree)
{
	RangeVar   *rv = NULL;
	Oid			relid;
	const char *schema;
	ListCell   *lc;

	if (own_ddl())
		return;
	if (IsA(parsetree, CreatePolicyStmt))
	{
		rv = ((CreatePolicyStmt *) parsetree)->table;
		if (OidIsValid(relid = internal_named(rv, &schema)))
			refuse_internal_code(schema, rv->relname, "cannot create a policy on \"%s\"");
		return;
	}
	if (IsA(parsetree, CreateStmt))
	{
		foreach(lc, ((CreateStmt *) parsetree)->inhRelations)
		{
			rv = lfirst_node(RangeVar, lc);
			if (OidIsValid(relid = internal_named(rv, &schema)))
				refuse_internal_code(schema, rv->relname, "cannot inherit from \"%s\"");
		}
		return;
	}
	if (IsA(parsetree, AlterTableStmt))
	{
		foreach(lc, ((AlterTableStmt *) parsetree)->cmds)
		{
			AlterTableCmd *cmd = lfirst_node(AlterTableCmd, lc);

			rv = cmd->subtype == AT_AttachPartition ? ((PartitionCmd *) cmd->def)->name
				: cmd->subtype == AT_AddInherit ? (RangeVar *) cmd->def : NULL;
			if (OidIsValid(relid = internal_named(rv, &schema)))
				refuse_internal_code(schema, rv->relname, cmd->subtype == AT_AttachPartition
									 ? "cannot attach \"%s\" as a partition"
									 : "cannot inherit from \"%s\"");
		}
		rv = ((AlterTableStmt *) parsetree)->relation;
	}
	else if (IsA(parsetree, IndexStmt))
		rv = ((IndexStmt *) parsetree)->relation;
	else if (IsA(parsetree, AlterObjectSchemaStmt))
		rv = ((AlterObjectSchemaStmt *) parsetree)->relation;
	if (!OidIsValid(relid = internal_named(rv, &schema)))
		return;
	if (!superuser())
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("cannot alter or index \"%s.%s\"", schema, rv->relname),
				 errdetail("It is a change buffer or state table of dynview, shaped and written only by change capture and refreshes."),
				 errhint("Index or alter the dynamic table itself.")));
	if (IsA(parsetree, IndexStmt))
		check_internal_index((IndexStmt *) parsetree, relid, schema);
	else if (IsA(parsetree, AlterObjectSchemaStmt))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("cannot move \"%s.%s\" to another schema", schema, rv->relname),
				 errdetail("Change capture and refreshes find their change buffers and state tables in schema \"%s\".", schema),
				 errhint("Move the dynamic table itself.")));
	else
	{
		foreach(lc, ((AlterTableStmt *) parsetree)->cmds)
		{
			if (!internal_alter_allowed(lfirst_node(AlterTableCmd, lc)->subtype))
				ereport(ERROR,
						(errcode(ERRCODE_WRONG_OBJECT_TYPE),
						 errmsg("cannot make this change to \"%s.%s\"", schema, rv->relname),
						 errdetail("It is a change buffer or state table of dynview: only its storage parameters, statistics targets, column storage, clustering and tablespace may be changed. " INTERNAL_CODE_DETAIL),
						 errhint("Index or alter the dynamic table itself.")));
		}
	}
}

/* the one refusal of a change to dynview's functions */
static void
refuse_function_change(const char *schema, const char *name, const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_WRONG_OBJECT_TYPE),
			 errmsg(what, schema, name),
			 errdetail("dynview's functions are its code: change capture and refreshes rely on what they do, and a replaced one would make dynamic tables silently wrong."),
			 errhint("Leave schema \"%s\" to dynview; install another version of dynview with ALTER EXTENSION dynview UPDATE.", DV_SCHEMA)));
}

/*
 * dynview_function - is fn (or InvalidOid) one of dynview's functions: in
 * its schema dv, or a member of its extension ext?  Reads pg_proc and
 * pg_depend.
 */
static bool
dynview_function(Oid fn, Oid ext, Oid dv)
{
	return OidIsValid(fn) &&
		(get_func_namespace(fn) == dv || getExtensionOfObject(ProcedureRelationId, fn) == ext);
}

/*
 * refuse_function_ddl - dynview's functions keep their code: outside the
 * extension's own scripts (CREATE and ALTER EXTENSION ... UPDATE), to
 * superusers too, CREATE [OR REPLACE] FUNCTION (or PROCEDURE) in schema
 * dynview, OR REPLACE of a function of the extension elsewhere, and moving
 * a function into schema dynview or renaming one there fail.  The
 * catalog's trigger _catalog_data_origin replaced by one returning NULL
 * skipped every refresh's update of the catalog row silently (the next
 * refresh applied the same changes again); _window_contains replaced made
 * refreshes miss changes and verify() agree with them (regress
 * brk19_member_functions).  PostgreSQL keeps a replaced function a member
 * of its extension, so no later test of membership would tell; and the
 * generated SQL names dynview's functions by schema and name, so a
 * function put there under such a name (created, moved, renamed) would be
 * called instead.  So do ALTER FUNCTION (PROCEDURE, ROUTINE) of one of
 * dynview's functions (dynview_function), its OWNER TO and SET SCHEMA out
 * of dynview: SECURITY DEFINER on create_dynamic_table let an ordinary
 * role create a table owned by the function's owner, a superuser, whose
 * query ran the role's code as that superuser; a SET clause changes the
 * settings its code runs under; an ordinary owner could do the same
 * (regress brk20_function_alter).  Aggregates alike (CREATE [OR REPLACE]
 * AGGREGATE, ALTER AGGREGATE ... RENAME, OWNER TO, SET SCHEMA): a replaced
 * dynview._nonnull_count gave aggregate state fills wrong non-null counts.
 * COMMENT, SECURITY LABEL and GRANT or REVOKE stay allowed.  Reads pg_proc
 * and pg_depend; needs a transaction.
 */
/* a FUNCTION, PROCEDURE, ROUTINE or AGGREGATE: a row of pg_proc */
static bool
routine_object(ObjectType type)
{
	return type == OBJECT_FUNCTION || type == OBJECT_PROCEDURE || type == OBJECT_ROUTINE ||
		type == OBJECT_AGGREGATE;
}

/* the refusal's message what, its noun "function" made "aggregate" for an aggregate */
static const char *
routine_message(ObjectType type, const char *what)
{
	const char *noun = strstr(what, "function");
	StringInfoData buf;

	if (type != OBJECT_AGGREGATE || noun == NULL)
		return what;
	initStringInfo(&buf);
	appendBinaryStringInfo(&buf, what, noun - what);
	appendStringInfoString(&buf, "aggregate");
	appendStringInfoString(&buf, noun + strlen("function"));
	return buf.data;
}

/* type, or OBJECT_AGGREGATE where fn (valid) is an aggregate */
static ObjectType
routine_kind(ObjectType type, Oid fn)
{
	return OidIsValid(fn) && get_func_prokind(fn) == PROKIND_AGGREGATE ? OBJECT_AGGREGATE : type;
}

/*
 * refuse_routine_create - CREATE [OR REPLACE] FUNCTION / PROCEDURE /
 * AGGREGATE names (of kind type): refused in schema dynview, and as OR
 * REPLACE of a member of the extension ext anywhere
 */
static void
refuse_routine_create(ObjectType type, List *names, bool replace, Oid ext, Oid dv)
{
	char	   *name;
	Oid			nsp = QualifiedNameGetCreationNamespace(names, &name);
	CatCList   *list;
	bool		member = false;

	list = SearchSysCacheList1(PROCNAMEARGSNSP, CStringGetDatum(name));
	for (int i = 0; i < list->n_members && replace && !member; i++)
	{
		Form_pg_proc proc = (Form_pg_proc) GETSTRUCT(&list->members[i]->tuple);

		member = proc->pronamespace == nsp &&
			getExtensionOfObject(ProcedureRelationId, proc->oid) == ext;
	}
	ReleaseSysCacheList(list);
	if (member)
		refuse_function_change(get_namespace_name(nsp), name,
							   routine_message(type, "cannot replace function \"%s.%s\" of extension dynview"));
	if (nsp == dv)
		refuse_function_change(DV_SCHEMA, name,
							   routine_message(type, "cannot create function \"%s.%s\" in dynview's schema"));
}

static void
refuse_function_ddl(Node *parsetree)
{
	Oid			ext = get_extension_oid("dynview", true);
	Oid			dv = get_namespace_oid(DV_SCHEMA, true);

	if (!OidIsValid(ext) || !OidIsValid(dv) || (creating_extension && CurrentExtensionObject == ext))
		return;
	if (IsA(parsetree, CreateFunctionStmt))
	{
		CreateFunctionStmt *stmt = (CreateFunctionStmt *) parsetree;

		refuse_routine_create(stmt->is_procedure ? OBJECT_PROCEDURE : OBJECT_FUNCTION,
							  stmt->funcname, stmt->replace, ext, dv);
	}
	else if (IsA(parsetree, DefineStmt) && ((DefineStmt *) parsetree)->kind == OBJECT_AGGREGATE)
	{
		DefineStmt *stmt = (DefineStmt *) parsetree;

		refuse_routine_create(OBJECT_AGGREGATE, stmt->defnames, stmt->replace, ext, dv);
	}
	else if (IsA(parsetree, AlterObjectSchemaStmt))
	{
		AlterObjectSchemaStmt *stmt = (AlterObjectSchemaStmt *) parsetree;
		Oid			fn;

		if (!routine_object(stmt->objectType))
			return;
		fn = LookupFuncWithArgs(stmt->objectType, (ObjectWithArgs *) stmt->object, true);
		if (strcmp(stmt->newschema, DV_SCHEMA) == 0)
			refuse_function_change(DV_SCHEMA, NameListToString(((ObjectWithArgs *) stmt->object)->objname),
								   routine_message(routine_kind(stmt->objectType, fn),
												   "cannot move function \"%2$s\" into schema \"%1$s\""));
		/* (out of it: the generated statements call it by its schema's name) */
		if (dynview_function(fn, ext, dv))
			refuse_function_change(DV_SCHEMA, NameListToString(((ObjectWithArgs *) stmt->object)->objname),
								   routine_message(routine_kind(stmt->objectType, fn),
												   "cannot move function \"%2$s\" out of schema \"%1$s\""));
	}
	else if (IsA(parsetree, AlterFunctionStmt))
	{
		AlterFunctionStmt *stmt = (AlterFunctionStmt *) parsetree;
		Oid			fn = LookupFuncWithArgs(stmt->objtype, stmt->func, true);

		if (dynview_function(fn, ext, dv))
			refuse_function_change(get_namespace_name(get_func_namespace(fn)), get_func_name(fn),
								   routine_message(routine_kind(stmt->objtype, fn),
												   "cannot alter function \"%s.%s\" of extension dynview"));
	}
	else if (IsA(parsetree, AlterOwnerStmt))
	{
		AlterOwnerStmt *stmt = (AlterOwnerStmt *) parsetree;
		Oid			fn;

		if (!routine_object(stmt->objectType))
			return;
		fn = LookupFuncWithArgs(stmt->objectType, (ObjectWithArgs *) stmt->object, true);
		if (dynview_function(fn, ext, dv))
			refuse_function_change(get_namespace_name(get_func_namespace(fn)), get_func_name(fn),
								   routine_message(routine_kind(stmt->objectType, fn),
												   "cannot change the owner of function \"%s.%s\" of extension dynview"));
	}
	else if (IsA(parsetree, RenameStmt))
	{
		RenameStmt *stmt = (RenameStmt *) parsetree;
		Oid			fn;

		if (!routine_object(stmt->renameType))
			return;
		fn = LookupFuncWithArgs(stmt->renameType, (ObjectWithArgs *) stmt->object, true);
		if (OidIsValid(fn) && get_func_namespace(fn) == dv)
			refuse_function_change(DV_SCHEMA, get_func_name(fn),
								   routine_message(routine_kind(stmt->renameType, fn),
												   "cannot rename function \"%s.%s\" of dynview"));
	}
}

/*
 * retyped_relation - the relation an ALTER TABLE changes the type of a
 * column of (ALTER COLUMN ... TYPE), or InvalidOid.  A look-up without a
 * lock (the ALTER takes its own).
 */
static Oid
retyped_relation(Node *parsetree)
{
	AlterTableStmt *stmt;
	ListCell   *lc;

	if (!IsA(parsetree, AlterTableStmt))
		return InvalidOid;
	stmt = (AlterTableStmt *) parsetree;
	foreach(lc, stmt->cmds)
	{
		if (lfirst_node(AlterTableCmd, lc)->subtype == AT_AlterColumnType)
			return RangeVarGetRelid(stmt->relation, NoLock, true);
	}
	return InvalidOid;
}

/* dv_as_owner_caught's step: the stored definition analysed, nothing kept */
static void
parse_step(DvTable *dt, void *arg)
{
	(void) dv_parse_definition(dt->definition);
}

/*
 * definition_analyses - does the stored definition of dynamic table relid
 * analyse now, as its refreshes analyse it (as its owner, search_path
 * pg_catalog, pg_temp)?  In a subtransaction rolled back: nothing of it is
 * kept.  If not, and error is not NULL, *error gets the error, in the
 * caller's memory context.
 */
static bool
definition_analyses(Oid relid, ErrorData **error)
{
	return dv_as_owner_caught(dv_catalog_load(relid), parse_step, NULL, false, error);
}

/*
 * refuse_retype - an ALTER TABLE ... ALTER COLUMN ... TYPE of a source has
 * run: each of readers (dynamic tables reading it whose definitions
 * analysed before it) must still analyse.  PostgreSQL refuses the change
 * for a column a view reads; a dynamic table's stored definition is not a
 * view's rule, so nothing stopped it, and the definition, written with the
 * old type's operators and casts (a citext column compared by citext's =,
 * turned to text), made every refresh fail with the parser's error.  Such
 * an ALTER is refused (0A000, the view's SQLSTATE), its error in the
 * detail, and the transaction rolls back; a change the definition still
 * analyses under (int to bigint) is allowed, and the next refresh is FULL
 * (SOURCE_ALTERED).  Regress brk20_retype_source.
 */
static void
refuse_retype(Oid relid, List *readers)
{
	ListCell   *lc;

	CommandCounterIncrement();
	foreach(lc, readers)
	{
		ErrorData  *edata = NULL;
		Oid			dt = lfirst_oid(lc);

		if (definition_analyses(dt, &edata))
			continue;
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot alter type of a column of \"%s\" used by dynamic table \"%s\"",
						get_rel_name(relid), get_rel_name(dt)),
				 errdetail("With the new type the table's query no longer analyses: %s", edata->message),
				 errhint("Give the dynamic table a definition that analyses under both types first (dynview.create_or_replace_dynamic_table), or drop it (dynview.drop_dynamic_table), alter the column and create it again; PostgreSQL refuses the same for a view.")));
	}
}

/*
 * lock_copied_tables - before COPY FROM into relid: if it is a dynamic
 * table, or a partitioned one, the locks a refresh of it (of each
 * partition, in OID order) takes (dv_lock_refresh_write), so that COPY and
 * a refresh of the table run one after the other.  A refresh that ran
 * beside the COPY read the table without its rows and then cleared the
 * FULL mark the COPY set: its rows stayed, and verify() was false (the
 * thirty-second session's tester; before the refresh lock, the refresh's
 * ExclusiveLock on the table kept them apart).  Returns whether relid is a
 * dynamic table (else nothing is locked, and COPY into a source or another
 * table looks nothing up again).
 */
static bool
lock_copied_tables(Oid relid)
{
	List	   *tables = NIL;
	ListCell   *lc;

	if (!is_dynamic_table(relid))
		return false;
	/*
	 * A partition of a partitioned dynamic table: its parent's lock first
	 * too, as COPY into the parent takes it (a transaction that copied into
	 * a partition and then into the parent deadlocked with a refresh by
	 * value, which takes the parent's lock, then the partition's).
	 */
	if (get_rel_relispartition(relid))
	{
		Oid			parent = get_partition_parent(relid, true);

		if (OidIsValid(parent) && is_dynamic_table(parent))
			LockRelationOid(parent, ShareUpdateExclusiveLock);
	}
	if (get_rel_relkind(relid) == RELKIND_PARTITIONED_TABLE)
	{
		/*
		 * The lock a partition's creation, refresh by value and alteration
		 * take on the parent (partitioned.c): no partition is made or
		 * locked in another order while the list is read and locked (one
		 * made while the COPY waited got its rows unlocked and lost its
		 * mark; one alteration of the parent deadlocked with the COPY).
		 */
		LockRelationOid(relid, ShareUpdateExclusiveLock);
		foreach(lc, find_all_inheritors(relid, NoLock, NULL))
		{
			if (lfirst_oid(lc) != relid && is_dynamic_table(lfirst_oid(lc)))
				tables = lappend_oid(tables, lfirst_oid(lc));
		}
		list_sort(tables, list_oid_cmp);
	}
	else
		tables = list_make1_oid(relid);
	foreach(lc, tables)
		dv_lock_refresh_write(lfirst_oid(lc));
	return true;
}

/*
 * mark_changed_outside - a statement that is no refresh wrote relid: if it
 * is a dynamic table, its next refresh is FULL (CHANGED_OUTSIDE_REFRESH);
 * for a partitioned dynamic table, that of each of its partitions (COPY
 * into it routes rows to them).
 */
static void
mark_changed_outside(Oid relid)
{
	if (!OidIsValid(relid) || !is_dynamic_table(relid))
		return;
	SPI_connect();
	if (get_rel_relkind(relid) == RELKIND_PARTITIONED_TABLE)
	{
		ListCell   *lc;

		foreach(lc, find_all_inheritors(relid, NoLock, NULL))
			dv_catalog_mark_changed_outside(lfirst_oid(lc));
	}
	else
		dv_catalog_mark_changed_outside(relid);
	SPI_finish();
}

static void
call_previous(PlannedStmt *pstmt, const char *queryString, bool readOnlyTree,
			  ProcessUtilityContext context, ParamListInfo params,
			  QueryEnvironment *queryEnv, DestReceiver *dest, QueryCompletion *qc)
{
	if (prev_ProcessUtility)
		prev_ProcessUtility(pstmt, queryString, readOnlyTree, context, params,
							queryEnv, dest, qc);
	else
		standard_ProcessUtility(pstmt, queryString, readOnlyTree, context, params,
								queryEnv, dest, qc);
}

static void
guard_process(PlannedStmt *pstmt, const char *queryString, bool readOnlyTree,
			  ProcessUtilityContext context, ParamListInfo params,
			  QueryEnvironment *queryEnv, DestReceiver *dest, QueryCompletion *qc)
{
	Oid			copied = InvalidOid;
	bool		partitions = false;
	List	   *detached = NIL;
	Oid			retyped = InvalidOid;
	List	   *retyped_readers = NIL;
	bool		truncate_watch = false;
	List	   *truncate_names = NIL;

	/*
	 * No refresh truncates: TRUNCATE never reaches a dynamic table that
	 * holds rows (one without any tuple, as a parallel pg_restore truncates
	 * it, changes nothing).  A dynamic table seen to hold one now, or that
	 * the role may not truncate, is refused at once; the others are looked
	 * at again under TRUNCATE's locks (check_truncated) while it runs.
	 */
	if (IsA(pstmt->utilityStmt, TruncateStmt) && IsTransactionState() && dv_extension_present())
	{
		List	   *relids = truncated_relations((TruncateStmt *) pstmt->utilityStmt, &truncate_names);
		ListCell   *lc;

		foreach(lc, relids)
		{
			Oid			relid = lfirst_oid(lc);

			if (is_dynamic_table(relid))
			{
				if (!may_truncate(relid))
					refuse_write(relid, NULL);
				if (holds_tuple(relid, false))
					refuse_write(relid, truncate_detail(relid, list_member_oid(truncate_names, relid)));
			}
			refuse_internal_truncate(relid);
			check_source_write(relid);
			if (dv_watch_active() || write_level >= 0)
				watch_write_up(relid);
		}
		/* (a table renamed, or a partition made, while it waits: check_truncated) */
		truncate_watch = true;
	}
	/* (a subcommand is part of a statement looked at already) */
	if ((IsA(pstmt->utilityStmt, AlterTableStmt) || IsA(pstmt->utilityStmt, CreatePolicyStmt) ||
		 IsA(pstmt->utilityStmt, AlterPolicyStmt) || IsA(pstmt->utilityStmt, DropStmt) ||
		 IsA(pstmt->utilityStmt, RuleStmt) || IsA(pstmt->utilityStmt, CreateStmt) ||
		 IsA(pstmt->utilityStmt, CreateForeignTableStmt)) &&
		context != PROCESS_UTILITY_SUBCOMMAND && IsTransactionState())
		refuse_refresh_utility(pstmt->utilityStmt);
	if ((IsA(pstmt->utilityStmt, RuleStmt) || IsA(pstmt->utilityStmt, CreateStmt) ||
		 IsA(pstmt->utilityStmt, CreateForeignTableStmt) || IsA(pstmt->utilityStmt, AlterTableStmt) ||
		 IsA(pstmt->utilityStmt, CreateTrigStmt) || IsA(pstmt->utilityStmt, RenameStmt)) &&
		IsTransactionState())
		check_structure(pstmt->utilityStmt);
	if ((IsA(pstmt->utilityStmt, CreateFunctionStmt) || IsA(pstmt->utilityStmt, AlterObjectSchemaStmt) ||
		 IsA(pstmt->utilityStmt, RenameStmt) || IsA(pstmt->utilityStmt, AlterFunctionStmt) ||
		 IsA(pstmt->utilityStmt, AlterOwnerStmt) ||
		 (IsA(pstmt->utilityStmt, DefineStmt) && ((DefineStmt *) pstmt->utilityStmt)->kind == OBJECT_AGGREGATE)) &&
		IsTransactionState())
		refuse_function_ddl(pstmt->utilityStmt);
	if ((IsA(pstmt->utilityStmt, AlterTableStmt) || IsA(pstmt->utilityStmt, IndexStmt) ||
		 IsA(pstmt->utilityStmt, AlterObjectSchemaStmt) || IsA(pstmt->utilityStmt, CreatePolicyStmt) ||
		 IsA(pstmt->utilityStmt, CreateStmt)) && IsTransactionState())
		refuse_internal_ddl(pstmt->utilityStmt);
	/*
	 * COPY FROM into a source is a write to watch.  (Into a dynamic table it
	 * is allowed: pg_restore loads their rows so; see doc/upgrading.md.  The
	 * rows are not the refresh's, so the next refresh is FULL.)
	 */
	if (IsA(pstmt->utilityStmt, CopyStmt) && ((CopyStmt *) pstmt->utilityStmt)->is_from &&
		((CopyStmt *) pstmt->utilityStmt)->relation != NULL && IsTransactionState())
	{
		RangeVar   *target = ((CopyStmt *) pstmt->utilityStmt)->relation;
		Oid			relid = RangeVarGetRelid(target, NoLock, true);

		if (OidIsValid(relid))
		{
			/*
			 * The name again once the locks of a dynamic table are held: a
			 * table renamed and another made under its name while this
			 * waited is the one COPY writes (it looks the name up itself),
			 * so that one is locked, checked and marked.
			 */
			for (;;)
			{
				Oid			again;

				/* (the refresh's own catalog write would lose the mark below) */
				if (write_level >= 0 && is_dynamic_table(relid))
					refuse_write(relid, "A trigger, rule or function run by a refresh may not write a dynamic table.");
				if (!lock_copied_tables(relid))
					break;
				again = RangeVarGetRelid(target, NoLock, true);
				if (again == relid)
					break;
				if (!OidIsValid(again))
				{
					/* (dropped meanwhile: COPY says so, as PostgreSQL does) */
					relid = InvalidOid;
					break;
				}
				relid = again;
			}
			if (OidIsValid(relid))
			{
				refuse_state_write(relid);
				check_source_write(relid);
				watch_write_tree(relid);
			}
		}
		copied = relid;
	}
	/* a database with dynview: its decoder and slot must go first */
	if (IsA(pstmt->utilityStmt, DropdbStmt))
	{
		const char *dbname = ((DropdbStmt *) pstmt->utilityStmt)->dbname;

		if (dv_capture_before_dropdb(dbname))
		{
			PG_TRY();
			{
				call_previous(pstmt, queryString, readOnlyTree, context, params,
							  queryEnv, dest, qc);
			}
			PG_CATCH();
			{
				/* the database stays: its decoder starts again (with a new slot) */
				Oid			dboid = get_database_oid(dbname, true);

				if (OidIsValid(dboid))
					dv_shmem_register_database(dboid, InvalidTransactionId);
				PG_RE_THROW();
			}
			PG_END_TRY();
			return;
		}
	}
	/* partitions of captured sources created, attached, detached, dropped (cdc/partitions.c) */
	if (dv_partition_utility_relevant(pstmt->utilityStmt) && IsTransactionState() &&
		dv_extension_present())
	{
		partitions = true;
		detached = dv_partition_utility_before(pstmt->utilityStmt);
	}
	/*
	 * a source's column retyped: the definitions that analyse now, to check
	 * again after it.  (Not a dynamic table's: a refresh retypes its columns
	 * after its source's, and a downstream table's definition that no
	 * longer analyses fails that table's refreshes, not this one.)
	 */
	if (IsA(pstmt->utilityStmt, AlterTableStmt) && IsTransactionState() && dv_extension_present() &&
		OidIsValid(retyped = retyped_relation(pstmt->utilityStmt)) && !is_dynamic_table(retyped))
	{
		ListCell   *lc;

		foreach(lc, dv_catalog_readers(retyped))
		{
			if (definition_analyses(lfirst_oid(lc), NULL))
				retyped_readers = lappend_oid(retyped_readers, lfirst_oid(lc));
		}
	}
	if (truncate_watch)
	{
		bool		save_running = truncate_running;
		List	   *save_named = truncate_named;
		List	   *save_allowed = truncate_allowed;
		List	   *save_locked = truncate_locked;

		truncate_running = true;
		truncate_named = truncate_names;
		truncate_allowed = NIL;
		truncate_locked = NIL;
		PG_TRY();
		{
			call_previous(pstmt, queryString, readOnlyTree, context, params, queryEnv, dest, qc);
			truncate_unlock((TruncateStmt *) pstmt->utilityStmt);
		}
		PG_FINALLY();
		{
			list_free(truncate_allowed);
			list_free(truncate_locked);
			truncate_running = save_running;
			truncate_named = save_named;
			truncate_allowed = save_allowed;
			truncate_locked = save_locked;
		}
		PG_END_TRY();
	}
	else
		call_previous(pstmt, queryString, readOnlyTree, context, params, queryEnv, dest, qc);
	if (retyped_readers != NIL && IsTransactionState())
		refuse_retype(retyped, retyped_readers);
	/*
	 * tables dynview updates and deletes rows of, now published: they need a
	 * replica identity (cdc/tracking.c).  (ALTER PUBLICATION ... DROP leaves
	 * it.)  A table moved into a schema published FOR TABLES IN SCHEMA is now
	 * published too.
	 */
	if ((IsA(pstmt->utilityStmt, CreatePublicationStmt) ||
		 (IsA(pstmt->utilityStmt, AlterPublicationStmt) &&
		  ((AlterPublicationStmt *) pstmt->utilityStmt)->action != AP_DropObjects) ||
		 (IsA(pstmt->utilityStmt, AlterObjectSchemaStmt) &&
		  (((AlterObjectSchemaStmt *) pstmt->utilityStmt)->objectType == OBJECT_TABLE ||
		   ((AlterObjectSchemaStmt *) pstmt->utilityStmt)->objectType == OBJECT_MATVIEW))) &&
		IsTransactionState() && dv_extension_present())
	{
		CommandCounterIncrement();
		dv_publication_identity_all();
	}
	/* (DETACH ... CONCURRENTLY has committed in between) */
	if (partitions && IsTransactionState())
		dv_partition_utility_after(pstmt->utilityStmt, detached);
	if (OidIsValid(copied))
	{
		/* (again: a refresh run in its middle, by a trigger, saw only the rows before) */
		if (dv_watch_active())
			watch_write_tree(copied);
		mark_changed_outside(copied);
	}
}

/*
 * Materialized-view statements about dynamic tables are first translated
 * (matview.c): into statements on tables, guarded as those are, or done.
 */
static void
guard_utility(PlannedStmt *pstmt, const char *queryString, bool readOnlyTree,
			  ProcessUtilityContext context, ParamListInfo params,
			  QueryEnvironment *queryEnv, DestReceiver *dest, QueryCompletion *qc)
{
	Node	   *parsetree = pstmt->utilityStmt;

	if ((IsA(parsetree, CreateTableAsStmt) || IsA(parsetree, RefreshMatViewStmt) ||
		 IsA(parsetree, DropStmt) || IsA(parsetree, AlterTableStmt) ||
		 IsA(parsetree, RenameStmt) || IsA(parsetree, AlterObjectSchemaStmt)) &&
		IsTransactionState() && dv_extension_present())
	{
		List	   *stmts = dv_matview_translate(pstmt, queryString);
		ListCell   *lc;

		foreach(lc, stmts)
			guard_process(lfirst(lc), queryString, readOnlyTree || lfirst(lc) != pstmt,
						  context, params, queryEnv, dest, qc);
		return;
	}
	guard_process(pstmt, queryString, readOnlyTree, context, params, queryEnv, dest, qc);
}

static void
guard_ProcessUtility(PlannedStmt *pstmt, const char *queryString, bool readOnlyTree,
					 ProcessUtilityContext context, ParamListInfo params,
					 QueryEnvironment *queryEnv, DestReceiver *dest, QueryCompletion *qc)
{
	utility_nesting++;
	PG_TRY();
	{
		guard_utility(pstmt, queryString, readOnlyTree, context, params, queryEnv, dest, qc);
	}
	PG_FINALLY();
	{
		utility_nesting--;
	}
	PG_END_TRY();
}

/*
 * dv_guard_is_dynamic_table - is relid a dynamic table?  (The guard's
 * cached lookup; no SPI.)
 */
bool
dv_guard_is_dynamic_table(Oid relid)
{
	return is_dynamic_table(relid);
}

/*
 * dv_guard_set_refreshing - the dynamic table whose refresh statements
 * dv_guard_begin_write will allow (InvalidOid: none), with its sources (a
 * DvSource list; copied), which nothing a refresh statement runs may write
 * (the refresh has read them).  A refresh calls it again with InvalidOid
 * when done; one left set by an error allows nothing by itself.
 */
void
dv_guard_set_refreshing(Oid relid, List *sources)
{
	MemoryContext old;
	ListCell   *lc;

	if (OidIsValid(relid) && list_member_oid(truncate_allowed, relid))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cannot refresh dynamic table \"%s\" during TRUNCATE of it", get_rel_name(relid)),
				 errdetail("TRUNCATE empties the table after its BEFORE TRUNCATE triggers run: the refresh's rows would go with it."),
				 errhint("Refresh the table after TRUNCATE.")));
	/* (dv_refresh_pipeline says so first; this covers every other way in) */
	if (OidIsValid(relid) && write_level >= 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cannot refresh dynamic table \"%s\" during a refresh", get_rel_name(relid)),
				 errdetail("A trigger, rule or function run by a refresh statement may not start a refresh.")));
	old = MemoryContextSwitchTo(TopMemoryContext);
	list_free(refreshing_sources);
	refreshing_sources = NIL;
	foreach(lc, sources)
	{
		DvSource   *src = lfirst(lc);

		if (OidIsValid(src->relid) && !src->is_dynamic)
			refreshing_sources = lappend_oid(refreshing_sources, src->relid);
	}
	refreshing = relid;
	refreshing_exec_level = OidIsValid(relid) ? exec_nesting : -1;
	refreshing_utility_level = OidIsValid(relid) ? utility_nesting : -1;
	refreshing_subxact = OidIsValid(relid) ? GetCurrentSubTransactionId() : InvalidSubTransactionId;
	MemoryContextSwitchTo(old);
}

/* no refresh runs any more (its transaction or subtransaction ended) */
static void
end_refreshing(void)
{
	list_free(refreshing_sources);
	refreshing_sources = NIL;
	refreshing = InvalidOid;
	refreshing_exec_level = -1;
	refreshing_utility_level = -1;
	refreshing_subxact = InvalidSubTransactionId;
}

/*
 * A refresh that an error ended leaves refreshing set (its caller may catch
 * the error in a subtransaction, as a pipeline does): the abort of the
 * subtransaction it was set in ends it, and so does the end of the
 * transaction.  A subtransaction that commits passes it to its parent.
 */
static void
guard_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
					   SubTransactionId parentSubid, void *arg)
{
	if (!OidIsValid(refreshing) || refreshing_subxact != mySubid)
		return;
	if (event == SUBXACT_EVENT_ABORT_SUB)
		end_refreshing();
	else if (event == SUBXACT_EVENT_COMMIT_SUB)
		refreshing_subxact = parentSubid;
}

static void
guard_xact_callback(XactEvent event, void *arg)
{
	if (OidIsValid(refreshing) &&
		(event == XACT_EVENT_ABORT || event == XACT_EVENT_COMMIT || event == XACT_EVENT_PREPARE ||
		 event == XACT_EVENT_PARALLEL_ABORT || event == XACT_EVENT_PARALLEL_COMMIT))
		end_refreshing();
}

/*
 * dv_guard_begin_write - the next statement dynview starts at the current
 * nesting level is a refresh statement of the table being refreshed: it may
 * write that table, and nothing nested in it may write any dynamic table.
 * The previous state goes to *save_target and *save_level, for
 * dv_guard_end_write (also on error).
 */
void
dv_guard_begin_write(Oid *save_target, int *save_level)
{
	*save_target = write_target;
	*save_level = write_level;
	write_target = refreshing;
	write_level = exec_nesting;
}

void
dv_guard_end_write(Oid save_target, int save_level)
{
	write_target = save_target;
	write_level = save_level;
}

/*
 * dv_guard_begin_direct_write - dynview writes the table being refreshed
 * without a statement (apply.c): what the write runs (CHECK constraints,
 * index expressions and predicates, the key's operators) meets the guard as
 * what a refresh statement runs, one executor level deeper than that
 * statement, so that it may write no dynamic table and no source of the
 * table being refreshed, nor start a refresh.  The previous state goes to
 * *save_target and *save_level, for dv_guard_end_direct_write (also on
 * error: the caller catches it).
 */
void
dv_guard_begin_direct_write(Oid *save_target, int *save_level)
{
	dv_guard_begin_write(save_target, save_level);
	/* (as guard_ExecutorRun counts the statement this write stands for) */
	exec_nesting++;
}

void
dv_guard_end_direct_write(Oid save_target, int save_level)
{
	exec_nesting--;
	dv_guard_end_write(save_target, save_level);
}

/*
 * dv_guard_in_refresh_statement - does a refresh statement run now (so
 * that the caller was called by a trigger or function it runs)?
 */
bool
dv_guard_in_refresh_statement(void)
{
	return write_level >= 0;
}

/*
 * dv_guard_init - install the hooks and the relcache callback (_PG_init).
 */
void
dv_guard_init(void)
{
	prev_planner = planner_hook;
	planner_hook = guard_planner;
	prev_ExecutorStart = ExecutorStart_hook;
	ExecutorStart_hook = guard_ExecutorStart;
	prev_ExecutorRun = ExecutorRun_hook;
	ExecutorRun_hook = guard_ExecutorRun;
	prev_ExecutorFinish = ExecutorFinish_hook;
	ExecutorFinish_hook = guard_ExecutorFinish;
	prev_ProcessUtility = ProcessUtility_hook;
	ProcessUtility_hook = guard_ProcessUtility;
	prev_object_access = object_access_hook;
	object_access_hook = guard_object_access;
	CacheRegisterRelcacheCallback(guard_relcache_callback, (Datum) 0);
	RegisterXactCallback(guard_xact_callback, NULL);
	RegisterSubXactCallback(guard_subxact_callback, NULL);
}

/*
 * dv_guard_invalidate - make every backend forget what it cached about
 * relid (sent at commit; applied locally at the next command).
 */
void
dv_guard_invalidate(Oid relid)
{
	if (SearchSysCacheExists1(RELOID, ObjectIdGetDatum(relid)))
		CacheInvalidateRelcacheByRelid(relid);
}

/*
 * dynview.on_sql_drop() - event trigger on sql_drop: bookkeeping for
 * dropped tables (DROP TABLE, DROP SCHEMA ... CASCADE, drop_dynamic_table).
 */
Datum
dynview_on_sql_drop(PG_FUNCTION_ARGS)
{
	List	   *relids = NIL;
	int			nestlevel;

	if (!CALLED_AS_EVENT_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_EVENT_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("dynview.on_sql_drop() must be called as an event trigger")));

	/* the extension itself is being dropped: nothing to keep */
	if (!dv_extension_present())
		PG_RETURN_NULL();

	SPI_connect();
	/* an event trigger runs in whoever's session drops: a superuser's, too */
	nestlevel = dv_safe_search_path_push();
	if (SPI_execute("SELECT objid FROM pg_catalog.pg_event_trigger_dropped_objects() "
					"WHERE classid = 'pg_catalog.pg_class'::pg_catalog.regclass AND objsubid = 0 "
					"AND object_type IN ('table', 'foreign table', 'materialized view')",
					true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read dropped objects");
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		bool		isnull;

		relids = lappend_oid(relids, DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i],
																	SPI_tuptable->tupdesc, 1, &isnull)));
	}
	if (relids != NIL)
	{
		dv_catalog_forget_relations(relids);
		dv_tracking_release_unused();
	}
	dv_safe_search_path_pop(nestlevel);
	SPI_finish();
	PG_RETURN_NULL();
}
