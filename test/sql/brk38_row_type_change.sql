-- Tester's finding (s38): ALTER TYPE ... DROP ATTRIBUTE of a composite type that a source column
-- holds changes no stored value and no column, so the source's signature did not change: values
-- distinct before ((1,0), (1,1)) read equal now ((1)), a group key's groups merge, and the
-- dynamic table's unique apply index still held both: every refresh failed with 23505 on
-- "<table>_dv_apply", for good.  Correct result: the composite's attributes are part of the
-- source's signature (catalog.c append_row_type_shape), so the next refresh is FULL
-- (SOURCE_ALTERED); an apply index on a composite column is made again on the new rows; the
-- table matches its query (by text and by =).  ADD ATTRIBUTE likewise.  Second round: an
-- attribute dropped and added again; a composite inside a range.
SET client_min_messages = warning;
CREATE TYPE brt_k AS (x int, y int);
CREATE TABLE brt_src (id int PRIMARY KEY, k brt_k, v int);
INSERT INTO brt_src SELECT i, ROW(i % 3, i % 2)::brt_k, i FROM generate_series(1, 12) i;
CREATE TABLE brt_defs (name text PRIMARY KEY, query text NOT NULL);
INSERT INTO brt_defs VALUES
  ('brt_groups', 'SELECT k, count(*) AS n, sum(v) AS s FROM brt_src GROUP BY k'),
  ('brt_rows', 'SELECT id, k, v FROM brt_src'),
  ('brt_arrays', 'SELECT id, ARRAY[k] AS ks FROM brt_src');
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual', refresh_mode => 'incremental')
  FROM brt_defs ORDER BY name;
RESET client_min_messages;

\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round

ALTER TYPE brt_k DROP ATTRIBUTE y;
INSERT INTO brt_src VALUES (13, ROW(1)::brt_k, 13);
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('brt_defs');
SELECT k, n, s FROM brt_groups ORDER BY k;
-- incremental again afterwards
INSERT INTO brt_src VALUES (14, ROW(2)::brt_k, 14);
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('brt_defs');

ALTER TYPE brt_k ADD ATTRIBUTE z text;
UPDATE brt_src SET k = ROW((k).x, 'a') WHERE id < 4;
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('brt_defs');
SELECT k, n, s FROM brt_groups ORDER BY k;

-- Second round (tester): an attribute dropped and added again under its name and type (old values
-- read it as NULL) is another attribute; a composite inside a range type is followed too.
ALTER TYPE brt_k DROP ATTRIBUTE z, ADD ATTRIBUTE z text;
UPDATE brt_src SET v = v + 100 WHERE id IN (3, 6);
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('brt_defs');
SELECT k, n, s FROM brt_groups ORDER BY k;
SET client_min_messages = warning;
CREATE TYPE brt_r AS RANGE (subtype = brt_k);
CREATE TABLE brt_src2 (id int PRIMARY KEY, r brt_r, v int);
INSERT INTO brt_src2 SELECT i, brt_r(ROW(i % 3, 'a')::brt_k, ROW(5, 'b')::brt_k), i FROM generate_series(1, 12) i;
INSERT INTO brt_defs VALUES ('brt_ranges', 'SELECT r, count(*) AS n, sum(v) AS s FROM brt_src2 GROUP BY r');
SELECT dynview.create_dynamic_table('brt_ranges', 'SELECT r, count(*) AS n, sum(v) AS s FROM brt_src2 GROUP BY r',
                                    schedule => 'manual', refresh_mode => 'incremental');
RESET client_min_messages;
ALTER TYPE brt_k DROP ATTRIBUTE z;
INSERT INTO brt_src2 VALUES (13, brt_r(ROW(1)::brt_k, ROW(5)::brt_k), 13);
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('brt_defs');

SET client_min_messages = warning;
SELECT dynview.drop_dynamic_table(name) FROM brt_defs;
DROP TABLE brt_defs, brt_src, brt_src2;
DROP TYPE brt_r;
DROP TYPE brt_k;
DROP FUNCTION dv_refresh_round(regclass);
