-- BUG-X36: a projection of a join whose output has expressions of the source keys that are not keys (a.id / 10, b.id % 2) and no key column itself: duplicate output rows from different source rows must be kept and removed one for one
-- source: modelled on pg_ivm reports about views without the base tables' keys in their target list (duplicate tuples; no single report)
-- category: projections without keys; duplicates through joins
-- @view: SELECT a.id / 10 AS bucket, b.id % 2 AS parity, a.tag FROM a JOIN b ON a.k = b.k
CREATE TABLE a (id int PRIMARY KEY, k int, tag text);
CREATE TABLE b (id int PRIMARY KEY, k int);
INSERT INTO a VALUES (11, 1, 'x'), (12, 1, 'x'), (21, 2, 'y');
INSERT INTO b VALUES (1, 1), (3, 1), (2, 2);
-- @refresh
-- step 1: one of the equal rows' sources changes key
UPDATE b SET k = 2 WHERE id = 3;
-- @refresh
-- step 2: a source key changes within its bucket (output unchanged), another across
UPDATE a SET id = 13 WHERE id = 12;
UPDATE a SET id = 22 WHERE id = 11;
-- @refresh
-- step 3: b's keys swap parity
UPDATE b SET id = id + 10;
DELETE FROM a WHERE id = 21;
-- @refresh
-- @expect
SELECT a.id / 10 AS bucket, b.id % 2 AS parity, a.tag FROM a JOIN b ON a.k = b.k;
