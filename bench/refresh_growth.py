#!/usr/bin/env python3
"""bench/refresh_growth.py - what in a dashboard pipeline refresh grows with the data, not the change
(issue 14).

On two or more databases kept by `DV_BENCH_KEEP=1 bench/pipeline.sh <orders>` (e.g. 1M and 10M
orders), makes the same pipeline.sh-shaped change in each (1,000 new orders, 100 updated, 100
deleted), waits for the decoder, then refreshes the pipeline (the rank layer, upstreams first)
inside BEGIN ... ROLLBACK, ROUNDS times in one connection, with auto_explain on every statement
(nested ones included: the statements dynview generates) reported to the client as NOTICEs
(JSON, ANALYZE, BUFFERS).  Prints, per statement (the first 90 characters of its text), the
median time and shared buffers touched (hit + read), the first round's buffers read from outside
shared buffers (the OS cache or the disk; later rounds refresh the same window, whose pages are
then in shared buffers) in each database, and the ratio of buffers touched, last to first; the
statements whose buffers grow with the data are the ones to look at.  The change is rolled back
at the end (the sources too), so the database is as it was, but for dead rows: VACUUM after.

Usage: eval "$(scripts/cluster.sh env)"; bench/refresh_growth.py DB1 DB2 [...] [--rounds N]
Needs auto_explain in the server's library directory.  Not a test.
"""
import json
import re
import statistics
import subprocess
import sys

# other orders at each run (so that their pages are not in shared buffers from an earlier run):
# updated g * 997 + OFFSET_U, deleted g * 991 + OFFSET_D, from the hour of the day and the minute
import time  # noqa: E402
_t = time.gmtime()
OFFSET_U = 600 + 13 * (_t.tm_hour * 60 + _t.tm_min) % 997
OFFSET_D = 300 + 7 * (_t.tm_hour * 60 + _t.tm_min) % 991
CHANGE = """
INSERT INTO doc_orders SELECT 'G-' || g, 'U' || g, 'P' || (1 + (g * 13) % 10000), 2, 50.00, 100.00, now(), 'completed'
  FROM generate_series(1, 1000) g;
UPDATE doc_orders SET quantity = quantity + 1, amount = amount + unit_price
 WHERE order_id IN (SELECT 'O' || (g * 997 + {u}) FROM generate_series(1, 100) g);
DELETE FROM doc_orders WHERE order_id IN (SELECT 'O' || (g * 991 + {d}) FROM generate_series(1, 100) g);
"""


def run(db, rounds):
    """per statement text: list of (ms, shared hit+read, read) over the rounds"""
    script = ["\\set ON_ERROR_STOP 1", "BEGIN;", CHANGE.format(u=OFFSET_U, d=OFFSET_D), "COMMIT;",
              "SELECT dynview.wait_for_capture('30 minutes');",
              "LOAD 'auto_explain';",
              "SET auto_explain.log_min_duration = 0; SET auto_explain.log_analyze = on;",
              "SET auto_explain.log_buffers = on; SET auto_explain.log_timing = on;",
              "SET auto_explain.log_nested_statements = on; SET auto_explain.log_format = json;",
              "SET auto_explain.log_level = notice; SET client_min_messages = notice;"]
    for _ in range(rounds):
        script += ["BEGIN;", "SELECT 'refresh', refresh_mode FROM dynview.refresh('doc_ads_category_rank');",
                   "ROLLBACK;"]
    # undo the change: the new orders deleted, the updated ones put back, the deleted ones re-made
    script += ["SET client_min_messages = warning; SET auto_explain.log_min_duration = -1;",
               "DELETE FROM doc_orders WHERE order_id LIKE 'G-%';",
               "UPDATE doc_orders SET quantity = quantity - 1, amount = amount - unit_price "
               f" WHERE order_id IN (SELECT 'O' || (g * 997 + {OFFSET_U}) FROM generate_series(1, 100) g);",
               "INSERT INTO doc_orders SELECT 'O' || g, 'U' || (g % 100000), 'P' || (1 + g % 10000), 1 + g % 5, "
               " (10 + g % 490)::numeric(10,2), ((1 + g % 5) * (10 + g % 490))::numeric(10,2), "
               " timestamp '2026-01-01' + g * interval '1 second', CASE WHEN g % 10 = 0 THEN 'cancelled' ELSE 'completed' END "
               f" FROM (SELECT g * 991 + {OFFSET_D} AS g FROM generate_series(1, 100) g) s;",
               "SELECT dynview.refresh('doc_ads_category_rank');",
               "SELECT 'verify', dynview.verify('doc_ads_category_gmv') AND dynview.verify('doc_ads_category_rank');"]
    p = subprocess.run(["psql", "-X", "-q", "-At", "-d", db, "-f", "-"], input="\n".join(script),
                       capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{db}: psql failed: {p.stderr[-2000:]}")
    stats = {}
    order = []
    round_no = -1
    for m in re.finditer(r"NOTICE:  duration: ([0-9.]+) ms  plan:\n(\{.*?\n\})", p.stderr, re.S):
        try:
            j = json.loads(m.group(2))
        except json.JSONDecodeError:
            continue
        text = " ".join(j.get("Query Text", "").split())
        if text.startswith("SELECT 'refresh'"):
            round_no += 1
            continue
        plan = j["Plan"]
        # (dynview's relations are named by OID, which differs between databases)
        key = re.sub(r"(changes|agg|state|topn)_[0-9]+", r"\1_N", text)[:90]
        if key not in stats:
            stats[key] = []
            order.append(key)
        hit = plan.get("Shared Hit Blocks", 0)
        read = plan.get("Shared Read Blocks", 0)
        stats[key].append((float(m.group(1)), hit + read, read))
    modes = [l for l in p.stdout.splitlines() if l.startswith("refresh|")]
    verify = [l for l in p.stdout.splitlines() if l.startswith("verify|")]
    return stats, order, modes, verify


def main():
    args = sys.argv[1:]
    rounds = 5
    if "--rounds" in args:
        i = args.index("--rounds")
        rounds = int(args[i + 1])
        del args[i:i + 2]
    if len(args) < 2:
        sys.exit(__doc__)
    res = {}
    order = []
    for db in args:
        s, o, modes, verify = run(db, rounds)
        res[db] = s
        for k in o:
            if k not in order:
                order.append(k)
        print(f"{db}: modes {sorted(set(modes))}; {verify}")
    first, last = args[0], args[-1]
    print(f"{'statement (first 90 characters)':92} " +
          " ".join(f"{'ms ' + d[-12:]:>16} {'bufs':>8} {'read1':>6}" for d in args) + "  bufs ratio")
    tot = {d: [0.0, 0] for d in args}
    for k in order:
        cells = []
        meds = {}
        for d in args:
            v = res[d].get(k)
            if not v:
                cells.append(f"{'-':>16} {'-':>8} {'-':>6}")
                continue
            ms = statistics.median(x[0] for x in v)
            b = statistics.median(x[1] for x in v)
            rd = v[0][2]  # the first round's: later rounds refresh the same window, its pages cached
            meds[d] = (ms, b)
            # per refresh: a statement run n times per refresh counts n times
            n = len(v) / rounds
            tot[d][0] += ms * n
            tot[d][1] += b * n
            cells.append(f"{ms:16.2f} {b:8.0f} {rd:6.0f}")
        ratio = (meds[last][1] / meds[first][1]) if first in meds and last in meds and meds[first][1] else float("nan")
        n = len(res[first].get(k, [])) / rounds
        print(f"{k:92} " + " ".join(cells) + f"  {ratio:6.2f}  (x{n:g})")
    print("per refresh, sum of the statements' medians (nested statements are also inside their callers): " +
          "; ".join(f"{d}: {tot[d][0]:.1f} ms, {tot[d][1]:.0f} buffers" for d in args))


if __name__ == "__main__":
    main()
