/*-------------------------------------------------------------------------
 *
 * guard.c
 *	  Keeps dynamic tables written by dynview only, and keeps the catalogs
 *	  right when tables are dropped with plain DDL.
 *
 *	- ExecutorStart hook: INSERT/UPDATE/DELETE/MERGE whose target is a
 *	  dynamic table fails unless dynview itself is writing (dv_write_depth).
 *	- ProcessUtility hook: TRUNCATE of a dynamic table fails likewise.
 *	  COPY FROM is allowed, so that pg_dump output restores.
 *	- ProcessUtility hook: DROP DATABASE of a database with dynview first
 *	  stops its decoder and drops its slot (a slot would block the drop).
 *	- The sql_drop event trigger function unregisters dropped dynamic
 *	  tables and marks dropped sources missing in their downstreams.
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
#include "access/table.h"
#include "catalog/indexing.h"
#include "catalog/namespace.h"
#include "catalog/pg_inherits.h"
#include "commands/dbcommands.h"
#include "commands/event_trigger.h"
#include "commands/extension.h"
#include "executor/executor.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "parser/parsetree.h"
#include "tcop/utility.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"

#include "dynview.h"
#include "cdc/cdc.h"

PG_FUNCTION_INFO_V1(dynview_on_sql_drop);

typedef struct GuardEntry
{
	Oid			relid;			/* hash key */
	bool		is_dynamic;
} GuardEntry;

static HTAB *guard_cache = NULL;
static Oid	guard_cache_catalog = InvalidOid;	/* catalog OID the cache is for */

static ExecutorStart_hook_type prev_ExecutorStart = NULL;
static ProcessUtility_hook_type prev_ProcessUtility = NULL;

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

/* look relid up in dynamic_table_catalog through its primary key index */
static bool
lookup_dynamic_table(Oid catalog, Oid relid)
{
	Relation	rel;
	SysScanDesc scan;
	ScanKeyData key;
	Oid			index = get_relname_relid(DV_CATALOG_TABLE "_pkey", get_rel_namespace(catalog));
	bool		found;

	if (!OidIsValid(index))
		return false;
	rel = table_open(catalog, AccessShareLock);
	ScanKeyInit(&key, 1, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(relid));
	scan = systable_beginscan(rel, index, true, NULL, 1, &key);
	found = HeapTupleIsValid(systable_getnext(scan));
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return found;
}

/*
 * is_guarded - is relid a dynamic table that the current statement may not
 * write?  Cheap for relations seen before.
 */
static bool
is_guarded(Oid relid)
{
	Oid			catalog;
	GuardEntry *entry;
	bool		found;

	if (dv_write_depth > 0 || !OidIsValid(relid) || !IsTransactionState())
		return false;
	catalog = dv_catalog_relid();
	if (!OidIsValid(catalog) || creating_extension)
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

static void
refuse_write(Oid relid)
{
	ereport(ERROR,
			(errcode(ERRCODE_WRONG_OBJECT_TYPE),
			 errmsg("cannot modify dynamic table \"%s\"", get_rel_name(relid)),
			 errdetail("Dynamic tables are written only by their refreshes."),
			 errhint("Change the sources of the dynamic table and use dynview.refresh().")));
}

static void
guard_ExecutorStart(QueryDesc *queryDesc, int eflags)
{
	PlannedStmt *stmt = queryDesc->plannedstmt;
	ListCell   *lc;

	if (stmt->resultRelations != NIL && !(eflags & EXEC_FLAG_EXPLAIN_ONLY))
	{
		foreach(lc, stmt->resultRelations)
		{
			RangeTblEntry *rte = rt_fetch(lfirst_int(lc), stmt->rtable);

			if (is_guarded(rte->relid))
				refuse_write(rte->relid);
			/* a refresh's own writes count when they reach its buffer (dv_write_own_buffer) */
			if (dv_write_depth == 0 && dv_watch_active())
			{
				dv_watch_written(rte->relid);
				/* rows routed to partitions, or updated in inheritance children */
				if (has_subclass(rte->relid))
				{
					ListCell   *lci;

					foreach(lci, find_all_inheritors(rte->relid, NoLock, NULL))
						dv_watch_written(lfirst_oid(lci));
				}
			}
		}
	}
	if (prev_ExecutorStart)
		prev_ExecutorStart(queryDesc, eflags);
	else
		standard_ExecutorStart(queryDesc, eflags);
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
guard_ProcessUtility(PlannedStmt *pstmt, const char *queryString, bool readOnlyTree,
					 ProcessUtilityContext context, ParamListInfo params,
					 QueryEnvironment *queryEnv, DestReceiver *dest, QueryCompletion *qc)
{
	if (IsA(pstmt->utilityStmt, TruncateStmt) && IsTransactionState())
	{
		ListCell   *lc;

		foreach(lc, ((TruncateStmt *) pstmt->utilityStmt)->relations)
		{
			Oid			relid = RangeVarGetRelid(lfirst_node(RangeVar, lc), NoLock, true);

			if (is_guarded(relid))
				refuse_write(relid);
			dv_watch_written(relid);
		}
	}
	/*
	 * COPY FROM into a source is a write to watch.  (Into a dynamic table it
	 * is allowed: pg_restore loads their rows so; see doc/upgrading.md.)
	 */
	if (IsA(pstmt->utilityStmt, CopyStmt) && ((CopyStmt *) pstmt->utilityStmt)->is_from &&
		((CopyStmt *) pstmt->utilityStmt)->relation != NULL && IsTransactionState())
	{
		Oid			relid = RangeVarGetRelid(((CopyStmt *) pstmt->utilityStmt)->relation, NoLock, true);

		if (OidIsValid(relid))
			dv_watch_written(relid);
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
	call_previous(pstmt, queryString, readOnlyTree, context, params, queryEnv, dest, qc);
}

/*
 * dv_guard_init - install the hooks and the relcache callback (_PG_init).
 */
void
dv_guard_init(void)
{
	prev_ExecutorStart = ExecutorStart_hook;
	ExecutorStart_hook = guard_ExecutorStart;
	prev_ProcessUtility = ProcessUtility_hook;
	ProcessUtility_hook = guard_ProcessUtility;
	CacheRegisterRelcacheCallback(guard_relcache_callback, (Datum) 0);
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
