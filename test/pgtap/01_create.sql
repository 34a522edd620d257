-- 01_create.sql: dynview.create_dynamic_table and create_or_replace_dynamic_table creating
-- new tables (design section 2): the table has exactly the query's columns and types, is
-- registered with its settings, and (initialize => true) is filled by a FULL refresh recorded
-- with trigger CREATION; initialize => false leaves it empty with no history.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS dynview;

SELECT plan(76);

CREATE TABLE dvt_orders (
    id       int PRIMARY KEY,
    customer text NOT NULL,
    amount   numeric(10,2),
    qty      int,
    code     varchar(8)
);
INSERT INTO dvt_orders VALUES
    (1, 'ann', 10.00, 1, 'A1'), (2, 'bob', 20.50, 2, 'B1'), (3, 'ann', 5.25, 3, 'A2'),
    (4, 'cid', 7.00, 1, 'C1'), (5, 'bob', NULL, 4, NULL);

-------------------------------------------------------------------------------
-- default arguments: an aggregate
-------------------------------------------------------------------------------
SELECT is(dynview.create_dynamic_table('dvt_by_customer',
              'SELECT customer, count(*) AS n, sum(amount) AS total FROM dvt_orders GROUP BY customer')::text,
          'dvt_by_customer', 'create_dynamic_table returns the new table as regclass');
SELECT has_table('public', 'dvt_by_customer', 'the dynamic table is created on search_path (public)');
SELECT is((SELECT relkind::text FROM pg_class WHERE oid = 'dvt_by_customer'::regclass), 'r',
          'the dynamic table is an ordinary heap table');
SELECT columns_are('public', 'dvt_by_customer', ARRAY['customer', 'n', 'total'],
                   'SELECT * shows exactly the query''s columns (no bookkeeping columns)');
SELECT col_type_is('public', 'dvt_by_customer', 'customer', 'text', 'customer is text');
SELECT col_type_is('public', 'dvt_by_customer', 'n', 'bigint', 'count(*) is bigint');
SELECT col_type_is('public', 'dvt_by_customer', 'total', 'numeric', 'sum(numeric) is numeric');
SELECT results_eq(
    'SELECT customer, n, total FROM dvt_by_customer ORDER BY customer',
    'SELECT customer, count(*), sum(amount) FROM dvt_orders GROUP BY customer ORDER BY customer',
    'initialize => true (default) fills the table with the query''s result');
SELECT ok(dynview.verify('dvt_by_customer'), 'verify after creation');

SELECT results_eq(
    $$SELECT query, schedule, refresh_mode, effective_mode, mode_reason_code, scheduling_state,
             suspend_reason, upstreams, last_refresh_state, consecutive_failures
        FROM dynview.dynamic_tables WHERE name = 'dvt_by_customer'::regclass$$,
    $$VALUES ('SELECT customer, count(*) AS n, sum(amount) AS total FROM dvt_orders GROUP BY customer'::text,
              '1 minute'::text, 'auto'::text, 'INCREMENTAL'::text, NULL::text,
              'ACTIVE'::text, NULL::text, '{}'::regclass[], 'SUCCEED'::text, 0)$$,
    'dynamic_tables: query as written, default schedule and mode, GROUP BY is INCREMENTAL (no reason), ACTIVE');
SELECT ok((SELECT mode_reason IS NULL AND data_snapshot IS NOT NULL AND data_timestamp IS NOT NULL
             FROM dynview.dynamic_tables WHERE name = 'dvt_by_customer'::regclass),
          'dynamic_tables: no mode_reason (INCREMENTAL); data_snapshot and data_timestamp are set after creation');

SELECT results_eq(
    $$SELECT schema_name, table_name, state, refresh_mode, refresh_trigger, rows_inserted, rows_deleted,
             mode_reason_code, error_message
        FROM dynview.refresh_history('dvt_by_customer')$$,
    $$VALUES ('public'::text, 'dvt_by_customer'::text, 'SUCCEED'::text, 'FULL'::text, 'CREATION'::text,
              3::bigint, 0::bigint, 'INITIAL_BUILD'::text, NULL::text)$$,
    'creation is recorded as one SUCCEED FULL (INITIAL_BUILD) refresh with trigger CREATION, 3 rows inserted');
SELECT ok((SELECT end_time >= start_time AND duration_ms >= 0 AND data_snapshot IS NOT NULL
                  AND data_lsn IS NOT NULL AND mode_reason IS NOT NULL
             FROM dynview.refresh_history('dvt_by_customer')),
          'the creation history row has times, duration, data snapshot, LSN and reason');
SELECT is((SELECT h.data_snapshot::text FROM dynview.refresh_history('dvt_by_customer') h),
          (SELECT d.data_snapshot::text FROM dynview.dynamic_tables d WHERE d.name = 'dvt_by_customer'::regclass),
          'the history row and dynamic_tables agree on the data snapshot');
SELECT ok((SELECT source_tables @> jsonb_build_array(jsonb_build_object(
                      'name', 'public.dvt_orders', 'oid', 'dvt_orders'::regclass::oid::bigint))
             FROM dynview.refresh_history('dvt_by_customer')),
          'history source_tables names the source with its oid');

-------------------------------------------------------------------------------
-- exact types: typmods and a multi-type projection
-------------------------------------------------------------------------------
SELECT lives_ok($$SELECT dynview.create_dynamic_table('dvt_typed',
    'SELECT id, amount, code, amount * qty AS line, (qty > 1) AS multi, id::bigint AS big, ''x''::char(3) AS c3 FROM dvt_orders')$$,
    'create a projection with typmod columns');
SELECT columns_are('public', 'dvt_typed', ARRAY['id', 'amount', 'code', 'line', 'multi', 'big', 'c3'],
                   'projection: exactly the query''s columns, in order');
SELECT is((SELECT array_agg(attname::text ORDER BY attnum) FROM pg_attribute
            WHERE attrelid = 'dvt_typed'::regclass AND attnum > 0 AND NOT attisdropped),
          ARRAY['id', 'amount', 'code', 'line', 'multi', 'big', 'c3'], 'projection: columns in query order');
SELECT col_type_is('public', 'dvt_typed', 'id', 'integer', 'id is integer');
SELECT col_type_is('public', 'dvt_typed', 'amount', 'numeric(10,2)', 'amount keeps numeric(10,2)');
SELECT col_type_is('public', 'dvt_typed', 'code', 'character varying(8)', 'code keeps varchar(8)');
SELECT col_type_is('public', 'dvt_typed', 'line', 'numeric', 'an expression column has the expression''s type');
SELECT col_type_is('public', 'dvt_typed', 'multi', 'boolean', 'a comparison is boolean');
SELECT col_type_is('public', 'dvt_typed', 'big', 'bigint', 'a cast column has the cast''s type');
SELECT col_type_is('public', 'dvt_typed', 'c3', 'character(3)', 'a char(3) cast keeps its typmod');
SELECT set_eq('SELECT * FROM dvt_typed',
              $$SELECT id, amount, code, amount * qty AS line, (qty > 1) AS multi, id::bigint AS big, 'x'::char(3) AS c3 FROM dvt_orders$$,
              'projection: contents equal the query');
SELECT ok(dynview.verify('dvt_typed'), 'verify the projection after creation');

-- SELECT * of the source expands to its columns; a query without sources; a view as source
SELECT lives_ok($$SELECT dynview.create_dynamic_table('dvt_star', 'SELECT * FROM dvt_orders WHERE qty > 1')$$,
                'create from SELECT *');
SELECT columns_are('public', 'dvt_star', ARRAY['id', 'customer', 'amount', 'qty', 'code'],
                   'SELECT * expands to the source''s columns');
SELECT ok(dynview.verify('dvt_star'), 'verify dvt_star after creation');
SELECT lives_ok($$SELECT dynview.create_dynamic_table('dvt_const', 'VALUES (1, ''one''::text), (2, ''two'')')$$,
                'create from VALUES (no sources)');
SELECT results_eq('SELECT * FROM dvt_const ORDER BY 1', $$VALUES (1, 'one'::text), (2, 'two')$$,
                  'VALUES: contents');
SELECT ok(dynview.verify('dvt_const'), 'verify dvt_const after creation');
CREATE VIEW dvt_big_orders AS SELECT id, customer, amount FROM dvt_orders WHERE amount > 6;
SELECT lives_ok($$SELECT dynview.create_dynamic_table('dvt_from_view', 'SELECT customer, amount FROM dvt_big_orders')$$,
                'create from a view');
SELECT set_eq('SELECT * FROM dvt_from_view', 'SELECT customer, amount FROM dvt_orders WHERE amount > 6',
              'view source: contents');
SELECT ok(dynview.verify('dvt_from_view'), 'verify dvt_from_view after creation');

-------------------------------------------------------------------------------
-- named arguments: schedule, refresh_mode
-------------------------------------------------------------------------------
SELECT lives_ok($$SELECT dynview.create_dynamic_table('dvt_s5', 'SELECT id FROM dvt_orders',
                    schedule => '5 seconds', refresh_mode => 'full')$$,
                'create with schedule => 5 seconds, refresh_mode => full');
SELECT results_eq($$SELECT schedule, refresh_mode, effective_mode FROM dynview.dynamic_tables
                     WHERE name = 'dvt_s5'::regclass$$,
                  $$VALUES ('5 seconds'::text, 'full'::text, 'FULL'::text)$$,
                  'schedule and refresh_mode are recorded');
SELECT ok(dynview.verify('dvt_s5'), 'verify dvt_s5 after creation');
SELECT lives_ok($$SELECT dynview.create_dynamic_table('dvt_s1', 'SELECT id FROM dvt_orders', schedule => '1 second')$$,
                'schedule => 1 second (the minimum) is accepted');
SELECT ok(dynview.verify('dvt_s1'), 'verify dvt_s1 after creation');
SELECT lives_ok($$SELECT dynview.create_dynamic_table('dvt_manual', 'SELECT id FROM dvt_orders',
                    schedule => 'MANUAL', refresh_mode => 'Auto')$$,
                'schedule and refresh_mode are case-insensitive keywords');
SELECT results_eq($$SELECT schedule, refresh_mode FROM dynview.dynamic_tables WHERE name = 'dvt_manual'::regclass$$,
                  $$VALUES ('manual'::text, 'auto'::text)$$,
                  'keywords are recorded in lower case');
SELECT ok(dynview.verify('dvt_manual'), 'verify dvt_manual after creation');
SELECT lives_ok($$SELECT dynview.create_dynamic_table('dvt_downstream', 'SELECT count(*) AS n FROM dvt_by_customer',
                    schedule => 'downstream')$$,
                'schedule => downstream, reading another dynamic table');
SELECT is((SELECT schedule FROM dynview.dynamic_tables WHERE name = 'dvt_downstream'::regclass), 'downstream',
          'schedule downstream is recorded');
SELECT is((SELECT upstreams FROM dynview.dynamic_tables WHERE name = 'dvt_downstream'::regclass),
          ARRAY['dvt_by_customer'::regclass], 'upstreams lists the dynamic table it reads');
SELECT ok(dynview.verify('dvt_downstream'), 'verify dvt_downstream after creation');

-------------------------------------------------------------------------------
-- initialize => false: build deferred
-------------------------------------------------------------------------------
SELECT lives_ok($$SELECT dynview.create_dynamic_table('dvt_deferred', 'SELECT id, customer FROM dvt_orders',
                    initialize => false)$$,
                'create with initialize => false');
SELECT columns_are('public', 'dvt_deferred', ARRAY['id', 'customer'], 'deferred table has the query''s columns');
SELECT is_empty('SELECT * FROM dvt_deferred', 'initialize => false leaves the table empty');
SELECT is_empty($$SELECT * FROM dynview.refresh_history('dvt_deferred')$$,
                'initialize => false records no refresh history');
SELECT ok((SELECT data_snapshot IS NULL AND data_timestamp IS NULL AND last_refresh_state IS NULL
             FROM dynview.dynamic_tables WHERE name = 'dvt_deferred'::regclass),
          'a never refreshed table has no data snapshot, timestamp or refresh state');
SELECT ok(dynview.verify('dvt_deferred'), 'a never refreshed table verifies (as empty)');
SELECT is((SELECT refresh_trigger FROM dynview.refresh('dvt_deferred')), 'MANUAL',
          'the first refresh of a deferred table is MANUAL');
SELECT ok(dynview.verify('dvt_deferred'), 'verify dvt_deferred after its first refresh');
SELECT set_eq('SELECT * FROM dvt_deferred', 'SELECT id, customer FROM dvt_orders',
              'the first refresh fills the deferred table');

-------------------------------------------------------------------------------
-- primary_key => : a unique NULLS NOT DISTINCT index on the key
-------------------------------------------------------------------------------
SELECT lives_ok($$SELECT dynview.create_dynamic_table('dvt_keyed',
                    'SELECT customer, sum(qty) AS qty FROM dvt_orders GROUP BY customer',
                    primary_key => ARRAY['customer'])$$,
                'create with primary_key => customer');
SELECT is((SELECT primary_key FROM dynview.dynamic_tables WHERE name = 'dvt_keyed'::regclass),
          ARRAY['customer'], 'dynamic_tables records the primary key');
SELECT ok(EXISTS (SELECT 1 FROM pg_index i
                   WHERE i.indrelid = 'dvt_keyed'::regclass AND i.indisunique AND i.indnullsnotdistinct
                     AND i.indkey::text = (SELECT attnum::text FROM pg_attribute
                                            WHERE attrelid = 'dvt_keyed'::regclass AND attname = 'customer')),
          'primary_key creates a unique NULLS NOT DISTINCT index on the key column');
SELECT columns_are('public', 'dvt_keyed', ARRAY['customer', 'qty'], 'the key adds no column');
SELECT ok(dynview.verify('dvt_keyed'), 'verify dvt_keyed after creation');

-------------------------------------------------------------------------------
-- names: schema-qualified, first schema of search_path, quoted
-------------------------------------------------------------------------------
CREATE SCHEMA dvt_s;
SELECT is(dynview.create_dynamic_table('dvt_s.qualified', 'SELECT id FROM public.dvt_orders')::text,
          'dvt_s.qualified', 'a schema-qualified name creates the table in that schema');
SELECT has_table('dvt_s', 'qualified', 'dvt_s.qualified exists');
SELECT ok(dynview.verify('dvt_s.qualified'), 'verify dvt_s.qualified after creation');
SET LOCAL search_path = dvt_s, public;
SELECT lives_ok($$SELECT dynview.create_dynamic_table('on_path', 'SELECT id FROM dvt_orders')$$,
                'an unqualified name with search_path = dvt_s, public');
RESET search_path;
SELECT has_table('dvt_s', 'on_path', 'an unqualified name is created in the first schema of search_path');
SELECT ok(dynview.verify('dvt_s.on_path'), 'verify dvt_s.on_path after creation');
SELECT is(dynview.create_dynamic_table('"Mixed Case"', 'SELECT id FROM dvt_orders')::text, '"Mixed Case"',
          'a quoted name keeps its case');
SELECT has_table('public', 'Mixed Case', 'table "Mixed Case" exists');
SELECT ok(dynview.verify('"Mixed Case"'), 'verify "Mixed Case" after creation');

-------------------------------------------------------------------------------
-- create_or_replace_dynamic_table on a new name creates it
-------------------------------------------------------------------------------
SELECT is(dynview.create_or_replace_dynamic_table('dvt_cor_new', 'SELECT id, qty FROM dvt_orders')::text,
          'dvt_cor_new', 'create_or_replace on a new name returns the new table');
SELECT columns_are('public', 'dvt_cor_new', ARRAY['id', 'qty'], 'create_or_replace: the query''s columns');
SELECT results_eq($$SELECT state, refresh_mode, refresh_trigger, rows_inserted FROM dynview.refresh_history('dvt_cor_new')$$,
                  $$VALUES ('SUCCEED'::text, 'FULL'::text, 'CREATION'::text, 5::bigint)$$,
                  'create_or_replace on a new name records a CREATION refresh');
SELECT ok(dynview.verify('dvt_cor_new'), 'verify dvt_cor_new after creation');

SELECT is((SELECT count(*)::int FROM dynview.dynamic_tables), 15, 'dynamic_tables has one row per dynamic table');

SELECT * FROM finish();
ROLLBACK;
