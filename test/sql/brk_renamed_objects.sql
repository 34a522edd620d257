-- Tester's finding (s9-brk): renaming a function the query calls (ALTER FUNCTION ... RENAME TO)
-- or a value of an enum it compares with (ALTER TYPE ... RENAME VALUE) makes every refresh
-- fail (function public.brk_ro_double(integer) does not exist; invalid input value for enum),
-- while a view over the same query follows both, as dynview follows a renamed source column
-- (refresh.c follow_renames: the catalog keeps the analysed tree, by OID, but it is deparsed
-- again only when a source column was renamed).  Correct result: the refreshes succeed and
-- verify() is true.
SET client_min_messages = warning;
CREATE TYPE brk_ro_level AS ENUM ('lo', 'hi');
CREATE FUNCTION brk_ro_double(int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT $1 * 2';
CREATE TABLE brk_ro_src (id int PRIMARY KEY, lvl brk_ro_level NOT NULL, v int NOT NULL);
INSERT INTO brk_ro_src VALUES (1, 'lo', 1), (2, 'hi', 2);
SELECT dynview.create_dynamic_table('brk_ro_fn', 'SELECT id, brk_ro_double(v) AS d FROM brk_ro_src',
                                    schedule => 'manual') IS NOT NULL AS created;
SELECT dynview.create_dynamic_table('brk_ro_enum', 'SELECT id FROM brk_ro_src WHERE lvl = ''hi''',
                                    schedule => 'manual') IS NOT NULL AS created;
ALTER FUNCTION brk_ro_double(int) RENAME TO brk_ro_twice;
ALTER TYPE brk_ro_level RENAME VALUE 'hi' TO 'high';
INSERT INTO brk_ro_src VALUES (3, 'high', 3);
SELECT refresh_mode IS NOT NULL AS refreshed FROM dynview.refresh('brk_ro_fn');
SELECT refresh_mode IS NOT NULL AS refreshed FROM dynview.refresh('brk_ro_enum');
SELECT dynview.verify('brk_ro_fn') AS verified_fn, dynview.verify('brk_ro_enum') AS verified_enum;
SELECT (SELECT sum(d) FROM brk_ro_fn) AS fn_sum, (SELECT count(*) FROM brk_ro_enum) AS enum_rows;
SELECT dynview.drop_dynamic_table(n) FROM unnest(ARRAY['brk_ro_fn', 'brk_ro_enum']) n;
DROP TABLE brk_ro_src;
DROP FUNCTION brk_ro_twice(int);
DROP TYPE brk_ro_level;
