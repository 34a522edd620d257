-- What the thirteenth session's new user ran into: needless FULL refreshes and lost error text
-- (no wrong row).  Every refresh checked with dynview.verify() and the rows compared with the
-- query's by text and by = (dv_refresh_round).
SET client_min_messages = warning;
\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round
CREATE TABLE nu13_t (id int PRIMARY KEY, g int, v int);
INSERT INTO nu13_t SELECT i, i % 3, i FROM generate_series(1, 12) i;
CREATE TABLE nu13_defs (name text, query text);
INSERT INTO nu13_defs VALUES
  ('nu13_tg', 'SELECT g, sum(v) AS s FROM nu13_t GROUP BY g'),
  ('nu13_tg2', 'SELECT s FROM nu13_tg'),
  ('nu13_tg3', 'SELECT sum(s) AS total FROM nu13_tg2');
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual') FROM nu13_defs ORDER BY name;
-- a refreshing round with one table of defs (name given)
CREATE FUNCTION nu13_round(t text) RETURNS TABLE (name text, refresh_mode text, verified boolean, same_text boolean, same_rows boolean)
LANGUAGE plpgsql AS $$
BEGIN
  CREATE TEMP TABLE IF NOT EXISTS nu13_one (name text, query text);
  DELETE FROM nu13_one;
  INSERT INTO nu13_one SELECT d.name, d.query FROM nu13_defs d WHERE d.name = t;
  RETURN QUERY SELECT * FROM dv_refresh_round('nu13_one');
END $$;

-- D4: a table refreshed twice in one transaction, nothing changed in between: the second
-- refresh is NO_DATA, not FULL REFRESHED_IN_TRANSACTION (its upstream nu13_tg wrote rows to its
-- buffer in the first, which the table then consumed)
INSERT INTO nu13_t VALUES (13, 1, 13);
BEGIN;
SELECT * FROM nu13_round('nu13_tg2');
SELECT * FROM nu13_round('nu13_tg3');
SELECT * FROM nu13_round('nu13_tg2');
COMMIT;
-- (nu13_tg2 refreshed three times: by hand, as nu13_tg3's upstream, by hand)
SELECT refresh_trigger, refresh_mode, mode_reason_code FROM dynview.refresh_history('nu13_tg2', 3) ORDER BY refresh_id;
-- a change between the two refreshes still counts (the upstream applied it in between)
INSERT INTO nu13_t VALUES (14, 2, 14);
BEGIN;
SELECT * FROM nu13_round('nu13_tg2');
INSERT INTO nu13_t VALUES (15, 0, 15);
SELECT * FROM nu13_round('nu13_tg');
SELECT * FROM nu13_round('nu13_tg2');
SELECT * FROM nu13_round('nu13_tg3');
COMMIT;
-- a refresh rolled back to a savepoint: the upstream's rows written after the earlier refresh
-- are still there; the table does not take them as consumed
INSERT INTO nu13_t VALUES (16, 1, 16);
BEGIN;
SELECT * FROM nu13_round('nu13_tg2');
UPDATE nu13_t SET v = v + 100 WHERE id = 16;
SELECT * FROM nu13_round('nu13_tg');
SAVEPOINT s;
SELECT * FROM nu13_round('nu13_tg2');
ROLLBACK TO SAVEPOINT s;
SELECT * FROM nu13_round('nu13_tg2');
COMMIT;
SELECT * FROM dv_refresh_round('nu13_defs');

-- D2: an upstream's column type changed: one FULL refresh (SOURCE_ALTERED), then the table is
-- refreshed as usual, not FULL again with DEFINITION_CHANGED
ALTER TABLE nu13_t ALTER v TYPE bigint;
SELECT * FROM nu13_round('nu13_tg2');
SELECT refresh_trigger, refresh_mode, mode_reason_code FROM dynview.refresh_history('nu13_tg', 1);
SELECT * FROM nu13_round('nu13_tg2');
INSERT INTO nu13_t VALUES (17, 2, 17);
SELECT * FROM nu13_round('nu13_tg2');
SELECT * FROM nu13_round('nu13_tg3');
SELECT * FROM nu13_round('nu13_tg3');

-- D1: a column added to a source
ALTER TABLE nu13_t ADD COLUMN note text;
INSERT INTO nu13_t VALUES (18, 0, 18, 'x');
SELECT * FROM nu13_round('nu13_tg');
SELECT mode_reason FROM dynview.refresh_history('nu13_tg', 1);
SELECT * FROM nu13_round('nu13_tg');
ALTER TABLE nu13_t ADD COLUMN note2 text DEFAULT 'd';
INSERT INTO nu13_t VALUES (19, 1, 19);
SELECT * FROM dv_refresh_round('nu13_defs');

-- D3: row-level security enabled or disabled on a source, with a policy only for another role:
-- the owner (a superuser, who bypasses it) reads the same rows, so no FULL refresh
CREATE ROLE nu13_nobody;
ALTER TABLE nu13_t ENABLE ROW LEVEL SECURITY;
CREATE POLICY nu13_p ON nu13_t FOR SELECT TO nu13_nobody USING (g = 1);
INSERT INTO nu13_t VALUES (20, 1, 20);
SELECT * FROM dv_refresh_round('nu13_defs');
DROP POLICY nu13_p ON nu13_t;
INSERT INTO nu13_t VALUES (21, 2, 21);
SELECT * FROM dv_refresh_round('nu13_defs');
ALTER TABLE nu13_t DISABLE ROW LEVEL SECURITY;
INSERT INTO nu13_t VALUES (22, 0, 22);
SELECT * FROM dv_refresh_round('nu13_defs');
-- an ordinary owner with row-level security on and no policy for it reads no row: FULL, exact
CREATE ROLE nu13_owner;
GRANT SELECT ON nu13_t TO nu13_owner;
GRANT CREATE ON SCHEMA public TO nu13_owner;
SET ROLE nu13_owner;
SELECT dynview.create_dynamic_table('nu13_own', 'SELECT g, count(*) AS n FROM nu13_t GROUP BY g', schedule => 'manual');
CREATE TABLE nu13_own_defs (name text, query text);
INSERT INTO nu13_own_defs VALUES ('nu13_own', 'SELECT g, count(*) AS n FROM nu13_t GROUP BY g');
RESET ROLE;
ALTER TABLE nu13_t ENABLE ROW LEVEL SECURITY;
INSERT INTO nu13_t VALUES (23, 1, 23);
SET ROLE nu13_owner;
SELECT * FROM dv_refresh_round('nu13_own_defs');
SELECT count(*) FROM nu13_own;
RESET ROLE;
ALTER TABLE nu13_t DISABLE ROW LEVEL SECURITY;
SET ROLE nu13_owner;
SELECT * FROM dv_refresh_round('nu13_own_defs');
SELECT dynview.drop_dynamic_table('nu13_own');
DROP TABLE nu13_own_defs;
RESET ROLE;
REVOKE CREATE ON SCHEMA public FROM nu13_owner;
REVOKE SELECT ON nu13_t FROM nu13_owner;
DROP ROLE nu13_owner, nu13_nobody;

-- D5: a scheduled refresh that fails keeps the error's detail (the cause) and hint in its
-- FAILED history row: a view reads a dynamic table whose column type must follow its source's
CREATE TABLE nu13_reading (reading_id int PRIMARY KEY, value numeric(8,2));
INSERT INTO nu13_reading VALUES (1, 1.5), (2, 2.25);
SELECT dynview.create_dynamic_table('nu13_l1', 'SELECT reading_id, value FROM nu13_reading', schedule => 'manual');
CREATE VIEW nu13_v_l1 AS SELECT reading_id, value FROM nu13_l1;
ALTER TABLE nu13_reading ALTER value TYPE numeric(12,3);
\set poll_until :abs_srcdir '/sql/include/poll_until.sql'
\i :poll_until
SELECT dynview.alter_dynamic_table('nu13_l1', schedule => '1 second');
SELECT dv_poll_until($$SELECT EXISTS (SELECT 1 FROM dynview.refresh_history('nu13_l1') WHERE state = 'FAILED')$$) AS failed;
SELECT dynview.alter_dynamic_table('nu13_l1', schedule => 'manual');
SELECT DISTINCT error_message FROM dynview.refresh_history('nu13_l1') WHERE state = 'FAILED';
-- the view dropped, the next refresh takes the new type; the table kept its data meanwhile
SELECT * FROM nu13_l1 ORDER BY reading_id;
DROP VIEW nu13_v_l1;
CREATE TEMP TABLE nu13_l1_defs AS SELECT 'nu13_l1'::text AS name, 'SELECT reading_id, value FROM nu13_reading'::text AS query;
SELECT * FROM dv_refresh_round('nu13_l1_defs');
SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'nu13_l1'::regclass AND attname = 'value';
SELECT dynview.drop_dynamic_table('nu13_l1');
DROP TABLE nu13_reading, nu13_l1_defs;
DROP FUNCTION dv_poll_until(text);
SELECT dynview.drop_dynamic_table(name) FROM nu13_defs ORDER BY name DESC;
DROP TABLE nu13_t, nu13_defs;
DROP FUNCTION nu13_round(text);

-- minor: refresh_history() of an unknown name says so as the other functions do (42P01, a
-- hint, not its internal SQL); verify() after a source was dropped and created again says the
-- source is not linked yet and to refresh first; a failed create's REPLICA IDENTITY notice says
-- the setting is rolled back with it
SELECT * FROM dynview.refresh_history('nu13_nope');
CREATE TABLE nu13_src (id int PRIMARY KEY, v int);
SELECT dynview.create_dynamic_table('nu13_dt', 'SELECT id, v FROM nu13_src', schedule => 'manual');
DROP TABLE nu13_src;
CREATE TABLE nu13_src (id int PRIMARY KEY, v int);
INSERT INTO nu13_src VALUES (1, 10);
SELECT dynview.verify('nu13_dt');
CREATE TEMP TABLE nu13_dt_defs AS SELECT 'nu13_dt'::text AS name, 'SELECT id, v FROM nu13_src'::text AS query;
SELECT * FROM dv_refresh_round('nu13_dt_defs');
SELECT dynview.drop_dynamic_table('nu13_dt');
INSERT INTO nu13_src VALUES (2, 0);
SET client_min_messages = notice;
SELECT dynview.create_dynamic_table('nu13_bad', 'SELECT id, 1 / v AS r FROM nu13_src', schedule => 'manual');
SET client_min_messages = warning;
SELECT relreplident FROM pg_class WHERE oid = 'nu13_src'::regclass;
DROP TABLE nu13_src, nu13_dt_defs;
DROP FUNCTION dv_refresh_round(regclass);
