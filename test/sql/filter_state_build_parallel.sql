-- The initial build of an aggregate state whose input reads an optional filter state (TPC-H Q8's
-- shape: the parts of one type joined to their lineitems and orders, summed per year): its fill
-- is planned with min_parallel_table_scan_size 0 (refresh/aggstate.c
-- reads_optional_filter_state), so that the small state may drive a parallel fill as the source
-- under the filter drives the view's plan.  The session's setting is the same after the build,
-- after a FULL rebuild, and after a build that fails; the rows are the query's at every refresh.
SET client_min_messages = warning;
SET min_parallel_table_scan_size = '8MB';
-- (parallel plans wherever cheaper at all, in this small test)
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;

CREATE TABLE fb_part (id int PRIMARY KEY, ptype text NOT NULL, size int);
CREATE TABLE fb_ord (id int PRIMARY KEY, odate date NOT NULL);
CREATE TABLE fb_li (id int PRIMARY KEY, part int NOT NULL, ord int NOT NULL, price numeric(10, 2) NOT NULL);
CREATE INDEX ON fb_li (part);
INSERT INTO fb_part SELECT n, 'T' || n % 150, 1 + n % 50 FROM generate_series(1, 20000) n;
INSERT INTO fb_ord SELECT n, date '1995-01-01' + n % 1000 FROM generate_series(1, 20000) n;
INSERT INTO fb_li SELECT i, 1 + (i * 7919) % 20000, 1 + (i * 13) % 20000, (i * 31) % 1000 / 10.0
  FROM generate_series(1, 60000) i;
ANALYZE fb_part, fb_ord, fb_li;

CREATE TABLE fb_defs (name text PRIMARY KEY, query text NOT NULL);
INSERT INTO fb_defs VALUES
  ('fb_q8', 'SELECT extract(year FROM o.odate) AS y, sum(CASE WHEN p.size < 10 THEN l.price ELSE 0 END) / sum(l.price) AS share,
                    count(*) AS n
               FROM fb_part p, fb_li l, fb_ord o
              WHERE p.id = l.part AND o.id = l.ord AND p.ptype = ''T7''
              GROUP BY 1');
SELECT count(dynview.create_dynamic_table(name, query, schedule => 'manual', refresh_mode => 'incremental'))
  FROM fb_defs;
SHOW min_parallel_table_scan_size;
SELECT j.name, d.effective_mode FROM dynview.dynamic_tables d JOIN fb_defs j ON d.name = j.name::regclass;
-- its filter state was built (numbered from 1000)
SELECT count(*) AS filter_states FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace
 WHERE s.nspname = 'dynview_state' AND c.relkind = 'r'
   AND c.relname ~ ('^ext_' || 'fb_q8'::regclass::oid || '_1[0-9]{3}$');
SELECT dynview.verify('fb_q8');
SELECT (SELECT count(*) FROM fb_q8) AS n,
       (SELECT count(*) FROM (SELECT * FROM fb_q8 EXCEPT ALL
          SELECT extract(year FROM o.odate), sum(CASE WHEN p.size < 10 THEN l.price ELSE 0 END) / sum(l.price), count(*)
            FROM fb_part p, fb_li l, fb_ord o WHERE p.id = l.part AND o.id = l.ord AND p.ptype = 'T7' GROUP BY 1) x) AS differ;

-- changes on every side, parts moved into and out of the filter
INSERT INTO fb_li SELECT 60000 + i, 7 + 150 * i, 1 + i, 10 + i FROM generate_series(1, 20) i;
UPDATE fb_part SET ptype = 'T7' WHERE id IN (8, 9, 10);
UPDATE fb_part SET ptype = 'T8' WHERE id IN (157, 307);
UPDATE fb_ord SET odate = date '1999-06-01' WHERE id IN (1, 2, 3);
DELETE FROM fb_li WHERE id % 997 = 0;
SELECT dynview.wait_for_capture();
SELECT (dynview.refresh('fb_q8')).state;
SELECT refresh_mode FROM dynview.refresh_history('fb_q8', 1);
SELECT dynview.verify('fb_q8');

-- a FULL rebuild builds the states again, the same way
SELECT dynview.alter_dynamic_table('fb_q8', refresh_mode => 'full');
UPDATE fb_part SET size = 3 WHERE id = 7;
SELECT dynview.wait_for_capture();
SELECT (dynview.refresh('fb_q8')).state;
SELECT dynview.alter_dynamic_table('fb_q8', refresh_mode => 'incremental');
UPDATE fb_part SET ptype = 'T7' WHERE id = 11;
SELECT dynview.wait_for_capture();
SELECT (dynview.refresh('fb_q8')).state;
SELECT refresh_mode, mode_reason_code FROM dynview.refresh_history('fb_q8', 1);
SELECT dynview.verify('fb_q8');
SHOW min_parallel_table_scan_size;

-- a build that fails in its fill (a division by zero) leaves the setting as it was
SELECT dynview.create_dynamic_table('fb_bad',
  'SELECT extract(year FROM o.odate) AS y, sum(l.price / (p.size - p.size)) AS s
     FROM fb_part p, fb_li l, fb_ord o WHERE p.id = l.part AND o.id = l.ord AND p.ptype = ''T7'' GROUP BY 1',
  schedule => 'manual');
SHOW min_parallel_table_scan_size;
SELECT to_regclass('fb_bad') IS NULL AS not_created;

SELECT count(dynview.drop_dynamic_table(name)) FROM fb_defs;
DROP TABLE fb_defs, fb_li, fb_part, fb_ord;
RESET min_parallel_table_scan_size;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
