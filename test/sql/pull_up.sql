-- Views, subqueries and WITH queries pulled up; what must stay FULL; names that must not clash
-- with dynview's generated SQL; views and sources redefined or renamed.  Every refresh verified.
SET client_min_messages = warning;
CREATE TABLE pu_o (id int PRIMARY KEY, cid int, amt numeric(10,2), st text);
CREATE TABLE pu_c (id int PRIMARY KEY, region text);
INSERT INTO pu_c SELECT i, 'r' || (i % 3) FROM generate_series(1, 10) i;
INSERT INTO pu_o SELECT i, 1 + i % 10, i * 1.5, CASE WHEN i % 4 = 0 THEN 'x' ELSE 'ok' END FROM generate_series(1, 40) i;
CREATE VIEW pu_ok AS SELECT id, cid, amt FROM pu_o WHERE st = 'ok';

SELECT dynview.create_dynamic_table('pu_view', 'SELECT c.region, v.id, v.amt FROM pu_ok v JOIN pu_c c ON c.id = v.cid', schedule => 'manual');
SELECT dynview.create_dynamic_table('pu_cte', 'WITH big AS (SELECT * FROM pu_o WHERE amt > 20) SELECT b.cid, count(*) AS n, sum(b.amt) AS s FROM big b GROUP BY b.cid', schedule => 'manual');
SELECT dynview.create_dynamic_table('pu_sub', 'SELECT s.r, s.total FROM (SELECT c.region AS r, o.amt * 2 AS total, o.id FROM pu_o o JOIN pu_c c ON c.id = o.cid) s WHERE s.total > 10', schedule => 'manual');
SELECT dynview.create_dynamic_table('pu_key', 'SELECT o.id, o.cid, c.region FROM pu_o o JOIN pu_c c ON o.cid = c.id', schedule => 'manual');
SELECT name, effective_mode, mode_reason_code FROM dynview.dynamic_tables WHERE name::text LIKE 'pu\_%' ORDER BY 1;
SELECT value FROM dynview.explain_dynamic_table('pu_key') WHERE property = 'key';

INSERT INTO pu_o VALUES (500, 3, 99.99, 'ok'), (501, 4, 5, 'x');
UPDATE pu_o SET st = 'x' WHERE id IN (1, 2);
UPDATE pu_o SET cid = 7 WHERE id BETWEEN 10 AND 20;
DELETE FROM pu_o WHERE id BETWEEN 30 AND 35;
UPDATE pu_c SET region = 'zz' WHERE id = 7;
SELECT n, (dynview.refresh(n)).refresh_mode FROM unnest(ARRAY['pu_view', 'pu_cte', 'pu_sub', 'pu_key']) n;
SELECT dynview.verify('pu_view'), dynview.verify('pu_cte'), dynview.verify('pu_sub'), dynview.verify('pu_key');

-- FULL with a reason: system columns, TABLESAMPLE, a source column named like a buffer column
CREATE TABLE pu_w (id int PRIMARY KEY, dv_weight int);
INSERT INTO pu_w VALUES (1, 5);
SELECT dynview.create_dynamic_table('pu_ctid', 'SELECT id, ctid AS t FROM pu_o', schedule => 'manual');
SELECT dynview.create_dynamic_table('pu_sample', 'SELECT id FROM pu_o TABLESAMPLE BERNOULLI (50) REPEATABLE (1)', schedule => 'manual');
SELECT dynview.create_dynamic_table('pu_dvw', 'SELECT id, dv_weight AS w FROM pu_w', schedule => 'manual');
SELECT name, effective_mode, mode_reason_code FROM dynview.dynamic_tables
 WHERE name::text IN ('pu_ctid', 'pu_sample', 'pu_dvw') ORDER BY 1;
UPDATE pu_w SET dv_weight = 9;
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('pu_dvw');
SELECT dynview.verify('pu_dvw');

-- output columns named like the aliases of dynview's generated SQL
CREATE TABLE pu_kt (t text PRIMARY KEY, v int);
INSERT INTO pu_kt VALUES ('a', 1), ('b', 3);
SELECT dynview.create_dynamic_table('pu_t', 'SELECT t, v FROM pu_kt', schedule => 'manual');
SELECT dynview.create_dynamic_table('pu_dvq', 'SELECT id AS dv_q, amt FROM pu_o', schedule => 'manual');
SELECT dynview.create_dynamic_table('pu_dvt', 'SELECT id AS dv_t, amt, random() > 2 AS f FROM pu_o', schedule => 'manual');
DELETE FROM pu_kt WHERE t = 'a';
UPDATE pu_o SET amt = amt + 1 WHERE id = 3;
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('pu_t');
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('pu_dvq');
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('pu_dvt');
SELECT dynview.verify('pu_t'), dynview.verify('pu_dvq'), dynview.verify('pu_dvt');

-- a redefined view: FULL, DEFINITION_CHANGED, then incremental again
CREATE OR REPLACE VIEW pu_ok AS SELECT id, cid, amt FROM pu_o WHERE st = 'x';
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('pu_view');
INSERT INTO pu_o VALUES (502, 5, 7.00, 'x');
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('pu_view');
SELECT dynview.verify('pu_view');

-- a table renamed behind a view keeps refreshing; a source renamed away is missing
CREATE TABLE pu_rm (id int PRIMARY KEY, v int);
INSERT INTO pu_rm VALUES (1, 1);
CREATE VIEW pu_rm_view AS SELECT id, v FROM pu_rm;
SELECT dynview.create_dynamic_table('pu_through', 'SELECT id, v FROM pu_rm_view', schedule => 'manual');
SELECT dynview.create_dynamic_table('pu_direct', 'SELECT id, v FROM pu_rm', schedule => 'manual');
ALTER TABLE pu_rm RENAME TO pu_rm2;
INSERT INTO pu_rm2 VALUES (2, 2);
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('pu_through');
SELECT dynview.verify('pu_through');
SELECT refresh_mode, mode_reason_code, mode_reason FROM dynview.refresh('pu_direct');
SELECT dynview.verify('pu_direct');   -- a clear error: its source is missing
-- a view replaced by a table of its name: analysed again, tracked, incremental after one FULL
DROP VIEW pu_rm_view;
CREATE TABLE pu_rm_view (id int PRIMARY KEY, v int);
INSERT INTO pu_rm_view VALUES (9, 9);
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('pu_through');
INSERT INTO pu_rm_view VALUES (10, 10);
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('pu_through');
SELECT dynview.verify('pu_through'), count(*) FROM pu_through;

-- a view owned by another role is not pulled up (it reads with its owner's rights)
CREATE ROLE regress_dv_viewer;
GRANT CREATE ON SCHEMA public TO regress_dv_viewer;
CREATE VIEW pu_secret AS SELECT id, amt FROM pu_o WHERE st = 'ok';
GRANT SELECT ON pu_secret TO regress_dv_viewer;
SET ROLE regress_dv_viewer;
SELECT dynview.create_dynamic_table('pu_viewer', 'SELECT a.id, b.id AS id2 FROM pu_secret a JOIN pu_secret b ON a.id = b.id', schedule => 'manual');
RESET ROLE;
SELECT effective_mode, mode_reason_code FROM dynview.dynamic_tables WHERE name = 'pu_viewer'::regclass;
INSERT INTO pu_o VALUES (503, 1, 1.00, 'ok');
SET ROLE regress_dv_viewer;
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('pu_viewer');
SELECT dynview.verify('pu_viewer');
RESET ROLE;

SELECT dynview.drop_dynamic_table(name::text) FROM dynview.dynamic_tables WHERE name::text LIKE 'pu\_%';
DROP VIEW pu_ok, pu_secret;
DROP TABLE pu_o, pu_c, pu_w, pu_kt, pu_rm2, pu_rm_view;
REVOKE CREATE ON SCHEMA public FROM regress_dv_viewer;
DROP ROLE regress_dv_viewer;
