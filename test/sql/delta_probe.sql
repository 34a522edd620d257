-- A small delta joined with a large source by that source's key (issue 13, TPC-H Q8 and Q17:
-- the changed lineitems and part): the source's rows are read by key for each row of the delta
-- (optree.c probe_rows: a LATERAL subquery the planner keeps, an index scan per row), not read
-- whole for a hash join.  Only when the source has at least 10,000 rows (pg_class.reltuples),
-- the delta at most a tenth of them, and the condition's column leads an index with at most 10
-- rows per value.  Deletes, NULL keys, keys with no row, groups appearing and vanishing, and
-- the large source changing in the same window as the fact; every refresh verified and compared
-- with the query by text and by "=".
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

SELECT count(dynview.drop_dynamic_table(name)) FROM dp_defs;
DROP FUNCTION dv_refresh_round(regclass);
DROP TABLE dp_defs, dp_item, dp_part, dp_supp;
