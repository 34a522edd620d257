-- 02_refresh.sql: dynview.refresh (design sections 2, 5, 7): refreshes in the caller's
-- transaction with trigger MANUAL, returns its history row, counts rows honestly (an updated
-- row once in each of rows_inserted / rows_deleted, nothing changed = 0/0), refreshes its
-- upstream dynamic tables first in the same call (trigger UPSTREAM), and on an error of the
-- query raises it and keeps the last good data.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS dynview;

SELECT plan(94);

CREATE TABLE dvt_orders (
    id       int PRIMARY KEY,
    customer text NOT NULL,
    amount   numeric(10,2),
    qty      int
);
INSERT INTO dvt_orders VALUES
    (1, 'ann', 10.00, 1), (2, 'bob', 20.50, 2), (3, 'ann', 5.25, 3), (4, 'cid', 7.00, 1), (5, 'bob', NULL, 4);

-- the newest history row of a table, as a one-row query for results_eq
CREATE FUNCTION pg_temp.last_counts(t text)
RETURNS TABLE (state text, refresh_mode text, refresh_trigger text, rows_inserted bigint, rows_deleted bigint)
LANGUAGE sql AS $$
    SELECT state, refresh_mode, refresh_trigger, rows_inserted, rows_deleted
      FROM dynview.refresh_history(t, 1)
$$;

-- verify() that reports an error as a failed check instead of aborting the file
CREATE FUNCTION pg_temp.verify_safe(t text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
    RETURN dynview.verify(t);
EXCEPTION WHEN OTHERS THEN
    RAISE WARNING 'dynview.verify(%) raised %: %', t, SQLSTATE, SQLERRM;
    RETURN false;
END
$$;

SELECT lives_ok($$SELECT dynview.create_dynamic_table('dvt_lines', 'SELECT id, customer, amount FROM dvt_orders')$$,
                'create dvt_lines');
SELECT ok(dynview.verify('dvt_lines'), 'verify dvt_lines after creation');

-------------------------------------------------------------------------------
-- the returned row
-------------------------------------------------------------------------------
CREATE TEMP TABLE r1 AS SELECT * FROM dynview.refresh('dvt_lines');
SELECT ok(dynview.verify('dvt_lines'), 'verify after a refresh with nothing to do');
SELECT results_eq('SELECT state, refresh_mode, refresh_trigger, rows_inserted, rows_deleted FROM r1',
                  $$VALUES ('SUCCEED'::text, 'FULL'::text, 'MANUAL'::text, 0::bigint, 0::bigint)$$,
                  'refresh with no change: SUCCEED FULL MANUAL, 0 inserted, 0 deleted');
SELECT results_eq('SELECT r1::text FROM r1', $$SELECT h::text FROM dynview.refresh_history('dvt_lines', 1) h$$,
                  'refresh() returns exactly its (newest) history row');
SELECT is((SELECT name FROM r1), 'dvt_lines'::regclass, 'the returned row names the table');
-- dvt_lines is incremental (SPJ), but this transaction wrote its source dvt_orders: changes are
-- captured from the WAL only after commit, so the refresh is FULL with that reason
SELECT is((SELECT mode_reason_code FROM r1), 'SOURCE_CHANGED_IN_TRANSACTION',
          'the returned row carries the FULL reason code (the source was written in this transaction)');
SELECT ok((SELECT end_time >= start_time AND duration_ms >= 0 AND data_snapshot IS NOT NULL
                  AND data_lsn IS NOT NULL AND error_message IS NULL FROM r1),
          'the returned row has times, duration, data snapshot and LSN and no error');
SELECT is((SELECT data_snapshot::text FROM dynview.dynamic_tables WHERE name = 'dvt_lines'::regclass),
          (SELECT data_snapshot::text FROM r1), 'dynamic_tables.data_snapshot is the refresh''s snapshot');
SELECT ok((SELECT data_timestamp <= (SELECT start_time FROM r1)
             AND data_timestamp >= (SELECT start_time FROM r1) - interval '1 minute'
             FROM dynview.dynamic_tables WHERE name = 'dvt_lines'::regclass),
          'dynamic_tables.data_timestamp is when the refresh took its snapshot (just before it started)');
SELECT is((SELECT count(*)::int FROM dynview.refresh_history('dvt_lines')), 2,
          'history: the CREATION row and one MANUAL row');

-------------------------------------------------------------------------------
-- honest row counts
-------------------------------------------------------------------------------
INSERT INTO dvt_orders VALUES (6, 'dan', 3.00, 2);
SELECT results_eq($$SELECT state, refresh_mode, refresh_trigger, rows_inserted, rows_deleted FROM dynview.refresh('dvt_lines')$$,
                  $$VALUES ('SUCCEED'::text, 'FULL'::text, 'MANUAL'::text, 1::bigint, 0::bigint)$$,
                  'one source row inserted: 1 inserted, 0 deleted');
SELECT ok(dynview.verify('dvt_lines'), 'verify after an insert');

UPDATE dvt_orders SET amount = 11.00 WHERE id = 1;
SELECT results_eq($$SELECT rows_inserted, rows_deleted FROM dynview.refresh('dvt_lines')$$,
                  $$VALUES (1::bigint, 1::bigint)$$,
                  'one source row updated: counts once in each');
SELECT ok(dynview.verify('dvt_lines'), 'verify after an update');

DELETE FROM dvt_orders WHERE id = 6;
SELECT results_eq($$SELECT rows_inserted, rows_deleted FROM dynview.refresh('dvt_lines')$$,
                  $$VALUES (0::bigint, 1::bigint)$$,
                  'one source row deleted: 0 inserted, 1 deleted');
SELECT ok(dynview.verify('dvt_lines'), 'verify after a delete');

UPDATE dvt_orders SET amount = amount;
SELECT results_eq($$SELECT rows_inserted, rows_deleted FROM dynview.refresh('dvt_lines')$$,
                  $$VALUES (0::bigint, 0::bigint)$$,
                  'an UPDATE that changes no value: 0 inserted, 0 deleted');
SELECT ok(dynview.verify('dvt_lines'), 'verify after a no-op update');

-- design section 10: insert one, update one, delete one => 2 inserted, 2 deleted
INSERT INTO dvt_orders VALUES (7, 'eve', 1.50, 1);
UPDATE dvt_orders SET customer = 'ann2' WHERE id = 3;
DELETE FROM dvt_orders WHERE id = 4;
SELECT results_eq($$SELECT state, rows_inserted, rows_deleted FROM dynview.refresh('dvt_lines')$$,
                  $$VALUES ('SUCCEED'::text, 2::bigint, 2::bigint)$$,
                  'insert + update + delete: 2 inserted, 2 deleted');
SELECT ok(dynview.verify('dvt_lines'), 'verify after insert + update + delete');
SELECT results_eq('SELECT * FROM dvt_lines ORDER BY id', 'SELECT id, customer, amount FROM dvt_orders ORDER BY id',
                  'contents equal the query after insert + update + delete');

-- duplicates are counted as a multiset
SELECT lives_ok($$SELECT dynview.create_dynamic_table('dvt_qty', 'SELECT qty FROM dvt_orders')$$,
                'create dvt_qty (duplicate rows)');
SELECT ok(dynview.verify('dvt_qty'), 'verify dvt_qty after creation');
SELECT bag_eq('SELECT qty FROM dvt_qty', 'SELECT qty FROM dvt_orders', 'dvt_qty holds the duplicates');
INSERT INTO dvt_orders VALUES (8, 'fay', 2.00, 2);
SELECT results_eq($$SELECT rows_inserted, rows_deleted FROM dynview.refresh('dvt_qty')$$,
                  $$VALUES (1::bigint, 0::bigint)$$,
                  'a second copy of an existing row: 1 inserted');
SELECT ok(dynview.verify('dvt_qty'), 'verify dvt_qty after adding a duplicate');
UPDATE dvt_orders SET qty = 9 WHERE id = 8;
SELECT results_eq($$SELECT rows_inserted, rows_deleted FROM dynview.refresh('dvt_qty')$$,
                  $$VALUES (1::bigint, 1::bigint)$$,
                  'one copy of a duplicate changed: 1 inserted, 1 deleted');
SELECT ok(dynview.verify('dvt_qty'), 'verify dvt_qty after changing one of two duplicates');
SELECT bag_eq('SELECT qty FROM dvt_qty', 'SELECT qty FROM dvt_orders', 'dvt_qty equals the query as a multiset');

-- an aggregate: only the changed group is rewritten
SELECT lives_ok($$SELECT dynview.create_dynamic_table('dvt_totals',
                    'SELECT customer, count(*) AS n, sum(amount) AS total FROM dvt_orders GROUP BY customer')$$,
                'create dvt_totals');
UPDATE dvt_orders SET amount = amount + 1 WHERE id = 2;
SELECT results_eq($$SELECT rows_inserted, rows_deleted FROM dynview.refresh('dvt_totals')$$,
                  $$VALUES (1::bigint, 1::bigint)$$,
                  'aggregate: one group changed => 1 inserted, 1 deleted');
SELECT ok(dynview.verify('dvt_totals'), 'verify dvt_totals after a group changed');
SELECT results_eq($$SELECT rows_inserted, rows_deleted FROM dynview.refresh('dvt_totals')$$,
                  $$VALUES (0::bigint, 0::bigint)$$, 'aggregate: nothing changed => 0/0');
SELECT ok(dynview.verify('dvt_totals'), 'verify dvt_totals after a refresh with nothing to do');

-- a column type without btree ordering (json): counts must still be honest
SELECT lives_ok($$SELECT dynview.create_dynamic_table('dvt_json',
                    'SELECT id, json_build_object(''c'', customer) AS doc FROM dvt_orders')$$,
                'create dvt_json (a json column)');
SELECT results_eq($$SELECT rows_inserted, rows_deleted FROM dynview.refresh('dvt_json')$$,
                  $$VALUES (0::bigint, 0::bigint)$$,
                  'json column: a refresh that changes nothing reports 0 inserted, 0 deleted');
SELECT ok(dynview.verify('dvt_json'), 'verify dvt_json after a refresh with nothing to do');
UPDATE dvt_orders SET customer = 'bobby' WHERE id = 5;
SELECT results_eq($$SELECT rows_inserted, rows_deleted FROM dynview.refresh('dvt_json')$$,
                  $$VALUES (1::bigint, 1::bigint)$$,
                  'json column: one row updated => 1 inserted, 1 deleted');
SELECT ok(dynview.verify('dvt_json'), 'verify dvt_json after an update');

-------------------------------------------------------------------------------
-- data snapshot and timestamps across refreshes
-------------------------------------------------------------------------------
CREATE TEMP TABLE ts_before AS
    SELECT data_timestamp FROM dynview.dynamic_tables WHERE name = 'dvt_lines'::regclass;
SELECT is((SELECT refresh_trigger FROM dynview.refresh('dvt_lines')), 'MANUAL', 'refresh dvt_lines again');
SELECT ok(dynview.verify('dvt_lines'), 'verify dvt_lines after refreshing again');
SELECT ok((SELECT d.data_timestamp > b.data_timestamp FROM dynview.dynamic_tables d, ts_before b
            WHERE d.name = 'dvt_lines'::regclass),
          'data_timestamp advances with each refresh');
SELECT is((SELECT last_refresh_state FROM dynview.dynamic_tables WHERE name = 'dvt_lines'::regclass), 'SUCCEED',
          'last_refresh_state is SUCCEED');
-- this transaction wrote dvt_orders before the refresh, and the table holds those rows: the data
-- is the query at data_snapshot plus the refreshing transaction itself, which dynview records
-- beside the snapshot (else, once committed, verify() would fail)
SELECT ok((SELECT pg_current_xact_id() = ANY (data_own_xids)
             FROM dynview.dynamic_table_catalog WHERE relid = 'dvt_lines'::regclass),
          'the data counts the refreshing transaction''s own earlier writes as visible, as the table holds them');

-------------------------------------------------------------------------------
-- pipelines: refresh(downstream) refreshes its upstreams first, in the same call
-------------------------------------------------------------------------------
SELECT lives_ok($$SELECT dynview.create_dynamic_table('dvt_a',
                    'SELECT id, customer, amount FROM dvt_orders WHERE amount IS NOT NULL')$$, 'create dvt_a');
SELECT ok(dynview.verify('dvt_a'), 'verify dvt_a after creation');
SELECT lives_ok($$SELECT dynview.create_dynamic_table('dvt_b',
                    'SELECT customer, sum(amount) AS total FROM dvt_a GROUP BY customer')$$, 'create dvt_b reading dvt_a');
SELECT ok(dynview.verify('dvt_b'), 'verify dvt_b after creation');
SELECT lives_ok($$SELECT dynview.create_dynamic_table('dvt_c',
                    'SELECT count(*) AS customers, sum(total) AS grand FROM dvt_b')$$, 'create dvt_c reading dvt_b');
SELECT ok(dynview.verify('dvt_c'), 'verify dvt_c after creation');

CREATE TEMP TABLE mark AS SELECT max(refresh_id) AS id FROM dynview.refresh_history;
INSERT INTO dvt_orders VALUES (9, 'gus', 100.00, 1);
SELECT results_eq($$SELECT state, refresh_trigger, rows_inserted, rows_deleted FROM dynview.refresh('dvt_c')$$,
                  $$VALUES ('SUCCEED'::text, 'MANUAL'::text, 1::bigint, 1::bigint)$$,
                  'refresh(dvt_c): SUCCEED MANUAL, its one row replaced');
SELECT ok(dynview.verify('dvt_c'), 'verify dvt_c after the pipeline refresh');
SELECT ok(dynview.verify('dvt_b'), 'verify dvt_b after the pipeline refresh');
SELECT ok(dynview.verify('dvt_a'), 'verify dvt_a after the pipeline refresh');
SELECT results_eq(
    $$SELECT h.name::text, h.state, h.refresh_trigger, h.refresh_mode, h.rows_inserted, h.rows_deleted
        FROM dynview.refresh_history h, mark WHERE h.refresh_id > mark.id ORDER BY h.refresh_id$$,
    $$VALUES ('dvt_a', 'SUCCEED', 'UPSTREAM', 'FULL', 1::bigint, 0::bigint),
             ('dvt_b', 'SUCCEED', 'UPSTREAM', 'FULL', 1::bigint, 0::bigint),
             ('dvt_c', 'SUCCEED', 'MANUAL', 'FULL', 1::bigint, 1::bigint)$$,
    'upstreams refreshed first, in topological order, with trigger UPSTREAM (dvt_a FULL: source written in '
    'this transaction; dvt_b FULL: created, so refreshed, earlier in this transaction, which has since '
    'written dvt_a''s change buffer (REFRESHED_IN_TRANSACTION); dvt_c FULL likewise: created earlier in this transaction)');
SELECT is((SELECT count(DISTINCT h.data_snapshot::text)::int FROM dynview.refresh_history h, mark
            WHERE h.refresh_id > mark.id), 1,
          'the whole pipeline is refreshed at one data snapshot');
SELECT results_eq('SELECT customers, grand FROM dvt_c',
                  'SELECT count(DISTINCT customer), sum(amount) FROM dvt_orders WHERE amount IS NOT NULL',
                  'the downstream reflects the source change end to end after one refresh');

-- refreshing a middle table refreshes its upstreams, never its downstreams
UPDATE mark SET id = (SELECT max(refresh_id) FROM dynview.refresh_history);
UPDATE dvt_orders SET amount = 200.00 WHERE id = 9;
SELECT is((SELECT refresh_trigger FROM dynview.refresh('dvt_b')), 'MANUAL', 'refresh(dvt_b)');
SELECT ok(dynview.verify('dvt_b'), 'verify dvt_b after refresh(dvt_b)');
SELECT ok(dynview.verify('dvt_a'), 'verify dvt_a after refresh(dvt_b)');
SELECT results_eq(
    $$SELECT h.name::text, h.refresh_trigger FROM dynview.refresh_history h, mark
       WHERE h.refresh_id > mark.id ORDER BY h.refresh_id$$,
    $$VALUES ('dvt_a', 'UPSTREAM'), ('dvt_b', 'MANUAL')$$,
    'refresh(dvt_b) refreshes dvt_a (UPSTREAM) and dvt_b only, not the downstream dvt_c');
SELECT results_eq('SELECT total FROM dvt_b WHERE customer = ''gus''', 'VALUES (200.00::numeric)',
                  'dvt_b sees the change through dvt_a');

-------------------------------------------------------------------------------
-- an error of the query is raised as is; the table keeps its last good data
-------------------------------------------------------------------------------
SELECT lives_ok($$SELECT dynview.create_dynamic_table('dvt_div', 'SELECT id, 100 / qty AS per_unit FROM dvt_orders')$$,
                'create dvt_div');
SELECT ok(dynview.verify('dvt_div'), 'verify dvt_div after creation');
CREATE TEMP TABLE div_before AS SELECT * FROM dvt_div;
CREATE TEMP TABLE div_hist AS SELECT count(*) AS n FROM dynview.refresh_history('dvt_div');
UPDATE dvt_orders SET qty = 0 WHERE id = 1;
SELECT throws_ok($$SELECT dynview.refresh('dvt_div')$$, '22012', 'division by zero',
                 'an error of the query is raised as is (22012)');
SELECT bag_eq('SELECT * FROM dvt_div', 'SELECT * FROM div_before', 'a failed refresh keeps the last good data');
SELECT is((SELECT count(*) FROM dynview.refresh_history('dvt_div')), (SELECT n FROM div_hist),
          'a failed manual refresh (rolled back) leaves no history row');
SELECT results_eq($$SELECT last_refresh_state, scheduling_state FROM dynview.dynamic_tables WHERE name = 'dvt_div'::regclass$$,
                  $$VALUES ('SUCCEED'::text, 'ACTIVE'::text)$$,
                  'a failed manual refresh leaves the catalog row as it was');
-- the data snapshot predates the UPDATE above (same transaction, later command): verify must
-- compute the query as of the refresh, not see qty = 0
SELECT ok(pg_temp.verify_safe('dvt_div'), 'the kept data still verifies at its data snapshot');
UPDATE dvt_orders SET qty = 5 WHERE id = 1;
SELECT results_eq($$SELECT state, rows_inserted, rows_deleted FROM dynview.refresh('dvt_div')$$,
                  $$VALUES ('SUCCEED'::text, 1::bigint, 1::bigint)$$,
                  'once the data is fixed the refresh succeeds');
SELECT ok(dynview.verify('dvt_div'), 'verify dvt_div after the successful refresh');

-- source DDL (design section 7): an added column is harmless; a dropped column read by the
-- query makes the refresh fail while the table keeps its data
CREATE TABLE dvt_items (id int PRIMARY KEY, label text, weight int);
INSERT INTO dvt_items VALUES (1, 'a', 10), (2, 'b', 20);
SELECT lives_ok($$SELECT dynview.create_dynamic_table('dvt_labels', 'SELECT id, label FROM dvt_items')$$,
                'create dvt_labels');
ALTER TABLE dvt_items ADD COLUMN extra int DEFAULT 7;
SELECT results_eq($$SELECT state, rows_inserted, rows_deleted FROM dynview.refresh('dvt_labels')$$,
                  $$VALUES ('SUCCEED'::text, 0::bigint, 0::bigint)$$,
                  'a column added to the source is harmless');
SELECT ok(dynview.verify('dvt_labels'), 'verify dvt_labels after a source column was added');
SELECT columns_are('public', 'dvt_labels', ARRAY['id', 'label'], 'an added source column does not appear');
ALTER TABLE dvt_items DROP COLUMN label;
SELECT throws_ok($$SELECT dynview.refresh('dvt_labels')$$, '42703', NULL,
                 'a dropped source column makes the refresh fail (42703)');
SELECT results_eq('SELECT * FROM dvt_labels ORDER BY id', $$VALUES (1, 'a'::text), (2, 'b')$$,
                  'the table keeps its last good data after the failed refresh');
SELECT is((SELECT count(*)::int FROM dynview.dynamic_tables WHERE name = 'dvt_labels'::regclass), 1,
          'the table stays registered');

-------------------------------------------------------------------------------
-- tables with a unique key: a refresh that updates a row must not trip over the key
-------------------------------------------------------------------------------
SELECT lives_ok($$SELECT dynview.create_dynamic_table('dvt_keyed', 'SELECT id, customer, qty FROM dvt_orders',
                    primary_key => ARRAY['id'])$$, 'create dvt_keyed with primary_key => id');
UPDATE dvt_orders SET qty = qty + 10 WHERE id = 2;
SELECT lives_ok($$SELECT dynview.refresh('dvt_keyed')$$,
                'primary_key table: refresh after a source UPDATE succeeds');
SELECT ok(dynview.verify('dvt_keyed'), 'verify dvt_keyed after the update');
SELECT results_eq($$SELECT * FROM pg_temp.last_counts('dvt_keyed')$$,
                  $$VALUES ('SUCCEED'::text, 'FULL'::text, 'MANUAL'::text, 1::bigint, 1::bigint)$$,
                  'primary_key table: the update is recorded as 1 inserted, 1 deleted');
SELECT results_eq('SELECT qty FROM dvt_keyed WHERE id = 2', 'SELECT qty FROM dvt_orders WHERE id = 2',
                  'primary_key table: the updated row has its new value');

SELECT lives_ok($$SELECT dynview.create_dynamic_table('dvt_uidx', 'SELECT customer, sum(qty) AS qty FROM dvt_orders GROUP BY customer')$$,
                'create dvt_uidx');
CREATE UNIQUE INDEX ON dvt_uidx (customer);
UPDATE dvt_orders SET qty = qty + 1 WHERE id = 2;
SELECT lives_ok($$SELECT dynview.refresh('dvt_uidx')$$,
                'a user-created unique index: refresh after a change of a group succeeds');
SELECT ok(dynview.verify('dvt_uidx'), 'verify dvt_uidx after the change');

-------------------------------------------------------------------------------
-- refresh of a suspended, a manual and a downstream-scheduled table still works
-------------------------------------------------------------------------------
SELECT lives_ok($$SELECT dynview.create_dynamic_table('dvt_man', 'SELECT id FROM dvt_orders', schedule => 'manual')$$,
                'create dvt_man (schedule manual)');
INSERT INTO dvt_orders VALUES (10, 'hal', 1.00, 1);
SELECT results_eq($$SELECT state, rows_inserted FROM dynview.refresh('dvt_man')$$,
                  $$VALUES ('SUCCEED'::text, 1::bigint)$$, 'refresh of a manual-schedule table');
SELECT ok(dynview.verify('dvt_man'), 'verify dvt_man');
SELECT lives_ok($$SELECT dynview.create_dynamic_table('dvt_ds', 'SELECT id FROM dvt_orders', schedule => 'downstream')$$,
                'create dvt_ds (schedule downstream)');
INSERT INTO dvt_orders VALUES (11, 'ian', 1.00, 1);
SELECT results_eq($$SELECT state, rows_inserted FROM dynview.refresh('dvt_ds')$$,
                  $$VALUES ('SUCCEED'::text, 1::bigint)$$, 'refresh of a downstream-schedule table');
SELECT ok(dynview.verify('dvt_ds'), 'verify dvt_ds');

-- no refresh is ever left RUNNING
SELECT is_empty($$SELECT * FROM dynview.refresh_history WHERE state = 'RUNNING' OR end_time IS NULL$$,
                'no history row is left RUNNING or without end_time');

SELECT * FROM finish();
ROLLBACK;
