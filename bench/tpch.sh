#!/usr/bin/env bash
# bench/tpch.sh — the 22 TPC-H queries as dynamic tables (refresh_mode auto) against materialized
# views of the same queries (issue 13), in one run:
#   - creation: create_dynamic_table vs CREATE MATERIALIZED VIEW, per query, and vs the view plus
#     the same index dynview built on its table (issue 14: like with like);
#   - after a change of 0.1% of the orders (new orders with their lineitems, and as many orders
#     deleted with theirs): dynview.refresh() of each table vs REFRESH MATERIALIZED VIEW, per query,
#     each pair preceded by one evaluation of the query (result discarded) so that both find its
#     pages in cache, the materialized view refreshed first, then the dynamic table, then
#     dynview.verify() (after both timings: it no longer warms the cache for one side only);
#   - the ratio MV / dynview per query, and their geometric mean over the INCREMENTAL ones.
# The schema, the data generator and the queries are those of the regress test test/sql/tpch.sql
# (read from it, so that both stay one); tpch_load(scale) loads 150*scale orders (scale 10000 is
# about TPC-H scale factor 1: 1.5M orders, 6M lineitems). Indexes as a TPC-H run would have on the
# join columns, in addition to the primary keys.
# Usage: eval "$(scripts/cluster.sh env)"; bench/tpch.sh [scale] [rounds]     (default 10000 1)
#        DV_BENCH_KEEP=1 keeps the database (dv_bench_tpch_<scale>) and reuses it when it exists.
# Times are measured in the server (clock_timestamp() around the statement). Not a test.
set -euo pipefail
SCALE=${1:-10000}
ROUNDS=${2:-1}
KEEP=${DV_BENCH_KEEP:-0}
DB=dv_bench_tpch_$SCALE
SRC=$(cd "$(dirname "$0")/.." && pwd)/test/sql/tpch.sql
. "$(dirname "$0")/lib.sh"

# (a database is reused once its load finished: it has public.bench_result; the queries not
# created yet are created)
if [ "$KEEP" = 1 ] && [ "$(psql -X -At -d "$DB" -c "SELECT to_regclass('public.bench_result') IS NOT NULL" 2>/dev/null)" = t ]; then
	echo "reusing database $DB"
else
	bench_new_db
	psql -X -q -c "ALTER DATABASE $DB SET search_path = tpch, public" >/dev/null
	# the test's schema and generator (up to its own small load), then the queries
	sed -n '/^CREATE SCHEMA tpch;/,/^SELECT tpch_load(2);/p' "$SRC" | grep -v '^SELECT tpch_load(2);' | q >/dev/null
	sed -n '/^CREATE TABLE queries/,/^group by cntrycode order by cntrycode\$q\$);/p' "$SRC" | q >/dev/null
	t0=$(date +%s)
	q -c "SET client_min_messages = warning" -c "SELECT tpch_load($SCALE)" >/dev/null
	q <<'SQL' >/dev/null
CREATE INDEX ON lineitem (l_partkey, l_suppkey);
CREATE INDEX ON lineitem (l_suppkey);
CREATE INDEX ON orders (o_custkey);
CREATE INDEX ON partsupp (ps_suppkey);
CREATE INDEX ON customer (c_nationkey);
CREATE INDEX ON supplier (s_nationkey);
CREATE INDEX ON nation (n_regionkey);
VACUUM ANALYZE;
CREATE SCHEMA mv;
CREATE SCHEMA dt;
CREATE TABLE public.bench_result (q int, phase text, what text, ms float8, mode text, reason text, verified boolean);
SQL
	echo "loaded scale $SCALE in $(( $(date +%s) - t0 )) s: $(q -c "SELECT count(*) FROM orders") orders, $(q -c "SELECT count(*) FROM lineitem") lineitems"
fi
for n in $(seq 1 22); do
	[ "$(q -c "SELECT count(*) FROM public.bench_result WHERE q = $n AND phase = 'create'")" = 3 ] && continue
	q -c "SET client_min_messages = warning" -c "DELETE FROM public.bench_result WHERE q = $n" \
	  -c "DROP MATERIALIZED VIEW IF EXISTS mv.q$n" -c "SELECT dynview.drop_dynamic_table('dt.q$n') FROM dynview.dynamic_tables WHERE name = to_regclass('dt.q$n')" >/dev/null
	q -c "SET client_min_messages = warning" -c "INSERT INTO public.bench_result
		SELECT $n, 'create', 'mv', public.bench_ms(format('CREATE MATERIALIZED VIEW mv.q%s AS %s', q, sql)), NULL, NULL, NULL
		  FROM queries WHERE q = $n" >/dev/null
	q -c "SET client_min_messages = warning" -c "INSERT INTO public.bench_result
		SELECT $n, 'create', 'dynview', public.bench_ms(format('SELECT dynview.create_dynamic_table(%L, %L, schedule => %L)', 'dt.q' || q, sql, 'manual')),
		       NULL, NULL, NULL
		  FROM queries WHERE q = $n" >/dev/null
	q -c "UPDATE public.bench_result r SET mode = d.effective_mode, reason = d.mode_reason_code
		FROM dynview.dynamic_tables d WHERE d.name = 'dt.q$n'::regclass AND r.q = $n AND r.phase = 'create' AND r.what = 'dynview'" >/dev/null
	# like with like (issue 14): the view gets the index dynview built on its table (the key it
	# derived: unique where dynview made it so), timed apart ('mv_index'; 0 when there is none)
	q -c "INSERT INTO public.bench_result
		SELECT $n, 'create', 'mv_index', COALESCE(sum(public.bench_ms(regexp_replace(pg_get_indexdef(i.indexrelid),
		         '^CREATE (UNIQUE )?INDEX \S+ ON \S+', 'CREATE \1INDEX ON mv.q$n'))), 0), NULL, NULL, NULL
		  FROM pg_index i WHERE i.indrelid = 'dt.q$n'::regclass" >/dev/null
done
q -c "DELETE FROM public.bench_result WHERE phase LIKE 'refresh%'" >/dev/null

base=$(q -c "SELECT max(o_orderkey) FROM orders")
n_change=$(q -c "SELECT greatest(1, count(*) / 1000) FROM orders")
for r in $(seq 1 "$ROUNDS"); do
	q -c "SELECT dynview.wait_for_capture('30 minutes')" -c "VACUUM ANALYZE" -c "CHECKPOINT" >/dev/null
	# 0.1% of the orders: new ones with their lineitems, and as many deleted with theirs
	q -c "SET client_min_messages = warning" \
	  -c "SELECT tpch_orders($base + 1, $base + $n_change, 30 * $SCALE, 75 * $SCALE, greatest(10, 4 * $SCALE))" \
	  -c "DELETE FROM lineitem WHERE l_orderkey IN (SELECT o_orderkey FROM orders WHERE o_orderkey <= $base ORDER BY o_orderkey OFFSET $((r * 7)) LIMIT $n_change)" \
	  -c "DELETE FROM orders o WHERE o_orderkey <= $base AND NOT EXISTS (SELECT FROM lineitem l WHERE l.l_orderkey = o.o_orderkey)" >/dev/null
	base=$((base + n_change))
	q -c "SELECT dynview.wait_for_capture('30 minutes')" >/dev/null
	for n in $(seq 1 22); do
		# Same footing for both: the query is evaluated once first (result discarded), so that
		# both refreshes find its pages in cache; then REFRESH MATERIALIZED VIEW, then
		# dynview.refresh(), then verify() (which evaluates the query again, after both timings).
		q -c "DO \$\$ BEGIN EXECUTE (SELECT format('SELECT count(*) FROM (%s) s', sql) FROM queries WHERE q = $n); END \$\$" >/dev/null
		q -c "INSERT INTO public.bench_result SELECT $n, 'refresh $r', 'mv', public.bench_ms('REFRESH MATERIALIZED VIEW mv.q$n'), NULL, NULL, NULL" >/dev/null
		q -c "SET client_min_messages = warning" -c "INSERT INTO public.bench_result
			SELECT $n, 'refresh $r', 'dynview', public.bench_ms('SELECT dynview.refresh(''dt.q$n'')'), NULL, NULL, NULL" >/dev/null
		q -c "SET client_min_messages = warning" -c "UPDATE public.bench_result r SET mode = h.refresh_mode, reason = h.mode_reason_code,
			verified = dynview.verify('dt.q$n')
			FROM dynview.refresh_history('dt.q$n', 1) h WHERE r.q = $n AND r.phase = 'refresh $r' AND r.what = 'dynview'" >/dev/null
	done
done

# (whether the server's shared memory is in huge pages decides much of a new connection's first
# refresh: doc/configuration.md "Recommended: huge pages"; PostgreSQL 15 does not report it, the
# kernel's counters do)
echo "huge_pages = $(q -c "SHOW huge_pages"), shared_memory_size_in_huge_pages = $(q -c "SHOW shared_memory_size_in_huge_pages"); kernel: $(grep -E '^HugePages_(Total|Free|Rsvd):' /proc/meminfo 2>/dev/null | tr -s ' ' | tr '\n' ' ')"
echo "orders: $(q -c "SELECT count(*) FROM orders"), lineitems: $(q -c "SELECT count(*) FROM lineitem"), change: $n_change orders inserted and $n_change deleted (with their lineitems) per round"
q -F ' | ' <<'SQL'
SELECT '| q | mode at creation (reason) | create: dynview ms / MV ms | MV + same index ms: ratio | refresh mode (reason) | refresh: dynview ms | REFRESH MATERIALIZED VIEW ms | MV / dynview | verified |';
SELECT '|---|---|---|---|---|---|---|---|---|';
SELECT format('| %s | %s%s | %s / %s = %sx | %s: %sx | %s%s | %s | %s | %s | %s |', c.q, c.mode, COALESCE(' (' || c.reason || ')', ''),
              round(c.ms::numeric), round(m.ms::numeric), round((c.ms / m.ms)::numeric, 2),
              round((m.ms + COALESCE(mi.ms, 0))::numeric), round((c.ms / (m.ms + COALESCE(mi.ms, 0)))::numeric, 2),
              d.mode, COALESCE(' (' || d.reason || ')', ''), round(d.ms::numeric, 1), round(v.ms::numeric, 1),
              round((v.ms / d.ms)::numeric, 1) || 'x', d.verified)
  FROM public.bench_result c
  JOIN public.bench_result m ON m.q = c.q AND m.phase = 'create' AND m.what = 'mv'
  LEFT JOIN public.bench_result mi ON mi.q = c.q AND mi.phase = 'create' AND mi.what = 'mv_index'
  JOIN public.bench_result d ON d.q = c.q AND d.phase LIKE 'refresh%' AND d.what = 'dynview'
  JOIN public.bench_result v ON v.q = c.q AND v.phase = d.phase AND v.what = 'mv'
 WHERE c.phase = 'create' AND c.what = 'dynview'
 ORDER BY c.q, d.phase;
SELECT format('INCREMENTAL refreshes: %s of %s; faster than REFRESH MATERIALIZED VIEW: %s; geometric mean MV / dynview over them: %sx; all verified: %s; creation geometric mean dynview / MV: %sx, dynview / (MV + the same index): %sx',
              count(*) FILTER (WHERE d.mode = 'INCREMENTAL'), count(*),
              count(*) FILTER (WHERE d.mode = 'INCREMENTAL' AND d.ms < v.ms),
              round(exp(avg(ln(v.ms / d.ms)) FILTER (WHERE d.mode = 'INCREMENTAL'))::numeric, 1),
              bool_and(d.verified),
              (SELECT round(exp(avg(ln(c.ms / m.ms)))::numeric, 2) FROM public.bench_result c JOIN public.bench_result m
                 ON m.q = c.q AND m.phase = 'create' AND m.what = 'mv' WHERE c.phase = 'create' AND c.what = 'dynview'),
              (SELECT round(exp(avg(ln(c.ms / (m.ms + COALESCE(mi.ms, 0)))))::numeric, 2) FROM public.bench_result c
                 JOIN public.bench_result m ON m.q = c.q AND m.phase = 'create' AND m.what = 'mv'
                 LEFT JOIN public.bench_result mi ON mi.q = c.q AND mi.phase = 'create' AND mi.what = 'mv_index'
               WHERE c.phase = 'create' AND c.what = 'dynview'))
  FROM public.bench_result d JOIN public.bench_result v ON v.q = d.q AND v.phase = d.phase AND v.what = 'mv'
 WHERE d.phase LIKE 'refresh%' AND d.what = 'dynview';
SQL
[ "$KEEP" = 1 ] || psql -X -q -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)"
