-- The semi-join's demand on a grouped subquery below it (optree.c semi_demand; TPC-H Q20:
-- partsupp joined with the sum of lineitem's quantities per (part, supplier), under
-- "ps_partkey IN (SELECT p_partkey FROM part WHERE p_name LIKE 'forest%')"): the changed groups
-- of the subquery are cut to the keys that some row of the semi-join's right side has, now or in
-- its delta, before the join looks up their partsupp rows; a row of the join's delta with
-- another key matched no part before and adds nothing to the semi-join's delta.  The rounds:
-- lineitems of filtered and unfiltered parts, NULL keys, parts entering and leaving the filter in
-- the window of their lineitems, partsupp rows added and deleted, a part deleted and inserted
-- again, only the parts changing; every refresh verified and compared with the query by text and
-- by "=".  An anti-join (NOT IN, NOT EXISTS) and an unfiltered right side get no cut.
SET client_min_messages = warning;

CREATE TABLE sd_part (id int PRIMARY KEY, name text);
CREATE TABLE sd_supp (id int PRIMARY KEY, name text NOT NULL, nation int);
CREATE TABLE sd_ps (partkey int, suppkey int, avail int, UNIQUE (partkey, suppkey));
CREATE TABLE sd_li (id int PRIMARY KEY, partkey int, suppkey int, qty numeric(12, 2), ship date);
CREATE INDEX ON sd_li (partkey, suppkey);
INSERT INTO sd_part SELECT n, CASE WHEN n % 10 = 0 THEN 'forest ' ELSE 'lace ' END || n FROM generate_series(1, 400) n;
INSERT INTO sd_part VALUES (401, NULL);
INSERT INTO sd_supp SELECT n, 'S' || n, n % 5 FROM generate_series(1, 40) n;
INSERT INTO sd_ps SELECT p, 1 + (p + k * 10) % 40, (p * 37 + k * 11) % 100 FROM generate_series(1, 401) p, generate_series(0, 3) k;
INSERT INTO sd_ps VALUES (NULL, 3, 50), (10, NULL, 60);
INSERT INTO sd_li SELECT i, 1 + (i * 7) % 401, 1 + ((1 + (i * 7) % 401) + (i % 4) * 10) % 40, 1 + i % 17,
                         date '1993-07-01' + (i % 400)
  FROM generate_series(1, 12000) i;
INSERT INTO sd_li VALUES (20001, NULL, 3, 5, date '1994-03-01'), (20002, 10, NULL, 5, date '1994-03-01');
ANALYZE sd_part, sd_supp, sd_ps, sd_li;

CREATE TABLE sd_defs (name text PRIMARY KEY, query text NOT NULL);
INSERT INTO sd_defs VALUES
  -- Q20's shape
  ('sd_q20', 'SELECT s.name, s.nation FROM sd_supp s
               WHERE s.id IN (SELECT ps.suppkey FROM sd_ps ps
                               WHERE ps.partkey IN (SELECT id FROM sd_part WHERE name LIKE ''forest%'')
                                 AND ps.avail > (SELECT 0.5 * sum(l.qty) FROM sd_li l
                                                  WHERE l.partkey = ps.partkey AND l.suppkey = ps.suppkey
                                                    AND l.ship >= date ''1994-01-01'' AND l.ship < date ''1995-01-01''))
                 AND s.nation IN (1, 2)'),
  -- its partsupp level alone (the rows of the semi-join, with the sum)
  ('sd_ps_level', 'SELECT ps.partkey, ps.suppkey, ps.avail FROM sd_ps ps
                    WHERE ps.partkey IN (SELECT id FROM sd_part WHERE name LIKE ''forest%'')
                      AND ps.avail > (SELECT 0.5 * sum(l.qty) FROM sd_li l
                                       WHERE l.partkey = ps.partkey AND l.suppkey = ps.suppkey)'),
  -- EXISTS spelling, the filter an equality
  ('sd_exists', 'SELECT ps.partkey, ps.suppkey FROM sd_ps ps
                  WHERE EXISTS (SELECT FROM sd_part p WHERE p.id = ps.partkey AND p.name = ''forest 20'')
                    AND ps.avail > (SELECT sum(l.qty) FROM sd_li l WHERE l.partkey = ps.partkey AND l.suppkey = ps.suppkey)'),
  -- an unfiltered right side (no cut)
  ('sd_unfiltered', 'SELECT ps.partkey, ps.suppkey FROM sd_ps ps
                      WHERE ps.partkey IN (SELECT id FROM sd_part)
                        AND ps.avail > (SELECT 0.5 * sum(l.qty) FROM sd_li l WHERE l.partkey = ps.partkey AND l.suppkey = ps.suppkey)'),
  -- anti-joins (no cut: a row matching nothing is kept)
  ('sd_not_in', 'SELECT ps.partkey, ps.suppkey FROM sd_ps ps
                  WHERE ps.partkey NOT IN (SELECT id FROM sd_part WHERE name LIKE ''lace%'')
                    AND ps.avail > (SELECT 0.5 * sum(l.qty) FROM sd_li l WHERE l.partkey = ps.partkey AND l.suppkey = ps.suppkey)'),
  ('sd_not_exists', 'SELECT ps.partkey, ps.suppkey FROM sd_ps ps
                      WHERE NOT EXISTS (SELECT FROM sd_part p WHERE p.id = ps.partkey AND p.name LIKE ''lace%'')
                        AND ps.avail > (SELECT 0.5 * sum(l.qty) FROM sd_li l WHERE l.partkey = ps.partkey AND l.suppkey = ps.suppkey)');
SELECT count(dynview.create_dynamic_table(name, query, schedule => 'manual', refresh_mode => 'incremental'))
  FROM sd_defs;
SELECT j.name, d.effective_mode FROM dynview.dynamic_tables d JOIN sd_defs j ON d.name = j.name::regclass ORDER BY 1;

-- the cut, as explain() writes the delta: the subquery's changed groups filtered by a test of
-- sd_part now and of its delta, before the join with sd_ps (1 where the rule applies)
SELECT j.name,
       (SELECT count(*) FROM regexp_matches(e.value,
          'SELECT \* FROM dv_d[0-9]+ d WHERE \(EXISTS \(SELECT FROM \(SELECT \* FROM \(SELECT s\.id AS c[0-9_]+, s\.name AS c[0-9_]+ FROM public\.sd_part s\) f WHERE [^)]*\)\) o WHERE o\.c[0-9_]+ OPERATOR\(pg_catalog\.=\) d\.c[0-9_]+\) OR EXISTS \(SELECT FROM dv_d[0-9]+ o WHERE o\.c[0-9_]+ OPERATOR\(pg_catalog\.=\) d\.c[0-9_]+\)\)',
          'g')) AS cut
  FROM sd_defs j JOIN dynview.explain_dynamic_table(j.name) e ON e.property = 'delta'
 ORDER BY 1;

\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round

-- round 1: lineitems of filtered and unfiltered parts inserted and deleted, quantities changed
-- (a sum crossing the availability), NULL part and supplier keys
INSERT INTO sd_li SELECT 30000 + i, 10 * (1 + i % 40), 1 + ((10 * (1 + i % 40)) + (i % 4) * 10) % 40, 3 + i % 5,
                         date '1994-02-01' + i
  FROM generate_series(1, 60) i;
INSERT INTO sd_li SELECT 31000 + i, 1 + (i * 3) % 400, 1 + ((1 + (i * 3) % 400) + (i % 4) * 10) % 40, 2, date '1994-05-01'
  FROM generate_series(1, 60) i;
INSERT INTO sd_li VALUES (32001, NULL, 5, 9, date '1994-06-01'), (32002, 20, NULL, 9, date '1994-06-01'),
                         (32003, NULL, NULL, 9, date '1994-06-01');
DELETE FROM sd_li WHERE id % 97 = 0 AND id < 12000;
UPDATE sd_li SET qty = qty + 40 WHERE partkey IN (30, 70) AND id < 12000;
SELECT * FROM dv_refresh_round('sd_defs');

-- round 2: parts enter and leave the filter in the window of lineitems of theirs; a part's name
-- becomes NULL
UPDATE sd_part SET name = 'forest new ' || id WHERE id IN (11, 12, 13);
UPDATE sd_part SET name = 'lace was ' || id WHERE id IN (40, 50);
UPDATE sd_part SET name = NULL WHERE id = 60;
INSERT INTO sd_li VALUES (33001, 11, 12, 1, date '1994-04-01'), (33002, 40, 1, 1, date '1994-04-01'),
                         (33003, 12, 13, 90, date '1994-04-01'), (33004, 50, 11, 3, date '1994-04-01'),
                         (33005, 60, 21, 3, date '1994-04-01'), (33006, 13, 14, 1, date '1994-04-01');
UPDATE sd_li SET qty = 1 WHERE partkey = 13;
SELECT * FROM dv_refresh_round('sd_defs');

-- round 3: partsupp rows added and deleted with lineitems of theirs, a NULL partkey row
DELETE FROM sd_ps WHERE partkey IN (20, 90) AND suppkey IN (21, 31);
INSERT INTO sd_ps VALUES (20, 5, 99), (90, 7, 3), (NULL, 8, 40), (25, 5, 70);
INSERT INTO sd_li VALUES (34001, 20, 5, 4, date '1994-08-01'), (34002, 90, 7, 1, date '1994-08-01'),
                         (34003, 20, 21, 7, date '1994-08-01'), (34004, 25, 5, 2, date '1994-08-01'),
                         (34005, NULL, 8, 2, date '1994-08-01');
SELECT * FROM dv_refresh_round('sd_defs');

-- round 4: a filtered part deleted with its lineitems and inserted again with new ones; a group
-- emptied; a part leaving the filter whose lineitems change, another entering it whose partsupp
-- rows change
DELETE FROM sd_li WHERE partkey = 30;
DELETE FROM sd_part WHERE id = 30;
INSERT INTO sd_part VALUES (30, 'forest again');
INSERT INTO sd_li VALUES (35001, 30, 1, 2, date '1994-09-01'), (35002, 30, 11, 80, date '1994-09-01');
DELETE FROM sd_li WHERE partkey = 70 AND suppkey = 11;
UPDATE sd_part SET name = 'lace now' WHERE id = 80;
UPDATE sd_li SET qty = qty + 1 WHERE partkey = 80;
UPDATE sd_part SET name = 'forest 21' WHERE id = 21;
UPDATE sd_ps SET avail = avail + 50 WHERE partkey = 21;
SELECT * FROM dv_refresh_round('sd_defs');

-- round 5: only the parts change (the subqueries' input does not)
UPDATE sd_part SET name = 'forest ' || id WHERE id BETWEEN 100 AND 140;
UPDATE sd_part SET name = 'lace ' || id WHERE id IN (150, 160);
SELECT * FROM dv_refresh_round('sd_defs');

-- round 6: many lineitems change
UPDATE sd_li SET qty = qty + 1 WHERE id % 3 = 0;
SELECT * FROM dv_refresh_round('sd_defs');
SELECT count(*), sum(nation) FROM sd_q20;

SELECT dynview.drop_dynamic_table(name) FROM sd_defs ORDER BY name;
DROP FUNCTION dv_refresh_round(regclass);
DROP TABLE sd_defs, sd_li, sd_ps, sd_supp, sd_part;
