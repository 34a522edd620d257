-- The refresh window of design section 5 has three spellings: the SQL condition that window reads
-- run (incremental.c WINDOW_CONDITION: one call of dynview._window_contains per row), the same
-- wording spelled with PostgreSQL's pg_visible_in_snapshot and = ANY (WINDOW_CONDITION_SNAPSHOTS,
-- the reference), and the C function the scans asking only whether a buffer holds a row of the
-- window use (window_contains, window_has_row).  All are made from the same operands
-- (window_texts); dynview._window_membership decides each xid by the three, and they must agree:
-- for every xid from below the previous snapshot's xmin to beyond the new one's xmax, over
-- pairs of snapshots with in-progress lists, xids that the refreshing transactions count as their
-- own (a refresh with subtransactions: several), at the start of the xid space, mid-epoch and
-- across the wraparound of the 32-bit counter into the next epoch (xid8 2^32 - 3 .. 2^32 + 13);
-- then dynview._window_contains called in one statement with operands that change from row to
-- row (it keeps the operands it parsed between calls: they must be parsed again when they change);
-- then with real snapshots around a committed, an aborted and a subtransaction-writing transaction.
-- (Across an epoch's end the offsets skip the three 32-bit values that are no normal xid, as the
-- xid counter does: ws_xid.)
SET client_min_messages = warning;

CREATE FUNCTION ws_xid(b numeric, x int) RETURNS numeric LANGUAGE sql IMMUTABLE
  RETURN b + x + CASE WHEN b + x >= ceil((b + 1) / 4294967296) * 4294967296 THEN 3 ELSE 0 END;

CREATE TEMP TABLE ws_case AS
WITH bases(b) AS (VALUES (3::numeric), (1000), (4294967290), (8589934590)),
     prevs(plo, phi, pxip) AS (VALUES (0, 0, '{}'::int[]), (2, 6, '{2,4}'), (3, 3, '{}'), (1, 8, '{1,5,7}')),
     curs(clo, chi, cxip) AS (VALUES (2, 6, '{2}'::int[]), (5, 9, '{6,8}'), (6, 6, '{}'), (0, 10, '{0,3,9}'),
                                     (4, 12, '{4,7,11}')),
     prev_owns(po) AS (VALUES ('{}'::int[]), ('{4}'), ('{4,5}')),
     cur_owns(co) AS (VALUES ('{}'::int[]), ('{8}'), ('{7,11}'))
SELECT b, plo, phi, pxip, clo, chi, cxip, po, co,
       format('%s:%s:%s', ws_xid(b, plo), ws_xid(b, phi),
              (SELECT string_agg(ws_xid(b, x)::text, ',' ORDER BY x) FROM unnest(pxip) x))::pg_snapshot AS prev,
       format('%s:%s:%s', ws_xid(b, clo), ws_xid(b, chi),
              (SELECT string_agg(ws_xid(b, x)::text, ',' ORDER BY x) FROM unnest(cxip) x))::pg_snapshot AS cur,
       (SELECT coalesce(array_agg(ws_xid(b, x)::text::xid8 ORDER BY x), '{}') FROM unnest(po) x) AS prev_own,
       (SELECT coalesce(array_agg(ws_xid(b, x)::text::xid8 ORDER BY x), '{}') FROM unnest(co) x) AS cur_own,
       (SELECT array_agg(ws_xid(b, x)::text::xid8 ORDER BY x) FROM generate_series(-2, 13) x) AS xids
  FROM bases, prevs, curs, prev_owns, cur_owns;

CREATE TEMP TABLE ws_result AS
SELECT c.b, m.*
  FROM ws_case c, dynview._window_membership(c.xids, c.prev, c.prev_own, c.cur, c.cur_own) m;

-- every xid of every case decided, by the three, alike; both answers occur in every part of the xid space
SELECT b, count(*) AS decided,
       count(*) FILTER (WHERE by_sql IS DISTINCT FROM by_c OR by_snapshots IS DISTINCT FROM by_c) AS differ,
       count(*) FILTER (WHERE by_sql) AS in_window, count(*) FILTER (WHERE NOT by_sql) AS outside
  FROM ws_result GROUP BY b ORDER BY b;
SELECT (SELECT count(*) FROM ws_case) AS cases,
       (SELECT count(*) FROM ws_case c WHERE cardinality(c.xids) =
          (SELECT count(*) FROM dynview._window_membership(c.xids, c.prev, c.prev_own, c.cur, c.cur_own))) AS complete;
-- (the differing rows, if ever: none)
SELECT * FROM ws_result WHERE by_sql IS DISTINCT FROM by_c OR by_snapshots IS DISTINCT FROM by_c LIMIT 10;

-- the function in one statement over all cases, its operands changing from row to row (cases in
-- turn, and shuffled by a join order the planner picks), against the reference spelling
SELECT count(*) AS calls,
       count(*) FILTER (WHERE dynview._window_contains(x, c.prev, c.prev_own, c.cur, c.cur_own)
                              IS DISTINCT FROM r.by_snapshots) AS differ
  FROM ws_case c, unnest(c.xids) WITH ORDINALITY u(x, n),
       LATERAL (SELECT by_snapshots FROM dynview._window_membership(ARRAY[x], c.prev, c.prev_own, c.cur, c.cur_own)) r;
-- the same operands in every call but the previous snapshot's in-progress list of one byte more
-- or less (parsed again when the bytes differ, whatever the length)
SELECT array_agg(dynview._window_contains(x::text::xid8, p::pg_snapshot, '{}', '10:20:', '{}') ORDER BY n) AS by_function,
       array_agg(pg_visible_in_snapshot(x::text::xid8, '10:20:') AND NOT pg_visible_in_snapshot(x::text::xid8, p::pg_snapshot)
                 ORDER BY n) AS by_snapshots
  FROM (VALUES (1, 12, '10:15:12'), (2, 12, '10:15:'), (3, 12, '10:15:12'), (4, 13, '10:15:13'),
               (5, 13, '10:15:12')) v(n, x, p);
-- NULL in an own-xid list: an error, as _window_membership
SELECT dynview._window_contains('7', '5:8:7', '{NULL}', '5:9:', '{}');

-- real transactions: a snapshot, then a committed one, an aborted one, one that wrote in a
-- subtransaction, and one still open in the window's own transaction
CREATE TABLE ws_t (x int);
SELECT pg_current_snapshot() AS s1 \gset
BEGIN;
INSERT INTO ws_t VALUES (1);
SELECT pg_current_xact_id() AS committed \gset
COMMIT;
BEGIN;
INSERT INTO ws_t VALUES (2);
SELECT pg_current_xact_id() AS aborted \gset
ROLLBACK;
BEGIN;
SAVEPOINT sp;
INSERT INTO ws_t VALUES (3);
RELEASE SAVEPOINT sp;
SELECT pg_current_xact_id() AS subtransaction \gset
COMMIT;
BEGIN;
SELECT pg_current_xact_id() AS own \gset
SELECT pg_current_snapshot() AS s2 \gset
CREATE TEMP TABLE ws_real AS
SELECT m.*
  FROM dynview._window_membership(
         ARRAY(SELECT (pg_snapshot_xmin(:'s1')::text::numeric + i)::text::xid8
                 FROM generate_series(-3, (pg_snapshot_xmax(:'s2')::text::numeric
                                           - pg_snapshot_xmin(:'s1')::text::numeric)::int + 3) i
                WHERE pg_snapshot_xmin(:'s1')::text::numeric + i > 0),
         :'s1', '{}', :'s2', ARRAY[:'own'::xid8]) m;
SELECT count(*) > 5 AS several,
       count(*) FILTER (WHERE by_sql IS DISTINCT FROM by_c OR by_snapshots IS DISTINCT FROM by_c) AS differ,
       bool_and(by_sql) FILTER (WHERE xid IN (:'committed', :'aborted', :'subtransaction', :'own')) AS writers_in_window,
       bool_or(by_sql) FILTER (WHERE xid < pg_snapshot_xmin(:'s1')) AS older_in_window
  FROM ws_real;
COMMIT;

DROP TABLE ws_t;
DROP FUNCTION ws_xid(numeric, int);
