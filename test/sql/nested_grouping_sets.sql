-- GROUPING SETS, ROLLUP and CUBE inside a query (a subquery joined, aggregated again, under
-- NOT EXISTS, at depth 3): the subquery's rows are recomputed over its input now (+) and as it
-- was (-) when its input changed, the difference its delta (explain: "GROUPING SETS").  Each
-- round: inserts, updates, deletes, NULL keys (a NULL group key beside a rolled-up NULL), groups
-- vanishing; every refresh verified and compared by text and by =.
SET client_min_messages = warning;
\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round

CREATE TABLE ng_src (id int PRIMARY KEY, a int, b text, v int);
INSERT INTO ng_src SELECT i, i % 4, CASE WHEN i % 9 = 0 THEN NULL ELSE 'b' || (i % 3) END, (i * 11) % 17
  FROM generate_series(1, 40) i;
CREATE TABLE ng_dim (a int PRIMARY KEY, name text);
INSERT INTO ng_dim SELECT i, 'a' || i FROM generate_series(0, 5) i;

CREATE TABLE ng_defs (name text PRIMARY KEY, query text);
INSERT INTO ng_defs VALUES
  -- ROLLUP joined to a dimension (the rolled-up rows have a NULL a and join nothing)
  ('ng_rollup_join', 'SELECT d.name, r.b, r.n, r.s, r.gb FROM (SELECT a, b, count(*) AS n, sum(v) AS s, grouping(a, b) AS gb FROM ng_src GROUP BY ROLLUP (a, b)) r JOIN ng_dim d ON d.a = r.a'),
  -- CUBE aggregated again (per grouping() level)
  ('ng_cube_agg', 'SELECT c.g, count(*) AS sets, sum(c.n) AS n, max(c.s) AS mx FROM (SELECT a, b, grouping(a, b) AS g, count(*) AS n, sum(v) AS s FROM ng_src GROUP BY CUBE (a, b)) c GROUP BY c.g'),
  -- GROUPING SETS with HAVING under NOT EXISTS
  ('ng_anti', 'SELECT d.a, d.name FROM ng_dim d WHERE NOT EXISTS (SELECT FROM (SELECT a, b, count(*) AS n FROM ng_src GROUP BY GROUPING SETS ((a), (b), ()) HAVING count(*) > 3) g WHERE g.a = d.a)'),
  -- ORDER BY ... LIMIT over ROLLUP (the top-N rule over the grouping sets' operator)
  ('ng_top', 'SELECT a, count(*) AS n FROM ng_src GROUP BY ROLLUP (a) ORDER BY n DESC, a NULLS FIRST LIMIT 3'),
  -- depth 3: a left join to the rolled-up totals of a grouped subquery over a join
  ('ng_depth3', 'SELECT d.name, t.total FROM ng_dim d LEFT JOIN (SELECT x.a, sum(x.s) AS total FROM (SELECT s.a, s.b, sum(s.v) AS s FROM ng_src s JOIN ng_dim m ON m.a = s.a GROUP BY s.a, s.b) x GROUP BY ROLLUP (x.a)) t ON t.a IS NOT DISTINCT FROM d.a');
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual') IS NOT NULL AS created
  FROM ng_defs ORDER BY name;
SELECT d.name, e.value AS mode FROM ng_defs d, dynview.explain_dynamic_table(d.name) e
 WHERE e.property = 'mode' ORDER BY d.name;
SELECT d.name, e.value AS reason FROM ng_defs d, dynview.explain_dynamic_table(d.name) e
 WHERE e.property = 'reason_code' AND e.value IS NOT NULL AND e.value <> '' ORDER BY d.name;
SELECT value FROM dynview.explain_dynamic_table('ng_rollup_join') WHERE property = 'operator tree';

-- round 1: new rows, a new group and a NULL b
INSERT INTO ng_src VALUES (101, 4, 'b9', 5), (102, 1, NULL, 7), (103, 2, 'b1', 16);
SELECT * FROM dv_refresh_round('ng_defs');
-- round 2: updates that move rows between groups and sets
UPDATE ng_src SET a = 3 WHERE id IN (101, 5);
UPDATE ng_src SET b = NULL WHERE id = 6;
UPDATE ng_src SET v = v + 10 WHERE a = 2;
SELECT * FROM dv_refresh_round('ng_defs');
-- round 3: a group vanishes (every row of a = 0), the dimension changes
DELETE FROM ng_src WHERE a = 0;
UPDATE ng_dim SET name = name || 'x' WHERE a IN (1, 4);
SELECT * FROM dv_refresh_round('ng_defs');
-- round 4: no change, then almost everything goes and comes back
SELECT * FROM dv_refresh_round('ng_defs');
DELETE FROM ng_src WHERE id > 3;
SELECT * FROM dv_refresh_round('ng_defs');
INSERT INTO ng_src SELECT i, i % 5, 'c' || (i % 2), i % 7 FROM generate_series(300, 320) i;
SELECT * FROM dv_refresh_round('ng_defs');

-- every refresh was incremental or had nothing to do
SELECT h.refresh_mode, count(*) FROM ng_defs d, dynview.refresh_history(d.name) h
 WHERE h.refresh_trigger = 'MANUAL' GROUP BY 1 ORDER BY 1;
SELECT count(dynview.drop_dynamic_table(name)) FROM ng_defs;
DROP FUNCTION dv_refresh_round(regclass);
DROP TABLE ng_defs, ng_src, ng_dim;
