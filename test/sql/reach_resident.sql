-- A term that joins a side's rows now with another side's delta restricts a scan of the first side
-- to the delta's keys, "v = ANY (ARRAY(...))", read through an index on v (optree.c
-- reach_restrict), except where that relation stays in shared buffers and one index descent per
-- changed row would cost more than reading it whole (probe_cheaper): then the planner reads it
-- whole and hashes it, cut by the term's other conditions first (TPC-H Q21's supplier, 10,000
-- rows, looked up for each of 7,622 changed late lineitems before the nation filter kept 1 in
-- 25).  Q21's shape: (supplier JOIN nation filtered) JOIN lines, the lines changed.  Each round
-- first refreshes the tables in a subtransaction rolled back and counts the scans of the
-- "supplier" (pg_stat_xact_user_tables: by index, or whole), then refreshes them for good; a
-- change of many lines (more than the supplier's rows) reads it whole, a change of a few looks
-- its rows up by key; every refresh compared with its query (dynview.verify(), and the rows by
-- text and by =).
SET client_min_messages = warning;
\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round

CREATE TABLE rres_s (supp int PRIMARY KEY, nk int, name text);
CREATE TABLE rres_n (nk int PRIMARY KEY, name text);
CREATE TABLE rres_l (ok int, ln int, supp int, late boolean, PRIMARY KEY (ok, ln));
INSERT INTO rres_n SELECT i, CASE WHEN i = 3 THEN 'SA' ELSE 'N' || i END FROM generate_series(0, 24) i;
INSERT INTO rres_s SELECT i, i % 25, 'S' || lpad(i::text, 4, '0') FROM generate_series(1, 2000) i;
INSERT INTO rres_l SELECT o, l, 1 + (o * 7 + l * 13) % 2000, (o + l) % 3 = 0
  FROM generate_series(1, 500) o, generate_series(1, 4) l;
ANALYZE rres_s, rres_n, rres_l;

-- the scans of rres_s by a refresh of t (rolled back): "index", "whole", or both
CREATE FUNCTION rres_supplier_read(t text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  i0 bigint := COALESCE((SELECT idx_scan FROM pg_stat_xact_user_tables WHERE relid = 'rres_s'::regclass), 0);
  s0 bigint := COALESCE((SELECT seq_scan FROM pg_stat_xact_user_tables WHERE relid = 'rres_s'::regclass), 0);
  i bigint;
  s bigint;
BEGIN
  BEGIN
    PERFORM dynview.refresh(t);
    SELECT COALESCE(idx_scan, 0), COALESCE(seq_scan, 0) INTO i, s
      FROM pg_stat_xact_user_tables WHERE relid = 'rres_s'::regclass;
    RAISE EXCEPTION USING ERRCODE = 'P0001', MESSAGE = 'rr: roll back';
  EXCEPTION WHEN SQLSTATE 'P0001' THEN
    RETURN concat_ws(' and ', CASE WHEN i > i0 THEN 'index' END, CASE WHEN s > s0 THEN 'whole' END);
  END;
END $$;

CREATE TABLE rres_defs (name text, query text);
INSERT INTO rres_defs VALUES
  ('rres_count', $$SELECT s.name, count(*) AS n FROM rres_s s, rres_l l, rres_n n
                  WHERE s.supp = l.supp AND s.nk = n.nk AND n.name = 'SA' AND l.late GROUP BY s.name$$),
  ('rres_rows', $$SELECT s.name, l.ok, l.ln FROM rres_s s, rres_l l, rres_n n
                 WHERE s.supp = l.supp AND s.nk = n.nk AND n.name = 'SA'$$);
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual', refresh_mode => 'incremental') IS NOT NULL AS created
  FROM rres_defs ORDER BY name;
SELECT value ~ 'inner join: .*\n +inner join: .*\n +scan public.rres_s' AS supplier_joined_first
  FROM dynview.explain_dynamic_table('rres_rows') WHERE property = 'operator tree';

-- 3,000 new lines, 400 deleted: more changed rows than rres_s has; read whole
INSERT INTO rres_l SELECT o, l, 1 + (o * 11 + l) % 2000, (o + l) % 2 = 0
  FROM generate_series(501, 1250) o, generate_series(1, 4) l;
DELETE FROM rres_l WHERE ok BETWEEN 1 AND 100;
SELECT name, rres_supplier_read(name) AS supplier_read FROM rres_defs ORDER BY name;
SELECT * FROM dv_refresh_round('rres_defs');
-- a few lines: looked up by key
INSERT INTO rres_l VALUES (2000, 1, 3, true), (2000, 2, 28, true), (2001, 1, 53, false);
DELETE FROM rres_l WHERE ok = 200 AND ln = 1;
UPDATE rres_l SET supp = 78 WHERE ok = 201 AND ln = 2;
SELECT name, rres_supplier_read(name) AS supplier_read FROM rres_defs ORDER BY name;
SELECT * FROM dv_refresh_round('rres_defs');
-- many lines moved to other suppliers and across the filter, with suppliers changed too
UPDATE rres_l SET supp = 1 + (supp * 3) % 2000, late = NOT late WHERE ok BETWEEN 300 AND 1100;
UPDATE rres_s SET nk = 3 WHERE supp IN (1, 2, 4);
SELECT name, rres_supplier_read(name) AS supplier_read FROM rres_defs ORDER BY name;
SELECT * FROM dv_refresh_round('rres_defs');
SELECT count(*) AS count_rows, sum(n) AS lines FROM rres_count;
SELECT count(*) AS rows FROM rres_rows;

SELECT count(dynview.drop_dynamic_table(name)) FROM rres_defs;
DROP FUNCTION dv_refresh_round(regclass);
DROP FUNCTION rres_supplier_read(text);
DROP TABLE rres_defs, rres_l, rres_s, rres_n;
