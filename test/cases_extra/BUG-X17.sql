-- BUG-X17: TRUNCATE of a source: inside a transaction followed by new rows, TRUNCATE rolled back, TRUNCATE of one of two joined sources, TRUNCATE ... RESTART IDENTITY with a refill of the same keys
-- source: modelled on pg_ivm TRUNCATE handling (a truncated base table must empty or recompute the view) and Flink/CDC TRUNCATE issues (no single report)
-- category: TRUNCATE of a source
-- @view: SELECT a.k, count(*) AS n, sum(b.v) AS s FROM a JOIN b ON a.k = b.k GROUP BY a.k
CREATE TABLE a (id int PRIMARY KEY, k int);
CREATE TABLE b (id int PRIMARY KEY, k int, v int);
INSERT INTO a VALUES (1, 1), (2, 2);
INSERT INTO b VALUES (1, 1, 10), (2, 1, 20), (3, 2, 30);
-- @refresh
-- step 1: TRUNCATE and new rows in one transaction
BEGIN;
TRUNCATE b;
INSERT INTO b VALUES (1, 2, 5);
COMMIT;
-- @refresh
-- step 2: a TRUNCATE rolled back, and a change
BEGIN;
TRUNCATE a, b;
ROLLBACK;
INSERT INTO b VALUES (2, 1, 7);
-- @refresh
-- step 3: TRUNCATE of the other source, refilled with the same keys but different groups
BEGIN;
TRUNCATE a;
INSERT INTO a VALUES (1, 2), (2, 1), (3, 1);
COMMIT;
-- @refresh
-- step 4: TRUNCATE inside a savepoint that is rolled back, then an ordinary change
BEGIN;
SAVEPOINT s;
TRUNCATE b;
ROLLBACK TO SAVEPOINT s;
DELETE FROM b WHERE id = 1;
COMMIT;
-- @refresh
-- @expect
SELECT a.k, count(*) AS n, sum(b.v) AS s FROM a JOIN b ON a.k = b.k GROUP BY a.k;
