/*-------------------------------------------------------------------------
 *
 * dynview.c
 *	  Module entry point: GUCs, hooks and the launcher registration.
 *
 * The library must be in shared_preload_libraries for the background
 * workers; loaded any other way (e.g. by CREATE EXTENSION alone) it still
 * defines its GUCs and guards so that the SQL API works with manual
 * refreshes.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"


#include <limits.h>

#include "fmgr.h"
#include "miscadmin.h"
#include "utils/guc.h"

#include "dynview.h"
#include "cdc/cdc.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

/* GUC variables; see the descriptions below */
bool		dv_enabled = true;
int			dv_naptime = 1000;
int			dv_max_consecutive_failures = 5;
int			dv_change_retention = 86400;
bool		dv_log_refreshes = false;
int			dv_history_retention = 7 * 1440;
int			dv_max_sources_per_role = 256;
double		dv_full_refresh_change_ratio = 0.5;
int			dv_lock_timeout = 1000;
int			dv_max_refresh_workers = 1;
bool		dv_keep_freed_memory = true;
bool		dv_linear_windows_as_is = true;
bool		dv_window_filter_functions = true;
bool		dv_delta_statistics = true;
bool		dv_index_recompute_pairs = true;
int			dv_distinct_values_per_row = 256;

static void
define_gucs(void)
{
	DefineCustomBoolVariable("dynview.enabled",
							 "Runs scheduled refreshes of dynamic tables.",
							 "When off, the scheduler refreshes nothing; dynview.refresh() still works.",
							 &dv_enabled, true, PGC_SIGHUP, 0,
							 NULL, NULL, NULL);
	DefineCustomIntVariable("dynview.naptime",
							"Longest time the scheduler sleeps between looks at the catalog.",
							NULL,
							&dv_naptime, 1000, 10, 60 * 60 * 1000, PGC_SIGHUP,
							GUC_UNIT_MS, NULL, NULL, NULL);
	DefineCustomIntVariable("dynview.max_consecutive_failures",
							"Scheduled refresh failures in a row after which a dynamic table is suspended.",
							"0 never suspends.",
							&dv_max_consecutive_failures, 5, 0, 1000000, PGC_SIGHUP,
							0, NULL, NULL, NULL);
	/* seconds, not minutes: a test must be able to exceed it without waiting a minute */
	DefineCustomIntVariable("dynview.change_retention",
							"How long a dynamic table may hold back the change buffers of its sources.",
							"A table whose data is older than this while its sources' buffers hold changes it has not consumed stops holding them back: they are pruned and its next refresh is FULL.",
							&dv_change_retention, 86400, 1, INT_MAX, PGC_SIGHUP,
							GUC_UNIT_S, NULL, NULL, NULL);
	DefineCustomIntVariable("dynview.history_retention",
							"How long the scheduler keeps rows of dynview.refresh_history.",
							"Older rows are deleted, except each dynamic table's latest; 0 keeps every row.",
							&dv_history_retention, 7 * 1440, 0, INT_MAX / 60, PGC_SIGHUP,
							GUC_UNIT_MIN, NULL, NULL, NULL);
	DefineCustomBoolVariable("dynview.log_refreshes",
							 "Logs every refresh of a dynamic table to the server log.",
							 NULL,
							 &dv_log_refreshes, false, PGC_SUSET, 0,
							 NULL, NULL, NULL);
	/*
	 * Per role rather than per database: one role must not take every
	 * dynview.max_sources slot from the other roles of its own database.
	 * PGC_SUSET, so that a role cannot raise its own limit, while a
	 * superuser can give one role another value (ALTER ROLE ... SET).
	 */
	DefineCustomIntVariable("dynview.max_sources_per_role",
							"Most tracked source tables that the dynamic tables of one role may read.",
							"Checked when a dynamic table would start tracking a new source; superusers are exempt; -1 means no limit.",
							&dv_max_sources_per_role, 256, -1, 1000000, PGC_SUSET,
							0, NULL, NULL, NULL);
	DefineCustomRealVariable("dynview.full_refresh_change_ratio",
							 "Change volume above which a refresh of an AUTO dynamic table is FULL.",
							 "A window with more change rows than this fraction of its sources' rows (planner estimate) "
							 "is recomputed instead of applied (reason CHANGE_VOLUME); 0 never does so.",
							 &dv_full_refresh_change_ratio, 0.5, 0.0, 1000000.0, PGC_USERSET,
							 0, NULL, NULL, NULL);
	/*
	 * Scheduled refreshes only: one session holding a lock on a source (a
	 * LOCK TABLE, an ALTER TABLE) must not stall the scheduler and with it
	 * every other pipeline of the database.
	 */
	DefineCustomIntVariable("dynview.lock_timeout",
							"Longest time a scheduled refresh waits for a lock.",
							"A scheduled refresh that waits longer for a lock (on a source, a dynamic table or a catalog row) "
							"is given up, recorded as SKIPPED with reason LOCK_TIMEOUT, and retried at the next cycle; "
							"the scheduler goes on with the other pipelines. 0 waits without limit. Manual refreshes use the caller's lock_timeout.",
							&dv_lock_timeout, 1000, 0, INT_MAX, PGC_SIGHUP,
							GUC_UNIT_MS, NULL, NULL, NULL);
	DefineCustomIntVariable("dynview.max_refresh_workers",
							"Most pipelines of one database the scheduler refreshes at once.",
							"Above 1, each due pipeline is refreshed by a background worker of its own (taken from max_worker_processes), "
							"so that a long refresh does not delay the others; pipelines that share a table never run at once. "
							"1 refreshes in the scheduler, one pipeline after another.",
							&dv_max_refresh_workers, 1, 1, 64, PGC_SIGHUP,
							0, NULL, NULL, NULL);
	DefineCustomBoolVariable("dynview.keep_freed_memory",
							 "A backend that refreshes keeps the memory it frees for its next allocations.",
							 "From its first refresh on, the backend's malloc serves requests of up to 32 MB from its heap "
							 "and returns freed memory to the system only beyond 64 MB, instead of mapping and unmapping "
							 "large blocks for every statement (each page of a new mapping costs a page fault); "
							 "its first refresh also makes 4 MB of heap resident in one call (Linux 5.14 or later) instead of page by page.",
							 &dv_keep_freed_memory, true, PGC_SUSET,
							 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("dynview.index_recompute_pairs",
							 "A grouped subquery whose first two group keys lead an index of its one source may keep no state and recompute its changed groups through that index by both keys.",
							 "Read when its states are built (the table's creation, a FULL refresh) and when a refresh plans. On by default: "
							 "the table is then built about as fast as CREATE MATERIALIZED VIEW builds a view (TPC-H Q20); off, such a subquery keeps its state.",
							 &dv_index_recompute_pairs, true, PGC_USERSET,
							 0, NULL, NULL, NULL);
	DefineCustomIntVariable("dynview.distinct_values_per_row",
							"Most distinct values per group, as the planner estimates them, for which the multiplicities of a count(DISTINCT) kept in place are stored one row per group (arrays of its values and their counts) instead of one row per group and value.",
							"Read when the state is built (the table's creation, a FULL refresh). One row per group writes and indexes as many rows as the table has groups, "
							"and a refresh rewrites each changed group's arrays; one row per value writes and indexes a row per group and value, and a refresh probes the changed values. 0: always one row per value.",
							&dv_distinct_values_per_row, 256, 0, 100000, PGC_USERSET,
							0, NULL, NULL, NULL);
	DefineCustomBoolVariable("dynview.linear_windows_as_is",
							 "An incremental refresh whose every consumer of the changes is linear in their weights reads the windows without consolidating them.",
							 "Aggregates kept in place whose aggregates are all sums of weighted rows (count, sum, avg, the variance family, bool_and/or), over scans, filters and inner joins: "
							 "rows added and removed within one window cancel in the sums, so the window's rows are not grouped first. "
							 "If that raises an error (an expression evaluated on a row a later change undid), the refresh is done again over the consolidated windows.",
							 &dv_linear_windows_as_is, true, PGC_USERSET,
							 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("dynview.window_filter_functions",
							 "The read of a source's changes also applies the query's conditions on that source that call built-in immutable functions that are not leakproof.",
							 "Such as comparisons of numeric, or of a date with a timestamp: change rows the query's filter rejects are then not consolidated nor joined. "
							 "If such a condition raises an error on a change row (one a later change undid, say), the changes are read again without it. "
							 "Never for a source whose row-level security applies to the table's owner. Read at each refresh.",
							 &dv_window_filter_functions, true, PGC_USERSET,
							 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("dynview.delta_statistics",
							 "The planner is given column statistics of the changes and state rows an incremental refresh's statements read.",
							 "Each column's fraction of NULLs and number of distinct values, counted over the rows (at most 100,000, in memory) "
							 "when the planner first asks for them: without them it assumes a tenth of the rows share a hash bucket, "
							 "and hashes the other side of a join whole rather than the changes. Read when the rows are read; "
							 "statements planned with and without them are kept apart. Off: PostgreSQL's defaults.",
							 &dv_delta_statistics, true, PGC_USERSET,
							 0, NULL, NULL, NULL);
	/* a PGC_POSTMASTER setting can only be defined while preloading */
	if (process_shared_preload_libraries_in_progress)
		DefineCustomIntVariable("dynview.max_sources",
								"Most source tables whose changes dynview captures, over all databases.",
								NULL,
								&dv_max_sources, 1024, 16, 1000000, PGC_POSTMASTER,
								0, NULL, NULL, NULL);
	DefineCustomStringVariable("dynview.partition",
							   "The partition value of a partitioned dynamic table.",
							   "REFRESH MATERIALIZED VIEW of a partitioned dynamic table fills or refreshes this partition; dynview.partition() returns it.",
							   &dv_partition_setting, "", PGC_USERSET, 0,
							   NULL, NULL, NULL);
	MarkGUCPrefixReserved("dynview");
}

void
_PG_init(void)
{
	define_gucs();
	dv_guard_init();
	dv_delta_stats_init();

	if (process_shared_preload_libraries_in_progress)
	{
		dv_shmem_init();
		dv_launcher_register();
	}
}
