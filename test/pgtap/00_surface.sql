-- 00_surface.sql: the SQL surface of dynview (design section 2): every public function
-- exists with its argument names, defaults and result type and carries a COMMENT; the
-- monitoring relations exist with the documented columns and types and carry a COMMENT.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS dynview;

SELECT plan(95);

SELECT has_schema('dynview', 'schema dynview exists');

-- the public functions: name, argument types, result, argument list (names and defaults)
CREATE TEMP TABLE api_fn (fn name, args name[], ret text, arglist text) ON COMMIT DROP;
INSERT INTO api_fn VALUES
 ('create_dynamic_table', '{text,text,text,text,boolean,text[],text,interval}', 'regclass',
  'name text, query text, schedule text DEFAULT ''1 minute''::text, refresh_mode text DEFAULT ''auto''::text, initialize boolean DEFAULT true, primary_key text[] DEFAULT NULL::text[], partition_by text DEFAULT NULL::text, retention interval DEFAULT NULL::interval'),
 ('create_or_replace_dynamic_table', '{text,text,text,text,boolean,text[],text,interval}', 'regclass',
  'name text, query text, schedule text DEFAULT ''1 minute''::text, refresh_mode text DEFAULT ''auto''::text, initialize boolean DEFAULT true, primary_key text[] DEFAULT NULL::text[], partition_by text DEFAULT NULL::text, retention interval DEFAULT NULL::interval'),
 ('drop_dynamic_table', '{text,boolean}', 'void', 'name text, if_exists boolean DEFAULT false'),
 ('refresh', '{text}', 'dynview.refresh_history', 'name text'),
 ('alter_dynamic_table', '{text,text,text}', 'void',
  'name text, schedule text DEFAULT NULL::text, refresh_mode text DEFAULT NULL::text'),
 ('suspend', '{text}', 'void', 'name text'),
 ('resume', '{text}', 'void', 'name text'),
 ('verify', '{text}', 'boolean', 'name text'),
 ('refresh_history', '{text,integer}', 'setof dynview.refresh_history', 'name text, max_rows integer DEFAULT 100'),
 ('create_partitioned_dynamic_table', '{text,text,text,text[],text,interval,text}', 'regclass',
  'name text, query text, partition_by text, primary_key text[] DEFAULT NULL::text[], refresh_mode text DEFAULT ''auto''::text, retention interval DEFAULT NULL::interval, schedule text DEFAULT ''manual''::text'),
 ('refresh', '{text,text}', 'dynview.refresh_history', 'name text, partition text'),
 ('partition', '{}', 'text', '');

-- 12 x 4 = 48 tests
SELECT has_function('dynview', fn, args, format('dynview.%s(%s) exists', fn, array_to_string(args, ', ')))
  FROM api_fn ORDER BY fn;
SELECT function_returns('dynview', fn, args, ret, format('dynview.%s returns %s', fn, ret))
  FROM api_fn ORDER BY fn;
SELECT is(pg_get_function_arguments(format('dynview.%I(%s)', fn, array_to_string(args, ','))::regprocedure),
          arglist, format('dynview.%s has the documented argument names and defaults', fn))
  FROM api_fn ORDER BY fn;
SELECT ok(obj_description(format('dynview.%I(%s)', fn, array_to_string(args, ','))::regprocedure, 'pg_proc') IS NOT NULL,
          format('dynview.%s has a COMMENT', fn))
  FROM api_fn ORDER BY fn;

-- the monitoring relations
SELECT has_view('dynview', 'dynamic_tables', 'view dynview.dynamic_tables exists');
SELECT has_view('dynview', 'dependencies', 'view dynview.dependencies exists');
SELECT has_relation('dynview', 'refresh_history', 'relation dynview.refresh_history exists');
SELECT ok(obj_description('dynview.dynamic_tables'::regclass, 'pg_class') IS NOT NULL,
          'dynview.dynamic_tables has a COMMENT');
SELECT ok(obj_description('dynview.dependencies'::regclass, 'pg_class') IS NOT NULL,
          'dynview.dependencies has a COMMENT');
SELECT ok(obj_description('dynview.refresh_history'::regclass, 'pg_class') IS NOT NULL,
          'dynview.refresh_history has a COMMENT');

-- dynview.dynamic_tables: the documented columns and types (extra columns are allowed); 15 tests
SELECT col_type_is('dynview', 'dynamic_tables', col, typ, format('dynamic_tables.%s is %s', col, typ))
  FROM (VALUES ('name', 'regclass'), ('query', 'text'), ('schedule', 'text'), ('refresh_mode', 'text'),
               ('effective_mode', 'text'), ('mode_reason_code', 'text'), ('mode_reason', 'text'),
               ('scheduling_state', 'text'), ('suspend_reason', 'text'), ('upstreams', 'regclass[]'),
               ('data_snapshot', 'pg_snapshot'), ('data_timestamp', 'timestamp with time zone'),
               ('lag', 'interval'), ('last_refresh_state', 'text'), ('consecutive_failures', 'integer'))
       AS c(col, typ);

-- dynview.refresh_history: exactly the documented columns, in order, with their types; 1 + 18 tests
SELECT columns_are('dynview', 'refresh_history',
                   ARRAY['refresh_id', 'name', 'schema_name', 'table_name', 'state', 'refresh_mode',
                         'refresh_trigger', 'start_time', 'end_time', 'duration_ms', 'rows_inserted',
                         'rows_deleted', 'source_tables', 'data_snapshot', 'data_lsn',
                         'mode_reason_code', 'mode_reason', 'error_message'],
                   'refresh_history has exactly the documented columns');
SELECT col_type_is('dynview', 'refresh_history', col, typ, format('refresh_history.%s is %s', col, typ))
  FROM (VALUES ('refresh_id', 'bigint'), ('name', 'regclass'), ('schema_name', 'text'),
               ('table_name', 'text'), ('state', 'text'), ('refresh_mode', 'text'),
               ('refresh_trigger', 'text'), ('start_time', 'timestamp with time zone'),
               ('end_time', 'timestamp with time zone'), ('duration_ms', 'double precision'),
               ('rows_inserted', 'bigint'), ('rows_deleted', 'bigint'), ('source_tables', 'jsonb'),
               ('data_snapshot', 'pg_snapshot'), ('data_lsn', 'pg_lsn'), ('mode_reason_code', 'text'),
               ('mode_reason', 'text'), ('error_message', 'text'))
       AS c(col, typ);

-- dynview.dependencies: (upstream regclass, downstream regclass); 3 tests
SELECT columns_are('dynview', 'dependencies', ARRAY['upstream', 'downstream'],
                   'dependencies has exactly the columns upstream, downstream');
SELECT col_type_is('dynview', 'dependencies', 'upstream', 'regclass', 'dependencies.upstream is regclass');
SELECT col_type_is('dynview', 'dependencies', 'downstream', 'regclass', 'dependencies.downstream is regclass');

-- a fresh installation has no dynamic tables and no history; 3 tests
SELECT is_empty('SELECT * FROM dynview.dynamic_tables', 'no dynamic tables after CREATE EXTENSION');
SELECT is_empty('SELECT * FROM dynview.refresh_history', 'no refresh history after CREATE EXTENSION');
SELECT is_empty('SELECT * FROM dynview.dependencies', 'no dependencies after CREATE EXTENSION');

SELECT * FROM finish();
ROLLBACK;
