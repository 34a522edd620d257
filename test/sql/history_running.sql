-- The RUNNING rows the scheduler writes before a pipeline (catalog.c, dv_history_begin_running):
-- formed in C and written directly, or by an INSERT where a DBA attached a trigger; the row
-- stored is the one announced.  A DBA's BEFORE trigger that skips them or renumbers them leaves
-- no row RUNNING and the scheduler running; failure rows name a renamed table as its RUNNING
-- row does.  Deterministic: each wait is a bounded poll, then the condition is shown.
SET client_min_messages = warning;
\getenv abs_srcdir PG_ABS_SRCDIR
\set poll_until :abs_srcdir '/sql/include/poll_until.sql'
\i :poll_until
CREATE TABLE hr_src (id int PRIMARY KEY, d int);
INSERT INTO hr_src VALUES (1, 1);
SELECT dynview.create_dynamic_table('hr_up', 'SELECT id, 10 / d AS q FROM hr_src', schedule => 'downstream');
SELECT dynview.create_dynamic_table('hr_dt', 'SELECT id, q FROM hr_up', schedule => 'manual');
-- every row written to the history, RUNNING rows included
CREATE TABLE hr_seen (refresh_id bigint, schema_name text, table_name text, state text, refresh_trigger text);
CREATE FUNCTION hr_seen_f() RETURNS trigger LANGUAGE plpgsql AS
$$BEGIN INSERT INTO public.hr_seen VALUES (NEW.refresh_id, NEW.schema_name, NEW.table_name, NEW.state, NEW.refresh_trigger); RETURN NEW; END$$;
CREATE TRIGGER hr_seen AFTER INSERT ON dynview.refresh_history FOR EACH ROW EXECUTE FUNCTION hr_seen_f();

-- renamed and moved, then scheduled: a failure of the upstream (division by zero) is recorded
-- FAILED and UPSTREAM_FAILED under the names the RUNNING rows had
CREATE SCHEMA hr_other;
ALTER TABLE hr_dt SET SCHEMA hr_other;
ALTER TABLE hr_other.hr_dt RENAME TO hr_dt_renamed;
UPDATE hr_src SET d = 0;
SELECT dynview.wait_for_capture();
SELECT dynview.alter_dynamic_table('hr_other.hr_dt_renamed', schedule => '1 second');
SELECT dv_poll_until($$SELECT EXISTS (SELECT 1 FROM public.hr_seen WHERE state = 'UPSTREAM_FAILED')$$) AS failed;
SELECT dynview.alter_dynamic_table('hr_other.hr_dt_renamed', schedule => 'manual');
SELECT DISTINCT r.schema_name || '.' || r.table_name AS running, o.schema_name || '.' || o.table_name AS outcome,
       o.state, o.refresh_trigger
  FROM hr_seen r JOIN hr_seen o ON o.refresh_id = r.refresh_id AND o.state <> 'RUNNING'
 WHERE r.state = 'RUNNING' ORDER BY 1, 3;
-- (the turn under way, if any, ends: no row stays RUNNING)
SELECT dv_poll_until($$SELECT NOT EXISTS (SELECT 1 FROM dynview.refresh_history WHERE state = 'RUNNING')$$) AS none_running;
UPDATE hr_src SET d = 2;
SELECT dynview.resume('hr_up');
SELECT dynview.resume('hr_other.hr_dt_renamed');
TRUNCATE hr_seen;

-- a BEFORE trigger that skips RUNNING rows: nothing is announced, the pipeline is refreshed
-- all the same, turn after turn
CREATE FUNCTION hr_no_running() RETURNS trigger LANGUAGE plpgsql AS
$$BEGIN IF NEW.state = 'RUNNING' THEN RETURN NULL; END IF; RETURN NEW; END$$;
CREATE TRIGGER hr_no_running BEFORE INSERT ON dynview.refresh_history FOR EACH ROW EXECUTE FUNCTION hr_no_running();
SELECT dynview.alter_dynamic_table('hr_other.hr_dt_renamed', schedule => '1 second');
SELECT dv_poll_until($$SELECT count(*) >= 2 FROM public.hr_seen WHERE refresh_trigger = 'SYSTEM_SCHEDULED' AND state = 'SUCCEED'$$) AS refreshed_twice;
SELECT dynview.alter_dynamic_table('hr_other.hr_dt_renamed', schedule => 'manual');
SELECT count(*) FILTER (WHERE state = 'RUNNING') AS running_seen, count(*) FILTER (WHERE state = 'SUCCEED') >= 4 AS outcomes
  FROM hr_seen;
-- (the turn under way, if any, ends: no row stays RUNNING)
SELECT dv_poll_until($$SELECT NOT EXISTS (SELECT 1 FROM dynview.refresh_history WHERE state = 'RUNNING')$$) AS none_running;
DROP TRIGGER hr_no_running ON dynview.refresh_history;
TRUNCATE hr_seen;

-- a BEFORE trigger that gives RUNNING rows other refresh_ids: the outcome replaces the row
-- stored, under its id
CREATE SEQUENCE hr_ids START 1000000;
CREATE FUNCTION hr_renumber() RETURNS trigger LANGUAGE plpgsql AS
$$BEGIN IF NEW.state = 'RUNNING' THEN NEW.refresh_id := nextval('public.hr_ids'); END IF; RETURN NEW; END$$;
CREATE TRIGGER hr_renumber BEFORE INSERT ON dynview.refresh_history FOR EACH ROW EXECUTE FUNCTION hr_renumber();
SELECT dynview.alter_dynamic_table('hr_other.hr_dt_renamed', schedule => '1 second');
SELECT dv_poll_until($$SELECT count(*) >= 2 FROM public.hr_seen WHERE refresh_trigger = 'SYSTEM_SCHEDULED' AND state = 'SUCCEED'$$) AS refreshed_twice;
SELECT dynview.alter_dynamic_table('hr_other.hr_dt_renamed', schedule => 'manual');
SELECT bool_and(refresh_id >= 1000000) AS renumbered, count(DISTINCT refresh_id) = count(*) AS one_outcome_each
  FROM hr_seen WHERE state <> 'RUNNING';
-- (the turn under way, if any, ends: no row stays RUNNING)
SELECT dv_poll_until($$SELECT NOT EXISTS (SELECT 1 FROM dynview.refresh_history WHERE state = 'RUNNING')$$) AS none_running;
DROP TRIGGER hr_renumber ON dynview.refresh_history;
DROP TRIGGER hr_seen ON dynview.refresh_history;
SELECT dynview.verify('hr_other.hr_dt_renamed');

SELECT dynview.drop_dynamic_table('hr_other.hr_dt_renamed');
SELECT dynview.drop_dynamic_table('hr_up');
DROP SCHEMA hr_other;
DROP FUNCTION hr_seen_f(), hr_no_running(), hr_renumber(), dv_poll_until(text);
DROP SEQUENCE hr_ids;
DROP TABLE hr_seen, hr_src;
