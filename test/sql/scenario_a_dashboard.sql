-- Scenario A (design section 9): the three-layer sales dashboard, refreshed by hand.
SET client_min_messages = warning;
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

SELECT dynview.create_dynamic_table('doc_dwd_order_detail', $$
  SELECT o.order_id, o.user_id, o.product_id, p.product_name, p.category, p.brand, o.quantity,
         o.unit_price, o.amount, o.order_time, o.status
    FROM doc_orders o JOIN doc_products p ON o.product_id = p.product_id
   WHERE o.status = 'completed'$$, schedule => '1 minute');
SELECT dynview.create_dynamic_table('doc_ads_category_gmv', $$
  SELECT category, count(DISTINCT order_id) AS order_cnt, sum(quantity) AS total_qty, sum(amount) AS gmv,
         CAST(sum(amount) / sum(quantity) AS numeric(10,2)) AS avg_price
    FROM doc_dwd_order_detail GROUP BY category$$, schedule => '1 minute');
SELECT dynview.create_dynamic_table('doc_ads_category_rank', $$
  SELECT rank() OVER (ORDER BY gmv DESC) AS gmv_rank, category, order_cnt, total_qty, gmv, avg_price
    FROM doc_ads_category_gmv$$, schedule => '1 minute');

SELECT * FROM doc_ads_category_rank ORDER BY gmv_rank;
SELECT name, upstreams FROM dynview.dynamic_tables ORDER BY name::text;
SELECT upstream, downstream FROM dynview.dependencies ORDER BY upstream::text, downstream::text;

-- the second batch of orders
INSERT INTO doc_orders VALUES
  ('O011','U111','P005',2, 89.00,178.00,'2026-05-28 17:00:00','completed'), ('O012','U112','P006',3,129.00,387.00,'2026-05-28 17:02:00','completed'),
  ('O013','U113','P001',1,299.00,299.00,'2026-05-28 17:05:00','completed'), ('O014','U114','P004',1,128.00,128.00,'2026-05-28 17:08:00','completed'),
  ('O015','U115','P002',2,459.00,918.00,'2026-05-28 17:10:00','completed');
-- refreshing the top layer refreshes its upstreams first, in one transaction at one snapshot
SELECT state, refresh_trigger FROM dynview.refresh('doc_ads_category_rank');
SELECT * FROM doc_ads_category_rank ORDER BY gmv_rank;
SELECT dynview.verify('doc_dwd_order_detail'), dynview.verify('doc_ads_category_gmv'), dynview.verify('doc_ads_category_rank');
SELECT table_name, state, refresh_mode, refresh_trigger, rows_inserted, rows_deleted
  FROM dynview.refresh_history ORDER BY refresh_id;
-- the three layers of one pipeline share one data snapshot
SELECT count(*) AS layers, count(DISTINCT data_snapshot::text) AS snapshots
  FROM (SELECT data_snapshot FROM dynview.refresh_history ORDER BY refresh_id DESC LIMIT 3) h;

-- dropping the detail layer keeps the GMV layer's data; its refreshes record NO_DATA
SELECT dynview.drop_dynamic_table('doc_dwd_order_detail');
SELECT state, refresh_mode, mode_reason_code FROM dynview.refresh('doc_ads_category_gmv');
SELECT count(*) AS gmv_rows FROM doc_ads_category_gmv;
SELECT * FROM doc_ads_category_rank ORDER BY gmv_rank;
SELECT name, sources FROM dynview.dynamic_tables ORDER BY name::text;

-- recreating it resumes: FULL with UPSTREAM_RECREATED
SELECT dynview.create_dynamic_table('doc_dwd_order_detail', $$
  SELECT o.order_id, o.user_id, o.product_id, p.product_name, p.category, p.brand, o.quantity,
         o.unit_price, o.amount, o.order_time, o.status
    FROM doc_orders o JOIN doc_products p ON o.product_id = p.product_id
   WHERE o.status = 'completed'$$, schedule => '1 minute');
DELETE FROM doc_orders WHERE order_id = 'O015';
SELECT state FROM dynview.refresh('doc_ads_category_rank');
SELECT table_name, state, refresh_mode, refresh_trigger, mode_reason_code
  FROM dynview.refresh_history ORDER BY refresh_id DESC LIMIT 3;
SELECT * FROM doc_ads_category_rank ORDER BY gmv_rank;
SELECT dynview.verify('doc_dwd_order_detail'), dynview.verify('doc_ads_category_gmv'), dynview.verify('doc_ads_category_rank');

-- cleanup drops everything
SELECT dynview.drop_dynamic_table('doc_ads_category_rank');
SELECT dynview.drop_dynamic_table('doc_ads_category_gmv');
SELECT dynview.drop_dynamic_table('doc_dwd_order_detail');
DROP TABLE doc_orders, doc_products;
SELECT count(*) FROM dynview.dynamic_tables;
SELECT count(*) FROM dynview.refresh_history;
