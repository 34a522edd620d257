#!/usr/bin/python3
"""bench/q20_ab.py - refresh cost of TPC-H Q20's dynamic tables over one window of changes, A/B.

Phases (the cluster env set; the database of bench/tpch.sh, its tables dt.* and views mv.*):
  change DB orders|part SEED  commit a window: 'orders' is bench/tpch.sh's round (0.1% of the
                              orders inserted with their lineitems, as many deleted with theirs);
                              'part' changes 0.1% of part and of partsupp: half of the parts
                              renamed into the query's 'forest%' filter, half out of it, and
                              partsupp rows given a new ps_availqty, half of them of forest
                              parts; then waits for the capture
  measure DB ROUNDS T1 T2 ... each round, for each table in an order alternated per round, in a
                              new connection: BEGIN; dynview.refresh(); ROLLBACK (backend CPU
                              from /proc/<pid>/schedstat), then dynview.verify() of the refresh
                              (in its own transaction, rolled back), then a second refresh in
                              the same connection (plans cached); and REFRESH MATERIALIZED VIEW
                              mv.q20 the same way (the "mv" row).  Serial plans for all.
                              Prints the medians; fails if a refresh is not verified.
  commit DB T1 T2 ...         refreshes each table for good (verified), so that the next
                              window starts after this one.
Not a test: a tool for one branch's figures (bench/README.md, twelfth session, s12-q20).
"""
import statistics, sys, time
import psycopg2
from schedstat import cpu_ms


def connect(db):
    c = psycopg2.connect(dbname=db)
    c.autocommit = True
    cur = c.cursor()
    cur.execute("SET max_parallel_workers_per_gather = 0; SET client_min_messages = warning")
    cur.execute("SELECT pg_backend_pid()")
    return c, cur, cur.fetchone()[0]


def timed(cur, pid, sql):
    c0, w0 = cpu_ms(pid), time.monotonic()
    cur.execute(sql)
    r = cur.fetchall() if cur.description else None
    return cpu_ms(pid) - c0, (time.monotonic() - w0) * 1000, r


def change(db, kind, seed):
    c, cur, _ = connect(db)
    seed = int(seed)
    if kind == 'orders':
        cur.execute("SELECT max(o_orderkey), greatest(1, count(*) / 1000) FROM orders")
        base, n = cur.fetchone()
        scale = 10000
        cur.execute("SELECT tpch_orders(%s, %s, %s, %s, %s)",
                    (base + 1, base + n, 30 * scale, 75 * scale, max(10, 4 * scale)))
        cur.execute("DELETE FROM lineitem WHERE l_orderkey IN (SELECT o_orderkey FROM orders WHERE o_orderkey <= %s "
                    "ORDER BY o_orderkey OFFSET %s LIMIT %s)", (base, seed * 7, n))
        cur.execute("DELETE FROM orders o WHERE o_orderkey <= %s AND NOT EXISTS "
                    "(SELECT FROM lineitem l WHERE l.l_orderkey = o.o_orderkey)", (base,))
    else:
        cur.execute("SELECT greatest(2, count(*) / 1000) FROM part")
        n = cur.fetchone()[0]
        cur.execute("SELECT greatest(2, count(*) / 1000) FROM partsupp")
        m = cur.fetchone()[0]
        cur.execute("BEGIN")
        cur.execute("SELECT setseed(%s)", (seed / 1000.0,))
        cur.execute("UPDATE part SET p_name = 'forest ' || p_name WHERE p_partkey IN "
                    "(SELECT p_partkey FROM part WHERE p_name NOT LIKE 'forest%%' ORDER BY random() LIMIT %s)", (n // 2,))
        cur.execute("UPDATE part SET p_name = 'was ' || p_name WHERE p_partkey IN "
                    "(SELECT p_partkey FROM part WHERE p_name LIKE 'forest%%' ORDER BY random() LIMIT %s)", (n - n // 2,))
        cur.execute("UPDATE partsupp SET ps_availqty = (random() * 9999)::int WHERE (ps_partkey, ps_suppkey) IN "
                    "(SELECT ps_partkey, ps_suppkey FROM partsupp JOIN part ON p_partkey = ps_partkey "
                    "WHERE p_name LIKE 'forest%%' ORDER BY random() LIMIT %s)", (m // 2,))
        cur.execute("UPDATE partsupp SET ps_availqty = (random() * 9999)::int WHERE (ps_partkey, ps_suppkey) IN "
                    "(SELECT ps_partkey, ps_suppkey FROM partsupp TABLESAMPLE BERNOULLI (1) ORDER BY random() LIMIT %s)",
                    (m - m // 2,))
        cur.execute("COMMIT")
    cur.execute("SELECT dynview.wait_for_capture('30 minutes')")
    c.close()


def measure(db, rounds, tables):
    res = {t: ([], []) for t in tables + ['mv']}
    for r in range(rounds):
        order = tables + ['mv'] if r % 2 == 0 else list(reversed(tables + ['mv']))
        for t in order:
            c, cur, pid = connect(db)
            stmt = "REFRESH MATERIALIZED VIEW mv.q20" if t == 'mv' else \
                "SELECT refresh_mode, mode_reason_code FROM dynview.refresh('%s')" % t
            for i in range(2):
                cur.execute("BEGIN")
                ms, _, out = timed(cur, pid, stmt)
                if t != 'mv':
                    if out[0][0] != 'INCREMENTAL':
                        print('%s: %s (%s)' % (t, out[0][0], out[0][1]))
                    if i == 0:
                        cur.execute("SELECT dynview.verify(%s)", (t,))
                        if not cur.fetchone()[0]:
                            sys.exit('%s: not verified' % t)
                cur.execute("ROLLBACK")
                res[t][i].append(ms)
            c.close()
    for t in tables + ['mv']:
        print('%-10s first %8.1f ms CPU (%s)  second %8.1f (%s)' % (
            t, statistics.median(res[t][0]), ', '.join('%.0f' % x for x in res[t][0]),
            statistics.median(res[t][1]), ', '.join('%.0f' % x for x in res[t][1])))


def commit(db, tables):
    c, cur, _ = connect(db)
    for t in tables:
        cur.execute("SELECT refresh_mode FROM dynview.refresh(%s)", (t,))
        mode = cur.fetchone()[0]
        cur.execute("SELECT dynview.verify(%s)", (t,))
        print(t, mode, 'verified' if cur.fetchone()[0] else 'NOT VERIFIED')
    c.close()


if __name__ == '__main__':
    phase, db = sys.argv[1], sys.argv[2]
    if phase == 'change':
        change(db, sys.argv[3], sys.argv[4])
    elif phase == 'measure':
        measure(db, int(sys.argv[3]), sys.argv[4:])
    else:
        commit(db, sys.argv[3:])
