-- The direct apply of select/join tables (apply.c, issue 14): apply_spj deletes the rows that
-- leave through the table's unique key index and writes the rows that come in batches
-- (table_multi_insert, then their index entries), without SQL statements, where a statement
-- would only write rows; the statements stay the path for what it does not take (rows with a
-- NULL in the key, tables without a key, triggers, rules, row-level security).  Every refresh
-- is compared with its query: dynview.verify(), the rows by text and by = (dv_refresh_round).
SET client_min_messages = warning;

CREATE TABLE da_p (pid int PRIMARY KEY, name text, cat text);
CREATE TABLE da_o (id text PRIMARY KEY, pid int, qty int, amt numeric, note text);
CREATE TABLE da_tag (tag_id int PRIMARY KEY, oid text, tag text);
CREATE TABLE da_n (k numeric PRIMARY KEY, v text);
INSERT INTO da_p SELECT i, 'P' || i, 'C' || (i % 4) FROM generate_series(1, 40) i;
INSERT INTO da_o SELECT 'O' || i, 1 + i % 45, i % 5, ((i % 7) || '.' || repeat('0', i % 3))::numeric, CASE WHEN i % 9 <> 0 THEN 'n' || i END
  FROM generate_series(1, 300) i;
INSERT INTO da_tag SELECT i, 'O' || (i * 3), 't' || i FROM generate_series(1, 60) i;
INSERT INTO da_n SELECT i / 10.0, 'v' || i FROM generate_series(1, 30) i;

CREATE TABLE da_defs (name text PRIMARY KEY, query text NOT NULL);
INSERT INTO da_defs VALUES
  -- a key (id): rows leave by it; products 41-44 missing (NULL-padded)
  ('da_join', $$SELECT o.id, o.qty, o.amt, p.name, p.cat, o.note FROM da_o o LEFT JOIN da_p p ON p.pid = o.pid$$),
  -- a key (id, tag_id) with NULLs (orders without a tag): those rows leave by the statements
  ('da_nullkey', $$SELECT o.id, t.tag_id, t.tag, o.qty FROM da_o o LEFT JOIN da_tag t ON t.oid = o.id$$),
  -- no key: equal rows are copies, some with weight above 1
  ('da_copies', $$SELECT p.cat, o.amt FROM da_o o JOIN da_p p ON p.pid = o.pid$$),
  -- a numeric key whose values are updated to equal ones spelled otherwise
  ('da_num', $$SELECT k, v FROM da_n$$);
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual', refresh_mode => 'incremental')
  FROM da_defs ORDER BY name;
SELECT c.relname, pg_get_indexdef(i.indexrelid) FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
 WHERE c.relname LIKE 'da\_%' AND c.relname NOT IN ('da_p', 'da_o', 'da_tag', 'da_n', 'da_defs') ORDER BY 1;

\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round

-- (1) updates, deletes and inserts, with rows of orders without a tag leaving (NULL key) and
-- copies made and removed; a product renamed (many rows of da_join replaced by key)
UPDATE da_o SET qty = qty + 1, amt = amt + 1 WHERE id IN (SELECT 'O' || (i * 7) FROM generate_series(1, 30) i);
DELETE FROM da_o WHERE id IN (SELECT 'O' || (i * 11) FROM generate_series(1, 20) i);
INSERT INTO da_o SELECT 'N' || i, 1 + i % 4, 2, 5.5, NULL FROM generate_series(1, 50) i;
UPDATE da_p SET name = name || 'x' WHERE pid = 3;
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('da_defs');

-- (2) equal values spelled otherwise: numeric keys 0.1 -> 0.10, amounts 2.0 -> 2.00; the
-- table takes the new spelling
UPDATE da_n SET k = k::numeric(10, 2) WHERE k < 1.5;
UPDATE da_o SET amt = amt::numeric(10, 3) WHERE amt = 2;
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('da_defs');
SELECT k::text, v FROM da_num WHERE k < 0.5 ORDER BY k;
SELECT amt::text, count(*) FROM da_join WHERE amt = 2 GROUP BY 1 ORDER BY 1;

-- (3) TOASTed values in and out (an incompressible 8,000-character note), rows of a
-- product's order added many times in one window (copies of weight > 1)
UPDATE da_o SET note = (SELECT string_agg(md5(g::text || id), '') FROM generate_series(1, 250) g)
 WHERE id IN ('O1', 'O2', 'O3');
INSERT INTO da_o SELECT 'M' || i, 5, 1, 9.25, 'm' FROM generate_series(1, 12) i;
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('da_defs');
UPDATE da_o SET note = note || 'z', qty = qty + 1 WHERE id IN ('O1', 'O2');
DELETE FROM da_o WHERE id = 'O3' OR id LIKE 'M%' AND id <> 'M1';
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('da_defs');
SELECT id, length(note), md5(note) = (SELECT md5(note) FROM da_o WHERE id = j.id) AS same FROM da_join j
 WHERE id IN ('O1', 'O2', 'O3') ORDER BY id;

-- (4) a user's unique index on the table (on an expression): a change that would break it fails
-- with 23505 and changes nothing (the table keeps its rows, the change stays pending)
CREATE UNIQUE INDEX da_join_note ON da_join (md5(note));
CREATE TABLE da_before AS SELECT * FROM da_join;
INSERT INTO da_o VALUES ('U1', 1, 1, 1, 'n10');
SELECT dynview.wait_for_capture();
SELECT refresh_mode FROM dynview.refresh('da_join');
SELECT count(*) AS differing FROM ((TABLE da_join EXCEPT ALL TABLE da_before) UNION ALL (TABLE da_before EXCEPT ALL TABLE da_join)) x;
DELETE FROM da_o WHERE id = 'U1';
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('da_defs');
DROP INDEX da_join_note;

-- (5) a CHECK constraint on the table: checked for the rows written (23514), nothing changed
ALTER TABLE da_join ADD CONSTRAINT da_join_qty CHECK (qty < 100);
UPDATE da_o SET qty = 500 WHERE id = 'O5';
SELECT dynview.wait_for_capture();
SELECT refresh_mode FROM dynview.refresh('da_join');
SELECT count(*) AS differing FROM ((TABLE da_join EXCEPT ALL TABLE da_before) UNION ALL (TABLE da_before EXCEPT ALL TABLE da_join)) x;
UPDATE da_o SET qty = 50 WHERE id = 'O5';
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('da_defs');
ALTER TABLE da_join DROP CONSTRAINT da_join_qty;

-- (6) the statements' path: a trigger on the table (it sees each row), then row-level security
CREATE TABLE da_seen (op text, id text);
CREATE FUNCTION da_note() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO public.da_seen VALUES (TG_OP, CASE WHEN TG_OP = 'DELETE' THEN OLD.id ELSE NEW.id END);
  RETURN NULL;
END $$;
CREATE TRIGGER da_note AFTER INSERT OR DELETE ON da_join FOR EACH ROW EXECUTE FUNCTION da_note();
UPDATE da_o SET qty = qty + 1 WHERE id IN ('O4', 'O6');
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('da_defs');
SELECT op, id FROM da_seen ORDER BY op, id;
DROP TRIGGER da_note ON da_join;
ALTER TABLE da_join ENABLE ROW LEVEL SECURITY;
UPDATE da_o SET qty = qty + 1 WHERE id IN ('O8', 'O9');
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('da_defs');
ALTER TABLE da_join DISABLE ROW LEVEL SECURITY;

-- (7) the direct path again after the trigger and row-level security are gone
UPDATE da_o SET amt = amt + 2 WHERE id IN (SELECT 'O' || (i * 13) FROM generate_series(1, 15) i);
INSERT INTO da_o SELECT 'D' || i, 7, 1, 3.5, 'd' FROM generate_series(1, 5) i;
SELECT dynview.wait_for_capture();
SELECT * FROM dv_refresh_round('da_defs');

SELECT dynview.drop_dynamic_table(name) FROM da_defs ORDER BY name;
DROP TABLE da_defs, da_before, da_seen, da_o, da_p, da_tag, da_n;
DROP FUNCTION da_note(), dv_refresh_round(regclass);
