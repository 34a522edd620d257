-- Partitioned dynamic tables (issue 15, seed 001's partitioned view): one partition per value of
-- dynview.partition(), filled or refreshed one at a time; other partitions keep their rows.
SET client_min_messages = warning;
CREATE TABLE t_department (dept_id bigint NOT NULL PRIMARY KEY, name text, description text);
INSERT INTO t_department VALUES (1001, 'HR Department', 'Human Resources'),
  (1002, 'IT Department', 'Information Technology'), (1003, 'Finance Department', 'Financial Management');

-- the seed's statement: PRIMARY KEY(dept_id) LIFECYCLE 10 BUILD DEFERRED PARTITIONED BY (pt)
-- TBLPROPERTIES ('refresh_mode' = 'incremental'), the value from a setting
CREATE MATERIALIZED VIEW IF NOT EXISTS part_dlmv_department
  WITH (dynview.primary_key = 'dept_id', dynview.retention = 10, dynview.partition_by = 'pt', dynview.refresh_mode = 'incremental')
  AS SELECT *, dynview.partition() AS pt FROM t_department WITH NO DATA;
SELECT relkind, (SELECT count(*) FROM pg_inherits WHERE inhparent = c.oid) AS partitions
  FROM pg_class c WHERE relname = 'part_dlmv_department';
SELECT pg_get_partkeydef('part_dlmv_department'::regclass);
SELECT count(*) FROM part_dlmv_department;

-- SET the value, REFRESH: the partition is made and filled
SET dynview.partition = '20260526';
REFRESH MATERIALIZED VIEW part_dlmv_department;
SELECT * FROM part_dlmv_department WHERE pt = '20260526' ORDER BY dept_id;
SELECT dynview.verify('part_dlmv_department_20260526');
SELECT c.relname, pg_get_expr(c.relpartbound, c.oid) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
 WHERE i.inhparent = 'part_dlmv_department'::regclass ORDER BY 1;
-- the partition is a dynamic table of its own, with the value in its query, INCREMENTAL
SELECT name, schedule, effective_mode, query FROM dynview.dynamic_tables ORDER BY name::text;
SELECT indexdef FROM pg_indexes WHERE tablename = 'part_dlmv_department_20260526' ORDER BY 1;

-- changes, then the next value: partition 1 keeps its old contents, partition 2 has the new
INSERT INTO t_department VALUES (1004, 'Marketing', 'Marketing Department');
UPDATE t_department SET description = 'HR and Admin' WHERE dept_id = 1001;
DELETE FROM t_department WHERE dept_id = 1003;
SELECT table_name, refresh_mode, mode_reason_code, rows_inserted
  FROM dynview.refresh(name => 'part_dlmv_department', partition => '20260527');
SELECT pt, dept_id, name, description FROM part_dlmv_department ORDER BY pt, dept_id;
SELECT dynview.verify('part_dlmv_department_20260526'), dynview.verify('part_dlmv_department_20260527');
-- partition 1 refreshed again: INCREMENTAL from its own data snapshot
SET dynview.partition = '20260526';
REFRESH MATERIALIZED VIEW part_dlmv_department;
SELECT table_name, refresh_mode, refresh_trigger, rows_inserted, rows_deleted
  FROM dynview.refresh_history ORDER BY refresh_id DESC LIMIT 1;
SELECT pt, count(*) FROM part_dlmv_department GROUP BY pt ORDER BY pt;
SELECT dynview.verify('part_dlmv_department_20260526'), dynview.verify('part_dlmv_department_20260527');
-- history rows name the partition
SELECT table_name, refresh_mode, refresh_trigger FROM dynview.refresh_history ORDER BY refresh_id;

-- the function form, a grouped query, and retention: an age, the seed's LIFECYCLE (days): a
-- partition not refreshed for longer than it is dropped (whatever its value)
CREATE TABLE sales (sale_id int PRIMARY KEY, region text, amount numeric(10,2));
INSERT INTO sales VALUES (1, 'eu', 10), (2, 'us', 20), (3, 'eu', 30);
SELECT dynview.create_partitioned_dynamic_table('daily_sales',
  'SELECT region, sum(amount) AS total, count(*) AS n, dynview.partition() AS day FROM sales GROUP BY region',
  partition_by => 'day', retention => '10 days');
SELECT partition_column, schedule, retention FROM dynview.partitioned_table_catalog
 WHERE relid = 'daily_sales'::regclass;
SELECT state, refresh_mode, table_name FROM dynview.refresh('daily_sales', partition => '2026-05-26');
INSERT INTO sales VALUES (4, 'us', 5);
SELECT state, refresh_mode, table_name FROM dynview.refresh('daily_sales', partition => '2026-05-27');
UPDATE sales SET amount = amount + 1 WHERE region = 'eu';
SELECT state, refresh_mode, table_name FROM dynview.refresh('daily_sales', partition => '2026-05-28');
-- all three kept: each was refreshed within 10 days (the dates in the values do not count)
SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
 WHERE i.inhparent = 'daily_sales'::regclass ORDER BY 1;
-- eleven days without a refresh of 2026-05-26 (its data_timestamp moved back, as time would):
-- the next partition refresh drops it
UPDATE dynview.dynamic_table_catalog SET data_timestamp = data_timestamp - interval '11 days'
 WHERE relid = 'daily_sales_2026_05_26'::regclass;
UPDATE sales SET amount = 0 WHERE sale_id = 2;
SELECT state, refresh_mode, table_name FROM dynview.refresh('daily_sales', partition => '2026-05-28');
SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
 WHERE i.inhparent = 'daily_sales'::regclass ORDER BY 1;
SELECT count(*) FROM dynview.dynamic_tables WHERE name::text = 'daily_sales_2026_05_26';
SELECT dynview.verify('daily_sales_2026_05_27'), dynview.verify('daily_sales_2026_05_28');
SELECT day, region, total, n FROM daily_sales ORDER BY day, region;
-- ALTER ... SET (dynview.retention = 3): three days (a bare number is days, as LIFECYCLE 3);
-- 2026-05-27, last refreshed four days ago, is dropped at once
UPDATE dynview.dynamic_table_catalog SET data_timestamp = data_timestamp - interval '4 days'
 WHERE relid = 'daily_sales_2026_05_27'::regclass;
ALTER MATERIALIZED VIEW daily_sales SET (dynview.retention = 3);
SELECT retention FROM dynview.partitioned_table_catalog WHERE relid = 'daily_sales'::regclass;
SELECT day, region, total, n FROM daily_sales ORDER BY day, region;
-- RESET keeps every partition
ALTER MATERIALIZED VIEW daily_sales RESET (dynview.retention);
SELECT retention IS NULL AS keep_all FROM dynview.partitioned_table_catalog WHERE relid = 'daily_sales'::regclass;
UPDATE dynview.dynamic_table_catalog SET data_timestamp = data_timestamp - interval '400 days'
 WHERE relid = 'daily_sales_2026_05_28'::regclass;
SELECT state, table_name FROM dynview.refresh('daily_sales', partition => 'batch 7');
SELECT day FROM daily_sales GROUP BY day ORDER BY day;
SELECT dynview.verify('daily_sales_batch_7');

-- a partition that a view depends on is kept past its retention with a WARNING (2BP01):
-- the refresh of another partition still succeeds and the other expired partitions go
SELECT dynview.create_partitioned_dynamic_table('kept_sales',
  'SELECT region, sum(amount) AS total, dynview.partition() AS day FROM sales GROUP BY region',
  partition_by => 'day', retention => '1 day');
SELECT table_name FROM dynview.refresh('kept_sales', partition => 'p1');
SELECT table_name FROM dynview.refresh('kept_sales', partition => 'p2');
SELECT table_name FROM dynview.refresh('kept_sales', partition => 'p3');
CREATE VIEW kept_sales_view AS SELECT * FROM kept_sales_p1;
UPDATE dynview.dynamic_table_catalog SET data_timestamp = data_timestamp - interval '2 days'
 WHERE relid IN ('kept_sales_p1'::regclass, 'kept_sales_p2'::regclass);
UPDATE sales SET amount = amount + 1 WHERE sale_id = 1;
SELECT state, refresh_mode, table_name FROM dynview.refresh('kept_sales', partition => 'p3');
SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
 WHERE i.inhparent = 'kept_sales'::regclass ORDER BY 1;
SELECT dynview.verify('kept_sales_p3');
-- ALTER ... SET (dynview.retention) keeps it the same way
ALTER MATERIALIZED VIEW kept_sales SET (dynview.retention = '12 hours');
SELECT retention FROM dynview.partitioned_table_catalog WHERE relid = 'kept_sales'::regclass;
DROP VIEW kept_sales_view;
ALTER MATERIALIZED VIEW kept_sales SET (dynview.retention = '12 hours');
SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
 WHERE i.inhparent = 'kept_sales'::regclass ORDER BY 1;
DROP MATERIALIZED VIEW kept_sales;

-- current_setting('dynview.partition') reads the value as dynview.partition() does
SELECT dynview.create_partitioned_dynamic_table('dept_by_setting',
  $$SELECT dept_id, name, current_setting('dynview.partition') AS pt FROM t_department$$,
  partition_by => 'pt', primary_key => '{dept_id}');
SELECT table_name, refresh_mode FROM dynview.refresh('dept_by_setting', partition => '20260601');
SELECT query LIKE '%''20260601''%' AS value_in_query, effective_mode FROM dynview.dynamic_tables
 WHERE name = 'dept_by_setting_20260601'::regclass;
SELECT dynview.verify('dept_by_setting_20260601');
SELECT DISTINCT pt FROM dept_by_setting;
DROP MATERIALIZED VIEW dept_by_setting;

-- a dynamic table reading a partitioned dynamic table: its partitions' changes are not captured
-- (their refreshes write their own change buffers), so the reader is FULL (SOURCE_NOT_CAPTURED)
-- and exact after each partition refresh; also when the partitioned table has no partition yet
CREATE TABLE pr_src (id int PRIMARY KEY, g int, v int);
INSERT INTO pr_src SELECT i, i % 3, i FROM generate_series(1, 10) i;
CREATE MATERIALIZED VIEW pr_part WITH (dynview.partition_by = 'pt')
  AS SELECT id, g, v, dynview.partition() AS pt FROM pr_src WITH NO DATA;
SELECT dynview.create_dynamic_table('pr_down', 'SELECT pt, g, sum(v) AS s, count(*) AS n FROM pr_part GROUP BY pt, g', schedule => 'manual');
SELECT effective_mode, mode_reason_code FROM dynview.dynamic_tables WHERE name = 'pr_down'::regclass;
SELECT table_name FROM dynview.refresh('pr_part', partition => 'a');
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('pr_down');
SELECT dynview.verify('pr_down');
UPDATE pr_src SET v = v + 100 WHERE id <= 3;
SELECT table_name, refresh_mode FROM dynview.refresh('pr_part', partition => 'a');
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('pr_down');
SELECT dynview.verify('pr_down');
DELETE FROM pr_src WHERE id = 5;
SELECT table_name FROM dynview.refresh('pr_part', partition => 'b');
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('pr_down');
SELECT dynview.verify('pr_down');
SELECT * FROM pr_down ORDER BY pt, g;
SELECT dynview.create_dynamic_table('pr_down_inc', 'SELECT pt, count(*) AS n FROM pr_part GROUP BY pt', refresh_mode => 'incremental');
SELECT dynview.drop_dynamic_table('pr_down');
DROP MATERIALIZED VIEW pr_part;
DROP TABLE pr_src;

-- a partitioned dynamic table is written by its partitions' refreshes only
INSERT INTO part_dlmv_department VALUES (9, 'x', 'y', '20260526');
TRUNCATE part_dlmv_department;
CREATE TABLE part_extra PARTITION OF part_dlmv_department FOR VALUES IN ('x');
ALTER TABLE part_dlmv_department ADD COLUMN extra int;
-- nor does it lose one by DETACH (a partition is dropped, by DROP TABLE or retention)
SELECT c.relname AS a_partition FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
 WHERE i.inhparent = 'part_dlmv_department'::regclass ORDER BY 1 LIMIT 1 \gset
ALTER TABLE part_dlmv_department DETACH PARTITION :a_partition;
ALTER TABLE part_dlmv_department DETACH PARTITION :a_partition CONCURRENTLY;

-- COPY into it (as a restore may) routes rows to partitions: their next refresh is FULL
COPY part_dlmv_department FROM stdin;
1099	Extra	Extra Department	20260526
\.
SELECT table_name, refresh_mode, mode_reason_code FROM dynview.refresh('part_dlmv_department', partition => '20260526');
SELECT dynview.verify('part_dlmv_department_20260526');
SELECT count(*) FROM part_dlmv_department WHERE dept_id = 1099;

-- errors
RESET dynview.partition;
REFRESH MATERIALIZED VIEW part_dlmv_department;
SELECT dynview.refresh('t_department', partition => '1');
SELECT dynview.refresh('part_dlmv_department', partition => NULL);
SELECT dynview.refresh('part_dlmv_department', partition => '');
SELECT dynview.create_partitioned_dynamic_table('bad', 'SELECT dept_id, name AS pt FROM t_department', partition_by => 'pt');
SELECT dynview.create_partitioned_dynamic_table('bad', 'SELECT dept_id FROM t_department', partition_by => 'pt');
SELECT dynview.create_partitioned_dynamic_table('bad', 'SELECT dept_id, dynview.partition() AS pt FROM t_department', partition_by => 'pt', retention => '0 days');
SELECT dynview.create_partitioned_dynamic_table('bad', 'SELECT dept_id, dynview.partition() AS pt FROM t_department', partition_by => 'pt', schedule => 'downstream');
SELECT dynview.create_partitioned_dynamic_table('bad', 'SELECT dept_id, dynview.partition() AS pt FROM t_department', partition_by => 'pt', primary_key => '{nope}');
CREATE MATERIALIZED VIEW bad WITH (dynview.retention = 3) AS SELECT dept_id FROM t_department;
CREATE MATERIALIZED VIEW bad WITH (dynview.partition_by = 'pt', dynview.retention = 'many') AS SELECT dept_id, dynview.partition() AS pt FROM t_department;
CREATE MATERIALIZED VIEW bad WITH (dynview.partition_by = 'pt', dynview.retention = '-1 day') AS SELECT dept_id, dynview.partition() AS pt FROM t_department;
CREATE MATERIALIZED VIEW bad WITH (dynview.partition_by = 'pt', dynview.schedule = 'downstream') AS SELECT dept_id, dynview.partition() AS pt FROM t_department;
ALTER MATERIALIZED VIEW part_dlmv_department SET (dynview.schedule = 'downstream');
ALTER MATERIALIZED VIEW part_dlmv_department SET (dynview.partition_by = 'name');
ALTER MATERIALIZED VIEW part_dlmv_department RESET (dynview.schedule);
SELECT dynview.alter_dynamic_table('part_dlmv_department', schedule => 'downstream');
CREATE MATERIALIZED VIEW bad WITH (dynview.schedule = '1 minute') AS SELECT dept_id FROM t_department;
ALTER MATERIALIZED VIEW bad SET (dynview.retention = 10);
DROP MATERIALIZED VIEW bad;
SELECT count(*) FROM pg_class WHERE relname = 'bad';

-- the issue's function form: create_dynamic_table(..., partition_by => ...) is
-- create_partitioned_dynamic_table; refreshed per value, each partition verified
SELECT dynview.create_dynamic_table('part_fn_department',
  'SELECT dept_id, name, dynview.partition() AS pt FROM t_department', partition_by => 'pt',
  primary_key => '{dept_id}', retention => '1 day');
SELECT c.relkind, p.partition_column, p.retention FROM pg_class c
  JOIN dynview.partitioned_table_catalog p ON p.relid = c.oid WHERE c.relname = 'part_fn_department';
SELECT table_name, refresh_mode FROM dynview.refresh('part_fn_department', partition => '1');
SELECT dynview.verify('part_fn_department_1');
UPDATE t_department SET name = name || '!' WHERE dept_id = (SELECT min(dept_id) FROM t_department);
SELECT table_name, refresh_mode FROM dynview.refresh('part_fn_department', partition => '2');
SELECT dynview.verify('part_fn_department_2');
SELECT pt, count(*) FROM part_fn_department GROUP BY pt ORDER BY pt;   -- both refreshed today: kept
-- the schedule (create_dynamic_table's default, '1 minute') is that of the greatest value's partition
SELECT name, schedule FROM dynview.dynamic_tables WHERE name::text LIKE 'part_fn_department%' ORDER BY 1;
SELECT dynview.alter_dynamic_table('part_fn_department', schedule => '1 hour', refresh_mode => 'full');
SELECT name, schedule, refresh_mode FROM dynview.dynamic_tables WHERE name::text LIKE 'part_fn_department%' ORDER BY 1;
SELECT schedule, refresh_mode FROM dynview.partitioned_table_catalog WHERE relid = 'part_fn_department'::regclass;
SELECT dynview.alter_dynamic_table('part_fn_department', schedule => 'manual', refresh_mode => 'auto');
-- errors: retention without partition_by or not positive, create_or_replace
SELECT dynview.create_dynamic_table('bad', 'SELECT dept_id FROM t_department', retention => '3 days');
SELECT dynview.create_dynamic_table('bad', 'SELECT dept_id, dynview.partition() AS pt FROM t_department', partition_by => 'pt', retention => '-1 hour');
SELECT dynview.create_or_replace_dynamic_table('part_fn_department', 'SELECT dept_id, name, dynview.partition() AS pt FROM t_department', partition_by => 'pt');
-- nor without partition_by, nor one of its partitions (its query is the definition with the
-- value): both change nothing
SELECT dynview.create_or_replace_dynamic_table('part_fn_department', 'SELECT dept_id, name, dynview.partition() AS pt FROM t_department WHERE dept_id > 1001');
SELECT dynview.create_or_replace_dynamic_table('part_fn_department_1', $$SELECT dept_id, name, '1'::text AS pt FROM t_department WHERE dept_id > 1001$$);
SELECT query LIKE '%1001%' AS replaced FROM dynview.dynamic_tables WHERE name = 'part_fn_department_1'::regclass;
SELECT dynview.verify('part_fn_department_1');
SELECT count(*) FROM pg_class WHERE relname = 'bad';
DROP TABLE part_fn_department;

-- (the COPY into the partitioned table marked every partition: 20260527's next refresh is FULL too)
SELECT table_name, refresh_mode, mode_reason_code FROM dynview.refresh('part_dlmv_department', partition => '20260527');
-- OWNER TO passes to the partitions (a refresh runs as its table's owner); RENAME keeps them
CREATE ROLE pdt_owner;
GRANT SELECT ON t_department TO pdt_owner;
ALTER MATERIALIZED VIEW part_dlmv_department OWNER TO pdt_owner;
ALTER MATERIALIZED VIEW part_dlmv_department RENAME TO part_dlmv_dept;
SELECT relname, relowner::regrole FROM pg_class
 WHERE relname LIKE 'part_dlmv_dep%' AND relkind IN ('r', 'p') ORDER BY 1;
UPDATE t_department SET name = 'Human Resources' WHERE dept_id = 1001;
SET ROLE pdt_owner;
SET dynview.partition = '20260527';
REFRESH MATERIALIZED VIEW part_dlmv_dept;
RESET dynview.partition;
RESET ROLE;
SELECT table_name, refresh_mode, mode_reason_code FROM dynview.refresh_history ORDER BY refresh_id DESC LIMIT 1;
SELECT dynview.verify('part_dlmv_department_20260527');
ALTER MATERIALIZED VIEW part_dlmv_dept RENAME TO part_dlmv_department;

-- DROP MATERIALIZED VIEW drops the partitions and the bookkeeping
DROP MATERIALIZED VIEW part_dlmv_department;
REVOKE SELECT ON t_department FROM pdt_owner;
DROP ROLE pdt_owner;
DROP TABLE daily_sales;
SELECT count(*) FROM dynview.dynamic_tables;
SELECT count(*) FROM dynview.partitioned_table_catalog;
DROP TABLE t_department, sales;
