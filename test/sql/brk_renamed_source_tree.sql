-- Tester's finding (s9-brk), the same root as brk_recreated_rename: a source renamed away and a
-- new table created under its old name (the next refresh is FULL, UPSTREAM_RECREATED, and reads
-- the new table); the definition tree the catalog keeps still names the renamed table by OID.
-- When a column of that name is then renamed in both tables, follow_renames deparses the old
-- tree: the stored definition becomes "FROM public.brk_rst_old", the dynamic table silently
-- reads the renamed table instead of the one its query names, and verify() (which runs the
-- stored definition) says true; dynamic_tables.sources shows {brk_rst_old}.  Correct result:
-- the table follows the rename in the table it reads (brk_rst_src) and holds its rows.
SET client_min_messages = warning;
CREATE TABLE brk_rst_src (id int PRIMARY KEY, a int);
INSERT INTO brk_rst_src SELECT i, i FROM generate_series(1, 10) i;
SELECT dynview.create_dynamic_table('brk_rst_rows', 'SELECT id, a FROM brk_rst_src', schedule => 'manual') IS NOT NULL AS created;
ALTER TABLE brk_rst_src RENAME TO brk_rst_old;
CREATE TABLE brk_rst_src (id int PRIMARY KEY, a int);
INSERT INTO brk_rst_src SELECT i, 100 + i FROM generate_series(1, 5) i;
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('brk_rst_rows');
SELECT dynview.verify('brk_rst_rows') AS verified,
       (SELECT sum(a) FROM brk_rst_rows) = (SELECT sum(a) FROM brk_rst_src) AS reads_new_table;
-- a column of that name renamed in both tables
ALTER TABLE brk_rst_src RENAME COLUMN a TO a1;
ALTER TABLE brk_rst_old RENAME COLUMN a TO a1;
INSERT INTO brk_rst_src VALUES (6, 106);
SELECT refresh_mode IS NOT NULL AS refreshed FROM dynview.refresh('brk_rst_rows');
SELECT dynview.verify('brk_rst_rows') AS verified,
       (SELECT count(*) FROM brk_rst_rows r JOIN brk_rst_src s ON s.id = r.id AND s.a1 = r.a) AS rows_of_new_table,
       (SELECT count(*) FROM brk_rst_rows) AS table_rows;
SELECT sources FROM dynview.dynamic_tables WHERE name = 'brk_rst_rows'::regclass;
SELECT dynview.drop_dynamic_table('brk_rst_rows');
DROP TABLE brk_rst_src, brk_rst_old;
