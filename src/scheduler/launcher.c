/*-------------------------------------------------------------------------
 *
 * launcher.c
 *	  The dynview launcher: a static background worker (registered when the
 *	  library is in shared_preload_libraries) that starts and restarts the
 *	  per-database workers.
 *
 * At start it does not know which databases have the extension (shared
 * memory is empty after a restart), so it starts a decoder for every
 * database that accepts connections; a decoder in a database without the
 * extension exits at once.  A decoder that finds the extension registers its
 * database in shared memory, and so does CREATE EXTENSION.  From then on the
 * launcher keeps one decoder running per registered database, restarting a
 * dead one with a backoff of 1 s doubling to 60 s (back to 1 s when it had
 * run for HEALTHY_RUN_MS); the scheduler alike.  A decoder that left because
 * its installation of the extension was replaced by a new one (DROP and
 * CREATE EXTENSION: dv_shmem_take_decoder_handover) did not fail: the new
 * installation's decoder is started at once, the backoff left as it was.
 * It sleeps on its latch, which registration sets, or at most
 * dynview.naptime * 10.
 *
 * When no background worker slot is free for a decoder, the launcher records
 * it in shared memory (capture state NO_WORKER, with the fix), which makes
 * create_dynamic_table and refreshes fail at once with that cause.  A
 * backend that finds capture failed may ask for a retry
 * (dv_shmem_request_capture_retry): the decoder is then started at once,
 * not after its backoff; a configuration reload does the same for every
 * stopped decoder.
 *
 * When the launcher exits (pg_terminate_backend, an error), it terminates
 * the decoders and schedulers it started: its restarted successor starts
 * them anew rather than beside workers it knows nothing of.
 *
 * State machine per database (local to the launcher):
 *	  no handle --start--> running --exits--> stopped (restart after backoff)
 *	  unregistered (extension dropped) --> forgotten, not restarted
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/pg_database.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "tcop/tcopprot.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"

#include "dynview.h"
#include "cdc/cdc.h"

PGDLLEXPORT void dynview_launcher_main(Datum main_arg);

#define MAX_TRACKED_WORKERS	64

/*
 * A worker that ran at least this long before it stopped was healthy: it
 * is restarted after the first backoff (1 s), not after one that doubled
 * at every stop since the server started.
 */
#define HEALTHY_RUN_MS		10000

typedef struct WorkerSlot
{
	Oid			dboid;
	BackgroundWorkerHandle *handle;	/* the decoder */
	TimestampTz next_start;		/* earliest restart */
	int			backoff_ms;
	TimestampTz started;		/* when the decoder was last started */
	BackgroundWorkerHandle *scheduler;	/* the scheduler */
	TimestampTz scheduler_next_start;
	int			scheduler_backoff_ms;
	TimestampTz scheduler_started;
	bool		decoder_warned;	/* warned that no worker slot was free */
	bool		scheduler_warned;
} WorkerSlot;

static WorkerSlot workers[MAX_TRACKED_WORKERS];

/*
 * dv_launcher_register - register the launcher (from _PG_init while
 * shared_preload_libraries are loaded).
 */
void
dv_launcher_register(void)
{
	BackgroundWorker worker;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
	worker.bgw_restart_time = 10;
	snprintf(worker.bgw_library_name, BGW_MAXLEN, "dynview");
	snprintf(worker.bgw_function_name, BGW_MAXLEN, "dynview_launcher_main");
	snprintf(worker.bgw_name, BGW_MAXLEN, "dynview launcher");
	snprintf(worker.bgw_type, BGW_MAXLEN, "dynview launcher");
	RegisterBackgroundWorker(&worker);
}

/*
 * dv_start_database_worker - start a dynamic per-database worker (decoder or
 * scheduler) that reports to the calling launcher; *handle is NULL if no
 * background worker slot was free.
 */
void
dv_start_database_worker(Oid dboid, const char *function, const char *type,
						 BackgroundWorkerHandle **handle)
{
	BackgroundWorker worker;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
	worker.bgw_restart_time = BGW_NEVER_RESTART;
	snprintf(worker.bgw_library_name, BGW_MAXLEN, "dynview");
	snprintf(worker.bgw_function_name, BGW_MAXLEN, "%s", function);
	snprintf(worker.bgw_name, BGW_MAXLEN, "%s %u", type, dboid);
	snprintf(worker.bgw_type, BGW_MAXLEN, "%s", type);
	worker.bgw_main_arg = ObjectIdGetDatum(dboid);
	worker.bgw_notify_pid = MyProcPid;
	if (!RegisterDynamicBackgroundWorker(&worker, handle))
		*handle = NULL;
}

static WorkerSlot *
worker_for(Oid dboid, bool create)
{
	WorkerSlot *free_slot = NULL;

	for (int i = 0; i < MAX_TRACKED_WORKERS; i++)
	{
		if (workers[i].dboid == dboid)
			return &workers[i];
		if (free_slot == NULL && !OidIsValid(workers[i].dboid))
			free_slot = &workers[i];
	}
	if (create && free_slot)
	{
		memset(free_slot, 0, sizeof(WorkerSlot));
		free_slot->dboid = dboid;
		free_slot->backoff_ms = 1000;
		free_slot->scheduler_backoff_ms = 1000;
	}
	return create ? free_slot : NULL;
}

/* start a decoder (probe) in every database that accepts connections */
static void
probe_databases(void)
{
	Relation	rel;
	TableScanDesc scan;
	HeapTuple	tup;
	List	   *dbs = NIL;
	ListCell   *lc;
	MemoryContext caller = CurrentMemoryContext;

	/* the list outlives the transaction: build it in the caller's context */
	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	rel = table_open(DatabaseRelationId, AccessShareLock);
	scan = table_beginscan_catalog(rel, 0, NULL);
	while ((tup = heap_getnext(scan, ForwardScanDirection)) != NULL)
	{
		Form_pg_database db = (Form_pg_database) GETSTRUCT(tup);

		if (db->datallowconn && !db->datistemplate)
		{
			MemoryContext txn = MemoryContextSwitchTo(caller);

			dbs = lappend_oid(dbs, db->oid);
			MemoryContextSwitchTo(txn);
		}
	}
	table_endscan(scan);
	table_close(rel, AccessShareLock);
	PopActiveSnapshot();
	CommitTransactionCommand();

	foreach(lc, dbs)
	{
		WorkerSlot *w = worker_for(lfirst_oid(lc), true);

		if (w && w->handle == NULL)
		{
			dv_decoder_start(w->dboid, &w->handle);
			w->started = GetCurrentTimestamp();
		}
	}
	list_free(dbs);
}

/* start or restart (after its backoff) one worker of a database */
static void
keep_running(Oid dboid, BackgroundWorkerHandle **handle, TimestampTz *next_start, int *backoff_ms,
			 TimestampTz *started, TimestampTz now, long *sleep_ms,
			 void (*start) (Oid, BackgroundWorkerHandle **))
{
	pid_t		pid;

	if (*handle != NULL && GetBackgroundWorkerPid(*handle, &pid) != BGWH_STOPPED)
		return;
	if (*handle != NULL)
	{
		pfree(*handle);
		*handle = NULL;
		if (TimestampDifferenceExceeds(*started, now, HEALTHY_RUN_MS))
			*backoff_ms = 1000;
		*next_start = TimestampTzPlusMilliseconds(now, *backoff_ms);
		*backoff_ms = Min(*backoff_ms * 2, 60000);
	}
	if (now >= *next_start)
	{
		start(dboid, handle);
		*started = now;
	}
	else
	{
		long		secs;
		int			usecs;

		TimestampDifference(now, *next_start, &secs, &usecs);
		*sleep_ms = Min(*sleep_ms, secs * 1000 + usecs / 1000 + 1);
	}
}

/* keep a decoder and a scheduler per registered database; returns ms until next restart */
static long
supervise(void)
{
	int			n;
	Oid		   *dbs = dv_shmem_databases(&n);
	TimestampTz now = GetCurrentTimestamp();
	long		sleep_ms = 10L * dv_naptime;

	for (int i = 0; i < n; i++)
	{
		WorkerSlot *w = worker_for(dbs[i], true);
		pid_t		pid;
		bool		had_scheduler;

		if (w == NULL)
			continue;
		/* a backend waits for a decoder that failed: try again now */
		if (dv_shmem_take_capture_retry(w->dboid))
			w->next_start = now;
		had_scheduler = w->scheduler != NULL;
		keep_running(w->dboid, &w->scheduler, &w->scheduler_next_start, &w->scheduler_backoff_ms,
					 &w->scheduler_started, now, &sleep_ms, dv_scheduler_start);
		if (w->scheduler == NULL && now >= w->scheduler_next_start && !w->scheduler_warned)
		{
			ereport(WARNING,
					(errmsg("dynview: could not start the scheduler of database %u: no background worker slot is free", w->dboid),
					 errhint("Raise max_worker_processes (now %d) and restart the server: dynview needs one for its launcher and two for each database with dynview.",
							 max_worker_processes)));
			w->scheduler_warned = true;
		}
		else if (w->scheduler != NULL && !had_scheduler)
			w->scheduler_warned = false;
		if (w->handle != NULL &&
			GetBackgroundWorkerPid(w->handle, &pid) != BGWH_STOPPED)
			continue;
		if (w->handle != NULL)
		{
			pfree(w->handle);
			w->handle = NULL;
			if (dv_shmem_take_decoder_handover(w->dboid))
			{
				/* it left for a new installation: start that one's decoder now */
				ereport(LOG,
						(errmsg("dynview: the decoder of database %u left for a new installation of the extension; starting its decoder now",
								w->dboid)));
				w->next_start = now;
			}
			else
			{
				/* it stopped: restart after the backoff */
				if (TimestampDifferenceExceeds(w->started, now, HEALTHY_RUN_MS))
					w->backoff_ms = 1000;
				w->next_start = TimestampTzPlusMilliseconds(now, w->backoff_ms);
				w->backoff_ms = Min(w->backoff_ms * 2, 60000);
			}
		}
		if (now >= w->next_start)
		{
			dv_decoder_start(w->dboid, &w->handle);
			w->started = now;
			if (w->handle == NULL)
			{
				char	   *hint = psprintf("Raise max_worker_processes (now %d) and restart the server: dynview needs one for its launcher and two for each database with dynview.",
											max_worker_processes);

				if (!w->decoder_warned)
					ereport(WARNING,
							(errmsg("dynview: could not start the decoder of database %u: no background worker slot is free", w->dboid),
							 errhint("%s", hint)));
				w->decoder_warned = true;
				dv_shmem_set_capture_state(w->dboid, DV_CAPTURE_NO_WORKER,
										   "no background worker slot was free", NULL, hint);
				/* look again after a while, not at once */
				sleep_ms = Min(sleep_ms, 1000L);
			}
			else
				w->decoder_warned = false;
		}
		else
		{
			long		secs;
			int			usecs;

			TimestampDifference(now, w->next_start, &secs, &usecs);
			sleep_ms = Min(sleep_ms, secs * 1000 + usecs / 1000 + 1);
		}
	}

	/* forget databases that are no longer registered (extension dropped) */
	for (int i = 0; i < MAX_TRACKED_WORKERS; i++)
	{
		bool		registered = false;
		pid_t		pid;

		if (!OidIsValid(workers[i].dboid))
			continue;
		for (int j = 0; j < n; j++)
			registered |= dbs[j] == workers[i].dboid;
		if (registered)
			continue;
		if (workers[i].handle != NULL &&
			GetBackgroundWorkerPid(workers[i].handle, &pid) != BGWH_STOPPED)
			continue;			/* a probe still running, or leaving */
		if (workers[i].scheduler != NULL &&
			GetBackgroundWorkerPid(workers[i].scheduler, &pid) != BGWH_STOPPED)
			continue;
		if (workers[i].handle)
			pfree(workers[i].handle);
		if (workers[i].scheduler)
			pfree(workers[i].scheduler);
		memset(&workers[i], 0, sizeof(WorkerSlot));
	}
	pfree(dbs);
	return sleep_ms;
}

/*
 * launcher_exit - the launcher exits (terminated, or an error): stop the
 * workers it started.  It cannot adopt them when it is restarted (it has no
 * handle of a worker of its predecessor), and a second decoder for the
 * database would fail on the slot, the old one still holding it, and mark
 * capture FAILED while it runs; a second scheduler would refresh beside the
 * first.  The restarted launcher (bgw_restart_time) starts them anew.
 */
static void
launcher_exit(int code, Datum arg)
{
	for (int i = 0; i < MAX_TRACKED_WORKERS; i++)
	{
		if (workers[i].handle)
			TerminateBackgroundWorker(workers[i].handle);
		if (workers[i].scheduler)
			TerminateBackgroundWorker(workers[i].scheduler);
	}
}

void
dynview_launcher_main(Datum main_arg)
{
	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();
	BackgroundWorkerInitializeConnection(NULL, NULL, 0);
	pgstat_report_appname("dynview launcher");
	dv_shmem_set_launcher_latch(MyLatch);
	before_shmem_exit(launcher_exit, (Datum) 0);

	probe_databases();
	for (;;)
	{
		long		sleep_ms;

		CHECK_FOR_INTERRUPTS();
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
			/* a fixed setting may let stopped decoders start: no backoff */
			for (int i = 0; i < MAX_TRACKED_WORKERS; i++)
			{
				workers[i].next_start = 0;
				workers[i].backoff_ms = 1000;
			}
		}
		sleep_ms = supervise();
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 sleep_ms, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
}
