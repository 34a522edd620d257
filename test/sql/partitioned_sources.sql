-- Partitioned sources (issue 15): changes of every partition count as changes of the partitioned
-- table the query names: sub-partitions, partitions created or attached later, rows moving between
-- partitions, TRUNCATE, DETACH or DROP of one partition.  verify() after every refresh.
SET client_min_messages = warning;
CREATE TABLE ps_orders (order_id int, region text, amount numeric(10,2), PRIMARY KEY (order_id, region))
  PARTITION BY LIST (region);
CREATE TABLE ps_orders_eu PARTITION OF ps_orders FOR VALUES IN ('eu');
CREATE TABLE ps_orders_us PARTITION OF ps_orders FOR VALUES IN ('us') PARTITION BY RANGE (order_id);
CREATE TABLE ps_orders_us_1 PARTITION OF ps_orders_us FOR VALUES FROM (0) TO (1000);
CREATE TABLE ps_orders_us_2 PARTITION OF ps_orders_us FOR VALUES FROM (1000) TO (2000);
CREATE TABLE ps_orders_other PARTITION OF ps_orders DEFAULT;
CREATE TABLE ps_regions (region text PRIMARY KEY, zone text);
INSERT INTO ps_regions VALUES ('eu', 'emea'), ('us', 'amer'), ('asia', 'apac'), ('jp', 'apac'), ('cn', 'apac'), ('br', 'amer');
INSERT INTO ps_orders SELECT g, CASE WHEN g % 3 = 0 THEN 'eu' WHEN g % 3 = 1 THEN 'us' ELSE 'br' END, g / 10.0
  FROM generate_series(1, 1500) g;

-- what the query names is captured: INCREMENTAL, not SOURCE_NOT_CAPTURED
SELECT property, value FROM dynview.explain('SELECT region, count(*) FROM ps_orders GROUP BY region')
 WHERE property IN ('mode', 'reason_code', 'sources');
SELECT dynview.create_dynamic_table('ps_totals',
  'SELECT region, count(*) AS n, sum(amount) AS total FROM ps_orders GROUP BY region',
  schedule => 'manual', refresh_mode => 'incremental');
SELECT dynview.create_dynamic_table('ps_zone_rows',
  'SELECT o.order_id, o.region, r.zone, o.amount FROM ps_orders o JOIN ps_regions r USING (region) WHERE o.amount > 100',
  schedule => 'manual', refresh_mode => 'incremental');
-- a partition read by name, and a sub-partitioned partition, are sources of their own too
SELECT dynview.create_dynamic_table('ps_us_count', 'SELECT count(*) AS n, sum(amount) AS total FROM ps_orders_us',
  schedule => 'manual', refresh_mode => 'incremental');
SELECT dynview.create_dynamic_table('ps_eu_rows', 'SELECT order_id, amount FROM ps_orders_eu',
  schedule => 'manual', refresh_mode => 'incremental');
SELECT name, effective_mode FROM dynview.dynamic_tables ORDER BY name::text;
-- every leaf has REPLICA IDENTITY FULL (old rows are logged under the leaf)
SELECT c.relname, c.relkind, c.relreplident FROM pg_class c
 WHERE c.relname LIKE 'ps_orders%' AND c.relkind IN ('r', 'p') ORDER BY c.relname;

CREATE FUNCTION ps_refresh_all() RETURNS TABLE (name text, refresh_mode text, reason text, exact boolean)
LANGUAGE plpgsql AS $$
DECLARE
  t text;
  h dynview.refresh_history;
BEGIN
  FOREACH t IN ARRAY ARRAY['ps_eu_rows', 'ps_totals', 'ps_us_count', 'ps_zone_rows'] LOOP
    h := dynview.refresh(t);
    name := t; refresh_mode := h.refresh_mode; reason := h.mode_reason_code; exact := dynview.verify(t);
    RETURN NEXT;
  END LOOP;
END $$;

-- writes through the parent and straight into leaves, a row moving between partitions and between
-- sub-partitions (an update of the partition key), into and out of the default partition
INSERT INTO ps_orders VALUES (5000, 'eu', 500), (1999, 'us', 199.9), (1998, 'jp', 42);
INSERT INTO ps_orders_us_1 VALUES (998, 'us', 7);
UPDATE ps_orders SET region = 'us' WHERE order_id = 3;            -- eu -> us_1
UPDATE ps_orders SET order_id = 1001 WHERE order_id = 1 AND region = 'us';   -- us_1 -> us_2
UPDATE ps_orders SET region = 'eu' WHERE order_id = 1998;         -- default -> eu
UPDATE ps_orders SET amount = amount * 2 WHERE order_id BETWEEN 1000 AND 1100;
DELETE FROM ps_orders_us_2 WHERE order_id = 1003;
DELETE FROM ps_orders WHERE order_id = 5;
SELECT * FROM ps_refresh_all();
SELECT * FROM ps_totals ORDER BY region;
SELECT refresh_mode, rows_inserted, rows_deleted FROM dynview.refresh_history('ps_eu_rows', 1);

-- a partition created later: its rows count at once
CREATE TABLE ps_orders_asia PARTITION OF ps_orders FOR VALUES IN ('asia');
SELECT relreplident FROM pg_class WHERE relname = 'ps_orders_asia';
INSERT INTO ps_orders VALUES (7, 'asia', 70), (8, 'asia', 80);
UPDATE ps_orders SET amount = 700 WHERE order_id = 7 AND region = 'asia';
SELECT * FROM ps_refresh_all();
-- an empty table attached as a partition (as pg_partman does) changes nothing by itself
CREATE TABLE ps_orders_cn (LIKE ps_orders);
ALTER TABLE ps_orders ATTACH PARTITION ps_orders_cn FOR VALUES IN ('cn');
SELECT relreplident FROM pg_class WHERE relname = 'ps_orders_cn';
INSERT INTO ps_orders VALUES (9, 'cn', 900);
UPDATE ps_orders SET amount = 901 WHERE order_id = 9;
SELECT * FROM ps_refresh_all();
-- a table attached with rows, detached or dropped with rows: those rows were never logged as
-- changes of ps_orders, so its readers refresh FULL once (SOURCE_PARTITIONS_CHANGED)
CREATE TABLE ps_orders_jp (LIKE ps_orders);
INSERT INTO ps_orders_jp VALUES (10, 'jp', 1000);
DELETE FROM ps_orders_other WHERE region = 'jp';
ALTER TABLE ps_orders ATTACH PARTITION ps_orders_jp FOR VALUES IN ('jp');
SELECT * FROM ps_refresh_all();
SELECT * FROM ps_refresh_all();   -- and INCREMENTAL (NO_DATA) again after
ALTER TABLE ps_orders DETACH PARTITION ps_orders_asia;
SELECT * FROM ps_refresh_all();
DROP TABLE ps_orders_cn;
SELECT * FROM ps_refresh_all();
-- a detached table is no partition any more: its changes do not count
INSERT INTO ps_orders_asia VALUES (11, 'asia', 1);
SELECT * FROM ps_refresh_all();
-- TRUNCATE of one partition (and of a sub-partition read by name through its parent)
TRUNCATE ps_orders_us_2;
SELECT * FROM ps_refresh_all();
SELECT * FROM ps_totals ORDER BY region;

-- a transaction that wrote a partition, then refreshes: FULL (its changes are captured at commit)
BEGIN;
INSERT INTO ps_orders_eu VALUES (6000, 'eu', 600);
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('ps_totals');
SELECT dynview.verify('ps_totals');
COMMIT;
SELECT * FROM ps_refresh_all();

-- ONLY on a partitioned table reads no rows: FULL (PARTITIONED_ONLY)
SELECT property, value FROM dynview.explain('SELECT count(*) FROM ONLY ps_orders')
 WHERE property IN ('mode', 'reason_code');
-- a partitioned table with a foreign-table or unlogged partition is not captured
CREATE TABLE ps_log (id int, kind text) PARTITION BY LIST (kind);
CREATE UNLOGGED TABLE ps_log_a PARTITION OF ps_log FOR VALUES IN ('a');
SELECT property, value FROM dynview.explain('SELECT kind, count(*) FROM ps_log GROUP BY kind')
 WHERE property IN ('mode', 'reason_code');

-- a downstream dynamic table of a partitioned source's dynamic table
SELECT dynview.create_dynamic_table('ps_zone_totals',
  'SELECT zone, count(*) AS n, sum(amount) AS total FROM ps_zone_rows GROUP BY zone',
  schedule => 'manual', refresh_mode => 'incremental');
UPDATE ps_orders SET region = 'br' WHERE order_id = 1500;   -- eu (emea) -> br (amer, the default partition)
SELECT refresh_mode FROM dynview.refresh('ps_zone_totals');
SELECT table_name, refresh_mode, mode_reason_code FROM dynview.refresh_history ORDER BY refresh_id DESC LIMIT 2;
SELECT dynview.verify('ps_zone_rows'), dynview.verify('ps_zone_totals');

-- dropping the dynamic tables stops capture
SELECT dynview.drop_dynamic_table(t)
  FROM unnest(ARRAY['ps_zone_totals', 'ps_totals', 'ps_zone_rows', 'ps_us_count', 'ps_eu_rows']) t;
SELECT count(*) FROM dynview.source_tracking;
DROP FUNCTION ps_refresh_all();
DROP TABLE ps_orders, ps_orders_asia, ps_regions, ps_log;
