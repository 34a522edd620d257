-- The direct apply's delete (apply.c) finds the rows that leave through the dynamic table's
-- unique key index when the index uses the key type's default B-tree operator family, also where
-- that family's input type is one the column's type is binary coercible to: varchar (text_ops),
-- a domain (its base type's), an enum (anyenum), an array (anyarray).  Each round changes the
-- sources (new rows, updated values, equal values spelled otherwise, key changes, deletes) and
-- compares each refresh with its query (dv_refresh_round: verify(), the rows by text and by =).
-- Types whose "=" has no B-tree comparison behind it (xid[]) are no key and get no apply index.
SET client_min_messages = warning;
CREATE DOMAIN dak_code AS text CHECK (VALUE <> '');
CREATE TYPE dak_color AS ENUM ('red', 'green', 'blue');
CREATE TABLE dak_vc (id varchar(12) PRIMARY KEY, amount numeric, note text);
CREATE TABLE dak_dom (id dak_code PRIMARY KEY, amount numeric);
CREATE TABLE dak_enum (color dak_color, n int, amount numeric, PRIMARY KEY (color, n));
CREATE TABLE dak_arr (id int[] PRIMARY KEY, amount numeric);
INSERT INTO dak_vc SELECT 'k' || i, i, 'n' || i FROM generate_series(1, 30) i;
INSERT INTO dak_dom SELECT 'd' || i, i FROM generate_series(1, 30) i;
INSERT INTO dak_enum SELECT c, i, i FROM unnest(enum_range(NULL::dak_color)) c, generate_series(1, 10) i;
INSERT INTO dak_arr SELECT ARRAY[i, i + 1], i FROM generate_series(1, 30) i;

CREATE TABLE dak_defs (name text PRIMARY KEY, query text NOT NULL);
INSERT INTO dak_defs VALUES
  ('dak_vc_rows', 'SELECT id, amount, note FROM dak_vc WHERE amount < 1000'),
  ('dak_dom_rows', 'SELECT id, amount FROM dak_dom'),
  ('dak_enum_rows', 'SELECT color, n, amount FROM dak_enum'),
  ('dak_arr_rows', 'SELECT id, amount FROM dak_arr');
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual', refresh_mode => 'incremental') IS NOT NULL AS created
  FROM dak_defs ORDER BY name;
-- each table has its unique key index, on the key column's type's default operator family
SELECT c.relname, pg_get_indexdef(i.indexrelid) ~ '^CREATE UNIQUE INDEX' AS is_unique,
       opc.opcname, opc.opcintype::regtype AS opclass_input
  FROM dak_defs d JOIN pg_class c ON c.relname = d.name
  JOIN pg_index i ON i.indrelid = c.oid
  JOIN pg_opclass opc ON opc.oid = i.indclass[0]
 ORDER BY c.relname;

\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round

-- round 1: updates of values, equal values spelled otherwise (1.0 for 1), deletes, new rows
UPDATE dak_vc SET amount = amount + 1 WHERE id IN ('k1', 'k2', 'k3');
UPDATE dak_vc SET amount = 4.0 WHERE id = 'k4';
DELETE FROM dak_vc WHERE id IN ('k5', 'k6');
INSERT INTO dak_vc VALUES ('k100', 100, 'new'), ('K100', 100, 'upper');
UPDATE dak_dom SET amount = 7.00 WHERE id = 'd7';
DELETE FROM dak_dom WHERE id IN ('d8', 'd9');
INSERT INTO dak_dom VALUES ('d100', 100);
UPDATE dak_enum SET amount = amount * 2 WHERE color = 'green';
DELETE FROM dak_enum WHERE color = 'blue' AND n <= 3;
INSERT INTO dak_enum VALUES ('blue', 100, 1);
UPDATE dak_arr SET amount = 3.0 WHERE id = ARRAY[3, 4];
DELETE FROM dak_arr WHERE id IN (ARRAY[5, 6], ARRAY[6, 7]);
INSERT INTO dak_arr VALUES (ARRAY[100], 100), ('{}', 0);
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('dak_defs');

-- round 2: key changes (a row leaves under its old key and comes under its new one), a row
-- moving out of the filter and back, a deleted key inserted again, NULL elements in an array key
UPDATE dak_vc SET id = 'k1b' WHERE id = 'k1';
UPDATE dak_vc SET amount = 5000 WHERE id = 'k2';
INSERT INTO dak_vc VALUES ('k5', 5, 'again');
UPDATE dak_dom SET id = 'd1b' WHERE id = 'd1';
UPDATE dak_enum SET color = 'blue', n = 200 WHERE color = 'red' AND n = 1;
UPDATE dak_arr SET id = ARRAY[1, NULL] WHERE id = ARRAY[1, 2];
INSERT INTO dak_arr VALUES (ARRAY[NULL, 1]::int[], 7);
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('dak_defs');

-- round 3: the filtered row comes back, the re-spelled values changed back, half the rows go
UPDATE dak_vc SET amount = 2 WHERE id = 'k2';
UPDATE dak_vc SET amount = 4 WHERE id = 'k4';
DELETE FROM dak_vc WHERE id LIKE 'k1%';
DELETE FROM dak_dom WHERE id > 'd3';
DELETE FROM dak_enum WHERE n % 2 = 0;
DELETE FROM dak_arr WHERE id[1] > 10 OR id[1] IS NULL;
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('dak_defs');

SELECT name, (SELECT count(*) FROM dynview.refresh_history(d.name, 10) h WHERE h.refresh_mode = 'INCREMENTAL') AS incremental_refreshes
  FROM dak_defs d ORDER BY name;

SELECT dynview.drop_dynamic_table(name) FROM dak_defs ORDER BY name;

-- Types with "=" and hashing but no B-tree comparison: xid, and arrays and row types of it (their
-- array_ops and record_ops have the family but compare nothing).  No key and no apply index on
-- them: the at-most-one-row table took its first column as its key (the direct delete then
-- failed: "could not identify a comparison function for type xid"), the two-row table's index
-- on its first column failed to build at creation, an update failed its refresh.
CREATE TYPE dak_xrow AS (a xid, b int);
CREATE DOMAIN dak_xids AS xid[];
CREATE TABLE dak_xid (id int PRIMARY KEY, x xid[], v int);
INSERT INTO dak_xid VALUES (1, ARRAY['5'::xid], 1), (2, ARRAY['6'::xid], 2), (3, ARRAY['6'::xid], 3);
CREATE TABLE dak_xdefs (name text PRIMARY KEY, query text NOT NULL);
INSERT INTO dak_xdefs VALUES
  ('dak_xid_one', 'SELECT s.x, s.v FROM dak_xid s JOIN abs(1) f ON s.id = f'),
  ('dak_xid_rows', 'SELECT x, v FROM dak_xid'),
  ('dak_xrow_one', 'SELECT ROW(s.x[1], s.v)::dak_xrow AS r, s.v FROM dak_xid s JOIN abs(2) f ON s.id = f'),
  ('dak_xdom_rows', 'SELECT x::dak_xids AS x, v FROM dak_xid');
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual', refresh_mode => 'incremental') IS NOT NULL AS created
  FROM dak_xdefs ORDER BY name;
SELECT c.relname, count(i.indexrelid) AS indexes
  FROM dak_xdefs d JOIN pg_class c ON c.relname = d.name
  LEFT JOIN pg_index i ON i.indrelid = c.oid
 GROUP BY c.relname ORDER BY c.relname;
UPDATE dak_xid SET x = ARRAY['7'::xid] WHERE id = 2;
UPDATE dak_xid SET v = 10 WHERE id = 3;
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('dak_xdefs');
DELETE FROM dak_xid WHERE id IN (1, 2);
INSERT INTO dak_xid VALUES (4, ARRAY['6'::xid, NULL], 4);
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('dak_xdefs');

SELECT dynview.drop_dynamic_table(name) FROM dak_xdefs ORDER BY name;
DROP FUNCTION dv_refresh_round(regclass);
DROP TABLE dak_defs, dak_xdefs, dak_vc, dak_dom, dak_enum, dak_arr, dak_xid;
DROP TYPE dak_color, dak_xrow;
DROP DOMAIN dak_code, dak_xids;
