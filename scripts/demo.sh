#!/usr/bin/env bash
# scripts/demo.sh — THE setup-and-run command: install dependencies, build and install dynview,
# start the local cluster (keeping any existing data), and load the sales dashboard demo
# (demo/sales_dashboard.sql, design.md section 9) into a fresh database dynview_demo.
# The cluster is left running.  DV_PORT, DV_DATA, DV_BASE and DV_PRELOAD go to scripts/cluster.sh.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
cd "$REPO"
umask 022
export PATH="${DV_PGBIN:-/usr/lib/postgresql/15/bin}:$PATH:/usr/sbin:/sbin"
unset PGHOSTADDR PGSERVICE PGSERVICEFILE PGOPTIONS PGPASSWORD

DEMO_SQL=demo/sales_dashboard.sql
DEMO_DB=dynview_demo

header() {
	printf '\n==== %s ====\n' "$*"
}

header "dependencies"
bash scripts/install-deps.sh

header "build and install"
# the compiler's lines go to a log; on failure it is shown
BUILD_LOG=$(mktemp /tmp/dynview-build.XXXXXX)
if ! { make && make install; } >"$BUILD_LOG" 2>&1; then
	cat "$BUILD_LOG" >&2
	echo "demo.sh: build failed (log above)" >&2
	exit 1
fi
echo "built and installed (log: $BUILD_LOG)"

header "cluster"
# restart, so that a running server loads the library just installed (it is preloaded)
bash scripts/cluster.sh restart
eval "$(bash scripts/cluster.sh env)"

header "demo: $DEMO_SQL into database $DEMO_DB"
if [ ! -f "$DEMO_SQL" ]; then
	echo "demo.sh: $DEMO_SQL not found" >&2
	exit 1
fi
psql -X -q -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $DEMO_DB WITH (FORCE)"
createdb "$DEMO_DB"
psql -X -v ON_ERROR_STOP=1 -d "$DEMO_DB" -f "$DEMO_SQL"

# Repeat the cluster settings the caller chose, so the printed commands reach the same cluster.
prefix=""
for var in DV_PORT DV_BASE DV_DATA; do
	if [ -n "${!var:-}" ]; then
		prefix+="$var=$(printf '%q' "${!var}") "
	fi
done

header "done"
echo "The cluster is still running. Connect with:"
echo
echo "  eval \"\$(${prefix}scripts/cluster.sh env)\"; psql -d $DEMO_DB"
echo
echo "Stop it with: ${prefix}scripts/cluster.sh stop"
