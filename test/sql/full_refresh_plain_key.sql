-- FULL refresh by a key that may be NULL (issue 14): the table's rows and the query's are
-- joined on the key columns themselves when the table's statistics say at most 1% of a key
-- column is NULL (a row with a NULL key then meets no row and is rewritten, exactly), and on
-- the key as one record (two NULLs equal, nothing rewritten) when more are NULL.  The
-- tables are analysed explicitly (ANALYZE reads all their rows: the statistics are exact).
-- Every refresh is checked with verify(), rows by text form as well as by =.
SET client_min_messages = warning;

CREATE TABLE fpk_src (id int PRIMARY KEY, k1 int, k2 int, v numeric);
-- k1 unique with one NULL (1 row of 201); k2 NULL in half of the rows
INSERT INTO fpk_src SELECT i, CASE WHEN i = 201 THEN NULL ELSE i END,
       CASE WHEN i % 2 = 0 THEN NULL ELSE i % 7 END, i * 1.5
  FROM generate_series(1, 201) i;
SELECT dynview.create_dynamic_table('fpk_few', 'SELECT k1, v FROM fpk_src',
                                    schedule => 'manual', refresh_mode => 'full', primary_key => ARRAY['k1']);
SELECT dynview.create_dynamic_table('fpk_many', 'SELECT k1, k2, v FROM fpk_src',
                                    schedule => 'manual', refresh_mode => 'full', primary_key => ARRAY['k2', 'k1']);
-- a downstream of the first: the rewritten row reaches it as -1 and +1
SELECT dynview.create_dynamic_table('fpk_down', 'SELECT count(*) AS n, sum(v) AS total, count(k1) AS keyed FROM fpk_few',
                                    schedule => 'manual');
ANALYZE fpk_few, fpk_many;
SELECT c.relname, a.attname, s.null_frac
  FROM pg_stats s JOIN pg_class c ON c.relname = s.tablename JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = s.attname
 WHERE s.tablename IN ('fpk_few', 'fpk_many') AND s.attname IN ('k1', 'k2') ORDER BY 1, 2;

-- one row changed: fpk_few also rewrites its NULL-key row (-2 +2), fpk_many does not (-1 +1)
UPDATE fpk_src SET v = v + 1 WHERE id = 10;
SELECT n, r.refresh_mode, r.rows_deleted, r.rows_inserted, dynview.verify(n)
  FROM unnest(ARRAY['fpk_few', 'fpk_many']) n, dynview.refresh(n) r ORDER BY n;
SELECT refresh_mode, dynview.verify('fpk_down') FROM dynview.refresh('fpk_down');
SELECT d.n = q.n AND d.total = q.total AND d.keyed = q.keyed AS equal,
       d.total::text = q.total::text AS same_text
  FROM fpk_down d, (SELECT count(*) AS n, sum(v) AS total, count(k1) AS keyed FROM fpk_src) q;

-- the NULL-key row itself changed, and a value equal but not identical (6.00 for 6.0)
UPDATE fpk_src SET v = 0 WHERE k1 IS NULL;
UPDATE fpk_src SET v = 6.00 WHERE id = 4;
SELECT n, r.refresh_mode, r.rows_deleted, r.rows_inserted, dynview.verify(n)
  FROM unnest(ARRAY['fpk_few', 'fpk_many']) n, dynview.refresh(n) r ORDER BY n;
SELECT t.v::text AS table_v, s.v::text AS source_v FROM fpk_few t JOIN fpk_src s ON s.k1 IS NOT DISTINCT FROM t.k1
 WHERE s.id IN (4, 201) ORDER BY s.id;
SELECT refresh_mode, dynview.verify('fpk_down') FROM dynview.refresh('fpk_down');

-- a second row with a NULL key: the unique index refuses the result, the table keeps its rows
INSERT INTO fpk_src VALUES (202, NULL, 1, 1);
SELECT dynview.refresh('fpk_few');
SELECT count(*) AS rows, count(*) FILTER (WHERE k1 IS NULL) AS null_keys FROM fpk_few;
DELETE FROM fpk_src WHERE id = 202;
SELECT n, r.refresh_mode, r.rows_deleted, r.rows_inserted, dynview.verify(n)
  FROM unnest(ARRAY['fpk_few', 'fpk_many']) n, dynview.refresh(n) r ORDER BY n;

SELECT dynview.drop_dynamic_table('fpk_down');
SELECT dynview.drop_dynamic_table('fpk_many');
SELECT dynview.drop_dynamic_table('fpk_few');
DROP TABLE fpk_src;
