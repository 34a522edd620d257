-- BUG-X24: very large values: sum/avg of bigint near its limits (the sum needs numeric), sum of int whose total exceeds int, and sum of numeric(60,2) with values that cancel exactly
-- source: modelled on Doris/StarRocks/ClickHouse reports about overflow of maintained SUM state types (no single report)
-- category: very large numerics; state type overflow
-- @view: SELECT g, sum(b) AS sb, avg(b) AS ab, sum(i) AS si, sum(n) AS sn, avg(n) AS an, max(n) AS mxn FROM t GROUP BY g
CREATE TABLE t (id int PRIMARY KEY, g int, b bigint, i int, n numeric(60,2));
INSERT INTO t VALUES (1, 1, 9223372036854775807, 2147483647, 1e55), (2, 1, 9223372036854775806, 2147483647, 1.25);
-- @refresh
-- step 1: a third huge row and a very negative one in another group
INSERT INTO t VALUES (3, 1, 9223372036854775807, 2147483647, -1e55), (4, 2, -9223372036854775808, -2147483648, -99999999999999999999999999999999999999999999999999999999.99);
-- @refresh
-- step 2: the huge rows go in turn, leaving the small one
DELETE FROM t WHERE id = 1;
UPDATE t SET b = 1, n = 0.01 WHERE id = 3;
-- @refresh
-- step 3: group 2 gets its opposite
INSERT INTO t VALUES (5, 2, 9223372036854775807, 2147483647, 99999999999999999999999999999999999999999999999999999999.99);
-- @refresh
-- @expect
SELECT g, sum(b) AS sb, avg(b) AS ab, sum(i) AS si, sum(n) AS sn, avg(n) AS an, max(n) AS mxn FROM t GROUP BY g;
