-- Tester's finding (s9-brk): a source column's collation changed without a change of type
-- (ALTER TABLE ... ALTER COLUMN t TYPE text COLLATE "und-x-icu", from "C").  The next refresh is
-- FULL (SOURCE_ALTERED), but the change buffer keeps the column in the old collation, so the
-- incremental refreshes after it compare buffer rows by "C" and source rows by the new
-- collation: a WHERE on the column keeps a row the query no longer returns ('b' > 'Z' in "C",
-- not in ICU order; verify() false), and min/max and a window ordered by the column fail with
-- "could not determine which collation to use for string comparison" at every refresh.
-- Fixed: the change buffer takes the new collation. Correct result: every refresh succeeds and verify() is true.
SET client_min_messages = warning;
CREATE TABLE brk_coll_src (id int PRIMARY KEY, g int NOT NULL, t text COLLATE "C");
INSERT INTO brk_coll_src VALUES (1, 1, 'a'), (2, 1, 'B'), (3, 2, 'b'), (4, 2, 'A'), (5, 1, 'c'), (6, 2, 'D');
SELECT dynview.create_dynamic_table('brk_coll_minmax', 'SELECT g, max(t) AS mx, min(t) AS mn FROM brk_coll_src GROUP BY g',
                                    schedule => 'manual') IS NOT NULL AS created;
SELECT dynview.create_dynamic_table('brk_coll_filter', 'SELECT id, t FROM brk_coll_src WHERE t > ''Z''',
                                    schedule => 'manual') IS NOT NULL AS created;
SELECT dynview.create_dynamic_table('brk_coll_window',
  'SELECT id, row_number() OVER (PARTITION BY g ORDER BY t) AS r FROM brk_coll_src', schedule => 'manual') IS NOT NULL AS created;
SELECT id, t FROM brk_coll_filter ORDER BY id;
-- the collation changes, the type stays text
ALTER TABLE brk_coll_src ALTER COLUMN t TYPE text COLLATE "und-x-icu";
INSERT INTO brk_coll_src VALUES (7, 3, 'x');
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('brk_coll_minmax');
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('brk_coll_filter');
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('brk_coll_window');
SELECT dynview.verify('brk_coll_minmax') AS minmax, dynview.verify('brk_coll_filter') AS filter,
       dynview.verify('brk_coll_window') AS win;
-- a change after it, read from the change buffer
INSERT INTO brk_coll_src VALUES (8, 1, 'b');
SELECT refresh_mode IS NOT NULL AS refreshed FROM dynview.refresh('brk_coll_minmax');
SELECT refresh_mode IS NOT NULL AS refreshed FROM dynview.refresh('brk_coll_filter');
SELECT refresh_mode IS NOT NULL AS refreshed FROM dynview.refresh('brk_coll_window');
SELECT dynview.verify('brk_coll_minmax') AS minmax, dynview.verify('brk_coll_filter') AS filter,
       dynview.verify('brk_coll_window') AS win;
SELECT count(*) AS filter_rows FROM brk_coll_filter;
SELECT g, mx, mn FROM brk_coll_minmax ORDER BY g;
SELECT dynview.drop_dynamic_table(n) FROM unnest(ARRAY['brk_coll_minmax', 'brk_coll_filter', 'brk_coll_window']) n;
DROP TABLE brk_coll_src;
