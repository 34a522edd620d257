-- A small delta joined with a large source by that source's key (issue 13, TPC-H Q8 and Q17:
-- the changed lineitems and part): the source's rows are read by key for each row of the delta
-- (optree.c probe_rows: a LATERAL subquery the planner keeps, an index scan per row), not read
-- whole for a hash join.  Only when the source has at least 10,000 rows (pg_class.reltuples),
-- the condition's column leads an index with at most 10 rows per value, and the probes cost less
-- than reading the source whole by the planner's costs (probe_cheaper: pages counted only for a
-- source that does not fit in a quarter of shared_buffers).  Deletes, NULL keys, keys with no
-- row, groups appearing and vanishing, and the large source changing in the same window as the
-- fact; every refresh verified and compared with the query by text and by "=".
SET client_min_messages = warning;

CREATE TABLE dp_part (p int PRIMARY KEY, kind text NOT NULL, size int NOT NULL, note varchar(20));
CREATE TABLE dp_item (id int PRIMARY KEY, p int, qty numeric(12, 2) NOT NULL, price numeric(12, 2));
CREATE TABLE dp_supp (s int PRIMARY KEY, region text NOT NULL);
ALTER TABLE dp_item ADD COLUMN s int;
CREATE INDEX ON dp_item (p);
INSERT INTO dp_part SELECT p, 'kind ' || p % 150, p % 50, CASE WHEN p % 7 = 0 THEN NULL ELSE 'n' || p % 11 END
  FROM generate_series(1, 20000) p;
INSERT INTO dp_supp SELECT s, 'region ' || s % 5 FROM generate_series(0, 99) s;
INSERT INTO dp_item SELECT i, CASE WHEN i % 97 = 0 THEN NULL ELSE 1 + (i * 7919) % 20000 END, 1 + i % 50,
                           (i * 31) % 1000 / 10.0, i % 100
  FROM generate_series(1, 30000) i;
ANALYZE dp_part, dp_item, dp_supp;

CREATE TABLE dp_defs (name text PRIMARY KEY, query text NOT NULL);
INSERT INTO dp_defs VALUES
  -- TPC-H Q8's first join: the items of one kind of part, by region of their supplier
  ('dp_join', 'SELECT s.region, sum(i.qty * i.price) AS revenue, count(*) AS n
                 FROM dp_part p, dp_item i, dp_supp s
                WHERE p.p = i.p AND s.s = i.s AND p.kind = ''kind 7''
                GROUP BY s.region'),
  -- the join's rows themselves, with the part's varchar column (a cast in the stored definition)
  ('dp_rows', 'SELECT i.id, p.p, p.note, i.qty FROM dp_item i JOIN dp_part p ON p.p = i.p
                WHERE p.note = ''n3'' OR p.size = 3'),
  -- TPC-H Q17's shape: a correlated average, made a join with a grouped subquery
  ('dp_q17', 'SELECT sum(i.price) / 7.0 AS avg_yearly, count(*) AS n
                FROM dp_item i, dp_part p
               WHERE p.p = i.p AND p.kind = ''kind 23'' AND p.size = 23
                 AND i.qty < (SELECT 0.5 * avg(i2.qty) FROM dp_item i2 WHERE i2.p = p.p)'),
  -- an outer join: the unmatched items are padded
  ('dp_left', 'SELECT i.id, i.p, p.kind FROM dp_item i LEFT JOIN dp_part p ON p.p = i.p
                WHERE i.id % 10 = 3');

SELECT count(dynview.create_dynamic_table(name, query, schedule => 'manual', refresh_mode => 'incremental'))
  FROM dp_defs;
SELECT j.name, d.effective_mode FROM dynview.dynamic_tables d JOIN dp_defs j ON d.name = j.name::regclass ORDER BY 1;

\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round

-- a refresh of a small change of the items reads dp_part by key, not whole: no sequential scan
-- of dp_part during the refreshes of the inner joins (the comparisons come after them)
-- round 1: items inserted (some of a part of kind 7, one with a NULL part, one with a part
-- that does not exist) and deleted
INSERT INTO dp_item SELECT i, CASE WHEN i % 13 = 0 THEN NULL WHEN i % 17 = 0 THEN 99999 ELSE 7 + 150 * (i % 120) END,
                           1 + i % 30, i % 500 / 10.0, i % 100
  FROM generate_series(30001, 30300) i;
DELETE FROM dp_item WHERE id BETWEEN 1000 AND 1200;
SELECT dynview.wait_for_capture();
SELECT pg_stat_force_next_flush();
SELECT pg_stat_clear_snapshot();
SELECT seq_scan AS s0 FROM pg_stat_user_tables WHERE relid = 'dp_part'::regclass \gset
SELECT refresh_mode FROM dynview.refresh('dp_join');
SELECT refresh_mode FROM dynview.refresh('dp_rows');
SELECT pg_stat_force_next_flush();
SELECT pg_stat_clear_snapshot();
SELECT seq_scan - :s0 AS part_seq_scans FROM pg_stat_user_tables WHERE relid = 'dp_part'::regclass;
SELECT * FROM dv_refresh_round('dp_defs');

-- round 2: the parts change in the same window as the items: a part becomes kind 7, another
-- stops being one, a part is deleted with its items, a part appears for the item that had none,
-- and items move between parts
UPDATE dp_part SET kind = 'kind 7' WHERE p IN (8, 9, 10);
UPDATE dp_part SET kind = 'kind 8' WHERE p IN (7, 157);
UPDATE dp_part SET note = 'n3', size = 3 WHERE p = 11;
DELETE FROM dp_item WHERE p = 307;
DELETE FROM dp_part WHERE p = 307;
INSERT INTO dp_part VALUES (99999, 'kind 7', 23, 'n3');
UPDATE dp_item SET p = 8, qty = qty + 1 WHERE id BETWEEN 2000 AND 2040;
UPDATE dp_item SET p = NULL WHERE id BETWEEN 2041 AND 2045;
INSERT INTO dp_item VALUES (40000, 23 + 150 * 3, 1, 10, 1), (40001, 23 + 150 * 3, 40, 20, 2);
SELECT * FROM dv_refresh_round('dp_defs');

-- round 3: the groups of a region vanish and come back; an item's price becomes NULL
DELETE FROM dp_item WHERE s = 4;
UPDATE dp_item SET price = NULL WHERE id = 30007;
SELECT * FROM dv_refresh_round('dp_defs');
INSERT INTO dp_item SELECT i, 7 + 150 * (i % 10), 2, 3, 4 FROM generate_series(50001, 50020) i;
SELECT * FROM dv_refresh_round('dp_defs');

-- a change as large as the source: read whole as before (the same rows)
UPDATE dp_item SET qty = qty + 1 WHERE id % 2 = 0;
SELECT * FROM dv_refresh_round('dp_defs');

-- A source larger than a quarter of shared_buffers (the test cluster's 128 MB): its pages are
-- counted (the Mackert-Lohman pages of the probes at random_page_cost against its pages read once
-- at seq_page_cost).  A change of 0.1% of its rows is probed (no sequential scan of dp_big); one
-- of 3% is joined as the planner chooses, reading dp_big whole once, where the probes would read
-- most of its pages at random (TPC-H Q17's part at scale 10000: 12,089 changed lineitems, 12,771
-- pages).  dp_part above, 20,000 rows that fit in shared buffers, was probed for 2.5% of its size.
SELECT pg_size_bytes(current_setting('shared_buffers')) <= 128 * 1024 * 1024 AS test_cluster_buffers;
CREATE TABLE dp_big (b int PRIMARY KEY, kind int NOT NULL, pad text NOT NULL);
INSERT INTO dp_big SELECT b, b % 100, repeat('x', 100) FROM generate_series(1, 300000) b;
CREATE TABLE dp_fact (id int PRIMARY KEY, b int, v int NOT NULL, w numeric(10, 2));
INSERT INTO dp_fact SELECT i, 1 + (i * 7919) % 300000, i % 10, i % 7 / 4.0 FROM generate_series(1, 2000) i;
ANALYZE dp_big, dp_fact;
SELECT (pg_relation_size('dp_big') + pg_relation_size('dp_big_pkey')) / 8192
       > pg_size_bytes(current_setting('shared_buffers')) / 8192 / 4 AS dp_big_over_a_quarter;
CREATE TABLE dp_defs2 (name text PRIMARY KEY, query text NOT NULL);
INSERT INTO dp_defs2 VALUES
  ('dp_big_join', 'SELECT f.v, count(*) AS n, sum(b.kind) AS k, sum(f.w) AS w
                     FROM dp_fact f JOIN dp_big b ON b.b = f.b WHERE b.kind < 50 GROUP BY f.v'),
  ('dp_big_rows', 'SELECT f.id, f.w, b.b, b.kind FROM dp_fact f JOIN dp_big b ON b.b = f.b WHERE f.v = 3');
SELECT count(dynview.create_dynamic_table(name, query, schedule => 'manual', refresh_mode => 'incremental'))
  FROM dp_defs2;

-- 0.1%: facts inserted (a NULL key, a key with no row) and deleted: probed
INSERT INTO dp_fact SELECT i, CASE WHEN i % 50 = 0 THEN NULL WHEN i % 51 = 0 THEN 999999 ELSE 1 + (i * 31) % 300000 END,
                           i % 10, i % 9 / 4.0
  FROM generate_series(100001, 100250) i;
DELETE FROM dp_fact WHERE id BETWEEN 1 AND 50;
SELECT dynview.wait_for_capture();
SELECT pg_stat_force_next_flush();
SELECT pg_stat_clear_snapshot();
SELECT seq_scan AS s0 FROM pg_stat_user_tables WHERE relid = 'dp_big'::regclass \gset
SELECT refresh_mode FROM dynview.refresh('dp_big_join');
SELECT refresh_mode FROM dynview.refresh('dp_big_rows');
SELECT pg_stat_force_next_flush();
SELECT pg_stat_clear_snapshot();
SELECT seq_scan - :s0 AS big_seq_scans_small_change FROM pg_stat_user_tables WHERE relid = 'dp_big'::regclass;
SELECT * FROM dv_refresh_round('dp_defs2');

-- 3%: read whole (the same rows), with dp_big changing in the same window: rows a changed fact
-- joins change kind (one leaves the filter, one enters it), one is deleted with its facts, one
-- appears for the fact that had none; a group vanishes
INSERT INTO dp_fact SELECT i, 1 + (i * 7) % 300000, i % 10, i % 5 / 4.0 FROM generate_series(200001, 209000) i;
DELETE FROM dp_fact WHERE v = 9;
UPDATE dp_big SET kind = 75 WHERE b = 1 + (200003 * 7) % 300000;
UPDATE dp_big SET kind = 1 WHERE b = 1 + (200004 * 7) % 300000;
DELETE FROM dp_fact WHERE b = 1 + (200005 * 7) % 300000;
DELETE FROM dp_big WHERE b = 1 + (200005 * 7) % 300000;
UPDATE dp_fact SET b = 300001 WHERE id = 100051;
INSERT INTO dp_big VALUES (300001, 7, 'new');
SELECT dynview.wait_for_capture();
SELECT pg_stat_force_next_flush();
SELECT pg_stat_clear_snapshot();
SELECT seq_scan AS s0 FROM pg_stat_user_tables WHERE relid = 'dp_big'::regclass \gset
SELECT refresh_mode FROM dynview.refresh('dp_big_join');
SELECT pg_stat_force_next_flush();
SELECT pg_stat_clear_snapshot();
SELECT seq_scan - :s0 > 0 AS big_read_whole_large_change FROM pg_stat_user_tables WHERE relid = 'dp_big'::regclass;
SELECT * FROM dv_refresh_round('dp_defs2');
SELECT v, n FROM dp_big_join WHERE v = 9;

-- the group comes back, small again
INSERT INTO dp_fact SELECT i, 1 + (i * 13) % 300000, 9, 1 FROM generate_series(300001, 300040) i;
-- (and facts dp_big_rows' filter keeps: probed)
INSERT INTO dp_fact SELECT i, 1 + (i * 13) % 300000, 3, 2 FROM generate_series(300041, 300045) i;
SELECT * FROM dv_refresh_round('dp_defs2');
SELECT count(*) > 0 AS group_back FROM dp_big_join WHERE v = 9;

SELECT count(dynview.drop_dynamic_table(name)) FROM dp_defs2;
DROP TABLE dp_defs2, dp_fact, dp_big;

SELECT count(dynview.drop_dynamic_table(name)) FROM dp_defs;
DROP FUNCTION dv_refresh_round(regclass);
DROP TABLE dp_defs, dp_item, dp_part, dp_supp;
