-- The catalog rows a refresh reads without SQL (catalog.c, CatalogRead): the dynamic table's
-- row and sources, the history row's source_tables, the source signatures (written only when
-- one changed), in READ COMMITTED and REPEATABLE READ, and within one transaction.
SET client_min_messages = warning;
CREATE SCHEMA "cr Schema";
CREATE TABLE "cr Schema"."Odd ""name""" (id int PRIMARY KEY, v int);
CREATE TABLE cr_plain (id int PRIMARY KEY, w int);
INSERT INTO "cr Schema"."Odd ""name""" VALUES (1, 10), (2, 20);
INSERT INTO cr_plain VALUES (1, 100), (2, 200);
SELECT dynview.create_dynamic_table('cr_up', 'SELECT id, w FROM cr_plain', schedule => 'manual');
SELECT dynview.create_dynamic_table('cr_dt',
  $$SELECT o.id, o.v, u.w FROM "cr Schema"."Odd ""name""" o JOIN cr_up u USING (id)$$, schedule => 'manual');
-- source_tables: quoted names, oids, the upstream dynamic table marked, ordered by (schema, name)
SELECT refresh_mode, jsonb_path_query_array(source_tables, '$[*].name') AS names FROM dynview.refresh('cr_dt');
SELECT source_tables = jsonb_build_array(
         jsonb_build_object('name', '"cr Schema"."Odd ""name"""', 'oid', '"cr Schema"."Odd ""name"""'::regclass::oid::bigint,
                            'dynamic_table', false),
         jsonb_build_object('name', 'public.cr_up', 'oid', 'cr_up'::regclass::oid::bigint, 'dynamic_table', true))
       AS source_tables_as_expected
  FROM dynview.refresh_history('cr_dt', 1);
-- the source rows are not rewritten by a refresh when no signature changed
CREATE TEMP TABLE cr_xmin AS SELECT source_name, xmin::text AS x FROM dynview.source_catalog WHERE relid = 'cr_dt'::regclass;
INSERT INTO "cr Schema"."Odd ""name""" VALUES (3, 30);
INSERT INTO cr_plain VALUES (3, 300);
SELECT dynview.wait_for_capture();
SELECT refresh_mode, mode_reason_code, rows_inserted FROM dynview.refresh('cr_dt');
SELECT dynview.verify('cr_up'), dynview.verify('cr_dt');
SELECT count(*) AS rewritten FROM dynview.source_catalog s JOIN cr_xmin c USING (source_name)
 WHERE s.relid = 'cr_dt'::regclass AND s.xmin::text <> c.x;
-- a source altered: the next refresh sees it (FULL, SOURCE_ALTERED, named as regclass names it),
-- records the new signature, and the one after is incremental again
ALTER TABLE "cr Schema"."Odd ""name""" ADD UNIQUE (v);
INSERT INTO "cr Schema"."Odd ""name""" VALUES (4, 40);
INSERT INTO cr_plain VALUES (4, 400);
SELECT refresh_mode, mode_reason_code, mode_reason FROM dynview.refresh('cr_dt');
SELECT dynview.verify('cr_dt');
SELECT count(*) AS rewritten FROM dynview.source_catalog s JOIN cr_xmin c USING (source_name)
 WHERE s.relid = 'cr_dt'::regclass AND s.xmin::text <> c.x;
INSERT INTO "cr Schema"."Odd ""name""" VALUES (5, 50);
INSERT INTO cr_plain VALUES (5, 500);
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('cr_dt');
SELECT dynview.verify('cr_dt');
-- catalog changes made earlier in the same transaction are read: a FULL refresh marked, then done
BEGIN;
SELECT dynview.alter_dynamic_table('cr_dt', refresh_mode => 'full');
SELECT refresh_mode FROM dynview.refresh('cr_dt');
INSERT INTO cr_plain VALUES (6, 600);
SELECT refresh_mode FROM dynview.refresh('cr_dt');
SELECT dynview.verify('cr_dt');
ROLLBACK;
-- REPEATABLE READ: the catalog row as of the transaction's snapshot
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT refresh_mode FROM dynview.refresh('cr_dt');
SELECT dynview.verify('cr_dt');
COMMIT;
-- a missing source: NO_DATA, source_tables gives its recorded quoted name and a null oid; a
-- table of that name again: FULL (UPSTREAM_RECREATED)
SELECT dynview.drop_dynamic_table('cr_up');
SELECT dynview.create_dynamic_table('cr_one', $$SELECT id, v FROM "cr Schema"."Odd ""name"""$$, schedule => 'manual');
DROP TABLE "cr Schema"."Odd ""name""" CASCADE;
SELECT refresh_mode, mode_reason_code, source_tables FROM dynview.refresh('cr_one');
CREATE TABLE "cr Schema"."Odd ""name""" (id int PRIMARY KEY, v int);
INSERT INTO "cr Schema"."Odd ""name""" VALUES (7, 70);
SELECT refresh_mode, mode_reason_code, source_tables = jsonb_build_array(jsonb_build_object(
         'name', '"cr Schema"."Odd ""name"""', 'oid', '"cr Schema"."Odd ""name"""'::regclass::oid::bigint,
         'dynamic_table', false)) AS source_tables_as_expected
  FROM dynview.refresh('cr_one');
SELECT dynview.verify('cr_one');
SELECT dynview.drop_dynamic_table('cr_one');
SELECT dynview.drop_dynamic_table('cr_dt');
DROP SCHEMA "cr Schema" CASCADE;
DROP TABLE cr_plain;
