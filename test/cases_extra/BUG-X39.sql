-- BUG-X39: a refresh inside a transaction that is then rolled back (with the source change it saw): the next refresh must start from the table's committed state, and must still apply committed changes the rolled-back refresh had consumed
-- source: modelled on pgsql-ivm / pg_ivm discussions of maintenance in aborted transactions (no single report)
-- category: refresh rolled back; change consumption must be transactional
-- @view: SELECT g, count(*) AS n, sum(v) AS s, max(v) AS mx FROM t GROUP BY g
CREATE TABLE t (id int PRIMARY KEY, g int, v int);
INSERT INTO t VALUES (1, 1, 1), (2, 2, 2);
-- @refresh
-- step 1: a committed change, then a transaction that changes more and refreshes (the check runs inside it)
INSERT INTO t VALUES (3, 1, 30);
BEGIN;
UPDATE t SET v = 200 WHERE id = 2;
-- @refresh
-- step 2: the transaction (with its refresh) is rolled back; the committed change of step 1 must still be in the table
ROLLBACK;
-- @refresh
-- step 3: a committed change, a refresh in a subtransaction rolled back, then the marker's refresh
INSERT INTO t VALUES (4, 2, 40);
BEGIN;
SAVEPOINT s;
SELECT (dynview.refresh('dv_case')).state IS NOT NULL AS refreshed_in_savepoint;
ROLLBACK TO SAVEPOINT s;
COMMIT;
-- @refresh
-- @expect
SELECT g, count(*) AS n, sum(v) AS s, max(v) AS mx FROM t GROUP BY g;
