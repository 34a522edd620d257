-- Whether a refresh's writes can run user code (refresh.c writes_are_own: the table's triggers,
-- rules, constraints, policies, domain columns, index expressions, and the functions its query
-- calls) is decided once per cached plan and kept with it (plancache.c dv_plan_cache_own_writes).
-- A change that lets user code write must drop that answer in the session that holds it: here
-- the answer is cached ("no user code": the refresh's writes are not decoded), then an index
-- calling a writing function is created on one table and the function another table's query
-- calls is replaced by one that writes; the next refreshes in the same session must let the
-- decoder capture those writes, and the tables over the written table must see them.  Every
-- refresh checked with verify() and by text and by =.
SET client_min_messages = warning;
CREATE TABLE owc_src (id int PRIMARY KEY, v int);
CREATE TABLE owc_log (id int PRIMARY KEY, v int);
INSERT INTO owc_src VALUES (1, 1);
INSERT INTO owc_log VALUES (1, 1);
CREATE FUNCTION owc_write(int) RETURNS int LANGUAGE plpgsql VOLATILE AS $$
BEGIN INSERT INTO public.owc_log VALUES ($1, $1 % 100) ON CONFLICT DO NOTHING; RETURN $1; END $$;
-- harmless for now
CREATE FUNCTION owc_f(int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT $1 * 2';
CREATE FUNCTION owc_g(int) RETURNS int LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN PERFORM public.owc_write(2000 + $1); RETURN $1; END $$;
SELECT dynview.create_dynamic_table('owc_fn', 'SELECT id, owc_f(v) AS w FROM owc_src', schedule => 'manual');
SELECT dynview.create_dynamic_table('owc_ix', 'SELECT id, v FROM owc_src', schedule => 'manual');
SELECT dynview.create_dynamic_table('owc_rows', 'SELECT id, v FROM owc_log', schedule => 'manual');
CREATE FUNCTION owc_check(t text, q text)
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
CREATE VIEW owc_round AS
  SELECT format('SELECT refresh_mode, mode_reason_code FROM dynview.refresh(%L)', n) AS stmt
    FROM unnest(ARRAY['owc_fn', 'owc_ix', 'owc_rows']) WITH ORDINALITY AS r(n, i)
   ORDER BY i;
-- the reader is compared first, in a statement of its own: comparing owc_fn runs its query,
-- which (once owc_f writes) writes owc_log rows that only the next round's refresh reads
CREATE VIEW owc_reader AS SELECT * FROM owc_check('owc_rows', 'SELECT id, v FROM owc_log');
CREATE VIEW owc_writers AS
  SELECT c.* FROM (VALUES ('owc_fn', 'SELECT id, owc_f(v) AS w FROM owc_src'),
                          ('owc_ix', 'SELECT id, v FROM owc_src')) r(t, q),
                  owc_check(r.t, r.q) c;

-- rounds with nothing that writes: the answer is kept for the session's plans
INSERT INTO owc_src VALUES (2, 2);
SELECT stmt FROM owc_round \gexec
SELECT * FROM owc_reader;
SELECT * FROM owc_writers;
INSERT INTO owc_src VALUES (3, 3);
SELECT stmt FROM owc_round \gexec
SELECT * FROM owc_reader;
SELECT * FROM owc_writers;

-- now user code writes: an index calling owc_g on owc_ix, owc_f replaced by a writer
CREATE INDEX owc_ix_expr ON owc_ix ((owc_g(v)));
CREATE OR REPLACE FUNCTION owc_f(int) RETURNS int LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN PERFORM public.owc_write(1000 + $1); RETURN $1 * 2; END $$;
INSERT INTO owc_src VALUES (4, 4);
UPDATE owc_src SET v = 5 WHERE id = 1;
SELECT stmt FROM owc_round \gexec
SELECT * FROM owc_reader;
SELECT * FROM owc_writers;
-- the rows the writers wrote reach the reader (the round after the writes)
SELECT stmt FROM owc_round \gexec
SELECT * FROM owc_reader;
SELECT * FROM owc_writers;
SELECT id, v FROM owc_rows WHERE id > 1000 ORDER BY id;
SELECT dynview.drop_dynamic_table(n) FROM unnest(ARRAY['owc_fn', 'owc_ix', 'owc_rows']) n;
DROP VIEW owc_round, owc_reader, owc_writers;
DROP FUNCTION owc_check(text, text);
DROP TABLE owc_src, owc_log;
DROP FUNCTION owc_g(int), owc_f(int), owc_write(int);
