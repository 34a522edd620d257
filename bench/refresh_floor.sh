#!/usr/bin/env bash
# bench/refresh_floor.sh — what plain PostgreSQL pays for the dashboard's work, in CPU of one
# backend, on a database kept by DV_BENCH_KEEP=1 bench/pipeline.sh <orders> (issues 13/14):
#   - the floor: the detail layer's writes of one pipeline.sh change done by hand, no dynview
#     (in a copy of the detail table with its unique key index: DELETE of 180 rows by key, INSERT
#     of 1,090 given rows joined to doc_products as the table's query joins them), each round
#     rolled back; an incremental refresh of the detail layer cannot write these rows for less,
#     and the pipeline's other two layers and dynview's bookkeeping come on top;
#   - REFRESH MATERIALIZED VIEW of the three views of the same database (schema mv), without
#     parallel workers so that the backend's CPU is all of it.
# Compare with `bench/refresh_cpu.sh` (dynview's pipeline refresh, CPU of its backend, and
# DV_BENCH_SCHEDULER=1 for the scheduler worker's).  CPU from /proc/<pid>/schedstat; wall times
# too, which on a loaded machine are mostly the wait for a CPU.
# Usage: eval "$(scripts/cluster.sh env)"; bench/refresh_floor.sh [orders] [rounds]
#        DV_BENCH_DB=name as for refresh_cpu.sh; DV_BENCH_MV=0 skips the views.
# Needs the server on this machine. Not a test.
set -euo pipefail
N=${1:-1000000}
R=${2:-5}
DB=${DV_BENCH_DB:-dv_bench_pipeline_$N}
export PATH="/usr/lib/postgresql/15/bin:$PATH"
. "$(dirname "$0")/lib.sh"
floor_setup
coproc P { psql -X -q -At -v ON_ERROR_STOP=1 -d "$DB"; }
say() {
	local l
	echo "$1 SELECT 'done';" >&"${P[1]}"
	while read -r l <&"${P[0]}"; do [ "$l" = done ] && break; echo "$l"; done
}
echo "SELECT pg_backend_pid();" >&"${P[1]}"; read -r pid <&"${P[0]}"
echo "orders=$N database $DB ($FLOOR_JOIN doc_products) load: $(cut -d' ' -f1-3 /proc/loadavg)"
all=()
for r in $(seq 0 "$R"); do
	c0=$(cpu_ms "$pid")
	t0=$(date +%s%3N)
	say "$(floor_sql 0 "F$r-" "$r")" >/dev/null
	t1=$(date +%s%3N)
	c1=$(cpu_ms "$pid")
	if [ "$r" = 0 ]; then
		echo "round 0 (a new connection's first, not counted): $(diff_ms "$c0" "$c1") ms CPU"
		continue
	fi
	echo "round $r: detail layer's writes by hand (DELETE 180 by key, INSERT 1,090 joined, rolled back): $(diff_ms "$c0" "$c1") ms CPU, $((t1 - t0)) ms wall"
	all+=("$(diff_ms "$c0" "$c1")")
done
echo "floor, median of $R rounds: $(printf '%s\n' "${all[@]}" | med) ms CPU"
if [ "${DV_BENCH_MV:-1}" = 1 ]; then
	c0=$(cpu_ms "$pid")
	t0=$(date +%s%3N)
	say "SET max_parallel_workers_per_gather = 0; REFRESH MATERIALIZED VIEW mv.doc_dwd_order_detail; REFRESH MATERIALIZED VIEW mv.doc_ads_category_gmv; REFRESH MATERIALIZED VIEW mv.doc_ads_category_rank; RESET max_parallel_workers_per_gather;" >/dev/null
	t1=$(date +%s%3N)
	c1=$(cpu_ms "$pid")
	echo "REFRESH MATERIALIZED VIEW x3 (no parallel workers): $(diff_ms "$c0" "$c1") ms CPU, $((t1 - t0)) ms wall"
fi
echo '\q' >&"${P[1]}"
