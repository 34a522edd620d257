-- BUG-X55: sum and avg of numeric without a declared scale kept in place: the display scale of a numeric sum is the largest scale of its live rows, so after the row written 1.000 is deleted the sum prints 2.00, not 2.000; avg divides that sum by the count (its digits depend on the sum's scale); NaN and infinity come and go; a group empties and comes back
-- source: modelled on the class of incremental-aggregate reports where a maintained sum keeps a scale, precision or type the query no longer shows (no single report)
-- category: aggregates kept in place; numeric display scale; NaN and infinity; group emptied and recreated; FILTER
-- notes: a state that only adds and subtracts keeps the largest scale ever seen; PostgreSQL prints the largest live one
-- @view: SELECT g, sum(x) AS s, avg(x) AS a, sum(x) FILTER (WHERE x > 0) AS sp, count(*) FILTER (WHERE x < 0) AS nn FROM t GROUP BY g
CREATE TABLE t (id int PRIMARY KEY, g int, x numeric);
INSERT INTO t VALUES (1, 1, 1.0), (2, 1, 1.00), (3, 1, 1.000), (4, 2, -7), (5, 2, 0.5), (6, 3, 2.25);
-- @refresh
-- step 1: the row of the largest scale goes (sum 2.00, avg 1.00000000000000000000)
DELETE FROM t WHERE id = 3;
-- @refresh
-- step 2: the next one too, and a row of group 2 updated to a larger then a smaller scale in one transaction
BEGIN;
DELETE FROM t WHERE id = 2;
UPDATE t SET x = -7.0000 WHERE id = 4;
UPDATE t SET x = -7 WHERE id = 4;
COMMIT;
-- @refresh
-- step 3: NaN and infinities arrive, with a finite row in the same groups
INSERT INTO t VALUES (7, 1, 'NaN'), (8, 3, 'Infinity'), (9, 3, 1.125), (10, 2, '-Infinity');
-- @refresh
-- step 4: they go again
DELETE FROM t WHERE id IN (7, 8, 10);
-- @refresh
-- step 5: group 3 emptied, then written back with a new scale in a later transaction
DELETE FROM t WHERE g = 3;
-- @refresh
INSERT INTO t VALUES (11, 3, 0.10), (12, 3, -0.1);
-- @refresh
-- @expect
SELECT g, sum(x) AS s, avg(x) AS a, sum(x) FILTER (WHERE x > 0) AS sp, count(*) FILTER (WHERE x < 0) AS nn FROM t GROUP BY g;
