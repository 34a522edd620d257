-- The fill of an aggregate state leaves out the filters dynview derives from an OR over several
-- relations (analyze/optree.c or_implied_quals, DvOp implied): the OR, kept in the fill's input,
-- still applies them, and PostgreSQL derives them from it too (TPC-H Q7's two nations, each
-- FRANCE or GERMANY, and the pairs of both).  The rows are the query's at the build and at every
-- refresh after rows moved into and out of the OR's arms; the refreshes still use the filters.
SET client_min_messages = warning;

CREATE TABLE fi_nation (key int PRIMARY KEY, name text NOT NULL);
CREATE TABLE fi_supp (id int PRIMARY KEY, nation int NOT NULL);
CREATE TABLE fi_cust (id int PRIMARY KEY, nation int NOT NULL);
CREATE TABLE fi_sale (id int PRIMARY KEY, supp int NOT NULL, cust int NOT NULL, day date NOT NULL, amount numeric(10, 2));
CREATE INDEX ON fi_sale (cust);
INSERT INTO fi_nation SELECT n, 'N' || n FROM generate_series(0, 24) n;
UPDATE fi_nation SET name = 'FRANCE' WHERE key = 6;
UPDATE fi_nation SET name = 'GERMANY' WHERE key = 7;
INSERT INTO fi_supp SELECT n, n % 25 FROM generate_series(1, 2000) n;
INSERT INTO fi_cust SELECT n, (n * 7) % 25 FROM generate_series(1, 5000) n;
INSERT INTO fi_sale SELECT i, 1 + (i * 17) % 2000, 1 + (i * 31) % 4999, date '1995-01-01' + i % 730,
                           CASE WHEN i % 53 = 0 THEN NULL ELSE (i * 13) % 1000 / 10.0 END
  FROM generate_series(1, 40000) i;
ANALYZE fi_nation, fi_supp, fi_cust, fi_sale;

CREATE TABLE fi_defs (name text PRIMARY KEY, query text NOT NULL);
INSERT INTO fi_defs VALUES
  ('fi_q7', 'SELECT n1.name AS supp_nation, n2.name AS cust_nation, extract(year FROM s.day) AS y,
                    sum(s.amount) AS revenue, count(*) AS n
               FROM fi_supp su, fi_sale s, fi_cust c, fi_nation n1, fi_nation n2
              WHERE su.id = s.supp AND c.id = s.cust AND su.nation = n1.key AND c.nation = n2.key
                AND ((n1.name = ''FRANCE'' AND n2.name = ''GERMANY'') OR (n1.name = ''GERMANY'' AND n2.name = ''FRANCE''))
              GROUP BY 1, 2, 3'),
  -- an OR whose arms read one relation and the join's other side (no group: no state's fill)
  ('fi_rows', 'SELECT s.id, n1.name FROM fi_supp su JOIN fi_sale s ON su.id = s.supp JOIN fi_nation n1 ON su.nation = n1.key
                WHERE (n1.name = ''FRANCE'' AND s.amount > 50) OR (n1.name = ''GERMANY'' AND s.amount < 5)');
SELECT count(dynview.create_dynamic_table(name, query, schedule => 'manual', refresh_mode => 'incremental'))
  FROM fi_defs;
SELECT j.name, d.effective_mode FROM dynview.dynamic_tables d JOIN fi_defs j ON d.name = j.name::regclass ORDER BY 1;
SELECT j.name, dynview.verify(j.name) FROM fi_defs j ORDER BY 1;
SELECT count(*) AS groups FROM fi_q7;
SELECT count(*) AS differ FROM (
  SELECT * FROM fi_q7 EXCEPT ALL
  SELECT n1.name, n2.name, extract(year FROM s.day), sum(s.amount), count(*)
    FROM fi_supp su, fi_sale s, fi_cust c, fi_nation n1, fi_nation n2
   WHERE su.id = s.supp AND c.id = s.cust AND su.nation = n1.key AND c.nation = n2.key
     AND ((n1.name = 'FRANCE' AND n2.name = 'GERMANY') OR (n1.name = 'GERMANY' AND n2.name = 'FRANCE'))
   GROUP BY 1, 2, 3) x;

-- rows moved into and out of the arms: suppliers and customers change nation, a nation its name
UPDATE fi_supp SET nation = 6 WHERE id IN (1, 2, 3);
UPDATE fi_cust SET nation = 24 WHERE id IN (7, 8);
UPDATE fi_cust SET nation = 7 WHERE id IN (11, 12);
INSERT INTO fi_sale SELECT 40000 + i, 1 + i, 11 + i % 2, date '1996-03-01', i FROM generate_series(1, 10) i;
DELETE FROM fi_sale WHERE id % 991 = 0;
SELECT dynview.wait_for_capture();
SELECT j.name, (dynview.refresh(j.name)).state FROM fi_defs j ORDER BY 1;
SELECT j.name, h.refresh_mode, dynview.verify(j.name) FROM fi_defs j, dynview.refresh_history(j.name, 1) h ORDER BY 1;
UPDATE fi_nation SET name = 'FRANCE' WHERE key = 24;
UPDATE fi_nation SET name = 'GERMANY ' WHERE key = 7;
SELECT dynview.wait_for_capture();
SELECT j.name, (dynview.refresh(j.name)).state FROM fi_defs j ORDER BY 1;
SELECT j.name, dynview.verify(j.name) FROM fi_defs j ORDER BY 1;

-- a FULL refresh's rebuild of the state, then incremental again
SELECT dynview.alter_dynamic_table('fi_q7', refresh_mode => 'full');
UPDATE fi_nation SET name = 'GERMANY' WHERE key = 7;
SELECT dynview.wait_for_capture();
SELECT (dynview.refresh('fi_q7')).state;
SELECT dynview.alter_dynamic_table('fi_q7', refresh_mode => 'incremental');
UPDATE fi_sale SET amount = amount + 1 WHERE id % 7 = 0;
SELECT dynview.wait_for_capture();
SELECT (dynview.refresh('fi_q7')).state;
SELECT refresh_mode, mode_reason_code FROM dynview.refresh_history('fi_q7', 1);
SELECT dynview.verify('fi_q7');

SELECT count(dynview.drop_dynamic_table(name)) FROM fi_defs;
DROP TABLE fi_defs, fi_sale, fi_cust, fi_supp, fi_nation;
