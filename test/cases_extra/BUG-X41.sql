-- BUG-X41: an UNLOGGED source (its changes are not written to WAL, so logical decoding never sees them), and a source switched to UNLOGGED after the table was created
-- source: modelled on logical-decoding based IVM/CDC reports that changes of unlogged tables are silently missing (no single report)
-- category: sources whose changes are not in WAL
-- @view: SELECT a.id, a.v, b.w FROM a JOIN b ON b.id = a.id
CREATE UNLOGGED TABLE a (id int PRIMARY KEY, v int);
CREATE TABLE b (id int PRIMARY KEY, w int);
INSERT INTO a VALUES (1, 1), (2, 2);
INSERT INTO b VALUES (1, 10), (2, 20), (3, 30);
-- @refresh
-- step 1: changes to the unlogged source
UPDATE a SET v = 100 WHERE id = 1;
INSERT INTO a VALUES (3, 3);
-- @refresh
-- step 2: the logged source becomes unlogged, then changes
ALTER TABLE b SET UNLOGGED;
UPDATE b SET w = 200 WHERE id = 2;
-- @refresh
-- step 3: it becomes logged again, then changes
ALTER TABLE b SET LOGGED;
DELETE FROM a WHERE id = 2;
UPDATE b SET w = 300 WHERE id = 3;
-- @refresh
-- @expect
SELECT a.id, a.v, b.w FROM a JOIN b ON b.id = a.id;
