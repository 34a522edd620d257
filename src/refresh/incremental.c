/*-------------------------------------------------------------------------
 *
 * incremental.c
 *	  Incremental refresh of one dynamic table (design sections 5 and 6),
 *	  and the change buffer that a dynamic table's refreshes write for its
 *	  downstream tables.
 *
 * The window is the snapshot, not an LSN range:
 *	1. S_new is the pipeline's snapshot; L the WAL insert position read after
 *	   it (refresh.c).
 *	2. The decoder is waited for until it has committed the buffers of
 *	   every transaction in the window (all committed before L): up to the
 *	   WAL flush position, which synchronous commits have passed, or up to
 *	   the commit of an asynchronous one beyond it, flushed first
 *	   (capture_target).
 *	3. The delta of a source is the buffer rows whose transaction is visible
 *	   in S_new (or is the refreshing transaction itself) and not visible in
 *	   the previous data snapshot S_prev (or was the previous refreshing
 *	   transaction).  Buffers are read with a fresh snapshot (the decoder
 *	   wrote them after S_new) into ephemeral named relations dv_delta_<n>;
 *	   the delta statements then read sources at S_new.
 *	4. The result's delta is applied to the table (SPJ: the consolidated
 *	   weighted rows; GROUPED: the affected groups recomputed and diffed),
 *	   and written into the table's own buffer if a downstream reads it.
 * No lock is taken on sources.  Whatever cannot be done incrementally
 * returns false with a reason, and the caller refreshes in full.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"
#include "commands/matview.h"
#include "executor/executor.h"
#include "tcop/tcopprot.h"

#include "access/clog.h"
#include "access/detoast.h"
#include "access/heapam.h"
#include "access/tableam.h"
#include "access/htup_details.h"
#include "access/relation.h"
#include "access/table.h"
#include "access/transam.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "common/hashfn.h"
#include "common/int.h"
#include "catalog/namespace.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "nodes/supportnodes.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/plancat.h"
#include "parser/parse_coerce.h"
#include "parser/parse_relation.h"
#include "rewrite/rewriteManip.h"
#include "storage/bufmgr.h"
#include "storage/lock.h"
#include "storage/proc.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/ruleutils.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/pg_lsn.h"
#include "utils/queryenvironment.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/selfuncs.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/tuplestore.h"
#include "utils/typcache.h"
#include "utils/xid8.h"

#include "dynview.h"
#include "analyze/delta.h"
#include "analyze/optree.h"
#include "cdc/cdc.h"

/*
 * the change buffer of a source or dynamic table, InvalidOid if none, as it
 * is (rows an upstream's refresh in this pipeline kept back may be missing
 * from it: buffer_of)
 */
static Oid
buffer_lookup(Oid relid)
{
	Oid			nsp = get_namespace_oid(DV_BUFFER_SCHEMA, true);

	if (!OidIsValid(nsp))
		return InvalidOid;
	return get_relname_relid(psprintf("changes_%u", relid), nsp);
}


/*
 * the change buffer of a source or dynamic table, InvalidOid if none, with
 * every row written to it: what a refresh of the table in this pipeline
 * kept back (see The handoff) is written first.  Every look at a buffer's
 * rows goes through here but the two that know of the rows kept back
 * (dv_refresh_incremental's look for buffers with rows, read_and_apply's
 * take of the kept rows).
 */
static Oid
buffer_of(Oid relid)
{
	dv_handoff_flush(relid);
	return buffer_lookup(relid);
}

/* the current top-level transaction as an xid8 (assigning its xid) */
static uint64
own_xid8(void)
{
	return dv_widen_xid(GetTopTransactionId());
}

/*
 * may the session's user see how many changes relid had (the DEBUG1 lines
 * of the handoff)?  As refresh_history shows a table's counts: to those who
 * may SELECT it (superusers pass).  A pipeline refreshes upstreams its
 * caller may not read.
 */
static bool
may_see_counts(Oid relid)
{
	return pg_class_aclcheck(relid, GetSessionUserId(), ACL_SELECT) == ACLCHECK_OK;
}

/* is xid an element of the xid8[] text "{a,b,c}"? */
static bool
xid_in_list(const char *list, uint64 xid)
{
	char	   *item = psprintf(UINT64_FORMAT, xid);
	size_t		len = strlen(item);

	for (const char *p = strstr(list, item); p != NULL; p = strstr(p + 1, item))
	{
		if ((p[-1] == '{' || p[-1] == ',') && (p[len] == '}' || p[len] == ','))
			return true;
	}
	return false;
}

/*
 * The tuplestores behind the ephemeral named relations of this transaction,
 * so that dv_unregister_tuples can free them: a large one spills to a
 * temporary file, which would otherwise stay open until the end of the
 * transaction ("temporary file leak" warnings at commit).
 *
 * A relation registered in a subtransaction that aborted (a refresh that
 * failed in a PL/pgSQL exception block, in a scheduled pipeline's
 * subtransaction, or read as it is, refresh_as_is) is marked aborted by
 * forget_aborted_subxact: its store is not freed again (the abort closed a
 * spilled store's file; the memory goes with its context), and its name,
 * which an SPI connection that outlived the subtransaction may still hold,
 * is unregistered before the name is registered again (dv_register_tuples)
 * or at once by dv_forget_aborted_tuples.
 */
typedef struct RegisteredTuples
{
	char		name[NAMEDATALEN];
	LocalTransactionId lxid;
	SubTransactionId subid;		/* where it was registered */
	bool		aborted;		/* that subtransaction (or one above it) aborted */
	Tuplestorestate *store;
	char	   *shape;			/* column types and size class (dv_registered_tuples_shape) */
	TupleDesc	desc;			/* the relation's, as registered (its memory is the store's) */
	uint64		ntuples;
	bool		statistics;		/* dynview.delta_statistics when registered */
	double	   *distinct;		/* per column: distinct non-NULL values, -1 unknown, -2 not counted */
	double	   *nulls;			/* per column: NULLs counted */
} RegisteredTuples;

static List *registered_tuples = NIL;	/* in TopMemoryContext */

static char *relation_shape(const char *name, TupleDesc desc, uint64 n, bool statistics);

/* free an entry of registered_tuples (not its store) */
static void
free_entry(RegisteredTuples *entry)
{
	pfree(entry->shape);
	pfree(entry->distinct);
	pfree(entry->nulls);
	pfree(entry);
}

/* is entry a live relation of this transaction? */
static bool
registered_now(RegisteredTuples *entry)
{
	return entry->lxid == MyProc->lxid && !entry->aborted;
}

/* a subtransaction aborted: what it (or a subtransaction of it) registered is stale */
static void
forget_aborted_subxact(SubXactEvent event, SubTransactionId mySubid,
					   SubTransactionId parentSubid, void *arg)
{
	ListCell   *lc;

	if (event != SUBXACT_EVENT_ABORT_SUB)
		return;
	foreach(lc, registered_tuples)
	{
		RegisteredTuples *entry = lfirst(lc);

		if (entry->lxid == MyProc->lxid && entry->subid >= mySubid)
		{
			entry->aborted = true;
			entry->store = NULL;
		}
	}
}

/* a DestReceiver callback with nothing to do */
static void
receiver_nothing(DestReceiver *self)
{
}

/*
 * dv_dest_receiver_init - set up self, the DestReceiver that a receiver of
 * ours embeds as its first member: its callbacks and its CommandDest.  A
 * NULL shutdown or destroy does nothing (a receiver whose results outlive
 * the statement: they belong to the caller).
 */
void
dv_dest_receiver_init(DestReceiver *self, CommandDest mydest,
					  void (*startup) (DestReceiver *self, int operation, TupleDesc typeinfo),
					  bool (*receive) (TupleTableSlot *slot, DestReceiver *self),
					  void (*shutdown) (DestReceiver *self),
					  void (*destroy) (DestReceiver *self))
{
	self->rStartup = startup;
	self->receiveSlot = receive;
	self->rShutdown = shutdown ? shutdown : receiver_nothing;
	self->rDestroy = destroy ? destroy : receiver_nothing;
	self->mydest = mydest;
}

/*
 * dv_register_tuples - the rows of SPI_tuptable as the ephemeral named relation
 * `name` of the current SPI connection.
 */
void
dv_register_tuples(const char *name)
{
	Tuplestorestate *ts = tuplestore_begin_heap(false, false, work_mem);

	for (uint64 i = 0; i < SPI_processed; i++)
		tuplestore_puttuple(ts, SPI_tuptable->vals[i]);
	dv_register_store(name, ts, SPI_tuptable->tupdesc, SPI_processed);
}

/*
 * dv_register_store - the ntuples rows of the tuplestore ts (made in the
 * current SPI connection's procedure memory, rows of shape desc) as the
 * ephemeral named relation `name` of that connection; the relation owns ts
 * from here on.
 */
void
dv_register_store(const char *name, Tuplestorestate *ts, TupleDesc desc, uint64 ntuples)
{
	static bool callback_registered = false;
	EphemeralNamedRelation enr = palloc0(sizeof(EphemeralNamedRelationData));
	MemoryContext old;
	RegisteredTuples *entry;
	ListCell   *lc;
	int			rc;

	if (!callback_registered)
	{
		RegisterSubXactCallback(forget_aborted_subxact, NULL);
		callback_registered = true;
	}
	enr->md.name = pstrdup(name);
	enr->md.reliddesc = InvalidOid;
	enr->md.tupdesc = CreateTupleDescCopy(desc);
	enr->md.enrtype = ENR_NAMED_TUPLESTORE;
	enr->md.enrtuples = (double) ntuples;
	enr->reldata = ts;
	rc = SPI_register_relation(enr);
	if (rc == SPI_ERROR_REL_DUPLICATE)
	{
		/* (the connection outlived an aborted registration of the name: that one is stale) */
		foreach(lc, registered_tuples)
		{
			RegisteredTuples *stale = lfirst(lc);

			if (stale->lxid == MyProc->lxid && stale->aborted && strcmp(stale->name, name) == 0)
			{
				SPI_unregister_relation(name);
				rc = SPI_register_relation(enr);
				break;
			}
		}
	}
	if (rc != SPI_OK_REL_REGISTER)
		elog(ERROR, "could not register %s: %s", name, SPI_result_code_string(rc));

	/*
	 * Forget entries of earlier transactions, and one of the same name: the
	 * registration just succeeded, so that one's relation is gone or was
	 * aborted (its store freed with its subtransaction's memory or file)
	 * and must not be freed again.
	 */
	foreach(lc, registered_tuples)
	{
		RegisteredTuples *stale = lfirst(lc);

		if (stale->lxid != MyProc->lxid || strcmp(stale->name, name) == 0)
		{
			registered_tuples = foreach_delete_current(registered_tuples, lc);
			free_entry(stale);
		}
	}
	old = MemoryContextSwitchTo(TopMemoryContext);
	entry = palloc(sizeof(RegisteredTuples));
	strlcpy(entry->name, name, NAMEDATALEN);
	entry->lxid = MyProc->lxid;
	entry->subid = GetCurrentSubTransactionId();
	entry->aborted = false;
	entry->store = ts;
	entry->statistics = dv_delta_statistics;
	entry->shape = relation_shape(name, enr->md.tupdesc, ntuples, entry->statistics);
	entry->desc = enr->md.tupdesc;
	entry->ntuples = ntuples;
	entry->distinct = palloc(sizeof(double) * Max(desc->natts, 1));
	entry->nulls = palloc(sizeof(double) * Max(desc->natts, 1));
	for (int i = 0; i < desc->natts; i++)
		entry->distinct[i] = -2;
	registered_tuples = lappend(registered_tuples, entry);
	MemoryContextSwitchTo(old);
}

/*
 * dv_registered_column_stats - for the planner (deltastats.c): the number of
 * distinct non-NULL values (*distinct) and NULLs (*nulls) of column attno of
 * the ephemeral relation `name` registered in this transaction with
 * dynview.delta_statistics on, of ntuples rows whose columns have the types
 * coltypes (a list of type OIDs, the range table entry's); false when there
 * is none such, when its store is not in memory or holds more than
 * DV_DELTA_STATISTICS_MAX_ROWS rows, or when the column's type has no btree
 * ordering.  Counted once per registration (dv_store_distinct, under the
 * column's collation); the count is kept with the entry.
 */
#define DV_DELTA_STATISTICS_MAX_ROWS 100000
bool
dv_registered_column_stats(const char *name, List *coltypes, double ntuples, int attno,
						   double *distinct, double *nulls)
{
	RegisteredTuples *found = NULL;
	ListCell   *lc;

	foreach(lc, registered_tuples)
	{
		RegisteredTuples *entry = lfirst(lc);

		if (registered_now(entry) && strcmp(entry->name, name) == 0)
			found = entry;
	}
	if (found == NULL || !found->statistics || (double) found->ntuples != ntuples ||
		found->ntuples > DV_DELTA_STATISTICS_MAX_ROWS || found->store == NULL ||
		!tuplestore_in_memory(found->store) ||
		attno < 1 || attno > found->desc->natts || list_length(coltypes) != found->desc->natts)
		return false;
	for (int i = 0; i < found->desc->natts; i++)
	{
		if (TupleDescAttr(found->desc, i)->atttypid != list_nth_oid(coltypes, i))
			return false;
	}
	if (found->distinct[attno - 1] == -2)
	{
		found->distinct[attno - 1] =
			dv_store_distinct(found->store, found->desc, attno,
							  TupleDescAttr(found->desc, attno - 1)->attcollation,
							  &found->nulls[attno - 1]);
		/* (counts of a source's changes: a superuser's diagnostic, see may_see_counts) */
		if (found->distinct[attno - 1] >= 0 && superuser_arg(GetSessionUserId()))
			ereport(DEBUG1,
					(errmsg_internal("the planner is given statistics of column \"%s\" of \"%s\": %.0f distinct values and %.0f NULLs in " UINT64_FORMAT " rows",
									 NameStr(TupleDescAttr(found->desc, attno - 1)->attname), name,
									 found->distinct[attno - 1], found->nulls[attno - 1], found->ntuples)));
	}
	if (found->distinct[attno - 1] < 0)
		return false;
	*distinct = found->distinct[attno - 1];
	*nulls = found->nulls[attno - 1];
	return true;
}

/*
 * dv_forget_aborted_tuples - after an error caught in a subtransaction of
 * the current SPI connection: the ephemeral relations registered in it are
 * unregistered, their stores not freed (the subtransaction's abort closed a
 * spilled store's file; the memory goes with the transaction's)
 */
void
dv_forget_aborted_tuples(void)
{
	ListCell   *lc;

	foreach(lc, registered_tuples)
	{
		RegisteredTuples *entry = lfirst(lc);

		if (entry->lxid != MyProc->lxid || !entry->aborted)
			continue;
		SPI_unregister_relation(entry->name);
		registered_tuples = foreach_delete_current(registered_tuples, lc);
		free_entry(entry);
	}
}

/*
 * relation_shape - "name(type/typmod/collation,...)*class;" of an ephemeral
 * relation of n rows: what a statement parsed against it depends on
 * (statements.c).  The class is the row count's order of magnitude by
 * factors of sqrt(10) (0 for fewer than 4 rows): the planner's estimate
 * of the relation is the count at parse time; "s" follows it when the
 * planner is given the relation's column statistics (deltastats.c), on which
 * a plan depends too.  Palloc'd in the current memory context.
 */
static char *
relation_shape(const char *name, TupleDesc desc, uint64 n, bool statistics)
{
	StringInfoData buf;
	int			class = 0;

	initStringInfo(&buf);
	appendStringInfo(&buf, "%s(", name);
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		appendStringInfo(&buf, "%u/%d/%u,", att->atttypid, att->atttypmod, att->attcollation);
	}
	for (double bound = 3.1622776601683795; (double) n >= bound; bound *= 3.1622776601683795)
		class++;
	appendStringInfo(&buf, ")*%d%s;", class, statistics ? "s" : "");
	return buf.data;
}

/*
 * dv_registered_tuples_shape - append to buf the shapes of the ephemeral
 * relations registered in this transaction whose name the text sql
 * contains (a name that is part of a longer one is taken too: that only
 * makes the key longer).
 */
void
dv_registered_tuples_shape(const char *sql, StringInfo buf)
{
	ListCell   *lc;

	foreach(lc, registered_tuples)
	{
		RegisteredTuples *entry = lfirst(lc);

		if (registered_now(entry) && strstr(sql, entry->name) != NULL)
			appendStringInfoString(buf, entry->shape);
	}
}

/*
 * dv_unregister_tuples - forget the ephemeral named relation `name` of the
 * current SPI connection and free its rows (and temporary file).
 */
void
dv_unregister_tuples(const char *name)
{
	ListCell   *lc;

	SPI_unregister_relation(name);
	foreach(lc, registered_tuples)
	{
		RegisteredTuples *entry = lfirst(lc);

		if (entry->lxid == MyProc->lxid && strcmp(entry->name, name) == 0)
		{
			if (!entry->aborted)
				tuplestore_end(entry->store);
			registered_tuples = foreach_delete_current(registered_tuples, lc);
			free_entry(entry);
			break;
		}
	}
}

/*
 * Rows written to a change buffer per heap_multi_insert call: the slots of
 * one batch are kept until the call (COPY's batches are of this order too).
 */
#define DV_BUFFER_BATCH 1000

/*
 * The handoff (issue 14): inside one pipeline (dv_refresh_pipeline: one
 * transaction, one snapshot, upstreams first), what a refresh of a dynamic
 * table writes into its own change buffer is kept in memory too, so that a
 * downstream refreshed after it in the same pipeline takes its window of
 * that table from memory instead of reading the buffer back (the dashboard's
 * GMV layer read the ~1,300 rows its detail layer had just written, each
 * refresh).
 *
 * The buffer is written only when some reader may need the rows there.
 * When every dynamic table that reads the table is in this pipeline (the
 * target's upstream closure: the refreshes after it), the rows are kept
 * back (deferred): a reader that takes them from memory reads nothing of
 * the buffer; any other look at the buffer's rows (a consolidated read,
 * the look for rows of a window, a FULL-mode reader's look for changes,
 * verify) goes through buffer_of, which writes what was kept back first.
 * When the pipeline ends (dv_handoff_end), what was kept back and not
 * written is dropped if every reader of the table was refreshed in it (the
 * readers' data snapshots now count this transaction as seen, so no later
 * window holds the rows), and written otherwise (a scheduled reader that
 * failed in its subtransaction, or was skipped).  A reader created
 * meanwhile waits: its build locks its upstreams as a pipeline does, and
 * takes its snapshot after this transaction.  Rows written in a
 * subtransaction that aborted are written again when needed; rows kept by a
 * refresh that aborted are dropped.  The transaction watch counts the
 * table as written when its refresh keeps the rows (dv_watch_written), as
 * when it writes them.
 *
 * The kept rows are the whole window only when the downstream's window of
 * the upstream's buffer holds nothing but what this transaction wrote.  It
 * does when both tables have the same data snapshot and own xids (they were
 * last refreshed together): a buffer row of an earlier refresh of the
 * upstream is visible in that snapshot (that refresh committed before the
 * last one took the table's lock, then its snapshot) or is the last
 * refresh's own (its xid among the own xids), and the window excludes both.
 * Neither table may have been refreshed before in this transaction, whose
 * rows of then carry the same xid.  Rows kept in a subtransaction that
 * aborted were rolled back from the buffer: the upstream's kept rows are
 * then not used, nor when they would take more than work_mem; the
 * downstream reads the buffer.  A window read as it is (raw) is the kept
 * rows; a consolidated one is consolidated from them as from a window read
 * once for several occurrences of a source (read_window's from_enr).
 */
typedef struct Handoff
{
	Oid			relid;			/* the upstream dynamic table */
	char	   *data_snapshot;	/* its data snapshot before this refresh */
	char	   *data_own_xids;
	TupleDesc	desc;			/* its buffer's columns */
	MinimalTuple *tuples;		/* the rows written, in the buffer's layout */
	uint64		ntuples;
	uint64		size;			/* of tuples[] */
	Size		bytes;
	SubTransactionId last_subid;	/* the latest subtransaction a row was kept in */
	bool		usable;			/* nothing kept was rolled back, nor too much */
	bool		complete;		/* its refresh finished (dv_handoff_complete) */
	bool		deferred;		/* its rows reach the buffer only when needed */
	uint64		nflushed;		/* tuples[0..nflushed) deferred and written since */
	SubTransactionId flush_subid;	/* where they were written */
	List	   *readers;		/* the dynamic tables that read it (dv_catalog_readers) */
} Handoff;

static struct
{
	LocalTransactionId lxid;	/* the pipeline's transaction; invalid: none */
	SubTransactionId subid;		/* where the pipeline began */
	Oid			target;			/* the table refreshed: nothing after it reads it */
	List	   *members;		/* the pipeline's tables (OIDs) */
	MemoryContext cxt;			/* in TopTransactionContext */
	List	   *entries;		/* of Handoff * */
} handoff = {InvalidLocalTransactionId, InvalidSubTransactionId, InvalidOid, NIL, NULL, NIL};

static void handoff_discard(void);
static void handoff_flush(Handoff *h);

static bool
handoff_active(void)
{
	return handoff.lxid == MyProc->lxid && handoff.cxt != NULL;
}

/* a subtransaction aborted: kept rows it wrote are gone from the buffer */
static void
handoff_subxact_abort(SubXactEvent event, SubTransactionId mySubid,
					  SubTransactionId parentSubid, void *arg)
{
	ListCell   *lc;

	if (event != SUBXACT_EVENT_ABORT_SUB || !handoff_active())
		return;
	if (mySubid <= handoff.subid)
	{
		/* the pipeline's own (its memory goes with the transaction) */
		handoff.lxid = InvalidLocalTransactionId;
		handoff.cxt = NULL;
		handoff.entries = NIL;
		return;
	}
	foreach(lc, handoff.entries)
	{
		Handoff    *h = lfirst(lc);

		if (h->last_subid >= mySubid)
		{
			/* (rows kept back by the refresh that aborted: dropped with it) */
			h->usable = false;
			h->deferred = false;
			h->ntuples = h->nflushed = 0;
		}
		else if (h->nflushed > 0 && h->flush_subid >= mySubid)
			h->nflushed = 0;	/* (written in vain: again when needed) */
	}
}

/*
 * dv_handoff_begin - a pipeline of target and its upstreams starts: what
 * their refreshes write into their own buffers is kept for the downstreams
 * refreshed after them, until dv_handoff_end.  The target's rows are not
 * kept: no table of the pipeline reads it (every other one is read by a
 * table after it, the pipeline being target's upstream closure).
 */
void
dv_handoff_begin(Oid target, List *members)
{
	MemoryContext old;

	static bool callback_registered = false;

	if (!callback_registered)
	{
		RegisterSubXactCallback(handoff_subxact_abort, NULL);
		callback_registered = true;
	}
	handoff_discard();
	handoff.cxt = AllocSetContextCreate(TopTransactionContext, "dynview handoff", ALLOCSET_DEFAULT_SIZES);
	handoff.lxid = MyProc->lxid;
	handoff.subid = GetCurrentSubTransactionId();
	handoff.target = target;
	old = MemoryContextSwitchTo(handoff.cxt);
	handoff.members = list_copy(members);
	MemoryContextSwitchTo(old);
	handoff.entries = NIL;
}

/*
 * dv_handoff_end - the pipeline ended (done: the tables it refreshed): what
 * a refresh kept back is dropped when every reader of its table is among
 * done, and written to the buffer otherwise; nothing more is kept
 */
void
dv_handoff_end(List *done)
{
	ListCell   *lc;

	if (!handoff_active())
		return;
	foreach(lc, handoff.entries)
	{
		Handoff    *h = lfirst(lc);
		ListCell   *lr;
		bool		consumed = true;

		if (!h->deferred || h->nflushed >= h->ntuples)
			continue;
		foreach(lr, h->readers)
		{
			if (!list_member_oid(done, lfirst_oid(lr)))
				consumed = false;
		}
		if (!consumed)
			handoff_flush(h);
		else if (may_see_counts(h->relid))
			ereport(DEBUG1,
					(errmsg_internal("dynamic table \"%s\": its " UINT64_FORMAT " changes of this pipeline were not written to its change buffer: every reader was refreshed after it",
									 get_rel_name(h->relid), h->ntuples - h->nflushed)));
	}
	handoff_discard();
}

/* forget what is kept (no pipeline runs, or a new one starts) */
static void
handoff_discard(void)
{
	if (handoff_active())
		MemoryContextDelete(handoff.cxt);
	handoff.lxid = InvalidLocalTransactionId;
	handoff.cxt = NULL;
	handoff.members = NIL;
	handoff.entries = NIL;
}

static Handoff *
handoff_entry(Oid relid)
{
	ListCell   *lc;

	foreach(lc, handoff.entries)
	{
		Handoff    *h = lfirst(lc);

		if (h->relid == relid)
			return h;
	}
	return NULL;
}

/*
 * dv_handoff_complete - the refresh of relid in the pipeline succeeded:
 * its kept rows may be read by its downstreams.
 */
void
dv_handoff_complete(Oid relid)
{
	Handoff    *h;

	if (handoff_active() && (h = handoff_entry(relid)) != NULL)
		h->complete = true;
}

/* have a and b the same columns (names, types, dropped ones)? (not their constraints) */
static bool
same_columns(TupleDesc a, TupleDesc b)
{
	if (a->natts != b->natts)
		return false;
	for (int i = 0; i < a->natts; i++)
	{
		Form_pg_attribute x = TupleDescAttr(a, i);
		Form_pg_attribute y = TupleDescAttr(b, i);

		if (x->attisdropped != y->attisdropped || x->atttypid != y->atttypid ||
			x->atttypmod != y->atttypmod || x->attcollation != y->attcollation ||
			strcmp(NameStr(x->attname), NameStr(y->attname)) != 0)
			return false;
	}
	return true;
}

/*
 * handoff_start - dv_write_own_buffer is about to write rows into dt's
 * buffer rel: the entry that keeps them (handoff_keep), or NULL when none
 * is kept (no pipeline, or the entry is no longer usable)
 */
static Handoff *
handoff_start(DvTable *dt, Relation rel)
{
	Handoff    *h;

	if (!handoff_active() || dt->relid == handoff.target)
		return NULL;
	h = handoff_entry(dt->relid);
	if (h == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(handoff.cxt);

		h = palloc0(sizeof(Handoff));
		h->relid = dt->relid;
		h->usable = dt->data_snapshot != NULL;
		h->data_snapshot = dt->data_snapshot ? pstrdup(dt->data_snapshot) : NULL;
		h->data_own_xids = pstrdup(dt->data_own_xids ? dt->data_own_xids : "{}");
		h->desc = CreateTupleDescCopy(RelationGetDescr(rel));
		h->size = 256;
		h->tuples = palloc(sizeof(MinimalTuple) * h->size);
		handoff.entries = lappend(handoff.entries, h);
		/* (no new reader commits while the pipeline holds the table's lock) */
		h->readers = h->usable ? dv_catalog_readers(dt->relid) : NIL;
		MemoryContextSwitchTo(old);
		/* (kept back when every reader of the table is refreshed after it in this pipeline) */
		if (h->usable)
		{
			ListCell   *lc;

			h->deferred = true;
			foreach(lc, h->readers)
			{
				if (!list_member_oid(handoff.members, lfirst_oid(lc)))
					h->deferred = false;
			}
		}
	}
	h->last_subid = Max(h->last_subid, GetCurrentSubTransactionId());
	/* (a refresh that gave the table new column types changed its buffer's: nothing kept) */
	if (h->usable && !same_columns(h->desc, RelationGetDescr(rel)))
	{
		if (h->deferred && h->nflushed < h->ntuples)
			elog(ERROR, "change buffer of %u changed its columns while rows of it were kept back", dt->relid);
		h->usable = false;
		h->deferred = false;
	}
	return h->usable ? h : NULL;
}

/* keep a row (slot, in the buffer's layout) that dv_write_own_buffer writes */
static void
handoff_keep(Handoff *h, TupleTableSlot *slot)
{
	MemoryContext old;
	MinimalTuple tuple;

	if (!h->usable)
		return;
	old = MemoryContextSwitchTo(handoff.cxt);

	/*
	 * (a value stored outside the row, in a source's TOAST table, is copied
	 * in, as the buffer's own write does: the row must not depend on it)
	 */
	for (int c = 0; c < h->desc->natts; c++)
	{
		Form_pg_attribute att = TupleDescAttr(h->desc, c);

		if (att->attlen == -1 && !slot->tts_isnull[c] &&
			VARATT_IS_EXTERNAL(DatumGetPointer(slot->tts_values[c])))
			slot->tts_values[c] = PointerGetDatum(detoast_external_attr((struct varlena *) DatumGetPointer(slot->tts_values[c])));
	}
	tuple = ExecCopySlotMinimalTuple(slot);
	h->bytes += tuple->t_len;
	if (h->bytes > (Size) work_mem * 1024)
	{
		/*
		 * too much to keep: the downstreams read the buffer; what was kept
		 * back is written first (this row on, the caller writes)
		 */
		if (h->deferred)
		{
			handoff_flush(h);
			h->deferred = false;
		}
		h->usable = false;
		for (uint64 i = 0; i < h->ntuples; i++)
			pfree(h->tuples[i]);
		pfree(tuple);
		h->ntuples = h->nflushed = 0;
	}
	else
	{
		if (h->ntuples == h->size)
		{
			h->size *= 2;
			h->tuples = repalloc_huge(h->tuples, sizeof(MinimalTuple) * h->size);
		}
		h->tuples[h->ntuples++] = tuple;
	}
	MemoryContextSwitchTo(old);
}

/*
 * What writing rows into a change buffer in batches holds (dv_write_own_buffer,
 * handoff_flush): heap_multi_insert with a bulk-insert state, as COPY does.
 * The slots share a copy of the buffer's descriptor, not reference counted:
 * a slot of the relcache's own descriptor pins it in the resource owner,
 * whose release of each of a thousand pins searches the list of them.
 */
typedef struct BufferBatches
{
	TupleDesc	desc;
	TupleTableSlot **slots;
	int			nslots;
	BulkInsertState bistate;
	MemoryContext batch_context;	/* what writing a batch allocates: the
									 * tuples formed, their toasted values */
} BufferBatches;

static void
buffer_batches_begin(BufferBatches *b, Relation rel, uint64 ntuples, const TupleTableSlotOps *ops)
{
	b->desc = CreateTupleDescCopy(RelationGetDescr(rel));
	b->nslots = (int) Min(ntuples, (uint64) DV_BUFFER_BATCH);
	b->slots = palloc(sizeof(TupleTableSlot *) * b->nslots);
	for (int i = 0; i < b->nslots; i++)
		b->slots[i] = MakeSingleTupleTableSlot(b->desc, ops);
	b->bistate = GetBulkInsertState();
	b->batch_context = AllocSetContextCreate(CurrentMemoryContext, "dynview change buffer batch",
											 ALLOCSET_DEFAULT_SIZES);
}

static void
buffer_batches_end(BufferBatches *b)
{
	FreeBulkInsertState(b->bistate);
	for (int i = 0; i < b->nslots; i++)
		ExecDropSingleTupleTableSlot(b->slots[i]);
	FreeTupleDesc(b->desc);
	MemoryContextDelete(b->batch_context);
}

/*
 * handoff_flush - write the rows h kept back and has not written yet into
 * its table's buffer, as dv_write_own_buffer would have (dynview's origin,
 * in batches).  While its refresh still runs (not complete), its later rows
 * are written as they come.
 */
static void
handoff_flush(Handoff *h)
{
	Oid			buffer = buffer_lookup(h->relid);
	Relation	rel;
	BufferBatches b;
	CommandId	cid = GetCurrentCommandId(true);
	uint16		save_origin;

	if (!h->deferred || h->nflushed >= h->ntuples)
		return;
	if (!OidIsValid(buffer))
		elog(ERROR, "change buffer of %u is missing", h->relid);
	if (may_see_counts(h->relid))
		ereport(DEBUG1,
				(errmsg_internal("dynamic table \"%s\": its " UINT64_FORMAT " changes of this pipeline kept back are written to its change buffer",
								 get_rel_name(h->relid), h->ntuples - h->nflushed)));
	rel = table_open(buffer, RowExclusiveLock);
	if (!same_columns(h->desc, RelationGetDescr(rel)))
		elog(ERROR, "change buffer of %u changed its columns while rows of it were kept back", h->relid);
	buffer_batches_begin(&b, rel, h->ntuples - h->nflushed, &TTSOpsMinimalTuple);
	save_origin = dv_cdc_own_writes_begin();
	PG_TRY();
	{
		uint64		done = h->nflushed;

		while (done < h->ntuples)
		{
			int			n = (int) Min(h->ntuples - done, (uint64) b.nslots);
			MemoryContext old = MemoryContextSwitchTo(b.batch_context);

			for (int k = 0; k < n; k++)
				ExecStoreMinimalTuple(h->tuples[done + k], b.slots[k], false);
			heap_multi_insert(rel, b.slots, n, cid, 0, b.bistate);
			for (int k = 0; k < n; k++)
				ExecClearTuple(b.slots[k]);
			MemoryContextSwitchTo(old);
			MemoryContextReset(b.batch_context);
			done += n;
		}
	}
	PG_FINALLY();
	{
		dv_cdc_own_writes_end(save_origin);
	}
	PG_END_TRY();
	buffer_batches_end(&b);
	table_close(rel, NoLock);
	h->nflushed = h->ntuples;
	h->flush_subid = GetCurrentSubTransactionId();
	if (!h->complete)
		h->deferred = false;
	CommandCounterIncrement();
}

/*
 * dv_handoff_flush - write what a refresh of relid in this pipeline kept
 * back from its buffer (buffer_of; before the buffer's columns change)
 */
void
dv_handoff_flush(Oid relid)
{
	Handoff    *h;

	if (handoff_active() && (h = handoff_entry(relid)) != NULL)
		handoff_flush(h);
}

/* has a refresh of relid in this pipeline kept rows back from its buffer? */
static bool
handoff_pending(Oid relid)
{
	Handoff    *h;

	return handoff_active() && (h = handoff_entry(relid)) != NULL &&
		h->deferred && h->nflushed < h->ntuples;
}

/*
 * handoff_for - the kept rows of upstream that are dt's whole window of it
 * (see Handoff), or NULL
 */
static Handoff *
handoff_for(DvTable *dt, Oid upstream)
{
	Handoff    *h;

	if (!handoff_active() || (h = handoff_entry(upstream)) == NULL)
		return NULL;
	if (!h->usable || !h->complete || dt->data_snapshot == NULL)
		return NULL;
	if (strcmp(dt->data_snapshot, h->data_snapshot) != 0 ||
		strcmp(dt->data_own_xids ? dt->data_own_xids : "{}", h->data_own_xids) != 0)
		return NULL;
	if (dv_refreshed_in_this_transaction(dt))
		return NULL;
	return h;
}

/*
 * read_handoff - src's window read as it is (as read_window with raw) from
 * the kept rows h: the source's columns src->columns and dv_weight (int8),
 * typed as the buffer's columns, registered as src->enr_name.  Returns the
 * rows' count; *weight_sum their weights summed.
 */
static int64
read_handoff(DvPlanSource *src, Handoff *h, int64 *weight_sum)
{
	int			ncols = list_length(src->columns);
	TupleDesc	desc = CreateTemplateTupleDesc(ncols + 1);
	int		   *map = palloc(sizeof(int) * ncols);
	Datum	   *values = palloc(sizeof(Datum) * (ncols + 1));
	bool	   *nulls = palloc(sizeof(bool) * (ncols + 1));
	Tuplestorestate *store = tuplestore_begin_heap(false, false, work_mem);
	TupleTableSlot *slot = MakeSingleTupleTableSlot(h->desc, &TTSOpsMinimalTuple);
	ListCell   *lc;
	int			i = 0;

	foreach(lc, src->columns)
	{
		const char *name = strVal(lfirst(lc));

		map[i] = -1;
		for (int c = DV_BUFFER_META_COLS; c < h->desc->natts; c++)
		{
			Form_pg_attribute att = TupleDescAttr(h->desc, c);

			if (!att->attisdropped && strcmp(NameStr(att->attname), name) == 0)
			{
				map[i] = c;
				TupleDescInitEntry(desc, i + 1, name, att->atttypid, att->atttypmod, 0);
				TupleDescInitEntryCollation(desc, i + 1, att->attcollation);
			}
		}
		if (map[i] < 0)
			elog(ERROR, "change buffer of %u has no column \"%s\"", h->relid, name);
		i++;
	}
	TupleDescInitEntry(desc, ncols + 1, "dv_weight", INT8OID, -1, 0);
	*weight_sum = 0;
	for (uint64 r = 0; r < h->ntuples; r++)
	{
		int16		weight;

		ExecStoreMinimalTuple(h->tuples[r], slot, false);
		slot_getallattrs(slot);
		for (int k = 0; k < ncols; k++)
		{
			values[k] = slot->tts_values[map[k]];
			nulls[k] = slot->tts_isnull[map[k]];
		}
		/* (dv_weight: the fifth own column, where dv_write_own_buffer puts it) */
		weight = DatumGetInt16(slot->tts_values[4]);
		values[ncols] = Int64GetDatum((int64) weight);
		nulls[ncols] = false;
		tuplestore_putvalues(store, desc, values, nulls);
		*weight_sum += weight;
	}
	ExecDropSingleTupleTableSlot(slot);
	src->window_filtered = false;
	dv_register_store(src->enr_name, store, desc, h->ntuples);
	src->delta_store = store;
	src->delta_desc = desc;
	src->delta_distinct = NIL;
	return (int64) h->ntuples;
}

/*
 * dv_write_own_buffer - append the rows of tuptable (rows of the dynamic
 * table, e.g. what a refresh deleted or inserted) to the table's change
 * buffer with the given weight, as changes of the current transaction.
 * Nothing if no downstream reads the table (no buffer).
 *
 * The rows are written in batches with heap_multi_insert and a bulk-insert
 * state, as COPY does: a change buffer has no index, trigger or constraint
 * (nothing of the sort sees a row), and a batch fills a page with one WAL
 * record and one buffer lookup instead of one per row (issue 14: a refresh
 * of a layer that downstream tables read wrote its rows one heap_insert
 * each).  The records carry dynview's origin, which the decoder filters.
 */
void
dv_write_own_buffer(DvTable *dt, SPITupleTable *tuptable, uint64 ntuples, int weight, int32 *seq)
{
	Oid			buffer = buffer_lookup(dt->relid);
	Relation	rel;
	TupleDesc	bdesc;
	TupleDesc	sdesc = tuptable->tupdesc;
	int		   *map;
	Datum	   *svalues;
	bool	   *snulls;
	uint64		xid = own_xid8();
	CommandId	cid = GetCurrentCommandId(true);
	TimestampTz start = GetCurrentTransactionStartTimestamp();
	uint16		save_origin;
	BufferBatches b;
	Handoff    *kept;

	if (!OidIsValid(buffer) || ntuples == 0)
		return;
	/* downstreams refreshed earlier in this transaction must not skip these rows */
	dv_watch_written(dt->relid);
	rel = table_open(buffer, RowExclusiveLock);
	dv_buffer_check_layout(rel);
	bdesc = RelationGetDescr(rel);
	/* (and kept in memory for the downstreams refreshed after it in this pipeline) */
	kept = handoff_start(dt, rel);
	map = palloc(sizeof(int) * bdesc->natts);
	for (int i = 0; i < bdesc->natts; i++)
	{
		map[i] = -1;
		for (int j = 0; i >= DV_BUFFER_META_COLS && j < sdesc->natts; j++)
			if (strcmp(NameStr(TupleDescAttr(bdesc, i)->attname), NameStr(TupleDescAttr(sdesc, j)->attname)) == 0)
				map[i] = j;
	}
	svalues = palloc(sizeof(Datum) * sdesc->natts);
	snulls = palloc(sizeof(bool) * sdesc->natts);
	buffer_batches_begin(&b, rel, ntuples, &TTSOpsVirtual);
	/* (heap_multi_insert runs no user code: always dynview's own write) */
	save_origin = dv_cdc_own_writes_begin();
	PG_TRY();
	{
		uint64		done = 0;

		while (done < ntuples)
		{
			int			n = (int) Min(ntuples - done, (uint64) b.nslots);
			MemoryContext old = MemoryContextSwitchTo(b.batch_context);

			/* (the rows from first_written on go to the buffer now; kept back, none) */
			int			first_written = kept && kept->deferred ? n : 0;

			for (int k = 0; k < n; k++)
			{
				TupleTableSlot *slot = b.slots[k];

				ExecClearTuple(slot);
				heap_deform_tuple(tuptable->vals[done + k], sdesc, svalues, snulls);
				slot->tts_values[0] = UInt64GetDatum(xid);
				slot->tts_values[1] = LSNGetDatum(InvalidXLogRecPtr);
				slot->tts_values[2] = TimestampTzGetDatum(start);
				slot->tts_values[3] = Int32GetDatum((*seq)++);
				slot->tts_values[4] = Int16GetDatum((int16) weight);
				slot->tts_values[5] = ObjectIdGetDatum(dt->relid);
				for (int c = 0; c < DV_BUFFER_META_COLS; c++)
					slot->tts_isnull[c] = false;
				/* (dv_marker: a change row) */
				slot->tts_values[6] = (Datum) 0;
				slot->tts_isnull[6] = true;
				for (int c = DV_BUFFER_META_COLS; c < bdesc->natts; c++)
				{
					slot->tts_isnull[c] = map[c] < 0 || snulls[map[c]];
					slot->tts_values[c] = slot->tts_isnull[c] ? (Datum) 0 : svalues[map[c]];
				}
				ExecStoreVirtualTuple(slot);
				if (kept)
				{
					bool		was_deferred = kept->deferred;

					handoff_keep(kept, slot);
					/* (too much to keep: the rows before were written, this one on are) */
					if (was_deferred && !kept->deferred)
						first_written = k;
				}
			}
			if (first_written < n)
				heap_multi_insert(rel, b.slots + first_written, n - first_written, cid, 0, b.bistate);
			MemoryContextSwitchTo(old);
			MemoryContextReset(b.batch_context);
			done += n;
		}
	}
	PG_FINALLY();
	{
		dv_cdc_own_writes_end(save_origin);
	}
	PG_END_TRY();
	buffer_batches_end(&b);
	table_close(rel, NoLock);
	CommandCounterIncrement();
}

/*
 * The window of the data snapshot S_prev (with the xids it consumed as its
 * own, $2 and $3) to S_new ($4, with the current transaction's xid as $1):
 * buffer rows whose transaction S_new sees and S_prev did not.
 *
 * WINDOW_CONDITION is what every window read runs (read_window): one call
 * per buffer row of dynview._window_contains (dynview_window_contains),
 * which parses the window's operands once per statement and then decides
 * each row with window_contains, the C spelling that the scans asking only
 * whether a buffer holds a row of the window use too (window_has_row).
 * WINDOW_CONDITION_SNAPSHOTS is design section 5's wording spelled with
 * PostgreSQL's own functions (pg_visible_in_snapshot, = ANY); window reads
 * ran it until the seventeenth session, when its five function calls and
 * two array scans per row were most of a warm refresh's window read
 * (bench/README.md).  It stays as the reference the others are checked
 * against: window_transactions lists the transactions of the window from
 * the same snapshots, the operands of all of them come from one place
 * (window_texts: the snapshots' and xid lists' text), and regress
 * window_spellings compares WINDOW_CONDITION, WINDOW_CONDITION_SNAPSHOTS
 * and window_contains (dynview._window_membership, and the function on its
 * own with operands changing from row to row) over xids around every bound
 * of many snapshots, wraparound-adjacent epochs included: change one of
 * them, and change the others with it.
 */
#define WINDOW_CONDITION \
	"dv_xid >= $5::pg_catalog.xid8 " \
	"AND dynview._window_contains(dv_xid, $2::pg_catalog.pg_snapshot, $3::pg_catalog.xid8[], " \
	"                             $4::pg_catalog.pg_snapshot, $1::pg_catalog.xid8[])"

#define WINDOW_CONDITION_SNAPSHOTS \
	"dv_xid >= $5::pg_catalog.xid8 " \
	"AND (pg_catalog.pg_visible_in_snapshot(dv_xid, $4::pg_catalog.pg_snapshot) " \
	"       OR dv_xid = ANY ($1::pg_catalog.xid8[])) " \
	"AND NOT (pg_catalog.pg_visible_in_snapshot(dv_xid, $2::pg_catalog.pg_snapshot) " \
	"         OR dv_xid = ANY ($3::pg_catalog.xid8[]))"

/*
 * $5 is the data snapshot's xmin: pg_visible_in_snapshot(x, S_prev) is true
 * for every x below it, so no row of the window has a smaller dv_xid (the
 * bound follows from the condition's own "AND NOT visible in S_prev", and
 * holds whatever the own-xid lists say).  Tested first, it passes over the
 * rows that this table consumed but another reader of the buffer still
 * holds with one comparison, and it gives the planner an estimate from the
 * column's statistics (a function's call has none: a third).  (An index on
 * dv_xid would let a read skip them altogether; measured in bench/README.md,
 * its upkeep doubled the decoder's CPU per captured row, so buffers have
 * none.)
 */
#define WINDOW_NARGS 5


/* parse "a,b,c" or "{a,b,c}" of xid8s into a palloc'd array; returns the count */
static int
parse_xid8_list(const char *text, uint64 **xids)
{
	int			n = 0;
	int			size = 8;
	const char *p = text;

	*xids = palloc(sizeof(uint64) * size);
	while (*p)
	{
		char	   *end;
		uint64		v;

		if (*p == '{' || *p == '}' || *p == ',' || *p == ' ')
		{
			p++;
			continue;
		}
		v = strtou64(p, &end, 10);
		if (end == p)
			elog(ERROR, "invalid xid8 list \"%s\"", text);
		if (n == size)
		{
			size *= 2;
			*xids = repalloc(*xids, sizeof(uint64) * size);
		}
		(*xids)[n++] = v;
		p = end;
	}
	return n;
}

/* is v one of the n xids? */
static bool
xid8_among(uint64 v, const uint64 *xids, int n)
{
	for (int i = 0; i < n; i++)
		if (xids[i] == v)
			return true;
	return false;
}

/* the pg_snapshot text "xmin:xmax:xip,..." parsed */
typedef struct Xid8Snapshot
{
	uint64		xmin;
	uint64		xmax;
	uint64	   *xip;
	int			nxip;
} Xid8Snapshot;

static void
parse_snapshot_text(const char *text, Xid8Snapshot *snap)
{
	char	   *end;
	const char *p = text;

	snap->xmin = strtou64(p, &end, 10);
	if (end == p || *end != ':')
		elog(ERROR, "invalid snapshot \"%s\"", text);
	p = end + 1;
	snap->xmax = strtou64(p, &end, 10);
	if (end == p || *end != ':')
		elog(ERROR, "invalid snapshot \"%s\"", text);
	snap->nxip = parse_xid8_list(end + 1, &snap->xip);
}

/*
 * The operands of the window from dt's data snapshot to snapshot, as text:
 * the pg_snapshot texts of S_prev and S_new and the xid8[] texts of the
 * xids each counts as its own (S_prev: the refresh that took it; S_new:
 * the current transaction, its xid assigned).  Both spellings of the
 * window (WINDOW_CONDITION's parameters, window_contains's bounds) are
 * made from these, and nothing else.
 */
typedef struct WindowTexts
{
	const char *prev;			/* S_prev, "xmin:xmax:xip,..." */
	const char *prev_own;		/* "{x,...}" */
	const char *cur;			/* S_new */
	const char *cur_own;		/* "{x}" */
} WindowTexts;

static void
window_texts(DvTable *dt, Snapshot snapshot, WindowTexts *w)
{
	if (dt->data_snapshot == NULL)
		elog(ERROR, "dynamic table %u has no data snapshot to read a window from", dt->relid);
	w->prev = dt->data_snapshot;
	w->prev_own = dt->data_own_xids ? dt->data_own_xids : "{}";
	w->cur = dv_snapshot_to_text(snapshot);
	w->cur_own = psprintf("{" UINT64_FORMAT "}", own_xid8());
}

/*
 * window_parameters_of - the parameters of WINDOW_CONDITION, and their
 * types: the xid lists are passed as xid8[] values and the snapshots as
 * pg_snapshot values, not as text, since a cast of a parameter from text
 * is not folded into a constant in a generic plan (which a kept plan
 * becomes after a few executions in one backend, as in the scheduler): it
 * was evaluated for every buffer row
 */
static void
window_parameters_of(const WindowTexts *w, Datum *values, Oid *types)
{
	Xid8Snapshot prev;

	types[0] = XID8ARRAYOID;
	values[0] = OidInputFunctionCall(F_ARRAY_IN, (char *) w->cur_own, XID8OID, -1);
	types[1] = PG_SNAPSHOTOID;
	values[1] = DirectFunctionCall1(pg_snapshot_in, CStringGetDatum(w->prev));
	types[2] = XID8ARRAYOID;
	values[2] = OidInputFunctionCall(F_ARRAY_IN, (char *) w->prev_own, XID8OID, -1);
	types[3] = PG_SNAPSHOTOID;
	values[3] = DirectFunctionCall1(pg_snapshot_in, CStringGetDatum(w->cur));
	types[4] = XID8OID;
	parse_snapshot_text(w->prev, &prev);
	values[4] = FullTransactionIdGetDatum(FullTransactionIdFromU64(prev.xmin));
}

static void
window_parameters(DvTable *dt, Snapshot snapshot, Datum *values, Oid *types)
{
	WindowTexts w;

	window_texts(dt, snapshot, &w);
	window_parameters_of(&w, values, types);
}

/* pg_visible_in_snapshot(v, snap) */
static bool
xid8_visible(uint64 v, const Xid8Snapshot *snap)
{
	if (v < snap->xmin)
		return true;
	return v < snap->xmax && !xid8_among(v, snap->xip, snap->nxip);
}

/* the window parsed for window_contains */
typedef struct WindowBounds
{
	Xid8Snapshot prev;
	uint64	   *prev_own;
	int			nprev_own;
	Xid8Snapshot cur;
	uint64	   *cur_own;
	int			ncur_own;
} WindowBounds;

static void
window_bounds_of(const WindowTexts *w, WindowBounds *b)
{
	parse_snapshot_text(w->prev, &b->prev);
	b->nprev_own = parse_xid8_list(w->prev_own, &b->prev_own);
	parse_snapshot_text(w->cur, &b->cur);
	b->ncur_own = parse_xid8_list(w->cur_own, &b->cur_own);
}

/*
 * window_contains - WINDOW_CONDITION_SNAPSHOTS in C, term by term: is a
 * buffer row of transaction v in the window?  Keep the two in step (see
 * WINDOW_CONDITION; regress window_spellings compares them).
 */
static bool
window_contains(const WindowBounds *b, uint64 v)
{
	/* dv_xid >= $5 */
	if (v < b->prev.xmin)
		return false;
	/* AND (pg_visible_in_snapshot(dv_xid, $4) OR dv_xid = ANY ($1)) */
	if (!(xid8_visible(v, &b->cur) || xid8_among(v, b->cur_own, b->ncur_own)))
		return false;
	/* AND NOT (pg_visible_in_snapshot(dv_xid, $2) OR dv_xid = ANY ($3)) */
	return !(xid8_visible(v, &b->prev) || xid8_among(v, b->prev_own, b->nprev_own));
}

/*
 * The window's operands as dynview_window_contains last parsed them: the
 * bytes of its arguments prev, prev_own, cur and cur_own (their data, not
 * their headers, which may be short or long for one value) and the bounds
 * window_bounds_of made of them, in cxt (emptied at each new parse, so that
 * operands changing from row to row use no more memory than one set).
 * Kept in the call's fn_extra, in its fn_mcxt, as long as the expression
 * state lives (one statement; a PL/pgSQL simple expression's, a whole
 * transaction): trusted without comparing only when every operand is a
 * constant (window_operand_const).
 */
#define WINDOW_OPERANDS 4

typedef struct WindowCache
{
	bool		valid;
	bool		stable;			/* operands constants of the expression */
	MemoryContext cxt;			/* bytes and bounds */
	char	   *bytes[WINDOW_OPERANDS];
	Size		len[WINDOW_OPERANDS];
	WindowBounds bounds;
} WindowCache;

/* are the argument's bytes those cached for operand i? */
static bool
window_operand_same(WindowCache *cache, int i, Datum arg)
{
	/* (a compressed or out-of-line value: compared after detoasting) */
	struct varlena *v = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(arg));

	return VARSIZE_ANY_EXHDR(v) == cache->len[i] &&
		memcmp(VARDATA_ANY(v), cache->bytes[i], cache->len[i]) == 0;
}

/* parse the operands of fcinfo into cache (in its cxt) */
static void
window_cache_fill(WindowCache *cache, FunctionCallInfo fcinfo)
{
	MemoryContext old;
	WindowTexts w;

	cache->valid = false;
	if (cache->cxt == NULL)
		cache->cxt = AllocSetContextCreate(fcinfo->flinfo->fn_mcxt, "dynview window operands",
										   ALLOCSET_SMALL_SIZES);
	MemoryContextReset(cache->cxt);
	old = MemoryContextSwitchTo(cache->cxt);
	for (int i = 0; i < WINDOW_OPERANDS; i++)
	{
		struct varlena *v = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(PG_GETARG_DATUM(i + 1)));

		cache->len[i] = VARSIZE_ANY_EXHDR(v);
		cache->bytes[i] = palloc(Max(cache->len[i], 1));
		memcpy(cache->bytes[i], VARDATA_ANY(v), cache->len[i]);
	}
	if (array_contains_nulls(PG_GETARG_ARRAYTYPE_P(2)) || array_contains_nulls(PG_GETARG_ARRAYTYPE_P(4)))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("prev_own and cur_own must not contain NULL"),
				 errhint("Pass transaction ids only.")));
	w.prev = DatumGetCString(DirectFunctionCall1(pg_snapshot_out, PG_GETARG_DATUM(1)));
	w.prev_own = OidOutputFunctionCall(F_ARRAY_OUT, PG_GETARG_DATUM(2));
	w.cur = DatumGetCString(DirectFunctionCall1(pg_snapshot_out, PG_GETARG_DATUM(3)));
	w.cur_own = OidOutputFunctionCall(F_ARRAY_OUT, PG_GETARG_DATUM(4));
	window_bounds_of(&w, &cache->bounds);
	cache->valid = true;
	MemoryContextSwitchTo(old);
}

/*
 * window_operand_const - is argument argnum of the call flinfo evaluates a
 * constant of its expression?  Only such an operand is parsed once and
 * trusted for the life of fn_extra: a parameter is not.  PL/pgSQL
 * evaluates a simple expression (an assignment, an IF condition) with one
 * expression state for the whole transaction, its variables being
 * parameters whose values change from call to call (regress
 * brk18_window_contains), so get_fn_expr_arg_stable's "constant or
 * parameter" does not mean "the same at every call".
 */
static bool
window_operand_const(FmgrInfo *flinfo, int argnum)
{
	Node	   *expr = flinfo->fn_expr;
	List	   *args;

	if (expr == NULL || !IsA(expr, FuncExpr))
		return false;
	args = ((FuncExpr *) expr)->args;
	return argnum < list_length(args) && IsA(list_nth(args, argnum), Const);
}

/*
 * dynview._window_contains(xid xid8, prev pg_snapshot, prev_own xid8[],
 * cur pg_snapshot, cur_own xid8[]) - is a buffer row of transaction xid in
 * the window from prev (with the xids its refresh counted as its own) to
 * cur (with the current transaction's)?  window_contains, with the
 * operands parsed once and kept in fn_extra while they stay the same: for
 * as long as fn_extra lives when they are constants of the expression
 * (window_operand_const), else while their bytes are those parsed last
 * (compared at each call, a few short memcmp: a window read's operands are
 * its statement's parameters, the same for all its rows; a call whose
 * operands change from row to row, or a PL/pgSQL variable's value from
 * call to call, is parsed again).  WINDOW_CONDITION's per-row test: one
 * function call instead of WINDOW_CONDITION_SNAPSHOTS' several and its
 * array scans.  Strict; immutable (its result follows from its arguments
 * alone).
 */
PG_FUNCTION_INFO_V1(dynview_window_contains);

Datum
dynview_window_contains(PG_FUNCTION_ARGS)
{
	uint64		v = U64FromFullTransactionId(PG_GETARG_FULLTRANSACTIONID(0));
	WindowCache *cache = (WindowCache *) fcinfo->flinfo->fn_extra;

	if (cache == NULL)
	{
		cache = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(WindowCache));
		cache->stable = true;
		for (int i = 1; i <= WINDOW_OPERANDS; i++)
			cache->stable &= window_operand_const(fcinfo->flinfo, i);
		fcinfo->flinfo->fn_extra = cache;
	}
	/* (a window read's operands are its parameters: parsed at its first row, then compared) */
	if (!cache->valid ||
		(!cache->stable &&
		 (!window_operand_same(cache, 0, PG_GETARG_DATUM(1)) ||
		  !window_operand_same(cache, 1, PG_GETARG_DATUM(2)) ||
		  !window_operand_same(cache, 2, PG_GETARG_DATUM(3)) ||
		  !window_operand_same(cache, 3, PG_GETARG_DATUM(4)))))
		window_cache_fill(cache, fcinfo);
	PG_RETURN_BOOL(window_contains(&cache->bounds, v));
}

/*
 * window_transactions - the transactions in the window from dt's data
 * snapshot to snapshot: the xids (as xid8) that snapshot sees
 * (pg_visible_in_snapshot) and the data snapshot does not count as seen
 * (visible in it, or one of the xids it recorded as its own).  Committed or
 * aborted, every transaction that ended between the two snapshots has an
 * xid in [xmax of the data snapshot, xmax of snapshot) or in the data
 * snapshot's in-progress list, so looking at those is enough.  Returns
 * their number, the xids in *xids (palloc'd), or -1 when dt has no data
 * snapshot or the window holds more than max transactions.
 */
static int
window_transactions(DvTable *dt, Snapshot snapshot, int max, uint64 **xids)
{
	Xid8Snapshot prev;
	Xid8Snapshot cur;
	uint64	   *own;
	int			nown;
	int			n = 0;

	if (!dt->has_data_snapshot || dt->data_snapshot == NULL)
		return -1;
	parse_snapshot_text(dt->data_snapshot, &prev);
	parse_snapshot_text(dv_snapshot_to_text(snapshot), &cur);
	nown = parse_xid8_list(dt->data_own_xids ? dt->data_own_xids : "{}", &own);
	*xids = palloc(sizeof(uint64) * (max + 1));

	/* transactions in progress at the data snapshot that snapshot sees */
	for (int i = 0; i < prev.nxip; i++)
	{
		if (xid8_visible(prev.xip[i], &cur) && !xid8_among(prev.xip[i], own, nown))
		{
			if (n == max)
				return -1;
			(*xids)[n++] = prev.xip[i];
		}
	}
	/* transactions that started after the data snapshot and ended before snapshot */
	if (cur.xmax > prev.xmax)
	{
		/* more xids than can be excused or listed: too many */
		if (cur.xmax - prev.xmax > (uint64) (cur.nxip + nown + max - n))
			return -1;
		for (uint64 v = prev.xmax; v < cur.xmax; v++)
		{
			if (!xid8_among(v, cur.xip, cur.nxip) && !xid8_among(v, own, nown))
			{
				if (n == max)
					return -1;
				(*xids)[n++] = v;
			}
		}
	}
	return n;
}

/*
 * window_is_empty - does the window from dt's data snapshot to snapshot
 * hold no transaction (window_transactions)?  Then no buffer row of a
 * source that is not a dynamic table is in it (WINDOW_CONDITION): a row's
 * dv_xid is its source transaction's, and the current transaction's own
 * ($1) are there only if it wrote the source, which makes the caller
 * refresh in full (SOURCE_CHANGED_IN_TRANSACTION) before it asks.  (A
 * dynamic table's buffer may hold rows of the current transaction, written
 * by its upstream's refresh in the same pipeline, so it is read in any
 * case.)  A NO_DATA refresh then reads no buffer: its cost does not follow
 * the buffers' size.
 */
static bool
window_is_empty(DvTable *dt, Snapshot snapshot)
{
	uint64	   *xids;

	return window_transactions(dt, snapshot, 0, &xids) == 0;
}

/*
 * buffer_is_empty - has the buffer no page at all (never written, or
 * truncated by the decoder once pruning emptied it)?  Asked after the
 * refresh waited for the decoder, whose buffer rows of the window are then
 * committed (and their pages there); with the lock a read of the buffer
 * takes, so that no truncation is under way.  Such a buffer holds no row
 * of any window, and a refresh need not plan and run a statement to find
 * that out (which a new connection pays in full).
 */
static bool
buffer_is_empty(Oid buffer)
{
	Relation	rel = try_table_open(buffer, AccessShareLock);
	bool		empty;

	if (rel == NULL)
		return false;
	empty = RelationGetNumberOfBlocks(rel) == 0;
	table_close(rel, NoLock);
	return empty;
}

/*
 * window_known_empty - is src's window empty without a statement to find
 * that out: src is not a dynamic table and is not among `buffered`, the
 * sources whose buffer has a page, as dv_refresh_incremental found them
 * (buffer_is_empty, asked once per source and refresh: after the wait for
 * the decoder, and the lock taken then stays until the transaction ends;
 * NIL when no source's window has a transaction, see window_is_empty)?  A
 * dynamic table's buffer is read in any case, as its upstream may have
 * written it in this transaction.  Then sets what an empty window reads
 * as, delta_rows 0 and no relation registered: the operators read no delta
 * of a source with delta_rows 0.  Saves a new connection parsing, planning
 * and running a window read (TPC-H: part, supplier, partsupp, customer,
 * nation and region do not change; Q8 read eight windows, six of them of
 * empty buffers).  The one place read_and_apply decides so.
 */
static bool
window_known_empty(DvPlanSource *src, List *buffered)
{
	if (dv_is_dynamic_table(src->relid) || list_member_ptr(buffered, src))
		return false;
	src->delta_rows = 0;
	return true;
}

/*
 * window_read_snapshot - the snapshot every read of a window in the change
 * buffers reads with (read_window, window_has_row): one taken now
 * (GetLatestSnapshot, after a CommandCounterIncrement: this transaction's
 * own writes included), not the transaction's.  In a REPEATABLE READ or
 * SERIALIZABLE transaction that snapshot predates the rows the decoder
 * wrote into the buffers for the changes it sees, and a window read with it
 * missed them (a refresh said NO_DATA for a change its data snapshot
 * counted as applied, leaving the table wrong for good: regress
 * repeatable_read_refresh).  The window's own xid conditions pick the rows,
 * so rows committed later are never taken.  The result is static: register
 * or push it before taking another.
 */
static Snapshot
window_read_snapshot(void)
{
	CommandCounterIncrement();
	return GetLatestSnapshot();
}

/*
 * window_has_row - has the buffer a row in dt's window to snapshot
 * (WINDOW_CONDITION) of the kind asked for: any, of weight <= 0, a marker
 * (weight 0, plugin.c), or a marker of one cause (its dv_marker, cdc.h)?
 * logged_relid valid: only rows logged under that relation (dv_relid, as
 * a FROM ONLY reader reads).  The
 * condition evaluated in C over a scan of the buffer, which sees what
 * "SELECT 1 FROM <buffer> WHERE [dv_weight <= 0 AND] WINDOW_CONDITION
 * LIMIT 1" run as a window read (read_window) saw: window_read_snapshot, the
 * AccessShareLock a SELECT takes, kept to the end of the transaction, and
 * no row-level security (the statement ran as the bootstrap superuser).
 * Each such statement was parsed, analysed and planned once per backend
 * and buffer: 2-4 ms of a new connection's first refresh for each buffer a
 * refresh looked into (bench/README.md, eleventh session).  Stops at the
 * first row found.
 */
typedef enum WindowRowKind
{
	WINDOW_ROW_ANY,
	WINDOW_ROW_NONPOSITIVE,		/* dv_weight <= 0 */
	WINDOW_ROW_MARKER,			/* dv_weight = 0 */
	WINDOW_ROW_TRUNCATE,		/* dv_weight = 0 AND dv_marker = DV_MARKER_TRUNCATE */
	WINDOW_ROW_NO_OLD_ROW		/* dv_weight = 0 AND dv_marker = DV_MARKER_NO_OLD_ROW */
} WindowRowKind;

static bool
window_has_row(DvTable *dt, Oid buffer, Snapshot snapshot, WindowRowKind kind, Oid logged_relid)
{
	WindowTexts w;
	WindowBounds bounds;
	Relation	rel;
	TableScanDesc scan;
	TupleTableSlot *slot;
	Snapshot	read_snapshot;
	AttrNumber	xid_att;
	AttrNumber	weight_att;
	AttrNumber	relid_att;
	AttrNumber	marker_att;
	bool		found = false;

	window_texts(dt, snapshot, &w);
	window_bounds_of(&w, &bounds);

	read_snapshot = RegisterSnapshot(window_read_snapshot());
	rel = table_open(buffer, AccessShareLock);
	xid_att = attnameAttNum(rel, "dv_xid", false);
	weight_att = attnameAttNum(rel, "dv_weight", false);
	if (xid_att <= 0 || weight_att <= 0 ||
		TupleDescAttr(RelationGetDescr(rel), xid_att - 1)->atttypid != XID8OID ||
		TupleDescAttr(RelationGetDescr(rel), weight_att - 1)->atttypid != INT2OID)
		elog(ERROR, "change buffer \"%s\" lacks its dv_xid or dv_weight column", RelationGetRelationName(rel));
	dv_buffer_check_layout(rel);
	relid_att = attnameAttNum(rel, "dv_relid", false);
	marker_att = attnameAttNum(rel, "dv_marker", false);
	slot = table_slot_create(rel, NULL);
	scan = table_beginscan(rel, read_snapshot, 0, NULL);
	while (!found && table_scan_getnextslot(scan, ForwardScanDirection, slot))
	{
		bool		isnull;
		Datum		d = slot_getattr(slot, xid_att, &isnull);
		uint64		v;

		CHECK_FOR_INTERRUPTS();
		if (isnull)
			continue;			/* (NOT NULL column: never) */
		v = U64FromFullTransactionId(DatumGetFullTransactionId(d));
		if (!window_contains(&bounds, v))
			continue;
		if (kind != WINDOW_ROW_ANY)
		{
			d = slot_getattr(slot, weight_att, &isnull);
			if (isnull || DatumGetInt16(d) > 0 ||
				(kind != WINDOW_ROW_NONPOSITIVE && DatumGetInt16(d) != 0))
				continue;
		}
		if (kind == WINDOW_ROW_TRUNCATE || kind == WINDOW_ROW_NO_OLD_ROW)
		{
			d = slot_getattr(slot, marker_att, &isnull);
			if (isnull || DatumGetChar(d) != (kind == WINDOW_ROW_TRUNCATE ? DV_MARKER_TRUNCATE :
											  DV_MARKER_NO_OLD_ROW))
				continue;
		}
		if (OidIsValid(logged_relid))
		{
			d = slot_getattr(slot, relid_att, &isnull);
			if (isnull || DatumGetObjectId(d) != logged_relid)
				continue;
		}
		found = true;
	}
	table_endscan(scan);
	ExecDropSingleTupleTableSlot(slot);
	table_close(rel, NoLock);
	UnregisterSnapshot(read_snapshot);
	return found;
}

/*
 * dynview._window_membership(xids xid8[], prev pg_snapshot, prev_own xid8[],
 * cur pg_snapshot, cur_own xid8[]) - for each of xids, is a buffer row of
 * that transaction in the window from prev to cur by WINDOW_CONDITION and
 * by WINDOW_CONDITION_SNAPSHOTS (both run through SPI over the xids, with
 * the parameters window_parameters_of makes) and by window_contains (with
 * the bounds window_bounds_of makes)?  Rows (xid, by_sql, by_c,
 * by_snapshots), in the order of xids; for regress window_spellings, which
 * asks that the three never differ.  Needs no transaction state but SPI's.
 */
PG_FUNCTION_INFO_V1(dynview_window_membership);

Datum
dynview_window_membership(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	ArrayType  *xids = PG_GETARG_ARRAYTYPE_P(0);
	WindowTexts w;
	WindowBounds bounds;
	Datum		values[WINDOW_NARGS + 1];
	Oid			types[WINDOW_NARGS + 1];

	InitMaterializedSRF(fcinfo, 0);
	w.prev = DatumGetCString(DirectFunctionCall1(pg_snapshot_out, PG_GETARG_DATUM(1)));
	w.prev_own = OidOutputFunctionCall(F_ARRAY_OUT, PG_GETARG_DATUM(2));
	w.cur = DatumGetCString(DirectFunctionCall1(pg_snapshot_out, PG_GETARG_DATUM(3)));
	w.cur_own = OidOutputFunctionCall(F_ARRAY_OUT, PG_GETARG_DATUM(4));
	if (array_contains_nulls(DatumGetArrayTypeP(PG_GETARG_DATUM(2))) ||
		array_contains_nulls(DatumGetArrayTypeP(PG_GETARG_DATUM(4))))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("prev_own and cur_own must not contain NULL"),
				 errhint("Pass transaction ids only.")));
	window_bounds_of(&w, &bounds);
	window_parameters_of(&w, values, types);
	values[WINDOW_NARGS] = PointerGetDatum(xids);
	types[WINDOW_NARGS] = XID8ARRAYOID;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute_with_args("SELECT w.dv_xid, " WINDOW_CONDITION ", " WINDOW_CONDITION_SNAPSHOTS
							  " FROM pg_catalog.unnest($6::pg_catalog.xid8[]) WITH ORDINALITY AS w(dv_xid, n)"
							  " ORDER BY w.n",
							  WINDOW_NARGS + 1, types, values, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not evaluate the window condition");
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		bool		isnull;
		Datum		xid = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull);
		Datum		row[4];
		bool		nulls[4] = {false, false, false, false};

		if (isnull)
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("xids must not contain NULL"),
					 errhint("Pass transaction ids only.")));
		row[0] = xid;
		row[1] = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2, &nulls[1]);
		row[2] = BoolGetDatum(window_contains(&bounds, U64FromFullTransactionId(DatumGetFullTransactionId(xid))));
		row[3] = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 3, &nulls[3]);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, row, nulls);
	}
	SPI_finish();
	return (Datum) 0;
}

/* the most transactions of a window whose commit positions are looked up */
#define WINDOW_LOOKUPS_MAX 10000

/*
 * capture_target - the WAL position up to which the decoder must have
 * committed its buffers for the refresh of dt at snapshot to read its
 * window: InvalidXLogRecPtr when the window holds no transaction, else at
 * most lsn (the pipeline's L, after every commit snapshot sees).
 *
 * An empty window: no buffer row, written yet or not, can be in
 * WINDOW_CONDITION but for the current transaction's own ($1), so a refresh
 * need not wait for the decoder (design section 5, step 3 exists to have
 * the rows of the window's transactions in the buffers; an empty window has
 * none, and rows of a transaction that aborted count too: such a
 * transaction is in the window).  The caller has made sure that the current
 * transaction wrote no source.
 *
 * Waiting for L means flushing WAL up to L first (the decoder reads flushed
 * WAL): a WAL flush of its own in every refresh, although the commits that
 * matter are flushed already in the common case.  A transaction that
 * commits synchronously flushes its commit record before it becomes
 * visible (RecordTransactionCommit, then ProcArrayEndTransaction), so every
 * such commit that snapshot sees ends at or before the flush position read
 * now.  One that commits asynchronously (synchronous_commit = off) records
 * its commit record's end in the commit log's group LSN (which may also be
 * a later commit's of its group: a position too far, never too near).  So
 * the target is the flush position, or the furthest commit position of the
 * window's transactions beyond it (which dv_capture_wait then flushes), and
 * never more than L.  When the decoder has passed it, the refresh neither
 * flushes WAL nor waits.  A window with a transaction that did not commit
 * waits for L as before: an abort record is not flushed before its
 * transaction leaves the proc array, and the rows a streamed transaction
 * wrote to the buffers before it aborted (plugin.c) are deleted only when
 * the decoder reads that record; until then they match WINDOW_CONDITION,
 * which tests snapshots, not the commit log.  So does a window of more than
 * WINDOW_LOOKUPS_MAX transactions, or one with a transaction whose
 * commit-log page may be truncated.  Holds XactTruncationLock (shared)
 * while it looks up.
 */
static XLogRecPtr
capture_target(DvTable *dt, Snapshot snapshot, XLogRecPtr lsn)
{
	uint64	   *xids;
	int			n = window_transactions(dt, snapshot, WINDOW_LOOKUPS_MAX, &xids);
	XLogRecPtr	target;
	uint64		next;

	if (n == 0)
		return InvalidXLogRecPtr;
	if (n < 0 || GetFlushRecPtr(NULL) >= lsn)
		return lsn;
	target = InvalidXLogRecPtr;
	next = U64FromFullTransactionId(ReadNextFullTransactionId());
	LWLockAcquire(XactTruncationLock, LW_SHARED);
	for (int i = 0; i < n; i++)
	{
		TransactionId xid = XidFromFullTransactionId(FullTransactionIdFromU64(xids[i]));
		XLogRecPtr	commit;

		/* (a 32-bit xid compares with the oldest kept one only when it is recent) */
		if (xids[i] >= next || next - xids[i] > (uint64) 1 << 30 ||
			!TransactionIdIsNormal(xid) ||
			TransactionIdPrecedes(xid, ShmemVariableCache->oldestClogXid))
		{
			target = lsn;
			break;
		}
		/* (aborted, or cut off by a crash: its abort may lie beyond the flush) */
		if (TransactionIdGetStatus(xid, &commit) != TRANSACTION_STATUS_COMMITTED)
		{
			target = lsn;
			break;
		}
		if (commit > target)
			target = commit;
	}
	LWLockRelease(XactTruncationLock);

	/*
	 * The flush position read after the look-ups: a commit-log page written
	 * out (which forgets its group LSNs) was written after WAL was flushed
	 * up to them, so an asynchronous commit that no look-up saw is flushed
	 * by now.
	 */
	target = Max(target, GetFlushRecPtr(NULL));
	return Min(target, lsn);
}

/*
 * how long a refresh waits for the decoder to have its window in the
 * buffers (design section 5, step 3) before it gives up on reading them
 */
#define CAPTURE_WAIT_MS (60 * 1000L)

/*
 * wait_for_window - the refresh's wait for capture: wait (at most
 * timeout_ms) until the decoder has committed into the buffers every change
 * of the transactions in dt's window to snapshot, whose WAL position is lsn
 * (capture_target).  Returns false if it has not by then, or waits for this
 * transaction; true at once when the window holds no transaction (*empty
 * is then set, if given).  Every reader of the window waits here, so that
 * the refresh, the lookups beside it (a source truncated, sources
 * unchanged) and verify() agree on what "captured" means.
 */
static bool
wait_for_window(DvTable *dt, Snapshot snapshot, XLogRecPtr lsn, long timeout_ms, bool *empty)
{
	XLogRecPtr	target = capture_target(dt, snapshot, lsn);

	if (empty)
		*empty = XLogRecPtrIsInvalid(target);
	return XLogRecPtrIsInvalid(target) || dv_capture_wait(target, timeout_ms);
}

/*
 * find_scan_filters - the quals of the filters directly above the scan op of
 * the source whose window is enr_name, in the operator trees of plan (its
 * levels, branches, inputs and grouped subqueries); *found counts the scans
 * of that window.
 */
static void find_plan_scan_filters(DvPlan *plan, const char *enr_name, List **quals, int *found,
								   List **seen);

static void
find_scan_filters(DvOp *op, const char *enr_name, List **quals, int *found, List **seen)
{
	DvOp	   *below = op;
	List	   *chain = NIL;

	if (op == NULL)
		return;
	while (below->kind == DV_OP_FILTER)
	{
		chain = list_concat(chain, below->quals);
		below = below->left;
	}
	if (below->kind == DV_OP_SCAN)
	{
		if (strcmp(below->source->enr_name, enr_name) == 0)
		{
			(*found)++;
			*quals = chain;
		}
		return;
	}
	if (below != op)
	{
		find_scan_filters(below, enr_name, quals, found, seen);
		return;
	}
	switch (op->kind)
	{
		case DV_OP_JOIN:
			find_scan_filters(op->left, enr_name, quals, found, seen);
			find_scan_filters(op->right, enr_name, quals, found, seen);
			break;
		case DV_OP_GROUP:
			find_plan_scan_filters(op->inner, enr_name, quals, found, seen);
			break;
		default:
			break;
	}
}

static void
find_plan_scan_filters(DvPlan *plan, const char *enr_name, List **quals, int *found, List **seen)
{
	ListCell   *lc;

	/* (a plan may be reached twice: a branch list holding the plan itself) */
	if (plan == NULL || list_member_ptr(*seen, plan))
		return;
	*seen = lappend(*seen, plan);
	if (plan->tree && !list_member_ptr(*seen, plan->tree))
	{
		*seen = lappend(*seen, plan->tree);
		find_scan_filters(plan->tree, enr_name, quals, found, seen);
	}
	if (plan->node_op && !list_member_ptr(*seen, plan->node_op))
	{
		*seen = lappend(*seen, plan->node_op);
		find_scan_filters(plan->node_op, enr_name, quals, found, seen);
	}
	find_plan_scan_filters(plan->topn_input, enr_name, quals, found, seen);
	find_plan_scan_filters(plan->window_input, enr_name, quals, found, seen);
	foreach(lc, plan->branches)
		find_plan_scan_filters(lfirst(lc), enr_name, quals, found, seen);
}

/*
 * window_filter_conjuncts - the conjuncts of the query's filter on one
 * source that the window read may apply before consolidating (each
 * conjunct's SQL over the change buffer's columns, in the query's order;
 * *leakproof gets those that cannot fail).  Filtering first is exact: the
 * filter is a condition on each row, every consumer of the source's delta
 * reads it through that filter (the filter op is the scan op's only
 * parent), and rows consolidated together are identical, so they pass or
 * fail it alike.  It keeps the consolidation (a hash of every column read,
 * the largest per-row cost of a refresh of a single-source aggregate:
 * TPC-H Q6, Q14, Q19) and the joins to the rows the query can use.
 *
 * Which conjuncts: those dv_window_conjunct_kind allows (immutable
 * expressions of the row that the owner may execute: leakproof ones, and
 * with dynview.window_filter_functions those calling built-in functions
 * only, such as numeric comparisons or a date compared with a timestamp)
 * over plain columns of the source, of the same type and collation in the
 * buffer.  A built-in one may raise an error on a row that a later change
 * undid, or that another conjunct the read does not apply would have
 * rejected first: the read then falls back to the leakproof ones
 * (read_window).  The window read runs as the bootstrap superuser; the
 * functions it may call are built in or leakproof (which only a superuser
 * can declare), and the owner may execute each.
 */
static List *
window_filter_conjuncts(DvPlan *plan, DvPlanSource *src, Oid buffer, Oid owner, List **leakproof,
						bool *complete)
{
	List	   *quals = NIL;
	int			found = 0;
	ListCell   *lc;
	List	   *conjuncts = NIL;
	List	   *context;
	List	   *seen = NIL;
	int			nestlevel;

	*leakproof = NIL;
	*complete = false;
	find_plan_scan_filters(plan, src->enr_name, &quals, &found, &seen);
	if (found != 1 || quals == NIL)
		return NIL;
	context = deparse_context_for(get_rel_name(src->relid), src->relid);

	/*
	 * Deparsed under the search_path the window read runs with: under the
	 * caller's, an operator of a schema on it (one shadowing pg_catalog's
	 * "=") would be written unqualified and then read as pg_catalog's.  And
	 * in the output styles that read constants back exactly (a float under
	 * the caller's extra_float_digits = 0 lost digits).
	 */
	nestlevel = dv_safe_search_path_push();
	dv_set_output_styles();
	foreach(lc, quals)
	{
		Node	   *qual = copyObject(lfirst(lc));
		List	   *vars = NIL;
		ListCell   *lv;
		DvWindowConjunct kind = dv_window_conjunct_kind(qual, src->relid, owner);
		bool		fits = kind != DV_WINDOW_CONJUNCT_NONE;
		char	   *sql;

		if (fits)
			vars = pull_var_clause(qual, PVC_INCLUDE_AGGREGATES | PVC_INCLUDE_WINDOWFUNCS |
								   PVC_INCLUDE_PLACEHOLDERS);
		fits = fits && vars != NIL;
		foreach(lv, vars)
		{
			Var		   *var = lfirst(lv);
			char	   *name;
			AttrNumber	att;

			if (!fits)
				break;
			if (!IsA(var, Var))
			{
				fits = false;
				break;
			}
			name = var->varattno > 0 ? get_attname(src->relid, var->varattno, true) : NULL;
			att = name ? get_attnum(buffer, name) : InvalidAttrNumber;
			fits = var->varno == src->rtindex && var->varlevelsup == 0 && att != InvalidAttrNumber;
			if (fits)
			{
				Oid			type;
				int32		typmod;
				Oid			collation;

				/* (the conditions' collations are derived from the columns' anew) */
				get_atttypetypmodcoll(buffer, att, &type, &typmod, &collation);
				fits = type == var->vartype && collation == var->varcollid;
			}
		}
		if (!fits)
			continue;
		/* (named by the source's own columns, not by a join alias's) */
		foreach(lv, vars)
		{
			((Var *) lfirst(lv))->varnosyn = 0;
			((Var *) lfirst(lv))->varattnosyn = 0;
		}
		ChangeVarNodes(qual, src->rtindex, 1, 0);
		sql = psprintf("(%s)", deparse_expression(qual, context, false, false));
		conjuncts = lappend(conjuncts, sql);
		if (kind == DV_WINDOW_CONJUNCT_LEAKPROOF)
			*leakproof = lappend(*leakproof, sql);
	}
	dv_safe_search_path_pop(nestlevel);
	*complete = list_length(conjuncts) == list_length(quals);
	return conjuncts;
}

/*
 * source_filter_conjuncts - window_filter_conjuncts of src, computed once per
 * cached plan (its memory context), buffer, owner, setting of
 * dynview.window_filter_functions and row-level security state of the
 * source for the owner: each refresh, and each occurrence of a source read
 * more than once (shared_window), reads them from there (*leakproof: those
 * that cannot fail).  A change of what they depend on (the plan, a
 * function's rights, a source's or its buffer's columns, the owner, a
 * policy, the owner's role attributes) drops the plan
 * (refresh/plancache.c); the row-level security state, which decides
 * whether conjuncts that may fail are applied at all
 * (dv_window_conjunct_kind), is asked again at every refresh as well (a
 * few syscache lookups), so that the read never applies them to a source
 * whose security was enabled since, whatever invalidations arrived.
 */
static List *
source_filter_conjuncts(DvPlan *plan, DvPlanSource *src, Oid buffer, Oid owner, List **leakproof)
{
	int			rls = check_enable_rls(src->relid, owner, true);

	if (!src->filter_known || src->filter_buffer != buffer || src->filter_owner != owner ||
		src->filter_functions != dv_window_filter_functions || src->filter_rls != rls)
	{
		List	   *safe = NIL;
		bool		complete;
		List	   *conjuncts = window_filter_conjuncts(plan, src, buffer, owner, &safe, &complete);
		MemoryContext old = MemoryContextSwitchTo(GetMemoryChunkContext(src));
		ListCell   *lc;

		src->filter_conjuncts = NIL;
		src->filter_leakproof = NIL;
		foreach(lc, conjuncts)
		{
			char	   *sql = pstrdup(lfirst(lc));

			src->filter_conjuncts = lappend(src->filter_conjuncts, sql);
			if (list_member_ptr(safe, lfirst(lc)))
				src->filter_leakproof = lappend(src->filter_leakproof, sql);
		}
		src->filter_buffer = buffer;
		src->filter_owner = owner;
		src->filter_functions = dv_window_filter_functions;
		src->filter_complete = complete;
		src->filter_rls = rls;
		src->filter_known = true;
		MemoryContextSwitchTo(old);
	}
	*leakproof = src->filter_leakproof;
	return src->filter_conjuncts;
}

/* conjuncts (window_filter_conjuncts) ANDed, NULL if none */
static char *
conjuncts_sql(List *conjuncts)
{
	StringInfoData buf;
	ListCell   *lc;

	if (conjuncts == NIL)
		return NULL;
	initStringInfo(&buf);
	foreach(lc, conjuncts)
		appendStringInfo(&buf, "%s%s", buf.len > 0 ? " AND " : "", (char *) lfirst(lc));
	return buf.data;
}

PG_FUNCTION_INFO_V1(dynview_window_filtered);
PG_FUNCTION_INFO_V1(dynview_window_filtered_support);

/*
 * dynview._window_filtered(passes) - passes (strict: NULL for NULL, which a
 * WHERE rejects as it rejects the bare test).  The delta's filter over a
 * window whose read applied every conjunct of that filter
 * (DvPlanSource.window_filtered, optree.c delta_cte) is written through it.
 */
Datum
dynview_window_filtered(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(PG_GETARG_BOOL(0));
}

/*
 * dynview._window_filtered_support - its planner support: the selectivity
 * of the test is the planner's own guess for its argument, but not below
 * the guess it makes for a condition it knows nothing of (DEFAULT_INEQ_SEL,
 * 1/3).  The window's rows passed the test when read, so nearly all pass
 * it again; without statistics of a window the planner would guess an
 * equality with a constant to keep 1 row in 200 (TPC-H Q21's 1,031 changed
 * 'F' orders estimated at 5, joined with their lineitems by a nested loop).
 * Not 1: where the planner guesses 1/3 already (a range, two columns
 * compared) its plans over windows stay as they were; told that all 23,567
 * rows of TPC-H Q1's window pass, it sorted them for its GROUP BY instead
 * of hashing them (its guess of the groups grows with the rows), and Q4
 * joined its changed orders by a nested loop (measured, bench/README.md,
 * fourteenth session).  Estimates only: the test itself runs on every row.
 */
Datum
dynview_window_filtered_support(PG_FUNCTION_ARGS)
{
	Node	   *rawreq = (Node *) PG_GETARG_POINTER(0);

	if (IsA(rawreq, SupportRequestSelectivity))
	{
		SupportRequestSelectivity *req = (SupportRequestSelectivity *) rawreq;
		Node	   *arg = linitial(req->args);
		Selectivity guess;

		if (req->is_join)
			guess = clause_selectivity(req->root, arg, 0, req->jointype, req->sjinfo);
		else
			guess = clause_selectivity(req->root, arg, req->varRelid, JOIN_INNER, NULL);
		req->selectivity = Max(guess, DEFAULT_INEQ_SEL);
		PG_RETURN_POINTER(req);
	}
	PG_RETURN_POINTER(NULL);
}

/*
 * WindowFilter - what a window read applies of the query's filter on its
 * source: all it may (sql, NULL for nothing), and, when some of those may
 * fail (may_fail), the leakproof ones alone (fallback, read instead when
 * sql failed; NULL when there are none).
 */
typedef struct WindowFilter
{
	char	   *sql;
	bool		may_fail;
	char	   *fallback;
} WindowFilter;

static const WindowFilter no_filter = {NULL, false, NULL};

/* (conjuncts and leakproof: lists of conjuncts' SQL, the second within the first) */
static WindowFilter
make_window_filter(List *conjuncts, List *leakproof)
{
	WindowFilter filter;

	filter.sql = conjuncts_sql(conjuncts);
	filter.may_fail = list_length(leakproof) < list_length(conjuncts);
	filter.fallback = filter.may_fail ? conjuncts_sql(leakproof) : NULL;
	return filter;
}

static WindowFilter
window_filter(DvPlan *plan, DvPlanSource *src, Oid buffer, Oid owner)
{
	List	   *leakproof;
	List	   *conjuncts = source_filter_conjuncts(plan, src, buffer, owner, &leakproof);

	return make_window_filter(conjuncts, leakproof);
}

/*
 * WindowStore - the receiver of a window read: its rows into a tuplestore
 * (made in the reading function's memory context, cxt), counted; a row of
 * weight 0 (a marker: the last column) ends the read, the window needing a
 * FULL refresh.
 */
typedef struct WindowStore
{
	DestReceiver pub;
	Tuplestorestate *store;
	MemoryContext cxt;
	TupleDesc	desc;			/* the rows' shape, in cxt */
	uint64		rows;
	int64		weight_sum;		/* the weights of the rows stored, summed */
	bool		has_marker;
} WindowStore;

static void
window_store_startup(DestReceiver *self, int operation, TupleDesc typeinfo)
{
	WindowStore *ws = (WindowStore *) self;
	MemoryContext old = MemoryContextSwitchTo(ws->cxt);

	ws->desc = CreateTupleDescCopy(typeinfo);
	MemoryContextSwitchTo(old);
}

static bool
window_store_receive(TupleTableSlot *slot, DestReceiver *self)
{
	WindowStore *ws = (WindowStore *) self;
	bool		isnull;
	Datum		weight = slot_getattr(slot, slot->tts_tupleDescriptor->natts, &isnull);

	if (!isnull && DatumGetInt64(weight) == 0)
	{
		ws->has_marker = true;
		return false;
	}
	tuplestore_puttupleslot(ws->store, slot);
	ws->rows++;
	if (!isnull)
		ws->weight_sum += DatumGetInt64(weight);
	return true;
}

/*
 * window_read_sql - the SELECT of a window read (read_window, whose
 * arguments these are; filter: the SQL of the conjuncts applied, or NULL),
 * palloc'd.
 */
static char *
window_read_sql(DvPlanSource *src, Oid buffer, const char *from_enr, bool as_is, const char *filter, bool raw)
{
	StringInfoData sql;
	ListCell   *lc;
	bool		consolidate = true;
	StringInfoData spelled;

	/*
	 * Consolidated (weights summed per row, zeros dropped), so that the
	 * query's expressions see only rows that are really added or removed: an
	 * intermediate row that a later change undid must not be evaluated (it
	 * may, say, divide by zero).  Grouping needs equality on every column.
	 * Two images are one row only when they are identical: a column whose
	 * equality is not identity (1.0 = 1.00, 0 = -0, '1 day' = '24 hours')
	 * is grouped by its text too, so that an UPDATE to an equal value
	 * written differently is not dropped as no change.
	 */
	initStringInfo(&spelled);
	foreach(lc, src->columns)
	{
		AttrNumber	att = get_attnum(buffer, strVal(lfirst(lc)));
		Oid			type;
		int32		typmod;
		Oid			collation;

		get_atttypetypmodcoll(buffer, att, &type, &typmod, &collation);
		if (as_is || raw)
			consolidate = false;
		else if (!OidIsValid(lookup_type_cache(type, TYPECACHE_EQ_OPR)->eq_opr))
			consolidate = false;
		else if (!dv_equality_is_identity(type, typmod, collation))
		{
			Oid			castfunc;

			/*
			 * The output function's text.  A cast to text that is an I/O
			 * conversion is that function, called directly; a cast that is
			 * a function (bpchar's drops trailing blanks, inet's shows the
			 * netmask) is not, so such a column is spelled through its
			 * record's text, which calls the output function (and costs a
			 * row built and quoted per buffer row).
			 */
			if (find_coercion_pathway(TEXTOID, type, COERCION_EXPLICIT, &castfunc) == COERCION_PATH_COERCEVIAIO)
				appendStringInfo(&spelled, "%s::pg_catalog.text, ", quote_identifier(strVal(lfirst(lc))));
			else
				appendStringInfo(&spelled, "ROW(%s)::pg_catalog.text, ", quote_identifier(strVal(lfirst(lc))));
		}
	}
	initStringInfo(&sql);
	appendStringInfoString(&sql, "SELECT ");
	foreach(lc, src->columns)
		appendStringInfo(&sql, "%s, ", quote_identifier(strVal(lfirst(lc))));
	if (from_enr)
		appendStringInfo(&sql, "%s AS dv_weight FROM %s",
						 consolidate ? "pg_catalog.sum(dv_weight)::pg_catalog.int8" : "dv_weight::pg_catalog.int8",
						 quote_identifier(from_enr));
	else
		appendStringInfo(&sql, "%s AS dv_weight FROM %s.%s WHERE " WINDOW_CONDITION,
						 consolidate ? "pg_catalog.sum(dv_weight)::pg_catalog.int8" : "dv_weight::pg_catalog.int8",
						 DV_BUFFER_SCHEMA, quote_identifier(get_rel_name(buffer)));
	/* FROM ONLY: the source's own rows, not its inheritance children's */
	if (src->only && !from_enr)
		appendStringInfo(&sql, " AND dv_relid OPERATOR(pg_catalog.=) %u::pg_catalog.oid", src->relid);
	/* the query's filter on the source, where it may be applied first (window_filter); markers kept */
	if (filter && !from_enr)
		appendStringInfo(&sql, " AND (dv_weight = 0 OR (%s))", filter);
	if (consolidate)
	{
		/* a marker (weight 0) must survive: it is counted separately */
		appendStringInfoString(&sql, " GROUP BY ");
		for (int i = 1; i <= list_length(src->columns); i++)
			appendStringInfo(&sql, "%d, ", i);
		appendStringInfoString(&sql, spelled.data);
		appendStringInfoString(&sql, "dv_weight = 0 HAVING pg_catalog.sum(dv_weight) <> 0 OR bool_or(dv_weight = 0)");
	}
	return sql.data;
}

/* a WindowStore receiver of new, empty tuplestore, in the current memory context */
static void
window_store_init(WindowStore *receiver)
{
	/* (no shutdown: the store outlives the statement, the relation registered owns it) */
	dv_dest_receiver_init(&receiver->pub, DestTuplestore, window_store_startup, window_store_receive,
						  NULL, NULL);
	receiver->store = tuplestore_begin_heap(false, false, work_mem);
	receiver->cxt = CurrentMemoryContext;
	receiver->desc = NULL;
	receiver->rows = 0;
	receiver->weight_sum = 0;
	receiver->has_marker = false;
}

/* a kept window read, run by dv_statements_run: its SQL into receiver */
typedef struct WindowReadRun
{
	const char *sql;
	WindowStore *receiver;
} WindowReadRun;

static void
run_window_read(SPIPlanPtr plan, void *arg)
{
	WindowReadRun *run = arg;

	dv_catalog_exec_into(run->sql, plan, 0, NULL, NULL, NULL, &run->receiver->pub);
}

static void exec_window_read_guarded(DvTable *dt, const char *sql, Snapshot snapshot, bool from_enr,
									 WindowStore *receiver);

/*
 * run a window read's SQL (window_read_sql) into receiver, as the bootstrap
 * superuser, under the guard as a refresh statement (dv_guard_begin_write):
 * what the read runs (its consolidation's comparisons of a type whose
 * default operator class a superuser wrote in PL/pgSQL, a leakproof filter)
 * may not write a source or a dynamic table, nor start a refresh (regress
 * brk37_sorted_guard: a comparison that refreshed the table being refreshed
 * from the read applied the rows twice)
 */
static void
exec_window_read(DvTable *dt, const char *sql, Snapshot snapshot, bool from_enr, WindowStore *receiver)
{
	Oid			save_target;
	int			save_level;

	dv_guard_begin_write(&save_target, &save_level);
	PG_TRY();
	{
		exec_window_read_guarded(dt, sql, snapshot, from_enr, receiver);
	}
	PG_CATCH();
	{
		dv_guard_end_write(save_target, save_level);
		PG_RE_THROW();
	}
	PG_END_TRY();
	dv_guard_end_write(save_target, save_level);
}

static void
exec_window_read_guarded(DvTable *dt, const char *sql, Snapshot snapshot, bool from_enr, WindowStore *receiver)
{
	Oid			types[WINDOW_NARGS];
	Datum		values[WINDOW_NARGS];

	/*
	 * The rows go straight into the tuplestore of the relation (WindowStore),
	 * not through SPI_tuptable: formed once, not twice, in a new backend's
	 * first refresh mostly new memory to fault in.
	 */
	if (from_enr)
	{
		/*
		 * (kept as the refresh's statements are, statements.c: the
		 * relation's name and shape are in the entry's key; prepared under
		 * the search path it runs with, in dt's scope, which the window
		 * reads come before)
		 */
		int			nestlevel = dv_safe_search_path_push();
		bool		scope = !OidIsValid(dv_statements_scope());
		bool		kept;
		SPIPlanPtr	plan;
		WindowReadRun run = {sql, receiver};

		if (scope)
			dv_statements_begin(dt->relid);
		plan = dv_statements_prepare(sql, 0, NULL, NULL, NULL, false, &kept);
		if (scope)
			dv_statements_end();
		dv_safe_search_path_pop(nestlevel);
		dv_statements_run(plan, kept, run_window_read, &run);
	}
	else
	{
		/* the window is S_new's and S_prev's text */
		window_parameters(dt, snapshot, values, types);
		dv_catalog_exec_into(sql, NULL, WINDOW_NARGS, types, values, window_read_snapshot(),
							 &receiver->pub);
	}
}

/*
 * The window reads of this refresh that fell back to the leakproof part of
 * their filter (read_window), for its history's mode_reason: the error of
 * the first, and how many; reset by read_and_apply.
 */
static char *filter_fallback_error = NULL;
static int	filter_fallbacks = 0;

/*
 * row_may_raise - is edata an error that a row's value can raise, so that
 * reading or applying the changes otherwise may succeed?  Every class but a
 * cancel or shutdown (57), a transaction-rollback error (40), a system
 * error (58) and data or index corruption (XX001, XX002): see
 * refresh_as_is.
 */
static bool
row_may_raise(ErrorData *edata)
{
	int			class = ERRCODE_TO_CATEGORY(edata->sqlerrcode);

	return !(class == ERRCODE_TO_CATEGORY(ERRCODE_QUERY_CANCELED) ||
			 class == ERRCODE_TO_CATEGORY(ERRCODE_SYSTEM_ERROR) ||
			 class == ERRCODE_TO_CATEGORY(ERRCODE_TRANSACTION_ROLLBACK) ||
			 edata->sqlerrcode == ERRCODE_DATA_CORRUPTED ||
			 edata->sqlerrcode == ERRCODE_INDEX_CORRUPTED);
}

/*
 * message_without_values - what a history row may keep of edata, an error
 * raised by a change row: its message when its text has no values in it
 * ("division by zero"), else the message's form with the values left out
 * (invalid input syntax for type %s: "%s") and the SQLSTATE.  The row may
 * be one the query's result never held (written and deleted again in the
 * window, or rejected by another condition first), of a source that roles
 * who may read the dynamic table, and so its history, may not read: its
 * values must not reach them (regress brk14_reason_values).
 */
static char *
message_without_values(const ErrorData *edata)
{
	if (edata->message_id != NULL && strchr(edata->message_id, '%') == NULL && edata->message != NULL)
		return pstrdup(edata->message);
	/* (a message made elsewhere and passed on whole has the form "%s": no form to show) */
	return psprintf("%s (SQLSTATE %s; the values of the row are not shown)",
					edata->message_id && strcmp(edata->message_id, "%s") != 0 ? edata->message_id : "an error",
					unpack_sql_state(edata->sqlerrcode));
}

/*
 * guarded_window_read - exec_window_read of sql in a subtransaction: false,
 * nothing of it kept and the error recorded (filter_fallback_error), when
 * it raised an error that a row's value can raise (the classes
 * refresh_as_is retries; the others are raised again).
 */
static bool
guarded_window_read(DvTable *dt, DvPlanSource *src, const char *sql, Snapshot snapshot, WindowStore *receiver)
{
	MemoryContext oldcontext = CurrentMemoryContext;
	ResourceOwner oldowner = CurrentResourceOwner;
	volatile bool ok = false;

	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(oldcontext);
	PG_TRY();
	{
		exec_window_read(dt, sql, snapshot, false, receiver);
		ReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(oldcontext);
		CurrentResourceOwner = oldowner;
		ok = true;
	}
	PG_CATCH();
	{
		ErrorData  *edata = dv_subxact_caught(oldcontext, oldowner);

		if (!row_may_raise(edata))
			ReThrowError(edata);
		ereport(DEBUG1,
				(errmsg("dynamic table \"%s.%s\": the changes of \"%s\" read again without the conditions of its filter that may fail",
						dt->schema_name, dt->table_name, get_rel_name(src->relid)),
				 errdetail("Applying them to the changes failed: %s.", edata->message)));
		if (filter_fallbacks++ == 0)
			filter_fallback_error = message_without_values(edata);
		FreeErrorData(edata);
	}
	PG_END_TRY();
	return ok;
}

/*
 * read_window - the window's buffer rows of one source occurrence into
 * dv_delta_<rtindex>.  Returns the number of rows, or -1 if the window holds
 * a marker (TRUNCATE, or a change without its old row): FULL needed.
 * *weight_sum (when not NULL) gets the sum of the rows' weights: read raw, a
 * sum other than 0 says the window does not consolidate to no row.
 * Runs as the bootstrap superuser; the buffer is read with window_read_snapshot.
 *
 * With from_enr, the rows are read not from the buffer but from that
 * ephemeral relation, the window of the same source read before with (at
 * least) these columns (see shared_window): consolidating those again by
 * these columns gives exactly what the buffer would (weights are summed,
 * groups of weight 0 dropped either way; markers are kept apart).  With
 * as_is, that relation was read with exactly these columns, consolidated
 * and without a marker: its rows are copied as they are, not consolidated
 * again (TPC-H Q15's three occurrences of lineitem read the same columns).
 * With raw, the buffer's rows are read as they are, not consolidated: only
 * for consumers linear in the weights (linear_in_windows), whose refresh is
 * done again over the consolidated window if that raises an error.
 *
 * filter: the conjuncts of the query's filter applied to the buffer's rows
 * (window_filter; not with from_enr).  When some may fail (a built-in
 * function's error on a row the query would never evaluate it on: one a
 * later change undid, or one another conjunct rejects first), the read is
 * made in a subtransaction, and if it fails it is made again with the
 * leakproof conjuncts only, which cannot fail: the same rows reach the
 * query's own filter either way.
 */
static int64
read_window(DvTable *dt, DvPlanSource *src, Oid buffer, Snapshot snapshot, const char *from_enr, bool as_is,
			WindowFilter filter, bool raw, int64 *weight_sum)
{
	WindowStore receiver;
	char	   *sql = window_read_sql(src, buffer, from_enr, as_is, from_enr ? NULL : filter.sql, raw);
	bool		whole_filter = from_enr == NULL && filter.sql != NULL;

	src->window_filtered = false;
	window_store_init(&receiver);
	if (from_enr || !filter.may_fail)
		exec_window_read(dt, sql, snapshot, from_enr != NULL, &receiver);
	else if (!guarded_window_read(dt, src, sql, snapshot, &receiver))
	{
		tuplestore_end(receiver.store);
		window_store_init(&receiver);
		exec_window_read(dt, window_read_sql(src, buffer, NULL, as_is, filter.fallback, raw), snapshot,
						 false, &receiver);
		whole_filter = false;
	}
	if (receiver.has_marker)
	{
		tuplestore_end(receiver.store);
		return -1;
	}
	/* (every conjunct of its filters, when they are all there: see DvPlanSource) */
	src->window_filtered = whole_filter && src->filter_known && src->filter_complete;
	dv_register_store(src->enr_name, receiver.store, receiver.desc, receiver.rows);
	/* (the SQL generated next may count its distinct keys: optree.c, window_distinct) */
	src->delta_store = receiver.store;
	src->delta_desc = receiver.desc;
	src->delta_distinct = NIL;
	if (weight_sum)
		*weight_sum = receiver.weight_sum;
	return (int64) receiver.rows;
}

/*
 * shared_window - a source read more than once by the query (a self-join,
 * a correlated subquery over the same table, TPC-H Q15, Q17, Q18, Q21) has
 * its window read from the buffer once per refresh, with the union of the
 * columns its occurrences read, into an ephemeral relation of its own
 * (dv_window_<relid>[_only]); each occurrence is then consolidated from that
 * (read_window with from_enr).  The shared read applies the conjuncts of the
 * filter that every occurrence may apply first (window_filter_conjuncts,
 * equal by their text over the source's columns), so that a window read
 * twice is cut as a window read once is.  Returns that relation's name, reading it on
 * first use (*n is then its row count, -1 for a marker, as read_window
 * returns; *registered gets the name; *ncolumns the number of its columns), or NULL when src is the only
 * occurrence of its source.
 */
static char *
shared_window(DvTable *dt, DvPlan *plan, DvPlanSource *src, Oid buffer, Snapshot snapshot,
			  List **registered, int64 *n, int *ncolumns, Oid owner)
{
	ListCell   *lc;
	List	   *columns = NIL;
	List	   *common = NIL;
	List	   *common_leakproof = NIL;
	List	   *leakproof;
	List	   *kept_leakproof = NIL;
	bool		first = true;
	int			occurrences = 0;
	char	   *name = psprintf("dv_window_%u%s", src->relid, src->only ? "_only" : "");
	DvPlanSource shared;

	*n = 0;
	foreach(lc, plan->sources)
	{
		DvPlanSource *other = lfirst(lc);
		ListCell   *lc2;

		if (other->relid != src->relid || other->only != src->only)
			continue;
		occurrences++;
		foreach(lc2, other->columns)
		{
			/*
			 * (a column the buffer lacks: each occurrence is read apart, and
			 * the one that reads it refreshes FULL, SOURCE_NOT_TRACKED)
			 */
			if (get_attnum(buffer, strVal(lfirst(lc2))) == InvalidAttrNumber)
				return NULL;
			if (!list_member(columns, lfirst(lc2)))
				columns = lappend(columns, lfirst(lc2));
		}
	}
	if (occurrences < 2)
		return NULL;
	*ncolumns = list_length(columns);
	foreach(lc, *registered)
	{
		if (strcmp((const char *) lfirst(lc), name) == 0)
			return name;		/* read already */
	}
	/*
	 * The conjuncts of the filter that every occurrence applies first
	 * (window_filter) are applied to the shared read: a row that fails one
	 * is dropped by each occurrence's own filter anyway (TPC-H Q15: its
	 * revenue view read twice, each through the same range of l_shipdate).
	 */
	foreach(lc, plan->sources)
	{
		DvPlanSource *other = lfirst(lc);
		List	   *conjuncts;
		List	   *kept = NIL;
		ListCell   *lc2;

		if (other->relid != src->relid || other->only != src->only)
			continue;
		conjuncts = source_filter_conjuncts(plan, other, buffer, owner, &leakproof);
		if (first)
		{
			common = conjuncts;
			common_leakproof = leakproof;
			first = false;
			continue;
		}
		foreach(lc2, common)
		{
			ListCell   *lc3;

			foreach(lc3, conjuncts)
			{
				if (strcmp(lfirst(lc2), lfirst(lc3)) == 0)
				{
					kept = lappend(kept, lfirst(lc2));
					break;
				}
			}
		}
		common = kept;
	}
	shared = *src;
	shared.columns = columns;
	shared.enr_name = name;
	/* (the same text is the same condition on the same columns: leakproof in each or in none) */
	foreach(lc, common)
	{
		if (list_member_ptr(common_leakproof, lfirst(lc)))
			kept_leakproof = lappend(kept_leakproof, lfirst(lc));
	}
	*n = read_window(dt, &shared, buffer, snapshot, NULL, false, make_window_filter(common, kept_leakproof), false,
					  NULL);
	if (*n >= 0)
		*registered = lappend(*registered, name);
	return name;
}

/*
 * identity_full_or_unchanged - may the window of a source be applied as far
 * as its replica identity goes?  A source whose replica identity is not
 * FULL now (its owner set it back to DEFAULT, or dynview could not set it)
 * logs old rows with their key columns only.  The decoder turns such old
 * images into markers, as the catalog said when each change was made; this
 * check at every refresh is the second line: no old image (weight -1) nor
 * marker of such a source is applied.  Only a window of inserts is.
 */
static bool
identity_full_or_unchanged(DvTable *dt, Oid relid, Oid buffer, Snapshot snapshot)
{
	HeapTuple	tuple;
	char		identity;

	if (dv_is_dynamic_table(relid))
		return true;			/* its buffer is written by its refreshes, whole */
	tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	if (!HeapTupleIsValid(tuple))
		return true;			/* (a dropped source is found missing elsewhere) */
	identity = ((Form_pg_class) GETSTRUCT(tuple))->relreplident;
	ReleaseSysCache(tuple);
	if (identity == REPLICA_IDENTITY_FULL)
		return true;
	return !window_has_row(dt, buffer, snapshot, WINDOW_ROW_NONPOSITIVE, InvalidOid);
}

/*
 * marker_reason - why a window of src (in buffer) holds a marker: the
 * refresh's FULL code and reason, by the markers' cause (dv_marker): a
 * TRUNCATE; an update or delete logged while the source's replica identity
 * was not FULL (it may be FULL again by now: identity_full_or_unchanged
 * found nothing then); else a value of a column whose type changed.
 */
static void
marker_reason(DvTable *dt, DvPlanSource *src, Oid buffer, Snapshot snapshot,
			  const char **full_code, char **full_reason)
{
	Oid			logged = src->only ? src->relid : InvalidOid;
	char	   *name = get_rel_name(src->relid);

	if (window_has_row(dt, buffer, snapshot, WINDOW_ROW_TRUNCATE, logged))
	{
		*full_code = "SOURCE_TRUNCATED";
		*full_reason = psprintf("\"%s\" was truncated since the last refresh.", name);
	}
	else if (window_has_row(dt, buffer, snapshot, WINDOW_ROW_NO_OLD_ROW, logged))
	{
		*full_code = "REPLICA_IDENTITY_NOT_FULL";
		*full_reason = psprintf("\"%s\" was updated or deleted from since the last refresh while its replica identity was not FULL, so its old rows were not logged whole; it was recomputed in full.",
								name);
	}
	else
	{
		*full_code = "SOURCE_ALTERED";
		*full_reason = psprintf("A column of \"%s\" changed its type since the last refresh, and changes made before held values of the old type; it was recomputed in full.",
								name);
	}
}

/*
 * has this transaction written a partition or inheritance child of relid
 * (which need not lock relid)?
 */
static bool
partition_written(Oid relid)
{
	ListCell   *lc;

	if (get_rel_relkind(relid) != RELKIND_PARTITIONED_TABLE && !has_subclass(relid))
		return false;
	foreach(lc, find_all_inheritors(relid, NoLock, NULL))
	{
		if (dv_holds_write_lock(lfirst_oid(lc)))
			return true;
	}
	return false;
}

/* does the buffer hold rows of the current transaction? */
static bool
buffer_has_own_rows(Oid buffer)
{
	Oid			types[1] = {TEXTOID};
	Datum		values[1];

	values[0] = CStringGetTextDatum(psprintf(UINT64_FORMAT, own_xid8()));
	dv_catalog_exec(psprintf("SELECT 1 FROM %s.%s WHERE dv_xid = $1::pg_catalog.xid8 LIMIT 1",
							 DV_BUFFER_SCHEMA, quote_identifier(get_rel_name(buffer))),
					1, types, values, NULL, -1);
	return SPI_processed > 0;
}

/* run a statement at the snapshot as a dynview write, rows kept in SPI_tuptable */
static char current_table[2 * NAMEDATALEN + 8] = "";

/* the table dv_exec_at's errors name */
void
dv_set_current_table(const char *qualified_name)
{
	strlcpy(current_table, qualified_name, sizeof(current_table));
}

/*
 * rethrow_write_error - the PG_CATCH of dv_exec_statement and dv_exec_fill:
 * end the own-writes origin and the guard's write they began, and rethrow
 * the error as "<what> of dynamic table "<table>"" (with sql, if given).
 */
static void
pg_attribute_noreturn()
rethrow_write_error(bool own, uint16 save_origin, Oid save_target, int save_level,
					MemoryContext caller_context, const char *sql, const char *what, const char *table)
{
	ErrorData  *edata;

	if (own)
		dv_cdc_own_writes_end(save_origin);
	dv_guard_end_write(save_target, save_level);
	MemoryContextSwitchTo(caller_context);
	edata = CopyErrorData();
	FlushErrorState();
	dv_rethrow_refresh_error(edata, sql, psprintf("%s of dynamic table \"%s\"", what, table));
}

/*
 * dv_exec_statement (exec_statement_params with parameters $1.., params
 * NULL for none) - run one generated refresh statement at the snapshot as
 * a dynview write (the DML guard lets it write the table being refreshed,
 * dv_guard_set_refreshing, and nothing else); its SPI result code goes
 * to *rc.  An error names "<what> of dynamic table "<table>"" instead of
 * showing the statement.  Rows stay in SPI_tuptable.
 */
/*
 * The refresh whose write statements are dynview's own writes (no trigger,
 * rule or volatile function can run inside them, dv_refresh_mark_own_writes):
 * the local transaction it was said in; 0 when none.
 */
static LocalTransactionId own_writes_lxid = InvalidLocalTransactionId;

/*
 * dv_refresh_mark_own_writes - from now on in this transaction, the write
 * statements of the refresh (on) are written as dynview's own, which the
 * decoder does not decode; off for statements that may run user code.
 */
void
dv_refresh_mark_own_writes(bool on)
{
	own_writes_lxid = on ? MyProc->lxid : InvalidLocalTransactionId;
}


/*
 * dv_refresh_writes_own - are the refresh's writes in this transaction
 * dynview's own (dv_refresh_mark_own_writes), as a write statement would
 * be written now?  (apply.c writes rows without statements.)
 */
bool
dv_refresh_writes_own(void)
{
	return own_writes_lxid != InvalidLocalTransactionId && own_writes_lxid == MyProc->lxid;
}

/* a refresh statement with its parameters, run by dv_statements_run at the data snapshot */
typedef struct StatementRun
{
	DvParams   *params;
	Snapshot	snapshot;
	bool		read_only;
	int			rc;
} StatementRun;

static void
run_statement(SPIPlanPtr plan, void *arg)
{
	StatementRun *run = arg;
	DvParams   *params = run->params;

	/* (triggers fire: a dynamic table's own triggers and foreign keys see the refresh) */
	run->rc = SPI_execute_snapshot(plan, params ? params->values : NULL, params ? params->nulls : NULL,
								   run->snapshot, InvalidSnapshot, run->read_only, true, 0);
}

static uint64
exec_statement_params(const char *sql, Snapshot snapshot, bool read_only, const char *what,
					  const char *table, DvParams *params, int *rc)
{
	MemoryContext caller_context = CurrentMemoryContext;
	Oid			save_target;
	int			save_level;
	bool		own = !read_only && own_writes_lxid != InvalidLocalTransactionId &&
		own_writes_lxid == MyProc->lxid;
	uint16		save_origin = 0;

	/* this statement may write the table being refreshed; what it runs may not */
	dv_guard_begin_write(&save_target, &save_level);
	if (own)
		save_origin = dv_cdc_own_writes_begin();
	PG_TRY();
	{
		StatementRun run = {params, snapshot, read_only, 0};
		SPIPlanPtr	plan;
		bool		kept;

		/* (an incremental refresh's statements are kept and used again: statements.c) */
		plan = dv_statements_prepare(sql, params ? params->nargs : 0, params ? params->types : NULL,
									 params ? params->values : NULL, params ? params->nulls : NULL,
									 params && params->generic, &kept);
		dv_statements_run(plan, kept, run_statement, &run);
		*rc = run.rc;
	}
	PG_CATCH();
	{
		rethrow_write_error(own, save_origin, save_target, save_level, caller_context, sql, what, table);
	}
	PG_END_TRY();
	if (own)
		dv_cdc_own_writes_end(save_origin);
	dv_guard_end_write(save_target, save_level);
	return SPI_processed;
}

/*
 * The bulk writer of dv_exec_fill: what PostgreSQL's transient-relation
 * receiver (REFRESH MATERIALIZED VIEW's new heap) does, frozen, through a
 * bulk-insert buffer ring and without the free-space map, but with the rows
 * gathered and written by table_multi_insert, as COPY FROM writes them: one
 * WAL record per page filled instead of one per row, and the page locked
 * and dirtied once per batch (TPC-H Q16 at SF1: 1,765,092 multiplicities;
 * bench/README.md, thirteenth session).  A batch holds at most
 * BULK_MAX_ROWS rows or BULK_MAX_BYTES of them (COPY's bounds); the last
 * one is written by the shutdown.  Only for a relation this transaction
 * created (or truncated) with no index, trigger or constraint, like the
 * transient-relation receiver: nothing else sees the rows before the
 * statement ends.
 */
#define BULK_MAX_ROWS	1000
#define BULK_MAX_BYTES	65535

typedef struct BulkReceiver
{
	DestReceiver pub;
	Oid			target;
	Relation	rel;
	CommandId	cid;
	BulkInsertState bistate;
	MemoryContext cxt;			/* what table_multi_insert allocates */
	TupleTableSlot **slots;		/* BULK_MAX_ROWS slots of the relation's kind */
	int			nused;
	Size		bytes;
} BulkReceiver;

static void
bulk_flush(BulkReceiver *r)
{
	MemoryContext old;

	if (r->nused == 0)
		return;
	old = MemoryContextSwitchTo(r->cxt);
	table_multi_insert(r->rel, r->slots, r->nused, r->cid, TABLE_INSERT_SKIP_FSM | TABLE_INSERT_FROZEN,
					   r->bistate);
	MemoryContextSwitchTo(old);
	for (int i = 0; i < r->nused; i++)
		ExecClearTuple(r->slots[i]);
	MemoryContextReset(r->cxt);
	r->nused = 0;
	r->bytes = 0;
}

static void
bulk_startup(DestReceiver *self, int operation, TupleDesc typeinfo)
{
	BulkReceiver *r = (BulkReceiver *) self;

	r->rel = table_open(r->target, NoLock);
	r->cid = GetCurrentCommandId(true);
	r->bistate = GetBulkInsertState();
	r->cxt = AllocSetContextCreate(CurrentMemoryContext, "dynview bulk write", ALLOCSET_DEFAULT_SIZES);
	r->slots = palloc0(sizeof(TupleTableSlot *) * BULK_MAX_ROWS);
	r->nused = 0;
	r->bytes = 0;
}

static bool
bulk_receive(TupleTableSlot *slot, DestReceiver *self)
{
	BulkReceiver *r = (BulkReceiver *) self;
	TupleTableSlot *to;

	if (r->slots[r->nused] == NULL)
		r->slots[r->nused] = table_slot_create(r->rel, NULL);
	to = r->slots[r->nused];
	/* (a copy in the slot's own memory, freed when the batch is cleared) */
	ExecCopySlot(to, slot);
	r->nused++;
	if (TTS_IS_BUFFERTUPLE(to) || TTS_IS_HEAPTUPLE(to))
		r->bytes += ((HeapTupleTableSlot *) to)->tuple->t_len;
	if (r->nused == BULK_MAX_ROWS || r->bytes >= BULK_MAX_BYTES)
		bulk_flush(r);
	return true;
}

static void
bulk_shutdown(DestReceiver *self)
{
	BulkReceiver *r = (BulkReceiver *) self;

	bulk_flush(r);
	for (int i = 0; i < BULK_MAX_ROWS && r->slots[i] != NULL; i++)
		ExecDropSingleTupleTableSlot(r->slots[i]);
	pfree(r->slots);
	r->slots = NULL;
	FreeBulkInsertState(r->bistate);
	table_finish_bulk_insert(r->rel, TABLE_INSERT_SKIP_FSM | TABLE_INSERT_FROZEN);
	table_close(r->rel, NoLock);
	r->rel = NULL;
	MemoryContextDelete(r->cxt);
	r->cxt = NULL;
}

static void
bulk_destroy(DestReceiver *self)
{
	pfree(self);
}

/* the bulk writer of rows into target (see BulkReceiver) */
DestReceiver *
dv_bulk_receiver(Oid target)
{
	BulkReceiver *r = palloc0(sizeof(BulkReceiver));

	dv_dest_receiver_init(&r->pub, DestTransientRel, bulk_startup, bulk_receive, bulk_shutdown, bulk_destroy);
	r->target = target;
	return (DestReceiver *) r;
}

/*
 * dv_exec_fill - run the SELECT sql at the snapshot and write its rows into
 * the relation target, as REFRESH MATERIALIZED VIEW fills its new heap: the
 * executor with dynview's bulk writer (dv_bulk_receiver: PostgreSQL's
 * transient-relation receiver, but the rows written in batches), so the plan may
 * use parallel workers (SPI never plans a statement that writes in
 * parallel), rows are written in bulk and frozen, and no index, trigger or
 * constraint of target sees them.  Only for a relation this transaction
 * created that has none of those (a temporary table, a dynamic table's
 * first build).  Written as dynview's own writes like dv_exec_statement's
 * (not decoded when the refresh said so); an error names "<what> of
 * dynamic table "<table>"".  Returns the rows written.
 */
uint64
dv_exec_fill(const char *sql, Snapshot snapshot, const char *what, const char *table, Oid target)
{
	return dv_exec_fill_into(sql, snapshot, what, table, NULL, target);
}

/*
 * dv_exec_fill_into - dv_exec_fill with the receiver dest instead of the
 * bulk writer of target (dest NULL: that one): a receiver
 * that passes the rows on to that writer and sees them on their way
 * (aggstate.c's multiplicities' writer that counts the groups).  Its
 * startup, rows and shutdown run inside the write (dynview's own writes,
 * the guard), so what its shutdown writes is written the same way.
 */
/*
 * A fill's parallel plan is taken only when the planner estimates it to save
 * at least this many times parallel_setup_cost over the serial plan (see
 * dv_plan_fill).
 */
#define FILL_PARALLEL_MIN_GAIN 10

/*
 * dv_plan_fill - the plan of the SELECT sql as dv_exec_fill runs it: parallel
 * workers allowed (CURSOR_OPT_PARALLEL_OK), unless the parallel plan saves
 * less than FILL_PARALLEL_MIN_GAIN x parallel_setup_cost (in the planner's
 * estimate) over the serial one, which is then taken.  The planner charges a
 * Gather parallel_setup_cost once (1,000 by default, a few milliseconds of
 * a seq scan's pages), which may make it take workers for a gain of that
 * order; starting them costs more here: TPC-H Q13's grouping of its
 * 300,000 customers' counts (a state just filled, 2,400 pages) planned
 * parallel at 6,491 against 7,650 serial, ran 98-110 ms with its one worker
 * against 32 ms serial at load 2-4 (bench/README.md, fifteenth session).
 * A statement parallel for a large gain (the fill of TPC-H Q1's state, Q16's
 * multiplicities) keeps its workers.  Plans twice, only when the first plan
 * is parallel (about a millisecond for a build's statement).
 */
PlannedStmt *
dv_plan_fill(const char *sql)
{
	RawStmt    *raw = linitial_node(RawStmt, pg_parse_query(sql));
	Query	   *query = linitial_node(Query, pg_analyze_and_rewrite_fixedparams(raw, sql, NULL, 0, NULL));
	Query	   *serial_query = copyObject(query);
	PlannedStmt *plan = pg_plan_query(query, sql, CURSOR_OPT_PARALLEL_OK, NULL);

	if (plan->parallelModeNeeded)
	{
		PlannedStmt *serial = pg_plan_query(serial_query, sql, 0, NULL);

		if (serial->planTree->total_cost - plan->planTree->total_cost <
			FILL_PARALLEL_MIN_GAIN * parallel_setup_cost)
			plan = serial;
	}
	return plan;
}

uint64
dv_exec_fill_into(const char *sql, Snapshot snapshot, const char *what, const char *table,
				  DestReceiver *dest, Oid target)
{
	MemoryContext caller_context = CurrentMemoryContext;
	Oid			save_target;
	int			save_level;
	bool		own = own_writes_lxid != InvalidLocalTransactionId && own_writes_lxid == MyProc->lxid;
	uint16		save_origin = 0;
	uint64		processed = 0;

	dv_guard_begin_write(&save_target, &save_level);
	if (own)
		save_origin = dv_cdc_own_writes_begin();
	PG_TRY();
	{
		PlannedStmt *plan = dv_plan_fill(sql);
		QueryDesc  *qd;

		if (dest == NULL)
			dest = dv_bulk_receiver(target);

		PushCopiedSnapshot(snapshot);
		UpdateActiveSnapshotCommandId();
		qd = CreateQueryDesc(plan, sql, GetActiveSnapshot(), InvalidSnapshot, dest, NULL, NULL, 0);
		ExecutorStart(qd, 0);
		ExecutorRun(qd, ForwardScanDirection, 0L, true);
		processed = qd->estate->es_processed;
		ExecutorFinish(qd);
		ExecutorEnd(qd);
		FreeQueryDesc(qd);
		PopActiveSnapshot();
	}
	PG_CATCH();
	{
		rethrow_write_error(own, save_origin, save_target, save_level, caller_context, NULL, what, table);
	}
	PG_END_TRY();
	if (own)
		dv_cdc_own_writes_end(save_origin);
	dv_guard_end_write(save_target, save_level);
	CommandCounterIncrement();
	return processed;
}

uint64
dv_exec_statement(const char *sql, Snapshot snapshot, bool read_only, const char *what,
				  const char *table, int *rc)
{
	return exec_statement_params(sql, snapshot, read_only, what, table, NULL, rc);
}

/*
 * dv_exec_at_params - an incremental refresh statement of the current
 * table, with parameters $1.. (params may be NULL); rows in SPI_tuptable
 */
uint64
dv_exec_at_params(const char *sql, Snapshot snapshot, bool read_only, DvParams *params)
{
	int			rc;
	uint64		n = exec_statement_params(sql, snapshot, read_only, "incremental refresh",
										  current_table, params, &rc);

	if (rc < 0)
		elog(ERROR, "incremental refresh statement failed: %s", SPI_result_code_string(rc));
	return n;
}

/* an incremental refresh statement of the current table; rows in SPI_tuptable */
uint64
dv_exec_at(const char *sql, Snapshot snapshot, bool read_only)
{
	return dv_exec_at_params(sql, snapshot, read_only, NULL);
}

/*
 * "c1, c2, ..." of the table's columns (not dropped), each prefixed; with
 * cast, "CAST(<prefix>c1 AS t1), ...": each cast to its column's type and
 * typmod (a domain's base type and typmod), as ROW(...)::table cast each
 * field (coerce_record_to_complex: the same coercion, explicit), without
 * forming a composite value per row
 */
static char *
table_columns_as(Oid relid, const char *prefix, bool cast)
{
	Relation	rel = relation_open(relid, AccessShareLock);
	TupleDesc	desc = RelationGetDescr(rel);
	StringInfoData buf;
	int			n = 0;

	initStringInfo(&buf);
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		const char *name = quote_identifier(NameStr(att->attname));

		if (att->attisdropped)
			continue;
		if (cast)
		{
			Oid			type = att->atttypid;
			int32		typmod = att->atttypmod;

			/*
			 * (a domain's base type and typmod: its value is the base type's,
			 * and a cast to the domain would run its checks, which the query
			 * itself does not run on every value it yields: a LEFT JOIN's
			 * NULL-extended row holds NULL in a column of a NOT NULL domain,
			 * and the delta's branches spell that NULL of the base type)
			 */
			if (typmod == -1 && get_typtype(type) == TYPTYPE_DOMAIN)
				type = getBaseTypeAndTypmod(type, &typmod);
			appendStringInfo(&buf, "%sCAST(%s%s AS %s)", n++ ? ", " : "", prefix, name,
							 format_type_extended(type, typmod,
												  FORMAT_TYPE_TYPEMOD_GIVEN | FORMAT_TYPE_FORCE_QUALIFY));
		}
		else
			appendStringInfo(&buf, "%s%s%s", n++ ? ", " : "", prefix, name);
	}
	relation_close(rel, AccessShareLock);
	return buf.data;
}

/* "c1, c2, ..." of the table's columns, each prefixed */
static char *
table_columns(Oid relid, const char *prefix)
{
	return table_columns_as(relid, prefix, false);
}

/*
 * Up to this many rows a change's victims are looked up through arrays
 * (index scans), and an AUTO table's window is applied whatever its size
 * relative to the sources.
 */
#define DV_SMALL_CHANGE 1000

/*
 * key_delete_sql - the DELETE of the rows of the table (target, quoted) that
 * have the key (columns key, names) of a row of dv_net with negative weight
 * and the same text form (dv_key), returning them; NULL when a key column
 * cannot be compared with "=" (no equality, or an array) or has no B-tree
 * operator class (the table then has no apply index to look rows up in).
 * A key column equal by "=" but written differently (1.0, 1.00) still
 * differs in the text form, so such a row is not taken for the delta's: the
 * counts then differ and the caller refreshes in full, as for any row not
 * found.  The key is unique in the table (its apply index), so a delta row
 * meets at most one row, through the index; a key with a NULL meets none.
 */
static char *
key_delete_sql(DvTable *dt, List *key, const char *target)
{
	Relation	rel = relation_open(dt->relid, AccessShareLock);
	TupleDesc	desc = RelationGetDescr(rel);
	StringInfoData cond;
	ListCell   *lc;
	bool		ok = true;

	initStringInfo(&cond);
	foreach(lc, key)
	{
		const char *name = lfirst(lc);
		AttrNumber	att = InvalidAttrNumber;
		char	   *eq;

		for (int i = 0; i < desc->natts; i++)
			if (!TupleDescAttr(desc, i)->attisdropped &&
				strcmp(NameStr(TupleDescAttr(desc, i)->attname), name) == 0)
				att = i + 1;
		/* (no B-tree: no apply index was built, a lookup per row would scan) */
		if (att == InvalidAttrNumber || type_is_array(TupleDescAttr(desc, att - 1)->atttypid) ||
			!OidIsValid(lookup_type_cache(TupleDescAttr(desc, att - 1)->atttypid,
										  TYPECACHE_BTREE_OPFAMILY)->btree_opf) ||
			(eq = dv_equality_operator(TupleDescAttr(desc, att - 1)->atttypid)) == NULL)
		{
			ok = false;
			break;
		}
		appendStringInfo(&cond, " AND dv_tt.%s %s (n.dv_row).%s",
						 quote_identifier(name), eq, quote_identifier(name));
	}
	relation_close(rel, AccessShareLock);
	if (!ok)
		return NULL;
	return psprintf("DELETE FROM %s dv_tt USING dv_net n WHERE n.dv_weight < 0%s "
					"AND ROW(dv_tt.*)::text = n.dv_key RETURNING dv_tt.*",
					target, cond.data);
}

/*
 * A distinct row of an SPJ table's delta (consolidate_delta): the delta row
 * it was first seen in and its net weight.
 */
typedef struct DeltaGroup
{
	uint64		first;
	int64		weight;
} DeltaGroup;

/* dv_row_hash_compare: see dynview.h */
int
dv_row_hash_compare(const void *a, const void *b)
{
	const DvRowHash *x = a;
	const DvRowHash *y = b;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	return x->row < y->row ? -1 : x->row > y->row ? 1 : 0;
}

/*
 * The delta rows' columns, taken apart once: row i's columns are
 * values/nulls[i * natts ..], natts those of rowdesc (the table's row type,
 * dropped columns included, NULL in every row).  By-reference values point
 * into the SPI result's tuples, which must outlive this.  Memory: natts
 * Datums and bools per row, in the current memory context.
 */
typedef struct DeltaRows
{
	TupleDesc	rowdesc;
	int			natts;
	Datum	   *values;
	bool	   *nulls;
} DeltaRows;

/* are delta rows a and b the same row (consolidate_delta's sense)? */
static bool
delta_rows_same(DeltaRows *rows, uint64 a, uint64 b)
{
	Datum	   *va = rows->values + a * rows->natts;
	Datum	   *vb = rows->values + b * rows->natts;
	bool	   *na = rows->nulls + a * rows->natts;
	bool	   *nb = rows->nulls + b * rows->natts;

	for (int k = 0; k < rows->natts; k++)
	{
		Form_pg_attribute att = TupleDescAttr(rows->rowdesc, k);

		if (na[k] != nb[k] ||
			(!na[k] && !datum_image_eq(va[k], vb[k], att->attbyval, att->attlen)))
			return false;
	}
	return true;
}

/*
 * consolidate_delta - the n rows of tt (the table's columns that are not
 * dropped, in order, of the table's row type rowtype, then dv_weight, int8)
 * summed per distinct row; returns the groups whose weight is not 0
 * (*ngroups of them), in no particular order, and fills rows with every
 * row's columns (taken apart once here, read again by register_net and by
 * the direct apply).
 *
 * Rows are the same when every column is NULL in both or has the same
 * binary image in both (datum_image_eq: a compressed or out-of-line value
 * compared by its contents), which implies the same text form.  This is
 * what a GROUP BY of the rows' text forms (sorted) did, without the text
 * form of any row: the rows that leave the table get theirs only where a
 * statement finds them by it (register_net) or where a table row's image
 * differs from theirs (apply.c).  Two rows of the same text form but
 * different images (a float NaN of another bit pattern) stay apart: the
 * DELETEs take each's table row by the text form, and where two negative
 * rows name the same table rows the count of deleted rows tells, and the
 * caller refreshes in full.  Rows are ordered by a hash of their images and
 * only rows of equal hash compared, so the cost grows with the delta.
 */
static DeltaGroup *
consolidate_delta(SPITupleTable *tt, uint64 n, Oid rowtype, uint64 *ngroups, DeltaRows *rows)
{
	TupleDesc	desc = tt->tupdesc;
	TupleDesc	rowdesc;
	DvRowHash *order;
	DeltaGroup *groups;
	int64	   *weights;
	Datum	   *tv;
	bool	   *tn;
	int			natts;
	int			ncols = 0;
	uint64		count = 0;
	uint64		out = 0;

	*ngroups = 0;
	memset(rows, 0, sizeof(DeltaRows));
	if (n == 0)
		return NULL;
	rowdesc = lookup_rowtype_tupdesc_copy(rowtype, -1);
	for (int k = 0; k < rowdesc->natts; k++)
		if (!TupleDescAttr(rowdesc, k)->attisdropped)
			ncols++;
	if (desc->natts != ncols + 1)
		elog(ERROR, "dynview: delta of %d columns for a table of %d", desc->natts - 1, ncols);
	natts = Max(rowdesc->natts, 1);
	rows->rowdesc = rowdesc;
	rows->natts = rowdesc->natts;
	/* (as SPI's own array of the rows, past 1 GB for a delta of tens of millions of rows) */
	rows->values = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(Datum) * natts * n);
	rows->nulls = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(bool) * natts * n);
	weights = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(int64) * n);
	order = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(DvRowHash) * n);
	groups = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(DeltaGroup) * n);
	tv = palloc(sizeof(Datum) * desc->natts);
	tn = palloc(sizeof(bool) * desc->natts);
	for (uint64 i = 0; i < n; i++)
	{
		Datum	   *va = rows->values + i * rows->natts;
		bool	   *na = rows->nulls + i * rows->natts;
		uint32		h = 0;
		int			c = 0;

		heap_deform_tuple(tt->vals[i], desc, tv, tn);
		for (int k = 0; k < rowdesc->natts; k++)
		{
			Form_pg_attribute att = TupleDescAttr(rowdesc, k);

			if (att->attisdropped)
			{
				va[k] = (Datum) 0;
				na[k] = true;
			}
			else
			{
				va[k] = tv[c];
				na[k] = tn[c];
				c++;
			}
			h = hash_combine(h, na[k] ? 0x9e3779b9 :
							 datum_image_hash(va[k], att->attbyval, att->attlen));
		}
		/* (a NULL weight counts 0, as sum() skips it) */
		weights[i] = tn[ncols] ? 0 : DatumGetInt64(tv[ncols]);
		order[i].hash = h;
		order[i].row = i;
		CHECK_FOR_INTERRUPTS();
	}
	pfree(tv);
	pfree(tn);
	qsort(order, n, sizeof(DvRowHash), dv_row_hash_compare);
	for (uint64 s = 0; s < n;)
	{
		uint64		e = s + 1;
		uint64		run_first = count;

		while (e < n && order[e].hash == order[s].hash)
			e++;
		for (uint64 j = s; j < e; j++)
		{
			uint64		r = order[j].row;
			int64		w = weights[r];
			uint64		g;

			/* the groups of this run of equal hashes: is r the same row as one of them? */
			for (g = run_first; g < count; g++)
			{
				if (delta_rows_same(rows, r, groups[g].first))
					break;
			}
			if (g == count)
			{
				groups[count].first = r;
				groups[count].weight = 0;
				count++;
			}
			if (pg_add_s64_overflow(groups[g].weight, w, &groups[g].weight))
				ereport(ERROR,
						(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
						 errmsg("bigint out of range")));
		}
		s = e;
		CHECK_FOR_INTERRUPTS();
	}
	for (uint64 g = 0; g < count; g++)
	{
		if (groups[g].weight != 0)
			groups[out++] = groups[g];
	}
	pfree(order);
	pfree(weights);
	*ngroups = out;
	return groups;
}

/* free what consolidate_delta allocated in rows */
static void
delta_rows_free(DeltaRows *rows)
{
	if (rows->rowdesc == NULL)
		return;
	pfree(rows->values);
	pfree(rows->nulls);
	FreeTupleDesc(rows->rowdesc);
}

/*
 * register_net - the groups of consolidate_delta as the ephemeral named
 * relation dv_net: dv_row (the row, of the table's row type), dv_key (its
 * text form where its weight is negative, which the DELETEs find the
 * table's rows by; else NULL), dv_weight, then the row's columns apart as
 * dv_c1, dv_c2, ... (its type's columns that are not dropped, in order),
 * which the INSERT reads: "(n.dv_row).*" took each column out of the
 * composite apart, walking it from its start each time past the first
 * column of variable width.  Returns the number of those columns.
 */
static int
register_net(DeltaGroup *groups, uint64 ngroups, DeltaRows *rows)
{
	Tuplestorestate *ts = tuplestore_begin_heap(false, false, work_mem);
	TupleDesc	rowdesc = rows->rowdesc;
	TupleDesc	desc;
	int			ncols = 0;
	Datum	   *values;
	bool	   *nulls;
	FmgrInfo	record_out;
	Oid			out_func;
	bool		varlena;

	for (int k = 0; k < rowdesc->natts; k++)
		if (!TupleDescAttr(rowdesc, k)->attisdropped)
			ncols++;
	desc = CreateTemplateTupleDesc(3 + ncols);
	TupleDescInitEntry(desc, 1, "dv_row", rowdesc->tdtypeid, -1, 0);
	TupleDescInitEntry(desc, 2, "dv_key", TEXTOID, -1, 0);
	TupleDescInitEntryCollation(desc, 2, DEFAULT_COLLATION_OID);
	TupleDescInitEntry(desc, 3, "dv_weight", INT8OID, -1, 0);
	ncols = 0;
	for (int k = 0; k < rowdesc->natts; k++)
	{
		Form_pg_attribute att = TupleDescAttr(rowdesc, k);

		if (att->attisdropped)
			continue;
		ncols++;
		TupleDescInitEntry(desc, 3 + ncols, psprintf("dv_c%d", ncols), att->atttypid, att->atttypmod, 0);
		TupleDescInitEntryCollation(desc, 3 + ncols, att->attcollation);
	}
	getTypeOutputInfo(RECORDOID, &out_func, &varlena);
	fmgr_info(out_func, &record_out);
	values = palloc(sizeof(Datum) * (3 + ncols));
	nulls = palloc(sizeof(bool) * (3 + ncols));
	for (uint64 g = 0; g < ngroups; g++)
	{
		uint64		first = groups[g].first;
		int			c = 3;

		values[0] = dv_row_datum(rows->rowdesc, rows->values + first * rows->natts,
								 rows->nulls + first * rows->natts);
		nulls[0] = false;
		nulls[1] = groups[g].weight >= 0;
		values[1] = nulls[1] ? (Datum) 0 :
			CStringGetTextDatum(OutputFunctionCall(&record_out, values[0]));
		values[2] = Int64GetDatum(groups[g].weight);
		nulls[2] = false;
		for (int k = 0; k < rowdesc->natts; k++)
		{
			if (TupleDescAttr(rowdesc, k)->attisdropped)
				continue;
			values[c] = rows->values[first * rows->natts + k];
			nulls[c] = rows->nulls[first * rows->natts + k];
			c++;
		}
		tuplestore_putvalues(ts, desc, values, nulls);
	}
	dv_register_store("dv_net", ts, desc, ngroups);
	return ncols;
}

/*
 * apply_spj - consolidate the delta (consolidate_delta, in C: no text form
 * of the rows that are inserted), delete the rows with negative net
 * weight (that many copies each), insert those with positive.  Returns false
 * if the table did not hold a row the delta removes (it was not what its
 * data snapshot says): the caller then refreshes in full.
 *
 * A statement whose input is empty is not run (a window of inserts only
 * deletes nothing).  Where the table has a derived key (plan->spj_key, the
 * unique apply index on it), the rows that go are found by their key, one
 * index lookup each, and taken only when their text form is the delta
 * row's (key_delete_sql); rows with a NULL in the key, which "=" does not
 * find, are left to the general statement that follows, run only then.
 * Where a statement would only write rows (apply.c, dv_apply_begin), the
 * lookups by key and the inserts are done directly, without statements,
 * and a row whose key stays is updated in place where nothing could tell
 * that from a delete and an insert; the statements remain for what the
 * direct apply leaves.
 */
static bool
apply_spj(DvTable *dt, DvPlan *plan, Snapshot snapshot, DvRefreshResult *res, int32 *seq)
{
	char	   *target = quote_qualified_identifier(dt->schema_name, dt->table_name);
	char	   *casts = table_columns_as(dt->relid, "d.", true);
	char	   *first = NULL;
	char	   *first_eq = NULL;
	Oid			first_type = InvalidOid;
	uint64		expected = 0;
	uint64		deleted = 0;
	uint64		updated = 0;
	uint64		positive = 0;
	int64		max_weight = 0;
	char	   *key_delete = NULL;
	DeltaGroup *net;
	DeltaRows	net_input;
	uint64		net_rows;
	int			net_cols = 0;
	bool		registered = false;
	SPITupleTable *delta;
	DvApply    *direct;
	DvDeltaRow *drows = NULL;
	StringInfoData del;
	Relation	rel;
	TypeCacheEntry *tc;

	/*
	 * The delta of the result, each row's columns cast to the table's
	 * column types, then consolidated here: one row per distinct row, net
	 * weight.  (No composite value per row, and no text form: the direct
	 * apply compares a table row's image first, register_net makes the
	 * text forms where a statement needs them.)
	 */
	dv_exec_at(psprintf("WITH dv_d AS (%s) SELECT %s, d.dv_weight::pg_catalog.int8 AS dv_weight FROM dv_d d",
						dv_delta_sql(plan), casts),
			   snapshot, true);
	delta = SPI_tuptable;
	net = consolidate_delta(delta, SPI_processed, get_rel_type_id(dt->relid), &net_rows, &net_input);
	for (uint64 i = 0; i < net_rows; i++)
	{
		int64		w = net[i].weight;

		if (w < 0)
			expected += (uint64) -w;
		else
		{
			positive++;
			max_weight = Max(max_weight, w);
		}
	}

	/*
	 * The direct apply (apply.c) where statements would only write the
	 * rows: the delta's rows as they are, no dv_net, no statement; what it
	 * cannot do (rows with a NULL key, a table without a unique key index,
	 * rows it did not find) is left to the statements below.  (The delta's
	 * SPI result, into which the rows' values point, lives until SPI ends.)
	 */
	direct = net_rows > 0 ? dv_apply_begin(dt, plan->spj_key) : NULL;
	if (direct != NULL)
	{
		drows = palloc(sizeof(DvDeltaRow) * net_rows);
		for (uint64 g = 0; g < net_rows; g++)
		{
			uint64		row = net[g].first;

			drows[g].values = net_input.values + row * net_input.natts;
			drows[g].nulls = net_input.nulls + row * net_input.natts;
			drows[g].weight = net[g].weight;
		}
	}
	/*
	 * (a row whose key stays and whose other columns change is updated in
	 * place: one index lookup, and no new index entry where the update is
	 * HOT, instead of a delete and an insert)
	 */
	if (expected > 0 && positive > 0 && direct != NULL && dv_apply_can_delete(direct))
	{
		updated = dv_apply_update(direct, drows, net_rows, snapshot, seq);
		/*
		 * (the rows it applied are out of dv_net too: a statement below must
		 * not look for them, nor delete a new version whose text form is the
		 * old row's, two images of one text form, and so fail the count)
		 */
		for (uint64 g = 0; g < net_rows && updated > 0; g++)
			if (drows[g].weight == 0)
				net[g].weight = 0;
	}
	if (expected > 0 && direct != NULL && dv_apply_can_delete(direct))
		deleted = updated + dv_apply_delete(direct, drows, net_rows, snapshot, seq);
	else if (expected > 0 && plan->spj_key != NIL)
	{
		key_delete = key_delete_sql(dt, plan->spj_key, target);
		if (key_delete != NULL)
		{
			net_cols = register_net(net, net_rows, &net_input);
			registered = true;
			deleted = dv_exec_at(key_delete, snapshot, false);
			dv_write_own_buffer(dt, SPI_tuptable, deleted, -1, seq);
		}
	}

	/*
	 * Find victims through the first column of the apply index: the derived
	 * key's first column, or the table's first column (indexed at creation)
	 * when it has equality.
	 */
	rel = relation_open(dt->relid, AccessShareLock);
	for (int i = 0; i < RelationGetDescr(rel)->natts && first == NULL; i++)
	{
		Form_pg_attribute att = TupleDescAttr(RelationGetDescr(rel), i);

		if (att->attisdropped)
			continue;
		if (plan->spj_key != NIL && strcmp(NameStr(att->attname), linitial(plan->spj_key)) != 0)
			continue;
		tc = lookup_type_cache(att->atttypid, TYPECACHE_EQ_OPR);
		/* arrays: "= ANY (ARRAY(...))" would compare an element with an array */
		first = OidIsValid(tc->eq_opr) && !type_is_array(att->atttypid)
			? pstrdup(quote_identifier(NameStr(att->attname))) : pstrdup("");
		if (first[0])
		{
			first_eq = dv_equality_operator(att->atttypid);
			first_type = att->atttypid;
		}
	}
	relation_close(rel, AccessShareLock);

	/*
	 * The victims: rows of the table whose text form is that of a row with
	 * negative weight, numbered per text form, at most that many each.  The
	 * first column narrows the candidates: for a few rows as an array, so
	 * that the planner finds them through the index on it whatever it
	 * estimates for the ephemeral relation; for many as a semi-join (index
	 * or hash), since "= ANY" of a computed array compares each row with
	 * every element (quadratic), and so does an IN that is not a top-level
	 * condition once its hash table outgrows work_mem.  The text forms are
	 * then matched by a join, not by "= ANY" (quadratic too), so the cost
	 * grows with the change.
	 */
	initStringInfo(&del);
	appendStringInfo(&del,
					 "WITH dv_neg AS MATERIALIZED (SELECT dv_key, dv_row, -dv_weight AS dv_n FROM dv_net WHERE dv_weight < 0), "
					 "dv_candidates AS MATERIALIZED (SELECT dv_tt.ctid AS dv_ctid, ROW(dv_tt.*)::text AS dv_key "
					 "  FROM %s dv_tt WHERE ",
					 target);
	if (first && first[0] && expected <= DV_SMALL_CHANGE)
		appendStringInfo(&del, "dv_tt.%s %s ANY (ARRAY(SELECT (dv_row).%s FROM dv_neg)) OR "
						 "(%s AND EXISTS (SELECT 1 FROM dv_neg WHERE %s))",
						 first, first_eq, first,
						 dv_null_test_sql(psprintf("dv_tt.%s", first), first_type),
						 dv_null_test_sql(psprintf("(dv_row).%s", first), first_type));
	else if (first && first[0])
		appendStringInfo(&del, "dv_tt.%s %s ANY (SELECT (dv_row).%s FROM dv_neg) "
						 "UNION ALL SELECT dv_tt.ctid, ROW(dv_tt.*)::text FROM %s dv_tt "
						 "  WHERE %s AND EXISTS (SELECT 1 FROM dv_neg WHERE %s)",
						 first, first_eq, first, target,
						 dv_null_test_sql(psprintf("dv_tt.%s", first), first_type),
						 dv_null_test_sql(psprintf("(dv_row).%s", first), first_type));
	else
		appendStringInfoString(&del, "true");
	appendStringInfo(&del,
					 "), "
					 "dv_victims AS (SELECT c.dv_ctid, n.dv_n, "
					 "  pg_catalog.row_number() OVER (PARTITION BY c.dv_key) AS dv_rn "
					 "  FROM dv_candidates c JOIN dv_neg n ON c.dv_key = n.dv_key), "
					 "dv_gone AS (SELECT dv_ctid FROM dv_victims WHERE dv_rn <= dv_n) "
					 "DELETE FROM %s dv_tt WHERE dv_tt.ctid = ANY (ARRAY(SELECT dv_ctid FROM dv_gone)) RETURNING dv_tt.*",
					 target);
	/* (not run when nothing is left to delete: a window of inserts, or every row found by key) */
	if (deleted < expected)
	{
		uint64		more;

		if (!registered)
		{
			net_cols = register_net(net, net_rows, &net_input);
			registered = true;
		}
		more = dv_exec_at(del.data, snapshot, false);

		/* what was deleted goes to the own buffer even if a FULL refresh follows */
		dv_write_own_buffer(dt, SPI_tuptable, more, -1, seq);
		deleted += more;
	}
	if (deleted != expected)
	{
		if (direct != NULL)
			dv_apply_end(direct);
		if (registered)
			dv_unregister_tuples("dv_net");
		delta_rows_free(&net_input);
		return false;
	}
	res->rows_deleted = (int64) deleted;

	if (positive > 0 && direct != NULL)
		res->rows_inserted = (int64) (updated + dv_apply_insert(direct, drows, net_rows, snapshot, seq));
	/* (copies of a row only where a weight is above 1: no function scan per row) */
	else if (positive > 0)
	{
		StringInfoData flat;

		if (!registered)
		{
			net_cols = register_net(net, net_rows, &net_input);
			registered = true;
		}

		initStringInfo(&flat);
		for (int k = 1; k <= net_cols; k++)
			appendStringInfo(&flat, "%sn.dv_c%d", k > 1 ? ", " : "", k);
		res->rows_inserted = (int64) dv_exec_at(psprintf("INSERT INTO %s SELECT %s FROM dv_net n%s "
													  "WHERE n.dv_weight > 0 RETURNING *", target, flat.data,
													  max_weight > 1 ? ", pg_catalog.generate_series(1, n.dv_weight)" : ""),
											 snapshot, false);
		dv_write_own_buffer(dt, SPI_tuptable, (uint64) res->rows_inserted, +1, seq);
	}
	if (direct != NULL)
		dv_apply_end(direct);
	if (registered)
		dv_unregister_tuples("dv_net");
	delta_rows_free(&net_input);
	return true;
}

/*
 * A set of values of one type, by image (datum_image_eq, datum_image_hash):
 * PostgreSQL's simplehash, the type's byval and len its private data.
 */
typedef struct ImageType
{
	bool		byval;
	int16		len;
} ImageType;

typedef struct ImageEntry
{
	Datum		value;
	char		status;			/* (simplehash's) */
} ImageEntry;

#define SH_PREFIX imageset
#define SH_ELEMENT_TYPE ImageEntry
#define SH_KEY_TYPE Datum
#define SH_KEY value
#define SH_HASH_KEY(tb, key) \
	datum_image_hash(key, ((ImageType *) (tb)->private_data)->byval, ((ImageType *) (tb)->private_data)->len)
#define SH_EQUAL(tb, a, b) \
	datum_image_eq(a, b, ((ImageType *) (tb)->private_data)->byval, ((ImageType *) (tb)->private_data)->len)
#define SH_SCOPE static inline
#define SH_DECLARE
#define SH_DEFINE
#include "lib/simplehash.h"

/*
 * restriction_values - bind the non-NULL values of key column k (0-based,
 * of base type type) among the n rows of tt (only those whose NULL pattern
 * is pattern, when row_pattern is not NULL) as parameter $(*nargs + 1) of
 * params, an array of the type, each value once (by its image); returns that
 * parameter's number, or 0 when there is no such value (nothing bound).
 */
static int
restriction_values(DvParams *params, int *nargs, SPITupleTable *tt, uint64 n, int k, Oid type,
				   const int *row_pattern, int pattern)
{
	Datum	   *elems = palloc(sizeof(Datum) * Max(n, 1));
	int			nvals = 0;
	int16		typlen;
	bool		typbyval;
	char		typalign;

	for (uint64 i = 0; i < n; i++)
	{
		bool		isnull;
		Datum		v;

		if (row_pattern && row_pattern[i] != pattern)
			continue;
		v = SPI_getbinval(tt->vals[i], tt->tupdesc, k + 1, &isnull);
		if (!isnull)
			elems[nvals++] = v;
	}
	if (nvals == 0)
		return 0;
	get_typlenbyvalalign(type, &typlen, &typbyval, &typalign);

	/*
	 * (each value once: a column of few values repeats them once per changed
	 * group, and the planner estimates "= ANY" element by element, a filter
	 * compares a row with each; identical images are equal whatever the
	 * type's equality, and equal values of different images stay apart)
	 */
	if (nvals > 1)
	{
		ImageType	image_type = {typbyval, typlen};
		imageset_hash *seen = imageset_create(CurrentMemoryContext, nvals, &image_type);
		int			kept = 0;

		for (int i = 0; i < nvals; i++)
		{
			bool		found;

			(void) imageset_insert(seen, elems[i], &found);
			if (!found)
				elems[kept++] = elems[i];
		}
		nvals = kept;
		imageset_destroy(seen);
	}
	params->types[*nargs] = get_array_type(type);
	params->values[*nargs] = PointerGetDatum(construct_array(elems, nvals, type, typlen, typbyval, typalign));
	params->nulls[*nargs] = ' ';
	return ++(*nargs);
}

/* dv_null_patterns: see dynview.h */
List *
dv_null_patterns(SPITupleTable *tt, uint64 n, int ncols, Bitmapset **nulls, int *row_pattern)
{
	List	   *patterns = NIL;
	bool		many = false;

	if (nulls)
		*nulls = NULL;
	for (uint64 i = 0; i < n; i++)
	{
		Bitmapset  *pattern = NULL;
		int			place = 0;

		for (int k = 1; k <= ncols; k++)
		{
			bool		isnull;

			(void) SPI_getbinval(tt->vals[i], tt->tupdesc, k, &isnull);
			if (isnull)
				pattern = bms_add_member(pattern, k);
		}
		if (nulls)
			*nulls = bms_add_members(*nulls, pattern);
		if (many)
			continue;
		while (place < list_length(patterns) && !bms_equal(list_nth(patterns, place), pattern))
			place++;
		if (place == list_length(patterns))
		{
			/* (an empty set is NULL: kept as a list cell all the same) */
			patterns = lappend(patterns, pattern);
			many = list_length(patterns) > DV_NULL_PATTERNS;
		}
		if (row_pattern)
			row_pattern[i] = place;
	}
	return many ? NIL : patterns;
}

/*
 * dv_key_restriction - a condition on alias's key columns that holds for
 * the key values in the first columns of the n rows of tt, which the
 * planner pushes down to an index.  Per column, key = ANY ($k) [OR key IS
 * NULL]: a superset of the keys where there are several columns (every
 * combination of their values).  Where there are several columns and some
 * rows have NULL keys, one arm per pattern of NULLs among the rows instead
 * (dv_null_patterns; beyond its limit, the per-column form): its NULL
 * columns IS NULL, each other column = ANY of the values of the rows of
 * that pattern, which an index on the columns takes whole; the per-column
 * form's "OR key IS NULL" read every row with a NULL in that column, in
 * proportion to the data rather than to the change.
 *
 * The values are bound as parameters, arrays of the key's own type, so
 * that they keep their exact value and type modifier (a literal cast to
 * "character[]" would be cut to one character); params (palloc'd in the
 * current memory context) gets them, the same for every alias given the
 * same tt.  "=" is the type's default equality written by OID
 * (dv_equality_operator), found whatever the search_path.  A column whose
 * type has no equality, or an array (= ANY would compare its elements),
 * does not narrow (only its IS NULL in an arm).  exact (when not NULL) is
 * set to whether the condition holds for exactly those keys: no key column,
 * one that narrows, or arms that each narrow one column at most, all the
 * others NULL in it; never with a row-type key (its IS NULL also holds for
 * a row of NULL fields, another group).
 */
char *
dv_key_restriction(List *columns, const char *alias, SPITupleTable *tt, uint64 n, DvParams *params,
				   bool *exact)
{
	StringInfoData buf;
	ListCell   *lc;
	int			ncols = list_length(columns);
	Oid		   *types = palloc(sizeof(Oid) * Max(ncols, 1));
	bool	   *narrows = palloc(sizeof(bool) * Max(ncols, 1));
	int		   *row_pattern = NULL;
	List	   *patterns = NIL;
	Bitmapset  *nulls = NULL;
	int			nargs = 0;

	params->nargs = ncols;
	params->generic = false;
	params->types = palloc(sizeof(Oid) * Max(ncols, 1));
	params->values = palloc0(sizeof(Datum) * Max(ncols, 1));
	params->nulls = palloc(sizeof(char) * Max(ncols, 1));
	if (exact)
		*exact = ncols <= 1;
	if (columns == NIL)
		return "true";
	foreach(lc, columns)
	{
		int			k = foreach_current_index(lc);

		types[k] = getBaseType(SPI_gettypeid(tt->tupdesc, k + 1));
		narrows[k] = !type_is_array(types[k]) && dv_equality_operator(types[k]) != NULL &&
			OidIsValid(get_array_type(types[k]));
		/* (IS NULL of a row type is also true of a row of NULL fields) */
		if ((!narrows[k] || type_is_rowtype(types[k])) && exact)
			*exact = false;
		/* (an unused parameter still needs a type) */
		params->types[k] = INT4OID;
		params->nulls[k] = 'n';
	}

	/* the patterns of NULL keys among the rows, where there are several columns */
	if (ncols > 1)
	{
		row_pattern = palloc(sizeof(int) * Max(n, 1));
		patterns = dv_null_patterns(tt, n, ncols, &nulls, row_pattern);
	}

	initStringInfo(&buf);
	if (patterns != NIL && nulls != NULL)
	{
		/* one arm per pattern (its parameters numbered in turn) */
		params->nargs = 0;
		params->types = repalloc(params->types, sizeof(Oid) * ncols * list_length(patterns));
		params->values = repalloc(params->values, sizeof(Datum) * ncols * list_length(patterns));
		params->nulls = repalloc(params->nulls, sizeof(char) * ncols * list_length(patterns));
		if (exact)
		{
			*exact = true;
			for (int k = 0; k < ncols; k++)
				*exact &= !type_is_rowtype(types[k]);
		}
		appendStringInfoChar(&buf, '(');
		foreach(lc, patterns)
		{
			Bitmapset  *pattern = lfirst(lc);
			int			p = foreach_current_index(lc);
			int			narrowed = 0;

			appendStringInfoString(&buf, p > 0 ? " OR (" : "(");
			for (int k = 0; k < ncols; k++)
			{
				const char *col = quote_identifier(list_nth(columns, k));
				int			param;

				if (k > 0)
					appendStringInfoString(&buf, " AND ");
				if (bms_is_member(k + 1, pattern))
					appendStringInfo(&buf, "%s.%s IS NULL", alias, col);
				else if (!narrows[k])
				{
					appendStringInfoString(&buf, "true");
					if (exact)
						*exact = false;
				}
				else
				{
					param = restriction_values(params, &nargs, tt, n, k, types[k], row_pattern, p);
					Assert(param > 0);
					appendStringInfo(&buf, "%s.%s %s ANY ($%d)", alias, col,
									 dv_equality_operator(types[k]), param);
					if (++narrowed > 1 && exact)
						*exact = false;
				}
			}
			appendStringInfoChar(&buf, ')');
		}
		appendStringInfoChar(&buf, ')');
		params->nargs = nargs;
		return buf.data;
	}

	foreach(lc, columns)
	{
		int			k = foreach_current_index(lc);
		const char *col = quote_identifier(lfirst(lc));
		bool		has_null = false;

		if (k > 0)
			appendStringInfoString(&buf, " AND ");
		if (!narrows[k])
		{
			appendStringInfoString(&buf, "true");
			continue;
		}
		for (uint64 i = 0; i < n && !has_null; i++)
		{
			bool		isnull;

			(void) SPI_getbinval(tt->vals[i], tt->tupdesc, k + 1, &isnull);
			has_null = isnull;
		}
		/* (parameter k + 1 is column k's) */
		nargs = k;
		appendStringInfoChar(&buf, '(');
		if (restriction_values(params, &nargs, tt, n, k, types[k], NULL, 0) > 0)
			appendStringInfo(&buf, "%s.%s %s ANY ($%d)", alias, col, dv_equality_operator(types[k]), k + 1);
		else
			appendStringInfoString(&buf, "false");
		if (has_null)
			appendStringInfo(&buf, " OR %s.%s IS NULL", alias, col);
		appendStringInfoChar(&buf, ')');
	}
	return buf.data;
}

/*
 * apply_grouped - recompute the groups whose keys the input's delta touches
 * and write the difference with their current rows.  The restriction is a
 * superset filter per key column (key = ANY(array) [OR key IS NULL]) that the
 * planner pushes into the aggregation, applied alike to the table and the
 * query, so the diff is exact.
 */
static void
apply_grouped(DvTable *dt, DvPlan *plan, Snapshot snapshot, DvRefreshResult *res, int32 *seq)
{
	StringInfoData keys_sql;
	char	   *restrict_q;
	char	   *restrict_t;
	ListCell   *lc;
	uint64		nkeys;
	DvParams	params;

	initStringInfo(&keys_sql);
	appendStringInfoString(&keys_sql, "SELECT DISTINCT ");
	foreach(lc, plan->key_delta_names ? plan->key_delta_names : plan->key_columns)
		appendStringInfo(&keys_sql, "%sd.%s", foreach_current_index(lc) ? ", " : "",
						 quote_identifier(lfirst(lc)));
	appendStringInfo(&keys_sql, " FROM (%s) d", dv_delta_sql(plan));
	nkeys = dv_exec_at(keys_sql.data, snapshot, true);
	if (nkeys == 0)
		return;					/* the changes touch no group */

	restrict_q = dv_key_restriction(plan->key_columns, "dv_q", SPI_tuptable, nkeys, &params, NULL);
	restrict_t = dv_key_restriction(plan->key_columns, "dv_t", SPI_tuptable, nkeys, &params, NULL);
	/* the query once, the difference applied in one pass */
	dv_full_refresh_restricted(dt, NULL, restrict_q, restrict_t, &params, snapshot, res, seq);
}

/*
 * before_sql - "the row of alias sorts strictly before the boundary row"
 * in a WINDOW plan's order, the boundary's values being $1..$n: the first
 * sort key that differs (NULLs equal to NULLs, as in a sort) decides, by
 * the sort operator or where NULLs go.  Never NULL.
 */
static char *
before_sql(DvPlan *plan, const char *alias)
{
	StringInfoData buf;
	StringInfoData equal_so_far;
	ListCell   *lc;

	initStringInfo(&buf);
	initStringInfo(&equal_so_far);
	foreach(lc, plan->window_order)
	{
		DvSortKey  *key = lfirst(lc);
		int			k = foreach_current_index(lc) + 1;
		char	   *col = psprintf("%s.%s%s", alias, quote_identifier(key->column),
								   OidIsValid(key->collation) ? psprintf(" COLLATE %s", generate_collation_name(key->collation)) : "");

		appendStringInfo(&buf, "%s(%s(COALESCE(%s %s $%d, false) OR (%s IS %sNULL AND $%d IS %sNULL)))",
						 k > 1 ? " OR " : "", equal_so_far.data,
						 col, dv_operator_sql(key->sortop), k,
						 col, key->nulls_first ? "" : "NOT ", k, key->nulls_first ? "NOT " : "");
		appendStringInfo(&equal_so_far, "((%s IS NULL AND $%d IS NULL) OR COALESCE(%s %s $%d, false)) AND ",
						 col, k, col, dv_operator_sql(key->eqop), k);
	}
	return buf.data;
}

/* a window table of at most this many pages: its boundary statement's generic plan is kept */
#define WINDOW_GENERIC_MAX_PAGES 128

/*
 * apply_window - refresh a WINDOW plan's table from the changed rows of its
 * input (consolidated: rows recomputed alike cancel out).  Without
 * PARTITION BY: the first changed row in the window's order is the
 * boundary; the table's rows and the query's rows that do not sort before
 * it are diffed (the query's windows evaluated over all its rows, its
 * output restricted).  With PARTITION BY: the partitions whose keys the
 * changed rows have, as apply_grouped.
 */
static void
apply_window(DvTable *dt, DvPlan *plan, Snapshot snapshot, DvRefreshResult *res, int32 *seq)
{
	StringInfoData row;
	StringInfoData keys;
	char	   *changed;
	char	   *restrict_q;
	char	   *restrict_t;
	ListCell   *lc;
	uint64		n;
	DvParams	params;

	initStringInfo(&row);
	foreach(lc, plan->window_input_columns)
		appendStringInfo(&row, "%sd.%s", row.len ? ", " : "", quote_identifier(lfirst(lc)));
	changed = psprintf("SELECT * FROM (SELECT d.*, pg_catalog.sum(d.dv_weight) OVER (PARTITION BY ROW(%s)::text) AS dv_net "
					   "FROM (%s) d) d WHERE d.dv_net <> 0",
					   row.data, dv_delta_sql(plan));
	initStringInfo(&keys);
	if (plan->window_order == NIL)
	{
		foreach(lc, plan->key_columns)
			appendStringInfo(&keys, "%sd.%s", keys.len ? ", " : "", quote_identifier(lfirst(lc)));
		n = dv_exec_at(psprintf("SELECT DISTINCT %s FROM (%s) d", keys.data, changed), snapshot, true);
		if (n == 0)
			return;				/* the changes cancel out */
		restrict_q = dv_key_restriction(plan->key_columns, "dv_q", SPI_tuptable, n, &params, NULL);
		restrict_t = dv_key_restriction(plan->key_columns, "dv_t", SPI_tuptable, n, &params, NULL);
	}
	else
	{
		int			nkeys = list_length(plan->window_order);

		foreach(lc, plan->window_order)
			appendStringInfo(&keys, "%sd.%s", keys.len ? ", " : "",
							 quote_identifier(((DvSortKey *) lfirst(lc))->column));
		n = dv_exec_at(psprintf("SELECT %s FROM (%s) d ORDER BY %s LIMIT 1",
								keys.data, changed, dv_window_order_sql(plan, "d")),
					   snapshot, true);
		if (n == 0)
			return;				/* the changes cancel out */
		params.nargs = nkeys;

		/*
		 * (the windows are computed over every row whatever the boundary,
		 * which narrows only the table's side: a custom plan may read that
		 * by an index, but a table of at most WINDOW_GENERIC_MAX_PAGES is
		 * read whole for less than planning the statement again costs, so
		 * its generic plan is kept: statements.c)
		 */
		{
			Relation	rel = table_open(dt->relid, AccessShareLock);

			params.generic = RelationGetNumberOfBlocks(rel) <= WINDOW_GENERIC_MAX_PAGES;
			table_close(rel, AccessShareLock);
		}
		params.types = palloc(sizeof(Oid) * nkeys);
		params.values = palloc0(sizeof(Datum) * nkeys);
		params.nulls = palloc(sizeof(char) * nkeys);
		for (int k = 0; k < nkeys; k++)
		{
			bool		isnull;
			Datum		v = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, k + 1, &isnull);
			int16		typlen;
			bool		typbyval;

			params.types[k] = getBaseType(SPI_gettypeid(SPI_tuptable->tupdesc, k + 1));
			get_typlenbyval(params.types[k], &typlen, &typbyval);
			params.nulls[k] = isnull ? 'n' : ' ';
			params.values[k] = isnull ? (Datum) 0 : datumCopy(v, typbyval, typlen);
		}
		restrict_q = psprintf("NOT (%s)", before_sql(plan, "dv_q"));
		restrict_t = psprintf("NOT (%s)", before_sql(plan, "dv_t"));
	}
	/* the query once, the difference applied in one pass */
	dv_full_refresh_restricted(dt, NULL, restrict_q, restrict_t, &params, snapshot, res, seq);
}

/*
 * apply_topn - refresh a top-N table (ORDER BY ... LIMIT n [OFFSET m]) from
 * the changed rows of its input (consolidated: a row recomputed alike
 * cancels out), computed once.  Returns false with *why when the table
 * must be recomputed (TOP_N_CHANGED).
 *
 * If no changed row sorts before or with the table's last row L (and the
 * table holds n rows), the first rows of the result are the ones it holds:
 * nothing to write.  Otherwise, without OFFSET, the candidates C are the
 * held rows with the changes added (a multiset by the text of the rows):
 * every row of the result that C lacks is an old row the table did not
 * hold, which sorts with or after L.  So the first n rows of C are the
 * new table when C has n rows and its n-th sorts strictly before L (or
 * ties with it where rows that tie are alike, topn_unique_order: the sort
 * keys are every column, or hold a key of the rows), or when the table
 * held fewer than n rows (it held the whole result); where tied rows need
 * not be alike, the n-th row of C must also sort strictly before the next
 * one, so that the first n are one set whatever the plan.  Those rows are
 * diffed with the table; anything else recomputes.
 */
static bool
topn_first(DvTable *dt, DvPlan *plan, Snapshot snapshot, const char *flag, const char *a_sql,
		   const char *b_sql, bool ties_to_a)
{
	char	   *cols = table_columns(dt->relid, "");
	bool		isnull;
	int32		first;

	if (dv_exec_at(psprintf("SELECT %s FROM (SELECT %s, 0 AS %s FROM (%s) a UNION ALL SELECT %s, 1 FROM (%s) b) u "
							"ORDER BY %s, %s %s LIMIT 1",
							flag, cols, flag, a_sql, cols, b_sql, plan->topn_order, flag, ties_to_a ? "ASC" : "DESC"),
				   snapshot, true) != 1)
		elog(ERROR, "dynview: could not compare the rows of a top-N table");
	first = DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	return !isnull && first == 0;
}

/*
 * apply_topn_state - apply_topn with the state of the input's first rows
 * (aggstate.c): the changed rows dv_topn_changed that sort strictly before
 * the bound are added to the state (a row it lacks that the changes remove
 * means it was not what its definition says: false), and the first n rows
 * of the new state are the table, unless the state holds fewer than n rows
 * before its bound: then it is filled again from the input (one evaluation
 * of the query with the state's LIMIT, TOP_N_STATE_REFILLED) and the table
 * taken from it.  Rows that tie at the limit without being alike recompute
 * (false).  When no change reaches the table's rows (reaches false: every
 * changed row sorts after its last row, which it held n of), only the
 * state changes.
 */
/*
 * write_topn_state - the new state dv_topn_new (nstate rows, every row of
 * the input before the bound, which stays) into the state table; one that
 * grew beyond twice its size gets a new bound, its row topn_state_rows + 1.
 */
static void
write_topn_state(DvTable *dt, DvPlan *plan, Snapshot snapshot, bool has_bound, uint64 nstate)
{
	char	   *state = dv_topn_state_table(dt->relid, false);

	if (has_bound && nstate > 2 * (uint64) plan->topn_state_rows)
	{
		dv_topn_state_store(dt, plan, snapshot, "dv_topn_new", nstate);
		return;
	}
	dv_exec_at(psprintf("DELETE FROM %s", state), snapshot, false);
	dv_exec_at(psprintf("INSERT INTO %s SELECT %s FROM dv_topn_new", state, table_columns(dt->relid, "")),
			   snapshot, false);
}

static bool
apply_topn_state(DvTable *dt, DvPlan *plan, Snapshot snapshot, DvRefreshResult *res, int32 *seq, char **why,
				 bool reaches)
{
	char	   *target = quote_qualified_identifier(dt->schema_name, dt->table_name);
	char	   *state = dv_topn_state_table(dt->relid, false);
	char	   *bound = dv_topn_state_table(dt->relid, true);
	char	   *cols = table_columns(dt->relid, "");
	char	   *ccols = table_columns(dt->relid, "(c.dv_row).");
	char	   *vcols = table_columns(dt->relid, "v.");
	char	   *flag = dv_unused_column_name(dt->relid, "dv_src");
	char	   *before = dv_unused_column_name(dt->relid, "dv_bounds_before");
	char	   *weight = dv_unused_column_name(dt->relid, "dv_weight");
	char	   *delete_sql;
	char	   *insert_sql;
	bool		has_bound;
	bool		isnull;
	uint64		nstate;
	uint64		i;

	/*
	 * (Statements that read the state run as writes, read_only false: they
	 * see what this transaction wrote into it since the snapshot was taken,
	 * as a fill from the input just before.)
	 */

	has_bound = dv_exec_at(psprintf("SELECT 1 FROM %s", bound), snapshot, false) > 0;

	/* the state with the changes before the bound added, by the rows' text */
	dv_exec_at(psprintf("WITH dv_f AS (%s), "
						"dv_u AS (SELECT ROW(s.*)::%s AS dv_row, 1::pg_catalog.int8 AS dv_weight FROM %s s "
						"  UNION ALL SELECT dv_f.dv_row, dv_f.dv_weight FROM dv_f) "
						"SELECT (pg_catalog.array_agg(u.dv_row))[1] AS dv_row, pg_catalog.sum(u.dv_weight)::pg_catalog.int8 AS dv_n "
						"FROM dv_u u GROUP BY u.dv_row::text HAVING pg_catalog.sum(u.dv_weight) <> 0",
						has_bound ?
						psprintf("SELECT ROW(%s)::%s AS dv_row, v.%s AS dv_weight FROM ("
								 "  SELECT *, pg_catalog.count(*) FILTER (WHERE %s = 1) OVER (ORDER BY %s, %s DESC ROWS UNBOUNDED PRECEDING) AS %s"
								 "  FROM (SELECT %s, c.dv_weight AS %s, 0 AS %s FROM dv_topn_changed c"
								 "        UNION ALL SELECT %s, 0, 1 FROM %s) dv_w) v "
								 "WHERE v.%s = 0 AND v.%s = 0",
								 vcols, target, weight,
								 flag, plan->topn_order, flag, before,
								 ccols, weight, flag, cols, bound,
								 flag, before) :
						"SELECT c.dv_row, c.dv_weight FROM dv_topn_changed c",
						target, state),
			   snapshot, false);
	for (i = 0; i < SPI_processed; i++)
	{
		if (DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2, &isnull)) < 0)
		{
			*why = pstrdup("The state of the top-N table (its input's first rows) did not hold a row that the changes remove; the table was recomputed.");
			return false;
		}
	}
	dv_register_tuples("dv_topn_state");
	nstate = dv_exec_at(psprintf("SELECT %s FROM dv_topn_state c, pg_catalog.generate_series(1, c.dv_n) ORDER BY %s",
								 ccols, plan->topn_order),
						snapshot, true);
	dv_unregister_tuples("dv_topn_state");
	dv_register_tuples("dv_topn_new");

	if (!reaches)
	{
		/* every change sorts after the table's last row: the state only */
		write_topn_state(dt, plan, snapshot, has_bound, nstate);
		dv_unregister_tuples("dv_topn_new");
		return true;
	}
	if (has_bound && nstate < (uint64) plan->topn_rows)
	{
		/* fewer than n rows before the bound: the state anew from the input */
		dv_unregister_tuples("dv_topn_new");
		dv_topn_state_fill(dt, plan, snapshot);
		nstate = dv_exec_at(psprintf("SELECT %s FROM %s ORDER BY %s", cols, state, plan->topn_order), snapshot, false);
		dv_register_tuples("dv_topn_new");
		has_bound = dv_exec_at(psprintf("SELECT 1 FROM %s", bound), snapshot, false) > 0;
		res->mode_reason_code = "TOP_N_STATE_REFILLED";
		res->mode_reason = psprintf("Held rows of the top-N table left or sank and its state held fewer than " INT64_FORMAT " rows before its bound: the state was filled again from the query (LIMIT " INT64_FORMAT ") and the table taken from it.",
									plan->topn_rows, plan->topn_state_rows + 1);
		if (has_bound && nstate < (uint64) plan->topn_rows)
		{
			dv_unregister_tuples("dv_topn_new");
			*why = pstrdup("The rows of the query under ORDER BY ... LIMIT tie in its order beyond the state the table keeps: the table was recomputed.");
			return false;
		}
	}
	else
		write_topn_state(dt, plan, snapshot, has_bound, nstate);

	/*
	 * Every row of the input that sorts before the bound is in the state, so
	 * its first n rows are the result's, unless the n-th ties with the next
	 * where tied rows need not be alike (the query's plan picks).
	 */
	if (!plan->topn_unique_order && nstate > (uint64) plan->topn_rows &&
		!topn_first(dt, plan, snapshot, dv_unused_column_name(dt->relid, "dv_src"),
					psprintf("SELECT * FROM dv_topn_new ORDER BY %s OFFSET %lld LIMIT 1", plan->topn_order,
							 (long long) (plan->topn_rows - 1)),
					psprintf("SELECT * FROM dv_topn_new ORDER BY %s OFFSET %lld LIMIT 1", plan->topn_order,
							 (long long) plan->topn_rows),
					false))
	{
		dv_unregister_tuples("dv_topn_new");
		*why = psprintf("Rows of the query under ORDER BY ... LIMIT tie at its limit (" INT64_FORMAT " rows) without being alike, so which of them it keeps is up to its plan: the table was recomputed.",
						plan->topn_rows);
		return false;
	}
	dv_full_refresh_sql(dt, psprintf("SELECT * FROM dv_topn_new ORDER BY %s LIMIT %lld", plan->topn_order,
									 (long long) plan->topn_rows),
						NULL, NULL, &delete_sql, &insert_sql, true);
	res->rows_deleted = (int64) dv_exec_at(delete_sql, snapshot, false);
	dv_write_own_buffer(dt, SPI_tuptable, (uint64) res->rows_deleted, -1, seq);
	res->rows_inserted = (int64) dv_exec_at(insert_sql, snapshot, false);
	dv_write_own_buffer(dt, SPI_tuptable, (uint64) res->rows_inserted, +1, seq);
	dv_unregister_tuples("dv_topn_new");
	return true;
}

static bool
apply_topn(DvTable *dt, DvPlan *plan, Snapshot snapshot, DvRefreshResult *res, int32 *seq, char **why)
{
	char	   *target = quote_qualified_identifier(dt->schema_name, dt->table_name);
	char	   *cols = table_columns(dt->relid, "");
	char	   *dcols = table_columns(dt->relid, "d.");
	bool		isnull;
	int64		held;
	int32		first;
	uint64		ncand;
	char	   *flag = pstrdup("dv_src");
	char	   *delete_sql;
	char	   *insert_sql;
	char	   *nth;
	bool		ok;
	bool		reaches = true;

	/* LIMIT 0: the result is empty whatever changed */
	if (plan->topn_rows <= 0)
		return true;

	/* the input's changed rows, as rows of the table with their net weight */
	if (dv_exec_at(psprintf("WITH dv_d AS (%s) "
							"SELECT (pg_catalog.array_agg(ROW(%s)::%s))[1] AS dv_row, "
							"  pg_catalog.sum(d.dv_weight)::pg_catalog.int8 AS dv_weight FROM dv_d d "
							"GROUP BY ROW(%s)::text HAVING pg_catalog.sum(d.dv_weight) <> 0",
							dv_delta_sql(plan), dcols, target, dcols),
				   snapshot, true) == 0)
		return true;			/* the changes cancel out */
	dv_register_tuples("dv_topn_changed");

	/*
	 * the column that tells the table's row from the changed ones must not
	 * share a name with a column of the result (ORDER BY names them)
	 */
	while (get_attnum(dt->relid, flag) != InvalidAttrNumber)
		flag = psprintf("%s_", flag);
	flag = pstrdup(quote_identifier(flag));
	if (dv_exec_at(psprintf("SELECT pg_catalog.count(*) FROM %s", target), snapshot, true) != 1)
		elog(ERROR, "dynview: could not count the rows of %s", target);
	held = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));

	/* the first of the changed rows and the table's last row, in the query's order */
	if (held >= plan->topn_rows)
	{
		if (dv_exec_at(psprintf("SELECT %s FROM (SELECT %s, 0 AS %s FROM (SELECT * FROM %s ORDER BY %s OFFSET %lld LIMIT 1) b "
								"  UNION ALL SELECT (c.dv_row).*, 1 FROM dv_topn_changed c) u "
								"ORDER BY %s, %s DESC LIMIT 1",
								flag, cols, flag, target, plan->topn_order, (long long) (plan->topn_rows - 1),
								plan->topn_order, flag),
					   snapshot, true) != 1)
			elog(ERROR, "dynview: could not compare the changes with the rows of %s", target);
		first = DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
		reaches = isnull || first != 0;
	}
	if (plan->topn_state_rows > 0 && dv_topn_state_usable(dt))
	{
		ok = apply_topn_state(dt, plan, snapshot, res, seq, why, reaches);
		dv_unregister_tuples("dv_topn_changed");
		return ok;
	}
	if (!reaches)
	{
		dv_unregister_tuples("dv_topn_changed");
		return true;			/* every change sorts after the table's rows */
	}
	if (plan->topn_offset > 0)
	{
		*why = held < plan->topn_rows
			? psprintf("The table holds fewer rows than its LIMIT (" INT64_FORMAT " of " INT64_FORMAT "), so every change of the query under ORDER BY ... LIMIT reaches it: the table was recomputed.",
					   held, plan->topn_rows)
			: pstrdup("A changed row sorts before or with the last row the table holds (ORDER BY ... LIMIT with OFFSET): the table was recomputed.");
		dv_unregister_tuples("dv_topn_changed");
		return false;
	}

	/* the candidates: the held rows with the changes added, their first n + 1 */
	ncand = dv_exec_at(psprintf("WITH dv_u AS (SELECT ROW(t.*)::%s AS dv_row, 1::pg_catalog.int8 AS dv_weight FROM %s t "
								"  UNION ALL SELECT c.dv_row, c.dv_weight FROM dv_topn_changed c), "
								"dv_c AS (SELECT (pg_catalog.array_agg(u.dv_row))[1] AS dv_row, pg_catalog.sum(u.dv_weight) AS dv_n "
								"  FROM dv_u u GROUP BY u.dv_row::text HAVING pg_catalog.sum(u.dv_weight) > 0) "
								"SELECT (c.dv_row).* FROM dv_c c, pg_catalog.generate_series(1, c.dv_n) ORDER BY %s LIMIT %lld",
								target, target, plan->topn_order, (long long) plan->topn_rows + 1),
					   snapshot, true);
	dv_register_tuples("dv_topn_new");
	nth = psprintf("SELECT * FROM dv_topn_new ORDER BY %s OFFSET %lld LIMIT 1", plan->topn_order,
				   (long long) (plan->topn_rows - 1));

	/*
	 * A table that held n rows: C must have n rows whose n-th sorts before
	 * the table's last row, or ties with it where tied rows are alike.
	 */
	ok = true;
	if (held >= plan->topn_rows)
		ok = ncand >= (uint64) plan->topn_rows &&
			topn_first(dt, plan, snapshot, flag, nth,
					   psprintf("SELECT * FROM %s ORDER BY %s OFFSET %lld LIMIT 1", target, plan->topn_order,
								(long long) (plan->topn_rows - 1)),
					   plan->topn_unique_order);

	/*
	 * Where rows can tie without being alike, which of them the query keeps
	 * is up to its plan: the n-th candidate must sort strictly before the
	 * next one, so that the first n rows are one set whatever the plan.
	 */
	if (ok && !plan->topn_unique_order && ncand > (uint64) plan->topn_rows)
		ok = topn_first(dt, plan, snapshot, flag, nth,
						psprintf("SELECT * FROM dv_topn_new ORDER BY %s OFFSET %lld LIMIT 1", plan->topn_order,
								 (long long) plan->topn_rows),
						false);
	if (ok)
	{
		dv_full_refresh_sql(dt, psprintf("SELECT * FROM dv_topn_new ORDER BY %s LIMIT %lld", plan->topn_order,
										 (long long) plan->topn_rows),
							NULL, NULL, &delete_sql, &insert_sql, true);
		res->rows_deleted = (int64) dv_exec_at(delete_sql, snapshot, false);
		dv_write_own_buffer(dt, SPI_tuptable, (uint64) res->rows_deleted, -1, seq);
		res->rows_inserted = (int64) dv_exec_at(insert_sql, snapshot, false);
		dv_write_own_buffer(dt, SPI_tuptable, (uint64) res->rows_inserted, +1, seq);
	}
	else
		*why = psprintf("A changed row sorts before or with the last row the table holds (ORDER BY ... LIMIT), and the held rows with the changes do not give the first " INT64_FORMAT " rows (a held row left or sank, or rows tie at the limit): the table was recomputed.",
						plan->topn_rows);
	dv_unregister_tuples("dv_topn_new");
	dv_unregister_tuples("dv_topn_changed");
	return ok;
}

/*
 * too_many_changes - is the window of an AUTO table (total change rows,
 * consolidated) larger than dynview.full_refresh_change_ratio of its
 * sources' rows?  Then recomputing costs less than applying: applying
 * costs per change row about what a recompute costs per source row, or
 * more (old and new images, the state of aggregates), as adaptive
 * refreshes elsewhere (Snowflake's) also conclude.  Source sizes are the
 * planner's estimates (pg_class, or the size on disk if never analysed);
 * a source read more than once counts that often, like its window.  A
 * window of up to DV_SMALL_CHANGE rows is always applied.
 */
static bool
too_many_changes(DvTable *dt, DvPlan *plan, int64 total)
{
	double		rows = 0;
	ListCell   *lc;

	/* a small window is applied in milliseconds whatever the sources' size */
	if (strcmp(dt->refresh_mode, "auto") != 0 || dv_full_refresh_change_ratio <= 0 ||
		total <= DV_SMALL_CHANGE)
		return false;
	foreach(lc, plan->sources)
	{
		Relation	rel = relation_open(((DvPlanSource *) lfirst(lc))->relid, AccessShareLock);
		BlockNumber pages;
		double		tuples;
		double		allvisfrac;

		estimate_rel_size(rel, NULL, &pages, &tuples, &allvisfrac);
		relation_close(rel, AccessShareLock);
		rows += tuples;
	}
	return (double) total > dv_full_refresh_change_ratio * Max(rows, 1.0);
}

static List *compute_operator_states(DvPlan *plan, Snapshot snapshot);
static void replace_operator_states(List *computed, bool apply, Snapshot snapshot);

/*
 * linear_tree - is the delta of op linear in the weights of every window
 * below it: scans, filters and inner joins (DELTA(X) join NEW(Y) + NEW(X)
 * join DELTA(Y) - DELTA(X) join DELTA(Y), products of weights), with no
 * subquery in a condition?  Then rows added and removed within a window
 * (+r, -r) give rows that cancel in every sum over the delta.
 *
 * Left and right joins pass too, but they are linear only in the side they
 * preserve, and only while the side they pad with NULLs has no change:
 * DELTA(X) LEFT JOIN NEW(Y), each changed row of X outer-joined to Y as it
 * is, its weight carried (optree.c's rule for a join whose preserved side
 * alone changed), whereas a change of Y adds or removes X's padded rows by
 * a count of matches, not a sum of weights.  The caller tells which source
 * changed (nullable_reads); *outer says whether the tree has such a join.
 */
static bool
linear_tree(DvOp *op, bool *outer)
{
	ListCell   *lc;

	if (op == NULL)
		return false;
	foreach(lc, op->quals)
	{
		if (checkExprHasSubLink(lfirst(lc)) || contain_subplans(lfirst(lc)))
			return false;
	}
	switch (op->kind)
	{
		case DV_OP_SCAN:
			return true;
		case DV_OP_FILTER:
			return linear_tree(op->left, outer);
		case DV_OP_JOIN:
			if (op->jointype == JOIN_LEFT || op->jointype == JOIN_RIGHT)
				*outer = true;
			else if (op->jointype != JOIN_INNER)
				return false;
			return linear_tree(op->left, outer) && linear_tree(op->right, outer);
		default:
			return false;
	}
}

/* does op read relid under a scan that an outer join within op pads with NULLs? */
static bool
nullable_reads(DvOp *op, Oid relid, bool nullable)
{
	switch (op->kind)
	{
		case DV_OP_SCAN:
			return nullable && op->source->relid == relid;
		case DV_OP_FILTER:
			return nullable_reads(op->left, relid, nullable);
		case DV_OP_JOIN:
			return nullable_reads(op->left, relid, nullable || op->jointype == JOIN_RIGHT) ||
				nullable_reads(op->right, relid, nullable || op->jointype == JOIN_LEFT);
		default:
			return true;		/* (linear_tree lets no other operator through) */
	}
}

/*
 * linear_in_windows - may the refresh read its sources' windows as they
 * are, without consolidating them (read_window's GROUP BY ... HAVING, the
 * largest per-row cost of a refresh of TPC-H Q1: 1.4 us a buffer row)?
 * When every consumer of the windows is linear in their weights: an
 * aggregate kept in place whose aggregates are all sums over its input's
 * weighted rows (dv_agg_state_linear: count, sum, avg, the variance
 * family, bool_and/or; its one statement groups the delta by the keys and
 * drops the groups whose every sum is 0), over scans, filters and inner
 * joins, and left or right joins whose NULL-padded side did not change
 * (linear_tree, nullable_reads), with no operator state, no UNION ALL
 * branches.  A pair +r/-r within a window then adds 0 to every sum and count (numeric
 * sums, exact; NaN or an infinity recomputes the group from the sources),
 * and the group keys compare as identity (agg_state_eligible), so no key is
 * spelled by a row that a later change undid.  Or a select/join table
 * (DV_PLAN_SPJ, no UNION ALL branch) over the same kind of tree: apply_spj
 * consolidates the delta of the result itself (consolidate_delta, by the
 * rows' binary images), so a pair +r/-r of the window gives a pair of
 * result rows of identical images (the same captured values through the
 * same expressions and the same rows of the unchanged sources) that nets
 * to nothing; a pair whose images differ (an UPDATE to an equal value
 * spelled otherwise) stays apart, as read_window's consolidation keeps it
 * apart (by its text), and its removed row is looked for in the table:
 * one a later change undid is not there, so the DELETE finds fewer rows
 * than the delta removes, and the refresh is done again over consolidated
 * windows (INCREMENTAL_MISMATCH, below).  Two images of one text form (NaNs
 * of two bit patterns), which the consolidated read sums as one row, stay
 * apart here: the table's row is found by its text and written again with
 * the new image (INCREMENTAL where the consolidated read says NO_DATA;
 * regress spj_consolidation).
 *
 * What consolidating also gave, and what replaces it: the query's
 * expressions (filters, join conditions, the aggregates' inputs) now see
 * intermediate rows, which may raise an error that the net rows would not
 * (1 / x of an x = 0 row deleted again): the refresh is then done again
 * over the consolidated windows (refresh_as_is); and a group whose changes
 * net to nothing but leave a NaN in its sum (a pair of NaN rows) may reach
 * the state's MERGE without a row to match: one the state lacks, whose delta
 * adds no row, counts as unchanged (aggstate.c absent_groups_unchanged);
 * any other mismatch says INCREMENTAL_MISMATCH and is done again the same way.
 */
static bool
linear_in_windows(DvTable *dt, DvPlan *plan, Snapshot snapshot, List *buffered)
{
	ListCell   *lc;
	int			changed = 0;
	bool		outer = false;
	DvPlanSource *changed_src = NULL;

	if (!(dv_linear_windows_as_is && plan->branches == NIL &&
		  ((plan->kind == DV_PLAN_GROUPED && plan->agg_state && dv_agg_state_linear(plan)) ||
		   plan->kind == DV_PLAN_SPJ) &&
		  !dv_optree_some_state_kept(plan) && linear_tree(plan->tree, &outer)))
		return false;

	/*
	 * Only when one source has rows in the window (the others' buffers
	 * have no page, or none of their rows is in it; a row of the window
	 * looked for as dv_sources_unchanged does): the delta is then one term, each window row one pass through filters,
	 * probes of sources that did not change and one aggregate step, which
	 * costs less than consolidating it (TPC-H Q6, Q14, Q19 at SF 0.3).  With
	 * two changed sources an inner join's delta reads each window against
	 * the other source and against the other window, and the rows that
	 * consolidation would have cancelled (an insert then an update: three
	 * rows for one) are joined again in each term: a loss (Q5, Q7, Q9, Q12;
	 * bench/README.md).  buffered: the sources whose buffer has a page (the
	 * caller looked); with one or none, no window need be looked into.
	 */
	if (list_length(buffered) <= 1)
		changed_src = buffered != NIL ? linitial(buffered) : NULL;
	else
	{
		foreach(lc, buffered)
		{
			Oid			relid = ((DvPlanSource *) lfirst(lc))->relid;
			Oid			buffer;

			/*
			 * (rows an upstream's refresh in this pipeline kept back count as
			 * a change without a look, which would write them to the buffer;
			 * counting a source changed that is not only makes this say no
			 * more often)
			 */
			if (handoff_pending(relid) ||
				(OidIsValid(buffer = buffer_of(relid)) &&
				 window_has_row(dt, buffer, snapshot, WINDOW_ROW_ANY, InvalidOid)))
			{
				if (++changed > 1)
					return false;
				changed_src = lfirst(lc);
			}
		}
	}

	/*
	 * (an outer join: only if the changed source is on no side one pads with
	 * NULLs, linear_tree; by relation, so that a source read on both sides
	 * of a self-join counts as changed on both)
	 */
	return !outer || changed_src == NULL || !nullable_reads(plan->tree, changed_src->relid, false);
}

/*
 * windows_cancel_out - do the windows of these sources, read as they are
 * (registered), consolidate to no row?  Each consolidated from its
 * relation as read_window would from the buffer (its copy registered and
 * dropped again).
 */
static bool
windows_cancel_out(DvTable *dt, List *sources, Snapshot snapshot)
{
	ListCell   *lc;

	foreach(lc, sources)
	{
		DvPlanSource *src = lfirst(lc);
		DvPlanSource check = *src;
		int64		n;

		check.enr_name = psprintf("%s_net", src->enr_name);
		n = read_window(dt, &check, buffer_of(src->relid), snapshot, src->enr_name, false, no_filter, false, NULL);
		if (n >= 0)
			dv_unregister_tuples(check.enr_name);
		if (n != 0)
			return false;
	}
	return true;
}

/*
 * read_and_apply - read each source's window (raw: as they are, see
 * linear_in_windows) and apply the delta to dt; true when done (res says
 * INCREMENTAL or NO_DATA), false with a reason (dv_refresh_incremental).
 * buffered: the sources whose buffer has a page (window_known_empty).
 * Every window it registers is unregistered when it returns.
 */
static bool
read_and_apply(DvTable *dt, DvPlan *plan, Snapshot snapshot, DvRefreshResult *res,
			   const char **full_code, char **full_reason, List *buffered, bool raw)
{
	ListCell   *lc;
	int64		total = 0;
	int32		seq = 0;
	bool		ok = true;
	int			save_nestlevel;
	Oid			save_userid;
	int			save_sec;
	List	   *registered = NIL;
	bool		topn_full = false;
	char	   *mismatch_why = NULL;
	List	   *states = NIL;
	List	   *read_as_is = NIL;	/* sources whose window, read as it is, may
									 * consolidate to no row */
	bool		consolidated_rows = false;	/* a window has rows once consolidated */

	filter_fallbacks = 0;
	filter_fallback_error = NULL;

	foreach(lc, plan->sources)
	{
		DvPlanSource *src = lfirst(lc);

		/* (rows an upstream kept back are written below unless taken from memory) */
		Oid			buffer = buffer_lookup(src->relid);
		ListCell   *lc2;
		int64		n;
		Handoff    *kept;

		if (!OidIsValid(buffer))
		{
			*full_code = "SOURCE_NOT_TRACKED";
			*full_reason = psprintf("Changes of \"%s\" are not captured.", get_rel_name(src->relid));
			ok = false;
			break;
		}
		foreach(lc2, src->columns)
		{
			if (get_attnum(buffer, strVal(lfirst(lc2))) == InvalidAttrNumber)
			{
				*full_code = "SOURCE_NOT_TRACKED";
				*full_reason = psprintf("Column \"%s\" of \"%s\" is not captured.",
										strVal(lfirst(lc2)), get_rel_name(src->relid));
				ok = false;
			}
		}
		if (!ok)
			break;
		src->delta_store = NULL;
		src->delta_desc = NULL;
		src->delta_distinct = NIL;
		/* (no buffer row to read: also none of this transaction's, nor an old row) */
		if (window_known_empty(src, buffered))
			continue;
		/* what the upstream's refresh in this pipeline wrote is the window, or the buffer is read */
		kept = handoff_for(dt, src->relid);
		if (kept == NULL)
			dv_handoff_flush(src->relid);
		/*
		 * Refreshed before in this very transaction: rows this transaction
		 * buffered since then carry the same xid as those it consumed then
		 * (rows buffered before were consumed then: no reason to recompute).
		 */
		if (xid_in_list(dt->data_own_xids, own_xid8()) &&
			dv_watch_written_since(dt->relid, src->relid) && buffer_has_own_rows(buffer))
		{
			*full_code = "REFRESHED_IN_TRANSACTION";
			*full_reason = psprintf("The table was refreshed before in this transaction, which has since changed \"%s\"; it was recomputed in full.",
									get_rel_name(src->relid));
			ok = false;
			break;
		}
		if (!identity_full_or_unchanged(dt, src->relid, buffer, snapshot))
		{
			*full_code = "REPLICA_IDENTITY_NOT_FULL";
			*full_reason = psprintf("\"%s\" was updated or deleted from since the last refresh, and its replica identity is not FULL, so its old rows were not logged whole; it was recomputed in full.",
									get_rel_name(src->relid));
			ok = false;
			break;
		}

		if (kept != NULL && raw)
		{
			/* (what the upstream's refresh in this pipeline wrote is the window) */
			int64		weight_sum = 0;

			n = read_handoff(src, kept, &weight_sum);
			if (may_see_counts(src->relid))
				ereport(DEBUG1,
						(errmsg_internal("dynamic table \"%s.%s\": the changes of \"%s\" (" INT64_FORMAT " rows) taken from its refresh in this pipeline",
										 dt->schema_name, dt->table_name, get_rel_name(src->relid), n)));
			if (n > 0 && weight_sum == 0)
				read_as_is = lappend(read_as_is, src);
			else if (n > 0)
				consolidated_rows = true;
		}
		else if (kept != NULL)
		{
			/*
			 * (the same, consolidated: the kept rows registered apart, then
			 * consolidated from there as from a window read once for
			 * several occurrences, see read_window's from_enr)
			 */
			DvPlanSource copy = *src;
			int64		weight_sum = 0;

			copy.enr_name = psprintf("%s_kept", src->enr_name);
			(void) read_handoff(&copy, kept, &weight_sum);
			n = read_window(dt, src, buffer, snapshot, copy.enr_name, false, no_filter, false, NULL);
			dv_unregister_tuples(copy.enr_name);
			if (may_see_counts(src->relid))
				ereport(DEBUG1,
						(errmsg_internal("dynamic table \"%s.%s\": the changes of \"%s\" (" INT64_FORMAT " rows once consolidated) taken from its refresh in this pipeline",
										 dt->schema_name, dt->table_name, get_rel_name(src->relid), n)));
			if (n > 0)
				consolidated_rows = true;
		}
		else
		{
			int			ncolumns = 0;
			int64		weight_sum = 0;
			char	   *from = shared_window(dt, plan, src, buffer, snapshot, &registered, &n, &ncolumns,
											 dt->owner);

			/* (an occurrence that reads every column the shared window has: its rows as they are) */
			if (n >= 0)
				n = read_window(dt, src, buffer, snapshot, from,
								from != NULL && list_length(src->columns) == ncolumns,
								from == NULL ? window_filter(plan, src, buffer, dt->owner) : no_filter,
								raw && from == NULL, &weight_sum);

			/*
			 * (a window read as it is whose weights do not sum to 0 has a row
			 * left once consolidated: known not to cancel out, unconsolidated)
			 */
			if (raw && from == NULL && n > 0 && weight_sum == 0)
				read_as_is = lappend(read_as_is, src);
			else if (n > 0)
				consolidated_rows = true;
		}
		if (n < 0)
		{
			marker_reason(dt, src, buffer, snapshot, full_code, full_reason);
			ok = false;
			break;
		}
		registered = lappend(registered, src->enr_name);
		src->delta_rows = n;
		total += n;
	}

	if (ok && total > 0 && too_many_changes(dt, plan, total))
	{
		*full_code = "CHANGE_VOLUME";
		*full_reason = psprintf("The changes since the last refresh (" INT64_FORMAT " rows) exceed dynview.full_refresh_change_ratio = %g of the sources' rows; recomputing is cheaper than applying them.",
								total, dv_full_refresh_change_ratio);
		ok = false;
	}

	dv_set_current_table(quote_qualified_identifier(dt->schema_name, dt->table_name));
	if (ok && total == 0)
		res->refresh_mode = "NO_DATA";
	else if (ok)
	{
		res->refresh_mode = "INCREMENTAL";
		dv_run_as_owner(dt->owner, &save_nestlevel, &save_userid, &save_sec);
		/* (the statements below are kept for the next refresh of the table) */
		dv_statements_begin(dt->relid);
		/* small deltas: compiling expressions would cost more than it saves */
		(void) set_config_option("jit", "off", PGC_USERSET, PGC_S_SESSION,
								 GUC_ACTION_SAVE, true, 0, false);
		/*
		 * (operators that keep a state read it, at the data snapshot, and
		 * their new rows, computed first)
		 */
		dv_optree_use_state(true);
		states = compute_operator_states(plan, snapshot);
		if (plan->kind == DV_PLAN_TOPN)
		{
			char	   *why = NULL;

			if (!apply_topn(dt, plan, snapshot, res, &seq, &why))
			{
				*full_code = "TOP_N_CHANGED";
				*full_reason = why;
				topn_full = true;
				ok = false;
			}
		}
		else if (plan->kind == DV_PLAN_WINDOW)
			apply_window(dt, plan, snapshot, res, &seq);
		else if (plan->kind == DV_PLAN_SPJ)
		{
			ok = apply_spj(dt, plan, snapshot, res, &seq);

			/*
			 * (windows read as they are that changed no row: NO_DATA if
			 * consolidated they are empty, as for an aggregate below)
			 */
			if (ok && raw && res->rows_inserted == 0 && res->rows_deleted == 0 &&
				!consolidated_rows && windows_cancel_out(dt, read_as_is, snapshot))
				res->refresh_mode = "NO_DATA";
		}
		else if (plan->agg_state)
		{
			bool		no_group = false;

			ok = dv_agg_state_apply(dt, plan, snapshot, res, &seq, &no_group, &mismatch_why);

			/*
			 * (windows read as they are that changed no group: NO_DATA if
			 * consolidated they are empty, as the refresh would have said;
			 * the consolidation paid only when nothing else told, neither
			 * the group delta nor a window's weights)
			 */
			if (raw && no_group && !consolidated_rows &&
				windows_cancel_out(dt, read_as_is, snapshot))
				res->refresh_mode = "NO_DATA";
		}
		else
			apply_grouped(dt, plan, snapshot, res, &seq);
		replace_operator_states(states, ok, snapshot);
		dv_statements_end();
		dv_optree_use_state(false);
		dv_restore_user(save_nestlevel, save_userid, save_sec);
		if (!ok && !topn_full)
		{
			/* and the state is rebuilt by the FULL refresh that follows */
			*full_code = "INCREMENTAL_MISMATCH";
			*full_reason = mismatch_why ? mismatch_why :
				pstrdup("The table did not hold a row that the changes remove; it was recomputed in full.");
		}
	}
	foreach(lc, registered)
		dv_unregister_tuples((const char *) lfirst(lc));
	if (ok && filter_fallbacks > 0 && res->mode_reason == NULL)
		res->mode_reason = psprintf("The changes of %d source%s were read again without the conditions of the query's filter that may fail (dynview.window_filter_functions): applying them to the change rows failed with %s.",
									filter_fallbacks, filter_fallbacks > 1 ? "s" : "", filter_fallback_error);
	return ok;
}

/*
 * After a read of the windows as they are failed, the table's next
 * refreshes consolidate first: AS_IS_FIRST_SKIP of them, twice as many
 * after each further failure in a row, at most AS_IS_MAX_SKIP; a success
 * forgets the failures.  Recorded in the table's catalog row
 * (dv_catalog_set_as_is_failure), which every refresher reads.
 */
#define AS_IS_FIRST_SKIP 4
#define AS_IS_MAX_SKIP 256

/*
 * refresh_as_is - read_and_apply with the windows read as they are, in a
 * subtransaction: when that raises an error or finds the state not agreeing
 * with the changes (INCREMENTAL_MISMATCH), nothing of it is kept and *retry
 * says why (the caller applies the consolidated windows instead); else its
 * result.
 *
 * Which errors are retried: any error that a row's value can raise, since
 * a row read as it is may be one that a later change undid, which the
 * consolidated windows never show to the query's expressions.  That is
 * every class but the ones below, a program limit (class 54: repeat() past
 * 1 GB, an index entry too long) and a shortage of memory (53) included,
 * and also the internal error XX000: it is what elog(ERROR) raises, and
 * functions raise it from values they were never meant to get ("invalid
 * memory alloc request size" of a value that would pass 1 GB, a lookup of
 * an OID that a row names).  The subtransaction's rollback recovers from
 * each, and the consolidated windows are the reference: a fault that is
 * not the undone row's raises the error there again, and the refresh
 * fails with it.  Raised at once, since no row explains them and applying
 * again cannot help (or must not be tried): a cancel or shutdown (57), a
 * transaction-rollback error (40: a deadlock, a serialization failure,
 * which the client must see to retry its transaction), a system error
 * (58: I/O, a file missing), and data or index corruption (XX001, XX002).
 */
static bool
refresh_as_is(DvTable *dt, DvPlan *plan, Snapshot snapshot, DvRefreshResult *res,
			  const char **full_code, char **full_reason, List *buffered, char **retry)
{
	MemoryContext oldcontext = CurrentMemoryContext;
	ResourceOwner oldowner = CurrentResourceOwner;
	volatile bool ok = false;

	*retry = NULL;
	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(oldcontext);
	PG_TRY();
	{
		ok = read_and_apply(dt, plan, snapshot, res, full_code, full_reason, buffered, true);
		if (!ok && *full_code != NULL && strcmp(*full_code, "INCREMENTAL_MISMATCH") == 0)
		{
			RollbackAndReleaseCurrentSubTransaction();
			*retry = pstrdup("the state did not agree with the changes read as they are");
		}
		else
			ReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(oldcontext);
		CurrentResourceOwner = oldowner;
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		edata = dv_subxact_caught(oldcontext, oldowner);
		/* (what the aborted statements left: registered relations, the statement scope) */
		dv_forget_aborted_tuples();
		dv_statements_end();
		dv_optree_use_state(false);
		if (!row_may_raise(edata))
			ReThrowError(edata);
		ereport(DEBUG1,
				(errmsg("dynamic table \"%s.%s\": the changes read as they are failed: %s",
						dt->schema_name, dt->table_name, edata->message)));
		*retry = psprintf("an error on a row read as it is: %s", message_without_values(edata));
		FreeErrorData(edata);
	}
	PG_END_TRY();
	return ok;
}

/*
 * dv_refresh_truncated_source - a source of dt that was truncated
 * (TRUNCATE) in the window from dt's data snapshot to snapshot (whose WAL
 * position is lsn), or InvalidOid when none was (*known true) or it cannot
 * be told (*known false).
 * Asked when a source's storage or columns changed (SOURCE_ALTERED), so
 * that the refresh history tells TRUNCATE apart from VACUUM FULL and
 * CLUSTER, which replace a table's storage as well: logical decoding
 * delivers a TRUNCATE record, and the decoder writes it into the source's
 * change buffer as a marker (plugin.c); VACUUM FULL and CLUSTER write
 * none.  Waits for the decoder with the refresh's own wait for its window
 * (wait_for_window, as long as an incremental refresh waits: a shorter wait,
 * 5 seconds, flipped the reason to SOURCE_ALTERED in a loaded regress run):
 * the refresh is FULL whatever the answer, so a decoder that lags (or waits
 * for this transaction, which truncated the source itself) only leaves the
 * reason the general SOURCE_ALTERED.  Needs a data snapshot.
 */
Oid
dv_refresh_truncated_source(DvTable *dt, Snapshot snapshot, XLogRecPtr lsn, bool *known)
{
	ListCell   *lc;
	bool		empty;

	*known = false;
	if (!dt->has_data_snapshot || dt->data_snapshot == NULL)
		return InvalidOid;
	/* (this transaction's own TRUNCATE is decoded only once it commits) */
	foreach(lc, dt->sources)
	{
		DvSource   *src = lfirst(lc);

		if (OidIsValid(src->relid) && (dv_holds_write_lock(src->relid) || partition_written(src->relid)))
			return InvalidOid;
	}
	if (!wait_for_window(dt, snapshot, lsn, CAPTURE_WAIT_MS, &empty))
		return InvalidOid;
	*known = true;
	if (empty)
		return InvalidOid;		/* (no transaction in the window) */
	foreach(lc, dt->sources)
	{
		DvSource   *src = lfirst(lc);
		Oid			buffer;

		if (!OidIsValid(src->relid) || dv_is_dynamic_table(src->relid))
			continue;
		buffer = buffer_of(src->relid);
		if (OidIsValid(buffer) && !buffer_is_empty(buffer) &&
			window_has_row(dt, buffer, snapshot, WINDOW_ROW_TRUNCATE, InvalidOid))
			return src->relid;
	}
	return InvalidOid;
}

/*
 * dv_refresh_incremental - refresh dt incrementally from S_prev (its data
 * snapshot) to snapshot, whose WAL position is lsn.  The caller holds
 * dt's refresh lock (dv_lock_refresh) and has SPI open.
 *
 * Returns true when done (res says INCREMENTAL or NO_DATA and the counts);
 * false with a reason code and text when the table must be refreshed in
 * full instead (the caller does so in the same transaction).
 */
bool
dv_refresh_incremental(DvTable *dt, Snapshot snapshot, XLogRecPtr lsn, DvRefreshResult *res,
					   const char **full_code, char **full_reason)
{
	DvPlan	   *plan;
	ListCell   *lc;
	bool		need_decoder = false;
	int			save_nestlevel;
	Oid			save_userid;
	int			save_sec;
	bool		dynamic_source = false;
	bool		no_window;
	List	   *buffered = NIL;	/* sources whose buffer holds rows (asked once) */

	dv_optree_use_state(false);
	dv_run_as_owner(dt->owner, &save_nestlevel, &save_userid, &save_sec);
	plan = dv_plan_cache_plan(dt);
	dv_restore_user(save_nestlevel, save_userid, save_sec);
	if (plan->kind == DV_PLAN_FULL)
	{
		*full_code = plan->reason_code;
		*full_reason = plan->reason;
		return false;
	}

	if (plan->agg_state && !dv_agg_state_usable(dt, plan, full_reason))
	{
		*full_code = "STATE_MISSING";
		return false;
	}
	foreach(lc, dv_optree_state_ops(plan))
	{
		if (!dv_optree_state_usable(lfirst(lc)))
		{
			/*
			 * (none built: its groups are recomputed through an index while
			 * it serves, or an optional filter state's source is read)
			 */
			if ((dv_optree_index_rule_serves(lfirst(lc)) || dv_optree_filter_state_unneeded(lfirst(lc))) &&
				!OidIsValid(get_relname_relid(dv_optree_state_name(lfirst(lc)),
											  get_namespace_oid("dynview_state", true))))
				continue;
			*full_code = "STATE_MISSING";
			*full_reason = psprintf("The state of one of the table's operators, %s.%s, was missing (dropped, not restored, or not built because the operator's groups were recomputed through an index of its source, which no longer serves: dropped, or the statistics give more rows per group key) or not the table owner's; it was rebuilt with a full refresh.",
									"dynview_state", dv_optree_state_name(lfirst(lc)));
			return false;
		}
	}

	foreach(lc, plan->sources)
	{
		Oid			relid = ((DvPlanSource *) lfirst(lc))->relid;

		if (dv_is_dynamic_table(relid))
		{
			dynamic_source = true;
			continue;
		}
		need_decoder = true;

		/*
		 * This transaction wrote the source: S_new sees those rows, but the
		 * decoder captures them only after commit.
		 */
		if (dv_holds_write_lock(relid) || partition_written(relid))
		{
			*full_code = "SOURCE_CHANGED_IN_TRANSACTION";
			*full_reason = psprintf("This transaction changed \"%s\"; its changes are captured only once it commits.",
									get_rel_name(relid));
			return false;
		}
	}
	/* (an empty window has no rows to wait for: capture_target) */
	if (need_decoder && !wait_for_window(dt, snapshot, lsn, CAPTURE_WAIT_MS, NULL))
	{
		*full_code = "CAPTURE_NOT_READY";
		*full_reason = pstrdup("The decoder had not captured every change before the refresh's snapshot (it waits for this transaction, or is lagging).");
		return false;
	}
	no_window = !dynamic_source && window_is_empty(dt, snapshot);
	if (!no_window)
	{
		bool		unbuffered = false;

		/* (the sources whose buffer holds rows, for linear_in_windows and read_and_apply) */
		foreach(lc, plan->sources)
		{
			Oid			relid = ((DvPlanSource *) lfirst(lc))->relid;
			Oid			buffer = buffer_lookup(relid);

			/* (rows an upstream's refresh in this pipeline kept back count as rows) */
			if (!OidIsValid(buffer))
				unbuffered = true;
			else if (handoff_pending(relid) || !buffer_is_empty(buffer))
				buffered = lappend(buffered, lfirst(lc));
		}
		/* (or no source's buffer holds any row) */
		no_window = !dynamic_source && !unbuffered && buffered == NIL;
	}

	/*
	 * A window read as it is may show the query's expressions a row that a
	 * later change undid; an error or a state that does not agree then
	 * sends the refresh back to the consolidated windows (refresh_as_is),
	 * recorded in the refresh's history (mode_reason) and at DEBUG1.
	 */
	if (!no_window && linear_in_windows(dt, plan, snapshot, buffered))
	{
		DvRefreshResult saved = *res;
		const char *saved_code = *full_code;
		char	   *saved_reason = *full_reason;
		char	   *retry;
		bool		ok;
		int			skip;

		/* (it failed lately: consolidated first, see AS_IS_FIRST_SKIP) */
		if (dt->as_is_skip > 0)
		{
			ok = read_and_apply(dt, plan, snapshot, res, full_code, full_reason, buffered, false);
			dv_catalog_set_as_is_failure(dt->relid, dt->as_is_failures, dt->as_is_skip - 1,
										 dt->as_is_error ? dt->as_is_error : "an error");
			if (ok)
				res->mode_reason = psprintf("The changes were consolidated before they were applied: applying them as read (dynview.linear_windows_as_is) failed at an earlier refresh of the table with %s; they are read as they are again after %d more refreshes.",
											dt->as_is_error ? dt->as_is_error : "an error", dt->as_is_skip - 1);
			return ok;
		}
		ok = refresh_as_is(dt, plan, snapshot, res, full_code, full_reason, buffered, &retry);
		if (retry == NULL)
		{
			if (dt->as_is_failures > 0 || dt->as_is_error != NULL)
				dv_catalog_set_as_is_failure(dt->relid, 0, 0, NULL);
			return ok;
		}
		ereport(DEBUG1,
				(errmsg("dynamic table \"%s.%s\": its changes applied again over consolidated windows",
						dt->schema_name, dt->table_name),
				 errdetail("Applying them as read failed: %s.", retry)));
		skip = dt->as_is_failures >= 6 ? AS_IS_MAX_SKIP : AS_IS_FIRST_SKIP << dt->as_is_failures;
		*res = saved;
		*full_code = saved_code;
		*full_reason = saved_reason;
		ok = read_and_apply(dt, plan, snapshot, res, full_code, full_reason, buffered, false);
		dv_catalog_set_as_is_failure(dt->relid, dt->as_is_failures + 1, skip, retry);
		if (ok)
			res->mode_reason = psprintf("The changes were applied again over consolidated windows: applying them as read (dynview.linear_windows_as_is) failed with %s; the next %d refreshes of the table consolidate first.",
										retry, skip);
		return ok;
	}
	return read_and_apply(dt, plan, snapshot, res, full_code, full_reason, buffered, false);
}


/*
 * compute_operator_states - before the refresh's statements: the new rows
 * of each operator state whose input changed (analyze/optree.h), computed
 * at snapshot from the state and the windows, registered for the
 * statements to read; a grouped state is replaced by its new rows at once
 * (dv_optree_state_replace_first), and the snapshot's command id advanced
 * so that the statements read it.  Inner operators first (an outer one's
 * new rows are computed from an inner one's, and read its rows now).
 * Returns the operators whose new rows are registered.  Runs as the
 * table's owner, windows registered.
 */
static List *
compute_operator_states(DvPlan *plan, Snapshot snapshot)
{
	List	   *ops = dv_optree_state_ops(plan);
	List	   *computed = NIL;

	for (int i = list_length(ops) - 1; i >= 0; i--)
	{
		DvOp	   *op = list_nth(ops, i);
		char	   *sql = dv_optree_state_new_sql(op);

		if (sql == NULL)
			continue;
		dv_exec_at(sql, snapshot, true);
		dv_register_tuples(dv_optree_state_new_name(op));
		/*
		 * (a grouped state at once: the statements read it as its rows now,
		 * at the snapshot, which sees the refresh's own writes so far as the
		 * pipeline's next table does its upstreams': dv_refresh_pipeline)
		 */
		if (dv_optree_state_replace_first(op))
		{
			dv_exec_at(dv_optree_state_replace_sql(op), snapshot, false);
			CommandCounterIncrement();
			snapshot->curcid = GetCurrentCommandId(false);
		}
		computed = lappend(computed, op);
	}
	return computed;
}

/* after them: those new rows become the states (if the refresh applied its delta), unregistered */
static void
replace_operator_states(List *computed, bool apply, Snapshot snapshot)
{
	ListCell   *lc;

	foreach(lc, computed)
	{
		if (apply && !dv_optree_state_replace_first(lfirst(lc)))
			dv_exec_at(dv_optree_state_replace_sql(lfirst(lc)), snapshot, false);
		dv_unregister_tuples(dv_optree_state_new_name(lfirst(lc)));
	}
}

/*
 * changes_by_itself - can the tree's result change while its sources do not,
 * beyond what contain_mutable_functions sees?  An aggregate (plain, or as a
 * window function) with a volatile or stable support function (pg_proc marks
 * every aggregate immutable), or TABLESAMPLE without REPEATABLE (a new random
 * sample each time).
 */
static bool
changes_by_itself(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
	{
		ListCell   *lc;

		foreach(lc, ((Query *) node)->rtable)
		{
			RangeTblEntry *rte = lfirst_node(RangeTblEntry, lc);

			if (rte->rtekind == RTE_RELATION && rte->tablesample != NULL &&
				rte->tablesample->repeatable == NULL)
				return true;
		}
		return query_tree_walker((Query *) node, changes_by_itself, context, 0);
	}
	if (IsA(node, Aggref) && dv_aggregate_is_mutable(((Aggref *) node)->aggfnoid))
		return true;
	if (IsA(node, WindowFunc) && dv_aggregate_is_mutable(((WindowFunc *) node)->winfnoid))
		return true;
	return expression_tree_walker(node, changes_by_itself, context);
}

/*
 * dv_sources_unchanged - may a FULL-mode table skip its recompute (NO_DATA)?
 *
 * True when its result cannot differ from what it holds: the definition
 * calls no volatile or stable function (now(), random(): the result changes
 * without any source changing), every source is captured (a tracked table,
 * or a dynamic table whose refreshes write its buffer), the decoder has
 * caught up with lsn, and no buffer holds a row or a TRUNCATE marker in the
 * window from the data snapshot to snapshot.  The caller has checked that
 * no source was altered (DDL) and that no full refresh is due, holds
 * dt's refresh lock and has SPI open.  False whenever in doubt: the
 * caller then recomputes, which is always right.
 */
bool
dv_sources_unchanged(DvTable *dt, Snapshot snapshot, XLogRecPtr lsn)
{
	Query	   *query;
	ListCell   *lc;
	List	   *buffers = NIL;
	List	   *dynamic_buffers = NIL;	/* (of sources that are dynamic tables) */
	List	   *nonempty = NIL;
	bool		need_decoder = false;
	int			save_nestlevel;
	Oid			save_userid;
	int			save_sec;

	if (!dt->has_data_snapshot || dt->next_refresh_full != NULL || dt->sources == NIL)
		return false;

	dv_run_as_owner(dt->owner, &save_nestlevel, &save_userid, &save_sec);
	query = dv_plan_cache_query(dt);
	dv_restore_user(save_nestlevel, save_userid, save_sec);
	if (contain_mutable_functions((Node *) query) || changes_by_itself((Node *) query, NULL))
		return false;

	foreach(lc, dt->sources)
	{
		DvSource   *src = lfirst(lc);
		Oid			buffer = buffer_of(src->relid);

		/* (the changes of inheritance children go to their own buffers) */
		if (!OidIsValid(src->relid) || !OidIsValid(buffer) || has_subclass(src->relid))
			return false;
		if (!dv_is_dynamic_table(src->relid))
		{
			/* (an unlogged table's writes are not in the WAL) */
			if (get_rel_relkind(src->relid) != RELKIND_RELATION ||
				get_rel_persistence(src->relid) != RELPERSISTENCE_PERMANENT)
				return false;
			need_decoder = true;
			if (dv_holds_write_lock(src->relid))
				return false;
		}
		if (xid_in_list(dt->data_own_xids, own_xid8()) &&
			dv_watch_written_since(dt->relid, src->relid) && buffer_has_own_rows(buffer))
			return false;
		buffers = lappend_oid(buffers, buffer);
		if (dv_is_dynamic_table(src->relid))
			dynamic_buffers = lappend_oid(dynamic_buffers, buffer);
	}
	if (need_decoder && !wait_for_window(dt, snapshot, lsn, CAPTURE_WAIT_MS, NULL))
		return false;
	/* (no transaction in the window: only dynamic tables' buffers can hold rows of it) */
	if (window_is_empty(dt, snapshot))
		buffers = dynamic_buffers;
	/* (after the wait: a buffer without a page then holds no row of the window) */
	foreach(lc, buffers)
	{
		if (!buffer_is_empty(lfirst_oid(lc)))
			nonempty = lappend_oid(nonempty, lfirst_oid(lc));
	}
	buffers = nonempty;

	foreach(lc, buffers)
	{
		if (window_has_row(dt, lfirst_oid(lc), snapshot, WINDOW_ROW_ANY, InvalidOid))
			return false;
	}
	return true;
}

/*
 * dv_sources_changed_after - may a transaction that dt's data snapshot does
 * not count as seen have written one of dt's sources (or refreshed an
 * upstream dynamic table it reads)?  For verify(): such a transaction may
 * have deleted or updated row versions that the data snapshot sees, which
 * pruning or VACUUM can then remove.  Waits (up to 10 s) for the decoder to
 * have the window's changes in the buffers, then looks for a buffer row in
 * the window from the data snapshot to now.  True also when it cannot tell
 * (the decoder behind, a source without a buffer).
 */
bool
dv_sources_changed_after(DvTable *dt)
{
	Snapshot	snapshot;
	ListCell   *lc;
	bool		changed = false;
	bool		empty;

	if (dt->data_snapshot == NULL)
		return false;
	snapshot = RegisterSnapshot(GetTransactionSnapshot());
	if (!wait_for_window(dt, snapshot, dv_capture_position(), 10 * 1000L, &empty))
		changed = true;
	foreach(lc, dt->sources)
	{
		DvSource   *src = lfirst(lc);
		Oid			buffer;

		if (changed || empty)
			break;
		if (!OidIsValid(src->relid))
			continue;
		buffer = buffer_of(src->relid);
		changed = !OidIsValid(buffer) || window_has_row(dt, buffer, snapshot, WINDOW_ROW_ANY, InvalidOid);
	}
	UnregisterSnapshot(snapshot);
	return changed;
}

/*
 * dv_refreshed_in_this_transaction - was dt's data snapshot taken by a
 * refresh in the current transaction (its xid among the data's own)?
 */
bool
dv_refreshed_in_this_transaction(DvTable *dt)
{
	TransactionId xid = GetTopTransactionIdIfAny();

	return TransactionIdIsValid(xid) && dt->data_own_xids != NULL &&
		xid_in_list(dt->data_own_xids, dv_widen_xid(xid));
}
