-- Outer joins made inner (or one-sided) by a strict condition above them (optree.c
-- reduce_outer_join, as PostgreSQL's planner reduces them): a condition that cannot be true when
-- the columns of a nullable side are all NULL drops every row that side was padded for, so the
-- join keeps the rule of the reduced join type, without the unmatched-rows terms (anti-join rule)
-- of its delta.  TPC-H Q17's shape (a correlated average compared by "<", made a left join with
-- the grouped subquery) is the common case.  Conditions that a padded row can pass (IS NULL,
-- COALESCE, an OR with the other side) keep the outer join.  explain() shows each join's type;
-- verify() after every refresh, through deletes, NULLs, and groups appearing and vanishing.
SET client_min_messages = warning;
CREATE TABLE oj_a (id int PRIMARY KEY, k int, x int);
ALTER TABLE oj_a REPLICA IDENTITY FULL;
CREATE TABLE oj_b (id int PRIMARY KEY, k int, y int);
ALTER TABLE oj_b REPLICA IDENTITY FULL;
INSERT INTO oj_a SELECT n, CASE WHEN n % 11 = 0 THEN NULL ELSE n % 8 END, (n * 7) % 13 - 3 FROM generate_series(1, 60) n;
INSERT INTO oj_b SELECT n, CASE WHEN n % 13 = 0 THEN NULL ELSE n % 6 END, CASE WHEN n % 9 = 0 THEN NULL ELSE (n * 5) % 17 - 4 END
  FROM generate_series(1, 50) n;

CREATE TABLE oj_tables (name text PRIMARY KEY, query text, join_type text);
INSERT INTO oj_tables VALUES
  -- a correlated scalar subquery compared by "<" (TPC-H Q17): inner
  ('oj_scalar', 'SELECT a.id, a.x FROM oj_a a WHERE a.x < (SELECT avg(b.y) FROM oj_b b WHERE b.k = a.k)', 'inner'),
  -- WHERE on the nullable side of a LEFT JOIN: inner
  ('oj_where', 'SELECT a.id, b.id AS bid, b.y FROM oj_a a LEFT JOIN oj_b b ON b.k = a.k WHERE b.y > 2', 'inner'),
  -- RIGHT JOIN with a strict condition on its nullable (left) side: inner
  ('oj_right', 'SELECT a.id, b.id AS bid FROM oj_b b RIGHT JOIN oj_a a ON b.k = a.k WHERE b.y < 3', 'inner'),
  -- FULL JOIN, strict on the left side: left; on the right side: right
  ('oj_full_l', 'SELECT a.id, b.id AS bid, b.y FROM oj_a a FULL JOIN oj_b b ON b.k = a.k AND b.y > a.x WHERE a.x > 0', 'left'),
  ('oj_full_r', 'SELECT a.id, b.id AS bid, a.x FROM oj_a a FULL JOIN oj_b b ON b.k = a.k AND b.y > a.x WHERE b.y > 0', 'right'),
  -- conditions a padded row passes: the outer join stays
  ('oj_isnull', 'SELECT a.id, a.k FROM oj_a a LEFT JOIN oj_b b ON b.k = a.k AND b.y > 5 WHERE b.id IS NULL', 'left'),
  ('oj_coalesce', 'SELECT a.id, b.id AS bid FROM oj_a a LEFT JOIN oj_b b ON b.k = a.k WHERE COALESCE(b.y, 0) >= 0', 'left'),
  ('oj_or', 'SELECT a.id, b.id AS bid FROM oj_a a LEFT JOIN oj_b b ON b.k = a.k WHERE b.y > 6 OR a.x > 6', 'left');
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual') IS NOT NULL AS created
  FROM oj_tables ORDER BY name;
SELECT t.name, d.effective_mode FROM oj_tables t JOIN dynview.dynamic_tables d ON d.name = t.name::regclass ORDER BY 1;

-- the join of each tree as explain() gives it, against the type expected
SELECT t.name, t.join_type AS expected, string_agg(substring(btrim(l) FROM '^(\w+) join'), ', ') AS joins
  FROM oj_tables t JOIN dynview.explain_dynamic_table(t.name) e ON e.property = 'operator tree',
       regexp_split_to_table(e.value, '\n') l
 WHERE btrim(l) ~ '^\w+ join:'
 GROUP BY t.name, t.join_type ORDER BY 1;
-- no unmatched-rows terms in the delta of the reduced ones
SELECT t.name, strpos(e.value, 'k.dv_s') > 0 AS unmatched_terms
  FROM oj_tables t JOIN dynview.explain_dynamic_table(t.name) e ON e.property = 'delta'
 ORDER BY 1;

\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_rows :abs_srcdir '/sql/include/refresh_rows.sql'
\i :refresh_rows
CREATE FUNCTION oj_round() RETURNS TABLE (name text, mode text, reason text, verified bool, rows bigint)
LANGUAGE sql AS $$ SELECT name, mode, reason, verified, rows FROM dv_refresh_rows('oj_tables') $$;

SELECT * FROM oj_round();
-- 1. rows of both sides inserted and deleted, some with NULL keys and NULL values
INSERT INTO oj_b SELECT 100 + n, n % 7, (n * 3) % 11 - 2 FROM generate_series(1, 20) n;
INSERT INTO oj_b VALUES (200, NULL, 4), (201, 3, NULL);
DELETE FROM oj_a WHERE id % 9 = 0;
INSERT INTO oj_a VALUES (100, 6, 1), (101, NULL, 5), (102, 9, 2);
SELECT * FROM oj_round();
-- 2. a group vanishes (every row of key 2 of oj_b deleted), one appears (key 9), values move
DELETE FROM oj_b WHERE k = 2;
INSERT INTO oj_b VALUES (300, 9, 7), (301, 9, -1);
UPDATE oj_b SET y = -y WHERE k = 4;
UPDATE oj_a SET x = x + 5 WHERE k = 1;
SELECT * FROM oj_round();
-- 3. in one window: key 2 back, then its rows' values set NULL; rows' keys set NULL and back
INSERT INTO oj_b VALUES (400, 2, 3), (401, 2, 8);
UPDATE oj_b SET y = NULL WHERE id = 400;
UPDATE oj_a SET k = NULL WHERE id IN (1, 2, 3);
UPDATE oj_a SET k = 2 WHERE id = 3;
DELETE FROM oj_b WHERE y IS NULL AND k IS NULL;
SELECT * FROM oj_round();
-- 4. one side emptied, then refilled
DELETE FROM oj_b;
SELECT * FROM oj_round();
INSERT INTO oj_b SELECT n, n % 5, n % 7 - 2 FROM generate_series(1, 30) n;
SELECT * FROM oj_round();

SELECT dynview.drop_dynamic_table(name) FROM oj_tables ORDER BY name;
DROP FUNCTION oj_round();
DROP FUNCTION dv_refresh_rows(regclass, regproc);
DROP TABLE oj_tables, oj_a, oj_b;
