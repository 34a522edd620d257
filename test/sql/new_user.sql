-- What a new user ran into (the tenth session's new-user trial), each answered as PostgreSQL
-- would: a schedule given as an interval works (create, create_or_replace, alter; stored as its
-- text); a query calling nextval() or setval() is refused (every refresh would advance the
-- sequence again), also through a view, while other volatile functions stay FULL; a relation
-- named with upper case letters but without quotes that does not resolve gets a hint on quoting
-- (in the query, and as the dynamic table's name); TRUNCATE of a source makes the next refresh
-- FULL with SOURCE_TRUNCATED (its storage was replaced), whose text names TRUNCATE.  Every
-- refresh checked with dynview.verify() and the rows compared with the query's by text and by =.
SET client_min_messages = warning;
CREATE TABLE nu_src (id int PRIMARY KEY, v int);
INSERT INTO nu_src SELECT i, i * 10 FROM generate_series(1, 5) i;
CREATE FUNCTION nu_same(t regclass, q text) RETURNS TABLE (verified boolean, same_text boolean, same_rows boolean)
LANGUAGE plpgsql AS $$
BEGIN
  verified := dynview.verify(t::text);
  EXECUTE format('SELECT NOT EXISTS ((SELECT x::text FROM %s x EXCEPT ALL SELECT y::text FROM (%s) y)
                  UNION ALL (SELECT y::text FROM (%s) y EXCEPT ALL SELECT x::text FROM %s x))', t, q, q, t) INTO same_text;
  EXECUTE format('SELECT NOT EXISTS ((TABLE %s EXCEPT ALL (%s)) UNION ALL ((%s) EXCEPT ALL TABLE %s))', t, q, q, t) INTO same_rows;
  RETURN NEXT;
END $$;

-- 1. a schedule given as an interval
SELECT dynview.create_dynamic_table('nu_int', 'SELECT id, v FROM nu_src', schedule => interval '1 minute');
SELECT schedule FROM dynview.dynamic_tables WHERE name = 'nu_int'::regclass;
SELECT dynview.alter_dynamic_table('nu_int', schedule => interval '2 hours');
SELECT schedule FROM dynview.dynamic_tables WHERE name = 'nu_int'::regclass;
SELECT dynview.create_or_replace_dynamic_table('nu_int', 'SELECT id, v, v + 1 AS w FROM nu_src',
                                               schedule => interval '30 seconds', refresh_mode => 'incremental');
SELECT schedule, refresh_mode FROM dynview.dynamic_tables WHERE name = 'nu_int'::regclass;
-- an untyped literal is still text; an interval under 1 second fails as its text does
SELECT dynview.alter_dynamic_table('nu_int', schedule => '5 minutes');
SELECT schedule FROM dynview.dynamic_tables WHERE name = 'nu_int'::regclass;
SELECT dynview.alter_dynamic_table('nu_int', schedule => interval '0.5 seconds');
SELECT * FROM nu_same('nu_int', 'SELECT id, v, v + 1 AS w FROM nu_src');

-- 2. sequences: nextval() and setval() refused, directly and through a view; the sequence never
-- advanced.  Other volatile functions: FULL, VOLATILE_FUNCTION.
CREATE SEQUENCE nu_seq;
SELECT dynview.create_dynamic_table('nu_seq_t', $$SELECT id, nextval('nu_seq') AS n FROM nu_src$$, schedule => 'manual');
SELECT dynview.create_dynamic_table('nu_seq_t', $$SELECT id FROM nu_src WHERE setval('nu_seq', id, true) > 0$$, schedule => 'manual');
CREATE VIEW nu_seq_v AS SELECT id, nextval('nu_seq') AS n FROM nu_src;
SELECT dynview.create_dynamic_table('nu_seq_t', 'SELECT id, n FROM nu_seq_v', schedule => 'manual');
SELECT last_value, is_called FROM nu_seq;
SELECT dynview.create_dynamic_table('nu_rand', 'SELECT id, random() < 2 AS r FROM nu_src', schedule => 'manual');
SELECT effective_mode FROM dynview.dynamic_tables WHERE name = 'nu_rand'::regclass;
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('nu_rand');
SELECT * FROM nu_same('nu_rand', 'SELECT id, random() < 2 AS r FROM nu_src');

-- 3. upper case letters without quotes: a hint on quoting, in the query and as the table's name
CREATE TABLE "NuMixed" (id int PRIMARY KEY);
INSERT INTO "NuMixed" VALUES (1), (2);
SELECT dynview.create_dynamic_table('nu_mixed', 'SELECT id FROM NuMixed', schedule => 'manual');
SELECT dynview.create_dynamic_table('nu_mixed', 'SELECT m.id FROM nu_src s JOIN public.NuMixed m USING (id)', schedule => 'manual');
SELECT dynview.create_dynamic_table('"NuDyn"', 'SELECT id FROM "NuMixed"', schedule => 'manual');
SELECT refresh_mode FROM dynview.refresh('NuDyn');
SELECT refresh_mode FROM dynview.refresh('public.NuDyn');
-- (a name without upper case letters keeps the usual hint)
SELECT refresh_mode FROM dynview.refresh('nu_nothing');
INSERT INTO "NuMixed" VALUES (3);
SELECT refresh_mode FROM dynview.refresh('"NuDyn"');
SELECT * FROM nu_same('"NuDyn"', 'SELECT id FROM "NuMixed"');

-- 4. TRUNCATE of a source: FULL, SOURCE_TRUNCATED, its text naming TRUNCATE; incremental again after
TRUNCATE nu_src;
INSERT INTO nu_src SELECT i, i FROM generate_series(3, 8) i;
SELECT refresh_mode, mode_reason_code, mode_reason LIKE '%TRUNCATE%' AS names_truncate FROM dynview.refresh('nu_int');
SELECT * FROM nu_same('nu_int', 'SELECT id, v, v + 1 AS w FROM nu_src');
UPDATE nu_src SET v = v + 1 WHERE id = 4;
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('nu_int');
SELECT * FROM nu_same('nu_int', 'SELECT id, v, v + 1 AS w FROM nu_src');

SELECT dynview.drop_dynamic_table(t) FROM unnest(ARRAY['nu_int', 'nu_rand', '"NuDyn"']) t;
DROP FUNCTION nu_same(regclass, text);
DROP VIEW nu_seq_v;
DROP SEQUENCE nu_seq;
DROP TABLE nu_src, "NuMixed";
