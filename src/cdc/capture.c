/*-------------------------------------------------------------------------
 *
 * capture.c
 *	  SQL-callable functions of change capture, the DROP DATABASE
 *	  handling that takes a database's decoder and slot away first, and the
 *	  report of why capture cannot run (dv_capture_check).
 *
 * When the decoder cannot run (the server does not let dynview be an
 * output plugin, no replication slot is free, no background worker slot is
 * free), the decoder or the launcher records why in shared memory (state
 * FAILED or NO_WORKER, with the error).  Whoever needs capture then fails
 * at once with that cause and its fix instead of waiting: CREATE EXTENSION
 * warns, create_dynamic_table and refreshes raise an error, cdc_status
 * shows the state.  A failure recorded before the current statement began
 * is first retried (the launcher starts the decoder at once), so that a
 * setting fixed since is seen.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "commands/dbcommands.h"
#include "commands/extension.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "replication/message.h"
#include "replication/slot.h"
#include "storage/lwlock.h"
#include "storage/procarray.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/pg_lsn.h"
#include "utils/timestamp.h"
#include "utils/varlena.h"

#include "dynview.h"
#include "cdc/cdc.h"

PG_FUNCTION_INFO_V1(dynview_register_database);
PG_FUNCTION_INFO_V1(dynview_wait_for_capture);
PG_FUNCTION_INFO_V1(dynview_decoded_lsn);
PG_FUNCTION_INFO_V1(dynview_capture_status);

/* how long a waiter gives a requested retry of the decoder to succeed or fail */
#define RETRY_WAIT_MS		1500

/*
 * dv_capture_state_name - the state as cdc_status shows it.
 */
const char *
dv_capture_state_name(DvCaptureState state)
{
	switch (state)
	{
		case DV_CAPTURE_NOT_STARTED:
			return "NOT_STARTED";
		case DV_CAPTURE_STARTING:
			return "STARTING";
		case DV_CAPTURE_RUNNING:
			return "RUNNING";
		case DV_CAPTURE_RESTARTING:
			return "RESTARTING";
		case DV_CAPTURE_FAILED:
			return "FAILED";
		case DV_CAPTURE_NO_WORKER:
			return "NO_WORKER";
	}
	return "UNKNOWN";
}

/*
 * dv_capture_plugin_setting_problem - if this server has the setting
 * output_plugin_libraries (some builds restrict which libraries may be
 * output plugins) and it does not name dynview, the setting's value
 * (palloc'd); else NULL.  Stock PostgreSQL has no such setting.
 */
const char *
dv_capture_plugin_setting_problem(void)
{
	const char *value = GetConfigOption("output_plugin_libraries", true, false);
	char	   *copy;
	List	   *names;
	ListCell   *lc;

	if (value == NULL)
		return NULL;
	copy = pstrdup(value);
	if (!SplitDirectoriesString(copy, ',', &names))
		return pstrdup(value);	/* the server rejects it as well */
	foreach(lc, names)
	{
		const char *name = lfirst(lc);
		const char *base = strrchr(name, '/');

		base = base ? base + 1 : name;
		if (strcmp(base, "dynview") == 0 || strcmp(base, "dynview.so") == 0 ||
			strcmp(name, "$libdir/dynview") == 0)
			return NULL;
	}
	return pstrdup(value);
}

/* raise the error that says why capture cannot run (state FAILED or NO_WORKER) */
static void
report_capture_failure(DvCaptureStatus *st)
{
	const char *db = get_database_name(MyDatabaseId);

	if (st->state == DV_CAPTURE_NO_WORKER)
		ereport(ERROR,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("change capture cannot run in database \"%s\"", db),
				 errdetail("No background worker slot was free to start the dynview decoder (max_worker_processes is %d).",
						   max_worker_processes),
				 errhint("%s", st->hint)));
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("change capture cannot run in database \"%s\"", db),
			 st->detail[0] ?
			 errdetail("The dynview decoder could not start: %s (%s)", st->error, st->detail) :
			 errdetail("The dynview decoder could not start: %s", st->error),
			 st->hint[0] ? errhint("%s", st->hint) :
			 errhint("See the server log of the \"dynview decoder\" background worker.")));
}

/*
 * dv_capture_unavailable - is the decoder of the current database unable to
 * run now (its last start failed, or no worker slot was free)?  A scheduled
 * refresh that failed then is retried rather than counted as a failure.
 */
bool
dv_capture_unavailable(void)
{
	DvCaptureStatus st;

	return dv_shmem_capture_status(MyDatabaseId, &st) &&
		(st.state == DV_CAPTURE_FAILED || st.state == DV_CAPTURE_NO_WORKER);
}

/*
 * dv_capture_check - raise an error naming the cause and its fix if the
 * decoder of the current database cannot run (its last start failed, or no
 * worker slot was free); return if it runs, starts, or is not known yet.
 * A failure recorded before the current statement began is retried first:
 * the launcher is asked to start the decoder now, and the outcome of that
 * attempt is awaited (at most RETRY_WAIT_MS).  Needs a transaction (for
 * the database name in the message).
 */
void
dv_capture_check(void)
{
	DvCaptureStatus st;

	if (!dv_shmem_capture_status(MyDatabaseId, &st))
		return;
	if (st.state != DV_CAPTURE_FAILED && st.state != DV_CAPTURE_NO_WORKER)
		return;
	if (st.launcher_running && st.error_time < GetCurrentStatementStartTimestamp())
	{
		TimestampTz start = GetCurrentTimestamp();
		uint32		attempts = st.attempts;
		TimestampTz error_time = st.error_time;

		dv_shmem_request_capture_retry();
		for (;;)
		{
			CHECK_FOR_INTERRUPTS();
			dv_shmem_capture_sleep(50);
			(void) dv_shmem_capture_status(MyDatabaseId, &st);
			/* a new attempt that got past its start, or failed again */
			if (st.state == DV_CAPTURE_RUNNING ||
				(st.state == DV_CAPTURE_STARTING && st.attempts != attempts &&
				 TimestampDifferenceExceeds(start, GetCurrentTimestamp(), RETRY_WAIT_MS)) ||
				((st.state == DV_CAPTURE_FAILED || st.state == DV_CAPTURE_NO_WORKER) &&
				 st.error_time != error_time))
				break;
			if (TimestampDifferenceExceeds(start, GetCurrentTimestamp(), RETRY_WAIT_MS))
				break;
		}
		if (st.state != DV_CAPTURE_FAILED && st.state != DV_CAPTURE_NO_WORKER)
			return;
	}
	report_capture_failure(&st);
}

/*
 * dynview._register_database() - called at the end of CREATE EXTENSION:
 * starts the database's decoder through the launcher.
 */
Datum
dynview_register_database(PG_FUNCTION_ARGS)
{
	const char *setting;
	char	   *slot;
	DvCaptureStatus st;
	TimestampTz start;

	if (!dv_shmem_available())
	{
		ereport(WARNING,
				(errmsg("dynview is not loaded via shared_preload_libraries"),
				 errhint("Add dynview to shared_preload_libraries in postgresql.conf and restart the server; until then dynamic tables cannot be created.")));
		PG_RETURN_VOID();
	}
	dv_shmem_register_database(MyDatabaseId, GetTopTransactionId());

	/* what would keep the decoder from running: say so now */
	setting = dv_capture_plugin_setting_problem();
	if (setting)
		ereport(WARNING,
				(errmsg("dynview cannot capture changes: this server does not let dynview be a logical decoding output plugin"),
				 errdetail("output_plugin_libraries is '%s'.", setting),
				 errhint("Add dynview to output_plugin_libraries (for example '%s%sdynview') and restart the server.",
						 setting, setting[0] ? ", " : "")));
	slot = dv_slot_name(MyDatabaseId);
	if (SearchNamedReplicationSlot(slot, true) == NULL)
	{
		int			used = 0;

		LWLockAcquire(ReplicationSlotControlLock, LW_SHARED);
		for (int i = 0; i < max_replication_slots; i++)
			used += ReplicationSlotCtl->replication_slots[i].in_use ? 1 : 0;
		LWLockRelease(ReplicationSlotControlLock);
		if (used >= max_replication_slots)
			ereport(WARNING,
					(errmsg("dynview cannot capture changes: no replication slot is free"),
					 errdetail("All %d replication slots (max_replication_slots) are in use; dynview needs one per database.",
							   max_replication_slots),
					 errhint("Drop an unused slot with pg_drop_replication_slot(), or raise max_replication_slots and restart the server.")));
	}
	if (!dv_shmem_launcher_running())
	{
		ereport(WARNING,
				(errmsg("dynview cannot capture changes: its launcher is not running"),
				 errhint("Check the server log; max_worker_processes (now %d) must leave room for the dynview launcher and two workers per database.",
						 max_worker_processes)));
		PG_RETURN_VOID();
	}

	/* the launcher starts the decoder at once (it waits for this transaction): did it get a slot? */
	start = GetCurrentTimestamp();
	while (dv_shmem_capture_status(MyDatabaseId, &st) && st.state == DV_CAPTURE_NOT_STARTED &&
		   !TimestampDifferenceExceeds(start, GetCurrentTimestamp(), 1000))
	{
		CHECK_FOR_INTERRUPTS();
		dv_shmem_capture_sleep(10);
	}
	if (st.state == DV_CAPTURE_NO_WORKER)
		ereport(WARNING,
				(errmsg("dynview cannot capture changes: no background worker slot is free for its decoder"),
				 errdetail("max_worker_processes is %d.", max_worker_processes),
				 errhint("%s", st.hint)));
	PG_RETURN_VOID();
}

/*
 * dv_capture_installation - the installation of the extension in the
 * current database (its pg_extension OID; an error if it has none), that a
 * published decoded position must belong to (dv_shmem_decoded_lsn): after
 * DROP EXTENSION and CREATE EXTENSION the dropped installation's decoder
 * may still publish for a while, and its position does not count for the
 * new one.  A catalog read (pg_extension by its name index).
 */
Oid
dv_capture_installation(void)
{
	return get_extension_oid("dynview", false);
}

/*
 * dv_capture_sync - flush WAL up to the current insert position and wait
 * until the decoder has committed every change of every transaction that
 * committed before the call.  Returns false on timeout.
 */
bool
dv_capture_sync(long timeout_ms)
{
	return dv_capture_wait(dv_capture_position(), timeout_ms);
}

/*
 * dv_capture_wait - flush WAL up to lsn (a dv_capture_position) and wait
 * until the decoder has committed every change of every transaction that
 * committed before it.  Returns false on timeout, or at once when the
 * decoder waits for the current transaction.
 */
bool
dv_capture_wait(XLogRecPtr lsn, long timeout_ms)
{
	DvWaitResult r;
	/* a position counts only if this installation's decoder published it */
	Oid			extension = dv_capture_installation();

	dv_capture_check();
	XLogFlush(lsn);
	r = dv_shmem_wait_decoded(lsn, extension, timeout_ms);
	if (r == DV_WAIT_CAPTURE_FAILED)
	{
		/* it failed while we waited: report why (or go on waiting if a retry runs) */
		dv_capture_check();
		r = dv_shmem_wait_decoded(lsn, extension, timeout_ms);
		if (r == DV_WAIT_CAPTURE_FAILED)
			dv_capture_check();
	}
	return r == DV_WAIT_DONE;
}

/*
 * dv_capture_position - a WAL position after every commit that has
 * happened so far.  The raw insert position may point past a page header
 * that no record follows yet (it cannot be flushed then), so a tiny
 * non-transactional logical message is written and its end is returned.
 */
XLogRecPtr
dv_capture_position(void)
{
	return LogLogicalMessage("dynview", "", 0, false);
}

/*
 * dynview.wait_for_capture(timeout interval) - dv_capture_sync for SQL.
 */
Datum
dynview_wait_for_capture(PG_FUNCTION_ARGS)
{
	Interval   *timeout = PG_GETARG_INTERVAL_P(0);
	long		ms;

	ms = (long) ((timeout->time + (int64) timeout->day * USECS_PER_DAY +
				  (int64) timeout->month * 30 * USECS_PER_DAY) / 1000);
	if (ms < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("timeout must not be negative"),
				 errhint("Pass an interval such as '10 seconds'.")));
	if (!dv_shmem_available())
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("dynview must be loaded via shared_preload_libraries"),
				 errhint("Add dynview to shared_preload_libraries in postgresql.conf and restart the server.")));
	PG_RETURN_BOOL(dv_capture_sync(ms));
}

/*
 * dynview._decoded_lsn() - the published decoded-up-to position of the
 * current database (NULL if the decoder of this installation of the
 * extension has not started).
 */
Datum
dynview_decoded_lsn(PG_FUNCTION_ARGS)
{
	XLogRecPtr	lsn = dv_shmem_decoded_lsn(MyDatabaseId, dv_capture_installation());

	if (lsn == InvalidXLogRecPtr)
		PG_RETURN_NULL();
	PG_RETURN_LSN(lsn);
}

/*
 * dynview._capture_status() - the decoder's state in the current database:
 * state text, decoder pid (NULL if none), the last failure and when it
 * happened (NULL if none).  Used by the view cdc_status.
 */
Datum
dynview_capture_status(PG_FUNCTION_ARGS)
{
	TupleDesc	desc;
	Datum		values[4];
	bool		nulls[4] = {false, false, false, false};
	DvCaptureStatus st;
	bool		known = dv_shmem_capture_status(MyDatabaseId, &st);

	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	if (!dv_shmem_available())
		values[0] = CStringGetTextDatum("NOT_LOADED");
	else if (!known)
		values[0] = CStringGetTextDatum("NOT_REGISTERED");
	else if (!st.launcher_running && st.state != DV_CAPTURE_RUNNING)
		values[0] = CStringGetTextDatum("NO_LAUNCHER");
	else if ((st.state == DV_CAPTURE_STARTING || st.state == DV_CAPTURE_RUNNING) &&
			 st.decoder_pid != 0 && BackendPidGetProc(st.decoder_pid) == NULL)
	{
		/*
		 * The decoder noted its pid once connected (dv_shmem_capture_started)
		 * and is gone (terminated, or died) before its launcher saw it: not
		 * RUNNING, but restarted by the launcher, as after a failure.
		 */
		values[0] = CStringGetTextDatum(dv_capture_state_name(DV_CAPTURE_RESTARTING));
		st.decoder_pid = 0;
	}
	else
		values[0] = CStringGetTextDatum(dv_capture_state_name(st.state));
	if (known && st.decoder_pid != 0)
		values[1] = Int32GetDatum((int32) st.decoder_pid);
	else
		nulls[1] = true;
	if (known && st.error_time != 0)
	{
		char	   *msg = st.detail[0] ? psprintf("%s (%s)", st.error, st.detail) : pstrdup(st.error);

		if (st.hint[0])
			msg = psprintf("%s HINT: %s", msg, st.hint);
		values[2] = CStringGetTextDatum(msg);
		values[3] = TimestampTzGetDatum(st.error_time);
	}
	else
		nulls[2] = nulls[3] = true;
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(desc, values, nulls)));
}

/*
 * dv_capture_before_dropdb - DROP DATABASE fails while a logical slot of
 * the database exists or a worker is connected to it: stop its decoder, and
 * drop the slot.  Returns true if the database had the extension (the
 * caller re-registers it if the drop fails).
 */
bool
dv_capture_before_dropdb(const char *dbname)
{
	Oid			dboid = get_database_oid(dbname, true);
	char	   *slot;
	TimestampTz start;

	if (!OidIsValid(dboid) || !dv_shmem_available())
		return false;
	slot = dv_slot_name(dboid);
	if (!dv_shmem_database_registered(dboid) && SearchNamedReplicationSlot(slot, true) == NULL)
		return false;

	dv_shmem_unregister_database(dboid);	/* wakes its workers, which leave */
	dv_shmem_wake_decoder(dboid);
	start = GetCurrentTimestamp();
	while (SearchNamedReplicationSlot(slot, true) != NULL)
	{
		ReplicationSlot *s = SearchNamedReplicationSlot(slot, true);

		/* nobody holds it: drop it ourselves */
		if (s != NULL && s->active_pid == 0)
		{
			ReplicationSlotDrop(slot, true);
			break;
		}
		if (TimestampDifferenceExceeds(start, GetCurrentTimestamp(), 30 * 1000))
			break;				/* let DROP DATABASE report what still holds it */
		CHECK_FOR_INTERRUPTS();
		pg_usleep(10 * 1000L);
	}
	return true;
}
