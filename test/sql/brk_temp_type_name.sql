-- Tester's finding (s8-brk2): dv_temp_table_name picks a name free of relations in the
-- session's temporary schema, but a temporary type (a domain, an enum) of that name makes
-- CREATE TEMPORARY TABLE fail ("type ... already exists"), so every refresh in that session that
-- needs the temporary table fails.  Correct result: the refresh picks another name and succeeds.
SET client_min_messages = warning;
CREATE TABLE btt_src (id int PRIMARY KEY, g int, x int);
INSERT INTO btt_src SELECT i, i % 4, i % 7 FROM generate_series(1, 50) i;
SELECT dynview.create_dynamic_table('btt_cd', 'SELECT g, count(DISTINCT x) AS dx, count(*) AS n FROM btt_src GROUP BY g',
                                    schedule => 'manual') IS NOT NULL AS created;
DO $$ BEGIN EXECUTE format('CREATE DOMAIN pg_temp.dv_distinct_%s AS int', 'btt_cd'::regclass::oid); END $$;
-- a FULL refresh (the source changed in the refreshing transaction) fills the state through the
-- temporary table dv_distinct_<oid>
BEGIN;
UPDATE btt_src SET x = x + 1 WHERE id < 5;
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('btt_cd');
COMMIT;
SELECT dynview.verify('btt_cd') AS verified;
SELECT dynview.drop_dynamic_table('btt_cd');
DROP TABLE btt_src;
