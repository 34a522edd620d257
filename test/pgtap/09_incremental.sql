-- 09_incremental.sql: the contract of the incremental engine (design section 6).
--   * effective_mode: INCREMENTAL (mode_reason_code NULL) for one query level of scans, filters,
--     projections and inner joins (SPJ), and for GROUP BY / DISTINCT with the group keys in the
--     output; everything else FULL with a specific reason code.
--   * the creation of an incremental table is a FULL refresh with reason INITIAL_BUILD; a FULL
--     table's refreshes carry its reason code.
--   * a refresh in the transaction that wrote a source is FULL with SOURCE_CHANGED_IN_TRANSACTION
--     (changes are captured from the WAL only after commit); every pgTAP file is one transaction,
--     so INCREMENTAL refreshes of base-table sources cannot be shown here.
--   * refresh_mode => 'incremental' is accepted for incremental queries and refused (0A000, the
--     detail naming the reason code) for the others; 'full' gives FULL_REQUESTED.
--   * incremental tables get an index at creation: UNIQUE NULLS NOT DISTINCT on the group keys or
--     on the key derived from the sources' unique keys through joins, else a plain index on the first column
--     (none for a type without btree, none for FULL tables).
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS dynview;

SELECT plan(106);

CREATE TABLE dvt_orders (id int PRIMARY KEY, customer text, amount numeric(10,2), qty int, doc json);
CREATE TABLE dvt_customers (customer text PRIMARY KEY, region text);
INSERT INTO dvt_orders VALUES
    (1, 'ann', 10.00, 1, '{}'), (2, 'bob', 20.50, 2, '{}'), (3, 'ann', 5.25, 3, '{}'), (4, NULL, 7.00, 1, '{}');
INSERT INTO dvt_customers VALUES ('ann', 'north'), ('bob', 'south');

-- 'MODE/REASON_CODE' of a dynamic table ('INCREMENTAL/' when there is no reason)
CREATE FUNCTION pg_temp.mode_of(t text) RETURNS text LANGUAGE sql AS $$
    SELECT effective_mode || '/' || coalesce(mode_reason_code, '')
      FROM dynview.dynamic_tables WHERE name = to_regclass(t)
$$;

-- create a dynamic table and return its 'MODE/REASON_CODE'
CREATE FUNCTION pg_temp.create_mode(t text, q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    PERFORM dynview.create_dynamic_table(t, q);
    RETURN pg_temp.mode_of(t);
END
$$;

-- the indexes of a table, e.g. 'UNIQUE (a, b) NULLS NOT DISTINCT; (c)'; '' when none
CREATE FUNCTION pg_temp.indexes_of(t text) RETURNS text LANGUAGE sql AS $$
    SELECT coalesce(string_agg(
               CASE WHEN i.indisunique THEN 'UNIQUE ' ELSE '' END || '(' ||
               (SELECT string_agg(a.attname::text, ', ' ORDER BY k.n)
                  FROM unnest(i.indkey::int2[]) WITH ORDINALITY k(attnum, n)
                  JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum) || ')' ||
               CASE WHEN i.indnullsnotdistinct THEN ' NULLS NOT DISTINCT' ELSE '' END,
               '; ' ORDER BY i.indexrelid), '')
      FROM pg_index i WHERE i.indrelid = to_regclass(t)
$$;

-- the SQLSTATE and detail of the error a statement raises ('no error' if none)
CREATE FUNCTION pg_temp.error_of(sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    st text;
    det text;
BEGIN
    EXECUTE sql;
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, det = PG_EXCEPTION_DETAIL;
    RETURN st || ': ' || coalesce(det, '');
END
$$;

-------------------------------------------------------------------------------
-- effective_mode and mode_reason_code per query kind
-------------------------------------------------------------------------------
SELECT is(pg_temp.create_mode('dvt_spj', 'SELECT id, customer, amount * qty AS line FROM dvt_orders WHERE qty > 0'),
          'INCREMENTAL/', 'scan + filter + projection (SPJ): INCREMENTAL, no reason');
SELECT ok(dynview.verify('dvt_spj'), 'verify dvt_spj after creation');
SELECT is((SELECT mode_reason FROM dynview.dynamic_tables WHERE name = 'dvt_spj'::regclass), NULL,
          'an INCREMENTAL table has no mode_reason either');
SELECT is(pg_temp.create_mode('dvt_join',
              'SELECT o.id, o.customer, c.region FROM dvt_orders o JOIN dvt_customers c ON c.customer = o.customer'),
          'INCREMENTAL/', 'an inner join: INCREMENTAL');
SELECT ok(dynview.verify('dvt_join'), 'verify dvt_join after creation');
SELECT is(pg_temp.create_mode('dvt_self',
              'SELECT a.id, b.id AS other FROM dvt_orders a, dvt_orders b WHERE a.customer = b.customer'),
          'INCREMENTAL/', 'a self-join in the WHERE clause: INCREMENTAL');
SELECT ok(dynview.verify('dvt_self'), 'verify dvt_self after creation');
SELECT is(pg_temp.create_mode('dvt_grp',
              'SELECT customer, count(*) AS n, sum(amount) AS total FROM dvt_orders GROUP BY customer HAVING count(*) > 0'),
          'INCREMENTAL/', 'GROUP BY (with HAVING) with the key in the output: INCREMENTAL');
SELECT ok(dynview.verify('dvt_grp'), 'verify dvt_grp after creation');
SELECT is(pg_temp.create_mode('dvt_grp2',
              'SELECT c.region, o.qty, count(*) AS n FROM dvt_orders o JOIN dvt_customers c USING (customer) GROUP BY c.region, o.qty'),
          'INCREMENTAL/', 'GROUP BY two keys over an inner join: INCREMENTAL');
SELECT ok(dynview.verify('dvt_grp2'), 'verify dvt_grp2 after creation');
SELECT is(pg_temp.create_mode('dvt_dist', 'SELECT DISTINCT customer, qty FROM dvt_orders'),
          'INCREMENTAL/', 'DISTINCT: INCREMENTAL');
SELECT ok(dynview.verify('dvt_dist'), 'verify dvt_dist after creation');
SELECT is(pg_temp.create_mode('dvt_down', 'SELECT customer, total FROM dvt_grp WHERE n > 1'),
          'INCREMENTAL/', 'an SPJ over a dynamic table (its refreshes fill a change buffer): INCREMENTAL');
SELECT ok(dynview.verify('dvt_down'), 'verify dvt_down after creation');

SELECT is(pg_temp.create_mode('dvt_global', 'SELECT count(*) AS n, sum(amount) AS total FROM dvt_orders'),
          'INCREMENTAL/', 'count and sum without GROUP BY: INCREMENTAL (one state row)');
SELECT is(pg_temp.create_mode('dvt_global_full', 'SELECT string_agg(customer, '','' ORDER BY customer) AS cs FROM dvt_orders'),
          'FULL/GLOBAL_AGGREGATE', 'string_agg without GROUP BY: FULL, GLOBAL_AGGREGATE');
SELECT ok(dynview.verify('dvt_global'), 'verify dvt_global after creation');
SELECT is(pg_temp.create_mode('dvt_hidden_key', 'SELECT count(*) AS n FROM dvt_orders GROUP BY customer'),
          'FULL/GROUP_KEY_NOT_IN_OUTPUT', 'a GROUP BY key missing from the output: FULL, GROUP_KEY_NOT_IN_OUTPUT');
SELECT ok(dynview.verify('dvt_hidden_key'), 'verify dvt_hidden_key after creation');
SELECT is(pg_temp.create_mode('dvt_outer',
              'SELECT o.id, c.region FROM dvt_orders o LEFT JOIN dvt_customers c ON c.customer = o.customer'),
          'INCREMENTAL/', 'a LEFT JOIN: INCREMENTAL (operator tree)');
SELECT ok(dynview.verify('dvt_outer'), 'verify dvt_outer after creation');
SELECT is(pg_temp.create_mode('dvt_sublink',
              'SELECT id FROM dvt_orders WHERE customer IN (SELECT customer FROM dvt_customers)'),
          'INCREMENTAL/', 'IN (subquery) in WHERE: INCREMENTAL (semi-join)');
SELECT ok(dynview.verify('dvt_sublink'), 'verify dvt_sublink after creation');
SELECT is(pg_temp.create_mode('dvt_from_sub',
              'SELECT s.id FROM (SELECT id, qty FROM dvt_orders WHERE qty > 1) s'),
          'INCREMENTAL/', 'a simple subquery in FROM: pulled up, INCREMENTAL');
SELECT is(pg_temp.create_mode('dvt_from_sub_limit',
              'SELECT s.id FROM (SELECT id, qty FROM dvt_orders ORDER BY qty LIMIT 3) s'),
          'FULL/ORDER_BY_LIMIT', 'a subquery in FROM with LIMIT whose rows can tie without being alike: FULL, ORDER_BY_LIMIT');
SELECT ok(dynview.verify('dvt_from_sub'), 'verify dvt_from_sub after creation');
SELECT is(pg_temp.create_mode('dvt_cte', 'WITH x AS (SELECT id FROM dvt_orders) SELECT id FROM x'),
          'INCREMENTAL/', 'a simple WITH query: inlined, INCREMENTAL');
SELECT is(pg_temp.create_mode('dvt_cte_rec',
              'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT id, n FROM dvt_orders, r'),
          'FULL/SUBQUERY_IN_FROM', 'a recursive WITH query: FULL, SUBQUERY_IN_FROM');
SELECT ok(dynview.verify('dvt_cte'), 'verify dvt_cte after creation');
SELECT is(pg_temp.create_mode('dvt_union',
              'SELECT customer FROM dvt_orders UNION SELECT customer FROM dvt_customers'),
          'INCREMENTAL/', 'UNION: INCREMENTAL (DISTINCT of the branches)');
SELECT is(pg_temp.create_mode('dvt_intersect',
              'SELECT customer FROM dvt_orders INTERSECT SELECT customer FROM dvt_customers'),
          'INCREMENTAL/', 'INTERSECT: INCREMENTAL (rows the branches touch recomputed)');
SELECT ok(dynview.verify('dvt_union'), 'verify dvt_union after creation');
SELECT is(pg_temp.create_mode('dvt_window',
              'SELECT DISTINCT customer, row_number() OVER (PARTITION BY customer ORDER BY id) AS rn FROM dvt_orders'),
          'FULL/WINDOW_FUNCTION', 'a window function under DISTINCT: FULL, WINDOW_FUNCTION');
SELECT ok(dynview.verify('dvt_window'), 'verify dvt_window after creation');
SELECT is(pg_temp.create_mode('dvt_window_hidden',
              'SELECT id, row_number() OVER (PARTITION BY customer ORDER BY id) AS rn FROM dvt_orders'),
          'INCREMENTAL/', 'a window function partitioned by a column not in the output: INCREMENTAL (a subquery operator)');
SELECT is(pg_temp.create_mode('dvt_window_rank', 'SELECT id, qty, rank() OVER (ORDER BY qty DESC) AS rk FROM dvt_orders'),
          'INCREMENTAL/', 'rank() without PARTITION BY: INCREMENTAL (rows from the first changed one recomputed)');
SELECT is(pg_temp.create_mode('dvt_window_all', 'SELECT id, sum(qty) OVER () AS all_qty FROM dvt_orders'),
          'FULL/UNSUPPORTED_WINDOW_WITHOUT_PARTITION',
          'a window function without PARTITION BY and ORDER BY: FULL, UNSUPPORTED_WINDOW_WITHOUT_PARTITION');
SELECT ok(dynview.verify('dvt_window_all'), 'verify dvt_window_all after creation');
SELECT is(pg_temp.create_mode('dvt_limit', 'SELECT id, qty FROM dvt_orders ORDER BY id LIMIT 2'),
          'INCREMENTAL/', 'ORDER BY ... LIMIT: INCREMENTAL (top-N)');
SELECT ok(dynview.verify('dvt_limit'), 'verify dvt_limit after creation');
SELECT is(pg_temp.create_mode('dvt_limit_ties', 'SELECT id, qty FROM dvt_orders ORDER BY qty FETCH FIRST 2 ROWS WITH TIES'),
          'FULL/ORDER_BY_LIMIT', 'FETCH FIRST ... WITH TIES: FULL, ORDER_BY_LIMIT');
SELECT ok(dynview.verify('dvt_limit_ties'), 'verify dvt_limit_ties after creation');
SELECT is(pg_temp.create_mode('dvt_random', 'SELECT id FROM dvt_orders WHERE random() >= 0'),
          'FULL/VOLATILE_FUNCTION', 'a volatile function (random()): FULL, VOLATILE_FUNCTION');
SELECT ok(dynview.verify('dvt_random'), 'verify dvt_random after creation');
SELECT is(pg_temp.create_mode('dvt_now', 'SELECT id, now() AS seen FROM dvt_orders'),
          'FULL/VOLATILE_FUNCTION', 'a stable function (now()): FULL, VOLATILE_FUNCTION');
SELECT ok(dynview.verify('dvt_now'), 'verify dvt_now after creation');
SELECT lives_ok($$SELECT dynview.create_dynamic_table('dvt_full', 'SELECT id, qty FROM dvt_orders', refresh_mode => 'full')$$,
                'create an SPJ table with refresh_mode => full');
SELECT is(pg_temp.mode_of('dvt_full'), 'FULL/FULL_REQUESTED', 'refresh_mode => full: FULL, FULL_REQUESTED');
SELECT ok(dynview.verify('dvt_full'), 'verify dvt_full after creation');

-- sources whose changes are not captured
CREATE UNLOGGED TABLE dvt_unlogged (id int, v int);
INSERT INTO dvt_unlogged VALUES (1, 1);
SELECT is(pg_temp.create_mode('dvt_from_unlogged', 'SELECT id, v FROM dvt_unlogged'),
          'FULL/SOURCE_NOT_CAPTURED', 'an unlogged source: FULL, SOURCE_NOT_CAPTURED');
SELECT ok(dynview.verify('dvt_from_unlogged'), 'verify dvt_from_unlogged after creation');
CREATE TABLE dvt_parted (id int, v int) PARTITION BY RANGE (id);
CREATE TABLE dvt_parted_1 PARTITION OF dvt_parted FOR VALUES FROM (0) TO (100);
INSERT INTO dvt_parted VALUES (1, 1), (2, 2);
SELECT is(pg_temp.create_mode('dvt_from_parted', 'SELECT id, v FROM dvt_parted'),
          'INCREMENTAL/', 'a partitioned source: INCREMENTAL (its partitions are captured, issue 15)');
SELECT ok(dynview.verify('dvt_from_parted'), 'verify dvt_from_parted after creation');
CREATE MATERIALIZED VIEW dvt_mv AS SELECT id, qty FROM dvt_orders;
SELECT is(pg_temp.create_mode('dvt_from_mv', 'SELECT id, qty FROM dvt_mv WHERE qty > 1'),
          'FULL/SOURCE_NOT_CAPTURED', 'a materialized view as source: FULL, SOURCE_NOT_CAPTURED');
SELECT ok(dynview.verify('dvt_from_mv'), 'verify dvt_from_mv after creation');

-- a foreign table (file_fdw, when the server has it)
CREATE FUNCTION pg_temp.foreign_mode() RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'file_fdw') THEN
        RETURN NULL;
    END IF;
    CREATE EXTENSION IF NOT EXISTS file_fdw;
    CREATE SERVER dvt_files FOREIGN DATA WRAPPER file_fdw;
    CREATE FOREIGN TABLE dvt_foreign (id int, v text) SERVER dvt_files OPTIONS (filename '/dev/null', format 'csv');
    RETURN pg_temp.create_mode('dvt_from_foreign', 'SELECT id, v FROM dvt_foreign');
END
$$;
SELECT CASE WHEN m IS NULL THEN skip('file_fdw is not available', 1)
            ELSE is(m, 'FULL/SOURCE_NOT_CAPTURED', 'a foreign table as source: FULL, SOURCE_NOT_CAPTURED') END
  FROM (SELECT pg_temp.foreign_mode() AS m) x;
SELECT CASE WHEN to_regclass('dvt_from_foreign') IS NULL THEN skip('file_fdw is not available', 1)
            ELSE ok(dynview.verify('dvt_from_foreign'), 'verify dvt_from_foreign after creation') END;

-------------------------------------------------------------------------------
-- creation and refresh history
-------------------------------------------------------------------------------
SELECT results_eq($$SELECT refresh_trigger, refresh_mode, mode_reason_code FROM dynview.refresh_history('dvt_grp')
                     WHERE refresh_trigger = 'CREATION'$$,
                  $$VALUES ('CREATION'::text, 'FULL'::text, 'INITIAL_BUILD'::text)$$,
                  'the creation of an incremental table is a FULL refresh with reason INITIAL_BUILD');
SELECT results_eq($$SELECT refresh_trigger, refresh_mode, mode_reason_code FROM dynview.refresh_history('dvt_global_full')$$,
                  $$VALUES ('CREATION'::text, 'FULL'::text, 'GLOBAL_AGGREGATE'::text)$$,
                  'the creation of a FULL table carries its reason code');

UPDATE dvt_orders SET qty = qty + 1 WHERE id = 2;
SELECT results_eq($$SELECT refresh_mode, mode_reason_code, rows_inserted, rows_deleted FROM dynview.refresh('dvt_grp')$$,
                  $$VALUES ('FULL'::text, 'SOURCE_CHANGED_IN_TRANSACTION'::text, 0::bigint, 0::bigint)$$,
                  'refresh of an incremental table after this transaction wrote its source: FULL, '
                  'SOURCE_CHANGED_IN_TRANSACTION (qty is not read: nothing changed)');
SELECT ok(dynview.verify('dvt_grp'), 'verify dvt_grp after the refresh');
SELECT ok((SELECT mode_reason LIKE '%dvt_orders%' FROM dynview.refresh_history('dvt_grp', 1)),
          'the SOURCE_CHANGED_IN_TRANSACTION reason names the source');
SELECT results_eq($$SELECT refresh_mode, mode_reason_code, rows_inserted, rows_deleted FROM dynview.refresh('dvt_spj')$$,
                  $$VALUES ('FULL'::text, 'SOURCE_CHANGED_IN_TRANSACTION'::text, 1::bigint, 1::bigint)$$,
                  'SPJ after a source update in this transaction: FULL, SOURCE_CHANGED_IN_TRANSACTION, 1 in, 1 out');
SELECT ok(dynview.verify('dvt_spj'), 'verify dvt_spj after the refresh');
SELECT results_eq($$SELECT refresh_mode, mode_reason_code FROM dynview.refresh('dvt_limit_ties')$$,
                  $$VALUES ('FULL'::text, 'ORDER_BY_LIMIT'::text)$$,
                  'a refresh of a FULL table carries the table''s reason code');
SELECT ok(dynview.verify('dvt_limit_ties'), 'verify dvt_limit_ties after the refresh');
-- a downstream of an incremental dynamic table: nothing changed upstream => NO_DATA
SELECT results_eq($$SELECT refresh_mode, mode_reason_code, rows_inserted, rows_deleted FROM dynview.refresh('dvt_down')$$,
                  $$VALUES ('NO_DATA'::text, NULL::text, 0::bigint, 0::bigint)$$,
                  'an incremental downstream whose upstream did not change: NO_DATA, no reason, 0/0');
SELECT ok(dynview.verify('dvt_down'), 'verify dvt_down after the NO_DATA refresh');

-------------------------------------------------------------------------------
-- refresh_mode => 'incremental'
-------------------------------------------------------------------------------
SELECT lives_ok($$SELECT dynview.create_dynamic_table('dvt_inc_spj',
                      'SELECT o.id, c.region FROM dvt_orders o JOIN dvt_customers c USING (customer)', refresh_mode => 'incremental')$$,
                'refresh_mode => incremental is accepted for an SPJ query');
SELECT ok(dynview.verify('dvt_inc_spj'), 'verify dvt_inc_spj after creation');
SELECT lives_ok($$SELECT dynview.create_dynamic_table('dvt_inc_grp',
                      'SELECT customer, max(qty) AS top FROM dvt_orders GROUP BY customer', refresh_mode => 'INCREMENTAL')$$,
                'refresh_mode => incremental is accepted for a GROUP BY query');
SELECT ok(dynview.verify('dvt_inc_grp'), 'verify dvt_inc_grp after creation');
SELECT results_eq($$SELECT name::text, refresh_mode, effective_mode, mode_reason_code FROM dynview.dynamic_tables
                     WHERE name IN ('dvt_inc_spj'::regclass, 'dvt_inc_grp'::regclass) ORDER BY 1$$,
                  $$VALUES ('dvt_inc_grp', 'incremental', 'INCREMENTAL', NULL::text),
                           ('dvt_inc_spj', 'incremental', 'INCREMENTAL', NULL::text)$$,
                  'declared incremental: refresh_mode incremental, effective INCREMENTAL, no reason');
SELECT is(pg_temp.error_of($$SELECT dynview.create_dynamic_table('dvt_bad', 'SELECT id FROM dvt_orders ORDER BY qty FETCH FIRST 1 ROW WITH TIES', refresh_mode => 'incremental')$$),
          '0A000: LIMIT is incremental with ORDER BY, a constant count and no WITH TIES. (ORDER_BY_LIMIT)',
          'refresh_mode => incremental on a LIMIT query: 0A000, the detail names ORDER_BY_LIMIT');
SELECT matches(pg_temp.error_of($$SELECT dynview.create_dynamic_table('dvt_bad', 'SELECT string_agg(customer, '','' ORDER BY customer) AS cs FROM dvt_orders', refresh_mode => 'incremental')$$),
               '^0A000: .*\(GLOBAL_AGGREGATE\)$', 'refresh_mode => incremental on string_agg without GROUP BY: 0A000 naming GLOBAL_AGGREGATE');
SELECT matches(pg_temp.error_of($$SELECT dynview.create_dynamic_table('dvt_bad', 'SELECT id, v FROM dvt_unlogged', refresh_mode => 'incremental')$$),
               '^0A000: .*\(SOURCE_NOT_CAPTURED\)$', 'refresh_mode => incremental on an unlogged source: 0A000 naming SOURCE_NOT_CAPTURED');
SELECT ok(to_regclass('dvt_bad') IS NULL AND NOT EXISTS (SELECT 1 FROM dynview.dynamic_tables WHERE name::text = 'dvt_bad'),
          'nothing is left of the refused creations');

-- alter_dynamic_table switches between the declared modes with the same rules
SELECT lives_ok($$SELECT dynview.alter_dynamic_table('dvt_full', refresh_mode => 'incremental')$$,
                'alter an SPJ table from full to incremental');
SELECT results_eq($$SELECT refresh_mode, effective_mode, mode_reason_code FROM dynview.dynamic_tables WHERE name = 'dvt_full'::regclass$$,
                  $$VALUES ('incremental'::text, 'INCREMENTAL'::text, NULL::text)$$,
                  'after alter to incremental: effective INCREMENTAL, no reason');
SELECT lives_ok($$SELECT dynview.alter_dynamic_table('dvt_full', refresh_mode => 'full')$$, 'alter it back to full');
SELECT is(pg_temp.mode_of('dvt_full'), 'FULL/FULL_REQUESTED', 'after alter to full: FULL, FULL_REQUESTED');
SELECT lives_ok($$SELECT dynview.alter_dynamic_table('dvt_full', refresh_mode => 'auto')$$, 'alter it to auto');
SELECT is(pg_temp.mode_of('dvt_full'), 'INCREMENTAL/', 'after alter to auto: INCREMENTAL');
SELECT results_eq($$SELECT refresh_mode, mode_reason_code FROM dynview.refresh('dvt_full')$$,
                  $$VALUES ('FULL'::text, 'SOURCE_CHANGED_IN_TRANSACTION'::text)$$,
                  'the refresh after alter to auto takes the incremental path (FULL here: source written in this transaction)');
SELECT ok(dynview.verify('dvt_full'), 'verify dvt_full after the refresh');
SELECT matches(pg_temp.error_of($$SELECT dynview.alter_dynamic_table('dvt_window', refresh_mode => 'incremental')$$),
               '^0A000: .*\(WINDOW_FUNCTION\)$', 'alter to incremental of a window query: 0A000 naming WINDOW_FUNCTION');
SELECT results_eq($$SELECT refresh_mode, effective_mode, mode_reason_code FROM dynview.dynamic_tables WHERE name = 'dvt_window'::regclass$$,
                  $$VALUES ('auto'::text, 'FULL'::text, 'WINDOW_FUNCTION'::text)$$,
                  'the refused alter changes nothing');

-------------------------------------------------------------------------------
-- the apply index
-------------------------------------------------------------------------------
SELECT is(pg_temp.indexes_of('dvt_grp'), 'UNIQUE (customer) NULLS NOT DISTINCT',
          'GROUP BY: a unique index, nulls not distinct, on the group key');
SELECT is(pg_temp.indexes_of('dvt_grp2'), 'UNIQUE (region, qty) NULLS NOT DISTINCT',
          'GROUP BY two keys: a unique index on both keys');
SELECT is(pg_temp.indexes_of('dvt_dist'), 'UNIQUE (customer, qty) NULLS NOT DISTINCT',
          'DISTINCT: a unique index on every output column');
SELECT is(pg_temp.indexes_of('dvt_spj'), 'UNIQUE (id) NULLS NOT DISTINCT',
          'SPJ passing the source''s primary key through: a unique index on that derived key');
SELECT lives_ok($$SELECT dynview.create_dynamic_table('dvt_nokey', 'SELECT customer, qty FROM dvt_orders')$$,
                'create an SPJ table without the source''s key');
SELECT is(pg_temp.indexes_of('dvt_nokey'), '(customer)', 'SPJ without a derived key: a plain index on the first column');
SELECT is(pg_temp.indexes_of('dvt_limit_ties'), '', 'a FULL table gets no index');
SELECT lives_ok($$SELECT dynview.create_dynamic_table('dvt_json_first', 'SELECT doc, qty FROM dvt_orders')$$,
                'create an SPJ table whose first column is json');
SELECT is(pg_temp.indexes_of('dvt_json_first'), '', 'no index when the first column has no btree operator class');
SELECT is(pg_temp.mode_of('dvt_json_first'), 'INCREMENTAL/', 'and the table is still INCREMENTAL');
SELECT ok(dynview.verify('dvt_json_first'), 'verify dvt_json_first after creation');
SELECT lives_ok($$SELECT dynview.create_dynamic_table('dvt_keyed', 'SELECT customer, count(*) AS n FROM dvt_orders GROUP BY customer',
                      primary_key => ARRAY['customer'])$$, 'create a GROUP BY table with primary_key');
SELECT is(pg_temp.indexes_of('dvt_keyed'), 'UNIQUE (customer) NULLS NOT DISTINCT',
          'with primary_key only the key index is created');

-- create_or_replace changes the query kind: the mode follows, and the refill must work
SELECT lives_ok($$SELECT dynview.create_or_replace_dynamic_table('dvt_limit', 'SELECT id, qty FROM dvt_orders WHERE qty > 1')$$,
                'replace a LIMIT query by an SPJ query');
SELECT is(pg_temp.mode_of('dvt_limit'), 'INCREMENTAL/', 'the replaced table is INCREMENTAL');
SELECT ok(dynview.verify('dvt_limit'), 'verify dvt_limit after the replace');
SELECT lives_ok($$SELECT dynview.create_or_replace_dynamic_table('dvt_grp',
                      'SELECT customer, count(*) AS n, sum(amount) AS total, qty FROM dvt_orders GROUP BY customer, qty')$$,
                'replace a GROUP BY customer query by GROUP BY customer, qty (customer no longer unique)');
SELECT ok(dynview.verify('dvt_grp'), 'verify dvt_grp after the replace');

SELECT * FROM finish();
ROLLBACK;
