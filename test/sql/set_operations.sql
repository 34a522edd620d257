-- Set operations at any depth (issue 13): UNION / INTERSECT / EXCEPT [ALL] as operators of the
-- tree (src/analyze/setop.c), under a join, an aggregate, a semi- and an anti-join, a window, a
-- top-N, nested three deep, and a set operation at the top whose branch is grouped.  Each round
-- changes the branches (inserts, deletes, updates, NULLs, duplicates, values that vanish from one
-- branch and appear in the other), refreshes every table and compares it with its query
-- (verify(), the rows' text and =).
SET client_min_messages = warning;
\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round

CREATE TABLE so_a (id int PRIMARY KEY, g int, v text);
CREATE TABLE so_b (id int PRIMARY KEY, g int, v text);
CREATE TABLE so_c (id int PRIMARY KEY, g int, v text);
INSERT INTO so_a SELECT i, i % 5, 'x' || (i % 3) FROM generate_series(1, 30) i;
INSERT INTO so_b SELECT i, i % 7, 'x' || (i % 4) FROM generate_series(1, 30) i;
INSERT INTO so_c SELECT i, i % 4, 'x' || (i % 2) FROM generate_series(1, 30) i;
-- NULLs (equal to each other in a set operation) and duplicates
INSERT INTO so_a VALUES (100, NULL, NULL), (101, NULL, NULL), (102, 1, NULL);
INSERT INTO so_b VALUES (100, NULL, NULL), (102, 1, NULL);

CREATE TABLE so_defs (name text PRIMARY KEY, query text);
INSERT INTO so_defs VALUES
  -- an aggregate over INTERSECT, INTERSECT ALL, UNION, UNION ALL
  ('so_int_agg', 'SELECT g, count(*) AS n FROM (SELECT g, v FROM so_a INTERSECT SELECT g, v FROM so_b) s GROUP BY g'),
  ('so_inta_agg', 'SELECT g, count(*) AS n FROM (SELECT g, v FROM so_a INTERSECT ALL SELECT g, v FROM so_b) s GROUP BY g'),
  ('so_uni_agg', 'SELECT v, sum(g) AS s, count(*) AS n FROM (SELECT g, v FROM so_a UNION SELECT g, v FROM so_b) s GROUP BY v'),
  ('so_unia_agg', 'SELECT v, count(*) AS n FROM (SELECT g, v FROM so_a UNION ALL SELECT g, v FROM so_b) s GROUP BY v'),
  -- EXCEPT under a join, EXCEPT ALL under a filter
  ('so_exc_join', 'SELECT s.g, s.v, so_c.id FROM (SELECT g, v FROM so_a EXCEPT SELECT g, v FROM so_b) s JOIN so_c ON so_c.g = s.g'),
  ('so_exca_filter', 'SELECT * FROM (SELECT g, v FROM so_a EXCEPT ALL SELECT g, v FROM so_b) s WHERE g IS DISTINCT FROM 3'),
  -- nested three deep: (a UNION ALL c) EXCEPT ALL (b INTERSECT c), under an aggregate
  ('so_nested', 'SELECT g, count(*) AS n FROM ((SELECT g, v FROM so_a UNION ALL SELECT g, v FROM so_c) EXCEPT ALL (SELECT g, v FROM so_b INTERSECT SELECT g, v FROM so_c)) s GROUP BY g'),
  -- a semi-join (IN) and an anti-join (NOT EXISTS) over set operations
  ('so_in', 'SELECT * FROM so_c WHERE g IN (SELECT g FROM so_a EXCEPT SELECT g FROM so_b)'),
  ('so_not_exists', 'SELECT * FROM so_c WHERE NOT EXISTS (SELECT 1 FROM (SELECT g FROM so_a UNION SELECT g FROM so_b) u WHERE u.g = so_c.g)'),
  -- a window with PARTITION BY over INTERSECT
  ('so_window', 'SELECT g, v, rank() OVER (PARTITION BY g ORDER BY v) AS r FROM (SELECT g, v FROM so_a INTERSECT SELECT g, v FROM so_b) s'),
  -- ORDER BY ... LIMIT over a set operation (top-N)
  ('so_top', 'SELECT g, v FROM so_a UNION SELECT g, v FROM so_b ORDER BY g, v LIMIT 5'),
  -- a top-N in a UNION branch (the top-N operator under the set operation: every output column sorted)
  ('so_branch_top', 'SELECT g, v FROM (SELECT g, v FROM so_a ORDER BY g, v LIMIT 3) x UNION SELECT g, v FROM so_b'),
  -- branches of different types: the operation''s type (bigint; numeric without a scale would be FULL: brk_setop_spelling)
  ('so_types', 'SELECT x, count(*) AS n FROM (SELECT g::bigint AS x FROM so_a INTERSECT SELECT id FROM so_b) s GROUP BY x'),
  -- at the top, a branch that is grouped under a filter (not incremental on its own)
  ('so_top_grouped', 'SELECT g, v FROM so_a EXCEPT SELECT g, v FROM (SELECT g, max(v) AS v FROM so_b GROUP BY g) m WHERE g > 1');
SELECT name, dynview.create_dynamic_table(name, query, schedule => 'manual') IS NOT NULL AS created
  FROM so_defs ORDER BY name;
-- every one incremental
SELECT d.name, e.value AS mode
  FROM so_defs d, dynview.explain_dynamic_table(d.name) e WHERE e.property = 'mode' ORDER BY 1;

-- the operator tree of a set operation: a full join ON false of its branches, grouped by every
-- column, the counts per value in a state table
SELECT value FROM dynview.explain_dynamic_table('so_int_agg') WHERE property = 'operator tree';

-- round 1: a value appears in both branches (INTERSECT gains it), NULL rows, duplicates
INSERT INTO so_a VALUES (200, 3, 'x3'), (201, NULL, NULL), (202, 6, 'x1'), (203, 6, 'x1');
INSERT INTO so_b VALUES (200, 3, 'x3'), (201, NULL, NULL);
SELECT * FROM dv_refresh_round('so_defs');
-- round 2: deletes (a value vanishes from one branch: EXCEPT gains it), updates of keys
DELETE FROM so_a WHERE id IN (1, 2, 3, 100);
UPDATE so_b SET g = g + 1 WHERE id % 3 = 0;
SELECT * FROM dv_refresh_round('so_defs');
-- round 3: a value moves from one branch to the other; the NULLs leave one branch
UPDATE so_a SET v = 'x9' WHERE id % 4 = 0;
INSERT INTO so_b SELECT id + 1000, g, v FROM so_a WHERE v = 'x9';
DELETE FROM so_a WHERE v = 'x9' AND id % 8 = 0;
DELETE FROM so_b WHERE g IS NULL;
INSERT INTO so_c VALUES (300, NULL, 'x0'), (301, 6, 'x1');
SELECT * FROM dv_refresh_round('so_defs');
-- round 4: NULLs appear in a column, every row of c changes
UPDATE so_a SET g = NULL WHERE id % 5 = 1;
UPDATE so_c SET g = g + 1;
SELECT * FROM dv_refresh_round('so_defs');
-- round 5: a branch emptied, then nothing changed (NO_DATA)
DELETE FROM so_b;
SELECT * FROM dv_refresh_round('so_defs');
SELECT * FROM dv_refresh_round('so_defs');
-- round 6: the branch filled again with duplicates of the other
INSERT INTO so_b SELECT id, g, v FROM so_a;
INSERT INTO so_b SELECT id + 5000, g, v FROM so_a WHERE id % 2 = 0;
SELECT * FROM dv_refresh_round('so_defs');

-- a WITH query of the set operation is inlined into its branches (INCREMENTAL); one that is not
-- (MATERIALIZED) keeps the set operation FULL (SET_OPERATION)
SELECT property, value FROM dynview.explain($$SELECT * FROM (WITH w AS (SELECT g FROM so_a) SELECT g FROM w EXCEPT SELECT g FROM so_b) s$$)
  WHERE property IN ('mode', 'reason_code');
SELECT property, value FROM dynview.explain($$SELECT * FROM (WITH w AS MATERIALIZED (SELECT g FROM so_a) SELECT g FROM w EXCEPT SELECT g FROM so_b) s$$)
  WHERE property IN ('mode', 'reason_code');
-- a branch that is not incremental as an operator: its own reason (a LIMIT in a UNION branch
-- whose tied rows need not be alike)
SELECT property, value FROM dynview.explain($$SELECT g, v FROM (SELECT g, v FROM so_a ORDER BY g LIMIT 3) x UNION SELECT g, v FROM so_b$$)
  WHERE property IN ('mode', 'reason_code');

SELECT dynview.drop_dynamic_table(name) FROM so_defs ORDER BY name;
DROP TABLE so_defs, so_a, so_b, so_c;
DROP FUNCTION dv_refresh_round(regclass);
