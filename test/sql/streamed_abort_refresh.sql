-- (Seventh session's adversarial tester.)  A large transaction that the decoder streams into the change buffer,
-- then aborts right before a refresh.  The abort record is not flushed at ROLLBACK and sets no
-- commit-log LSN, so capture_target (which waits only up to the WAL flush position, or the
-- commit-log group LSN of the window's transactions) may not wait for the decoder to process the
-- abort and delete the streamed rows: the refresh must still never read them (design section 5).
-- Every refresh is checked with verify(); the correct result is true and no phantom row.
SET client_min_messages = warning;
ALTER SYSTEM SET logical_decoding_work_mem = '64kB';
SELECT pg_reload_conf();
-- keep the refreshes below INCREMENTAL (the aborted rows must not be read as a change volume)
SET dynview.full_refresh_change_ratio = 1000;
CREATE TABLE brk_sa (id int PRIMARY KEY, g int NOT NULL, v int NOT NULL);
INSERT INTO brk_sa SELECT i, i % 10, i FROM generate_series(1, 100) i;
SELECT dynview.create_dynamic_table('brk_sa_rows', 'SELECT id, g, v FROM brk_sa', schedule => 'manual');
SELECT dynview.create_dynamic_table('brk_sa_sums',
  'SELECT g, count(*) AS n, sum(v) AS total FROM brk_sa GROUP BY g', schedule => 'manual');
-- waits (up to 60 s) until the decoder has streamed rows of the current transaction into the buffer
CREATE FUNCTION brk_sa_wait_streamed() RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  buf regclass := (SELECT buffer_relid FROM dynview.source_tracking WHERE source_relid = 'brk_sa'::regclass);
  n bigint;
BEGIN
  FOR i IN 1..6000 LOOP
    EXECUTE format('SELECT count(*) FROM %s WHERE dv_xid = pg_current_xact_id()', buf) INTO n;
    IF n > 0 THEN RETURN true; END IF;
    PERFORM pg_sleep(0.01);
  END LOOP;
  RETURN false;
END $$;
-- the decoder worker must have reloaded its configuration: a streamed, committed transaction
BEGIN;
INSERT INTO brk_sa SELECT i, i % 10, i FROM generate_series(101, 3000) i;
SELECT brk_sa_wait_streamed() AS streamed;
COMMIT;
SELECT refresh_mode FROM dynview.refresh('brk_sa_rows');
SELECT refresh_mode FROM dynview.refresh('brk_sa_sums');
SELECT dynview.verify('brk_sa_rows'), dynview.verify('brk_sa_sums');
-- refreshes the two tables in the order given (a round varies it), each refresh INCREMENTAL or
-- NO_DATA (the aborted rows not read as a change volume), then verify() of both and the rows
-- of aborted transactions (ids above 10000 but 40000) found in the plain table
CREATE FUNCTION brk_sa_refresh(first text, second text)
RETURNS TABLE (incremental bool, verified_rows bool, verified_sums bool, phantom_rows bigint)
LANGUAGE plpgsql AS $$
BEGIN
  incremental := (SELECT refresh_mode IN ('INCREMENTAL', 'NO_DATA') FROM dynview.refresh(first))
             AND (SELECT refresh_mode IN ('INCREMENTAL', 'NO_DATA') FROM dynview.refresh(second));
  verified_rows := dynview.verify('brk_sa_rows');
  verified_sums := dynview.verify('brk_sa_sums');
  phantom_rows := (SELECT count(*) FROM brk_sa_rows WHERE id > 10000 AND id <> 40000);
  RETURN NEXT;
END $$;
-- three rounds: streamed, aborted, refreshed at once
BEGIN;
INSERT INTO brk_sa SELECT i, i % 10, i FROM generate_series(10001, 13000) i;
SELECT brk_sa_wait_streamed() AS streamed;
ROLLBACK;
SELECT * FROM brk_sa_refresh('brk_sa_rows', 'brk_sa_sums');
BEGIN;
INSERT INTO brk_sa SELECT i, i % 10, i FROM generate_series(20001, 23000) i;
SELECT brk_sa_wait_streamed() AS streamed;
ROLLBACK;
SELECT * FROM brk_sa_refresh('brk_sa_sums', 'brk_sa_rows');
BEGIN;
INSERT INTO brk_sa SELECT i, i % 10, i FROM generate_series(30001, 33000) i;
SELECT brk_sa_wait_streamed() AS streamed;
ROLLBACK;
SELECT * FROM brk_sa_refresh('brk_sa_rows', 'brk_sa_sums');
-- a later change and refresh: still exact
INSERT INTO brk_sa VALUES (40000, 1, 1);
SELECT * FROM brk_sa_refresh('brk_sa_rows', 'brk_sa_sums');
-- cleanup
SELECT dynview.drop_dynamic_table('brk_sa_rows');
SELECT dynview.drop_dynamic_table('brk_sa_sums');
DROP TABLE brk_sa;
DROP FUNCTION brk_sa_wait_streamed(), brk_sa_refresh(text, text);
ALTER SYSTEM RESET logical_decoding_work_mem;
SELECT pg_reload_conf();
