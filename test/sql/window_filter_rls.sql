-- The window read applies a condition of the query's filter that calls built-in functions that
-- may fail (a / b: dynview.window_filter_functions) only to a source without row-level security:
-- whether such a condition fails, or not, on a change row would tell of rows a policy hides
-- (delta.c dv_window_conjunct_kind).  What the read applies is cached with the plan
-- (incremental.c source_filter_conjuncts): here one session refreshes the same table while the
-- source's security is enabled, the owner loses BYPASSRLS, gets it back, and the security is
-- disabled; the cached choice follows each step.  Seen two ways: explain() names what the read
-- applies, and a row with b = 0 written and deleted in one window makes a read that applies
-- a / b fail and read again without it (mode_reason says so), and leaves one that does not
-- untouched.  Every refresh is checked with verify() and by the rows' text form.
SET client_min_messages = warning;
-- (the window consolidated first: read as it is (dynview.linear_windows_as_is, which select/join
-- tables follow since the eighteenth session), the query's own a / b fails on the b = 0 row
-- whatever the read applies, and the refresh is applied again over the consolidated window)
SET dynview.linear_windows_as_is = off;
CREATE ROLE dv_wfr_owner BYPASSRLS;
CREATE SCHEMA wfr AUTHORIZATION dv_wfr_owner;
CREATE TABLE public.wfr_s (id int PRIMARY KEY, a int, b int, hidden boolean NOT NULL DEFAULT false);
INSERT INTO public.wfr_s SELECT i, i * 3, 1 + i % 4, i % 5 = 0 FROM generate_series(1, 30) i;
CREATE POLICY wfr_visible ON public.wfr_s FOR SELECT USING (NOT hidden);
GRANT SELECT ON public.wfr_s TO dv_wfr_owner;
ALTER TABLE public.wfr_s REPLICA IDENTITY FULL;

-- one step: a transaction writes a row with b = 0 and deletes it again, and changes a row; then
-- the refresh as the owner, with its mode, whether the read was made again without a / b, and
-- the checks
CREATE PROCEDURE public.wfr_write(k int) LANGUAGE sql AS $$
  INSERT INTO public.wfr_s VALUES (100 + k, 50, 0);
  DELETE FROM public.wfr_s WHERE id = 100 + k;
  UPDATE public.wfr_s SET a = a + 7 WHERE id = k;
$$;
CREATE FUNCTION public.wfr_refresh() RETURNS TABLE (refresh_mode text, read_again boolean,
    verified boolean, same_text boolean)
LANGUAGE plpgsql AS $$
DECLARE
  r record;
BEGIN
  SET LOCAL ROLE dv_wfr_owner;
  SELECT * INTO r FROM dynview.refresh('wfr.t');
  refresh_mode := r.refresh_mode || COALESCE('/' || r.mode_reason_code, '');
  read_again := COALESCE(r.mode_reason LIKE '%read again without the conditions%', false);
  verified := dynview.verify('wfr.t');
  SELECT count(*) = 0 INTO same_text FROM (
    (SELECT t::text FROM wfr.t t EXCEPT ALL
     SELECT q::text FROM (SELECT id, a FROM public.wfr_s WHERE a / b > 2) q)
    UNION ALL
    (SELECT q::text FROM (SELECT id, a FROM public.wfr_s WHERE a / b > 2) q EXCEPT ALL
     SELECT t::text FROM wfr.t t)) x;
  RESET ROLE;
  RETURN NEXT;
END $$;
CREATE FUNCTION public.wfr_filter() RETURNS SETOF text LANGUAGE sql AS $$
  SELECT btrim(line)
    FROM dynview.explain_dynamic_table('wfr.t') e, regexp_split_to_table(e.value, E'\n') line
   WHERE e.property = 'operator tree' AND line LIKE '%filter%'
$$;

SET ROLE dv_wfr_owner;
SELECT dynview.create_dynamic_table('wfr.t', 'SELECT id, a FROM public.wfr_s WHERE a / b > 2',
                                    schedule => 'manual', refresh_mode => 'incremental');
RESET ROLE;

-- 1. no row-level security: the read applies a / b, fails on the row with b = 0, reads again
SELECT * FROM public.wfr_filter();
CALL public.wfr_write(1);
SELECT * FROM public.wfr_refresh();

-- 2. security enabled with a policy; the owner has BYPASSRLS (the policy does not apply to it):
--    the read no longer applies a / b (the plan cached at step 1 notwithstanding)
ALTER TABLE public.wfr_s ENABLE ROW LEVEL SECURITY;
CALL public.wfr_write(2);
SELECT * FROM public.wfr_refresh();
SELECT * FROM public.wfr_filter();

-- 3. the owner loses BYPASSRLS: the policy applies to it (the rewritten definition changed: one
--    FULL DEFINITION_CHANGED), and a / b is not leakproof, so the next refreshes recompute the
--    query under the policy too (FULL); the hidden rows stay out
ALTER ROLE dv_wfr_owner NOBYPASSRLS;
CALL public.wfr_write(3);
SELECT * FROM public.wfr_refresh();
CALL public.wfr_write(7);
SELECT * FROM public.wfr_refresh();
SELECT count(*) AS rows, count(*) FILTER (WHERE id % 5 = 0) AS hidden_rows FROM wfr.t;

-- 4. BYPASSRLS again: the definition changed back (FULL once), then incremental, still without
--    a / b in the read
ALTER ROLE dv_wfr_owner BYPASSRLS;
CALL public.wfr_write(4);
SELECT * FROM public.wfr_refresh();
CALL public.wfr_write(5);
SELECT * FROM public.wfr_refresh();

-- 5. security disabled: the read applies a / b again
ALTER TABLE public.wfr_s DISABLE ROW LEVEL SECURITY;
CALL public.wfr_write(6);
SELECT * FROM public.wfr_refresh();
SELECT * FROM public.wfr_filter();

SELECT dynview.drop_dynamic_table('wfr.t');
DROP PROCEDURE public.wfr_write(int);
DROP FUNCTION public.wfr_refresh();
DROP FUNCTION public.wfr_filter();
DROP TABLE public.wfr_s;
DROP SCHEMA wfr;
DROP ROLE dv_wfr_owner;
