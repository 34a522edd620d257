#!/usr/bin/env bash
# bench/numeric_state.sh — a grouped subquery of sum/avg of numeric without a declared scale,
# joined to its dimension (issue 13): dynview.refresh() of the dynamic table vs REFRESH
# MATERIALIZED VIEW of the same query, in one run, after each round of changes (per million rows:
# 1000 updates that change values and scales, 500 deletes, 250 inserts), each refresh verified.  The grouped subquery
# keeps its groups in a state with the inputs counted per display scale (explain() says so); a
# build without that state recomputes the changed groups over new and old rows instead: run
# this script once per build to compare.
# Usage: eval "$(scripts/cluster.sh env)"; bench/numeric_state.sh [rows] [rounds]   (default 1000000 3)
# Groups: rows / 100.  Times in the server (clock_timestamp() around the statement).  Not a test.
set -euo pipefail
ROWS=${1:-1000000}
ROUNDS=${2:-3}
DB=dv_bench_numeric
. "$(dirname "$0")/lib.sh"
bench_new_db
NGROUPS=$((ROWS / 100))
q <<SQL >/dev/null
SET client_min_messages = warning;
CREATE TABLE ns_g (g int PRIMARY KEY, name text);
INSERT INTO ns_g SELECT g, 'group ' || g FROM generate_series(1, $NGROUPS) g;
CREATE TABLE ns_li (id int PRIMARY KEY, g int NOT NULL, x numeric);
-- scales 0 to 3 in every group
INSERT INTO ns_li SELECT i, 1 + i % $NGROUPS, round((i % 997) / 7.0, i % 4) FROM generate_series(1, $ROWS) i;
CREATE INDEX ON ns_li (g);
VACUUM ANALYZE;
SQL
QUERY="SELECT ns_g.g, ns_g.name, r.sx, r.ax, r.n FROM ns_g JOIN (SELECT g, sum(x) AS sx, avg(x) AS ax, count(*) AS n FROM ns_li GROUP BY g) r ON r.g = ns_g.g"
echo "create: MV $(q -c "SELECT round(bench_ms(\$\$CREATE MATERIALIZED VIEW mv AS $QUERY\$\$)::numeric, 1)") ms, dynview $(q -c "SET client_min_messages = warning" -c "SELECT round(bench_ms(\$\$SELECT dynview.create_dynamic_table('dt', '$QUERY', schedule => 'manual')\$\$)::numeric, 1)") ms"
q -c "SELECT value FROM dynview.explain_dynamic_table('dt') WHERE property = 'operator tree'" | grep -o 'subquery r ([^:]*)[^;]*' | cut -c1-160
change=$((ROWS / 1000))
for r in $(seq 1 "$ROUNDS"); do
	base=$((ROWS + (r - 1) * change))
	# rows/1000 updated (other values, other scales), rows/2000 deleted, rows/4000 inserted
	q -c "UPDATE ns_li SET x = round(x * 1.5, (id + $r) % 5) WHERE id % 1000 = $r" \
	  -c "DELETE FROM ns_li WHERE id % 1000 = $((r + 500))  AND id % 2000 < 1000" \
	  -c "INSERT INTO ns_li SELECT i, 1 + (i * 7) % $NGROUPS, round(i / 13.0, i % 3) FROM generate_series($base + 1, $base + $change / 4) i" >/dev/null
	q -c "SELECT dynview.wait_for_capture()" >/dev/null
	q -c "SELECT count(*) FROM ($QUERY) s" >/dev/null
	mv=$(q -c "SELECT round(bench_ms('REFRESH MATERIALIZED VIEW mv')::numeric, 1)")
	dv=$(q -c "SET client_min_messages = warning" -c "SELECT round(bench_ms('SELECT dynview.refresh(''dt'')')::numeric, 1)")
	mode=$(q -c "SELECT refresh_mode || COALESCE(' ' || mode_reason_code, '') FROM dynview.refresh_history('dt', 1)")
	ok=$(q -c "SELECT dynview.verify('dt')")
	echo "round $r: REFRESH MATERIALIZED VIEW $mv ms, dynview.refresh $dv ms ($mode, verified $ok), ratio $(echo "scale=1; $mv / $dv" | bc)x"
done
bench_drop_db
