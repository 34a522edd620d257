-- How an incremental refresh of a select/join table applies its delta (issue 14,
-- refresh/incremental.c apply_spj): rows of a table with a derived key are deleted by that key
-- (one index lookup each) and only when their text form is the delta's; rows with a NULL in the
-- key go through the general statement; a window of inserts runs no DELETE, one of deletes no
-- INSERT; the rows reach the table's change buffer in batches (heap_multi_insert) for its
-- downstream tables.  Every refresh is INCREMENTAL (a row not found would make it FULL, with
-- INCREMENTAL_MISMATCH) and checked with verify().
SET client_min_messages = warning;
-- (windows larger than the tables are applied, not recomputed: CHANGE_VOLUME is not the topic)
SET dynview.full_refresh_change_ratio = 0;
CREATE TABLE ka_dim (d int PRIMARY KEY, label text);
CREATE TABLE ka_src (id int PRIMARY KEY, dref int, v numeric, note text);
INSERT INTO ka_dim VALUES (1, 'one'), (2, 'two'), (3, 'three');
INSERT INTO ka_src SELECT i, 1 + i % 3, i * 1.5, 'n' || i FROM generate_series(1, 50) i;
-- key id (derived through the join on ka_dim's key)
SELECT dynview.create_dynamic_table('ka_join', 'SELECT s.id, s.v, d.label FROM ka_src s JOIN ka_dim d ON d.d = s.dref', schedule => 'manual');
-- downstream tables: a copy of the rows (reads ka_join's change buffer row for row) and groups
SELECT dynview.create_dynamic_table('ka_copy', 'SELECT id, v, label FROM ka_join WHERE id > 0', schedule => 'manual');
SELECT dynview.create_dynamic_table('ka_down', 'SELECT label, count(*) AS n, sum(v) AS total FROM ka_join GROUP BY label', schedule => 'manual');
SELECT e.value AS key FROM dynview.explain_dynamic_table('ka_join') e WHERE e.property = 'key';

CREATE FUNCTION ka_refresh() RETURNS TABLE (name text, refresh_mode text, rows_deleted bigint, rows_inserted bigint, verified boolean)
LANGUAGE sql AS $$
  SELECT n, r.refresh_mode, r.rows_deleted, r.rows_inserted, dynview.verify(n)
    FROM unnest(ARRAY['ka_join', 'ka_copy', 'ka_down']) WITH ORDINALITY AS u(n, o), dynview.refresh(n) r ORDER BY o
$$;

-- a window of inserts only (no DELETE runs), more rows than one batch of the change buffer
INSERT INTO ka_src SELECT i, 1 + i % 3, i, NULL FROM generate_series(1001, 3500) i;
SELECT * FROM ka_refresh();
-- a window of deletes only (no INSERT runs)
DELETE FROM ka_src WHERE id BETWEEN 1001 AND 2200;
SELECT * FROM ka_refresh();
-- updates: a value whose text form alone changes (1.5 -> 1.50, equal by "="), a key moved
-- (id 2 -> 202), a row moved to another dimension row, a change to a column the table does not
-- read (no change for it), and a row updated back and forth (nothing to apply)
UPDATE ka_src SET v = 1.50 WHERE id = 1;
UPDATE ka_src SET id = 202 WHERE id = 2;
UPDATE ka_src SET dref = 3 WHERE id = 4;
UPDATE ka_src SET note = 'changed' WHERE id = 5;
UPDATE ka_src SET v = v + 1 WHERE id = 6;
UPDATE ka_src SET v = v - 1 WHERE id = 6;
SELECT * FROM ka_refresh();
SELECT id, v::text, label FROM ka_join WHERE id IN (1, 2, 202, 4, 6) ORDER BY id;
SELECT id, v::text, label FROM ka_copy WHERE id IN (1, 2, 202, 4, 6) ORDER BY id;
-- the text form changed back (1.50 -> 1.5), and a dimension row renamed (its rows all change)
UPDATE ka_src SET v = 1.5 WHERE id = 1;
UPDATE ka_dim SET label = 'uno' WHERE d = 1;
SELECT * FROM ka_refresh();
SELECT v::text FROM ka_join WHERE id = 1;
-- a key moved onto the key another row gave up in the same window
UPDATE ka_src SET id = 2000 WHERE id = 7;
UPDATE ka_src SET id = 7 WHERE id = 8;
SELECT * FROM ka_refresh();

-- a key column that is numeric: its text form alone changes (1.0 -> 1.00, the same key by "=")
CREATE TABLE ka_num (k numeric PRIMARY KEY, v numeric);
INSERT INTO ka_num VALUES (1.0, 2.0), (2, 3), (3.5, NULL);
SELECT dynview.create_dynamic_table('ka_numkey', 'SELECT k, v FROM ka_num', schedule => 'manual');
SELECT e.value AS key FROM dynview.explain_dynamic_table('ka_numkey') e WHERE e.property = 'key';
UPDATE ka_num SET k = 1.00 WHERE k = 1;
UPDATE ka_num SET v = 3.000 WHERE k = 2;
SELECT r.refresh_mode, r.rows_deleted, r.rows_inserted, dynview.verify('ka_numkey') FROM dynview.refresh('ka_numkey') r;
SELECT k::text, v::text FROM ka_numkey ORDER BY k;

-- NULLs in the key: a source key that allows one NULL (NULLS NOT DISTINCT), and a derived key
-- (a.id, b.id) of a LEFT JOIN whose padded rows have b.id NULL
CREATE TABLE ka_nn (code text UNIQUE NULLS NOT DISTINCT, v numeric);
INSERT INTO ka_nn VALUES ('a', 1), ('b', 2), (NULL, 3);
SELECT dynview.create_dynamic_table('ka_nullkey', 'SELECT code, v FROM ka_nn', schedule => 'manual');
CREATE TABLE ka_a (id int PRIMARY KEY, x int);
CREATE TABLE ka_b (id int PRIMARY KEY, x int, w text);
INSERT INTO ka_a SELECT i, i % 4 FROM generate_series(1, 8) i;
INSERT INTO ka_b VALUES (1, 1, 'b1'), (2, 1, 'b2'), (3, 2, 'b3');
SELECT dynview.create_dynamic_table('ka_pad', 'SELECT a.id, b.id AS bid, b.w FROM ka_a a LEFT JOIN ka_b b ON b.x = a.x', schedule => 'manual');
SELECT d.name, e.value AS key FROM dynview.dynamic_tables d, dynview.explain_dynamic_table(d.name::text) e
 WHERE d.name::text IN ('ka_nullkey', 'ka_pad') AND e.property = 'key' ORDER BY d.name::text;
-- the row with the NULL key updated, then deleted and inserted again; padded rows gone and back
UPDATE ka_nn SET v = 3.0 WHERE code IS NULL;
UPDATE ka_nn SET v = 20 WHERE code = 'b';
INSERT INTO ka_b VALUES (4, 3, 'b4');
DELETE FROM ka_b WHERE id = 3;
UPDATE ka_a SET x = 0 WHERE id = 1;
SELECT n, r.refresh_mode, r.rows_deleted, r.rows_inserted, dynview.verify(n)
  FROM unnest(ARRAY['ka_nullkey', 'ka_pad']) n, dynview.refresh(n) r ORDER BY n;
DELETE FROM ka_nn WHERE code IS NULL;
SELECT r.refresh_mode, r.rows_deleted, r.rows_inserted, dynview.verify('ka_nullkey') FROM dynview.refresh('ka_nullkey') r;
INSERT INTO ka_nn VALUES (NULL, 4.00);
DELETE FROM ka_b WHERE id = 4;
SELECT n, r.refresh_mode, r.rows_deleted, r.rows_inserted, dynview.verify(n)
  FROM unnest(ARRAY['ka_nullkey', 'ka_pad']) n, dynview.refresh(n) r ORDER BY n;
SELECT code, v::text FROM ka_nullkey ORDER BY code NULLS FIRST;

SELECT dynview.drop_dynamic_table(n) FROM unnest(ARRAY['ka_down', 'ka_copy', 'ka_join', 'ka_numkey', 'ka_nullkey', 'ka_pad']) n;
DROP FUNCTION ka_refresh();
DROP TABLE ka_src, ka_dim, ka_num, ka_nn, ka_a, ka_b;
RESET dynview.full_refresh_change_ratio;
