#!/usr/bin/python3
"""bench/parallel.py — freshness of a fast pipeline while a slow one refreshes (issue 16).

Two independent dynamic tables in one database, both schedule => '1 second':
  slow_t   refresh_mode 'full', a query that takes SLOW_SECONDS per refresh (pg_sleep, evaluated
           once per refresh: a stand-in for a large FULL recompute); a writer changes its source
           every second so that every refresh recomputes;
  fast_t   SELECT over a small table, incremental.
Every ~0.5 s a probe row is committed into fast_t's source and the time until it is visible in
fast_t is measured.  Run once with dynview.max_refresh_workers = 1 (the scheduler refreshes
pipelines one after another) and once with 2 (a refresh worker per pipeline).  Prints p50 / p99
/ max of the fast table's lag for each.  Not a test.

usage: eval "$(scripts/cluster.sh env)"; /usr/bin/python3 bench/parallel.py [seconds] [slow_seconds]
(needs a superuser connection: it changes dynview.max_refresh_workers with ALTER SYSTEM and
restores the default at the end)
"""
import random
import sys
import threading
import time

import psycopg2

DB = "dv_bench_parallel"
SECONDS = int(sys.argv[1]) if len(sys.argv) > 1 else 60
SLOW_SECONDS = float(sys.argv[2]) if len(sys.argv) > 2 else 10


def admin(sql):
    c = psycopg2.connect(dbname="postgres")
    c.autocommit = True
    c.cursor().execute(sql)
    c.close()


def setup():
    admin(f"DROP DATABASE IF EXISTS {DB} WITH (FORCE)")
    admin(f"CREATE DATABASE {DB}")
    conn = psycopg2.connect(dbname=DB)
    conn.autocommit = True
    cur = conn.cursor()
    cur.execute("SET client_min_messages = warning")
    cur.execute("CREATE EXTENSION dynview")
    cur.execute("SELECT dynview.wait_for_capture()")
    cur.execute("""CREATE TABLE slow_src (id int PRIMARY KEY, v int);
                   INSERT INTO slow_src VALUES (1, 0);
                   CREATE TABLE fast_src (id bigint PRIMARY KEY, v int)""")
    cur.execute("""SELECT dynview.create_dynamic_table('slow_t',
                     $$SELECT id, v FROM slow_src WHERE pg_sleep(%s)::text = ''$$,
                     schedule => '1 second', refresh_mode => 'full')""" % SLOW_SECONDS)
    cur.execute("""SELECT dynview.create_dynamic_table('fast_t', 'SELECT id, v FROM fast_src',
                     schedule => '1 second')""")
    return conn


def run(workers):
    admin(f"ALTER SYSTEM SET dynview.max_refresh_workers = {workers}")
    admin("SELECT pg_reload_conf()")
    conn = setup()
    cur = conn.cursor()
    stop = threading.Event()

    def writer():
        w = psycopg2.connect(dbname=DB)
        w.autocommit = True
        while not stop.is_set():
            w.cursor().execute("UPDATE slow_src SET v = v + 1")
            time.sleep(1)
        w.close()

    t = threading.Thread(target=writer)
    t.start()
    time.sleep(SLOW_SECONDS + 2)    # the slow pipeline is refreshing from here on
    lags = []
    deadline = time.time() + SECONDS
    n = 0
    while time.time() < deadline:
        n += 1
        cur.execute("INSERT INTO fast_src VALUES (%s, 1)", (n,))
        committed = time.time()
        while True:
            cur.execute("SELECT 1 FROM fast_t WHERE id = %s", (n,))
            if cur.fetchone():
                lags.append(time.time() - committed)
                break
            if time.time() - committed > 5 * SLOW_SECONDS + 30:
                lags.append(float("inf"))
                break
            time.sleep(0.02)
        time.sleep(random.uniform(0, 1.0))
    stop.set()
    t.join()
    cur.execute("SELECT table_name, refresh_mode, count(*), round(avg(duration_ms)) FROM dynview.refresh_history "
                "WHERE refresh_trigger = 'SYSTEM_SCHEDULED' GROUP BY 1, 2 ORDER BY 1, 2")
    modes = cur.fetchall()
    conn.close()
    admin(f"DROP DATABASE IF EXISTS {DB} WITH (FORCE)")
    lags.sort()

    def pct(p):
        return lags[min(len(lags) - 1, int(p / 100 * len(lags)))]

    print(f"max_refresh_workers = {workers}: {len(lags)} probes; fast_t lag commit -> visible: "
          f"p50 {pct(50):.2f} s, p99 {pct(99):.2f} s, max {lags[-1]:.2f} s; "
          f"scheduled refreshes (table, mode, count, avg ms): {modes}", flush=True)


try:
    for w in (1, 2):
        run(w)
finally:
    admin("ALTER SYSTEM RESET dynview.max_refresh_workers")
    admin("SELECT pg_reload_conf()")
