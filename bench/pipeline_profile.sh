#!/usr/bin/env bash
# bench/pipeline_profile.sh — where a warm, committed refresh of the dashboard pipeline goes, per
# dynview step (issue 14), on a DV_BENCH_KEEP=1 bench/pipeline.sh database: each round makes the
# pipeline.sh change (1,000 new orders, 100 updated, 100 deleted; other orders each round), waits
# for capture, and refreshes the rank layer (upstreams first) in one warm connection, committed,
# while `perf record -a --call-graph dwarf` runs (as bench/refresh_profile.sh: this PostgreSQL is
# stripped and has no frame pointers); the refreshing backend's samples are then classified by
# step (detail layer: window read, SQL generation, hash of doc_products, the statements, the C
# consolidation, its change buffer; GMV layer; rank layer; history; bookkeeping; commit) in ms per
# refresh.  Committed rounds, unlike refresh_profile.sh's rolled-back ones, leave no dead rows in
# the change buffers that the next round's window reads would visit.  BASE (default 1000) offsets
# the orders changed: use another one for each run on the same database.
# Usage: eval "$(scripts/cluster.sh env)"; bench/pipeline_profile.sh [orders] [rounds] [out-dir]
#        DV_BENCH_DB=name as for refresh_cpu.sh.  Needs perf and the server on this machine. Not a test.
set -euo pipefail
N=${1:-1000000}
R=${2:-20}
OUT=${3:-$(mktemp -d)}
BASE=${BASE:-1000}
DB=${DV_BENCH_DB:-dv_bench_pipeline_$N}
mkdir -p "$OUT"
. "$(dirname "$0")/lib.sh"
coproc P { psql -X -q -At -v ON_ERROR_STOP=1 -d "$DB"; }
echo "SELECT pg_backend_pid();" >&"${P[1]}"; read -r pid <&"${P[0]}"
change() { pipeline_change pp "$1"; }
refresh() { echo "SELECT refresh_mode FROM dynview.refresh('doc_ads_category_rank');" >&"${P[1]}"; read -r mode <&"${P[0]}"; }
# two warm-up rounds: the backend's caches and kept statements
change 0; refresh; change 1; refresh
echo "database $DB, $R rounds, load $(cut -d' ' -f1-3 /proc/loadavg)"
perf record -e cpu-clock -F 1999 -a --call-graph dwarf,32768 -o "$OUT/perf.data" >/dev/null 2>&1 &
perf_pid=$!
sleep 0.5
cpus=()
for r in $(seq 2 $((R + 1))); do
	change "$r"
	a=$(cpu_ms "$pid"); refresh; b=$(cpu_ms "$pid")
	cpus+=("$(diff_ms "$a" "$b")")
done
kill -INT "$perf_pid"
wait "$perf_pid" || true
echo '\q' >&"${P[1]}"
echo "mode $mode; backend CPU per refresh, ms: ${cpus[*]}; median $(printf '%s\n' "${cpus[@]}" | med); load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "verify: $(q -c "SELECT dynview.verify('doc_dwd_order_detail') AND dynview.verify('doc_ads_category_gmv') AND dynview.verify('doc_ads_category_rank')")"
perf script -i "$OUT/perf.data" --pid "$pid" 2>/dev/null >"$OUT/stacks.txt"
python3 - "$OUT/stacks.txt" "$R" <<'PY'
import collections, re, sys
samples, cur, times = [], None, []
for line in open(sys.argv[1], errors='replace'):
    if 'cpu-clock' in line:
        if cur is not None: samples.append(cur)
        cur = []
        # the sample's time, for the gaps between refreshes (the change is made between them)
        m = re.search(r'\s(\d+\.\d+):\s', line)
        times.append(float(m.group(1)) if m else 0.0)
    elif line.strip() and cur is not None:
        parts = line.split(None, 2)
        if len(parts) >= 2 and parts[1] != '[unknown]':
            cur.append(parts[1].split('+')[0])
if cur: samples.append(cur)
n = len(samples); R = int(sys.argv[2]); msper = n / 1999 * 1000 / R
def cls(s):
    st = set(s)
    if 'dv_refresh_pipeline' not in st: 
        if 'CommitTransactionCommand' in st: return 'commit'
        return 'outside pipeline (psql protocol, parse, etc)'
    layer = '?'
    # find the refresh step
    if 'apply_spj' in st:
        layer = 'detail'
        if 'dv_write_own_buffer' in st: return 'detail: own buffer write (for GMV)'
        # the direct apply (apply.c): no statement
        if 'sort_step' in st: return 'detail: rows sorted by key (direct apply)'
        if 'delete_step' in st: return 'detail: direct delete (index lookup, heap delete)'
        if 'update_step' in st: return 'detail: direct update (index lookup, heap update)'
        if 'insert_step' in st: return 'detail: direct insert (multi-insert, index entries)'
        if 'ExecInsert' in st or 'ExecModifyTable' in st:
            if 'ExecDelete' in st: return 'detail: DELETE'
            if 'ExecInsert' in st: 
                if 'ExecInsertIndexTuples' in st: return 'detail: INSERT index'
                return 'detail: INSERT heap/other'
            return 'detail: modify other'
        if 'consolidate_delta' in st or 'register_net' in st: return 'detail: consolidate/register (C)'
        if 'dv_delta_sql' in st: return 'detail: dv_delta_sql (SQL text gen)'
        if 'GetCachedPlan' in st: return 'detail: planning'
        if 'MultiExecHash' in st: return 'detail: delta hash build (products)'
        if 'exec_statement_params' in st: return 'detail: delta statement (other)'
        return 'detail: other'
    if 'read_window' in st:
        # the layer whose apply the samples saw last (they are in time order): a layer's window
        # is read before its apply, detail, GMV, rank in turn
        return {'start': 'detail', 'detail': 'gmv', 'gmv': 'rank', 'rank': 'detail'}[phase] + ': window read'
    if 'refresh_as_is' in st or 'dv_agg_state_apply' in st:
        if 'dv_full_refresh_restricted' in st: return 'gmv: restricted recompute/apply'
        return 'gmv: state (delta, MERGE)'
    if 'apply_window' in st: return 'rank: apply'
    if 'dv_history_insert' in st: return 'history'
    if 'read_and_apply' in st: return 'read_and_apply other'
    return 'bookkeeping (pipeline, catalog, signatures)'
c = collections.Counter()
phase = 'start'
prev = None
for s, t in zip(samples, times):
    st = set(s)
    # a gap of over 20 ms: the next round's refresh (a layer with no sample of its apply in a
    # round must not make the next round's first window read look like its own)
    if prev is not None and t - prev > 0.02:
        phase = 'start'
    prev = t
    c[cls(s)] += 1
    if 'apply_spj' in st:
        phase = 'detail'
    elif 'dv_agg_state_apply' in st:
        phase = 'gmv'
    elif 'apply_window' in st:
        phase = 'rank'
for k, v in sorted(c.items(), key=lambda x: -x[1]):
    print(f"{100*v/n:5.1f}%  {v/n*msper:5.2f} ms  {k}")
print(f"{n} samples, {msper:.1f} ms per refresh")
PY
echo "perf data and stacks in $OUT"
