#!/usr/bin/env bash
# bench/q8_customer.sh — TPC-H Q8's customer join at SF1, by hand (issue 13): the rows a change's
# delta joins to customer (6,957 rows of 1,344 distinct keys spread over customer's key range, the
# sizes of one bench/tpch.sh change round) joined
#   A: to customer read whole for the nations of AMERICA and hashed (the form s17-fence's
#      implied_restrict writes: one bitmap heap scan over all of customer's pages, 59,887 rows), or
#   B: to customer probed once per distinct key (customer_pkey, 1,344 index scans).
# Backend CPU (/proc/<pid>/schedstat, ms) of each query as a new connection's first statement and
# again as its second, (1) with customer in the operating system's cache only (cluster restarted,
# customer then read by a sequential scan, which goes through a ring buffer and leaves it out of
# shared buffers: bench/tpch.sh's footing), (2) with customer resident in shared buffers (both
# queries run once before in another connection). The gap between the first and second statement
# of one connection is what a new backend pays per shared buffer it touches for the first time.
# Usage: eval "$(scripts/cluster.sh env)"; a bench/tpch.sh database; bench/q8_customer.sh [rounds]
# Restarts the cluster (scripts/cluster.sh): only for a private one. Makes and drops
# public.q8_customer_keys. Not a test.
set -euo pipefail
R=${1:-3}
DB=dv_bench_tpch_${DV_BENCH_SCALE:-10000}
HERE=$(cd "$(dirname "$0")" && pwd)
cpu() { awk '{printf "%.1f\n", $1 / 1e6}' "/proc/$1/schedstat"; }
# run SQL: one new connection, SQL run twice; prints "first/second" CPU ms
run() {
	local pid x a b a2 b2
	coproc P { psql -X -q -At -v ON_ERROR_STOP=1 -d "$DB"; }
	echo "SELECT pg_backend_pid();" >&"${P[1]}"; read -r pid <&"${P[0]}"
	echo "SELECT 1 FROM tpch.region LIMIT 1;" >&"${P[1]}"; read -r x <&"${P[0]}"
	a=$(cpu "$pid"); echo "$1" >&"${P[1]}"; read -r x <&"${P[0]}"; b=$(cpu "$pid")
	a2=$(cpu "$pid"); echo "$1" >&"${P[1]}"; read -r x <&"${P[0]}"; b2=$(cpu "$pid")
	echo '\q' >&"${P[1]}"
	wait "$P_PID" 2>/dev/null || true
	awk -v a="$a" -v b="$b" -v a2="$a2" -v b2="$b2" 'BEGIN {printf "%.1f/%.1f", b - a, b2 - a2}'
}
cold() {
	bash "$HERE/../scripts/cluster.sh" restart >/dev/null
	psql -X -q -d "$DB" -c "SELECT count(*) FROM tpch.customer" >/dev/null
}
psql -X -q -d "$DB" -v ON_ERROR_STOP=1 <<'SQL' >/dev/null
DROP TABLE IF EXISTS public.q8_customer_keys;
CREATE TABLE public.q8_customer_keys AS
  SELECT 1 + (g % 1344) * ((SELECT max(c_custkey) FROM tpch.customer) / 1350) AS k FROM generate_series(1, 6957) g;
ANALYZE public.q8_customer_keys;
SQL
A="SELECT count(*) FROM public.q8_customer_keys k JOIN (SELECT c_custkey FROM tpch.customer WHERE c_nationkey = ANY (ARRAY(SELECT n_nationkey FROM tpch.nation JOIN tpch.region ON n_regionkey = r_regionkey WHERE r_name = 'AMERICA')) OFFSET 0) c ON c.c_custkey = k.k;"
B="SELECT count(*) FROM (SELECT DISTINCT k FROM public.q8_customer_keys) k CROSS JOIN LATERAL (SELECT c_custkey FROM tpch.customer c JOIN tpch.nation ON n_nationkey = c_nationkey JOIN tpch.region ON n_regionkey = r_regionkey WHERE r_name = 'AMERICA' AND c.c_custkey = k.k OFFSET 0) c;"
echo "customer in the OS cache only: A (read whole, hashed) and B (probed per distinct key), first/second CPU ms of one new connection"
for _ in $(seq 1 "$R"); do
	cold; a=$(run "$A"); cold; b=$(run "$B")
	echo "A $a  B $b  load $(cut -d' ' -f1 /proc/loadavg)"
done
echo "customer resident in shared buffers"
psql -X -q -d "$DB" -c "$A" -c "$B" >/dev/null
for _ in $(seq 1 "$R"); do
	echo "A $(run "$A")  B $(run "$B")  load $(cut -d' ' -f1 /proc/loadavg)"
done
psql -X -q -d "$DB" -c "DROP TABLE public.q8_customer_keys"
