#!/usr/bin/env bash
# bench/implied_ab.sh — the count an implied restriction asks of its chain (optree.c
# implied_values: TPC-H Q7's shape, the orders of the regions of two nations joined to a customer
# table too large for shared buffers), two or more builds of dynview.so compared (issue 14).  Per
# build, in turn: install it into the private PostgreSQL (DV_PGBIN's), restart the cluster, then
# in one connection R committed refreshes of the dynamic table in a row, each after a change of
# the orders (DV_BENCH_CHANGE new, 40 by default, half as many deleted; made by another connection
# and captured first), as a
# scheduler's worker refreshes a table.  For each refresh: the backend's CPU (/proc/<pid>/schedstat,
# ms), and, counted inside its transaction (pg_stat_xact_user_tables / pg_stat_get_xact_numscans),
# the scans of the chain's tables (the count statement reads them; the refresh's own statement
# too) and how the customer table was read (by its nation index, by its key, whole: the choice
# the count serves).  Medians over refreshes 2..R (the first of a connection counts for every
# build).  Ends with dynview.verify().  Alternate the builds (a b a b ...) to see the drift.
# Usage: eval "$(scripts/cluster.sh env)"; [DV_BENCH_CHANGE=N] bench/implied_ab.sh R -- build1.so build2.so ...
# Restarts the cluster (scripts/cluster.sh): only for a private one. Uses database
# dv_bench_implied (made again). Not a test.
set -euo pipefail
R=${1:?usage: bench/implied_ab.sh R -- build.so ...}
ROWS=${DV_BENCH_CHANGE:-40}
shift
[ "${1:-}" = -- ] && shift
HERE=$(cd "$(dirname "$0")" && pwd)
LIB=$("${DV_PGBIN:?DV_PGBIN: the private PostgreSQL}/pg_config" --pkglibdir)
DB=dv_bench_implied
. "$HERE/lib.sh"
med() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

bench_new_db
q <<'SQL' >/dev/null
SET client_min_messages = warning;
CREATE TABLE bim_r (rk int PRIMARY KEY, name text);
CREATE TABLE bim_n (nk int PRIMARY KEY, rk int, name text);
CREATE TABLE bim_c (ck int PRIMARY KEY, nk int, pad text) WITH (fillfactor = 10);
CREATE INDEX bim_c_nk ON bim_c (nk);
CREATE TABLE bim_o (ok int PRIMARY KEY, ck int, amt numeric(10, 2), sn int);
CREATE INDEX ON bim_o (ck);
INSERT INTO bim_r VALUES (0, 'AFRICA'), (1, 'AMERICA'), (2, 'ASIA'), (3, 'EUROPE'), (4, 'MIDDLE EAST');
INSERT INTO bim_n SELECT i, i % 5, 'N' || i FROM generate_series(0, 24) i;
INSERT INTO bim_c SELECT i, i % 25, repeat('x', 300) FROM generate_series(1, 15000) i;
INSERT INTO bim_o SELECT i, 1 + (i * 7) % 15000, (i % 1000) / 10.0, i % 25 FROM generate_series(1, 20000) i;
ANALYZE bim_r, bim_n, bim_c, bim_o;
SELECT dynview.create_dynamic_table('bim_two',
  $$SELECT o.ok, c.ck, n2.name FROM bim_o o, bim_c c, bim_n n, bim_r r, bim_n n2
     WHERE o.ck = c.ck AND c.nk = n.nk AND n.rk = r.rk AND r.name = 'AMERICA'
       AND o.sn = n2.rk AND n2.name IN ('N1', 'N2')$$, schedule => 'manual');
CREATE SEQUENCE bim_next START 100001;
SQL
echo "bim_c $(q -c "SELECT pg_relation_size('bim_c') / 8192") pages; shared_buffers $(q -c "SHOW shared_buffers")"

# one refresh in connection P, committed: the scans of bim_n and bim_r, and of bim_c by its nation
# index, by its key, whole, before and after it in its transaction (pending counts accumulate
# across transactions until they are reported: the difference is the refresh's)
STATS="SELECT concat_ws(' ', coalesce(sum(seq_scan + coalesce(idx_scan, 0)) FILTER (WHERE relname IN ('bim_n', 'bim_r')), 0),
                 pg_stat_get_xact_numscans('bim_c_nk'::regclass), pg_stat_get_xact_numscans('bim_c_pkey'::regclass),
                 coalesce(sum(seq_scan) FILTER (WHERE relname = 'bim_c'), 0))
  FROM pg_stat_xact_user_tables;"
REFRESH="BEGIN; $STATS SELECT refresh_mode FROM dynview.refresh('bim_two') \\g /dev/null
$STATS COMMIT;"
CHANGE="INSERT INTO bim_o SELECT i, 1 + (i * 13) % 15000, (i % 700) / 10.0, i % 23
          FROM (SELECT nextval('bim_next') i FROM generate_series(1, $ROWS)) s;
        DELETE FROM bim_o WHERE ok IN (SELECT ok FROM bim_o ORDER BY ok LIMIT $((ROWS / 2)));
        SELECT dynview.wait_for_capture('60 seconds');"
for so in "$@"; do
	bash "$HERE/../scripts/cluster.sh" stop >/dev/null
	install -m 755 "$so" "$LIB/dynview.so"
	bash "$HERE/../scripts/cluster.sh" start >/dev/null
	q -c "SELECT dynview.wait_for_capture('10 minutes')" -c "SELECT dynview.refresh('bim_two')" -c "VACUUM" >/dev/null
	cpus=(); scans=(); reads=()
	coproc P { psql -X -q -At -v ON_ERROR_STOP=1 -d "$DB"; }
	ppid=$P_PID
	echo "SELECT pg_backend_pid();" >&"${P[1]}"; read -r pid <&"${P[0]}"
	for k in $(seq 1 "$R"); do
		q -c "$CHANGE" >/dev/null
		a=$(cpu_ms "$pid"); echo "$REFRESH" >&"${P[1]}"; read -r s0 <&"${P[0]}"; read -r s1 <&"${P[0]}"; b=$(cpu_ms "$pid")
		if [ "$k" -gt 1 ]; then
			cpus+=("$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.1f", b - a}')")
			read -r c0 n0 k0 w0 <<<"$s0"; read -r c1 n1 k1 w1 <<<"$s1"
			scans+=("$((c1 - c0))"); reads+=("nation-index:$((n1 - n0)),key:$((k1 - k0)),whole:$((w1 - w0))")
		fi
	done
	echo '\q' >&"${P[1]}"
	wait "$ppid" 2>/dev/null || true
	echo "$(basename "$so") $(date -u +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg): refreshes 2..$R," \
		"CPU ms median $(printf '%s\n' "${cpus[@]}" | med) (${cpus[*]});" \
		"scans of bim_n and bim_r per refresh, median $(printf '%s\n' "${scans[@]}" | med);" \
		"bim_c read: $(printf '%s\n' "${reads[@]}" | sort | uniq -c | awk '{printf "%s x%s ", $2, $1}');" \
		"verify $(q -c "SELECT dynview.verify('bim_two')")"
done
bench_drop_db
