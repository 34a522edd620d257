-- A refresh in a REPEATABLE READ or SERIALIZABLE transaction reads the change buffers with a
-- snapshot taken when it reads them, not with the transaction's: the transaction's snapshot is
-- taken before the decoder has written the rows of the changes it sees (the write just before
-- BEGIN), and a window read with it found none (NO_DATA, and the change counted as applied:
-- the table stayed wrong for good).  Each round writes, then refreshes and compares in one
-- transaction, whose snapshot is the tables' data snapshot: verify(), and the rows by text and =.
SET client_min_messages = warning;
\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round
CREATE TABLE rr_src (id int PRIMARY KEY, g int, v numeric);
CREATE TABLE rr_dim (g int PRIMARY KEY, label text);
INSERT INTO rr_src SELECT i, i % 3, i * 1.5 FROM generate_series(1, 30) i;
INSERT INTO rr_dim VALUES (0, 'zero'), (1, 'one'), (2, 'two');
CREATE TABLE rr_defs (name text, query text);
INSERT INTO rr_defs VALUES
  ('rr_a_sums', 'SELECT g, sum(v) AS s, count(*) AS n FROM rr_src GROUP BY g'),
  ('rr_b_rows', 'SELECT s.id, s.v, d.label FROM rr_src s LEFT JOIN rr_dim d ON d.g = s.g'),
  ('rr_c_down', 'SELECT sum(s) AS total, sum(n) AS n FROM rr_a_sums');
SELECT dynview.create_dynamic_table(name, query) FROM rr_defs ORDER BY name;
-- an update, an insert, a delete, each committed just before the refreshing transaction
UPDATE rr_src SET v = v + 1 WHERE id = 1;
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT * FROM dv_refresh_round('rr_defs');
COMMIT;
INSERT INTO rr_src VALUES (31, 1, 7.25);
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT * FROM dv_refresh_round('rr_defs');
COMMIT;
DELETE FROM rr_src WHERE id = 2;
UPDATE rr_dim SET label = 'ONE' WHERE g = 1;
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT * FROM dv_refresh_round('rr_defs');
COMMIT;
-- the same table refreshed again in READ COMMITTED: nothing was lost on the way
UPDATE rr_src SET g = 2 WHERE id = 3;
SELECT * FROM dv_refresh_round('rr_defs');
SELECT dynview.drop_dynamic_table(name) FROM rr_defs ORDER BY name DESC;
DROP TABLE rr_defs, rr_src, rr_dim;
DROP FUNCTION dv_refresh_round(regclass);
