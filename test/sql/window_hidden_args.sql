-- A window function whose arguments (or a window's ORDER BY) read columns that are not in the
-- result (tester of the thirtieth session): sum(x) OVER (ORDER BY id) without x among the output
-- columns.  The window's input, the query without its window functions, kept the output columns
-- only, so an update of x alone was a row deleted and inserted alike, which cancel: the refresh
-- changed nothing and the rows after it kept their old sums (verify() false).  The input now
-- carries what the window functions and the windows' sort and partition expressions read
-- (columns, or aggregates over GROUP BY), each under a name no output column has; a sort or
-- partition expression with a subquery (which reads a table the input does not) makes the table
-- FULL (second tester).  Each refresh is compared with its query (dv_refresh_round: verify(), the
-- rows by text and by =).
SET client_min_messages = warning;
\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round
CREATE TABLE wh_r (id int PRIMARY KEY, g int, x numeric, y int);
INSERT INTO wh_r SELECT i, i % 3, i, 10 * i FROM generate_series(1, 12) i;
CREATE TABLE wh_s (id int PRIMARY KEY, rid int);
INSERT INTO wh_s VALUES (1, 0), (2, 1), (3, 1);
CREATE TABLE wh_defs (name text, query text);
INSERT INTO wh_defs VALUES
  ('wh_running', 'SELECT id, sum(x) OVER (ORDER BY id) AS s FROM wh_r'),
  ('wh_frame', 'SELECT id, sum(x) OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS s FROM wh_r'),
  ('wh_lag', 'SELECT id, lag(x) OVER (ORDER BY id) AS prev FROM wh_r'),
  ('wh_outer', 'SELECT id, sum(x) OVER (ORDER BY id) + y AS sy FROM wh_r'),
  ('wh_grouped', 'SELECT g, rank() OVER (ORDER BY g) AS r, sum(sum(x)) OVER (ORDER BY g) AS s FROM wh_r GROUP BY g'),
  ('wh_grouped_part', 'SELECT g, y % 20 AS h, rank() OVER (PARTITION BY g ORDER BY sum(x), y % 20) AS r FROM wh_r GROUP BY g, y % 20'),
  ('wh_part', 'SELECT id, g, sum(x) OVER (PARTITION BY g) AS s FROM wh_r'),
  -- (an output column named as the input's added columns are: each gets a name of its own)
  ('wh_named', 'SELECT id, sum(x) OVER (ORDER BY id) AS dv_wcol2, lag(y) OVER (ORDER BY id) AS l FROM wh_r'),
  -- (a subquery in a window's ORDER BY reads a table the input does not: FULL, SUBQUERY)
  ('wh_subquery', 'SELECT g, rank() OVER (PARTITION BY g ORDER BY (SELECT count(*) FROM wh_s WHERE wh_s.rid = wh_r.g % 2), g) AS r FROM wh_r GROUP BY g');
SELECT name, dynview.create_dynamic_table(name, query, schedule => 'manual',
  refresh_mode => CASE name WHEN 'wh_subquery' THEN 'auto' ELSE 'incremental' END) IS NOT NULL AS created
  FROM wh_defs ORDER BY name;
SELECT name, (SELECT value FROM dynview.explain_dynamic_table(name) WHERE property = 'mode') AS mode,
  (SELECT value FROM dynview.explain_dynamic_table(name) WHERE property = 'reason_code') AS reason_code
  FROM wh_defs ORDER BY name;

-- x alone changes
UPDATE wh_r SET x = 100 WHERE id = 5;
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('wh_defs');
-- y alone changes (wh_outer adds it; wh_grouped_part sorts by it)
UPDATE wh_r SET y = y + 10 WHERE id IN (3, 7);
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('wh_defs');
-- x changes back and forth in one window: the net change is nothing
UPDATE wh_r SET x = 7 WHERE id = 2;
UPDATE wh_r SET x = 2 WHERE id = 2;
UPDATE wh_r SET x = -1 WHERE id = 11;
UPDATE wh_s SET rid = 0 WHERE id = 2;
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('wh_defs');
SELECT * FROM wh_running ORDER BY id;

SELECT dynview.drop_dynamic_table(name) FROM wh_defs ORDER BY name;
DROP TABLE wh_r, wh_s, wh_defs;
DROP FUNCTION dv_refresh_round(regclass);
