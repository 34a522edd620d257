-- Tester's findings (s10-brk): text that dynview deparses from a Query tree and parses again
-- depended on the caller's settings.
-- (1) The window read's filter (window_filter, applied before consolidation) was deparsed under
--     the refreshing session's search_path, then run under "pg_catalog, pg_temp": an operator
--     of a schema on the session's path that shadows pg_catalog's "=" (here sh.= is int4lt, a
--     leakproof function, so the conjunct qualifies) was written unqualified and read back as
--     pg_catalog's "=": the rows x < 5 inserted since the last refresh were dropped from the
--     window; verify() false.
-- (2) Constants were deparsed under the session's extra_float_digits (dv_set_output_styles did
--     not set it): with extra_float_digits = 0, '1.0000000000000002'::float8 became '1'.  In the
--     stored definition (create_dynamic_table under that setting) the table silently computes
--     another query, and verify() compares with that one: true, while the table differs from
--     the query the user gave.  In the window filter (a refresh under that setting) the rows at
--     the constant were dropped.
-- (3) The stored definition was parsed under the refreshing session's array_nulls: with
--     array_nulls = off, '{NULL,x}'::text[] (a null and 'x') was read as the strings 'NULL' and
--     'x': rows with t = 'NULL' joined the table, and the array column showed {"NULL",x}.
-- Fixed: the window filter is deparsed under the safe search_path and the output styles, which
-- set extra_float_digits = 3 and array_nulls = on (definitions are parsed in them too).
-- Correct result: the tables equal the user's queries.
SET client_min_messages = warning;
CREATE SCHEMA brk10_sh;
CREATE OPERATOR brk10_sh.= (LEFTARG = int, RIGHTARG = int, FUNCTION = int4lt);
CREATE TABLE brk10_ops (id int PRIMARY KEY, x int);
INSERT INTO brk10_ops SELECT i, i FROM generate_series(1, 10) i;
SET search_path = brk10_sh, public, pg_catalog;
SELECT dynview.create_dynamic_table('public.brk10_shadow', 'SELECT id, x FROM brk10_ops WHERE x = 5',
                                    schedule => 'manual', refresh_mode => 'incremental') IS NOT NULL AS created;
INSERT INTO brk10_ops VALUES (0, 0), (11, 5), (12, 100), (13, -3);
SELECT refresh_mode FROM dynview.refresh('public.brk10_shadow');
SELECT dynview.verify('public.brk10_shadow') AS verified;
-- x OPERATOR(brk10_sh.=) 5 is x < 5: ids 0..4 and 13
SELECT id, x FROM public.brk10_shadow ORDER BY id;
RESET search_path;

CREATE TABLE brk10_fl (id int PRIMARY KEY, f float8);
INSERT INTO brk10_fl VALUES (1, 1), (2, 1.0000000000000002), (3, 0.5);
SET extra_float_digits = 0;
SELECT dynview.create_dynamic_table('brk10_fl_created', $$SELECT id, f FROM brk10_fl WHERE f <= '1.0000000000000002'::float8$$,
                                    schedule => 'manual', refresh_mode => 'incremental') IS NOT NULL AS created;
RESET extra_float_digits;
SELECT dynview.create_dynamic_table('brk10_fl_refreshed', $$SELECT id, f FROM brk10_fl WHERE f <= '1.0000000000000002'::float8$$,
                                    schedule => 'manual', refresh_mode => 'incremental') IS NOT NULL AS created;
INSERT INTO brk10_fl VALUES (4, 1.0000000000000002), (5, 1), (6, 1.0000000000000004);
SET extra_float_digits = 0;
SELECT refresh_mode FROM dynview.refresh('brk10_fl_created');
SELECT refresh_mode FROM dynview.refresh('brk10_fl_refreshed');
RESET extra_float_digits;
-- the user's query, and each table by its text form against it
SELECT id, f FROM brk10_fl WHERE f <= '1.0000000000000002'::float8 ORDER BY id;
SELECT (SELECT count(*) FROM ((SELECT t::text FROM brk10_fl_created t
                               EXCEPT ALL SELECT q::text FROM brk10_fl q WHERE f <= '1.0000000000000002'::float8)
                              UNION ALL (SELECT q::text FROM brk10_fl q WHERE f <= '1.0000000000000002'::float8
                               EXCEPT ALL SELECT t::text FROM brk10_fl_created t)) x) AS created_differs,
       (SELECT count(*) FROM ((SELECT t::text FROM brk10_fl_refreshed t
                               EXCEPT ALL SELECT q::text FROM brk10_fl q WHERE f <= '1.0000000000000002'::float8)
                              UNION ALL (SELECT q::text FROM brk10_fl q WHERE f <= '1.0000000000000002'::float8
                               EXCEPT ALL SELECT t::text FROM brk10_fl_refreshed t)) x) AS refreshed_differs;
SELECT dynview.verify('brk10_fl_created') AS created, dynview.verify('brk10_fl_refreshed') AS refreshed;


CREATE TABLE brk10_an (id int PRIMARY KEY, t text);
INSERT INTO brk10_an VALUES (1, 'NULL'), (2, 'x'), (3, NULL);
SELECT dynview.create_dynamic_table('brk10_an_filter', $$SELECT id, t FROM brk10_an WHERE t = ANY ('{NULL,x}'::text[])$$,
                                    schedule => 'manual', refresh_mode => 'incremental') IS NOT NULL AS created;
SELECT dynview.create_dynamic_table('brk10_an_column', $$SELECT id, '{NULL,x}'::text[] AS arr FROM brk10_an$$,
                                    schedule => 'manual', refresh_mode => 'full') IS NOT NULL AS created;
INSERT INTO brk10_an VALUES (4, 'NULL'), (5, 'x');
SET array_nulls = off;
SELECT refresh_mode IS NOT NULL AS refreshed FROM dynview.refresh('brk10_an_filter');
SELECT refresh_mode IS NOT NULL AS refreshed FROM dynview.refresh('brk10_an_column');
RESET array_nulls;
SELECT id, t FROM brk10_an_filter ORDER BY id;
SELECT id, arr FROM brk10_an_column ORDER BY id;
SELECT dynview.verify('brk10_an_filter') AS filter, dynview.verify('brk10_an_column') AS col;
SELECT dynview.drop_dynamic_table('brk10_an_filter'), dynview.drop_dynamic_table('brk10_an_column');
DROP TABLE brk10_an;

SELECT dynview.drop_dynamic_table('brk10_shadow'), dynview.drop_dynamic_table('brk10_fl_created'),
       dynview.drop_dynamic_table('brk10_fl_refreshed');
DROP TABLE brk10_ops, brk10_fl;
DROP SCHEMA brk10_sh CASCADE;
