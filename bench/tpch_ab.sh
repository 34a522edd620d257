#!/usr/bin/env bash
# bench/tpch_ab.sh — one TPC-H query's refresh on bench/tpch.sh's footing, two or more builds of
# dynview.so compared on one pending window (issue 13).  For each build in turn: install it into
# the private PostgreSQL (DV_PGBIN's), restart the cluster, then R rounds of what bench/tpch.sh
# does per query, each step a new connection: the query evaluated once (result discarded),
# REFRESH MATERIALIZED VIEW mv.qN, then dynview.refresh('dt.qN') as the connection's first
# statement and again as its second, each in BEGIN ... ROLLBACK (so every build applies the same
# window); backend CPU from /proc/<pid>/schedstat, ms.  Unlike bench/refresh_ab.sh no refresh warms
# shared buffers first: the pages a refresh finds there are those the query's evaluation and the
# view's refresh left (TPC-H Q17: part read through a ring buffer by both, so not resident).
# Usage: eval "$(scripts/cluster.sh env)"; a DV_BENCH_KEEP=1 bench/tpch.sh database with a change
#        left pending (its change round, dynamic tables not refreshed), then
#        bench/tpch_ab.sh N [R] -- build1.so build2.so build1.so build2.so ...
# Restarts the cluster (scripts/cluster.sh): only for a private one. Not a test.
set -euo pipefail
N=${1:?usage: bench/tpch_ab.sh N [R] -- build.so ...}
R=${2:-3}
shift $(($# < 2 ? $# : 2))
[ "${1:-}" = -- ] && shift
HERE=$(cd "$(dirname "$0")" && pwd)
DB=dv_bench_tpch_${DV_BENCH_SCALE:-10000}
LIB=$("${DV_PGBIN:?DV_PGBIN: the private PostgreSQL}/pg_config" --pkglibdir)
cpu() { awk '{printf "%.1f\n", $1 / 1e6}' "/proc/$1/schedstat"; }
# run SQL...: one new connection, each argument one line of statements answering one row;
# prints the CPU ms of each
run() {
	local out="" a b res
	coproc P { psql -X -q -At -v ON_ERROR_STOP=1 -d "$DB"; }
	local ppid=$P_PID pid
	echo "SELECT pg_backend_pid();" >&"${P[1]}"; read -r pid <&"${P[0]}"
	for s in "$@"; do
		a=$(cpu "$pid"); echo "$s" >&"${P[1]}"; read -r res <&"${P[0]}"; b=$(cpu "$pid")
		out="$out $(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.1f", b - a}')"
	done
	echo '\q' >&"${P[1]}"
	wait "$ppid" 2>/dev/null || true
	echo "$out"
}
EVAL="DO \$\$ BEGIN EXECUTE (SELECT format('SELECT count(*) FROM (%s) s', sql) FROM tpch.queries WHERE q = $N); END \$\$; SELECT 1;"
REFRESH="BEGIN; SELECT refresh_mode FROM dynview.refresh('dt.q$N'); ROLLBACK;"
for so in "$@"; do
	bash "$HERE/../scripts/cluster.sh" stop >/dev/null
	install -m 755 "$so" "$LIB/dynview.so"
	bash "$HERE/../scripts/cluster.sh" start >/dev/null
	for _ in $(seq 1 "$R"); do
		run "$EVAL" >/dev/null
		mv=$(run "BEGIN; REFRESH MATERIALIZED VIEW mv.q$N; SELECT 1; ROLLBACK;")
		dt=$(run "$REFRESH" "$REFRESH")
		echo "$(basename "$so") $(date -u +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg): REFRESH MATERIALIZED VIEW CPU ms$mv; dt.q$N first, second CPU ms$dt"
	done
done
