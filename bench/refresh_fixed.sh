#!/usr/bin/env bash
# bench/refresh_fixed.sh — the fixed cost of a refresh (issue 14): each dynamic table refreshed as
# the first statement of a new connection (what bench/tpch.sh times), then again in the same
# connection, both inside BEGIN ... ROLLBACK so that every round refreshes the same window
# (the change pending when the script starts) and two builds can be compared on one database
# state: install one, run, install the other, run.  Per refresh: the backend's CPU time (from
# /proc/<pid>/schedstat, so the figure holds on a machine shared with other work) and the wall
# time in the server (clock_timestamp() around the refresh) and the backend's minor page faults
# (from /proc/<pid>/stat: a new backend's first touches of memory, a large part of a first
# refresh's CPU on a virtual machine, and a count that does not vary with the machine's load),
# medians over the rounds; the refresh mode is the one refresh() returned.
# Usage: eval "$(scripts/cluster.sh env)"
#        bench/refresh_fixed.sh DB [rounds] [table ...]      (default: 5 rounds, every dynamic table)
#        e.g. on a DV_BENCH_KEEP=1 bench/tpch.sh 1000 database, after a change of its sources:
#        bench/refresh_fixed.sh dv_bench_tpch_1000 5 dt.q6 dt.q14
# Needs the server on this machine. Not a test.
set -euo pipefail
DB=${1:?usage: bench/refresh_fixed.sh DB [rounds] [table ...]}
R=${2:-5}
shift $(($# < 2 ? $# : 2))
. "$(dirname "$0")/lib.sh"
if [ "$#" -gt 0 ]; then tables=("$@"); else mapfile -t tables < <(q -c "SELECT name::text FROM dynview.dynamic_tables ORDER BY 1"); fi
q -c "CREATE OR REPLACE FUNCTION public.bench_refresh(t text) RETURNS text LANGUAGE plpgsql AS \$\$
DECLARE t0 timestamptz := clock_timestamp(); m text;
BEGIN
  SELECT refresh_mode INTO m FROM dynview.refresh(t);
  RETURN round((extract(epoch FROM clock_timestamp() - t0) * 1000)::numeric, 1) || ' ' || m;
END \$\$" >/dev/null
minflt() { sed 's/.*) //' "/proc/$1/stat" | awk '{print $8}'; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "database $DB, $R rounds, load: $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%H:%M) UTC"
echo "| table | mode | first in connection: CPU ms | wall ms | page faults | second: CPU ms | wall ms | page faults |"
echo "|---|---|---|---|---|---|---|---|"
for t in "${tables[@]}"; do
	c1=(); w1=(); c2=(); w2=(); f1=(); f2=(); mode=
	for r in $(seq 1 "$R"); do
		coproc P { psql -X -q -At -v ON_ERROR_STOP=1 -d "$DB"; }
		psql_pid=$P_PID
		echo "SELECT pg_backend_pid();" >&"${P[1]}"
		read -r pid <&"${P[0]}"
		for k in 1 2; do
			a=$(cpu_ms "$pid"); fa=$(minflt "$pid")
			echo "BEGIN; SELECT public.bench_refresh('$t'); ROLLBACK;" >&"${P[1]}"
			read -r out <&"${P[0]}"
			b=$(cpu_ms "$pid"); fb=$(minflt "$pid")
			cpu=$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.1f", b - a}')
			if [ "$k" = 1 ]; then c1+=("$cpu"); w1+=("${out%% *}"); f1+=($((fb - fa))); else c2+=("$cpu"); w2+=("${out%% *}"); f2+=($((fb - fa))); fi
			mode=${out#* }
		done
		echo '\q' >&"${P[1]}"
		wait "$psql_pid" 2>/dev/null || true
	done
	echo "| $t | $mode | $(printf '%s\n' "${c1[@]}" | median) | $(printf '%s\n' "${w1[@]}" | median) | $(printf '%s\n' "${f1[@]}" | median) | $(printf '%s\n' "${c2[@]}" | median) | $(printf '%s\n' "${w2[@]}" | median) | $(printf '%s\n' "${f2[@]}" | median) |"
done
