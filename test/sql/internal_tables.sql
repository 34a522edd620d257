-- TRUNCATE of a change buffer (dynview_buffer) or of a state table (dynview_state) is refused,
-- also for a superuser and when named beside other tables: emptied by hand, a buffer lost the
-- changes a refresh had not read yet and the next refresh found nothing to do (NO_DATA, the table
-- silently missing rows); an emptied state was built on as if its input had no rows.  A rule or
-- trigger on one is refused too (a BEFORE ROW trigger of the state's owner could change what
-- refreshes build on).
SET client_min_messages = warning;
-- runs sql; its error's SQLSTATE, message and detail, OIDs left out
CREATE FUNCTION it_try(sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE detail text;
BEGIN
  EXECUTE sql;
  RETURN 'done';
EXCEPTION WHEN others THEN
  GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
  RETURN regexp_replace(SQLSTATE || ': ' || SQLERRM || ' / ' || detail, '_[0-9]+', '_<oid>', 'g');
END $$;
CREATE TABLE it_src (id int PRIMARY KEY, g int, v int);
INSERT INTO it_src SELECT i, i % 3, i FROM generate_series(1, 9) i;
CREATE TABLE it_other (x int);
INSERT INTO it_other VALUES (1);
SELECT dynview.create_dynamic_table('it_dt', 'SELECT g, sum(v) AS s, count(*) AS n FROM it_src GROUP BY g',
                                    schedule => 'manual');
INSERT INTO it_src VALUES (10, 1, 10);
SELECT dynview.wait_for_capture();
SELECT it_try(format('TRUNCATE dynview_buffer.changes_%s', 'it_src'::regclass::oid));
SELECT it_try(format('TRUNCATE it_other, dynview_state.agg_%s', 'it_dt'::regclass::oid));
SELECT count(*) AS other_rows FROM it_other;
CREATE FUNCTION it_trg() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;
SELECT it_try(format('CREATE TRIGGER skip BEFORE INSERT OR UPDATE ON dynview_state.agg_%s FOR EACH ROW EXECUTE FUNCTION it_trg()',
                     'it_dt'::regclass::oid));
SELECT it_try(format('CREATE RULE skip AS ON UPDATE TO dynview_state.agg_%s DO INSTEAD NOTHING', 'it_dt'::regclass::oid));
SELECT it_try(format('CREATE TRIGGER skip BEFORE INSERT ON dynview_buffer.changes_%s FOR EACH ROW EXECUTE FUNCTION it_trg()',
                     'it_src'::regclass::oid));
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('it_dt');
SELECT dynview.verify('it_dt');
SELECT * FROM it_dt ORDER BY g;
-- a source's TRUNCATE is still allowed: the next refresh is FULL
TRUNCATE it_src;
SELECT refresh_mode, mode_reason_code FROM dynview.refresh('it_dt');
SELECT dynview.verify('it_dt');
SELECT dynview.drop_dynamic_table('it_dt');
DROP TABLE it_src, it_other;
DROP FUNCTION it_try(text);
DROP FUNCTION it_trg();
