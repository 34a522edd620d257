-- The two stored signatures (a source's shape, dynview._source_signature; a definition's analysed
-- tree) are md5 digests that dynview computes itself since the fifteenth session (catalog/digest.c),
-- no longer through OpenSSL (whose first use cost every new connection's first refresh ~1.5 ms).
-- They must stay the md5 that pg_md5_hash() gave, or every table made by an older build would see
-- its sources altered and refresh FULL.  A source's signature is the md5 of a text SQL can build
-- again: compared with SQL's md5() over texts of every length modulo 64 (one or two final blocks),
-- and over a text of many blocks.
SET client_min_messages = warning;
DO $$
BEGIN
  FOR k IN 1..64 LOOP
    -- names of 1 + 0..63 characters in all (a name is at most 63)
    EXECUTE format('CREATE TABLE %I (%I int, %I text NOT NULL)', 'sd_' || k,
                   repeat('c', 1 + (k - 1) % 32), 'v' || repeat('w', (k - 1) / 32 * 32));
  END LOOP;
  EXECUTE 'CREATE TABLE sd_wide (' ||
    (SELECT string_agg(format('%I numeric(12, 2)', 'column_with_a_long_name_' || i), ', ')
       FROM generate_series(1, 60) i) || ')';
END $$;
CREATE VIEW sd_text AS
SELECT c.oid AS relid, c.relname,
       c.relfilenode || ':' || CASE WHEN c.relhassubclass THEN 'c' ELSE '-' END || ':' ||
       string_agg(format('%s %s %s %s %s %s', a.attnum, a.attname, a.atttypid, a.atttypmod,
                         a.attcollation, CASE WHEN a.attnotnull THEN 'n' ELSE '-' END),
                  ',' ORDER BY a.attnum) AS shape
  FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
 WHERE c.relname LIKE 'sd\_%' AND c.relkind = 'r'
 GROUP BY c.oid, c.relname, c.relfilenode, c.relhassubclass;
-- every residue of the text's length modulo 64 is met, and the wide table's text spans many blocks
SELECT count(DISTINCT length(shape) % 64) AS residues, max(length(shape)) > 1000 AS many_blocks,
       count(*) AS tables,
       count(*) FILTER (WHERE dynview._source_signature(relid) = md5(shape)) AS equal
  FROM sd_text;
-- a mismatch shows here as a row
SELECT relname, dynview._source_signature(relid), md5(shape)
  FROM sd_text WHERE dynview._source_signature(relid) IS DISTINCT FROM md5(shape);
-- a dynamic table over one of them: its signatures, recorded at creation, still match at each
-- refresh (no SOURCE_ALTERED, no DEFINITION_CHANGED), and every refresh equals its query
SELECT dynview.create_dynamic_table('sd_dt', 'SELECT v, count(*) AS n FROM sd_7 GROUP BY v',
                                    schedule => 'manual', refresh_mode => 'incremental');
INSERT INTO sd_7 SELECT i, 'v' || i % 3 FROM generate_series(1, 30) i;
SELECT dynview.wait_for_capture('1 minute');
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('sd_dt');
SELECT dynview.verify('sd_dt');
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('sd_dt');
SELECT dynview.verify('sd_dt');
SELECT s.source_signature = md5(t.shape) AS stored_is_md5
  FROM dynview.source_catalog s JOIN sd_text t ON t.relid = s.source_relid
 WHERE s.relid = 'sd_dt'::regclass;
SELECT (SELECT string_agg(format('%s:%s', v, n), ',' ORDER BY v) FROM sd_dt) =
       (SELECT string_agg(format('%s:%s', v, n), ',' ORDER BY v)
          FROM (SELECT v, count(*) AS n FROM sd_7 GROUP BY v) q) AS same_text;
SELECT dynview.drop_dynamic_table('sd_dt');
DROP VIEW sd_text;
DO $$
BEGIN
  FOR k IN 1..64 LOOP
    EXECUTE format('DROP TABLE %I', 'sd_' || k);
  END LOOP;
END $$;
DROP TABLE sd_wide;
