#!/usr/bin/env bash
# bench/key_type_ab.sh — a select table whose key is varchar (or another type whose default B-tree
# operator family takes a type it is binary coercible to: a domain, an enum, an array): the
# refresh of a change that updates and deletes rows, with two or more builds of dynview.so
# alternated (issue 14; apply.c's direct delete finds the rows through the key index only when it
# accepts the index's operator family, else apply_spj's SQL key delete runs).  A table of N rows
# (varchar(20) key, numeric, text) and its dynamic table SELECT * are made once; then for each
# build in turn: install it into the private PostgreSQL (DV_PGBIN's), restart the cluster, one
# warm-up round, then R rounds of: UPDATE of 1,000 rows (new values), DELETE of 200, INSERT of 200,
# captured, then dynview.refresh() in one warm connection: its backend CPU
# (/proc/<pid>/schedstat) and the history's duration; verify() after the last round.
# Usage: eval "$(scripts/cluster.sh env)"; bench/key_type_ab.sh N R -- a.so b.so a.so b.so ...
# Restarts the cluster (scripts/cluster.sh): only for a private one. Not a test.
set -euo pipefail
N=${1:?usage: bench/key_type_ab.sh N R -- build.so ...}
R=${2:-7}
shift 2
[ "${1:-}" = -- ] && shift
HERE=$(cd "$(dirname "$0")" && pwd)
DB=dv_bench_key_type
. "$HERE/lib.sh"
LIB=$("${DV_PGBIN:?DV_PGBIN: the private PostgreSQL}/pg_config" --pkglibdir)
bench_new_db
q -c "CREATE TABLE kt_src (id varchar(20) PRIMARY KEY, amount numeric, note text)" \
  -c "INSERT INTO kt_src SELECT 'key-' || lpad(i::text, 9, '0'), i, 'note ' || i FROM generate_series(1, $N) i" \
  -c "VACUUM ANALYZE kt_src" \
  -c "SELECT dynview.create_dynamic_table('kt_rows', 'SELECT id, amount, note FROM kt_src', schedule => 'manual', refresh_mode => 'incremental')" >/dev/null
round=0
change() {
	round=$((round + 1))
	q -c "UPDATE kt_src SET amount = amount + 1 WHERE id IN (SELECT 'key-' || lpad((1 + (g * 7919 + $round * 13) % $N)::text, 9, '0') FROM generate_series(1, 1000) g)" \
	  -c "DELETE FROM kt_src WHERE id IN (SELECT 'key-' || lpad((1 + (g * 104729 + $round * 31) % $N)::text, 9, '0') FROM generate_series(1, 200) g)" \
	  -c "INSERT INTO kt_src SELECT 'new-$round-' || g, g, 'new' FROM generate_series(1, 200) g" \
	  -c "SELECT dynview.wait_for_capture('10 minutes')" >/dev/null
}
for so in "$@"; do
	bash "$HERE/../scripts/cluster.sh" stop >/dev/null
	install -m 755 "$so" "$LIB/dynview.so"
	bash "$HERE/../scripts/cluster.sh" start >/dev/null
	coproc P { psql -X -q -At -v ON_ERROR_STOP=1 -d "$DB"; }
	echo "SELECT pg_backend_pid();" >&"${P[1]}"; read -r pid <&"${P[0]}"
	cpus=()
	for r in $(seq 0 "$R"); do
		change
		a=$(cpu_ms "$pid")
		echo "SELECT refresh_mode FROM dynview.refresh('kt_rows');" >&"${P[1]}"; read -r mode <&"${P[0]}"
		b=$(cpu_ms "$pid")
		[ "$r" = 0 ] && continue
		cpus+=("$(diff_ms "$a" "$b")")
	done
	echo '\q' >&"${P[1]}"
	wait "$P_PID" 2>/dev/null || true
	echo "$(basename "$so") $(date -u +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg): $mode; refresh CPU ms: ${cpus[*]}; median $(printf '%s\n' "${cpus[@]}" | med); history ms (last): $(q -c "SELECT round(duration_ms::numeric, 1) FROM dynview.refresh_history('kt_rows', 1)")"
done
echo "verify: $(q -c "SELECT dynview.verify('kt_rows')")"
bench_drop_db
