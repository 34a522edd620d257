-- Tester's finding (s38): a partitioned dynamic table with a schedule and a retention.  A source
-- column's new type that an older partition's values cannot take (text to varchar(4)) makes every
-- refresh of the current, scheduled partition fail (its retype of the parent would cast them).
-- Once both partitions were older than the retention, one pass dropped both: the current batch
-- was gone, though dropping the old one alone would have let it refresh again.  Correct result:
-- the scheduled current partition (the one of the greatest value, while the table's schedule is
-- not 'manual') is never dropped by the retention; the old one is, and the current one then
-- refreshes and matches its query (verify(), the rows by text form and by =).  With the schedule
-- 'manual' no partition is current, and an aged one is dropped.
SET client_min_messages = warning;
CREATE TABLE brc_src (id int PRIMARY KEY, v text, b text);
INSERT INTO brc_src SELECT i, 'long value ' || i, 'b' || (i % 2) FROM generate_series(1, 10) i;
SELECT dynview.create_partitioned_dynamic_table('brc_part',
  'SELECT id, v, dynview.partition() AS pt FROM public.brc_src WHERE b = dynview.partition()',
  partition_by => 'pt', primary_key => '{id}', schedule => '1 hour');
SELECT refresh_mode FROM dynview.refresh('brc_part', partition => 'b0');
SELECT refresh_mode FROM dynview.refresh('brc_part', partition => 'b1');
RESET client_min_messages;
-- (the scheduler leaves the current partition to this test's refreshes)
SELECT dynview.suspend('brc_part_b1');
SELECT name, schedule FROM dynview.dynamic_tables WHERE name::text LIKE 'brc_part%' ORDER BY 1;

-- the new type: b0's values have no cast to it, so b1's refresh fails
UPDATE brc_src SET v = 'v' || id;
ALTER TABLE brc_src ALTER COLUMN v TYPE varchar(4);
SELECT dynview.wait_for_capture();
\set VERBOSITY terse
SELECT refresh_mode FROM dynview.refresh('brc_part', partition => 'b1');
\set VERBOSITY default

-- neither refreshed for eleven days (data_timestamp moved back, as time would); a retention of
-- ten days drops b0 and keeps b1, the current one
UPDATE dynview.dynamic_table_catalog SET data_timestamp = data_timestamp - interval '11 days'
 WHERE relid IN ('brc_part_b0'::regclass, 'brc_part_b1'::regclass);
ALTER MATERIALIZED VIEW brc_part SET (dynview.retention = 10);
SELECT name FROM dynview.dynamic_tables WHERE name::text LIKE 'brc_part%' ORDER BY 1;
-- b1 refreshes now, and matches its query
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('brc_part', partition => 'b1');
SELECT dynview.verify('brc_part_b1') AS verified;
SELECT count(*) AS differing FROM (
  (SELECT t::text FROM brc_part t EXCEPT ALL SELECT q::text FROM (SELECT id, v, b AS pt FROM brc_src WHERE b = 'b1') q)
  UNION ALL
  (SELECT q::text FROM (SELECT id, v, b AS pt FROM brc_src WHERE b = 'b1') q EXCEPT ALL SELECT t::text FROM brc_part t)) x;
SELECT count(*) AS differing_by_equality FROM (
  (SELECT id, v, pt FROM brc_part EXCEPT ALL SELECT id, v, b FROM brc_src WHERE b = 'b1')
  UNION ALL
  (SELECT id, v, b FROM brc_src WHERE b = 'b1' EXCEPT ALL SELECT id, v, pt FROM brc_part)) x;

-- with the schedule 'manual', no partition is current: b1, aged, goes when b2 is refreshed
SELECT dynview.alter_dynamic_table('brc_part', schedule => 'manual');
UPDATE dynview.dynamic_table_catalog SET data_timestamp = data_timestamp - interval '11 days'
 WHERE relid = 'brc_part_b1'::regclass;
INSERT INTO brc_src VALUES (11, 'v11', 'b2');
SELECT dynview.wait_for_capture();
-- (the scheduler's look may drop b1 first, and the source's replica identity is set again: quiet)
SET client_min_messages = warning;
SELECT refresh_mode FROM dynview.refresh('brc_part', partition => 'b2');
RESET client_min_messages;
SELECT name FROM dynview.dynamic_tables WHERE name::text LIKE 'brc_part%' ORDER BY 1;
SELECT dynview.verify('brc_part_b2') AS verified;

SET client_min_messages = warning;
DROP TABLE brc_part;
DROP TABLE brc_src;
