#!/usr/bin/env bash
# bench/capture.sh — change-capture benchmarks (issue 3), as ratios in one run:
#   1. decoder throughput: changes per second written into change buffers (1 decoder = 1 core)
#   2. write overhead: pgbench insert+update TPS on a tracked source vs an identical untracked table
#   3. decoder rate against the writer's (issue 14): one backend bulk-inserts 1M rows (DV_BENCH_BULK)
#      into an untracked table, then into a tracked source; CPU time of the writer's backend and of
#      the decoder (from /proc: on a shared machine wall times are noise), WAL bytes, and the time
#      from the writer's commit until the decoder has captured it; then the refresh right after
#      creating a dynamic table of about 0.9M rows over that source (the decoder's wait included)
#   4. the WAL a writer pays for REPLICA IDENTITY FULL (which capture sets on a source): the same
#      UPDATE of every row and DELETE of a tenth of $ROWS rows of one untracked table, under
#      REPLICA IDENTITY DEFAULT and FULL, WAL bytes each statement wrote (EXPLAIN (ANALYZE, WAL);
#      full-page images excluded: each statement runs once before it is measured)
# Usage: eval "$(scripts/cluster.sh env)"; bench/capture.sh [rows] [seconds]
#        DV_BENCH_ONLY=rate: part 3 only; DV_BENCH_ONLY=identity: part 4 only.
# Needs a running cluster with dynview preloaded (scripts/cluster.sh start), on this machine (it
# reads /proc of the server's processes). Uses database dv_bench.
set -euo pipefail
ROWS=${1:-500000}
SECS=${2:-20}
CLIENTS=${DV_BENCH_CLIENTS:-4}
export PATH="/usr/lib/postgresql/15/bin:$PATH"
DB=dv_bench
psql -X -q -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" -c "CREATE DATABASE $DB" >/dev/null
. "$(dirname "$0")/lib.sh"
q -c "CREATE EXTENSION dynview"
q -c "CREATE TABLE src (id bigint PRIMARY KEY, account int, amount numeric(12,2), note text)"
q -c "CREATE TABLE plain (id bigint PRIMARY KEY, account int, amount numeric(12,2), note text)"
q -c "SET client_min_messages = warning; SELECT dynview.create_dynamic_table('src_totals', 'SELECT account, sum(amount) AS total FROM src GROUP BY account', schedule => 'manual')" >/dev/null
q -c "SELECT dynview.wait_for_capture('60 seconds')" >/dev/null

now_ms() { date +%s%3N; }

# ---- 3. decoder rate vs one writer; refresh right after a build ---------------------------------
BULK=${DV_BENCH_BULK:-1000000}
cpu_ms() { awk '{print ($14 + $15) * 10}' "/proc/$1/stat"; }
decoder_pid() { q -c "SELECT decoder_pid FROM dynview.cdc_status WHERE source IS NULL"; }
# consume and prune the buffers, so that the decoder's pruning scans nothing
settle() {
	q -c "SELECT dynview.wait_for_capture('600 seconds')" -c "SELECT dynview.refresh('src_totals')" >/dev/null
	for _ in $(seq 1 120); do
		[ "$(q -c "SELECT coalesce(sum(buffered_changes), 0) FROM dynview.cdc_status")" = 0 ] && break
		sleep 0.5
	done
	q -c "VACUUM dynview_buffer.changes_$(q -c "SELECT 'src'::regclass::oid")" -c "CHECKPOINT" >/dev/null
}
# bulk_rate TABLE: one backend inserts $BULK rows; prints writer and decoder CPU, WAL, catch-up
bulk_rate() {
	local t=$1 dpid wpid l0 l1 c0 c1 w0 w1 t0 t1 t2 one wal
	q -c "TRUNCATE $t"
	settle
	dpid=$(decoder_pid)
	coproc WRITER { psql -X -q -At -d "$DB"; }
	echo "SELECT pg_backend_pid();" >&"${WRITER[1]}"; read -r wpid <&"${WRITER[0]}"
	l0=$(q -c "SELECT pg_current_wal_lsn()"); c0=$(cpu_ms "$dpid"); w0=$(cpu_ms "$wpid"); t0=$(now_ms)
	echo "INSERT INTO $t SELECT g, g % 1000, (g % 997) * 1.25, 'note ' || g FROM generate_series(1, $BULK) g; SELECT 1;" >&"${WRITER[1]}"
	read -r one <&"${WRITER[0]}"
	t1=$(now_ms); w1=$(cpu_ms "$wpid")
	q -c "SELECT dynview.wait_for_capture('600 seconds')" >/dev/null
	t2=$(now_ms); c1=$(cpu_ms "$dpid")
	l1=$(q -c "SELECT pg_current_wal_lsn()")
	echo '\q' >&"${WRITER[1]}"; wait "$WRITER_PID" 2>/dev/null || true
	wal=$(q -c "SELECT pg_wal_lsn_diff('$l1', '$l0')::bigint")
	echo "$t: $BULK rows, WAL $((wal / 1048576)) MB; writer $((t1 - t0)) ms wall, $((w1 - w0)) ms CPU;" \
		"decoder $((c1 - c0)) ms CPU, caught up $((t2 - t1)) ms after the commit;" \
		"decoder rate / writer rate (CPU): $(awk -v w=$((w1 - w0)) -v d=$((c1 - c0)) 'BEGIN { r = 0; if (d > 0) r = w / d; printf "%.2f", r }')"
}
# ---- 4. WAL of updates and deletes under REPLICA IDENTITY DEFAULT and FULL ---------------------
# identity_wal IDENTITY: prints the WAL bytes of an UPDATE of every row and of a DELETE of a tenth
# wal_of STATEMENT: the WAL bytes the statement itself wrote (EXPLAIN (ANALYZE, WAL): what other
# sessions write meanwhile does not count)
wal_of() {
	q -c "EXPLAIN (ANALYZE, WAL, COSTS OFF, TIMING OFF, FORMAT JSON) $1" |
		python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["Plan"]["WAL Bytes"])'
}
identity_wal() {
	local u d
	q -c "SET client_min_messages = warning" -c "DROP TABLE IF EXISTS ident" \
	  -c "CREATE TABLE ident (id bigint PRIMARY KEY, account int, amount numeric(12,2), note text) WITH (fillfactor = 50)" \
	  -c "ALTER TABLE ident REPLICA IDENTITY $1" \
	  -c "INSERT INTO ident SELECT g, g % 1000, (g % 997) * 1.25, 'note ' || g FROM generate_series(1, $ROWS) g" \
	  -c "VACUUM ident" -c "CHECKPOINT" >/dev/null
	# (the first UPDATE writes each page's full-page image; the second is measured)
	q -c "UPDATE ident SET amount = amount + 1" >/dev/null
	u=$(wal_of "UPDATE ident SET amount = amount + 1")
	q -c "DELETE FROM ident WHERE id % 10 = 1" >/dev/null
	d=$(wal_of "DELETE FROM ident WHERE id % 10 = 2")
	echo "REPLICA IDENTITY $1: UPDATE of $ROWS rows $((u / 1024)) kB WAL ($((u / ROWS)) bytes a row); DELETE of $((ROWS / 10)) rows $((d / 1024)) kB ($((d * 10 / ROWS)) bytes a row)"
}
if [ "${DV_BENCH_ONLY:-}" = identity ] || [ -z "${DV_BENCH_ONLY:-}" ]; then
	echo "== WAL of a writer's updates and deletes by replica identity ($ROWS rows; load: $(cut -d' ' -f1-3 /proc/loadavg))"
	identity_wal DEFAULT
	identity_wal FULL
	identity_wal DEFAULT
	identity_wal FULL
	q -c "DROP TABLE ident"
	if [ "${DV_BENCH_ONLY:-}" = identity ]; then
		psql -X -q -c "DROP DATABASE $DB WITH (FORCE)"
		exit 0
	fi
fi

if [ "${DV_BENCH_ONLY:-}" = rate ] || [ -z "${DV_BENCH_ONLY:-}" ]; then
	echo "== decoder rate: $BULK rows inserted by one backend (load: $(cut -d' ' -f1-3 /proc/loadavg))"
	bulk_rate plain
	bulk_rate src
	bulk_rate plain
	bulk_rate src
	echo "== the refresh right after creating a dynamic table over $BULK rows"
	q -c "SET client_min_messages = warning; SELECT dynview.drop_dynamic_table('src_rows')" >/dev/null 2>&1 || true
	settle
	t0=$(now_ms)
	q -c "SET client_min_messages = warning; SELECT dynview.create_dynamic_table('src_rows', 'SELECT id, account, amount FROM src WHERE account < 900', schedule => 'manual')" >/dev/null
	t1=$(now_ms)
	# the refresh right after the build (it waits for the decoder only if a transaction ended
	# since the build's snapshot), then what waiting for the decoder would have cost
	lag=$(q -c "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), decoded_lsn)::bigint FROM dynview.cdc_status WHERE source IS NULL")
	r=$(q -c "SELECT refresh_mode || ' ' || round(duration_ms::numeric, 1) FROM dynview.refresh('src_rows')")
	t2=$(now_ms)
	w=$(q -c "SELECT round(extract(epoch FROM clock_timestamp() - now()) * 1000) FROM (SELECT dynview.wait_for_capture('60 seconds')) w")
	t3=$(now_ms)
	echo "create_dynamic_table $((t1 - t0)) ms ($(q -c 'SELECT count(*) FROM src_rows') rows); right after it the decoder was $((lag / 1024)) kB of WAL behind; the refresh $r ms in the server ($((t2 - t1)) ms with a new psql connection); then the decoder wait (wait_for_capture) $w ms in the server ($((t3 - t2)) ms with psql)"
	q -c "SET client_min_messages = warning; SELECT dynview.drop_dynamic_table('src_rows')" >/dev/null
	if [ "${DV_BENCH_ONLY:-}" = rate ]; then
		psql -X -q -c "DROP DATABASE $DB WITH (FORCE)"
		exit 0
	fi
fi

echo "== decoder throughput ($ROWS inserts in one transaction, then $ROWS/2 updates)"
q -c "TRUNCATE src"
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
