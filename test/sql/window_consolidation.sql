-- A window is consolidated before the query sees it (read_window): rows that a later change
-- undid are dropped (never evaluated: the division by zero would fail the refresh), identical
-- rows of a table without a key are summed (weight 2), an equal value written differently
-- (1.0 -> 1.00, 0 -> -0, '1 day' -> '24 hours') is a change, NaNs from arithmetic and from
-- text are one value, TOASTed values (compressed, out of line) compare by their contents, a
-- TRUNCATE still means FULL; with a jsonb column as well.  Every refresh is verified.
SET client_min_messages = warning;

CREATE TABLE wi_src (g int, x numeric, f float8, s text, c char(3), d date, u uuid, i interval);
INSERT INTO wi_src SELECT k % 3, k, k / 2.0, 's' || k, 'c' || (k % 2), date '2026-01-01' + k,
                          md5(k::text)::uuid, k * interval '1 hour'
  FROM generate_series(1, 12) k;
-- per-row division (1 / x), a sum, the text values, a count per group
SELECT dynview.create_dynamic_table('wi_rows',
  'SELECT g, x, 1 / x AS inv, f, s, c, d, u, i FROM wi_src',
  schedule => 'manual', refresh_mode => 'incremental');
SELECT dynview.create_dynamic_table('wi_groups',
  'SELECT g, sum(100 / x) AS s, count(*) AS n, max(length(s)) AS ml, sum(f) AS sf FROM wi_src GROUP BY g',
  schedule => 'manual', refresh_mode => 'incremental');
SELECT name, effective_mode FROM dynview.dynamic_tables WHERE name::text LIKE 'wi_%' ORDER BY 1;
\set wi_round 'SELECT r.table_name, r.refresh_mode, r.mode_reason_code, dynview.verify(t) AS verified FROM unnest(ARRAY[''wi_rows'', ''wi_groups'']) t, dynview.refresh(t) r'

-- a row with x = 0 inserted and deleted in one window; two identical rows inserted (no key:
-- weight 2), one of them deleted again; an update to an equal value written differently
BEGIN;
INSERT INTO wi_src VALUES (1, 0, 0, 'zero', 'z', date '2026-02-01', NULL, NULL);
DELETE FROM wi_src WHERE x = 0;
COMMIT;
INSERT INTO wi_src VALUES (2, 7.5, 1, 'twin', 'tw', NULL, NULL, '1 day'), (2, 7.5, 1, 'twin', 'tw', NULL, NULL, '1 day');
INSERT INTO wi_src VALUES (0, 8.5, 2, 'twin2', 'tw', NULL, NULL, NULL), (0, 8.5, 2, 'twin2', 'tw', NULL, NULL, NULL);
DELETE FROM wi_src WHERE ctid = (SELECT min(ctid) FROM wi_src WHERE s = 'twin2');
UPDATE wi_src SET x = 2.00, f = '-0' WHERE s = 's2';
UPDATE wi_src SET i = '24 hours' WHERE s = 's1';
:wi_round;
SELECT g, x, f, s, c, i, count(*) FROM wi_rows WHERE s IN ('s1', 's2', 'twin', 'twin2') GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY s;

-- a row changed and changed back in one window (its images summed away), another changed
-- back and forth across two transactions; NaN from arithmetic and from text
UPDATE wi_src SET x = x + 1 WHERE s = 's3';
UPDATE wi_src SET x = x - 1 WHERE s = 's3';
BEGIN;
UPDATE wi_src SET f = 'NaN' WHERE s = 's4';
UPDATE wi_src SET f = '-Infinity'::float8 + 'Infinity'::float8 WHERE s = 's5';
INSERT INTO wi_src VALUES (1, 9, 'Infinity'::float8 * 0, 'nan', 'n', NULL, NULL, NULL);
INSERT INTO wi_src VALUES (1, 9, 'NaN', 'nan', 'n', NULL, NULL, NULL);
COMMIT;
:wi_round;
SELECT s, x, f FROM wi_rows WHERE s IN ('s3', 's4', 's5', 'nan') ORDER BY s, f;

-- TOASTed text: a long value (out of line) and a compressible one, inserted, updated in another
-- column (the old image carries the value), deleted in the same window as an insert of the same
INSERT INTO wi_src SELECT 1, 11, 11, string_agg(md5(k::text || 'wi'), '') , 'tl', NULL, NULL, NULL FROM generate_series(1, 300) k;
INSERT INTO wi_src SELECT 2, 12, 12, repeat('abc', 5000), 'tc', NULL, NULL, NULL;
:wi_round;
UPDATE wi_src SET x = 13 WHERE c = 'tl';
BEGIN;
DELETE FROM wi_src WHERE c = 'tc';
INSERT INTO wi_src SELECT 2, 12, 12, repeat('abc', 5000), 'tc', NULL, NULL, NULL;
COMMIT;
:wi_round;
SELECT c, x, length(s) FROM wi_rows WHERE c IN ('tl', 'tc') ORDER BY c;
SELECT g, s, n, ml, sf FROM wi_groups ORDER BY g;

-- a marker: TRUNCATE in the window means FULL
TRUNCATE wi_src;
INSERT INTO wi_src VALUES (1, 1, 1, 'a', 'a', NULL, NULL, NULL);
:wi_round;

-- a column of a type not compared by image (jsonb): the window grouped by SQL, as before
CREATE TABLE wi_j (id int, j jsonb, x numeric);
INSERT INTO wi_j VALUES (1, '{"a": 1}', 1), (2, '{"a": 2}', 2);
SELECT dynview.create_dynamic_table('wi_json', 'SELECT j, 10 / x AS q FROM wi_j',
  schedule => 'manual', refresh_mode => 'incremental');
BEGIN;
INSERT INTO wi_j VALUES (3, '{"a": 3}', 0);
DELETE FROM wi_j WHERE id = 3;
COMMIT;
UPDATE wi_j SET j = '{"a": 1.0}' WHERE id = 1;
SELECT r.refresh_mode, dynview.verify('wi_json') FROM dynview.refresh('wi_json') r;
SELECT j, q FROM wi_json ORDER BY q;

-- A window read sends its rows straight into the relation the delta reads, and stops at a
-- marker: rows before and after a TRUNCATE of an inheritance child (a marker in the parent's
-- window: FULL, SOURCE_TRUNCATED) in one window, read raw (a sum: linear), consolidated (a
-- count(DISTINCT)), and shared by a self-join; then a window of rows only, read whole.
CREATE TABLE wi_m (k int, v int);
CREATE TABLE wi_m_child () INHERITS (wi_m);
INSERT INTO wi_m SELECT k, k % 7 FROM generate_series(1, 300) k;
SELECT dynview.create_dynamic_table('wi_m_sum', 'SELECT v, sum(k) AS s, count(*) AS n FROM wi_m GROUP BY v',
  schedule => 'manual', refresh_mode => 'incremental');
SELECT dynview.create_dynamic_table('wi_m_dist', 'SELECT count(DISTINCT v) AS d, count(*) AS n FROM wi_m',
  schedule => 'manual', refresh_mode => 'incremental');
SELECT dynview.create_dynamic_table('wi_m_self',
  'SELECT a.v, count(*) AS n FROM wi_m a JOIN wi_m b ON b.k = a.k + 1 GROUP BY a.v',
  schedule => 'manual', refresh_mode => 'incremental');
\set wi_m_round 'SELECT r.table_name, r.refresh_mode, r.mode_reason_code, dynview.verify(t) AS verified FROM unnest(ARRAY[''wi_m_sum'', ''wi_m_dist'', ''wi_m_self'']) t, dynview.refresh(t) r'
INSERT INTO wi_m SELECT k, k % 5 FROM generate_series(301, 900) k;
INSERT INTO wi_m_child SELECT k, k % 3 FROM generate_series(901, 1000) k;
TRUNCATE wi_m_child;
INSERT INTO wi_m SELECT k, k % 3 FROM generate_series(1001, 1400) k;
:wi_m_round;
INSERT INTO wi_m SELECT k, k % 11 FROM generate_series(1401, 2000) k;
INSERT INTO wi_m_child SELECT k, k % 2 FROM generate_series(2001, 2100) k;
DELETE FROM wi_m WHERE k % 4 = 0;
:wi_m_round;
SELECT (SELECT sum(n) FROM wi_m_sum) AS sum_rows, (SELECT n FROM wi_m_dist) AS dist_rows,
       (SELECT count(*) FROM wi_m) AS source_rows;

SELECT dynview.drop_dynamic_table(t) FROM unnest(ARRAY['wi_rows', 'wi_groups', 'wi_json', 'wi_m_sum', 'wi_m_dist', 'wi_m_self']) t;
DROP TABLE wi_src, wi_j, wi_m CASCADE;
