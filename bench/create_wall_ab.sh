#!/usr/bin/env bash
# bench/create_wall_ab.sh — creation wall time of TPC-H tables vs CREATE MATERIALIZED VIEW plus
# the same index, builds alternated in one run (issue 14).  Per round and build: the cluster
# stopped, the build's dynview.so installed, the cluster started; then per query, each step a new
# connection: the query evaluated once (result discarded), CREATE MATERIALIZED VIEW timed,
# create_dynamic_table timed, the view given the index dynview built on its table (timed), verify(),
# the view dropped.  Times in the server (bench_ms of a DV_BENCH_KEEP=1 bench/tpch.sh database);
# one line per creation with the load average.  The dynamic tables dt.q<N> are dropped and
# created again (left as the last build made them).
# Usage: eval "$(scripts/cluster.sh env)"; DV_PGBIN=... DV_PORT=... \
#        bench/create_wall_ab.sh ROUNDS "Q ..." a.so b.so [...]     (DB: DV_BENCH_DB, default dv_bench_tpch_10000)
# Restarts the cluster (scripts/cluster.sh) and overwrites the installed dynview.so. Not a test.
set -euo pipefail
ROUNDS=$1
QS=$2
shift 2
REPO=$(cd "$(dirname "$0")/.." && pwd)
PGBIN=${DV_PGBIN:-/usr/lib/postgresql/15/bin}
LIB=$("$PGBIN/pg_config" --pkglibdir)
export PGDATABASE=${DV_BENCH_DB:-dv_bench_tpch_10000}
q() { psql -X -q -At "$@"; }
for r in $(seq 1 "$ROUNDS"); do
	for so in "$@"; do
		bash "$REPO/scripts/cluster.sh" stop >/dev/null
		cp "$so" "$LIB/dynview.so"
		bash "$REPO/scripts/cluster.sh" start >/dev/null
		for n in $QS; do
			q -c "SET client_min_messages = warning" -c "DROP MATERIALIZED VIEW IF EXISTS mv.ab$n" \
			  -c "SELECT dynview.drop_dynamic_table('dt.q$n') FROM dynview.dynamic_tables WHERE name = to_regclass('dt.q$n')" >/dev/null
			q -c "DO \$\$ BEGIN EXECUTE (SELECT format('SELECT count(*) FROM (%s) s', sql) FROM queries WHERE q = $n); END \$\$" >/dev/null
			mv=$(q -c "SELECT round(public.bench_ms(format('CREATE MATERIALIZED VIEW mv.ab%s AS %s', q, sql))::numeric) FROM queries WHERE q = $n")
			dv=$(q -c "SET client_min_messages = warning" -c "SELECT round(public.bench_ms(format('SELECT dynview.create_dynamic_table(%L, %L, schedule => %L)', 'dt.q' || q, sql, 'manual'))::numeric) FROM queries WHERE q = $n")
			ix=$(q -c "SELECT round(COALESCE(sum(public.bench_ms(regexp_replace(pg_get_indexdef(i.indexrelid), '^CREATE (UNIQUE )?INDEX \S+ ON \S+', 'CREATE \1INDEX ON mv.ab$n'))), 0)::numeric) FROM pg_index i WHERE i.indrelid = 'dt.q$n'::regclass")
			v=$(q -c "SELECT dynview.verify('dt.q$n')")
			echo "round=$r build=$(basename "$so") q=$n dynview_ms=$dv mv_ms=$mv index_ms=$ix ratio=$(q -c "SELECT round($dv / ($mv + $ix)::numeric, 2)") verified=$v load=$(cut -d' ' -f1 /proc/loadavg) $(date -u +%H:%M:%S)"
			q -c "DROP MATERIALIZED VIEW IF EXISTS mv.ab$n" >/dev/null
		done
	done
done
