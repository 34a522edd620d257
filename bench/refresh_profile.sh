#!/usr/bin/env bash
# bench/refresh_profile.sh — where one backend's CPU goes in a refresh (issue 14), on this machine
# where PostgreSQL's binary is stripped and built without frame pointers: `perf record -e cpu-clock
# -a --call-graph dwarf` (the stacks unwound from DWARF, so inclusive shares are right; a
# frame-pointer profile gives garbage callers, and flat self-time names of PostgreSQL's static
# functions are the nearest exported symbol, not the function), then the samples of the refreshing
# backend alone (`perf script --pid`), folded:
#   - inclusive share per function (dynview's functions and PostgreSQL's exported ones),
#   - for each of dynview's steps (the pipeline's bookkeeping, each layer's apply, the window reads,
#     the history rows), its share and what it spends it on one or two frames down.
# Each round refreshes the same pending window inside BEGIN ... ROLLBACK in one warm connection
# (as bench/refresh_ab.sh), so the rounds repeat the same work; make a change first and leave it
# pending (wait_for_capture), and VACUUM after (rolled-back refreshes leave dead index entries).
# DV_BENCH_NEW=1: each round is the first refresh of a new connection instead (perf keeps running
# between them; the report takes every round's backend).  DV_BENCH_COMMIT=1: the refresh commits
# (then each round needs its own change: use it for a no-change pipeline, whose fixed cost it shows).
# Usage: eval "$(scripts/cluster.sh env)"; bench/refresh_profile.sh DB TABLE [rounds] [out-dir]
# Needs perf and the server on this machine, and a few hundred MB in out-dir. Not a test.
set -euo pipefail
DB=${1:?usage: bench/refresh_profile.sh DB TABLE [rounds] [out-dir]}
T=${2:?table}
R=${3:-15}
OUT=${4:-$(mktemp -d)}
mkdir -p "$OUT"
cpu() { awk '{printf "%.1f\n", $1 / 1e6}' "/proc/$1/schedstat"; }
if [ "${DV_BENCH_COMMIT:-0}" = 1 ]; then
	REFRESH="SELECT refresh_mode FROM dynview.refresh('$T');"
else
	REFRESH="BEGIN; SELECT refresh_mode FROM dynview.refresh('$T'); ROLLBACK;"
fi
pids=()
cpus=()
start_backend() {
	coproc P { psql -X -q -At -v ON_ERROR_STOP=1 -d "$DB"; }
	echo "SELECT pg_backend_pid();" >&"${P[1]}"
	read -r pid <&"${P[0]}"
	pids+=("$pid")
}
refresh() {
	local a b
	a=$(cpu "$pid")
	echo "$REFRESH" >&"${P[1]}"
	read -r mode <&"${P[0]}"
	b=$(cpu "$pid")
	cpus+=("$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.1f", b - a}')")
}
stop_backend() { echo '\q' >&"${P[1]}"; wait "$P_PID" 2>/dev/null || true; }
if [ "${DV_BENCH_NEW:-0}" != 1 ]; then
	start_backend
	# warm: the backend's caches and kept statements
	for _ in 1 2 3; do refresh; done
	pids=("$pid")
	cpus=()
fi
echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
perf record -e cpu-clock -F 1999 -a --call-graph dwarf,32768 -o "$OUT/perf.data" >/dev/null 2>&1 &
perf_pid=$!
sleep 0.5
for _ in $(seq 1 "$R"); do
	if [ "${DV_BENCH_NEW:-0}" = 1 ]; then
		start_backend
		refresh
		stop_backend
	else
		refresh
	fi
done
kill -INT "$perf_pid"
wait "$perf_pid" || true
[ "${DV_BENCH_NEW:-0}" = 1 ] || stop_backend
echo "mode $mode; backend CPU per refresh, ms: ${cpus[*]}; median $(printf '%s\n' "${cpus[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'); load $(cut -d' ' -f1-3 /proc/loadavg)"
perf script -i "$OUT/perf.data" --pid "$(IFS=,; echo "${pids[*]}")" 2>/dev/null >"$OUT/stacks.txt"
python3 - "$OUT/stacks.txt" "$R" <<'PY'
import collections, sys
samples, cur = [], None
for line in open(sys.argv[1], errors='replace'):
    if 'cpu-clock' in line:
        if cur is not None:
            samples.append(cur)
        cur = []
    elif line.strip() and cur is not None:
        parts = line.split(None, 2)
        if len(parts) >= 2 and parts[1] != '[unknown]':
            cur.append(parts[1].split('+')[0])
if cur:
    samples.append(cur)
n = len(samples)
rounds = int(sys.argv[2])
print(f"{n} samples of the backend(s) ({n / 1999 * 1000 / rounds:.1f} ms per refresh at 1999 Hz)")
inclusive = collections.Counter()
for s in samples:
    inclusive.update(set(s))
skip = ('_start', 'main', 'Postgres', 'Postmaster', '__libc', 'irq', 'sysvec', 'ipi')
print("inclusive share per function (top 60):")
shown = 0
for f, c in inclusive.most_common():
    if f.startswith(skip) or f in ('main',):
        continue
    print(f"  {100 * c / n:5.1f}%  {f}")
    shown += 1
    if shown == 60:
        break
steps = ['dv_refresh_pipeline', 'follow_renames', 'definition_changed', 'dv_catalog_record_success',
         'dv_refresh_one', 'dv_history_insert', 'read_window', 'apply_spj', 'dv_agg_state_apply',
         'apply_window', 'refresh_as_is', 'dv_write_own_buffer', 'GetCachedPlan', 'CommitTransactionCommand']
for step in steps:
    below = collections.Counter()
    total = 0
    for s in samples:
        if step in s:
            total += 1
            i = s.index(step)
            below[' > '.join(reversed(s[max(0, i - 2):i]))] += 1
    if total == 0:
        continue
    print(f"{step}: {100 * total / n:.1f}%")
    for k, v in below.most_common(8):
        print(f"    {100 * v / n:5.1f}%  {k or '(itself)'}")
PY
echo "perf data and stacks in $OUT"
