-- BUG-X02: GROUP BY two keys, both nullable: the (NULL, NULL), (NULL, x) and (x, NULL) groups are distinct groups; rows move between them, a NULL group empties and comes back
-- source: modelled on the class of reports about NULL group keys in materialized views (pg_ivm, Doris, ClickHouse; no single report)
-- category: NULL group keys; group emptied and refilled; UPDATE of a group key to and from NULL
-- @view: SELECT g1, g2, count(*) AS n, count(v) AS nv, sum(v) AS s, avg(v) AS a FROM t GROUP BY g1, g2
CREATE TABLE t (id int PRIMARY KEY, g1 int, g2 text, v int);
INSERT INTO t VALUES (1, NULL, NULL, 1), (2, NULL, 'a', 2), (3, 1, NULL, 3), (4, 1, 'a', 4), (5, NULL, NULL, NULL);
-- @refresh
-- step 1: the (NULL, NULL) group loses its only non-NULL value; (1, NULL) gets a row from (NULL, 'a')
DELETE FROM t WHERE id = 1;
UPDATE t SET g1 = 1, g2 = NULL WHERE id = 2;
-- @refresh
-- step 2: every row of (NULL, NULL) and (NULL, 'a') goes; a row comes back to (NULL, NULL) in the same batch
DELETE FROM t WHERE g1 IS NULL;
INSERT INTO t VALUES (6, NULL, NULL, 6);
-- @refresh
-- step 3: the empty string is not NULL
INSERT INTO t VALUES (7, NULL, '', 7);
UPDATE t SET g2 = '' WHERE id = 6;
-- @refresh
-- @expect
SELECT g1, g2, count(*) AS n, count(v) AS nv, sum(v) AS s, avg(v) AS a FROM t GROUP BY g1, g2;
