-- BUG-X37: float values cast to text in the query (float8 -> text is immutable but follows extra_float_digits): a session with extra_float_digits = 0 must see the same text in the table as in the query
-- source: modelled on reports of session-setting dependent results of "immutable" output functions in materialized views (no single report)
-- category: session settings during a refresh; float text form
-- notes: debatable: the engine pins extra_float_digits = 3 during refreshes (src/refresh/refresh.c dv_run_as_owner) so that values round-trip; a plain REFRESH MATERIALIZED VIEW would use the session's setting
-- @view: SELECT id, f::text AS ft, round(f::numeric, 3) AS fr FROM t
CREATE TABLE t (id int PRIMARY KEY, f float8);
SET extra_float_digits = 0;
INSERT INTO t VALUES (1, 0.1), (2, 1.0 / 3);
-- @refresh
UPDATE t SET f = 0.1 + 0.2 WHERE id = 1;
INSERT INTO t VALUES (3, 2.0 / 3);
-- @refresh
-- @expect
SELECT id, f::text AS ft, round(f::numeric, 3) AS fr FROM t;
