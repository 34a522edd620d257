-- BUG-X07: sum/avg of numeric with mixed display scales: a numeric(10,2) column divided by a constant (the quotient's scale depends on the magnitude of each value) and an unconstrained numeric column; deleting the row with the largest scale must shrink the sum's scale
-- source: modelled on the class of reports about numeric scale/precision of maintained aggregates (TiDB/Doris decimal MV results differing in scale; no single report)
-- category: sum/avg of numeric with mixed scales; derived numeric expressions without a typmod
-- notes: 1.00/3 has 20 fraction digits, 100.00/3 has 18; sum() shows the largest scale of its inputs. A sum kept by adding and subtracting keeps 20 digits.
-- @view: SELECT g, sum(a / 3) AS s3, sum(b) AS sb, avg(b) AS ab, sum(a) AS sa, avg(a) AS aa FROM t GROUP BY g
CREATE TABLE t (id int PRIMARY KEY, g int, a numeric(10,2), b numeric);
INSERT INTO t VALUES (1, 1, 100.00, 1.5), (2, 1, 1.00, 2.000), (3, 2, 5.50, 1e-5), (4, 2, 500.00, 3);
-- @refresh
-- step 1: the rows with the largest scales go
DELETE FROM t WHERE id IN (2, 3);
-- @refresh
-- step 2: a row with more fraction digits arrives, then its value changes to fewer
INSERT INTO t VALUES (5, 1, 0.01, 0.123456);
UPDATE t SET a = 10.00, b = 0.1 WHERE id = 5;
-- @refresh
-- step 3: values that cancel exactly
UPDATE t SET b = -1.5 WHERE id = 5;
INSERT INTO t VALUES (6, 2, -500.00, -3.00);
-- @refresh
-- @expect
SELECT g, sum(a / 3) AS s3, sum(b) AS sb, avg(b) AS ab, sum(a) AS sa, avg(a) AS aa FROM t GROUP BY g;
