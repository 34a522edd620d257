-- A refresh marks its writes as dynview's own (replication
-- origin DoNotReplicateId, filtered by the output plugin: src/cdc/plugin.c) when it believes no
-- user code can run inside them (writes_are_own in src/refresh/refresh.c: no trigger, rule, CHECK
-- constraint or domain on the dynamic table, no volatile function in the query).  It does not look
-- at row-level security: with FORCE ROW LEVEL SECURITY, a policy's WITH CHECK expression runs for
-- every row the refresh writes, as the owner, and may call a volatile function that writes an
-- ordinary table.  That write carries the refresh's origin, is never decoded, and a dynamic table
-- reading that ordinary table misses the row for good (NO_DATA, then INCREMENTAL refreshes that
-- keep it missing; verify() false).  Before 3ff9a2d the two verify() below are false and audit_count
-- is empty.  The expected output is the CORRECT behaviour: the row written by the policy's
-- function reaches audit_count (verify() true, one row).
SET client_min_messages = warning;
CREATE ROLE brk_ow_owner;
GRANT USAGE ON SCHEMA dynview TO brk_ow_owner;
CREATE SCHEMA brk_ow AUTHORIZATION brk_ow_owner;
SET ROLE brk_ow_owner;
CREATE TABLE brk_ow.src (id int PRIMARY KEY, g int NOT NULL, v int NOT NULL);
INSERT INTO brk_ow.src SELECT i, i % 3, i FROM generate_series(1, 30) i;
-- an ordinary table, written by the policy's function below, read by a dynamic table
CREATE TABLE brk_ow.audit (id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY, g int NOT NULL, note text NOT NULL);
SELECT dynview.create_dynamic_table('brk_ow.audit_count',
  'SELECT g, note, count(*) AS n FROM brk_ow.audit GROUP BY g, note', schedule => 'manual');
SELECT dynview.create_dynamic_table('brk_ow.sums',
  'SELECT g, count(*) AS n, sum(v) AS s FROM brk_ow.src GROUP BY g', schedule => 'manual');
CREATE FUNCTION brk_ow.note_write(g int) RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  INSERT INTO brk_ow.audit (g, note) VALUES (g, 'written by the policy');
  RETURN true;
END $$;
ALTER TABLE brk_ow.sums ENABLE ROW LEVEL SECURITY;
ALTER TABLE brk_ow.sums FORCE ROW LEVEL SECURITY;
CREATE POLICY brk_ow_check ON brk_ow.sums USING (true) WITH CHECK (brk_ow.note_write(g));
-- a change of group 1: the refresh writes group 1's row, and the policy writes brk_ow.audit
INSERT INTO brk_ow.src VALUES (100, 1, 100);
SELECT refresh_mode FROM dynview.refresh('brk_ow.sums');
SELECT dynview.verify('brk_ow.sums');
SELECT g, note FROM brk_ow.audit ORDER BY id;
-- the policy's write is an ordinary committed write of brk_ow.audit
SELECT refresh_mode IN ('INCREMENTAL', 'FULL') AS refreshed FROM dynview.refresh('brk_ow.audit_count');
SELECT dynview.verify('brk_ow.audit_count');
SELECT g, note, n FROM brk_ow.audit_count ORDER BY g, note;
-- a later write of brk_ow.audit by hand: still exact
INSERT INTO brk_ow.audit (g, note) VALUES (2, 'written by hand');
SELECT refresh_mode IN ('INCREMENTAL', 'FULL') AS refreshed FROM dynview.refresh('brk_ow.audit_count');
SELECT dynview.verify('brk_ow.audit_count');
SELECT g, note, n FROM brk_ow.audit_count ORDER BY g, note;
-- cleanup
SELECT dynview.drop_dynamic_table('brk_ow.audit_count');
SELECT dynview.drop_dynamic_table('brk_ow.sums');
RESET ROLE;
DROP SCHEMA brk_ow CASCADE;
REVOKE USAGE ON SCHEMA dynview FROM brk_ow_owner;
DROP ROLE brk_ow_owner;
