-- dynview 0.1.0: dynamic tables for PostgreSQL
--
-- Creates the catalogs, the monitoring views and the SQL API of design section 2.
-- Catalog tables are written only by dynview's C code (which switches to the
-- bootstrap superuser for that); users read them through the views.

\echo Use "CREATE EXTENSION dynview" to load this file. \quit

-- Schema dynview is the extension's: CREATE EXTENSION makes it (the control file's schema) unless
-- it exists, and then uses it as it is.  One made beforehand by a role that is not a superuser,
-- one where such a role may create objects, or one holding an object of such a role is refused:
-- its owner could put objects there under the names dynview's SQL calls, or drop the extension
-- with the schema (DROP SCHEMA dynview CASCADE; a tester, session 35).
DO $$
DECLARE
    why text;
BEGIN
    SELECT CASE
             WHEN NOT r.rolsuper THEN format('it is owned by role %I, which is not a superuser', r.rolname)
             WHEN EXISTS (SELECT 1 FROM pg_catalog.aclexplode(n.nspacl) a
                           WHERE a.privilege_type = 'CREATE'
                             AND (a.grantee = 0 OR NOT (SELECT g.rolsuper FROM pg_catalog.pg_roles g WHERE g.oid = a.grantee)))
               THEN 'a role that is not a superuser may create objects in it'
             WHEN EXISTS (SELECT 1 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_roles o ON o.oid = c.relowner
                           WHERE c.relnamespace = n.oid AND NOT o.rolsuper
                          UNION ALL
                          SELECT 1 FROM pg_catalog.pg_proc f JOIN pg_catalog.pg_roles o ON o.oid = f.proowner
                           WHERE f.pronamespace = n.oid AND NOT o.rolsuper
                          UNION ALL
                          SELECT 1 FROM pg_catalog.pg_type t JOIN pg_catalog.pg_roles o ON o.oid = t.typowner
                           WHERE t.typnamespace = n.oid AND NOT o.rolsuper
                          UNION ALL
                          SELECT 1 FROM pg_catalog.pg_operator p JOIN pg_catalog.pg_roles o ON o.oid = p.oprowner
                           WHERE p.oprnamespace = n.oid AND NOT o.rolsuper)
               THEN 'it holds objects of a role that is not a superuser'
           END
      INTO why
      FROM pg_catalog.pg_namespace n JOIN pg_catalog.pg_roles r ON r.oid = n.nspowner
     WHERE n.nspname = 'dynview';
    IF why IS NOT NULL THEN
        RAISE EXCEPTION 'schema "dynview" existed before CREATE EXTENSION dynview and %', why
            USING ERRCODE = 'insufficient_privilege',
                  DETAIL = 'dynview''s code lives in schema "dynview", which only superusers may control.',
                  HINT = 'Drop schema "dynview" (or give it to a superuser, revoke CREATE on it and remove other roles'' objects from it), then create the extension again.';
    END IF;
END
$$;

-------------------------------------------------------------------------------
-- Catalogs
-------------------------------------------------------------------------------

-- One row per dynamic table.
CREATE TABLE dynview.dynamic_table_catalog (
    relid                regclass PRIMARY KEY,
    schema_name          name NOT NULL,
    table_name           name NOT NULL,
    query                text NOT NULL,        -- the query as the user wrote it
    definition           text NOT NULL,        -- analysed, rewritten, schema-qualified SQL run by refreshes
    schedule             text NOT NULL,
    refresh_mode         text NOT NULL CHECK (refresh_mode IN ('auto', 'incremental', 'full')),
    effective_mode       text NOT NULL CHECK (effective_mode IN ('INCREMENTAL', 'FULL')),
    mode_reason_code     text,
    mode_reason          text,
    primary_key          text[],
    scheduling_state     text NOT NULL DEFAULT 'ACTIVE' CHECK (scheduling_state IN ('ACTIVE', 'SUSPENDED')),
    suspend_reason       text,
    data_snapshot        pg_snapshot,          -- the snapshot the contents equal the query at
    data_subxids         xid8[],               -- in-progress subtransactions of data_snapshot (for verify)
    data_suboverflowed   boolean NOT NULL DEFAULT false,
    data_own_xids        xid8[],               -- the refreshing transaction (and its subtransactions):
                                               -- visible in the data too, though not in data_snapshot
    data_command_id      bigint,               -- command id of the refresh, for verify() in its transaction
    data_timestamp       timestamptz,
    data_lsn             pg_lsn,
    last_refresh_state   text,
    consecutive_failures int NOT NULL DEFAULT 0,
    as_is_failures       int NOT NULL DEFAULT 0,   -- dynview.linear_windows_as_is: reads of the windows
                                               -- as they were that failed in a row (an undone row's error)
    as_is_skip           int NOT NULL DEFAULT 0,   -- refreshes left that consolidate first after that
    as_is_error          text,                     -- the last such failure, for mode_reason
    next_refresh_full    text,                 -- reason code when the next refresh must be FULL
    definition_signature text,                 -- signature of the analysed, rewritten definition at
                                               -- the last refresh: a replaced view changes it ("h1:"
                                               -- and 128 bits of hash_bytes_extended; an md5 from
                                               -- older builds is compared as one until rewritten)
    data_origin          text,                 -- "<system identifier>:<database oid>" of the data
                                               -- snapshot (a restored one is not trusted)
    definition_tree      text,                 -- the definition analysed (nodeToString, views not
                                               -- inlined): deparsed again after a column rename
    created_at           timestamptz NOT NULL DEFAULT now()
);

-- One row per partitioned dynamic table (issue 15): a partitioned table whose partitions, one per
-- value of partition_column, are dynamic tables of their own (query with dynview.partition()
-- replaced by the value), made by the first refresh of that value.
CREATE TABLE dynview.partitioned_table_catalog (
    relid            regclass PRIMARY KEY,
    query            text NOT NULL,            -- as the user wrote it, dynview.partition() inside
    definition       text NOT NULL,            -- analysed, schema-qualified (not rewritten)
    partition_column name NOT NULL,
    refresh_mode     text NOT NULL CHECK (refresh_mode IN ('auto', 'incremental', 'full')),
    primary_key      text[],
    schedule         text NOT NULL DEFAULT 'manual',  -- of the partition of the greatest value
    retention        interval CHECK (retention > interval '0'),  -- drop partitions not refreshed for longer
    created_at       timestamptz NOT NULL DEFAULT now()
);

-- One row per (dynamic table, source it reads). Sources are remembered by name too, so that a
-- dropped source that reappears is recognised (design section 7).
CREATE TABLE dynview.source_catalog (
    relid          regclass NOT NULL,          -- the dynamic table
    source_relid   oid NOT NULL,               -- the source (0 while it is missing)
    source_schema  name NOT NULL,
    source_name    name NOT NULL,
    source_signature text,                     -- columns and storage when last refreshed (DDL check)
    PRIMARY KEY (relid, source_schema, source_name)
);
CREATE INDEX ON dynview.source_catalog (source_relid);

-- A source's shape: a signature ("h1:" and 128 bits of PostgreSQL's hash_bytes_extended under
-- two seeds; older builds stored an md5, still compared as one) of its relfilenode, of each live
-- column's number, name, type, typmod, collation and NOT NULL, and of its valid unique indexes
-- (NULL for a relation that does not exist).  A change (ALTER ... TYPE, a column dropped and added again, a rewrite, a primary key or
-- unique index dropped or added) is invisible to change capture and may change the keys a plan
-- derives from the source, so a refresh that sees one is FULL.
CREATE FUNCTION dynview._source_signature(relid oid)
RETURNS text
AS 'MODULE_PATHNAME', 'dynview_source_signature'
LANGUAGE C STRICT STABLE
SET search_path = pg_catalog, pg_temp;

-- Counts the rows a FULL refresh of a table with a unique key reads and matches (internal: the
-- refresh checks that no row of the table matched two identical rows of its query).
CREATE FUNCTION dynview._full_refresh_count(slot integer)
RETURNS boolean
AS 'MODULE_PATHNAME', 'dynview_full_refresh_count'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

-- The filter test of a refresh's delta over a window its read already filtered (internal: the
-- refresh writes dynview._window_filtered(<the filter>) where the read applied every conjunct of
-- the filter, so that the planner, which has no statistics for a window, estimates the test to keep
-- at least a third of the rows rather than 1 in 200; the value is its argument's).
CREATE FUNCTION dynview._window_filtered_support(internal)
RETURNS internal
AS 'MODULE_PATHNAME', 'dynview_window_filtered_support'
LANGUAGE C STRICT;
CREATE FUNCTION dynview._window_filtered(passes boolean)
RETURNS boolean
AS 'MODULE_PATHNAME', 'dynview_window_filtered'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF
SUPPORT dynview._window_filtered_support;
COMMENT ON FUNCTION dynview._window_filtered(boolean) IS
$$Internal: returns its argument.  A refresh tests a filter again on the rows of a window whose read applied that filter already through this function; its planner support function (dynview._window_filtered_support) estimates that the test keeps at least a third of the rows (the planner's own guess where higher), so that a window's size is not guessed some hundred times too small.
Example: SELECT dynview._window_filtered(1 < 2);$$;
COMMENT ON FUNCTION dynview._window_filtered_support(internal) IS
$$Internal: the planner support function of dynview._window_filtered() (its selectivity: the planner's guess for the argument, at least 1/3).$$;

-- The window of design section 5: is a change buffer row of transaction xid one that snapshot cur
-- sees and snapshot prev did not (each with the xids it counts as its own)?  Internal: every window
-- read of a refresh tests each buffer row with it (one call a row; the snapshots and lists are parsed
-- once per statement).
CREATE FUNCTION dynview._window_contains(xid xid8, prev pg_snapshot, prev_own xid8[],
                                         cur pg_snapshot, cur_own xid8[])
RETURNS boolean
AS 'MODULE_PATHNAME', 'dynview_window_contains'
LANGUAGE C STRICT IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION dynview._window_contains(xid8, pg_snapshot, xid8[], pg_snapshot, xid8[]) IS
$$Internal: whether a change buffer row of transaction xid is in the refresh window from snapshot prev (and the xids prev_own its refresh counted as its own) to snapshot cur (and cur_own): visible in cur or one of cur_own, and neither visible in prev nor one of prev_own.  Window reads test every buffer row with it; an error if prev_own or cur_own holds NULL.
Example: SELECT dynview._window_contains('7', '5:8:7', '{}', '5:9:', '{}');$$;

-- The non-null count of a numeric (or bigint) input as an aggregate whose transition is
-- sum(numeric)'s and avg(numeric)'s (sum(bigint)'s and avg(bigint)'s): beside sum(x) or avg(x) of
-- the same x, PostgreSQL computes the three with one transition state per row (aggregate state
-- fills: the count n<j> of a sum or avg).  Internal.
CREATE FUNCTION dynview._numeric_nonnull_count_final(internal)
RETURNS bigint
AS 'MODULE_PATHNAME', 'dynview_numeric_nonnull_count_final'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dynview._nonnull_count(numeric) (
    SFUNC = pg_catalog.numeric_avg_accum,
    STYPE = internal,
    SSPACE = 128,
    FINALFUNC = dynview._numeric_nonnull_count_final,
    COMBINEFUNC = pg_catalog.numeric_avg_combine,
    SERIALFUNC = pg_catalog.numeric_avg_serialize,
    DESERIALFUNC = pg_catalog.numeric_avg_deserialize,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dynview._nonnull_count(numeric) IS
$$Internal: count(x) of a numeric x (non-null inputs, NaN and infinities included; 0 over no row), computed from the transition state of sum(numeric) and avg(numeric), which PostgreSQL shares with a sum(x) or avg(x) of the same x in the same query: the state fills of dynamic tables count a numeric sum's inputs with it at no cost per row.
Example: SELECT sum(x), dynview._nonnull_count(x) FROM (VALUES (1.5), (NULL), ('NaN')) v(x);$$;
CREATE FUNCTION dynview._int8_nonnull_count_final(internal)
RETURNS bigint
AS 'MODULE_PATHNAME', 'dynview_int8_nonnull_count_final'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dynview._nonnull_count(bigint) (
    SFUNC = pg_catalog.int8_avg_accum,
    STYPE = internal,
    SSPACE = 48,
    FINALFUNC = dynview._int8_nonnull_count_final,
    COMBINEFUNC = pg_catalog.int8_avg_combine,
    SERIALFUNC = pg_catalog.int8_avg_serialize,
    DESERIALFUNC = pg_catalog.int8_avg_deserialize,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE dynview._nonnull_count(bigint) IS
$$Internal: count(x) of a bigint x (non-null inputs; 0 over no row), computed from the transition state of sum(bigint) and avg(bigint), which PostgreSQL shares with a sum(x) or avg(x) of the same x in the same query (see dynview._nonnull_count(numeric)).
Example: SELECT sum(x), dynview._nonnull_count(x) FROM (VALUES (1::bigint), (NULL), (3)) v(x);$$;

-- The window of design section 5 (buffer rows whose transaction cur sees and prev did not, each
-- with the xids it counts as its own) decided for each of xids by its three spellings: the SQL
-- condition that window reads run (by_sql: dynview._window_contains), the C function that scans
-- asking only whether a buffer holds a row of the window use (by_c), and the condition spelled with
-- pg_visible_in_snapshot (by_snapshots).  Internal: regress window_spellings checks they agree.
CREATE FUNCTION dynview._window_membership(xids xid8[], prev pg_snapshot, prev_own xid8[],
                                           cur pg_snapshot, cur_own xid8[])
RETURNS TABLE (xid xid8, by_sql boolean, by_c boolean, by_snapshots boolean)
AS 'MODULE_PATHNAME', 'dynview_window_membership'
LANGUAGE C STRICT IMMUTABLE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION dynview._window_membership(xid8[], pg_snapshot, xid8[], pg_snapshot, xid8[]) IS
$$Internal, for tests: for each xid, whether a change buffer row of that transaction is in the refresh window from snapshot prev (and its own xids prev_own) to snapshot cur (and cur_own), by the SQL condition window reads use (by_sql), by its C twin (by_c) and by the condition spelled with pg_visible_in_snapshot (by_snapshots).  The three must agree.
Example: SELECT * FROM dynview._window_membership('{5,7}', '5:8:7', '{}', '5:9:', '{}');$$;

-- Where data snapshots are taken: "<system identifier>:<database oid>".  A catalog row that arrives
-- with a data snapshot of another origin (pg_restore, or a dump loaded into another database or
-- cluster) names transactions of that other database, which this one may never have had (a lower
-- xid counter would make the table look fresh forever): the data snapshot is dropped and the next
-- refresh is FULL (RESTORED).  Every new data snapshot records the current origin.
CREATE FUNCTION dynview._data_origin()
RETURNS text
AS 'MODULE_PATHNAME', 'dynview_data_origin'
LANGUAGE C STRICT STABLE
SET search_path = pg_catalog, pg_temp;

-- The trigger below: a row written records the current origin; a row inserted with another one
-- loses its analysed tree and its data snapshot (next refresh FULL, RESTORED).  In C: a new
-- connection's first refresh no longer loads PL/pgSQL to update its catalog row.
CREATE FUNCTION dynview._catalog_data_origin()
RETURNS trigger
AS 'MODULE_PATHNAME', 'dynview_catalog_data_origin'
LANGUAGE C
SET search_path = pg_catalog, pg_temp;

CREATE TRIGGER data_origin BEFORE INSERT OR UPDATE OF data_snapshot ON dynview.dynamic_table_catalog
    FOR EACH ROW EXECUTE FUNCTION dynview._catalog_data_origin();

-- One row per refresh attempt.
CREATE TABLE dynview.refresh_history (
    refresh_id       bigserial PRIMARY KEY,
    name             regclass,
    schema_name      text NOT NULL,
    table_name       text NOT NULL,
    state            text NOT NULL CHECK (state IN ('RUNNING', 'SUCCEED', 'FAILED', 'SKIPPED', 'UPSTREAM_FAILED')),
    refresh_mode     text CHECK (refresh_mode IN ('INCREMENTAL', 'FULL', 'NO_DATA')),
    refresh_trigger  text NOT NULL CHECK (refresh_trigger IN ('SYSTEM_SCHEDULED', 'MANUAL', 'CREATION', 'UPSTREAM')),
    start_time       timestamptz NOT NULL,
    end_time         timestamptz,
    duration_ms      double precision,
    rows_inserted    bigint,
    rows_deleted     bigint,
    source_tables    jsonb,
    data_snapshot    pg_snapshot,
    data_lsn         pg_lsn,
    mode_reason_code text,
    mode_reason      text,
    error_message    text
);
CREATE INDEX ON dynview.refresh_history (name, refresh_id DESC);
COMMENT ON TABLE dynview.refresh_history IS
'One row per refresh attempt of a dynamic table: state, refresh mode and trigger, times, rows inserted and deleted, sources, data snapshot, reasons and errors. dynview.refresh_history(name, max_rows) gives the newest rows of one table.';

-- pg_dump keeps the catalogs (regclass columns are dumped by name and restored to new OIDs).
SELECT pg_catalog.pg_extension_config_dump('dynview.dynamic_table_catalog', '');
SELECT pg_catalog.pg_extension_config_dump('dynview.source_catalog', '');
SELECT pg_catalog.pg_extension_config_dump('dynview.partitioned_table_catalog', '');
SELECT pg_catalog.pg_extension_config_dump('dynview.refresh_history', '');
SELECT pg_catalog.pg_extension_config_dump('dynview.refresh_history_refresh_id_seq', '');

REVOKE ALL ON dynview.dynamic_table_catalog, dynview.source_catalog FROM PUBLIC;
REVOKE ALL ON dynview.refresh_history FROM PUBLIC;
GRANT SELECT ON dynview.refresh_history TO PUBLIC;
-- A role sees the history of the dynamic tables it owns (or is a member of the owner of) or may
-- SELECT, as pg_stat_statements shows other users' queries only to those allowed: error messages
-- carry source values.  Superusers (and dynview's own writes, made as the bootstrap superuser) see all.
ALTER TABLE dynview.refresh_history ENABLE ROW LEVEL SECURITY;
CREATE POLICY refresh_history_visible ON dynview.refresh_history FOR SELECT TO PUBLIC
    USING (pg_catalog.pg_has_role((SELECT c.relowner FROM pg_catalog.pg_class c
                                    WHERE c.oid OPERATOR(pg_catalog.=) name::pg_catalog.oid), 'USAGE')
           OR pg_catalog.has_table_privilege(name::pg_catalog.oid, 'SELECT'));
GRANT USAGE ON SCHEMA dynview TO PUBLIC;

-------------------------------------------------------------------------------
-- Monitoring views
-------------------------------------------------------------------------------

-- The views show only the dynamic tables the caller owns (or is a member of the owner of) or may
-- SELECT; security_barrier keeps a caller's functions from seeing the other rows.
CREATE VIEW dynview.dynamic_tables WITH (security_barrier) AS
SELECT c.relid AS name,
       c.query,
       c.schedule,
       c.refresh_mode,
       c.effective_mode,
       c.mode_reason_code,
       c.mode_reason,
       c.scheduling_state,
       c.suspend_reason,
       ARRAY(SELECT s.source_relid::regclass
               FROM dynview.source_catalog s
               JOIN dynview.dynamic_table_catalog u ON u.relid = s.source_relid::regclass
              WHERE s.relid = c.relid
              ORDER BY s.source_schema, s.source_name) AS upstreams,
       c.data_snapshot,
       c.data_timestamp,
       CASE WHEN c.data_timestamp IS NOT NULL THEN greatest(clock_timestamp() - c.data_timestamp, interval '0') END AS lag,
       c.last_refresh_state,
       c.consecutive_failures,
       c.primary_key,
       ARRAY(SELECT CASE WHEN s.source_relid = 0
                         THEN format('%I.%I', s.source_schema, s.source_name)
                         ELSE s.source_relid::regclass::text END
               FROM dynview.source_catalog s
              WHERE s.relid = c.relid
              ORDER BY s.source_schema, s.source_name) AS sources
  FROM dynview.dynamic_table_catalog c
 WHERE pg_has_role((SELECT r.relowner FROM pg_class r WHERE r.oid = c.relid::oid), 'USAGE')
    OR has_table_privilege(c.relid::oid, 'SELECT');

COMMENT ON VIEW dynview.dynamic_tables IS
'One row per dynamic table: definition, declared and effective refresh mode with its reason, scheduling state, upstream dynamic tables, data snapshot and lag.';

CREATE VIEW dynview.dependencies WITH (security_barrier) AS
SELECT s.source_relid::regclass AS upstream, s.relid AS downstream
  FROM dynview.source_catalog s
  JOIN dynview.dynamic_table_catalog u ON u.relid = s.source_relid::regclass
 WHERE pg_has_role((SELECT r.relowner FROM pg_class r WHERE r.oid = s.relid::oid), 'USAGE')
    OR has_table_privilege(s.relid::oid, 'SELECT');

COMMENT ON VIEW dynview.dependencies IS
'Edges of the dynamic table graph: each downstream dynamic table and the upstream dynamic table it reads.';

GRANT SELECT ON dynview.dynamic_tables, dynview.dependencies TO PUBLIC;

-------------------------------------------------------------------------------
-- SQL API (implemented in C)
-------------------------------------------------------------------------------

CREATE FUNCTION dynview.create_dynamic_table(
    name text,
    query text,
    schedule text DEFAULT '1 minute',
    refresh_mode text DEFAULT 'auto',
    initialize boolean DEFAULT true,
    primary_key text[] DEFAULT NULL,
    partition_by text DEFAULT NULL,
    retention interval DEFAULT NULL)
RETURNS regclass
LANGUAGE C VOLATILE
AS 'MODULE_PATHNAME', 'dynview_create_dynamic_table';

COMMENT ON FUNCTION dynview.create_dynamic_table(text, text, text, text, boolean, text[], text, interval) IS
$$Creates the dynamic table NAME (schema-qualified or created in the first schema of search_path) holding the result of QUERY, with exactly its columns and types.
schedule: an interval of at least 1 second ('1 minute', '5 seconds'), 'downstream' or 'manual'. refresh_mode: 'auto', 'incremental' or 'full'.
initialize: true fills the table at once (refresh trigger CREATION); false leaves it empty until the first refresh. primary_key: optional key columns of the result.
partition_by: a column of the result; makes NAME a partitioned dynamic table, as create_partitioned_dynamic_table (built deferred: initialize is not used; schedule, '1 minute' unless given as for any dynamic table: that of the partition of the greatest value, an interval or 'manual'); retention (with partition_by): an interval, partitions not refreshed for longer are dropped.
Errors: duplicate name (42P07), a query that is not a single SELECT or writes (0A000), a temporary source (0A000), bad schedule or mode (22023), wal_level not logical (55000); with partition_by those of create_partitioned_dynamic_table; retention without partition_by or not positive (22023).
Example: SELECT dynview.create_dynamic_table('public.order_totals', 'SELECT user_id, sum(amount) FROM orders GROUP BY user_id', schedule => '30 seconds');
Example: SELECT dynview.create_dynamic_table('part_dept', 'SELECT *, dynview.partition() AS pt FROM t_department', partition_by => 'pt', primary_key => '{dept_id}');$$;

-- schedule given as an interval: its text, as the text form above takes it
CREATE FUNCTION dynview.create_dynamic_table(
    name text,
    query text,
    schedule interval,
    refresh_mode text DEFAULT 'auto',
    initialize boolean DEFAULT true,
    primary_key text[] DEFAULT NULL,
    partition_by text DEFAULT NULL,
    retention interval DEFAULT NULL)
RETURNS regclass
LANGUAGE sql VOLATILE
SET IntervalStyle = 'postgres'
AS $$SELECT dynview.create_dynamic_table(name, query, schedule::pg_catalog.text, refresh_mode, initialize,
                                          primary_key, partition_by, retention)$$;

COMMENT ON FUNCTION dynview.create_dynamic_table(text, text, interval, text, boolean, text[], text, interval) IS
$$create_dynamic_table with the schedule given as an interval (at least 1 second) rather than as text; stored as its text ('00:01:00' for interval '1 minute').
Example: SELECT dynview.create_dynamic_table('public.order_totals', 'SELECT user_id, sum(amount) FROM orders GROUP BY user_id', schedule => interval '30 seconds');$$;

CREATE FUNCTION dynview.create_or_replace_dynamic_table(
    name text,
    query text,
    schedule text DEFAULT '1 minute',
    refresh_mode text DEFAULT 'auto',
    initialize boolean DEFAULT true,
    primary_key text[] DEFAULT NULL,
    partition_by text DEFAULT NULL,
    retention interval DEFAULT NULL)
RETURNS regclass
LANGUAGE C VOLATILE
AS 'MODULE_PATHNAME', 'dynview_create_or_replace_dynamic_table';

COMMENT ON FUNCTION dynview.create_or_replace_dynamic_table(text, text, text, text, boolean, text[], text, interval) IS
$$Creates the dynamic table NAME, or replaces the definition of an existing one keeping the table itself (OID, grants, indexes, dependents) and refilling it at once.
Existing columns must keep their names and types; new columns may be appended. Same arguments as create_dynamic_table, but partition_by must be NULL (0A000: a partitioned dynamic table is not replaced; drop and create it).
Errors: a changed column type (0A000, "cannot replace column ... from type A to type B": drop and recreate instead), a dropped or renamed column (0A000), NAME being an ordinary table (42809), a query reading the table itself or its downstreams (42P17).
Example: SELECT dynview.create_or_replace_dynamic_table('public.order_totals', 'SELECT user_id, sum(amount), count(*) FROM orders GROUP BY user_id');$$;

CREATE FUNCTION dynview.create_or_replace_dynamic_table(
    name text,
    query text,
    schedule interval,
    refresh_mode text DEFAULT 'auto',
    initialize boolean DEFAULT true,
    primary_key text[] DEFAULT NULL,
    partition_by text DEFAULT NULL,
    retention interval DEFAULT NULL)
RETURNS regclass
LANGUAGE sql VOLATILE
SET IntervalStyle = 'postgres'
AS $$SELECT dynview.create_or_replace_dynamic_table(name, query, schedule::pg_catalog.text, refresh_mode, initialize,
                                                     primary_key, partition_by, retention)$$;

COMMENT ON FUNCTION dynview.create_or_replace_dynamic_table(text, text, interval, text, boolean, text[], text, interval) IS
$$create_or_replace_dynamic_table with the schedule given as an interval (at least 1 second) rather than as text; stored as its text.
Example: SELECT dynview.create_or_replace_dynamic_table('public.order_totals', 'SELECT user_id, sum(amount), count(*) FROM orders GROUP BY user_id', schedule => interval '5 minutes');$$;

CREATE FUNCTION dynview.drop_dynamic_table(name text, if_exists boolean DEFAULT false)
RETURNS void
LANGUAGE C VOLATILE
AS 'MODULE_PATHNAME', 'dynview_drop_dynamic_table';

COMMENT ON FUNCTION dynview.drop_dynamic_table(text, boolean) IS
$$Drops the dynamic table NAME and its bookkeeping. Downstream dynamic tables keep their data and record NO_DATA refreshes (reason UPSTREAM_MISSING) until a table of that name appears again.
Errors: unknown name (42P01, unless if_exists), not a dynamic table (42809), not the owner (42501).
Example: SELECT dynview.drop_dynamic_table('public.order_totals', if_exists => true);$$;

CREATE FUNCTION dynview.refresh(name text)
RETURNS dynview.refresh_history
LANGUAGE C VOLATILE
AS 'MODULE_PATHNAME', 'dynview_refresh';

COMMENT ON FUNCTION dynview.refresh(text) IS
$$Refreshes the dynamic table NAME now, in the caller's transaction (refresh trigger MANUAL), refreshing its upstream dynamic tables first (trigger UPSTREAM); returns the history row of NAME.
Works under pg_cron: SELECT cron.schedule('totals', '* * * * *', $c$SELECT dynview.refresh('public.order_totals')$c$);
Errors: unknown name (42P01), not a dynamic table (42809), not the owner (42501), row_security off while row-level security policies of a source apply to the owner (42501); an error of the query itself is raised as is.
Example: SELECT state, refresh_mode, rows_inserted, rows_deleted FROM dynview.refresh('public.order_totals');$$;

CREATE FUNCTION dynview.partition()
RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$SELECT pg_catalog.current_setting('dynview.partition')$$;

COMMENT ON FUNCTION dynview.partition() IS
$$The partition value of a partitioned dynamic table, in its query: each partition's own query has it replaced by the partition's value (text). Outside such a query it is the setting dynview.partition.
Example: SELECT dynview.create_partitioned_dynamic_table('part_dept', 'SELECT *, dynview.partition() AS pt FROM t_department', partition_by => 'pt', primary_key => '{dept_id}');$$;

CREATE FUNCTION dynview.create_partitioned_dynamic_table(
    name text,
    query text,
    partition_by text,
    primary_key text[] DEFAULT NULL,
    refresh_mode text DEFAULT 'auto',
    retention interval DEFAULT NULL,
    schedule text DEFAULT 'manual')
RETURNS regclass
LANGUAGE C VOLATILE
AS 'MODULE_PATHNAME', 'dynview_create_partitioned_dynamic_table';

COMMENT ON FUNCTION dynview.create_partitioned_dynamic_table(text, text, text, text[], text, interval, text) IS
$$Creates NAME as a partitioned table (LIST on column PARTITION_BY of QUERY's result), empty: each partition is filled by refresh(NAME, partition => value), which creates it on demand as a dynamic table of its own (query with dynview.partition() replaced by the value) and later refreshes it from its own data snapshot. primary_key: key columns of each partition.
schedule: 'manual' (the default: a partition changes only when refreshed by name) or an interval: the scheduler keeps the partition of the greatest value (text order, the current batch) fresh; the others keep their rows until refreshed by name; it creates no partition.
retention: an interval (the seed's LIFECYCLE 10 is '10 days'): a partition not refreshed for longer is dropped, by the next partition refresh, by ALTER ... SET (dynview.retention) or by the scheduler.
Errors: as create_dynamic_table; PARTITION_BY not a column of the query (42703); a query without dynview.partition() (22023); retention not positive (22023); schedule 'downstream' (0A000).
Example: SELECT dynview.create_partitioned_dynamic_table('part_dept', 'SELECT *, dynview.partition() AS pt FROM t_department', partition_by => 'pt', primary_key => '{dept_id}', retention => '10 days');$$;

CREATE FUNCTION dynview.refresh(name text, partition text)
RETURNS dynview.refresh_history
LANGUAGE C VOLATILE
AS 'MODULE_PATHNAME', 'dynview_refresh_partition';

COMMENT ON FUNCTION dynview.refresh(text, text) IS
$$Refreshes partition PARTITION of the partitioned dynamic table NAME: creates it (trigger CREATION, FULL) if it does not exist, else refreshes it (MANUAL, INCREMENTAL from the partition's own data snapshot); other partitions keep their rows. Returns the partition's history row (table_name names the partition). The partition of the greatest value gets the table's schedule, the others 'manual'. Drops the partitions not refreshed for longer than the table's retention.
Errors: unknown name (42P01), not a partitioned dynamic table (42809), not the owner (42501), NULL partition (22004).
Example: SELECT state, refresh_mode, table_name FROM dynview.refresh('part_dept', partition => '20260526');$$;

CREATE FUNCTION dynview.alter_dynamic_table(name text, schedule text DEFAULT NULL, refresh_mode text DEFAULT NULL)
RETURNS void
LANGUAGE C VOLATILE
AS 'MODULE_PATHNAME', 'dynview_alter_dynamic_table';

COMMENT ON FUNCTION dynview.alter_dynamic_table(text, text, text) IS
$$Changes the schedule (an interval of at least 1 second, 'downstream' or 'manual') and/or the refresh mode ('auto', 'incremental', 'full') of the dynamic table NAME; NULL keeps a setting. For a partitioned dynamic table: its schedule (an interval or 'manual', given to the partition of the greatest value) and the mode of every partition.
Errors: unknown name (42P01), not a dynamic table (42809), not the owner (42501), bad schedule or mode (22023), 'downstream' for a partitioned dynamic table (0A000).
Example: SELECT dynview.alter_dynamic_table('public.order_totals', schedule => '5 minutes');$$;

CREATE FUNCTION dynview.alter_dynamic_table(name text, schedule interval, refresh_mode text DEFAULT NULL)
RETURNS void
LANGUAGE sql VOLATILE
SET IntervalStyle = 'postgres'
AS $$SELECT dynview.alter_dynamic_table(name, schedule::pg_catalog.text, refresh_mode)$$;

COMMENT ON FUNCTION dynview.alter_dynamic_table(text, interval, text) IS
$$alter_dynamic_table with the schedule given as an interval (at least 1 second) rather than as text; stored as its text.
Example: SELECT dynview.alter_dynamic_table('public.order_totals', schedule => interval '5 minutes');$$;

CREATE FUNCTION dynview.suspend(name text)
RETURNS void
LANGUAGE C VOLATILE
AS 'MODULE_PATHNAME', 'dynview_suspend';

COMMENT ON FUNCTION dynview.suspend(text) IS
$$Stops scheduled refreshes of the dynamic table NAME and of every dynamic table downstream of it (scheduling_state SUSPENDED, suspend_reason USER_SUSPENDED); dynview.refresh() still works.
Errors: unknown name (42P01), not a dynamic table (42809), not the owner (42501).
Example: SELECT dynview.suspend('public.order_totals');$$;

CREATE FUNCTION dynview.resume(name text)
RETURNS void
LANGUAGE C VOLATILE
AS 'MODULE_PATHNAME', 'dynview_resume';

COMMENT ON FUNCTION dynview.resume(text) IS
$$Restarts scheduled refreshes of the dynamic table NAME and of every dynamic table downstream of it (scheduling_state ACTIVE) and resets their failure counters.
Errors: unknown name (42P01), not a dynamic table (42809), not the owner (42501).
Example: SELECT dynview.resume('public.order_totals');$$;

CREATE FUNCTION dynview.verify(name text)
RETURNS boolean
LANGUAGE C VOLATILE
AS 'MODULE_PATHNAME', 'dynview_verify';

COMMENT ON FUNCTION dynview.verify(text) IS
$$Recomputes the query of the dynamic table NAME at its data snapshot and compares the result with the table as a multiset (values compared by their text form, then by equality).
Returns true when they are equal; otherwise raises a WARNING listing up to 10 differing rows and returns false, or NULL (WARNING 72000) when row versions its data snapshot sees may have been removed since (a source written after the refresh, the removal horizon past the snapshot): refresh and verify in one REPEATABLE READ transaction to be sure. A table never refreshed (initialize => false) verifies as empty.
Errors: unknown name (42P01), not a dynamic table (42809), row_security off while row-level security policies of a source apply to the owner (42501).
Example: SELECT dynview.verify('public.order_totals');$$;

CREATE FUNCTION dynview.refresh_history(name text, max_rows int DEFAULT 100)
RETURNS SETOF dynview.refresh_history
LANGUAGE plpgsql STABLE
-- No SET search_path: NAME resolves with the caller's search_path, as a table name in a query does.
-- Everything else is schema-qualified, operators included, so nothing a role plants on that path
-- is called; rows are those the row-level security policy of refresh_history shows the caller.
AS $$
BEGIN
    IF refresh_history.max_rows OPERATOR(pg_catalog.<) 0 THEN
        RAISE EXCEPTION 'max_rows must not be negative: %', refresh_history.max_rows
              USING ERRCODE = 'invalid_parameter_value',
                    HINT = 'Pass how many of the newest rows to return, or NULL for all of them.';
    END IF;
    -- (worded as the other functions word an unknown name, without this function's SQL as context)
    IF refresh_history.name IS NOT NULL AND pg_catalog.to_regclass(refresh_history.name) IS NULL THEN
        RAISE EXCEPTION 'dynamic table "%" does not exist', refresh_history.name
              USING ERRCODE = 'undefined_table',
                    HINT = 'The view dynview.dynamic_tables lists the dynamic tables.';
    END IF;
    RETURN QUERY
    SELECT h.*
      FROM dynview.refresh_history h
     WHERE h.name::pg_catalog.oid OPERATOR(pg_catalog.=) pg_catalog.to_regclass(refresh_history.name)::pg_catalog.oid
     ORDER BY h.refresh_id DESC
     LIMIT refresh_history.max_rows;
END
$$;

COMMENT ON FUNCTION dynview.refresh_history(text, int) IS
$$The newest MAX_ROWS (default 100; NULL: all) refresh history rows of the dynamic table NAME, newest first.
Errors: unknown name (42P01), negative MAX_ROWS (22023).
Example: SELECT state, refresh_mode, refresh_trigger, rows_inserted, rows_deleted, duration_ms FROM dynview.refresh_history('public.order_totals', 5);$$;

CREATE FUNCTION dynview.explain(query text, OUT property text, OUT value text)
RETURNS SETOF record
LANGUAGE C VOLATILE
AS 'MODULE_PATHNAME', 'dynview_explain';

COMMENT ON FUNCTION dynview.explain(text) IS
$$Shows how dynview would maintain QUERY, without creating anything: one row per property: mode (what refresh_mode 'auto' resolves to: INCREMENTAL or FULL), reason_code and reason (why FULL), operator (the delta rule), sources, key, definition (the schema-qualified SQL refreshes run) and delta (the SQL of the input's delta, reading dv_delta_<n>, the window of each source's change buffer).
Errors: those of create_dynamic_table for a bad query.
Example: SELECT * FROM dynview.explain('SELECT customer, sum(amount) FROM orders GROUP BY customer');$$;

CREATE FUNCTION dynview.explain_dynamic_table(name text, OUT property text, OUT value text)
RETURNS SETOF record
LANGUAGE C VOLATILE
AS 'MODULE_PATHNAME', 'dynview_explain_dynamic_table';

COMMENT ON FUNCTION dynview.explain_dynamic_table(text) IS
$$dynview.explain() for the current definition of the dynamic table NAME.
Errors: unknown name (42P01), not a dynamic table (42809).
Example: SELECT * FROM dynview.explain_dynamic_table('public.order_totals');$$;

-- The loop of wait_fresh(), for the dynamic table T (NAME as the caller wrote it, for messages).
CREATE FUNCTION dynview._wait_fresh(t regclass, timeout interval, name text)
RETURNS boolean
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    call_snapshot pg_snapshot := pg_catalog.pg_current_snapshot();
    deadline timestamptz;
    data pg_snapshot;
BEGIN
    IF timeout IS NULL OR timeout < interval '0' THEN
        RAISE EXCEPTION 'timeout must be a non-negative interval' USING ERRCODE = '22023',
            HINT = 'Pass an interval such as ''10 seconds''.';
    END IF;
    deadline := pg_catalog.clock_timestamp() + timeout;
    IF t IS NULL THEN
        RAISE EXCEPTION 'dynamic table "%" does not exist', name USING ERRCODE = '42P01',
            HINT = 'The view dynview.dynamic_tables lists the dynamic tables.';
    END IF;
    -- a table the role may not read: PostgreSQL's error, as verify() gives it (the view below
    -- shows only the tables the role may read, so that one would say "not a dynamic table")
    IF NOT pg_catalog.has_table_privilege(t, 'SELECT') THEN
        RAISE EXCEPTION 'permission denied for table %', name USING ERRCODE = '42501',
            HINT = 'wait_fresh() waits for a table the role may read; its owner can GRANT SELECT on it.';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM dynview.dynamic_tables d WHERE d.name::oid = t::oid) THEN
        -- as dynview.refresh() says it
        RAISE EXCEPTION '"%" is not a dynamic table', name USING ERRCODE = '42809',
            HINT = 'The view dynview.dynamic_tables lists the dynamic tables you may read.';
    END IF;
    LOOP
        SELECT d.data_snapshot INTO data FROM dynview.dynamic_tables d WHERE d.name::oid = t::oid;
        -- fresh: every transaction committed before the call is visible in the data snapshot
        IF data IS NOT NULL AND pg_catalog.pg_snapshot_xmax(data) >= pg_catalog.pg_snapshot_xmax(call_snapshot)
           AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_snapshot_xip(data) x
                            WHERE pg_catalog.pg_visible_in_snapshot(x, call_snapshot)) THEN
            RETURN true;
        END IF;
        -- not fresh yet: refresh now if allowed (the owner), else wait for the scheduler
        BEGIN
            PERFORM dynview.refresh(t::text);
            RETURN true;
        EXCEPTION WHEN insufficient_privilege THEN
            NULL;
        END;
        IF pg_catalog.clock_timestamp() >= deadline THEN
            RETURN false;
        END IF;
        PERFORM pg_catalog.pg_sleep(0.05);
    END LOOP;
END
$$;

CREATE FUNCTION dynview.wait_fresh(name text, timeout interval DEFAULT '1 minute')
RETURNS boolean
LANGUAGE sql VOLATILE STRICT
-- No SET search_path: NAME resolves with the caller's search_path; the body names only
-- schema-qualified functions with exact argument types, and the work runs in _wait_fresh, which
-- has its own fixed search_path.
AS $$
    SELECT dynview._wait_fresh(pg_catalog.to_regclass(wait_fresh.name), wait_fresh.timeout, wait_fresh.name)
$$;

COMMENT ON FUNCTION dynview.wait_fresh(text, interval) IS
$$Read-your-writes: returns true once the dynamic table NAME reflects every change committed before the call. If it does not yet, the table's owner refreshes it at once (refresh trigger MANUAL); anyone else waits for the scheduler, at most TIMEOUT (default 1 minute), and gets false on timeout.
Errors: unknown name (42P01), a relation that is not a dynamic table (42809), a table the role may not SELECT (42501), negative timeout (22023). In a REPEATABLE READ transaction later refreshes are not seen: call it in READ COMMITTED.
Example: SELECT dynview.wait_fresh('public.order_totals', '10 seconds');$$;

-------------------------------------------------------------------------------
-- Bookkeeping when tables are dropped with plain DROP TABLE / DROP SCHEMA
-------------------------------------------------------------------------------

CREATE FUNCTION dynview.on_sql_drop()
RETURNS event_trigger
LANGUAGE C
SET search_path = pg_catalog, pg_temp
AS 'MODULE_PATHNAME', 'dynview_on_sql_drop';

CREATE EVENT TRIGGER dynview_on_sql_drop ON sql_drop
    EXECUTE FUNCTION dynview.on_sql_drop();

REVOKE ALL ON FUNCTION dynview.on_sql_drop() FROM PUBLIC;

-------------------------------------------------------------------------------
-- Change capture (design section 4)
-------------------------------------------------------------------------------

-- Change buffers live here, one table per tracked source (dynview_buffer.changes_<oid>),
-- written only by the decoder worker.
CREATE SCHEMA dynview_buffer;
REVOKE ALL ON SCHEMA dynview_buffer FROM PUBLIC;

-- Aggregate state of dynamic tables whose aggregates are kept in place (design section 6):
-- dynview_state.agg_<oid> (one row per group) and dynview_state.dist_<oid>_<n> (multiplicities
-- of a count(DISTINCT)).  Each is owned by its dynamic table's owner, as whom refreshes read
-- and write it; it is rebuilt by every full refresh and dropped with its table.
CREATE SCHEMA dynview_state;
REVOKE ALL ON SCHEMA dynview_state FROM PUBLIC;
GRANT USAGE ON SCHEMA dynview_state TO PUBLIC;

-- One row per source whose changes are captured.
CREATE TABLE dynview.source_tracking (
    source_relid              oid PRIMARY KEY,
    buffer_relid              oid NOT NULL,
    previous_replica_identity "char" NOT NULL,   -- restored when tracking stops
    captured                  boolean NOT NULL DEFAULT true,  -- false: a dynamic table, whose
                                                 -- buffer its refreshes write
    tracked_since             timestamptz NOT NULL DEFAULT now()
);
REVOKE ALL ON dynview.source_tracking FROM PUBLIC;

-- The decoder's progress: every transaction whose commit record ends at or before
-- decoded_lsn has its changes in the buffers.  Updated with each batch, in its transaction.
-- streaming_xids: transactions streamed into the buffers before they ended (larger than
-- logical_decoding_work_mem) whose end the decoder has not processed yet; after a restart
-- the decoder deletes their rows first (it decodes them again from their start).
CREATE TABLE dynview.decoder_state (
    slot_name      name PRIMARY KEY,
    decoded_lsn    pg_lsn,
    updated_at     timestamptz,
    streaming_xids xid8[] NOT NULL DEFAULT '{}'
);
INSERT INTO dynview.decoder_state
SELECT 'dynview_' || oid, NULL, now() FROM pg_database WHERE datname = current_database();
REVOKE ALL ON dynview.decoder_state FROM PUBLIC;

CREATE FUNCTION dynview._register_database()
RETURNS void
LANGUAGE C
SET search_path = pg_catalog, pg_temp
AS 'MODULE_PATHNAME', 'dynview_register_database';
REVOKE ALL ON FUNCTION dynview._register_database() FROM PUBLIC;

CREATE FUNCTION dynview._decoded_lsn()
RETURNS pg_lsn
LANGUAGE C STABLE
SET search_path = pg_catalog, pg_temp
AS 'MODULE_PATHNAME', 'dynview_decoded_lsn';

CREATE FUNCTION dynview.wait_for_capture(timeout interval DEFAULT '1 minute')
RETURNS boolean
LANGUAGE C VOLATILE STRICT
SET search_path = pg_catalog, pg_temp
AS 'MODULE_PATHNAME', 'dynview_wait_for_capture';

COMMENT ON FUNCTION dynview.wait_for_capture(interval) IS
$$Flushes WAL and waits until the decoder has written to the change buffers every change committed before the call; true when done, false after TIMEOUT (default 1 minute).
Errors: negative timeout (22023), dynview not in shared_preload_libraries (55000).
Example: SELECT dynview.wait_for_capture('10 seconds');$$;

-- Per source: buffered changes; per database (source IS NULL): the slot and the decoder's lag.
-- The decoder's state in shared memory: NOT_STARTED, STARTING, RUNNING, RESTARTING, FAILED,
-- NO_WORKER (no background worker slot), NO_LAUNCHER, NOT_REGISTERED, NOT_LOADED; its pid; the
-- last failure to start or run it, with detail and hint, and when.
CREATE FUNCTION dynview._capture_status(OUT state text, OUT decoder_pid int,
    OUT last_error text, OUT last_error_time timestamptz)
RETURNS record
LANGUAGE C STRICT VOLATILE
SET search_path = pg_catalog, pg_temp
AS 'MODULE_PATHNAME', 'dynview_capture_status';
REVOKE ALL ON FUNCTION dynview._capture_status() FROM PUBLIC;

CREATE FUNCTION dynview._cdc_status(
    OUT source regclass, OUT buffered_changes bigint, OUT oldest_commit_time timestamptz,
    OUT buffer_bytes bigint, OUT slot_name name, OUT confirmed_lsn pg_lsn,
    OUT wal_retained_bytes numeric, OUT decoded_lsn pg_lsn, OUT decoder_lag_bytes numeric,
    OUT decoder_lag_seconds double precision, OUT decoder_state text, OUT decoder_pid int,
    OUT decoder_last_error text, OUT decoder_last_error_time timestamptz)
RETURNS SETOF record
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    t record;
BEGIN
    FOR t IN SELECT st.source_relid, st.buffer_relid FROM dynview.source_tracking st ORDER BY 1 LOOP
        source := t.source_relid::regclass;
        EXECUTE format('SELECT count(*), min(dv_commit_time) FROM %s', t.buffer_relid::regclass)
           INTO buffered_changes, oldest_commit_time;
        buffer_bytes := pg_total_relation_size(t.buffer_relid);
        RETURN NEXT;
    END LOOP;
    source := NULL; buffered_changes := NULL; oldest_commit_time := NULL; buffer_bytes := NULL;
    SELECT s.slot_name, s.confirmed_flush_lsn, pg_current_wal_lsn() - s.restart_lsn
      INTO slot_name, confirmed_lsn, wal_retained_bytes
      FROM pg_replication_slots s, dynview.decoder_state d WHERE s.slot_name = d.slot_name;
    -- the decoder's published position; when it does not run, what it had committed
    -- (or the slot's position): the lag then grows with the WAL written since
    decoded_lsn := coalesce(dynview._decoded_lsn(),
                            (SELECT d.decoded_lsn FROM dynview.decoder_state d), confirmed_lsn);
    -- NULL (not 0) when nothing was ever decoded: the lag is unknown
    decoder_lag_bytes := CASE WHEN decoded_lsn IS NOT NULL
                              THEN greatest(pg_current_wal_flush_lsn() - decoded_lsn, 0) END;
    SELECT extract(epoch FROM now() - d.updated_at) INTO decoder_lag_seconds
      FROM dynview.decoder_state d;
    IF decoder_lag_bytes = 0 THEN decoder_lag_seconds := 0; END IF;
    IF decoded_lsn IS NULL THEN decoder_lag_seconds := NULL; END IF;
    SELECT c.state, c.decoder_pid, c.last_error, c.last_error_time
      INTO decoder_state, decoder_pid, decoder_last_error, decoder_last_error_time
      FROM dynview._capture_status() c;
    RETURN NEXT;
END
$$;

CREATE VIEW dynview.cdc_status WITH (security_barrier) AS
SELECT * FROM dynview._cdc_status() s
 WHERE s.source IS NULL OR has_table_privilege(s.source::oid, 'SELECT');
COMMENT ON VIEW dynview.cdc_status IS
'Change capture: one row per tracked source (buffered changes, oldest buffered commit time, buffer size in bytes) and one row for the database (source NULL: slot, confirmed LSN, WAL retained by the slot in bytes, decoded-up-to LSN, decoder lag in bytes and seconds, decoder state, pid, last error and its time).';
REVOKE ALL ON FUNCTION dynview._cdc_status() FROM PUBLIC;

-- Start this database's decoder (needs shared_preload_libraries = 'dynview').
SELECT dynview._register_database();
