-- An outer join whose only changed side is the one it preserves (optree.c, delta_cte): its
-- delta is that side's changed rows outer-joined to the other side now, each with its weight
-- (delta(l) LEFT JOIN new(r); new(l) RIGHT JOIN delta(r)), in one probe of the other side per
-- changed row.  Covered: a plain key lookup, a condition on the preserved side alone in ON (a
-- row that fails it is padded, not dropped), NULL join keys, duplicated preserved rows (no
-- key), a grouped subquery on the other side (read for the delta's keys), RIGHT JOIN, FULL
-- JOIN (the other side's padded rows still follow the anti-join rule), an aggregate above the
-- join, and windows where the other side changes too (the general rule).  verify() after
-- every refresh.
SET client_min_messages = warning;
CREATE TABLE oj_l (id int, rid int, v int);      -- no key: duplicated rows on purpose
ALTER TABLE oj_l REPLICA IDENTITY FULL;
CREATE TABLE oj_r (id int PRIMARY KEY, name text, grp int);
CREATE TABLE oj_m (rid int, w int);
ALTER TABLE oj_m REPLICA IDENTITY FULL;
INSERT INTO oj_r SELECT n, 'r' || n, n % 7 FROM generate_series(1, 2000) n;
INSERT INTO oj_l SELECT n, CASE WHEN n % 10 = 0 THEN NULL ELSE n * 3 % 2500 END, n % 9
  FROM generate_series(1, 400) n;
INSERT INTO oj_l SELECT n, n * 3 % 2500, n % 9 FROM generate_series(1, 400, 37) n;   -- duplicates
INSERT INTO oj_m SELECT n % 300, n FROM generate_series(1, 900) n;
ANALYZE oj_l, oj_r, oj_m;

CREATE TABLE oj_tables (name text PRIMARY KEY, query text);
INSERT INTO oj_tables VALUES
  ('oj_left', 'SELECT l.id, l.rid, l.v, r.name FROM oj_l l LEFT JOIN oj_r r ON r.id = l.rid'),
  ('oj_left_on', 'SELECT l.id, l.v, r.name, r.grp FROM oj_l l LEFT JOIN oj_r r ON r.id = l.rid AND l.v > 4 AND r.grp <> 3'),
  ('oj_right', 'SELECT l.id, l.v, r.name FROM oj_r r RIGHT JOIN oj_l l ON r.id = l.rid'),
  ('oj_full', 'SELECT l.id, l.v, r.id AS r_id, r.name FROM oj_l l FULL JOIN oj_r r ON r.id = l.rid'),
  ('oj_grouped', 'SELECT l.id, l.rid, g.n, g.total FROM oj_l l LEFT JOIN
                    (SELECT rid, count(*) AS n, sum(w) AS total FROM oj_m GROUP BY rid) g ON g.rid = l.rid'),
  ('oj_agg', 'SELECT r.grp, count(*) AS n, count(r.id) AS matched, sum(l.v) AS v
                FROM oj_l l LEFT JOIN oj_r r ON r.id = l.rid GROUP BY r.grp');
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual') IS NOT NULL AS created
  FROM oj_tables ORDER BY name;
SELECT t.name, d.effective_mode FROM oj_tables t JOIN dynview.dynamic_tables d ON d.name = t.name::regclass ORDER BY 1;

-- every table refreshed and verified, in name order
CREATE FUNCTION oj_round() RETURNS TABLE (name text, mode text, verified bool) LANGUAGE plpgsql AS $$
BEGIN
  FOR name IN SELECT t.name FROM oj_tables t ORDER BY 1 LOOP
    mode := (dynview.refresh(name)).refresh_mode;
    verified := dynview.verify(name);
    RETURN NEXT;
  END LOOP;
END $$;

-- 1. only the preserved side changes: rows that match, rows whose key matches nothing
--    (> 2000), NULL keys, a duplicate of an existing row, rows moved between match and none,
--    rows deleted (one copy of a duplicate, a padded row, a matched row)
INSERT INTO oj_l VALUES (1001, 5, 7), (1002, 2400, 8), (1003, NULL, 1), (1004, 5, 7), (1005, 12, 2);
INSERT INTO oj_l SELECT id, rid, v FROM oj_l WHERE id = 38 LIMIT 1;
UPDATE oj_l SET rid = 2300 WHERE id IN (2, 3);
UPDATE oj_l SET rid = 17 WHERE id = 10;
UPDATE oj_l SET v = 8 WHERE id = 4;
DELETE FROM oj_l WHERE ctid = (SELECT min(ctid) FROM oj_l WHERE id = 75);
DELETE FROM oj_l WHERE id IN (20, 21);
SELECT * FROM oj_round();

-- 2. only the preserved side, inside one transaction's window that also undoes some of it
BEGIN;
INSERT INTO oj_l VALUES (1100, 30, 5), (1101, 31, 5);
DELETE FROM oj_l WHERE id = 1100;
UPDATE oj_l SET rid = NULL WHERE id = 1005;
COMMIT;
SELECT * FROM oj_round();

-- 3. the other side changes alone (general rule): a matched row goes, a missing key appears
DELETE FROM oj_r WHERE id IN (5, 17);
INSERT INTO oj_r VALUES (2300, 'r2300', 1), (2400, 'r2400', 3);
DELETE FROM oj_m WHERE rid = 9;
SELECT * FROM oj_round();

-- 4. both sides in one window (general rule), then the preserved side alone again
INSERT INTO oj_r VALUES (5, 'again', 3);
INSERT INTO oj_l VALUES (1200, 5, 9), (1201, 2400, 0);
SELECT * FROM oj_round();
INSERT INTO oj_l VALUES (1300, 5, 9), (1301, 1999, 6), (1302, 2999, 6);
UPDATE oj_l SET v = v + 1 WHERE id BETWEEN 100 AND 110;
SELECT * FROM oj_round();

-- 5. one probe of the other side per changed row: three new rows of oj_l, the LEFT JOIN
--    table's refresh reads oj_r's key index at most three times (the general rule read it
--    twice per row: for the matches, and for their count that decides a padded row)
INSERT INTO oj_l VALUES (1400, 40, 1), (1401, 41, 1), (1402, 2041, 1);
SELECT pg_stat_force_next_flush();
BEGIN;
SELECT refresh_mode FROM dynview.refresh('oj_left');
SELECT idx_scan BETWEEN 1 AND 3 AS one_probe_per_row FROM pg_stat_xact_user_tables WHERE relname = 'oj_r';
SELECT dynview.verify('oj_left');
COMMIT;
SELECT * FROM oj_round();

SELECT dynview.drop_dynamic_table(name) FROM oj_tables ORDER BY name DESC;
DROP FUNCTION oj_round();
DROP TABLE oj_tables, oj_l, oj_r, oj_m;
