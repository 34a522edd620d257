-- 05_guard_errors.sql: errors for bad input (design section 8) and the DML guard (section 2).
-- Every error has its SQLSTATE and message, and leaves nothing behind: no table, no catalog row,
-- no history row.  Direct INSERT/UPDATE/DELETE/TRUNCATE/MERGE on a dynamic table fails with
-- 42809 "cannot modify dynamic table".
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS dynview;

SELECT plan(117);

CREATE TABLE dvt_orders (id int PRIMARY KEY, customer text NOT NULL, amount numeric(10,2), qty int);
INSERT INTO dvt_orders VALUES (1, 'ann', 10.00, 1), (2, 'bob', 20.50, 2), (3, 'ann', 5.25, 3);

-- nothing of a failed create is left: no relation, no catalog row, no history row, no
-- dependency; the counts are compared with the baseline taken before the error cases
CREATE TEMP TABLE baseline (tables bigint, history bigint, deps bigint);
CREATE FUNCTION pg_temp.nothing_left(t text) RETURNS boolean LANGUAGE sql AS $$
    SELECT to_regclass(t) IS NULL
       AND NOT EXISTS (SELECT 1 FROM dynview.dynamic_tables d WHERE d.name::text = t)
       AND NOT EXISTS (SELECT 1 FROM dynview.refresh_history h WHERE h.table_name = t OR h.name::text = t)
       AND (SELECT count(*) FROM dynview.dynamic_tables) = (SELECT tables FROM baseline)
       AND (SELECT count(*) FROM dynview.refresh_history) = (SELECT history FROM baseline)
       AND (SELECT count(*) FROM dynview.dependencies) = (SELECT deps FROM baseline)
$$;

SELECT lives_ok($$SELECT dynview.create_dynamic_table('dvt_t', 'SELECT id, customer, qty FROM dvt_orders')$$,
                'create dvt_t');
SELECT ok(dynview.verify('dvt_t'), 'verify dvt_t after creation');
CREATE TEMP TABLE t_rows AS SELECT * FROM dvt_t;

-------------------------------------------------------------------------------
-- the DML guard
-------------------------------------------------------------------------------
SELECT throws_ok($$INSERT INTO dvt_t VALUES (9, 'x', 9)$$, '42809', 'cannot modify dynamic table "dvt_t"',
                 'INSERT into a dynamic table fails (42809)');
SELECT throws_ok($$INSERT INTO dvt_t SELECT id, customer, qty FROM dvt_orders$$, '42809', 'cannot modify dynamic table "dvt_t"',
                 'INSERT ... SELECT into a dynamic table fails (42809)');
SELECT throws_ok($$UPDATE dvt_t SET qty = 0$$, '42809', 'cannot modify dynamic table "dvt_t"',
                 'UPDATE of a dynamic table fails (42809)');
SELECT throws_ok($$DELETE FROM dvt_t$$, '42809', 'cannot modify dynamic table "dvt_t"',
                 'DELETE from a dynamic table fails (42809)');
SELECT throws_ok($$TRUNCATE dvt_t$$, '42809', 'cannot modify dynamic table "dvt_t"',
                 'TRUNCATE of a dynamic table fails (42809)');
SELECT throws_ok($$TRUNCATE dvt_orders, dvt_t$$, '42809', 'cannot modify dynamic table "dvt_t"',
                 'TRUNCATE of a list that includes a dynamic table fails (42809)');
SELECT throws_ok($$MERGE INTO dvt_t t USING dvt_orders o ON t.id = o.id WHEN MATCHED THEN DELETE$$,
                 '42809', 'cannot modify dynamic table "dvt_t"', 'MERGE into a dynamic table fails (42809)');
SELECT throws_ok($$INSERT INTO public.dvt_t (id) VALUES (10) ON CONFLICT DO NOTHING$$,
                 '42809', 'cannot modify dynamic table "dvt_t"', 'INSERT ... ON CONFLICT into a dynamic table fails (42809)');
CREATE FUNCTION pg_temp.sneaky_delete() RETURNS void LANGUAGE plpgsql AS $$ BEGIN DELETE FROM public.dvt_t; END $$;
SELECT throws_ok($$SELECT pg_temp.sneaky_delete()$$, '42809', 'cannot modify dynamic table "dvt_t"',
                 'DML inside a function fails too (42809)');
PREPARE dvt_ins AS INSERT INTO dvt_t VALUES (11, 'y', 1);
SELECT throws_ok($$EXECUTE dvt_ins$$, '42809', 'cannot modify dynamic table "dvt_t"',
                 'a prepared INSERT fails (42809)');
SELECT bag_eq('SELECT * FROM dvt_t', 'SELECT * FROM t_rows', 'the dynamic table is unchanged after the refused DML');
SELECT ok(dynview.verify('dvt_t'), 'the dynamic table still verifies');

-- a data-modifying WITH under a top-level SELECT (own table, so that a bypass cannot spoil dvt_t)
SELECT lives_ok($$SELECT dynview.create_dynamic_table('dvt_cte', 'SELECT id, qty FROM dvt_orders')$$, 'create dvt_cte');
SELECT ok(dynview.verify('dvt_cte'), 'verify dvt_cte after creation');
SELECT throws_ok($$WITH d AS (DELETE FROM dvt_cte RETURNING *) SELECT count(*) FROM d$$,
                 '42809', 'cannot modify dynamic table "dvt_cte"', 'SELECT with a WITH ... DELETE on a dynamic table fails (42809)');
SELECT throws_ok($$WITH i AS (INSERT INTO dvt_cte VALUES (99, 99) RETURNING *) SELECT * FROM i$$,
                 '42809', 'cannot modify dynamic table "dvt_cte"', 'SELECT with a WITH ... INSERT on a dynamic table fails (42809)');
SELECT bag_eq('SELECT * FROM dvt_cte', 'SELECT id, qty FROM dvt_orders', 'dvt_cte is unchanged after the refused CTE DML');
SELECT ok(dynview.verify('dvt_cte'), 'dvt_cte still verifies');
SELECT lives_ok($$SELECT dynview.drop_dynamic_table('dvt_cte')$$, 'drop dvt_cte');

-- reads, locks, indexes and DML on sources are not affected
SELECT lives_ok($$SELECT * FROM dvt_t FOR SHARE$$, 'SELECT ... FOR SHARE on a dynamic table is allowed');
SELECT lives_ok($$CREATE INDEX dvt_t_customer ON dvt_t (customer)$$, 'CREATE INDEX on a dynamic table is allowed');
SELECT lives_ok($$UPDATE dvt_orders SET qty = qty + 1 WHERE id = 1$$, 'DML on a source table is allowed');
SELECT results_eq($$SELECT state, rows_inserted, rows_deleted FROM dynview.refresh('dvt_t')$$,
                  $$VALUES ('SUCCEED'::text, 1::bigint, 1::bigint)$$, 'dynview itself may write the table (refresh)');
SELECT ok(dynview.verify('dvt_t'), 'verify after the refresh');
-- the guard follows the table: an ordinary table of a dropped dynamic table's name is writable
SELECT lives_ok($$SELECT dynview.create_dynamic_table('dvt_tmp', 'SELECT id FROM dvt_orders')$$, 'create dvt_tmp');
SELECT ok(dynview.verify('dvt_tmp'), 'verify dvt_tmp after creation');
SELECT lives_ok($$SELECT dynview.drop_dynamic_table('dvt_tmp')$$, 'drop dvt_tmp');
CREATE TABLE dvt_tmp (id int);
SELECT lives_ok($$INSERT INTO dvt_tmp VALUES (1)$$, 'an ordinary table with a dropped dynamic table''s name is writable');
DROP TABLE dvt_tmp;
SELECT lives_ok($$DELETE FROM dvt_orders WHERE id = 3$$, 'source DML');
SELECT lives_ok($$INSERT INTO dvt_orders VALUES (3, 'ann', 5.25, 3)$$, 'source DML');

INSERT INTO baseline SELECT (SELECT count(*) FROM dynview.dynamic_tables),
                            (SELECT count(*) FROM dynview.refresh_history),
                            (SELECT count(*) FROM dynview.dependencies);

-------------------------------------------------------------------------------
-- create_dynamic_table: bad names
-------------------------------------------------------------------------------
SELECT throws_ok($$SELECT dynview.create_dynamic_table('dvt_t', 'SELECT id FROM dvt_orders')$$,
                 '42P07', 'relation "dvt_t" already exists', 'duplicate dynamic table name (42P07)');
SELECT bag_eq('SELECT * FROM dvt_t', 'SELECT id, customer, qty FROM dvt_orders', 'the existing table is untouched');
SELECT throws_ok($$SELECT dynview.create_dynamic_table('dvt_orders', 'SELECT 1 AS one')$$,
                 '42P07', 'relation "dvt_orders" already exists', 'the name of an ordinary table (42P07)');
CREATE VIEW dvt_view AS SELECT 1 AS one;
SELECT throws_ok($$SELECT dynview.create_dynamic_table('dvt_view', 'SELECT 1 AS one')$$,
                 '42P07', NULL, 'the name of a view (42P07)');
SELECT throws_ok($$SELECT dynview.create_dynamic_table('dvt_nosuch_schema.x', 'SELECT 1 AS one')$$,
                 '3F000', NULL, 'an unknown schema (3F000)');
SELECT throws_ok($$SELECT dynview.create_dynamic_table('pg_temp.dvt_bad', 'SELECT 1 AS one')$$,
                 '0A000', 'dynamic tables cannot be temporary', 'a temporary dynamic table (0A000)');
SELECT ok(pg_temp.nothing_left('dvt_bad'), 'nothing left after the name errors');

-------------------------------------------------------------------------------
-- create_dynamic_table: bad schedule (22023)
-------------------------------------------------------------------------------
SELECT throws_ok($$SELECT dynview.create_dynamic_table('dvt_bad', 'SELECT id FROM dvt_orders', schedule => '0.5 seconds')$$,
                 '22023', 'schedule "0.5 seconds" is shorter than 1 second', 'schedule 0.5 seconds (22023)');
SELECT ok(pg_temp.nothing_left('dvt_bad'), 'nothing left after schedule 0.5 seconds');
SELECT throws_ok($$SELECT dynview.create_dynamic_table('dvt_bad', 'SELECT id FROM dvt_orders', schedule => 'abc')$$,
                 '22023', 'invalid schedule "abc"', 'schedule abc (22023)');
SELECT ok(pg_temp.nothing_left('dvt_bad'), 'nothing left after schedule abc');
SELECT throws_ok($$SELECT dynview.create_dynamic_table('dvt_bad', 'SELECT id FROM dvt_orders', schedule => '999 milliseconds')$$,
                 '22023', NULL, 'schedule 999 milliseconds (22023)');
SELECT throws_ok($$SELECT dynview.create_dynamic_table('dvt_bad', 'SELECT id FROM dvt_orders', schedule => '-1 minute')$$,
                 '22023', NULL, 'a negative schedule (22023)');
SELECT throws_ok($$SELECT dynview.create_dynamic_table('dvt_bad', 'SELECT id FROM dvt_orders', schedule => '0')$$,
                 '22023', NULL, 'schedule 0 (22023)');
SELECT throws_ok($$SELECT dynview.create_dynamic_table('dvt_bad', 'SELECT id FROM dvt_orders', schedule => '')$$,
                 '22023', 'invalid schedule ""', 'an empty schedule (22023)');
SELECT throws_ok($$SELECT dynview.create_dynamic_table('dvt_bad', 'SELECT id FROM dvt_orders', schedule => '2024-01-01')$$,
                 '22023', NULL, 'a date is not a schedule (22023)');
SELECT throws_ok($$SELECT dynview.create_dynamic_table('dvt_bad', 'SELECT id FROM dvt_orders', schedule => 'every minute')$$,
                 '22023', NULL, 'free text is not a schedule (22023)');
SELECT ok(pg_temp.nothing_left('dvt_bad'), 'nothing left after the schedule errors');

-------------------------------------------------------------------------------
-- create_dynamic_table: bad refresh_mode
-------------------------------------------------------------------------------
SELECT throws_ok($$SELECT dynview.create_dynamic_table('dvt_bad', 'SELECT id FROM dvt_orders', refresh_mode => 'fast')$$,
                 '22023', 'invalid refresh mode "fast"', 'refresh_mode fast (22023)');
SELECT throws_ok($$SELECT dynview.create_dynamic_table('dvt_bad', 'SELECT id FROM dvt_orders', refresh_mode => '')$$,
                 '22023', NULL, 'an empty refresh_mode (22023)');
SELECT ok(pg_temp.nothing_left('dvt_bad'), 'nothing left after bad refresh modes');
-- 'incremental' is refused for every query that would refresh in full, naming the reason
-- (projections, joins and GROUP BY are incremental: see 09_incremental.sql)
SELECT throws_ok($$SELECT dynview.create_dynamic_table('dvt_bad', 'SELECT id FROM dvt_orders ORDER BY id FETCH FIRST 2 ROWS WITH TIES', refresh_mode => 'incremental')$$,
                 '0A000', 'this query cannot be refreshed incrementally', 'refresh_mode incremental on a WITH TIES query (0A000)');
SELECT throws_ok($$SELECT dynview.create_dynamic_table('dvt_bad', 'SELECT string_agg(customer, '','') AS cs FROM dvt_orders', refresh_mode => 'INCREMENTAL')$$,
                 '0A000', 'this query cannot be refreshed incrementally', 'refresh_mode incremental on a global string_agg (0A000)');
SELECT throws_ok($$SELECT dynview.create_dynamic_table('dvt_bad', 'SELECT id, random() AS r FROM dvt_orders', refresh_mode => 'incremental')$$,
                 '0A000', NULL, 'refresh_mode incremental on a volatile query (0A000)');
SELECT ok(pg_temp.nothing_left('dvt_bad'), 'nothing left after refresh_mode incremental');

-------------------------------------------------------------------------------
-- create_dynamic_table: bad queries
-------------------------------------------------------------------------------
SELECT throws_ok($$SELECT dynview.create_dynamic_table('dvt_bad', 'WITH d AS (DELETE FROM dvt_orders RETURNING id) SELECT id FROM d')$$,
                 '0A000', 'the query of a dynamic table must not write', 'a data-modifying WITH (0A000)');
SELECT is((SELECT count(*)::int FROM dvt_orders), 3, 'the data-modifying WITH did not run');
SELECT ok(pg_temp.nothing_left('dvt_bad'), 'nothing left after a data-modifying WITH');
SELECT throws_ok($$SELECT dynview.create_dynamic_table('dvt_bad', 'WITH u AS (UPDATE dvt_orders SET qty = 0 RETURNING id) SELECT id FROM u')$$,
                 '0A000', 'the query of a dynamic table must not write', 'a WITH ... UPDATE (0A000)');
SELECT throws_ok($$SELECT dynview.create_dynamic_table('dvt_bad', 'DELETE FROM dvt_orders RETURNING id')$$,
                 '0A000', 'the query of a dynamic table must be a SELECT statement', 'DELETE ... RETURNING as the query (0A000)');
SELECT throws_ok($$SELECT dynview.create_dynamic_table('dvt_bad', 'SELECT id INTO dvt_into FROM dvt_orders')$$,
                 '0A000', 'the query of a dynamic table must be a SELECT statement', 'SELECT INTO (0A000)');
SELECT hasnt_table('public', 'dvt_into', 'SELECT INTO created nothing');
SELECT throws_ok($$SELECT dynview.create_dynamic_table('dvt_bad', 'CREATE TABLE dvt_made (a int)')$$,
                 '0A000', 'the query of a dynamic table must be a SELECT statement', 'a utility statement (0A000)');
SELECT hasnt_table('public', 'dvt_made', 'the utility statement did not run');
SELECT throws_ok($$SELECT dynview.create_dynamic_table('dvt_bad', 'SELECT 1 AS a; SELECT 2 AS b')$$,
                 '0A000', 'the query of a dynamic table must be exactly one SELECT statement',
                 'multiple statements: 0A000 (documented: "a query that is not a single SELECT ... (0A000)")');
SELECT throws_ok($$SELECT dynview.create_dynamic_table('dvt_bad', 'SELECT 1 AS a; DROP TABLE dvt_orders')$$,
                 NULL, 'the query of a dynamic table must be exactly one SELECT statement', 'a SELECT followed by DROP TABLE');
SELECT has_table('public', 'dvt_orders', 'the appended DROP TABLE did not run');
SELECT throws_ok($$SELECT dynview.create_dynamic_table('dvt_bad', '')$$,
                 NULL, 'the query of a dynamic table must be exactly one SELECT statement', 'an empty query');
SELECT throws_ok($$SELECT dynview.create_dynamic_table('dvt_bad', 'SELECT id FROM dvt_orders FOR UPDATE')$$,
                 '0A000', 'the query of a dynamic table must not lock rows', 'SELECT ... FOR UPDATE (0A000)');
SELECT throws_ok($$SELECT dynview.create_dynamic_table('dvt_bad', 'SELECT id FROM dvt_orders FOR SHARE')$$,
                 '0A000', 'the query of a dynamic table must not lock rows', 'SELECT ... FOR SHARE (0A000)');
SELECT throws_ok($$SELECT dynview.create_dynamic_table('dvt_bad', 'SELECT FROM dvt_orders')$$,
                 '0A000', 'the query of a dynamic table must return at least one column', 'a query without columns (0A000)');
SELECT throws_ok($$SELECT dynview.create_dynamic_table('dvt_bad', 'SELEC id FROM dvt_orders')$$,
                 '42601', NULL, 'a syntax error: PostgreSQL''s own error (42601)');
SELECT throws_ok($$SELECT dynview.create_dynamic_table('dvt_bad', 'SELECT nope FROM dvt_orders')$$,
                 '42703', 'column "nope" does not exist', 'an unknown column: PostgreSQL''s own error (42703)');
SELECT throws_ok($$SELECT dynview.create_dynamic_table('dvt_bad', 'SELECT id FROM dvt_nosuch')$$,
                 '42P01', 'relation "dvt_nosuch" does not exist', 'an unknown table: PostgreSQL''s own error (42P01)');
SELECT throws_ok($$SELECT dynview.create_dynamic_table('dvt_bad', 'SELECT 1/0 AS boom')$$,
                 '22012', NULL, 'an error while filling the table is raised (22012)');
SELECT throws_ok($$SELECT dynview.create_dynamic_table('dvt_bad', 'SELECT id FROM dvt_bad')$$,
                 '42P01', NULL, 'a new table cannot read itself: it does not exist yet (42P01)');
SELECT ok(pg_temp.nothing_left('dvt_bad'), 'nothing left after the bad queries');

-- sources that cannot be tracked
CREATE TEMP TABLE dvt_temp_src (a int);
SELECT throws_ok($$SELECT dynview.create_dynamic_table('dvt_bad', 'SELECT a FROM dvt_temp_src')$$,
                 '0A000', 'dynamic tables cannot read temporary table "dvt_temp_src"', 'a temporary source table (0A000)');
SELECT throws_ok($$SELECT dynview.create_dynamic_table('dvt_bad', 'SELECT o.id FROM dvt_orders o JOIN dvt_temp_src t ON t.a = o.id')$$,
                 '0A000', 'dynamic tables cannot read temporary table "dvt_temp_src"', 'a temporary table in a join (0A000)');
SELECT throws_ok($$SELECT dynview.create_dynamic_table('dvt_bad', 'SELECT id FROM dvt_orders WHERE id IN (SELECT a FROM dvt_temp_src)')$$,
                 '0A000', 'dynamic tables cannot read temporary table "dvt_temp_src"', 'a temporary table in a subquery (0A000)');
CREATE TEMP VIEW dvt_temp_view AS SELECT a FROM dvt_temp_src;
SELECT throws_ok($$SELECT dynview.create_dynamic_table('dvt_bad', 'SELECT a FROM dvt_temp_view')$$,
                 '0A000', NULL, 'a temporary view over a temporary table (0A000)');
CREATE SEQUENCE dvt_seq;
SELECT throws_ok($$SELECT dynview.create_dynamic_table('dvt_bad', 'SELECT last_value FROM dvt_seq')$$,
                 '0A000', NULL, 'a sequence as source (0A000)');
SELECT ok(pg_temp.nothing_left('dvt_bad'), 'nothing left after the untrackable sources');

-- primary_key
SELECT throws_ok($$SELECT dynview.create_dynamic_table('dvt_bad', 'SELECT id, qty FROM dvt_orders', primary_key => ARRAY['nope'])$$,
                 '42703', 'primary_key column "nope" is not a column of the query', 'primary_key names a non-existent column (42703)');
SELECT ok(pg_temp.nothing_left('dvt_bad'), 'nothing left after a bad primary_key');
SELECT throws_ok($$SELECT dynview.create_dynamic_table('dvt_bad', 'SELECT id, qty FROM dvt_orders', primary_key => ARRAY['id', 'customer'])$$,
                 '42703', 'primary_key column "customer" is not a column of the query', 'primary_key with one unknown column (42703)');
SELECT throws_ok($$SELECT dynview.create_dynamic_table('dvt_bad', 'SELECT id, qty FROM dvt_orders', primary_key => ARRAY['ID'])$$,
                 '42703', NULL, 'primary_key column names are case-sensitive (42703)');
SELECT throws_ok($$SELECT dynview.create_dynamic_table('dvt_bad', 'SELECT id, qty FROM dvt_orders', primary_key => ARRAY[]::text[])$$,
                 '22023', 'primary_key must name at least one column', 'an empty primary_key (22023)');
SELECT throws_ok($$SELECT dynview.create_dynamic_table('dvt_bad', 'SELECT id, qty FROM dvt_orders', primary_key => ARRAY[NULL]::text[])$$,
                 '22004', 'primary_key must not contain nulls', 'a null in primary_key (22004)');
SELECT throws_ok($$SELECT dynview.create_dynamic_table('dvt_bad', 'SELECT qty FROM dvt_orders', primary_key => ARRAY['qty'])$$,
                 '23505', NULL, 'a primary_key that is not unique in the result fails (23505)');
SELECT ok(pg_temp.nothing_left('dvt_bad'), 'nothing left after the primary_key errors');

-- null arguments
SELECT throws_ok($$SELECT dynview.create_dynamic_table(NULL, 'SELECT id FROM dvt_orders')$$,
                 '22004', 'argument "name" must not be null', 'a null name (22004)');
SELECT throws_ok($$SELECT dynview.create_dynamic_table('dvt_bad', NULL)$$,
                 '22004', 'argument "query" must not be null', 'a null query (22004)');
SELECT throws_ok($$SELECT dynview.create_dynamic_table('dvt_bad', 'SELECT id FROM dvt_orders', schedule => NULL)$$,
                 '22004', 'argument "schedule" must not be null', 'a null schedule (22004)');
SELECT throws_ok($$SELECT dynview.create_dynamic_table('dvt_bad', 'SELECT id FROM dvt_orders', refresh_mode => NULL)$$,
                 '22004', 'argument "refresh_mode" must not be null', 'a null refresh_mode (22004)');
SELECT throws_ok($$SELECT dynview.create_or_replace_dynamic_table(NULL, 'SELECT id FROM dvt_orders')$$,
                 '22004', 'argument "name" must not be null', 'create_or_replace: a null name (22004)');
SELECT throws_ok($$SELECT dynview.create_or_replace_dynamic_table('dvt_bad', 'SELECT id FROM dvt_orders', schedule => NULL)$$,
                 '22004', 'argument "schedule" must not be null', 'create_or_replace: a null schedule (22004)');
SELECT ok(pg_temp.nothing_left('dvt_bad'), 'nothing left after the null arguments');

-- the same validation in create_or_replace on a new name
SELECT throws_ok($$SELECT dynview.create_or_replace_dynamic_table('dvt_bad', 'SELECT id FROM dvt_orders', schedule => '0.5 seconds')$$,
                 '22023', 'schedule "0.5 seconds" is shorter than 1 second', 'create_or_replace: schedule 0.5 seconds (22023)');
SELECT throws_ok($$SELECT dynview.create_or_replace_dynamic_table('dvt_bad', 'WITH d AS (DELETE FROM dvt_orders RETURNING id) SELECT id FROM d')$$,
                 '0A000', 'the query of a dynamic table must not write', 'create_or_replace: a data-modifying WITH (0A000)');
SELECT throws_ok($$SELECT dynview.create_or_replace_dynamic_table('dvt_bad', 'SELECT a FROM dvt_temp_src')$$,
                 '0A000', NULL, 'create_or_replace: a temporary source (0A000)');
SELECT ok(pg_temp.nothing_left('dvt_bad'), 'nothing left after the create_or_replace errors');

-------------------------------------------------------------------------------
-- refresh / drop / refresh_history: unknown names and wrong object types
-------------------------------------------------------------------------------
SELECT throws_ok($$SELECT dynview.refresh('dvt_nosuch')$$, '42P01', 'dynamic table "dvt_nosuch" does not exist',
                 'refresh: unknown name (42P01)');
SELECT throws_ok($$SELECT dynview.refresh('dvt_orders')$$, '42809', '"dvt_orders" is not a dynamic table',
                 'refresh: an ordinary table (42809)');
SELECT throws_ok($$SELECT dynview.refresh('dvt_view')$$, '42809', '"dvt_view" is not a dynamic table',
                 'refresh: a view (42809)');
SELECT throws_ok($$SELECT dynview.refresh('dvt_temp_src')$$, '42809', NULL, 'refresh: a temporary table (42809)');
SELECT throws_ok($$SELECT dynview.refresh(NULL)$$, '22004', 'argument "name" must not be null', 'refresh: a null name (22004)');
SELECT throws_ok($$SELECT dynview.refresh('a.b.c.d')$$, '42601', NULL, 'refresh: an improper name (42601)');
SELECT throws_ok($$SELECT dynview.drop_dynamic_table('dvt_nosuch')$$, '42P01', 'dynamic table "dvt_nosuch" does not exist',
                 'drop: unknown name (42P01)');
SELECT throws_ok($$SELECT dynview.drop_dynamic_table('dvt_view')$$, '42809', '"dvt_view" is not a dynamic table',
                 'drop: a view (42809)');
SELECT throws_ok($$SELECT * FROM dynview.refresh_history('dvt_nosuch')$$, '42P01', NULL,
                 'refresh_history: unknown name (42P01)');
SELECT is_empty($$SELECT * FROM dynview.refresh_history(NULL)$$, 'refresh_history(NULL) returns no rows');
SELECT is((SELECT count(*)::int FROM dynview.dynamic_tables), 1, 'in the end only dvt_t is registered');
SELECT is((SELECT count(*) FROM dynview.refresh_history), (SELECT history FROM baseline),
          'and the history holds only the refreshes made before the error cases');
SELECT ok(dynview.verify('dvt_t'), 'dvt_t still verifies after all the errors');

SELECT * FROM finish();
ROLLBACK;
