-- Attacks on the claims of issue 11 that still succeed at commit 6045d32 (wt-break, security
-- review).  The expected output is the CORRECT behaviour: today this file fails.  Each part says
-- what happens today and what should happen.
SET client_min_messages = warning;
CREATE ROLE dva_attacker;
CREATE ROLE dva_victim;
GRANT CREATE ON SCHEMA public TO dva_attacker, dva_victim;
CREATE SCHEMA dva_attacker AUTHORIZATION dva_attacker;
CREATE SCHEMA dva_victim AUTHORIZATION dva_victim;
-- every call of planted code is logged with the role it ran as
CREATE TABLE public.dva_calls (what text, who name, is_superuser boolean);
GRANT SELECT, INSERT ON public.dva_calls TO PUBLIC;
CREATE FUNCTION public.dva_log(what text) RETURNS boolean LANGUAGE sql VOLATILE AS $$
  INSERT INTO public.dva_calls SELECT what, current_user, rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user;
  SELECT true $$;
GRANT EXECUTE ON FUNCTION public.dva_log(text) TO PUBLIC;
-- does running SQL raise an error whose message, detail, hint or context contains NEEDLE?
CREATE FUNCTION public.dva_error_contains(sql text, needle text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE m text; d text; h text; c text;
BEGIN
  EXECUTE sql;
  RETURN false;
EXCEPTION WHEN others THEN
  GET STACKED DIAGNOSTICS m = MESSAGE_TEXT, d = PG_EXCEPTION_DETAIL, h = PG_EXCEPTION_HINT, c = PG_EXCEPTION_CONTEXT;
  RETURN concat_ws(' ', m, d, h, c) LIKE '%' || needle || '%';
END $$;
GRANT EXECUTE ON FUNCTION public.dva_error_contains(text, text) TO PUBLIC;

-------------------------------------------------------------------------------
-- 1. Superuser code execution: a type in pg_temp shadows the type of a buffer column.
--    create_buffer, widen_buffer and dv_tracking_sync_buffers (src/cdc/tracking.c) spell a
--    column's type with format_type_with_typemod(), which leaves the schema out when the type is
--    visible on the CALLER's search_path, and run the DDL as the bootstrap superuser with
--    search_path "pg_catalog, pg_temp".  Types (unlike functions and operators) are looked up in
--    pg_temp, so a domain the role creates in its own pg_temp is what the buffer column gets, and
--    ADD COLUMN (or ALTER COLUMN ... TYPE ... USING NULL) of a domain with a CHECK evaluates the
--    CHECK for every buffered row, as superuser.  Today: dva_calls holds a row with
--    is_superuser = true (with ALTER ROLE in the CHECK the role makes itself superuser).
--    Should: the buffer column is dva_attacker.mood (force-qualified type name:
--    format_type_extended(..., FORMAT_TYPE_FORCE_QUALIFY)), nothing planted is called.
-------------------------------------------------------------------------------
SET ROLE dva_attacker;
CREATE TYPE dva_attacker.mood AS ENUM ('sad', 'glad');
CREATE TABLE dva_attacker.src (id int PRIMARY KEY, m dva_attacker.mood);
ALTER TABLE dva_attacker.src REPLICA IDENTITY FULL;
SET search_path = public;
-- a first table reads only id: the buffer has no column m, and keeps its rows (never refreshed)
SELECT dynview.create_dynamic_table('dva_attacker.ids', 'SELECT id FROM dva_attacker.src', schedule => 'manual');
INSERT INTO dva_attacker.src VALUES (1, 'sad');
SELECT dynview.wait_for_capture();
-- the type's schema named before pg_temp: the type is "visible", so it is spelled "mood"
SET search_path = dva_attacker, public, pg_temp;
CREATE DOMAIN pg_temp.mood AS int CHECK (public.dva_log('pg_temp.mood CHECK'));
SELECT dynview.create_dynamic_table('dva_attacker.moods', 'SELECT id, m FROM dva_attacker.src', schedule => 'manual');
INSERT INTO dva_attacker.src VALUES (2, 'glad');
SELECT dynview.wait_for_capture();
SELECT state, refresh_mode FROM dynview.refresh('dva_attacker.moods');
SELECT dynview.verify('dva_attacker.moods');
RESET search_path;
RESET ROLE;
SELECT what, who, is_superuser FROM public.dva_calls ORDER BY 1, 2;
SELECT a.atttypid::regtype AS buffer_column_type
  FROM dynview.source_tracking t JOIN pg_attribute a ON a.attrelid = t.buffer_relid AND a.attname = 'm'
 WHERE t.source_relid = 'dva_attacker.src'::regclass;

-------------------------------------------------------------------------------
-- 2. Breakage (same cause): a user-defined type visible on the creator's search_path (an enum
--    in public, the everyday case) makes create_dynamic_table fail:
--    ERROR:  type "dva_color" does not exist (the buffer DDL runs with pg_catalog, pg_temp).
--    Should: the table is created and refreshed incrementally.
-------------------------------------------------------------------------------
SET ROLE dva_victim;
CREATE TYPE public.dva_color AS ENUM ('red', 'green');
CREATE TABLE public.dva_paint (id int PRIMARY KEY, c public.dva_color);
ALTER TABLE public.dva_paint REPLICA IDENTITY FULL;
INSERT INTO public.dva_paint VALUES (1, 'red');
SELECT dynview.create_dynamic_table('public.dva_paint_n', 'SELECT id, c FROM dva_paint', schedule => 'manual');
INSERT INTO public.dva_paint VALUES (2, 'green'), (3, 'red');
SELECT dynview.wait_for_capture();
SELECT state, refresh_mode FROM dynview.refresh('public.dva_paint_n');
SELECT dynview.verify('public.dva_paint_n');
SELECT id, c FROM public.dva_paint_n ORDER BY id;
RESET ROLE;

-------------------------------------------------------------------------------
-- 3. Leak: refresh() of a downstream table refreshes its upstream dynamic tables first, as their
--    owners, and raises an upstream's error as is in the caller's session: the attacker, who
--    may read only a count through a view, gets the victim's source value in the error text
--    (ERROR:  invalid input syntax for type integer: "password=Hunter2", CONTEXT: incremental
--    refresh of dynamic table "dva_victim.parsed").  The history is careful (UPSTREAM_FAILED,
--    "Upstream dynamic table S.T of this pipeline failed to refresh; ..."), the manual path is not.
--    Should: the caller gets an error naming the upstream that failed, without its message,
--    detail and context unless it may SELECT that upstream (as refresh_history shows it).
--    (dv_rethrow_refresh_error / the pipeline loop in src/refresh/refresh.c.)
-------------------------------------------------------------------------------
SET ROLE dva_victim;
CREATE TABLE dva_victim.creds (id int PRIMARY KEY, note text);
ALTER TABLE dva_victim.creds REPLICA IDENTITY FULL;
INSERT INTO dva_victim.creds VALUES (1, '42');
SELECT dynview.create_dynamic_table('dva_victim.parsed', 'SELECT id, note::int AS n FROM dva_victim.creds', schedule => 'downstream');
CREATE VIEW dva_victim.parsed_count AS SELECT count(*) AS c FROM dva_victim.parsed;
GRANT USAGE ON SCHEMA dva_victim TO dva_attacker;
GRANT SELECT ON dva_victim.parsed_count TO dva_attacker;
SET ROLE dva_attacker;
SELECT dynview.create_dynamic_table('dva_attacker.cnt', 'SELECT c FROM dva_victim.parsed_count', schedule => 'manual');
SET ROLE dva_victim;
INSERT INTO dva_victim.creds VALUES (2, 'password=Hunter2');
SELECT dynview.wait_for_capture();
SET ROLE dva_attacker;
SELECT public.dva_error_contains($$SELECT dynview.refresh('dva_attacker.cnt')$$, 'Hunter2') AS refresh_error_leaks;
SELECT count(*) AS leaked_history FROM dynview.refresh_history WHERE error_message LIKE '%Hunter2%';
RESET ROLE;

-------------------------------------------------------------------------------
-- 4. Breakage: the owner turns its dynamic table into a view (PostgreSQL 15 still converts an
--    empty table without indexes with CREATE RULE "_RETURN"; dropping dynview's index and VACUUM
--    clear the way).  dynview keeps listing it as a dynamic table, its refreshes fail (column
--    dv_t.ctid does not exist), verify() is false, drop_dynamic_table() fails ("is not a table"),
--    and a downstream or anyone reading "the dynamic table" runs the rule's functions as
--    themselves.  Should: the guard refuses CREATE RULE on a dynamic table (or dynview forgets a
--    relation that is no longer a table).  (src/hooks/guard.c)
-------------------------------------------------------------------------------
SET ROLE dva_attacker;
CREATE TABLE dva_attacker.rsrc (a int);
SELECT dynview.create_dynamic_table('dva_attacker.ruled', 'SELECT a FROM dva_attacker.rsrc', schedule => 'manual', initialize => false);
DROP INDEX dva_attacker.ruled_dv_apply;
VACUUM dva_attacker.ruled;
SELECT public.dva_error_contains($$CREATE RULE "_RETURN" AS ON SELECT TO dva_attacker.ruled DO INSTEAD SELECT 1 AS a$$, '') AS rule_refused;
RESET ROLE;
SELECT count(*) AS dynamic_tables_not_tables
  FROM dynview.dynamic_tables d JOIN pg_class c ON c.oid = d.name::oid WHERE c.relkind <> 'r';

-------------------------------------------------------------------------------
-- clean up
-------------------------------------------------------------------------------
DROP VIEW dva_victim.parsed_count;
SELECT dynview.drop_dynamic_table(t, if_exists => true) FROM unnest(ARRAY['dva_attacker.cnt', 'dva_victim.parsed',
  'public.dva_paint_n', 'dva_attacker.moods', 'dva_attacker.ids']) t;
-- (dva_attacker.ruled may be a view now: its bookkeeping goes with DROP SCHEMA ... CASCADE)
DROP DOMAIN pg_temp.mood CASCADE;
DROP SCHEMA dva_attacker CASCADE;
DROP SCHEMA dva_victim CASCADE;
DROP TABLE public.dva_paint, public.dva_calls;
DROP TYPE public.dva_color;
DROP FUNCTION public.dva_log(text), public.dva_error_contains(text, text);
REVOKE CREATE ON SCHEMA public FROM dva_attacker, dva_victim;
DROP ROLE dva_attacker;
DROP ROLE dva_victim;
