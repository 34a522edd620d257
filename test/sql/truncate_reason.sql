-- A source's TRUNCATE is told apart from VACUUM FULL and CLUSTER in the refresh history: all three
-- replace the source's storage (FULL, found before any change is read), but only TRUNCATE writes a
-- WAL record that logical decoding delivers, which the decoder keeps as a marker in the source's
-- change buffer; a refresh whose window holds one says SOURCE_TRUNCATED and names the table, the
-- others say SOURCE_ALTERED and name the commands that rewrite a table.  A TRUNCATE made in the
-- refreshing transaction itself is not decoded yet: SOURCE_ALTERED, naming TRUNCATE among the
-- possible causes.  Every refresh verified, and the rows compared by text and by =.
SET client_min_messages = warning;

CREATE TABLE tr_a (id int PRIMARY KEY, g int, v numeric(8,2));
CREATE TABLE tr_b (g int PRIMARY KEY, label text);
INSERT INTO tr_a SELECT i, i % 3, i * 1.5 FROM generate_series(1, 30) i;
INSERT INTO tr_b SELECT i, 'g' || i FROM generate_series(0, 2) i;
CREATE TABLE tr_defs (name text, query text);
INSERT INTO tr_defs VALUES
  ('tr_rows', $$SELECT id, g, v FROM tr_a$$),
  ('tr_join', $$SELECT a.id, b.label, a.v FROM tr_a a JOIN tr_b b USING (g)$$),
  ('tr_sum', $$SELECT b.label, count(*) AS n, sum(a.v) AS s FROM tr_a a JOIN tr_b b USING (g) GROUP BY b.label$$);
SELECT dynview.create_dynamic_table(name, query, schedule => 'manual', refresh_mode => 'incremental')
  FROM tr_defs ORDER BY name;

CREATE FUNCTION tr_round()
RETURNS TABLE (name text, refresh_mode text, reason_code text, reason text, verified boolean,
               same_text boolean, same_rows boolean)
LANGUAGE plpgsql AS $$
DECLARE
  d record;
  r record;
  nt bigint;
  ne bigint;
BEGIN
  FOR d IN SELECT * FROM tr_defs ORDER BY 1 LOOP
    SELECT * INTO r FROM dynview.refresh(d.name);
    EXECUTE format('SELECT count(*) FROM ((SELECT t::text FROM %I t EXCEPT ALL SELECT q::text FROM (%s) q)
                    UNION ALL (SELECT q::text FROM (%s) q EXCEPT ALL SELECT t::text FROM %I t)) x',
                   d.name, d.query, d.query, d.name) INTO nt;
    EXECUTE format('SELECT count(*) FROM ((TABLE %I EXCEPT ALL (%s)) UNION ALL ((%s) EXCEPT ALL TABLE %I)) x',
                   d.name, d.query, d.query, d.name) INTO ne;
    name := d.name;
    refresh_mode := r.refresh_mode;
    reason_code := r.mode_reason_code;
    reason := r.mode_reason;
    verified := dynview.verify(d.name);
    same_text := nt = 0; same_rows := ne = 0;
    RETURN NEXT;
  END LOOP;
END $$;

-- TRUNCATE of one source, then new rows: SOURCE_TRUNCATED, naming it
TRUNCATE tr_a;
INSERT INTO tr_a SELECT i, i % 3, i * 2.5 FROM generate_series(5, 20) i;
SELECT * FROM tr_round();
-- incremental again after it
UPDATE tr_a SET v = v + 1 WHERE id < 9;
SELECT * FROM tr_round();

-- VACUUM FULL and CLUSTER rewrite a source without truncating it: SOURCE_ALTERED
VACUUM FULL tr_a;
UPDATE tr_a SET v = v + 1 WHERE id = 10;
SELECT * FROM tr_round();
CLUSTER tr_b USING tr_b_pkey;
SELECT * FROM tr_round();

-- TRUNCATE of one source and VACUUM FULL of the other in one window: both named
TRUNCATE tr_b;
INSERT INTO tr_b VALUES (0, 'zero'), (1, 'one');
VACUUM FULL tr_a;
SELECT * FROM tr_round();

-- a TRUNCATE undone by its transaction's rollback: nothing happened
BEGIN;
TRUNCATE tr_a;
ROLLBACK;
SELECT * FROM tr_round();

-- TRUNCATE in the refreshing transaction: not decoded yet, so not told apart
BEGIN;
TRUNCATE tr_b;
INSERT INTO tr_b VALUES (2, 'two');
SELECT * FROM tr_round();
COMMIT;
-- (committed, the next refresh's window holds that TRUNCATE, whose effect the table has already)
SELECT * FROM tr_round();

SELECT count(dynview.drop_dynamic_table(name)) FROM tr_defs;
DROP FUNCTION tr_round();
DROP TABLE tr_defs, tr_a, tr_b;
