-- create_or_replace_dynamic_table keeps the table when columns keep their names and types.
SET client_min_messages = warning;
CREATE TABLE r_orders (id int PRIMARY KEY, customer text, amount numeric(10,2), status text);
INSERT INTO r_orders VALUES (1, 'ann', 10.50, 'paid'), (2, 'bob', 20.00, 'open'), (3, 'ann', 5.25, 'paid');
SELECT dynview.create_dynamic_table('r_totals',
  $$SELECT customer, sum(amount) AS total FROM r_orders WHERE status = 'paid' GROUP BY customer$$, schedule => 'manual');
CREATE INDEX r_totals_customer ON r_totals (customer);
GRANT SELECT ON r_totals TO PUBLIC;
SELECT 'r_totals'::regclass::oid AS oid_before \gset
-- new filter and a new column: the table, its index and its grants stay
SELECT dynview.create_or_replace_dynamic_table('r_totals',
  $$SELECT customer, sum(amount) AS total, count(*) AS orders FROM r_orders GROUP BY customer$$, schedule => 'manual');
SELECT 'r_totals'::regclass::oid = :oid_before AS same_table;
SELECT indexrelid::regclass FROM pg_index WHERE indrelid = 'r_totals'::regclass ORDER BY indexrelid::regclass::text;
SELECT relacl IS NOT NULL AS has_grants FROM pg_class WHERE oid = 'r_totals'::regclass;
SELECT * FROM r_totals ORDER BY customer;
SELECT dynview.verify('r_totals');
SELECT refresh_mode, refresh_trigger, mode_reason_code FROM dynview.refresh_history('r_totals', 1);
-- a type change fails and changes nothing
SELECT dynview.create_or_replace_dynamic_table('r_totals',
  $$SELECT customer, sum(amount)::text AS total, count(*) AS orders FROM r_orders GROUP BY customer$$);
-- dropping or renaming a column fails too
SELECT dynview.create_or_replace_dynamic_table('r_totals', $$SELECT customer FROM r_orders$$);
SELECT dynview.create_or_replace_dynamic_table('r_totals',
  $$SELECT customer AS who, sum(amount) AS total, count(*) AS orders FROM r_orders GROUP BY customer$$);
SELECT query FROM dynview.dynamic_tables WHERE name = 'r_totals'::regclass;
-- replacing an ordinary table is refused
SELECT dynview.create_or_replace_dynamic_table('r_orders', 'SELECT 1 AS x');
-- create_or_replace of a new name creates it
SELECT dynview.create_or_replace_dynamic_table('r_new', 'SELECT count(*) AS n FROM r_orders', schedule => 'manual');
SELECT * FROM r_new;
SELECT dynview.verify('r_new');
SELECT dynview.drop_dynamic_table('r_new');
SELECT dynview.drop_dynamic_table('r_totals');
DROP TABLE r_orders;
