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

-- inheritance children: their changes go to their own buffers, so a table reading the parent
-- without ONLY is FULL (INHERITANCE_CHILDREN) and always recomputes
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
-- a child that appears after creation: the incremental table falls back to FULL with that reason
CREATE TABLE fnd_p2 (id int PRIMARY KEY, v int);
INSERT INTO fnd_p2 VALUES (1, 1);
SELECT dynview.create_dynamic_table('fnd_late', 'SELECT v, count(*) AS n FROM fnd_p2 GROUP BY v', schedule => 'manual');
CREATE TABLE fnd_c2 () INHERITS (fnd_p2);
INSERT INTO fnd_c2 VALUES (2, 1);
SELECT table_name, refresh_mode, mode_reason_code FROM dynview.refresh('fnd_late');
SELECT * FROM fnd_late;
SELECT dynview.verify('fnd_late');

-- downstream first
SELECT dynview.drop_dynamic_table(n)
  FROM unnest(ARRAY['fnd_rank', 'fnd_inc', 'fnd_full', 'fnd_now', 'fnd_nk', 'fnd_onview', 'fnd_inh', 'fnd_only', 'fnd_late']) n;
DROP VIEW fnd_view;
DROP TABLE fnd_src, fnd_nokey, fnd_vb, fnd_child, fnd_par, fnd_c2, fnd_p2;
