-- BUG-X51: bytea cast to text in the query (byteaout is marked immutable but follows bytea_output): the session switches bytea_output from hex to escape between refreshes; rows kept from before keep the old rendering
-- source: modelled on reports of session-setting dependent "immutable" output functions in maintained views/indexes (no single report)
-- category: session settings between refreshes; text form of bytea
-- notes: debatable like BUG-X37: PostgreSQL marks byteaout immutable although its text depends on bytea_output; a FULL refresh would rewrite every row in the current setting
-- @view: SELECT id, b::text AS bt, length(b) AS len FROM t
CREATE TABLE t (id int PRIMARY KEY, b bytea);
INSERT INTO t VALUES (1, '\x41420a'), (2, '\x00ff');
-- @refresh
SET bytea_output = 'escape';
INSERT INTO t VALUES (3, '\x4344');
-- @refresh
UPDATE t SET b = b || '\x45'::bytea WHERE id = 1;
-- @refresh
-- @expect
SELECT id, b::text AS bt, length(b) AS len FROM t;
