-- BUG-X10: UNION and UNION ALL with overlapping branches over two tables and the same table: a row moves from one branch to the other; a value stays in the UNION while either branch has it
-- source: modelled on the class of UNION/UNION ALL maintenance reports (Materialize, pg_ivm feature discussions; no single report)
-- category: UNION ALL with overlapping branches; UNION set semantics; updates moving rows between branches
-- @view: SELECT k, 'lo' AS src FROM a WHERE v < 10 UNION ALL SELECT k, 'lo' FROM a WHERE v < 5 UNION SELECT k, 'lo' FROM b
CREATE TABLE a (id int PRIMARY KEY, k int, v int);
CREATE TABLE b (id int PRIMARY KEY, k int);
INSERT INTO a VALUES (1, 1, 3), (2, 2, 7), (3, 3, 12);
INSERT INTO b VALUES (1, 2), (2, 4), (3, NULL);
-- @refresh
-- step 1: a row leaves one branch of the inner UNION ALL but stays in the other; b loses its 2
UPDATE a SET v = 8 WHERE id = 1;
DELETE FROM b WHERE id = 1;
-- @refresh
-- step 2: a NULL key enters a; b's NULL goes
INSERT INTO a VALUES (4, NULL, 1);
DELETE FROM b WHERE id = 3;
-- @refresh
-- step 3: the key of a row in both branches changes
UPDATE a SET k = 4 WHERE id = 4;
UPDATE a SET v = 100 WHERE id = 2;
-- @refresh
-- @expect
SELECT k, 'lo' AS src FROM a WHERE v < 10 UNION ALL SELECT k, 'lo' FROM a WHERE v < 5 UNION SELECT k, 'lo' FROM b;
