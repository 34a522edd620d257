-- Security (issue 11): no path to superuser through dynview, no row a role may not read in a
-- dynamic table, no source value leaked through the monitoring views.  Each attack below failed
-- before the fix: the log table dv_calls recorded a call as superuser, a hidden row entered a
-- table, or another role's error text was readable.
SET client_min_messages = warning;
CREATE ROLE dv_attacker;
CREATE ROLE dv_owner;
GRANT CREATE ON SCHEMA public TO dv_attacker, dv_owner;
CREATE SCHEMA dv_attacker AUTHORIZATION dv_attacker;
-- every call of planted code is logged with the role it ran as
CREATE TABLE public.dv_calls (what text, who name, is_superuser boolean);
GRANT SELECT, INSERT ON public.dv_calls TO PUBLIC;
CREATE FUNCTION public.dv_log(what text) RETURNS boolean LANGUAGE sql VOLATILE AS $$
  INSERT INTO public.dv_calls SELECT what, current_user, rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user;
  SELECT true $$;
GRANT EXECUTE ON FUNCTION public.dv_log(text) TO PUBLIC;

-------------------------------------------------------------------------------
-- 1. Planted operators and functions, in public and in a role's own schema.  dynview's catalog
--    statements compare regclass values, for which pg_catalog has no exact operator: a planted
--    exact one would win on any search_path that names its schema.
-------------------------------------------------------------------------------
SET ROLE dv_attacker;
CREATE FUNCTION public.planted_eq(regclass, regclass) RETURNS boolean LANGUAGE sql VOLATILE
  AS $$ SELECT public.dv_log('public.=(regclass,regclass)') AND $1::oid OPERATOR(pg_catalog.=) $2::oid $$;
CREATE OPERATOR public.= (LEFTARG = regclass, RIGHTARG = regclass, FUNCTION = public.planted_eq);
CREATE FUNCTION dv_attacker.planted_eq(regclass, regclass) RETURNS boolean LANGUAGE sql VOLATILE
  AS $$ SELECT public.dv_log('dv_attacker.=(regclass,regclass)') AND $1::oid OPERATOR(pg_catalog.=) $2::oid $$;
CREATE OPERATOR dv_attacker.= (LEFTARG = regclass, RIGHTARG = regclass, FUNCTION = dv_attacker.planted_eq);
CREATE FUNCTION dv_attacker.planted_oideq(oid, regclass) RETURNS boolean LANGUAGE sql VOLATILE
  AS $$ SELECT public.dv_log('dv_attacker.=(oid,regclass)') AND $1 OPERATOR(pg_catalog.=) $2::oid $$;
CREATE OPERATOR dv_attacker.= (LEFTARG = oid, RIGHTARG = regclass, FUNCTION = dv_attacker.planted_oideq);
CREATE FUNCTION dv_attacker.pg_has_role(oid, text) RETURNS boolean LANGUAGE sql VOLATILE
  AS $$ SELECT public.dv_log('dv_attacker.pg_has_role') $$;
-- the attacker's own calls: catalog lookups of a relation that is not a dynamic table
SET search_path = dv_attacker, public;
SELECT dynview.refresh('pg_class');
SELECT dynview.verify('pg_class');
SELECT dynview.wait_fresh('pg_class', '0 seconds');
SELECT count(*) FROM dynview.refresh_history('pg_class');
RESET search_path;
RESET ROLE;
-- a superuser whose search_path names the role's schema and public uses dynview
CREATE TABLE sec_src (id int PRIMARY KEY, grp int, v int);
INSERT INTO sec_src VALUES (1, 1, 10), (2, 2, 20);
SET search_path = dv_attacker, public;
SELECT dynview.create_dynamic_table('public.sec_totals', 'SELECT grp, sum(v) AS s FROM sec_src GROUP BY grp', schedule => '1 second');
INSERT INTO sec_src VALUES (3, 1, 30);
SELECT state, refresh_mode FROM dynview.refresh('sec_totals');
SELECT dynview.verify('sec_totals');
INSERT INTO sec_src VALUES (4, 2, 40);
SELECT dynview.wait_fresh('sec_totals');
SELECT count(*) > 0 AS has_history FROM dynview.refresh_history('sec_totals');
SELECT dynview.alter_dynamic_table('sec_totals', schedule => '1 second');
RESET search_path;
-- the scheduler worker refreshes sec_totals by itself: wait (bounded) for a scheduled refresh
INSERT INTO sec_src VALUES (5, 1, 50);
\getenv abs_srcdir PG_ABS_SRCDIR
\set poll_until :abs_srcdir '/sql/include/poll_until.sql'
\i :poll_until
SELECT dv_poll_until($$SELECT EXISTS (SELECT 1 FROM dynview.refresh_history h
                                  WHERE h.name OPERATOR(pg_catalog.=) 'sec_totals'::regclass
                                    AND h.refresh_trigger = 'SYSTEM_SCHEDULED' AND h.state = 'SUCCEED')$$) AS scheduled;
SELECT dynview.verify('sec_totals');
SET search_path = dv_attacker, public;
SELECT dynview.drop_dynamic_table('sec_totals');
DROP TABLE sec_src;
RESET search_path;
-- no planted operator or function was called, by anyone
SELECT count(*) AS planted_calls FROM dv_calls;
-- the audit: every function of the extension fixes its search_path, except those that resolve a
-- relation name argument with the caller's search_path (their SQL runs as described in doc/security.md)
-- and the internal C functions called once per row, which resolve no name and run no SQL
-- (_full_refresh_count, _window_contains, _window_filtered and its planner support, and the
-- aggregates _nonnull_count with their final functions, called once per group)
SELECT p.oid::regprocedure AS resolves_names_with_callers_search_path
  FROM pg_proc p
  JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
                  AND d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
  JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'dynview'
 WHERE NOT coalesce(p.proconfig @> '{"search_path=pg_catalog, pg_temp"}', false)
 ORDER BY p.oid::regprocedure::text;

-------------------------------------------------------------------------------
-- 2. A domain's CHECK written by the source's owner: the change buffer stores the base type, so
--    the check never runs in the buffer's DDL (made as the bootstrap superuser).
-------------------------------------------------------------------------------
SET ROLE dv_owner;
CREATE FUNCTION public.spy(int) RETURNS boolean LANGUAGE sql VOLATILE AS $$ SELECT public.dv_log('domain check') $$;
CREATE DOMAIN public.checked_int AS int CHECK (public.spy(VALUE));
CREATE TABLE public.dom_src (id int PRIMARY KEY, a public.checked_int, b public.checked_int[]);
INSERT INTO public.dom_src VALUES (1, 1, '{1}'), (2, 2, '{2,3}');
-- the first table tracks dom_src (buffer created), the second reads one more column (buffer widened)
SELECT dynview.create_dynamic_table('public.dom_a', 'SELECT id, a FROM public.dom_src', schedule => 'manual');
SELECT dynview.create_dynamic_table('public.dom_b', 'SELECT id, a, b FROM public.dom_src', schedule => 'manual');
UPDATE public.dom_src SET a = 5, b = '{5}' WHERE id = 1;
SELECT refresh_mode FROM dynview.refresh('public.dom_b');
SELECT dynview.verify('public.dom_b');
SELECT * FROM public.dom_b ORDER BY id;
RESET ROLE;
SELECT format_type(atttypid, atttypmod) AS buffer_type FROM pg_attribute
 WHERE attrelid = ('dynview_buffer.changes_' || 'public.dom_src'::regclass::oid)::regclass AND attname IN ('a', 'b')
 ORDER BY attname;
-- the check ran only as dv_owner (its own inserts and updates), never as a superuser
SELECT what, who, is_superuser, count(*) > 0 AS called FROM dv_calls GROUP BY 1, 2, 3 ORDER BY 1, 2;

-------------------------------------------------------------------------------
-- 3. Row-level security that applies to the table's owner: rows the policy hides never enter.
--    A policy that is an expression of the row alone is applied to the change rows as a filter
--    (INCREMENTAL); a policy that calls a function that is not immutable (current_user), or a
--    condition of the query that calls a function that is not leakproof (it would see the
--    hidden change rows), makes each refresh recompute the query under the policy (FULL).
-------------------------------------------------------------------------------
CREATE TABLE public.rls_src (id int PRIMARY KEY, region text, amount int, hidden boolean NOT NULL DEFAULT false);
INSERT INTO public.rls_src VALUES (1, 'north', 10, false), (2, 'south', 20, true);
ALTER TABLE public.rls_src ENABLE ROW LEVEL SECURITY;
CREATE POLICY rls_visible ON public.rls_src FOR SELECT USING (NOT hidden);
GRANT SELECT ON public.rls_src TO dv_owner;
SET ROLE dv_owner;
SELECT dynview.create_dynamic_table('public.rls_dt', 'SELECT id, region, amount FROM public.rls_src', schedule => 'manual');
SELECT effective_mode, mode_reason_code FROM dynview.dynamic_tables WHERE name = 'public.rls_dt'::regclass;
RESET ROLE;
INSERT INTO public.rls_src VALUES (3, 'east', 30, true), (4, 'west', 40, false);
UPDATE public.rls_src SET hidden = true WHERE id = 1;
SET ROLE dv_owner;
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('public.rls_dt');
SELECT dynview.verify('public.rls_dt');
SELECT * FROM public.rls_dt ORDER BY id;
-- a condition that calls a function that is not leakproof, over a source with a policy
RESET ROLE;
CREATE FUNCTION public.dv_leaky(t text) RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN RETURN t <> 'south'; END $$;
SET ROLE dv_owner;
SELECT dynview.create_dynamic_table('public.rls_leaky', 'SELECT id, region FROM public.rls_src WHERE public.dv_leaky(region)', schedule => 'manual');
SELECT effective_mode, mode_reason_code, mode_reason LIKE '%dv_leaky(), which is not leakproof%' AS names_it
  FROM dynview.dynamic_tables WHERE name = 'public.rls_leaky'::regclass;
SELECT * FROM public.rls_leaky ORDER BY id;
SELECT dynview.verify('public.rls_leaky');
SELECT dynview.drop_dynamic_table('public.rls_leaky');
RESET ROLE;
DROP FUNCTION public.dv_leaky(text);
SET ROLE dv_owner;
-- a policy that calls a function (current_user) is still named as the reason
RESET ROLE;
CREATE TABLE public.per_user (id int PRIMARY KEY, owner_name name);
INSERT INTO public.per_user VALUES (1, 'dv_owner'), (2, 'someone_else');
ALTER TABLE public.per_user ENABLE ROW LEVEL SECURITY;
CREATE POLICY own_rows ON public.per_user FOR SELECT USING (owner_name = current_user);
GRANT SELECT ON public.per_user TO dv_owner;
SET ROLE dv_owner;
SELECT dynview.create_dynamic_table('public.per_user_dt', 'SELECT id FROM public.per_user', schedule => 'manual');
SELECT effective_mode, mode_reason_code FROM dynview.dynamic_tables WHERE name = 'public.per_user_dt'::regclass;
SELECT * FROM public.per_user_dt;
SELECT dynview.verify('public.per_user_dt');
SELECT dynview.drop_dynamic_table('public.per_user_dt');
RESET ROLE;
DROP TABLE public.per_user;
SET ROLE dv_owner;
-- an owner's own table with FORCE ROW LEVEL SECURITY: the table was INCREMENTAL before the policy
CREATE TABLE public.forced (id int PRIMARY KEY, secret boolean NOT NULL DEFAULT false);
INSERT INTO public.forced VALUES (1, false), (2, true);
SELECT dynview.create_dynamic_table('public.forced_dt', 'SELECT id FROM public.forced', schedule => 'manual');
ALTER TABLE public.forced ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.forced FORCE ROW LEVEL SECURITY;
CREATE POLICY forced_visible ON public.forced FOR SELECT USING (NOT secret);
RESET ROLE;
INSERT INTO public.forced VALUES (3, true), (4, false);
SET ROLE dv_owner;
-- (the policy changed the rewritten definition: the first refresh after it says so)
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('public.forced_dt');
SELECT dynview.verify('public.forced_dt');
RESET ROLE;
UPDATE public.forced SET secret = NOT secret WHERE id IN (1, 2);
INSERT INTO public.forced VALUES (5, true), (6, false);
SET ROLE dv_owner;
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('public.forced_dt');
SELECT dynview.verify('public.forced_dt');
SELECT * FROM public.forced_dt ORDER BY id;
RESET ROLE;

-------------------------------------------------------------------------------
-- 4. Revoked rights and a new owner: every refresh checks SELECT as the owner (42501, FAILED, the
--    table keeps its data), incremental ones too.
-------------------------------------------------------------------------------
CREATE TABLE public.granted (id int PRIMARY KEY, v int);
INSERT INTO public.granted VALUES (1, 10);
GRANT SELECT ON public.granted TO dv_owner;
SET ROLE dv_owner;
SELECT dynview.create_dynamic_table('public.granted_dt', 'SELECT id, v FROM public.granted', schedule => 'manual');
SELECT effective_mode FROM dynview.dynamic_tables WHERE name = 'public.granted_dt'::regclass;
RESET ROLE;
REVOKE SELECT ON public.granted FROM dv_owner;
INSERT INTO public.granted VALUES (2, 20);
SET ROLE dv_owner;
SELECT dynview.refresh('public.granted_dt');
SELECT * FROM public.granted_dt ORDER BY id;
-- (a manual refresh raises the error in the caller's transaction; a scheduled one records it)
SELECT dynview.alter_dynamic_table('public.granted_dt', schedule => '1 second');
RESET ROLE;
SELECT dv_poll_until($$SELECT EXISTS (SELECT 1 FROM dynview.refresh_history h
                                  WHERE h.name OPERATOR(pg_catalog.=) 'public.granted_dt'::regclass AND h.state = 'FAILED')$$) AS failed;
SELECT dynview.alter_dynamic_table('public.granted_dt', schedule => 'manual');
SELECT DISTINCT state, error_message FROM dynview.refresh_history('public.granted_dt') WHERE state = 'FAILED';
SELECT * FROM public.granted_dt ORDER BY id;
-- a new owner without SELECT on the source
GRANT SELECT ON public.granted TO dv_owner;
ALTER TABLE public.granted_dt OWNER TO dv_attacker;
SET ROLE dv_attacker;
SELECT dynview.refresh('public.granted_dt');
RESET ROLE;
SELECT * FROM public.granted_dt ORDER BY id;
ALTER TABLE public.granted_dt OWNER TO dv_owner;
SET ROLE dv_owner;
SELECT refresh_mode FROM dynview.refresh('public.granted_dt');
SELECT dynview.verify('public.granted_dt');
SELECT * FROM public.granted_dt ORDER BY id;
RESET ROLE;

-------------------------------------------------------------------------------
-- 5. The monitoring views and the history show a role only the tables it owns or may SELECT:
--    error messages carry source values.
-------------------------------------------------------------------------------
CREATE TABLE public.secrets (id int PRIMARY KEY, note text);
INSERT INTO public.secrets VALUES (1, '42');
GRANT SELECT ON public.secrets TO dv_owner;
SET ROLE dv_owner;
SELECT dynview.create_dynamic_table('public.secret_numbers', 'SELECT id, note::int AS n FROM public.secrets', schedule => 'manual');
RESET ROLE;
INSERT INTO public.secrets VALUES (2, 'password=Hunter2');
SET ROLE dv_owner;
SELECT dynview.refresh('public.secret_numbers');
SELECT count(*) AS own_errors_with_value FROM dynview.refresh_history
 WHERE name OPERATOR(pg_catalog.=) 'public.secret_numbers'::regclass AND error_message LIKE '%Hunter2%';
SET ROLE dv_attacker;
SELECT count(*) AS leaked_errors FROM dynview.refresh_history WHERE error_message LIKE '%Hunter2%';
SELECT count(*) AS leaked_history FROM dynview.refresh_history('public.secret_numbers');
SELECT count(*) AS visible_tables FROM dynview.dynamic_tables;
SELECT count(*) AS visible_edges FROM dynview.dependencies;
SELECT dynview.wait_fresh('public.secret_numbers', '0 seconds');
-- verify() lists differing rows to the owner only: the query and the table are read with the
-- owner's rights, and row-level security on the dynamic table may hide rows from the caller
RESET ROLE;
CREATE TABLE public.msgs (id int PRIMARY KEY, recipient name, body text);
INSERT INTO public.msgs VALUES (1, 'dv_attacker', 'hello'), (2, 'dv_owner', 'owner-private');
GRANT SELECT ON public.msgs TO dv_owner;
SET ROLE dv_owner;
SELECT dynview.create_dynamic_table('public.inbox',
  'SELECT id, recipient, body, clock_timestamp() AS seen FROM public.msgs', schedule => 'manual');
ALTER TABLE public.inbox ENABLE ROW LEVEL SECURITY;
CREATE POLICY mine ON public.inbox FOR SELECT USING (recipient = current_user);
GRANT SELECT ON public.inbox TO dv_attacker;
SET ROLE dv_attacker;
SELECT id, body FROM public.inbox;
SELECT dynview.verify('public.inbox');   -- differs (clock_timestamp()), without the rows
RESET ROLE;
SELECT dynview.drop_dynamic_table('public.inbox');
DROP TABLE public.msgs;
SET ROLE dv_attacker;
-- reading is what shows a table: a grant makes it visible
RESET ROLE;
GRANT SELECT ON public.secret_numbers TO dv_attacker;
SET ROLE dv_attacker;
SELECT count(*) AS visible_tables FROM dynview.dynamic_tables;
SELECT count(*) > 0 AS visible_history FROM dynview.refresh_history('public.secret_numbers');
RESET ROLE;
-- a superuser sees all
SELECT count(*) AS all_tables FROM dynview.dynamic_tables;

-------------------------------------------------------------------------------
-- clean up
-------------------------------------------------------------------------------
SELECT dynview.drop_dynamic_table(t) FROM unnest(ARRAY['public.dom_a', 'public.dom_b', 'public.rls_dt',
  'public.forced_dt', 'public.granted_dt', 'public.secret_numbers']) t;
DROP TABLE public.dom_src, public.rls_src, public.forced, public.granted, public.secrets, public.dv_calls;
DROP DOMAIN public.checked_int;
DROP FUNCTION public.spy(int), public.dv_log(text), dv_poll_until(text);
DROP OPERATOR public.= (regclass, regclass);
DROP FUNCTION public.planted_eq(regclass, regclass);
DROP SCHEMA dv_attacker CASCADE;
REVOKE CREATE ON SCHEMA public FROM dv_attacker, dv_owner;
DROP ROLE dv_attacker;
DROP ROLE dv_owner;
