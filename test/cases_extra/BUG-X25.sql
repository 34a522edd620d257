-- BUG-X25: empty groups coming back: a group with min/max/count(DISTINCT)/avg is emptied and refilled in one batch with different values, emptied by an UPDATE that moves its rows away, and refilled by moving them back
-- source: modelled on pg_ivm / Materialize reports of stale aggregate state for a group that disappears and reappears (no single report)
-- category: empty groups coming back; aggregate state reset
-- @view: SELECT g, count(*) AS n, sum(v) AS s, avg(v) AS a, min(v) AS mn, max(v) AS mx, count(DISTINCT v) AS nd FROM t GROUP BY g
CREATE TABLE t (id int PRIMARY KEY, g int, v int);
INSERT INTO t VALUES (1, 1, 100), (2, 1, 200), (3, 2, 5);
-- @refresh
-- step 1: group 1 emptied and refilled with smaller values in one batch
DELETE FROM t WHERE g = 1;
INSERT INTO t VALUES (4, 1, 1), (5, 1, 1);
-- @refresh
-- step 2: group 1 emptied by moving its rows to group 2
UPDATE t SET g = 2 WHERE g = 1;
-- @refresh
-- step 3: moved back with other values, plus a NULL-only group that appears
UPDATE t SET g = 1, v = v + 50 WHERE id IN (4, 5);
INSERT INTO t VALUES (6, 3, NULL);
-- @refresh
-- step 4: the NULL-only group gets a value and loses it again in one transaction; group 2 is emptied and a row inserted into it
BEGIN;
UPDATE t SET v = 9 WHERE id = 6;
UPDATE t SET v = NULL WHERE id = 6;
DELETE FROM t WHERE g = 2;
INSERT INTO t VALUES (7, 2, -7);
COMMIT;
-- @refresh
-- @expect
SELECT g, count(*) AS n, sum(v) AS s, avg(v) AS a, min(v) AS mn, max(v) AS mx, count(DISTINCT v) AS nd FROM t GROUP BY g;
