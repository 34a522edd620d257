-- Two source columns whose names are swapped (RENAME COLUMN a TO tmp, b TO a, tmp TO b) between
-- refreshes (fifteenth session's note: dynamic_tables.query then showed the old text, which now
-- reads as another query).  The stored definition follows the columns (follow_renames deparses
-- the kept tree: the old a is named b) and the refresh is exact; the text shown was the user's
-- text as written.  Correct result: the refresh is FULL (SOURCE_ALTERED) and exact, query shows
-- the definition under the new names, and the refreshes after it stay exact (verify(), rows
-- compared by text and by =).
SET client_min_messages = warning;
CREATE TABLE rsw_src (id int PRIMARY KEY, a int NOT NULL, b text NOT NULL);
INSERT INTO rsw_src SELECT i, i * 10, 'b' || i FROM generate_series(1, 12) i;
CREATE TABLE rsw_defs (name text, query text);
INSERT INTO rsw_defs VALUES ('rsw_rows', 'SELECT id, a, b FROM rsw_src WHERE a > 20'),
  ('rsw_groups', 'SELECT a % 3 AS k, count(*) AS n, max(b) AS mb, sum(a) AS total FROM rsw_src GROUP BY a % 3');
SELECT format('SELECT dynview.create_dynamic_table(%L, %L, schedule => ''manual'') IS NOT NULL AS created',
              name, query) FROM rsw_defs ORDER BY name \gexec
BEGIN;
ALTER TABLE rsw_src RENAME COLUMN a TO tmp;
ALTER TABLE rsw_src RENAME COLUMN b TO a;
ALTER TABLE rsw_src RENAME COLUMN tmp TO b;
COMMIT;
-- the queries as the definitions now read (the old a is b)
UPDATE rsw_defs SET query = 'SELECT id, b AS a, a AS b FROM rsw_src WHERE b > 20' WHERE name = 'rsw_rows';
UPDATE rsw_defs SET query = 'SELECT b % 3 AS k, count(*) AS n, max(a) AS mb, sum(b) AS total FROM rsw_src GROUP BY b % 3'
 WHERE name = 'rsw_groups';
INSERT INTO rsw_src (id, a, b) VALUES (13, 'b13', 130), (14, 'b14', 5);
UPDATE rsw_src SET b = b + 1 WHERE id % 4 = 0;
\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round
SELECT * FROM dv_refresh_round('rsw_defs');
-- the text shown: the definition under the new names, no longer the text written
SELECT name::text, query FROM dynview.dynamic_tables ORDER BY 1;
-- it is the query of the table's columns: it creates an equal table
SELECT dynview.create_dynamic_table('rsw_again', (SELECT query FROM dynview.dynamic_tables WHERE name = 'rsw_rows'::regclass),
                                    schedule => 'manual') IS NOT NULL AS created;
SELECT count(*) AS differing FROM ((TABLE rsw_rows EXCEPT ALL TABLE rsw_again) UNION ALL (TABLE rsw_again EXCEPT ALL TABLE rsw_rows)) x;
SELECT dynview.drop_dynamic_table('rsw_again');
-- further changes, refreshed incrementally
DELETE FROM rsw_src WHERE id IN (3, 13);
UPDATE rsw_src SET a = a || 'x', b = b - 5 WHERE id % 3 = 0;
INSERT INTO rsw_src (id, a, b) VALUES (15, 'b15', 33);
SELECT * FROM dv_refresh_round('rsw_defs');

SELECT dynview.drop_dynamic_table(name) FROM rsw_defs ORDER BY name;
DROP FUNCTION dv_refresh_round(regclass);
DROP TABLE rsw_defs, rsw_src;
