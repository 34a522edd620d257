-- count(DISTINCT x) kept in place with its multiplicities one row per group (issue 14, TPC-H Q16's
-- creation): when the build's planner estimates at most dynview.distinct_values_per_row distinct x
-- per group, dynview_state.dist_<oid>_<j> holds (g1..gn, vs, ms), the group's non-null values and
-- their counts as two arrays, instead of a row per group and value. Built in one pass with the
-- state when the aggregates are one count(DISTINCT) and count(*)s, from a second fill otherwise; a
-- refresh rewrites the changed groups' arrays. verify() after each build and each refresh, and the
-- arrays against the source's counts per (group, x), through rounds that make values and groups
-- appear and vanish, with NULL x and NULL group keys; a FULL rebuild; the setting's choice.
SET client_min_messages = warning;
CREATE SCHEMA da;
SET search_path = da, public;
\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_rows :abs_srcdir '/sql/include/refresh_rows.sql'
\i :refresh_rows

CREATE TABLE src (id int PRIMARY KEY, g1 text, g2 int, x int, y text);
INSERT INTO src SELECT i, CASE WHEN i % 11 = 0 THEN NULL ELSE 'g' || (i % 4) END, i % 3,
                       CASE WHEN i % 7 = 0 THEN NULL ELSE i % 13 END, 'y' || (i % 5)
  FROM generate_series(1, 600) i;
CREATE TABLE other (id int PRIMARY KEY, g2 int, label text);
INSERT INTO other SELECT i, i % 3, 'l' || (i % 2) FROM generate_series(1, 30) i;
CREATE TABLE excluded (x int);
INSERT INTO excluded VALUES (5), (6);
ANALYZE src, other, excluded;

-- the shape of a table's multiplicity tables: their columns
CREATE FUNCTION shape(t text) RETURNS text LANGUAGE sql AS $$
  SELECT string_agg(c.relname_j || ':' || c.cols, ' ' ORDER BY c.relname_j)
    FROM (SELECT regexp_replace(c.relname, '^dist_[0-9]+_', 'dist_') AS relname_j,
                 string_agg(a.attname, ',' ORDER BY a.attnum) AS cols
            FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
           WHERE c.relnamespace = 'dynview_state'::regnamespace AND c.relkind = 'r'
             AND c.relname LIKE 'dist\_' || t::regclass::oid || '\_%'
           GROUP BY c.relname) c $$;

-- the multiplicities of a table's count(DISTINCT) j, whatever their shape, against its input's
-- counts per (group, x); and each state row's count(DISTINCT) against the number of its values
CREATE FUNCTION arrays_ok(t text, j int, nkeys int, input text, a int) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE bad bigint; dist text := format('dynview_state.%I', 'dist_' || t::regclass::oid || '_' || j);
  keys text := (SELECT string_agg('g' || k, ', ') FROM generate_series(1, nkeys) k);
  match text := (SELECT string_agg(format('s.g%s IS NOT DISTINCT FROM m.g%s', k, k), ' AND ') FROM generate_series(1, nkeys) k);
BEGIN
  EXECUTE format($q$SELECT count(*) FROM (
      (SELECT %1$s, u.v, u.m FROM %2$s, unnest(vs, ms) u(v, m) EXCEPT ALL
       SELECT %1$s, x, count(*) FROM (%3$s) i WHERE x IS NOT NULL GROUP BY %1$s, x)
      UNION ALL
      (SELECT %1$s, x, count(*) FROM (%3$s) i WHERE x IS NOT NULL GROUP BY %1$s, x EXCEPT ALL
       SELECT %1$s, u.v, u.m FROM %2$s, unnest(vs, ms) u(v, m))) d$q$, keys, dist, input) INTO bad;
  IF bad <> 0 THEN RETURN false; END IF;
  -- no value twice in a group, no zero count, arrays of one length
  EXECUTE format($q$SELECT count(*) FROM %1$s WHERE cardinality(vs) <> cardinality(ms)
                     OR cardinality(vs) <> (SELECT count(DISTINCT v) FROM unnest(vs) v)
                     OR 0 >= ANY (ms)$q$, dist) INTO bad;
  IF bad <> 0 THEN RETURN false; END IF;
  EXECUTE format($q$SELECT count(*) FROM dynview_state.%1$I s
                     WHERE s.a%3$s <> COALESCE((SELECT cardinality(m.vs) FROM %2$s m WHERE %4$s), 0)$q$,
                 'agg_' || t::regclass::oid, dist, a, match) INTO bad;
  RETURN bad = 0;
END $$;

CREATE TABLE defs (name text, j int, nkeys int, input text, a int);

-- 1. one count(DISTINCT) and count(*)s: the arrays and the state from one evaluation
SELECT dynview.create_dynamic_table('da.one',
  'SELECT g1, g2, count(DISTINCT x) AS dx, count(*) AS n, count(*) AS n2 FROM da.src GROUP BY g1, g2',
  schedule => 'manual');
INSERT INTO defs VALUES ('one', 1, 2, 'SELECT g1, g2, x FROM da.src', 1);
-- 2. over a join with NOT IN (TPC-H Q16's shape), a text value
SELECT dynview.create_dynamic_table('da.joined',
  'SELECT o.label, s.g2, count(DISTINCT s.y) AS dy FROM da.src s JOIN da.other o ON o.g2 = s.g2
    WHERE s.x NOT IN (SELECT x FROM da.excluded WHERE x IS NOT NULL) GROUP BY o.label, s.g2',
  schedule => 'manual');
INSERT INTO defs VALUES ('joined', 1, 2, 'SELECT o.label AS g1, s.g2 AS g2, s.y AS x FROM da.src s JOIN da.other o ON o.g2 = s.g2
    WHERE s.x NOT IN (SELECT x FROM da.excluded WHERE x IS NOT NULL)', 1);
-- 3. two count(DISTINCT)s beside a sum: the state and each array table filled apart
SELECT dynview.create_dynamic_table('da.mixed',
  'SELECT g1, count(DISTINCT x) AS dx, sum(x) AS sx, count(DISTINCT y) AS dy FROM da.src GROUP BY g1',
  schedule => 'manual');
INSERT INTO defs VALUES ('mixed', 1, 1, 'SELECT g1, x FROM da.src', 1), ('mixed', 3, 1, 'SELECT g1, y AS x FROM da.src', 3);

SELECT name, shape(name) FROM (SELECT DISTINCT name FROM defs) d ORDER BY name;
SELECT name, dynview.verify(name), bool_and(arrays_ok(name, j, nkeys, input, a)) AS arrays_ok
  FROM defs GROUP BY name ORDER BY name;
CREATE FUNCTION all_ok(t text) RETURNS boolean LANGUAGE sql AS $$
  SELECT bool_and(da.arrays_ok(d.name, d.j, d.nkeys, d.input, d.a)) FROM da.defs d WHERE d.name = t $$;
CREATE VIEW tables AS SELECT DISTINCT name FROM defs;

-- 4. rounds: new values in existing groups, values gone (n -> 0), a new group (with a NULL key),
-- a group gone, NULL x only, updates that move rows between groups and values, and a row
-- inserted and deleted in one window
INSERT INTO src VALUES (1001, 'g1', 0, 99, 'y9'), (1002, 'new', 1, 1, 'y1'), (1003, 'new', 1, NULL, NULL),
                       (1004, NULL, 7, 3, 'y3'), (1005, 'g2', 2, NULL, 'y0');
DELETE FROM src WHERE g1 = 'g3' AND g2 = 2;
DELETE FROM src WHERE g1 = 'g2' AND g2 = 0 AND x = 5;
SELECT * FROM dv_refresh_rows('da.tables', 'da.all_ok');
UPDATE src SET x = 77, y = 'y77' WHERE id IN (SELECT id FROM src WHERE g1 = 'g0' AND x = 6 ORDER BY id LIMIT 2);
UPDATE src SET g1 = 'g1' WHERE id IN (SELECT id FROM src WHERE g1 = 'g0' ORDER BY id LIMIT 5);
UPDATE src SET g2 = 1 WHERE g1 IS NULL AND g2 = 0;
INSERT INTO src VALUES (1006, 'g0', 0, 55, 'y55');
DELETE FROM src WHERE id = 1006;
SELECT * FROM dv_refresh_rows('da.tables', 'da.all_ok');
-- every row of a group gone, and a group whose values all go while NULL x rows stay
DELETE FROM src WHERE g1 = 'new';
UPDATE src SET x = NULL WHERE g1 = 'g2' AND g2 = 2;
SELECT * FROM dv_refresh_rows('da.tables', 'da.all_ok');
SELECT g1, g2, dx, n FROM one WHERE g1 IS NULL OR g1 IN ('g2', 'new') ORDER BY g1 COLLATE "C", g2;
-- the table of the other group's x changed in the excluded list (an anti-join change)
INSERT INTO excluded VALUES (3);
DELETE FROM excluded WHERE x = 5;
SELECT * FROM dv_refresh_rows('da.tables', 'da.all_ok');

-- 5. a FULL refresh (the source truncated) rebuilds the arrays; then an incremental round
TRUNCATE src;
INSERT INTO src SELECT i, CASE WHEN i % 6 = 0 THEN NULL ELSE 'g' || (i % 5) END, i % 2,
                       CASE WHEN i % 8 = 0 THEN NULL ELSE i % 11 END, 'y' || (i % 3)
  FROM generate_series(1, 400) i;
SELECT * FROM dv_refresh_rows('da.tables', 'da.all_ok');
SELECT name, shape(name) FROM tables ORDER BY name;
INSERT INTO src VALUES (2001, 'g1', 1, 42, 'y42'), (2002, NULL, 0, 42, NULL);
DELETE FROM src WHERE id IN (1, 2, 3, 4);
SELECT * FROM dv_refresh_rows('da.tables', 'da.all_ok');

-- 6. the choice: at dynview.distinct_values_per_row = 0, and below the estimate of values per
-- group, one row per group and value; the same rows either way (verify), and each shape kept
-- through a refresh
SET dynview.distinct_values_per_row = 0;
SELECT dynview.create_dynamic_table('da.rows0',
  'SELECT g1, g2, count(DISTINCT x) AS dx, count(*) AS n FROM da.src GROUP BY g1, g2', schedule => 'manual');
SET dynview.distinct_values_per_row = 2;
SELECT dynview.create_dynamic_table('da.rows2',
  'SELECT g1, g2, count(DISTINCT x) AS dx, count(*) AS n FROM da.src GROUP BY g1, g2', schedule => 'manual');
RESET dynview.distinct_values_per_row;
SELECT dynview.create_dynamic_table('da.arrays',
  'SELECT g1, g2, count(DISTINCT x) AS dx, count(*) AS n FROM da.src GROUP BY g1, g2', schedule => 'manual');
CREATE TABLE cmp (name text);
INSERT INTO cmp VALUES ('arrays'), ('rows0'), ('rows2');
SELECT name, shape(name), dynview.verify(name) FROM cmp ORDER BY name;
INSERT INTO src VALUES (2003, 'g3', 0, 12, 'y'), (2004, 'g9', 1, 1, 'y');
DELETE FROM src WHERE id IN (5, 6, 7);
SELECT * FROM dv_refresh_rows('da.cmp');
-- the three tables hold the same rows, by text form
SELECT (SELECT count(*) FROM ((TABLE arrays EXCEPT ALL TABLE rows0) UNION ALL (TABLE rows0 EXCEPT ALL TABLE arrays)) d) AS arrays_vs_rows0,
       (SELECT count(*) FROM ((SELECT t::text FROM arrays t EXCEPT ALL SELECT t::text FROM rows2 t)
                              UNION ALL (SELECT t::text FROM rows2 t EXCEPT ALL SELECT t::text FROM arrays t)) d) AS arrays_vs_rows2_text;
-- a global count(DISTINCT) (one group: no arrays) and the setting's bounds
SELECT dynview.create_dynamic_table('da.global', 'SELECT count(DISTINCT x) AS dx FROM da.src', schedule => 'manual');
SELECT shape('da.global'), dynview.verify('da.global');
-- a count(DISTINCT) argument longer than a btree entry takes (3 kB that do not compress): the
-- arrays are not indexed, so the table builds and refreshes (one row per value fails with 54000,
-- brk12_long_key_build)
CREATE TABLE long_src (id int PRIMARY KEY, g int, k text);
INSERT INTO long_src SELECT i, i % 2, (SELECT string_agg(md5((i * 1000 + j)::text), '') FROM generate_series(1, 94) j)
  FROM generate_series(1, 3) i;
ANALYZE long_src;
SELECT dynview.create_dynamic_table('da.long_values', 'SELECT g, count(DISTINCT k) AS nk, count(*) AS n FROM da.long_src GROUP BY g',
  schedule => 'manual');
CREATE TABLE long_defs (name text);
INSERT INTO long_defs VALUES ('long_values');
SELECT shape('da.long_values'), dynview.verify('da.long_values');
INSERT INTO long_src SELECT 10 + i, i % 2, (SELECT string_agg(md5((i * 7 + j)::text), '') FROM generate_series(1, 94) j)
  FROM generate_series(1, 2) i;
INSERT INTO long_src SELECT 20, 0, k FROM long_src WHERE id = 1;
DELETE FROM long_src WHERE id = 3;
SELECT * FROM dv_refresh_rows('da.long_defs');
SELECT g, nk, n FROM long_values ORDER BY g;
SELECT dynview.drop_dynamic_table('da.long_values');
-- the setting's bounds
SET dynview.distinct_values_per_row = -1;
RESET dynview.distinct_values_per_row;

SELECT dynview.drop_dynamic_table('da.' || name) FROM (SELECT name FROM tables UNION SELECT name FROM cmp UNION SELECT 'global') d;
DROP SCHEMA da CASCADE;
