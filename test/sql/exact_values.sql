-- Exact values (issue 12): every value of a dynamic table exactly as its query gives it.
-- (1) keys of types with a type modifier (char(n), bpchar without a length, bit(n)) keep their
-- type; (2) a change to an equal but not identical value (1.0 -> 1.00, 0 -> -0, citext, interval,
-- jsonb, numeric[], ranges) is a change, in plain rows, group keys, aggregates and DISTINCT;
-- (3) a user-defined type whose "=" is not in pg_catalog.  Every refresh is verified; verify()
-- compares rows by their text, so that 1.0 and 1.00 differ.
SET client_min_messages = warning;

-- (1) char(n) group keys, affected groups recomputed (sum of unconstrained numeric), as in
-- TPC-H Q10/Q12: the keys of the changed groups must find their rows ('MAIL      ', not 'M')
CREATE TABLE ex_li (id int PRIMARY KEY, shipmode char(10), nation char(25), price numeric(12,2),
                    disc numeric(4,2), flags bit(3));
INSERT INTO ex_li VALUES (1, 'MAIL', 'GERMANY', 100.00, 0.10, B'101'), (2, 'SHIP', 'FRANCE', 50.00, 0.00, B'010'),
  (3, 'MAIL', 'FRANCE', 20.00, 0.05, B'101'), (4, 'AIR', 'GERMANY', 10.00, 0.00, B'111');
SELECT dynview.create_dynamic_table('ex_q12',
  'SELECT shipmode, nation, sum(price * (1 - disc)) AS revenue, count(*) AS n FROM ex_li GROUP BY shipmode, nation',
  schedule => 'manual', refresh_mode => 'incremental');
SELECT dynview.create_dynamic_table('ex_bits',
  'SELECT flags, string_agg(id::text, '','' ORDER BY id) AS ids FROM ex_li GROUP BY flags',
  schedule => 'manual', refresh_mode => 'incremental');
INSERT INTO ex_li VALUES (5, 'MAIL', 'GERMANY', 30.00, 0.50, B'010');
UPDATE ex_li SET price = 60.00 WHERE id = 2;
DELETE FROM ex_li WHERE id = 4;
SELECT table_name, refresh_mode, rows_inserted, rows_deleted FROM dynview.refresh('ex_q12');
SELECT dynview.verify('ex_q12');
SELECT table_name, refresh_mode, rows_inserted, rows_deleted FROM dynview.refresh('ex_bits');
SELECT dynview.verify('ex_bits');
SELECT shipmode, nation, revenue, n FROM ex_q12 ORDER BY 1, 2;

-- bpchar keys without a length (a CASE over char(4) and char(2), a bpchar column): groups
-- recomputed ('a' = 'a ' but they print differently); max of a char(4), kept in place: its state
-- column is bpchar, not character(1)
CREATE TABLE ex_tk (id int PRIMARY KEY, pri int, urgent char(4), normal char(2), tag bpchar);
INSERT INTO ex_tk VALUES (1, 9, 'HIGH', 'hi', 'alpha'), (2, 3, 'HIGH', 'lo', 'alpha');
SELECT dynview.create_dynamic_table('ex_codes',
  'SELECT CASE WHEN pri > 5 THEN urgent ELSE normal END AS code, count(*) AS n, max(urgent) AS mu FROM ex_tk GROUP BY 1',
  schedule => 'manual', refresh_mode => 'incremental');
SELECT dynview.create_dynamic_table('ex_tags', 'SELECT tag, count(*) AS n FROM ex_tk GROUP BY tag',
  schedule => 'manual', refresh_mode => 'incremental');
SELECT dynview.create_dynamic_table('ex_maxu', 'SELECT normal, max(urgent) AS mu, count(*) AS n FROM ex_tk GROUP BY normal',
  schedule => 'manual', refresh_mode => 'incremental');
SELECT property, value FROM dynview.explain_dynamic_table('ex_maxu') WHERE property = 'operator';
INSERT INTO ex_tk VALUES (3, 7, 'CRIT', 'md', 'gamma-long-tag');
UPDATE ex_tk SET pri = 8 WHERE id = 2;
SELECT table_name, refresh_mode FROM dynview.refresh('ex_codes');
SELECT dynview.verify('ex_codes');
SELECT table_name, refresh_mode FROM dynview.refresh('ex_tags');
SELECT dynview.verify('ex_tags');
SELECT table_name, refresh_mode FROM dynview.refresh('ex_maxu');
SELECT dynview.verify('ex_maxu');
-- the tag changes to an equal value with trailing blanks: bpchar equality ignores them, the text does not
UPDATE ex_tk SET tag = 'alpha  ' WHERE tag = 'alpha';
SELECT table_name, refresh_mode FROM dynview.refresh('ex_tags');
SELECT dynview.verify('ex_tags');
SELECT code, n, mu FROM ex_codes ORDER BY 1;
SELECT normal, mu, n FROM ex_maxu ORDER BY 1;
SELECT format('%s|', tag) AS tag, n FROM ex_tags ORDER BY 1;

-- (2) equal but not identical: plain rows (SPJ), group keys (recomputed), DISTINCT, and
-- min/max (recomputed); every value of a row changes to an equal one written differently
CREATE EXTENSION IF NOT EXISTS citext;
CREATE TABLE ex_eq (id int PRIMARY KEY, n numeric, f float8, c citext, i interval, j jsonb,
                    a numeric[], r numrange);
INSERT INTO ex_eq VALUES (1, 1.0, 0, 'bob', '1 day', '{"amt": 1.50}', '{1.0,2}', '[1.0,2.0)'),
  (2, 2.5, 1.5, 'eve', '2 days', '{"amt": 2}', '{3}', '[3,4)');
SELECT dynview.create_dynamic_table('ex_rows', 'SELECT id, n, f, c, i, j, a, r FROM ex_eq',
  schedule => 'manual', refresh_mode => 'incremental');
SELECT dynview.create_dynamic_table('ex_by_n', 'SELECT n, count(*) AS cnt FROM ex_eq GROUP BY n',
  schedule => 'manual', refresh_mode => 'incremental');
SELECT dynview.create_dynamic_table('ex_by_f', 'SELECT f, count(*) AS cnt FROM ex_eq GROUP BY f',
  schedule => 'manual', refresh_mode => 'incremental');
SELECT dynview.create_dynamic_table('ex_by_ci', 'SELECT c, i, j, count(*) AS cnt FROM ex_eq GROUP BY c, i, j',
  schedule => 'manual', refresh_mode => 'incremental');
SELECT dynview.create_dynamic_table('ex_distinct', 'SELECT DISTINCT a, r FROM ex_eq',
  schedule => 'manual', refresh_mode => 'incremental');
SELECT dynview.create_dynamic_table('ex_minmax',
  'SELECT min(n) AS mn, max(f) AS mf, max(i) AS mi, count(DISTINCT n) AS dn FROM ex_eq',
  schedule => 'manual');
SELECT name, effective_mode, mode_reason_code FROM dynview.dynamic_tables
 WHERE name::text LIKE 'ex\_%' ORDER BY name::text;
UPDATE ex_eq SET n = 1.00, f = '-0', c = 'BOB', i = '24 hours', j = '{"amt": 1.5}', a = '{1.00,2}',
  r = '[1.00,2.0)' WHERE id = 1;
SELECT table_name, refresh_mode, rows_inserted, rows_deleted FROM dynview.refresh('ex_rows');
SELECT dynview.verify('ex_rows');
SELECT table_name, refresh_mode, rows_inserted, rows_deleted FROM dynview.refresh('ex_by_n');
SELECT dynview.verify('ex_by_n');
SELECT table_name, refresh_mode, rows_inserted, rows_deleted FROM dynview.refresh('ex_by_f');
SELECT dynview.verify('ex_by_f');
SELECT table_name, refresh_mode, rows_inserted, rows_deleted FROM dynview.refresh('ex_by_ci');
SELECT dynview.verify('ex_by_ci');
SELECT table_name, refresh_mode, rows_inserted, rows_deleted FROM dynview.refresh('ex_distinct');
SELECT dynview.verify('ex_distinct');
SELECT table_name, refresh_mode FROM dynview.refresh('ex_minmax');
SELECT dynview.verify('ex_minmax');
SELECT id, n, f, c, i, j, a, r FROM ex_rows ORDER BY id;
SELECT n, cnt FROM ex_by_n ORDER BY n;
SELECT f, cnt FROM ex_by_f ORDER BY f;
SELECT c, i, j, cnt FROM ex_by_ci ORDER BY c;
SELECT a, r FROM ex_distinct ORDER BY a;
SELECT mn, mf, mi, dn FROM ex_minmax;
-- a row replaced by another with equal values written differently, in one window
DELETE FROM ex_eq WHERE id = 2;
INSERT INTO ex_eq VALUES (3, 2.50, 1.50, 'EVE', '48 hours', '{"amt": 2.0}', '{3.0}', '[3.0,4)');
SELECT table_name, refresh_mode FROM dynview.refresh('ex_rows');
SELECT dynview.verify('ex_rows');
SELECT table_name, refresh_mode FROM dynview.refresh('ex_by_n');
SELECT dynview.verify('ex_by_n');
SELECT table_name, refresh_mode FROM dynview.refresh('ex_by_ci');
SELECT dynview.verify('ex_by_ci');
SELECT table_name, refresh_mode FROM dynview.refresh('ex_distinct');
SELECT dynview.verify('ex_distinct');
SELECT table_name, refresh_mode FROM dynview.refresh('ex_minmax');
SELECT dynview.verify('ex_minmax');
SELECT n, cnt FROM ex_by_n ORDER BY n;
SELECT c, i, j, cnt FROM ex_by_ci ORDER BY c;
SELECT a, r FROM ex_distinct ORDER BY a;
SELECT mn, mf, mi, dn FROM ex_minmax;

-- (3) a user-defined type whose "=" lives in schema public (the refresh's search_path is
-- pg_catalog only): plain rows, GROUP BY and DISTINCT find it by its operator class
CREATE TYPE ex_mytype;
CREATE FUNCTION ex_mytype_in(cstring) RETURNS ex_mytype AS 'int4in' LANGUAGE internal IMMUTABLE STRICT;
CREATE FUNCTION ex_mytype_out(ex_mytype) RETURNS cstring AS 'int4out' LANGUAGE internal IMMUTABLE STRICT;
CREATE TYPE ex_mytype (INPUT = ex_mytype_in, OUTPUT = ex_mytype_out, LIKE = int4);
CREATE FUNCTION ex_mytype_eq(ex_mytype, ex_mytype) RETURNS bool AS 'int4eq' LANGUAGE internal IMMUTABLE STRICT;
CREATE FUNCTION ex_mytype_lt(ex_mytype, ex_mytype) RETURNS bool AS 'int4lt' LANGUAGE internal IMMUTABLE STRICT;
CREATE FUNCTION ex_mytype_cmp(ex_mytype, ex_mytype) RETURNS int AS 'btint4cmp' LANGUAGE internal IMMUTABLE STRICT;
CREATE OPERATOR = (LEFTARG = ex_mytype, RIGHTARG = ex_mytype, PROCEDURE = ex_mytype_eq);
CREATE OPERATOR < (LEFTARG = ex_mytype, RIGHTARG = ex_mytype, PROCEDURE = ex_mytype_lt);
CREATE OPERATOR CLASS ex_mytype_ops DEFAULT FOR TYPE ex_mytype USING btree AS
  OPERATOR 1 <, OPERATOR 3 =, FUNCTION 1 ex_mytype_cmp(ex_mytype, ex_mytype);
CREATE TABLE ex_udt (id int PRIMARY KEY, x ex_mytype, v int);
INSERT INTO ex_udt VALUES (1, '1', 10), (2, '1', 20), (3, '2', 30);
SELECT dynview.create_dynamic_table('ex_udt_rows', 'SELECT x, v FROM ex_udt',
  schedule => 'manual', refresh_mode => 'incremental');
SELECT dynview.create_dynamic_table('ex_udt_grp', 'SELECT x, count(*) AS n, sum(v) AS s FROM ex_udt GROUP BY x',
  schedule => 'manual', refresh_mode => 'incremental');
SELECT dynview.create_dynamic_table('ex_udt_dis', 'SELECT DISTINCT x FROM ex_udt',
  schedule => 'manual', refresh_mode => 'incremental');
UPDATE ex_udt SET v = v + 1 WHERE id = 1;
DELETE FROM ex_udt WHERE id = 3;
INSERT INTO ex_udt VALUES (4, '3', 40);
SELECT table_name, refresh_mode FROM dynview.refresh('ex_udt_rows');
SELECT dynview.verify('ex_udt_rows');
SELECT table_name, refresh_mode FROM dynview.refresh('ex_udt_grp');
SELECT dynview.verify('ex_udt_grp');
SELECT table_name, refresh_mode FROM dynview.refresh('ex_udt_dis');
SELECT dynview.verify('ex_udt_dis');
SELECT x::text AS x, n, s FROM ex_udt_grp ORDER BY 1;
SELECT x::text AS x FROM ex_udt_dis ORDER BY 1;

SELECT dynview.drop_dynamic_table(n)
  FROM unnest(ARRAY['ex_q12', 'ex_bits', 'ex_codes', 'ex_tags', 'ex_maxu', 'ex_rows', 'ex_by_n', 'ex_by_f',
                    'ex_by_ci', 'ex_distinct', 'ex_minmax', 'ex_udt_rows', 'ex_udt_grp', 'ex_udt_dis']) n;
DROP TABLE ex_li, ex_tk, ex_eq, ex_udt;
DROP TYPE ex_mytype CASCADE;
DROP EXTENSION citext;
