-- A domain's CHECK runs wherever a value of a type that holds the domain is formed, not only in a
-- coercion to the domain or a read of a column of it (brk15_domain_state): a cast from text to a
-- composite type with a column of the domain (record_in), or jsonb_populate_record into that type,
-- run it inside built-in functions, and the query names neither the domain nor user code.  A
-- refresh whose writes were marked as dynview's own (not decoded: writes_are_own) then ran a CHECK
-- calling a function declared IMMUTABLE that writes another table, and the dynamic tables over that
-- table missed those rows for good (seen on main 3c96563: verify() false, 65 rows missing).
-- Correct result: a query that computes any value of a type holding a domain (a domain, an array or
-- range of one, a composite type with such a column), or whose state has a column of such a type,
-- is not marked; every table over the written table sees the rows.  Shapes: the two above (FULL:
-- the functions are stable), a column definition list naming the domain, a field of the composite
-- read by count(DISTINCT) (its state has the domain's type), and count(DISTINCT x::dom) (a
-- coercion, marked since brk14).  Each refresh in a transaction of its own, checked with verify()
-- and by text and by =.
SET client_min_messages = warning;
\getenv abs_srcdir PG_ABS_SRCDIR
\set writing_domain :abs_srcdir '/sql/include/writing_domain.sql'
\i :writing_domain
CREATE TYPE bdv_pair AS (f dw_dom, h int);
CREATE TABLE bdv_src (id int PRIMARY KEY, g int, x int, c bdv_pair);
INSERT INTO bdv_src SELECT i, i % 3, i, ROW(i, i)::bdv_pair FROM generate_series(1, 20) i;
ANALYZE bdv_src;
CREATE TABLE bdv_writers (name text, query text);
INSERT INTO bdv_writers VALUES
  ('bdv_json', $$SELECT id, (pg_catalog.jsonb_populate_record(NULL::bdv_pair, pg_catalog.jsonb_build_object('f', x, 'h', 1))).h AS h FROM bdv_src$$),
  ('bdv_text', $$SELECT g, count(*) AS n, sum((('(' || x || ',1)')::bdv_pair).h) AS s FROM bdv_src GROUP BY g$$),
  ('bdv_coldef', $$SELECT s.id, r.h FROM bdv_src s, pg_catalog.jsonb_to_record(pg_catalog.jsonb_build_object('f', s.x, 'h', s.g)) AS r(f dw_dom, h int)$$),
  ('bdv_field', 'SELECT g, count(DISTINCT (c).f) AS nd, count(*) AS n FROM bdv_src GROUP BY g'),
  ('bdv_cast', 'SELECT g, count(DISTINCT x::dw_dom) AS nd, count(*) AS n FROM bdv_src GROUP BY g');
-- the writers, each created in a transaction of its own: no domain column in their results
SELECT format('SELECT dynview.create_dynamic_table(%L, %L, schedule => ''manual'') IS NOT NULL AS created',
              name, query) FROM bdv_writers ORDER BY name \gexec
SELECT name::text, effective_mode, mode_reason_code FROM dynview.dynamic_tables ORDER BY 1;
-- the reader of what they write
CREATE TABLE bdv_readers (name text, query text);
INSERT INTO bdv_readers VALUES ('bdv_rows', 'SELECT id, v FROM dw_log');
SELECT dynview.create_dynamic_table('bdv_rows', 'SELECT id, v FROM dw_log', schedule => 'manual') IS NOT NULL AS created;
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round
\set writers_round :abs_srcdir '/sql/include/writers_round.sql'
\i :writers_round

-- rows in and out of groups, a value twice, a NULL
INSERT INTO bdv_src VALUES (21, 1, 21, ROW(21, 0)), (22, 2, 3, ROW(3, 0)), (23, 0, NULL, NULL);
DELETE FROM bdv_src WHERE id = 2;
UPDATE bdv_src SET g = 0 WHERE id = 5;
SELECT dv_writers_round('bdv_writers', 'bdv_readers') \gexec
-- values changed, a group emptied
UPDATE bdv_src SET x = x + 100, c = ROW((c).f + 100, 1) WHERE id % 4 = 0;
DELETE FROM bdv_src WHERE g = 2;
SELECT dv_writers_round('bdv_writers', 'bdv_readers') \gexec

SELECT dynview.drop_dynamic_table(name) FROM bdv_writers;
SELECT dynview.drop_dynamic_table('bdv_rows');
DROP TABLE bdv_writers, bdv_readers, dw_size;
DROP FUNCTION dv_refresh_round(regclass), dv_writers_round(regclass, regclass);
DROP TABLE bdv_src, dw_log;
DROP SEQUENCE dw_seq;
DROP TYPE bdv_pair;
DROP DOMAIN dw_dom;
DROP FUNCTION dw_ok(int), dw_write(int);
