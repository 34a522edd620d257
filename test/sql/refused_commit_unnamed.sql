-- A commit refused because a source was written after its table's refresh in the transaction,
-- by a statement that does not name the source (refresh/txnwatch.c): rows inserted into a
-- partitioned parent that is not a source and routed to its partition that is; a trigger on
-- another table writing a source; a trigger writing a partition of a partitioned source.  The
-- hooks see each write (the partition or child named where one is written), so the message
-- names the relation written, not only what the write lock held at commit says.  Each commit
-- is refused and rolled back, and the tables still equal their queries (verify()).
SET client_min_messages = warning;
CREATE TABLE rcl_parent (id int PRIMARY KEY, v int) PARTITION BY RANGE (id);
CREATE TABLE rcl_p1 PARTITION OF rcl_parent FOR VALUES FROM (0) TO (100);
CREATE TABLE rcl_p2 PARTITION OF rcl_parent FOR VALUES FROM (100) TO (200);
INSERT INTO rcl_parent VALUES (1, 1), (101, 1);
CREATE TABLE rcl_other (id int PRIMARY KEY);
CREATE TABLE rcl_other2 (id int PRIMARY KEY);
CREATE FUNCTION rcl_to_p1() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN INSERT INTO public.rcl_p1 VALUES (NEW.id, 0); RETURN NEW; END $$;
CREATE FUNCTION rcl_to_p2() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN INSERT INTO public.rcl_p2 VALUES (NEW.id, 0); RETURN NEW; END $$;
CREATE TRIGGER rcl_other_t AFTER INSERT ON rcl_other FOR EACH ROW EXECUTE FUNCTION rcl_to_p1();
CREATE TRIGGER rcl_other2_t AFTER INSERT ON rcl_other2 FOR EACH ROW EXECUTE FUNCTION rcl_to_p2();
-- a table over one partition, and one over the partitioned table
SELECT dynview.create_dynamic_table('rcl_part', 'SELECT id, v FROM rcl_p1', schedule => 'manual') IS NOT NULL AS created;
SELECT dynview.create_dynamic_table('rcl_whole', 'SELECT id, v FROM rcl_parent', schedule => 'manual') IS NOT NULL AS created;
\set VERBOSITY default
-- routed through the parent (not a source of rcl_part) to its source rcl_p1
BEGIN;
SELECT refresh_mode FROM dynview.refresh('rcl_part');
INSERT INTO rcl_parent VALUES (2, 2);
COMMIT;
-- a trigger on another table writes the source
BEGIN;
SELECT refresh_mode FROM dynview.refresh('rcl_part');
INSERT INTO rcl_other VALUES (3);
COMMIT;
-- a trigger writes a partition of the partitioned source: the partition is named
BEGIN;
SELECT refresh_mode FROM dynview.refresh('rcl_whole');
INSERT INTO rcl_other2 VALUES (150);
COMMIT;
\set VERBOSITY terse
SELECT count(*) AS rows_kept FROM rcl_parent;
SELECT refresh_mode FROM dynview.refresh('rcl_part');
SELECT refresh_mode FROM dynview.refresh('rcl_whole');
SELECT dynview.verify('rcl_part') AS part_verified, dynview.verify('rcl_whole') AS whole_verified;
SELECT dynview.drop_dynamic_table('rcl_part');
SELECT dynview.drop_dynamic_table('rcl_whole');
DROP TABLE rcl_parent, rcl_other, rcl_other2;
DROP FUNCTION rcl_to_p1(), rcl_to_p2();
