#!/usr/bin/env bash
# bench/plan_cache.sh — what the per-backend plan cache saves per refresh (issue 14), in one run:
#   the sales dashboard's three layers (detail with LEFT JOIN, GMV per category, rank) over N orders;
#   in one connection (as the scheduler's worker runs), R rounds of a small change (10 new orders,
#   5 updated) followed by the pipeline refresh, timed by psql:
#     cached:  the cache holds the three tables' plans (built by the first round)
#     rebuilt: before each refresh, ALTER TABLE ... SET (fillfactor = 100) of the three tables and
#              doc_products (relcache invalidations that change nothing else) drops every entry,
#              so each layer parses, analyses and plans its definition again, as every refresh did
#              before the cache (three or four times per layer)
#   and the same with no change (NO_DATA).  Wall times on a shared machine are mostly noise, so
#   the script also reads the backend's CPU time (/proc/<pid>/stat, in ticks of 10 ms) over 100
#   refreshes of each kind, and subtracts the CPU time of the invalidations alone.
# Usage: eval "$(scripts/cluster.sh env)"; bench/plan_cache.sh [orders] [rounds]   (default 100000 20)
set -euo pipefail
N=${1:-100000}
R=${2:-20}
DB=dv_bench_plan_cache
psql -X -q -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" -c "CREATE DATABASE $DB" >/dev/null
. "$(dirname "$0")/lib.sh"
q -c "CREATE EXTENSION dynview" -c "SELECT dynview.wait_for_capture()" >/dev/null
q <<SQL
SET client_min_messages = warning;
CREATE TABLE doc_products (product_id text PRIMARY KEY, product_name text, category text, brand text);
INSERT INTO doc_products SELECT 'P' || g, 'product ' || g, 'category ' || (g % 50), 'brand ' || (g % 300) FROM generate_series(1, 10000) g;
CREATE TABLE doc_orders (order_id text PRIMARY KEY, user_id text, product_id text, quantity int,
                         unit_price numeric(10,2), amount numeric(10,2), order_time timestamp, status text);
INSERT INTO doc_orders SELECT 'O' || g, 'U' || (g % 100000), 'P' || (1 + g % 10000), 1 + g % 5,
       (10 + g % 490)::numeric(10,2), ((1 + g % 5) * (10 + g % 490))::numeric(10,2),
       timestamp '2026-01-01' + g * interval '1 second', CASE WHEN g % 10 = 0 THEN 'cancelled' ELSE 'completed' END
  FROM generate_series(1, $N) g;
VACUUM ANALYZE doc_orders, doc_products;
SELECT dynview.create_dynamic_table('doc_dwd_order_detail', 'SELECT o.order_id, o.user_id, o.product_id, p.product_name, p.category, p.brand, o.quantity, o.unit_price, o.amount, o.order_time, o.status FROM doc_orders o LEFT JOIN doc_products p ON o.product_id = p.product_id WHERE o.status = ''completed''', schedule => 'manual');
SELECT dynview.create_dynamic_table('doc_ads_category_gmv', 'SELECT category, count(DISTINCT order_id) AS order_cnt, sum(quantity) AS total_qty, sum(amount) AS gmv FROM doc_dwd_order_detail GROUP BY category', schedule => 'manual');
SELECT dynview.create_dynamic_table('doc_ads_category_rank', 'SELECT rank() OVER (ORDER BY gmv DESC) AS gmv_rank, category, gmv FROM doc_ads_category_gmv', schedule => 'manual');
SQL
q -c "SELECT dynview.wait_for_capture('10 minutes')" -c "CHECKPOINT" >/dev/null
# one connection; "\timing" of each refresh; rounds alternate cached / rebuilt
script=$(mktemp)
{
	echo "SELECT dynview.refresh('doc_ads_category_rank');"
	for r in $(seq 1 "$R"); do
		for mode in cached rebuilt; do
			echo "INSERT INTO doc_orders SELECT 'N$r$mode-' || g, 'U1', 'P' || (1 + g * 37 % 10000), 1, 10.00, 10.00, now(), 'completed' FROM generate_series(1, 10) g;"
			echo "UPDATE doc_orders SET quantity = quantity + 1 WHERE order_id IN (SELECT 'O' || (g * 7919 + $r) FROM generate_series(1, 5) g);"
			echo "SELECT dynview.wait_for_capture();"
			[ "$mode" = rebuilt ] && echo "ALTER TABLE doc_products SET (fillfactor = 100); ALTER TABLE doc_dwd_order_detail SET (fillfactor = 100); ALTER TABLE doc_ads_category_gmv SET (fillfactor = 100); ALTER TABLE doc_ads_category_rank SET (fillfactor = 100);"
			echo "\\echo change-$mode"
			echo "SELECT dynview.refresh('doc_ads_category_rank');"
			[ "$mode" = rebuilt ] && echo "ALTER TABLE doc_products SET (fillfactor = 100); ALTER TABLE doc_dwd_order_detail SET (fillfactor = 100); ALTER TABLE doc_ads_category_gmv SET (fillfactor = 100); ALTER TABLE doc_ads_category_rank SET (fillfactor = 100);"
			echo "\\echo nodata-$mode"
			echo "SELECT dynview.refresh('doc_ads_category_rank');"
		done
	done
} >"$script"
out=$(psql -X -q -At -v ON_ERROR_STOP=1 -d "$DB" -c '\timing on' -f "$script")
rm -f "$script"
summary() { printf '%s\n' "$out" | awk -v tag="$1" '$0 == tag {want = 1; next} want && /^Time:/ {print $2; want = 0}' |
	sort -n | awk '{a[NR] = $1} END {printf "median %.1f ms (min %.1f, max %.1f, n=%d)", a[int((NR + 1) / 2)], a[1], a[NR], NR}'; }

# CPU time of the backend over 100 iterations of a statement list (psql's server is local)
INV="ALTER TABLE doc_products SET (fillfactor = 100); ALTER TABLE doc_dwd_order_detail SET (fillfactor = 100); ALTER TABLE doc_ads_category_gmv SET (fillfactor = 100); ALTER TABLE doc_ads_category_rank SET (fillfactor = 100);"
tmpd=$(mktemp -d)
cpu_ticks() {
	{
		echo "SELECT dynview.refresh('doc_ads_category_rank');"
		echo "\\o $tmpd/pid"
		echo "SELECT pg_backend_pid();"
		echo "\\o"
		echo "\\! cut -d' ' -f14,15 /proc/\$(cat $tmpd/pid)/stat > $tmpd/a"
		for _ in $(seq 1 100); do echo "$1"; done
		echo "\\! cut -d' ' -f14,15 /proc/\$(cat $tmpd/pid)/stat > $tmpd/b"
	} | psql -X -q -At -v ON_ERROR_STOP=1 -d "$DB" -f - >/dev/null
	awk 'NR == FNR {a = $1 + $2; next} {print $1 + $2 - a}' "$tmpd/a" "$tmpd/b"
}
CHANGE="UPDATE doc_orders SET quantity = quantity + 1 WHERE order_id = 'O77'; SELECT dynview.wait_for_capture();"
c_nodata=$(cpu_ticks "SELECT dynview.refresh('doc_ads_category_rank');")
c_nodata_inv=$(cpu_ticks "$INV SELECT dynview.refresh('doc_ads_category_rank');")
c_inv=$(cpu_ticks "$INV")
c_change=$(cpu_ticks "$CHANGE SELECT dynview.refresh('doc_ads_category_rank');")
c_change_inv=$(cpu_ticks "$CHANGE $INV SELECT dynview.refresh('doc_ads_category_rank');")
c_change_only=$(cpu_ticks "$CHANGE $INV")
rm -rf "$tmpd"
echo "  backend CPU per 100 pipeline refreshes (ticks of 10 ms): NO_DATA cached $c_nodata, rebuilt $((c_nodata_inv - c_inv)) ($c_nodata_inv less $c_inv for the invalidations);"
echo "    one row changed: cached $c_change, rebuilt $((c_change_inv - c_change_only)) ($c_change_inv less $c_change_only for the change and the invalidations)"
q -c "SELECT dynview.wait_for_capture()" -c "SELECT dynview.refresh('doc_ads_category_rank')" >/dev/null
ok=$(q -c "SELECT bool_and(dynview.verify(t)) FROM unnest(ARRAY['doc_dwd_order_detail','doc_ads_category_gmv','doc_ads_category_rank']) t")
modes=$(q -c "SELECT string_agg(DISTINCT refresh_mode, ',') FROM dynview.refresh_history WHERE table_name = 'doc_dwd_order_detail'")
echo "orders=$N rounds=$R verify=$ok detail layer modes: $modes"
echo "  change (10 new + 5 updated orders), pipeline refresh: cached $(summary change-cached); rebuilt $(summary change-rebuilt)"
echo "  no change (NO_DATA), pipeline refresh: cached $(summary nodata-cached); rebuilt $(summary nodata-rebuilt)"
psql -X -q -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)"
