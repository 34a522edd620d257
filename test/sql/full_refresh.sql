-- FULL refresh (issue 14): the query is evaluated once and only the difference is written.
-- Rows are matched as a multiset by their text form: copies of a row, equal-but-not-identical
-- values (1.0 and 1.00), NULLs, a table with and without a unique key, and the rows written
-- for a downstream table.  Every refresh is checked with verify().
SET client_min_messages = warning;

-- a table without a key: copies of one row are counted
CREATE TABLE fr_src (v numeric, t text);
INSERT INTO fr_src VALUES (1, 'a'), (1, 'a'), (1, 'a'), (2, NULL), (NULL, 'b');
SELECT dynview.create_dynamic_table('fr_bag', 'SELECT v, t FROM fr_src', schedule => 'manual', refresh_mode => 'full');
SELECT count(*) AS unique_indexes FROM pg_index WHERE indrelid = 'fr_bag'::regclass AND indisunique;
SELECT dynview.verify('fr_bag');
-- one copy of (1,'a') goes, (2,NULL) gets two more copies, nothing else is rewritten
DELETE FROM fr_src WHERE ctid = (SELECT min(ctid) FROM fr_src WHERE v = 1);
INSERT INTO fr_src VALUES (2, NULL), (2, NULL);
SELECT refresh_mode, rows_deleted, rows_inserted FROM dynview.refresh('fr_bag');
SELECT dynview.verify('fr_bag');
SELECT v, t, count(*) FROM fr_bag GROUP BY v, t ORDER BY v, t;
-- the unchanged rows kept their place: same ctids as before the refresh
CREATE TEMP TABLE fr_ctids AS SELECT ctid AS tid FROM fr_bag WHERE v = 1;
UPDATE fr_src SET t = 'c' WHERE v IS NULL;
SELECT refresh_mode, rows_deleted, rows_inserted FROM dynview.refresh('fr_bag');
SELECT dynview.verify('fr_bag');
SELECT count(*) AS kept FROM fr_bag b JOIN fr_ctids c ON b.ctid = c.tid;
-- equal but not identical: 1 = 1.0 = 1.00, yet the table must show what the query gives
UPDATE fr_src SET v = 1.00 WHERE v = 1;
SELECT refresh_mode, rows_deleted, rows_inserted FROM dynview.refresh('fr_bag');
SELECT dynview.verify('fr_bag');
SELECT DISTINCT v::text FROM fr_bag WHERE v = 1;
-- no change: a FULL-mode table skips the recompute
SELECT refresh_mode, rows_deleted, rows_inserted FROM dynview.refresh('fr_bag');

-- a table with a unique key (NULLS NOT DISTINCT, as dynview makes it): its rows are distinct,
-- only the query's copies are numbered; a group's total changing from 145 to 145.0 is a new row
CREATE TABLE fr_orders (id int PRIMARY KEY, g text, amount numeric);
INSERT INTO fr_orders SELECT i, 'g' || (i % 3), i FROM generate_series(1, 30) i;
SELECT dynview.create_dynamic_table('fr_groups', 'SELECT g, sum(amount) AS total, count(*) AS n FROM fr_orders GROUP BY g',
                                    schedule => 'manual', refresh_mode => 'full', primary_key => ARRAY['g']);
SELECT count(*) AS unique_indexes FROM pg_index WHERE indrelid = 'fr_groups'::regclass AND indisunique AND indnullsnotdistinct;
UPDATE fr_orders SET amount = amount * 1.0 WHERE g = 'g1';
UPDATE fr_orders SET amount = amount + 1 WHERE g = 'g2';
SELECT refresh_mode, rows_deleted, rows_inserted FROM dynview.refresh('fr_groups');
SELECT dynview.verify('fr_groups');
SELECT g, total::text, n FROM fr_groups ORDER BY g;
-- a key that moves from one row to another: deletes run before inserts
UPDATE fr_orders SET g = CASE g WHEN 'g0' THEN 'g1' WHEN 'g1' THEN 'g0' ELSE g END;
SELECT refresh_mode, rows_deleted, rows_inserted FROM dynview.refresh('fr_groups');
SELECT dynview.verify('fr_groups');

-- a key given by the caller that the query's rows do not honour: the refresh fails (unique
-- violation) and the table keeps its rows, never one copy for two
CREATE TABLE fr_dup (k int, v int);
INSERT INTO fr_dup VALUES (1, 1), (2, 2);
SELECT dynview.create_dynamic_table('fr_keyed', 'SELECT k, v FROM fr_dup', schedule => 'manual',
                                    refresh_mode => 'full', primary_key => ARRAY['k']);
INSERT INTO fr_dup VALUES (1, 1);
SELECT refresh_mode FROM dynview.refresh('fr_keyed');
SELECT k, v FROM fr_keyed ORDER BY k;

-- a downstream table reads a FULL-mode table: the rows its FULL refresh deletes and inserts
-- reach the downstream's change buffer with weights -1 and +1
CREATE TABLE fr_base (id int PRIMARY KEY, qty int, cat text);
INSERT INTO fr_base SELECT i, i % 4, 'c' || (i % 2) FROM generate_series(1, 20) i;
SELECT dynview.create_dynamic_table('fr_up', 'SELECT id, qty, cat, random() < 2 AS always FROM fr_base',
                                    schedule => 'manual');
SELECT effective_mode, mode_reason_code FROM dynview.dynamic_tables WHERE name = 'fr_up'::regclass;
SELECT dynview.create_dynamic_table('fr_down', 'SELECT cat, sum(qty) AS w, count(*) AS n FROM fr_up GROUP BY cat',
                                    schedule => 'manual');
UPDATE fr_base SET qty = qty + 10 WHERE id <= 5;
DELETE FROM fr_base WHERE id > 18;
INSERT INTO fr_base VALUES (100, 7, 'c0'), (101, 8, 'c3');
SELECT refresh_mode, mode_reason_code, rows_deleted, rows_inserted FROM dynview.refresh('fr_down');
SELECT refresh_mode, rows_deleted, rows_inserted FROM dynview.refresh_history('fr_up', 1);
SELECT dynview.verify('fr_up'), dynview.verify('fr_down');
SELECT cat, w, n FROM fr_down ORDER BY cat;

-- the first build writes the new table in bulk and indexes it afterwards (issue 14): a
-- refresh_mode => 'full' table whose rows dynview knows distinct gets the unique apply index, and
-- its FULL refreshes match rows by that key (identical rows only: 7 -> 7.0 is rewritten)
CREATE TABLE fr_items (id int PRIMARY KEY, price numeric, cat text);
INSERT INTO fr_items SELECT i, i, 'c' || (i % 3) FROM generate_series(1, 50) i;
SELECT dynview.create_dynamic_table('fr_derived', 'SELECT id, price, cat FROM fr_items WHERE price > 5',
                                    schedule => 'manual', refresh_mode => 'full');
SELECT indexrelid::regclass AS apply_index, indisunique, indnullsnotdistinct
  FROM pg_index WHERE indrelid = 'fr_derived'::regclass;
SELECT count(*) AS rows, dynview.verify('fr_derived') FROM fr_derived;
UPDATE fr_items SET price = price * 1.0 WHERE id = 7;
UPDATE fr_items SET price = 1 WHERE id = 8;
SELECT refresh_mode, rows_deleted, rows_inserted FROM dynview.refresh('fr_derived');
SELECT dynview.verify('fr_derived');
SELECT price::text FROM fr_derived WHERE id = 7;
-- an aggregate table's first build writes it from its state (the sources read once)
SELECT dynview.create_dynamic_table('fr_sums', 'SELECT cat, sum(price) AS total, count(*) AS n, avg(price) AS mean FROM fr_items GROUP BY cat',
                                    schedule => 'manual');
SELECT refresh_mode, mode_reason_code, rows_inserted FROM dynview.refresh_history('fr_sums', 1);
SELECT dynview.verify('fr_sums');
-- a primary_key the rows do not honour fails the creation (the index is built after the rows)
SELECT dynview.create_dynamic_table('fr_badkey', 'SELECT cat, id FROM fr_items', schedule => 'manual',
                                    refresh_mode => 'full', primary_key => ARRAY['cat']);
SELECT to_regclass('fr_badkey') AS fr_badkey;
-- a creation rolled back leaves nothing, its rows included
BEGIN;
SELECT dynview.create_dynamic_table('fr_gone', 'SELECT id, cat FROM fr_items', schedule => 'manual');
SELECT count(*) FROM fr_gone;
ROLLBACK;
SELECT to_regclass('fr_gone') AS fr_gone;

SELECT dynview.drop_dynamic_table(t) FROM unnest(ARRAY['fr_sums', 'fr_derived']) t;
DROP TABLE fr_items;
SELECT dynview.drop_dynamic_table(t) FROM unnest(ARRAY['fr_down', 'fr_up', 'fr_keyed', 'fr_groups', 'fr_bag']) t;
DROP TABLE fr_src, fr_orders, fr_dup, fr_base;
