#!/usr/bin/python3
"""bench/create_wal_ab.py - creation of TPC-H tables, two builds A/B: CPU with the parallel workers', and WAL.

Usage (cluster env set, the database of bench/tpch.sh):
  bench/create_wal_ab.py ROUNDS serial|parallel "16 10" a=/path/a/dynview.so b=/path/b/dynview.so
Per round, each build's dynview.so installed in turn (server stopped and started; the order
alternates between rounds); per query, each in a new connection after one evaluation of the query:
create_dynamic_table('dt.tN') and verify(), then CREATE MATERIALIZED VIEW mv.tN plus the unique
index dynview built on its table. CPU is the backend's (/proc/<pid>/schedstat) plus that of the
parallel workers, read as the postmaster's reaped children's time (/proc/<postmaster>/stat: other
backends that exit meanwhile count too); WAL is pg_current_wal_insert_lsn() before and after
(independent of the load). "serial" turns parallel plans and parallel index builds off. The
tables are dropped afterwards (dt.qN and mv.qN of bench/tpch.sh are left alone). Not a test.
"""
import sys, time, psycopg2, os, subprocess, shutil, statistics
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from schedstat import cpu_ms
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
pglib = subprocess.check_output([os.environ['DV_PGBIN'] + '/pg_config', '--pkglibdir'], text=True).strip()
builds = [tuple(a.split('=', 1)) for a in sys.argv[4:]]
def cluster(cmd):
    subprocess.run(['bash', root + '/scripts/cluster.sh', cmd], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
def children_ms(pm):
    f = open('/proc/%d/stat' % pm).read().rsplit(')', 1)[1].split()
    return (int(f[13]) + int(f[14])) * 1000.0 / os.sysconf('SC_CLK_TCK')
def conn():
    c = psycopg2.connect(dbname=os.environ.get('DV_BENCH_DB', 'dv_bench_tpch_10000')); c.autocommit = True
    cur = c.cursor(); cur.execute("SET client_min_messages=warning")
    if sys.argv[2] == 'serial': cur.execute("SET max_parallel_workers_per_gather=0; SET max_parallel_maintenance_workers=0")
    return c, cur
def q_of(n):
    c, cur = conn(); cur.execute("select sql from queries where q=%s", (n,)); q = cur.fetchone()[0]; c.close(); return q
def one(what, n, q, pm):
    c, cur = conn(); cur.execute("select count(*) from (%s) x" % q); c.close()
    c, cur = conn(); cur.execute("select pg_backend_pid()"); pid = cur.fetchone()[0]
    cur.execute("select pg_current_wal_insert_lsn()"); l0 = cur.fetchone()[0]
    k0, c0, w0 = children_ms(pm), cpu_ms(pid), time.monotonic()
    if what == 'dv':
        cur.execute("select dynview.create_dynamic_table('dt.t%d', %%s, schedule => 'manual')" % n, (q,))
    else:
        cur.execute("create materialized view mv.t%d as %s" % (n, q))
        if idx.get(n): cur.execute("create unique index on mv.t%d (%s)" % (n, idx[n]))
    w1, c1 = time.monotonic(), cpu_ms(pid)
    cur.execute("select pg_current_wal_insert_lsn() - %s::pg_lsn", (l0,)); wal = float(cur.fetchone()[0])
    time.sleep(0.3); k1 = children_ms(pm)
    v = '-'
    if what == 'dv':
        cur.execute("select dynview.verify('dt.t%d')" % n); v = cur.fetchone()[0]
        cur.execute("SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY k.n) FROM pg_index i "
                    "CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY k(att, n) "
                    "JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.att "
                    "WHERE i.indrelid = 'dt.t%d'::regclass AND i.indisunique GROUP BY i.indexrelid LIMIT 1" % n)
        r = cur.fetchone(); idx[n] = r[0] if r else None
        cur.execute("select dynview.drop_dynamic_table('dt.t%d')" % n)
    else:
        cur.execute("drop materialized view mv.t%d" % n)
    c.close()
    return (w1-w0)*1000, c1-c0 + (k1-k0), wal/1e6, v
idx = {}
qs = [int(x) for x in sys.argv[3].split()]
res = {}
for r in range(int(sys.argv[1])):
    for name, so in (builds if r % 2 == 0 else builds[::-1]):
        cluster('stop'); shutil.copyfile(so, pglib + '/dynview.so'); cluster('start')
        pm = int(open(subprocess.check_output(['psql', '-XAtc', 'show data_directory'], text=True).strip() + '/postmaster.pid').readline())
        for n in qs:
            q = q_of(n)
            d = one('dv', n, q, pm); m = one('mv', n, q, pm)
            load = open('/proc/loadavg').read().split()[0]
            res.setdefault((name, n), []).append((d, m))
            print("round %d %-6s q%d load %5s | dv wall %6.0f cpu %6.0f wal %6.1f MB verified %s | mv+idx wall %6.0f cpu %6.0f wal %5.1f MB | wall %.2fx cpu %.2fx" %
                  (r, name, n, load, d[0], d[1], d[2], d[3], m[0], m[1], m[2], d[0]/m[0], d[1]/m[1]), flush=True)
print("| q | build | dynview CPU ms median (rounds) | MV+index CPU median | CPU ratio median (range) | wall ratio median (range) | dynview WAL MB |")
for n in qs:
    for name, _ in builds:
        rr = res[(name, n)]
        cr = [d[1]/m[1] for d, m in rr]; wr = [d[0]/m[0] for d, m in rr]
        print("| %d | %s | %.0f (%s) | %.0f | %.2fx (%.2f-%.2f) | %.2fx (%.2f-%.2f) | %.1f |" % (n, name, statistics.median(d[1] for d, m in rr),
              ', '.join('%.0f' % d[1] for d, m in rr), statistics.median(m[1] for d, m in rr), statistics.median(cr), min(cr), max(cr),
              statistics.median(wr), min(wr), max(wr), statistics.median(d[2] for d, m in rr)))
