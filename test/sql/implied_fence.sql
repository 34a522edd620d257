-- A term that joins a scan's rows now with the delta of the rest reads that scan restricted by what
-- the inner joins above it imply, "v = ANY (ARRAY(SELECT x FROM chain))", in a subquery of its own
-- (OFFSET 0), when the joins above join it to an unchanged chain of small scans, one of them
-- filtered (optree.c implied_restrict: TPC-H Q8's customer, joined to the changed orders, then to
-- nation and region 'AMERICA': read in one bitmap scan of its nation index for the region's
-- nations, not once per nation).  Only where the scan is not resident in shared buffers (larger
-- than a quarter of them: here a table of low fillfactor) and probing it once per changed row
-- would not be cheaper.  Each round first refreshes the tables in a subtransaction rolled back
-- and reports how "ifn_c" was read (pg_stat_get_xact_numscans of its indexes, pg_stat_xact_user_tables: by its nation index,
-- by its key, whole), then refreshes them for good, every refresh compared with its query
-- (dynview.verify(), and the rows by text and by =); rounds change the chain itself, the scan
-- itself, and NULL keys.
SET client_min_messages = warning;
\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round

CREATE TABLE ifn_r (rk int PRIMARY KEY, name text);
CREATE TABLE ifn_n (nk int PRIMARY KEY, rk int, name text);
CREATE TABLE ifn_c (ck int PRIMARY KEY, nk int, pad text) WITH (fillfactor = 10);
CREATE INDEX ifn_c_nk ON ifn_c (nk);
CREATE TABLE ifn_o (ok int PRIMARY KEY, ck int, amt numeric(10, 2), sn int);
CREATE INDEX ON ifn_o (ck);
INSERT INTO ifn_r VALUES (0, 'AFRICA'), (1, 'AMERICA'), (2, 'ASIA'), (3, 'EUROPE'), (4, 'MIDDLE EAST');
INSERT INTO ifn_n SELECT i, i % 5, 'N' || i FROM generate_series(0, 24) i;
INSERT INTO ifn_c SELECT i, CASE WHEN i % 997 = 0 THEN NULL ELSE i % 25 END, repeat('x', 300)
  FROM generate_series(1, 15000) i;
INSERT INTO ifn_o SELECT i, 1 + (i * 7) % 15000, (i % 1000) / 10.0, i % 25 FROM generate_series(1, 20000) i;
ANALYZE ifn_r, ifn_n, ifn_c, ifn_o;
-- (the rule needs ifn_c larger than a quarter of shared_buffers)
SELECT (pg_relation_size('ifn_c') + pg_indexes_size('ifn_c')) / current_setting('block_size')::int
       > pg_size_bytes(current_setting('shared_buffers')) / current_setting('block_size')::int / 4
       AS ifn_c_not_resident;

-- how a refresh of t (rolled back) read ifn_c: "nation index", "key", "whole"
CREATE FUNCTION ifn_customer_read(t text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  n0 bigint := pg_stat_get_xact_numscans('ifn_c_nk'::regclass);
  k0 bigint := pg_stat_get_xact_numscans('ifn_c_pkey'::regclass);
  s0 bigint := COALESCE((SELECT seq_scan FROM pg_stat_xact_user_tables WHERE relid = 'ifn_c'::regclass), 0);
  n bigint;
  k bigint;
  s bigint;
BEGIN
  BEGIN
    PERFORM dynview.refresh(t);
    n := pg_stat_get_xact_numscans('ifn_c_nk'::regclass);
    k := pg_stat_get_xact_numscans('ifn_c_pkey'::regclass);
    s := COALESCE((SELECT seq_scan FROM pg_stat_xact_user_tables WHERE relid = 'ifn_c'::regclass), 0);
    RAISE EXCEPTION USING ERRCODE = 'P0001', MESSAGE = 'ifn: roll back';
  EXCEPTION WHEN SQLSTATE 'P0001' THEN
    RETURN concat_ws(' and ', CASE WHEN n > n0 THEN 'nation index' END, CASE WHEN k > k0 THEN 'key' END,
                     CASE WHEN s > s0 THEN 'whole' END);
  END;
END $$;

CREATE TABLE ifn_defs (name text, query text);
INSERT INTO ifn_defs VALUES
  ('ifn_sum', $$SELECT o.ok % 7 AS g, count(*) AS n, sum(o.amt) AS amt FROM ifn_o o, ifn_c c, ifn_n n, ifn_r r
                WHERE o.ck = c.ck AND c.nk = n.nk AND n.rk = r.rk AND r.name = 'AMERICA' GROUP BY o.ok % 7$$),
  ('ifn_rows', $$SELECT o.ok, c.ck, n.name FROM ifn_o o, ifn_c c, ifn_n n, ifn_r r
                 WHERE o.ck = c.ck AND c.nk = n.nk AND n.rk = r.rk AND r.name = 'AMERICA'$$);
-- (and one whose delta another filtered chain cuts before the join with ifn_c: the orders of
-- the regions of two nations, joined above ifn_c, not by a unique key; TPC-H Q7's shape: the rows
-- that reach ifn_c are counted by that chain's values; how the planner then reads ifn_c is its
-- own choice, not reported)
CREATE TABLE ifn_defs2 (name text, query text);
INSERT INTO ifn_defs2 VALUES
  ('ifn_two', $$SELECT o.ok, c.ck, n2.name FROM ifn_o o, ifn_c c, ifn_n n, ifn_r r, ifn_n n2
                WHERE o.ck = c.ck AND c.nk = n.nk AND n.rk = r.rk AND r.name = 'AMERICA'
                  AND o.sn = n2.rk AND n2.name IN ('N1', 'N2')$$);
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual', refresh_mode => 'incremental') IS NOT NULL AS created
  FROM (TABLE ifn_defs UNION ALL TABLE ifn_defs2) d ORDER BY name;

-- 4,000 new orders, 2,000 deleted: the customers read by the region's nations, in one scan
INSERT INTO ifn_o SELECT i, 1 + (i * 13) % 15000, (i % 700) / 10.0, i % 23 FROM generate_series(20001, 24000) i;
DELETE FROM ifn_o WHERE ok BETWEEN 1 AND 2000;
SELECT name, ifn_customer_read(name) AS customer_read FROM ifn_defs ORDER BY name;
SELECT * FROM dv_refresh_round('ifn_defs');
SELECT * FROM dv_refresh_round('ifn_defs2');
-- a few orders: looked up by key
INSERT INTO ifn_o VALUES (30000, 26, 1.5, 1), (30001, 997, 2.5, 2), (30002, 51, 3.5, NULL);
DELETE FROM ifn_o WHERE ok = 2001;
UPDATE ifn_o SET ck = 76 WHERE ok = 2002;
SELECT name, ifn_customer_read(name) AS customer_read FROM ifn_defs ORDER BY name;
SELECT * FROM dv_refresh_round('ifn_defs');
SELECT * FROM dv_refresh_round('ifn_defs2');
-- many orders, and the chain itself changed (a region renamed, a nation moved): no restriction
INSERT INTO ifn_o SELECT i, 1 + (i * 17) % 15000, (i % 300) / 10.0, i % 5 FROM generate_series(30003, 33000) i;
UPDATE ifn_r SET name = 'AMERICA' WHERE rk = 2;
UPDATE ifn_r SET name = 'AMERICAS' WHERE rk = 1;
UPDATE ifn_n SET rk = 2 WHERE nk = 3;
SELECT name, ifn_customer_read(name) AS customer_read FROM ifn_defs ORDER BY name;
SELECT * FROM dv_refresh_round('ifn_defs');
SELECT * FROM dv_refresh_round('ifn_defs2');
-- many orders, and customers moved across the region's nations and to a NULL nation
DELETE FROM ifn_o WHERE ok BETWEEN 2003 AND 5000;
UPDATE ifn_c SET nk = CASE WHEN ck % 3 = 0 THEN NULL ELSE (nk + 1) % 25 END WHERE ck BETWEEN 100 AND 400;
UPDATE ifn_c SET nk = 7 WHERE nk IS NULL AND ck > 5000;
SELECT name, ifn_customer_read(name) AS customer_read FROM ifn_defs ORDER BY name;
SELECT * FROM dv_refresh_round('ifn_defs');
SELECT * FROM dv_refresh_round('ifn_defs2');
SELECT count(*) AS groups, sum(n) AS orders FROM ifn_sum;
SELECT count(*) AS rows FROM ifn_rows;
SELECT count(*) AS rows FROM ifn_two;

SELECT count(dynview.drop_dynamic_table(name)) FROM (TABLE ifn_defs UNION ALL TABLE ifn_defs2) d;
DROP FUNCTION dv_refresh_round(regclass);
DROP FUNCTION ifn_customer_read(text);
DROP TABLE ifn_defs, ifn_defs2, ifn_o, ifn_c, ifn_n, ifn_r;
