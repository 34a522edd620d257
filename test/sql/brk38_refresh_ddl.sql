-- Tester's finding (s37): code that a refresh runs (here a function the planner folds to a
-- constant while it plans a refresh statement) dropped the table being refreshed, an upstream
-- dynamic table or a source, or dropped or renamed a source's column.  The refresh then failed
-- with internal errors ("type with OID 0 does not exist", "relation with OID ... does not
-- exist"), or a fallback swallowed the error and the refresh went on.  Correct result: such DDL
-- is refused cleanly (55006, "cannot drop ... during a refresh of dynamic table ..."), the refresh
-- rolls back, nothing is dropped; quiet again, the refresh applies and the table matches its query
-- (dv_refresh_round: verify(), the rows by text and by =).  A refresh that failed and was rolled
-- back to a savepoint refuses nothing afterwards (its state ends with the subtransaction).
-- Tester's findings (s38) on the first version, which looked at drops and post-alter hooks only:
-- ATTACH / DETACH PARTITION, INHERIT / NO INHERIT of a source call no post-alter hook; run by a
-- refresh they changed the rows of a source under it, the refresh succeeded and verify() stayed
-- false for good.  ADD COLUMN of a source and DROP INDEX of the table's key index passed too.
-- Refused now, as is a policy created, altered or dropped on a source.  Second round: DROP
-- FUNCTION ... CASCADE dropped an index of a source on the function; CREATE RULE on a source.
-- Third (s39): CREATE TABLE ... PARTITION OF / INHERITS a source was refused with a message that
-- named the new table; it names the source now.
SET client_min_messages = warning;
CREATE TABLE brd_src (id int PRIMARY KEY, v int, w int);
INSERT INTO brd_src SELECT i, i, i FROM generate_series(1, 10) i;
CREATE TABLE brd_other (id int PRIMARY KEY, v int);
CREATE TABLE brd_mode (mode text);
INSERT INTO brd_mode VALUES ('none');
-- what the filter's function runs, by mode
CREATE FUNCTION brd_side() RETURNS int LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  m text := (SELECT mode FROM public.brd_mode);
BEGIN
  IF m = 'drop table' THEN PERFORM dynview.drop_dynamic_table('public.brd_rows');
  ELSIF m = 'drop table plain' THEN DROP TABLE public.brd_rows;
  ELSIF m = 'drop upstream' THEN PERFORM dynview.drop_dynamic_table('public.brd_up');
  ELSIF m = 'drop source' THEN DROP TABLE public.brd_src CASCADE;
  ELSIF m = 'drop column' THEN ALTER TABLE public.brd_src DROP COLUMN w;
  ELSIF m = 'rename source' THEN ALTER TABLE public.brd_src RENAME TO brd_src_renamed;
  ELSIF m = 'retype source' THEN ALTER TABLE public.brd_src ALTER COLUMN v TYPE bigint;
  ELSIF m = 'other' THEN ALTER TABLE public.brd_other ADD COLUMN z int;
  ELSIF m = 'add column' THEN ALTER TABLE public.brd_src ADD COLUMN z int;
  ELSIF m = 'drop key index' THEN DROP INDEX public.brd_rows_dv_apply;
  ELSIF m = 'policy' THEN CREATE POLICY brd_p ON public.brd_src USING (id < 5);
  ELSIF m = 'drop policy' THEN DROP POLICY brd_q ON public.brd_src;
  ELSIF m = 'attach' THEN ALTER TABLE public.brd_part ATTACH PARTITION public.brd_loose FOR VALUES FROM (100) TO (200);
  ELSIF m = 'detach' THEN ALTER TABLE public.brd_part DETACH PARTITION public.brd_part1;
  ELSIF m = 'inherit' THEN ALTER TABLE public.brd_loose INHERIT public.brd_parent;
  ELSIF m = 'no inherit' THEN ALTER TABLE public.brd_child NO INHERIT public.brd_parent;
  ELSIF m = 'drop function cascade' THEN DROP FUNCTION public.brd_fx(int) CASCADE;
  ELSIF m = 'partition of' THEN CREATE TABLE public.brd_new PARTITION OF public.brd_part FOR VALUES FROM (200) TO (300);
  ELSIF m = 'inherits' THEN CREATE TABLE public.brd_kid (id int, v int) INHERITS (public.brd_parent);
  ELSIF m = 'rule' THEN CREATE RULE brd_r AS ON INSERT TO public.brd_src DO ALSO NOTHING;
  END IF;
  RETURN 0;
END $$;
CREATE FUNCTION brd_lp(int) RETURNS int LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  x int;
BEGIN
  x := public.brd_side();
  RETURN $1;
END $$;
-- a partitioned source, an inheritance parent with a child, and a table that is neither
CREATE TABLE brd_part (id int PRIMARY KEY, v int) PARTITION BY RANGE (id);
CREATE TABLE brd_part1 PARTITION OF brd_part FOR VALUES FROM (0) TO (100);
INSERT INTO brd_part SELECT i, i FROM generate_series(1, 5) i;
CREATE TABLE brd_parent (id int PRIMARY KEY, v int);
CREATE TABLE brd_child (id int PRIMARY KEY, v int) INHERITS (brd_parent);
INSERT INTO brd_child SELECT i, i FROM generate_series(1, 5) i;
CREATE TABLE brd_loose (id int PRIMARY KEY, v int);
INSERT INTO brd_loose SELECT i, i FROM generate_series(100, 104) i;
CREATE POLICY brd_q ON brd_src USING (true);
-- an index of the source on a function's result: DROP FUNCTION ... CASCADE drops it
CREATE FUNCTION brd_fx(int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT $1 * 2';
CREATE INDEX brd_src_fx ON brd_src (brd_fx(v));
CREATE TABLE brd_defs (name text PRIMARY KEY, query text NOT NULL);
INSERT INTO brd_defs VALUES
  ('brd_up', 'SELECT id, v FROM brd_other'),
  ('brd_rows', 'SELECT s.id, s.v, u.v AS uv, p.v AS pv, h.v AS hv FROM brd_src s LEFT JOIN brd_up u ON u.id = s.id '
               'LEFT JOIN brd_part p ON p.id = s.id LEFT JOIN brd_parent h ON h.id = s.id WHERE s.v > brd_lp(0)');
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual', refresh_mode => 'incremental')
  FROM brd_defs ORDER BY name DESC;
RESET client_min_messages;

\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round

\set SHOW_CONTEXT never
-- each mode: a change to refresh, then the refresh, refused; nothing dropped or altered
CREATE FUNCTION brd_try(mode text) RETURNS TABLE (code text, message text, detail text) LANGUAGE plpgsql AS $$
DECLARE
  n int := (SELECT coalesce(max(id), 0) + 1 FROM public.brd_src);
BEGIN
  INSERT INTO public.brd_src VALUES (n, n, n);
  INSERT INTO public.brd_other VALUES (n, n);
  UPDATE public.brd_mode SET mode = brd_try.mode;
  BEGIN
    PERFORM dynview.refresh('public.brd_rows');
    code := '00000';
  EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS code = RETURNED_SQLSTATE, message = MESSAGE_TEXT, detail = PG_EXCEPTION_DETAIL;
  END;
  UPDATE public.brd_mode SET mode = 'none';
  RETURN NEXT;
END $$;
SELECT 'drop table' AS mode, * FROM brd_try('drop table');
SELECT 'drop table plain' AS mode, * FROM brd_try('drop table plain');
SELECT 'drop upstream' AS mode, * FROM brd_try('drop upstream');
SELECT 'drop source' AS mode, * FROM brd_try('drop source');
SELECT 'drop column' AS mode, * FROM brd_try('drop column');
SELECT 'rename source' AS mode, * FROM brd_try('rename source');
SELECT 'retype source' AS mode, * FROM brd_try('retype source');
SELECT 'add column' AS mode, * FROM brd_try('add column');
SELECT 'drop key index' AS mode, * FROM brd_try('drop key index');
SELECT 'policy' AS mode, * FROM brd_try('policy');
SELECT 'drop policy' AS mode, * FROM brd_try('drop policy');
SELECT 'attach' AS mode, * FROM brd_try('attach');
SELECT 'detach' AS mode, * FROM brd_try('detach');
SELECT 'inherit' AS mode, * FROM brd_try('inherit');
SELECT 'no inherit' AS mode, * FROM brd_try('no inherit');
SELECT 'drop function cascade' AS mode, * FROM brd_try('drop function cascade');
SELECT 'rule' AS mode, * FROM brd_try('rule');
SELECT 'partition of' AS mode, * FROM brd_try('partition of');
SELECT 'inherits' AS mode, * FROM brd_try('inherits');
SELECT count(*) AS source_indexes FROM pg_index WHERE indrelid = 'brd_src'::regclass;
SELECT count(*) AS rules FROM pg_rewrite WHERE ev_class = 'brd_src'::regclass;
SELECT count(*) AS partitions FROM pg_inherits WHERE inhparent = 'brd_part'::regclass;
SELECT count(*) AS children FROM pg_inherits WHERE inhparent = 'brd_parent'::regclass;
SELECT count(*) AS policies FROM pg_policy WHERE polrelid = 'brd_src'::regclass;
SELECT count(*) AS key_index FROM pg_index WHERE indrelid = 'brd_rows'::regclass;
SELECT attname, atttypid::regtype FROM pg_attribute
 WHERE attrelid = 'brd_src'::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum;
SELECT name FROM dynview.dynamic_tables WHERE name::text LIKE 'brd%' ORDER BY name::text;
-- quiet again: applied
SELECT * FROM dv_refresh_round('brd_defs');

-- DDL on a table the refresh does not read is no concern of the guard
SELECT 'other' AS mode, * FROM brd_try('other');
SELECT attname FROM pg_attribute WHERE attrelid = 'brd_other'::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum;
SELECT * FROM dv_refresh_round('brd_defs');

-- a refresh refused and rolled back to a savepoint: the transaction may drop the source after it,
-- also from code (a DO block: one utility level deeper)
BEGIN;
INSERT INTO brd_src VALUES (100, 100, 100);
SAVEPOINT s;
UPDATE brd_mode SET mode = 'drop source';
SELECT refresh_mode FROM dynview.refresh('brd_rows');
ROLLBACK TO SAVEPOINT s;
DO $$ BEGIN DROP TABLE public.brd_src CASCADE; END $$;
SELECT to_regclass('brd_src') AS after_drop;
ROLLBACK;
SELECT to_regclass('brd_src') AS after_rollback;
SELECT * FROM dv_refresh_round('brd_defs');

SET client_min_messages = warning;
SELECT dynview.drop_dynamic_table('brd_rows');
SELECT dynview.drop_dynamic_table('brd_up');
DROP TABLE brd_defs, brd_src, brd_other, brd_mode, brd_part, brd_child, brd_parent, brd_loose;
DROP FUNCTION brd_try(text), brd_lp(int), brd_side(), brd_fx(int);
DROP FUNCTION dv_refresh_round(regclass);
