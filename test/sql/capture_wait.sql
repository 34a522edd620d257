-- What a refresh waits for (design section 5, step 3; incremental.c capture_target): the
-- decoder must have buffered every transaction of its window.  A transaction that commits
-- synchronously is flushed before it is visible, so the refresh waits for the decoder to reach
-- the WAL flush position, without a flush of its own; one that commits asynchronously
-- (synchronous_commit = off) may not be flushed yet when the refresh starts, so the refresh
-- flushes up to its commit.  Either way the refresh gets the change, and verify() agrees.
SET client_min_messages = warning;
CREATE TABLE cw_src (id int PRIMARY KEY, v int);
INSERT INTO cw_src SELECT g, g FROM generate_series(1, 10) g;
SELECT dynview.create_dynamic_table('cw_dt', 'SELECT id, v * 2 AS v2 FROM cw_src', schedule => 'manual');
SELECT dynview.create_dynamic_table('cw_sum', 'SELECT count(*) AS n, sum(v) AS s FROM cw_src', schedule => 'manual');

-- each round: a write committed asynchronously, then both tables refreshed at once, each
-- refresh verified; the rounds' results are kept and shown together
CREATE TABLE cw_result (round int, name text, mode text, ins bigint, del bigint, verified boolean);
CREATE PROCEDURE cw_rounds(first int, last int, sync text)
LANGUAGE plpgsql AS $$
BEGIN
  FOR r IN first..last LOOP
    PERFORM set_config('synchronous_commit', sync, false);
    IF r % 3 = 0 THEN
      DELETE FROM cw_src WHERE id = r - 1;
    ELSIF r % 3 = 1 THEN
      INSERT INTO cw_src VALUES (100 + r, r);
    ELSE
      UPDATE cw_src SET v = v + 1 WHERE id = (SELECT min(id) FROM cw_src);
    END IF;
    COMMIT;
    PERFORM set_config('synchronous_commit', 'on', false);
    INSERT INTO cw_result SELECT r, t, h.refresh_mode, h.rows_inserted, h.rows_deleted, dynview.verify(t)
      FROM unnest(ARRAY['cw_dt', 'cw_sum']) t, LATERAL dynview.refresh(t) h;
    COMMIT;
  END LOOP;
END $$;
CALL cw_rounds(1, 6, 'off');
CALL cw_rounds(7, 9, 'on');
SELECT * FROM cw_result ORDER BY round, name;

-- a window of more transactions than are looked up one by one (10,000): the refresh waits for
-- the position after its snapshot, as without the look-ups, and gets the change
CREATE PROCEDURE cw_many(n int)
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM set_config('synchronous_commit', 'off', false);
  FOR i IN 1..n LOOP
    PERFORM pg_current_xact_id();
    COMMIT;
  END LOOP;
  INSERT INTO cw_src VALUES (1000, 1000);
  COMMIT;
  PERFORM set_config('synchronous_commit', 'on', false);
END $$;
CALL cw_many(10050);
SELECT h.refresh_mode, h.rows_inserted, h.rows_deleted, dynview.verify('cw_dt') FROM dynview.refresh('cw_dt') h;
SELECT h.refresh_mode, dynview.verify('cw_sum') FROM dynview.refresh('cw_sum') h;
SELECT * FROM cw_sum;

SELECT dynview.drop_dynamic_table('cw_dt');
SELECT dynview.drop_dynamic_table('cw_sum');
DROP PROCEDURE cw_rounds(int, int, text);
DROP PROCEDURE cw_many(int);
DROP TABLE cw_src, cw_result;
