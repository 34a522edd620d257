-- A partition or inheritance child whose changes the WAL does not carry makes the readers of
-- its tree FULL, however it got there: created or attached unlogged (SOURCE_NOT_CAPTURED, as
-- explain() and creation already said), and switched between logged and unlogged (ALTER TABLE
-- ... SET [UN]LOGGED: the readers refresh FULL next, SOURCE_PARTITIONS_CHANGED, since writes
-- made while unlogged were never logged and SET LOGGED copies the rows without logging them as
-- changes).  Before, the refresh after such a partition was written said NO_DATA and the table
-- stayed unequal to its query (found by the fourteenth session's new user).  After every step
-- each table is refreshed and compared with its query: verify(), and the rows by text and by =.
SET client_min_messages = warning;
\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round
CREATE TABLE pcg_moves (id int, d date, sku int, qty numeric, PRIMARY KEY (id, d)) PARTITION BY RANGE (d);
CREATE TABLE pcg_moves_jan PARTITION OF pcg_moves FOR VALUES FROM ('2026-01-01') TO ('2026-02-01');
CREATE TABLE pcg_skus (sku int PRIMARY KEY, name text);
INSERT INTO pcg_skus SELECT i, 'sku ' || i FROM generate_series(1, 4) i;
INSERT INTO pcg_moves SELECT i, date '2026-01-01' + i % 28, i % 4 + 1, i * 1.50 FROM generate_series(1, 20) i;
CREATE TABLE pcg_parent (id int PRIMARY KEY, g int, v numeric);
CREATE TABLE pcg_child () INHERITS (pcg_parent);
INSERT INTO pcg_parent SELECT i, i % 3, i FROM generate_series(1, 6) i;
INSERT INTO pcg_child SELECT i, i % 3, i FROM generate_series(7, 12) i;
CREATE TABLE pcg_defs (name text, query text);
INSERT INTO pcg_defs VALUES
  ('pcg_totals', 'SELECT count(*) AS n, sum(qty) AS total FROM pcg_moves'),
  ('pcg_by_sku', 'SELECT s.name, m.id, m.d, m.qty FROM pcg_moves m JOIN pcg_skus s ON s.sku = m.sku'),
  ('pcg_groups', 'SELECT g, count(*) AS n, sum(v) AS s FROM pcg_parent GROUP BY g');
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual') IS NOT NULL AS created FROM pcg_defs ORDER BY name;
SELECT name, effective_mode FROM dynview.dynamic_tables WHERE name::text LIKE 'pcg%' ORDER BY 1;
-- an empty unlogged partition attached, then written: its changes are not captured
CREATE UNLOGGED TABLE pcg_moves_feb (LIKE pcg_moves);
ALTER TABLE pcg_moves ATTACH PARTITION pcg_moves_feb FOR VALUES FROM ('2026-02-01') TO ('2026-03-01');
INSERT INTO pcg_moves VALUES (101, '2026-02-05', 2, 10.00);
SELECT * FROM dv_refresh_round('pcg_defs');
-- written while unlogged, then SET LOGGED before any refresh: FULL, rows and deletions both
DELETE FROM pcg_moves WHERE id = 101;
INSERT INTO pcg_moves VALUES (102, '2026-02-06', 3, 7.0);
ALTER TABLE pcg_moves_feb SET LOGGED;
SELECT * FROM dv_refresh_round('pcg_defs');
-- logged again: incremental again
UPDATE pcg_moves SET qty = qty + 1 WHERE id IN (1, 102);
SELECT * FROM dv_refresh_round('pcg_defs');
-- a logged partition made unlogged, written, made logged again, written
ALTER TABLE pcg_moves_jan SET UNLOGGED;
INSERT INTO pcg_moves VALUES (103, '2026-01-09', 1, 3.25);
SELECT * FROM dv_refresh_round('pcg_defs');
UPDATE pcg_moves SET qty = 0 WHERE id = 103;
DELETE FROM pcg_moves WHERE id = 2;
ALTER TABLE pcg_moves_jan SET LOGGED;
SELECT * FROM dv_refresh_round('pcg_defs');
INSERT INTO pcg_moves VALUES (104, '2026-01-10', 4, 1.0);
SELECT * FROM dv_refresh_round('pcg_defs');
-- a partition created unlogged
CREATE UNLOGGED TABLE pcg_moves_mar PARTITION OF pcg_moves FOR VALUES FROM ('2026-03-01') TO ('2026-04-01');
INSERT INTO pcg_moves VALUES (105, '2026-03-02', 1, 2.0);
SELECT * FROM dv_refresh_round('pcg_defs');
SELECT property, value FROM dynview.explain('SELECT count(*) FROM pcg_moves') WHERE property IN ('mode', 'reason_code');
DROP TABLE pcg_moves_mar;
SELECT * FROM dv_refresh_round('pcg_defs');
-- an inheritance child made unlogged, written, made logged again before any refresh
ALTER TABLE pcg_child SET UNLOGGED;
INSERT INTO pcg_child VALUES (13, 1, 13);
DELETE FROM pcg_child WHERE id = 7;
ALTER TABLE pcg_child SET LOGGED;
SELECT * FROM dv_refresh_round('pcg_defs');
UPDATE pcg_parent SET v = v * 2 WHERE id IN (1, 8);
SELECT * FROM dv_refresh_round('pcg_defs');
SELECT dynview.drop_dynamic_table(name) FROM pcg_defs ORDER BY name DESC;
DROP TABLE pcg_defs, pcg_moves, pcg_skus, pcg_child, pcg_parent;
DROP FUNCTION dv_refresh_round(regclass);
