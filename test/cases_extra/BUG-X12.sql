-- BUG-X12: a subquery in FROM with GROUP BY joined to a dimension, and an aggregate over it: a change of a base row changes the inner group, which must replace the joined and the re-aggregated rows
-- source: modelled on pg_ivm subqueries-in-FROM support and Doris nested MV reports (no single report)
-- category: subqueries in FROM with GROUP BY; aggregate over an aggregate joined to a table
-- @view: SELECT d.region, count(*) AS custs, sum(s.total) AS total, max(s.total) AS top FROM (SELECT cust, sum(amt) AS total FROM orders GROUP BY cust) s JOIN cust d ON d.id = s.cust GROUP BY d.region
CREATE TABLE cust (id int PRIMARY KEY, region text);
CREATE TABLE orders (id int PRIMARY KEY, cust int, amt int);
INSERT INTO cust VALUES (1, 'n'), (2, 'n'), (3, 's');
INSERT INTO orders VALUES (1, 1, 10), (2, 1, 20), (3, 2, 5), (4, 3, 7);
-- @refresh
-- step 1: customer 1's top total drops; customer 3 moves region
UPDATE orders SET amt = 1 WHERE id = 2;
UPDATE cust SET region = 'n' WHERE id = 3;
-- @refresh
-- step 2: customer 2's only order goes (inner group empties), customer 1 gets a new order
DELETE FROM orders WHERE id = 3;
INSERT INTO orders VALUES (5, 1, 100);
-- @refresh
-- step 3: an order moves to another customer while the customer moves region, in one transaction
BEGIN;
UPDATE orders SET cust = 2 WHERE id = 5;
UPDATE cust SET region = 's' WHERE id = 2;
COMMIT;
-- @refresh
-- @expect
SELECT d.region, count(*) AS custs, sum(s.total) AS total, max(s.total) AS top FROM (SELECT cust, sum(amt) AS total FROM orders GROUP BY cust) s JOIN cust d ON d.id = s.cust GROUP BY d.region;
