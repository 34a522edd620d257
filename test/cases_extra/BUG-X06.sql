-- BUG-X06: count(DISTINCT x) with NULL values of x, next to count(x) and count(*): NULL is never counted; a value counted while any duplicate remains; value -> NULL updates
-- source: modelled on the class of count(DISTINCT) incremental-maintenance reports (Doris/StarRocks/TiDB MV; no single report)
-- category: count(DISTINCT) with NULLs; duplicates within a group
-- @view: SELECT g, count(DISTINCT x) AS nd, count(x) AS nx, count(*) AS n FROM t GROUP BY g
CREATE TABLE t (id int PRIMARY KEY, g int, x text);
INSERT INTO t VALUES (1, 1, 'a'), (2, 1, 'a'), (3, 1, NULL), (4, 2, NULL), (5, 2, NULL), (6, 3, 'b');
-- @refresh
-- step 1: one 'a' becomes NULL, group 2 gets a value
UPDATE t SET x = NULL WHERE id = 1;
UPDATE t SET x = 'c' WHERE id = 4;
-- @refresh
-- step 2: the last 'a' becomes NULL too, and a new 'a' arrives in a later statement
UPDATE t SET x = NULL WHERE id = 2;
INSERT INTO t VALUES (7, 1, 'a');
-- @refresh
-- step 3: all non-NULL values of group 3 go, only a NULL row stays
INSERT INTO t VALUES (8, 3, NULL);
DELETE FROM t WHERE id = 6;
-- @refresh
-- step 4: the group key moves (with its value) into a group that already has it
UPDATE t SET g = 2 WHERE id = 7;
UPDATE t SET x = 'a' WHERE id = 5;
-- @refresh
-- @expect
SELECT g, count(DISTINCT x) AS nd, count(x) AS nx, count(*) AS n FROM t GROUP BY g;
