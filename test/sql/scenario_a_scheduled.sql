-- Scenario A (design section 9) kept fresh by the scheduler alone: schedules of 1 second, no
-- manual refresh.  Bounded polls, then the results are shown.
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
   WHERE o.status = 'completed'$$, schedule => '1 second') IS NOT NULL AS created;
SELECT dynview.create_dynamic_table('doc_ads_category_gmv', $$
  SELECT category, count(DISTINCT order_id) AS order_cnt, sum(quantity) AS total_qty, sum(amount) AS gmv,
         CAST(sum(amount) / sum(quantity) AS numeric(10,2)) AS avg_price
    FROM doc_dwd_order_detail GROUP BY category$$, schedule => '1 second') IS NOT NULL AS created;
SELECT dynview.create_dynamic_table('doc_ads_category_rank', $$
  SELECT rank() OVER (ORDER BY gmv DESC) AS gmv_rank, category, order_cnt, total_qty, gmv, avg_price
    FROM doc_ads_category_gmv$$, schedule => '1 second') IS NOT NULL AS created;
SELECT * FROM doc_ads_category_rank ORDER BY gmv_rank;

SELECT max(refresh_id) AS before_batch FROM dynview.refresh_history \gset
INSERT INTO doc_orders VALUES
  ('O011','U111','P005',2, 89.00,178.00,'2026-05-28 17:00:00','completed'), ('O012','U112','P006',3,129.00,387.00,'2026-05-28 17:02:00','completed'),
  ('O013','U113','P001',1,299.00,299.00,'2026-05-28 17:05:00','completed'), ('O014','U114','P004',1,128.00,128.00,'2026-05-28 17:08:00','completed'),
  ('O015','U115','P002',2,459.00,918.00,'2026-05-28 17:10:00','completed');
-- wait (at most 60 s) for the scheduler; nobody refreshes by hand
DO $$
BEGIN
  FOR i IN 1..600 LOOP
    EXIT WHEN EXISTS (SELECT 1 FROM doc_ads_category_rank WHERE category = '数码配件' AND gmv_rank = 1);
    PERFORM pg_sleep(0.1);
  END LOOP;
END $$;
SELECT * FROM doc_ads_category_rank ORDER BY gmv_rank;
-- the pipeline that brought the batch: three layers, one data snapshot, detail and GMV INCREMENTAL
SELECT table_name, refresh_trigger, refresh_mode, mode_reason_code
  FROM dynview.refresh_history
 WHERE refresh_id > :before_batch AND refresh_mode <> 'NO_DATA'
   AND data_snapshot::text = (SELECT data_snapshot::text FROM dynview.refresh_history
                         WHERE refresh_id > :before_batch AND table_name = 'doc_ads_category_rank'
                           AND rows_inserted > 0 ORDER BY refresh_id LIMIT 1)
 ORDER BY refresh_id;
SELECT dynview.verify('doc_dwd_order_detail'), dynview.verify('doc_ads_category_gmv'), dynview.verify('doc_ads_category_rank');
SELECT dynview.wait_fresh('doc_ads_category_rank', '30 seconds') AS fresh;
SELECT dynview.alter_dynamic_table(t, schedule => 'manual')
  FROM unnest(ARRAY['doc_ads_category_rank', 'doc_ads_category_gmv', 'doc_dwd_order_detail']) t;
SELECT dynview.drop_dynamic_table('doc_ads_category_rank');
SELECT dynview.drop_dynamic_table('doc_ads_category_gmv');
SELECT dynview.drop_dynamic_table('doc_dwd_order_detail');
DROP TABLE doc_orders, doc_products;
