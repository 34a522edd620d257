-- A dynamic table with schedule => 'manual' refreshed by a pg_cron job (design section 2):
-- the job's history rows say MANUAL.  pg_cron 1.4 runs jobs on minute boundaries, so this test
-- waits up to about 70 seconds (a bounded poll, then the result is shown).
SET client_min_messages = warning;
CREATE TABLE cr_src (id int PRIMARY KEY, v int);
INSERT INTO cr_src VALUES (1, 10);
SELECT dynview.create_dynamic_table('cr_dt', 'SELECT id, v FROM cr_src', schedule => 'manual');
INSERT INTO cr_src VALUES (2, 20);
SELECT current_database() AS db \gset
\c postgres
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pg_cron;
SELECT cron.schedule_in_database('dynview-regress', '* * * * *',
                                 $$SELECT dynview.refresh('public.cr_dt')$$, :'db') > 0 AS scheduled;
\c :db
SET client_min_messages = warning;
DO $$
BEGIN
  FOR i IN 1..900 LOOP
    EXIT WHEN EXISTS (SELECT 1 FROM cr_dt WHERE id = 2);
    PERFORM pg_sleep(0.1);
  END LOOP;
END $$;
SELECT * FROM cr_dt ORDER BY id;
SELECT refresh_trigger, state FROM dynview.refresh_history('cr_dt', 1);
SELECT dynview.verify('cr_dt');
\c postgres
SELECT cron.unschedule('dynview-regress');
\c :db
SELECT dynview.drop_dynamic_table('cr_dt');
DROP TABLE cr_src;
