#!/usr/bin/env bash
# scripts/install-deps.sh — install the Debian 12 packages needed to build and test dynview.
#
# Idempotent: when every package is already installed it returns at once without touching the
# network (so repeated runs are fast and work offline).  As root it runs apt-get; as any other
# user it only reports what is missing and exits 1.
set -euo pipefail

PACKAGES=(
	postgresql-15
	postgresql-server-dev-15
	postgresql-15-cron
	postgresql-15-pgtap
	postgresql-15-partman
	python3-psycopg2
	libtap-parser-sourcehandler-pgtap-perl
	libipc-run-perl
	build-essential
	python3
)

missing_packages() {
	local pkg status
	for pkg in "${PACKAGES[@]}"; do
		status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
		if [ "$status" != "installed" ]; then
			printf '%s\n' "$pkg"
		fi
	done
}

if ! command -v dpkg-query >/dev/null 2>&1; then
	echo "install-deps: dpkg-query not found; this script supports Debian 12 only." >&2
	echo "install-deps: needed: ${PACKAGES[*]}" >&2
	exit 1
fi

mapfile -t missing < <(missing_packages)
if [ "${#missing[@]}" -eq 0 ]; then
	echo "install-deps: all ${#PACKAGES[@]} packages already installed"
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing packages: ${missing[*]}" >&2
	echo "install-deps: run as root:  apt-get update && apt-get install -y ${missing[*]}" >&2
	exit 1
fi

echo "install-deps: installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y "${missing[@]}"

mapfile -t missing < <(missing_packages)
if [ "${#missing[@]}" -ne 0 ]; then
	echo "install-deps: still missing after apt-get: ${missing[*]}" >&2
	exit 1
fi
echo "install-deps: done"
