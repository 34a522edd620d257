-- The stored signatures (catalog.c, dv_signature): a source's shape and the definition's tree are
-- signed "h1:" and 128 bits of PostgreSQL's hash_bytes_extended under two seeds; older builds stored
-- the md5 of the same text, which is still compared as an md5: a table made by an older build does
-- not refresh FULL for a change that did not happen, and its signatures are stored anew by its next
-- refresh.  An old-form signature that does not match still makes the refresh FULL.
SET client_min_messages = warning;
CREATE TABLE sig_src (id int PRIMARY KEY, grp text NOT NULL, v numeric);
CREATE UNIQUE INDEX sig_src_grp_id ON sig_src (grp, id) WHERE v IS NOT NULL;
INSERT INTO sig_src SELECT g, 'g' || (g % 3), g * 1.5 FROM generate_series(1, 9) g;
SELECT dynview.create_dynamic_table('sig_dt',
  'SELECT grp, count(*) AS n, sum(v) AS s FROM sig_src GROUP BY grp', schedule => 'manual');
-- the shape of sig_src as catalog.c writes it (source_shape), spelled in SQL
CREATE FUNCTION sig_shape(r regclass) RETURNS text LANGUAGE sql AS $$
  SELECT c.relfilenode || ':' || CASE WHEN c.relhassubclass THEN 'c' ELSE '-' END || ':' ||
         (SELECT string_agg(a.attnum || ' ' || a.attname || ' ' || a.atttypid::int8 || ' ' || a.atttypmod || ' ' ||
                            a.attcollation::int8 || ' ' || CASE WHEN a.attnotnull THEN 'n' ELSE '-' END, ',' ORDER BY a.attnum)
            FROM pg_attribute a WHERE a.attrelid = r AND a.attnum > 0 AND NOT a.attisdropped) ||
         COALESCE((SELECT string_agg(';' || e, '' ORDER BY e COLLATE "C") FROM (
           SELECT 'u' || CASE WHEN i.indimmediate THEN 'i' ELSE 'd' END ||
                  CASE WHEN i.indnullsnotdistinct THEN 'n' ELSE 'd' END ||
                  CASE WHEN i.indpred IS NULL THEN '-' ELSE 'p' END ||
                  CASE WHEN i.indexprs IS NULL THEN '-' ELSE 'e' END || '(' ||
                  (SELECT string_agg(i.indkey[k] || ' ' || i.indclass[k]::int8 || ' ' || i.indcollation[k]::int8, ',' ORDER BY k)
                     FROM generate_series(0, i.indnkeyatts - 1) k) || ')' AS e
             FROM pg_index i WHERE i.indrelid = r AND i.indisunique AND i.indisvalid AND i.indislive) x), '')
    FROM pg_class c WHERE c.oid = r $$;
-- today's form: the marker and two 64-bit hashes of that text (hashtextextended is hash_bytes_extended
-- of a text's bytes), the same as dynview._source_signature() and as stored
SELECT s.source_signature ~ '^h1:[0-9a-f]{32}$' AS new_form,
       s.source_signature = 'h1:' || lpad(to_hex(hashtextextended(sig_shape('sig_src'), 7239948071020736561)), 16, '0')
                                  || lpad(to_hex(hashtextextended(sig_shape('sig_src'), 7239948071020736562)), 16, '0') AS is_hash_of_shape,
       s.source_signature = dynview._source_signature('sig_src'::regclass) AS as_function
  FROM dynview.source_catalog s WHERE s.relid = 'sig_dt'::regclass;
SELECT definition_signature ~ '^h1:[0-9a-f]{32}$' AS definition_new_form
  FROM dynview.dynamic_table_catalog WHERE relid = 'sig_dt'::regclass;
CREATE VIEW sig_check AS
  SELECT (SELECT array_agg(t::text ORDER BY t::text) FROM sig_dt t) =
         (SELECT array_agg(q::text ORDER BY q::text) FROM (SELECT grp, count(*) AS n, sum(v) AS s FROM sig_src GROUP BY grp) q)
         AS same_text,
         (SELECT count(*) FROM sig_dt t FULL JOIN (SELECT grp, count(*) AS n, sum(v) AS s FROM sig_src GROUP BY grp) q
            ON t.grp = q.grp AND t.n = q.n AND t.s = q.s WHERE t.grp IS NULL OR q.grp IS NULL) AS unmatched;
-- the source's signature as an older build stored it (the md5 of the same text): the next refresh
-- is incremental, and stores the signature in today's form
UPDATE dynview.source_catalog SET source_signature = md5(sig_shape('sig_src'))
 WHERE relid = 'sig_dt'::regclass;
INSERT INTO sig_src VALUES (10, 'g1', 7), (11, 'g9', 2.50);
UPDATE sig_src SET v = v + 1 WHERE id = 2;
SELECT dynview.wait_for_capture();
SELECT refresh_mode, mode_reason_code, rows_inserted, rows_deleted FROM dynview.refresh('sig_dt');
SELECT dynview.verify('sig_dt');
SELECT * FROM sig_check;
SELECT source_signature = dynview._source_signature('sig_src'::regclass) AS stored_anew
  FROM dynview.source_catalog WHERE relid = 'sig_dt'::regclass;
-- an old-form signature that does not match the shape: the source was altered for all dynview
-- knows (FULL, SOURCE_ALTERED), and its signature is stored anew
UPDATE dynview.source_catalog SET source_signature = md5(sig_shape('sig_src') || ' ')
 WHERE relid = 'sig_dt'::regclass;
DELETE FROM sig_src WHERE id = 4;
SELECT dynview.wait_for_capture();
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('sig_dt');
SELECT dynview.verify('sig_dt');
SELECT * FROM sig_check;
SELECT source_signature = dynview._source_signature('sig_src'::regclass) AS stored_anew
  FROM dynview.source_catalog WHERE relid = 'sig_dt'::regclass;
-- a definition signature in the old form that does not match the tree: FULL (DEFINITION_CHANGED),
-- stored anew, and the refresh after is incremental
UPDATE dynview.dynamic_table_catalog SET definition_signature = md5('not the tree')
 WHERE relid = 'sig_dt'::regclass;
INSERT INTO sig_src VALUES (12, 'g2', 3);
SELECT dynview.wait_for_capture();
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('sig_dt');
SELECT dynview.verify('sig_dt');
SELECT definition_signature ~ '^h1:[0-9a-f]{32}$' AS definition_new_form
  FROM dynview.dynamic_table_catalog WHERE relid = 'sig_dt'::regclass;
INSERT INTO sig_src VALUES (13, 'g0', 4);
SELECT dynview.wait_for_capture();
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('sig_dt');
SELECT dynview.verify('sig_dt');
SELECT * FROM sig_check;
-- a real change still shows through today's form: a column added
ALTER TABLE sig_src ADD COLUMN extra int;
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('sig_dt');
SELECT dynview.verify('sig_dt');
SELECT * FROM sig_check;
DROP VIEW sig_check;
SELECT dynview.drop_dynamic_table('sig_dt');
DROP FUNCTION sig_shape(regclass);
DROP TABLE sig_src;
