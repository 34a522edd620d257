-- A source read more than once by a query (self-join, correlated subquery over the same table,
-- as TPC-H Q17, Q18, Q21) has its window read from its change buffer once per refresh, with the
-- union of the columns its occurrences read; each occurrence is consolidated from that read.
-- It must give exactly what reading the buffer per occurrence gave: weights summed, rows that a
-- later change undid dropped (never evaluated: a division by zero would fail the refresh), an
-- equal value written differently (1.0 -> 1.00) kept as a change, FROM ONLY apart from the same
-- table with its children.  Every refresh is verified.
SET client_min_messages = warning;

CREATE TABLE sw_li (id int PRIMARY KEY, ord int NOT NULL, supp int NOT NULL, qty numeric, price numeric,
                    late boolean NOT NULL DEFAULT false);
INSERT INTO sw_li SELECT g, g / 3, g % 4, g % 5 + 1, (g % 7 + 1) * 1.5, g % 6 = 0 FROM generate_series(1, 60) g;

-- two occurrences with different columns: an order's lines with another supplier's line
SELECT dynview.create_dynamic_table('sw_pairs',
  'SELECT l1.ord, l1.supp, l1.qty, count(*) AS others
     FROM sw_li l1 JOIN sw_li l2 ON l2.ord = l1.ord AND l2.supp <> l1.supp
    GROUP BY l1.ord, l1.supp, l1.qty',
  schedule => 'manual', refresh_mode => 'incremental');
-- three occurrences (as Q21): late lines whose order has another supplier and no other late one
SELECT dynview.create_dynamic_table('sw_q21',
  'SELECT l1.supp, count(*) AS numwait
     FROM sw_li l1
    WHERE l1.late
      AND EXISTS (SELECT 1 FROM sw_li l2 WHERE l2.ord = l1.ord AND l2.supp <> l1.supp)
      AND NOT EXISTS (SELECT 1 FROM sw_li l3 WHERE l3.ord = l1.ord AND l3.supp <> l1.supp AND l3.late)
    GROUP BY l1.supp',
  schedule => 'manual', refresh_mode => 'incremental');
-- a correlated aggregate over the same table (as Q17), with a division evaluated per row
SELECT dynview.create_dynamic_table('sw_q17',
  'SELECT sum(l.price / l.qty) AS unit_sum, count(*) AS n
     FROM sw_li l
    WHERE l.qty < (SELECT 0.9 * avg(l2.qty) FROM sw_li l2 WHERE l2.ord = l.ord)',
  schedule => 'manual', refresh_mode => 'incremental');
SELECT name, effective_mode FROM dynview.dynamic_tables WHERE name::text LIKE 'sw_%' ORDER BY 1;

-- inserts, deletes, updates; a row inserted and deleted again in the window, with qty 0 (the
-- division would fail if it were evaluated); an update to an equal value written differently
BEGIN;
INSERT INTO sw_li VALUES (100, 5, 9, 0, 3.0, true);
DELETE FROM sw_li WHERE id = 100;
COMMIT;
INSERT INTO sw_li VALUES (101, 7, 3, 2, 4.5, true), (102, 7, 1, 3, 1.5, false);
DELETE FROM sw_li WHERE id IN (12, 13);
UPDATE sw_li SET late = NOT late WHERE id IN (21, 22, 30);
UPDATE sw_li SET qty = 2.00 WHERE id = 16;   -- was 2
UPDATE sw_li SET supp = 0 WHERE id = 40;
-- one round: the three tables refreshed in turn, each checked after its refresh
\set sw_round 'SELECT r.table_name, r.refresh_mode, r.mode_reason_code, dynview.verify(t) AS verified FROM unnest(ARRAY[''sw_pairs'', ''sw_q21'', ''sw_q17'']) t, dynview.refresh(t) r'
:sw_round;
SELECT qty FROM sw_pairs WHERE ord = 5 AND supp = 0 ORDER BY 1;

-- the same rows changed back and forth across refreshes (weights +1/-1 of one image summed away)
UPDATE sw_li SET price = price + 1 WHERE ord = 7;
UPDATE sw_li SET price = price - 1 WHERE ord = 7;
INSERT INTO sw_li VALUES (103, 8, 2, 1, 9.0, true);
:sw_round;

-- FROM ONLY and the same table with its children: two windows, each read apart
CREATE TABLE sw_parent (id int PRIMARY KEY, grp int, v int);
CREATE TABLE sw_child () INHERITS (sw_parent);
INSERT INTO sw_parent VALUES (1, 1, 10), (2, 2, 20);
INSERT INTO sw_child VALUES (3, 1, 30);
SELECT dynview.create_dynamic_table('sw_only',
  'SELECT a.grp, a.v AS own_v, b.v AS any_v FROM ONLY sw_parent a JOIN sw_parent b ON b.grp = a.grp',
  schedule => 'manual', refresh_mode => 'incremental');
INSERT INTO sw_child VALUES (4, 2, 40);
INSERT INTO sw_parent VALUES (5, 1, 50);
SELECT table_name, refresh_mode, mode_reason_code FROM dynview.refresh('sw_only');
SELECT dynview.verify('sw_only');
SELECT grp, own_v, any_v FROM sw_only ORDER BY 1, 2, 3;

-- TRUNCATE: the whole refresh is FULL (found as SOURCE_TRUNCATED before any window is read)
TRUNCATE sw_li;
INSERT INTO sw_li VALUES (1, 1, 1, 1, 1.0, true), (2, 1, 2, 2, 2.0, false);
SELECT table_name, refresh_mode, mode_reason_code FROM dynview.refresh('sw_pairs');
SELECT dynview.verify('sw_pairs');
SELECT table_name, refresh_mode, mode_reason_code FROM dynview.refresh('sw_q21');
SELECT dynview.verify('sw_q21');

SELECT dynview.drop_dynamic_table(t) FROM unnest(ARRAY['sw_pairs', 'sw_q21', 'sw_q17', 'sw_only']) t;
DROP TABLE sw_li, sw_child, sw_parent;
