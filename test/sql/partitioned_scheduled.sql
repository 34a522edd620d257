-- A schedule and a retention on a partitioned dynamic table (issue 15), driven by the scheduler
-- worker. Deterministic: each wait is a bounded poll for a condition, then the condition is shown.
-- The schedule is that of the partition of the greatest value (the current batch): the scheduler
-- keeps it fresh; older partitions keep their rows until refreshed by name. The retention drops
-- partitions not refreshed for longer, also from the scheduler.
SET client_min_messages = warning;
CREATE TABLE ps_orders (order_id int PRIMARY KEY, day text, amount int);
INSERT INTO ps_orders VALUES (1, '20260526', 10), (2, '20260527', 20);
\getenv abs_srcdir PG_ABS_SRCDIR
\set poll_until :abs_srcdir '/sql/include/poll_until.sql'
\i :poll_until

-- one partition per day, the day's orders; LIFECYCLE 10 is dynview.retention = 10 (days)
CREATE MATERIALIZED VIEW ps_daily
  WITH (dynview.partition_by = 'day', dynview.schedule = '1 second', dynview.retention = 10)
  AS SELECT dynview.partition() AS day, count(*) AS n, sum(amount) AS total
       FROM ps_orders WHERE day = dynview.partition() WITH NO DATA;
SELECT schedule, retention FROM dynview.partitioned_table_catalog WHERE relid = 'ps_daily'::regclass;
SET dynview.partition = '20260526';
REFRESH MATERIALIZED VIEW ps_daily;
SET dynview.partition = '20260527';
REFRESH MATERIALIZED VIEW ps_daily;
RESET dynview.partition;
-- the greatest value has the schedule, the older partition is manual
SELECT name, schedule, effective_mode FROM dynview.dynamic_tables
 WHERE name::text LIKE 'ps_daily%' ORDER BY 1;

-- orders of both days: the scheduler refreshes 20260527 (INCREMENTAL); 20260526 keeps its rows
INSERT INTO ps_orders VALUES (3, '20260526', 100), (4, '20260527', 200);
SELECT dv_poll_until($$SELECT total = 220 FROM ps_daily WHERE day = '20260527'$$) AS scheduled_refresh;
SELECT day, n, total FROM ps_daily ORDER BY day;
SELECT count(*) > 0 AS scheduled_incremental FROM dynview.refresh_history
 WHERE name = 'ps_daily_20260527'::regclass AND refresh_trigger = 'SYSTEM_SCHEDULED'
   AND state = 'SUCCEED' AND refresh_mode = 'INCREMENTAL';
SELECT count(*) AS scheduled_old FROM dynview.refresh_history
 WHERE name = 'ps_daily_20260526'::regclass AND refresh_trigger = 'SYSTEM_SCHEDULED'
   AND start_time > (SELECT created_at FROM dynview.dynamic_table_catalog WHERE relid = 'ps_daily_20260527'::regclass);

-- the old day refreshed by name catches up and stays manual
SELECT table_name, refresh_trigger, refresh_mode FROM dynview.refresh('ps_daily', partition => '20260526');
SELECT day, n, total FROM ps_daily ORDER BY day;
SELECT dynview.verify('ps_daily_20260526');

-- a newer day moves the schedule to it
INSERT INTO ps_orders VALUES (5, '20260528', 7);
SELECT table_name, refresh_mode FROM dynview.refresh('ps_daily', partition => '20260528');
SELECT name, schedule FROM dynview.dynamic_tables WHERE name::text LIKE 'ps_daily%' ORDER BY 1;
SELECT dynview.verify('ps_daily_20260527');
INSERT INTO ps_orders VALUES (6, '20260528', 3);
SELECT dv_poll_until($$SELECT total = 10 FROM ps_daily WHERE day = '20260528'$$) AS scheduled_refresh;

-- retention from the scheduler: 20260527 not refreshed for eleven days (its data_timestamp
-- moved back, as time would) is dropped without any refresh of ps_daily
UPDATE dynview.dynamic_table_catalog SET data_timestamp = data_timestamp - interval '11 days'
 WHERE relid = 'ps_daily_20260527'::regclass;
SELECT dv_poll_until($$SELECT NOT EXISTS (SELECT FROM pg_class WHERE relname = 'ps_daily_20260527')$$) AS dropped_by_scheduler;
SELECT day, n, total FROM ps_daily ORDER BY day;
SELECT name FROM dynview.dynamic_tables WHERE name::text LIKE 'ps_daily%' ORDER BY 1;

-- ALTER moves T's schedule (and the current partition's); the function form too
ALTER MATERIALIZED VIEW ps_daily SET (dynview.schedule = '1 hour');
SELECT name, schedule FROM dynview.dynamic_tables WHERE name::text LIKE 'ps_daily%' ORDER BY 1;
SELECT dynview.alter_dynamic_table('ps_daily', schedule => 'manual');
SELECT name, schedule FROM dynview.dynamic_tables WHERE name::text LIKE 'ps_daily%' ORDER BY 1;
SELECT schedule FROM dynview.partitioned_table_catalog WHERE relid = 'ps_daily'::regclass;
SELECT dynview.verify('ps_daily_20260526'), dynview.verify('ps_daily_20260528');

DROP MATERIALIZED VIEW ps_daily;
SELECT count(*) FROM dynview.dynamic_tables WHERE name::text LIKE 'ps_daily%';
DROP FUNCTION dv_poll_until(text);
DROP TABLE ps_orders;
