-- The groups as they were of a grouped subquery without state (optree.c old_by_sums): where its
-- aggregates are counts and sums or averages of integers or of numeric of one scale, each old
-- group is derived per key as its counts and sums over the new rows less the delta's weighted
-- ones (TPC-H Q18's IN over lineitem GROUP BY l_orderkey HAVING sum(l_quantity) > 300); min/max,
-- floats, numeric without one scale and a top-N over the groups keep the old rows as the new ones less the delta matched
-- by text.  Groups created and emptied, HAVING crossing its threshold both ways, NULL keys, NULL
-- inputs, NaN, deletes and updates; verify() (by text form and by =) after every refresh.  The
-- tables do not autovacuum: their statistics are the ANALYZE below, so that the index-recompute
-- rule (no state) is chosen deterministically.
SET client_min_messages = warning;
CREATE TABLE gs_o (k int PRIMARY KEY, name text) WITH (autovacuum_enabled = false);
ALTER TABLE gs_o REPLICA IDENTITY FULL;
-- three lines per key, primary key (k, line): k leads it
CREATE TABLE gs_li (k int, line int, q numeric(10,2), i int, b bigint, f float8, u numeric,
                    PRIMARY KEY (k, line)) WITH (autovacuum_enabled = false);
ALTER TABLE gs_li REPLICA IDENTITY FULL;
-- a nullable key with an index of its own, four rows per key (and a NULL group)
CREATE TABLE gs_n (id int PRIMARY KEY, k int, q numeric(10,2), i int) WITH (autovacuum_enabled = false);
ALTER TABLE gs_n REPLICA IDENTITY FULL;
CREATE INDEX gs_n_k ON gs_n (k);
INSERT INTO gs_o SELECT k, 'order ' || k FROM generate_series(1, 30) k;
INSERT INTO gs_li SELECT k, line, (k * 7 + line * 3) % 11 + 0.25, CASE WHEN (k + line) % 4 = 0 THEN NULL ELSE k + line END,
                         k * 1000000000000 + line, (k + line) / 4.0, round((k + line) / 3.0, line)
  FROM generate_series(1, 30) k, generate_series(1, 3) line;
INSERT INTO gs_n SELECT n, CASE WHEN n % 20 = 0 THEN NULL ELSE n % 19 END, n % 7 + 0.5,
                        CASE WHEN n % 3 = 0 THEN NULL ELSE n END FROM generate_series(1, 80) n;
ANALYZE gs_o, gs_li, gs_n;

CREATE TABLE gs_tables (name text PRIMARY KEY, query text);
INSERT INTO gs_tables VALUES
  -- TPC-H Q18's shape
  ('gs_in', 'SELECT o.k, o.name FROM gs_o o WHERE o.k IN (SELECT k FROM gs_li GROUP BY k HAVING sum(q) > 18)'),
  -- the aggregates' values printed: counts, sums and averages of integers and numeric, FILTER
  ('gs_join', 'SELECT o.name, r.* FROM gs_o o JOIN (SELECT k, count(*) AS n, count(i) AS ni, sum(i) AS si, avg(i) AS ai, '
              'sum(b) AS sb, avg(b) AS ab, sum(q) AS sq, avg(q) AS aq, sum(q) FILTER (WHERE i > 20) AS fq '
              'FROM gs_li GROUP BY k HAVING count(*) > 1) r ON r.k = o.k'),
  -- a nullable key (the NULL group) on the preserved side of a LEFT JOIN
  ('gs_null', 'SELECT x.k, x.c, x.s, x.a, t.name FROM (SELECT k, count(*) AS c, sum(q) AS s, avg(i) AS a FROM gs_n GROUP BY k) x '
              'LEFT JOIN gs_o t ON t.k = x.k'),
  -- kept on the text match: a float sum, max, a numeric of no one scale
  ('gs_float', 'SELECT o.k FROM gs_o o WHERE o.k IN (SELECT k FROM gs_li GROUP BY k HAVING sum(f) > 5)'),
  ('gs_max', 'SELECT o.k, r.m FROM gs_o o JOIN (SELECT k, max(q) AS m FROM gs_li GROUP BY k HAVING sum(q) > 10) r ON r.k = o.k'),
  ('gs_scales', 'SELECT o.k, r.s FROM gs_o o JOIN (SELECT k, sum(u) AS s FROM gs_li GROUP BY k) r ON r.k = o.k'),
  -- a top-N over the groups (ORDER BY ... LIMIT cuts after the grouping): not by sums
  ('gs_top', 'SELECT o.k, o.name, t.s FROM gs_o o LEFT JOIN (SELECT k, sum(q) AS s FROM gs_li GROUP BY k ORDER BY s DESC, k LIMIT 5) t ON t.k = o.k');
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual') IS NOT NULL AS created
  FROM gs_tables ORDER BY name;
-- the rule of each: recomputed through the index, old groups by sums or not
SELECT t.name, d.effective_mode,
       e.value ~ 'no state: its first group key' AS by_index,
       e.value ~ 'the old ones by counts and sums over new rows less the delta''s, per group' AS old_by_sums
  FROM gs_tables t JOIN dynview.dynamic_tables d ON d.name = t.name::regclass
  JOIN dynview.explain_dynamic_table(t.name) e ON e.property = 'operator tree'
 ORDER BY 1;

\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_rows :abs_srcdir '/sql/include/refresh_rows.sql'
\i :refresh_rows
CREATE FUNCTION gs_round() RETURNS TABLE (name text, mode text, reason text, verified bool, rows bigint)
LANGUAGE sql AS $$ SELECT name, mode, reason, verified, rows FROM dv_refresh_rows('gs_tables') $$;
SELECT * FROM gs_round();

-- 1. groups created: a new order whose lines cross the threshold, lines of a key no order has
--    yet, an order whose lines come in the same window; a new key of gs_n
INSERT INTO gs_o VALUES (31, 'order 31'), (32, 'order 32');
INSERT INTO gs_li VALUES (31, 1, 9.50, 40, 5, 2.5, 1.5), (31, 2, 9.75, NULL, 6, 3.5, 2.25),
                         (33, 1, 30.00, 21, 7, 9.0, 3), (33, 2, 1.00, 22, 8, 1.0, 4.125);
INSERT INTO gs_n VALUES (81, 30, 2.25, 1), (82, 30, 1.25, NULL);
SELECT * FROM gs_round();
SELECT * FROM gs_join WHERE k > 30 ORDER BY k;
-- 2. HAVING crosses its thresholds both ways: a key's sum raised over 18, another's lowered
--    under it, a key left with one line (count(*) > 1 fails), an order arriving for key 33
SELECT k, sum(q) FROM gs_li WHERE k <= 6 GROUP BY k ORDER BY k;
UPDATE gs_li SET q = q + 10 WHERE k = 2 AND line = 1;
UPDATE gs_li SET q = 0 WHERE k = 3;
DELETE FROM gs_li WHERE k = 7 AND line > 1;
INSERT INTO gs_o VALUES (33, 'order 33');
SELECT * FROM gs_round();
SELECT k FROM gs_in WHERE k IN (2, 3, 31, 33) ORDER BY k;
SELECT * FROM gs_join WHERE k IN (2, 3, 7, 33) ORDER BY k;
-- 3. NULL inputs: every i of key 4 made NULL (count(i) 0: sum and avg NULL), then one back;
--    a NaN quantity in key 5 (its sums NaN, over the threshold), then gone
UPDATE gs_li SET i = NULL WHERE k = 4;
INSERT INTO gs_li VALUES (5, 4, 'NaN', 3, 9, 1.0, 1);
SELECT * FROM gs_round();
SELECT * FROM gs_join WHERE k IN (4, 5) ORDER BY k;
UPDATE gs_li SET i = 7 WHERE k = 4 AND line = 2;
DELETE FROM gs_li WHERE k = 5 AND line = 4;
SELECT * FROM gs_round();
SELECT * FROM gs_join WHERE k IN (4, 5) ORDER BY k;
-- 4. deletes emptying groups: every line of key 6, every gs_n row of key 3, a row moved to
--    another key; a line deleted and inserted again alike in one window (no net change)
DELETE FROM gs_li WHERE k = 6;
DELETE FROM gs_n WHERE k = 3;
UPDATE gs_n SET k = 4 WHERE id = 5;
DELETE FROM gs_li WHERE k = 8 AND line = 1;
INSERT INTO gs_li SELECT 8, 1, (8 * 7 + 3) % 11 + 0.25, 9, 8000000000001, 9 / 4.0, round(9 / 3.0, 1);
SELECT * FROM gs_round();
SELECT (SELECT count(*) FROM gs_in WHERE k = 6) AS k6_in, (SELECT count(*) FROM gs_join WHERE k = 6) AS k6_join,
       (SELECT count(*) FROM gs_null WHERE k = 3) AS k3_null;
-- 5. NULL keys: rows added to the NULL group, one moved out of it, then the NULL group emptied
INSERT INTO gs_n VALUES (83, NULL, 7.00, NULL), (84, NULL, 0.50, 3);
UPDATE gs_n SET k = 8 WHERE id = 20;
SELECT * FROM gs_round();
SELECT k, c, s, a FROM gs_null WHERE k IS NULL;
DELETE FROM gs_n WHERE k IS NULL;
SELECT * FROM gs_round();
SELECT count(*) AS null_groups FROM gs_null WHERE k IS NULL;
-- 6. many groups in one window, both ways: every key's first line's quantity doubled, a third
--    of the keys' third line deleted, new lines for the others
UPDATE gs_li SET q = q * 2, i = i + 1 WHERE line = 1;
DELETE FROM gs_li WHERE line = 3 AND k % 3 = 0;
INSERT INTO gs_li SELECT k, 5, k % 4 + 0.5, k, k, k / 8.0, k / 7.0 FROM generate_series(1, 33) k WHERE k % 3 <> 0;
SELECT * FROM gs_round();

SELECT dynview.drop_dynamic_table(name) FROM gs_tables ORDER BY name;
DROP TABLE gs_tables, gs_o, gs_li, gs_n;
DROP FUNCTION gs_round(), dv_refresh_rows(regclass, regproc);
