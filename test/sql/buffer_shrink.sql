-- A change buffer that pruning leaves without a row, and that spans at least
-- 128 pages, is truncated by the decoder (a new, empty relfilenode): window
-- reads and NO_DATA checks scan the buffer, and their cost must follow the
-- window, not the size the buffer once grew to.
CREATE TABLE bs_src (id int PRIMARY KEY, g int, v numeric);
INSERT INTO bs_src SELECT i, i % 10, i FROM generate_series(1, 100) i;
SELECT dynview.create_dynamic_table('bs_dt', 'SELECT g, sum(v) AS sv, count(*) AS n FROM bs_src GROUP BY g',
                                    schedule => 'manual', refresh_mode => 'incremental');
CREATE FUNCTION bs_buffer() RETURNS regclass LANGUAGE sql
  AS $$SELECT buffer_relid::regclass FROM dynview.source_tracking WHERE source_relid = 'bs_src'::regclass$$;
-- wait (at most 60 s) until the decoder has pruned the source's buffer and, if it
-- truncated it, until its relfilenode is another than the one in bs_file (a procedure that
-- commits between its looks: a transaction that looked at the buffer holds a
-- lock on it, and the decoder never waits for one)
CREATE PROCEDURE bs_wait_pruned(truncated boolean) LANGUAGE plpgsql AS $$
BEGIN
  FOR i IN 1..600 LOOP
    EXIT WHEN (SELECT buffered_changes FROM dynview.cdc_status WHERE source = 'bs_src'::regclass) = 0
          AND (NOT truncated OR pg_relation_filenode(bs_buffer()) <> (SELECT f FROM bs_file));
    COMMIT;
    PERFORM pg_sleep(0.1);
  END LOOP;
END $$;
CREATE TEMP TABLE bs_file (f oid);

-- a small change is pruned, and the buffer is not truncated (below 128 pages)
INSERT INTO bs_file SELECT pg_relation_filenode(bs_buffer());
UPDATE bs_src SET v = v + 1 WHERE id <= 10;
SELECT refresh_mode FROM dynview.refresh('bs_dt');
SELECT dynview.verify('bs_dt');
CALL bs_wait_pruned(false);
SELECT pg_relation_filenode(bs_buffer()) = (SELECT f FROM bs_file) AS same_file,
       pg_relation_size(bs_buffer()) < 128 * 8192 AS small;

-- a large change grows the buffer past 128 pages; once every reader has
-- consumed it, the decoder prunes and truncates it
UPDATE bs_file SET f = pg_relation_filenode(bs_buffer());
INSERT INTO bs_src SELECT i, i % 10, i FROM generate_series(101, 40100) i;
SET dynview.full_refresh_change_ratio = 1000;
SELECT refresh_mode FROM dynview.refresh('bs_dt');
SELECT dynview.verify('bs_dt');
CALL bs_wait_pruned(true);
SELECT pg_relation_filenode(bs_buffer()) <> (SELECT f FROM bs_file) AS new_file,
       pg_relation_size(bs_buffer()) AS size;

-- a refresh over an empty buffer (no page) reads it with no statement (the
-- statistics of earlier statements flushed first: pg_stat_xact_* shows what
-- this backend has not reported yet)
SELECT pg_stat_force_next_flush();
BEGIN;
SELECT refresh_mode FROM dynview.refresh('bs_dt');
SELECT seq_scan + coalesce(idx_scan, 0) AS buffer_scans FROM pg_stat_xact_all_tables WHERE relid = bs_buffer();
COMMIT;
SELECT dynview.verify('bs_dt');

-- windows after the buffer shrank, in the backend whose kept plans read the
-- old relfilenode: updates, deletes and inserts are all there
UPDATE bs_src SET v = v * 2 WHERE id % 13 = 0;
DELETE FROM bs_src WHERE id % 17 = 0;
INSERT INTO bs_src VALUES (100001, 3, 5), (100002, 11, 7);
SELECT pg_stat_force_next_flush();
BEGIN;
SELECT refresh_mode FROM dynview.refresh('bs_dt');
SELECT seq_scan + coalesce(idx_scan, 0) > 0 AS buffer_read FROM pg_stat_xact_all_tables WHERE relid = bs_buffer();
COMMIT;
SELECT dynview.verify('bs_dt');
SELECT refresh_mode FROM dynview.refresh('bs_dt');
SELECT dynview.verify('bs_dt');

-- and the same in a new connection
\c
SET dynview.full_refresh_change_ratio = 1000;
UPDATE bs_src SET g = g + 1 WHERE id % 19 = 0;
SELECT refresh_mode FROM dynview.refresh('bs_dt');
SELECT dynview.verify('bs_dt');

SELECT dynview.drop_dynamic_table('bs_dt');
DROP PROCEDURE bs_wait_pruned(boolean);
DROP FUNCTION bs_buffer();
DROP TABLE bs_src;
