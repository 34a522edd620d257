-- The restriction of a refresh to the changed groups' keys where some of them are NULL
-- (refresh/incremental.c dv_key_restriction): with several key columns and NULL keys among the
-- changed groups, one arm per pattern of NULLs (its NULL columns IS NULL, each other column
-- = ANY of that pattern's values) instead of "(k = ANY OR k IS NULL)" per column, which read
-- every row with a NULL in that column.  An arm that narrows one column at most, the others
-- NULL in it, is exact (the aggregate state's step 6 then needs no semi-join on the changed
-- groups).  Exercised: groups with a NULL in their first key, their second, both, none, in
-- windows of one pattern and of several; three keys; a key of a type that does not narrow
-- (an array: only its IS NULL in an arm) beside nullable keys; the aggregate state's steps 5
-- and 6 (sum, max), groups recomputed without state (string_agg), and a window partitioned by
-- nullable keys.  A restriction that missed a changed group would leave its old row behind.
-- Every refresh compared with its query (verify(), by text and by =).
SET client_min_messages = warning;
\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round
CREATE TABLE nr_src (id int PRIMARY KEY, a int, b text, c int, arr int[], v int);
INSERT INTO nr_src SELECT i, CASE WHEN i % 5 IN (0, 1) THEN NULL ELSE i % 7 END,
                          CASE WHEN i % 5 IN (2, 3) THEN NULL ELSE 'b' || (i % 4) END,
                          CASE WHEN i % 3 = 0 THEN NULL ELSE i % 2 END,
                          CASE WHEN i % 4 = 0 THEN NULL ELSE ARRAY[i % 3] END, i
  FROM generate_series(1, 300) i;
CREATE TABLE nr_defs (name text, query text);
INSERT INTO nr_defs VALUES
  ('nr_sum', 'SELECT a, b, count(*) AS n, sum(v) AS sv, max(v) AS mx FROM nr_src GROUP BY a, b'),
  ('nr_three', 'SELECT a, b, c, count(*) AS n, min(v) AS mn FROM nr_src GROUP BY a, b, c'),
  ('nr_agg', 'SELECT a, b, string_agg(v::text, '','' ORDER BY v) AS vs FROM nr_src GROUP BY a, b'),
  ('nr_arr', 'SELECT arr, a, count(*) AS n, sum(v) AS sv FROM nr_src GROUP BY arr, a'),
  ('nr_win', 'SELECT id, a, b, v, rank() OVER (PARTITION BY a, b ORDER BY v DESC) AS r FROM nr_src');
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual', refresh_mode => 'incremental') IS NOT NULL AS created
  FROM nr_defs ORDER BY name;
SELECT name, (SELECT value FROM dynview.explain_dynamic_table(name) WHERE property = 'mode') AS mode
  FROM nr_defs ORDER BY name;

-- one pattern: only groups with a NULL first key (each arm narrows one column: exact)
UPDATE nr_src SET v = v + 1000 WHERE a IS NULL AND b = 'b1';
SELECT * FROM dv_refresh_round('nr_defs');

-- two patterns, each exact: (NULL, x) and (x, NULL); the max of one group goes
DELETE FROM nr_src WHERE id = (SELECT max(id) FROM nr_src WHERE a IS NULL AND b = 'b0');
UPDATE nr_src SET v = v - 1 WHERE a = 3 AND b IS NULL;
SELECT * FROM dv_refresh_round('nr_defs');

-- every pattern at once (none, first, second, both NULL), groups appearing and vanishing,
-- rows moving between a group and its NULL-keyed neighbours
INSERT INTO nr_src VALUES (1001, NULL, NULL, NULL, NULL, 7), (1002, 6, 'new', 1, '{9}', 8),
                          (1003, NULL, 'new', NULL, '{9}', 9), (1004, 6, NULL, 0, NULL, 10);
UPDATE nr_src SET a = NULL WHERE a = 2 AND b = 'b2';
UPDATE nr_src SET b = NULL, c = NULL WHERE a = 4 AND b = 'b3';
DELETE FROM nr_src WHERE a IS NULL AND b IS NULL AND id < 100;
SELECT * FROM dv_refresh_round('nr_defs');

-- and back to no NULL key among the changes (the per-column form), over what the windows left
UPDATE nr_src SET v = v + 5 WHERE a = 5 AND b = 'b2' AND c = 1;
DELETE FROM nr_src WHERE id = 1002;
SELECT * FROM dv_refresh_round('nr_defs');

-- a group keyed by an array alone changes (the array does not narrow: only its IS NULL)
UPDATE nr_src SET v = v + 3 WHERE arr IS NULL AND a IS NULL;
UPDATE nr_src SET v = v + 3 WHERE arr = '{1}' AND a IS NULL;
SELECT * FROM dv_refresh_round('nr_defs');

SELECT dynview.drop_dynamic_table(name) FROM nr_defs ORDER BY name;
DROP TABLE nr_src, nr_defs;
DROP FUNCTION dv_refresh_round(regclass);
