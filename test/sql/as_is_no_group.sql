-- A refresh whose windows are read as they are (dynview.linear_windows_as_is) and whose changes
-- reach no group (TPC-H Q19: changed rows that no partner row passes the filters with) is NO_DATA
-- when its windows consolidate to no row, INCREMENTAL otherwise, the modes consolidated windows
-- give.  The consolidation that decides it is paid only when the weights read sum to 0
-- (incremental.c read_and_apply, windows_cancel_out): a window whose weights do not sum to 0 has a
-- row left once consolidated.  Each window below is refreshed twice on the same changes: first
-- with the windows consolidated first (linear_windows_as_is off, rolled back: the oracle), then as
-- they are; the two modes must agree, and every refresh is compared with its query
-- (dynview.verify(), the rows by text and by =).
SET client_min_messages = warning;

CREATE TABLE ng_fact (id int PRIMARY KEY, pk int, q int, price numeric(12,2), mode text);
CREATE TABLE ng_dim (pk int PRIMARY KEY, brand text, size int);
INSERT INTO ng_dim SELECT i, 'B' || (i % 5), i % 10 FROM generate_series(1, 50) i;
INSERT INTO ng_fact SELECT i, 1 + i % 50, i % 30, i * 1.5, CASE WHEN i % 2 = 0 THEN 'AIR' ELSE 'SHIP' END
  FROM generate_series(1, 400) i;

CREATE TABLE ng_defs (name text, query text);
INSERT INTO ng_defs VALUES
  ('ng_glob', $$SELECT sum(price * (1 - q / 100.0)) AS revenue, count(*) AS n
                  FROM ng_fact, ng_dim
                 WHERE (ng_dim.pk = ng_fact.pk AND brand = 'B1' AND q BETWEEN 1 AND 10 AND mode = 'AIR')
                    OR (ng_dim.pk = ng_fact.pk AND brand = 'B2' AND size <= 5 AND q BETWEEN 10 AND 20 AND mode = 'AIR')$$),
  ('ng_grp', $$SELECT brand, sum(price) AS s, count(*) AS n FROM ng_fact JOIN ng_dim USING (pk)
                WHERE size = 3 GROUP BY brand$$);
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual', refresh_mode => 'incremental')
  FROM ng_defs ORDER BY name;

-- each table refreshed on the pending changes with consolidated windows (rolled back), then
-- as they are: both modes, and the comparisons with its query
\getenv abs_srcdir PG_ABS_SRCDIR
\set compare_defs :abs_srcdir '/sql/include/compare_defs.sql'
\i :compare_defs
CREATE FUNCTION ng_round()
RETURNS TABLE (name text, consolidated_mode text, as_is_mode text, verified boolean, same_text boolean, same_rows boolean)
LANGUAGE plpgsql AS $$
DECLARE
  d record;
  consolidated text[] := '{}';
  as_is text[] := '{}';
  mode text;
BEGIN
  FOR d IN SELECT * FROM ng_defs ORDER BY 1 LOOP
    BEGIN
      SET LOCAL dynview.linear_windows_as_is = off;
      SELECT r.refresh_mode INTO mode FROM dynview.refresh(d.name) r;
      consolidated := consolidated || mode;
      RAISE EXCEPTION USING ERRCODE = 'P0003';   -- undo that refresh
    EXCEPTION WHEN too_many_rows THEN NULL;
    END;
    SET LOCAL dynview.linear_windows_as_is = on;
    as_is := as_is || (SELECT r.refresh_mode FROM dynview.refresh(d.name) r);
  END LOOP;
  RETURN QUERY SELECT c.name, consolidated[row_number() OVER (ORDER BY c.name)], as_is[row_number() OVER (ORDER BY c.name)],
                      c.verified, c.same_text, c.same_rows
    FROM dv_compare_defs('ng_defs') c ORDER BY c.name;
END $$;

-- rows that reach no group (they pass the conditions on ng_fact alone, which the window read
-- applies: the mode and one arm's quantities, optree.c push_quals; no ng_dim row of their brand):
-- inserted only (the weights sum to 2, INCREMENTAL without consolidating)
INSERT INTO ng_fact VALUES (1001, 4, 5, 10, 'AIR'), (1002, 5, 5, 10, 'AIR');
SELECT * FROM ng_round();
-- inserted and deleted again (sum 0; they cancel: NO_DATA)
INSERT INTO ng_fact VALUES (1003, 4, 5, 10, 'AIR');
DELETE FROM ng_fact WHERE id = 1003;
SELECT * FROM ng_round();
-- one inserted, another deleted (sum 0, but they do not cancel: INCREMENTAL)
INSERT INTO ng_fact VALUES (1004, 8, 5, 10, 'AIR');
DELETE FROM ng_fact WHERE id = 1001;
SELECT * FROM ng_round();
-- updated (-old +new, sum 0, no cancel) and updated to the values it had (-r +r: cancel)
UPDATE ng_fact SET q = 15 WHERE id = 1002;
SELECT * FROM ng_round();
UPDATE ng_fact SET q = q WHERE id = 1002;
SELECT * FROM ng_round();
-- updated and back in one window (cancel), with a row whose weights sum to 0 left in the buffer
-- twice (-r +r -r +r)
UPDATE ng_fact SET q = 18 WHERE id = 1004;
UPDATE ng_fact SET q = 5 WHERE id = 1004;
SELECT * FROM ng_round();
-- deleted only (the weights sum to -1)
DELETE FROM ng_fact WHERE id = 1004;
SELECT * FROM ng_round();
-- and rows that do reach a group, beside ones that do not (the group delta says INCREMENTAL)
INSERT INTO ng_fact VALUES (1005, 3, 5, 10, 'AIR'), (1006, 11, 5, 20, 'AIR'), (1007, 1, 5, 1, 'SHIP');
DELETE FROM ng_fact WHERE id = 1007;
SELECT * FROM ng_round();
SELECT * FROM ng_glob;
SELECT brand, s, n FROM ng_grp ORDER BY brand;

SELECT count(dynview.drop_dynamic_table(name)) FROM ng_defs;
DROP FUNCTION ng_round();
DROP FUNCTION dv_compare_defs(regclass);
DROP TABLE ng_defs, ng_fact, ng_dim;
