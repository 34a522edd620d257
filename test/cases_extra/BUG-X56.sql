-- BUG-X56: stddev and variance kept in place from count, sum and sum of squares: the result must be numeric's digit for digit (its division scale, then the square root rounded to that scale: sqrt of {0, 4232.093}'s variance is 2992.541658912119, while rounding sqrt()'s longer result gives ...120); rows of the largest scale deleted; groups of one row (sample NULL, population 0); NaN and infinity
-- source: modelled on the class of incremental-aggregate reports where an algebraic rewrite of an aggregate (variance from sums) differs from the engine's own in the last digits (no single report)
-- category: aggregates kept in place; numeric display scale; stddev/variance; double rounding; NaN and infinity
-- @view: SELECT g, stddev(x) AS s, var_pop(x) AS vp, stddev_pop(i) AS si, variance(i) FILTER (WHERE i > 1) AS vf FROM t GROUP BY g
CREATE TABLE t (id int PRIMARY KEY, g int, x numeric, i int);
INSERT INTO t VALUES (1, 1, 0, 1), (2, 1, 4232.093, 2), (3, 2, 211.3, 3), (4, 2, 0.0, 4), (5, 3, 1.125, 5);
-- @refresh
-- step 1: the row of the largest scale goes, a row of another scale comes
DELETE FROM t WHERE id = 5;
INSERT INTO t VALUES (6, 3, 2.5, 6), (7, 3, 2.50, 7);
-- @refresh
-- step 2: NaN and infinity, and a group down to one row
INSERT INTO t VALUES (8, 1, 'NaN', 8), (9, 3, 'Infinity', 9);
DELETE FROM t WHERE id = 3;
-- @refresh
-- step 3: they go; the double-rounding group comes back
DELETE FROM t WHERE id IN (8, 9);
UPDATE t SET x = 4232.093 WHERE id = 2;
-- @refresh
-- @expect
SELECT g, stddev(x) AS s, var_pop(x) AS vp, stddev_pop(i) AS si, variance(i) FILTER (WHERE i > 1) AS vf FROM t GROUP BY g;
