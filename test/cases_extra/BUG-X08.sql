-- BUG-X08: min/max after deleting or lowering the extreme: ties at the extreme (one of two max rows deleted), the extreme updated inward, the only non-NULL value deleted (min/max become NULL), text min/max in the default collation
-- source: modelled on pg_ivm's min/max recomputation (a deleted extreme must be looked up again) and Materialize/Flink retraction issues for MIN/MAX (no single report)
-- category: min/max after deleting the extreme; ties; NULL inputs
-- @view: SELECT g, min(v) AS mn, max(v) AS mx, min(s) AS smin, max(s) AS smax, count(*) AS n FROM t GROUP BY g
CREATE TABLE t (id int PRIMARY KEY, g int, v int, s text);
INSERT INTO t VALUES (1, 1, 10, 'b'), (2, 1, 30, 'B'), (3, 1, 30, 'a'), (4, 1, 5, 'c'), (5, 2, 7, NULL), (6, 2, NULL, 'z');
-- @refresh
-- step 1: one of the two max rows goes; the min row is raised above the next one
DELETE FROM t WHERE id = 2;
UPDATE t SET v = 12 WHERE id = 4;
-- @refresh
-- step 2: the other max row is lowered below the current min in the same batch as a new max arrives and leaves
UPDATE t SET v = 1 WHERE id = 3;
INSERT INTO t VALUES (7, 1, 100, 'zz');
DELETE FROM t WHERE id = 7;
-- @refresh
-- step 3: group 2 loses its only non-NULL v and its only non-NULL s
DELETE FROM t WHERE id = 5;
UPDATE t SET s = NULL WHERE id = 6;
-- @refresh
-- step 4: an insert at the same time as a delete of the extreme in one transaction
BEGIN;
DELETE FROM t WHERE id = 3;
INSERT INTO t VALUES (8, 1, 11, 'a');
UPDATE t SET v = 0 WHERE id = 6;
COMMIT;
-- @refresh
-- @expect
SELECT g, min(v) AS mn, max(v) AS mx, min(s) AS smin, max(s) AS smax, count(*) AS n FROM t GROUP BY g;
