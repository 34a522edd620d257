-- BUG-X01: join on two keys, one of them nullable, and a second join written with IS NOT DISTINCT FROM (NULL matches NULL): NULL -> value and value -> NULL updates on both sides in one transaction
-- source: modelled on the class of pg_ivm / Materialize reports about NULL join keys (no single report)
-- category: NULL join keys; composite join keys; IS NOT DISTINCT FROM join; changes on both sides in one transaction
-- notes: a = join never matches NULL, IS NOT DISTINCT FROM does; a delta join that rewrites the condition as = loses the NULL matches
-- @view: SELECT a.id AS aid, b.id AS bid, a.k1, a.k2, b.w FROM a JOIN b ON a.k1 = b.k1 AND a.k2 IS NOT DISTINCT FROM b.k2
CREATE TABLE a (id int PRIMARY KEY, k1 int, k2 int);
CREATE TABLE b (id int PRIMARY KEY, k1 int, k2 int, w text);
INSERT INTO a VALUES (1, 1, NULL), (2, 1, 10), (3, NULL, NULL), (4, 2, 20);
INSERT INTO b VALUES (10, 1, NULL, 'x'), (11, 1, 10, 'y'), (12, NULL, NULL, 'z'), (13, 2, NULL, 'q');
-- @refresh
-- step 1: a NULL k2 gets a value on one side and the other side gets NULL, in one transaction
BEGIN;
UPDATE a SET k2 = NULL WHERE id = 4;
UPDATE b SET k2 = 10 WHERE id = 10;
COMMIT;
-- @refresh
-- step 2: new rows with NULL k2 on both sides
INSERT INTO a VALUES (5, 1, NULL);
INSERT INTO b VALUES (14, 1, NULL, 'n');
-- @refresh
-- step 3: k1 to NULL (no match any more) and back in a later statement of the same transaction with another k2
BEGIN;
UPDATE a SET k1 = NULL WHERE id = 1;
UPDATE a SET k1 = 1, k2 = 10 WHERE id = 1;
DELETE FROM b WHERE id = 13;
COMMIT;
-- @refresh
-- @expect
SELECT a.id AS aid, b.id AS bid, a.k1, a.k2, b.w FROM a JOIN b ON a.k1 = b.k1 AND a.k2 IS NOT DISTINCT FROM b.k2;
