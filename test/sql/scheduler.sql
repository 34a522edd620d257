-- The scheduler worker refreshes due tables by itself (first version; issue 5 is in progress).
-- Deterministic: each wait is a bounded poll for a condition, then the condition is shown.
SET client_min_messages = warning;
CREATE TABLE s_src (id int PRIMARY KEY, grp int, v int);
INSERT INTO s_src VALUES (1, 1, 10), (2, 2, 20);
SELECT dynview.create_dynamic_table('s_dt', 'SELECT grp, sum(v) AS s FROM s_src GROUP BY grp', schedule => '1 second');
\getenv abs_srcdir PG_ABS_SRCDIR
\set poll_until :abs_srcdir '/sql/include/poll_until.sql'
\i :poll_until

-- a change is picked up by a scheduled refresh
INSERT INTO s_src VALUES (3, 1, 30);
SELECT dv_poll_until($$SELECT EXISTS (SELECT 1 FROM s_dt WHERE grp = 1 AND s = 40)$$) AS refreshed;
SELECT refresh_trigger, state FROM dynview.refresh_history('s_dt', 1);
SELECT dynview.verify('s_dt');

-- a refresh that fails from its data is recorded FAILED, the table that reads it
-- UPSTREAM_FAILED, and after dynview.max_consecutive_failures (5) it is suspended with the reason
SELECT dynview.create_dynamic_table('s_bad', 'SELECT id, 100 / v AS r FROM s_src', schedule => '1 second');
SELECT dynview.create_dynamic_table('s_bad_down', 'SELECT count(*) AS n FROM s_bad', schedule => '1 second');
UPDATE s_src SET v = 0 WHERE id = 2;
SELECT dv_poll_until($$SELECT scheduling_state = 'SUSPENDED' FROM dynview.dynamic_tables WHERE name = 's_bad'::regclass$$) AS suspended;
SELECT scheduling_state, suspend_reason, consecutive_failures, last_refresh_state
  FROM dynview.dynamic_tables WHERE name = 's_bad'::regclass;
SELECT count(*) AS failed_rows, min(error_message) AS error
  FROM dynview.refresh_history WHERE name = 's_bad'::regclass AND state = 'FAILED';
SELECT count(*) > 0 AS downstream_upstream_failed, min(error_message) AS error
  FROM dynview.refresh_history WHERE name = 's_bad_down'::regclass AND state = 'UPSTREAM_FAILED';
-- the table kept its last good data
SELECT * FROM s_bad ORDER BY id;
-- fix the data and resume: the next scheduled refresh succeeds and resets the counter
UPDATE s_src SET v = 20 WHERE id = 2;
SELECT dynview.resume('s_bad');
SELECT dv_poll_until($$SELECT last_refresh_state = 'SUCCEED' AND consecutive_failures = 0 FROM dynview.dynamic_tables WHERE name = 's_bad'::regclass$$) AS recovered;
SELECT (dynview.refresh('s_bad')).state AS manual_refresh, dynview.verify('s_bad');

-- wait_fresh: read-your-writes (the owner refreshes at once when needed)
INSERT INTO s_src VALUES (4, 2, 5);
SELECT dynview.wait_fresh('s_dt', '30 seconds') AS fresh;
SELECT * FROM s_dt ORDER BY grp;
SELECT dynview.verify('s_dt');
SELECT dynview.wait_fresh('s_dt', '-1 second');
SELECT dynview.wait_fresh('s_nope');

-- manual tables are not refreshed by the scheduler
SELECT dynview.alter_dynamic_table('s_dt', schedule => 'manual');
SELECT dynview.alter_dynamic_table('s_bad', schedule => 'manual');
SELECT dynview.drop_dynamic_table('s_bad_down');
DROP FUNCTION dv_poll_until(text);
SELECT dynview.drop_dynamic_table('s_bad');
SELECT dynview.drop_dynamic_table('s_dt');
DROP TABLE s_src;
