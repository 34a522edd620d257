#!/usr/bin/env python3
"""scripts/doc_examples.py - the runner behind scripts/doc-examples.sh (see its header).

Extracts the fenced SQL blocks of README.md and doc/*.md, runs them page by page in a fresh
database, and checks the construct table of doc/supported-sql.md against the engine.
"""
import argparse
import glob
import os
import re
import subprocess
import sys
import tempfile

FENCE = re.compile(r'^(\s*)(`{3,}|~{3,})\s*([^`]*)$')
TABLE_MARKER = '<!-- doc-examples: construct-table -->'
PSQL_ERROR = re.compile(r'^psql:[^:]*:(\d+): (ERROR|FATAL):\s+(?:([0-9A-Z]{5}): )?(.*)$')
BLOCK_TIMEOUT = 300  # seconds


class Block:
    def __init__(self, page, number, line, info, text):
        self.page = page
        self.number = number        # 1-based among the page's fenced blocks
        self.line = line            # line of the opening fence in the page
        self.info = info.split()
        self.text = text

    @property
    def language(self):
        return self.info[0] if self.info else ''

    @property
    def fails(self):
        return 'fails' in self.info[1:]

    @property
    def database(self):
        for word in self.info[1:]:
            if word.startswith('db='):
                return word[3:]
        return None

    def where(self):
        return '%s block %d (line %d)' % (self.page, self.number, self.line)


def extract_blocks(path, page):
    """Every fenced block of a Markdown file, in order."""
    blocks = []
    with open(path, encoding='utf-8') as f:
        lines = f.read().split('\n')
    i = 0
    number = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, info = m.group(1), m.group(2), m.group(3).strip()
        start = i
        body = []
        i += 1
        while i < len(lines) and not (lines[i].strip().startswith(fence[0] * len(fence))
                                      and lines[i].strip().strip(fence[0]) == ''):
            line = lines[i]
            body.append(line[len(indent):] if line.startswith(indent) else line)
            i += 1
        if i >= len(lines):
            raise SystemExit('%s: unclosed fenced block at line %d' % (page, start + 1))
        number += 1
        blocks.append(Block(page, number, start + 1, info, '\n'.join(body) + '\n'))
        i += 1
    return blocks, lines


def psql(args, database, sql=None, file=None, verbose_errors=True):
    """Run psql; returns (exit status, stdout, stderr)."""
    cmd = ['psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', database]
    if verbose_errors:
        cmd += ['-v', 'VERBOSITY=default']
    cmd += args
    if file:
        cmd += ['-f', file]
    try:
        p = subprocess.run(cmd, input=sql, capture_output=True, text=True, timeout=BLOCK_TIMEOUT)
    except subprocess.TimeoutExpired:
        return 124, '', 'timed out after %d seconds' % BLOCK_TIMEOUT
    return p.returncode, p.stdout, p.stderr


def admin(sql, database='postgres'):
    rc, out, err = psql(['-At'], database, sql=sql)
    if rc != 0:
        raise SystemExit('doc-examples: %s failed in %s:\n%s' % (sql.strip(), database, err))
    return out


def slug(page):
    base = os.path.splitext(os.path.basename(page))[0]
    return 'dv_doc_' + re.sub(r'[^a-z0-9]+', '_', base.lower()).strip('_')


def only_comments_after(text, lineno):
    """True if every line of text after line lineno is blank or an SQL comment."""
    for line in text.split('\n')[lineno:]:
        s = line.strip()
        if s and not s.startswith('--') and s != '\\':
            return False
    return True


def expected_errors(text):
    """The messages of `-- ERROR:  message` comments (text before two spaces and a parenthesis)."""
    out = []
    for m in re.finditer(r'--\s*ERROR:\s+(.*)$', text, re.M):
        msg = re.split(r'\s{2,}\(|\s{2,}--', m.group(1))[0].strip()
        if msg:
            out.append(msg)
    return out


def run_block(block, page_db, verbose):
    """Run one SQL block; returns None when it behaved as documented, else a message."""
    text = block.text
    database = page_db
    if block.database:
        database = block.database
        text = text.replace("'mydb'", "'%s'" % page_db)
    with tempfile.NamedTemporaryFile('w', suffix='.sql', delete=False) as f:
        f.write(text)
        name = f.name
    try:
        rc, out, err = psql(['-P', 'pager=off'], database, file=name)
    finally:
        os.unlink(name)
    if verbose:
        sys.stdout.write(out)
        sys.stdout.write(err)
    errors = [PSQL_ERROR.match(line) for line in err.split('\n')]
    errors = [m for m in errors if m]
    if not block.fails:
        if rc != 0:
            return 'failed (exit status %d):\n%s' % (rc, err.strip())
        # a WARNING (e.g. verify() finding differences) is a failure unless the block says `warns`
        if 'warns' not in block.info[1:] and re.search(r'^psql:[^:]*:\d+: WARNING:', err, re.M):
            return 'raised a WARNING:\n%s' % err.strip()
        return None
    if rc == 0:
        return 'is marked "fails" but ran without error'
    if not errors:
        return 'is marked "fails" but psql ended without an ERROR line (exit status %d):\n%s' % (rc, err.strip())
    lineno, message = int(errors[0].group(1)), errors[0].group(4)
    if not only_comments_after(text, lineno):
        return ('failed at line %d of the block, before its last statement: %s'
                % (lineno, message))
    for want in expected_errors(text):
        if want not in message:
            return 'failed with "%s", but the block says ERROR:  %s' % (message, want)
    return None


# ---- the construct table -----------------------------------------------------------------

def split_row(line):
    cells = re.split(r'(?<!\\)\|', line.strip())
    if cells and cells[0] == '':
        cells = cells[1:]
    if cells and cells[-1] == '':
        cells = cells[:-1]
    return [c.strip().replace('\\|', '|') for c in cells]


def code_span(cell):
    m = re.search(r'(`+)(.+?)\1', cell)
    return m.group(2).strip() if m else None


def plain(cell):
    return re.sub(r'[`*]', '', cell).strip()


def construct_rows(lines, page):
    """The rows of the table after TABLE_MARKER: (line, construct, example, mode, reason)."""
    try:
        start = next(i for i, line in enumerate(lines) if line.strip() == TABLE_MARKER)
    except StopIteration:
        return None
    i = start + 1
    while i < len(lines) and not lines[i].strip().startswith('|'):
        i += 1
    header = [plain(c).lower() for c in split_row(lines[i])]

    def column(word):
        for n, h in enumerate(header):
            if word in h:
                return n
        raise SystemExit('%s: the construct table has no column "%s" (header: %s)' % (page, word, header))
    c_construct, c_example, c_mode, c_reason = column('construct'), column('example'), column('mode'), column('reason')
    rows = []
    i += 2  # header and delimiter row
    while i < len(lines) and lines[i].strip().startswith('|'):
        cells = split_row(lines[i])
        example = code_span(cells[c_example])
        if example is None:
            raise SystemExit('%s line %d: no `query` in the example cell' % (page, i + 1))
        reason = code_span(cells[c_reason]) or '-'
        rows.append((i + 1, plain(cells[c_construct]), example, plain(cells[c_mode]).upper(), reason))
        i += 1
    return rows


def q(s):
    return "'" + s.replace("'", "''") + "'"


def check_construct_table(rows, page, db, repo):
    """Compare each row's claim with the engine.  Returns (passed, failures)."""
    failures = []
    passed = 0
    created = []
    for n, (line, construct, example, mode, reason) in enumerate(rows, 1):
        table = 'public.construct_%d' % n
        where = '%s line %d (%s)' % (page, line, construct)
        sql = ('\\set VERBOSITY verbose\n'
               'SELECT dynview.create_dynamic_table(%s, %s, schedule => \'manual\');\n'
               "SELECT 'TABLE', effective_mode, coalesce(mode_reason_code, '-') FROM dynview.dynamic_tables "
               'WHERE name = %s::regclass;\n'
               "SELECT 'EXPLAIN', max(value) FILTER (WHERE property = 'mode'), "
               "coalesce(max(value) FILTER (WHERE property = 'reason_code'), '-') FROM dynview.explain(%s);\n"
               % (q(table), q(example), q(table), q(example)))
        rc, out, err = psql(['-At', '-F', '|'], db, sql=sql)
        if mode == 'REFUSED':
            m = re.search(r'ERROR:\s+([0-9A-Z]{5}):\s+(.*)', err)
            if rc == 0:
                failures.append('%s: the table says refused (%s), but dynview created it: %s'
                                % (where, reason, out.strip()))
            elif not m or m.group(1) != reason:
                failures.append('%s: the table says refused with %s, but: %s' % (where, reason, err.strip()))
            else:
                passed += 1
            continue
        if rc != 0:
            failures.append('%s: creating a dynamic table of the example failed:\n%s' % (where, err.strip()))
            continue
        created.append((n, table, where, mode, reason))
        got = {}
        for row in out.strip().split('\n'):
            parts = row.split('|')
            if len(parts) == 3:
                got[parts[0]] = (parts[1], parts[2])
        claim = (mode, reason)
        bad = ['%s says %s %s' % (k.lower() if k == 'EXPLAIN' else 'dynamic_tables', v[0], v[1])
               for k, v in sorted(got.items()) if v != claim]
        if len(got) != 2:
            bad.append('unexpected output: %s' % out.strip())
        if bad:
            failures.append('%s: the table says %s %s, but %s' % (where, mode, reason, '; '.join(bad)))
        else:
            passed += 1

    # Change every source a little (user tables only: never a system catalog), refresh, and
    # check the history and verify().
    if created:
        sources = admin(
            "SELECT DISTINCT format('%I.%I', n.nspname, c.relname) FROM dynview.dynamic_tables d, "
            "unnest(d.sources) s(name), pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE c.oid = to_regclass(s.name) AND c.relkind IN ('r', 'p') AND c.oid >= 16384 "
            "AND NOT EXISTS (SELECT 1 FROM dynview.dynamic_tables u WHERE u.name = c.oid) ORDER BY 1", db)
        for src in sources.split():
            # one row, found by (tableoid, ctid) so that partitioned tables work too
            admin('WITH one AS (SELECT tableoid, ctid FROM %s LIMIT 1) '
                  'DELETE FROM %s t USING one WHERE t.tableoid = one.tableoid AND t.ctid = one.ctid'
                  % (src, src), db)
        for n, table, where, mode, reason in created:
            sql = ("SELECT refresh_mode, coalesce(mode_reason_code, '-') FROM dynview.refresh(%s);\n"
                   'SELECT dynview.verify(%s);\n' % (q(table), q(table)))
            rc, out, err = psql(['-At', '-F', '|'], db, sql=sql)
            lines = out.strip().split('\n')
            if rc != 0 or len(lines) != 2:
                failures.append('%s: refresh after a delete failed:\n%s' % (where, err.strip()))
                continue
            refresh_mode, verified = lines[0].split('|')[0], lines[1]
            fits = refresh_mode in (('INCREMENTAL', 'NO_DATA') if mode == 'INCREMENTAL' else ('FULL',))
            if not fits:
                failures.append('%s: the table says %s, but a refresh after a delete was %s'
                                % (where, mode, lines[0]))
            # verify() recomputes the query: random() and now() give other values then
            if verified != 't' and reason != 'VOLATILE_FUNCTION':
                failures.append('%s: verify() is false after a refresh: %s' % (where, err.strip()))

    # Every reason code of the query analysis must be named on the page.
    codes = set()
    for path in sorted(glob.glob(os.path.join(repo, 'src', 'analyze', '*.c'))):
        with open(path, encoding='utf-8') as f:
            codes.update(re.findall(r'"([A-Z][A-Z_]{3,})"', f.read()))
    with open(os.path.join(repo, page), encoding='utf-8') as f:
        text = f.read()
    for code in sorted(codes):
        if not re.search(r'\b%s\b' % code, text):
            failures.append('%s: the engine has reason code %s (src/analyze), but the page does not name it'
                            % (page, code))
    return passed, failures


# ---- main --------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--repo', required=True)
    ap.add_argument('-v', '--verbose', action='store_true', help='print every block\'s output')
    ap.add_argument('pages', nargs='*')
    args = ap.parse_args()
    repo = args.repo
    os.chdir(repo)
    env_keep = os.environ.get('DV_DOCS_KEEP') == '1'
    pages = args.pages or (['README.md'] + sorted(glob.glob('doc/*.md')))
    passed = failed = rows_passed = rows_failed = 0
    for page in pages:
        blocks, lines = extract_blocks(page, page)
        sql_blocks = [b for b in blocks if b.language == 'sql']
        rows = construct_rows(lines, page)
        if not sql_blocks and rows is None:
            continue
        db = slug(page)
        print('---- %s: %d SQL blocks in database %s' % (page, len(sql_blocks), db), flush=True)
        admin('DROP DATABASE IF EXISTS %s WITH (FORCE)' % db)
        admin('CREATE DATABASE %s' % db)
        admin('CREATE EXTENSION dynview', db)
        admin('SELECT dynview.wait_for_capture()', db)
        page_ok = True
        for b in sql_blocks:
            if not page_ok:
                print('  skip  %s (an earlier block failed)' % b.where())
                failed += 1
                continue
            problem = run_block(b, db, args.verbose)
            if problem is None:
                passed += 1
                print('  ok    %s%s' % (b.where(), ' (fails as documented)' if b.fails else ''), flush=True)
            else:
                failed += 1
                page_ok = False
                print('  FAIL  %s %s' % (b.where(), problem), flush=True)
                print('  ---- the block:\n' + ''.join('  | ' + line + '\n' for line in b.text.rstrip('\n').split('\n')))
        if rows is not None and page_ok:
            p, problems = check_construct_table(rows, page, db, repo)
            rows_passed += p
            rows_failed += len(problems)
            print('  construct table: %d of %d rows agree with the engine' % (p, len(rows)))
            for problem in problems:
                print('  FAIL  ' + problem)
        elif rows is not None:
            rows_failed += 1
            print('  FAIL  %s: construct table not checked (a block failed)' % page)
        if not env_keep:
            admin('DROP DATABASE IF EXISTS %s WITH (FORCE)' % db)
    print()
    tail = ''
    if rows_passed or rows_failed:
        tail = '; construct table: %d rows agree, %d problems' % (rows_passed, rows_failed)
    print('%d blocks passed, %d failed%s' % (passed, failed, tail))
    return 1 if failed or rows_failed else 0


if __name__ == '__main__':
    sys.exit(main())
