-- Group keys longer than a B-tree index entry takes (about 2.7 kB): a grouped subquery that keeps
-- its groups in a state (dynview_state.ext_<oid>_<n>) indexes such a key by its hash
-- (pg_catalog.hash_record_extended), not by its value, and looks groups up by hash and value.
-- Multi-kB keys that do not compress (md5 strings), NULL keys, a second key beside a wide one;
-- inserts, updates and deletes; verify() after every refresh.
SET client_min_messages = warning;
-- (the count(DISTINCT) multiplicities one row per group and value, whose index holds the value:
-- one row per group keeps the values in arrays, unindexed, and refreshes; distinct_arrays tests that)
SET dynview.distinct_values_per_row = 0;
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

-- A key of the table's own indexes (its apply index, the aggregate state kept in place, the
-- count(DISTINCT) multiplicities) that takes a long value: the refresh fails with PostgreSQL's
-- error (54000) and a hint that names the cause and what to do, and changes nothing; once the row
-- is gone, the next refresh succeeds.  Values of 3 kB (over the B-tree maximum) and 9.6 kB (over
-- an index entry's).
CREATE TABLE lk_own (id int PRIMARY KEY, k text, v int);
INSERT INTO lk_own VALUES (1, 'a', 1), (2, 'b', 2);
CREATE TABLE lk_own_tables (name text PRIMARY KEY, query text);
INSERT INTO lk_own_tables VALUES
  ('lk_own_grouped', 'SELECT k, count(*) AS n, sum(v) AS s FROM lk_own GROUP BY k'),
  ('lk_own_distinct', 'SELECT DISTINCT k FROM lk_own'),
  ('lk_own_count_distinct', 'SELECT v % 2 AS p, count(DISTINCT k) AS nk FROM lk_own GROUP BY v % 2');
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual') IS NOT NULL AS created
  FROM lk_own_tables ORDER BY name;
CREATE FUNCTION lk_own_try(t text) RETURNS TABLE (code text, hint_names_cause bool, rows_before bigint, rows_after bigint)
LANGUAGE plpgsql AS $$
DECLARE
  h text;
BEGIN
  EXECUTE format('SELECT count(*) FROM %I', t) INTO rows_before;
  BEGIN
    PERFORM dynview.refresh(t);
    code := 'none';
  EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS code = RETURNED_SQLSTATE, h = PG_EXCEPTION_HINT;
    hint_names_cause := h LIKE 'A key of the dynamic table %longer than dynview''s B-tree index can hold%';
  END;
  EXECUTE format('SELECT count(*) FROM %I', t) INTO rows_after;
  RETURN NEXT;
END $$;
INSERT INTO lk_own VALUES (3, lk_wide(94, 1), 3);
SELECT length(k) AS key_bytes FROM lk_own WHERE id = 3;
SELECT t.name, r.* FROM lk_own_tables t, lk_own_try(t.name) r ORDER BY 1;
SELECT name, dynview.verify(name) AS verified FROM lk_own_tables ORDER BY 1;
UPDATE lk_own SET k = lk_wide(300, 2) WHERE id = 3;
SELECT t.name, r.* FROM lk_own_tables t, lk_own_try(t.name) r ORDER BY 1;
DELETE FROM lk_own WHERE id = 3;
INSERT INTO lk_own VALUES (4, 'c', 4);
SELECT * FROM dv_refresh_round('lk_own_tables');
SELECT dynview.drop_dynamic_table(name) FROM lk_own_tables ORDER BY name;
DROP FUNCTION lk_own_try(text);
DROP TABLE lk_own_tables, lk_own;

SELECT dynview.drop_dynamic_table(name) FROM lk_tables ORDER BY name;
SELECT count(*) AS states_left FROM pg_class WHERE relnamespace = 'dynview_state'::regnamespace AND relname LIKE 'ext\_%';
DROP FUNCTION lk_state_ok();
DROP FUNCTION dv_refresh_round(regclass);
DROP FUNCTION lk_wide(int, int);
DROP TABLE lk_tables, lk_li, lk_dim;
