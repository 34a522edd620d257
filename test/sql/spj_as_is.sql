-- Select/join tables read a single changed source's window as it is (dynview.linear_windows_as_is,
-- incremental.c linear_in_windows): apply_spj sums the result's delta by the rows' stored values
-- (consolidate_delta), so a row added and removed within one window cancels there instead of in
-- the window read.  Each round below refreshes every table twice on the same changes: first with
-- the windows consolidated first (linear_windows_as_is off, rolled back: the oracle), then as they
-- are; the modes must agree, and every refresh is compared with its query (dynview.verify(), the
-- rows by text and by =).
SET client_min_messages = warning;

CREATE TABLE sa_fact (id int PRIMARY KEY, pk int, q int, price numeric, d int, note text);
CREATE TABLE sa_dim (pk int PRIMARY KEY, brand text);
INSERT INTO sa_dim SELECT i, 'B' || (i % 4) FROM generate_series(1, 20) i;
INSERT INTO sa_fact SELECT i, 1 + i % 20, i % 7, i * 1.5, 1 + i % 3, repeat('n', i % 5)
  FROM generate_series(1, 200) i;

CREATE TABLE sa_defs (name text PRIMARY KEY, query text NOT NULL);
INSERT INTO sa_defs VALUES
  -- a key (id): the removed rows are found by it
  ('sa_join', $$SELECT f.id, f.q, f.price, d.brand FROM sa_fact f JOIN sa_dim d ON d.pk = f.pk WHERE f.q > 0$$),
  -- no key: equal rows are copies, removed by their text
  ('sa_copies', $$SELECT f.pk, f.price, d.brand FROM sa_fact f JOIN sa_dim d USING (pk)$$),
  -- an expression that fails on a row a later change undid
  ('sa_div', $$SELECT f.id, 100 / f.d AS r, f.note FROM sa_fact f$$),
  -- a set-returning function in the select list repeats a row
  ('sa_srf', $$SELECT f.id, generate_series(1, f.q % 3 + 1) AS k, f.price FROM sa_fact f WHERE f.id % 2 = 0$$);
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual', refresh_mode => 'incremental')
  FROM sa_defs ORDER BY name;

\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round

-- (1) rows inserted and deleted again within the window (separate transactions): consolidated,
-- the window is empty (NO_DATA); as it is, the result's rows cancel and the window is found to
-- consolidate to nothing: NO_DATA too
INSERT INTO sa_fact SELECT i, 1 + i % 20, 1 + i % 6, i, 1, 'x' FROM generate_series(1001, 1040) i;
DELETE FROM sa_fact WHERE id > 1000;
SELECT dynview.wait_for_capture();
BEGIN;
SET LOCAL dynview.linear_windows_as_is = off;
SELECT * FROM dv_refresh_round('sa_defs');
ROLLBACK;
SELECT * FROM dv_refresh_round('sa_defs');

-- (2) each row updated three times within the window, copies made and one of two copies
-- deleted, rows inserted and updated: intermediate images cancel in the result's delta
UPDATE sa_fact SET price = price + 1 WHERE id % 10 = 1;
UPDATE sa_fact SET price = price + 1, note = note || 'u' WHERE id % 10 = 1;
UPDATE sa_fact SET price = price - 2 WHERE id % 10 = 1;
UPDATE sa_fact SET q = q + 1 WHERE id % 10 = 2;
INSERT INTO sa_fact SELECT 2000 + i, 5, 3, 7.5, 1, 'c' FROM generate_series(1, 4) i;
DELETE FROM sa_fact WHERE id IN (2001, 2003);
INSERT INTO sa_fact SELECT i, 1 + i % 20, 2, i, 2, 'y' FROM generate_series(3001, 3010) i;
UPDATE sa_fact SET price = price * 2 WHERE id > 3000;
SELECT dynview.wait_for_capture();
BEGIN;
SET LOCAL dynview.linear_windows_as_is = off;
SELECT * FROM dv_refresh_round('sa_defs');
ROLLBACK;
SELECT * FROM dv_refresh_round('sa_defs');

-- (3) an UPDATE to an equal value spelled otherwise (unconstrained numeric), and back and forth
-- within one window: the table must show the last spelling
UPDATE sa_fact SET price = 3.0 WHERE id IN (2, 4, 6);
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('sa_defs');
UPDATE sa_fact SET price = 3.00 WHERE id IN (2, 4, 6);
UPDATE sa_fact SET price = 3.000 WHERE id IN (2, 4);
UPDATE sa_fact SET price = 3.0 WHERE id = 2;
SELECT dynview.wait_for_capture();
BEGIN;
SET LOCAL dynview.linear_windows_as_is = off;
SELECT * FROM dv_refresh_round('sa_defs');
ROLLBACK;
SELECT * FROM dv_refresh_round('sa_defs');
SELECT id, price::text FROM sa_copies c JOIN sa_fact f USING (pk, price) WHERE id IN (2, 4, 6) ORDER BY id;
SELECT id, price::text FROM sa_join WHERE id IN (2, 4, 6) ORDER BY id;

-- (4) a row written with d = 0 and corrected before the refresh: 100 / d fails on it as it is;
-- the refresh applies the consolidated window instead and says so; the other tables are as is
INSERT INTO sa_fact VALUES (4001, 3, 1, 1, 0, 'zero');
UPDATE sa_fact SET d = 4 WHERE id = 4001;
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('sa_defs');
SELECT table_name, refresh_mode, mode_reason LIKE 'The changes were applied again over consolidated windows: applying them as read (dynview.linear_windows_as_is) failed with an error on a row read as it is: division by zero%' AS retried
  FROM dynview.refresh_history WHERE table_name = 'sa_div' ORDER BY refresh_id DESC LIMIT 1;

-- (5) both sources changed: windows consolidated (two changed sources), as before
UPDATE sa_dim SET brand = brand || '+' WHERE pk % 5 = 0;
UPDATE sa_fact SET pk = 1 + (pk + 3) % 20 WHERE id % 9 = 0;
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('sa_defs');

DROP FUNCTION dv_refresh_round(regclass);
SELECT dynview.drop_dynamic_table(name) FROM sa_defs ORDER BY name;
DROP TABLE sa_defs, sa_fact, sa_dim;
