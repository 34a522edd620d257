-- Tester's finding (s18-brk): the guard refuses a superuser every ALTER of a change buffer but a
-- few storage settings, its indexes and moving it (s17-super), but not RENAME: change capture and
-- refreshes find a buffer by its name (changes_<source oid>) and its columns by the source's
-- column names, so a renamed buffer, or a renamed column of one, left the source uncaptured where
-- refreshes read, and every refresh of the tables over it was FULL (SOURCE_NOT_TRACKED, a reason
-- that does not say why) until the name came back (7a54fef).
-- Renaming dynview's schemas was not refused either: a change decoded while dynview_buffer had
-- another name was lost, and once the name came back the table missed it (verify() false).
-- Correct result: RENAME of a change buffer, of its columns or of dynview's schemas is refused to
-- everyone (42809, with a hint), nothing changes, and refreshes stay INCREMENTAL; renaming the source's column, which
-- dynview follows, still works; every refresh verified, the table equal to its query by text.
SET client_min_messages = warning;
CREATE TABLE bbr_src (id int PRIMARY KEY, g int, v int);
INSERT INTO bbr_src SELECT i, i % 3, i FROM generate_series(1, 30) i;
SELECT dynview.create_dynamic_table('bbr_sum', 'SELECT g, sum(v) AS s, count(*) AS n FROM bbr_src GROUP BY g',
                                    schedule => 'manual') IS NOT NULL AS created;
SELECT 'changes_' || 'bbr_src'::regclass::oid AS buf \gset
\set VERBOSITY sqlstate
ALTER TABLE dynview_buffer.:buf RENAME TO bbr_buffer;
ALTER TABLE dynview_buffer.:buf RENAME COLUMN v TO v_old;
ALTER TABLE dynview_buffer.:buf RENAME COLUMN dv_xid TO x;
\set VERBOSITY default
-- the message (the buffer's OID replaced) and its hint
DO $$
DECLARE msg text; hint text; state text;
BEGIN
  EXECUTE format('ALTER TABLE dynview_buffer.%I RENAME TO bbr_buffer', 'changes_' || 'bbr_src'::regclass::oid);
  RAISE WARNING 'renamed';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT, hint = PG_EXCEPTION_HINT, state = RETURNED_SQLSTATE;
  RAISE WARNING '% %; hint: %', state, regexp_replace(msg, '[0-9]+', 'N', 'g'), hint;
END $$;
SELECT count(*) AS buffer_kept FROM pg_class WHERE relname = :'buf' AND relnamespace = 'dynview_buffer'::regnamespace;
INSERT INTO bbr_src VALUES (100, 1, 1000);
UPDATE bbr_src SET v = v + 5 WHERE id = 3;
SELECT refresh_mode, mode_reason_code, dynview.verify('bbr_sum') AS verified FROM dynview.refresh('bbr_sum');
-- the source's column renamed: the definition and the buffer follow
ALTER TABLE bbr_src RENAME COLUMN v TO val;
INSERT INTO bbr_src VALUES (101, 2, 7);
SELECT refresh_mode, mode_reason_code, dynview.verify('bbr_sum') AS verified FROM dynview.refresh('bbr_sum');
DELETE FROM bbr_src WHERE id = 4;
SELECT refresh_mode, mode_reason_code, dynview.verify('bbr_sum') AS verified FROM dynview.refresh('bbr_sum');
SELECT (SELECT array_agg(t ORDER BY g)::text FROM bbr_sum t) =
       (SELECT array_agg(q ORDER BY g)::text FROM (SELECT g, sum(val) AS s, count(*) AS n FROM bbr_src GROUP BY g) q)
       AS same_text;
-- dynview's schemas renamed and back: a change decoded meanwhile was lost on 7a54fef (the table
-- then verify() false); refused now (42809), and nothing is lost
\set VERBOSITY sqlstate
ALTER SCHEMA dynview_buffer RENAME TO bbr_buffers;
INSERT INTO bbr_src VALUES (102, 1, 500);
SELECT dynview.wait_for_capture();
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('bbr_sum');
ALTER SCHEMA dynview_state RENAME TO bbr_states;
ALTER SCHEMA dynview RENAME TO bbr_dynview;
\set VERBOSITY default
INSERT INTO bbr_src VALUES (103, 2, 300);
SELECT dynview.wait_for_capture();
SELECT refresh_mode, dynview.verify('bbr_sum') AS verified FROM dynview.refresh('bbr_sum');
SELECT (SELECT array_agg(t ORDER BY g)::text FROM bbr_sum t) =
       (SELECT array_agg(q ORDER BY g)::text FROM (SELECT g, sum(val) AS s, count(*) AS n FROM bbr_src GROUP BY g) q)
       AS same_text;
SELECT dynview.drop_dynamic_table('bbr_sum') IS NOT NULL AS dropped;
DROP TABLE bbr_src;
