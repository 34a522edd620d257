-- The rows an incremental refresh recomputes (a group whose max() lost its value, the rows of a
-- window whose order changed) are written by the direct apply (apply.c, dv_apply_diff: two
-- reading statements, then the rows matched, deleted and inserted in C) instead of one FULL JOIN,
-- DELETE and INSERT statement (issue 14, thirtieth session).  Matched by the table's unique key
-- where it has one (a pair with identical images stays; 1.0 and 1.00 are equal but not identical,
-- so the row is rewritten), else as multisets of text forms (copies of a row matched copy by
-- copy).  NULL group keys, groups that vanish and come back, copies of a window row, a
-- downstream reading the table's changes, and the statements' path where the direct apply may
-- not write (a trigger on the table) or would hold too many rows (a partition of 12,000).  Each
-- refresh is compared with its query (dv_refresh_round: verify(), the rows by text and by =).
SET client_min_messages = warning;
\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round
CREATE TABLE ra_t (id int PRIMARY KEY, g int, x numeric, v int);
INSERT INTO ra_t VALUES (1, 1, 1.00, 10), (2, 1, 0.5, 10), (3, 2, 7, 20), (4, NULL, 3, 20),
  (5, 3, 2, 30), (6, 3, 2.50, 40);
CREATE TABLE ra_defs (name text, query text);
INSERT INTO ra_defs VALUES
  ('ra_max', 'SELECT g, max(x) AS mx, min(x) AS mn FROM ra_t GROUP BY g'),
  ('ra_rank', 'SELECT v, rank() OVER (ORDER BY v) AS r FROM ra_t'),
  ('ra_part', 'SELECT g, v, sum(x) OVER (PARTITION BY g) AS s FROM ra_t'),
  ('ra_max_trg', 'SELECT g, max(x) AS mx FROM ra_t GROUP BY g');
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual', refresh_mode => 'incremental') IS NOT NULL AS created
  FROM ra_defs ORDER BY name;
-- a downstream of ra_max: its refresh reads what ra_max's refresh wrote to its change buffer
SELECT dynview.create_dynamic_table('ra_down', 'SELECT g, mx FROM ra_max WHERE mx > 1',
  schedule => 'manual', refresh_mode => 'incremental') IS NOT NULL AS created;
-- (refreshed first, in name order: its pipeline refreshes ra_max, then it)
INSERT INTO ra_defs VALUES ('ra_down', 'SELECT g, mx FROM ra_max WHERE mx > 1');
-- the statements' path: a trigger on the table (the direct apply writes plain tables only)
CREATE FUNCTION ra_noop() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;
CREATE TRIGGER ra_noop AFTER INSERT ON ra_max_trg FOR EACH ROW EXECUTE FUNCTION ra_noop();
-- the history's counts of the last round's refreshes
CREATE TABLE ra_mark (refresh_id bigint);
CREATE VIEW ra_counts AS
  SELECT h.table_name, h.refresh_mode, h.rows_inserted, h.rows_deleted
  FROM dynview.refresh_history h
  WHERE h.refresh_id > (SELECT coalesce(max(refresh_id), 0) FROM ra_mark)
  ORDER BY h.table_name, h.refresh_id;
INSERT INTO ra_mark SELECT max(refresh_id) FROM dynview.refresh_history;

-- group 1 loses its max (1.00): recomputed; a new group, a new copy of a window row
DELETE FROM ra_t WHERE id = 1;
INSERT INTO ra_t VALUES (7, 4, 9, 10), (8, 2, 1, 20);
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('ra_defs');
SELECT * FROM ra_counts;
INSERT INTO ra_mark SELECT max(refresh_id) FROM dynview.refresh_history;

-- equal but not identical: group 3's max 2.50 becomes 2.5 (rewritten), its min 2 stays 2
UPDATE ra_t SET x = 2.5 WHERE id = 6;
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('ra_defs');
SELECT g, mx::text, mn::text FROM ra_max ORDER BY g;
SELECT * FROM ra_counts;
INSERT INTO ra_mark SELECT max(refresh_id) FROM dynview.refresh_history;

-- the NULL group and group 4 vanish; one copy of (20, ...) leaves the window
DELETE FROM ra_t WHERE id IN (4, 7);
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('ra_defs');
SELECT * FROM ra_counts;
INSERT INTO ra_mark SELECT max(refresh_id) FROM dynview.refresh_history;

-- they come back; a group's min is deleted while its max stays (the max's row is unchanged)
INSERT INTO ra_t VALUES (9, NULL, 4, 20), (10, 4, 0.1, 50);
DELETE FROM ra_t WHERE id = 8;
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('ra_defs');
SELECT * FROM ra_counts;
SELECT * FROM ra_max ORDER BY g;
SELECT * FROM ra_rank ORDER BY r, v;

-- a partition of more rows than the direct apply holds (10,000): the statement applies them
CREATE TABLE ra_w (id int PRIMARY KEY, g int, v int);
INSERT INTO ra_w SELECT i, CASE WHEN i <= 12000 THEN 1 ELSE 2 END, i FROM generate_series(1, 40000) i;
CREATE TABLE ra_big_defs (name text, query text);
INSERT INTO ra_big_defs VALUES ('ra_big', 'SELECT g, v, sum(v) OVER (PARTITION BY g) AS s FROM ra_w');
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual', refresh_mode => 'incremental') IS NOT NULL AS created
  FROM ra_big_defs;
INSERT INTO ra_mark SELECT max(refresh_id) FROM dynview.refresh_history;
INSERT INTO ra_w VALUES (0, 1, 5);
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('ra_big_defs');
SELECT * FROM ra_counts;
SELECT dynview.drop_dynamic_table('ra_big');
DROP TABLE ra_w, ra_big_defs;

SELECT dynview.drop_dynamic_table(name) FROM ra_defs ORDER BY name;
DROP VIEW ra_counts;
DROP TABLE ra_t, ra_defs, ra_mark;
DROP FUNCTION ra_noop();
DROP FUNCTION dv_refresh_round(regclass);
