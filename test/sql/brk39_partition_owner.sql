-- Finding (s39, while mending a tester's report that a partition owned by another role blocked a
-- column retype): a partition of a partitioned dynamic table was made by whoever refreshed a new
-- value, and owned by that role; a partition runs its parent's query as its own owner.  A
-- superuser's refresh of a new value (a pg_cron job run as postgres, the documented daily batch)
-- made a partition that ran the parent owner's functions as the superuser, at every later refresh
-- by anyone.  Correct result: a new partition is made as its parent's owner, whoever refreshes (a
-- superuser, a member of the owning role); a partition owned by another role is not refreshed
-- (42501, with the ALTER TABLE ... OWNER TO that mends it), and a source column's retype, which
-- alters every partition as the parent's owner, names such a partition the same way; mended, every
-- partition refreshes and matches its query (verify(), the rows by text form and by =).
SET client_min_messages = warning;
CREATE ROLE regress_bpo_owner;
CREATE ROLE regress_bpo_member IN ROLE regress_bpo_owner;
GRANT CREATE ON SCHEMA public TO regress_bpo_owner;
SET ROLE regress_bpo_owner;
CREATE TABLE public.bpo_src (id int PRIMARY KEY, v int, b text);
INSERT INTO public.bpo_src SELECT i, i * 10, CASE WHEN i % 2 = 0 THEN 'x' ELSE 'y' END FROM generate_series(1, 6) i;
-- the role that runs the query, as a column
CREATE FUNCTION public.bpo_who(int) RETURNS text LANGUAGE sql STABLE AS 'SELECT current_user::text';
SELECT dynview.create_partitioned_dynamic_table('public.bpo_part',
  'SELECT id, v, public.bpo_who(id) AS who, dynview.partition() AS pt FROM public.bpo_src WHERE b = dynview.partition()',
  partition_by => 'pt', primary_key => '{id}');
RESET ROLE;
-- a superuser makes x, a member of the owning role makes y: both are the owner's, and so is who
SELECT refresh_mode FROM dynview.refresh('public.bpo_part', partition => 'x');
SET ROLE regress_bpo_member;
SELECT refresh_mode FROM dynview.refresh('public.bpo_part', partition => 'y');
RESET ROLE;
RESET client_min_messages;
SELECT c.relname, pg_get_userbyid(c.relowner) AS owner FROM pg_class c
 WHERE c.relname LIKE 'bpo_part%' AND c.relkind IN ('r', 'p') ORDER BY 1;
SELECT pt, who, count(*) FROM bpo_part GROUP BY pt, who ORDER BY pt;

-- another owner for y: its refresh is refused, nothing changes
ALTER TABLE bpo_part_y OWNER TO regress_bpo_member;
INSERT INTO bpo_src VALUES (7, 70, 'y');
SELECT dynview.wait_for_capture();
\set VERBOSITY default
\set SHOW_CONTEXT never
SELECT refresh_mode FROM dynview.refresh('public.bpo_part', partition => 'y');
-- verify() runs the query as the partition's owner too: refused the same way
SELECT dynview.verify('bpo_part_y');
-- a source column retyped: the refresh of x would alter y too, and names it
ALTER TABLE bpo_src ALTER COLUMN v TYPE bigint;
SELECT dynview.wait_for_capture();
SELECT refresh_mode FROM dynview.refresh('public.bpo_part', partition => 'x');
\set VERBOSITY terse
SELECT pt, count(*), pg_typeof(min(v)) FROM bpo_part GROUP BY pt ORDER BY pt;

-- mended as the hint says
ALTER TABLE bpo_part_y OWNER TO regress_bpo_owner;
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('public.bpo_part', partition => 'x');
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('public.bpo_part', partition => 'y');
SELECT dynview.verify('bpo_part_x') AS x_verified, dynview.verify('bpo_part_y') AS y_verified;
SELECT pt, who, count(*), pg_typeof(min(v)) FROM bpo_part GROUP BY pt, who ORDER BY pt;
SET ROLE regress_bpo_owner;
SELECT count(*) AS differing FROM (
  (SELECT t::text FROM bpo_part t EXCEPT ALL
   SELECT q::text FROM (SELECT id, v, public.bpo_who(id) AS who, b AS pt FROM bpo_src) q)
  UNION ALL
  (SELECT q::text FROM (SELECT id, v, public.bpo_who(id) AS who, b AS pt FROM bpo_src) q EXCEPT ALL
   SELECT t::text FROM bpo_part t)) x;
SELECT count(*) AS differing_by_equality FROM (
  (SELECT id, v, who, pt FROM bpo_part EXCEPT ALL SELECT id, v, public.bpo_who(id), b FROM bpo_src)
  UNION ALL
  (SELECT id, v, public.bpo_who(id), b FROM bpo_src EXCEPT ALL SELECT id, v, who, pt FROM bpo_part)) x;
RESET ROLE;

-- an aged partition owned by another role, which the owner may not drop: the retention keeps it
-- with a WARNING, and the ALTER (or a refresh) goes on
ALTER TABLE bpo_part_y OWNER TO regress_bpo_member;
UPDATE dynview.dynamic_table_catalog SET data_timestamp = data_timestamp - interval '11 days'
 WHERE relid = 'bpo_part_y'::regclass;
SET ROLE regress_bpo_owner;
\set VERBOSITY default
ALTER MATERIALIZED VIEW bpo_part SET (dynview.retention = 10);
\set VERBOSITY terse
RESET ROLE;
-- (not listed afterwards: the scheduler's own look, as a superuser, may drop it once the ALTER is
-- committed)

SET client_min_messages = warning;
DROP TABLE bpo_part;
DROP TABLE bpo_src;
DROP FUNCTION bpo_who(int);
REVOKE CREATE ON SCHEMA public FROM regress_bpo_owner;
DROP ROLE regress_bpo_member;
DROP ROLE regress_bpo_owner;
