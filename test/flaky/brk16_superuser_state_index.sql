-- Tester's finding (s16-brk), NOT FIXED: a failing test kept out of the regress suite.
-- Run by hand against a cluster with dynview loaded, as a superuser:
--   psql -X -d <db> -f test/flaky/brk16_superuser_state_index.sql
-- refuse_internal_ddl (hooks/guard.c, s14-brk) refuses CREATE INDEX and ALTER TABLE on a state
-- table of dynview_state unless a superuser runs them ("a DBA may tune them").  A superuser's
-- index whose expression calls user code (an IMMUTABLE function calling a volatile one that
-- writes) runs that code inside the refreshes' writes to the state; writes_are_own
-- (refresh/refresh.c) looks at the dynamic table's indexes, triggers and checks only, not at
-- its state tables', so those writes are marked dynview's own and never decoded: a dynamic
-- table over the written table misses the rows for good.  Seen on s16-brk (770b7be): the log
-- has 10 rows, bsi_log_n says 5, its refresh NO_DATA, verify() false.  (The plan cache entry
-- that keeps writes_are_own's answer is not dropped by an index created on a state table
-- either.)  Correct result: the last query returns verified = t and n = the log's rows.
-- Ways out: the guard refuses, for a superuser too, an index expression or predicate, a
-- CHECK constraint or a default on an internal table (dynview's own DDL told apart), or
-- writes_are_own also looks at the state tables of the plan and is asked again when one of
-- them changes.
SET client_min_messages = warning;
CREATE TABLE bsi_src (id int PRIMARY KEY, g int, v int);
CREATE TABLE bsi_log (id serial PRIMARY KEY, note text);
INSERT INTO bsi_src SELECT i, i % 5, i FROM generate_series(1, 50) i;
SELECT dynview.create_dynamic_table('bsi_sum', 'SELECT g, sum(v) AS s, count(*) AS n FROM bsi_src GROUP BY g',
                                    schedule => 'manual') IS NOT NULL AS created;
SELECT dynview.create_dynamic_table('bsi_log_n', 'SELECT count(*) AS n FROM bsi_log', schedule => 'manual') IS NOT NULL AS created;
CREATE FUNCTION bsi_v(int) RETURNS int LANGUAGE plpgsql VOLATILE AS $$
BEGIN INSERT INTO public.bsi_log (note) VALUES ('index'); RETURN $1; END $$;
CREATE FUNCTION bsi_w(int) RETURNS int LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN PERFORM public.bsi_v($1); RETURN $1; END $$;
-- the superuser's index on bsi_sum's state table
DO $$ BEGIN
  EXECUTE format('CREATE INDEX bsi_state_idx ON %s ((public.bsi_w(dv_count::int)))',
                 (SELECT c.oid::regclass FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                   WHERE n.nspname = 'dynview_state' AND c.relname = 'agg_' || 'bsi_sum'::regclass::oid));
END $$;
SELECT dynview.wait_for_capture();
SELECT refresh_mode FROM dynview.refresh('bsi_log_n');
-- groups' counts change: the state rows are updated (not HOT), the index expression runs
INSERT INTO bsi_src SELECT 100 + i, i % 5, i FROM generate_series(1, 7) i;
SELECT refresh_mode FROM dynview.refresh('bsi_sum');
SELECT dynview.wait_for_capture();
SELECT r.refresh_mode, dynview.verify('bsi_log_n') AS verified, t.n, (SELECT count(*) FROM bsi_log) AS log_rows
  FROM dynview.refresh('bsi_log_n') r, bsi_log_n t;
SELECT dynview.drop_dynamic_table('bsi_sum') IS NOT NULL, dynview.drop_dynamic_table('bsi_log_n') IS NOT NULL;
DROP FUNCTION bsi_w(int), bsi_v(int);
DROP TABLE bsi_src, bsi_log;
