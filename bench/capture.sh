#!/usr/bin/env bash
# bench/capture.sh — change-capture benchmarks (issue 3), as ratios in one run:
#   1. decoder throughput: changes per second written into change buffers (1 decoder = 1 core)
#   2. write overhead: pgbench insert+update TPS on a tracked source vs an identical untracked table
# Usage: eval "$(scripts/cluster.sh env)"; bench/capture.sh [rows] [seconds]
# Needs a running cluster with dynview preloaded (scripts/cluster.sh start). Uses database dv_bench.
set -euo pipefail
ROWS=${1:-500000}
SECS=${2:-20}
CLIENTS=${DV_BENCH_CLIENTS:-4}
export PATH="/usr/lib/postgresql/15/bin:$PATH"
DB=dv_bench
psql -X -q -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" -c "CREATE DATABASE $DB" >/dev/null
q() { psql -X -q -At -v ON_ERROR_STOP=1 -d "$DB" "$@"; }
q -c "CREATE EXTENSION dynview"
q -c "CREATE TABLE src (id bigint PRIMARY KEY, account int, amount numeric(12,2), note text)"
q -c "CREATE TABLE plain (id bigint PRIMARY KEY, account int, amount numeric(12,2), note text)"
q -c "SET client_min_messages = warning; SELECT dynview.create_dynamic_table('src_totals', 'SELECT account, sum(amount) AS total FROM src GROUP BY account', schedule => 'manual')" >/dev/null
q -c "SELECT dynview.wait_for_capture('60 seconds')" >/dev/null

echo "== decoder throughput ($ROWS inserts in one transaction, then $ROWS/2 updates)"
now_ms() { date +%s%3N; }
t0=$(now_ms)
q -c "INSERT INTO src SELECT g, g % 1000, (g % 997) * 1.25, 'note ' || g FROM generate_series(1, $ROWS) g"
t1=$(now_ms)
q -c "SELECT dynview.wait_for_capture('600 seconds')" >/dev/null
t2=$(now_ms)
ins_rate=$(( ROWS * 1000 / (t2 - t1 > 0 ? t2 - t1 : 1) ))
q -c "UPDATE src SET amount = amount + 1 WHERE id % 2 = 0"
t3=$(now_ms)
q -c "SELECT dynview.wait_for_capture('600 seconds')" >/dev/null
t4=$(now_ms)
changes=$(( ROWS ))   # ROWS/2 updates = ROWS buffer rows (old and new image)
upd_rate=$(( changes * 1000 / (t4 - t3 > 0 ? t4 - t3 : 1) ))
buffered=$(q -c "SELECT buffered_changes FROM dynview.cdc_status WHERE source = 'src'::regclass")
echo "insert: write ${ROWS} rows $((t1 - t0)) ms; captured after commit in $((t2 - t1)) ms: ${ins_rate} changes/s"
echo "update: captured $changes buffer rows in $((t4 - t3)) ms after commit: ${upd_rate} changes/s"
echo "buffer rows now: $buffered"

echo "== write overhead (pgbench, $CLIENTS clients, ${SECS}s each: insert one row, update one row)"
q -c "TRUNCATE plain"
q -c "SELECT dynview.refresh('src_totals')" >/dev/null
mk_script() {
	cat <<SQL
\set id random(1, 1000000000)
\set acc random(1, 1000)
INSERT INTO $1 VALUES (:id + 10000000000, :acc, 1.00, 'x') ON CONFLICT (id) DO NOTHING;
UPDATE $1 SET amount = amount + 1 WHERE id = (:acc * 97) % $ROWS + 1;
SQL
}
tmp=$(mktemp -d)
mk_script src >"$tmp/src.sql"
mk_script plain >"$tmp/plain.sql"
q -c "INSERT INTO plain SELECT * FROM src"
tps() { pgbench -n -c "$CLIENTS" -j 2 -T "$SECS" -f "$1" "$DB" 2>/dev/null | awk '/^tps/ {print int($3)}'; }
# interleaved rounds, so that checkpoints and caches favour neither side
p1=$(tps "$tmp/plain.sql"); s1=$(tps "$tmp/src.sql")
s2=$(tps "$tmp/src.sql"); p2=$(tps "$tmp/plain.sql")
tps_plain=$(( (p1 + p2) / 2 ))
tps_src=$(( (s1 + s2) / 2 ))
echo "rounds: untracked $p1, $p2; tracked $s1, $s2"
q -c "SELECT dynview.wait_for_capture('600 seconds')" >/dev/null
echo "untracked table: $tps_plain tps; tracked source: $tps_src tps"
awk -v a="$tps_src" -v b="$tps_plain" 'BEGIN { printf "ratio tracked/untracked: %.2f\n", a / b }'
rm -rf "$tmp"
psql -X -q -c "DROP DATABASE $DB WITH (FORCE)"
