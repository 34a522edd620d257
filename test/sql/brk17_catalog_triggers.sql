-- Tester's finding (s17-brk): the catalog row's data snapshot, written since the sixteenth session
-- without an UPDATE statement (catalog.c update_catalog_row: table_tuple_lock and
-- ExecSimpleRelationUpdate), went that way also when a DBA had given dynamic_table_catalog a
-- BEFORE ROW UPDATE trigger of its own.  ExecSimpleRelationUpdate fires it, and when it returns
-- NULL (skips the row) updates nothing and says nothing: the refresh committed the table's new rows
-- with the old data snapshot, and the next refresh applied the same change again (seen on main
-- b879c15: a group counted 22 rows instead of 21, verify() false).  As an UPDATE statement (the
-- fifteenth session's build) the skipped row made the statement affect no row, and the refresh
-- failed.  Correct result: a catalog or history table given any trigger other than dynview's
-- data_origin, or a rule, is written by SQL statements (dba_attached): a skipped row fails the
-- refresh, the table keeps its rows, and a trigger that lets the row through runs as before.
-- Then a column a DBA adds to refresh_history with a default (second finding, below).  Each refresh
-- checked with verify() and by text and by =.
SET client_min_messages = warning;
CREATE TABLE bct_src (id int PRIMARY KEY, g int, v int);
INSERT INTO bct_src SELECT i, i % 5, i FROM generate_series(1, 100) i;
CREATE TABLE bct_defs (name text PRIMARY KEY, query text NOT NULL);
INSERT INTO bct_defs VALUES
  ('bct_group', 'SELECT g, sum(v) AS s, count(*) AS n FROM bct_src GROUP BY g'),
  ('bct_rows', 'SELECT id, g, v FROM bct_src');
SELECT count(dynview.create_dynamic_table(name, query, schedule => 'manual')) FROM bct_defs;
\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round

-- a DBA's BEFORE ROW UPDATE trigger on the catalog that skips the rows a refresh updates while
-- bct.skip is on, and counts the rows it sees
CREATE TABLE bct_seen (n int);
INSERT INTO bct_seen VALUES (0);
CREATE FUNCTION bct_skip() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE public.bct_seen SET n = n + 1;
  IF current_setting('bct.skip', true) = 'on' THEN RETURN NULL; END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER bct_skip BEFORE UPDATE ON dynview.dynamic_table_catalog
  FOR EACH ROW EXECUTE FUNCTION bct_skip();

-- round 1: rows inserted, the catalog rows' updates skipped: each refresh fails (its rows undone)
INSERT INTO bct_src VALUES (1000, 1, 1000), (1001, 2, 1001);
DELETE FROM bct_src WHERE id = 7;
SELECT dynview.wait_for_capture();
SET bct.skip = on;
SELECT refresh_mode FROM dynview.refresh('bct_group');
SELECT refresh_mode FROM dynview.refresh('bct_rows');
RESET bct.skip;

-- round 2: the trigger lets the rows through: each refresh applies round 1's change once
SELECT * FROM dv_refresh_round('bct_defs');
SELECT n > 0 AS trigger_ran FROM bct_seen;

-- round 3: more changes, refreshed twice each
INSERT INTO bct_src VALUES (1002, 1, 5), (1003, 3, 6);
UPDATE bct_src SET v = v + 1 WHERE g = 4;
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('bct_defs');
SELECT * FROM dv_refresh_round('bct_defs');

DROP TRIGGER bct_skip ON dynview.dynamic_table_catalog;
-- round 4: written directly again
DELETE FROM bct_src WHERE id IN (1000, 1002);
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('bct_defs');

-- A column a DBA adds to refresh_history with a default: the row formed for the direct write held
-- NULL there (a NOT NULL one failed every refresh with a not-null violation, seen on b879c15), where
-- the INSERT statement before it gave the default.  Correct result: the default, in the row stored
-- and in the row refresh() returns; with a column dropped before it, and with a BEFORE trigger.
ALTER TABLE dynview.refresh_history ADD COLUMN bct_dropped int;
ALTER TABLE dynview.refresh_history DROP COLUMN bct_dropped;
ALTER TABLE dynview.refresh_history ADD COLUMN bct_note text NOT NULL DEFAULT 'noted';
INSERT INTO bct_src VALUES (1004, 0, 9);
SELECT dynview.wait_for_capture();
CREATE TEMP TABLE bct_returned AS SELECT * FROM dynview.refresh('bct_group');
SELECT dynview.verify('bct_group');
SELECT r.refresh_mode, r.bct_note, h.bct_note AS stored, r::text = h::text AS same_text
  FROM bct_returned r JOIN dynview.refresh_history h USING (refresh_id);
CREATE FUNCTION bct_note() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN NEW.bct_note := NEW.bct_note || ' by trigger'; RETURN NEW; END $$;
CREATE TRIGGER bct_note BEFORE INSERT ON dynview.refresh_history FOR EACH ROW EXECUTE FUNCTION bct_note();
DELETE FROM bct_src WHERE id = 1004;
SELECT dynview.wait_for_capture();
TRUNCATE bct_returned;
INSERT INTO bct_returned SELECT * FROM dynview.refresh('bct_group');
SELECT dynview.verify('bct_group');
SELECT r.refresh_mode, r.bct_note, h.bct_note AS stored, r::text = h::text AS same_text
  FROM bct_returned r JOIN dynview.refresh_history h USING (refresh_id);
DROP TABLE bct_returned;
DROP TRIGGER bct_note ON dynview.refresh_history;
DROP FUNCTION bct_note();
ALTER TABLE dynview.refresh_history DROP COLUMN bct_note;
SELECT * FROM dv_refresh_round('bct_defs');

SELECT dynview.drop_dynamic_table(name) FROM bct_defs ORDER BY name;
DROP FUNCTION dv_refresh_round(regclass);
DROP FUNCTION bct_skip();
DROP TABLE bct_src, bct_defs, bct_seen;
