-- 08_repeatable_read.sql: design section 4: create_dynamic_table in a REPEATABLE READ or
-- SERIALIZABLE transaction whose snapshot is already taken cannot be exact, so it must fail
-- with a hint to create the table in its own transaction.  The rule guards the start of change
-- tracking of a new source.
BEGIN ISOLATION LEVEL REPEATABLE READ;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS dynview;

SELECT plan(2);

CREATE TABLE dvt_orders (id int PRIMARY KEY, qty int);
INSERT INTO dvt_orders VALUES (1, 1), (2, 2);

SELECT throws_ok($$SELECT dynview.create_dynamic_table('dvt_rr', 'SELECT id, qty FROM dvt_orders')$$,
                 '25001', NULL,
                 'create_dynamic_table in a REPEATABLE READ transaction with a snapshot already taken fails');
SELECT ok(to_regclass('dvt_rr') IS NULL OR dynview.verify('dvt_rr'),
          'if the table was created anyway, it is exact at its data snapshot');

SELECT * FROM finish();
ROLLBACK;
