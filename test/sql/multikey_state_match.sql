-- An aggregate state with several group keys (refresh/aggstate.c key_match): a refresh finds
-- the state rows of its changed groups by plain equality of every key when no changed group
-- has a NULL key (an index on the keys is then used whole), and by the NULL-matching form
-- (g = g OR both NULL) otherwise.  Exercised: groups with a NULL in their first key, their
-- second, both, and groups sharing their first key with them; windows that change only groups
-- without a NULL key, only groups with one, and both; groups appearing and vanishing; the
-- linear one-pass path (count, sum), the path with count(DISTINCT) and min/max, and a numeric
-- sum that may recompute its groups.  A state row matched to the wrong group would leave the
-- state unequal to the table (the refresh then says FULL, INCREMENTAL_MISMATCH) or the table
-- unequal to its query.  Every refresh compared with its query (verify(), by text and by =).
SET client_min_messages = warning;
\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round
CREATE TABLE mk_src (id int PRIMARY KEY, a int, b text, v int, w text, x numeric);
INSERT INTO mk_src SELECT i, CASE WHEN i % 5 = 0 THEN NULL ELSE i % 3 END,
                          CASE WHEN i % 7 = 0 THEN NULL ELSE 'b' || (i % 4) END,
                          i % 11, 'w' || (i % 6), (i % 9) * 0.5
  FROM generate_series(1, 200) i;
CREATE TABLE mk_defs (name text, query text);
INSERT INTO mk_defs VALUES
  ('mk_lin', 'SELECT a, b, count(*) AS n, sum(v) AS sv FROM mk_src GROUP BY a, b'),
  ('mk_ext', 'SELECT a, b, count(*) AS n, min(v) AS mn, max(w) AS mx, count(DISTINCT w) AS dw FROM mk_src GROUP BY a, b'),
  ('mk_num', 'SELECT b, a, count(*) AS n, sum(x) AS sx, avg(x) AS ax FROM mk_src GROUP BY b, a');
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual', refresh_mode => 'incremental') IS NOT NULL AS created
  FROM mk_defs ORDER BY name;
SELECT name, (SELECT value FROM dynview.explain_dynamic_table(name) WHERE property = 'mode') AS mode
  FROM mk_defs ORDER BY name;
SELECT count(*) FILTER (WHERE a IS NULL AND b IS NOT NULL) AS a_null, count(*) FILTER (WHERE a IS NOT NULL AND b IS NULL) AS b_null,
       count(*) FILTER (WHERE a IS NULL AND b IS NULL) AS both_null, count(*) FILTER (WHERE a IS NOT NULL AND b IS NOT NULL) AS no_null
  FROM mk_lin;

-- only groups without a NULL key change: one appears, one vanishes, others change (the groups
-- beside them with a NULL key and the same first key must stay as they are)
INSERT INTO mk_src VALUES (1001, 1, 'new', 5, 'w9', 1.5), (1002, 1, 'new', 6, 'w9', 2.5);
DELETE FROM mk_src WHERE a = 2 AND b = 'b3';
UPDATE mk_src SET v = v + 100, w = 'w0' WHERE a = 1 AND b = 'b1';
SELECT * FROM dv_refresh_round('mk_defs');

-- only groups with a NULL key change: NULL first key, NULL second key, both; one of each kind
-- vanishes and comes back as a new group
UPDATE mk_src SET v = v + 1, x = x + 0.25 WHERE a IS NULL AND b = 'b2';
UPDATE mk_src SET w = 'w8' WHERE a = 1 AND b IS NULL;
DELETE FROM mk_src WHERE a IS NULL AND b IS NULL;
DELETE FROM mk_src WHERE a = 0 AND b IS NULL;
SELECT * FROM dv_refresh_round('mk_defs');
INSERT INTO mk_src VALUES (1003, NULL, NULL, 1, 'w1', 0.5), (1004, 0, NULL, 2, 'w2', 1.0);
SELECT * FROM dv_refresh_round('mk_defs');

-- both kinds in one window, rows moving between a group and its NULL-keyed neighbour
UPDATE mk_src SET b = NULL WHERE a = 2 AND b = 'b1' AND id % 2 = 0;
UPDATE mk_src SET a = NULL WHERE a = 0 AND b = 'b0';
INSERT INTO mk_src VALUES (1005, 2, 'b3', 4, 'w4', 4.5);
SELECT * FROM dv_refresh_round('mk_defs');

-- and back: groups without a NULL key only again, over the state the last window left
UPDATE mk_src SET v = v - 1 WHERE a = 2 AND b = 'b3';
DELETE FROM mk_src WHERE id IN (1001, 1002);
SELECT * FROM dv_refresh_round('mk_defs');

-- the state still has one row per group of each table
SELECT d.name, (xpath('/row/c/text()', query_to_xml(format('SELECT count(*) AS c FROM dynview_state.%I',
                   'agg_' || d.name::regclass::oid), false, true, '')))[1]::text::int
               = (xpath('/row/c/text()', query_to_xml(format('SELECT count(*) AS c FROM %I', d.name),
                   false, true, '')))[1]::text::int AS state_rows_match
  FROM mk_defs d ORDER BY d.name;
SELECT dynview.drop_dynamic_table(name) FROM mk_defs ORDER BY name;
DROP TABLE mk_src, mk_defs;
DROP FUNCTION dv_refresh_round(regclass);
