-- Tester's finding (s37): the direct apply sorts its rows by the key index's order before it
-- writes them (apply.c sorted_rows; its updates' pairs too), and dv_apply_diff sorts and matches
-- the old and new rows of a restricted recompute by key.  Those comparisons call the key type's
-- B-tree support function, which a superuser may write in PL/pgSQL; they ran outside the guard
-- that the writes' own index lookups run under.  A comparison that started a refresh of the table
-- being refreshed did so: the nested refresh inserted the rows, and the outer one then failed with
-- 23505.  So did the window read (its consolidation groups the change rows with the type's
-- comparisons where it cannot hash them), which ran outside the guard too: case (3).  (The apply
-- now sorts only keys passed by value, whose comparisons are C; this composite key's first
-- comparisons in cases (1) and (2) are its index entries' and lookups', under the guard too.)
-- Correct result: refused as anything a refresh's writes run ("cannot refresh dynamic table ...
-- during a refresh"; "cannot modify ... during a refresh" for a source written), the refresh
-- rolled back, the table unchanged; with the comparison quiet again, the refresh applies and the
-- table matches its query (dv_refresh_round: verify(), the rows by text and by =).
SET client_min_messages = warning;
CREATE TYPE bsg_k AS (x int);
CREATE TABLE bsg_side (mode text, done bool);
INSERT INTO bsg_side VALUES ('none', false);
CREATE TABLE bsg_src (k bsg_k PRIMARY KEY, v text);
-- the comparison: once per refresh when asked, it refreshes bsg_rows or writes bsg_src
CREATE FUNCTION bsg_cmp(a bsg_k, b bsg_k) RETURNS int LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  m text;
  d bool;
BEGIN
  SELECT mode, done INTO m, d FROM public.bsg_side;
  IF NOT d AND m = 'refresh' THEN
    UPDATE public.bsg_side SET done = true;
    PERFORM dynview.refresh('public.bsg_rows');
  ELSIF NOT d AND m = 'write' THEN
    UPDATE public.bsg_side SET done = true;
    INSERT INTO public.bsg_src VALUES (ROW(-1)::public.bsg_k, 'written');
  END IF;
  RETURN pg_catalog.btint4cmp(a.x, b.x);
END $$;
CREATE FUNCTION bsg_lt(bsg_k, bsg_k) RETURNS bool LANGUAGE sql IMMUTABLE AS 'SELECT public.bsg_cmp($1, $2) < 0';
CREATE FUNCTION bsg_le(bsg_k, bsg_k) RETURNS bool LANGUAGE sql IMMUTABLE AS 'SELECT public.bsg_cmp($1, $2) <= 0';
-- (equality and hashing quiet: the window read's consolidation hashes the rows, so the first
-- comparison is the apply's)
CREATE FUNCTION bsg_eq(bsg_k, bsg_k) RETURNS bool LANGUAGE sql IMMUTABLE AS 'SELECT ($1).x = ($2).x';
CREATE FUNCTION bsg_hash(bsg_k) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT pg_catalog.hashint4(($1).x)';
CREATE FUNCTION bsg_ge(bsg_k, bsg_k) RETURNS bool LANGUAGE sql IMMUTABLE AS 'SELECT public.bsg_cmp($1, $2) >= 0';
CREATE FUNCTION bsg_gt(bsg_k, bsg_k) RETURNS bool LANGUAGE sql IMMUTABLE AS 'SELECT public.bsg_cmp($1, $2) > 0';
CREATE OPERATOR public.< (leftarg = bsg_k, rightarg = bsg_k, function = bsg_lt);
CREATE OPERATOR public.<= (leftarg = bsg_k, rightarg = bsg_k, function = bsg_le);
CREATE OPERATOR public.= (leftarg = bsg_k, rightarg = bsg_k, function = bsg_eq, HASHES);
CREATE OPERATOR public.>= (leftarg = bsg_k, rightarg = bsg_k, function = bsg_ge);
CREATE OPERATOR public.> (leftarg = bsg_k, rightarg = bsg_k, function = bsg_gt);
CREATE OPERATOR CLASS bsg_k_ops DEFAULT FOR TYPE bsg_k USING btree AS
  OPERATOR 1 public.<, OPERATOR 2 public.<=, OPERATOR 3 public.=, OPERATOR 4 public.>=,
  OPERATOR 5 public.>, FUNCTION 1 bsg_cmp(bsg_k, bsg_k);
CREATE OPERATOR CLASS bsg_k_hash_ops DEFAULT FOR TYPE bsg_k USING hash AS
  OPERATOR 1 public.=, FUNCTION 1 bsg_hash(bsg_k);
INSERT INTO bsg_src SELECT ROW(i)::bsg_k, 'v' || i FROM generate_series(1, 10) i;
CREATE TABLE bsg_defs (name text PRIMARY KEY, query text NOT NULL);
INSERT INTO bsg_defs VALUES ('bsg_rows', 'SELECT k, v FROM bsg_src');
SELECT dynview.create_dynamic_table('bsg_rows', 'SELECT k, v FROM bsg_src', schedule => 'manual',
                                    refresh_mode => 'incremental', primary_key => '{k}');
RESET client_min_messages;

\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round
CREATE TABLE bsg_before AS SELECT k::text AS k, v FROM bsg_rows;
CREATE FUNCTION bsg_unchanged() RETURNS bigint LANGUAGE sql AS $$
  SELECT count(*) FROM ((SELECT k::text, v FROM bsg_rows EXCEPT ALL TABLE bsg_before)
                        UNION ALL (TABLE bsg_before EXCEPT ALL SELECT k::text, v FROM bsg_rows)) x $$;

-- (1) inserts (sorted before they are written), the comparison refreshing the table: refused
INSERT INTO bsg_src SELECT ROW(i)::bsg_k, 'v' || i FROM generate_series(11, 30) i;
SELECT dynview.wait_for_capture();
UPDATE bsg_side SET mode = 'refresh', done = false;
SELECT refresh_mode FROM dynview.refresh('bsg_rows');
\echo :LAST_ERROR_SQLSTATE
SELECT bsg_unchanged() AS differing;
-- (the comparison writing the source instead: refused too)
UPDATE bsg_side SET mode = 'write', done = false;
SELECT refresh_mode FROM dynview.refresh('bsg_rows');
\echo :LAST_ERROR_SQLSTATE
SELECT bsg_unchanged() AS differing, count(*) FILTER (WHERE v = 'written') AS written FROM bsg_src;
-- (quiet again: applied)
UPDATE bsg_side SET mode = 'none';
SELECT * FROM dv_refresh_round('bsg_defs');

-- (2) updates in place and deletes (their rows sorted too)
TRUNCATE bsg_before;
INSERT INTO bsg_before SELECT k::text, v FROM bsg_rows;
UPDATE bsg_src SET v = v || 'u' WHERE (k).x % 3 = 0;
DELETE FROM bsg_src WHERE (k).x % 5 = 0;
SELECT dynview.wait_for_capture();
UPDATE bsg_side SET mode = 'refresh', done = false;
SELECT refresh_mode FROM dynview.refresh('bsg_rows');
\echo :LAST_ERROR_SQLSTATE
SELECT bsg_unchanged() AS differing;
UPDATE bsg_side SET mode = 'none';
SELECT * FROM dv_refresh_round('bsg_defs');

-- (3) the window read: without a hash operator class its consolidation sorts the change rows,
-- with the comparison, which is now the first to run
SET client_min_messages = warning;
DROP OPERATOR FAMILY bsg_k_hash_ops USING hash;
RESET client_min_messages;
TRUNCATE bsg_before;
INSERT INTO bsg_before SELECT k::text, v FROM bsg_rows;
INSERT INTO bsg_src SELECT ROW(i)::bsg_k, 'w' || i FROM generate_series(31, 40) i;
SELECT dynview.wait_for_capture();
-- (the errors' context would name the change buffer, whose name holds an OID)
\set SHOW_CONTEXT never
UPDATE bsg_side SET mode = 'refresh', done = false;
SELECT refresh_mode FROM dynview.refresh('bsg_rows');
\echo :LAST_ERROR_SQLSTATE
SELECT bsg_unchanged() AS differing;
UPDATE bsg_side SET mode = 'write', done = false;
SELECT refresh_mode FROM dynview.refresh('bsg_rows');
\echo :LAST_ERROR_SQLSTATE
\set SHOW_CONTEXT errors
SELECT bsg_unchanged() AS differing, count(*) FILTER (WHERE v = 'written') AS written FROM bsg_src;
UPDATE bsg_side SET mode = 'none';
SELECT * FROM dv_refresh_round('bsg_defs');

SET client_min_messages = warning;
SELECT dynview.drop_dynamic_table('bsg_rows');
DROP TABLE bsg_defs, bsg_src, bsg_side, bsg_before;
DROP FUNCTION bsg_unchanged(), dv_refresh_round(regclass);
DROP OPERATOR FAMILY bsg_k_ops USING btree;
DROP TYPE bsg_k CASCADE;
