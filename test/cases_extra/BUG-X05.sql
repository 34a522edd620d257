-- BUG-X05: SELECT DISTINCT over a join: a distinct pair stays while any joined combination produces it, and comes back when a new combination appears; changes on both join sides in one batch
-- source: modelled on Materialize / Flink reports on DISTINCT after joins (retractions of duplicate join results; no single report)
-- category: DISTINCT over joins; multiplicity through a join
-- @view: SELECT DISTINCT c.region, p.cat FROM orders o JOIN customers c ON c.id = o.cust JOIN products p ON p.id = o.prod
CREATE TABLE customers (id int PRIMARY KEY, region text);
CREATE TABLE products (id int PRIMARY KEY, cat text);
CREATE TABLE orders (id int PRIMARY KEY, cust int, prod int);
INSERT INTO customers VALUES (1, 'north'), (2, 'north'), (3, 'south');
INSERT INTO products VALUES (1, 'tools'), (2, 'toys'), (3, 'tools');
INSERT INTO orders VALUES (1, 1, 1), (2, 2, 3), (3, 3, 2), (4, 1, 2);
-- @refresh
-- step 1: one of two orders producing (north, tools) goes; customer 3 moves north
DELETE FROM orders WHERE id = 1;
UPDATE customers SET region = 'north' WHERE id = 3;
-- @refresh
-- step 2: the remaining (north, tools) source changes category while a product 1 order comes back
UPDATE products SET cat = 'garden' WHERE id = 3;
INSERT INTO orders VALUES (5, 3, 1);
-- @refresh
-- step 3: a region renamed to NULL, products swapped categories in one statement
UPDATE customers SET region = NULL WHERE id IN (1, 2);
UPDATE products SET cat = CASE id WHEN 1 THEN 'toys' WHEN 2 THEN 'tools' ELSE cat END;
-- @refresh
-- @expect
SELECT DISTINCT c.region, p.cat FROM orders o JOIN customers c ON c.id = o.cust JOIN products p ON p.id = o.prod;
