-- dv_grouped_states(t): the grouped subquery state tables of dynamic table t (the tables
-- dynview_state.ext_<oid>_<n> with a dv_count column), in name order; and
-- dv_grouped_states_counted(t): whether none of them keeps a row of a group without rows
-- (dv_count <= 0).  Read by the regress tests that check grouped states:
--   \getenv abs_srcdir PG_ABS_SRCDIR
--   \set grouped_states :abs_srcdir '/sql/include/grouped_states.sql'
--   \i :grouped_states
CREATE FUNCTION dv_grouped_states(t text) RETURNS SETOF regclass LANGUAGE sql AS $$
  SELECT c.oid::regclass FROM pg_class c
   WHERE c.relnamespace = 'dynview_state'::regnamespace AND c.relkind = 'r'
     AND c.relname LIKE 'ext\_' || t::regclass::oid || '\_%'
     AND EXISTS (SELECT FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'dv_count')
   ORDER BY c.relname $$;
CREATE FUNCTION dv_grouped_states_counted(t text) RETURNS bool LANGUAGE plpgsql AS $$
DECLARE
  st regclass;
  n bigint;
BEGIN
  FOR st IN SELECT dv_grouped_states(t) LOOP
    EXECUTE format('SELECT count(*) FROM %s WHERE dv_count <= 0', st) INTO n;
    IF n > 0 THEN
      RETURN false;
    END IF;
  END LOOP;
  RETURN true;
END $$;
