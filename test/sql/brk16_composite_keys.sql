-- Tester's finding (s16-brk): the partner filter's scan read by key (optree.c keyed_shared_rows,
-- TPC-H Q17's part) kept the changed keys "WHERE (x) IS NOT NULL"; for a key of a composite type
-- IS NOT NULL is false when any field is NULL, yet the join's record equality matches such a key
-- (two NULL fields compare equal): the changed lineitems of a part (n, NULL) found no part row in
-- the keyed read, and their rows were missing from the delta.  Seen: the inserted lines of 300
-- such parts, two of each four qualifying under the old and the new average, missing from an SPJ
-- table and from a global aggregate, verify() false (or INCREMENTAL_MISMATCH where the average
-- fell).  Correct result: a key is left out only when it is the null value itself
-- (num_nonnulls), as probe_once_sql has done since the fifteenth session.  Also whole NULL keys,
-- deletes; each refresh checked with verify() and by text and by =.  (Keys whose fields are all
-- NULL: brk16_null_row_keys.)
SET client_min_messages = warning;
CREATE TYPE bck_key AS (a int, b int);
-- 10,500 parts (probes and keyed reads are considered from 10,000 rows: DV_PROBE_MIN_ROWS in
-- optree.c), one in 30 with a NULL field; 2,000 lines to begin with (each comparison with the
-- query runs its correlated subquery once per line: 30,000 lines made the test take a minute).
-- The 1,200 lines a round changes over 300 parts are more than probing part once a changed line
-- costs (10,500 rows), so part is read by key (keyed_shared_rows), the path of the defect.
CREATE TABLE bck_part (id bck_key PRIMARY KEY, brand text NOT NULL, cont text);
CREATE TABLE bck_li (id int PRIMARY KEY, part bck_key, qty numeric(10, 2) NOT NULL, price numeric(10, 2));
CREATE INDEX ON bck_li (part);
INSERT INTO bck_part SELECT ROW(n, CASE WHEN n % 30 = 3 THEN NULL ELSE n % 5 END)::bck_key, 'B3', 'C3'
  FROM generate_series(1, 10500) n;
INSERT INTO bck_li SELECT i, ROW(1 + (i * 7919) % 10500,
                                 CASE WHEN (1 + (i * 7919) % 10500) % 30 = 3 THEN NULL ELSE (1 + (i * 7919) % 10500) % 5 END)::bck_key,
                          1 + i % 50, (i * 31) % 1000 / 10.0
  FROM generate_series(1, 2000) i;
ANALYZE bck_part, bck_li;

CREATE TABLE bck_defs (name text PRIMARY KEY, query text NOT NULL);
INSERT INTO bck_defs VALUES
  -- TPC-H Q17's shape
  ('bck_q17', 'SELECT sum(l.price) / 7.0 AS avg_yearly, count(*) AS n FROM bck_li l, bck_part p
                WHERE p.id = l.part AND p.brand = ''B3'' AND p.cont = ''C3''
                  AND l.qty < (SELECT 0.5 * avg(l2.qty) FROM bck_li l2 WHERE l2.part = p.id)'),
  -- its rows
  ('bck_rows', 'SELECT l.id, l.price FROM bck_li l, bck_part p
                 WHERE p.id = l.part AND p.brand = ''B3'' AND p.cont = ''C3''
                   AND l.qty < (SELECT 0.5 * avg(l2.qty) FROM bck_li l2 WHERE l2.part = p.id)'),
  -- grouped by part
  ('bck_by_part', 'SELECT l.part, sum(l.price) AS s, count(*) AS n FROM bck_li l, bck_part p
                    WHERE p.id = l.part AND p.brand = ''B3''
                      AND l.qty < (SELECT 0.5 * avg(l2.qty) FROM bck_li l2 WHERE l2.part = p.id)
                    GROUP BY l.part');
SELECT count(dynview.create_dynamic_table(name, query, schedule => 'manual', refresh_mode => 'incremental'))
  FROM bck_defs;

\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round

-- round 1: four lines for each of 300 parts (n, NULL): two of quantity 1 (below half the
-- average before and after), two of 200 (the average rises)
INSERT INTO bck_li SELECT 200000 + i, ROW(3 + 30 * (i % 300), NULL)::bck_key,
                          CASE WHEN i % 4 < 2 THEN 1 ELSE 200 END, i % 500 / 10.0
  FROM generate_series(1, 1200) i;
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('bck_defs');

-- round 2: lines of 300 such parts whose average falls, lines with a NULL part
INSERT INTO bck_li SELECT 300000 + i, ROW(33 + 30 * (i % 300), NULL)::bck_key, 1 + i % 30, i % 500 / 10.0
  FROM generate_series(1, 1200) i;
INSERT INTO bck_li SELECT 500000 + i, NULL, 1, i FROM generate_series(1, 10) i;
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('bck_defs');

-- round 3: deletes among them
DELETE FROM bck_li WHERE id > 200000 AND id % 3 = 0;
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('bck_defs');
SELECT count(*) > 0 AS parts_with_a_null_field_kept FROM bck_by_part WHERE (part).b IS NULL;

SELECT dynview.drop_dynamic_table(name) IS NOT NULL FROM bck_defs ORDER BY name;
DROP FUNCTION dv_refresh_round(regclass);
DROP TABLE bck_defs, bck_li, bck_part;
DROP TYPE bck_key;
