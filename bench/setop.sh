#!/usr/bin/env bash
# bench/setop.sh — set operations as operators (issue 13): an aggregate over INTERSECT, an
# aggregate over EXCEPT ALL, and a join over UNION, each as a subquery in FROM (before s8-setop:
# FULL, SET_OPERATION), dynview.refresh() of each dynamic table vs REFRESH MATERIALIZED VIEW of
# the same query, in one run, after each round of changes (per million rows of each branch
# table: 1000 inserted, 500 deleted, 500 updated), each refresh verified.  The set operation's
# counts per value are kept in a state table (explain() names it).
# Usage: eval "$(scripts/cluster.sh env)"; bench/setop.sh [rows] [rounds]   (default 1000000 3)
# Times in the server (clock_timestamp() around the statement).  Not a test.
set -euo pipefail
ROWS=${1:-1000000}
ROUNDS=${2:-3}
DB=dv_bench_setop
. "$(dirname "$0")/lib.sh"
bench_new_db
NG=$((ROWS / 50))
q <<SQL >/dev/null
SET client_min_messages = warning;
CREATE TABLE so_a (id int PRIMARY KEY, g int, v int);
CREATE TABLE so_b (id int PRIMARY KEY, g int, v int);
CREATE TABLE so_dim (g int PRIMARY KEY, name text);
INSERT INTO so_a SELECT i, i % $NG, (i * 7) % 100 FROM generate_series(1, $ROWS) i;
INSERT INTO so_b SELECT i, (i * 3) % $NG, (i * 11) % 100 FROM generate_series(1, $ROWS) i;
INSERT INTO so_dim SELECT g, 'g' || g FROM generate_series(0, $NG) g;
VACUUM ANALYZE;
SQL
declare -A QUERY
QUERY[intersect_agg]="SELECT g, count(*) AS n FROM (SELECT g, v FROM so_a INTERSECT SELECT g, v FROM so_b) s GROUP BY g"
QUERY[except_all_agg]="SELECT v, count(*) AS n FROM (SELECT g, v FROM so_a EXCEPT ALL SELECT g, v FROM so_b) s GROUP BY v"
QUERY[union_join]="SELECT d.name, u.v FROM so_dim d JOIN (SELECT g, v FROM so_a WHERE v < 5 UNION SELECT g, v FROM so_b WHERE v < 5) u ON u.g = d.g"
NAMES="intersect_agg except_all_agg union_join"
for n in $NAMES; do
	mv=$(q -c "SELECT round(bench_ms(\$\$CREATE MATERIALIZED VIEW mv_$n AS ${QUERY[$n]}\$\$)::numeric, 1)")
	dv=$(q -c "SET client_min_messages = warning" -c "SELECT round(bench_ms(\$\$SELECT dynview.create_dynamic_table('dt_$n', '${QUERY[$n]}', schedule => 'manual')\$\$)::numeric, 1)")
	echo "$n create: MV $mv ms, dynview $dv ms; mode $(q -c "SELECT value FROM dynview.explain_dynamic_table('dt_$n') WHERE property = 'mode'")"
done
change=$((ROWS / 1000))
for r in $(seq 1 "$ROUNDS"); do
	base=$((ROWS + (r - 1) * change))
	q -c "INSERT INTO so_a SELECT i, i % $NG, (i * 13) % 100 FROM generate_series($base + 1, $base + $change) i" \
	  -c "INSERT INTO so_b SELECT i, (i * 5) % $NG, (i * 17) % 100 FROM generate_series($base + 1, $base + $change) i" \
	  -c "DELETE FROM so_a WHERE id % 2000 = $r" -c "DELETE FROM so_b WHERE id % 2000 = $((r + 1000))" \
	  -c "UPDATE so_a SET v = (v + 1) % 100 WHERE id % 2000 = $((r + 500))" \
	  -c "UPDATE so_b SET g = (g + 1) % $NG WHERE id % 2000 = $((r + 1500))" >/dev/null
	q -c "SELECT dynview.wait_for_capture()" >/dev/null
	for n in $NAMES; do
		m=$(q -c "SELECT round(bench_ms('REFRESH MATERIALIZED VIEW mv_$n')::numeric, 1)")
		d=$(q -c "SET client_min_messages = warning" -c "SELECT round(bench_ms('SELECT dynview.refresh(''dt_$n'')')::numeric, 1)")
		mode=$(q -c "SELECT refresh_mode || COALESCE(' ' || mode_reason_code, '') FROM dynview.refresh_history('dt_$n', 1)")
		ok=$(q -c "SELECT dynview.verify('dt_$n')")
		echo "round $r $n: REFRESH MATERIALIZED VIEW $m ms, dynview.refresh $d ms ($mode, verified $ok), ratio $(echo "scale=1; $m / $d" | bc)x"
	done
done
bench_drop_db
