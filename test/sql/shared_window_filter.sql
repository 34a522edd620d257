-- A source read more than once (TPC-H Q15's revenue view read twice, a self-join) has its window
-- read once into a shared relation (incremental.c shared_window); the conjuncts of the filter
-- that every occurrence applies to its scan first (window_filter: leakproof comparisons of the
-- source's own columns) are applied to that shared read, before it is consolidated.  A row
-- failing one is dropped by each occurrence's own filter anyway, so the result is the same; a
-- window whose changes all fail it is read as empty (NO_DATA).  Occurrences without a common
-- conjunct (different ranges, or one occurrence unfiltered) read the window whole, as before.
-- Every refresh compared with its query (verify(), and the rows by text and by =).
SET client_min_messages = warning;
\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round

CREATE TABLE sw_t (id int PRIMARY KEY, g int, d date, x numeric, t text);
ALTER TABLE sw_t REPLICA IDENTITY FULL;
INSERT INTO sw_t SELECT i, i % 4, date '2026-01-01' + i, (i % 7) * 1.5, 't' || (i % 3) FROM generate_series(1, 60) i;
CREATE TABLE sw_defs (name text, query text);
INSERT INTO sw_defs VALUES
  -- Q15's shape: the grouped view read twice, each through the same range
  ('sw_q15', $$WITH r AS (SELECT g, sum(x) AS s FROM sw_t WHERE d >= date '2026-01-10' AND d < date '2026-02-10' GROUP BY g)
     SELECT g, s FROM r WHERE s = (SELECT max(s) FROM r)$$),
  -- a self-join: one conjunct common to both sides, one on one side only
  ('sw_self', $$SELECT a.id, b.id AS bid FROM sw_t a JOIN sw_t b ON b.g = a.g AND b.id = a.id + 4
     WHERE a.d >= date '2026-01-10' AND b.d >= date '2026-01-10' AND a.x > 2$$),
  -- no common conjunct: the two sides filtered apart
  ('sw_apart', $$SELECT a.id, b.id AS bid FROM sw_t a JOIN sw_t b ON b.id = a.id + 1
     WHERE a.d >= date '2026-01-10' AND b.d < date '2026-01-20'$$),
  -- one occurrence unfiltered (a correlated average over every row of the group)
  ('sw_one', $$SELECT a.id FROM sw_t a WHERE a.d >= date '2026-01-10' AND a.x < (SELECT avg(b.x) FROM sw_t b WHERE b.g = a.g)$$);
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual', refresh_mode => 'incremental') IS NOT NULL AS created
  FROM sw_defs ORDER BY name;
SELECT * FROM dv_refresh_round('sw_defs');

-- 1. rows moving into and out of the ranges, a row deleted and inserted again with other
--    values, one inserted and deleted in one window, NULL dates
UPDATE sw_t SET d = CASE WHEN id > 10 THEN date '2026-01-05' ELSE date '2026-01-25' END,
                x = CASE WHEN id > 10 THEN x ELSE 9 END
 WHERE id IN (2, 3, 12, 13);
UPDATE sw_t SET g = 1 WHERE id = 20;
INSERT INTO sw_t VALUES (100, 1, date '2026-01-15', 4, 't1'), (101, 0, date '2026-01-16', 5, 't2');
DELETE FROM sw_t WHERE id IN (100, 30);
INSERT INTO sw_t VALUES (30, 2, date '2026-01-31', 4.5, 't0');
UPDATE sw_t SET d = NULL WHERE id IN (25, 101);
SELECT * FROM dv_refresh_round('sw_defs');

-- 2. changes only before every common range: sw_q15 and sw_self read nothing (NO_DATA); the
--    others read them (sw_apart's b side and sw_one's average take them)
UPDATE sw_t SET x = x + 1 WHERE d < date '2026-01-08';
INSERT INTO sw_t VALUES (102, 3, date '2025-12-01', 7, 't2');
DELETE FROM sw_t WHERE id = 1;
SELECT * FROM dv_refresh_round('sw_defs');

-- 3. changes after sw_q15's range only: it reads nothing; sw_self takes them
UPDATE sw_t SET x = x * 2 WHERE d >= date '2026-02-10';
SELECT * FROM dv_refresh_round('sw_defs');

-- 4. TRUNCATE behind the filters: FULL (its marker is read whatever the filter)
TRUNCATE sw_t;
INSERT INTO sw_t SELECT i, i % 3, date '2025-11-01' + i, i, 't' FROM generate_series(1, 10) i;
SELECT * FROM dv_refresh_round('sw_defs');
INSERT INTO sw_t SELECT i, i % 3, date '2026-01-10' + i, i % 5, 't' FROM generate_series(11, 30) i;
SELECT * FROM dv_refresh_round('sw_defs');

SELECT count(dynview.drop_dynamic_table(name)) FROM sw_defs;
DROP FUNCTION dv_refresh_round(regclass);
DROP TABLE sw_defs, sw_t;
