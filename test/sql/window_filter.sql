-- A window is read with the query's filter on its source applied before it is consolidated
-- (read_window, window_filter): conjuncts whose every function is leakproof (comparisons),
-- or built in (dynview.window_filter_functions), directly above the source's only scan.  A
-- conjunct that may fail (10 / x) fails on a row that a later change undid (x = 0): the window
-- is then read again with the leakproof conjuncts only (more in window_filter_functions.sql).
-- Rows move in and out of the filter, are deleted and inserted again in one
-- window, a TRUNCATE behind a filter that no row passes still means FULL, a source read twice
-- (self-join) keeps its shared window.  Every refresh is compared with its query.
SET client_min_messages = warning;
\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round

CREATE TABLE wf_s (id int PRIMARY KEY, g int, d date, x numeric, t text);
INSERT INTO wf_s SELECT i, i % 3, date '2026-01-01' + i, i * 0.5, 't' || (i % 4) FROM generate_series(1, 30) i;
CREATE TABLE wf_defs (name text, query text);
INSERT INTO wf_defs VALUES
  ('wf_agg', $$SELECT g, count(*) AS n, sum(x) AS sx FROM wf_s WHERE d >= date '2026-01-10' AND t <> 't0' GROUP BY g$$),
  ('wf_div', $$SELECT id, 10 / x AS inv FROM wf_s WHERE 10 / x > 1 AND d < date '2026-02-01'$$),
  ('wf_rows', $$SELECT id, g, x FROM wf_s WHERE g = 1 AND x > 2$$),
  ('wf_self', $$SELECT a.id, b.id AS bid FROM wf_s a JOIN wf_s b ON b.id = a.id + 1 WHERE a.g = 0 AND b.x > 3$$),
  ('wf_none', $$SELECT count(*) AS n, sum(x) AS sx FROM wf_s WHERE d > date '2100-01-01'$$);
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual', refresh_mode => 'incremental')
  FROM wf_defs ORDER BY name;
SELECT * FROM dv_refresh_round('wf_defs');

-- rows moving into and out of the filters; a row with x = 0 (10 / x fails) inserted and
-- deleted again in one window; a row deleted and inserted again alike
UPDATE wf_s SET d = date '2025-12-01' WHERE id IN (11, 12);
UPDATE wf_s SET d = date '2026-01-20', t = 't1' WHERE id IN (1, 4);
UPDATE wf_s SET g = 1 WHERE id = 3;
BEGIN;
INSERT INTO wf_s VALUES (100, 1, date '2026-01-15', 0, 't1');
DELETE FROM wf_s WHERE id = 100;
DELETE FROM wf_s WHERE id = 7;
INSERT INTO wf_s VALUES (7, 1, date '2026-01-08', 3.5, 't3');
COMMIT;
UPDATE wf_s SET x = 0 WHERE id = 20;
UPDATE wf_s SET x = 9 WHERE id = 20;
SELECT * FROM dv_refresh_round('wf_defs');

-- TRUNCATE behind a filter no row passes: still FULL (its marker is read whatever the filter)
TRUNCATE wf_s;
INSERT INTO wf_s SELECT i, i % 2, date '2026-03-01' + i, i, 't' || (i % 3) FROM generate_series(1, 10) i;
SELECT * FROM dv_refresh_round('wf_defs');
INSERT INTO wf_s VALUES (50, 1, date '2101-01-01', 5, 't1');
DELETE FROM wf_s WHERE id = 2;
SELECT * FROM dv_refresh_round('wf_defs');
SELECT * FROM wf_none;

SELECT count(dynview.drop_dynamic_table(name)) FROM wf_defs;
DROP FUNCTION dv_refresh_round(regclass);
DROP TABLE wf_defs, wf_s;
