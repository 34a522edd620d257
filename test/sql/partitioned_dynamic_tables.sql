-- Partitioned dynamic tables (issue 15, seed 001's partitioned view): one partition per value of
-- dynview.partition(), filled or refreshed one at a time; other partitions keep their rows.
SET client_min_messages = warning;
CREATE TABLE t_department (dept_id bigint NOT NULL PRIMARY KEY, name text, description text);
INSERT INTO t_department VALUES (1001, 'HR Department', 'Human Resources'),
  (1002, 'IT Department', 'Information Technology'), (1003, 'Finance Department', 'Financial Management');

-- the seed's statement: PRIMARY KEY(dept_id) BUILD DEFERRED PARTITIONED BY (pt), the value from a setting
CREATE MATERIALIZED VIEW IF NOT EXISTS part_dlmv_department
  WITH (dynview.primary_key = 'dept_id', dynview.partition_by = 'pt', dynview.refresh_mode = 'incremental')
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

-- the function form, a grouped query, and retention (keep the 2 greatest values)
CREATE TABLE sales (sale_id int PRIMARY KEY, region text, amount numeric(10,2));
INSERT INTO sales VALUES (1, 'eu', 10), (2, 'us', 20), (3, 'eu', 30);
SELECT dynview.create_partitioned_dynamic_table('daily_sales',
  'SELECT region, sum(amount) AS total, count(*) AS n, dynview.partition() AS day FROM sales GROUP BY region',
  partition_by => 'day', retention => 2);
SELECT state, refresh_mode, table_name FROM dynview.refresh('daily_sales', partition => '2026-05-26');
INSERT INTO sales VALUES (4, 'us', 5);
SELECT state, refresh_mode, table_name FROM dynview.refresh('daily_sales', partition => '2026-05-27');
UPDATE sales SET amount = amount + 1 WHERE region = 'eu';
SELECT state, refresh_mode, table_name FROM dynview.refresh('daily_sales', partition => '2026-05-28');
-- 2026-05-26 was dropped: two partitions kept
SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
 WHERE i.inhparent = 'daily_sales'::regclass ORDER BY 1;
SELECT day, region, total, n FROM daily_sales ORDER BY day, region;
UPDATE sales SET amount = 0 WHERE sale_id = 2;
SELECT state, refresh_mode, table_name FROM dynview.refresh('daily_sales', partition => '2026-05-28');
SELECT dynview.verify('daily_sales_2026_05_27'), dynview.verify('daily_sales_2026_05_28');
SELECT day, region, total, n FROM daily_sales ORDER BY day, region;

-- a partitioned dynamic table is written by its partitions' refreshes only
INSERT INTO part_dlmv_department VALUES (9, 'x', 'y', '20260526');
TRUNCATE part_dlmv_department;
CREATE TABLE part_extra PARTITION OF part_dlmv_department FOR VALUES IN ('x');
ALTER TABLE part_dlmv_department ADD COLUMN extra int;

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
SELECT dynview.create_partitioned_dynamic_table('bad', 'SELECT dept_id, name AS pt FROM t_department', partition_by => 'pt');
SELECT dynview.create_partitioned_dynamic_table('bad', 'SELECT dept_id FROM t_department', partition_by => 'pt');
SELECT dynview.create_partitioned_dynamic_table('bad', 'SELECT dept_id, dynview.partition() AS pt FROM t_department', partition_by => 'pt', retention => 0);
SELECT dynview.create_partitioned_dynamic_table('bad', 'SELECT dept_id, dynview.partition() AS pt FROM t_department', partition_by => 'pt', primary_key => '{nope}');
CREATE MATERIALIZED VIEW bad WITH (dynview.retention = 3) AS SELECT dept_id FROM t_department;
CREATE MATERIALIZED VIEW bad WITH (dynview.partition_by = 'pt', dynview.retention = 'many') AS SELECT dept_id, dynview.partition() AS pt FROM t_department;
ALTER MATERIALIZED VIEW part_dlmv_department SET (dynview.schedule = '1 minute');
CREATE MATERIALIZED VIEW bad WITH (dynview.partition_by = 'pt', dynview.schedule = '1 minute') AS SELECT dept_id, dynview.partition() AS pt FROM t_department;
SELECT count(*) FROM pg_class WHERE relname = 'bad';

-- the issue's function form: create_dynamic_table(..., partition_by => ...) is
-- create_partitioned_dynamic_table; refreshed per value, each partition verified
SELECT dynview.create_dynamic_table('part_fn_department',
  'SELECT dept_id, name, dynview.partition() AS pt FROM t_department', partition_by => 'pt',
  primary_key => '{dept_id}', retention => 1);
SELECT c.relkind, p.partition_column, p.retention FROM pg_class c
  JOIN dynview.partitioned_table_catalog p ON p.relid = c.oid WHERE c.relname = 'part_fn_department';
SELECT table_name, refresh_mode FROM dynview.refresh('part_fn_department', partition => '1');
SELECT dynview.verify('part_fn_department_1');
UPDATE t_department SET name = name || '!' WHERE dept_id = (SELECT min(dept_id) FROM t_department);
SELECT table_name, refresh_mode FROM dynview.refresh('part_fn_department', partition => '2');
SELECT dynview.verify('part_fn_department_2');
SELECT pt, count(*) FROM part_fn_department GROUP BY pt ORDER BY pt;   -- retention 1: only '2'
-- errors: a schedule, retention without partition_by or below 1, create_or_replace
SELECT dynview.create_dynamic_table('bad', 'SELECT dept_id, dynview.partition() AS pt FROM t_department', schedule => '5 minutes', partition_by => 'pt');
SELECT dynview.create_dynamic_table('bad', 'SELECT dept_id FROM t_department', retention => 3);
SELECT dynview.create_dynamic_table('bad', 'SELECT dept_id, dynview.partition() AS pt FROM t_department', partition_by => 'pt', retention => 0);
SELECT dynview.create_or_replace_dynamic_table('part_fn_department', 'SELECT dept_id, name, dynview.partition() AS pt FROM t_department', partition_by => 'pt');
SELECT count(*) FROM pg_class WHERE relname = 'bad';
DROP TABLE part_fn_department;

-- DROP MATERIALIZED VIEW drops the partitions and the bookkeeping
DROP MATERIALIZED VIEW part_dlmv_department;
DROP TABLE daily_sales;
SELECT count(*) FROM dynview.dynamic_tables;
SELECT count(*) FROM dynview.partitioned_table_catalog;
DROP TABLE t_department, sales;
