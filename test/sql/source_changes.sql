-- Changes of a source that change capture does not see as rows (issue 12):
-- column types widened, replica identity, large windows, long names.
SET client_min_messages = warning;

-- 1. Source column types widened: the dynamic table's columns take the query's new types with the
-- FULL refresh that the altered source causes (nothing truncated, no overflow), for a plain table,
-- a grouped one with aggregate state, and a downstream dynamic table reading the first.
CREATE TABLE sc_items (id int PRIMARY KEY, code varchar(4), price numeric(5,2), qty smallint, grp int);
INSERT INTO sc_items VALUES (1, 'AB', 12.50, 3, 1), (2, 'CDEF', 999.99, 1, 1), (3, 'G', 1.00, 2, 2);
SELECT dynview.create_dynamic_table('sc_lines',
  'SELECT id, code, price, qty, price * qty AS line_value, grp FROM sc_items', schedule => 'manual');
SELECT dynview.create_dynamic_table('sc_groups',
  'SELECT grp, sum(qty) AS qty, sum(price) AS price, count(*) AS n FROM sc_items GROUP BY grp', schedule => 'manual');
SELECT dynview.create_dynamic_table('sc_codes',
  'SELECT code, count(*) AS n FROM sc_lines GROUP BY code', schedule => 'manual');
ALTER TABLE sc_items ALTER COLUMN code TYPE varchar(12);
ALTER TABLE sc_items ALTER COLUMN price TYPE numeric(9,2);
ALTER TABLE sc_items ALTER COLUMN qty TYPE bigint;
INSERT INTO sc_items VALUES (4, 'ABCDEFGHIJ', 12345.67, 70000, 2);
UPDATE sc_items SET code = 'CDEF-LONGER' WHERE id = 2;
SELECT refresh_mode, mode_reason_code, mode_reason FROM dynview.refresh('sc_codes');
SELECT dynview.verify('sc_lines'), dynview.verify('sc_codes');
SELECT refresh_mode, mode_reason_code, mode_reason FROM dynview.refresh('sc_groups');
SELECT dynview.verify('sc_groups');
SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod)
FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
WHERE c.relname IN ('sc_lines', 'sc_groups', 'sc_codes') AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY c.relname, a.attnum;
SELECT * FROM sc_lines ORDER BY id;
SELECT * FROM sc_groups ORDER BY grp;
SELECT * FROM sc_codes ORDER BY code;
-- later changes are incremental again and right
UPDATE sc_items SET qty = qty + 1, code = 'Z' WHERE id = 4;
DELETE FROM sc_items WHERE id = 1;
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('sc_codes');
SELECT dynview.verify('sc_lines'), dynview.verify('sc_codes');
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('sc_groups');
SELECT dynview.verify('sc_groups');
-- a view on the dynamic table holds its column type: the refresh fails with what to do, the
-- table keeps its data; without the view it goes through
CREATE VIEW sc_lines_view AS SELECT id, code FROM sc_lines;
ALTER TABLE sc_items ALTER COLUMN code TYPE text;
SELECT refresh_mode FROM dynview.refresh('sc_lines');
SELECT count(*) FROM sc_lines;
DROP VIEW sc_lines_view;
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('sc_codes');
SELECT dynview.verify('sc_lines'), dynview.verify('sc_codes');
SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'sc_lines'::regclass AND attname = 'code';
SELECT dynview.drop_dynamic_table('sc_codes');
SELECT dynview.drop_dynamic_table('sc_groups');
SELECT dynview.drop_dynamic_table('sc_lines');
DROP TABLE sc_items;

-- 2. Replica identity.  A source whose replica identity is not FULL logs old rows with their key
-- only: a window with an update or delete of it is FULL (REPLICA_IDENTITY_NOT_FULL), a window of
-- inserts stays incremental.
CREATE TABLE sc_ri (id int PRIMARY KEY, grp text, v int);
INSERT INTO sc_ri SELECT i, 'g' || (i % 3), i FROM generate_series(1, 9) i;
SELECT dynview.create_dynamic_table('sc_ri_sums',
  'SELECT grp, count(*) AS n, sum(v) AS total FROM sc_ri GROUP BY grp', schedule => 'manual');
SELECT dynview.create_dynamic_table('sc_ri_rows', 'SELECT id, grp, v FROM sc_ri WHERE v > 2', schedule => 'manual');
SELECT relreplident FROM pg_class WHERE oid = 'sc_ri'::regclass;
-- the owner sets it back to DEFAULT: old rows are logged with their key only
ALTER TABLE sc_ri REPLICA IDENTITY DEFAULT;
DELETE FROM sc_ri WHERE id IN (1, 5);
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('sc_ri_sums');
SELECT dynview.verify('sc_ri_sums');
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('sc_ri_rows');
SELECT dynview.verify('sc_ri_rows');
UPDATE sc_ri SET v = v + 10 WHERE id = 4;
UPDATE sc_ri SET id = 40 WHERE id = 4;
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('sc_ri_sums');
SELECT dynview.verify('sc_ri_sums');
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('sc_ri_rows');
SELECT dynview.verify('sc_ri_rows');
-- a window of inserts only needs no old rows
INSERT INTO sc_ri VALUES (10, 'g1', 10), (11, 'g2', 11);
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('sc_ri_sums');
SELECT dynview.verify('sc_ri_sums');
-- FULL again: incremental again
ALTER TABLE sc_ri REPLICA IDENTITY FULL;
DELETE FROM sc_ri WHERE id = 2;
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('sc_ri_sums');
SELECT dynview.verify('sc_ri_sums');
-- DEFAULT while rows were deleted, FULL again before the refresh: the decoder logged those deletes
-- as markers of a change without its old row (the identity of the moment of the change counts),
-- so the refresh is FULL, and says why (REPLICA_IDENTITY_NOT_FULL, not SOURCE_TRUNCATED)
ALTER TABLE sc_ri REPLICA IDENTITY DEFAULT;
DELETE FROM sc_ri WHERE id = 3;
ALTER TABLE sc_ri REPLICA IDENTITY FULL;
SELECT refresh_mode, mode_reason_code, mode_reason FROM dynview.refresh('sc_ri_sums');
SELECT dynview.verify('sc_ri_sums');
-- an update alike, read by the table of rows
ALTER TABLE sc_ri REPLICA IDENTITY DEFAULT;
UPDATE sc_ri SET v = v + 1 WHERE id = 6;
ALTER TABLE sc_ri REPLICA IDENTITY FULL;
SELECT refresh_mode, mode_reason_code, mode_reason FROM dynview.refresh('sc_ri_rows');
SELECT dynview.verify('sc_ri_rows');
-- such a change and a TRUNCATE in one window: the TRUNCATE is named
ALTER TABLE sc_ri REPLICA IDENTITY DEFAULT;
DELETE FROM sc_ri WHERE id = 7;
ALTER TABLE sc_ri REPLICA IDENTITY FULL;
BEGIN;
CREATE TEMP TABLE sc_ri_keep AS SELECT * FROM sc_ri;
TRUNCATE sc_ri;
INSERT INTO sc_ri SELECT * FROM sc_ri_keep;
DROP TABLE sc_ri_keep;
COMMIT;
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('sc_ri_sums');
SELECT dynview.verify('sc_ri_sums');
SELECT * FROM sc_ri_sums ORDER BY grp;
SELECT dynview.drop_dynamic_table('sc_ri_rows');
SELECT dynview.drop_dynamic_table('sc_ri_sums');
DROP TABLE sc_ri;

-- 3. Large windows: more than 1,000 rows to delete take the hash-join path (duplicates included:
-- a table without a key holds equal rows, and exactly as many are deleted as the change removes);
-- an AUTO table whose window exceeds dynview.full_refresh_change_ratio of its sources' rows is
-- recomputed (CHANGE_VOLUME), a small window of it stays incremental.
CREATE TABLE sc_big (id int PRIMARY KEY, grp int NOT NULL, v int NOT NULL);
INSERT INTO sc_big SELECT i, i % 50, i FROM generate_series(1, 3000) i;
CREATE TABLE sc_dup (g int, v int);
INSERT INTO sc_dup SELECT i % 700, i % 3 FROM generate_series(1, 4000) i;
ANALYZE sc_big, sc_dup;
SELECT dynview.create_dynamic_table('sc_big_rows', 'SELECT id, grp, v FROM sc_big WHERE v % 7 <> 0',
  schedule => 'manual', refresh_mode => 'incremental');
SELECT dynview.create_dynamic_table('sc_dup_rows', 'SELECT g, v FROM sc_dup WHERE v < 2',
  schedule => 'manual', refresh_mode => 'incremental');
SELECT dynview.create_dynamic_table('sc_big_auto', 'SELECT id, grp, v FROM sc_big WHERE v % 7 <> 0',
  schedule => 'manual');
UPDATE sc_big SET v = v + 1 WHERE id <= 2500;
DELETE FROM sc_dup WHERE ctid IN (SELECT ctid FROM sc_dup WHERE g < 400 ORDER BY ctid LIMIT 1800);
UPDATE sc_dup SET g = g + 1000 WHERE g BETWEEN 600 AND 650;
SET dynview.full_refresh_change_ratio = 0.5;
SELECT refresh_mode, mode_reason_code, rows_deleted > 1000 AS many FROM dynview.refresh('sc_big_rows');
SELECT dynview.verify('sc_big_rows');
SELECT refresh_mode, mode_reason_code, rows_deleted > 1000 AS many FROM dynview.refresh('sc_dup_rows');
SELECT dynview.verify('sc_dup_rows');
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('sc_big_auto');
SELECT dynview.verify('sc_big_auto');
UPDATE sc_big SET v = v + 1 WHERE id <= 20;
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('sc_big_auto');
SELECT dynview.verify('sc_big_auto');
-- 0 turns the rule off
SET dynview.full_refresh_change_ratio = 0;
UPDATE sc_big SET v = v + 1 WHERE id <= 2500;
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('sc_big_auto');
SELECT dynview.verify('sc_big_auto');
RESET dynview.full_refresh_change_ratio;
SELECT count(*), sum(v) FROM sc_big_auto;
SELECT count(*), sum(v) FROM sc_dup_rows;
SELECT dynview.drop_dynamic_table('sc_big_auto');
SELECT dynview.drop_dynamic_table('sc_big_rows');
SELECT dynview.drop_dynamic_table('sc_dup_rows');
DROP TABLE sc_big, sc_dup;

-- 4. Apply index names: two dynamic tables whose names agree in their first 54 characters get
-- apply indexes of their own (named by OID), and replacing one's definition keeps the other's.
CREATE TABLE sc_names (id int, v int);
INSERT INTO sc_names SELECT i, i FROM generate_series(1, 10) i;
SELECT dynview.create_dynamic_table('sc_a_very_long_dynamic_table_name_that_goes_past_the_limit_one',
  'SELECT id, v FROM sc_names WHERE v > 2', schedule => 'manual', refresh_mode => 'incremental');
SELECT dynview.create_dynamic_table('sc_a_very_long_dynamic_table_name_that_goes_past_the_limit_two',
  'SELECT v, id FROM sc_names WHERE v > 4', schedule => 'manual', refresh_mode => 'incremental');
SELECT c.relname, count(i.indexrelid) AS indexes,
       bool_and(x.relname LIKE 'sc_a_very_long_dynamic_table_name_%_dv_apply') AS apply_named
FROM pg_class c LEFT JOIN pg_index i ON i.indrelid = c.oid LEFT JOIN pg_class x ON x.oid = i.indexrelid
WHERE c.relname LIKE 'sc_a_very_long%' AND c.relkind = 'r' GROUP BY c.relname ORDER BY c.relname;
SELECT dynview.create_or_replace_dynamic_table('sc_a_very_long_dynamic_table_name_that_goes_past_the_limit_one',
  'SELECT id, v FROM sc_names WHERE v > 3', schedule => 'manual', refresh_mode => 'incremental');
SELECT dynview.verify('sc_a_very_long_dynamic_table_name_that_goes_past_the_limit_one');
SELECT c.relname, count(i.indexrelid) AS indexes
FROM pg_class c LEFT JOIN pg_index i ON i.indrelid = c.oid
WHERE c.relname LIKE 'sc_a_very_long%' AND c.relkind = 'r' GROUP BY c.relname ORDER BY c.relname;
DELETE FROM sc_names WHERE id = 5;
SELECT refresh_mode FROM dynview.refresh('sc_a_very_long_dynamic_table_name_that_goes_past_the_limit_two');
SELECT dynview.verify('sc_a_very_long_dynamic_table_name_that_goes_past_the_limit_two');
SELECT dynview.drop_dynamic_table('sc_a_very_long_dynamic_table_name_that_goes_past_the_limit_one');
SELECT dynview.drop_dynamic_table('sc_a_very_long_dynamic_table_name_that_goes_past_the_limit_two');
DROP TABLE sc_names;

-- 5. A restored data snapshot is not trusted: a catalog row that arrives from another database or
-- cluster (pg_restore loads it with INSERT/COPY) loses its data snapshot and its next refresh is FULL
-- (RESTORED); wait_fresh() refreshes instead of believing it.  Simulated here by putting the row
-- back with another origin and a data snapshot whose xmax is far ahead of this cluster's xid counter.
CREATE TABLE sc_rr (id int PRIMARY KEY, v int);
INSERT INTO sc_rr VALUES (1, 1), (2, 2);
SELECT dynview.create_dynamic_table('sc_rr_dt', 'SELECT id, v FROM sc_rr', schedule => 'manual');
SELECT data_origin = dynview._data_origin() AS origin_recorded
FROM dynview.dynamic_table_catalog WHERE relid = 'sc_rr_dt'::regclass;
CREATE TEMP TABLE sc_saved AS SELECT * FROM dynview.dynamic_table_catalog WHERE relid = 'sc_rr_dt'::regclass;
UPDATE sc_saved SET data_origin = '7000000000000000000:16384', data_snapshot = '100000000:100000000:';
DELETE FROM dynview.dynamic_table_catalog WHERE relid = 'sc_rr_dt'::regclass;
INSERT INTO dynview.dynamic_table_catalog SELECT * FROM sc_saved;
SELECT data_snapshot IS NULL AS snapshot_dropped, next_refresh_full, data_origin = dynview._data_origin() AS origin_now
FROM dynview.dynamic_table_catalog WHERE relid = 'sc_rr_dt'::regclass;
INSERT INTO sc_rr VALUES (3, 3);
SELECT dynview.wait_fresh('sc_rr_dt');
SELECT refresh_mode, refresh_trigger, mode_reason_code FROM dynview.refresh_history('sc_rr_dt', 1);
SELECT dynview.verify('sc_rr_dt');
SELECT * FROM sc_rr_dt ORDER BY id;
-- the row's own updates keep it trusted
UPDATE sc_rr SET v = 30 WHERE id = 3;
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('sc_rr_dt');
SELECT dynview.verify('sc_rr_dt');
SELECT dynview.drop_dynamic_table('sc_rr_dt');
DROP TABLE sc_rr;

-- 6. A source column renamed: the stored definition follows (it is deparsed again from the analysed
-- tree the catalog keeps, as a view's rule does); the output columns keep their names, the refresh
-- after the rename is FULL (SOURCE_ALTERED) and the ones after it incremental again.
CREATE TABLE sc_rn (id int PRIMARY KEY, grp text, amount numeric, flag boolean);
INSERT INTO sc_rn VALUES (1, 'a', 10, true), (2, 'b', 20, false), (3, 'a', 5, true);
SELECT dynview.create_dynamic_table('sc_rn_rows', 'SELECT id, amount FROM sc_rn WHERE flag', schedule => 'manual');
SELECT dynview.create_dynamic_table('sc_rn_sums',
  'SELECT grp, sum(amount) AS total, count(*) AS n FROM sc_rn GROUP BY grp', schedule => 'manual');
ALTER TABLE sc_rn RENAME COLUMN amount TO value;
ALTER TABLE sc_rn RENAME COLUMN flag TO active;
ALTER TABLE sc_rn RENAME COLUMN grp TO category;
INSERT INTO sc_rn VALUES (4, 'b', 7, true);
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('sc_rn_rows');
SELECT dynview.verify('sc_rn_rows');
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('sc_rn_sums');
SELECT dynview.verify('sc_rn_sums');
SELECT relid, definition FROM dynview.dynamic_table_catalog WHERE relid::text LIKE 'sc_rn%' ORDER BY 1;
UPDATE sc_rn SET value = value + 1, active = NOT active WHERE id IN (1, 2);
DELETE FROM sc_rn WHERE id = 3;
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('sc_rn_rows');
SELECT dynview.verify('sc_rn_rows');
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('sc_rn_sums');
SELECT dynview.verify('sc_rn_sums');
SELECT * FROM sc_rn_rows ORDER BY id;
SELECT * FROM sc_rn_sums ORDER BY grp;
-- a dropped column cannot be followed: the refresh fails with its hint, the table keeps its data
ALTER TABLE sc_rn DROP COLUMN active;
SELECT refresh_mode FROM dynview.refresh('sc_rn_rows');
SELECT count(*) FROM sc_rn_rows;
SELECT dynview.drop_dynamic_table('sc_rn_rows');
SELECT dynview.drop_dynamic_table('sc_rn_sums');
DROP TABLE sc_rn;
