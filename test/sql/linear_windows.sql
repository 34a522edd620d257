-- Windows read as they are (dynview.linear_windows_as_is, incremental.c linear_in_windows):
-- aggregates kept in place whose every aggregate is a sum over the input's weighted rows, over
-- scans, filters and inner joins, read their sources' change rows without consolidating them
-- first (rows added and removed within a window cancel in the sums), when only one source has
-- changes (lw_join's two sources changed together are consolidated: a loss otherwise).  The query's expressions
-- then see intermediate rows: one that raises an error (100 / d of a row whose d = 0 a later
-- change undid) makes the refresh apply the consolidated windows instead, in the same refresh,
-- recorded in its mode_reason (an error of class 54 too); the table's next 4 refreshes then
-- consolidate first (8 after a second failure in a row), each saying so, in whichever session
-- they run (the count is in the table's catalog row: a refresh worker, which exits after each
-- pipeline, sees it too); altering the table forgets it.  A pair of
-- NaN rows in a group the state lacks (a NaN sum that does not cancel) is a group the delta adds
-- no row to, left as it is (absent).  Rounds of pairs +r/-r, group keys updated
-- (and back), NaN and infinities, errors on undone rows; every refresh INCREMENTAL (NO_DATA where
-- the window's changes cancel out) and compared with its query (dynview.verify(), and the rows by
-- text and by =).
SET client_min_messages = warning;

CREATE TABLE lw_o (id int PRIMARY KEY, g int, k int, x numeric(10,2), d int, f float8, u numeric);
CREATE TABLE lw_k (k int PRIMARY KEY, kg text, w int);
INSERT INTO lw_k SELECT i, 'k' || (i % 2), i + 1 FROM generate_series(0, 4) i;
CREATE TABLE lw_p (k int PRIMARY KEY, p int);   -- never changed
INSERT INTO lw_p SELECT i, i % 3 + 1 FROM generate_series(0, 4) i;
INSERT INTO lw_o SELECT i, i % 4, i % 5, (i % 7) * 1.25, 1 + i % 3, i / 4.0, (i % 6) * 0.5
  FROM generate_series(1, 40) i;

CREATE TABLE lw_defs (name text, query text);
INSERT INTO lw_defs VALUES
  ('lw_div', $$SELECT g, count(*) AS n, sum(100 / d) AS s, avg(x / d) AS a FROM lw_o GROUP BY g$$),
  ('lw_join', $$SELECT kg, count(*) AS n, sum(x * w) AS sxw, avg(u) AS au, bool_or(d = 2) AS b2,
                       sum(d) FILTER (WHERE x > 2) AS sd
                  FROM lw_o JOIN lw_k USING (k) WHERE w <> 3 GROUP BY kg$$),
  ('lw_pjoin', $$SELECT p, count(*) AS n, sum(100 / (d * p)) AS s, sum(x) AS sx FROM lw_o JOIN lw_p USING (k)
                  WHERE p > 0 GROUP BY p$$),
  ('lw_nan', $$SELECT g, count(f) AS nf, sum(u) AS su, avg(u) AS au, var_samp(u) AS vu, sum(u) FILTER (WHERE f > 1) AS suf
                 FROM lw_o GROUP BY g$$),
  ('lw_glob', $$SELECT count(*) AS n, sum(x) AS sx, stddev_pop(u) AS su, sum(1000 / d) AS sdd FROM lw_o$$);
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual', refresh_mode => 'incremental')
  FROM lw_defs ORDER BY name;

-- each table (or only the one named) refreshed, its mode, whether its changes were applied again
-- over consolidated windows (and why, and how many of its next refreshes then consolidate first)
-- or consolidated first because reading them as they are failed at an earlier refresh (and how
-- many such refreshes are left), and the comparisons with its query
CREATE FUNCTION lw_round(only_name text DEFAULT NULL)
RETURNS TABLE (name text, refresh_mode text, retried text, verified boolean, same_text boolean, same_rows boolean)
LANGUAGE plpgsql AS $$
DECLARE
  d record;
  r record;
  nt bigint;
  ne bigint;
BEGIN
  FOR d IN SELECT * FROM lw_defs WHERE only_name IS NULL OR lw_defs.name = only_name ORDER BY 1 LOOP
    SELECT * INTO r FROM dynview.refresh(d.name);
    EXECUTE format('SELECT count(*) FROM ((SELECT t::text FROM %I t EXCEPT ALL SELECT q::text FROM (%s) q)
                    UNION ALL (SELECT q::text FROM (%s) q EXCEPT ALL SELECT t::text FROM %I t)) x',
                   d.name, d.query, d.query, d.name) INTO nt;
    EXECUTE format('SELECT count(*) FROM ((TABLE %I EXCEPT ALL (%s)) UNION ALL ((%s) EXCEPT ALL TABLE %I)) x',
                   d.name, d.query, d.query, d.name) INTO ne;
    name := d.name;
    refresh_mode := r.refresh_mode || COALESCE('/' || r.mode_reason_code, '');
    retried := CASE WHEN r.mode_reason LIKE '%failed at an earlier refresh%'
                    THEN 'skipped, ' || substring(r.mode_reason FROM 'again after (\d+) more refreshes\.$') || ' left'
                    WHEN r.mode_reason LIKE '%failed with an error on a row read as it is: %'
                    THEN 'error: ' || substring(r.mode_reason FROM 'read as it is: (.*); the next')
                         || ', next ' || substring(r.mode_reason FROM 'the next (\d+) refreshes')
                    WHEN r.mode_reason LIKE '%failed with the state did not agree%'
                    THEN 'state, next ' || substring(r.mode_reason FROM 'the next (\d+) refreshes')
                    ELSE r.mode_reason END;
    verified := dynview.verify(d.name);
    same_text := nt = 0; same_rows := ne = 0;
    RETURN NEXT;
  END LOOP;
END $$;
SELECT * FROM lw_round();

-- pairs +r/-r: a row inserted and deleted, one deleted and inserted again alike, one deleted
-- and inserted again with other values, d updated back and forth
BEGIN;
INSERT INTO lw_o VALUES (100, 1, 1, 3, 2, 1.5, 2);
DELETE FROM lw_o WHERE id = 100;
DELETE FROM lw_o WHERE id IN (3, 4);
INSERT INTO lw_o VALUES (3, 3, 3, 3.75, 1, 0.75, 1.5), (4, 2, 2, 9.99, 3, 8, 0.25);
COMMIT;
UPDATE lw_o SET d = d + 1 WHERE id BETWEEN 10 AND 14;
UPDATE lw_o SET d = d - 1 WHERE id BETWEEN 10 AND 14;
SELECT * FROM lw_round();

-- group keys updated: rows moved to another group, one moved and back, a group emptied and
-- a new one made, a join key moved to a partner the filter drops and back
UPDATE lw_o SET g = 7 WHERE id IN (1, 5);
UPDATE lw_o SET g = 2 WHERE id = 6;
UPDATE lw_o SET g = 6 WHERE id = 6;
UPDATE lw_o SET g = 2 WHERE id = 6;
UPDATE lw_o SET k = 2 WHERE id = 8;
UPDATE lw_o SET k = 3 WHERE id = 8;
UPDATE lw_o SET g = 0 WHERE g = 3;
SELECT * FROM lw_round();
SELECT g, n, s FROM lw_div ORDER BY g;

-- an error on an undone row: d = 0 written and undone within the window (100 / d, x / d and
-- 1000 / d fail on it); the consolidated windows never show it
INSERT INTO lw_o VALUES (200, 1, 1, 2, 0, 1, 1);
UPDATE lw_o SET d = 4 WHERE id = 200;
UPDATE lw_o SET d = 0 WHERE id = 21;
UPDATE lw_o SET d = 5 WHERE id = 21;
SELECT * FROM lw_round();

-- (the failures above forgotten: altering a table does so, so the windows are read as they are again)
SELECT count(*) AS altered FROM (SELECT dynview.alter_dynamic_table(name, schedule => 'manual') FROM lw_defs) a;
-- the same in a new group that appears and vanishes, and in the join's filtered partner
INSERT INTO lw_o VALUES (201, 9, 0, 1, 0, 1, 1);
DELETE FROM lw_o WHERE id = 201;
UPDATE lw_o SET x = 1 WHERE id = 22;
SELECT * FROM lw_round();

-- (the failures above forgotten: altering a table does so, so the windows are read as they are again)
SELECT count(*) AS altered FROM (SELECT dynview.alter_dynamic_table(name, schedule => 'manual') FROM lw_defs) a;
-- NaN and infinities: in an existing group and gone again within the window (the pair's sum is
-- NaN: the group is recomputed from the sources), in a new group that vanishes again (the
-- state has no row for it and gets none: no retry, NO_DATA), and kept
UPDATE lw_o SET f = 'NaN', u = 'NaN' WHERE id = 30;
UPDATE lw_o SET f = 7.5, u = 3 WHERE id = 30;
UPDATE lw_o SET f = 'Infinity', u = 'Infinity' WHERE id = 31;
UPDATE lw_o SET f = '-Infinity', u = '-Infinity' WHERE id = 31;
UPDATE lw_o SET f = 2, u = 2.50 WHERE id = 31;
SELECT * FROM lw_round();
INSERT INTO lw_o VALUES (300, 11, 1, 1, 1, 'NaN', 'NaN');
DELETE FROM lw_o WHERE id = 300;
SELECT * FROM lw_round();
-- (the failures above forgotten: altering a table does so, so the windows are read as they are again)
SELECT count(*) AS altered FROM (SELECT dynview.alter_dynamic_table(name, schedule => 'manual') FROM lw_defs) a;
UPDATE lw_o SET f = 'Infinity', u = 'Infinity' WHERE id = 32;
UPDATE lw_o SET f = 'NaN', u = 'NaN' WHERE id = 33;
SELECT * FROM lw_round();
SELECT g, su, au FROM lw_nan ORDER BY g;
UPDATE lw_o SET f = 1, u = 1 WHERE id IN (32, 33);
SELECT * FROM lw_round();

-- (the failures above forgotten: altering a table does so, so the windows are read as they are again)
SELECT count(*) AS altered FROM (SELECT dynview.alter_dynamic_table(name, schedule => 'manual') FROM lw_defs) a;
-- an error of class 54 (program limit exceeded) on an undone row: repeat() of a row written
-- with a count past what a value can hold, corrected before the refresh (54000 requested length
-- too large, raised before any memory is taken): applied again over the consolidated windows like
-- any other error, not raised
INSERT INTO lw_defs VALUES
  ('lw_rep', $$SELECT g, count(*) AS n, sum(length(repeat('ab', d))) AS s FROM lw_o GROUP BY g$$);
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual', refresh_mode => 'incremental')
  FROM lw_defs WHERE name = 'lw_rep';
UPDATE lw_o SET d = 600000000 WHERE id = 23;
UPDATE lw_o SET d = 2 WHERE id = 23;
SELECT * FROM lw_round();

-- its next 4 refreshes consolidate first, without paying the failing attempt again; the 5th reads
-- the windows as they are again, and fails again: the next 8 consolidate first
UPDATE lw_o SET d = d + 1 WHERE id = 24;
SELECT * FROM lw_round('lw_rep');
UPDATE lw_o SET d = d + 1 WHERE id = 24;
SELECT * FROM lw_round('lw_rep');
UPDATE lw_o SET d = d + 1 WHERE id = 24;
SELECT * FROM lw_round('lw_rep');
UPDATE lw_o SET d = d + 1 WHERE id = 24;
SELECT * FROM lw_round('lw_rep');
UPDATE lw_o SET d = 600000000 WHERE id = 23;
UPDATE lw_o SET d = 2 WHERE id = 23;
SELECT * FROM lw_round('lw_rep');
-- a row that is still there fails the refresh (consolidated first: the attempt is not paid twice),
-- which changes nothing, its count of refreshes left included (rolled back with it, as the
-- catalog row it is kept in): the next refresh has as many left as the failed one had
UPDATE lw_o SET d = 600000000 WHERE id = 24;
SELECT refresh_mode FROM dynview.refresh('lw_rep');
SELECT dynview.verify('lw_rep') AS verified_after_failure;
UPDATE lw_o SET d = 2 WHERE id = 24;
SELECT * FROM lw_round('lw_rep');

-- the count is the table's, not the session's: a new session (as a refresh worker is for each
-- pipeline) goes on with it, and so does a refresh after a restart
UPDATE lw_o SET d = 600000000 WHERE id = 23;
UPDATE lw_o SET d = 2 WHERE id = 23;
SELECT * FROM lw_round('lw_rep');
\c -
SET client_min_messages = warning;
UPDATE lw_o SET d = d + 1 WHERE id = 24;
SELECT * FROM lw_round('lw_rep');
SELECT as_is_failures, as_is_skip, as_is_error FROM dynview.dynamic_table_catalog WHERE relid = 'lw_rep'::regclass;
-- altered, the table forgets it: its next refresh reads the windows as they are again (and with
-- an undone row failing again, it is its first failure: 4 to skip)
SELECT dynview.alter_dynamic_table('lw_rep', schedule => 'manual');
SELECT as_is_failures, as_is_skip, as_is_error FROM dynview.dynamic_table_catalog WHERE relid = 'lw_rep'::regclass;
UPDATE lw_o SET d = 600000000 WHERE id = 23;
UPDATE lw_o SET d = 2 WHERE id = 23;
SELECT * FROM lw_round('lw_rep');
-- replaced, too
SELECT dynview.create_or_replace_dynamic_table(name, query, schedule => 'manual', refresh_mode => 'incremental')
  FROM lw_defs WHERE name = 'lw_rep';
SELECT as_is_failures, as_is_skip, as_is_error FROM dynview.dynamic_table_catalog WHERE relid = 'lw_rep'::regclass;

-- switched off: the windows are consolidated first, so the undone d = 0 is never evaluated
-- and nothing is applied again
SET dynview.linear_windows_as_is = off;
INSERT INTO lw_o VALUES (202, 2, 2, 2, 0, 1, 1);
UPDATE lw_o SET d = 1 WHERE id = 202;
SELECT * FROM lw_round();
RESET dynview.linear_windows_as_is;

-- an error that is not an undone row's fails the refresh whichever way the window is read
-- (and changes nothing): d = 0 kept
INSERT INTO lw_o VALUES (203, 2, 2, 2, 0, 1, 1);
SELECT refresh_mode FROM dynview.refresh('lw_div');
SELECT count(*) FROM lw_div WHERE g = 2 AND n = (SELECT count(*) FROM lw_o WHERE g = 2);
-- (and lw_join's partners updated to the values they had, their rows leaving and coming back:
-- two sources changed, consolidated windows; lw_div's failed refresh above recorded nothing, so
-- its next refresh reads its window as it is, fails on the d = 0 row that is now undone, and
-- applies the window again consolidated)
DELETE FROM lw_o WHERE id = 203;
UPDATE lw_k SET kg = kg WHERE k IN (1, 2);
SELECT * FROM lw_round();

-- an internal error (XX000) on an undone row: what elog(ERROR) raises, as palloc's "invalid memory
-- alloc request size" for a value past 1 GB does (lw_alloc stands for such a function: it raises
-- that error for a count that large); applied again over the consolidated windows like any other
-- error, not raised.  Data or index corruption (XX001, XX002) is raised at once, also on an undone
-- row, and changes nothing; consolidated first (linear_windows_as_is off), the refresh passes.
CREATE FUNCTION lw_alloc(d int) RETURNS int IMMUTABLE LANGUAGE plpgsql AS $f$
BEGIN
  IF d >= 1000000000 THEN
    RAISE EXCEPTION 'invalid memory alloc request size %', d::bigint * 2
      USING ERRCODE = CASE WHEN d = 1000000001 THEN 'XX001' ELSE 'XX000' END;
  END IF;
  RETURN d;
END $f$;
INSERT INTO lw_defs VALUES
  ('lw_cor', $$SELECT k, count(*) AS n, sum(lw_alloc(d)) AS s FROM lw_o GROUP BY k$$);
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual', refresh_mode => 'incremental')
  FROM lw_defs WHERE name = 'lw_cor';
UPDATE lw_o SET d = 1000000001 WHERE id = 26;
UPDATE lw_o SET d = 6 WHERE id = 26;
SELECT refresh_mode FROM dynview.refresh('lw_cor');
SELECT dynview.verify('lw_cor') AS verified_after_failure;
SET dynview.linear_windows_as_is = off;
SELECT * FROM lw_round('lw_cor');
RESET dynview.linear_windows_as_is;
INSERT INTO lw_defs VALUES
  ('lw_int', $$SELECT g, count(*) AS n, sum(lw_alloc(d)) AS s FROM lw_o GROUP BY g$$);
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual', refresh_mode => 'incremental')
  FROM lw_defs WHERE name = 'lw_int';
UPDATE lw_o SET d = 1000000000 WHERE id = 25;
UPDATE lw_o SET d = 5 WHERE id = 25;
SELECT * FROM lw_round('lw_int');
UPDATE lw_o SET d = d + 1 WHERE id = 25;
SELECT * FROM lw_round('lw_int');

SELECT count(dynview.drop_dynamic_table(name)) FROM lw_defs;
DROP FUNCTION lw_round(text);
DROP FUNCTION lw_alloc(int);
DROP TABLE lw_defs, lw_o, lw_k, lw_p;
