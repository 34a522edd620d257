-- Tester's finding (s18-brk): a refresh's writes are marked as dynview's own (never decoded) when
-- nothing in them runs user code; dv_type_runs_user_code asks a type's default operator classes
-- and I/O functions, and looks into a range's subtype, but a range type compares its bounds with
-- its own subtype operator class (CREATE TYPE ... AS RANGE (subtype_opclass = ...)), which need not
-- be the subtype's default, and runs its subtype_diff in a GiST index: neither was asked.  A range
-- over int whose subtype operator class compares in PL/pgSQL (through dw_write, which writes
-- dw_log) ran inside the marked writes of GROUP BY / DISTINCT / the key index with no user
-- function in the query; a range whose subtype_diff writes ran in a GiST index of the dynamic
-- table (built-in range_ops): what they wrote was never decoded and the table over dw_log missed
-- it (verify() false on 7a54fef).
-- Correct result: a range type whose subtype operator class, canonical or subtype_diff function
-- is not built in runs user code; those writes are not marked, the reader sees every row
-- (verify(), by text and by =).
SET client_min_messages = warning;
SET dynview.full_refresh_change_ratio = 0;
\getenv abs_srcdir PG_ABS_SRCDIR
\set writing_domain :abs_srcdir '/sql/include/writing_domain.sql'
\i :writing_domain
-- a non-default btree operator class for int whose comparison writes dw_log
CREATE FUNCTION brs_cmp(int, int) RETURNS int LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN PERFORM public.dw_write(9); RETURN btint4cmp($1, $2); END $$;
CREATE OPERATOR CLASS brs_int_ops FOR TYPE int USING btree AS
  OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >, FUNCTION 1 brs_cmp(int, int);
CREATE TYPE brs_range AS RANGE (subtype = int, subtype_opclass = brs_int_ops);
-- a range over int with the default operator class and a subtype_diff that writes
CREATE FUNCTION brs_diff(int, int) RETURNS float8 LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN PERFORM public.dw_write(10); RETURN $1 - $2; END $$;
CREATE TYPE brs_drange AS RANGE (subtype = int, subtype_diff = brs_diff);
-- (the ranges stored in the source: the queries call no range constructor, a function CREATE TYPE
-- made, which dv_calls_user_code counts as user code)
CREATE TABLE brs_src (id int PRIMARY KEY, r brs_range, d brs_drange, g int, v int);
INSERT INTO brs_src SELECT i, brs_range(i % 5, i % 5 + 2), brs_drange(i % 5, i % 5 + i), i % 3, i
  FROM generate_series(1, 30) i;
ANALYZE brs_src;
CREATE TABLE brs_writers (name text, query text);
INSERT INTO brs_writers VALUES
  ('brs_group', 'SELECT r, count(*) AS n, sum(v) AS s FROM brs_src GROUP BY r'),
  ('brs_distinct', 'SELECT DISTINCT r, g FROM brs_src'),
  ('brs_gist', 'SELECT id, d AS r FROM brs_src');
SELECT format('SELECT dynview.create_dynamic_table(%L, %L, schedule => ''manual'') IS NOT NULL AS created',
              name, query) FROM brs_writers ORDER BY name \gexec
CREATE INDEX brs_gist_r ON brs_gist USING gist (r);
CREATE TABLE brs_readers (name text, query text);
INSERT INTO brs_readers VALUES ('brs_rows', 'SELECT id, v FROM dw_log');
SELECT dynview.create_dynamic_table('brs_rows', 'SELECT id, v FROM dw_log', schedule => 'manual') IS NOT NULL AS created;
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round
\set writers_round :abs_srcdir '/sql/include/writers_round.sql'
\i :writers_round

INSERT INTO brs_src SELECT 100 + i, brs_range(i % 7, 9), brs_drange(i, 2 * i), i % 3, i * 3 FROM generate_series(1, 20) i;
DELETE FROM brs_src WHERE id BETWEEN 3 AND 6;
UPDATE brs_src SET r = brs_range(10, 12), d = brs_drange(1, 100) WHERE id BETWEEN 10 AND 14;
SELECT dv_writers_round('brs_writers', 'brs_readers') \gexec
UPDATE brs_src SET v = v + 1, r = brs_range(1, 3), d = brs_drange(5, 6) WHERE g = 1;
SELECT dv_writers_round('brs_writers', 'brs_readers') \gexec

SELECT dynview.drop_dynamic_table(name) IS NOT NULL AS dropped FROM brs_writers ORDER BY name;
SELECT dynview.drop_dynamic_table('brs_rows') IS NOT NULL AS dropped;
DROP TABLE brs_writers, brs_readers, dw_size, brs_src;
DROP TYPE brs_range, brs_drange;
DROP FUNCTION dv_refresh_round(regclass), dv_writers_round(regclass, regclass);
DROP OPERATOR CLASS brs_int_ops USING btree CASCADE;
DROP OPERATOR FAMILY brs_int_ops USING btree;
DROP FUNCTION brs_cmp(int, int), brs_diff(int, int);
DROP TABLE dw_log;
DROP SEQUENCE dw_seq;
DROP DOMAIN dw_dom;
DROP FUNCTION dw_ok(int), dw_write(int);
RESET dynview.full_refresh_change_ratio;
