-- Tester's finding (s9-brk): a source under row-level security whose policy reads a column the
-- dynamic table's owner has no SELECT on (column-level grants: the owner may read k and grp, the
-- policy reads hidden).  PostgreSQL evaluates a policy without the reader's column privileges, so
-- the query runs for the owner; but dynview's statements name the policy's column: creating a
-- GROUP BY or DISTINCT table fails ("permission denied for table brk_cg_big", the build of its
-- state), and a join table is created but every incremental refresh fails the same way, forever.
-- Fixed: such a table is FULL with reason ROW_LEVEL_SECURITY (a policy column the owner may not
-- select); each is created, each refresh succeeds, and verify() is true (the owner's own query is
-- the reference).
SET client_min_messages = warning;
CREATE ROLE brk_cg_owner;
GRANT USAGE ON SCHEMA dynview TO brk_cg_owner;
GRANT CREATE ON SCHEMA public TO brk_cg_owner;
CREATE TABLE brk_cg_big (k int PRIMARY KEY, hidden bool NOT NULL, grp int NOT NULL);
CREATE TABLE brk_cg_small (id int PRIMARY KEY, k int);
ALTER TABLE brk_cg_big REPLICA IDENTITY FULL;
ALTER TABLE brk_cg_small REPLICA IDENTITY FULL;
INSERT INTO brk_cg_big SELECT k, k % 3 = 0, k % 10 FROM generate_series(1, 100) k;
INSERT INTO brk_cg_small SELECT i, i FROM generate_series(1, 50) i;
GRANT SELECT (k, grp) ON brk_cg_big TO brk_cg_owner;
GRANT SELECT ON brk_cg_small TO brk_cg_owner;
ALTER TABLE brk_cg_big ENABLE ROW LEVEL SECURITY;
CREATE POLICY brk_cg_visible ON brk_cg_big FOR SELECT USING (NOT hidden);
SET ROLE brk_cg_owner;
-- the owner's query runs: the policy needs no privilege on hidden
SELECT count(*) AS visible_rows, count(DISTINCT grp) AS groups FROM brk_cg_big;
SELECT dynview.create_dynamic_table('brk_cg_join', 'SELECT s.id, b.grp FROM brk_cg_small s JOIN brk_cg_big b ON b.k = s.k',
                                    schedule => 'manual') IS NOT NULL AS created;
SELECT dynview.create_dynamic_table('brk_cg_sums', 'SELECT grp, count(*) AS n FROM brk_cg_big GROUP BY grp',
                                    schedule => 'manual') IS NOT NULL AS created;
SELECT dynview.create_dynamic_table('brk_cg_dist', 'SELECT DISTINCT grp FROM brk_cg_big',
                                    schedule => 'manual') IS NOT NULL AS created;
RESET ROLE;
-- changes to both sources, some rows becoming visible or hidden
INSERT INTO brk_cg_small VALUES (51, 51), (52, 1000), (53, NULL);
INSERT INTO brk_cg_big VALUES (1000, false, 11), (1001, true, 12);
UPDATE brk_cg_big SET hidden = NOT hidden WHERE k IN (3, 4, 51);
UPDATE brk_cg_big SET grp = grp + 1 WHERE k IN (5, 6);
SET ROLE brk_cg_owner;
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('brk_cg_join');
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('brk_cg_sums');
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('brk_cg_dist');
SELECT dynview.verify('brk_cg_join') AS verified_join, dynview.verify('brk_cg_sums') AS verified_sums,
       dynview.verify('brk_cg_dist') AS verified_dist;
SELECT (SELECT count(*) FROM brk_cg_join) AS join_rows,
       (SELECT count(*) FROM brk_cg_small s JOIN brk_cg_big b ON b.k = s.k) AS query_join_rows,
       (SELECT sum(n) FROM brk_cg_sums) AS sums_rows, (SELECT count(*) FROM brk_cg_big) AS query_sums_rows,
       (SELECT count(*) FROM brk_cg_dist) AS dist_rows, (SELECT count(DISTINCT grp) FROM brk_cg_big) AS query_dist_rows;
-- a second round: the same tables refresh again
RESET ROLE;
DELETE FROM brk_cg_small WHERE id IN (1, 2);
UPDATE brk_cg_big SET hidden = true WHERE k = 7;
SET ROLE brk_cg_owner;
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('brk_cg_join');
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('brk_cg_sums');
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('brk_cg_dist');
SELECT dynview.verify('brk_cg_join') AS verified_join, dynview.verify('brk_cg_sums') AS verified_sums,
       dynview.verify('brk_cg_dist') AS verified_dist;
SELECT dynview.drop_dynamic_table(n, if_exists => true) FROM unnest(ARRAY['brk_cg_join', 'brk_cg_sums', 'brk_cg_dist']) n;
RESET ROLE;
DROP TABLE brk_cg_big, brk_cg_small;
REVOKE USAGE ON SCHEMA dynview FROM brk_cg_owner;
REVOKE CREATE ON SCHEMA public FROM brk_cg_owner;
DROP ROLE brk_cg_owner;
