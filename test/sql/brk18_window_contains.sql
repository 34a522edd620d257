-- Tester's finding (s18-brk): dynview._window_contains (s17-win) parses its four window operands
-- once and keeps them in fn_extra; when its arguments are constants or parameters
-- (get_fn_expr_arg_stable) it trusted them "for the whole statement" and never compared them
-- again.  PL/pgSQL evaluates a simple expression with one expression state for the whole
-- transaction, its variables being parameters: a loop calling the function with a new snapshot
-- in a variable got the first call's answer every time (t, t, t instead of t, f, f on 7a54fef),
-- a silently wrong result for any role calling it (EXECUTE is granted to PUBLIC).
-- Correct result: only constants are trusted; other operands are compared at each call and
-- parsed again when they change, so every call agrees with the reference spelling
-- (pg_visible_in_snapshot and = ANY).  Also odd direct calls by an ordinary role: NULL arguments
-- give NULL (strict), NULL elements of the own lists an error (22004) with a hint, bad snapshot
-- and list texts their input errors, none a crash; xids at the ends of the xid8 space.
SET client_min_messages = warning;
CREATE ROLE brk18_wc_user;
SET ROLE brk18_wc_user;
CREATE TEMP TABLE wc_result (n int, operands text, got boolean, expected boolean);
-- the previous snapshot and its own list in variables, changing from call to call (an assignment:
-- a simple expression, one expression state for the whole loop)
DO $$
DECLARE
  s pg_snapshot;
  own xid8[];
  cur pg_snapshot := '5:10:9';
  r boolean;
  n int := 0;
BEGIN
  FOREACH s IN ARRAY ARRAY['5:8:7', '5:9:', '8:9:', '3:6:', '5:8:7', '1:20:7,9']::pg_snapshot[] LOOP
    FOREACH own SLICE 1 IN ARRAY ARRAY[ARRAY['0', '0'], ARRAY['7', '0'], ARRAY['9', '7']]::xid8[] LOOP
      n := n + 1;
      r := dynview._window_contains('7'::xid8, s, own, cur, '{}'::xid8[]);
      INSERT INTO wc_result VALUES (n, 'prev ' || s::text || ' own ' || own::text, r,
        pg_visible_in_snapshot('7'::xid8, cur) AND NOT (pg_visible_in_snapshot('7'::xid8, s) OR '7'::xid8 = ANY (own)));
    END LOOP;
  END LOOP;
END $$;
-- the current snapshot and its own list in variables
DO $$
DECLARE
  c pg_snapshot;
  own xid8[];
  r boolean;
  n int := 100;
BEGIN
  FOREACH c IN ARRAY ARRAY['5:10:9', '5:6:', '5:10:7,9', '8:12:', '5:10:9']::pg_snapshot[] LOOP
    FOR x IN 1 .. 14 LOOP
      n := n + 1;
      own := ARRAY[(x % 4)::text::xid8];
      r := dynview._window_contains(x::text::xid8, '5:8:7'::pg_snapshot, '{}'::xid8[], c, own);
      INSERT INTO wc_result VALUES (n, 'xid ' || x || ' cur ' || c::text || ' own ' || own::text, r,
        (pg_visible_in_snapshot(x::text::xid8, c) OR x::text::xid8 = ANY (own)) AND
        NOT pg_visible_in_snapshot(x::text::xid8, '5:8:7'));
    END LOOP;
  END LOOP;
END $$;
SELECT count(*) AS calls, count(*) FILTER (WHERE got IS NOT DISTINCT FROM expected) AS agree,
       count(*) FILTER (WHERE expected) AS in_window
  FROM wc_result;
SELECT n, operands, got, expected FROM wc_result WHERE got IS DISTINCT FROM expected ORDER BY n LIMIT 10;
-- odd arguments, as an ordinary role: NULL (strict), errors with their SQLSTATE, no crash
SELECT dynview._window_contains(NULL, '5:8:7', '{}', '5:9:', '{}') IS NULL AS null_xid,
       dynview._window_contains('7', NULL, '{}', '5:9:', '{}') IS NULL AS null_prev,
       dynview._window_contains('7', '5:8:7', NULL, '5:9:', '{}') IS NULL AS null_own;
\set VERBOSITY sqlstate
SELECT dynview._window_contains('7', '5:8:7', '{NULL}', '5:9:', '{}');
SELECT dynview._window_contains('7', '5:8:7', '{}', '5:9:', '{1,NULL}');
SELECT dynview._window_contains('7', '9:5:', '{}', '5:9:', '{}');
\set VERBOSITY default
SELECT dynview._window_contains('7', '5:8:7', '{{1,2},{7,4}}', '5:9:', '{}') AS own_two_dimensions,
       dynview._window_contains('7', '5:8:7', '{}', '5:9:', '{}') AS seven_in_window,
       dynview._window_contains('18446744073709551615', '1:1:', '{}', '18446744073709551615:18446744073709551615:', '{}') AS last_xid8,
       dynview._window_contains('0', '1:1:', '{}', '5:9:', '{}') AS invalid_xid,
       dynview._window_contains('4294967300', '4294967290:4294967295:', '{}', '4294967290:4294967310:', '{}') AS past_epoch;
-- every row of a table, with the operands changing from row to row
SELECT count(*) AS rows, count(*) FILTER (WHERE dynview._window_contains(x, p, '{}', '5:12:', '{}') IS NOT DISTINCT FROM
                                           (pg_visible_in_snapshot(x, '5:12:') AND NOT pg_visible_in_snapshot(x, p))) AS agree
  FROM (SELECT (i % 14)::text::xid8 AS x, (CASE i % 3 WHEN 0 THEN '5:8:7' WHEN 1 THEN '3:4:' ELSE '9:9:' END)::pg_snapshot AS p
          FROM generate_series(1, 300) i) v;
RESET ROLE;
DROP TABLE wc_result;
DROP ROLE brk18_wc_user;
