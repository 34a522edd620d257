-- A delta that probes a source by key, where its probes were found cheaper only by counting the
-- changed rows' distinct keys (optree.c window_distinct, probe_cheaper: pages counted because the
-- source does not fit in a quarter of shared_buffers), probes each distinct key once and joins the
-- rows found back with the changed rows by the join's whole condition (optree.c probe_once_sql;
-- issue 13, TPC-H Q8: 12,046 changed lineitems of 3,000 orders probed orders_pkey 12,046 times).
-- The orders here are one row a page (fillfactor 10, a 400-byte filler): 10,000 rows (probes are
-- considered from 10,000, DV_PROBE_MIN_ROWS) in 10,000 pages, more than a quarter of the default
-- 128 MB; both sources change in each window, so that the delta is written as terms.  The probes
-- of po_ord_pkey in one refresh are counted (pg_stat_get_xact_numscans) against the distinct
-- orders of the changed lineitems (the old build probed once a changed row: 3,101 times).  Also the
-- same join written the other way round and a LEFT JOIN; NULL keys, keys of no order, a filter
-- on the probed side.  Every refresh verified and compared by text and by "=".
SET client_min_messages = warning;

CREATE TABLE po_ord (o int PRIMARY KEY, day int NOT NULL, filler char(400) NOT NULL) WITH (fillfactor = 10);
CREATE TABLE po_item (id int PRIMARY KEY, o int, price numeric(12,2) NOT NULL);
INSERT INTO po_ord SELECT o, o % 700, 'x' FROM generate_series(1, 10000) o;
INSERT INTO po_item SELECT i, CASE WHEN i % 97 = 0 THEN NULL ELSE 1 + i / 3 END, (i % 1000) / 10.0
  FROM generate_series(1, 30000) i;
ANALYZE po_ord, po_item;
SELECT pg_relation_size('po_ord') / current_setting('block_size')::int
       > pg_size_bytes(current_setting('shared_buffers')) / current_setting('block_size')::int / 4
       AS orders_exceed_a_quarter_of_shared_buffers;

CREATE TABLE po_defs (name text PRIMARY KEY, query text NOT NULL);
INSERT INTO po_defs VALUES
  -- the lineitems' side changes, the orders (filtered) are probed: the probed side on the right
  ('po_right', 'SELECT o.day / 100 AS period, sum(l.price) AS volume, count(*) AS c
                  FROM po_item l JOIN po_ord o ON l.o = o.o
                 WHERE o.day BETWEEN 100 AND 499
                 GROUP BY o.day / 100'),
  -- written the other way round: the probed side on the left
  ('po_left', 'SELECT o.o, o.day, l.id, l.price FROM po_ord o JOIN po_item l ON o.o = l.o WHERE o.day < 300'),
  -- a LEFT JOIN: changed lineitems without an order (NULL keys, orders not found) padded
  ('po_outer', 'SELECT l.id, l.o, l.price, o.day FROM po_item l LEFT JOIN po_ord o ON o.o = l.o');
SELECT count(dynview.create_dynamic_table(name, query, schedule => 'manual', refresh_mode => 'incremental'))
  FROM po_defs;

\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round

-- round 1: the prices of every lineitem of 500 orders (old and new images: about 3,100 changed
-- rows), lineitems moved to orders that do not exist, keys set NULL
CREATE TEMP TABLE po_changed AS SELECT id, o FROM po_item WHERE o BETWEEN 1001 AND 1525;
UPDATE po_item SET price = price + 1 WHERE o BETWEEN 1001 AND 1500;
UPDATE po_item SET o = 7000 + id % 5 WHERE o BETWEEN 1501 AND 1520;
UPDATE po_item SET o = NULL WHERE o BETWEEN 1521 AND 1525;
UPDATE po_ord SET day = day + 1 WHERE o = 9999;
INSERT INTO po_changed SELECT id, o FROM po_item WHERE id IN (SELECT id FROM po_changed);
SELECT dynview.wait_for_capture();
-- one probe a distinct changed order (the old and the new images' keys), not one a changed row;
-- the planner's reads of the index's end points (selfuncs.c get_actual_variable_range) count as
-- scans too: a few more than the distinct orders, far fewer than the changed rows
BEGIN;
SELECT refresh_mode FROM dynview.refresh('po_right');
SELECT pg_stat_get_xact_numscans('po_ord_pkey'::regclass)
         BETWEEN (SELECT count(DISTINCT o) FROM po_changed) AND (SELECT count(DISTINCT o) + 30 FROM po_changed)
         AS one_probe_a_distinct_order,
       (SELECT count(o) FROM po_changed) AS changed_rows_with_a_key;
ROLLBACK;
SELECT * FROM dv_refresh_round('po_defs');

-- round 2: lineitems inserted and deleted for a few hundred orders, an order's day moved across the
-- filter, an order deleted with its lineitems left dangling
INSERT INTO po_item SELECT 40000 + i, 2001 + i % 300, i / 10.0 FROM generate_series(1, 1500) i;
DELETE FROM po_item WHERE o BETWEEN 3001 AND 3300;
UPDATE po_ord SET day = day + 250 WHERE o IN (2001, 2002, 3500);
DELETE FROM po_ord WHERE o = 2003;
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('po_defs');

SELECT dynview.drop_dynamic_table(name) IS NOT NULL FROM po_defs ORDER BY name;
DROP TABLE po_defs, po_item, po_ord, po_changed;
DROP FUNCTION dv_refresh_round(regclass);
