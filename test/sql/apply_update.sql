-- The direct apply's updates in place (apply.c, issue 14): a row of a select/join table whose key
-- stays and whose other columns change is updated (one index lookup; HOT where no indexed column
-- changes and the page has room) instead of deleted and inserted, and counted as a row deleted and
-- one inserted; so is a changed row of a restricted recompute or a FULL refresh matched by key
-- (dv_apply_diff).  Not where the statements' DELETE and INSERT could be told apart: a CHECK
-- constraint (one that reads the table), another unique index (two rows swapping a value), a
-- publication (its subscribers get the DELETE and INSERT).  The table's own counters of this
-- transaction (pg_stat_xact_user_tables) show which writes a refresh made.  Every refresh is
-- compared with its query: dynview.verify(), the rows by text and by = (dv_refresh_round).
SET client_min_messages = warning;

CREATE TABLE au_src (id int PRIMARY KEY, v text, n numeric, g int);
INSERT INTO au_src SELECT i, 'v' || i, i / 4.0, i % 3 FROM generate_series(1, 12) i;
CREATE TABLE au_n (k numeric PRIMARY KEY, v text);
INSERT INTO au_n SELECT i / 10.0, 'v' || i FROM generate_series(1, 5) i;
CREATE TABLE au_defs (name text PRIMARY KEY, query text NOT NULL);
INSERT INTO au_defs VALUES
  ('au_rows', $$SELECT id, v, n FROM au_src$$),
  -- a numeric key
  ('au_num', $$SELECT k, v FROM au_n$$),
  -- groups recomputed where they change (restricted recompute, matched by key)
  ('au_groups', $$SELECT g, max(v) AS top, count(*) AS c FROM au_src GROUP BY g$$);
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual', refresh_mode => 'incremental')
  FROM au_defs ORDER BY name;
RESET client_min_messages;

\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round

-- the writes one refresh made to the table: its counters of this backend not yet reported
-- (pg_stat_xact_user_tables) after the refresh less before
CREATE FUNCTION au_writes(t text, OUT mode text, OUT rows_ins bigint, OUT rows_del bigint,
                          OUT ins bigint, OUT del bigint, OUT upd bigint, OUT hot bigint)
LANGUAGE plpgsql AS $$
DECLARE
  b record;
BEGIN
  SELECT s.n_tup_ins, s.n_tup_del, s.n_tup_upd, s.n_tup_hot_upd INTO b
    FROM pg_stat_xact_user_tables s WHERE s.relid = t::regclass;
  SELECT r.refresh_mode, r.rows_inserted, r.rows_deleted INTO mode, rows_ins, rows_del FROM dynview.refresh(t) r;
  SELECT s.n_tup_ins - b.n_tup_ins, s.n_tup_del - b.n_tup_del, s.n_tup_upd - b.n_tup_upd,
         s.n_tup_hot_upd - b.n_tup_hot_upd INTO ins, del, upd, hot
    FROM pg_stat_xact_user_tables s WHERE s.relid = t::regclass;
END $$;

-- (1) three rows change their other columns: three updates, HOT (a page of twelve short rows has
-- room); a deleted row and a new one are a delete and an insert
UPDATE au_src SET v = v || 'x', n = n + 1 WHERE id IN (2, 5, 7);
DELETE FROM au_src WHERE id = 3;
INSERT INTO au_src VALUES (20, 'v20', 1.5, 2);
SELECT dynview.wait_for_capture();
SELECT * FROM au_writes('au_rows');
SELECT * FROM au_writes('au_groups');
SELECT * FROM dv_refresh_round('au_defs');

-- (2) a value equal but spelled otherwise (1.5 -> 1.50) is a change: updated, and the table
-- takes the new spelling
UPDATE au_src SET n = 1.50 WHERE id = 20;
SELECT dynview.wait_for_capture();
SELECT * FROM au_writes('au_rows');
SELECT n::text FROM au_rows WHERE id = 20;
SELECT * FROM dv_refresh_round('au_defs');

-- a key equal but spelled otherwise (0.1 -> 0.10) is no update of a row: deleted and inserted,
-- beside an update of another key's row
UPDATE au_n SET k = 0.10 WHERE k = 0.1;
UPDATE au_n SET v = 'w' WHERE k = 0.3;
SELECT dynview.wait_for_capture();
SELECT * FROM au_writes('au_num');
SELECT k::text, v FROM au_num ORDER BY k;
SELECT * FROM dv_refresh_round('au_defs');

-- (3) NOT NULL on the table is checked for the new version (23502) and nothing changes
ALTER TABLE au_rows ALTER COLUMN v SET NOT NULL;
UPDATE au_src SET v = NULL WHERE id = 4;
SELECT dynview.wait_for_capture();
SELECT refresh_mode FROM dynview.refresh('au_rows');
\echo :LAST_ERROR_SQLSTATE
SELECT v FROM au_rows WHERE id = 4;
UPDATE au_src SET v = 'v4' WHERE id = 4;
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('au_defs');
ALTER TABLE au_rows ALTER COLUMN v DROP NOT NULL;

-- (4) a CHECK constraint: the rows are deleted and inserted, as the statements do
ALTER TABLE au_rows ADD CONSTRAINT au_rows_n CHECK (n < 100);
UPDATE au_src SET n = n + 1 WHERE id IN (1, 2);
SELECT dynview.wait_for_capture();
SELECT * FROM au_writes('au_rows');
SELECT * FROM dv_refresh_round('au_defs');
ALTER TABLE au_rows DROP CONSTRAINT au_rows_n;

-- (5) another unique index: two rows swapping their values apply (deleted, then inserted), which
-- updates one after the other would not (the first would meet the second's value)
CREATE UNIQUE INDEX au_rows_v ON au_rows (v);
UPDATE au_src SET v = CASE id WHEN 8 THEN 'v9' ELSE 'v8' END WHERE id IN (8, 9);
SELECT dynview.wait_for_capture();
SELECT * FROM au_writes('au_rows');
SELECT id, v FROM au_rows WHERE id IN (8, 9) ORDER BY id;
SELECT * FROM dv_refresh_round('au_defs');
DROP INDEX au_rows_v;

-- (6) a publication (of inserts only, so that no replica identity is needed): its subscribers
-- get the DELETE and INSERT as before
CREATE PUBLICATION au_pub FOR TABLE au_rows WITH (publish = 'insert');
UPDATE au_src SET v = v || 'p' WHERE id = 10;
SELECT dynview.wait_for_capture();
SELECT * FROM au_writes('au_rows');
DROP PUBLICATION au_pub;

-- (7) updated in place again once they are gone; a FULL refresh (its statements) deletes and
-- inserts the changed rows
UPDATE au_src SET v = v || 'y' WHERE id IN (10, 11);
SELECT dynview.wait_for_capture();
SELECT * FROM au_writes('au_rows');
UPDATE au_src SET n = n * 2 WHERE id IN (1, 6);
SELECT dynview.wait_for_capture();
SELECT dynview.alter_dynamic_table('au_rows', refresh_mode => 'full');
SELECT * FROM au_writes('au_rows');
SELECT dynview.alter_dynamic_table('au_rows', refresh_mode => 'incremental');
SELECT * FROM dv_refresh_round('au_defs');

-- (8) the writes go in the key index's order, not in the order the delta's consolidation left
-- them (its rows' hashes): 300 keys inserted in a scrambled order into an empty table take its
-- pages in key order, and after a delete of every third row and an update of every other, the
-- next 100 keys (all above the others) too
CREATE TABLE au_ord (id int PRIMARY KEY, v text);
INSERT INTO au_defs VALUES ('au_ord_t', $$SELECT id, v FROM au_ord$$);
SET client_min_messages = warning;
SELECT dynview.create_dynamic_table('au_ord_t', 'SELECT id, v FROM au_ord', schedule => 'manual',
                                    refresh_mode => 'incremental');
RESET client_min_messages;
INSERT INTO au_ord SELECT (i * 37) % 300 + 1, 'o' || i FROM generate_series(1, 300) i;
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('au_defs');
SELECT count(*) AS rows, bool_and(by_key = by_place) AS in_key_order
  FROM (SELECT row_number() OVER (ORDER BY id) AS by_key, row_number() OVER (ORDER BY ctid) AS by_place
          FROM au_ord_t) s;
DELETE FROM au_ord WHERE id % 3 = 0;
UPDATE au_ord SET v = v || 'u' WHERE id % 2 = 0;
INSERT INTO au_ord SELECT 300 + (i * 37) % 100 + 1, 'p' || i FROM generate_series(1, 100) i;
SELECT dynview.wait_for_capture();
SELECT * FROM au_writes('au_ord_t');
SELECT * FROM dv_refresh_round('au_defs');
SELECT count(*) AS rows, bool_and(by_key = by_place) AS in_key_order
  FROM (SELECT row_number() OVER (ORDER BY id) AS by_key, row_number() OVER (ORDER BY ctid) AS by_place
          FROM au_ord_t WHERE id > 300) s;

SET client_min_messages = warning;
SELECT dynview.drop_dynamic_table(name) FROM au_defs ORDER BY name;
DROP TABLE au_defs, au_src, au_n, au_ord;
DROP FUNCTION au_writes(text), dv_refresh_round(regclass);
