-- Inherited sources (issue 15): with traditional inheritance, changes of every child (and
-- grandchild; children created with INHERITS or joined with ALTER TABLE ... INHERIT later) count as
-- changes of the parent the query names; FROM ONLY parent reads the parent's own rows, and its
-- children's changes do not count for it.  verify() after every refresh.
SET client_min_messages = warning;
CREATE TABLE is_events (event_id int, kind text, amount numeric(10,2));
CREATE TABLE is_events_web (channel text) INHERITS (is_events);
CREATE TABLE is_events_web_eu () INHERITS (is_events_web);
CREATE TABLE is_events_app () INHERITS (is_events);
INSERT INTO is_events SELECT g, 'base', g FROM generate_series(1, 20) g;
INSERT INTO is_events_web SELECT g, 'web', g, 'site' FROM generate_series(21, 40) g;
INSERT INTO is_events_web_eu SELECT g, 'web', g, 'eu' FROM generate_series(41, 50) g;
INSERT INTO is_events_app SELECT g, 'app', g FROM generate_series(51, 60) g;

-- the parent read with its children is captured: INCREMENTAL, not INHERITANCE_CHILDREN
SELECT property, value FROM dynview.explain('SELECT kind, count(*) FROM is_events GROUP BY kind')
 WHERE property IN ('mode', 'reason_code');
SELECT dynview.create_dynamic_table('is_totals',
  'SELECT kind, count(*) AS n, sum(amount) AS total FROM is_events GROUP BY kind',
  schedule => 'manual', refresh_mode => 'incremental');
SELECT dynview.create_dynamic_table('is_rows', 'SELECT event_id, kind, amount FROM is_events WHERE amount > 10',
  schedule => 'manual', refresh_mode => 'incremental');
-- FROM ONLY: the parent's own rows
SELECT dynview.create_dynamic_table('is_own', 'SELECT kind, count(*) AS n, sum(amount) AS total FROM ONLY is_events GROUP BY kind',
  schedule => 'manual', refresh_mode => 'incremental');
-- a child read by name (with its own child) is a source of its own too
SELECT dynview.create_dynamic_table('is_web', 'SELECT channel, count(*) AS n FROM is_events_web GROUP BY channel',
  schedule => 'manual', refresh_mode => 'incremental');
SELECT name, effective_mode FROM dynview.dynamic_tables WHERE name::text LIKE 'is\_%' ORDER BY name::text;
-- every child has REPLICA IDENTITY FULL
SELECT relname, relreplident FROM pg_class WHERE relname LIKE 'is_events%' AND relkind = 'r' ORDER BY relname;

CREATE FUNCTION is_refresh_all() RETURNS TABLE (name text, refresh_mode text, reason text, exact boolean)
LANGUAGE plpgsql AS $$
DECLARE
  t text;
  h dynview.refresh_history;
BEGIN
  FOREACH t IN ARRAY ARRAY['is_own', 'is_rows', 'is_totals', 'is_web'] LOOP
    h := dynview.refresh(t);
    name := t; refresh_mode := h.refresh_mode; reason := h.mode_reason_code; exact := dynview.verify(t);
    RETURN NEXT;
  END LOOP;
END $$;

-- writes through the parent (reaching children) and straight into children and the grandchild
INSERT INTO is_events VALUES (100, 'base', 100);
INSERT INTO is_events_web VALUES (101, 'web', 101, 'site');
INSERT INTO is_events_web_eu VALUES (102, 'web', 102, 'eu');
UPDATE is_events SET amount = amount + 1000 WHERE event_id IN (5, 25, 45, 55);
UPDATE is_events_web SET channel = 'eu' WHERE event_id = 30;
DELETE FROM is_events WHERE event_id IN (6, 26, 46, 56);
SELECT * FROM is_refresh_all();
SELECT * FROM is_totals ORDER BY kind;
SELECT * FROM is_own ORDER BY kind;
-- only children change: the FROM ONLY reader has nothing to apply
UPDATE is_events_app SET amount = 0 WHERE event_id = 57;
SELECT * FROM is_refresh_all();
SELECT refresh_mode, rows_inserted, rows_deleted FROM dynview.refresh_history('is_own', 1);

-- a child created later: its rows count at once
CREATE TABLE is_events_batch () INHERITS (is_events);
SELECT relreplident FROM pg_class WHERE relname = 'is_events_batch';
INSERT INTO is_events_batch VALUES (200, 'batch', 200), (201, 'batch', 201);
UPDATE is_events_batch SET amount = 2000 WHERE event_id = 200;
SELECT * FROM is_refresh_all();
-- an empty table joined with ALTER TABLE ... INHERIT changes nothing by itself
CREATE TABLE is_events_misc (LIKE is_events);
ALTER TABLE is_events_misc INHERIT is_events;
SELECT relreplident FROM pg_class WHERE relname = 'is_events_misc';
INSERT INTO is_events_misc VALUES (300, 'misc', 300);
SELECT * FROM is_refresh_all();
-- a table joined with rows, a child leaving (NO INHERIT) or dropped with rows: FULL once
CREATE TABLE is_events_old (LIKE is_events);
INSERT INTO is_events_old VALUES (400, 'old', 400);
ALTER TABLE is_events_old INHERIT is_events;
SELECT * FROM is_refresh_all();
SELECT * FROM is_refresh_all();   -- and INCREMENTAL again after
ALTER TABLE is_events_batch NO INHERIT is_events;
SELECT * FROM is_refresh_all();
DROP TABLE is_events_misc;
SELECT * FROM is_refresh_all();
-- a table that left is no child any more: its changes do not count
INSERT INTO is_events_batch VALUES (202, 'batch', 202);
SELECT * FROM is_refresh_all();
-- TRUNCATE of one child: FULL for the readers with children (SOURCE_TRUNCATED), not for ONLY
TRUNCATE is_events_app;
SELECT * FROM is_refresh_all();
SELECT * FROM is_totals ORDER BY kind;

-- a transaction that wrote a child, then refreshes: FULL (its changes are captured at commit)
BEGIN;
INSERT INTO is_events_web VALUES (500, 'web', 500, 'site');
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('is_totals');
SELECT dynview.verify('is_totals');
COMMIT;
SELECT * FROM is_refresh_all();

-- a parent with an unlogged child read without ONLY is not captured (INHERITANCE_CHILDREN);
-- with ONLY it is
CREATE TABLE is_log (id int, kind text);
CREATE UNLOGGED TABLE is_log_a () INHERITS (is_log);
SELECT property, value FROM dynview.explain('SELECT kind, count(*) FROM is_log GROUP BY kind')
 WHERE property IN ('mode', 'reason_code');
SELECT property, value FROM dynview.explain('SELECT kind, count(*) FROM ONLY is_log GROUP BY kind')
 WHERE property IN ('mode', 'reason_code');

SELECT dynview.drop_dynamic_table(t) FROM unnest(ARRAY['is_totals', 'is_rows', 'is_own', 'is_web']) t;
SELECT count(*) FROM dynview.source_tracking;
DROP FUNCTION is_refresh_all();
DROP TABLE is_events, is_events_batch, is_events_old, is_log CASCADE;
