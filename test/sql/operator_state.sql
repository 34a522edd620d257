-- Operator state: a global aggregate of extremes (min, max, bool_and, bool_or) under the top of
-- the query, such as the max over a grouped subquery of TPC-H Q15, keeps its input's first row in
-- each aggregate's order in dynview_state.ext_<table oid>_<n>.  Its old value comes from the
-- state, its new one from the state and the inserted rows unless a deleted row reaches an extreme
-- (then from its input now), and when its input has no change it is read from the state.  Any
-- other aggregate without GROUP BY there (TPC-H Q22's avg) keeps its row: read from the state
-- when its input has no change, its old row when it has.  Edge
-- cases: the extreme group grows, shrinks, leaves, ties, NULLs, an emptied source, a source of the
-- other side alone, a dropped state table.  verify() after every refresh, and the state checked
-- against the extremes recomputed.
SET client_min_messages = warning;
-- (v has a declared scale, as TPC-H's decimal columns: equal sums print alike, so extremes keep state)
CREATE TABLE os_li (id int PRIMARY KEY, g int, v numeric(10,2), day int, tag text);
ALTER TABLE os_li REPLICA IDENTITY FULL;
CREATE TABLE os_g (g int PRIMARY KEY, name text);
ALTER TABLE os_g REPLICA IDENTITY FULL;
INSERT INTO os_g SELECT g, 'group ' || g FROM generate_series(1, 12) g;
INSERT INTO os_li SELECT i, 1 + i % 10, (i * 7) % 23, i % 30, 't' || (i % 17) FROM generate_series(1, 200) i;

CREATE TABLE os_tables (name text PRIMARY KEY, query text);
INSERT INTO os_tables VALUES
  -- TPC-H Q15's shape: a grouped WITH query joined to a table and to its own max
  ('os_max', 'WITH r (g, total) AS (SELECT g, sum(v) FROM os_li WHERE day < 20 GROUP BY g)
              SELECT os_g.g, os_g.name, r.total FROM os_g, r WHERE os_g.g = r.g AND r.total = (SELECT max(total) FROM r)'),
  -- several extremes of one input, a text one among them (default collation), bool_and
  ('os_span', 'SELECT os_g.g, os_g.name, m.lo, m.hi, m.last_tag, m.all_pos
               FROM os_g, (SELECT min(v) AS lo, max(v) AS hi, max(tag) AS last_tag, bool_and(v > 0) AS all_pos FROM os_li) m
               WHERE os_g.g <= m.hi - m.lo'),
  -- min of a grouped subquery whose groups can have a NULL sum
  ('os_min', 'SELECT os_g.name FROM os_g WHERE os_g.g = (SELECT min(g) FROM (SELECT g, sum(v) AS s FROM os_li GROUP BY g) x WHERE s IS NOT NULL)'),
  -- other aggregates without GROUP BY keep their row (a value state): TPC-H Q22's uncorrelated avg
  ('os_avg', 'SELECT os_g.g, os_g.name FROM os_g WHERE os_g.g > (SELECT avg(g) FROM os_li WHERE v > 3)'),
  -- count and sum, one row also over no input (count 0, sum NULL)
  ('os_cnt', 'SELECT o.g, c.n, c.s FROM os_g o, (SELECT count(*) AS n, sum(v) AS s FROM os_li WHERE day < 10) c WHERE o.g <= c.n');
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual') IS NOT NULL AS created
  FROM os_tables ORDER BY name;
SELECT t.name, d.effective_mode FROM os_tables t JOIN dynview.dynamic_tables d ON d.name = t.name::regclass ORDER BY 1;

-- each table keeps one state (its explain() says so)
SELECT t.name, count(c.relname) AS states,
       bool_and(e.value LIKE '%(aggregate without GROUP BY%): state dynview_state."ext_<table oid>_%') AS explained
  FROM os_tables t
  JOIN dynview.explain_dynamic_table(t.name) e ON e.property = 'operator tree'
  LEFT JOIN pg_class c ON c.relnamespace = 'dynview_state'::regnamespace
        AND c.relname = 'ext_' || t.name::regclass::oid || '_1'
 GROUP BY t.name ORDER BY 1;

-- the state's rows against the extremes of the input now: each aggregate's value over the state
-- equals its value over the input (the state's columns are the input's, c<n>_<m>)
CREATE FUNCTION os_state_ok(t text) RETURNS bool LANGUAGE plpgsql AS $$
DECLARE
  st text := format('dynview_state.%I', 'ext_' || t::regclass::oid || '_1');
  ok bool;
BEGIN
  IF t = 'os_max' THEN
    -- (its WITH query keeps its groups in states of their own: the extremes' state has no dv_count)
    SELECT format('dynview_state.%I', c.relname) INTO st FROM pg_class c
     WHERE c.relnamespace = 'dynview_state'::regnamespace AND c.relkind = 'r'
       AND c.relname LIKE 'ext\_' || t::regclass::oid || '\_%'
       AND NOT EXISTS (SELECT FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'dv_count');
  END IF;
  IF st IS NULL OR to_regclass(st) IS NULL THEN
    RETURN NULL;  -- no state
  END IF;
  IF t = 'os_max' THEN
    EXECUTE format('SELECT (SELECT max((row_to_json(s)->>''c1_2'')::numeric) FROM %s s) IS NOT DISTINCT FROM
                           (SELECT max(total) FROM (SELECT sum(v) AS total FROM os_li WHERE day < 20 GROUP BY g) r)', st) INTO ok;
  ELSIF t = 'os_span' THEN
    EXECUTE format('SELECT (SELECT ROW(min((row_to_json(s)->>''c1_3'')::numeric), max((row_to_json(s)->>''c1_3'')::numeric),
                                       max(row_to_json(s)->>''c1_5''), bool_and((row_to_json(s)->>''c1_3'')::numeric > 0)) FROM %s s)
                           IS NOT DISTINCT FROM (SELECT ROW(min(v), max(v), max(tag), bool_and(v > 0)) FROM os_li)', st) INTO ok;
  ELSIF t = 'os_avg' THEN
    EXECUTE format('SELECT (SELECT ROW(s.*)::text FROM %s s) IS NOT DISTINCT FROM
                           (SELECT ROW(avg(g))::text FROM os_li WHERE v > 3)', st) INTO ok;
  ELSIF t = 'os_cnt' THEN
    EXECUTE format('SELECT (SELECT ROW(s.*)::text FROM %s s) IS NOT DISTINCT FROM
                           (SELECT ROW(count(*), sum(v))::text FROM os_li WHERE day < 10)', st) INTO ok;
  ELSE
    EXECUTE format('SELECT (SELECT min((row_to_json(s)->>''c1_1'')::int) FROM %s s WHERE row_to_json(s)->>''c1_2'' IS NOT NULL)
                           IS NOT DISTINCT FROM (SELECT min(g) FROM (SELECT g, sum(v) AS s FROM os_li GROUP BY g) x WHERE s IS NOT NULL)', st) INTO ok;
  END IF;
  RETURN ok;
END $$;

\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_rows :abs_srcdir '/sql/include/refresh_rows.sql'
\i :refresh_rows
CREATE FUNCTION os_round() RETURNS TABLE (name text, mode text, reason text, verified bool, rows bigint, state_ok bool)
LANGUAGE sql AS $$ SELECT * FROM dv_refresh_rows('os_tables', 'os_state_ok') $$;

SELECT * FROM os_round();
SELECT * FROM os_max ORDER BY g;
-- 1. a group other than the max one grows, still below it: the max is unchanged
INSERT INTO os_li VALUES (1001, (SELECT g FROM os_max LIMIT 1) % 10 + 1, 1, 1, 't1');
SELECT * FROM os_round();
-- 2. an inserted row makes another group the max (the inserted rows reach the extreme)
INSERT INTO os_li VALUES (1002, 7, 500, 2, 'zz');
SELECT * FROM os_round();
SELECT * FROM os_max ORDER BY g;
-- 3. the max group shrinks (a deleted row reaches the extreme: recomputed from the input now)
UPDATE os_li SET v = 5 WHERE id = 1002;
SELECT * FROM os_round();
SELECT * FROM os_max ORDER BY g;
-- 4. ties: a second group reaches the max exactly
INSERT INTO os_li SELECT 1003, x.g2, m.total - coalesce((SELECT sum(v) FROM os_li WHERE g = x.g2 AND day < 20), 0), 3, 'a'
  FROM (SELECT total FROM os_max LIMIT 1) m, (SELECT g AS g2 FROM os_g WHERE g NOT IN (SELECT g FROM os_max) ORDER BY g LIMIT 1) x;
SELECT * FROM os_round();
SELECT * FROM os_max ORDER BY g;
-- 5. one of the tied groups leaves entirely; the other stays the max
DELETE FROM os_li WHERE id = 1003;
SELECT * FROM os_round();
SELECT * FROM os_max ORDER BY g;
-- 6. the max group is deleted
DELETE FROM os_li WHERE g = (SELECT g FROM os_max LIMIT 1);
SELECT * FROM os_round();
SELECT * FROM os_max ORDER BY g;
-- 7. NULLs: a group whose values are all NULL (its sum NULL), NULL values elsewhere, a NULL tag
INSERT INTO os_li VALUES (1004, 11, NULL, 4, NULL), (1005, 11, NULL, 5, 'a'), (1006, 2, NULL, 6, NULL);
UPDATE os_li SET v = NULL WHERE g = 1;
SELECT * FROM os_round();
-- 8. only the other side changes (os_g): the extremes are read from their state
UPDATE os_g SET name = name || '!' WHERE g <= 6;
INSERT INTO os_g VALUES (13, 'group 13');
SELECT * FROM os_round();
-- 9. the source emptied: every extreme NULL, no state row but NULLs, the tables empty
DELETE FROM os_li;
SELECT * FROM os_round();
-- 10. and filled again
INSERT INTO os_li SELECT i, 1 + i % 10, (i * 11) % 19, i % 25, 't' || (i % 7) FROM generate_series(1, 60) i;
SELECT * FROM os_round();
SELECT * FROM os_max ORDER BY g;
-- 11. a dropped state table: the next refresh is FULL (STATE_MISSING) and builds it again
DO $$ BEGIN
  EXECUTE format('ALTER EXTENSION dynview DROP TABLE dynview_state.%I', 'ext_' || 'os_max'::regclass::oid || '_1');
  EXECUTE format('DROP TABLE dynview_state.%I', 'ext_' || 'os_max'::regclass::oid || '_1');
END $$;
UPDATE os_li SET v = v + 3 WHERE id IN (3, 4, 5);
SELECT * FROM os_round();
UPDATE os_li SET v = v - 1 WHERE id IN (3, 4, 5, 6);
SELECT * FROM os_round();
-- a FULL refresh (a truncated source) builds them all again
TRUNCATE os_g;
INSERT INTO os_g SELECT g, 'g' || g FROM generate_series(1, 10) g;
SELECT * FROM os_round();
UPDATE os_li SET v = v + 100 WHERE id = 7;
SELECT * FROM os_round();
SELECT * FROM os_max ORDER BY g;

SELECT dynview.drop_dynamic_table(name) FROM os_tables ORDER BY name;
-- dropped with their tables
SELECT count(*) AS states_left FROM pg_class WHERE relnamespace = 'dynview_state'::regnamespace AND relname LIKE 'ext\_%';
DROP FUNCTION os_round();
DROP FUNCTION dv_refresh_rows(regclass, regproc);
DROP FUNCTION os_state_ok(text);
DROP TABLE os_tables, os_li, os_g;

-- extremes of a type whose equal values print differently (numeric without a scale: 2.5 and
-- 2.50; float 0 and -0): which one max() returns depends on the order it meets them in, so the
-- first row in the aggregate's order may not be the query's value; such an aggregate keeps its
-- row (recomputed when its input changes), not its extreme rows.  A sum of products of columns
-- with a declared scale has one scale: its extremes keep state.
CREATE TABLE os_sp (id int PRIMARY KEY, n numeric, f float8, p numeric(8,2), d numeric(4,2));
CREATE TABLE os_spg (g int PRIMARY KEY);
INSERT INTO os_spg VALUES (1), (2);
INSERT INTO os_sp VALUES (1, 2.5, 0, 10, 0.5), (2, 1, -1, 20, 0.25);
SELECT dynview.create_dynamic_table('os_spell', 'SELECT o.g, m.hi, m.lo FROM os_spg o, (SELECT max(n) AS hi, max(f) AS lo FROM os_sp) m', schedule => 'manual');
SELECT dynview.create_dynamic_table('os_scaled', 'SELECT o.g, m.hi FROM os_spg o, (SELECT max(t) AS hi FROM (SELECT id % 2 AS k, sum(p * (1 - d)) AS t FROM os_sp GROUP BY id % 2) s) m', schedule => 'manual');
SELECT n, e.value LIKE '%(aggregate without GROUP BY): state dynview_state."ext_<table oid>_1", its row;%' AS row_state,
       e.value LIKE '%(aggregate without GROUP BY, extremes)%' AS extremes
  FROM unnest(ARRAY['os_spell', 'os_scaled']) n, dynview.explain_dynamic_table(n) e WHERE e.property = 'operator tree' ORDER BY n;
INSERT INTO os_sp VALUES (3, 2.50, -0.0, 5, 0), (4, 0, 0, 10, 0.75);
SELECT n, r.refresh_mode, dynview.verify(n) FROM unnest(ARRAY['os_spell', 'os_scaled']) n, dynview.refresh(n) r ORDER BY n;
SELECT g, hi::text, lo::text FROM os_spell ORDER BY g;
DELETE FROM os_sp WHERE id = 2;
SELECT n, r.refresh_mode, dynview.verify(n) FROM unnest(ARRAY['os_spell', 'os_scaled']) n, dynview.refresh(n) r ORDER BY n;
DELETE FROM os_sp WHERE id = 3;
SELECT n, r.refresh_mode, dynview.verify(n) FROM unnest(ARRAY['os_spell', 'os_scaled']) n, dynview.refresh(n) r ORDER BY n;
SELECT g, hi::text, lo::text FROM os_spell ORDER BY g;
SELECT g, hi::text FROM os_scaled ORDER BY g;
SELECT dynview.drop_dynamic_table('os_spell'), dynview.drop_dynamic_table('os_scaled');
DROP TABLE os_sp, os_spg;
