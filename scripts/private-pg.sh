#!/usr/bin/env bash
# scripts/private-pg.sh DIR — copy PostgreSQL 15's installation (binaries, libraries, share files)
# into DIR, so that two work trees can build, install and test dynview at once without replacing
# each other's build in the system's directories.  PostgreSQL finds its share and library
# directories relative to its binaries, so the copy is self-contained.  Prints the line to use:
#
#   DV_PGBIN=DIR/usr/lib/postgresql/15/bin DV_PORT=5510 bash scripts/test.sh
#
# scripts/test.sh, cluster.sh, demo.sh and doc-examples.sh honour DV_PGBIN (default: the system's
# /usr/lib/postgresql/15/bin); `make install` then installs into the copy (pg_config is found on
# PATH before the system's).  Run scripts/install-deps.sh first, so pg_cron, pgTAP and pg_partman are copied too.
set -euo pipefail
dir=${1:?usage: scripts/private-pg.sh DIR}
mkdir -p "$dir/usr/lib/postgresql" "$dir/usr/share/postgresql" "$dir/usr/include"
cp -a /usr/lib/postgresql/15 "$dir/usr/lib/postgresql/"
cp -a /usr/share/postgresql/15 "$dir/usr/share/postgresql/"
[ -e "$dir/usr/include/postgresql" ] || ln -s /usr/include/postgresql "$dir/usr/include/postgresql"
chmod -R a+rX "$dir"
echo "DV_PGBIN=$dir/usr/lib/postgresql/15/bin"
