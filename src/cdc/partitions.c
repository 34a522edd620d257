/*-------------------------------------------------------------------------
 *
 * partitions.c
 *	  Change capture of partitioned sources.
 *
 * A partitioned table has no rows of its own: its rows are those of its
 * leaf partitions, and the WAL logs every change under the leaf that holds
 * the row.  A partitioned table that a dynamic table reads is tracked like
 * a table (one change buffer, with its columns), and:
 *
 *	- the output plugin counts a change of a partition for each tracked
 *	  ancestor (dv_partition_capture_targets): an update that moves a row to
 *	  another partition is logged as a delete in one leaf and an insert in
 *	  the other, so the ancestor gets -1 old row, +1 new row; a TRUNCATE of
 *	  a partition is a TRUNCATE marker of the ancestor (FULL at the next
 *	  refresh, as for a table).  The ancestors are found in pg_inherits under
 *	  the decoder's historic catalog snapshot, so a partition counts from
 *	  the moment it was created or attached, and not after it was detached;
 *	  they are cached per relation until a relcache invalidation (replayed by
 *	  the decoder at the point of the DDL in the WAL).
 *	- every leaf gets REPLICA IDENTITY FULL when tracking starts, and every
 *	  partition created in or attached to a tracked tree afterwards
 *	  (pg_partman's maintenance) when it is created (utility hook).
 *	- attaching a partition that holds rows, detaching one, or dropping one
 *	  that holds rows changes the partitioned table without logging row
 *	  changes: the dynamic tables reading it (or an ancestor) refresh FULL
 *	  next (SOURCE_PARTITIONS_CHANGED).  Creating or attaching an empty
 *	  partition changes nothing.
 *	- a partition that cannot be captured (unlogged, temporary, foreign)
 *	  makes the readers of its partitioned table FULL while it is one
 *	  (SOURCE_NOT_CAPTURED, the delta planner), and switching a partition
 *	  between logged and unlogged (ALTER TABLE ... SET [UN]LOGGED) makes
 *	  them refresh FULL next (SOURCE_PARTITIONS_CHANGED): its writes while
 *	  unlogged were never logged.
 *
 * Traditional inheritance is captured the same way: a change of an
 * inheritance child (at any depth, found in pg_inherits: a child may have
 * several parents) counts for each tracked ancestor; children get REPLICA
 * IDENTITY FULL when tracking starts and when they are created with
 * INHERITS or joined with ALTER TABLE ... INHERIT; a child joining (INHERIT)
 * or leaving (NO INHERIT, DROP) with rows makes the readers FULL.  A parent
 * has rows of its own, read alone with FROM ONLY: every buffer row names
 * the relation it was logged under (dv_relid), and the window of a FROM
 * ONLY source keeps the source's own (refresh/incremental.c).  A parent with
 * a child that cannot be captured (unlogged, temporary, foreign) read
 * without ONLY is FULL (INHERITANCE_CHILDREN, analyze).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/catalog.h"
#include "catalog/namespace.h"
#include "catalog/partition.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "storage/lmgr.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

#include "dynview.h"
#include "cdc/cdc.h"

#define PARTITIONS_CHANGED "SOURCE_PARTITIONS_CHANGED"

/* the decoder's cache: relid -> its partition or inheritance ancestors (nearest first) */
typedef struct AncestorEntry
{
	Oid			relid;			/* hash key */
	List	   *ancestors;		/* of Oid, in ancestor_context */
} AncestorEntry;

static HTAB *ancestor_cache = NULL;
static MemoryContext ancestor_context = NULL;
static bool callback_registered = false;

static void
ancestor_cache_reset(Datum arg, Oid relid)
{
	/* (any relation: attaching or detaching touches both ends, simplest to forget all) */
	if (ancestor_cache != NULL)
	{
		hash_destroy(ancestor_cache);
		ancestor_cache = NULL;
		MemoryContextReset(ancestor_context);
	}
}

/*
 * inheritance_ancestors - the ancestors of relid through pg_inherits (its
 * parents, theirs, ...), each once, nearest first; NIL if it has none.  In
 * the current memory context; reads pg_inherits with the catalog snapshot
 * (the decoder's historic one in the output plugin).
 */
static List *
inheritance_ancestors(Oid relid)
{
	List	   *ancestors = NIL;
	List	   *pending = list_make1_oid(relid);
	Relation	inherits = table_open(InheritsRelationId, AccessShareLock);

	while (pending != NIL)
	{
		Oid			child = linitial_oid(pending);
		ScanKeyData key;
		SysScanDesc scan;
		HeapTuple	tuple;

		pending = list_delete_first(pending);
		ScanKeyInit(&key, Anum_pg_inherits_inhrelid, BTEqualStrategyNumber, F_OIDEQ,
					ObjectIdGetDatum(child));
		scan = systable_beginscan(inherits, InheritsRelidSeqnoIndexId, true, NULL, 1, &key);
		while (HeapTupleIsValid(tuple = systable_getnext(scan)))
		{
			Oid			parent = ((Form_pg_inherits) GETSTRUCT(tuple))->inhparent;

			if (parent == relid || list_member_oid(ancestors, parent))
				continue;
			ancestors = lappend_oid(ancestors, parent);
			pending = lappend_oid(pending, parent);
		}
		systable_endscan(scan);
	}
	table_close(inherits, AccessShareLock);
	return ancestors;
}

/* relid's partition ancestors if it is a partition, else its inheritance ancestors */
static List *
ancestors_of(Oid relid)
{
	if (get_rel_relispartition(relid))
		return get_partition_ancestors(relid);
	return inheritance_ancestors(relid);
}

/*
 * dv_relation_ancestors - the relations a write to relid also writes as far
 * as a query reading them sees: its partition ancestors if it is a
 * partition, else its inheritance parents, theirs, ... (NIL if none)
 */
List *
dv_relation_ancestors(Oid relid)
{
	return ancestors_of(relid);
}

/*
 * dv_partition_capture_targets - the tracked relations a change of relation
 * counts for, besides relation itself: its tracked partition or inheritance
 * ancestors.  NIL for a relation that has none.  Called by the output plugin,
 * under the historic catalog snapshot.
 */
List *
dv_partition_capture_targets(Relation relation)
{
	Oid			relid = RelationGetRelid(relation);
	AncestorEntry *entry;
	bool		found;
	List	   *targets = NIL;
	ListCell   *lc;

	if (!callback_registered)
	{
		CacheRegisterRelcacheCallback(ancestor_cache_reset, (Datum) 0);
		callback_registered = true;
	}
	if (ancestor_context == NULL)
		ancestor_context = AllocSetContextCreate(TopMemoryContext, "dynview partition ancestors",
												 ALLOCSET_SMALL_SIZES);
	if (ancestor_cache == NULL)
	{
		HASHCTL		ctl;

		ctl.keysize = sizeof(Oid);
		ctl.entrysize = sizeof(AncestorEntry);
		ctl.hcxt = ancestor_context;
		ancestor_cache = hash_create("dynview partition ancestors", 64, &ctl,
									 HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}
	entry = hash_search(ancestor_cache, &relid, HASH_FIND, NULL);
	if (entry == NULL)
	{
		/*
		 * (Computed in the caller's context: opening pg_inherits may process
		 * invalidations that reset the cache and its context.)
		 */
		List	   *ancestors = relation->rd_rel->relispartition
			? get_partition_ancestors(relid) : inheritance_ancestors(relid);
		MemoryContext old;

		if (ancestor_cache == NULL)
			return dv_partition_capture_targets(relation);
		old = MemoryContextSwitchTo(ancestor_context);
		ancestors = list_copy(ancestors);
		MemoryContextSwitchTo(old);
		entry = hash_search(ancestor_cache, &relid, HASH_ENTER, &found);
		entry->ancestors = ancestors;
	}
	foreach(lc, entry->ancestors)
	{
		if (dv_shmem_source_tracked(MyDatabaseId, lfirst_oid(lc), NULL))
			targets = lappend_oid(targets, lfirst_oid(lc));
	}
	return targets;
}

/*
 * dv_partition_leaves - the leaf partitions of partitioned table relid (all
 * levels), locked with lockmode; of a table, the table and its inheritance
 * descendants.
 */
List *
dv_partition_leaves(Oid relid, LOCKMODE lockmode)
{
	List	   *leaves = NIL;
	ListCell   *lc;

	foreach(lc, find_all_inheritors(relid, lockmode, NULL))
	{
		if (get_rel_relkind(lfirst_oid(lc)) != RELKIND_PARTITIONED_TABLE)
			leaves = lappend_oid(leaves, lfirst_oid(lc));
	}
	return leaves;
}

/*
 * dv_partition_tree_capturable - can every change of partitioned table
 * relid, or of table relid and its inheritance descendants, be captured:
 * are all its leaves logged tables (no foreign, unlogged or temporary
 * partitions or children)?
 */
bool
dv_partition_tree_capturable(Oid relid)
{
	ListCell   *lc;
	char		kind = get_rel_relkind(relid);
	List	   *leaves;
	bool		dynamic = false;

	if ((kind != RELKIND_PARTITIONED_TABLE && kind != RELKIND_RELATION) ||
		get_rel_persistence(relid) != RELPERSISTENCE_PERMANENT)
		return false;
	leaves = dv_partition_leaves(relid, NoLock);
	foreach(lc, leaves)
	{
		Oid			leaf = lfirst_oid(lc);

		if (get_rel_relkind(leaf) != RELKIND_RELATION ||
			get_rel_persistence(leaf) != RELPERSISTENCE_PERMANENT)
			return false;
	}

	/*
	 * A partitioned dynamic table's partitions are dynamic tables, whose
	 * changes the decoder does not capture (their refreshes write their own
	 * change buffers, one per partition): its readers are FULL.
	 */
	if (kind == RELKIND_PARTITIONED_TABLE && dv_is_partitioned_dynamic_table(relid))
		return false;			/* (also before its first partition) */
	if (kind == RELKIND_PARTITIONED_TABLE && leaves != NIL)
	{
		SPI_connect();
		foreach(lc, leaves)
		{
			if ((dynamic = dv_is_dynamic_table(lfirst_oid(lc))))
				break;
		}
		SPI_finish();
	}
	return !dynamic;
}

/* does relid (or any of its partitions or inheritance descendants) hold a row visible now? */
static bool
holds_rows(Oid relid)
{
	List	   *rels = dv_partition_leaves(relid, NoLock);
	ListCell   *lc;
	bool		found = false;

	PushActiveSnapshot(GetLatestSnapshot());
	foreach(lc, rels)
	{
		Relation	rel;
		TableScanDesc scan;
		TupleTableSlot *slot;

		if (get_rel_relkind(lfirst_oid(lc)) != RELKIND_RELATION)
		{
			found = true;		/* (a foreign partition: assume so) */
			break;
		}
		rel = table_open(lfirst_oid(lc), AccessShareLock);
		slot = table_slot_create(rel, NULL);
		scan = table_beginscan(rel, GetActiveSnapshot(), 0, NULL);
		found = table_scan_getnextslot(scan, ForwardScanDirection, slot);
		table_endscan(scan);
		ExecDropSingleTupleTableSlot(slot);
		table_close(rel, AccessShareLock);
		if (found)
			break;
	}
	PopActiveSnapshot();
	return found;
}

/* relid and its partition or inheritance ancestors that dynamic tables read */
static List *
read_tree(Oid relid)
{
	List	   *tree = list_make1_oid(relid);
	List	   *read = NIL;
	ListCell   *lc;

	tree = list_concat(tree, ancestors_of(relid));
	foreach(lc, tree)
	{
		Oid			types[1] = {OIDOID};
		Datum		values[1] = {ObjectIdGetDatum(lfirst_oid(lc))};

		dv_catalog_exec("SELECT 1 FROM dynview.source_catalog WHERE source_relid = $1 LIMIT 1",
						1, types, values, NULL, -1);
		if (SPI_processed > 0)
			read = lappend_oid(read, lfirst_oid(lc));
	}
	return read;
}

/* the dynamic tables reading any of sources refresh FULL next */
static void
mark_readers_full(List *sources)
{
	ListCell   *lc;

	foreach(lc, sources)
	{
		Oid			types[2] = {OIDOID, TEXTOID};
		Datum		values[2] = {ObjectIdGetDatum(lfirst_oid(lc)), CStringGetTextDatum(PARTITIONS_CHANGED)};

		dv_catalog_exec("UPDATE dynview.dynamic_table_catalog SET next_refresh_full = $2 "
						"WHERE next_refresh_full IS NULL AND relid OPERATOR(pg_catalog.=) ANY (ARRAY("
						"  SELECT s.relid FROM dynview.source_catalog s WHERE s.source_relid OPERATOR(pg_catalog.=) $1))",
						2, types, values, NULL, -1);
	}
}

/*
 * identity_full - REPLICA IDENTITY FULL on the leaves of relid (or relid and
 * its inheritance descendants), as the current user (who created, attached
 * or joined it, so owns it).
 */
static void
identity_full(Oid relid)
{
	List	   *rels = dv_partition_leaves(relid, NoLock);
	ListCell   *lc;

	foreach(lc, rels)
	{
		Oid			leaf = lfirst_oid(lc);
		HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(leaf));
		char		identity;

		if (!HeapTupleIsValid(tup))
			continue;
		identity = ((Form_pg_class) GETSTRUCT(tup))->relreplident;
		ReleaseSysCache(tup);
		if (identity == REPLICA_IDENTITY_FULL || get_rel_relkind(leaf) != RELKIND_RELATION)
			continue;
		if (SPI_execute(psprintf("ALTER TABLE %s REPLICA IDENTITY FULL",
								 dv_relation_qualified_name(leaf)),
						false, 0) != SPI_OK_UTILITY)
			elog(ERROR, "could not set the replica identity of relation %u", leaf);
	}
}

/*
 * dv_partition_utility_relevant - is parsetree a statement that may change
 * the partitions or inheritance children of a source: DROP TABLE, CREATE
 * TABLE ... PARTITION OF or INHERITS, ALTER TABLE ... ATTACH/DETACH
 * PARTITION, [NO] INHERIT or SET [UN]LOGGED?
 */
bool
dv_partition_utility_relevant(Node *parsetree)
{
	ListCell   *lc;

	if (IsA(parsetree, DropStmt))
		return ((DropStmt *) parsetree)->removeType == OBJECT_TABLE;
	if (IsA(parsetree, CreateStmt))
		return ((CreateStmt *) parsetree)->partbound != NULL ||
			((CreateStmt *) parsetree)->inhRelations != NIL;
	if (IsA(parsetree, AlterTableStmt) && ((AlterTableStmt *) parsetree)->objtype == OBJECT_TABLE)
	{
		foreach(lc, ((AlterTableStmt *) parsetree)->cmds)
		{
			AlterTableCmd *cmd = lfirst_node(AlterTableCmd, lc);

			if (cmd->subtype == AT_AttachPartition || cmd->subtype == AT_DetachPartition ||
				cmd->subtype == AT_AddInherit || cmd->subtype == AT_DropInherit ||
				cmd->subtype == AT_SetLogged || cmd->subtype == AT_SetUnLogged)
				return true;
		}
	}
	return false;
}

/* the partitioned table (or partition) a RangeVar names, if it exists */
static Oid
partition_relation(RangeVar *rv)
{
	Oid			relid = rv ? RangeVarGetRelid(rv, NoLock, true) : InvalidOid;

	return relid;
}

/*
 * dv_partition_utility_before - a DROP TABLE of a partition or inheritance
 * child that holds rows, of a tree a dynamic table reads: its readers
 * refresh FULL next (the rows vanish without being logged as deleted).
 * DETACH PARTITION, NO INHERIT: remembers the tree for
 * dv_partition_utility_after: returns, in the caller's memory context, the
 * detached partitions or children with the sources they leave.
 */
List *
dv_partition_utility_before(Node *parsetree)
{
	ListCell   *lc;
	List	   *detached = NIL;
	MemoryContext caller = CurrentMemoryContext;

	SPI_connect();

	if (IsA(parsetree, DropStmt) && ((DropStmt *) parsetree)->removeType == OBJECT_TABLE)
	{
		foreach(lc, ((DropStmt *) parsetree)->objects)
		{
			Oid			relid = partition_relation(makeRangeVarFromNameList(lfirst(lc)));
			List	   *read;

			if (!OidIsValid(relid) || ancestors_of(relid) == NIL)
				continue;
			read = read_tree(relid);
			if (read != NIL && holds_rows(relid))
				mark_readers_full(read);
		}
	}
	else if (IsA(parsetree, AlterTableStmt))
	{
		foreach(lc, ((AlterTableStmt *) parsetree)->cmds)
		{
			AlterTableCmd *cmd = lfirst_node(AlterTableCmd, lc);
			Oid			relid;

			if (cmd->subtype == AT_DropInherit)
				relid = partition_relation(((AlterTableStmt *) parsetree)->relation);
			else if (cmd->subtype == AT_DetachPartition)
				relid = partition_relation(((PartitionCmd *) cmd->def)->name);
			else
				continue;
			if (OidIsValid(relid) && ancestors_of(relid) != NIL)
			{
				List	   *read = read_tree(relid);

				/* (the partition itself, read by name, keeps its rows) */
				read = list_delete_oid(read, relid);
				if (read != NIL)
				{
					MemoryContext old = MemoryContextSwitchTo(caller);

					detached = lappend(detached, list_make2(list_make1_oid(relid), list_copy(read)));
					MemoryContextSwitchTo(old);
				}
			}
		}
	}
	SPI_finish();
	return detached;
}

/*
 * dv_partition_utility_after - after CREATE TABLE ... PARTITION OF or
 * INHERITS, ALTER TABLE ... ATTACH/DETACH PARTITION or [NO] INHERIT: a new
 * partition or child of a tree that a dynamic table reads gets REPLICA
 * IDENTITY FULL; one attached (joined) with rows, or detached (left) with
 * rows, or switched between logged and unlogged (SET [UN]LOGGED), makes
 * the readers refresh FULL next.
 * detached: what dv_partition_utility_before returned.
 */
void
dv_partition_utility_after(Node *parsetree, List *detached)
{
	ListCell   *lc;

	SPI_connect();
	foreach(lc, detached)
	{
		Oid			relid = linitial_oid(linitial(lfirst(lc)));

		if (get_rel_name(relid) != NULL && holds_rows(relid))
			mark_readers_full(lsecond(lfirst(lc)));
	}
	if (IsA(parsetree, CreateStmt))
	{
		Oid			relid = partition_relation(((CreateStmt *) parsetree)->relation);

		/* (a new partition or inheritance child holds no rows) */
		if (OidIsValid(relid) && ancestors_of(relid) != NIL &&
			list_delete_oid(read_tree(relid), relid) != NIL)
			identity_full(relid);
	}
	else if (IsA(parsetree, AlterTableStmt))
	{
		foreach(lc, ((AlterTableStmt *) parsetree)->cmds)
		{
			AlterTableCmd *cmd = lfirst_node(AlterTableCmd, lc);
			Oid			relid;
			List	   *read;

			if (cmd->subtype == AT_SetLogged || cmd->subtype == AT_SetUnLogged)
			{
				/*
				 * A partition or child switched between logged and unlogged:
				 * whatever was written to it while unlogged never reached the
				 * WAL (its readers were FULL meanwhile, but a switch back
				 * before their next refresh would hide those writes), and
				 * SET LOGGED copies the rows without logging them as
				 * changes.  Its readers refresh FULL next, rows or not (rows
				 * deleted while unlogged are changes too).
				 */
				relid = partition_relation(((AlterTableStmt *) parsetree)->relation);
				if (OidIsValid(relid) && ancestors_of(relid) != NIL &&
					(read = list_delete_oid(read_tree(relid), relid)) != NIL)
					mark_readers_full(read);
				continue;
			}
			if (cmd->subtype == AT_AddInherit)
				relid = partition_relation(((AlterTableStmt *) parsetree)->relation);
			else if (cmd->subtype == AT_AttachPartition)
				relid = partition_relation(((PartitionCmd *) cmd->def)->name);
			else
				continue;
			if (!OidIsValid(relid) || ancestors_of(relid) == NIL)
				continue;
			read = list_delete_oid(read_tree(relid), relid);
			if (read == NIL)
				continue;
			identity_full(relid);
			if (holds_rows(relid))
				mark_readers_full(read);
		}
	}
	SPI_finish();
}
