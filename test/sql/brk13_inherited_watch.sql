-- A transaction that refreshes a dynamic table and then writes an inheritance child of its
-- source (directly, by TRUNCATE, by a trigger on another table; a grandchild; a child of two
-- parents) is refused at COMMIT, as a write to the source itself is (txnwatch.c): the rows of
-- the child are rows of the parent the table reads.  Before, only partitions counted for their
-- parents: the commit passed, the table's data snapshot counted the transaction as seen, and
-- the next refresh skipped the write (NO_DATA) and left the table wrong for good (found by
-- s13-exact).  A trigger run by a refresh may not write such a child either, as it may not write
-- the source.  After each refused commit, every table is refreshed and compared with its query:
-- verify(), and the rows by text and by =.  The refusal names the relation written and the source
-- it is part of (before, the source alone); so does the error of a trigger run by a refresh.  A
-- partition written directly is named alike.
SET client_min_messages = warning;
\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round
CREATE TABLE iw_parent (id int PRIMARY KEY, g int, v numeric);
CREATE TABLE iw_child (note text) INHERITS (iw_parent);
CREATE TABLE iw_grandchild () INHERITS (iw_child);
CREATE TABLE iw_other (id int PRIMARY KEY, w int);
CREATE TABLE iw_two (id int, g int, v numeric, w int) INHERITS (iw_parent, iw_other);
CREATE TABLE iw_log (id int PRIMARY KEY);
INSERT INTO iw_parent SELECT i, i % 3, i * 1.5 FROM generate_series(1, 10) i;
INSERT INTO iw_child SELECT i, i % 3, i * 1.5, 'c' FROM generate_series(11, 20) i;
INSERT INTO iw_grandchild SELECT i, i % 3, i * 1.5, 'gc' FROM generate_series(21, 30) i;
INSERT INTO iw_two SELECT i, i % 3, i * 1.5, i FROM generate_series(31, 35) i;
-- a write to iw_log writes the child through a trigger
CREATE FUNCTION iw_log_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM iw_child WHERE id = NEW.id;
  RETURN NEW;
END $$;
CREATE TRIGGER iw_log_writes AFTER INSERT ON iw_log FOR EACH ROW EXECUTE FUNCTION iw_log_trigger();
CREATE TABLE iw_defs (name text, query text);
INSERT INTO iw_defs VALUES
  ('iw_rows', 'SELECT id, g, v FROM iw_parent'),
  ('iw_sums', 'SELECT g, sum(v) AS s, count(*) AS n FROM iw_parent GROUP BY g');
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual') FROM iw_defs ORDER BY name;
-- the child written after the refresh: refused
BEGIN;
SELECT refresh_mode FROM dynview.refresh('iw_rows');
DELETE FROM iw_child WHERE id = 11;
COMMIT;
SELECT * FROM dv_refresh_round('iw_defs');
-- a grandchild
BEGIN;
SELECT refresh_mode FROM dynview.refresh('iw_sums');
UPDATE iw_grandchild SET v = v + 1 WHERE id = 21;
COMMIT;
SELECT * FROM dv_refresh_round('iw_defs');
-- a child of two parents, one of them no source
BEGIN;
SELECT refresh_mode FROM dynview.refresh('iw_rows');
INSERT INTO iw_two VALUES (36, 1, 2.5, 36);
COMMIT;
SELECT * FROM dv_refresh_round('iw_defs');
-- TRUNCATE of the child
BEGIN;
SELECT refresh_mode FROM dynview.refresh('iw_sums');
TRUNCATE iw_grandchild;
COMMIT;
SELECT * FROM dv_refresh_round('iw_defs');
-- a trigger on another table writes the child
BEGIN;
SELECT refresh_mode FROM dynview.refresh('iw_rows');
INSERT INTO iw_log VALUES (12);
COMMIT;
SELECT * FROM dv_refresh_round('iw_defs');
-- a write to the other parent's own rows does not count: committed
BEGIN;
SELECT refresh_mode FROM dynview.refresh('iw_rows');
INSERT INTO iw_other VALUES (1, 1);
COMMIT;
-- a refresh after the write lets the commit pass, and the next refresh finds the table equal
-- to its query
BEGIN;
SELECT refresh_mode FROM dynview.refresh('iw_rows');
DELETE FROM iw_child WHERE id = 13;
SELECT refresh_mode FROM dynview.refresh('iw_rows');
COMMIT;
SELECT * FROM dv_refresh_round('iw_defs');
-- a trigger run by a refresh (on the dynamic table) may not write a child of its source
CREATE FUNCTION iw_rows_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO public.iw_child VALUES (NEW.id + 1000, 0, 0, 'by trigger');
  RETURN NEW;
END $$;
CREATE TRIGGER iw_rows_writes AFTER INSERT ON iw_rows FOR EACH ROW EXECUTE FUNCTION iw_rows_trigger();
INSERT INTO iw_parent VALUES (40, 1, 4);
SELECT refresh_mode FROM dynview.refresh('iw_rows');
DROP TRIGGER iw_rows_writes ON iw_rows;
SELECT * FROM dv_refresh_round('iw_defs');
SELECT count(*) AS child_rows FROM iw_child;
-- a partition of a partitioned source, written directly: named as the partition of its source
CREATE TABLE iw_part (id int, g int) PARTITION BY LIST (g);
CREATE TABLE iw_part_1 PARTITION OF iw_part FOR VALUES IN (1);
CREATE TABLE iw_part_2 PARTITION OF iw_part FOR VALUES IN (2);
INSERT INTO iw_part SELECT i, 1 + i % 2 FROM generate_series(1, 6) i;
INSERT INTO iw_defs VALUES ('iw_part_rows', 'SELECT id, g FROM iw_part');
SELECT dynview.create_dynamic_table('iw_part_rows', 'SELECT id, g FROM iw_part', schedule => 'manual');
BEGIN;
SELECT refresh_mode FROM dynview.refresh('iw_part_rows');
UPDATE iw_part_2 SET id = id + 100 WHERE id = 1;
COMMIT;
SELECT * FROM dv_refresh_round('iw_defs');
SELECT dynview.drop_dynamic_table(name) FROM iw_defs ORDER BY name DESC;
DROP TABLE iw_part;
DROP TABLE iw_defs, iw_two, iw_grandchild, iw_child, iw_parent, iw_other, iw_log;
DROP FUNCTION iw_log_trigger(), iw_rows_trigger();
DROP FUNCTION dv_refresh_round(regclass);
