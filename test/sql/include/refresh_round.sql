-- dv_refresh_round(defs): refresh each dynamic table that the table defs (name text, query text)
-- lists, in name order, and compare it with its query recomputed now: dynview.verify(), and the
-- rows by their text form and by = (EXCEPT ALL both ways).  Returns one row per table: the
-- refresh mode (with its reason code), verify()'s answer and whether both comparisons found no
-- difference.  Read by the regress tests that refresh sets of dynamic tables round by round:
--   \getenv abs_srcdir PG_ABS_SRCDIR
--   \set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
--   \i :refresh_round
CREATE FUNCTION dv_refresh_round(defs regclass)
RETURNS TABLE (name text, refresh_mode text, verified boolean, same_text boolean, same_rows boolean)
LANGUAGE plpgsql AS $$
DECLARE
  d record;
  m text;
  nt bigint;
  ne bigint;
BEGIN
  FOR d IN EXECUTE format('SELECT name, query FROM %s ORDER BY name', defs) LOOP
    SELECT r.refresh_mode || COALESCE('/' || r.mode_reason_code, '') INTO m FROM dynview.refresh(d.name) r;
    EXECUTE format('SELECT count(*) FROM ((SELECT dv_rt::text FROM %I dv_rt EXCEPT ALL SELECT dv_rq::text FROM (%s) dv_rq)
                    UNION ALL (SELECT dv_rq::text FROM (%s) dv_rq EXCEPT ALL SELECT dv_rt::text FROM %I dv_rt)) x',
                   d.name, d.query, d.query, d.name) INTO nt;
    EXECUTE format('SELECT count(*) FROM ((TABLE %I EXCEPT ALL (%s)) UNION ALL ((%s) EXCEPT ALL TABLE %I)) x',
                   d.name, d.query, d.query, d.name) INTO ne;
    name := d.name; refresh_mode := m; verified := dynview.verify(d.name);
    same_text := nt = 0; same_rows := ne = 0;
    RETURN NEXT;
  END LOOP;
END $$;
