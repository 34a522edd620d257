#!/usr/bin/env bash
# bench/vacuum_truncate_ab.sh — the dashboard pipeline's warm refresh with dynview's change buffers
# and state tables under vacuum_truncate = true (PostgreSQL's default: autovacuum cuts the empty
# pages off the end of a relation, so the next write extends it again) and false (the pages stay,
# their space in the free space map), alternated in one run on a DV_BENCH_KEEP=1 bench/pipeline.sh
# database (issue 14).  Each block sets the reloption on every dynview_buffer.* and dynview_state.*
# table, then repeats for SECONDS: the pipeline.sh change (1,000 new orders, 100 updated, 100
# deleted), wait for capture, refresh the rank layer (upstreams first) in one warm connection,
# committed, sleep 1 s (the decoder prunes each second, autovacuum visits each minute).  Per
# refresh: backend CPU (/proc/<pid>/schedstat) and the pages the dynview relations grew by during
# it (pg_relation_size before and after: each new page is one smgrextend, an 8 kB write); per
# block also the decoder worker's CPU (it writes the source's buffer, prunes, and vacuums).
# Usage: eval "$(scripts/cluster.sh env)"; bench/vacuum_truncate_ab.sh [orders] [blocks] [seconds]
#        DV_BENCH_DB=name as for refresh_cpu.sh.  The blocks alternate true, false, true, ...;
#        the reloption is reset (to PostgreSQL's default) at the end.
#        DV_BENCH_BUILDS="a.so b.so": alternate these two builds of dynview.so instead (the
#        reloption left as it is): each block installs its build into DV_PGBIN's PostgreSQL and
#        restarts the cluster (scripts/cluster.sh: a private one only), then warms up for 10 s
#        unmeasured.  Not a test.
set -euo pipefail
N=${1:-1000000}
B=${2:-4}
S=${3:-120}
DB=${DV_BENCH_DB:-dv_bench_pipeline_$N}
. "$(dirname "$0")/lib.sh"
rels="SELECT c.oid FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
	WHERE n.nspname IN ('dynview_buffer', 'dynview_state') AND c.relkind = 'r'"
pages() { q -c "SELECT sum(pg_relation_size(oid) / 8192) FROM ($rels) r"; }
setopt() {
	q -c "SELECT format('ALTER TABLE %s SET (vacuum_truncate = $1)', oid::regclass) FROM ($rels) r" |
		while read -r stmt; do q -c "$stmt" >/dev/null; done
}
say() {
	local l
	echo "$1 SELECT 'done';" >&"${P[1]}"
	while read -r l <&"${P[0]}"; do [ "$l" = done ] && break; echo "$l"; done
}
connect() {
	coproc P { psql -X -q -At -v ON_ERROR_STOP=1 -d "$DB"; }
	echo "SELECT pg_backend_pid();" >&"${P[1]}"; read -r pid <&"${P[0]}"
	say "SELECT dynview.refresh('doc_ads_category_rank');" >/dev/null
}
read -r -a builds <<<"${DV_BENCH_BUILDS:-}"
[ "${#builds[@]}" = 0 ] && connect
r=0
for b in $(seq 1 "$B"); do
	warm=0
	if [ "${#builds[@]}" = 2 ]; then
		opt=${builds[$(((b - 1) % 2))]}
		label="build $opt"
		[ -n "${P_PID:-}" ] && { echo '\q' >&"${P[1]}"; wait "$P_PID" 2>/dev/null || true; }
		bash "$(dirname "$0")/../scripts/cluster.sh" stop >/dev/null
		install -m 755 "$opt" "$("${DV_PGBIN:?DV_PGBIN: the private PostgreSQL}/pg_config" --pkglibdir)/dynview.so"
		bash "$(dirname "$0")/../scripts/cluster.sh" start >/dev/null
		q -c "SELECT dynview.wait_for_capture('10 minutes')" >/dev/null
		connect
		warm=10
	else
		if [ $((b % 2)) = 1 ]; then opt=true; else opt=false; fi
		setopt "$opt"
		label="vacuum_truncate=$opt"
	fi
	cpus=()
	ext=0
	n=0
	dpid=$(q -c "SELECT pid FROM pg_stat_activity WHERE backend_type = 'dynview decoder' AND datname = current_database()")
	started=
	start=$(($(date +%s) + warm))
	end=$((start + S))
	while [ "$(date +%s)" -lt "$end" ]; do
		r=$((r + 1))
		q -c "INSERT INTO doc_orders SELECT 'vt$r-$$-' || g, 'U' || g, 'P' || (1 + (g * 7 + $r) % 10000), 2, 50.00, 100.00, now(), 'completed' FROM generate_series(1, 1000) g;
UPDATE doc_orders SET quantity = quantity + 1, amount = amount + unit_price WHERE order_id IN (SELECT 'O' || (g * 997 + 70 + $r) FROM generate_series(1, 100) g);
DELETE FROM doc_orders WHERE order_id IN (SELECT 'O' || (g * 991 + 9 + 3 * $r) FROM generate_series(1, 100) g);" \
			-c "SELECT dynview.wait_for_capture('10 minutes')" >/dev/null
		p0=$(pages)
		c0=$(cpu_ms "$pid")
		say "SELECT dynview.refresh('doc_ads_category_rank');" >/dev/null
		c1=$(cpu_ms "$pid")
		p1=$(pages)
		sleep 1
		[ "$(date +%s)" -lt "$start" ] && continue
		[ -n "$started" ] || { started=$(date +%s); d0=$(cpu_ms "$dpid"); }
		cpus+=("$(diff_ms "$c0" "$c1")")
		ext=$((ext + p1 - p0))
		n=$((n + 1))
	done
	echo "block $b $label: $n refreshes, CPU median $(printf '%s\n' "${cpus[@]}" | med) ms, pages added during refreshes $ext ($(awk -v e="$ext" -v n="$n" 'BEGIN {printf "%.1f", e / n}') per refresh), decoder CPU $(diff_ms "$d0" "$(cpu_ms "$dpid")") ms in $(($(date +%s) - started)) s, load $(cut -d' ' -f1-3 /proc/loadavg)"
done
echo '\q' >&"${P[1]}"
[ "${#builds[@]}" = 2 ] || q -c "SELECT format('ALTER TABLE %s RESET (vacuum_truncate)', oid::regclass) FROM ($rels) r" |
	while read -r stmt; do q -c "$stmt" >/dev/null; done
echo "verify: $(q -c "SELECT dynview.verify('doc_dwd_order_detail') AND dynview.verify('doc_ads_category_gmv') AND dynview.verify('doc_ads_category_rank')")"
