-- BUG-X44: a text column with a fast default (ADD COLUMN c text DEFAULT 'dflt', no rewrite) read by count(DISTINCT c), count(c) and a projection join: old rows (written before the column) updated and deleted
-- source: modelled on CDC reports where old row images of rows written before ADD COLUMN ... DEFAULT came out with NULL instead of the default (no single report)
-- category: fast default columns; old row images; count(DISTINCT); projection
-- @view: SELECT g, count(DISTINCT c) AS dc, count(c) AS nc, count(*) AS n FROM t GROUP BY g
CREATE TABLE t (id int PRIMARY KEY, g int, v int);
INSERT INTO t VALUES (1, 1, 1), (2, 1, 2), (3, 2, 3), (4, 2, 4);
ALTER TABLE t ADD COLUMN c text DEFAULT 'dflt';
-- @refresh
-- step 1: old rows updated and deleted
UPDATE t SET v = v + 1 WHERE id IN (1, 3);
DELETE FROM t WHERE id = 4;
-- @refresh
-- step 2: an old row's c changes, another old row moves group
UPDATE t SET c = 'own' WHERE id = 2;
UPDATE t SET g = 2 WHERE id = 1;
-- @refresh
-- @expect
SELECT g, count(DISTINCT c) AS dc, count(c) AS nc, count(*) AS n FROM t GROUP BY g;
