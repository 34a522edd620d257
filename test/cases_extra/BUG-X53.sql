-- BUG-X53: a pipeline (dynamic table over a dynamic table) refreshed inside a transaction that changed the base table, then rolled back; later committed changes must reach both layers
-- source: modelled on Snowflake dynamic-table pipelines and pgsql-ivm rollback discussions (no single report)
-- category: dynamic tables over dynamic tables; refresh in a rolled-back transaction
-- @view: SELECT u.g, u.total, u.total * 2 AS twice FROM up u WHERE u.total > 0
CREATE TABLE t (id int PRIMARY KEY, g int, v int);
INSERT INTO t VALUES (1, 1, 1), (2, 2, 2);
SELECT dynview.create_dynamic_table('up', 'SELECT g, sum(v) AS total FROM t GROUP BY g', schedule => 'manual') IS NOT NULL AS created;
-- @refresh
-- step 1: a committed change, then an open transaction that changes the base and refreshes the upstream explicitly
UPDATE t SET v = 5 WHERE id = 1;
BEGIN;
INSERT INTO t VALUES (3, 3, 3);
SELECT (dynview.refresh('up')).state IS NOT NULL AS up_refreshed;
-- @refresh
ROLLBACK;
-- @refresh
-- step 2: the upstream refreshed alone after more committed changes, then the downstream
UPDATE t SET v = -10 WHERE id = 2;
SELECT (dynview.refresh('up')).state IS NOT NULL AS up_refreshed;
INSERT INTO t VALUES (4, 2, 20);
-- @refresh
-- @expect
SELECT u.g, u.total, u.total * 2 AS twice FROM up u WHERE u.total > 0;
