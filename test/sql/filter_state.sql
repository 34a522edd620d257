-- A filter state (analyze/optree.h): the rows now of a scan under a filter of constants that a
-- partner filter reads (TPC-H Q17's parts of one brand and container) kept in
-- dynview_state.ext_<table oid>_<n>; an incremental refresh whose window has rows of that source
-- replaces the state's rows of the window's keys by the source's rows of those keys now, and its
-- statements read the state instead of the source.  Built at creation and by a FULL refresh,
-- shown by explain(), dropped with the table.  Rounds: lineitems only; parts inserted, deleted,
-- moved into and out of the filter, their keys changed, changed outside the filter; parts and
-- lineitems in one transaction and in two; a part changed and changed back in one window; a
-- composite primary key and a text key; TRUNCATE.  Every refresh verified and compared with the
-- query by text and by "=".
SET client_min_messages = warning;

CREATE TABLE fs_part (id int PRIMARY KEY, brand text NOT NULL, cont text, size int);
CREATE TABLE fs_li (id int PRIMARY KEY, part int, qty numeric(10, 2) NOT NULL, price numeric(10, 2));
CREATE INDEX ON fs_li (part);
-- a composite key (the first column leads it) and a text key
CREATE TABLE fs_item (grp int, n int, kind text, PRIMARY KEY (grp, n));
CREATE TABLE fs_sale (id int PRIMARY KEY, grp int, qty int);
CREATE TABLE fs_tag (code text PRIMARY KEY, color text);
CREATE TABLE fs_use (id int PRIMARY KEY, code text, w int);
CREATE INDEX ON fs_sale (grp);
CREATE INDEX ON fs_use (code);
INSERT INTO fs_part SELECT n, 'B' || n % 10, CASE WHEN n % 13 = 0 THEN NULL ELSE 'C' || n % 4 END, n % 50
  FROM generate_series(1, 4000) n;
INSERT INTO fs_li SELECT i, CASE WHEN i % 97 = 0 THEN NULL ELSE 1 + (i * 7919) % 4000 END, 1 + i % 50, (i * 31) % 1000 / 10.0
  FROM generate_series(1, 8000) i;
INSERT INTO fs_item SELECT g, n, CASE WHEN (g + n) % 3 = 0 THEN 'x' ELSE 'y' END FROM generate_series(1, 300) g, generate_series(1, 3) n;
INSERT INTO fs_sale SELECT i, 1 + i % 300, i % 17 FROM generate_series(1, 3000) i;
INSERT INTO fs_tag SELECT 't' || n, CASE WHEN n % 4 = 0 THEN 'red' ELSE 'blue' END FROM generate_series(1, 500) n;
INSERT INTO fs_use SELECT i, 't' || (1 + i % 500), i % 9 FROM generate_series(1, 4000) i;
ANALYZE fs_part, fs_li, fs_item, fs_sale, fs_tag, fs_use;

CREATE TABLE fs_defs (name text PRIMARY KEY, query text NOT NULL);
INSERT INTO fs_defs VALUES
  -- TPC-H Q17's shape
  ('fs_q17', 'SELECT sum(l.price) / 7.0 AS avg_yearly, count(*) AS n FROM fs_li l, fs_part p
              WHERE p.id = l.part AND p.brand = ''B3'' AND p.cont = ''C3''
                AND l.qty < (SELECT 0.5 * avg(l2.qty) FROM fs_li l2 WHERE l2.part = p.id)'),
  -- the same grouped by part, with the part's size shown (a column the filter does not test)
  ('fs_q17_parts', 'SELECT p.id, p.size, count(*) AS n, sum(l.price) AS s FROM fs_li l, fs_part p
                    WHERE p.id = l.part AND p.brand IN (''B3'', ''B5'') AND p.cont = ''C3''
                      AND l.qty <= (SELECT avg(l2.qty) FROM fs_li l2 WHERE l2.part = p.id)
                    GROUP BY p.id, p.size'),
  -- a composite key: its first column finds the changed rows
  ('fs_items', 'SELECT i.grp, i.n, count(*) AS c FROM fs_sale s, fs_item i
                WHERE i.grp = s.grp AND i.kind = ''x''
                  AND s.qty > (SELECT avg(s2.qty) FROM fs_sale s2 WHERE s2.grp = i.grp)
                GROUP BY i.grp, i.n'),
  -- a text key
  ('fs_tags', 'SELECT t.code, sum(u.w) AS w FROM fs_use u, fs_tag t
               WHERE t.code = u.code AND t.color = ''red''
                 AND u.w >= (SELECT avg(u2.w) FROM fs_use u2 WHERE u2.code = t.code)
               GROUP BY t.code');
SELECT count(dynview.create_dynamic_table(name, query, schedule => 'manual', refresh_mode => 'incremental'))
  FROM fs_defs;
SELECT j.name, d.effective_mode FROM dynview.dynamic_tables d JOIN fs_defs j ON d.name = j.name::regclass ORDER BY 1;

-- explain() names the state on the filter; each table has one filter state, holding the rows
-- the filter keeps (by text and by =, whatever their order)
SELECT j.name, btrim(e.line) AS line
  FROM fs_defs j, LATERAL dynview.explain_dynamic_table(j.name) x,
       LATERAL regexp_split_to_table(x.value, E'\n') e(line)
 WHERE x.property = 'operator tree' AND e.line ~ 'filter .*state dynview_state' ORDER BY 1;
CREATE FUNCTION fs_states() RETURNS TABLE (name text, states bigint, state_rows bigint, filter_rows bigint, same boolean)
LANGUAGE plpgsql AS $$
DECLARE r record; st regclass; q text;
BEGIN
  FOR r IN SELECT * FROM (VALUES ('fs_q17', 'SELECT id, brand, cont FROM fs_part WHERE brand = ''B3'' AND cont = ''C3'''),
                                 ('fs_q17_parts', 'SELECT id, brand, cont, size FROM fs_part WHERE brand IN (''B3'', ''B5'') AND cont = ''C3'''),
                                 ('fs_items', 'SELECT grp, n, kind FROM fs_item WHERE kind = ''x'''),
                                 ('fs_tags', 'SELECT code, color FROM fs_tag WHERE color = ''red''')) v(n, q) LOOP
    name := r.n;
    SELECT count(*), min(c.oid) INTO states, st FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace
     WHERE s.nspname = 'dynview_state' AND c.relkind = 'r' AND c.relname LIKE 'ext\_' || r.n::regclass::oid || '\_%';
    EXECUTE format('SELECT count(*) FROM %s', st) INTO state_rows;
    EXECUTE format('SELECT count(*) FROM (%s) f', r.q) INTO filter_rows;
    -- (the state's columns are the scan's, in the source's order of the query's reading)
    EXECUTE format('SELECT NOT EXISTS ((SELECT x::text FROM %s x EXCEPT ALL SELECT f::text FROM (%s) f)
                                        UNION ALL (SELECT f::text FROM (%s) f EXCEPT ALL SELECT x::text FROM %s x))',
                   st, r.q, r.q, st) INTO same;
    RETURN NEXT;
  END LOOP;
END $$;
SELECT * FROM fs_states();

\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round

-- the scans of fs_part during one refresh of fs_q17 (the current transaction's counts): with
-- the state, the changed lineitems' parts are not read from fs_part at all
CREATE FUNCTION fs_scans(t text)
RETURNS TABLE (refresh_mode text, part_seq_scans bigint, part_idx_scans bigint)
LANGUAGE plpgsql AS $$
DECLARE s0 bigint; i0 bigint;
BEGIN
  SELECT COALESCE(x.seq_scan, 0), COALESCE(x.idx_scan, 0) INTO s0, i0 FROM pg_stat_xact_user_tables x WHERE x.relid = 'fs_part'::regclass;
  SELECT r.refresh_mode INTO refresh_mode FROM dynview.refresh(t) r;
  SELECT COALESCE(x.seq_scan, 0) - s0, COALESCE(x.idx_scan, 0) - i0 INTO part_seq_scans, part_idx_scans
    FROM pg_stat_xact_user_tables x WHERE x.relid = 'fs_part'::regclass;
  RETURN NEXT;
END $$;

-- round 1: lineitems only (1,200 inserted over 300 parts, a NULL part, one that does not exist;
-- 40 deleted; one moved to another part), sales and uses
INSERT INTO fs_li SELECT 200000 + i, CASE WHEN i % 300 = 7 THEN NULL WHEN i % 300 = 11 THEN 99999 ELSE 3 + 13 * (i % 300) END,
                         1 + i % 30, i % 500 / 10.0
  FROM generate_series(1, 1200) i;
DELETE FROM fs_li WHERE id BETWEEN 1000 AND 1039;
UPDATE fs_li SET part = 1203 WHERE id = 2002;
INSERT INTO fs_sale SELECT 10000 + i, 1 + i % 300, i % 23 FROM generate_series(1, 200) i;
UPDATE fs_use SET w = w + 4 WHERE id % 7 = 0;
SELECT dynview.wait_for_capture();
BEGIN;
SELECT * FROM fs_scans('fs_q17');
ROLLBACK;
SELECT * FROM dv_refresh_round('fs_defs');
SELECT * FROM fs_states();

-- round 2: parts only: inserted into the filter (with lineitems already pointing at them) and
-- outside it, deleted from it, moved into it and out of it, a changed key in the filter, a key
-- moved into and one out of it, a change outside the filter's columns and a NULL container
INSERT INTO fs_li SELECT 400000 + i, 5000 + 1 + i % 4, 1 + i % 20, i % 100 FROM generate_series(1, 40) i;
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('fs_defs');
INSERT INTO fs_part VALUES (5001, 'B3', 'C3', 1), (5002, 'B3', 'C3', 2), (5003, 'B4', 'C3', 3), (5004, 'B5', 'C3', 4);
DELETE FROM fs_part WHERE id IN (SELECT id FROM fs_part WHERE brand = 'B3' AND cont = 'C3' ORDER BY id LIMIT 2);
UPDATE fs_part SET brand = 'B3', cont = 'C3' WHERE id IN (11, 15);
UPDATE fs_part SET brand = 'B4' WHERE id IN (SELECT id FROM fs_part WHERE brand = 'B3' AND cont = 'C3' ORDER BY id DESC LIMIT 2);
UPDATE fs_part SET id = 30001 WHERE id = (SELECT min(id) FROM fs_part WHERE brand = 'B3' AND cont = 'C3' AND id > 100);
UPDATE fs_part SET id = 30002, brand = 'B3', cont = 'C3' WHERE id = 17;
UPDATE fs_part SET id = 30003, brand = 'B6' WHERE id = (SELECT min(id) FROM fs_part WHERE brand = 'B3' AND cont = 'C3' AND id > 1000);
UPDATE fs_part SET size = size + 100 WHERE brand IN ('B3', 'B5') AND cont = 'C3' AND id % 5 = 0;
UPDATE fs_part SET cont = NULL WHERE id = (SELECT min(id) FROM fs_part WHERE brand = 'B3' AND cont = 'C3' AND id > 2000);
UPDATE fs_item SET kind = 'x' WHERE grp IN (5, 6) AND kind = 'y';
UPDATE fs_item SET kind = 'y' WHERE grp IN (7, 8) AND kind = 'x';
UPDATE fs_item SET grp = 301 WHERE grp = 9 AND n = 1;
UPDATE fs_tag SET color = 'red' WHERE code IN ('t1', 't2');
UPDATE fs_tag SET color = 'blue' WHERE code IN ('t4', 't8');
UPDATE fs_tag SET code = 't12x' WHERE code = 't12';
SELECT dynview.wait_for_capture();
-- (statistics after the change: the comparisons' plans of the correlated queries)
ANALYZE fs_part, fs_li, fs_item, fs_tag;
SELECT * FROM dv_refresh_round('fs_defs');
SELECT * FROM fs_states();

-- round 3: parts and lineitems in one transaction, then each in one of two transactions
BEGIN;
UPDATE fs_part SET brand = 'B3', cont = 'C3' WHERE id IN (21, 25, 29);
INSERT INTO fs_li SELECT 500000 + i, (ARRAY[21, 25, 29, 43])[1 + i % 4], 1 + i % 10, i FROM generate_series(1, 60) i;
DELETE FROM fs_part WHERE id = 30001;
DELETE FROM fs_li WHERE part = 30001;
UPDATE fs_sale SET qty = qty + 10 WHERE grp IN (5, 7, 301);
INSERT INTO fs_tag VALUES ('t9999', 'red');
INSERT INTO fs_use VALUES (90001, 't9999', 5), (90002, 't9999', 9);
COMMIT;
UPDATE fs_part SET cont = 'C3' WHERE id IN (SELECT id FROM fs_part WHERE brand = 'B3' AND cont IS NULL ORDER BY id LIMIT 3);
INSERT INTO fs_li SELECT 600000 + i, 3 + 10 * i, 1 + i % 7, i FROM generate_series(1, 100) i;
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('fs_defs');
SELECT * FROM fs_states();

-- round 4: a part moved out of the filter and back in one window (its row as it was), another
-- moved out and deleted, one inserted and deleted
UPDATE fs_part SET brand = 'B9' WHERE id = 21;
UPDATE fs_part SET brand = 'B3' WHERE id = 21;
UPDATE fs_part SET brand = 'B9' WHERE id = 25;
DELETE FROM fs_part WHERE id = 25;
INSERT INTO fs_part VALUES (40000, 'B3', 'C3', 7);
DELETE FROM fs_part WHERE id = 40000;
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('fs_defs');
SELECT * FROM fs_states();

-- round 5: TRUNCATE of a filtered source: a FULL refresh, its state rebuilt (empty), then
-- rows again incrementally
TRUNCATE fs_tag;
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('fs_defs');
INSERT INTO fs_tag SELECT 't' || n, CASE WHEN n % 3 = 0 THEN 'red' ELSE 'blue' END FROM generate_series(1, 200) n;
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('fs_defs');
SELECT * FROM fs_states();
SELECT * FROM fs_q17;
SELECT count(*), sum(n), sum(s) FROM fs_q17_parts;

-- dropping the tables drops their states
CREATE TEMP TABLE fs_state_names AS
SELECT c.relname FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace, fs_defs j
 WHERE s.nspname = 'dynview_state' AND c.relkind = 'r' AND c.relname LIKE 'ext\_' || j.name::regclass::oid || '\_%';
SELECT count(*) AS states FROM fs_state_names;
SELECT count(dynview.drop_dynamic_table(name)) FROM fs_defs;
SELECT count(*) AS states_left FROM pg_class c JOIN fs_state_names f ON f.relname = c.relname;
DROP FUNCTION fs_scans(text);
DROP FUNCTION fs_states();
DROP FUNCTION dv_refresh_round(regclass);
DROP TABLE fs_defs, fs_li, fs_part, fs_item, fs_sale, fs_tag, fs_use;
