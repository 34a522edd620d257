#!/usr/bin/env bash
# bench/linear_windows.sh — windows read as they are against consolidated (issue 13, the per-row
# cost of a refresh): each dynamic table refreshed with dynview.linear_windows_as_is on and off,
# alternating in one warm connection, every refresh inside BEGIN ... ROLLBACK so that both apply
# the same window (the change pending when the script starts). Per refresh the backend's CPU
# time (its own /proc/self/schedstat, read by pg_read_file before and after: a figure that holds
# on a machine shared with other work); one warm-up refresh of each setting first (its kept
# statements prepared), checked with dynview.verify() inside its transaction; then R rounds,
# the order of the two settings swapped every round; medians. The refresh mode and whether its
# changes were applied again over consolidated windows (mode_reason) are printed.
# Usage: eval "$(scripts/cluster.sh env)"
#        bench/linear_windows.sh DB [rounds] [table ...]     (default: 7 rounds, every dynamic table)
#        e.g. on a DV_BENCH_KEEP=1 bench/tpch.sh 3000 database, after a change of its sources:
#        bench/linear_windows.sh dv_bench_tpch_3000 7 dt.q1 dt.q6
#        DV_BENCH_SETTING=dynview.window_filter_functions bench/linear_windows.sh ... compares that
#        boolean setting on and off instead (its columns then say "on" and "off").
#        DV_BENCH_ON and DV_BENCH_OFF: the two values set (default on and off), e.g.
#        DV_BENCH_SETTING=plan_cache_mode DV_BENCH_ON=auto DV_BENCH_OFF=force_custom_plan.
# Needs a superuser (pg_read_file of /proc). Not a test.
set -euo pipefail
SETTING=${DV_BENCH_SETTING:-dynview.linear_windows_as_is}
ON_VALUE=${DV_BENCH_ON:-on}
OFF_VALUE=${DV_BENCH_OFF:-off}
value() { if [ "$1" = on ]; then echo "$ON_VALUE"; else echo "$OFF_VALUE"; fi; }
DB=${1:?usage: bench/linear_windows.sh DB [rounds] [table ...]}
R=${2:-7}
shift $(($# < 2 ? $# : 2))
. "$(dirname "$0")/lib.sh"
if [ "$#" -gt 0 ]; then tables=("$@"); else mapfile -t tables < <(q -c "SELECT name::text FROM dynview.dynamic_tables ORDER BY 1"); fi
echo "database $DB, $R rounds, load: $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%H:%M) UTC"
if [ "$SETTING" = dynview.linear_windows_as_is ]; then on="as is"; off="consolidated"; else on="$SETTING $ON_VALUE"; off="$OFF_VALUE"; fi
echo "| table | mode | $on: CPU ms (median) | $off: CPU ms (median) | $on / $off | verified ($on, $off) | mode_reason (applied again) |"
echo "|---|---|---|---|---|---|---|"
cpu="SELECT 'cpu ' || split_part(pg_read_file('/proc/self/schedstat'), ' ', 1);"
for t in "${tables[@]}"; do
	{
		echo "SET client_min_messages = warning;"
		for s in on off; do
			echo "SET $SETTING = $(value "$s"); BEGIN;"
			echo "SELECT 'mode ' || refresh_mode || ' ' || (mode_reason IS NOT NULL) FROM dynview.refresh('$t');"
			echo "SELECT 'verified $s ' || dynview.verify('$t'); ROLLBACK;"
		done
		for r in $(seq 1 "$R"); do
			if [ $((r % 2)) = 1 ]; then order="on off"; else order="off on"; fi
			for s in $order; do
				echo "SET $SETTING = $(value "$s"); BEGIN;"
				echo "$cpu"
				echo "SELECT 'again ' || (mode_reason IS NOT NULL) FROM dynview.refresh('$t');"
				echo "$cpu"
				echo "ROLLBACK; SELECT 'setting $s';"
			done
		done
	} | q > /tmp/linear_windows.$$.out
	awk -v t="$t" '
		/^mode / {mode = $2; again = again $3 " "}
		/^verified on/ {von = $3} /^verified off/ {voff = $3}
		/^again / {again = again $2 " "}
		/^cpu / {if (have) {d = ($2 - c0) / 1e6; have = 0} else {c0 = $2; have = 1}}
		/^setting / {if ($2 == "on") on[++non] = d; else off[++noff] = d}
		function med(a, n,   i, j, x) {for (i = 2; i <= n; i++) {x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x} return a[int((n + 1) / 2)]}
		END {mo = med(on, non); mf = med(off, noff);
		     printf "| %s | %s | %.1f | %.1f | %.2f | %s, %s | %s |\n", t, mode, mo, mf, (mf > 0 ? mo / mf : 0), von, voff,
		            (again ~ /true/ ? "yes" : "no")}' /tmp/linear_windows.$$.out
	rm -f /tmp/linear_windows.$$.out
done
