-- Bulk fills written in batches (dv_bulk_receiver, thirteenth session, issue 14): the initial
-- build of a dynamic table, its aggregate state, the multiplicities of a count(DISTINCT) and
-- the state rows their writer counts are written by table_multi_insert, at most 1,000 rows or
-- 64 kB a batch, the last batch at the end of the fill. Rows that span several batches and
-- end mid-batch, rows too wide for one batch (TOASTed values), NULLs; each table compared with
-- its query by text form and by = (verify()) after the build, after an incremental round and
-- after a FULL rebuild, and the multiplicities with the source's counts.
SET client_min_messages = warning;
-- (the multiplicities one row per group and value, as this test reads them: distinct_arrays tests one row per group)
SET dynview.distinct_values_per_row = 0;
CREATE SCHEMA bf;
SET search_path = bf, public;
\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_rows :abs_srcdir '/sql/include/refresh_rows.sql'
\i :refresh_rows

-- 2,501 rows: two full batches of 1,000 and a last one of 501 for narrow rows; every 97th row
-- has a 200 kB value (TOASTed, compressed) and every 13th a NULL x
CREATE TABLE src (id int PRIMARY KEY, g int, x int, t text);
INSERT INTO src SELECT i, i % 37, CASE WHEN i % 13 = 0 THEN NULL ELSE i % 211 END,
                       CASE WHEN i % 97 = 0 THEN repeat(md5(i::text), 6400) ELSE 't' || i END
  FROM generate_series(1, 2501) i;

CREATE TABLE defs (name text);
-- the rows as they are (the table's first build)
SELECT dynview.create_dynamic_table('bf.rows', 'SELECT id, g, x, t FROM bf.src', schedule => 'manual');
-- one count(DISTINCT) and count(*): multiplicities and their state rows, by the counting writer
SELECT dynview.create_dynamic_table('bf.dist',
  'SELECT g, count(DISTINCT x) AS dx, count(*) AS n FROM bf.src GROUP BY g', schedule => 'manual');
-- the aggregate state's own fill (sum and count in place)
SELECT dynview.create_dynamic_table('bf.sums',
  'SELECT g, sum(x) AS s, count(x) AS c, max(length(t)) AS w FROM bf.src GROUP BY g', schedule => 'manual');
INSERT INTO defs VALUES ('rows'), ('dist'), ('sums');

SELECT name, effective_mode FROM dynview.dynamic_tables WHERE name::text IN (SELECT d.name FROM defs d) ORDER BY 1;
SELECT d.name, dynview.verify(d.name) FROM defs d ORDER BY 1;
-- the built rows by text form against the query's
SELECT count(*) AS rows, count(*) FILTER (WHERE r::text = s::text) AS same_text
  FROM bf.rows r FULL JOIN bf.src s USING (id);

-- the multiplicities of bf.dist against the source's counts per (g, x), by text form
CREATE FUNCTION mult_ok(t text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  dist text;
  ok boolean;
BEGIN
  SELECT format('dynview_state.%I', c.relname) INTO dist FROM pg_class c
   WHERE c.relnamespace = 'dynview_state'::regnamespace AND c.relkind = 'r'
     AND c.relname LIKE 'dist\_' || t::regclass::oid || '\_%';
  IF dist IS NULL THEN
    RETURN true;
  END IF;
  EXECUTE format('SELECT count(*) = 0 FROM ((SELECT g1::text, v::text, dv_mult::text FROM %s
                    EXCEPT ALL SELECT g::text, x::text, count(*)::text FROM bf.src WHERE x IS NOT NULL GROUP BY g, x)
                   UNION ALL (SELECT g::text, x::text, count(*)::text FROM bf.src WHERE x IS NOT NULL GROUP BY g, x
                    EXCEPT ALL SELECT g1::text, v::text, dv_mult::text FROM %s)) d', dist, dist) INTO ok;
  RETURN ok;
END $$;
SELECT mult_ok('dist');

-- an incremental round: values appear and vanish, wide values change, rows go and come
UPDATE src SET x = x + 1 WHERE id % 50 = 0;
UPDATE src SET t = repeat(md5('n' || id), 7000) WHERE id % 301 = 0;
DELETE FROM src WHERE g = 7 AND id > 2400;
INSERT INTO src SELECT i, i % 41, i % 223, 'n' || i FROM generate_series(3001, 3040) i;
SELECT name, mode, reason, verified, rows, state_ok FROM dv_refresh_rows('defs', 'mult_ok');
SELECT count(*) AS rows, count(*) FILTER (WHERE r::text = s::text) AS same_text
  FROM bf.rows r FULL JOIN bf.src s USING (id);

-- a FULL rebuild (the source truncated and refilled) fills the states again the same way
TRUNCATE src;
INSERT INTO src SELECT i, i % 29, CASE WHEN i % 17 = 0 THEN NULL ELSE i % 199 END,
                       CASE WHEN i % 89 = 0 THEN repeat(md5(i::text), 6400) ELSE 'f' || i END
  FROM generate_series(1, 2750) i;
SELECT name, mode, reason, verified, rows, state_ok FROM dv_refresh_rows('defs', 'mult_ok');
SELECT count(*) AS rows, count(*) FILTER (WHERE r::text = s::text) AS same_text
  FROM bf.rows r FULL JOIN bf.src s USING (id);

DROP SCHEMA bf CASCADE;
