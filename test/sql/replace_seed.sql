-- Seed 000's scenario three (issue 15): CREATE OR REPLACE adding a pass-through column or changing
-- the filter keeps the table and is right at once (the seed leaves a new column NULL until the
-- next change); a column type change fails with the seed's kind of message.
SET client_min_messages = warning;
CREATE TABLE doc_orders (order_id text PRIMARY KEY, user_id text, product_id text, quantity int,
                         unit_price numeric(10,2), amount numeric(10,2), order_time timestamp, status text);
CREATE TABLE doc_products (product_id text PRIMARY KEY, product_name text, category text, brand text);
INSERT INTO doc_products VALUES ('P001', 'earphones', 'digital', 'SoundMax'), ('P002', 'keyboard', 'computer', 'KeyPro'),
  ('P003', 'running shoes', 'sports', 'SpeedRun'), ('P004', 'yoga mat', 'sports', 'FlexFit');
INSERT INTO doc_orders VALUES
  ('O001','U101','P001',2,299.00,598.00,'2026-05-28 16:00:00','completed'), ('O002','U102','P002',1,459.00,459.00,'2026-05-28 16:05:00','completed'),
  ('O003','U103','P003',1,389.00,389.00,'2026-05-28 16:10:00','shipped'), ('O004','U104','P004',2,128.00,256.00,'2026-05-28 16:20:00','completed');
SELECT dynview.create_dynamic_table('doc_dwd_order_detail', $$
  SELECT o.order_id, o.product_id, p.category, o.quantity, o.amount
    FROM doc_orders o JOIN doc_products p ON o.product_id = p.product_id
   WHERE o.status = 'completed'$$, schedule => 'manual', refresh_mode => 'incremental');
SELECT dynview.create_dynamic_table('doc_ads_category_gmv', $$
  SELECT category, count(DISTINCT order_id) AS order_cnt, sum(quantity) AS total_qty, sum(amount) AS gmv,
         CAST(sum(amount) / sum(quantity) AS numeric(10,2)) AS avg_price
    FROM doc_dwd_order_detail GROUP BY category$$, schedule => 'manual', refresh_mode => 'incremental');
SELECT 'doc_dwd_order_detail'::regclass::oid AS dwd_oid \gset

-- a pass-through column: appended, and filled at once, with no new source data
SELECT dynview.create_or_replace_dynamic_table('doc_dwd_order_detail', $$
  SELECT o.order_id, o.product_id, p.category, o.quantity, o.amount, p.brand
    FROM doc_orders o JOIN doc_products p ON o.product_id = p.product_id
   WHERE o.status = 'completed'$$, schedule => 'manual', refresh_mode => 'incremental');
SELECT 'doc_dwd_order_detail'::regclass::oid = :dwd_oid AS same_table;
SELECT order_id, brand FROM doc_dwd_order_detail ORDER BY order_id;
SELECT count(*) FILTER (WHERE brand IS NULL) AS null_brands FROM doc_dwd_order_detail;
SELECT dynview.verify('doc_dwd_order_detail');
SELECT refresh_mode, refresh_trigger, mode_reason_code FROM dynview.refresh_history('doc_dwd_order_detail', 1);
SELECT effective_mode FROM dynview.dynamic_tables WHERE name = 'doc_dwd_order_detail'::regclass;

-- a new filter: right at once; the downstream layer follows at its next refresh
SELECT dynview.create_or_replace_dynamic_table('doc_dwd_order_detail', $$
  SELECT o.order_id, o.product_id, p.category, o.quantity, o.amount, p.brand
    FROM doc_orders o JOIN doc_products p ON o.product_id = p.product_id
   WHERE o.status IN ('completed', 'shipped')$$, schedule => 'manual', refresh_mode => 'incremental');
SELECT order_id FROM doc_dwd_order_detail ORDER BY order_id;
SELECT dynview.verify('doc_dwd_order_detail');
SELECT refresh_mode, refresh_trigger, mode_reason_code FROM dynview.refresh('doc_ads_category_gmv');
SELECT * FROM doc_ads_category_gmv ORDER BY category;
SELECT dynview.verify('doc_ads_category_gmv');

-- then incremental again
INSERT INTO doc_orders VALUES ('O005','U105','P001',1,299.00,299.00,'2026-05-28 17:00:00','shipped');
UPDATE doc_products SET brand = 'SoundMax Pro' WHERE product_id = 'P001';
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('doc_ads_category_gmv');
SELECT table_name, refresh_mode, mode_reason_code FROM dynview.refresh_history ORDER BY refresh_id DESC LIMIT 2;
SELECT order_id, brand FROM doc_dwd_order_detail WHERE product_id = 'P001' ORDER BY order_id;
SELECT dynview.verify('doc_dwd_order_detail'), dynview.verify('doc_ads_category_gmv');

-- a column type change fails, the seed's "cannot replace <col> from type X to Y"; nothing changes
SELECT dynview.create_or_replace_dynamic_table('doc_ads_category_gmv', $$
  SELECT category, count(DISTINCT order_id) AS order_cnt, sum(quantity) AS total_qty, sum(amount) AS gmv,
         sum(amount) / sum(quantity) AS avg_price
    FROM doc_dwd_order_detail GROUP BY category$$, schedule => 'manual');
SELECT query LIKE '%CAST%' AS unchanged FROM dynview.dynamic_tables WHERE name = 'doc_ads_category_gmv'::regclass;
-- an aggregate changed to one of another type (sum of an int is bigint, avg numeric) fails the same way
SELECT dynview.create_or_replace_dynamic_table('doc_ads_category_gmv', $$
  SELECT category, count(DISTINCT order_id) AS order_cnt, avg(quantity) AS total_qty, sum(amount) AS gmv,
         CAST(sum(amount) / sum(quantity) AS numeric(10,2)) AS avg_price
    FROM doc_dwd_order_detail GROUP BY category$$, schedule => 'manual');
SELECT query LIKE '%sum(quantity) AS total_qty%' AS unchanged FROM dynview.dynamic_tables WHERE name = 'doc_ads_category_gmv'::regclass;
-- an aggregate changed with the same type is recomputed at once (the seed needs DROP + CREATE)
SELECT dynview.create_or_replace_dynamic_table('doc_ads_category_gmv', $$
  SELECT category, count(DISTINCT order_id) AS order_cnt, sum(quantity) AS total_qty, max(amount) AS gmv,
         CAST(sum(amount) / sum(quantity) AS numeric(10,2)) AS avg_price
    FROM doc_dwd_order_detail GROUP BY category$$, schedule => 'manual');
SELECT * FROM doc_ads_category_gmv ORDER BY category;
SELECT dynview.verify('doc_ads_category_gmv');

SELECT dynview.drop_dynamic_table('doc_ads_category_gmv');
SELECT dynview.drop_dynamic_table('doc_dwd_order_detail');
DROP TABLE doc_orders, doc_products;
