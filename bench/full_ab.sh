#!/usr/bin/env bash
# bench/full_ab.sh — the FULL refresh of the dashboard's detail layer (LEFT JOIN, bench/full.sh) with
# two builds alternated, against REFRESH MATERIALIZED VIEW in the same round (issue 14): CPU of the
# backend (/proc/<pid>/schedstat), CPU of the whole cluster (the postmaster's children, parallel
# workers included, and those it reaped: clock ticks), wall time.  Each round and build: a change
# of its own (1,000 new orders, 100 updated, 100 deleted), the decoder caught up, VACUUM ANALYZE,
# CHECKPOINT, the database prewarmed; then dynview.refresh() of detail and detail_k (each
# verified) and REFRESH MATERIALIZED VIEW mv_detail.  Needs a DV_BENCH_KEEP=1 bench/full.sh
# database.  Restarts the cluster (the build is swapped in the server's lib directory); the
# second build stays installed.
# Usage: eval "$(scripts/cluster.sh env)"; bench/full_ab.sh DB a.so b.so [rounds]   (default 3)
set -euo pipefail
DB=$1; A=$2; B=$3; ROUNDS=${4:-3}
LIB=$(pg_config --pkglibdir)/dynview.so
DATA=$(psql -X -At -c "SHOW data_directory")
q() { psql -X -q -At -d "$DB" "$@"; }
cluster_ticks() {
	local pm s=0 p
	pm=$(head -1 "$DATA/postmaster.pid")
	for p in $(pgrep -P "$pm"); do
		s=$((s + $(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null || echo 0)))
	done
	echo $((s + $(awk '{print $14 + $15 + $16 + $17}' "/proc/$pm/stat")))
}
# measure NAME SQL: backend CPU ms, cluster CPU ms, wall ms
measure() {
	local out k0 k1 c0 c1 t
	k0=$(cluster_ticks)
	out=$({ echo "SET jit = off;"; echo "SELECT pg_backend_pid() AS pid \gset"; echo "\\setenv PID :pid"
		echo '\! cut -d" " -f1 /proc/$PID/schedstat'; echo '\timing on'; echo "$2"; echo '\timing off'
		echo '\! cut -d" " -f1 /proc/$PID/schedstat'; } | psql -X -At -d "$DB" 2>&1)
	k1=$(cluster_ticks)
	c0=$(echo "$out" | grep -E '^[0-9]{6,}$' | head -1); c1=$(echo "$out" | grep -E '^[0-9]{6,}$' | tail -1)
	t=$(echo "$out" | grep '^Time' | tail -1 | awk '{print $2}')
	echo "$1 cpu_ms=$(((c1 - c0) / 1000000)) cluster_cpu_ms=$(((k1 - k0) * 10)) wall_ms=${t%.*} load=$(cut -d' ' -f1 /proc/loadavg)"
}
here=$(cd "$(dirname "$0")/.." && pwd)
for r in $(seq 1 "$ROUNDS"); do
	for b in A B; do
		if [ $b = A ]; then cp "$A" "$LIB"; else cp "$B" "$LIB"; fi
		bash "$here/scripts/cluster.sh" restart >/dev/null 2>&1
		tag="$r$b"; off=$([ $b = A ] && echo 0 || echo 1)
		q <<SQL
INSERT INTO doc_orders SELECT 'N$tag-' || g, 'U' || g, 'P' || (1 + (g * 7 + $r) % 10000), 2, 50.00, 100.00, now(), 'completed'
  FROM generate_series(1, 1000) g;
UPDATE doc_orders SET quantity = quantity + 1, amount = amount + unit_price WHERE order_id IN (SELECT 'O' || (g * 997 + $r) FROM generate_series(1, 100) g);
DELETE FROM doc_orders WHERE order_id IN (SELECT 'O' || (g * 991 + 1 + 3 * $r + $off) FROM generate_series(1, 100) g);
SQL
		q -c "SELECT dynview.wait_for_capture('30 minutes')" -c "VACUUM ANALYZE" -c "CHECKPOINT" >/dev/null
		q -c "CREATE EXTENSION IF NOT EXISTS pg_prewarm" -c "SELECT sum(pg_prewarm(c.oid, 'read')) FROM pg_class c
			WHERE c.relkind IN ('r', 'i', 'm', 't') AND c.relpersistence = 'p' AND pg_relation_size(c.oid) > 0" >/dev/null
		for t in detail detail_k; do
			measure "$tag $t" "SELECT refresh_mode, rows_deleted, rows_inserted FROM dynview.refresh('$t');"
			echo "   verify=$(q -c "SELECT dynview.verify('$t')") $(q -c "SELECT refresh_mode || ' -' || rows_deleted || ' +' || rows_inserted FROM dynview.refresh_history('$t', 1)")"
			q -c "CHECKPOINT" >/dev/null
		done
		measure "$tag mv" "REFRESH MATERIALIZED VIEW mv_detail;"
		q -c "CHECKPOINT" >/dev/null
	done
done
