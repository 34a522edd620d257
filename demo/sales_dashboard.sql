-- The sales dashboard of design section 9, and the department table of section 10.
-- Run by scripts/demo.sh into a fresh database; prints each step.
\set ECHO none
\set QUIET on
\pset footer off
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS dynview;

\echo
\echo '== Sources: 8 products, orders O001-O010'
CREATE TABLE doc_orders (order_id text PRIMARY KEY, user_id text, product_id text, quantity int,
                         unit_price numeric(10,2), amount numeric(10,2), order_time timestamp, status text);
CREATE TABLE doc_products (product_id text PRIMARY KEY, product_name text, category text, brand text);
INSERT INTO doc_products VALUES ('P001', '无线蓝牙耳机', '数码配件', 'SoundMax'), ('P002', '机械键盘', '电脑外设', 'KeyPro'),
  ('P003', '运动跑鞋', '运动户外', 'SpeedRun'), ('P004', '瑜伽垫', '运动户外', 'FlexFit'), ('P005', '保温杯', '家居生活', 'ThermoKeep'),
  ('P006', 'USB-C 充电器', '数码配件', 'ChargeFast'), ('P007', '笔记本支架', '电脑外设', 'DeskPro'), ('P008', '跳绳', '运动户外', 'JumpFit');
INSERT INTO doc_orders VALUES
  ('O001','U101','P001',2,299.00,598.00,'2026-05-28 16:00:00','completed'), ('O002','U102','P002',1,459.00,459.00,'2026-05-28 16:05:00','completed'),
  ('O003','U103','P003',1,389.00,389.00,'2026-05-28 16:10:00','completed'), ('O004','U104','P001',1,299.00,299.00,'2026-05-28 16:15:00','completed'),
  ('O005','U105','P004',2,128.00,256.00,'2026-05-28 16:20:00','completed'), ('O006','U106','P005',3, 89.00,267.00,'2026-05-28 16:25:00','completed'),
  ('O007','U107','P006',2,129.00,258.00,'2026-05-28 16:30:00','completed'), ('O008','U108','P003',2,389.00,778.00,'2026-05-28 16:35:00','completed'),
  ('O009','U109','P007',1,199.00,199.00,'2026-05-28 16:40:00','completed'), ('O010','U110','P008',3, 49.00,147.00,'2026-05-28 16:45:00','completed');

\echo '== Three dynamic tables, each refreshed every minute'
SELECT dynview.create_dynamic_table('doc_dwd_order_detail', $$
  SELECT o.order_id, o.user_id, o.product_id, p.product_name, p.category, p.brand, o.quantity,
         o.unit_price, o.amount, o.order_time, o.status
    FROM doc_orders o JOIN doc_products p ON o.product_id = p.product_id
   WHERE o.status = 'completed'$$, schedule => '1 minute') AS created;
SELECT dynview.create_dynamic_table('doc_ads_category_gmv', $$
  SELECT category, count(DISTINCT order_id) AS order_cnt, sum(quantity) AS total_qty, sum(amount) AS gmv,
         CAST(sum(amount) / sum(quantity) AS numeric(10,2)) AS avg_price
    FROM doc_dwd_order_detail GROUP BY category$$, schedule => '1 minute') AS created;
SELECT dynview.create_dynamic_table('doc_ads_category_rank', $$
  SELECT rank() OVER (ORDER BY gmv DESC) AS gmv_rank, category, order_cnt, total_qty, gmv, avg_price
    FROM doc_ads_category_gmv$$, schedule => '1 minute') AS created;

\echo '== The ranking after creation'
SELECT * FROM doc_ads_category_rank ORDER BY gmv_rank;

\echo '== Orders O011-O015 arrive'
INSERT INTO doc_orders VALUES
  ('O011','U111','P005',2, 89.00,178.00,'2026-05-28 17:00:00','completed'), ('O012','U112','P006',3,129.00,387.00,'2026-05-28 17:02:00','completed'),
  ('O013','U113','P001',1,299.00,299.00,'2026-05-28 17:05:00','completed'), ('O014','U114','P004',1,128.00,128.00,'2026-05-28 17:08:00','completed'),
  ('O015','U115','P002',2,459.00,918.00,'2026-05-28 17:10:00','completed');

\echo '== No manual refresh: dynview''s scheduler refreshes the pipeline within its 1-minute schedule'
\echo '   (waiting for it, at most 2 minutes)'
SELECT set_config('dynview_demo.after', pg_current_snapshot()::text, false) \g /dev/null
DO $$
BEGIN
  FOR i IN 1..1200 LOOP
    EXIT WHEN EXISTS (SELECT 1 FROM dynview.refresh_history
                       WHERE table_name = 'doc_ads_category_rank' AND refresh_trigger = 'SYSTEM_SCHEDULED'
                         AND pg_snapshot_xmax(data_snapshot) >= pg_snapshot_xmax(current_setting('dynview_demo.after')::pg_snapshot));
    PERFORM pg_sleep(0.1);
  END LOOP;
END $$;

\echo '== The ranking after the second batch'
SELECT * FROM doc_ads_category_rank ORDER BY gmv_rank;

\echo '== Refresh history'
SELECT refresh_id, table_name, state, refresh_mode, refresh_trigger, rows_inserted, rows_deleted,
       round(duration_ms::numeric, 2) AS ms, mode_reason_code
  FROM dynview.refresh_history ORDER BY refresh_id;

\echo '== Every layer equals its query recomputed from scratch'
SELECT name, dynview.verify(name::text) AS verified FROM dynview.dynamic_tables ORDER BY name::text;

\echo
\echo '== Scenario B: a primary-key source with INSERT, UPDATE and DELETE'
CREATE TABLE t_department (dept_id bigint PRIMARY KEY, name text, description text);
INSERT INTO t_department VALUES (1001, 'HR', 'Human Resources'), (1002, 'IT', 'Information Technology'),
                                (1003, 'Finance', 'Finance and Accounting');
SELECT dynview.create_dynamic_table('dlmv_department', 'SELECT * FROM t_department') AS created;
SELECT * FROM dlmv_department ORDER BY dept_id;
INSERT INTO t_department VALUES (1004, 'Marketing', 'Brand and Growth');
UPDATE t_department SET description = 'HR and Admin' WHERE dept_id = 1001;
DELETE FROM t_department WHERE dept_id = 1003;
SELECT state, refresh_mode, refresh_trigger, rows_inserted, rows_deleted FROM dynview.refresh('dlmv_department');
SELECT * FROM dlmv_department ORDER BY dept_id;
SELECT dynview.verify('dlmv_department') AS verified;
