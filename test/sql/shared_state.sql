-- A grouped subquery the query reads in two places (a WITH query or a view referenced twice, or
-- the same subquery written twice: TPC-H Q15's revenues per supplier, joined and under max())
-- keeps ONE state, dynview_state.ext_<table oid>_<n>, maintained once per refresh and read by
-- both (optree.c same_state_op).  explain() names the same state at both places.  verify() after
-- every refresh, and the shared state checked against its groups recomputed from the source.
-- Edge cases: only the other side of one reading changes, the greatest group shrinks and another
-- takes its place, groups appearing and vanishing, NULL group keys, deletes, two subqueries that
-- differ in one filter (two states), a self-join of the grouped subquery (neither reading inside
-- the other), a truncate.
SET client_min_messages = warning;
CREATE TABLE ss_li (id int PRIMARY KEY, g int, v numeric(10,2), day int);
ALTER TABLE ss_li REPLICA IDENTITY FULL;
CREATE TABLE ss_g (g int PRIMARY KEY, name text);
ALTER TABLE ss_g REPLICA IDENTITY FULL;
INSERT INTO ss_g SELECT g, 'group ' || g FROM generate_series(1, 25) g;
INSERT INTO ss_li SELECT n, 1 + n % 10, (n * 7) % 23 + 0.25, n % 10 FROM generate_series(1, 200) n;
CREATE VIEW ss_rev AS SELECT g, sum(v) AS total, count(*) AS n FROM ss_li WHERE day < 8 GROUP BY g;

CREATE TABLE ss_tables (name text PRIMARY KEY, query text);
INSERT INTO ss_tables VALUES
  -- TPC-H Q15's shape: a WITH query joined to a table and to its own max
  ('ss_max', 'WITH r (g, total) AS (SELECT g, sum(v) FROM ss_li WHERE day < 8 GROUP BY g)
              SELECT ss_g.g, ss_g.name, r.total FROM ss_g, r WHERE ss_g.g = r.g AND r.total = (SELECT max(total) FROM r)'),
  -- the same through a view, and its min too: three readings, two states (the readings under
  -- max() and min() read the view's total only, the joined one its count too)
  ('ss_view', 'SELECT ss_g.name, r.total, r.n FROM ss_g JOIN ss_rev r ON r.g = ss_g.g
               WHERE r.total IN ((SELECT max(total) FROM ss_rev), (SELECT min(total) FROM ss_rev))'),
  -- a self-join of the grouped subquery, the second reading on a LEFT JOIN's nullable side
  ('ss_self', 'WITH r (g, total) AS (SELECT g, sum(v) FROM ss_li WHERE day < 8 GROUP BY g)
               SELECT a.g, a.total, b.total AS next_total, ss_g.name FROM r a JOIN ss_g ON ss_g.g = a.g LEFT JOIN r b ON b.g = a.g + 1'),
  -- two subqueries that differ in one filter: two states
  ('ss_differ', 'SELECT ss_g.name, a.total, b.total AS total9 FROM ss_g
                   JOIN (SELECT g, sum(v) AS total FROM ss_li WHERE day < 8 GROUP BY g) a ON a.g = ss_g.g
                   JOIN (SELECT g, sum(v) AS total FROM ss_li WHERE day < 9 GROUP BY g) b ON b.g = ss_g.g');
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual') IS NOT NULL AS created
  FROM ss_tables ORDER BY name;
SELECT t.name, d.effective_mode FROM ss_tables t JOIN dynview.dynamic_tables d ON d.name = t.name::regclass ORDER BY 1;

-- the readings of a grouped subquery kept in state, the distinct states they name, and the
-- state tables there are (a shared state is one table)
SELECT t.name,
       (SELECT count(*) FROM regexp_matches(e.value, 'aggregates kept in state', 'g')) AS kept_readings,
       (SELECT count(DISTINCT m[1]) FROM regexp_matches(e.value, 'aggregates kept in state\): state dynview_state\."+([^"]+)', 'g') m) AS named_states,
       (SELECT count(*) FROM pg_class c WHERE c.relnamespace = 'dynview_state'::regnamespace
           AND c.relkind = 'r' AND c.relname LIKE 'ext\_' || t.name::regclass::oid || '\_%'
           AND EXISTS (SELECT FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'dv_count')) AS grouped_state_tables
  FROM ss_tables t JOIN dynview.explain_dynamic_table(t.name) e ON e.property = 'operator tree'
 ORDER BY 1;

-- every grouped state of the table against its groups recomputed from the source (the groups of
-- day < 8, or of day < 9 for the second state of ss_differ): keys, counts and sums
\getenv abs_srcdir PG_ABS_SRCDIR
\set grouped_states :abs_srcdir '/sql/include/grouped_states.sql'
\i :grouped_states
CREATE FUNCTION ss_state_ok(t text) RETURNS bool LANGUAGE plpgsql AS $$
DECLARE
  st regclass;
  ok bool := true;
  same bool;
  lim int;
BEGIN
  FOR st IN SELECT dv_grouped_states(t) LOOP
    lim := CASE WHEN t = 'ss_differ' AND st::text LIKE '%\_2' THEN 9 ELSE 8 END;
    EXECUTE format('SELECT (SELECT array_agg(ROW(k1, dv_count, s1)::text ORDER BY k1 NULLS FIRST) FROM %s) IS NOT DISTINCT FROM
                           (SELECT array_agg(ROW(g, c, s)::text ORDER BY g NULLS FIRST)
                              FROM (SELECT g, count(*) AS c, sum(v) AS s FROM ss_li WHERE day < %s GROUP BY g) x)', st, lim) INTO same;
    ok := ok AND same;
  END LOOP;
  RETURN ok;
END $$;

\set refresh_rows :abs_srcdir '/sql/include/refresh_rows.sql'
\i :refresh_rows
CREATE FUNCTION ss_round() RETURNS TABLE (name text, mode text, reason text, verified bool, rows bigint, state_ok bool)
LANGUAGE sql AS $$ SELECT * FROM dv_refresh_rows('ss_tables', 'ss_state_ok') $$;

SELECT * FROM ss_round();
SELECT * FROM ss_max ORDER BY g;
-- 1. only the other side of one reading changes (the table joined to the WITH query): the shared
--    state has no change and is read as it is
UPDATE ss_g SET name = name || '!' WHERE g <= 12;
SELECT * FROM ss_round();
-- 2. the greatest group shrinks and another takes its place; a new group appears (20), a group
--    vanishes (3), a group emptied and created again in the same window (4)
UPDATE ss_li SET v = 0 WHERE g = (SELECT g FROM ss_max LIMIT 1) AND day < 8;
INSERT INTO ss_li VALUES (1001, 20, 99.50, 1);
DELETE FROM ss_li WHERE g = 3;
DELETE FROM ss_li WHERE g = 4;
INSERT INTO ss_li VALUES (1002, 4, 2.00, 2);
SELECT * FROM ss_round();
SELECT * FROM ss_max ORDER BY g;
SELECT name, total, n FROM ss_view ORDER BY name;
-- 3. the new group becomes the greatest, then its rows move out of the filter (day 8: only the
--    second state of ss_differ has them)
INSERT INTO ss_li VALUES (1003, 20, 900.00, 3);
SELECT * FROM ss_round();
SELECT * FROM ss_max ORDER BY g;
UPDATE ss_li SET day = 8 WHERE g = 20;
SELECT * FROM ss_round();
SELECT * FROM ss_max ORDER BY g;
-- 4. NULL group keys: a group of NULL g appears, changes, and goes
INSERT INTO ss_li VALUES (1004, NULL, 5000.00, 1), (1005, NULL, 1.00, 2);
SELECT * FROM ss_round();
SELECT * FROM ss_max ORDER BY g;
DELETE FROM ss_li WHERE id = 1004;
SELECT * FROM ss_round();
DELETE FROM ss_li WHERE g IS NULL;
SELECT * FROM ss_round();
-- 5. both sides in one window, rows moving between groups
UPDATE ss_li SET g = g + 1 WHERE id % 5 = 0;
DELETE FROM ss_g WHERE g = 7;
INSERT INTO ss_g VALUES (26, 'group 26');
UPDATE ss_li SET g = 26 WHERE id % 17 = 0;
SELECT * FROM ss_round();
SELECT a.g, a.total, a.next_total FROM ss_self a ORDER BY a.g LIMIT 5;
-- 6. a truncated source: FULL, the shared state built again (once); then incremental
TRUNCATE ss_li;
INSERT INTO ss_li SELECT n, 1 + n % 6, n % 5 + 0.5, n % 10 FROM generate_series(1, 50) n;
SELECT * FROM ss_round();
UPDATE ss_li SET v = v + 1 WHERE id % 3 = 0;
SELECT * FROM ss_round();

SELECT dynview.drop_dynamic_table(name) FROM ss_tables ORDER BY name;
-- dropped with their tables
SELECT count(*) AS states_left FROM pg_class WHERE relnamespace = 'dynview_state'::regnamespace AND relname LIKE 'ext\_%';
DROP FUNCTION ss_round();
DROP FUNCTION dv_refresh_rows(regclass, regproc), dv_grouped_states_counted(text), dv_grouped_states(text);
DROP FUNCTION ss_state_ok(text);
DROP VIEW ss_rev;
DROP TABLE ss_tables, ss_li, ss_g;
