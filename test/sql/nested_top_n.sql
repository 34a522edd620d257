-- Top-N (ORDER BY ... LIMIT [OFFSET]) inside a query: a subquery in FROM, or under EXISTS / IN,
-- read by a join, an aggregate, a semi- or anti-join or an outer query, at depth 3.  Its rows
-- are recomputed over its input now (+) and as it was (-) when its input changed, the
-- difference its delta (explain: "ORDER BY ... LIMIT ..."); where rows that tie in its order
-- need not be alike, the query is FULL (ORDER_BY_LIMIT).  Each round: deletes, updates, NULLs,
-- rows entering and leaving the first rows, ties at the boundary, groups vanishing; every
-- refresh verified and compared by text and by =.
SET client_min_messages = warning;
\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round

CREATE TABLE nt_src (id int PRIMARY KEY, g int, v int, label text);
INSERT INTO nt_src SELECT i, i % 6, (i * 13) % 40, CASE WHEN i % 7 = 0 THEN NULL ELSE 'l' || (i % 4) END
  FROM generate_series(1, 60) i;
CREATE TABLE nt_dim (g int PRIMARY KEY, name text);
INSERT INTO nt_dim SELECT i, 'd' || i FROM generate_series(0, 7) i;

CREATE TABLE nt_defs (name text PRIMARY KEY, query text);
INSERT INTO nt_defs VALUES
  -- an aggregate over a join of the first rows (sorted by a key: rows that tie are alike)
  ('nt_agg_join', 'SELECT d.name, count(*) AS n, sum(t.v) AS s FROM (SELECT id, g, v FROM nt_src ORDER BY v DESC, id LIMIT 8) t JOIN nt_dim d ON d.g = t.g GROUP BY d.name'),
  -- the first groups of a GROUP BY (its key sorted last), with OFFSET, left-joined from the dimension
  ('nt_grp_left', 'SELECT d.g, d.name, t.s FROM nt_dim d LEFT JOIN (SELECT g, sum(v) AS s FROM nt_src GROUP BY g ORDER BY s DESC, g LIMIT 3 OFFSET 1) t ON t.g = d.g'),
  -- NULLs in a sort key (NULLS FIRST), every column sorted, plain outer query
  ('nt_nulls', 'SELECT t.label, t.id FROM (SELECT label, id FROM nt_src ORDER BY label NULLS FIRST, id DESC LIMIT 6) t WHERE t.id > 3'),
  -- under NOT EXISTS and EXISTS
  ('nt_anti', 'SELECT d.g, d.name FROM nt_dim d WHERE NOT EXISTS (SELECT FROM (SELECT g, v, id FROM nt_src ORDER BY v, id LIMIT 5) t WHERE t.g = d.g)'),
  -- depth 3: a global aggregate over the first groups of a GROUP BY over a left join
  ('nt_depth3', 'SELECT count(*) AS n, sum(x.c) AS total, min(x.name) AS first_name FROM (SELECT d.name, count(s.id) AS c FROM nt_dim d LEFT JOIN nt_src s ON s.g = d.g GROUP BY d.name ORDER BY c DESC, d.name LIMIT 4) x'),
  -- top-N of a top-N read by a join
  ('nt_twice', 'SELECT u.id, u.v, d.name FROM (SELECT id, v, g FROM (SELECT id, v, g FROM nt_src ORDER BY v DESC, id LIMIT 10) t ORDER BY id LIMIT 4) u JOIN nt_dim d ON d.g = u.g'),
  -- ORDER BY ... LIMIT over a window function without PARTITION BY (the top-N rule over the windows' operator)
  ('nt_window_top', 'SELECT id, v, rank() OVER (ORDER BY v DESC, id) AS r FROM nt_src ORDER BY r, id LIMIT 5'),
  -- sorted by a column with ties and no key: which tied rows it keeps is up to the plan (FULL)
  ('nt_ties', 'SELECT t.g, t.v FROM (SELECT g, v FROM nt_src ORDER BY v DESC LIMIT 4) t JOIN nt_dim d ON d.g = t.g');
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual') IS NOT NULL AS created
  FROM nt_defs ORDER BY name;
SELECT d.name, e.value AS mode FROM nt_defs d, dynview.explain_dynamic_table(d.name) e
 WHERE e.property = 'mode' ORDER BY d.name;
SELECT d.name, e.value AS reason FROM nt_defs d, dynview.explain_dynamic_table(d.name) e
 WHERE e.property = 'reason_code' AND e.value IS NOT NULL AND e.value <> '' ORDER BY d.name;
-- the operator tree names the rule
SELECT value FROM dynview.explain_dynamic_table('nt_agg_join') WHERE property = 'operator tree';

-- round 1: rows that sort first enter (pushing the last ones out); a new group
INSERT INTO nt_src VALUES (101, 1, 90, 'l1'), (102, 7, 95, NULL), (103, 2, 39, 'l0');
SELECT * FROM dv_refresh_round('nt_defs');
-- round 2: held rows change their sort key within and across the boundary
UPDATE nt_src SET v = v + 3 WHERE id IN (101, 102);
UPDATE nt_src SET v = 0 WHERE id = 103;
UPDATE nt_src SET label = NULL WHERE id IN (5, 6);
SELECT * FROM dv_refresh_round('nt_defs');
-- round 3: held rows deleted (rows from beyond the boundary come in); a group vanishes
DELETE FROM nt_src WHERE id IN (101, 102) OR g = 3;
SELECT * FROM dv_refresh_round('nt_defs');
-- round 4: ties at the boundary (equal sort keys, told apart by id), and changes after it only
UPDATE nt_src SET v = 38 WHERE id IN (7, 8, 9, 10);
UPDATE nt_src SET v = 1 WHERE id = 11;
SELECT * FROM dv_refresh_round('nt_defs');
-- round 5: the dimension changes (the other side of the joins), a change that cancels out
UPDATE nt_dim SET name = name || 'x' WHERE g IN (1, 2);
DELETE FROM nt_dim WHERE g = 5;
UPDATE nt_src SET v = v + 1 WHERE id = 20;
UPDATE nt_src SET v = v - 1 WHERE id = 20;
SELECT * FROM dv_refresh_round('nt_defs');
-- round 6: no change
SELECT * FROM dv_refresh_round('nt_defs');
-- round 7: almost every row goes, then the table refills
DELETE FROM nt_src WHERE id > 5;
SELECT * FROM dv_refresh_round('nt_defs');
INSERT INTO nt_src SELECT i, i % 5, (i * 7) % 23, 'r' || (i % 3) FROM generate_series(200, 230) i;
SELECT * FROM dv_refresh_round('nt_defs');

-- every refresh of the incremental tables was incremental or had nothing to do
SELECT h.refresh_mode, count(*) FROM nt_defs d, dynview.refresh_history(d.name) h
 WHERE h.refresh_trigger = 'MANUAL' AND d.name <> 'nt_ties' GROUP BY 1 ORDER BY 1;
SELECT count(dynview.drop_dynamic_table(name)) FROM nt_defs;
DROP FUNCTION dv_refresh_round(regclass);
DROP TABLE nt_defs, nt_src, nt_dim;
