-- BUG-X11: window functions with PARTITION BY when a row moves to another partition: row_number, sum, lag and count in both the old and the new partition must change; a partition emptied; the partition key set to NULL
-- source: modelled on the class of window-function MV reports (StarRocks/Doris async MV with window functions; no single report)
-- category: window functions with PARTITION BY; a row moving partitions; NULL partition
-- @view: SELECT id, p, v, row_number() OVER (PARTITION BY p ORDER BY v, id) AS rn, sum(v) OVER (PARTITION BY p) AS ps, lag(v) OVER (PARTITION BY p ORDER BY v, id) AS prev, count(*) OVER (PARTITION BY p ORDER BY v RANGE BETWEEN 5 PRECEDING AND CURRENT ROW) AS near FROM t
CREATE TABLE t (id int PRIMARY KEY, p text, v int);
INSERT INTO t VALUES (1, 'a', 1), (2, 'a', 4), (3, 'a', 9), (4, 'b', 2), (5, 'b', 3), (6, NULL, 5);
-- @refresh
-- step 1: the middle row of 'a' moves to 'b'
UPDATE t SET p = 'b' WHERE id = 2;
-- @refresh
-- step 2: the NULL partition's row moves to 'a', a row of 'b' moves to NULL, in one statement
UPDATE t SET p = CASE id WHEN 6 THEN 'a' WHEN 5 THEN NULL END WHERE id IN (5, 6);
-- @refresh
-- step 3: 'b' is emptied, then refilled by a row moving from 'a'
UPDATE t SET p = 'c' WHERE p = 'b';
UPDATE t SET p = 'b', v = 0 WHERE id = 1;
-- @refresh
-- @expect
SELECT id, p, v, row_number() OVER (PARTITION BY p ORDER BY v, id) AS rn, sum(v) OVER (PARTITION BY p) AS ps, lag(v) OVER (PARTITION BY p ORDER BY v, id) AS prev, count(*) OVER (PARTITION BY p ORDER BY v RANGE BETWEEN 5 PRECEDING AND CURRENT ROW) AS near FROM t;
