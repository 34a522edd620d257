-- BUG-X23: NaN and infinity in numeric aggregates kept in place: sum/avg of numeric(12,2) with a 'NaN' that is later deleted (NaN - NaN is NaN, so a running sum never recovers), and infinities in an unconstrained numeric and a float column
-- source: modelled on ClickHouse/Flink reports about NaN poisoning incrementally maintained sums (no single report)
-- category: NaN and infinity in numeric/float aggregates
-- @view: SELECT g, sum(a) AS sa, avg(a) AS aa, count(a) AS na, sum(b) AS sb, max(b) AS mb, min(f) AS mf, sum(f) AS sf FROM t GROUP BY g
CREATE TABLE t (id int PRIMARY KEY, g int, a numeric(12,2), b numeric, f float8);
INSERT INTO t VALUES (1, 1, 1.50, 1, 1.5), (2, 1, 2.25, 2, 2.5), (3, 2, 3.00, 3, 3);
-- @refresh
-- step 1: NaN arrives in every column of group 1, infinities in group 2
INSERT INTO t VALUES (4, 1, 'NaN', 'NaN', 'NaN');
INSERT INTO t VALUES (5, 2, 4.00, 'Infinity', '-Infinity');
-- @refresh
-- step 2: the NaN row goes again; an opposite infinity joins
DELETE FROM t WHERE id = 4;
INSERT INTO t VALUES (6, 2, 5.00, '-Infinity', 'Infinity');
-- @refresh
-- step 3: the infinities go one by one
DELETE FROM t WHERE id = 5;
-- @refresh
DELETE FROM t WHERE id = 6;
UPDATE t SET a = 'NaN' WHERE id = 1;
UPDATE t SET a = 1.00 WHERE id = 1;
-- @refresh
-- @expect
SELECT g, sum(a) AS sa, avg(a) AS aa, count(a) AS na, sum(b) AS sb, max(b) AS mb, min(f) AS mf, sum(f) AS sf FROM t GROUP BY g;
