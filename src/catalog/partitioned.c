/*-------------------------------------------------------------------------
 *
 * partitioned.c
 *	  Partitioned dynamic tables (issue 15, the seed's partitioned view):
 *	  dynview.create_partitioned_dynamic_table() and dynview.refresh(name,
 *	  partition).
 *
 * A partitioned dynamic table T is a PostgreSQL table partitioned by LIST
 * on one column of its query's result, registered in
 * dynview.partitioned_table_catalog (not in dynamic_table_catalog: T itself
 * is never refreshed).  Its query reads the partition value with
 * dynview.partition() (or current_setting('dynview.partition')), and that
 * column is the value itself.  Each partition is a dynamic table of its
 * own, made by the first refresh of its value:
 *
 *	- its query is T's stored definition, analysed (not rewritten) with
 *	  every dynview.partition() call replaced by the value as a constant,
 *	  deparsed by ruleutils; so it is analysed as any query (INCREMENTAL
 *	  where the engine can, its own sources tracked);
 *	- it is created empty (schedule 'manual'), attached as T's partition
 *	  FOR VALUES IN (value) (the guard allows this one attach), and
 *	  refreshed (INITIAL_BUILD); later refreshes of the value refresh it
 *	  from its own data snapshot, INCREMENTAL, and other partitions keep
 *	  their rows;
 *	- its history rows name it (T's name, '_', the value).
 *
 * schedule (of T, 'manual' by default): the partition of the greatest
 * value (text order: '20260527' after '20260526'), the current batch, gets
 * T's schedule and the scheduler keeps it fresh as any dynamic table; the
 * others are 'manual' and keep their rows until refreshed by name (the
 * seed's partition 1 keeps its old contents).  Making a partition of a
 * greater value moves the schedule to it (schedule_current).  The
 * scheduler creates no partition: a value is known only when a refresh
 * names it.
 *
 * retention is an age, the seed's LIFECYCLE (days there: a bare number in
 * dynview.retention is days): a partition not refreshed for longer (its
 * data_timestamp older than now() - retention; the product reclaims a
 * partition by its last modification, and a refresh is the only thing that
 * writes a partition) is dropped: by the next partition refresh of T, by
 * ALTER ... SET (dynview.retention), and by the scheduler (each look,
 * dv_partitioned_expire).  The partition that carries T's schedule is
 * kept: the scheduler refreshes it, or retries it while its refreshes fail.
 *
 * The guard counts T as a dynamic table (lookup in both catalogs): no
 * writes, no TRUNCATE, no other partitions, no DETACH, no column changes.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/relation.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/pg_class.h"
#include "utils/snapmgr.h"
#include "executor/tuptable.h"
#include "access/tableam.h"
#include "access/sysattr.h"
#include "catalog/namespace.h"
#include "catalog/partition.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "parser/parse_func.h"
#include "partitioning/partbounds.h"
#include "partitioning/partdesc.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/datetime.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"
#include "utils/resowner.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "dynview.h"
#include "cdc/cdc.h"

PG_FUNCTION_INFO_V1(dynview_create_partitioned_dynamic_table);
PG_FUNCTION_INFO_V1(dynview_refresh_partition);

/* the setting dynview.partition (dynview.c) */
char	   *dv_partition_setting = NULL;

static void follow_partition_types(Oid relid, Oid part);

/* a partitioned dynamic table's catalog row */
typedef struct DvPartitioned
{
	char	   *definition;		/* qualified, with dynview.partition() */
	char	   *partition_column;
	char	   *refresh_mode;
	ArrayType  *primary_key;
	Interval   *retention;		/* NULL: keep all */
	char	   *schedule;		/* of every partition */
} DvPartitioned;

/* OID of dynview.partition() */
static Oid
partition_function(void)
{
	return LookupFuncName(list_make2(makeString(DV_SCHEMA), makeString("partition")), 0, NULL, true);
}

/* is node a call of dynview.partition() or current_setting('dynview.partition'[, ...])? */
static bool
is_partition_call(Node *node, Oid fn)
{
	FuncExpr   *f;
	Const	   *arg;

	if (node == NULL || !IsA(node, FuncExpr))
		return false;
	f = (FuncExpr *) node;
	if (f->funcid == fn)
		return true;
	if ((f->funcid != F_CURRENT_SETTING_TEXT && f->funcid != F_CURRENT_SETTING_TEXT_BOOL) ||
		f->args == NIL || !IsA(linitial(f->args), Const))
		return false;
	arg = linitial(f->args);
	return !arg->constisnull && arg->consttype == TEXTOID &&
		pg_strcasecmp(TextDatumGetCString(arg->constvalue), "dynview.partition") == 0;
}

typedef struct SubstContext
{
	Oid			fn;
	const char *value;
} SubstContext;

static Node *
substitute_mutator(Node *node, SubstContext *ctx)
{
	if (node == NULL)
		return NULL;
	if (is_partition_call(node, ctx->fn))
		return (Node *) makeConst(TEXTOID, -1, DEFAULT_COLLATION_OID, -1,
								  CStringGetTextDatum(ctx->value), false, false);
	if (IsA(node, Query))
		return (Node *) query_tree_mutator((Query *) node, substitute_mutator, ctx, 0);
	return expression_tree_mutator(node, substitute_mutator, ctx);
}

/* the definition with dynview.partition() replaced by value, deparsed (qualified) */
static char *
partition_query(const char *definition, const char *value)
{
	Query	   *q = (Query *) stringToNode(dv_definition_tree(definition));
	SubstContext ctx = {partition_function(), value};
	int			nestlevel = NewGUCNestLevel();
	char	   *sql;

	q = (Query *) substitute_mutator((Node *) q, &ctx);
	(void) set_config_option("search_path", DV_SAFE_SEARCH_PATH,
							 PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
	dv_set_output_styles();
	sql = pg_get_querydef(q, false);
	AtEOXact_GUC(true, nestlevel);
	return sql;
}

/* load T's catalog row; NULL if relid is no partitioned dynamic table.  Needs SPI. */
static DvPartitioned *
load_partitioned(Oid relid)
{
	Oid			types[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(relid)};
	DvPartitioned *p;
	HeapTuple	tup;
	TupleDesc	desc;
	bool		isnull;
	Datum		d;

	dv_catalog_exec("SELECT definition, partition_column::text, refresh_mode, primary_key, retention, schedule "
					"FROM dynview.partitioned_table_catalog WHERE relid = $1::regclass",
					1, types, values, NULL, -1);
	if (SPI_processed != 1)
		return NULL;
	tup = SPI_tuptable->vals[0];
	desc = SPI_tuptable->tupdesc;
	p = palloc0(sizeof(DvPartitioned));
	p->definition = SPI_getvalue(tup, desc, 1);
	p->partition_column = SPI_getvalue(tup, desc, 2);
	p->refresh_mode = SPI_getvalue(tup, desc, 3);
	d = SPI_getbinval(tup, desc, 4, &isnull);
	p->primary_key = isnull ? NULL : DatumGetArrayTypePCopy(d);
	d = SPI_getbinval(tup, desc, 5, &isnull);
	if (!isnull)
	{
		p->retention = palloc(sizeof(Interval));
		memcpy(p->retention, DatumGetIntervalP(d), sizeof(Interval));
	}
	p->schedule = SPI_getvalue(tup, desc, 6);
	return p;
}

/*
 * dv_relation_sees_row - does snapshot (NULL: a new one) see a row of rel's
 * storage (with not_own, one that this transaction did not write)?
 */
bool
dv_relation_sees_row(Relation rel, Snapshot snapshot, bool not_own)
{
	Snapshot	registered = RegisterSnapshot(snapshot ? snapshot : GetLatestSnapshot());
	TupleTableSlot *slot = table_slot_create(rel, NULL);
	TableScanDesc scan = table_beginscan(rel, registered, 0, NULL);
	bool		found = false;

	while (!found && table_scan_getnextslot(scan, ForwardScanDirection, slot))
	{
		bool		isnull;

		found = !not_own ||
			!TransactionIdIsCurrentTransactionId(DatumGetTransactionId(slot_getsysattr(slot, MinTransactionIdAttributeNumber,
																						&isnull)));
	}
	table_endscan(scan);
	ExecDropSingleTupleTableSlot(slot);
	UnregisterSnapshot(registered);
	return found;
}

/*
 * dv_partitioned_holds_rows - does a partition of partitioned dynamic table
 * relid hold a row, seen by a new snapshot (a REPEATABLE READ transaction's
 * own would miss rows committed since, whose values an ALTER COLUMN ...
 * TYPE USING NULL would then lose)?  Takes the locks such an ALTER takes
 * first (AccessExclusive on relid and every partition), so that no row is
 * written between the look and the ALTER.  For column type changes
 * (refresh.c retype_columns, follow_partition_types).
 */
bool
dv_partitioned_holds_rows(Oid relid)
{
	List	   *parts;
	ListCell   *lc;
	bool		found = false;

	LockRelationOid(relid, AccessExclusiveLock);
	parts = find_all_inheritors(relid, AccessExclusiveLock, NULL);
	foreach(lc, parts)
	{
		Oid			part = lfirst_oid(lc);
		Relation	rel;

		if (found || !RELKIND_HAS_STORAGE(get_rel_relkind(part)))
			continue;
		rel = table_open(part, NoLock);
		found = dv_relation_sees_row(rel, NULL, false);
		table_close(rel, NoLock);
	}
	return found;
}

/*
 * dv_is_partitioned_dynamic_table - is relid a partitioned dynamic table?
 */
bool
dv_is_partitioned_dynamic_table(Oid relid)
{
	bool		found;

	if (get_rel_relkind(relid) != RELKIND_PARTITIONED_TABLE)
		return false;
	SPI_connect();
	found = load_partitioned(relid) != NULL;
	SPI_finish();
	return found;
}

/*
 * dv_partitioned_forget - dropped relations that were partitioned dynamic
 * tables lose their catalog rows (sql_drop).  Needs SPI.
 */
void
dv_partitioned_forget(Datum relid_array)
{
	Oid			types[1] = {OIDARRAYOID};
	Datum		values[1] = {relid_array};

	dv_catalog_exec("DELETE FROM dynview.partitioned_table_catalog WHERE relid::oid = ANY ($1)",
					1, types, values, NULL, -1);
}

/* the partitions of T: their OIDs and values (text), from T's partition descriptor */
static void
partitions_of(Oid relid, List **oids, List **values)
{
	Relation	rel = relation_open(relid, AccessShareLock);
	PartitionDesc pd = RelationGetPartitionDesc(rel, true);
	PartitionBoundInfo bi = pd->boundinfo;

	*oids = NIL;
	*values = NIL;
	if (bi != NULL)
	{
		for (int i = 0; i < bi->ndatums; i++)
		{
			int			part = bi->indexes[i];

			if (part < 0)
				continue;
			*oids = lappend_oid(*oids, pd->oids[part]);
			*values = lappend(*values, TextDatumGetCString(bi->datums[i][0]));
		}
	}
	relation_close(rel, AccessShareLock);
}

/* a name for T's partition of value: "<T>_<value>", other characters than [A-Za-z0-9_] as '_' */
static char *
partition_name(Oid relid, const char *value)
{
	const char *relname = get_rel_name(relid);
	Oid			nspid = get_rel_namespace(relid);
	StringInfoData name;
	int			len;

	initStringInfo(&name);
	appendStringInfo(&name, "%s_", relname);
	for (const char *c = value; *c; c++)
		appendStringInfoChar(&name, (isalnum((unsigned char) *c) || *c == '_') ? *c : '_');
	len = pg_mbcliplen(name.data, name.len, NAMEDATALEN - 1);
	name.data[len] = '\0';
	if (OidIsValid(get_relname_relid(name.data, nspid)))
	{
		/* taken: "<T cut>_<n>" */
		for (int n = 1;; n++)
		{
			char	   *tail = psprintf("_%d", n);
			char	   *cand;

			len = pg_mbcliplen(relname, strlen(relname), NAMEDATALEN - 1 - strlen(tail));
			cand = psprintf("%.*s%s", len, relname, tail);
			if (!OidIsValid(get_relname_relid(cand, nspid)))
				return cand;
		}
	}
	return name.data;
}

static char *
interval_text(Interval *iv)
{
	return DatumGetCString(DirectFunctionCall1(interval_out, IntervalPGetDatum(iv)));
}

/*
 * dv_check_partition_retention - retention must be a positive interval
 * (22023).
 */
void
dv_check_partition_retention(Interval *retention)
{
	Interval	zero;

	memset(&zero, 0, sizeof(zero));
	if (DatumGetInt32(DirectFunctionCall2(interval_cmp, IntervalPGetDatum(retention),
										  IntervalPGetDatum(&zero))) <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("retention must be a positive interval, not %s", interval_text(retention)),
				 errhint("Pass the age after which a partition is dropped, such as '10 days', or NULL to keep all.")));
}

/*
 * dv_partition_retention - retention as text (dynview.retention = ...):
 * an interval ('10 days'), or with days_if_number a bare number of days
 * ('10', as the seed's LIFECYCLE 10); positive.  22023 otherwise.
 */
Interval *
dv_partition_retention(const char *text, bool days_if_number)
{
	Interval   *iv = palloc0(sizeof(Interval));
	struct pg_itm_in itm;
	int			dtype;
	char	   *fields[MAXDATEFIELDS];
	int			ftype[MAXDATEFIELDS];
	char		workbuf[256];
	int			nf;
	int			dterr;
	const char *c = text;

	while (*c == ' ')
		c++;
	if (days_if_number && *c != '\0' && strspn(c, "0123456789 ") == strlen(c))
		text = psprintf("%s days", c);
	dterr = ParseDateTime(text, workbuf, sizeof(workbuf), fields, ftype, MAXDATEFIELDS, &nf);
	if (dterr == 0)
		dterr = DecodeInterval(fields, ftype, nf, INTERVAL_FULL_RANGE, &dtype, &itm);
	if (dterr == DTERR_BAD_FORMAT)
		dterr = DecodeISO8601Interval(unconstify(char *, text), &dtype, &itm);
	if (dterr == 0 && dtype == DTK_DELTA && itmin2interval(&itm, iv) != 0)
		dterr = DTERR_FIELD_OVERFLOW;
	if (dterr != 0 || dtype != DTK_DELTA)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid value for parameter \"dynview.retention\": \"%s\"", text),
				 errdetail("The value is the age after which a partition is dropped: an interval such as '10 days', or a number of days.")));
	dv_check_partition_retention(iv);
	return iv;
}

/*
 * dv_partition_schedule - the schedule of a partitioned dynamic table: an
 * interval or 'manual' (validated as any schedule); 'downstream' is 0A000
 * (nothing reads a partition as an upstream).
 */
char *
dv_partition_schedule(const char *schedule)
{
	char	   *s = dv_validate_schedule(schedule);

	if (strcmp(s, "downstream") == 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("a partitioned dynamic table cannot have the schedule 'downstream'"),
				 errdetail("Its partitions are refreshed by name or on their own schedule, never as upstreams."),
				 errhint("Use an interval, such as '1 minute', or 'manual'.")));
	return s;
}

/*
 * dv_check_partition_owner - partition part of partitioned dynamic table
 * parent must have parent's owner: a partition's refresh runs the parent's
 * query as the partition's owner, and a change of the column types alters
 * the parent (so every partition) as the parent's owner.  Partitions are
 * made as their parent's owner (dv_refresh_partition); one made by another
 * role in an earlier release, or given another owner since, is refused
 * with what to do (42501).
 */
void
dv_check_partition_owner(Oid parent, Oid part)
{
	Oid			owner = dv_rel_owner(parent);
	Oid			have = dv_rel_owner(part);

	if (have == owner)
		return;
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("partition %s of partitioned dynamic table %s is owned by role %s, not by the table's owner %s",
					dv_relation_qualified_name(part), dv_relation_qualified_name(parent),
					quote_identifier(GetUserNameFromId(have, false)),
					quote_identifier(GetUserNameFromId(owner, false))),
			 errdetail("A partition runs its partitioned table's query as the partition's owner, and a change of the column types alters every partition as the table's owner."),
			 errhint("Give the partition the table's owner: ALTER TABLE %s OWNER TO %s.",
					 dv_relation_qualified_name(part), quote_identifier(GetUserNameFromId(owner, false)))));
}

/*
 * dv_check_partition_owned - dv_check_partition_owner of relid when it is a
 * partition of a partitioned dynamic table (its refresh and verify() run
 * the parent's query as relid's owner)
 */
void
dv_check_partition_owned(Oid relid)
{
	Oid			parent;

	if (!get_rel_relispartition(relid))
		return;
	parent = get_partition_parent(relid, false);
	if (dv_is_partitioned_dynamic_table(parent))
		dv_check_partition_owner(parent, relid);
}

/* dv_check_partition_owner of each partition of partitioned dynamic table parent */
void
dv_check_partition_owners(Oid parent)
{
	List	   *oids;
	List	   *values;
	ListCell   *lc;

	partitions_of(parent, &oids, &values);
	foreach(lc, oids)
		dv_check_partition_owner(parent, lfirst_oid(lc));
}

/* the partition of T's greatest value (InvalidOid: none); *oids: all of them */
static Oid
greatest_partition(Oid relid, List **oids)
{
	List	   *values;
	ListCell   *lo,
			   *lv;
	Oid			current = InvalidOid;
	const char *greatest = NULL;

	partitions_of(relid, oids, &values);
	forboth(lo, *oids, lv, values)
	{
		if (greatest == NULL || strcmp(lfirst(lv), greatest) > 0)
		{
			greatest = lfirst(lv);
			current = lfirst_oid(lo);
		}
	}
	return current;
}

/*
 * drop T's partitions not refreshed for longer than retention (their
 * data_timestamp, or their creation if never refreshed, before now() -
 * retention); returns how many.  The partition that carries T's schedule
 * (the current one, schedule_current; the others are 'manual') is kept,
 * even while its refreshes fail: the scheduler retries it, and an older
 * partition that made it fail (a value with no cast to a source column's
 * new type) may be the one dropped.  One that other objects depend on
 * (2BP01), or that the caller may not drop (42501: another owner), is kept
 * with a WARNING, each DROP in a subtransaction.  Needs SPI.
 */
static int
expire_partitions(Oid relid, Interval *retention)
{
	Oid			types[2] = {OIDOID, INTERVALOID};
	Datum		values[2];
	List	   *expired = NIL;
	ListCell   *lc;
	int			n = 0;

	if (retention == NULL)
		return 0;
	values[0] = ObjectIdGetDatum(relid);
	values[1] = IntervalPGetDatum(retention);
	dv_catalog_exec("SELECT c.relid::oid FROM dynview.dynamic_table_catalog c "
					"JOIN pg_catalog.pg_inherits i ON i.inhrelid = c.relid::oid "
					"WHERE i.inhparent = $1 AND c.schedule = 'manual' "
					"AND coalesce(c.data_timestamp, c.created_at) < now() - $2",
					2, types, values, NULL, -1);
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		bool		isnull;

		expired = lappend_oid(expired, DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i],
																	   SPI_tuptable->tupdesc, 1, &isnull)));
	}
	foreach(lc, expired)
	{
		Oid			part = lfirst_oid(lc);
		char	   *relname = get_rel_name(part);
		char	   *nspname = get_namespace_name(get_rel_namespace(part));
		char	   *name;
		MemoryContext oldcontext = CurrentMemoryContext;
		ResourceOwner oldowner = CurrentResourceOwner;
		bool		dropped = true;

		if (relname == NULL || nspname == NULL)
			continue;			/* dropped meanwhile */
		name = quote_qualified_identifier(nspname, relname);

		/*
		 * A partition that other objects depend on (a view over it) is kept
		 * with a warning: it must not fail the refresh of another partition,
		 * nor keep the scheduler from dropping the other expired ones.
		 */
		BeginInternalSubTransaction(NULL);
		MemoryContextSwitchTo(oldcontext);
		PG_TRY();
		{
			/* IF EXISTS: it may be dropped between the look-up and its lock */
			if (SPI_execute(psprintf("DROP TABLE IF EXISTS %s", name), false, 0) != SPI_OK_UTILITY)
				elog(ERROR, "could not drop partition %s", name);
			ReleaseCurrentSubTransaction();
			MemoryContextSwitchTo(oldcontext);
			CurrentResourceOwner = oldowner;
		}
		PG_CATCH();
		{
			ErrorData  *edata;

			edata = dv_subxact_caught(oldcontext, oldowner);
			/* any other error (lock timeout, cancel) is the caller's */
			if (edata->sqlerrcode != ERRCODE_DEPENDENT_OBJECTS_STILL_EXIST &&
				edata->sqlerrcode != ERRCODE_INSUFFICIENT_PRIVILEGE)
				ReThrowError(edata);
			dropped = false;
			ereport(WARNING,
					(errcode(edata->sqlerrcode),
					 errmsg("partition %s of \"%s\" is older than its retention of %s but was not dropped",
							name, get_rel_name(relid), interval_text(retention)),
					 errdetail("%s", edata->detail ? edata->detail : edata->message),
					 edata->sqlerrcode == ERRCODE_INSUFFICIENT_PRIVILEGE ?
					 errhint("Give the partition the table's owner (ALTER TABLE %s OWNER TO %s), or drop it.",
							 name, quote_identifier(GetUserNameFromId(dv_rel_owner(relid), false))) :
					 errhint("Drop the objects that depend on the partition, or refresh it to keep it.")));
			FreeErrorData(edata);
		}
		PG_END_TRY();
		if (!dropped)
			continue;
		n++;
		ereport(LOG,
				(errmsg("dynview: dropped partition %s of \"%s\": not refreshed for longer than its retention of %s",
						name, get_rel_name(relid), interval_text(retention))));
	}
	return n;
}

/*
 * schedule_current - the partition of T's greatest value gets T's
 * schedule, the others 'manual' (those that differ are altered).  Needs
 * SPI.
 */
static void
schedule_current(Oid relid, DvPartitioned *p)
{
	List	   *oids;
	ListCell   *lo;
	Oid			greatest = greatest_partition(relid, &oids);

	foreach(lo, oids)
	{
		Oid			part = lfirst_oid(lo);
		const char *want = part == greatest ? p->schedule : "manual";
		Oid			types[1] = {OIDOID};
		Datum		args[1] = {ObjectIdGetDatum(part)};
		char	   *have;

		dv_catalog_exec("SELECT schedule FROM dynview.dynamic_table_catalog WHERE relid = $1::regclass",
						1, types, args, NULL, -1);
		if (SPI_processed != 1)
			continue;
		have = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
		if (strcmp(have, want) != 0)
			dv_catalog_set_schedule(part, want, NULL);
	}
}

/*
 * dv_partitioned_expire - drop the partitions of partitioned dynamic table
 * relid that are older than its retention (the scheduler, each look);
 * returns how many.  Waits for T's lock as DROP TABLE does.  Needs SPI.
 */
int
dv_partitioned_expire(Oid relid)
{
	DvPartitioned *p;

	if (get_rel_relkind(relid) != RELKIND_PARTITIONED_TABLE || (p = load_partitioned(relid)) == NULL)
		return 0;
	return expire_partitions(relid, p->retention);
}

/*
 * dv_partitioned_with_retention - the partitioned dynamic tables that have
 * a retention (in the caller's memory).  Needs SPI.
 */
List *
dv_partitioned_with_retention(void)
{
	MemoryContext caller = CurrentMemoryContext;
	List	   *result = NIL;

	/* (every scheduler wake: kept) */
	dv_catalog_exec_kept("SELECT relid::oid FROM dynview.partitioned_table_catalog WHERE retention IS NOT NULL", -1);
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		bool		isnull;
		Oid			relid = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull));
		MemoryContext old = MemoryContextSwitchTo(caller);

		result = lappend_oid(result, relid);
		MemoryContextSwitchTo(old);
	}
	return result;
}

/*
 * dv_partitioned_alter - ALTER of partitioned dynamic table relid (owner
 * checked by the caller): schedule and mode (validated; NULL keeps) of T
 * and every partition; retention (validated; NULL keeps, reset_retention
 * removes it): every existing value must be a date, and the partitions
 * older than it are dropped at once.  Needs SPI.
 */
void
dv_partitioned_alter(Oid relid, const char *schedule, const char *mode,
					 Interval *retention, bool reset_retention)
{
	DvPartitioned *p;
	List	   *oids;
	List	   *values;
	ListCell   *lo,
			   *lv;
	Oid			types[5] = {OIDOID, TEXTOID, TEXTOID, INTERVALOID, BOOLOID};
	Datum		args[5];
	char		nulls[5] = {' ', ' ', ' ', ' ', ' '};

	/* as a partition refresh: one change of T's partitions at a time */
	LockRelationOid(relid, ShareUpdateExclusiveLock);
	p = load_partitioned(relid);
	if (p == NULL)
		elog(ERROR, "relation %u is not a partitioned dynamic table", relid);
	partitions_of(relid, &oids, &values);
	args[0] = ObjectIdGetDatum(relid);
	args[1] = schedule ? CStringGetTextDatum(schedule) : (Datum) 0;
	nulls[1] = schedule ? ' ' : 'n';
	args[2] = mode ? CStringGetTextDatum(mode) : (Datum) 0;
	nulls[2] = mode ? ' ' : 'n';
	args[3] = retention ? IntervalPGetDatum(retention) : (Datum) 0;
	nulls[3] = retention ? ' ' : 'n';
	args[4] = BoolGetDatum(reset_retention);
	dv_catalog_exec("UPDATE dynview.partitioned_table_catalog SET schedule = coalesce($2, schedule), "
					"refresh_mode = coalesce($3, refresh_mode), "
					"retention = CASE WHEN $5 THEN NULL ELSE coalesce($4, retention) END "
					"WHERE relid = $1::regclass",
					5, types, args, nulls, -1);
	/* the mode of every partition; the schedule of the current one */
	if (mode != NULL)
	{
		forboth(lo, oids, lv, values)
		{
			if (dv_is_dynamic_table(lfirst_oid(lo)))
				dv_alter_dynamic_table(lfirst_oid(lo), NULL, mode);
		}
	}
	/* (the schedule first: a partition that keeps T's schedule is kept) */
	if (schedule != NULL)
	{
		p->schedule = pstrdup(schedule);
		schedule_current(relid, p);
	}
	if (retention != NULL)
		(void) expire_partitions(relid, retention);
}

/* what a partition being made is, for an error's context (dv_refresh_partition) */
typedef struct MakingPartition
{
	const char *partition;
	Oid			parent;
} MakingPartition;

static void
making_partition_context(void *arg)
{
	MakingPartition *m = arg;

	errcontext("making partition %s of partitioned dynamic table %s as the table's owner %s",
			   m->partition, get_rel_name(m->parent),
			   quote_identifier(GetUserNameFromId(dv_rel_owner(m->parent), false)));
}

/*
 * dv_refresh_partition - fill or refresh partition value of partitioned
 * dynamic table relid (owner checked by the caller); returns the
 * partition's history row.  Needs SPI.
 */
Datum
dv_refresh_partition(Oid relid, const char *value)
{
	DvPartitioned *p = load_partitioned(relid);
	List	   *oids;
	List	   *values;
	ListCell   *lo,
			   *lv;
	Oid			part = InvalidOid;
	Datum		result;
	int			save_nestlevel;
	Oid			save_userid;
	int			save_sec;
	MakingPartition making;
	ErrorContextCallback context;

	if (p == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a partitioned dynamic table", get_rel_name(relid)),
				 errhint("Create one with dynview.create_partitioned_dynamic_table().")));
	/* one partition made at a time */
	LockRelationOid(relid, ShareUpdateExclusiveLock);
	partitions_of(relid, &oids, &values);
	forboth(lo, oids, lv, values)
	{
		if (strcmp(lfirst(lv), value) == 0)
			part = lfirst_oid(lo);
	}
	if (!OidIsValid(part))
	{
		DvCreateArgs args;
		char	   *nspname = get_namespace_name(get_rel_namespace(relid));
		char	   *partname = partition_name(relid, value);

		memset(&args, 0, sizeof(args));
		args.name = quote_qualified_identifier(nspname, partname);
		args.query = partition_query(p->definition, value);
		args.schedule = "manual";	/* schedule_current, below */
		args.refresh_mode = p->refresh_mode;
		args.initialize = false;
		args.primary_key = p->primary_key;
		if (p->primary_key)
		{
			Datum	   *elems;
			bool	   *nulls;
			int			n;

			deconstruct_array(p->primary_key, TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls, &n);
			for (int i = 0; i < n; i++)
				args.key_columns = lappend(args.key_columns, TextDatumGetCString(elems[i]));
		}
		/*
		 * Made as T's owner, whoever refreshes: the partition runs T's query
		 * as its own owner (a superuser's refresh of a new value, as a
		 * pg_cron job's, made a partition that ran the T owner's functions as
		 * the superuser).  The caller owns T or is a member of its owner.
		 */
		making.partition = args.name;
		making.parent = relid;
		context.callback = making_partition_context;
		context.arg = &making;
		context.previous = error_context_stack;
		error_context_stack = &context;
		dv_run_as_owner(dv_rel_owner(relid), &save_nestlevel, &save_userid, &save_sec);
		part = dv_create_dynamic_table(&args, false);
		CommandCounterIncrement();
		dv_restore_user(save_nestlevel, save_userid, save_sec);
		follow_partition_types(relid, part);
		dv_run_as_owner(dv_rel_owner(relid), &save_nestlevel, &save_userid, &save_sec);
		/* the guard refuses a dynamic table as a partition, but this one */
		dv_guard_allow_column_ddl(part);
		if (SPI_execute(psprintf("ALTER TABLE %s ATTACH PARTITION %s FOR VALUES IN (%s)",
								 quote_qualified_identifier(nspname, get_rel_name(relid)),
								 args.name, quote_literal_cstr(value)),
						false, 0) != SPI_OK_UTILITY)
			elog(ERROR, "could not attach partition %s", args.name);
		dv_guard_allow_column_ddl(InvalidOid);
		dv_restore_user(save_nestlevel, save_userid, save_sec);
		error_context_stack = context.previous;
		CommandCounterIncrement();
		/* published as a partition of a published partitioned dynamic table? */
		dv_publication_identity(part, "dynamic table");
		/* the greatest value has T's schedule */
		schedule_current(relid, p);
	}
	result = dv_refresh_pipeline(part, DV_TRIGGER_MANUAL);
	(void) expire_partitions(relid, p->retention);
	return result;
}

/*
 * follow_partition_types - give partitioned dynamic table relid the column
 * types (with typmod and collation) of its new partition part, made from
 * the query now, where they differ: after a source's column type changed
 * (int to bigint), a partition made for a new value has the new type, and
 * ATTACH PARTITION would refuse it.  Where the other partitions hold rows,
 * their values are cast (ALTER COLUMN ... TYPE, as the refresh of a
 * partition does: refresh.c, retype_columns) and each recomputes in full
 * at its next refresh, its source altered; a value without a cast to the
 * new type fails, with a hint to drop such partitions.  Where they hold
 * none, nothing is converted (USING NULL), so that a type without a cast
 * from the old one does not stop the table from ever taking a partition
 * again.  Run as T's owner.  Needs SPI.
 */
static void
follow_partition_types(Oid relid, Oid part)
{
	MemoryContext caller_context = CurrentMemoryContext;
	Relation	prel = relation_open(part, AccessShareLock);
	Relation	rel = relation_open(relid, AccessShareLock);
	TupleDesc	pdesc = RelationGetDescr(prel);
	StringInfoData cast_actions;
	StringInfoData null_actions;
	Oid			owner = rel->rd_rel->relowner;
	char	   *name = pstrdup(RelationGetRelationName(rel));
	char	   *qualified = quote_qualified_identifier(get_namespace_name(RelationGetNamespace(rel)), name);
	int			save_nestlevel;
	Oid			save_userid;
	int			save_sec;
	bool		empty;

	initStringInfo(&cast_actions);
	initStringInfo(&null_actions);
	for (int i = 0; i < pdesc->natts; i++)
	{
		Form_pg_attribute patt = TupleDescAttr(pdesc, i);
		AttrNumber	attno;
		Form_pg_attribute att;
		char	   *action;

		if (patt->attisdropped)
			continue;
		attno = get_attnum(relid, NameStr(patt->attname));
		if (attno == InvalidAttrNumber)
			continue;			/* (ATTACH PARTITION names what differs) */
		att = TupleDescAttr(RelationGetDescr(rel), attno - 1);
		if (att->atttypid == patt->atttypid && att->atttypmod == patt->atttypmod &&
			att->attcollation == patt->attcollation)
			continue;
		action = psprintf("ALTER COLUMN %s TYPE %s", quote_identifier(NameStr(patt->attname)),
						  format_type_extended(patt->atttypid, patt->atttypmod,
											   FORMAT_TYPE_TYPEMOD_GIVEN | FORMAT_TYPE_FORCE_QUALIFY));
		if (OidIsValid(patt->attcollation) && patt->attcollation != att->attcollation)
			action = psprintf("%s COLLATE %s", action, generate_collation_name(patt->attcollation));
		appendStringInfo(&cast_actions, "%s%s", cast_actions.len ? ", " : "", action);
		appendStringInfo(&null_actions, "%s%s USING NULL", null_actions.len ? ", " : "", action);
	}
	relation_close(rel, AccessShareLock);
	relation_close(prel, AccessShareLock);
	if (cast_actions.len == 0)
		return;

	/* (every partition, part included, must be the owner's to be altered) */
	dv_check_partition_owners(relid);
	empty = !dv_partitioned_holds_rows(relid);
	dv_run_as_owner(owner, &save_nestlevel, &save_userid, &save_sec);
	dv_guard_allow_column_ddl(relid);
	PG_TRY();
	{
		if (SPI_execute(psprintf("ALTER TABLE %s %s", qualified, empty ? null_actions.data : cast_actions.data),
						false, 0) != SPI_OK_UTILITY)
			elog(ERROR, "could not change the column types of %s", qualified);
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(caller_context);
		edata = CopyErrorData();
		FlushErrorState();
		dv_guard_allow_column_ddl(InvalidOid);
		dv_restore_user(save_nestlevel, save_userid, save_sec);
		/* (a lock not had, a cancel, a deadlock: as PostgreSQL says them, to retry) */
		if (dv_error_to_retry(edata))
			ReThrowError(edata);
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cannot give partitioned dynamic table \"%s\" the column types of its query", name),
				 edata->detail ?
				 errdetail("A new partition has them (a source's column types changed); changing the table's columns failed: %s (%s)",
						   edata->message, edata->detail) :
				 errdetail("A new partition has them (a source's column types changed); changing the table's columns failed: %s",
						   edata->message),
				 errhint("Its partitions keep their values, cast to the new types: drop the partitions (DROP TABLE) whose values have no cast to them, or the objects that depend on these columns.")));
	}
	PG_END_TRY();
	dv_guard_allow_column_ddl(InvalidOid);
	dv_restore_user(save_nestlevel, save_userid, save_sec);
	CommandCounterIncrement();
}

/* the collation of output column attno of the query, for T's column */
static Oid
output_collation(Query *q, int attno)
{
	ListCell   *lc;

	foreach(lc, q->targetList)
	{
		TargetEntry *te = lfirst_node(TargetEntry, lc);

		if (!te->resjunk && te->resno == attno)
			return exprCollation((Node *) te->expr);
	}
	return InvalidOid;
}

Datum
dynview_create_partitioned_dynamic_table(PG_FUNCTION_ARGS)
{
	DvPartitionedArgs args;

	memset(&args, 0, sizeof(args));
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("argument \"%s\" must not be null",
						PG_ARGISNULL(0) ? "name" : PG_ARGISNULL(1) ? "query" : "partition_by"),
				 errhint("Pass a value for it.")));
	args.name = text_to_cstring(PG_GETARG_TEXT_PP(0));
	args.query = text_to_cstring(PG_GETARG_TEXT_PP(1));
	args.partition_by = text_to_cstring(PG_GETARG_TEXT_PP(2));
	args.primary_key = PG_ARGISNULL(3) ? NULL : PG_GETARG_ARRAYTYPE_P(3);
	args.refresh_mode = PG_ARGISNULL(4) ? "auto" : text_to_cstring(PG_GETARG_TEXT_PP(4));
	args.retention = PG_ARGISNULL(5) ? NULL : PG_GETARG_INTERVAL_P(5);
	if (args.retention)
		dv_check_partition_retention(args.retention);
	args.schedule = dv_partition_schedule(PG_ARGISNULL(6) ? "manual" : text_to_cstring(PG_GETARG_TEXT_PP(6)));
	PG_RETURN_OID(dv_create_partitioned_dynamic_table(&args));
}

/*
 * dv_create_partitioned_dynamic_table - create T, empty, partitioned by
 * LIST on args->partition_by, and register it.
 */
Oid
dv_create_partitioned_dynamic_table(DvPartitionedArgs *args)
{
	RangeVar   *rv;
	Oid			nspid;
	Oid			existing;
	DvAnalyzedQuery *aq;
	Query	   *q;
	StringInfoData sql;
	ListCell   *ln,
			   *lt,
			   *lm;
	int			attno = 0;
	bool		found = false;
	char	   *qualified;
	Oid			relid;
	Oid			fn = partition_function();

	args->refresh_mode = dv_validate_refresh_mode(args->refresh_mode);
	args->schedule = dv_partition_schedule(args->schedule ? args->schedule : "manual");
	dv_check_wal_level();
	rv = makeRangeVarFromNameList(stringToQualifiedNameList(args->name));
	nspid = RangeVarGetAndCheckCreationNamespace(rv, NoLock, &existing);
	if (OidIsValid(existing))
		ereport(ERROR,
				(errcode(ERRCODE_DUPLICATE_TABLE),
				 errmsg("relation \"%s\" already exists", args->name),
				 errhint("Choose another name.")));
	if (isAnyTempNamespace(nspid))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("dynamic tables cannot be temporary"),
				 errhint("Create the dynamic table in a permanent schema.")));
	qualified = quote_qualified_identifier(get_namespace_name(nspid), rv->relname);

	SPI_connect();
	aq = dv_analyze_query(args->query, InvalidOid);
	q = (Query *) stringToNode(aq->definition_tree);
	initStringInfo(&sql);
	appendStringInfo(&sql, "CREATE TABLE %s (", qualified);
	forthree(ln, aq->column_names, lt, aq->column_types, lm, aq->column_typmods)
	{
		const char *col = strVal(lfirst(ln));
		Oid			coll = output_collation(q, ++attno);

		appendStringInfo(&sql, "%s%s %s", attno > 1 ? ", " : "", quote_identifier(col),
						 format_type_extended(lfirst_oid(lt), lfirst_int(lm),
											  FORMAT_TYPE_TYPEMOD_GIVEN | FORMAT_TYPE_FORCE_QUALIFY));
		if (OidIsValid(coll) && coll != get_typcollation(lfirst_oid(lt)))
		{
			HeapTuple	tup = SearchSysCache1(COLLOID, ObjectIdGetDatum(coll));

			if (HeapTupleIsValid(tup))
			{
				Form_pg_collation c = (Form_pg_collation) GETSTRUCT(tup);

				appendStringInfo(&sql, " COLLATE %s",
								 quote_qualified_identifier(get_namespace_name(c->collnamespace),
															NameStr(c->collname)));
				ReleaseSysCache(tup);
			}
		}
		if (strcmp(col, args->partition_by) == 0)
		{
			TargetEntry *te = list_nth(q->targetList, attno - 1);

			found = true;
			if (!is_partition_call((Node *) te->expr, fn))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("partition column \"%s\" must be dynview.partition()", col),
						 errdetail("Each partition holds the rows of one partition value, which that column has."),
						 errhint("Write dynview.partition() AS %s in the query.", quote_identifier(col))));
		}
	}
	if (!found)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("partition_by column \"%s\" is not a column of the query", args->partition_by),
				 errhint("Add dynview.partition() AS %s to the query.", quote_identifier(args->partition_by))));
	if (args->primary_key)
	{
		Datum	   *elems;
		bool	   *nulls;
		int			n;

		deconstruct_array(args->primary_key, TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls, &n);
		for (int i = 0; i < n; i++)
		{
			bool		known = false;

			if (nulls[i])
				ereport(ERROR,
						(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
						 errmsg("primary_key must not contain nulls"),
						 errhint("List the key columns of the query's result by name.")));
			foreach(ln, aq->column_names)
				known |= strcmp(strVal(lfirst(ln)), TextDatumGetCString(elems[i])) == 0;
			if (!known)
				ereport(ERROR,
						(errcode(ERRCODE_UNDEFINED_COLUMN),
						 errmsg("primary_key column \"%s\" is not a column of the query", TextDatumGetCString(elems[i])),
						 errhint("Name columns of the query's result.")));
		}
	}
	appendStringInfo(&sql, ") PARTITION BY LIST (%s)", quote_identifier(args->partition_by));
	if (SPI_execute(sql.data, false, 0) != SPI_OK_UTILITY)
		elog(ERROR, "could not create %s", qualified);
	CommandCounterIncrement();
	relid = get_relname_relid(rv->relname, nspid);
	{
		Oid			types[8] = {OIDOID, TEXTOID, TEXTOID, TEXTOID, TEXTARRAYOID, INTERVALOID, TEXTOID, TEXTOID};
		Datum		values[8];
		char		nulls[8] = {' ', ' ', ' ', ' ', ' ', ' ', ' ', ' '};

		values[0] = ObjectIdGetDatum(relid);
		values[1] = CStringGetTextDatum(args->query);
		values[2] = CStringGetTextDatum(aq->definition);
		values[3] = CStringGetTextDatum(args->partition_by);
		values[4] = args->primary_key ? PointerGetDatum(args->primary_key) : (Datum) 0;
		nulls[4] = args->primary_key ? ' ' : 'n';
		values[5] = args->retention ? IntervalPGetDatum(args->retention) : (Datum) 0;
		nulls[5] = args->retention ? ' ' : 'n';
		values[6] = CStringGetTextDatum(args->refresh_mode);
		values[7] = CStringGetTextDatum(args->schedule);
		dv_catalog_exec("INSERT INTO dynview.partitioned_table_catalog "
						"(relid, query, definition, partition_column, primary_key, retention, refresh_mode, schedule) "
						"VALUES ($1::regclass, $2, $3, $4, $5, $6, $7, $8)",
						8, types, values, nulls, -1);
	}
	dv_guard_invalidate(relid);
	SPI_finish();
	return relid;
}

Datum
dynview_refresh_partition(PG_FUNCTION_ARGS)
{
	char	   *name;
	char	   *value;
	RangeVar   *rv;
	Oid			relid;
	Datum		result;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("argument \"%s\" must not be null", PG_ARGISNULL(0) ? "name" : "partition"),
				 errhint("Pass a value for it.")));
	name = text_to_cstring(PG_GETARG_TEXT_PP(0));
	value = text_to_cstring(PG_GETARG_TEXT_PP(1));
	/* '' is dynview.partition unset (REFRESH MATERIALIZED VIEW refuses it too) */
	if (value[0] == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a partition value must not be empty"),
				 errdetail("An empty dynview.partition means that no partition is named."),
				 errhint("Pass a value, such as '20260526'.")));
	rv = makeRangeVarFromNameList(stringToQualifiedNameList(name));
	relid = RangeVarGetRelid(rv, NoLock, true);
	if (!OidIsValid(relid))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("dynamic table \"%s\" does not exist", name),
				 errhint("The view dynview.dynamic_tables lists the dynamic tables.")));
	if (!pg_class_ownercheck(relid, GetUserId()))
		aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_TABLE, get_rel_name(relid));
	SPI_connect();
	result = dv_refresh_partition(relid, value);
	SPI_finish();
	PG_RETURN_DATUM(result);
}
