#!/usr/bin/python3
"""Seeded random differential test of dynview's refreshes (issues 4 and 13).

For each seed: a small random schema (tables a, b, c with primary keys and nullable columns,
b.a_id and c.a_id nullable too, and d, whose columns have types whose equality is not identity:
numeric of mixed scale, float with -0, interval, jsonb, numeric[], citext when the extension is
there, char(4) with short values), and dynamic tables of three sorts:

- a few from a fixed list of the constructs of issue 4 (filters, projections, inner joins incl.
  self-joins, GROUP BY with count/sum/avg/min/max/count(DISTINCT), DISTINCT, HAVING, UNION ALL,
  windows with PARTITION BY, views, WITH, subqueries in FROM; the tables over d use its types as
  keys, aggregate inputs and plain columns), and dt_down, a dynamic table over dt_up;
- nested queries of depth >= 3 drawn from a grammar of operators (class QueryGen), each operator
  reading its children as subqueries in FROM or in a subquery expression: inner / LEFT / RIGHT /
  FULL joins (ON with equalities, extra non-equi conditions, conditions on one side, nullable
  columns), EXISTS / NOT EXISTS / IN / NOT IN (correlated and not; subqueries returning NULLs or
  nothing), scalar subqueries (uncorrelated; correlated aggregates as in TPC-H Q17), GROUP BY with
  HAVING, GROUPING SETS / ROLLUP / CUBE, global aggregates, aggregates with FILTER, bool_and /
  bool_or, sum / avg of numeric without a declared scale, stddev / variance, count(DISTINCT), UNION [ALL] /
  INTERSECT [ALL] / EXCEPT [ALL], DISTINCT and DISTINCT ON, windows with and without PARTITION
  BY (rank, dense_rank, row_number, lag, first_value, running and framed aggregates), windows
  over GROUP BY in one level, ORDER BY ... LIMIT [OFFSET], and dynamic tables as sources: two
  grouped upstream tables up0 and up1; every seed also draws an aggregate over a left (or right)
  join of a grouped subquery, a correlated aggregate in a condition, a NOT EXISTS over a dynamic
  table, a join of the two aggregate dynamic tables under one more operator, and a rank layer (a
  window without PARTITION BY over a grouped dynamic table, a grouped subquery, or GROUP BY);
  two queries with set-returning functions in FROM (LATERAL after a comma, JOIN or LEFT
  JOIN, or uncorrelated), one under further operators, one drawn from the grammar with LATERAL
  among its operators (drawn from a random generator of their own, so that the seed's other
  queries stay as they were); and, drawn and refreshed from a random generator of their own
  (the seed's other draws unchanged), grouped subqueries of sum / avg of numeric without a
  declared scale (scales that differ within a group) joined under an aggregate or top-N, and
  such a correlated aggregate in a condition; and, again from a random generator of their own
  (composite_queries: with their own writers, DML and refreshes), tables over h, with a
  two-column primary key, and m, referring to it by two nullable columns with a two-column
  index: joins, outer joins, EXISTS / NOT EXISTS / [NOT] IN of rows and correlated aggregates on
  two columns, TPC-H Q20's and Q21's shapes, comma-list joins (FROM x, y WHERE ..., as TPC-H Q2,
  Q5, Q7, Q8, Q9 and Q21 write them) of up to four tables, and queries drawn from the grammar
  with h and m among its bases, two-column conditions and comma lists preferred; and, from a
  random generator of their own again (inheritance_queries: with their own writers, DML and
  refreshes), tables over an inheritance tree (ip, its children ic1 and ic2, ic1's child ig; no
  partitions): the parent read with and without ONLY, a child read directly, joins, NOT EXISTS
  over a child, a UNION ALL of a child's own rows and its child's; their writers write every
  level, with and without ONLY, truncate a child and detach one (NO INHERIT) and attach it
  again; and, from a random generator of their own again (rowkey_queries: with their own
  writers, DML and refreshes), tables over rp, whose primary key is of a row type rk (a int, b
  int), and rq, referring to it by a nullable rk column: keys (n, NULL), (NULL, n), (NULL, NULL)
  and NULL on both sides of joins, IN / NOT IN, EXISTS / NOT EXISTS, correlated aggregates (TPC-H
  Q17's and Q20's shapes), GROUP BY, DISTINCT and count(DISTINCT), keys formed by ROW(x, y)::rk,
  domains with CHECKs (over text, int and rk) as keys and aggregate inputs, and queries drawn
  from the grammar with rp and rq among its bases; --large-row-keys N makes the seeds divisible
  by N fill rp and rq past the size where probes and keyed reads are planned (optree.c
  DV_PROBE_MIN_ROWS), with bulk changes of 1,000 rows now and then (slow: a local option, not
  CI's); --row-keys-only runs those tables alone.  Queries are
  deterministic: LIMIT,
  DISTINCT ON and row_number() sort by every output column last (rows that tie are identical),
  no float aggregate, and no DISTINCT, grouping, set operation, sort or min/max on a numeric of
  unconstrained scale (equal values of two scales, such as avg() gives, would make the result
  depend on row order).

Then many steps of random DML (inserts with NULLs and duplicates of non-key values, updates of
keys and of group columns, deletes) spread over three connections whose transactions interleave,
commit out of order, stay open across a refresh, or roll back.  Now and then every row of d is
rewritten to equal values spelled differently (1 -> 1.0, 0 -> -0, '2 days' -> '48 hours', 'bob'
-> 'BOB'): a change that "=" cannot see.  (Inserts use the current spelling, so that no group
holds two spellings of one value: the query would then show either.)  A step ends with a
refresh of a random table with probability REFRESH_P; after every refresh, dynview.verify() must
be true for every table that the refresh wrote (the table and the upstreams its pipeline
refreshed), and the refresh must have succeeded.  At the end of a seed every table is refreshed
and verified once more, and compared with its query by the text of its rows and by "=" (EXCEPT
ALL), independently of verify().  A failure names the seed, the table and its query.

Refreshes run, about half of them, under session settings drawn
from a random generator of their own (settings_for_refresh: output styles, standard_conforming_strings,
array_nulls, TimeZone, search_path, planner switches, work_mem, the isolation level, and
dynview's own window settings), reset before the verify() after them: a refresh must give the
same rows whatever the session says.

At the end: the number of verified refreshes, and per construct of the grammar how many
verified refreshes of tables containing it were INCREMENTAL, NO_DATA or FULL (with the reason
codes), so that the engine's progress shows; --min-verified makes too few verified refreshes a
failure (scripts/test.sh asks for 10,000).

Before the seeds, one large window (--large-window ROWS, default 100000): more than 100,000
change rows applied in one refresh of each kind of table (see large_window).

usage: differential.py [--seeds N] [--steps N] [--nested N] [--first-seed S]
                       [--large-window ROWS] [--min-verified N] [--large-row-keys N]
                       [--row-keys-only] [--db NAME]
(rerun one failing seed with --first-seed S --seeds 1 --large-window 0 and the same --steps and
--nested).  Connection: libpq environment (PGHOST, PGPORT, PGUSER).  Ends with the plain line
"N passed, N failed" (one count per seed, and one for the large window).
"""
import argparse
from collections import Counter, defaultdict
import random
import sys
import time
import traceback
import zlib

import psycopg2

DB = "dv_random"
# the chance that a step ends with a refresh (of a table drawn at random)
REFRESH_P = 0.4
# the same for the tables over composite keys and comma lists (composite_queries)
C_REFRESH_P = 0.05
# the same for the tables over the inheritance tree (inheritance_queries)
I_REFRESH_P = 0.08
# the same for the tables over keys of a row type and domains (rowkey_queries)
R_REFRESH_P = 0.1
# seeds divisible by this one (0: none) fill rp and rq past DV_PROBE_MIN_ROWS (--large-row-keys)
LARGE_ROW_KEYS = 0
# only the tables of rowkey_queries, with the same draws (--row-keys-only)
ROW_KEYS_ONLY = False


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
    return qs[: rng.randint(3, 8)]


# ---- the grammar of nested queries -------------------------------------------------------------
#
# A relation (Rel) is a base table (a, b, c, d, or a dynamic table made earlier in the seed) or a
# SELECT built by one operator over child relations, each used as a subquery in FROM (or in a
# subquery expression).  Each Rel knows its output columns (name, kind, number of distinct values:
# a rough guess that keeps joins from multiplying rows), a rough row count, its depth (operators on
# the longest path down to a base) and the tags of the constructs it contains (for the tally).
# Kinds: int (integers, and numerics of scale 0 such as sum(bigint)), num (numeric without a
# declared scale: avg, division), text, bool, iv (interval), ci (citext).  Equal values of kind
# num can have different scales (avg and division choose the scale from their inputs), so no
# operator compares num columns for DISTINCT, grouping, set operations or sorting, nor takes
# their min or max: which spelling survived would depend on row order.  The other kinds have one
# spelling per value at a time (see Spelling).  LIMIT, DISTINCT ON and row_number() sort by
# every output column last, so that rows that tie are identical and the result does not depend
# on row order either.


class Col:
    def __init__(self, name, kind, ndv):
        self.name, self.kind, self.ndv = name, kind, ndv


class Rel:
    def __init__(self, sql, cols, rows, depth, tags, table=None):
        self.sql, self.cols, self.rows, self.depth = sql, cols, rows, depth
        self.tags = set(tags)
        self.table = table  # a base table or dynamic table: its name

    def src(self, alias):
        return f"{self.table} {alias}" if self.table else f"({self.sql}) {alias}"

    def of(self, *kinds):
        return [c for c in self.cols if c.kind in kinds]


# kinds that group keys, DISTINCT, PARTITION BY and set operations may use: every value has one
# spelling at a time (interval and citext values are respelled all at once, see Spelling)
KEYABLE = ("int", "text", "bool", "iv", "ci", "rk")

BASES = [
    Rel(None, [Col("id", "int", 100), Col("g", "int", 4), Col("v", "int", 30), Col("w", "text", 4)],
        45, 0, [], table="a"),
    Rel(None, [Col("id", "int", 80), Col("a_id", "int", 60), Col("x", "int", 6)], 60, 0, [], table="b"),
    Rel(None, [Col("id", "int", 80), Col("a_id", "int", 60), Col("y", "int", 6)], 60, 0, [], table="c"),
    # numeric of the seed's current scale, char(4), interval, citext: types whose equality is
    # not identity
    Rel(None, [Col("id", "int", 60), Col("k", "num", 4), Col("ch", "text", 4), Col("iv", "iv", 3),
               Col("ci", "ci", 2), Col("v", "int", 6)], 40, 0, [], table="d"),
]


# two tables with composite keys (drawn only by the generator of composite_queries, so that the
# seeds' other draws stay as they were): h has a two-column primary key, m refers to it by two
# nullable columns with a two-column index of its own
COMPOSITE_BASES = [
    Rel(None, [Col("k1", "int", 6), Col("k2", "int", 5), Col("v", "int", 20), Col("t", "text", 4)],
        30, 0, [], table="h"),
    Rel(None, [Col("id", "int", 60), Col("k1", "int", 6), Col("k2", "int", 5), Col("x", "int", 6)],
        50, 0, [], table="m"),
]


# two tables with keys of a composite type (drawn only by the generator of rowkey_queries): rp's
# primary key id is of the row type rk (a int, b int), whose fields may be NULL ((n, NULL),
# (NULL, n), (NULL, NULL)); rq refers to it by k (rk, nullable, indexed) and by x, y (ROW(x, y)::rk);
# t is a domain over text, n one over int, dk one over rk, each with a CHECK (kind rk: a
# composite value, compared by the record equality, for which IS NULL is not "the null value")
ROWKEY_BASES = [
    Rel(None, [Col("id", "rk", 20), Col("t", "text", 3), Col("v", "int", 10), Col("dk", "rk", 8)],
        18, 0, [], table="rp"),
    Rel(None, [Col("id", "int", 60), Col("k", "rk", 20), Col("n", "int", 8), Col("v", "int", 10),
               Col("x", "int", 4), Col("y", "int", 3), Col("dk", "rk", 8)], 50, 0, [], table="rq"),
]


class QueryGen:
    """Draws nested queries: gen(depth) returns a Rel with depth operators on its longest path
    (more when a dynamic table stands for a base: its own query's depth counts)."""

    def __init__(self, rng, upstreams=(), lateral=False, composite=False, rowkey=False):
        self.rng = rng
        # rowkey: draw rp and rq (keys of a composite type, domains) among the bases (only
        # rowkey_queries' generator does)
        self.rowkey = rowkey
        # composite: draw h and m among the bases, joins and correlated subqueries on two
        # columns more often, and inner joins written as comma lists (FROM l, r WHERE ...), as
        # TPC-H Q2, Q5, Q7, Q8, Q9, Q21 write them (only composite_queries' generator does)
        self.composite = composite
        self.upstreams = list(upstreams)  # Rels of dynamic tables made earlier in the seed
        self.n = 0
        # draw LATERAL set-returning functions among the operators too (only the generator of
        # the seed's LATERAL shapes does: the other draws of the seeds stay as they were)
        self.with_lateral = lateral

    def fresh(self, prefix):
        self.n += 1
        return f"{prefix}{self.n}"

    def base(self):
        r = self.rng
        if self.upstreams and r.random() < 0.25:
            return r.choice(self.upstreams)
        if self.rowkey:
            return r.choice(BASES[:2] + ROWKEY_BASES * 3)
        if self.composite:
            return r.choice(BASES[:3] + COMPOSITE_BASES * 3)
        return r.choice(BASES[:3] * 3 + BASES[3:])

    # -- expressions ---------------------------------------------------------------------------

    def cond(self, alias, rel):
        """A condition on one relation's columns (true for some rows, NULL for others)."""
        r = self.rng
        c = r.choice(rel.cols)
        e = f"{alias}.{c.name}"
        if c.kind == "bool":
            return r.choice([e, f"NOT {e}", f"{e} IS NOT TRUE"])
        if c.kind == "text":
            return r.choice([f"{e} IN ('X', 'y', 'a')", f"{e} <> 'x'", f"{e} IS NOT NULL", f"{e} > 'Z'"])
        if c.kind == "iv":
            return r.choice([f"{e} > '1 day'", f"{e} = '48 hours'", f"{e} IS NULL"])
        if c.kind == "ci":
            return r.choice([f"{e} = 'bob'", f"{e} <> 'EVE'", f"{e} IS NOT NULL"])
        if c.kind == "rk":
            return r.choice([f"{e} IS NULL", f"{e} IS NOT NULL", f"pg_catalog.num_nulls({e}) = 1",
                             f"({e}).a > 1", f"({e}).b IS NULL", f"{e} > ROW(2, NULL)::rk",
                             f"{e} IS DISTINCT FROM ROW(NULL, NULL)::rk"])
        k = r.choice([0, 1, 2, 3, 5, 10, 20])
        return r.choice([f"{e} > {k}", f"{e} <= {k}", f"{e} <> {k}", f"{e} IS NULL",
                         f"{e} IS NOT NULL", f"{e} BETWEEN {k} AND {k + 10}", f"({e} + 1) % 3 = 0"])

    def eq_pair(self, lrel, rrel, limit=None):
        """Two columns of the same kind to equate, one from each side, preferring pairs that
        keep the join small; None if the sides share no kind."""
        r = self.rng
        pairs = [(a, b) for a in lrel.cols for b in rrel.cols
                 if a.kind == b.kind or {a.kind, b.kind} == {"int", "num"}]
        pairs = [p for p in pairs if "bool" not in (p[0].kind, p[1].kind)]
        if not pairs:
            return None
        if limit:
            small = [p for p in pairs if lrel.rows * rrel.rows / max(p[0].ndv, p[1].ndv, 1) <= limit]
            if small:
                pairs = small
            else:
                pairs.sort(key=lambda p: -max(p[0].ndv, p[1].ndv))
                pairs = pairs[:1]
        return r.choice(pairs)

    def agg_exprs(self, alias, rel, count, algebraic=False, unconstrained=False):
        """count aggregate expressions over rel: [(sql, Col kind, ndv, tag or None)].  algebraic:
        only count, sum and avg of integers, FILTER (a grouped subquery keeps its groups in state);
        unconstrained: and sum / avg of numeric without a declared scale, the first one such."""
        r = self.rng
        out = []
        ints = rel.of("int")
        nums = rel.of("num")
        for i in range(count):
            if unconstrained:
                choice = 8 if i == 0 else r.choice([0, 1, 2, 3, 6, 8])
            else:
                choice = r.choice([0, 1, 2, 3, 6]) if algebraic else r.randrange(12)
            c = r.choice(ints) if ints else None
            e = f"{alias}.{c.name}" if c else None
            if choice == 0 or not c:
                out.append(("count(*)", "int", 20, None))
            elif choice == 1:
                out.append((f"count({e})", "int", 20, None))
            elif choice == 2:
                out.append((f"sum({e})", "int", 50, None))
            elif choice == 3:
                out.append((f"avg({e})", "num", 50, None))
            elif choice == 4:
                out.append((r.choice(["min", "max"]) + f"({e})", "int", c.ndv, None))
            elif choice == 5:
                out.append((f"count(DISTINCT {e})", "int", 10, "count(DISTINCT)"))
            elif choice == 6:
                cnd = self.cond(alias, rel)
                out.append((r.choice(["count(*)", f"sum({e})"]) + f" FILTER (WHERE {cnd})", "int", 20,
                            "aggregate FILTER"))
            elif choice == 7:
                k = r.choice([1, 2, 5, 10])
                out.append((r.choice(["bool_and", "bool_or"]) + f"({e} > {k})", "bool", 2, "bool_and/bool_or"))
            elif choice in (8, 9):
                # numeric without a declared scale: an exact sum whose scale the inputs decide
                if nums and r.random() < 0.6:
                    ne = f"{alias}.{r.choice(nums).name}"
                elif unconstrained and r.random() < 0.6:
                    # scales that differ from row to row within a group (0 to 3; 1 or 0; the
                    # product of two such), and equal values spelled differently
                    ne = r.choice([f"round({e}::numeric / 3, (abs({e}) % 4)::int)",
                                   f"CASE WHEN {e} % 2 = 0 THEN {e} * 1.5 ELSE {e}::numeric END",
                                   f"round({e}::numeric / 7, (abs({e}) % 3)::int) * ({e} / 2.0)"])
                else:
                    ne = f"{e}::numeric / {r.choice([4, 8, 3])}"
                out.append((r.choice(["sum", "avg"]) + f"({ne})", "num", 50, "sum/avg of unconstrained numeric"))
            elif choice == 10:
                t = rel.of("text")
                if t:
                    out.append((r.choice(["min", "max"]) + f"({alias}.{t[0].name})", "text", 4, None))
                else:
                    out.append(("count(*)", "int", 20, None))
            else:
                out.append((f"sum({e}) - min({e})", "int", 30, None))
        return out

    def pick_cols(self, rel, lo, hi, sorted_on=False):
        """A few of rel's columns, in order, always one int column among them.  sorted_on: the
        columns will be compared for DISTINCT or sorted on, so none of kind num (avg and
        division give equal numerics different scales depending on their inputs, e.g.
        1.6666666666666667 and 1.66666666666666670000: which one DISTINCT keeps or which of
        two rows that tie a sort puts first would depend on row order)."""
        r = self.rng
        usable = [i for i, c in enumerate(rel.cols) if not (sorted_on and c.kind == "num")]
        n = min(len(usable), r.randint(lo, hi))
        chosen = sorted(r.sample(usable, n))
        if not any(rel.cols[i].kind == "int" for i in chosen):
            ints = [i for i, c in enumerate(rel.cols) if c.kind == "int"]
            chosen = sorted(set(chosen[1:]) | {r.choice(ints)})
        return [rel.cols[i] for i in chosen]

    @staticmethod
    def order_all(alias, cols, first=()):
        """ORDER BY list: first, then every other column (ties are then identical rows)."""
        keys = [f"{alias}.{c}" for c in first]
        keys += [f"{alias}.{c.name}" for c in cols if c.name not in first]
        return ", ".join(keys)

    # -- operators -----------------------------------------------------------------------------

    def gen(self, depth):
        if depth == 0:
            return self.base()
        ops = [self.join, self.join, self.semi, self.scalar, self.aggregate, self.aggregate,
               self.distinct, self.setop, self.window, self.window_grouped, self.topn]
        if self.with_lateral:
            ops.append(self.lateral)
        while True:
            rel = self.rng.choice(ops)(depth)
            if rel is not None:
                return rel

    def child(self, depth, other_max=False):
        """A child of an operator of the given depth: the first has depth - 1, others any less."""
        return self.gen(depth - 1 if not other_max else self.rng.randint(0, depth - 1))

    def join(self, depth, kind=None, children=None):
        r = self.rng
        if children:
            left, right = children
        else:
            left, right = self.child(depth), self.child(depth, True)
            if r.random() < 0.5:
                left, right = right, left
        pair = self.eq_pair(left, right, limit=400)
        if pair is None:
            return None
        kind = kind or r.choice(["JOIN", "LEFT JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN", "FULL JOIN"])
        tag = {"JOIN": "inner join", "LEFT JOIN": "left join", "RIGHT JOIN": "right join",
               "FULL JOIN": "full join"}[kind]
        lc, rc = pair
        on = [f"l.{lc.name} = r.{rc.name}"]
        extra = r.randrange(4)
        tags = {tag}
        if extra == 1:
            p2 = self.eq_pair(left, right)
            if p2 and p2[0].kind in ("int", "num") and p2[1].kind in ("int", "num"):
                on.append(f"l.{p2[0].name} {r.choice(['<', '<=', '<>', '>'])} r.{p2[1].name} + {r.randint(0, 3)}")
                tags.add("join ON with a non-equi condition")
        elif extra == 2:
            side = r.choice(["l", "r"])
            on.append(self.cond(side, left if side == "l" else right))
            tags.add("join ON with a condition on one side")
        if r.random() < (0.6 if self.composite else 0.2):
            p2 = self.eq_pair(left, right)
            if p2 and p2 != pair:
                on.append(f"l.{p2[0].name} = r.{p2[1].name}")
                if p2[0] is not lc and p2[1] is not rc:
                    tags.add("join on two columns")
        cols, names = [], set()
        sel = []
        for alias, rel in (("l", left), ("r", right)):
            for c in self.pick_cols(rel, 1, 3):
                name = c.name
                while name in names:
                    name = self.fresh(c.name + "_")
                names.add(name)
                sel.append(f"{alias}.{c.name}" + (f" AS {name}" if name != c.name else ""))
                cols.append(Col(name, c.kind, c.ndv))
        where = ""
        if r.random() < 0.25:
            side = r.choice(["l", "r"])
            where = f" WHERE {self.cond(side, left if side == 'l' else right)}"
        if self.composite and kind == "JOIN" and r.random() < 0.6:
            # a comma list: the join's conditions in WHERE
            conds = on + ([where[len(" WHERE "):]] if where else [])
            sql = f"SELECT {', '.join(sel)} FROM {left.src('l')}, {right.src('r')} WHERE {' AND '.join(conds)}"
            tags.add("comma-list join")
        else:
            sql = (f"SELECT {', '.join(sel)} FROM {left.src('l')} {kind} {right.src('r')} "
                   f"ON {' AND '.join(on)}{where}")
        rows = max(left.rows, right.rows, left.rows * right.rows // max(lc.ndv, rc.ndv, 1))
        return Rel(sql, cols, min(rows, 2000), depth, tags | left.tags | right.tags)

    def semi(self, depth, form=None, inner=None, correlated=None, outer=None):
        """EXISTS / NOT EXISTS / IN / NOT IN, correlated or not."""
        r = self.rng
        outer = outer or self.child(depth)
        # a correlated subquery runs once per outer row: keep it shallow
        if correlated is None:
            correlated = r.random() < 0.6
        if inner is None:
            inner = self.gen(0 if correlated and r.random() < 0.7
                             else r.randint(0, min(depth - 1, 1 if correlated else 2)))
        form = form or r.choice(["EXISTS", "NOT EXISTS", "IN", "NOT IN"])
        pair = self.eq_pair(outer, inner)
        if pair is None:
            return None
        oc, ic = pair
        tags = {f"{form} ({'correlated' if correlated else 'uncorrelated'})"}
        conds = []
        if r.random() < 0.4:
            conds.append(self.cond("s", inner))
        if r.random() < 0.1:
            conds.append("s.%s > 100000" % inner.of("int")[0].name if inner.of("int") else "false")
            tags.add("empty subquery")
        if form in ("EXISTS", "NOT EXISTS"):
            if correlated:
                conds.insert(0, f"s.{ic.name} = o.{oc.name}")
                if self.composite and r.random() < 0.5:
                    p2 = self.eq_pair(outer, inner)
                    if p2 and p2[0] is not oc and p2[1] is not ic:
                        conds.insert(1, f"s.{p2[1].name} {r.choice(['=', '=', 'IS NOT DISTINCT FROM'])} o.{p2[0].name}")
                        tags.add(f"{form} on two columns")
                if r.random() < 0.3:
                    p2 = self.eq_pair(outer, inner)
                    if p2 and p2[0].kind in ("int", "num") and p2[1].kind in ("int", "num"):
                        conds.append(f"s.{p2[1].name} < o.{p2[0].name}")
            w = f" WHERE {' AND '.join(conds)}" if conds else ""
            pred = f"{form} (SELECT 1 FROM {inner.src('s')}{w})"
        else:
            if correlated:
                p2 = self.eq_pair(outer, inner)
                if p2:
                    conds.insert(0, f"s.{p2[1].name} = o.{p2[0].name}")
            w = f" WHERE {' AND '.join(conds)}" if conds else ""
            # the subquery's column is nullable: NOT IN meets NULLs
            p2 = self.eq_pair(outer, inner) if self.composite and r.random() < 0.5 else None
            if p2 and p2[0] is not oc and p2[1] is not ic:
                # a row of two columns: (o.x, o.y) [NOT] IN (SELECT s.x, s.y ...)
                pred = (f"(o.{oc.name}, o.{p2[0].name}) {'NOT IN' if form == 'NOT IN' else 'IN'} "
                        f"(SELECT s.{ic.name}, s.{p2[1].name} FROM {inner.src('s')}{w})")
                tags.add(f"{form} of two columns")
            else:
                pred = f"o.{oc.name} {'NOT IN' if form == 'NOT IN' else 'IN'} (SELECT s.{ic.name} FROM {inner.src('s')}{w})"
        cols = self.pick_cols(outer, 1, 4)
        extra = f" AND {self.cond('o', outer)}" if r.random() < 0.3 else ""
        sql = f"SELECT {', '.join('o.' + c.name for c in cols)} FROM {outer.src('o')} WHERE {pred}{extra}"
        return Rel(sql, [Col(c.name, c.kind, c.ndv) for c in cols], outer.rows, depth,
                   tags | outer.tags | inner.tags)

    def scalar(self, depth, correlated=None, unconstrained=False):
        """Scalar subqueries: uncorrelated, or a correlated aggregate (TPC-H Q17); unconstrained:
        the aggregate is a sum / avg of numeric without a declared scale."""
        r = self.rng
        outer = self.child(depth)
        if correlated is None:
            correlated = r.random() < 0.5
        inner = self.gen(0 if correlated else r.randint(0, min(depth - 1, 2)))
        ints = inner.of("int")
        if not ints:
            return None
        ic = r.choice(ints)
        if unconstrained:
            agg = r.choice(["sum", "avg"]) + r.choice([f"(round(s.{ic.name}::numeric / 3, (abs(s.{ic.name}) % 4)::int))",
                                                        f"(s.{ic.name} / 4.0)"])
        else:
            agg = r.choice([f"avg(s.{ic.name})", f"max(s.{ic.name})", "count(*)", f"sum(s.{ic.name})",
                            f"min(s.{ic.name})"])
        w = ""
        tag_extra = set()
        if correlated:
            pair = self.eq_pair(outer, inner)
            if pair is None:
                return None
            w = f" WHERE s.{pair[1].name} = o.{pair[0].name}"
            if self.composite and r.random() < 0.6:
                p2 = self.eq_pair(outer, inner)
                if p2 and p2[0] is not pair[0] and p2[1] is not pair[1]:
                    w += f" AND s.{p2[1].name} = o.{p2[0].name}"
                    tag_extra.add("correlated aggregate on two columns")
        sub = f"(SELECT {agg} FROM {inner.src('s')}{w})"
        cols = self.pick_cols(outer, 1, 4)
        sel = [f"o.{c.name}" for c in cols]
        out = [Col(c.name, c.kind, c.ndv) for c in cols]
        where = ""
        tag = "scalar subquery (correlated aggregate)" if correlated else "scalar subquery (uncorrelated)"
        o_ints = outer.of("int", "num")
        if o_ints and r.random() < 0.6:
            oc = r.choice(o_ints)
            factor = r.choice(["", "0.5 * ", "2 * "])
            where = f" WHERE o.{oc.name} {r.choice(['<', '>=', '='])} {factor}{sub}"
        else:
            name = self.fresh("sq")
            sel.append(f"{sub} AS {name}")
            out.append(Col(name, "num" if agg.startswith("avg") or unconstrained else "int", 30))
        sql = f"SELECT {', '.join(sel)} FROM {outer.src('o')}{where}"
        if unconstrained:
            tag += ", of numeric without a declared scale"
        return Rel(sql, out, outer.rows, depth, {tag} | tag_extra | outer.tags | inner.tags)

    def aggregate(self, depth, form=None, child=None, algebraic=False, unconstrained=False):
        """GROUP BY (with HAVING), GROUPING SETS / ROLLUP / CUBE, or a global aggregate
        (unconstrained: see agg_exprs)."""
        r = self.rng
        child = child or self.child(depth)
        form = form or r.choice(["group", "group", "group", "sets", "global"])
        # group keys: columns of a kind that "=" cannot confuse (int, text, bool); num only alone
        keyable = [c for c in child.cols if c.kind in KEYABLE]
        if form != "global" and not keyable:
            form = "global"
        aggs = self.agg_exprs("t", child, r.randint(1, 3), algebraic, unconstrained)
        tags = {t for _, _, _, t in aggs if t}
        if form == "group" and unconstrained:
            tags.add("GROUP BY of count/sum/avg with sum/avg of unconstrained numeric (groups kept in state inside a query)")
        if form == "group" and all((t is None or t == "aggregate FILTER") and "min(" not in e and "max(" not in e
                                   and "DISTINCT" not in e for e, _, _, t in aggs):
            tags.add("GROUP BY of count/sum/avg (groups kept in state when inside a query)")
        sel, cols = [], []
        group = ""
        rows = 1
        if form == "global":
            tags.add("global aggregate")
            keys = []
        else:
            keys = r.sample(keyable, min(len(keyable), r.randint(1, 2)))
            ndv = 1
            for k in keys:
                ndv *= max(k.ndv, 1)
            rows = min(child.rows, ndv)
            kl = ", ".join(f"t.{k.name}" for k in keys)
            if form == "sets":
                if len(keys) == 1:
                    g = r.choice([f"ROLLUP ({kl})", f"CUBE ({kl})", f"GROUPING SETS (({kl}), ())"])
                else:
                    a, b = (f"t.{k.name}" for k in keys)
                    g = r.choice([f"ROLLUP ({kl})", f"CUBE ({kl})", f"GROUPING SETS (({a}), ({b}), ())",
                                  f"GROUPING SETS (({kl}), ({a}))"])
                tags.add("GROUPING SETS/ROLLUP/CUBE")
                group = f" GROUP BY {g}"
                rows = rows * 2 + 1
            else:
                tags.add("GROUP BY")
                group = f" GROUP BY {kl}"
            for k in keys:
                sel.append(f"t.{k.name}")
                cols.append(Col(k.name, k.kind, k.ndv))
            if form == "sets":
                name = self.fresh("gr")
                sel.append(f"grouping({kl}) AS {name}")
                cols.append(Col(name, "int", 4))
        # now and then a GROUP BY of its keys only (its groups are kept in state inside a query),
        # decided from the input's SQL so that the seeds' other draws stay as they were
        if form == "group" and zlib.crc32(child.src("t").encode()) % 8 == 0 and any(k.kind == "int" for k in keys):
            aggs = []
            tags.add("GROUP BY of keys only")
        # now and then one of the variance family (kept in place at the top as count, exact sum
        # and sum of squares), decided from the input's SQL like the above
        h = zlib.crc32(("var " + child.src("t")).encode())
        if aggs and not algebraic and child.of("int") and h % 4 == 0:
            c = child.of("int")[h // 4 % len(child.of("int"))]
            f = ["stddev", "stddev_samp", "stddev_pop", "variance", "var_samp", "var_pop"][h // 64 % 6]
            aggs = aggs + [(f"{f}(t.{c.name})", "num", 50, "stddev/variance")]
            tags.add("stddev/variance")
        for e, kind, ndv, _ in aggs:
            name = self.fresh("ag")
            sel.append(f"{e} AS {name}")
            cols.append(Col(name, kind, ndv))
        having = ""
        if form == "group" and r.random() < 0.3:
            having = f" HAVING count(*) > {r.choice([1, 2, 3])}"
            tags.add("HAVING")
        if not any(c.kind == "int" for c in cols):
            name = self.fresh("n")
            sel.append(f"count(*) AS {name}")
            cols.append(Col(name, "int", 20))
        sql = f"SELECT {', '.join(sel)} FROM {child.src('t')}{group}{having}"
        return Rel(sql, cols, max(rows, 1), depth, tags | child.tags)

    def distinct(self, depth, child=None):
        r = self.rng
        child = child or self.child(depth)
        cols = self.pick_cols(child, 1, 3, sorted_on=True)
        if r.random() < 0.5:
            sql = f"SELECT DISTINCT {', '.join('t.' + c.name for c in cols)} FROM {child.src('t')}"
            tag = "DISTINCT"
        else:
            on = r.choice(cols)
            # the ORDER BY ends with every output column: rows that tie are identical
            order = [f"t.{on.name}"] + [f"t.{c.name}{r.choice(['', ' DESC'])}" for c in cols if c is not on]
            sql = (f"SELECT DISTINCT ON (t.{on.name}) {', '.join('t.' + c.name for c in cols)} "
                   f"FROM {child.src('t')} ORDER BY {', '.join(order)}")
            tag = "DISTINCT ON"
        return Rel(sql, [Col(c.name, c.kind, c.ndv) for c in cols], child.rows, depth, {tag} | child.tags)

    def setop(self, depth):
        r = self.rng
        left, right = self.child(depth), self.child(depth, True)
        if r.random() < 0.5:
            left, right = right, left
        width = r.randint(1, 2)
        lsel, rsel, cols = [], [], []
        for i in range(width):
            kinds = [k for k in KEYABLE if left.of(k) and right.of(k)]
            if not kinds:
                break
            k = r.choice(kinds) if i else "int"
            lc, rc = r.choice(left.of(k)), r.choice(right.of(k))
            name = f"u{i}"
            lsel.append(f"l.{lc.name} AS {name}")
            rsel.append(f"r.{rc.name}")
            cols.append(Col(name, k, max(lc.ndv, rc.ndv)))
        op = r.choice(["UNION", "UNION ALL", "INTERSECT", "INTERSECT ALL", "EXCEPT", "EXCEPT ALL"])
        lw = f" WHERE {self.cond('l', left)}" if r.random() < 0.3 else ""
        rw = f" WHERE {self.cond('r', right)}" if r.random() < 0.3 else ""
        sql = (f"SELECT {', '.join(lsel)} FROM {left.src('l')}{lw} {op} "
               f"SELECT {', '.join(rsel)} FROM {right.src('r')}{rw}")
        return Rel(sql, cols, left.rows + right.rows, depth, {op} | left.tags | right.tags)

    def window(self, depth, child=None, partition=None):
        r = self.rng
        child = child or self.child(depth)
        cols = self.pick_cols(child, 1, 4, sorted_on=True)
        keyable = [c for c in cols if c.kind in KEYABLE]
        part = ""
        if keyable and (partition if partition is not None else r.random() < 0.65):
            p = r.choice(keyable)
            part = f"PARTITION BY t.{p.name} "
            tag = "window with PARTITION BY"
        else:
            tag = "window without PARTITION BY"
        ints = [c for c in cols if c.kind == "int"]
        ic = r.choice(ints)
        full = self.order_all("t", cols)
        f = r.choice([
            (f"row_number() OVER ({part}ORDER BY {full})", "int"),
            (f"rank() OVER ({part}ORDER BY t.{ic.name} DESC)", "int"),
            (f"dense_rank() OVER ({part}ORDER BY t.{ic.name})", "int"),
            (f"sum(t.{ic.name}) OVER ({part.strip()})", "int"),
            (f"count(*) OVER ({part.strip()})", "int"),
            (f"sum(t.{ic.name}) OVER ({part}ORDER BY {full})", "int"),
            (f"max(t.{ic.name}) OVER ({part}ORDER BY {full} ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)", "int"),
            (f"lag(t.{ic.name}, {r.choice([1, 2])}) OVER ({part}ORDER BY {full})", "int"),
            (f"first_value(t.{ic.name}) OVER ({part}ORDER BY {full})", "int"),
            (f"count(*) OVER ({part}ORDER BY t.{ic.name} DESC NULLS LAST)", "int"),
            (f"sum(t.{ic.name}) OVER ({part}ORDER BY t.{ic.name} GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW)", "int"),
        ])
        name = self.fresh("wf")
        sel = [f"t.{c.name}" for c in cols] + [f"{f[0]} AS {name}"]
        sql = f"SELECT {', '.join(sel)} FROM {child.src('t')}"
        out = [Col(c.name, c.kind, c.ndv) for c in cols] + [Col(name, f[1], 10)]
        return Rel(sql, out, child.rows, depth, {tag} | child.tags)

    def window_grouped(self, depth, child=None):
        """Window functions over GROUP BY in one level: without PARTITION BY (a rank layer), or
        partitioned by the first of two group keys."""
        r = self.rng
        child = child or self.child(depth)
        keyable = [c for c in child.cols if c.kind in KEYABLE]
        ints = child.of("int")
        if not keyable or not ints:
            return None
        keys = r.sample(keyable, min(len(keyable), r.randint(1, 2)))
        ic = r.choice(ints)
        kl = ", ".join(f"t.{k.name}" for k in keys)
        s_name, n_name, w_name = self.fresh("s"), self.fresh("n"), self.fresh("wg")
        part = f"PARTITION BY t.{keys[0].name} " if len(keys) == 2 and r.random() < 0.5 else ""
        f = r.choice([
            f"rank() OVER ({part}ORDER BY sum(t.{ic.name}) DESC NULLS LAST)",
            f"dense_rank() OVER ({part}ORDER BY count(*), sum(t.{ic.name}))",
            f"sum(count(*)) OVER ({part}ORDER BY sum(t.{ic.name}) NULLS FIRST)",
            f"sum(sum(t.{ic.name})) OVER ({part.strip()})" if part else
            f"lag(count(*)) OVER (ORDER BY count(*), sum(t.{ic.name}) DESC, {kl})",
        ])
        having = f" HAVING count(*) > {r.choice([1, 2])}" if r.random() < 0.25 else ""
        sql = (f"SELECT {kl}, sum(t.{ic.name}) AS {s_name}, count(*) AS {n_name}, {f} AS {w_name} "
               f"FROM {child.src('t')} GROUP BY {kl}{having}")
        out = [Col(k.name, k.kind, k.ndv) for k in keys] + [Col(s_name, "int", 20), Col(n_name, "int", 20),
                                                             Col(w_name, "int", 10)]
        tag = "window over GROUP BY" + (" with PARTITION BY" if part else " without PARTITION BY")
        return Rel(sql, out, child.rows, depth, {tag, "GROUP BY"} | child.tags)

    def lateral(self, depth, child=None):
        """A set-returning function in FROM applied to each row of its child (LATERAL, on the
        right of a comma, an inner join or a left join with a condition on its output), or an
        uncorrelated one joined to it.  The functions' rows depend on the row alone; NULL
        arguments give no rows (a left join keeps the row with NULLs)."""
        r = self.rng
        child = child or self.child(depth)
        ints = child.of("int")
        texts = child.of("text")
        i1 = r.choice(ints)
        i2 = r.choice(ints)
        fns = [
            (f"generate_series(1, least(o.{i1.name}, 3))", "int", 3),
            (f"generate_series(o.{i1.name}, o.{i1.name} + {r.choice([0, 1, 2])})", "int", i1.ndv),
            (f"unnest(ARRAY[o.{i1.name}, o.{i2.name}, {r.choice([0, 1, 'NULL::int'])}])", "int", i1.ndv),
            (f"generate_series(1, {r.choice([1, 2])})", "int", 2),
        ]
        if texts:
            t = r.choice(texts)
            fns.append((f"unnest(string_to_array(o.{t.name}, {r.choice(['NULL', chr(39) + chr(39)])}))",
                        "text", t.ndv))
        fn, kind, ndv = r.choice(fns)
        lat = "LATERAL " if "o." in fn else ""
        tags = {"LATERAL set-returning function" if lat else "set-returning function joined (uncorrelated)"}
        name = self.fresh("f")
        form = r.choice([",", "JOIN", "LEFT JOIN"])
        if form == ",":
            src = f"{child.src('o')}, {lat}{fn} AS f({name})"
        else:
            on = "true"
            if kind == "int" and r.random() < 0.6:
                on = f"f.{name} {r.choice(['>', '<>', '<='])} {r.choice([0, 1, 2])}"
            src = f"{child.src('o')} {form} {lat}{fn} AS f({name}) ON {on}"
            if form == "LEFT JOIN":
                tags.add("LEFT JOIN LATERAL")
        cols = self.pick_cols(child, 1, 3)
        sel = [f"o.{c.name}" for c in cols] + [f"f.{name}"]
        out = [Col(c.name, c.kind, c.ndv) for c in cols] + [Col(name, kind, ndv)]
        where = f" WHERE {self.cond('o', child)}" if r.random() < 0.25 else ""
        sql = f"SELECT {', '.join(sel)} FROM {src}{where}"
        return Rel(sql, out, min(child.rows * 3, 2000), depth, tags | child.tags)

    def topn(self, depth, child=None):
        r = self.rng
        child = child or self.child(depth)
        cols = self.pick_cols(child, 1, 4, sorted_on=True)
        first = r.choice(cols)
        order = f"t.{first.name} {r.choice(['DESC', 'ASC', 'DESC NULLS LAST'])}, " + \
            ", ".join(f"t.{c.name}" for c in cols if c is not first)
        order = order.rstrip(", ")
        n = r.choice([1, 3, 5, 10])
        off = f" OFFSET {r.choice([1, 2])}" if r.random() < 0.2 else ""
        sql = f"SELECT {', '.join('t.' + c.name for c in cols)} FROM {child.src('t')} ORDER BY {order} LIMIT {n}{off}"
        return Rel(sql, [Col(c.name, c.kind, c.ndv) for c in cols], n, depth, {"ORDER BY LIMIT"} | child.tags)


def nested_queries(rng, count, seed=0):
    """The seed's nested queries, each of depth >= 3: [(name, query, tags)] in creation order.
    First two upstream dynamic tables (grouped), then shapes drawn every seed (an aggregate over a
    left join of a grouped subquery; a correlated aggregate in a condition, as TPC-H Q17; a NOT
    EXISTS over a dynamic table; a join of the two aggregate dynamic tables under one more
    operator), then count queries drawn freely (depth 3 or 4); last a filter and a GROUP BY over
    two of them."""
    gen = QueryGen(rng)
    out = []

    def draw(make):
        for _ in range(50):
            rel = make()
            if rel is not None:
                return rel
        raise RuntimeError("the query generator found no query of this shape")

    ups = []
    for i in range(2):
        rel = draw(lambda: gen.aggregate(rng.randint(1, 2), form="group"))
        name = f"up{i}"
        out.append((name, rel.sql, rel.tags))
        ups.append(Rel(None, [Col(c.name, c.kind, c.ndv) for c in rel.cols], rel.rows, rel.depth,
                       {"over a dynamic table"}, table=name))
    gen.upstreams = ups

    def agg_over_left_join():
        grouped = gen.aggregate(1, form="group")
        lj = gen.join(2, kind=rng.choice(["LEFT JOIN", "RIGHT JOIN"]), children=(grouped, gen.gen(0)))
        return lj and gen.aggregate(3, child=lj)

    def grouped_state_in_join():
        # a GROUP BY of count/sum/avg (its groups kept in state) joined, under an aggregate or a
        # top-N: the state read and kept at depth 3 and more
        grouped = gen.aggregate(rng.randint(1, 2), form="group", algebraic=True)
        j = gen.join(grouped.depth + 1, kind=rng.choice([None, "LEFT JOIN"]),
                     children=(grouped, gen.gen(rng.randint(0, 1))))
        if j is None:
            return None
        return rng.choice([gen.aggregate, gen.topn])(j.depth + 1, child=j)

    def not_exists_over_dt():
        return gen.semi(3, form="NOT EXISTS", inner=rng.choice(ups), correlated=True)

    def join_of_two_aggregate_dts():
        j = gen.join(1 + max(u.depth for u in ups), children=(ups[0], ups[1]))
        if j is None:
            return None
        j.tags.add("join of two aggregate dynamic tables")
        wrap = rng.choice([gen.aggregate, gen.window, gen.topn, gen.distinct])
        return wrap(j.depth + 1, child=j)

    def rank_layer():
        # the seed's rank layer: a window without PARTITION BY over a grouped dynamic table, or
        # over a grouped subquery, or over GROUP BY in the same level
        form = rng.choice(["dt", "sub", "level"])
        if form == "dt":
            up = rng.choice(ups)
            return gen.window(max(3, up.depth + 1), child=up, partition=False)
        grouped = gen.aggregate(2, form="group")
        if form == "sub":
            return gen.window(3, child=grouped, partition=False)
        return gen.window_grouped(3, child=gen.gen(2))

    shapes = [agg_over_left_join, grouped_state_in_join, lambda: gen.scalar(3, correlated=True), not_exists_over_dt,
              join_of_two_aggregate_dts, rank_layer]
    shapes += [lambda: gen.gen(rng.choice([3, 3, 4]))] * count
    made = []
    for i, make in enumerate(shapes):
        rel = draw(make)
        assert rel.depth >= 3, rel.sql
        out.append((f"q{i}", rel.sql, rel.tags | {f"depth {min(rel.depth, 5)}"}))
        made.append(Rel(None, rel.cols, rel.rows, rel.depth, (), table=f"q{i}"))
    # LATERAL set-returning functions, drawn from a random generator of their own (the seed's
    # other queries stay as they were before they came): one at a random depth under more
    # operators, and one query drawn freely from the grammar with LATERAL among its operators
    lgen = QueryGen(random.Random(seed * 7919 + 17), ups, lateral=True)
    lgen.n = gen.n  # (its names go on from gen's: the upstream tables' columns are gen's)
    lr = lgen.rng

    def lateral_under_operators():
        child = lgen.gen(lr.randint(0, 2))
        rel = lgen.lateral(child.depth + 1, child=child)
        while rel is not None and rel.depth < 3:
            wrap = lr.choice(["aggregate", "join", "semi", "distinct", "window", "topn"])
            if wrap == "join":
                rel = lgen.join(rel.depth + 1, children=(rel, lgen.gen(lr.randint(0, 1))))
            elif wrap == "semi":
                rel = lgen.semi(rel.depth + 1, outer=rel)
            else:
                rel = getattr(lgen, wrap)(rel.depth + 1, child=rel)
        return rel

    def lateral_in_grammar():
        rel = lgen.gen(lr.choice([3, 3, 4]))
        return rel if any("set-returning" in t for t in rel.tags) else None

    for i, make in enumerate([lateral_under_operators, lateral_in_grammar]):
        for _ in range(200):
            rel = make()
            if rel is not None:
                break
        else:
            raise RuntimeError("the query generator found no query of this shape")
        assert rel.depth >= 3, rel.sql
        out.append((f"l{i}", rel.sql, rel.tags | {f"depth {min(rel.depth, 5)}"}))
    # simple dynamic tables over nested ones (most of them FULL): the rows the upstream's refresh
    # changes, FULL ones included, reach them through its change buffer
    for i in range(2):
        up = rng.choice(made)
        tags = {"downstream of a nested table"}
        if i == 0:
            q = f"SELECT {', '.join('t.' + c.name for c in up.cols)} FROM {up.table} t WHERE {gen.cond('t', up)}"
        else:
            keys = [c for c in up.cols if c.kind in KEYABLE][:1]
            ints = up.of("int")
            aggs = ["count(*) AS n"] + [f"sum(t.{c.name}) AS s_{c.name}, max(t.{c.name}) AS m_{c.name}"
                                        for c in ints[-1:]]
            kl = ", ".join(f"t.{k.name}" for k in keys)
            q = (f"SELECT {kl + ', ' if kl else ''}{', '.join(aggs)} FROM {up.table} t"
                 + (f" GROUP BY {kl}" if kl else ""))
        out.append((f"p{i}", q, tags))
    return out


def numeric_state_queries(rng):
    """Nested queries whose grouped subqueries sum numerics without a declared scale (groups kept
    in state, their scales counted): a GROUP BY of sum / avg of such joined under an aggregate or
    a top-N (depth >= 3), and a correlated sum / avg of such in a condition (decorrelated into a
    join with a grouped subquery).  Drawn with rng of their own and refreshed by their own draws
    (run_seed), so that a seed's other tables, DML and refreshes stay as they were."""
    gen = QueryGen(rng)
    out = []

    def grouped_unconstrained_in_join():
        grouped = gen.aggregate(rng.randint(1, 2), form="group", algebraic=True, unconstrained=True)
        j = gen.join(grouped.depth + 1, kind=rng.choice([None, "LEFT JOIN"]),
                     children=(grouped, gen.gen(rng.randint(0, 1))))
        if j is None:
            return None
        return rng.choice([gen.aggregate, gen.topn])(j.depth + 1, child=j)

    # (drawn again, up to 50 times, while they contain a construct that often makes the table
    # FULL: the point is the grouped states, read and kept incrementally)
    full_prone = {"UNION", "UNION ALL", "INTERSECT", "INTERSECT ALL", "EXCEPT", "EXCEPT ALL",
                  "GROUPING SETS/ROLLUP/CUBE", "ORDER BY LIMIT", "IN (uncorrelated)", "DISTINCT ON"}
    for i, make in enumerate([grouped_unconstrained_in_join, grouped_unconstrained_in_join,
                              lambda: gen.scalar(3, correlated=True, unconstrained=True)]):
        rel = None
        for _ in range(50):
            drawn = make()
            if drawn is not None:
                rel = drawn
                if not rel.tags & full_prone:
                    break
        if rel is None:
            raise RuntimeError("the query generator found no query of this shape")
        assert rel.depth >= 3, rel.sql
        out.append((f"ns{i}", rel.sql, rel.tags | {f"depth {min(rel.depth, 5)}"}))
    return out


def composite_queries(rng):
    """Queries over the composite-key tables h (primary key (k1, k2)) and m (k1, k2 referring to
    h, nullable, with a two-column index), and comma-list joins (FROM x, y WHERE x.a = y.b, as
    TPC-H Q2, Q5, Q7, Q8, Q9 and Q21 write them): a few from a fixed list (joins, outer joins,
    EXISTS / NOT EXISTS / IN / NOT IN and correlated aggregates on two columns, comma lists of
    three tables under GROUP BY, Q21's EXISTS / NOT EXISTS over the comma list's own table, Q17's
    correlated aggregate over h filtered by constants: a filter state), and
    three drawn from the grammar with h and m among its bases, two-column equalities and comma
    lists preferred (each must contain a comma list or a two-column condition).  Drawn with an
    rng of their own and refreshed by their own draws (run_seed), so that a seed's other tables,
    DML and refreshes stay as they were."""
    fixed = [
        "SELECT h.k1, h.k2, h.v, m.id, m.x FROM h, m WHERE m.k1 = h.k1 AND m.k2 = h.k2",
        "SELECT h.k1, count(*) AS n, sum(m.x) AS sx, sum(a.v) AS sv FROM h, m, a "
        "WHERE m.k1 = h.k1 AND m.k2 = h.k2 AND a.id = m.id AND a.g IS NOT NULL GROUP BY h.k1",
        "SELECT h.k1, h.k2, h.t, m.id, m.x FROM h LEFT JOIN m ON m.k1 = h.k1 AND m.k2 = h.k2",
        "SELECT h.k1, h.k2, m.id FROM h FULL JOIN m ON m.k1 = h.k1 AND m.k2 = h.k2 AND m.x > 1",
        "SELECT h.k1, h.k2, count(m.id) AS n, sum(m.x) AS sx FROM h LEFT JOIN m "
        "ON m.k1 = h.k1 AND m.k2 = h.k2 GROUP BY h.k1, h.k2",
        "SELECT k1, k2, v FROM h WHERE NOT EXISTS (SELECT 1 FROM m WHERE m.k1 = h.k1 AND m.k2 = h.k2)",
        "SELECT k1, k2, v FROM h WHERE EXISTS (SELECT 1 FROM m WHERE m.k1 = h.k1 AND m.k2 = h.k2 AND m.x > 2)",
        "SELECT k1, k2, t FROM h WHERE (k1, k2) IN (SELECT k1, k2 FROM m WHERE x <> 3)",
        "SELECT k1, k2, t FROM h WHERE (k1, k2) NOT IN (SELECT k1, k2 FROM m)",
        "SELECT id, k1, k2 FROM m WHERE (k1, k2) NOT IN (SELECT k1, k2 FROM h WHERE v > 5)",
        "SELECT m.id, m.k1, m.k2 FROM m WHERE NOT EXISTS "
        "(SELECT 1 FROM h WHERE h.k1 IS NOT DISTINCT FROM m.k1 AND h.k2 IS NOT DISTINCT FROM m.k2)",
        # TPC-H Q20: a correlated aggregate on two columns
        "SELECT h.k1, h.k2, h.v FROM h WHERE h.v > (SELECT 0.5 * sum(m.x) FROM m WHERE m.k1 = h.k1 AND m.k2 = h.k2)",
        "SELECT h.k1, count(*) AS n FROM h WHERE h.k1 IN (SELECT b.x FROM b) AND h.v > "
        "(SELECT avg(m.x) FROM m WHERE m.k1 = h.k1 AND m.k2 = h.k2) GROUP BY h.k1",
        # TPC-H Q21: EXISTS / NOT EXISTS over the comma list's own table
        "SELECT a.g, count(*) AS n FROM a, b WHERE b.a_id = a.id AND "
        "EXISTS (SELECT 1 FROM b b2 WHERE b2.a_id = b.a_id AND b2.id <> b.id) AND "
        "NOT EXISTS (SELECT 1 FROM b b3 WHERE b3.a_id = b.a_id AND b3.id <> b.id AND b3.x > b.x) GROUP BY a.g",
        # TPC-H Q5 / Q9: a comma list of four tables under GROUP BY, a cycle of conditions
        "SELECT a.w, h.k2, sum(b.x) AS sx, count(*) AS n FROM a, b, m, h "
        "WHERE b.a_id = a.id AND m.id = b.id AND h.k1 = m.k1 AND h.k2 = m.k2 AND h.k1 = a.g GROUP BY a.w, h.k2",
        "SELECT m.k1, m.k2, count(*) AS n FROM m, c WHERE c.a_id = m.id AND c.y = m.x GROUP BY m.k1, m.k2",
        "SELECT DISTINCT h.t, m.k2 FROM h, m WHERE m.k1 = h.k1 AND m.k2 = h.k2 AND h.v > m.x",
        # TPC-H Q17 over h filtered by a constant: h's rows kept in a filter state (optree.h), its
        # rows of the window's keys (k1, the first column of h's primary key) read again
        "SELECT sum(m.x) AS s, count(*) AS n FROM m, h WHERE h.k1 = m.k1 AND h.k2 = m.k2 AND h.t = 'X' "
        "AND m.x < (SELECT avg(m2.x) + 1 FROM m m2 WHERE m2.k1 = h.k1)",
        "SELECT h.k1, h.k2, h.v, count(*) AS n FROM m, h WHERE h.k1 = m.k1 AND h.t IN ('X', 'Z') "
        "AND m.x <= (SELECT avg(m2.x) FROM m m2 WHERE m2.k1 = h.k1) GROUP BY h.k1, h.k2, h.v",
    ]
    wanted = ("comma-list join", "on two columns", "of two columns")
    return fixed_and_drawn(rng, fixed, ("cf", "composite keys / comma lists (fixed)"), (3, 5),
                           QueryGen(rng, composite=True), ("cg", "composite generator"), 3,
                           lambda rel: any(w in t for t in rel.tags for w in wanted))


def fixed_and_drawn(rng, fixed, fixed_name, fixed_count, gen, drawn_name, drawn_count, wanted):
    """A side generator's queries: a random few of the list fixed (shuffled; between fixed_count's
    bounds), named by fixed_name's prefix and tagged with its tag, then drawn_count drawn by gen
    (depth 3 or 4) for which wanted(rel) is true, named and tagged by drawn_name.  [(name, query,
    tags)]"""
    rng.shuffle(fixed)
    prefix, tag = fixed_name
    out = [(f"{prefix}{i}", q, {tag}) for i, q in enumerate(fixed[: rng.randint(*fixed_count)])]
    prefix, tag = drawn_name
    for i in range(drawn_count):
        for _ in range(200):
            rel = gen.gen(rng.choice([3, 3, 4]))
            if wanted(rel):
                break
        else:
            raise RuntimeError("the query generator found no query of this shape")
        assert rel.depth >= 3, rel.sql
        out.append((f"{prefix}{i}", rel.sql, rel.tags | {f"depth {min(rel.depth, 5)}", tag}))
    return out


def or_queries(rng):
    """Conditions that are an OR of conjunct groups (TPC-H Q19): arms that share a join key and
    conditions on one table's rows (made conditions of their own, optree.c push_quals), and arms
    whose conditions on one table imply one on its rows (pushed down beside the OR), over comma
    lists, inner joins' ON, a left join's WHERE (arms that keep the padded rows), one table, and
    the composite-key tables; plain rows, groups and global aggregates.  Drawn with an rng of their
    own and refreshed by their own draws (run_seed), so that a seed's other tables, DML and
    refreshes stay as they were."""
    cols = {"a": [("v", "int"), ("g", "int"), ("w", "text")], "b": [("x", "int")], "c": [("y", "int")],
            "h": [("v", "int"), ("t", "text"), ("k2", "int")], "m": [("x", "int"), ("k2", "int")]}

    def cond(t):
        c, kind = rng.choice(cols[t])
        n = rng.randint(0, 20 if c in ("v",) else 5)
        if kind == "text":
            return rng.choice([f"{t}.{c} = 'X'", f"{t}.{c} IS NULL", f"{t}.{c} <> 'y'", f"{t}.{c} IN ('X', 'y')"])
        return rng.choice([f"{t}.{c} > {n}", f"{t}.{c} < {n}", f"{t}.{c} = {n}", f"{t}.{c} BETWEEN {n} AND {n + 3}",
                           f"{t}.{c} IS NULL", f"{t}.{c} IS NOT NULL", f"coalesce({t}.{c}, 0) = {n}",
                           f"({t}.{c} >= {n} OR {t}.{c} IS NULL)"])

    def ors(tables, key):
        shared = ([key] if key and rng.random() < 0.85 else []) + [cond(rng.choice(tables)) for _ in range(rng.randint(0, 2))]
        arms = []
        for _ in range(rng.randint(2, 3)):
            own = [cond(rng.choice(tables)) for _ in range(rng.randint(1, 3))]
            if key and not shared and rng.random() < 0.8:
                own.append(key)
            arm = shared + own
            rng.shuffle(arm)
            arms.append("(" + " AND ".join(arm) + ")")
        if rng.random() < 0.1:
            arms.append(f"({cond(tables[0])} AND NULL::boolean)")
        return " OR ".join(arms)

    shapes = [
        (("a", "b"), "FROM a, b WHERE {o}", "b.a_id = a.id"),
        (("a", "b"), "FROM a JOIN b ON {o}", "b.a_id = a.id"),
        (("a", "b"), "FROM a LEFT JOIN b ON b.a_id = a.id WHERE {o}", None),
        (("a", "b", "c"), "FROM a, b, c WHERE b.a_id = a.id AND ({o})", "c.a_id = a.id"),
        (("a",), "FROM a WHERE {o}", None),
        (("h", "m"), "FROM h, m WHERE {o}", "m.k1 = h.k1 AND m.k2 = h.k2"),
    ]
    outs = {"a": ("a.id", "a.g", "a.v", "count(a.v)"), "h": ("h.k1", "h.k2", "h.v", "count(h.v)")}
    out = []
    for i in range(4):
        tables, frm, key = rng.choice(shapes)
        first = "h" if tables[0] == "h" else "a"
        other = tables[-1]
        oc = cols[other][0][0]
        idc, gc, vc, cnt = outs[first]
        sel = rng.choice([
            f"SELECT {idc}, {gc}, {other}.{oc} ",
            f"SELECT {gc}, count(*) AS n, sum({other}.{oc}) AS s, {cnt} AS nv ",
            f"SELECT count(*) AS n, sum({vc}) AS s, max({other}.{oc}) AS mx ",
        ])
        q = sel + frm.format(o=ors(list(tables), key))
        if sel.startswith(f"SELECT {gc}, count"):
            q += f" GROUP BY {gc}"
        out.append((f"oq{i}", q, {"OR of conjunct groups"}))
    return out


def composite_dml(rng, cur):
    """One change of h or m (composite keys): inserts with NULLs in m's key columns, updates of
    keys (one column of two) and of values, deletes."""
    op = rng.random()
    if rng.random() < 0.45:
        if op < 0.4:
            cur.execute("INSERT INTO h VALUES (%s, %s, %s, %s) ON CONFLICT (k1, k2) DO NOTHING",
                        (rng.randint(1, 6), rng.randint(1, 5), rand_val(rng, 0, 20),
                         rng.choice([None, "X", "y", "Z"])))
        elif op < 0.65:
            cur.execute("UPDATE h SET v = %s, t = %s WHERE k1 = %s AND k2 = %s",
                        (rand_val(rng, 0, 20), rng.choice([None, "X", "y", "Z"]), rng.randint(1, 6),
                         rng.randint(1, 5)))
        elif op < 0.75:
            col, other = rng.choice([("k1", "k2"), ("k2", "k1")])
            cur.execute(f"UPDATE h SET {col} = %s WHERE k1 = %s AND k2 = %s AND NOT EXISTS "
                        f"(SELECT 1 FROM h h2 WHERE h2.{col} = %s AND h2.{other} = h.{other})",
                        (rng.randint(1, 6), rng.randint(1, 6), rng.randint(1, 5), rng.randint(1, 6)))
        else:
            cur.execute("DELETE FROM h WHERE k1 = %s AND k2 = %s", (rng.randint(1, 6), rng.randint(1, 5)))
    else:
        if op < 0.45:
            cur.execute("INSERT INTO m VALUES (%s, %s, %s, %s) ON CONFLICT (id) DO NOTHING",
                        (rng.randint(1, 60), rand_val(rng, 1, 6, 0.1), rand_val(rng, 1, 5, 0.1),
                         rand_val(rng, 0, 5)))
        elif op < 0.7:
            col = rng.choice(["k1", "k2", "x"])
            cur.execute(f"UPDATE m SET {col} = %s WHERE id = %s",
                        (rand_val(rng, 1, 6 if col == "k1" else 5, 0.1), rng.randint(1, 60)))
        else:
            cur.execute("DELETE FROM m WHERE id = %s", (rng.randint(1, 60),))


def rowkey_queries(rng):
    """Queries over rp (primary key id of the row type rk (a int, b int)) and rq (k of type rk
    referring to it, nullable, indexed; x, y forming ROW(x, y)::rk; n of a domain over int, dk of a
    domain over rk, rp.t of a domain over text, each with a CHECK): keys (n, NULL), (NULL, n),
    (NULL, NULL) and NULL on both sides of joins, IN / NOT IN, EXISTS / NOT EXISTS, correlated
    aggregates (TPC-H Q17's and Q20's shapes), GROUP BY, DISTINCT and count(DISTINCT), keys formed
    by ROW(x, y)::rk, the domains as keys and aggregate inputs; a few from a fixed list and two
    drawn from the grammar with rp and rq among its bases.  (s16-brk found two silent wrong
    results there by hand: keyed_shared_rows' key filter, the null value told by IS NULL.)  With
    the seed's large row keys (run_seed), rp and rq hold over DV_PROBE_MIN_ROWS (optree.c) rows,
    so that probes and keyed reads are planned.  Drawn with an rng of their own and refreshed by
    their own draws, so that a seed's other tables, DML and refreshes stay as they were."""
    fixed = [
        "SELECT q.id, q.v, p.v AS pv FROM rq q JOIN rp p ON p.id = q.k",
        "SELECT q.id, p.id AS pid, p.t FROM rq q LEFT JOIN rp p ON p.id = q.k",
        "SELECT q.id, p.id AS pid FROM rq q FULL JOIN rp p ON p.id = q.k AND p.v > 2",
        "SELECT p.id, count(q.id) AS c, sum(q.n) AS s FROM rp p LEFT JOIN rq q ON q.k = p.id GROUP BY p.id",
        "SELECT q.id, p.v FROM rq q JOIN rp p ON p.id = ROW(q.x, q.y)::rk",
        "SELECT q.id, q.v FROM rq q WHERE q.k IN (SELECT p.id FROM rp p WHERE p.v > 3)",
        "SELECT q.id, q.v FROM rq q WHERE q.k NOT IN (SELECT p.id FROM rp p WHERE p.t = 'X')",
        "SELECT p.id, p.v FROM rp p WHERE p.id NOT IN (SELECT q.k FROM rq q WHERE q.v > 2)",
        "SELECT q.id FROM rq q WHERE q.dk::rk NOT IN (SELECT p.id FROM rp p)",
        "SELECT q.id, q.n FROM rq q WHERE EXISTS (SELECT FROM rp p WHERE p.id = q.k AND p.v > 4)",
        "SELECT q.id, q.n FROM rq q WHERE NOT EXISTS (SELECT FROM rp p WHERE p.id = q.k AND p.v > 4)",
        "SELECT p.id, p.t FROM rp p WHERE NOT EXISTS (SELECT FROM rq q WHERE q.k = p.id)",
        # TPC-H Q17: the partner's rows read by key (keyed_shared_rows)
        "SELECT sum(q.v) AS s, count(*) AS c FROM rq q, rp p WHERE p.id = q.k AND p.t = 'X' "
        "AND q.n < (SELECT 0.5 * avg(q2.n) FROM rq q2 WHERE q2.k = p.id)",
        "SELECT q.id, q.v FROM rq q, rp p WHERE p.id = q.k AND p.t <> 'Z' "
        "AND q.n < (SELECT avg(q2.n) FROM rq q2 WHERE q2.k = p.id)",
        "SELECT q.k, sum(q.v) AS s, count(*) AS c FROM rq q, rp p WHERE p.id = q.k "
        "AND q.n <= (SELECT avg(q2.n) FROM rq q2 WHERE q2.k = p.id) GROUP BY q.k",
        # TPC-H Q20: a correlated aggregate of the other table
        "SELECT p.id, p.v FROM rp p WHERE p.v > (SELECT 0.5 * sum(q.n) FROM rq q WHERE q.k = p.id)",
        "SELECT q.id, q.n FROM rq q WHERE q.n <= (SELECT avg(q2.n) FROM rq q2 WHERE q2.k = q.k)",
        "SELECT k, sum(n) AS s, count(*) AS c, min(v) AS mn, max(n) AS mx FROM rq GROUP BY k",
        "SELECT k, v, sum(n) AS s, count(*) AS c FROM rq GROUP BY k, v",
        "SELECT ROW(x, y)::rk AS xy, count(*) AS c, sum(v) AS s FROM rq GROUP BY ROW(x, y)::rk",
        "SELECT v, count(DISTINCT k) AS nd, count(k) AS nk FROM rq GROUP BY v",
        "SELECT DISTINCT k FROM rq",
        "SELECT DISTINCT ROW(x, y)::rk AS xy, dk FROM rq",
        "SELECT dk, sum(n) AS s, avg(n) AS av, count(*) AS c FROM rq GROUP BY dk",
        "SELECT p.t, sum(q.n) AS s, count(*) AS c FROM rq q JOIN rp p ON p.dk = q.dk GROUP BY p.t",
        "SELECT t, count(*) AS c, sum(v) AS s, count(DISTINCT dk) AS nd FROM rp GROUP BY t",
        "SELECT p.id, g.s, g.c FROM rp p JOIN (SELECT k, sum(n) AS s, count(*) AS c FROM rq GROUP BY k) g ON g.k = p.id",
        "SELECT count(*) AS c, sum(n) AS s FROM rq WHERE k IN (SELECT id FROM rp WHERE t = 'y')",
    ]
    return fixed_and_drawn(rng, fixed, ("rf", "row-type keys / domains (fixed)"), (6, 8),
                           QueryGen(rng, rowkey=True), ("rg", "row-key generator"), 2,
                           lambda rel: "rp " in rel.sql or "rq " in rel.sql)


def rowkey_value(rng, null_p=0.1):
    """A key of type rk as SQL: NULL, (NULL, NULL), (a, NULL), (NULL, b) or (a, b), a in 1..4, b in
    1..3 (the fields NULL more often than not in some draws)."""
    x = rng.random()
    if x < null_p:
        return "NULL"
    a, b = rng.randint(1, 4), rng.randint(1, 3)
    return rng.choice([f"ROW({a}, {b})", f"ROW({a}, {b})", f"ROW({a}, NULL)", f"ROW({a}, NULL)",
                       f"ROW(NULL, {b})", "ROW(NULL, NULL)"]) + "::rk"


def rowkey_setup(rng, cur, large):
    """rp and rq (rowkey_queries) with their types and domains, filled; with large, each holds
    more than DV_PROBE_MIN_ROWS rows besides (keys no change touches, analyzed)."""
    cur.execute("CREATE TYPE rk AS (a int, b int)")
    cur.execute("CREATE DOMAIN rk_tag AS text CHECK (VALUE IN ('X', 'y', 'Z'))")
    cur.execute("CREATE DOMAIN rk_count AS int CHECK (VALUE >= 0)")
    cur.execute("CREATE DOMAIN rk_dkey AS rk CHECK ((VALUE).a IS NULL OR (VALUE).a < 4)")
    cur.execute("CREATE TABLE rp (id rk PRIMARY KEY, t rk_tag, v int, dk rk_dkey)")
    cur.execute("CREATE TABLE rq (id int PRIMARY KEY, k rk, n rk_count, v int, x int, y int, dk rk_dkey)")
    cur.execute("CREATE INDEX ON rq (k)")
    for _ in range(18):
        cur.execute(f"INSERT INTO rp VALUES ({rowkey_value(rng, 0)}, %s, %s, {rowkey_dkey(rng)}) "
                    "ON CONFLICT (id) DO NOTHING",
                    (rng.choice([None, "X", "y", "Z"]), rand_val(rng, 0, 9)))
    for i in range(1, 41):
        cur.execute(f"INSERT INTO rq VALUES (%s, {rowkey_value(rng)}, %s, %s, %s, %s, {rowkey_dkey(rng)})",
                    (i, rand_val(rng, 0, 9), rand_val(rng, 0, 9), rand_val(rng, 1, 4, 0.3),
                     rand_val(rng, 1, 3, 0.3)))
    if large:
        # keys (1000 + i, i % 7) match nothing the changes write: the tables are large, their
        # changes as small as in the other seeds; the other columns NULL, so that the grammar's
        # joins on them (sized for small tables) match none of these rows (a self-join of rp on
        # t took minutes)
        cur.execute("INSERT INTO rp SELECT ROW(1000 + i, i % 7)::rk, NULL, NULL, NULL "
                    "FROM generate_series(1, 12000) i")
        cur.execute("INSERT INTO rq SELECT 1000 + i, ROW(1000 + i, i % 7)::rk, NULL, NULL, NULL, NULL, NULL "
                    "FROM generate_series(1, 12000) i")
        cur.execute("ANALYZE rp, rq")


def rowkey_dkey(rng):
    """A value of the domain rk_dkey (a < 4 or NULL) as SQL."""
    return rng.choice(["NULL", "ROW(NULL, NULL)", "ROW(1, NULL)", "ROW(2, 1)", "ROW(NULL, 2)", "ROW(3, 3)"]) + "::rk_dkey"


def rowkey_dml(rng, cur, large=False):
    """One change of rp or rq: inserts, keys moved between (a, b), (a, NULL), (NULL, b), (NULL, NULL)
    and NULL, values and domain columns updated, deletes (by key, with IS NOT DISTINCT FROM).  With
    large (rowkey_setup's), now and then a bulk change of rq: 1,000 rows inserted with two or three
    keys drawn as above, or such rows deleted or updated, so that a window holds more changed
    rows than probing each costs (optree.c probe_rows) over few keys (keyed_shared_rows)."""
    if large and rng.random() < 0.03:
        op = rng.random()
        if op < 0.5:
            keys = [rowkey_value(rng, 0.05) for _ in range(rng.randint(2, 3))]
            base = 100000 + 1000 * rng.randint(0, 7)
            cur.execute(f"INSERT INTO rq SELECT {base} + i, (ARRAY[{', '.join(keys)}]::rk[])[1 + i %% %s], "
                        "i %% 10, CASE WHEN i %% 20 = 0 THEN i %% 7 END, NULL, NULL, NULL "
                        "FROM generate_series(1, 1000) i "
                        "ON CONFLICT (id) DO NOTHING", (len(keys),))
        elif op < 0.75:
            cur.execute("DELETE FROM rq WHERE id >= 100000 AND id %% %s = 0", (rng.randint(2, 4),))
        else:
            cur.execute(f"UPDATE rq SET k = {rowkey_value(rng, 0.05)} WHERE id >= 100000 AND id %% %s = 0",
                        (rng.randint(2, 5),))
        return
    op = rng.random()
    if rng.random() < 0.35:
        key = rowkey_value(rng, 0)
        if op < 0.35:
            cur.execute(f"INSERT INTO rp VALUES ({key}, %s, %s, {rowkey_dkey(rng)}) ON CONFLICT (id) DO NOTHING",
                        (rng.choice([None, "X", "y", "Z"]), rand_val(rng, 0, 9)))
        elif op < 0.6:
            cur.execute(f"UPDATE rp SET v = %s, t = %s WHERE id IS NOT DISTINCT FROM {key}",
                        (rand_val(rng, 0, 9), rng.choice([None, "X", "y", "Z"])))
        elif op < 0.7:
            cur.execute(f"UPDATE rp SET dk = {rowkey_dkey(rng)} WHERE id IS NOT DISTINCT FROM {key}")
        elif op < 0.8:
            cur.execute(f"UPDATE rp SET id = {rowkey_value(rng, 0)} WHERE id IS NOT DISTINCT FROM {key}")
        else:
            cur.execute(f"DELETE FROM rp WHERE id IS NOT DISTINCT FROM {key}")
    else:
        if op < 0.4:
            cur.execute(f"INSERT INTO rq VALUES (%s, {rowkey_value(rng)}, %s, %s, %s, %s, {rowkey_dkey(rng)}) "
                        "ON CONFLICT (id) DO NOTHING",
                        (rng.randint(1, 60), rand_val(rng, 0, 9), rand_val(rng, 0, 9),
                         rand_val(rng, 1, 4, 0.3), rand_val(rng, 1, 3, 0.3)))
        elif op < 0.6:
            cur.execute(f"UPDATE rq SET k = {rowkey_value(rng)} WHERE id = %s", (rng.randint(1, 60),))
        elif op < 0.75:
            col = rng.choice(["n", "v", "x", "y"])
            cur.execute(f"UPDATE rq SET {col} = %s WHERE id = %s", (rand_val(rng, 0, 9), rng.randint(1, 60)))
        elif op < 0.8:
            cur.execute(f"UPDATE rq SET dk = {rowkey_dkey(rng)} WHERE id = %s", (rng.randint(1, 60),))
        else:
            cur.execute("DELETE FROM rq WHERE id = %s", (rng.randint(1, 60),))


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
                        (rng.randint(1, 80), rand_val(rng, 1, 60, 0.05), rand_val(rng, 0, 5)))
        elif op < 0.75:
            cur.execute(f"UPDATE {t} SET {col} = %s, a_id = %s WHERE id = %s",
                        (rand_val(rng, 0, 5), rand_val(rng, 1, 60, 0.05), rng.randint(1, 80)))
        else:
            cur.execute(f"DELETE FROM {t} WHERE id = %s", (rng.randint(1, 80),))


def inheritance_queries(rng):
    """Queries over the inheritance tree ip (id, g, v; primary key on the parent only), its
    children ic1 () and ic2 (note text), and ic1's child ig (): the parent with and without
    ONLY, children read directly (as sources of their own besides the parent), joins with a and
    b, NOT EXISTS over a child, DISTINCT, min / max, a UNION ALL of a child's own rows and its
    child's.  Drawn with an rng of their own (run_seed)."""
    fixed = [
        "SELECT id, g, v FROM ip",
        "SELECT g, count(*) AS n, sum(v) AS s FROM ip GROUP BY g",
        "SELECT id, g, v FROM ONLY ip WHERE v > 2",
        "SELECT ip.g, count(*) AS n, sum(a.v) AS sv FROM ip JOIN a ON a.id = ip.id GROUP BY ip.g",
        "SELECT g, sum(v) AS s, count(*) AS n FROM ic1 GROUP BY g",
        "SELECT id, v, note FROM ic2 WHERE v IS NOT NULL",
        "SELECT ip.id, ip.g FROM ip WHERE NOT EXISTS (SELECT 1 FROM ic2 WHERE ic2.id = ip.id)",
        "SELECT DISTINCT g FROM ip WHERE v > 5",
        "SELECT g, max(v) AS mx, min(v) AS mn FROM ip GROUP BY g",
        "SELECT ip.id, ip.v, b.x FROM ip LEFT JOIN b ON b.id = ip.id",
        "SELECT g, count(*) AS n FROM (SELECT g FROM ONLY ic1 UNION ALL SELECT g FROM ig) u GROUP BY g",
        "SELECT ic1.g, count(*) AS n FROM ic1, ONLY ip WHERE ip.id = ic1.id GROUP BY ic1.g",
    ]
    rng.shuffle(fixed)
    return [(f"if{i}", q, {"inheritance children"}) for i, q in enumerate(fixed[: rng.randint(4, 6)])]


INHERIT_RELS = ["ip", "ic1", "ic2", "ig"]


def inheritance_dml(rng, cur):
    """One change of the inheritance tree: inserts into any level, updates and deletes with and
    without ONLY (a parent's without ONLY reach its children), now and then a TRUNCATE of a child
    or a child detached (NO INHERIT) or attached again (INHERIT)."""
    op = rng.random()
    rel = rng.choice(INHERIT_RELS)
    only = "ONLY " if rel in ("ip", "ic1") and rng.random() < 0.4 else ""
    if op < 0.4:
        row = (rng.randint(1, 40), rand_val(rng, 1, 4), rand_val(rng, 0, 9))
        if rel == "ic2":
            cur.execute("INSERT INTO ic2 VALUES (%s, %s, %s, %s)", row + (rng.choice([None, "n1", "n2"]),))
        elif rel == "ip":
            cur.execute("INSERT INTO ip VALUES (%s, %s, %s) ON CONFLICT (id) DO NOTHING", row)
        else:
            cur.execute(f"INSERT INTO {rel} VALUES (%s, %s, %s)", row)
    elif op < 0.7:
        col = rng.choice(["g", "v", "id"])
        cur.execute(f"UPDATE {only}{rel} SET {col} = %s WHERE id = %s",
                    (rand_val(rng, 1, 4 if col == "g" else 40 if col == "id" else 9), rng.randint(1, 40)))
    elif op < 0.97:
        cur.execute(f"DELETE FROM {only}{rel} WHERE id = %s", (rng.randint(1, 40),))
    else:
        # (committed at once: a refresh, which runs in the same thread and waits for locks
        # without a timeout, would wait for the open transaction of the TRUNCATE or ALTER
        # TABLE, or for the catalog rows of its readers it marked FULL, for ever)
        if op < 0.98:
            cur.execute(f"TRUNCATE {rng.choice(['ic2', 'ig'])}")
        elif op < 0.99:
            cur.execute("ALTER TABLE ic2 NO INHERIT ip")
        else:
            cur.execute("SELECT 1 FROM pg_inherits WHERE inhrelid = 'ic2'::regclass")
            if cur.fetchone() is None:
                cur.execute("ALTER TABLE ic2 INHERIT ip")
        cur.connection.commit()


# session settings a refresh may run under (settings_for_refresh): a refresh must not depend on them
SESSION_SETTINGS = [
    ("DateStyle", ["'SQL, DMY'", "'German'", "'Postgres, YMD'", "'ISO, MDY'"]),
    ("IntervalStyle", ["sql_standard", "iso_8601", "postgres_verbose"]),
    ("extra_float_digits", ["0", "-5", "1"]),
    ("standard_conforming_strings", ["off"]),
    ("array_nulls", ["off"]),
    ("bytea_output", ["escape"]),
    ("TimeZone", ["'America/St_Johns'", "'Asia/Kathmandu'", "'UTC'"]),
    ("search_path", ["pg_catalog, public", "public, pg_temp", "\"$user\", public, pg_catalog"]),
    ("enable_hashjoin", ["off"]),
    ("enable_mergejoin", ["off"]),
    ("enable_nestloop", ["off"]),
    ("enable_hashagg", ["off"]),
    ("enable_seqscan", ["off"]),
    ("work_mem", ["'64kB'"]),
    ("default_transaction_isolation", ["'repeatable read'", "'serializable'"]),
    ("dynview.window_filter_functions", ["off"]),
    ("dynview.linear_windows_as_is", ["off"]),
]


def settings_for_refresh(rng):
    """Session settings for one refresh (drawn by the settings' own rng): none about half the
    time, else one to four of SESSION_SETTINGS with a value other than the default."""
    if rng.random() < 0.5:
        return []
    return [(name, rng.choice(values)) for name, values in rng.sample(SESSION_SETTINGS, rng.randint(1, 4))]


def end_transaction(rng, conn):
    """End a writer's transaction: roll it back (p 0.15) or commit it (rolled back if that fails)."""
    if rng.random() < 0.15:
        conn.rollback()
    else:
        try:
            conn.commit()
        except psycopg2.Error:
            conn.rollback()


def run_seed(seed, steps, nested, tally):
    """One seed; returns (refreshes asked for, refreshes verified, incremental ones among them).
    Adds (construct, mode) counts of the verified refreshes to tally."""
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
    # composite keys (their own rng: the seed's other draws as they were without them)
    c_rng = random.Random(f"composite-{seed}")
    cur.execute("CREATE TABLE h (k1 int, k2 int, v int, t text, PRIMARY KEY (k1, k2))")
    cur.execute("CREATE TABLE m (id int PRIMARY KEY, k1 int, k2 int, x int)")
    cur.execute("CREATE INDEX ON m (k1, k2)")
    for k1 in range(1, 7):
        for k2 in range(1, 6):
            if c_rng.random() < 0.7:
                cur.execute("INSERT INTO h VALUES (%s, %s, %s, %s)",
                            (k1, k2, rand_val(c_rng, 0, 20), c_rng.choice([None, "X", "y"])))
    for i in range(1, 41):
        cur.execute("INSERT INTO m VALUES (%s, %s, %s, %s)",
                    (i, rand_val(c_rng, 1, 6, 0.1), rand_val(c_rng, 1, 5, 0.1), rand_val(c_rng, 0, 5)))
    # an inheritance tree (its own rng: the seed's other draws as they were without it)
    i_rng = random.Random(f"inherit-{seed}")
    cur.execute("CREATE TABLE ip (id int PRIMARY KEY, g int, v int)")
    cur.execute("CREATE TABLE ic1 () INHERITS (ip)")
    cur.execute("CREATE TABLE ic2 (note text) INHERITS (ip)")
    cur.execute("CREATE TABLE ig () INHERITS (ic1)")
    for i in range(1, 41):
        rel = i_rng.choice(INHERIT_RELS)
        row = (i_rng.randint(1, 40), rand_val(i_rng, 1, 4), rand_val(i_rng, 0, 9))
        if rel == "ic2":
            cur.execute("INSERT INTO ic2 VALUES (%s, %s, %s, %s)", row + (i_rng.choice([None, "n1"]),))
        else:
            cur.execute(f"INSERT INTO {rel} VALUES (%s, %s, %s)" +
                        (" ON CONFLICT (id) DO NOTHING" if rel == "ip" else ""), row)
    # keys of a row type, domains (their own rng too)
    r_rng = random.Random(f"rowkey-{seed}")
    r_large = LARGE_ROW_KEYS > 0 and seed % LARGE_ROW_KEYS == 0
    rowkey_setup(r_rng, cur, r_large)
    # session settings of refreshes (their own rng too)
    s_rng = random.Random(f"settings-{seed}")
    spelling = Spelling()
    for i in range(1, 31):
        cur.execute("INSERT INTO d VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
                    (i,) + spelling.row(rng) + (rand_val(rng, 0, 5),))
    for i in range(1, 31):
        cur.execute("INSERT INTO a VALUES (%s, %s, %s, %s)",
                    (i, rand_val(rng, 1, 4), rand_val(rng, 0, 30), rng.choice([None, "X", "y"])))
    for i in range(1, 41):
        cur.execute("INSERT INTO b VALUES (%s, %s, %s)", (i, rand_val(rng, 1, 30, 0.05), rand_val(rng, 0, 5)))
        cur.execute("INSERT INTO c VALUES (%s, %s, %s)", (i, rand_val(rng, 1, 30, 0.05), rand_val(rng, 0, 5)))
    defs = [(f"dt{i}", q, {"fixed list (issue 4)"}) for i, q in enumerate(make_queries(rng))]
    # a dynamic table over a dynamic table
    defs.append(("dt_up", "SELECT id, g, v FROM a", {"fixed list (issue 4)"}))
    defs.append(("dt_down", "SELECT g, count(*) AS n, sum(v) AS s FROM dt_up GROUP BY g", {"fixed list (issue 4)"}))
    defs += nested_queries(rng, nested, seed)
    # (their own draws: the seed's other tables, DML and refreshes as they were without them)
    ns_rng = random.Random(f"numeric-{seed}")
    ns_defs = numeric_state_queries(ns_rng)
    defs += ns_defs
    c_defs = composite_queries(c_rng)
    defs += c_defs
    i_defs = inheritance_queries(i_rng)
    defs += i_defs
    o_rng = random.Random(f"or-{seed}")
    o_defs = or_queries(o_rng)
    defs += o_defs
    r_defs = rowkey_queries(r_rng)
    defs += r_defs
    if ROW_KEYS_ONLY:
        # (the other tables drawn as ever, none created)
        defs = r_defs
    names, tags, queries = [], {}, {}
    for name, q, t in defs:
        try:
            cur.execute("SELECT dynview.create_dynamic_table(%s, %s, schedule => 'manual')", (name, q))
        except psycopg2.Error as e:
            # PostgreSQL itself rejecting the query is a bug of the generator, not of dynview
            try:
                cur.execute(f"EXPLAIN {q}")
                culprit = "dynview"
            except psycopg2.Error:
                culprit = "the query generator (PostgreSQL rejects the query)"
            raise AssertionError(f"create_dynamic_table({name}) failed, a bug of {culprit}: "
                                 f"{str(e).strip()}\n  query: {q}")
        names.append(name)
        tags[name] = t
        queries[name] = q

    def fail(msg, n):
        notices = "".join(setup.notices[-3:])
        raise AssertionError(f"{msg}\n  {n}: {queries.get(n, '?')}\n{notices}")

    ns_names = [n for n, _, _ in ns_defs]
    c_names = [n for n, _, _ in c_defs]
    i_names = [n for n, _, _ in i_defs]
    o_names = [n for n, _, _ in o_defs]
    r_names = [n for n, _, _ in r_defs]
    main_names = [n for n in names if n not in ns_names and n not in c_names and n not in i_names
                  and n not in o_names and n not in r_names]
    # the composite tables' writers, driven by c_rng (their lock timeouts and rollbacks leave
    # the main writers' transactions as they were)
    c_writers = [psycopg2.connect(dbname=DB) for _ in range(2)]
    for c in c_writers:
        c.cursor().execute("SET lock_timeout = '50ms'")
        c.commit()
    # the inheritance tree's writers, driven by i_rng (likewise)
    i_writers = [psycopg2.connect(dbname=DB) for _ in range(2)]
    for c in i_writers:
        c.cursor().execute("SET lock_timeout = '50ms'")
        c.commit()
    # the row-key tables' writers, driven by r_rng (likewise)
    r_writers = [psycopg2.connect(dbname=DB) for _ in range(2)]
    for c in r_writers:
        c.cursor().execute("SET lock_timeout = '50ms'")
        c.commit()
    writers = [psycopg2.connect(dbname=DB) for _ in range(3)]
    for c in writers:
        # one thread drives all writers: a row lock held by an open transaction of
        # another writer must fail fast instead of blocking the loop
        c.cursor().execute("SET lock_timeout = '50ms'")
        c.commit()
    open_txn = [0] * len(writers)
    refreshes = verified = incremental = 0

    def refresh_and_verify(target, when):
        nonlocal refreshes, verified, incremental
        cur.execute("SELECT max(refresh_id) FROM dynview.refresh_history")
        before = cur.fetchone()[0] or 0
        settings = settings_for_refresh(s_rng)
        for name, value in settings:
            cur.execute(f"SET {name} = {value}")
        if settings:
            when += " under " + ", ".join(f"{n} = {v}" for n, v in settings)
        try:
            refresh_and_verify_under(target, when, before, bool(settings))
        finally:
            if settings:
                cur.execute("RESET ALL")
                cur.execute("SET client_min_messages = warning")

    def refresh_and_verify_under(target, when, before, settings):
        nonlocal refreshes, verified, incremental
        try:
            cur.execute("SELECT dynview.refresh(%s)", (target,))
        except psycopg2.Error as e:
            fail(f"refresh of {target} {when} failed: {str(e).strip()}", target)
        refreshes += 1
        if settings:
            # (the oracle runs under the defaults: verify() under enable_nestloop = off and
            # work_mem = 64kB took seconds)
            cur.execute("RESET ALL")
            cur.execute("SET client_min_messages = warning")
        # verify what the refresh wrote (the table and its upstreams), right after it:
        # verify() recomputes at the data snapshot, which pruning makes unreliable
        # for tables whose snapshot is long past
        cur.execute("SELECT name::text, state, refresh_mode, mode_reason_code, error_message "
                    "FROM dynview.refresh_history WHERE refresh_id > %s ORDER BY refresh_id", (before,))
        for n, state, mode, reason, error in cur.fetchall():
            if state != "SUCCEED":
                fail(f"refresh of {n} ({state}, in the refresh of {target} {when}): {error}", n)
            try:
                cur.execute("SELECT dynview.verify(%s)", (n,))
                ok = cur.fetchone()[0]
            except psycopg2.Error as e:
                fail(f"verify({n}) failed after the refresh of {target} {when}: {str(e).strip()}", n)
            if not ok:
                fail(f"verify({n}) false after a {mode} refresh (in the refresh of {target} {when})", n)
            verified += 1
            incremental += mode == "INCREMENTAL"
            key = mode if mode != "FULL" else f"FULL {reason}"
            for t in tags.get(n, ()):
                tally[t][key] += 1
            if settings:
                tally["session settings drawn"][key] += 1

    def side_step(srng, swriters, dml, dml_p, snames, refresh_p, step):
        """A step of a set of tables with writers and draws of their own (composite keys,
        inheritance): a change with probability dml_p, its transaction ended now and then, and a
        refresh of one of them with probability refresh_p (at the last step, after every one of
        their writers committed)."""
        if srng.random() < dml_p:
            c = srng.choice(swriters)
            try:
                dml(srng, c.cursor())
            except psycopg2.Error:
                c.rollback()
            if srng.random() < 0.35:
                end_transaction(srng, c)
        if srng.random() < refresh_p or step == steps - 1:
            if step == steps - 1:
                for c in swriters:
                    c.commit()
            refresh_and_verify(srng.choice(snames), f"at step {step}")

    for step in range(steps):
        if ROW_KEYS_ONLY:
            side_step(r_rng, r_writers, lambda srng, c: rowkey_dml(srng, c, r_large), 0.6, r_names,
                      R_REFRESH_P, step)
            continue
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
            end_transaction(rng, conn)
            open_txn[w] = 0
        if rng.random() < REFRESH_P or step == steps - 1:
            if step == steps - 1:
                for c in writers:
                    c.commit()
            refresh_and_verify(rng.choice(main_names), f"at step {step}")
        if ns_rng.random() < REFRESH_P or step == steps - 1:
            refresh_and_verify(ns_rng.choice(ns_names), f"at step {step}")
        side_step(c_rng, c_writers, composite_dml, 0.7, c_names, C_REFRESH_P, step)
        side_step(i_rng, i_writers, inheritance_dml, 0.6, i_names, I_REFRESH_P, step)
        side_step(r_rng, r_writers, lambda srng, c: rowkey_dml(srng, c, r_large), 0.6, r_names,
                  R_REFRESH_P, step)
        if o_rng.random() < REFRESH_P / 2 or step == steps - 1:
            refresh_and_verify(o_rng.choice(o_names), f"at step {step}")
    for n in names:
        refresh_and_verify(n, "at the end")
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
            fail(f"{n} differs from its query by text: table has {in_table - in_query}, "
                 f"query has {in_query - in_table}", n)
        cur.execute(f"SELECT count(*) FROM ((TABLE {n} EXCEPT ALL ({query})) "
                    f"UNION ALL (({query}) EXCEPT ALL TABLE {n})) dv_x")
        if cur.fetchone()[0] != 0:
            fail(f"{n} differs from its query by =", n)
    for c in writers + c_writers + i_writers + r_writers:
        c.close()
    setup.close()
    admin_exec(f"DROP DATABASE IF EXISTS {DB} WITH (FORCE)")
    return refreshes, verified, incremental


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


def print_tally(tally):
    """Refresh modes of the verified refreshes, per construct (a refresh counts for every
    construct its table's query contains)."""
    print("refresh modes per construct (verified refreshes of the tables whose query contains it):")
    print(f"  {'construct':<42} {'total':>6} {'INCR':>6} {'NO_DATA':>7} {'FULL':>6}  FULL reasons")
    for t in sorted(tally, key=lambda t: (t.startswith(("depth", "fixed")), t)):
        m = tally[t]
        full = {k[5:]: v for k, v in m.items() if k.startswith("FULL")}
        reasons = ", ".join(f"{k} {v}" for k, v in sorted(full.items(), key=lambda kv: -kv[1]))
        print(f"  {t:<42} {sum(m.values()):>6} {m['INCREMENTAL']:>6} {m['NO_DATA']:>7} "
              f"{sum(full.values()):>6}  {reasons}")


def main():
    global DB, LARGE_ROW_KEYS, ROW_KEYS_ONLY
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--nested", type=int, default=10,
                    help="nested queries drawn freely per seed, besides the shapes drawn every seed")
    ap.add_argument("--first-seed", type=int, default=1)
    ap.add_argument("--large-window", type=int, default=100000,
                    help="rows of the large-window run (0: none); its window holds about 2.2 times as many changes")
    ap.add_argument("--min-verified", type=int, default=0,
                    help="fail unless the seeds verify at least this many refreshes in all")
    ap.add_argument("--large-row-keys", type=int, default=LARGE_ROW_KEYS, metavar="N",
                    help="seeds divisible by N fill the row-key tables rp and rq past the size where "
                    "probes and keyed reads are planned (12,000 rows more each; 0: no seed)")
    ap.add_argument("--row-keys-only", action="store_true",
                    help="create, change and refresh only the row-key tables (rowkey_queries), drawn as in a "
                    "full run of the seed")
    ap.add_argument("--db", default=DB,
                    help="the scratch database (dropped and re-created per seed); two runs at once need two names")
    a = ap.parse_args()
    DB = a.db
    LARGE_ROW_KEYS = a.large_row_keys
    ROW_KEYS_ONLY = a.row_keys_only
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
    tally = defaultdict(Counter)
    total = 0
    start = time.monotonic()
    for seed in range(a.first_seed, a.first_seed + a.seeds):
        t0 = time.monotonic()
        try:
            refreshes, verified, incremental = run_seed(seed, a.steps, a.nested, tally)
            passed += 1
            total += verified
            print(f"ok   seed {seed}: {a.steps} steps, {refreshes} refreshes, {verified} verified "
                  f"({incremental} incremental), {time.monotonic() - t0:.1f}s", flush=True)
        except Exception as e:  # report and go on with the next seed
            failed += 1
            print(f"FAIL seed {seed}: {e}", flush=True)
            traceback.print_exc(limit=2)
    if a.seeds:
        print_tally(tally)
    print(f"{total} verified refreshes over {a.seeds} seeds in {time.monotonic() - start:.0f}s")
    if total < a.min_verified:
        failed += 1
        print(f"FAIL fewer verified refreshes than --min-verified {a.min_verified}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
