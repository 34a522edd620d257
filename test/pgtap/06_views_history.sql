-- 06_views_history.sql: the monitoring surface (design section 2): dynview.dynamic_tables (one
-- row per dynamic table, upstreams, lag), dynview.dependencies (the graph edges),
-- dynview.refresh_history and dynview.refresh_history(name, max_rows) (newest first).
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS dynview;

SELECT plan(49);

CREATE TABLE dvt_orders (id int PRIMARY KEY, customer text NOT NULL, amount numeric(10,2), qty int);
CREATE TABLE dvt_customers (customer text PRIMARY KEY, region text);
INSERT INTO dvt_orders VALUES (1, 'ann', 10.00, 1), (2, 'bob', 20.50, 2), (3, 'ann', 5.25, 3);
INSERT INTO dvt_customers VALUES ('ann', 'north'), ('bob', 'south');

-- refresh n times, verifying after each refresh; true when every verify held
CREATE FUNCTION pg_temp.refresh_n(t text, n int) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
    FOR i IN 1..n LOOP
        PERFORM dynview.refresh(t);
        IF NOT dynview.verify(t) THEN
            RETURN false;
        END IF;
    END LOOP;
    RETURN true;
END
$$;

-- a small graph: detail (orders x customers) -> by_region -> top_region;  detail -> total
SELECT lives_ok($$SELECT dynview.create_dynamic_table('dvt_detail',
    'SELECT o.id, o.customer, c.region, o.amount FROM dvt_orders o JOIN dvt_customers c USING (customer)')$$,
    'create dvt_detail (a join)');
SELECT ok(dynview.verify('dvt_detail'), 'verify dvt_detail after creation');
SELECT lives_ok($$SELECT dynview.create_dynamic_table('dvt_by_region',
    'SELECT region, sum(amount) AS amount FROM dvt_detail GROUP BY region')$$, 'create dvt_by_region');
SELECT ok(dynview.verify('dvt_by_region'), 'verify dvt_by_region after creation');
SELECT lives_ok($$SELECT dynview.create_dynamic_table('dvt_top_region',
    'SELECT region FROM dvt_by_region ORDER BY amount DESC LIMIT 1')$$, 'create dvt_top_region');
SELECT ok(dynview.verify('dvt_top_region'), 'verify dvt_top_region after creation');
SELECT lives_ok($$SELECT dynview.create_dynamic_table('dvt_total',
    'SELECT d.id, d.amount, r.amount AS region_amount FROM dvt_detail d JOIN dvt_by_region r USING (region)')$$,
    'create dvt_total (reads two dynamic tables)');
SELECT ok(dynview.verify('dvt_total'), 'verify dvt_total after creation');

-------------------------------------------------------------------------------
-- dynamic_tables
-------------------------------------------------------------------------------
SELECT set_eq('SELECT name::text FROM dynview.dynamic_tables',
              $$VALUES ('dvt_detail'), ('dvt_by_region'), ('dvt_top_region'), ('dvt_total')$$,
              'dynamic_tables has one row per dynamic table');
SELECT set_eq($$SELECT name::text, upstreams::text FROM dynview.dynamic_tables$$,
              $$VALUES ('dvt_detail', '{}'), ('dvt_by_region', '{dvt_detail}'), ('dvt_top_region', '{dvt_by_region}'),
                       ('dvt_total', '{dvt_by_region,dvt_detail}')$$,
              'upstreams lists exactly the dynamic tables each one reads (not ordinary sources)');
SELECT is_empty($$SELECT * FROM dynview.dynamic_tables
                   WHERE data_snapshot IS NULL OR data_timestamp IS NULL OR lag IS NULL
                      OR last_refresh_state <> 'SUCCEED' OR consecutive_failures <> 0$$,
                'every initialized table has a data snapshot, timestamp, lag, SUCCEED and no failures');
SELECT is_empty($$SELECT name, data_timestamp, lag FROM dynview.dynamic_tables WHERE lag < interval '0'$$,
                'lag is never negative (also when read in the transaction that refreshed the table)');
SELECT is_empty($$SELECT * FROM dynview.dynamic_tables WHERE effective_mode NOT IN ('INCREMENTAL', 'FULL')
                      OR scheduling_state NOT IN ('ACTIVE', 'SUSPENDED')$$,
                'effective_mode and scheduling_state take only documented values');

-------------------------------------------------------------------------------
-- dependencies
-------------------------------------------------------------------------------
SELECT set_eq('SELECT upstream::text, downstream::text FROM dynview.dependencies',
              $$VALUES ('dvt_detail', 'dvt_by_region'), ('dvt_by_region', 'dvt_top_region'),
                       ('dvt_detail', 'dvt_total'), ('dvt_by_region', 'dvt_total')$$,
              'dependencies lists exactly the edges between dynamic tables');
SELECT is_empty($$SELECT * FROM dynview.dependencies WHERE upstream::text IN ('dvt_orders', 'dvt_customers')$$,
                'ordinary source tables are not edges');

-------------------------------------------------------------------------------
-- refresh_history across a pipeline
-------------------------------------------------------------------------------
CREATE TEMP TABLE mark AS SELECT max(refresh_id) AS id FROM dynview.refresh_history;
INSERT INTO dvt_orders VALUES (4, 'bob', 100.00, 1);
SELECT is((SELECT refresh_trigger FROM dynview.refresh('dvt_total')), 'MANUAL', 'refresh(dvt_total)');
SELECT ok(dynview.verify('dvt_total'), 'verify dvt_total');
SELECT ok(dynview.verify('dvt_by_region'), 'verify dvt_by_region');
SELECT ok(dynview.verify('dvt_detail'), 'verify dvt_detail');
SELECT results_eq(
    $$SELECT h.name::text, h.refresh_trigger FROM dynview.refresh_history h, mark
       WHERE h.refresh_id > mark.id ORDER BY h.refresh_id$$,
    $$VALUES ('dvt_detail', 'UPSTREAM'), ('dvt_by_region', 'UPSTREAM'), ('dvt_total', 'MANUAL')$$,
    'a diamond is refreshed once per table, upstreams first (dvt_top_region is not an upstream)');
SELECT set_eq($$SELECT DISTINCT refresh_trigger FROM dynview.refresh_history$$,
              $$VALUES ('CREATION'), ('UPSTREAM'), ('MANUAL')$$,
              'history holds CREATION, UPSTREAM and MANUAL rows');
SELECT is_empty($$SELECT * FROM dynview.refresh_history
                   WHERE state NOT IN ('RUNNING', 'SUCCEED', 'FAILED', 'SKIPPED', 'UPSTREAM_FAILED')
                      OR refresh_mode NOT IN ('INCREMENTAL', 'FULL', 'NO_DATA')
                      OR refresh_trigger NOT IN ('SYSTEM_SCHEDULED', 'MANUAL', 'CREATION', 'UPSTREAM')$$,
                'state, refresh_mode and refresh_trigger take only documented values');
SELECT is_empty($$SELECT * FROM dynview.refresh_history h
                   WHERE h.schema_name <> 'public' OR h.table_name <> h.name::text$$,
                'schema_name and table_name match name');
SELECT is_empty($$SELECT * FROM dynview.refresh_history
                   WHERE state = 'SUCCEED' AND refresh_mode = 'FULL'
                     AND (data_snapshot IS NULL OR data_lsn IS NULL OR rows_inserted IS NULL OR rows_deleted IS NULL
                          OR duration_ms IS NULL OR end_time < start_time OR error_message IS NOT NULL)$$,
                'every successful FULL refresh has snapshot, LSN, counts, duration and no error');
SELECT is((SELECT count(DISTINCT refresh_id)::int FROM dynview.refresh_history),
          (SELECT count(*)::int FROM dynview.refresh_history), 'refresh_id is unique');

-- source_tables names each source; dynamic sources are marked
SELECT ok((SELECT source_tables @> jsonb_build_array(
                      jsonb_build_object('name', 'public.dvt_orders', 'oid', 'dvt_orders'::regclass::oid::bigint),
                      jsonb_build_object('name', 'public.dvt_customers', 'oid', 'dvt_customers'::regclass::oid::bigint))
             FROM dynview.refresh_history('dvt_detail', 1)),
          'source_tables of a join names both sources with their oids');
SELECT is((SELECT jsonb_array_length(source_tables) FROM dynview.refresh_history('dvt_total', 1)), 2,
          'source_tables of dvt_total has its two sources');
SELECT ok((SELECT source_tables @> '[{"name": "public.dvt_detail"}, {"name": "public.dvt_by_region"}]'
             FROM dynview.refresh_history('dvt_total', 1)),
          'source_tables of dvt_total names the dynamic tables it reads');

-------------------------------------------------------------------------------
-- refresh_history(name, max_rows)
-------------------------------------------------------------------------------
SELECT ok(pg_temp.refresh_n('dvt_top_region', 4), 'refresh dvt_top_region 4 times, verifying after each');
SELECT is((SELECT count(*)::int FROM dynview.refresh_history('dvt_top_region')), 5,
          'refresh_history(name) returns every row of the table (1 CREATION + 4 MANUAL)');
SELECT results_eq(
    $$SELECT refresh_id FROM dynview.refresh_history('dvt_top_region')$$,
    $$SELECT refresh_id FROM dynview.refresh_history WHERE name = 'dvt_top_region'::regclass ORDER BY refresh_id DESC$$,
    'refresh_history(name) is newest first');
SELECT is((SELECT array_agg(refresh_trigger) FROM dynview.refresh_history('dvt_top_region')),
          ARRAY['MANUAL', 'MANUAL', 'MANUAL', 'MANUAL', 'CREATION'], 'the CREATION row is the oldest');
SELECT results_eq(
    $$SELECT refresh_id FROM dynview.refresh_history('dvt_top_region', 2)$$,
    $$SELECT refresh_id FROM dynview.refresh_history WHERE name = 'dvt_top_region'::regclass ORDER BY refresh_id DESC LIMIT 2$$,
    'refresh_history(name, 2) returns the 2 newest rows');
SELECT is_empty($$SELECT * FROM dynview.refresh_history('dvt_top_region', 0)$$, 'max_rows => 0 returns nothing');
SELECT is((SELECT count(*)::int FROM dynview.refresh_history(name => 'dvt_top_region', max_rows => 3)), 3,
          'named arguments name, max_rows');
SELECT is_empty($$SELECT * FROM dynview.refresh_history('dvt_top_region') WHERE name <> 'dvt_top_region'::regclass$$,
                'refresh_history(name) returns only that table''s rows');
CREATE TEMP TABLE detail_rows AS
    SELECT count(*)::int AS n FROM dynview.refresh_history WHERE name = 'dvt_detail'::regclass;
SELECT ok(pg_temp.refresh_n('dvt_detail', 101), 'refresh dvt_detail 101 times, verifying after each');
SELECT is((SELECT count(*)::int FROM dynview.refresh_history('dvt_detail')), 100,
          'max_rows defaults to 100');
SELECT is((SELECT count(*)::int FROM dynview.refresh_history WHERE name = 'dvt_detail'::regclass),
          (SELECT n + 101 FROM detail_rows), 'the history relation keeps every row (101 more)');
SELECT is((SELECT count(*)::int FROM dynview.refresh_history('public.dvt_detail', 1000)),
          (SELECT n + 101 FROM detail_rows), 'refresh_history accepts a schema-qualified name and max_rows above 100');
SELECT throws_ok($$SELECT * FROM dynview.refresh_history('dvt_nosuch')$$, '42P01', NULL,
                 'refresh_history of an unknown name: 42P01');

-------------------------------------------------------------------------------
-- the views follow drops and suspensions
-------------------------------------------------------------------------------
SELECT lives_ok($$SELECT dynview.suspend('dvt_by_region')$$, 'suspend dvt_by_region');
SELECT results_eq($$SELECT scheduling_state, suspend_reason FROM dynview.dynamic_tables WHERE name = 'dvt_by_region'::regclass$$,
                  $$VALUES ('SUSPENDED'::text, 'USER_SUSPENDED'::text)$$, 'dynamic_tables shows the suspension');
SELECT lives_ok($$SELECT dynview.resume('dvt_by_region')$$, 'resume dvt_by_region');
SELECT is((SELECT scheduling_state FROM dynview.dynamic_tables WHERE name = 'dvt_by_region'::regclass), 'ACTIVE',
          'dynamic_tables shows the resumption');
SELECT lives_ok($$SELECT dynview.drop_dynamic_table('dvt_total')$$, 'drop dvt_total');
SELECT set_eq('SELECT upstream::text, downstream::text FROM dynview.dependencies',
              $$VALUES ('dvt_detail', 'dvt_by_region'), ('dvt_by_region', 'dvt_top_region')$$,
              'dropping a table removes its edges');
SELECT is((SELECT count(*)::int FROM dynview.dynamic_tables), 3, 'dynamic_tables has one row fewer');
SELECT is_empty($$SELECT * FROM dynview.refresh_history WHERE table_name = 'dvt_total'$$,
                'the dropped table''s history is gone');

SELECT * FROM finish();
ROLLBACK;
