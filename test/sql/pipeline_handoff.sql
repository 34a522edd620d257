-- The handoff within a pipeline (incremental.c, issue 14): what a refresh writes into its table's
-- change buffer is kept in memory for the rest of the pipeline, and a downstream refreshed after
-- it takes its window of that table from memory instead of reading the buffer back, when both
-- tables were last refreshed together (the same data snapshot and own xids), neither was refreshed
-- before in the transaction, the rows fit in work_mem and the window is read as it is.  Each case
-- below shows which windows were taken so (the DEBUG1 lines) and compares every table with its
-- query: dynview.verify(), and the rows by their text form and by = (ho_check).
SET client_min_messages = warning;
SET dynview.full_refresh_change_ratio = 0;

CREATE TABLE ho_p (pid int PRIMARY KEY, cat text);
CREATE TABLE ho_o (id int PRIMARY KEY, pid int, qty int, amt numeric);
INSERT INTO ho_p SELECT i, 'c' || (i % 4) FROM generate_series(1, 12) i;
INSERT INTO ho_o SELECT i, 1 + i % 12, i % 5, ((i % 9) || '.' || repeat('0', i % 3))::numeric FROM generate_series(1, 400) i;

CREATE TABLE ho_defs (name text PRIMARY KEY, query text NOT NULL);
INSERT INTO ho_defs VALUES
  -- the detail layer (a join with a filter), read by two downstreams
  ('ho_detail', $$SELECT o.id, p.cat, o.qty, o.amt FROM ho_o o JOIN ho_p p ON p.pid = o.pid WHERE o.qty > 0$$),
  -- an aggregate of it (state, COUNT(DISTINCT) recomputed by group)
  ('ho_gmv', $$SELECT cat, sum(amt) AS total, count(*) AS n, count(DISTINCT id) AS orders FROM ho_detail GROUP BY cat$$),
  -- a selection of it
  ('ho_big', $$SELECT id, cat, amt FROM ho_detail WHERE amt >= 5$$),
  -- a join of the two: the pipeline of ho_top is the diamond detail -> (gmv, big) -> top
  ('ho_top', $$SELECT b.id, b.amt, g.total FROM ho_big b JOIN ho_gmv g ON g.cat = b.cat$$);
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual', refresh_mode => 'incremental') IS NOT NULL AS created
  FROM ho_defs ORDER BY CASE name WHEN 'ho_detail' THEN 0 WHEN 'ho_top' THEN 2 ELSE 1 END, name;

\getenv abs_srcdir PG_ABS_SRCDIR
\set compare_defs :abs_srcdir '/sql/include/compare_defs.sql'
\i :compare_defs
-- the rows of a dynamic table's change buffer (of any transaction, consumed or not)
CREATE FUNCTION ho_buffer_rows(t text) RETURNS SETOF int LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE format('SELECT 1 FROM dynview_buffer.%I', 'changes_' || t::regclass::oid);
END $$;
-- the modes of the last pipeline's four refreshes, in their order
CREATE VIEW ho_modes AS
  SELECT string_agg(table_name || '=' || refresh_mode, ' ' ORDER BY refresh_id) AS modes
    FROM (SELECT * FROM dynview.refresh_history WHERE table_name LIKE 'ho\_%' ORDER BY refresh_id DESC LIMIT 4) h;
-- (a first pipeline: the backend's caches, whose growth DEBUG1 would show)
UPDATE ho_o SET qty = qty + 1 WHERE id % 50 = 0;
SELECT dynview.wait_for_capture('1 minute');
SELECT refresh_mode FROM dynview.refresh('ho_top');

-- (1) updates, deletes, inserts, a value equal but written otherwise (1.0 -> 1.00), a row leaving
-- the filter: ho_gmv and ho_big take ho_detail's rows; ho_top, a join of two changed sources,
-- consolidates its windows first and reads the buffers
UPDATE ho_o SET amt = amt + 1 WHERE id % 7 = 0;
UPDATE ho_o SET amt = (amt::text || '0')::numeric WHERE id % 11 = 0;
UPDATE ho_o SET qty = 0 WHERE id % 13 = 0;
DELETE FROM ho_o WHERE id % 17 = 0;
INSERT INTO ho_o SELECT i, 1 + i % 12, 1 + i % 4, i % 8 FROM generate_series(401, 430) i;
SELECT dynview.wait_for_capture('1 minute');
SET client_min_messages = debug1;
SELECT refresh_mode FROM dynview.refresh('ho_top');
SET client_min_messages = warning;
SELECT * FROM ho_modes;
SELECT * FROM dv_compare_defs('ho_defs');

-- (2) ho_detail refreshed alone first: its data snapshot is no longer that of its downstreams,
-- which read its buffer (what that refresh wrote and what the pipeline's wrote)
UPDATE ho_o SET amt = amt + 2 WHERE id % 5 = 1;
SELECT dynview.wait_for_capture('1 minute');
SELECT refresh_mode FROM dynview.refresh('ho_detail');
UPDATE ho_o SET pid = 1 + (pid + 3) % 12 WHERE id % 9 = 2;
SELECT dynview.wait_for_capture('1 minute');
SET client_min_messages = debug1;
SELECT refresh_mode FROM dynview.refresh('ho_top');
SET client_min_messages = warning;
SELECT * FROM ho_modes;
SELECT * FROM dv_compare_defs('ho_defs');

-- (3) the same pipeline twice in one transaction, a change between: the second refreshes in
-- full (REFRESHED_IN_TRANSACTION) and takes nothing kept
BEGIN;
UPDATE ho_o SET amt = amt + 3 WHERE id % 8 = 3;
SELECT refresh_mode FROM dynview.refresh('ho_top');
UPDATE ho_o SET amt = amt - 3 WHERE id % 8 = 3 AND id % 16 = 3;
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('ho_top');
COMMIT;
SELECT * FROM ho_modes;
SELECT * FROM dv_compare_defs('ho_defs');

-- (4) more than work_mem written by ho_detail: not kept, its downstreams read its buffer
SET work_mem = '64kB';
INSERT INTO ho_o SELECT i, 1 + i % 12, 1 + i % 4, i % 8 FROM generate_series(1001, 4000) i;
SELECT dynview.wait_for_capture('1 minute');
SET client_min_messages = debug1;
SELECT refresh_mode FROM dynview.refresh('ho_top');
SET client_min_messages = warning;
RESET work_mem;
SELECT * FROM ho_modes;
SELECT * FROM dv_compare_defs('ho_defs');

-- (5) windows consolidated first (dynview.linear_windows_as_is off): read from the buffers
SET dynview.linear_windows_as_is = off;
UPDATE ho_o SET amt = amt - 500 WHERE id % 3 = 0;
SELECT dynview.wait_for_capture('1 minute');
SET client_min_messages = debug1;
SELECT refresh_mode FROM dynview.refresh('ho_top');
SET client_min_messages = warning;
RESET dynview.linear_windows_as_is;
SELECT * FROM ho_modes;
SELECT * FROM dv_compare_defs('ho_defs');

-- (6) a pipeline rolled back, then the same window refreshed again: nothing of the rolled-back
-- refreshes is kept (the buffers and the data snapshots are those before)
UPDATE ho_o SET qty = qty + 1 WHERE id % 6 = 5;
DELETE FROM ho_o WHERE id % 23 = 0;
SELECT dynview.wait_for_capture('1 minute');
BEGIN;
SELECT refresh_mode FROM dynview.refresh('ho_top');
ROLLBACK;
SET client_min_messages = debug1;
SELECT refresh_mode FROM dynview.refresh('ho_top');
SET client_min_messages = warning;
SELECT * FROM ho_modes;
SELECT * FROM dv_compare_defs('ho_defs');

-- (7) a pipeline that leaves out a reader: ho_gmv's pipeline (ho_detail, ho_gmv) does not
-- refresh ho_big, which reads ho_detail too, so ho_detail's refresh writes its buffer as it goes
-- (no line about rows kept back); ho_big reads them there in ho_top's pipeline after
UPDATE ho_o SET amt = amt + 4 WHERE id % 10 = 4;
SELECT dynview.wait_for_capture('1 minute');
SET client_min_messages = debug1;
SELECT refresh_mode FROM dynview.refresh('ho_gmv');
SELECT count(*) > 0 AS detail_buffer_written FROM ho_buffer_rows('ho_detail');
SELECT refresh_mode FROM dynview.refresh('ho_top');
SET client_min_messages = warning;
SELECT * FROM dv_compare_defs('ho_defs');

-- (8) a pipeline rolled back to a savepoint, then run again in the same transaction: what the
-- rolled-back refreshes kept back is gone with them
UPDATE ho_o SET qty = qty + 2 WHERE id % 14 = 3;
SELECT dynview.wait_for_capture('1 minute');
BEGIN;
SAVEPOINT s;
SELECT refresh_mode FROM dynview.refresh('ho_top');
ROLLBACK TO SAVEPOINT s;
SET LOCAL client_min_messages = debug1;
SELECT refresh_mode FROM dynview.refresh('ho_top');
COMMIT;
SELECT * FROM ho_modes;
SELECT * FROM dv_compare_defs('ho_defs');

-- (9) a source's column retyped: ho_detail's refresh (FULL, SOURCE_ALTERED) deletes its rows,
-- retypes its columns and its buffer's, then inserts; what it kept back of the deletes is written
-- to the buffer before the buffer changes (its rows have the old types)
ALTER TABLE ho_o ALTER qty TYPE bigint;
SELECT refresh_mode FROM dynview.refresh('ho_top');
SELECT * FROM ho_modes;
SELECT * FROM dv_compare_defs('ho_defs');

SELECT dynview.drop_dynamic_table(name) FROM ho_defs ORDER BY CASE name WHEN 'ho_top' THEN 0 WHEN 'ho_detail' THEN 2 ELSE 1 END, name;
DROP FUNCTION ho_buffer_rows(text);
DROP VIEW ho_modes;
DROP FUNCTION dv_compare_defs(regclass);
DROP TABLE ho_defs, ho_o, ho_p;
