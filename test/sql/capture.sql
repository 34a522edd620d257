-- Change capture: what the decoder writes into a source's change buffer (design section 4).
SET client_min_messages = warning;
CREATE TABLE c_src (id int PRIMARY KEY, name text, qty int, doc text, unused text);
INSERT INTO c_src VALUES (1, 'one', 10, 'a'), (2, 'two', 20, 'b');
SELECT dynview.create_dynamic_table('c_dt', 'SELECT id, name, qty, md5(doc) AS doc_md5 FROM c_src', schedule => 'manual');
-- tracking set REPLICA IDENTITY FULL and created the buffer, typed as the source, with only
-- the columns that dynamic tables read (not "unused")
SELECT relreplident FROM pg_class WHERE oid = 'c_src'::regclass;
SELECT source_relid::regclass, buffer_relid::regclass::text = 'dynview_buffer.changes_' || 'c_src'::regclass::oid AS buffer_named,
       previous_replica_identity FROM dynview.source_tracking;
SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute
 WHERE attrelid = (SELECT buffer_relid FROM dynview.source_tracking) AND attnum > 0 ORDER BY attnum;
-- no trigger on the source, and the slot is of plugin dynview
SELECT count(*) AS triggers FROM pg_trigger WHERE tgrelid = 'c_src'::regclass;
SELECT plugin, slot_type, database = current_database() AS this_db FROM pg_replication_slots
 WHERE slot_name = 'dynview_' || (SELECT oid FROM pg_database WHERE datname = current_database());

-- the buffer rows committed after a mark, without what differs from run to run
CREATE FUNCTION c_changes(since pg_lsn)
RETURNS TABLE (txn int, seq int, weight smallint, id int, name text, qty int, doc_len int, doc_md5 text)
LANGUAGE plpgsql AS $$
BEGIN
  IF NOT dynview.wait_for_capture('60 seconds') THEN RAISE EXCEPTION 'capture did not catch up'; END IF;
  RETURN QUERY EXECUTE format(
    'SELECT dense_rank() OVER (ORDER BY dv_commit_lsn)::int, dv_seq, dv_weight, id, name, qty, length(doc), left(md5(doc), 8)
       FROM %s WHERE dv_commit_lsn > $1 ORDER BY dv_commit_lsn, dv_seq',
    (SELECT buffer_relid::regclass FROM dynview.source_tracking WHERE source_relid = 'c_src'::regclass))
  USING since;
END $$;

-- INSERT, UPDATE of a non-key column, UPDATE of the key, DELETE
SELECT pg_current_wal_lsn() AS mark \gset
INSERT INTO c_src VALUES (3, 'three', 30, 'c');
UPDATE c_src SET qty = 11 WHERE id = 1;
UPDATE c_src SET id = 20 WHERE id = 2;
DELETE FROM c_src WHERE id = 3;
SELECT * FROM c_changes(:'mark');

-- a rolled-back transaction and a rolled-back savepoint leave nothing
SELECT pg_current_wal_lsn() AS mark \gset
BEGIN;
INSERT INTO c_src VALUES (100, 'rolled back', 0, 'x');
ROLLBACK;
BEGIN;
INSERT INTO c_src VALUES (101, 'kept', 1, 'y');
SAVEPOINT s1;
INSERT INTO c_src VALUES (102, 'savepoint rolled back', 2, 'z');
UPDATE c_src SET qty = -1 WHERE id = 1;
ROLLBACK TO s1;
SAVEPOINT s2;
INSERT INTO c_src VALUES (103, 'savepoint kept', 3, 'w');
RELEASE s2;
COMMIT;
SELECT * FROM c_changes(:'mark');

-- a 1 MB TOASTed value, then an update of another column: the new image takes it from the old one
SELECT pg_current_wal_lsn() AS mark \gset
INSERT INTO c_src SELECT 200, 'big', 1, string_agg(md5(i::text), '') FROM generate_series(1, 32768) i;
UPDATE c_src SET qty = 2 WHERE id = 200;
SELECT * FROM c_changes(:'mark');
SELECT pg_relation_size(reltoastrelid) > 1000000 AS stored_out_of_line FROM pg_class WHERE oid = 'c_src'::regclass;

-- COPY is captured like INSERT
SELECT pg_current_wal_lsn() AS mark \gset
COPY c_src (id, name, qty, doc) FROM stdin;
300	copied	3	c1
301	copied too	4	\N
\.
SELECT * FROM c_changes(:'mark');

-- TRUNCATE writes a marker row (weight 0, no values)
SELECT pg_current_wal_lsn() AS mark \gset
TRUNCATE c_src;
SELECT * FROM c_changes(:'mark');

-- a second dynamic table that reads another column: the buffer gets that column too
SELECT dynview.create_dynamic_table('c_dt2', 'SELECT id, unused FROM c_src', schedule => 'manual');
SELECT attname FROM pg_attribute
 WHERE attrelid = (SELECT buffer_relid FROM dynview.source_tracking) AND attnum > 5 ORDER BY attnum;
SELECT pg_current_wal_lsn() AS mark \gset
INSERT INTO c_src VALUES (400, 'four hundred', 4, 'd', 'now read');
SELECT * FROM c_changes(:'mark');
CREATE FUNCTION c_unused(k int) RETURNS TABLE (weight smallint, unused text) LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE format('SELECT dv_weight, unused FROM %s WHERE id = $1',
    (SELECT buffer_relid::regclass FROM dynview.source_tracking)) USING k;
END $$;
SELECT * FROM c_unused(400);
SELECT dynview.drop_dynamic_table('c_dt2');

-- changes of tables that are not sources are not captured
CREATE TABLE c_other (id int PRIMARY KEY);
INSERT INTO c_other VALUES (1);
SELECT count(*) AS tracked FROM dynview.source_tracking;

-- cdc_status: one row for the source, one for the database
SELECT source, buffered_changes > 0 AS has_changes, buffer_bytes > 0 AS has_bytes FROM dynview.cdc_status WHERE source IS NOT NULL;
SELECT slot_name LIKE 'dynview_%' AS slot, confirmed_lsn IS NOT NULL AS confirmed, wal_retained_bytes >= 0 AS retained,
       decoded_lsn IS NOT NULL AS decoded FROM dynview.cdc_status WHERE source IS NULL;

-- the refresh is right after all that
SELECT state FROM dynview.refresh('c_dt');
SELECT dynview.verify('c_dt');

-- once its only consumer's data snapshot sees them, the decoder prunes the buffered rows
-- (it prunes every second: poll for at most 60 s, then look)
DO $$
BEGIN
  FOR i IN 1..600 LOOP
    EXIT WHEN (SELECT buffered_changes FROM dynview.cdc_status WHERE source = 'c_src'::regclass) = 0;
    PERFORM pg_sleep(0.1);
  END LOOP;
END $$;
SELECT source, buffered_changes FROM dynview.cdc_status WHERE source IS NOT NULL;


-- when no dynamic table reads the source any more, tracking stops and the replica identity is restored
SELECT dynview.drop_dynamic_table('c_dt');
SELECT count(*) AS tracked FROM dynview.source_tracking;
SELECT relreplident FROM pg_class WHERE oid = 'c_src'::regclass;
SELECT count(*) AS buffers FROM pg_class WHERE relnamespace = 'dynview_buffer'::regnamespace;
DROP TABLE c_src, c_other;
DROP FUNCTION c_changes(pg_lsn);
DROP FUNCTION c_unused(int);
