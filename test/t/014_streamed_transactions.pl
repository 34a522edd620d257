# Large source transactions are streamed to the change buffers while they run (PostgreSQL 15
# streaming callbacks), not spilled to disk, and the window protocol never reads the rows of a
# transaction or subtransaction that aborts (design section 5):
#
#   a. a transaction larger than logical_decoding_work_mem that commits: its rows reach the buffer
#      before its commit (dv_commit_time NULL: written while it ran), a refresh while it is open
#      does not read them, the refresh after its commit does; the slot spilled nothing
#   b. one that aborts after its rows were streamed: a refresh while it is open and one after the
#      abort are exact, and its rows are gone from the buffer; also a refresh right after the abort,
#      before the decoder has read the abort record
#   c. one whose subtransaction (with a nested one) aborts after being streamed, and that commits
#   d. the decoder is terminated while a streamed transaction is open: the restarted decoder
#      deletes the rows written before and decodes the transaction again, once (commit and abort)
#   e. a large transaction on a table that no dynamic table reads is not decoded at all; once that
#      table becomes a partition, or an inheritance child, of a captured table, its changes are
#      captured
#
# Every refresh is checked with verify(); counts are exact whatever the timing.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

use FindBin;
use lib $FindBin::RealBin;
use DynviewNode;

my $node = dynview_node('streamed', q{
dynview.naptime = 200
logical_decoding_work_mem = 64kB
});
my $db = 'postgres';

$node->safe_psql($db, q{
CREATE TABLE items (id int PRIMARY KEY, grp int NOT NULL, v int NOT NULL, pad text);
INSERT INTO items SELECT g, g % 7, g, 'seed' FROM generate_series(1, 100) g;
-- enough rows that the changes below stay INCREMENTAL (dynview.full_refresh_change_ratio)
INSERT INTO items SELECT g, g % 7, g, 'seed' FROM generate_series(1000001, 1060000) g;
SELECT dynview.create_dynamic_table('item_totals',
  'SELECT grp, count(*) AS n, sum(v) AS total FROM items GROUP BY grp', schedule => 'manual');
SELECT dynview.create_dynamic_table('item_rows',
  'SELECT id, grp, v FROM items WHERE v % 2 = 0', schedule => 'manual');
});
my $buffer = $node->safe_psql($db,
	q{SELECT buffer_relid::regclass FROM dynview.source_tracking WHERE source_relid = 'items'::regclass});

# refresh both tables, check them against their queries; returns "mode mode t t"
sub refresh_verify
{
	my ($what) = @_;
	my $r = $node->safe_psql($db, q{
SELECT (SELECT refresh_mode FROM dynview.refresh('item_totals')) || ' '
    || (SELECT refresh_mode FROM dynview.refresh('item_rows')) || ' '
    || dynview.verify('item_totals') || ' ' || dynview.verify('item_rows')});
	like($r, qr/^\S+ \S+ true true$/, "$what: refresh, verify() true for both tables ($r)");
	return $r;
}

sub streamed_rows
{
	my ($xid) = @_;
	return $node->safe_psql($db, "SELECT count(*) FROM $buffer WHERE dv_xid = '$xid'");
}

# the decoder has captured every change committed so far (the buffers are checked before the
# refresh: pruning may delete rows once every data snapshot sees them)
sub caught_up
{
	is($node->safe_psql($db, "SELECT dynview.wait_for_capture('60 seconds')"), 't', "$_[0]: wait_for_capture");
}

# wait until the decoder has streamed rows of the open transaction xid into the buffer
sub wait_streamed
{
	my ($xid, $what) = @_;
	ok($node->poll_query_until($db,
			"SELECT count(*) > 0 FROM $buffer WHERE dv_xid = '$xid' AND dv_commit_time IS NULL"),
		"$what: rows streamed into the buffer while the transaction runs");
}

# "spill_txns stream_txns" of the decoder's slot
sub slot_stats
{
	return split / /, $node->safe_psql($db, q{
SELECT coalesce(spill_txns, 0) || ' ' || coalesce(stream_txns, 0) FROM pg_stat_replication_slots
 WHERE slot_name = 'dynview_' || (SELECT oid FROM pg_database WHERE datname = current_database())});
}

refresh_verify('start');
my ($spilled, $streamed) = slot_stats();

# ---- a. a large transaction that commits --------------------------------------------------------
my $s = $node->background_psql($db);
my $xid = $s->query_safe(q{BEGIN;
INSERT INTO items SELECT g, g % 7, g, repeat('x', 50) FROM generate_series(1001, 21000) g;
UPDATE items SET v = v + 1 WHERE id <= 50;
DELETE FROM items WHERE id BETWEEN 51 AND 60;
SELECT pg_current_xact_id();});
chomp $xid;
wait_streamed($xid, 'a');
refresh_verify('a, while open');
$s->query_safe('COMMIT');
caught_up('a');
is(streamed_rows($xid), 20000 + 2 * 50 + 10, 'a: the buffer holds each change of the transaction once');
is($node->safe_psql($db, "SELECT count(DISTINCT dv_seq) = count(*) AND min(dv_seq) = 0 AND max(dv_seq) = count(*) - 1 FROM $buffer WHERE dv_xid = '$xid'"),
	't', 'a: dv_seq numbers the rows 0 .. n-1');
refresh_verify('a, after commit');
my ($spilled_a, $streamed_a) = slot_stats();
is($spilled_a, $spilled, 'a: the slot spilled nothing');
cmp_ok($streamed_a, '>', $streamed, 'a: the slot streamed the transaction');

# ---- b. a large transaction that aborts after being streamed -----------------------------------
$xid = $s->query_safe(q{BEGIN;
INSERT INTO items SELECT g, g % 7, g, repeat('y', 50) FROM generate_series(30001, 50000) g;
UPDATE items SET v = v * 3 WHERE id <= 500;
DELETE FROM items WHERE id BETWEEN 2001 AND 2100;
SELECT pg_current_xact_id();});
chomp $xid;
wait_streamed($xid, 'b');
refresh_verify('b, while open');
$s->query_safe('ROLLBACK');
caught_up('b');
is(streamed_rows($xid), '0', 'b: the rows of the aborted transaction are gone from the buffer');
refresh_verify('b, after the abort');

# ---- b2. the same, refreshed right after the abort without waiting for the decoder first -------
# An abort record is not flushed when its transaction ends, and the streamed rows stay in the
# buffer until the decoder reads it: a refresh that waited only for the flushed WAL would read
# them (capture_target waits for L when a transaction of the window did not commit).
$xid = $s->query_safe(q{BEGIN;
INSERT INTO items SELECT g, g % 7, g, repeat('w', 50) FROM generate_series(100001, 120000) g;
UPDATE items SET v = v * 5 WHERE id <= 300;
SELECT pg_current_xact_id();});
chomp $xid;
wait_streamed($xid, 'b2');
my $b2 = $s->query_safe(q{ROLLBACK;
SELECT (SELECT refresh_mode FROM dynview.refresh('item_totals')) || ' '
    || (SELECT refresh_mode FROM dynview.refresh('item_rows')) || ' '
    || dynview.verify('item_totals') || ' ' || dynview.verify('item_rows');});
like($b2, qr/^\S+ \S+ true true$/, "b2: refreshed right after the abort, verify() true for both tables ($b2)");
caught_up('b2');
is(streamed_rows($xid), '0', 'b2: the rows of the aborted transaction are gone from the buffer');

# ---- c. a streamed subtransaction (and a nested one) aborts, the transaction commits ------------
$xid = $s->query_safe(q{BEGIN;
INSERT INTO items SELECT g, g % 7, g, 'kept' FROM generate_series(60001, 65000) g;
SAVEPOINT s1;
INSERT INTO items SELECT g, g % 7, g, repeat('z', 50) FROM generate_series(70001, 85000) g;
UPDATE items SET v = -v WHERE id BETWEEN 1001 AND 3000;
SAVEPOINT s2;
DELETE FROM items WHERE id BETWEEN 3001 AND 4000;
SELECT pg_current_xact_id();});
chomp $xid;
wait_streamed($xid, 'c');
# the subtransactions' rows must have been streamed before they abort
ok($node->poll_query_until($db, "SELECT count(*) > 0 FROM $buffer WHERE dv_xid = '$xid' AND id > 70000"),
	'c: rows of the subtransaction streamed');
$s->query_safe(q{ROLLBACK TO SAVEPOINT s1;
UPDATE items SET v = v + 1000 WHERE id BETWEEN 60001 AND 60100;
SAVEPOINT s3;
INSERT INTO items SELECT g, g % 7, g, 'kept too' FROM generate_series(90001, 90010) g;
RELEASE SAVEPOINT s3;});
refresh_verify('c, while open');
$s->query_safe('COMMIT');
caught_up('c');
is( $node->safe_psql($db,
		"SELECT count(*) FILTER (WHERE id > 70000 AND id <= 85000) || ' ' || count(*) FILTER (WHERE id BETWEEN 1001 AND 4000) || ' ' || count(*) FROM $buffer WHERE dv_xid = '$xid'"),
	'0 0 ' . (5000 + 2 * 100 + 10), 'c: only the rows of the committed (sub)transactions stay');
refresh_verify('c, after commit');

# ---- d. the decoder restarts while a streamed transaction is open -------------------------------
foreach my $end ('COMMIT', 'ROLLBACK')
{
	my $base = $end eq 'COMMIT' ? 100001 : 200001;
	$xid = $s->query_safe(qq{BEGIN;
INSERT INTO items SELECT g, g % 7, g, repeat('w', 50) FROM generate_series($base, $base + 19999) g;
SELECT pg_current_xact_id();});
	chomp $xid;
	wait_streamed($xid, "d ($end)");
	my $pid = $node->safe_psql($db, q{SELECT decoder_pid FROM dynview.cdc_status WHERE source IS NULL});
	$node->safe_psql($db, "SELECT pg_terminate_backend($pid)");
	ok($node->poll_query_until($db,
			"SELECT decoder_pid IS NOT NULL AND decoder_pid <> $pid FROM dynview.cdc_status WHERE source IS NULL"),
		"d ($end): the decoder was restarted");
	$s->query_safe($end);
	caught_up("d ($end)");
	is(streamed_rows($xid), $end eq 'COMMIT' ? '20000' : '0',
		"d ($end): the transaction's rows are in the buffer " . ($end eq 'COMMIT' ? 'once' : 'no more'));
	is($node->safe_psql($db, q{SELECT streaming_xids FROM dynview.decoder_state}), '{}',
		"d ($end): no streamed transaction left open");
	refresh_verify("d ($end)");
}
$s->quit;

# ---- e. writes to tables no dynamic table reads are not decoded (recordfilter.c) ----------------
# A transaction larger than logical_decoding_work_mem on an untracked table is neither streamed nor
# spilled: the decoder skips its records.  The table then becomes a partition of a captured
# partitioned table (ATTACH PARTITION), and an inheritance child of a captured table (INHERIT):
# its later changes are captured (verify() after INCREMENTAL refreshes).
$node->safe_psql($db, q{
CREATE TABLE parted (id int NOT NULL, v int NOT NULL) PARTITION BY RANGE (id);
CREATE TABLE parted_1 PARTITION OF parted FOR VALUES FROM (0) TO (1000000);
INSERT INTO parted SELECT g, g FROM generate_series(1, 50000) g;
SELECT dynview.create_dynamic_table('parted_totals',
  'SELECT v % 5 AS k, count(*) AS n, sum(v) AS total FROM parted GROUP BY 1', schedule => 'manual');
CREATE TABLE loose (id int NOT NULL, v int NOT NULL);
CREATE TABLE loose_child (id int NOT NULL, grp int NOT NULL, v int NOT NULL, pad text);
});
caught_up('e, start');
($spilled, $streamed) = slot_stats();
$node->safe_psql($db, q{
INSERT INTO loose SELECT g, g FROM generate_series(1000000, 1059999) g;
UPDATE loose SET v = v + 1 WHERE id < 1010000;
INSERT INTO loose_child SELECT g, g % 7, g, 'child' FROM generate_series(5000001, 5040000) g;
});
caught_up('e, untracked writes');
my ($spilled_e, $streamed_e) = slot_stats();
is("$spilled_e $streamed_e", "$spilled $streamed", 'e: an untracked transaction is neither streamed nor spilled');

$node->safe_psql($db, q{ALTER TABLE parted ATTACH PARTITION loose FOR VALUES FROM (1000000) TO (2000000)});
$node->safe_psql($db, q{ALTER TABLE loose_child INHERIT items});
refresh_verify('e, after ATTACH and INHERIT');
like($node->safe_psql($db, q{
SELECT (SELECT refresh_mode FROM dynview.refresh('parted_totals')) || ' ' || dynview.verify('parted_totals')}),
	qr/ true$/, 'e: refresh after ATTACH, verify() of the partitioned source\'s table');
# (statistics: dynview.full_refresh_change_ratio compares the change with the sources' row estimates)
$node->safe_psql($db, q{ANALYZE parted, loose, items, loose_child});
$node->safe_psql($db, q{
INSERT INTO loose SELECT g, g FROM generate_series(1060000, 1060999) g;
UPDATE loose SET v = v * 2 WHERE id BETWEEN 1000000 AND 1000499;
DELETE FROM loose WHERE id BETWEEN 1050000 AND 1050099;
INSERT INTO loose_child SELECT g, g % 7, g, 'child' FROM generate_series(5100001, 5101000) g;
UPDATE loose_child SET v = v + 2 WHERE id <= 5000500;
});
is($node->safe_psql($db, q{
SELECT (SELECT refresh_mode FROM dynview.refresh('parted_totals')) || ' ' || dynview.verify('parted_totals')}),
	'INCREMENTAL true', 'e: the attached partition\'s changes are captured');
like(refresh_verify('e, changes of the new child'), qr/^INCREMENTAL INCREMENTAL/, 'e: the new child\'s changes are captured');

is($node->safe_psql($db, 'SELECT count(*) FROM item_rows'),
	$node->safe_psql($db, 'SELECT count(*) FROM items WHERE v % 2 = 0'), 'the table holds what its query does');
$node->stop;
done_testing();
