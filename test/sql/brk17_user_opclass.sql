-- Tester's finding (s17-brk): a refresh's writes are marked as dynview's own (not decoded:
-- writes_are_own) when nothing in them runs user code, but the comparisons of a type's default
-- operator class were not asked: a superuser may give a built-in type that has none (point) a
-- default btree operator class whose support function is PL/pgSQL.  GROUP BY, DISTINCT, the
-- dynamic table's key index and the refresh's joins then call it inside the marked writes, with
-- no user function named in the query; a comparison that writes another table (here: a function
-- declared IMMUTABLE that calls the volatile dw_write) wrote rows that were never decoded, and the
-- dynamic tables over that table missed them for good (seen on b879c15: verify() false, 103 rows
-- missing).  Correct result: a query that forms or compares values of a type whose default btree
-- or hash operator class is not built in (dv_type_runs_user_code, at any depth), groups or sorts
-- with an operator that is not built in, or a dynamic table with an index whose operator family
-- is not built in, is not marked; every table over the written table sees the rows.  Shapes:
-- GROUP BY a point shown and not shown, DISTINCT, an aggregate ordered by a point, a composite
-- with a point column, an aggregate ordered by a user operator on integers, and an index of a
-- user operator class on a dynamic table of integers.  Each writer refreshed in a transaction of
-- its own, then the reader of what they wrote, checked with verify() and by text and by =.
SET client_min_messages = warning;
-- (INCREMENTAL whatever the number of rows the comparisons logged: the reader's mode is shown)
SET dynview.full_refresh_change_ratio = 0;
\getenv abs_srcdir PG_ABS_SRCDIR
\set writing_domain :abs_srcdir '/sql/include/writing_domain.sql'
\i :writing_domain
-- a default btree operator class for point whose comparison writes dw_log
CREATE FUNCTION buo_cmp(point, point) RETURNS int LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  PERFORM public.dw_write(7);
  RETURN CASE WHEN $1[0] < $2[0] THEN -1 WHEN $1[0] > $2[0] THEN 1
              WHEN $1[1] < $2[1] THEN -1 WHEN $1[1] > $2[1] THEN 1 ELSE 0 END;
END $$;
CREATE FUNCTION buo_lt(point, point) RETURNS bool LANGUAGE sql IMMUTABLE AS 'SELECT public.buo_cmp($1, $2) < 0';
CREATE FUNCTION buo_le(point, point) RETURNS bool LANGUAGE sql IMMUTABLE AS 'SELECT public.buo_cmp($1, $2) <= 0';
CREATE FUNCTION buo_eq(point, point) RETURNS bool LANGUAGE sql IMMUTABLE AS 'SELECT public.buo_cmp($1, $2) = 0';
CREATE FUNCTION buo_ge(point, point) RETURNS bool LANGUAGE sql IMMUTABLE AS 'SELECT public.buo_cmp($1, $2) >= 0';
CREATE FUNCTION buo_gt(point, point) RETURNS bool LANGUAGE sql IMMUTABLE AS 'SELECT public.buo_cmp($1, $2) > 0';
CREATE OPERATOR public.< (leftarg = point, rightarg = point, function = buo_lt);
CREATE OPERATOR public.<= (leftarg = point, rightarg = point, function = buo_le);
CREATE OPERATOR public.= (leftarg = point, rightarg = point, function = buo_eq);
CREATE OPERATOR public.>= (leftarg = point, rightarg = point, function = buo_ge);
CREATE OPERATOR public.> (leftarg = point, rightarg = point, function = buo_gt);
CREATE OPERATOR CLASS buo_point_ops DEFAULT FOR TYPE point USING btree AS
  OPERATOR 1 public.<, OPERATOR 2 public.<=, OPERATOR 3 public.=, OPERATOR 4 public.>=,
  OPERATOR 5 public.>, FUNCTION 1 buo_cmp(point, point);
-- a non-default one for integers, and an operator of it
CREATE FUNCTION buo_icmp(int, int) RETURNS int LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN PERFORM public.dw_write(8); RETURN CASE WHEN $1 < $2 THEN 1 WHEN $1 > $2 THEN -1 ELSE 0 END; END $$;
CREATE FUNCTION buo_ilt(int, int) RETURNS bool LANGUAGE sql IMMUTABLE AS 'SELECT public.buo_icmp($1, $2) < 0';
CREATE FUNCTION buo_ile(int, int) RETURNS bool LANGUAGE sql IMMUTABLE AS 'SELECT public.buo_icmp($1, $2) <= 0';
CREATE FUNCTION buo_ieq(int, int) RETURNS bool LANGUAGE sql IMMUTABLE AS 'SELECT public.buo_icmp($1, $2) = 0';
CREATE FUNCTION buo_ige(int, int) RETURNS bool LANGUAGE sql IMMUTABLE AS 'SELECT public.buo_icmp($1, $2) >= 0';
CREATE FUNCTION buo_igt(int, int) RETURNS bool LANGUAGE sql IMMUTABLE AS 'SELECT public.buo_icmp($1, $2) > 0';
CREATE OPERATOR public.<<< (leftarg = int, rightarg = int, function = buo_ilt);
CREATE OPERATOR public.<<<= (leftarg = int, rightarg = int, function = buo_ile);
CREATE OPERATOR public.=== (leftarg = int, rightarg = int, function = buo_ieq);
CREATE OPERATOR public.>>>= (leftarg = int, rightarg = int, function = buo_ige);
CREATE OPERATOR public.>>> (leftarg = int, rightarg = int, function = buo_igt);
CREATE OPERATOR CLASS buo_int_ops FOR TYPE int USING btree AS
  OPERATOR 1 public.<<<, OPERATOR 2 public.<<<=, OPERATOR 3 public.===, OPERATOR 4 public.>>>=,
  OPERATOR 5 public.>>>, FUNCTION 1 buo_icmp(int, int);
CREATE TYPE buo_pair AS (p point, n int);
CREATE TABLE buo_src (id int PRIMARY KEY, p point, g int, v int);
INSERT INTO buo_src SELECT i, point(i % 3, 0), i % 4, i FROM generate_series(1, 12) i;
ANALYZE buo_src;
CREATE TABLE buo_writers (name text, query text);
INSERT INTO buo_writers VALUES
  ('buo_group', 'SELECT p, count(*) AS n, sum(v) AS s FROM buo_src GROUP BY p'),
  ('buo_hidden', 'SELECT count(*) AS n, sum(v) AS s FROM buo_src GROUP BY p'),
  ('buo_distinct', 'SELECT DISTINCT p, g FROM buo_src'),
  ('buo_agg_order', 'SELECT g, string_agg(v::text, '','' ORDER BY p, v) AS s FROM buo_src GROUP BY g'),
  ('buo_row', 'SELECT id, ROW(p, g)::buo_pair AS pr FROM buo_src'),
  ('buo_agg_using', 'SELECT g, string_agg(v::text, '','' ORDER BY v USING OPERATOR(public.<<<)) AS s FROM buo_src GROUP BY g'),
  ('buo_index', 'SELECT id, g, v FROM buo_src');
SELECT format('SELECT dynview.create_dynamic_table(%L, %L, schedule => ''manual'') IS NOT NULL AS created',
              name, query) FROM buo_writers ORDER BY name \gexec
CREATE INDEX buo_index_v ON buo_index (v buo_int_ops);
SELECT name::text, effective_mode, mode_reason_code FROM dynview.dynamic_tables ORDER BY 1;
-- the reader of what they write
CREATE TABLE buo_readers (name text, query text);
INSERT INTO buo_readers VALUES ('buo_rows', 'SELECT id, v FROM dw_log');
SELECT dynview.create_dynamic_table('buo_rows', 'SELECT id, v FROM dw_log', schedule => 'manual') IS NOT NULL AS created;
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round
\set writers_round :abs_srcdir '/sql/include/writers_round.sql'
\i :writers_round

-- rows into and out of groups, a new point, one moved
INSERT INTO buo_src VALUES (21, point(5, 5), 1, 21), (22, point(1, 0), 2, 22);
DELETE FROM buo_src WHERE id = 3;
UPDATE buo_src SET p = point(2, 0), v = v + 100 WHERE id = 4;
SELECT dv_writers_round('buo_writers', 'buo_readers') \gexec
-- a group emptied, values changed
DELETE FROM buo_src WHERE p ~= point(5, 5);
UPDATE buo_src SET v = v * 2 WHERE g = 1;
SELECT dv_writers_round('buo_writers', 'buo_readers') \gexec

SELECT dynview.drop_dynamic_table(name) FROM buo_writers ORDER BY name;
SELECT dynview.drop_dynamic_table('buo_rows');
DROP TABLE buo_writers, buo_readers, dw_size, buo_src;
DROP TYPE buo_pair;
DROP FUNCTION dv_refresh_round(regclass), dv_writers_round(regclass, regclass);
DROP OPERATOR CLASS buo_point_ops USING btree CASCADE;
DROP OPERATOR CLASS buo_int_ops USING btree CASCADE;
DROP OPERATOR FAMILY buo_point_ops USING btree;
DROP OPERATOR FAMILY buo_int_ops USING btree;
DROP OPERATOR public.< (point, point), public.<= (point, point), public.= (point, point),
  public.>= (point, point), public.> (point, point);
DROP OPERATOR public.<<< (int, int), public.<<<= (int, int), public.=== (int, int),
  public.>>>= (int, int), public.>>> (int, int);
DROP FUNCTION buo_lt(point, point), buo_le(point, point), buo_eq(point, point), buo_ge(point, point),
  buo_gt(point, point), buo_cmp(point, point), buo_ilt(int, int), buo_ile(int, int), buo_ieq(int, int),
  buo_ige(int, int), buo_igt(int, int), buo_icmp(int, int);
DROP TABLE dw_log;
DROP SEQUENCE dw_seq;
DROP DOMAIN dw_dom;
DROP FUNCTION dw_ok(int), dw_write(int);
RESET dynview.full_refresh_change_ratio;
