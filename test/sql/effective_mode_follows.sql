-- dynamic_tables.effective_mode follows what the query depends on: CREATE OR REPLACE FUNCTION
-- making a function the query calls VOLATILE (or STABLE) made every refresh FULL
-- (VOLATILE_FUNCTION) while the catalog kept showing INCREMENTAL.  Each refresh resolves the
-- declared mode again: the catalog and explain_dynamic_table() agree with the refreshes.
SET client_min_messages = warning;
CREATE TABLE emf_src (id int PRIMARY KEY, v int);
INSERT INTO emf_src VALUES (1, 1), (2, 2);
CREATE FUNCTION emf_double(int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT $1 * 2';
SELECT dynview.create_dynamic_table('emf_auto', 'SELECT id, emf_double(v) AS d FROM emf_src',
                                    schedule => 'manual') IS NOT NULL AS created;
SELECT dynview.create_dynamic_table('emf_full', 'SELECT id, emf_double(v) AS d FROM emf_src',
                                    schedule => 'manual', refresh_mode => 'full') IS NOT NULL AS created;
CREATE VIEW emf_modes AS
  SELECT c.table_name, c.effective_mode, c.mode_reason_code,
         (SELECT e.value FROM dynview.explain_dynamic_table(c.relid::regclass::text) e WHERE e.property = 'mode') AS explained
    FROM dynview.dynamic_table_catalog c WHERE c.table_name LIKE 'emf\_%' ORDER BY c.table_name;
SELECT * FROM emf_modes;
-- the function becomes VOLATILE: the next refresh is FULL and the catalog says so
CREATE OR REPLACE FUNCTION emf_double(int) RETURNS int LANGUAGE sql VOLATILE AS 'SELECT $1 * 2';
INSERT INTO emf_src VALUES (3, 3);
SELECT n AS name, r.refresh_mode, r.mode_reason_code, dynview.verify(n)
  FROM unnest(ARRAY['emf_auto', 'emf_full']) n, LATERAL dynview.refresh(n) r ORDER BY n;
SELECT * FROM emf_modes;
-- and STABLE: still FULL (the catalog does not change)
CREATE OR REPLACE FUNCTION emf_double(int) RETURNS int LANGUAGE sql STABLE AS 'SELECT $1 * 2';
SELECT n AS name, r.refresh_mode, r.mode_reason_code, dynview.verify(n)
  FROM unnest(ARRAY['emf_auto', 'emf_full']) n, LATERAL dynview.refresh(n) r ORDER BY n;
SELECT * FROM emf_modes;
-- IMMUTABLE again: INCREMENTAL again (the declared 'full' stays FULL)
CREATE OR REPLACE FUNCTION emf_double(int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT $1 * 2';
UPDATE emf_src SET v = 10 WHERE id = 1;
DELETE FROM emf_src WHERE id = 2;
SELECT n AS name, r.refresh_mode, r.mode_reason_code, dynview.verify(n)
  FROM unnest(ARRAY['emf_auto', 'emf_full']) n, LATERAL dynview.refresh(n) r ORDER BY n;
SELECT * FROM emf_modes;
INSERT INTO emf_src VALUES (4, 4);
SELECT n AS name, r.refresh_mode, r.mode_reason_code, dynview.verify(n)
  FROM unnest(ARRAY['emf_auto', 'emf_full']) n, LATERAL dynview.refresh(n) r ORDER BY n;
SELECT * FROM emf_auto ORDER BY id;
DROP VIEW emf_modes;
SELECT dynview.drop_dynamic_table('emf_auto'), dynview.drop_dynamic_table('emf_full');
DROP FUNCTION emf_double(int);
DROP TABLE emf_src;
