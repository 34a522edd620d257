#!/usr/bin/env bash
# bench/null_keys.sh — a grouped table with aggregates kept in state, GROUP BY two columns that
# hold NULLs, refreshed after changes to 1, 10, 1,000 and 5,000 groups that have a NULL key
# (issue 14: a refresh costs in proportion to the change).  Three layouts of N source rows:
# "first" (a NULL first key in a third of the rows, 50,000 distinct second keys), "second" (a
# NULL second key in a third; 100,000 first keys, two second keys), "both" (a NULL first key in a
# sixth of the rows, a NULL second key in another sixth).  For each layout: the source made and
# its dynamic table SELECT a, b, count(*), sum(v) ... GROUP BY a, b created, then for each size
# the change (v + 1 in rows with a NULL key), captured, and dynview.refresh() timed in the server
# (bench_ms) and checked with verify().  With ANALYZE=1 the table and its state are analysed
# before the first refresh (otherwise the planner has no statistics for them yet, as right after
# a creation).  Usage: eval "$(scripts/cluster.sh env)"; bench/null_keys.sh [N] [layout ...]
# Not a test.
set -euo pipefail
N=${1:-400000}
shift || true
LAYOUTS=("$@")
[ $# -eq 0 ] && LAYOUTS=(first second both)
DB=dv_bench_null_keys
. "$(dirname "$0")/lib.sh"
bench_new_db
for layout in "${LAYOUTS[@]}"; do
	case "$layout" in
		first) A="CASE WHEN g % 3 = 0 THEN NULL ELSE g % 100000 END"; B="g % 50000" ;;
		second) A="g % 100000"; B="CASE WHEN g % 3 = 0 THEN NULL ELSE g % 2 END" ;;
		both) A="CASE WHEN g % 6 = 0 THEN NULL ELSE g % 100000 END"; B="CASE WHEN g % 6 = 3 THEN NULL ELSE g % 50000 END" ;;
		*) echo "unknown layout $layout" >&2; exit 1 ;;
	esac
	q <<SQL >/dev/null
SET client_min_messages = warning;
SELECT dynview.drop_dynamic_table('nk_dt', true) FROM dynview.dynamic_tables WHERE name::text = 'nk_dt';
DROP TABLE IF EXISTS nk;
CREATE TABLE nk (id int PRIMARY KEY, a int, b int, v int);
INSERT INTO nk SELECT g, $A, $B, g FROM generate_series(1, $N) g;
SELECT dynview.create_dynamic_table('nk_dt', 'SELECT a, b, count(*) AS n, sum(v) AS s FROM nk GROUP BY a, b', schedule => 'manual');
SQL
	if [ "${ANALYZE:-0}" = 1 ]; then
		q -c "ANALYZE nk_dt" -c "SELECT format('ANALYZE dynview_state.agg_%s', 'nk_dt'::regclass::oid)" -c '\gexec' >/dev/null
	fi
	groups=$(q -c "SELECT count(*) || ' groups, ' || count(*) FILTER (WHERE a IS NULL OR b IS NULL) || ' with a NULL key' FROM nk_dt")
	echo "layout $layout ($N rows, $groups):"
	for m in 1 10 1000 5000; do
		# rows id = 3g (first, second) or 3g with g odd or even (both): each in a group with a NULL key
		q -c "UPDATE nk SET v = v + 1 WHERE id IN (SELECT g * 3 FROM generate_series(1, $m) g)" \
		  -c "SELECT dynview.wait_for_capture()" >/dev/null
		ms=$(q -c "SELECT round(public.bench_ms(\$b\$SELECT dynview.refresh('nk_dt')\$b\$)::numeric, 1)")
		out=$(q -c "SELECT refresh_mode || ', verify ' || dynview.verify('nk_dt') FROM dynview.refresh_history WHERE table_name = 'nk_dt' ORDER BY refresh_id DESC LIMIT 1")
		echo "  $m changed groups: $ms ms $out"
	done
done
bench_drop_db
