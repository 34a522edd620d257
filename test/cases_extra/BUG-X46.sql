-- BUG-X46: min/max kept in place for text under collations that order differently from the database default (a column declared COLLATE "en-x-icu", an expression COLLATE "C", a group key in "en-x-icu"): 'B' < 'a' in "C", 'a' < 'B' in en
-- source: modelled on collation reports in MV engines (min/max merged under the wrong collation; no single report)
-- category: collations; min/max of text kept in place; insert-only deltas merged with GREATEST/LEAST
-- @view: SELECT g, min(s) AS s_min, max(s) AS s_max, min(s COLLATE "C") AS c_min, max(s COLLATE "C") AS c_max, min(s COLLATE "sv-x-icu") AS sv_min, max(s COLLATE "sv-x-icu") AS sv_max FROM t GROUP BY g
CREATE TABLE t (id int PRIMARY KEY, g text COLLATE "en-x-icu", s text COLLATE "en-x-icu");
INSERT INTO t VALUES (1, 'x', 'b'), (2, 'x', 'C'), (3, 'y', 'z'), (4, 'y', 'Y');
-- @refresh
-- step 1: insert-only changes: new extremes in one collation, not in another
INSERT INTO t VALUES (5, 'x', 'a'), (6, 'x', 'D'), (7, 'y', 'å'), (8, 'y', 'ä'), (9, 'y', 'Z');
-- @refresh
-- step 2: more inserts only, each an extreme in some collation
INSERT INTO t VALUES (10, 'x', 'A'), (11, 'x', 'd'), (12, 'y', 'ö'), (13, 'y', 'o');
-- @refresh
-- step 3: extremes deleted
DELETE FROM t WHERE id IN (10, 12, 9);
-- @refresh
-- @expect
SELECT g, min(s) AS s_min, max(s) AS s_max, min(s COLLATE "C") AS c_min, max(s COLLATE "C") AS c_max, min(s COLLATE "sv-x-icu") AS sv_min, max(s COLLATE "sv-x-icu") AS sv_max FROM t GROUP BY g;
