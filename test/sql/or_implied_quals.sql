-- An OR in a WHERE or an inner join's ON (optree.c push_quals): the conjuncts its arms share are
-- conditions of their own (TPC-H Q19's join key and lineitem conditions), and an OR over two
-- relations implies a condition on each one's rows when every arm has one (or_implied_quals),
-- pushed down beside it as a filter, which the window read applies to the changes.  Shown: the
-- operator trees; then rounds of changes on both sides (rows in and out of each arm, updates across
-- arms, NULLs in the columns the arms test, an arm whose condition is an IS NULL under a left join,
-- a constant NULL arm), every refresh compared with its query (dynview.verify(), the rows by text
-- and by =).
SET client_min_messages = warning;

CREATE TABLE oq_l (id int PRIMARY KEY, pk int, q int, price numeric(12,2), mode text, instr text, note text);
CREATE TABLE oq_p (pk int PRIMARY KEY, brand text, size int);
INSERT INTO oq_p SELECT i, 'B' || (i % 4), i % 12 FROM generate_series(1, 40) i;
INSERT INTO oq_l SELECT i, 1 + i % 45, i % 32, i * 1.25,
       CASE i % 3 WHEN 0 THEN 'AIR' WHEN 1 THEN 'REG' ELSE 'SHIP' END,
       CASE WHEN i % 4 = 0 THEN 'HAND' ELSE 'DESK' END,
       CASE WHEN i % 5 = 0 THEN NULL ELSE 'n' || (i % 3) END
  FROM generate_series(1, 600) i;

CREATE TABLE oq_defs (name text, query text);
INSERT INTO oq_defs VALUES
  -- Q19's shape: a global aggregate, the join key and two lineitem conditions in every arm
  ('oq_glob', $$SELECT sum(price) AS revenue, count(*) AS n
                  FROM oq_l, oq_p
                 WHERE (oq_p.pk = oq_l.pk AND brand = 'B1' AND q BETWEEN 1 AND 10 AND size <= 5
                        AND mode IN ('AIR', 'REG') AND instr = 'HAND')
                    OR (oq_p.pk = oq_l.pk AND brand = 'B2' AND q BETWEEN 8 AND 20 AND size <= 9
                        AND mode IN ('AIR', 'REG') AND instr = 'HAND')
                    OR (oq_p.pk = oq_l.pk AND brand = 'B3' AND q BETWEEN 18 AND 30 AND size <= 11
                        AND mode IN ('AIR', 'REG') AND instr = 'HAND')$$),
  -- grouped; the second arm tests oq_p alone: nothing is implied on oq_l, brand OR size on oq_p
  ('oq_grp', $$SELECT brand, sum(price) AS s, count(*) AS n FROM oq_l JOIN oq_p
                  ON (oq_p.pk = oq_l.pk AND q < 10 AND brand = 'B1') OR (oq_p.pk = oq_l.pk AND size > 8)
                GROUP BY brand$$),
  -- under a left join, an arm that keeps the padded rows (IS NULL on the right side)
  ('oq_left', $$SELECT oq_l.id, oq_p.brand FROM oq_l LEFT JOIN oq_p ON oq_p.pk = oq_l.pk AND oq_p.size > 3
                 WHERE (oq_p.brand IS NULL AND oq_l.q < 5) OR (oq_p.brand = 'B2' AND oq_l.q >= 20)$$),
  -- one relation: a shared conjunct, NULLs in the arms' columns, a constant NULL arm
  ('oq_one', $$SELECT id, note FROM oq_l
                WHERE (mode = 'AIR' AND note IS NULL) OR (mode = 'AIR' AND q > 25) OR (q = 3 AND NULL::boolean)$$);
SELECT name, dynview.create_dynamic_table(name, query, schedule => 'manual', refresh_mode => 'incremental') IS NOT NULL AS created
  FROM oq_defs ORDER BY name;

-- the trees: the shared conjuncts are conditions of their own, the implied ones filters below the join
SELECT name, value FROM oq_defs, dynview.explain_dynamic_table(name) WHERE property = 'operator tree' ORDER BY name;

\getenv abs_srcdir PG_ABS_SRCDIR
\set compare_defs :abs_srcdir '/sql/include/compare_defs.sql'
\i :compare_defs
-- each table refreshed, then compared with its query (dv_compare_defs)
CREATE FUNCTION oq_round()
RETURNS TABLE (name text, mode text, verified boolean, same_text boolean, same_rows boolean)
LANGUAGE plpgsql AS $$
DECLARE
  d record;
  modes text[] := '{}';
BEGIN
  FOR d IN SELECT * FROM oq_defs ORDER BY 1 LOOP
    modes := modes || (SELECT r.refresh_mode FROM dynview.refresh(d.name) r);
  END LOOP;
  RETURN QUERY SELECT c.name, modes[row_number() OVER (ORDER BY c.name)], c.verified, c.same_text, c.same_rows
    FROM dv_compare_defs('oq_defs') c ORDER BY c.name;
END $$;

-- rows into each arm and past none (a mode or an instruction no arm takes: the window read drops them)
INSERT INTO oq_l VALUES (1001, 1, 5, 10, 'AIR', 'HAND', NULL), (1002, 2, 12, 11, 'REG', 'HAND', 'x'),
                        (1003, 3, 25, 12, 'AIR', 'HAND', NULL), (1004, 1, 5, 13, 'SHIP', 'HAND', NULL),
                        (1005, 2, 12, 14, 'AIR', 'DESK', 'y'), (1006, 41, 2, 15, NULL, NULL, NULL);
SELECT * FROM oq_round();
-- updates across arms and out of them, NULLs into the tested columns, deletes
UPDATE oq_l SET q = 26 WHERE id IN (1001, 1002);
UPDATE oq_l SET mode = NULL WHERE id = 1003;
UPDATE oq_l SET instr = 'HAND', mode = 'REG' WHERE id = 1005;
UPDATE oq_l SET q = NULL WHERE id % 7 = 0 AND id < 100;
DELETE FROM oq_l WHERE id IN (1004, 12, 24, 36);
SELECT * FROM oq_round();
-- the other side: parts change brand and size (rows move between arms and groups), one goes, one comes
UPDATE oq_p SET brand = 'B2' WHERE pk IN (1, 5);
UPDATE oq_p SET size = 10 WHERE pk IN (2, 3);
UPDATE oq_p SET brand = NULL WHERE pk = 6;
DELETE FROM oq_p WHERE pk = 9;
INSERT INTO oq_p VALUES (41, 'B3', 2), (42, 'B1', 4);
SELECT * FROM oq_round();
-- both sides in one window, and changes that cancel
INSERT INTO oq_l VALUES (1007, 42, 6, 16, 'AIR', 'HAND', NULL);
UPDATE oq_p SET size = 1 WHERE pk = 42;
UPDATE oq_l SET q = q + 1 WHERE id = 1003;
UPDATE oq_l SET q = q - 1 WHERE id = 1003;
SELECT * FROM oq_round();
SELECT * FROM oq_glob;
SELECT brand, s, n FROM oq_grp ORDER BY brand;
SELECT count(*) AS left_rows, count(brand) AS matched FROM oq_left;
SELECT count(*) AS one_rows FROM oq_one;

SELECT count(dynview.drop_dynamic_table(name)) FROM oq_defs;
DROP FUNCTION oq_round();
DROP FUNCTION dv_compare_defs(regclass);
DROP TABLE oq_defs, oq_l, oq_p;
