/*-------------------------------------------------------------------------
 *
 * shmem.c
 *	  dynview's shared memory: the databases that have the extension (with
 *	  their decoder's progress) and the source relations being tracked.
 *
 * Layout (DvShared), all protected by the one LWLock "dynview":
 *	  databases[]: one entry per database with the extension installed:
 *		dboid				the database (InvalidOid: free entry)
 *		decoder_latch		latch of its decoder worker, to wake it (NULL if none)
 *		scheduler_latch		latch of its scheduler worker (NULL if none)
 *		decoded_lsn			every transaction whose commit record ends at or
 *							before this LSN is in the change buffers (committed)
 *		decoded_extension	the installation of the extension (its
 *							pg_extension OID) whose decoder published
 *							decoded_lsn: it counts for that installation only
 *		waiting_for_xid		the decoder waits for this creating transaction
 *		creating_xid		the CREATE EXTENSION that registered it, while it may
 *							still be in progress
 *		cv					broadcast whenever decoded_lsn advances
 *		decoder_pid			the decoder process (0: none); set by the decoder
 *		capture_state		DvCaptureState: where the decoder is, set by the
 *							decoder (starting, running, failed) and by the
 *							launcher (no background worker slot was free)
 *		capture_attempts	decoder starts so far (a waiter sees a new attempt)
 *		retry_requested		a backend asks the launcher to start the decoder
 *							now instead of after its backoff
 *		handed_over			the decoder left because its installation of the
 *							extension was replaced by a new one (DROP and
 *							CREATE EXTENSION): not a failure, the launcher
 *							starts the new one's decoder at once
 *		error_time, error, detail, hint
 *							the last failure to start or run the decoder
 *							(kept once it runs again, for cdc_status)
 *	  sources[]: one entry per tracked source relation:
 *		dboid, relid		the source
 *		creating_xid		the transaction that started tracking it, while
 *							that transaction may still abort; else invalid
 *	  launcher_latch		to wake the launcher (new database registered)
 *	  launcher_pid			the launcher process (0: not running)
 *
 * Readers take the lock shared; the decoder's per-change lookup is a short
 * linear scan of sources[] (bounded by dynview.max_sources).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type_d.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/condition_variable.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lwlock.h"
#include "storage/proc.h"
#include "storage/shmem.h"
#include "utils/array.h"
#include "utils/fmgrprotos.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

#include "dynview.h"
#include "cdc/cdc.h"

#define DV_MAX_DATABASES	64

typedef struct DvDatabaseState
{
	Oid			dboid;
	Latch	   *decoder_latch;
	Latch	   *scheduler_latch;
	XLogRecPtr	decoded_lsn;
	Oid			decoded_extension;
	TransactionId waiting_for_xid;
	TransactionId creating_xid;	/* CREATE EXTENSION that may still abort */
	ConditionVariable cv;
	pid_t		decoder_pid;
	DvCaptureState capture_state;
	uint32		capture_attempts;
	bool		retry_requested;
	bool		handed_over;
	TimestampTz error_time;
	char		error[DV_CAPTURE_TEXT];
	char		detail[DV_CAPTURE_TEXT];
	char		hint[DV_CAPTURE_TEXT];
} DvDatabaseState;

typedef struct DvSourceState
{
	Oid			dboid;
	Oid			relid;
	TransactionId creating_xid;
} DvSourceState;

typedef struct DvShared
{
	LWLock	   *lock;
	Latch	   *launcher_latch;
	pid_t		launcher_pid;
	DvDatabaseState databases[DV_MAX_DATABASES];
	uint64		tracking_generation;	/* bumped when a source is added to sources[] */
	int			nsources;		/* entries in use at the front of sources[] */
	DvSourceState sources[FLEXIBLE_ARRAY_MEMBER];
} DvShared;

int			dv_max_sources = 1024;

static DvShared *dv_shared = NULL;
static shmem_request_hook_type prev_shmem_request = NULL;
static shmem_startup_hook_type prev_shmem_startup = NULL;

/* tracking started by this backend's current transaction, forgotten on abort */
static List *pending_sources = NIL;
/* tracking stopped by this backend's current transaction, done at commit */
static List *pending_untrack = NIL;
static List *pending_untrack_subxact = NIL;	/* SubTransactionId of each, as int */
static bool xact_callback_registered = false;
static bool wake_scheduler_pending = false;

static Size
shared_size(void)
{
	return add_size(offsetof(DvShared, sources),
					mul_size(sizeof(DvSourceState), dv_max_sources));
}

static void
dv_shmem_request(void)
{
	if (prev_shmem_request)
		prev_shmem_request();
	RequestAddinShmemSpace(shared_size());
	RequestNamedLWLockTranche("dynview", 1);
}

static void
dv_shmem_startup(void)
{
	bool		found;

	if (prev_shmem_startup)
		prev_shmem_startup();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	dv_shared = ShmemInitStruct("dynview", shared_size(), &found);
	if (!found)
	{
		memset(dv_shared, 0, shared_size());
		dv_shared->lock = &(GetNamedLWLockTranche("dynview"))->lock;
		for (int i = 0; i < DV_MAX_DATABASES; i++)
			ConditionVariableInit(&dv_shared->databases[i].cv);
	}
	LWLockRelease(AddinShmemInitLock);
}

/*
 * dv_shmem_init - install the shared memory hooks (_PG_init, preload only).
 */
void
dv_shmem_init(void)
{
	prev_shmem_request = shmem_request_hook;
	shmem_request_hook = dv_shmem_request;
	prev_shmem_startup = shmem_startup_hook;
	shmem_startup_hook = dv_shmem_startup;
}

/* is the library preloaded, so that shared state and workers exist? */
bool
dv_shmem_available(void)
{
	return dv_shared != NULL;
}

static void
require_shmem(void)
{
	if (dv_shared == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("dynview must be loaded via shared_preload_libraries"),
				 errhint("Add dynview to shared_preload_libraries in postgresql.conf and restart the server.")));
}

static DvDatabaseState *
find_database(Oid dboid)
{
	for (int i = 0; i < DV_MAX_DATABASES; i++)
		if (dv_shared->databases[i].dboid == dboid)
			return &dv_shared->databases[i];
	return NULL;
}

/*
 * dv_shmem_register_database - note that dboid has the extension, and wake
 * the launcher so that it starts the database's workers.
 */
void
dv_shmem_register_database(Oid dboid, TransactionId creating_xid)
{
	DvDatabaseState *db;

	require_shmem();
	LWLockAcquire(dv_shared->lock, LW_EXCLUSIVE);
	db = find_database(dboid);
	if (db == NULL)
	{
		db = find_database(InvalidOid);
		if (db == NULL)
		{
			LWLockRelease(dv_shared->lock);
			ereport(ERROR,
					(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
					 errmsg("dynview is installed in too many databases"),
					 errdetail("At most %d databases of one server can use dynview.", DV_MAX_DATABASES)));
		}
		db->dboid = dboid;
		db->decoder_latch = NULL;
		db->scheduler_latch = NULL;
		db->decoded_lsn = InvalidXLogRecPtr;
		db->decoded_extension = InvalidOid;
		db->waiting_for_xid = InvalidTransactionId;
		db->creating_xid = InvalidTransactionId;
		db->decoder_pid = 0;
		db->capture_state = DV_CAPTURE_NOT_STARTED;
		db->capture_attempts = 0;
		db->retry_requested = false;
		db->handed_over = false;
		db->error_time = 0;
		db->error[0] = db->detail[0] = db->hint[0] = '\0';
	}
	if (TransactionIdIsValid(creating_xid))
		db->creating_xid = creating_xid;
	LWLockRelease(dv_shared->lock);
	if (dv_shared->launcher_latch)
		SetLatch(dv_shared->launcher_latch);
}

/*
 * dv_shmem_database_creating_xid - the transaction that registered dboid
 * with CREATE EXTENSION (may have ended), or InvalidTransactionId.
 */
TransactionId
dv_shmem_database_creating_xid(Oid dboid)
{
	DvDatabaseState *db;
	TransactionId xid = InvalidTransactionId;

	LWLockAcquire(dv_shared->lock, LW_SHARED);
	db = find_database(dboid);
	if (db)
		xid = db->creating_xid;
	LWLockRelease(dv_shared->lock);
	return xid;
}

/*
 * dv_shmem_unregister_database - forget dboid (the extension was dropped)
 * and every source tracked there.
 */
void
dv_shmem_unregister_database(Oid dboid)
{
	(void) dv_shmem_unregister_database_of(dboid, false, InvalidTransactionId);
}

/*
 * dv_shmem_unregister_database_of - dv_shmem_unregister_database, but when
 * only_if is set only if the registration is still the one made by the
 * CREATE EXTENSION creating_xid (InvalidTransactionId: the one made at the
 * server's start).  A decoder leaving a dropped extension passes the one it
 * started with: a CREATE EXTENSION that registered the database again
 * meanwhile must stay registered (the launcher then starts its decoder once
 * the leaving one has exited), else the new extension would have no capture
 * until the server restarts.  Returns whether it forgot dboid.
 */
bool
dv_shmem_unregister_database_of(Oid dboid, bool only_if, TransactionId creating_xid)
{
	DvDatabaseState *db;

	Latch	   *scheduler = NULL;
	Latch	   *decoder = NULL;

	LWLockAcquire(dv_shared->lock, LW_EXCLUSIVE);
	db = find_database(dboid);
	if (db && only_if && !TransactionIdEquals(db->creating_xid, creating_xid))
	{
		LWLockRelease(dv_shared->lock);
		return false;
	}
	if (db)
	{
		/* its workers must notice that they have to leave */
		scheduler = db->scheduler_latch;
		decoder = db->decoder_latch;
		db->dboid = InvalidOid;
	}
	for (int i = 0; i < dv_shared->nsources;)
	{
		if (dv_shared->sources[i].dboid == dboid)
			dv_shared->sources[i] = dv_shared->sources[--dv_shared->nsources];
		else
			i++;
	}
	LWLockRelease(dv_shared->lock);
	if (scheduler)
		SetLatch(scheduler);
	if (decoder)
		SetLatch(decoder);
	return true;
}

/*
 * dv_shmem_databases - the registered databases (palloc'd array).
 */
Oid *
dv_shmem_databases(int *n)
{
	Oid		   *result = palloc(sizeof(Oid) * DV_MAX_DATABASES);

	*n = 0;
	LWLockAcquire(dv_shared->lock, LW_SHARED);
	for (int i = 0; i < DV_MAX_DATABASES; i++)
		if (OidIsValid(dv_shared->databases[i].dboid))
			result[(*n)++] = dv_shared->databases[i].dboid;
	LWLockRelease(dv_shared->lock);
	return result;
}

static void
launcher_gone(int code, Datum arg)
{
	LWLockAcquire(dv_shared->lock, LW_EXCLUSIVE);
	dv_shared->launcher_latch = NULL;
	dv_shared->launcher_pid = 0;
	LWLockRelease(dv_shared->lock);
}

/* the launcher announces itself; forgotten when it exits */
void
dv_shmem_set_launcher_latch(Latch *latch)
{
	LWLockAcquire(dv_shared->lock, LW_EXCLUSIVE);
	dv_shared->launcher_latch = latch;
	dv_shared->launcher_pid = MyProcPid;
	LWLockRelease(dv_shared->lock);
	before_shmem_exit(launcher_gone, (Datum) 0);
}

/* is the launcher running (it may not have started yet)? */
bool
dv_shmem_launcher_running(void)
{
	bool		running;

	if (dv_shared == NULL)
		return false;
	LWLockAcquire(dv_shared->lock, LW_SHARED);
	running = dv_shared->launcher_pid != 0;
	LWLockRelease(dv_shared->lock);
	return running;
}

static void
wake_launcher(void)
{
	Latch	   *latch;

	LWLockAcquire(dv_shared->lock, LW_SHARED);
	latch = dv_shared->launcher_latch;
	LWLockRelease(dv_shared->lock);
	if (latch)
		SetLatch(latch);
}

/*
 * dv_shmem_capture_started - the decoder of dboid starts (an attempt):
 * state STARTING, its pid noted.  No-op if dboid is not registered.
 */
void
dv_shmem_capture_started(Oid dboid)
{
	DvDatabaseState *db;

	LWLockAcquire(dv_shared->lock, LW_EXCLUSIVE);
	db = find_database(dboid);
	if (db)
	{
		db->decoder_pid = MyProcPid;
		db->capture_state = DV_CAPTURE_STARTING;
		db->capture_attempts++;
	}
	LWLockRelease(dv_shared->lock);
}

/*
 * dv_shmem_set_capture_state - record where the decoder of dboid is; with
 * an error (NULL: none), record it as the last failure.  The strings are
 * truncated to DV_CAPTURE_TEXT bytes.  Waiters on the condition variable
 * are woken: a failure ends their wait.  NOT_STARTED (a decoder leaves an
 * installation of the extension that a new CREATE EXTENSION replaced, the
 * database staying registered for the new one) also forgets the published
 * position, so that waiters wait for the next decoder and its new slot
 * rather than find capture running.
 */
void
dv_shmem_set_capture_state(Oid dboid, DvCaptureState state, const char *error,
						   const char *detail, const char *hint)
{
	DvDatabaseState *db;

	LWLockAcquire(dv_shared->lock, LW_EXCLUSIVE);
	db = find_database(dboid);
	if (db)
	{
		db->capture_state = state;
		if (state == DV_CAPTURE_NOT_STARTED)
		{
			db->decoded_lsn = InvalidXLogRecPtr;
			db->decoded_extension = InvalidOid;
			db->waiting_for_xid = InvalidTransactionId;
		}
		if (state != DV_CAPTURE_STARTING && state != DV_CAPTURE_RUNNING &&
			db->decoder_pid == MyProcPid)
			db->decoder_pid = 0;
		if (error)
		{
			db->error_time = GetCurrentTimestamp();
			strlcpy(db->error, error, DV_CAPTURE_TEXT);
			strlcpy(db->detail, detail ? detail : "", DV_CAPTURE_TEXT);
			strlcpy(db->hint, hint ? hint : "", DV_CAPTURE_TEXT);
		}
	}
	LWLockRelease(dv_shared->lock);
	if (db)
		ConditionVariableBroadcast(&db->cv);
}

/*
 * dv_shmem_capture_status - copy the capture state of dboid into *status;
 * false if dboid is not registered (or shared memory is absent).
 */
bool
dv_shmem_capture_status(Oid dboid, DvCaptureStatus *status)
{
	DvDatabaseState *db;

	memset(status, 0, sizeof(DvCaptureStatus));
	if (dv_shared == NULL)
		return false;
	LWLockAcquire(dv_shared->lock, LW_SHARED);
	status->launcher_running = dv_shared->launcher_pid != 0;
	db = find_database(dboid);
	if (db)
	{
		status->state = db->capture_state;
		status->attempts = db->capture_attempts;
		status->decoder_pid = db->decoder_pid;
		status->error_time = db->error_time;
		strlcpy(status->error, db->error, DV_CAPTURE_TEXT);
		strlcpy(status->detail, db->detail, DV_CAPTURE_TEXT);
		strlcpy(status->hint, db->hint, DV_CAPTURE_TEXT);
	}
	LWLockRelease(dv_shared->lock);
	return db != NULL;
}

/*
 * set_note, take_note - set, or read and clear, one of the notes to the
 * launcher (a bool at offset `field` of dboid's DvDatabaseState:
 * retry_requested, handed_over); take_note is false for a database not
 * registered.  Take the shared lock exclusively.
 */
static void
set_note(Oid dboid, size_t field)
{
	DvDatabaseState *db;

	LWLockAcquire(dv_shared->lock, LW_EXCLUSIVE);
	db = find_database(dboid);
	if (db)
		*(bool *) ((char *) db + field) = true;
	LWLockRelease(dv_shared->lock);
}

static bool
take_note(Oid dboid, size_t field)
{
	DvDatabaseState *db;
	bool		noted = false;

	LWLockAcquire(dv_shared->lock, LW_EXCLUSIVE);
	db = find_database(dboid);
	if (db)
	{
		noted = *(bool *) ((char *) db + field);
		*(bool *) ((char *) db + field) = false;
	}
	LWLockRelease(dv_shared->lock);
	return noted;
}

/*
 * dv_shmem_request_capture_retry - ask the launcher to start the decoder of
 * the current database now (a backend waits for capture that failed: a
 * fixed setting is then seen at once, not after the backoff).
 */
void
dv_shmem_request_capture_retry(void)
{
	set_note(MyDatabaseId, offsetof(DvDatabaseState, retry_requested));
	wake_launcher();
}

/* launcher: was a retry asked for dboid?  Clears the request. */
bool
dv_shmem_take_capture_retry(Oid dboid)
{
	return take_note(dboid, offsetof(DvDatabaseState, retry_requested));
}

/*
 * dv_shmem_decoder_handed_over - the decoder of dboid is about to exit
 * because the installation of the extension it served is gone and the
 * database is registered by a new one (its registration kept: see
 * dv_shmem_unregister_database_of).  The launcher then starts the new
 * installation's decoder at once, its backoff untouched
 * (dv_shmem_take_decoder_handover).
 */
void
dv_shmem_decoder_handed_over(Oid dboid)
{
	set_note(dboid, offsetof(DvDatabaseState, handed_over));
}

/*
 * dv_shmem_take_decoder_handover - launcher, once it sees the decoder of
 * dboid stopped: did it leave for a new installation
 * (dv_shmem_decoder_handed_over) rather than fail?  Clears the note.
 */
bool
dv_shmem_take_decoder_handover(Oid dboid)
{
	return take_note(dboid, offsetof(DvDatabaseState, handed_over));
}

/*
 * dv_shmem_capture_sleep - sleep on the condition variable of the current
 * database (woken when decoding advances or the capture state changes), at
 * most timeout_ms.
 */
void
dv_shmem_capture_sleep(long timeout_ms)
{
	DvDatabaseState *db;

	LWLockAcquire(dv_shared->lock, LW_SHARED);
	db = find_database(MyDatabaseId);
	LWLockRelease(dv_shared->lock);
	if (db == NULL)
	{
		pg_usleep(timeout_ms * 1000L);
		return;
	}
	(void) ConditionVariableTimedSleep(&db->cv, timeout_ms, PG_WAIT_EXTENSION);
	ConditionVariableCancelSleep();
}

/* the decoder's or the scheduler's latch of dboid, or NULL */
static Latch *
worker_latch(Oid dboid, bool scheduler)
{
	DvDatabaseState *db;
	Latch	   *latch = NULL;

	if (dv_shared == NULL)
		return NULL;
	LWLockAcquire(dv_shared->lock, LW_SHARED);
	db = find_database(dboid);
	if (db)
		latch = scheduler ? db->scheduler_latch : db->decoder_latch;
	LWLockRelease(dv_shared->lock);
	return latch;
}

/*
 * a worker of dboid announces itself (latch non-NULL) or leaves (NULL: the
 * entry is cleared only if it still holds the caller's latch)
 */
static void
set_worker_latch(Oid dboid, bool scheduler, Latch *latch)
{
	DvDatabaseState *db;

	LWLockAcquire(dv_shared->lock, LW_EXCLUSIVE);
	db = find_database(dboid);
	if (db && scheduler)
	{
		/* leaving: forget only our own latch, not that of a successor */
		if (latch != NULL || db->scheduler_latch == MyLatch)
			db->scheduler_latch = latch;
	}
	else if (db)
	{
		if (latch != NULL || db->decoder_latch == MyLatch)
			db->decoder_latch = latch;
	}
	LWLockRelease(dv_shared->lock);
}

static void
wake_worker(Oid dboid, bool scheduler)
{
	Latch	   *latch = worker_latch(dboid, scheduler);

	if (latch)
		SetLatch(latch);
}

void
dv_shmem_set_decoder(Oid dboid, Latch *latch)
{
	set_worker_latch(dboid, false, latch);
}

void
dv_shmem_set_scheduler(Oid dboid, Latch *latch)
{
	set_worker_latch(dboid, true, latch);
}

/* wake the scheduler of dboid now */
void
dv_shmem_wake_scheduler(Oid dboid)
{
	wake_worker(dboid, true);
}

/* at commit: wake the scheduler of the current database (a schedule changed) */
static void
wake_scheduler(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_COMMIT && wake_scheduler_pending)
		wake_worker(MyDatabaseId, true);
	if (event == XACT_EVENT_ABORT || event == XACT_EVENT_COMMIT)
		wake_scheduler_pending = false;
}

/*
 * dv_shmem_wake_scheduler_at_commit - a schedule or a table changed: the
 * database's scheduler looks again once the current transaction commits
 * (it sleeps until the next table is due).
 */
void
dv_shmem_wake_scheduler_at_commit(void)
{
	static bool registered = false;

	if (dv_shared == NULL)
		return;
	if (!registered)
	{
		RegisterXactCallback(wake_scheduler, NULL);
		registered = true;
	}
	wake_scheduler_pending = true;
}

/* does dboid have a decoder process (it may still be building its slot)? */
bool
dv_shmem_decoder_running(Oid dboid)
{
	return worker_latch(dboid, false) != NULL;
}

void
dv_shmem_wake_decoder(Oid dboid)
{
	wake_worker(dboid, false);
}

/*
 * dv_shmem_publish_decoded - the decoder of dboid, serving the installation
 * of the extension `extension` (its pg_extension OID), has committed every
 * change of transactions whose commit ends at or before lsn.  A position of
 * another installation is replaced, not compared.
 */
void
dv_shmem_publish_decoded(Oid dboid, Oid extension, XLogRecPtr lsn)
{
	DvDatabaseState *db;

	LWLockAcquire(dv_shared->lock, LW_EXCLUSIVE);
	db = find_database(dboid);
	if (db && (lsn > db->decoded_lsn || db->decoded_extension != extension))
	{
		db->decoded_lsn = lsn;
		db->decoded_extension = extension;
	}
	LWLockRelease(dv_shared->lock);
	if (db)
		ConditionVariableBroadcast(&db->cv);
}

void
dv_shmem_set_decoder_waiting(Oid dboid, TransactionId xid)
{
	DvDatabaseState *db;

	LWLockAcquire(dv_shared->lock, LW_EXCLUSIVE);
	db = find_database(dboid);
	if (db)
		db->waiting_for_xid = xid;
	LWLockRelease(dv_shared->lock);
}

/*
 * dv_shmem_decoded_lsn - the position published by the decoder of dboid if
 * it serves the installation `extension` (the caller's, get_extension_oid);
 * else InvalidXLogRecPtr.  After DROP EXTENSION and CREATE EXTENSION, the
 * decoder of the dropped installation runs until its next check and goes on
 * publishing, but it writes no change of the new one (write_batch finds the
 * extension replaced): its position must not count for the new installation.
 */
XLogRecPtr
dv_shmem_decoded_lsn(Oid dboid, Oid extension)
{
	DvDatabaseState *db;
	XLogRecPtr	lsn = InvalidXLogRecPtr;

	if (dv_shared == NULL)
		return InvalidXLogRecPtr;
	LWLockAcquire(dv_shared->lock, LW_SHARED);
	db = find_database(dboid);
	if (db && db->decoded_extension == extension)
		lsn = db->decoded_lsn;
	LWLockRelease(dv_shared->lock);
	return lsn;
}

/*
 * decoder_blocked_by_me - does the decoder (pid; 0: none) wait for a lock
 * that the current transaction holds?  It then cannot commit anything
 * before this transaction ends: a refresh that widened a change buffer's
 * column (dv_tracking_sync_buffers, after an ALTER of a source) holds that
 * buffer's AccessExclusiveLock until commit, and a later table of the same
 * pipeline would otherwise wait for the decoder until its timeout.
 * pg_blocking_pids() takes every lock partition's lock: called only after a
 * first sleep of the wait.
 */
static bool
decoder_blocked_by_me(pid_t decoder)
{
	ArrayType  *blockers;
	Datum	   *pids;
	int			n;
	bool		found = false;

	if (decoder == 0)
		return false;
	blockers = DatumGetArrayTypeP(DirectFunctionCall1(pg_blocking_pids, Int32GetDatum(decoder)));
	deconstruct_array(blockers, INT4OID, sizeof(int32), true, TYPALIGN_INT, &pids, NULL, &n);
	for (int i = 0; i < n && !found; i++)
		found = DatumGetInt32(pids[i]) == MyProcPid;
	pfree(pids);
	pfree(blockers);
	return found;
}

/*
 * dv_shmem_wait_decoded - wait until the decoder of the current database,
 * serving the installation `extension` (see dv_shmem_decoded_lsn), has
 * committed the changes of every transaction that committed before lsn.
 *
 * Returns DV_WAIT_TIMEOUT on timeout (timeout_ms < 0 waits forever),
 * DV_WAIT_SELF at once when the decoder waits for the current transaction
 * (for its commit; or for a lock it holds, seen after a first sleep: it
 * would never get there: the caller must then refresh without the
 * buffers), DV_WAIT_CAPTURE_FAILED as soon as the decoder could not start
 * (the caller reports why: dv_capture_check).
 */
DvWaitResult
dv_shmem_wait_decoded(XLogRecPtr lsn, Oid extension, long timeout_ms)
{
	DvDatabaseState *db;
	TimestampTz start = GetCurrentTimestamp();
	DvWaitResult result = DV_WAIT_TIMEOUT;
	bool		slept = false;

	require_shmem();
	LWLockAcquire(dv_shared->lock, LW_SHARED);
	db = find_database(MyDatabaseId);
	LWLockRelease(dv_shared->lock);
	if (db == NULL)
		return DV_WAIT_TIMEOUT;

	dv_shmem_wake_decoder(MyDatabaseId);
	for (;;)
	{
		XLogRecPtr	decoded = InvalidXLogRecPtr;
		TransactionId waiting;
		DvCaptureState state;
		pid_t		decoder;

		LWLockAcquire(dv_shared->lock, LW_SHARED);
		/* a position of another installation: wait for our decoder's */
		if (db->decoded_extension == extension)
			decoded = db->decoded_lsn;
		waiting = db->waiting_for_xid;
		state = db->capture_state;
		decoder = db->decoder_pid;
		LWLockRelease(dv_shared->lock);
		if (decoded >= lsn)
		{
			result = DV_WAIT_DONE;
			break;
		}
		if (TransactionIdIsValid(waiting) && TransactionIdIsCurrentTransactionId(waiting))
		{
			result = DV_WAIT_SELF;
			break;
		}
		/* (not at once: the decoder is usually just behind) */
		if (slept && decoder_blocked_by_me(decoder))
		{
			result = DV_WAIT_SELF;
			break;
		}
		if (state == DV_CAPTURE_FAILED || state == DV_CAPTURE_NO_WORKER)
		{
			result = DV_WAIT_CAPTURE_FAILED;
			break;
		}
		if (timeout_ms >= 0 &&
			TimestampDifferenceExceeds(start, GetCurrentTimestamp(), (int) timeout_ms))
			break;
		/* sleep on the CV, but look again now and then in case we missed a wakeup */
		(void) ConditionVariableTimedSleep(&db->cv, 100, PG_WAIT_EXTENSION);
		slept = true;
	}
	ConditionVariableCancelSleep();
	return result;
}

static void
forget_pending_on_abort(XactEvent event, void *arg)
{
	ListCell   *lc;

	if (event != XACT_EVENT_ABORT && event != XACT_EVENT_PARALLEL_ABORT &&
		event != XACT_EVENT_COMMIT && event != XACT_EVENT_PARALLEL_COMMIT &&
		event != XACT_EVENT_PREPARE)
		return;
	if ((pending_sources == NIL && pending_untrack == NIL) || dv_shared == NULL)
		return;
	LWLockAcquire(dv_shared->lock, LW_EXCLUSIVE);
	if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_PARALLEL_COMMIT)
	{
		foreach(lc, pending_untrack)
		{
			for (int i = 0; i < dv_shared->nsources; i++)
			{
				if (dv_shared->sources[i].dboid == MyDatabaseId &&
					dv_shared->sources[i].relid == lfirst_oid(lc))
				{
					dv_shared->sources[i] = dv_shared->sources[--dv_shared->nsources];
					break;
				}
			}
		}
	}
	foreach(lc, pending_sources)
	{
		Oid			relid = lfirst_oid(lc);

		for (int i = 0; i < dv_shared->nsources; i++)
		{
			DvSourceState *s = &dv_shared->sources[i];

			if (s->dboid != MyDatabaseId || s->relid != relid)
				continue;
			if (event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT)
				dv_shared->sources[i] = dv_shared->sources[--dv_shared->nsources];
			else
				s->creating_xid = InvalidTransactionId;
			break;
		}
	}
	LWLockRelease(dv_shared->lock);
	list_free(pending_sources);
	pending_sources = NIL;
	list_free(pending_untrack);
	pending_untrack = NIL;
	list_free(pending_untrack_subxact);
	pending_untrack_subxact = NIL;
}

/*
 * filter_pending_untrack - keep the pending untracks but those of relid
 * (tracked again) and those of subtransaction aborted; those of committed
 * pass to parent.  InvalidOid / InvalidSubTransactionId: none.
 */
static void
filter_pending_untrack(Oid relid, SubTransactionId aborted, SubTransactionId committed,
					   SubTransactionId parent)
{
	List	   *relids = NIL;
	List	   *subids = NIL;
	ListCell   *lr;
	ListCell   *ls;
	MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

	forboth(lr, pending_untrack, ls, pending_untrack_subxact)
	{
		SubTransactionId subid = (SubTransactionId) lfirst_int(ls);

		if (lfirst_oid(lr) == relid || subid == aborted)
			continue;
		relids = lappend_oid(relids, lfirst_oid(lr));
		subids = lappend_int(subids, (int) (subid == committed ? parent : subid));
	}
	MemoryContextSwitchTo(old);
	list_free(pending_untrack);
	list_free(pending_untrack_subxact);
	pending_untrack = relids;
	pending_untrack_subxact = subids;
}

/*
 * forget_untrack_on_subabort - a subtransaction's pending untracks go with
 * it when it aborts (ROLLBACK TO SAVEPOINT of a drop_dynamic_table: its
 * catalog rows come back, so must its capture) and pass to its parent when
 * it commits.
 */
static void
forget_untrack_on_subabort(SubXactEvent event, SubTransactionId mySubid,
						   SubTransactionId parentSubid, void *arg)
{
	if (pending_untrack == NIL)
		return;
	if (event == SUBXACT_EVENT_ABORT_SUB)
		filter_pending_untrack(InvalidOid, mySubid, InvalidSubTransactionId, InvalidSubTransactionId);
	else if (event == SUBXACT_EVENT_COMMIT_SUB)
		filter_pending_untrack(InvalidOid, InvalidSubTransactionId, mySubid, parentSubid);
}

/* drop relid's pending untracks (it is tracked again in this transaction) */
static void
cancel_pending_untrack(Oid relid)
{
	if (list_member_oid(pending_untrack, relid))
		filter_pending_untrack(relid, InvalidSubTransactionId, InvalidSubTransactionId,
							   InvalidSubTransactionId);
}

static void
register_xact_callback(void)
{
	if (!xact_callback_registered)
	{
		RegisterXactCallback(forget_pending_on_abort, NULL);
		RegisterSubXactCallback(forget_untrack_on_subabort, NULL);
		xact_callback_registered = true;
	}
}

/*
 * dv_shmem_track_source - start capturing changes of relid (in the current
 * database).  Takes effect at once for the decoder; forgotten again if the
 * current transaction aborts.  No-op if it is already tracked.
 */
void
dv_shmem_track_source(Oid relid, bool in_transaction)
{
	require_shmem();
	/* (dropped and tracked again in one transaction: it stays tracked at commit) */
	cancel_pending_untrack(relid);
	LWLockAcquire(dv_shared->lock, LW_EXCLUSIVE);
	for (int i = 0; i < dv_shared->nsources; i++)
	{
		if (dv_shared->sources[i].dboid == MyDatabaseId && dv_shared->sources[i].relid == relid)
		{
			LWLockRelease(dv_shared->lock);
			return;
		}
	}
	if (dv_shared->nsources >= dv_max_sources)
	{
		LWLockRelease(dv_shared->lock);
		ereport(ERROR,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("too many source tables are tracked"),
				 errhint("Raise dynview.max_sources (needs a restart).")));
	}
	dv_shared->sources[dv_shared->nsources].dboid = MyDatabaseId;
	dv_shared->sources[dv_shared->nsources].relid = relid;
	dv_shared->sources[dv_shared->nsources].creating_xid =
		in_transaction ? GetTopTransactionId() : InvalidTransactionId;
	dv_shared->nsources++;
	dv_shared->tracking_generation++;
	LWLockRelease(dv_shared->lock);

	if (in_transaction)
	{
		MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

		pending_sources = lappend_oid(pending_sources, relid);
		MemoryContextSwitchTo(old);
		register_xact_callback();
	}
}

/*
 * dv_shmem_tracking_generation - a number that changes whenever a source
 * starts to be tracked (in any database): the decoder's record filter
 * (recordfilter.c) forgets which relations it found untracked when it does.
 */
uint64
dv_shmem_tracking_generation(void)
{
	uint64		generation;

	require_shmem();
	LWLockAcquire(dv_shared->lock, LW_SHARED);
	generation = dv_shared->tracking_generation;
	LWLockRelease(dv_shared->lock);
	return generation;
}

/*
 * dv_shmem_untrack_source - stop capturing relid of the current database
 * when the current transaction commits (not if the subtransaction that asks
 * rolls back, nor if relid is tracked again before the commit).
 */
void
dv_shmem_untrack_source(Oid relid)
{
	MemoryContext old;

	if (dv_shared == NULL)
		return;
	old = MemoryContextSwitchTo(TopMemoryContext);
	pending_untrack = lappend_oid(pending_untrack, relid);
	pending_untrack_subxact = lappend_int(pending_untrack_subxact, (int) GetCurrentSubTransactionId());
	MemoryContextSwitchTo(old);
	register_xact_callback();
}

/*
 * dv_shmem_database_registered - does dboid still have the extension (as
 * far as shared memory knows)?
 */
bool
dv_shmem_database_registered(Oid dboid)
{
	bool		found;

	LWLockAcquire(dv_shared->lock, LW_SHARED);
	found = find_database(dboid) != NULL;
	LWLockRelease(dv_shared->lock);
	return found;
}

/*
 * dv_shmem_source_tracked - is relid of dboid tracked?  *creating_xid gets
 * the transaction that started tracking it if that may still abort.
 */
bool
dv_shmem_source_tracked(Oid dboid, Oid relid, TransactionId *creating_xid)
{
	bool		found = false;

	LWLockAcquire(dv_shared->lock, LW_SHARED);
	for (int i = 0; i < dv_shared->nsources; i++)
	{
		if (dv_shared->sources[i].dboid == dboid && dv_shared->sources[i].relid == relid)
		{
			found = true;
			if (creating_xid)
				*creating_xid = dv_shared->sources[i].creating_xid;
			break;
		}
	}
	LWLockRelease(dv_shared->lock);
	return found;
}
