-- A correlated aggregate scalar subquery whose correlation compares columns of two types of one
-- btree family (int4 = int8: a column with a count or a sum of the outer, grouped rows) becomes a
-- join with the subquery grouped by its inner column, like a same-type one (was SUBQUERY):
-- in WHERE (either operand order) and in the SELECT list, over grouped subqueries.
-- Each round verified and compared by text and by =.
SET client_min_messages = warning;
\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round

CREATE TABLE sx_src (id int PRIMARY KEY, k int, v int);
INSERT INTO sx_src SELECT i, i % 5, (i * 3) % 7 FROM generate_series(1, 30) i;
CREATE TABLE sx_ref (id int PRIMARY KEY, c int, w smallint);
INSERT INTO sx_ref SELECT i, i % 8, (i % 4)::smallint FROM generate_series(1, 20) i;

CREATE TABLE sx_defs (name text PRIMARY KEY, query text);
INSERT INTO sx_defs VALUES
  -- int4 = int8 (inner key on the left), a condition over the grouped rows
  ('sx_where', 'SELECT o.k, o.n FROM (SELECT k, count(*) AS n FROM sx_src GROUP BY k) o WHERE o.k <= (SELECT count(*) FROM sx_ref r WHERE r.c = o.n)'),
  -- int8 = int2 (inner key on the right), max over no rows is NULL
  ('sx_swapped', 'SELECT o.k, o.s FROM (SELECT k, sum(v) AS s FROM sx_src GROUP BY k) o WHERE o.k < 3 OR 2 < (SELECT max(r.id) FROM sx_ref r WHERE o.s = r.w)'),
  -- in the SELECT list, (an int8 sum compared with an int4 column)
  ('sx_select', 'SELECT o.k, (SELECT count(*) FROM sx_ref r WHERE r.c = o.s) AS refs FROM (SELECT k, sum(v) AS s FROM sx_src GROUP BY k) o');
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual') IS NOT NULL AS created
  FROM sx_defs ORDER BY name;
SELECT d.name, e.value AS mode FROM sx_defs d, dynview.explain_dynamic_table(d.name) e
 WHERE e.property = 'mode' ORDER BY d.name;

-- round 1: outer groups change their count / sum
INSERT INTO sx_src VALUES (101, 1, 6), (102, 1, 5), (103, 7, 1);
SELECT * FROM dv_refresh_round('sx_defs');
-- round 2: the inner rows change (a key gains and loses rows)
UPDATE sx_ref SET c = 6 WHERE id IN (1, 2, 3);
DELETE FROM sx_ref WHERE c = 4;
INSERT INTO sx_ref VALUES (50, 8, 2::smallint), (51, 9, 9::smallint);
SELECT * FROM dv_refresh_round('sx_defs');
-- round 3: both, a group vanishing
DELETE FROM sx_src WHERE k = 2;
UPDATE sx_src SET v = v + 1 WHERE k = 3;
UPDATE sx_ref SET w = (w + 1)::smallint;
SELECT * FROM dv_refresh_round('sx_defs');
SELECT * FROM dv_refresh_round('sx_defs');

SELECT h.refresh_mode, count(*) FROM sx_defs d, dynview.refresh_history(d.name) h
 WHERE h.refresh_trigger = 'MANUAL' GROUP BY 1 ORDER BY 1;
SELECT count(dynview.drop_dynamic_table(name)) FROM sx_defs;
DROP FUNCTION dv_refresh_round(regclass);
DROP TABLE sx_defs, sx_src, sx_ref;
