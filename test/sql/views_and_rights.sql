-- Views in the query are inlined; refreshes run as the table's owner with a fixed search_path.
SET client_min_messages = warning;
CREATE SCHEMA shop;
CREATE TABLE shop.items (id int PRIMARY KEY, price numeric, tag text);
INSERT INTO shop.items VALUES (1, 9.99, 'a'), (2, 5, 'b'), (3, NULL, 'a');
CREATE VIEW shop.cheap AS SELECT id, price, tag FROM shop.items WHERE price < 10;
SET search_path = shop, public;
SELECT dynview.create_dynamic_table('shop.cheap_tags', 'SELECT tag, count(*) AS n FROM cheap GROUP BY tag', schedule => 'manual');
RESET search_path;
-- the stored definition is schema-qualified and reads the base table
SELECT name, sources FROM dynview.dynamic_tables;
SELECT * FROM shop.cheap_tags ORDER BY tag;
-- a refresh from a session with another search_path still reads shop.items
CREATE TABLE public.items (id int);
SET search_path = public;
INSERT INTO shop.items VALUES (4, 1, 'b');
SELECT rows_inserted, rows_deleted FROM dynview.refresh('shop.cheap_tags');
SELECT * FROM shop.cheap_tags ORDER BY tag;
SELECT dynview.verify('shop.cheap_tags');
-- another role may not refresh, alter or drop it, and cannot create one over tables it cannot read
CREATE ROLE dv_other;
GRANT USAGE ON SCHEMA shop TO dv_other;
CREATE SCHEMA other AUTHORIZATION dv_other;
SET ROLE dv_other;
SELECT dynview.refresh('shop.cheap_tags');
SELECT dynview.suspend('shop.cheap_tags');
SELECT dynview.drop_dynamic_table('shop.cheap_tags');
SELECT dynview.create_dynamic_table('other.stolen', 'SELECT * FROM shop.items');
RESET ROLE;
SELECT to_regclass('other.stolen'), (SELECT count(*) FROM dynview.dynamic_tables) AS dynamic_tables;
DROP SCHEMA other;
DROP OWNED BY dv_other;
DROP ROLE dv_other;
SELECT dynview.drop_dynamic_table('shop.cheap_tags');
DROP TABLE public.items;
DROP SCHEMA shop CASCADE;
