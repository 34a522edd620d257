-- sum and avg of numeric without one scale (numeric with no declared scale, expressions mixing
-- scales) in grouped subqueries that keep their groups (dynview_state.ext_<table oid>_<n>): the
-- sum shows the largest display scale of the group's live inputs (1.0 + 1.00 = 2.00, and 1.0
-- again once the 1.00 row is deleted), avg that sum divided by the count as numeric_avg does,
-- NaN and the infinities as PostgreSQL's sum and avg give them.  The state counts the live inputs
-- per display scale, so no group is recomputed for a scale that dropped; a group with an input of
-- a scale above 1000 is recomputed over its own rows.  verify() (text form and =) after every
-- refresh, and every state row counts rows of a live group.
SET client_min_messages = warning;
CREATE TABLE ns_li (id int PRIMARY KEY, g int, x numeric, y numeric, p numeric(15,2), q numeric(15,2), day int);
ALTER TABLE ns_li REPLICA IDENTITY FULL;
CREATE TABLE ns_g (g int PRIMARY KEY, name text);
ALTER TABLE ns_g REPLICA IDENTITY FULL;
INSERT INTO ns_g SELECT g, 'group ' || g FROM generate_series(1, 12) g;
-- scales 0 to 3 side by side in every group
INSERT INTO ns_li SELECT n, 1 + n % 10, round(n / 7.0, n % 4), round(n / 3.0, (n + 1) % 3),
                         (n * 7) % 23 + 0.25, (n % 9) / 100.0, n % 10
  FROM generate_series(1, 120) n;

CREATE TABLE ns_tables (name text PRIMARY KEY, query text);
INSERT INTO ns_tables VALUES
  -- a grouped subquery joined by its key: sum, avg and count of an unconstrained numeric
  ('ns_join', 'SELECT ns_g.g, ns_g.name, r.sx, r.ax, r.n FROM ns_g JOIN (SELECT g, sum(x) AS sx, avg(x) AS ax, count(x) AS n FROM ns_li GROUP BY g) r ON r.g = ns_g.g'),
  -- products: of unconstrained numerics (scales add), TPC-H-like of numeric(15,2) columns (one
  -- scale: no scale counts), and a CASE mixing scale 4 with 0 (TPC-H Q8's shape); FILTER;
  -- expressions over the aggregates
  ('ns_prod', 'SELECT r.* FROM ns_g, (SELECT g, sum(x * y) AS sxy, avg(x * y) AS axy, sum(p * (1 - q)) AS rev,
                  sum(CASE WHEN day < 5 THEN p * (1 - q) ELSE 0 END) AS part, sum(x) FILTER (WHERE day >= 5) AS sf,
                  sum(x) + sum(p) AS sxp, avg(x) * 2 AS ax2 FROM ns_li GROUP BY g) r WHERE r.g = ns_g.g'),
  -- nested: a grouped subquery inside a join inside an aggregate
  ('ns_nested', 'SELECT ns_g.g % 3 AS m, count(*) AS groups, sum(r.sx) AS total, max(r.ax) AS top_avg
                   FROM ns_g JOIN (SELECT g, sum(x) AS sx, avg(y) AS ax FROM ns_li GROUP BY g) r ON r.g = ns_g.g GROUP BY ns_g.g % 3'),
  -- a correlated scalar subquery, decorrelated into a join with a grouped subquery
  ('ns_corr', 'SELECT ns_g.g, ns_g.name FROM ns_g WHERE ns_g.g < (SELECT avg(x) * 2 FROM ns_li WHERE ns_li.g = ns_g.g)'),
  -- IN over a GROUP BY with HAVING on an unconstrained sum
  ('ns_in', 'SELECT ns_g.g, ns_g.name FROM ns_g WHERE ns_g.g IN (SELECT g FROM ns_li GROUP BY g HAVING sum(x) > 85)');
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual') IS NOT NULL AS created
  FROM ns_tables ORDER BY name;
SELECT t.name, d.effective_mode FROM ns_tables t JOIN dynview.dynamic_tables d ON d.name = t.name::regclass ORDER BY 1;

-- every grouped subquery keeps its groups; explain() names the aggregates whose scales are
-- counted (ns_prod: sum(x * y), avg(x * y), the CASE and the FILTER, not the sum of products of
-- numeric(15,2) columns nor sum(p))
SELECT t.name,
       (SELECT count(*) FROM regexp_matches(e.value, 'aggregates kept in state', 'g')) AS kept_groups,
       (SELECT string_agg(m[1], '; ') FROM regexp_matches(e.value, 'sums of numeric without one scale \(([^)]*)\)', 'g') m) AS scale_counted
  FROM ns_tables t JOIN dynview.explain_dynamic_table(t.name) e ON e.property = 'operator tree'
 ORDER BY 1;

-- no state row of a group without rows
\getenv abs_srcdir PG_ABS_SRCDIR
\set grouped_states :abs_srcdir '/sql/include/grouped_states.sql'
\i :grouped_states
CREATE FUNCTION ns_state_ok(t text) RETURNS bool LANGUAGE sql AS $$ SELECT dv_grouped_states_counted(t) $$;

\set refresh_rows :abs_srcdir '/sql/include/refresh_rows.sql'
\i :refresh_rows
CREATE FUNCTION ns_round() RETURNS TABLE (name text, mode text, reason text, verified bool, rows bigint, state_ok bool)
LANGUAGE sql AS $$ SELECT * FROM dv_refresh_rows('ns_tables', 'ns_state_ok') $$;

SELECT * FROM ns_round();
-- 1. group 11 (new): 1.0, 1.00, 1.000; then the max-scale rows deleted one scale at a time
INSERT INTO ns_li VALUES (1001, 11, 1.0, 1, 1, 0, 1), (1002, 11, 1.00, 2, 1, 0, 6), (1003, 11, 1.000, 3, 1, 0, 7);
SELECT * FROM ns_round();
SELECT sx, ax, n FROM ns_join WHERE g = 11;
DELETE FROM ns_li WHERE id = 1003;
SELECT * FROM ns_round();
SELECT sx, ax, n FROM ns_join WHERE g = 11;
DELETE FROM ns_li WHERE id = 1002;
SELECT * FROM ns_round();
SELECT sx, ax, n FROM ns_join WHERE g = 11;
-- the largest scales of a whole group leave it (scale 3 rows of group 2), and come back
DELETE FROM ns_li WHERE g = 2 AND scale(x) = 3;
SELECT * FROM ns_round();
SELECT sx, ax FROM ns_join WHERE g = 2;
INSERT INTO ns_li VALUES (1004, 2, 0.125, 0.5, 2, 0.01, 2);
SELECT * FROM ns_round();
SELECT sx, ax FROM ns_join WHERE g = 2;
-- 2. NaN, +Infinity, -Infinity: NaN while a NaN is there, an infinity while only it, NaN for both
INSERT INTO ns_li VALUES (1005, 3, 'NaN', 1, 1, 0, 1);
SELECT * FROM ns_round();
SELECT sx, ax FROM ns_join WHERE g = 3;
DELETE FROM ns_li WHERE id = 1005;
INSERT INTO ns_li VALUES (1006, 4, 'Infinity', 'Infinity', 1, 0, 1);
SELECT * FROM ns_round();
SELECT g, sx, ax FROM ns_join WHERE g IN (3, 4) ORDER BY g;
INSERT INTO ns_li VALUES (1007, 4, '-Infinity', 2, 1, 0, 1);
SELECT * FROM ns_round();
SELECT sx, ax FROM ns_join WHERE g = 4;
DELETE FROM ns_li WHERE id = 1006;
SELECT * FROM ns_round();
SELECT sx, ax FROM ns_join WHERE g = 4;
DELETE FROM ns_li WHERE id = 1007;
SELECT * FROM ns_round();
SELECT sx, ax FROM ns_join WHERE g = 4;
-- 3. NULLs: a group whose inputs are all NULL (sum and avg NULL, count 0), then one value
INSERT INTO ns_li VALUES (1008, 12, NULL, NULL, NULL, NULL, 1), (1009, 12, NULL, 1.5, 1, 0, 8);
SELECT * FROM ns_round();
SELECT sx, ax, n FROM ns_join WHERE g = 12;
UPDATE ns_li SET x = 2.50 WHERE id = 1008;
SELECT * FROM ns_round();
SELECT sx, ax, n FROM ns_join WHERE g = 12;
-- 4. empty groups: a group emptied, one emptied and created again in one window
DELETE FROM ns_li WHERE g = 12;
DELETE FROM ns_li WHERE g = 5;
INSERT INTO ns_li VALUES (1010, 5, 7.0000, 1, 1, 0, 1);
SELECT * FROM ns_round();
SELECT g, sx, ax, n FROM ns_join WHERE g IN (5, 12) ORDER BY g;
-- 5. avg's scale: numeric division of the sum (at its display scale) by the count
INSERT INTO ns_li VALUES (1011, 11, 0.00000000000000000001, 1, 1, 0, 1), (1012, 11, 2, 1, 1, 0, 1);
SELECT * FROM ns_round();
SELECT sx, ax FROM ns_join WHERE g = 11;
DELETE FROM ns_li WHERE id = 1011;
SELECT * FROM ns_round();
SELECT sx, ax FROM ns_join WHERE g = 11;
-- 6. updates that change scales only (equal values, other text)
UPDATE ns_li SET x = x::numeric(20, 6) WHERE g = 6;
SELECT * FROM ns_round();
SELECT sx, ax FROM ns_join WHERE g = 6;
UPDATE ns_li SET x = round(x, 1) WHERE g = 6;
SELECT * FROM ns_round();
SELECT sx, ax FROM ns_join WHERE g = 6;
-- 7. a scale above 1000 (the scale counts' last block): its group is recomputed over its rows
--    while such an input is live, and counted by blocks again once it is gone
INSERT INTO ns_li VALUES (1013, 7, ('0.' || repeat('0', 1199) || '1')::numeric, 1, 1, 0, 1);
SELECT * FROM ns_round();
SELECT scale(sx), scale(ax) FROM ns_join WHERE g = 7;
UPDATE ns_li SET x = x + 1 WHERE g = 7 AND id < 60;
SELECT * FROM ns_round();
SELECT scale(sx) FROM ns_join WHERE g = 7;
-- two such scales: once the larger is gone the sum shows the other (which adding the delta to
-- the kept sum would not)
INSERT INTO ns_li VALUES (1015, 7, ('0.' || repeat('0', 1099) || '1')::numeric, 1, 1, 0, 1);
SELECT * FROM ns_round();
DELETE FROM ns_li WHERE id = 1013;
SELECT * FROM ns_round();
SELECT scale(sx), scale(ax) FROM ns_join WHERE g = 7;
DELETE FROM ns_li WHERE id = 1015;
SELECT * FROM ns_round();
SELECT sx, scale(sx) FROM ns_join WHERE g = 7;
-- 8. only the other side changes: the groups are read from their state
UPDATE ns_g SET name = name || '!' WHERE g <= 6;
SELECT * FROM ns_round();
-- 9. more rows of every scale
INSERT INTO ns_li VALUES (1014, 8, 3.14159, 2.5, 3, 0.02, 3);
SELECT * FROM ns_round();

SELECT count(*) AS dropped FROM (SELECT dynview.drop_dynamic_table(name) FROM ns_tables) d;
SELECT count(*) AS states_left FROM pg_class WHERE relnamespace = 'dynview_state'::regnamespace AND relname LIKE 'ext\_%';
DROP FUNCTION ns_round(), ns_state_ok(text), dv_refresh_rows(regclass, regproc), dv_grouped_states_counted(text), dv_grouped_states(text);
DROP TABLE ns_tables, ns_li, ns_g;
