-- The window read also applies conjuncts of the query's filter that call built-in immutable
-- functions that are not leakproof (dynview.window_filter_functions; delta.c
-- dv_window_conjunct_kind, incremental.c read_window): numeric comparisons and arithmetic, a date
-- compared with a timestamp, a division.  Such a conjunct may raise an error on a change row the
-- query never evaluates it on: a row that a later change in the same window undid (b = 0 written
-- and deleted again), or a row that another conjunct, one the window read does not apply,
-- rejects first (nz(b), a user's function, cheap, which the query evaluates before a / b).  The
-- read is then made again with the leakproof conjuncts only: the refresh stays INCREMENTAL, its
-- mode_reason says so, and every refresh is compared with its query.  Tables read as they are
-- (sums over a filter, dynview.linear_windows_as_is: wff_lin, wff_sum; rows: wff_rows, whose
-- read as it is fails on the undone row and is applied again over the consolidated window, as
-- wff_lin's) and consolidated ones (groups with count(DISTINCT)); explain() names the conjuncts
-- the window read applies, and with the setting off only the leakproof ones, which the refreshes
-- then apply (no error to fall back from).
SET client_min_messages = warning;
\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round

-- a user's function: never applied by the window read (not built in); cheap, so that the
-- query's plan evaluates it before a / b
CREATE FUNCTION nz(int) RETURNS boolean LANGUAGE plpgsql IMMUTABLE COST 0.0001
  AS $$ BEGIN RETURN $1 <> 0; END $$;

CREATE TABLE wff_s (id int PRIMARY KEY, a int, b int, x numeric(10,2), d date, t text);
INSERT INTO wff_s SELECT i, i * 3, 1 + i % 4, i * 0.25, date '2026-01-01' + i, 'v' || (i % 12)
  FROM generate_series(1, 40) i;
CREATE TABLE wff_defs (name text, query text);
INSERT INTO wff_defs VALUES
  ('wff_sum', $$SELECT count(*) AS n, sum(x) AS sx FROM wff_s WHERE b <> 0 AND a / b > 4 AND x < 8.5$$),
  ('wff_lin', $$SELECT count(*) AS n, sum(x) AS sx, avg(a) AS aa FROM wff_s WHERE a / b > 5$$),
  ('wff_grp', $$SELECT b, count(*) AS n, count(DISTINCT a) AS da FROM wff_s
                 WHERE a / b > 2 AND d < date '2026-01-15' + interval '10 days' GROUP BY b$$),
  ('wff_rows', $$SELECT id, a, x FROM wff_s WHERE x * 2 >= 3.0 AND (a % b) = 0 AND t COLLATE "C" < 'v5'$$),
  ('wff_guard', $$SELECT b, count(*) AS n, sum(x) AS sx FROM wff_s WHERE nz(b) AND a / b > 3 GROUP BY b$$);
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual', refresh_mode => 'incremental')
  FROM wff_defs ORDER BY name;
SELECT * FROM dv_refresh_round('wff_defs');

-- what the window read applies
SELECT d.name, btrim(line) AS filter
  FROM wff_defs d, dynview.explain_dynamic_table(d.name) e, regexp_split_to_table(e.value, E'\n') AS line
 WHERE e.property = 'operator tree' AND line LIKE '%filter%'
 ORDER BY 1, 2;

-- each table's last refresh: its mode and its mode_reason (the fallback, or none)
CREATE FUNCTION wff_reasons() RETURNS TABLE (name text, refresh_mode text, mode_reason text)
LANGUAGE sql AS $$
  SELECT d.name, h.refresh_mode, h.mode_reason
    FROM wff_defs d, dynview.refresh_history(d.name, 1) h ORDER BY 1
$$;

-- an undone row: b = 0 written and deleted again in one window (a / b fails on it), with
-- ordinary changes around it (wff_sum's window read applies b <> 0 first: no failure)
BEGIN;
INSERT INTO wff_s VALUES (100, 50, 0, 1.5, date '2026-01-03', 'v1');
DELETE FROM wff_s WHERE id = 100;
UPDATE wff_s SET a = a + 30 WHERE id IN (2, 5);
UPDATE wff_s SET x = 9 WHERE id = 7;
COMMIT;
SELECT * FROM dv_refresh_round('wff_defs');
SELECT * FROM wff_reasons();

-- an update through b = 0 and back in one window; a row deleted and inserted again alike
UPDATE wff_s SET b = 0 WHERE id = 11;
UPDATE wff_s SET b = 2 WHERE id = 11;
BEGIN;
DELETE FROM wff_s WHERE id = 12;
INSERT INTO wff_s VALUES (12, 36, 1, 3.00, date '2026-01-13', 'v0');
COMMIT;
SELECT * FROM dv_refresh_round('wff_defs');
SELECT * FROM wff_reasons();

-- changes that fail nothing: no fallback
UPDATE wff_s SET x = x + 1 WHERE id BETWEEN 20 AND 24;
INSERT INTO wff_s VALUES (101, 80, 3, 2.75, date '2026-01-05', 'v2');
SELECT * FROM dv_refresh_round('wff_defs');
SELECT * FROM wff_reasons();

-- a kept row with b = 0: the queries that evaluate a / b without a guard the plan puts first
-- would fail themselves, so only wff_guard, whose nz(b) the window read does not apply, sees it
DELETE FROM wff_defs WHERE name <> 'wff_guard';
INSERT INTO wff_s VALUES (102, 70, 0, 1.00, date '2026-01-06', 'v3');
SELECT * FROM dv_refresh_round('wff_defs');
SELECT * FROM wff_reasons();

-- the setting off: the leakproof conjuncts only, in explain() and in the refreshes
SET dynview.window_filter_functions = off;
SELECT btrim(line) AS filter
  FROM dynview.explain_dynamic_table('wff_guard') e, regexp_split_to_table(e.value, E'\n') AS line
 WHERE e.property = 'operator tree' AND line LIKE '%filter%';
UPDATE wff_s SET a = a + 1 WHERE id IN (3, 102);
SELECT * FROM dv_refresh_round('wff_defs');
SELECT * FROM wff_reasons();
RESET dynview.window_filter_functions;

-- a value of a type that is not built in: a row type's <> (record_ne, built in) calls its
-- fields' functions, which may be a user's; so only id > 0 is applied by the read
CREATE TYPE wff_pair AS (p int, q int);
CREATE TABLE wff_t (id int PRIMARY KEY, pr wff_pair);
SELECT btrim(line) AS filter
  FROM dynview.explain('SELECT id FROM wff_t WHERE pr <> ROW(1, 2)::wff_pair AND id > 0') e,
       regexp_split_to_table(e.value, E'\n') AS line
 WHERE e.property = 'operator tree' AND line LIKE '%filter%';
DROP TABLE wff_t;
DROP TYPE wff_pair;

SELECT count(dynview.drop_dynamic_table(name))
  FROM (VALUES ('wff_sum'), ('wff_lin'), ('wff_grp'), ('wff_rows'), ('wff_guard')) v(name);
DROP FUNCTION dv_refresh_round(regclass);
DROP FUNCTION wff_reasons();
DROP TABLE wff_defs, wff_s;
DROP FUNCTION nz(int);
