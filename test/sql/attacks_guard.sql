-- Attacks on the guard fixes of 11e47de (third attack pass) that fail on the code of 9720140.
-- Each case ends with the table refreshed and verified; the expected output is what a correct
-- dynview gives, written so that it holds whether a fix refuses the attack or repairs the table
-- afterwards (the attack runs in a DO block that swallows a refusal).
SET client_min_messages = warning;

-- (1) dynview.refresh() in the middle of COPY FROM into a source (from a BEFORE ROW trigger on
-- the source).  COPY is noted as a write when it starts only, not again when it ends (as
-- ExecutorFinish does for INSERT): the rows copied after the refresh carry the xid the table now
-- counts as seen, and are lost for good.
CREATE TABLE ag_csrc (id int PRIMARY KEY, v int);
INSERT INTO ag_csrc VALUES (1, 1);
SELECT dynview.create_dynamic_table('ag_copy', 'SELECT id, v FROM ag_csrc',
  schedule => 'manual', refresh_mode => 'incremental');
CREATE FUNCTION ag_copy_refresh() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.id = 11 THEN
    PERFORM dynview.refresh('public.ag_copy');
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER ag_copy_refresh BEFORE INSERT ON ag_csrc FOR EACH ROW EXECUTE FUNCTION ag_copy_refresh();
DO $$ BEGIN
  COPY public.ag_csrc FROM PROGRAM 'printf "10,10\n11,11\n12,12\n13,13\n"' (FORMAT csv);
EXCEPTION WHEN others THEN NULL; END $$;
DROP TRIGGER ag_copy_refresh ON ag_csrc;
SELECT state FROM dynview.refresh('ag_copy');
SELECT dynview.verify('ag_copy');

-- (2) The same through a volatile column default that refreshes, evaluated for each copied row.
CREATE TABLE ag_dsrc (id int PRIMARY KEY, v int, w int);
INSERT INTO ag_dsrc VALUES (1, 1, 0);
SELECT dynview.create_dynamic_table('ag_default', 'SELECT id, v FROM ag_dsrc',
  schedule => 'manual', refresh_mode => 'incremental');
CREATE FUNCTION ag_default_refresh() RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  PERFORM dynview.refresh('public.ag_default');
  RETURN 0;
END $$;
ALTER TABLE ag_dsrc ALTER COLUMN w SET DEFAULT ag_default_refresh();
DO $$ BEGIN
  COPY public.ag_dsrc (id, v) FROM PROGRAM 'printf "20,20\n21,21\n"' (FORMAT csv);
EXCEPTION WHEN others THEN NULL; END $$;
ALTER TABLE ag_dsrc ALTER COLUMN w DROP DEFAULT;
SELECT state FROM dynview.refresh('ag_default');
SELECT dynview.verify('ag_default');

-- (3) A refresh whose retype of the table's columns fails (a view depends on a column) leaves
-- dynview's column DDL allowance set for the rest of the transaction: ALTER TABLE may then add,
-- drop or retype the dynamic table's columns.  The table keeps a column its query does not
-- have, and every later refresh leaves it so.
CREATE TABLE ag_rsrc (id int PRIMARY KEY, s varchar(4));
INSERT INTO ag_rsrc VALUES (1, 'ab');
SELECT dynview.create_dynamic_table('ag_retype', 'SELECT id, s FROM ag_rsrc',
  schedule => 'manual', refresh_mode => 'incremental');
CREATE VIEW ag_retype_view AS SELECT s FROM ag_retype;
ALTER TABLE ag_rsrc ALTER COLUMN s TYPE varchar(12);
BEGIN;
DO $$ BEGIN PERFORM dynview.refresh('public.ag_retype'); EXCEPTION WHEN others THEN NULL; END $$;
DO $$ BEGIN ALTER TABLE public.ag_retype ADD COLUMN junk int DEFAULT 7; EXCEPTION WHEN others THEN NULL; END $$;
COMMIT;
DROP VIEW ag_retype_view;
INSERT INTO ag_rsrc VALUES (2, 'longer');
SELECT state FROM dynview.refresh('ag_retype');
SELECT dynview.verify('ag_retype');
SELECT count(*) FROM pg_attribute WHERE attrelid = 'ag_retype'::regclass AND attnum > 0 AND NOT attisdropped;

-- (4) A dynamic table made a typed table (ALTER TABLE ... OF) changes columns with its type:
-- ALTER TYPE ... CASCADE adds and retypes them without an ALTER TABLE of the dynamic table.
CREATE TYPE ag_row AS (id int, v int);
CREATE TABLE ag_tsrc (id int PRIMARY KEY, v int);
INSERT INTO ag_tsrc VALUES (1, 1);
SELECT dynview.create_dynamic_table('ag_typed', 'SELECT id, v FROM ag_tsrc',
  schedule => 'manual', refresh_mode => 'incremental');
DO $$ BEGIN ALTER TABLE public.ag_typed OF public.ag_row; EXCEPTION WHEN others THEN NULL; END $$;
DO $$ BEGIN ALTER TYPE public.ag_row ADD ATTRIBUTE junk int CASCADE; EXCEPTION WHEN others THEN NULL; END $$;
DO $$ BEGIN ALTER TYPE public.ag_row ALTER ATTRIBUTE v TYPE text CASCADE; EXCEPTION WHEN others THEN NULL; END $$;
INSERT INTO ag_tsrc VALUES (2, 2);
SELECT state FROM dynview.refresh('ag_typed');
SELECT dynview.verify('ag_typed');

-- (5) ALTER TABLE ... RENAME COLUMN of a dynamic table is not refused: every later incremental
-- refresh fails ("column d.w does not exist", with a hint about an altered source).
CREATE TABLE ag_nsrc (id int PRIMARY KEY, v int);
INSERT INTO ag_nsrc VALUES (1, 1);
SELECT dynview.create_dynamic_table('ag_rename', 'SELECT id, v FROM ag_nsrc',
  schedule => 'manual', refresh_mode => 'incremental');
DO $$ BEGIN ALTER TABLE public.ag_rename RENAME COLUMN v TO w; EXCEPTION WHEN others THEN NULL; END $$;
INSERT INTO ag_nsrc VALUES (2, 2);
UPDATE ag_nsrc SET v = 5 WHERE id = 1;
SELECT state FROM dynview.refresh('ag_rename');
SELECT dynview.verify('ag_rename');
SELECT count(*) FROM ag_rename;

-- (6) A deferred constraint trigger on a dynamic table (an AFTER trigger, which the guard
-- allows) makes every refresh that writes a row fail: PostgreSQL refuses to queue a deferred
-- trigger event inside the refresh's security-restricted operation.
CREATE TABLE ag_esrc (id int PRIMARY KEY, v int);
INSERT INTO ag_esrc VALUES (1, 1);
SELECT dynview.create_dynamic_table('ag_deferred', 'SELECT id, v FROM ag_esrc',
  schedule => 'manual', refresh_mode => 'incremental');
CREATE FUNCTION ag_deferred_check() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RETURN NULL;
END $$;
DO $$ BEGIN
  CREATE CONSTRAINT TRIGGER ag_deferred_check AFTER INSERT ON public.ag_deferred
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION public.ag_deferred_check();
EXCEPTION WHEN others THEN NULL; END $$;
INSERT INTO ag_esrc VALUES (2, 2);
SELECT state FROM dynview.refresh('ag_deferred');
SELECT dynview.verify('ag_deferred');

-- (7) COPY FROM into a partitioned parent after a refresh in the same transaction, routing rows
-- to a source partition: COPY notes the parent only (INSERT notes every partition), and the
-- partition was write-locked before the refresh already, so the lock test at commit does not
-- see it either.  The copied rows are lost for good.
CREATE TABLE ag_parent (id int, v int) PARTITION BY RANGE (id);
CREATE TABLE ag_part1 PARTITION OF ag_parent FOR VALUES FROM (0) TO (100);
CREATE TABLE ag_part2 PARTITION OF ag_parent FOR VALUES FROM (100) TO (200);
INSERT INTO ag_parent VALUES (1, 1);
SELECT dynview.create_dynamic_table('ag_routed', 'SELECT id, v FROM ag_part1',
  schedule => 'manual', refresh_mode => 'incremental');
BEGIN;
INSERT INTO ag_part1 VALUES (2, 2);
SELECT state FROM dynview.refresh('ag_routed');
COPY ag_parent FROM PROGRAM 'printf "3,3\n4,4\n"' (FORMAT csv);
COMMIT;
SELECT state FROM dynview.refresh('ag_routed');
SELECT dynview.verify('ag_routed');

SELECT count(*) FROM (SELECT dynview.drop_dynamic_table(t)
  FROM unnest(ARRAY['ag_copy', 'ag_default', 'ag_retype', 'ag_typed', 'ag_rename', 'ag_deferred', 'ag_routed']) t) d;
DROP TABLE ag_csrc, ag_dsrc, ag_rsrc, ag_tsrc, ag_nsrc, ag_esrc, ag_parent;
DROP TYPE ag_row;
DROP FUNCTION ag_copy_refresh(), ag_default_refresh(), ag_deferred_check();
