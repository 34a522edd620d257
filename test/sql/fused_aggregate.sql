-- Aggregates kept in place whose every aggregate is linear in the weights (count, sum, avg,
-- the variance family, bool_and/or, FILTER) take the delta's weighted rows straight into the
-- per-group sums, without consolidating them first (aggstate.c, linear_aggregates); min/max
-- and count(DISTINCT) keep the consolidated input.  Rounds of changes that leave pairs +r/-r
-- in the delta (a row deleted and inserted again in one window, a join partner changed in a
-- column the query does not read, an update back and forth), NULL group keys, groups that
-- appear and vanish in one window, numeric 1.0 -> 1.00 under sums of numeric without a
-- scale, NaN and infinities, a TRUNCATE in the window, min/max whose extreme is deleted, a
-- global aggregate.  Every refresh must be INCREMENTAL (a group the state lacks would make
-- it INCREMENTAL_MISMATCH) except after the TRUNCATE (FULL), and is compared with its query.
SET client_min_messages = warning;
\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round

CREATE TABLE fa_o (id int PRIMARY KEY, g text, k int, x numeric, y numeric(10,2), f float8, b boolean, z int);
CREATE TABLE fa_k (k int PRIMARY KEY, kg text, note text);
INSERT INTO fa_k SELECT i, 'k' || (i % 3), 'n' || i FROM generate_series(0, 5) i;
INSERT INTO fa_o SELECT i, CASE WHEN i % 5 = 0 THEN NULL ELSE 'g' || (i % 4) END, i % 6,
                        (i % 7) * 1.5, (i % 11) * 0.25, i / 3.0, i % 3 = 0, i % 2
  FROM generate_series(1, 40) i;

CREATE TABLE fa_defs (name text, query text);
INSERT INTO fa_defs VALUES
  ('fa_lin', $$SELECT g, count(*) AS n, count(x) AS nx, sum(x) AS sx, avg(x) AS ax, sum(y) AS sy,
                      avg(y) AS ay, stddev(y) AS sd, var_pop(x) AS vp,
                      bool_and(b) AS ba, bool_or(b) AS bo, sum(z) FILTER (WHERE b) AS sz
                 FROM fa_o WHERE z >= 0 GROUP BY g$$),
  ('fa_join', $$SELECT kg, g, count(*) AS n, sum(x * y) AS sxy, avg(y) AS ay
                  FROM fa_o JOIN fa_k USING (k) GROUP BY kg, g$$),
  ('fa_glob', $$SELECT count(*) AS n, sum(x) AS sx, avg(y) AS ay, var_samp(x) AS vx, bool_or(b) AS bo FROM fa_o$$),
  ('fa_ext', $$SELECT g, count(*) AS n, sum(y) AS sy, min(x) AS mn, max(y) AS mx FROM fa_o GROUP BY g$$);
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual', refresh_mode => 'incremental')
  FROM fa_defs ORDER BY name;
SELECT * FROM dv_refresh_round('fa_defs');

-- a row deleted and inserted again alike, one deleted and inserted again with another value,
-- a join partner changed in a column the query does not read (its rows leave and come back),
-- z updated back and forth (read by the filter only)
BEGIN;
DELETE FROM fa_o WHERE id IN (3, 4);
INSERT INTO fa_o VALUES (3, 'g3', 3, 4.5, 0.75, 1, true, 1), (4, 'g0', 4, 99, 9.99, 7, false, 0);
UPDATE fa_k SET note = 'changed' WHERE k IN (1, 2);
UPDATE fa_o SET z = z + 10 WHERE id BETWEEN 10 AND 14;
UPDATE fa_o SET z = z - 10 WHERE id BETWEEN 10 AND 14;
COMMIT;
UPDATE fa_o SET z = 5 WHERE id = 20;
UPDATE fa_o SET z = 0 WHERE id = 20;
SELECT * FROM dv_refresh_round('fa_defs');

-- a group that appears and vanishes within the window, a NULL group emptied and filled again,
-- a group vanishing for good, the extremes of fa_ext deleted
INSERT INTO fa_o VALUES (100, 'new', 1, 1, 1, 1, true, 1), (101, 'new', 2, 2, 2, 2, false, 1);
DELETE FROM fa_o WHERE g = 'new';
DELETE FROM fa_o WHERE g IS NULL;
INSERT INTO fa_o VALUES (102, NULL, 0, 3, 3, 3, NULL, 1);
DELETE FROM fa_o WHERE g = 'g2';
DELETE FROM fa_o WHERE x = (SELECT min(x) FROM fa_o WHERE g = 'g1') AND g = 'g1';
DELETE FROM fa_o WHERE y = (SELECT max(y) FROM fa_o WHERE g = 'g3') AND g = 'g3';
SELECT * FROM dv_refresh_round('fa_defs');
SELECT g, n FROM fa_lin ORDER BY g;

-- numeric written 1.0 then 1.00 (a change of the sum's display scale only), and back to 1.0
-- through a delete and an insert in the same window; a k moved to another partner
UPDATE fa_o SET x = 1.0, y = 1.00 WHERE id IN (1, 2);
SELECT * FROM dv_refresh_round('fa_defs');
UPDATE fa_o SET x = 1.00 WHERE id = 1;
BEGIN;
DELETE FROM fa_o WHERE id = 2;
INSERT INTO fa_o VALUES (2, 'g1', 5, 1.000, 1.00, 2, true, 0);
COMMIT;
UPDATE fa_o SET k = 0 WHERE id = 7;
SELECT * FROM dv_refresh_round('fa_defs');
SELECT g, sx, ax FROM fa_lin WHERE g = 'g1';

-- NaN and infinities in sums of numeric (their groups recomputed), then gone again within a window
UPDATE fa_o SET x = 'NaN' WHERE id = 6;
UPDATE fa_o SET x = 'Infinity' WHERE id = 7;
SELECT * FROM dv_refresh_round('fa_defs');
SELECT g, sx, ax, vp FROM fa_lin ORDER BY g;
BEGIN;
UPDATE fa_o SET x = 'NaN' WHERE id = 8;
UPDATE fa_o SET x = '-Infinity' WHERE id = 9;
UPDATE fa_o SET x = 2 WHERE id IN (6, 7, 8, 9);
COMMIT;
SELECT * FROM dv_refresh_round('fa_defs');

-- TRUNCATE in the window (FULL, SOURCE_TRUNCATED: the source's storage was replaced, found before
-- any change is read), then the next window incremental again
TRUNCATE fa_k;
INSERT INTO fa_k SELECT i, 'k' || (i % 2), NULL FROM generate_series(0, 5) i;
SELECT * FROM dv_refresh_round('fa_defs');
DELETE FROM fa_o WHERE id % 4 = 1;
INSERT INTO fa_o SELECT i, 'g' || (i % 3), i % 6, i * 0.5, i * 0.05, i, i % 2 = 0, 1 FROM generate_series(200, 230) i;
SELECT * FROM dv_refresh_round('fa_defs');

-- everything deleted: the groups go, the global aggregate keeps its one row
DELETE FROM fa_o;
SELECT * FROM dv_refresh_round('fa_defs');
SELECT * FROM fa_glob;

SELECT count(dynview.drop_dynamic_table(name)) FROM fa_defs;
DROP FUNCTION dv_refresh_round(regclass);
DROP TABLE fa_defs, fa_o, fa_k;
