-- Publishing dynamic tables (issue 16): a dynamic table has no primary key, so a publication that
-- publishes its updates and deletes would make its refreshes fail ("does not have a replica
-- identity and publishes deletes"); dynview sets REPLICA IDENTITY FULL on it, with a NOTICE, when
-- a publication starts to include it (CREATE/ALTER PUBLICATION) or when it is created already
-- included (FOR TABLES IN SCHEMA, FOR ALL TABLES).  An identity the owner chose is kept.
SET client_min_messages = warning;
CREATE TABLE pub_src (id int PRIMARY KEY, g text, v int);
INSERT INTO pub_src SELECT i, 'g' || (i % 3), i FROM generate_series(1, 30) i;
SELECT dynview.create_dynamic_table('pub_totals',
  'SELECT g, count(*) AS n, sum(v) AS s FROM pub_src GROUP BY g', schedule => 'manual');
SELECT dynview.create_dynamic_table('pub_keyed', 'SELECT id, v FROM pub_src WHERE v > 10',
  schedule => 'manual', primary_key => '{id}');
SELECT dynview.create_dynamic_table('pub_nothing', 'SELECT g, max(v) AS m FROM pub_src GROUP BY g',
  schedule => 'manual');
RESET client_min_messages;
CREATE VIEW pub_identity AS
  SELECT c.relname, c.relreplident, (SELECT count(*) FROM pg_index i WHERE i.indrelid = c.oid AND i.indisprimary) AS pk
    FROM pg_class c WHERE c.relname LIKE 'pub\_%' AND c.relkind IN ('r', 'p') ORDER BY 1;
SELECT * FROM pub_identity;

-- FOR TABLE: the dynamic table without a key gets FULL (NOTICE); a source is left alone
CREATE PUBLICATION pub_a FOR TABLE pub_totals, pub_src;
SELECT * FROM pub_identity;
-- its refresh (updates and deletes of groups) now works, and is exact
UPDATE pub_src SET v = v + 100 WHERE id = 1;
DELETE FROM pub_src WHERE id = 2;
SELECT state, refresh_mode, rows_inserted, rows_deleted FROM dynview.refresh('pub_totals');
SELECT dynview.verify('pub_totals');

-- a publication of inserts only needs no identity: nothing set
CREATE PUBLICATION pub_ins FOR TABLE pub_nothing WITH (publish = 'insert');
SELECT relreplident FROM pub_identity WHERE relname = 'pub_nothing';
-- the owner's choice is kept: NOTHING stays NOTHING when added to a publication of deletes
ALTER TABLE pub_nothing REPLICA IDENTITY NOTHING;
ALTER PUBLICATION pub_a ADD TABLE pub_nothing;
SELECT relreplident FROM pub_identity WHERE relname = 'pub_nothing';
-- (so its refresh fails as PostgreSQL says, and changes nothing)
SELECT state FROM dynview.refresh('pub_nothing');
SELECT dynview.verify('pub_nothing');
ALTER PUBLICATION pub_a DROP TABLE pub_nothing;
SELECT state FROM dynview.refresh('pub_nothing');
SELECT dynview.verify('pub_nothing');

-- SET TABLE, and SET (publish) that adds deletes (primary_key => makes a unique index, not a
-- primary key, so it needs FULL too)
ALTER PUBLICATION pub_ins SET TABLE pub_keyed;
ALTER PUBLICATION pub_ins SET (publish = 'insert, update, delete');
ALTER PUBLICATION pub_a SET TABLE pub_totals, pub_keyed;
SELECT * FROM pub_identity;
SELECT state, refresh_mode FROM dynview.refresh('pub_keyed');
SELECT dynview.verify('pub_keyed');

-- dropped from the publication, a dynamic table keeps FULL
ALTER PUBLICATION pub_a DROP TABLE pub_totals;
SELECT relreplident FROM pub_identity WHERE relname = 'pub_totals';

-- FOR TABLES IN SCHEMA: the dynamic tables of the schema now, and one created later
CREATE SCHEMA pub_s;
SET client_min_messages = warning;
SELECT dynview.create_dynamic_table('pub_s.pub_in_schema',
  'SELECT g, sum(v) AS s FROM pub_src GROUP BY g', schedule => 'manual');
RESET client_min_messages;
CREATE PUBLICATION pub_b FOR TABLES IN SCHEMA pub_s;
SELECT dynview.create_dynamic_table('pub_s.pub_later',
  'SELECT g, count(*) AS n FROM pub_src GROUP BY g', schedule => 'manual');
SELECT * FROM pub_identity WHERE relname IN ('pub_in_schema', 'pub_later');
DELETE FROM pub_src WHERE g = 'g0';
SELECT state, refresh_mode FROM dynview.refresh('pub_s.pub_in_schema');
SELECT state, refresh_mode FROM dynview.refresh('pub_s.pub_later');
SELECT dynview.verify('pub_s.pub_in_schema'), dynview.verify('pub_s.pub_later');
-- and one moved into the published schema by ALTER TABLE ... SET SCHEMA
SET client_min_messages = warning;
SELECT dynview.create_dynamic_table('pub_moved', 'SELECT g, min(v) AS m FROM pub_src GROUP BY g',
  schedule => 'manual');
RESET client_min_messages;
ALTER TABLE pub_moved SET SCHEMA pub_s;
SELECT * FROM pub_identity WHERE relname = 'pub_moved';
UPDATE pub_src SET v = v + 1000 WHERE g = 'g1';
SELECT state, refresh_mode FROM dynview.refresh('pub_s.pub_moved');
SELECT dynview.verify('pub_s.pub_moved');

-- a partitioned dynamic table: its partitions (the tables its refreshes write) get FULL,
-- those there when it is published and those made later
SET client_min_messages = warning;
SELECT dynview.create_partitioned_dynamic_table('pub_daily',
  'SELECT g, count(*) AS n, dynview.partition() AS day FROM pub_src GROUP BY g', partition_by => 'day');
SELECT state FROM dynview.refresh('pub_daily', partition => '2026-05-26');
RESET client_min_messages;
CREATE PUBLICATION pub_c FOR TABLE pub_daily;
SELECT state FROM dynview.refresh('pub_daily', partition => '2026-05-27');
SELECT * FROM pub_identity WHERE relname LIKE 'pub_daily%';
UPDATE pub_src SET v = 0 WHERE id = 3;
INSERT INTO pub_src VALUES (31, 'g9', 1);
SELECT state FROM dynview.refresh('pub_daily', partition => '2026-05-26');
SELECT state FROM dynview.refresh('pub_daily', partition => '2026-05-27');
SELECT dynview.verify('pub_daily_2026_05_26'), dynview.verify('pub_daily_2026_05_27');

DROP PUBLICATION pub_a, pub_b, pub_c, pub_ins;
SET client_min_messages = warning;
DROP TABLE pub_daily, pub_totals, pub_keyed, pub_nothing, pub_s.pub_in_schema, pub_s.pub_later, pub_s.pub_moved;
DROP SCHEMA pub_s;
DROP VIEW pub_identity;
DROP TABLE pub_src;
