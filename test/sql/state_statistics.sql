-- The statistics of an operator state at its build (aggstate.c analyze_state_columns): ANALYZE
-- at a statistics target of 10 (STATE_STATISTICS_TARGET) when default_statistics_target is
-- higher, the setting itself untouched; a lower setting is kept.  TPC-H Q13's shape: customers'
-- order counts (a LEFT JOIN grouped per customer, its state one row per customer), grouped
-- again by that count.  Every build and refresh is verified (verify() compares rows by their
-- text and by =); a FULL rebuild after TRUNCATE analyses the new state the same way.
SET client_min_messages = warning;

CREATE TABLE st_c (c_id int PRIMARY KEY, region int NOT NULL);
CREATE TABLE st_o (o_id int PRIMARY KEY, c_id int, note text NOT NULL);
INSERT INTO st_c SELECT i, i % 7 FROM generate_series(1, 3000) i;
-- customer i has i % 5 orders, one in four of them with a note the query leaves out
INSERT INTO st_o SELECT row_number() OVER (), c.i, CASE WHEN k % 4 = 0 THEN 'special requests' ELSE 'plain' END
  FROM generate_series(1, 3000) c(i), generate_series(1, 4) k WHERE k <= c.i % 5;

-- the histogram bounds of each analysed column of the table's operator states (ext_<oid>_<n>)
CREATE FUNCTION st_bounds(t regclass)
RETURNS TABLE (attname name, bounds int, n_distinct real) LANGUAGE sql AS $$
  SELECT s.attname, array_length(s.histogram_bounds::text::text[], 1), s.n_distinct
    FROM pg_stats s
   WHERE s.schemaname = 'dynview_state' AND s.tablename ~ ('^ext_' || t::oid || '_')
   ORDER BY s.attname $$;

-- the query, for both tables
SELECT $$SELECT n, count(*) AS custdist
      FROM (SELECT c.c_id, count(o.o_id) AS n
              FROM st_c c LEFT JOIN st_o o ON o.c_id = c.c_id AND o.note NOT LIKE '%special%'
             GROUP BY c.c_id) s
     GROUP BY n$$ AS st_query \gset

SHOW default_statistics_target;
SELECT dynview.create_dynamic_table('st_q13', :'st_query', schedule => 'manual', refresh_mode => 'incremental');
-- the setting is as it was; the state's customer key (3,000 distinct values) has 11 histogram
-- bounds (a target of 10; 101 at the setting's 100), and is known distinct
SHOW default_statistics_target;
SELECT property, value FROM dynview.explain_dynamic_table('st_q13') WHERE property IN ('mode', 'operator');
SELECT attname, bounds, n_distinct FROM st_bounds('st_q13') WHERE attname = 'k1';
SELECT count(*) > 0 AS analysed FROM st_bounds('st_q13');
SELECT dynview.verify('st_q13');
SELECT * FROM st_q13 ORDER BY n;

-- a lower setting is the session's own: the state is analysed at 5 (6 bounds)
SET default_statistics_target = 5;
SELECT dynview.create_dynamic_table('st_q13_low', :'st_query', schedule => 'manual', refresh_mode => 'incremental');
SHOW default_statistics_target;
SELECT attname, bounds FROM st_bounds('st_q13_low') WHERE attname = 'k1';
RESET default_statistics_target;
SELECT dynview.verify('st_q13_low');

-- refreshes: customers gain and lose orders, a new customer, one gone
\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_rows :abs_srcdir '/sql/include/refresh_rows.sql'
\i :refresh_rows
CREATE TABLE st_tables (name text);
INSERT INTO st_tables VALUES ('st_q13'), ('st_q13_low');
INSERT INTO st_o SELECT 100000 + i, i, 'plain' FROM generate_series(1, 300) i;
DELETE FROM st_o WHERE c_id BETWEEN 301 AND 400;
UPDATE st_o SET note = 'special requests' WHERE c_id BETWEEN 401 AND 450;
INSERT INTO st_c VALUES (3001, 1);
DELETE FROM st_c WHERE c_id = 2999;
SELECT * FROM dv_refresh_rows('st_tables');
SELECT * FROM st_q13 ORDER BY n;

-- a FULL rebuild (the source truncated): the new state analysed at 10 again
TRUNCATE st_o;
INSERT INTO st_o SELECT i, i, 'plain' FROM generate_series(1, 3000) i;
SELECT * FROM dv_refresh_rows('st_tables');
SHOW default_statistics_target;
SELECT attname, bounds FROM st_bounds('st_q13') WHERE attname = 'k1';
SELECT * FROM st_q13 ORDER BY n;

SELECT dynview.drop_dynamic_table('st_q13');
SELECT dynview.drop_dynamic_table('st_q13_low');
DROP TABLE st_c, st_o, st_tables;
DROP FUNCTION st_bounds(regclass);
DROP FUNCTION dv_refresh_rows(regclass, regproc);
