-- BUG-X47: filters on text columns declared with a collation other than the database default: s < 'b' under "en-x-icu" ('C' < 'b' is false there, true in "C"), and k = 'abc' under a case-insensitive nondeterministic collation ('ABC' matches)
-- source: modelled on collation reports in MV engines (predicates evaluated on change rows under another collation than the base table's; no single report)
-- category: collations of source columns; filters evaluated on deltas
-- @view: SELECT t.id, t.s, t.k FROM t WHERE t.s < 'b' OR t.k = 'abc'
CREATE COLLATION ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE TABLE t (id int PRIMARY KEY, s text COLLATE "en-x-icu", k text COLLATE ci);
INSERT INTO t VALUES (1, 'a', 'x'), (2, 'c', 'abc'), (3, 'C', 'y');
-- @refresh
-- step 1: rows whose filter result depends on the collation arrive
INSERT INTO t VALUES (4, 'C', 'q'), (5, 'z', 'ABC'), (6, 'B', 'AbC'), (7, 'á', 'q');
-- @refresh
-- step 2: updates into and out of the filter
UPDATE t SET s = 'D' WHERE id = 1;
UPDATE t SET k = 'aBc' WHERE id = 3;
UPDATE t SET k = 'abd' WHERE id = 5;
-- @refresh
-- @expect
SELECT t.id, t.s, t.k FROM t WHERE t.s < 'b' OR t.k = 'abc';
