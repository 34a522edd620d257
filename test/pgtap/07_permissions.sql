-- 07_permissions.sql: ownership and privileges (design sections 2, 7, 8): only the owner (or a
-- superuser) may refresh, replace, drop, alter, suspend or resume a dynamic table (42501);
-- verify needs SELECT; creating needs SELECT on the sources and CREATE on the schema;
-- refreshes run as the table's owner; nobody writes dynview's catalogs or the dynamic table
-- directly.  Roles are created inside the transaction and rolled back with it.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS dynview;

SELECT plan(70);

CREATE TABLE dvt_orders (id int PRIMARY KEY, customer text NOT NULL, amount numeric(10,2), qty int);
INSERT INTO dvt_orders VALUES (1, 'ann', 10.00, 1), (2, 'bob', 20.50, 2), (3, 'ann', 5.25, 3);
CREATE TABLE dvt_secret (id int, s text);
INSERT INTO dvt_secret VALUES (1, 'hidden');
CREATE TABLE dvt_cols (id int, visible text, hidden text);
INSERT INTO dvt_cols VALUES (1, 'v', 'h');
CREATE VIEW dvt_secret_view AS SELECT id FROM dvt_secret;

CREATE ROLE dvt_alice;
CREATE ROLE dvt_bob;
CREATE SCHEMA dvt_a AUTHORIZATION dvt_alice;
GRANT USAGE, CREATE ON SCHEMA dvt_a TO dvt_bob;
GRANT SELECT ON dvt_orders TO dvt_alice;
GRANT SELECT (id, visible) ON dvt_cols TO dvt_alice;
GRANT SELECT ON dvt_secret_view TO dvt_alice;

-- a snapshot of everything about one table, to show that a refused call changed nothing
SET LOCAL check_function_bodies = off;
CREATE FUNCTION pg_temp.state_of(t text) RETURNS text LANGUAGE sql SECURITY DEFINER AS $$
    SELECT concat_ws(' | ',
        (SELECT c.oid::text || ' ' || c.relowner::regrole::text FROM pg_class c WHERE c.oid = to_regclass(t)),
        (SELECT row(d.query, d.schedule, d.refresh_mode, d.scheduling_state, d.suspend_reason,
                    d.data_snapshot::text)::text
           FROM dynview.dynamic_tables d WHERE d.name = to_regclass(t)),
        (SELECT count(*)::text FROM dynview.refresh_history h WHERE h.name = to_regclass(t)),
        (SELECT string_agg(x::text, ',' ORDER BY x::text) FROM dvt_a.mine x))
$$;
GRANT EXECUTE ON FUNCTION pg_temp.state_of(text) TO PUBLIC;
RESET check_function_bodies;

-------------------------------------------------------------------------------
-- the owner
-------------------------------------------------------------------------------
SET ROLE dvt_alice;
SELECT lives_ok($$SELECT dynview.create_dynamic_table('dvt_a.mine', 'SELECT id, customer, qty FROM public.dvt_orders')$$,
                'alice creates dvt_a.mine over a table she can SELECT');
SELECT is((SELECT relowner::regrole::text FROM pg_class WHERE oid = 'dvt_a.mine'::regclass), 'dvt_alice',
          'the creator owns the dynamic table');
SELECT ok(dynview.verify('dvt_a.mine'), 'alice: verify after creation');
SELECT results_eq($$SELECT state, refresh_trigger FROM dynview.refresh('dvt_a.mine')$$,
                  $$VALUES ('SUCCEED'::text, 'MANUAL'::text)$$, 'the owner can refresh');
SELECT ok(dynview.verify('dvt_a.mine'), 'alice: verify after her refresh');
SELECT lives_ok($$SELECT dynview.alter_dynamic_table('dvt_a.mine', schedule => '10 minutes')$$, 'the owner can alter');
SELECT lives_ok($$SELECT dynview.suspend('dvt_a.mine')$$, 'the owner can suspend');
SELECT lives_ok($$SELECT dynview.resume('dvt_a.mine')$$, 'the owner can resume');
SELECT throws_ok($$INSERT INTO dvt_a.mine VALUES (9, 'x', 9)$$, '42809', 'cannot modify dynamic table "mine"',
                 'not even the owner may INSERT into the dynamic table (42809)');
SELECT throws_ok($$DELETE FROM dvt_a.mine$$, '42809', 'cannot modify dynamic table "mine"',
                 'not even the owner may DELETE from the dynamic table (42809)');
SELECT throws_ok($$TRUNCATE dvt_a.mine$$, '42809', 'cannot modify dynamic table "mine"',
                 'not even the owner may TRUNCATE the dynamic table (42809)');
SELECT lives_ok($$CREATE INDEX ON dvt_a.mine (customer)$$, 'the owner may index the dynamic table');
SELECT lives_ok($$GRANT SELECT ON dvt_a.mine TO dvt_bob$$, 'the owner may grant on the dynamic table');
REVOKE SELECT ON dvt_a.mine FROM dvt_bob;

-- creating needs SELECT on the sources and CREATE on the schema
SELECT throws_ok($$SELECT dynview.create_dynamic_table('dvt_a.bad', 'SELECT id, s FROM public.dvt_secret')$$,
                 '42501', 'permission denied for table dvt_secret', 'no SELECT on the source: 42501');
SELECT throws_ok($$SELECT dynview.create_dynamic_table('dvt_a.bad', 'SELECT o.id FROM public.dvt_orders o WHERE o.id IN (SELECT id FROM public.dvt_secret)')$$,
                 '42501', 'permission denied for table dvt_secret', 'no SELECT on a source in a subquery: 42501');
SELECT throws_ok($$SELECT dynview.create_dynamic_table('dvt_a.bad', 'SELECT id, hidden FROM public.dvt_cols')$$,
                 '42501', NULL, 'no SELECT on a column read: 42501');
SELECT throws_ok($$SELECT dynview.create_dynamic_table('public.dvt_bad', 'SELECT id FROM public.dvt_orders')$$,
                 '42501', NULL, 'no CREATE on the schema: 42501');
SELECT ok(to_regclass('dvt_a.bad') IS NULL AND to_regclass('public.dvt_bad') IS NULL
          AND (SELECT count(*) FROM dynview.dynamic_tables) = 1,
          'nothing is left after the refused creations');
SELECT lives_ok($$SELECT dynview.create_dynamic_table('dvt_a.cols', 'SELECT id, visible FROM public.dvt_cols')$$,
                'SELECT on the columns read is enough');
SELECT ok(dynview.verify('dvt_a.cols'), 'alice: verify dvt_a.cols after creation');
-- SELECT on a view is what a PostgreSQL user needs to read through it (the view owner's rights
-- apply to the tables under it), as for CREATE MATERIALIZED VIEW
SELECT lives_ok($$SELECT dynview.create_dynamic_table('dvt_a.via_view', 'SELECT id FROM public.dvt_secret_view')$$,
                'SELECT on a view is enough to build a dynamic table over it');

-- the monitoring views are readable, the catalogs are not writable
SELECT is((SELECT count(*)::int FROM dynview.dynamic_tables WHERE name = 'dvt_a.mine'::regclass), 1,
          'alice can read dynamic_tables');
SELECT isnt_empty($$SELECT * FROM dynview.refresh_history WHERE name = 'dvt_a.mine'::regclass$$,
                  'alice can read refresh_history');
SELECT lives_ok($$SELECT * FROM dynview.dependencies$$, 'alice can read dependencies');
SELECT isnt_empty($$SELECT * FROM dynview.refresh_history('dvt_a.mine')$$, 'alice can call refresh_history()');
SELECT throws_ok($$INSERT INTO dynview.refresh_history (schema_name, table_name, state, refresh_trigger, start_time)
                   VALUES ('x', 'y', 'SUCCEED', 'MANUAL', now())$$,
                 '42501', NULL, 'users cannot write refresh_history (42501)');
SELECT throws_ok($$DELETE FROM dynview.refresh_history$$, '42501', NULL, 'users cannot delete refresh_history (42501)');
SELECT throws_ok($$UPDATE dynview.dynamic_table_catalog SET schedule = '1 second'$$, '42501', NULL,
                 'users cannot write the dynamic table catalog (42501)');
SELECT throws_ok($$DELETE FROM dynview.source_catalog$$, '42501', NULL, 'users cannot write the source catalog (42501)');
RESET ROLE;

-------------------------------------------------------------------------------
-- another user
-------------------------------------------------------------------------------
CREATE TEMP TABLE before AS SELECT pg_temp.state_of('dvt_a.mine') AS s;
GRANT SELECT ON before TO PUBLIC;
SET ROLE dvt_bob;
SELECT throws_ok($$SELECT dynview.refresh('dvt_a.mine')$$, '42501', 'must be owner of table mine',
                 'refresh by a non-owner: 42501');
SELECT throws_ok($$SELECT dynview.drop_dynamic_table('dvt_a.mine')$$, '42501', 'must be owner of table mine',
                 'drop by a non-owner: 42501');
SELECT throws_ok($$SELECT dynview.drop_dynamic_table('dvt_a.mine', if_exists => true)$$, '42501', NULL,
                 'drop if_exists by a non-owner: 42501');
SELECT throws_ok($$SELECT dynview.alter_dynamic_table('dvt_a.mine', schedule => '1 second')$$, '42501',
                 'must be owner of table mine', 'alter by a non-owner: 42501');
SELECT throws_ok($$SELECT dynview.suspend('dvt_a.mine')$$, '42501', 'must be owner of table mine',
                 'suspend by a non-owner: 42501');
SELECT throws_ok($$SELECT dynview.resume('dvt_a.mine')$$, '42501', 'must be owner of table mine',
                 'resume by a non-owner: 42501');
SELECT throws_ok($$SELECT dynview.create_or_replace_dynamic_table('dvt_a.mine', 'SELECT id, customer, qty FROM public.dvt_orders WHERE id = 1')$$,
                 '42501', NULL, 'create_or_replace by a non-owner: 42501');
SELECT throws_ok($$SELECT dynview.verify('dvt_a.mine')$$, '42501', 'permission denied for table dvt_a.mine',
                 'verify without SELECT on the table: 42501');
SELECT throws_ok($$SELECT dynview.create_dynamic_table('dvt_a.bobs', 'SELECT id FROM dvt_a.mine')$$, '42501', NULL,
                 'a dynamic table over a dynamic table bob cannot read: 42501');
SELECT throws_ok($$SELECT dynview.create_dynamic_table('dvt_a.bobs', 'SELECT id FROM public.dvt_orders')$$, '42501', NULL,
                 'a dynamic table over a source bob cannot read: 42501');
SELECT throws_ok($$TRUNCATE dvt_a.mine$$, '42809', NULL,
                 'TRUNCATE by a non-owner is refused');
SELECT throws_ok($$SELECT dynview.refresh('dvt_a.nosuch')$$, '42P01', NULL, 'an unknown name is still 42P01 for bob');
SELECT is(pg_temp.state_of('dvt_a.mine'), (SELECT s FROM before), 'the refused calls changed nothing');
SELECT ok(to_regclass('dvt_a.bobs') IS NULL, 'bob''s refused creations left nothing');
RESET ROLE;

-- with SELECT granted, bob may verify (but still not refresh); DML stays refused even with INSERT
GRANT SELECT, INSERT, UPDATE, DELETE, TRUNCATE ON dvt_a.mine TO dvt_bob;
SET ROLE dvt_bob;
SELECT ok(dynview.verify('dvt_a.mine'), 'verify with SELECT on the table');
SELECT throws_ok($$SELECT dynview.refresh('dvt_a.mine')$$, '42501', 'must be owner of table mine',
                 'SELECT does not allow refresh: 42501');
SELECT throws_ok($$INSERT INTO dvt_a.mine VALUES (9, 'x', 9)$$, '42809', 'cannot modify dynamic table "mine"',
                 'INSERT with INSERT privilege is still refused (42809)');
SELECT throws_ok($$UPDATE dvt_a.mine SET qty = 0$$, '42809', 'cannot modify dynamic table "mine"',
                 'UPDATE with UPDATE privilege is still refused (42809)');
SELECT throws_ok($$DELETE FROM dvt_a.mine$$, '42809', 'cannot modify dynamic table "mine"',
                 'DELETE with DELETE privilege is still refused (42809)');
SELECT throws_ok($$TRUNCATE dvt_a.mine$$, '42809', 'cannot modify dynamic table "mine"',
                 'TRUNCATE with TRUNCATE privilege is still refused (42809)');
SELECT is(pg_temp.state_of('dvt_a.mine'), (SELECT s FROM before), 'alice''s table is unchanged');
SELECT lives_ok($$SELECT dynview.create_dynamic_table('dvt_a.bobs', 'SELECT count(*) AS n FROM dvt_a.mine')$$,
                'bob can build on a dynamic table he can read');
SELECT is((SELECT relowner::regrole::text FROM pg_class WHERE oid = 'dvt_a.bobs'::regclass), 'dvt_bob',
          'bob owns his dynamic table');
SELECT ok(dynview.verify('dvt_a.bobs'), 'bob: verify dvt_a.bobs after creation');
RESET ROLE;

-------------------------------------------------------------------------------
-- a superuser may manage any table; refreshes run as the owner
-------------------------------------------------------------------------------
UPDATE dvt_orders SET qty = 7 WHERE id = 1;
SELECT results_eq($$SELECT state, refresh_trigger, rows_inserted, rows_deleted FROM dynview.refresh('dvt_a.mine')$$,
                  $$VALUES ('SUCCEED'::text, 'MANUAL'::text, 1::bigint, 1::bigint)$$,
                  'a superuser can refresh another user''s table');
SELECT ok(dynview.verify('dvt_a.mine'), 'verify after the superuser''s refresh');

SET ROLE dvt_alice;
SELECT lives_ok($$SELECT dynview.create_dynamic_table('dvt_a.who', 'SELECT current_user::text AS who, session_user IS NOT NULL AS s')$$,
                'alice creates dvt_a.who (records current_user)');
SELECT ok(dynview.verify('dvt_a.who'), 'verify dvt_a.who after creation');
RESET ROLE;
SELECT is((SELECT who FROM dvt_a.who), 'dvt_alice', 'the creation refresh ran as the owner');
SELECT results_eq($$SELECT state, rows_inserted, rows_deleted FROM dynview.refresh('dvt_a.who')$$,
                  $$VALUES ('SUCCEED'::text, 0::bigint, 0::bigint)$$,
                  'a superuser''s refresh of alice''s table changes nothing: it runs as alice');
SELECT ok(dynview.verify('dvt_a.who'), 'verify dvt_a.who after the superuser''s refresh');
SELECT is((SELECT who FROM dvt_a.who), 'dvt_alice', 'the refresh ran as the owner, not as the superuser');

REVOKE SELECT ON dvt_orders FROM dvt_alice;
UPDATE before SET s = pg_temp.state_of('dvt_a.mine');
SELECT throws_ok($$SELECT dynview.refresh('dvt_a.mine')$$, '42501', 'permission denied for table dvt_orders',
                 'when the owner loses SELECT on a source, even a superuser''s refresh fails: it runs as the owner');
SELECT is(pg_temp.state_of('dvt_a.mine'), (SELECT s FROM before), 'the failed refresh keeps the table as it was');
GRANT SELECT ON dvt_orders TO dvt_alice;

SELECT lives_ok($$SELECT dynview.alter_dynamic_table('dvt_a.mine', schedule => '1 hour')$$, 'a superuser can alter');
SELECT lives_ok($$SELECT dynview.suspend('dvt_a.mine')$$, 'a superuser can suspend');
SELECT lives_ok($$SELECT dynview.resume('dvt_a.mine')$$, 'a superuser can resume');
SELECT throws_ok($$DELETE FROM dvt_a.mine$$, '42809', 'cannot modify dynamic table "mine"',
                 'a superuser cannot DELETE from a dynamic table either (42809)');
SELECT lives_ok($$SELECT dynview.drop_dynamic_table('dvt_a.bobs')$$, 'a superuser can drop bob''s table');
SELECT lives_ok($$SELECT dynview.drop_dynamic_table('dvt_a.mine')$$, 'a superuser can drop alice''s table');
SELECT ok(to_regclass('dvt_a.mine') IS NULL AND to_regclass('dvt_a.bobs') IS NULL, 'both are gone');

SELECT * FROM finish();
ROLLBACK;
