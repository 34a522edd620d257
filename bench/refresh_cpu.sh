#!/usr/bin/env bash
# bench/refresh_cpu.sh — CPU time of one backend per pipeline refresh of the sales dashboard
# (issue 14), on a database kept by DV_BENCH_KEEP=1 bench/pipeline.sh <orders>: on a machine
# shared with other work, wall times are noise; the backend's CPU time is not: read from
# /proc/<pid>/schedstat (nanoseconds, printed to 0.1 ms) where the kernel has it, else from
# /proc/<pid>/stat (ticks of 10 ms).  Each round: another connection makes the pipeline.sh change (1,000 new
# orders, 100 updated, 100 deleted) and waits for the decoder; then the backend refreshes the
# pipeline (rank layer, upstreams first), then refreshes it again with nothing changed.
# Usage: eval "$(scripts/cluster.sh env)"; bench/refresh_cpu.sh [orders] [rounds]
#        DV_BENCH_PERF=file: also `perf record -g` the backend over the rounds into file.
#        DV_BENCH_DB=name: another database of pipeline.sh (dv_bench_pipeline_<orders>_left for
#        DV_BENCH_JOIN=left).
# Needs the server on this machine. Not a test.
set -euo pipefail
N=${1:-1000000}
R=${2:-5}
DB=${DV_BENCH_DB:-dv_bench_pipeline_$N}
export PATH="/usr/lib/postgresql/15/bin:$PATH"
q() { psql -X -q -At -v ON_ERROR_STOP=1 -d "$DB" "$@"; }
if [ -r /proc/self/schedstat ]; then
	cpu_ms() { awk '{printf "%.1f\n", $1 / 1e6}' "/proc/$1/schedstat"; }
else
	cpu_ms() { awk '{print ($14 + $15) * 10}' "/proc/$1/stat"; }
fi
diff_ms() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.1f", b - a}'; }
coproc P { psql -X -q -At -v ON_ERROR_STOP=1 -d "$DB"; }
# run SQL in the measured backend, wait for it to finish
say() {
	local l
	echo "$1 SELECT 'done';" >&"${P[1]}"
	while read -r l <&"${P[0]}"; do [ "$l" = done ] && break; echo "$l"; done
}
echo "SELECT pg_backend_pid();" >&"${P[1]}"; read -r pid <&"${P[0]}"
say "SELECT dynview.refresh('doc_ads_category_rank');" >/dev/null
perf_pid=
if [ -n "${DV_BENCH_PERF:-}" ]; then
	perf record -F 999 -g -p "$pid" -o "$DV_BENCH_PERF" >/dev/null 2>&1 &
	perf_pid=$!
fi
echo "orders=$N load: $(cut -d' ' -f1-3 /proc/loadavg)"
all=()
for r in $(seq 1 "$R"); do
	q -c "INSERT INTO doc_orders SELECT 'cpu$r-$$-' || g, 'U' || g, 'P' || (1 + (g * 7 + $r) % 10000), 2, 50.00, 100.00, now(), 'completed' FROM generate_series(1, 1000) g;
UPDATE doc_orders SET quantity = quantity + 1, amount = amount + unit_price WHERE order_id IN (SELECT 'O' || (g * 997 + 50 + $r) FROM generate_series(1, 100) g);
DELETE FROM doc_orders WHERE order_id IN (SELECT 'O' || (g * 991 + 7 + 3 * $r) FROM generate_series(1, 100) g);" \
		-c "SELECT dynview.wait_for_capture('10 minutes')" >/dev/null
	c0=$(cpu_ms "$pid")
	say "SELECT dynview.refresh('doc_ads_category_rank');" >/dev/null
	c1=$(cpu_ms "$pid")
	say "SELECT dynview.refresh('doc_ads_category_rank');" >/dev/null
	c2=$(cpu_ms "$pid")
	modes=$(q -c "SELECT string_agg(table_name || '=' || refresh_mode || ':' || round(duration_ms::numeric, 1) || 'ms', ' ' ORDER BY refresh_id)
		FROM (SELECT * FROM dynview.refresh_history WHERE refresh_mode <> 'NO_DATA' ORDER BY refresh_id DESC LIMIT 3) h")
	echo "round $r: pipeline refresh $(diff_ms "$c0" "$c1") ms CPU ($modes); no-change refresh $(diff_ms "$c1" "$c2") ms CPU"
	all+=("$(diff_ms "$c0" "$c1")")
done
echo "pipeline refresh CPU, median of $R rounds: $(printf '%s\n' "${all[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}') ms (first round, a new connection's, included)"
[ -n "$perf_pid" ] && { kill -INT "$perf_pid"; wait "$perf_pid" || true; }
echo '\q' >&"${P[1]}"
echo "verify: $(q -c "SELECT dynview.verify('doc_dwd_order_detail') AND dynview.verify('doc_ads_category_gmv') AND dynview.verify('doc_ads_category_rank')")"
