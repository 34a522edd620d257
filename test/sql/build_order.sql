-- The initial build writes in the order its indexes are built in, and analyses what is read
-- (issue 14, tenth session):
-- 1. the one-pass fill of a grouped query whose aggregates are one count(DISTINCT x) and count(*)s
--    (TPC-H Q16) writes the multiplicities grouped by a sort on (x, group keys), the order of
--    their unique index on (v, g1, ..., gn): the index's build finds its rows presorted. The rows
--    with a NULL x (counted in count(*), not kept) are deleted only when the fill wrote some (the
--    rows written against the state's non-null values summed);
-- 2. keys and values under another collation than the database's: the same (PostgreSQL groups a
--    count(DISTINCT) by sorting: every key sorts);
-- 3. the groups' state of a top-N input is analysed without its keys after the first (it is read
--    whole, by its first key, or by all its keys).
-- verify() after each build and each refresh (incremental, then FULL); the multiplicities
-- compared with the source's.
SET client_min_messages = warning;
-- (the multiplicities one row per group and value, as this test reads them: distinct_arrays tests one row per group)
SET dynview.distinct_values_per_row = 0;
CREATE SCHEMA bo;
SET search_path = bo, public;
\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_rows :abs_srcdir '/sql/include/refresh_rows.sql'
\i :refresh_rows

CREATE TABLE src (id int PRIMARY KEY, g1 text, g2 int, x int, y text);
INSERT INTO src SELECT i, CASE WHEN i % 11 = 0 THEN NULL ELSE 'g' || (i % 5) END, i % 3,
                       CASE WHEN i % 7 = 0 THEN NULL ELSE (i * 37) % 29 END,
                       CASE WHEN i % 2 = 0 THEN 'Y' ELSE 'y' END || (i % 13)
  FROM generate_series(1, 500) i;

-- the multiplicity table of a dynamic table (its first count(DISTINCT))
CREATE FUNCTION dist_of(t text) RETURNS regclass LANGUAGE sql AS $$
  SELECT c.oid::regclass FROM pg_class c
   WHERE c.relkind = 'r' AND c.relnamespace = 'dynview_state'::regnamespace
     AND c.relname = 'dist_' || t::regclass::oid || '_1' $$;
-- its rows, read in their physical order, are in the order of the columns cols (under the
-- columns' collations, as its index); and its v column is NOT NULL without a NULL in it
CREATE FUNCTION in_index_order(t text, cols text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE ok boolean;
BEGIN
  EXECUTE format('SELECT bool_and(a = b) AND count(*) > 0 AND count(*) = count(v) FROM
                    (SELECT v, row_number() OVER (ORDER BY ctid) a, row_number() OVER (ORDER BY %s) b
                       FROM %s) s', cols, dist_of(t)) INTO ok;
  RETURN ok AND (SELECT a.attnotnull FROM pg_attribute a WHERE a.attrelid = dist_of(t) AND a.attname = 'v');
END $$;
-- the multiplicities against the source's (dx: x by g1, g2; dy: y by g2; dc: g1 by y, g2)
CREATE FUNCTION mults_ok(t text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE bad bigint;
DECLARE mine text := CASE t WHEN 'dx' THEN 'g1, g2, v' WHEN 'dy' THEN 'g1, v' WHEN 'dc' THEN 'g1, g2, v' END;
DECLARE theirs text := CASE t WHEN 'dx' THEN 'g1, g2, x' WHEN 'dy' THEN 'g2, y' WHEN 'dc' THEN 'y, g2, g1' END;
DECLARE val text := CASE t WHEN 'dx' THEN 'x' WHEN 'dy' THEN 'y' WHEN 'dc' THEN 'g1' END;
BEGIN
  IF mine IS NULL THEN RETURN NULL; END IF;
  EXECUTE format($q$SELECT count(*) FROM (
      (SELECT %1$s, dv_mult FROM %2$s EXCEPT ALL
       SELECT %3$s, count(*) FROM bo.src WHERE %4$s IS NOT NULL GROUP BY %3$s)
      UNION ALL
      (SELECT %3$s, count(*) FROM bo.src WHERE %4$s IS NOT NULL GROUP BY %3$s EXCEPT ALL
       SELECT %1$s, dv_mult FROM %2$s)) d$q$, mine, dist_of('bo.' || t), theirs, val) INTO bad;
  RETURN bad = 0;
END $$;
CREATE TABLE defs (name text);

-- 1. NULL x in some groups (and a group of NULL x only), NULL group keys: the multiplicities
-- written in their index's order, the NULL x rows gone
INSERT INTO src VALUES (1001, 'only_null', 1, NULL, 'y1');
SELECT dynview.create_dynamic_table('bo.dx',
  'SELECT g1, g2, count(DISTINCT x) AS dx, count(*) AS n FROM bo.src GROUP BY g1, g2', schedule => 'manual');
INSERT INTO defs VALUES ('dx');
SELECT dynview.verify('bo.dx'), in_index_order('bo.dx', 'v, g1, g2'), mults_ok('dx');
SELECT count(*) FILTER (WHERE nx > 0) AS groups_with_null_x, count(*) FILTER (WHERE nx = n) AS groups_of_null_x_only
  FROM (SELECT count(*) - count(x) AS nx, count(*) AS n FROM src GROUP BY g1, g2) g;
-- no NULL value (nothing to delete): the same
SELECT dynview.create_dynamic_table('bo.dy',
  'SELECT g2, count(DISTINCT y) AS dy, count(*) AS n FROM bo.src GROUP BY g2', schedule => 'manual');
INSERT INTO defs VALUES ('dy');
SELECT dynview.verify('bo.dy'), in_index_order('bo.dy', 'v, g1'), mults_ok('dy');

-- 2. a key and the value under collation "C" (values that differ in case)
SELECT dynview.create_dynamic_table('bo.dc',
  'SELECT c AS y, g2, count(DISTINCT v) AS dv FROM (SELECT y COLLATE "C" AS c, g2, g1 COLLATE "C" AS v FROM bo.src) s GROUP BY c, g2',
  schedule => 'manual');
INSERT INTO defs VALUES ('dc');
SELECT dynview.verify('bo.dc'), in_index_order('bo.dc', 'v, g1, g2'), mults_ok('dc'),
       (SELECT l.collname FROM pg_attribute a JOIN pg_collation l ON l.oid = a.attcollation
         WHERE a.attrelid = dist_of('bo.dc') AND a.attname = 'v') AS v_collation;

-- 3. a top-N over groups of three keys: its groups' state analysed without k2, k3
SELECT dynview.create_dynamic_table('bo.top',
  'SELECT g1, g2, y, sum(x) AS sx, count(*) AS n FROM bo.src GROUP BY g1, g2, y ORDER BY sum(x) DESC NULLS LAST, g1, g2, y LIMIT 4',
  schedule => 'manual');
INSERT INTO defs VALUES ('top');
SELECT dynview.verify('bo.top');
SELECT s.attname FROM pg_stats s JOIN pg_class c ON c.relname = s.tablename
 WHERE s.schemaname = 'dynview_state' AND c.relnamespace = 'dynview_state'::regnamespace
   AND c.relname LIKE 'ext\_' || 'bo.top'::regclass::oid || '\_%' ORDER BY s.attname COLLATE "C";

-- refreshes: values repeated and gone, NULLs in and out, groups appear and vanish
INSERT INTO src VALUES (2001, 'g1', 1, 3, 'y9'), (2002, 'g1', 1, 3, 'y9'), (2003, 'new', 7, NULL, 'y1'),
                       (2004, NULL, 2, NULL, 'Y2'), (2005, 'new', 8, 100, 'y3');
SELECT * FROM dv_refresh_rows('bo.defs', 'bo.mults_ok');
DELETE FROM src WHERE g1 = 'g2' AND x = 4;
DELETE FROM src WHERE id IN (1001, 2003, 2005);
UPDATE src SET x = x + 100 WHERE id % 17 = 0;
UPDATE src SET y = 'Y' || (id % 3) WHERE id % 19 = 0;
SELECT * FROM dv_refresh_rows('bo.defs', 'bo.mults_ok');
UPDATE src SET g1 = NULL WHERE g1 = 'g3';
UPDATE src SET x = NULL WHERE g1 = 'g4';
SELECT * FROM dv_refresh_rows('bo.defs', 'bo.mults_ok');

-- a FULL refresh (the source truncated) rebuilds the states the same way
CREATE TABLE keep AS SELECT * FROM src;
TRUNCATE src;
INSERT INTO src SELECT * FROM keep WHERE id % 5 <> 0;
SELECT * FROM dv_refresh_rows('bo.defs', 'bo.mults_ok');
SELECT in_index_order('bo.dx', 'v, g1, g2'), in_index_order('bo.dy', 'v, g1'), in_index_order('bo.dc', 'v, g1, g2');
SELECT s.attname FROM pg_stats s JOIN pg_class c ON c.relname = s.tablename
 WHERE s.schemaname = 'dynview_state' AND c.relnamespace = 'dynview_state'::regnamespace
   AND c.relname LIKE 'ext\_' || 'bo.top'::regclass::oid || '\_%' ORDER BY s.attname COLLATE "C";

SELECT dynview.drop_dynamic_table('bo.' || name) FROM defs ORDER BY name;
DROP SCHEMA bo CASCADE;
