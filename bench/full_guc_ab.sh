#!/usr/bin/env bash
# bench/full_guc_ab.sh — the FULL refresh of a DV_BENCH_KEEP=1 bench/full.sh database under session
# settings alternated in one run (issue 14): each round and variant a change of its own (1,000 new
# orders, 100 updated, 100 deleted), the decoder caught up, VACUUM ANALYZE, CHECKPOINT; then
# dynview.refresh() of the tables (each verified) with the variant's settings, and (MV=1) REFRESH
# MATERIALIZED VIEW mv_detail: CPU of the backend (/proc/<pid>/schedstat), of the whole cluster (the
# postmaster's children, parallel workers included: clock ticks), wall.  One build (no restart).
# Usage: eval "$(scripts/cluster.sh env)"; [TABLES="detail detail_k"] [MV=1] \
#        bench/full_guc_ab.sh DB ROUNDS "name=SQL settings" ["name=SQL settings" ...]
# e.g.   MV=1 bench/full_guc_ab.sh dv_bench_full_1000000 3 "base=SELECT 1;" "par=SET parallel_tuple_cost = 0.001;"
set -euo pipefail
DB=$1; ROUNDS=${2:-3}; shift 2
VARIANTS=("$@")   # each: name=SQL settings
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
measure() {
	local out k0 k1 c0 c1 t
	k0=$(cluster_ticks)
	out=$({ echo "SET jit = off;"; echo "$3"; echo "SELECT pg_backend_pid() AS pid \gset"; echo "\\setenv PID :pid"
		echo '\! cut -d" " -f1 /proc/$PID/schedstat'; echo '\timing on'; echo "$2"; echo '\timing off'
		echo '\! cut -d" " -f1 /proc/$PID/schedstat'; } | psql -X -At -d "$DB" 2>&1)
	k1=$(cluster_ticks)
	c0=$(echo "$out" | grep -E '^[0-9]{6,}$' | head -1); c1=$(echo "$out" | grep -E '^[0-9]{6,}$' | tail -1)
	t=$(echo "$out" | grep '^Time' | tail -1 | awk '{print $2}')
	echo "$1 cpu_ms=$(((c1 - c0) / 1000000)) cluster_cpu_ms=$(((k1 - k0) * 10)) wall_ms=${t%.*} load=$(cut -d' ' -f1 /proc/loadavg)"
}
for r in $(seq 1 "$ROUNDS"); do
	i=0
	for v in "${VARIANTS[@]}"; do
		name=${v%%=*}; set_sql=${v#*=}; i=$((i+1))
		tag="g$r$name$RANDOM"
		q <<SQL
INSERT INTO doc_orders SELECT 'N$tag-' || g, 'U' || g, 'P' || (1 + (g * 7 + $r) % 10000), 2, 50.00, 100.00, now(), 'completed'
  FROM generate_series(1, 1000) g;
UPDATE doc_orders SET quantity = quantity + 1, amount = amount + unit_price WHERE order_id IN (SELECT 'O' || (g * 997 + $r + $i) FROM generate_series(1, 100) g);
DELETE FROM doc_orders WHERE order_id IN (SELECT 'O' || (g * 991 + 1 + 3 * $r + 7 * $i + ${RANDOM:0:2}) FROM generate_series(1, 100) g);
SQL
		q -c "SELECT dynview.wait_for_capture('30 minutes')" -c "VACUUM ANALYZE" -c "CHECKPOINT" >/dev/null
		for t in ${TABLES:-detail detail_k}; do
			measure "$r $name $t" "SELECT refresh_mode, rows_deleted, rows_inserted FROM dynview.refresh('$t');" "$set_sql"
			echo "   verify=$(q -c "SELECT dynview.verify('$t')") $(q -c "SELECT refresh_mode || ' -' || rows_deleted || ' +' || rows_inserted FROM dynview.refresh_history('$t', 1)")"
			q -c "CHECKPOINT" >/dev/null
		done
		if [ -n "${MV:-}" ]; then measure "$r $name mv" "REFRESH MATERIALIZED VIEW mv_detail;" ""; q -c "CHECKPOINT" >/dev/null; fi
	done
done
