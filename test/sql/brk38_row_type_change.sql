-- Tester's finding (s38): ALTER TYPE ... DROP ATTRIBUTE of a composite type that a source column
-- holds changes no stored value and no column, so the source's signature did not change: values
-- distinct before ((1,0), (1,1)) read equal now ((1)), a group key's groups merge, and the
-- dynamic table's unique apply index still held both: every refresh failed with 23505 on
-- "<table>_dv_apply", for good.  Correct result: the composite's attributes are part of the
-- source's signature (catalog.c append_row_type_shape), so the next refresh is FULL
-- (SOURCE_ALTERED); an apply index on a composite column is made again on the new rows; the
-- table matches its query (by text and by =).  ADD ATTRIBUTE likewise.
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

SET client_min_messages = warning;
SELECT dynview.drop_dynamic_table(name) FROM brt_defs;
DROP TABLE brt_defs, brt_src;
DROP TYPE brt_k;
DROP FUNCTION dv_refresh_round(regclass);
