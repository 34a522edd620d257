-- Tester's finding (s14-brk): a dynamic table's owner owns its state tables in dynview_state,
-- and could give one a CHECK constraint, a default or an index expression.  That code runs
-- inside the refreshes' writes to the state, which dynview marks as its own (the decoder never
-- reads them): what it wrote to another table went uncaptured, and a dynamic table of another
-- role over that table missed the rows for good (the next refresh INCREMENTAL or NO_DATA,
-- verify() false).  Also the owner could move the state out of dynview_state or change its
-- columns.  Correct result: ALTER TABLE, CREATE INDEX and ALTER ... SET SCHEMA of a change
-- buffer or state table (or its index) are refused (42809) unless dynview runs them; the other
-- role's table stays equal to its query (verify(), by text and by =).
SET client_min_messages = warning;
CREATE ROLE brk14_owner;
GRANT CREATE ON SCHEMA public TO brk14_owner;
-- another role's table and its dynamic table
CREATE TABLE bid_log (id serial PRIMARY KEY, who text);
GRANT INSERT ON bid_log TO brk14_owner;
GRANT USAGE ON SEQUENCE bid_log_id_seq TO brk14_owner;
SELECT dynview.create_dynamic_table('bid_log_n', 'SELECT count(*) AS n FROM bid_log', schedule => 'manual');
-- DDL attempted as the owner of a state table: 'refused <SQLSTATE>' or 'allowed'
\getenv abs_srcdir PG_ABS_SRCDIR
\set try_statement :abs_srcdir '/sql/include/try_statement.sql'
\i :try_statement
SET ROLE brk14_owner;
CREATE TABLE bid_src (id int PRIMARY KEY, g int, v int);
INSERT INTO bid_src VALUES (1, 1, 1);
CREATE FUNCTION bid_write(int) RETURNS int LANGUAGE plpgsql VOLATILE AS $$
BEGIN INSERT INTO public.bid_log (who) VALUES (current_user); RETURN $1; END $$;
CREATE FUNCTION bid_ok(int) RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN PERFORM public.bid_write($1); RETURN true; END $$;
SELECT dynview.create_dynamic_table('bid_agg', 'SELECT g, sum(v) AS s, count(DISTINCT v) AS d FROM bid_src GROUP BY g',
                                    schedule => 'manual') IS NOT NULL AS created;
SELECT v.what, dv_try(format(v.stmt, c.relname)) AS result
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace,
       (VALUES (1, 'CHECK constraint', 'ALTER TABLE dynview_state.%I ADD CONSTRAINT bid_chk CHECK (public.bid_ok(g1))'),
               (2, 'default', 'ALTER TABLE dynview_state.%I ADD COLUMN bid_x int DEFAULT public.bid_write(1)'),
               (3, 'index expression', 'CREATE INDEX ON dynview_state.%I ((public.bid_ok(g1)))'),
               (4, 'column type', 'ALTER TABLE dynview_state.%I ALTER COLUMN g1 TYPE bigint'),
               (5, 'row-level security', 'ALTER TABLE dynview_state.%I ENABLE ROW LEVEL SECURITY'),
               (6, 'set schema', 'ALTER TABLE dynview_state.%I SET SCHEMA public')) v(n, what, stmt)
 WHERE n.nspname = 'dynview_state' AND c.relname = 'agg_' || 'bid_agg'::regclass::oid
 ORDER BY v.n;
-- the state of the count(DISTINCT) and an index of the state
SELECT dv_try(format('ALTER TABLE dynview_state.%I ADD CONSTRAINT bid_chk CHECK (public.bid_ok(g1))', c.relname)) AS dist_check
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = 'dynview_state' AND c.relname = 'dist_' || 'bid_agg'::regclass::oid || '_2';
SELECT dv_try(format('ALTER INDEX dynview_state.%I SET (fillfactor = 50)', i.relname)) AS index_alter
  FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class c ON c.oid = x.indrelid
 WHERE c.relname = 'agg_' || 'bid_agg'::regclass::oid LIMIT 1;
-- refreshes of the owner's table write its state; then the other role's table
INSERT INTO bid_src VALUES (2, 1, 2), (3, 2, 3);
SELECT refresh_mode FROM dynview.refresh('bid_agg');
UPDATE bid_src SET v = 5 WHERE id = 1;
SELECT refresh_mode FROM dynview.refresh('bid_agg');
SELECT dynview.verify('bid_agg') AS verified_agg;
RESET ROLE;
SELECT count(*) AS log_rows FROM bid_log;
SELECT refresh_mode FROM dynview.refresh('bid_log_n');
SELECT dynview.verify('bid_log_n') AS verified,
       (SELECT n FROM bid_log_n) = (SELECT count(*) FROM bid_log) AS same_rows,
       (SELECT bid_log_n::text FROM bid_log_n) = (SELECT q::text FROM (SELECT count(*) AS n FROM bid_log) q) AS same_text;
SELECT dynview.drop_dynamic_table('bid_agg');
SELECT dynview.drop_dynamic_table('bid_log_n');
DROP TABLE bid_src, bid_log;
DROP FUNCTION dv_try(text);
DROP OWNED BY brk14_owner;
REVOKE CREATE ON SCHEMA public FROM brk14_owner;
DROP ROLE brk14_owner;
