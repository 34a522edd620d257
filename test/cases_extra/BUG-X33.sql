-- BUG-X33: timestamptz shown in DateStyle SQL in a zone whose offset changed without a change of abbreviation (Europe/Moscow, 2014-10-26: 01:00-02:00 MSK happened twice, at +04 and at +03): an UPDATE from one instant to the other must reach the table, though both print alike in the refreshing session
-- source: modelled on Flink/ClickHouse reports of time-zone dependent results in materialized views (DST/offset changes), and on IVM engines that match rows by a rendered form (no single report)
-- category: timestamps with time zones across an offset change; session DateStyle/TimeZone during a refresh
-- notes: the case compares rows in their text form too, so every check is made after the session is back to DateStyle ISO and UTC, where the two instants differ;
--   the refreshes of steps 1 and 3 run with DateStyle SQL in Europe/Moscow, the checks after steps 2 and 4 run in ISO/UTC (their refreshes have a change of another row to apply)
-- @view: SELECT e.id, e.ts, e.note FROM ev e
CREATE TABLE ev (id int PRIMARY KEY, ts timestamptz, note text);
INSERT INTO ev VALUES (1, '2014-10-25 21:30+00', 'first 01:30 MSK (+04)'), (2, '2014-10-25 12:00+00', 'noon');
-- @refresh
-- step 1: row 1 moves to the second 01:30 MSK (+03); refreshed while the session prints both as "10/26/2014 01:30:00 MSK"
SET TimeZone = 'Europe/Moscow';
SET DateStyle = 'SQL, MDY';
UPDATE ev SET ts = '2014-10-25 22:30+00' WHERE id = 1;
-- @refresh
-- step 2: back to ISO and UTC; another row changes so that the refresh has work
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, MDY';
UPDATE ev SET note = 'midday' WHERE id = 2;
-- @refresh
-- step 3: a row inserted at one instant and, in the same batch, a row deleted whose instant prints alike in the refreshing session
SET TimeZone = 'Europe/Moscow';
SET DateStyle = 'Postgres, MDY';
INSERT INTO ev VALUES (3, '2014-10-25 21:45+00', 'dup');
-- @refresh
UPDATE ev SET ts = '2014-10-25 22:45+00' WHERE id = 3;
-- @refresh
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, MDY';
UPDATE ev SET note = 'noon' WHERE id = 2;
-- @refresh
-- @expect
SELECT e.id, e.ts, e.note FROM ev e;
