-- 03_replace_drop.sql: dynview.create_or_replace_dynamic_table on an existing dynamic table and
-- dynview.drop_dynamic_table (design sections 2, 7): replace keeps the table (OID, grants,
-- indexes) and refills it; incompatible replacements and cycles fail and change nothing; drop
-- removes the table and its bookkeeping and never breaks a downstream, which keeps its rows,
-- records NO_DATA / UPSTREAM_MISSING, and after the upstream is recreated FULL / UPSTREAM_RECREATED.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS dynview;

SELECT plan(114);

-- verify() that reports an error as a failed check instead of aborting the file
CREATE FUNCTION pg_temp.verify_safe(t text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
    RETURN dynview.verify(t);
EXCEPTION WHEN OTHERS THEN
    RAISE WARNING 'dynview.verify(%) raised %: %', t, SQLSTATE, SQLERRM;
    RETURN false;
END
$$;

-- a snapshot of everything dynview knows about one table, to show that a failed call changed nothing
CREATE FUNCTION pg_temp.state_of(t text) RETURNS text LANGUAGE sql AS $$
    SELECT concat_ws(' | ',
        (SELECT c.oid::text FROM pg_class c WHERE c.oid = to_regclass(t)),
        (SELECT string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod), ', ' ORDER BY a.attnum)
           FROM pg_attribute a WHERE a.attrelid = to_regclass(t) AND a.attnum > 0 AND NOT a.attisdropped),
        (SELECT row(d.query, d.schedule, d.refresh_mode, d.effective_mode, d.scheduling_state,
                    d.data_snapshot::text, d.upstreams)::text
           FROM dynview.dynamic_tables d WHERE d.name = to_regclass(t)),
        (SELECT count(*)::text FROM dynview.refresh_history h WHERE h.name = to_regclass(t)),
        (SELECT string_agg(x::text, ',' ORDER BY x::text) FROM (SELECT * FROM dynview.dependencies) x))
$$;

CREATE TABLE dvt_orders (id int PRIMARY KEY, customer text NOT NULL, amount numeric(10,2), qty int);
INSERT INTO dvt_orders VALUES
    (1, 'ann', 10.00, 1), (2, 'bob', 20.50, 2), (3, 'ann', 5.25, 3), (4, 'cid', 7.00, 1);

-------------------------------------------------------------------------------
-- create_or_replace keeps the table and refills it
-------------------------------------------------------------------------------
SELECT lives_ok($$SELECT dynview.create_dynamic_table('dvt_t', 'SELECT id, qty FROM dvt_orders')$$, 'create dvt_t');
SELECT ok(dynview.verify('dvt_t'), 'verify dvt_t after creation');
CREATE INDEX dvt_t_qty ON dvt_t (qty);
CREATE ROLE dvt_reader;
GRANT SELECT ON dvt_t TO dvt_reader;
CREATE VIEW dvt_t_view AS SELECT id FROM dvt_t;
CREATE TEMP TABLE t_oid AS SELECT 'dvt_t'::regclass::oid AS oid;

SELECT is(dynview.create_or_replace_dynamic_table('dvt_t',
              'SELECT id, qty, customer FROM dvt_orders WHERE id < 4', schedule => '10 minutes')::oid,
          (SELECT oid FROM t_oid), 'create_or_replace returns the same table (same OID)');
SELECT columns_are('public', 'dvt_t', ARRAY['id', 'qty', 'customer'], 'the new column is appended');
SELECT col_type_is('public', 'dvt_t', 'customer', 'text', 'the new column has the query''s type');
SELECT results_eq('SELECT id, qty, customer FROM dvt_t ORDER BY id',
                  'SELECT id, qty, customer FROM dvt_orders WHERE id < 4 ORDER BY id',
                  'the table is refilled with the new query''s result at once');
SELECT ok(dynview.verify('dvt_t'), 'verify after replace');
SELECT ok(has_table_privilege('dvt_reader', 'dvt_t', 'SELECT'), 'grants on the table are kept');
SELECT ok(EXISTS (SELECT 1 FROM pg_indexes WHERE tablename = 'dvt_t' AND indexname = 'dvt_t_qty'),
          'indexes on the table are kept');
SELECT is((SELECT count(*)::int FROM dvt_t_view), 3, 'a view over the table keeps working');
SELECT results_eq($$SELECT query, schedule FROM dynview.dynamic_tables WHERE name = 'dvt_t'::regclass$$,
                  $$VALUES ('SELECT id, qty, customer FROM dvt_orders WHERE id < 4'::text, '10 minutes'::text)$$,
                  'dynamic_tables shows the new query and schedule');
SELECT results_eq($$SELECT state, refresh_mode, refresh_trigger, mode_reason_code, rows_inserted, rows_deleted
                      FROM dynview.refresh_history('dvt_t', 1)$$,
                  $$VALUES ('SUCCEED'::text, 'FULL'::text, 'CREATION'::text, 'DEFINITION_REPLACED'::text, 3::bigint, 4::bigint)$$,
                  'the refill is a FULL refresh with reason DEFINITION_REPLACED (every row changed: 3 in, 4 out)');
SELECT is((SELECT count(*)::int FROM dynview.refresh_history('dvt_t')), 2, 'history keeps the earlier rows');

-- the same definition again: nothing changes in the table
SELECT lives_ok($$SELECT dynview.create_or_replace_dynamic_table('dvt_t',
                    'SELECT id, qty, customer FROM dvt_orders WHERE id < 4', schedule => '10 minutes')$$,
                'replace with the same definition');
SELECT results_eq($$SELECT rows_inserted, rows_deleted FROM dynview.refresh_history('dvt_t', 1)$$,
                  $$VALUES (0::bigint, 0::bigint)$$, 'replacing with the same query changes no row');
SELECT ok(dynview.verify('dvt_t'), 'verify after the identical replace');

-- refresh after replace uses the new definition
INSERT INTO dvt_orders VALUES (0, 'zed', 1.00, 9);
SELECT results_eq($$SELECT state, refresh_mode, mode_reason_code, rows_inserted, rows_deleted FROM dynview.refresh('dvt_t')$$,
                  $$VALUES ('SUCCEED'::text, 'FULL'::text, 'SOURCE_CHANGED_IN_TRANSACTION'::text, 1::bigint, 0::bigint)$$,
                  'the refresh after a replace uses the new definition (FULL: the source was written in this transaction)');
SELECT ok(dynview.verify('dvt_t'), 'verify after refreshing the replaced table');

-- replace with initialize => false: the table must never be inconsistent with its definition
SELECT lives_ok($$SELECT dynview.create_or_replace_dynamic_table('dvt_t',
                    'SELECT id, qty, upper(customer) AS customer FROM dvt_orders WHERE id < 4', initialize => false)$$,
                'replace with initialize => false');
SELECT ok(pg_temp.verify_safe('dvt_t'),
          'after replace with initialize => false the table still equals its (new) query at its data snapshot');
SELECT lives_ok($$SELECT dynview.refresh('dvt_t')$$, 'refresh after the deferred replace');
SELECT ok(dynview.verify('dvt_t'), 'verify after refreshing the deferred replace');
SELECT results_eq('SELECT customer FROM dvt_t ORDER BY id', 'SELECT upper(customer) FROM dvt_orders WHERE id < 4 ORDER BY id',
                  'the deferred replace is filled by the next refresh');

-------------------------------------------------------------------------------
-- create_or_replace errors change nothing
-------------------------------------------------------------------------------
CREATE TEMP TABLE before AS SELECT pg_temp.state_of('dvt_t') AS s;

SELECT throws_ok($$SELECT dynview.create_or_replace_dynamic_table('dvt_t', 'SELECT id, qty::text AS qty, customer FROM dvt_orders')$$,
                 '0A000', 'cannot replace column "qty" of dynamic table "dvt_t" from type integer to type text',
                 'a column type change fails (0A000) with the documented message');
SELECT is(pg_temp.state_of('dvt_t'), (SELECT s FROM before), 'a failed type change leaves everything as it was');
SELECT throws_ok($$SELECT dynview.create_or_replace_dynamic_table('dvt_t', 'SELECT id, qty::bigint AS qty, customer FROM dvt_orders')$$,
                 '0A000', 'cannot replace column "qty" of dynamic table "dvt_t" from type integer to type bigint',
                 'integer to bigint is a type change too');
SELECT throws_ok($$SELECT dynview.create_or_replace_dynamic_table('dvt_t', 'SELECT id, qty FROM dvt_orders')$$,
                 '0A000', NULL, 'dropping a column fails (0A000)');
SELECT is(pg_temp.state_of('dvt_t'), (SELECT s FROM before), 'a failed column drop leaves everything as it was');
SELECT throws_ok($$SELECT dynview.create_or_replace_dynamic_table('dvt_t', 'SELECT id, qty AS quantity, customer FROM dvt_orders')$$,
                 '0A000', NULL, 'renaming a column fails (0A000)');
SELECT throws_ok($$SELECT dynview.create_or_replace_dynamic_table('dvt_t', 'SELECT qty, id, customer FROM dvt_orders')$$,
                 '0A000', NULL, 'reordering columns fails (0A000)');
SELECT is(pg_temp.state_of('dvt_t'), (SELECT s FROM before), 'failed rename/reorder leave everything as it was');
SELECT throws_ok($$SELECT dynview.create_or_replace_dynamic_table('dvt_t', 'SELECT id, qty, customer FROM dvt_t')$$,
                 '42P17', 'dynamic table "dvt_t" cannot read itself',
                 'a definition reading the table itself fails (42P17)');
SELECT is(pg_temp.state_of('dvt_t'), (SELECT s FROM before), 'a failed self-reference leaves everything as it was');
SELECT throws_ok($$SELECT dynview.create_or_replace_dynamic_table('dvt_orders', 'SELECT 1 AS id')$$,
                 '42809', '"dvt_orders" is not a dynamic table',
                 'replacing an ordinary table fails (42809)');
SELECT results_eq('SELECT count(*)::int FROM dvt_orders', 'VALUES (5)', 'the ordinary table is untouched');
SELECT throws_ok($$SELECT dynview.create_or_replace_dynamic_table('dvt_t', 'SELECT id, qty, customer FROM dvt_orders', schedule => 'abc')$$,
                 '22023', 'invalid schedule "abc"', 'a bad schedule fails (22023)');
SELECT throws_ok($$SELECT dynview.create_or_replace_dynamic_table('dvt_t', 'SELECT id, qty, customer FROM dvt_orders ORDER BY qty FETCH FIRST 2 ROWS WITH TIES', refresh_mode => 'incremental')$$,
                 '0A000', 'this query cannot be refreshed incrementally',
                 'refresh_mode => incremental is refused for a query that is not incremental (WITH TIES, 0A000)');
SELECT throws_ok($$SELECT dynview.create_or_replace_dynamic_table('dvt_t', 'SELECT id, qty, customer FROM dvt_orders', primary_key => ARRAY['nope'])$$,
                 '42703', 'primary_key column "nope" is not a column of the query', 'an unknown key column fails (42703)');
SELECT throws_ok($$SELECT dynview.create_or_replace_dynamic_table('dvt_t', NULL)$$,
                 '22004', 'argument "query" must not be null', 'a null query fails (22004)');
SELECT is(pg_temp.state_of('dvt_t'), (SELECT s FROM before), 'failed calls with bad arguments leave everything as it was');

-------------------------------------------------------------------------------
-- dependency cycles (42P17)
-------------------------------------------------------------------------------
SELECT lives_ok($$SELECT dynview.create_dynamic_table('dvt_a', 'SELECT id, qty FROM dvt_orders')$$, 'create dvt_a (reads dvt_orders)');
SELECT ok(dynview.verify('dvt_a'), 'verify dvt_a after creation');
SELECT lives_ok($$SELECT dynview.create_dynamic_table('dvt_b', 'SELECT id, qty FROM dvt_a WHERE qty > 1')$$, 'create dvt_b (reads dvt_a)');
SELECT ok(dynview.verify('dvt_b'), 'verify dvt_b after creation');
SELECT lives_ok($$SELECT dynview.create_dynamic_table('dvt_c', 'SELECT sum(qty)::int AS qty, 0 AS id FROM dvt_b')$$, 'create dvt_c (reads dvt_b)');
SELECT ok(dynview.verify('dvt_c'), 'verify dvt_c after creation');
UPDATE before SET s = pg_temp.state_of('dvt_a');
SELECT throws_ok($$SELECT dynview.create_or_replace_dynamic_table('dvt_a', 'SELECT id, qty FROM dvt_b')$$,
                 '42P17', 'dynamic table "public.dvt_a" would depend on itself through "public.dvt_b"',
                 'A reads base, B reads A: replacing A to read B fails (42P17)');
SELECT throws_ok($$SELECT dynview.create_or_replace_dynamic_table('dvt_a', 'SELECT id, qty FROM dvt_c')$$,
                 '42P17', NULL, 'a longer cycle A -> B -> C -> A fails (42P17)');
SELECT throws_ok($$SELECT dynview.create_or_replace_dynamic_table('dvt_a', 'SELECT o.id, o.qty FROM dvt_orders o JOIN dvt_b b USING (id)')$$,
                 '42P17', NULL, 'a cycle through one of several sources fails (42P17)');
SELECT is(pg_temp.state_of('dvt_a'), (SELECT s FROM before), 'failed cycles leave dvt_a as it was');
SELECT set_eq('SELECT upstream::text, downstream::text FROM dynview.dependencies',
              $$VALUES ('dvt_a', 'dvt_b'), ('dvt_b', 'dvt_c')$$, 'the dependency graph is unchanged');

-------------------------------------------------------------------------------
-- drop_dynamic_table
-------------------------------------------------------------------------------
SELECT lives_ok($$SELECT dynview.create_dynamic_table('dvt_gone', 'SELECT id FROM dvt_orders')$$, 'create dvt_gone');
SELECT ok(dynview.verify('dvt_gone'), 'verify dvt_gone after creation');
SELECT lives_ok($$SELECT dynview.drop_dynamic_table('dvt_gone')$$, 'drop_dynamic_table(dvt_gone)');
SELECT hasnt_table('public', 'dvt_gone', 'the table is dropped');
SELECT is_empty($$SELECT * FROM dynview.dynamic_tables WHERE name::text = 'dvt_gone'$$, 'its catalog row is gone');
SELECT is_empty($$SELECT * FROM dynview.refresh_history WHERE table_name = 'dvt_gone'$$, 'its history is gone');
SELECT throws_ok($$SELECT * FROM dynview.refresh_history('dvt_gone')$$, '42P01', NULL,
                 'refresh_history of a dropped table: 42P01');
SELECT throws_ok($$SELECT dynview.drop_dynamic_table('dvt_gone')$$, '42P01', 'dynamic table "dvt_gone" does not exist',
                 'dropping it again: 42P01');
SELECT lives_ok($$SELECT dynview.drop_dynamic_table('dvt_gone', if_exists => true)$$, 'if_exists => true: no error');
SELECT throws_ok($$SELECT dynview.drop_dynamic_table('dvt_orders')$$, '42809', '"dvt_orders" is not a dynamic table',
                 'dropping an ordinary table: 42809');
SELECT has_table('public', 'dvt_orders', 'the ordinary table is not dropped');
SELECT throws_ok($$SELECT dynview.drop_dynamic_table('dvt_orders', if_exists => true)$$, '42809', NULL,
                 'if_exists does not cover an ordinary table: 42809');
SELECT throws_ok($$SELECT dynview.drop_dynamic_table(NULL)$$, '22004', 'argument "name" must not be null',
                 'a null name: 22004');
SELECT lives_ok($$SELECT dynview.create_dynamic_table('dvt_gone', 'SELECT id, customer FROM dvt_orders')$$,
                'the name can be used again after a drop');
SELECT is((SELECT count(*)::int FROM dynview.refresh_history('dvt_gone')), 1, 'the new table starts with a fresh history');
SELECT ok(dynview.verify('dvt_gone'), 'verify the re-created table');

-- plain DROP TABLE of a dynamic table also removes its bookkeeping (sql_drop event trigger)
SELECT lives_ok($$SELECT dynview.create_dynamic_table('dvt_plain', 'SELECT id FROM dvt_orders')$$, 'create dvt_plain');
SELECT ok(dynview.verify('dvt_plain'), 'verify dvt_plain after creation');
DROP TABLE dvt_plain;
SELECT is_empty($$SELECT * FROM dynview.dynamic_tables WHERE name::text = 'dvt_plain'$$,
                'plain DROP TABLE unregisters the dynamic table');
SELECT is_empty($$SELECT * FROM dynview.refresh_history WHERE table_name = 'dvt_plain'$$,
                'plain DROP TABLE removes its history');

-------------------------------------------------------------------------------
-- dropping an upstream dynamic table never breaks the downstream (section 7)
-------------------------------------------------------------------------------
CREATE TEMP TABLE b_rows AS SELECT * FROM dvt_b;
SELECT lives_ok($$SELECT dynview.drop_dynamic_table('dvt_a')$$, 'drop the upstream dvt_a');
SELECT hasnt_table('public', 'dvt_a', 'dvt_a is gone');
SELECT has_table('public', 'dvt_b', 'the downstream dvt_b is not dropped');
SELECT bag_eq('SELECT * FROM dvt_b', 'SELECT * FROM b_rows', 'the downstream keeps its rows');
SELECT is((SELECT count(*)::int FROM dynview.dynamic_tables WHERE name = 'dvt_b'::regclass), 1,
          'the downstream stays registered');
SELECT set_eq('SELECT upstream::text, downstream::text FROM dynview.dependencies',
              $$VALUES ('dvt_b', 'dvt_c')$$, 'the edge dvt_a -> dvt_b is gone from dependencies');
SELECT is((SELECT upstreams FROM dynview.dynamic_tables WHERE name = 'dvt_b'::regclass), '{}'::regclass[],
          'the downstream lists no existing upstream');

SELECT results_eq($$SELECT state, refresh_mode, refresh_trigger, mode_reason_code, rows_inserted, rows_deleted
                      FROM dynview.refresh('dvt_b')$$,
                  $$VALUES ('SUCCEED'::text, 'NO_DATA'::text, 'MANUAL'::text, 'UPSTREAM_MISSING'::text, 0::bigint, 0::bigint)$$,
                  'refresh of the downstream: SUCCEED, NO_DATA, UPSTREAM_MISSING, nothing changed');
SELECT throws_ok($$SELECT dynview.verify('dvt_b')$$, '55000', NULL,
                 'verify of the downstream while its upstream is missing: a clear error, not a guess');
SELECT ok((SELECT mode_reason LIKE '%dvt_a%' AND error_message IS NULL FROM dynview.refresh_history('dvt_b', 1)),
          'the NO_DATA row names the missing upstream and has no error');
SELECT bag_eq('SELECT * FROM dvt_b', 'SELECT * FROM b_rows', 'the downstream still keeps its rows');
SELECT is((SELECT last_refresh_state FROM dynview.dynamic_tables WHERE name = 'dvt_b'::regclass), 'SUCCEED',
          'the downstream''s last_refresh_state stays SUCCEED');

-- the downstream of the downstream refreshes through it
SELECT results_eq($$SELECT state, refresh_mode, rows_inserted, rows_deleted FROM dynview.refresh('dvt_c')$$,
                  $$VALUES ('SUCCEED'::text, 'NO_DATA'::text, 0::bigint, 0::bigint)$$,
                  'refresh of dvt_c (reads dvt_b) works while dvt_a is missing (NO_DATA: its aggregate state is kept)');
SELECT ok(dynview.verify('dvt_c'), 'verify dvt_c while dvt_a is missing');
SELECT results_eq($$SELECT name::text, refresh_trigger, refresh_mode, mode_reason_code FROM dynview.refresh_history
                     WHERE name = 'dvt_b'::regclass ORDER BY refresh_id DESC LIMIT 1$$,
                  $$VALUES ('dvt_b', 'UPSTREAM', 'NO_DATA', 'UPSTREAM_MISSING')$$,
                  'dvt_b is refreshed as UPSTREAM of dvt_c with NO_DATA');

-- a new table with the missing name that would read the downstream is a cycle
SELECT throws_ok($$SELECT dynview.create_dynamic_table('dvt_a', 'SELECT id, qty FROM dvt_b')$$,
                 '42P17', NULL, 'recreating dvt_a reading its former downstream is a cycle (42P17)');
SELECT hasnt_table('public', 'dvt_a', 'nothing is left after the cycle error');

-- recreate the upstream
SELECT lives_ok($$SELECT dynview.create_dynamic_table('dvt_a', 'SELECT id, qty + 100 AS qty FROM dvt_orders')$$,
                'recreate dvt_a with compatible columns');
SELECT ok(dynview.verify('dvt_a'), 'verify dvt_a after creation');
SELECT results_eq($$SELECT state, refresh_mode, refresh_trigger, mode_reason_code FROM dynview.refresh('dvt_b')$$,
                  $$VALUES ('SUCCEED'::text, 'FULL'::text, 'MANUAL'::text, 'UPSTREAM_RECREATED'::text)$$,
                  'the next refresh of the downstream is FULL with UPSTREAM_RECREATED');
SELECT ok(dynview.verify('dvt_b'), 'verify the downstream after the upstream was recreated');
SELECT set_eq('SELECT id, qty FROM dvt_b', 'SELECT id, qty + 100 FROM dvt_orders WHERE qty + 100 > 1',
              'the downstream reads the recreated upstream');
SELECT set_eq('SELECT upstream::text, downstream::text FROM dynview.dependencies',
              $$VALUES ('dvt_a', 'dvt_b'), ('dvt_b', 'dvt_c')$$, 'the edge dvt_a -> dvt_b is back');
-- dvt_b (SPJ over dvt_a) is incremental; nothing changed in dvt_a since the UPSTREAM_RECREATED
-- refresh, so the next one finds an empty window in dvt_a's change buffer
SELECT results_eq($$SELECT refresh_mode, mode_reason_code FROM dynview.refresh('dvt_b')$$,
                  $$VALUES ('NO_DATA'::text, NULL::text)$$,
                  'the refresh after that is an ordinary (incremental) one again: NO_DATA');
SELECT ok(dynview.verify('dvt_b'), 'verify the downstream after its next refresh');

-------------------------------------------------------------------------------
-- dropping and recreating an ordinary source table
-------------------------------------------------------------------------------
CREATE TABLE dvt_src (k int, v text);
INSERT INTO dvt_src VALUES (1, 'one'), (2, 'two');
SELECT lives_ok($$SELECT dynview.create_dynamic_table('dvt_from_src', 'SELECT k, v FROM dvt_src')$$, 'create dvt_from_src');
SELECT ok(dynview.verify('dvt_from_src'), 'verify dvt_from_src after creation');
DROP TABLE dvt_src;
SELECT results_eq($$SELECT state, refresh_mode, mode_reason_code, rows_inserted, rows_deleted FROM dynview.refresh('dvt_from_src')$$,
                  $$VALUES ('SUCCEED'::text, 'NO_DATA'::text, 'UPSTREAM_MISSING'::text, 0::bigint, 0::bigint)$$,
                  'a dropped source table: NO_DATA, UPSTREAM_MISSING');
SELECT throws_ok($$SELECT dynview.verify('dvt_from_src')$$, '55000', NULL,
                 'verify while the source table is missing: a clear error');
SELECT results_eq('SELECT k, v FROM dvt_from_src ORDER BY k', $$VALUES (1, 'one'::text), (2, 'two')$$,
                  'the table keeps its rows while its source is missing');
CREATE TABLE dvt_src (k int, v text);
INSERT INTO dvt_src VALUES (3, 'three');
SELECT results_eq($$SELECT state, refresh_mode, mode_reason_code, rows_inserted, rows_deleted FROM dynview.refresh('dvt_from_src')$$,
                  $$VALUES ('SUCCEED'::text, 'FULL'::text, 'UPSTREAM_RECREATED'::text, 1::bigint, 2::bigint)$$,
                  'a recreated source table: FULL, UPSTREAM_RECREATED');
SELECT ok(dynview.verify('dvt_from_src'), 'verify after the source table was recreated');
SELECT results_eq('SELECT k, v FROM dvt_from_src', $$VALUES (3, 'three'::text)$$, 'the table reads the new source');

-- drop of a downstream leaves the upstream alone
SELECT lives_ok($$SELECT dynview.drop_dynamic_table('dvt_c')$$, 'drop the downstream dvt_c');
SELECT has_table('public', 'dvt_b', 'dropping a downstream leaves its upstream');
SELECT set_eq('SELECT upstream::text, downstream::text FROM dynview.dependencies',
              $$VALUES ('dvt_a', 'dvt_b')$$, 'only the edge to the dropped table is removed');
SELECT results_eq($$SELECT state FROM dynview.refresh('dvt_b')$$, $$VALUES ('SUCCEED'::text)$$,
                  'the upstream still refreshes');
SELECT ok(dynview.verify('dvt_b'), 'verify dvt_b after its downstream was dropped');

-- drop with a schema-qualified name
CREATE SCHEMA dvt_s;
SELECT lives_ok($$SELECT dynview.create_dynamic_table('dvt_s.q', 'SELECT 1 AS one')$$, 'create dvt_s.q');
SELECT ok(dynview.verify('dvt_s.q'), 'verify dvt_s.q after creation');
SELECT throws_ok($$SELECT dynview.drop_dynamic_table('q')$$, '42P01', NULL,
                 'an unqualified name not on search_path: 42P01');
SELECT lives_ok($$SELECT dynview.drop_dynamic_table('dvt_s.q')$$, 'drop_dynamic_table(dvt_s.q)');
SELECT hasnt_table('dvt_s', 'q', 'dvt_s.q is dropped');

SELECT * FROM finish();
ROLLBACK;
