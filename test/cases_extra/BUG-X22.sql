-- BUG-X22: timestamps with time zone across a DST change: grouping by the local day and hour in a fixed zone (AT TIME ZONE, immutable), intervals added across the change, and a session whose TimeZone changes between refreshes
-- source: modelled on Flink/ClickHouse MV reports about time-zone dependent grouping (local-day buckets across DST; no single report)
-- category: timestamps with time zones across DST; session TimeZone changes
-- notes: 2026-03-29 01:00 UTC is the spring-forward in Europe/Berlin; 2026-10-25 01:00 UTC the fall-back (02:00-03:00 local happens twice)
-- @view: SELECT (ts AT TIME ZONE 'Europe/Berlin')::date AS local_day, date_part('hour', ts AT TIME ZONE 'Europe/Berlin') AS local_hour, count(*) AS n, min(ts) AS first_ts, max(ts) AS last_ts FROM ev GROUP BY 1, 2
CREATE TABLE ev (id int PRIMARY KEY, ts timestamptz);
SET TimeZone = 'UTC';
INSERT INTO ev VALUES (1, '2026-03-29 00:30+00'), (2, '2026-03-29 01:30+00'), (3, '2026-10-25 00:30+00'), (4, '2026-10-25 01:30+00');
-- @refresh
-- step 1: the session's time zone changes; rows written in local time land in the ambiguous hour
SET TimeZone = 'Europe/Berlin';
INSERT INTO ev VALUES (5, '2026-10-25 02:30'), (6, '2026-03-29 03:30');
-- @refresh
-- step 2: a day added to rows around the change (timestamptz + interval depends on the session zone)
UPDATE ev SET ts = ts + interval '1 day' WHERE id IN (1, 4);
-- @refresh
-- step 3: back to UTC, the extremes deleted
SET TimeZone = 'UTC';
DELETE FROM ev WHERE id IN (2, 5);
-- @refresh
-- @expect
SELECT (ts AT TIME ZONE 'Europe/Berlin')::date AS local_day, date_part('hour', ts AT TIME ZONE 'Europe/Berlin') AS local_hour, count(*) AS n, min(ts) AS first_ts, max(ts) AS last_ts FROM ev GROUP BY 1, 2;
