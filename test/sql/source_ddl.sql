-- DDL on a source that change capture cannot see (a column retyped with USING): the next refresh
-- is FULL with SOURCE_ALTERED, the change buffer follows the new type, and refreshes after that
-- are incremental again and right.
SET client_min_messages = warning;
CREATE TABLE sd_src (id int PRIMARY KEY, v int);
INSERT INTO sd_src VALUES (1, 10), (2, 20);
SELECT dynview.create_dynamic_table('sd_dt', 'SELECT id, v * 2 AS w FROM sd_src', schedule => 'manual');
INSERT INTO sd_src VALUES (3, 30);
ALTER TABLE sd_src ALTER COLUMN v TYPE bigint USING v + 1;
INSERT INTO sd_src VALUES (4, 40);
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('sd_dt');
SELECT dynview.verify('sd_dt');
INSERT INTO sd_src VALUES (5, 50);
UPDATE sd_src SET v = v + 100 WHERE id = 1;
SELECT refresh_mode, mode_reason_code, rows_inserted, rows_deleted FROM dynview.refresh('sd_dt');
SELECT dynview.verify('sd_dt');
SELECT * FROM sd_dt ORDER BY id;
-- a dynamic table over a system catalog is refreshed in full (catalogs are not captured)
SELECT dynview.create_dynamic_table('sd_cat', $$SELECT relname FROM pg_class WHERE relname = 'pg_class'$$, schedule => 'manual');
SELECT effective_mode, mode_reason_code FROM dynview.dynamic_tables WHERE name = 'sd_cat'::regclass;
SELECT dynview.drop_dynamic_table('sd_cat');
SELECT dynview.drop_dynamic_table('sd_dt');
DROP TABLE sd_src;
