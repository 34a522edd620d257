-- Rows kept back from a change buffer in a scheduled pipeline (incremental.c, "The handoff";
-- issue 14): the scheduler refreshes each table of a pipeline in a subtransaction of its own, so a
-- middle layer can fail while the layer before it succeeds.  The first layer's changes, kept back
-- from its buffer because every reader of it is in the pipeline, must then reach the buffer at the
-- pipeline's end, for the failed reader's next refresh.  Deterministic: each wait is a bounded
-- poll for a condition, then the condition is shown.
SET client_min_messages = warning;
SET dynview.full_refresh_change_ratio = 0;
\getenv abs_srcdir PG_ABS_SRCDIR
\set poll_until :abs_srcdir '/sql/include/poll_until.sql'
\i :poll_until

CREATE TABLE hs_src (id int PRIMARY KEY, v int, amt numeric);
INSERT INTO hs_src SELECT i, 1 + i % 5, ((i % 7) || '.' || repeat('0', i % 3))::numeric FROM generate_series(1, 60) i;
CREATE TABLE hs_defs (name text PRIMARY KEY, query text NOT NULL);
INSERT INTO hs_defs VALUES
  ('hs_detail', $$SELECT id, v, amt FROM hs_src WHERE v > 0 OR id % 2 = 0$$),
  -- fails while a row of hs_detail has v = 0
  ('hs_mid', $$SELECT id, 100 / v AS r, amt FROM hs_detail$$),
  ('hs_top', $$SELECT count(*) AS n, sum(r) AS s, sum(amt) AS total FROM hs_mid$$);
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual', refresh_mode => 'incremental') IS NOT NULL AS created
  FROM hs_defs ORDER BY CASE name WHEN 'hs_detail' THEN 0 WHEN 'hs_mid' THEN 1 ELSE 2 END;

-- does a dynamic table's change buffer hold rows (of any transaction, consumed or not)?
CREATE FUNCTION hs_buffer_has_rows(t text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE found boolean;
BEGIN
  EXECUTE format('SELECT EXISTS (SELECT FROM dynview_buffer.%I)', 'changes_' || t::regclass::oid) INTO found;
  RETURN found;
END $$;
\set compare_defs :abs_srcdir '/sql/include/compare_defs.sql'
\i :compare_defs

-- (1) a scheduled pipeline that succeeds: every layer refreshed, each in its subtransaction
UPDATE hs_src SET amt = amt + 1 WHERE id % 4 = 1;
DELETE FROM hs_src WHERE id % 9 = 0;
SELECT dynview.wait_for_capture('1 minute');
SELECT dynview.alter_dynamic_table('hs_top', schedule => '1 second');
SELECT dv_poll_until($$SELECT count(*) = 3 FROM dynview.refresh_history
  WHERE table_name IN ('hs_detail', 'hs_mid', 'hs_top') AND refresh_mode = 'INCREMENTAL'
    AND start_time > (SELECT max(created_at) FROM dynview.dynamic_table_catalog)$$) AS refreshed;
SELECT dynview.alter_dynamic_table('hs_top', schedule => 'manual');
SELECT * FROM dv_compare_defs('hs_defs');

-- (2) a change that makes hs_mid fail (100 / 0), with others: the scheduler refreshes hs_detail,
-- hs_mid fails in its subtransaction, hs_top waits (UPSTREAM_FAILED); hs_detail's changes are in
-- its buffer at the pipeline's end, unconsumed
UPDATE hs_src SET v = 0, amt = amt * 2 WHERE id = 10;
UPDATE hs_src SET v = v + 1, amt = (amt::text || '0')::numeric WHERE id % 6 = 2;
INSERT INTO hs_src SELECT i, 2, 1.5 FROM generate_series(61, 70) i;
SELECT dynview.wait_for_capture('1 minute');
SELECT max(refresh_id) AS before_failure FROM dynview.refresh_history \gset
SELECT dynview.alter_dynamic_table('hs_top', schedule => '1 second');
SELECT dv_poll_until(format($$SELECT EXISTS (SELECT FROM dynview.refresh_history
  WHERE table_name = 'hs_top' AND state = 'UPSTREAM_FAILED' AND refresh_id > %s)$$, :before_failure)) AS failed;
SELECT dynview.alter_dynamic_table('hs_top', schedule => 'manual');
SELECT table_name, state, refresh_mode FROM dynview.refresh_history
 WHERE refresh_id > :before_failure AND refresh_id <= (SELECT min(refresh_id) FROM dynview.refresh_history
   WHERE table_name = 'hs_top' AND state = 'UPSTREAM_FAILED' AND refresh_id > :before_failure)
 ORDER BY refresh_id;
SELECT hs_buffer_has_rows('hs_detail') AS detail_changes_in_buffer;

-- (3) the data fixed: hs_mid's next refresh reads the failed cycle's changes of hs_detail from
-- its buffer, with the new ones, and every layer equals its query again
UPDATE hs_src SET v = 3 WHERE id = 10;
SELECT dynview.wait_for_capture('1 minute');
SELECT table_name, state, refresh_mode FROM dynview.refresh('hs_top') ORDER BY 1;
SELECT * FROM dv_compare_defs('hs_defs');

SELECT dynview.drop_dynamic_table(name) FROM hs_defs ORDER BY CASE name WHEN 'hs_top' THEN 0 WHEN 'hs_mid' THEN 1 ELSE 2 END;
DROP FUNCTION dv_compare_defs(regclass);
DROP FUNCTION hs_buffer_has_rows(text);
DROP FUNCTION dv_poll_until(text);
DROP TABLE hs_defs, hs_src;
