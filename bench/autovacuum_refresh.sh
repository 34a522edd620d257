#!/usr/bin/env bash
# bench/autovacuum_refresh.sh — dashboard pipeline refreshes while autovacuum works on the dynamic
# tables (issue 14, thirty-second session): for each build in turn, install it into the private
# PostgreSQL (DV_PGBIN's), restart the cluster with autovacuum_naptime = 1s, make autovacuum
# vacuum the three dynamic tables after every refresh (their autovacuum_vacuum_threshold and
# _scale_factor 0), then R committed pipeline refreshes on demand (bench/refresh_cpu.sh: a change of
# 1,000 new orders, 100 updated, 100 deleted each round).  Per build: the pipeline's time in the
# server per round (the three layers' duration_ms), how many rounds took more than 50 ms, how many
# autovacuums of the dynamic tables ran, and how many the server log says were cancelled ("canceling
# autovacuum task": a refresh waited for one past deadlock_timeout).  Before the thirty-second
# session a refresh took ExclusiveLock on its table, which conflicts with autovacuum's
# ShareUpdateExclusiveLock: it waited for the autovacuum of its own table (or had it cancelled).
# The per-table settings and autovacuum_naptime are reset at the end.
# Usage: eval "$(scripts/cluster.sh env)"; bench/autovacuum_refresh.sh [orders] [rounds] -- a.so b.so ...
#        (orders default 1000000: a DV_BENCH_KEEP=1 bench/pipeline.sh database; builds alternated
#        as given; each round's orders differ: DV_BENCH_OFFSET grows per build)
# Restarts the cluster (scripts/cluster.sh): only for a private one. Not a test.
set -euo pipefail
N=${1:-1000000}
R=${2:-60}
shift $(($# < 2 ? $# : 2))
[ "${1:-}" = -- ] && shift
[ $# -gt 0 ] || { echo "usage: bench/autovacuum_refresh.sh [orders] [rounds] -- build.so ..." >&2; exit 2; }
HERE=$(cd "$(dirname "$0")" && pwd)
DB=dv_bench_pipeline_$N
LIB=$("${DV_PGBIN:?DV_PGBIN: the private PostgreSQL}/pg_config" --pkglibdir)
LOG=$(bash "$HERE/../scripts/cluster.sh" status | sed -n 's/^log: *//p')
TABLES="doc_dwd_order_detail doc_ads_category_gmv doc_ads_category_rank"
q() { psql -X -q -At -v ON_ERROR_STOP=1 -d "$DB" "$@"; }
set_tables() {
	for t in $TABLES; do q -c "ALTER TABLE $t $1" >/dev/null; done
}
avcount() { q -c "SELECT sum(autovacuum_count) FROM pg_stat_all_tables WHERE relname IN ('${TABLES// /\',\'}')"; }
psql -X -q -c "ALTER SYSTEM SET autovacuum_naptime = '1s'" >/dev/null
set_tables "SET (autovacuum_vacuum_threshold = 0, autovacuum_vacuum_scale_factor = 0)"
k=0
for so in "$@"; do
	k=$((k + 1))
	bash "$HERE/../scripts/cluster.sh" stop >/dev/null
	install -m 755 "$so" "$LIB/dynview.so"
	bash "$HERE/../scripts/cluster.sh" start >/dev/null
	q -c "SELECT dynview.wait_for_capture('10 minutes')" >/dev/null
	lines0=$(wc -l <"$LOG")
	av0=$(avcount)
	out=$(DV_BENCH_OFFSET=$((k * 7919)) DV_BENCH_VERIFY=0 bash "$HERE/refresh_cpu.sh" "$N" "$R")
	av1=$(avcount)
	cancelled=$(tail -n +"$((lines0 + 1))" "$LOG" | grep -c 'canceling autovacuum task' || true)
	ms=$(echo "$out" | grep '^round ' | grep -v '^round 1:' | grep -oE 'INCREMENTAL:[0-9.]+ms|NO_DATA:[0-9.]+ms|FULL:[0-9.]+ms' |
		sed 's/.*://; s/ms//' | paste -d' ' - - - | awk '{printf "%.1f\n", $1 + $2 + $3}')
	echo "$(basename "$so") $(date -u +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg): $(echo "$ms" | wc -l) rounds after the first," \
		"in the server: median $(echo "$ms" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}') ms," \
		"max $(echo "$ms" | sort -n | tail -1) ms, over 50 ms: $(echo "$ms" | awk '$1 > 50' | wc -l);" \
		"autovacuums of the dynamic tables $((av1 - av0)), cancelled $cancelled"
	echo "$out" | grep '^round ' | grep -v '^round 1:' | paste -d'|' - <(echo "$ms") | awk -F'|' '$2 > 50 {print "   over 50 ms: " $1}'

done
set_tables "RESET (autovacuum_vacuum_threshold, autovacuum_vacuum_scale_factor)"
psql -X -q -c "ALTER SYSTEM RESET autovacuum_naptime" -c "SELECT pg_reload_conf()" >/dev/null
echo "verify: $(q -c "SELECT dynview.verify('doc_dwd_order_detail') AND dynview.verify('doc_ads_category_gmv') AND dynview.verify('doc_ads_category_rank')")"
