-- BUG-X03: a source without a primary key (REPLICA IDENTITY FULL) holding identical duplicate rows: deleting or updating one of the duplicates must leave the others
-- source: modelled on pg_ivm / pgsql-ivm discussions of views over tables without keys (duplicate tuples, counting per tuple; no single report)
-- category: duplicates without keys; bag semantics; ctid-targeted DELETE/UPDATE of one duplicate
-- @view: SELECT k, v FROM t WHERE v > 0
CREATE TABLE t (k int, v int);
ALTER TABLE t REPLICA IDENTITY FULL;
INSERT INTO t VALUES (1, 10), (1, 10), (1, 10), (2, 20), (2, 20);
-- @refresh
-- step 1: one of three duplicates goes
DELETE FROM t WHERE ctid = (SELECT min(ctid) FROM t WHERE k = 1);
-- @refresh
-- step 2: one of two duplicates changes, another identical row arrives
UPDATE t SET v = 21 WHERE ctid = (SELECT min(ctid) FROM t WHERE k = 2);
INSERT INTO t VALUES (1, 10);
-- @refresh
-- step 3: an update that makes two rows identical again, and one that leaves the filter
UPDATE t SET v = 20 WHERE k = 2 AND v = 21;
UPDATE t SET v = 0 WHERE ctid = (SELECT max(ctid) FROM t WHERE k = 1);
-- @refresh
-- @expect
SELECT k, v FROM t WHERE v > 0;
