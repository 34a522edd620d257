/*-------------------------------------------------------------------------
 *
 * recordfilter.c
 *	  The decoder's filter of WAL records that no dynamic table needs: row
 *	  changes of tables that are not captured.
 *
 * PostgreSQL decodes every row change of the slot's database into its
 * reorder buffer (memory, then spill files or streaming) and replays it at
 * commit, where the output plugin drops the changes of relations it does
 * not capture.  For a bulk write to an untracked table that costs the
 * decoder far more than the writer (issue 14).  The decoder therefore asks
 * this filter, before handing a record to LogicalDecodingProcessRecord,
 * whether it is an INSERT, UPDATE, DELETE or multi-insert of a table that
 * is not captured, or one of dynview's own writes (origin DoNotReplicateId,
 * which the plugin filters anyway), and skips it if so.
 *
 * A record's relation is known by its relfilenode only; it is looked up in
 * pg_class (index on reltablespace, relfilenode) and pg_inherits with the
 * current catalog snapshot, by index scans that fill no catalog cache (a
 * cache entry made now could be used by the reorder buffer when it replays
 * older changes under a historic snapshot).  A record is skipped only when
 * its relation is found, is a user table (or its TOAST table), and neither
 * it nor any ancestor (partition or inheritance parent) is a tracked source.
 * Everything else -- catalog changes, relfilenodes not found (a relation
 * created or rewritten by a transaction not committed yet), speculative
 * inserts and their confirmation, truncations, and a subtransaction's first
 * record (it assigns the subtransaction to its top-level transaction) --
 * goes to PostgreSQL as before, and the output plugin decides as before.
 *
 * Why a decision made with the current catalog is exact:
 *	- A relation found captured stays "keep" for the life of the decoder, so
 *	  no transaction has some of its changes of one relation kept and others
 *	  skipped because capture stopped in between (untracking, DETACH, NO
 *	  INHERIT); the plugin decides about kept changes at replay, as before.
 *	- "Skip" decisions are forgotten when a source starts to be tracked
 *	  (dv_shmem_tracking_generation, read after the flush position the
 *	  decoder reads up to) and on any relcache invalidation (ATTACH
 *	  PARTITION, INHERIT, CREATE TABLE ... PARTITION OF and DROP send one for
 *	  the relation before its locks are released, so before any write that
 *	  the new state must capture).  A record skipped before was written
 *	  before the change: by a transaction that held a lock on the relation,
 *	  which tracking start waits for (WaitForLockers) before the initial
 *	  build's snapshot, and which ATTACH/INHERIT (ACCESS EXCLUSIVE on the
 *	  child) wait for, so the change does not belong to any window.
 *	- A relfilenode not found is looked up again at the next batch.
 *
 * Callers: the decoder worker only, inside a transaction.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/heapam_xlog.h"
#include "access/htup_details.h"
#include "access/rmgr.h"
#include "access/table.h"
#include "access/transam.h"
#include "access/xlogreader.h"
#include "catalog/indexing.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "miscadmin.h"
#include "replication/origin.h"
#include "storage/relfilenode.h"
#include "utils/fmgroids.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "dynview.h"
#include "cdc/cdc.h"

typedef enum FilterDecision
{
	DECIDE_KEEP,				/* captured (for good) or a catalog */
	DECIDE_SKIP,				/* an untracked user table, as of now */
	DECIDE_UNKNOWN				/* not in pg_class (yet): keep, look again later */
} FilterDecision;

typedef struct FilterEntry
{
	RelFileNode node;			/* hash key */
	FilterDecision decision;
} FilterEntry;

static HTAB *decisions = NULL;
static bool forget_skips = false;	/* a relcache invalidation arrived */
static uint64 generation = 0;

static void
filter_relcache_callback(Datum arg, Oid relid)
{
	forget_skips = true;
}

/* drop the entries that may have changed: "skip" and "unknown" ones */
static void
forget_decisions(bool unknown_only)
{
	HASH_SEQ_STATUS status;
	FilterEntry *entry;

	hash_seq_init(&status, decisions);
	while ((entry = hash_seq_search(&status)) != NULL)
	{
		if (entry->decision == DECIDE_UNKNOWN ||
			(!unknown_only && entry->decision == DECIDE_SKIP))
			hash_search(decisions, &entry->node, HASH_REMOVE, NULL);
	}
}

/*
 * dv_record_filter_begin - start a batch of records: called by the decoder
 * after it read the flush position it decodes up to, in its transaction
 * (whose start processed the pending invalidations).
 */
void
dv_record_filter_begin(void)
{
	uint64		current = dv_shmem_tracking_generation();

	if (decisions == NULL)
	{
		HASHCTL		ctl;

		ctl.keysize = sizeof(RelFileNode);
		ctl.entrysize = sizeof(FilterEntry);
		ctl.hcxt = TopMemoryContext;
		decisions = hash_create("dynview record filter", 256, &ctl,
								HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
		CacheRegisterRelcacheCallback(filter_relcache_callback, (Datum) 0);
		generation = current;
		return;
	}
	forget_decisions(!(forget_skips || current != generation));
	forget_skips = false;
	generation = current;
}

/* the relation with this relfilenode in pg_class, or InvalidOid; its relkind */
static Oid
relation_of(RelFileNode *node, char *relkind)
{
	Relation	pg_class = table_open(RelationRelationId, AccessShareLock);
	ScanKeyData key[2];
	SysScanDesc scan;
	HeapTuple	tuple;
	Oid			relid = InvalidOid;

	/* pg_class stores 0 for the database's default tablespace */
	ScanKeyInit(&key[0], Anum_pg_class_reltablespace, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(node->spcNode == MyDatabaseTableSpace ? InvalidOid : node->spcNode));
	ScanKeyInit(&key[1], Anum_pg_class_relfilenode, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(node->relNode));
	scan = systable_beginscan(pg_class, ClassTblspcRelfilenodeIndexId, true, NULL, 2, key);
	while (HeapTupleIsValid(tuple = systable_getnext(scan)))
	{
		Form_pg_class form = (Form_pg_class) GETSTRUCT(tuple);

		/* (a temporary relation of a session may have the same number: not logged) */
		if (form->relpersistence == RELPERSISTENCE_TEMP)
			continue;
		relid = form->oid;
		*relkind = form->relkind;
		break;
	}
	systable_endscan(scan);
	table_close(pg_class, AccessShareLock);
	return relid;
}

/* the table whose TOAST table is toast_relid, or InvalidOid (a sequential scan, once per relation) */
static Oid
toast_owner(Oid toast_relid)
{
	Relation	pg_class = table_open(RelationRelationId, AccessShareLock);
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tuple;
	Oid			owner = InvalidOid;

	ScanKeyInit(&key, Anum_pg_class_reltoastrelid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(toast_relid));
	scan = systable_beginscan(pg_class, InvalidOid, false, NULL, 1, &key);
	if (HeapTupleIsValid(tuple = systable_getnext(scan)))
		owner = ((Form_pg_class) GETSTRUCT(tuple))->oid;
	systable_endscan(scan);
	table_close(pg_class, AccessShareLock);
	return owner;
}

/* is relid, or one of its partition or inheritance ancestors, a tracked source? */
static bool
captured(Oid relid, int depth)
{
	Relation	pg_inherits;
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tuple;
	bool		result = false;

	if (dv_shmem_source_tracked(MyDatabaseId, relid, NULL))
		return true;
	if (depth > 100)
		return true;			/* (cannot happen: keep, to be safe) */
	pg_inherits = table_open(InheritsRelationId, AccessShareLock);
	ScanKeyInit(&key, Anum_pg_inherits_inhrelid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(relid));
	scan = systable_beginscan(pg_inherits, InheritsRelidSeqnoIndexId, true, NULL, 1, &key);
	while (!result && HeapTupleIsValid(tuple = systable_getnext(scan)))
		result = captured(((Form_pg_inherits) GETSTRUCT(tuple))->inhparent, depth + 1);
	systable_endscan(scan);
	table_close(pg_inherits, AccessShareLock);
	return result;
}

static FilterDecision
decide(RelFileNode *node)
{
	char		relkind = 0;
	Oid			relid = relation_of(node, &relkind);

	if (!OidIsValid(relid))
		return DECIDE_UNKNOWN;
	if (relid < FirstNormalObjectId)
		return DECIDE_KEEP;
	if (relkind == RELKIND_TOASTVALUE)
	{
		relid = toast_owner(relid);
		if (!OidIsValid(relid))
			return DECIDE_UNKNOWN;
	}
	return captured(relid, 0) ? DECIDE_KEEP : DECIDE_SKIP;
}

/*
 * dv_record_filter_skip - may the decoder skip this record (a row change of
 * a table that no dynamic table captures)?  Needs a transaction and
 * dv_record_filter_begin() for the current batch.
 */
bool
dv_record_filter_skip(XLogReaderState *record)
{
	uint8		info = XLogRecGetInfo(record) & ~XLR_INFO_MASK;
	RelFileNode node;
	FilterEntry *entry;
	bool		found;

	switch (XLogRecGetRmid(record))
	{
		case RM_HEAP_ID:
			switch (info & XLOG_HEAP_OPMASK)
			{
				case XLOG_HEAP_INSERT:
					if (((xl_heap_insert *) XLogRecGetData(record))->flags & XLH_INSERT_IS_SPECULATIVE)
						return false;
					break;
				case XLOG_HEAP_DELETE:
					if (((xl_heap_delete *) XLogRecGetData(record))->flags & XLH_DELETE_IS_SUPER)
						return false;
					break;
				case XLOG_HEAP_UPDATE:
				case XLOG_HEAP_HOT_UPDATE:
					break;
				default:
					return false;
			}
			break;
		case RM_HEAP2_ID:
			if ((info & XLOG_HEAP_OPMASK) != XLOG_HEAP2_MULTI_INSERT)
				return false;
			break;
		default:
			return false;
	}

	/* a subtransaction's first record assigns it to its top-level transaction */
	if (TransactionIdIsValid(XLogRecGetTopXid(record)))
		return false;

	/*
	 * dynview's own write (plugin.c): PostgreSQL would drop it too
	 * (filter_by_origin_cb), after registering its transaction, which
	 * nothing needs.
	 */
	if (XLogRecGetOrigin(record) == DoNotReplicateId)
		return true;
	if (decisions == NULL || !XLogRecGetBlockTagExtended(record, 0, &node, NULL, NULL, NULL))
		return false;
	if (node.dbNode != MyDatabaseId)
		return false;			/* (PostgreSQL skips it at once) */

	entry = hash_search(decisions, &node, HASH_FIND, NULL);
	if (entry == NULL)
	{
		FilterDecision decision = decide(&node);

		entry = hash_search(decisions, &node, HASH_ENTER, &found);
		entry->decision = decision;
	}
	return entry->decision == DECIDE_SKIP;
}
