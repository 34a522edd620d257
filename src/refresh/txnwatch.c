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
 * refresh of an upstream dynamic table wrote to its buffer); at pre-commit,
 * if a source of a table was written after the table's last refresh, the
 * commit is refused (55000).  Committed, such a table would not equal its
 * query at its data snapshot: the snapshot counts the transaction's xid as
 * seen, with its later writes, which the table lacks (design section 5); a
 * FULL refresh marked for later would leave it wrong until then.  Refreshing
 * the table again after the write, before COMMIT, makes the commit pass.
 * Nothing is kept, and the cost is one list test per DML statement, when the
 * transaction refreshed nothing.
 *
 * Events are undone with the subtransaction they happened in: a refresh
 * rolled back to a savepoint leaves the table as its earlier refresh made
 * it, so a write between the two still refuses the commit (regress
 * savepoint_watch).
 *
 * The same lists tell a second refresh of a table in the transaction whether
 * its upstream's buffer rows of the transaction came after the first (then
 * FULL, REFRESHED_IN_TRANSACTION) or were consumed by it
 * (dv_watch_written_since); after a subtransaction rolled back they are not
 * trusted for that.
 *
 * Some writes pass no hook that names the source: rows routed through a
 * partitioned parent to a source partition, or written by a trigger or a
 * rule.  So a refresh also notes which of its source tables the transaction
 * then held a write lock on; a source write-locked at pre-commit that was
 * not at the refresh was written after it.  PREPARE TRANSACTION is a commit
 * here too.  What a trigger or function writes while a refresh statement
 * runs counts as written after that refresh: the refresh read its sources
 * before, but its data snapshot now counts the transaction's xid as seen.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "storage/lock.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "dynview.h"

typedef struct WatchEvent
{
	Oid			relid;
	int			seq;
	SubTransactionId subid;		/* the subtransaction it happened in */
	List	   *sources;		/* refreshed: its source tables (not dynamic) */
	List	   *locked;			/* refreshed: those write-locked at its refresh */
	Oid			through;		/* written: the partition or inheritance child of
								 * relid the write was made to (InvalidOid: relid
								 * itself), for the refusal's message */
} WatchEvent;

/*
 * Events are kept per relation and subtransaction (the last of each): when
 * a subtransaction rolls back, its events go and the ones before it count
 * again (a refresh rolled back to a savepoint leaves the table as its
 * earlier refresh made it); when it commits, they become its parent's.
 * Subtransaction ids only grow within a transaction, so the events of a
 * subtransaction and of those nested in it are those with an id at least
 * its own.
 */
static List *refreshed = NIL;	/* of WatchEvent *: refreshes of tables */
static List *written = NIL;		/* of WatchEvent *: writes of relations */
static List *written_in_refresh = NIL;	/* relations written by a trigger or function
										 * during the refresh running now */
static int	next_seq = 0;
static int	subxact_abort_seq = 0;	/* seq when a subtransaction last rolled back */
static bool callback_registered = false;

/*
 * dv_holds_write_lock - does the current transaction hold a lock on relid
 * that INSERT, UPDATE, DELETE, COPY FROM, TRUNCATE or ALTER take?
 */
bool
dv_holds_write_lock(Oid relid)
{
	LOCKTAG		tag;

	SET_LOCKTAG_RELATION(tag, MyDatabaseId, relid);
	return LockHeldByMe(&tag, RowExclusiveLock) || LockHeldByMe(&tag, AccessExclusiveLock) ||
		LockHeldByMe(&tag, ShareRowExclusiveLock) || LockHeldByMe(&tag, ExclusiveLock);
}

static WatchEvent *
note(List **list, Oid relid)
{
	ListCell   *lc;
	MemoryContext old;
	WatchEvent *e;

	SubTransactionId subid = GetCurrentSubTransactionId();

	foreach(lc, *list)
	{
		e = lfirst(lc);
		if (e->relid == relid && e->subid == subid)
		{
			e->seq = ++next_seq;
			return e;
		}
	}
	old = MemoryContextSwitchTo(TopMemoryContext);
	e = palloc0(sizeof(WatchEvent));
	e->relid = relid;
	e->seq = ++next_seq;
	e->subid = subid;
	*list = lappend(*list, e);
	MemoryContextSwitchTo(old);
	return e;
}

static void
free_event(WatchEvent *e)
{
	list_free(e->sources);
	list_free(e->locked);
	pfree(e);
}

/* the last refresh of table relid still in effect, or NULL */
static WatchEvent *
last_refresh(Oid relid)
{
	ListCell   *lc;
	WatchEvent *last = NULL;

	foreach(lc, refreshed)
	{
		WatchEvent *e = lfirst(lc);

		if (e->relid == relid && (last == NULL || e->seq > last->seq))
			last = e;
	}
	return last;
}

/*
 * the events of subtransaction subid (and those nested in it) at its end:
 * dropped when it rolled back, else made its parent's (one per relation,
 * the last)
 */
static List *
end_subxact_events(List *list, SubTransactionId subid, SubTransactionId parent, bool rolled_back)
{
	List	   *kept = NIL;
	ListCell   *lc;
	MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

	foreach(lc, list)
	{
		WatchEvent *e = lfirst(lc);
		ListCell   *lk;
		ListCell   *same = NULL;

		if (e->subid >= subid)
		{
			if (rolled_back)
			{
				free_event(e);
				continue;
			}
			e->subid = parent;
		}
		foreach(lk, kept)
		{
			WatchEvent *k = lfirst(lk);

			if (k->relid == e->relid && k->subid == e->subid)
				same = lk;
		}
		if (same == NULL)
			kept = lappend(kept, e);
		else if (e->seq > ((WatchEvent *) lfirst(same))->seq)
		{
			free_event(lfirst(same));
			lfirst(same) = e;
		}
		else
			free_event(e);
	}
	list_free(list);
	MemoryContextSwitchTo(old);
	return kept;
}

static void
forget(void)
{
	ListCell   *lc;

	foreach(lc, refreshed)
	{
		list_free(((WatchEvent *) lfirst(lc))->sources);
		list_free(((WatchEvent *) lfirst(lc))->locked);
	}
	list_free_deep(refreshed);
	list_free_deep(written);
	list_free(written_in_refresh);
	refreshed = written = written_in_refresh = NIL;
	next_seq = subxact_abort_seq = 0;
}

/*
 * refuse the commit: table relid was refreshed in this transaction and its
 * source was written after (through: the partition or inheritance child of
 * it that was written, else InvalidOid); the transaction is rolled back
 */
static void
refuse_commit(Oid relid, Oid source, Oid through)
{
	char	   *table = dv_relation_qualified_name(relid);
	char	   *src = dv_relation_qualified_name(source);

	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("cannot commit: dynamic table %s would not equal its query at its data snapshot", table),
			 dv_is_dynamic_table(source) ?
			 errdetail("This transaction refreshed %s, and then refreshed its upstream dynamic table %s, which applied changes; the data snapshot of %s counts the transaction as seen, yet the table lacks those changes.",
					   table, src, table) :
			 OidIsValid(through) ?
			 errdetail("This transaction refreshed %s, and then changed %s, %s of its source %s; the data snapshot of %s counts the transaction as seen, yet the table lacks the change.",
					   table, dv_relation_qualified_name(through),
					   get_rel_relispartition(through) ? "a partition" : "an inheritance child",
					   src, table) :
			 errdetail("This transaction refreshed %s, and then changed its source %s; the data snapshot of %s counts the transaction as seen, yet the table lacks the change.",
					   table, src, table),
			 errhint("Refresh %s again after the change and before COMMIT, refresh upstream dynamic tables before their downstreams (a refresh refreshes the table's upstreams first), or make the change in another transaction.",
					 table)));
}

/* at pre-commit (and pre-prepare): refuse when a table's source was written after its refresh */
static void
watch_xact_callback(XactEvent event, void *arg)
{
	ListCell   *lr;
	ListCell   *lw;
	List	   *tables = NIL;
	List	   *changed = NIL;
	List	   *throughs = NIL;
	ListCell   *lt;

	if (event != XACT_EVENT_PRE_COMMIT && event != XACT_EVENT_PRE_PREPARE)
	{
		if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_ABORT ||
			event == XACT_EVENT_PARALLEL_COMMIT || event == XACT_EVENT_PARALLEL_ABORT ||
			event == XACT_EVENT_PREPARE)
			forget();
		return;
	}
	/* (table, written relation) pairs; SPI only when there is one */
	foreach(lr, refreshed)
	{
		WatchEvent *r = lfirst(lr);

		/* (an earlier refresh of the table is not what it holds) */
		if (last_refresh(r->relid) != r)
			continue;
		foreach(lw, written)
		{
			WatchEvent *w = lfirst(lw);

			if (w->seq > r->seq)
			{
				tables = lappend_oid(tables, r->relid);
				changed = lappend_oid(changed, w->relid);
				throughs = lappend_oid(throughs, w->through);
			}
		}
		foreach(lw, r->sources)
		{
			if (!list_member_oid(r->locked, lfirst_oid(lw)) && dv_holds_write_lock(lfirst_oid(lw)))
			{
				tables = lappend_oid(tables, r->relid);
				changed = lappend_oid(changed, lfirst_oid(lw));
				throughs = lappend_oid(throughs, InvalidOid);
			}
		}
	}
	if (tables == NIL)
		return;

	/*
	 * Only pairs where the written relation is a source of the table count:
	 * the others (dynview's own catalogs, written after every refresh) do not.
	 */
	forthree(lr, tables, lw, changed, lt, throughs)
	{
		if (dv_catalog_reads_source(lfirst_oid(lr), lfirst_oid(lw)))
			refuse_commit(lfirst_oid(lr), lfirst_oid(lw), lfirst_oid(lt));
	}
}

/*
 * a subtransaction ended: what it refreshed or wrote is undone when it
 * rolled back (its events go), its parent's when it committed; after a
 * rollback dv_watch_written_since does not trust the events noted before
 */
static void
watch_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
					   SubTransactionId parentSubid, void *arg)
{
	if (refreshed == NIL && written == NIL)
		return;
	if (event == SUBXACT_EVENT_ABORT_SUB || event == SUBXACT_EVENT_COMMIT_SUB)
	{
		bool		rolled_back = (event == SUBXACT_EVENT_ABORT_SUB);

		refreshed = end_subxact_events(refreshed, mySubid, parentSubid, rolled_back);
		written = end_subxact_events(written, mySubid, parentSubid, rolled_back);
		if (rolled_back)
			subxact_abort_seq = ++next_seq;
	}
}

static void
ensure_callback(void)
{
	if (!callback_registered)
	{
		RegisterXactCallback(watch_xact_callback, NULL);
		RegisterSubXactCallback(watch_subxact_callback, NULL);
		callback_registered = true;
	}
}

/*
 * a refresh of relid (whose sources are the DvSource list sources); what it
 * writes for its downstreams counts as a write of relid only when rows reach
 * its buffer (dv_write_own_buffer), so a NO_DATA refresh of an upstream
 * after its downstream changes nothing
 */
void
dv_watch_refreshed(Oid relid, List *sources)
{
	WatchEvent *e;
	ListCell   *lc;
	MemoryContext old;

	ensure_callback();
	e = note(&refreshed, relid);
	old = MemoryContextSwitchTo(TopMemoryContext);
	list_free(e->sources);
	list_free(e->locked);
	e->sources = e->locked = NIL;
	foreach(lc, sources)
	{
		DvSource   *src = lfirst(lc);

		if (!OidIsValid(src->relid) || src->is_dynamic)
			continue;
		e->sources = lappend_oid(e->sources, src->relid);
		if (dv_holds_write_lock(src->relid))
			e->locked = lappend_oid(e->locked, src->relid);
	}
	MemoryContextSwitchTo(old);

	/*
	 * What a trigger or function wrote during the refresh is not in its
	 * result (the refresh read at an earlier command), yet carries the xid
	 * the table's data now counts as seen: it counts as written after.
	 */
	foreach(lc, written_in_refresh)
		(void) note(&written, lfirst_oid(lc));
	list_free(written_in_refresh);
	written_in_refresh = NIL;
}

/*
 * dv_watch_written_since - may relid have been written (dv_watch_written)
 * since the last refresh of table in the current transaction?  True when
 * it cannot tell: no refresh of table noted, or a subtransaction rolled
 * back since (the table's data may be that of an earlier refresh).  For a
 * refresh of a table refreshed before in this transaction: rows of the
 * transaction in its upstream's buffer were consumed then, unless written
 * since (REFRESHED_IN_TRANSACTION).
 */
bool
dv_watch_written_since(Oid table, Oid relid)
{
	ListCell   *lc;
	WatchEvent *last = last_refresh(table);
	int			refreshed_seq = last ? last->seq : -1;

	if (refreshed_seq < 0 || refreshed_seq < subxact_abort_seq)
		return true;
	foreach(lc, written)
	{
		WatchEvent *e = lfirst(lc);

		if (e->relid == relid && e->seq > refreshed_seq)
			return true;
	}
	return false;
}

/*
 * dv_watch_changed_since - may relid have been written since the last
 * refresh of table in the current transaction: dv_watch_written_since, or
 * a lock that writes take held on relid now but not at that refresh (a
 * write routed through a partitioned parent, or made by a trigger or rule,
 * passes no hook that names it)?  For verify().
 */
bool
dv_watch_changed_since(Oid table, Oid relid)
{
	WatchEvent *last = last_refresh(table);

	return dv_watch_written_since(table, relid) ||
		(!list_member_oid(last->locked, relid) && dv_holds_write_lock(relid));
}

/* has the current transaction refreshed a dynamic table (so that writes are watched)? */
bool
dv_watch_active(void)
{
	return refreshed != NIL;
}

/*
 * a write to relid by a statement nested in a refresh statement (a trigger
 * or function it runs); counted as after the refresh (dv_watch_refreshed)
 */
void
dv_watch_written_in_refresh(Oid relid)
{
	MemoryContext old;

	ensure_callback();
	old = MemoryContextSwitchTo(TopMemoryContext);
	written_in_refresh = list_append_unique_oid(written_in_refresh, relid);
	MemoryContextSwitchTo(old);
}

/* a write to relid by the user (DML, TRUNCATE); cheap when nothing was refreshed */
void
dv_watch_written(Oid relid)
{
	dv_watch_written_through(relid, InvalidOid);
}

/*
 * a write by the user to through, a partition or inheritance child of relid
 * (an ancestor whose readers read its rows): a write to relid, whose
 * refusal names through
 */
void
dv_watch_written_through(Oid relid, Oid through)
{
	if (refreshed == NIL)
		return;
	note(&written, relid)->through = through;
}
