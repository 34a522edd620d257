#!/usr/bin/python3
"""bench/freshness.py — end-to-end freshness of the sales-dashboard pipeline (issue 5).

The three layers of design section 9 with schedule => '1 second', refreshed by dynview's
scheduler only; a steady pgbench writer inserts orders; every PROBE_INTERVAL a probe order of a
new category is committed (at a random phase) and the time until that category appears in the ranking table is
measured. Prints p50 / p90 / p99 / max of the lag. Not a test.

usage: eval "$(scripts/cluster.sh env)"; /usr/bin/python3 bench/freshness.py [seconds]
"""
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import psycopg2

DB = "dv_bench_fresh"
SECONDS = int(sys.argv[1]) if len(sys.argv) > 1 else 60
PROBE_INTERVAL = 0.5


def admin(sql):
    c = psycopg2.connect(dbname="postgres")
    c.autocommit = True
    c.cursor().execute(sql)
    c.close()


admin(f"DROP DATABASE IF EXISTS {DB} WITH (FORCE)")
admin(f"CREATE DATABASE {DB}")
conn = psycopg2.connect(dbname=DB)
conn.autocommit = True
cur = conn.cursor()
cur.execute("SET client_min_messages = warning")
cur.execute("CREATE EXTENSION dynview")
cur.execute("SELECT dynview.wait_for_capture()")
cur.execute("""CREATE TABLE doc_products (product_id text PRIMARY KEY, product_name text, category text, brand text);
INSERT INTO doc_products SELECT 'P' || g, 'product ' || g, 'category ' || (g % 50), 'brand' FROM generate_series(1, 10000) g;
CREATE TABLE doc_orders (order_id text PRIMARY KEY, user_id text, product_id text, quantity int,
                         unit_price numeric(10,2), amount numeric(10,2), order_time timestamp, status text);
INSERT INTO doc_orders SELECT 'O' || g, 'U', 'P' || (1 + g % 10000), 1, 10, 10, now(), 'completed'
  FROM generate_series(1, 100000) g""")
cur.execute("""SELECT dynview.create_dynamic_table('doc_dwd_order_detail', $$
  SELECT o.order_id, o.user_id, o.product_id, p.product_name, p.category, p.brand, o.quantity, o.unit_price,
         o.amount, o.order_time, o.status
    FROM doc_orders o JOIN doc_products p ON o.product_id = p.product_id WHERE o.status = 'completed'$$,
  schedule => '1 second')""")
cur.execute("""SELECT dynview.create_dynamic_table('doc_ads_category_gmv', $$
  SELECT category, count(DISTINCT order_id) AS order_cnt, sum(quantity) AS total_qty, sum(amount) AS gmv,
         CAST(sum(amount) / sum(quantity) AS numeric(10,2)) AS avg_price
    FROM doc_dwd_order_detail GROUP BY category$$, schedule => '1 second')""")
cur.execute("""SELECT dynview.create_dynamic_table('doc_ads_category_rank', $$
  SELECT rank() OVER (ORDER BY gmv DESC) AS gmv_rank, category, order_cnt, total_qty, gmv, avg_price
    FROM doc_ads_category_gmv$$, schedule => '1 second')""")

script = tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False)
script.write("\\set id random(1, 2000000000)\n"
             "INSERT INTO doc_orders VALUES ('W' || :id, 'U', 'P' || (1 + :id % 10000), 1, 10, 10, now(), 'completed') "
             "ON CONFLICT DO NOTHING;\n")
script.close()
writer = subprocess.Popen(["pgbench", "-n", "-c", "2", "-j", "1", "-R", "200", "-T", str(SECONDS + 5),
                           "-f", script.name, DB], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
time.sleep(3)

lags = []
deadline = time.time() + SECONDS
n = 0
while time.time() < deadline:
    n += 1
    cur.execute("INSERT INTO doc_products VALUES (%s, 'probe', %s, 'probe')", (f"PROBE{n}", f"probe {n}"))
    cur.execute("INSERT INTO doc_orders VALUES (%s, 'U', %s, 1, 10, 10, now(), 'completed')",
                (f"PO{n}", f"PROBE{n}"))
    committed = time.time()
    while True:
        cur.execute("SELECT 1 FROM doc_ads_category_rank WHERE category = %s", (f"probe {n}",))
        if cur.fetchone():
            lags.append(time.time() - committed)
            break
        if time.time() - committed > 30:
            lags.append(float("inf"))
            break
        time.sleep(0.02)
    # a random phase, so that probes do not lock onto the scheduler's period
    time.sleep(random.uniform(0, 2 * PROBE_INTERVAL))

out, _ = writer.communicate()
tps = [line for line in out.splitlines() if line.startswith("tps")]
lags.sort()


def pct(p):
    return lags[min(len(lags) - 1, int(p / 100 * len(lags)))]


modes = []
cur.execute("SELECT table_name, refresh_mode, count(*) FROM dynview.refresh_history "
            "WHERE refresh_trigger IN ('SYSTEM_SCHEDULED', 'UPSTREAM') GROUP BY 1, 2 ORDER BY 1, 2")
modes = cur.fetchall()
print(f"probes: {len(lags)}; writer: {tps[0] if tps else '?'}")
print(f"lag commit -> visible in the ranking: p50 {pct(50):.2f} s, p90 {pct(90):.2f} s, "
      f"p99 {pct(99):.2f} s, max {lags[-1]:.2f} s (mean {statistics.mean(lags):.2f} s)")
print("scheduled refreshes by layer and mode:", modes)
conn.close()
os.unlink(script.name)
admin(f"DROP DATABASE IF EXISTS {DB} WITH (FORCE)")
