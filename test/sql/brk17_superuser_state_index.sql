-- Tester's finding (s16-brk, test/flaky/brk16_superuser_state_index.sql until s17-super): the
-- guard refused DDL on a change buffer or state table to every role but superusers ("a DBA may
-- tune them").  A superuser's index on a state table whose expression called user code (an
-- IMMUTABLE function calling a volatile one that writes) ran that code inside the refreshes'
-- writes to the state, which dynview marks as its own and never decodes: a dynamic table over the
-- written table missed the rows for good (5 rows against 10, NO_DATA, verify() false).
-- Correct result: whatever can run code inside those writes is refused to superusers too
-- (42809: expression and partial indexes, indexes of operator classes that are not built in,
-- CHECK constraints, defaults, row-level security, policies, triggers, rules, foreign keys
-- referencing the table, inheritance and partitioning, moving it; an index of any kind on a change
-- buffer, whose writers keep no index), also when a superuser's event trigger tries it inside
-- dynview's own DDL; a plain index on state columns and storage parameters stay allowed; the
-- table over the log stays equal to its query (verify(), by text and by =).  The decoder worker,
-- whose writes are all its own, writes its updates of dynview.dynamic_table_catalog unmarked (a
-- DBA's trigger there fires; on the old build its row was missed), and a trigger or rule on
-- dynview.decoder_state is refused.  An expression index already on a state table (made before
-- the guard refused it) keeps the refreshes' writes from being marked as dynview's own.
SET client_min_messages = warning;
CREATE TABLE bsi_src (id int PRIMARY KEY, g int, v int);
CREATE TABLE bsi_log (id serial PRIMARY KEY, note text);
INSERT INTO bsi_src SELECT i, i % 5, i FROM generate_series(1, 50) i;
SELECT dynview.create_dynamic_table('bsi_sum', 'SELECT g, sum(v) AS s, count(*) AS n FROM bsi_src GROUP BY g',
                                    schedule => 'manual') IS NOT NULL AS created;
SELECT dynview.create_dynamic_table('bsi_log_n', 'SELECT count(*) AS n FROM bsi_log', schedule => 'manual') IS NOT NULL AS created;
CREATE FUNCTION bsi_v(int) RETURNS int LANGUAGE plpgsql VOLATILE AS $$
BEGIN INSERT INTO public.bsi_log (note) VALUES ('index'); RETURN $1; END $$;
CREATE FUNCTION bsi_w(int) RETURNS int LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN PERFORM public.bsi_v($1); RETURN $1; END $$;
-- a btree operator class whose comparison function writes
CREATE FUNCTION bsi_cmp(int8, int8) RETURNS int LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN PERFORM public.bsi_v(1); RETURN btint8cmp($1, $2); END $$;
CREATE OPERATOR CLASS bsi_ops FOR TYPE int8 USING btree AS
  OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >, FUNCTION 1 bsi_cmp(int8, int8);
CREATE TABLE bsi_parent (g1 int, dv_count bigint, dv_recompute boolean, a1 bigint, a2 bigint, n1 bigint)
  PARTITION BY RANGE (g1);
CREATE TABLE bsi_parent2 (g1 int);
-- DDL attempted as a superuser: 'refused <SQLSTATE>' or 'allowed'
\getenv abs_srcdir PG_ABS_SRCDIR
\set try_statement :abs_srcdir '/sql/include/try_statement.sql'
\i :try_statement
SELECT rolsuper AS superuser FROM pg_roles WHERE rolname = current_user;
SELECT v.what, dv_try(format(v.stmt, c.relname)) AS result
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace,
       (VALUES (1, 'expression index', 'CREATE INDEX bsi_state_idx ON dynview_state.%I ((public.bsi_w(dv_count::int)))'),
               (2, 'partial index', 'CREATE INDEX ON dynview_state.%I (g1) WHERE public.bsi_w(g1) > 0'),
               (3, 'operator class', 'CREATE INDEX ON dynview_state.%I (dv_count bsi_ops)'),
               (4, 'CHECK constraint', 'ALTER TABLE dynview_state.%I ADD CONSTRAINT bsi_chk CHECK (public.bsi_w(g1) IS NOT NULL)'),
               (5, 'CHECK NOT VALID', 'ALTER TABLE dynview_state.%I ADD CONSTRAINT bsi_chk CHECK (public.bsi_w(g1) IS NOT NULL) NOT VALID'),
               (6, 'default', 'ALTER TABLE dynview_state.%I ALTER COLUMN a1 SET DEFAULT public.bsi_w(1)'),
               (7, 'generated column', 'ALTER TABLE dynview_state.%I ADD COLUMN bsi_x int GENERATED ALWAYS AS (public.bsi_w(g1)) STORED'),
               (8, 'unique constraint', 'ALTER TABLE dynview_state.%I ADD UNIQUE (dv_count)'),
               (9, 'row-level security', 'ALTER TABLE dynview_state.%I ENABLE ROW LEVEL SECURITY'),
               (10, 'forced row-level security', 'ALTER TABLE dynview_state.%I FORCE ROW LEVEL SECURITY'),
               (11, 'policy', 'CREATE POLICY bsi_pol ON dynview_state.%I WITH CHECK (public.bsi_w(g1) IS NOT NULL)'),
               (12, 'trigger', 'CREATE TRIGGER bsi_trg AFTER UPDATE ON dynview_state.%I FOR EACH ROW EXECUTE FUNCTION suppress_redundant_updates_trigger()'),
               (13, 'rule', 'CREATE RULE bsi_rule AS ON UPDATE TO dynview_state.%I DO ALSO SELECT 1'),
               (14, 'foreign key to it', 'CREATE TABLE bsi_ref (g int REFERENCES dynview_state.%I (g1) ON DELETE CASCADE)'),
               (15, 'partition of a table', 'ALTER TABLE bsi_parent ATTACH PARTITION dynview_state.%I DEFAULT'),
               (16, 'inheritance child', 'ALTER TABLE dynview_state.%I INHERIT bsi_parent2'),
               (17, 'inheritance parent', 'CREATE TABLE bsi_child () INHERITS (dynview_state.%I)'),
               (18, 'column type', 'ALTER TABLE dynview_state.%I ALTER COLUMN a1 TYPE numeric'),
               (19, 'unlogged', 'ALTER TABLE dynview_state.%I SET UNLOGGED'),
               (20, 'owner', 'ALTER TABLE dynview_state.%I OWNER TO pg_monitor'),
               (21, 'set schema', 'ALTER TABLE dynview_state.%I SET SCHEMA public'),
               (22, 'plain index', 'CREATE INDEX bsi_plain_idx ON dynview_state.%I (dv_count, g1)'),
               (23, 'storage parameter', 'ALTER TABLE dynview_state.%I SET (fillfactor = 70)'),
               (24, 'statistics target', 'ALTER TABLE dynview_state.%I ALTER COLUMN g1 SET STATISTICS 200')) v(n, what, stmt)
 WHERE n.nspname = 'dynview_state' AND c.relname = 'agg_' || 'bsi_sum'::regclass::oid
 ORDER BY v.n;
SELECT dv_try('ALTER INDEX dynview_state.bsi_plain_idx SET (fillfactor = 60)') AS index_storage_parameter;
-- the change buffer of bsi_src: no index at all (change capture writes none of its entries)
SELECT v.what, dv_try(format(v.stmt, 'changes_' || 'bsi_src'::regclass::oid)) AS result
  FROM (VALUES (1, 'plain index', 'CREATE INDEX ON dynview_buffer.%I (g)'),
               (2, 'CHECK constraint', 'ALTER TABLE dynview_buffer.%I ADD CHECK (public.bsi_w(g) IS NOT NULL)'),
               (3, 'foreign key to it', 'CREATE TABLE bsi_ref (g int REFERENCES dynview_buffer.%I (g))')) v(n, what, stmt)
 ORDER BY v.n;
-- a superuser's event trigger adding an expression index inside dynview's own DDL (the state
-- tables a new dynamic table gets): refused, and the create with it
CREATE FUNCTION bsi_on_ddl() RETURNS event_trigger LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
  FOR r IN SELECT * FROM pg_event_trigger_ddl_commands()
            WHERE command_tag = 'CREATE TABLE' AND schema_name = 'dynview_state' LOOP
    EXECUTE format('CREATE INDEX ON %s ((public.bsi_w(1)))', r.object_identity);
  END LOOP;
END $$;
CREATE EVENT TRIGGER bsi_ddl ON ddl_command_end EXECUTE FUNCTION bsi_on_ddl();
SELECT dv_try($$SELECT dynview.create_dynamic_table('bsi_sum2', 'SELECT g, sum(v) AS s FROM bsi_src GROUP BY g', schedule => 'manual')$$)
       AS create_under_event_trigger;
DROP EVENT TRIGGER bsi_ddl;
-- no expression index was made anywhere, nor a table
SELECT count(*) AS expression_indexes
  FROM pg_index x JOIN pg_class c ON c.oid = x.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname IN ('dynview_state', 'dynview_buffer') AND (x.indexprs IS NOT NULL OR x.indpred IS NOT NULL);
SELECT to_regclass('bsi_sum2') IS NULL AS not_created;
-- dynview's own DDL still passes: a table with state made, a FULL refresh rebuilding state
SELECT dynview.create_dynamic_table('bsi_sum3', 'SELECT g, count(DISTINCT v) AS d FROM bsi_src GROUP BY g',
                                    schedule => 'manual') IS NOT NULL AS created;
SELECT dynview.wait_for_capture();
SELECT refresh_mode FROM dynview.refresh('bsi_log_n');
-- groups' counts change: the state rows are updated (not HOT), the plain index is written
INSERT INTO bsi_src SELECT 100 + i, i % 5, i FROM generate_series(1, 7) i;
SELECT refresh_mode FROM dynview.refresh('bsi_sum');
SELECT refresh_mode FROM dynview.refresh('bsi_sum3');
SELECT dynview.verify('bsi_sum') AS verified_sum, dynview.verify('bsi_sum3') AS verified_sum3;
-- the decoder worker writes all but its updates of the catalog as its own (never decoded): a
-- DBA's trigger on dynview.dynamic_table_catalog firing when the decoder marks a table
-- CHANGE_RETENTION_EXCEEDED writes a row that must be captured; a trigger or rule on
-- dynview.decoder_state, which it writes as its own only, is refused
CREATE FUNCTION bsi_catalog_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.next_refresh_full IS DISTINCT FROM OLD.next_refresh_full AND NEW.next_refresh_full IS NOT NULL THEN
    INSERT INTO public.bsi_log (note) VALUES ('catalog ' || NEW.next_refresh_full);
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER bsi_catalog AFTER UPDATE ON dynview.dynamic_table_catalog
  FOR EACH ROW EXECUTE FUNCTION bsi_catalog_row();
SELECT dv_try('CREATE TRIGGER bsi_ds AFTER UPDATE ON dynview.decoder_state FOR EACH ROW EXECUTE FUNCTION bsi_catalog_row()') AS decoder_state_trigger,
       dv_try('CREATE RULE bsi_ds_rule AS ON UPDATE TO dynview.decoder_state DO ALSO NOTIFY bsi') AS decoder_state_rule;
-- bsi_sum3 holds back a change of bsi_src, its data made older than dynview.change_retention
-- (the decoder compares data_timestamp with now() minus the retention)
INSERT INTO bsi_src VALUES (200, 1, 1);
SELECT dynview.wait_for_capture();
UPDATE dynview.dynamic_table_catalog
   SET data_timestamp = data_timestamp - current_setting('dynview.change_retention')::interval - interval '1 hour'
 WHERE relid = 'bsi_sum3'::regclass;
\set poll_until :abs_srcdir '/sql/include/poll_until.sql'
\i :poll_until
SELECT dv_poll_until($$SELECT next_refresh_full = 'CHANGE_RETENTION_EXCEEDED'
                 FROM dynview.dynamic_table_catalog WHERE relid = 'bsi_sum3'::regclass$$) AS marked;
DROP TRIGGER bsi_catalog ON dynview.dynamic_table_catalog;
SELECT note FROM bsi_log ORDER BY id;
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('bsi_sum3');
SELECT refresh_mode FROM dynview.refresh('bsi_sum');
SELECT dynview.verify('bsi_sum') AS verified_sum, dynview.verify('bsi_sum3') AS verified_sum3;
-- an expression index that was there before (an older build let superusers make one): a table
-- shaped as bsi_sum4's state, with one, put in the state's place (the guard does not refuse
-- RENAME or a move into dynview_state; what a refresh asks is what is there).  Writing the state
-- now runs user code: the refresh's writes are not marked as its own, and what the index
-- expression writes is captured
SELECT dynview.create_dynamic_table('bsi_sum4', 'SELECT g, sum(v) AS s, count(*) AS n FROM bsi_src GROUP BY g',
                                    schedule => 'manual') IS NOT NULL AS created;
DO $$
DECLARE st text := 'agg_' || 'bsi_sum4'::regclass::oid;
BEGIN
  EXECUTE format('CREATE TABLE public.bsi_fake (LIKE dynview_state.%I INCLUDING INDEXES)', st);
  EXECUTE format('INSERT INTO public.bsi_fake SELECT * FROM dynview_state.%I', st);
  CREATE INDEX bsi_fake_idx ON public.bsi_fake ((public.bsi_w(dv_count::int)));
  EXECUTE format('ALTER TABLE dynview_state.%I RENAME TO bsi_real', st);
  ALTER TABLE public.bsi_fake SET SCHEMA dynview_state;
  EXECUTE format('ALTER TABLE dynview_state.bsi_fake RENAME TO %I', st);
END $$;
INSERT INTO bsi_src SELECT 300 + i, i % 5, i FROM generate_series(1, 5) i;
SELECT refresh_mode FROM dynview.refresh('bsi_sum4');
SELECT dynview.verify('bsi_sum4') AS verified_sum4;
-- (the table's own state back in place, the other dropped)
DO $$
DECLARE st text := 'agg_' || 'bsi_sum4'::regclass::oid;
BEGIN
  EXECUTE format('ALTER TABLE dynview_state.%I RENAME TO bsi_fake', st);
  DROP TABLE dynview_state.bsi_fake;
  EXECUTE format('ALTER TABLE dynview_state.bsi_real RENAME TO %I', st);
END $$;
SELECT dynview.drop_dynamic_table('bsi_sum4') IS NOT NULL AS dropped;
SELECT count(*) FILTER (WHERE note = 'index') > 0 AS index_wrote FROM bsi_log;
SELECT dynview.wait_for_capture();
SELECT r.refresh_mode, dynview.verify('bsi_log_n') AS verified
  FROM dynview.refresh('bsi_log_n') r;
SELECT (SELECT n FROM bsi_log_n) = (SELECT count(*) FROM bsi_log) AS same_rows,
       (SELECT bsi_log_n::text FROM bsi_log_n) = (SELECT q::text FROM (SELECT count(*) AS n FROM bsi_log) q) AS same_text;
SELECT dynview.drop_dynamic_table('bsi_sum') IS NOT NULL, dynview.drop_dynamic_table('bsi_sum3') IS NOT NULL,
       dynview.drop_dynamic_table('bsi_log_n') IS NOT NULL;
DROP FUNCTION dv_try(text), bsi_on_ddl(), bsi_catalog_row(), dv_poll_until(text);
DROP OPERATOR CLASS bsi_ops USING btree;
DROP OPERATOR FAMILY bsi_ops USING btree;
DROP FUNCTION bsi_w(int), bsi_v(int), bsi_cmp(int8, int8);
DROP TABLE bsi_src, bsi_log, bsi_parent, bsi_parent2;
