/*-------------------------------------------------------------------------
 *
 * scheduler.c
 *	  The scheduler worker: one per database with the extension (started by
 *	  the launcher beside the decoder).  It refreshes the dynamic tables
 *	  whose schedule is due, as pipelines (design section 7).
 *
 * A table is due when it is ACTIVE,
 * its schedule is an interval and its data is older than that interval (or
 * it has no data yet), unless its last refresh, less than that interval
 * ago, found a source missing that is still missing (NO_DATA,
 * UPSTREAM_MISSING: the data stays as old, and it would be due at every
 * look).  Due tables none of whose downstreams is due are
 * refreshed with their stale upstreams as one pipeline, trigger
 * SYSTEM_SCHEDULED (upstreams: UPSTREAM), each pipeline in its own
 * transaction and each table of it in a subtransaction: a table that fails
 * gets a FAILED history row with the error, the tables that read it
 * UPSTREAM_FAILED, and the rest of the pipeline commits; after
 * dynview.max_consecutive_failures failures in a row the table is SUSPENDED
 * with reason SUSPENDED_DUE_TO_ERRORS.  A success resets the counter (in
 * dv_catalog_record_success).  The worker sleeps dynview.naptime between
 * looks; dynview.enabled = off makes it refresh nothing.
 *
 * Retries after failures back off (1 s doubling, at most 5 minutes).  A
 * 'downstream' table is never a root: it is refreshed as an upstream of a
 * due table.  Between looks the worker sleeps until the next table is due
 * (at least dynview.naptime, at most a minute); committing a change of a
 * schedule wakes it.  About once a minute it deletes refresh_history rows
 * older than dynview.history_retention (each table's latest row stays).
 *
 * A pipeline waits at most dynview.lock_timeout for any lock (it runs with
 * lock_timeout set for its transaction): a session holding a lock on a
 * source must not stall every other pipeline.  A table whose refresh timed
 * out waiting is recorded SKIPPED with reason LOCK_TIMEOUT (not a failure:
 * no backoff, no suspension) and is retried at the next look.
 *
 * Partitioned dynamic tables: their partitions are dynamic tables with the
 * table's schedule, refreshed as any; at each look the partitions older
 * than their table's retention are dropped (expire_partitions), each table
 * in its own transaction under dynview.lock_timeout (a lock wait that times
 * out is retried at the next look).
 *
 * Parallel pipelines: with dynview.max_refresh_workers > 1, each due
 * pipeline runs in a "dynview refresh worker" (a dynamic background worker
 * the scheduler starts, which refreshes that one pipeline as refresh_due
 * does and exits), up to that many at once, so that a long pipeline does
 * not delay the others.  Pipelines that share a table never run at the same
 * time (a due pipeline that shares one with a running worker waits for the
 * next look); a worker's exit wakes the scheduler (bgw_notify_pid).  With
 * 1 (the default), or when no worker slot is free, the scheduler refreshes
 * the pipeline itself.
 *
 * Visibility: before a pipeline runs, its tables get refresh_history rows
 * in state RUNNING, committed in a transaction of their own; the refresh
 * replaces each with its outcome (same refresh_id) in its own transaction,
 * so another session sees RUNNING exactly while the refresh is under way.
 * Rows no outcome replaced are deleted afterwards; RUNNING rows found at
 * the worker's start (a crash) become FAILED.  A scheduler that exits
 * terminates its refresh workers.  When the extension is dropped, the
 * scheduler and its workers leave without an error, also when DROP
 * EXTENSION removed the catalogs under one of their statements
 * (leave_if_extension_dropped).  pg_stat_activity.query of
 * the worker names the pipeline and the table being refreshed.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lmgr.h"
#include "storage/proc.h"
#include "tcop/tcopprot.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/ruleutils.h"
#include "utils/snapmgr.h"

#include "dynview.h"
#include "cdc/cdc.h"

PGDLLEXPORT void dynview_scheduler_main(Datum main_arg);
PGDLLEXPORT void dynview_refresh_worker_main(Datum main_arg);

#define MAX_REFRESH_WORKERS	64

/* a running refresh worker of this scheduler (scheduler-local) */
typedef struct RefreshWorker
{
	BackgroundWorkerHandle *handle; /* NULL: free entry */
	Oid			root;
	List	   *tables;			/* the pipeline's tables, in TopMemoryContext */
} RefreshWorker;

static RefreshWorker refresh_workers[MAX_REFRESH_WORKERS];
/* tables of refresh workers reaped since finish_stopped_workers last ran */
static List *stopped_tables = NIL;

/*
 * dv_scheduler_start - start the scheduler worker of dboid (launcher).
 */
void
dv_scheduler_start(Oid dboid, BackgroundWorkerHandle **handle)
{
	dv_start_database_worker(dboid, "dynview_scheduler_main", "dynview scheduler", handle);
}

/*
 * kept_plan - the plan of the catalog read sql, prepared at the worker's
 * first use and kept (SPI_keepplan) in *plan: the worker reads the catalog
 * at every wake, and parsing and planning the two reads again each time
 * cost it ~3 ms (bench/README.md, twenty-fifth session).  PostgreSQL's plan
 * cache re-plans them when the catalog tables change (a new extension
 * version, ANALYZE).  Needs SPI.
 */
static SPIPlanPtr
kept_plan(SPIPlanPtr *plan, const char *sql)
{
	if (*plan == NULL)
	{
		SPIPlanPtr	p = SPI_prepare(sql, 0, NULL);

		if (p == NULL)
			elog(ERROR, "could not prepare dynview's scheduler statement (%s): %s",
				 SPI_result_code_string(SPI_result), sql);
		if (SPI_keepplan(p) != 0)
			elog(ERROR, "could not keep the plan of dynview's scheduler statement");
		*plan = p;
	}
	return *plan;
}

static SPIPlanPtr due_plan = NULL;
static SPIPlanPtr next_due_plan = NULL;

/*
 * The end of a table's last refresh if that refresh found a source missing
 * (NO_DATA, UPSTREAM_MISSING) and a source of the table is still missing by
 * name; else NULL (m.end_time).  Such a refresh takes no data, so the
 * table's data_timestamp stays where it was: without this, the table would
 * be due at every look.  A source that appeared again, or a definition
 * replaced by one whose sources exist, makes it due at once.
 */
#define MISSING_SINCE_SQL \
"LEFT JOIN LATERAL (SELECT l.end_time FROM (SELECT h.mode_reason_code, h.end_time " \
"      FROM dynview.refresh_history h WHERE h.name = c.relid " \
"      ORDER BY h.refresh_id DESC LIMIT 1) l " \
"    WHERE l.mode_reason_code = 'UPSTREAM_MISSING' " \
"    AND EXISTS (SELECT 1 FROM dynview.source_catalog s WHERE s.relid = c.relid " \
"                AND to_regclass(quote_ident(s.source_schema) || '.' || quote_ident(s.source_name)) IS NULL)) m " \
"  ON true "

/*
 * Due: the interval has passed since the data was taken, and since the
 * last refresh if it found a source still missing (MISSING_SINCE_SQL);
 * after failures, retries back off (1 s, 2 s, 4 s, ... at most 5 minutes
 * after the last).  Tables with a missing source come last: with refresh
 * workers, the due tables that fit are started in this order.
 */
static const char *const due_sql =
"SELECT c.relid::oid FROM dynview.dynamic_table_catalog c " MISSING_SINCE_SQL
"WHERE c.scheduling_state = 'ACTIVE' AND c.schedule NOT IN ('manual', 'downstream') "
"AND (c.data_timestamp IS NULL OR now() - c.data_timestamp >= c.schedule::interval) "
"AND (m.end_time IS NULL OR now() - m.end_time >= c.schedule::interval) "
"AND (c.consecutive_failures = 0 OR coalesce((SELECT max(h.end_time) "
"      FROM dynview.refresh_history h WHERE h.name = c.relid "
"      AND h.state IN ('FAILED', 'UPSTREAM_FAILED')), '-infinity') "
"    + least(interval '1 second' * power(2, least(c.consecutive_failures, 20) - 1), "
"            interval '5 minutes') <= now()) "
"ORDER BY m.end_time IS NOT NULL, c.data_timestamp NULLS FIRST";

/*
 * the milliseconds until the next table is due (NULL: none has a schedule);
 * a table held back because a source is still missing (MISSING_SINCE_SQL)
 * counts as due now, so that the scheduler looks again after
 * dynview.naptime: a source that appears again (which does not wake it) is
 * noticed at the next look, not one interval later
 */
static const char *const next_due_sql =
"SELECT (extract(epoch FROM min(CASE WHEN m.end_time IS NOT NULL THEN now() "
"         ELSE coalesce(c.data_timestamp + least(c.schedule::interval, interval '1 day'), now()) END) "
"         - now()) * 1000)::int8 "
"FROM dynview.dynamic_table_catalog c " MISSING_SINCE_SQL
"WHERE c.scheduling_state = 'ACTIVE' AND c.schedule NOT IN ('manual', 'downstream')";

/* the due tables that no due table reads (their pipelines cover the rest) */
static List *
due_tables(void)
{
	List	   *due = NIL;
	List	   *closures = NIL;
	List	   *roots = NIL;
	ListCell   *lc;
	ListCell   *lc2;

	if (SPI_execute_plan(kept_plan(&due_plan, due_sql), NULL, NULL, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read dynview.dynamic_table_catalog");
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		bool		isnull;

		due = lappend_oid(due, DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i],
															  SPI_tuptable->tupdesc, 1, &isnull)));
	}
	/* each due table's closure once (not once per pair: n^2 catalog walks) */
	foreach(lc, due)
		closures = lappend(closures, dv_catalog_upstream_closure(lfirst_oid(lc)));
	foreach(lc, due)
	{
		Oid			t = lfirst_oid(lc);
		bool		covered = false;
		ListCell   *lc3;

		forboth(lc2, due, lc3, closures)
		{
			if (lfirst_oid(lc2) != t && list_member_oid(lfirst(lc3), t))
			{
				covered = true;
				break;
			}
		}
		if (!covered)
			roots = lappend_oid(roots, t);
	}
	return roots;
}

/*
 * a pipeline failed outside its per-table subtransactions: record it for
 * its table, and drop the RUNNING rows no outcome replaced
 */
static void
record_failure(Oid relid, const char *message)
{
	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	SPI_connect();
	PushActiveSnapshot(GetTransactionSnapshot());
	dv_history_failure(relid, DV_TRIGGER_SYSTEM_SCHEDULED, "FAILED", message);
	dv_history_end_running();
	PopActiveSnapshot();
	SPI_finish();
	CommitTransactionCommand();
}

/*
 * a pipeline was given up outside its per-table subtransactions (a lock wait
 * timed out checking a definition against a locked source, change capture
 * cannot run: dv_refresh_skip_reason): every table of the pipeline is
 * skipped, the upstreams with trigger UPSTREAM (their RUNNING rows
 * replaced; any other dropped)
 */
static void
record_skipped(Oid relid, const char *code, const char *reason)
{
	ListCell   *lc;

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	SPI_connect();
	PushActiveSnapshot(GetTransactionSnapshot());
	if (dv_is_dynamic_table(relid))
	{
		foreach(lc, dv_catalog_upstream_closure(relid))
			dv_history_skipped(lfirst_oid(lc),
							   lfirst_oid(lc) == relid ? DV_TRIGGER_SYSTEM_SCHEDULED : DV_TRIGGER_UPSTREAM,
							   code, reason);
	}
	dv_history_end_running();
	PopActiveSnapshot();
	SPI_finish();
	CommitTransactionCommand();
}

/*
 * announce - in a transaction of its own: RUNNING history rows for the
 * pipeline of relid (dv_history_begin_running), committed before it runs;
 * returns the table's qualified name (in the caller's memory), or NULL if
 * it is no longer a dynamic table.
 *
 * The transaction commits synchronously.  An asynchronous commit saved no
 * WAL flush: the pipeline's wait for capture (incremental.c,
 * capture_target) looks up its window's transactions in the commit log,
 * whose commit position is kept per group of 32 transactions, so this
 * transaction's unflushed commit made every refresh flush the WAL itself
 * before its window read (thirty-second session's profile: an fsync in
 * every scheduled pipeline).  The decoder is woken at once: the pipeline
 * waits for it to pass this commit, which it can read now (it reads
 * flushed WAL only) while the pipeline locks its tables.
 */
static char *
announce(Oid relid)
{
	MemoryContext caller = CurrentMemoryContext;
	char	   *name = NULL;

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	SPI_connect();
	PushActiveSnapshot(GetTransactionSnapshot());
	if (dv_is_dynamic_table(relid))
	{
		char	   *qualified = dv_relation_qualified_name(relid);

		name = MemoryContextStrdup(caller, qualified);
		dv_history_begin_running(relid, DV_TRIGGER_SYSTEM_SCHEDULED);
	}
	PopActiveSnapshot();
	SPI_finish();
	CommitTransactionCommand();
	/* the pipeline waits for the decoder to pass this commit: let it start now */
	dv_shmem_wake_decoder(MyDatabaseId);
	MemoryContextSwitchTo(caller);
	return name;
}

/*
 * refresh one due pipeline in its own transaction; errors are recorded.
 * While it runs, refresh_history shows its tables RUNNING (committed
 * before, replaced by the outcome when the refresh commits) and
 * pg_stat_activity names it.
 */
static void
refresh_due(Oid relid)
{
	MemoryContext oldcontext = CurrentMemoryContext;
	char	   *name = announce(relid);

	if (name == NULL)
		return;
	pgstat_report_activity(STATE_RUNNING,
						   psprintf("dynview: refreshing the pipeline of dynamic table %s", name));
	PG_TRY();
	{
		SetCurrentStatementStartTimestamp();
		StartTransactionCommand();
		/* for this transaction only (GUC_ACTION_LOCAL) */
		if (dv_lock_timeout > 0)
			(void) set_config_option("lock_timeout", psprintf("%d", dv_lock_timeout),
									 PGC_SUSET, PGC_S_SESSION, GUC_ACTION_LOCAL, true, 0, false);
		SPI_connect();
		PushActiveSnapshot(GetTransactionSnapshot());
		if (dv_is_dynamic_table(relid))
			(void) dv_refresh_pipeline(relid, DV_TRIGGER_SYSTEM_SCHEDULED);
		/* the RUNNING rows no outcome replaced go with the pipeline's commit */
		dv_history_delete_running();
		PopActiveSnapshot();
		SPI_finish();
		CommitTransactionCommand();
		dv_history_forget_running();
	}
	PG_CATCH();
	{
		ErrorData  *edata;
		char	   *reason;
		const char *code;

		MemoryContextSwitchTo(oldcontext);
		edata = CopyErrorData();
		FlushErrorState();
		AbortCurrentTransaction();
		code = dv_refresh_skip_reason(edata, &reason);
		if (code)
			record_skipped(relid, code, reason);
		else
		{
			ereport(LOG,
					(errmsg("dynview: scheduled refresh of relation %u failed: %s", relid, edata->message),
					 edata->detail ? errdetail_internal("%s", edata->detail) : 0,
					 edata->hint ? errhint("%s", edata->hint) : 0));
			record_failure(relid, dv_error_text(edata));
		}
		FreeErrorData(edata);
	}
	PG_END_TRY();
	pgstat_report_activity(STATE_IDLE, NULL);
	/* commit left TopMemoryContext current: the caller's next allocations would leak there */
	MemoryContextSwitchTo(oldcontext);
}

/*
 * look_ahead - in one transaction: the milliseconds until the next ACTIVE
 * interval table is due, between dynview.naptime (a table due but backing
 * off, or one failing) and one minute, and the partitioned dynamic tables
 * that have a retention (*expiring, in the caller's memory).
 */
static long
look_ahead(List **expiring)
{
	MemoryContext caller = CurrentMemoryContext;
	long		ms = 60 * 1000L;

	*expiring = NIL;
	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	SPI_connect();
	PushActiveSnapshot(GetTransactionSnapshot());
	if (dv_extension_present())
	{
		List	   *found;

		if (SPI_execute_plan(kept_plan(&next_due_plan, next_due_sql), NULL, NULL, true, 1) == SPI_OK_SELECT &&
			SPI_processed == 1)
		{
			bool		isnull;
			Datum		d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);

			if (!isnull)
				ms = (long) DatumGetInt64(d);
		}
		found = dv_partitioned_with_retention();
		MemoryContextSwitchTo(caller);
		*expiring = list_copy(found);
	}
	PopActiveSnapshot();
	SPI_finish();
	CommitTransactionCommand();
	MemoryContextSwitchTo(caller);
	return Max(Min(ms, 60 * 1000L), (long) dv_naptime);
}

/*
 * expire_partitions - drop the partitions of the partitioned dynamic tables
 * (look_ahead's) that are older than their table's retention
 * (catalog/partitioned.c), each table in a transaction of its own; errors
 * are logged.
 */
static void
expire_partitions(List *tables)
{
	MemoryContext caller = CurrentMemoryContext;
	ListCell   *lc;

	foreach(lc, tables)
	{
		Oid			relid = lfirst_oid(lc);
		char		what[64];

		snprintf(what, sizeof(what), "dropping expired partitions of relation %u", relid);
		PG_TRY();
		{
			SetCurrentStatementStartTimestamp();
			StartTransactionCommand();

			/*
			 * (a background drop gives way: it waits less than a session
			 * waits before it looks for a deadlock, so that a user's DDL
			 * that waits for it and holds what it needs is not the one
			 * that fails; the partitions go at a later pass)
			 */
			(void) set_config_option("lock_timeout",
									 psprintf("%d", Max(1, Min(dv_lock_timeout > 0 ? dv_lock_timeout : INT_MAX,
															   DeadlockTimeout / 2))),
									 PGC_SUSET, PGC_S_SESSION, GUC_ACTION_LOCAL, true, 0, false);
			SPI_connect();
			PushActiveSnapshot(GetTransactionSnapshot());
			(void) dv_partitioned_expire(relid);
			PopActiveSnapshot();
			SPI_finish();
			CommitTransactionCommand();
		}
		PG_CATCH();
		{
			dv_log_error_and_abort(caller, what);
		}
		PG_END_TRY();
		MemoryContextSwitchTo(caller);
	}
}

/* delete history rows older than dynview.history_retention, at most once a minute */
static void
prune_history(void)
{
	static TimestampTz last = 0;
	TimestampTz now = GetCurrentTimestamp();
	Oid			types[1] = {INT4OID};
	Datum		values[1];

	if (dv_history_retention <= 0 || !TimestampDifferenceExceeds(last, now, 60 * 1000))
		return;
	last = now;
	values[0] = Int32GetDatum(dv_history_retention);
	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	SPI_connect();
	PushActiveSnapshot(GetTransactionSnapshot());
	if (dv_extension_present())
		dv_catalog_exec("DELETE FROM dynview.refresh_history h "
						"WHERE h.end_time < now() - $1 * interval '1 minute' "
						"AND h.refresh_id < (SELECT max(h2.refresh_id) FROM dynview.refresh_history h2 "
						"                    WHERE h2.name = h.name)",
						1, types, values, NULL, -1);
	PopActiveSnapshot();
	SPI_finish();
	CommitTransactionCommand();
}

/* forget refresh workers that have exited; returns how many still run */
static int
reap_refresh_workers(void)
{
	MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

	int			running = 0;

	for (int i = 0; i < MAX_REFRESH_WORKERS; i++)
	{
		RefreshWorker *w = &refresh_workers[i];
		pid_t		pid;

		if (w->handle == NULL)
			continue;
		if (GetBackgroundWorkerPid(w->handle, &pid) != BGWH_STOPPED)
		{
			running++;
			continue;
		}
		pfree(w->handle);
		/* its RUNNING rows, if it did not end them, are failed by finish_stopped_workers */
		stopped_tables = list_concat(stopped_tables, w->tables);
		list_free(w->tables);
		memset(w, 0, sizeof(RefreshWorker));
	}
	MemoryContextSwitchTo(old);
	return running;
}

/*
 * finish_stopped_workers - in a transaction of its own: RUNNING rows that
 * refresh workers reaped since the last call left behind (a worker
 * terminated or crashed before its refresh ended) become FAILED, so that no
 * row stays RUNNING while the scheduler lives.  A worker that ended normally
 * left none: the UPDATE then changes nothing.
 */
static void
finish_stopped_workers(void)
{
	if (stopped_tables == NIL)
		return;
	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	SPI_connect();
	PushActiveSnapshot(GetTransactionSnapshot());
	if (dv_extension_present())
		dv_history_worker_stopped(stopped_tables);
	PopActiveSnapshot();
	SPI_finish();
	CommitTransactionCommand();
	list_free(stopped_tables);
	stopped_tables = NIL;
}

/* do two lists of tables have one in common? */
static bool
shares_table(List *a, List *b)
{
	ListCell   *lc;

	foreach(lc, a)
		if (list_member_oid(b, lfirst_oid(lc)))
			return true;
	return false;
}

/* does a running refresh worker refresh one of tables? */
static bool
pipeline_busy(List *tables)
{
	for (int i = 0; i < MAX_REFRESH_WORKERS; i++)
	{
		if (refresh_workers[i].handle == NULL)
			continue;
		if (shares_table(tables, refresh_workers[i].tables))
			return true;
	}
	return false;
}

/*
 * start_refresh_worker - start a worker that refreshes the pipeline of
 * root (tables: its tables); false if no background worker slot was free.
 */
static bool
start_refresh_worker(Oid dboid, Oid root, List *tables)
{
	BackgroundWorker worker;
	BackgroundWorkerHandle *handle;
	MemoryContext old;

	for (int i = 0; i < MAX_REFRESH_WORKERS; i++)
	{
		if (refresh_workers[i].handle != NULL)
			continue;
		memset(&worker, 0, sizeof(worker));
		worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
		worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
		worker.bgw_restart_time = BGW_NEVER_RESTART;
		snprintf(worker.bgw_library_name, BGW_MAXLEN, "dynview");
		snprintf(worker.bgw_function_name, BGW_MAXLEN, "dynview_refresh_worker_main");
		snprintf(worker.bgw_name, BGW_MAXLEN, "dynview refresh worker %u", dboid);
		snprintf(worker.bgw_type, BGW_MAXLEN, "dynview refresh worker");
		worker.bgw_main_arg = ObjectIdGetDatum(dboid);
		memcpy(worker.bgw_extra, &root, sizeof(Oid));
		worker.bgw_notify_pid = MyProcPid;
		/* the handle outlives the loop's memory */
		old = MemoryContextSwitchTo(TopMemoryContext);
		if (!RegisterDynamicBackgroundWorker(&worker, &handle))
		{
			MemoryContextSwitchTo(old);
			return false;
		}
		refresh_workers[i].handle = handle;
		refresh_workers[i].root = root;
		refresh_workers[i].tables = list_copy(tables);
		MemoryContextSwitchTo(old);
		return true;
	}
	return false;
}

/*
 * leave_if_extension_dropped - in PG_CATCH around the work of the scheduler
 * or a refresh worker (context: the memory context to copy the error into):
 * an error raised because DROP EXTENSION dropped dynview's catalogs while
 * the worker was between its check of the extension and its use of them
 * (relation "dynview.dynamic_table_catalog" does not exist: the statement
 * waited for the lock DROP EXTENSION held, then found the relation gone)
 * ends the worker quietly, as the loop's own check would have at its next
 * turn; so does one raised while DROP EXTENSION was under way (a deadlock
 * with its locks).  Any other error is raised again.  The extension is
 * looked for in a new transaction, after waiting for a DROP EXTENSION under
 * way to end (it holds its extension's lock; a share lock waits for it).
 */
static void
leave_if_extension_dropped(Oid dboid, MemoryContext context)
{
	ErrorData  *edata;
	bool		present;
	Oid			extension;

	MemoryContextSwitchTo(context);
	edata = CopyErrorData();
	FlushErrorState();
	AbortCurrentTransaction();
	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	extension = get_extension_oid("dynview", true);
	if (OidIsValid(extension))
		LockDatabaseObject(ExtensionRelationId, extension, 0, AccessShareLock);
	present = dv_extension_present();
	CommitTransactionCommand();
	if (!present || !dv_shmem_database_registered(dboid))
	{
		ereport(DEBUG1,
				(errmsg("dynview: %s of database %u leaves: the extension was dropped under it (%s)",
						MyBgworkerEntry->bgw_type, dboid, edata->message)));
		proc_exit(0);
	}
	MemoryContextSwitchTo(context);
	ReThrowError(edata);
}

/*
 * dynview_refresh_worker_main - a refresh worker: refresh one pipeline
 * (the root's OID in bgw_extra) as the scheduler would, then exit.
 */
void
dynview_refresh_worker_main(Datum main_arg)
{
	Oid			dboid = DatumGetObjectId(main_arg);
	Oid			root;

	memcpy(&root, MyBgworkerEntry->bgw_extra, sizeof(Oid));
	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();
	BackgroundWorkerInitializeConnectionByOid(dboid, InvalidOid, 0);
	pgstat_report_appname("dynview refresh worker");
	SetConfigOption("search_path", DV_SAFE_SEARCH_PATH, PGC_SUSET, PGC_S_OVERRIDE);
	PG_TRY();
	{
		refresh_due(root);
	}
	PG_CATCH();
	{
		leave_if_extension_dropped(dboid, TopMemoryContext);
	}
	PG_END_TRY();
	proc_exit(0);
}

/*
 * scheduler_shutdown - the scheduler exits: forget its latch, and terminate
 * the refresh workers it started.  Its successor fails the RUNNING rows it
 * finds at start (dv_history_interrupted) and must not start a second
 * refresh of a pipeline a worker of this scheduler still runs.
 */
static void
scheduler_shutdown(int code, Datum arg)
{
	for (int i = 0; i < MAX_REFRESH_WORKERS; i++)
		if (refresh_workers[i].handle != NULL)
			TerminateBackgroundWorker(refresh_workers[i].handle);
	dv_shmem_set_scheduler(DatumGetObjectId(arg), NULL);
}

static void scheduler_turn(Oid dboid, MemoryContext loop_context);

void
dynview_scheduler_main(Datum main_arg)
{
	Oid			dboid = DatumGetObjectId(main_arg);
	MemoryContext loop_context;

	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();
	BackgroundWorkerInitializeConnectionByOid(dboid, InvalidOid, 0);
	pgstat_report_appname("dynview scheduler");
	/* whatever the database or role settings say: no schema a role can write (dv_safe_search_path_push) */
	SetConfigOption("search_path", DV_SAFE_SEARCH_PATH, PGC_SUSET, PGC_S_OVERRIDE);
	before_shmem_exit(scheduler_shutdown, main_arg);
	dv_shmem_set_scheduler(dboid, MyLatch);
	loop_context = AllocSetContextCreate(TopMemoryContext, "dynview scheduler loop",
										 ALLOCSET_DEFAULT_SIZES);

	/*
	 * RUNNING rows of a previous scheduler of this database did not finish.
	 * (Here and in each turn of the loop: an error because DROP EXTENSION
	 * dropped the catalogs under a statement ends the worker quietly.)
	 */
	PG_TRY();
	{
		SetCurrentStatementStartTimestamp();
		StartTransactionCommand();
		SPI_connect();
		PushActiveSnapshot(GetTransactionSnapshot());
		if (dv_extension_present())
			dv_history_interrupted();
		PopActiveSnapshot();
		SPI_finish();
		CommitTransactionCommand();
	}
	PG_CATCH();
	{
		leave_if_extension_dropped(dboid, TopMemoryContext);
	}
	PG_END_TRY();

	for (;;)
	{
		PG_TRY();
		{
			scheduler_turn(dboid, loop_context);
		}
		PG_CATCH();
		{
			leave_if_extension_dropped(dboid, TopMemoryContext);
		}
		PG_END_TRY();
	}
}

/*
 * scheduler_turn - one look of the scheduler: refresh the due pipelines
 * (or start workers for them), drop expired partitions, prune the history,
 * and sleep until the next table is due.  Exits the process when the
 * extension or the database is gone.
 */
static void
scheduler_turn(Oid dboid, MemoryContext loop_context)
{
	List	   *due = NIL;
	List	   *pipelines = NIL;	/* per due root: its tables */
	ListCell   *lc;
	ListCell   *lc2;
	bool		present;
	bool		parallel = dv_max_refresh_workers > 1;
	bool		workers_running;
	long		sleep_ms = 60 * 1000L;
	TimestampTz looked = 0;

	CHECK_FOR_INTERRUPTS();
	if (ConfigReloadPending)
	{
		ConfigReloadPending = false;
		ProcessConfigFile(PGC_SIGHUP);
	}
	if (!dv_shmem_database_registered(dboid))
		proc_exit(0);		/* extension dropped or database going away */

	MemoryContextReset(loop_context);
	MemoryContextSwitchTo(loop_context);

	/*
	 * Workers started before dynview.max_refresh_workers was lowered to 1
	 * may still run: their pipelines are skipped below either way.
	 */
	workers_running = reap_refresh_workers() > 0;
	finish_stopped_workers();
	SetCurrentStatementStartTimestamp();
StartTransactionCommand();
	present = dv_extension_present();
	if (present && dv_enabled)
	{
		List	   *found;

		SPI_connect();
		PushActiveSnapshot(GetTransactionSnapshot());
		found = due_tables();
		MemoryContextSwitchTo(loop_context);
		due = list_copy(found);		/* SPI's memory goes with SPI_finish */
		foreach(lc, due)
		{
			List	   *closure = (parallel || workers_running) ?
			dv_catalog_upstream_closure(lfirst_oid(lc)) : NIL;

			MemoryContextSwitchTo(loop_context);
			pipelines = lappend(pipelines, list_copy(closure));
		}
		PopActiveSnapshot();
		SPI_finish();
	}
	CommitTransactionCommand();
	MemoryContextSwitchTo(loop_context);
	if (!present)
		proc_exit(0);

	if (parallel)
		(void) reap_refresh_workers();
	forboth(lc, due, lc2, pipelines)
	{
		Oid			root = lfirst_oid(lc);
		List	   *tables = lfirst(lc2);

		/*
		 * A pipeline sharing a table with a running worker waits for the next
		 * look, and so does one sharing a table with a worker that ended
		 * since the due tables were read (stopped_tables: the workers reaped
		 * since finish_stopped_workers emptied it, before the read, here and
		 * in this loop): its tables were read as due while it ran, so one
		 * just refreshed would be refreshed again at once, and the clean-up
		 * of the ended worker's RUNNING rows at the next look would fail the
		 * new worker's rows of the same table.
		 */
		if (tables != NIL && (pipeline_busy(tables) || shares_table(tables, stopped_tables)))
			continue;
		if (!parallel)
		{
			refresh_due(root);
			continue;
		}
		if (reap_refresh_workers() >= Min(dv_max_refresh_workers, MAX_REFRESH_WORKERS))
			break;
		if (!start_refresh_worker(dboid, root, tables))
			refresh_due(root);	/* no worker slot: refresh it here */
	}
	MemoryContextSwitchTo(loop_context);
	if (present && dv_enabled)
	{
		List	   *expiring;

		looked = GetCurrentTimestamp();
		sleep_ms = look_ahead(&expiring);
		expire_partitions(expiring);
	}
	if (present)
		prune_history();

	/*
	 * sleep until the next table is due (a schedule change sets the latch),
	 * less what the partitions and the history took since the look
	 */
	if (looked != 0)
		sleep_ms = Max(sleep_ms - (long) ((GetCurrentTimestamp() - looked) / 1000), (long) dv_naptime);
	(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
					 sleep_ms, PG_WAIT_EXTENSION);
	ResetLatch(MyLatch);
}
