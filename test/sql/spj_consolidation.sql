-- The delta of a select/join table is consolidated in C before it is applied (issue 14,
-- refresh/incremental.c consolidate_delta): rows summed per distinct row by their columns'
-- binary images, only the rows of negative weight with their text form (the DELETEs find the
-- table's rows by it).  Exercised here: copies of a row in a table without a key (weights above
-- 1 and below -1), a row whose inserts and deletes in one window net to a negative, a positive
-- or no weight, rows equal by "=" but not by text form (1 and 1.0), a NaN of two bit patterns
-- (the same text form, two images), long values stored compressed in one row and not in
-- another, NULLs, and a source with a dropped column.  Every refresh compared with
-- its query (verify(), and the rows by text and by =).
SET client_min_messages = warning;
\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round
CREATE TABLE sc_src (id int PRIMARY KEY, g text, junk int, v numeric, f float8, note text);
CREATE TABLE sc_dim (g text PRIMARY KEY, label text);
INSERT INTO sc_dim VALUES ('a', 'A'), ('b', 'B'), ('c', 'C');
INSERT INTO sc_src (id, g, v, f) SELECT i, chr(97 + i % 3), i % 4, i % 2 FROM generate_series(1, 30) i;
CREATE TABLE sc_defs (name text, query text);
INSERT INTO sc_defs VALUES
  -- no key: the rows repeat (weights above 1)
  ('sc_nokey', 'SELECT g, v, f FROM sc_src'),
  -- a join without a key of its own, with the long text column
  ('sc_join', 'SELECT d.label, s.v, s.note FROM sc_src s JOIN sc_dim d ON d.g = s.g'),
  -- a key (id): rows found by it
  ('sc_keyed', 'SELECT s.id, s.g, s.v, s.f, s.note, d.label FROM sc_src s LEFT JOIN sc_dim d ON d.g = s.g');
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual', refresh_mode => 'incremental') IS NOT NULL AS created
  FROM sc_defs ORDER BY name;
SELECT * FROM dv_refresh_round('sc_defs');

-- three copies of a row in, two of another out; one row out and back in (its copies net 0)
INSERT INTO sc_src (id, g, v, f, note) VALUES (101, 'a', 7, 0, NULL), (102, 'a', 7, 0, NULL), (103, 'a', 7, 0, NULL);
DELETE FROM sc_src WHERE id IN (4, 16);
DELETE FROM sc_src WHERE id = 8;
INSERT INTO sc_src (id, g, v, f, note) VALUES (8, 'c', 0, 0, NULL);
SELECT * FROM dv_refresh_round('sc_defs');

-- in one window: two copies out and one in (net -1), one out and two in (net +1), 1 -> 1.0
-- (equal by "=", not by text form), NULLs
DELETE FROM sc_src WHERE id IN (101, 102);
INSERT INTO sc_src (id, g, v, f, note) VALUES (104, 'a', 7, 0, NULL);
DELETE FROM sc_src WHERE id = 5;
INSERT INTO sc_src (id, g, v, f, note) VALUES (105, 'c', 1, 1, NULL), (106, 'c', 1, 1, NULL);
UPDATE sc_src SET v = 1.0 WHERE id = 9;
UPDATE sc_src SET v = NULL, f = NULL WHERE id = 10;
INSERT INTO sc_src (id, g, v, f, note) VALUES (107, NULL, NULL, NULL, NULL);
SELECT * FROM dv_refresh_round('sc_defs');
SELECT g, v::text, count(*) FROM sc_nokey WHERE g IN ('a', 'b') AND v IN (1, 7) GROUP BY g, v::text ORDER BY 1, 2;

-- a NaN of another bit pattern (the sign bit set by Infinity - Infinity on most machines), the
-- same text form: a consolidated window read sums it with the NaN it replaces (equal by "="), so
-- nothing is left to apply (NO_DATA: each refresh with dynview.linear_windows_as_is off, rolled
-- back); read as it is (sc_nokey, and sc_keyed, whose LEFT JOIN's preserved side alone changed)
-- the rows stay apart and the consolidation in C keeps them apart too (their images differ): the
-- old NaN found by its text form and replaced (INCREMENTAL); either way the table's row has the
-- same text form and is equal by "="
UPDATE sc_src SET f = 'NaN' WHERE id IN (11, 12);
SELECT * FROM dv_refresh_round('sc_defs');
UPDATE sc_src SET f = 'Infinity'::float8 - 'Infinity'::float8 WHERE id = 11;
BEGIN;
SET LOCAL dynview.linear_windows_as_is = off;
SELECT * FROM dv_refresh_round('sc_defs');
ROLLBACK;
SELECT * FROM dv_refresh_round('sc_defs');
UPDATE sc_src SET f = 'Infinity'::float8 - 'Infinity'::float8 WHERE id = 12;
UPDATE sc_src SET f = 'NaN' WHERE id = 11;
BEGIN;
SET LOCAL dynview.linear_windows_as_is = off;
SELECT * FROM dv_refresh_round('sc_defs');
ROLLBACK;
SELECT * FROM dv_refresh_round('sc_defs');
SELECT f::text, count(*) FROM sc_nokey WHERE f::text = 'NaN' GROUP BY 1;

-- long values: stored compressed in the source, the same text in two rows, one written again
UPDATE sc_src SET note = repeat('long text ', 1000) WHERE id IN (13, 14);
SELECT * FROM dv_refresh_round('sc_defs');
UPDATE sc_src SET note = repeat('long text ', 1000) || '' WHERE id = 13;
DELETE FROM sc_src WHERE id = 14;
INSERT INTO sc_src (id, g, v, f, note) SELECT 114, g, v, f, note FROM sc_src WHERE id = 13;
SELECT * FROM dv_refresh_round('sc_defs');
SELECT count(*), min(length(note)) FROM sc_join WHERE note IS NOT NULL;

-- a dropped column in the source (a column none of the tables reads)
ALTER TABLE sc_src DROP COLUMN junk;
SELECT * FROM dv_refresh_round('sc_defs');
UPDATE sc_src SET v = v + 1 WHERE id BETWEEN 20 AND 25;
DELETE FROM sc_src WHERE id = 103;
SELECT * FROM dv_refresh_round('sc_defs');

SELECT dynview.drop_dynamic_table(name) FROM sc_defs ORDER BY name;
DROP TABLE sc_src, sc_dim, sc_defs;
DROP FUNCTION dv_refresh_round(regclass);
