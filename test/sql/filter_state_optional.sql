-- Optional filter states (analyze/optree.h DvOp state_optional): a side of an inner join that is
-- a selective filter over a scan (an equality with constants on a column or on an immutable
-- expression of it, or an OR each of whose arms has one: TPC-H Q19's part-only disjunction
-- implied by its OR of conjunct groups, Q22's substring(c_phone from 1 for 2) IN (...)) keeps its
-- rows in dynview_state.ext_<table oid>_<1000 + n> when the statistics say the filter keeps at
-- most 100,000 rows and a tenth of its source; indexed on the source's primary key's first
-- column, by which a window's rows are replaced and a read restricted to a delta's keys probes
-- it.  A filter keeping more rows gets none (explain() says so) and its source is read as
-- before.  Rounds: the other side only; the filtered sources' rows moved into and out of the
-- filter, keys changed (a numeric key changed to an equal value of another text, 1 -> 1.00),
-- NULLs; both sides in one transaction; a change undone in one window; a FULL refresh.  Every
-- refresh verified and compared with the query by text and by "=", and each state compared with
-- its filter over the source by text.
SET client_min_messages = warning;

CREATE TABLE fo_part (id int PRIMARY KEY, brand text, cont text, size int);
CREATE TABLE fo_li (id int PRIMARY KEY, part int, qty numeric(10, 2) NOT NULL, price numeric(10, 2));
CREATE INDEX ON fo_li (part);
CREATE TABLE fo_cust (key numeric PRIMARY KEY, phone char(15), bal numeric(12, 2));
CREATE TABLE fo_ord (id int PRIMARY KEY, cust numeric);
CREATE INDEX ON fo_ord (cust);
INSERT INTO fo_part SELECT n, 'B' || n % 25, CASE WHEN n % 97 = 0 THEN NULL ELSE 'C' || n % 40 END, 1 + n % 50
  FROM generate_series(1, 20000) n;
INSERT INTO fo_li SELECT i, CASE WHEN i % 101 = 0 THEN NULL ELSE 1 + (i * 7919) % 20000 END, 1 + i % 40, (i * 31) % 1000 / 10.0
  FROM generate_series(1, 20000) i;
INSERT INTO fo_cust SELECT n, CASE WHEN n % 89 = 0 THEN NULL ELSE (10 + n % 25)::text || '-' || lpad(n::text, 9, '0') END,
                           (n * 37) % 2000 - 500
  FROM generate_series(1, 20000) n;
INSERT INTO fo_ord SELECT i, 1 + (i * 13) % 20000 FROM generate_series(1, 12000) i;
ANALYZE fo_part, fo_li, fo_cust, fo_ord;

CREATE TABLE fo_defs (name text PRIMARY KEY, query text NOT NULL);
INSERT INTO fo_defs VALUES
  -- TPC-H Q19's shape: an OR of conjunct groups over both sides
  ('fo_q19', 'SELECT sum(l.price * (1 - 0.1)) AS revenue, count(*) AS n FROM fo_li l, fo_part p
              WHERE (p.id = l.part AND p.brand = ''B12'' AND p.cont IN (''C1'', ''C2'', ''C7'') AND l.qty BETWEEN 1 AND 21
                     AND p.size BETWEEN 1 AND 30)
                 OR (p.id = l.part AND p.brand = ''B23'' AND p.cont IN (''C3'', ''C8'') AND l.qty BETWEEN 10 AND 40
                     AND p.size BETWEEN 1 AND 45)'),
  -- its rows: each lineitem with its part's size
  ('fo_q19_rows', 'SELECT l.id, l.qty, p.id AS pid, p.size FROM fo_li l JOIN fo_part p ON p.id = l.part
                   WHERE (p.brand = ''B12'' AND p.cont IN (''C2'', ''C7'')) OR (p.brand = ''B23'' AND p.cont = ''C8'')'),
  -- TPC-H Q22's shape: the constant part filters the scan, the rest is a join to a scalar
  -- subquery and an anti-join
  ('fo_q22', 'SELECT substring(c.phone from 1 for 2) AS cc, count(*) AS n, sum(c.bal) AS total FROM fo_cust c
              WHERE substring(c.phone from 1 for 2) IN (''13'', ''31'', ''23'')
                AND c.bal > (SELECT avg(c2.bal) FROM fo_cust c2
                              WHERE c2.bal > 0 AND substring(c2.phone from 1 for 2) IN (''13'', ''31'', ''23''))
                AND NOT EXISTS (SELECT FROM fo_ord o WHERE o.cust = c.key)
              GROUP BY 1'),
  -- the customers' rows with their orders: the keys' text shown (numeric: 1 and 1.00 are equal)
  ('fo_q22_keys', 'SELECT c.key, c.phone, o.id FROM fo_cust c JOIN fo_ord o ON o.cust = c.key
                   WHERE substring(c.phone from 1 for 2) IN (''13'', ''31'')'),
  -- a filter keeping a quarter of its source: no state
  ('fo_wide', 'SELECT l.id, p.size FROM fo_li l JOIN fo_part p ON p.id = l.part
               WHERE p.cont IN (''C0'', ''C1'', ''C2'', ''C3'', ''C4'', ''C5'', ''C6'', ''C7'', ''C8'', ''C9'')');
SELECT count(dynview.create_dynamic_table(name, query, schedule => 'manual', refresh_mode => 'incremental'))
  FROM fo_defs;
SELECT j.name, d.effective_mode FROM dynview.dynamic_tables d JOIN fo_defs j ON d.name = j.name::regclass ORDER BY 1;

-- explain() on the filters: a state where the filter keeps few rows, none where it keeps many
SELECT j.name, substring(btrim(e.line) from '(state dynview_state.*|no state "ext.*)$') AS line
  FROM fo_defs j, LATERAL dynview.explain_dynamic_table(j.name) x,
       LATERAL regexp_split_to_table(x.value, E'\n') e(line)
 WHERE x.property = 'operator tree' AND btrim(e.line) ~ '^filter .*(state dynview_state|no state "ext)' ORDER BY 1, 2;

-- each state (a table of its own, with an index on the key) holds the rows its filter keeps
CREATE FUNCTION fo_states() RETURNS TABLE (name text, states bigint, indexes bigint, state_rows bigint, filter_rows bigint, same boolean)
LANGUAGE plpgsql AS $$
DECLARE r record; st regclass; q text;
BEGIN
  FOR r IN SELECT * FROM (VALUES
      ('fo_q19', 'SELECT id, brand, cont, size FROM fo_part WHERE (brand = ''B12'' AND cont IN (''C1'', ''C2'', ''C7'') AND size <= 30)
                    OR (brand = ''B23'' AND cont IN (''C3'', ''C8'') AND size <= 45)', 'AND size >= 1'),
      ('fo_q19_rows', 'SELECT id, brand, cont, size FROM fo_part WHERE (brand = ''B12'' AND cont IN (''C2'', ''C7'')) OR (brand = ''B23'' AND cont = ''C8'')', ''),
      ('fo_q22', 'SELECT key, phone, bal FROM fo_cust WHERE substring(phone from 1 for 2) IN (''13'', ''31'', ''23'')', ''),
      ('fo_q22_keys', 'SELECT key, phone FROM fo_cust WHERE substring(phone from 1 for 2) IN (''13'', ''31'')', '')) v(n, q, extra) LOOP
    name := r.n;
    q := CASE WHEN r.extra = '' THEN r.q ELSE format('SELECT * FROM (%s) f WHERE true %s', r.q, r.extra) END;
    SELECT count(*) FILTER (WHERE c.relkind = 'r'), count(*) FILTER (WHERE c.relkind = 'i'),
           min(c.oid) FILTER (WHERE c.relkind = 'r' AND c.relname LIKE '%\_10__')
      INTO states, indexes, st
      FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace
     WHERE s.nspname = 'dynview_state' AND c.relname LIKE 'ext\_' || r.n::regclass::oid || '\_%';
    EXECUTE format('SELECT count(*) FROM %s', st) INTO state_rows;
    EXECUTE format('SELECT count(*) FROM (%s) f', q) INTO filter_rows;
    EXECUTE format('SELECT NOT EXISTS ((SELECT x::text FROM %s x EXCEPT ALL SELECT f::text FROM (%s) f)
                                        UNION ALL (SELECT f::text FROM (%s) f EXCEPT ALL SELECT x::text FROM %s x))',
                   st, q, q, st) INTO same;
    RETURN NEXT;
  END LOOP;
END $$;
SELECT * FROM fo_states();
-- fo_wide keeps no state table
SELECT count(*) AS fo_wide_states FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace
 WHERE s.nspname = 'dynview_state' AND c.relname LIKE 'ext\_' || 'fo_wide'::regclass::oid || '\_%';

\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round

-- round 1: the other sides only: lineitems inserted (a NULL part, one that does not exist),
-- deleted and moved; orders inserted, deleted and moved (the customers read by their keys)
INSERT INTO fo_li SELECT 100000 + i, CASE WHEN i % 300 = 7 THEN NULL WHEN i % 300 = 11 THEN 99999 ELSE 12 + 25 * (i % 700) END,
                         1 + i % 40, i % 500 / 10.0
  FROM generate_series(1, 1500) i;
DELETE FROM fo_li WHERE id BETWEEN 1000 AND 1099;
UPDATE fo_li SET part = 23 + 25 * (id % 500) WHERE id BETWEEN 2000 AND 2040;
INSERT INTO fo_ord SELECT 100000 + i, 3 + 25 * (i % 800) FROM generate_series(1, 900) i;
DELETE FROM fo_ord WHERE id BETWEEN 500 AND 800;
UPDATE fo_ord SET cust = cust + 1 WHERE id BETWEEN 900 AND 950;
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('fo_defs');
SELECT * FROM fo_states();

-- round 2: the filtered sources only: parts inserted into the filter and outside it, deleted
-- from it, moved into and out of it (brand, container, size), keys changed in it, into it and out
-- of it, a NULL container; customers' phones moved into and out of the filter, balances changed,
-- a NULL phone, keys changed (one to an equal value of another text)
INSERT INTO fo_part VALUES (30001, 'B12', 'C2', 5), (30002, 'B23', 'C8', 40), (30003, 'B12', 'C3', 5), (30004, 'B23', 'C8', 46);
INSERT INTO fo_li SELECT 200000 + i, 30001 + i % 4, 1 + i % 40, i % 100 FROM generate_series(1, 40) i;
DELETE FROM fo_part WHERE id IN (SELECT id FROM fo_part WHERE brand = 'B12' AND cont = 'C2' ORDER BY id LIMIT 2);
UPDATE fo_part SET brand = 'B12', cont = 'C7' WHERE id IN (11, 15, 18);
UPDATE fo_part SET brand = 'B11' WHERE id IN (SELECT id FROM fo_part WHERE brand = 'B23' AND cont = 'C8' ORDER BY id DESC LIMIT 2);
UPDATE fo_part SET size = 31 WHERE id IN (SELECT id FROM fo_part WHERE brand = 'B12' AND cont = 'C7' AND size < 30 ORDER BY id LIMIT 3);
UPDATE fo_part SET id = 40001 WHERE id = (SELECT min(id) FROM fo_part WHERE brand = 'B12' AND cont = 'C2' AND id > 100);
UPDATE fo_part SET id = 40002, brand = 'B23', cont = 'C3' WHERE id = 19;
UPDATE fo_part SET id = 40003, brand = 'B6' WHERE id = (SELECT min(id) FROM fo_part WHERE brand = 'B23' AND cont = 'C8' AND id > 1000);
UPDATE fo_part SET cont = NULL WHERE id = (SELECT min(id) FROM fo_part WHERE brand = 'B12' AND cont = 'C7' AND id > 2000);
INSERT INTO fo_ord VALUES (250001, 1), (250002, 3);
UPDATE fo_cust SET phone = '13-000000001' WHERE key IN (1, 2, 5);
UPDATE fo_cust SET phone = '44-000000002' WHERE key IN (SELECT key FROM fo_cust WHERE phone LIKE '31-%' ORDER BY key LIMIT 3);
UPDATE fo_cust SET bal = bal + 900 WHERE key IN (SELECT key FROM fo_cust WHERE phone LIKE '23-%' ORDER BY key LIMIT 20);
UPDATE fo_cust SET phone = NULL WHERE key = (SELECT min(key) FROM fo_cust WHERE phone LIKE '13-%' AND key > 100);
UPDATE fo_cust SET key = 1.00 WHERE key = 1;
UPDATE fo_cust SET key = 3.0 WHERE key = 3;
UPDATE fo_cust SET key = 50003 WHERE key = (SELECT min(key) FROM fo_cust WHERE phone LIKE '31-%' AND key > 500);
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('fo_defs');
SELECT * FROM fo_states();
SELECT key::text, count(*) FROM fo_q22_keys WHERE key IN (1, 3) GROUP BY 1 ORDER BY 1;

-- round 3: both sides in one transaction, then in two; a change undone in the same window
BEGIN;
UPDATE fo_part SET brand = 'B23', cont = 'C8' WHERE id IN (21, 22);
INSERT INTO fo_li SELECT 300000 + i, 21 + i % 2, 15, 10 FROM generate_series(1, 10) i;
UPDATE fo_cust SET phone = '31-000000003' WHERE key IN (7, 8);
INSERT INTO fo_ord VALUES (300001, 7), (300002, 8);
DELETE FROM fo_ord WHERE cust IN (SELECT key FROM fo_cust WHERE phone LIKE '13-%' ORDER BY key LIMIT 5);
COMMIT;
UPDATE fo_part SET brand = 'B12', cont = 'C2' WHERE id = 24;
INSERT INTO fo_li VALUES (300100, 24, 5, 5);
UPDATE fo_part SET brand = 'B1' WHERE id = 24;
UPDATE fo_part SET brand = 'B12' WHERE id = 24;
UPDATE fo_cust SET phone = '23-000000004' WHERE key = 9;
UPDATE fo_cust SET phone = '99-000000004' WHERE key = 9;
UPDATE fo_cust SET key = 1 WHERE key = 1;
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('fo_defs');
SELECT * FROM fo_states();

-- round 4: refreshed FULL (refresh_mode full: no states kept), then incremental again: the
-- states are built by a FULL refresh (STATE_MISSING), the same rows
SELECT count(dynview.alter_dynamic_table(name, refresh_mode => 'full')) FROM fo_defs;
UPDATE fo_part SET size = size WHERE id = 11;
UPDATE fo_cust SET bal = bal WHERE key = 2;
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('fo_defs');
SELECT count(dynview.alter_dynamic_table(name, refresh_mode => 'incremental')) FROM fo_defs;
UPDATE fo_part SET brand = 'B23', cont = 'C3' WHERE id = 26;
UPDATE fo_cust SET phone = '13-000000005' WHERE key = 10;
INSERT INTO fo_ord VALUES (400001, 10);
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('fo_defs');
SELECT * FROM fo_states();

-- dropping the tables drops their states
CREATE TEMP TABLE fo_state_names AS
SELECT c.relname FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace, fo_defs j
 WHERE s.nspname = 'dynview_state' AND c.relname LIKE 'ext\_' || j.name::regclass::oid || '\_%';
SELECT count(*) > 0 AS had_states FROM fo_state_names;
SELECT count(dynview.drop_dynamic_table(name)) FROM fo_defs;
SELECT count(*) AS states_left FROM pg_class c JOIN fo_state_names f ON f.relname = c.relname;
DROP FUNCTION fo_states();
DROP FUNCTION dv_refresh_round(regclass);
DROP TABLE fo_defs, fo_li, fo_part, fo_cust, fo_ord;
