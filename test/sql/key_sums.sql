-- The delta's sums by key (issue 13, TPC-H Q22): a semi-join, anti-join or outer join's pad
-- rows whose condition is only equalities "a = b" (a of the kept side, b of the changed side,
-- one type, its default equality) join the changed side's weights summed per key, instead of
-- numbering the reached rows and joining their sums by that number.  Every refresh here is
-- verified and compared with the query by text and by "=": Q22's shape (NOT EXISTS under a
-- filter and a scalar subquery, grouped), EXISTS and IN by two columns, an expression of the
-- kept side, text keys under a collation, a LEFT JOIN's padded rows, duplicate kept rows, NULL
-- keys on both sides, changes whose weights cancel per key, both sides changed in one window;
-- and the shapes that keep the numbered rows (a cross-type equality, NOT IN, an inequality).
SET client_min_messages = warning;

CREATE TABLE ks_cust (id int PRIMARY KEY, phone text, bal numeric(12,2), name text COLLATE "C", name_d text);
CREATE TABLE ks_ord (ord int PRIMARY KEY, cust int, cust8 bigint, region int, tag text COLLATE "C", amount int);
CREATE TABLE ks_bag (cust int, region int, note text);
CREATE INDEX ON ks_ord (cust);
INSERT INTO ks_cust SELECT i, (10 + i % 20)::text || '-' || i, (i * 37 % 1000) - 100, 'n' || (i % 40), 'n' || (i % 40) FROM generate_series(1, 600) i;
-- customers id % 3 = 0 have no orders, as in TPC-H
INSERT INTO ks_ord SELECT o, c, c, c % 4, 'n' || (c % 40), o % 13
  FROM generate_series(1, 3000) o, LATERAL (SELECT 1 + (o * 7) % 600 AS c) x WHERE c % 3 <> 0;
INSERT INTO ks_bag SELECT i % 50, i % 4, 'b' FROM generate_series(1, 200) i;
INSERT INTO ks_bag VALUES (NULL, 1, 'null cust'), (NULL, NULL, 'both null');
ANALYZE ks_cust, ks_ord, ks_bag;

CREATE TABLE ks_defs (name text PRIMARY KEY, query text NOT NULL, key_sums boolean NOT NULL);
INSERT INTO ks_defs VALUES
  -- Q22's shape
  ('ks_q22', 'SELECT substring(phone from 1 for 2) AS code, count(*) AS n, sum(bal) AS total
                FROM ks_cust c
               WHERE substring(phone from 1 for 2) IN (''13'', ''17'', ''21'', ''25'')
                 AND bal > (SELECT avg(bal) FROM ks_cust WHERE bal > 0 AND substring(phone from 1 for 2) IN (''13'', ''17'', ''21'', ''25''))
                 AND NOT EXISTS (SELECT FROM ks_ord o WHERE o.cust = c.id)
               GROUP BY 1', true),
  -- EXISTS by two columns, the kept side a bag with duplicate and NULL keys
  ('ks_exists2', 'SELECT b.cust, b.region, b.note FROM ks_bag b WHERE EXISTS (SELECT FROM ks_ord o WHERE o.cust = b.cust AND o.region = b.region)', true),
  -- IN, an expression of the kept side
  ('ks_in_expr', 'SELECT c.id, c.bal FROM ks_cust c WHERE c.id + 1 IN (SELECT o.cust FROM ks_ord o WHERE o.amount > 3)', true),
  -- text keys under "C"
  ('ks_text', 'SELECT c.id FROM ks_cust c WHERE NOT EXISTS (SELECT FROM ks_ord o WHERE o.tag = c.name AND o.amount = 12)', true),
  -- text keys of two collations made one by COLLATE on the kept side; on the changed side (its
  -- sums would be of another collation than the kept side's key: numbered rows)
  ('ks_coll_k', 'SELECT c.id FROM ks_cust c WHERE EXISTS (SELECT FROM ks_ord o WHERE c.name_d COLLATE "C" = o.tag AND o.amount = 11)', true),
  ('ks_coll_o', 'SELECT c.id FROM ks_cust c WHERE EXISTS (SELECT FROM ks_ord o WHERE c.name_d = o.tag COLLATE "C" AND o.amount = 11)', false),
  -- a LEFT JOIN's padded rows (only the right side changes)
  ('ks_left', 'SELECT c.id, o.ord FROM ks_cust c LEFT JOIN ks_ord o ON o.cust = c.id AND o.amount = 5 WHERE c.id % 5 = 0', true),
  -- kept as numbered rows: a cross-type equality, NOT IN, an inequality
  ('ks_cross', 'SELECT c.id FROM ks_cust c WHERE NOT EXISTS (SELECT FROM ks_ord o WHERE o.cust8 = c.id)', false),
  ('ks_not_in', 'SELECT c.id FROM ks_cust c WHERE c.id NOT IN (SELECT o.cust FROM ks_ord o WHERE o.amount < 4)', false),
  ('ks_ineq', 'SELECT b.cust, b.note FROM ks_bag b WHERE EXISTS (SELECT FROM ks_ord o WHERE o.cust = b.cust AND o.amount > b.region + 9)', false);

SELECT count(dynview.create_dynamic_table(name, query, schedule => 'manual', refresh_mode => 'incremental'))
  FROM ks_defs;

-- which tables join the delta's sums by key: their delta has no numbered rows
SELECT d.name, d.key_sums, position('dv_rid' IN e.value) = 0 AS sums_by_key
  FROM ks_defs d, dynview.explain_dynamic_table(d.name) e
 WHERE e.property = 'delta' ORDER BY 1;

\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round

-- round 1: the benchmark's change: orders inserted (some for customers without any), orders deleted
INSERT INTO ks_ord SELECT o, c, c, c % 4, 'n' || (c % 40), o % 13
  FROM generate_series(3001, 3080) o, LATERAL (SELECT 1 + (o * 11) % 600 AS c) x;
DELETE FROM ks_ord WHERE ord BETWEEN 100 AND 160;
SELECT * FROM dv_refresh_round('ks_defs');

-- round 2: every order of some customers deleted (they enter NOT EXISTS), orders moved between
-- customers, a change whose weights cancel per key (amount changed, key kept), NULL keys
DELETE FROM ks_ord WHERE cust IN (2, 4, 5, 7);
UPDATE ks_ord SET cust = cust + 1, cust8 = cust8 + 1 WHERE ord BETWEEN 500 AND 520;
UPDATE ks_ord SET amount = (amount + 1) % 13 WHERE ord BETWEEN 600 AND 640;
UPDATE ks_ord SET cust = NULL, tag = NULL WHERE ord BETWEEN 700 AND 705;
INSERT INTO ks_ord VALUES (9001, NULL, NULL, NULL, NULL, 5);
SELECT * FROM dv_refresh_round('ks_defs');

-- round 3: both sides changed in one window: customers and bag rows changed and inserted, with
-- orders for them, an order inserted and deleted again
UPDATE ks_cust SET bal = bal + 500, phone = '13-' || id WHERE id BETWEEN 40 AND 60;
INSERT INTO ks_cust VALUES (601, '13-601', 900, 'n1', 'n1'), (602, '17-602', 800, 'n2', 'n2');
INSERT INTO ks_ord VALUES (9002, 601, 601, 1, 'n1', 12), (9003, 9, 9, 1, 'n9', 4);
INSERT INTO ks_bag VALUES (9, 1, 'new'), (9, 1, 'new'), (602, 2, 'new');
DELETE FROM ks_bag WHERE cust = 10;
INSERT INTO ks_ord VALUES (9004, 12, 12, 0, 'n12', 5);
DELETE FROM ks_ord WHERE ord = 9004;
SELECT * FROM dv_refresh_round('ks_defs');

SELECT count(dynview.drop_dynamic_table(name)) FROM ks_defs;
DROP FUNCTION dv_refresh_round(regclass);
DROP TABLE ks_defs, ks_cust, ks_ord, ks_bag;
