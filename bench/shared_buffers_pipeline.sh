#!/usr/bin/env bash
# bench/shared_buffers_pipeline.sh — the dashboard pipeline's per-refresh cost under several
# shared_buffers settings, in one run (issue 14): for each setting, `ALTER SYSTEM SET
# shared_buffers`, the cluster restarted (scripts/cluster.sh restart: run it with the
# DV_PORT/DV_PGBIN of the cluster scripts/cluster.sh env named), then for each size the
# pipeline.sh database's relations read into the OS cache (pg_prewarm 'read'), its tables and
# indexes but the materialized views' loaded into shared_buffers (pg_prewarm 'buffer', as much as
# fits; every buffer's memory touched once before, as on a server in use), and bench/refresh_cpu.sh: R committed pipeline refreshes on demand in one warm
# connection, then R by the scheduler worker (DV_BENCH_SCHEDULER=1), then both again with the
# change spread (DV_BENCH_SPREAD=1: the orders updated and deleted move 13 each round, as in
# pipeline_profile.sh and checkpoint_pipeline.sh).  At the end shared_buffers
# and min_wal_size are set back to what ALTER SYSTEM had set before the run (or reset if it had
# not set them) and the cluster restarted.  The K-th setting's
# rounds change other orders than the others' (DV_BENCH_OFFSET = base + 1000 K; base from the
# environment, default 0: give another base for another run on the same databases).  Whether the shared
# memory is in huge pages (huge_pages = try) is printed with each setting: the kernel must hold
# enough of them (/proc/sys/vm/nr_hugepages; `postgres -C shared_memory_size_in_huge_pages`).
# WAL segments are made ready too, as on a server in use (thirty-first session): min_wal_size is
# set to 1GB for the run (reset at the end), and 80 segments are made (pg_switch_wal) and then
# recycled by a checkpoint.  Otherwise the refresh whose WAL crosses into a segment that does not
# exist yet creates it and writes its 16 MB of zeros (XLogFileInit, about 2 ms of its CPU); with
# the default min_wal_size (80MB) and this bench's bursts, one round in five to ten did.
# Usage: eval "$(scripts/cluster.sh env)"; bench/shared_buffers_pipeline.sh "128MB 6GB" [rounds] [orders ...]
#        (orders default 1000000; each a DV_BENCH_KEEP=1 bench/pipeline.sh database)
# Needs the server on this machine, run by scripts/cluster.sh. Not a test.
set -euo pipefail
SETTINGS=(${1:?usage: shared_buffers_pipeline.sh "SETTING ..." [rounds] [orders ...]})
R=${2:-9}
shift 2 || shift $#
SIZES=("${@:-1000000}")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
huge() { awk '/HugePages_Total/{t=$2} /HugePages_Free/{f=$2} END{print "huge pages in use " t - f " of " t}' /proc/meminfo; }
restart() { bash "$HERE/../scripts/cluster.sh" restart >/dev/null; }
# every buffer's memory written once after the restart, as on a server in use: an unlogged table
# of one row a page, as many pages as shared_buffers has buffers, inserted (into shared_buffers)
# and dropped.  Otherwise a refresh that takes a buffer never used since the start pays the
# kernel's first touch of its memory (a 2 MB huge page zeroed, or a 4 kB page), which the
# twenty-eighth session's profiles found in about half the rounds (bench/README.md).
touch_buffers() {
	DB=postgres q -c "SET client_min_messages = warning" -c "DROP TABLE IF EXISTS dv_bench_touch" \
		-c "CREATE UNLOGGED TABLE dv_bench_touch (x text) WITH (fillfactor = 10)" \
		-c "INSERT INTO dv_bench_touch SELECT repeat('x', 1000) FROM generate_series(1, (SELECT setting::int FROM pg_settings WHERE name = 'shared_buffers'))" \
		-c "DROP TABLE dv_bench_touch" >/dev/null
}
# WAL segments ready for the rounds' WAL: made by segment switches (a row written before each, so
# that each switch has something to close), then a checkpoint recycles them under min_wal_size
ready_wal() {
	DB=postgres q -c "DROP TABLE IF EXISTS dv_bench_wal" -c "CREATE TABLE dv_bench_wal (x int)" >/dev/null
	for i in $(seq 1 80); do
		DB=postgres q -c "INSERT INTO dv_bench_wal VALUES ($i)" -c "SELECT pg_switch_wal()" >/dev/null
	done
	DB=postgres q -c "DROP TABLE dv_bench_wal" -c "CHECKPOINT" >/dev/null
}
# what ALTER SYSTEM had set before the run (empty: not set), put back at the end
auto() { DB=postgres q -c "SELECT setting FROM pg_file_settings WHERE name = '$1' AND sourcefile LIKE '%/postgresql.auto.conf' AND applied"; }
was_sb=$(auto shared_buffers)
was_mw=$(auto min_wal_size)
put_back() { if [ -n "$2" ]; then echo "ALTER SYSTEM SET $1 = '$2'"; else echo "ALTER SYSTEM RESET $1"; fi; }
DB=postgres q -c "ALTER SYSTEM SET min_wal_size = '1GB'" >/dev/null
k=0
for s in "${SETTINGS[@]}"; do
	# (each setting's rounds update and delete other orders: refresh_cpu.sh's DV_BENCH_OFFSET)
	k=$((k + 1))
	DB=postgres q -c "ALTER SYSTEM SET shared_buffers = '$s'" >/dev/null
	restart
	touch_buffers
	ready_wal
	echo "== shared_buffers $(DB=postgres q -c 'SHOW shared_buffers'), min_wal_size $(DB=postgres q -c 'SHOW min_wal_size'), $(ls "$(DB=postgres q -c 'SHOW data_directory')/pg_wal" | grep -c '^[0-9A-F]\{24\}$') WAL segments; $(huge); load $(cut -d' ' -f1-3 /proc/loadavg)"
	for N in "${SIZES[@]}"; do
		DB=dv_bench_pipeline_$N
		q -c "SET client_min_messages = warning" -c "CREATE EXTENSION IF NOT EXISTS pg_prewarm" >/dev/null
		q -c "SELECT sum(pg_prewarm(c.oid, 'read')) FROM pg_class c
			WHERE c.relkind IN ('r', 'i', 'm', 't') AND c.relpersistence = 'p' AND pg_relation_size(c.oid) > 0" >/dev/null
		pages=$(q -c "SELECT sum(pg_prewarm(c.oid, 'buffer')) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
			WHERE c.relkind IN ('r', 'i', 't') AND c.relpersistence = 'p' AND n.nspname <> 'mv' AND pg_relation_size(c.oid) > 0")
		echo "-- $N orders: $pages pages read into shared_buffers ($(q -c "SELECT pg_size_pretty($pages * 8192::bigint)"))"
		DV_BENCH_OFFSET=$((${DV_BENCH_OFFSET:-0} + 1000 * k)) DV_BENCH_VERIFY=0 bash "$HERE/refresh_cpu.sh" "$N" "$R"
		DV_BENCH_OFFSET=$((${DV_BENCH_OFFSET:-0} + 1000 * k)) DV_BENCH_VERIFY=0 DV_BENCH_SCHEDULER=1 bash "$HERE/refresh_cpu.sh" "$N" "$R"
		DV_BENCH_OFFSET=$((${DV_BENCH_OFFSET:-0} + 1000 * k)) DV_BENCH_VERIFY=0 DV_BENCH_SPREAD=1 bash "$HERE/refresh_cpu.sh" "$N" "$R"
		DV_BENCH_OFFSET=$((${DV_BENCH_OFFSET:-0} + 1000 * k)) DV_BENCH_VERIFY=0 DV_BENCH_SPREAD=1 DV_BENCH_SCHEDULER=1 bash "$HERE/refresh_cpu.sh" "$N" "$R"
		echo "   verify: $(q -c "SELECT dynview.verify('doc_ads_category_gmv') AND dynview.verify('doc_ads_category_rank')") (the GMV and rank layers; the detail layer's verify() is left to pipeline.sh)"
	done
done
DB=postgres q -c "$(put_back shared_buffers "$was_sb")" -c "$(put_back min_wal_size "$was_mw")" >/dev/null
restart
echo "shared_buffers back to $(DB=postgres q -c 'SHOW shared_buffers'), min_wal_size $(DB=postgres q -c 'SHOW min_wal_size')"
