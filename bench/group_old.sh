#!/usr/bin/env bash
# bench/group_old.sh — the backend CPU of one refresh of given dynamic tables over one pending
# change, for an A/B of two builds (install one, restart, run; install the other, restart, run):
# one warm connection, a warm-up refresh checked with dynview.verify() inside its transaction,
# then R refreshes, each inside BEGIN ... ROLLBACK (the same window every time), the backend's
# CPU from its own /proc/self/schedstat around each; median, min and max. Written for the grouped
# subquery's old groups derived from sums (tenth session, s10-q18: TPC-H Q18).
# Usage: eval "$(scripts/cluster.sh env)"
#        bench/group_old.sh DB [rounds] table ...
#        e.g. on a DV_BENCH_KEEP=1 bench/tpch.sh 1000 database after a change of its sources:
#        bench/group_old.sh dv_bench_tpch_1000 9 dt.q18
# Needs a superuser (pg_read_file of /proc). Not a test.
set -euo pipefail
DB=${1:?usage: bench/group_old.sh DB [rounds] table ...}
R=${2:-9}
shift 2
. "$(dirname "$0")/lib.sh"
echo "database $DB, $R rounds, load: $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%H:%M) UTC"
cpu="SELECT 'cpu ' || split_part(pg_read_file('/proc/self/schedstat'), ' ', 1);"
for t in "$@"; do
	{
		echo "SET client_min_messages = warning; BEGIN;"
		echo "SELECT 'mode ' || refresh_mode FROM dynview.refresh('$t');"
		echo "SELECT 'verified ' || dynview.verify('$t'); ROLLBACK;"
		for r in $(seq 1 "$R"); do
			echo "BEGIN;"
			echo "$cpu"
			echo "SELECT 'refreshed ' || refresh_mode FROM dynview.refresh('$t');"
			echo "$cpu"
			echo "ROLLBACK;"
		done
	} | q | awk -v t="$t" '
		/^mode / {mode = $2} /^verified / {ver = $2}
		/^cpu / {if (have) {a[++n] = ($2 - c0) / 1e6; have = 0} else {c0 = $2; have = 1}}
		END {for (i = 2; i <= n; i++) {x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x}
		     printf "| %s | %s | %s | %.1f | %.1f | %.1f |\n", t, mode, ver, a[int((n + 1) / 2)], a[1], a[n]}'
done
