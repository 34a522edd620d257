-- dv_join_order(defs): for each dynamic table that the table defs (name text, query text) lists,
-- the join conditions of the inner joins its operator tree shows (dynview.explain_dynamic_table),
-- innermost join first: the order in which a FROM list's items are joined.  Read by the regress
-- tests of that order:
--   \getenv abs_srcdir PG_ABS_SRCDIR
--   \set join_order :abs_srcdir '/sql/include/join_order.sql'
--   \i :join_order
CREATE FUNCTION dv_join_order(defs regclass) RETURNS TABLE (name text, joins text)
LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE format(
    $q$SELECT j.name, string_agg(m[1], ' | ' ORDER BY ord DESC)
         FROM %s j, dynview.explain_dynamic_table(j.name) e,
              regexp_matches(e.value, 'inner join: [^\n]* ON \(([^\n]*)\)\n', 'g') WITH ORDINALITY AS r(m, ord)
        WHERE e.property = 'operator tree'
        GROUP BY j.name ORDER BY j.name$q$, defs);
END $$;
