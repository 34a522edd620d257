-- Top-N (ORDER BY ... LIMIT) whose changes reach the rows the table holds: the held rows with the
-- changes added give the new table when their n-th row still sorts before (or, where tied rows
-- are alike, with) the table's last row, or when the table held the whole result; otherwise the
-- table is recomputed (TOP_N_CHANGED); without OFFSET the table keeps a state of its input's next
-- rows (2n + 100), from which a held row that leaves or sinks is replaced.  verify() and the text
-- of the rows after every refresh.
SET client_min_messages = warning;
CREATE TABLE tn_src (id int PRIMARY KEY, g text, v int);
ALTER TABLE tn_src REPLICA IDENTITY FULL;
INSERT INTO tn_src SELECT i, 'g' || (i % 6), (i * 13) % 40 FROM generate_series(1, 60) i;

CREATE TABLE tn_tables (name text PRIMARY KEY, query text);
INSERT INTO tn_tables VALUES
  -- over GROUP BY, sorted by the group key last (tied rows are alike)
  ('tn_grp', 'SELECT g, sum(v) AS s, count(*) AS n FROM tn_src GROUP BY g ORDER BY s DESC, g LIMIT 3'),
  -- plain rows sorted by every column
  ('tn_rows', 'SELECT id, v FROM tn_src ORDER BY v DESC, id LIMIT 5'),
  -- sorted by a column with ties and no key (which tied rows the query keeps is up to its plan):
  -- a change that reaches the held rows recomputes
  ('tn_ties', 'SELECT g, v FROM tn_src ORDER BY v DESC LIMIT 4'),
  -- a LIMIT larger than the result: the table holds every row
  ('tn_all', 'SELECT g, count(*) AS n FROM tn_src GROUP BY g ORDER BY n, g LIMIT 10'),
  -- OFFSET: a change that reaches the rows recomputes
  ('tn_off', 'SELECT id, v FROM tn_src ORDER BY v, id LIMIT 3 OFFSET 2');
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual') IS NOT NULL AS created
  FROM tn_tables ORDER BY name;

CREATE FUNCTION tn_round() RETURNS TABLE (name text, mode text, reason text, verified bool, same_text bool)
LANGUAGE plpgsql AS $$
DECLARE
  t record;
  r dynview.refresh_history;
  diff bigint;
BEGIN
  FOR t IN SELECT * FROM tn_tables ORDER BY tn_tables.name LOOP
    r := dynview.refresh(t.name);
    EXECUTE format('SELECT count(*) FROM ((SELECT tn_t_row::text FROM %I tn_t_row EXCEPT ALL SELECT tn_q_row::text FROM (%s) tn_q_row) '
                   'UNION ALL (SELECT tn_q_row::text FROM (%s) tn_q_row EXCEPT ALL SELECT tn_t_row::text FROM %I tn_t_row)) d',
                   t.name, t.query, t.query, t.name) INTO diff;
    name := t.name; mode := r.refresh_mode; reason := r.mode_reason_code;
    verified := dynview.verify(t.name); same_text := diff = 0;
    RETURN NEXT;
  END LOOP;
END $$;

-- round 1: rows that sort first (into the held rows, pushing the last one out)
INSERT INTO tn_src VALUES (101, 'g1', 90), (102, 'g7', 95), (103, 'g2', 39);
SELECT * FROM tn_round();
-- round 2: held rows rise within the held rows; a group gains
UPDATE tn_src SET v = v + 3 WHERE id IN (101, 102);
UPDATE tn_src SET v = v + 1 WHERE g = 'g2';
SELECT * FROM tn_round();
-- round 3: a held row leaves (deleted): rows the table does not hold must come in, recomputed
DELETE FROM tn_src WHERE id = 102;
SELECT * FROM tn_round();
-- round 4: a held row sinks below the last one: recomputed
UPDATE tn_src SET v = 0 WHERE id = 101;
SELECT * FROM tn_round();
-- round 5: changes after the last held row only: nothing to write
UPDATE tn_src SET v = 1 WHERE id = 5;
SELECT * FROM tn_round();
-- round 6: a new row ties with the last held row of the tables sorted by v alone, a new group
INSERT INTO tn_src SELECT 200, 'g8', v FROM tn_ties ORDER BY v LIMIT 1;
SELECT * FROM tn_round();

-- explain(): the rule of the top-N step
SELECT value FROM dynview.explain_dynamic_table('tn_grp') WHERE property = 'operator tree';

SELECT dynview.drop_dynamic_table(name) FROM tn_tables ORDER BY name;

-- The state of a top-N without OFFSET (dynview_state.topn_<oid>): the input's rows before a bound
-- row, up to 2n + 100 of them.  Over a larger input a held row that leaves or sinks is replaced
-- from it (INCREMENTAL); when fewer than n rows remain before the bound it is filled again from
-- the query (INCREMENTAL, TOP_N_STATE_REFILLED).
DELETE FROM tn_tables;
CREATE TABLE tn_big (id int PRIMARY KEY, g int, v int);
ALTER TABLE tn_big REPLICA IDENTITY FULL;
INSERT INTO tn_big SELECT i, i % 150, (i * 37) % 1000 FROM generate_series(1, 600) i;
INSERT INTO tn_tables VALUES
  ('tn_big_rows', 'SELECT id, v FROM tn_big ORDER BY v DESC, id LIMIT 5'),
  ('tn_big_grp', 'SELECT g, count(*) AS n, sum(v) AS s FROM tn_big GROUP BY g ORDER BY n DESC, s DESC, g LIMIT 3'),
  ('tn_big_ties', 'SELECT g, v FROM tn_big ORDER BY v DESC LIMIT 4');
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual') IS NOT NULL AS created
  FROM tn_tables ORDER BY name;
SELECT c.relname ~ '^topnb?_' AS state_table, count(*) FROM pg_class c
  WHERE c.relnamespace = 'dynview_state'::regnamespace AND c.relname ~ '^topnb?_'
    AND substring(c.relname from '[0-9]+$')::oid IN (SELECT name::regclass::oid FROM tn_tables)
  GROUP BY 1;
-- round 1: held rows leave (deleted) and sink (updated below the others)
DELETE FROM tn_big WHERE id IN (SELECT id FROM tn_big_rows ORDER BY v DESC, id LIMIT 2);
UPDATE tn_big SET v = 0 WHERE id = (SELECT id FROM tn_big_rows ORDER BY v DESC, id LIMIT 1);
DELETE FROM tn_big WHERE g IN (SELECT g FROM tn_big_grp ORDER BY n DESC, s DESC, g LIMIT 1) AND id % 3 = 0;
SELECT * FROM tn_round();
-- round 2: new rows before the bound and after it, a group gains rows, changes past the bound
INSERT INTO tn_big VALUES (1001, 7, 998), (1002, 7, 500), (1003, 7, 3), (1004, 149, 1);
UPDATE tn_big SET v = v - 1 WHERE v < 100;
SELECT * FROM tn_round();
-- round 3: the first 300 rows in the order deleted: fewer than n rows remain before the bound
DELETE FROM tn_big WHERE id IN (SELECT id FROM tn_big ORDER BY v DESC, id LIMIT 300);
SELECT * FROM tn_round();
-- round 4: and after the state was filled again, a change that reaches the held rows
UPDATE tn_big SET v = v + 500 WHERE id IN (SELECT id FROM tn_big ORDER BY v, id LIMIT 2);
SELECT * FROM tn_round();
-- round 4b: 250 rows before everything: the state grows beyond twice its size (2 * 110) and gets
-- a new bound, its 111th row; then 240 of them deleted: the state runs short, filled again
INSERT INTO tn_big SELECT 3000 + i, 500 + i % 50, 2000 + i FROM generate_series(1, 250) i;
SELECT * FROM tn_round();
SELECT (xpath('/row/n/text()', query_to_xml(format('SELECT count(*) AS n FROM dynview_state.%I',
         'topn_' || 'tn_big_rows'::regclass::oid), false, true, '')))[1]::text AS state_rows;
DELETE FROM tn_big WHERE id BETWEEN 3011 AND 3250;
SELECT * FROM tn_round();
-- round 5: every row deleted, then some back: the state holds the whole input
DELETE FROM tn_big WHERE id > 20;
SELECT * FROM tn_round();
INSERT INTO tn_big SELECT i, i % 4, i % 7 FROM generate_series(2000, 2010) i;
SELECT * FROM tn_round();

SELECT value FROM dynview.explain_dynamic_table('tn_big_rows') WHERE property = 'operator tree';
SELECT dynview.drop_dynamic_table(name) FROM tn_tables ORDER BY name;
-- the state tables went with their dynamic tables
SELECT count(*) FROM pg_class c WHERE c.relnamespace = 'dynview_state'::regnamespace AND c.relname ~ '^topnb?_';
DROP FUNCTION tn_round();
DROP TABLE tn_tables, tn_src, tn_big;
