-- BUG-X30: MERGE into a source (inserts, updates, deletes and a key change in one statement), then INSERT ... ON CONFLICT DO UPDATE that changes group keys
-- source: modelled on CDC/MV reports where a single statement producing mixed change kinds was applied in the wrong order (no single report)
-- category: MERGE; upsert; mixed change kinds in one statement
-- @view: SELECT g, count(*) AS n, sum(v) AS s, max(v) AS mx FROM t GROUP BY g
CREATE TABLE t (id int PRIMARY KEY, g int, v int);
CREATE TABLE src (id int PRIMARY KEY, g int, v int, del boolean);
INSERT INTO t VALUES (1, 1, 10), (2, 1, 20), (3, 2, 30), (4, 2, 40);
INSERT INTO src VALUES (1, 2, 11, false), (2, NULL, NULL, true), (5, 1, 50, false), (4, 2, 39, false);
-- @refresh
-- step 1: one MERGE doing all kinds of change
MERGE INTO t USING src ON t.id = src.id
  WHEN MATCHED AND src.del THEN DELETE
  WHEN MATCHED THEN UPDATE SET g = src.g, v = src.v
  WHEN NOT MATCHED THEN INSERT VALUES (src.id, src.g, src.v);
-- @refresh
-- step 2: upserts: one changes the group and the max, one inserts, one changes nothing
INSERT INTO t VALUES (3, 1, 99), (6, 3, 1), (5, 1, 50) ON CONFLICT (id) DO UPDATE SET g = excluded.g, v = excluded.v;
-- @refresh
-- step 3: a MERGE that deletes the max of each group
MERGE INTO t USING (SELECT DISTINCT ON (g) id FROM t ORDER BY g, v DESC) m ON t.id = m.id WHEN MATCHED THEN DELETE;
-- @refresh
-- @expect
SELECT g, count(*) AS n, sum(v) AS s, max(v) AS mx FROM t GROUP BY g;
