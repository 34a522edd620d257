-- BUG-X19: a dynamic table over a dynamic table (pipeline) joined to a source, compared also with the base table through a scalar subquery: the base table of the upstream and the joined source change in one transaction; refreshing the downstream must refresh the upstream first
-- source: modelled on Snowflake dynamic-table pipelines and Materialize/Flink multi-layer views (changes crossing layers in one transaction; no single report)
-- category: dynamic tables over dynamic tables; changes across layers in one transaction
-- notes: the query recomputed from scratch reads the upstream dynamic table as it is, and the base table as it is through a correlated scalar subquery (a FULL refresh): a table refreshed from two different snapshots of the upstream and the base would differ
-- @view: SELECT u.k, u.total, d.label, (SELECT sum(v) FROM t WHERE t.k = u.k) AS base_total FROM up u JOIN dim d ON d.k = u.k
CREATE TABLE t (id int PRIMARY KEY, k int, v int);
CREATE TABLE dim (k int PRIMARY KEY, label text);
INSERT INTO t VALUES (1, 1, 10), (2, 2, 20), (3, 2, 5);
INSERT INTO dim VALUES (1, 'one'), (2, 'two');
SELECT dynview.create_dynamic_table('up', 'SELECT k, sum(v) AS total FROM t GROUP BY k', schedule => 'manual') IS NOT NULL AS created;
-- @refresh
-- step 1: base rows and the dimension change in one transaction
BEGIN;
UPDATE t SET v = 11 WHERE id = 1;
INSERT INTO t VALUES (4, 3, 30);
INSERT INTO dim VALUES (3, 'three');
UPDATE dim SET label = 'TWO' WHERE k = 2;
COMMIT;
-- @refresh
-- step 2: a group of the upstream disappears while its dimension row is renamed
BEGIN;
DELETE FROM t WHERE k = 2;
UPDATE dim SET label = 'deux' WHERE k = 2;
COMMIT;
-- @refresh
-- step 3: the upstream is refreshed on its own, then more base changes before the downstream refresh
INSERT INTO t VALUES (5, 2, 1);
SELECT (dynview.refresh('up')).state IS NOT NULL AS up_refreshed;
UPDATE t SET v = 2 WHERE id = 5;
-- @refresh
-- @expect
SELECT u.k, u.total, d.label, (SELECT sum(v) FROM t WHERE t.k = u.k) AS base_total FROM up u JOIN dim d ON d.k = u.k;
