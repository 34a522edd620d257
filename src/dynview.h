/*-------------------------------------------------------------------------
 *
 * dynview.h
 *	  Declarations shared by the modules of dynview.
 *
 * dynview keeps the result of a SELECT (a "dynamic table") fresh.  The
 * modules are:
 *	  catalog/   catalog access (dynamic_table_catalog, source_catalog,
 *				 refresh_history) and the SQL-callable API
 *	  analyze/   query checks: parse, analyse, rewrite, deparse, sources
 *	  refresh/   refresh of one dynamic table and of a pipeline; verify()
 *	  hooks/	 guards against direct DML on dynamic tables; DROP bookkeeping
 *	  scheduler/ the launcher background worker
 *
 * Catalog rows are only written through catalog.c, which switches to the
 * bootstrap superuser for the writes; queries of dynamic tables run as the
 * table's owner with search_path fixed to "pg_catalog, pg_temp".
 *
 *-------------------------------------------------------------------------
 */
#ifndef DYNVIEW_H
#define DYNVIEW_H

#include "postgres.h"

#include "access/xlogdefs.h"
#include "nodes/parsenodes.h"
#include "nodes/pg_list.h"
#include "tcop/dest.h"
#include "utils/tuplestore.h"
#include "utils/array.h"
#include "utils/resowner.h"
#include "utils/relcache.h"
#include "utils/snapshot.h"
#include "utils/timestamp.h"

#define DV_SCHEMA				"dynview"
#define DV_CATALOG_TABLE		"dynamic_table_catalog"
#define DV_SAFE_SEARCH_PATH		"pg_catalog, pg_temp"

/* GUCs (dynview.c) */
extern bool dv_enabled;
extern int	dv_naptime;
extern int	dv_max_consecutive_failures;
extern int	dv_change_retention;
extern bool dv_log_refreshes;
extern double dv_full_refresh_change_ratio;
extern bool dv_linear_windows_as_is;
extern bool dv_window_filter_functions;
extern bool dv_delta_statistics;
extern bool dv_index_recompute_pairs;
extern int	dv_distinct_values_per_row;
extern int	dv_history_retention;
extern int	dv_max_sources_per_role;
extern int	dv_lock_timeout;
extern bool dv_keep_freed_memory;
extern int	dv_max_refresh_workers;

/* Refresh triggers, as stored in refresh_history.refresh_trigger */
typedef enum DvRefreshTrigger
{
	DV_TRIGGER_SYSTEM_SCHEDULED,
	DV_TRIGGER_MANUAL,
	DV_TRIGGER_CREATION,
	DV_TRIGGER_UPSTREAM
} DvRefreshTrigger;

/*
 * One source of a dynamic table, as recorded in dynview.source_catalog.
 * relid is InvalidOid while the source is missing (dropped).
 */
typedef struct DvSource
{
	Oid			relid;
	char	   *schema_name;
	char	   *table_name;
	bool		is_dynamic;		/* the source is itself a dynamic table */
	List	   *columns;		/* names of the columns the query reads (String);
								 * set by dv_analyze_query only */
} DvSource;

/*
 * A dynamic table's catalog row, in the memory context current when it was
 * loaded (dv_catalog_load).
 */
typedef struct DvTable
{
	Oid			relid;
	Oid			owner;
	char	   *schema_name;
	char	   *table_name;
	char	   *query;			/* as the user wrote it */
	char	   *definition;		/* qualified SQL run by refreshes */
	char	   *schedule;
	char	   *refresh_mode;	/* auto | incremental | full */
	char	   *effective_mode; /* INCREMENTAL | FULL */
	char	   *mode_reason_code;	/* NULL if none */
	char	   *mode_reason;
	char	   *scheduling_state;	/* ACTIVE | SUSPENDED */
	char	   *next_refresh_full;	/* reason code, NULL if none */
	bool		has_data_snapshot;
	char	   *data_snapshot;	/* pg_snapshot text, NULL if none */
	char	   *data_own_xids;	/* xid8[] text */
	int			as_is_failures; /* windows read as they are: failures in a row */
	int			as_is_skip;		/* refreshes left that consolidate first */
	char	   *as_is_error;	/* the last failure's error, NULL if none */
	List	   *sources;		/* of DvSource * */
} DvTable;

/*
 * The result of analysing a query (analyze.c).  All in the caller's memory
 * context.
 */
typedef struct DvAnalyzedQuery
{
	Query	   *query;			/* analysed and rewritten */
	char	   *definition;		/* deparsed, schema-qualified */
	char	   *definition_tree;	/* nodeToString of the analysed query before
									 * rewriting: Vars by column number, so it
									 * deparses with a renamed column's new name */
	List	   *sources;		/* of DvSource *, deduplicated */
	List	   *column_names;	/* of String */
	List	   *column_types;	/* of Oid, as int list */
	List	   *column_typmods; /* int list */
	const char *full_reason_code;	/* why AUTO resolves to FULL */
	char	   *full_reason;
} DvAnalyzedQuery;

/* One refresh's outcome, to be written to refresh_history */
typedef struct DvRefreshResult
{
	const char *state;			/* SUCCEED | FAILED | ... */
	const char *refresh_mode;	/* INCREMENTAL | FULL | NO_DATA */
	int64		rows_inserted;
	int64		rows_deleted;
	const char *mode_reason_code;
	char	   *mode_reason;
	char	   *error_message;
	char	   *data_snapshot;	/* pg_snapshot text, NULL if none */
	XLogRecPtr	data_lsn;
	TimestampTz start_time;
	TimestampTz end_time;
} DvRefreshResult;

/* catalog/catalog.c */
extern bool dv_extension_present(void);
extern Oid	dv_catalog_relid(void);
extern Oid	dv_resolve_dynamic_table(const char *name, bool missing_ok, bool check_owner);
extern bool dv_is_dynamic_table(Oid relid);
extern bool dv_try_lock_refresh(Oid relid);
extern void dv_lock_refresh_write(Oid relid);
extern DvTable *dv_catalog_load(Oid relid);
extern void dv_catalog_insert(Oid relid, const char *query, DvAnalyzedQuery *aq,
							  const char *schedule, const char *refresh_mode,
							  const char *effective_mode, ArrayType *primary_key);
extern void dv_catalog_replace_definition(Oid relid, const char *query, DvAnalyzedQuery *aq,
										  const char *schedule, const char *refresh_mode,
										  const char *effective_mode, ArrayType *primary_key);
extern void dv_catalog_set_sources(Oid relid, List *sources);
extern void dv_catalog_update_source(Oid relid, DvSource *source);
extern void dv_catalog_rename_source(Oid relid, DvSource *source, const char *schema_name,
									 const char *table_name);
extern bool dv_source_renamed_away(DvTable *dt, DvSource *src, char **new_name);
extern void dv_catalog_set_schedule(Oid relid, const char *schedule, const char *refresh_mode);
extern void dv_catalog_set_as_is_failure(Oid relid, int failures, int skip, const char *error);
extern void dv_catalog_set_next_full(Oid relid, const char *reason_code);
extern void dv_catalog_mark_changed_outside(Oid relid);
extern char *dv_catalog_source_altered(Oid relid);
extern Oid	dv_rel_owner(Oid relid);
extern bool dv_catalog_reads_source(Oid relid, Oid source);
extern List *dv_catalog_readers(Oid source);
extern void dv_catalog_note_signatures(Oid relid);
extern void dv_catalog_set_effective_mode(Oid relid, const char *effective, const char *code,
										  const char *reason);
extern void dv_catalog_clear_data(Oid relid);
extern void dv_catalog_set_state(Oid relid, const char *state, const char *reason);
extern void dv_catalog_record_success(Oid relid, Snapshot snapshot, TimestampTz when,
									  XLogRecPtr lsn, const char *state);
extern void dv_catalog_forget_relations(List *relids);
extern List *dv_catalog_upstream_closure(Oid relid);
extern bool dv_catalog_reaches(Oid from_relid, const char *schema_name, const char *table_name);
extern Datum dv_history_insert(DvTable *dt, DvRefreshTrigger trigger, DvRefreshResult *res);
extern char *dv_error_text(const ErrorData *edata);
extern void dv_log_error_and_abort(MemoryContext cxt, const char *what);
/* relid's schema-qualified, quoted name (palloc'd), or "?" for a dropped relation */
extern char *dv_relation_qualified_name(Oid relid);
extern void dv_history_failure(Oid relid, DvRefreshTrigger trigger, const char *state,
							   const char *message);
extern void dv_history_skipped(Oid relid, DvRefreshTrigger trigger, const char *reason_code,
							   const char *reason);
extern char *dv_lock_timeout_reason(const char *message);
extern void dv_history_begin_running(Oid root, DvRefreshTrigger trigger);
extern void dv_history_end_running(void);
extern void dv_history_delete_running(void);
extern void dv_history_forget_running(void);
extern void dv_history_interrupted(void);
extern void dv_history_worker_stopped(List *relids);
extern int	dv_safe_search_path_push(void);
extern void dv_safe_search_path_pop(int nestlevel);
extern void dv_catalog_exec_kept(const char *sql, int expected);
extern void dv_catalog_exec(const char *sql, int nargs, Oid *types, Datum *values,
							const char *nulls, int expected);
struct _SPI_plan;
extern uint64 dv_catalog_exec_into(const char *sql, struct _SPI_plan *plan, int nargs, Oid *types, Datum *values,
								   Snapshot snapshot, DestReceiver *dest);
extern char *dv_snapshot_to_text(Snapshot snapshot);
extern uint64 dv_widen_xid(TransactionId xid);
extern Snapshot dv_catalog_data_snapshot(Oid relid);
extern char *dv_catalog_get_signature(Oid relid);
extern char *dv_signature(const char *text);
extern bool dv_signature_matches(const char *stored, const char *text);
extern void dv_catalog_set_signature(Oid relid, const char *signature);
extern char *dv_catalog_get_definition_tree(Oid relid);
extern void dv_catalog_set_definition_tree(Oid relid, const char *tree);
extern void dv_catalog_set_definition(Oid relid, const char *definition);

/*
 * What a new dynamic table is made of (catalog/api.c): from the arguments
 * of create_dynamic_table(), or from CREATE MATERIALIZED VIEW ... WITH
 * (dynview.*) (hooks/matview.c).
 */
typedef struct DvCreateArgs
{
	char	   *name;			/* possibly qualified, quoted as SQL names are */
	char	   *query;
	char	   *schedule;		/* validated (dv_validate_schedule) */
	char	   *refresh_mode;	/* validated (dv_validate_refresh_mode) */
	bool		initialize;		/* fill it at once */
	ArrayType  *primary_key;	/* text[] or NULL */
	List	   *key_columns;	/* of char *, from primary_key */
} DvCreateArgs;

/* catalog/api.c */
extern Oid	dv_create_dynamic_table(DvCreateArgs *args, bool replace);
extern bool dv_catalog_sync_apply_index(DvTable *dt, bool create);
extern void dv_alter_dynamic_table(Oid relid, const char *schedule, const char *mode);

/* catalog/partitioned.c: partitioned dynamic tables */
typedef struct DvPartitionedArgs
{
	char	   *name;
	char	   *query;
	char	   *partition_by;	/* column of the query: dynview.partition() */
	ArrayType  *primary_key;	/* text[] or NULL */
	char	   *refresh_mode;
	char	   *schedule;		/* of every partition: an interval or 'manual' */
	Interval   *retention;		/* drop partitions whose value is older; NULL: keep all */
} DvPartitionedArgs;

extern char *dv_partition_setting;
extern Oid	dv_create_partitioned_dynamic_table(DvPartitionedArgs *args);
extern Datum dv_refresh_partition(Oid relid, const char *value);
extern bool dv_is_partitioned_dynamic_table(Oid relid);
extern bool dv_partitioned_holds_rows(Oid relid);
extern void dv_check_partition_owner(Oid parent, Oid part);
extern void dv_check_partition_owners(Oid parent);
extern void dv_check_partition_owned(Oid relid);
/* does snapshot (NULL: a new one) see a row of rel (not_own: not written by this transaction)? */
extern bool dv_relation_sees_row(Relation rel, Snapshot snapshot, bool not_own);
/* the composite type a value of type typid holds, through arrays, domains and ranges (catalog.c) */
extern Oid	dv_row_type_held(Oid typid);
/* an error that says to retry (lock, cancel, deadlock, serialization: catalog.c) */
extern bool dv_error_to_retry(ErrorData *edata);
extern void dv_partitioned_forget(Datum relid_array);
extern Interval *dv_partition_retention(const char *text, bool days_if_number);
extern void dv_check_partition_retention(Interval *retention);
extern char *dv_partition_schedule(const char *schedule);
extern void dv_partitioned_alter(Oid relid, const char *schedule, const char *mode,
								 Interval *retention, bool reset_retention);
extern int	dv_partitioned_expire(Oid relid);
extern List *dv_partitioned_with_retention(void);

/* analyze/analyze.c */
extern DvAnalyzedQuery *dv_analyze_query(const char *query_text, Oid self_relid);
extern char *dv_case_folding_hint(const char *name);
extern bool dv_source_is_capturable(Oid relid);
extern char *dv_definition_tree(const char *definition);
extern char *dv_validate_schedule(const char *schedule);
extern char *dv_validate_refresh_mode(const char *mode);
extern void dv_check_wal_level(void);
extern List *dv_column_names(Oid relid, Bitmapset *cols);
extern Bitmapset *dv_policy_columns(RangeTblEntry *rte);
extern Bitmapset *dv_captured_columns(RangeTblEntry *rte);
extern Query *dv_parse_definition(const char *sql);
extern void dv_check_definition_permissions(Query *q);

/* analyze/keys.c */
struct RelationData;
extern List *dv_index_tuples(struct RelationData *rel);
extern double dv_rows_per_value(struct RelationData *rel, AttrNumber attno, double *null_rows);
extern Oid	dv_btree_family(Oid type);

/* refresh/refresh.c */
extern Datum dv_refresh_pipeline(Oid relid, DvRefreshTrigger trigger);
extern const char *dv_refresh_skip_reason(struct ErrorData *edata, char **reason);
extern Datum dv_refresh_one(Oid relid, DvRefreshTrigger trigger, Snapshot snapshot,
							XLogRecPtr lsn, bool *refreshed);
extern void dv_refresh_empty(Oid relid);
extern char *dv_temp_table_name(const char *base, Oid relid);
struct ErrorData;
extern void dv_rethrow_refresh_error(struct ErrorData *edata, const char *sql, const char *context) pg_attribute_noreturn();
extern bool dv_key_too_long(const struct ErrorData *edata);
extern void dv_full_refresh_sql(DvTable *dt, const char *query, const char *restrict_q,
								const char *restrict_t, char **delete_sql, char **insert_sql,
								bool returning);
extern bool dv_as_owner_caught(DvTable *dt, void (*step) (DvTable *dt, void *arg), void *arg,
							   bool keep, ErrorData **error);

/* refresh/incremental.c */
struct SPITupleTable;
extern ErrorData *dv_subxact_caught(MemoryContext oldcontext, ResourceOwner oldowner);
extern Oid	dv_refresh_truncated_source(DvTable *dt, Snapshot snapshot, XLogRecPtr lsn, bool *known);
extern bool dv_refresh_incremental(DvTable *dt, Snapshot snapshot, XLogRecPtr lsn,
								   DvRefreshResult *res, const char **full_code, char **full_reason);
extern bool dv_sources_unchanged(DvTable *dt, Snapshot snapshot, XLogRecPtr lsn);
extern void dv_write_own_buffer(DvTable *dt, struct SPITupleTable *tuptable, uint64 ntuples,
								int weight, int32 *seq);
/*
 * The pipeline's handoff (incremental.c, "The handoff"): begin with the
 * target and the pipeline's tables (its upstream closure, target included);
 * complete after each table's successful refresh; end with the tables
 * refreshed, at the pipeline's own level (not in a table's subtransaction):
 * rows a refresh kept back from its buffer are then written unless every
 * reader of its table is among them.
 */
extern void dv_handoff_begin(Oid target, List *members);
extern void dv_handoff_end(List *done);
extern void dv_handoff_flush(Oid relid);
extern void dv_handoff_complete(Oid relid);
extern uint64 dv_exec_fill(const char *sql, Snapshot snapshot, const char *what,
						   const char *table, Oid target);
extern DestReceiver *dv_bulk_receiver(Oid target);
extern struct PlannedStmt *dv_plan_fill(const char *sql);
extern uint64 dv_exec_fill_into(const char *sql, Snapshot snapshot, const char *what,
								const char *table, DestReceiver *dest, Oid target);
extern uint64 dv_exec_statement(const char *sql, Snapshot snapshot, bool read_only,
								const char *what, const char *table, int *rc);
extern uint64 dv_exec_at(const char *sql, Snapshot snapshot, bool read_only);
extern bool dv_refresh_writes_own(void);

/*
 * A row's place (its index in some array) with a hash of it, sorted by hash
 * then place (dv_row_hash_compare, for qsort) so that rows of one hash are
 * next to each other: consolidate_delta's rows, the direct apply's pairs.
 */
typedef struct DvRowHash
{
	uint32		hash;
	uint64		row;
} DvRowHash;
extern int	dv_row_hash_compare(const void *a, const void *b);

/* refresh/apply.c */

/*
 * A distinct row of a select/join table's consolidated delta, as the direct
 * apply takes it: its columns in the table's order (dropped ones included,
 * NULL), its net weight (not 0; dv_apply_update sets it to 0 for a row it
 * applied as half of an update).
 */
typedef struct DvDeltaRow
{
	Datum	   *values;
	bool	   *nulls;
	int64		weight;
} DvDeltaRow;

/*
 * dv_row_datum - the composite value (palloc'd) of the row values/nulls of
 * row type desc (its tdtypeid set: a relation's descriptor, or its row
 * type's), as ROW(...)::type makes it; record_out gives its text form
 */
extern Datum dv_row_datum(TupleDesc desc, Datum *values, bool *nulls);

typedef struct DvApply DvApply;
extern DvApply *dv_apply_begin(DvTable *dt, List *key);
extern bool dv_apply_can_delete(DvApply *a);
/*
 * dv_apply_update - the pairs of rows of weight -1 and +1 with one key (its
 * images identical) updated in place, their weights set to 0; returns the
 * rows updated (each a row deleted and one inserted for the counts)
 */
extern uint64 dv_apply_update(DvApply *a, DvDeltaRow *rows, uint64 n, Snapshot snapshot, int32 *seq);
extern uint64 dv_apply_delete(DvApply *a, DvDeltaRow *rows, uint64 n, Snapshot snapshot, int32 *seq);
extern uint64 dv_apply_insert(DvApply *a, DvDeltaRow *rows, uint64 n, Snapshot snapshot, int32 *seq);
/*
 * dv_apply_diff - replace rows of the table (old: each its ctid, then its
 * columns) by others (new: its columns), matched by the unique key index
 * (by_key) or by text form, unchanged pairs left alone; false, having
 * changed nothing, where a statement must decide (see apply.c)
 */
extern bool dv_apply_diff(DvApply *a, bool by_key, struct SPITupleTable *old, uint64 nold,
						  struct SPITupleTable *new, uint64 nnew, Snapshot snapshot, int32 *seq,
						  uint64 *deleted, uint64 *inserted);
extern void dv_apply_end(DvApply *a);

/* parameters $1..$nargs of a generated statement, as SPI takes them */
typedef struct DvParams
{
	int			nargs;
	Oid		   *types;
	Datum	   *values;
	char	   *nulls;			/* 'n' for NULL, ' ' otherwise */
	bool		generic;		/* scalars whose values cannot change the
								 * plan much: one generic plan kept for all
								 * (statements.c) */
} DvParams;
extern void dv_full_refresh_restricted(DvTable *dt, const char *query, const char *restrict_q,
									   const char *restrict_t, DvParams *params, Snapshot snapshot,
									   DvRefreshResult *res, int32 *seq);

extern uint64 dv_exec_at_params(const char *sql, Snapshot snapshot, bool read_only,
								DvParams *params);
extern void dv_set_current_table(const char *qualified_name);
extern void dv_dest_receiver_init(DestReceiver *self, CommandDest mydest,
								  void (*startup) (DestReceiver *self, int operation, TupleDesc typeinfo),
								  bool (*receive) (TupleTableSlot *slot, DestReceiver *self),
								  void (*shutdown) (DestReceiver *self),
								  void (*destroy) (DestReceiver *self));
extern void dv_register_tuples(const char *name);
extern void dv_register_store(const char *name, Tuplestorestate *ts, TupleDesc desc, uint64 ntuples);
extern void dv_unregister_tuples(const char *name);
extern void dv_forget_aborted_tuples(void);
struct StringInfoData;
extern void dv_registered_tuples_shape(const char *sql, struct StringInfoData *buf);
extern bool dv_registered_column_stats(const char *name, List *coltypes, double ntuples, int attno,
									   double *distinct, double *nulls);

/* refresh/deltastats.c: the planner's statistics of a refresh's ephemeral relations */
extern void dv_delta_stats_init(void);
extern char *dv_key_restriction(List *columns, const char *alias, struct SPITupleTable *tt,
								uint64 n, DvParams *params, bool *exact);

/*
 * dv_null_patterns - the patterns of NULLs in the first ncols columns of the
 * n rows of tt: the distinct sets of the (1-based) columns NULL in a row, in
 * the order first met (a row without NULL: an empty set, a NULL list cell);
 * NIL when there are more than DV_NULL_PATTERNS.  *nulls (when not NULL)
 * gets the columns NULL in any row; row_pattern (when not NULL, n entries)
 * each row's place in the list.
 */
#define DV_NULL_PATTERNS 32
struct Bitmapset;
extern List *dv_null_patterns(struct SPITupleTable *tt, uint64 n, int ncols, struct Bitmapset **nulls,
							  int *row_pattern);
extern void dv_refuse_row_security_off(DvTable *dt, const char *action);
extern void dv_run_as_owner(Oid owner, int *save_nestlevel, Oid *save_userid, int *save_sec);
extern void dv_restore_user(int save_nestlevel, Oid save_userid, int save_sec);
extern void dv_set_output_styles(void);

/* refresh/aggstate.c: aggregate state tables (dynview_state) */
struct DvPlan;

/* refresh/statements.c: kept plans of incremental refresh statements */
struct _SPI_plan;
extern void dv_statements_begin(Oid relid);
extern void dv_statements_end(void);
extern void dv_statements_forget(Oid relid);
extern struct _SPI_plan *dv_statements_prepare(const char *sql, int nargs, Oid *types, Datum *values,
											   const char *nulls, bool scalars_generic, bool *kept);
extern void dv_statements_run(struct _SPI_plan *plan, bool kept,
							  void (*run) (struct _SPI_plan *plan, void *arg), void *arg);
extern Oid	dv_statements_scope(void);

/* refresh/plancache.c */
extern Query *dv_plan_cache_query(DvTable *dt);
extern struct DvPlan *dv_plan_cache_plan(DvTable *dt);
extern void dv_plan_cache_set_delta_rows(struct DvPlan *plan, int64 rows);
extern bool dv_plan_cache_own_writes(DvTable *dt, bool (*decide) (DvTable *dt));
extern char *dv_plan_cache_signature(DvTable *dt, char *(*make) (DvTable *dt));

/* refresh/incremental.c */
extern void dv_refresh_mark_own_writes(bool on);
extern Oid	dv_agg_state_relid(Oid relid);
extern bool dv_agg_state_usable(DvTable *dt, struct DvPlan *plan, char **reason);
extern void dv_agg_state_drop(Oid relid);
extern bool dv_agg_state_runs_user_code(Oid relid);
extern void dv_agg_state_rebuild(DvTable *dt, Snapshot snapshot);
extern char *dv_agg_state_projection(DvTable *dt, Snapshot snapshot);
extern bool dv_topn_state_usable(DvTable *dt);
extern char *dv_topn_state_table(Oid relid, bool bound);
extern char *dv_unused_column_name(Oid relid, const char *base);
extern void dv_topn_state_fill(DvTable *dt, struct DvPlan *plan, Snapshot snapshot);
extern void dv_topn_state_store(DvTable *dt, struct DvPlan *plan, Snapshot snapshot, const char *rows,
								uint64 n);
extern bool dv_agg_state_linear(struct DvPlan *plan);
extern bool dv_agg_state_apply(DvTable *dt, struct DvPlan *plan, Snapshot snapshot,
							   DvRefreshResult *res, int32 *seq, bool *no_group, char **why);

/* refresh/txnwatch.c */
extern void dv_watch_refreshed(Oid relid, List *sources);
extern bool dv_holds_write_lock(Oid relid);
extern void dv_watch_written(Oid relid);
extern void dv_watch_written_through(Oid relid, Oid through);
extern bool dv_watch_written_since(Oid table, Oid relid);
extern bool dv_watch_changed_since(Oid table, Oid relid);
extern void dv_watch_written_in_refresh(Oid relid);
extern bool dv_watch_active(void);

/* refresh/verify.c */
extern bool dv_verify(Oid relid, bool *unknown);
extern bool dv_sources_changed_after(DvTable *dt);
extern bool dv_refreshed_in_this_transaction(DvTable *dt);

/* hooks/guard.c */
extern void dv_guard_init(void);
extern void dv_guard_invalidate(Oid relid);
extern void dv_guard_note_write(Oid relid);
extern void dv_guard_set_refreshing(Oid relid, List *sources);
extern void dv_guard_begin_write(Oid *save_target, int *save_level);
extern void dv_guard_end_write(Oid save_target, int save_level);
extern void dv_guard_begin_direct_write(Oid *save_target, int *save_level);
extern void dv_guard_end_direct_write(Oid save_target, int save_level);
extern bool dv_guard_in_refresh_statement(void);
extern void dv_guard_allow_column_ddl(Oid relid);
/* the levels dynview's own DDL runs at (guard.c dv_guard_begin_own_ddl) */
typedef struct DvGuardOwnDdl
{
	int			utility;		/* utility nesting of the caller, -1 for none */
	int			exec;			/* executor nesting of the caller */
	LocalTransactionId lxid;	/* the caller's transaction */
} DvGuardOwnDdl;
extern void dv_guard_begin_own_ddl(DvGuardOwnDdl *save);
extern void dv_guard_end_own_ddl(const DvGuardOwnDdl *save);
extern bool dv_guard_is_dynamic_table(Oid relid);

/* cdc/partitions.c */
extern bool dv_partition_tree_capturable(Oid relid);
extern List *dv_relation_ancestors(Oid relid);

/* hooks/matview.c */
struct PlannedStmt;
extern List *dv_matview_translate(struct PlannedStmt *pstmt, const char *queryString);

/* scheduler/launcher.c */
struct BackgroundWorkerHandle;
extern void dv_launcher_register(void);
extern void dv_start_database_worker(Oid dboid, const char *function, const char *type,
									 struct BackgroundWorkerHandle **handle);

/* scheduler/scheduler.c */
extern void dv_scheduler_start(Oid dboid, struct BackgroundWorkerHandle **handle);

#endif							/* DYNVIEW_H */
