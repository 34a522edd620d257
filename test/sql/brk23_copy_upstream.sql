-- A dynamic table written by other than its refreshes (COPY FROM, allowed for pg_restore; a
-- subscription's apply worker) is recomputed at its next refresh (CHANGED_OUTSIDE_REFRESH), which
-- removes the rows copied in and writes their removal into its change buffer; the rows themselves
-- never reached that buffer.  A dynamic table reading it applied the removal alone and lost rows
-- it never had (found in the twenty-third session: count 10 -> 9, sum 57 -> -943).  Its readers'
-- next refresh is FULL too (UPSTREAM_CHANGED_OUTSIDE_REFRESH).  Every refresh is verified and
-- compared with its query by text and by =.
SET client_min_messages = warning;
CREATE TABLE cu_src (id int PRIMARY KEY, v int);
INSERT INTO cu_src SELECT i, i FROM generate_series(1, 10) i;
SELECT dynview.create_dynamic_table('cu_up', 'SELECT id, v FROM cu_src', schedule => 'manual', refresh_mode => 'incremental') IS NOT NULL AS created;
SELECT dynview.create_dynamic_table('cu_down', 'SELECT count(*) AS n, sum(v) AS s FROM cu_up', schedule => 'manual', refresh_mode => 'incremental') IS NOT NULL AS created;
SELECT dynview.create_dynamic_table('cu_side', 'SELECT id, v * 2 AS v2 FROM cu_up WHERE v > 3', schedule => 'manual', refresh_mode => 'incremental') IS NOT NULL AS created;
UPDATE cu_src SET v = v + 1 WHERE id = 1;
SELECT dynview.wait_for_capture('1 minute');
SELECT refresh_mode FROM dynview.refresh('cu_down');
SELECT refresh_mode FROM dynview.refresh('cu_side');

-- rows copied into the upstream: both readers are marked, the upstream too
COPY cu_up FROM stdin;
999	1000
998	5
\.
SELECT table_name, next_refresh_full FROM dynview.dynamic_table_catalog WHERE table_name LIKE 'cu\_%' ORDER BY 1;
UPDATE cu_src SET v = v + 1 WHERE id = 2;
SELECT dynview.wait_for_capture('1 minute');
SELECT table_name, refresh_mode, mode_reason_code, mode_reason FROM dynview.refresh('cu_down');
SELECT * FROM cu_down;
SELECT dynview.verify('cu_up') AS up, dynview.verify('cu_down') AS down;
-- the other reader, refreshed later in its own pipeline: FULL as well
SELECT table_name, refresh_mode, mode_reason_code FROM dynview.refresh('cu_side');
SELECT dynview.verify('cu_side') AS side,
       (SELECT count(*) FROM ((SELECT t::text FROM cu_side t EXCEPT ALL SELECT q::text FROM (SELECT id, v * 2 AS v2 FROM cu_up WHERE v > 3) q)
                        UNION ALL (SELECT q::text FROM (SELECT id, v * 2 AS v2 FROM cu_up WHERE v > 3) q EXCEPT ALL SELECT t::text FROM cu_side t)) x) AS text_differences;

-- the upstream refreshed alone after a copy, then its reader: the same
COPY cu_up FROM stdin;
997	7
\.
SELECT table_name, refresh_mode, mode_reason_code FROM dynview.refresh('cu_up');
UPDATE cu_src SET v = v - 1 WHERE id = 3;
SELECT dynview.wait_for_capture('1 minute');
SELECT table_name, refresh_mode, mode_reason_code FROM dynview.refresh('cu_down');
SELECT * FROM cu_down;
SELECT dynview.verify('cu_up') AS up, dynview.verify('cu_down') AS down;
-- and incremental again after
UPDATE cu_src SET v = v + 10 WHERE id = 4;
SELECT dynview.wait_for_capture('1 minute');
SELECT table_name, refresh_mode, mode_reason_code FROM dynview.refresh('cu_down');
SELECT table_name, refresh_mode, mode_reason_code FROM dynview.refresh('cu_side');
SELECT dynview.verify('cu_up') AS up, dynview.verify('cu_down') AS down, dynview.verify('cu_side') AS side;

SELECT dynview.drop_dynamic_table(t) FROM unnest(ARRAY['cu_side', 'cu_down', 'cu_up']) t;
DROP TABLE cu_src;
