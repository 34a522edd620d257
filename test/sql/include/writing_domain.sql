-- writing_domain.sql: a domain whose CHECK writes another table, for the tests of what a
-- refresh may mark as its own writes (brk15_domain_state, brk16_domain_values).  dw_dom is an int
-- whose CHECK calls dw_ok, declared IMMUTABLE, which calls the volatile dw_write: each call adds a
-- row to dw_log (numbered by dw_seq; search_path is pg_catalog during a refresh, so the names are
-- qualified).  The test drops them at its end.
--   \getenv abs_srcdir PG_ABS_SRCDIR
--   \set writing_domain :abs_srcdir '/sql/include/writing_domain.sql'
--   \i :writing_domain
CREATE TABLE dw_log (id int PRIMARY KEY, v int);
INSERT INTO dw_log VALUES (0, 0);
CREATE SEQUENCE dw_seq;
CREATE FUNCTION dw_write(int) RETURNS int LANGUAGE plpgsql VOLATILE AS $$
BEGIN INSERT INTO public.dw_log VALUES (nextval('public.dw_seq'), $1 % 100); RETURN $1; END $$;
CREATE FUNCTION dw_ok(int) RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN PERFORM public.dw_write(1000 + COALESCE($1, 0)); RETURN true; END $$;
CREATE DOMAIN dw_dom AS int CHECK (public.dw_ok(VALUE));
