-- A refresh rolled back to a savepoint leaves the table as its earlier refresh in the same
-- transaction made it, so a source write between the two must still refuse the COMMIT
-- (txnwatch.c keeps its events per subtransaction: a rolled-back subtransaction's refreshes and
-- writes go, a committed one's become its parent's).  Before, the rolled-back refresh counted
-- as the table's last one: the commit passed, the table's data snapshot counted the transaction
-- as seen, and the next refresh skipped the write (NO_DATA), leaving the table wrong for good
-- (found by s13-nu's review).  A write rolled back to a savepoint, and a refresh released with
-- its savepoint, let the commit pass.  After each transaction every table is refreshed and
-- compared with its query: verify(), and the rows by text and by =.
SET client_min_messages = warning;
\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round
CREATE TABLE spw_src (id int PRIMARY KEY, g int, v numeric);
INSERT INTO spw_src SELECT i, i % 3, i * 1.50 FROM generate_series(1, 12) i;
CREATE TABLE spw_defs (name text, query text);
INSERT INTO spw_defs VALUES
  ('spw_rows', 'SELECT id, g, v FROM spw_src'),
  ('spw_sums', 'SELECT g, sum(v) AS s, count(*) AS n FROM spw_src GROUP BY g'),
  ('spw_top', 'SELECT g, s FROM spw_sums WHERE n > 0');
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual') FROM spw_defs ORDER BY name;
-- refresh, write, refresh again in a savepoint rolled back: refused
BEGIN;
SELECT refresh_mode FROM dynview.refresh('spw_rows');
INSERT INTO spw_src VALUES (100, 1, 1.0);
SAVEPOINT s1;
SELECT refresh_mode FROM dynview.refresh('spw_rows');
ROLLBACK TO SAVEPOINT s1;
COMMIT;
SELECT * FROM dv_refresh_round('spw_defs');
-- the same through a PL/pgSQL block whose exception rolls back its refresh: refused
BEGIN;
SELECT refresh_mode FROM dynview.refresh('spw_sums');
UPDATE spw_src SET v = v + 0.10 WHERE id = 2;
DO $$
BEGIN
  PERFORM dynview.refresh('spw_sums');
  RAISE EXCEPTION 'undo';
EXCEPTION WHEN raise_exception THEN NULL;
END $$;
COMMIT;
SELECT * FROM dv_refresh_round('spw_defs');
-- a downstream refreshed, its upstream then applying a write, the downstream's second
-- refresh rolled back: refused
BEGIN;
SELECT refresh_mode FROM dynview.refresh('spw_top');
DELETE FROM spw_src WHERE id = 3;
SELECT refresh_mode FROM dynview.refresh('spw_sums');
SAVEPOINT s2;
SELECT refresh_mode FROM dynview.refresh('spw_top');
ROLLBACK TO SAVEPOINT s2;
COMMIT;
SELECT * FROM dv_refresh_round('spw_defs');
-- the second refresh released with its savepoint: the commit passes
BEGIN;
SELECT refresh_mode FROM dynview.refresh('spw_rows');
INSERT INTO spw_src VALUES (101, 2, 2.00);
SAVEPOINT s3;
SELECT refresh_mode FROM dynview.refresh('spw_rows');
RELEASE SAVEPOINT s3;
COMMIT;
SELECT * FROM dv_refresh_round('spw_defs');
-- the write rolled back to its savepoint: the commit passes
BEGIN;
SELECT refresh_mode FROM dynview.refresh('spw_rows');
SAVEPOINT s4;
DELETE FROM spw_src WHERE id = 4;
ROLLBACK TO SAVEPOINT s4;
COMMIT;
SELECT * FROM dv_refresh_round('spw_defs');
-- nested savepoints: the inner refresh released into the outer, the outer rolled back: refused
BEGIN;
SELECT refresh_mode FROM dynview.refresh('spw_rows');
UPDATE spw_src SET g = 0 WHERE id = 5;
SAVEPOINT s5;
SAVEPOINT s6;
SELECT refresh_mode FROM dynview.refresh('spw_rows');
RELEASE SAVEPOINT s6;
ROLLBACK TO SAVEPOINT s5;
COMMIT;
SELECT * FROM dv_refresh_round('spw_defs');
-- many subtransactions (an exception block each), each with a write and a refresh,
-- committed: the commit passes
BEGIN;
DO $$
BEGIN
  FOR i IN 1..50 LOOP
    BEGIN
      INSERT INTO spw_src VALUES (200 + i, i % 3, i);
      PERFORM dynview.refresh('spw_top');
    EXCEPTION WHEN division_by_zero THEN NULL;
    END;
  END LOOP;
END $$;
COMMIT;
SELECT * FROM dv_refresh_round('spw_defs');
SELECT dynview.drop_dynamic_table(name) FROM spw_defs ORDER BY name DESC;
DROP TABLE spw_defs, spw_src;
DROP FUNCTION dv_refresh_round(regclass);
