-- BUG-X57: a set operation whose branch projects a grouped subquery in another order and drops some of its columns
-- source: found by test/random/differential.py (seed 8 after issue 13's window operators changed its draws); the branch was planned as the subquery's grouped plan, whose delta had the subquery's four columns ("each UNION query must have the same number of columns")
-- category: set operations over grouped subqueries
-- @view: SELECT l.ag AS u0, l.id AS u1 FROM (SELECT t.id, sum(t.id) FILTER (WHERE t.id <= 5) AS ag, count(*) AS n1, count(*) AS n2 FROM (SELECT o.id FROM c o WHERE o.y IN (SELECT s.id FROM c s WHERE s.a_id = o.a_id)) t GROUP BY t.id) l INTERSECT SELECT r.id, r.a_id FROM b r WHERE r.id > 5
CREATE TABLE b (id int PRIMARY KEY, a_id int, x int);
CREATE TABLE c (id int PRIMARY KEY, a_id int, y int);
INSERT INTO b SELECT i, i % 7, i % 5 FROM generate_series(1, 40) i;
INSERT INTO c SELECT i, i % 7, i % 9 FROM generate_series(1, 40) i;
INSERT INTO b VALUES (41, 3, 1), (42, 5, 2);
-- @refresh
-- step 1: the subquery's groups change, the other branch gains rows
UPDATE c SET y = y + 1 WHERE id % 3 = 0;
INSERT INTO b VALUES (100, 3, 3), (101, 4, 4);
-- @refresh
-- step 2: deletes on both sides
DELETE FROM c WHERE id % 4 = 1;
DELETE FROM b WHERE id = 41;
-- @refresh
-- @expect
SELECT l.ag AS u0, l.id AS u1 FROM (SELECT t.id, sum(t.id) FILTER (WHERE t.id <= 5) AS ag, count(*) AS n1, count(*) AS n2 FROM (SELECT o.id FROM c o WHERE o.y IN (SELECT s.id FROM c s WHERE s.a_id = o.a_id)) t GROUP BY t.id) l INTERSECT SELECT r.id, r.a_id FROM b r WHERE r.id > 5;
