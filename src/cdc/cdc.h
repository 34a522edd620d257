/*-------------------------------------------------------------------------
 *
 * cdc.h
 *	  Change capture: shared state (shmem.c), the output plugin (plugin.c),
 *	  the decoder worker (decoder.c) and source tracking (tracking.c).
 *
 * A change buffer is a table dynview_buffer.changes_<source oid> with the
 * columns
 *	  dv_xid xid8			top-level transaction of the change
 *	  dv_commit_lsn pg_lsn	start of that transaction's commit record
 *	  dv_commit_time timestamptz
 *	  dv_seq int			ordinal of the row within the transaction
 *	  dv_weight smallint	+1 new image, -1 old image, 0 marker
 *	  dv_relid oid			the relation the change was logged under: the
 *							source, or a partition or inheritance child of it
 *							(a reader of FROM ONLY source keeps the source's own)
 *	  dv_marker "char"		NULL for a change row; for a marker (weight 0, its
 *							source columns NULL), why its readers must recompute:
 *							DV_MARKER_TRUNCATE, DV_MARKER_NO_OLD_ROW,
 *							DV_MARKER_RETYPED
 * followed by the source's columns (as they were when tracking began,
 * plus any added later for a new dynamic table), typed as in the source.
 * Rows are written only by the decoder and deleted only by pruning.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DYNVIEW_CDC_H
#define DYNVIEW_CDC_H

#include "access/xlogdefs.h"
#include "access/xlogreader.h"
#include "datatype/timestamp.h"
#include "postmaster/bgworker.h"
#include "replication/output_plugin.h"
#include "storage/latch.h"
#include "utils/rel.h"

#define DV_BUFFER_SCHEMA	"dynview_buffer"
#define DV_BUFFER_META_COLS	7	/* dv_xid .. dv_marker */

/* what a marker (a buffer row of weight 0) stands for: its dv_marker */
#define DV_MARKER_TRUNCATE	't'	/* TRUNCATE of the source (or of a partition or child) */
#define DV_MARKER_NO_OLD_ROW 'i'	/* an UPDATE or DELETE logged without its whole old
									 * row: the replica identity was not FULL */
#define DV_MARKER_RETYPED	'a'	/* a value of a column whose type changed since */

extern int	dv_max_sources;
extern bool dv_buffer_meta_column(const char *name);
extern void dv_buffer_check_layout(Relation buffer);

/* plugin.c: dynview's own writes, which the output plugin never decodes */
extern uint16 dv_cdc_own_writes_begin(void);
extern void dv_cdc_own_writes_end(uint16 previous);
extern void dv_cdc_own_writes_always(void);
extern uint16 dv_cdc_writes_not_own_begin(void);

/*
 * Where the decoder of a database is (shared memory, shown by cdc_status).
 * FAILED and NO_WORKER mean that capture cannot run now: refreshes and
 * create_dynamic_table fail at once with the recorded cause instead of
 * waiting (dv_capture_check).  RESTARTING: it ran, failed, and is being
 * restarted (waiters keep waiting).
 */
typedef enum DvCaptureState
{
	DV_CAPTURE_NOT_STARTED,		/* the launcher has not started it yet */
	DV_CAPTURE_STARTING,		/* started: connecting, creating its slot */
	DV_CAPTURE_RUNNING,			/* decoding */
	DV_CAPTURE_RESTARTING,		/* failed after it ran; restarted after a backoff */
	DV_CAPTURE_FAILED,			/* its last start failed (error recorded) */
	DV_CAPTURE_NO_WORKER		/* no background worker slot was free */
} DvCaptureState;

#define DV_CAPTURE_TEXT		256

/* a copy of one database's capture state (dv_shmem_capture_status) */
typedef struct DvCaptureStatus
{
	DvCaptureState state;
	uint32		attempts;
	pid_t		decoder_pid;
	bool		launcher_running;
	TimestampTz error_time;		/* 0: no failure recorded */
	char		error[DV_CAPTURE_TEXT];
	char		detail[DV_CAPTURE_TEXT];
	char		hint[DV_CAPTURE_TEXT];
} DvCaptureStatus;

typedef enum DvWaitResult
{
	DV_WAIT_DONE,
	DV_WAIT_TIMEOUT,
	DV_WAIT_SELF,				/* the decoder waits for this transaction */
	DV_WAIT_CAPTURE_FAILED		/* the decoder cannot run */
} DvWaitResult;

/* shmem.c */
extern void dv_shmem_init(void);
extern bool dv_shmem_available(void);
extern void dv_shmem_register_database(Oid dboid, TransactionId creating_xid);
extern TransactionId dv_shmem_database_creating_xid(Oid dboid);
extern void dv_shmem_unregister_database(Oid dboid);
extern bool dv_shmem_unregister_database_of(Oid dboid, bool only_if, TransactionId creating_xid);
extern Oid *dv_shmem_databases(int *n);
extern void dv_shmem_set_launcher_latch(Latch *latch);
extern void dv_shmem_set_decoder(Oid dboid, Latch *latch);
extern void dv_shmem_wake_decoder(Oid dboid);
extern bool dv_shmem_decoder_running(Oid dboid);
extern void dv_shmem_set_scheduler(Oid dboid, Latch *latch);
extern void dv_shmem_wake_scheduler_at_commit(void);
extern void dv_shmem_wake_scheduler(Oid dboid);
extern void dv_shmem_publish_decoded(Oid dboid, Oid extension, XLogRecPtr lsn);
extern void dv_shmem_set_decoder_waiting(Oid dboid, TransactionId xid);
extern XLogRecPtr dv_shmem_decoded_lsn(Oid dboid, Oid extension);
extern DvWaitResult dv_shmem_wait_decoded(XLogRecPtr lsn, Oid extension, long timeout_ms);
extern bool dv_shmem_launcher_running(void);
extern void dv_shmem_capture_started(Oid dboid);
extern void dv_shmem_set_capture_state(Oid dboid, DvCaptureState state, const char *error,
									   const char *detail, const char *hint);
extern bool dv_shmem_capture_status(Oid dboid, DvCaptureStatus *status);
extern void dv_shmem_request_capture_retry(void);
extern bool dv_shmem_take_capture_retry(Oid dboid);
extern void dv_shmem_decoder_handed_over(Oid dboid);
extern bool dv_shmem_take_decoder_handover(Oid dboid);
extern void dv_shmem_capture_sleep(long timeout_ms);
extern void dv_shmem_track_source(Oid relid, bool in_transaction);
extern void dv_shmem_untrack_source(Oid relid);
extern bool dv_shmem_database_registered(Oid dboid);
extern bool dv_shmem_source_tracked(Oid dboid, Oid relid, TransactionId *creating_xid);
extern uint64 dv_shmem_tracking_generation(void);

/* recordfilter.c */
extern void dv_record_filter_begin(void);
extern bool dv_record_filter_skip(XLogReaderState *record);

/*
 * One decoded change, kept by the output plugin until the decoder writes
 * it (in the decoder's memory context; see plugin.c).
 */
typedef struct DvChange
{
	Oid			relid;			/* the tracked source it counts for */
	Oid			logged_relid;	/* the relation it was logged under (dv_relid) */
	TransactionId xid;			/* top-level */
	bool		streamed;		/* kept before its transaction ended (no commit known) */
	XLogRecPtr	commit_lsn;		/* InvalidXLogRecPtr when streamed */
	TimestampTz commit_time;	/* unused when streamed (NULL in the buffer) */
	int32		seq;
	int16		weight;
	char		marker;			/* weight 0: a DV_MARKER_* (else '\0') */
	TupleDesc	desc;			/* shared by the changes of one relation version */
	HeapTuple	tuple;			/* flat copy; NULL for a marker */
} DvChange;

/*
 * A transaction the reorder buffer streams before it ends, because it
 * outgrew logical_decoding_work_mem (plugin.c).  Its changes go to the change
 * buffers while it runs, under its xid, which no data snapshot sees before
 * it commits; if it or one of its subtransactions aborts, the decoder deletes
 * those rows in the batch that processes the abort, before it publishes a
 * position past the abort record (design section 5: a refresh whose snapshot
 * sees the transaction ended waits for that position).  Kept in
 * txn->output_plugin_private until the transaction ends.
 */
typedef struct DvStream
{
	TransactionId xid;			/* top-level */
	MemoryContext context;		/* holds this struct and its lists */
	int32		seq;			/* next dv_seq */
	TransactionId writer;		/* (sub)transaction of the change being kept */
	List	   *runs;			/* of DvSeqRun: which subtransaction wrote which dv_seq */
	List	   *sources;		/* OIDs of the sources it kept changes for */
	bool		in_buffers;		/* a batch has written some of its rows */
} DvStream;

typedef struct DvSeqRun
{
	TransactionId xid;			/* the (sub)transaction that wrote dv_seq first .. last */
	int32		first;
	int32		last;
} DvSeqRun;

/* rows of an aborted streamed (sub)transaction, deleted with the next batch */
typedef struct DvStreamRemoval
{
	TransactionId xid;			/* top-level: dv_xid */
	List	   *sources;		/* OIDs of the sources whose buffers may hold them */
	char	   *seq_ranges;		/* int4multirange of their dv_seq; NULL: every row */
} DvStreamRemoval;

/* The plugin's state, shared with the decoder loop (decoder.c) */
typedef struct DvPluginState
{
	MemoryContext context;		/* holds changes; reset by the decoder after writing */
	List	   *changes;		/* of DvChange *, in commit order */
	XLogRecPtr	skip_upto;		/* transactions ending at or before: already written */
	bool		skipping;		/* the current transaction is skipped */
	int32		seq;			/* next ordinal in the current transaction */
	Size		bytes;			/* approximate size of changes */
	XLogRecPtr	last_commit_end;	/* end of the last commit decoded */
	List	   *desc_cache;		/* of TupleDesc, this batch */
	MemoryContext stream_context;	/* lives as long as the worker: streams */
	List	   *streams;		/* of DvStream *, streamed and not ended (stream_context) */
	bool		streams_changed;	/* streams changed since the last batch */
	List	   *removals;		/* of DvStreamRemoval *, this batch */
} DvPluginState;

/* decoder.c */
extern void dv_decoder_start(Oid dboid, BackgroundWorkerHandle **handle);
extern char *dv_slot_name(Oid dboid);

/* capture.c */
extern Oid	dv_capture_installation(void);
extern bool dv_capture_sync(long timeout_ms);
extern bool dv_capture_wait(XLogRecPtr lsn, long timeout_ms);
extern XLogRecPtr dv_capture_position(void);
extern bool dv_capture_before_dropdb(const char *dbname);
extern void dv_capture_check(void);
extern bool dv_capture_unavailable(void);
extern const char *dv_capture_state_name(DvCaptureState state);
extern const char *dv_capture_plugin_setting_problem(void);

/* tracking.c */
extern void dv_tracking_start(List *sources, bool identity_required);
extern void dv_tracking_release_unused(void);
extern void dv_tracking_wait_for_decoder(void);
extern void dv_tracking_lock_first_start(const char *query);
extern void dv_tracking_sync_buffers(List *sources);
extern Oid	dv_buffer_relid(Oid source_relid);
extern void dv_publication_identity(Oid relid, const char *kind);
extern void dv_publication_identity_all(void);
extern Oid	dv_buffer_column_type(Oid type, int32 *typmod);

/* partitions.c */
extern List *dv_partition_capture_targets(Relation relation);
extern List *dv_partition_leaves(Oid relid, LOCKMODE lockmode);
extern bool dv_partition_utility_relevant(Node *parsetree);
extern List *dv_partition_utility_before(Node *parsetree);
extern void dv_partition_utility_after(Node *parsetree, List *detached);

#endif							/* DYNVIEW_CDC_H */
