-- The planner's statistics of a refresh's ephemeral relations (deltastats.c, issue 14): while
-- dynview.delta_statistics is on, the planner is given each column's number of distinct values and
-- of NULLs, counted over the window's rows when it first asks (DEBUG1 shows each count), so that
-- a join of a few changes with a larger table hashes the changes rather than the table.
-- Statistics steer plans only: every table is compared with its query (text form, = and
-- verify()) with them, without them, with NULL join keys, with a column whose type has no btree
-- ordering, and with a window too large to be counted.
SET client_min_messages = warning;
SET dynview.full_refresh_change_ratio = 0;

CREATE TABLE ds_p (pid int PRIMARY KEY, cat text, pt point);
CREATE TABLE ds_o (id int PRIMARY KEY, pid int, qty int, amt numeric, pt point);
INSERT INTO ds_p SELECT i, 'c' || (i % 7), point(i % 3, 0) FROM generate_series(1, 2000) i;
INSERT INTO ds_o SELECT i, 1 + i % 2000, i % 5, ((i % 9) || '.' || repeat('0', i % 3))::numeric, point(i % 3, 0)
  FROM generate_series(1, 5000) i;

CREATE TABLE ds_defs (name text PRIMARY KEY, query text NOT NULL);
INSERT INTO ds_defs VALUES
  ('ds_detail', $$SELECT o.id, o.pid, p.cat, o.qty, o.amt FROM ds_o o JOIN ds_p p ON p.pid = o.pid$$),
  ('ds_cat', $$SELECT p.cat, sum(o.amt) AS total, count(*) AS n FROM ds_o o JOIN ds_p p ON p.pid = o.pid GROUP BY p.cat$$),
  -- a join whose condition is on a type without a btree ordering (point ~= point)
  ('ds_pt', $$SELECT o.id, p.pid FROM ds_o o JOIN ds_p p ON p.pt ~= o.pt AND p.pid = o.pid$$);
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual', refresh_mode => 'incremental') IS NOT NULL AS created
  FROM ds_defs ORDER BY name;

\getenv abs_srcdir PG_ABS_SRCDIR
\set compare_defs :abs_srcdir '/sql/include/compare_defs.sql'
\i :compare_defs

-- (1) off: a change planned with PostgreSQL's defaults (and the backend's caches filled, whose
-- growth DEBUG1 would show)
SET dynview.delta_statistics = off;
UPDATE ds_o SET amt = amt + 1 WHERE id % 20 = 1;
DELETE FROM ds_o WHERE id % 125 = 1;
SELECT dynview.wait_for_capture('1 minute');
SELECT name, (dynview.refresh(name)).refresh_mode FROM ds_defs ORDER BY name;
SELECT * FROM dv_compare_defs('ds_defs');
RESET dynview.delta_statistics;

-- (2) on (the default): 300 changed orders, 40 of them given a NULL product, 60 new ones sharing
-- 37 products; the statements kept in (1) are not used, and those planned now are given the
-- counts of the columns the planner asks about (the join keys, the grouping column's source)
UPDATE ds_o SET amt = amt + 1 WHERE id % 20 = 0;
UPDATE ds_o SET pid = NULL WHERE id % 125 = 0;
INSERT INTO ds_o SELECT i, 1 + i % 37, 1, 2.50, point(1, 0) FROM generate_series(5001, 5060) i;
SELECT dynview.wait_for_capture('1 minute');
SET client_min_messages = debug1;
SELECT name, (dynview.refresh(name)).refresh_mode FROM ds_defs ORDER BY name;
SET client_min_messages = warning;
SELECT * FROM dv_compare_defs('ds_defs');

-- (3) a window of more than 100,000 rows is not counted (PostgreSQL's defaults), and is applied
-- as any other
INSERT INTO ds_o SELECT i, 1 + i % 2000, 1, 1.5, point(0, 0) FROM generate_series(10001, 110100) i;
SELECT dynview.wait_for_capture('1 minute');
SET client_min_messages = debug1;
SELECT name, (dynview.refresh(name)).refresh_mode FROM ds_defs ORDER BY name;
SET client_min_messages = warning;
SELECT * FROM dv_compare_defs('ds_defs');

-- (4) a change of the dimension: its window joined with the orders, with statistics
UPDATE ds_p SET cat = cat || 'x' WHERE pid % 50 = 0;
SELECT dynview.wait_for_capture('1 minute');
SET client_min_messages = debug1;
SELECT name, (dynview.refresh(name)).refresh_mode FROM ds_defs ORDER BY name;
SET client_min_messages = warning;
SELECT * FROM dv_compare_defs('ds_defs');

SELECT dynview.drop_dynamic_table(name) FROM ds_defs ORDER BY name;
DROP FUNCTION dv_compare_defs(regclass);
DROP TABLE ds_defs, ds_o, ds_p;
