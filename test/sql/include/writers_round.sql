-- writers_round.sql: dv_writers_round(writers, readers), the statements (run them with \gexec) of
-- one round of the tests of what a refresh may mark as its own writes (brk16_domain_values,
-- brk17_user_opclass): dw_log's size noted; each dynamic table the table writers (name, query)
-- lists refreshed, each in a transaction of its own; whether dw_log grew (the user code ran inside
-- their refreshes); the tables readers lists (over dw_log) refreshed and compared with their
-- queries; the writers compared with theirs (dv_refresh_round: NO_DATA; evaluating the queries may
-- write dw_log again); the readers refreshed and compared again.  After writing_domain.sql and
-- refresh_round.sql:
--   \set writers_round :abs_srcdir '/sql/include/writers_round.sql'
--   \i :writers_round
CREATE TABLE dw_size (n bigint);
INSERT INTO dw_size VALUES (0);
CREATE FUNCTION dv_writers_round(writers regclass, readers regclass) RETURNS SETOF text
LANGUAGE plpgsql AS $$
BEGIN
  RETURN NEXT 'UPDATE dw_size SET n = (SELECT count(*) FROM dw_log)';
  RETURN QUERY EXECUTE format('SELECT format(%L, name, name) FROM %s ORDER BY name',
                              'SELECT %L AS name, refresh_mode FROM dynview.refresh(%L)', writers);
  RETURN NEXT 'SELECT count(*) > (SELECT n FROM dw_size) AS log_grew FROM dw_log';
  RETURN NEXT format('SELECT * FROM dv_refresh_round(%L)', readers);
  RETURN NEXT format('SELECT * FROM dv_refresh_round(%L)', writers);
  RETURN NEXT format('SELECT * FROM dv_refresh_round(%L)', readers);
END $$;
