/*-------------------------------------------------------------------------
 *
 * apply.c
 *	  The direct apply of a select/join table's consolidated delta: the rows
 *	  that leave found through the table's unique key index and deleted, the
 *	  rows that come written in batches with their index entries, a row
 *	  whose key stays and whose other columns change updated in place (HOT
 *	  where it can: no new index entry), each in the key's order where the
 *	  key is passed by value, without SQL statements (issue 14: the
 *	  dashboard's detail layer spent most of its refresh in the DELETE ...
 *	  USING and INSERT ... SELECT ... RETURNING that apply_spj ran through
 *	  SPI).  The same writes apply the rows an incremental refresh
 *	  recomputed (groups, window rows: dv_apply_diff, for refresh.c's
 *	  restricted recompute), matched with the table's rows in C instead of a
 *	  FULL JOIN, DELETE and INSERT statement.
 *
 * This is what PostgreSQL's logical replication apply worker does with a
 * change (execReplication.c: an index scan by the key, the tuple deleted or
 * updated, ExecInsertIndexTuples after the heap insert or a non-HOT update)
 * and what COPY FROM does with its rows (table_multi_insert: one WAL record
 * and one buffer lock per heap page filled, not per row; then each row's
 * index entries, whose unique checks raise the same 23505 as an INSERT).
 * It is taken only where a statement would do nothing more than that
 * (dv_apply_begin): a plain table (not partitioned, not a partition), no
 * trigger (so no foreign key and no deferrable constraint either), no rule,
 * no row-level security, no stored generated column nor identity column
 * GENERATED ALWAYS, and the current user holding all of SELECT, INSERT and
 * DELETE on it (updates in place: update_in_place_ok); NOT NULL and CHECK
 * constraints are checked as the executor does (ExecConstraints, the row's
 * tableoid set).  Anything else, and any row the direct delete does not
 * find, is left to apply_spj's statements, which stay the general path.
 *
 * What the writes run (a CHECK constraint's or an index expression's
 * function) runs as under a statement: at the data snapshot with the
 * current command id, and for the guard as what a refresh statement runs
 * (dv_guard_begin_direct_write: it may not write a source or a dynamic
 * table, nor start a refresh).
 *
 * Exactness: a row leaves only if its text form is the delta row's (the
 * SQL statements' rule: 1.0 and 1.00 are different rows; a row written
 * 1.0 is not taken for a delta's 1.00, the count of rows deleted then
 * differs and the caller refreshes in full).  Rows whose images are equal
 * column by column have equal text forms, so the text form is computed only
 * when an image differs.
 *
 * Locks: the dynamic table is held by the refresh (RowExclusiveLock here,
 * as a statement takes it); its indexes RowExclusiveLock (ExecOpenIndices).
 * Needs a transaction; writes carry dynview's replication origin when the
 * refresh's statements would (dv_refresh_writes_own).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/heapam.h"
#include "access/nbtree.h"
#include "access/relation.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/index.h"
#include "catalog/pg_am.h"
#include "catalog/pg_publication.h"
#include "common/hashfn.h"
#include "executor/executor.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "parser/parse_coerce.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/sortsupport.h"

#include "dynview.h"
#include "cdc/cdc.h"

/* rows written per table_multi_insert call (COPY's batches are of this order) */
#define APPLY_BATCH 1000

struct DvApply
{
	DvTable    *dt;
	Relation	rel;
	EState	   *estate;
	ResultRelInfo *rri;
	Oid			key_index;		/* unique index on exactly the key, or InvalidOid */
	int			nkeys;
	AttrNumber	key_attnums[INDEX_MAX_KEYS];	/* table column of index column i */
	bool		own;			/* written as dynview's own writes */
	bool		can_update;		/* rows may change in place (update_in_place_ok) */
	bool		sort_writes;	/* write in the key index's order (sorted_rows) */
};

/*
 * key_index_of - a valid, immediate unique B-tree index of rel on exactly
 * the columns key (names), each with its type's default operator family
 * (the type cache's: no catalog scan per refresh) and its column's
 * collation, no expression and no predicate; InvalidOid if
 * none.  Its equality is then the "=" the SQL statements would look rows up
 * with.  Fills key_attnums (index column order) and *nkeys.
 */
static Oid
key_index_of(Relation rel, List *key, AttrNumber *key_attnums, int *nkeys)
{
	TupleDesc	desc = RelationGetDescr(rel);
	List	   *indexes = RelationGetIndexList(rel);
	ListCell   *lc;
	Oid			found = InvalidOid;

	if (key == NIL || list_length(key) > INDEX_MAX_KEYS)
		return InvalidOid;
	foreach(lc, indexes)
	{
		Relation	index = index_open(lfirst_oid(lc), AccessShareLock);
		Form_pg_index form = index->rd_index;
		bool		ok = form->indisunique && form->indimmediate && form->indisvalid &&
			form->indisready && form->indislive && index->rd_rel->relam == BTREE_AM_OID &&
			form->indnkeyatts == list_length(key) &&
			heap_attisnull(index->rd_indextuple, Anum_pg_index_indexprs, NULL) &&
			heap_attisnull(index->rd_indextuple, Anum_pg_index_indpred, NULL);

		for (int i = 0; ok && i < form->indnkeyatts; i++)
		{
			AttrNumber	att = form->indkey.values[i];
			Form_pg_attribute a;
			ListCell   *kc;
			bool		in_key = false;

			if (att <= 0)
			{
				ok = false;
				break;
			}
			a = TupleDescAttr(desc, att - 1);
			foreach(kc, key)
				if (strcmp(NameStr(a->attname), (char *) lfirst(kc)) == 0)
					in_key = true;
			/*
			 * the type's default btree operator family, whose "=" the
			 * statements use (dv_btree_family); its input type may be one
			 * the column's is binary coercible to (varchar's text_ops, a
			 * domain's base type, anyenum, anyarray)
			 */
			ok = in_key && !a->attisdropped &&
				IsBinaryCoercible(a->atttypid, index->rd_opcintype[i]) &&
				index->rd_opfamily[i] == dv_btree_family(a->atttypid) &&
				index->rd_indcollation[i] == a->attcollation;
			key_attnums[i] = att;
		}
		index_close(index, AccessShareLock);
		if (ok)
		{
			found = lfirst_oid(lc);
			*nkeys = list_length(key);
			break;
		}
	}
	list_free(indexes);
	return found;
}

/*
 * has_identity_always - has rel a column GENERATED ALWAYS AS IDENTITY (made
 * before the guard refused them)?  The statements' INSERT refuses to write
 * it (428C9), and so must the refresh.
 */
static bool
has_identity_always(Relation rel)
{
	TupleDesc	desc = RelationGetDescr(rel);

	for (int k = 0; k < desc->natts; k++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, k);

		if (!att->attisdropped && att->attidentity == ATTRIBUTE_IDENTITY_ALWAYS)
			return true;
	}
	return false;
}

/*
 * update_in_place_ok - may a row whose key stays be updated in place
 * (dv_apply_update, dv_apply_diff) instead of deleted and inserted, as the
 * SQL statements apply it?  Only where nothing can tell the two apart:
 *	- the user holds UPDATE on the table (a statement would not update);
 *	- no CHECK constraint: one that reads the table (a function) would see
 *	  the other rows of the change not yet written; NOT NULL is checked
 *	  alike;
 *	- no unique or exclusion index but the key index: two rows swapping a
 *	  value would meet in it, which the deletes before the inserts avoid
 *	  (the key index cannot: an updated row keeps its key);
 *	- no publication: its subscribers receive the DELETE and INSERT, and
 *	  one that publishes no updates would lose the change.
 */
static bool
update_in_place_ok(DvApply *a)
{
	Relation	rel = a->rel;
	PublicationDesc pubdesc;
	List	   *indexes;
	ListCell   *lc;
	bool		ok = true;

	if (pg_class_aclcheck(RelationGetRelid(rel), GetUserId(), ACL_UPDATE) != ACLCHECK_OK)
		return false;
	if (rel->rd_att->constr != NULL && rel->rd_att->constr->num_check > 0)
		return false;
	RelationBuildPublicationDesc(rel, &pubdesc);
	if (pubdesc.pubactions.pubinsert || pubdesc.pubactions.pubupdate ||
		pubdesc.pubactions.pubdelete || pubdesc.pubactions.pubtruncate)
		return false;
	indexes = RelationGetIndexList(rel);
	foreach(lc, indexes)
	{
		HeapTuple	tuple;
		Form_pg_index form;

		if (lfirst_oid(lc) == a->key_index)
			continue;
		tuple = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(lfirst_oid(lc)));
		if (!HeapTupleIsValid(tuple))
			elog(ERROR, "cache lookup failed for index %u", lfirst_oid(lc));
		form = (Form_pg_index) GETSTRUCT(tuple);
		if (form->indisunique || form->indisexclusion)
			ok = false;
		ReleaseSysCache(tuple);
	}
	list_free(indexes);
	return ok;
}

/*
 * dv_apply_begin - the direct apply of dt's delta, or NULL when a statement
 * would do more than write the rows (see the file header), with the reason
 * at DEBUG1.  key: the table's derived key (column names), NIL if none;
 * without a unique index on it the rows that leave are left to the SQL
 * statements (dv_apply_can_delete false).  Opens the table
 * (RowExclusiveLock) and its indexes; allocates in the current memory
 * context; dv_apply_end closes them.
 */
DvApply *
dv_apply_begin(DvTable *dt, List *key)
{
	Relation	rel = table_open(dt->relid, RowExclusiveLock);
	const char *why = NULL;
	DvApply    *a;

	if (rel->rd_rel->relkind != RELKIND_RELATION || rel->rd_rel->relispartition)
		why = "not a plain table";
	else if (rel->trigdesc != NULL)
		why = "it has triggers";
	else if (rel->rd_rules != NULL)
		why = "it has rules";
	else if (rel->rd_rel->relrowsecurity)
		why = "row-level security is enabled";
	else if (rel->rd_att->constr && rel->rd_att->constr->has_generated_stored)
		why = "it has generated columns";
	else if (has_identity_always(rel))
		why = "it has an identity column GENERATED ALWAYS";
	/* (all three: pg_class_aclcheck would be satisfied by any one of them) */
	else if (pg_class_aclmask(dt->relid, GetUserId(), ACL_SELECT | ACL_INSERT | ACL_DELETE, ACLMASK_ALL) !=
			 (ACL_SELECT | ACL_INSERT | ACL_DELETE))
		why = "the user lacks a table privilege";
	if (why != NULL)
	{
		elog(DEBUG1, "dynview: dynamic table \"%s\" applied by SQL statements: %s",
			 dt->table_name, why);
		table_close(rel, RowExclusiveLock);
		return NULL;
	}
	a = palloc0(sizeof(DvApply));
	a->dt = dt;
	a->rel = rel;
	a->key_index = key_index_of(rel, key, a->key_attnums, &a->nkeys);
	if (key != NIL && !OidIsValid(a->key_index))
		elog(DEBUG1, "dynview: dynamic table \"%s\": the rows that leave are deleted by SQL statements: no unique B-tree index on its key with its types' default operator families",
			 dt->table_name);
	a->estate = CreateExecutorState();
	a->rri = makeNode(ResultRelInfo);
	/* (no range table: constraint errors then show the row as a statement without column list does) */
	InitResultRelInfo(a->rri, rel, 0, NULL, 0);
	ExecOpenIndices(a->rri, false);
	a->own = dv_refresh_writes_own();
	a->can_update = OidIsValid(a->key_index) && update_in_place_ok(a);
	/* (every key column passed by value: see sorted_rows) */
	a->sort_writes = OidIsValid(a->key_index);
	for (int k = 0; k < a->nkeys && a->sort_writes; k++)
		a->sort_writes = TupleDescAttr(RelationGetDescr(rel), a->key_attnums[k] - 1)->attbyval;
	return a;
}

/* can dv_apply_delete find rows (a unique index on the key)? */
bool
dv_apply_can_delete(DvApply *a)
{
	return OidIsValid(a->key_index);
}

/* close what dv_apply_begin opened (the table's lock is kept) */
void
dv_apply_end(DvApply *a)
{
	ExecCloseIndices(a->rri);
	FreeExecutorState(a->estate);
	table_close(a->rel, NoLock);
	pfree(a->rri);
	pfree(a);
}

/* dv_row_datum: see dynview.h */
Datum
dv_row_datum(TupleDesc desc, Datum *values, bool *nulls)
{
	HeapTuple	tuple = heap_form_tuple(desc, values, nulls);
	Datum		d = heap_copy_tuple_as_datum(tuple, desc);

	heap_freetuple(tuple);
	return d;
}

/* are the two rows' images identical, column by column (the *= operator's test)? */
static bool
same_image(TupleDesc desc, Datum *values1, bool *nulls1, Datum *values2, bool *nulls2)
{
	for (int k = 0; k < desc->natts; k++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, k);

		if (att->attisdropped)
			continue;
		if (nulls1[k] != nulls2[k])
			return false;
		if (!nulls1[k] && !datum_image_eq(values1[k], values2[k], att->attbyval, att->attlen))
			return false;
	}
	return true;
}

/*
 * does the table row in slot have the delta row's text form?  (The delta
 * row's text form is made only when an image differs: record_out of the row
 * as a value of the table's row type, as ROW(...)::table::text made it.)
 */
static bool
same_row(DvApply *a, TupleTableSlot *slot, DvDeltaRow *row, FmgrInfo *record_out)
{
	TupleDesc	desc = RelationGetDescr(a->rel);
	char	   *text;
	char	   *row_text;
	bool		same;

	slot_getallattrs(slot);
	if (same_image(desc, slot->tts_values, slot->tts_isnull, row->values, row->nulls))
		return true;
	/* (an image differs: the text forms decide, as the statements' ROW(t.*)::text = key) */
	text = OutputFunctionCall(record_out, ExecFetchSlotHeapTupleDatum(slot));
	row_text = OutputFunctionCall(record_out, dv_row_datum(desc, row->values, row->nulls));
	same = strcmp(text, row_text) == 0;
	pfree(text);
	pfree(row_text);
	return same;
}

/*
 * write the n heap tuples (rows of the table) to its change buffer, if it
 * has one, with the weight (dv_write_own_buffer takes SPI's shape)
 */
static void
write_own_buffer(DvApply *a, HeapTuple *tuples, uint64 n, int weight, int32 *seq)
{
	SPITupleTable part;

	if (n == 0)
		return;
	memset(&part, 0, sizeof(part));
	part.tupdesc = RelationGetDescr(a->rel);
	part.vals = tuples;
	part.numvals = n;
	part.alloced = n;
	dv_write_own_buffer(a->dt, &part, n, weight, seq);
}

/*
 * run fn(a, rows, n, snapshot, seq) as the SQL statements run: under
 * dynview's origin when the refresh's writes are its own, as a refresh
 * statement for the guard (what it runs, a CHECK constraint's or an index
 * expression's function, may not write a source or a dynamic table nor
 * start a refresh: dv_guard_begin_direct_write), an error named
 * "incremental refresh of dynamic table ..."; the command counter
 * incremented afterwards
 */
typedef uint64 (*ApplyStep) (DvApply *a, void *rows, uint64 n, Snapshot snapshot, int32 *seq);

static uint64
run_step(DvApply *a, ApplyStep fn, void *rows, uint64 n, Snapshot snapshot, int32 *seq)
{
	MemoryContext caller_context = CurrentMemoryContext;
	uint16		save_origin = 0;
	uint64		done = 0;
	Oid			save_target;
	int			save_level;

	if (a->own)
		save_origin = dv_cdc_own_writes_begin();
	dv_guard_begin_direct_write(&save_target, &save_level);
	PG_TRY();
	{
		done = fn(a, rows, n, snapshot, seq);
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		dv_guard_end_direct_write(save_target, save_level);
		if (a->own)
			dv_cdc_own_writes_end(save_origin);
		MemoryContextSwitchTo(caller_context);
		edata = CopyErrorData();
		FlushErrorState();
		/* (named as dv_exec_at's statements name it: schema-qualified) */
		dv_rethrow_refresh_error(edata, NULL, psprintf("incremental refresh of dynamic table \"%s\"",
													   quote_qualified_identifier(a->dt->schema_name,
																				  a->dt->table_name)));
	}
	PG_END_TRY();
	dv_guard_end_direct_write(save_target, save_level);
	if (a->own)
		dv_cdc_own_writes_end(save_origin);
	CommandCounterIncrement();
	return done;
}

/* a sort run as a step (sort_step): its array, element size and comparator */
typedef struct SortJob
{
	void	   *base;
	size_t		size;
	qsort_arg_comparator cmp;
	void	   *arg;
} SortJob;

static uint64
sort_step(DvApply *a, void *arg, uint64 n, Snapshot snapshot, int32 *seq)
{
	SortJob    *job = arg;

	PushCopiedSnapshot(snapshot);
	UpdateActiveSnapshotCommandId();
	qsort_arg(job->base, n, job->size, job->cmp, job->arg);
	PopActiveSnapshot();
	return n;
}

/*
 * guarded_sort - qsort_arg of n elements of base as a step (run_step): a
 * comparator that calls the key type's B-tree support function (a
 * user's, in any language) runs as the index lookups and entries of the
 * writes run it, under the guard (no source or dynamic table written, no
 * refresh started) and at the data snapshot
 */
static void
guarded_sort(DvApply *a, void *base, uint64 n, size_t size, qsort_arg_comparator cmp, void *arg,
			 Snapshot snapshot)
{
	SortJob		job;

	if (n < 2)
		return;
	job.base = base;
	job.size = size;
	job.cmp = cmp;
	job.arg = arg;
	run_step(a, sort_step, &job, n, snapshot, NULL);
}

/*
 * the snapshot a step writes at, pushed active (the caller pops it): the
 * data snapshot, seeing what this transaction's earlier statements wrote,
 * as a statement's would; a DELETE or UPDATE checks first that a published
 * table has its replica identity, as a statement does (cmd)
 */
static Snapshot
push_step_snapshot(DvApply *a, Snapshot snapshot, CmdType cmd)
{
	CheckCmdReplicaIdentity(a->rel, cmd);
	PushCopiedSnapshot(snapshot);
	UpdateActiveSnapshotCommandId();
	return GetActiveSnapshot();
}

/*
 * delete the table's row at tid as a DELETE does (at snap, the current
 * command id); false if this command deleted it already
 */
static bool
delete_tuple(DvApply *a, ItemPointer tid, CommandId cid, Snapshot snap)
{
	TM_FailureData tmfd;
	TM_Result	result = table_tuple_delete(a->rel, tid, cid, snap, InvalidSnapshot, true, &tmfd, false);

	if (result == TM_SelfModified)
		return false;
	if (result != TM_Ok)
		ereport(ERROR,
				(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
				 errmsg("could not serialize access due to concurrent update")));
	return true;
}

/* the n rows deleted (copies) to the own buffer with weight -1, then freed */
static void
deleted_to_buffer(DvApply *a, HeapTuple *gone, uint64 n, int32 *seq)
{
	write_own_buffer(a, gone, n, -1, seq);
	for (uint64 i = 0; i < n; i++)
		heap_freetuple(gone[i]);
	pfree(gone);
}

/* the lookup of the table's rows by key through its unique key index (delete, update) */
typedef struct KeyLookup
{
	Relation	index;
	IndexScanDesc scan;
	ScanKeyData skey[INDEX_MAX_KEYS];
	TupleTableSlot *slot;		/* the row found */
	FmgrInfo	record_out;		/* text form of a row (same_row) */
} KeyLookup;

/* begin lookups at snap (the active snapshot) */
static void
key_lookup_begin(DvApply *a, KeyLookup *l, Snapshot snap)
{
	Oid			out_func;
	bool		varlena;

	getTypeOutputInfo(RECORDOID, &out_func, &varlena);
	fmgr_info(out_func, &l->record_out);
	l->index = index_open(a->key_index, RowExclusiveLock);
	for (int i = 0; i < a->nkeys; i++)
	{
		Oid			opfamily = l->index->rd_opfamily[i];
		Oid			type = l->index->rd_opcintype[i];
		Oid			eq = get_opfamily_member(opfamily, type, type, BTEqualStrategyNumber);

		if (!OidIsValid(eq))
			elog(ERROR, "dynview: no equality operator in operator family %u", opfamily);
		ScanKeyInit(&l->skey[i], i + 1, BTEqualStrategyNumber, get_opcode(eq), (Datum) 0);
		l->skey[i].sk_collation = l->index->rd_indcollation[i];
	}
	l->scan = index_beginscan(a->rel, l->index, snap, a->nkeys, 0);
	l->slot = table_slot_create(a->rel, NULL);
}

static void
key_lookup_end(KeyLookup *l)
{
	index_endscan(l->scan);
	index_close(l->index, NoLock);
	ExecDropSingleTupleTableSlot(l->slot);
}

/* has the row a NULL in the key ("=" finds nothing: left to the SQL statements)? */
static bool
key_has_null(DvApply *a, DvDeltaRow *row)
{
	for (int i = 0; i < a->nkeys; i++)
		if (row->nulls[a->key_attnums[i] - 1])
			return true;
	return false;
}

/* start looking up the table's rows of row's key (which has no NULL) */
static void
key_lookup_start(DvApply *a, KeyLookup *l, DvDeltaRow *row)
{
	for (int i = 0; i < a->nkeys; i++)
		l->skey[i].sk_argument = row->values[a->key_attnums[i] - 1];
	index_rescan(l->scan, l->skey, a->nkeys, NULL, 0);
}

/* the next row of the key whose text form is row's, in l->slot; false if none */
static bool
key_lookup_next(DvApply *a, KeyLookup *l, DvDeltaRow *row)
{
	while (index_getnext_slot(l->scan, ForwardScanDirection, l->slot))
		if (same_row(a, l->slot, row, &l->record_out))
			return true;
	return false;
}

/* a row of dv_apply_diff: its values in the table's column order (dropped NULL) */
typedef struct DiffRow
{
	Datum	   *values;
	bool	   *nulls;
	ItemPointerData tid;		/* an old row's */
	char	   *text;			/* its text form, where rows are matched by it */
} DiffRow;

typedef struct DiffKeys
{
	int			nkeys;
	AttrNumber *attnums;		/* table column of key column i */
	SortSupportData *ssup;		/* the key index's ordering of column i */
} DiffKeys;

/* the key index's order of two rows (two NULLs alike, as the SQL join on the key takes them) */
static int
key_compare(DiffKeys *keys, Datum *values1, bool *nulls1, Datum *values2, bool *nulls2)
{
	for (int i = 0; i < keys->nkeys; i++)
	{
		int			k = keys->attnums[i] - 1;
		int			c = ApplySortComparator(values1[k], nulls1[k], values2[k], nulls2[k], &keys->ssup[i]);

		if (c != 0)
			return c;
	}
	return 0;
}

/* key_compare of two DiffRows; without keys (NULL), their text forms' byte order */
static int
diff_compare(const void *x, const void *y, void *arg)
{
	const DiffRow *a = x;
	const DiffRow *b = y;
	DiffKeys   *keys = arg;

	if (keys == NULL)
		return strcmp(a->text, b->text);
	return key_compare(keys, a->values, a->nulls, b->values, b->nulls);
}

/* the key index's order of two delta rows (qsort_arg comparator; arg a DiffKeys) */
static int
delta_key_compare(const void *x, const void *y, void *arg)
{
	const DvDeltaRow *a = x;
	const DvDeltaRow *b = y;

	return key_compare(arg, a->values, a->nulls, b->values, b->nulls);
}

/*
 * key_order - keys set to the ordering of a's key index (which must be
 * valid): the sort support of each of its columns, in the current memory
 * context
 */
static void
key_order(DvApply *a, DiffKeys *keys)
{
	Relation	index = index_open(a->key_index, AccessShareLock);

	keys->nkeys = a->nkeys;
	keys->attnums = a->key_attnums;
	keys->ssup = palloc0(sizeof(SortSupportData) * a->nkeys);
	for (int k = 0; k < a->nkeys; k++)
	{
		keys->ssup[k].ssup_cxt = CurrentMemoryContext;
		keys->ssup[k].ssup_collation = index->rd_indcollation[k];
		keys->ssup[k].ssup_nulls_first = false;
		keys->ssup[k].ssup_attno = k + 1;	/* (the index's column, for the preparation) */
		keys->ssup[k].abbreviate = false;
		PrepareSortSupportFromIndexRel(index, BTLessStrategyNumber, &keys->ssup[k]);
	}
	index_close(index, AccessShareLock);
}

/*
 * sorted_rows - the rows of rows[0..n) whose weight has the sign of sign
 * (copies of their DvDeltaRow: values shared), in the key index's order
 * (callers only where a->sort_writes); their number in *m.
 *
 * The steps write in that order.  The consolidation leaves the rows in the
 * order of their hashes, and each index entry or lookup took a descent
 * from the root through pages the previous one had not read; in key order
 * the descents go through the pages the previous one read, and new keys
 * above all others (a serial, a timestamp, a name with a rising number)
 * take B-tree's fast path to its rightmost leaf, as a user's INSERT of
 * rising keys does.  (bench/apply_floor.sh; with 5,000 rows of a bigint
 * key at 5M rows the refresh's CPU went down by about 16% for inserts and
 * 4-5% for deletes and updates.)  Only where every key column is passed by
 * value (integers, timestamps, dates: a cheap comparison, and the keys
 * that rise): the dashboard's text keys, compared with strcoll in a libc
 * locale other than C, took as long to sort (0.4-0.5 ms for 1,200 rows)
 * as the fast path saved, and more where their new keys do not rise.
 */
static DvDeltaRow *
sorted_rows(DvApply *a, DvDeltaRow *rows, uint64 n, int sign, uint64 *m, Snapshot snapshot)
{
	DvDeltaRow *sorted = palloc(sizeof(DvDeltaRow) * Max(n, 1));

	*m = 0;
	for (uint64 r = 0; r < n; r++)
		if (sign > 0 ? rows[r].weight > 0 : rows[r].weight < 0)
			sorted[(*m)++] = rows[r];
	if (*m > 1)
	{
		DiffKeys	keys;

		key_order(a, &keys);
		guarded_sort(a, sorted, *m, sizeof(DvDeltaRow), delta_key_compare, &keys, snapshot);
	}
	return sorted;
}

static uint64
delete_step(DvApply *a, void *arg, uint64 n, Snapshot snapshot, int32 *seq)
{
	DvDeltaRow *rows = arg;
	KeyLookup	l;
	CommandId	cid = GetCurrentCommandId(true);
	HeapTuple  *gone = palloc(sizeof(HeapTuple) * Max(n, 1));
	uint64		ngone = 0;
	Snapshot	snap;

	snap = push_step_snapshot(a, snapshot, CMD_DELETE);
	key_lookup_begin(a, &l, snap);
	for (uint64 r = 0; r < n; r++)
	{
		if (rows[r].weight >= 0 || key_has_null(a, &rows[r]))
			continue;
		key_lookup_start(a, &l, &rows[r]);
		while (key_lookup_next(a, &l, &rows[r]))
		{
			/* (deleted by this step already: another delta row of the same text form, as a DELETE) */
			if (!delete_tuple(a, &l.slot->tts_tid, cid, snap))
				continue;
			gone[ngone++] = ExecCopySlotHeapTuple(l.slot);
			break;
		}
		CHECK_FOR_INTERRUPTS();
	}
	key_lookup_end(&l);
	PopActiveSnapshot();
	deleted_to_buffer(a, gone, ngone, seq);
	return ngone;
}

/*
 * dv_apply_delete - delete, for each of the n rows with negative weight that
 * has no NULL in its key, the table's row of that key if its text form is
 * the row's (one index lookup each: at most one such row, the index is
 * unique), in the key index's order where sorted_rows sorts, writing them
 * to the table's change buffer with weight -1.  Returns the rows deleted;
 * rows not found are the caller's (the SQL statement for the rest, or a
 * full refresh).  Only if dv_apply_can_delete.
 */
uint64
dv_apply_delete(DvApply *a, DvDeltaRow *rows, uint64 n, Snapshot snapshot, int32 *seq)
{
	uint64		m;
	DvDeltaRow *sorted;
	uint64		deleted;

	Assert(OidIsValid(a->key_index));
	/* (unsorted: the step skips the rows of the other sign itself) */
	if (!a->sort_writes)
		return run_step(a, delete_step, rows, n, snapshot, seq);
	sorted = sorted_rows(a, rows, n, -1, &m, snapshot);
	deleted = run_step(a, delete_step, sorted, m, snapshot, seq);
	pfree(sorted);
	return deleted;
}

/*
 * replace the table's row at tid by the row in slot as an UPDATE does (at
 * snap, the current command id; NOT NULL and CHECK constraints checked
 * first, the row's tableoid set): the new version gets index entries only
 * where the update is not HOT (a key column's image changed, or the page
 * had no room), with the executor's hint that the key did not change.
 * False if this command changed the row already.
 */
static bool
update_tuple(DvApply *a, ItemPointer tid, TupleTableSlot *slot, CommandId cid, Snapshot snap)
{
	TM_FailureData tmfd;
	LockTupleMode lockmode;
	bool		update_indexes;
	TM_Result	result;

	slot->tts_tableOid = RelationGetRelid(a->rel);
	if (RelationGetDescr(a->rel)->constr != NULL)
		ExecConstraints(a->rri, slot, a->estate);
	result = table_tuple_update(a->rel, tid, slot, cid, snap, InvalidSnapshot, true, &tmfd,
								&lockmode, &update_indexes);
	if (result == TM_SelfModified)
		return false;
	if (result != TM_Ok)
		ereport(ERROR,
				(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
				 errmsg("could not serialize access due to concurrent update")));
	if (update_indexes)
	{
		List	   *recheck;

		ResetExprContext(GetPerTupleExprContext(a->estate));
		recheck = ExecInsertIndexTuples(a->rri, slot, a->estate, true, false, NULL, NIL);
		/* (a deferred unique check needs its trigger: such a table is not applied here) */
		if (recheck != NIL)
			elog(ERROR, "dynview: direct apply met a deferred constraint");
	}
	return true;
}

/* store values/nulls (the table's columns, dropped ones NULL) in slot as a virtual row */
static void
store_row(TupleTableSlot *slot, TupleDesc desc, Datum *values, bool *nulls)
{
	ExecClearTuple(slot);
	for (int k = 0; k < desc->natts; k++)
	{
		slot->tts_isnull[k] = TupleDescAttr(desc, k)->attisdropped || nulls[k];
		slot->tts_values[k] = slot->tts_isnull[k] ? (Datum) 0 : values[k];
	}
	ExecStoreVirtualTuple(slot);
}

/* are the two rows' keys (no NULL) identical images? */
static bool
same_key_image(DvApply *a, TupleDesc desc, DvDeltaRow *x, DvDeltaRow *y)
{
	for (int i = 0; i < a->nkeys; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, a->key_attnums[i] - 1);
		int			k = a->key_attnums[i] - 1;

		if (!datum_image_eq(x->values[k], y->values[k], att->attbyval, att->attlen))
			return false;
	}
	return true;
}

/* the hash of the images of row's key (no NULL) */
static uint32
key_image_hash(DvApply *a, TupleDesc desc, DvDeltaRow *row)
{
	uint32		h = 0;

	for (int i = 0; i < a->nkeys; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, a->key_attnums[i] - 1);

		h = hash_combine(h, datum_image_hash(row->values[a->key_attnums[i] - 1],
											 att->attbyval, att->attlen));
	}
	return h;
}

/*
 * pair_rows - the delta's updates: pairs of a row of weight -1 and one of
 * weight +1 whose keys (no NULL) are identical images, the only row of its
 * sign with that key each (pairs[2k] the old row, pairs[2k + 1] the new);
 * their count in *npairs.  A key whose image changes (1.0 to 1.00) is no
 * pair: its rows are deleted and inserted.  The rows of weight -1 are
 * sorted by their keys' hashes, and each row of weight +1 looks its key up
 * among them (a change has fewer rows that go than come, mostly).
 */
static uint32 *
pair_rows(DvApply *a, DvDeltaRow *rows, uint64 n, uint64 *npairs)
{
	TupleDesc	desc = RelationGetDescr(a->rel);
	DvRowHash  *old = palloc(sizeof(DvRowHash) * Max(n, 1));
	uint32	   *matches;
	uint32	   *match;
	uint32	   *pairs;
	uint64		nold = 0;

	*npairs = 0;
	for (uint64 r = 0; r < n; r++)
		if (rows[r].weight == -1 && !key_has_null(a, &rows[r]))
		{
			old[nold].hash = key_image_hash(a, desc, &rows[r]);
			old[nold].row = r;
			nold++;
		}
	if (nold == 0)
	{
		pfree(old);
		return palloc(sizeof(uint32) * 2);
	}
	qsort(old, nold, sizeof(DvRowHash), dv_row_hash_compare);
	matches = palloc0(sizeof(uint32) * nold);
	match = palloc(sizeof(uint32) * nold);
	for (uint64 r = 0; r < n; r++)
	{
		uint32		h;
		uint64		lo = 0;
		uint64		hi = nold;

		if (rows[r].weight != 1 || key_has_null(a, &rows[r]))
			continue;
		h = key_image_hash(a, desc, &rows[r]);
		/* (the first of the rows that go with this hash) */
		while (lo < hi)
		{
			uint64		mid = lo + (hi - lo) / 2;

			if (old[mid].hash < h)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (uint64 x = lo; x < nold && old[x].hash == h; x++)
			if (same_key_image(a, desc, &rows[old[x].row], &rows[r]))
			{
				matches[x]++;
				match[x] = (uint32) r;
			}
	}
	pairs = palloc(sizeof(uint32) * 2 * nold);
	for (uint64 x = 0; x < nold; x++)
	{
		int			olds = 0;

		if (matches[x] != 1)
			continue;
		/* (the only row that goes with this key: the others of its hash differ) */
		for (uint64 y = x; y > 0 && old[y - 1].hash == old[x].hash; y--)
			olds += same_key_image(a, desc, &rows[old[x].row], &rows[old[y - 1].row]);
		for (uint64 y = x + 1; y < nold && old[y].hash == old[x].hash; y++)
			olds += same_key_image(a, desc, &rows[old[x].row], &rows[old[y].row]);
		if (olds > 0)
			continue;
		pairs[2 * *npairs] = (uint32) old[x].row;
		pairs[2 * *npairs + 1] = match[x];
		(*npairs)++;
	}
	pfree(old);
	pfree(matches);
	pfree(match);
	return pairs;
}

/* the key index's order of two pairs of pair_rows, by their old rows (qsort_arg comparator) */
typedef struct PairOrder
{
	DvDeltaRow *rows;
	DiffKeys	keys;
} PairOrder;

static int
pair_key_compare(const void *x, const void *y, void *arg)
{
	PairOrder  *o = arg;
	DvDeltaRow *a = &o->rows[((const uint32 *) x)[0]];
	DvDeltaRow *b = &o->rows[((const uint32 *) y)[0]];

	return key_compare(&o->keys, a->values, a->nulls, b->values, b->nulls);
}

/* the updates of update_step: pairs of rows (pair_rows) */
typedef struct UpdatePairs
{
	DvDeltaRow *rows;
	uint32	   *pairs;
} UpdatePairs;

/* own buffer: the rows replaced with -1, their new versions with +1, then freed */
static void
updated_to_buffer(DvApply *a, HeapTuple *gone, HeapTuple *came, uint64 n, int32 *seq)
{
	write_own_buffer(a, came, n, +1, seq);
	for (uint64 i = 0; i < n; i++)
		heap_freetuple(came[i]);
	pfree(came);
	deleted_to_buffer(a, gone, n, seq);
}

static uint64
update_step(DvApply *a, void *arg, uint64 n, Snapshot snapshot, int32 *seq)
{
	UpdatePairs *u = arg;
	TupleDesc	desc = RelationGetDescr(a->rel);
	KeyLookup	l;
	TupleTableSlot *slot = table_slot_create(a->rel, NULL);
	CommandId	cid = GetCurrentCommandId(true);
	HeapTuple  *gone = palloc(sizeof(HeapTuple) * Max(n, 1));
	HeapTuple  *came = palloc(sizeof(HeapTuple) * Max(n, 1));
	uint64		done = 0;
	Snapshot	snap;

	snap = push_step_snapshot(a, snapshot, CMD_UPDATE);
	key_lookup_begin(a, &l, snap);
	for (uint64 p = 0; p < n; p++)
	{
		DvDeltaRow *old = &u->rows[u->pairs[2 * p]];
		DvDeltaRow *new = &u->rows[u->pairs[2 * p + 1]];

		key_lookup_start(a, &l, old);
		while (key_lookup_next(a, &l, old))
		{
			HeapTuple	was = ExecCopySlotHeapTuple(l.slot);

			store_row(slot, desc, new->values, new->nulls);
			if (!update_tuple(a, &l.slot->tts_tid, slot, cid, snap))
			{
				heap_freetuple(was);
				continue;
			}
			gone[done] = was;
			came[done] = ExecCopySlotHeapTuple(slot);
			done++;
			/* (the pair is done: the delete and insert steps skip it) */
			old->weight = 0;
			new->weight = 0;
			break;
		}
		CHECK_FOR_INTERRUPTS();
	}
	key_lookup_end(&l);
	ExecDropSingleTupleTableSlot(slot);
	PopActiveSnapshot();
	updated_to_buffer(a, gone, came, done, seq);
	return done;
}

/*
 * dv_apply_update - update in place, for each pair of a row of weight -1
 * and one of weight +1 with identical key images (no NULL), the table's row
 * of that key whose text form is the first row's to the second (one index
 * lookup; HOT where no key column changes and the page has room), setting
 * both rows' weights to 0 so that dv_apply_delete and dv_apply_insert skip
 * them; the own buffer gets the old row with -1 and the new with +1.
 * Returns the rows updated.  A pair whose row is not found is left as it
 * is, to the delete (which does not find it either).  Nothing where a
 * statement's delete and insert could be told apart (update_in_place_ok).
 * Only if dv_apply_can_delete.
 */
uint64
dv_apply_update(DvApply *a, DvDeltaRow *rows, uint64 n, Snapshot snapshot, int32 *seq)
{
	UpdatePairs u;
	uint64		npairs;
	uint64		done;

	Assert(OidIsValid(a->key_index));
	if (!a->can_update || n > PG_UINT32_MAX)
		return 0;
	u.rows = rows;
	u.pairs = pair_rows(a, rows, n, &npairs);
	/* (in the key index's order, as sorted_rows says) */
	if (npairs > 1 && a->sort_writes)
	{
		PairOrder	o;

		o.rows = rows;
		key_order(a, &o.keys);
		guarded_sort(a, u.pairs, npairs, sizeof(uint32) * 2, pair_key_compare, &o, snapshot);
	}
	done = npairs > 0 ? run_step(a, update_step, &u, npairs, snapshot, seq) : 0;
	pfree(u.pairs);
	return done;
}

static uint64
insert_step(DvApply *a, void *arg, uint64 n, Snapshot snapshot, int32 *seq)
{
	DvDeltaRow *rows = arg;
	TupleDesc	desc = RelationGetDescr(a->rel);

	/*
	 * (the slots share a copy of the table's descriptor, not reference
	 * counted: a slot of the relcache's own descriptor pins it in the
	 * resource owner, whose list of a thousand pins is searched at each
	 * release; the profile showed ResourceOwnerRememberTupleDesc)
	 */
	TupleDesc	slot_desc = CreateTupleDescCopy(desc);
	TupleTableSlot *slots[APPLY_BATCH];
	HeapTuple	written[APPLY_BATCH];
	int			nslots = 0;
	uint64		inserted = 0;
	CommandId	cid = GetCurrentCommandId(true);
	BulkInsertState bistate = GetBulkInsertState();
	MemoryContext batch_context = AllocSetContextCreate(CurrentMemoryContext, "dynview apply batch",
														ALLOCSET_DEFAULT_SIZES);
	ExprContext *econtext = GetPerTupleExprContext(a->estate);
	bool		check = desc->constr != NULL;
	uint64		r = 0;
	int64		copy = 0;

	/*
	 * (the data snapshot, seeing what this transaction's earlier statements
	 * wrote, as the INSERT's: a CHECK constraint's or index expression's
	 * function that reads a table reads it there, not at the caller's
	 * snapshot, which still holds the rows deleted before)
	 */
	PushCopiedSnapshot(snapshot);
	UpdateActiveSnapshotCommandId();
	for (;;)
	{
		int			used = 0;
		MemoryContext old;

		/* the next batch: up to APPLY_BATCH copies of rows with positive weight */
		old = MemoryContextSwitchTo(batch_context);
		while (used < APPLY_BATCH && r < n)
		{
			TupleTableSlot *slot;

			if (copy >= rows[r].weight)
			{
				r++;
				copy = 0;
				continue;
			}
			if (used == nslots)
			{
				MemoryContextSwitchTo(old);
				slots[nslots++] = MakeSingleTupleTableSlot(slot_desc, table_slot_callbacks(a->rel));
				MemoryContextSwitchTo(batch_context);
			}
			slot = slots[used++];
			store_row(slot, desc, rows[r].values, rows[r].nulls);
			/* (a CHECK constraint may read tableoid: ExecInsert sets it first too) */
			slot->tts_tableOid = RelationGetRelid(a->rel);
			if (check)
				ExecConstraints(a->rri, slot, a->estate);
			copy++;
		}
		if (used == 0)
		{
			MemoryContextSwitchTo(old);
			break;
		}
		table_multi_insert(a->rel, slots, used, cid, 0, bistate);
		for (int i = 0; i < used; i++)
		{
			List	   *recheck;

			ResetExprContext(econtext);
			recheck = ExecInsertIndexTuples(a->rri, slots[i], a->estate, false, false, NULL, NIL);
			/* (a deferred unique check needs its trigger: such a table is not applied here) */
			if (recheck != NIL)
				elog(ERROR, "dynview: direct apply met a deferred constraint");
			written[i] = ExecFetchSlotHeapTuple(slots[i], false, NULL);
		}
		write_own_buffer(a, written, used, +1, seq);
		inserted += used;
		MemoryContextSwitchTo(old);
		for (int i = 0; i < used; i++)
			ExecClearTuple(slots[i]);
		MemoryContextReset(batch_context);
		CHECK_FOR_INTERRUPTS();
	}
	PopActiveSnapshot();
	FreeBulkInsertState(bistate);
	for (int i = 0; i < nslots; i++)
		ExecDropSingleTupleTableSlot(slots[i]);
	FreeTupleDesc(slot_desc);
	MemoryContextDelete(batch_context);
	return inserted;
}

/*
 * dv_apply_insert - insert weight copies of each of the n rows with
 * positive weight (values of their columns in the table's order, dropped
 * columns NULL), in the key index's order where sorted_rows sorts, in
 * batches of APPLY_BATCH rows (table_multi_insert), each row's index
 * entries after its batch (a unique violation raises 23505 as an INSERT
 * does); NOT NULL and CHECK constraints checked first.  Writes them to the
 * table's change buffer with weight +1.  Returns the rows inserted.
 */
uint64
dv_apply_insert(DvApply *a, DvDeltaRow *rows, uint64 n, Snapshot snapshot, int32 *seq)
{
	DvDeltaRow *sorted;
	uint64		m;
	uint64		inserted;

	/* (unsorted: the step skips the rows of the other sign itself) */
	if (!a->sort_writes)
		return run_step(a, insert_step, rows, n, snapshot, seq);
	sorted = sorted_rows(a, rows, n, +1, &m, snapshot);
	inserted = run_step(a, insert_step, sorted, m, snapshot, seq);
	pfree(sorted);
	return inserted;
}

/*
 * the n SPI rows of tuptable as DiffRows of the table's columns: column
 * first + j of a row is the table's j-th column not dropped; with tid, its
 * first column is the row's ctid; with record_out, each row's text form as
 * a value of the table's row type (ROW(t.*)::text), their bytes taken from
 * *budget: NULL when they would exceed it (a text form holds its values
 * detoasted, which the SPI rows of the table may only point to)
 */
static DiffRow *
diff_rows(DvApply *a, SPITupleTable *tuptable, uint64 n, bool tid, FmgrInfo *record_out,
		  Size *budget)
{
	TupleDesc	desc = RelationGetDescr(a->rel);
	int			first = tid ? 1 : 0;
	int			ncols = tuptable->tupdesc->natts;
	DiffRow    *rows = palloc(sizeof(DiffRow) * Max(n, 1));
	Datum	   *svalues = palloc(sizeof(Datum) * ncols);
	bool	   *snulls = palloc(sizeof(bool) * ncols);

	for (uint64 r = 0; r < n; r++)
	{
		int			c = first;

		heap_deform_tuple(tuptable->vals[r], tuptable->tupdesc, svalues, snulls);
		rows[r].values = palloc(sizeof(Datum) * desc->natts);
		rows[r].nulls = palloc(sizeof(bool) * desc->natts);
		for (int k = 0; k < desc->natts; k++)
		{
			if (TupleDescAttr(desc, k)->attisdropped)
			{
				rows[r].values[k] = (Datum) 0;
				rows[r].nulls[k] = true;
				continue;
			}
			if (c >= ncols)
				elog(ERROR, "dynview: a row of %d columns for a table of more", ncols);
			rows[r].values[k] = svalues[c];
			rows[r].nulls[k] = snulls[c];
			c++;
		}
		if (c != ncols)
			elog(ERROR, "dynview: a row of %d columns for a table of %d", ncols, c);
		if (tid)
		{
			if (snulls[0])
				elog(ERROR, "dynview: a row without its ctid");
			ItemPointerCopy((ItemPointer) DatumGetPointer(svalues[0]), &rows[r].tid);
		}
		else
			ItemPointerSetInvalid(&rows[r].tid);
		rows[r].text = NULL;
		if (record_out != NULL)
		{
			Size		len;

			rows[r].text = OutputFunctionCall(record_out, dv_row_datum(desc, rows[r].values, rows[r].nulls));
			len = strlen(rows[r].text) + 1;
			if (len > *budget)
				return NULL;
			*budget -= len;
		}
	}
	pfree(svalues);
	pfree(snulls);
	return rows;
}

/* delete the n rows of the table at the TIDs (ItemPointerData[]), to the own buffer with -1 */
static uint64
delete_tids_step(DvApply *a, void *arg, uint64 n, Snapshot snapshot, int32 *seq)
{
	ItemPointerData *tids = arg;
	TupleTableSlot *slot = table_slot_create(a->rel, NULL);
	CommandId	cid = GetCurrentCommandId(true);
	HeapTuple  *gone = palloc(sizeof(HeapTuple) * Max(n, 1));
	Snapshot	snap;

	snap = push_step_snapshot(a, snapshot, CMD_DELETE);
	for (uint64 r = 0; r < n; r++)
	{
		/* (the row as stored, for the own buffer: what a DELETE ... RETURNING gives) */
		if (!table_tuple_fetch_row_version(a->rel, &tids[r], snap, slot) ||
			!delete_tuple(a, &tids[r], cid, snap))
			elog(ERROR, "dynview: a row of dynamic table \"%s\" read by this refresh is gone",
				 a->dt->table_name);
		gone[r] = ExecCopySlotHeapTuple(slot);
		CHECK_FOR_INTERRUPTS();
	}
	ExecDropSingleTupleTableSlot(slot);
	PopActiveSnapshot();
	deleted_to_buffer(a, gone, n, seq);
	return n;
}

/* an update of dv_apply_diff: the table's row at tid becomes the row values/nulls */
typedef struct TidUpdate
{
	ItemPointerData tid;
	Datum	   *values;
	bool	   *nulls;
} TidUpdate;

/* update the n rows of the table at the TIDs (TidUpdate[]), to the own buffer */
static uint64
update_tids_step(DvApply *a, void *arg, uint64 n, Snapshot snapshot, int32 *seq)
{
	TidUpdate  *updates = arg;
	TupleDesc	desc = RelationGetDescr(a->rel);
	TupleTableSlot *was = table_slot_create(a->rel, NULL);
	TupleTableSlot *slot = table_slot_create(a->rel, NULL);
	CommandId	cid = GetCurrentCommandId(true);
	HeapTuple  *gone = palloc(sizeof(HeapTuple) * Max(n, 1));
	HeapTuple  *came = palloc(sizeof(HeapTuple) * Max(n, 1));
	Snapshot	snap;

	snap = push_step_snapshot(a, snapshot, CMD_UPDATE);
	for (uint64 r = 0; r < n; r++)
	{
		store_row(slot, desc, updates[r].values, updates[r].nulls);
		/* (the row as stored, for the own buffer) */
		if (!table_tuple_fetch_row_version(a->rel, &updates[r].tid, snap, was) ||
			!update_tuple(a, &updates[r].tid, slot, cid, snap))
			elog(ERROR, "dynview: a row of dynamic table \"%s\" read by this refresh is gone",
				 a->dt->table_name);
		gone[r] = ExecCopySlotHeapTuple(was);
		came[r] = ExecCopySlotHeapTuple(slot);
		CHECK_FOR_INTERRUPTS();
	}
	ExecDropSingleTupleTableSlot(was);
	ExecDropSingleTupleTableSlot(slot);
	PopActiveSnapshot();
	updated_to_buffer(a, gone, came, n, seq);
	return n;
}

/* the matching of dv_apply_diff (match_step): its rows in, the writes out */
typedef struct DiffMatch
{
	bool		by_key;
	DiffKeys   *order;
	DiffRow    *orows;
	DiffRow    *nrows;
	uint64		nold;
	uint64		nnew;
	ItemPointerData *gone;		/* old rows to delete */
	DvDeltaRow *come;			/* new rows to insert */
	TidUpdate  *updates;		/* old rows to update in place */
	uint64		ngone;
	uint64		ncome;
	uint64		nupdates;
} DiffMatch;

/*
 * the old and new rows sorted and merged: an old row that no new one
 * matches goes, a new row that no old one matches comes, a key whose row
 * changes is updated (where a->can_update) or goes and comes; 0 if two old
 * rows or two new rows have one key (the caller's statement applies them),
 * else 1
 */
static uint64
match_step(DvApply *a, void *arg, uint64 n, Snapshot snapshot, int32 *seq)
{
	DiffMatch  *m = arg;
	TupleDesc	desc = RelationGetDescr(a->rel);
	bool		by_key = m->by_key;
	DiffKeys   *order = m->order;
	DiffRow    *orows = m->orows;
	DiffRow    *nrows = m->nrows;
	uint64		nold = m->nold;
	uint64		nnew = m->nnew;
	uint64		i = 0;
	uint64		j = 0;

	PushCopiedSnapshot(snapshot);
	UpdateActiveSnapshotCommandId();
	qsort_arg(orows, nold, sizeof(DiffRow), diff_compare, order);
	qsort_arg(nrows, nnew, sizeof(DiffRow), diff_compare, order);
	for (uint64 r = 1; by_key && r < nold; r++)
		if (diff_compare(&orows[r - 1], &orows[r], order) == 0)
		{
			PopActiveSnapshot();
			return 0;
		}
	for (uint64 r = 1; by_key && r < nnew; r++)
		if (diff_compare(&nrows[r - 1], &nrows[r], order) == 0)
		{
			PopActiveSnapshot();
			return 0;
		}

	m->gone = palloc(sizeof(ItemPointerData) * Max(nold, 1));
	m->come = palloc(sizeof(DvDeltaRow) * Max(nnew, 1));
	m->updates = palloc(sizeof(TidUpdate) * Max(Min(nold, nnew), 1));
	m->ngone = m->ncome = m->nupdates = 0;
	while (i < nold || j < nnew)
	{
		int			c = i >= nold ? 1 : j >= nnew ? -1 : diff_compare(&orows[i], &nrows[j], order);
		bool		same = c == 0 && (!by_key || same_image(desc, orows[i].values, orows[i].nulls,
															  nrows[j].values, nrows[j].nulls));

		/* (a key whose row changes: updated in place, HOT where the page has room) */
		if (c == 0 && !same && by_key && a->can_update)
		{
			m->updates[m->nupdates].tid = orows[i].tid;
			m->updates[m->nupdates].values = nrows[j].values;
			m->updates[m->nupdates].nulls = nrows[j].nulls;
			m->nupdates++;
		}
		else if (c <= 0 && !same)
			m->gone[m->ngone++] = orows[i].tid;
		if (c >= 0 && !same && !(c == 0 && by_key && a->can_update))
		{
			m->come[m->ncome].values = nrows[j].values;
			m->come[m->ncome].nulls = nrows[j].nulls;
			m->come[m->ncome].weight = 1;
			m->ncome++;
		}
		if (c <= 0)
			i++;
		if (c >= 0)
			j++;
	}
	PopActiveSnapshot();
	return 1;
}

/*
 * dv_apply_diff - replace rows of the table by others: old holds rows of
 * the table (each its ctid, then the table's columns not dropped, as
 * "SELECT t.ctid, t.* FROM table t" gives them), new the rows that take
 * their place (the table's columns not dropped, of its types).  As
 * full_refresh_apply's statement matches them:
 *	- by_key: by the key of the unique key index (its ordering; two NULLs
 *	  alike): a pair whose images are identical (1.0 is not 1.00) stays, a
 *	  pair that differs has its old row updated in place to the new one
 *	  (HOT where no key column's image changes and the page has room;
 *	  deleted and inserted where update_in_place_ok says no), counted as a
 *	  row deleted and one inserted;
 *	- else as multisets of their text forms (the form verify() compares):
 *	  copies of one row are matched copy by copy, and a matched pair stays.
 * Old rows left unmatched are deleted, new ones inserted.  The deletes
 * come first, then the updates, then the inserts (a row deleted and
 * inserted under one key does not meet itself in a unique index); the own
 * buffer gets each row that goes with weight -1, each that comes with +1.
 *
 * Returns false, having changed nothing, where the statement it replaces
 * must decide: by_key without a key index (dv_apply_can_delete), two rows
 * of old or of new with one key (the statement's count, or the index, then
 * raises the error), or text forms that would take more than work_mem (the
 * statement's join spills to disk).  Sets *deleted and *inserted.  Only between
 * dv_apply_begin and dv_apply_end; old's and new's tuples must live until
 * it returns.
 */
bool
dv_apply_diff(DvApply *a, bool by_key, SPITupleTable *old, uint64 nold,
			  SPITupleTable *new, uint64 nnew, Snapshot snapshot, int32 *seq,
			  uint64 *deleted, uint64 *inserted)
{
	DiffKeys	keys;
	DiffKeys   *order = NULL;
	FmgrInfo	record_out;
	DiffRow    *orows;
	DiffRow    *nrows;
	DiffMatch	m;
	ItemPointerData *gone;
	DvDeltaRow *come;
	TidUpdate  *updates;
	uint64		nupdates;
	uint64		ngone;
	uint64		ncome;
	Size		budget = (Size) work_mem * 1024;

	*deleted = *inserted = 0;
	if (by_key)
	{
		if (!OidIsValid(a->key_index))
			return false;
		key_order(a, &keys);
		order = &keys;
	}
	else
	{
		Oid			out_func;
		bool		varlena;

		getTypeOutputInfo(RECORDOID, &out_func, &varlena);
		fmgr_info(out_func, &record_out);
	}
	orows = diff_rows(a, old, nold, true, by_key ? NULL : &record_out, &budget);
	nrows = orows ? diff_rows(a, new, nnew, false, by_key ? NULL : &record_out, &budget) : NULL;
	if (orows == NULL || nrows == NULL)
	{
		elog(DEBUG1, "dynview: dynamic table \"%s\": recomputed rows applied by a statement: their text forms exceed work_mem",
			 a->dt->table_name);
		return false;
	}
	/*
	 * (matched in a step, as guarded_sort: the key's comparisons may call a
	 * user's function)
	 */
	m.by_key = by_key;
	m.order = order;
	m.orows = orows;
	m.nrows = nrows;
	m.nold = nold;
	m.nnew = nnew;
	if (run_step(a, match_step, &m, 0, snapshot, NULL) == 0)
		return false;
	gone = m.gone;
	come = m.come;
	updates = m.updates;
	ngone = m.ngone;
	ncome = m.ncome;
	nupdates = m.nupdates;
	if (ngone > 0)
		*deleted = run_step(a, delete_tids_step, gone, ngone, snapshot, seq);
	if (nupdates > 0)
	{
		/* (an update counts as a row deleted and one inserted, as the statements count it) */
		uint64		updated = run_step(a, update_tids_step, updates, nupdates, snapshot, seq);

		*deleted += updated;
		*inserted += updated;
	}
	if (ncome > 0)
		*inserted += run_step(a, insert_step, come, ncome, snapshot, seq);
	return true;
}
