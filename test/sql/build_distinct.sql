-- The initial build of a grouped query whose aggregates are one count(DISTINCT x) and count(*)s
-- (TPC-H Q16, issue 14): the input is evaluated once, its rows counted per (group, x) written
-- straight into the multiplicities of x (their column v nullable for the fill: a NULL x counts in
-- count(*)), the aggregate state counted as they are written (section 7), then the NULL x rows
-- deleted and v NOT NULL again (session 8: through a temporary table, copied; before: the state's fill evaluated the
-- input with count(DISTINCT), the multiplicities' fill a second time). Another shape of
-- aggregates keeps the two fills; no temporary table either way, so an owner who may not create
-- temporary tables builds in one pass too. verify() after each build and each refresh; the
-- multiplicities compared with the source's after each refresh, through rounds that make groups
-- and values appear and vanish, NULL values and NULL group keys.
SET client_min_messages = warning;
-- (the multiplicities one row per group and value, as this test reads them: distinct_arrays tests one row per group)
SET dynview.distinct_values_per_row = 0;
CREATE SCHEMA bd;
SET search_path = bd, public;
\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_rows :abs_srcdir '/sql/include/refresh_rows.sql'
\i :refresh_rows

-- which path a build took, seen by an event trigger: the one-pass fill alters the multiplicity
-- table twice (v nullable, then NOT NULL) after its owner was set (one ALTER TABLE each); a
-- temporary table it would have made (none now)
CREATE TABLE ddl_seen (tag text, identity text);
CREATE FUNCTION note_ddl() RETURNS event_trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO bd.ddl_seen SELECT command_tag, regexp_replace(object_identity, '[0-9]+', 'N', 'g')
    FROM pg_event_trigger_ddl_commands()
   WHERE schema_name LIKE 'pg_temp%' OR (schema_name = 'dynview_state' AND command_tag = 'ALTER TABLE'
                                         AND object_identity LIKE 'dynview_state.dist%');
END $$;
CREATE EVENT TRIGGER bd_note_ddl ON ddl_command_end EXECUTE FUNCTION note_ddl();
-- the multiplicity tables' v columns are NOT NULL (as created) once built
CREATE FUNCTION v_not_null(t text) RETURNS boolean LANGUAGE sql AS $$
  SELECT bool_and(a.attnotnull) FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
   WHERE c.relkind = 'r' AND c.relnamespace = 'dynview_state'::regnamespace AND c.relname LIKE 'dist\_' || t::regclass::oid || '\_%'
     AND a.attname = 'v' $$;

CREATE TABLE src (id int PRIMARY KEY, g1 text, g2 int, x int, y text);
INSERT INTO src SELECT i, CASE WHEN i % 11 = 0 THEN NULL ELSE 'g' || (i % 4) END, i % 3,
                       CASE WHEN i % 7 = 0 THEN NULL ELSE i % 13 END, 'y' || (i % 5)
  FROM generate_series(1, 600) i;
CREATE TABLE other (id int PRIMARY KEY, g2 int, label text);
INSERT INTO other SELECT i, i % 3, 'l' || (i % 2) FROM generate_series(1, 30) i;
CREATE TABLE excluded (x int);
INSERT INTO excluded VALUES (5), (6);

CREATE TABLE defs (name text);

-- 1. one count(DISTINCT) and count(*): one evaluation, straight into the multiplicities
SELECT dynview.create_dynamic_table('bd.one_distinct',
  'SELECT g1, g2, count(DISTINCT x) AS dx, count(*) AS n, count(*) AS n2 FROM bd.src GROUP BY g1, g2',
  schedule => 'manual');
INSERT INTO defs VALUES ('one_distinct');
SELECT dynview.verify('bd.one_distinct'), v_not_null('bd.one_distinct');
SELECT tag, identity, count(*) FROM ddl_seen GROUP BY tag, identity ORDER BY tag, identity;
DELETE FROM ddl_seen;

-- 2. over a join, with NOT IN (TPC-H Q16's shape), a text value
SELECT dynview.create_dynamic_table('bd.join_distinct',
  'SELECT o.label, s.g2, count(DISTINCT s.y) AS dy FROM bd.src s JOIN bd.other o ON o.g2 = s.g2
    WHERE s.x NOT IN (SELECT x FROM bd.excluded WHERE x IS NOT NULL) GROUP BY o.label, s.g2',
  schedule => 'manual');
INSERT INTO defs VALUES ('join_distinct');
SELECT dynview.verify('bd.join_distinct'), v_not_null('bd.join_distinct');
SELECT count(*) FILTER (WHERE tag = 'CREATE TABLE') AS temp_tables,
       count(*) FILTER (WHERE tag = 'ALTER TABLE') AS dist_alters FROM ddl_seen;
DELETE FROM ddl_seen;

-- 3. another aggregate beside count(DISTINCT): the two fills (v stays NOT NULL: its owner set only)
SELECT dynview.create_dynamic_table('bd.mixed',
  'SELECT g2, count(DISTINCT x) AS dx, sum(x) AS sx FROM bd.src GROUP BY g2', schedule => 'manual');
INSERT INTO defs VALUES ('mixed');
SELECT dynview.verify('bd.mixed'), v_not_null('bd.mixed');
SELECT count(*) FILTER (WHERE tag = 'CREATE TABLE') AS temp_tables,
       count(*) FILTER (WHERE tag = 'ALTER TABLE') AS dist_alters FROM ddl_seen;
DELETE FROM ddl_seen;

-- 4. an owner who may not create temporary tables: one pass too (the build makes none)
CREATE ROLE bd_owner;
GRANT USAGE ON SCHEMA bd TO bd_owner;
GRANT CREATE ON SCHEMA bd TO bd_owner;
GRANT SELECT ON bd.src TO bd_owner;
GRANT INSERT ON bd.ddl_seen TO bd_owner;
SELECT format('REVOKE TEMPORARY ON DATABASE %I FROM PUBLIC', current_database()) \gexec
SET ROLE bd_owner;
SELECT dynview.create_dynamic_table('bd.no_temp',
  'SELECT g1, count(DISTINCT x) AS dx FROM bd.src GROUP BY g1', schedule => 'manual');
RESET ROLE;
INSERT INTO defs VALUES ('no_temp');
SELECT dynview.verify('bd.no_temp'), v_not_null('bd.no_temp');
SELECT count(*) FILTER (WHERE tag = 'CREATE TABLE') AS temp_tables,
       count(*) FILTER (WHERE tag = 'ALTER TABLE') AS dist_alters FROM ddl_seen;
DELETE FROM ddl_seen;
-- and one who may
SELECT format('GRANT TEMPORARY ON DATABASE %I TO bd_owner', current_database()) \gexec
SET ROLE bd_owner;
SELECT dynview.create_dynamic_table('bd.owner_temp',
  'SELECT g2, count(DISTINCT y) AS dy, count(*) AS n FROM bd.src GROUP BY g2', schedule => 'manual');
RESET ROLE;
INSERT INTO defs VALUES ('owner_temp');
SELECT dynview.verify('bd.owner_temp'), v_not_null('bd.owner_temp');
SELECT count(*) FILTER (WHERE tag = 'CREATE TABLE') AS temp_tables,
       count(*) FILTER (WHERE tag = 'ALTER TABLE') AS dist_alters FROM ddl_seen;
SELECT count(*) AS temp_tables_left FROM pg_class WHERE relname LIKE 'dv_distinct_%';
-- 5. the session holds temporary tables named as the eighth session's build made its own
-- (dv_distinct_<oid>, and the next name after it): a FULL refresh rebuilds the state in one pass
-- (that build failed with "already exists" until it took a free name), and the session's tables
-- are left as they were
DELETE FROM ddl_seen;
CREATE TABLE src_c (id int PRIMARY KEY, g int, x int);
INSERT INTO src_c SELECT i, CASE WHEN i % 10 = 0 THEN NULL ELSE i % 5 END,
                         CASE WHEN i % 9 = 0 THEN NULL ELSE i % 7 END FROM generate_series(1, 200) i;
SELECT dynview.create_dynamic_table('bd.clash',
  'SELECT g, count(DISTINCT x) AS dx, count(*) AS n FROM bd.src_c GROUP BY g', schedule => 'manual');
SELECT dynview.verify('bd.clash');
DO $$
BEGIN
  EXECUTE format('CREATE TEMPORARY TABLE dv_distinct_%s (mine text)', 'bd.clash'::regclass::oid);
  EXECUTE format('CREATE TEMPORARY TABLE dv_distinct_%s_1 (mine text)', 'bd.clash'::regclass::oid);
  EXECUTE format('INSERT INTO pg_temp.dv_distinct_%s VALUES (''kept'')', 'bd.clash'::regclass::oid);
END $$;
DELETE FROM ddl_seen;
TRUNCATE src_c;
INSERT INTO src_c SELECT i, CASE WHEN i % 6 = 0 THEN NULL ELSE i % 4 END,
                         CASE WHEN i % 8 = 0 THEN NULL ELSE i % 11 END FROM generate_series(1, 150) i;
CREATE TABLE clash_defs (name text);
INSERT INTO clash_defs VALUES ('clash');
SELECT * FROM dv_refresh_rows('bd.clash_defs');
-- the rebuild's one pass (no temporary table), and the session's two tables as they were
SELECT tag, identity, count(*) FROM ddl_seen GROUP BY tag, identity ORDER BY tag, identity;
SELECT v_not_null('bd.clash');
CREATE FUNCTION clash_kept() RETURNS SETOF text LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE format('SELECT mine FROM pg_temp.dv_distinct_%s', 'bd.clash'::regclass::oid);
END $$;
SELECT * FROM clash_kept();
SELECT count(*) AS session_temp_tables FROM pg_class
 WHERE relnamespace = pg_my_temp_schema() AND relname LIKE 'dv_distinct_' || 'bd.clash'::regclass::oid || '%';
-- the multiplicities against the source's, and an incremental round after the rebuild
CREATE FUNCTION clash_mults_ok(t text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE bad bigint;
BEGIN
  EXECUTE format($q$SELECT count(*) FROM (
      (SELECT g1, v, dv_mult FROM dynview_state.%I EXCEPT ALL
       SELECT g, x, count(*) FROM bd.src_c WHERE x IS NOT NULL GROUP BY g, x)
      UNION ALL
      (SELECT g, x, count(*) FROM bd.src_c WHERE x IS NOT NULL GROUP BY g, x EXCEPT ALL
       SELECT g1, v, dv_mult FROM dynview_state.%I)) d$q$,
    'dist_' || t::regclass::oid || '_1', 'dist_' || t::regclass::oid || '_1') INTO bad;
  RETURN bad = 0;
END $$;
SELECT clash_mults_ok('bd.clash');
INSERT INTO src_c VALUES (1001, NULL, 3), (1002, 2, NULL), (1003, 9, 9);
DELETE FROM src_c WHERE id IN (1, 2, 3);
SELECT * FROM dv_refresh_rows('bd.clash_defs', 'bd.clash_mults_ok');
DO $$
BEGIN
  EXECUTE format('DROP TABLE pg_temp.dv_distinct_%s, pg_temp.dv_distinct_%s_1',
                 'bd.clash'::regclass::oid, 'bd.clash'::regclass::oid);
END $$;
SELECT dynview.drop_dynamic_table('bd.clash');

-- 6. x a NOT NULL column that no outer join nulls (TPC-H Q16's ps_suppkey): no NULL x to count,
-- so the one-pass build does not alter the multiplicity table at all (no ALTER TABLE, and no scan
-- of every multiplicity to validate NOT NULL again); over a LEFT JOIN that nulls the same column,
-- the two ALTER TABLEs, and the padded group's NULL x counted by count(*) only. verify() and the
-- multiplicities against the source's after each build, an incremental round, and a FULL rebuild
-- (the source truncated), which builds the same way.
DELETE FROM ddl_seen;
CREATE TABLE src_n (id int PRIMARY KEY, g text, x int NOT NULL);
INSERT INTO src_n SELECT i, CASE WHEN i % 10 = 0 THEN NULL ELSE 'g' || (i % 4) END, i % 9
  FROM generate_series(1, 300) i;
CREATE TABLE keys_n (g text);
INSERT INTO keys_n VALUES ('g1'), ('g2'), ('gx');
SELECT dynview.create_dynamic_table('bd.notnull_x',
  'SELECT g, count(DISTINCT x) AS dx, count(*) AS n FROM bd.src_n GROUP BY g', schedule => 'manual');
SELECT dynview.verify('bd.notnull_x'), v_not_null('bd.notnull_x');
SELECT count(*) FILTER (WHERE tag = 'ALTER TABLE') AS dist_alters FROM ddl_seen;
DELETE FROM ddl_seen;
SELECT dynview.create_dynamic_table('bd.outer_x',
  'SELECT k.g, count(DISTINCT s.x) AS dx, count(*) AS n FROM bd.keys_n k LEFT JOIN bd.src_n s ON s.g = k.g GROUP BY k.g',
  schedule => 'manual');
SELECT dynview.verify('bd.outer_x'), v_not_null('bd.outer_x');
SELECT count(*) FILTER (WHERE tag = 'ALTER TABLE') AS dist_alters FROM ddl_seen;
SELECT g, dx, n FROM outer_x ORDER BY g COLLATE "C";
CREATE FUNCTION notnull_mults_ok(t text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE bad bigint;
  src text := CASE t WHEN 'notnull_x' THEN 'SELECT g, x FROM bd.src_n'
                     ELSE 'SELECT k.g, s.x FROM bd.keys_n k LEFT JOIN bd.src_n s ON s.g = k.g' END;
BEGIN
  EXECUTE format($q$SELECT count(*) FROM (
      (SELECT g1, v, dv_mult FROM dynview_state.%I EXCEPT ALL
       SELECT g, x, count(*) FROM (%s) i WHERE x IS NOT NULL GROUP BY g, x)
      UNION ALL
      (SELECT g, x, count(*) FROM (%s) i WHERE x IS NOT NULL GROUP BY g, x EXCEPT ALL
       SELECT g1, v, dv_mult FROM dynview_state.%I)) d$q$,
    'dist_' || t::regclass::oid || '_1', src, src, 'dist_' || t::regclass::oid || '_1') INTO bad;
  RETURN bad = 0;
END $$;
SELECT notnull_mults_ok('notnull_x'), notnull_mults_ok('outer_x');
CREATE TABLE notnull_defs (name text);
INSERT INTO notnull_defs VALUES ('notnull_x'), ('outer_x');
-- a value repeated, a new group, a group's last row gone, a value moved
INSERT INTO src_n VALUES (1001, 'g1', 1), (1002, 'g1', 1), (1003, 'new', 50), (1004, 'gx', 2);
DELETE FROM src_n WHERE g = 'g3';
UPDATE src_n SET x = x + 100 WHERE id % 13 = 0;
SELECT * FROM dv_refresh_rows('bd.notnull_defs', 'bd.notnull_mults_ok');
-- FULL rebuild: the source truncated and refilled
DELETE FROM ddl_seen;
TRUNCATE src_n;
INSERT INTO src_n SELECT i, CASE WHEN i % 7 = 0 THEN NULL ELSE 'g' || (i % 3) END, i % 5
  FROM generate_series(1, 120) i;
SELECT * FROM dv_refresh_rows('bd.notnull_defs', 'bd.notnull_mults_ok');
SELECT tag, identity, count(*) FROM ddl_seen GROUP BY tag, identity ORDER BY tag, identity;
SELECT v_not_null('bd.notnull_x'), v_not_null('bd.outer_x');
SELECT dynview.drop_dynamic_table('bd.' || name) FROM notnull_defs ORDER BY name;
DROP EVENT TRIGGER bd_note_ddl;

-- 7. the state written by the multiplicities' writer as it writes them (the groups counted in a
-- hash table: no second pass over the multiplicities), and, past the memory of a hash
-- (work_mem x hash_mem_multiplier), the groups given up and the state read from the
-- multiplicities as before: the same state either way, against the source's by text form and by
-- =. NULL keys, NULL x, groups appearing and vanishing. Which path a
-- build took: the scans of the multiplicities in its transaction (the delete of the NULL x rows,
-- the NOT NULL check and the unique index's build read them; the second pass once more). verify()
-- after each build and each refresh.
CREATE TABLE src_w (id int PRIMARY KEY, k int, t text, x int);
INSERT INTO src_w SELECT i, CASE WHEN i % 29 = 0 THEN NULL ELSE i % 400 END,
                        CASE WHEN i % 31 = 0 THEN NULL ELSE 't' || (i % 3) END,
                        CASE WHEN i % 7 = 0 THEN NULL ELSE i % 11 END
  FROM generate_series(1, 6000) i;
CREATE FUNCTION counted_state_ok(t text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE bad bigint;
BEGIN
  EXECUTE format($q$SELECT count(*) FROM (
      (SELECT g1::text, g2, dv_count, a1, a2 FROM dynview_state.%I EXCEPT ALL
       SELECT k::text, t, count(*), count(DISTINCT x), count(*) FROM bd.src_w GROUP BY k, t)
      UNION ALL
      (SELECT k::text, t, count(*), count(DISTINCT x), count(*) FROM bd.src_w GROUP BY k, t EXCEPT ALL
       SELECT g1::text, g2, dv_count, a1, a2 FROM dynview_state.%I)) d$q$,
    'agg_' || t::regclass::oid, 'agg_' || t::regclass::oid) INTO bad;
  RETURN bad = 0 AND (SELECT count(*) FROM bd.src_w) = (SELECT sum(n) FROM bd.counted);
END $$;
CREATE TABLE counted_defs (name text);
INSERT INTO counted_defs VALUES ('counted');
-- the build, and the scans of its multiplicities in its transaction
CREATE FUNCTION build_counted() RETURNS bigint LANGUAGE plpgsql AS $$
BEGIN
  PERFORM dynview.create_dynamic_table('bd.counted',
    'SELECT k, t, count(DISTINCT x) AS dx, count(*) AS n FROM bd.src_w GROUP BY k, t', schedule => 'manual');
  RETURN (SELECT seq_scan FROM pg_stat_xact_all_tables
           WHERE schemaname = 'dynview_state' AND relname = 'dist_' || 'bd.counted'::regclass::oid || '_1');
END $$;
SELECT build_counted() AS multiplicity_scans;
SELECT dynview.verify('bd.counted'), counted_state_ok('bd.counted'), v_not_null('bd.counted');
UPDATE src_w SET x = x + 1 WHERE id % 5 = 0;
DELETE FROM src_w WHERE id % 37 = 0;
INSERT INTO src_w VALUES (7001, 401, 't1', 3), (7002, NULL, NULL, NULL), (7003, 999, 'new', 1);
SELECT * FROM dv_refresh_rows('bd.counted_defs', 'bd.counted_state_ok');
SELECT dynview.drop_dynamic_table('bd.counted');
-- the groups past 64 kB: given up, the second pass
BEGIN;
SET LOCAL work_mem = '64kB';
SET LOCAL hash_mem_multiplier = 1;
SELECT build_counted() AS multiplicity_scans;
COMMIT;
SELECT dynview.verify('bd.counted'), counted_state_ok('bd.counted'), v_not_null('bd.counted');
UPDATE src_w SET t = NULL WHERE id % 6 = 0;
SELECT * FROM dv_refresh_rows('bd.counted_defs', 'bd.counted_state_ok');
SELECT dynview.drop_dynamic_table('bd.counted');

-- the multiplicities of one_distinct against its source's
CREATE FUNCTION one_distinct_mults_ok(t text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE bad bigint;
BEGIN
  IF t <> 'one_distinct' THEN RETURN NULL; END IF;
  EXECUTE format($q$SELECT count(*) FROM (
      (SELECT g1, g2, v, dv_mult FROM dynview_state.%I EXCEPT ALL
       SELECT g1, g2, x, count(*) FROM bd.src WHERE x IS NOT NULL GROUP BY g1, g2, x)
      UNION ALL
      (SELECT g1, g2, x, count(*) FROM bd.src WHERE x IS NOT NULL GROUP BY g1, g2, x EXCEPT ALL
       SELECT g1, g2, v, dv_mult FROM dynview_state.%I)) d$q$,
    'dist_' || 'bd.one_distinct'::regclass::oid || '_1', 'dist_' || 'bd.one_distinct'::regclass::oid || '_1') INTO bad;
  RETURN bad = 0;
END $$;
SELECT one_distinct_mults_ok('bd.one_distinct');

-- round 1: a value repeated (multiplicity 2), NULL values, a new group, a group with only NULL x
INSERT INTO src VALUES (1001, 'g1', 1, 1, 'y9'), (1002, 'g1', 1, 1, 'y9'), (1003, 'new', 7, NULL, 'y1'),
                       (1004, NULL, 2, NULL, 'y2'), (1005, 'new', 8, 3, NULL);
SELECT * FROM dv_refresh_rows('bd.defs', 'bd.one_distinct_mults_ok');
-- round 2: a value's last row goes (uncounted), a group vanishes, values change
DELETE FROM src WHERE g1 = 'g2' AND x = 4;
DELETE FROM src WHERE id IN (1003, 1005);
UPDATE src SET x = x + 100 WHERE id % 17 = 0;
UPDATE src SET y = NULL WHERE id % 19 = 0;
SELECT * FROM dv_refresh_rows('bd.defs', 'bd.one_distinct_mults_ok');
-- round 3: the excluded values change (NOT IN), a whole group key goes NULL
DELETE FROM excluded WHERE x = 5;
INSERT INTO excluded VALUES (7);
UPDATE src SET g1 = NULL WHERE g1 = 'g3';
SELECT * FROM dv_refresh_rows('bd.defs', 'bd.one_distinct_mults_ok');

SELECT dynview.drop_dynamic_table('bd.' || name) FROM defs ORDER BY name;
SELECT format('GRANT TEMPORARY ON DATABASE %I TO PUBLIC', current_database()) \gexec
SELECT format('REVOKE TEMPORARY ON DATABASE %I FROM bd_owner', current_database()) \gexec
REVOKE ALL ON SCHEMA bd FROM bd_owner;
REVOKE ALL ON ALL TABLES IN SCHEMA bd FROM bd_owner;
DROP ROLE bd_owner;
DROP SCHEMA bd CASCADE;
