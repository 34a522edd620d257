-- A new user's pass over the operators of issue 13.
-- 1. Top-N with OFFSET: the table holds LIMIT rows (those after the OFFSET); a change that sorts
--    after its last row changes nothing and must not recompute it (every change was FULL
--    TOP_N_CHANGED: the table was compared with row LIMIT + OFFSET, which it never holds).
-- 2. explain()'s operator tree names columns as the query does and shows the grouping steps.
SET client_min_messages = warning;
SELECT dynview.wait_for_capture();

CREATE TABLE uo_orders (order_id int PRIMARY KEY, customer_id int, amount numeric(10,2));
CREATE TABLE uo_customers (customer_id int PRIMARY KEY, region text);
INSERT INTO uo_orders SELECT i, 1 + i % 7, (i * 37) % 100 + 0.5 FROM generate_series(1, 60) i;
INSERT INTO uo_customers SELECT i, CASE WHEN i % 2 = 0 THEN 'north' ELSE 'south' END FROM generate_series(1, 8) i;

SELECT dynview.create_dynamic_table('uo_page2',
  'SELECT order_id, amount FROM uo_orders ORDER BY amount DESC, order_id LIMIT 5 OFFSET 5',
  schedule => 'manual', refresh_mode => 'incremental');
SELECT value FROM dynview.explain_dynamic_table('uo_page2') WHERE property = 'operator tree';

-- a row that sorts after the table's last row: nothing to do
INSERT INTO uo_orders VALUES (100, 1, 0.25);
SELECT refresh_mode, mode_reason_code, rows_inserted, rows_deleted FROM dynview.refresh('uo_page2');
SELECT dynview.verify('uo_page2');
-- a row that sorts before the table's first row shifts the page: recomputed
UPDATE uo_orders SET amount = 500 WHERE order_id = 100;
SELECT refresh_mode, mode_reason_code, rows_inserted, rows_deleted FROM dynview.refresh('uo_page2');
SELECT dynview.verify('uo_page2');
SELECT order_id, amount FROM uo_page2 ORDER BY amount DESC, order_id;
-- fewer rows than the LIMIT after the OFFSET: every change reaches the table, and the reason says so
DELETE FROM uo_orders WHERE order_id > 8;
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('uo_page2');
SELECT dynview.verify('uo_page2');
INSERT INTO uo_orders VALUES (101, 1, 0.10);
SELECT refresh_mode, mode_reason_code, mode_reason FROM dynview.refresh('uo_page2');
SELECT dynview.verify('uo_page2');

-- explain: names of the query, a grouped subquery by its alias and keys, top-N over GROUP BY,
-- ROLLUP as a branch per grouping set
SELECT property, value FROM dynview.explain($$
  SELECT c.region, t.total FROM uo_customers c
    LEFT JOIN (SELECT customer_id, sum(amount) AS total FROM uo_orders GROUP BY customer_id) t
      ON t.customer_id = c.customer_id
   WHERE NOT EXISTS (SELECT 1 FROM uo_orders o WHERE o.customer_id = c.customer_id AND o.amount > 99)$$)
 WHERE property IN ('mode', 'operator', 'operator tree');
SELECT value FROM dynview.explain($$
  SELECT c.customer_id, sum(o.amount) AS total FROM uo_customers c JOIN uo_orders o ON o.customer_id = c.customer_id
   GROUP BY c.customer_id ORDER BY total DESC, c.customer_id LIMIT 3$$)
 WHERE property = 'operator tree';
SELECT property, value FROM dynview.explain($$
  SELECT c.region, o.customer_id, count(*) AS n FROM uo_orders o JOIN uo_customers c USING (customer_id)
   GROUP BY ROLLUP (c.region, o.customer_id)$$)
 WHERE property IN ('operator', 'operator tree');
SELECT value FROM dynview.explain($$
  SELECT o.order_id FROM uo_orders o WHERE o.amount > (SELECT avg(o2.amount) FROM uo_orders o2 WHERE o2.customer_id = o.customer_id)$$)
 WHERE property = 'operator tree';

-- a correlated IN over a grouped subquery is no operator (it reads the row it is tested for):
-- FULL, SUBQUERY, and its refreshes right (it was taken for an uncorrelated one: an error)
SELECT dynview.create_dynamic_table('uo_in_corr',
  'SELECT c.customer_id FROM uo_customers c WHERE c.region IN (SELECT c2.region FROM uo_customers c2 WHERE c2.customer_id > c.customer_id GROUP BY c2.region)',
  schedule => 'manual');
SELECT effective_mode, mode_reason_code FROM dynview.dynamic_tables WHERE name = 'uo_in_corr'::regclass;
UPDATE uo_customers SET region = 'south' WHERE customer_id = (SELECT max(customer_id) FROM uo_customers);
SELECT refresh_mode FROM dynview.refresh('uo_in_corr');
SELECT dynview.verify('uo_in_corr');
SELECT dynview.drop_dynamic_table('uo_in_corr');

SELECT dynview.drop_dynamic_table('uo_page2');
DROP TABLE uo_orders, uo_customers;
