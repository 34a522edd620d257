-- A key value longer than a B-tree entry takes (about 2.7 kB) in one of dynview's own indexes
-- when a table is built, not refreshed (found by the twelfth session's tester): a group key, a
-- DISTINCT column or a count(DISTINCT) argument of several kB made create_dynamic_table() fail
-- with PostgreSQL's error naming an index in dynview_state and PostgreSQL's hint ("Consider a
-- function index of an MD5 hash of the value"), which is not the user's to follow; so did
-- refresh_mode => 'full' (the table's apply index), create_or_replace_dynamic_table(), and a
-- FULL refresh that rebuilds a state.  Each now fails with the same error (54000) and a hint
-- that names the cause and what to do; nothing is left behind; the replaced or refreshed table
-- keeps its last good data.  Every refresh compared with its query (verify(), and the rows by
-- text and by =).
SET client_min_messages = warning;
-- (the count(DISTINCT) multiplicities one row per group and value, whose index holds the value:
-- one row per group keeps the values in arrays, unindexed, and builds; distinct_arrays tests that)
SET dynview.distinct_values_per_row = 0;
\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round
CREATE TABLE lkb_src (id int PRIMARY KEY, g int, k text);
-- 3 kB keys that do not compress
INSERT INTO lkb_src SELECT i, i % 2, (SELECT string_agg(md5((i * 1000 + j)::text), '') FROM generate_series(1, 94) j)
  FROM generate_series(1, 3) i;
INSERT INTO lkb_src VALUES (4, 0, 'short'), (5, 1, NULL);
SELECT length(k) AS key_bytes FROM lkb_src WHERE id = 1;
-- lkb_run(statement): run it, report the error's SQLSTATE and whether its hint names the cause
-- (and speaks of the table's last good data, as a refresh's does)
CREATE FUNCTION lkb_run(statement text)
RETURNS TABLE (code text, hint_names_cause boolean, hint_says_refresh boolean)
LANGUAGE plpgsql AS $$
DECLARE
  h text;
BEGIN
  BEGIN
    EXECUTE statement;
    code := 'none';
  EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS code = RETURNED_SQLSTATE, h = PG_EXCEPTION_HINT;
    hint_names_cause := h LIKE 'A key of the dynamic table %longer than dynview''s B-tree index can hold%short%';
    hint_says_refresh := h LIKE '%keeps its last good data%';
  END;
  RETURN NEXT;
END $$;
SELECT count(*) AS states_before FROM pg_class WHERE relnamespace = 'dynview_state'::regnamespace \gset
-- 1. creation: a count(DISTINCT) argument, a group key, a DISTINCT column, in auto mode; the
-- group key in full mode (the apply index)
SELECT 'count_distinct' AS what, * FROM lkb_run($$SELECT dynview.create_dynamic_table('lkb_cd', 'SELECT g, count(DISTINCT k) AS nk FROM lkb_src GROUP BY g', schedule => 'manual', refresh_mode => 'auto')$$);
SELECT 'group_key' AS what, * FROM lkb_run($$SELECT dynview.create_dynamic_table('lkb_gk', 'SELECT k, count(*) AS n FROM lkb_src GROUP BY k', schedule => 'manual', refresh_mode => 'auto')$$);
SELECT 'distinct' AS what, * FROM lkb_run($$SELECT dynview.create_dynamic_table('lkb_ds', 'SELECT DISTINCT k FROM lkb_src', schedule => 'manual', refresh_mode => 'auto')$$);
SELECT 'group_key_full' AS what, * FROM lkb_run($$SELECT dynview.create_dynamic_table('lkb_gk', 'SELECT k, count(*) AS n FROM lkb_src GROUP BY k', schedule => 'manual', refresh_mode => 'full')$$);
-- nothing left behind: no table, no catalog row, no state
SELECT count(*) AS tables_left FROM pg_class WHERE relname IN ('lkb_cd', 'lkb_gk', 'lkb_ds');
SELECT count(*) AS catalog_rows FROM dynview.dynamic_tables WHERE name::text LIKE 'lkb%';
SELECT count(*) = :states_before AS no_state_left FROM pg_class WHERE relnamespace = 'dynview_state'::regnamespace;

-- 2. a table whose rows have short keys, replaced by a definition that reads the long ones:
-- the replacement fails, the table keeps its definition and data
CREATE TABLE lkb_defs (name text, query text);
INSERT INTO lkb_defs VALUES ('lkb_short', 'SELECT g, count(DISTINCT k) AS nk, count(*) AS n FROM lkb_src WHERE id > 3 GROUP BY g');
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual') IS NOT NULL AS created FROM lkb_defs;
SELECT * FROM dv_refresh_round('lkb_defs');
SELECT 'replace' AS what, * FROM lkb_run($$SELECT dynview.create_or_replace_dynamic_table('lkb_short', 'SELECT g, count(DISTINCT k) AS nk, count(*) AS n FROM lkb_src GROUP BY g', schedule => 'manual', refresh_mode => 'auto')$$);
SELECT query = (SELECT query FROM lkb_defs) AS definition_kept FROM dynview.dynamic_tables WHERE name = 'lkb_short'::regclass;
SELECT * FROM lkb_short ORDER BY g;
INSERT INTO lkb_src VALUES (6, 1, 'x');
SELECT * FROM dv_refresh_round('lkb_defs');

-- 3. a FULL refresh that rebuilds the state (back from refresh_mode full) over a long value:
-- the refresh's hint, the table keeps its data; once the row is gone, it refreshes again
SELECT dynview.alter_dynamic_table('lkb_short', refresh_mode => 'full');
INSERT INTO lkb_src SELECT 7, 0, k || 'x' FROM lkb_src WHERE id = 1;
SELECT refresh_mode FROM dynview.refresh('lkb_short');
SELECT dynview.verify('lkb_short');
SELECT dynview.alter_dynamic_table('lkb_short', refresh_mode => 'auto');
SELECT 'rebuild' AS what, * FROM lkb_run($$SELECT dynview.refresh('lkb_short')$$);
SELECT * FROM lkb_short ORDER BY g;
DELETE FROM lkb_src WHERE id = 7;
SELECT * FROM dv_refresh_round('lkb_defs');
INSERT INTO lkb_src VALUES (8, 0, 'y');
SELECT * FROM dv_refresh_round('lkb_defs');
SELECT * FROM lkb_short ORDER BY g;

SELECT dynview.drop_dynamic_table(name) FROM lkb_defs;
DROP FUNCTION lkb_run(text);
DROP FUNCTION dv_refresh_round(regclass);
DROP TABLE lkb_defs, lkb_src;
