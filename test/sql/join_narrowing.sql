-- A FROM list joins a narrowing item first (issue 13, TPC-H Q21 and Q8; optree.c narrowing_item):
-- of the items a condition connects to those already joined, a scan that a condition of its own
-- filters and that is joined by a column with a unique index is taken before the others (Q21's
-- nation, one in 25 suppliers, before the changed lineitems' probes of orders).  A FROM list of
-- scans under a pulled-up EXISTS or IN is ordered by the enclosing WHERE too.  Inner joins only:
-- the order changes which rows each term reads, never the result.  Refused as narrowing (by the
-- operator tree): an unfiltered item, a filtered item joined by a column without a unique index.
-- Changes to every side, NULL keys, a filter flipping, a dimension row deleted and inserted back,
-- in one window and in several; every refresh verified and compared by text and by "=".
SET client_min_messages = warning;

CREATE TABLE jn_nation (n int PRIMARY KEY, name text NOT NULL);
CREATE TABLE jn_supp (s int PRIMARY KEY, nation int, name text NOT NULL);
CREATE TABLE jn_ord (o int PRIMARY KEY, status char(1) NOT NULL, cust int);
CREATE TABLE jn_item (o int NOT NULL, line int NOT NULL, s int, late boolean NOT NULL, qty int NOT NULL,
                      PRIMARY KEY (o, line));
CREATE TABLE jn_tag (nation int, label text NOT NULL);  -- no unique index on nation
INSERT INTO jn_nation SELECT n, 'nation ' || n FROM generate_series(0, 9) n;
INSERT INTO jn_supp SELECT s, CASE WHEN s % 23 = 0 THEN NULL ELSE s % 10 END, 'supp ' || s FROM generate_series(1, 200) s;
INSERT INTO jn_ord SELECT o, CASE WHEN o % 3 = 0 THEN 'O' ELSE 'F' END, o % 50 FROM generate_series(1, 600) o;
INSERT INTO jn_item SELECT o, l, CASE WHEN (o + l) % 41 = 0 THEN NULL ELSE 1 + (o * 7 + l * 13) % 200 END,
                           (o + l) % 3 = 0, 1 + (o + l) % 9
  FROM generate_series(1, 600) o, generate_series(1, 1 + o % 4) l;
INSERT INTO jn_tag SELECT n % 10, 'tag ' || n FROM generate_series(0, 14) n;
ANALYZE jn_nation, jn_supp, jn_ord, jn_item, jn_tag;

CREATE TABLE jn_defs (name text PRIMARY KEY, query text NOT NULL);
INSERT INTO jn_defs VALUES
  -- TPC-H Q21's shape: nation (filtered, joined by its key) comes right after supplier
  ('jn_q21', 'SELECT s.name, count(*) AS numwait
                FROM jn_supp s, jn_item l1, jn_ord o, jn_nation n
               WHERE s.s = l1.s AND o.o = l1.o AND o.status = ''F'' AND l1.late
                 AND EXISTS (SELECT FROM jn_item l2 WHERE l2.o = l1.o AND l2.s <> l1.s)
                 AND NOT EXISTS (SELECT FROM jn_item l3 WHERE l3.o = l1.o AND l3.s <> l1.s AND l3.late)
                 AND s.nation = n.n AND n.name = ''nation 3''
               GROUP BY s.name'),
  -- TPC-H Q8's shape: the filtered orders before the unfiltered suppliers
  ('jn_q8', 'SELECT n.name, sum(l.qty) AS qty_sum, count(*) AS c
               FROM jn_item l, jn_supp s, jn_ord o, jn_nation n
              WHERE s.s = l.s AND o.o = l.o AND o.status = ''F'' AND s.nation = n.n
              GROUP BY n.name'),
  -- the rows themselves, a join key that is NULL in some rows
  ('jn_rows', 'SELECT l.o, l.line, s.name, n.name AS nation
                 FROM jn_item l, jn_supp s, jn_nation n WHERE l.s = s.s AND s.nation = n.n AND n.n IN (1, 2, 5)'),
  -- not narrowing: jn_tag's nation has no unique index (the list keeps its connected order)
  ('jn_tagged', 'SELECT l.o, l.line, t.label
                FROM jn_item l, jn_supp s, jn_tag t WHERE l.s = s.s AND s.nation = t.nation AND t.label <> ''tag 4''');

SELECT count(dynview.create_dynamic_table(name, query, schedule => 'manual', refresh_mode => 'incremental'))
  FROM jn_defs;
\getenv abs_srcdir PG_ABS_SRCDIR
\set join_order :abs_srcdir '/sql/include/join_order.sql'
\i :join_order
-- the join order each table's operator tree shows, innermost join first
SELECT * FROM dv_join_order('jn_defs');

\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round

-- round 1: lineitems inserted and deleted, a NULL supplier, an order's status flipped
INSERT INTO jn_item SELECT o, 9, CASE WHEN o % 7 = 0 THEN NULL ELSE 1 + o % 200 END, o % 2 = 0, 3
  FROM generate_series(1, 600, 5) o;
DELETE FROM jn_item WHERE o BETWEEN 100 AND 130;
UPDATE jn_ord SET status = 'O' WHERE o IN (2, 4, 8, 16);
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('jn_defs');

-- round 2: the filtered dimension changes: nation 3 renamed away and another renamed to it,
-- a supplier moved between nations, a supplier deleted with a lineitem of it
UPDATE jn_nation SET name = 'nation x' WHERE n = 3;
UPDATE jn_nation SET name = 'nation 3' WHERE n = 6;
UPDATE jn_supp SET nation = 6 WHERE s IN (3, 13);
DELETE FROM jn_item WHERE s = 33;
DELETE FROM jn_supp WHERE s = 33;
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('jn_defs');

-- round 3: a nation deleted and inserted back in one window, with lineitems and orders changing
DELETE FROM jn_nation WHERE n = 6;
INSERT INTO jn_nation VALUES (6, 'nation 3');
INSERT INTO jn_ord SELECT o, 'F', 1 FROM generate_series(601, 640) o;
INSERT INTO jn_item SELECT o, 1, 1 + o % 200, o % 2 = 1, 2 FROM generate_series(601, 640) o;
INSERT INTO jn_item SELECT o, 2, 2 + o % 200, true, 2 FROM generate_series(601, 640, 3) o;
UPDATE jn_item SET late = NOT late WHERE o BETWEEN 200 AND 220;
UPDATE jn_tag SET label = 'tag 4' WHERE label = 'tag 9';
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('jn_defs');

-- round 4: two windows' worth of changes, then one refresh
DELETE FROM jn_ord WHERE o BETWEEN 300 AND 320;
DELETE FROM jn_item WHERE o BETWEEN 300 AND 320;
UPDATE jn_supp SET nation = NULL WHERE s % 17 = 0;
SELECT dynview.wait_for_capture();
UPDATE jn_supp SET nation = 3 WHERE s % 17 = 0 AND s % 2 = 0;
INSERT INTO jn_nation VALUES (10, 'nation 3');
UPDATE jn_supp SET nation = 10 WHERE s BETWEEN 40 AND 45;
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('jn_defs');

SELECT dynview.drop_dynamic_table(name) IS NOT NULL FROM jn_defs ORDER BY name;
DROP TABLE jn_defs, jn_item, jn_ord, jn_supp, jn_nation, jn_tag;
DROP FUNCTION dv_refresh_round(regclass), dv_join_order(regclass);
