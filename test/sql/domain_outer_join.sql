-- A column of a domain that the query yields without the domain's checks (tester of the
-- twenty-ninth session): a LEFT JOIN's NULL-extended row holds NULL in a column of a NOT NULL
-- domain, and the build stores it as CREATE TABLE AS would.  A select/join table's delta spells
-- that NULL of the domain's base type (its branches are joined by UNION ALL), and the delta's
-- columns were then cast to the table's column types, the domain's included: the cast ran the NOT
-- NULL check, and every incremental refresh with such a row failed ("domain ... does not allow
-- null values") until one refreshed in full.  Now a domain column is cast to the domain's base
-- type and typmod (the value the table stores is the base type's); a domain over numeric(10,2)
-- still rounds as its base typmod does.  Grouped, windowed and DISTINCT shapes of the same join
-- beside it.  The same check met an aggregate's FILTER (second tester): the state's input is
-- agg(CASE WHEN f THEN x END), whose NULL was spelled of the domain; count(x) keeps its argument's
-- type, so creating count(d) FILTER (...) over a NOT NULL domain failed.  The CASE now takes a
-- domain's x as its base type, as PostgreSQL's own CASE does.  Each refresh is compared with its
-- query (dv_refresh_round: verify(), the rows by text and by =).
SET client_min_messages = warning;
\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round
CREATE DOMAIN doj_nn AS int NOT NULL;
CREATE DOMAIN doj_pos AS numeric(10,2) CHECK (VALUE > 0);
CREATE TABLE doj_a (id int PRIMARY KEY, k int);
CREATE TABLE doj_b (k int PRIMARY KEY, d doj_nn, p doj_pos);
INSERT INTO doj_a SELECT i, i FROM generate_series(1, 6) i;
INSERT INTO doj_b VALUES (1, 10, 1.5), (2, 20, 2.25);
CREATE TABLE doj_defs (name text, query text);
INSERT INTO doj_defs VALUES
  ('doj_rows', 'SELECT doj_a.id, doj_b.d, doj_b.p FROM doj_a LEFT JOIN doj_b ON doj_a.k = doj_b.k'),
  ('doj_grouped', 'SELECT doj_b.d, count(*) AS n, sum(doj_b.p) AS sp FROM doj_a LEFT JOIN doj_b ON doj_a.k = doj_b.k GROUP BY doj_b.d'),
  ('doj_ranked', 'SELECT doj_a.id, doj_b.d, rank() OVER (PARTITION BY doj_b.d ORDER BY doj_a.id) AS r FROM doj_a LEFT JOIN doj_b ON doj_a.k = doj_b.k'),
  ('doj_distinct', 'SELECT DISTINCT doj_b.d FROM doj_a LEFT JOIN doj_b ON doj_a.k = doj_b.k'),
  ('doj_filtered', 'SELECT doj_b.k % 2 AS g, count(doj_b.d) FILTER (WHERE doj_b.k > 1) AS n, count(*) AS c FROM doj_b GROUP BY 1');
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual', refresh_mode => 'incremental') IS NOT NULL AS created
  FROM doj_defs ORDER BY name;
-- the select/join table's columns keep the domains
SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute
  WHERE attrelid = 'doj_rows'::regclass AND attnum > 0 ORDER BY attnum;

-- rows of doj_b come and go: NULL-extended rows enter and leave the delta
INSERT INTO doj_b VALUES (3, 30, 3.125);
DELETE FROM doj_b WHERE k = 1;
INSERT INTO doj_a VALUES (7, 99);
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('doj_defs');
UPDATE doj_b SET d = 21, p = 0.005 WHERE k = 2;
INSERT INTO doj_b VALUES (1, 11, 1);
DELETE FROM doj_a WHERE id = 6;
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('doj_defs');
DELETE FROM doj_b WHERE k IN (2, 3);
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('doj_defs');
SELECT * FROM doj_rows ORDER BY id;

SELECT dynview.drop_dynamic_table(name) FROM doj_defs ORDER BY name;
DROP TABLE doj_a, doj_b, doj_defs;
DROP DOMAIN doj_nn, doj_pos;
DROP FUNCTION dv_refresh_round(regclass);
