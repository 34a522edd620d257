-- Keys derived through joins (issue 14, analyze/keys.c): a side joined by equality on every
-- column of a unique key of the other side keeps its own key (inner and LEFT joins on the
-- preserved side); where no key is provable, none is derived.  The key is shown by
-- explain_dynamic_table(), gets a UNIQUE NULLS NOT DISTINCT index, and FULL refreshes match
-- rows by it.  Duplicates on the non-key side, NULL join columns, padded rows, equal but not
-- identical values (1.0, 1.00; char(n)).  Every refresh is checked with verify().
SET client_min_messages = warning;
CREATE TABLE dk_p (pid text PRIMARY KEY, name text, cat text);
CREATE TABLE dk_c (cat text PRIMARY KEY, label text);
CREATE TABLE dk_u (uid int PRIMARY KEY, code text NOT NULL UNIQUE, note text);
CREATE TABLE dk_o (id int PRIMARY KEY, pid text, qty int, code text);
INSERT INTO dk_c VALUES ('c1', 'one'), ('c2', 'two');
INSERT INTO dk_p VALUES ('P1', 'pen', 'c1'), ('P2', 'ink', 'c1'), ('P3', 'pad', 'c2'), ('P4', 'cup', NULL);
INSERT INTO dk_u VALUES (1, 'x', 'ex'), (2, 'y', 'why');
-- many orders per product (duplicates on the non-key side), a NULL product, one unknown
INSERT INTO dk_o SELECT i, CASE WHEN i % 7 = 0 THEN NULL WHEN i % 11 = 0 THEN 'P9' ELSE 'P' || (1 + i % 4) END,
                        i % 5, CASE WHEN i % 2 = 0 THEN 'x' ELSE 'z' END
  FROM generate_series(1, 40) i;

-- keys derived
SELECT dynview.create_dynamic_table('dk_left', 'SELECT o.id, o.pid, p.name, o.qty FROM dk_o o LEFT JOIN dk_p p ON o.pid = p.pid', schedule => 'manual');
SELECT dynview.create_dynamic_table('dk_left_full', 'SELECT o.id, o.pid, p.name, o.qty FROM dk_o o LEFT JOIN dk_p p ON o.pid = p.pid', schedule => 'manual', refresh_mode => 'full');
SELECT dynview.create_dynamic_table('dk_inner', 'SELECT o.id, p.name, p.cat FROM dk_o o JOIN dk_p p ON p.pid = o.pid', schedule => 'manual');
SELECT dynview.create_dynamic_table('dk_chain', 'SELECT o.id, p.name, c.label FROM dk_o o LEFT JOIN dk_p p ON o.pid = p.pid LEFT JOIN dk_c c ON c.cat = p.cat', schedule => 'manual');
SELECT dynview.create_dynamic_table('dk_unique', 'SELECT o.id, u.note FROM dk_o o LEFT JOIN dk_u u ON u.code = o.code', schedule => 'manual');
SELECT dynview.create_dynamic_table('dk_expr', 'SELECT o.id, p.name FROM dk_o o LEFT JOIN dk_p p ON p.pid = upper(lower(o.pid)) AND o.qty > 0', schedule => 'manual');
SELECT dynview.create_dynamic_table('dk_right', 'SELECT o.id, p.name FROM dk_p p RIGHT JOIN dk_o o ON o.pid = p.pid', schedule => 'manual');
SELECT dynview.create_dynamic_table('dk_semi', 'SELECT o.id, o.qty FROM dk_o o WHERE EXISTS (SELECT 1 FROM dk_p p WHERE p.pid = o.pid)', schedule => 'manual');
SELECT dynview.create_dynamic_table('dk_grouped', 'SELECT o.id, s.n FROM dk_o o JOIN (SELECT pid, count(*) AS n FROM dk_o GROUP BY pid) s ON s.pid = o.pid', schedule => 'manual');
SELECT dynview.create_dynamic_table('dk_global', 'SELECT o.id, o.qty, t.total FROM dk_o o CROSS JOIN (SELECT sum(qty) AS total FROM dk_o) t', schedule => 'manual');
SELECT dynview.create_dynamic_table('dk_full_both', 'SELECT o.id, p.pid, p.name FROM dk_o o FULL JOIN dk_p p ON o.pid = p.pid', schedule => 'manual');
SELECT dynview.create_dynamic_table('dk_pair', 'SELECT a.id, b.id AS id2 FROM dk_o a JOIN dk_o b ON a.pid = b.pid', schedule => 'manual');
-- no key provable
SELECT dynview.create_dynamic_table('dk_nonunique', 'SELECT o.id, p.name FROM dk_o o LEFT JOIN dk_p p ON p.cat = o.pid', schedule => 'manual');
SELECT dynview.create_dynamic_table('dk_unprojected', 'SELECT p.name, o.qty FROM dk_o o LEFT JOIN dk_p p ON o.pid = p.pid', schedule => 'manual');
SELECT dynview.create_dynamic_table('dk_many', 'SELECT a.id, b.qty FROM dk_o a JOIN dk_o b ON a.pid = b.pid', schedule => 'manual');
SELECT dynview.create_dynamic_table('dk_full', 'SELECT o.id, p.name FROM dk_o o FULL JOIN dk_p p ON o.pid = p.pid', schedule => 'manual');
SELECT dynview.create_dynamic_table('dk_lower', 'SELECT o.id, p.name FROM dk_o o LEFT JOIN dk_p p ON lower(p.pid) = o.pid', schedule => 'manual');
SELECT dynview.create_dynamic_table('dk_right_other', 'SELECT o.id, p.name FROM dk_o o RIGHT JOIN dk_p p ON o.pid = p.pid', schedule => 'manual');

SELECT d.name, d.effective_mode, e.value AS key,
       (SELECT string_agg(regexp_replace(pg_get_indexdef(i.indexrelid), '^.* USING ', ''), '; ')
          FROM pg_index i WHERE i.indrelid = d.name AND i.indisunique) AS unique_index
  FROM dynview.dynamic_tables d, dynview.explain_dynamic_table(d.name::text) e
 WHERE d.name::text LIKE 'dk\_%' AND e.property = 'key'
 ORDER BY d.name::text;
SELECT n, dynview.verify(n) FROM unnest(ARRAY['dk_left', 'dk_left_full', 'dk_inner', 'dk_chain', 'dk_unique', 'dk_expr', 'dk_right',
  'dk_semi', 'dk_grouped', 'dk_global', 'dk_full_both', 'dk_pair', 'dk_nonunique', 'dk_unprojected', 'dk_many', 'dk_full',
  'dk_lower', 'dk_right_other']) n ORDER BY n;

-- changes: new orders (duplicates, NULL and unknown products), a product renamed, one deleted
-- (its orders' rows become padded), one added (padded rows get matched), orders moved
INSERT INTO dk_o VALUES (100, 'P1', 3, 'x'), (101, 'P1', 3, 'x'), (102, NULL, 1, 'y'), (103, 'P5', 2, 'y');
UPDATE dk_p SET name = 'pencil' WHERE pid = 'P1';
DELETE FROM dk_p WHERE pid = 'P2';
INSERT INTO dk_p VALUES ('P5', 'mug', 'c2');
UPDATE dk_o SET pid = NULL WHERE id IN (1, 5);
UPDATE dk_o SET pid = 'P3' WHERE id IN (2, 3);
UPDATE dk_c SET label = 'uno' WHERE cat = 'c1';
UPDATE dk_u SET code = 'w' WHERE uid = 1;
DELETE FROM dk_o WHERE id IN (8, 9);
SELECT n, r.refresh_mode, r.rows_deleted, r.rows_inserted, dynview.verify(n)
  FROM unnest(ARRAY['dk_left', 'dk_left_full', 'dk_inner', 'dk_chain', 'dk_unique', 'dk_expr', 'dk_right',
  'dk_semi', 'dk_grouped', 'dk_global', 'dk_full_both', 'dk_pair', 'dk_nonunique', 'dk_unprojected', 'dk_many', 'dk_full',
  'dk_lower', 'dk_right_other']) n, dynview.refresh(n) r ORDER BY n;

-- the same tables refreshed FULL (rows matched by the derived key where there is one)
SELECT count(*) FROM (SELECT dynview.alter_dynamic_table(n, refresh_mode => 'full')
  FROM unnest(ARRAY['dk_left', 'dk_inner', 'dk_chain', 'dk_unique', 'dk_expr', 'dk_right', 'dk_semi', 'dk_grouped',
  'dk_global', 'dk_full_both', 'dk_pair', 'dk_nonunique']) n) a;
INSERT INTO dk_o VALUES (104, 'P4', 4, 'w'), (105, 'P4', 4, 'w');
UPDATE dk_p SET pid = 'P2' WHERE pid = 'P5';
UPDATE dk_o SET qty = qty + 1 WHERE id % 3 = 0;
DELETE FROM dk_o WHERE id = 100;
SELECT n, r.refresh_mode, r.rows_deleted, r.rows_inserted, dynview.verify(n)
  FROM unnest(ARRAY['dk_left', 'dk_left_full', 'dk_inner', 'dk_chain', 'dk_unique', 'dk_expr', 'dk_right',
  'dk_semi', 'dk_grouped', 'dk_global', 'dk_full_both', 'dk_pair', 'dk_nonunique']) n, dynview.refresh(n) r ORDER BY n;
SELECT id, pid, name, qty FROM dk_left_full WHERE id >= 100 OR id < 4 ORDER BY id;

-- equal but not identical keys: numeric without a scale (1.0 = 1.00) and char(n), derived
-- through a LEFT JOIN; a value respelled is a changed row, never merged with the old one
CREATE TABLE dk_n (k numeric PRIMARY KEY, v text);
CREATE TABLE dk_nx (k numeric PRIMARY KEY, w text);
CREATE TABLE dk_ch (c char(4) PRIMARY KEY, v text);
CREATE TABLE dk_chx (c char(4) PRIMARY KEY, w text);
INSERT INTO dk_n VALUES (1.0, 'a'), (2, 'b'), (3.50, 'c');
INSERT INTO dk_nx VALUES (1.00, 'one'), (3.5, 'three and a half');
INSERT INTO dk_ch VALUES ('a', 'x'), ('b ', 'y');
INSERT INTO dk_chx VALUES ('a  ', 'A');
SELECT dynview.create_dynamic_table('dk_num', 'SELECT n.k, n.v, x.w, x.k AS xk FROM dk_n n LEFT JOIN dk_nx x ON x.k = n.k', schedule => 'manual');
SELECT dynview.create_dynamic_table('dk_num_full', 'SELECT n.k, n.v, x.w, x.k AS xk FROM dk_n n LEFT JOIN dk_nx x ON x.k = n.k', schedule => 'manual', refresh_mode => 'full');
SELECT dynview.create_dynamic_table('dk_char', 'SELECT h.c, h.v, x.w FROM dk_ch h LEFT JOIN dk_chx x ON x.c = h.c', schedule => 'manual');
SELECT d.name, d.effective_mode, e.value AS key
  FROM dynview.dynamic_tables d, dynview.explain_dynamic_table(d.name::text) e
 WHERE d.name::text IN ('dk_num', 'dk_num_full', 'dk_char') AND e.property = 'key' ORDER BY 1;
UPDATE dk_n SET k = 1.00 WHERE k = 1;
UPDATE dk_nx SET k = 3.500 WHERE k = 3.5;
UPDATE dk_ch SET v = 'z' WHERE c = 'a';
INSERT INTO dk_chx VALUES ('b', 'B');
SELECT n, r.refresh_mode, r.rows_deleted, r.rows_inserted, dynview.verify(n)
  FROM unnest(ARRAY['dk_num', 'dk_num_full', 'dk_char']) n, dynview.refresh(n) r ORDER BY n;
SELECT k::text, v, w, xk::text FROM dk_num_full ORDER BY k;
UPDATE dk_n SET k = 2.0 WHERE k = 2;
UPDATE dk_n SET v = 'c2' WHERE k = 3.5;
SELECT n, r.refresh_mode, r.rows_deleted, r.rows_inserted, dynview.verify(n)
  FROM unnest(ARRAY['dk_num', 'dk_num_full']) n, dynview.refresh(n) r ORDER BY n;
SELECT k::text, v, w, xk::text FROM dk_num ORDER BY k;

-- a join equality that is not the one the key is unique by (a case-insensitive collation: 'P1'
-- and 'p1' are two products, both equal to an order's 'P1'): no key; a function in FROM that
-- returns one row per row keeps the key
CREATE COLLATION dk_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
INSERT INTO dk_p VALUES ('p1', 'lower pen', 'c1');
SELECT dynview.create_dynamic_table('dk_collate', 'SELECT o.id, p.name FROM dk_o o LEFT JOIN dk_p p ON p.pid = o.pid COLLATE dk_ci', schedule => 'manual');
SELECT dynview.create_dynamic_table('dk_func', 'SELECT o.id, f.v FROM dk_o o, LATERAL abs(o.qty - 2) AS f(v)', schedule => 'manual');
SELECT d.name, d.effective_mode, e.value AS key
  FROM dynview.dynamic_tables d, dynview.explain_dynamic_table(d.name::text) e
 WHERE d.name::text IN ('dk_collate', 'dk_func') AND e.property = 'key' ORDER BY 1;
SELECT name FROM dk_collate WHERE id = 101 ORDER BY 1;
UPDATE dk_p SET name = 'small pen' WHERE pid = 'p1';
UPDATE dk_o SET qty = 7 WHERE id = 4;
SELECT n, r.refresh_mode, r.rows_deleted, r.rows_inserted, dynview.verify(n)
  FROM unnest(ARRAY['dk_collate', 'dk_func']) n, dynview.refresh(n) r ORDER BY n;

-- a source read with its inheritance children: its primary key says nothing of theirs
CREATE TABLE dk_parent (id int PRIMARY KEY, v text);
CREATE TABLE dk_child () INHERITS (dk_parent);
INSERT INTO dk_parent VALUES (1, 'p');
INSERT INTO dk_child VALUES (1, 'c');
SELECT dynview.create_dynamic_table('dk_inherit', 'SELECT t.id, t.v, p.name FROM dk_parent t LEFT JOIN dk_p p ON p.pid = t.v', schedule => 'manual');
SELECT value FROM dynview.explain_dynamic_table('dk_inherit') WHERE property = 'key';
SELECT dynview.verify('dk_inherit');

SELECT count(*) FROM (SELECT dynview.drop_dynamic_table(name::text) FROM dynview.dynamic_tables WHERE name::text LIKE 'dk\_%') d;
DROP TABLE dk_o, dk_p, dk_c, dk_u, dk_n, dk_nx, dk_ch, dk_chx, dk_parent, dk_child;
DROP COLLATION dk_ci;
