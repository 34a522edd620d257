-- BUG-X40: a source with inheritance children: SELECT ... FROM parent reads the children's rows too; rows inserted, updated and deleted in a child, a child added by ALTER TABLE ... INHERIT and removed by NO INHERIT
-- source: modelled on logical-replication-based IVM reports where changes of child tables (inheritance/partitions) were not captured for the parent (no single report)
-- category: inheritance; rows of a source that live in other relations
-- @view: SELECT p.id, p.v, p.tag FROM p WHERE p.v > 0
CREATE TABLE p (id int PRIMARY KEY, v int, tag text);
CREATE TABLE c1 (PRIMARY KEY (id)) INHERITS (p);
CREATE TABLE c2 (id int PRIMARY KEY, v int, tag text);
INSERT INTO p VALUES (1, 1, 'parent');
INSERT INTO c1 VALUES (2, 2, 'child');
INSERT INTO c2 VALUES (3, 3, 'loose');
-- @refresh
-- step 1: changes in the child
INSERT INTO c1 VALUES (4, 4, 'child');
UPDATE c1 SET v = 20 WHERE id = 2;
-- @refresh
-- step 2: changes through the parent that reach the child's rows
UPDATE p SET tag = 'via parent' WHERE id IN (1, 4);
DELETE FROM p WHERE id = 2;
-- @refresh
-- step 3: a table joins the hierarchy, then a row of it changes
ALTER TABLE c2 INHERIT p;
-- @refresh
UPDATE c2 SET v = 30 WHERE id = 3;
-- @refresh
-- step 4: the first child leaves the hierarchy
ALTER TABLE c1 NO INHERIT p;
-- @refresh
-- @expect
SELECT p.id, p.v, p.tag FROM p WHERE p.v > 0;
