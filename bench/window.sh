#!/usr/bin/env bash
# bench/window.sh — window functions without PARTITION BY (issue 13): the rank layer of the sales
# dashboard and a rank over plain rows, INCREMENTAL (rows from the first changed one in the
# window's order recomputed) against the same query with refresh_mode => 'full', in one run.
#   A table s(id, cat, amt) of N rows in 50 categories; g = per-category sums (a grouped dynamic
#   table); r_* = rank() OVER (ORDER BY gmv DESC) over g (50 rows); b_* = rank() OVER (ORDER BY
#   amt DESC, id) over s (N rows).  Two kinds of change, ROUNDS each:
#     tail:   10 new rows with amt = -1 (they sort last: the incremental refresh rewrites the end)
#     spread: 0.02% of the rows get amt + 0.01 (the first changed row sorts anywhere)
#   Times are the refreshes' own (refresh_history.duration_ms); every refresh is verified.
# Usage: eval "$(scripts/cluster.sh env)"; bench/window.sh [rows (200000)] [rounds (3)]
set -euo pipefail
N=${1:-200000}
ROUNDS=${2:-3}
DB=dv_bench_window
export PATH="${DV_PGBIN:-/usr/lib/postgresql/15/bin}:$PATH"
. "$(dirname "$0")/lib.sh"
dropdb --if-exists "$DB" >/dev/null 2>&1 || true
createdb "$DB"
q <<SQL >/dev/null
SET client_min_messages = warning;
CREATE EXTENSION dynview;
CREATE TABLE s (id int PRIMARY KEY, cat int, amt numeric(10,2));
INSERT INTO s SELECT i, i % 50, (i % 997) / 10.0 FROM generate_series(1, $N) i;
SELECT dynview.wait_for_capture('10 minutes');
SELECT dynview.create_dynamic_table('g', 'SELECT cat, sum(amt) AS gmv, count(*) AS n FROM s GROUP BY cat', schedule => 'manual');
SELECT dynview.create_dynamic_table('r_inc', 'SELECT rank() OVER (ORDER BY gmv DESC) AS rk, cat, gmv, n FROM g', schedule => 'manual');
SELECT dynview.create_dynamic_table('r_full', 'SELECT rank() OVER (ORDER BY gmv DESC) AS rk, cat, gmv, n FROM g', schedule => 'manual', refresh_mode => 'full');
SELECT dynview.create_dynamic_table('b_inc', 'SELECT id, amt, rank() OVER (ORDER BY amt DESC, id) AS rk FROM s', schedule => 'manual');
SELECT dynview.create_dynamic_table('b_full', 'SELECT id, amt, rank() OVER (ORDER BY amt DESC, id) AS rk FROM s', schedule => 'manual', refresh_mode => 'full');
SQL
next_id=$((N + 1))
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
for kind in tail spread; do
	declare -A times=()
	for r in $(seq 1 "$ROUNDS"); do
		if [ "$kind" = tail ]; then
			q -c "INSERT INTO s SELECT g, g % 50, -1 FROM generate_series($next_id, $((next_id + 9))) g" >/dev/null
			next_id=$((next_id + 10))
		else
			q -c "UPDATE s SET amt = amt + 0.01 WHERE id % 5000 = $r" >/dev/null
		fi
		q -c "SELECT dynview.wait_for_capture('10 minutes')" -c "SELECT dynview.refresh('g')" >/dev/null
		for t in r_inc r_full b_inc b_full; do
			row=$(q -c "SELECT refresh_mode || ' ' || duration_ms || ' ' || (rows_inserted + rows_deleted) FROM dynview.refresh('$t')")
			ok=$(q -c "SELECT dynview.verify('$t')")
			[ "$ok" = t ] || { echo "verify($t) failed" >&2; exit 1; }
			times[$t]+="$row"$'\n'
		done
	done
	echo "change=$kind rows=$N (median of $ROUNDS; mode, ms, rows written):"
	for t in r_inc r_full b_inc b_full; do
		mode=$(printf '%s' "${times[$t]}" | awk 'NF {print $1; exit}')
		ms=$(printf '%s' "${times[$t]}" | awk 'NF {print $2}' | median)
		written=$(printf '%s' "${times[$t]}" | awk 'NF {print $3}' | median)
		echo "  $t: $mode ${ms} ms, $written rows written"
	done
	unset times
done
dropdb "$DB"
