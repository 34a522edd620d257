-- A FULL-mode dynamic table whose sources did not change since its data snapshot refreshes
-- NO_DATA: nothing is recomputed.  It recomputes (FULL) when a source changed, when this
-- transaction wrote a source, after TRUNCATE or ALTER of a source, when the definition calls a
-- volatile or stable function (now()), and when a source is not captured (an unlogged table).
SET client_min_messages = warning;
CREATE TABLE fnd_src (id int PRIMARY KEY, v int);
INSERT INTO fnd_src SELECT g, g % 10 FROM generate_series(1, 100) g;
CREATE UNLOGGED TABLE fnd_nokey (id int, v int);
INSERT INTO fnd_nokey VALUES (1, 1);
SELECT dynview.create_dynamic_table('fnd_inc', 'SELECT id, v FROM fnd_src WHERE v > 2', schedule => 'manual');
-- window without PARTITION BY over a dynamic table: FULL
SELECT dynview.create_dynamic_table('fnd_rank', 'SELECT id, rank() OVER (ORDER BY v, id) AS rk FROM fnd_inc',
                                    schedule => 'manual');
SELECT dynview.create_dynamic_table('fnd_full', 'SELECT v, count(*) AS n FROM fnd_src GROUP BY v',
                                    schedule => 'manual', refresh_mode => 'full');
SELECT dynview.create_dynamic_table('fnd_now', 'SELECT id, now() - now() AS zero FROM fnd_src WHERE id < 3',
                                    schedule => 'manual');
SELECT dynview.create_dynamic_table('fnd_nk', 'SELECT v, count(*) AS n FROM fnd_nokey GROUP BY v',
                                    schedule => 'manual');
SELECT name, effective_mode, mode_reason_code FROM dynview.dynamic_tables WHERE name::text LIKE 'fnd%' ORDER BY 1;

-- nothing changed: NO_DATA for the FULL-mode tables too, except now() and the uncaptured source
SELECT table_name, refresh_mode, mode_reason_code FROM dynview.refresh('fnd_rank');
SELECT table_name, refresh_mode, mode_reason_code FROM dynview.refresh('fnd_full');
SELECT table_name, refresh_mode, mode_reason_code FROM dynview.refresh('fnd_now');
SELECT table_name, refresh_mode, mode_reason_code FROM dynview.refresh('fnd_nk');
SELECT table_name, refresh_mode FROM dynview.refresh_history WHERE table_name = 'fnd_inc' ORDER BY refresh_id DESC LIMIT 1;

-- a change: the upstream refreshes INCREMENTAL and writes its buffer, the downstream recomputes
UPDATE fnd_src SET v = 11 WHERE id = 5;
SELECT table_name, refresh_mode, mode_reason_code FROM dynview.refresh('fnd_rank');
SELECT dynview.verify('fnd_rank'), dynview.verify('fnd_inc');
SELECT table_name, refresh_mode FROM dynview.refresh('fnd_full');
SELECT dynview.verify('fnd_full');
SELECT table_name, refresh_mode FROM dynview.refresh('fnd_full');

-- a change that is undone before the refresh still recomputes (the window is not empty)
UPDATE fnd_src SET v = 12 WHERE id = 6;
UPDATE fnd_src SET v = 6 WHERE id = 6;
SELECT table_name, refresh_mode FROM dynview.refresh('fnd_full');
SELECT dynview.verify('fnd_full');

-- this transaction wrote the source: FULL; after commit its own change is not seen again
BEGIN;
UPDATE fnd_src SET v = 12 WHERE id = 6;
SELECT table_name, refresh_mode FROM dynview.refresh('fnd_full');
SELECT dynview.verify('fnd_full');
COMMIT;
SELECT table_name, refresh_mode FROM dynview.refresh('fnd_full');
SELECT dynview.verify('fnd_full');

-- TRUNCATE and ALTER of a source
TRUNCATE fnd_src;
SELECT table_name, refresh_mode FROM dynview.refresh('fnd_full');
SELECT dynview.verify('fnd_full');
SELECT table_name, refresh_mode FROM dynview.refresh('fnd_full');
INSERT INTO fnd_src VALUES (1, 1);
SELECT table_name, refresh_mode FROM dynview.refresh('fnd_full');
ALTER TABLE fnd_src ALTER COLUMN v TYPE bigint;
SELECT table_name, refresh_mode FROM dynview.refresh('fnd_full');
SELECT dynview.verify('fnd_full');
SELECT table_name, refresh_mode FROM dynview.refresh('fnd_full');

-- the uncaptured source: its changes are seen because the table always recomputes
INSERT INTO fnd_nokey VALUES (2, 1);
SELECT table_name, refresh_mode FROM dynview.refresh('fnd_nk');
SELECT * FROM fnd_nk;
SELECT dynview.verify('fnd_nk');

-- a redefined view: the FULL-mode table reading it recomputes (DEFINITION_CHANGED)
CREATE TABLE fnd_vb (id int PRIMARY KEY, v int);
INSERT INTO fnd_vb VALUES (1, 10), (2, 100);
CREATE VIEW fnd_view AS SELECT id, v FROM fnd_vb WHERE v > 5;
SELECT dynview.create_dynamic_table('fnd_onview', 'SELECT id, rank() OVER (ORDER BY v) AS rk FROM fnd_view',
                                    schedule => 'manual');
SELECT table_name, refresh_mode FROM dynview.refresh('fnd_onview');
CREATE OR REPLACE VIEW fnd_view AS SELECT id, v FROM fnd_vb WHERE v > 50;
SELECT table_name, refresh_mode, mode_reason_code FROM dynview.refresh('fnd_onview');
SELECT * FROM fnd_onview;
SELECT dynview.verify('fnd_onview');

-- inheritance children: their changes count for the parent (cdc/partitions.c), so a table reading
-- the parent without ONLY is INCREMENTAL (inherited_sources has the details)
CREATE TABLE fnd_par (id int PRIMARY KEY, v int);
CREATE TABLE fnd_child (extra int) INHERITS (fnd_par);
ALTER TABLE fnd_child ADD PRIMARY KEY (id);
INSERT INTO fnd_par VALUES (1, 1);
INSERT INTO fnd_child VALUES (2, 2, 0);
SELECT dynview.create_dynamic_table('fnd_inh', 'SELECT v, count(*) AS n FROM fnd_par GROUP BY v', schedule => 'manual');
SELECT dynview.create_dynamic_table('fnd_only', 'SELECT v, count(*) AS n FROM ONLY fnd_par GROUP BY v', schedule => 'manual');
SELECT name, effective_mode, mode_reason_code FROM dynview.dynamic_tables WHERE name::text IN ('fnd_inh', 'fnd_only') ORDER BY 1;
INSERT INTO fnd_child VALUES (3, 1, 0);
SELECT table_name, refresh_mode, mode_reason_code FROM dynview.refresh('fnd_inh');
SELECT * FROM fnd_inh ORDER BY v;
SELECT dynview.verify('fnd_inh');
SELECT table_name, refresh_mode FROM dynview.refresh('fnd_only');
SELECT dynview.verify('fnd_only');
-- a child that appears after creation counts at once (FULL, SOURCE_ALTERED: a first child takes
-- away the keys of the parent's unique indexes, so it is part of the source's signature)
CREATE TABLE fnd_p2 (id int PRIMARY KEY, v int);
INSERT INTO fnd_p2 VALUES (1, 1);
SELECT dynview.create_dynamic_table('fnd_late', 'SELECT v, count(*) AS n FROM fnd_p2 GROUP BY v', schedule => 'manual');
CREATE TABLE fnd_c2 () INHERITS (fnd_p2);
INSERT INTO fnd_c2 VALUES (2, 1);
SELECT table_name, refresh_mode, mode_reason_code FROM dynview.refresh('fnd_late');
SELECT * FROM fnd_late;
SELECT dynview.verify('fnd_late');

-- writes after a refresh in the same transaction that no statement hook names: COPY, and rows
-- routed through a partitioned parent into a source partition: the commit is refused, nothing
-- changes; refreshed again after the writes, the transaction commits
CREATE TABLE fnd_cp (id int PRIMARY KEY, v int);
INSERT INTO fnd_cp VALUES (1, 10);
CREATE TABLE fnd_pp (id int, v int) PARTITION BY RANGE (id);
CREATE TABLE fnd_pp1 PARTITION OF fnd_pp FOR VALUES FROM (0) TO (100);
INSERT INTO fnd_pp1 VALUES (1, 10);
SELECT dynview.create_dynamic_table('fnd_cpw', 'SELECT id, v, sum(v) OVER () AS tot FROM fnd_cp', schedule => 'manual');
SELECT dynview.create_dynamic_table('fnd_cpi', 'SELECT id, v FROM fnd_cp', schedule => 'manual');
SELECT dynview.create_dynamic_table('fnd_ppw', 'SELECT id, v, sum(v) OVER () AS tot FROM fnd_pp1', schedule => 'manual');
BEGIN;
SELECT table_name, refresh_mode FROM dynview.refresh('fnd_cpw');
SELECT table_name, refresh_mode FROM dynview.refresh('fnd_cpi');
SELECT table_name, refresh_mode FROM dynview.refresh('fnd_ppw');
COPY fnd_cp FROM stdin;
2	20
\.
INSERT INTO fnd_pp VALUES (2, 20);
COMMIT;
SELECT dynview.verify('fnd_cpw'), dynview.verify('fnd_cpi'), dynview.verify('fnd_ppw');
SELECT (SELECT count(*) FROM fnd_cp) AS cp_rows, (SELECT count(*) FROM fnd_pp) AS pp_rows;
BEGIN;
SELECT table_name, refresh_mode FROM dynview.refresh('fnd_cpw');
SELECT table_name, refresh_mode FROM dynview.refresh('fnd_cpi');
SELECT table_name, refresh_mode FROM dynview.refresh('fnd_ppw');
COPY fnd_cp FROM stdin;
2	20
\.
INSERT INTO fnd_pp VALUES (2, 20);
SELECT table_name, refresh_mode, mode_reason_code FROM dynview.refresh('fnd_cpw');
SELECT table_name, refresh_mode, mode_reason_code FROM dynview.refresh('fnd_cpi');
SELECT table_name, refresh_mode, mode_reason_code FROM dynview.refresh('fnd_ppw');
COMMIT;
SELECT dynview.verify('fnd_cpw'), dynview.verify('fnd_cpi'), dynview.verify('fnd_ppw');
SELECT (SELECT count(*) FROM fnd_cpi) AS cpi_rows, (SELECT count(*) FROM fnd_ppw) AS ppw_rows;

-- a source made UNLOGGED after creation is no longer captured: SOURCE_NOT_CAPTURED from then on
ALTER TABLE fnd_cp SET UNLOGGED;
SELECT table_name, refresh_mode, mode_reason_code FROM dynview.refresh('fnd_cpi');
INSERT INTO fnd_cp VALUES (3, 30);
SELECT table_name, refresh_mode, mode_reason_code FROM dynview.refresh('fnd_cpi');
SELECT table_name, refresh_mode, mode_reason_code FROM dynview.refresh('fnd_cpw');
SELECT dynview.verify('fnd_cpw'), dynview.verify('fnd_cpi');

-- a view redefined to read another table, in the same window as an ALTER of its old table: the
-- new table is tracked, and its changes are seen
CREATE TABLE fnd_va (id int PRIMARY KEY, v int);
CREATE TABLE fnd_vb2 (id int PRIMARY KEY, v int);
INSERT INTO fnd_va VALUES (1, 10);
INSERT INTO fnd_vb2 VALUES (2, 20);
CREATE VIEW fnd_vw AS SELECT id, v FROM fnd_va;
SELECT dynview.create_dynamic_table('fnd_vww', 'SELECT id, v, sum(v) OVER () AS tot FROM fnd_vw', schedule => 'manual');
ALTER TABLE fnd_va ADD COLUMN z int;
CREATE OR REPLACE VIEW fnd_vw AS SELECT id, v FROM fnd_vb2;
SELECT table_name, refresh_mode, mode_reason_code FROM dynview.refresh('fnd_vww');
INSERT INTO fnd_vb2 VALUES (3, 30);
SELECT table_name, refresh_mode, mode_reason_code FROM dynview.refresh('fnd_vww');
SELECT dynview.verify('fnd_vww');

-- an aggregate whose transition function is volatile: never skipped
CREATE TABLE fnd_rate (r int);
INSERT INTO fnd_rate VALUES (2);
CREATE FUNCTION fnd_vsf(acc int, x int) RETURNS int LANGUAGE plpgsql VOLATILE
  AS $$ BEGIN RETURN coalesce(acc, 0) + x * (SELECT r FROM public.fnd_rate); END $$;
CREATE AGGREGATE fnd_rsum(int) (sfunc = fnd_vsf, stype = int);
SELECT dynview.create_dynamic_table('fnd_agg', 'SELECT fnd_rsum(v) AS s FROM fnd_vb2', schedule => 'manual');
UPDATE fnd_rate SET r = 3;
SELECT table_name, refresh_mode, mode_reason_code FROM dynview.refresh('fnd_agg');
SELECT dynview.verify('fnd_agg');
-- the same aggregate per group: FULL (VOLATILE_FUNCTION), or an untouched group keeps its value
SELECT dynview.create_dynamic_table('fnd_agg_g', 'SELECT id % 2 AS g, fnd_rsum(v) AS s FROM fnd_vb2 GROUP BY 1', schedule => 'manual');
SELECT effective_mode, mode_reason_code FROM dynview.dynamic_tables WHERE name = 'fnd_agg_g'::regclass;
UPDATE fnd_rate SET r = 5;
SELECT table_name, refresh_mode, mode_reason_code FROM dynview.refresh('fnd_agg_g');
SELECT dynview.verify('fnd_agg_g');

-- group keys whose equality is not identity (a nondeterministic collation): INCREMENTAL, the
-- affected groups recomputed
CREATE COLLATION fnd_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE TABLE fnd_tag (id int PRIMARY KEY, tag text COLLATE fnd_ci);
INSERT INTO fnd_tag VALUES (1, 'b');
SELECT dynview.create_dynamic_table('fnd_tags', 'SELECT tag, count(*) AS n FROM fnd_tag GROUP BY tag', schedule => 'manual');
SELECT effective_mode, mode_reason_code FROM dynview.dynamic_tables WHERE name = 'fnd_tags'::regclass;
INSERT INTO fnd_tag VALUES (2, 'B');
SELECT table_name, refresh_mode, mode_reason_code FROM dynview.refresh('fnd_tags');
SELECT n FROM fnd_tags;
SELECT dynview.verify('fnd_tags');

-- rows routed through the parent into a source partition that this transaction had written
-- before the refresh: the commit is refused; refreshed again after them, it commits
CREATE TABLE fnd_rp (id int PRIMARY KEY, v int) PARTITION BY RANGE (id);
CREATE TABLE fnd_rp1 PARTITION OF fnd_rp FOR VALUES FROM (0) TO (1000);
INSERT INTO fnd_rp1 VALUES (1, 1);
SELECT dynview.create_dynamic_table('fnd_rpd', 'SELECT id, v FROM fnd_rp1', schedule => 'manual');
BEGIN;
UPDATE fnd_rp1 SET v = 2 WHERE id = 1;
SELECT table_name, refresh_mode, mode_reason_code FROM dynview.refresh('fnd_rpd');
INSERT INTO fnd_rp VALUES (100, 100);
COMMIT;
SELECT dynview.verify('fnd_rpd');
BEGIN;
UPDATE fnd_rp1 SET v = 2 WHERE id = 1;
SELECT table_name, refresh_mode, mode_reason_code FROM dynview.refresh('fnd_rpd');
INSERT INTO fnd_rp VALUES (100, 100);
SELECT table_name, refresh_mode, mode_reason_code FROM dynview.refresh('fnd_rpd');
COMMIT;
SELECT dynview.verify('fnd_rpd');
SELECT * FROM fnd_rpd ORDER BY id;

-- a window aggregate whose moving-aggregate functions are volatile: never skipped
CREATE FUNCTION fnd_imm_sf(int, int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT coalesce($1, 0) + $2';
CREATE FUNCTION fnd_vol_msf(int, int) RETURNS int LANGUAGE sql VOLATILE
  AS 'SELECT coalesce($1, 0) + $2 * (SELECT max(r) FROM public.fnd_rate)';
CREATE FUNCTION fnd_vol_minv(int, int) RETURNS int LANGUAGE sql VOLATILE
  AS 'SELECT $1 - $2 * (SELECT max(r) FROM public.fnd_rate)';
CREATE AGGREGATE fnd_mv(int) (sfunc = fnd_imm_sf, stype = int, msfunc = fnd_vol_msf, minvfunc = fnd_vol_minv, mstype = int);
SELECT dynview.create_dynamic_table('fnd_mvw',
  'SELECT id, fnd_mv(v) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS m FROM fnd_vb2', schedule => 'manual');
UPDATE fnd_rate SET r = 4;
SELECT table_name, refresh_mode, mode_reason_code FROM dynview.refresh('fnd_mvw');
SELECT dynview.verify('fnd_mvw');

-- a trigger on a dynamic table fires for the rows a refresh writes
CREATE TABLE fnd_audit (op text, id int);
CREATE FUNCTION fnd_aud() RETURNS trigger LANGUAGE plpgsql
  AS $$BEGIN INSERT INTO public.fnd_audit VALUES (TG_OP, coalesce(NEW.id, OLD.id)); RETURN NULL; END$$;
CREATE TRIGGER fnd_a AFTER INSERT OR DELETE ON fnd_cpi FOR EACH ROW EXECUTE FUNCTION fnd_aud();
ALTER TABLE fnd_cp SET LOGGED;
SELECT table_name, refresh_mode FROM dynview.refresh('fnd_cpi');
DELETE FROM fnd_audit;
INSERT INTO fnd_cp VALUES (4, 40);
SELECT table_name, refresh_mode FROM dynview.refresh('fnd_cpi');
SELECT * FROM fnd_audit ORDER BY id;
SELECT dynview.verify('fnd_cpi');

-- count(DISTINCT) of an array, and an unconstrained numeric key (1.0 and 1.00 are equal): not
-- kept in place, the affected groups are recomputed
CREATE TABLE fnd_arr (id int PRIMARY KEY, g int, a int[], n numeric);
INSERT INTO fnd_arr VALUES (1, 1, '{1,2}', 1.0), (2, 1, '{3}', 1.00);
SELECT dynview.create_dynamic_table('fnd_arrd', 'SELECT g, count(DISTINCT a) AS n FROM fnd_arr GROUP BY g', schedule => 'manual');
SELECT dynview.create_dynamic_table('fnd_numk', 'SELECT n, count(*) AS c FROM fnd_arr GROUP BY n', schedule => 'manual');
INSERT INTO fnd_arr VALUES (3, 1, '{4}', 2);
DELETE FROM fnd_arr WHERE id = 1;
SELECT table_name, refresh_mode FROM dynview.refresh('fnd_arrd');
SELECT table_name, refresh_mode FROM dynview.refresh('fnd_numk');
SELECT * FROM fnd_numk ORDER BY n;
SELECT dynview.verify('fnd_arrd'), dynview.verify('fnd_numk');

-- TABLESAMPLE without REPEATABLE draws a new sample at every refresh: never skipped; with
-- REPEATABLE the sample is a function of the rows, and a refresh without changes is NO_DATA
SELECT dynview.create_dynamic_table('fnd_smp', 'SELECT count(*) AS c FROM fnd_arr TABLESAMPLE BERNOULLI (50)',
                                    schedule => 'manual');
SELECT dynview.create_dynamic_table('fnd_smr', 'SELECT count(*) AS c FROM fnd_arr TABLESAMPLE BERNOULLI (50) REPEATABLE (7)',
                                    schedule => 'manual');
SELECT table_name, refresh_mode, mode_reason_code FROM dynview.refresh('fnd_smp');
SELECT table_name, refresh_mode, mode_reason_code FROM dynview.refresh('fnd_smr');

-- downstream first
SELECT dynview.drop_dynamic_table(n)
  FROM unnest(ARRAY['fnd_rank', 'fnd_inc', 'fnd_full', 'fnd_now', 'fnd_nk', 'fnd_onview', 'fnd_inh', 'fnd_only', 'fnd_late',
                 'fnd_cpw', 'fnd_cpi', 'fnd_ppw', 'fnd_vww', 'fnd_agg', 'fnd_agg_g', 'fnd_tags', 'fnd_rpd', 'fnd_mvw',
                 'fnd_arrd', 'fnd_numk', 'fnd_smp', 'fnd_smr']) n;
DROP VIEW fnd_view, fnd_vw;
DROP TABLE fnd_src, fnd_nokey, fnd_vb, fnd_child, fnd_par, fnd_c2, fnd_p2, fnd_cp, fnd_pp, fnd_va, fnd_vb2,
           fnd_rate, fnd_tag, fnd_rp, fnd_audit, fnd_arr;
DROP AGGREGATE fnd_rsum(int);
DROP AGGREGATE fnd_mv(int);
DROP FUNCTION fnd_imm_sf(int, int), fnd_vol_msf(int, int), fnd_vol_minv(int, int), fnd_aud();
DROP FUNCTION fnd_vsf(int, int);
DROP COLLATION fnd_ci;

-- VOLATILE_FUNCTION names the function: a cast of timestamptz to date is a stable function the
-- query does not spell, a comparison of timestamptz with date too, now() in a subquery
CREATE TABLE fnd_ev (id int PRIMARY KEY, at timestamptz);
SELECT e.value AS reason
  FROM unnest(ARRAY['SELECT id, at::date AS day FROM fnd_ev',
                    'SELECT id, random() AS r FROM fnd_ev',
                    'SELECT id FROM fnd_ev WHERE at > current_date',
                    'SELECT id FROM fnd_ev WHERE EXISTS (SELECT FROM fnd_ev e2 WHERE e2.at > now())',
                    'SELECT id, (at AT TIME ZONE ''UTC'')::date AS day FROM fnd_ev']) WITH ORDINALITY q(sql, n),
       dynview.explain(q.sql) e
 WHERE e.property = 'reason' ORDER BY q.n;
DROP TABLE fnd_ev;
