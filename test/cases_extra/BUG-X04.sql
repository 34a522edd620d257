-- BUG-X04: self-join (employee -> manager) with both sides changed in one statement: two employees swap managers, a manager is renamed while his report moves to him
-- source: modelled on pg_ivm self-join reports and Materialize self-join delta issues (one change is a delta on both sides; no single report)
-- category: self-join; updates on both sides in one transaction / one statement
-- @view: SELECT e.id, e.name, m.id AS mgr_id, m.name AS mgr_name FROM emp e JOIN emp m ON e.mgr = m.id
CREATE TABLE emp (id int PRIMARY KEY, name text, mgr int);
INSERT INTO emp VALUES (1, 'boss', NULL), (2, 'ann', 1), (3, 'bob', 1), (4, 'cid', 2), (5, 'dan', 3);
-- @refresh
-- step 1: one statement: 4 and 5 swap managers, 2 is renamed
UPDATE emp SET mgr = CASE id WHEN 4 THEN 3 WHEN 5 THEN 2 ELSE mgr END, name = CASE id WHEN 2 THEN 'anne' ELSE name END WHERE id IN (2, 4, 5);
-- @refresh
-- step 2: a row becomes its own manager, and a manager and his report change together in one transaction
BEGIN;
UPDATE emp SET mgr = id WHERE id = 1;
UPDATE emp SET name = 'bobby', mgr = 5 WHERE id = 3;
UPDATE emp SET mgr = 3 WHERE id = 5;
COMMIT;
-- @refresh
-- step 3: a manager deleted and a new one with the same id inserted in the same transaction
BEGIN;
DELETE FROM emp WHERE id = 3;
INSERT INTO emp VALUES (3, 'carl', 1);
COMMIT;
-- @refresh
-- @expect
SELECT e.id, e.name, m.id AS mgr_id, m.name AS mgr_name FROM emp e JOIN emp m ON e.mgr = m.id;
