-- dynview's own writes are not decoded (issue 14): a refresh writes under a replication origin
-- that the decoder filters, but only where no user code runs inside its statements, and never
-- for a commit.  What users write (in a trigger on a dynamic table, in a volatile function a
-- query calls, or in the transaction that runs a refresh) is captured as always.
SET client_min_messages = warning;
CREATE TABLE ow_src (id int PRIMARY KEY, v int);
INSERT INTO ow_src SELECT i, i FROM generate_series(1, 10) i;

-- 1. an AFTER trigger on a dynamic table writes a table another dynamic table reads
CREATE TABLE ow_audit (id int PRIMARY KEY, v int);
SELECT dynview.create_dynamic_table('ow_a', 'SELECT id, v FROM ow_src', schedule => 'manual');
SELECT dynview.create_dynamic_table('ow_b', 'SELECT count(*) AS n, sum(v) AS s FROM ow_audit', schedule => 'manual');
CREATE FUNCTION ow_audit_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN INSERT INTO public.ow_audit VALUES (NEW.id, NEW.v) ON CONFLICT (id) DO UPDATE SET v = EXCLUDED.v; RETURN NULL; END $$;
CREATE TRIGGER ow_a_audit AFTER INSERT ON ow_a FOR EACH ROW EXECUTE FUNCTION ow_audit_row();
INSERT INTO ow_src SELECT i, i FROM generate_series(11, 15) i;
SELECT refresh_mode, rows_inserted FROM dynview.refresh('ow_a');
SELECT dynview.wait_for_capture();
SELECT refresh_mode FROM dynview.refresh('ow_b');
SELECT n, s FROM ow_b;
SELECT dynview.verify('ow_a'), dynview.verify('ow_b');

-- 2. a volatile function of a query writes a table another dynamic table reads
CREATE TABLE ow_log (id int PRIMARY KEY);
CREATE FUNCTION ow_logged(i int) RETURNS int LANGUAGE plpgsql VOLATILE AS $$
BEGIN INSERT INTO public.ow_log VALUES (i) ON CONFLICT DO NOTHING; RETURN i; END $$;
SELECT dynview.create_dynamic_table('ow_c', 'SELECT ow_logged(id) AS id FROM ow_src', schedule => 'manual');
SELECT dynview.create_dynamic_table('ow_d', 'SELECT count(*) AS n FROM ow_log', schedule => 'manual');
SELECT n FROM ow_d;
INSERT INTO ow_src VALUES (16, 16);
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('ow_c');
SELECT dynview.wait_for_capture();
SELECT refresh_mode FROM dynview.refresh('ow_d');
SELECT n FROM ow_d;
SELECT dynview.verify('ow_c'), dynview.verify('ow_d');

-- 3. a refresh in the transaction that wrote its source: the refresh's writes are dynview's,
-- the transaction's own write of the source is captured for every other table
SELECT dynview.create_dynamic_table('ow_e', 'SELECT sum(v) AS s FROM ow_src', schedule => 'manual');
SELECT dynview.create_dynamic_table('ow_f', 'SELECT v FROM ow_src WHERE v > 10', schedule => 'manual');
BEGIN;
INSERT INTO ow_src VALUES (17, 17);
UPDATE ow_src SET v = 100 WHERE id = 1;
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('ow_e');
COMMIT;
SELECT dynview.wait_for_capture();
SELECT refresh_mode, rows_deleted, rows_inserted FROM dynview.refresh('ow_f');
SELECT refresh_mode FROM dynview.refresh('ow_e');
SELECT dynview.verify('ow_e'), dynview.verify('ow_f');
SELECT count(*) FROM ow_f;

-- 4. writes after a refresh that failed, in the same transaction, are captured (the mark did
-- not stay on)
CREATE TABLE ow_other (id int PRIMARY KEY);
SELECT dynview.create_dynamic_table('ow_g', 'SELECT count(*) AS n FROM ow_other', schedule => 'manual');
SELECT dynview.create_dynamic_table('ow_h', 'SELECT 1 / (v - 18) AS x FROM ow_src', schedule => 'manual');
INSERT INTO ow_src VALUES (18, 18);
BEGIN;
SAVEPOINT before_refresh;
SELECT dynview.refresh('ow_h');
ROLLBACK TO SAVEPOINT before_refresh;
INSERT INTO ow_other SELECT generate_series(1, 3);
COMMIT;
SELECT dynview.wait_for_capture();
SELECT refresh_mode FROM dynview.refresh('ow_g');
SELECT n FROM ow_g;
SELECT dynview.verify('ow_g');

SELECT dynview.drop_dynamic_table(t) FROM unnest(ARRAY['ow_a', 'ow_b', 'ow_c', 'ow_d', 'ow_e', 'ow_f', 'ow_g', 'ow_h']) t;
DROP TABLE ow_src, ow_audit, ow_log, ow_other;
DROP FUNCTION ow_audit_row(), ow_logged(int);
