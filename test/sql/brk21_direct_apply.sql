-- Tester's findings (s21-brk) on the direct apply of select/join tables (apply.c): where it
-- did what the SQL statements it replaces would not.  Each refresh is compared with its query
-- (dv_refresh_round: verify(), the rows by text and by =); where the direct apply must refuse
-- as the statements do, the error and its SQLSTATE are shown and the table is unchanged.
SET client_min_messages = warning;
CREATE ROLE brk21_owner;
GRANT USAGE ON SCHEMA dynview TO brk21_owner;
GRANT CREATE ON SCHEMA public TO brk21_owner;
CREATE TABLE brk21_src (id int PRIMARY KEY, v text, q int);
CREATE TABLE brk21_side (id int PRIMARY KEY, v text);
ALTER TABLE brk21_src REPLICA IDENTITY FULL;
ALTER TABLE brk21_side REPLICA IDENTITY FULL;
INSERT INTO brk21_src SELECT i, 'v' || i, i FROM generate_series(1, 20) i;
INSERT INTO brk21_side SELECT i, 's' || i FROM generate_series(1, 5) i;
GRANT SELECT ON brk21_src, brk21_side TO brk21_owner;
GRANT UPDATE, DELETE ON brk21_src TO brk21_owner;

CREATE TABLE brk21_defs (name text PRIMARY KEY, query text NOT NULL);
INSERT INTO brk21_defs VALUES
  ('brk21_rows', 'SELECT id, v, q FROM brk21_src'),
  ('brk21_side_rows', 'SELECT id, v FROM brk21_side');
GRANT SELECT ON brk21_defs TO brk21_owner;
SET ROLE brk21_owner;
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual', refresh_mode => 'incremental') IS NOT NULL AS created
  FROM brk21_defs ORDER BY name;
RESET ROLE;
GRANT SELECT ON brk21_rows, brk21_side_rows TO PUBLIC;

\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round
CREATE TABLE brk21_before (id int, v text, q int);
CREATE FUNCTION brk21_unchanged() RETURNS bigint LANGUAGE sql AS $$
  SELECT count(*) FROM ((TABLE brk21_rows EXCEPT ALL TABLE brk21_before)
                        UNION ALL (TABLE brk21_before EXCEPT ALL TABLE brk21_rows)) x $$;

-- (1) Privileges.  The owner revoked INSERT and DELETE on its table, keeping SELECT: the
-- statements' DELETE and INSERT fail (42501); the direct apply took pg_class_aclcheck(SELECT |
-- INSERT | DELETE), which any one of them satisfies, and wrote the rows.  Now it needs all three
-- and leaves the rows to the statements, which fail.
SET ROLE brk21_owner;
REVOKE INSERT, DELETE ON brk21_rows FROM brk21_owner;
RESET ROLE;
INSERT INTO brk21_before SELECT * FROM brk21_rows;
UPDATE brk21_src SET v = v || 'a' WHERE id IN (1, 2);
INSERT INTO brk21_src VALUES (21, 'v21', 21);
SELECT dynview.wait_for_capture();
SET ROLE brk21_owner;
SELECT refresh_mode FROM dynview.refresh('brk21_rows');
\echo :LAST_ERROR_SQLSTATE
RESET ROLE;
SELECT brk21_unchanged() AS differing;
-- (privileges back: applied)
SET ROLE brk21_owner;
GRANT INSERT, DELETE ON brk21_rows TO brk21_owner;
SELECT * FROM dv_refresh_round('brk21_defs');
RESET ROLE;

-- (2) A CHECK constraint reading tableoid: the direct apply checked the row before it knew its
-- table (tableoid 0), so a constraint every INSERT passes failed, and one every INSERT fails
-- let rows in.
SET ROLE brk21_owner;
ALTER TABLE brk21_rows ADD CONSTRAINT brk21_own_table CHECK (tableoid = 'brk21_rows'::regclass);
RESET ROLE;
UPDATE brk21_src SET v = v || 'b' WHERE id IN (3, 4);
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('brk21_defs');
SET ROLE brk21_owner;
ALTER TABLE brk21_rows DROP CONSTRAINT brk21_own_table;
ALTER TABLE brk21_rows ADD CONSTRAINT brk21_no_table CHECK (tableoid::oid::int8 = 0) NOT VALID;
RESET ROLE;
TRUNCATE brk21_before;
INSERT INTO brk21_before SELECT * FROM brk21_rows;
UPDATE brk21_src SET v = v || 'c' WHERE id IN (5, 6);
SELECT dynview.wait_for_capture();
SELECT refresh_mode FROM dynview.refresh('brk21_rows');
\echo :LAST_ERROR_SQLSTATE
SELECT brk21_unchanged() AS differing;
SET ROLE brk21_owner;
ALTER TABLE brk21_rows DROP CONSTRAINT brk21_no_table;
RESET ROLE;
SELECT * FROM dv_refresh_round('brk21_defs');

-- (3) What the direct apply runs (here a CHECK constraint's function, run as the owner) is run by
-- a refresh statement for the guard.  It wrote a source of the table being refreshed, which a
-- function run by the statements may not: the change was lost (the table differed from its
-- query, and the next refresh found no change); and it could start a refresh inside the refresh.
-- Both are now refused as under the statements (55000), and the table is unchanged.
CREATE FUNCTION brk21_sneak(id int) RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  IF id = 7 THEN
    UPDATE public.brk21_src SET v = v || 'S' WHERE brk21_src.id = 8;
    DELETE FROM public.brk21_src WHERE brk21_src.id = 9;
  END IF;
  RETURN true;
END $$;
CREATE FUNCTION brk21_nested(id int) RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  IF id = 10 THEN
    PERFORM dynview.refresh('public.brk21_side_rows');
  END IF;
  RETURN true;
END $$;
SET ROLE brk21_owner;
ALTER TABLE brk21_rows ADD CONSTRAINT brk21_sneak CHECK (brk21_sneak(id)) NOT VALID;
RESET ROLE;
TRUNCATE brk21_before;
INSERT INTO brk21_before SELECT * FROM brk21_rows;
UPDATE brk21_src SET v = v || 'd' WHERE id = 7;
SELECT dynview.wait_for_capture();
SELECT refresh_mode FROM dynview.refresh('brk21_rows');
\echo :LAST_ERROR_SQLSTATE
SELECT brk21_unchanged() AS differing;
SELECT id, v FROM brk21_src WHERE id BETWEEN 7 AND 9 ORDER BY id;
SET ROLE brk21_owner;
ALTER TABLE brk21_rows DROP CONSTRAINT brk21_sneak;
ALTER TABLE brk21_rows ADD CONSTRAINT brk21_nested CHECK (brk21_nested(id)) NOT VALID;
RESET ROLE;
UPDATE brk21_src SET v = v || 'e' WHERE id = 10;
UPDATE brk21_side SET v = v || 'e' WHERE id = 1;
SELECT dynview.wait_for_capture();
SELECT refresh_mode FROM dynview.refresh('brk21_rows');
\echo :LAST_ERROR_SQLSTATE
SELECT brk21_unchanged() AS differing;
SET ROLE brk21_owner;
ALTER TABLE brk21_rows DROP CONSTRAINT brk21_nested;
RESET ROLE;
-- (the same through an index expression: a function declared IMMUTABLE that calls a volatile one)
CREATE FUNCTION brk21_key(id int) RETURNS int LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  PERFORM public.brk21_sneak(id);
  RETURN id;
END $$;
SET ROLE brk21_owner;
CREATE INDEX brk21_rows_key ON brk21_rows (brk21_key(id - 100));
RESET ROLE;
INSERT INTO brk21_src VALUES (107, 'v107', 107);
SELECT dynview.wait_for_capture();
SELECT refresh_mode FROM dynview.refresh('brk21_rows');
\echo :LAST_ERROR_SQLSTATE
SELECT brk21_unchanged() AS differing;
SELECT id, v FROM brk21_src WHERE id BETWEEN 7 AND 9 ORDER BY id;
DROP INDEX brk21_rows_key;
SELECT * FROM dv_refresh_round('brk21_defs');

-- (4) A CHECK constraint's function that reads a table (here the dynamic table itself: no other
-- row may hold the value) read it at the caller's snapshot, not at the data snapshot with this
-- refresh's deletes as the statements' INSERT does: two rows swapping their values failed with
-- 23514 at every refresh, where the statements apply them.
CREATE FUNCTION brk21_free(v text, id int) RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT NOT EXISTS (SELECT 1 FROM public.brk21_rows r WHERE r.v = $1 AND r.id <> $2) $$;
SET ROLE brk21_owner;
ALTER TABLE brk21_rows ADD CONSTRAINT brk21_free CHECK (brk21_free(v, id));
RESET ROLE;
UPDATE brk21_src SET v = CASE id WHEN 11 THEN 'v12' ELSE 'v11' END WHERE id IN (11, 12);
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('brk21_defs');
SELECT id, v FROM brk21_rows WHERE id IN (11, 12) ORDER BY id;
SET ROLE brk21_owner;
ALTER TABLE brk21_rows DROP CONSTRAINT brk21_free;
RESET ROLE;

-- (5) An identity column GENERATED ALWAYS: the statements' INSERT refuses the query's values for
-- it (428C9) at every refresh, FULL ones too, while the direct apply wrote them.  A dynamic
-- table's column is filled by its refreshes: it does not become an identity column.
SET ROLE brk21_owner;
ALTER TABLE brk21_rows ALTER COLUMN id SET NOT NULL;
ALTER TABLE brk21_rows ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY;
\echo :LAST_ERROR_SQLSTATE
ALTER TABLE brk21_rows ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY;
RESET ROLE;
UPDATE brk21_src SET v = v || 'f' WHERE id IN (13, 14);
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('brk21_defs');
SELECT attname, attidentity FROM pg_attribute WHERE attrelid = 'brk21_rows'::regclass AND attnum > 0 ORDER BY attnum;

SELECT dynview.drop_dynamic_table(name) FROM brk21_defs ORDER BY name;
DROP TABLE brk21_defs, brk21_before, brk21_src, brk21_side;
DROP FUNCTION brk21_unchanged(), brk21_sneak(int), brk21_nested(int), brk21_free(text, int), brk21_key(int), dv_refresh_round(regclass);
REVOKE USAGE ON SCHEMA dynview FROM brk21_owner;
REVOKE CREATE ON SCHEMA public FROM brk21_owner;
DROP ROLE brk21_owner;
