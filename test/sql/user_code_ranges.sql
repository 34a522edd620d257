-- A range type compares its bounds with its subtype's operator class, which need not be the
-- subtype's default one: CREATE TYPE ... AS RANGE (subtype = int, subtype_opclass = ...) with a
-- superuser's operator class whose comparison is PL/pgSQL.  GROUP BY, DISTINCT and the dynamic
-- table's key index then call it inside the refresh's writes with no user function in the query,
-- and the range's own operator class (range_ops) and I/O functions are built in; writes marked as
-- dynview's own would never be decoded, and a table over what the comparison writes would miss
-- it.  dv_type_runs_user_code (analyze/delta.c type_itself_runs_user_code) asks a range's
-- subtype operator class (dv_index_column_runs_user_code: its family and the family's members)
-- and its canonical and subtype_diff functions; the writers are not marked, and the reader of
-- what their comparisons wrote sees every row (verify(), and by text and by =).
SET client_min_messages = warning;
SET dynview.full_refresh_change_ratio = 0;
\getenv abs_srcdir PG_ABS_SRCDIR
\set writing_domain :abs_srcdir '/sql/include/writing_domain.sql'
\i :writing_domain
-- an operator class for integers whose comparison writes dw_log
CREATE FUNCTION ucr_cmp(int, int) RETURNS int LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN PERFORM public.dw_write(9); RETURN CASE WHEN $1 < $2 THEN -1 WHEN $1 > $2 THEN 1 ELSE 0 END; END $$;
CREATE FUNCTION ucr_lt(int, int) RETURNS bool LANGUAGE sql IMMUTABLE AS 'SELECT public.ucr_cmp($1, $2) < 0';
CREATE FUNCTION ucr_le(int, int) RETURNS bool LANGUAGE sql IMMUTABLE AS 'SELECT public.ucr_cmp($1, $2) <= 0';
CREATE FUNCTION ucr_eq(int, int) RETURNS bool LANGUAGE sql IMMUTABLE AS 'SELECT public.ucr_cmp($1, $2) = 0';
CREATE FUNCTION ucr_ge(int, int) RETURNS bool LANGUAGE sql IMMUTABLE AS 'SELECT public.ucr_cmp($1, $2) >= 0';
CREATE FUNCTION ucr_gt(int, int) RETURNS bool LANGUAGE sql IMMUTABLE AS 'SELECT public.ucr_cmp($1, $2) > 0';
CREATE OPERATOR public.<<< (leftarg = int, rightarg = int, function = ucr_lt);
CREATE OPERATOR public.<<<= (leftarg = int, rightarg = int, function = ucr_le);
CREATE OPERATOR public.=== (leftarg = int, rightarg = int, function = ucr_eq);
CREATE OPERATOR public.>>>= (leftarg = int, rightarg = int, function = ucr_ge);
CREATE OPERATOR public.>>> (leftarg = int, rightarg = int, function = ucr_gt);
CREATE OPERATOR CLASS ucr_int_ops FOR TYPE int USING btree AS
  OPERATOR 1 public.<<<, OPERATOR 2 public.<<<=, OPERATOR 3 public.===, OPERATOR 4 public.>>>=,
  OPERATOR 5 public.>>>, FUNCTION 1 ucr_cmp(int, int);
CREATE TYPE ucr_range AS RANGE (subtype = int, subtype_opclass = ucr_int_ops);
CREATE TABLE ucr_src (id int PRIMARY KEY, r ucr_range, g int, v int);
INSERT INTO ucr_src SELECT i, ucr_range(i % 3, i % 3 + 2), i % 4, i FROM generate_series(1, 12) i;
ANALYZE ucr_src;
CREATE TABLE ucr_writers (name text, query text);
INSERT INTO ucr_writers VALUES
  ('ucr_group', 'SELECT r, count(*) AS n, sum(v) AS s FROM ucr_src GROUP BY r'),
  ('ucr_distinct', 'SELECT DISTINCT r, g FROM ucr_src');
SELECT format('SELECT dynview.create_dynamic_table(%L, %L, schedule => ''manual'') IS NOT NULL AS created',
              name, query) FROM ucr_writers ORDER BY name \gexec
SELECT name::text, effective_mode, mode_reason_code FROM dynview.dynamic_tables ORDER BY 1;
-- the reader of what they write
CREATE TABLE ucr_readers (name text, query text);
INSERT INTO ucr_readers VALUES ('ucr_rows', 'SELECT id, v FROM dw_log');
SELECT dynview.create_dynamic_table('ucr_rows', 'SELECT id, v FROM dw_log', schedule => 'manual') IS NOT NULL AS created;
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round
\set writers_round :abs_srcdir '/sql/include/writers_round.sql'
\i :writers_round

-- rows into and out of groups, a new range, one moved
INSERT INTO ucr_src VALUES (21, ucr_range(5, 9), 1, 21), (22, ucr_range(1, 3), 2, 22);
DELETE FROM ucr_src WHERE id = 3;
UPDATE ucr_src SET r = ucr_range(2, 4), v = v + 100 WHERE id = 4;
SELECT dv_writers_round('ucr_writers', 'ucr_readers') \gexec
-- a group emptied, values changed
DELETE FROM ucr_src WHERE r = ucr_range(5, 9);
UPDATE ucr_src SET v = v * 2 WHERE g = 1;
SELECT dv_writers_round('ucr_writers', 'ucr_readers') \gexec

SELECT dynview.drop_dynamic_table(name) FROM ucr_writers ORDER BY name;
SELECT dynview.drop_dynamic_table('ucr_rows');
DROP TABLE ucr_writers, ucr_readers, dw_size, ucr_src;
DROP TYPE ucr_range;
DROP FUNCTION dv_refresh_round(regclass), dv_writers_round(regclass, regclass);
DROP OPERATOR CLASS ucr_int_ops USING btree CASCADE;
DROP OPERATOR FAMILY ucr_int_ops USING btree;
DROP OPERATOR public.<<< (int, int), public.<<<= (int, int), public.=== (int, int),
  public.>>>= (int, int), public.>>> (int, int);
DROP FUNCTION ucr_lt(int, int), ucr_le(int, int), ucr_eq(int, int), ucr_ge(int, int),
  ucr_gt(int, int), ucr_cmp(int, int);
DROP TABLE dw_log;
DROP SEQUENCE dw_seq;
DROP DOMAIN dw_dom;
DROP FUNCTION dw_ok(int), dw_write(int);
RESET dynview.full_refresh_change_ratio;
