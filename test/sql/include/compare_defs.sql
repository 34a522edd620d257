-- dv_compare_defs(defs): each dynamic table named in the table defs (columns name, query), in name
-- order, compared with its query recomputed now: dynview.verify(), its rows by their text form and
-- by = (EXCEPT ALL both ways).  For the regress tests; each drops the function at its end:
--   \getenv abs_srcdir PG_ABS_SRCDIR
--   \set compare_defs :abs_srcdir '/sql/include/compare_defs.sql'
--   \i :compare_defs
CREATE FUNCTION dv_compare_defs(defs regclass)
RETURNS TABLE (name text, verified boolean, same_text boolean, same_rows boolean)
LANGUAGE plpgsql AS $$
DECLARE
  d record;
  nt bigint;
  ne bigint;
BEGIN
  FOR d IN EXECUTE format('SELECT name, query FROM %s ORDER BY 1', defs) LOOP
    EXECUTE format('SELECT count(*) FROM ((SELECT t::text FROM %I t EXCEPT ALL SELECT q::text FROM (%s) q)
                    UNION ALL (SELECT q::text FROM (%s) q EXCEPT ALL SELECT t::text FROM %I t)) x',
                   d.name, d.query, d.query, d.name) INTO nt;
    EXECUTE format('SELECT count(*) FROM ((TABLE %I EXCEPT ALL (%s)) UNION ALL ((%s) EXCEPT ALL TABLE %I)) x',
                   d.name, d.query, d.query, d.name) INTO ne;
    name := d.name; verified := dynview.verify(d.name); same_text := nt = 0; same_rows := ne = 0;
    RETURN NEXT;
  END LOOP;
END $$;
