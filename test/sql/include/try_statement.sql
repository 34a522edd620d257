-- try_statement.sql: dv_try(stmt) runs the statement stmt (EXECUTE) and returns 'allowed', or
-- 'refused <SQLSTATE>' when it fails (its effects then undone), for the tests that list which
-- statements dynview refuses (brk14_internal_ddl, brk17_superuser_state_index).  It runs with
-- the rights of its caller (SET ROLE before calling it).  The test drops it at its end:
--   \getenv abs_srcdir PG_ABS_SRCDIR
--   \set try_statement :abs_srcdir '/sql/include/try_statement.sql'
--   \i :try_statement
CREATE FUNCTION dv_try(stmt text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE stmt;
  RETURN 'allowed';
EXCEPTION WHEN OTHERS THEN
  RETURN 'refused ' || SQLSTATE;
END $$;
