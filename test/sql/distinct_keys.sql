-- count(DISTINCT x) over a unique key of the level's input is count(x) (issue 14): kept as a
-- non-null count in the state row, without a table of multiplicities (dynview_state.dist_*).
-- The cases where x is not a key alone keep their multiplicities.  Every refresh is verified.
SET client_min_messages = warning;

-- the multiplicity tables of a dynamic table, and its aggregate rules
CREATE FUNCTION dk_dist(t regclass) RETURNS bigint LANGUAGE sql AS
$$SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
   WHERE n.nspname = 'dynview_state' AND c.relname LIKE 'dist\_' || t::oid || '\_%'$$;
CREATE FUNCTION dk_rules(t text) RETURNS text LANGUAGE sql AS
$$SELECT value FROM dynview.explain_dynamic_table(t) WHERE property = 'aggregates'$$;

CREATE TABLE dk_p (pid int PRIMARY KEY, cat text NOT NULL);
CREATE TABLE dk_o (id int PRIMARY KEY, pid int, a int, b int, u int UNIQUE, n numeric UNIQUE,
                   v int, UNIQUE (a, b));
INSERT INTO dk_p SELECT i, 'c' || (i % 3) FROM generate_series(1, 9) i;
INSERT INTO dk_o SELECT i, 1 + i % 10, i % 5, i, CASE WHEN i % 4 = 0 THEN NULL ELSE i END,
                        i / 2.0, i % 7
  FROM generate_series(1, 40) i;

-- the key (primary key), a nullable unique column (NULLs counted by neither), a numeric key
-- (1.0 and 1.00 are equal for the index and for DISTINCT), with a FILTER
SELECT dynview.create_dynamic_table('dk_key',
  $$SELECT pid, count(DISTINCT id) AS di, count(DISTINCT u) AS du, count(DISTINCT n) AS dn,
           count(DISTINCT id) FILTER (WHERE v > 2) AS df, count(*) AS c
      FROM dk_o GROUP BY pid$$, schedule => 'manual', refresh_mode => 'incremental');
SELECT dk_rules('dk_key');
SELECT dk_dist('dk_key');
-- not a key alone: a plain column, the first column of a two-column key, an expression
SELECT dynview.create_dynamic_table('dk_not',
  $$SELECT pid, count(DISTINCT v) AS dv, count(DISTINCT a) AS da, count(DISTINCT b) AS db,
           count(DISTINCT id % 3) AS dm
      FROM dk_o GROUP BY pid$$, schedule => 'manual', refresh_mode => 'incremental');
SELECT dk_rules('dk_not');
SELECT dk_dist('dk_not');
-- a join: each order meets one product (the key of the orders survives), a product many orders
SELECT dynview.create_dynamic_table('dk_join',
  $$SELECT p.cat, count(DISTINCT o.id) AS orders, count(DISTINCT p.pid) AS products,
           count(DISTINCT o.pid) AS via_order
      FROM dk_o o JOIN dk_p p ON p.pid = o.pid GROUP BY p.cat$$,
  schedule => 'manual', refresh_mode => 'incremental');
SELECT dk_rules('dk_join');
SELECT dk_dist('dk_join');
-- a global aggregate
SELECT dynview.create_dynamic_table('dk_all',
  'SELECT count(DISTINCT id) AS di, count(DISTINCT v) AS dv FROM dk_o',
  schedule => 'manual', refresh_mode => 'incremental');
SELECT dk_rules('dk_all');

-- changes: new rows (NULL u), a key moved between groups, rows gone, a value of n respelled
INSERT INTO dk_o VALUES (100, 1, 9, 100, NULL, 100.0, 1), (101, 1, 9, 101, 101, 60.50, 5),
                        (102, NULL, 9, 102, NULL, NULL, 6);
UPDATE dk_o SET pid = 2, v = 6 WHERE id BETWEEN 10 AND 14;
UPDATE dk_o SET u = NULL WHERE id IN (21, 22);
DELETE FROM dk_o WHERE id IN (1, 5, 33);
UPDATE dk_o SET n = 50.000 WHERE id = 100;
SELECT t, r.refresh_mode, r.mode_reason_code, dynview.verify(t)
  FROM unnest(ARRAY['dk_key', 'dk_not', 'dk_join', 'dk_all']) t, dynview.refresh(t) r;
SELECT * FROM dk_key ORDER BY pid;
SELECT * FROM dk_join ORDER BY cat;
-- every row gone from a group, and back
DELETE FROM dk_o WHERE pid = 3;
INSERT INTO dk_o VALUES (200, 3, 0, 200, 200, 200, 0);
SELECT t, r.refresh_mode, r.mode_reason_code, dynview.verify(t)
  FROM unnest(ARRAY['dk_key', 'dk_not', 'dk_join', 'dk_all']) t, dynview.refresh(t) r;

-- a pipeline, as the dashboard: the detail table's derived key is the GMV level's input key
-- (dk_pipeline: a detail table and a grouped table over it, incremental, manual; the grouped
-- table's rules and multiplicity tables)
CREATE FUNCTION dk_pipeline(detail text, detail_query text, gmv text, gmv_query text,
                            OUT rules text, OUT dist bigint) LANGUAGE plpgsql AS $$
BEGIN
  PERFORM dynview.create_dynamic_table(detail, detail_query, schedule => 'manual', refresh_mode => 'incremental');
  PERFORM dynview.create_dynamic_table(gmv, gmv_query, schedule => 'manual', refresh_mode => 'incremental');
  rules := dk_rules(gmv);
  dist := dk_dist(gmv::regclass);
END $$;
SELECT * FROM dk_pipeline('dk_detail', 'SELECT o.id AS order_id, p.cat, o.v FROM dk_o o JOIN dk_p p ON p.pid = o.pid',
  'dk_gmv', 'SELECT cat, count(DISTINCT order_id) AS orders, sum(v) AS sv FROM dk_detail GROUP BY cat');
-- over a LEFT JOIN, products without orders padded with a NULL order: (cat, order_id) is not
-- unique on order_id alone (NULL repeats), so the multiplicities stay; NULLs are not counted
SELECT * FROM dk_pipeline('dk_left', 'SELECT p.pid, p.cat, o.id AS order_id FROM dk_p p LEFT JOIN dk_o o ON o.pid = p.pid',
  'dk_left_gmv', 'SELECT cat, count(DISTINCT order_id) AS orders, count(DISTINCT pid) AS products FROM dk_left GROUP BY cat');
INSERT INTO dk_p VALUES (50, 'c0'), (51, 'c9');
DELETE FROM dk_o WHERE pid = 4;
INSERT INTO dk_o VALUES (300, 51, 0, 300, 300, 300, 3), (301, 2, 0, 301, 301, 301, 4);
SELECT t, r.refresh_mode, r.mode_reason_code, dynview.verify(t)
  FROM unnest(ARRAY['dk_gmv', 'dk_left_gmv']) t, dynview.refresh(t) r;
SELECT dynview.verify('dk_detail'), dynview.verify('dk_left');
SELECT * FROM dk_left_gmv ORDER BY cat;

-- the same with FULL refreshes
SELECT dynview.create_dynamic_table('dk_full',
  'SELECT pid, count(DISTINCT id) AS di, count(DISTINCT u) AS du FROM dk_o GROUP BY pid',
  schedule => 'manual', refresh_mode => 'full');
DELETE FROM dk_o WHERE id % 9 = 0;
SELECT r.refresh_mode, dynview.verify('dk_full') FROM dynview.refresh('dk_full') r;

-- the key appears after the state was built by multiplicities: the state is not continued
-- (it counted each value once), the next refresh is FULL (SOURCE_ALTERED: the new unique index
-- changed the source's signature) and rebuilds it without them
CREATE TABLE dk_s (id int, g int);
INSERT INTO dk_s SELECT i, i % 2 FROM generate_series(1, 6) i;
INSERT INTO dk_s VALUES (1, 1), (2, 0);
SELECT dynview.create_dynamic_table('dk_late',
  'SELECT g, count(DISTINCT id) AS di FROM dk_s GROUP BY g', schedule => 'manual',
  refresh_mode => 'incremental');
SELECT dk_dist('dk_late');
DELETE FROM dk_s WHERE ctid IN (SELECT min(ctid) FROM dk_s GROUP BY id HAVING count(*) > 1);
CREATE UNIQUE INDEX dk_s_id ON dk_s (id);
INSERT INTO dk_s VALUES (7, 1);
SELECT r.refresh_mode, r.mode_reason_code, dynview.verify('dk_late') FROM dynview.refresh('dk_late') r;
SELECT dk_rules('dk_late'), dk_dist('dk_late');
INSERT INTO dk_s VALUES (8, 0);
SELECT r.refresh_mode, r.mode_reason_code, dynview.verify('dk_late') FROM dynview.refresh('dk_late') r;
-- and goes again: the multiplicities are rebuilt (FULL), and repeated values count once
DROP INDEX dk_s_id;
INSERT INTO dk_s VALUES (8, 0), (3, 1);
SELECT r.refresh_mode, r.mode_reason_code, dynview.verify('dk_late') FROM dynview.refresh('dk_late') r;
SELECT dk_dist('dk_late');
INSERT INTO dk_s VALUES (8, 0), (9, 0);
DELETE FROM dk_s WHERE id = 3;
SELECT r.refresh_mode, r.mode_reason_code, dynview.verify('dk_late') FROM dynview.refresh('dk_late') r;
SELECT * FROM dk_late ORDER BY g;

SELECT dynview.drop_dynamic_table(t)
  FROM unnest(ARRAY['dk_key', 'dk_not', 'dk_join', 'dk_all', 'dk_gmv', 'dk_detail', 'dk_left_gmv',
                    'dk_left', 'dk_full', 'dk_late']) t;
DROP TABLE dk_o, dk_p, dk_s;
DROP FUNCTION dk_pipeline(text, text, text, text), dk_dist(regclass), dk_rules(text);
