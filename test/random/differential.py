#!/usr/bin/python3
"""Seeded random differential test of dynview's refreshes (issue 4).

For each seed: a small random schema (two or three primary-key tables with
nullable columns), a set of dynamic tables drawn from a grammar of the
supported constructs (filters, projections with expressions, inner joins
incl. self-joins, GROUP BY with count/sum/avg/min/max/count(DISTINCT),
DISTINCT, HAVING, UNION ALL, window functions with PARTITION BY; a dynamic
table over a dynamic table) plus some that refresh
in full, and tables over d, whose columns have types whose equality is not
identity (numeric of mixed scale, float with -0, interval, jsonb, numeric[],
citext when the extension is there; and char(4) with short values), used as
keys, aggregate inputs and plain columns; then many steps of random DML (inserts with NULLs and duplicates of
non-key values, updates of keys and of group columns, deletes) spread over
several connections whose transactions interleave, commit out of order, stay
open across a refresh, or roll back.  Now and then every row of d is
rewritten to equal values spelled differently (1 -> 1.0, 0 -> -0, '2 days' ->
'48 hours', 'bob' -> 'BOB'): a change that "=" cannot see.  (Inserts use the
current spelling, so that no group holds two spellings of one value: the
query would then show either.)  After every refresh, dynview.verify() must be
true for every table; at the end of a seed each table is also compared with
its query by the text of its rows and by "=" (EXCEPT ALL), independently of
verify().  The seed is printed on failure.

Before the seeds, one large window (--large-window ROWS, default 100000): more than 100,000
change rows applied in one refresh of each kind of table (see large_window).

usage: differential.py [--seeds N] [--steps N] [--first-seed S] [--large-window ROWS]
Connection: libpq environment (PGHOST, PGPORT, PGUSER).  Ends with the plain
line "N passed, N failed" (one count per seed).
"""
import argparse
import random
from collections import Counter
import sys
import traceback

import psycopg2

DB = "dv_random"


def admin_exec(sql):
    conn = psycopg2.connect(dbname="postgres")
    conn.autocommit = True
    conn.cursor().execute(sql)
    conn.close()


def make_queries(rng):
    """Dynamic table definitions over tables a(id, g, v, w), b(id, a_id, x), c(id, a_id, y)."""
    qs = [
        "SELECT id, g, v FROM a WHERE v > 10",
        "SELECT id, coalesce(v, 0) + 1 AS v1, lower(w) AS lw FROM a",
        "SELECT a.id, a.g, b.x FROM a JOIN b ON b.a_id = a.id",
        "SELECT a.g, b.x, c.y FROM a JOIN b ON b.a_id = a.id JOIN c ON c.a_id = a.id WHERE b.x <> 3",
        "SELECT a1.id AS id1, a2.id AS id2 FROM a a1 JOIN a a2 ON a1.g = a2.g AND a1.id < a2.id",
        "SELECT g, count(*) AS n, sum(v) AS s, avg(v) AS av, min(v) AS mn, max(v) AS mx FROM a GROUP BY g",
        "SELECT g, count(DISTINCT v) AS nd, count(v) AS nv FROM a GROUP BY g HAVING count(*) > 1",
        "SELECT DISTINCT g, w FROM a",
        "SELECT a.g, sum(b.x) AS sx, count(*) AS n FROM a JOIN b ON b.a_id = a.id GROUP BY a.g",
        "SELECT b.a_id, max(b.x) AS mx FROM b GROUP BY b.a_id",
        "SELECT id, v FROM a WHERE v > 20 UNION ALL SELECT a_id, x FROM b UNION ALL SELECT a.id, c.y FROM a JOIN c ON c.a_id = a.id",
        "SELECT id, g, v, rank() OVER (PARTITION BY g ORDER BY v) AS rk FROM a",
        "SELECT g, s, s * 2 AS s2 FROM (SELECT g, sum(v) AS s FROM a GROUP BY g) q WHERE s > 20",
        "SELECT id, g, v FROM (SELECT id, g, v, rank() OVER (PARTITION BY g ORDER BY v DESC, id) AS rk FROM a) q WHERE rk <= 2",
        "SELECT g, v FROM a WHERE v > 20 UNION ALL SELECT a_id, x FROM b UNION SELECT a.g, c.y FROM a JOIN c ON c.a_id = a.id",
        # a derived key (the sources' primary keys, one through a join equality): unique index
        "SELECT b.id, b.a_id, a.g, b.x FROM a JOIN b ON b.a_id = a.id WHERE a.v IS NOT NULL",
        # simple views, WITH queries and subqueries in FROM, pulled up
        "SELECT av.g, b.x FROM av JOIN b ON b.a_id = av.id",
        "WITH bx AS (SELECT a_id, x FROM b WHERE x > 1) "
        "SELECT a.g, count(*) AS n, sum(bx.x) AS s FROM a JOIN bx ON bx.a_id = a.id GROUP BY a.g",
        "SELECT q.id, q.s FROM (SELECT a.id, a.v + c.y AS s FROM a JOIN c ON c.a_id = a.id) q WHERE q.s > 5",
        # aggregate state kept in place (count, sum, avg, min, max, count(DISTINCT)), global too
        "SELECT g, count(DISTINCT v) AS nd, count(v) AS nv, count(w) AS cw FROM a GROUP BY g",
        "SELECT count(*) AS n, sum(v) AS s, min(v) AS mn, max(w) AS mw, count(DISTINCT g) AS dg FROM a",
        "SELECT w, g, min(v) AS mn, max(v) AS mx, avg(v) AS av FROM a GROUP BY w, g",
        "SELECT a.g, sum(b.x::numeric(8,2)) AS sx, avg(b.x::numeric(8,2)) AS ax, count(*) AS n "
        "FROM a JOIN b ON b.a_id = a.id GROUP BY a.g",
        "SELECT g, sum(v) * 2 + count(v) AS e, max(v) - min(v) AS spread FROM a WHERE v <> 7 GROUP BY g",
        # types whose equality is not identity (table d): plain rows, group keys (recomputed),
        # DISTINCT, aggregate inputs; char(4) keys kept in place
        "SELECT id, k, f, ch, iv, j, arr, ci FROM d WHERE v > 1",
        "SELECT k, count(*) AS n, sum(v) AS s FROM d GROUP BY k",
        "SELECT f, ch, count(*) AS n FROM d GROUP BY f, ch",
        "SELECT iv, j, count(*) AS n, min(v) AS mn FROM d GROUP BY iv, j",
        "SELECT ci, arr, count(*) AS n FROM d GROUP BY ci, arr",
        "SELECT DISTINCT k, iv FROM d",
        "SELECT ch, sum(k) AS sk, min(k) AS mk, max(f) AS mf, max(iv) AS mi, count(DISTINCT j) AS dj "
        "FROM d GROUP BY ch",
        "SELECT ch, count(*) AS n, sum(v) AS s, count(DISTINCT k) AS dk, max(ch) AS mc FROM d GROUP BY ch",
        "SELECT d.id, d.k, d.f, a.g FROM d JOIN a ON a.id = d.id",
        # refreshed in full (not incremental yet), still exact
        "SELECT a.id, b.x FROM a LEFT JOIN b ON b.a_id = a.id",
        "SELECT id, g FROM a WHERE EXISTS (SELECT 1 FROM c WHERE c.a_id = a.id)",
    ]
    rng.shuffle(qs)
    return qs[: rng.randint(4, len(qs))]


def rand_val(rng, lo, hi, null_p=0.15):
    return None if rng.random() < null_p else rng.randint(lo, hi)


class Spelling:
    """The current spelling of the values of table d (see respell)."""

    def __init__(self):
        self.epoch = 0

    def row(self, rng):
        """k, f, ch, iv, j, arr, ci of a random row, as SQL literals' text (None: NULL)."""
        e = self.epoch
        scale = e % 3

        def num(n):
            return f"{n:.{scale}f}"

        def maybe(x, p=0.1):
            return None if rng.random() < p else x
        n = rng.randint(0, 3)
        fz = rng.choice([0, 0, 1.5, 2.5])
        days = rng.randint(1, 3)
        return (
            maybe(num(n)),
            maybe(("-0" if e % 2 else "0") if fz == 0 else repr(fz)),
            maybe(rng.choice(["a", "bb", "ccc", "dddd"])),
            maybe(f"{days * 24} hours" if e % 2 else f"{days} days"),
            maybe('{"a": %s}' % num(rng.randint(0, 2))),
            maybe("{%s,%s}" % (num(n), num(n + 1))),
            maybe(rng.choice(["bob", "eve"]) if e % 2 == 0 else rng.choice(["BOB", "EVE"])),
        )

    def respell_sql(self):
        """Rewrite every row of d to the next epoch's spelling (equal values)."""
        self.epoch += 1
        e = self.epoch
        scale = e % 3
        return ("UPDATE d SET k = round(k, %d), "
                "f = CASE WHEN f = 0 THEN '%s'::float8 ELSE f END, "
                "iv = %s, "
                "j = CASE WHEN j IS NULL THEN NULL ELSE jsonb_build_object('a', round((j->>'a')::numeric, %d)) END, "
                "arr = CASE WHEN arr IS NULL THEN NULL ELSE ARRAY(SELECT round(x, %d) FROM unnest(arr) x) END, "
                "ci = %s(ci)"
                % (scale, "-0" if e % 2 else "0",
                   "make_interval(hours => (extract(epoch FROM iv) / 3600)::int)" if e % 2 else "justify_hours(iv)",
                   scale, scale, "upper" if e % 2 else "lower"))


def random_dml(rng, cur, spelling):
    t = rng.choice(["a", "a", "b", "c", "d"])
    op = rng.random()
    if t == "d":
        if op < 0.45:
            cur.execute("INSERT INTO d VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (id) DO NOTHING",
                        (rng.randint(1, 60),) + spelling.row(rng) + (rand_val(rng, 0, 5),))
        elif op < 0.75:
            k, f, ch, iv, j, arr, ci = spelling.row(rng)
            col, val = rng.choice([("k", k), ("f", f), ("ch", ch), ("iv", iv), ("j", j), ("arr", arr),
                                   ("ci", ci), ("v", rand_val(rng, 0, 5))])
            cur.execute(f"UPDATE d SET {col} = %s WHERE id = %s", (val, rng.randint(1, 60)))
        else:
            cur.execute("DELETE FROM d WHERE id = %s", (rng.randint(1, 60),))
        return
    if t == "a":
        if op < 0.45:
            cur.execute("INSERT INTO a VALUES (%s, %s, %s, %s) ON CONFLICT (id) DO NOTHING",
                        (rng.randint(1, 60), rand_val(rng, 1, 4), rand_val(rng, 0, 30),
                         rng.choice([None, "X", "y", "Z", "x"])))
        elif op < 0.65:
            cur.execute("UPDATE a SET g = %s, v = %s WHERE id = %s",
                        (rand_val(rng, 1, 4), rand_val(rng, 0, 30), rng.randint(1, 60)))
        elif op < 0.75:
            # key update (skips on conflict)
            cur.execute("UPDATE a SET id = id + 100 WHERE id = %s AND NOT EXISTS "
                        "(SELECT 1 FROM a a2 WHERE a2.id = a.id + 100)", (rng.randint(1, 60),))
        else:
            cur.execute("DELETE FROM a WHERE id = %s", (rng.randint(1, 160),))
    else:
        col = "x" if t == "b" else "y"
        if op < 0.5:
            cur.execute(f"INSERT INTO {t} VALUES (%s, %s, %s) ON CONFLICT (id) DO NOTHING",
                        (rng.randint(1, 80), rng.randint(1, 60), rand_val(rng, 0, 5)))
        elif op < 0.75:
            cur.execute(f"UPDATE {t} SET {col} = %s, a_id = %s WHERE id = %s",
                        (rand_val(rng, 0, 5), rng.randint(1, 60), rng.randint(1, 80)))
        else:
            cur.execute(f"DELETE FROM {t} WHERE id = %s", (rng.randint(1, 80),))


def run_seed(seed, steps):
    rng = random.Random(seed)
    admin_exec(f"DROP DATABASE IF EXISTS {DB} WITH (FORCE)")
    admin_exec(f"CREATE DATABASE {DB}")
    setup = psycopg2.connect(dbname=DB)
    setup.autocommit = True
    cur = setup.cursor()
    cur.execute("SET client_min_messages = warning")
    cur.execute("CREATE EXTENSION dynview")
    cur.execute("SELECT dynview.wait_for_capture('60 seconds')")
    cur.execute("CREATE TABLE a (id int PRIMARY KEY, g int, v int, w text)")
    cur.execute("CREATE TABLE b (id int PRIMARY KEY, a_id int, x int)")
    cur.execute("CREATE TABLE c (id int PRIMARY KEY, a_id int, y int)")
    cur.execute("CREATE VIEW av AS SELECT id, g, v FROM a WHERE v IS NOT NULL")
    # citext ships with the server (contrib); without it ci is plain text
    try:
        cur.execute("CREATE EXTENSION IF NOT EXISTS citext")
        ci_type = "citext"
    except psycopg2.Error:
        ci_type = "text"
    cur.execute("CREATE TABLE d (id int PRIMARY KEY, k numeric, f float8, ch char(4), iv interval, "
                f"j jsonb, arr numeric[], ci {ci_type}, v int)")
    spelling = Spelling()
    for i in range(1, 31):
        cur.execute("INSERT INTO d VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
                    (i,) + spelling.row(rng) + (rand_val(rng, 0, 5),))
    for i in range(1, 31):
        cur.execute("INSERT INTO a VALUES (%s, %s, %s, %s)",
                    (i, rand_val(rng, 1, 4), rand_val(rng, 0, 30), rng.choice([None, "X", "y"])))
    for i in range(1, 41):
        cur.execute("INSERT INTO b VALUES (%s, %s, %s)", (i, rng.randint(1, 30), rand_val(rng, 0, 5)))
        cur.execute("INSERT INTO c VALUES (%s, %s, %s)", (i, rng.randint(1, 30), rand_val(rng, 0, 5)))
    names = []
    for i, q in enumerate(make_queries(rng)):
        name = f"dt{i}"
        cur.execute("SELECT dynview.create_dynamic_table(%s, %s, schedule => 'manual')", (name, q))
        names.append(name)
    # a dynamic table over a dynamic table
    cur.execute("SELECT dynview.create_dynamic_table('dt_up', 'SELECT id, g, v FROM a')")
    cur.execute("SELECT dynview.create_dynamic_table('dt_down', "
                "'SELECT g, count(*) AS n, sum(v) AS s FROM dt_up GROUP BY g', schedule => 'manual')")
    names += ["dt_up", "dt_down"]

    writers = [psycopg2.connect(dbname=DB) for _ in range(3)]
    for c in writers:
        # one thread drives all writers: a row lock held by an open transaction of
        # another writer must fail fast instead of blocking the loop
        c.cursor().execute("SET lock_timeout = '50ms'")
        c.commit()
    open_txn = [0] * len(writers)
    refreshes = 0
    incremental = 0
    for step in range(steps):
        w = rng.randrange(len(writers))
        conn = writers[w]
        wcur = conn.cursor()
        try:
            random_dml(rng, wcur, spelling)
            open_txn[w] += 1
        except psycopg2.Error:
            conn.rollback()
            open_txn[w] = 0
        if rng.random() < 0.02:
            # every writer's transaction ends first: rows written later use the new spelling
            for i, c in enumerate(writers):
                try:
                    c.commit()
                except psycopg2.Error:
                    c.rollback()
                open_txn[i] = 0
            cur.execute(spelling.respell_sql())
        # end some transactions: commit (out of order across writers) or roll back
        if open_txn[w] and rng.random() < 0.35:
            if rng.random() < 0.15:
                conn.rollback()
            else:
                try:
                    conn.commit()
                except psycopg2.Error:
                    conn.rollback()
            open_txn[w] = 0
        if rng.random() < 0.08 or step == steps - 1:
            if step == steps - 1:
                for c in writers:
                    c.commit()
            target = rng.choice(names)
            cur.execute("SELECT max(refresh_id) FROM dynview.refresh_history")
            before = cur.fetchone()[0] or 0
            cur.execute("SELECT refresh_mode FROM dynview.refresh(%s)", (target,))
            mode = cur.fetchone()[0]
            refreshes += 1
            incremental += mode == "INCREMENTAL"
            # verify what the refresh wrote (the table and its upstreams), right after it:
            # verify() recomputes at the data snapshot, which pruning makes unreliable
            # for tables whose snapshot is long past
            cur.execute("SELECT DISTINCT name::text FROM dynview.refresh_history WHERE refresh_id > %s",
                        (before,))
            for (n,) in cur.fetchall():
                cur.execute("SELECT dynview.verify(%s)", (n,))
                if not cur.fetchone()[0]:
                    notices = "".join(setup.notices[-3:])
                    raise AssertionError(f"verify({n}) false after refresh of {target} at step {step}\n{notices}")
    for n in names:
        cur.execute("SELECT dynview.refresh(%s)", (n,))
        cur.execute("SELECT dynview.verify(%s)", (n,))
        if not cur.fetchone()[0]:
            raise AssertionError(f"final verify({n}) false\n{''.join(setup.notices[-3:])}")
    # nothing writes any more: each table must equal its query now, row by row as text
    # (1.0 and 1.00, 0 and -0 differ) and as a multiset by "=" (EXCEPT ALL)
    for n in names:
        cur.execute("SELECT query FROM dynview.dynamic_tables WHERE name = %s::regclass", (n,))
        query = cur.fetchone()[0]
        cur.execute(f"SELECT dv_t::text FROM {n} dv_t")
        in_table = Counter(r[0] for r in cur.fetchall())
        cur.execute(f"SELECT dv_q::text FROM ({query}) dv_q")
        in_query = Counter(r[0] for r in cur.fetchall())
        if in_table != in_query:
            raise AssertionError(f"{n} differs from its query by text: table has {in_table - in_query}, "
                                 f"query has {in_query - in_table}")
        cur.execute(f"SELECT count(*) FROM ((TABLE {n} EXCEPT ALL ({query})) "
                    f"UNION ALL (({query}) EXCEPT ALL TABLE {n})) dv_x")
        if cur.fetchone()[0] != 0:
            raise AssertionError(f"{n} differs from its query by =")
    for c in writers:
        c.close()
    setup.close()
    admin_exec(f"DROP DATABASE IF EXISTS {DB} WITH (FORCE)")
    return refreshes, incremental


def large_window(rows):
    """One window of more than 100,000 change rows (issue 12): a table e of ROWS rows, dynamic
    tables of each kind over it (SPJ, aggregates kept in place, groups recomputed, DISTINCT, a
    join), then updates of half the rows, deletes of a fifth and ROWS/2 inserts, all in one
    window; each table is refreshed, applied incrementally (dynview.full_refresh_change_ratio = 0
    turns the CHANGE_VOLUME fallback off), verified, and compared with its query by text and by =.
    Returns (change rows, refreshes, incremental)."""
    admin_exec(f"DROP DATABASE IF EXISTS {DB} WITH (FORCE)")
    admin_exec(f"CREATE DATABASE {DB}")
    conn = psycopg2.connect(dbname=DB)
    conn.autocommit = True
    cur = conn.cursor()
    cur.execute("SET client_min_messages = warning")
    cur.execute("SET dynview.full_refresh_change_ratio = 0")
    cur.execute("CREATE EXTENSION dynview")
    cur.execute("SELECT dynview.wait_for_capture('60 seconds')")
    cur.execute("CREATE TABLE e (id int PRIMARY KEY, g int, v numeric, t char(6))")
    cur.execute("CREATE TABLE dim (g int PRIMARY KEY, label text)")
    cur.execute("INSERT INTO dim SELECT i, 'label ' || i FROM generate_series(0, 96) i")
    cur.execute("INSERT INTO e SELECT i, i %% 97, (i %% 13)::numeric / 4, 'x' || (i %% 7) "
                "FROM generate_series(1, %s) i", (rows,))
    queries = {
        "le_spj": "SELECT id, g, v, t FROM e WHERE v > 1",
        "le_state": "SELECT g, count(*) AS n, sum(v) AS s, min(v) AS mn, max(v) AS mx FROM e GROUP BY g",
        "le_recomputed": "SELECT t, count(DISTINCT g) AS dg, sum(v) AS s FROM e GROUP BY t HAVING count(*) > 1",
        "le_distinct": "SELECT DISTINCT g, t FROM e",
        "le_join": "SELECT e.id, e.v, dim.label FROM e JOIN dim ON dim.g = e.g WHERE e.v < 2",
    }
    for name, q in queries.items():
        cur.execute("SELECT dynview.create_dynamic_table(%s, %s, schedule => 'manual')", (name, q))
    cur.execute("BEGIN")
    cur.execute("UPDATE e SET v = v + 1, t = 'y' || (id % 5) WHERE id % 2 = 0")
    cur.execute("DELETE FROM e WHERE id % 5 = 0")
    cur.execute("INSERT INTO e SELECT i, i %% 89, (i %% 11)::numeric / 2, 'z' || (i %% 3) "
                "FROM generate_series(%s, %s) i", (rows + 1, rows + rows // 2))
    cur.execute("COMMIT")
    cur.execute("SELECT dynview.wait_for_capture('120 seconds')")
    cur.execute("SELECT buffered_changes FROM dynview.cdc_status WHERE source = 'e'::regclass")
    changes = cur.fetchone()[0]
    refreshes = incremental = 0
    for name, q in queries.items():
        cur.execute("SELECT refresh_mode, mode_reason_code FROM dynview.refresh(%s)", (name,))
        mode, reason = cur.fetchone()
        refreshes += 1
        incremental += mode == "INCREMENTAL"
        cur.execute("SELECT dynview.verify(%s)", (name,))
        if not cur.fetchone()[0]:
            raise AssertionError(f"large window: verify({name}) false after a {mode} refresh\n"
                                 f"{''.join(conn.notices[-3:])}")
        cur.execute(f"SELECT count(*) FROM ((SELECT dv_t::text FROM {name} dv_t EXCEPT ALL "
                    f"SELECT dv_q::text FROM ({q}) dv_q) UNION ALL (SELECT dv_q::text FROM ({q}) dv_q "
                    f"EXCEPT ALL SELECT dv_t::text FROM {name} dv_t)) dv_x")
        if cur.fetchone()[0] != 0:
            raise AssertionError(f"large window: {name} differs from its query by text")
        if mode != "INCREMENTAL" and name != "le_recomputed":
            raise AssertionError(f"large window: {name} refreshed {mode} ({reason}), not INCREMENTAL")
    conn.close()
    admin_exec(f"DROP DATABASE IF EXISTS {DB} WITH (FORCE)")
    return changes, refreshes, incremental


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--steps", type=int, default=600)
    ap.add_argument("--first-seed", type=int, default=1)
    ap.add_argument("--large-window", type=int, default=100000,
                    help="rows of the large-window run (0: none); its window holds about 2.2 times as many changes")
    a = ap.parse_args()
    passed = failed = 0
    if a.large_window > 0:
        try:
            changes, refreshes, incremental = large_window(a.large_window)
            passed += 1
            print(f"ok   large window: {changes} change rows, {refreshes} refreshes ({incremental} incremental)")
        except Exception as e:
            failed += 1
            print(f"FAIL large window: {e}")
            traceback.print_exc(limit=2)
    for seed in range(a.first_seed, a.first_seed + a.seeds):
        try:
            refreshes, incremental = run_seed(seed, a.steps)
            passed += 1
            print(f"ok   seed {seed}: {a.steps} steps, {refreshes} refreshes ({incremental} incremental)")
        except Exception as e:  # report and go on with the next seed
            failed += 1
            print(f"FAIL seed {seed}: {e}")
            traceback.print_exc(limit=2)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
