#!/usr/bin/env bash
# bench/buffer_history.sh — a refresh's cost against its change buffer's history (issues 13/14):
#   a burst of ROWS rows is written to a source read by two dynamic tables; d is refreshed (it
#   consumes the burst), d2 is not, so the buffer keeps the burst for d2; then 20 small changes
#   (10 rows each), each followed by a refresh of d in one warm backend (server time,
#   clock_timestamp() around dynview.refresh()).  The window of each is 10 rows: its cost should
#   not follow the ROWS rows the buffer holds for d2.  Then d and d2 are verified (d2 after its
#   refresh).  Also prints the buffer's pages, rows and indexes after the burst.
# Usage: eval "$(scripts/cluster.sh env)"; bench/buffer_history.sh [rows]     (default 300000)
# Uses database dv_bench_history. Not a test.
set -euo pipefail
ROWS=${1:-300000}
DB=dv_bench_history
psql -X -q -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" -c "CREATE DATABASE $DB" >/dev/null 2>&1
q() { psql -X -q -At -v ON_ERROR_STOP=1 -d "$DB" "$@"; }
q -c "CREATE EXTENSION dynview" -c "SET client_min_messages = warning" \
  -c "CREATE TABLE s (id int PRIMARY KEY, g int, v numeric, pad text)" \
  -c "INSERT INTO s SELECT i, i % 100, i, repeat('x', 40) FROM generate_series(1, 1000) i" \
  -c "SELECT dynview.create_dynamic_table('d', 'SELECT g, sum(v) AS sv, count(*) AS n FROM s GROUP BY g', schedule => 'manual', refresh_mode => 'incremental')" \
  -c "SELECT dynview.create_dynamic_table('d2', 'SELECT g, max(v) AS mv FROM s GROUP BY g', schedule => 'manual', refresh_mode => 'incremental')" \
  -c "CREATE FUNCTION bench_refresh() RETURNS text LANGUAGE plpgsql AS \$\$
      DECLARE t0 timestamptz := clock_timestamp(); m text;
      BEGIN
        SELECT refresh_mode INTO m FROM dynview.refresh('d');
        RETURN round((extract(epoch FROM clock_timestamp() - t0) * 1000)::numeric, 2) || ' ' || m;
      END \$\$" >/dev/null
q -c "INSERT INTO s SELECT i, i % 100, i, repeat('x', 40) FROM generate_series(1001, 1000 + $ROWS) i" \
  -c "SELECT dynview.wait_for_capture('10 minutes')" -c "SET dynview.full_refresh_change_ratio = 1000" \
  -c "SELECT refresh_mode FROM dynview.refresh('d')" >/dev/null
echo "load: $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%H:%M) UTC"
echo "buffer after the burst: $(q -c "SELECT pg_relation_size(buffer_relid) / 8192 || ' pages, ' ||
  (SELECT buffered_changes FROM dynview.cdc_status WHERE source = 's'::regclass) || ' rows, ' ||
  (SELECT count(*) FROM pg_index WHERE indrelid = buffer_relid) || ' index(es)' FROM dynview.source_tracking")"
out=$( (for i in $(seq 1 20); do
	echo "UPDATE s SET v = v + 1 WHERE id BETWEEN $((i * 10)) AND $((i * 10 + 9));"
	echo "SELECT dynview.wait_for_capture('1 minute') AS w \\gset"
	echo "SELECT bench_refresh();"
done; echo "SELECT dynview.verify('d');"; echo "SELECT refresh_mode FROM dynview.refresh('d2');"; echo "SELECT dynview.verify('d2');") |
	psql -X -q -At -d "$DB")
echo "verify d, refresh d2, verify d2: $(echo "$out" | tail -3 | tr '\n' ' ')"
echo "$out" | grep -E " (INCREMENTAL|NO_DATA)$" | awk '{print $1}' | sort -n |
	awk '{a[NR] = $1} END {print "refresh of d after a 10-row change (warm backend), ms: median " a[int((NR + 1) / 2)] ", min " a[1] ", max " a[NR] " over " NR}'
