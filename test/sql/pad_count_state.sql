-- The unmatched rows of a LEFT JOIN counted from the state of the grouped subquery above it
-- (optree.c pad_count_from_state): TPC-H Q13's customers LEFT JOIN orders, grouped by customer.
-- A customer that a changed order reaches is padded with NULLs when it has no match now and not
-- otherwise; its matches now are its matches before (the state's non-NULL count of an order
-- column declared NOT NULL: its matched rows) plus the delta's, instead of its orders looked up
-- again.  Only when the left side has no change in the window (a group is then the same left
-- row as before), the group key is a NOT NULL key of the left side, and the counted column is
-- NOT NULL; explain() says where it applies.  verify() after every refresh: orders inserted,
-- deleted, moved between customers, NULL keys, filters flipping, a customer's last order gone
-- and back, customers inserted and deleted in the same window as their orders.
SET client_min_messages = warning;
CREATE TABLE pc_c (id int PRIMARY KEY, region int, code int);
ALTER TABLE pc_c REPLICA IDENTITY FULL;
CREATE TABLE pc_o (id int PRIMARY KEY, cid int, note text NOT NULL, amt int);
ALTER TABLE pc_o REPLICA IDENTITY FULL;
INSERT INTO pc_c SELECT n, n % 4, CASE WHEN n % 7 = 0 THEN NULL ELSE n % 5 END FROM generate_series(1, 40) n;
INSERT INTO pc_o SELECT n, CASE WHEN n % 17 = 0 THEN NULL ELSE (n * 7) % 30 + 1 END,
       CASE WHEN n % 5 = 0 THEN 'special requests' ELSE 'plain' END,
       CASE WHEN n % 6 = 0 THEN NULL ELSE n % 9 END
  FROM generate_series(1, 90) n;

CREATE TABLE pc_tables (name text PRIMARY KEY, query text, state_count boolean);
INSERT INTO pc_tables VALUES
  -- Q13: count of orders per customer, then customers per count
  ('pc_q13', 'SELECT cnt, count(*) AS custdist FROM (SELECT c.id, count(o.id) FROM pc_c c LEFT JOIN pc_o o
     ON o.cid = c.id AND o.note NOT LIKE ''%special%'' GROUP BY c.id) s (id, cnt) GROUP BY cnt', true),
  -- the same count beside a sum of a nullable column, the grouped rows joined back
  ('pc_join', 'SELECT s.id, s.n, s.total, c2.region FROM (SELECT c.id, count(o.id) AS n, sum(o.amt) AS total
     FROM pc_c c LEFT JOIN pc_o o ON o.cid = c.id GROUP BY c.id) s JOIN pc_c c2 ON c2.id = s.id', true),
  -- the left side filtered: its rows are still one per key
  ('pc_filtered', 'SELECT n, count(*) AS k FROM (SELECT c.id, count(o.id) AS n FROM pc_c c LEFT JOIN pc_o o
     ON o.cid = c.id WHERE c.region <> 2 GROUP BY c.id) s GROUP BY n', true),
  -- not from the state: the counted column may be NULL in a matched row
  ('pc_nullable', 'SELECT n, count(*) AS k FROM (SELECT c.id, count(o.amt) AS n FROM pc_c c LEFT JOIN pc_o o
     ON o.cid = c.id GROUP BY c.id) s GROUP BY n', false),
  -- not from the state: the group key is not a key of the left side (several rows per group)
  ('pc_region', 'SELECT n, count(*) AS k FROM (SELECT c.region, count(o.id) AS n FROM pc_c c LEFT JOIN pc_o o
     ON o.cid = c.id GROUP BY c.region) s GROUP BY n', false),
  -- not from the state: the only count has a FILTER (it counts some matched rows only)
  ('pc_filter', 'SELECT n, count(*) AS k FROM (SELECT c.id, count(o.id) FILTER (WHERE o.amt > 3) AS n
     FROM pc_c c LEFT JOIN pc_o o ON o.cid = c.id GROUP BY c.id) s GROUP BY n', false);
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual') IS NOT NULL AS created
  FROM pc_tables ORDER BY name;
SELECT t.name, d.effective_mode FROM pc_tables t JOIN dynview.dynamic_tables d ON d.name = t.name::regclass ORDER BY 1;

-- where explain() says the rule applies, against where it should
SELECT t.name, t.state_count AS expected,
       strpos(e.value, 'counted from the state of the subquery above') > 0 AS from_state
  FROM pc_tables t JOIN dynview.explain_dynamic_table(t.name) e ON e.property = 'operator tree'
 ORDER BY 1;

\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_rows :abs_srcdir '/sql/include/refresh_rows.sql'
\i :refresh_rows

SELECT name, mode, reason, verified, rows FROM dv_refresh_rows('pc_tables');
-- 1. orders only: customers without orders get some, customers lose their last order, NULL keys
INSERT INTO pc_o SELECT 100 + n, 30 + n, 'plain', n FROM generate_series(1, 8) n;
INSERT INTO pc_o VALUES (120, NULL, 'plain', 1), (121, 40, 'special requests', 2), (122, 39, 'plain', NULL);
DELETE FROM pc_o WHERE cid IN (8, 15, 22);
SELECT name, mode, reason, verified, rows FROM dv_refresh_rows('pc_tables');
-- 2. orders moving between customers, a filter flipping, a NULL key becoming one
UPDATE pc_o SET cid = cid % 10 + 1 WHERE id % 4 = 0 AND cid IS NOT NULL;
UPDATE pc_o SET note = CASE WHEN note = 'plain' THEN 'special requests' ELSE 'plain' END WHERE id % 3 = 0;
UPDATE pc_o SET cid = 8 WHERE cid IS NULL;
UPDATE pc_o SET amt = NULL WHERE id % 5 = 1;
SELECT name, mode, reason, verified, rows FROM dv_refresh_rows('pc_tables');
-- 3. customers inserted with orders and deleted with theirs in the same window
INSERT INTO pc_c VALUES (41, 1, 3), (42, 2, NULL), (43, 3, 1);
INSERT INTO pc_o VALUES (130, 41, 'plain', 5), (131, 41, 'plain', NULL), (132, 43, 'special requests', 1);
DELETE FROM pc_o WHERE cid = 2;
DELETE FROM pc_c WHERE id IN (2, 5);
SELECT name, mode, reason, verified, rows FROM dv_refresh_rows('pc_tables');
-- 4. orders only again, after the customers' change: an inserted and deleted order in one
--    window, an order that comes back, every order of a customer gone
INSERT INTO pc_o VALUES (140, 42, 'plain', 1);
DELETE FROM pc_o WHERE id = 140;
DELETE FROM pc_o WHERE cid = 41;
INSERT INTO pc_o VALUES (141, 42, 'plain', 2), (142, 5, 'plain', 2);
UPDATE pc_o SET cid = 43 WHERE cid = 3;
SELECT name, mode, reason, verified, rows FROM dv_refresh_rows('pc_tables');
-- 5. every order deleted (each customer padded), then some back
DELETE FROM pc_o;
SELECT name, mode, reason, verified, rows FROM dv_refresh_rows('pc_tables');
INSERT INTO pc_o SELECT n, n % 45, 'plain', NULL FROM generate_series(1, 60) n;
SELECT name, mode, reason, verified, rows FROM dv_refresh_rows('pc_tables');

SELECT dynview.drop_dynamic_table(name) IS NOT NULL AS dropped FROM pc_tables ORDER BY name;
DROP TABLE pc_tables, pc_c, pc_o;
DROP FUNCTION dv_refresh_rows(regclass, regproc);
