-- A source's keys changed after the dynamic table was made (a primary key or unique index dropped
-- or added, directly or on a source a key is derived through): the source's signature changes, the
-- next refresh is FULL (SOURCE_ALTERED) and gives the table the apply index of the keys its plan
-- derives now.  Before, a unique "<table>_dv_apply" on a key that was one no more refused every
-- later refresh, and count(DISTINCT x) kept as count(x) over a unique x counted duplicates.
SET client_min_messages = warning;
CREATE FUNCTION sk_apply_index(t regclass) RETURNS text LANGUAGE sql AS $$
  SELECT string_agg(CASE WHEN i.indisunique THEN 'UNIQUE ' ELSE '' END || pg_get_indexdef(i.indexrelid, 1, true), ', ')
  FROM pg_index i WHERE i.indrelid = t $$;

-- the primary key of a scanned source dropped, duplicates inserted
CREATE TABLE sk_src (id int PRIMARY KEY, v int);
INSERT INTO sk_src SELECT g, g FROM generate_series(1, 5) g;
SELECT dynview.create_dynamic_table('sk_scan', 'SELECT id, v FROM sk_src', schedule => 'manual');
SELECT sk_apply_index('sk_scan');
ALTER TABLE sk_src DROP CONSTRAINT sk_src_pkey;
INSERT INTO sk_src VALUES (1, 100);
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('sk_scan');
SELECT dynview.verify('sk_scan');
SELECT sk_apply_index('sk_scan');
INSERT INTO sk_src VALUES (2, 200);
DELETE FROM sk_src WHERE v = 1;
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('sk_scan');
SELECT dynview.verify('sk_scan');
SELECT * FROM sk_scan ORDER BY id, v;
-- a primary key added on another column: unique again, on that column
ALTER TABLE sk_src ADD PRIMARY KEY (v);
INSERT INTO sk_src VALUES (7, 7);
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('sk_scan');
SELECT dynview.verify('sk_scan');
SELECT sk_apply_index('sk_scan');
UPDATE sk_src SET id = 9 WHERE v = 7;
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('sk_scan');
SELECT dynview.verify('sk_scan');
-- the dynamic table renamed (its apply index keeps the old name), then the key dropped
ALTER TABLE sk_scan RENAME TO sk_scan_renamed;
ALTER TABLE sk_src DROP CONSTRAINT sk_src_pkey;
INSERT INTO sk_src VALUES (11, 7);
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('sk_scan_renamed');
SELECT dynview.verify('sk_scan_renamed');
SELECT sk_apply_index('sk_scan_renamed');
DELETE FROM sk_src WHERE id = 11;
ALTER TABLE sk_src ADD PRIMARY KEY (v);
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('sk_scan_renamed');
SELECT sk_apply_index('sk_scan_renamed');
ALTER TABLE sk_scan_renamed RENAME TO sk_scan;
-- dropped and created again alike: the signature is the same, refreshes stay incremental
ALTER TABLE sk_src DROP CONSTRAINT sk_src_pkey;
ALTER TABLE sk_src ADD PRIMARY KEY (v);
INSERT INTO sk_src VALUES (10, 10);
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('sk_scan');
SELECT dynview.verify('sk_scan');

-- a key derived through a join (the joined source's primary key makes p.pid the key)
CREATE TABLE sk_c (cid int PRIMARY KEY, name text);
INSERT INTO sk_c VALUES (0, 'a'), (1, 'b'), (2, 'c');
CREATE TABLE sk_p (pid int PRIMARY KEY, cid int);
INSERT INTO sk_p VALUES (1, 0), (2, 1), (3, 2);
SELECT dynview.create_dynamic_table('sk_join', 'SELECT p.pid, c.name FROM sk_p p JOIN sk_c c USING (cid)', schedule => 'manual');
SELECT sk_apply_index('sk_join');
ALTER TABLE sk_c DROP CONSTRAINT sk_c_pkey;
INSERT INTO sk_c VALUES (0, 'dup');
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('sk_join');
SELECT dynview.verify('sk_join');
SELECT sk_apply_index('sk_join');
INSERT INTO sk_c VALUES (1, 'dup');
INSERT INTO sk_p VALUES (4, 1);
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('sk_join');
SELECT dynview.verify('sk_join');
SELECT * FROM sk_join ORDER BY pid, name;

-- count(DISTINCT id) kept as count(id) while a unique index makes id distinct: the index dropped
-- in the transaction that inserts duplicates, then replaced by a non-unique one
CREATE TABLE sk_o (id int, cust int);
CREATE UNIQUE INDEX sk_o_id ON sk_o (id);
INSERT INTO sk_o SELECT g, g % 3 FROM generate_series(1, 9) g;
SELECT dynview.create_dynamic_table('sk_dist', 'SELECT cust, count(DISTINCT id) AS n FROM sk_o GROUP BY cust', schedule => 'manual');
BEGIN;
DROP INDEX sk_o_id;
INSERT INTO sk_o VALUES (1, 1), (2, 2), (4, 1);
COMMIT;
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('sk_dist');
SELECT dynview.verify('sk_dist');
INSERT INTO sk_o VALUES (1, 1), (7, 1);
DELETE FROM sk_o WHERE id = 4 AND ctid = (SELECT min(ctid) FROM sk_o WHERE id = 4);
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('sk_dist');
SELECT dynview.verify('sk_dist');
CREATE INDEX sk_o_id ON sk_o (id);
INSERT INTO sk_o VALUES (10, 1), (10, 1);
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('sk_dist');
SELECT dynview.verify('sk_dist');
SELECT * FROM sk_dist ORDER BY cust;

-- a unique index is a key while its column is NOT NULL: DROP NOT NULL, then NULLs twice
CREATE TABLE sk_n (a int NOT NULL, b int);
CREATE UNIQUE INDEX sk_n_a ON sk_n (a);
INSERT INTO sk_n VALUES (1, 1), (2, 2);
SELECT dynview.create_dynamic_table('sk_null', 'SELECT a, b FROM sk_n', schedule => 'manual');
SELECT sk_apply_index('sk_null');
ALTER TABLE sk_n ALTER COLUMN a DROP NOT NULL;
INSERT INTO sk_n VALUES (NULL, 3), (NULL, 4);
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('sk_null');
SELECT dynview.verify('sk_null');
INSERT INTO sk_n VALUES (NULL, 5);
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('sk_null');
SELECT dynview.verify('sk_null');
SELECT sk_apply_index('sk_null');

-- an inheritance child created under a parent with a primary key: the key holds for the parent's
-- own rows only, a child's row may repeat it
CREATE TABLE sk_par (id int PRIMARY KEY, v int);
INSERT INTO sk_par VALUES (1, 1);
SELECT dynview.create_dynamic_table('sk_inh', 'SELECT id, v FROM sk_par', schedule => 'manual');
SELECT sk_apply_index('sk_inh');
CREATE TABLE sk_kid () INHERITS (sk_par);
INSERT INTO sk_kid VALUES (1, 2);
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('sk_inh');
SELECT dynview.verify('sk_inh');
INSERT INTO sk_kid VALUES (1, 3);
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('sk_inh');
SELECT dynview.verify('sk_inh');
SELECT sk_apply_index('sk_inh');

-- a source dropped and created again without its primary key (UPSTREAM_RECREATED)
CREATE TABLE sk_re (id int PRIMARY KEY, v int);
INSERT INTO sk_re VALUES (1, 1), (2, 2);
SELECT dynview.create_dynamic_table('sk_recreated', 'SELECT id, v FROM sk_re', schedule => 'manual');
DROP TABLE sk_re;
CREATE TABLE sk_re (id int, v int);
INSERT INTO sk_re VALUES (1, 1), (1, 2);
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('sk_recreated');
SELECT dynview.verify('sk_recreated');
SELECT sk_apply_index('sk_recreated');
INSERT INTO sk_re VALUES (1, 3);
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('sk_recreated');
SELECT dynview.verify('sk_recreated');

-- a view the definition reads redefined so that its rows repeat the key (DEFINITION_CHANGED)
CREATE TABLE sk_va (id int PRIMARY KEY, v int);
CREATE TABLE sk_vb (id int, w int);
INSERT INTO sk_va VALUES (1, 1), (2, 2);
INSERT INTO sk_vb VALUES (1, 10), (1, 11);
CREATE VIEW sk_view AS SELECT a.id, a.v FROM sk_va a;
SELECT dynview.create_dynamic_table('sk_viewed', 'SELECT id, v FROM sk_view', schedule => 'manual');
CREATE OR REPLACE VIEW sk_view AS SELECT a.id, a.v FROM sk_va a JOIN sk_vb b USING (id);
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('sk_viewed');
SELECT dynview.verify('sk_viewed');
SELECT sk_apply_index('sk_viewed');
INSERT INTO sk_vb VALUES (2, 1), (2, 3);
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('sk_viewed');
SELECT dynview.verify('sk_viewed');

-- a table refreshed FULL on request, whose unique apply index matched rows by key
CREATE TABLE sk_f (id int PRIMARY KEY, v int);
INSERT INTO sk_f VALUES (1, 1), (2, 2);
SELECT dynview.create_dynamic_table('sk_full', 'SELECT id, v FROM sk_f', schedule => 'manual', refresh_mode => 'full');
SELECT sk_apply_index('sk_full');
ALTER TABLE sk_f DROP CONSTRAINT sk_f_pkey;
INSERT INTO sk_f VALUES (1, 10);
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('sk_full');
SELECT dynview.verify('sk_full');
SELECT sk_apply_index('sk_full');

SELECT dynview.drop_dynamic_table(t) FROM unnest(ARRAY['sk_scan', 'sk_join', 'sk_dist', 'sk_null', 'sk_inh', 'sk_recreated', 'sk_viewed', 'sk_full']) t;
DROP TABLE sk_src, sk_c, sk_p, sk_o, sk_n, sk_kid, sk_par, sk_re, sk_f;
DROP VIEW sk_view;
DROP TABLE sk_va, sk_vb;
DROP FUNCTION sk_apply_index(regclass);
