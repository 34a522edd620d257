-- BUG-X31: a pipeline whose upstream refreshes FULL every time (window function without PARTITION BY) feeding an incremental downstream aggregate: the rows a FULL refresh rewrites upstream must reach the downstream as changes
-- source: modelled on Snowflake dynamic-table pipelines (a full-refreshed upstream feeding an incremental downstream; no single report)
-- category: dynamic tables over dynamic tables; FULL upstream, incremental downstream
-- notes: the upstream is refreshed explicitly in each step, so the downstream refresh must pick up the upstream's rewritten rows
-- @view: SELECT bucket, count(*) AS n, sum(v) AS s FROM up GROUP BY bucket
CREATE TABLE t (id int PRIMARY KEY, v int);
INSERT INTO t VALUES (1, 10), (2, 20), (3, 30), (4, 40);
SELECT dynview.create_dynamic_table('up', 'SELECT id, v, ntile(2) OVER (ORDER BY v, id) AS bucket FROM t', schedule => 'manual') IS NOT NULL AS created;
-- @refresh
-- step 1: a new smallest value shifts the buckets of other rows
INSERT INTO t VALUES (5, 1);
SELECT (dynview.refresh('up')).state IS NOT NULL AS up_refreshed;
-- @refresh
-- step 2: base change without an explicit upstream refresh
UPDATE t SET v = 100 WHERE id = 5;
DELETE FROM t WHERE id = 2;
-- @refresh
-- step 3: the base table truncated and refilled
TRUNCATE t;
INSERT INTO t VALUES (7, 7), (8, 8), (9, 9);
SELECT (dynview.refresh('up')).state IS NOT NULL AS up_refreshed;
-- @refresh
-- @expect
SELECT bucket, count(*) AS n, sum(v) AS s FROM up GROUP BY bucket;
