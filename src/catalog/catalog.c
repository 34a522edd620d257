/*-------------------------------------------------------------------------
 *
 * catalog.c
 *	  Access to dynview's catalogs: dynamic_table_catalog, source_catalog
 *	  and refresh_history.
 *
 * Every function here needs a transaction and an open SPI connection
 * (SPI_connect by the SQL-callable function that calls in).  Results are
 * palloc'd in the current memory context, which is the SPI procedure
 * context in that case.  Reads of one dynamic table's catalog rows by its
 * OID (dv_catalog_load, dv_is_dynamic_table, the source signatures) go
 * through the primary key indexes directly, with the snapshot a statement
 * would take (see CatalogRead): they are on every refresh's path.
 *
 * Catalog rows are written as the bootstrap superuser (the catalogs are not
 * writable by PUBLIC), with all names schema-qualified; users only read them
 * through the views.  Locks: writes take the usual row locks; callers that
 * change one dynamic table hold its refresh lock (dv_lock_refresh: refresh,
 * alter, replace) or an AccessExclusiveLock on it (drop), which is what
 * serialises concurrent changes of one table's row.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/transam.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/namespace.h"
#include "catalog/pg_attribute.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_class.h"
#include "catalog/pg_index.h"
#include "catalog/pg_language.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "commands/sequence.h"
#include "commands/trigger.h"
#include "catalog/pg_collation.h"
#include "common/hashfn.h"
#include "common/md5.h"
#include "executor/executor.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "storage/proc.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/fmgrprotos.h"
#include "utils/guc.h"
#include "utils/json.h"
#include "utils/lsyscache.h"
#include "utils/typcache.h"
#include "utils/memutils.h"
#include "utils/jsonb.h"
#include "utils/pg_lsn.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/regproc.h"
#include "utils/varlena.h"
#include "utils/xid8.h"

#include "dynview.h"

static uint64 widen_xid(TransactionId xid, FullTransactionId next);
static void catalog_serialization_failure(void);
static Datum snapshot_datum(Snapshot snapshot);
static void update_catalog_row(Oid relid, int n, const char *const *columns, Datum *values, bool *nulls);
static void set_row_column(TupleDesc desc, Datum *values, bool *nulls, bool *replace, const char *name,
						   Datum value, bool isnull);
static Datum take_running_id(Oid relid, char *null, Datum *start, char *start_null);
static char *source_shape(Oid relid);
static char *source_signature(Oid relid);
static List *load_sources(Oid relid, Snapshot snapshot);
static void history_outcome(Oid relid, DvRefreshTrigger trigger, const char *state, bool count_failure,
							const char *reason_code, const char *reason, const char *message);

static const char *trigger_names[] = {
	[DV_TRIGGER_SYSTEM_SCHEDULED] = "SYSTEM_SCHEDULED",
	[DV_TRIGGER_MANUAL] = "MANUAL",
	[DV_TRIGGER_CREATION] = "CREATION",
	[DV_TRIGGER_UPSTREAM] = "UPSTREAM",
};

/*
 * dv_extension_present - is dynview installed in the current database?
 *
 * Cheap enough for hooks: two syscache lookups.  Needs a transaction.
 */
bool
dv_extension_present(void)
{
	return OidIsValid(dv_catalog_relid());
}

/*
 * dv_catalog_relid - OID of dynview.dynamic_table_catalog, or InvalidOid
 * when the extension is absent (or being created).
 */
Oid
dv_catalog_relid(void)
{
	Oid			nsp = get_namespace_oid(DV_SCHEMA, true);

	if (!OidIsValid(nsp))
		return InvalidOid;
	return get_relname_relid(DV_CATALOG_TABLE, nsp);
}

/*
 * dv_catalog_exec - run one catalog statement as the bootstrap superuser,
 * with search_path "pg_catalog, pg_temp" (dv_safe_search_path_push).
 *
 * expected >= 0 checks the number of rows processed (can't-happen if not).
 * The results stay in SPI_tuptable for the caller.
 */
/*
 * Parameterised catalog statements (the same text every refresh: window
 * reads, catalog lookups and updates) keep their SPI plan for the life of
 * the backend; PostgreSQL's plan cache revalidates a kept plan when what it
 * reads changes.  Statements without parameters (DDL, names spelled into
 * the text) are planned each time, but for the few constant ones run by
 * dv_catalog_exec_kept.
 */
typedef struct CachedStatement
{
	char	   *sql;
	int			nargs;
	SPIPlanPtr	plan;
} CachedStatement;

#define DV_STATEMENT_CACHE_SIZE 128
static CachedStatement statement_cache[DV_STATEMENT_CACHE_SIZE];
static int	statement_cache_next = 0;

static SPIPlanPtr
cached_plan(const char *sql, int nargs, Oid *types)
{
	CachedStatement *slot;
	SPIPlanPtr	plan;

	for (int i = 0; i < DV_STATEMENT_CACHE_SIZE; i++)
	{
		if (statement_cache[i].sql && statement_cache[i].nargs == nargs &&
			strcmp(statement_cache[i].sql, sql) == 0)
			return statement_cache[i].plan;
	}
	plan = SPI_prepare(sql, nargs, types);
	if (plan == NULL)
		elog(ERROR, "could not prepare dynview catalog statement (%s): %s",
			 SPI_result_code_string(SPI_result), sql);
	if (SPI_keepplan(plan) != 0)
		elog(ERROR, "could not keep the plan of a dynview catalog statement");
	/* round robin: the oldest entry makes room */
	slot = &statement_cache[statement_cache_next];
	statement_cache_next = (statement_cache_next + 1) % DV_STATEMENT_CACHE_SIZE;
	if (slot->sql)
	{
		SPI_freeplan(slot->plan);
		pfree(slot->sql);
	}
	slot->sql = MemoryContextStrdup(TopMemoryContext, sql);
	slot->nargs = nargs;
	slot->plan = plan;
	return plan;
}

/*
 * dv_safe_search_path_push - make search_path "pg_catalog, pg_temp" until
 * dv_safe_search_path_pop(the returned nest level); an error exit is undone
 * by the (sub)transaction abort.  Every statement dynview runs with rights
 * the caller may not have (as the bootstrap superuser, in a worker, in an
 * event trigger) runs under it, so that no operator or function a role
 * planted in a schema on the caller's search_path can be picked instead of
 * the built-in one (the temporary schema is never searched for operators
 * and functions).
 */
int
dv_safe_search_path_push(void)
{
	int			nestlevel = NewGUCNestLevel();

	(void) set_config_option("search_path", DV_SAFE_SEARCH_PATH,
							 PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
	/* (string constants as dynview deparses them: dv_set_output_styles) */
	(void) set_config_option("standard_conforming_strings", "on",
							 PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
	return nestlevel;
}

void
dv_safe_search_path_pop(int nestlevel)
{
	AtEOXact_GUC(true, nestlevel);
}

/*
 * catalog_serialization_failure - in a REPEATABLE READ or SERIALIZABLE
 * transaction, a catalog row that another transaction (a refresh, dynview's
 * scheduler, suspend()) changed after this transaction's snapshot cannot be
 * updated: say so in dynview's words, not with the internal statement
 * (consistency.md).
 */
static void
catalog_serialization_failure(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
			 errmsg("could not serialize access due to a concurrent change of a dynamic table's catalog row"),
			 errdetail("This transaction's snapshot was taken before another transaction (a refresh, dynview's scheduler, or suspend(), resume() or alter_dynamic_table()) changed dynview's catalog row of a table this refresh writes."),
			 errhint("Retry the transaction, or refresh outside a REPEATABLE READ or SERIALIZABLE transaction.")));
}

static void catalog_exec(const char *sql, int nargs, Oid *types, Datum *values,
						 const char *nulls, int expected, bool keep);

void
dv_catalog_exec(const char *sql, int nargs, Oid *types, Datum *values,
				const char *nulls, int expected)
{
	catalog_exec(sql, nargs, types, values, nulls, expected, nargs > 0);
}

/*
 * dv_catalog_exec_kept - dv_catalog_exec of a statement without parameters
 * whose text never changes (a catalog read the scheduler makes at every
 * wake): its plan is kept as a parameterised statement's is.
 */
void
dv_catalog_exec_kept(const char *sql, int expected)
{
	catalog_exec(sql, 0, NULL, NULL, NULL, expected, true);
}

static void
catalog_exec(const char *sql, int nargs, Oid *types, Datum *values,
			 const char *nulls, int expected, bool keep)
{
	Oid			save_userid;
	int			save_sec;
	int			rc;
	int			nestlevel;
	DvGuardOwnDdl save_ddl;

	GetUserIdAndSecContext(&save_userid, &save_sec);
	SetUserIdAndSecContext(BOOTSTRAP_SUPERUSERID, save_sec | SECURITY_LOCAL_USERID_CHANGE);
	nestlevel = dv_safe_search_path_push();
	/* (DDL on a change buffer or state table is dynview's own: the guard lets it pass) */
	dv_guard_begin_own_ddl(&save_ddl);
	PG_TRY();
	{
		if (keep)
			rc = SPI_execute_plan(cached_plan(sql, nargs, types), values, nulls, false, 0);
		else
			rc = SPI_execute_with_args(sql, nargs, types, values, nulls, false, 0);
	}
	PG_CATCH();
	{
		dv_guard_end_own_ddl(&save_ddl);
		/* (a catalog row changed after this transaction's snapshot) */
		if (geterrcode() == ERRCODE_T_R_SERIALIZATION_FAILURE)
		{
			FlushErrorState();
			SetUserIdAndSecContext(save_userid, save_sec);
			catalog_serialization_failure();
		}
		PG_RE_THROW();
	}
	PG_END_TRY();
	dv_guard_end_own_ddl(&save_ddl);
	dv_safe_search_path_pop(nestlevel);
	SetUserIdAndSecContext(save_userid, save_sec);

	if (rc < 0)
		elog(ERROR, "dynview catalog statement failed (%s): %s", SPI_result_code_string(rc), sql);
	if (expected >= 0 && SPI_processed != (uint64) expected)
		elog(ERROR, "dynview catalog statement affected " UINT64_FORMAT " rows instead of %d: %s",
			 SPI_processed, expected, sql);
}

/*
 * dv_catalog_exec_into - dv_catalog_exec of a query whose rows go to dest
 * instead of SPI_tuptable, so that the caller need not copy them out of it
 * (a window read of thousands of buffer rows would otherwise form each row
 * twice: in SPI's table, then in the caller's tuplestore).  With plan, that
 * plan of sql is run (the caller's, prepared under dv_safe_search_path_push
 * so that its search path is the one it runs with); else with nargs > 0
 * the statement's plan is kept as dv_catalog_exec keeps it; without, it is
 * planned for this one execution (it may read an ephemeral relation of this
 * refresh).  None of values is NULL.  dest's receiveSlot may return false
 * to stop the statement early.  Returns the number of rows sent to dest.
 *
 * With snapshot, the statement reads with it (as a read-only statement);
 * without, as dv_catalog_exec's statements do: the command counter
 * incremented, the transaction snapshot.
 */
uint64
dv_catalog_exec_into(const char *sql, SPIPlanPtr plan, int nargs, Oid *types, Datum *values,
					 Snapshot snapshot, DestReceiver *dest)
{
	Oid			save_userid;
	int			save_sec;
	int			rc;
	int			nestlevel;
	SPIExecuteOptions options;

	memset(&options, 0, sizeof(options));
	options.dest = dest;
	if (nargs > 0)
	{
		options.params = makeParamList(nargs);
		for (int i = 0; i < nargs; i++)
		{
			ParamExternData *prm = &options.params->params[i];

			prm->value = values[i];
			prm->isnull = false;
			prm->pflags = PARAM_FLAG_CONST;
			prm->ptype = types[i];
		}
	}

	GetUserIdAndSecContext(&save_userid, &save_sec);
	SetUserIdAndSecContext(BOOTSTRAP_SUPERUSERID, save_sec | SECURITY_LOCAL_USERID_CHANGE);
	nestlevel = dv_safe_search_path_push();
	if (snapshot)
	{
		/* (read_only: SPI then reads with the active snapshot, this one) */
		options.read_only = true;
		PushActiveSnapshot(snapshot);
	}
	if (plan)
		rc = SPI_execute_plan_extended(plan, &options);
	else if (nargs > 0)
		rc = SPI_execute_plan_extended(cached_plan(sql, nargs, types), &options);
	else
		rc = SPI_execute_extended(sql, &options);
	if (snapshot)
		PopActiveSnapshot();
	dv_safe_search_path_pop(nestlevel);
	SetUserIdAndSecContext(save_userid, save_sec);

	if (rc != SPI_OK_SELECT)
		elog(ERROR, "dynview catalog statement failed (%s): %s", SPI_result_code_string(rc), sql);
	return SPI_processed;
}

/*
 * Direct reads of one dynamic table's rows in dynamic_table_catalog and
 * source_catalog, through their primary key indexes.
 *
 * Every refresh reads them several times; as SQL statements, each distinct
 * one was parsed, analysed and planned once per connection, which was most
 * of the CPU of a connection's first refresh.  The reads here see what such
 * a statement saw: a statement dynview runs (dv_catalog_exec) increments the
 * command counter and reads with the transaction snapshot (a new one per
 * statement in READ COMMITTED, the transaction's in REPEATABLE READ and
 * SERIALIZABLE), so these do the same; they take the AccessShareLock a
 * SELECT takes.  Writes stay SQL statements (the catalogs' constraints and
 * trigger apply), except the two every refresh makes, the history row
 * (insert_row) and the catalog row's data snapshot (update_catalog_row),
 * which go through the executor's routines, constraints and triggers
 * included.  Values are converted with their types' output functions, as
 * the statements' casts to text did.
 */
typedef struct CatalogRead
{
	Relation	rel;
	SysScanDesc scan;
	Snapshot	snapshot;
} CatalogRead;

/*
 * catalog_read_begin - scan the rows of dynview.<table> whose first column
 * (the dynamic table's relid) is relid, through the index named index, in
 * that index's order.  End with catalog_read_end; values read from the
 * tuples must be copied (converted) before it.
 */
static void
catalog_read_begin(CatalogRead *read, const char *table, const char *index, Oid relid,
				   Snapshot snapshot)
{
	Oid			nsp = get_namespace_oid(DV_SCHEMA, false);
	Oid			tableid = get_relname_relid(table, nsp);
	Oid			indexid = get_relname_relid(index, nsp);
	ScanKeyData key;

	if (!OidIsValid(tableid) || !OidIsValid(indexid))
		elog(ERROR, "dynview catalog %s or its index %s does not exist", table, index);
	if (snapshot == NULL)
	{
		/* as a catalog statement would (see above) */
		CommandCounterIncrement();
		snapshot = GetTransactionSnapshot();
	}
	read->snapshot = RegisterSnapshot(snapshot);
	read->rel = table_open(tableid, AccessShareLock);
	/* (attribute 1 of the table: systable_beginscan maps it to the index's column) */
	ScanKeyInit(&key, 1, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(relid));
	read->scan = systable_beginscan(read->rel, indexid, true, read->snapshot, 1, &key);
}

static void
catalog_read_end(CatalogRead *read)
{
	systable_endscan(read->scan);
	table_close(read->rel, AccessShareLock);
	UnregisterSnapshot(read->snapshot);
}

/* the attribute number of a catalog column, by name (a name of ours) */
static AttrNumber
catalog_column(TupleDesc desc, const char *column)
{
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (!att->attisdropped && strcmp(NameStr(att->attname), column) == 0)
			return att->attnum;
	}
	elog(ERROR, "dynview catalog column %s does not exist", column);
	return InvalidAttrNumber;	/* keep compiler quiet */
}

/* a catalog column's value as its type's output function writes it, or NULL */
static char *
catalog_text(HeapTuple tuple, TupleDesc desc, const char *column)
{
	AttrNumber	attnum = catalog_column(desc, column);
	Oid			type = TupleDescAttr(desc, attnum - 1)->atttypid;
	bool		isnull;
	Datum		d = heap_getattr(tuple, attnum, desc, &isnull);
	Oid			output;
	bool		varlena;

	if (isnull)
		return NULL;
	if (type == TEXTOID)
		return TextDatumGetCString(d);
	if (type == NAMEOID)
		return pstrdup(NameStr(*DatumGetName(d)));
	getTypeOutputInfo(type, &output, &varlena);
	return OidOutputFunctionCall(output, d);
}

/* is relid a row of dynamic_table_catalog, at the snapshot (NULL: as a statement would)? */
static bool
catalog_has_row(Oid relid, Snapshot snapshot)
{
	CatalogRead read;
	bool		found;

	catalog_read_begin(&read, DV_CATALOG_TABLE, DV_CATALOG_TABLE "_pkey", relid, snapshot);
	found = HeapTupleIsValid(systable_getnext(read.scan));
	catalog_read_end(&read);
	return found;
}

/*
 * dv_is_dynamic_table - is relid registered in dynamic_table_catalog?
 * (A direct read; the executor guard has its own cached lookup in guard.c.)
 */
bool
dv_is_dynamic_table(Oid relid)
{
	return catalog_has_row(relid, NULL);
}

/*
 * dv_resolve_dynamic_table - turn a user-given name into a dynamic table's
 * OID, with the errors of design section 8.
 *
 * Returns InvalidOid only when missing_ok and the relation does not exist.
 * check_owner demands that the current user owns the table.
 */
Oid
dv_resolve_dynamic_table(const char *name, bool missing_ok, bool check_owner)
{
	RangeVar   *rv;
	Oid			relid;

	rv = makeRangeVarFromNameList(stringToQualifiedNameList(name));
	relid = RangeVarGetRelid(rv, NoLock, true);
	if (!OidIsValid(relid))
	{
		char	   *hint;

		if (missing_ok)
			return InvalidOid;
		hint = dv_case_folding_hint(name);
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("dynamic table \"%s\" does not exist", name),
				 hint ? errhint("%s", hint) :
				 errhint("The view dynview.dynamic_tables lists the dynamic tables.")));
	}
	if (!dv_is_dynamic_table(relid))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a dynamic table", name),
				 errhint("Create it with dynview.create_dynamic_table(); the view dynview.dynamic_tables lists the dynamic tables.")));
	if (check_owner && !pg_class_ownercheck(relid, GetUserId()))
		aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_TABLE, get_rel_name(relid));
	return relid;
}

/*
 * dv_lock_refresh - take the refresh lock of dynamic table relid, held to
 * the end of the transaction: ExclusiveLock on the object (pg_class, relid,
 * 0), which pg_locks shows as locktype "object".  Refreshes, alters and
 * replaced definitions of one table serialise on it.
 *
 * It is not a lock on the relation: readers (AccessShareLock) and VACUUM,
 * autovacuum and ANALYZE (ShareUpdateExclusiveLock) never conflict with it,
 * so a refresh does not wait for an autovacuum of its own table, nor cancel
 * one.  (No relation lock mode conflicts with itself but not with
 * ShareUpdateExclusiveLock.)  The writes take the relation's
 * RowExclusiveLock as statements do, which DROP, ALTER TABLE and CREATE
 * INDEX wait for.  Waits obey lock_timeout like any heavyweight lock.
 * Callers take it through dv_lock_refresh_write, so that whoever holds it
 * holds RowExclusiveLock on the table too (see there).
 */
static void
dv_lock_refresh(Oid relid)
{
	LockDatabaseObject(RelationRelationId, relid, 0, ExclusiveLock);
}

/*
 * dv_try_lock_refresh - dv_lock_refresh without waiting: false when a
 * refresh (or alter) of relid holds or waits for the lock.
 */
bool
dv_try_lock_refresh(Oid relid)
{
	return ConditionalLockDatabaseObject(RelationRelationId, relid, 0, ExclusiveLock);
}

/*
 * dv_lock_refresh_write - the locks of a statement that writes dynamic
 * table relid: a refresh, or COPY FROM into it (which marks its next
 * refresh FULL; a refresh that ran beside it would take a snapshot without
 * its rows and then clear the mark).  Both the table's refresh lock and
 * RowExclusiveLock on it, held to the end of the transaction.
 *
 * It never waits for one of the two while holding the other it took
 * here: a refresh that held the refresh lock while it waited for the
 * table, behind a transaction holding SHARE on it (CREATE INDEX, LOCK
 * TABLE) that then refreshed the table itself, deadlocked; one that held
 * RowExclusiveLock while it waited for the refresh lock would deadlock
 * with a transaction that refreshed the table and then created an index
 * on it.  (With one ExclusiveLock on the table, as before the refresh
 * lock, PostgreSQL let the transaction that already held a lock go first.)
 * So: wait for the refresh lock, try the table's lock; if it is taken,
 * give the refresh lock back, wait for the table's lock, try the refresh
 * lock; and so on.  A lock this transaction held before is held still
 * after a give-back (the lock manager counts); so alter_dynamic_table and
 * a replaced definition take both locks here too: a transaction that
 * holds the refresh lock also holds RowExclusiveLock, and no one takes
 * SHARE on the table in between (an alter, then SHARE taken by another
 * transaction that then refreshed the table, deadlocked with the alter's
 * own refresh: the thirty-second session's second tester).
 */
void
dv_lock_refresh_write(Oid relid)
{
	for (;;)
	{
		dv_lock_refresh(relid);
		if (ConditionalLockRelationOid(relid, RowExclusiveLock))
			return;
		UnlockDatabaseObject(RelationRelationId, relid, 0, ExclusiveLock);
		LockRelationOid(relid, RowExclusiveLock);
		if (dv_try_lock_refresh(relid))
			return;
		UnlockRelationOid(relid, RowExclusiveLock);
	}
}

/*
 * dv_catalog_load - the catalog row and sources of one dynamic table.
 * Errors if it is not registered.
 */
DvTable *
dv_catalog_load(Oid relid)
{
	DvTable    *dt;
	HeapTuple	tup;
	TupleDesc	desc;
	HeapTuple	classtup;
	CatalogRead read;
	char	   *own_xids;

	catalog_read_begin(&read, DV_CATALOG_TABLE, DV_CATALOG_TABLE "_pkey", relid, NULL);
	tup = systable_getnext(read.scan);
	if (!HeapTupleIsValid(tup))
	{
		/* (looked up as a dynamic table, then dropped while this waited for its lock) */
		char	   *name = get_rel_name(relid);

		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 name ? errmsg("\"%s\" is not a dynamic table", name)
				 : errmsg("dynamic table with OID %u does not exist", relid),
				 errdetail("It was dropped, or made an ordinary table, while this command waited for it."),
				 errhint("The view dynview.dynamic_tables lists the dynamic tables.")));
	}
	desc = RelationGetDescr(read.rel);
	dt = palloc0(sizeof(DvTable));
	dt->relid = relid;
	dt->query = catalog_text(tup, desc, "query");
	dt->definition = catalog_text(tup, desc, "definition");
	dt->schedule = catalog_text(tup, desc, "schedule");
	dt->refresh_mode = catalog_text(tup, desc, "refresh_mode");
	dt->effective_mode = catalog_text(tup, desc, "effective_mode");
	dt->mode_reason_code = catalog_text(tup, desc, "mode_reason_code");
	dt->mode_reason = catalog_text(tup, desc, "mode_reason");
	dt->scheduling_state = catalog_text(tup, desc, "scheduling_state");
	dt->next_refresh_full = catalog_text(tup, desc, "next_refresh_full");
	dt->data_snapshot = catalog_text(tup, desc, "data_snapshot");
	dt->has_data_snapshot = dt->data_snapshot != NULL;
	own_xids = catalog_text(tup, desc, "data_own_xids");
	dt->data_own_xids = own_xids ? own_xids : pstrdup("{}");
	{
		bool		isnull;

		dt->as_is_failures = DatumGetInt32(heap_getattr(tup, catalog_column(desc, "as_is_failures"), desc, &isnull));
		dt->as_is_skip = DatumGetInt32(heap_getattr(tup, catalog_column(desc, "as_is_skip"), desc, &isnull));
		dt->as_is_error = catalog_text(tup, desc, "as_is_error");
	}

	/* the table may have been renamed or moved since it was registered */
	classtup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	if (!HeapTupleIsValid(classtup))
		elog(ERROR, "cache lookup failed for relation %u", relid);
	dt->owner = ((Form_pg_class) GETSTRUCT(classtup))->relowner;
	dt->table_name = pstrdup(NameStr(((Form_pg_class) GETSTRUCT(classtup))->relname));
	dt->schema_name = get_namespace_name(((Form_pg_class) GETSTRUCT(classtup))->relnamespace);
	ReleaseSysCache(classtup);

	dt->sources = load_sources(relid, read.snapshot);
	catalog_read_end(&read);
	return dt;
}

/*
 * load_sources - relid's sources (DvSource *, palloc'd, without columns),
 * ordered by (schema, name) as source_catalog's primary key orders them, at
 * the snapshot (NULL: as a statement would read them).
 */
static List *
load_sources(Oid relid, Snapshot snapshot)
{
	CatalogRead read;
	HeapTuple	tup;
	TupleDesc	desc;
	List	   *result = NIL;
	ListCell   *lc;

	catalog_read_begin(&read, "source_catalog", "source_catalog_pkey", relid, snapshot);
	desc = RelationGetDescr(read.rel);
	while (HeapTupleIsValid(tup = systable_getnext(read.scan)))
	{
		DvSource   *src = palloc0(sizeof(DvSource));
		bool		isnull;

		src->relid = DatumGetObjectId(heap_getattr(tup, catalog_column(desc, "source_relid"), desc, &isnull));
		src->schema_name = catalog_text(tup, desc, "source_schema");
		src->table_name = catalog_text(tup, desc, "source_name");
		result = lappend(result, src);
	}
	foreach(lc, result)
	{
		DvSource   *src = lfirst(lc);

		src->is_dynamic = OidIsValid(src->relid) && catalog_has_row(src->relid, read.snapshot);
	}
	catalog_read_end(&read);
	return result;
}

/* Shared by insert and replace: the values of the definition columns */
#define DEF_NARGS 9
static void
definition_args(Oid relid, const char *query, DvAnalyzedQuery *aq,
				const char *schedule, const char *refresh_mode,
				const char *effective_mode, ArrayType *primary_key,
				Oid *types, Datum *values, char *nulls)
{
	memset(nulls, ' ', DEF_NARGS);
	types[0] = OIDOID;
	values[0] = ObjectIdGetDatum(relid);
	types[1] = TEXTOID;
	values[1] = CStringGetTextDatum(query);
	types[2] = TEXTOID;
	values[2] = CStringGetTextDatum(aq->definition);
	types[3] = TEXTOID;
	values[3] = CStringGetTextDatum(schedule);
	types[4] = TEXTOID;
	values[4] = CStringGetTextDatum(refresh_mode);
	types[5] = TEXTOID;
	values[5] = CStringGetTextDatum(effective_mode);
	types[6] = TEXTOID;
	types[7] = TEXTOID;
	if (strcmp(effective_mode, "FULL") == 0 && aq->full_reason_code)
	{
		values[6] = CStringGetTextDatum(aq->full_reason_code);
		values[7] = CStringGetTextDatum(aq->full_reason);
	}
	else
		nulls[6] = nulls[7] = 'n';
	types[8] = TEXTARRAYOID;
	if (primary_key)
		values[8] = PointerGetDatum(primary_key);
	else
		nulls[8] = 'n';
}

/*
 * dv_catalog_insert - register a new dynamic table (no data snapshot yet).
 */
void
dv_catalog_insert(Oid relid, const char *query, DvAnalyzedQuery *aq,
				  const char *schedule, const char *refresh_mode,
				  const char *effective_mode, ArrayType *primary_key)
{
	Oid			types[DEF_NARGS];
	Datum		values[DEF_NARGS];
	char		nulls[DEF_NARGS + 1];

	definition_args(relid, query, aq, schedule, refresh_mode, effective_mode,
					primary_key, types, values, nulls);
	dv_catalog_exec("INSERT INTO dynview.dynamic_table_catalog "
					"(relid, schema_name, table_name, query, definition, schedule, refresh_mode, "
					" effective_mode, mode_reason_code, mode_reason, primary_key) "
					"SELECT c.oid, n.nspname, c.relname, $2, $3, $4, $5, $6, $7, $8, $9 "
					"FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
					"WHERE c.oid = $1",
					DEF_NARGS, types, values, nulls, 1);
	dv_catalog_set_sources(relid, aq->sources);
	dv_guard_invalidate(relid);
}

/*
 * dv_catalog_replace_definition - new query and settings for an existing
 * dynamic table; its next refresh must be FULL (DEFINITION_REPLACED).
 */
void
dv_catalog_replace_definition(Oid relid, const char *query, DvAnalyzedQuery *aq,
							  const char *schedule, const char *refresh_mode,
							  const char *effective_mode, ArrayType *primary_key)
{
	Oid			types[DEF_NARGS];
	Datum		values[DEF_NARGS];
	char		nulls[DEF_NARGS + 1];

	definition_args(relid, query, aq, schedule, refresh_mode, effective_mode,
					primary_key, types, values, nulls);
	dv_catalog_exec("UPDATE dynview.dynamic_table_catalog SET query = $2, definition = $3, "
					"schedule = $4, refresh_mode = $5, effective_mode = $6, mode_reason_code = $7, "
					"mode_reason = $8, primary_key = $9, next_refresh_full = 'DEFINITION_REPLACED', "
					"as_is_failures = 0, as_is_skip = 0, as_is_error = NULL "
					"WHERE relid = $1::regclass",
					DEF_NARGS, types, values, nulls, 1);
	dv_catalog_set_sources(relid, aq->sources);
}

/*
 * text_param - a text parameter of a catalog statement into *value and
 * *null (dv_catalog_exec's nulls): the text, or SQL NULL for a NULL pointer.
 */
static void
text_param(const char *text, Datum *value, char *null)
{
	*value = text ? CStringGetTextDatum(text) : (Datum) 0;
	*null = text ? ' ' : 'n';
}

/*
 * dv_catalog_set_sources - replace the source list of a dynamic table.
 */
void
dv_catalog_set_sources(Oid relid, List *sources)
{
	Oid			types[4] = {OIDOID, OIDOID, TEXTOID, TEXTOID};
	Datum		values[4];
	ListCell   *lc;

	values[0] = ObjectIdGetDatum(relid);
	dv_catalog_exec("DELETE FROM dynview.source_catalog WHERE relid = $1::regclass",
					1, types, values, NULL, -1);
	foreach(lc, sources)
	{
		DvSource   *src = lfirst(lc);

		values[1] = ObjectIdGetDatum(src->relid);
		values[2] = CStringGetTextDatum(src->schema_name);
		values[3] = CStringGetTextDatum(src->table_name);
		dv_catalog_exec("INSERT INTO dynview.source_catalog "
						"(relid, source_relid, source_schema, source_name, source_signature) "
						"VALUES ($1::regclass, $2, $3, $4, dynview._source_signature($2))",
						4, types, values, NULL, 1);
	}
}

/*
 * dv_catalog_update_source - record a source's current OID (InvalidOid
 * while missing), found again by its name.
 */
void
dv_catalog_update_source(Oid relid, DvSource *source)
{
	Oid			types[4] = {OIDOID, OIDOID, TEXTOID, TEXTOID};
	Datum		values[4];

	values[0] = ObjectIdGetDatum(relid);
	values[1] = ObjectIdGetDatum(source->relid);
	values[2] = CStringGetTextDatum(source->schema_name);
	values[3] = CStringGetTextDatum(source->table_name);
	dv_catalog_exec("UPDATE dynview.source_catalog SET source_relid = $2 "
					"WHERE relid = $1::regclass AND source_schema = $3 AND source_name = $4",
					4, types, values, NULL, 1);
}

/* the source was renamed (read through a view, which follows it): record its new name */
void
dv_catalog_rename_source(Oid relid, DvSource *source, const char *schema_name, const char *table_name)
{
	Oid			types[5] = {OIDOID, TEXTOID, TEXTOID, TEXTOID, TEXTOID};
	Datum		values[5];

	values[0] = ObjectIdGetDatum(relid);
	values[1] = CStringGetTextDatum(source->schema_name);
	values[2] = CStringGetTextDatum(source->table_name);
	values[3] = CStringGetTextDatum(schema_name);
	values[4] = CStringGetTextDatum(table_name);
	dv_catalog_exec("UPDATE dynview.source_catalog SET source_schema = $4, source_name = $5 "
					"WHERE relid = $1::regclass AND source_schema = $2 AND source_name = $3",
					5, types, values, NULL, -1);
	source->schema_name = pstrdup(schema_name);
	source->table_name = pstrdup(table_name);
}

/*
 * dv_catalog_set_schedule - change schedule and/or declared refresh mode;
 * NULL keeps the current value.
 */
void
dv_catalog_set_schedule(Oid relid, const char *schedule, const char *refresh_mode)
{
	Oid			types[3] = {OIDOID, TEXTOID, TEXTOID};
	Datum		values[3];
	char		nulls[4] = "   ";

	values[0] = ObjectIdGetDatum(relid);
	text_param(schedule, &values[1], &nulls[1]);
	text_param(refresh_mode, &values[2], &nulls[2]);
	dv_catalog_exec("UPDATE dynview.dynamic_table_catalog SET "
					"schedule = coalesce($2, schedule), refresh_mode = coalesce($3, refresh_mode), "
					"as_is_failures = 0, as_is_skip = 0, as_is_error = NULL "
					"WHERE relid = $1::regclass",
					3, types, values, nulls, 1);
}

/*
 * dv_catalog_set_as_is_failure - record how reading relid's windows as
 * they are (dynview.linear_windows_as_is) fared: the failures in a row,
 * the refreshes left that consolidate first, and the last failure's error
 * (NULL with zeros: none, the record cleared).  In the catalog row, not in
 * a backend's memory, so that every refresher sees it: the scheduler, a
 * refresh worker (which exits after its pipeline), a user's session, also
 * after a restart.  Written in the refresh's transaction: a refresh that
 * fails in the end records nothing (as with consecutive_failures).  Reset
 * by alter_dynamic_table and create_or_replace_dynamic_table; a table
 * created again has a new row.  Needs SPI.
 */
void
dv_catalog_set_as_is_failure(Oid relid, int failures, int skip, const char *error)
{
	Oid			types[4] = {OIDOID, INT4OID, INT4OID, TEXTOID};
	Datum		values[4];
	char		nulls[5] = "    ";

	values[0] = ObjectIdGetDatum(relid);
	values[1] = Int32GetDatum(failures);
	values[2] = Int32GetDatum(skip);
	text_param(error, &values[3], &nulls[3]);
	dv_catalog_exec("UPDATE dynview.dynamic_table_catalog SET as_is_failures = $2, as_is_skip = $3, "
					"as_is_error = $4 WHERE relid = $1::regclass",
					4, types, values, nulls, 1);
}

/*
 * dv_catalog_set_effective_mode - what the declared mode resolves to now,
 * with the reason when FULL (NULLs otherwise).
 */
void
dv_catalog_set_effective_mode(Oid relid, const char *effective, const char *code, const char *reason)
{
	Oid			types[4] = {OIDOID, TEXTOID, TEXTOID, TEXTOID};
	Datum		values[4];
	char		nulls[5] = "    ";

	values[0] = ObjectIdGetDatum(relid);
	values[1] = CStringGetTextDatum(effective);
	text_param(code, &values[2], &nulls[2]);
	text_param(reason, &values[3], &nulls[3]);
	dv_catalog_exec("UPDATE dynview.dynamic_table_catalog SET effective_mode = $2, "
					"mode_reason_code = $3, mode_reason = $4 WHERE relid = $1::regclass",
					4, types, values, nulls, 1);
}

/*
 * dv_catalog_set_state - set scheduling_state (ACTIVE | SUSPENDED) with a
 * reason (NULL clears it) of a table and of its downstream tables.  Resuming
 * resets the failure counters.
 */
void
dv_catalog_set_state(Oid relid, const char *state, const char *reason)
{
	Oid			types[3] = {OIDOID, TEXTOID, TEXTOID};
	Datum		values[3];
	char		nulls[4] = "   ";

	values[0] = ObjectIdGetDatum(relid);
	values[1] = CStringGetTextDatum(state);
	text_param(reason, &values[2], &nulls[2]);
	/* the table and every dynamic table downstream of it (design section 7) */
	dv_catalog_exec("WITH RECURSIVE down(relid) AS ("
					"  SELECT $1::regclass "
					"  UNION "
					"  SELECT s.relid FROM dynview.source_catalog s JOIN down ON s.source_relid = down.relid::oid) "
					"UPDATE dynview.dynamic_table_catalog c SET scheduling_state = $2, "
					"suspend_reason = $3, "
					"consecutive_failures = CASE WHEN $2 = 'ACTIVE' THEN 0 ELSE consecutive_failures END "
					"FROM down WHERE c.relid = down.relid",
					3, types, values, nulls, -1);
}

/* dv_rel_owner - the owner of relation relid (an error if it is gone) */
Oid
dv_rel_owner(Oid relid)
{
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	Oid			owner;

	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for relation %u", relid);
	owner = ((Form_pg_class) GETSTRUCT(tup))->relowner;
	ReleaseSysCache(tup);
	return owner;
}

/*
 * dv_catalog_source_altered - the name of a source of relid whose columns or
 * storage changed since relid's last refresh (DDL, which change capture
 * cannot see), or NULL.
 */
char *
dv_catalog_source_altered(Oid relid)
{
	CatalogRead read;
	HeapTuple	tup;
	TupleDesc	desc;
	char	   *altered = NULL;

	catalog_read_begin(&read, "source_catalog", "source_catalog_pkey", relid, NULL);
	desc = RelationGetDescr(read.rel);
	while (altered == NULL && HeapTupleIsValid(tup = systable_getnext(read.scan)))
	{
		bool		isnull;
		Oid			source = DatumGetObjectId(heap_getattr(tup, catalog_column(desc, "source_relid"),
														   desc, &isnull));
		char	   *recorded;
		char	   *shape;

		if (!OidIsValid(source))
			continue;
		recorded = catalog_text(tup, desc, "source_signature");
		shape = source_shape(source);
		/* (a signature stored by an older build is an md5: compared as one) */
		if ((recorded == NULL) != (shape == NULL) ||
			(recorded != NULL && !dv_signature_matches(recorded, shape)))
		{
			/* named as regclass's output names it with search_path "pg_catalog, pg_temp" */
			int			nestlevel = dv_safe_search_path_push();

			altered = DatumGetCString(DirectFunctionCall1(regclassout, ObjectIdGetDatum(source)));
			dv_safe_search_path_pop(nestlevel);
		}
	}
	catalog_read_end(&read);
	return altered;
}

/* set a text column (a name written here, not user input) of relid's catalog row */
static void
set_text_column(Oid relid, const char *column, const char *value)
{
	Oid			types[2] = {OIDOID, TEXTOID};
	Datum		values[2];

	values[0] = ObjectIdGetDatum(relid);
	values[1] = CStringGetTextDatum(value);
	dv_catalog_exec(psprintf("UPDATE dynview.dynamic_table_catalog SET %s = $2 WHERE relid = $1::regclass", column),
					2, types, values, NULL, 1);
}

/*
 * dv_catalog_set_next_full - the next refresh of relid must be FULL, for the
 * given reason code.
 */
void
dv_catalog_set_next_full(Oid relid, const char *reason_code)
{
	set_text_column(relid, "next_refresh_full", reason_code);
}

/* relid's next refresh is FULL with reason_code, unless one is due already (it keeps its reason) */
static void
set_next_full_unless_due(Oid relid, const char *reason_code)
{
	Oid			types[2] = {OIDOID, TEXTOID};
	Datum		values[2] = {ObjectIdGetDatum(relid), CStringGetTextDatum(reason_code)};

	dv_catalog_exec("UPDATE dynview.dynamic_table_catalog SET next_refresh_full = $2 "
					"WHERE relid OPERATOR(pg_catalog.=) $1::pg_catalog.regclass "
					"AND next_refresh_full IS NULL",
					2, types, values, NULL, -1);
}

/*
 * dv_catalog_mark_changed_outside - relid was written by other than its
 * refreshes: its next refresh is FULL (CHANGED_OUTSIDE_REFRESH), unless one
 * is due already for another reason (which it keeps).  So is the next
 * refresh of each dynamic table that reads it (UPSTREAM_CHANGED_OUTSIDE_REFRESH):
 * a dynamic table's change buffer holds what its refreshes wrote, not these
 * rows, and the FULL refresh that removes them writes their removal there;
 * a reader applying that alone would lose rows it never had.  Needs SPI.
 */
void
dv_catalog_mark_changed_outside(Oid relid)
{
	ListCell   *lc;

	set_next_full_unless_due(relid, "CHANGED_OUTSIDE_REFRESH");
	foreach(lc, dv_catalog_readers(relid))
		set_next_full_unless_due(lfirst_oid(lc), "UPSTREAM_CHANGED_OUTSIDE_REFRESH");
}

/*
 * dv_catalog_clear_data - the table was emptied: it has no data snapshot.
 */
void
dv_catalog_clear_data(Oid relid)
{
	Oid			types[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(relid)};

	dv_catalog_exec("UPDATE dynview.dynamic_table_catalog SET data_snapshot = NULL, "
					"data_subxids = NULL, data_own_xids = NULL, data_timestamp = NULL, data_lsn = NULL "
					"WHERE relid = $1::regclass", 1, types, values, NULL, 1);
}

/*
 * dv_widen_xid - a recent 32-bit xid as an xid8 (the epoch taken from the
 * next xid: the xid must not be older than 2^31 transactions).
 */
uint64
dv_widen_xid(TransactionId xid)
{
	return widen_xid(xid, ReadNextFullTransactionId());
}

/* widen a 32-bit xid of a live snapshot to an xid8, relative to next xid */
static uint64
widen_xid(TransactionId xid, FullTransactionId next)
{
	uint32		epoch = EpochFromFullTransactionId(next);

	if (xid > XidFromFullTransactionId(next))
		epoch--;
	return U64FromFullTransactionId(FullTransactionIdFromEpochAndXid(epoch, xid));
}

/*
 * dv_snapshot_to_text - the pg_snapshot text form of an MVCC snapshot
 * (top-level xids only, as pg_current_snapshot() gives), palloc'd.
 */
char *
dv_snapshot_to_text(Snapshot snapshot)
{
	return DatumGetCString(DirectFunctionCall1(pg_snapshot_out, snapshot_datum(snapshot)));
}

/* an MVCC snapshot as a pg_snapshot value (top-level xids only, as pg_current_snapshot() gives) */
static Datum
snapshot_datum(Snapshot snapshot)
{
	Datum		d;

	PushActiveSnapshot(snapshot);
	d = DirectFunctionCall1(pg_current_snapshot, (Datum) 0);
	PopActiveSnapshot();
	return d;
}

/* an xid8[] of xids widened to xid8 */
static Datum
xid8_array(TransactionId *xids, int n, FullTransactionId next)
{
	Datum	   *elems = palloc(sizeof(Datum) * Max(n, 1));

	for (int i = 0; i < n; i++)
		elems[i] = FullTransactionIdGetDatum(FullTransactionIdFromU64(widen_xid(xids[i], next)));
	return PointerGetDatum(construct_array(elems, n, XID8OID, sizeof(FullTransactionId),
										   FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}

/*
 * simple_write_begin - an executor state for writing rows of rel (opened
 * with RowExclusiveLock) through the executor's routines
 * (ExecSimpleRelationInsert, ExecSimpleRelationUpdate) as a statement of
 * the current command would: one range table entry (updated_cols for an
 * UPDATE's column-list triggers), the result relation with its indexes
 * open (*rri).  Ended by simple_write_end.
 */
static EState *
simple_write_begin(Relation rel, Bitmapset *updated_cols, ResultRelInfo **rri)
{
	EState	   *estate = CreateExecutorState();
	RangeTblEntry *rte = makeNode(RangeTblEntry);

	rte->rtekind = RTE_RELATION;
	rte->relid = RelationGetRelid(rel);
	rte->relkind = rel->rd_rel->relkind;
	rte->rellockmode = RowExclusiveLock;
	rte->updatedCols = updated_cols;
	ExecInitRangeTable(estate, list_make1(rte));
	*rri = makeNode(ResultRelInfo);
	InitResultRelInfo(*rri, rel, 1, NULL, 0);
	estate->es_output_cid = GetCurrentCommandId(true);
	ExecOpenIndices(*rri, false);
	return estate;
}

static void
simple_write_end(EState *estate, ResultRelInfo *rri)
{
	ExecCloseIndices(rri);
	ExecResetTupleTable(estate->es_tupleTable, false);
	FreeExecutorState(estate);
}

/*
 * runs_data_origin - does function fn run dynview's C code of
 * dynview_catalog_data_origin?  Its name and schema do not tell: a
 * function of that name whose code was changed (the guard refuses CREATE
 * OR REPLACE; a superuser may still edit pg_proc) and that returns NULL
 * would skip the direct update of update_catalog_row silently (regress
 * brk19_member_functions).  Reads fn's syscache entry.
 */
static bool
runs_data_origin(Oid fn)
{
	HeapTuple	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(fn));
	bool		ours = false;

	if (HeapTupleIsValid(tup))
	{
		Form_pg_proc proc = (Form_pg_proc) GETSTRUCT(tup);
		bool		isnull;
		Datum		src = SysCacheGetAttr(PROCOID, tup, Anum_pg_proc_prosrc, &isnull);

		ours = proc->prolang == ClanguageId && !proc->proretset && !isnull &&
			strcmp(TextDatumGetCString(src), "dynview_catalog_data_origin") == 0;
		ReleaseSysCache(tup);
	}
	return ours;
}

/*
 * dba_attached - has a DBA attached triggers (other than dynview's own
 * data_origin, running dynview's C code: runs_data_origin) or rules to rel, dynamic_table_catalog or refresh_history?
 * Then the rows every refresh writes there (update_catalog_row,
 * dv_history_insert) are written by SQL statements (dv_catalog_exec), so
 * that whatever was attached runs as it would, as the bootstrap superuser
 * with a safe search_path, and a row a BEFORE ROW trigger skips (returns
 * NULL) fails the refresh: the statement then affects no row instead of
 * one.  Written directly, a skipped update left the data snapshot where it
 * was while the table's rows moved on, and the next refresh applied the
 * same change again (regress brk17_catalog_triggers).  Reads rel's
 * relation cache entry and the trigger functions' syscache entries.
 */
static bool
dba_attached(Relation rel)
{
	TriggerDesc *trig = rel->trigdesc;

	if (rel->rd_rules != NULL)
		return true;
	for (int i = 0; trig != NULL && i < trig->numtriggers; i++)
	{
		Oid			fn = trig->triggers[i].tgfoid;
		char	   *name = get_func_name(fn);

		if (name == NULL || strcmp(name, "_catalog_data_origin") != 0 ||
			get_func_namespace(fn) != RelationGetNamespace(rel) || !runs_data_origin(fn))
			return true;
	}
	return false;
}

/*
 * update_catalog_row - set the named columns of relid's row of
 * dynamic_table_catalog, as an UPDATE statement of dv_catalog_exec would,
 * without parsing and planning one: every refresh records its data snapshot
 * so, and as a statement it was parsed and planned once per connection
 * (bench/README.md, sixteenth session).  The row is found through the
 * primary key with the snapshot such a statement reads with (CatalogRead)
 * and locked as an UPDATE locks it: waiting for a concurrent writer; in
 * READ COMMITTED its newest version is updated (the statement's recheck
 * would find the same row: relid never changes); in REPEATABLE READ and
 * SERIALIZABLE a version newer than the snapshot fails the refresh
 * (catalog_serialization_failure, as the statement's error did).  The
 * update goes through the executor's routines (ExecSimpleRelationUpdate:
 * dynview's BEFORE ROW trigger data_origin fired, constraints checked,
 * indexes written unless the update is HOT) and the guard sees it
 * (dv_guard_note_write).  A catalog given any other trigger, or a rule
 * (dba_attached), is written by an UPDATE statement with the same values.
 */
static void
update_catalog_row(Oid relid, int n, const char *const *columns, Datum *values, bool *nulls)
{
	Oid			nsp = get_namespace_oid(DV_SCHEMA, false);
	Relation	rel = table_open(get_relname_relid(DV_CATALOG_TABLE, nsp), RowExclusiveLock);
	TupleDesc	desc = RelationGetDescr(rel);
	EState	   *estate;
	Bitmapset  *updated = NULL;
	ResultRelInfo *rri;
	EPQState	epqstate;
	TupleTableSlot *found;
	TupleTableSlot *slot;
	CatalogRead read;
	HeapTuple	tup;
	ItemPointerData tid;
	TM_FailureData tmfd;
	TM_Result	res;
	Datum	   *newvalues;
	bool	   *newnulls;
	bool	   *replace;

	if (dba_attached(rel))
	{
		StringInfoData sql;
		Oid		   *types = palloc(sizeof(Oid) * (n + 1));
		Datum	   *args = palloc(sizeof(Datum) * (n + 1));
		char	   *argnulls = palloc(n + 2);

		initStringInfo(&sql);
		appendStringInfoString(&sql, "UPDATE dynview.dynamic_table_catalog SET ");
		for (int i = 0; i < n; i++)
		{
			types[i] = TupleDescAttr(desc, catalog_column(desc, columns[i]) - 1)->atttypid;
			args[i] = values[i];
			argnulls[i] = nulls[i] ? 'n' : ' ';
			appendStringInfo(&sql, "%s%s = $%d", i ? ", " : "", columns[i], i + 1);
		}
		types[n] = OIDOID;
		args[n] = ObjectIdGetDatum(relid);
		argnulls[n] = ' ';
		argnulls[n + 1] = '\0';
		appendStringInfo(&sql, " WHERE relid = $%d::regclass", n + 1);
		table_close(rel, NoLock);
		dv_catalog_exec(sql.data, n + 1, types, args, argnulls, -1);
		/* (a BEFORE ROW trigger returned NULL: the table's rows would not match the catalog) */
		if (SPI_processed != 1)
			ereport(ERROR,
					(errcode(ERRCODE_TRIGGERED_ACTION_EXCEPTION),
					 errmsg("a trigger on dynview.dynamic_table_catalog skipped the update of the catalog row of dynamic table \"%s\"",
							get_rel_name(relid)),
					 errdetail("A refresh records in that row the data snapshot its rows are of; without it the next refresh would apply the same changes again."),
					 errhint("Have the trigger return the new row for the updates dynview makes, or drop it.")));
		return;
	}

	dv_guard_note_write(RelationGetRelid(rel));
	/* (for the data_origin trigger's UPDATE OF data_snapshot) */
	for (int i = 0; i < n; i++)
		updated = bms_add_member(updated, catalog_column(desc, columns[i]) - FirstLowInvalidHeapAttributeNumber);
	estate = simple_write_begin(rel, updated, &rri);
	EvalPlanQualInit(&epqstate, estate, NULL, NIL, -1);
	found = ExecInitExtraTupleSlot(estate, desc, table_slot_callbacks(rel));
	slot = ExecInitExtraTupleSlot(estate, desc, &TTSOpsVirtual);

	/* the row as the statement would find it (its snapshot, after a command counter increment) */
	catalog_read_begin(&read, DV_CATALOG_TABLE, DV_CATALOG_TABLE "_pkey", relid, NULL);
	tup = systable_getnext(read.scan);
	if (!HeapTupleIsValid(tup))
		elog(ERROR, "dynview catalog row of relation %u not found", relid);
	tid = tup->t_self;
	estate->es_snapshot = read.snapshot;
	res = table_tuple_lock(rel, &tid, read.snapshot, found, estate->es_output_cid,
						   LockTupleNoKeyExclusive, LockWaitBlock,
						   IsolationUsesXactSnapshot() ? 0 : TUPLE_LOCK_FLAG_FIND_LAST_VERSION, &tmfd);
	if (res == TM_Updated && IsolationUsesXactSnapshot())
		catalog_serialization_failure();
	if (res != TM_Ok)
		elog(ERROR, "dynview catalog row of relation %u could not be locked for update (%d)", relid, (int) res);

	newvalues = palloc(sizeof(Datum) * desc->natts);
	newnulls = palloc(sizeof(bool) * desc->natts);
	replace = palloc0(sizeof(bool) * desc->natts);
	for (int i = 0; i < n; i++)
		set_row_column(desc, newvalues, newnulls, replace, columns[i], values[i], nulls[i]);
	slot_getallattrs(found);
	ExecClearTuple(slot);
	for (int i = 0; i < desc->natts; i++)
	{
		slot->tts_values[i] = replace[i] ? newvalues[i] : found->tts_values[i];
		slot->tts_isnull[i] = replace[i] ? newnulls[i] : found->tts_isnull[i];
	}
	ExecStoreVirtualTuple(slot);
	ExecSimpleRelationUpdate(rri, estate, &epqstate, found, slot);

	catalog_read_end(&read);
	EvalPlanQualEnd(&epqstate);
	simple_write_end(estate, rri);
	table_close(rel, NoLock);
}

static void record_signatures(Oid relid);

/*
 * dv_catalog_record_success - store a refresh's data snapshot and reset
 * the failure bookkeeping.
 *
 * The data is the query at the snapshot plus what the refreshing
 * transaction itself wrote before (the upstream refreshes of its pipeline),
 * so its own xids are stored with the snapshot; so are the subtransactions
 * that were in progress at the snapshot, so that verify() can rebuild it
 * exactly.  Call at the level the pipeline ran at, after its
 * subtransactions have ended.  (Called in a subtransaction, the xids of
 * enclosing subtransactions other than the top are not known here: a
 * refresh nested in two savepoints may verify false, not refresh wrongly.)
 */
void
dv_catalog_record_success(Oid relid, Snapshot snapshot, TimestampTz when,
						  XLogRecPtr lsn, const char *state)
{
	static const char *const columns[] = {"data_snapshot", "data_subxids", "data_suboverflowed",
		"data_timestamp", "data_lsn", "last_refresh_state", "data_own_xids", "data_command_id",
	"consecutive_failures", "next_refresh_full"};
	Datum		values[lengthof(columns)];
	bool		nulls[lengthof(columns)] = {0};
	FullTransactionId next = ReadNextFullTransactionId();
	TransactionId top = GetTopTransactionIdIfAny();
	TransactionId current = GetCurrentTransactionIdIfAny();
	TransactionId *children;
	int			nchildren = xactGetCommittedChildren(&children);
	TransactionId *own = palloc(sizeof(TransactionId) * (nchildren + 2));
	int			nown = 0;

	if (TransactionIdIsValid(top))
		own[nown++] = top;
	/* called inside a subtransaction (a savepoint, a PL/pgSQL exception block): its xid too */
	if (TransactionIdIsValid(current) && current != top)
		own[nown++] = current;
	for (int i = 0; i < nchildren; i++)
		own[nown++] = children[i];

	values[0] = snapshot_datum(snapshot);
	values[1] = xid8_array(snapshot->subxip, snapshot->subxcnt, next);
	values[2] = BoolGetDatum(snapshot->suboverflowed);
	values[3] = TimestampTzGetDatum(when);
	values[4] = LSNGetDatum(lsn);
	values[5] = CStringGetTextDatum(state);
	values[6] = xid8_array(own, nown, next);
	values[7] = Int64GetDatum((int64) snapshot->curcid);
	values[8] = Int32GetDatum(0);
	nulls[9] = true;
	update_catalog_row(relid, lengthof(columns), columns, values, nulls);
	record_signatures(relid);
}

/*
 * The signatures of the sources of the tables refreshed in this transaction,
 * as read when each refresh began (dv_catalog_note_signatures), in
 * TopTransactionContext: of NotedSignature *.
 */
typedef struct NotedSignature
{
	Oid			relid;			/* the dynamic table */
	Oid			source_relid;
	char	   *signature;		/* NULL: the source is gone */
} NotedSignature;

static List *noted_signatures = NIL;
static LocalTransactionId noted_lxid = InvalidLocalTransactionId;

/*
 * dv_catalog_note_signatures - read the signatures of relid's sources now,
 * at the start of its refresh, for record_signatures to store when the
 * refresh succeeds.  Read at the end instead, a signature could take in DDL
 * that committed during the refresh (DROP INDEX CONCURRENTLY, CREATE INDEX
 * take no lock that waits for it) which the refresh's plan did not see: the
 * next refresh would then not see the source altered, plan by the new keys
 * and keep the old apply index.  Noted first, such a change shows at the
 * next refresh (FULL, SOURCE_ALTERED).  Needs SPI.
 */
void
dv_catalog_note_signatures(Oid relid)
{
	CatalogRead read;
	HeapTuple	tup;
	TupleDesc	desc;
	MemoryContext old;
	ListCell   *lc;

	if (noted_lxid != MyProc->lxid)
	{
		noted_signatures = NIL;	/* (its memory went with its transaction) */
		noted_lxid = MyProc->lxid;
	}
	foreach(lc, noted_signatures)
	{
		NotedSignature *n = lfirst(lc);

		if (n->relid == relid)
			noted_signatures = foreach_delete_current(noted_signatures, lc);
	}
	catalog_read_begin(&read, "source_catalog", "source_catalog_pkey", relid, NULL);
	desc = RelationGetDescr(read.rel);
	while (HeapTupleIsValid(tup = systable_getnext(read.scan)))
	{
		NotedSignature *n;
		bool		isnull;
		Oid			source = DatumGetObjectId(heap_getattr(tup, catalog_column(desc, "source_relid"),
														   desc, &isnull));

		if (!OidIsValid(source))
			continue;
		old = MemoryContextSwitchTo(TopTransactionContext);
		n = palloc(sizeof(NotedSignature));
		n->relid = relid;
		n->source_relid = source;
		n->signature = source_signature(source);
		noted_signatures = lappend(noted_signatures, n);
		MemoryContextSwitchTo(old);
	}
	catalog_read_end(&read);
}

/* the signature of source noted when relid's refresh began, or NULL */
static char *
noted_signature(Oid relid, Oid source)
{
	ListCell   *lc;

	if (noted_lxid != MyProc->lxid)
		return NULL;
	foreach(lc, noted_signatures)
	{
		NotedSignature *n = lfirst(lc);

		if (n->relid == relid && n->source_relid == source)
			return n->signature;
	}
	return NULL;
}

/*
 * signatures_unchanged - would record_signatures store what source_catalog
 * holds already?  Then it writes nothing (the usual case: a refresh after
 * no DDL), so a refresh does not update every source row each time.  The
 * comparison is of the text: a signature an older build stored (an md5,
 * dv_signature_matches) is rewritten in today's form once, by the first
 * refresh that succeeds.
 */
static bool
signatures_unchanged(Oid relid)
{
	CatalogRead read;
	HeapTuple	tup;
	TupleDesc	desc;
	bool		same = true;

	catalog_read_begin(&read, "source_catalog", "source_catalog_pkey", relid, NULL);
	desc = RelationGetDescr(read.rel);
	while (same && HeapTupleIsValid(tup = systable_getnext(read.scan)))
	{
		bool		isnull;
		Oid			source = DatumGetObjectId(heap_getattr(tup, catalog_column(desc, "source_relid"),
														   desc, &isnull));
		char	   *recorded;
		char	   *signature;

		if (!OidIsValid(source))
			continue;
		recorded = catalog_text(tup, desc, "source_signature");
		/* as the UPDATE's COALESCE: the noted one, else the signature now */
		signature = noted_signature(relid, source);
		if (signature == NULL)
			signature = source_signature(source);
		same = (recorded == NULL) == (signature == NULL) &&
			(recorded == NULL || strcmp(recorded, signature) == 0);
	}
	catalog_read_end(&read);
	return same;
}

/*
 * record_signatures - store the signatures of relid's sources after a
 * successful refresh: those noted when it began, and for a source not noted
 * then (tracked since, as a redefined view's), its signature now.
 */
static void
record_signatures(Oid relid)
{
	Oid			types[3] = {OIDOID, TEXTOID, TEXTOID};
	Datum		values[3];
	StringInfoData sources;
	StringInfoData signatures;
	ListCell   *lc;

	if (signatures_unchanged(relid))
		return;
	initStringInfo(&sources);
	initStringInfo(&signatures);
	appendStringInfoChar(&sources, '{');
	appendStringInfoChar(&signatures, '{');
	if (noted_lxid == MyProc->lxid)
	{
		foreach(lc, noted_signatures)
		{
			NotedSignature *n = lfirst(lc);

			if (n->relid != relid)
				continue;
			appendStringInfo(&sources, "%s%u", sources.len > 1 ? "," : "", n->source_relid);
			/* (a signature, the marker and hex digits, needs no quoting) */
			appendStringInfo(&signatures, "%s%s", signatures.len > 1 ? "," : "",
							 n->signature ? n->signature : "NULL");
		}
	}
	appendStringInfoChar(&sources, '}');
	appendStringInfoChar(&signatures, '}');
	values[0] = ObjectIdGetDatum(relid);
	values[1] = CStringGetTextDatum(sources.data);
	values[2] = CStringGetTextDatum(signatures.data);
	dv_catalog_exec("UPDATE dynview.source_catalog s SET source_signature = "
					"COALESCE((SELECT n.signature FROM unnest($2::oid[], $3::text[]) n(source_relid, signature) "
					"WHERE n.source_relid = s.source_relid), dynview._source_signature(s.source_relid)) "
					"WHERE s.relid = $1::regclass AND s.source_relid <> 0",
					3, types, values, NULL, -1);
}

/*
 * dv_catalog_data_snapshot - rebuild the data snapshot of a dynamic table
 * as an MVCC snapshot (palloc'd, not registered), or NULL if it has none.
 *
 * The snapshot sees exactly what the refresh saw, as long as no row it sees
 * has been pruned since (see verify.c).
 */
Snapshot
dv_catalog_data_snapshot(Oid relid)
{
	Oid			types[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(relid)};
	HeapTuple	tup;
	TupleDesc	desc;
	bool		isnull;
	Snapshot	snap;
	ArrayType  *xip;
	ArrayType  *subxip;
	ArrayType  *ownarr;
	Datum	   *elems;
	int			nelems;
	Datum	   *own;
	int			nown;
	TransactionId newxmax;

	dv_catalog_exec("SELECT pg_snapshot_xmin(data_snapshot)::text::int8, "
					"pg_snapshot_xmax(data_snapshot)::text::int8, "
					"ARRAY(SELECT x::text::int8 FROM pg_snapshot_xip(data_snapshot) x), "
					"ARRAY(SELECT x::text::int8 FROM unnest(data_subxids) x), "
					"data_suboverflowed, "
					"ARRAY(SELECT x::text::int8 FROM unnest(data_own_xids) x ORDER BY 1), "
					"data_command_id "
					"FROM dynview.dynamic_table_catalog "
					"WHERE relid = $1::regclass AND data_snapshot IS NOT NULL",
					1, types, values, NULL, -1);
	if (SPI_processed == 0)
		return NULL;
	tup = SPI_tuptable->vals[0];
	desc = SPI_tuptable->tupdesc;

	snap = palloc0(sizeof(SnapshotData));
	snap->snapshot_type = SNAPSHOT_MVCC;
	snap->xmin = (TransactionId) DatumGetInt64(SPI_getbinval(tup, desc, 1, &isnull));
	snap->xmax = (TransactionId) DatumGetInt64(SPI_getbinval(tup, desc, 2, &isnull));

	/*
	 * The refreshing transaction's own xids count as visible: move xmax past
	 * them and list every other xid in between as in progress.
	 */
	ownarr = DatumGetArrayTypeP(SPI_getbinval(tup, desc, 6, &isnull));
	deconstruct_array(ownarr, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, &own, NULL, &nown);
	newxmax = snap->xmax;
	for (int i = 0; i < nown; i++)
	{
		TransactionId x = (TransactionId) DatumGetInt64(own[i]);

		if (TransactionIdFollowsOrEquals(x, newxmax))
		{
			newxmax = x;
			TransactionIdAdvance(newxmax);
		}
	}

	xip = DatumGetArrayTypeP(SPI_getbinval(tup, desc, 3, &isnull));
	deconstruct_array(xip, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, &elems, NULL, &nelems);
	snap->xip = palloc(sizeof(TransactionId) * (nelems + (newxmax - snap->xmax) + 1));
	for (int i = 0; i < nelems; i++)
		snap->xip[i] = (TransactionId) DatumGetInt64(elems[i]);
	snap->xcnt = nelems;
	for (TransactionId x = snap->xmax; x != newxmax;)
	{
		bool		mine = false;

		for (int i = 0; i < nown && !mine; i++)
			mine = (TransactionId) DatumGetInt64(own[i]) == x;
		if (!mine)
			snap->xip[snap->xcnt++] = x;
		TransactionIdAdvance(x);
	}
	snap->xmax = newxmax;

	subxip = DatumGetArrayTypeP(SPI_getbinval(tup, desc, 4, &isnull));
	deconstruct_array(subxip, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, &elems, NULL, &nelems);
	snap->subxip = palloc(sizeof(TransactionId) * Max(nelems, 1));
	for (int i = 0; i < nelems; i++)
		snap->subxip[i] = (TransactionId) DatumGetInt64(elems[i]);
	snap->subxcnt = nelems;
	snap->suboverflowed = DatumGetBool(SPI_getbinval(tup, desc, 5, &isnull));
	snap->takenDuringRecovery = false;
	snap->copied = true;
	/* verify() in the refreshing transaction: see its writes up to the refresh only */
	snap->curcid = GetCurrentCommandId(false);
	for (int i = 0; i < nown; i++)
	{
		Datum		cid = SPI_getbinval(tup, desc, 7, &isnull);

		if (!isnull && TransactionIdIsCurrentTransactionId((TransactionId) DatumGetInt64(own[i])))
		{
			snap->curcid = (CommandId) DatumGetInt64(cid);
			break;
		}
	}
	return snap;
}

/*
 * dv_catalog_forget_relations - bookkeeping after relations were dropped:
 * dynamic tables among them are unregistered (with their history), and
 * sources among them are marked missing in their downstreams' rows.
 */
void
dv_catalog_forget_relations(List *relids)
{
	Oid			types[1] = {OIDARRAYOID};
	Datum		values[1];
	Datum	   *elems = palloc(sizeof(Datum) * Max(list_length(relids), 1));
	int			n = 0;
	ListCell   *lc;

	foreach(lc, relids)
		elems[n++] = ObjectIdGetDatum(lfirst_oid(lc));
	values[0] = PointerGetDatum(construct_array(elems, n, OIDOID, sizeof(Oid), true, TYPALIGN_INT));

	dv_catalog_exec("DELETE FROM dynview.source_catalog WHERE relid::oid = ANY ($1)",
					1, types, values, NULL, -1);
	dv_catalog_exec("UPDATE dynview.source_catalog SET source_relid = 0 WHERE source_relid = ANY ($1)",
					1, types, values, NULL, -1);
	dv_catalog_exec("DELETE FROM dynview.refresh_history WHERE name::oid = ANY ($1)",
					1, types, values, NULL, -1);
	dv_catalog_exec("DELETE FROM dynview.dynamic_table_catalog WHERE relid::oid = ANY ($1)",
					1, types, values, NULL, -1);
	dv_partitioned_forget(values[0]);
	foreach(lc, relids)
	{
		dv_guard_invalidate(lfirst_oid(lc));
		dv_agg_state_drop(lfirst_oid(lc));
	}
}

static void
closure_visit(Oid relid, List **visited, List **order)
{
	DvTable    *dt;
	ListCell   *lc;

	if (list_member_oid(*visited, relid))
		return;
	*visited = lappend_oid(*visited, relid);
	dt = dv_catalog_load(relid);
	foreach(lc, dt->sources)
	{
		DvSource   *src = lfirst(lc);

		if (src->is_dynamic)
			closure_visit(src->relid, visited, order);
	}
	*order = lappend_oid(*order, relid);
}

/*
 * dv_catalog_upstream_closure - relid and every dynamic table it reads,
 * directly or not, in topological order (upstreams first, relid last).
 */
List *
dv_catalog_upstream_closure(Oid relid)
{
	List	   *visited = NIL;
	List	   *order = NIL;

	closure_visit(relid, &visited, &order);
	return order;
}

/*
 * dv_catalog_reaches - does the dynamic table from_relid read, directly or
 * through other dynamic tables, a relation named schema_name.table_name
 * (present or missing)?  Used to reject dependency cycles.
 */
bool
dv_catalog_reaches(Oid from_relid, const char *schema_name, const char *table_name)
{
	Oid			types[3] = {OIDOID, TEXTOID, TEXTOID};
	Datum		values[3];

	values[0] = ObjectIdGetDatum(from_relid);
	values[1] = CStringGetTextDatum(schema_name);
	values[2] = CStringGetTextDatum(table_name);
	dv_catalog_exec("WITH RECURSIVE up(relid) AS ("
					"  SELECT $1::regclass "
					"  UNION "
					"  SELECT s.source_relid::regclass FROM dynview.source_catalog s "
					"  JOIN up ON s.relid = up.relid WHERE s.source_relid <> 0) "
					"SELECT 1 FROM dynview.source_catalog s JOIN up ON s.relid = up.relid "
					"WHERE s.source_schema = $2 AND s.source_name = $3 LIMIT 1",
					3, types, values, NULL, -1);
	return SPI_processed > 0;
}

static char *current_name(Oid relid, char **schema);

/*
 * history_outcome - the history row of a refresh that did not run to its end
 * (state FAILED, UPSTREAM_FAILED or SKIPPED, with a reason code and text or
 * an error message), replacing its RUNNING row and keeping that row's
 * refresh_id and start_time; the catalog's last_refresh_state follows.  A
 * counted failure raises consecutive_failures and suspends the table after
 * dynview.max_consecutive_failures in a row.  Needs SPI and a transaction.
 *
 * It never waits for a lock: when another transaction holds the table's
 * catalog row (a manual refresh of the table, an alteration, not yet
 * committed), the history row is written and the catalog row is left as it
 * is; that transaction's own outcome sets it when it commits (a successful
 * refresh resets consecutive_failures anyway).  Waiting there held up the
 * scheduler for as long as the other transaction stayed open, past
 * dynview.lock_timeout, and with it every other pipeline of the database.
 */
static void
history_outcome(Oid relid, DvRefreshTrigger trigger, const char *state, bool count_failure,
				const char *reason_code, const char *reason, const char *message)
{
	Oid			types[12] = {OIDOID, TEXTOID, INT4OID, TEXTOID, TEXTOID, INT8OID, TIMESTAMPTZOID,
	TEXTOID, TEXTOID, BOOLOID, TEXTOID, TEXTOID};
	Datum		values[12];
	char		nulls[13] = "            ";
	char	   *schema;
	char	   *name = current_name(relid, &schema);

	values[0] = ObjectIdGetDatum(relid);
	text_param(message, &values[1], &nulls[1]);
	values[2] = Int32GetDatum(dv_max_consecutive_failures);
	values[3] = CStringGetTextDatum(state);
	values[4] = CStringGetTextDatum(trigger_names[trigger]);
	values[5] = take_running_id(relid, &nulls[5], &values[6], &nulls[6]);
	text_param(reason_code, &values[7], &nulls[7]);
	text_param(reason, &values[8], &nulls[8]);
	values[9] = BoolGetDatum(count_failure);
	/* named as a refresh's own row and a RUNNING row are: the relation's current name */
	text_param(schema, &values[10], &nulls[10]);
	text_param(name, &values[11], &nulls[11]);
	dv_catalog_exec("WITH l AS (SELECT relid FROM dynview.dynamic_table_catalog WHERE relid = $1::regclass "
					"  FOR NO KEY UPDATE SKIP LOCKED), "
					"c AS (UPDATE dynview.dynamic_table_catalog t "
					"  SET consecutive_failures = consecutive_failures + $10::int, last_refresh_state = $4, "
					"      scheduling_state = CASE WHEN $10 AND $3 > 0 AND consecutive_failures + 1 >= $3 "
					"                              THEN 'SUSPENDED' ELSE scheduling_state END, "
					"      suspend_reason = CASE WHEN $10 AND $3 > 0 AND consecutive_failures + 1 >= $3 "
					"                            THEN 'SUSPENDED_DUE_TO_ERRORS' ELSE suspend_reason END "
					"  FROM l WHERE t.relid = l.relid) "
					"INSERT INTO dynview.refresh_history (refresh_id, name, schema_name, table_name, state, refresh_mode, "
					"  refresh_trigger, start_time, end_time, duration_ms, rows_inserted, rows_deleted, "
					"  mode_reason_code, mode_reason, error_message) "
					"SELECT coalesce($6, nextval('dynview.refresh_history_refresh_id_seq')), "
					"  relid, coalesce($11, schema_name), coalesce($12, table_name), $4, NULL, $5, coalesce($7, clock_timestamp()), "
					"  clock_timestamp(), extract(epoch FROM clock_timestamp() - coalesce($7, clock_timestamp())) * 1000, "
					"  0, 0, $8, $9, $2 FROM dynview.dynamic_table_catalog WHERE relid = $1::regclass",
					12, types, values, nulls, -1);
}

/*
 * dv_error_text - an error's message with its detail and hint, as psql
 * prints them: what a FAILED history row and the server log keep of a
 * refresh's error (the detail often holds the cause, the hint the remedy)
 */
char *
dv_error_text(const ErrorData *edata)
{
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfoString(&buf, edata->message ? edata->message : "(no message)");
	if (edata->detail)
		appendStringInfo(&buf, "\nDETAIL:  %s", edata->detail);
	if (edata->hint)
		appendStringInfo(&buf, "\nHINT:  %s", edata->hint);
	return buf.data;
}

/*
 * dv_log_error_and_abort - in a background worker's PG_CATCH: switch to
 * memory context cxt (the caller's, outside the failed transaction), log
 * the error being handled at LOG as "dynview: <what> failed: <message>",
 * and abort the transaction, so that the worker goes on with its next
 * task.  For work whose failure only delays it to a later turn (vacuuming
 * pruned change buffers, dropping expired partitions).
 */
void
dv_log_error_and_abort(MemoryContext cxt, const char *what)
{
	ErrorData  *edata;

	MemoryContextSwitchTo(cxt);
	edata = CopyErrorData();
	FlushErrorState();
	AbortCurrentTransaction();
	ereport(LOG,
			(errmsg("dynview: %s failed: %s", what, edata->message)));
	FreeErrorData(edata);
}

/*
 * current_name - relid's current name, and its schema's in *schema (both
 * palloc'd, unquoted), or NULL (*schema NULL) for a dropped relation.  What
 * history rows name a table by, whichever path writes them.
 */
static char *
current_name(Oid relid, char **schema)
{
	char	   *name = get_rel_name(relid);

	*schema = name ? get_namespace_name(get_rel_namespace(relid)) : NULL;
	return *schema ? name : NULL;
}

/* relid's schema-qualified, quoted name (palloc'd), or "?" for a dropped relation */
char *
dv_relation_qualified_name(Oid relid)
{
	char	   *schema;
	char	   *name = current_name(relid, &schema);

	return name ? quote_qualified_identifier(schema, name) : pstrdup("?");
}

/*
 * dv_history_failure - a scheduled refresh of relid failed (state FAILED,
 * with the error) or was skipped because an upstream failed (state
 * UPSTREAM_FAILED): write its history row and count the failure; after
 * dynview.max_consecutive_failures failures in a row the table is
 * SUSPENDED (SUSPENDED_DUE_TO_ERRORS).
 */
void
dv_history_failure(Oid relid, DvRefreshTrigger trigger, const char *state, const char *message)
{
	history_outcome(relid, trigger, state, true, NULL, NULL, message);
	/* failures always reach the server log (successes only with dynview.log_refreshes) */
	ereport(LOG,
			(errmsg("dynview: %s refresh of dynamic table \"%s\" %s",
					trigger_names[trigger], dv_relation_qualified_name(relid),
					strcmp(state, "FAILED") == 0 ? "failed" : "skipped: an upstream failed"),
			 errdetail_internal("%s", message),
			 errhint("dynview.refresh_history has the row; dynview.dynamic_tables shows consecutive_failures and whether the table is suspended.")));
}

static Datum write_history_row(Relation rel, HeapTuple tup, const bool *set, bool required);
static void set_text_value(TupleDesc desc, Datum *values, bool *nulls, bool *set, const char *name, const char *text);
static void set_value(TupleDesc desc, Datum *values, bool *nulls, bool *set, const char *name, Datum value);

/* a refresh_history row being formed (history_row_begin) */
typedef struct HistoryRow
{
	TupleDesc	desc;
	Datum	   *values;
	bool	   *nulls;
	bool	   *set;
} HistoryRow;

static Relation history_open(void);
static Datum history_next_id(Relation rel);
static void history_row_begin(HistoryRow *row, Relation rel, Datum refresh_id, Oid relid,
							  const char *schema, const char *table, const char *state,
							  DvRefreshTrigger trigger, TimestampTz start);
static Datum history_row_write(HistoryRow *row, Relation rel, bool required);

/*
 * Refreshes announced as RUNNING (dv_history_begin_running): the committed
 * RUNNING row of each table of the pipeline the scheduler is refreshing.
 * The refresh's own history row replaces it, with the same refresh_id, in
 * the refreshing transaction (take_running_id): other sessions see RUNNING
 * until that transaction commits, then the outcome.  Backend-local, in
 * TopMemoryContext; emptied by dv_history_end_running.
 */
typedef struct RunningRow
{
	Oid			relid;
	int64		refresh_id;
} RunningRow;

static List *running_rows = NIL;

/*
 * take_running_id - if relid was announced RUNNING, delete that row in the
 * current transaction and return its refresh_id for the row that replaces
 * it; else NULL.  (An abort undoes the delete: the row is RUNNING again and
 * stays announced.)
 */
static Datum
take_running_id(Oid relid, char *null, Datum *start, char *start_null)
{
	ListCell   *lc;

	if (start_null)
		*start_null = 'n';

	foreach(lc, running_rows)
	{
		RunningRow *r = lfirst(lc);
		Oid			types[1] = {INT8OID};
		Datum		values[1];

		if (r->relid != relid)
			continue;
		values[0] = Int64GetDatum(r->refresh_id);
		dv_catalog_exec("DELETE FROM dynview.refresh_history WHERE refresh_id = $1 AND state = 'RUNNING' "
						"RETURNING start_time",
						1, types, values, NULL, -1);
		if (SPI_processed == 0)
			break;				/* replaced already */
		if (start)
		{
			bool		isnull;

			*start = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
			*start_null = isnull ? 'n' : ' ';
		}
		*null = ' ';
		return Int64GetDatum(r->refresh_id);
	}
	*null = 'n';
	return (Datum) 0;
}

/*
 * dv_history_begin_running - write and commit-to-be a RUNNING row for every
 * table of the pipeline of root (root with trigger, its upstreams with
 * UPSTREAM), so that a DBA sees from another session what the scheduler is
 * refreshing.  The rows are formed here and written directly, as a
 * refresh's own row is (write_history_row), in the pipeline's order
 * (upstreams first: their refresh_ids ascend as the refreshes run), named
 * as that row will be (the relation's current name).  Call in a transaction
 * of its own, committed before the refresh starts; needs SPI.
 */
void
dv_history_begin_running(Oid root, DvRefreshTrigger trigger)
{
	List	   *tables = dv_catalog_upstream_closure(root);
	Relation	rel;
	ListCell   *lc;

	dv_history_end_running();
	rel = history_open();
	foreach(lc, tables)
	{
		Oid			relid = lfirst_oid(lc);
		char	   *schema;
		char	   *name = current_name(relid, &schema);
		HistoryRow	row;
		Datum		stored;
		bool		isnull;
		MemoryContext old;
		RunningRow *r;

		if (name == NULL)
			continue;			/* (dropped meanwhile) */
		history_row_begin(&row, rel, history_next_id(rel), relid, schema, name, "RUNNING",
						  relid == root ? trigger : DV_TRIGGER_UPSTREAM, GetCurrentTimestamp());

		/*
		 * (a DBA's BEFORE trigger may skip the row, or give it another
		 * refresh_id: the row stored is the one announced)
		 */
		stored = history_row_write(&row, rel, false);
		if (stored == (Datum) 0)
			continue;
		old = MemoryContextSwitchTo(TopMemoryContext);
		r = palloc(sizeof(RunningRow));
		r->relid = relid;
		r->refresh_id = DatumGetInt64(GetAttributeByName(DatumGetHeapTupleHeader(stored), "refresh_id", &isnull));
		running_rows = lappend(running_rows, r);
		MemoryContextSwitchTo(old);
	}
	table_close(rel, NoLock);
}

/*
 * dv_history_delete_running - delete the announced RUNNING rows that no
 * outcome replaced (tables the refresh did not record, upstreams of a
 * pipeline that failed as a whole), in one statement, and remember them
 * still: the scheduler deletes them in the pipeline's own transaction,
 * which may yet fail to commit.  Needs a transaction and SPI when rows were
 * announced.
 */
void
dv_history_delete_running(void)
{
	Oid			types[1] = {INT8ARRAYOID};
	Datum		values[1];
	Datum	   *elems;
	int			n = 0;
	ListCell   *lc;

	if (running_rows == NIL)
		return;
	elems = palloc(sizeof(Datum) * list_length(running_rows));
	foreach(lc, running_rows)
		elems[n++] = Int64GetDatum(((RunningRow *) lfirst(lc))->refresh_id);
	values[0] = PointerGetDatum(construct_array(elems, n, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
	dv_catalog_exec("DELETE FROM dynview.refresh_history WHERE refresh_id = ANY ($1) AND state = 'RUNNING'",
					1, types, values, NULL, -1);
}

/*
 * dv_history_forget_running - forget the announced rows (once the
 * transaction that deleted or replaced them committed).
 */
void
dv_history_forget_running(void)
{
	list_free_deep(running_rows);
	running_rows = NIL;
}

/*
 * dv_history_end_running - the announced pipeline is over: delete the
 * RUNNING rows that no outcome replaced (dv_history_delete_running) and
 * forget them.  Needs a transaction and SPI when rows were announced.
 */
void
dv_history_end_running(void)
{
	dv_history_delete_running();
	dv_history_forget_running();
}

/*
 * dv_history_interrupted - RUNNING rows left by a scheduler that stopped
 * (crash, restart) become FAILED.  Called by the scheduler at its start,
 * when no refresh of its can be running; needs SPI.
 */
void
dv_history_interrupted(void)
{
	dv_catalog_exec("UPDATE dynview.refresh_history SET state = 'FAILED', end_time = clock_timestamp(), "
					"  duration_ms = extract(epoch FROM clock_timestamp() - start_time) * 1000, "
					"  error_message = 'The refresh was interrupted: the server or the scheduler stopped while it ran.' "
					"WHERE state = 'RUNNING'", 0, NULL, NULL, NULL, -1);
}

/*
 * dv_history_worker_stopped - RUNNING rows of tables (relids) left by a
 * refresh worker that stopped (terminated, crashed) become FAILED.  Called by
 * the scheduler once the worker has exited, when no other refresh of those
 * tables can be running; needs SPI.
 */
void
dv_history_worker_stopped(List *relids)
{
	ListCell   *lc;

	foreach(lc, relids)
	{
		Oid			types[1] = {OIDOID};
		Datum		values[1];

		values[0] = ObjectIdGetDatum(lfirst_oid(lc));
		dv_catalog_exec("UPDATE dynview.refresh_history SET state = 'FAILED', end_time = clock_timestamp(), "
						"  duration_ms = extract(epoch FROM clock_timestamp() - start_time) * 1000, "
						"  error_message = 'The refresh was interrupted: its refresh worker stopped while it ran.' "
						"WHERE state = 'RUNNING' AND name = $1::regclass", 1, types, values, NULL, -1);
	}
}

/*
 * dv_lock_timeout_reason - the history text of a refresh given up after
 * dynview.lock_timeout (message: the lock wait's error).
 */
char *
dv_lock_timeout_reason(const char *message)
{
	return psprintf("A lock was not granted within dynview.lock_timeout (%d ms): %s. "
					"The refresh is retried at the next cycle.", dv_lock_timeout, message);
}

/*
 * dv_history_skipped - record that a refresh of relid did not run now and
 * will be retried (state SKIPPED, with a reason code and text): unlike a
 * failure it does not count towards dynview.max_consecutive_failures.
 * Needs SPI and a transaction.
 */
void
dv_history_skipped(Oid relid, DvRefreshTrigger trigger, const char *reason_code,
				   const char *reason)
{
	history_outcome(relid, trigger, "SKIPPED", false, reason_code, reason, NULL);
	ereport(LOG,
			(errmsg("dynview: %s refresh of dynamic table \"%s\" skipped (%s)",
					trigger_names[trigger], dv_relation_qualified_name(relid), reason_code),
			 errdetail_internal("%s", reason)));
}

/*
 * dv_catalog_reads_source - is source (a relation's OID) among the sources
 * of dynamic table relid, as source_catalog says now (a direct read, with
 * the snapshot a statement would take)?
 */
bool
dv_catalog_reads_source(Oid relid, Oid source)
{
	ListCell   *lc;

	if (!OidIsValid(source))
		return false;
	foreach(lc, load_sources(relid, NULL))
	{
		if (((DvSource *) lfirst(lc))->relid == source)
			return true;
	}
	return false;
}

/*
 * dv_catalog_readers - the dynamic tables (relids) of whose sources source
 * is one (dv_catalog_reads_source), by OID, in the caller's memory context:
 * the rows of source_catalog with that source_relid (its index on the
 * column), as a statement would read them now.  Needs a transaction.
 */
List *
dv_catalog_readers(Oid source)
{
	List	   *readers = NIL;
	Oid			nsp = get_namespace_oid(DV_SCHEMA, false);
	Oid			tableid = get_relname_relid("source_catalog", nsp);
	Oid			indexid = get_relname_relid("source_catalog_source_relid_idx", nsp);
	Snapshot	snapshot;
	Relation	rel;
	SysScanDesc scan;
	ScanKeyData key;
	HeapTuple	tup;
	AttrNumber	relid_col;

	if (!OidIsValid(source))
		return NIL;
	if (!OidIsValid(tableid) || !OidIsValid(indexid))
		elog(ERROR, "dynview catalog source_catalog or its index source_catalog_source_relid_idx does not exist");
	/* as a catalog statement would (see catalog_read_begin) */
	CommandCounterIncrement();
	snapshot = RegisterSnapshot(GetTransactionSnapshot());
	rel = table_open(tableid, AccessShareLock);
	relid_col = catalog_column(RelationGetDescr(rel), "relid");
	ScanKeyInit(&key, catalog_column(RelationGetDescr(rel), "source_relid"), BTEqualStrategyNumber,
				F_OIDEQ, ObjectIdGetDatum(source));
	scan = systable_beginscan(rel, indexid, true, snapshot, 1, &key);
	while (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		bool		isnull;
		Oid			relid = DatumGetObjectId(heap_getattr(tup, relid_col, RelationGetDescr(rel), &isnull));

		if (!isnull)
			readers = list_append_unique_oid(readers, relid);
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	UnregisterSnapshot(snapshot);
	list_sort(readers, list_oid_cmp);
	return readers;
}

/*
 * source_tables_json - refresh_history.source_tables of relid's row now, as
 * JSON text: [{"name": ..., "oid": ..., "dynamic_table": ...}, ...] by
 * (schema, name); a source that exists is named as regclass's output names
 * it with search_path "pg_catalog, pg_temp", a missing one (oid null) by its
 * recorded quoted name.  Built here rather than by a subquery of the history
 * INSERT, which every connection's first refresh planned.
 */
static char *
source_tables_json(Oid relid)
{
	StringInfoData buf;
	ListCell   *lc;
	int			nestlevel = dv_safe_search_path_push();

	initStringInfo(&buf);
	appendStringInfoChar(&buf, '[');
	foreach(lc, load_sources(relid, NULL))
	{
		DvSource   *src = lfirst(lc);

		if (buf.len > 1)
			appendStringInfoString(&buf, ", ");
		appendStringInfoString(&buf, "{\"name\": ");
		escape_json(&buf, OidIsValid(src->relid) ?
					DatumGetCString(DirectFunctionCall1(regclassout, ObjectIdGetDatum(src->relid))) :
					quote_qualified_identifier(src->schema_name, src->table_name));
		if (OidIsValid(src->relid))
			appendStringInfo(&buf, ", \"oid\": %u", src->relid);
		else
			appendStringInfoString(&buf, ", \"oid\": null");
		appendStringInfo(&buf, ", \"dynamic_table\": %s}", src->is_dynamic ? "true" : "false");
	}
	appendStringInfoChar(&buf, ']');
	dv_safe_search_path_pop(nestlevel);
	return buf.data;
}

/*
 * set the named column of a row being formed (heap_form_tuple's arrays) and
 * mark it in set; NULL text is SQL NULL
 */
static void
set_text_value(TupleDesc desc, Datum *values, bool *nulls, bool *set, const char *name, const char *text)
{
	set_row_column(desc, values, nulls, set, name, text ? CStringGetTextDatum(text) : (Datum) 0,
				   text == NULL);
}

static void
set_value(TupleDesc desc, Datum *values, bool *nulls, bool *set, const char *name, Datum value)
{
	set_row_column(desc, values, nulls, set, name, value, false);
}

/*
 * insert_row - insert tuple into rel (opened with RowExclusiveLock) as an
 * INSERT statement would, through the executor's routines
 * (ExecSimpleRelationInsert: the relation's constraints checked, its
 * indexes written, unique ones checked), without parsing and planning a
 * statement.  The guard sees the write (dv_guard_note_write).  For a
 * relation without triggers and rules only: the caller writes through SQL
 * otherwise, so that whatever a DBA attached runs as it would
 * (dba_attached).
 */
static void
insert_row(Relation rel, HeapTuple tuple)
{
	EState	   *estate;
	ResultRelInfo *rri;
	TupleTableSlot *slot;

	Assert(!dba_attached(rel));
	dv_guard_note_write(RelationGetRelid(rel));
	/* (as SPI does before a statement that writes) */
	CommandCounterIncrement();
	estate = simple_write_begin(rel, NULL, &rri);
	slot = ExecInitExtraTupleSlot(estate, RelationGetDescr(rel), &TTSOpsHeapTuple);
	ExecStoreHeapTuple(tuple, slot, false);
	ExecSimpleRelationInsert(rri, estate, slot);
	simple_write_end(estate, rri);
}

/*
 * write_history_row - store tup, a row of refresh_history (rel, opened with
 * RowExclusiveLock) whose columns set[] marks as set by the caller.  The
 * row is written directly (insert_row): as an INSERT statement it was
 * parsed and planned once per connection, ~1.5 ms of every new
 * connection's first refresh (bench/README.md, fifteenth and sixteenth
 * sessions), and each scheduled pipeline's RUNNING rows cost a statement
 * (~0.6 ms, thirty-first session).  A history table given triggers or rules
 * (dba_attached), or a column with a default or an identity that dynview
 * does not set (a DBA's), is written by an INSERT of the columns set, as
 * before the direct write: the others get their defaults (formed here, the
 * row held NULL there, and a NOT NULL such column failed every refresh:
 * regress brk17_catalog_triggers).  Returns the row stored (what defaults
 * and BEFORE triggers made of it) as a composite Datum of type
 * dynview.refresh_history, copied into the memory context that was current
 * at SPI_connect; (Datum) 0 if a BEFORE trigger skipped it, which is an
 * error when required.  Needs SPI.
 */
static Datum
write_history_row(Relation rel, HeapTuple tup, const bool *set, bool required)
{
	TupleDesc	desc = RelationGetDescr(rel);
	bool		unset_default = false;
	Datum		result = (Datum) 0;

	/*
	 * (a column a DBA added with a default, or an identity column, whose
	 * value comes from its sequence and not from pg_attrdef: the row formed
	 * here would hold NULL there, and a refresh fail on its NOT NULL;
	 * regress brk18_history_identity)
	 */
	for (int i = 0; i < desc->natts; i++)
		if (!set[i] && !TupleDescAttr(desc, i)->attisdropped &&
			(TupleDescAttr(desc, i)->atthasdef || TupleDescAttr(desc, i)->attidentity != '\0'))
			unset_default = true;
	if (!unset_default && !dba_attached(rel))
	{
		insert_row(rel, tup);
		result = PointerGetDatum(SPI_returntuple(tup, desc));
	}
	else
	{
		/* an INSERT naming the columns set here, as before: the others get their defaults */
		Oid			types[1] = {desc->tdtypeid};
		Datum		row[1] = {HeapTupleGetDatum(tup)};
		StringInfoData columns;
		StringInfoData fields;

		initStringInfo(&columns);
		initStringInfo(&fields);
		for (int i = 0; i < desc->natts; i++)
			if (set[i])
			{
				const char *name = quote_identifier(NameStr(TupleDescAttr(desc, i)->attname));

				appendStringInfo(&columns, "%s%s", columns.len ? ", " : "", name);
				appendStringInfo(&fields, "%s($1).%s", fields.len ? ", " : "", name);
			}
		dv_catalog_exec(psprintf("INSERT INTO dynview.refresh_history AS dv_h (%s) SELECT %s RETURNING dv_h",
								 columns.data, fields.data),
						1, types, row, NULL, required ? 1 : -1);

		/*
		 * (the row stored, what defaults and BEFORE triggers made of it, as a
		 * value of the table's row type: dropped columns included)
		 */
		if (SPI_processed == 1)
		{
			bool		isnull;

			result = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
			result = SPI_datumTransfer(result, false, -1);
		}
	}
	return result;
}

/*
 * history_open - refresh_history, opened with RowExclusiveLock for a
 * direct write (closed by the caller, lock kept)
 */
static Relation
history_open(void)
{
	return table_open(get_relname_relid("refresh_history", get_namespace_oid(DV_SCHEMA, false)),
					  RowExclusiveLock);
}

/* the next refresh_id of refresh_history (open as rel) */
static Datum
history_next_id(Relation rel)
{
	return Int64GetDatum(nextval_internal(get_relname_relid("refresh_history_refresh_id_seq",
															RelationGetNamespace(rel)), false));
}

/*
 * history_row_begin - start row, a refresh_history row of rel (palloc'd
 * arrays, every column NULL and not set) with the columns every history
 * row has: refresh_id, name, schema_name, table_name, state,
 * refresh_trigger, start_time.  The caller sets its own columns with
 * set_value and set_text_value, then writes it with history_row_write.
 */
static void
history_row_begin(HistoryRow *row, Relation rel, Datum refresh_id, Oid relid,
				  const char *schema, const char *table, const char *state,
				  DvRefreshTrigger trigger, TimestampTz start)
{
	TupleDesc	desc = RelationGetDescr(rel);

	row->desc = desc;
	row->values = palloc0(desc->natts * sizeof(Datum));
	row->nulls = palloc(desc->natts * sizeof(bool));
	row->set = palloc0(desc->natts * sizeof(bool));
	memset(row->nulls, true, desc->natts * sizeof(bool));
	set_value(desc, row->values, row->nulls, row->set, "refresh_id", refresh_id);
	set_value(desc, row->values, row->nulls, row->set, "name", ObjectIdGetDatum(relid));
	set_text_value(desc, row->values, row->nulls, row->set, "schema_name", schema);
	set_text_value(desc, row->values, row->nulls, row->set, "table_name", table);
	set_text_value(desc, row->values, row->nulls, row->set, "state", state);
	set_text_value(desc, row->values, row->nulls, row->set, "refresh_trigger", trigger_names[trigger]);
	set_value(desc, row->values, row->nulls, row->set, "start_time", TimestampTzGetDatum(start));
}

/* history_row_write - write row (write_history_row: the row stored, or 0) */
static Datum
history_row_write(HistoryRow *row, Relation rel, bool required)
{
	return write_history_row(rel, heap_form_tuple(row->desc, row->values, row->nulls), row->set, required);
}

/*
 * dv_history_insert - write one refresh_history row and return it as a
 * composite Datum of type dynview.refresh_history, copied into the memory
 * context that was current at SPI_connect: the row stored
 * (write_history_row, directly or by an INSERT).
 */
Datum
dv_history_insert(DvTable *dt, DvRefreshTrigger trigger, DvRefreshResult *res)
{
	Relation	rel = history_open();
	HistoryRow	row;
	TupleDesc	desc = RelationGetDescr(rel);
	char		running_null;
	Datum		running;
	Datum		result;
	Datum	   *values;
	bool	   *nulls;
	bool	   *set;

	/* the RUNNING row the scheduler announced, if any, is replaced (same refresh_id) */
	running = take_running_id(dt->relid, &running_null, NULL, NULL);
	history_row_begin(&row, rel, running_null == 'n' ? history_next_id(rel) : running, dt->relid,
					  dt->schema_name, dt->table_name, res->state, trigger, res->start_time);
	values = row.values;
	nulls = row.nulls;
	set = row.set;
	set_text_value(desc, values, nulls, set, "refresh_mode", res->refresh_mode);
	set_value(desc, values, nulls, set, "end_time", TimestampTzGetDatum(res->end_time));
	/* (as extract(epoch FROM end_time - start_time) * 1000 rounds it) */
	set_value(desc, values, nulls, set, "duration_ms",
			  Float8GetDatum((double) (res->end_time - res->start_time) / 1000.0));
	set_value(desc, values, nulls, set, "rows_inserted", Int64GetDatum(res->rows_inserted));
	set_value(desc, values, nulls, set, "rows_deleted", Int64GetDatum(res->rows_deleted));
	set_value(desc, values, nulls, set, "source_tables",
			  DirectFunctionCall1(jsonb_in, CStringGetDatum(source_tables_json(dt->relid))));
	set_row_column(desc, values, nulls, set, "data_snapshot", res->data_snapshot
				   ? DirectFunctionCall1(pg_snapshot_in, CStringGetDatum(res->data_snapshot)) : (Datum) 0,
				   res->data_snapshot == NULL);
	set_row_column(desc, values, nulls, set, "data_lsn", LSNGetDatum(res->data_lsn),
				   res->data_lsn == InvalidXLogRecPtr);
	set_text_value(desc, values, nulls, set, "mode_reason_code", res->mode_reason_code);
	set_text_value(desc, values, nulls, set, "mode_reason", res->mode_reason);
	set_text_value(desc, values, nulls, set, "error_message", res->error_message);
	result = history_row_write(&row, rel, true);
	table_close(rel, NoLock);
	if (dv_log_refreshes)
		ereport(LOG,
				(errmsg("dynview: refresh of \"%s.%s\" (%s): %s %s, %lld rows inserted, %lld deleted",
						dt->schema_name, dt->table_name, trigger_names[trigger], res->state,
						res->refresh_mode ? res->refresh_mode : "-",
						(long long) res->rows_inserted, (long long) res->rows_deleted)));
	return result;
}

/* a text column of relid's catalog row, or NULL (the column is one of ours, not user text) */
static char *
get_text_column(Oid relid, const char *column)
{
	CatalogRead read;
	HeapTuple	tup;
	char	   *value = NULL;

	catalog_read_begin(&read, DV_CATALOG_TABLE, DV_CATALOG_TABLE "_pkey", relid, NULL);
	tup = systable_getnext(read.scan);
	if (HeapTupleIsValid(tup))
		value = catalog_text(tup, RelationGetDescr(read.rel), column);
	catalog_read_end(&read);
	return value;
}

/* the definition signature of relid's last refresh, or NULL (see refresh.c) */
char *
dv_catalog_get_signature(Oid relid)
{
	return get_text_column(relid, "definition_signature");
}

void
dv_catalog_set_signature(Oid relid, const char *signature)
{
	set_text_column(relid, "definition_signature", signature);
}

/*
 * dv_catalog_get_definition_tree - relid's definition as an analysed query
 * tree (nodeToString text), or NULL if none is kept (created before it was,
 * or restored from another database).
 */
char *
dv_catalog_get_definition_tree(Oid relid)
{
	return get_text_column(relid, "definition_tree");
}

void
dv_catalog_set_definition_tree(Oid relid, const char *tree)
{
	set_text_column(relid, "definition_tree", tree);
}

/*
 * the definition, deparsed again after a source column was renamed; it
 * replaces the query text shown (dynamic_tables.query) too: the user's text
 * names the old columns, and after names were swapped (a to b, b to a) it
 * reads as another query (as pg_views shows a view's rule deparsed)
 */
void
dv_catalog_set_definition(Oid relid, const char *definition)
{
	set_text_column(relid, "definition", definition);
	set_text_column(relid, "query", definition);
}

PG_FUNCTION_INFO_V1(dynview_source_signature);

/* qsort comparator of C strings */
static int
compare_strings(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

/*
 * append_unique_indexes - append to buf what the keys the analyser derives
 * from relid's unique indexes rest on (analyze/keys.c, and the apply index
 * a dynamic table is given from them): for each valid unique index its key
 * columns, operator classes, collations, whether it is immediate, NULLS NOT
 * DISTINCT, partial or on expressions.  The entries are sorted, so an index
 * dropped and created again alike leaves the signature as it was.  Read
 * from pg_index by indrelid without locking relid (a refresh asks for every
 * source's signature, and must not wait behind DDL on one to ask).
 */
static void
append_unique_indexes(StringInfo buf, Oid relid)
{
	Relation	pg_index = table_open(IndexRelationId, AccessShareLock);
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;
	List	   *entries = NIL;
	char	  **sorted;
	int			n = 0;
	ListCell   *lc;

	ScanKeyInit(&key, Anum_pg_index_indrelid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(relid));
	scan = systable_beginscan(pg_index, IndexIndrelidIndexId, true, NULL, 1, &key);
	while (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		Form_pg_index index = (Form_pg_index) GETSTRUCT(tup);
		StringInfoData entry;
		bool		isnull;
		oidvector  *indclass;
		oidvector  *indcoll;

		if (!index->indisunique || !index->indisvalid || !index->indislive)
			continue;
		indclass = (oidvector *) DatumGetPointer(heap_getattr(tup, Anum_pg_index_indclass,
															  RelationGetDescr(pg_index), &isnull));
		indcoll = (oidvector *) DatumGetPointer(heap_getattr(tup, Anum_pg_index_indcollation,
															 RelationGetDescr(pg_index), &isnull));
		initStringInfo(&entry);
		appendStringInfo(&entry, "u%c%c%c%c(",
						 index->indimmediate ? 'i' : 'd',
						 index->indnullsnotdistinct ? 'n' : 'd',
						 heap_attisnull(tup, Anum_pg_index_indpred, NULL) ? '-' : 'p',
						 heap_attisnull(tup, Anum_pg_index_indexprs, NULL) ? '-' : 'e');
		for (int k = 0; k < index->indnkeyatts; k++)
			appendStringInfo(&entry, "%s%d %u %u", k > 0 ? "," : "", index->indkey.values[k],
							 indclass->values[k], indcoll->values[k]);
		appendStringInfoChar(&entry, ')');
		entries = lappend(entries, entry.data);
	}
	systable_endscan(scan);
	table_close(pg_index, AccessShareLock);

	if (entries == NIL)
		return;
	sorted = palloc(sizeof(char *) * list_length(entries));
	foreach(lc, entries)
		sorted[n++] = lfirst(lc);
	qsort(sorted, n, sizeof(char *), compare_strings);
	for (int i = 0; i < n; i++)
		appendStringInfo(buf, ";%s", sorted[i]);
}

/*
 * dynview._source_signature(relid oid) - a source's shape: the signature
 * (dv_signature) of "<relfilenode>:<has children>:<attnum> <attname> <atttypid> <atttypmod>
 * <attcollation> <attnotnull>,...;<unique index>..." over its live columns
 * in order and its unique indexes (append_unique_indexes), or NULL when
 * the relation (or every column) is gone.  A change (ALTER ... TYPE or
 * COLLATE, a column dropped and added again, a rewrite, a primary key or
 * unique index dropped or added, NOT NULL set or dropped, a first
 * inheritance child) is invisible to change capture, and may change the
 * keys the table's plan derives from the source and the apply index built
 * on them, so a refresh that sees one is FULL (and gives the table the apply
 * index of its plan now).  Read from the system caches and pg_index, without
 * locking the source: a refresh asks for it for every source.
 */
Datum
dynview_source_signature(PG_FUNCTION_ARGS)
{
	char	   *signature = source_signature(PG_GETARG_OID(0));

	if (signature == NULL)
		PG_RETURN_NULL();
	PG_RETURN_TEXT_P(cstring_to_text(signature));
}

/* dynview._source_signature's value (palloc'd), or NULL */
static char *
source_signature(Oid relid)
{
	char	   *shape = source_shape(relid);

	return shape ? dv_signature(shape) : NULL;
}

/*
 * dv_error_to_retry - is edata an error that says to retry, not that the
 * statement cannot work: a lock not had (lock_timeout, NOWAIT), a cancel
 * (statement_timeout), a deadlock, a serialization failure?  Callers that
 * turn errors into their own with a hint pass these on as they are.
 */
bool
dv_error_to_retry(ErrorData *edata)
{
	return edata->sqlerrcode == ERRCODE_LOCK_NOT_AVAILABLE || edata->sqlerrcode == ERRCODE_QUERY_CANCELED ||
		edata->sqlerrcode == ERRCODE_T_R_DEADLOCK_DETECTED ||
		edata->sqlerrcode == ERRCODE_T_R_SERIALIZATION_FAILURE;
}

/*
 * dv_row_type_held - the composite type that a value of type typid holds:
 * typid itself, or the type of an array's elements, a domain's base type, a
 * range's or multirange's bounds, followed down; InvalidOid if none.
 */
Oid
dv_row_type_held(Oid typid)
{
	for (int depth = 0; OidIsValid(typid) && depth < 32; depth++)
	{
		HeapTuple	tup = SearchSysCache1(TYPEOID, ObjectIdGetDatum(typid));
		Form_pg_type form;
		char		typtype;
		Oid			next;

		if (!HeapTupleIsValid(tup))
			return InvalidOid;
		form = (Form_pg_type) GETSTRUCT(tup);
		typtype = form->typtype;
		/* (one look at the type: most columns' types are none of these) */
		next = typtype == TYPTYPE_COMPOSITE ? typid :
			IsTrueArrayType(form) ? form->typelem :
			typtype == TYPTYPE_DOMAIN ? form->typbasetype : InvalidOid;
		ReleaseSysCache(tup);
		if (typtype == TYPTYPE_COMPOSITE)
			return typid;
		if (typtype == TYPTYPE_RANGE)
			next = get_range_subtype(typid);
		else if (typtype == TYPTYPE_MULTIRANGE)
			next = get_range_subtype(get_multirange_range(typid));
		typid = next;
	}
	return InvalidOid;
}

/*
 * append_row_type_shape - the attributes of the composite type that a
 * column of type typid holds (dv_row_type_held: directly, or as an array's
 * elements, a domain's base type, a range's bounds), and of the composites
 * they hold in turn: ALTER TYPE
 * ... ADD, DROP or ALTER ATTRIBUTE changes what such a column's values are
 * (a dropped attribute is no longer read, so values distinct before may be
 * equal now: a group key's) without changing the column itself.  Nothing
 * for other types.
 */
static void
append_row_type_shape(StringInfo buf, Oid typid, int depth)
{
	TupleDesc	desc;

	typid = dv_row_type_held(typid);
	/* (composites cannot contain themselves; the depth is a guard only) */
	if (!OidIsValid(typid) || depth > 16)
		return;
	desc = lookup_rowtype_tupdesc(typid, -1);
	appendStringInfoString(buf, "(");
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		/* (by number: an attribute dropped and added again is another one) */
		if (att->attisdropped)
			continue;
		appendStringInfo(buf, "%d %s %u %d %u ", i + 1, NameStr(att->attname), att->atttypid,
						 att->atttypmod, att->attcollation);
		append_row_type_shape(buf, att->atttypid, depth + 1);
	}
	appendStringInfoString(buf, ")");
	ReleaseTupleDesc(desc);
}

/*
 * source_shape - the text dynview._source_signature hashes (palloc'd), or
 * NULL when the relation (or every column) is gone
 */
static char *
source_shape(Oid relid)
{
	HeapTuple	tuple;
	int			natts;
	StringInfoData buf;
	bool		any = false;

	tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	if (!HeapTupleIsValid(tuple))
		return NULL;
	initStringInfo(&buf);
	appendStringInfo(&buf, "%u:%c:", ((Form_pg_class) GETSTRUCT(tuple))->relfilenode,
					 ((Form_pg_class) GETSTRUCT(tuple))->relhassubclass ? 'c' : '-');
	natts = ((Form_pg_class) GETSTRUCT(tuple))->relnatts;
	ReleaseSysCache(tuple);

	for (int attnum = 1; attnum <= natts; attnum++)
	{
		Form_pg_attribute att;

		tuple = SearchSysCache2(ATTNUM, ObjectIdGetDatum(relid), Int16GetDatum(attnum));
		if (!HeapTupleIsValid(tuple))
			continue;
		att = (Form_pg_attribute) GETSTRUCT(tuple);
		if (!att->attisdropped)
		{
			appendStringInfo(&buf, "%s%d %s %u %d %u %c", any ? "," : "", attnum,
							 NameStr(att->attname), att->atttypid, att->atttypmod,
							 att->attcollation, att->attnotnull ? 'n' : '-');
			append_row_type_shape(&buf, att->atttypid, 0);
			any = true;
		}
		ReleaseSysCache(tuple);
	}
	if (!any)
		return NULL;
	append_unique_indexes(&buf, relid);
	return buf.data;
}

/*
 * Signatures (a source's shape, a definition's analysed tree) are
 * DV_SIGNATURE_MARKER followed by 128 bits in hex: PostgreSQL's
 * hash_bytes_extended of the text under two seeds.  They only tell whether
 * something dynview itself wrote down changed (not a digest against
 * forgery: who can change a source's shape can refresh the table FULL
 * anyway).  Older builds stored the md5 of the same text (32 hex digits,
 * no marker); such a signature is compared as an md5 (dv_signature_matches)
 * until a refresh stores today's form, so that a table made by an older
 * build does not refresh FULL for a change that did not happen.  The hash
 * needs no digest provider: pg_md5_hash, in a build with OpenSSL, fetched
 * the digest from OpenSSL's provider store at its first use in a backend,
 * ~1.5 ms of every new connection's first refresh (bench/README.md,
 * fifteenth and sixteenth sessions).
 */
#define DV_SIGNATURE_MARKER "h1:"
#define DV_SIGNATURE_SEED1 UINT64CONST(0x6479766965773031)	/* "dyview01" */
#define DV_SIGNATURE_SEED2 UINT64CONST(0x6479766965773032)	/* "dyview02" */

/* dv_signature - the signature of text (palloc'd) */
char *
dv_signature(const char *text)
{
	int			len = strlen(text);
	uint64		h1 = hash_bytes_extended((const unsigned char *) text, len, DV_SIGNATURE_SEED1);
	uint64		h2 = hash_bytes_extended((const unsigned char *) text, len, DV_SIGNATURE_SEED2);

	return psprintf(DV_SIGNATURE_MARKER "%016" INT64_MODIFIER "x%016" INT64_MODIFIER "x", h1, h2);
}

/*
 * dv_signature_matches - is stored (a signature from the catalog) the
 * signature of text?  A stored signature without the marker was written by
 * an older build: the md5 of the text.
 */
bool
dv_signature_matches(const char *stored, const char *text)
{
	char		hex[MD5_DIGEST_LENGTH * 2 + 1];
	const char *errstr = NULL;

	if (strncmp(stored, DV_SIGNATURE_MARKER, strlen(DV_SIGNATURE_MARKER)) == 0)
		return strcmp(stored, dv_signature(text)) == 0;
	if (!pg_md5_hash(text, strlen(text), hex, &errstr))
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("could not compute the md5 of a signature stored by an older version of dynview: %s", errstr)));
	return strcmp(stored, hex) == 0;
}

PG_FUNCTION_INFO_V1(dynview_data_origin);

/*
 * dynview._data_origin() - "<system identifier>:<database oid>": where the
 * data snapshots recorded now belong.  A catalog row restored from another
 * database or cluster carries another one, and its data snapshot is not
 * trusted (the catalog's trigger drops it; the next refresh is RESTORED).
 */
Datum
dynview_data_origin(PG_FUNCTION_ARGS)
{
	PG_RETURN_TEXT_P(cstring_to_text(psprintf(UINT64_FORMAT ":%u", GetSystemIdentifier(), MyDatabaseId)));
}

PG_FUNCTION_INFO_V1(dynview_catalog_data_origin);

/*
 * set_row_column - the named column of a row being formed or modified
 * (heap_form_tuple's arrays; with replace, heap_modify_tuple's)
 */
static void
set_row_column(TupleDesc desc, Datum *values, bool *nulls, bool *replace, const char *name,
			   Datum value, bool isnull)
{
	AttrNumber	attnum = catalog_column(desc, name);

	values[attnum - 1] = value;
	nulls[attnum - 1] = isnull;
	if (replace)
		replace[attnum - 1] = true;
}

/*
 * dynview._catalog_data_origin() - the BEFORE INSERT OR UPDATE OF
 * data_snapshot row trigger of dynamic_table_catalog: every row written
 * records the current data origin (dynview._data_origin()); a row inserted
 * with another origin (pg_restore, a dump loaded elsewhere) loses its
 * analysed tree (it names relations and types by OID, which another
 * database does not share) and, when it has one, its data snapshot and what
 * goes with it, and its next refresh is FULL (RESTORED unless a reason is
 * already set).
 *
 * In C rather than PL/pgSQL: every refresh updates the row, and a new
 * connection's first refresh paid for loading PL/pgSQL and compiling the
 * function (3-4% of a small refresh's CPU, bench/README.md, eleventh
 * session).
 */
Datum
dynview_catalog_data_origin(PG_FUNCTION_ARGS)
{
	TriggerData *trigdata = (TriggerData *) fcinfo->context;
	TupleDesc	desc;
	HeapTuple	tuple;
	text	   *origin;
	bool		foreign = false;
	int			natts;
	Datum	   *values;
	bool	   *nulls;
	bool	   *replace;
	int			attnum;

	if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_BEFORE(trigdata->tg_event) ||
		!TRIGGER_FIRED_FOR_ROW(trigdata->tg_event))
		elog(ERROR, "dynview._catalog_data_origin() must be a BEFORE ROW trigger");
	desc = RelationGetDescr(trigdata->tg_relation);
	tuple = TRIGGER_FIRED_BY_UPDATE(trigdata->tg_event) ? trigdata->tg_newtuple : trigdata->tg_trigtuple;
	natts = desc->natts;
	values = palloc(natts * sizeof(Datum));
	nulls = palloc(natts * sizeof(bool));
	replace = palloc0(natts * sizeof(bool));
	heap_deform_tuple(tuple, desc, values, nulls);

	origin = cstring_to_text(psprintf(UINT64_FORMAT ":%u", GetSystemIdentifier(), MyDatabaseId));
	if (TRIGGER_FIRED_BY_INSERT(trigdata->tg_event))
	{
		/* (IS DISTINCT FROM: a row without an origin is foreign too) */
		attnum = catalog_column(desc, "data_origin");
		foreign = nulls[attnum - 1] ||
			!DatumGetBool(DirectFunctionCall2Coll(texteq, C_COLLATION_OID, values[attnum - 1],
												  PointerGetDatum(origin)));
	}
	if (foreign)
	{
		static const char *const snapshot_columns[] = {"data_snapshot", "data_subxids", "data_own_xids",
		"data_command_id", "data_lsn"};

		set_row_column(desc, values, nulls, replace, "definition_tree", (Datum) 0, true);
		if (!nulls[catalog_column(desc, "data_snapshot") - 1])
		{
			for (int i = 0; i < lengthof(snapshot_columns); i++)
				set_row_column(desc, values, nulls, replace, snapshot_columns[i], (Datum) 0, true);
			set_row_column(desc, values, nulls, replace, "data_suboverflowed", BoolGetDatum(false), false);
			if (nulls[catalog_column(desc, "next_refresh_full") - 1])
				set_row_column(desc, values, nulls, replace, "next_refresh_full",
							   CStringGetTextDatum("RESTORED"), false);
		}
	}
	set_row_column(desc, values, nulls, replace, "data_origin", PointerGetDatum(origin), false);
	return PointerGetDatum(heap_modify_tuple(tuple, desc, values, nulls, replace));
}
