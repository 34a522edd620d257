-- dv_refresh_rows(defs, state_check): refresh each dynamic table that the table defs (name text, ...)
-- lists, in name order.  Returns one row per table: the refresh mode and its reason code,
-- verify()'s answer (the table against its query recomputed now, by text form and by =), the
-- table's row count, and state_check(name) (a boolean function of the test that checks the
-- table's state tables; NULL when none is given).  Read by the regress tests that keep operator
-- states:
--   \getenv abs_srcdir PG_ABS_SRCDIR
--   \set refresh_rows :abs_srcdir '/sql/include/refresh_rows.sql'
--   \i :refresh_rows
CREATE FUNCTION dv_refresh_rows(defs regclass, state_check regproc DEFAULT NULL)
RETURNS TABLE (name text, mode text, reason text, verified boolean, rows bigint, state_ok boolean)
LANGUAGE plpgsql AS $$
DECLARE
  t record;
  r dynview.refresh_history;
BEGIN
  FOR t IN EXECUTE format('SELECT d.name FROM %s d ORDER BY d.name', defs) LOOP
    r := dynview.refresh(t.name);
    name := t.name; mode := r.refresh_mode; reason := r.mode_reason_code;
    verified := dynview.verify(t.name);
    EXECUTE format('SELECT count(*) FROM %I', t.name) INTO rows;
    IF state_check IS NOT NULL THEN
      EXECUTE format('SELECT %s($1)', state_check) INTO state_ok USING t.name;
    END IF;
    RETURN NEXT;
  END LOOP;
END $$;
