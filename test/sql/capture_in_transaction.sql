-- A dynamic table created, dropped and created again in one transaction, over a source that no
-- other dynamic table reads, goes on capturing that source: the changes committed afterwards reach
-- the next refresh (verify() true). Likewise a drop rolled back to its savepoint.
SET client_min_messages = warning;
CREATE TABLE brk_rc (id int PRIMARY KEY, k int, v numeric);
INSERT INTO brk_rc SELECT i, i % 4, i FROM generate_series(1, 40) i;
BEGIN;
SELECT dynview.create_dynamic_table('brk_rc_dt', 'SELECT k, sum(v) AS s FROM brk_rc GROUP BY k', schedule => 'manual');
SELECT dynview.drop_dynamic_table('brk_rc_dt');
SELECT dynview.create_dynamic_table('brk_rc_dt', 'SELECT k, sum(v) AS s, count(*) AS n FROM brk_rc GROUP BY k', schedule => 'manual');
COMMIT;
INSERT INTO brk_rc VALUES (41, 2, 5);
SELECT refresh_mode <> 'NO_DATA' AS refreshed_change FROM dynview.refresh('brk_rc_dt');
SELECT dynview.verify('brk_rc_dt');
SELECT * FROM brk_rc_dt ORDER BY k;
UPDATE brk_rc SET k = 3 WHERE id = 1;
SELECT refresh_mode <> 'NO_DATA' AS refreshed_change FROM dynview.refresh('brk_rc_dt');
SELECT dynview.verify('brk_rc_dt');
SELECT * FROM brk_rc_dt ORDER BY k;
-- a drop rolled back to its savepoint leaves the source captured
BEGIN;
SAVEPOINT s;
SELECT dynview.drop_dynamic_table('brk_rc_dt');
ROLLBACK TO SAVEPOINT s;
COMMIT;
INSERT INTO brk_rc VALUES (42, 0, 7);
SELECT refresh_mode <> 'NO_DATA' AS refreshed_change FROM dynview.refresh('brk_rc_dt');
SELECT dynview.verify('brk_rc_dt');
-- a drop in a savepoint that commits, then the table created again: still captured
BEGIN;
SAVEPOINT s;
SELECT dynview.drop_dynamic_table('brk_rc_dt');
RELEASE SAVEPOINT s;
SELECT dynview.create_dynamic_table('brk_rc_dt', 'SELECT k, sum(v) AS s FROM brk_rc GROUP BY k', schedule => 'manual');
COMMIT;
DELETE FROM brk_rc WHERE id = 2;
SELECT refresh_mode <> 'NO_DATA' AS refreshed_change FROM dynview.refresh('brk_rc_dt');
SELECT dynview.verify('brk_rc_dt');
SELECT * FROM brk_rc_dt ORDER BY k;
SELECT dynview.drop_dynamic_table('brk_rc_dt');
DROP TABLE brk_rc;
