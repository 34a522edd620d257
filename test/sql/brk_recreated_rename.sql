-- Tester's finding (s9-brk): renaming a source column the query reads is followed (refresh.c
-- follow_renames, from the analysed tree the catalog keeps, whose columns are numbers), but not
-- once the source was dropped and created again: the stored tree still names the dropped
-- relation's OID, follow_renames cannot deparse it and gives up, and the tree is renewed only
-- when it is missing.  Seen, after the UPSTREAM_RECREATED refresh: renames that swap the names
-- of two columns make the table read the other column (by name: its sum changes sign below),
-- where a table whose source was never recreated follows the column it read; RENAME COLUMN of
-- the column read makes every refresh fail (column "a" does not exist).  Correct result: the
-- recreated source's renames are followed as the original's are; each refresh succeeds,
-- verify() is true and the table holds the values of the column it read.
SET client_min_messages = warning;
CREATE TABLE brk_rr_src (id int PRIMARY KEY, a int, b int);
INSERT INTO brk_rr_src SELECT i, i, -i FROM generate_series(1, 10) i;
SELECT dynview.create_dynamic_table('brk_rr_rows', 'SELECT id, a FROM brk_rr_src', schedule => 'manual') IS NOT NULL AS created;
SELECT dynview.create_dynamic_table('brk_rr_sum', 'SELECT sum(a) AS s, count(*) AS n FROM brk_rr_src',
                                    schedule => 'manual') IS NOT NULL AS created;
-- the source goes and comes back alike
DROP TABLE brk_rr_src;
CREATE TABLE brk_rr_src (id int PRIMARY KEY, a int, b int);
INSERT INTO brk_rr_src SELECT i, i, -i FROM generate_series(1, 10) i;
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('brk_rr_rows');
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('brk_rr_sum');
INSERT INTO brk_rr_src VALUES (11, 11, -11);
SELECT refresh_mode FROM dynview.refresh('brk_rr_rows');
SELECT refresh_mode FROM dynview.refresh('brk_rr_sum');
-- the names of a and b swapped: the tables follow the column they read, now named b
ALTER TABLE brk_rr_src RENAME COLUMN a TO tmp;
ALTER TABLE brk_rr_src RENAME COLUMN b TO a;
ALTER TABLE brk_rr_src RENAME COLUMN tmp TO b;
INSERT INTO brk_rr_src VALUES (12, -12, 12);
SELECT refresh_mode IS NOT NULL AS refreshed FROM dynview.refresh('brk_rr_rows');
SELECT refresh_mode IS NOT NULL AS refreshed FROM dynview.refresh('brk_rr_sum');
SELECT dynview.verify('brk_rr_rows') AS verified_rows, dynview.verify('brk_rr_sum') AS verified_sum;
SELECT (SELECT sum(a) FROM brk_rr_rows) = (SELECT sum(b) FROM brk_rr_src) AS rows_follow_b,
       (SELECT s FROM brk_rr_sum) = (SELECT sum(b) FROM brk_rr_src) AS sum_follows_b,
       (SELECT count(*) FROM brk_rr_rows r JOIN brk_rr_src s ON s.id = r.id AND s.b = r.a) AS rows_matching_b;
-- the column read renamed again: followed
ALTER TABLE brk_rr_src RENAME COLUMN b TO b2;
INSERT INTO brk_rr_src VALUES (13, -13, 13);
SELECT refresh_mode IS NOT NULL AS refreshed FROM dynview.refresh('brk_rr_rows');
SELECT refresh_mode IS NOT NULL AS refreshed FROM dynview.refresh('brk_rr_sum');
SELECT dynview.verify('brk_rr_rows') AS verified_rows, dynview.verify('brk_rr_sum') AS verified_sum;
SELECT (SELECT sum(a) FROM brk_rr_rows) = (SELECT sum(b2) FROM brk_rr_src) AS rows_follow_b2,
       (SELECT s FROM brk_rr_sum) = (SELECT sum(b2) FROM brk_rr_src) AS sum_follows_b2,
       (SELECT count(*) FROM brk_rr_rows r JOIN brk_rr_src s ON s.id = r.id AND s.b2 = r.a) AS rows_matching_b2;
SELECT dynview.drop_dynamic_table('brk_rr_rows');
SELECT dynview.drop_dynamic_table('brk_rr_sum');
DROP TABLE brk_rr_src;
