#!/usr/bin/python3
"""bench/create_ab.py - creation cost of TPC-H dynamic tables, two builds of dynview A/B in one run.

For each pass, each build's dynview.so (paths given) is installed in turn into the server's
pkglibdir with the server stopped (scripts/cluster.sh stop/start), then per query, each in a new
connection with serial plans (max_parallel_workers_per_gather = 0): CREATE MATERIALIZED VIEW of the
query plus a unique index on the columns of the dynamic table's index (like with like),
create_dynamic_table, dynview.verify(). Backend CPU from /proc/<pid>/schedstat (the figure that
holds on a machine shared with other work) and wall time; medians over the passes; the load
average printed per pass.

DV_BENCH_PARALLEL=1: parallel plans instead of serial ones, made as cheap as at TPC-H SF1 for the
scale-1000 database (parallel_setup_cost 10, min_parallel_table_scan_size 0, for the view as for
dynview); then compare wall times (the backend's CPU leaves its workers' out).

Each of the two creations is preceded by one evaluation of the query in another connection
(its result discarded), so that both find the sources' pages in shared buffers (since the
eleventh session; DV_BENCH_COLD=1 leaves it out; DV_BENCH_WARM=1, branch s11-q20c's
switch for the same, is now the default). Before, the view was created right after the
dynamic table and its verify(), which had read the same pages: at scale 1000 with 128 MB of
shared buffers, copying them in from the OS cache was 80-200 ms of CPU (Q13, Q16) charged to
dynview only.

Usage (cluster env set, the database of bench/tpch.sh or one loaded the same way):
  bench/create_ab.py DB PASSES "1 6 11" base=/path/a/dynview.so branch=/path/b/dynview.so
Not a test; the builds' SQL scripts must be the same (only the .so is swapped).
"""
import os, shutil, statistics, subprocess, sys, time
import psycopg2
from schedstat import cpu_ms

db, passes, queries = sys.argv[1], int(sys.argv[2]), [int(q) for q in sys.argv[3].split()]
builds = [a.split('=', 1) for a in sys.argv[4:]]
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
pglib = subprocess.check_output([os.path.join(os.environ['DV_PGBIN'], 'pg_config'), '--pkglibdir'],
                                text=True).strip()


def cluster(cmd):
    subprocess.run(['bash', os.path.join(root, 'scripts/cluster.sh'), cmd], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def run(stmts):
    """the statements in one new connection: (backend CPU ms, wall ms, last result)"""
    c = psycopg2.connect(dbname=db)
    c.autocommit = True
    cur = c.cursor()
    if os.environ.get('DV_BENCH_PARALLEL', '0') == '1':
        cur.execute("SET parallel_setup_cost = 10; SET min_parallel_table_scan_size = 0; "
                    "SET client_min_messages = warning")
    else:
        cur.execute("SET max_parallel_workers_per_gather = 0; SET client_min_messages = warning")
    cur.execute("SELECT pg_backend_pid()")
    pid = cur.fetchone()[0]
    c0, w0 = cpu_ms(pid), time.monotonic()
    res = None
    for s in stmts:
        cur.execute(s)
        res = cur.fetchall() if cur.description else None
    c1, w1 = cpu_ms(pid), time.monotonic()
    c.close()
    return c1 - c0, (w1 - w0) * 1000, res


def sql_of(q):
    c = psycopg2.connect(dbname=db)
    cur = c.cursor()
    cur.execute("SELECT sql FROM queries WHERE q = %s", (q,))
    s = cur.fetchone()[0]
    c.close()
    return s


warm = os.environ.get('DV_BENCH_COLD', '0') != '1'


def warm_up(s):
    """one evaluation of the query s in another connection, its result discarded"""
    if warm:
        run(["EXPLAIN (ANALYZE, TIMING OFF, SUMMARY OFF, COSTS OFF) %s" % s])


res = {}  # (build, q) -> list of (dv cpu, mv+index cpu, dv wall)
for p in range(passes):
    for name, so in (builds if p % 2 == 0 else builds[::-1]):
        cluster('stop')
        shutil.copyfile(so, os.path.join(pglib, 'dynview.so'))
        cluster('start')
        print('pass %d build %s load %s' % (p + 1, name, open('/proc/loadavg').read().split()[0]), flush=True)
        for q in queries:
            s = sql_of(q)
            run(["SELECT dynview.drop_dynamic_table('dt.q%d') FROM dynview.dynamic_tables WHERE name = to_regclass('dt.q%d')" % (q, q),
                 "DROP MATERIALIZED VIEW IF EXISTS mv.q%d" % q])
            warm_up(s)
            dv_cpu, dv_wall, _ = run(["SELECT dynview.create_dynamic_table('dt.q%d', $dvq$%s$dvq$)" % (q, s)])
            _, _, ok = run(["SELECT dynview.verify('dt.q%d')" % q])
            # the index dynview built on its table, copied onto the view
            _, _, idx = run(["SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY k.n) FROM pg_index i "
                             "CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY k(att, n) "
                             "JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.att "
                             "WHERE i.indrelid = 'dt.q%d'::regclass AND i.indisunique GROUP BY i.indexrelid LIMIT 1" % q])
            mv = ["CREATE MATERIALIZED VIEW mv.q%d AS %s" % (q, s)]
            if idx:
                mv.append("CREATE UNIQUE INDEX ON mv.q%d (%s)" % (q, idx[0][0]))
            warm_up(s)
            mv_cpu, mv_wall, _ = run(mv)
            res.setdefault((name, q), []).append((dv_cpu, mv_cpu, dv_wall, mv_wall))
            print('  q%d %s: dynview %.0f ms CPU (%.0f wall), MV+index %.0f ms CPU (%.0f wall), ratio %.2fx (wall %.2fx), verified %s'
                  % (q, name, dv_cpu, dv_wall, mv_cpu, mv_wall, dv_cpu / mv_cpu, dv_wall / mv_wall, ok[0][0]), flush=True)
            run(["SELECT dynview.drop_dynamic_table('dt.q%d')" % q, "DROP MATERIALIZED VIEW mv.q%d" % q])

print('\n| q | build | dynview CPU ms: median (passes) | MV + index CPU ms: median | ratio: median (range) | wall ratio: median (range) |')
print('|---|---|---|---|---|---|')
for q in queries:
    for name, _ in builds:
        r = res[(name, q)]
        ratios = [a / b for a, b, _, _ in r]
        walls = [c / d for _, _, c, d in r]
        print('| %d | %s | %.0f (%s) | %.0f | %.2fx (%.2f-%.2f) | %.2fx (%.2f-%.2f) |'
              % (q, name, statistics.median(a for a, _, _, _ in r), ', '.join('%.0f' % a for a, _, _, _ in r),
                 statistics.median(b for _, b, _, _ in r), statistics.median(ratios), min(ratios), max(ratios),
                 statistics.median(walls), min(walls), max(walls)))
