-- Which rule a grouped subquery joined on its group key uses (TPC-H Q17): when the join equates
-- its only group key with a column of the other side, and that side's rows are filtered by a
-- comparison of a column with constants (= or IN), it keeps no state: its changed groups that no
-- such row joins are dropped by the partner filter before any is recomputed.  Otherwise
-- (no constant filter, a range, two group keys: TPC-H Q20) it keeps its groups in a state.
-- explain() says which and why; verify() after every refresh.  Also TPC-H Q13's shape (a LEFT
-- JOIN's unmatched rows counted per changed row once).
SET client_min_messages = warning;
CREATE TABLE pr_part (id int PRIMARY KEY, brand text, size int);
ALTER TABLE pr_part REPLICA IDENTITY FULL;
CREATE TABLE pr_li (id int PRIMARY KEY, part int, supp int, qty numeric(10,2));
ALTER TABLE pr_li REPLICA IDENTITY FULL;
INSERT INTO pr_part SELECT n, 'B' || (n % 5), n % 7 FROM generate_series(1, 40) n;
INSERT INTO pr_li SELECT n, 1 + n % 40, n % 3, (n * 7) % 50 + 1 FROM generate_series(1, 800) n;

CREATE TABLE pr_tables (name text PRIMARY KEY, query text);
INSERT INTO pr_tables VALUES
  -- TPC-H Q17's shape: the partner side filtered by equalities with constants
  ('pr_q17', 'SELECT sum(l.qty) AS s, count(*) AS n FROM pr_li l, pr_part p WHERE p.id = l.part AND p.brand = ''B3'' AND p.size = 3
              AND l.qty < (SELECT 0.5 * avg(l2.qty) FROM pr_li l2 WHERE l2.part = p.id)'),
  -- an IN list of constants, the grouped subquery in FROM, a LEFT JOIN
  ('pr_in', 'SELECT p.id, r.s, r.c FROM pr_part p LEFT JOIN (SELECT part, sum(qty) AS s, count(*) AS c FROM pr_li GROUP BY part) r
             ON r.part = p.id WHERE p.brand IN (''B1'', ''B2'')'),
  -- no constant filter: the state
  ('pr_all', 'SELECT p.id FROM pr_part p WHERE p.size < (SELECT avg(l.qty) / 10 FROM pr_li l WHERE l.part = p.id)'),
  -- a range is not a constant filter: the state
  ('pr_range', 'SELECT p.id, r.s FROM pr_part p JOIN (SELECT part, sum(qty) AS s FROM pr_li GROUP BY part) r ON r.part = p.id WHERE p.size > 3'),
  -- two group keys (TPC-H Q20's shape): the partner filter binds the first only: the state
  ('pr_two', 'SELECT p.id, r.supp, r.s FROM pr_part p JOIN (SELECT part, supp, sum(qty) AS s FROM pr_li GROUP BY part, supp) r
              ON r.part = p.id WHERE p.brand = ''B4'''),
  -- TPC-H Q13's shape: count per match count over a LEFT JOIN
  ('pr_q13', 'SELECT c, count(*) AS n FROM (SELECT p.id, count(l.id) AS c FROM pr_part p LEFT JOIN pr_li l ON l.part = p.id AND l.qty > 10 GROUP BY p.id) x GROUP BY c');
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual') IS NOT NULL AS created
  FROM pr_tables ORDER BY name;
SELECT t.name, d.effective_mode FROM pr_tables t JOIN dynview.dynamic_tables d ON d.name = t.name::regclass ORDER BY 1;

-- the rule of each grouped subquery, as explain() gives it, and the state tables (the partner
-- rule's tables keep their filtered parts in a filter state, optree.h)
SELECT t.name,
       (SELECT count(*) FROM regexp_matches(e.value, 'aggregates kept in state', 'g')) AS kept_groups,
       (SELECT count(*) FROM regexp_matches(e.value, 'no state: joined on its group key to rows filtered by constants', 'g')) AS partner_rule,
       (SELECT count(*) FROM pg_class c WHERE c.relnamespace = 'dynview_state'::regnamespace
           AND c.relkind = 'r' AND c.relname LIKE 'ext\_' || t.name::regclass::oid || '\_%') AS state_tables
  FROM pr_tables t JOIN dynview.explain_dynamic_table(t.name) e ON e.property = 'operator tree'
 ORDER BY 1;
SELECT btrim(l) AS q17_subquery
  FROM dynview.explain_dynamic_table('pr_q17') e, regexp_split_to_table(e.value, '\n') l
 WHERE e.property = 'operator tree' AND l LIKE '%subquery%';

\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_rows :abs_srcdir '/sql/include/refresh_rows.sql'
\i :refresh_rows
CREATE FUNCTION pr_round() RETURNS TABLE (name text, mode text, reason text, verified bool, rows bigint)
LANGUAGE sql AS $$ SELECT name, mode, reason, verified, rows FROM dv_refresh_rows('pr_tables') $$;

SELECT * FROM pr_round();
-- 1. lineitems of many parts, few of them of the filtered brand and size
INSERT INTO pr_li SELECT 1000 + n, 1 + n % 40, n % 3, n % 9 + 0.5 FROM generate_series(1, 120) n;
DELETE FROM pr_li WHERE id % 17 = 0;
SELECT * FROM pr_round();
-- 2. a part moves into the filter (its group now joins) and one out of it
UPDATE pr_part SET brand = 'B3', size = 3 WHERE id = 7;
UPDATE pr_part SET brand = 'B0' WHERE id = (SELECT min(id) FROM pr_part WHERE brand = 'B3' AND size = 3 AND id <> 7);
UPDATE pr_li SET qty = qty + 20 WHERE part = 7 AND id % 2 = 0;
SELECT * FROM pr_round();
-- 3. in one window: a filtered part's lineitems all deleted, then some inserted again;
--    a part without lineitems; a part deleted with its lineitems
DELETE FROM pr_li WHERE part = 7;
INSERT INTO pr_li VALUES (5001, 7, 1, 1.00), (5002, 7, 2, 40.00);
INSERT INTO pr_part VALUES (41, 'B3', 3), (42, 'B1', 3);
DELETE FROM pr_li WHERE part = 12;
DELETE FROM pr_part WHERE id = 12;
SELECT * FROM pr_round();
-- 4. only the partner side changes (the grouped subquery's input does not)
UPDATE pr_part SET size = 3 WHERE brand = 'B3';
UPDATE pr_part SET brand = 'B2' WHERE id IN (1, 6);
UPDATE pr_part SET brand = 'B4' WHERE id = 2;  -- (enters pr_two's filter)
SELECT * FROM pr_round();
-- 5. every lineitem's quantity changes
UPDATE pr_li SET qty = qty * 2 WHERE qty < 30;
SELECT * FROM pr_round();
SELECT * FROM pr_q17;
SELECT * FROM pr_q13 ORDER BY c;

SELECT dynview.drop_dynamic_table(name) FROM pr_tables ORDER BY name;
DROP FUNCTION pr_round();
DROP FUNCTION dv_refresh_rows(regclass, regproc);
DROP TABLE pr_tables, pr_li, pr_part;
