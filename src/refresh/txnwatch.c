/*-------------------------------------------------------------------------
 *
 * txnwatch.c
 *	  Writes to sources made after a refresh in the same transaction.
 *
 * A refresh records its transaction's xid as visible in the table's data:
 * the next refresh skips the buffer rows of that transaction, which the
 * refresh saw.  Rows the same transaction writes *after* the refresh carry
 * the same xid and would be skipped too.  So each backend keeps, for its
 * current transaction, when (a sequence number) each dynamic table was
 * refreshed and when each relation was written (DML, TRUNCATE, or rows a
 * refresh of an upstream dynamic table wrote to its buffer); at pre-commit, a table one of whose sources
 * was written after its last refresh is marked for a FULL refresh
 * (SOURCE_CHANGED_AFTER_REFRESH).  Nothing is kept, and the cost is one list
 * test per DML statement, when the transaction refreshed nothing.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "dynview.h"

typedef struct WatchEvent
{
	Oid			relid;
	int			seq;
} WatchEvent;

static List *refreshed = NIL;	/* of WatchEvent *: last refresh of each table */
static List *written = NIL;		/* of WatchEvent *: last write of each relation */
static int	next_seq = 0;
static bool callback_registered = false;

static void
note(List **list, Oid relid)
{
	ListCell   *lc;
	MemoryContext old;
	WatchEvent *e;

	foreach(lc, *list)
	{
		e = lfirst(lc);
		if (e->relid == relid)
		{
			e->seq = ++next_seq;
			return;
		}
	}
	old = MemoryContextSwitchTo(TopMemoryContext);
	e = palloc(sizeof(WatchEvent));
	e->relid = relid;
	e->seq = ++next_seq;
	*list = lappend(*list, e);
	MemoryContextSwitchTo(old);
}

static void
forget(void)
{
	list_free_deep(refreshed);
	list_free_deep(written);
	refreshed = written = NIL;
	next_seq = 0;
}

/* at pre-commit: mark the tables whose sources were written after their refresh */
static void
watch_xact_callback(XactEvent event, void *arg)
{
	ListCell   *lr;
	ListCell   *lw;

	if (event != XACT_EVENT_PRE_COMMIT)
	{
		if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_ABORT ||
			event == XACT_EVENT_PARALLEL_COMMIT || event == XACT_EVENT_PARALLEL_ABORT ||
			event == XACT_EVENT_PREPARE)
			forget();
		return;
	}
	if (refreshed == NIL || written == NIL)
		return;
	SPI_connect();
	PushActiveSnapshot(GetTransactionSnapshot());
	foreach(lr, refreshed)
	{
		WatchEvent *r = lfirst(lr);

		foreach(lw, written)
		{
			WatchEvent *w = lfirst(lw);
			Oid			types[2] = {OIDOID, OIDOID};
			Datum		values[2];

			if (w->seq <= r->seq)
				continue;
			values[0] = ObjectIdGetDatum(r->relid);
			values[1] = ObjectIdGetDatum(w->relid);
			dv_catalog_exec("UPDATE dynview.dynamic_table_catalog c SET next_refresh_full = 'SOURCE_CHANGED_AFTER_REFRESH' "
							"WHERE c.relid = $1::regclass AND EXISTS (SELECT 1 FROM dynview.source_catalog s "
							"  WHERE s.relid = c.relid AND s.source_relid = $2)",
							2, types, values, NULL, -1);
		}
	}
	PopActiveSnapshot();
	SPI_finish();
}

static void
ensure_callback(void)
{
	if (!callback_registered)
	{
		RegisterXactCallback(watch_xact_callback, NULL);
		callback_registered = true;
	}
}

/*
 * a refresh of relid; what it writes for its downstreams counts as a write
 * of relid only when rows reach its buffer (dv_write_own_buffer), so a
 * NO_DATA refresh of an upstream after its downstream changes nothing
 */
void
dv_watch_refreshed(Oid relid)
{
	ensure_callback();
	note(&refreshed, relid);
}

/* a write to relid by the user (DML, TRUNCATE); cheap when nothing was refreshed */
void
dv_watch_written(Oid relid)
{
	if (refreshed == NIL)
		return;
	note(&written, relid);
}
