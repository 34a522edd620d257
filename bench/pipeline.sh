#!/usr/bin/env bash
# bench/pipeline.sh — the sales-dashboard pipeline (design section 9) on generated data (issue 4):
#   10k products in 50 categories, N orders; a change of 1,000 new orders + 100 updated + 100 deleted.
#   Measured in one run, as ratios:
#     - dynview pipeline refresh (refresh of the rank layer, upstreams first) vs
#       REFRESH MATERIALIZED VIEW of the same three queries as materialized views
#     - the same change at two data sizes (e.g. 1M and 10M orders)
#     - a NO_DATA refresh (nothing changed)
# Usage: eval "$(scripts/cluster.sh env)"; bench/pipeline.sh [orders...]   (default: 1000000)
#        DV_BENCH_ROUNDS (default 3): changes per size; the medians are reported.
#        DV_BENCH_PREWARM (default 1): before each measurement read every relation of the database
#        into the OS cache (pg_prewarm 'read'), as on a server whose data fits its memory and is
#        in use; 0 measures with whatever the cache holds (after a bulk load: the load's leftovers).
#        DV_BENCH_JOIN=left: the detail layer reads doc_products with LEFT JOIN (issue 13's
#        dashboard: an order whose product is missing keeps its row, with NULLs).
#        DV_BENCH_PARTITIONED=1: doc_orders is partitioned by week of order_time (primary key
#        (order_id, order_time), a default partition for the new orders), issue 15.
#        DV_BENCH_SCHEDULER (default 1): each round also makes a second change of the same shape
#        (other orders) and lets the scheduler worker refresh the pipeline (design section 7: a
#        long-lived backend, warm caches, kept statements): the rank layer's schedule is set to
#        '1 second' until the worker's SYSTEM_SCHEDULED history row appears, then to 'manual'
#        again; its time is the pipeline's server-side time (the first layer's RUNNING row,
#        written as the worker starts the pipeline, to the last layer's end), compared with the
#        same round's REFRESH MATERIALIZED VIEW.  0: on-demand refreshes only.
#        DV_BENCH_VERIFY (default each): dynview.verify() of the three tables after every
#        refresh; last: only after the last round's last refresh (its result covers every change
#        before it; at 10M one verify() of the detail layer takes minutes).
#        DV_BENCH_KEEP=1: keep the database (dv_bench_pipeline_<orders>) afterwards, and reuse it
#        (skip the load and the build) when it exists already - for working on the refresh.
# Needs a running cluster with dynview preloaded. Not a test.
set -euo pipefail
SIZES=("${@:-1000000}")
ROUNDS=${DV_BENCH_ROUNDS:-3}
KEEP=${DV_BENCH_KEEP:-0}
JOIN=${DV_BENCH_JOIN:-inner}
case "$JOIN" in inner) JOIN_SQL=JOIN ;; left) JOIN_SQL="LEFT JOIN" ;; *) echo "DV_BENCH_JOIN: inner or left" >&2; exit 2 ;; esac
PREWARM=${DV_BENCH_PREWARM:-1}
PARTITIONED=${DV_BENCH_PARTITIONED:-0}
SCHEDULER=${DV_BENCH_SCHEDULER:-1}
VERIFY=${DV_BENCH_VERIFY:-each}
case "$VERIFY" in each | last) ;; *) echo "DV_BENCH_VERIFY: each or last" >&2; exit 2 ;; esac
export PATH="/usr/lib/postgresql/15/bin:$PATH"
. "$(dirname "$0")/lib.sh"
now_ms() { date +%s%3N; }
timed() { local t0 t1; t0=$(now_ms); q -c "$1" >/dev/null; t1=$(now_ms); echo $((t1 - t0)); }
# before a measurement: the decoder has caught up (it reads all WAL, the materialized views'
# rewrite too), the rewritten views are vacuumed and analysed (else autovacuum does it during the
# next measurement), no autovacuum worker is busy in the database, and a checkpoint is done
quiesce() {
	q -c "SELECT dynview.wait_for_capture('30 minutes')" -c "VACUUM ANALYZE mv.doc_dwd_order_detail, mv.doc_ads_category_gmv, mv.doc_ads_category_rank" >/dev/null
	for _ in $(seq 1 600); do
		[ "$(q -c "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'autovacuum worker' AND datname = current_database()")" = 0 ] && break
		sleep 1
	done
	q -c "SELECT dynview.wait_for_capture('30 minutes')" -c "CHECKPOINT" >/dev/null
}
prewarm() {
	[ "$PREWARM" = 1 ] || return 0
	q -c "SET client_min_messages = warning" -c "CREATE EXTENSION IF NOT EXISTS pg_prewarm" -c "SELECT sum(pg_prewarm(c.oid, 'read')) FROM pg_class c
		WHERE c.relkind IN ('r', 'i', 'm', 't') AND c.relpersistence = 'p' AND pg_relation_size(c.oid) > 0" >/dev/null
}

for N in "${SIZES[@]}"; do
	DB=dv_bench_pipeline_$N$([ "$JOIN" = inner ] || echo "_$JOIN")$([ "$PARTITIONED" = 0 ] || echo "_part")
	if [ "$PARTITIONED" = 1 ]; then
		# weekly partitions over the orders' times (one a second from 2026-01-01), and a default
		ORDERS_DDL="CREATE TABLE doc_orders (order_id text, user_id text, product_id text, quantity int,
                         unit_price numeric(10,2), amount numeric(10,2), order_time timestamp, status text,
                         PRIMARY KEY (order_id, order_time)) PARTITION BY RANGE (order_time);
SELECT format('CREATE TABLE doc_orders_w%s PARTITION OF doc_orders FOR VALUES FROM (%L) TO (%L)',
         w, timestamp '2026-01-01' + w * interval '1 week', timestamp '2026-01-01' + (w + 1) * interval '1 week')
  FROM generate_series(0, $N / 604800) w \\gexec
CREATE TABLE doc_orders_default PARTITION OF doc_orders DEFAULT;"
	else
		ORDERS_DDL="CREATE TABLE doc_orders (order_id text PRIMARY KEY, user_id text, product_id text, quantity int,
                         unit_price numeric(10,2), amount numeric(10,2), order_time timestamp, status text);"
	fi
	DWD="SELECT o.order_id, o.user_id, o.product_id, p.product_name, p.category, p.brand, o.quantity, o.unit_price, o.amount, o.order_time, o.status FROM doc_orders o $JOIN_SQL doc_products p ON o.product_id = p.product_id WHERE o.status = 'completed'"
	GMV="SELECT category, count(DISTINCT order_id) AS order_cnt, sum(quantity) AS total_qty, sum(amount) AS gmv, CAST(sum(amount) / sum(quantity) AS numeric(10,2)) AS avg_price FROM doc_dwd_order_detail GROUP BY category"
	RANK="SELECT rank() OVER (ORDER BY gmv DESC) AS gmv_rank, category, order_cnt, total_qty, gmv, avg_price FROM doc_ads_category_gmv"
	if [ "$KEEP" = 1 ] && [ "$(psql -X -At -c "SELECT count(*) FROM pg_database WHERE datname = '$DB'")" = 1 ]; then
		echo "reusing database $DB"
		t_create=reused
	else
	psql -X -q -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" -c "CREATE DATABASE $DB" >/dev/null
	q -c "CREATE EXTENSION dynview" -c "SELECT dynview.wait_for_capture()" >/dev/null
	q <<SQL
SET client_min_messages = warning;
CREATE TABLE doc_products (product_id text PRIMARY KEY, product_name text, category text, brand text);
INSERT INTO doc_products SELECT 'P' || g, 'product ' || g, 'category ' || (g % 50), 'brand ' || (g % 300)
  FROM generate_series(1, 10000) g;
$ORDERS_DDL
INSERT INTO doc_orders SELECT 'O' || g, 'U' || (g % 100000), 'P' || (1 + g % 10000), 1 + g % 5,
       (10 + g % 490)::numeric(10,2), ((1 + g % 5) * (10 + g % 490))::numeric(10,2),
       timestamp '2026-01-01' + g * interval '1 second', CASE WHEN g % 10 = 0 THEN 'cancelled' ELSE 'completed' END
  FROM generate_series(1, $N) g;
VACUUM ANALYZE doc_orders, doc_products;
SQL
	# the build against CREATE MATERIALIZED VIEW (issue 14), layer by layer, each side after the
	# decoder has read the load and a checkpoint; the views also with the unique indexes on the
	# keys dynview derives for its tables (order_id of the detail, category of the GMV layer)
	# (the wait for the decoder to read the load's WAL is timed apart: create_dynamic_table waits
	# for it when it starts tracking a source)
	t_catchup=$(timed "SELECT dynview.wait_for_capture('30 minutes')")
	q -c "CHECKPOINT" >/dev/null
	t_b1=$(timed "SET client_min_messages = warning; SELECT dynview.create_dynamic_table('doc_dwd_order_detail', \$q\$$DWD\$q\$, schedule => 'manual')")
	t_b2=$(timed "SET client_min_messages = warning; SELECT dynview.create_dynamic_table('doc_ads_category_gmv', \$q\$$GMV\$q\$, schedule => 'manual')")
	t_b3=$(timed "SET client_min_messages = warning; SELECT dynview.create_dynamic_table('doc_ads_category_rank', \$q\$$RANK\$q\$, schedule => 'manual')")
	t_create=$((t_b1 + t_b2 + t_b3))
	q -c "SELECT dynview.wait_for_capture('30 minutes')" -c "CHECKPOINT" >/dev/null
	q -c "CREATE SCHEMA mv" >/dev/null
	t_m1=$(timed "CREATE MATERIALIZED VIEW mv.doc_dwd_order_detail AS ${DWD/doc_orders o/public.doc_orders o}")
	t_i1=$(timed "CREATE UNIQUE INDEX ON mv.doc_dwd_order_detail (order_id)")
	t_m2=$(timed "CREATE MATERIALIZED VIEW mv.doc_ads_category_gmv AS ${GMV/FROM doc_dwd_order_detail/FROM mv.doc_dwd_order_detail}")
	t_i2=$(timed "CREATE UNIQUE INDEX ON mv.doc_ads_category_gmv (category)")
	t_m3=$(timed "CREATE MATERIALIZED VIEW mv.doc_ads_category_rank AS ${RANK/FROM doc_ads_category_gmv/FROM mv.doc_ads_category_gmv}")
	t_mv_create=$((t_m1 + t_m2 + t_m3))
	r() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / (b > 0 ? b : 1) }'; }
	echo "  decoder caught up with the load before the build in $t_catchup ms"
	echo "  build (ms): dynview $t_b1 + $t_b2 + $t_b3 = $t_create; CREATE MATERIALIZED VIEW $t_m1 + $t_m2 + $t_m3 = $t_mv_create, unique indexes $t_i1 + $t_i2;" \
		"dynview / MV $(r "$t_create" "$t_mv_create"), dynview / (MV + unique indexes) $(r "$t_create" $((t_mv_create + t_i1 + t_i2)));" \
		"detail layer $(r "$t_b1" "$t_m1") / $(r "$t_b1" $((t_m1 + t_i1)))"
	q -c "VACUUM ANALYZE" >/dev/null
	fi

	# let the decoder catch up with the bulk load first, and the checkpoint of the load finish
	q -c "SELECT dynview.wait_for_capture('30 minutes')" >/dev/null
	q -c "SELECT dynview.refresh('doc_ads_category_rank')" >/dev/null
	quiesce
	prewarm
	# a refresh with nothing to do
	# a refresh with nothing to do: first in a new connection (cold caches, as psql -c is), then
	# five more in one connection (warm, as the scheduler's worker is), timed by psql
	t_nodata=$(timed "SELECT dynview.refresh('doc_ads_category_rank')")
	nodata_layer=$(q -c "SELECT string_agg(table_name || '=' || refresh_mode || ':' || round(duration_ms::numeric, 2) || 'ms', ' ' ORDER BY refresh_id) FROM (SELECT * FROM dynview.refresh_history ORDER BY refresh_id DESC LIMIT 3) h")
	nodata_warm=$(for i in 1 2 3 4 5 6; do echo "SELECT dynview.refresh('doc_ads_category_rank');"; done |
		psql -X -q -At -v ON_ERROR_STOP=1 -d "$DB" -c '\timing on' -f - | awk '/^Time:/ {print $2}' | tail -5 | sort -n | awk '{a[NR]=$1} END {print a[3] " ms (of " a[1] "-" a[5] ")"}')
	nodata_warm_layer=$(q -c "SELECT string_agg(table_name || '=' || refresh_mode || ':' || round(duration_ms::numeric, 2) || 'ms', ' ' ORDER BY refresh_id) FROM (SELECT * FROM dynview.refresh_history ORDER BY refresh_id DESC LIMIT 3) h")
	# ROUNDS changes, each of 1,000 new orders, 100 updated, 100 deleted (other rows each round);
	# after each, the pipeline refresh and the three REFRESH MATERIALIZED VIEW are timed
	incr_all=()
	incr_srv=()
	mv_srv=()
	bench_ms_create
	sched_all=()
	sched_layers=()
	mv_all=()
	layers_all=()
	ok=t
	base=$(q -c "SELECT count(*) FROM doc_orders WHERE order_id LIKE 'N%'")
	for r0 in $(seq 1 "$ROUNDS"); do
		r=$((r0 + base / 1000))
		q <<SQL
INSERT INTO doc_orders SELECT 'N$r-' || g, 'U' || g, 'P' || (1 + (g * 7 + $r) % 10000), 2, 50.00, 100.00, now(), 'completed'
  FROM generate_series(1, 1000) g;
UPDATE doc_orders SET quantity = quantity + 1, amount = amount + unit_price WHERE order_id IN (SELECT 'O' || (g * 997 + $r) FROM generate_series(1, 100) g);
DELETE FROM doc_orders WHERE order_id IN (SELECT 'O' || (g * 991 + 1 + 3 * $r) FROM generate_series(1, 100) g);
SQL
		prewarm
		# one refresh, timed twice: the psql's wall (a new client process and connection, as
		# always here) and in the server (bench_ms, as tpch.sh times both sides)
		t0=$(now_ms)
		incr_srv+=("$(q -c "SELECT round(public.bench_ms(\$b\$SELECT dynview.refresh('doc_ads_category_rank')\$b\$)::numeric, 1)")")
		incr_all+=("$(($(now_ms) - t0))")
		modes=$(q -c "SELECT string_agg(table_name || '=' || refresh_mode, ' ' ORDER BY refresh_id) FROM (SELECT * FROM dynview.refresh_history ORDER BY refresh_id DESC LIMIT 3) h")
		layers_all+=("$(q -c "SELECT string_agg(table_name || '=' || round(duration_ms::numeric, 1) || 'ms', ' ' ORDER BY refresh_id) FROM (SELECT * FROM dynview.refresh_history ORDER BY refresh_id DESC LIMIT 3) h")")
		if [ "$VERIFY" = each ] || { [ "$VERIFY" = last ] && [ "$SCHEDULER" = 0 ] && [ "$r0" = "$ROUNDS" ]; }; then
			ok_r=$(q -c "SELECT bool_and(dynview.verify(t)) FROM unnest(ARRAY['doc_dwd_order_detail','doc_ads_category_gmv','doc_ads_category_rank']) t")
			[ "$ok_r" = t ] || ok=f
		fi
		prewarm
		t0=$(now_ms)
		mv_srv+=("$(q -c "SELECT round((public.bench_ms('REFRESH MATERIALIZED VIEW mv.doc_dwd_order_detail') + public.bench_ms('REFRESH MATERIALIZED VIEW mv.doc_ads_category_gmv') + public.bench_ms('REFRESH MATERIALIZED VIEW mv.doc_ads_category_rank'))::numeric, 1)")")
		mv_all+=("$(($(now_ms) - t0))")
		# the decoder reads all WAL, the materialized views' rewrite too: let it catch up before
		# the next change, so that the next refresh is not charged for decoding the views
		quiesce
		if [ "$SCHEDULER" = 1 ]; then
			# the same change on other orders, refreshed by the scheduler worker
			q <<SQL
BEGIN;
INSERT INTO doc_orders SELECT 'S$r-' || g, 'U' || g, 'P' || (1 + (g * 11 + $r) % 10000), 2, 50.00, 100.00, now(), 'completed'
  FROM generate_series(1, 1000) g;
UPDATE doc_orders SET quantity = quantity + 1, amount = amount + unit_price WHERE order_id IN (SELECT 'O' || (g * 997 + 500 + $r) FROM generate_series(1, 100) g);
DELETE FROM doc_orders WHERE order_id IN (SELECT 'O' || (g * 991 + 502 + 3 * $r) FROM generate_series(1, 100) g);
COMMIT;
SQL
			q -c "SELECT dynview.wait_for_capture('30 minutes')" >/dev/null
			prewarm
			sched_last() { q -c "SELECT coalesce(max(refresh_id), 0) FROM dynview.refresh_history WHERE table_name = 'doc_ads_category_rank' AND refresh_trigger = 'SYSTEM_SCHEDULED' AND state <> 'RUNNING'"; }
			l0=$(sched_last)
			q -c "SELECT dynview.alter_dynamic_table('doc_ads_category_rank', schedule => '1 second')" >/dev/null
			for _ in $(seq 1 36000); do [ "$(sched_last)" != "$l0" ] && break; sleep 0.05; done
			q -c "SELECT dynview.alter_dynamic_table('doc_ads_category_rank', schedule => 'manual')" >/dev/null
			l1=$(q -c "SELECT min(refresh_id) FROM dynview.refresh_history WHERE table_name = 'doc_ads_category_rank' AND refresh_trigger = 'SYSTEM_SCHEDULED' AND state <> 'RUNNING' AND refresh_id > $l0")
			sched_all+=("$(q -c "SELECT round(extract(epoch FROM max(end_time) - min(start_time))::numeric * 1000) FROM dynview.refresh_history WHERE refresh_id BETWEEN $l1 - 2 AND $l1")")
			sched_layers+=("$(q -c "SELECT string_agg(table_name || '=' || refresh_mode || ':' || round(duration_ms::numeric, 1) || 'ms', ' ' ORDER BY refresh_id) FROM dynview.refresh_history WHERE refresh_id BETWEEN $l1 - 2 AND $l1")")
			if [ "$VERIFY" = each ] || { [ "$VERIFY" = last ] && [ "$r0" = "$ROUNDS" ]; }; then
				ok_r=$(q -c "SELECT bool_and(dynview.verify(t)) FROM unnest(ARRAY['doc_dwd_order_detail','doc_ads_category_gmv','doc_ads_category_rank']) t")
				[ "$ok_r" = t ] || ok=f
			fi
			quiesce
		fi
	done
	t_incr=$(printf '%s\n' "${incr_all[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
	t_mv=$(printf '%s\n' "${mv_all[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
	echo "orders=$N create_ms=$t_create nodata_ms=$t_nodata pipeline_ms(median of $ROUNDS)=$t_incr mv_refresh_ms(median)=$t_mv verify=$ok"
	echo "  pipeline refreshes (ms): ${incr_all[*]}; REFRESH MATERIALIZED VIEW x3 (ms): ${mv_all[*]}"
	echo "  no-change refresh per layer (server side): $nodata_layer"
	echo "  no-change pipeline refresh in one connection (median of 5): $nodata_warm; last, per layer: $nodata_warm_layer"
	echo "  modes: $modes"
	for l in "${layers_all[@]}"; do echo "  per layer: $l"; done
	awk -v a="$t_mv" -v b="$t_incr" 'BEGIN { printf "  full (REFRESH MATERIALIZED VIEW) / dynview pipeline refresh: %.1fx\n", a / (b > 0 ? b : 1) }'
	t_incr_srv=$(printf '%s\n' "${incr_srv[@]}" | med)
	t_mv_srv=$(printf '%s\n' "${mv_srv[@]}" | med)
	echo "  the same, timed in the server (bench_ms; tpch.sh's measure): pipeline ${incr_srv[*]} ms, median $t_incr_srv; REFRESH MATERIALIZED VIEW x3 ${mv_srv[*]} ms, median $t_mv_srv"
	awk -v a="$t_mv_srv" -v b="$t_incr_srv" 'BEGIN { printf "  full (REFRESH MATERIALIZED VIEW) / dynview pipeline refresh, in the server: %.1fx\n", a / (b > 0 ? b : 1) }'
	if [ "$SCHEDULER" = 1 ]; then
		t_sched=$(printf '%s\n' "${sched_all[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
		echo "  scheduler worker's pipeline refresh (server side, ms): ${sched_all[*]}; median $t_sched"
		for l in "${sched_layers[@]}"; do echo "  scheduled, per layer: $l"; done
		awk -v a="$t_mv" -v b="$t_sched" 'BEGIN { printf "  full (REFRESH MATERIALIZED VIEW) / scheduler worker'"'"'s pipeline refresh: %.1fx\n", a / (b > 0 ? b : 1) }'
	fi
	[ "$KEEP" = 1 ] || psql -X -q -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)"
done
