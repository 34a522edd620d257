-- dynview.keep_freed_memory (on by default): a backend keeps the memory it frees once it has
-- refreshed (glibc malloc settings, applied at its first refresh).  Only a superuser may change
-- it; refreshes are the same either way.  Every refresh is verified.
SET client_min_messages = warning;
SHOW dynview.keep_freed_memory;
SELECT name, setting, context FROM pg_settings WHERE name = 'dynview.keep_freed_memory';

CREATE TABLE kf_src (id int PRIMARY KEY, g int, v numeric);
INSERT INTO kf_src SELECT k, k % 5, k * 1.5 FROM generate_series(1, 1000) k;
SELECT dynview.create_dynamic_table('kf_sum', 'SELECT g, sum(v) AS s, count(*) AS n FROM kf_src GROUP BY g',
  schedule => 'manual', refresh_mode => 'incremental');

-- off for this session (before its first refresh here), then on again
SET dynview.keep_freed_memory = off;
UPDATE kf_src SET v = v + 1 WHERE id <= 300;
SELECT refresh_mode, rows_inserted, rows_deleted FROM dynview.refresh('kf_sum');
SELECT dynview.verify('kf_sum');
RESET dynview.keep_freed_memory;
DELETE FROM kf_src WHERE id > 900;
INSERT INTO kf_src SELECT k, k % 7, k FROM generate_series(1001, 1500) k;
SELECT refresh_mode, rows_inserted, rows_deleted FROM dynview.refresh('kf_sum');
SELECT dynview.verify('kf_sum');
SELECT g, s, n FROM kf_sum ORDER BY g;

-- not for an ordinary role
CREATE ROLE kf_user;
SET ROLE kf_user;
SET dynview.keep_freed_memory = off;
RESET ROLE;
DROP ROLE kf_user;

SELECT dynview.drop_dynamic_table('kf_sum');
DROP TABLE kf_src;
