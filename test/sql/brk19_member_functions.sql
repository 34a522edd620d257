-- dynview's own functions keep their code.  A superuser's CREATE OR REPLACE FUNCTION of
-- dynview._catalog_data_origin() (the catalog's BEFORE ROW trigger) with a body returning NULL made
-- every refresh's direct update of the catalog row a silent no-op: the data snapshot stayed where
-- it was while the table moved on, so the next refresh applied the same changes again (a table
-- without a key: 58 copies of a row for 36, verify() false, and still wrong after the function was
-- put back).  PostgreSQL keeps a replaced function in its extension, so membership tells nothing:
-- replacing any function of the extension is refused outside the extension's own scripts, and the
-- catalog's trigger counts as dynview's only while it runs dynview's C code (a trigger function
-- changed another way makes the refresh write the row by a statement, whose skipped row fails it).
SET client_min_messages = warning;

CREATE TABLE bmf_src (id int PRIMARY KEY, k int, v int);
INSERT INTO bmf_src SELECT i, i % 5, i FROM generate_series(1, 50) i;
-- no key: the rows are copies, a change applied twice leaves two
SELECT dynview.create_dynamic_table('bmf_copies', 'SELECT k, v % 3 AS r FROM bmf_src WHERE v > 10',
                                    schedule => 'manual', refresh_mode => 'incremental');
SELECT dynview.create_dynamic_table('bmf_sums', 'SELECT k, sum(v) AS s, count(*) AS c FROM bmf_src GROUP BY k',
                                    schedule => 'manual', refresh_mode => 'incremental');

-- replacing the catalog's trigger function, or any other function of dynview, is refused
CREATE OR REPLACE FUNCTION dynview._catalog_data_origin() RETURNS trigger LANGUAGE plpgsql
  AS $$ BEGIN RETURN NULL; END $$;
CREATE OR REPLACE FUNCTION dynview._window_contains(xid xid8, prev pg_snapshot, prev_own xid8[], cur pg_snapshot, cur_own xid8[])
  RETURNS boolean LANGUAGE sql IMMUTABLE STRICT AS 'SELECT false';
-- nor can a function be put in dynview's schema under a name the refreshes call: created there,
-- moved there, or one of dynview's renamed to make room; a function elsewhere is the DBA's
CREATE FUNCTION dynview.bmf_helper() RETURNS int LANGUAGE sql AS 'SELECT 1';
CREATE FUNCTION bmf_window_contains(xid xid8, prev pg_snapshot, prev_own xid8[], cur pg_snapshot, cur_own xid8[])
  RETURNS boolean LANGUAGE sql IMMUTABLE STRICT AS 'SELECT false';
ALTER FUNCTION bmf_window_contains(xid8, pg_snapshot, xid8[], pg_snapshot, xid8[]) SET SCHEMA dynview;
ALTER FUNCTION dynview._window_contains(xid8, pg_snapshot, xid8[], pg_snapshot, xid8[]) RENAME TO _window_contains_old;
ALTER FUNCTION bmf_window_contains(xid8, pg_snapshot, xid8[], pg_snapshot, xid8[]) RENAME TO bmf_unused;
CREATE OR REPLACE FUNCTION bmf_unused(xid xid8, prev pg_snapshot, prev_own xid8[], cur pg_snapshot, cur_own xid8[])
  RETURNS boolean LANGUAGE sql IMMUTABLE STRICT AS 'SELECT true';
DROP FUNCTION bmf_unused(xid8, pg_snapshot, xid8[], pg_snapshot, xid8[]);
-- (the functions are dynview's C code still)
SELECT p.proname, l.lanname, p.prosrc FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
 WHERE p.oid IN ('dynview._catalog_data_origin'::regproc, 'dynview._window_contains'::regproc) ORDER BY 1;

CREATE FUNCTION bmf_round() RETURNS TABLE (name text, refresh_mode text, verified boolean, same_text boolean, same_rows boolean)
LANGUAGE plpgsql AS $$
DECLARE q text; nt bigint; ne bigint;
BEGIN
  FOR name, q IN VALUES ('bmf_copies', 'SELECT k, v % 3 AS r FROM bmf_src WHERE v > 10'),
                        ('bmf_sums', 'SELECT k, sum(v) AS s, count(*) AS c FROM bmf_src GROUP BY k') LOOP
    SELECT r.refresh_mode INTO refresh_mode FROM dynview.refresh(name) r;
    EXECUTE format('SELECT count(*) FROM ((SELECT t::text FROM %I t EXCEPT ALL SELECT x::text FROM (%s) x)
                    UNION ALL (SELECT x::text FROM (%s) x EXCEPT ALL SELECT t::text FROM %I t)) d', name, q, q, name) INTO nt;
    EXECUTE format('SELECT count(*) FROM ((TABLE %I EXCEPT ALL (%s)) UNION ALL ((%s) EXCEPT ALL TABLE %I)) d',
                   name, q, q, name) INTO ne;
    verified := dynview.verify(name); same_text := nt = 0; same_rows := ne = 0;
    RETURN NEXT;
  END LOOP;
END $$;

-- two rounds of changes: each refresh is applied once
INSERT INTO bmf_src SELECT i, i % 5, i FROM generate_series(101, 110) i;
SELECT dynview.wait_for_capture();
SELECT * FROM bmf_round();
INSERT INTO bmf_src SELECT i, i % 5, i FROM generate_series(111, 112) i;
UPDATE bmf_src SET v = v + 1 WHERE id <= 20;
SELECT dynview.wait_for_capture();
SELECT * FROM bmf_round();

-- the catalog's trigger function changed behind the guard's back (its catalog row edited): the
-- refresh no longer takes it for dynview's own, writes the catalog row by a statement, and fails
-- when the trigger skips it; nothing changes
BEGIN;
UPDATE pg_proc SET prolang = (SELECT oid FROM pg_language WHERE lanname = 'plpgsql'), probin = NULL,
                   prosrc = 'BEGIN RETURN NULL; END'
 WHERE oid = 'dynview._catalog_data_origin'::regproc;
INSERT INTO bmf_src VALUES (200, 1, 200);
COMMIT;
SELECT dynview.wait_for_capture();
BEGIN;
SELECT r.refresh_mode FROM dynview.refresh('bmf_copies') r;
ROLLBACK;
UPDATE pg_proc SET prolang = (SELECT oid FROM pg_language WHERE lanname = 'c'), probin = '$libdir/dynview',
                   prosrc = 'dynview_catalog_data_origin'
 WHERE oid = 'dynview._catalog_data_origin'::regproc;
SELECT * FROM bmf_round();

SELECT dynview.drop_dynamic_table('bmf_copies');
SELECT dynview.drop_dynamic_table('bmf_sums');
DROP FUNCTION bmf_round();
DROP TABLE bmf_src;
