#!/usr/bin/env bash
# shellcheck disable=SC2317  # steps and traps are called indirectly
# scripts/test.sh — run all of dynview's tests: THE test command (CI runs it through .ci/run).
#
# Steps, in order, each under its own header:
#   deps       scripts/install-deps.sh
#   build      make clean; make PG_CFLAGS=-Werror; make install
#   cluster    a fresh cluster from scripts/cluster.sh (old one stopped, its data directory removed)
#   regress    make installcheck ISOLATION= TAP_TESTS=    (pg_regress only: test/sql, test/expected)
#   isolation  make installcheck-isolation if the Makefile has that target, else
#              make installcheck REGRESS= TAP_TESTS=      (pg_isolation_regress only: test/specs)
#   pgtap      pg_prove on test/pgtap/*.sql in a fresh database dv_pgtap
#   tap        prove on test/t/*.pl (PostgreSQL::Test::Cluster; as user postgres when root)
#   random     test/random/differential.py (nested queries from a grammar, seeded random DML,
#              interleaved transactions; verify() after every refresh; >= 10,000 verified refreshes)
#   cases      ../shared/tools/dv-cases ../shared/cases test/cases_extra  (the case corpora)
#   docs       scripts/doc-examples.sh  (every SQL example of README.md and doc/*.md)
#
# deps, build and cluster are prerequisites: if one fails, nothing after it runs.  The test suites
# all run (set DV_FAIL_FAST=1 to stop at the first failing one); a suite whose files do not exist
# is skipped.  Each step counts once in the closing line `N passed, N failed`; the exit status is
# non-zero if anything failed.  The cluster is stopped at the end unless DV_KEEP_CLUSTER=1.
# DV_PORT, DV_DATA, DV_BASE and DV_PRELOAD are passed on to scripts/cluster.sh.  DV_PGBIN selects
# another PostgreSQL 15 installation (default /usr/lib/postgresql/15/bin; see scripts/private-pg.sh).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
cd "$REPO"
exec </dev/null

PGBIN=${DV_PGBIN:-/usr/lib/postgresql/15/bin}
PGXS_DIR=$(dirname "$PGBIN")/lib/pgxs
SERVER_USER=postgres
umask 022
export PATH="$PGBIN:$PATH:/usr/sbin:/sbin"
unset PGHOSTADDR PGSERVICE PGSERVICEFILE PGOPTIONS PGPASSWORD

STEPS=() # "status<TAB>name<TAB>seconds<TAB>note"
PASSED=0
FAILED=0
CLUSTER_STARTED=0
FINISHED=0
STEP_OK=1
SKIPFILE=$(mktemp)

header() {
	printf '\n==== %s ====\n' "$*"
}

# Inside a step: mark it skipped (with the reason) and leave it.
skip() {
	printf '%s\n' "$*" >"$SKIPFILE"
	echo "SKIP: $*"
	exit 0
}

# run_step NAME DESCRIPTION COMMAND...: run COMMAND in a subshell with errexit on and record the
# result; STEP_OK is 1 if it passed or was skipped, else 0.  Never call run_step in a condition
# (`if`, `||`, `!`): bash would then ignore errexit inside the step.
run_step() {
	local name=$1 desc=$2 rc start secs note
	shift 2
	header "$name: $desc"
	: >"$SKIPFILE"
	start=$SECONDS
	set +e
	(
		set -euo pipefail
		"$@"
	)
	rc=$?
	set -e
	secs=$((SECONDS - start))
	if [ "$rc" -eq 0 ] && [ -s "$SKIPFILE" ]; then
		note=$(head -n 1 "$SKIPFILE")
		STEPS+=("SKIP	$name	$secs	$note")
		STEP_OK=1
	elif [ "$rc" -eq 0 ]; then
		PASSED=$((PASSED + 1))
		STEPS+=("PASS	$name	$secs	")
		echo "---- $name: passed (${secs}s)"
		STEP_OK=1
	else
		FAILED=$((FAILED + 1))
		STEPS+=("FAIL	$name	$secs	exit status $rc")
		echo "---- $name: FAILED (exit status $rc, ${secs}s)"
		STEP_OK=0
	fi
}

stop_cluster() {
	if [ "$CLUSTER_STARTED" -eq 1 ] && [ "${DV_KEEP_CLUSTER:-0}" != "1" ]; then
		CLUSTER_STARTED=0
		bash scripts/cluster.sh stop || true
	fi
}

finish() {
	local line status name secs note
	FINISHED=1
	header "cleanup"
	if [ "${DV_KEEP_CLUSTER:-0}" = "1" ] && [ "$CLUSTER_STARTED" -eq 1 ]; then
		echo "cluster left running (DV_KEEP_CLUSTER=1); connect with:"
		echo "  $CONNECT_HINT"
	else
		stop_cluster
	fi
	rm -f "$SKIPFILE"
	header "summary"
	for line in "${STEPS[@]}"; do
		IFS=$'\t' read -r status name secs note <<<"$line"
		printf '  %-4s  %-10s %5ss  %s\n' "$status" "$name" "$secs" "$note"
	done
	echo
	echo "$PASSED passed, $FAILED failed"
	if [ "$FAILED" -gt 0 ]; then
		exit 1
	fi
	exit 0
}

on_exit() {
	local rc=$?
	if [ "$FINISHED" -eq 0 ]; then
		# Unexpected exit of this script itself: still stop the cluster.
		stop_cluster
		rm -f "$SKIPFILE"
		echo "test.sh: aborted (exit status $rc)" >&2
	fi
}
trap on_exit EXIT
trap 'echo "test.sh: interrupted" >&2; FAILED=$((FAILED + 1)); STEPS+=("FAIL	interrupt	0	signal"); finish' INT TERM

# A step that did not pass stops everything (prerequisites), or with DV_FAIL_FAST=1 any step.
prerequisite() {
	run_step "$@"
	if [ "$STEP_OK" -ne 1 ]; then
		finish
	fi
}
suite() {
	run_step "$@"
	if [ "$STEP_OK" -ne 1 ] && [ "${DV_FAIL_FAST:-0}" = "1" ]; then
		finish
	fi
}

have_files() {
	compgen -G "$1" >/dev/null
}

# ---- steps ----------------------------------------------------------------------------------

step_deps() {
	bash scripts/install-deps.sh
}

step_build() {
	local jobs
	jobs=$(nproc 2>/dev/null || echo 2)
	echo "+ make clean"
	make clean
	echo "+ make -j$jobs PG_CFLAGS=-Werror"
	make -j"$jobs" PG_CFLAGS=-Werror
	echo "+ make install"
	make install
}

step_cluster() {
	bash scripts/cluster.sh destroy
	bash scripts/cluster.sh start
	psql -X -q -v ON_ERROR_STOP=1 -At -c "SELECT 'connected to ' || version()"
}

print_file() {
	echo "----- $1 -----"
	cat -- "$1"
	echo "----- end of $1 -----"
}

REGRESS_DIFFS=(test/regression.diffs test/results/regression.diffs regression.diffs)
ISOLATION_DIFFS=(test/output_iso/regression.diffs output_iso/regression.diffs)

step_regress() {
	local f
	have_files 'test/sql/*.sql' || skip "no test/sql/*.sql"
	rm -f -- "${REGRESS_DIFFS[@]}"
	# Empty ISOLATION and TAP_TESTS: PGXS's installcheck then runs pg_regress only, and the other
	# suites run (and count) on their own below.
	echo "+ make installcheck ISOLATION= TAP_TESTS="
	if ! make installcheck ISOLATION= TAP_TESTS=; then
		for f in "${REGRESS_DIFFS[@]}"; do
			if [ -s "$f" ]; then
				print_file "$f"
			fi
		done
		return 1
	fi
}

step_isolation() {
	local f
	have_files 'test/specs/*.spec' || skip "no test/specs/*.spec"
	local -a cmd
	if grep -qE '^installcheck-isolation[[:space:]]*:' Makefile; then
		cmd=(make installcheck-isolation)
	elif grep -qE '^ISOLATION[[:space:]]*[:+?]?=' Makefile; then
		# Empty REGRESS and TAP_TESTS: PGXS's installcheck then runs pg_isolation_regress only.
		cmd=(make installcheck REGRESS= TAP_TESTS=)
	else
		echo "test/specs has specs, but the Makefile has neither ISOLATION nor installcheck-isolation" >&2
		return 1
	fi
	rm -f -- "${ISOLATION_DIFFS[@]}"
	echo "+ ${cmd[*]}"
	if ! "${cmd[@]}"; then
		for f in "${ISOLATION_DIFFS[@]}"; do
			if [ -s "$f" ]; then
				print_file "$f"
			fi
		done
		return 1
	fi
}

step_pgtap() {
	have_files 'test/pgtap/*.sql' || skip "no test/pgtap/*.sql"
	dropdb --if-exists --force dv_pgtap
	createdb dv_pgtap
	# committed before the tests: change capture starts only once the extension exists
	# (each test file runs in a transaction that it rolls back)
	psql -X -q -v ON_ERROR_STOP=1 -d dv_pgtap -c 'CREATE EXTENSION dynview' -c 'CREATE EXTENSION pgtap' \
		-c 'SELECT dynview.wait_for_capture()'
	pg_prove --failures -d dv_pgtap test/pgtap/*.sql
}

step_tap() {
	local perl_dir=$PGXS_DIR/src/test/perl regress=$PGXS_DIR/src/test/regress/pg_regress
	local tmp rc
	have_files 'test/t/*.pl' || skip "no test/t/*.pl"
	if [ "$(id -u)" -ne 0 ]; then
		(cd test && env PG_REGRESS="$regress" TESTDIR="$PWD" prove -I "$perl_dir" t/*.pl)
		return
	fi
	# PostgreSQL::Test::Cluster cannot run servers as root: run as user postgres on a copy of
	# test/ in a directory that user owns.
	tmp=$(mktemp -d /tmp/dynview-tap.XXXXXX)
	cp -a test "$tmp/test"
	mkdir "$tmp/tmp"
	chown -R "$SERVER_USER:" "$tmp"
	chmod 755 "$tmp"
	set +e
	(cd "$tmp/test" && runuser -u "$SERVER_USER" -- env PATH="$PATH" PG_REGRESS="$regress" \
		TESTDIR="$tmp/test" TMPDIR="$tmp/tmp" prove -I "$perl_dir" t/*.pl)
	rc=$?
	set -e
	if [ "$rc" -ne 0 ]; then
		echo "TAP logs kept in $tmp/test/tmp_check/log:"
		ls -1 "$tmp/test/tmp_check/log" 2>/dev/null || true
		return "$rc"
	fi
	rm -rf -- "$tmp"
}

step_random() {
	have_files 'test/random/*.py' || skip "no test/random/*.py"
	local min=10000
	# seeded: the seeds are printed; a failure names its seed (rerun with --first-seed S --seeds 1).
	# The defaults verify about 13,800 refreshes (at least 10,000 are required); fewer seeds or
	# steps asked for through the environment drop that requirement.
	if [ -n "${DV_RANDOM_SEEDS:-}" ] || [ -n "${DV_RANDOM_STEPS:-}" ]; then
		min=0
	fi
	/usr/bin/python3 test/random/differential.py --seeds "${DV_RANDOM_SEEDS:-10}" \
		--steps "${DV_RANDOM_STEPS:-2000}" --min-verified "$min"
}

step_cases() {
	local top shared out last rc
	top=$(git -C "$REPO" rev-parse --show-toplevel 2>/dev/null || echo "$REPO")
	shared=$top/../shared
	if [ ! -x "$shared/tools/dv-cases" ] && [ ! -f "$shared/tools/dv-cases" ]; then
		skip "WARNING: $shared/tools/dv-cases not found"
	fi
	[ -d "$shared/cases" ] || skip "WARNING: $shared/cases not found"
	out=$(mktemp)
	set +e
	# the shared corpus, and the project's own cases in the same format (test/cases_extra)
	python3 "$shared/tools/dv-cases" "$shared/cases" test/cases_extra | tee "$out"
	rc=${PIPESTATUS[0]}
	set -e
	last=$(tail -n 1 "$out")
	rm -f -- "$out"
	if [ "$rc" -ne 0 ]; then
		return "$rc"
	fi
	if ! [[ "$last" =~ ^[0-9]+\ passed,\ 0\ failed$ ]]; then
		echo "unexpected closing line from dv-cases: $last"
		return 1
	fi
}

step_docs() {
	bash scripts/doc-examples.sh
}

# ---- run ------------------------------------------------------------------------------------

prerequisite deps "install dependencies" step_deps
prerequisite build "build with -Werror and install" step_build
# The connection settings only depend on paths and the port, so they can be set before start.
if ! CLUSTER_ENV=$(bash scripts/cluster.sh env); then
	FAILED=$((FAILED + 1))
	STEPS+=("FAIL	cluster	0	scripts/cluster.sh env failed")
	finish
fi
eval "$CLUSTER_ENV"
CONNECT_HINT="export $(printf '%q ' PGHOST="$PGHOST" PGPORT="$PGPORT")PGUSER=postgres; psql"
CLUSTER_STARTED=1
prerequisite cluster "fresh cluster ($PGHOST, port $PGPORT)" step_cluster
suite regress "pg_regress: make installcheck" step_regress
suite isolation "isolation tests" step_isolation
suite pgtap "pgTAP: pg_prove" step_pgtap
suite tap "Perl TAP tests: prove test/t" step_tap
suite random "seeded random differential test" step_random
suite cases "case corpus: dv-cases" step_cases
suite docs "documentation examples: scripts/doc-examples.sh" step_docs
finish
