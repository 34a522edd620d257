-- Aggregates kept in place, continued (design section 6): sum and avg of numeric without a
-- declared scale (the display scale of the live inputs), FILTER, bool_and / bool_or / every, and
-- variance / stddev of integers and numeric.
-- Every refresh is verified (verify() compares rows by their text, so 1.0 and 1.00 differ, and
-- by =); the rows are printed too.
SET client_min_messages = warning;

CREATE TABLE an_o (id int PRIMARY KEY, g int, x numeric, f int, b boolean);
INSERT INTO an_o VALUES
  (1, 1, 1.0, 1, true), (2, 1, 1.00, 2, true), (3, 1, 1.000, 3, false),
  (4, 2, -2.5, -1, NULL), (5, 2, 0.25, 0, true), (6, 3, NULL, NULL, NULL);
SELECT dynview.create_dynamic_table('an_g',
  $$SELECT g, sum(x) AS s, avg(x) AS a, count(*) FILTER (WHERE b) AS nb,
           sum(x) FILTER (WHERE f > 0) AS sf, avg(f) FILTER (WHERE b) AS af,
           count(x) FILTER (WHERE f > 1) AS cf, min(f) FILTER (WHERE b) AS mnf,
           max(f) FILTER (WHERE NOT b) AS mxf, count(DISTINCT f) FILTER (WHERE f >= 0) AS df,
           bool_and(b) AS ba, bool_or(b) AS bo, every(x > 0) AS ev
      FROM an_o GROUP BY g$$, schedule => 'manual', refresh_mode => 'incremental');
SELECT dynview.create_dynamic_table('an_all',
  $$SELECT count(*) AS n, sum(x) AS s, avg(x) AS a, sum(x) FILTER (WHERE b) AS sb,
           bool_or(x < 0) AS neg, bool_and(b) AS ba FROM an_o$$,
  schedule => 'manual', refresh_mode => 'incremental');
SELECT property, value FROM dynview.explain_dynamic_table('an_g') WHERE property = 'aggregates';
SELECT property, value FROM dynview.explain_dynamic_table('an_all') WHERE property IN ('mode', 'aggregates');
SELECT * FROM an_g ORDER BY g;

-- a refresh of both tables, each verified
CREATE FUNCTION an_refresh() RETURNS TABLE (g_mode text, g_ok boolean, all_mode text, all_ok boolean)
LANGUAGE plpgsql AS $$
BEGIN
  SELECT refresh_mode INTO g_mode FROM dynview.refresh('an_g');
  g_ok := dynview.verify('an_g');
  SELECT refresh_mode INTO all_mode FROM dynview.refresh('an_all');
  all_ok := dynview.verify('an_all');
  RETURN NEXT;
END $$;

-- the row with the largest scale goes: 1.000 -> the sum shows 2.00, not 2.000
DELETE FROM an_o WHERE id = 3;
SELECT * FROM an_refresh();
SELECT * FROM an_g ORDER BY g;
SELECT * FROM an_all;
-- then 1.00 goes: 1.0; an update to a smaller scale in the same group
DELETE FROM an_o WHERE id = 2;
UPDATE an_o SET x = 4 WHERE id = 5;
SELECT * FROM an_refresh();
SELECT * FROM an_g ORDER BY g;
SELECT * FROM an_all;
-- negative values that cancel: 0.00; a group of only NULL inputs; group 1 drops to zero rows
INSERT INTO an_o VALUES (7, 2, -4.00, 5, false), (8, 3, NULL, 2, false);
DELETE FROM an_o WHERE id = 1;
SELECT * FROM an_refresh();
SELECT * FROM an_g ORDER BY g;
SELECT * FROM an_all;
-- group 1 comes back with another scale, in the same transaction as a row that comes and goes
BEGIN;
INSERT INTO an_o VALUES (9, 1, 3.14159, 1, true), (10, 1, 99.9, 1, true);
DELETE FROM an_o WHERE id = 10;
COMMIT;
SELECT * FROM an_refresh();
SELECT * FROM an_g ORDER BY g;
-- an UPDATE to an equal value of another scale only (1.0 -> 1.00 is no change to =, but the sum
-- shows the largest scale): the old and the new input must not cancel out
UPDATE an_o SET x = x::numeric(20, 4) WHERE x IS NOT NULL;
SELECT * FROM an_refresh();
SELECT * FROM an_g ORDER BY g;
SELECT * FROM an_all;
UPDATE an_o SET x = round(x, 5) WHERE g = 1;
SELECT * FROM an_refresh();
SELECT * FROM an_g ORDER BY g;

-- NaN and the infinities: their groups are recomputed when such a value changes, and a
-- finite change to a group that holds one keeps it
INSERT INTO an_o VALUES (11, 4, 'NaN', 1, true), (12, 4, 1.5, 1, true),
  (13, 5, 'Infinity', 1, true), (14, 5, 2, 1, false), (15, 6, '-Infinity', 1, true),
  (16, 6, 'Infinity', 1, true);
SELECT * FROM an_refresh();
SELECT g, s, a, sf FROM an_g WHERE g >= 4 ORDER BY g;
INSERT INTO an_o VALUES (17, 4, 10.125, 1, true), (18, 5, -3.5, 1, true);
SELECT * FROM an_refresh();
SELECT g, s, a, sf FROM an_g WHERE g >= 4 ORDER BY g;
DELETE FROM an_o WHERE id IN (11, 13, 16);
SELECT * FROM an_refresh();
SELECT g, s, a, sf FROM an_g WHERE g >= 4 ORDER BY g;
SELECT * FROM an_all;
DELETE FROM an_o WHERE id = 15;
SELECT * FROM an_refresh();
SELECT g, s, a, sf FROM an_g WHERE g >= 4 ORDER BY g;

-- avg digit for digit: one group per scale 0..20, positive and negative values, and one group
-- holding every scale whose rows are deleted from the largest scale down, refreshed each time
CREATE TABLE an_s (id int PRIMARY KEY, g int, x numeric);
INSERT INTO an_s SELECT k * 10 + i, k, round(((k * 37 + i * 101) % 2001 - 1000) * 1.37 / 10::numeric ^ (k % 9), k)
  FROM generate_series(0, 20) k, generate_series(1, 7) i;
INSERT INTO an_s SELECT 1000 + k, 100, round((k * 7919 % 1999 - 999) / 10::numeric ^ (k % 6 + 1), k)
  FROM generate_series(0, 20) k;
SELECT dynview.create_dynamic_table('an_sc', 'SELECT g, sum(x) AS s, avg(x) AS a, count(x) AS n FROM an_s GROUP BY g',
  schedule => 'manual', refresh_mode => 'incremental');
SELECT g, s, a FROM an_sc WHERE g = 100;
CREATE FUNCTION an_scale_step(step int) RETURNS TABLE (k int, mode text, ok boolean, s numeric, a numeric)
LANGUAGE plpgsql AS $$
BEGIN
  k := step;
  SELECT h.refresh_mode INTO mode FROM dynview.refresh('an_sc') h;
  ok := dynview.verify('an_sc');
  SELECT t.s, t.a INTO s, a FROM an_sc t WHERE t.g = 100;
  RETURN NEXT;
END $$;
-- (each statement its own transaction: the row of scale k goes, and one row of the group of
-- scale k moves to the group of scale 20 - k)
SELECT format('DELETE FROM an_s WHERE id = %s', 1000 + k),
       format('UPDATE an_s SET g = %s WHERE id = %s', 20 - k, k * 10 + 1),
       format('SELECT * FROM an_scale_step(%s)', k)
  FROM generate_series(20, 0, -1) k \gexec
SELECT g, s, a, n FROM an_sc ORDER BY g;

-- an input of a scale above 1000 (from multiplying long fractions): its group is recomputed
INSERT INTO an_s VALUES (2000, 7, ('0.' || repeat('0', 1100) || '1')::numeric);
SELECT refresh_mode FROM dynview.refresh('an_sc');
SELECT dynview.verify('an_sc');
SELECT g, scale(s) AS scale_s, length(a::text) AS len_a, n FROM an_sc WHERE g = 7;
INSERT INTO an_s VALUES (2001, 7, 1.5);
SELECT refresh_mode FROM dynview.refresh('an_sc');
SELECT dynview.verify('an_sc');
DELETE FROM an_s WHERE id = 2000;
SELECT refresh_mode FROM dynview.refresh('an_sc');
SELECT dynview.verify('an_sc');
SELECT g, s, a, n FROM an_sc WHERE g = 7;

-- the variance family of integers and numeric: count, sum and sum of squares kept in place, the
-- result computed as numeric.c does (digit for digit: the square root of {0, 4232.093}'s
-- variance rounds to ...119 where round(sqrt(v), scale(v)) gives ...120); groups of 0, 1 and 2
-- rows, NaN and infinity, FILTER, a global one
CREATE TABLE an_v (id int PRIMARY KEY, g int, x numeric, i int, b bigint);
INSERT INTO an_v VALUES (1, 1, 0, 1, 10), (2, 1, 4232.093, 2, 20), (3, 2, 211.3, 3, 30), (4, 2, 0.0, 4, 40),
  (5, 3, 1.5, 5, 9000000000000), (6, 4, -2.25, -6, -1), (7, 4, 7, 7, 2), (8, 4, 0.125, 8, 3);
SELECT dynview.create_dynamic_table('an_var',
  $$SELECT g, var_samp(x) AS vs, var_pop(x) AS vp, stddev_samp(x) AS ss, stddev_pop(x) AS sp,
           variance(i) AS vi, stddev(i) AS si, stddev_pop(b) AS sb, var_samp(b) AS vb,
           stddev(x) FILTER (WHERE i > 2) AS sf
      FROM an_v GROUP BY g$$, schedule => 'manual', refresh_mode => 'incremental');
SELECT dynview.create_dynamic_table('an_var_all', 'SELECT stddev(x) AS s, var_pop(i) AS v FROM an_v',
  schedule => 'manual', refresh_mode => 'incremental');
SELECT property, value FROM dynview.explain_dynamic_table('an_var') WHERE property = 'aggregates';
SELECT * FROM an_var ORDER BY g;
CREATE FUNCTION an_var_refresh() RETURNS TABLE (g_mode text, g_ok boolean, all_mode text, all_ok boolean)
LANGUAGE plpgsql AS $$
BEGIN
  SELECT refresh_mode INTO g_mode FROM dynview.refresh('an_var');
  g_ok := dynview.verify('an_var');
  SELECT refresh_mode INTO all_mode FROM dynview.refresh('an_var_all');
  all_ok := dynview.verify('an_var_all');
  RETURN NEXT;
END $$;
-- the row of the largest scale goes; a group of one row gets a second; a group drops to one row
DELETE FROM an_v WHERE id IN (2, 8);
INSERT INTO an_v VALUES (9, 3, 1.50, 9, 9000000000001), (10, 1, 4232.093, 10, 5);
DELETE FROM an_v WHERE id = 1;
SELECT * FROM an_var_refresh();
SELECT * FROM an_var ORDER BY g;
SELECT * FROM an_var_all;
-- NaN and infinity arrive, then a finite row, then they go; group 2 empties
INSERT INTO an_v VALUES (11, 4, 'NaN', 11, 1), (12, 3, 'Infinity', 12, 1), (13, 5, '-Infinity', 13, 1);
SELECT * FROM an_var_refresh();
SELECT g, vs, vp, ss, sp, sf FROM an_var ORDER BY g;
INSERT INTO an_v VALUES (14, 4, 3.75, 14, 1), (15, 3, 2, 15, 1);
SELECT * FROM an_var_refresh();
DELETE FROM an_v WHERE id IN (11, 12, 13, 3, 4);
SELECT * FROM an_var_refresh();
SELECT * FROM an_var ORDER BY g;
SELECT * FROM an_var_all;

-- a group key extract(year FROM a date or timestamp) is numeric of scale 0 (or +-Infinity):
-- kept in place, as TPC-H Q7, Q8 and Q9 group; extract(epoch ...) is not trusted (recomputed)
CREATE TABLE an_d (id int PRIMARY KEY, d date, t timestamp, x numeric);
INSERT INTO an_d VALUES (1, '2020-03-01', '2020-03-01 10:00', 1.5), (2, '2020-12-31', '2021-01-01 00:00', 2.25),
  (3, '2021-06-01', '2021-06-01 12:30', 3), (4, 'infinity', 'infinity', 4.0);
SELECT dynview.create_dynamic_table('an_year',
  $$SELECT extract(year FROM d) AS y, extract(MONTH FROM t) AS m, sum(x) AS s, count(*) AS n
      FROM an_d GROUP BY extract(year FROM d), extract(MONTH FROM t)$$,
  schedule => 'manual', refresh_mode => 'incremental');
SELECT dynview.create_dynamic_table('an_epoch',
  'SELECT extract(epoch FROM t) AS e, sum(x) AS s FROM an_d GROUP BY extract(epoch FROM t)',
  schedule => 'manual', refresh_mode => 'incremental');
SELECT left(value, 60) AS aggregates FROM dynview.explain_dynamic_table('an_year') WHERE property = 'aggregates';
SELECT left(value, 90) AS aggregates FROM dynview.explain_dynamic_table('an_epoch') WHERE property = 'aggregates';
DELETE FROM an_d WHERE id IN (2, 4);
INSERT INTO an_d VALUES (5, '2020-07-07', '2020-03-09 08:00', 0.125), (6, '-infinity', '2019-03-01', 7);
UPDATE an_d SET d = '2021-02-02' WHERE id = 1;
SELECT refresh_mode FROM dynview.refresh('an_year');
SELECT dynview.verify('an_year');
SELECT refresh_mode FROM dynview.refresh('an_epoch');
SELECT dynview.verify('an_epoch');
SELECT * FROM an_year ORDER BY y, m;

SELECT dynview.drop_dynamic_table('an_g');
SELECT dynview.drop_dynamic_table('an_all');
SELECT dynview.drop_dynamic_table('an_sc');
SELECT dynview.drop_dynamic_table('an_var');
SELECT dynview.drop_dynamic_table('an_var_all');
SELECT dynview.drop_dynamic_table('an_year');
SELECT dynview.drop_dynamic_table('an_epoch');
DROP TABLE an_o, an_s, an_v, an_d;
DROP FUNCTION an_refresh(), an_scale_step(int), an_var_refresh();
