-- BUG-X35: the group key is not among the output columns, or only through a non-injective expression (k / 2, lower(s)): different groups give equal output rows, which must all be kept, and changed one by one
-- source: modelled on pg_ivm / Materialize issues where the view's key was derived from output columns that do not identify a group (no single report)
-- category: group keys hidden or folded in the output; duplicate output rows from distinct groups
-- @view: SELECT k / 2 AS half, lower(s) AS ls, sum(v) AS s, count(*) AS n FROM t GROUP BY k, s
CREATE TABLE t (id int PRIMARY KEY, k int, s text, v int);
INSERT INTO t VALUES (1, 2, 'A', 1), (2, 3, 'A', 1), (3, 2, 'a', 1), (4, 5, 'b', 4);
-- @refresh
-- step 1: one of three groups with equal output rows changes
UPDATE t SET v = 2 WHERE id = 2;
-- @refresh
-- step 2: it changes back, another of them goes
UPDATE t SET v = 1 WHERE id = 2;
DELETE FROM t WHERE id = 3;
-- @refresh
-- step 3: a new group with an output row equal to existing ones, and a group key change that keeps the output row
INSERT INTO t VALUES (5, 3, 'a', 1);
UPDATE t SET k = 4 WHERE id = 4;
-- @refresh
-- @expect
SELECT k / 2 AS half, lower(s) AS ls, sum(v) AS s, count(*) AS n FROM t GROUP BY k, s;
