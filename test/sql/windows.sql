-- Window functions without PARTITION BY (the rows from the first changed row in the window's
-- order recomputed) and window functions over GROUP BY (affected partitions, or the same rule
-- without PARTITION BY): several rounds of inserts, updates and deletes with ties and NULLs,
-- every refresh checked by dynview.verify() and by the text of the table's rows against its query.
SET client_min_messages = warning;
CREATE TABLE win_src (id int PRIMARY KEY, g text, v int, x numeric);
ALTER TABLE win_src REPLICA IDENTITY FULL;
INSERT INTO win_src
  SELECT i, CASE WHEN i % 9 = 0 THEN NULL ELSE 'g' || (i % 4) END,
         CASE WHEN i % 11 = 0 THEN NULL ELSE (i * 7) % 23 END, i % 5
    FROM generate_series(1, 60) i;

CREATE TABLE win_tables (name text PRIMARY KEY, query text);
INSERT INTO win_tables VALUES
  -- ranks with ties and NULLs, DESC
  ('win_rank', 'SELECT id, v, rank() OVER (ORDER BY v DESC NULLS LAST) AS rk, dense_rank() OVER (ORDER BY v DESC NULLS LAST) AS drk FROM win_src'),
  -- row_number, running sum, lag, first_value over a total order, NULLs first
  ('win_run', 'SELECT id, v, row_number() OVER (ORDER BY v NULLS FIRST, id) AS rn, sum(v) OVER (ORDER BY v NULLS FIRST, id) AS run, lag(v, 2, -1) OVER (ORDER BY v NULLS FIRST, id) AS prev2, first_value(id) OVER (ORDER BY v NULLS FIRST, id) AS fst FROM win_src'),
  -- frames that end at the current row: GROUPS and RANGE offsets (two windows, one ORDER BY)
  ('win_frame', 'SELECT id, v, sum(v) OVER (ORDER BY v GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW) AS s2, count(*) OVER (ORDER BY v RANGE BETWEEN 5 PRECEDING AND CURRENT ROW EXCLUDE CURRENT ROW) AS near FROM win_src WHERE id % 7 <> 0'),
  -- a collation of its own
  ('win_coll', 'SELECT id, g COLLATE "C" AS gc, rank() OVER (ORDER BY g COLLATE "C" DESC NULLS FIRST) AS rk FROM win_src'),
  -- ranks over GROUP BY (the seed's rank layer in one query), NULL groups and NULL sums
  ('win_grp', 'SELECT g, sum(v) AS total, count(*) AS n, rank() OVER (ORDER BY sum(v) DESC NULLS LAST, g) AS rk, sum(sum(v)) OVER (ORDER BY sum(v) DESC NULLS LAST, g) AS cum FROM win_src GROUP BY g'),
  -- windows with PARTITION BY over GROUP BY, HAVING
  ('win_grp_part', 'SELECT g, v % 3 AS b, count(*) AS n, rank() OVER (PARTITION BY g ORDER BY count(*) DESC, v % 3) AS rk, sum(count(*)) OVER (PARTITION BY g) AS gn FROM win_src GROUP BY g, v % 3 HAVING count(*) > 1'),
  -- partitioned by a column that is not in the output (the query as a subquery operator), a frame, FILTER
  ('win_hidden', 'SELECT id, v, sum(v) OVER (PARTITION BY g) AS g_total, count(*) FILTER (WHERE v > 10) OVER (PARTITION BY g ORDER BY v, id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS c3 FROM win_src'),
  -- top-N per group: a window with PARTITION BY in a subquery, under a filter
  ('win_sub', 'SELECT t.g, t.id, t.v FROM (SELECT g, id, v, row_number() OVER (PARTITION BY g ORDER BY v DESC NULLS LAST, id) AS rn FROM win_src) t WHERE t.rn <= 2'),
  -- a window over GROUP BY in a subquery (partitioned by a GROUP BY expression), under an aggregate
  ('win_sub_grp', 'SELECT t.rk, count(*) AS n, sum(t.s) AS s FROM (SELECT g, v % 4 AS b, sum(x) AS s, dense_rank() OVER (PARTITION BY g ORDER BY sum(x) DESC) AS rk FROM win_src GROUP BY g, v % 4) t GROUP BY t.rk'),
  -- windows without a shared partition key in a subquery (one partition, recomputed): a rank over
  -- GROUP BY under a filter, ntile and lead under an aggregate
  ('win_sub_rank', 'SELECT t.g, t.s, t.rk FROM (SELECT g, sum(v) AS s, rank() OVER (ORDER BY sum(v) DESC NULLS LAST) AS rk FROM win_src GROUP BY g) t WHERE t.rk <= 3'),
  ('win_sub_ntile', 'SELECT t.q, count(*) AS n, sum(t.v) AS s FROM (SELECT id, v, ntile(4) OVER (ORDER BY v, id) AS q, lead(v) OVER (PARTITION BY g ORDER BY id) AS nx FROM win_src) t WHERE t.nx IS NOT NULL GROUP BY t.q');

SELECT dynview.create_dynamic_table(name, query, schedule => 'manual') IS NOT NULL AS created
  FROM win_tables ORDER BY name;
SELECT name, refresh_mode FROM dynview.dynamic_tables WHERE name::text LIKE 'win\_%' ORDER BY name::text;

-- a round: refresh each table; its mode, rows written, verify() and the text of its rows
-- against its query (both ways, as multisets)
CREATE FUNCTION win_round() RETURNS TABLE (name text, mode text, reason text, ins bigint, del bigint, verified bool, same_text bool)
LANGUAGE plpgsql AS $$
DECLARE
  t record;
  r dynview.refresh_history;
  diff bigint;
BEGIN
  FOR t IN SELECT * FROM win_tables ORDER BY win_tables.name LOOP
    r := dynview.refresh(t.name);
    EXECUTE format('SELECT count(*) FROM ((SELECT win_t_row::text FROM %I win_t_row EXCEPT ALL SELECT win_q_row::text FROM (%s) win_q_row) '
                   'UNION ALL (SELECT win_q_row::text FROM (%s) win_q_row EXCEPT ALL SELECT win_t_row::text FROM %I win_t_row)) d',
                   t.name, t.query, t.query, t.name) INTO diff;
    name := t.name; mode := r.refresh_mode; reason := r.mode_reason_code;
    ins := r.rows_inserted; del := r.rows_deleted;
    verified := dynview.verify(t.name); same_text := diff = 0;
    RETURN NEXT;
  END LOOP;
END $$;

-- round 1: inserts, with ties and NULLs
INSERT INTO win_src VALUES (101, 'g1', 5, 1), (102, 'g1', 5, 2), (103, NULL, NULL, 3), (104, 'g9', 22, 4), (105, 'g2', 0, 0);
SELECT * FROM win_round();

-- round 2: a change at the end of the window's order rewrites only the last rows:
-- v = 0 sorts among the last rows of win_rank (v DESC NULLS LAST), v = 30 last in win_run
INSERT INTO win_src VALUES (106, 'g3', 0, 1);
SELECT * FROM win_round();
SELECT rows_inserted + rows_deleted < (SELECT count(*) FROM win_rank) / 4 AS few_rows_written
  FROM dynview.refresh_history WHERE table_name = 'win_rank' ORDER BY refresh_id DESC LIMIT 1;
UPDATE win_src SET v = 30 WHERE id = 13;  -- from v = 22, the greatest
SELECT * FROM win_round();
SELECT rows_inserted + rows_deleted < (SELECT count(*) FROM win_run) / 4 AS few_rows_written
  FROM dynview.refresh_history WHERE table_name = 'win_run' ORDER BY refresh_id DESC LIMIT 1;

-- round 3: updates that move rows to the front, into ties, to NULL and out of NULL; group changes
UPDATE win_src SET v = 99 WHERE id = 3;
UPDATE win_src SET v = 5 WHERE id IN (4, 44);
UPDATE win_src SET v = NULL WHERE id = 6;
UPDATE win_src SET v = 1 WHERE id = 11;
UPDATE win_src SET g = NULL WHERE id = 7;
UPDATE win_src SET g = 'g0' WHERE id = 9;
SELECT * FROM win_round();

-- round 4: deletes, a whole group among them
DELETE FROM win_src WHERE id IN (3, 5, 101) OR g = 'g9';
SELECT * FROM win_round();

-- round 5: a change no output column sees (x): the changed rows cancel, nothing is written
UPDATE win_src SET x = x + 1 WHERE id < 20;
SELECT * FROM win_round();

-- round 6: an insert and a delete of the same row in one transaction, and a delete of every row with v NULL
BEGIN;
INSERT INTO win_src VALUES (200, 'g1', 7, 0);
DELETE FROM win_src WHERE id = 200;
COMMIT;
DELETE FROM win_src WHERE v IS NULL;
SELECT * FROM win_round();

-- round 7: the rank layer over a dynamic table (a pipeline, as the sales dashboard)
SELECT dynview.create_dynamic_table('win_up', 'SELECT g, sum(v) AS total FROM win_src GROUP BY g', schedule => 'manual') IS NOT NULL AS created;
INSERT INTO win_tables VALUES ('win_down', 'SELECT g, total, rank() OVER (ORDER BY total DESC) AS rk FROM win_up');
SELECT dynview.create_dynamic_table('win_down', query, schedule => 'manual') IS NOT NULL AS created FROM win_tables WHERE name = 'win_down';
UPDATE win_src SET v = v + 40 WHERE id = 8;
INSERT INTO win_src VALUES (300, 'g7', 1, 0);
SELECT * FROM win_round();

-- explain(): the window step above the input's operators
SELECT value FROM dynview.explain_dynamic_table('win_rank') WHERE property IN ('mode', 'operator', 'operator tree');
SELECT value FROM dynview.explain_dynamic_table('win_grp_part') WHERE property IN ('mode', 'operator', 'operator tree', 'key');
SELECT value FROM dynview.explain_dynamic_table('win_hidden') WHERE property IN ('mode', 'operator', 'operator tree');
SELECT value FROM dynview.explain_dynamic_table('win_sub_grp') WHERE property IN ('mode', 'operator tree');
SELECT value FROM dynview.explain_dynamic_table('win_sub_rank') WHERE property IN ('mode', 'operator tree');

-- still FULL, with the reason
SELECT q, r.mode, r.reason_code
  FROM unnest(ARRAY[
    'SELECT id, ntile(3) OVER (ORDER BY v, id) AS t FROM win_src',
    'SELECT id, lead(v) OVER (ORDER BY v, id) AS nxt FROM win_src',
    'SELECT id, lag(v, -1) OVER (ORDER BY v, id) AS nxt FROM win_src',
    'SELECT id, percent_rank() OVER (ORDER BY v) AS pr FROM win_src',
    'SELECT id, count(*) OVER () AS n FROM win_src',
    'SELECT id, sum(v) OVER (ORDER BY v, id ROWS BETWEEN CURRENT ROW AND 1 FOLLOWING) AS s FROM win_src',
    'SELECT id, rank() OVER (ORDER BY v) AS a, rank() OVER (ORDER BY id) AS b FROM win_src',
    'SELECT id, rank() OVER (ORDER BY v) AS a FROM win_src',
    'SELECT id, v, rank() OVER (ORDER BY v) AS a, rank() OVER (PARTITION BY g ORDER BY v) AS b FROM win_src',
    'SELECT DISTINCT g, rank() OVER (ORDER BY g) AS a FROM win_src',
    'SELECT g, count(*) AS n, rank() OVER (PARTITION BY max(v) ORDER BY g) AS a FROM win_src GROUP BY g',
    'SELECT t.id FROM (SELECT id, rank() OVER (PARTITION BY g ORDER BY v) + 1 AS a FROM win_src) t WHERE t.a < 3'
  ]) q,
  LATERAL (SELECT max(value) FILTER (WHERE property = 'mode') AS mode,
                  max(value) FILTER (WHERE property = 'reason_code') AS reason_code
             FROM dynview.explain(q)) r;

SELECT dynview.drop_dynamic_table(name) FROM win_tables ORDER BY name = 'win_down' DESC, name;
SELECT dynview.drop_dynamic_table('win_up');
DROP FUNCTION win_round();
DROP TABLE win_tables, win_src;
