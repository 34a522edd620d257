#!/usr/bin/env bash
# bench/large_window.sh — cost of applying one large window to a select/join dynamic table (issue 12).
#   A source of R rows (default 200,000); a change of C updated rows (default 100,000: 2*C buffer rows,
#   old and new images); then, in one run:
#     - refresh of a refresh_mode => 'incremental' table (the window applied row by row)
#     - refresh of the same query as a refresh_mode => 'full' table (recomputed)
#     - refresh of the same query as a refresh_mode => 'auto' table (CHANGE_VOLUME decides)
#   and a small change (C/100 rows) applied incrementally, for the per-row cost at two sizes.
# Usage: eval "$(scripts/cluster.sh env)"; bench/large_window.sh [rows] [changes]
# Needs a running cluster with dynview preloaded. Not a test: it prints figures.
set -euo pipefail
ROWS=${1:-200000}
CHANGES=${2:-100000}
DB=dv_bench_window
. "$(dirname "$0")/lib.sh"
now_ms() { date +%s%3N; }
refresh() {
	local t0 t1 out
	t0=$(now_ms)
	out=$(q -c "SELECT refresh_mode || ' ' || coalesce(mode_reason_code, '-') FROM dynview.refresh('$1')")
	t1=$(now_ms)
	printf '%-28s %-26s %8d ms\n' "$1 ($2)" "$out" $((t1 - t0))
}
psql -X -q -At -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB" >/dev/null
q -c "SET client_min_messages = warning" -c "CREATE EXTENSION dynview" \
	-c "CREATE TABLE bw_src (id int PRIMARY KEY, grp int NOT NULL, v numeric NOT NULL, note text)" \
	-c "CREATE TABLE bw_dim (grp int PRIMARY KEY, name text NOT NULL)" \
	-c "INSERT INTO bw_dim SELECT g, 'group ' || g FROM generate_series(0, 999) g" \
	-c "INSERT INTO bw_src SELECT i, i % 1000, i * 1.5, md5(i::text) FROM generate_series(1, $ROWS) i" \
	-c "ANALYZE bw_src, bw_dim" >/dev/null
for mode in incremental full auto; do
	q -c "SET client_min_messages = warning" -c "SELECT dynview.create_dynamic_table('bw_$mode',
		'SELECT s.id, s.v, s.note, d.name FROM bw_src s JOIN bw_dim d ON d.grp = s.grp WHERE s.v > 10',
		schedule => 'manual', refresh_mode => '$mode')" >/dev/null
done
echo "source: $ROWS rows; change: $CHANGES updated rows"
q -c "UPDATE bw_src SET v = v + 1, note = note || 'x' WHERE id <= $CHANGES" -c "SELECT dynview.wait_for_capture('10 minutes')" >/dev/null
for mode in incremental full auto; do refresh "bw_$mode" "$mode"; done
small=$((CHANGES / 100))
echo "change: $small updated rows"
q -c "UPDATE bw_src SET v = v + 1 WHERE id <= $small" -c "SELECT dynview.wait_for_capture('10 minutes')" >/dev/null
for mode in incremental full auto; do refresh "bw_$mode" "$mode"; done
for mode in incremental full auto; do
	[ "$(q -c "SELECT dynview.verify('bw_$mode')")" = t ] || echo "verify(bw_$mode) is false"
done
psql -X -q -At -d postgres -c "DROP DATABASE $DB" >/dev/null
