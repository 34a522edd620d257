-- dv_poll_until(cond): run the query cond (one boolean) every 0.1 s until it returns true, at
-- most 600 times (a minute); returns whether it did.  For the regress tests that wait for the
-- scheduler (bounded polls, no sleep-and-hope); each drops the function at its end:
--   \getenv abs_srcdir PG_ABS_SRCDIR
--   \set poll_until :abs_srcdir '/sql/include/poll_until.sql'
--   \i :poll_until
CREATE FUNCTION dv_poll_until(cond text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE ok boolean;
BEGIN
  FOR i IN 1..600 LOOP
    EXECUTE cond INTO ok;
    IF ok THEN RETURN true; END IF;
    PERFORM pg_sleep(0.1);
  END LOOP;
  RETURN false;
END $$;
