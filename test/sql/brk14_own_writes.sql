-- Tester's finding (s14-brk): a refresh whose writes dynview marks as its own (not decoded:
-- writes_are_own, the table has no trigger, rule, CHECK, policy or domain column and the query
-- calls no volatile function) also marked what user code wrote while those statements ran.  A
-- function the query calls may be declared IMMUTABLE and still write (PL/pgSQL lets it call a
-- volatile function, whose statements then write), and so may an index expression on the dynamic
-- table or a domain's CHECK: their rows in another table were never captured, and the dynamic
-- tables over that table missed them for good (the next refresh NO_DATA, verify() false).
-- Correct result: a refresh that may run code that is not built in is not marked; every table
-- over the written table sees the rows.  Refreshes of the writing tables and of the readers run
-- in transactions of their own, each checked with verify() and by text and by =.
SET client_min_messages = warning;
CREATE TABLE bow_src (id int PRIMARY KEY, v int);
CREATE TABLE bow_log (id int PRIMARY KEY, v int);
INSERT INTO bow_src VALUES (1, 1);
INSERT INTO bow_log VALUES (1, 1);
-- the writer, and an "immutable" function that calls it (search_path is pg_catalog during a refresh)
CREATE FUNCTION bow_write(int) RETURNS int LANGUAGE plpgsql VOLATILE AS $$
BEGIN INSERT INTO public.bow_log VALUES ($1, $1 % 100) ON CONFLICT DO NOTHING; RETURN $1; END $$;
CREATE FUNCTION bow_f(int) RETURNS int LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN PERFORM public.bow_write(1000 + $1); RETURN $1 * 2; END $$;
CREATE FUNCTION bow_g(int) RETURNS int LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN PERFORM public.bow_write(2000 + $1); RETURN $1; END $$;
CREATE FUNCTION bow_ok(int) RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN PERFORM public.bow_write(3000 + $1); RETURN true; END $$;
CREATE DOMAIN bow_dom AS int CHECK (public.bow_ok(VALUE));
-- the writers: the function in the query, an index expression on the table, a domain coercion
SELECT dynview.create_dynamic_table('bow_fn', 'SELECT id, bow_f(v) AS w FROM bow_src', schedule => 'manual');
SELECT dynview.create_dynamic_table('bow_ix', 'SELECT id, v FROM bow_src', schedule => 'manual');
CREATE INDEX bow_ix_expr ON bow_ix ((bow_g(v)));
SELECT dynview.create_dynamic_table('bow_dm', 'SELECT id, v::bow_dom::int AS v FROM bow_src', schedule => 'manual');
SELECT dynview.create_dynamic_table('bow_full', 'SELECT id, bow_f(v) AS w FROM bow_src', schedule => 'manual',
                                    refresh_mode => 'full');
-- the readers of what they write
SELECT dynview.create_dynamic_table('bow_rows', 'SELECT id, v FROM bow_log', schedule => 'manual');
SELECT dynview.create_dynamic_table('bow_sum', 'SELECT count(*) AS n, sum(v) AS s FROM bow_log', schedule => 'manual');
CREATE FUNCTION bow_check(t text, q text)
RETURNS TABLE (name text, refresh_mode text, verified boolean, same_text boolean, same_rows boolean)
LANGUAGE plpgsql AS $$
DECLARE nt bigint; ne bigint;
BEGIN
  EXECUTE format('SELECT count(*) FROM ((SELECT r::text FROM %I r EXCEPT ALL SELECT x::text FROM (%s) x)
                  UNION ALL (SELECT x::text FROM (%s) x EXCEPT ALL SELECT r::text FROM %I r)) d', t, q, q, t) INTO nt;
  EXECUTE format('SELECT count(*) FROM ((TABLE %I EXCEPT ALL (%s)) UNION ALL ((%s) EXCEPT ALL TABLE %I)) d', t, q, q, t) INTO ne;
  RETURN QUERY SELECT t, (SELECT h.refresh_mode || COALESCE('/' || h.mode_reason_code, '') FROM dynview.refresh_history(t, 1) h),
    dynview.verify(t), nt = 0, ne = 0;
END $$;
-- a round: the writing tables refreshed, then the readers, each in a transaction of its own
-- (\gexec); then the readers compared with their queries
CREATE VIEW bow_round AS
  SELECT format('SELECT refresh_mode, mode_reason_code FROM dynview.refresh(%L)', n) AS stmt
    FROM unnest(ARRAY['bow_full', 'bow_fn', 'bow_ix', 'bow_dm', 'bow_rows', 'bow_sum']) WITH ORDINALITY AS r(n, i)
   ORDER BY i;
CREATE VIEW bow_readers AS
  SELECT c.* FROM (VALUES ('bow_rows', 'SELECT id, v FROM bow_log'),
                          ('bow_sum', 'SELECT count(*) AS n, sum(v) AS s FROM bow_log')) r(t, q),
                  bow_check(r.t, r.q) c;
INSERT INTO bow_src VALUES (2, 2), (3, 3);
SELECT stmt FROM bow_round \gexec
SELECT * FROM bow_readers;
SELECT id, v FROM bow_rows WHERE id > 1000 ORDER BY id;
UPDATE bow_src SET v = 4 WHERE id = 1;
SELECT stmt FROM bow_round \gexec
SELECT * FROM bow_readers;
-- the writing tables themselves (their queries write nothing new now: ON CONFLICT DO NOTHING)
SELECT * FROM bow_check('bow_fn', 'SELECT id, bow_f(v) AS w FROM bow_src');
SELECT * FROM bow_check('bow_ix', 'SELECT id, v FROM bow_src');
SELECT * FROM bow_check('bow_dm', 'SELECT id, v::bow_dom::int AS v FROM bow_src');
SELECT * FROM bow_check('bow_full', 'SELECT id, bow_f(v) AS w FROM bow_src');
SELECT dynview.drop_dynamic_table(n) FROM unnest(ARRAY['bow_fn', 'bow_ix', 'bow_dm', 'bow_full', 'bow_rows', 'bow_sum']) n;
DROP VIEW bow_round, bow_readers;
DROP FUNCTION bow_check(text, text);
DROP TABLE bow_src, bow_log;
DROP DOMAIN bow_dom;
DROP FUNCTION bow_ok(int), bow_g(int), bow_f(int), bow_write(int);
