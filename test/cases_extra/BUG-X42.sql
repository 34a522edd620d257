-- BUG-X42: a source whose replica identity is changed to NOTHING (UPDATE/DELETE then carry no old key in WAL), and to FULL and USING INDEX on another unique index
-- source: modelled on logical-replication / CDC reports where old row images were missing for UPDATE/DELETE (Debezium/Flink CDC replica identity issues; no single report)
-- category: replica identity of a source changed after creation
-- @view: SELECT t.id, t.code, t.v FROM t
CREATE TABLE t (id int PRIMARY KEY, code text NOT NULL UNIQUE, v int);
INSERT INTO t VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', 3);
-- @refresh
-- step 1: replica identity NOTHING, then an update and a delete
ALTER TABLE t REPLICA IDENTITY NOTHING;
UPDATE t SET v = 10 WHERE id = 1;
DELETE FROM t WHERE id = 2;
-- @refresh
-- step 2: replica identity on the unique code, then the code and the key change
ALTER TABLE t REPLICA IDENTITY USING INDEX t_code_key;
UPDATE t SET code = 'cc', id = 30 WHERE id = 3;
-- @refresh
-- step 3: back to the default, more changes
ALTER TABLE t REPLICA IDENTITY DEFAULT;
UPDATE t SET v = v + 1;
-- @refresh
-- @expect
SELECT t.id, t.code, t.v FROM t;
