/*-------------------------------------------------------------------------
 *
 * decoder.c
 *	  The decoder worker: one per database with the extension.  It owns the
 *	  logical slot dynview_<database oid> (plugin dynview), decodes WAL in
 *	  its own process (decoding context + local WAL reader, no walsender),
 *	  and writes the changes of tracked sources into their change buffers.
 *
 * Exactly once, whatever crashes:
 *	- A batch of buffer rows and the decoded-up-to position P (table
 *	  dynview.decoder_state) commit in one transaction.
 *	- Only then is the slot's confirmed position moved (to at most P).
 *	- After a restart decoding resumes at the slot's position, which is at
 *	  or before P; transactions whose commit record ends at or before P are
 *	  skipped by the plugin, so nothing is written twice and nothing lost.
 *
 * Row changes of tables that no dynamic table captures, and dynview's own
 * writes, are skipped before PostgreSQL decodes them (recordfilter.c).
 *
 * A transaction larger than logical_decoding_work_mem is streamed into the
 * buffers while it runs (plugin.c), so that the reorder buffer never spills
 * it to disk; the batch that processes its end also records that it ended
 * (decoder_state.streaming_xids) or, for an abort, deletes its rows.  After
 * a restart the rows of the transactions still recorded there are deleted
 * before decoding resumes (forget_streams), and streaming starts only past
 * P, so a transaction already written is never streamed again.
 *
 * P is published in shared memory (dv_shmem_publish_decoded) with a
 * condition variable that refreshes wait on (design section 5, step 3).
 * The worker reads WAL only up to the flush position it saw (a record that
 * starts below it is complete or being flushed), and sleeps on its latch
 * when it has read all flushed WAL; a refresh sets the latch after flushing
 * WAL.  (read_local_xlog_page_no_wait cannot be used: it writes its flag
 * into the reader's private data, which is the decoding context.)
 *
 * When the extension is dropped, the worker drops its slot and exits; the
 * launcher then does not restart it.  When it was dropped and created again
 * between two checks, the worker leaves too (it serves one installation,
 * served_extension), and the launcher starts a decoder for the new one.
 * Until it leaves, it writes no change of the new installation's sources
 * (a batch that finds the extension replaced makes it leave at once), and
 * the position it publishes is tagged with its installation: backends of
 * the new one ignore it (dv_shmem_decoded_lsn) and wait for their decoder.
 *
 * The worker records where it is in shared memory (dv_shmem_capture_started,
 * dv_shmem_set_capture_state): STARTING until it decodes, then RUNNING.  An
 * error before that (the server refuses dynview as an output plugin, no
 * replication slot is free, ...) is recorded as FAILED with its message,
 * detail and a hint naming the fix, so that create_dynamic_table and
 * refreshes fail at once with the real cause (capture.c); an error later is
 * recorded as RESTARTING (the launcher restarts the worker).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/relation.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/transam.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "access/xlogreader.h"
#include "access/xlogutils.h"
#include "catalog/namespace.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "commands/tablecmds.h"
#include "commands/vacuum.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "replication/decode.h"
#include "replication/logical.h"
#include "replication/slot.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lmgr.h"
#include "storage/proc.h"
#include "storage/procarray.h"
#include "tcop/tcopprot.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/pg_lsn.h"
#include "utils/snapmgr.h"
#include "utils/xid8.h"

#include "dynview.h"
#include "cdc/cdc.h"

PGDLLEXPORT void dynview_decoder_main(Datum main_arg);

/* a batch is written when its changes take this much memory */
#define BATCH_BYTES		(64 * 1024 * 1024)
/* ... or after this many WAL records */
#define BATCH_RECORDS	100000
/* how often the worker prunes the change buffers */
#define PRUNE_INTERVAL_MS	1000

/*
 * a pruned buffer left without a row is truncated (shrink_emptied_buffers)
 * when it spans at least this many pages: below that, scanning its empty
 * pages costs less than the plans a truncation makes every backend redo
 */
#define SHRINK_MIN_BLOCKS	128

/*
 * a pruned buffer is vacuumed (vacuum_pruned_buffers) when it spans at
 * least this many pages, at most once per VACUUM_INTERVAL_MS
 */
#define VACUUM_MIN_BLOCKS	32
#define VACUUM_INTERVAL_MS	5000
/* how often the worker checks that the extension still exists */
#define EXTENSION_CHECK_MS	1000

/*
 * dv_slot_name - the slot of a database, palloc'd.
 */
char *
dv_slot_name(Oid dboid)
{
	return psprintf("dynview_%u", dboid);
}

/*
 * dv_decoder_start - start the decoder worker of dboid (launcher).
 */
void
dv_decoder_start(Oid dboid, BackgroundWorkerHandle **handle)
{
	dv_start_database_worker(dboid, "dynview_decoder_main", "dynview decoder", handle);
}

/*
 * The installation of the extension this worker serves (its pg_extension
 * OID), set once at start.  A DROP EXTENSION and a CREATE EXTENSION between
 * two checks replace it: the worker then leaves as if the extension had only
 * been dropped, and the launcher starts a decoder for the new installation
 * (with a slot of its own, which waits for running writers as the first slot
 * of any installation does).
 */
static Oid	served_extension = InvalidOid;

/* the OID of the extension installed in this database, or InvalidOid (own transaction) */
static Oid
installed_extension(void)
{
	Oid			extoid = InvalidOid;

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	if (dv_extension_present())
		extoid = get_extension_oid("dynview", true);
	CommitTransactionCommand();
	return extoid;
}

/*
 * lock_extension - in the current transaction, before it locks anything of
 * the extension: take a share lock on the extension itself, which DROP
 * EXTENSION locks exclusively before any of its tables (in an order that
 * follows pg_depend, not creation).  A transaction that then locks the
 * extension's tables in any order cannot deadlock with DROP EXTENSION: one
 * of the two waits before holding anything the other needs.  Returns false
 * if the extension this worker serves is gone (dropped while we waited, or
 * replaced by a new installation): nothing to do.
 */
static bool
lock_extension(void)
{
	if (get_extension_oid("dynview", true) != served_extension)
		return false;
	LockDatabaseObject(ExtensionRelationId, served_extension, 0, AccessShareLock);
	return get_extension_oid("dynview", true) == served_extension;
}

/*
 * ensure_slot - create the database's slot if it does not exist; waits for
 * a consistent decoding start point.  Returns true if it created it.
 */
static bool
ensure_slot(const char *name)
{
	LogicalDecodingContext *ctx;

	if (SearchNamedReplicationSlot(name, true) != NULL)
		return false;
	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	CheckLogicalDecodingRequirements();
	ReplicationSlotCreate(name, true, RS_EPHEMERAL, false);
	ctx = CreateInitDecodingContext("dynview", NIL, false, InvalidXLogRecPtr,
									XL_ROUTINE(.page_read = read_local_xlog_page,
											   .segment_open = wal_segment_open,
											   .segment_close = wal_segment_close),
									NULL, NULL, NULL);
	DecodingContextFindStartpoint(ctx);
	FreeDecodingContext(ctx);
	ReplicationSlotPersist();
	ReplicationSlotRelease();
	CommitTransactionCommand();
	ereport(LOG, (errmsg("dynview: created logical replication slot \"%s\"", name)));
	return true;
}

/*
 * forget_streams - delete the rows of the transactions that a previous run
 * streamed into the buffers and whose end it did not process
 * (dynview.decoder_state.streaming_xids).  This run decodes them again from
 * their start: rows of one that committed are written anew, rows of one that
 * aborted (or was cut off by a crash) must not stay.  Inside load_state's
 * transaction, with decoder_state locked; buffers in OID order.
 */
static void
forget_streams(void)
{
	List	   *buffers = NIL;
	ListCell   *lc;

	if (SPI_execute("SELECT buffer_relid FROM dynview.source_tracking WHERE captured ORDER BY buffer_relid",
					false, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read dynview.source_tracking");
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		bool		isnull;

		buffers = lappend_oid(buffers, DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i],
																	  SPI_tuptable->tupdesc, 1, &isnull)));
	}
	foreach(lc, buffers)
	{
		char	   *name = get_rel_name(lfirst_oid(lc));

		if (name == NULL)
			continue;
		if (SPI_execute(psprintf("DELETE FROM %s.%s WHERE dv_xid OPERATOR(pg_catalog.=) ANY "
								 "((SELECT streaming_xids FROM dynview.decoder_state)::pg_catalog.xid8[])",
								 DV_BUFFER_SCHEMA, quote_identifier(name)), false, 0) != SPI_OK_DELETE)
			elog(ERROR, "could not delete streamed rows from change buffer %s", name);
		if (SPI_processed > 0)
			ereport(LOG,
					(errmsg("dynview: deleted " UINT64_FORMAT " rows of unfinished streamed transactions from change buffer %s",
							SPI_processed, name)));
	}
	if (SPI_execute("UPDATE dynview.decoder_state SET streaming_xids = '{}'", false, 0) != SPI_OK_UPDATE)
		elog(ERROR, "could not update dynview.decoder_state");
}

/*
 * update_catalog_not_own - run sql, an UPDATE of
 * dynview.dynamic_table_catalog with nargs parameters of types argtypes and
 * values values (none: NULLs), through SPI (connected), with the
 * worker's own-writes mark lifted for it (dv_cdc_writes_not_own_begin):
 * the rest of this worker's writes are dynview's own and never decoded, but
 * a DBA may give the catalog triggers, and what they write must be decoded.
 * The mark is restored on error too.  Fails (elog: it cannot fail but for a
 * bug) unless the statement is an UPDATE.  Needs a transaction and a
 * snapshot; takes the locks the UPDATE takes, to the transaction's end.
 */
static void
update_catalog_not_own(const char *sql, int nargs, Oid *argtypes, Datum *values)
{
	uint16		save_origin = dv_cdc_writes_not_own_begin();

	PG_TRY();
	{
		if (SPI_execute_with_args(sql, nargs, argtypes, values, NULL, false, 0) != SPI_OK_UPDATE)
			elog(ERROR, "could not mark dynamic tables for a full refresh");
	}
	PG_FINALLY();
	{
		dv_cdc_own_writes_end(save_origin);
	}
	PG_END_TRY();
}

/*
 * load_state - read the decoded-up-to position and register the tracked
 * sources in shared memory (after a restart shared memory is empty).
 */
static XLogRecPtr
load_state(Oid dboid, bool slot_created)
{
	XLogRecPtr	decoded = InvalidXLogRecPtr;

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	SPI_connect();
	PushActiveSnapshot(GetTransactionSnapshot());
	/* (FOR UPDATE: dynview.decoder_state before any buffer, as in write_batch) */
	if (SPI_execute("SELECT decoded_lsn, pg_catalog.cardinality(streaming_xids) > 0 "
					"FROM dynview.decoder_state FOR UPDATE", false, 1) == SPI_OK_SELECT &&
		SPI_processed == 1)
	{
		bool		isnull;
		Datum		d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);

		if (!isnull)
			decoded = DatumGetLSN(d);
		if (DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull)))
			forget_streams();
	}
	/*
	 * A new slot while sources were tracked (the slot was lost): changes
	 * between the old and the new slot are missing, so every dynamic table
	 * must be recomputed in full once.
	 */
	if (slot_created)
		update_catalog_not_own("UPDATE dynview.dynamic_table_catalog SET next_refresh_full = 'CAPTURE_RESTARTED' "
							   "WHERE EXISTS (SELECT 1 FROM dynview.source_tracking)",
							   0, NULL, NULL);
	if (SPI_execute("SELECT source_relid FROM dynview.source_tracking WHERE captured", false, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read dynview.source_tracking");
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		bool		isnull;

		dv_shmem_track_source(DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i],
															 SPI_tuptable->tupdesc, 1, &isnull)),
							  false);
	}
	PopActiveSnapshot();
	SPI_finish();
	CommitTransactionCommand();
	return decoded;
}

/* "dynview_buffer.changes_<relid>", or InvalidOid if it is not visible */
static Oid
lookup_buffer(Oid source_relid)
{
	Oid			nsp = get_namespace_oid(DV_BUFFER_SCHEMA, true);

	if (!OidIsValid(nsp))
		return InvalidOid;
	return get_relname_relid(psprintf("changes_%u", source_relid), nsp);
}

/*
 * resolve_buffer - the buffer OID of a source, waiting for the transaction
 * that created it if that has not ended yet.  InvalidOid if the source is no
 * longer tracked (its changes are dropped).  Takes no lock: called before
 * the batch locks any buffer, so that waiting cannot deadlock.
 */
static Oid
resolve_buffer(Oid dboid, Oid source_relid)
{
	Oid			buffer = lookup_buffer(source_relid);
	TransactionId creating_xid = InvalidTransactionId;

	if (!OidIsValid(buffer) &&
		dv_shmem_source_tracked(dboid, source_relid, &creating_xid) &&
		TransactionIdIsValid(creating_xid))
	{
		/* tracking began in a transaction still open: wait for its end */
		dv_shmem_set_decoder_waiting(dboid, creating_xid);
		XactLockTableWait(creating_xid, NULL, NULL, XLTW_None);
		dv_shmem_set_decoder_waiting(dboid, InvalidTransactionId);
		AcceptInvalidationMessages();
		InvalidateCatalogSnapshot();
		buffer = lookup_buffer(source_relid);
	}
	return buffer;
}

/* map buffer columns (after the meta columns) to attribute numbers of desc */
static int *
column_map(TupleDesc buffer_desc, TupleDesc source_desc)
{
	int		   *map = palloc(sizeof(int) * buffer_desc->natts);

	for (int i = 0; i < buffer_desc->natts; i++)
	{
		Form_pg_attribute batt = TupleDescAttr(buffer_desc, i);

		map[i] = -1;
		if (i < DV_BUFFER_META_COLS || batt->attisdropped)
			continue;
		for (int j = 0; j < source_desc->natts; j++)
		{
			Form_pg_attribute satt = TupleDescAttr(source_desc, j);

			if (!satt->attisdropped && namestrcmp(&satt->attname, NameStr(batt->attname)) == 0)
			{
				/* -2: the column's type changed (ALTER ... TYPE): the value cannot be kept */
				int32		typmod = satt->atttypmod;

				map[i] = dv_buffer_column_type(satt->atttypid, &typmod) == batt->atttypid ? j : -2;
				break;
			}
		}
	}
	return map;
}

static uint64
widen(TransactionId xid, FullTransactionId next)
{
	uint32		epoch = EpochFromFullTransactionId(next);

	if (xid > XidFromFullTransactionId(next))
		epoch--;
	return U64FromFullTransactionId(FullTransactionIdFromEpochAndXid(epoch, xid));
}

typedef struct BatchTarget
{
	Oid			buffer;
	Oid			source;
} BatchTarget;

static int
target_cmp(const void *a, const void *b)
{
	Oid			x = ((const BatchTarget *) a)->buffer;
	Oid			y = ((const BatchTarget *) b)->buffer;

	return (x > y) - (x < y);
}

/* write the batch's changes of one source into its (locked) buffer */
static void
write_source_changes(DvPluginState *state, Relation rel, Oid source, CommandId cid,
					 FullTransactionId next)
{
	TupleDesc	bdesc = RelationGetDescr(rel);
	BulkInsertState bistate;
	TupleDesc	cur_desc = NULL;
	int		   *map = NULL;
	Datum	   *svalues = NULL;
	bool	   *snulls = NULL;
	Datum	   *values = palloc(sizeof(Datum) * bdesc->natts);
	bool	   *nulls = palloc(sizeof(bool) * bdesc->natts);
	ListCell   *lc;

	/* (values are written by position) */
	dv_buffer_check_layout(rel);
	bistate = GetBulkInsertState();
	foreach(lc, state->changes)
	{
		DvChange   *c = lfirst(lc);
		HeapTuple	tup;

		if (c->relid != source)
			continue;
		if (c->desc != cur_desc)
		{
			map = column_map(bdesc, c->desc);
			cur_desc = c->desc;
			svalues = palloc(sizeof(Datum) * c->desc->natts);
			snulls = palloc(sizeof(bool) * c->desc->natts);
		}
		memset(nulls, 0, sizeof(bool) * bdesc->natts);
		values[0] = FullTransactionIdGetDatum(FullTransactionIdFromU64(widen(c->xid, next)));
		values[1] = LSNGetDatum(c->commit_lsn);
		values[2] = TimestampTzGetDatum(c->commit_time);
		nulls[2] = c->streamed;	/* (written before its commit) */
		values[3] = Int32GetDatum(c->seq);
		values[4] = Int16GetDatum(c->weight);
		values[5] = ObjectIdGetDatum(c->logged_relid);
		values[6] = CharGetDatum(c->marker);
		nulls[6] = c->marker == '\0';
		if (c->tuple)
			heap_deform_tuple(c->tuple, c->desc, svalues, snulls);
		for (int i = DV_BUFFER_META_COLS; i < bdesc->natts && c->tuple; i++)
		{
			/* a value of a retyped column cannot be buffered: a marker forces FULL */
			if (map[i] == -2)
			{
				values[4] = Int16GetDatum(0);
				values[6] = CharGetDatum(DV_MARKER_RETYPED);
				nulls[6] = false;
			}
		}
		for (int i = DV_BUFFER_META_COLS; i < bdesc->natts; i++)
		{
			if (c->tuple == NULL || map[i] < 0 || DatumGetInt16(values[4]) == 0)
				nulls[i] = true;
			else
			{
				values[i] = svalues[map[i]];
				nulls[i] = snulls[map[i]];
			}
		}
		tup = heap_form_tuple(bdesc, values, nulls);
		heap_insert(rel, tup, cid, 0, bistate);
		heap_freetuple(tup);
	}
	FreeBulkInsertState(bistate);
}

/* the open streams' xids as xid8[] text */
static char *
streaming_xids(DvPluginState *state, FullTransactionId next)
{
	StringInfoData buf;
	ListCell   *lc;

	initStringInfo(&buf);
	appendStringInfoChar(&buf, '{');
	foreach(lc, state->streams)
		appendStringInfo(&buf, "%s" UINT64_FORMAT, foreach_current_index(lc) > 0 ? "," : "",
						 widen(((DvStream *) lfirst(lc))->xid, next));
	appendStringInfoChar(&buf, '}');
	return buf.data;
}

/*
 * delete_aborted_rows - delete the rows that earlier batches wrote for
 * streamed transactions, or subtransactions, that aborted (plugin.c); their
 * buffers are locked (targets).  Inside write_batch's transaction and SPI
 * connection: the deletion commits with the position past the abort.
 */
static void
delete_aborted_rows(DvPluginState *state, BatchTarget *targets, int ntargets, FullTransactionId next)
{
	ListCell   *lc;

	foreach(lc, state->removals)
	{
		DvStreamRemoval *removal = lfirst(lc);
		Oid			types[2] = {TEXTOID, TEXTOID};
		Datum		args[2];

		args[0] = CStringGetTextDatum(psprintf(UINT64_FORMAT, widen(removal->xid, next)));
		args[1] = removal->seq_ranges ? CStringGetTextDatum(removal->seq_ranges) : (Datum) 0;
		for (int i = 0; i < ntargets; i++)
		{
			char	   *name;

			if (!list_member_oid(removal->sources, targets[i].source) ||
				(name = get_rel_name(targets[i].buffer)) == NULL)
				continue;
			if (SPI_execute_with_args(psprintf("DELETE FROM %s.%s WHERE dv_xid OPERATOR(pg_catalog.=) $1::pg_catalog.xid8%s",
											   DV_BUFFER_SCHEMA, quote_identifier(name),
											   removal->seq_ranges ? " AND dv_seq OPERATOR(pg_catalog.<@) $2::pg_catalog.int4multirange" : ""),
									  removal->seq_ranges ? 2 : 1, types, args, NULL, false, 0) != SPI_OK_DELETE)
				elog(ERROR, "could not delete rows of an aborted transaction from change buffer %s", name);
		}
	}
}

/*
 * write_batch - write the kept changes into their buffers, delete the rows
 * of streamed transactions that aborted, and record `upto` as decoded and
 * the transactions streamed and not ended yet, in one transaction.
 *
 * Buffers are resolved first (waiting, if need be, for a transaction that
 * creates one) and then locked in OID order, the order in which a dropping
 * transaction locks them too, so the two cannot deadlock.
 *
 * Returns false, having written nothing, if the installation of the
 * extension this worker serves is gone (dropped, or replaced by a new one).
 */
static bool
write_batch(Oid dboid, DvPluginState *state, XLogRecPtr upto)
{
	ListCell   *lc;
	CommandId	cid;
	FullTransactionId next = ReadNextFullTransactionId();
	Oid			types[2] = {LSNOID, TEXTOID};
	Datum		args[2];
	List	   *sources = NIL;
	BatchTarget *targets;
	int			ntargets = 0;

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();

	/*
	 * The extension first, before dynview.source_tracking, the buffers and
	 * dynview.decoder_state: a batch that met DROP EXTENSION half-way would
	 * deadlock with it (lock_extension).  If the extension went meanwhile
	 * (or was replaced by a new installation), there is nothing to write to:
	 * return false, and the caller leaves without publishing `upto`, past
	 * changes it did not write.
	 */
	if (!lock_extension())
	{
		CommitTransactionCommand();
		return false;
	}
	PushActiveSnapshot(GetTransactionSnapshot());
	cid = GetCurrentCommandId(true);
	pgstat_report_activity(STATE_RUNNING, "writing change buffers");

	foreach(lc, state->changes)
		sources = list_append_unique_oid(sources, ((DvChange *) lfirst(lc))->relid);
	foreach(lc, state->removals)
		sources = list_concat_unique_oid(sources, ((DvStreamRemoval *) lfirst(lc))->sources);
	targets = palloc(sizeof(BatchTarget) * list_length(sources));
	foreach(lc, sources)
	{
		Oid			buffer = resolve_buffer(dboid, lfirst_oid(lc));

		if (OidIsValid(buffer))
		{
			targets[ntargets].buffer = buffer;
			targets[ntargets++].source = lfirst_oid(lc);
		}
	}
	qsort(targets, ntargets, sizeof(BatchTarget), target_cmp);
	for (int i = 0; i < ntargets; i++)
	{
		Relation	rel = try_relation_open(targets[i].buffer, RowExclusiveLock);

		if (rel == NULL)
			continue;			/* dropped meanwhile: the source is no longer tracked */
		write_source_changes(state, rel, targets[i].source, cid, next);
		table_close(rel, NoLock);
	}

	SPI_connect();
	if (state->removals != NIL)
		delete_aborted_rows(state, targets, ntargets, next);
	args[0] = LSNGetDatum(upto);
	args[1] = CStringGetTextDatum(streaming_xids(state, next));
	if (SPI_execute_with_args("UPDATE dynview.decoder_state SET decoded_lsn = $1, updated_at = clock_timestamp(), "
							  "streaming_xids = $2::pg_catalog.xid8[]",
							  2, types, args, NULL, false, 0) != SPI_OK_UPDATE)
		elog(ERROR, "could not update dynview.decoder_state");
	SPI_finish();
	PopActiveSnapshot();
	CommitTransactionCommand();
	pgstat_report_activity(STATE_IDLE, NULL);
	return true;
}

/*
 * prune_buffers - delete buffer rows that no consumer needs any more, in
 * its own transaction (design section 4).
 *
 * A row may go when its transaction is visible in the data snapshot of every
 * dynamic table that reads the source and has one (or is that table's own
 * refreshing transaction), and precedes the oldest xmin of all running
 * transactions, so that a dynamic table being created right now, whose
 * snapshot is older than anything committed, never loses a row it needs.
 * Tables that will be refreshed in full anyway do not hold rows back.  A
 * table of any schedule or state ('manual' ones never refreshed, failing
 * or suspended ones) whose data is older than dynview.change_retention and
 * which holds back rows of a buffer is marked for a FULL refresh
 * (CHANGE_RETENTION_EXCEEDED) and stops holding them.  A table being
 * refreshed is left for the next pass: its refresh may read the very rows
 * and may be waiting for this worker, which therefore never waits for it
 * (a conditional lock on the table, SKIP LOCKED on its catalog row).
 */
/*
 * shrink_emptied_buffers - truncate the buffers that pruning left without a
 * row and that still span SHRINK_MIN_BLOCKS pages or more, each in a short
 * transaction of its own.
 *
 * Pruning deletes rows, and VACUUM makes their space reusable, but the
 * relation keeps the size it once grew to, and a window read or emptiness
 * check scans every page of it: the cost of a refresh followed the buffer's
 * history, not its window.  Emptied, the buffer gets a new, empty
 * relfilenode (ExecuteTruncateGuts, as TRUNCATE does, without the guard's
 * refusal of a user's TRUNCATE, and without a logical truncate record: it
 * is dynview's own write, and the rows it drops are deleted already).
 *
 * Never waits: only with AccessExclusiveLock taken conditionally, which no
 * transaction holding the buffer in any mode (a refresh that read it, the
 * decoder's writer, a refresh writing a dynamic table's buffer, DDL) lets
 * it have; such a buffer is left for a later pass.  Holding that lock, no
 * writer of the buffer is in progress, so a fresh snapshot sees every row
 * the buffer holds (rows of source transactions still running that the
 * decoder streamed in are committed rows of the decoder and count): if it
 * sees none, the truncation drops only deleted rows.  Those were pruned:
 * visible in the data snapshot of every table that reads the source and to
 * every snapshot running at the prune (prune_buffers), so no window can
 * hold them, neither a refresh's nor a table's being created, and no reader
 * with an older snapshot needs them.  A refresh that starts meanwhile waits
 * for this short transaction and then reads the new relfilenode; its kept
 * plans over the buffer are revalidated by PostgreSQL's plan cache.
 * Returns the buffers it could not lock (in TopMemoryContext), which the
 * next pass tries again.
 */
static List *
shrink_emptied_buffers(List *emptied)
{
	ListCell   *lc;
	List	   *busy = NIL;
	MemoryContext old;

	foreach(lc, emptied)
	{
		Oid			buffer = lfirst_oid(lc);
		Relation	rel;
		bool		empty = false;

		SetCurrentStatementStartTimestamp();
		StartTransactionCommand();
		if (!ConditionalLockRelationOid(buffer, AccessExclusiveLock))
		{
			CommitTransactionCommand();
			old = MemoryContextSwitchTo(TopMemoryContext);
			busy = lappend_oid(busy, buffer);
			MemoryContextSwitchTo(old);
			continue;
		}
		rel = try_table_open(buffer, NoLock);
		if (rel == NULL || RelationGetNumberOfBlocks(rel) < SHRINK_MIN_BLOCKS)
		{
			if (rel != NULL)
				table_close(rel, NoLock);
			CommitTransactionCommand();
			continue;
		}
		pgstat_report_activity(STATE_RUNNING, "truncating an emptied change buffer");
		SPI_connect();
		PushActiveSnapshot(GetTransactionSnapshot());
		if (SPI_execute(psprintf("SELECT 1 FROM %s.%s LIMIT 1", DV_BUFFER_SCHEMA,
								 quote_identifier(RelationGetRelationName(rel))),
						true, 0) != SPI_OK_SELECT)
			elog(ERROR, "could not read change buffer %s", RelationGetRelationName(rel));
		empty = SPI_processed == 0;
		if (empty)
			ExecuteTruncateGuts(list_make1(rel), list_make1_oid(buffer), NIL, DROP_RESTRICT, false);
		PopActiveSnapshot();
		SPI_finish();
		table_close(rel, NoLock);
		CommitTransactionCommand();
	}
	pgstat_report_activity(STATE_IDLE, NULL);
	return busy;
}

/* buffers pruned by earlier passes and not vacuumed since (TopMemoryContext) */
static List *vacuum_pending = NIL;

/* add pruned (in TopMemoryContext; freed) to vacuum_pending */
static void
remember_pruned(List *pruned)
{
	MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

	vacuum_pending = list_concat_unique_oid(vacuum_pending, pruned);
	list_free(pruned);
	MemoryContextSwitchTo(old);
}

/*
 * vacuum_pruned_buffers - VACUUM the buffers that earlier passes pruned and
 * that spanned VACUUM_MIN_BLOCKS pages or more then, in one vacuum() call
 * (PostgreSQL's own, as VACUUM runs it; its per-relation transactions are
 * its own); then remember the buffers this pass pruned (pruned, in
 * TopMemoryContext: taken over) for a later call.  Not this pass's: the
 * rows it deleted a moment ago are often still visible to a snapshot taken
 * before, and VACUUM would leave them.
 *
 * Pruning deletes rows, but their space is reused only once VACUUM has
 * recorded it in the free space map; until then every new row goes to the
 * end of the buffer.  A buffer that a steady stream of changes never leaves
 * empty is never truncated either (shrink_emptied_buffers), so it grew by
 * every change until autovacuum came (at most once per autovacuum_naptime,
 * a minute by default), and a window read scanned all of it: at 1M orders,
 * the dashboard's orders buffer spanned 345 pages after 15 refreshes of
 * about 1,300 rows each (23 pages).  Vacuumed, it stays about as large as
 * the rows written in VACUUM_INTERVAL_MS and the rows held.  Not at every
 * pass: each vacuum() call also updates the database's frozen xid
 * (vac_update_datfrozenxid), a scan of pg_class.
 *
 * Never waits: SKIP_LOCKED passes over a buffer that another transaction
 * holds in a conflicting mode (a truncation, DDL); reads and writes of the
 * buffer go on meanwhile (VACUUM takes ShareUpdateExclusiveLock).  No
 * truncation of the empty pages at the end: that would take the buffer
 * exclusively (shrink_emptied_buffers does it when the buffer is empty).
 * Errors are logged; the decoder goes on.
 */
static void
vacuum_pruned_buffers(List *pruned)
{
	MemoryContext caller = CurrentMemoryContext;
	MemoryContext cxt;
	MemoryContext portal = PortalContext;
	VacuumParams params;
	List	   *relations = NIL;
	ListCell   *lc;
	static TimestampTz last = 0;

	if (vacuum_pending == NIL || !TimestampDifferenceExceeds(last, GetCurrentTimestamp(), VACUUM_INTERVAL_MS))
	{
		remember_pruned(pruned);
		return;
	}
	last = GetCurrentTimestamp();
	cxt = AllocSetContextCreate(TopMemoryContext, "dynview buffer vacuum", ALLOCSET_DEFAULT_SIZES);
	memset(&params, 0, sizeof(params));
	params.options = VACOPT_VACUUM | VACOPT_SKIP_LOCKED;
	params.freeze_min_age = -1;
	params.freeze_table_age = -1;
	params.multixact_freeze_min_age = -1;
	params.multixact_freeze_table_age = -1;
	params.is_wraparound = false;
	params.log_min_duration = -1;
	params.index_cleanup = VACOPTVALUE_UNSPECIFIED;
	params.truncate = VACOPTVALUE_DISABLED;
	params.nworkers = -1;
	PG_TRY();
	{
		SetCurrentStatementStartTimestamp();
		StartTransactionCommand();
		MemoryContextSwitchTo(cxt);
		foreach(lc, vacuum_pending)
			relations = lappend(relations, makeVacuumRelation(NULL, lfirst_oid(lc), NIL));
		/* (vacuum() keeps what must outlive its transactions under PortalContext) */
		PortalContext = cxt;
		pgstat_report_activity(STATE_RUNNING, "vacuuming pruned change buffers");
		vacuum(relations, &params, NULL, true);
		CommitTransactionCommand();
	}
	PG_CATCH();
	{
		dv_log_error_and_abort(caller, "vacuuming pruned change buffers");
	}
	PG_END_TRY();
	PortalContext = portal;
	pgstat_report_activity(STATE_IDLE, NULL);
	MemoryContextSwitchTo(caller);
	MemoryContextDelete(cxt);
	list_free(vacuum_pending);
	vacuum_pending = NIL;
	remember_pruned(pruned);
}

/* buffers emptied by an earlier pass that could not be truncated then */
static List *shrink_pending = NIL;

static void
prune_buffers(void)
{
	FullTransactionId next = ReadNextFullTransactionId();
	TransactionId horizon;
	List	   *sources = NIL;
	List	   *buffers = NIL;
	List	   *emptied = NIL;	/* (in TopMemoryContext: used after the commit) */
	List	   *pruned = NIL;	/* (likewise) */
	MemoryContext old;
	ListCell   *lc1,
			   *lc2;


	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();

	/*
	 * The extension first (lock_extension): a pass holding source_tracking
	 * and a buffer once waited for dynamic_table_catalog, which DROP
	 * EXTENSION held while it waited for that buffer.  If the extension went
	 * meanwhile, there is nothing to prune.
	 */
	if (!lock_extension())
	{
		CommitTransactionCommand();
		return;
	}
	SPI_connect();
	PushActiveSnapshot(GetTransactionSnapshot());
	pgstat_report_activity(STATE_RUNNING, "pruning change buffers");

	/* buffers in OID order, as every transaction that locks several does */
	if (SPI_execute("SELECT source_relid, buffer_relid FROM dynview.source_tracking ORDER BY buffer_relid", false, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read dynview.source_tracking");
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		bool		isnull;

		sources = lappend_oid(sources, DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull)));
		buffers = lappend_oid(buffers, DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2, &isnull)));
	}

	forboth(lc1, sources, lc2, buffers)
	{
		char	   *buffer = get_rel_name(lfirst_oid(lc2));
		Datum		pargs[2];
		Oid			ptypes[2] = {XID8OID, OIDOID};
		Datum		rargs[2];
		Oid			rtypes[2] = {OIDOID, INT4OID};
		Relation	rel;
		BlockNumber nblocks;
		List	   *expired;
		ListCell   *lc3;

		if (buffer == NULL)
			continue;

		/*
		 * Never wait for a buffer: a transaction that alters one (a new
		 * dynamic table widening it, a source's ALTER TABLE) holds it
		 * exclusively and may then wait for a buffer this pass has pruned,
		 * a deadlock that aborted create_dynamic_table.  Such a buffer is
		 * left for the next pass; one dropped meanwhile is passed over.
		 */
		if (!ConditionalLockRelationOid(lfirst_oid(lc2), RowExclusiveLock))
			continue;
		rel = try_table_open(lfirst_oid(lc2), NoLock);
		if (rel == NULL)
		{
			UnlockRelationOid(lfirst_oid(lc2), RowExclusiveLock);
			continue;
		}
		/* the horizon of a user table: the slots' catalog xmin does not hold it back */
		horizon = GetOldestNonRemovableTransactionId(rel);
		nblocks = RelationGetNumberOfBlocks(rel);
		table_close(rel, NoLock);
		pargs[0] = FullTransactionIdGetDatum(FullTransactionIdFromU64(widen(horizon, next)));
		pargs[1] = ObjectIdGetDatum(lfirst_oid(lc1));
		/* the tables that hold rows of this buffer past the retention */
		rargs[0] = ObjectIdGetDatum(lfirst_oid(lc1));
		rargs[1] = Int32GetDatum(dv_change_retention);
		if (SPI_execute_with_args(psprintf("SELECT c.relid::pg_catalog.oid FROM dynview.dynamic_table_catalog c"
										   " JOIN dynview.source_catalog s ON s.relid OPERATOR(pg_catalog.=) c.relid"
										   " WHERE s.source_relid OPERATOR(pg_catalog.=) $1"
										   " AND c.data_snapshot IS NOT NULL AND c.next_refresh_full IS NULL"
										   " AND c.data_timestamp OPERATOR(pg_catalog.<) (pg_catalog.now()"
										   "     OPERATOR(pg_catalog.-) pg_catalog.make_interval(secs => $2))"
										   " AND EXISTS (SELECT 1 FROM %s.%s b"
										   "   WHERE NOT (pg_catalog.pg_visible_in_snapshot(b.dv_xid, c.data_snapshot)"
										   "              OR b.dv_xid OPERATOR(pg_catalog.=) ANY (coalesce(c.data_own_xids, '{}'))))",
										   DV_BUFFER_SCHEMA, quote_identifier(buffer)),
								  2, rtypes, rargs, NULL, true, 0) != SPI_OK_SELECT)
			elog(ERROR, "could not find the dynamic tables that hold change buffer %s", buffer);
		expired = NIL;
		for (uint64 i = 0; i < SPI_processed; i++)
		{
			bool		isnull;

			expired = lappend_oid(expired, DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i],
																		  SPI_tuptable->tupdesc, 1, &isnull)));
		}
		foreach(lc3, expired)
		{
			Datum		margs[2];
			Oid			mtypes[2] = {OIDOID, INT4OID};

			/*
			 * Only a table no refresh is running on (it holds its refresh
			 * lock to its commit, and may be waiting for this worker): held
			 * to this transaction's commit, so a refresh starting meanwhile
			 * waits and then reads the mark.  Checked again with a new
			 * snapshot.
			 */
			if (!dv_try_lock_refresh(lfirst_oid(lc3)))
				continue;
			margs[0] = ObjectIdGetDatum(lfirst_oid(lc3));
			margs[1] = Int32GetDatum(dv_change_retention);
			update_catalog_not_own("UPDATE dynview.dynamic_table_catalog "
								   "SET next_refresh_full = 'CHANGE_RETENTION_EXCEEDED' "
								   "WHERE relid OPERATOR(pg_catalog.=) $1::pg_catalog.regclass "
								   "AND relid OPERATOR(pg_catalog.=) ANY (ARRAY("
								   "  SELECT c.relid FROM dynview.dynamic_table_catalog c"
								   "  WHERE c.relid OPERATOR(pg_catalog.=) $1::pg_catalog.regclass"
								   "  AND c.next_refresh_full IS NULL AND c.data_snapshot IS NOT NULL"
								   "  AND c.data_timestamp OPERATOR(pg_catalog.<) (pg_catalog.now()"
								   "      OPERATOR(pg_catalog.-) pg_catalog.make_interval(secs => $2))"
								   "  FOR UPDATE SKIP LOCKED))",
								   2, mtypes, margs);
		}
		if (SPI_execute_with_args(psprintf("DELETE FROM %s.%s b WHERE b.dv_xid < $1 AND NOT EXISTS ("
										   " SELECT 1 FROM dynview.source_catalog s"
										   " JOIN dynview.dynamic_table_catalog c ON c.relid = s.relid"
										   " WHERE s.source_relid = $2 AND c.data_snapshot IS NOT NULL"
										   " AND c.next_refresh_full IS NULL"
										   " AND NOT (pg_catalog.pg_visible_in_snapshot(b.dv_xid, c.data_snapshot)"
										   "          OR b.dv_xid = ANY (coalesce(c.data_own_xids, '{}'))))",
										   DV_BUFFER_SCHEMA, quote_identifier(buffer)),
								  2, ptypes, pargs, NULL, false, 0) != SPI_OK_DELETE)
			elog(ERROR, "could not prune change buffer %s", buffer);
		/* (rows deleted: maybe the last ones, see shrink_emptied_buffers) */
		if (SPI_processed > 0 && !list_member_oid(shrink_pending, lfirst_oid(lc2)))
		{
			old = MemoryContextSwitchTo(TopMemoryContext);
			emptied = lappend_oid(emptied, lfirst_oid(lc2));
			MemoryContextSwitchTo(old);
		}
		if (SPI_processed > 0 && nblocks >= VACUUM_MIN_BLOCKS)
		{
			old = MemoryContextSwitchTo(TopMemoryContext);
			pruned = lappend_oid(pruned, lfirst_oid(lc2));
			MemoryContextSwitchTo(old);
		}
	}
	PopActiveSnapshot();
	SPI_finish();
	CommitTransactionCommand();
	pgstat_report_activity(STATE_IDLE, NULL);
	old = MemoryContextSwitchTo(TopMemoryContext);
	emptied = list_concat(emptied, shrink_pending);
	list_free(shrink_pending);
	shrink_pending = shrink_emptied_buffers(emptied);
	list_free(emptied);
	MemoryContextSwitchTo(old);
	vacuum_pruned_buffers(pruned);
}

/*
 * the registration this decoder started under: the CREATE EXTENSION that made
 * it (InvalidTransactionId: the server's start), see leave_database
 */
static TransactionId started_creating_xid = InvalidTransactionId;

/*
 * drop the slot and leave: the extension (or the database) is going away.
 * A CREATE EXTENSION that registered the database again meanwhile keeps its
 * registration: the launcher starts its decoder once this one has exited,
 * at once (dv_shmem_decoder_handed_over: leaving for a new installation is
 * not a failure, and does not raise the launcher's restart backoff).
 * The position this worker published is then forgotten first, before the
 * slot goes: a dynamic table of the new installation must wait for the new
 * decoder's slot, not find capture running on the strength of this one.
 */
static void
leave_database(Oid dboid, const char *slot)
{
	dv_shmem_set_decoder(dboid, NULL);
	if (!dv_shmem_unregister_database_of(dboid, true, started_creating_xid))
	{
		dv_shmem_set_capture_state(dboid, DV_CAPTURE_NOT_STARTED, NULL, NULL, NULL);
		dv_shmem_decoder_handed_over(dboid);
	}
	if (MyReplicationSlot != NULL)
		ReplicationSlotRelease();
	if (SearchNamedReplicationSlot(slot, true) != NULL)
		ReplicationSlotDrop(slot, true);
	ereport(LOG, (errmsg("dynview: extension dropped; dropped slot \"%s\" and stopped decoding", slot)));
	proc_exit(0);
}

static void
decoder_shutdown(int code, Datum arg)
{
	dv_shmem_set_decoder(DatumGetObjectId(arg), NULL);
}

/* has this worker decoded (published its position)?  Errors after that are not start failures */
static bool decoder_started = false;

/*
 * record_failure - note in shared memory why the worker is about to exit
 * with an error, with a hint naming the fix where the cause is known.
 */
static void
record_failure(Oid dboid, ErrorData *edata)
{
	const char *hint = edata->hint;
	const char *setting = dv_capture_plugin_setting_problem();

	if (setting)
		hint = psprintf("Add dynview to output_plugin_libraries (for example '%s%sdynview') and restart the server.",
						setting, setting[0] ? ", " : "");
	else if (edata->sqlerrcode == ERRCODE_CONFIGURATION_LIMIT_EXCEEDED && !decoder_started)
		hint = "Drop an unused replication slot with pg_drop_replication_slot(), or raise max_replication_slots and restart the server.";
	else if (edata->sqlerrcode == ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE && hint == NULL)
		hint = "Set wal_level = logical and restart the server.";
	dv_shmem_set_capture_state(dboid, decoder_started ? DV_CAPTURE_RESTARTING : DV_CAPTURE_FAILED,
							   edata->message, edata->detail ? edata->detail : edata->detail_log, hint);
}

static void decode(Oid dboid);

void
dynview_decoder_main(Datum main_arg)
{
	Oid			dboid = DatumGetObjectId(main_arg);
	MemoryContext oldcontext;

	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();
	BackgroundWorkerInitializeConnectionByOid(dboid, InvalidOid, 0);

	/*
	 * Everything this worker writes (change buffers, their pruning, its
	 * state) is dynview's own: none of it is decoded (plugin.c).  Not its
	 * UPDATEs of dynview.dynamic_table_catalog (a DBA may give that table
	 * triggers: dv_cdc_writes_not_own_begin); triggers and rules on
	 * dynview.decoder_state and the change buffers are refused (guard.c).
	 */
	dv_cdc_own_writes_always();
	pgstat_report_appname("dynview decoder");
	dv_shmem_capture_started(dboid);
	oldcontext = CurrentMemoryContext;
	PG_TRY();
	{
		decode(dboid);
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		/* record why, then exit as an uncaught error would (logged, exit code 1) */
		HOLD_INTERRUPTS();
		MemoryContextSwitchTo(oldcontext);
		edata = CopyErrorData();
		record_failure(dboid, edata);
		RESUME_INTERRUPTS();
		PG_RE_THROW();
	}
	PG_END_TRY();
}

/* the worker's body: start (slot, state), then decode until told to leave */
static void
decode(Oid dboid)
{
	Datum		main_arg = ObjectIdGetDatum(dboid);
	char	   *slot;
	LogicalDecodingContext *ctx;
	DvPluginState *state;
	XLogRecPtr	decoded;
	TimestampTz last_check;
	TimestampTz last_prune = 0;
	bool		registered;

	/* whatever the database or role settings say: no schema a role can write (dv_safe_search_path_push) */
	SetConfigOption("search_path", DV_SAFE_SEARCH_PATH, PGC_SUSET, PGC_S_OVERRIDE);
	slot = dv_slot_name(dboid);

	/*
	 * Started for a database that may not have the extension (a launcher
	 * probe), or while CREATE EXTENSION has not committed yet: wait for it.
	 */
	served_extension = installed_extension();
	if (!OidIsValid(served_extension))
	{
		TransactionId creating = dv_shmem_database_creating_xid(dboid);

		if (TransactionIdIsValid(creating))
		{
			SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
			XactLockTableWait(creating, NULL, NULL, XLTW_None);
			CommitTransactionCommand();
		}
		served_extension = installed_extension();
	}
	if (!OidIsValid(served_extension))
	{
		dv_shmem_unregister_database(dboid);
		if (SearchNamedReplicationSlot(slot, true) != NULL)
			ReplicationSlotDrop(slot, true);
		proc_exit(0);
	}
	registered = dv_shmem_database_registered(dboid);
	dv_shmem_register_database(dboid, InvalidTransactionId);
	started_creating_xid = dv_shmem_database_creating_xid(dboid);
	/* after a server restart the database is registered only now: note our pid */
	if (!registered)
		dv_shmem_capture_started(dboid);
	before_shmem_exit(decoder_shutdown, main_arg);
	/* announce the worker now: building the slot may wait for running transactions */
	dv_shmem_set_decoder(dboid, MyLatch);
	pgstat_report_activity(STATE_RUNNING, "creating the replication slot (waits for running transactions that have written)");

	decoded = load_state(dboid, ensure_slot(slot));

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	ReplicationSlotAcquire(slot, true);
	/* the context lives as long as the worker, not the transaction */
	MemoryContextSwitchTo(TopMemoryContext);
	ctx = CreateDecodingContext(InvalidXLogRecPtr, NIL, false,
								XL_ROUTINE(.page_read = read_local_xlog_page,
										   .segment_open = wal_segment_open,
										   .segment_close = wal_segment_close),
								NULL, NULL, NULL);
	CommitTransactionCommand();

	state = MemoryContextAllocZero(TopMemoryContext, sizeof(DvPluginState));
	state->context = AllocSetContextCreate(TopMemoryContext, "dynview changes",
										   ALLOCSET_DEFAULT_SIZES);
	state->stream_context = AllocSetContextCreate(TopMemoryContext, "dynview streams",
												  ALLOCSET_SMALL_SIZES);
	state->skip_upto = decoded;
	ctx->output_plugin_private = state;
	XLogBeginRead(ctx->reader, MyReplicationSlot->data.restart_lsn);

	/*
	 * The slot now exists (the ephemeral one was visible while it was being
	 * made): if the installation changed since the start, the slot may date
	 * from before the new one and must not serve it.
	 */
	if (installed_extension() != served_extension)
	{
		FreeDecodingContext(ctx);
		leave_database(dboid, slot);
	}

	/* everything up to the slot's confirmed position is in the buffers */
	if (MyReplicationSlot->data.confirmed_flush > decoded)
		decoded = MyReplicationSlot->data.confirmed_flush;
	dv_shmem_set_decoder(dboid, MyLatch);
	dv_shmem_publish_decoded(dboid, served_extension, decoded);
	decoder_started = true;
	dv_shmem_set_capture_state(dboid, DV_CAPTURE_RUNNING, NULL, NULL, NULL);
	ereport(LOG, (errmsg("dynview: decoder started for slot \"%s\" at %X/%X",
						 slot, LSN_FORMAT_ARGS(MyReplicationSlot->data.restart_lsn))));
	last_check = GetCurrentTimestamp();

	for (;;)
	{
		XLogRecPtr	end_of_wal;
		int			nrecords = 0;
		bool		reached_end = false;

		CHECK_FOR_INTERRUPTS();
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
		}
		if (!dv_shmem_database_registered(dboid) ||
			TimestampDifferenceExceeds(last_check, GetCurrentTimestamp(), EXTENSION_CHECK_MS))
		{
			if (!dv_shmem_database_registered(dboid) || installed_extension() != served_extension)
			{
				FreeDecodingContext(ctx);
				leave_database(dboid, slot);
			}
			last_check = GetCurrentTimestamp();
		}

		end_of_wal = GetFlushRecPtr(NULL);
		SetCurrentStatementStartTimestamp();
		StartTransactionCommand();
		/* after the flush position and the invalidations it implies (recordfilter.c) */
		dv_record_filter_begin();

		while (ctx->reader->EndRecPtr < end_of_wal &&
			   state->bytes < BATCH_BYTES && nrecords < BATCH_RECORDS)
		{
			char	   *errm = NULL;
			XLogRecord *record;

			/*
			 * The reader frees a previous oversized record at the next read,
			 * so records must not live in transaction memory (decoding a
			 * transaction ends a subtransaction, which switches context).
			 */
			MemoryContextSwitchTo(ctx->context);
			record = XLogReadRecord(ctx->reader, &errm);

			if (errm)
				elog(ERROR, "dynview decoder: could not read WAL: %s", errm);
			if (record == NULL)
				break;

			/*
			 * Stream large transactions only past what is already written:
			 * a transaction whose commit ends at or before skip_upto is in
			 * the buffers, and would be written twice (plugin_begin skips
			 * it only when it is replayed at its commit).
			 */
			ctx->streaming = ctx->reader->EndRecPtr > state->skip_upto;
			/* a row change of a table no dynamic table captures: not decoded */
			if (!dv_record_filter_skip(ctx->reader))
				LogicalDecodingProcessRecord(ctx, ctx->reader);
			nrecords++;
			CHECK_FOR_INTERRUPTS();
		}
		CommitTransactionCommand();
		reached_end = ctx->reader->EndRecPtr >= end_of_wal;

		if (nrecords > 0 || state->changes != NIL)
		{
			XLogRecPtr	upto = ctx->reader->EndRecPtr;

			/* all WAL below end_of_wal is read: every commit ending there is done */
			if (reached_end && end_of_wal > upto)
				upto = end_of_wal;
			/* after a restart decoding starts behind what is already written */
			if (upto < decoded)
				upto = decoded;

			/*
			 * Only changes need the batch transaction (and with it the
			 * progress row, which makes a restart skip what was written).
			 * Without changes nothing is to be skipped later, and writing the
			 * progress would itself make WAL to decode, forever.
			 */
			if (state->changes != NIL || state->removals != NIL || state->streams_changed)
			{
				ListCell   *lc;

				/* the extension went (or was replaced): leave, publishing nothing */
				if (!write_batch(dboid, state, upto))
				{
					FreeDecodingContext(ctx);
					leave_database(dboid, slot);
				}
				foreach(lc, state->streams)
				{
					DvStream   *stream = lfirst(lc);

					stream->in_buffers |= stream->seq > 0;
				}
			}
			if (ctx->reader->EndRecPtr > MyReplicationSlot->data.confirmed_flush)
				LogicalConfirmReceivedLocation(ctx->reader->EndRecPtr);
			MemoryContextReset(state->context);
			state->changes = NIL;
			state->removals = NIL;
			state->streams_changed = false;
			state->desc_cache = NIL;
			state->bytes = 0;
			state->skip_upto = Max(state->skip_upto, upto);
			decoded = upto;
			dv_shmem_publish_decoded(dboid, served_extension, decoded);
		}
		else if (reached_end && end_of_wal > decoded)
		{
			decoded = end_of_wal;
			dv_shmem_publish_decoded(dboid, served_extension, decoded);
		}

		if (TimestampDifferenceExceeds(last_prune, GetCurrentTimestamp(), PRUNE_INTERVAL_MS))
		{
			prune_buffers();
			last_prune = GetCurrentTimestamp();
		}

		if (reached_end)
		{
			(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
							 100L, PG_WAIT_EXTENSION);
			ResetLatch(MyLatch);
		}
	}
}
