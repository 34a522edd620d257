-- Tester's finding (s8-brk2): DISTINCT ON in a subquery (s8-nest) and DISTINCT in a subquery,
-- both under a join, keep the spelling of a numeric value from the row that gave it (4.5) after
-- that row is deleted, when the one row left spells it 4.50 (seen: verify() false, table 4.5,
-- query 4.50).  The same GROUP BY subquery notices (FULL, INCREMENTAL_MISMATCH) and is right.
-- Correct result: each table holds the spelling of the row left, and verify() is true.
SET client_min_messages = warning;
CREATE TABLE bdn_a (id int PRIMARY KEY, w numeric, g int);
CREATE TABLE bdn_b (id int PRIMARY KEY, w numeric);
CREATE TABLE bdn_d (g int PRIMARY KEY);
INSERT INTO bdn_a VALUES (1, 4.5, 1), (2, 4.50, 1), (3, 7, 2);
INSERT INTO bdn_b VALUES (1, 4.5), (2, 4.50), (3, 7);
INSERT INTO bdn_d VALUES (1), (2);
SELECT dynview.create_dynamic_table('bdn_do', 'SELECT x.w, x.g FROM (SELECT DISTINCT ON (g) g, w FROM bdn_a ORDER BY g, w) x JOIN bdn_d ON bdn_d.g = x.g',
                                    schedule => 'manual') IS NOT NULL AS created;
SELECT dynview.create_dynamic_table('bdn_dist', 'SELECT x.w FROM (SELECT DISTINCT w FROM bdn_b) x JOIN bdn_d ON bdn_d.g = 1',
                                    schedule => 'manual') IS NOT NULL AS created;
-- the rows whose spelling the tables hold go
DELETE FROM bdn_a WHERE g = 1 AND w::text = (SELECT w::text FROM bdn_do WHERE g = 1);
DELETE FROM bdn_b WHERE w::text = (SELECT w::text FROM bdn_dist WHERE w = 4.5);
SELECT refresh_mode IS NOT NULL AS refreshed FROM dynview.refresh('bdn_do');
SELECT refresh_mode IS NOT NULL AS refreshed FROM dynview.refresh('bdn_dist');
SELECT dynview.verify('bdn_do') AS verified_do, dynview.verify('bdn_dist') AS verified_dist;
SELECT (SELECT w::text FROM bdn_do WHERE g = 1) = (SELECT w::text FROM bdn_a WHERE g = 1) AS same_text_do,
       (SELECT w::text FROM bdn_dist WHERE w = 4.5) = (SELECT w::text FROM bdn_b WHERE w = 4.5) AS same_text_dist;
SELECT dynview.drop_dynamic_table('bdn_do');
SELECT dynview.drop_dynamic_table('bdn_dist');
DROP TABLE bdn_a, bdn_b, bdn_d;
