# bench/lib.sh — what the bench scripts share.  Sourced, not run:
#   DB=dv_bench_x; . "$(dirname "$0")/lib.sh"
# Every function reads the database name from $DB when it is called.

# q [psql arguments]: psql on $DB, unaligned, no headers, stops at the first error
q() { psql -X -q -At -v ON_ERROR_STOP=1 -d "$DB" "$@"; }

# bench_new_db: $DB dropped and made again, with dynview whose decoder has caught up, and
# public.bench_ms(stmt text) RETURNS float8: the statement's time in the server, in ms
bench_new_db() {
	psql -X -q -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" -c "CREATE DATABASE $DB" >/dev/null
	q -c "CREATE EXTENSION dynview" -c "SELECT dynview.wait_for_capture()" >/dev/null
	bench_ms_create
}

# bench_ms_create: public.bench_ms(stmt text) RETURNS float8 in $DB (made or replaced): the
# statement's time in the server, in ms (clock_timestamp() around EXECUTE; no client or connection)
bench_ms_create() {
	q <<'SQL' >/dev/null
CREATE OR REPLACE FUNCTION public.bench_ms(stmt text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz := clock_timestamp();
BEGIN
  EXECUTE stmt;
  RETURN extract(epoch FROM clock_timestamp() - t0) * 1000;
END $$;
SQL
}

# bench_drop_db: $DB dropped, unless DV_BENCH_KEEP=1
bench_drop_db() {
	[ "${DV_BENCH_KEEP:-0}" = 1 ] || psql -X -q -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null
}

# cpu_ms PID: the CPU time the process has run, in ms (/proc/PID/schedstat)
cpu_ms() { awk '{printf "%.1f\n", $1 / 1e6}' "/proc/$1/schedstat"; }

# diff_ms A B: B - A, one decimal
diff_ms() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.1f", b - a}'; }

# med: the median of the numbers on standard input, one a line (the lower of two)
med() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# pipeline_change PREFIX R: on $DB (a bench/pipeline.sh database), the pipeline.sh change of round R
# (1,000 new orders named PREFIX<c>-<pid>-<n>, 100 orders updated, 100 deleted; c = BASE + 13 R,
# BASE default 1000, so that each round and each BASE change other orders), then waits for capture
pipeline_change() {
	local c=$((${BASE:-1000} + 13 * $2))
	q -c "INSERT INTO doc_orders SELECT '$1$c-$$-' || g, 'U' || g, 'P' || (1 + (g * 7 + $2) % 10000), 2, 50.00, 100.00, now(), 'completed' FROM generate_series(1, 1000) g;
UPDATE doc_orders SET quantity = quantity + 1, amount = amount + unit_price WHERE order_id IN (SELECT 'O' || (g * 997 + $c) FROM generate_series(1, 100) g);
DELETE FROM doc_orders WHERE order_id IN (SELECT 'O' || (g * 991 + $c + 5) FROM generate_series(1, 100) g);" \
		-c "SELECT dynview.wait_for_capture('10 minutes')" >/dev/null
}

# floor_setup: on $DB (a bench/pipeline.sh database), the floor's copy of the detail table with its
# unique key index (floor_detail, made once), and FLOOR_JOIN, the join the detail table's query
# uses ('JOIN' or 'LEFT JOIN')
floor_setup() {
	if [ "$(q -c "SELECT count(*) FROM pg_class WHERE relname = 'floor_detail'")" = 0 ]; then
		q -c "CREATE TABLE floor_detail AS SELECT * FROM doc_dwd_order_detail" -c "CREATE UNIQUE INDEX ON floor_detail (order_id)" \
			-c "VACUUM ANALYZE floor_detail" -c "CHECKPOINT" >/dev/null
	fi
	FLOOR_JOIN=$(q -c "SELECT CASE WHEN definition ILIKE '%LEFT JOIN%' THEN 'LEFT JOIN' ELSE 'JOIN' END FROM dynview.dynamic_table_catalog WHERE table_name = 'doc_dwd_order_detail'")
}

# floor_sql OFFSET PREFIX R: the floor of round R, the detail layer's writes of a change by hand in
# floor_detail (DELETE of 180 rows by key, the orders 983 g + OFFSET + 7 R; INSERT of 1,090 rows
# named PREFIX<n> joined to doc_products with FLOOR_JOIN), rolled back
floor_sql() {
	echo "BEGIN;
DELETE FROM floor_detail WHERE order_id IN (SELECT 'O' || (g * 983 + $1 + $3 * 7) FROM generate_series(1, 180) g);
INSERT INTO floor_detail SELECT '$2' || o.g, o.user_id, o.product_id, p.product_name, p.category, p.brand, o.quantity, o.unit_price, o.amount, o.order_time, o.status
  FROM (SELECT g, 'U' || g AS user_id, 'P' || (1 + (g * 7 + $3) % 10000) AS product_id, 2 AS quantity, 50.00::numeric(10,2) AS unit_price,
               100.00::numeric(10,2) AS amount, now()::timestamp AS order_time, 'completed'::text AS status FROM generate_series(1, 1090) g) o
  $FLOOR_JOIN doc_products p ON p.product_id = o.product_id;
ROLLBACK;"
}
