/*-------------------------------------------------------------------------
 *
 * plugin.c
 *	  dynview as a logical decoding output plugin.
 *
 * The plugin is only ever used by dynview's own decoder worker, in-process
 * (decoder.c).  Its callbacks run inside the reorder buffer's replay of a
 * committed transaction, under a historic catalog snapshot and in a
 * (sub)transaction that is rolled back afterwards, so they cannot write
 * tables.  Instead they keep each change of a tracked source as a flat,
 * typed tuple in the decoder's memory (DvPluginState); the decoder writes
 * them into the change buffers after the record is processed.
 *
 * What is kept:
 *	- INSERT: the new image, weight +1.  DELETE: the old image, weight -1.
 *	  UPDATE: the old image (-1) and the new image (+1).  Old images are
 *	  complete because dynview sets REPLICA IDENTITY FULL on its sources;
 *	  under another replica identity (old images of key columns only) an
 *	  UPDATE or DELETE keeps a marker instead.
 *	- A new image's unchanged TOASTed values (on-disk pointers the decoder
 *	  cannot follow) are taken from the old image.
 *	- TRUNCATE: a marker (weight 0, no tuple).
 *	- A change of a partition is kept for each tracked partition ancestor
 *	  too (partitions.c).
 *	- Transactions whose commit ends at or before skip_upto were written
 *	  before a crash or restart and are skipped, so nothing is duplicated.
 *	- Relations that are not tracked sources, in particular dynview's own
 *	  buffers, catalogs and dynamic tables, are ignored.
 *	- A transaction larger than logical_decoding_work_mem is streamed: its
 *	  changes are kept while it runs (see "Streaming" below), and deleted
 *	  again from the buffers if it, or a subtransaction, aborts.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/detoast.h"
#include "access/heaptoast.h"
#include "access/htup_details.h"
#include "access/xact.h"
#include "access/tupdesc.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "storage/ipc.h"
#include "replication/logical.h"
#include "replication/origin.h"
#include "replication/output_plugin.h"
#include "replication/reorderbuffer.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "dynview.h"
#include "cdc/cdc.h"

extern PGDLLEXPORT void _PG_output_plugin_init(OutputPluginCallbacks *cb);

static DvPluginState *
plugin_state(LogicalDecodingContext *ctx)
{
	DvPluginState *state = (DvPluginState *) ctx->output_plugin_private;

	if (state == NULL)
		elog(ERROR, "the dynview output plugin can only be used by dynview's decoder worker");
	return state;
}

static void
plugin_startup(LogicalDecodingContext *ctx, OutputPluginOptions *opt, bool is_init)
{
	opt->output_type = OUTPUT_PLUGIN_BINARY_OUTPUT;
	opt->receive_rewrites = false;
	/* the decoder turns streaming on once it is past what it wrote before (decoder.c) */
	ctx->streaming = false;
	/* output_plugin_private is set by the decoder after creating the context */
}

static void
plugin_begin(LogicalDecodingContext *ctx, ReorderBufferTXN *txn)
{
	DvPluginState *state = (DvPluginState *) ctx->output_plugin_private;

	if (state == NULL)
		return;
	state->skipping = txn->end_lsn <= state->skip_upto;
	state->seq = 0;
}

/* same columns (names, types, order, dropped)?  Constraints do not matter here. */
static bool
same_columns(TupleDesc a, TupleDesc b)
{
	if (a->natts != b->natts || a->tdtypeid != b->tdtypeid)
		return false;
	for (int i = 0; i < a->natts; i++)
	{
		Form_pg_attribute x = TupleDescAttr(a, i);
		Form_pg_attribute y = TupleDescAttr(b, i);

		if (x->atttypid != y->atttypid || x->atttypmod != y->atttypmod ||
			x->attisdropped != y->attisdropped || x->attlen != y->attlen ||
			x->attbyval != y->attbyval || x->attalign != y->attalign ||
			strcmp(NameStr(x->attname), NameStr(y->attname)) != 0)
			return false;
	}
	return true;
}

/*
 * batch_desc - the TupleDesc to keep with changes of relation, one copy per
 * relation version and batch.  The newest copy is looked up first, so the
 * cost per change is one column comparison.
 */
static TupleDesc
batch_desc(DvPluginState *state, Relation relation)
{
	TupleDesc	current = RelationGetDescr(relation);
	TupleDesc	copy;

	for (int i = list_length(state->desc_cache) - 1; i >= 0; i--)
	{
		TupleDesc	d = list_nth(state->desc_cache, i);

		if (same_columns(d, current))
			return d;
	}
	/*
	 * With the constraints: they hold the values of columns added with a
	 * DEFAULT after a row was written, which the row does not store
	 * (heap_deform_tuple takes them from here; without them they read NULL).
	 */
	copy = CreateTupleDescCopyConstr(current);
	state->desc_cache = lappend(state->desc_cache, copy);
	return copy;
}

/*
 * flat_copy - a self-contained copy of a decoded tuple: every varlena is
 * detoasted into our memory; an on-disk TOAST pointer (a value the update
 * did not change) is replaced by the value in fallback (the old image).
 * Returns NULL if such a value has no fallback (cannot happen with REPLICA
 * IDENTITY FULL).
 */
static HeapTuple
flat_copy(TupleDesc desc, HeapTuple tuple, HeapTuple fallback)
{
	int			natts = desc->natts;
	Datum	   *values = palloc(sizeof(Datum) * natts);
	bool	   *nulls = palloc(sizeof(bool) * natts);
	Datum	   *old_values = NULL;
	bool	   *old_nulls = NULL;
	HeapTuple	result;

	heap_deform_tuple(tuple, desc, values, nulls);
	for (int i = 0; i < natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		struct varlena *v;

		if (nulls[i] || att->attisdropped || att->attlen != -1)
			continue;
		v = (struct varlena *) DatumGetPointer(values[i]);
		if (VARATT_IS_EXTERNAL_ONDISK(v))
		{
			if (fallback != NULL && old_values == NULL)
			{
				old_values = palloc(sizeof(Datum) * natts);
				old_nulls = palloc(sizeof(bool) * natts);
				heap_deform_tuple(fallback, desc, old_values, old_nulls);
			}
			if (old_values != NULL && !old_nulls[i] &&
				!VARATT_IS_EXTERNAL_ONDISK(DatumGetPointer(old_values[i])))
				values[i] = PointerGetDatum(detoast_attr((struct varlena *) DatumGetPointer(old_values[i])));
			else
				return NULL;
		}
		else if (VARATT_IS_EXTENDED(v))
			values[i] = PointerGetDatum(detoast_attr(v));
	}
	result = heap_form_tuple(desc, values, nulls);
	return result;
}

/*
 * keep_change - remember one change.  tuple NULL (or an image that cannot be
 * completed) keeps a marker of weight 0: the consumers of this source must
 * recompute in full (a TRUNCATE, or a change logged without its old row).
 */
static void
keep_change(DvPluginState *state, ReorderBufferTXN *txn, DvStream *stream, Relation relation,
			Oid target, int16 weight, HeapTuple tuple, HeapTuple fallback)
{
	DvChange   *c = palloc(sizeof(DvChange));

	/* (a partition's change is kept for its tracked ancestor: the buffer maps columns by name) */
	c->relid = target;
	c->logged_relid = RelationGetRelid(relation);
	c->xid = txn->xid;
	c->streamed = stream != NULL;
	/* a streamed transaction has not ended yet: its commit is not known */
	c->commit_lsn = stream ? InvalidXLogRecPtr : txn->final_lsn;
	c->commit_time = stream ? 0 : txn->xact_time.commit_time;
	c->seq = stream ? stream->seq++ : state->seq++;
	c->weight = weight;
	c->desc = batch_desc(state, relation);
	c->tuple = tuple ? flat_copy(c->desc, tuple, fallback) : NULL;
	c->marker = '\0';
	if (c->tuple == NULL)
	{
		/* (a row change without its row: its old row was not logged whole) */
		c->marker = weight == 0 ? DV_MARKER_TRUNCATE : DV_MARKER_NO_OLD_ROW;
		c->weight = 0;
	}
	if (c->tuple)
		state->bytes += c->tuple->t_len + sizeof(DvChange);
	state->changes = lappend(state->changes, c);
}

static bool
tracked(Relation relation)
{
	return dv_shmem_source_tracked(MyDatabaseId, RelationGetRelid(relation), NULL);
}

/*
 * capture_targets - the tracked sources a change of relation counts for:
 * itself if tracked, and its tracked partition ancestors (partitions.c).
 */
static List *
capture_targets(Relation relation)
{
	List	   *targets = dv_partition_capture_targets(relation);

	if (tracked(relation))
		targets = lcons_oid(RelationGetRelid(relation), targets);
	return targets;
}

/*
 * keep_row_change - keep an INSERT, UPDATE or DELETE of relation for every
 * tracked source it counts for.  stream is the transaction's streaming
 * state when it is streamed before its end, else NULL.  Returns those
 * sources (NIL: none, nothing kept).
 */
static List *
keep_row_change(DvPluginState *state, ReorderBufferTXN *txn, DvStream *stream,
				Relation relation, ReorderBufferChange *change)
{
	MemoryContext old;
	HeapTuple	oldtup;
	HeapTuple	newtup;
	List	   *targets;
	ListCell   *lc;
	static uint32 changes_seen = 0;

	/*
	 * Replaying one very large transaction takes long: DROP DATABASE and DROP
	 * EXTENSION wait for the decoder to let go of its slot (30 s), so check
	 * now and then whether the database is still registered.
	 */
	if ((++changes_seen & 0x3FFF) == 0 && MyBackendType == B_BG_WORKER &&
		!dv_shmem_database_registered(MyDatabaseId))
	{
		ereport(LOG,
				(errmsg("dynview: decoder of database %u stops inside a large transaction: the extension or the database is being dropped",
						MyDatabaseId)));
		proc_exit(0);
	}

	if (state->skipping || (targets = capture_targets(relation)) == NIL)
		return NIL;
	old = MemoryContextSwitchTo(state->context);
	oldtup = change->data.tp.oldtuple ? &change->data.tp.oldtuple->tuple : NULL;

	/*
	 * Under any replica identity but FULL (set back to DEFAULT by its owner,
	 * or never set on a source of another owner) an old image holds the key
	 * columns only, the others NULL: weighted, it would remove a row that
	 * does not exist.  The relation is as it was when the change was made
	 * (historic catalog snapshot), so such a change becomes a marker.
	 */
	if (oldtup && relation->rd_rel->relreplident != REPLICA_IDENTITY_FULL)
		oldtup = NULL;
	newtup = change->data.tp.newtuple ? &change->data.tp.newtuple->tuple : NULL;
	foreach(lc, targets)
	{
		Oid			target = lfirst_oid(lc);

		switch (change->action)
		{
			case REORDER_BUFFER_CHANGE_INSERT:
				if (newtup)
					keep_change(state, txn, stream, relation, target, +1, newtup, NULL);
				break;
			case REORDER_BUFFER_CHANGE_UPDATE:
				/* without its old row the change cannot be weighted: a marker */
				keep_change(state, txn, stream, relation, target, -1, oldtup, NULL);
				if (newtup && oldtup)
					keep_change(state, txn, stream, relation, target, +1, newtup, oldtup);
				break;
			case REORDER_BUFFER_CHANGE_DELETE:
				keep_change(state, txn, stream, relation, target, -1, oldtup, NULL);
				break;
			default:
				break;
		}
	}
	MemoryContextSwitchTo(old);
	return targets;
}

/* keep a TRUNCATE marker for every tracked source of the truncated relations */
static void
keep_truncate(DvPluginState *state, ReorderBufferTXN *txn, DvStream *stream,
			  int nrelations, Relation relations[])
{
	MemoryContext old;

	if (state->skipping)
		return;
	old = MemoryContextSwitchTo(state->context);
	for (int i = 0; i < nrelations; i++)
	{
		ListCell   *lc;

		/* (TRUNCATE of a partitioned table lists its leaves) */
		foreach(lc, capture_targets(relations[i]))
			keep_change(state, txn, stream, relations[i], lfirst_oid(lc), 0, NULL, NULL);
	}
	MemoryContextSwitchTo(old);
}

static void
plugin_change(LogicalDecodingContext *ctx, ReorderBufferTXN *txn,
			  Relation relation, ReorderBufferChange *change)
{
	keep_row_change(plugin_state(ctx), txn, NULL, relation, change);
}

static void
plugin_truncate(LogicalDecodingContext *ctx, ReorderBufferTXN *txn,
				int nrelations, Relation relations[], ReorderBufferChange *change)
{
	keep_truncate(plugin_state(ctx), txn, NULL, nrelations, relations);
}

static void
plugin_commit(LogicalDecodingContext *ctx, ReorderBufferTXN *txn, XLogRecPtr commit_lsn)
{
	DvPluginState *state = (DvPluginState *) ctx->output_plugin_private;

	if (state == NULL)
		return;
	if (txn->end_lsn > state->last_commit_end)
		state->last_commit_end = txn->end_lsn;
	state->skipping = false;
}

/*
 * Streaming (PostgreSQL 15): a transaction that outgrows
 * logical_decoding_work_mem is handed to the plugin in parts while it runs,
 * instead of being spilled to disk and replayed at its commit.  Its changes
 * are kept like a committed transaction's (the decoder writes them with its
 * next batch) with commit position and time unknown; the window of a refresh
 * reads them only once a data snapshot sees the transaction (design section
 * 5).  What must never be read are the rows of a transaction, or a
 * subtransaction, that aborts: stream_abort queues their deletion, which the
 * decoder commits together with the position past the abort record.  The
 * decoder records the transactions streamed and not ended yet in
 * dynview.decoder_state, so that after a restart (which replays them from
 * their start) their rows are deleted first (decoder.c).
 */

/* the stream of txn's top-level transaction, created at its first part */
static DvStream *
stream_of(DvPluginState *state, ReorderBufferTXN *txn)
{
	ReorderBufferTXN *top = txn->toptxn ? txn->toptxn : txn;
	DvStream   *stream = (DvStream *) top->output_plugin_private;

	if (stream == NULL)
	{
		MemoryContext context = AllocSetContextCreate(state->stream_context, "dynview stream",
													  ALLOCSET_SMALL_SIZES);
		MemoryContext old = MemoryContextSwitchTo(state->stream_context);

		stream = MemoryContextAllocZero(context, sizeof(DvStream));
		stream->xid = top->xid;
		stream->context = context;
		top->output_plugin_private = stream;
		state->streams = lappend(state->streams, stream);
		state->streams_changed = true;
		MemoryContextSwitchTo(old);
	}
	return stream;
}

/* note that the changes kept from first_seq on belong to the stream's writer */
static void
note_stream_rows(DvStream *stream, int32 first_seq, List *targets)
{
	MemoryContext old;
	DvSeqRun   *run = stream->runs ? llast(stream->runs) : NULL;
	ListCell   *lc;

	if (stream->seq == first_seq)
		return;					/* nothing kept */
	old = MemoryContextSwitchTo(stream->context);
	if (run != NULL && run->xid == stream->writer && run->last == first_seq - 1)
		run->last = stream->seq - 1;
	else
	{
		run = palloc(sizeof(DvSeqRun));
		run->xid = stream->writer;
		run->first = first_seq;
		run->last = stream->seq - 1;
		stream->runs = lappend(stream->runs, run);
	}
	foreach(lc, targets)
		stream->sources = list_append_unique_oid(stream->sources, lfirst_oid(lc));
	MemoryContextSwitchTo(old);
}

static void
plugin_stream_start(LogicalDecodingContext *ctx, ReorderBufferTXN *txn)
{
	DvPluginState *state = plugin_state(ctx);

	/* (never needed: the decoder streams only past what it wrote before) */
	state->skipping = false;
	(void) stream_of(state, txn);
}

static void
plugin_stream_stop(LogicalDecodingContext *ctx, ReorderBufferTXN *txn)
{
}

static void
plugin_stream_change(LogicalDecodingContext *ctx, ReorderBufferTXN *txn,
					 Relation relation, ReorderBufferChange *change)
{
	DvPluginState *state = plugin_state(ctx);
	DvStream   *stream = stream_of(state, txn);
	int32		first = stream->seq;
	List	   *targets;

	stream->writer = change->txn ? change->txn->xid : txn->xid;
	targets = keep_row_change(state, txn, stream, relation, change);
	note_stream_rows(stream, first, targets);
}

static void
plugin_stream_truncate(LogicalDecodingContext *ctx, ReorderBufferTXN *txn,
					   int nrelations, Relation relations[], ReorderBufferChange *change)
{
	DvPluginState *state = plugin_state(ctx);
	DvStream   *stream = stream_of(state, txn);
	int32		first = stream->seq;
	List	   *targets = NIL;

	stream->writer = change->txn ? change->txn->xid : txn->xid;
	keep_truncate(state, txn, stream, nrelations, relations);
	for (int i = 0; i < nrelations; i++)
		targets = list_concat_unique_oid(targets, capture_targets(relations[i]));
	note_stream_rows(stream, first, targets);
}

/* forget a stream whose transaction ended */
static void
end_stream(DvPluginState *state, ReorderBufferTXN *top)
{
	DvStream   *stream = (DvStream *) top->output_plugin_private;

	if (stream == NULL)
		return;
	state->streams = list_delete_ptr(state->streams, stream);
	state->streams_changed = true;
	top->output_plugin_private = NULL;
	MemoryContextDelete(stream->context);
}

/* is seq one of the rows of the runs of xid (InvalidTransactionId: of any)? */
static bool
seq_in_runs(List *runs, TransactionId xid, int32 seq)
{
	ListCell   *lc;

	foreach(lc, runs)
	{
		DvSeqRun   *run = lfirst(lc);

		if ((xid == InvalidTransactionId || run->xid == xid) &&
			seq >= run->first && seq <= run->last)
			return true;
	}
	return false;
}

/*
 * plugin_stream_abort - txn (the top-level transaction or one of its
 * subtransactions) aborted after some of its changes were streamed: drop
 * those still in memory and queue the deletion of those already written.
 */
static void
plugin_stream_abort(LogicalDecodingContext *ctx, ReorderBufferTXN *txn, XLogRecPtr abort_lsn)
{
	DvPluginState *state = plugin_state(ctx);
	ReorderBufferTXN *top = txn->toptxn ? txn->toptxn : txn;
	DvStream   *stream = (DvStream *) top->output_plugin_private;
	bool		whole = txn == top;
	TransactionId which = whole ? InvalidTransactionId : txn->xid;
	List	   *kept = NIL;
	ListCell   *lc;
	StringInfoData ranges;
	MemoryContext old;

	if (stream == NULL)
		return;

	/* the changes of this batch not written yet */
	old = MemoryContextSwitchTo(state->context);
	foreach(lc, state->changes)
	{
		DvChange   *c = lfirst(lc);

		if (c->streamed && c->xid == top->xid && (whole || seq_in_runs(stream->runs, which, c->seq)))
		{
			if (c->tuple)
				state->bytes -= c->tuple->t_len + sizeof(DvChange);
			continue;
		}
		kept = lappend(kept, c);
	}
	state->changes = kept;

	/* those written by earlier batches */
	if (stream->in_buffers)
	{
		DvStreamRemoval *removal = palloc(sizeof(DvStreamRemoval));
		bool		any = whole;

		removal->xid = top->xid;
		removal->sources = list_copy(stream->sources);
		removal->seq_ranges = NULL;
		if (!whole)
		{
			initStringInfo(&ranges);
			appendStringInfoChar(&ranges, '{');
			foreach(lc, stream->runs)
			{
				DvSeqRun   *run = lfirst(lc);

				if (run->xid != which)
					continue;
				appendStringInfo(&ranges, "%s[%d,%d]", any ? "," : "", run->first, run->last);
				any = true;
			}
			appendStringInfoChar(&ranges, '}');
			removal->seq_ranges = ranges.data;
		}
		if (any)
			state->removals = lappend(state->removals, removal);
	}
	MemoryContextSwitchTo(old);

	if (whole)
		end_stream(state, top);
	else
	{
		/* the subtransaction's runs are gone: forget them */
		List	   *runs = NIL;

		old = MemoryContextSwitchTo(stream->context);
		foreach(lc, stream->runs)
		{
			DvSeqRun   *run = lfirst(lc);

			if (run->xid != which)
				runs = lappend(runs, run);
		}
		stream->runs = runs;
		MemoryContextSwitchTo(old);
	}
}

static void
plugin_stream_commit(LogicalDecodingContext *ctx, ReorderBufferTXN *txn, XLogRecPtr commit_lsn)
{
	DvPluginState *state = plugin_state(ctx);

	if (txn->end_lsn > state->last_commit_end)
		state->last_commit_end = txn->end_lsn;
	end_stream(state, txn);
}

static void
plugin_shutdown(LogicalDecodingContext *ctx)
{
}

/*
 * plugin_filter_by_origin - dynview's own writes are never decoded: the
 * change records written while dv_cdc_own_writes_begin() was in effect carry
 * the origin DoNotReplicateId, and PostgreSQL drops records whose origin the
 * plugin filters before they reach the reorder buffer (no memory, no spill,
 * no replay).  A backend marks its change records only, never a commit
 * record (the mark is on around its statements only; a commit record that
 * carries it makes PostgreSQL skip the whole transaction), so a
 * transaction that also wrote sources keeps those writes.  The decoder
 * worker marks everything, commits included, but for a transaction with
 * writes that are not its own (dv_cdc_writes_not_own_begin), whose commit
 * it leaves unmarked.  Records of real replication
 * origins (a subscription applying into a source) are decoded as always.
 */
static bool
plugin_filter_by_origin(LogicalDecodingContext *ctx, RepOriginId origin_id)
{
	return origin_id == DoNotReplicateId;
}

/*
 * dv_cdc_own_writes_begin - mark the change records this backend writes from
 * now on as dynview's own (see plugin_filter_by_origin) until
 * dv_cdc_own_writes_end(previous), which the caller must also reach on error
 * (PG_FINALLY).  Only for writes to dynview's relations (dynamic tables,
 * their state and change buffers) that no user code can join: the caller
 * makes sure no trigger, rule or volatile function runs inside.  Returns
 * the origin to restore.
 */
static bool own_writes_callback = false;
static bool own_writes_open = false;	/* a begin without its end yet */
static RepOriginId own_writes_outer;	/* the origin before the outermost begin */

/*
 * A transaction that ends (an error thrown past the caller's end, say) must
 * not leave the mark on for the session's next writes.
 */
static bool not_own_in_xact = false;	/* dv_cdc_writes_not_own_begin in this transaction */
static bool commit_unmarked = false;	/* its commit record written without the mark */
static RepOriginId commit_outer;	/* the origin before that commit */

static void
own_writes_xact_callback(XactEvent event, void *arg)
{
	if (own_writes_open)
	{
		replorigin_session_origin = own_writes_outer;
		own_writes_open = false;
	}
	if (!not_own_in_xact)
		return;

	/*
	 * A transaction with writes that are not dynview's own, in a process
	 * whose writes are otherwise all marked (the decoder worker): its commit
	 * record must not carry the mark, or PostgreSQL skips the whole
	 * transaction, those writes included (DecodeCommit filters by the commit
	 * record's origin).  The other records keep theirs.
	 */
	if (event == XACT_EVENT_PRE_COMMIT || event == XACT_EVENT_PARALLEL_PRE_COMMIT ||
		event == XACT_EVENT_PRE_PREPARE)
	{
		commit_outer = replorigin_session_origin;
		replorigin_session_origin = InvalidRepOriginId;
		commit_unmarked = true;
	}
	else
	{
		if (commit_unmarked)
			replorigin_session_origin = commit_outer;
		commit_unmarked = false;
		not_own_in_xact = false;
	}
}

static void
register_xact_callback(void)
{
	if (!own_writes_callback)
	{
		RegisterXactCallback(own_writes_xact_callback, NULL);
		own_writes_callback = true;
	}
}

uint16
dv_cdc_own_writes_begin(void)
{
	RepOriginId previous = replorigin_session_origin;

	register_xact_callback();
	if (!own_writes_open)
	{
		own_writes_outer = previous;
		own_writes_open = true;
	}
	replorigin_session_origin = DoNotReplicateId;
	return previous;
}

void
dv_cdc_own_writes_end(uint16 previous)
{
	replorigin_session_origin = previous;
	if (previous == own_writes_outer)
		own_writes_open = false;
}

/*
 * dv_cdc_writes_not_own_begin - the change records this backend writes from
 * now on are not dynview's own (they are decoded as any) until
 * dv_cdc_own_writes_end(previous), which the caller must also reach on
 * error: for a statement that may run user code where writes are otherwise
 * marked, as the decoder worker's UPDATEs of dynview.dynamic_table_catalog
 * (a DBA's trigger on it fires there).  The transaction's commit record is
 * then written unmarked too.  Returns the origin to restore.
 */
uint16
dv_cdc_writes_not_own_begin(void)
{
	RepOriginId previous = replorigin_session_origin;

	register_xact_callback();
	/* (and the commit record: own_writes_xact_callback) */
	not_own_in_xact = true;
	replorigin_session_origin = InvalidRepOriginId;
	return previous;
}

/*
 * dv_cdc_own_writes_always - every write of this process is dynview's own
 * (the decoder worker: change buffers, their pruning, its state)
 */
void
dv_cdc_own_writes_always(void)
{
	replorigin_session_origin = DoNotReplicateId;
}

void
_PG_output_plugin_init(OutputPluginCallbacks *cb)
{
	cb->startup_cb = plugin_startup;
	cb->begin_cb = plugin_begin;
	cb->change_cb = plugin_change;
	cb->truncate_cb = plugin_truncate;
	cb->commit_cb = plugin_commit;
	cb->shutdown_cb = plugin_shutdown;
	cb->filter_by_origin_cb = plugin_filter_by_origin;
	cb->stream_start_cb = plugin_stream_start;
	cb->stream_stop_cb = plugin_stream_stop;
	cb->stream_change_cb = plugin_stream_change;
	cb->stream_truncate_cb = plugin_stream_truncate;
	cb->stream_abort_cb = plugin_stream_abort;
	cb->stream_commit_cb = plugin_stream_commit;
}
