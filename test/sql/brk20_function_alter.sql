-- dynview's functions keep their attributes and owner as well as their code (brk19_member_functions).
-- A superuser's ALTER FUNCTION dynview.create_dynamic_table(...) SECURITY DEFINER let an ordinary
-- role create a dynamic table owned by the function's owner (the superuser who installed dynview):
-- the query is run as the table's owner, so the role's own function in it ran as that superuser
-- (it made the role a superuser).  An owner changed to an ordinary role (OWNER TO) would let that
-- role alter the function so; a SET clause changes the settings dynview's code runs under.
-- Outside the extension's scripts, ALTER FUNCTION / PROCEDURE / ROUTINE / AGGREGATE of one of dynview's
-- functions, its OWNER TO and SET SCHEMA out of dynview are refused (42809, with a hint), to
-- superusers too; COMMENT, SECURITY LABEL and GRANT / REVOKE stay allowed.
SET client_min_messages = warning;

CREATE ROLE bfa_user LOGIN;
GRANT USAGE ON SCHEMA dynview TO bfa_user;
CREATE SCHEMA bfa AUTHORIZATION bfa_user;

-- each refused, whatever it changes
ALTER FUNCTION dynview.create_dynamic_table(text, text, text, text, boolean, text[], text, interval) SECURITY DEFINER;
ALTER ROUTINE dynview.create_dynamic_table(text, text, text, text, boolean, text[], text, interval) SECURITY DEFINER;
ALTER FUNCTION dynview._window_contains(xid8, pg_snapshot, xid8[], pg_snapshot, xid8[]) SET search_path = bfa;
ALTER FUNCTION dynview._window_contains(xid8, pg_snapshot, xid8[], pg_snapshot, xid8[]) VOLATILE;
ALTER FUNCTION dynview._catalog_data_origin() SET session_replication_role = replica;
ALTER FUNCTION dynview._catalog_data_origin() OWNER TO bfa_user;
ALTER ROUTINE dynview._catalog_data_origin() OWNER TO bfa_user;
ALTER FUNCTION dynview._catalog_data_origin() SET SCHEMA bfa;
\set VERBOSITY sqlstate
ALTER FUNCTION dynview._window_contains(xid8, pg_snapshot, xid8[], pg_snapshot, xid8[]) COST 1000;
\set VERBOSITY default
-- dynview's aggregate alike (a tester's replaced _nonnull_count counted every row: the state
-- fills' non-null counts went wrong, sums and averages with them): replaced, created in its
-- schema, renamed, given away, moved out; and a user's aggregate moved into the schema
CREATE FUNCTION bfa.count_all(bigint, numeric) RETURNS bigint LANGUAGE sql IMMUTABLE AS 'SELECT $1 + 1';
CREATE OR REPLACE AGGREGATE dynview._nonnull_count(numeric) (SFUNC = bfa.count_all, STYPE = int8, INITCOND = '0');
CREATE AGGREGATE dynview.bfa_count(numeric) (SFUNC = bfa.count_all, STYPE = int8, INITCOND = '0');
ALTER AGGREGATE dynview._nonnull_count(numeric) RENAME TO _nonnull_count_old;
ALTER AGGREGATE dynview._nonnull_count(numeric) OWNER TO bfa_user;
ALTER AGGREGATE dynview._nonnull_count(numeric) SET SCHEMA bfa;
ALTER ROUTINE dynview._nonnull_count(numeric) SET SCHEMA bfa;
ALTER ROUTINE dynview._nonnull_count(bigint) RENAME TO _nonnull_count_old;
ALTER ROUTINE dynview._nonnull_count(bigint) COST 1;
CREATE AGGREGATE bfa.bfa_count(numeric) (SFUNC = bfa.count_all, STYPE = int8, INITCOND = '0');
ALTER AGGREGATE bfa.bfa_count(numeric) SET SCHEMA dynview;
-- (a user's aggregate elsewhere is the DBA's)
ALTER AGGREGATE bfa.bfa_count(numeric) RENAME TO bfa_count2;
DROP AGGREGATE bfa.bfa_count2(numeric);
DROP FUNCTION bfa.count_all(bigint, numeric);
-- (nothing changed)
SELECT p.proname, p.prosecdef, p.proconfig, p.provolatile, p.procost, r.rolsuper AS owner_is_superuser, n.nspname
  FROM pg_proc p JOIN pg_roles r ON r.oid = p.proowner JOIN pg_namespace n ON n.oid = p.pronamespace
 WHERE p.oid IN ('dynview._catalog_data_origin'::regproc, 'dynview._window_contains'::regproc,
                 'dynview._nonnull_count(numeric)'::regprocedure,
                 'dynview.create_dynamic_table(text, text, text, text, boolean, text[], text, interval)'::regprocedure)
 ORDER BY 1;

-- what the SECURITY DEFINER would have let the role do: its function in the query is run as the
-- table's owner, which stays the role itself
SET ROLE bfa_user;
CREATE TABLE bfa.src (id int PRIMARY KEY, v int);
INSERT INTO bfa.src VALUES (1, 1), (2, 2);
CREATE FUNCTION bfa.who(int) RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  IF (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
    RAISE EXCEPTION 'run as a superuser';
  END IF;
  RETURN $1;
END $$;
SELECT dynview.create_dynamic_table('bfa.dt', 'SELECT id, bfa.who(v) AS v FROM bfa.src', schedule => 'manual');
RESET ROLE;
SELECT c.relname, pg_get_userbyid(c.relowner) AS owner FROM pg_class c WHERE c.oid = 'bfa.dt'::regclass;
SELECT rolsuper FROM pg_roles WHERE rolname = 'bfa_user';
INSERT INTO bfa.src VALUES (3, 3);
SELECT dynview.wait_for_capture();
SELECT refresh_mode FROM dynview.refresh('bfa.dt');
SELECT dynview.verify('bfa.dt');
SELECT * FROM bfa.dt ORDER BY id;

-- harmless ones stay allowed (and are undone: the extension's own comment put back)
CREATE TABLE bfa_comment AS SELECT obj_description('dynview._window_contains'::regproc, 'pg_proc') AS c;
COMMENT ON FUNCTION dynview._window_contains(xid8, pg_snapshot, xid8[], pg_snapshot, xid8[]) IS 'bfa';
SELECT obj_description('dynview._window_contains'::regproc, 'pg_proc');
DO $$ BEGIN
  EXECUTE format('COMMENT ON FUNCTION dynview._window_contains(xid8, pg_snapshot, xid8[], pg_snapshot, xid8[]) IS %L',
                 (SELECT c FROM bfa_comment));
END $$;
SELECT obj_description('dynview._window_contains'::regproc, 'pg_proc') = c AS comment_restored FROM bfa_comment;
DROP TABLE bfa_comment;
GRANT EXECUTE ON FUNCTION dynview.verify(text) TO bfa_user;
REVOKE EXECUTE ON FUNCTION dynview.verify(text) FROM bfa_user;

SELECT dynview.drop_dynamic_table('bfa.dt');
DROP SCHEMA bfa CASCADE;
REVOKE USAGE ON SCHEMA dynview FROM bfa_user;
DROP ROLE bfa_user;
