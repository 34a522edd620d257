-- BUG-X18: updates of primary keys: two keys swapped in one statement (deferrable key), a chain shift of keys (id = id + 1), a key swap on the joined table; the table is keyed by the source keys
-- source: modelled on CDC-based MV reports where an UPDATE of the primary key is split into delete/insert and applied out of order (Flink upsert-key issues, TiDB; no single report)
-- category: update of primary keys; key swap in one statement
-- @view: SELECT o.id, o.item, o.cust, c.name FROM orders o JOIN cust c ON c.id = o.cust
CREATE TABLE cust (id int PRIMARY KEY DEFERRABLE INITIALLY IMMEDIATE, name text);
CREATE TABLE orders (id int PRIMARY KEY DEFERRABLE INITIALLY IMMEDIATE, item text, cust int);
INSERT INTO cust VALUES (1, 'ann'), (2, 'bob'), (3, 'cid');
INSERT INTO orders VALUES (1, 'pen', 1), (2, 'ink', 2), (3, 'cup', 3);
-- @refresh
-- step 1: two order keys swapped in one statement
UPDATE orders SET id = CASE id WHEN 1 THEN 2 ELSE 1 END WHERE id IN (1, 2);
-- @refresh
-- step 2: the customers 1 and 2 swap keys (so orders now point at the other name)
UPDATE cust SET id = 3 - id WHERE id IN (1, 2);
-- @refresh
-- step 3: every order key shifted by one, and a new order takes the freed key
UPDATE orders SET id = id + 1;
INSERT INTO orders VALUES (1, 'mug', 3);
-- @refresh
-- step 4: a key swap with the values swapped back, so the rows are the same as before
UPDATE orders SET id = CASE id WHEN 2 THEN 3 ELSE 2 END, item = CASE id WHEN 2 THEN 'pen' ELSE 'ink' END, cust = CASE id WHEN 2 THEN 1 ELSE 2 END WHERE id IN (2, 3);
-- @refresh
-- @expect
SELECT o.id, o.item, o.cust, c.name FROM orders o JOIN cust c ON c.id = o.cust;
