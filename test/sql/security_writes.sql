-- Writes that bypass the guard (issue 11), and resource limits per role.
-- Only a refresh statement of a dynamic table may write it: not a trigger or function it runs,
-- not TRUNCATE (also through CASCADE or inheritance), not a rule.  A write dynview allows on
-- purpose (COPY FROM, for pg_restore) makes the next refresh FULL.
SET client_min_messages = warning;
CREATE TABLE sw_src (id int PRIMARY KEY, v int);
INSERT INTO sw_src VALUES (1, 10), (2, 20);
SELECT dynview.create_dynamic_table('sw_a', 'SELECT id, v FROM sw_src', schedule => 'manual');
SELECT dynview.create_dynamic_table('sw_b', 'SELECT id, v FROM sw_src WHERE v > 10', schedule => 'manual');

-- a trigger on a dynamic table that writes another dynamic table during a refresh: refused,
-- the refresh fails, nothing is written
CREATE FUNCTION sw_write_b() RETURNS trigger LANGUAGE plpgsql
  AS $$BEGIN INSERT INTO public.sw_b VALUES (999, 999); RETURN NULL; END$$;
CREATE TRIGGER sw_a_writes_b AFTER INSERT ON sw_a FOR EACH ROW EXECUTE FUNCTION sw_write_b();
INSERT INTO sw_src VALUES (3, 30);
SELECT refresh_mode, state FROM dynview.refresh('sw_a');
SELECT * FROM sw_b ORDER BY id;
SELECT * FROM sw_a ORDER BY id;
SELECT dynview.verify('sw_a'), dynview.verify('sw_b');
DROP TRIGGER sw_a_writes_b ON sw_a;
-- ... and one that writes the refreshed table itself: refused too
CREATE FUNCTION sw_write_a() RETURNS trigger LANGUAGE plpgsql
  AS $$BEGIN INSERT INTO public.sw_a VALUES (NEW.id + 1000, NEW.v); RETURN NULL; END$$;
CREATE TRIGGER sw_a_writes_a AFTER INSERT ON sw_a FOR EACH ROW EXECUTE FUNCTION sw_write_a();
SELECT refresh_mode, state FROM dynview.refresh('sw_a');
SELECT count(*) AS rows_over_1000 FROM sw_a WHERE id > 1000;
SELECT dynview.verify('sw_a');
DROP TRIGGER sw_a_writes_a ON sw_a;
-- ... and one that starts a refresh of another table: refused
CREATE FUNCTION sw_refresh_b() RETURNS trigger LANGUAGE plpgsql
  AS $$BEGIN PERFORM dynview.refresh('public.sw_b'); RETURN NULL; END$$;
CREATE TRIGGER sw_a_refreshes_b AFTER INSERT ON sw_a FOR EACH ROW EXECUTE FUNCTION sw_refresh_b();
SELECT refresh_mode, state FROM dynview.refresh('sw_a');
DROP TRIGGER sw_a_refreshes_b ON sw_a;
-- without those triggers the refresh succeeds; an AFTER trigger writing an ordinary table is fine
CREATE TABLE sw_audit (id int);
CREATE FUNCTION sw_audit() RETURNS trigger LANGUAGE plpgsql
  AS $$BEGIN INSERT INTO public.sw_audit VALUES (NEW.id); RETURN NULL; END$$;
CREATE TRIGGER sw_a_audit AFTER INSERT ON sw_a FOR EACH ROW EXECUTE FUNCTION sw_audit();
SELECT refresh_mode, state, rows_inserted FROM dynview.refresh('sw_a');
SELECT dynview.verify('sw_a');
SELECT * FROM sw_audit;
-- an AFTER trigger that writes a source of the table during its refresh: refused (the refresh
-- has read the source, and its data snapshot would count the new rows as seen)
CREATE FUNCTION sw_feed() RETURNS trigger LANGUAGE plpgsql
  AS $$BEGIN IF NEW.id < 100 THEN INSERT INTO public.sw_src VALUES (NEW.id + 100, NEW.v); END IF; RETURN NULL; END$$;
CREATE TRIGGER sw_a_feeds_src AFTER INSERT ON sw_a FOR EACH ROW EXECUTE FUNCTION sw_feed();
INSERT INTO sw_src VALUES (4, 40);
SELECT refresh_mode, rows_inserted FROM dynview.refresh('sw_a');
SELECT count(*) AS fed FROM sw_src WHERE id > 100;
SELECT dynview.verify('sw_a');
-- a source of another table, refreshed before in the same transaction, written by a trigger: the
-- commit is refused (that table would not equal its query), nothing changes; refreshing that
-- table again after the write lets it commit
CREATE TABLE sw_src2 (id int PRIMARY KEY, v int);
SELECT dynview.create_dynamic_table('sw_d', 'SELECT id, v FROM sw_src2', schedule => 'manual');
CREATE OR REPLACE FUNCTION sw_feed() RETURNS trigger LANGUAGE plpgsql
  AS $$BEGIN INSERT INTO public.sw_src2 VALUES (NEW.id, NEW.v); RETURN NULL; END$$;
BEGIN;
SELECT refresh_mode FROM dynview.refresh('sw_d');
SELECT refresh_mode, rows_inserted FROM dynview.refresh('sw_a');
COMMIT;
SELECT dynview.verify('sw_a'), dynview.verify('sw_d');
SELECT count(*) AS src2_rows FROM sw_src2;
BEGIN;
SELECT refresh_mode FROM dynview.refresh('sw_d');
SELECT refresh_mode, rows_inserted FROM dynview.refresh('sw_a');
SELECT refresh_mode, mode_reason_code, rows_inserted FROM dynview.refresh('sw_d');
COMMIT;
SELECT dynview.verify('sw_a'), dynview.verify('sw_d');
SELECT * FROM sw_d;
DROP TRIGGER sw_a_feeds_src ON sw_a;
SELECT refresh_mode, state FROM dynview.refresh('sw_b');
SELECT dynview.verify('sw_b');
-- a foreign key that references a dynamic table is refused (its actions would run nested in a refresh)
SELECT dynview.create_dynamic_table('sw_e', 'SELECT id FROM sw_src WHERE id = 1', schedule => 'manual');
CREATE UNIQUE INDEX sw_a_id ON sw_a (id);
ALTER TABLE sw_e ADD FOREIGN KEY (id) REFERENCES sw_a (id) ON DELETE CASCADE;
DELETE FROM sw_src WHERE id = 1;
SELECT refresh_mode, state FROM dynview.refresh('sw_a');
SELECT count(*) AS sw_e_rows FROM sw_e;
SELECT dynview.verify('sw_a'), dynview.verify('sw_e');
SELECT dynview.drop_dynamic_table('sw_e');
DROP INDEX sw_a_id;
INSERT INTO sw_src VALUES (1, 10);
SELECT refresh_mode, state FROM dynview.refresh('sw_a');
SELECT dynview.verify('sw_a');
-- a BEFORE ROW trigger could change the rows a refresh writes: refused
CREATE FUNCTION sw_zero() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN NEW.v := 0; RETURN NEW; END$$;
CREATE TRIGGER sw_a_zero BEFORE INSERT ON sw_a FOR EACH ROW EXECUTE FUNCTION sw_zero();

-- a volatile function in the query of a dynamic table that writes a dynamic table: refused
CREATE FUNCTION sw_sneak(i int) RETURNS int LANGUAGE plpgsql VOLATILE
  AS $$BEGIN INSERT INTO public.sw_b VALUES (i + 500, 0); RETURN i; END$$;
SELECT dynview.create_dynamic_table('sw_c', 'SELECT public.sw_sneak(id) AS id FROM sw_src', schedule => 'manual');
SELECT to_regclass('sw_c') AS sw_c_exists;
SELECT dynview.create_dynamic_table('sw_c', 'SELECT public.sw_sneak(id) AS id FROM sw_src', schedule => 'manual',
                                    initialize => false);
SELECT refresh_mode, state FROM dynview.refresh('sw_c');
SELECT count(*) AS sw_c_rows FROM sw_c;
SELECT dynview.verify('sw_b');
-- ... nor from a plain query, also in the same statement as a refresh
SELECT public.sw_sneak(7);
SELECT (dynview.refresh('sw_a')).state, public.sw_sneak(8);
SELECT dynview.verify('sw_a'), dynview.verify('sw_b');
SELECT count(*) AS sneaked FROM sw_b WHERE id > 500;
SELECT dynview.drop_dynamic_table('sw_c');

-- TRUNCATE: never, also not through a foreign key with CASCADE or through inheritance
CREATE TABLE sw_parent (id int PRIMARY KEY);
INSERT INTO sw_parent SELECT g FROM generate_series(1, 10) g;
SELECT dynview.create_dynamic_table('sw_fk', 'SELECT id FROM sw_src', schedule => 'manual');
ALTER TABLE sw_fk ADD FOREIGN KEY (id) REFERENCES sw_parent (id);
TRUNCATE sw_parent CASCADE;
SELECT count(*) AS sw_fk_rows FROM sw_fk;
SELECT count(*) AS sw_parent_rows FROM sw_parent;
SELECT refresh_mode, state FROM dynview.refresh('sw_fk');
SELECT dynview.verify('sw_fk');
-- a table reached by CASCADE through another one
CREATE TABLE sw_mid (id int PRIMARY KEY REFERENCES sw_parent (id));
INSERT INTO sw_mid VALUES (1);
ALTER TABLE sw_fk DROP CONSTRAINT sw_fk_id_fkey;
ALTER TABLE sw_fk ADD FOREIGN KEY (id) REFERENCES sw_mid (id) NOT VALID;
TRUNCATE sw_parent CASCADE;
SELECT count(*) AS sw_mid_rows FROM sw_mid;
SELECT count(*) AS sw_fk_rows FROM sw_fk;
ALTER TABLE sw_fk DROP CONSTRAINT sw_fk_id_fkey;
-- the same TRUNCATE without the dynamic table's foreign key is fine
TRUNCATE sw_parent CASCADE;
SELECT count(*) AS sw_mid_rows FROM sw_mid;
-- a dynamic table cannot join an inheritance tree or a partitioned table
CREATE TABLE sw_inh_parent (id int);
ALTER TABLE sw_fk INHERIT sw_inh_parent;
CREATE TABLE sw_inh_child () INHERITS (sw_fk);
CREATE TABLE sw_part (id int) PARTITION BY RANGE (id);
ALTER TABLE sw_part ATTACH PARTITION sw_fk FOR VALUES FROM (0) TO (100);
SELECT dynview.verify('sw_fk');

-- rules on a dynamic table: refused (a refresh's INSERT would run the rule's statements)
CREATE RULE sw_also AS ON INSERT TO sw_a DO ALSO INSERT INTO public.sw_audit VALUES (NEW.id);
CREATE RULE sw_nothing AS ON DELETE TO sw_a DO INSTEAD NOTHING;

-- a change behind dynview: COPY FROM is allowed (pg_restore), and makes the next refresh FULL
SELECT refresh_mode FROM dynview.refresh('sw_b');
SELECT dynview.verify('sw_b');
COPY sw_b FROM stdin;
77	77
\.
SELECT next_refresh_full FROM dynview.dynamic_table_catalog WHERE relid = 'sw_b'::regclass;
SELECT refresh_mode, mode_reason_code, rows_deleted FROM dynview.refresh('sw_b');
SELECT dynview.verify('sw_b');
SELECT * FROM sw_b ORDER BY id;
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('sw_b');
SELECT dynview.verify('sw_b');
-- a table that a subscription writes (its apply worker passes no hook of dynview's) is FULL with
-- the same reason at every refresh; this subscription, to the table's own database, never runs
CREATE PUBLICATION sw_pub FOR TABLE sw_b WITH (publish = 'insert');
-- (the generated statement names this cluster's socket: not echoed)
\set ECHO none
SELECT format('CREATE SUBSCRIPTION sw_sub CONNECTION %L PUBLICATION sw_pub '
              'WITH (connect = true, enabled = false, create_slot = false, slot_name = NONE, copy_data = false)',
              format('host=%s port=%s dbname=%s', split_part(current_setting('unix_socket_directories'), ',', 1),
                     current_setting('port'), current_database())) \gexec
\set ECHO all
SELECT count(*) AS subscribed FROM pg_subscription_rel WHERE srrelid = 'sw_b'::regclass;
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('sw_b');
SELECT dynview.verify('sw_b');
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('sw_b');
SELECT dynview.verify('sw_b');
DROP SUBSCRIPTION sw_sub;
DROP PUBLICATION sw_pub;
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('sw_b');
SELECT dynview.verify('sw_b');

-- per-role limit on tracked sources: a role cannot take every dynview.max_sources slot
CREATE ROLE sw_role;
GRANT CREATE ON SCHEMA public TO sw_role;
SET dynview.max_sources_per_role = 2;
SET ROLE sw_role;
SET dynview.max_sources_per_role = 100;
CREATE TABLE sw_r1 (id int PRIMARY KEY);
CREATE TABLE sw_r2 (id int PRIMARY KEY);
CREATE TABLE sw_r3 (id int PRIMARY KEY);
INSERT INTO sw_r1 VALUES (1);
INSERT INTO sw_r2 VALUES (2);
INSERT INTO sw_r3 VALUES (3);
SELECT dynview.create_dynamic_table('sw_r12', 'SELECT id FROM sw_r1 UNION ALL SELECT id FROM sw_r2', schedule => 'manual');
SELECT dynview.verify('sw_r12');
SELECT dynview.create_dynamic_table('sw_r3dt', 'SELECT id FROM sw_r3', schedule => 'manual');
-- replacing a definition counts the same way, and keeps the old one
SELECT dynview.create_or_replace_dynamic_table('sw_r12',
  'SELECT id FROM sw_r1 UNION ALL SELECT id FROM sw_r2 UNION ALL SELECT id FROM sw_r3', schedule => 'manual');
SELECT query FROM dynview.dynamic_tables WHERE name = 'sw_r12'::regclass;
RESET ROLE;
-- nothing changed: no table, no tracking, no buffer, replica identity as it was
SELECT to_regclass('sw_r3dt') AS sw_r3dt,
       (SELECT count(*) FROM dynview.source_tracking WHERE source_relid = 'sw_r3'::regclass) AS tracked,
       to_regclass('dynview_buffer.changes_' || 'sw_r3'::regclass::oid) AS buffer,
       (SELECT relreplident FROM pg_class WHERE oid = 'sw_r3'::regclass) AS replica_identity;
-- sources already tracked (by its own tables) take no new slot, and superusers are exempt
SET ROLE sw_role;
SELECT dynview.create_dynamic_table('sw_r1dt', 'SELECT count(*) AS n FROM sw_r1', schedule => 'manual');
SELECT dynview.verify('sw_r1dt');
RESET ROLE;
SELECT dynview.create_dynamic_table('sw_r3su', 'SELECT id FROM sw_r3', schedule => 'manual');
SELECT dynview.verify('sw_r3su');
SELECT dynview.drop_dynamic_table('sw_r3su');
RESET dynview.max_sources_per_role;

-- change_retention for a 'manual' table never refreshed: once its data is older than
-- dynview.change_retention while its sources' buffers hold changes it has not consumed, it is
-- marked for a FULL refresh and the buffer is pruned.  The setting is PGC_SIGHUP (the decoder
-- worker reads it; ALTER SYSTEM would shorten it for every database of the cluster, other
-- databases' tables included), so the table's data is made older instead: its catalog row's
-- data_timestamp, which the decoder compares with now() minus the retention, set back by the
-- retention and an hour.
\getenv abs_srcdir PG_ABS_SRCDIR
\set poll_until :abs_srcdir '/sql/include/poll_until.sql'
\i :poll_until
CREATE TABLE sw_ret_src (id int PRIMARY KEY, v int);
INSERT INTO sw_ret_src VALUES (1, 1);
SELECT dynview.create_dynamic_table('sw_ret', 'SELECT id, v FROM sw_ret_src', schedule => 'manual');
SELECT dynview.verify('sw_ret');
INSERT INTO sw_ret_src SELECT g, g FROM generate_series(2, 100) g;
SELECT dynview.wait_for_capture();
-- the 99 new rows, and the first row when the decoder read it after tracking began and has not
-- pruned it yet (its prune runs every second: whether it ran yet depends on timing)
SELECT buffered_changes BETWEEN 99 AND 100 AS buffered FROM dynview.cdc_status WHERE source = 'sw_ret_src'::regclass;
UPDATE dynview.dynamic_table_catalog
   SET data_timestamp = data_timestamp - current_setting('dynview.change_retention')::interval - interval '1 hour'
 WHERE relid = 'sw_ret'::regclass;
SELECT dv_poll_until($$SELECT next_refresh_full = 'CHANGE_RETENTION_EXCEEDED'
                 FROM dynview.dynamic_table_catalog WHERE relid = 'sw_ret'::regclass$$) AS marked;
SELECT dv_poll_until($$SELECT buffered_changes = 0 FROM dynview.cdc_status
                 WHERE source = 'sw_ret_src'::regclass$$) AS pruned;
SELECT refresh_mode, mode_reason_code, rows_inserted FROM dynview.refresh('sw_ret');
SELECT dynview.verify('sw_ret');

-- cleanup
SELECT dynview.drop_dynamic_table('sw_ret');
SELECT dynview.drop_dynamic_table('sw_r12');
SELECT dynview.drop_dynamic_table('sw_r1dt');
SELECT dynview.drop_dynamic_table('sw_fk');
SELECT dynview.drop_dynamic_table('sw_b');
SELECT dynview.drop_dynamic_table('sw_a');
SELECT dynview.drop_dynamic_table('sw_d');
DROP TABLE sw_src, sw_src2, sw_parent, sw_mid, sw_audit, sw_inh_parent, sw_part, sw_ret_src, sw_r1, sw_r2, sw_r3;
DROP FUNCTION sw_write_b(), sw_write_a(), sw_feed(), sw_refresh_b(), sw_audit(), sw_zero(), sw_sneak(int), dv_poll_until(text);
REVOKE CREATE ON SCHEMA public FROM sw_role;
DROP ROLE sw_role;
