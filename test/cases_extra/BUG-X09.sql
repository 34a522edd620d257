-- BUG-X09: HAVING crossing its threshold both ways: a group leaves the result when its sum falls to the threshold and comes back when it rises above; two groups cross in opposite directions in one batch
-- source: modelled on pg_ivm HAVING support discussions and Flink/Materialize HAVING retraction issues (no single report)
-- category: HAVING; group entering and leaving the result
-- @view: SELECT g, sum(v) AS s, count(*) AS n FROM t GROUP BY g HAVING sum(v) > 10 AND count(*) >= 2
CREATE TABLE t (id int PRIMARY KEY, g int, v int);
INSERT INTO t VALUES (1, 1, 6), (2, 1, 6), (3, 2, 5), (4, 2, 5), (5, 3, 20);
-- @refresh
-- step 1: group 1 falls to exactly 10 while group 2 rises above
UPDATE t SET v = 4 WHERE id = 1;
UPDATE t SET v = 6 WHERE id = 3;
-- @refresh
-- step 2: group 3 reaches 2 rows; group 2 crosses down and up again in one transaction
BEGIN;
INSERT INTO t VALUES (6, 3, -5);
UPDATE t SET v = 0 WHERE id = 3;
UPDATE t SET v = 7 WHERE id = 3;
COMMIT;
-- @refresh
-- step 3: group 1 gains enough to come back, group 3 drops to one row
INSERT INTO t VALUES (7, 1, 1);
DELETE FROM t WHERE id = 5;
-- @refresh
-- @expect
SELECT g, sum(v) AS s, count(*) AS n FROM t GROUP BY g HAVING sum(v) > 10 AND count(*) >= 2;
