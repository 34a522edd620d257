#!/usr/bin/env bash
# bench/issue14.sh — issue 14's figures from one run, one after the other on one cluster and build
# (cost parity with plain PostgreSQL), each part an existing bench script whose whole output is kept:
#   1. full:     bench/full.sh 1000000 — the build vs CREATE MATERIALIZED VIEW + unique index, and the
#                FULL refresh vs REFRESH MATERIALIZED VIEW, plain and CONCURRENTLY (the dashboard's
#                detail layer with LEFT JOIN, without and with a primary key)
#   2. decoder:  DV_BENCH_ONLY=rate bench/capture.sh — the decoder's CPU against one writer's, on
#                untracked and on tracked WAL; the refresh right after creating a 0.9M-row table
#   3. pipeline: bench/pipeline.sh 1000000 10000000 — the three-layer dashboard's build vs CREATE
#                MATERIALIZED VIEW + unique indexes, and its refresh (on demand and by the scheduler
#                worker) vs REFRESH MATERIALIZED VIEW of the three views, at 1M and 10M orders
#   4. cpu:      bench/refresh_cpu.sh N 7, on demand and by the scheduler worker, at 1M and 10M — the
#                backend CPU of a pipeline refresh (issue 14's <= 10 ms)
#   5. steady:   bench/shared_buffers_pipeline.sh at the run's own shared_buffers, 9 rounds, 1M and 10M —
#                the same pipeline refreshes on a server in use: restarted, every buffer's memory
#                touched once, WAL segments ready, the pipeline databases read into shared_buffers;
#                the databases are those part 3 built and part 4 changed (so it needs them)
#   6. tpch:     bench/tpch.sh 10000 1 on a database loaded in this run — the 22 TPC-H queries' creation
#                and refresh ratios against materialized views at scale factor 1
# Usage: eval "$(scripts/cluster.sh env)"; bench/issue14.sh [out-dir] [part ...]
#        parts default to all six, in that order.  Databases are kept (DV_BENCH_KEEP=1) except that
#        an existing dv_bench_tpch_10000 / dv_bench_pipeline_<N> / dv_bench_full_1000000 is dropped
#        first, so that every build figure is of this run.  DV_BENCH_REUSE=1 keeps existing ones.
#        Takes about an hour on a quiet 2-core machine (the 10M load and verify() are most of it).
# Prints each part's summary lines and where its whole log is.  Needs a running cluster with dynview
# and pg_cron preloaded, on this machine (parts read /proc of the server's processes). Not a test.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-$(mktemp -d)}
shift || true
parts=("$@")
[ ${#parts[@]} -eq 0 ] && parts=(full decoder pipeline cpu steady tpch)
mkdir -p "$OUT"
drop() {
	[ "${DV_BENCH_REUSE:-0}" = 1 ] && return 0
	psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $1 WITH (FORCE)" >/dev/null
}
run() {
	local name=$1; shift
	local t0 t1 rc
	echo "== $name: $* ($(date -u +%H:%M:%S) UTC, load $(cut -d' ' -f1-3 /proc/loadavg))"
	t0=$(date +%s)
	"$@" >"$OUT/$name.log" 2>&1; rc=$?
	t1=$(date +%s)
	echo "   rc $rc in $((t1 - t0)) s, load $(cut -d' ' -f1-3 /proc/loadavg); log $OUT/$name.log"
	grep -E 'ratio|x$|[0-9]x[ ,;]|median|verify|rate|geometric|caught up|build' "$OUT/$name.log" | sed 's/^/   /' | tail -40
}
echo "issue 14, one run: $(git -C "$here/.." rev-parse --short HEAD 2>/dev/null) on $(hostname), $(nproc) cores," \
	"$(psql -X -At -d postgres -c 'SHOW server_version'), shared_buffers $(psql -X -At -d postgres -c 'SHOW shared_buffers')," \
	"huge pages free/total $(awk '/HugePages_Free/{f=$2} /HugePages_Total/{t=$2} END{print f"/"t}' /proc/meminfo); out $OUT"
for p in "${parts[@]}"; do
	case $p in
	full) drop dv_bench_full_1000000
		run full env DV_BENCH_KEEP=1 DV_BENCH_ROUNDS=3 bash "$here/full.sh" 1000000 ;;
	decoder) run decoder env DV_BENCH_ONLY=rate bash "$here/capture.sh" ;;
	pipeline) drop dv_bench_pipeline_1000000; drop dv_bench_pipeline_10000000
		run pipeline env DV_BENCH_KEEP=1 DV_BENCH_ROUNDS=3 DV_BENCH_VERIFY=last bash "$here/pipeline.sh" 1000000 10000000 ;;
	cpu) for n in 1000000 10000000; do
			run "cpu_$n" bash "$here/refresh_cpu.sh" "$n" 7
			run "cpu_sched_$n" env DV_BENCH_SCHEDULER=1 bash "$here/refresh_cpu.sh" "$n" 7
		done ;;
	steady) run steady bash "$here/shared_buffers_pipeline.sh" "$(psql -X -At -d postgres -c 'SHOW shared_buffers')" 9 1000000 10000000 ;;
	tpch) drop dv_bench_tpch_10000
		run tpch env DV_BENCH_KEEP=1 bash "$here/tpch.sh" 10000 1 ;;
	*) echo "unknown part $p (full, decoder, pipeline, cpu, steady, tpch)" >&2; exit 2 ;;
	esac
done
echo "issue 14, one run: done $(date -u +%H:%M:%S) UTC"
