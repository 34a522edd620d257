#!/usr/bin/env bash
# bench/update_ab.sh — rows updated in place against deleted and inserted, in one run (issue 14):
# on a DV_BENCH_KEEP=1 bench/pipeline.sh database, R rounds each update U orders spread over the
# table (quantity and amount: columns no index of the detail layer holds) and refresh the detail
# layer (doc_dwd_order_detail) in one warm connection, committed; the rounds alternate between the
# detail table as it is (the direct apply updates the rows in place, HOT where the page has room)
# and the table with a constraint CHECK (true) NOT VALID (update_in_place_ok says no: the rows are deleted
# and inserted, as before).  Prints per variant the medians of the refresh's duration_ms and of the
# backend's CPU, the WAL the round wrote, the detail table's HOT updates, and the ratio; verify()
# of the detail layer at the end.
# Usage: eval "$(scripts/cluster.sh env)"; bench/update_ab.sh [orders] [rounds] [updates]
#        DV_BENCH_DB=name, BASE (default 1000; another for another run on the same database).
# Not a test.
set -euo pipefail
N=${1:-1000000}
R=${2:-10}
U=${3:-1000}
BASE=${BASE:-1000}
DB=${DV_BENCH_DB:-dv_bench_pipeline_$N}
. "$(dirname "$0")/lib.sh"
coproc P { psql -X -q -At -v ON_ERROR_STOP=1 -d "$DB"; }
ask() { echo "$1" >&"${P[1]}"; read -r out <&"${P[0]}"; echo "$out"; }
pid=$(ask "SELECT pg_backend_pid();")
q -c "ALTER TABLE doc_dwd_order_detail DROP CONSTRAINT IF EXISTS dv_bench_check" >/dev/null
# round K: U orders, 997 apart, from BASE + 7 K (other orders each round)
change() {
	q -c "UPDATE doc_orders SET quantity = quantity + 1, amount = amount + unit_price
	      WHERE order_id IN (SELECT 'O' || (g * 997 + $BASE + 7 * $1) FROM generate_series(1, $U) g)" \
		-c "SELECT dynview.wait_for_capture('10 minutes')" >/dev/null
}
refresh() { ask "SELECT refresh_mode || ' ' || duration_ms || ' ' || rows_deleted FROM dynview.refresh('doc_dwd_order_detail');"; }
# warm-up: the backend's caches and kept statements
change 0; refresh >/dev/null; change 1; refresh >/dev/null
echo "database $DB, $R rounds of $U updated orders, load $(cut -d' ' -f1-3 /proc/loadavg)"
declare -A dur cpu wal hot
for r in $(seq 2 $((R + 1))); do
	for v in update delete_insert; do
		if [ "$v" = delete_insert ]; then
			q -c "ALTER TABLE doc_dwd_order_detail ADD CONSTRAINT dv_bench_check CHECK (true) NOT VALID" >/dev/null
		fi
		[ "$v" = delete_insert ] && k=$((2 * r + 1)) || k=$((2 * r))
		change "$k"
		h0=$(ask "SELECT pg_stat_get_xact_tuples_hot_updated('doc_dwd_order_detail'::regclass) + pg_stat_get_tuples_hot_updated('doc_dwd_order_detail'::regclass);")
		w0=$(ask "SELECT pg_current_wal_insert_lsn();")
		a=$(cpu_ms "$pid"); res=$(refresh); b=$(cpu_ms "$pid")
		w=$(ask "SELECT pg_current_wal_insert_lsn() - '$w0'::pg_lsn;")
		h1=$(ask "SELECT pg_stat_get_xact_tuples_hot_updated('doc_dwd_order_detail'::regclass) + pg_stat_get_tuples_hot_updated('doc_dwd_order_detail'::regclass);")
		set -- $res
		[ "$1" = INCREMENTAL ] || { echo "round $r $v: $res"; exit 1; }
		dur[$v]+="$2 "; cpu[$v]+="$(diff_ms "$a" "$b") "; wal[$v]+="$w "; hot[$v]+="$((h1 - h0)) "
		if [ "$v" = delete_insert ]; then
			q -c "ALTER TABLE doc_dwd_order_detail DROP CONSTRAINT dv_bench_check" >/dev/null
		fi
	done
done
echo '\q' >&"${P[1]}"
m() { printf '%s\n' $1 | med; }
for v in update delete_insert; do
	echo "$v: duration_ms ${dur[$v]}(median $(m "${dur[$v]}")); CPU ms ${cpu[$v]}(median $(m "${cpu[$v]}")); WAL bytes median $(m "${wal[$v]}"); HOT updates ${hot[$v]}"
done
awk -v a="$(m "${dur[update]}")" -v b="$(m "${dur[delete_insert]}")" -v c="$(m "${cpu[update]}")" -v d="$(m "${cpu[delete_insert]}")" \
	'BEGIN {printf "update / delete_insert: duration %.2f, CPU %.2f\n", a / b, c / d}'
echo "verify: $(q -c "SELECT dynview.verify('doc_dwd_order_detail')")"
