#!/usr/bin/env bash
# bench/window_test.sh — the per-row test of a window read (design section 5; incremental.c
# WINDOW_CONDITION) in its spellings, on one change buffer and one pending window (issues 13/14):
# backend CPU (/proc/self/schedstat, read by the backend) per execution of
#   SELECT count(*) FROM <buffer> WHERE <spelling>
# with the window from TABLE's data snapshot to a snapshot taken now, for
#   bound       dv_xid >= xmin of the data snapshot only (the scan's floor: no window test)
#   snapshots   WINDOW_CONDITION_SNAPSHOTS (pg_visible_in_snapshot twice, two = ANY of own xids)
#   function    WINDOW_CONDITION (dv_xid >= xmin AND dynview._window_contains(...))
#   any_custom  dv_xid >= xmin AND dv_xid = ANY (the window's transactions), custom plans
#               (parameters folded into constants: the array hashed from 9 elements on)
#   any_generic the same as a generic plan (PREPARE, plan_cache_mode = force_generic_plan: the
#               array is a parameter, searched linearly per row), one execution
# each from PL/pgSQL's EXECUTE ... USING (custom plans), 10 executions per sample after one
# unmeasured, spellings interleaved per round; medians over R rounds.  The window's transaction
# list is what window_transactions would list: every xid assigned cluster-wide between the two
# snapshots that the newer sees and the older did not, not only those that wrote the source.
# Usage: eval "$(scripts/cluster.sh env)"; bench/window_test.sh DB TABLE SOURCE [R]
#        (a dynamic table with a pending window over SOURCE, e.g. dv_bench_tpch_10000 dt.q6 tpch.lineitem)
# Needs a superuser (pg_read_file of /proc/self/schedstat).  Not a test.
set -euo pipefail
DB=${1:?usage: bench/window_test.sh DB TABLE SOURCE [R]}
T=${2:?table}
S=${3:?source}
R=${4:-5}
psql -X -q -At -v ON_ERROR_STOP=1 -d "$DB" -v t="$T" -v s="$S" -v r="$R" <<'SQL'
SELECT data_snapshot AS prev FROM dynview.dynamic_tables WHERE name = :'t'::regclass \gset
SELECT pg_current_snapshot() AS cur \gset
SELECT format('dynview_buffer.%I', 'changes_' || :'s'::regclass::oid) AS buffer \gset
SELECT coalesce(array_agg(x), '{}') AS xids, count(*) AS nx
  FROM (SELECT (pg_snapshot_xmin(:'prev')::text::numeric + i)::text::xid8 AS x
          FROM generate_series(0, (pg_snapshot_xmax(:'cur')::text::numeric - pg_snapshot_xmin(:'prev')::text::numeric)::int - 1) i) s
 WHERE NOT pg_visible_in_snapshot(x, :'prev') AND pg_visible_in_snapshot(x, :'cur') \gset
SELECT format('buffer %s: %s rows, %s in the window; the window''s transactions (cluster-wide): %s',
              :'buffer', (SELECT count(*) FROM :buffer),
              (SELECT count(*) FROM :buffer WHERE dv_xid = ANY (:'xids')), :nx);
CREATE FUNCTION pg_temp.cpu() RETURNS float8 LANGUAGE sql
  AS $$ SELECT split_part(pg_read_file('/proc/self/schedstat'), ' ', 1)::float8 / 1e6 $$;
CREATE FUNCTION pg_temp.run(q text, n int, prev pg_snapshot, cur pg_snapshot, xids xid8[]) RETURNS float8
LANGUAGE plpgsql AS $$
DECLARE t float8; c bigint;
BEGIN
  EXECUTE q INTO c USING '{}'::xid8[], prev, '{}'::xid8[], cur, pg_snapshot_xmin(prev), xids;
  t := pg_temp.cpu();
  FOR i IN 1..n LOOP
    EXECUTE q INTO c USING '{}'::xid8[], prev, '{}'::xid8[], cur, pg_snapshot_xmin(prev), xids;
  END LOOP;
  RETURN (pg_temp.cpu() - t) / n;
END $$;
CREATE TEMP TABLE spelling(kind text, q text);
INSERT INTO spelling VALUES
('bound', 'SELECT count(*) FROM ' || :'buffer' || ' WHERE dv_xid >= $5 AND $6 IS NOT NULL'),
('snapshots', 'SELECT count(*) FROM ' || :'buffer' || ' WHERE dv_xid >= $5::pg_catalog.xid8
   AND (pg_catalog.pg_visible_in_snapshot(dv_xid, $4::pg_catalog.pg_snapshot) OR dv_xid = ANY ($1::pg_catalog.xid8[]))
   AND NOT (pg_catalog.pg_visible_in_snapshot(dv_xid, $2::pg_catalog.pg_snapshot) OR dv_xid = ANY ($3::pg_catalog.xid8[]))
   AND $6 IS NOT NULL'),
('function', 'SELECT count(*) FROM ' || :'buffer' || ' WHERE dv_xid >= $5::pg_catalog.xid8
   AND dynview._window_contains(dv_xid, $2::pg_catalog.pg_snapshot, $3::pg_catalog.xid8[],
                                $4::pg_catalog.pg_snapshot, $1::pg_catalog.xid8[]) AND $6 IS NOT NULL'),
('any_custom', 'SELECT count(*) FROM ' || :'buffer' || ' WHERE dv_xid >= $5 AND dv_xid = ANY ($6)');
-- every spelling finds the same rows
CREATE FUNCTION pg_temp.found(q text, prev pg_snapshot, cur pg_snapshot, xids xid8[]) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE c bigint;
BEGIN
  EXECUTE q INTO c USING '{}'::xid8[], prev, '{}'::xid8[], cur, pg_snapshot_xmin(prev), xids;
  RETURN c;
END $$;
SELECT 'rows found: ' || string_agg(kind || ' ' || pg_temp.found(q, :'prev', :'cur', :'xids'), ', ' ORDER BY kind)
  FROM spelling;
CREATE TEMP TABLE sample(kind text, ms float8);
INSERT INTO sample SELECT s.kind, pg_temp.run(s.q, 10, :'prev', :'cur', :'xids')
  FROM generate_series(1, :r) r, spelling s ORDER BY r, s.kind;
PREPARE g(xid8, xid8[]) AS SELECT count(*) FROM :buffer WHERE dv_xid >= $1 AND dv_xid = ANY ($2);
SET plan_cache_mode = force_generic_plan;
\o /dev/null
EXECUTE g(pg_snapshot_xmin(:'prev'), :'xids');
SELECT pg_temp.cpu() AS t0 \gset
EXECUTE g(pg_snapshot_xmin(:'prev'), :'xids');
\o
INSERT INTO sample SELECT 'any_generic', pg_temp.cpu() - :t0;
SELECT format('%s: median %s ms (of %s-%s) CPU per execution', kind,
              round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 3),
              round(min(ms)::numeric, 3), round(max(ms)::numeric, 3))
  FROM sample GROUP BY kind ORDER BY kind;
SQL
