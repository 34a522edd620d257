-- A term that joins a large scan's rows now with the delta of a join below it, where the inner
-- joins above imply a filter on that scan (implied_restrict's fence, regress implied_fence), reads
-- the scan instead by the keys the delta carries, "v = ANY (ARRAY(SELECT x FROM <the delta of the
-- join below where x comes from>))", when reading it by their distinct values in key order is
-- cheaper (optree.c implied_keys, delta_keys_source: TPC-H Q8's customer, joined to the changed
-- lineitems' orders, read by the ~1,350 keys of those orders, not whole for AMERICA's nations).
-- The keys come from the WITH entry of the join that brings x in (lines joined to orders), passed
-- up unchanged by the joins above it whose other side has no delta (ik_p); when that other side
-- changes too, the fence is kept.  Each round first refreshes the tables in a subtransaction
-- rolled back and reports how "ik_c" was read (pg_stat_get_xact_numscans of its indexes,
-- pg_stat_xact_user_tables: by its nation index, by its key, whole), then refreshes them for
-- good, every refresh compared with its query (dynview.verify(), and the rows by text and by =);
-- rounds change the lines alone, the orders alone (their customer too, and to NULL), both, and
-- the table between.
SET client_min_messages = warning;
\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round

CREATE TABLE ik_r (rk int PRIMARY KEY, name text);
CREATE TABLE ik_n (nk int PRIMARY KEY, rk int, name text);
CREATE TABLE ik_c (ck int PRIMARY KEY, nk int, pad text) WITH (fillfactor = 10);
CREATE INDEX ik_c_nk ON ik_c (nk);
CREATE TABLE ik_o (ok int PRIMARY KEY, ck int, yr int);
CREATE TABLE ik_p (pk int PRIMARY KEY, kind text);
CREATE TABLE ik_l (ok int, ln int, pk int, amt numeric(10, 2), PRIMARY KEY (ok, ln));
INSERT INTO ik_r VALUES (0, 'AFRICA'), (1, 'AMERICA'), (2, 'ASIA'), (3, 'EUROPE'), (4, 'MIDDLE EAST');
INSERT INTO ik_n SELECT i, i % 5, 'N' || i FROM generate_series(0, 24) i;
INSERT INTO ik_c SELECT i, CASE WHEN i % 997 = 0 THEN NULL ELSE i % 25 END, repeat('x', 300)
  FROM generate_series(1, 15000) i;
INSERT INTO ik_o SELECT i, 1 + (i * 7) % 15000, 1990 + i % 7 FROM generate_series(1, 12000) i;
INSERT INTO ik_p SELECT i, CASE WHEN i % 3 = 0 THEN 'steel' ELSE 'brass' END FROM generate_series(1, 500) i;
INSERT INTO ik_l SELECT o, l, 1 + (o * 3 + l) % 500, ((o + l) % 900) / 10.0
  FROM generate_series(1, 12000) o, generate_series(1, 4) l;
ANALYZE ik_r, ik_n, ik_c, ik_o, ik_p, ik_l;
-- (the rule needs ik_c larger than a quarter of shared_buffers)
SELECT (pg_relation_size('ik_c') + pg_indexes_size('ik_c')) / current_setting('block_size')::int
       > pg_size_bytes(current_setting('shared_buffers')) / current_setting('block_size')::int / 4
       AS ik_c_not_resident;

-- how a refresh of t (rolled back) read ik_c: "nation index", "key", "whole"
CREATE FUNCTION ik_customer_read(t text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  n0 bigint := pg_stat_get_xact_numscans('ik_c_nk'::regclass);
  k0 bigint := pg_stat_get_xact_numscans('ik_c_pkey'::regclass);
  s0 bigint := COALESCE((SELECT seq_scan FROM pg_stat_xact_user_tables WHERE relid = 'ik_c'::regclass), 0);
  n bigint;
  k bigint;
  s bigint;
BEGIN
  BEGIN
    PERFORM dynview.refresh(t);
    n := pg_stat_get_xact_numscans('ik_c_nk'::regclass);
    k := pg_stat_get_xact_numscans('ik_c_pkey'::regclass);
    s := COALESCE((SELECT seq_scan FROM pg_stat_xact_user_tables WHERE relid = 'ik_c'::regclass), 0);
    RAISE EXCEPTION USING ERRCODE = 'P0001', MESSAGE = 'ik: roll back';
  EXCEPTION WHEN SQLSTATE 'P0001' THEN
    RETURN concat_ws(' and ', CASE WHEN n > n0 THEN 'nation index' END, CASE WHEN k > k0 THEN 'key' END,
                     CASE WHEN s > s0 THEN 'whole' END);
  END;
END $$;

CREATE TABLE ik_defs (name text, query text);
INSERT INTO ik_defs VALUES
  -- Q8's shape: the year's sums over the lines of AMERICA's customers
  ('ik_sum', $$SELECT o.yr, count(*) AS n, sum(l.amt) AS amt FROM ik_l l, ik_o o, ik_c c, ik_n n, ik_r r
               WHERE l.ok = o.ok AND o.ck = c.ck AND c.nk = n.nk AND n.rk = r.rk AND r.name = 'AMERICA'
               GROUP BY o.yr$$),
  -- rows, with a join between (ik_p, unchanged but in the last round) and a filter on the orders
  ('ik_rows', $$SELECT l.ok, l.ln, p.kind, c.ck, n.name FROM ik_l l, ik_o o, ik_p p, ik_c c, ik_n n, ik_r r
                WHERE l.ok = o.ok AND l.pk = p.pk AND o.ck = c.ck AND c.nk = n.nk AND n.rk = r.rk
                  AND r.name = 'AMERICA' AND o.yr BETWEEN 1992 AND 1995$$);
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual', refresh_mode => 'incremental') IS NOT NULL AS created
  FROM ik_defs ORDER BY name;

-- 1,000 new orders with their lines, 1,000 deleted with theirs: read by the orders' customers
INSERT INTO ik_o SELECT i, 1 + (i * 13) % 15000, 1990 + i % 7 FROM generate_series(12001, 13000) i;
INSERT INTO ik_l SELECT o, l, 1 + (o * 5 + l) % 500, ((o * l) % 700) / 10.0
  FROM generate_series(12001, 13000) o, generate_series(1, 4) l;
DELETE FROM ik_l WHERE ok BETWEEN 1 AND 1000;
DELETE FROM ik_o WHERE ok BETWEEN 1 AND 1000;
SELECT name, ik_customer_read(name) AS customer_read FROM ik_defs ORDER BY name;
SELECT * FROM dv_refresh_round('ik_defs');
-- lines alone (of 2,000 orders, their customers unchanged)
INSERT INTO ik_l SELECT o, 5, 1 + o % 500, 1.25 FROM generate_series(2001, 4000) o;
DELETE FROM ik_l WHERE ok BETWEEN 4001 AND 5000 AND ln = 1;
SELECT name, ik_customer_read(name) AS customer_read FROM ik_defs ORDER BY name;
SELECT * FROM dv_refresh_round('ik_defs');
-- orders alone: 2,000 moved to other customers, 40 to none, years changed across the filter
UPDATE ik_o SET ck = 1 + (ok * 11) % 15000 WHERE ok BETWEEN 5001 AND 7000;
UPDATE ik_o SET ck = NULL WHERE ok BETWEEN 7001 AND 7040;
UPDATE ik_o SET yr = CASE WHEN yr = 1995 THEN 1996 ELSE 1993 END WHERE ok BETWEEN 7041 AND 8000;
SELECT name, ik_customer_read(name) AS customer_read FROM ik_defs ORDER BY name;
SELECT * FROM dv_refresh_round('ik_defs');
-- both, and the customers' nations (the scan itself) changed
UPDATE ik_o SET ck = 1 + (ok * 3) % 15000 WHERE ok BETWEEN 8001 AND 9500;
UPDATE ik_l SET amt = amt + 1 WHERE ok BETWEEN 9001 AND 10000;
UPDATE ik_c SET nk = CASE WHEN ck % 3 = 0 THEN NULL ELSE (nk + 1) % 25 END WHERE ck BETWEEN 100 AND 400;
SELECT name, ik_customer_read(name) AS customer_read FROM ik_defs ORDER BY name;
SELECT * FROM dv_refresh_round('ik_defs');
-- the table between changed too (ik_rows: its lines' customers are no longer those of the join
-- below alone: the fence, as before) with many lines
UPDATE ik_p SET kind = 'steel' WHERE pk BETWEEN 1 AND 60;
INSERT INTO ik_l SELECT o, 6, 1 + o % 500, 2.5 FROM generate_series(10001, 12000) o;
DELETE FROM ik_o WHERE ok BETWEEN 1001 AND 1500;
SELECT name, ik_customer_read(name) AS customer_read FROM ik_defs ORDER BY name;
SELECT * FROM dv_refresh_round('ik_defs');
SELECT count(*) AS groups, sum(n) AS lines FROM ik_sum;
SELECT count(*) AS rows FROM ik_rows;

SELECT count(dynview.drop_dynamic_table(name)) FROM ik_defs;
DROP FUNCTION dv_refresh_round(regclass);
DROP FUNCTION ik_customer_read(text);
DROP TABLE ik_defs, ik_l, ik_p, ik_o, ik_c, ik_n, ik_r;
