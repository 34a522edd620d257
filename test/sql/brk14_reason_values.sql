-- Tester's finding (s14-brk): a refresh whose change rows raised an error (a row written and
-- deleted again in one window, on which the query's cast fails) kept the error's message in its
-- history's mode_reason: with the row's value ('invalid input syntax for type integer:
-- "password=hunter2"').  The history is readable by every role that may read the dynamic table
-- (refresh_history's policy), and such a role need not read the source: the value of a row that
-- the table never held reached it.  Both paths: a table read as it is
-- (dynview.linear_windows_as_is, whose failure is also kept for the next refreshes' reasons) and
-- a window read that falls back from a condition that may fail (dynview.window_filter_functions).
-- Correct result: the reasons keep the message's form and SQLSTATE, not the values; a message
-- without values ("division by zero") is kept as it is; every refresh still equals its query.
SET client_min_messages = warning;
\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round
CREATE ROLE brk14_reader;
CREATE TABLE rv_src (id int PRIMARY KEY, t text, a int, b int);
INSERT INTO rv_src SELECT i, (i * 7)::text, i, 1 + i % 3 FROM generate_series(1, 20) i;
CREATE TABLE rv_defs (name text, query text);
INSERT INTO rv_defs VALUES
  ('rv_lin', $$SELECT count(*) AS n, sum(a) AS sa FROM rv_src WHERE t::int > 30$$),
  ('rv_grp', $$SELECT b, count(*) AS n, count(DISTINCT a) AS da FROM rv_src WHERE t::int > 30 GROUP BY b$$),
  ('rv_div', $$SELECT b, count(DISTINCT a) AS da FROM rv_src WHERE a / b > 2 GROUP BY b$$);
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual', refresh_mode => 'incremental')
  FROM rv_defs ORDER BY name;
GRANT SELECT ON rv_lin, rv_grp, rv_div TO brk14_reader;
-- a row on which the casts fail, and one on which a / b fails, each written and deleted again
BEGIN;
INSERT INTO rv_src VALUES (100, 'password=hunter2', 5, 1);
DELETE FROM rv_src WHERE id = 100;
INSERT INTO rv_src VALUES (101, '70', 6, 0);
DELETE FROM rv_src WHERE id = 101;
UPDATE rv_src SET a = a + 10 WHERE id IN (3, 8);
COMMIT;
SELECT * FROM dv_refresh_round('rv_defs');
-- what the reader of the tables (no right on rv_src) sees of their last refreshes
SET ROLE brk14_reader;
SELECT d.name, h.refresh_mode, h.mode_reason LIKE '%hunter2%' AS shows_value,
       substring(h.mode_reason FROM 'failed with (.*)$') AS failure
  FROM (VALUES ('rv_div'), ('rv_grp'), ('rv_lin')) d(name), dynview.refresh_history(d.name, 1) h
 ORDER BY 1;
SELECT count(*) AS rows_naming_value FROM dynview.refresh_history WHERE mode_reason LIKE '%hunter2%';
RESET ROLE;
-- the next refresh of the table read as it is repeats the earlier failure in its reason
UPDATE rv_src SET a = a + 1 WHERE id = 9;
SELECT * FROM dv_refresh_round('rv_defs');
SELECT d.name, h.mode_reason LIKE '%hunter2%' AS shows_value, h.mode_reason LIKE '%SQLSTATE 22P02%' AS names_sqlstate
  FROM (VALUES ('rv_lin')) d(name), dynview.refresh_history(d.name, 1) h;
SELECT dynview.drop_dynamic_table(name) FROM rv_defs ORDER BY name;
DROP TABLE rv_src, rv_defs;
DROP FUNCTION dv_refresh_round(regclass);
DROP ROLE brk14_reader;
