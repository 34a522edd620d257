-- BUG-X50: a range join (v BETWEEN lo AND hi) with overlapping ranges and a cross join to a one-row settings table: both sides change in one transaction, the settings row changes alone
-- source: modelled on Flink/Materialize reports about non-equi (interval/band) joins under retractions (no single report)
-- category: non-equi joins; cross joins; changes on both sides in one transaction
-- @view: SELECT e.id, r.name, e.v * s.factor AS scaled FROM ev e JOIN ranges r ON e.v BETWEEN r.lo AND r.hi CROSS JOIN settings s
CREATE TABLE ev (id int PRIMARY KEY, v int);
CREATE TABLE ranges (id int PRIMARY KEY, name text, lo int, hi int);
CREATE TABLE settings (id int PRIMARY KEY, factor int);
INSERT INTO ev VALUES (1, 5), (2, 15), (3, 25);
INSERT INTO ranges VALUES (1, 'low', 0, 10), (2, 'mid', 10, 20), (3, 'wide', 0, 100);
INSERT INTO settings VALUES (1, 2);
-- @refresh
-- step 1: a range widened while an event moves into it, in one transaction
BEGIN;
UPDATE ranges SET hi = 16 WHERE id = 1;
UPDATE ev SET v = 16 WHERE id = 1;
COMMIT;
-- @refresh
-- step 2: the settings row changes (every row of the result changes)
UPDATE settings SET factor = 3;
-- @refresh
-- step 3: a second settings row doubles the result, a range goes
INSERT INTO settings VALUES (2, 1);
DELETE FROM ranges WHERE id = 3;
-- @refresh
-- @expect
SELECT e.id, r.name, e.v * s.factor AS scaled FROM ev e JOIN ranges r ON e.v BETWEEN r.lo AND r.hi CROSS JOIN settings s;
