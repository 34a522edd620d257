-- Tester's finding (s18-brk): change buffers and state tables were created by "CREATE TABLE"
-- without an access method, so a DBA's default_table_access_method (ALTER DATABASE ... SET, as
-- users of a columnar extension do) made them tables of that access method.  Change capture
-- writes buffers with heap_insert and heap_multi_insert and the refreshes' own writes to a state
-- table are marked as dynview's (never decoded) on the premise that they run no code that is not
-- built in; a table of another access method breaks both (heap routines on a relation that is
-- not heap; the access method's code run inside marked writes), and the guard refuses such an
-- access method for a state table's index, to superusers too.  Here the access method is a
-- superuser's with heap's own handler (the only one available without C code), so it shows the
-- choice, not a crash: on 7a54fef the buffer and the state tables took it.
-- Correct result: dynview's internal tables are heap whatever the default (USING heap); the
-- dynamic table itself keeps the user's choice (written through the executor); refreshes are
-- INCREMENTAL and the tables equal their queries (verify(), by text and by =).
SET client_min_messages = warning;
CREATE ACCESS METHOD brk18_am TYPE TABLE HANDLER heap_tableam_handler;
SET default_table_access_method = brk18_am;
CREATE TABLE bta_src (id int PRIMARY KEY, g int, v int);
INSERT INTO bta_src SELECT i, i % 4, i % 7 FROM generate_series(1, 60) i;
SELECT dynview.create_dynamic_table('bta_sum', 'SELECT g, sum(v) AS s, count(DISTINCT v) AS dv FROM bta_src GROUP BY g',
                                    schedule => 'manual') IS NOT NULL AS created;
SELECT dynview.create_dynamic_table('bta_rows', 'SELECT id, v FROM bta_src WHERE v > 2',
                                    schedule => 'manual') IS NOT NULL AS created;
INSERT INTO bta_src VALUES (101, 1, 9), (102, 2, 9);
UPDATE bta_src SET v = v + 1 WHERE id <= 5;
DELETE FROM bta_src WHERE id BETWEEN 20 AND 24;
SELECT refresh_mode FROM dynview.refresh('bta_sum');
SELECT refresh_mode FROM dynview.refresh('bta_rows');
SELECT dynview.verify('bta_sum') AS verified_sum, dynview.verify('bta_rows') AS verified_rows;
-- the access methods of this test's buffer and state tables, and of the dynamic tables
SELECT n.nspname, a.amname, count(*) AS tables
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace JOIN pg_am a ON a.oid = c.relam
 WHERE c.relkind = 'r' AND
       ((n.nspname = 'dynview_buffer' AND c.relname = 'changes_' || 'bta_src'::regclass::oid) OR
        (n.nspname = 'dynview_state' AND c.relname LIKE '%\_' || 'bta_sum'::regclass::oid || '%') OR
        (n.nspname = 'public' AND c.relname IN ('bta_sum', 'bta_rows')))
 GROUP BY 1, 2 ORDER BY 1, 2;
SELECT (SELECT array_agg(t ORDER BY g)::text FROM bta_sum t) =
       (SELECT array_agg(q ORDER BY g)::text FROM (SELECT g, sum(v) AS s, count(DISTINCT v) AS dv FROM bta_src GROUP BY g) q)
       AS same_text;
RESET default_table_access_method;
SELECT dynview.drop_dynamic_table('bta_sum') IS NOT NULL, dynview.drop_dynamic_table('bta_rows') IS NOT NULL;
DROP TABLE bta_src;
DROP ACCESS METHOD brk18_am;
