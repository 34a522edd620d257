-- cdc_status while the decoder's process is gone (capture.c dynview_capture_status): the state
-- in shared memory still says RUNNING with the old pid until the launcher sees the worker
-- exit; the view checks the pid against the server's processes and says RESTARTING, pid NULL,
-- instead of naming a process that no longer exists.  The decoder is terminated here and the
-- view read as soon as the process has exited (pg_terminate_backend's wait); then capture is
-- waited for again, and a dynamic table refreshed over the restarted decoder is verified.
SET client_min_messages = warning;
CREATE TABLE cg_src (id int PRIMARY KEY, v int);
INSERT INTO cg_src VALUES (1, 1);
SELECT dynview.create_dynamic_table('cg_dt', 'SELECT id, v FROM cg_src', schedule => 'manual') IS NOT NULL AS created;
SELECT dynview.wait_for_capture('1 minute') AS captured;
SELECT decoder_state, decoder_pid IS NOT NULL AS has_pid FROM dynview.cdc_status WHERE source IS NULL;
SELECT decoder_pid AS old_pid FROM dynview.cdc_status WHERE source IS NULL \gset
SELECT pg_terminate_backend(:old_pid, 60000) AS terminated;
-- the old pid is never shown again: RESTARTING without a pid, or (the launcher was quick) a
-- new decoder's state and pid
SELECT decoder_pid IS DISTINCT FROM :old_pid AS old_pid_gone,
       decoder_state IN ('RESTARTING', 'STARTING', 'RUNNING') AS state_known,
       decoder_state <> 'RESTARTING' OR decoder_pid IS NULL AS restarting_without_pid
  FROM dynview.cdc_status WHERE source IS NULL;
SELECT dynview.wait_for_capture('2 minutes') AS captured;
INSERT INTO cg_src VALUES (2, 2);
SELECT refresh_mode FROM dynview.refresh('cg_dt');
SELECT dynview.verify('cg_dt') AS verified;
SELECT decoder_state, decoder_pid IS NOT NULL AS has_pid, decoder_pid <> :old_pid AS new_pid
  FROM dynview.cdc_status WHERE source IS NULL;
SELECT dynview.drop_dynamic_table('cg_dt');
DROP TABLE cg_src;
