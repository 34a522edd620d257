-- The history row written without an INSERT statement (catalog.c, dv_history_insert and
-- insert_row): the row refresh() returns is the row stored, its columns as the statement computed
-- them, the same-transaction watch sees the write (a dynamic table over refresh_history is refused
-- at commit, as before), and a history table given a trigger is written by an INSERT, which fires it.
SET client_min_messages = warning;
CREATE TABLE hd_src (id int PRIMARY KEY, v int);
INSERT INTO hd_src VALUES (1, 10), (2, 20);
SELECT dynview.create_dynamic_table('hd_dt', 'SELECT id, v FROM hd_src', schedule => 'manual');
INSERT INTO hd_src VALUES (3, 30);
SELECT dynview.wait_for_capture();
CREATE TEMP TABLE hd_returned AS SELECT * FROM dynview.refresh('hd_dt');
SELECT dynview.verify('hd_dt');
-- what refresh() returned is the row stored, by text and by =
SELECT r::text = h::text AS same_text, to_jsonb(r) = to_jsonb(h) AS same
  FROM hd_returned r JOIN dynview.refresh_history h USING (refresh_id);
-- its columns as the INSERT statement computed them
SELECT h.refresh_mode, h.state, h.refresh_trigger, h.rows_inserted, h.rows_deleted,
       h.name = 'hd_dt'::regclass AS named, h.schema_name, h.table_name,
       h.duration_ms = extract(epoch FROM h.end_time - h.start_time) * 1000 AS duration_as_sql,
       h.source_tables = jsonb_build_array(jsonb_build_object('name', 'public.hd_src',
                           'oid', 'hd_src'::regclass::oid::bigint, 'dynamic_table', false)) AS sources,
       h.data_snapshot::text = c.data_snapshot::text AS snapshot_recorded,
       h.data_lsn = c.data_lsn AS lsn_recorded,
       h.refresh_id = (SELECT max(refresh_id) FROM dynview.refresh_history) AS newest
  FROM dynview.refresh_history h JOIN dynview.dynamic_table_catalog c ON c.relid = h.name
 WHERE h.refresh_id = (SELECT refresh_id FROM hd_returned);
-- a refresh with nothing to do: NO_DATA, a row of its own with a new id
SELECT refresh_mode, refresh_id > (SELECT refresh_id FROM hd_returned) AS later FROM dynview.refresh('hd_dt');
-- a dynamic table over refresh_history: its creation writes its own history row after reading,
-- which the watch sees: refused at commit
SELECT dynview.create_dynamic_table('hd_hist', 'SELECT refresh_id, state FROM dynview.refresh_history',
  schedule => 'manual');
SELECT to_regclass('hd_hist') AS not_created;
-- a trigger on the history table (a DBA's): rows are written by an INSERT statement, which fires it
CREATE TABLE hd_audit (refresh_id bigint, mode text);
CREATE FUNCTION hd_audit_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN INSERT INTO public.hd_audit VALUES (NEW.refresh_id, NEW.refresh_mode); RETURN NEW; END $$;
CREATE TRIGGER hd_audit AFTER INSERT ON dynview.refresh_history FOR EACH ROW EXECUTE FUNCTION hd_audit_row();
INSERT INTO hd_src VALUES (4, 40);
SELECT dynview.wait_for_capture();
CREATE TEMP TABLE hd_returned2 AS SELECT * FROM dynview.refresh('hd_dt');
SELECT dynview.verify('hd_dt');
SELECT a.mode, a.refresh_id = r.refresh_id AS same_id FROM hd_audit a, hd_returned2 r;
SELECT r::text = h::text AS same_text FROM hd_returned2 r JOIN dynview.refresh_history h USING (refresh_id);
DROP TRIGGER hd_audit ON dynview.refresh_history;
-- the catalog row's data snapshot is recorded without an UPDATE statement too (update_catalog_row,
-- its BEFORE ROW trigger data_origin fired); a catalog given an AFTER trigger gets an UPDATE of the
-- same values, which fires it
CREATE FUNCTION hd_catalog_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN INSERT INTO public.hd_audit VALUES (NULL, NEW.data_snapshot::text); RETURN NEW; END $$;
CREATE TRIGGER hd_catalog AFTER UPDATE ON dynview.dynamic_table_catalog FOR EACH ROW EXECUTE FUNCTION hd_catalog_row();
DELETE FROM hd_audit;
INSERT INTO hd_src VALUES (5, 50);
SELECT dynview.wait_for_capture();
CREATE TEMP TABLE hd_returned3 AS SELECT * FROM dynview.refresh('hd_dt');
SELECT r.refresh_mode, r.data_snapshot::text = a.mode AS trigger_saw_snapshot
  FROM hd_returned3 r, hd_audit a;
SELECT dynview.verify('hd_dt');
DROP TRIGGER hd_catalog ON dynview.dynamic_table_catalog;
INSERT INTO hd_src VALUES (6, 60);
SELECT dynview.wait_for_capture();
CREATE TEMP TABLE hd_returned4 AS SELECT * FROM dynview.refresh('hd_dt');
SELECT h.refresh_mode, h.data_snapshot::text = c.data_snapshot::text AS snapshot_recorded,
       c.data_origin = dynview._data_origin() AS origin_by_trigger, c.last_refresh_state, c.consecutive_failures,
       c.next_refresh_full IS NULL AS no_full_due, cardinality(c.data_own_xids) >= 1 AS own_xids
  FROM hd_returned4 h JOIN dynview.dynamic_table_catalog c ON c.relid = h.name;
SELECT dynview.verify('hd_dt');
SELECT (SELECT array_agg(t::text ORDER BY t::text) FROM hd_dt t) =
       (SELECT array_agg(q::text ORDER BY q::text) FROM (SELECT id, v FROM hd_src) q) AS same_rows_text;
SELECT dynview.drop_dynamic_table('hd_dt');
DROP FUNCTION hd_audit_row() CASCADE;
DROP FUNCTION hd_catalog_row();
DROP TABLE hd_audit, hd_src;
