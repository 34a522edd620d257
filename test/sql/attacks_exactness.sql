-- Attacks on exactness and the write guard (issues 11 and 12) that fail on the code of 82c1f36.
-- Each case ends with the table verified; the expected output is what a correct dynview gives,
-- written so that it holds whether the fix refuses the attack or repairs the table afterwards
-- (the attack runs in a DO block that swallows a refusal; only verify() and row counts are shown).
SET client_min_messages = warning;

-- (1) COPY into a dynamic table from an AFTER trigger fired by its own refresh.  COPY FROM into
-- a dynamic table is allowed (pg_restore) and marks the next refresh FULL, but the refresh that
-- ran the trigger then writes its own catalog row and the mark is lost: every later refresh is
-- NO_DATA and the extra row stays for good.
CREATE TABLE ax_src (id int PRIMARY KEY, v int);
INSERT INTO ax_src SELECT g, g FROM generate_series(1, 5) g;
SELECT dynview.create_dynamic_table('ax_copy', 'SELECT id, v FROM ax_src',
  schedule => 'manual', refresh_mode => 'incremental');
CREATE FUNCTION ax_copy_in() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF pg_trigger_depth() = 1 THEN
    COPY public.ax_copy FROM PROGRAM 'echo 6000,1' (FORMAT csv);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER ax_copy_in AFTER INSERT ON ax_copy FOR EACH STATEMENT EXECUTE FUNCTION ax_copy_in();
INSERT INTO ax_src VALUES (6, 6);
DO $$ BEGIN PERFORM dynview.refresh('ax_copy'); EXCEPTION WHEN others THEN NULL; END $$;
DROP TRIGGER ax_copy_in ON ax_copy;
SELECT state FROM dynview.refresh('ax_copy');
SELECT dynview.verify('ax_copy');
SELECT count(*) FROM ax_copy WHERE id = 6000;

-- (2) ALTER TABLE ... ALTER COLUMN ... TYPE ... USING on a dynamic table rewrites its rows
-- outside any refresh (same type, so no retype is seen): not refused, not marked, and every
-- later refresh is NO_DATA, or INCREMENTAL for a window of inserts, with the rewritten values.
SELECT dynview.create_dynamic_table('ax_alter', 'SELECT id, v FROM ax_src',
  schedule => 'manual', refresh_mode => 'incremental');
DO $$ BEGIN ALTER TABLE ax_alter ALTER COLUMN v TYPE int USING v + 1; EXCEPTION WHEN others THEN NULL; END $$;
SELECT state FROM dynview.refresh('ax_alter');
SELECT dynview.verify('ax_alter');
INSERT INTO ax_src VALUES (7, 7);
SELECT state FROM dynview.refresh('ax_alter');
SELECT dynview.verify('ax_alter');

-- (3) A foreign key from an ordinary table to a dynamic table.  A refresh applies a changed
-- group or row as a delete and an insert, so ON DELETE CASCADE would delete the referencing rows
-- of a group that still exists, and NO ACTION would make the refresh fail for a row whose key is
-- still there: such a foreign key is refused (in CREATE TABLE and ALTER TABLE), and the tables
-- keep refreshing.
CREATE TABLE ax_fsrc (id int PRIMARY KEY, k int, v int);
INSERT INTO ax_fsrc VALUES (1, 1, 10), (2, 2, 20), (3, 1, 30);
SELECT dynview.create_dynamic_table('ax_groups', 'SELECT k, count(*) AS n, sum(v) AS sv FROM ax_fsrc GROUP BY k',
  schedule => 'manual', refresh_mode => 'incremental');
SELECT dynview.create_dynamic_table('ax_rows', 'SELECT id, v FROM ax_fsrc',
  schedule => 'manual', refresh_mode => 'incremental');
CREATE TABLE ax_child_cascade (k int REFERENCES ax_groups (k) ON DELETE CASCADE, note text);
CREATE TABLE ax_child_noaction (id int, note text);
ALTER TABLE ax_child_noaction ADD FOREIGN KEY (id) REFERENCES ax_rows (id);
-- group 1 gains a row; row 1 changes a value, not its key
INSERT INTO ax_fsrc VALUES (4, 1, 40);
UPDATE ax_fsrc SET v = 11 WHERE id = 1;
SELECT state FROM dynview.refresh('ax_groups');
SELECT dynview.verify('ax_groups');
SELECT state FROM dynview.refresh('ax_rows');
SELECT dynview.verify('ax_rows');

-- (4) dynview.refresh() run in the middle of a statement that writes a source of the table: the
-- refresh counts its own transaction's changes as seen, and the statement's rows are written
-- after it (a BEFORE ROW trigger on the source; an initplan or a CTE beside the INSERT).  The
-- transaction watch notes the write at the statement's start, before the refresh, so nothing
-- marks the table: every later refresh is NO_DATA (or applies only later changes) and the rows
-- are missing for good.
CREATE TABLE ax_msrc (id int PRIMARY KEY, v int);
INSERT INTO ax_msrc VALUES (1, 1);
SELECT dynview.create_dynamic_table('ax_mid', 'SELECT id, v FROM ax_msrc',
  schedule => 'manual', refresh_mode => 'incremental');
CREATE FUNCTION ax_refresh_before() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM dynview.refresh('public.ax_mid');
  RETURN NEW;
END $$;
CREATE TRIGGER ax_refresh_before BEFORE INSERT ON ax_msrc FOR EACH ROW EXECUTE FUNCTION ax_refresh_before();
DO $$ BEGIN INSERT INTO ax_msrc VALUES (2, 2); EXCEPTION WHEN others THEN NULL; END $$;
DROP TRIGGER ax_refresh_before ON ax_msrc;
SELECT state FROM dynview.refresh('ax_mid');
SELECT dynview.verify('ax_mid');
INSERT INTO ax_msrc VALUES (3, 3);
SELECT state FROM dynview.refresh('ax_mid');
SELECT dynview.verify('ax_mid');
DO $$ BEGIN
  INSERT INTO ax_msrc SELECT g, g FROM generate_series(10, 12) g
    WHERE (SELECT state FROM dynview.refresh('public.ax_mid')) IS NOT NULL;
EXCEPTION WHEN others THEN NULL; END $$;
SELECT state FROM dynview.refresh('ax_mid');
SELECT dynview.verify('ax_mid');
DO $$ DECLARE n int; BEGIN
  WITH r AS (SELECT * FROM dynview.refresh('public.ax_mid')), i AS (INSERT INTO ax_msrc VALUES (20, 20) RETURNING id)
  SELECT (SELECT count(*) FROM r) + (SELECT count(*) FROM i) INTO n;
EXCEPTION WHEN others THEN NULL; END $$;
SELECT state FROM dynview.refresh('ax_mid');
SELECT dynview.verify('ax_mid');

DROP TABLE ax_child_noaction;
SELECT dynview.drop_dynamic_table(t) FROM unnest(ARRAY['ax_copy', 'ax_alter', 'ax_groups', 'ax_rows', 'ax_mid']) t;
DROP TABLE ax_src, ax_fsrc, ax_msrc;
DROP FUNCTION ax_copy_in(), ax_refresh_before();
