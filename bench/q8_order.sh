#!/usr/bin/env bash
# bench/q8_order.sh — TPC-H Q8 at SF1: what its refresh would cost with the changed lineitems joined
# to orders before part (issue 13; fourteenth session, s14-q8). Not a test; measures, changes no code.
# On bench/tpch.sh's database (dv_bench_tpch_<scale>, dt.q8 and mv.q8 made), it creates dt.q8_lo: Q8
# with its FROM list written "lineitem, orders, part, ..." (connected_order then joins lineitem,
# orders, part, supplier, customer, n1, region, n2 instead of part, lineitem, orders, ...), and then
# for R rounds, alternating, each in a new connection, inside BEGIN ... ROLLBACK (so every refresh
# applies the same pending window), CPU of the backend from /proc/<pid>/schedstat:
#   - mv:        REFRESH MATERIALIZED VIEW mv.q8 (its parallel workers are not counted)
#   - q8, q8_lo: dynview.refresh(), the connection's first refresh and its second
#   - q8@1.1, q8_lo@1.1: the same with random_page_cost = 1.1 in the session (probe_cheaper and
#     the planner then probe orders_pkey / part_pkey by key instead of reading the table whole)
# Each connection first evaluates the query once (bench/tpch.sh's footing: part read through a
# ring buffer, so not resident). A third refresh in each connection, not timed, is checked with
# dynview.verify() inside its transaction.
# Usage: eval "$(scripts/cluster.sh env)"; make a change to the sources (bench/tpch.sh's kind) and leave
#        it pending; bench/q8_order.sh [scale] [rounds]       (default 10000 3)
set -euo pipefail
SCALE=${1:-10000}
ROUNDS=${2:-3}
DB=dv_bench_tpch_$SCALE
. "$(dirname "$0")/lib.sh"

if [ "$(q -c "SELECT to_regclass('dt.q8_lo') IS NULL")" = t ]; then
	echo "dt.q8_lo is made now: make a change and run again (its window starts now)"
	q -c "SET client_min_messages = warning" -c "SELECT dynview.create_dynamic_table('dt.q8_lo',
		regexp_replace(sql, 'from part, supplier, lineitem, orders,', 'from lineitem, orders, part, supplier,'),
		schedule => 'manual') FROM queries WHERE q = 8" >/dev/null
	exit 0
fi
warm="DO \$\$ BEGIN EXECUTE (SELECT format('SELECT count(*) FROM (%s) s', sql) FROM queries WHERE q = 8); END \$\$;"
# one connection: SET, the warm-up, the statement twice (CPU of each), then once more with the check
# (not timed: verify evaluates the query); prints "first second ok"
one() {
	local set=$1 stmt=$2 check=$3 pid a b c
	coproc P { psql -X -q -At -v ON_ERROR_STOP=1 -d "$DB"; }
	echo "SET client_min_messages = warning; $set SELECT pg_backend_pid(); $warm SELECT 1;" >&"${P[1]}"
	read -r pid <&"${P[0]}"; read -r _ <&"${P[0]}"
	a=$(cpu_ms "$pid"); echo "BEGIN; $stmt; SELECT 1; ROLLBACK;" >&"${P[1]}"; read -r _ <&"${P[0]}"
	b=$(cpu_ms "$pid"); echo "BEGIN; $stmt; SELECT 1; ROLLBACK;" >&"${P[1]}"; read -r _ <&"${P[0]}"
	c=$(cpu_ms "$pid")
	echo "BEGIN; $stmt; SELECT $check; ROLLBACK;" >&"${P[1]}"; read -r ok <&"${P[0]}"
	echo '\q' >&"${P[1]}"
	wait "$P_PID" 2>/dev/null || true
	echo "$(diff_ms "$a" "$b") $(diff_ms "$b" "$c") $ok"
}
declare -A first second
variants="mv q8 q8_lo q8@1.1 q8_lo@1.1"
for r in $(seq 1 "$ROUNDS"); do
	for v in $variants; do
		t=${v%@*}; set=
		[ "$v" != "$t" ] && set="SET random_page_cost = 1.1;"
		if [ "$t" = mv ]; then
			out=$(one "" "REFRESH MATERIALIZED VIEW mv.q8" "true")
		else
			out=$(one "$set" "SELECT FROM dynview.refresh('dt.$t') OFFSET 1" "dynview.verify('dt.$t')")
		fi
		read -r f s ok <<<"$out"
		[ "$ok" = t ] || { echo "round $r $v: verify said $ok" >&2; exit 1; }
		first[$v]="${first[$v]:-} $f"; second[$v]="${second[$v]:-} $s"
		echo "round $r $(date -u +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg) $v: first $f, second $s ms CPU"
	done
done
for v in $variants; do
	echo "$v: CPU ms, medians of $ROUNDS: first $(printf '%s\n' ${first[$v]} | med), second $(printf '%s\n' ${second[$v]} | med) (first:${first[$v]}; second:${second[$v]})"
done
