-- Tester's check (s18-brk), held on 7a54fef: whether a refresh's writes are dynview's own (never
-- decoded) is asked once per plan cache entry (refresh.c writes_are_own, dv_plan_cache_own_writes),
-- its last part being whether a state table runs user code (aggstate.c
-- dv_agg_state_runs_user_code, the backstop for a state table the guard did not shape: it lets a
-- superuser RENAME a state table and move a table into dynview_state).  The entry is dropped on
-- invalidations of the dynamic table and its sources, not of its state tables; a swap done after
-- this connection cached "own" is still seen, because renaming or moving a table renames or moves
-- its row type (pg_type), and the plan cache drops every entry on a TYPEOID invalidation.  Here
-- the copy and its trigger exist before the first refresh, so only the swap follows it.
-- Correct result: the next refresh's writes are not marked; what the trigger wrote is captured and
-- the table over it equals its query (verify(), by text and by =).
SET client_min_messages = warning;
CREATE TABLE cow_src (id int PRIMARY KEY, g int, v int);
CREATE TABLE cow_log (id serial PRIMARY KEY, note text);
INSERT INTO cow_src SELECT i, i % 5, i FROM generate_series(1, 50) i;
SELECT dynview.create_dynamic_table('cow_sum', 'SELECT g, sum(v) AS s, count(*) AS n FROM cow_src GROUP BY g',
                                    schedule => 'manual') IS NOT NULL AS created;
SELECT dynview.create_dynamic_table('cow_log_n', 'SELECT count(*) AS n FROM cow_log', schedule => 'manual') IS NOT NULL AS created;
CREATE FUNCTION cow_note() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN INSERT INTO public.cow_log (note) VALUES (TG_OP); RETURN NULL; END $$;
-- a copy of the state with a trigger, ready before the first refresh
DO $$
DECLARE st text := 'agg_' || 'cow_sum'::regclass::oid;
BEGIN
  EXECUTE format('CREATE TABLE public.cow_fake (LIKE dynview_state.%I INCLUDING INDEXES)', st);
  EXECUTE format('INSERT INTO public.cow_fake SELECT * FROM dynview_state.%I', st);
  CREATE TRIGGER cow_fake_note AFTER INSERT OR UPDATE OR DELETE ON public.cow_fake
    FOR EACH ROW EXECUTE FUNCTION public.cow_note();
END $$;
-- this connection refreshes incrementally: its plan cache entry says "own writes"
INSERT INTO cow_src VALUES (101, 1, 1);
SELECT refresh_mode FROM dynview.refresh('cow_sum');
-- (the copy made equal to the state again: rows only, no DDL)
DO $$
DECLARE st text := 'agg_' || 'cow_sum'::regclass::oid;
BEGIN
  DELETE FROM public.cow_fake;
  EXECUTE format('INSERT INTO public.cow_fake SELECT * FROM dynview_state.%I', st);
END $$;
-- a superuser swaps the state for the copy (nothing the guard refuses)
DO $$
DECLARE st text := 'agg_' || 'cow_sum'::regclass::oid;
BEGIN
  EXECUTE format('ALTER TABLE dynview_state.%I RENAME TO cow_real', st);
  ALTER TABLE public.cow_fake SET SCHEMA dynview_state;
  EXECUTE format('ALTER TABLE dynview_state.cow_fake RENAME TO %I', st);
END $$;
INSERT INTO cow_src SELECT 200 + i, i % 5, i FROM generate_series(1, 5) i;
SELECT count(*) AS log_before FROM cow_log \gset
SELECT refresh_mode FROM dynview.refresh('cow_sum');
SELECT dynview.verify('cow_sum') AS verified_sum;
SELECT count(*) > :log_before AS refresh_ran_trigger FROM cow_log;
-- what the trigger wrote is captured: the table over the log has every row
SELECT dynview.wait_for_capture();
SELECT r.refresh_mode, dynview.verify('cow_log_n') AS verified FROM dynview.refresh('cow_log_n') r;
SELECT (SELECT n FROM cow_log_n) = (SELECT count(*) FROM cow_log) AS same_rows,
       (SELECT cow_log_n::text FROM cow_log_n) = (SELECT q::text FROM (SELECT count(*) AS n FROM cow_log) q) AS same_text;
-- (the table's own state back in place, the fake dropped)
DO $$
DECLARE st text := 'agg_' || 'cow_sum'::regclass::oid;
BEGIN
  EXECUTE format('ALTER TABLE dynview_state.%I RENAME TO cow_fake', st);
  DROP TABLE dynview_state.cow_fake;
  EXECUTE format('ALTER TABLE dynview_state.cow_real RENAME TO %I', st);
END $$;
SELECT dynview.drop_dynamic_table('cow_sum') IS NOT NULL, dynview.drop_dynamic_table('cow_log_n') IS NOT NULL;
DROP FUNCTION cow_note();
DROP TABLE cow_src, cow_log;
