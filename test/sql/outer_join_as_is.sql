-- Left and right joins read the window of the side they preserve as it is when that side alone
-- changed (dynview.linear_windows_as_is; incremental.c linear_tree, nullable_reads): the delta is
-- then delta(preserved) LEFT JOIN new(other), one output row per window row with its weight, so a
-- row added and removed within the window gives result rows that cancel in apply_spj's
-- consolidation (or in an aggregate's sums).  A change of the side padded with NULLs adds or
-- removes padded rows by a count of matches: such windows are consolidated first, as before.
-- Each round refreshes every table twice on the same changes: first consolidated (the setting
-- off, rolled back: the oracle), then with the setting on; the modes must agree, and every
-- refresh is compared with its query (dynview.verify(), the rows by text and by =).  Which read
-- a refresh took is shown by a witness: a table dividing by a column, whose row with 0 is
-- corrected within the window; read as it is, 100 / 0 fails and the refresh is applied again
-- over consolidated windows, saying so in its history (mode_reason); consolidated, that row is
-- never seen.
SET client_min_messages = warning;

-- the dimension has no key: duplicated keys (a fact row matches two), NULL keys (match nothing)
CREATE TABLE oa_fact (id int PRIMARY KEY, pk int, q int, price numeric, d int, note text);
CREATE TABLE oa_dim (pk int, brand text, w int);
ALTER TABLE oa_dim REPLICA IDENTITY FULL;
INSERT INTO oa_dim SELECT i, 'B' || (i % 4), 1 + i % 3 FROM generate_series(1, 20) i;
INSERT INTO oa_dim VALUES (3, 'B3bis', 2), (NULL, 'Bnull', 1);
INSERT INTO oa_fact SELECT i, CASE WHEN i % 17 = 0 THEN NULL ELSE 1 + i % 25 END, i % 7, i * 1.5, 1 + i % 3,
                           repeat('n', i % 5)
  FROM generate_series(1, 200) i;

CREATE TABLE oa_defs (name text PRIMARY KEY, query text NOT NULL);
INSERT INTO oa_defs VALUES
  -- a key (id, and the dimension's brand: two rows for a fact of pk 3); rows of pk 21-25 and
  -- NULL padded
  ('oa_key', $$SELECT f.id, f.q, f.price, d.brand FROM oa_fact f LEFT JOIN oa_dim d ON d.pk = f.pk WHERE f.q > 0$$),
  -- no key: equal rows are copies, removed by their text
  ('oa_copies', $$SELECT f.pk, f.price, d.brand FROM oa_fact f LEFT JOIN oa_dim d ON d.pk = f.pk$$),
  -- a condition on the preserved side in ON: a fact that fails it is padded, not dropped
  ('oa_on', $$SELECT f.id, f.q, d.brand, d.w FROM oa_fact f LEFT JOIN oa_dim d ON d.pk = f.pk AND f.q > 2$$),
  -- RIGHT JOIN: the fact is the preserved side
  ('oa_right', $$SELECT f.id, f.price, d.brand FROM oa_dim d RIGHT JOIN oa_fact f ON d.pk = f.pk$$),
  -- two left joins in a chain, the second to the same dimension by another column
  ('oa_chain', $$SELECT f.id, d.brand, e.brand AS brand2 FROM oa_fact f LEFT JOIN oa_dim d ON d.pk = f.pk
                 LEFT JOIN oa_dim e ON e.pk = f.d$$),
  -- an aggregate kept in place over a left join, grouped by a column that padding makes NULL
  ('oa_agg', $$SELECT d.brand, count(*) AS n, count(d.pk) AS matched, sum(f.price) AS total
              FROM oa_fact f LEFT JOIN oa_dim d ON d.pk = f.pk GROUP BY d.brand$$),
  -- the fact joined to itself: a change of it is on the padded side too
  ('oa_self', $$SELECT a.id, a.pk, b.id AS other, b.price FROM oa_fact a LEFT JOIN oa_fact b ON b.id = a.pk * 7$$),
  -- the witnesses: 100 / f.d fails on a fact row with d = 0, 100 / d.w on a dimension row with w = 0
  ('oa_wit_fact', $$SELECT f.id, 100 / f.d AS r, d.brand FROM oa_fact f LEFT JOIN oa_dim d ON d.pk = f.pk$$),
  ('oa_wit_dim', $$SELECT f.id, d.brand, 100 / d.w AS r FROM oa_fact f LEFT JOIN oa_dim d ON d.pk = f.pk$$);
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual', refresh_mode => 'incremental')
  FROM oa_defs ORDER BY name;

\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round

-- the witnesses' last refresh: applied again over consolidated windows after a row read as it is failed?
CREATE FUNCTION oa_retried() RETURNS TABLE (name text, refresh_mode text, retried boolean) LANGUAGE sql AS $$
  SELECT DISTINCT ON (table_name) table_name, refresh_mode,
         coalesce(mode_reason LIKE 'The changes were applied again over consolidated windows: applying them as read (dynview.linear_windows_as_is) failed with an error on a row read as it is: division by zero%', false)
    FROM dynview.refresh_history WHERE table_name IN ('oa_wit_fact', 'oa_wit_dim')
   ORDER BY table_name, refresh_id DESC
$$;

-- (1) only the fact changes: rows that match one or two dimension rows, none (pk 21-25), a NULL
-- key; copies of existing rows; rows inserted and deleted again (separate transactions); rows
-- updated three times; rows moved between matched and padded; padded and matched rows deleted
INSERT INTO oa_fact VALUES (1001, 5, 3, 10, 1, 'a'), (1002, 24, 4, 11, 2, 'b'), (1003, NULL, 5, 12, 3, 'c'),
                           (1004, 3, 6, 13, 1, 'd'), (1005, 5, 3, 10, 1, 'a');
INSERT INTO oa_fact SELECT i, 1 + i % 25, 1 + i % 6, i, 1, 'x' FROM generate_series(2001, 2040) i;
DELETE FROM oa_fact WHERE id > 2000;
UPDATE oa_fact SET price = price + 1 WHERE id % 10 = 1;
UPDATE oa_fact SET price = price + 1, note = note || 'u' WHERE id % 10 = 1;
UPDATE oa_fact SET price = price - 2 WHERE id % 10 = 1;
UPDATE oa_fact SET pk = 22 WHERE id IN (2, 12, 1004);
UPDATE oa_fact SET pk = 4 WHERE id IN (21, 46);
UPDATE oa_fact SET pk = NULL WHERE id = 33;
DELETE FROM oa_fact WHERE id IN (22, 47, 34, 1005);
SELECT dynview.wait_for_capture();
BEGIN;
SET LOCAL dynview.linear_windows_as_is = off;
SELECT * FROM dv_refresh_round('oa_defs');
ROLLBACK;
SELECT * FROM dv_refresh_round('oa_defs');

-- (2) only the fact changes, inserted and deleted within the window: NO_DATA either way
INSERT INTO oa_fact SELECT i, 1 + i % 25, 1 + i % 6, i, 1, 'y' FROM generate_series(3001, 3030) i;
DELETE FROM oa_fact WHERE id > 3000;
SELECT dynview.wait_for_capture();
BEGIN;
SET LOCAL dynview.linear_windows_as_is = off;
SELECT * FROM dv_refresh_round('oa_defs');
ROLLBACK;
SELECT * FROM dv_refresh_round('oa_defs');

-- (3) the witness of the preserved side: a fact row with d = 0 corrected within the window is
-- read as it is (its division fails, the refresh is applied again over consolidated windows),
-- in oa_wit_fact; oa_wit_dim divides by the dimension only and is not retried
INSERT INTO oa_fact VALUES (4001, 3, 1, 1, 0, 'zero'), (4002, 23, 1, 1, 0, 'zero, padded');
UPDATE oa_fact SET d = 4 WHERE id IN (4001, 4002);
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('oa_defs');
SELECT * FROM oa_retried();

-- (4) only the dimension changes (the padded side): consolidated first.  A row with w = 0
-- corrected within the window, matched by facts: oa_wit_dim is not retried, as it would be if
-- the window were read as it is.  Facts move between padded and matched: a dimension row for a
-- key no row had (21), one deleted (7, the last of its key), one added to a key that had one
-- (5: its facts now match two), one key updated to NULL (pk 9)
INSERT INTO oa_dim VALUES (6, 'Bzero', 0);
UPDATE oa_dim SET w = 5 WHERE w = 0;
INSERT INTO oa_dim VALUES (21, 'B21', 2), (5, 'B5bis', 3);
DELETE FROM oa_dim WHERE pk = 7;
UPDATE oa_dim SET pk = NULL WHERE pk = 9;
UPDATE oa_dim SET brand = brand || '+' WHERE pk = 3;
SELECT dynview.wait_for_capture();
BEGIN;
SET LOCAL dynview.linear_windows_as_is = off;
SELECT * FROM dv_refresh_round('oa_defs');
ROLLBACK;
SELECT * FROM dv_refresh_round('oa_defs');
SELECT * FROM oa_retried();

-- (5) both sides change in one window (and the dimension's w = 0 row again): consolidated
-- first, as with two changed sources of an inner join
INSERT INTO oa_dim VALUES (8, 'Bzero8', 0);
UPDATE oa_dim SET w = 6 WHERE w = 0;
DELETE FROM oa_dim WHERE pk = 21;
INSERT INTO oa_fact VALUES (5001, 21, 3, 9, 2, 'was matched'), (5002, 8, 3, 9, 2, 'two now');
UPDATE oa_fact SET pk = 7 WHERE id IN (3, 4);
SELECT dynview.wait_for_capture();
BEGIN;
SET LOCAL dynview.linear_windows_as_is = off;
SELECT * FROM dv_refresh_round('oa_defs');
ROLLBACK;
SELECT * FROM dv_refresh_round('oa_defs');
SELECT * FROM oa_retried();

-- (6) the fact alone again, its rows moved onto and off the keys the dimension changed
UPDATE oa_fact SET pk = 21 WHERE id IN (5, 6);
UPDATE oa_fact SET pk = 9 WHERE id = 8;
UPDATE oa_fact SET pk = 8 WHERE id = 5001;
DELETE FROM oa_fact WHERE id = 5002;
SELECT dynview.wait_for_capture();
BEGIN;
SET LOCAL dynview.linear_windows_as_is = off;
SELECT * FROM dv_refresh_round('oa_defs');
ROLLBACK;
SELECT * FROM dv_refresh_round('oa_defs');

SELECT id, q, brand FROM oa_key WHERE id IN (1001, 1002, 1003, 1004, 2, 5, 6, 8, 33) ORDER BY id, brand;

DROP FUNCTION oa_retried();
DROP FUNCTION dv_refresh_round(regclass);
SELECT dynview.drop_dynamic_table(name) FROM oa_defs ORDER BY name;
DROP TABLE oa_defs, oa_fact, oa_dim;
