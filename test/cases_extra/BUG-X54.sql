-- BUG-X54: a refresh inside a transaction in which a deferred primary key of the source is violated for the moment (two rows share a key until a later statement fixes it): the table is keyed by that source key
-- source: modelled on Flink upsert-key / TiDB reports where a derived unique key of a view did not hold at an intermediate point (no single report)
-- category: update of primary keys; deferred constraints; refresh inside the changing transaction
-- @view: SELECT t.id, t.v FROM t
CREATE TABLE t (id int PRIMARY KEY DEFERRABLE INITIALLY DEFERRED, v text);
INSERT INTO t VALUES (1, 'a'), (2, 'b');
-- @refresh
-- step 1: key 2 taken by row 1 while row 2 still has it; refreshed now
BEGIN;
UPDATE t SET id = 2 WHERE v = 'a';
-- @refresh
-- step 2: fixed and committed
UPDATE t SET id = 1 WHERE v = 'b';
COMMIT;
-- @refresh
-- @expect
SELECT t.id, t.v FROM t;
