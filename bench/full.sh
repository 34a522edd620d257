#!/usr/bin/env bash
# bench/full.sh — cost of recomputing (issue 14), as ratios in one run:
#   1. build: dynview.create_dynamic_table (FULL mode) vs CREATE MATERIALIZED VIEW plus its unique index,
#      for the table without primary_key ("detail": dynview derives order_id as its key through the
#      LEFT JOIN on doc_products' primary key, analyze/keys.c) and with primary_key => order_id ("detail_k")
#   2. FULL refresh after a small change (1,000 new orders + 100 updated + 100 deleted) of both
#      tables vs REFRESH MATERIALIZED VIEW and REFRESH MATERIALIZED VIEW CONCURRENTLY of the same query
#   The query: the sales dashboard's detail layer with LEFT JOIN (orders x products, bench/pipeline.sh).
# Usage: eval "$(scripts/cluster.sh env)"; bench/full.sh [orders...]   (default: 1000000)
#        DV_BENCH_ROUNDS (default 3): changes per size; medians reported.
#        DV_BENCH_PARALLEL (default: the server's max_parallel_workers_per_gather) for both sides.
#        DV_BENCH_KEEP=1: keep the database (dv_bench_full_<orders>) afterwards.
# Needs a running cluster with dynview preloaded. Not a test.
set -euo pipefail
SIZES=("${@:-1000000}")
ROUNDS=${DV_BENCH_ROUNDS:-3}
PAR=${DV_BENCH_PARALLEL:-}
. "$(dirname "$0")/lib.sh"
now_ms() { date +%s%3N; }
setpar() { [ -n "$PAR" ] && echo "SET max_parallel_workers_per_gather = $PAR;" || true; }
timed() { local t0 t1; t0=$(now_ms); q -c "$(setpar) $1" >/dev/null; t1=$(now_ms); echo $((t1 - t0)); }
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
quiesce() {
	q -c "SELECT dynview.wait_for_capture('30 minutes')" -c "VACUUM ANALYZE" >/dev/null
	for _ in $(seq 1 600); do
		[ "$(q -c "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'autovacuum worker' AND datname = current_database()")" = 0 ] && break
		sleep 1
	done
	q -c "SELECT dynview.wait_for_capture('30 minutes')" -c "CHECKPOINT" >/dev/null
	q -c "SET client_min_messages = warning" -c "CREATE EXTENSION IF NOT EXISTS pg_prewarm" -c "SELECT sum(pg_prewarm(c.oid, 'read')) FROM pg_class c
		WHERE c.relkind IN ('r', 'i', 'm', 't') AND c.relpersistence = 'p' AND pg_relation_size(c.oid) > 0" >/dev/null
}
for N in "${SIZES[@]}"; do
	DB=dv_bench_full_$N
	DWD="SELECT o.order_id, o.user_id, o.product_id, p.product_name, p.category, p.brand, o.quantity, o.unit_price, o.amount, o.order_time, o.status FROM public.doc_orders o LEFT JOIN public.doc_products p ON o.product_id = p.product_id WHERE o.status = 'completed'"
	psql -X -q -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" -c "CREATE DATABASE $DB" >/dev/null
	q -c "CREATE EXTENSION dynview" -c "SELECT dynview.wait_for_capture()" >/dev/null
	q <<SQL
SET client_min_messages = warning;
CREATE TABLE doc_products (product_id text PRIMARY KEY, product_name text, category text, brand text);
INSERT INTO doc_products SELECT 'P' || g, 'product ' || g, 'category ' || (g % 50), 'brand ' || (g % 300)
  FROM generate_series(1, 10000) g;
CREATE TABLE doc_orders (order_id text PRIMARY KEY, user_id text, product_id text, quantity int,
                         unit_price numeric(10,2), amount numeric(10,2), order_time timestamp, status text);
INSERT INTO doc_orders SELECT 'O' || g, 'U' || (g % 100000), 'P' || (1 + g % 10000), 1 + g % 5,
       (10 + g % 490)::numeric(10,2), ((1 + g % 5) * (10 + g % 490))::numeric(10,2),
       timestamp '2026-01-01' + g * interval '1 second', CASE WHEN g % 10 = 0 THEN 'cancelled' ELSE 'completed' END
  FROM generate_series(1, $N) g;
VACUUM ANALYZE doc_orders, doc_products;
SQL
	quiesce
	t_build=$(timed "SET client_min_messages = warning; SELECT dynview.create_dynamic_table('detail', \$q\$$DWD\$q\$, schedule => 'manual', refresh_mode => 'FULL')")
	t_wait_after_build=$(timed "SELECT dynview.refresh('detail')")
	quiesce
	t_build_k=$(timed "SET client_min_messages = warning; SELECT dynview.create_dynamic_table('detail_k', \$q\$$DWD\$q\$, schedule => 'manual', refresh_mode => 'FULL', primary_key => ARRAY['order_id'])")
	quiesce
	t_mv_build=$(timed "CREATE MATERIALIZED VIEW mv_detail AS $DWD; CREATE UNIQUE INDEX ON mv_detail (order_id)")
	keyinfo=$(q -c "SELECT string_agg(pg_get_indexdef(indexrelid), '; ') FROM pg_index WHERE indrelid IN ('detail'::regclass, 'detail_k'::regclass)")
	dv=(); dvk=(); mv=(); mvc=(); ok=t
	for r in $(seq 1 "$ROUNDS"); do
		q <<SQL
INSERT INTO doc_orders SELECT 'N$r-' || g, 'U' || g, 'P' || (1 + (g * 7 + $r) % 10000), 2, 50.00, 100.00, now(), 'completed'
  FROM generate_series(1, 1000) g;
UPDATE doc_orders SET quantity = quantity + 1, amount = amount + unit_price WHERE order_id IN (SELECT 'O' || (g * 997 + $r) FROM generate_series(1, 100) g);
DELETE FROM doc_orders WHERE order_id IN (SELECT 'O' || (g * 991 + 1 + 3 * $r) FROM generate_series(1, 100) g);
SQL
		quiesce
		dv+=("$(timed "SELECT dynview.refresh('detail')")")
		[ "$(q -c "SELECT dynview.verify('detail')")" = t ] || ok=f
		hist=$(q -c "SELECT refresh_mode || ' -' || rows_deleted || ' +' || rows_inserted FROM dynview.refresh_history('detail', 1)")
		quiesce
		dvk+=("$(timed "SELECT dynview.refresh('detail_k')")")
		[ "$(q -c "SELECT dynview.verify('detail_k')")" = t ] || ok=f
		quiesce
		mv+=("$(timed "REFRESH MATERIALIZED VIEW mv_detail")")
		quiesce
		mvc+=("$(timed "REFRESH MATERIALIZED VIEW CONCURRENTLY mv_detail")")
	done
	t_dv=$(median "${dv[@]}"); t_dvk=$(median "${dvk[@]}"); t_mv=$(median "${mv[@]}"); t_mvc=$(median "${mvc[@]}")
	echo "orders=$N rows=$(q -c 'SELECT count(*) FROM detail') index: $keyinfo"
	r() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", a/b}'; }
	echo "  build: dynview ${t_build} ms, with key ${t_build_k} ms (next refresh ${t_wait_after_build} ms); CREATE MATERIALIZED VIEW + unique index ${t_mv_build} ms; ratios $(r "$t_build" "$t_mv_build"), with key $(r "$t_build_k" "$t_mv_build")"
	echo "  FULL refresh (median of $ROUNDS; last: $hist, verify=$ok): dynview ${t_dv} ms (${dv[*]}), with key ${t_dvk} ms (${dvk[*]}); REFRESH MV ${t_mv} ms (${mv[*]}); CONCURRENTLY ${t_mvc} ms (${mvc[*]})"
	echo "  ratios: dynview / REFRESH MV $(r "$t_dv" "$t_mv"), with key $(r "$t_dvk" "$t_mv"); dynview / CONCURRENTLY $(r "$t_dv" "$t_mvc"), with key $(r "$t_dvk" "$t_mvc")"
	[ "${DV_BENCH_KEEP:-0}" = 1 ] || psql -X -q -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)"
done
