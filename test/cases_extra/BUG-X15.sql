-- BUG-X15: savepoints: changes rolled back to a savepoint, a savepoint released, a row updated several times across subtransactions, a failed statement inside a subtransaction, and a whole transaction rolled back after a RELEASE
-- source: modelled on pg_ivm / pgsql-ivm subtransaction handling discussions (changes of aborted subtransactions must leave no trace; no single report)
-- category: savepoints; rolled-back subtransactions; repeated updates of one row in one transaction
-- @view: SELECT g, count(*) AS n, sum(v) AS s, min(v) AS mn, max(v) AS mx FROM t GROUP BY g
CREATE TABLE t (id int PRIMARY KEY, g int, v int CHECK (v < 1000));
INSERT INTO t VALUES (1, 1, 1), (2, 1, 2), (3, 2, 3);
-- @refresh
-- step 1: nested savepoints, partly rolled back
BEGIN;
UPDATE t SET v = 10 WHERE id = 1;
SAVEPOINT a;
UPDATE t SET v = 20 WHERE id = 1;
INSERT INTO t VALUES (4, 3, 4);
SAVEPOINT b;
DELETE FROM t WHERE id = 2;
ROLLBACK TO SAVEPOINT a;
UPDATE t SET v = 30 WHERE id = 2;
SAVEPOINT c;
UPDATE t SET g = 2 WHERE id = 2;
RELEASE SAVEPOINT c;
COMMIT;
-- @refresh
-- step 2: a failed statement inside a subtransaction, then a retry that succeeds
BEGIN;
SAVEPOINT s;
UPDATE t SET v = v + 990 WHERE g = 2;
ROLLBACK TO SAVEPOINT s;
UPDATE t SET v = v + 1 WHERE g = 2;
COMMIT;
-- @refresh
-- step 3: a whole transaction with released savepoints rolled back, then one committed row
BEGIN;
SAVEPOINT x;
DELETE FROM t;
RELEASE SAVEPOINT x;
INSERT INTO t VALUES (9, 9, 9);
ROLLBACK;
INSERT INTO t VALUES (5, 1, 500);
-- @refresh
-- @expect
SELECT g, count(*) AS n, sum(v) AS s, min(v) AS mn, max(v) AS mx FROM t GROUP BY g;
