-- The index-recompute rule by two keys (src/analyze/grouprule.c assess_two_keys): a grouped
-- subquery over one table whose first group key has too many rows per value (here 12 > 8) but
-- whose first two group keys lead an index, with few rows per pair by the statistics, keeps no
-- state and recomputes its affected groups through that index by both keys (TPC-H Q20's
-- decorrelated 0.5 * sum(l_quantity) per (l_partkey, l_suppkey)), in three disjoint sets: pairs
-- of non-NULL keys, a NULL second key, a NULL first key.  The same subquery without the
-- two-column index keeps its state.  Changes of every source: lineitems inserted, deleted and
-- moved between pairs (NULL keys included), parts entering and leaving the filter, partsupp
-- rows added, deleted and changed, suppliers added, deleted and renamed.  A change of the parts
-- alone, and of the parts with their lines and partsupp rows in one window, reads only the
-- changed parts' groups (optree.c reach_group_sql), also under a LEFT JOIN.  verify() after
-- every refresh; the tables do not autovacuum, so the rule chosen is the ANALYZE's below.
SET client_min_messages = warning;
-- (on by default; read when the states are built and when each refresh plans)
SHOW dynview.index_recompute_pairs;
CREATE TABLE irp_part (p_partkey int PRIMARY KEY, p_name text) WITH (autovacuum_enabled = false);
CREATE TABLE irp_supp (s_suppkey int PRIMARY KEY, s_name text, s_nation int) WITH (autovacuum_enabled = false);
CREATE TABLE irp_ps (ps_partkey int, ps_suppkey int, ps_availqty int, PRIMARY KEY (ps_partkey, ps_suppkey))
  WITH (autovacuum_enabled = false);
-- 12 lines per part over 4 of 8 suppliers (3 per pair); the index leads with (partkey, suppkey)
CREATE TABLE irp_li (id int PRIMARY KEY, partkey int, suppkey int, qty numeric(10,2), flag int, shipped date)
  WITH (autovacuum_enabled = false);
CREATE INDEX irp_li_ps ON irp_li (partkey, suppkey);
-- the same lines in a table without the two-column index (its first key alone leads one)
CREATE TABLE irp_li1 (LIKE irp_li) WITH (autovacuum_enabled = false);
ALTER TABLE irp_li1 ADD PRIMARY KEY (id);
CREATE INDEX irp_li1_p ON irp_li1 (partkey);
ALTER TABLE irp_part REPLICA IDENTITY FULL;
ALTER TABLE irp_supp REPLICA IDENTITY FULL;
ALTER TABLE irp_ps REPLICA IDENTITY FULL;
ALTER TABLE irp_li REPLICA IDENTITY FULL;
ALTER TABLE irp_li1 REPLICA IDENTITY FULL;
INSERT INTO irp_part SELECT p, CASE WHEN p % 3 = 0 THEN 'forest ' ELSE 'plain ' END || p FROM generate_series(1, 30) p;
INSERT INTO irp_supp SELECT s, 'supplier ' || s, s % 2 FROM generate_series(1, 8) s;
INSERT INTO irp_ps SELECT p, 1 + (p + j * 2) % 8, (p * 7 + j * 5) % 13 FROM generate_series(1, 30) p, generate_series(0, 3) j;
INSERT INTO irp_li SELECT n, 1 + (n - 1) / 12, 1 + (1 + (n - 1) / 12 + ((n - 1) % 4) * 2) % 8, (n * 7) % 9 + 0.5, n % 2,
                          date '1994-01-01' + (n * 37) % 500
  FROM generate_series(1, 360) n;
INSERT INTO irp_li1 SELECT * FROM irp_li;
ANALYZE irp_part, irp_supp, irp_ps, irp_li, irp_li1;

CREATE TABLE irp_tables (name text PRIMARY KEY, query text);
INSERT INTO irp_tables VALUES
  -- TPC-H Q20's shape: the suppliers with a partsupp row of a 'forest' part whose quantity
  -- available exceeds half of the quantity shipped in a year
  ('irp_q20', $q$SELECT s_name FROM irp_supp WHERE s_nation = 1 AND s_suppkey IN (SELECT ps_suppkey FROM irp_ps
      WHERE ps_partkey IN (SELECT p_partkey FROM irp_part WHERE p_name LIKE 'forest%')
        AND ps_availqty > (SELECT 0.5 * sum(qty) FROM irp_li WHERE partkey = ps_partkey AND suppkey = ps_suppkey
                             AND shipped >= date '1994-01-01' AND shipped < date '1995-01-01'))$q$),
  -- its partsupp level alone
  ('irp_ps_level', $q$SELECT ps_partkey, ps_suppkey, ps_availqty FROM irp_ps
      WHERE ps_partkey IN (SELECT p_partkey FROM irp_part WHERE p_name LIKE 'forest%')
        AND ps_availqty > (SELECT 0.5 * sum(qty) FROM irp_li WHERE partkey = ps_partkey AND suppkey = ps_suppkey)$q$),
  -- the groups themselves on the preserved side of a LEFT JOIN: NULL first and second keys,
  -- three group keys (the index serves the first two)
  ('irp_groups', $q$SELECT x.partkey, x.suppkey, x.flag, x.c, x.s, p.p_name FROM
      (SELECT partkey, suppkey, flag, count(*) AS c, sum(qty) AS s FROM irp_li GROUP BY partkey, suppkey, flag) x
      LEFT JOIN irp_part p ON p.p_partkey = x.partkey$q$),
  -- the groups on the right of a LEFT JOIN under the semi-join: partsupp rows without lines
  -- keep a NULL sum
  ('irp_left', $q$SELECT ps_partkey, ps_suppkey, ps_availqty, x.s FROM irp_ps
      LEFT JOIN (SELECT partkey, suppkey, sum(qty) AS s FROM irp_li GROUP BY partkey, suppkey) x
        ON x.partkey = ps_partkey AND x.suppkey = ps_suppkey
      WHERE ps_partkey IN (SELECT p_partkey FROM irp_part WHERE p_name LIKE 'forest%')$q$),
  -- the same over the table whose index serves the first key only (12 rows per value): a state
  ('irp_state', $q$SELECT x.partkey, x.suppkey, x.c, x.s FROM
      (SELECT partkey, suppkey, count(*) AS c, sum(qty) AS s FROM irp_li1 GROUP BY partkey, suppkey) x
      JOIN irp_part p ON p.p_partkey = x.partkey WHERE p.p_name LIKE 'forest%'$q$);
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual') IS NOT NULL AS created
  FROM irp_tables ORDER BY name;

-- the rule of each grouped subquery (explain_dynamic_table), and the state tables
CREATE FUNCTION irp_rules() RETURNS TABLE (name text, mode text, by_pair bigint, by_first bigint, kept_in_state bigint,
                                           state_tables bigint)
LANGUAGE sql AS $$
SELECT t.name, d.effective_mode,
       (SELECT count(*) FROM regexp_matches(e.value, 'no state: its first two group keys', 'g')),
       (SELECT count(*) FROM regexp_matches(e.value, 'no state: its first group key', 'g')),
       (SELECT count(*) FROM regexp_matches(e.value, 'aggregates kept in state', 'g')),
       (SELECT count(*) FROM pg_class c WHERE c.relnamespace = 'dynview_state'::regnamespace
           AND c.relkind = 'r' AND c.relname LIKE 'ext\_' || t.name::regclass::oid || '\_%')
  FROM irp_tables t JOIN dynview.dynamic_tables d ON d.name = t.name::regclass
  JOIN dynview.explain_dynamic_table(t.name) e ON e.property = 'operator tree'
 ORDER BY 1
$$;
SELECT * FROM irp_rules();
-- what explain() says of the rule (the estimate: 12 rows per part over 8 suppliers)
SELECT substring(value FROM 'no state: its first two group keys [^)]*\)')
  FROM dynview.explain_dynamic_table('irp_groups') WHERE property = 'operator tree';

\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_rows :abs_srcdir '/sql/include/refresh_rows.sql'
\i :refresh_rows
CREATE FUNCTION irp_round() RETURNS TABLE (name text, mode text, reason text, verified bool, rows bigint)
LANGUAGE sql AS $$ SELECT name, mode, reason, verified, rows FROM dv_refresh_rows('irp_tables') $$;
-- each table against its query by text form and by = (verify() does both; this shows the rows)
CREATE FUNCTION irp_same() RETURNS TABLE (name text, same_text bool, same_eq bool)
LANGUAGE plpgsql AS $$
DECLARE t record; a bigint; b bigint;
BEGIN
  FOR t IN SELECT * FROM irp_tables ORDER BY 1 LOOP
    EXECUTE format('SELECT count(*) FROM ((SELECT x::text FROM %I x EXCEPT ALL SELECT q::text FROM (%s) q)
                    UNION ALL (SELECT q::text FROM (%s) q EXCEPT ALL SELECT x::text FROM %I x)) d',
                   t.name, t.query, t.query, t.name) INTO a;
    EXECUTE format('SELECT count(*) FROM ((SELECT * FROM %I EXCEPT ALL %s) UNION ALL (%s EXCEPT ALL SELECT * FROM %I)) d',
                   t.name, t.query, t.query, t.name) INTO b;
    name := t.name; same_text := a = 0; same_eq := b = 0;
    RETURN NEXT;
  END LOOP;
END $$;
SELECT * FROM irp_round();
SELECT * FROM irp_same();
SELECT count(*) > 0 AS q20_has_rows FROM irp_q20;

-- 1. lineitem: lines inserted into existing and new pairs, deleted, moved to another pair, a
--    pair emptied, lines of a NULL supplier and of a NULL part (and both NULL)
INSERT INTO irp_li VALUES (1001, 3, 4, 40.00, 0, '1994-03-01'), (1002, 6, 7, 1.00, 1, '1994-05-01'),
  (1003, 9, NULL, 2.00, 0, '1994-06-01'), (1004, NULL, 2, 3.00, 1, '1994-07-01'),
  (1005, NULL, NULL, 4.00, 0, '1994-08-01'), (1006, 31, 1, 5.00, 0, '1994-09-01');
DELETE FROM irp_li WHERE id IN (13, 26, 39);
UPDATE irp_li SET suppkey = 1 + suppkey % 8 WHERE id IN (50, 51);
UPDATE irp_li SET qty = qty + 20 WHERE partkey = 12 AND suppkey = (SELECT min(suppkey) FROM irp_li WHERE partkey = 12);
DELETE FROM irp_li WHERE partkey = 15 AND suppkey = (SELECT max(suppkey) FROM irp_li WHERE partkey = 15);
INSERT INTO irp_li1 SELECT * FROM irp_li WHERE id > 1000;
DELETE FROM irp_li1 WHERE id NOT IN (SELECT id FROM irp_li);
UPDATE irp_li1 l SET suppkey = i.suppkey, qty = i.qty FROM irp_li i WHERE i.id = l.id;
SELECT * FROM irp_round();
SELECT * FROM irp_same();
-- 2. NULL keys again: a NULL supplier's group grown and moved to a supplier, a NULL part's
--    group emptied, a line moved from a pair to a NULL supplier in the same window
INSERT INTO irp_li VALUES (1007, 9, NULL, 6.00, 0, '1994-10-01');
UPDATE irp_li SET suppkey = 5 WHERE id = 1003;
DELETE FROM irp_li WHERE partkey IS NULL AND suppkey = 2;
UPDATE irp_li SET suppkey = NULL WHERE id = 100;
UPDATE irp_li SET partkey = NULL WHERE id = 101;
SELECT * FROM irp_round();
SELECT * FROM irp_same();
SELECT partkey, suppkey, flag, c, s FROM irp_groups WHERE partkey IS NULL OR suppkey IS NULL ORDER BY 1, 2, 3;
-- 3. part: parts leaving and entering the filter, a new forest part with lines and partsupp
--    rows already there, a forest part deleted
UPDATE irp_part SET p_name = 'plain again' WHERE p_partkey = 3;
UPDATE irp_part SET p_name = 'forest now' WHERE p_partkey IN (4, 5);
INSERT INTO irp_part VALUES (31, 'forest new');
INSERT INTO irp_ps VALUES (31, 1, 50);
DELETE FROM irp_part WHERE p_partkey = 6;
SELECT * FROM irp_round();
SELECT * FROM irp_same();
-- 4. partsupp: rows added (a pair with lines and one without), deleted, their quantity moved
--    across the threshold both ways
INSERT INTO irp_ps VALUES (9, 1, 100), (12, 6, 0);
DELETE FROM irp_ps WHERE ps_partkey = 18 AND ps_suppkey = (SELECT min(ps_suppkey) FROM irp_ps WHERE ps_partkey = 18);
UPDATE irp_ps SET ps_availqty = 100 WHERE ps_partkey IN (21, 24);
UPDATE irp_ps SET ps_availqty = 0 WHERE ps_partkey IN (27, 30);
SELECT * FROM irp_round();
SELECT * FROM irp_same();
-- 5. supplier: one added (with partsupp rows of a forest part), one deleted, one renamed, one
--    moved to the other nation
INSERT INTO irp_supp VALUES (9, 'supplier 9', 1);
INSERT INTO irp_ps VALUES (9, 9, 90), (12, 9, 90);
DELETE FROM irp_supp WHERE s_suppkey = 3;
UPDATE irp_supp SET s_name = 'supplier five' WHERE s_suppkey = 5;
UPDATE irp_supp SET s_nation = 1 - s_nation WHERE s_suppkey IN (2, 7);
SELECT * FROM irp_round();
SELECT * FROM irp_same();
-- 6. everything at once: lines of the pairs a partsupp change reaches, a part renamed, a
--    third of the lines changed
UPDATE irp_li SET qty = qty + 1 WHERE id % 3 = 0;
UPDATE irp_part SET p_name = 'forest ' || p_partkey WHERE p_partkey = 7;
INSERT INTO irp_li VALUES (1008, 7, 1, 0.50, 1, '1994-02-02');
INSERT INTO irp_ps VALUES (7, 1, 80) ON CONFLICT (ps_partkey, ps_suppkey) DO UPDATE SET ps_availqty = 80;
DELETE FROM irp_li WHERE partkey = 9 AND suppkey = 1;
UPDATE irp_li1 l SET qty = i.qty FROM irp_li i WHERE i.id = l.id;
SELECT * FROM irp_round();
SELECT * FROM irp_same();
-- 7. The semi-join's term for a change of its right side (parts entering or leaving the filter)
--    joins its left side now with those parts: partsupp by part, and the subquery's groups of
--    those parts only, through lineitem's index (optree.c reach_group_sql), not every group.
--    irp_reads() refreshes one table and counts the lines it read (pg_stat_xact_user_tables,
--    the current transaction's counts): fewer than the table holds.  (7a) parts alone; (7b)
--    in one window parts entering and leaving, lines of those parts and of others inserted,
--    deleted and moved, partsupp rows of those parts added, deleted and changed.
CREATE FUNCTION irp_reads(t text) RETURNS TABLE (name text, mode text, verified bool, reads_fewer_lines bool)
LANGUAGE plpgsql AS $$
DECLARE r0 bigint; r1 bigint;
BEGIN
  SELECT x.seq_tup_read + COALESCE(x.idx_tup_fetch, 0) INTO r0 FROM pg_stat_xact_user_tables x WHERE x.relname = 'irp_li';
  SELECT h.refresh_mode INTO mode FROM dynview.refresh(t) h;
  SELECT x.seq_tup_read + COALESCE(x.idx_tup_fetch, 0) INTO r1 FROM pg_stat_xact_user_tables x WHERE x.relname = 'irp_li';
  name := t;
  verified := dynview.verify(t);
  reads_fewer_lines := r1 - r0 < (SELECT count(*) FROM irp_li);
  RETURN NEXT;
END $$;
-- 7a
UPDATE irp_part SET p_name = 'forest ' || p_partkey WHERE p_partkey IN (10, 11);
UPDATE irp_part SET p_name = 'plain ' || p_partkey WHERE p_partkey = 12;
SELECT * FROM irp_reads('irp_ps_level');
SELECT * FROM irp_reads('irp_left');
SELECT * FROM irp_round();
SELECT * FROM irp_same();
-- 7b
UPDATE irp_part SET p_name = 'forest ' || p_partkey WHERE p_partkey IN (13, 14);
UPDATE irp_part SET p_name = 'plain ' || p_partkey WHERE p_partkey IN (10, 15);
INSERT INTO irp_li VALUES (1009, 13, 2, 30.00, 0, '1994-04-04'), (1010, 10, 3, 30.00, 1, '1994-04-05'),
  (1011, 20, 4, 1.00, 0, '1994-04-06');
DELETE FROM irp_li WHERE partkey = 14 AND suppkey = (SELECT min(suppkey) FROM irp_li WHERE partkey = 14);
UPDATE irp_li SET suppkey = 1 + suppkey % 8 WHERE partkey = 11 AND id % 2 = 0;
UPDATE irp_li SET qty = qty + 5 WHERE partkey = 16;
INSERT INTO irp_ps VALUES (13, 2, 100), (14, 8, 1) ON CONFLICT (ps_partkey, ps_suppkey) DO UPDATE SET ps_availqty = EXCLUDED.ps_availqty;
DELETE FROM irp_ps WHERE ps_partkey = 11 AND ps_suppkey = (SELECT max(ps_suppkey) FROM irp_ps WHERE ps_partkey = 11);
UPDATE irp_ps SET ps_availqty = 100 - ps_availqty WHERE ps_partkey IN (13, 10);
-- (the lines of the changed pairs are read as well, now and as they were: no count shown)
SELECT name, mode, verified FROM irp_reads('irp_ps_level');
SELECT name, mode, verified FROM irp_reads('irp_left');
SELECT * FROM irp_round();
SELECT * FROM irp_same();
SELECT * FROM irp_rules();

SELECT dynview.drop_dynamic_table(name) FROM irp_tables ORDER BY name;
DROP TABLE irp_tables, irp_part, irp_supp, irp_ps, irp_li, irp_li1;
DROP FUNCTION irp_rules(), irp_round(), irp_same(), irp_reads(text), dv_refresh_rows(regclass, regproc);
