-- The partner filter of a grouped subquery joined on its group key (TPC-H Q17: lineitem joined to
-- the parts of one brand and container, and the average quantity per part) reads the filtered
-- scan its key comes from, not the whole left side, and reads it once with the left side's delta
-- (optree.c partner_scan, shared_rows): where the delta of "lineitem join part" reads part whole,
-- that read is a MATERIALIZED WITH entry the partner filter reads too (one sequential scan of part
-- a refresh, not a second read for the changed groups); where it probes part by key (probe_rows,
-- the filter's probes counted), the filter probes it by key as well (no sequential scan).  The
-- rounds: NULL keys, deletes, a part whose filter column changes in the window of its lineitems,
-- a group emptied and a filtered part deleted, only the parts changing, a change of most rows;
-- every refresh verified and compared with the query by text and by "=".
SET client_min_messages = warning;

-- 2,000 parts (never probed: under 10,000 rows) and 20,000 (probed for a small change)
CREATE TABLE ps_small (id int PRIMARY KEY, brand text NOT NULL, cont text);
CREATE TABLE ps_big (id int PRIMARY KEY, brand text NOT NULL, cont text);
CREATE TABLE ps_li (id int PRIMARY KEY, part int, qty numeric(10, 2) NOT NULL, price numeric(10, 2));
CREATE INDEX ON ps_li (part);
INSERT INTO ps_small SELECT n, 'B' || n % 10, CASE WHEN n % 13 = 0 THEN NULL ELSE 'C' || n % 4 END
  FROM generate_series(1, 2000) n;
INSERT INTO ps_big SELECT n, 'B' || n % 10, CASE WHEN n % 13 = 0 THEN NULL ELSE 'C' || n % 4 END
  FROM generate_series(1, 20000) n;
INSERT INTO ps_li SELECT i, CASE WHEN i % 97 = 0 THEN NULL ELSE 1 + (i * 7919) % 20000 END, 1 + i % 50, (i * 31) % 1000 / 10.0
  FROM generate_series(1, 30000) i;
-- (the small table's parts get lineitems too)
INSERT INTO ps_li SELECT 100000 + i, 1 + (i * 13) % 2000, 1 + i % 45, i % 700 / 10.0 FROM generate_series(1, 8000) i;
ANALYZE ps_small, ps_big, ps_li;

CREATE TABLE ps_defs (name text PRIMARY KEY, query text NOT NULL);
INSERT INTO ps_defs VALUES
  -- TPC-H Q17's shape, over each table of parts
  ('ps_q17_small', 'SELECT sum(l.price) / 7.0 AS avg_yearly, count(*) AS n FROM ps_li l, ps_small p
                     WHERE p.id = l.part AND p.brand = ''B3'' AND p.cont = ''C3''
                       AND l.qty < (SELECT 0.5 * avg(l2.qty) FROM ps_li l2 WHERE l2.part = p.id)'),
  ('ps_q17_big', 'SELECT sum(l.price) / 7.0 AS avg_yearly, count(*) AS n FROM ps_li l, ps_big p
                   WHERE p.id = l.part AND p.brand = ''B3'' AND p.cont = ''C3''
                     AND l.qty < (SELECT 0.5 * avg(l2.qty) FROM ps_li l2 WHERE l2.part = p.id)'),
  -- a semi-join with the grouped subquery: its key from the parts, the left side a join
  ('ps_semi', 'SELECT l.id, l.qty, p.id AS part FROM ps_li l JOIN ps_small p ON p.id = l.part
                WHERE p.brand = ''B7'' AND p.id IN (SELECT part FROM ps_li GROUP BY part HAVING sum(qty) > 400)'),
  -- the parts on the preserved side of a LEFT JOIN inside the left side
  ('ps_left', 'SELECT p.id, l.id AS lid, g.a FROM ps_small p LEFT JOIN ps_li l ON l.part = p.id AND l.qty > 40
                 JOIN (SELECT part, avg(qty) AS a, count(*) AS c FROM ps_li GROUP BY part) g ON g.part = p.id
                WHERE p.brand = ''B5'' AND p.cont IN (''C1'', ''C2'')');
SELECT count(dynview.create_dynamic_table(name, query, schedule => 'manual', refresh_mode => 'incremental'))
  FROM ps_defs;
SELECT j.name, d.effective_mode FROM dynview.dynamic_tables d JOIN ps_defs j ON d.name = j.name::regclass ORDER BY 1;

-- each keeps no state for its grouped subquery (the partner rule), and its delta as explain()
-- writes it (no probes: the delta's size is not known there) reads its parts once, in a
-- MATERIALIZED entry that the partner filter reads too
SELECT j.name,
       (SELECT count(*) FROM regexp_matches(t.value, 'no state: joined on its group key', 'g')) AS partner_rule,
       (SELECT count(*) FROM regexp_matches(e.value, 'FROM public\.ps_(small|big) s', 'g')) AS part_reads,
       (SELECT count(*) FROM regexp_matches(e.value, 'AS MATERIALIZED \(SELECT \* FROM \((SELECT \* FROM \()?SELECT s\.id', 'g')) AS shared
  FROM ps_defs j
  JOIN dynview.explain_dynamic_table(j.name) t ON t.property = 'operator tree'
  JOIN dynview.explain_dynamic_table(j.name) e ON e.property = 'delta'
 ORDER BY 1;

\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round

-- (the Q17 tables keep their filtered parts, a key and a filter of constants, in a filter state,
-- optree.h: their refreshes read that, not the table of parts, which is no longer scanned; the
-- other shapes read it as before)
-- sequential scans of a table of parts during one refresh (pg_stat_xact_user_tables: the
-- counts of the current transaction, not yet flushed)
CREATE FUNCTION ps_scans(t text, parts regclass) RETURNS TABLE (refresh_mode text, part_seq_scans bigint)
LANGUAGE plpgsql AS $$
DECLARE s0 bigint;
BEGIN
  SELECT x.seq_scan INTO s0 FROM pg_stat_xact_user_tables x WHERE x.relid = parts;
  SELECT r.refresh_mode INTO refresh_mode FROM dynview.refresh(t) r;
  SELECT x.seq_scan - s0 INTO part_seq_scans FROM pg_stat_xact_user_tables x WHERE x.relid = parts;
  RETURN NEXT;
END $$;
-- round 1: lineitems inserted (a NULL part, a part that does not exist, parts of the filters)
-- and deleted.  ps_small is read once (the term's hash join and the partner filter share the
-- read), ps_big not at all (30 changed lineitems: both probe it by key)
INSERT INTO ps_li SELECT 200000 + i, CASE WHEN i % 11 = 0 THEN NULL WHEN i % 12 = 0 THEN 99999 ELSE 3 + 40 * i END,
                         1 + i % 30, i % 500 / 10.0
  FROM generate_series(1, 20) i;
DELETE FROM ps_li WHERE id BETWEEN 1000 AND 1010;
SELECT dynview.wait_for_capture();
SELECT * FROM ps_scans('ps_q17_small', 'ps_small');
SELECT * FROM ps_scans('ps_q17_big', 'ps_big');
SELECT * FROM dv_refresh_round('ps_defs');

-- round 2: in one window, parts move into the filters and out of them, with lineitems of theirs
-- inserted and their quantities changed; a lineitem moves to a NULL part and back to another
UPDATE ps_small SET brand = 'B3', cont = 'C3' WHERE id IN (7, 17);
UPDATE ps_big SET brand = 'B3', cont = 'C3' WHERE id IN (7, 17);
UPDATE ps_small SET cont = 'C0' WHERE id = 3;
UPDATE ps_big SET brand = 'B4' WHERE id = 3;
UPDATE ps_small SET brand = 'B7' WHERE id IN (5, 15);
UPDATE ps_small SET brand = 'B5', cont = 'C1' WHERE id = 8;
INSERT INTO ps_li VALUES (300001, 7, 1.00, 5.00), (300002, 7, 45.00, 6.00), (300003, 17, 2.50, NULL),
                         (300004, 8, 41.00, 1.00), (300005, 5, 30.00, 2.00);
UPDATE ps_li SET qty = qty + 10 WHERE part IN (7, 17, 3) AND id < 200000;
UPDATE ps_li SET part = NULL WHERE id = 2001;
UPDATE ps_li SET part = 1203 WHERE id = 2002;
SELECT * FROM dv_refresh_round('ps_defs');

-- round 3: a group emptied (every lineitem of a filtered part deleted), another emptied and
-- filled again in the same window, a filtered part deleted with its lineitems, a part without
-- lineitems entering the filter
DELETE FROM ps_li WHERE part = 7;
DELETE FROM ps_li WHERE part = 17;
INSERT INTO ps_li VALUES (300010, 17, 3.00, 7.00), (300011, 17, 30.00, 8.00);
DELETE FROM ps_li WHERE part = (SELECT min(id) FROM ps_small WHERE brand = 'B3' AND cont = 'C3' AND id > 17);
DELETE FROM ps_small WHERE id = (SELECT min(id) FROM ps_small WHERE brand = 'B3' AND cont = 'C3' AND id > 17);
DELETE FROM ps_big WHERE id = (SELECT min(id) FROM ps_big WHERE brand = 'B3' AND cont = 'C3' AND id > 17);
INSERT INTO ps_small VALUES (5000, 'B3', 'C3');
INSERT INTO ps_big VALUES (50000, 'B3', 'C3');
SELECT * FROM dv_refresh_round('ps_defs');
INSERT INTO ps_li VALUES (300020, 5000, 1.00, 1.00), (300021, 5000, 9.00, 2.00), (300022, 50000, 1.00, 3.00),
                         (300023, 50000, 9.00, 4.00);
SELECT * FROM dv_refresh_round('ps_defs');

-- round 4: only the parts change (the grouped subqueries' input does not)
UPDATE ps_small SET cont = 'C3' WHERE brand = 'B3' AND id < 400;
UPDATE ps_big SET cont = NULL WHERE brand = 'B3' AND id BETWEEN 400 AND 800;
UPDATE ps_small SET brand = 'B7' WHERE id IN (21, 31);
SELECT * FROM dv_refresh_round('ps_defs');

-- round 5: most lineitems change (ps_big read whole by the term, once)
UPDATE ps_li SET qty = qty + 1 WHERE id % 3 <> 0;
SELECT dynview.wait_for_capture();
SELECT * FROM ps_scans('ps_q17_big', 'ps_big');
SELECT * FROM dv_refresh_round('ps_defs');
SELECT * FROM ps_q17_small;
SELECT * FROM ps_q17_big;

SELECT dynview.drop_dynamic_table(name) FROM ps_defs ORDER BY name;
DROP FUNCTION ps_scans(text, regclass);
DROP FUNCTION dv_refresh_round(regclass);
DROP TABLE ps_defs, ps_li, ps_small, ps_big;
