#!/usr/bin/env bash
# scripts/doc-examples.sh — run every SQL example of the documentation as a test.
#
# usage: scripts/doc-examples.sh [-v] [PAGE.md ...]
#
# Pages: README.md and doc/*.md (or the pages named).  Each page runs in a fresh database
# dv_doc_<page> with the extension created (CREATE EXTENSION dynview; wait_for_capture()), and
# its fenced blocks run in order, each in its own psql session with ON_ERROR_STOP:
#
#   ```sql              must run without error and without WARNING (```sql warns allows one)
#   ```sql fails        must fail; its error must come from its last statement, and a comment
#                       `-- ERROR:  text` in it must match the error message
#   ```sql db=postgres  runs in database postgres (where pg_cron lives); the literal 'mydb' in
#                       it is replaced by the page's database
#   ```text, ```sh, ``` not run (output, shell commands)
#
# A page may hold a table of SQL constructs after the line `<!-- doc-examples: construct-table -->`
# (doc/supported-sql.md).  After the page's blocks have run, each row's example query becomes a
# dynamic table, and what dynview.explain() and dynview.dynamic_tables say (effective_mode,
# mode_reason_code) must equal the row's claim; then one row of every source is deleted, each
# table refreshed, and the history row's refresh_mode must fit the claim and verify() be true.
# Every reason code that the engine's query analysis can give (string literals in src/analyze)
# must be named on that page.
#
# Connection: the usual libpq variables (PGHOST, PGPORT, PGUSER), e.g. from
# eval "$(scripts/cluster.sh env)".  The databases are dropped afterwards (DV_DOCS_KEEP=1 keeps
# them).  Closing line: `N blocks passed, N failed` (and the table rows); exit status non-zero on
# any failure.
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
export PATH="${DV_PGBIN:-/usr/lib/postgresql/15/bin}:$PATH"
exec /usr/bin/python3 "$REPO/scripts/doc_examples.py" --repo "$REPO" "$@"
