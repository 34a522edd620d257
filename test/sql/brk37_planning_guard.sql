-- Tester's findings (s37), on a filter that calls a function with no column argument
-- ("v > bpg_lp(0)"), the function an ordinary role's:
-- (1) The window read (the change rows of a source, read as the bootstrap superuser) applied the
--     conjunct as "leakproof": contain_leaked_vars passes a function that sees no column.  The
--     role's function then ran as the superuser (it could have made its role a superuser).
--     Correct result: such a conjunct is applied by the delta statements, which run as the
--     table's owner; the window read applies conjuncts whose functions are all built in or
--     leakproof (which only a superuser can declare).
-- (2) Planning a refresh statement folds an IMMUTABLE function to a constant, and what it runs
--     counted as the refresh statement itself (the guard's nesting counted executors, not the
--     planner): the function wrote the table being refreshed and one of its sources, and the
--     refresh succeeded with a row the query does not give (verify() false, for good).  Correct
--     result: what planning runs is nested, as what the executor runs is: "cannot modify ...
--     during a refresh", the refresh rolled back.
SET client_min_messages = warning;
CREATE ROLE bpg_owner;
GRANT USAGE ON SCHEMA dynview TO bpg_owner;
GRANT CREATE ON SCHEMA public TO bpg_owner;
SET ROLE bpg_owner;
CREATE TABLE bpg_src (id int PRIMARY KEY, v int);
INSERT INTO bpg_src SELECT i, i FROM generate_series(1, 10) i;
CREATE TABLE bpg_log (who name, super boolean);
CREATE TABLE bpg_mode (mode text);
INSERT INTO bpg_mode VALUES ('log');
-- what the filter's function runs: it logs who it runs as, and in mode 'write' writes the
-- dynamic table and its source
CREATE FUNCTION bpg_side() RETURNS int LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  INSERT INTO public.bpg_log SELECT current_user, rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user;
  IF (SELECT mode FROM public.bpg_mode) = 'write' THEN
    INSERT INTO public.bpg_rows VALUES (5000, 5000);
  ELSIF (SELECT mode FROM public.bpg_mode) = 'write source' THEN
    INSERT INTO public.bpg_src VALUES (6000, 6000);
  END IF;
  RETURN 0;
END $$;
CREATE FUNCTION bpg_lp(int) RETURNS int LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  x int;
BEGIN
  x := public.bpg_side();
  RETURN $1;
END $$;
CREATE TABLE bpg_defs (name text PRIMARY KEY, query text NOT NULL);
INSERT INTO bpg_defs VALUES ('bpg_rows', 'SELECT id, v FROM bpg_src WHERE v > bpg_lp(0)');
SELECT dynview.create_dynamic_table('bpg_rows', 'SELECT id, v FROM bpg_src WHERE v > bpg_lp(0)',
                                    schedule => 'manual', refresh_mode => 'incremental');
RESET ROLE;
RESET client_min_messages;

\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round

-- (1) the filter is not applied by the window read (no "applied first by the read of its
-- changes"), and the function runs as the owner only
SELECT value ~ 'applied first by the read' AS read_applies_filter
  FROM dynview.explain_dynamic_table('bpg_rows') WHERE property = 'operator tree';
TRUNCATE bpg_log;
INSERT INTO bpg_src VALUES (11, 11);
SELECT dynview.wait_for_capture();
SET ROLE bpg_owner;
SELECT * FROM dv_refresh_round('bpg_defs');
RESET ROLE;
SELECT DISTINCT who, super FROM bpg_log ORDER BY who;

-- (2) the function writes the dynamic table, then its source, while a refresh statement is
-- planned: refused, the table unchanged
CREATE TABLE bpg_before AS SELECT * FROM bpg_rows;
INSERT INTO bpg_src VALUES (12, 12);
SELECT dynview.wait_for_capture();
UPDATE bpg_mode SET mode = 'write';
SET ROLE bpg_owner;
SELECT refresh_mode FROM dynview.refresh('bpg_rows');
\echo :LAST_ERROR_SQLSTATE
UPDATE bpg_mode SET mode = 'write source';
SELECT refresh_mode FROM dynview.refresh('bpg_rows');
\echo :LAST_ERROR_SQLSTATE
RESET ROLE;
SELECT count(*) AS differing FROM ((TABLE bpg_rows EXCEPT ALL TABLE bpg_before)
                                   UNION ALL (TABLE bpg_before EXCEPT ALL TABLE bpg_rows)) x;
SELECT count(*) FILTER (WHERE id >= 5000) AS written FROM bpg_src;
-- (quiet again: applied)
UPDATE bpg_mode SET mode = 'log';
SET ROLE bpg_owner;
SELECT * FROM dv_refresh_round('bpg_defs');
RESET ROLE;
SELECT DISTINCT who, super FROM bpg_log ORDER BY who;

SET client_min_messages = warning;
SET ROLE bpg_owner;
SELECT dynview.drop_dynamic_table('bpg_rows');
DROP TABLE bpg_defs, bpg_src, bpg_log, bpg_mode;
DROP FUNCTION bpg_lp(int), bpg_side();
RESET ROLE;
DROP TABLE bpg_before;
DROP FUNCTION dv_refresh_round(regclass);
REVOKE CREATE ON SCHEMA public FROM bpg_owner;
REVOKE USAGE ON SCHEMA dynview FROM bpg_owner;
DROP ROLE bpg_owner;
