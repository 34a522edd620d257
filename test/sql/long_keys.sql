-- Group keys longer than a B-tree index entry takes (about 2.7 kB): a grouped subquery that keeps
-- its groups in a state (dynview_state.ext_<oid>_<n>) indexes such a key by its hash
-- (pg_catalog.hash_record_extended), not by its value, and looks groups up by hash and value.
-- Multi-kB keys that do not compress (md5 strings), NULL keys, a second key beside a wide one;
-- inserts, updates and deletes; verify() after every refresh.
SET client_min_messages = warning;
\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round
CREATE FUNCTION lk_wide(n int, seed int) RETURNS text LANGUAGE sql IMMUTABLE AS
  $$ SELECT string_agg(md5((seed * 100000 + i)::text), '') FROM generate_series(1, n) i $$;
CREATE TABLE lk_li (id int PRIMARY KEY, k text, h int, v int);
CREATE TABLE lk_dim (id int PRIMARY KEY, k text, h int);
INSERT INTO lk_li SELECT i, lk_wide(300, i % 3), i % 2, i FROM generate_series(1, 12) i;
INSERT INTO lk_li VALUES (13, NULL, 0, 7);
INSERT INTO lk_dim SELECT i, lk_wide(300, i % 5), i % 2 FROM generate_series(1, 5) i;
INSERT INTO lk_dim VALUES (6, NULL, 0);
SELECT length(lk_wide(300, 1)) AS key_bytes;

CREATE TABLE lk_tables (name text PRIMARY KEY, query text);
INSERT INTO lk_tables VALUES
  -- a grouped subquery on one wide key, joined by it
  ('lk_one', 'SELECT lk_dim.id, x.s, x.c FROM (SELECT k, sum(v) AS s, count(*) AS c FROM lk_li GROUP BY k) x JOIN lk_dim ON lk_dim.k = x.k'),
  -- a wide key and an integer key, NULL keys kept by a LEFT JOIN
  ('lk_two', 'SELECT lk_dim.id, x.h, x.s FROM lk_dim LEFT JOIN (SELECT k, h, sum(v) AS s FROM lk_li GROUP BY k, h) x ON x.k IS NOT DISTINCT FROM lk_dim.k AND x.h = lk_dim.h');
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual') IS NOT NULL AS created
  FROM lk_tables ORDER BY name;
SELECT t.name, d.effective_mode,
       (SELECT count(*) FROM regexp_matches(e.value, 'aggregates kept in state', 'g')) AS kept_groups
  FROM lk_tables t JOIN dynview.dynamic_tables d ON d.name = t.name::regclass
  JOIN dynview.explain_dynamic_table(t.name) e ON e.property = 'operator tree' ORDER BY 1;
-- the states' indexes: by the hash of the wide key, not unique
SELECT t.name, i.indisunique,
       pg_get_indexdef(i.indexrelid) ~ 'hash_record_extended\(ROW\(k1\)' AS hashed
  FROM lk_tables t JOIN pg_class c ON c.relnamespace = 'dynview_state'::regnamespace
   AND c.relname LIKE 'ext\_' || t.name::regclass::oid || '\_%' AND c.relkind = 'r'
  JOIN pg_index i ON i.indrelid = c.oid ORDER BY t.name, 2, 3;

SELECT * FROM dv_refresh_round('lk_tables');
-- new wide groups, a group emptied, NULL keys
INSERT INTO lk_li SELECT i, lk_wide(300, i % 4), i % 2, i FROM generate_series(14, 25) i;
INSERT INTO lk_li VALUES (26, NULL, 1, 3);
SELECT * FROM dv_refresh_round('lk_tables');
DELETE FROM lk_li WHERE k = lk_wide(300, 0);
UPDATE lk_li SET v = v + 10 WHERE id % 2 = 0;
UPDATE lk_li SET k = lk_wide(300, 7) WHERE id = 13;
SELECT * FROM dv_refresh_round('lk_tables');
-- the dimension side changes too
UPDATE lk_dim SET k = lk_wide(300, 0) WHERE id = 1;
INSERT INTO lk_li VALUES (27, lk_wide(300, 0), 1, 1);
DELETE FROM lk_li WHERE k IS NULL;
SELECT * FROM dv_refresh_round('lk_tables');
-- each state row of lk_one is a group of lk_li with its row count
CREATE FUNCTION lk_state_ok() RETURNS bool LANGUAGE plpgsql AS $$
DECLARE
  rel regclass;
  same bool;
BEGIN
  SELECT c.oid INTO STRICT rel FROM pg_class c WHERE c.relnamespace = 'dynview_state'::regnamespace
     AND c.relname LIKE 'ext\_' || 'lk_one'::regclass::oid || '\_%' AND c.relkind = 'r';
  EXECUTE format('SELECT (SELECT array_agg(ROW(md5(k1), dv_count)::text ORDER BY md5(k1)) FROM %s)
                  IS NOT DISTINCT FROM (SELECT array_agg(ROW(md5(k), c)::text ORDER BY md5(k))
                                        FROM (SELECT k, count(*) AS c FROM lk_li GROUP BY k) g)', rel) INTO same;
  RETURN same;
END $$;
SELECT lk_state_ok();

SELECT dynview.drop_dynamic_table(name) FROM lk_tables ORDER BY name;
SELECT count(*) AS states_left FROM pg_class WHERE relnamespace = 'dynview_state'::regnamespace AND relname LIKE 'ext\_%';
DROP FUNCTION lk_state_ok();
DROP FUNCTION dv_refresh_round(regclass);
DROP FUNCTION lk_wide(int, int);
DROP TABLE lk_tables, lk_li, lk_dim;
