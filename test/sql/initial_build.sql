-- The initial build (issue 14): state filled in bulk, the table written from its state, numeric
-- sums of one scale without scale counts, and a build that fails leaves nothing behind.
SET client_min_messages = warning;
-- (the multiplicities one row per group and value, as this test reads them: distinct_arrays tests one row per group)
SET dynview.distinct_values_per_row = 0;
CREATE SCHEMA ib;
SET search_path = ib, public;

-- the state tables of a dynamic table, with their columns
CREATE FUNCTION state_columns(t regclass) RETURNS text LANGUAGE sql AS $$
  SELECT string_agg(regexp_replace(c.relname, '[0-9]+', 'N') || '(' || (SELECT string_agg(a.attname, ',' ORDER BY a.attnum)
                                          FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0) || ')',
                    ' ' ORDER BY c.relname)
    FROM pg_class c WHERE c.relnamespace = 'dynview_state'::regnamespace AND c.relkind = 'r'
     AND c.relname ~ ('_' || t::oid || '(_|$)') $$;

-- everything dynview keeps for dynamic tables: catalog rows, state tables, change buffers
CREATE FUNCTION dynview_objects() RETURNS text LANGUAGE sql AS $$
  SELECT format('tables=%s state=%s buffers=%s',
                (SELECT count(*) FROM dynview.dynamic_tables),
                (SELECT count(*) FROM pg_class WHERE relnamespace = 'dynview_state'::regnamespace AND relkind = 'r'),
                (SELECT count(*) FROM pg_class WHERE relnamespace = 'dynview_buffer'::regnamespace AND relkind = 'r')) $$;

-- 1. numeric sums: an argument of one scale keeps no scale counts, one of several scales does
CREATE TABLE sales (id int PRIMARY KEY, g text, price numeric(10,2), disc numeric(4,2), x numeric);
INSERT INTO sales SELECT i, 'g' || (i % 3), (i * 1.25)::numeric(10,2), (i % 10) / 100.0, i FROM generate_series(1, 30) i;
UPDATE sales SET x = x + 0.125 WHERE id = 7;
SELECT dynview.create_dynamic_table('ib.sums',
  'SELECT g, sum(price * (1 - disc)) AS net, avg(price * 2) AS avg2, sum(x) AS sx, count(*) AS n FROM ib.sales GROUP BY g',
  schedule => 'manual');
SELECT dynview.verify('ib.sums');
-- sc3 (sum(x)) only: price * (1 - disc) has scale 4, price * 2 scale 2
SELECT state_columns('ib.sums');
SELECT g, net, avg2, sx FROM ib.sums ORDER BY g;
-- the row of scale 3 goes: sx shows scale 0 again; a NaN price recomputes its group
DELETE FROM sales WHERE id = 7;
UPDATE sales SET price = 'NaN' WHERE id = 8;
INSERT INTO sales VALUES (31, 'g1', 0.05, 0.50, 2);
SELECT refresh_mode FROM dynview.refresh('ib.sums');
SELECT dynview.verify('ib.sums');
SELECT g, net, avg2, sx FROM ib.sums ORDER BY g;
UPDATE sales SET price = 3.00 WHERE id = 8;
SELECT refresh_mode FROM dynview.refresh('ib.sums');
SELECT dynview.verify('ib.sums');

-- 2. count(DISTINCT) and a global aggregate in the query: states filled in bulk, verified
SELECT dynview.create_dynamic_table('ib.dist',
  'SELECT g, count(DISTINCT disc) AS discs, sum(price) AS total FROM ib.sales GROUP BY g', schedule => 'manual');
SELECT dynview.verify('ib.dist');
SELECT state_columns('ib.dist');
SELECT dynview.create_dynamic_table('ib.above',
  'SELECT id, price FROM ib.sales WHERE price > (SELECT avg(price) FROM ib.sales WHERE price <> ''NaN'')',
  schedule => 'manual');
SELECT dynview.verify('ib.above');
INSERT INTO sales VALUES (32, 'g2', 100.00, 0.10, 1);
DELETE FROM sales WHERE id = 3;
SELECT refresh_mode FROM dynview.refresh('ib.dist');
SELECT dynview.verify('ib.dist');
SELECT refresh_mode FROM dynview.refresh('ib.above');
SELECT dynview.verify('ib.above');

-- 3. top-N: written from the state of its input's first rows (LIMIT 5 keeps 2 * 5 + 100)
CREATE FUNCTION topn_state(t regclass) RETURNS text LANGUAGE plpgsql AS $$
DECLARE held bigint; bound bigint;
BEGIN
  EXECUTE format('SELECT count(*) FROM dynview_state.topn_%s', t::oid) INTO held;
  EXECUTE format('SELECT count(*) FROM dynview_state.topnb_%s', t::oid) INTO bound;
  RETURN format('held=%s bound=%s', held, bound);
END $$;
CREATE TABLE scores (id int PRIMARY KEY, v int);
INSERT INTO scores SELECT i, i % 50 FROM generate_series(1, 500) i;
SELECT dynview.create_dynamic_table('ib.top', 'SELECT id, v FROM ib.scores ORDER BY v DESC, id LIMIT 5',
  schedule => 'manual');
SELECT dynview.verify('ib.top');
SELECT topn_state('ib.top');
SELECT id, v FROM ib.top ORDER BY v DESC, id;
-- fewer rows than the state keeps: no bound, the whole input held
SELECT dynview.create_dynamic_table('ib.top_few', 'SELECT id, v FROM ib.scores WHERE id <= 8 ORDER BY v, id LIMIT 5',
  schedule => 'manual');
SELECT dynview.verify('ib.top_few');
SELECT topn_state('ib.top_few');
-- every row ties with the bound: the state holds none, the table comes from the query
CREATE TABLE flat (id int PRIMARY KEY, v int);
INSERT INTO flat SELECT i, 7 FROM generate_series(1, 300) i;
SELECT dynview.create_dynamic_table('ib.top_flat', 'SELECT v FROM ib.flat ORDER BY v LIMIT 5', schedule => 'manual');
SELECT dynview.verify('ib.top_flat');
SELECT topn_state('ib.top_flat');
SELECT count(*), min(v), max(v) FROM ib.top_flat;
-- then refreshed incrementally from that state
INSERT INTO scores VALUES (501, 99), (502, 49);
DELETE FROM scores WHERE id IN (49, 99);
UPDATE scores SET v = 0 WHERE id = 2;
INSERT INTO flat VALUES (301, 1), (302, 8);
SELECT refresh_mode FROM dynview.refresh('ib.top');
SELECT dynview.verify('ib.top');
SELECT refresh_mode FROM dynview.refresh('ib.top_few');
SELECT dynview.verify('ib.top_few');
SELECT refresh_mode FROM dynview.refresh('ib.top_flat');
SELECT dynview.verify('ib.top_flat');
SELECT id, v FROM ib.top ORDER BY v DESC, id;

-- 4. a build whose state fill fails leaves nothing behind
CREATE TABLE bad (g int, x int);
INSERT INTO bad VALUES (1, 1), (1, 0), (2, 5);
CREATE TEMP TABLE before AS SELECT dynview_objects() AS o;
-- the aggregate state's fill
SELECT dynview.create_dynamic_table('ib.bad_sum', 'SELECT g, sum(10 / x) AS s FROM ib.bad GROUP BY g', schedule => 'manual');
SELECT to_regclass('ib.bad_sum') IS NULL AS no_table, dynview_objects() = (SELECT o FROM before) AS nothing_left;
-- the fill of an operator's state (a global aggregate inside the query)
SELECT dynview.create_dynamic_table('ib.bad_op', 'SELECT g FROM ib.bad WHERE g > (SELECT max(10 / x) FROM ib.bad)', schedule => 'manual');
SELECT to_regclass('ib.bad_op') IS NULL AS no_table, dynview_objects() = (SELECT o FROM before) AS nothing_left;
-- the top-N state's fill
SELECT dynview.create_dynamic_table('ib.bad_top', 'SELECT g, 10 / x AS y FROM ib.bad ORDER BY y, g LIMIT 1', schedule => 'manual');
SELECT to_regclass('ib.bad_top') IS NULL AS no_table, dynview_objects() = (SELECT o FROM before) AS nothing_left;
-- the same statements build once the data allows
UPDATE bad SET x = 2 WHERE x = 0;
SELECT dynview.create_dynamic_table('ib.bad_sum', 'SELECT g, sum(10 / x) AS s FROM ib.bad GROUP BY g', schedule => 'manual');
SELECT dynview.create_dynamic_table('ib.bad_op', 'SELECT g FROM ib.bad WHERE g > (SELECT max(10 / x) FROM ib.bad)', schedule => 'manual');
SELECT dynview.create_dynamic_table('ib.bad_top', 'SELECT g, 10 / x AS y FROM ib.bad ORDER BY y, g LIMIT 1', schedule => 'manual');
SELECT dynview.verify('ib.bad_sum'), dynview.verify('ib.bad_op'), dynview.verify('ib.bad_top');
-- and a refresh that fails changes nothing either
CREATE TEMP TABLE built AS SELECT dynview_objects() AS o;
UPDATE bad SET x = 0 WHERE g = 2;
SELECT refresh_mode FROM dynview.refresh('ib.bad_sum');
SELECT dynview_objects() = (SELECT o FROM built) AS nothing_changed;
SELECT g, s FROM ib.bad_sum ORDER BY g;

-- 5. a state built with scale counts its plan no longer keeps (as an earlier version built it)
-- is not used: the next refresh is FULL and rebuilds it.  (The guard refuses ALTER TABLE of a
-- state table, to superusers too: a copy with the column added is put in the state's place.)
DO $$
DECLARE st text := 'agg_' || 'ib.sums'::regclass::oid;
BEGIN
  EXECUTE format('CREATE TABLE public.ib_old_state (LIKE dynview_state.%I INCLUDING INDEXES)', st);
  EXECUTE format('INSERT INTO public.ib_old_state SELECT * FROM dynview_state.%I', st);
  ALTER TABLE public.ib_old_state ADD COLUMN sc1 numeric NOT NULL DEFAULT 0;
  EXECUTE format('ALTER EXTENSION dynview DROP TABLE dynview_state.%I', st);
  EXECUTE format('DROP TABLE dynview_state.%I', st);
  ALTER TABLE public.ib_old_state SET SCHEMA dynview_state;
  EXECUTE format('ALTER TABLE dynview_state.ib_old_state RENAME TO %I', st);
  EXECUTE format('ALTER EXTENSION dynview ADD TABLE dynview_state.%I', st);
END $$;
INSERT INTO sales VALUES (33, 'g0', 1.10, 0.25, 4);
SELECT refresh_mode, mode_reason_code, mode_reason FROM dynview.refresh('ib.sums');
SELECT dynview.verify('ib.sums');
SELECT state_columns('ib.sums');
INSERT INTO sales VALUES (34, 'g0', 1.20, 0.25, 5);
SELECT refresh_mode FROM dynview.refresh('ib.sums');
SELECT dynview.verify('ib.sums');

SET client_min_messages = warning;
SELECT dynview.drop_dynamic_table(t) FROM unnest(ARRAY['ib.sums', 'ib.dist', 'ib.above', 'ib.top', 'ib.top_few',
  'ib.top_flat', 'ib.bad_sum', 'ib.bad_op', 'ib.bad_top']) t;
SELECT dynview_objects();
DROP SCHEMA ib CASCADE;
