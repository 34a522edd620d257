-- Semi- and anti-join deltas (issue 13, TPC-H Q4, Q21, Q22): the rows each term of the rule
-- reads (the rows now that the other side's delta reaches, and the changed side's own delta)
-- are numbered in a WITH entry, and the sums of the other side's delta weights per row are one
-- join of that entry with the delta grouped by the number (hashed), not a subquery per row
-- over the delta.  The relations of an EXISTS / IN subquery are read for the columns its
-- conditions read only, whatever its select list ("EXISTS (SELECT * ...)").  Every refresh is
-- verified and compared with the query by text and by "=": rows of the kept side that are
-- exact duplicates (numbered apart, never merged), both sides changed in one refresh, many
-- delta rows per key, NOT IN with NULLs on either side, the padded rows of a full join, an
-- anti-join under a semi-join, a LATERAL function on the other side.
SET client_min_messages = warning;

CREATE TABLE sj_item (ord int, line int, supp int, late boolean, note text, PRIMARY KEY (ord, line));
CREATE TABLE sj_ord (ord int PRIMARY KEY, status text, cust int);
CREATE TABLE sj_val (id int PRIMARY KEY, grp int, k int);
CREATE TABLE sj_ref (id int PRIMARY KEY, grp int, k int);
-- (supp repeats within an order: sj_dup's kept rows (ord, supp) have exact duplicates)
INSERT INTO sj_ord SELECT o, CASE WHEN o % 3 = 0 THEN 'F' ELSE 'O' END, o % 40 FROM generate_series(1, 600) o;
INSERT INTO sj_item SELECT o, l, (o + l / 2) % 25, (o + l) % 4 = 0, repeat('n', 40)
  FROM generate_series(1, 600) o, generate_series(1, 1 + o % 5) l;
INSERT INTO sj_val SELECT i, i % 10, CASE WHEN i % 17 = 0 THEN NULL ELSE i % 30 END FROM generate_series(1, 300) i;
INSERT INTO sj_ref SELECT i, i % 10, i % 20 FROM generate_series(1, 100) i;
ANALYZE sj_item, sj_ord, sj_val, sj_ref;

CREATE TABLE sj_defs (name text PRIMARY KEY, query text NOT NULL);
INSERT INTO sj_defs VALUES
  -- Q21's shape, its subqueries written with SELECT *
  ('sj_q21', 'SELECT i1.supp, count(*) AS n FROM sj_item i1 JOIN sj_ord o ON o.ord = i1.ord
               WHERE o.status = ''F'' AND i1.late
                 AND EXISTS (SELECT * FROM sj_item i2 WHERE i2.ord = i1.ord AND i2.supp <> i1.supp)
                 AND NOT EXISTS (SELECT * FROM sj_item i3 WHERE i3.ord = i1.ord AND i3.supp <> i1.supp AND i3.late)
               GROUP BY i1.supp'),
  -- kept rows with exact duplicates, no aggregate above them
  ('sj_dup', 'SELECT i.ord, i.supp FROM sj_item i WHERE EXISTS (SELECT * FROM sj_ord o WHERE o.ord = i.ord AND o.status = ''F'')'),
  ('sj_anti_dup', 'SELECT i.supp FROM sj_item i WHERE NOT EXISTS (SELECT FROM sj_item j WHERE j.ord = i.ord AND j.late)'),
  -- Q4's shape: a count per group of the rows a semi-join keeps
  ('sj_q4', 'SELECT o.status, count(*) AS n FROM sj_ord o
              WHERE EXISTS (SELECT * FROM sj_item i WHERE i.ord = o.ord AND i.late) GROUP BY o.status'),
  -- Q22's shape: NOT EXISTS against a changed side, a scalar subquery on the kept side
  ('sj_q22', 'SELECT o.cust % 7 AS c, count(*) AS n FROM sj_ord o
               WHERE o.ord > (SELECT avg(ord) / 2 FROM sj_ord) AND NOT EXISTS (SELECT * FROM sj_item i WHERE i.ord = o.ord AND i.supp = 3)
               GROUP BY 1'),
  -- NOT IN (NULL semantics), correlated and not; IN with SELECT * of one column
  ('sj_notin', 'SELECT v.id, v.k FROM sj_val v WHERE v.k NOT IN (SELECT r.k FROM sj_ref r WHERE r.grp = v.grp)'),
  ('sj_notin_all', 'SELECT v.id FROM sj_val v WHERE v.k NOT IN (SELECT r.k FROM sj_ref r WHERE r.id > 90)'),
  ('sj_in', 'SELECT v.id, v.k FROM sj_val v WHERE v.k IN (SELECT r.k FROM sj_ref r WHERE r.grp = v.grp)'),
  -- the padded rows of both sides of a full join
  ('sj_full', 'SELECT o.ord, o.status, i.line FROM sj_ord o FULL JOIN sj_item i ON i.ord = o.ord AND i.line = 2 AND i.late'),
  -- an anti-join under a semi-join, both reading changed tables
  ('sj_nested', 'SELECT o.ord FROM sj_ord o WHERE EXISTS (SELECT FROM sj_item i WHERE i.ord = o.ord
                   AND NOT EXISTS (SELECT FROM sj_item j WHERE j.ord = i.ord AND j.supp = i.supp AND j.line <> i.line))'),
  -- a LATERAL function on the other side of a left join (its rows read the kept row)
  ('sj_lateral', 'SELECT o.ord, g FROM sj_ord o LEFT JOIN LATERAL generate_series(1, o.cust % 3) g ON g > 1 WHERE o.ord % 9 = 0');

SELECT count(dynview.create_dynamic_table(name, query, schedule => 'manual', refresh_mode => 'incremental'))
  FROM sj_defs;
SELECT d.name, t.effective_mode FROM sj_defs d JOIN dynview.dynamic_tables t ON t.name = d.name::regclass ORDER BY 1;

\getenv abs_srcdir PG_ABS_SRCDIR
\set refresh_round :abs_srcdir '/sql/include/refresh_round.sql'
\i :refresh_round

-- the right side of "EXISTS (SELECT * ...)" reads the columns its conditions read: no note
SELECT strpos(value, 'note') = 0 AS no_unread_column FROM dynview.explain_dynamic_table('sj_q21') WHERE property = 'delta';
-- the sums of the other side's delta per row: one join grouped by the row's number
SELECT strpos(value, 'GROUP BY k.dv_rid') > 0 AS sums_by_join,
       strpos(value, 'COALESCE(pg_catalog.sum(o.dv_weight), 0)::pg_catalog.int8 FROM') = 0 AS no_sum_per_row
  FROM dynview.explain_dynamic_table('sj_q21') WHERE property = 'delta';

-- round 1: orders inserted with their items, orders deleted with theirs, in one transaction
BEGIN;
INSERT INTO sj_ord SELECT o, CASE WHEN o % 2 = 0 THEN 'F' ELSE 'O' END, o % 40 FROM generate_series(601, 660) o;
INSERT INTO sj_item SELECT o, l, (o + l / 2) % 25, l % 2 = 0, 'x' FROM generate_series(601, 660) o, generate_series(1, 4) l;
DELETE FROM sj_item WHERE ord BETWEEN 100 AND 160;
DELETE FROM sj_ord WHERE ord BETWEEN 100 AND 160;
COMMIT;
SELECT * FROM dv_refresh_round('sj_defs');

-- round 2: both sides of every join changed at once, items of one order made duplicates of each
-- other, NULLs into and out of the NOT IN subquery's column and the kept side's
UPDATE sj_item SET late = NOT late WHERE ord % 5 = 0;
UPDATE sj_item SET supp = 7 WHERE ord BETWEEN 200 AND 230;
UPDATE sj_ord SET status = 'F' WHERE ord BETWEEN 200 AND 260;
UPDATE sj_ord SET cust = cust + 1 WHERE ord % 11 = 0;
UPDATE sj_ref SET k = NULL WHERE id IN (3, 95);
UPDATE sj_ref SET grp = (grp + 1) % 10 WHERE id % 6 = 0;
UPDATE sj_val SET k = NULL WHERE id % 23 = 0;
UPDATE sj_val SET k = 5 WHERE id % 17 = 0;
SELECT * FROM dv_refresh_round('sj_defs');

-- round 3: the NULLs taken out again, rows deleted on both sides, many delta rows per key
UPDATE sj_ref SET k = id % 20 WHERE k IS NULL;
DELETE FROM sj_ref WHERE id % 9 = 0;
INSERT INTO sj_ref SELECT i, i % 10, i % 7 FROM generate_series(101, 400) i;
DELETE FROM sj_val WHERE id % 13 = 0;
UPDATE sj_item SET line = line + 100, late = true WHERE ord % 2 = 1 AND ord < 300;
DELETE FROM sj_item WHERE ord % 7 = 0;
SELECT * FROM dv_refresh_round('sj_defs');

SELECT count(dynview.drop_dynamic_table(name)) FROM sj_defs;
DROP FUNCTION dv_refresh_round(regclass);
DROP TABLE sj_defs, sj_item, sj_ord, sj_val, sj_ref;
