-- The scan a partner filter shares (TPC-H Q17's parts of one brand and container, optree.c
-- partner_scan) read by key in one index scan for the changed lineitems' parts
-- (keyed_shared_rows): where the delta of "lineitem join part" would read part whole because
-- probing it once per changed lineitem and once more per changed group costs more, it reads the
-- part rows of the delta's distinct parts through "id = ANY (ARRAY(...))" into a MATERIALIZED
-- entry; the partner filter takes the groups among those parts from that entry and probes part
-- for the others (a grouped subquery over another table, whose changed parts the lineitems do not
-- have).  Rounds: NULL parts, a part that does not exist, deletes, parts entering and leaving the
-- filter in the window, groups changed only by the other table; every refresh verified and
-- compared with the query by text and by "=".
SET client_min_messages = warning;

-- 20,000 parts (above the 10,000 rows under which a source is always read whole); lineitems,
-- and another table of quantities per part
CREATE TABLE pk_part (id int PRIMARY KEY, brand text NOT NULL, cont text);
CREATE TABLE pk_li (id int PRIMARY KEY, part int, qty numeric(10, 2) NOT NULL, price numeric(10, 2));
CREATE TABLE pk_other (id int PRIMARY KEY, part int, qty numeric(10, 2));
CREATE INDEX ON pk_li (part);
CREATE INDEX ON pk_other (part);
INSERT INTO pk_part SELECT n, 'B' || n % 10, CASE WHEN n % 13 = 0 THEN NULL ELSE 'C' || n % 4 END
  FROM generate_series(1, 20000) n;
INSERT INTO pk_li SELECT i, CASE WHEN i % 97 = 0 THEN NULL ELSE 1 + (i * 7919) % 20000 END, 1 + i % 50, (i * 31) % 1000 / 10.0
  FROM generate_series(1, 30000) i;
INSERT INTO pk_other SELECT i, 1 + (i * 104729) % 20000, 1 + i % 40 FROM generate_series(1, 20000) i;
ANALYZE pk_part, pk_li, pk_other;

CREATE TABLE pk_defs (name text PRIMARY KEY, query text NOT NULL);
INSERT INTO pk_defs VALUES
  -- TPC-H Q17's shape: the grouped subquery reads the lineitems too
  ('pk_q17', 'SELECT sum(l.price) / 7.0 AS avg_yearly, count(*) AS n FROM pk_li l, pk_part p
               WHERE p.id = l.part AND p.brand = ''B3'' AND p.cont = ''C3''
                 AND l.qty < (SELECT 0.5 * avg(l2.qty) FROM pk_li l2 WHERE l2.part = p.id)'),
  -- the grouped subquery over another table: its changed parts are not the lineitems'
  ('pk_other_avg', 'SELECT l.part, count(*) AS n, sum(l.price) AS s FROM pk_li l, pk_part p
                     WHERE p.id = l.part AND p.brand = ''B3''
                       AND l.qty < (SELECT avg(o.qty) FROM pk_other o WHERE o.part = p.id)
                     GROUP BY l.part');
SELECT count(dynview.create_dynamic_table(name, query, schedule => 'manual', refresh_mode => 'incremental'))
  FROM pk_defs;
SELECT j.name, d.effective_mode FROM dynview.dynamic_tables d JOIN pk_defs j ON d.name = j.name::regclass ORDER BY 1;

\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round

-- the scans of pk_part during one refresh (pg_stat_xact_user_tables: the counts of the current
-- transaction, not yet flushed): sequential scans, and whether its index scans were fewer than
-- the changed lineitems (probes would be one per changed lineitem and one per changed group)
CREATE FUNCTION pk_scans(t text, changed bigint)
RETURNS TABLE (refresh_mode text, part_seq_scans bigint, fewer_index_scans boolean)
LANGUAGE plpgsql AS $$
DECLARE s0 bigint; i0 bigint;
BEGIN
  SELECT x.seq_scan, x.idx_scan INTO s0, i0 FROM pg_stat_xact_user_tables x WHERE x.relid = 'pk_part'::regclass;
  SELECT r.refresh_mode INTO refresh_mode FROM dynview.refresh(t) r;
  SELECT x.seq_scan - s0, x.idx_scan - i0 < changed INTO part_seq_scans, fewer_index_scans
    FROM pg_stat_xact_user_tables x WHERE x.relid = 'pk_part'::regclass;
  RETURN NEXT;
END $$;

-- round 1: 1,200 lineitems inserted over 300 parts (a NULL part, one that does not exist), 40
-- deleted, and quantities of other parts changed in pk_other.  Probing part once per changed
-- lineitem and once per changed group costs more than reading its 20,000 rows; one index scan
-- for the 300 parts costs less: no sequential scan, fewer index scans than changed lineitems
INSERT INTO pk_li SELECT 200000 + i, CASE WHEN i % 300 = 7 THEN NULL WHEN i % 300 = 11 THEN 99999 ELSE 3 + 60 * (i % 300) END,
                         1 + i % 30, i % 500 / 10.0
  FROM generate_series(1, 1200) i;
DELETE FROM pk_li WHERE id BETWEEN 1000 AND 1039;
UPDATE pk_other SET qty = qty + 5 WHERE part IN (SELECT id FROM pk_part WHERE brand = 'B3' AND id % 7 = 0 AND id < 4000);
SELECT dynview.wait_for_capture();
BEGIN;
SELECT * FROM pk_scans('pk_q17', 1240);
ROLLBACK;
SELECT * FROM dv_refresh_round('pk_defs');

-- round 2: in one window, parts move into the filters and out of them, 3,000 lineitems of 400
-- parts inserted, one moved to a NULL part and one to another part, and pk_other changed for
-- parts the lineitems do not reach (their groups found by the partner filter's probes)
UPDATE pk_part SET brand = 'B3', cont = 'C3' WHERE id IN (63, 123);
UPDATE pk_part SET brand = 'B4' WHERE id IN (183, 243);
INSERT INTO pk_li SELECT 300000 + i, CASE WHEN i % 5 = 0 THEN 63 WHEN i % 5 = 1 THEN 123 ELSE 3 + 60 * (i % 400) END,
                         1 + i % 45, i % 300 / 10.0
  FROM generate_series(1, 3000) i;
UPDATE pk_li SET part = NULL WHERE id = 2001;
UPDATE pk_li SET part = 1203 WHERE id = 2002;
UPDATE pk_other SET qty = qty - 3 WHERE part IN (SELECT id FROM pk_part WHERE brand = 'B3' AND id % 11 = 0 AND id > 15000);
INSERT INTO pk_other VALUES (100001, 19993, 1.00), (100002, NULL, 2.00);
SELECT dynview.wait_for_capture();
BEGIN;
SELECT * FROM pk_scans('pk_other_avg', 3000);
ROLLBACK;
SELECT * FROM dv_refresh_round('pk_defs');

-- round 3: lineitems deleted (groups emptied), a filtered part deleted with its lineitems
DELETE FROM pk_li WHERE id > 300000 AND id % 3 = 0;
DELETE FROM pk_li WHERE part = 63;
DELETE FROM pk_part WHERE id = 63;
SELECT * FROM dv_refresh_round('pk_defs');
SELECT * FROM pk_q17;
SELECT count(*), sum(n), sum(s) FROM pk_other_avg;

SELECT dynview.drop_dynamic_table(name) FROM pk_defs ORDER BY name;
DROP FUNCTION pk_scans(text, bigint);
DROP FUNCTION dv_refresh_round(regclass);
DROP TABLE pk_defs, pk_li, pk_other, pk_part;
