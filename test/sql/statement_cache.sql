-- The generated statements of incremental refreshes are kept per backend and used again
-- (issues 13/14, src/refresh/statements.c): what must drop or re-plan them does.  All in one
-- connection (the cache is the backend's): refreshes of the same tables with windows of one
-- row and of thousands (a statement prepared for one size is not used for a size ten times
-- larger), a source column's type changed (the windows' columns change type, the statements'
-- text does not), the definition replaced, a state table dropped and rebuilt, a FULL refresh
-- in between, a new owner, and two tables whose statements read the same source.  Every
-- refresh is checked with verify().
SET client_min_messages = warning;
SET dynview.full_refresh_change_ratio = 0;
CREATE TABLE sc_dim (d int PRIMARY KEY, label text);
CREATE TABLE sc_src (id int PRIMARY KEY, dref int, v int, note text);
INSERT INTO sc_dim SELECT i, 'd' || i FROM generate_series(1, 5) i;
INSERT INTO sc_src SELECT i, 1 + i % 5, i, 'n' || i FROM generate_series(1, 100) i;
-- a join with a derived key, an aggregate with state (a downstream of the join), a LEFT JOIN,
-- and a grouped subquery with an operator state
SELECT dynview.create_dynamic_table('sc_join', 'SELECT s.id, s.v, d.label FROM sc_src s JOIN sc_dim d ON d.d = s.dref', schedule => 'manual');
SELECT dynview.create_dynamic_table('sc_agg', 'SELECT label, count(*) AS n, sum(v) AS total, max(v) AS top FROM sc_join GROUP BY label', schedule => 'manual');
SELECT dynview.create_dynamic_table('sc_left', 'SELECT d.d, d.label, s.id, s.v FROM sc_dim d LEFT JOIN sc_src s ON s.dref = d.d AND s.v > 50', schedule => 'manual');
SELECT dynview.create_dynamic_table('sc_sub', 'SELECT d.label, g.total FROM sc_dim d JOIN (SELECT dref, sum(v) AS total FROM sc_src GROUP BY dref) g ON g.dref = d.d', schedule => 'manual');

CREATE TABLE sc_tables (name text);
INSERT INTO sc_tables VALUES ('sc_agg'), ('sc_join'), ('sc_left'), ('sc_sub');
-- refresh in dependency order (sc_join before sc_agg), verify each
CREATE FUNCTION sc_refresh() RETURNS TABLE (name text, refresh_mode text, reason text, verified boolean)
LANGUAGE plpgsql AS $$
DECLARE
  t text;
  r dynview.refresh_history;
BEGIN
  FOREACH t IN ARRAY ARRAY['sc_join', 'sc_agg', 'sc_left', 'sc_sub'] LOOP
    r := dynview.refresh(t);
    name := t; refresh_mode := r.refresh_mode; reason := r.mode_reason_code;
    verified := dynview.verify(t);
    RETURN NEXT;
  END LOOP;
END $$;

-- 1. the same small change three times: the statements of the second and third are the kept ones
UPDATE sc_src SET v = v + 1 WHERE id = 7;
SELECT * FROM sc_refresh();
UPDATE sc_src SET v = v + 1 WHERE id = 8;
SELECT * FROM sc_refresh();
DELETE FROM sc_src WHERE id = 9;
INSERT INTO sc_src VALUES (9, 2, 90, 'again');
SELECT * FROM sc_refresh();

-- 2. windows of very different sizes, one after the other: 3,000 rows, one row, 3,000 rows
INSERT INTO sc_src SELECT i, 1 + i % 5, i % 97, NULL FROM generate_series(1001, 4000) i;
SELECT * FROM sc_refresh();
UPDATE sc_src SET v = v + 1 WHERE id = 10;
SELECT * FROM sc_refresh();
UPDATE sc_src SET v = v + 2 WHERE id > 1000;
SELECT * FROM sc_refresh();
DELETE FROM sc_src WHERE id > 1000;
SELECT * FROM sc_refresh();

-- 3. the state tables dropped (of the aggregate and of the grouped subquery): FULL
-- (STATE_MISSING) builds them again under the same names; the kept statements that name them
-- read the new ones
SELECT count(*) AS states FROM pg_class c
 WHERE c.relnamespace = 'dynview_state'::regnamespace AND c.relkind = 'r'
   AND (c.relname LIKE '%\_' || 'sc_agg'::regclass::oid || '%' OR c.relname LIKE '%\_' || 'sc_sub'::regclass::oid || '%');
DO $$
DECLARE
  st text;
BEGIN
  FOR st IN SELECT format('dynview_state.%I', c.relname) FROM pg_class c
             WHERE c.relnamespace = 'dynview_state'::regnamespace AND c.relkind = 'r'
               AND (c.relname LIKE '%\_' || 'sc_agg'::regclass::oid || '%' OR c.relname LIKE '%\_' || 'sc_sub'::regclass::oid || '%') LOOP
    EXECUTE format('ALTER EXTENSION dynview DROP TABLE %s', st);
    EXECUTE format('DROP TABLE %s', st);
  END LOOP;
END $$;
UPDATE sc_src SET v = v + 5 WHERE id = 16;
SELECT * FROM sc_refresh();
UPDATE sc_src SET v = v + 5 WHERE id = 17;
SELECT * FROM sc_refresh();

-- 4. a source column's type changed: the same statement texts now read numeric windows
ALTER TABLE sc_src ALTER COLUMN v TYPE numeric;
SELECT * FROM sc_refresh();
UPDATE sc_src SET v = v + 0.25 WHERE id IN (11, 12);
SELECT * FROM sc_refresh();
UPDATE sc_src SET v = v + 0.5 WHERE id = 13;
SELECT * FROM sc_refresh();
SELECT total FROM sc_agg ORDER BY label;

-- 5. a definition replaced (same name, another query), then small changes again
SELECT dynview.create_or_replace_dynamic_table('sc_agg', 'SELECT label, count(*) AS n, sum(v) AS total, min(v) AS top FROM sc_join GROUP BY label');
SELECT * FROM sc_refresh();
UPDATE sc_src SET v = v - 3 WHERE id = 14;
SELECT * FROM sc_refresh();
UPDATE sc_src SET v = v - 3 WHERE id = 15;
SELECT * FROM sc_refresh();

-- 6. FULL refreshes in between (a source truncated: the tables and their states rewritten),
-- then incremental again
BEGIN;
TRUNCATE sc_dim;
INSERT INTO sc_dim SELECT i, 'd' || i FROM generate_series(1, 5) i;
COMMIT;
SELECT * FROM sc_refresh();
UPDATE sc_src SET v = v + 1 WHERE id = 18;
SELECT * FROM sc_refresh();

-- 7. a new owner: the statements run as the owner again (and are prepared anew)
CREATE ROLE regress_dv_sc_owner;
GRANT SELECT ON sc_src, sc_dim TO regress_dv_sc_owner;
ALTER TABLE sc_left OWNER TO regress_dv_sc_owner;
UPDATE sc_src SET v = v + 60 WHERE id = 19;
SELECT * FROM sc_refresh();
UPDATE sc_src SET v = v - 60 WHERE id = 19;
SELECT * FROM sc_refresh();

-- 8. a dimension row changed and a column added to the source (its relcache entry, not the
-- statements' text, changes), then a change through the new column's table
INSERT INTO sc_dim VALUES (6, 'd6');
UPDATE sc_src SET dref = 6 WHERE id BETWEEN 20 AND 25;
ALTER TABLE sc_src ADD COLUMN extra int DEFAULT 0;
SELECT * FROM sc_refresh();
UPDATE sc_dim SET label = 'six' WHERE d = 6;
SELECT * FROM sc_refresh();
SELECT label, n FROM sc_agg ORDER BY label;

SELECT dynview.drop_dynamic_table(n) FROM unnest(ARRAY['sc_sub', 'sc_left', 'sc_agg', 'sc_join']) n;
DROP FUNCTION sc_refresh();
DROP TABLE sc_tables, sc_src, sc_dim;
DROP ROLE regress_dv_sc_owner;
