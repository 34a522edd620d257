-- BUG-X49: a three-way self-join (grandchild -> child -> parent on one table) with rows changed at every level in one transaction; each change is a delta on three join inputs at once
-- source: modelled on pg_ivm self-join support (multiple references to one table, fixed by counting each reference's delta) and Materialize delta-join issues (no single report)
-- category: self-joins with more than two references; changes on all sides in one transaction
-- @view: SELECT c.id, c.name, p.name AS parent, g.name AS grandparent FROM node c JOIN node p ON p.id = c.parent JOIN node g ON g.id = p.parent
CREATE TABLE node (id int PRIMARY KEY, name text, parent int);
INSERT INTO node VALUES (1, 'root', NULL), (2, 'a', 1), (3, 'b', 1), (4, 'a1', 2), (5, 'b1', 3), (6, 'a11', 4);
-- @refresh
-- step 1: one transaction renames a grandparent, re-parents a middle node and adds a leaf under it
BEGIN;
UPDATE node SET name = 'ROOT' WHERE id = 1;
UPDATE node SET parent = 3 WHERE id = 4;
INSERT INTO node VALUES (7, 'a12', 4);
COMMIT;
-- @refresh
-- step 2: a cycle (2 -> 6 -> 4 -> 3 ...) and a node that is its own parent
UPDATE node SET parent = 6 WHERE id = 2;
UPDATE node SET parent = 5 WHERE id = 5;
-- @refresh
-- step 3: one statement touching every level
UPDATE node SET name = name || '!', parent = CASE WHEN id = 5 THEN 1 ELSE parent END;
-- @refresh
-- @expect
SELECT c.id, c.name, p.name AS parent, g.name AS grandparent FROM node c JOIN node p ON p.id = c.parent JOIN node g ON g.id = p.parent;
