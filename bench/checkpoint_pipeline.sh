#!/usr/bin/env bash
# bench/checkpoint_pipeline.sh — the dashboard pipeline's refresh while a checkpoint writes, against
# plain PostgreSQL's own writes of the same size in the same state (issue 14).  Right after a bulk
# load (bench/issue14.sh's cpu part follows pipeline.sh's 10M load, its three REFRESH MATERIALIZED
# VIEW and verify()) the per-refresh CPU was 1.5-2x what it is on a quiet server; this looks at
# whether that is dynview's or the server's.  On a DV_BENCH_KEEP=1 bench/pipeline.sh database, in
# one warm connection, each round:
#   - the pipeline.sh change (lib.sh pipeline_change: 1,000 new orders, 100 updated, 100 deleted),
#     then dynview's pipeline refresh (rank layer, upstreams first), committed: backend CPU;
#   - the floor (as bench/refresh_floor.sh): the detail layer's writes by hand in a copy of the
#     detail table with its unique index, DELETE of 180 rows by key and INSERT of 1,090 rows joined
#     to doc_products, rolled back: backend CPU.
# Two phases of R rounds: "quiet" (no checkpoint under way), then "checkpoint": REFRESH
# MATERIALIZED VIEW mv.doc_dwd_order_detail rewrites the detail view (about 1 GB at 10M, as a bulk
# load writes; its WAL, over max_wal_size, starts a checkpoint that the checkpointer spreads over
# the next minutes), then the rounds run; each round notes whether the checkpointer was still
# writing when it ended.  Prints each round, the medians per
# phase (rounds of the checkpoint phase after the checkpoint ended are counted apart), and the
# checkpointer's buffers written.
# Usage: eval "$(scripts/cluster.sh env)"; bench/checkpoint_pipeline.sh [orders] [rounds]
#        BASE (default 5000) offsets the orders changed, as for pipeline_profile.sh: another one for
#        each run on the same database.  The first run at 10M copies the detail table (floor_detail,
#        about a minute).  Needs the server on this machine. Not a test.
set -euo pipefail
N=${1:-10000000}
R=${2:-9}
export BASE=${BASE:-5000}
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
writing() { q -c "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'checkpointer' AND wait_event IS DISTINCT FROM 'CheckpointerMain'"; }
written() { q -c "SELECT buffers_checkpoint FROM pg_stat_bgwriter"; }
k=0
round() {
	k=$((k + 1))
	pipeline_change ck "$k"
	local c0 c1 c2
	c0=$(cpu_ms "$pid")
	say "SELECT dynview.refresh('doc_ads_category_rank');" >/dev/null
	c1=$(cpu_ms "$pid")
	say "$(floor_sql "$BASE" "F$BASE-$k-" "$k")" >/dev/null
	c2=$(cpu_ms "$pid")
	dv=$(diff_ms "$c0" "$c1")
	fl=$(diff_ms "$c1" "$c2")
}
# (the connection's first pipeline refresh and floor are not counted: plans, caches)
for w in 1 2; do round; done
echo "orders=$N database $DB, $R rounds a phase, load $(cut -d' ' -f1-3 /proc/loadavg)"
for _ in $(seq 1 600); do [ "$(writing)" = 0 ] && break; sleep 1; done
qd=(); qf=()
for r in $(seq 1 "$R"); do
	round
	echo "quiet round $r: pipeline refresh $dv ms CPU, floor $fl ms CPU, checkpointer writing: $(writing)"
	qd+=("$dv"); qf+=("$fl")
done
b0=$(written)
t0=$(date +%s%3N)
q -c "REFRESH MATERIALIZED VIEW mv.doc_dwd_order_detail" >/dev/null
t1=$(date +%s%3N)
echo "REFRESH MATERIALIZED VIEW mv.doc_dwd_order_detail: $((t1 - t0)) ms; checkpointer writing: $(writing)"
cd_=(); cf=(); ad=(); af=()
for r in $(seq 1 "$R"); do
	round
	wr=$(writing)
	echo "checkpoint round $r: pipeline refresh $dv ms CPU, floor $fl ms CPU, checkpointer writing: $wr"
	if [ "$wr" = 1 ]; then cd_+=("$dv"); cf+=("$fl"); else ad+=("$dv"); af+=("$fl"); fi
done
echo "checkpointer wrote $(($(written) - b0)) buffers in the checkpoint phase"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
m1=$(printf '%s\n' "${qd[@]}" | med); f1=$(printf '%s\n' "${qf[@]}" | med)
echo "quiet, median of ${#qd[@]} rounds: pipeline refresh $m1 ms CPU, floor $f1 ms CPU, pipeline / floor $(ratio "$m1" "$f1")"
if [ ${#cd_[@]} -gt 0 ]; then
	m2=$(printf '%s\n' "${cd_[@]}" | med); f2=$(printf '%s\n' "${cf[@]}" | med)
	echo "while the checkpoint wrote, median of ${#cd_[@]} rounds: pipeline refresh $m2 ms CPU ($(ratio "$m2" "$m1")x quiet), floor $f2 ms CPU ($(ratio "$f2" "$f1")x quiet), pipeline / floor $(ratio "$m2" "$f2")"
fi
if [ ${#ad[@]} -gt 0 ]; then
	m3=$(printf '%s\n' "${ad[@]}" | med); f3=$(printf '%s\n' "${af[@]}" | med)
	echo "after the checkpoint, median of ${#ad[@]} rounds: pipeline refresh $m3 ms CPU, floor $f3 ms CPU"
fi
echo '\q' >&"${P[1]}"
