-- Tester's finding (s9-brk): a source column's collation changed to a collation of schema public
-- (ALTER TABLE ... ALTER COLUMN t TYPE text COLLATE brk_cr_ci, the type kept).  The refresh
-- follows it by changing the dynamic table's column (refresh.c retype_columns), but writes the
-- collation's name unqualified and runs the ALTER TABLE with search_path pg_catalog, pg_temp:
-- every refresh fails with "cannot change the column types of dynamic table ..." (detail:
-- collation "brk_cr_ci" for encoding "UTF8" does not exist), and the hint speaks of objects
-- depending on the columns, which there are none of.  Fixed: the collation is named with its
-- schema. Correct result: the refreshes succeed,
-- the table's column takes the collation, and verify() is true.
SET client_min_messages = warning;
CREATE COLLATION brk_cr_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE TABLE brk_cr_src (id int PRIMARY KEY, t text, g int NOT NULL);
INSERT INTO brk_cr_src VALUES (1, 'abc', 1), (2, 'x', 2);
SELECT dynview.create_dynamic_table('brk_cr_rows', 'SELECT g, t FROM brk_cr_src', schedule => 'manual') IS NOT NULL AS created;
SELECT dynview.create_dynamic_table('brk_cr_dist', 'SELECT DISTINCT t FROM brk_cr_src', schedule => 'manual') IS NOT NULL AS created;
ALTER TABLE brk_cr_src ALTER COLUMN t TYPE text COLLATE brk_cr_ci;
SELECT refresh_mode IS NOT NULL AS refreshed FROM dynview.refresh('brk_cr_rows');
SELECT refresh_mode IS NOT NULL AS refreshed FROM dynview.refresh('brk_cr_dist');
SELECT attrelid::regclass AS dynamic_table, attcollation::regcollation AS collation
  FROM pg_attribute WHERE attrelid IN ('brk_cr_rows'::regclass, 'brk_cr_dist'::regclass) AND attname = 't'
 ORDER BY 1;
INSERT INTO brk_cr_src VALUES (3, 'ABC', 1);
SELECT refresh_mode IS NOT NULL AS refreshed FROM dynview.refresh('brk_cr_rows');
SELECT refresh_mode IS NOT NULL AS refreshed FROM dynview.refresh('brk_cr_dist');
SELECT dynview.verify('brk_cr_rows') AS verified_rows, dynview.verify('brk_cr_dist') AS verified_dist;
SELECT count(*) AS table_rows FROM brk_cr_rows;
SELECT dynview.drop_dynamic_table(n) FROM unnest(ARRAY['brk_cr_rows', 'brk_cr_dist']) n;
DROP TABLE brk_cr_src;
DROP COLLATION brk_cr_ci;
