-- BUG-X48: a join on text columns with a case-insensitive nondeterministic collation ('abc' joins 'ABC'), and a join on an "en-x-icu" column with a range condition: changes on either side
-- source: modelled on collation reports in MV engines (join keys compared under another collation on change rows; no single report)
-- category: collations of source columns; joins evaluated on deltas
-- @view: SELECT a.id AS aid, b.id AS bid, a.k, b.k AS bk FROM a JOIN b ON a.k = b.k
CREATE COLLATION ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE TABLE a (id int PRIMARY KEY, k text COLLATE ci);
CREATE TABLE b (id int PRIMARY KEY, k text COLLATE ci);
INSERT INTO a VALUES (1, 'abc'), (2, 'x');
INSERT INTO b VALUES (1, 'ABC'), (2, 'X');
-- @refresh
-- step 1: new rows matching only case-insensitively, on both sides
INSERT INTO a VALUES (3, 'Abc');
INSERT INTO b VALUES (3, 'aBC');
-- @refresh
-- step 2: keys changed in case only, and a real change
UPDATE a SET k = 'ABC' WHERE id = 1;
UPDATE b SET k = 'y' WHERE id = 2;
-- @refresh
-- @expect
SELECT a.id AS aid, b.id AS bid, a.k, b.k AS bk FROM a JOIN b ON a.k = b.k;
