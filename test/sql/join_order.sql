-- The join order of a FROM list (issue 13, TPC-H Q9 and Q8): the items are joined left-deep in
-- the order of the join conditions (optree.c connected_order): the first item, then each time
-- the first one a condition joins to those already joined, so that no two unconnected items are
-- joined first, a cross product in every term of the delta that reads them (Q9's "part,
-- supplier, lineitem, ...": a change of a part joined with every supplier).  A list already
-- connected keeps its order; a cross product no condition avoids comes last; a list with a
-- LATERAL function keeps its order.  And the rows now of a side are found by the keys of the
-- other side's delta through the condition whose column has the fewest rows per value
-- (optree.c reach_restrict: Q9's partsupp by part, not by supplier).  Every refresh is verified
-- and compared with the query by text and by "=".
SET client_min_messages = warning;

CREATE TABLE jo_part (p int PRIMARY KEY, name text NOT NULL, kind text NOT NULL);
CREATE TABLE jo_supp (s int PRIMARY KEY, nation int NOT NULL);
CREATE TABLE jo_nation (n int PRIMARY KEY, name text NOT NULL);
CREATE TABLE jo_ps (p int, s int, cost numeric(15, 2) NOT NULL, PRIMARY KEY (p, s));
CREATE INDEX ON jo_ps (s);
CREATE TABLE jo_ord (o int PRIMARY KEY, day date NOT NULL);
CREATE TABLE jo_item (o int, line int, p int NOT NULL, s int NOT NULL, qty numeric(15, 2) NOT NULL,
                      price numeric(15, 2) NOT NULL, disc numeric(15, 2) NOT NULL, PRIMARY KEY (o, line));
CREATE INDEX ON jo_item (p, s);
INSERT INTO jo_nation SELECT n, 'nation ' || n FROM generate_series(0, 4) n;
INSERT INTO jo_supp SELECT s, s % 5 FROM generate_series(0, 99) s;
INSERT INTO jo_part SELECT p, CASE WHEN p % 7 = 0 THEN 'green ' ELSE 'red ' END || p, 'kind ' || p % 3
  FROM generate_series(1, 2000) p;
INSERT INTO jo_ps SELECT p, (p + k * 25) % 100, (p * 13 + k) % 1000 / 10.0 FROM generate_series(1, 2000) p, generate_series(0, 3) k;
INSERT INTO jo_ord SELECT o, date '1995-01-01' + o % 1000 FROM generate_series(1, 3000) o;
INSERT INTO jo_item SELECT o, l, 1 + (o * 31 + l * 17) % 2000, (1 + (o * 31 + l * 17) % 2000 + (l % 4) * 25) % 100,
                           1 + (o + l) % 50, (o * 7 + l) % 10000 / 10.0, (o + l) % 10 / 100.0
  FROM generate_series(1, 3000) o, generate_series(1, 1 + o % 4) l;
ANALYZE jo_part, jo_supp, jo_nation, jo_ps, jo_ord, jo_item;

CREATE TABLE jo_defs (name text PRIMARY KEY, query text NOT NULL);
INSERT INTO jo_defs VALUES
  -- Q9's shape: the first two items are joined only through the third
  ('jo_q9', 'SELECT n.name AS nation, extract(year FROM o.day) AS year,
                    sum(i.price * (1 - i.disc) - ps.cost * i.qty) AS profit, count(*) AS n
               FROM jo_part p, jo_supp s, jo_item i, jo_ps ps, jo_ord o, jo_nation n
              WHERE s.s = i.s AND ps.s = i.s AND ps.p = i.p AND p.p = i.p AND o.o = i.o AND s.nation = n.n
                AND p.name LIKE ''green%''
              GROUP BY n.name, extract(year FROM o.day)'),
  -- the same rows without aggregate (a join's delta applied row by row)
  ('jo_rows', 'SELECT p.p, s.s, i.o, i.line, ps.cost, n.name
                 FROM jo_part p, jo_supp s, jo_nation n, jo_item i, jo_ps ps
                WHERE n.n = s.nation AND p.p = i.p AND s.s = i.s AND ps.p = i.p AND ps.s = i.s AND p.p % 5 = 0'),
  -- an item no condition reaches: its cross product comes last
  ('jo_cross', 'SELECT n.n, p.p, i.o, i.line FROM jo_nation n, jo_part p, jo_item i
                 WHERE p.p = i.p AND p.p < 40 AND n.n < 2'),
  -- an outer join and a semi-join among the items of the list
  ('jo_outer', 'SELECT p.kind, n.name, count(*) AS n, count(ps.cost) AS costs
                  FROM jo_supp s LEFT JOIN jo_nation n ON n.n = s.nation AND n.n <> 3, jo_part p, jo_ps ps
                 WHERE ps.s = s.s AND ps.p = p.p
                   AND EXISTS (SELECT FROM jo_item i WHERE i.p = p.p AND i.qty > 45)
                 GROUP BY p.kind, n.name'),
  -- partsupp joined with a supplier first, then with the items by part and supplier: the rows
  -- of that join now are read by the keys of the changed items (below)
  ('jo_reach', 'SELECT s.nation, sum(ps.cost * i.qty) AS cost, count(*) AS n
                  FROM jo_ps ps, jo_supp s, jo_item i
                 WHERE ps.s = s.s AND ps.s = i.s AND ps.p = i.p AND s.nation < 4
                 GROUP BY s.nation'),
  -- a LATERAL function: the list keeps its order
  ('jo_lateral', 'SELECT p.p, g.k, i.o FROM jo_part p, jo_item i, generate_series(1, p.p % 3) g(k)
                   WHERE i.p = p.p AND i.s < 10');

SELECT count(dynview.create_dynamic_table(name, query, schedule => 'manual', refresh_mode => 'incremental'))
  FROM jo_defs;
SELECT j.name, d.effective_mode FROM dynview.dynamic_tables d JOIN jo_defs j ON d.name = j.name::regclass ORDER BY 1;

-- the operator trees: Q9's joins follow its conditions (part, item, supplier, partsupp, order,
-- nation), jo_rows's too (part, item, supplier, nation, partsupp), jo_cross's nation last,
-- jo_reach's and jo_lateral's as written
SELECT j.name, regexp_replace(e.value, ' ON .*', '', 'gm') AS tree
  FROM jo_defs j, dynview.explain(j.query) e
 WHERE e.property = 'operator tree' AND j.name IN ('jo_q9', 'jo_rows', 'jo_cross', 'jo_reach', 'jo_lateral')
 ORDER BY j.name;

\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round

-- round 1: orders inserted with their items, orders deleted with theirs (the benchmark's change)
INSERT INTO jo_ord SELECT o, date '1996-06-01' + o % 400 FROM generate_series(3001, 3040) o;
INSERT INTO jo_item SELECT o, l, 1 + (o * 37 + l) % 2000, (1 + (o * 37 + l) % 2000 + (l % 4) * 25) % 100, l, o % 100, 0.05
  FROM generate_series(3001, 3040) o, generate_series(1, 3) l;
DELETE FROM jo_item WHERE o BETWEEN 100 AND 130;
DELETE FROM jo_ord WHERE o BETWEEN 100 AND 130;
SELECT * FROM dv_refresh_round('jo_defs');

-- round 2: the parts and suppliers change (the first items of the lists: their delta was joined
-- with every row of the second before), a part becomes green, another stops being one
UPDATE jo_part SET name = 'green ' || p WHERE p IN (1, 2, 3, 50);
UPDATE jo_part SET name = 'blue ' || p WHERE p IN (7, 14, 21);
UPDATE jo_supp SET nation = (nation + 1) % 5 WHERE s IN (3, 4, 5);
UPDATE jo_nation SET name = 'renamed' WHERE n = 2;
INSERT INTO jo_part VALUES (2001, 'green new', 'kind 0');
INSERT INTO jo_item VALUES (5000, 1, 2001, 26, 3, 100, 0), (5000, 2, 35, 60, 2, 50, 0.1);
INSERT INTO jo_ord VALUES (5000, date '1997-03-03');
INSERT INTO jo_ps VALUES (2001, 26, 12.5);
SELECT * FROM dv_refresh_round('jo_defs');

-- round 3: the partsupp costs and the items' quantities change, and rows leave every table
UPDATE jo_ps SET cost = cost + 1 WHERE p % 97 = 0;
UPDATE jo_item SET qty = qty + 1, disc = 0 WHERE o % 211 = 0;
DELETE FROM jo_ps WHERE p = 35;
DELETE FROM jo_supp WHERE s = 99;
DELETE FROM jo_part WHERE p = 1999;
-- (a part jo_cross's filter keeps: its delta crosses the nations)
DELETE FROM jo_part WHERE p = 39;
SELECT * FROM dv_refresh_round('jo_defs');

-- the rows of partsupp joined with suppliers that changed items reach are read by the items'
-- parts (4 rows a part, its primary key), not by their suppliers (80 rows a supplier, the index
-- on jo_ps (s)), whatever the order of the conditions
INSERT INTO jo_item VALUES (5001, 1, 7 * 40, (7 * 40 + 25) % 100, 1, 10, 0), (5001, 2, 11, 36, 2, 20, 0);
SELECT dynview.wait_for_capture();
SELECT pg_stat_force_next_flush();
SELECT pg_stat_clear_snapshot();
CREATE TEMP TABLE jo_scans AS
  SELECT indexrelname, idx_scan FROM pg_stat_user_indexes WHERE relname = 'jo_ps';
SELECT refresh_mode FROM dynview.refresh('jo_reach');
SELECT pg_stat_force_next_flush();
SELECT pg_stat_clear_snapshot();
SELECT i.indexrelname, i.idx_scan > s.idx_scan AS read
  FROM pg_stat_user_indexes i JOIN jo_scans s USING (indexrelname)
 WHERE i.relname = 'jo_ps' ORDER BY 1;
SELECT dynview.verify('jo_reach');
SELECT * FROM dv_refresh_round('jo_defs');

SELECT count(dynview.drop_dynamic_table(name)) FROM jo_defs;
DROP FUNCTION dv_refresh_round(regclass);
DROP TABLE jo_scans, jo_defs, jo_item, jo_ord, jo_ps, jo_part, jo_supp, jo_nation;
