-- BUG-X38: refreshes inside a transaction that has itself changed the sources (changes not yet committed, so not yet decodable), then more changes and a second refresh in the same transaction, then COMMIT
-- source: modelled on pg_ivm's immediate maintenance in the changing transaction and pgsql-ivm discussions of snapshots vs. committed changes (no single report)
-- category: refresh in a transaction with its own uncommitted changes
-- notes: the step leaves its transaction open; the runner's refresh and check run inside it
-- @view: SELECT g, count(*) AS n, sum(v) AS s FROM t GROUP BY g
CREATE TABLE t (id int PRIMARY KEY, g int, v int);
INSERT INTO t VALUES (1, 1, 1), (2, 2, 2);
-- @refresh
-- step 1: open a transaction, change, refresh inside it
BEGIN;
INSERT INTO t VALUES (3, 1, 3);
UPDATE t SET v = 20 WHERE id = 2;
-- @refresh
-- step 2: more changes in the same transaction, refresh again, then commit
DELETE FROM t WHERE id = 1;
INSERT INTO t VALUES (4, 3, 4);
-- @refresh
COMMIT;
-- @refresh
-- step 3: an ordinary change after the commit
UPDATE t SET g = 3 WHERE id = 3;
-- @refresh
-- @expect
SELECT g, count(*) AS n, sum(v) AS s FROM t GROUP BY g;
