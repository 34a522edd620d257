/*-------------------------------------------------------------------------
 *
 * tracking.c
 *	  Starting and stopping change capture for a source table.
 *
 * Starting to track a source (the first dynamic table that reads it),
 * design section 4:
 *	1. make sure the database's decoder runs with a consistent slot;
 *	2. set REPLICA IDENTITY FULL on the source (old images must be whole),
 *	   remembering the previous setting, with a NOTICE;
 *	3. create its change buffer dynview_buffer.changes_<oid> (a member of
 *	   the extension, so DROP EXTENSION removes it and pg_dump skips it);
 *	4. register it in dynview.source_tracking and in shared memory (at once,
 *	   forgotten if the transaction aborts);
 *	5. wait for the transactions that hold locks on the source now
 *	   (WaitForLockers, ShareLock: new writers are not blocked).
 * Only then does the caller take the snapshot of the initial build, so a
 * write made before tracking that commits after it is either visible in
 * that snapshot or decoded into the buffer.
 *
 * Stopping (no dynamic table reads it any more): drop the buffer, restore
 * the replica identity, unregister.
 *
 * A partitioned source is tracked with its leaves (partitions.c): each
 * leaf gets REPLICA IDENTITY FULL too (not restored when tracking stops),
 * and step 5 waits for the writers of every leaf.
 *
 * Sources that cannot be captured (unlogged and foreign tables, partitioned
 * tables with such partitions, materialized views) are not tracked; their
 * dynamic tables refresh in full.
 *
 * Locks: starting to track a source takes AccessExclusiveLock on it (step
 * 2) while the query's analysis already holds AccessShareLock.  Two
 * sessions creating dynamic tables over the same untracked source would
 * each wait for the other's AccessShareLock (deadlock), and two that both
 * saw it untracked would both register it.  So a definition that may start
 * tracking a source first takes the database's first-tracking lock
 * (dv_tracking_lock_first_start: ExclusiveLock on the object dynview's
 * pg_extension row, sub-object DV_FIRST_TRACKING_LOCK), before any lock on
 * its sources, and holds it to the end of its transaction: such creates
 * run one after the other.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/xact.h"
#include "utils/backend_status.h"
#include "storage/proc.h"
#include "catalog/catalog.h"
#include "catalog/dependency.h"
#include "catalog/namespace.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_class.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_publication.h"
#include "catalog/pg_type.h"
#include "commands/dbcommands.h"
#include "commands/extension.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "parser/parser.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/relcache.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

#include "dynview.h"
#include "cdc/cdc.h"

/* can changes of this relation be captured from the WAL?  (partitioned: partitions.c) */
static bool
capturable(Oid relid)
{
	if (get_rel_relkind(relid) == RELKIND_PARTITIONED_TABLE)
		return dv_partition_tree_capturable(relid);
	return get_rel_relkind(relid) == RELKIND_RELATION &&
		get_rel_persistence(relid) == RELPERSISTENCE_PERMANENT &&
		!IsCatalogRelationOid(relid);	/* system catalogs: read in full */
}

static bool
is_tracked(Oid relid)
{
	Oid			types[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(relid)};

	dv_catalog_exec("SELECT 1 FROM dynview.source_tracking WHERE source_relid = $1",
					1, types, values, NULL, -1);
	return SPI_processed > 0;
}

/* sub-object of dynview's pg_extension row locked by first-time tracking */
#define DV_FIRST_TRACKING_LOCK 1

/*
 * may tracking start for a relation named in a query: a table (or
 * partitioned table, or dynamic table) not tracked yet, or a view, whose
 * tables are not known before the query is analysed
 */
static bool
first_tracking_walker(Node *node, bool *may_start)
{
	if (node == NULL || *may_start)
		return false;
	if (IsA(node, RangeVar))
	{
		Oid			relid = RangeVarGetRelid((RangeVar *) node, NoLock, true);
		char		kind;

		/* (not a relation: the name of a WITH query, or one analysis will refuse) */
		if (!OidIsValid(relid))
			return false;
		kind = get_rel_relkind(relid);
		if (kind == RELKIND_VIEW)
			*may_start = true;
		else if ((kind == RELKIND_RELATION || kind == RELKIND_PARTITIONED_TABLE) &&
				 (capturable(relid) || dv_is_dynamic_table(relid)) && !is_tracked(relid))
			*may_start = true;
		return false;
	}
	return raw_expression_tree_walker(node, first_tracking_walker, may_start);
}

/*
 * dv_tracking_lock_first_start - call before analysing a new definition
 * (query, its text): when a relation it names may start being tracked
 * (see first_tracking_walker), take the database's first-tracking lock
 * and hold it to the end of the transaction (see the file header).  The
 * names are looked up without locks (a wrong guess costs a wait, or is
 * met by analysis: a name that is not a relation).  Needs SPI.  A query
 * that does not parse is left to the analysis to report.
 */
void
dv_tracking_lock_first_start(const char *query)
{
	List	   *parsed = NIL;
	bool		may_start = false;
	MemoryContext context = CurrentMemoryContext;
	ListCell   *lc;

	PG_TRY();
	{
		parsed = raw_parser(query, RAW_PARSE_DEFAULT);
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(context);
		FlushErrorState();
		return;
	}
	PG_END_TRY();
	/* (not a single SELECT: the analysis refuses it) */
	foreach(lc, parsed)
	{
		Node	   *stmt = lfirst_node(RawStmt, lc)->stmt;

		if (IsA(stmt, SelectStmt))
			(void) first_tracking_walker(stmt, &may_start);
	}
	if (may_start)
		LockDatabaseObject(ExtensionRelationId, get_extension_oid("dynview", false),
						   DV_FIRST_TRACKING_LOCK, ExclusiveLock);
}

/*
 * running_writers - "pid P in database D, ..." for up to 5 other backends
 * whose transaction has an xid (what a new slot waits for, in every
 * database of the cluster), and how many more; "none now" if there is
 * none.  Reads the backends' status as pg_stat_activity does (pid,
 * database and backend_xid are shown to every role there).  Needs a
 * transaction (database names).
 */
static char *
running_writers(void)
{
	StringInfoData buf;
	int			shown = 0;
	int			more = 0;
	int			n = pgstat_fetch_stat_numbackends();

	initStringInfo(&buf);
	for (int i = 1; i <= n; i++)
	{
		LocalPgBackendStatus *local = pgstat_fetch_stat_local_beentry(i);
		char	   *db;

		if (local == NULL || !TransactionIdIsValid(local->backend_xid) ||
			local->backendStatus.st_procpid == MyProcPid)
			continue;
		if (shown == 5)
		{
			more++;
			continue;
		}
		db = OidIsValid(local->backendStatus.st_databaseid) ?
			get_database_name(local->backendStatus.st_databaseid) : NULL;
		appendStringInfo(&buf, "%spid %d in database \"%s\"", shown > 0 ? ", " : "",
						 local->backendStatus.st_procpid, db ? db : "?");
		shown++;
	}
	if (shown == 0)
		return pstrdup("none now");
	if (more > 0)
		appendStringInfo(&buf, " and %d more", more);
	return buf.data;
}

/*
 * dv_tracking_wait_for_decoder - the database's decoder must run with a
 * consistent slot before tracking starts: changes are captured from its
 * start point on.  Creating the slot waits for every transaction that has
 * an xid, in every database of the cluster (a consistent start point needs
 * every transaction running when it was chosen to end, as for any logical
 * slot), so call this before the current transaction writes anything.
 *
 * The wait is not silent: after a second a NOTICE names the transactions
 * that hold it up (running_writers), and lock_timeout bounds it as it
 * bounds a wait for a lock (the slot waits on those transactions' locks):
 * past it, an error (55P03) names them and says what to do.
 * statement_timeout applies too.
 */
void
dv_tracking_wait_for_decoder(void)
{
	TimestampTz start = GetCurrentTimestamp();
	bool		told = false;
	/* the decoder of this installation: not one of a dropped one still running */
	Oid			extension = dv_capture_installation();

	TransactionId creating = dv_shmem_database_creating_xid(MyDatabaseId);

	if (TransactionIdIsValid(creating) && TransactionIdIsCurrentTransactionId(creating))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cannot track sources in the transaction that installed dynview"),
				 errdetail("Change capture starts only once CREATE EXTENSION dynview has committed."),
				 errhint("Commit CREATE EXTENSION dynview first, then create the dynamic table.")));
	dv_shmem_register_database(MyDatabaseId, InvalidTransactionId);
	if (dv_shmem_decoded_lsn(MyDatabaseId, extension) == InvalidXLogRecPtr &&
		TransactionIdIsValid(GetTopTransactionIdIfAny()))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the dynview decoder of database \"%s\" is still starting",
						get_database_name(MyDatabaseId)),
				 errdetail("Its replication slot waits for running transactions that have written, this one included."),
				 errhint("Run SELECT dynview.wait_for_capture(); in a transaction of its own, then create the dynamic table.")));
	while (dv_shmem_decoded_lsn(MyDatabaseId, extension) == InvalidXLogRecPtr)
	{
		/*
		 * A running decoder may wait long for its slot (for transactions
		 * open elsewhere): keep waiting (statement_timeout applies).  One
		 * that cannot start fails this at once with the cause it recorded;
		 * no launcher, or no decoder after 10 seconds, is a configuration
		 * problem too.
		 */
		dv_capture_check();
		if (!dv_shmem_decoder_running(MyDatabaseId) &&
			(!dv_shmem_launcher_running() ||
			 TimestampDifferenceExceeds(start, GetCurrentTimestamp(), 10 * 1000)))
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("change capture cannot run in database \"%s\"",
							get_database_name(MyDatabaseId)),
					 dv_shmem_launcher_running() ?
					 errdetail("The dynview launcher has not started a decoder for this database.") :
					 errdetail("The dynview launcher is not running."),
					 errhint("Check the server log; max_worker_processes (now %d) must leave room for the dynview launcher and two workers per database with dynview.",
							 max_worker_processes)));
		if (!told && TimestampDifferenceExceeds(start, GetCurrentTimestamp(), 1000))
		{
			ereport(NOTICE,
					(errmsg("waiting for the dynview decoder of database \"%s\" to start capturing changes",
							get_database_name(MyDatabaseId)),
					 errdetail("Its new replication slot waits until the transactions that have written, in any database of the cluster, end: %s.",
							   running_writers()),
					 errhint("Commit or roll back those transactions (pg_stat_activity shows them).")));
			told = true;
		}
		if (LockTimeout > 0 && TimestampDifferenceExceeds(start, GetCurrentTimestamp(), LockTimeout))
			ereport(ERROR,
					(errcode(ERRCODE_LOCK_NOT_AVAILABLE),
					 errmsg("change capture of database \"%s\" did not start within lock_timeout",
							get_database_name(MyDatabaseId)),
					 errdetail("The decoder's new replication slot waits until the transactions that have written, in any database of the cluster, end: %s.",
							   running_writers()),
					 errhint("Commit or roll back those transactions (pg_stat_activity shows them), or run SELECT dynview.wait_for_capture(); in a transaction of its own, then create the dynamic table again.")));
		CHECK_FOR_INTERRUPTS();
		dv_shmem_capture_sleep(10);
	}
}

static void
set_replica_identity_full(Oid relid, char *previous, bool required)
{
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	char	   *qualified;

	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for relation %u", relid);
	*previous = ((Form_pg_class) GETSTRUCT(tup))->relreplident;
	ReleaseSysCache(tup);
	if (*previous == REPLICA_IDENTITY_FULL)
		return;

	qualified = dv_relation_qualified_name(relid);
	if (!pg_class_ownercheck(relid, GetUserId()) && !required)
	{
		ereport(NOTICE,
				(errmsg("changes of source \"%s\" are captured without their old rows", get_rel_name(relid)),
				 errdetail("Only the table's owner may set REPLICA IDENTITY FULL; until then a refresh that involves an update or delete of it is FULL."),
				 errhint("Have the owner run ALTER TABLE %s REPLICA IDENTITY FULL.", qualified)));
		return;
	}
	if (!pg_class_ownercheck(relid, GetUserId()))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("dynview cannot set REPLICA IDENTITY FULL on source \"%s\"", get_rel_name(relid)),
				 errdetail("Change capture needs whole old rows, and only the table's owner may set its replica identity."),
				 errhint("Have the owner run ALTER TABLE %s REPLICA IDENTITY FULL, then create the dynamic table again.",
						 qualified)));
	if (SPI_execute(psprintf("ALTER TABLE %s REPLICA IDENTITY FULL", qualified), false, 0) != SPI_OK_UTILITY)
		elog(ERROR, "could not set replica identity of %s", qualified);
	ereport(NOTICE,
			(errmsg("dynview set REPLICA IDENTITY FULL on source \"%s\"", get_rel_name(relid)),
			 errdetail("Change capture needs whole old rows. The setting is part of this transaction: if the statement fails or the transaction rolls back, it is undone; otherwise the previous setting is restored when no dynamic table reads the table.")));
}

/*
 * dv_buffer_check_layout - raise an error unless the change buffer (open)
 * has the own columns this build writes by position (dv_xid .. dv_marker):
 * a buffer made by an older build (before dv_marker) would get a marker's
 * cause in its first source column.
 */
void
dv_buffer_check_layout(Relation buffer)
{
	TupleDesc	desc = RelationGetDescr(buffer);

	if (desc->natts < DV_BUFFER_META_COLS ||
		strcmp(NameStr(TupleDescAttr(desc, DV_BUFFER_META_COLS - 1)->attname), "dv_marker") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("change buffer \"%s\" was made by an older version of dynview",
						RelationGetRelationName(buffer)),
				 errdetail("It lacks the column dv_marker."),
				 errhint("Drop the dynamic tables that read its source and create them again, or drop and create the extension again.")));
}

/* is name one of a change buffer's own columns (dv_xid .. dv_marker)? */
bool
dv_buffer_meta_column(const char *name)
{
	static const char *const meta[DV_BUFFER_META_COLS] = {
		"dv_xid", "dv_commit_lsn", "dv_commit_time", "dv_seq", "dv_weight", "dv_relid", "dv_marker"
	};

	for (int i = 0; i < DV_BUFFER_META_COLS; i++)
		if (strcmp(name, meta[i]) == 0)
			return true;
	return false;
}

/*
 * dv_buffer_column_type - the type (and *typmod) a change buffer stores a
 * source column of type/ *typmod in: a domain is stored as its base type, an
 * array of a domain as an array of the base type (same datums, same text).
 * A buffer's DDL runs as the bootstrap superuser; a domain there would run
 * the CHECK constraints its owner wrote with those rights.
 */
Oid
dv_buffer_column_type(Oid type, int32 *typmod)
{
	Oid			element;

	type = getBaseTypeAndTypmod(type, typmod);
	element = get_element_type(type);
	if (OidIsValid(element) && get_typtype(element) == TYPTYPE_DOMAIN)
	{
		int32		element_typmod = *typmod;
		Oid			array = get_array_type(getBaseTypeAndTypmod(element, &element_typmod));

		if (OidIsValid(array))
		{
			type = array;
			*typmod = element_typmod;
		}
	}
	return type;
}

/*
 * the SQL spelling of dv_buffer_column_type, schema-qualified: buffer DDL
 * runs with search_path pg_catalog, pg_temp (dv_catalog_exec)
 */
static char *
buffer_type_sql(Oid type, int32 typmod, Oid collation)
{
	char	   *sql;

	type = dv_buffer_column_type(type, &typmod);
	sql = format_type_extended(type, typmod, FORMAT_TYPE_TYPEMOD_GIVEN | FORMAT_TYPE_FORCE_QUALIFY);
	/* the source column's collation: filters and min/max over change rows compare as the query does */
	if (OidIsValid(collation) && collation != get_typcollation(type))
	{
		HeapTuple	tup = SearchSysCache1(COLLOID, ObjectIdGetDatum(collation));

		if (HeapTupleIsValid(tup))
		{
			Form_pg_collation coll = (Form_pg_collation) GETSTRUCT(tup);

			sql = psprintf("%s COLLATE %s", sql,
						   quote_qualified_identifier(get_namespace_name(coll->collnamespace),
													  NameStr(coll->collname)));
			ReleaseSysCache(tup);
		}
	}
	return sql;
}

/* ", name type" for each source column in names (all when names is NIL) */
static void
append_columns(StringInfo sql, Oid relid, List *names, const char *prefix)
{
	Relation	rel = relation_open(relid, AccessShareLock);
	TupleDesc	desc = RelationGetDescr(rel);

	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		ListCell   *lc;
		bool		wanted = false;

		if (att->attisdropped)
			continue;
		/* a source column named like a buffer's own column is not captured (FULL refreshes) */
		if (dv_buffer_meta_column(NameStr(att->attname)))
			continue;
		foreach(lc, names)
			wanted |= strcmp(strVal(lfirst(lc)), NameStr(att->attname)) == 0;
		if (!wanted)
			continue;
		appendStringInfo(sql, "%s%s %s", prefix, quote_identifier(NameStr(att->attname)),
						 buffer_type_sql(att->atttypid, att->atttypmod, att->attcollation));
	}
	relation_close(rel, AccessShareLock);
}

/*
 * create_buffer - dynview_buffer.changes_<relid> with the meta columns and
 * the source columns that dynamic tables read; returns its OID.  Made a
 * member of the extension.
 */
static Oid
create_buffer(Oid relid, List *columns)
{
	StringInfoData sql;
	char	   *name = psprintf("changes_%u", relid);
	Oid			buffer;
	ObjectAddress bufobj;
	ObjectAddress extobj;

	initStringInfo(&sql);
	appendStringInfo(&sql, "CREATE TABLE %s.%s (dv_xid pg_catalog.xid8 NOT NULL, "
					 "dv_commit_lsn pg_catalog.pg_lsn NOT NULL, dv_commit_time pg_catalog.timestamptz, "
					 "dv_seq pg_catalog.int4 NOT NULL, dv_weight pg_catalog.int2 NOT NULL, dv_relid pg_catalog.oid NOT NULL, "
					 "dv_marker pg_catalog.\"char\"",
					 DV_BUFFER_SCHEMA, name);
	append_columns(&sql, relid, columns, ", ");
	/*
	 * (heap whatever default_table_access_method says: change capture
	 * appends with heap_insert and heap_multi_insert; regress
	 * brk18_internal_table_am)
	 */
	appendStringInfoString(&sql, ") USING heap WITH (autovacuum_vacuum_scale_factor = 0.01)");

	dv_catalog_exec(sql.data, 0, NULL, NULL, NULL, -1);
	CommandCounterIncrement();
	buffer = get_relname_relid(name, get_namespace_oid(DV_BUFFER_SCHEMA, false));
	/* the decoder deletes consumed rows: published FOR ALL TABLES, it needs an identity */
	dv_publication_identity(buffer, "change buffer");

	ObjectAddressSet(bufobj, RelationRelationId, buffer);
	ObjectAddressSet(extobj, ExtensionRelationId, get_extension_oid("dynview", false));
	recordDependencyOn(&bufobj, &extobj, DEPENDENCY_EXTENSION);
	return buffer;
}

/*
 * buffer_missing_columns - the columns of source relid (names, as the new
 * table reads them) that its change buffer lacks, as ADD COLUMN clauses
 */
static List *
buffer_missing_columns(Oid relid, Oid buffer, List *columns)
{
	List	   *clauses = NIL;
	ListCell   *lc;

	foreach(lc, columns)
	{
		const char *name = strVal(lfirst(lc));
		AttrNumber	attnum = get_attnum(relid, name);
		Oid			type;
		int32		typmod;
		Oid			collation;

		if (get_attnum(buffer, name) != InvalidAttrNumber || attnum == InvalidAttrNumber)
			continue;
		get_atttypetypmodcoll(relid, attnum, &type, &typmod, &collation);
		clauses = lappend(clauses, psprintf("ADD COLUMN %s %s", quote_identifier(name),
											buffer_type_sql(type, typmod, collation)));
	}
	return clauses;
}

/*
 * widen_buffer - a new dynamic table reads columns of an already tracked
 * source that its buffer lacks: add them.  Rows buffered before have NULL
 * there; they belong to transactions the new table's initial build sees
 * (the decoder cannot write to the buffer until this transaction ends).
 *
 * The buffer is locked as ALTER TABLE would lock it before the columns are
 * looked at again: a create over the same source that widened it and has
 * not committed yet is waited for, and what it added is then seen (taking
 * the lock accepts its invalidations) and not added twice.  Nothing is
 * locked when nothing is missing, so the decoder is not held up for the
 * build's length.
 */
static void
widen_buffer(Oid relid, List *columns)
{
	Oid			buffer = dv_buffer_relid(relid);
	List	   *clauses;
	ListCell   *lc;
	StringInfoData sql;

	if (!OidIsValid(buffer) || buffer_missing_columns(relid, buffer, columns) == NIL)
		return;
	LockRelationOid(buffer, AccessExclusiveLock);
	clauses = buffer_missing_columns(relid, buffer, columns);
	if (clauses == NIL)
		return;
	initStringInfo(&sql);
	appendStringInfo(&sql, "ALTER TABLE %s.%s ", DV_BUFFER_SCHEMA,
					 quote_identifier(get_rel_name(buffer)));
	foreach(lc, clauses)
		appendStringInfo(&sql, "%s%s", foreach_current_index(lc) > 0 ? ", " : "",
						 (char *) lfirst(lc));
	dv_catalog_exec(sql.data, 0, NULL, NULL, NULL, -1);
}

/*
 * check_role_limit - tracking source (not tracked yet) is about to take a
 * dynview.max_sources slot.  Every role that owns a dynamic table reading
 * it (the catalog already lists the new table's sources) must stay within
 * dynview.max_sources_per_role, counting the distinct captured sources its
 * dynamic tables read, this one included.  Superusers are exempt.  Only new
 * sources are checked, so a role over a lowered limit keeps what it has.
 */
static void
check_role_limit(Oid source)
{
	Oid			types[2] = {OIDOID, INT4OID};
	Datum		values[2];
	bool		isnull;

	if (dv_max_sources_per_role < 0)
		return;
	values[0] = ObjectIdGetDatum(source);
	values[1] = Int32GetDatum(dv_max_sources_per_role);
	dv_catalog_exec("SELECT a.rolname::pg_catalog.text, pg_catalog.count(DISTINCT s.source_relid)::pg_catalog.int4 "
					"FROM dynview.source_catalog s "
					"JOIN pg_catalog.pg_class k ON k.oid OPERATOR(pg_catalog.=) s.relid::pg_catalog.oid "
					"JOIN pg_catalog.pg_authid a ON a.oid OPERATOR(pg_catalog.=) k.relowner "
					"WHERE NOT a.rolsuper "
					"AND k.relowner OPERATOR(pg_catalog.=) ANY (ARRAY("
					"    SELECT k2.relowner FROM dynview.source_catalog s2 "
					"    JOIN pg_catalog.pg_class k2 ON k2.oid OPERATOR(pg_catalog.=) s2.relid::pg_catalog.oid "
					"    WHERE s2.source_relid OPERATOR(pg_catalog.=) $1)) "
					"AND (s.source_relid OPERATOR(pg_catalog.=) $1 OR EXISTS (SELECT 1 FROM dynview.source_tracking t "
					"    WHERE t.source_relid OPERATOR(pg_catalog.=) s.source_relid AND t.captured)) "
					"GROUP BY a.rolname "
					"HAVING pg_catalog.count(DISTINCT s.source_relid) OPERATOR(pg_catalog.>) $2 "
					"ORDER BY a.rolname LIMIT 1",
					2, types, values, NULL, -1);
	if (SPI_processed == 0)
		return;
	{
		char	   *role = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
		int32		count = DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));

		ereport(ERROR,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("too many source tables are tracked for role \"%s\"", role),
				 errdetail("Tracking \"%s\" would make the dynamic tables of role \"%s\" read %d tracked source tables; dynview.max_sources_per_role is %d.",
						   get_rel_name(source), role, count, dv_max_sources_per_role),
				 errhint("Drop dynamic tables the role no longer needs, or have a superuser raise dynview.max_sources_per_role (for one role: ALTER ROLE ... SET).")));
	}
}

/*
 * track_partitions - the leaves of partitioned source relid, or the
 * inheritance descendants of table relid: REPLICA IDENTITY FULL (their old
 * rows are logged under them), and their writers waited for with the
 * source's (*started).
 */
static void
track_partitions(Oid relid, bool identity_required, List **started)
{
	ListCell   *lc;

	foreach(lc, dv_partition_leaves(relid, NoLock))
	{
		char		previous;

		if (lfirst_oid(lc) == relid || get_rel_relkind(lfirst_oid(lc)) != RELKIND_RELATION)
			continue;
		set_replica_identity_full(lfirst_oid(lc), &previous, identity_required);
		*started = lappend_oid(*started, lfirst_oid(lc));
	}
}

/* list_sort comparator: sources by the OID of their change buffer */
static int
buffer_order(const ListCell *a, const ListCell *b)
{
	Oid			x = dv_buffer_relid(((DvSource *) lfirst(a))->relid);
	Oid			y = dv_buffer_relid(((DvSource *) lfirst(b))->relid);

	return (x > y) - (x < y);
}

/*
 * dv_tracking_start - track every capturable source in the list that is not
 * tracked yet (design section 4).  identity_required: a source whose replica
 * identity cannot be set (the caller does not own it) is an error, else
 * it is tracked without old rows (its updates and deletes become markers
 * that force a FULL refresh).  Needs SPI.  Refuses to run in a
 * transaction whose snapshot is already fixed (REPEATABLE READ or
 * SERIALIZABLE), where the initial build could not be exact.
 */
void
dv_tracking_start(List *sources, bool identity_required)
{
	List	   *started = NIL;
	List	   *tracked = NIL;
	ListCell   *lc;

	/*
	 * The buffers of sources tracked already gain the columns the new table
	 * reads first, in OID order, as the decoder and its pruning lock buffers:
	 * widened in another order, one buffer held exclusively here while the
	 * pruning held the other was a deadlock.
	 */
	foreach(lc, sources)
	{
		DvSource   *src = lfirst(lc);

		if (OidIsValid(src->relid) && is_tracked(src->relid))
			tracked = lappend(tracked, src);
	}
	list_sort(tracked, buffer_order);
	foreach(lc, tracked)
	{
		DvSource   *src = lfirst(lc);

		widen_buffer(src->relid, src->columns);
	}

	foreach(lc, sources)
	{
		DvSource   *src = lfirst(lc);
		Oid			types[3] = {OIDOID, OIDOID, CHAROID};
		Datum		values[3];
		char		previous;
		Oid			buffer;

		if (!OidIsValid(src->relid))
			continue;
		if (list_member_ptr(tracked, src))
			continue;
		if (is_tracked(src->relid))
		{
			/* (an earlier entry of the list started tracking it) */
			widen_buffer(src->relid, src->columns);
			continue;
		}
		if (dv_is_dynamic_table(src->relid))
		{
			/* an upstream dynamic table: its refreshes write its buffer */
			buffer = create_buffer(src->relid, src->columns);
			values[0] = ObjectIdGetDatum(src->relid);
			values[1] = ObjectIdGetDatum(buffer);
			values[2] = CharGetDatum(' ');
			dv_catalog_exec("INSERT INTO dynview.source_tracking "
							"(source_relid, buffer_relid, previous_replica_identity, captured) "
							"VALUES ($1, $2, $3, false)", 3, types, values, NULL, 1);
			continue;
		}
		if (!capturable(src->relid))
			continue;
		if (started == NIL)
		{
			if (IsolationUsesXactSnapshot())
				ereport(ERROR,
						(errcode(ERRCODE_ACTIVE_SQL_TRANSACTION),
						 errmsg("cannot start tracking source \"%s\" in a %s transaction",
								get_rel_name(src->relid),
								IsolationIsSerializable() ? "SERIALIZABLE" : "REPEATABLE READ"),
						 errdetail("The transaction's snapshot was taken before tracking began, so the initial contents could miss changes."),
						 errhint("Create the dynamic table in a READ COMMITTED transaction.")));
			if (!dv_shmem_available())
				ereport(ERROR,
						(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
						 errmsg("dynview must be loaded via shared_preload_libraries"),
						 errhint("Add dynview to shared_preload_libraries in postgresql.conf and restart the server.")));
			dv_tracking_wait_for_decoder();
		}
		check_role_limit(src->relid);
		set_replica_identity_full(src->relid, &previous, identity_required);
		if (get_rel_relkind(src->relid) == RELKIND_PARTITIONED_TABLE || has_subclass(src->relid))
			track_partitions(src->relid, identity_required, &started);
		buffer = create_buffer(src->relid, src->columns);
		values[0] = ObjectIdGetDatum(src->relid);
		values[1] = ObjectIdGetDatum(buffer);
		values[2] = CharGetDatum(previous);
		dv_catalog_exec("INSERT INTO dynview.source_tracking (source_relid, buffer_relid, previous_replica_identity) "
						"VALUES ($1, $2, $3)", 3, types, values, NULL, 1);
		dv_shmem_track_source(src->relid, true);
		started = lappend_oid(started, src->relid);
	}

	/* let transactions that may have written the sources before tracking end */
	foreach(lc, started)
	{
		LOCKTAG		tag;

		SET_LOCKTAG_RELATION(tag, MyDatabaseId, lfirst_oid(lc));
		WaitForLockers(tag, ShareLock, false);
	}
}

/*
 * dv_tracking_release_unused - stop tracking every source that no dynamic
 * table reads any more (or that was dropped).  Needs SPI.
 */
void
dv_tracking_release_unused(void)
{
	List	   *sources = NIL;
	List	   *buffers = NIL;
	List	   *identities = NIL;
	List	   *captureds = NIL;
	ListCell   *lc1,
			   *lc2,
			   *lc3,
			   *lc4;

	/* buffers in OID order: the decoder locks them in that order too */
	dv_catalog_exec("SELECT t.source_relid, t.buffer_relid, t.previous_replica_identity::text, t.captured "
					"FROM dynview.source_tracking t "
					"WHERE NOT EXISTS (SELECT 1 FROM dynview.source_catalog s "
					"                  WHERE s.source_relid = t.source_relid) "
					"ORDER BY t.buffer_relid",
					0, NULL, NULL, NULL, -1);
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		bool		isnull;
		HeapTuple	tup = SPI_tuptable->vals[i];
		TupleDesc	desc = SPI_tuptable->tupdesc;

		sources = lappend_oid(sources, DatumGetObjectId(SPI_getbinval(tup, desc, 1, &isnull)));
		buffers = lappend_oid(buffers, DatumGetObjectId(SPI_getbinval(tup, desc, 2, &isnull)));
		identities = lappend_int(identities, SPI_getvalue(tup, desc, 3)[0]);
		captureds = lappend_int(captureds, DatumGetBool(SPI_getbinval(tup, desc, 4, &isnull)));
	}

	forfour(lc1, sources, lc2, buffers, lc3, identities, lc4, captureds)
	{
		Oid			source = lfirst_oid(lc1);
		Oid			buffer = lfirst_oid(lc2);
		char		previous = (char) lfirst_int(lc3);
		bool		captured = (bool) lfirst_int(lc4);
		Oid			types[1] = {OIDOID};
		Datum		values[1] = {ObjectIdGetDatum(source)};

		if (get_rel_name(buffer) != NULL)
		{
			ObjectAddress bufobj;

			/* no longer a member of the extension, so that it can go alone */
			deleteDependencyRecordsForClass(RelationRelationId, buffer,
											ExtensionRelationId, DEPENDENCY_EXTENSION);
			CommandCounterIncrement();
			ObjectAddressSet(bufobj, RelationRelationId, buffer);
			performDeletion(&bufobj, DROP_RESTRICT, PERFORM_DELETION_INTERNAL);
		}
		if (captured && get_rel_name(source) != NULL && previous != REPLICA_IDENTITY_FULL &&
			previous != REPLICA_IDENTITY_INDEX)
		{
			const char *what = previous == REPLICA_IDENTITY_NOTHING ? "NOTHING" : "DEFAULT";

			dv_catalog_exec(psprintf("ALTER TABLE %s REPLICA IDENTITY %s",
									 dv_relation_qualified_name(source), what),
							0, NULL, NULL, NULL, -1);
		}
		dv_catalog_exec("DELETE FROM dynview.source_tracking WHERE source_relid = $1",
						1, types, values, NULL, 1);
		if (captured)
			dv_shmem_untrack_source(source);
	}
}

/*
 * dv_tracking_sync_buffers - after DDL on sources: a buffer column whose
 * source column now has another type takes the new type, its old values
 * dropped (they belong to transactions before the DDL, which every consumer
 * recomputes in full: its SOURCE_ALTERED check).  Until then the decoder
 * writes markers for such rows.
 */
void
dv_tracking_sync_buffers(List *sources)
{
	ListCell   *lc;

	foreach(lc, sources)
	{
		DvSource   *src = lfirst(lc);
		Oid			buffer;
		StringInfoData sql;
		int			changed = 0;

		if (!OidIsValid(src->relid) || !OidIsValid(buffer = dv_buffer_relid(src->relid)))
			continue;
		initStringInfo(&sql);
		appendStringInfo(&sql, "ALTER TABLE %s.%s ", DV_BUFFER_SCHEMA,
						 quote_identifier(get_rel_name(buffer)));
		for (AttrNumber att = DV_BUFFER_META_COLS + 1;; att++)
		{
			char	   *name = get_attname(buffer, att, true);
			AttrNumber	satt;
			Oid			btype,
						stype;
			int32		btypmod,
						stypmod;
			Oid			bcoll,
						scoll;
			int32		btypmod_src;

			if (name == NULL)
				break;
			satt = get_attnum(src->relid, name);
			if (satt == InvalidAttrNumber)
				continue;
			get_atttypetypmodcoll(buffer, att, &btype, &btypmod, &bcoll);
			get_atttypetypmodcoll(src->relid, satt, &stype, &stypmod, &scoll);
			btypmod_src = stypmod;
			/* (a collation changed with the type kept: the buffer compares as the query does) */
			if (btype == dv_buffer_column_type(stype, &btypmod_src) && btypmod == btypmod_src &&
				bcoll == scoll)
				continue;
			appendStringInfo(&sql, "%sALTER COLUMN %s TYPE %s USING NULL", changed++ ? ", " : "",
							 quote_identifier(name), buffer_type_sql(stype, stypmod, scoll));
		}
		if (changed > 0)
			dv_catalog_exec(sql.data, 0, NULL, NULL, NULL, -1);
	}
}

/*
 * dv_buffer_relid - the change buffer of a tracked source, or InvalidOid.
 */
Oid
dv_buffer_relid(Oid source_relid)
{
	Oid			types[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(source_relid)};
	bool		isnull;

	dv_catalog_exec("SELECT buffer_relid FROM dynview.source_tracking WHERE source_relid = $1",
					1, types, values, NULL, -1);
	if (SPI_processed == 0)
		return InvalidOid;
	return DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
}

/*
 * dv_publication_identity - relid is a table dynview updates and deletes
 * rows of (a dynamic table, an aggregate state table of dynview_state, a
 * change buffer): if a publication publishes its updates or deletes and it
 * has no replica identity (DEFAULT without a primary key), those writes
 * would fail ("cannot delete from table ... because it does not have a
 * replica identity and publishes deletes"), so set REPLICA IDENTITY FULL,
 * with a NOTICE.  A replica identity the owner chose (FULL, USING INDEX,
 * NOTHING) is kept, and FULL stays when the table leaves the publication.
 * Not the owner: a WARNING with the statement to run.  Called in SPI.
 */
void
dv_publication_identity(Oid relid, const char *kind)
{
	Relation	rel = try_relation_open(relid, AccessShareLock);
	PublicationDesc pubdesc;
	bool		needed;
	char	   *qualified;

	if (rel == NULL)
		return;
	needed = rel->rd_rel->relkind == RELKIND_RELATION &&
		rel->rd_rel->relreplident == REPLICA_IDENTITY_DEFAULT &&
		!OidIsValid(RelationGetReplicaIndex(rel));
	if (needed)
	{
		RelationBuildPublicationDesc(rel, &pubdesc);
		needed = pubdesc.pubactions.pubupdate || pubdesc.pubactions.pubdelete;
	}
	relation_close(rel, AccessShareLock);
	if (!needed)
		return;

	qualified = dv_relation_qualified_name(relid);
	if (strcmp(kind, "dynamic table") != 0)
	{
		/* dynview's own table, whoever created the publication */
		dv_catalog_exec(psprintf("ALTER TABLE %s REPLICA IDENTITY FULL", qualified), 0, NULL, NULL, NULL, -1);
		CommandCounterIncrement();
		ereport(NOTICE,
				(errmsg("dynview set REPLICA IDENTITY FULL on published %s \"%s\"", kind, get_rel_name(relid)),
				 errdetail("A publication publishes its updates or deletes, and dynview updates or deletes its rows: without a replica identity those writes would fail.")));
		return;
	}
	if (!pg_class_ownercheck(relid, GetUserId()))
	{
		ereport(WARNING,
				(errmsg("published %s \"%s\" has no replica identity", kind, get_rel_name(relid)),
				 errdetail("Its refreshes update and delete rows, which fail while a publication publishes updates or deletes of a table without a replica identity; only the table's owner may set it."),
				 errhint("Have the owner run ALTER TABLE %s REPLICA IDENTITY FULL.", qualified)));
		return;
	}
	if (SPI_execute(psprintf("ALTER TABLE %s REPLICA IDENTITY FULL", qualified), false, 0) != SPI_OK_UTILITY)
		elog(ERROR, "could not set replica identity of %s", qualified);
	CommandCounterIncrement();
	ereport(NOTICE,
			(errmsg("dynview set REPLICA IDENTITY FULL on published %s \"%s\"", kind, get_rel_name(relid)),
			 errdetail("A publication publishes its updates or deletes, and a refresh updates and deletes its rows: without a replica identity (it has no primary key) those writes would fail.")));
}

/*
 * dv_publication_identity_all - after CREATE or ALTER PUBLICATION: every
 * dynamic table, aggregate state table and change buffer of this database
 * that is now published gets a replica identity (dv_publication_identity).
 */
void
dv_publication_identity_all(void)
{
	List	   *rels = NIL;
	List	   *kinds = NIL;
	ListCell   *lr,
			   *lk;
	uint64		i;

	SPI_connect();
	dv_catalog_exec("SELECT c.oid, CASE WHEN n.nspname = '" DV_BUFFER_SCHEMA "' THEN 'change buffer' "
					"  WHEN n.nspname = 'dynview_state' THEN 'aggregate state table' ELSE 'dynamic table' END "
					"FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
					"WHERE c.relkind = 'r' AND c.relreplident = 'd' "
					"  AND (c.oid IN (SELECT relid::pg_catalog.oid FROM dynview." DV_CATALOG_TABLE ") "
					"       OR n.nspname IN ('" DV_BUFFER_SCHEMA "', 'dynview_state')) "
					"ORDER BY c.oid", 0, NULL, NULL, NULL, -1);
	for (i = 0; i < SPI_processed; i++)
	{
		bool		isnull;

		rels = lappend_oid(rels, DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i],
																	SPI_tuptable->tupdesc, 1, &isnull)));
		kinds = lappend(kinds, SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2));
	}
	forboth(lr, rels, lk, kinds)
		dv_publication_identity(lfirst_oid(lr), lfirst(lk));
	SPI_finish();
}
