-- A source's TRUNCATE is told apart from VACUUM FULL and CLUSTER in the refresh history: all three
-- replace the source's storage (FULL, found before any change is read), but only TRUNCATE writes a
-- WAL record that logical decoding delivers, which the decoder keeps as a marker in the source's
-- change buffer; a refresh whose window holds one says SOURCE_TRUNCATED and names the table, the
-- others say SOURCE_ALTERED and name the commands that rewrite a table.  A TRUNCATE made in the
-- refreshing transaction itself is not decoded yet: SOURCE_ALTERED, naming TRUNCATE among the
-- possible causes.  Every refresh verified, and the rows compared by text and by =.
SET client_min_messages = warning;

CREATE TABLE tr_a (id int PRIMARY KEY, g int, v numeric(8,2));
CREATE TABLE tr_b (g int PRIMARY KEY, label text);
INSERT INTO tr_a SELECT i, i % 3, i * 1.5 FROM generate_series(1, 30) i;
INSERT INTO tr_b SELECT i, 'g' || i FROM generate_series(0, 2) i;
CREATE TABLE tr_defs (name text, query text);
INSERT INTO tr_defs VALUES
  ('tr_rows', $$SELECT id, g, v FROM tr_a$$),
  ('tr_join', $$SELECT a.id, b.label, a.v FROM tr_a a JOIN tr_b b USING (g)$$),
  ('tr_sum', $$SELECT b.label, count(*) AS n, sum(a.v) AS s FROM tr_a a JOIN tr_b b USING (g) GROUP BY b.label$$);
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual', refresh_mode => 'incremental')
  FROM tr_defs ORDER BY name;

\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round
-- each round: the tables refreshed and compared (dv_refresh_round), then the text of each one's
-- last refresh reason
CREATE VIEW tr_reasons AS
SELECT DISTINCT ON (h.name) h.name, h.mode_reason
  FROM dynview.refresh_history h JOIN tr_defs d ON h.name = d.name::regclass
 ORDER BY h.name, h.refresh_id DESC;

-- TRUNCATE of one source, then new rows: SOURCE_TRUNCATED, naming it
TRUNCATE tr_a;
INSERT INTO tr_a SELECT i, i % 3, i * 2.5 FROM generate_series(5, 20) i;
SELECT * FROM dv_refresh_round('tr_defs');
SELECT * FROM tr_reasons ORDER BY name::text;
-- incremental again after it
UPDATE tr_a SET v = v + 1 WHERE id < 9;
SELECT * FROM dv_refresh_round('tr_defs');
SELECT * FROM tr_reasons ORDER BY name::text;

-- VACUUM FULL and CLUSTER rewrite a source without truncating it: SOURCE_ALTERED
VACUUM FULL tr_a;
UPDATE tr_a SET v = v + 1 WHERE id = 10;
SELECT * FROM dv_refresh_round('tr_defs');
SELECT * FROM tr_reasons ORDER BY name::text;
CLUSTER tr_b USING tr_b_pkey;
SELECT * FROM dv_refresh_round('tr_defs');
SELECT * FROM tr_reasons ORDER BY name::text;

-- TRUNCATE of one source and VACUUM FULL of the other in one window: both named
TRUNCATE tr_b;
INSERT INTO tr_b VALUES (0, 'zero'), (1, 'one');
VACUUM FULL tr_a;
SELECT * FROM dv_refresh_round('tr_defs');
SELECT * FROM tr_reasons ORDER BY name::text;

-- a TRUNCATE undone by its transaction's rollback: nothing happened
BEGIN;
TRUNCATE tr_a;
ROLLBACK;
SELECT * FROM dv_refresh_round('tr_defs');
SELECT * FROM tr_reasons ORDER BY name::text;

-- TRUNCATE in the refreshing transaction: not decoded yet, so not told apart
BEGIN;
TRUNCATE tr_b;
INSERT INTO tr_b VALUES (2, 'two');
SELECT * FROM dv_refresh_round('tr_defs');
SELECT * FROM tr_reasons ORDER BY name::text;
COMMIT;
-- (committed, the next refresh's window holds that TRUNCATE, whose effect the table has already)
SELECT * FROM dv_refresh_round('tr_defs');
SELECT * FROM tr_reasons ORDER BY name::text;

SELECT count(dynview.drop_dynamic_table(name)) FROM tr_defs;
DROP VIEW tr_reasons;
DROP FUNCTION dv_refresh_round(regclass);
DROP TABLE tr_defs, tr_a, tr_b;
