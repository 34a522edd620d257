#!/usr/bin/env bash
# bench/apply_floor.sh — a select table's refresh against plain PostgreSQL writing the same rows
# (issue 14), in one run: a source af_src (id bigint PRIMARY KEY, v int, pad text) of N rows, the
# dynamic table af_dt (SELECT id, v, pad FROM af_src WHERE v >= 0; key id, its unique index) and
# af_floor, a plain copy of it with the same unique index.  Each round makes, for each kind in
# turn, a change of C rows to af_src, waits for capture, refreshes af_dt, and makes the same change
# to af_floor with one statement, both in one warm connection; the kinds:
#   insert_rising  C new ids above all others, in a scrambled order (a serial's new rows)
#   insert_spread  C new ids spread over the key range (odd ids; the table holds even ones)
#   update_spread  C rows spread over the key range, v changed (no indexed column: HOT if room)
#   delete_spread  C rows spread over the key range deleted
# Prints per kind the medians of the refresh's and the statement's backend CPU (ms,
# /proc/<pid>/schedstat) and their ratio; verify() of af_dt at the end.  The statement is only the
# write (no WAL read, no delta, no commit of its own: the refresh's transaction commits, the
# statement's too, each as a statement of its own).
# Usage: eval "$(scripts/cluster.sh env)"; bench/apply_floor.sh [rows] [rounds] [change]
#        DV_BENCH_DB=name (default dv_bench_apply_<rows>, made and loaded if missing; kept).
#        Each run changes other rows (it takes the next offset from the tables).  Not a test.
set -euo pipefail
N=${1:-5000000}
R=${2:-8}
C=${3:-5000}
DB=${DV_BENCH_DB:-dv_bench_apply_$N}
. "$(dirname "$0")/lib.sh"
if [ "$(DB=postgres q -c "SELECT count(*) FROM pg_database WHERE datname = '$DB'")" = 0 ]; then
	DB=postgres q -c "CREATE DATABASE $DB" >/dev/null
	q -c "SET client_min_messages = warning" -c "CREATE EXTENSION dynview" \
		-c "CREATE TABLE af_src (id bigint PRIMARY KEY, v int, pad text)" \
		-c "INSERT INTO af_src SELECT 2 * g, g % 1000, md5(g::text) FROM generate_series(1, $N) g" \
		-c "CREATE TABLE af_floor AS SELECT id, v, pad FROM af_src" -c "CREATE UNIQUE INDEX ON af_floor (id)" \
		-c "SELECT dynview.create_dynamic_table('af_dt', 'SELECT id, v, pad FROM af_src WHERE v >= 0', schedule => 'manual')" \
		-c "CREATE TABLE af_runs (run int)" -c "VACUUM ANALYZE" -c "CHECKPOINT" >/dev/null
fi
# this run's offset: the spread changes of round K touch ids near (g * STEP + K + 100 * run) * 2
run=$(q -c "INSERT INTO af_runs SELECT coalesce(max(run), 0) + 1 FROM af_runs RETURNING run")
STEP=$((N / C))
coproc P { psql -X -q -At -v ON_ERROR_STOP=1 -d "$DB"; }
ask() { echo "$1" >&"${P[1]}"; read -r out <&"${P[0]}"; echo "$out"; }
pid=$(ask "SELECT pg_backend_pid();")
# the change of kind $1 in round $2 to table $3 (af_src or af_floor)
change_sql() {
	local k=$(($2 + 100 * run))
	case $1 in
	insert_rising) echo "INSERT INTO $3 SELECT m + 1 + (g * 7919) % $C, g, md5(g::text) FROM generate_series(1, $C) g, (SELECT max(id) AS m FROM $3) x" ;;
	insert_spread) echo "INSERT INTO $3 SELECT (g::bigint * $STEP + $k) * 2 + 1, g, 'x' FROM generate_series(1, $C) g ON CONFLICT DO NOTHING" ;;
	update_spread) echo "UPDATE $3 SET v = v + 1 WHERE id IN (SELECT (g::bigint * $STEP + $k) * 2 FROM generate_series(1, $C) g)" ;;
	delete_spread) echo "DELETE FROM $3 WHERE id IN (SELECT (g::bigint * $STEP + $k + $((STEP / 2))) * 2 FROM generate_series(1, $C) g)" ;;
	esac
}
KINDS=(insert_rising insert_spread update_spread delete_spread)
# warm-up: the backend's caches and kept statements
q -c "$(change_sql insert_rising 0 af_src)" -c "SELECT dynview.wait_for_capture('10 minutes')" >/dev/null
ask "SELECT refresh_mode FROM dynview.refresh('af_dt');" >/dev/null
ask "$(change_sql insert_rising 0 af_floor); SELECT 1;" >/dev/null
echo "database $DB, $N rows, $R rounds of $C rows per kind, run $run, load $(cut -d' ' -f1-3 /proc/loadavg)"
declare -A rc fc
for r in $(seq 1 "$R"); do
	for kind in "${KINDS[@]}"; do
		q -c "$(change_sql "$kind" "$r" af_src)" -c "SELECT dynview.wait_for_capture('10 minutes')" >/dev/null
		a=$(cpu_ms "$pid"); mode=$(ask "SELECT refresh_mode FROM dynview.refresh('af_dt');"); b=$(cpu_ms "$pid")
		[ "$mode" = INCREMENTAL ] || { echo "round $r $kind: $mode" >&2; exit 1; }
		rc[$kind]+="$(diff_ms "$a" "$b") "
		a=$(cpu_ms "$pid"); ask "$(change_sql "$kind" "$r" af_floor); SELECT 1;" >/dev/null; b=$(cpu_ms "$pid")
		fc[$kind]+="$(diff_ms "$a" "$b") "
	done
done
echo '\q' >&"${P[1]}"
m() { printf '%s\n' $1 | med; }
for kind in "${KINDS[@]}"; do
	awk -v k="$kind" -v a="$(m "${rc[$kind]}")" -v b="$(m "${fc[$kind]}")" -v ra="${rc[$kind]}" -v fa="${fc[$kind]}" \
		'BEGIN {printf "%-14s refresh CPU ms %6.1f  statement %6.1f  ratio %.2f   (refresh: %s; statement: %s)\n", k, a, b, a / b, ra, fa}'
done
echo "verify: $(q -c "SELECT dynview.verify('af_dt')")"
