-- FULL refresh with a parallel plan (issue 14): when a source is at least
-- min_parallel_table_scan_size, the difference is written to a temporary table by a plan that may
-- be parallel (as REFRESH MATERIALIZED VIEW fills its heap; a statement that writes never is),
-- then applied.  Here the threshold is 0 and parallel plans cost nothing, so every FULL refresh
-- takes that path.
-- Tables with and without a key, equal-but-not-identical values, copies, NULL keys, a result
-- that repeats a keyed row, and the rows written for a downstream; verify() after each refresh.
SET client_min_messages = warning;
-- no temporary schema yet: the refresh makes it (as the owner) and leaves no table in it
SELECT pg_my_temp_schema() = 0 AS no_temp_schema;
SET min_parallel_table_scan_size = 0;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET max_parallel_workers_per_gather = 2;

CREATE TABLE frp_src (id int, g text, v numeric);
INSERT INTO frp_src SELECT i, 'g' || (i % 4), i FROM generate_series(1, 200) i;
INSERT INTO frp_src VALUES (1, 'g1', 1), (NULL, 'g0', 5);
-- without key: copies counted, matched by text
SELECT dynview.create_dynamic_table('frp_bag', 'SELECT id, g, v FROM frp_src', schedule => 'manual', refresh_mode => 'full');
-- with a key (NULLS NOT DISTINCT: the NULL key is a row like any other)
SELECT dynview.create_dynamic_table('frp_keyed', 'SELECT DISTINCT ON (id) id, g, v FROM frp_src ORDER BY id, v',
                                    schedule => 'manual', refresh_mode => 'full', primary_key => ARRAY['id']);
-- grouped, keyed, read by a downstream (its FULL refresh writes -1/+1 rows to the buffer)
SELECT dynview.create_dynamic_table('frp_groups', 'SELECT g, sum(v) AS total, count(*) AS n FROM frp_src GROUP BY g',
                                    schedule => 'manual', refresh_mode => 'full', primary_key => ARRAY['g']);
SELECT dynview.create_dynamic_table('frp_down', 'SELECT sum(total) AS total, sum(n) AS n FROM frp_groups',
                                    schedule => 'manual');
CREATE TEMP TABLE frp_kept AS SELECT ctid AS tid FROM frp_keyed WHERE id BETWEEN 100 AND 150;

UPDATE frp_src SET v = v * 1.0 WHERE id % 10 = 1;       -- equal, not identical (1 -> 1.0)
UPDATE frp_src SET v = v + 1 WHERE id % 10 = 2;
DELETE FROM frp_src WHERE id % 10 = 3;
INSERT INTO frp_src VALUES (1000, 'g9', 7), (NULL, 'g0', 4), (2, 'g2', 3);
SELECT refresh_mode, rows_deleted, rows_inserted FROM dynview.refresh('frp_bag');
SELECT refresh_mode, rows_deleted, rows_inserted FROM dynview.refresh('frp_keyed');
SELECT refresh_mode, rows_deleted, rows_inserted FROM dynview.refresh('frp_down');
SELECT refresh_mode, rows_deleted, rows_inserted FROM dynview.refresh_history('frp_groups', 1);
SELECT dynview.verify('frp_bag'), dynview.verify('frp_keyed'), dynview.verify('frp_groups'), dynview.verify('frp_down');
-- rows the refresh did not have to change kept their place
SELECT count(*) AS kept FROM frp_keyed k JOIN frp_kept c ON k.ctid = c.tid;
SELECT v::text FROM frp_keyed WHERE id = 11;
SELECT id, v::text FROM frp_keyed WHERE id IS NULL;
SELECT g, total::text, n FROM frp_groups ORDER BY g;
-- the temporary schema exists now, and holds no table
SELECT pg_my_temp_schema() <> 0 AS temp_schema,
       (SELECT count(*) FROM pg_class WHERE relnamespace = pg_my_temp_schema() AND relname LIKE 'dv_full_%') AS left_behind;

-- a keyed table whose query repeats one of its rows identically: the refresh fails and the
-- table keeps its rows (one copy cannot stand for two)
CREATE TABLE frp_dup (k int, v numeric);
INSERT INTO frp_dup VALUES (1, 1.0), (2, 2);
SELECT dynview.create_dynamic_table('frp_dupk', 'SELECT k, v FROM frp_dup', schedule => 'manual',
                                    refresh_mode => 'full', primary_key => ARRAY['k']);
INSERT INTO frp_dup VALUES (1, 1.0);
SELECT refresh_mode FROM dynview.refresh('frp_dupk');
-- the same without the parallel path (a WITH query) fails alike
SET min_parallel_table_scan_size = '8MB';
SELECT refresh_mode FROM dynview.refresh('frp_dupk');
SELECT k, v::text FROM frp_dupk ORDER BY k;
-- a second copy that differs (1.00, equal to 1.0 but not identical): two rows with one key fail too
DELETE FROM frp_dup WHERE ctid = (SELECT max(ctid) FROM frp_dup WHERE k = 1);
INSERT INTO frp_dup VALUES (1, 1.00);
SELECT refresh_mode FROM dynview.refresh('frp_dupk');
DELETE FROM frp_dup WHERE v::text = '1.00';
SELECT refresh_mode, rows_deleted, rows_inserted FROM dynview.refresh('frp_dupk');
SELECT dynview.verify('frp_dupk');

-- the owner without the TEMP privilege: the refresh computes the difference in its WITH query
SET min_parallel_table_scan_size = 0;
CREATE ROLE regress_dv_frp_owner;
DO $$ BEGIN EXECUTE format('REVOKE TEMP ON DATABASE %I FROM PUBLIC', current_database()); END $$;
GRANT CREATE ON SCHEMA public TO regress_dv_frp_owner;
GRANT SELECT ON frp_src TO regress_dv_frp_owner;
SET ROLE regress_dv_frp_owner;
SELECT dynview.create_dynamic_table('frp_owned', 'SELECT g, max(v) AS top FROM frp_src GROUP BY g',
                                    schedule => 'manual', refresh_mode => 'full', primary_key => ARRAY['g']);
RESET ROLE;
UPDATE frp_src SET v = v + 100 WHERE g = 'g2';
SELECT refresh_mode, rows_deleted, rows_inserted FROM dynview.refresh('frp_owned');
SELECT dynview.verify('frp_owned');
DO $$ BEGIN EXECUTE format('GRANT TEMP ON DATABASE %I TO PUBLIC', current_database()); END $$;

-- an AUTO table whose window exceeds dynview.full_refresh_change_ratio is recomputed (CHANGE_VOLUME)
-- on the same path: in a new session (no temporary schema yet), the refresh's difference table
-- makes one and leaves nothing in it; a small window after it stays incremental
CREATE TABLE frp_vol (id int PRIMARY KEY, g text, v numeric);
INSERT INTO frp_vol SELECT i, 'g' || (i % 7), i FROM generate_series(1, 3000) i;
ANALYZE frp_vol;
SELECT dynview.create_dynamic_table('frp_auto', 'SELECT id, g, v FROM frp_vol WHERE v % 5 <> 0', schedule => 'manual');
\c
SET client_min_messages = warning;
SET min_parallel_table_scan_size = 0;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET max_parallel_workers_per_gather = 2;
SET dynview.full_refresh_change_ratio = 0.5;
SELECT pg_my_temp_schema() = 0 AS no_temp_schema;
UPDATE frp_vol SET v = v * 1.0 WHERE id <= 900;        -- equal, not identical (7 -> 7.0)
UPDATE frp_vol SET v = v + 1 WHERE id BETWEEN 901 AND 2400;
DELETE FROM frp_vol WHERE id > 2900;
INSERT INTO frp_vol VALUES (5000, 'g9', 5001), (5001, NULL, NULL);
SELECT refresh_mode, mode_reason_code, rows_deleted, rows_inserted FROM dynview.refresh('frp_auto');
SELECT pg_my_temp_schema() <> 0 AS temp_schema,
       (SELECT count(*) FROM pg_class WHERE relnamespace = pg_my_temp_schema() AND relname LIKE 'dv_full_%') AS left_behind;
SELECT dynview.verify('frp_auto');
-- the table and its query, by text and by =
SELECT (SELECT count(*) FROM (SELECT t::text FROM frp_auto t EXCEPT ALL
          SELECT q::text FROM (SELECT id, g, v FROM frp_vol WHERE v % 5 <> 0) q) d) AS text_extra,
       (SELECT count(*) FROM (SELECT q::text FROM (SELECT id, g, v FROM frp_vol WHERE v % 5 <> 0) q EXCEPT ALL
          SELECT t::text FROM frp_auto t) d) AS text_missing,
       (SELECT count(*) FROM (SELECT * FROM frp_auto EXCEPT ALL SELECT id, g, v FROM frp_vol WHERE v % 5 <> 0) d) AS eq_extra,
       (SELECT count(*) FROM (SELECT id, g, v FROM frp_vol WHERE v % 5 <> 0 EXCEPT ALL SELECT * FROM frp_auto) d) AS eq_missing;
SELECT id, g, v::text FROM frp_auto WHERE id IN (3, 1001, 5000, 5001) ORDER BY id;
UPDATE frp_vol SET v = v + 1 WHERE id = 3;
SELECT refresh_mode, mode_reason_code, rows_deleted, rows_inserted FROM dynview.refresh('frp_auto');
SELECT dynview.verify('frp_auto');
SELECT dynview.drop_dynamic_table('frp_auto');
DROP TABLE frp_vol;

SELECT dynview.wait_for_capture();
SELECT dynview.drop_dynamic_table('frp_owned');
SELECT dynview.drop_dynamic_table(t) FROM unnest(ARRAY['frp_down', 'frp_groups', 'frp_keyed', 'frp_bag', 'frp_dupk']) t;
DROP TABLE frp_src, frp_dup;
REVOKE ALL ON SCHEMA public FROM regress_dv_frp_owner;
DROP ROLE regress_dv_frp_owner;
