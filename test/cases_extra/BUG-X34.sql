-- BUG-X34: a GROUP BY on a timestamptz key and min/max of timestamptz refreshed in a session (DateStyle SQL, Europe/Moscow) where two different instants print alike: the groups are two, and the min/max must be the right instant
-- source: modelled on Flink/ClickHouse reports of time-zone dependent results in materialized views (no single report)
-- category: timestamps with time zones across an offset change; group keys; min/max
-- notes: checks that matter are made back in ISO/UTC (see BUG-X33)
-- @view: SELECT ts, count(*) AS n, sum(v) AS s FROM ev GROUP BY ts
CREATE TABLE ev (id int PRIMARY KEY, ts timestamptz, v int);
INSERT INTO ev VALUES (1, '2014-10-25 21:30+00', 1), (2, '2014-10-25 22:30+00', 2), (3, '2014-10-25 22:30+00', 3);
-- @refresh
-- step 1: refreshed in a session where both groups' keys print alike
SET TimeZone = 'Europe/Moscow';
SET DateStyle = 'SQL, MDY';
UPDATE ev SET ts = '2014-10-25 21:30+00' WHERE id = 3;
DELETE FROM ev WHERE id = 1;
-- @refresh
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, MDY';
UPDATE ev SET v = v + 10 WHERE id = 2;
-- @refresh
-- step 3: group A's only row moves to a new group whose row prints alike in the refreshing session (the old and the new group row have the same text there)
SET TimeZone = 'Europe/Moscow';
SET DateStyle = 'SQL, MDY';
INSERT INTO ev VALUES (4, '2014-10-25 21:40+00', 7);
-- @refresh
UPDATE ev SET ts = '2014-10-25 22:40+00' WHERE id = 4;
-- @refresh
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, MDY';
UPDATE ev SET v = v + 10 WHERE id = 2;
-- @refresh
-- @expect
SELECT ts, count(*) AS n, sum(v) AS s FROM ev GROUP BY ts;
