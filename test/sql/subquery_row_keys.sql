-- A subquery operator that keeps one row per group or per distinct value (GROUP BY, DISTINCT,
-- DISTINCT ON in a subquery in FROM) recomputes its affected groups now and as they were; a key
-- whose equal values can print differently would let the old row it computes cancel another
-- spelling than the table holds, so such keys send the query FULL (SUBQUERY_IN_FROM).  A key of a
-- composite type (a row type, a domain over one) whose columns all compare as identity (int, text
-- under a deterministic collation, char(n), a nested such type) compares as identity too
-- (record_eq: column by column, two NULL columns equal), so it is INCREMENTAL
-- (delta.c dv_key_equality_is_identity); a column of numeric without a scale, or an anonymous
-- record, stays FULL.  Keys move among NULL, (,), (1,), (,x) and (1,x); every refresh is
-- compared with its query (dynview.verify(), and the rows by text and by =).
SET client_min_messages = warning;
\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round

CREATE TYPE srk AS (a int, b text);
CREATE TYPE srk_nest AS (k srk, c char(2));
CREATE TYPE srk_num AS (a int, n numeric);
CREATE DOMAIN srk_dom AS srk CHECK ((VALUE).a IS NULL OR (VALUE).a < 100);
CREATE TABLE srk_p (id int PRIMARY KEY, k srk, d srk_dom, nk srk_nest, m srk_num, v int);
CREATE TABLE srk_q (id int PRIMARY KEY, k srk, v int);
-- keys: NULL, (,), (1,), (,x), (1,x), (2,y)
CREATE FUNCTION srk_key(i int) RETURNS srk LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE i % 6 WHEN 0 THEN NULL WHEN 1 THEN ROW(NULL, NULL)::srk WHEN 2 THEN ROW(1, NULL)::srk
                    WHEN 3 THEN ROW(NULL, 'x')::srk WHEN 4 THEN ROW(1, 'x')::srk ELSE ROW(2, 'y')::srk END $$;
INSERT INTO srk_p SELECT i, srk_key(i), srk_key(i / 2)::srk_dom, ROW(srk_key(i / 3), CASE WHEN i % 4 = 0 THEN NULL ELSE ('c' || i % 2)::char(2) END)::srk_nest,
                         ROW(i % 2, CASE WHEN i % 3 = 0 THEN 1.0 ELSE 1.00 END)::srk_num, i % 5
  FROM generate_series(1, 60) i;
INSERT INTO srk_q SELECT i, srk_key(i + 1), i FROM generate_series(1, 12) i;

CREATE TABLE srk_defs (name text, query text);
INSERT INTO srk_defs VALUES
  ('srk_group_join', $$SELECT g.k, g.n, g.s, q.id FROM (SELECT k, count(*) AS n, sum(v) AS s FROM srk_p GROUP BY k) g
                       JOIN srk_q q ON q.k = g.k$$),
  ('srk_group_rows', $$SELECT g.k, g.n, g.mx FROM (SELECT k, count(*) AS n, max(v) AS mx FROM srk_p GROUP BY k) g
                       WHERE g.k IS DISTINCT FROM ROW(2, 'y')::srk$$),
  ('srk_distinct', $$SELECT count(*) AS n, sum(v) AS sv FROM (SELECT DISTINCT k, v FROM srk_p) s$$),
  ('srk_distinct_domain', $$SELECT s.d, q.id FROM (SELECT DISTINCT d FROM srk_p) s LEFT JOIN srk_q q ON q.k = s.d$$),
  ('srk_nested', $$SELECT s.nk, s.n, q.id FROM (SELECT nk, count(*) AS n FROM srk_p GROUP BY nk) s
                   LEFT JOIN srk_q q ON q.k = (s.nk).k$$),
  ('srk_distinct_on', $$SELECT s.k, s.id FROM (SELECT DISTINCT ON (k) k, id FROM srk_p ORDER BY k, id) s$$);
-- still FULL (SUBQUERY_IN_FROM): a column of numeric without a scale (1.0 = 1.00), an anonymous
-- record (the subquery joined or aggregated over, so that it is an operator of its own)
CREATE TABLE srk_full_defs (name text, query text);
INSERT INTO srk_full_defs VALUES
  ('srk_numeric', $$SELECT s.m, s.n, q.id FROM (SELECT m, count(*) AS n FROM srk_p GROUP BY m) s JOIN srk_q q ON q.v = s.n$$),
  ('srk_record', $$SELECT count(*) AS n FROM (SELECT DISTINCT ROW(v, id % 3) AS r FROM srk_p) s$$);

SELECT d.name, e.value AS mode
  FROM (TABLE srk_defs UNION ALL TABLE srk_full_defs) d, dynview.explain(d.query) e
 WHERE e.property = 'mode' ORDER BY d.name;
SELECT d.name, e.value AS reason_code
  FROM srk_full_defs d, dynview.explain(d.query) e
 WHERE e.property = 'reason_code' ORDER BY d.name;
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual') IS NOT NULL AS created
  FROM (TABLE srk_defs UNION ALL TABLE srk_full_defs) d ORDER BY name;

-- keys moved among each other, NULL and (,) among them
UPDATE srk_p SET k = srk_key(id + 1) WHERE id % 4 = 0;
UPDATE srk_p SET d = NULL WHERE id % 7 = 0;
UPDATE srk_p SET d = ROW(NULL, NULL)::srk WHERE id % 11 = 0;
INSERT INTO srk_p VALUES (100, ROW(NULL, NULL), ROW(NULL, NULL), ROW(ROW(NULL, NULL), NULL), ROW(NULL, NULL), 3),
                         (101, NULL, NULL, NULL, NULL, 4), (102, ROW(1, 'x'), ROW(1, 'x'), ROW(NULL, 'c1'), ROW(0, 1.000), 0);
DELETE FROM srk_p WHERE id IN (5, 6, 7);
UPDATE srk_q SET k = ROW(NULL, NULL) WHERE id = 1;
SELECT * FROM dv_refresh_round('srk_defs');
SELECT * FROM dv_refresh_round('srk_full_defs');
-- whole groups emptied, a NULL key and a key of NULLs to and fro
DELETE FROM srk_p WHERE k IS NOT DISTINCT FROM ROW(2, 'y')::srk;
UPDATE srk_p SET k = NULL WHERE k IS NOT DISTINCT FROM ROW(NULL, NULL)::srk AND id % 2 = 0;
UPDATE srk_p SET k = ROW(NULL, NULL) WHERE k IS NULL AND id % 3 = 0 AND NOT (k IS NOT NULL);
UPDATE srk_p SET nk = ROW(ROW(1, NULL), 'c0') WHERE id % 5 = 1;
UPDATE srk_q SET k = NULL WHERE id = 2;
SELECT * FROM dv_refresh_round('srk_defs');
SELECT * FROM dv_refresh_round('srk_full_defs');
-- values back to earlier keys, and new ones
UPDATE srk_p SET k = srk_key(id) WHERE id % 3 = 0;
INSERT INTO srk_p SELECT i, srk_key(i * 7), srk_key(i)::srk_dom, ROW(srk_key(i), ('c' || i % 3)::char(2))::srk_nest, ROW(1, 2.0)::srk_num, i % 4
  FROM generate_series(200, 230) i;
SELECT * FROM dv_refresh_round('srk_defs');
SELECT * FROM dv_refresh_round('srk_full_defs');
SELECT k::text AS k, n, mx FROM srk_group_rows ORDER BY k::text COLLATE "C";
SELECT n, sv FROM srk_distinct;

SELECT count(dynview.drop_dynamic_table(name)) FROM (TABLE srk_defs UNION ALL TABLE srk_full_defs) d;
DROP FUNCTION dv_refresh_round(regclass);
DROP TABLE srk_defs, srk_full_defs, srk_p, srk_q;
DROP FUNCTION srk_key(int);
DROP DOMAIN srk_dom;
DROP TYPE srk_num, srk_nest, srk;
