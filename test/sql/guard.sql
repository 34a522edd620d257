-- Direct writes to a dynamic table fail; readers are never blocked by a refresh.
SET client_min_messages = warning;
CREATE TABLE g_src (id int PRIMARY KEY, v int);
INSERT INTO g_src SELECT g, g * 10 FROM generate_series(1, 5) g;
SELECT dynview.create_dynamic_table('g_dt', 'SELECT id, v FROM g_src WHERE v > 10', schedule => 'manual');
INSERT INTO g_dt VALUES (100, 100);
UPDATE g_dt SET v = 0;
DELETE FROM g_dt;
TRUNCATE g_dt;
MERGE INTO g_dt USING g_src ON g_dt.id = g_src.id WHEN MATCHED THEN DELETE;
WITH d AS (DELETE FROM g_dt RETURNING *) SELECT count(*) FROM d;
SELECT count(*) FROM g_dt;
-- TRUNCATE of a dynamic table that holds no row changes nothing and is let through (a parallel
-- pg_restore truncates each table it has just made before its COPY); its refreshes go on.  A row
-- a refresh deleted counts until VACUUM removes it: older snapshots still see it.
SELECT dynview.create_dynamic_table('g_empty', 'SELECT id, v FROM g_src WHERE v > 100', schedule => 'manual');
TRUNCATE g_empty;
INSERT INTO g_src VALUES (6, 600);
SELECT rows_inserted, rows_deleted FROM dynview.refresh('g_empty');
SELECT dynview.verify('g_empty');
TRUNCATE g_empty;
SELECT count(*) FROM g_empty;
DELETE FROM g_src WHERE id = 6;
SELECT rows_inserted, rows_deleted FROM dynview.refresh('g_empty');
TRUNCATE g_empty;
SELECT dynview.verify('g_empty');
SELECT dynview.drop_dynamic_table('g_empty');
-- a BEFORE TRUNCATE trigger may not refresh a table the TRUNCATE empties: the refresh's rows would
-- go with it (a wrong result); the whole TRUNCATE fails and changes nothing
SELECT dynview.create_dynamic_table('g_trig', 'SELECT id, v FROM g_src WHERE v > 1000', schedule => 'manual');
CREATE FUNCTION g_trig_refresh() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE g_src SET v = v + 1000 WHERE id = 1;
  PERFORM dynview.refresh('g_trig');
  RETURN NULL;
END $$;
CREATE TRIGGER g_trig_before BEFORE TRUNCATE ON g_trig FOR EACH STATEMENT EXECUTE FUNCTION g_trig_refresh();
TRUNCATE g_trig;
SELECT count(*) FROM g_trig;
SELECT v FROM g_src WHERE id = 1;
SELECT dynview.verify('g_trig');
DROP TRIGGER g_trig_before ON g_trig;
DROP FUNCTION g_trig_refresh();
SELECT dynview.drop_dynamic_table('g_trig');
-- reading, indexing and granting are fine
CREATE INDEX ON g_dt (v);
GRANT SELECT ON g_dt TO PUBLIC;
-- a refresh inside a transaction: the old contents stay visible to others until commit,
-- and the refresh takes no lock that conflicts with readers
BEGIN;
UPDATE g_src SET v = v + 1;
SELECT rows_inserted, rows_deleted FROM dynview.refresh('g_dt');
SELECT locktype, mode FROM pg_locks
 WHERE pid = pg_backend_pid()
   AND (relation = 'g_dt'::regclass
        OR (locktype = 'object' AND classid = 'pg_class'::regclass AND objid = 'g_dt'::regclass))
 ORDER BY 1, 2;
SELECT mode FROM pg_locks WHERE relation = 'g_src'::regclass AND pid = pg_backend_pid() ORDER BY 1;
COMMIT;
SELECT dynview.verify('g_dt');
SELECT * FROM g_dt ORDER BY id;
SELECT dynview.drop_dynamic_table('g_dt');
-- after drop the table is gone and so is its bookkeeping
SELECT to_regclass('g_dt'), (SELECT count(*) FROM dynview.dynamic_tables), (SELECT count(*) FROM dynview.refresh_history);
-- a plain DROP TABLE of a dynamic table also cleans the bookkeeping
SELECT dynview.create_dynamic_table('g_dt2', 'SELECT id FROM g_src', schedule => 'manual');
DROP TABLE g_dt2;
SELECT count(*) FROM dynview.dynamic_tables;
DROP TABLE g_src;
