-- A FROM list that starts with a narrowing item starts at its header instead (issue 13, TPC-H Q8;
-- optree.c connected_order, header_item): when the first item (part, filtered, joined by its unique
-- key) narrows the item it joins (lineitem), and that item has a header (orders: filtered, joined by
-- its unique key to a column leading lineitem's primary key), the list starts with lineitem, orders,
-- so that a change of lineitem meets orders' filter, one probe of orders' key per changed row,
-- before part, which the term of lineitem's change would read whole.  The changed rows' distinct
-- keys count the pages their probes read (optree.c window_distinct, probe_cheaper): here with tables
-- of at least 10,000 rows, so that the count is taken for the orders probe.  Not a header: a
-- column that does not lead the unique index (the list keeps its order), an unfiltered header.
-- Inner joins only: the order changes which rows each term reads, never the result.  Every
-- refresh verified and compared by text and by "=".
SET client_min_messages = warning;

CREATE TABLE hf_nation (n int PRIMARY KEY, name text NOT NULL);
CREATE TABLE hf_supp (s int PRIMARY KEY, nation int NOT NULL);
CREATE TABLE hf_part (p int PRIMARY KEY, kind text NOT NULL);
CREATE TABLE hf_ord (o int PRIMARY KEY, day int NOT NULL);
CREATE TABLE hf_item (o int NOT NULL, line int NOT NULL, p int NOT NULL, s int NOT NULL, price numeric(12,2) NOT NULL,
                      PRIMARY KEY (o, line));
-- the same rows keyed the other way round: o does not lead the unique index
CREATE TABLE hf_item2 (o int NOT NULL, line int NOT NULL, p int NOT NULL, s int NOT NULL, price numeric(12,2) NOT NULL,
                       PRIMARY KEY (line, o));
INSERT INTO hf_nation SELECT n, 'nation ' || n FROM generate_series(0, 9) n;
INSERT INTO hf_supp SELECT s, s % 10 FROM generate_series(1, 100) s;
INSERT INTO hf_part SELECT p, CASE WHEN p % 7 = 0 THEN 'steel' ELSE 'brass' END FROM generate_series(1, 12000) p;
INSERT INTO hf_ord SELECT o, o % 700 FROM generate_series(1, 12000) o;
INSERT INTO hf_item SELECT o, l, 1 + (o * 13 + l * 7) % 12000, 1 + (o + l) % 100, ((o * 31 + l) % 1000) / 10.0
  FROM generate_series(1, 12000) o, generate_series(1, 1 + o % 4) l;
INSERT INTO hf_item2 SELECT * FROM hf_item;
ANALYZE hf_nation, hf_supp, hf_part, hf_ord, hf_item, hf_item2;

CREATE TABLE hf_defs (name text PRIMARY KEY, query text NOT NULL);
INSERT INTO hf_defs VALUES
  -- TPC-H Q8's shape: part first in the list, lineitem's header orders filtered by date
  ('hf_q8', 'SELECT o.day / 100 AS period, n.name, sum(l.price) AS volume, count(*) AS c
               FROM hf_part p, hf_supp s, hf_item l, hf_ord o, hf_nation n
              WHERE p.p = l.p AND s.s = l.s AND l.o = o.o AND s.nation = n.n
                AND o.day BETWEEN 100 AND 299 AND p.kind = ''steel''
              GROUP BY o.day / 100, n.name'),
  -- the rows themselves
  ('hf_rows', 'SELECT l.o, l.line, l.price, o.day
                 FROM hf_part p, hf_item l, hf_ord o
                WHERE p.p = l.p AND l.o = o.o AND o.day BETWEEN 100 AND 299 AND p.kind = ''steel'''),
  -- not a header: o does not lead hf_item2's unique index (part stays first)
  ('hf_rows_item2', 'SELECT l.o, l.line, l.price, o.day
                       FROM hf_part p, hf_item2 l, hf_ord o
                      WHERE p.p = l.p AND l.o = o.o AND o.day BETWEEN 100 AND 299 AND p.kind = ''steel'''),
  -- not a header: orders unfiltered (part stays first)
  ('hf_rows_all_days', 'SELECT l.o, l.line, l.price, o.day
                          FROM hf_part p, hf_item l, hf_ord o
                         WHERE p.p = l.p AND l.o = o.o AND p.kind = ''steel''');

SELECT count(dynview.create_dynamic_table(name, query, schedule => 'manual', refresh_mode => 'incremental'))
  FROM hf_defs;
\getenv abs_srcdir PG_ABS_SRCDIR
\set join_order :abs_srcdir '/sql/include/join_order.sql'
\i :join_order
-- the join order each table's operator tree shows, innermost join first
SELECT * FROM dv_join_order('hf_defs');

\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round

-- round 1 (bench/tpch.sh's kind): 500 new orders with their lineitems, 500 orders deleted with theirs
INSERT INTO hf_ord SELECT o, o % 700 FROM generate_series(12001, 12500) o;
INSERT INTO hf_item SELECT o, l, 1 + (o * 13 + l * 7) % 12000, 1 + (o + l) % 100, ((o * 31 + l) % 1000) / 10.0
  FROM generate_series(12001, 12500) o, generate_series(1, 1 + o % 4) l;
INSERT INTO hf_item2 SELECT * FROM hf_item WHERE o > 12000;
DELETE FROM hf_item WHERE o BETWEEN 1001 AND 1500;
DELETE FROM hf_item2 WHERE o BETWEEN 1001 AND 1500;
DELETE FROM hf_ord WHERE o BETWEEN 1001 AND 1500;
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('hf_defs');

-- round 2: lineitems moved to other orders, orders' days moved across the filter, parts' kinds
-- flipped both ways, a part deleted (its lineitems then join none)
UPDATE hf_item SET o = o + 1, line = 9 WHERE o BETWEEN 2001 AND 2100 AND line = 1 AND o % 4 = 3;
UPDATE hf_item2 SET o = o + 1, line = 9 WHERE o BETWEEN 2001 AND 2100 AND line = 1 AND o % 4 = 3;
UPDATE hf_ord SET day = day + 150 WHERE o BETWEEN 3001 AND 3400;
UPDATE hf_part SET kind = CASE kind WHEN 'steel' THEN 'brass' ELSE 'steel' END WHERE p BETWEEN 500 AND 540;
DELETE FROM hf_part WHERE p IN (14, 21, 28);
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('hf_defs');

-- round 3: an order deleted and inserted back in one window with another day; lineitems of an
-- order that does not exist yet, and another order whose lineitems all go
DELETE FROM hf_ord WHERE o IN (4200, 4201);
INSERT INTO hf_ord VALUES (4200, 150), (4201, 650);
INSERT INTO hf_item VALUES (13000, 1, 7, 5, 10.00), (13000, 2, 14, 6, 20.00);
INSERT INTO hf_item2 VALUES (13000, 1, 7, 5, 10.00), (13000, 2, 14, 6, 20.00);
DELETE FROM hf_item WHERE o = 4300;
DELETE FROM hf_item2 WHERE o = 4300;
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('hf_defs');

-- round 4: two windows' worth of changes, then one refresh: the dangling lineitems' order arrives,
-- a supplier changes nation, lineitems' prices change
INSERT INTO hf_ord VALUES (13000, 120);
UPDATE hf_supp SET nation = 3 WHERE s BETWEEN 10 AND 15;
SELECT dynview.wait_for_capture();
UPDATE hf_item SET price = price + 1 WHERE o BETWEEN 5000 AND 5600;
UPDATE hf_item2 SET price = price + 1 WHERE o BETWEEN 5000 AND 5600;
DELETE FROM hf_ord WHERE o BETWEEN 6000 AND 6100;
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('hf_defs');

SELECT dynview.drop_dynamic_table(name) IS NOT NULL FROM hf_defs ORDER BY name;
DROP TABLE hf_defs, hf_item, hf_item2, hf_ord, hf_part, hf_supp, hf_nation;
DROP FUNCTION dv_refresh_round(regclass), dv_join_order(regclass);
