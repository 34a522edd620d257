-- A filter over a scan whose window read applied every conjunct of that filter (incremental.c
-- window_filter; DvPlanSource.window_filtered) is tested again on the delta's rows through
-- dynview._window_filtered() (optree.c delta_cte), whose planner support guesses the test to keep
-- at least a third of the rows (the planner's guess for a condition it knows nothing of): the
-- planner, which has no statistics for a window, guessed an equality to keep one row in two
-- hundred, so that a window of 1,031 changed orders looked like 5 and was joined with their
-- lineitems by a nested loop (TPC-H Q21).  The test itself stays (the read's text is deparsed under
-- its own settings: regress brk10_deparse_settings).  A filter is tested as it is where the window
-- read applied only some of its conjuncts (a function that is not leakproof), and where the window
-- was read for several occurrences of its source at once (a self-join with a different filter on
-- each side: the shared read applies what they have in common).  Each round first refreshes each
-- table in a subtransaction rolled back, to tell whether its delta called the function
-- (pg_stat_xact_user_functions, track_functions = all), then refreshes it for good; rounds of
-- inserts, deletes and updates across each filter, with both sides changed together and apart;
-- every refresh compared with its query (dynview.verify(), and the rows by text and by =).
SET client_min_messages = warning;
\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round

CREATE TABLE wf_o (ok int PRIMARY KEY, status char(1), d date, x numeric);
CREATE TABLE wf_l (ok int, ln int, supp int, cdate date, rdate date, PRIMARY KEY (ok, ln));
CREATE TABLE wf_s (supp int PRIMARY KEY, nation text);
INSERT INTO wf_s SELECT i, CASE WHEN i % 3 = 0 THEN 'SA' ELSE 'XX' END FROM generate_series(1, 9) i;
INSERT INTO wf_o SELECT i, CASE WHEN i % 2 = 0 THEN 'F' ELSE 'O' END, date '2026-01-01' + i, (i % 5) * 1.5
  FROM generate_series(1, 40) i;
INSERT INTO wf_l SELECT o, l, 1 + (o + l) % 9, date '2026-02-01' + l, date '2026-02-01' + (o % 4)
  FROM generate_series(1, 40) o, generate_series(1, 3) l;
-- immutable, not leakproof: never applied by the window read
CREATE FUNCTION wf_big(x numeric) RETURNS boolean IMMUTABLE LANGUAGE sql AS $$ SELECT x > 2 $$;

-- the planner's estimate through the function: a third of the rows (the bare equality: 1 in 200);
-- its value
CREATE FUNCTION wf_estimate(q text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  p json;
BEGIN
  EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO p;
  RETURN (p->0->'Plan'->>'Plan Rows')::bigint;
END $$;
SELECT wf_estimate('SELECT * FROM generate_series(1, 1000) g WHERE dynview._window_filtered(g = 5)') AS through_function,
       wf_estimate('SELECT * FROM generate_series(1, 1000) g WHERE g = 5') AS bare,
       (SELECT count(*) FROM generate_series(1, 1000) g WHERE dynview._window_filtered(g = 5)) AS rows_kept,
       (SELECT count(*) FROM generate_series(1, 1000) g WHERE dynview._window_filtered(CASE WHEN g > 2 THEN g = 5 END)) AS null_rows_kept,
       dynview._window_filtered(NULL) IS NULL AS null_for_null;

-- whether a refresh of the table (rolled back) calls dynview._window_filtered()
CREATE FUNCTION wf_retested(t text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  n0 bigint := COALESCE((SELECT calls FROM pg_stat_xact_user_functions
                          WHERE funcid = 'dynview._window_filtered(boolean)'::regprocedure), 0);
  n bigint;
BEGIN
  BEGIN
    PERFORM dynview.refresh(t);
    n := COALESCE((SELECT calls FROM pg_stat_xact_user_functions
                    WHERE funcid = 'dynview._window_filtered(boolean)'::regprocedure), 0);
    RAISE EXCEPTION USING ERRCODE = 'P0001', MESSAGE = 'wf: roll back';
  EXCEPTION WHEN SQLSTATE 'P0001' THEN
    RETURN n > n0;
  END;
END $$;
SET track_functions = 'all';

CREATE TABLE wf_defs (name text, query text);
INSERT INTO wf_defs VALUES
  -- Q21's shape: the changed orders filtered by status in their window read, joined with lines
  ('wf_all', $$SELECT s.nation, count(*) AS n FROM wf_l l JOIN wf_o o ON o.ok = l.ok JOIN wf_s s ON s.supp = l.supp
                WHERE o.status = 'F' AND s.nation = 'SA' AND l.rdate > l.cdate GROUP BY s.nation$$),
  -- one conjunct applied in the window read, one not: the delta tests both
  ('wf_part', $$SELECT l.ok, l.ln, o.x FROM wf_l l JOIN wf_o o ON o.ok = l.ok
                 WHERE o.status = 'F' AND wf_big(o.x)$$),
  -- a self-join: the window read once for both occurrences, with each side's own filter
  ('wf_self', $$SELECT a.ok, b.ok AS bok FROM wf_o a JOIN wf_o b ON b.ok = a.ok + 1
                 WHERE a.status = 'F' AND b.status = 'O' AND b.d > date '2026-01-05'$$);
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual', refresh_mode => 'incremental') IS NOT NULL AS created
  FROM wf_defs ORDER BY name;
SELECT name, wf_retested(name) AS retested FROM wf_defs ORDER BY name;
SELECT * FROM dv_refresh_round('wf_defs');

-- new orders with their lines (some 'F', some not), and orders deleted with theirs
INSERT INTO wf_o SELECT i, CASE WHEN i % 3 = 0 THEN 'O' ELSE 'F' END, date '2026-01-01' + i, (i % 4) * 1.5
  FROM generate_series(41, 52) i;
INSERT INTO wf_l SELECT o, l, 1 + (o * l) % 9, date '2026-02-02', date '2026-02-01' + (o % 5)
  FROM generate_series(41, 52) o, generate_series(1, 2) l;
DELETE FROM wf_l WHERE ok IN (2, 3, 4);
DELETE FROM wf_o WHERE ok IN (2, 3, 4);
SELECT name, wf_retested(name) AS retested FROM wf_defs ORDER BY name;
SELECT * FROM dv_refresh_round('wf_defs');
-- orders moved across the filters (status and x), alone: the lines do not change
UPDATE wf_o SET status = 'O' WHERE ok IN (6, 8);
UPDATE wf_o SET status = 'F' WHERE ok IN (7, 9);
UPDATE wf_o SET x = 0 WHERE ok = 10;
UPDATE wf_o SET x = 7 WHERE ok = 12;
SELECT name, wf_retested(name) AS retested FROM wf_defs ORDER BY name;
SELECT * FROM dv_refresh_round('wf_defs');
-- moved and back within one window; a row failing the filter inserted and deleted again; lines
-- of an order that passes changed together with it
UPDATE wf_o SET status = 'O' WHERE ok = 14;
UPDATE wf_o SET status = 'F' WHERE ok = 14;
INSERT INTO wf_o VALUES (60, 'O', date '2026-03-01', 9);
DELETE FROM wf_o WHERE ok = 60;
UPDATE wf_o SET x = x + 3, d = d + 1 WHERE ok BETWEEN 16 AND 21;
UPDATE wf_l SET rdate = cdate + 1 WHERE ok BETWEEN 16 AND 21;
SELECT name, wf_retested(name) AS retested FROM wf_defs ORDER BY name;
SELECT * FROM dv_refresh_round('wf_defs');
-- only the lines change
UPDATE wf_l SET supp = 3 WHERE ok = 22;
DELETE FROM wf_l WHERE ok = 24 AND ln = 1;
SELECT name, wf_retested(name) AS retested FROM wf_defs ORDER BY name;
SELECT * FROM dv_refresh_round('wf_defs');
SELECT * FROM wf_all ORDER BY nation;
SELECT count(*) AS part_rows, sum(x) AS part_x FROM wf_part;
SELECT count(*) AS self_rows FROM wf_self;

SELECT count(dynview.drop_dynamic_table(name)) FROM wf_defs;
DROP FUNCTION dv_refresh_round(regclass);
DROP FUNCTION wf_retested(text);
DROP FUNCTION wf_estimate(text);
RESET track_functions;
DROP FUNCTION wf_big(numeric);
DROP TABLE wf_defs, wf_l, wf_o, wf_s;
