-- The operator tree (issue 13): outer joins, semi- and anti-joins (EXISTS, IN, NOT EXISTS,
-- NOT IN with its NULL semantics) composed at depth, under GROUP BY and DISTINCT.  Every table
-- is created INCREMENTAL; after each round of changes every table is refreshed, checked with
-- dynview.verify() and compared with its query by the text of its rows and by "=".
SET client_min_messages = warning;

CREATE TABLE op_a (id int PRIMARY KEY, k int, v text);
CREATE TABLE op_b (id int PRIMARY KEY, k int, w int);
CREATE TABLE op_c (id int PRIMARY KEY, k int, tag text);
INSERT INTO op_a VALUES (1, 1, 'one'), (2, 2, 'two'), (3, NULL, 'null'), (4, 4, 'four'), (5, 1, 'uno');
INSERT INTO op_b VALUES (10, 1, 5), (11, 2, 7), (12, NULL, 1), (13, 3, 9), (14, 1, 8);
INSERT INTO op_c VALUES (20, 1, 'x'), (21, 3, 'y'), (22, NULL, 'z');

CREATE TABLE op_defs (name text PRIMARY KEY, query text NOT NULL);
INSERT INTO op_defs VALUES
  ('op_left', 'SELECT a.id AS aid, a.v, b.id AS bid, b.w FROM op_a a LEFT JOIN op_b b ON a.k = b.k'),
  ('op_right', 'SELECT a.id AS aid, b.id AS bid, b.w FROM op_a a RIGHT JOIN op_b b ON a.k = b.k AND b.w > 5'),
  ('op_full', 'SELECT a.id AS aid, a.k AS ak, b.id AS bid, b.k AS bk FROM op_a a FULL JOIN op_b b ON a.k = b.k'),
  ('op_full_using', 'SELECT k, a.v, b.w FROM op_a a FULL JOIN op_b b USING (k)'),
  ('op_exists', 'SELECT a.id, a.v FROM op_a a WHERE EXISTS (SELECT 1 FROM op_b b WHERE b.k = a.k AND b.w > 6)'),
  ('op_not_exists', 'SELECT a.id, a.v FROM op_a a WHERE NOT EXISTS (SELECT 1 FROM op_b b WHERE b.k = a.k)'),
  ('op_in', 'SELECT a.id, a.k FROM op_a a WHERE a.k IN (SELECT c.k FROM op_c c WHERE c.tag <> ''z'')'),
  ('op_not_in', 'SELECT a.id, a.k FROM op_a a WHERE a.k NOT IN (SELECT b.k FROM op_b b WHERE b.w > 4)'),
  ('op_not_in_rows', 'SELECT a.id FROM op_a a WHERE (a.k, a.id) NOT IN (SELECT c.k, c.id - 19 FROM op_c c)'),
  ('op_exists_nonequi', 'SELECT a.id FROM op_a a WHERE EXISTS (SELECT FROM op_b b WHERE b.w > a.id * 2)'),
  ('op_exists_uncorrelated', 'SELECT a.id, a.v FROM op_a a WHERE EXISTS (SELECT FROM op_c c WHERE c.tag = ''w'')'),
  ('op_nested_nullable', 'SELECT a.id AS aid, b.id AS bid, c.id AS cid FROM op_a a LEFT JOIN (op_b b JOIN op_c c ON b.k = c.k) ON a.k = b.k'),
  ('op_depth3', 'SELECT a.id AS aid, b.id AS bid, c.id AS cid FROM (op_a a LEFT JOIN op_b b ON a.k = b.k) FULL JOIN op_c c ON c.k = b.k WHERE NOT EXISTS (SELECT FROM op_c c2 WHERE c2.id = a.id + 19) AND (a.v IS NULL OR a.v <> ''four'')'),
  ('op_semi_in_anti', 'SELECT a.id FROM op_a a WHERE NOT EXISTS (SELECT FROM op_b b WHERE b.k = a.k AND EXISTS (SELECT FROM op_c c WHERE c.k = b.k))'),
  ('op_group_left', 'SELECT a.k, count(b.id) AS nb, sum(b.w) AS sw, count(*) AS n FROM op_a a LEFT JOIN op_b b ON a.k = b.k GROUP BY a.k'),
  ('op_distinct_anti', 'SELECT DISTINCT a.k FROM op_a a WHERE NOT EXISTS (SELECT FROM op_c c WHERE c.k = a.k)'),
  ('op_global_full', 'SELECT count(*) AS n, count(a.id) AS na, count(b.id) AS nb FROM op_a a FULL JOIN op_b b ON a.k = b.k'),
  ('op_group_join', 'SELECT a.id, a.v, s.total, s.n FROM op_a a JOIN (SELECT b.k, sum(b.w) AS total, count(*) AS n FROM op_b b GROUP BY b.k) s ON s.k = a.k'),
  ('op_group_of_group', 'SELECT cnt, count(*) AS custdist FROM (SELECT a.id, count(b.id) AS cnt FROM op_a a LEFT JOIN op_b b ON b.k = a.k GROUP BY a.id) x GROUP BY cnt'),
  ('op_group_nullable', 'SELECT a.id, s.k, s.n FROM op_a a LEFT JOIN (SELECT b.k, count(*) AS n FROM op_b b GROUP BY b.k HAVING count(*) > 1) s ON s.k = a.k'),
  ('op_group_null_keys', 'SELECT s.k, s.n, s.mx FROM (SELECT b.k, count(*) AS n, max(b.w) AS mx FROM op_b b GROUP BY b.k) s WHERE s.n > 0'),
  ('op_global_sub', 'SELECT a.id, s.m, s.c FROM op_a a, (SELECT max(b.w) AS m, count(*) AS c FROM op_b b) s WHERE a.id < 4'),
  ('op_distinct_sub', 'SELECT a.id, d.k FROM (SELECT DISTINCT c.k FROM op_c c) d JOIN op_a a ON a.k = d.k'),
  ('op_spj_sub_nullable', 'SELECT a.id, s.id AS bid, s.one FROM op_a a LEFT JOIN (SELECT b.id, b.k, 1 AS one FROM op_b b WHERE b.w > 3) s ON s.k = a.k'),
  ('op_full_pairs', 'SELECT a.id, a.k FROM op_a a FULL JOIN op_b b ON a.k = b.id'),
  ('op_in_grouped', 'SELECT a.id FROM op_a a WHERE a.k IN (SELECT b.k FROM op_b b GROUP BY b.k HAVING count(*) > 1)'),
  ('op_not_in_distinct', 'SELECT a.id FROM op_a a WHERE a.k NOT IN (SELECT DISTINCT c.k FROM op_c c)'),
  ('op_top_join', 'SELECT a.id, b.id AS bid, b.w FROM op_a a JOIN op_b b ON b.k = a.k ORDER BY b.w DESC, a.id, b.id LIMIT 3'),
  ('op_top_group', 'SELECT b.k, sum(b.w) AS sw FROM op_b b GROUP BY b.k ORDER BY sum(b.w) DESC NULLS LAST, b.k NULLS FIRST LIMIT 2 OFFSET 1'),
  ('op_intersect', 'SELECT a.k FROM op_a a INTERSECT SELECT b.k FROM op_b b'),
  ('op_intersect_all', 'SELECT a.k FROM op_a a INTERSECT ALL SELECT b.k FROM op_b b'),
  ('op_except', 'SELECT b.k FROM op_b b EXCEPT SELECT c.k FROM op_c c'),
  ('op_except_all', 'SELECT b.k FROM op_b b EXCEPT ALL SELECT a.k FROM op_a a'),
  ('op_setops_nested', '(SELECT a.k FROM op_a a UNION SELECT c.k FROM op_c c) EXCEPT ALL SELECT b.k FROM op_b b WHERE b.w > 8'),
  ('op_union_grouped', 'SELECT b.k, count(*) AS n FROM op_b b GROUP BY b.k UNION ALL SELECT a.k, 0 FROM op_a a'),
  ('op_intersect_over_groups', 'SELECT s.n, s.k FROM (SELECT b.k, count(*) AS n, max(b.w) AS mx FROM op_b b GROUP BY b.k) s INTERSECT ALL SELECT a.id, a.k FROM op_a a'),
  ('op_scalar_select', 'SELECT a.id, (SELECT count(*) FROM op_b b WHERE b.k = a.k) AS nb, (SELECT max(b.w) FROM op_b b WHERE b.k = a.k) AS mw, (SELECT count(b.w) + 1 FROM op_b b WHERE b.k = a.k AND b.w > 5) AS nbig FROM op_a a'),
  ('op_scalar_count_where', 'SELECT a.id FROM op_a a WHERE (SELECT count(*) FROM op_b b WHERE b.k = a.k) < 2'),
  ('op_scalar_uncorrelated', 'SELECT a.id, (SELECT sum(b.w) FROM op_b b) AS total, (SELECT count(*) FROM op_c c) AS nc FROM op_a a'),
  ('op_srf_select', 'SELECT a.id, generate_series(1, COALESCE(a.k, 0)) AS n, unnest(ARRAY[a.v, upper(a.v)]) AS s FROM op_a a LEFT JOIN op_c c ON c.k = a.k'),
  ('op_lateral', 'SELECT a.id, x.part FROM op_a a, LATERAL unnest(string_to_array(a.v, ''n'')) AS x(part)'),
  ('op_lateral_left', 'SELECT a.id, g.i, g.o FROM op_a a LEFT JOIN LATERAL generate_series(1, a.k) WITH ORDINALITY AS g(i, o) ON g.i > 1'),
  ('op_function_const', 'SELECT g.n, a.id FROM generate_series(1, 2) g(n), op_a a WHERE a.k = g.n'),
  ('op_rollup', 'SELECT b.k, b.w > 5 AS big, count(*) AS n, sum(b.w) AS sw, GROUPING(b.k, b.w > 5) AS g FROM op_b b GROUP BY ROLLUP (b.k, b.w > 5)'),
  ('op_cube_join', 'SELECT a.v, b.k, count(*) AS n, max(b.w) AS mw FROM op_a a JOIN op_b b ON b.k = a.k GROUP BY CUBE (a.v, b.k)'),
  ('op_grouping_sets', 'SELECT a.k, a.v, count(*) AS n FROM op_a a GROUP BY GROUPING SETS ((a.k), (a.v), ()) HAVING count(*) > 0'),
  ('op_distinct_on', 'SELECT DISTINCT ON (b.k) b.k, b.id, b.w FROM op_b b ORDER BY b.k, b.w DESC, b.id'),
  ('op_distinct_on_join', 'SELECT DISTINCT ON (a.id) a.id, b.id AS bid, b.w FROM op_a a LEFT JOIN op_b b ON b.k = a.k ORDER BY a.id, b.w NULLS FIRST, b.id'),
  ('op_union_outer', 'SELECT a.id, b.w FROM op_a a LEFT JOIN op_b b ON a.k = b.k UNION ALL SELECT c.id, NULL FROM op_c c WHERE NOT EXISTS (SELECT FROM op_a a WHERE a.k = c.k)'),
  -- a correlated avg (TPC-H Q17's shape): the grouped subquery's changed groups that no row of
  -- the join joins are not recomputed, and the join's delta reads only the groups its keys reach
  ('op_scalar_corr_avg', 'SELECT a.id, b.id AS bid, b.w FROM op_a a JOIN op_b b ON b.k = a.k WHERE a.v <> ''two'' AND b.w < (SELECT 1.2 * avg(b2.w) FROM op_b b2 WHERE b2.k = a.k)'),
  ('op_group_join_filtered', 'SELECT a.id, s.total, s.mx FROM op_a a JOIN (SELECT b.k, sum(b.w) AS total, max(b.w) AS mx FROM op_b b GROUP BY b.k) s ON s.k = a.k AND s.mx > 4 WHERE a.v <> ''uno'''),
  ('op_semi_grouped_keys', 'SELECT a.id, a.v FROM op_a a WHERE a.k IN (SELECT b.k FROM op_b b WHERE b.w > 2 GROUP BY b.k HAVING sum(b.w) > 6) AND a.id > 1'),
  -- uncorrelated extremes (TPC-H Q15's shape: the max over a grouped subquery): the row as it
  -- was from the extremes now and the deleted rows, unless an inserted row reaches an extreme
  ('op_scalar_max_grouped', 'SELECT a.id, s.k, s.total FROM op_a a JOIN (SELECT b.k, sum(b.w) AS total FROM op_b b GROUP BY b.k) s ON s.k = a.k WHERE s.total = (SELECT max(t.total) FROM (SELECT b2.k, sum(b2.w) AS total FROM op_b b2 GROUP BY b2.k) t)'),
  ('op_scalar_min_text', 'SELECT a.id, a.v FROM op_a a WHERE a.v > (SELECT min(c.tag) FROM op_c c WHERE c.id > 20) AND a.id <= (SELECT max(b.w) FROM op_b b WHERE b.w < 9)'),
  ('op_global_extremes', 'SELECT a.id, s.m, s.n FROM op_a a, (SELECT max(b.w) AS m, min(b.k) AS n FROM op_b b HAVING max(b.w) > 3) s'),
  ('op_global_bool', 'SELECT a.id, (SELECT bool_and(b.w > 2) FROM op_b b) AS allbig, (SELECT bool_or(c.k IS NULL) FROM op_c c) AS anynull FROM op_a a'),
  -- a scalar subquery in HAVING (TPC-H Q11's shape): a condition over the grouped level as a
  -- subquery, which the scalar subquery joins
  ('op_having_scalar', 'SELECT b.k, sum(b.w) AS total FROM op_b b GROUP BY b.k HAVING sum(b.w) > (SELECT 0.3 * sum(b2.w) FROM op_b b2) AND count(*) >= 1'),
  ('op_having_scalar_join', 'SELECT a.v, count(*) AS n FROM op_a a JOIN op_b b ON b.k = a.k GROUP BY a.v, a.k HAVING count(*) + 1 > (SELECT min(c.k) FROM op_c c) ORDER BY a.k');

SELECT count(dynview.create_dynamic_table(name, query, schedule => 'manual', refresh_mode => 'incremental'))
  FROM op_defs;
SELECT d.name, e.value AS mode FROM op_defs d, dynview.explain_dynamic_table(d.name) e
 WHERE e.property = 'mode' ORDER BY 1;
SELECT value FROM dynview.explain_dynamic_table('op_depth3') WHERE property = 'operator tree';

-- refresh every table, verify it and compare it with its query by text and by "="
\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round

-- round 1: inserts on every side, with NULL keys; a row that starts to match, one that stops
INSERT INTO op_b VALUES (15, 4, 6), (16, NULL, 2);
INSERT INTO op_a VALUES (6, 3, 'three'), (7, NULL, 'null2');
INSERT INTO op_c VALUES (23, 2, 'w');
SELECT * FROM dv_refresh_round('op_defs') WHERE NOT (verified AND same_text AND same_rows) OR refresh_mode NOT IN ('INCREMENTAL', 'NO_DATA', 'FULL/TOP_N_CHANGED');

-- round 2: updates of join keys (rows move between matches), deletes of the only match
UPDATE op_b SET k = 2 WHERE id = 10;
UPDATE op_a SET k = NULL WHERE id = 2;
DELETE FROM op_b WHERE id = 13;
UPDATE op_c SET k = 4 WHERE id = 22;
UPDATE op_b SET w = 3 WHERE id = 14;
SELECT * FROM dv_refresh_round('op_defs') WHERE NOT (verified AND same_text AND same_rows) OR refresh_mode NOT IN ('INCREMENTAL', 'NO_DATA', 'FULL/TOP_N_CHANGED');

-- round 3: a NULL enters the NOT IN subquery (no row of op_not_in is left), then goes
INSERT INTO op_b VALUES (17, NULL, 50);
SELECT * FROM dv_refresh_round('op_defs') WHERE NOT (verified AND same_text AND same_rows) OR refresh_mode NOT IN ('INCREMENTAL', 'NO_DATA', 'FULL/TOP_N_CHANGED');
SELECT count(*) FROM op_not_in;
DELETE FROM op_b WHERE id = 17;
SELECT * FROM dv_refresh_round('op_defs') WHERE NOT (verified AND same_text AND same_rows) OR refresh_mode NOT IN ('INCREMENTAL', 'NO_DATA', 'FULL/TOP_N_CHANGED');

-- round 4: several transactions, one rolled back, a row inserted and deleted in one window,
-- and a key updated back and forth
BEGIN;
INSERT INTO op_a VALUES (8, 2, 'deux');
UPDATE op_c SET k = 1 WHERE id = 21;
COMMIT;
BEGIN;
DELETE FROM op_b;
ROLLBACK;
INSERT INTO op_b VALUES (18, 2, 10);
DELETE FROM op_b WHERE id = 18;
UPDATE op_a SET k = 9 WHERE id = 1;
UPDATE op_a SET k = 1 WHERE id = 1;
DELETE FROM op_c WHERE id = 20;
SELECT * FROM dv_refresh_round('op_defs') WHERE NOT (verified AND same_text AND same_rows) OR refresh_mode NOT IN ('INCREMENTAL', 'NO_DATA', 'FULL/TOP_N_CHANGED');

-- round 5: one side emptied, then filled again
DELETE FROM op_b;
SELECT * FROM dv_refresh_round('op_defs') WHERE NOT (verified AND same_text AND same_rows) OR refresh_mode NOT IN ('INCREMENTAL', 'NO_DATA', 'FULL/TOP_N_CHANGED');
INSERT INTO op_b SELECT g, g % 5, g FROM generate_series(30, 60) g;
SELECT * FROM dv_refresh_round('op_defs') WHERE NOT (verified AND same_text AND same_rows) OR refresh_mode NOT IN ('INCREMENTAL', 'NO_DATA', 'FULL/TOP_N_CHANGED');
-- top-N: a change below the rows a table holds leaves it as it is (INCREMENTAL, nothing written)
UPDATE op_b SET w = 1 WHERE id = 31;
SELECT refresh_mode, mode_reason_code, rows_inserted, rows_deleted FROM dynview.refresh('op_top_join');
SELECT dynview.verify('op_top_join');
-- and one among them recomputes it
UPDATE op_b SET w = 100 WHERE id = 32;
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('op_top_join');
SELECT dynview.verify('op_top_join');
SELECT * FROM op_top_join ORDER BY w DESC, id, bid;
SELECT * FROM dv_refresh_round('op_defs') WHERE NOT (verified AND same_text AND same_rows) OR refresh_mode NOT IN ('INCREMENTAL', 'NO_DATA', 'FULL/TOP_N_CHANGED');

-- every refresh after the first was incremental (or had nothing to do, or was a top-N table's recompute)
SELECT h.refresh_mode, h.mode_reason_code, count(*) FROM op_defs d, dynview.refresh_history(d.name) h
 WHERE h.refresh_trigger = 'MANUAL' GROUP BY 1, 2 ORDER BY 1, 2;

SELECT count(dynview.drop_dynamic_table(name)) FROM op_defs;
DROP FUNCTION dv_refresh_round(regclass);
DROP TABLE op_defs, op_a, op_b, op_c;
