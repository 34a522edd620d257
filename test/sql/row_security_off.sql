-- A refresh or verify() with row_security off, of a dynamic table whose owner reads a source
-- through row-level security policies (fifteenth session's note: it failed with PostgreSQL's
-- message, which names the source only and, for a role that does not own it, has no hint).
-- Correct result: 42501 naming the dynamic table, its source and owner, with a hint (run it with
-- row_security on, or exempt the owner); the table keeps its data, and the refresh with
-- row_security on is exact (verify() true, rows compared by text and by =).  An owner to whom no
-- policy applies (it owns the source, without FORCE) refreshes with row_security off as before.
SET client_min_messages = warning;
\getenv abs_srcdir PG_ABS_SRCDIR
\set rls_owner rso_owner
\set rls_src rso_src
\set rls_policy rso_small
\set rls_rows 20
\set rls_mod 3
\set rls_owner_source :abs_srcdir '/sql/include/rls_owner_source.sql'
\i :rls_owner_source
ALTER TABLE rso_src REPLICA IDENTITY FULL;
SET ROLE rso_owner;
-- the owner's own source, no FORCE: no policy applies to its owner
CREATE TABLE rso_mine (id int PRIMARY KEY, v int NOT NULL);
INSERT INTO rso_mine SELECT i, i FROM generate_series(1, 10) i;
ALTER TABLE rso_mine ENABLE ROW LEVEL SECURITY;
CREATE POLICY rso_none ON rso_mine USING (false);
ALTER TABLE rso_mine REPLICA IDENTITY FULL;
CREATE TABLE rso_defs (name text, query text);
INSERT INTO rso_defs VALUES ('rso_rows', 'SELECT id, k, v FROM rso_src'),
  ('rso_sums', 'SELECT k, count(*) AS n, sum(v) AS total FROM rso_src GROUP BY k'),
  ('rso_own', 'SELECT id, v FROM rso_mine');
SELECT format('SELECT dynview.create_dynamic_table(%L, %L, schedule => ''manual'') IS NOT NULL AS created',
              name, query) FROM rso_defs ORDER BY name \gexec
RESET ROLE;
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round
INSERT INTO rso_src VALUES (21, 0, 21), (22, 1, 200);
DELETE FROM rso_src WHERE id = 3;
INSERT INTO rso_mine VALUES (11, 11);
SET ROLE rso_owner;
SET row_security = off;
-- the tables read through policies: the error, its detail and hint
\set VERBOSITY default
SELECT refresh_mode FROM dynview.refresh('rso_rows');
SELECT refresh_mode FROM dynview.refresh('rso_sums');
SELECT dynview.verify('rso_rows');
-- the owner's own source: refreshed
SELECT refresh_mode FROM dynview.refresh('rso_own');
SELECT dynview.verify('rso_own');
-- FORCE: the policy applies to the source's owner too
ALTER TABLE rso_mine FORCE ROW LEVEL SECURITY;
SELECT refresh_mode FROM dynview.refresh('rso_own');
ALTER TABLE rso_mine NO FORCE ROW LEVEL SECURITY;
-- the tables kept their data (the rows of the last refresh)
SELECT count(*) AS kept FROM rso_rows;
-- row_security on: refreshed and compared as the owner (the query read through its policy)
RESET row_security;
SELECT name, refresh_mode, verified, same_text, same_rows FROM dv_refresh_round('rso_defs');
SELECT count(*) AS rows_read, count(*) FILTER (WHERE v >= 100) AS rows_the_policy_hides FROM rso_rows;
RESET ROLE;

SELECT dynview.drop_dynamic_table(name) FROM rso_defs ORDER BY name;
DROP FUNCTION dv_refresh_round(regclass);
DROP TABLE rso_defs, rso_src, rso_mine;
REVOKE USAGE ON SCHEMA dynview FROM rso_owner;
REVOKE CREATE ON SCHEMA public FROM rso_owner;
DROP ROLE rso_owner;
