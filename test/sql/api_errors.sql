-- Bad input: each gets a clear error and changes nothing (design section 8).
SET client_min_messages = warning;
CREATE TABLE e_src (id int PRIMARY KEY, v int);
INSERT INTO e_src VALUES (1, 1), (2, 0);
-- unknown and duplicate names
SELECT dynview.refresh('e_nope');
SELECT dynview.drop_dynamic_table('e_nope');
SELECT dynview.drop_dynamic_table('e_nope', if_exists => true);
SELECT dynview.create_dynamic_table('e_src', 'SELECT 1 AS x');
-- not a dynamic table
SELECT dynview.refresh('e_src');
SELECT dynview.alter_dynamic_table('e_src', schedule => '1 minute');
SELECT dynview.verify('e_src');
-- queries that do not parse, do not analyse, write, lock, or are not one SELECT
SELECT dynview.create_dynamic_table('e_dt', 'SELEC 1');
SELECT dynview.create_dynamic_table('e_dt', 'SELECT nope FROM e_src');
SELECT dynview.create_dynamic_table('e_dt', 'DELETE FROM e_src');
SELECT dynview.create_dynamic_table('e_dt', 'WITH d AS (DELETE FROM e_src RETURNING *) SELECT * FROM d');
SELECT dynview.create_dynamic_table('e_dt', 'SELECT * FROM e_src FOR UPDATE');
SELECT dynview.create_dynamic_table('e_dt', 'SELECT 1; SELECT 2');
SELECT dynview.create_dynamic_table('e_dt', ' -- nothing but a comment');
SELECT dynview.create_dynamic_table('e_dt', 'SELECT * INTO e_copy FROM e_src');
CREATE TEMP TABLE e_temp (id int);
SELECT dynview.create_dynamic_table('e_dt', 'SELECT * FROM e_temp');
SELECT dynview.create_dynamic_table('pg_temp.e_dt', 'SELECT * FROM e_src');
-- bad schedule and refresh mode
SELECT dynview.create_dynamic_table('e_dt', 'SELECT * FROM e_src', schedule => 'often');
SELECT dynview.create_dynamic_table('e_dt', 'SELECT * FROM e_src', schedule => '500 milliseconds');
SELECT dynview.create_dynamic_table('e_dt', 'SELECT * FROM e_src', schedule => '-1 minute');
SELECT dynview.create_dynamic_table('e_dt', 'SELECT * FROM e_src', schedule => '*/5 * * * *');
SELECT dynview.create_dynamic_table('e_dt', 'SELECT * FROM e_src', refresh_mode => 'sometimes');
SELECT dynview.create_dynamic_table('e_dt', 'SELECT * FROM e_src ORDER BY id FETCH FIRST 1 ROW WITH TIES', refresh_mode => 'incremental');
SELECT dynview.create_dynamic_table('e_dt', 'SELECT * FROM e_src', primary_key => ARRAY['nope']);
-- two result columns of one name: refused before anything is made
SELECT dynview.create_dynamic_table('e_dt', 'SELECT id, v AS id FROM e_src');
SELECT dynview.create_dynamic_table('e_dt', 'SELECT 1, 2');
SELECT dynview.create_dynamic_table(NULL, 'SELECT 1 AS x');
-- the query's own runtime error: nothing is created
SELECT dynview.create_dynamic_table('e_dt', 'SELECT id, 1 / v AS r FROM e_src');
-- nothing above left anything behind
SELECT to_regclass('e_dt'), (SELECT count(*) FROM dynview.dynamic_tables), (SELECT count(*) FROM dynview.refresh_history);
-- cycles: a -> b -> a is refused
SELECT dynview.create_dynamic_table('e_a', 'SELECT id, v FROM e_src', schedule => 'manual');
SELECT dynview.create_dynamic_table('e_b', 'SELECT id, v FROM e_a', schedule => 'manual');
SELECT dynview.create_or_replace_dynamic_table('e_a', 'SELECT id, v FROM e_b');
SELECT dynview.create_or_replace_dynamic_table('e_a', 'SELECT id, v FROM e_a');
SELECT dynview.create_or_replace_dynamic_table('e_a', 'SELECT id, v, v FROM e_src');
-- a dropped upstream's name cannot be reused to close a cycle
SELECT dynview.drop_dynamic_table('e_a');
SELECT dynview.create_dynamic_table('e_a', 'SELECT id, v FROM e_b');
-- valid alterations
SELECT dynview.create_dynamic_table('e_a', 'SELECT id, v FROM e_src', schedule => 'manual');
SELECT dynview.alter_dynamic_table('e_a', schedule => '5 seconds');
SELECT dynview.alter_dynamic_table('e_a', refresh_mode => 'FULL');
SELECT dynview.alter_dynamic_table('e_a', schedule => '0 seconds');
SELECT dynview.suspend('e_a');
SELECT name, schedule, refresh_mode, scheduling_state, suspend_reason FROM dynview.dynamic_tables ORDER BY name::text;
SELECT dynview.resume('e_a');
SELECT name, scheduling_state FROM dynview.dynamic_tables ORDER BY name::text;
SELECT (dynview.refresh('e_b')).state, dynview.verify('e_a'), dynview.verify('e_b');
-- a refresh writes: refused in a read-only transaction (25006), as PostgreSQL refuses writes
BEGIN READ ONLY;
SELECT dynview.refresh('e_b');
ROLLBACK;
-- refresh_history: a negative row count is refused (22023) with a hint; NULL returns every row
SELECT count(*) FROM dynview.refresh_history('e_b', -1);
SELECT count(*) = (SELECT count(*) FROM dynview.refresh_history h WHERE h.name = 'e_b'::regclass)
  AS all_rows FROM dynview.refresh_history('e_b', NULL);
SELECT count(*) FROM dynview.refresh_history('e_b', 0);
SELECT dynview.drop_dynamic_table('e_b');
SELECT dynview.drop_dynamic_table('e_a');
DROP TABLE e_src;
