#!/usr/bin/env bash
# bench/refresh_cpu.sh — CPU time of one backend per pipeline refresh of the sales dashboard
# (issue 14), on a database kept by DV_BENCH_KEEP=1 bench/pipeline.sh <orders>: on a machine
# shared with other work, wall times are noise; the backend's CPU time is not: read from
# /proc/<pid>/schedstat (nanoseconds, printed to 0.1 ms) where the kernel has it, else from
# /proc/<pid>/stat (ticks of 10 ms).  Each round: another connection makes the pipeline.sh change (1,000 new
# orders, 100 updated, 100 deleted) and waits for the decoder; then the backend refreshes the
# pipeline (rank layer, upstreams first), then refreshes it again with nothing changed.
# Usage: eval "$(scripts/cluster.sh env)"; bench/refresh_cpu.sh [orders] [rounds]
#        DV_BENCH_PERF=file: also `perf record -g` the backend over the rounds into file.
#        DV_BENCH_DB=name: another database of pipeline.sh (dv_bench_pipeline_<orders>_left for
#        DV_BENCH_JOIN=left).
#        DV_BENCH_OFFSET=K (default 0): added to the numbers of the orders updated and deleted, so
#        that runs on one database with different offsets (e.g. 1000, 2000) change other orders
#        (with the same offset, a second run's deletes find their orders gone).
#        DV_BENCH_SPREAD=1: each round updates and deletes orders 13 further than the last round's
#        (as lib.sh's pipeline_change, which pipeline_profile.sh and checkpoint_pipeline.sh use),
#        not 1 further: other B-tree leaves and, every few rounds, other heap pages each round.
#        Its orders (offsets 500-617 on demand, 600-717 by the scheduler, + DV_BENCH_OFFSET)
#        are not the default rounds' (7-70), nor each other's.
#        DV_BENCH_VERIFY=0: no verify() at the end (at 10M it takes 15-20 minutes at load).
#        DV_BENCH_SCHEDULER=1: the scheduler worker refreshes the pipeline instead (design
#        section 7: warm caches, kept statements): each round, after the change is captured, the
#        rank layer's schedule is set to '1 second' (its upstreams are refreshed with it, one
#        pipeline), the round waits for the worker's SYSTEM_SCHEDULED history row of the rank
#        layer, then sets the schedule back to 'manual'.  Measured: the worker's CPU from before
#        the schedule change to after its pipeline committed (its look for due tables, the
#        RUNNING rows, the pipeline, the rows' clean-up), and the pipeline's server-side time
#        (first start to last end of the three layers' history rows).
# Needs the server on this machine. Not a test.
set -euo pipefail
N=${1:-1000000}
R=${2:-5}
DB=${DV_BENCH_DB:-dv_bench_pipeline_$N}
OFF=${DV_BENCH_OFFSET:-0}
SPREAD=${DV_BENCH_SPREAD:-0}
export PATH="/usr/lib/postgresql/15/bin:$PATH"
. "$(dirname "$0")/lib.sh"
# change_sql PREFIX R U D: round R's change: 1,000 new orders named PREFIX<R>-<pid>-<n>, 100 orders
# updated (997 g + U + R + OFF) and 100 deleted (991 g + D + 3 R + OFF); with DV_BENCH_SPREAD=1 the
# updated and deleted orders move 13 each round from offsets 10 U and 10 U + 5
change_sql() {
	local u=$(($3 + $2 + OFF)) d=$(($4 + 3 * $2 + OFF))
	[ "$SPREAD" = 1 ] && { u=$((10 * $3 + 13 * $2 + OFF)); d=$((10 * $3 + 5 + 13 * $2 + OFF)); }
	echo "INSERT INTO doc_orders SELECT '$1$2-$$-' || g, 'U' || g, 'P' || (1 + (g * 7 + $2) % 10000), 2, 50.00, 100.00, now(), 'completed' FROM generate_series(1, 1000) g;
UPDATE doc_orders SET quantity = quantity + 1, amount = amount + unit_price WHERE order_id IN (SELECT 'O' || (g * 997 + $u) FROM generate_series(1, 100) g);
DELETE FROM doc_orders WHERE order_id IN (SELECT 'O' || (g * 991 + $d) FROM generate_series(1, 100) g);"
}
if [ -r /proc/self/schedstat ]; then
	cpu_ms() { awk '{printf "%.1f\n", $1 / 1e6}' "/proc/$1/schedstat"; }
	# time the process was runnable but waited for a CPU (the machine's load, not dynview's work)
	runq_ms() { awk '{printf "%.1f\n", $2 / 1e6}' "/proc/$1/schedstat"; }
else
	cpu_ms() { awk '{print ($14 + $15) * 10}' "/proc/$1/stat"; }
	runq_ms() { echo 0; }
fi
if [ "${DV_BENCH_SCHEDULER:-0}" = 1 ]; then
	spid=$(q -c "SELECT pid FROM pg_stat_activity WHERE backend_type = 'dynview scheduler' AND datname = current_database()")
	[ -n "$spid" ] || { echo "no dynview scheduler in $DB" >&2; exit 1; }
	echo "orders=$N$([ "$SPREAD" = 1 ] && echo ", change spread") scheduler pid $spid load: $(cut -d' ' -f1-3 /proc/loadavg)"
	# the schedule changes and the look for the worker's history row go through one open
	# connection: a psql started every 50 ms (a process, a connection, a backend) competed with the
	# worker for the machine's two CPUs and lengthened the pipeline it timed (twenty-ninth session)
	coproc W { psql -X -q -At -v ON_ERROR_STOP=1 -d "$DB"; }
	w() { echo "$1" >&"${W[1]}"; read -r wl <&"${W[0]}"; echo "$wl"; }
	last() { w "SELECT coalesce(max(refresh_id), 0) FROM dynview.refresh_history WHERE table_name = 'doc_ads_category_rank' AND refresh_trigger = 'SYSTEM_SCHEDULED' AND state <> 'RUNNING';"; }
	all=()
	walls=()
	for r in $(seq 0 "$R"); do
		q -c "BEGIN; $(change_sql sch "$r" 60 8) COMMIT;" \
			-c "SELECT dynview.wait_for_capture('10 minutes')" >/dev/null
		l0=$(last)
		c0=$(cpu_ms "$spid")
		w0=$(runq_ms "$spid")
		w "SELECT dynview.alter_dynamic_table('doc_ads_category_rank', schedule => '1 second');" >/dev/null
		for _ in $(seq 1 6000); do [ "$(last)" != "$l0" ] && break; sleep 0.05; done
		c1=$(cpu_ms "$spid")
		w1=$(runq_ms "$spid")
		w "SELECT dynview.alter_dynamic_table('doc_ads_category_rank', schedule => 'manual');" >/dev/null
		# the worker's first pipeline after the change (a second one, NO_DATA, may follow a second later)
		l1=$(q -c "SELECT min(refresh_id) FROM dynview.refresh_history WHERE table_name = 'doc_ads_category_rank' AND refresh_trigger = 'SYSTEM_SCHEDULED' AND state <> 'RUNNING' AND refresh_id > $l0")
		info=$(q -c "SELECT round(extract(epoch FROM max(end_time) - min(start_time))::numeric * 1000, 1) || ' ms (' ||
			string_agg(table_name || '=' || refresh_mode || ':' || round(duration_ms::numeric, 1) || 'ms', ' ' ORDER BY refresh_id) || ')'
			FROM dynview.refresh_history WHERE refresh_id BETWEEN $l1 - 2 AND $l1")
		wall=$(q -c "SELECT round(extract(epoch FROM max(end_time) - min(start_time))::numeric * 1000, 1) FROM dynview.refresh_history WHERE refresh_id BETWEEN $l1 - 2 AND $l1")
		if [ "$r" = 0 ]; then
			echo "round 0 (not counted: the worker's first pipeline of this bench): CPU $(diff_ms "$c0" "$c1") ms, server-side $info"
			continue
		fi
		echo "round $r: scheduler CPU $(diff_ms "$c0" "$c1") ms (waited for a CPU $(diff_ms "$w0" "$w1") ms); pipeline server-side $info"
		all+=("$(diff_ms "$c0" "$c1")")
		walls+=("$wall")
	done
	echo "scheduler worker, median of $R rounds: CPU $(printf '%s\n' "${all[@]}" | med) ms, pipeline server-side $(printf '%s\n' "${walls[@]}" | med) ms"
	[ "${DV_BENCH_VERIFY:-1}" = 0 ] || echo "verify: $(q -c "SELECT dynview.verify('doc_dwd_order_detail') AND dynview.verify('doc_ads_category_gmv') AND dynview.verify('doc_ads_category_rank')")"
	exit 0
fi
coproc P { psql -X -q -At -v ON_ERROR_STOP=1 -d "$DB"; }
srv=()
# run SQL in the measured backend, wait for it to finish
say() {
	local l
	echo "$1 SELECT 'done';" >&"${P[1]}"
	while read -r l <&"${P[0]}"; do [ "$l" = done ] && break; echo "$l"; done
}
echo "SELECT pg_backend_pid();" >&"${P[1]}"; read -r pid <&"${P[0]}"
say "SELECT dynview.refresh('doc_ads_category_rank');" >/dev/null
perf_pid=
if [ -n "${DV_BENCH_PERF:-}" ]; then
	perf record -F 999 -g -p "$pid" -o "$DV_BENCH_PERF" >/dev/null 2>&1 &
	perf_pid=$!
fi
echo "orders=$N$([ "$SPREAD" = 1 ] && echo ", change spread") load: $(cut -d' ' -f1-3 /proc/loadavg)"
all=()
for r in $(seq 1 "$R"); do
	q -c "$(change_sql cpu "$r" 50 7)" \
		-c "SELECT dynview.wait_for_capture('10 minutes')" >/dev/null
	c0=$(cpu_ms "$pid")
	w0=$(runq_ms "$pid")
	t0=$(date +%s%3N)
	say "SELECT dynview.refresh('doc_ads_category_rank');" >/dev/null
	t1=$(date +%s%3N)
	c1=$(cpu_ms "$pid")
	w1=$(runq_ms "$pid")
	say "SELECT dynview.refresh('doc_ads_category_rank');" >/dev/null
	c2=$(cpu_ms "$pid")
	modes=$(q -c "SELECT string_agg(table_name || '=' || refresh_mode || ':' || round(duration_ms::numeric, 1) || 'ms', ' ' ORDER BY refresh_id)
		FROM (SELECT * FROM dynview.refresh_history WHERE refresh_mode <> 'NO_DATA' ORDER BY refresh_id DESC LIMIT 3) h")
	echo "round $r: pipeline refresh $(diff_ms "$c0" "$c1") ms CPU, waited for a CPU $(diff_ms "$w0" "$w1") ms, wall $((t1 - t0)) ms ($modes); no-change refresh $(diff_ms "$c1" "$c2") ms CPU"
	all+=("$(diff_ms "$c0" "$c1")")
	srv+=("$(q -c "SELECT round(sum(duration_ms)::numeric, 1) FROM (SELECT * FROM dynview.refresh_history WHERE refresh_mode <> 'NO_DATA' ORDER BY refresh_id DESC LIMIT 3) h")")
done
echo "pipeline refresh CPU, median of $R rounds: $(printf '%s\n' "${all[@]}" | med) ms (first round, a new connection's, included)"
[ "$R" -gt 1 ] && echo "pipeline refresh in a warm connection, median of rounds 2-$R (of an even count the lower middle one): CPU $(printf '%s\n' "${all[@]:1}" | med) ms, in the server (the three layers' duration_ms) $(printf '%s\n' "${srv[@]:1}" | med) ms"
[ -n "$perf_pid" ] && { kill -INT "$perf_pid"; wait "$perf_pid" || true; }
echo '\q' >&"${P[1]}"
[ "${DV_BENCH_VERIFY:-1}" = 0 ] || echo "verify: $(q -c "SELECT dynview.verify('doc_dwd_order_detail') AND dynview.verify('doc_ads_category_gmv') AND dynview.verify('doc_ads_category_rank')")"
