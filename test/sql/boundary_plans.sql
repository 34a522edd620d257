-- The statements of a window table without PARTITION BY and of a top-N table take the first
-- changed row in the table's order as parameters (incremental.c apply_window, apply_topn): scalars,
-- not arrays of keys.  They are kept per connection (statements.c) and left to PostgreSQL's plan
-- choice: custom plans for the first five executions, then the generic plan where it costs no
-- more.  Here one connection refreshes such tables twelve times, the boundary moving each time
-- (first row, last row, the middle, ties, a NULL sort key first and last, a boundary of another
-- numeric spelling), so that the later refreshes run the kept statements past the fifth
-- execution; every refresh compared with its query (dynview.verify(), the rows by text and by =).
SET client_min_messages = warning;
CREATE TABLE bp_src (id int PRIMARY KEY, g int, v numeric, t text);
ALTER TABLE bp_src REPLICA IDENTITY FULL;
INSERT INTO bp_src SELECT i, i % 5, (i * 37 % 101)::numeric / 4, 't' || (i % 13) FROM generate_series(1, 300) i;
CREATE TABLE bp_defs (name text PRIMARY KEY, query text NOT NULL);
INSERT INTO bp_defs VALUES
  ('bp_rank', $$SELECT rank() OVER (ORDER BY v DESC) AS r, id, v FROM bp_src$$),
  ('bp_rank2', $$SELECT dense_rank() OVER (ORDER BY t NULLS FIRST, v) AS r, id, t, v FROM bp_src$$),
  ('bp_grouped_rank', $$SELECT rank() OVER (ORDER BY s DESC) AS r, g, s
                        FROM (SELECT g, sum(v) AS s FROM bp_src GROUP BY g) x$$),
  ('bp_top', $$SELECT id, v FROM bp_src ORDER BY v DESC, id LIMIT 10$$);
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual') IS NOT NULL AS created
  FROM bp_defs ORDER BY name;

\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round

-- one change, committed and captured
CREATE PROCEDURE bp_change(k int) LANGUAGE plpgsql AS $$
BEGIN
  CASE k % 6
    WHEN 0 THEN UPDATE bp_src SET v = v + 30 WHERE id = 1 + k * 7 % 300;          -- to the first rows
    WHEN 1 THEN UPDATE bp_src SET v = -1 WHERE id = 1 + k * 11 % 300;             -- to the last row
    WHEN 2 THEN UPDATE bp_src SET v = 12.5 WHERE id IN (1 + k % 300, 2 + k % 300); -- ties in the middle
    WHEN 3 THEN UPDATE bp_src SET t = NULL WHERE id = 1 + k * 13 % 300;           -- a NULL sort key
    WHEN 4 THEN UPDATE bp_src SET v = 12.50, t = 't' || k WHERE id = 1 + k * 17 % 300; -- equal, spelled otherwise
    ELSE INSERT INTO bp_src VALUES (1000 + k, k % 5, NULL, NULL);                  -- NULLs sort first (DESC)
  END CASE;
  COMMIT;
  PERFORM dynview.wait_for_capture();
END $$;

CREATE TABLE bp_results (k int, name text, refresh_mode text, verified bool, same_text bool, same_rows bool);
-- twelve rounds, each statement its own transaction
SELECT format('CALL bp_change(%s)', k),
       format('INSERT INTO bp_results SELECT %s, r.* FROM dv_refresh_round(''bp_defs'') r', k)
  FROM generate_series(1, 12) k \gexec
-- every refresh exact; their modes
SELECT name, count(*) AS refreshes, bool_and(verified) AS verified, bool_and(same_text) AS same_text,
       bool_and(same_rows) AS same_rows, count(*) FILTER (WHERE refresh_mode = 'INCREMENTAL') AS incremental,
       string_agg(DISTINCT refresh_mode, ', ') AS modes
  FROM bp_results GROUP BY name ORDER BY name;
SELECT count(*) FROM bp_results WHERE NOT (verified AND same_text AND same_rows);

DROP TABLE bp_results;
DROP PROCEDURE bp_change(int);
DROP FUNCTION dv_refresh_round(regclass);
SELECT dynview.drop_dynamic_table(name) FROM bp_defs ORDER BY name;
DROP TABLE bp_defs, bp_src;
