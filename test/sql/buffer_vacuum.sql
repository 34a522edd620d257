-- A change buffer that pruning does not leave empty (rows of a window not yet
-- consumed remain) is vacuumed by the decoder once it spans 32 pages or more,
-- so that the space of the pruned rows is reused: under a steady stream of
-- changes the buffer is never empty, never truncated, and otherwise grew by
-- every change until autovacuum came (decoder.c, vacuum_pruned_buffers).
CREATE TABLE bv_src (id int PRIMARY KEY, v int, pad text);
SELECT dynview.create_dynamic_table('bv_dt', 'SELECT id, v, pad FROM bv_src',
                                    schedule => 'manual', refresh_mode => 'incremental');
CREATE FUNCTION bv_buffer() RETURNS regclass LANGUAGE sql
  AS $$SELECT buffer_relid::regclass FROM dynview.source_tracking WHERE source_relid = 'bv_src'::regclass$$;
CREATE TEMP TABLE bv_seen (vacuums bigint, file oid, size bigint);
-- wait (at most 60 s) until the buffer holds only the rows not consumed (pruned) and
-- the decoder has vacuumed it since bv_seen was written (a procedure that commits
-- between its looks: a transaction that looked at the buffer holds a lock on it)
CREATE PROCEDURE bv_wait_vacuumed(remaining bigint) LANGUAGE plpgsql AS $$
BEGIN
  FOR i IN 1..600 LOOP
    PERFORM pg_stat_clear_snapshot();
    EXIT WHEN (SELECT buffered_changes FROM dynview.cdc_status WHERE source = 'bv_src'::regclass) = remaining
          AND (SELECT vacuum_count FROM pg_stat_all_tables WHERE relid = bv_buffer()) > (SELECT vacuums FROM bv_seen);
    COMMIT;
    PERFORM pg_sleep(0.1);
  END LOOP;
END $$;
SET dynview.full_refresh_change_ratio = 1000;

-- 5,000 rows, consumed by a refresh; one more row stays in the buffer
INSERT INTO bv_src SELECT i, i, repeat('x', 40) FROM generate_series(1, 5000) i;
SELECT refresh_mode FROM dynview.refresh('bv_dt');
SELECT dynview.verify('bv_dt');
INSERT INTO bv_src VALUES (0, 0, 'kept');
SELECT dynview.wait_for_capture();
INSERT INTO bv_seen
  SELECT vacuum_count, pg_relation_filenode(bv_buffer()), pg_relation_size(bv_buffer())
  FROM pg_stat_all_tables WHERE relid = bv_buffer();
SELECT size >= 32 * 8192 AS spans_32_pages FROM bv_seen;
CALL bv_wait_vacuumed(1);
-- vacuumed, not truncated (it is not empty): the same file, the same size
SELECT (SELECT vacuum_count FROM pg_stat_all_tables WHERE relid = bv_buffer()) > vacuums AS vacuumed,
       pg_relation_filenode(bv_buffer()) = file AS same_file,
       pg_relation_size(bv_buffer()) = size AS same_size
  FROM bv_seen;

-- 5,000 more rows take the space of the pruned ones: the buffer does not grow
-- by their 32 pages or more (a page or two more: free space is found page by page)
INSERT INTO bv_src SELECT i, i, repeat('y', 40) FROM generate_series(5001, 10000) i;
SELECT dynview.wait_for_capture();
SELECT pg_relation_size(bv_buffer()) <= size + 2 * 8192 AS space_reused FROM bv_seen;
SELECT refresh_mode FROM dynview.refresh('bv_dt');
SELECT dynview.verify('bv_dt');
SELECT count(*) FROM bv_dt;

SELECT dynview.drop_dynamic_table('bv_dt');
DROP PROCEDURE bv_wait_vacuumed(bigint);
DROP FUNCTION bv_buffer();
DROP TABLE bv_src;
