-- The index-recompute rule of grouped subqueries (src/analyze/grouprule.c): a grouped subquery
-- that could keep its groups in a state, over one table whose index leads with its first group
-- key, with at most 8 rows per key value by the statistics, keeps no state and recomputes its
-- affected groups through the index (TPC-H Q18's IN over lineitem GROUP BY l_orderkey HAVING).
-- One without such an index keeps its state (HAVING over the state's rows, the state replaced
-- before the statements read it).  Groups appearing, HAVING crossing its threshold, deletes
-- emptying a group, NULL keys; the index dropped after creation (the next refresh is FULL,
-- STATE_MISSING, and builds the state), created again (the state is kept until a FULL refresh
-- that builds the states decides again), the statistics growing past the rule's bound.
-- verify() after every refresh.  The tables do not autovacuum: their statistics are the
-- ANALYZEs below, so the rule chosen is deterministic.
SET client_min_messages = warning;
CREATE TABLE ir_o (k int PRIMARY KEY, name text) WITH (autovacuum_enabled = false);
ALTER TABLE ir_o REPLICA IDENTITY FULL;
-- three lines per order key, primary key (k, line): k leads it
CREATE TABLE ir_li (k int, line int, g int, v numeric(10,2), PRIMARY KEY (k, line)) WITH (autovacuum_enabled = false);
ALTER TABLE ir_li REPLICA IDENTITY FULL;
-- a nullable key with an index of its own, four rows per key (and four NULLs); another, m,
-- indexed too, whose NULL group holds half the rows
CREATE TABLE ir_n (id int PRIMARY KEY, k int, v numeric(10,2), m int) WITH (autovacuum_enabled = false);
ALTER TABLE ir_n REPLICA IDENTITY FULL;
CREATE INDEX ir_n_k ON ir_n (k);
CREATE INDEX ir_n_m ON ir_n (m);
INSERT INTO ir_o SELECT k, 'order ' || k FROM generate_series(1, 40) k;
INSERT INTO ir_li SELECT k, line, k % 5, (k * 7 + line * 3) % 11 + 0.25 FROM generate_series(1, 40) k, generate_series(1, 3) line;
INSERT INTO ir_n SELECT n, CASE WHEN n % 25 = 0 THEN NULL ELSE n % 24 END, n % 7 + 0.5,
                         CASE WHEN n % 2 = 0 THEN NULL ELSE n % 30 END FROM generate_series(1, 100) n;
ANALYZE ir_o, ir_li, ir_n;

CREATE TABLE ir_tables (name text PRIMARY KEY, query text);
INSERT INTO ir_tables VALUES
  -- TPC-H Q18's shape: IN over a grouped subquery with HAVING, keyed by the primary key's first column
  ('ir_in', 'SELECT o.k, o.name FROM ir_o o WHERE o.k IN (SELECT k FROM ir_li GROUP BY k HAVING sum(v) > 18)'),
  -- a grouped subquery joined by its key, HAVING on a count
  ('ir_join', 'SELECT o.name, r.k, r.total, r.n FROM ir_o o JOIN (SELECT k, sum(v) AS total, count(*) AS n FROM ir_li GROUP BY k HAVING count(*) > 1) r ON r.k = o.k'),
  -- grouped by a column no index leads: the state is kept (HAVING over its rows)
  ('ir_state', 'SELECT o.k, o.name FROM ir_o o WHERE o.k IN (SELECT g FROM ir_li GROUP BY g HAVING sum(v) > 50)'),
  -- a nullable key with an index of its own, on the preserved side of a LEFT JOIN
  ('ir_null', 'SELECT x.k, x.c, x.s, t.name FROM (SELECT k, count(*) AS c, sum(v) AS s FROM ir_n GROUP BY k) x LEFT JOIN ir_o t ON t.k = x.k'),
  -- an indexed key whose NULL group is half the rows (50 > 8): the state is kept
  ('ir_nullheavy', 'SELECT x.m, x.c, t.name FROM (SELECT m, count(*) AS c FROM ir_n GROUP BY m) x LEFT JOIN ir_o t ON t.k = x.m');
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual') IS NOT NULL AS created
  FROM ir_tables ORDER BY name;

-- the rule of each grouped subquery (explain_dynamic_table), and the state tables
CREATE FUNCTION ir_rules() RETURNS TABLE (name text, mode text, by_index bigint, kept_in_state bigint, state_tables bigint)
LANGUAGE sql AS $$
SELECT t.name, d.effective_mode,
       (SELECT count(*) FROM regexp_matches(e.value, 'no state: its first group key', 'g')),
       (SELECT count(*) FROM regexp_matches(e.value, 'aggregates kept in state', 'g')),
       (SELECT count(*) FROM pg_class c WHERE c.relnamespace = 'dynview_state'::regnamespace
           AND c.relkind = 'r' AND c.relname LIKE 'ext\_' || t.name::regclass::oid || '\_%')
  FROM ir_tables t JOIN dynview.dynamic_tables d ON d.name = t.name::regclass
  JOIN dynview.explain_dynamic_table(t.name) e ON e.property = 'operator tree'
 ORDER BY 1
$$;
SELECT * FROM ir_rules();
-- what explain() says of the rule (the estimate: 120 rows, 40 values of k)
SELECT substring(value FROM 'subquery dv_in \(GROUP BY k, no state: [^)]*\)')
  FROM dynview.explain_dynamic_table('ir_in') WHERE property = 'operator tree';

\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_rows :abs_srcdir '/sql/include/refresh_rows.sql'
\i :refresh_rows
CREATE FUNCTION ir_round() RETURNS TABLE (name text, mode text, reason text, verified bool, rows bigint)
LANGUAGE sql AS $$ SELECT name, mode, reason, verified, rows FROM dv_refresh_rows('ir_tables') $$;
SELECT * FROM ir_round();

-- 1. groups appear: a new order with lines over the threshold, lines of a key no order has, a
--    new key of ir_n; an order whose lines arrive in the same window
INSERT INTO ir_o VALUES (41, 'order 41'), (42, 'order 42');
INSERT INTO ir_li VALUES (41, 1, 1, 9.50), (41, 2, 1, 9.75), (43, 1, 3, 30.00), (43, 2, 3, 1.00);
INSERT INTO ir_n VALUES (101, 30, 2.25, 1), (102, 30, 1.25, NULL);
SELECT * FROM ir_round();
SELECT * FROM ir_in WHERE k > 40 ORDER BY k;
SELECT k, total, n FROM ir_join WHERE k > 40 ORDER BY k;
-- 2. HAVING crosses its thresholds both ways: a key's sum over 18 and another's under it, a key
--    left with one line (count(*) > 1 fails), a key's lines moved to another group g
SELECT k, sum(v) FROM ir_li WHERE k IN (1, 2, 3) GROUP BY k ORDER BY k;
UPDATE ir_li SET v = v + 10 WHERE k = (SELECT min(k) FROM ir_li GROUP BY k HAVING sum(v) <= 18 ORDER BY 1 LIMIT 1) AND line = 1;
UPDATE ir_li SET v = 0 WHERE k = (SELECT min(k) FROM ir_li GROUP BY k HAVING sum(v) > 18 ORDER BY 1 LIMIT 1);
DELETE FROM ir_li WHERE k = 7 AND line > 1;
UPDATE ir_li SET g = 4 WHERE g = 1;
SELECT * FROM ir_round();
SELECT k, total, n FROM ir_join WHERE k = 7;
-- 3. deletes emptying groups: every line of k 5, every ir_n row of k 3; a row moved to another key
DELETE FROM ir_li WHERE k = 5;
DELETE FROM ir_n WHERE k = 3;
UPDATE ir_n SET k = 4 WHERE id = 5;
SELECT * FROM ir_round();
SELECT count(*) FILTER (WHERE k = 5) AS k5_in, (SELECT count(*) FROM ir_join WHERE k = 5) AS k5_join,
       (SELECT count(*) FROM ir_null WHERE k = 3) AS k3_null FROM ir_in;
-- 4. NULL keys: rows added to the NULL group, one moved out of it, the NULL group emptied
INSERT INTO ir_n VALUES (103, NULL, 7.00, NULL), (104, NULL, 0.50, 3);
UPDATE ir_n SET k = 8, m = 5 WHERE id = 25;
SELECT * FROM ir_round();
SELECT k, c, s FROM ir_null WHERE k IS NULL;
DELETE FROM ir_n WHERE k IS NULL;
SELECT * FROM ir_round();
SELECT count(*) AS null_groups FROM ir_null WHERE k IS NULL;

-- 5. the index dropped: no index serves ir_null's subquery any more; its next refresh is FULL
--    (STATE_MISSING) and builds its state, which the refreshes after it keep
DROP INDEX ir_n_k;
INSERT INTO ir_n VALUES (105, 11, 3.00, 11);
SELECT * FROM ir_round();
SELECT * FROM ir_rules() WHERE name = 'ir_null';
UPDATE ir_n SET v = v + 1 WHERE k = 11;
INSERT INTO ir_n VALUES (106, NULL, 1.00, NULL);
SELECT * FROM ir_round();
-- 6. the index back: the state is kept (it exists, and is exact) until a FULL refresh builds the
--    states again and chooses the index (here: mode 'full' and back to 'auto')
CREATE INDEX ir_n_k ON ir_n (k);
DELETE FROM ir_n WHERE id = 106;
SELECT * FROM ir_round();
SELECT * FROM ir_rules() WHERE name = 'ir_null';
SELECT dynview.alter_dynamic_table('ir_null', refresh_mode => 'full');
INSERT INTO ir_n VALUES (106, 13, 2.00, 13);
SELECT refresh_mode, dynview.verify('ir_null') FROM dynview.refresh('ir_null');
SELECT dynview.alter_dynamic_table('ir_null', refresh_mode => 'auto');
INSERT INTO ir_n VALUES (107, 12, 4.00, NULL);
SELECT * FROM ir_round();
SELECT * FROM ir_rules() WHERE name = 'ir_null';
-- 7. the statistics grow past the rule's bound (more than 32 rows per key value): the next
--    refresh is FULL (STATE_MISSING) and keeps a state from then on
INSERT INTO ir_n SELECT 1000 + n, n % 20, 1, NULL FROM generate_series(1, 1000) n;
ANALYZE ir_n;
SELECT * FROM ir_round();
SELECT * FROM ir_rules() WHERE name = 'ir_null';
DELETE FROM ir_n WHERE id > 1000 AND id % 3 = 0;
SELECT * FROM ir_round();
SELECT * FROM ir_rules();

SELECT dynview.drop_dynamic_table(name) FROM ir_tables ORDER BY name;
DROP TABLE ir_tables, ir_o, ir_li, ir_n;
DROP FUNCTION ir_rules(), ir_round(), dv_refresh_rows(regclass, regproc);
