-- DISTINCT ON inside a query (a subquery joined, right-joined, under NOT EXISTS, under
-- ORDER BY ... LIMIT, at depth 3): the values its input's delta has are recomputed, the first
-- row of each in the subquery's ORDER BY, over the input now (+) and as it was (-).  Its ORDER BY
-- must sort every output column (else which row it keeps of a value is up to the plan: FULL,
-- DISTINCT_ON).  Each round: the kept row of a value replaced by one that sorts first, deleted,
-- a value vanishing, NULLs; every refresh verified and compared by text and by =.
SET client_min_messages = warning;
\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round

CREATE TABLE nd_src (id int PRIMARY KEY, k int, v int, w text);
INSERT INTO nd_src SELECT i, CASE WHEN i % 11 = 0 THEN NULL ELSE i % 5 END, (i * 7) % 13, 'w' || (i % 3)
  FROM generate_series(1, 40) i;
CREATE TABLE nd_dim (k int PRIMARY KEY, name text);
INSERT INTO nd_dim SELECT i, 'k' || i FROM generate_series(0, 6) i;

CREATE TABLE nd_defs (name text PRIMARY KEY, query text);
INSERT INTO nd_defs VALUES
  -- the row of highest v per k, joined to the dimension
  ('nd_join', 'SELECT d.name, t.id, t.v FROM (SELECT DISTINCT ON (k) k, id, v FROM nd_src ORDER BY k, v DESC, id) t JOIN nd_dim d ON d.k = t.k'),
  -- right join from the dimension, NULL key kept as a value (NULLS FIRST)
  ('nd_right', 'SELECT d.k AS dk, t.k, t.w FROM (SELECT DISTINCT ON (k) k, w, id FROM nd_src ORDER BY k NULLS FIRST, w, id DESC) t RIGHT JOIN nd_dim d ON d.k = t.k'),
  -- under NOT EXISTS, correlated
  ('nd_anti', 'SELECT d.k, d.name FROM nd_dim d WHERE NOT EXISTS (SELECT FROM (SELECT DISTINCT ON (w) w, v, k FROM nd_src ORDER BY w, v, k) t WHERE t.k = d.k)'),
  -- depth 3: a count per v over the DISTINCT ON of a grouped subquery
  ('nd_depth3', 'SELECT x.n, count(*) AS c FROM (SELECT DISTINCT ON (g.k) g.k, g.n FROM (SELECT k, v, count(*) AS n FROM nd_src GROUP BY k, v) g ORDER BY g.k, g.n DESC) x GROUP BY x.n'),
  -- under a top-N of a subquery
  ('nd_top', 'SELECT t.k, t.id FROM (SELECT DISTINCT ON (k) k, id FROM nd_src ORDER BY k, id DESC) t ORDER BY t.id DESC, t.k LIMIT 3'),
  -- the ORDER BY does not sort every column: FULL (DISTINCT_ON)
  ('nd_loose', 'SELECT d.name, t.v FROM (SELECT DISTINCT ON (k) k, v FROM nd_src ORDER BY k) t JOIN nd_dim d ON d.k = t.k');
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual') IS NOT NULL AS created
  FROM nd_defs WHERE name <> 'nd_loose' ORDER BY name;
SELECT d.name, e.value AS mode FROM nd_defs d, dynview.explain(d.query) e
 WHERE e.property = 'mode' ORDER BY d.name;
SELECT d.name, e.value AS reason FROM nd_defs d, dynview.explain(d.query) e
 WHERE e.property = 'reason_code' AND e.value IS NOT NULL AND e.value <> '' ORDER BY d.name;
DELETE FROM nd_defs WHERE name = 'nd_loose';

-- round 1: a row that sorts first for its value, a new value, a NULL key
INSERT INTO nd_src VALUES (101, 1, 20, 'w0'), (102, 6, 3, 'w9'), (103, NULL, 1, 'w0');
SELECT * FROM dv_refresh_round('nd_defs');
-- round 2: the kept rows change (sink below others, rise), a row moves between values
UPDATE nd_src SET v = -1 WHERE id = 101;
UPDATE nd_src SET k = 2 WHERE id = 102;
UPDATE nd_src SET w = 'w0' WHERE id IN (4, 5);
SELECT * FROM dv_refresh_round('nd_defs');
-- round 3: kept rows deleted, a value vanishes, the dimension changes
DELETE FROM nd_src WHERE id IN (101, 102) OR k = 3;
UPDATE nd_dim SET name = name || 'x' WHERE k IN (1, 2);
DELETE FROM nd_dim WHERE k = 4;
SELECT * FROM dv_refresh_round('nd_defs');
-- round 4: no change; then almost everything goes and comes back
SELECT * FROM dv_refresh_round('nd_defs');
DELETE FROM nd_src WHERE id > 4;
SELECT * FROM dv_refresh_round('nd_defs');
INSERT INTO nd_src SELECT i, i % 4, i % 9, 'z' || (i % 2) FROM generate_series(400, 425) i;
SELECT * FROM dv_refresh_round('nd_defs');

-- every refresh was incremental or had nothing to do
SELECT h.refresh_mode, count(*) FROM nd_defs d, dynview.refresh_history(d.name) h
 WHERE h.refresh_trigger = 'MANUAL' GROUP BY 1 ORDER BY 1;
SELECT count(dynview.drop_dynamic_table(name)) FROM nd_defs;
DROP FUNCTION dv_refresh_round(regclass);
DROP TABLE nd_defs, nd_src, nd_dim;
