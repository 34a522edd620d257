-- BUG-X43: a column added with a default (ALTER TABLE ... ADD COLUMN c int DEFAULT 5, no table rewrite): rows written before it carry no c on disk, and the old image of their UPDATE/DELETE in WAL lacks c too; it must be read as 5, not NULL
-- source: modelled on CDC reports where old row images of rows written before ADD COLUMN ... DEFAULT came out with NULL instead of the default (Debezium/pgoutput "missing attribute" issues; no single report)
-- category: DDL on a source before creation (fast default); old row images; aggregates kept in place
-- @view: SELECT g, count(*) AS n, count(c) AS nc, sum(c) AS sc, avg(c) AS ac, sum(v) AS sv FROM t GROUP BY g
CREATE TABLE t (id int PRIMARY KEY, g int, v int);
INSERT INTO t VALUES (1, 1, 1), (2, 1, 2), (3, 2, 3), (4, 2, 4);
ALTER TABLE t ADD COLUMN c int DEFAULT 5;
INSERT INTO t VALUES (5, 1, 5, 50);
-- @refresh
-- step 1: rows written before the ADD COLUMN are updated (old image without c) and deleted
UPDATE t SET v = v + 10 WHERE id IN (1, 3);
DELETE FROM t WHERE id = 2;
-- @refresh
-- step 2: an old row moves group, another old row gets its own c
UPDATE t SET g = 1 WHERE id = 4;
UPDATE t SET c = 7 WHERE id = 1;
-- @refresh
-- @expect
SELECT g, count(*) AS n, count(c) AS nc, sum(c) AS sc, avg(c) AS ac, sum(v) AS sv FROM t GROUP BY g;
