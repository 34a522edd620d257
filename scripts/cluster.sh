#!/usr/bin/env bash
# scripts/cluster.sh — a local, throw-away PostgreSQL 15 cluster for developing and testing dynview.
#
# usage: scripts/cluster.sh start|stop|restart|status|env|destroy
#
#   start    initdb if needed (reusing an existing data directory), write the dynview settings,
#            start the server and wait until it accepts connections.  Does nothing if running.
#   stop     fast shutdown.  Does nothing if not running.
#   restart  stop, then start (picks up changed settings, e.g. DV_PRELOAD).
#   status   print the paths and whether the server is running (exit 0 running, 3 not running).
#   env      print `export PG...` lines:  eval "$(scripts/cluster.sh env)"
#   destroy  stop and remove the data directory (the next start begins empty).
#
# Environment:
#   DV_PORT     port (default 5499); the server listens on a unix socket only.
#   DV_DATA     data directory (default <base>/data).
#   DV_BASE     directory holding data/, sock/ and server.log (default <repo>/.cluster for port
#               5499, <repo>/.cluster-<port> for another port, or /var/tmp/dynview-<port> when the
#               server user cannot reach the repository).
#   DV_PRELOAD  shared_preload_libraries (default 'dynview,pg_cron').
#   DV_PGBIN    the PostgreSQL 15 binaries (default /usr/lib/postgresql/15/bin; scripts/private-pg.sh).
#
# PostgreSQL refuses to run as root, so when this script runs as root the server programs run as
# user postgres (runuser).  The bootstrap superuser is always named postgres (initdb -U postgres),
# so clients connect with PGUSER=postgres whoever started the cluster.  The server log is
# <datadir>/../server.log.  Settings live in <datadir>/dynview.conf, rewritten at every start.
set -euo pipefail

PGBIN=${DV_PGBIN:-/usr/lib/postgresql/15/bin}
umask 022
# runuser lives in /usr/sbin, which minimal environments (env -i, cron, CI) may leave out.
export PATH="$PATH:/usr/sbin:/sbin"
SERVER_USER=postgres

die() {
	echo "cluster.sh: $*" >&2
	exit 1
}

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
PORT=${DV_PORT:-5499}
PRELOAD=${DV_PRELOAD:-dynview,pg_cron}
case "$PORT" in
'' | *[!0-9]*) die "DV_PORT must be a number, not '$PORT'" ;;
esac

if [ "$(id -u)" -eq 0 ]; then
	AS_ROOT=1
	id "$SERVER_USER" >/dev/null 2>&1 || die "user $SERVER_USER does not exist (run scripts/install-deps.sh)"
	command -v runuser >/dev/null 2>&1 || die "runuser not found (package util-linux)"
else
	AS_ROOT=0
fi

# Run a command as the user that owns the server, from a directory that user can read.
as_server() {
	if [ "$AS_ROOT" -eq 1 ]; then
		(cd / && runuser -u "$SERVER_USER" -- "$@")
	else
		(cd / && "$@")
	fi
}

# as_server for `test`, without failing the script.
server_can() {
	as_server test "$@" 2>/dev/null
}

# Paths.  They depend only on the environment and the file system, so `env` and `start` agree.
if [ -n "${DV_BASE:-}" ]; then
	BASE=$DV_BASE
elif [ "$PORT" = 5499 ] && server_can -x "$REPO" && { [ -w "$REPO" ] || server_can -w "$REPO/.cluster"; }; then
	BASE=$REPO/.cluster
elif server_can -x "$REPO" && { [ -w "$REPO" ] || server_can -w "$REPO/.cluster-$PORT"; }; then
	# another port, another cluster: the tests on DV_PORT=5498 never touch the demo's cluster
	BASE=$REPO/.cluster-$PORT
else
	# e.g. a CI clone under /root: user postgres cannot traverse it.
	BASE=/var/tmp/dynview-$PORT
fi
case "$BASE" in /*) ;; *) BASE=$PWD/$BASE ;; esac
DATA=${DV_DATA:-$BASE/data}
case "$DATA" in /*) ;; *) DATA=$PWD/$DATA ;; esac
LOGFILE=$(dirname "$DATA")/server.log
SOCK=$BASE/sock
# A unix socket path is limited to 107 bytes.
if [ $((${#SOCK} + ${#PORT} + 12)) -gt 100 ]; then
	SOCK=/tmp/dynview-sock-$PORT
fi

# Create a directory (and parents) for the server user.  Only directories this script owns by
# design (or creates) are handed to the server user: never chown a directory the caller named.
make_server_dir() {
	local dir=$1 mode=$2 ours=$3
	if [ ! -d "$dir" ]; then
		mkdir -p "$dir"
		ours=1
	fi
	if [ "$ours" -eq 1 ]; then
		if [ "$AS_ROOT" -eq 1 ]; then
			chown "$SERVER_USER:" "$dir"
		fi
		chmod "$mode" "$dir"
	fi
}

is_running() {
	[ -f "$DATA/PG_VERSION" ] || return 1
	as_server "$PGBIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1
}

pick_locale() {
	if locale -a 2>/dev/null | grep -qiE '^c\.utf-?8$'; then
		echo C.UTF-8
	else
		echo C
	fi
}

write_settings() {
	local conf=$DATA/dynview.conf tmp
	tmp=$(mktemp)
	cat >"$tmp" <<CONF
# Written by scripts/cluster.sh at every start; edit the script, not this file.
port = $PORT
listen_addresses = ''
unix_socket_directories = '$SOCK'
wal_level = logical
shared_preload_libraries = '$PRELOAD'
cron.database_name = 'postgres'
cron.host = '$SOCK'
max_replication_slots = 20
max_wal_senders = 20
max_worker_processes = 32
log_min_messages = warning
CONF
	# Some PostgreSQL builds only let listed libraries be output plugins; dynview's decoder
	# uses its own library as one.  Stock builds have no such setting (naming it would fail).
	local described
	described=$("$PGBIN/postgres" --describe-config 2>/dev/null || true)
	if grep -q '^output_plugin_libraries' <<<"$described"; then
		echo "output_plugin_libraries = 'pgoutput, test_decoding, dynview'" >>"$tmp"
	fi
	if [ "$AS_ROOT" -eq 1 ]; then
		chown "$SERVER_USER:" "$tmp"
	fi
	chmod 600 "$tmp"
	mv -f "$tmp" "$conf"
	if ! grep -q "^include_if_exists = 'dynview.conf'" "$DATA/postgresql.conf"; then
		# shellcheck disable=SC2016  # $1 is expanded by the inner sh
		as_server sh -c 'printf "\n%s\n" "include_if_exists = '\''dynview.conf'\''" >>"$1"' sh \
			"$DATA/postgresql.conf"
	fi
}

do_initdb() {
	if [ -d "$DATA" ] && [ -n "$(ls -A "$DATA" 2>/dev/null)" ]; then
		die "$DATA exists, is not empty and holds no cluster (no PG_VERSION); remove it or set DV_DATA"
	fi
	if [ -z "${DV_DATA:-}" ]; then
		make_server_dir "$BASE" 755 1
	fi
	make_server_dir "$(dirname "$DATA")" 755 0
	make_server_dir "$DATA" 700 1
	server_can -x "$(dirname "$DATA")" ||
		die "user $SERVER_USER cannot reach $(dirname "$DATA"); set DV_BASE or DV_DATA to a directory it can use"
	local loc
	loc=$(pick_locale)
	echo "cluster.sh: initdb $DATA (locale $loc)"
	as_server "$PGBIN/initdb" -D "$DATA" -U postgres --auth=trust -E UTF8 --locale="$loc" >/dev/null
}

cmd_start() {
	if is_running; then
		echo "cluster.sh: already running (data $DATA, port $PORT)"
		return 0
	fi
	if [ ! -f "$DATA/PG_VERSION" ]; then
		do_initdb
	fi
	make_server_dir "$SOCK" 755 1
	write_settings
	if [ ! -e "$LOGFILE" ]; then
		touch "$LOGFILE"
	fi
	if [ "$AS_ROOT" -eq 1 ]; then
		chown "$SERVER_USER:" "$LOGFILE"
	fi
	echo "cluster.sh: starting (data $DATA, port $PORT, socket $SOCK, preload '$PRELOAD')"
	if ! as_server "$PGBIN/pg_ctl" -D "$DATA" -l "$LOGFILE" -w -t 120 start >/dev/null; then
		echo "cluster.sh: start failed; last lines of $LOGFILE:" >&2
		tail -n 30 "$LOGFILE" >&2 || true
		exit 1
	fi
	echo "cluster.sh: ready; log $LOGFILE"
}

cmd_stop() {
	if ! is_running; then
		echo "cluster.sh: not running (data $DATA)"
		return 0
	fi
	as_server "$PGBIN/pg_ctl" -D "$DATA" -m fast -w -t 120 stop >/dev/null
	echo "cluster.sh: stopped"
}

cmd_destroy() {
	cmd_stop
	if [ -e "$DATA" ]; then
		rm -rf -- "$DATA"
		echo "cluster.sh: removed $DATA"
	fi
}

cmd_status() {
	echo "data:    $DATA"
	echo "port:    $PORT"
	echo "socket:  $SOCK"
	echo "log:     $LOGFILE"
	echo "preload: $PRELOAD"
	if is_running; then
		echo "state:   running"
	else
		echo "state:   stopped"
		return 3
	fi
}

cmd_env() {
	printf 'export PGHOST=%q PGPORT=%q PGUSER=postgres PGDATABASE=postgres\n' "$SOCK" "$PORT"
}

case "${1:-}" in
start) cmd_start ;;
stop) cmd_stop ;;
restart) cmd_stop && cmd_start ;;
status) cmd_status ;;
env) cmd_env ;;
destroy) cmd_destroy ;;
*)
	echo "usage: $0 start|stop|restart|status|env|destroy" >&2
	exit 2
	;;
esac
