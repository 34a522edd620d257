-- BUG-X52: TRUNCATE of a source inside a transaction that also refreshes (the runner's refresh and check run inside it), then rolled back; and a TRUNCATE committed after a refresh inside its transaction
-- source: modelled on pg_ivm TRUNCATE handling and pgsql-ivm discussions of maintenance inside the changing transaction (no single report)
-- category: TRUNCATE of a source; refresh inside the changing transaction; rollback
-- @view: SELECT g, count(*) AS n, sum(v) AS s FROM t GROUP BY g
CREATE TABLE t (id int PRIMARY KEY, g int, v int);
INSERT INTO t VALUES (1, 1, 1), (2, 2, 2), (3, 2, 3);
-- @refresh
-- step 1: TRUNCATE and refill inside an open transaction
BEGIN;
TRUNCATE t;
INSERT INTO t VALUES (4, 1, 40);
-- @refresh
-- step 2: rolled back: the table must hold the three old rows again
ROLLBACK;
-- @refresh
-- step 3: a committed change, then TRUNCATE in an open transaction, refreshed, committed, then a change
UPDATE t SET v = 10 WHERE id = 1;
BEGIN;
TRUNCATE t;
INSERT INTO t VALUES (5, 3, 5);
-- @refresh
COMMIT;
INSERT INTO t VALUES (6, 3, 6);
-- @refresh
-- @expect
SELECT g, count(*) AS n, sum(v) AS s FROM t GROUP BY g;
