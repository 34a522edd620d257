-- A source with row level security whose policy applies to a group role; the dynamic table's
-- owner leaves the group (REVOKE) between two refreshes made in the same backend.  The
-- per-backend caches (plancache.c, statements.c) hold the definition rewritten with the policies
-- of the owner's roles: a change of role membership drops them, so the refresh is as in a new
-- connection (found by the seventh session's adversarial tester: it had stayed INCREMENTAL, kept
-- the rows the owner may no longer read and added a new one).  verify() true and no row with
-- v >= 100 in the table after the REVOKE.
SET client_min_messages = warning;
\getenv abs_srcdir PG_ABS_SRCDIR
\set rls_owner brk_rm_owner
\set rls_src brk_rm
\set rls_policy brk_rm_small
\set rls_rows 200
\set rls_mod 5
\set rls_owner_source :abs_srcdir '/sql/include/rls_owner_source.sql'
\i :rls_owner_source
CREATE ROLE brk_rm_grp;
GRANT brk_rm_grp TO brk_rm_owner;
CREATE POLICY brk_rm_all ON brk_rm FOR SELECT TO brk_rm_grp USING (true);
SET ROLE brk_rm_owner;
SELECT dynview.create_dynamic_table('brk_rm_rows', 'SELECT id, k, v FROM brk_rm', schedule => 'manual');
SELECT dynview.create_dynamic_table('brk_rm_sums',
  'SELECT k, count(*) AS n, sum(v) AS total FROM brk_rm GROUP BY k', schedule => 'manual');
RESET ROLE;
SELECT count(*) AS visible_rows FROM brk_rm_rows;
-- two small changes refreshed in this backend (its caches filled)
INSERT INTO brk_rm VALUES (1001, 1, 1001), (1002, 2, 2);
SET ROLE brk_rm_owner;
SELECT refresh_mode FROM dynview.refresh('brk_rm_rows');
SELECT refresh_mode FROM dynview.refresh('brk_rm_sums');
SELECT dynview.verify('brk_rm_rows'), dynview.verify('brk_rm_sums');
RESET ROLE;
INSERT INTO brk_rm VALUES (1003, 3, 1003), (1004, 4, 4);
SET ROLE brk_rm_owner;
SELECT refresh_mode FROM dynview.refresh('brk_rm_rows');
SELECT refresh_mode FROM dynview.refresh('brk_rm_sums');
SELECT dynview.verify('brk_rm_rows'), dynview.verify('brk_rm_sums');
RESET ROLE;
-- the owner leaves the group: it may read only the rows with v < 100 now
REVOKE brk_rm_grp FROM brk_rm_owner;
INSERT INTO brk_rm VALUES (1005, 0, 1005), (1006, 1, 6);
SET ROLE brk_rm_owner;
SELECT refresh_mode IS NOT NULL AS refreshed FROM dynview.refresh('brk_rm_rows');
SELECT refresh_mode IS NOT NULL AS refreshed FROM dynview.refresh('brk_rm_sums');
SELECT dynview.verify('brk_rm_rows'), dynview.verify('brk_rm_sums');
RESET ROLE;
SELECT count(*) AS rows_the_owner_may_not_read FROM brk_rm_rows WHERE v >= 100;
-- cleanup
SELECT dynview.drop_dynamic_table('brk_rm_rows');
SELECT dynview.drop_dynamic_table('brk_rm_sums');
DROP TABLE brk_rm;
REVOKE USAGE ON SCHEMA dynview FROM brk_rm_owner;
REVOKE CREATE ON SCHEMA public FROM brk_rm_owner;
DROP ROLE brk_rm_owner;
DROP ROLE brk_rm_grp;
