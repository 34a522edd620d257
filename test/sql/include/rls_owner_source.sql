-- rls_owner_source.sql: a role that may create dynamic tables in public and a source it reads
-- through a row-level security policy, for the tests of policies applied to a dynamic table's
-- owner (row_security_off, rls_role_membership).  Set before \i:
--   rls_owner   the role made (USAGE on schema dynview, CREATE on schema public)
--   rls_src     the source made: (id int PRIMARY KEY, k int NOT NULL, v int NOT NULL), rows
--               id = 1 .. :rls_rows with k = id % :rls_mod and v = id, readable by the role
--   rls_policy  the policy made on it: the role may read the rows with v < 100
-- Row-level security is enabled on the source (not forced).  The test drops them at its end.
CREATE ROLE :"rls_owner";
GRANT USAGE ON SCHEMA dynview TO :"rls_owner";
GRANT CREATE ON SCHEMA public TO :"rls_owner";
CREATE TABLE :"rls_src" (id int PRIMARY KEY, k int NOT NULL, v int NOT NULL);
INSERT INTO :"rls_src" SELECT i, i % :rls_mod, i FROM generate_series(1, :rls_rows) i;
GRANT SELECT ON :"rls_src" TO :"rls_owner";
ALTER TABLE :"rls_src" ENABLE ROW LEVEL SECURITY;
CREATE POLICY :"rls_policy" ON :"rls_src" FOR SELECT TO :"rls_owner" USING (v < 100);
