/*-------------------------------------------------------------------------
 *
 * capture.c
 *	  SQL-callable functions of change capture, and the DROP DATABASE
 *	  handling that takes a database's decoder and slot away first.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "access/xlog.h"
#include "commands/dbcommands.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "replication/message.h"
#include "replication/slot.h"
#include "utils/builtins.h"
#include "utils/pg_lsn.h"
#include "utils/timestamp.h"

#include "dynview.h"
#include "cdc/cdc.h"

PG_FUNCTION_INFO_V1(dynview_register_database);
PG_FUNCTION_INFO_V1(dynview_wait_for_capture);
PG_FUNCTION_INFO_V1(dynview_decoded_lsn);

/*
 * dynview._register_database() - called at the end of CREATE EXTENSION:
 * starts the database's decoder through the launcher.
 */
Datum
dynview_register_database(PG_FUNCTION_ARGS)
{
	if (!dv_shmem_available())
	{
		ereport(WARNING,
				(errmsg("dynview is not loaded via shared_preload_libraries"),
				 errhint("Add dynview to shared_preload_libraries in postgresql.conf and restart the server; until then dynamic tables cannot be created.")));
		PG_RETURN_VOID();
	}
	dv_shmem_register_database(MyDatabaseId, GetTopTransactionId());
	PG_RETURN_VOID();
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
	XLogFlush(lsn);
	return dv_shmem_wait_decoded(lsn, timeout_ms);
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
 * current database (NULL if its decoder has not started).
 */
Datum
dynview_decoded_lsn(PG_FUNCTION_ARGS)
{
	XLogRecPtr	lsn = dv_shmem_decoded_lsn(MyDatabaseId);

	if (lsn == InvalidXLogRecPtr)
		PG_RETURN_NULL();
	PG_RETURN_LSN(lsn);
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
