-- The delta of semi-, anti- and outer joins and of grouped subqueries joined back (TPC-H Q13,
-- Q17, Q20, Q15), as optree.c writes it:
--   - the weights of the other side's delta that match a reached row are summed by one join
--     of the numbered rows with the delta (dv_rid), or, when the condition is equalities of one
--     type, summed per key first and joined to the rows by it (key_sums); never a subquery per
--     row over the delta;
--   - a row's matches are counted up to GREATEST(s, 0) + 1 only (enough to tell whether m and
--     m - s are 0), so the changes here move many matches of one row at once, both ways, and
--     rows of the preserved side are duplicated (no key);
--   - a grouped subquery's groups as they were read the delta of its input for the affected
--     keys only (a WITH entry restricted by the keys);
--   - a source read several times with the same columns copies its shared window as it is.
-- verify() after every refresh.
SET client_min_messages = warning;
CREATE TABLE jd_cust (id int, seg text);   -- no key: duplicated rows on purpose
ALTER TABLE jd_cust REPLICA IDENTITY FULL;
CREATE TABLE jd_ord (id int PRIMARY KEY, cust int, note text, amount numeric(10,2));
ALTER TABLE jd_ord REPLICA IDENTITY FULL;
INSERT INTO jd_cust SELECT n, 'S' || (n % 3) FROM generate_series(1, 30) n;
INSERT INTO jd_cust SELECT n, 'S' || (n % 3) FROM generate_series(1, 30, 7) n;   -- duplicates
INSERT INTO jd_cust VALUES (NULL, 'S0'), (NULL, 'S1');
INSERT INTO jd_ord SELECT n, 1 + n % 25, CASE WHEN n % 9 = 0 THEN 'special requests' ELSE 'plain' END,
                          (n * 13) % 100 + 0.5
  FROM generate_series(1, 300) n;
INSERT INTO jd_ord VALUES (1001, NULL, 'plain', 1), (1002, NULL, 'plain', 2);

CREATE TABLE jd_tables (name text PRIMARY KEY, query text);
INSERT INTO jd_tables VALUES
  -- TPC-H Q13's shape: count per match count over a LEFT JOIN grouped by customer
  ('jd_q13', 'SELECT c, count(*) AS n FROM (SELECT k.id, count(o.id) AS c FROM jd_cust k LEFT JOIN jd_ord o
              ON o.cust = k.id AND o.note NOT LIKE ''%special%'' GROUP BY k.id) x GROUP BY c'),
  -- the LEFT JOIN itself, duplicated rows kept
  ('jd_left', 'SELECT k.id, k.seg, o.id AS oid FROM jd_cust k LEFT JOIN jd_ord o ON o.cust = k.id AND o.amount > 50'),
  -- EXISTS, NOT EXISTS, NOT IN (its NULL semantics: jd_ord has NULL customers)
  ('jd_semi', 'SELECT k.id, k.seg FROM jd_cust k WHERE EXISTS (SELECT FROM jd_ord o WHERE o.cust = k.id AND o.amount > 20)'),
  ('jd_anti', 'SELECT k.id, k.seg FROM jd_cust k WHERE NOT EXISTS (SELECT FROM jd_ord o WHERE o.cust = k.id AND o.amount > 20)'),
  ('jd_notin', 'SELECT k.id, k.seg FROM jd_cust k WHERE k.id NOT IN (SELECT o.cust FROM jd_ord o WHERE o.amount > 90)'),
  -- TPC-H Q17's shape: a correlated average per customer, the partner side filtered by a constant
  ('jd_q17', 'SELECT sum(o.amount) AS s, count(*) AS n FROM jd_ord o, jd_cust k WHERE k.id = o.cust AND k.seg = ''S1''
              AND o.amount < (SELECT 0.8 * avg(o2.amount) FROM jd_ord o2 WHERE o2.cust = k.id)'),
  -- TPC-H Q15's shape: a grouped view read twice (the same columns of jd_ord), joined with its max
  ('jd_q15', 'WITH r AS (SELECT cust, sum(amount) AS total FROM jd_ord WHERE note = ''plain'' GROUP BY cust)
              SELECT k.id, k.seg, r.total FROM jd_cust k, r WHERE k.id = r.cust AND r.total = (SELECT max(total) FROM r)');
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual') IS NOT NULL AS created
  FROM jd_tables ORDER BY name;
SELECT t.name, d.effective_mode FROM jd_tables t JOIN dynview.dynamic_tables d ON d.name = t.name::regclass ORDER BY 1;

-- the delta SQL: matching weights by one join over numbered rows (or, when the condition is
-- equalities of one type, the delta's weights summed per key and joined by it), counts stopped at s + 1,
-- and (without a state: the partner rule of jd_q17) the delta restricted to the affected keys.
-- (jd_q15's and jd_q17's scalar subqueries, made left joins, are compared by a strict "=" / "<"
-- above them: inner joins (reduce_outer_join), without the unmatched-rows terms that number
-- and count)
SELECT t.name,
       strpos(e.value, 'row_number() OVER () AS dv_rid') > 0 AS numbered,
       strpos(e.value, 'HAVING pg_catalog.sum(o.dv_weight) <> 0') > 0 AS summed_by_key,
       strpos(e.value, 'LIMIT GREATEST(k.dv_s, 0) + 1') > 0 AS capped_count,
       e.value ~ 'FROM dv_d[0-9]+ d WHERE \(d\.c[0-9_]+\) OPERATOR\(pg_catalog\.=\) ANY \(SELECT k\.k1' AS keyed_old_rows
  FROM jd_tables t JOIN dynview.explain_dynamic_table(t.name) e ON e.property = 'delta'
 ORDER BY 1;

CREATE FUNCTION jd_round() RETURNS TABLE (name text, mode text, verified bool)
LANGUAGE plpgsql AS $$
DECLARE
  t record;
  r dynview.refresh_history;
BEGIN
  FOR t IN SELECT * FROM jd_tables ORDER BY jd_tables.name LOOP
    r := dynview.refresh(t.name);
    name := t.name; mode := r.refresh_mode;
    verified := dynview.verify(t.name);
    RETURN NEXT;
  END LOOP;
END $$;

-- 1. many matches of one customer leave at once (s well below 0), some customers lose all
DELETE FROM jd_ord WHERE cust IN (3, 4) OR (cust = 5 AND id % 2 = 0);
SELECT * FROM jd_round();
-- 2. many come at once (s well above 0): customers from no match to several, and to one
INSERT INTO jd_ord SELECT 2000 + n, 3 + n % 2, 'plain', 60 + n FROM generate_series(1, 12) n;
INSERT INTO jd_ord VALUES (2100, 26, 'plain', 95), (2101, 27, 'special requests', 99);
SELECT * FROM jd_round();
-- 3. both in one window: moved between customers, amounts across the filters, a NULL customer
UPDATE jd_ord SET cust = CASE WHEN cust = 3 THEN 4 ELSE 3 END WHERE cust IN (3, 4) AND id % 3 = 0;
UPDATE jd_ord SET amount = 100 - amount WHERE cust IN (1, 2, 7);
UPDATE jd_ord SET cust = NULL WHERE id = 2100;
DELETE FROM jd_ord WHERE id = 1001;
SELECT * FROM jd_round();
-- 4. the preserved side changes too: a duplicated customer gains and loses a copy, a new one
INSERT INTO jd_cust VALUES (3, 'S0'), (4, 'S1'), (26, 'S2'), (31, 'S1');
DELETE FROM jd_cust WHERE ctid = (SELECT min(ctid) FROM jd_cust WHERE id = 8);
INSERT INTO jd_ord VALUES (2200, 31, 'plain', 1), (2201, 31, 'plain', 2);
SELECT * FROM jd_round();
-- 5. changes that cancel within the window, a value rewritten as it was, and one real change
UPDATE jd_ord SET note = 'plain' WHERE id = 9;
UPDATE jd_ord SET amount = amount + 1 WHERE cust = 9;
UPDATE jd_ord SET amount = amount - 1 WHERE cust = 9;
UPDATE jd_ord SET amount = amount::numeric(10,1) WHERE cust = 10;
INSERT INTO jd_ord VALUES (3000, 12, 'plain', 7);
DELETE FROM jd_ord WHERE id = 3000;
SELECT * FROM jd_round();
-- 6. every order of every customer goes, then comes back
CREATE TABLE jd_saved AS SELECT * FROM jd_ord;
DELETE FROM jd_ord;
SELECT * FROM jd_round();
INSERT INTO jd_ord SELECT * FROM jd_saved;
SELECT * FROM jd_round();

SELECT c, n FROM jd_q13 ORDER BY c;
SELECT dynview.drop_dynamic_table(name) IS NOT NULL AS dropped FROM jd_tables ORDER BY name;
