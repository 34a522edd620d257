#!/usr/bin/env bash
# bench/refresh_ab.sh — two or more builds of dynview.so compared on one database and one window
# (issue 14): for each build in turn, install it into the private PostgreSQL (DV_PGBIN's), restart
# the cluster, VACUUM the database (a rolled-back refresh leaves dead rows and index entries in the
# dynamic tables, which make every later refresh dearer: without it whichever build runs later
# loses), warm shared buffers with one refresh, then measure backend CPU (/proc/<pid>/schedstat) of
#   - N new connections' first refresh and their second one (as bench/refresh_fixed.sh), and
#   - W more refreshes in one warm connection,
# each inside BEGIN ... ROLLBACK, so every refresh of every build applies the same pending window.
# Medians per build and block; alternate the builds (a b a b ...) to see the machine's drift.
# Usage: eval "$(scripts/cluster.sh env)"; make a change to the sources first (left pending), then
#        bench/refresh_ab.sh DB TABLE [N] [W] -- build1.so build2.so build1.so build2.so ...
#        e.g. bench/refresh_ab.sh dv_bench_pipeline_1000000_left doc_ads_category_rank 7 15 -- /tmp/main.so /tmp/branch.so ...
# A build whose extension SQL differs (a function's language, say) comes with BUILD.so.sql beside it:
# when that file exists, it is run in the database after the build's restart (e.g. CREATE OR
# REPLACE FUNCTION of what the build's script defines otherwise).
# Restarts the cluster (scripts/cluster.sh): only for a private one. Not a test.
set -euo pipefail
DB=${1:?usage: bench/refresh_ab.sh DB TABLE [N] [W] -- build.so ...}
T=${2:?table}
N=${3:-7}
W=${4:-15}
shift $(($# < 4 ? $# : 4))
[ "${1:-}" = -- ] && shift
HERE=$(cd "$(dirname "$0")" && pwd)
LIB=$("${DV_PGBIN:?DV_PGBIN: the private PostgreSQL}/pg_config" --pkglibdir)
cpu() { awk '{printf "%.1f\n", $1 / 1e6}' "/proc/$1/schedstat"; }
med() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
REFRESH="BEGIN; SELECT refresh_mode FROM dynview.refresh('$T'); ROLLBACK;"
for so in "$@"; do
	bash "$HERE/../scripts/cluster.sh" stop >/dev/null
	install -m 755 "$so" "$LIB/dynview.so"
	bash "$HERE/../scripts/cluster.sh" start >/dev/null
	[ -f "$so.sql" ] && psql -X -q -v ON_ERROR_STOP=1 -d "$DB" -f "$so.sql" >/dev/null
	psql -X -q -d "$DB" -c "SELECT dynview.wait_for_capture('10 minutes')" -c "VACUUM" >/dev/null
	psql -X -q -d "$DB" -c "BEGIN" -c "SELECT dynview.refresh('$T')" -c "ROLLBACK" >/dev/null
	first=(); second=(); warm=(); mode=
	for _ in $(seq 1 "$N"); do
		coproc P { psql -X -q -At -v ON_ERROR_STOP=1 -d "$DB"; }
		ppid=$P_PID
		echo "SELECT pg_backend_pid();" >&"${P[1]}"; read -r pid <&"${P[0]}"
		for k in 1 2; do
			a=$(cpu "$pid"); echo "$REFRESH" >&"${P[1]}"; read -r mode <&"${P[0]}"; b=$(cpu "$pid")
			d=$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.1f", b - a}')
			if [ "$k" = 1 ]; then first+=("$d"); else second+=("$d"); fi
		done
		if [ "${#warm[@]}" = 0 ]; then
			for _ in $(seq 1 "$W"); do
				a=$(cpu "$pid"); echo "$REFRESH" >&"${P[1]}"; read -r mode <&"${P[0]}"; b=$(cpu "$pid")
				warm+=("$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.1f", b - a}')")
			done
		fi
		echo '\q' >&"${P[1]}"
		wait "$ppid" 2>/dev/null || true
	done
	echo "$(basename "$so") $(date -u +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg) mode $mode: CPU ms, medians: first in a new connection $(printf '%s\n' "${first[@]}" | med), its second $(printf '%s\n' "${second[@]}" | med), warm $(printf '%s\n' "${warm[@]}" | med) (first: ${first[*]})"
done
