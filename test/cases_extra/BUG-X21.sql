-- BUG-X21: GROUP BY a text key with an explicit collation, and min/max under the "C" collation in a database whose default may differ: 'B' < 'a' in "C" but not in most linguistic collations
-- source: modelled on collation reports in MV engines (Doris/StarRocks collation of min/max and group keys; no single report)
-- category: collations; min/max of text with an explicit collation; deleting the extreme
-- @view: SELECT g, min(s COLLATE "C") AS c_min, max(s COLLATE "C") AS c_max, min(s) AS dmin, max(s) AS dmax, count(*) AS n FROM t GROUP BY g
CREATE TABLE t (id int PRIMARY KEY, g int, s text);
INSERT INTO t VALUES (1, 1, 'a'), (2, 1, 'B'), (3, 1, 'b'), (4, 2, 'Z'), (5, 2, 'y');
-- @refresh
-- step 1: new values that are extremes in one collation but not the other (insert only)
INSERT INTO t VALUES (6, 1, 'C'), (7, 2, '_'), (8, 2, 'zz');
-- @refresh
-- step 2: the extremes of each collation deleted
DELETE FROM t WHERE id IN (2, 8);
-- @refresh
-- step 3: an update that makes a row the new extreme in "C" only
UPDATE t SET s = 'A' WHERE id = 3;
-- @refresh
-- @expect
SELECT g, min(s COLLATE "C") AS c_min, max(s COLLATE "C") AS c_max, min(s) AS dmin, max(s) AS dmax, count(*) AS n FROM t GROUP BY g;
