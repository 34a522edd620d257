-- BUG-X16: transactions that commit out of order: a transaction that started and wrote first (older xid, earlier WAL) commits after a later one and after a refresh; its changes must appear at the next refresh, once
-- source: modelled on pgsql-ivm concurrency discussions and Materialize/CDC reports on out-of-order commits (no single report)
-- category: transactions committing out of order; refresh while another transaction holds uncommitted changes
-- notes: the second session is a dblink connection to the same database
-- @view: SELECT g, count(*) AS n, sum(v) AS s FROM t GROUP BY g
CREATE EXTENSION IF NOT EXISTS dblink;
CREATE TABLE t (id int PRIMARY KEY, g int, v int);
INSERT INTO t VALUES (1, 1, 1), (2, 2, 2);
SELECT dblink_connect('other', 'dbname=' || current_database() || ' port=' || current_setting('port')) AS connected;
-- @refresh
-- step 1: the other session opens a transaction and writes; this session writes and commits; refresh while the other is open
SELECT dblink_exec('other', 'BEGIN');
SELECT dblink_exec('other', 'INSERT INTO t VALUES (10, 1, 100)');
SELECT dblink_exec('other', 'UPDATE t SET v = 20 WHERE id = 2');
INSERT INTO t VALUES (3, 1, 3);
-- @refresh
-- step 2: the older transaction commits now
SELECT dblink_exec('other', 'COMMIT');
UPDATE t SET v = v + 1 WHERE id = 3;
-- @refresh
-- step 3: again, with the older transaction rolled back this time, and a repeatable-read writer
SELECT dblink_exec('other', 'BEGIN ISOLATION LEVEL REPEATABLE READ');
SELECT dblink_exec('other', 'DELETE FROM t WHERE id = 10');
DELETE FROM t WHERE id = 1;
SELECT (dynview.refresh('dv_case')).state IS NOT NULL AS refreshed_between;
SELECT dblink_exec('other', 'ROLLBACK');
SELECT dblink_exec('other', 'BEGIN');
SELECT dblink_exec('other', 'UPDATE t SET g = 2 WHERE id = 10');
SELECT (dynview.refresh('dv_case')).state IS NOT NULL AS refreshed_again;
SELECT dblink_exec('other', 'COMMIT');
-- @refresh
-- @expect
SELECT g, count(*) AS n, sum(v) AS s FROM t GROUP BY g;
