-- BUG-X29: GROUP BY ROLLUP / GROUPING SETS: the subtotal rows have NULL keys, as does a real NULL group; grouping() tells them apart; a change reaches the group row, its subtotal and the grand total
-- source: modelled on Doris/StarRocks MV reports with ROLLUP and NULL group keys colliding with subtotal rows (no single report)
-- category: grouping sets; NULL group keys next to subtotal rows
-- @view: SELECT a, b, grouping(a, b) AS gr, count(*) AS n, sum(v) AS s FROM t GROUP BY ROLLUP (a, b)
CREATE TABLE t (id int PRIMARY KEY, a text, b text, v int);
INSERT INTO t VALUES (1, 'x', 'p', 1), (2, 'x', NULL, 2), (3, NULL, 'q', 3), (4, NULL, NULL, 4);
-- @refresh
-- step 1: a real NULL/NULL group row changes; x's NULL b group is emptied
UPDATE t SET v = 40 WHERE id = 4;
DELETE FROM t WHERE id = 2;
-- @refresh
-- step 2: a row moves from a NULL a to x
UPDATE t SET a = 'x' WHERE id = 3;
INSERT INTO t VALUES (5, 'y', NULL, 5);
-- @refresh
-- step 3: everything deleted, one row back
DELETE FROM t;
INSERT INTO t VALUES (6, NULL, NULL, 6);
-- @refresh
-- @expect
SELECT a, b, grouping(a, b) AS gr, count(*) AS n, sum(v) AS s FROM t GROUP BY ROLLUP (a, b);
