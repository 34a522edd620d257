-- Materialized-view DDL for dynamic tables (issue 15): CREATE MATERIALIZED VIEW ... WITH (dynview.*),
-- REFRESH, ALTER, DROP MATERIALIZED VIEW; both seeds' flows in these statements.
SET client_min_messages = warning;

-- Seed 000, the three-layer sales dashboard, created with CREATE MATERIALIZED VIEW
CREATE TABLE doc_orders (order_id text PRIMARY KEY, user_id text, product_id text, quantity int,
                         unit_price numeric(10,2), amount numeric(10,2), order_time timestamp, status text);
CREATE TABLE doc_products (product_id text PRIMARY KEY, product_name text, category text, brand text);
INSERT INTO doc_products VALUES ('P001', '无线蓝牙耳机', '数码配件', 'SoundMax'), ('P002', '机械键盘', '电脑外设', 'KeyPro'),
  ('P003', '运动跑鞋', '运动户外', 'SpeedRun'), ('P004', '瑜伽垫', '运动户外', 'FlexFit'), ('P005', '保温杯', '家居生活', 'ThermoKeep'),
  ('P006', 'USB-C 充电器', '数码配件', 'ChargeFast'), ('P007', '笔记本支架', '电脑外设', 'DeskPro'), ('P008', '跳绳', '运动户外', 'JumpFit');
INSERT INTO doc_orders VALUES
  ('O001','U101','P001',2,299.00,598.00, CAST('2026-05-28 16:00:00' AS TIMESTAMP),'completed'), ('O002','U102','P002',1,459.00,459.00, CAST('2026-05-28 16:05:00' AS TIMESTAMP),'completed'),
  ('O003','U103','P003',1,389.00,389.00, CAST('2026-05-28 16:10:00' AS TIMESTAMP),'completed'), ('O004','U104','P001',1,299.00,299.00, CAST('2026-05-28 16:15:00' AS TIMESTAMP),'completed'),
  ('O005','U105','P004',2,128.00,256.00, CAST('2026-05-28 16:20:00' AS TIMESTAMP),'completed'), ('O006','U106','P005',3, 89.00,267.00, CAST('2026-05-28 16:25:00' AS TIMESTAMP),'completed'),
  ('O007','U107','P006',2,129.00,258.00, CAST('2026-05-28 16:30:00' AS TIMESTAMP),'completed'), ('O008','U108','P003',2,389.00,778.00, CAST('2026-05-28 16:35:00' AS TIMESTAMP),'completed'),
  ('O009','U109','P007',1,199.00,199.00, CAST('2026-05-28 16:40:00' AS TIMESTAMP),'completed'), ('O010','U110','P008',3, 49.00,147.00, CAST('2026-05-28 16:45:00' AS TIMESTAMP),'completed');

CREATE MATERIALIZED VIEW doc_dwd_order_detail WITH (dynview.schedule = '1 minute') AS SELECT o.order_id, o.user_id, o.product_id, p.product_name, p.category, p.brand, o.quantity, o.unit_price, o.amount, o.order_time, o.status FROM doc_orders o JOIN doc_products p ON o.product_id = p.product_id WHERE o.status = 'completed';
CREATE MATERIALIZED VIEW doc_ads_category_gmv WITH (dynview.schedule = '1 minute') AS SELECT category, COUNT(DISTINCT order_id) AS order_cnt, SUM(quantity) AS total_qty, SUM(amount) AS gmv, CAST(SUM(amount) / SUM(quantity) AS DECIMAL(10,2)) AS avg_price FROM doc_dwd_order_detail GROUP BY category;
CREATE MATERIALIZED VIEW doc_ads_category_rank WITH (dynview.schedule = '1 minute') AS SELECT RANK() OVER (ORDER BY gmv DESC) AS gmv_rank, category, order_cnt, total_qty, gmv, avg_price FROM doc_ads_category_gmv;

SELECT * FROM doc_ads_category_rank ORDER BY gmv_rank;
SELECT dynview.verify('doc_dwd_order_detail'), dynview.verify('doc_ads_category_gmv'), dynview.verify('doc_ads_category_rank');
-- dynamic tables, with the query as written (the text after AS) and the schedule given
SELECT name, schedule, refresh_mode, upstreams FROM dynview.dynamic_tables ORDER BY name::text;
SELECT query FROM dynview.dynamic_tables WHERE name = 'doc_ads_category_rank'::regclass;
-- ordinary tables, which pg_dump dumps as CREATE TABLE with their rows
SELECT relname, relkind FROM pg_class WHERE relname LIKE 'doc_%' AND relkind IN ('r', 'm') ORDER BY relname;

-- the second batch of orders; REFRESH MATERIALIZED VIEW refreshes the upstream layers first
INSERT INTO doc_orders VALUES ('O011','U111','P005',2, 89.00,178.00, CAST('2026-05-28 17:00:00' AS TIMESTAMP),'completed'), ('O012','U112','P006',3,129.00,387.00, CAST('2026-05-28 17:02:00' AS TIMESTAMP),'completed'), ('O013','U113','P001',1,299.00,299.00, CAST('2026-05-28 17:05:00' AS TIMESTAMP),'completed'), ('O014','U114','P004',1,128.00,128.00, CAST('2026-05-28 17:08:00' AS TIMESTAMP),'completed'), ('O015','U115','P002',2,459.00,918.00, CAST('2026-05-28 17:10:00' AS TIMESTAMP),'completed');
REFRESH MATERIALIZED VIEW doc_ads_category_rank;
SELECT * FROM doc_ads_category_rank ORDER BY gmv_rank;
SELECT dynview.verify('doc_dwd_order_detail'), dynview.verify('doc_ads_category_gmv'), dynview.verify('doc_ads_category_rank');
SELECT table_name, state, refresh_mode, refresh_trigger, rows_inserted, rows_deleted
  FROM dynview.refresh_history ORDER BY refresh_id DESC LIMIT 3;

-- dropping the detail layer keeps the GMV layer's data; its refreshes record NO_DATA
DROP MATERIALIZED VIEW IF EXISTS doc_dwd_order_detail;
REFRESH MATERIALIZED VIEW CONCURRENTLY doc_ads_category_gmv;
SELECT table_name, state, refresh_mode, mode_reason_code FROM dynview.refresh_history ORDER BY refresh_id DESC LIMIT 1;
SELECT count(*) AS gmv_rows FROM doc_ads_category_gmv;
DROP MATERIALIZED VIEW IF EXISTS doc_ads_category_rank;
DROP MATERIALIZED VIEW IF EXISTS doc_ads_category_gmv;
SELECT count(*) FROM dynview.dynamic_tables;

-- Seed 001, the department view: incremental, INSERT/UPDATE/DELETE, then a manual refresh
CREATE TABLE t_department (dept_id bigint NOT NULL PRIMARY KEY, name text, description text);
INSERT INTO t_department SELECT * FROM (VALUES (1001, 'HR Department', 'Human Resources'), (1002, 'IT Department', 'Information Technology'), (1003, 'Finance Department', 'Financial Management')) AS t (dept_id, name, description);
CREATE MATERIALIZED VIEW IF NOT EXISTS dlmv_department
WITH (dynview.refresh_mode = 'incremental', dynview.schedule = 'manual')
AS SELECT * FROM t_department;
SELECT * FROM dlmv_department ORDER BY dept_id;
SELECT dynview.verify('dlmv_department');
INSERT INTO t_department VALUES (1004, 'Marketing', 'Marketing Department');
UPDATE t_department SET description = 'HR and Admin' WHERE dept_id = 1001;
DELETE FROM t_department WHERE dept_id = 1003;
REFRESH MATERIALIZED VIEW dlmv_department;   -- the seed's ALTER MATERIALIZED VIEW ... REBUILD
SELECT * FROM dlmv_department ORDER BY dept_id;
SELECT dynview.verify('dlmv_department');
SELECT refresh_trigger, refresh_mode, state, rows_inserted, rows_deleted FROM dynview.refresh_history('dlmv_department');
-- IF NOT EXISTS on an existing name does nothing
SET client_min_messages = notice;
CREATE MATERIALIZED VIEW IF NOT EXISTS dlmv_department WITH (dynview.refresh_mode = 'full') AS SELECT 1 AS x;
SET client_min_messages = warning;
SELECT refresh_mode, effective_mode FROM dynview.dynamic_tables WHERE name = 'dlmv_department'::regclass;

-- WITH NO DATA (the seed's BUILD DEFERRED) with a declared primary key; the query's text as written.
-- (created and counted in one transaction: a table never built is due at once, and the scheduler
-- may build it between two statements)
BEGIN;
CREATE MATERIALIZED VIEW dept_names WITH (dynview.primary_key = 'dept_id', dynview.schedule = '5 minutes')
  AS WITH d AS (SELECT dept_id, name AS "AS" FROM t_department) SELECT * FROM d WITH NO DATA;
SELECT count(*) FROM dept_names;
COMMIT;
SELECT query, schedule FROM dynview.dynamic_tables WHERE name = 'dept_names'::regclass;
SELECT indexdef FROM pg_indexes WHERE tablename = 'dept_names';
REFRESH MATERIALIZED VIEW dept_names;
SELECT * FROM dept_names ORDER BY dept_id;
SELECT dynview.verify('dept_names');
CREATE MATERIALIZED VIEW dept_count WITH (dynview.schedule = 'manual') AS SELECT count(*) AS n FROM t_department WITH DATA;
SELECT n, dynview.verify('dept_count') FROM dept_count;

-- ALTER MATERIALIZED VIEW: SET (dynview.*), RENAME, OWNER TO, SET SCHEMA; ALTER TABLE SET (dynview.*)
ALTER MATERIALIZED VIEW dept_names SET (dynview.schedule = '10 minutes', dynview.refresh_mode = 'full');
SELECT schedule, refresh_mode, effective_mode FROM dynview.dynamic_tables WHERE name = 'dept_names'::regclass;
ALTER TABLE dept_names SET (dynview.refresh_mode = 'auto', fillfactor = 90);
SELECT schedule, refresh_mode, effective_mode FROM dynview.dynamic_tables WHERE name = 'dept_names'::regclass;
SELECT reloptions FROM pg_class WHERE oid = 'dept_names'::regclass;
ALTER MATERIALIZED VIEW dept_names RENAME TO dept_names2;
CREATE SCHEMA mv_other;
ALTER MATERIALIZED VIEW dept_names2 SET SCHEMA mv_other;
CREATE ROLE mv_ddl_owner;
GRANT SELECT ON t_department TO mv_ddl_owner;
GRANT USAGE ON SCHEMA mv_other TO mv_ddl_owner;
ALTER MATERIALIZED VIEW mv_other.dept_names2 OWNER TO mv_ddl_owner;
SELECT name, pg_get_userbyid(relowner) FROM dynview.dynamic_tables JOIN pg_class ON oid = name::oid
 WHERE name = 'mv_other.dept_names2'::regclass;
UPDATE t_department SET name = 'Human Resources' WHERE dept_id = 1001;
REFRESH MATERIALIZED VIEW mv_other.dept_names2;
SELECT * FROM mv_other.dept_names2 ORDER BY dept_id;
SELECT dynview.verify('mv_other.dept_names2');

-- errors, as the functions give them; nothing is created or changed
CREATE MATERIALIZED VIEW bad WITH (dynview.refresh_mode = 'sometimes') AS SELECT * FROM t_department;
CREATE MATERIALIZED VIEW bad WITH (dynview.schedule = '1 millisecond') AS SELECT * FROM t_department;
CREATE MATERIALIZED VIEW bad WITH (dynview.colour = 'red') AS SELECT * FROM t_department;
CREATE MATERIALIZED VIEW bad WITH (dynview.primary_key = 'nope') AS SELECT * FROM t_department;
CREATE MATERIALIZED VIEW bad WITH (dynview.primary_key = '"unclosed') AS SELECT * FROM t_department;
CREATE MATERIALIZED VIEW bad WITH (dynview.refresh_mode = 'incremental') AS SELECT dept_id, random() AS r FROM t_department;
CREATE MATERIALIZED VIEW bad (a, b, c) WITH (dynview.schedule = 'manual') AS SELECT * FROM t_department;
CREATE MATERIALIZED VIEW bad WITH (dynview.schedule = 'manual', fillfactor = 50) AS SELECT * FROM t_department;
CREATE MATERIALIZED VIEW bad WITH (dynview.schedule = 'manual') TABLESPACE pg_default AS SELECT * FROM t_department;
CREATE UNLOGGED MATERIALIZED VIEW bad WITH (dynview.schedule = 'manual') AS SELECT * FROM t_department;
CREATE MATERIALIZED VIEW dlmv_department WITH (dynview.schedule = 'manual') AS SELECT * FROM t_department;
CREATE MATERIALIZED VIEW t_department WITH (dynview.schedule = 'manual') AS SELECT 1 AS x;
ALTER MATERIALIZED VIEW dlmv_department SET (dynview.schedule = 'often');
ALTER MATERIALIZED VIEW dlmv_department RESET (dynview.schedule);
ALTER MATERIALIZED VIEW dlmv_department SET (dynview.primary_key = 'dept_id');
ALTER MATERIALIZED VIEW dlmv_department RENAME COLUMN name TO dept_name;
REFRESH MATERIALIZED VIEW dlmv_department WITH NO DATA;
SELECT count(*) FROM dlmv_department;
SELECT name FROM dynview.dynamic_tables ORDER BY name::text;
-- only the owner alters or refreshes; the statement fails as a whole
SET ROLE mv_ddl_owner;
REFRESH MATERIALIZED VIEW dlmv_department;
ALTER MATERIALIZED VIEW dlmv_department SET (dynview.schedule = '1 hour');
DROP MATERIALIZED VIEW dlmv_department;
RESET ROLE;
SELECT schedule FROM dynview.dynamic_tables WHERE name = 'dlmv_department'::regclass;

-- materialized views without dynview.* options are PostgreSQL's own
CREATE MATERIALIZED VIEW plain_mv AS SELECT dept_id FROM t_department WITH NO DATA;
REFRESH MATERIALIZED VIEW plain_mv;
SELECT count(*) FROM plain_mv;
ALTER MATERIALIZED VIEW plain_mv RENAME TO plain_mv2;
ALTER MATERIALIZED VIEW plain_mv2 SET (dynview.schedule = '1 minute');
SELECT relkind, count(*) FROM pg_class WHERE relname = 'plain_mv2' GROUP BY relkind;

-- DROP MATERIALIZED VIEW of a dynamic table and a materialized view together; CASCADE drops a view on it
CREATE VIEW dept_view AS SELECT * FROM dlmv_department;
DROP MATERIALIZED VIEW dlmv_department;
DROP MATERIALIZED VIEW IF EXISTS dlmv_department, plain_mv2, no_such_view CASCADE;
SELECT count(*) AS views FROM pg_class WHERE relname IN ('dept_view', 'plain_mv2', 'dlmv_department');
DROP MATERIALIZED VIEW mv_other.dept_names2, dept_count;
SELECT count(*) FROM dynview.dynamic_tables;
DROP TABLE doc_orders, doc_products, t_department;
DROP SCHEMA mv_other;
DROP ROLE mv_ddl_owner;
