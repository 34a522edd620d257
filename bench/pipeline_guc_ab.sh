#!/usr/bin/env bash
# bench/pipeline_guc_ab.sh — committed dashboard pipeline refreshes under session settings
# alternated in one run, one build (issue 14), on a DV_BENCH_KEEP=1 bench/pipeline.sh database.
# Each variant has a warm connection of its own, with its settings; each round and variant, another
# connection makes the pipeline.sh change (1,000 new orders, 100 updated, 100 deleted; other orders
# each round), waits for capture, and the variant's connection refreshes the rank layer (upstreams
# first), committed: backend CPU (/proc/<pid>/schedstat).  The variants take turns (a b a b ...), so
# the machine's drift falls on all of them; medians per variant.  BASE (default 3000) offsets the
# orders changed: another one for each run on the same database.
# Usage: eval "$(scripts/cluster.sh env)"
#        bench/pipeline_guc_ab.sh [orders] [rounds] "name=SQL" ["name=SQL" ...]
# e.g.   bench/pipeline_guc_ab.sh 1000000 15 "on=SET dynview.delta_statistics = on;" "off=SET dynview.delta_statistics = off;"
#        DV_BENCH_DB=name as for refresh_cpu.sh.  Needs the server on this machine. Not a test.
set -euo pipefail
N=${1:-1000000}
R=${2:-15}
shift 2
VARIANTS=("$@")
DB=${DV_BENCH_DB:-dv_bench_pipeline_$N}
BASE=${BASE:-3000}
. "$(dirname "$0")/lib.sh"
names=()
pids=()
exec 3>&2
for i in "${!VARIANTS[@]}"; do
	v=${VARIANTS[$i]}
	names+=("${v%%=*}")
	coproc_name="C$i"
	# (bash warns that an earlier coproc still runs: several at once is the point)
	{ eval "coproc $coproc_name { psql -X -q -At -v ON_ERROR_STOP=1 -d \"$DB\" 2>&3; }"; } 2>/dev/null
	eval "in=\${${coproc_name}[1]}; out=\${${coproc_name}[0]}"
	echo "${v#*=} SELECT pg_backend_pid();" >&"$in"
	read -r pid <&"$out"
	pids+=("$pid")
	eval "IN_$i=$in; OUT_$i=$out"
done
change() { pipeline_change ga "$1"; }
refresh() {
	local in out mode
	eval "in=\$IN_$1; out=\$OUT_$1"
	echo "SELECT refresh_mode FROM dynview.refresh('doc_ads_category_rank');" >&"$in"
	read -r mode <&"$out"
	[ "$mode" = INCREMENTAL ] || echo "variant ${names[$1]}: $mode" >&2
}
echo "database $DB, $R rounds, variants: ${names[*]}, load $(cut -d' ' -f1-3 /proc/loadavg)"
k=0
# two warm-up rounds per variant: caches and kept statements
for w in 1 2; do
	for i in "${!VARIANTS[@]}"; do change $k; k=$((k + 1)); refresh "$i"; done
done
declare -A cpus
for r in $(seq 1 "$R"); do
	for i in "${!VARIANTS[@]}"; do
		change $k; k=$((k + 1))
		a=$(cpu_ms "${pids[$i]}"); refresh "$i"; b=$(cpu_ms "${pids[$i]}")
		cpus[$i]="${cpus[$i]:-} $(diff_ms "$a" "$b")"
	done
done
for i in "${!VARIANTS[@]}"; do
	echo "${names[$i]}: backend CPU per refresh, ms:${cpus[$i]}; median $(printf '%s\n' ${cpus[$i]} | med)"
done
echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "verify: $(q -c "SELECT dynview.verify('doc_dwd_order_detail') AND dynview.verify('doc_ads_category_gmv') AND dynview.verify('doc_ads_category_rank')")"
