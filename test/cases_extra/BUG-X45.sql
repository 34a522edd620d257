-- BUG-X45: a projection (no aggregate) of a column with a fast default: old rows (written before ADD COLUMN ... DEFAULT) updated and deleted; the table keyed by the source key
-- source: modelled on CDC reports of missing attributes in old row images (no single report)
-- category: fast default columns; old row images; projection
-- @view: SELECT t.id, t.v, t.c FROM t WHERE t.c IS NOT NULL
CREATE TABLE t (id int PRIMARY KEY, v int);
INSERT INTO t VALUES (1, 1), (2, 2), (3, 3);
ALTER TABLE t ADD COLUMN c numeric(6,2) DEFAULT 1.50;
-- @refresh
UPDATE t SET v = v + 1 WHERE id = 1;
DELETE FROM t WHERE id = 2;
-- @refresh
UPDATE t SET c = NULL WHERE id = 3;
-- @refresh
-- @expect
SELECT t.id, t.v, t.c FROM t WHERE t.c IS NOT NULL;
