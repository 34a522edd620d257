-- A source written after a refresh in the same transaction: the commit is refused (committed, the
-- table would not equal its query at its data snapshot, which counts the transaction as seen) and
-- nothing changes; refreshed again after the write, the transaction commits.  And a window function with
-- PARTITION BY refreshes incrementally by recomputing the affected partitions.
SET client_min_messages = warning;
CREATE TABLE tx_src (id int PRIMARY KEY, grp int, v int);
INSERT INTO tx_src VALUES (1, 1, 10), (2, 1, 20), (3, 2, 30);
SELECT dynview.create_dynamic_table('tx_dt', 'SELECT id, v FROM tx_src', schedule => 'manual');
SELECT dynview.create_dynamic_table('tx_grp', 'SELECT grp, count(*) AS n FROM tx_src GROUP BY grp', schedule => 'manual');
BEGIN;
SELECT refresh_mode FROM dynview.refresh('tx_dt');
SELECT refresh_mode FROM dynview.refresh('tx_grp');
INSERT INTO tx_src VALUES (4, 2, 40);
UPDATE tx_src SET v = 11 WHERE id = 1;
COMMIT;
SELECT dynview.verify('tx_dt') AS dt_ok, dynview.verify('tx_grp') AS grp_ok;
SELECT * FROM tx_src ORDER BY id;
BEGIN;
SELECT refresh_mode FROM dynview.refresh('tx_dt');
SELECT refresh_mode FROM dynview.refresh('tx_grp');
INSERT INTO tx_src VALUES (4, 2, 40);
UPDATE tx_src SET v = 11 WHERE id = 1;
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('tx_dt');
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('tx_grp');
COMMIT;
SELECT dynview.verify('tx_dt') AS dt_ok, dynview.verify('tx_grp') AS grp_ok;
SELECT (SELECT count(*) FROM tx_dt) AS dt_rows, (SELECT sum(n) FROM tx_grp) AS grp_rows;
-- and incremental again afterwards
INSERT INTO tx_src VALUES (5, 3, 50);
SELECT refresh_mode, rows_inserted, rows_deleted FROM dynview.refresh('tx_dt');
SELECT dynview.verify('tx_dt');

-- window with PARTITION BY: affected partitions
SELECT dynview.create_dynamic_table('tx_rank',
  'SELECT id, grp, v, rank() OVER (PARTITION BY grp ORDER BY v DESC) AS rk FROM tx_src', schedule => 'manual');
SELECT effective_mode, mode_reason_code FROM dynview.dynamic_tables WHERE name = 'tx_rank'::regclass;
UPDATE tx_src SET v = 100 WHERE id = 1;
SELECT refresh_mode, rows_inserted, rows_deleted FROM dynview.refresh('tx_rank');
SELECT dynview.verify('tx_rank');
SELECT * FROM tx_rank ORDER BY grp, rk, id;
SELECT dynview.drop_dynamic_table('tx_rank');

-- suspend and resume cascade downstream
SELECT dynview.create_dynamic_table('tx_up', 'SELECT id, v FROM tx_src', schedule => 'manual');
SELECT dynview.create_dynamic_table('tx_down', 'SELECT count(*) AS n FROM tx_up', schedule => 'manual');
SELECT dynview.suspend('tx_up');
SELECT name, scheduling_state, suspend_reason FROM dynview.dynamic_tables
 WHERE name IN ('tx_up'::regclass, 'tx_down'::regclass) ORDER BY name::text;
SELECT dynview.resume('tx_up');
SELECT name, scheduling_state FROM dynview.dynamic_tables
 WHERE name IN ('tx_up'::regclass, 'tx_down'::regclass) ORDER BY name::text;
SELECT dynview.drop_dynamic_table('tx_down');
SELECT dynview.drop_dynamic_table('tx_up');
SELECT dynview.drop_dynamic_table('tx_grp');
SELECT dynview.drop_dynamic_table('tx_dt');
DROP TABLE tx_src;

-- a pipeline refreshed inside a subtransaction (wait_fresh's exception block, a savepoint):
-- the data snapshot includes the subtransaction's own writes, so verify() agrees
CREATE TABLE tx_acc (id int PRIMARY KEY, branch text, balance numeric(12,2));
INSERT INTO tx_acc VALUES (1, 'paris', 100), (3, 'lyon', 70);
SELECT dynview.create_dynamic_table('tx_bal', 'SELECT branch, sum(balance) AS balance FROM tx_acc GROUP BY branch', schedule => 'manual');
SELECT dynview.create_dynamic_table('tx_list', 'SELECT branch, balance FROM tx_bal', schedule => 'manual');
INSERT INTO tx_acc VALUES (4, 'lyon', 10);
SELECT dynview.wait_fresh('tx_list');
SELECT dynview.verify('tx_list') AS list_ok, dynview.verify('tx_bal') AS bal_ok;
INSERT INTO tx_acc VALUES (5, 'paris', 1);
BEGIN;
SAVEPOINT s;
SELECT state FROM dynview.refresh('tx_list');
RELEASE SAVEPOINT s;
COMMIT;
SELECT dynview.verify('tx_list') AS list_ok, dynview.verify('tx_bal') AS bal_ok;
SELECT * FROM tx_list ORDER BY branch;
SELECT dynview.drop_dynamic_table('tx_list');
SELECT dynview.drop_dynamic_table('tx_bal');
DROP TABLE tx_acc;

-- a downstream refreshed before its upstream in one transaction: the upstream's NO_DATA refresh
-- writes nothing the downstream missed, so its next refresh is not forced FULL
CREATE TABLE tx_pv (id int PRIMARY KEY, g int, val int);
INSERT INTO tx_pv VALUES (1, 1, 1);
SELECT dynview.create_dynamic_table('tx_p1', 'SELECT id, g, val FROM tx_pv', schedule => 'manual');
SELECT dynview.create_dynamic_table('tx_p2', 'SELECT g, sum(val) AS s FROM tx_p1 GROUP BY g', schedule => 'manual');
BEGIN;
SELECT refresh_mode FROM dynview.refresh('tx_p2');
SELECT refresh_mode FROM dynview.refresh('tx_p1');
COMMIT;
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('tx_p2');
SELECT dynview.verify('tx_p2');
SELECT dynview.drop_dynamic_table('tx_p2');
SELECT dynview.drop_dynamic_table('tx_p1');
DROP TABLE tx_pv;
