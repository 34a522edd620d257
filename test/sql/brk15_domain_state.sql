-- Tester's finding (s15-brk): a refresh whose query calls no user code and whose dynamic table
-- has no domain column marks its writes as dynview's own (not decoded: writes_are_own), but the
-- state it keeps of a column of a domain type has that type: count(DISTINCT d) over a domain
-- column keeps its multiplicities in a value column of the domain, or an array of it, into
-- which the refresh's statements coerce array_agg(d) (of the base type), so the domain's CHECK
-- runs inside those writes.  A CHECK may call a function declared IMMUTABLE that calls a
-- volatile one that writes another table: its rows were never captured, and the dynamic tables
-- over that table missed them for good (seen: verify() false, 22 rows of the log missing).
-- Correct result: a refresh whose query reads a column of a domain type is not marked; every
-- table over the written table sees the rows.  Three shapes of the multiplicities: one row per
-- group with arrays, one row per group and value (dynview.distinct_values_per_row = 0), and a
-- count(DISTINCT) without GROUP BY.  Each refresh in a transaction of its own, checked with
-- verify() and by text and by =.
SET client_min_messages = warning;
\getenv abs_srcdir PG_ABS_SRCDIR
\set writing_domain :abs_srcdir '/sql/include/writing_domain.sql'
\i :writing_domain
CREATE TABLE bds_src (id int PRIMARY KEY, g int, d dw_dom);
INSERT INTO bds_src SELECT i, i % 3, i FROM generate_series(1, 20) i;
ANALYZE bds_src;
-- the writers: no domain column in their results, no user code in their queries
SELECT dynview.create_dynamic_table('bds_arrays', 'SELECT g, count(DISTINCT d) AS nd, count(*) AS n FROM bds_src GROUP BY g',
                                    schedule => 'manual') IS NOT NULL AS created;
SET dynview.distinct_values_per_row = 0;
SELECT dynview.create_dynamic_table('bds_values', 'SELECT g, count(DISTINCT d) AS nd, count(*) AS n FROM bds_src GROUP BY g',
                                    schedule => 'manual') IS NOT NULL AS created;
RESET dynview.distinct_values_per_row;
SELECT dynview.create_dynamic_table('bds_global', 'SELECT count(DISTINCT d) AS nd, count(*) AS n FROM bds_src',
                                    schedule => 'manual') IS NOT NULL AS created;
-- the shapes of their multiplicities: arrays of the domain, a value column of the domain
SELECT t, a.attname, format_type(a.atttypid, a.atttypmod) AS type
  FROM unnest(ARRAY['bds_arrays', 'bds_values', 'bds_global']) t
  JOIN pg_class c ON c.relnamespace = 'dynview_state'::regnamespace AND c.relkind = 'r'
   AND c.relname LIKE 'dist\_' || t::regclass::oid || '\_%'
  JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
 WHERE a.attname IN ('v', 'vs') ORDER BY t, a.attname;
-- the reader of what they write
SELECT dynview.create_dynamic_table('bds_rows', 'SELECT id, v FROM dw_log', schedule => 'manual') IS NOT NULL AS created;
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round
CREATE TABLE bds_defs (name text, query text);
INSERT INTO bds_defs VALUES ('bds_rows', 'SELECT id, v FROM dw_log'),
  ('bds_arrays', 'SELECT g, count(DISTINCT d) AS nd, count(*) AS n FROM bds_src GROUP BY g'),
  ('bds_values', 'SELECT g, count(DISTINCT d) AS nd, count(*) AS n FROM bds_src GROUP BY g'),
  ('bds_global', 'SELECT count(DISTINCT d) AS nd, count(*) AS n FROM bds_src');
-- a round (\gexec): the log's size; the writers refreshed, each in a transaction of its own; the
-- log grew (the CHECK ran inside their refreshes); then the reader refreshed and every table
-- compared with its query (dv_refresh_round: the writers NO_DATA, compared)
CREATE TABLE bds_size (n bigint);
INSERT INTO bds_size VALUES (0);
CREATE VIEW bds_round AS
  SELECT stmt FROM (VALUES (0, 'UPDATE bds_size SET n = (SELECT count(*) FROM dw_log)'),
                           (1, $$SELECT refresh_mode FROM dynview.refresh('bds_arrays')$$),
                           (2, $$SELECT refresh_mode FROM dynview.refresh('bds_values')$$),
                           (3, $$SELECT refresh_mode FROM dynview.refresh('bds_global')$$),
                           (4, 'SELECT count(*) > (SELECT n FROM bds_size) AS log_grew FROM dw_log'),
                           (5, 'SELECT * FROM dv_refresh_round(''bds_defs'')')) s(i, stmt)
   ORDER BY i;

-- values in and out of groups, a group's value twice, a NULL
INSERT INTO bds_src VALUES (21, 1, 21), (22, 2, 3), (23, 0, NULL);
DELETE FROM bds_src WHERE id = 2;
UPDATE bds_src SET g = 0 WHERE id = 5;
SELECT stmt FROM bds_round \gexec
-- values that leave, a group emptied, values moved between groups
DELETE FROM bds_src WHERE g = 2;
UPDATE bds_src SET d = d + 100 WHERE id % 4 = 0;
UPDATE bds_src SET g = 1 WHERE id IN (1, 3);
SELECT stmt FROM bds_round \gexec

SELECT dynview.drop_dynamic_table(n) FROM unnest(ARRAY['bds_arrays', 'bds_values', 'bds_global', 'bds_rows']) n;
DROP VIEW bds_round;
DROP TABLE bds_defs, bds_size;
DROP FUNCTION dv_refresh_round(regclass);
DROP TABLE bds_src, dw_log;
DROP SEQUENCE dw_seq;
DROP DOMAIN dw_dom;
DROP FUNCTION dw_ok(int), dw_write(int);
