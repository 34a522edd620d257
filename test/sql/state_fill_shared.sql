-- The build of aggregate state (aggstate.c state_from_input, fill_input): aggregates over one
-- input expression read one input column, so that PostgreSQL shares their calls (sum(x) and
-- avg(x): one transition state, their non-null count one call); the non-null count of a NOT NULL
-- column is count(*), except where an outer join can null it; an input that is an expression read
-- by several state columns is computed once per row below the aggregation.  explain() says which.
-- The state kept is the same: every build and refresh is verified (verify() compares rows by
-- their text and by =), with NULLs, NaN, groups emptied and refilled, and a FULL rebuild.
SET client_min_messages = warning;

CREATE TABLE sf_t (id int PRIMARY KEY, g int, x numeric NOT NULL, y numeric(10,2), z int, w float8);
CREATE TABLE sf_d (g int PRIMARY KEY, k numeric NOT NULL);
INSERT INTO sf_t VALUES
  (1, 1, 1.5, 2.25, 3, 1.5), (2, 1, 2, NULL, NULL, NULL), (3, 2, 'NaN', 1, 1, 'NaN'),
  (4, 2, 0.125, -3.50, -2, 2), (5, 3, 10, NULL, 7, NULL);
INSERT INTO sf_d VALUES (1, 1.0), (2, 2.00);

-- sum, avg and stddev of the NOT NULL x share x1; sum and avg of y * 2 share an expression
-- computed once per row, as do sum, min, max and var_pop of z * 2; count(y * 2), FILTER,
-- bool_or(z > 0)
SELECT dynview.create_dynamic_table('sf_g',
  $$SELECT g, sum(x) AS sx, avg(x) AS ax, stddev(x) AS dx, count(*) AS n,
           sum(y * 2) AS sy, avg(y * 2) AS ay, count(y * 2) AS cy,
           sum(z * 2) AS sz, min(z * 2) AS mnz, max(z * 2) AS mxz, avg(z) FILTER (WHERE z > 0) AS az, bool_or(z > 0) AS bz,
           var_pop(z * 2) AS vz
      FROM sf_t GROUP BY g$$, schedule => 'manual', refresh_mode => 'incremental');
-- a global aggregate; and one over a LEFT JOIN, whose NOT NULL k is NULL where no sf_d row matches
SELECT dynview.create_dynamic_table('sf_all',
  $$SELECT count(*) AS n, sum(x * y) AS sxy, avg(x * y) AS axy, sum(x) AS sx, avg(x) AS ax FROM sf_t$$,
  schedule => 'manual', refresh_mode => 'incremental');
SELECT dynview.create_dynamic_table('sf_lj',
  $$SELECT t.g, count(*) AS n, sum(d.k) AS sk, avg(d.k) AS ak, sum(t.x) AS sx
      FROM sf_t t LEFT JOIN sf_d d ON d.g = t.g GROUP BY t.g$$,
  schedule => 'manual', refresh_mode => 'incremental');
SELECT property, value FROM dynview.explain_dynamic_table('sf_g') WHERE property IN ('mode', 'aggregates');
SELECT property, value FROM dynview.explain_dynamic_table('sf_all') WHERE property IN ('mode', 'aggregates');
SELECT property, value FROM dynview.explain_dynamic_table('sf_lj') WHERE property IN ('mode', 'aggregates');
SELECT dynview.verify('sf_g'), dynview.verify('sf_all'), dynview.verify('sf_lj');
SELECT * FROM sf_g ORDER BY g;
SELECT * FROM sf_lj ORDER BY g;

-- a refresh of each table, verified (test/sql/include/refresh_rows.sql)
\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_rows :abs_srcdir '/sql/include/refresh_rows.sql'
\i :refresh_rows
CREATE TABLE sf_tables (name text);
INSERT INTO sf_tables VALUES ('sf_all'), ('sf_g'), ('sf_lj');

-- group 1 emptied; the NaN of group 2 goes; a group of NULL y, z, w only
DELETE FROM sf_t WHERE g = 1;
DELETE FROM sf_t WHERE id = 3;
INSERT INTO sf_t VALUES (6, 4, -1, NULL, NULL, NULL);
SELECT * FROM dv_refresh_rows('sf_tables');
SELECT * FROM sf_g ORDER BY g;
SELECT * FROM sf_all;
-- group 1 refilled with other scales, NaN back in group 3; sf_d loses group 2's match
INSERT INTO sf_t VALUES (7, 1, 3.14159, 0.01, 0, 'Infinity'), (8, 1, 2, 4.00, 5, -1), (9, 3, 'NaN', 1.5, 1, 0);
DELETE FROM sf_d WHERE g = 2;
INSERT INTO sf_d VALUES (4, 0.5);
SELECT * FROM dv_refresh_rows('sf_tables');
SELECT * FROM sf_g ORDER BY g;
SELECT * FROM sf_lj ORDER BY g;
-- an update that moves a row between groups and from NULL to a value
UPDATE sf_t SET g = 4, y = 2.50, z = 9 WHERE id = 8;
SELECT * FROM dv_refresh_rows('sf_tables');
SELECT * FROM sf_g ORDER BY g;
-- a FULL rebuild (the source truncated), then refilled
TRUNCATE sf_t;
INSERT INTO sf_t VALUES (10, 1, 5, 1.25, 2, 0.5), (11, 1, 5, NULL, NULL, 0.25), (12, 2, 0, 0, 0, 0);
SELECT * FROM dv_refresh_rows('sf_tables');
SELECT * FROM sf_g ORDER BY g;
SELECT * FROM sf_all;
SELECT * FROM sf_lj ORDER BY g;
-- emptied entirely: the global aggregate keeps its one row
DELETE FROM sf_t;
SELECT * FROM dv_refresh_rows('sf_tables');
SELECT * FROM sf_all;
SELECT count(*) FROM sf_g;

-- Built with parallel plans allowed and cheap (a source large enough for workers): the input as
-- it is is read in parallel (kept apart by OFFSET 0 it would be read serially), and the state is
-- the same as that of the serial build, row for row by text form; verify() after each build and
-- after an incremental round (TPC-H Q1's shape: sums and averages of products).
CREATE TABLE sf_p (id int PRIMARY KEY, g text, q numeric(12,2), p numeric(12,2), d numeric(4,2));
INSERT INTO sf_p SELECT i, chr(65 + i % 3), (i % 50) + 0.25, (i % 997) * 1.5, (i % 10) / 100.0
  FROM generate_series(1, 30000) i;
UPDATE sf_p SET q = NULL WHERE id % 101 = 0;
ANALYZE sf_p;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT dynview.create_dynamic_table('sf_par',
  $$SELECT g, sum(q) AS sq, sum(p * (1 - d)) AS sd, sum(p * (1 - d) * (1 + d)) AS sc, avg(q) AS aq,
           avg(p * (1 - d)) AS ad, count(*) AS n FROM sf_p GROUP BY g$$,
  schedule => 'manual', refresh_mode => 'incremental');
SET max_parallel_workers_per_gather = 0;
SELECT dynview.create_dynamic_table('sf_ser',
  $$SELECT g, sum(q) AS sq, sum(p * (1 - d)) AS sd, sum(p * (1 - d) * (1 + d)) AS sc, avg(q) AS aq,
           avg(p * (1 - d)) AS ad, count(*) AS n FROM sf_p GROUP BY g$$,
  schedule => 'manual', refresh_mode => 'incremental');
RESET max_parallel_workers_per_gather;
RESET min_parallel_table_scan_size;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;
SELECT dynview.verify('sf_par') AS par_ok, dynview.verify('sf_ser') AS ser_ok;
CREATE FUNCTION sf_states_differ() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN
  EXECUTE format('SELECT count(*) FROM ((SELECT s::text FROM dynview_state.%I s EXCEPT ALL SELECT s::text FROM dynview_state.%I s)
                   UNION ALL (SELECT s::text FROM dynview_state.%I s EXCEPT ALL SELECT s::text FROM dynview_state.%I s)) d',
                 'agg_' || 'sf_par'::regclass::oid, 'agg_' || 'sf_ser'::regclass::oid,
                 'agg_' || 'sf_ser'::regclass::oid, 'agg_' || 'sf_par'::regclass::oid) INTO n;
  RETURN n;
END $$;
SELECT sf_states_differ() AS state_rows_differing;
SELECT (SELECT array_agg(t::text ORDER BY g) FROM sf_par t) = (SELECT array_agg(t::text ORDER BY g) FROM sf_ser t) AS same_rows;
CREATE TABLE sf_ptables (name text);
INSERT INTO sf_ptables VALUES ('sf_par'), ('sf_ser');
UPDATE sf_p SET p = p + 1, q = COALESCE(q, 7) WHERE id % 7 = 0;
DELETE FROM sf_p WHERE id % 13 = 0;
INSERT INTO sf_p VALUES (40001, 'D', 1.5, 2.5, 0.05);
SELECT * FROM dv_refresh_rows('sf_ptables');
SELECT sf_states_differ() AS state_rows_differing;
SELECT dynview.drop_dynamic_table('sf_par');
SELECT dynview.drop_dynamic_table('sf_ser');
DROP FUNCTION sf_states_differ();
DROP TABLE sf_p, sf_ptables;

-- dynview._nonnull_count(x), the fill's count of a numeric or bigint sum's non-null inputs (its
-- transition state is the sum's): count(x) in every group, NaN and infinities counted, NULLs not,
-- 0 over no row; serially and in a parallel plan (states serialized, combined); and in the fill's
-- SQL, beside the sums whose transition it shares (explain() above: sf_g's a5 and a6, sf_all's a2
-- and a3, sf_lj's; sf_b's below)
CREATE TABLE sf_c (id int PRIMARY KEY, g int, v numeric, b bigint);
INSERT INTO sf_c SELECT i, i % 5,
       CASE i % 11 WHEN 0 THEN NULL WHEN 1 THEN 'NaN' WHEN 2 THEN 'Infinity' WHEN 3 THEN '-Infinity'
                   ELSE (i % 97) / 8.0 END,
       CASE WHEN i % 3 = 0 THEN NULL ELSE i * 1000000000000 END
  FROM generate_series(1, 20000) i;
UPDATE sf_c SET v = NULL, b = NULL WHERE g = 4;
ANALYZE sf_c;
SELECT g, count(v) AS count_v, dynview._nonnull_count(v) AS nonnull_count, sum(v) AS sum_v,
       count(b) AS count_b, dynview._nonnull_count(b) AS nonnull_count_b, sum(b) AS sum_b
  FROM sf_c GROUP BY g ORDER BY g;
SELECT count(v) AS none_count, dynview._nonnull_count(v) AS none_nonnull_count,
       dynview._nonnull_count(b) AS none_nonnull_count_b FROM sf_c WHERE id < 0;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT count(v), dynview._nonnull_count(v), sum(v) FROM sf_c;
SELECT count(*) FILTER (WHERE count_v <> nonnull_count OR count_b <> nonnull_count_b) AS parallel_mismatches,
       sum(nonnull_count) AS parallel_total, sum(nonnull_count_b) AS parallel_total_b
  FROM (SELECT g, count(v) AS count_v, dynview._nonnull_count(v) AS nonnull_count, sum(v),
               count(b) AS count_b, dynview._nonnull_count(b) AS nonnull_count_b, avg(b)
          FROM sf_c GROUP BY g) c;
SELECT count(v) = dynview._nonnull_count(v) AND count(b) = dynview._nonnull_count(b) AS parallel_global_same FROM sf_c;
RESET max_parallel_workers_per_gather;
RESET min_parallel_table_scan_size;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;
-- a table of bigint sums and averages: built with the shared count, refreshed through a group
-- whose inputs all become NULL (its sum NULL again) and back, verified
CREATE FUNCTION sf_n1_differing() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN
  EXECUTE format('SELECT count(*) FROM dynview_state.%I s JOIN (SELECT g, count(b) AS c FROM sf_c GROUP BY g) q ON q.g = s.g1 WHERE s.n1 <> q.c',
                 'agg_' || 'sf_b'::regclass::oid) INTO n;
  RETURN n;
END $$;
SELECT dynview.create_dynamic_table('sf_b', 'SELECT g, sum(b) AS sb, avg(b) AS ab, count(*) AS n FROM sf_c GROUP BY g',
                                    schedule => 'manual', refresh_mode => 'incremental');
SELECT value FROM dynview.explain_dynamic_table('sf_b') WHERE property = 'aggregates';
SELECT sf_n1_differing() AS n1_differing_from_count;
UPDATE sf_c SET b = NULL WHERE g = 1;
UPDATE sf_c SET b = 5 WHERE g = 4 AND id < 100;
SELECT refresh_mode FROM dynview.refresh('sf_b');
SELECT dynview.verify('sf_b');
SELECT * FROM sf_b ORDER BY g;
UPDATE sf_c SET b = id WHERE g = 1 AND id % 2 = 0;
SELECT refresh_mode FROM dynview.refresh('sf_b');
SELECT dynview.verify('sf_b');
SELECT (SELECT array_agg(t::text ORDER BY g) FROM sf_b t) =
       (SELECT array_agg(q::text ORDER BY g) FROM (SELECT g, sum(b) AS sb, avg(b) AS ab, count(*) AS n FROM sf_c GROUP BY g) q) AS same_text;
SELECT sf_n1_differing() AS n1_differing_from_count;
SELECT dynview.drop_dynamic_table('sf_b');
DROP FUNCTION sf_n1_differing();
DROP TABLE sf_c;

SELECT dynview.drop_dynamic_table('sf_g');
SELECT dynview.drop_dynamic_table('sf_all');
SELECT dynview.drop_dynamic_table('sf_lj');
DROP FUNCTION dv_refresh_rows(regclass, regproc);
DROP TABLE sf_t, sf_d, sf_tables;
