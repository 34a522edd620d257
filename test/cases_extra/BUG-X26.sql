-- BUG-X26: count(DISTINCT x) over values that are equal but written differently (numeric 1.0 = 1.00, interval '1 day' = '24 hours', float 0 = -0): equal values count once, also when the spelling that arrived first is deleted
-- source: https://github.com/matrixorigin/matrixone/issues/28860 (named in BUG-37: distinct aggregates split SQL-equal numeric encodings); modelled further on per-value distinct state keyed by bytes
-- category: count(DISTINCT) with equal values of different spellings; per-value state
-- @view: SELECT g, count(DISTINCT n) AS dn, count(DISTINCT i) AS di, count(DISTINCT f) AS df, count(*) AS c FROM t GROUP BY g
CREATE TABLE t (id int PRIMARY KEY, g int, n numeric, i interval, f float8);
INSERT INTO t VALUES (1, 1, 1.0, '1 day', 0), (2, 1, 2, '2 days', 1);
-- @refresh
-- step 1: equal values written differently
INSERT INTO t VALUES (3, 1, 1.00, '24 hours', '-0'), (4, 1, 1, '1440 minutes', -0.0);
-- @refresh
-- step 2: the first spelling goes; the others remain and still count once
DELETE FROM t WHERE id = 1;
-- @refresh
-- step 3: all but one spelling go, then a row changes to another spelling of the same value
DELETE FROM t WHERE id = 3;
UPDATE t SET n = 1.000, i = '86400 seconds', f = 0 WHERE id = 4;
-- @refresh
-- step 4: a value changes to an equal spelling of another row's value
UPDATE t SET n = 2.0, i = '48 hours', f = 1.0 WHERE id = 4;
-- @refresh
-- @expect
SELECT g, count(DISTINCT n) AS dn, count(DISTINCT i) AS di, count(DISTINCT f) AS df, count(*) AS c FROM t GROUP BY g;
