-- BUG-X13: a query over views over views: changes under the inner view reach the table; then the inner view is replaced (CREATE OR REPLACE VIEW with another filter) and the table must follow the new definition
-- source: modelled on Snowflake dynamic tables over views (a changed view definition requires reinitialization) and pg_ivm view-inlining discussions (no single report)
-- category: views over views; view definition replaced under a dynamic table
-- @view: SELECT v2.k, v2.total, v2.n FROM v2
CREATE TABLE t (id int PRIMARY KEY, k int, v int);
CREATE VIEW v1 AS SELECT id, k, v FROM t WHERE v > 0;
CREATE VIEW v2 AS SELECT k, sum(v) AS total, count(*) AS n FROM v1 GROUP BY k;
INSERT INTO t VALUES (1, 1, 5), (2, 1, -3), (3, 2, 7);
-- @refresh
-- step 1: a row enters the inner view's filter, another leaves
UPDATE t SET v = 3 WHERE id = 2;
UPDATE t SET v = 0 WHERE id = 3;
-- @refresh
-- step 2: the inner view is replaced with another filter (no data change)
CREATE OR REPLACE VIEW v1 AS SELECT id, k, v FROM t WHERE v >= 0;
-- @refresh
-- step 3: a change after the replacement
INSERT INTO t VALUES (4, 2, 0);
-- @refresh
-- @expect
SELECT v2.k, v2.total, v2.n FROM v2;
