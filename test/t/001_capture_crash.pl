
# Change capture survives crashes and restarts: every committed change of a tracked source is in its
# change buffer exactly once (design section 4), whatever the moment the server goes down.
#
#   a. immediate stop right after a large transaction (200000 rows) commits: the decoder has not
#      started it, is decoding it or writing it
#   b. immediate stop while thousands of small transactions are being committed and decoded
#   c. immediate stop with the slot's persisted confirmed position behind decoder_state.decoded_lsn,
#      then a clean restart; refresh and verify afterwards
#   d. DROP EXTENSION drops the slot and stops the decoder; DROP DATABASE of a database with the
#      extension works
#
# The assertions are exact counts that hold whatever the timing of the crash.
use strict;
use warnings;

use IPC::Run;
use Time::HiRes qw(usleep);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

use FindBin;
use lib $FindBin::RealBin;
use DynviewNode;

# Each scenario that could leave the decoder stuck gets its own node, so that a failure does not
# spill into the others: a (one large transaction) on one node, b, c and d on another.
my $node;

sub new_node
{
	my ($name) = @_;
	my $n = dynview_init($name, q{
max_connections = 20
shared_buffers = 64MB
log_statement = none
});
	$n->start;
	return $n;
}

# ---- helpers --------------------------------------------------------------------------------

# wait until the database's decoder runs (after a start it is started by the launcher)
sub wait_for_decoder
{
	my ($db) = @_;
	$node->poll_query_until($db, 'SELECT dynview._decoded_lsn() IS NOT NULL')
	  or die "the dynview decoder of $db did not start";
}

# every change committed so far is in the buffers
sub caught_up
{
	my ($db, $what) = @_;
	return is($node->safe_psql($db, "SELECT dynview.wait_for_capture('60 seconds')"),
		't', "$what: wait_for_capture");
}

sub buffer_of
{
	my ($db, $source) = @_;
	my $buffer = $node->safe_psql($db,
		"SELECT buffer_relid::regclass FROM dynview.source_tracking WHERE source_relid = '$source'::regclass"
	);
	die "$source is not tracked" if $buffer eq '';
	return $buffer;
}

# The rows of a buffer that the data snapshot of dynamic table dt does not see, as a FROM item:
# the changes committed after its initial build (it must not have been refreshed since).  Changes
# committed before may be in the buffer too (the decoder may decode them after tracking began)
# until pruning removes them: consumers skip what their snapshot sees.
sub after_build
{
	my ($buffer, $dt) = @_;
	return "(SELECT * FROM $buffer WHERE NOT pg_visible_in_snapshot(dv_xid, "
	  . "(SELECT data_snapshot FROM dynview.dynamic_table_catalog WHERE relid = '$dt'::regclass))) ab";
}

# crash and come back: nothing runs after the immediate stop, recovery replays the WAL
sub crash_and_restart
{
	my ($db) = @_;
	$node->stop('immediate');
	$node->start;
	wait_for_decoder($db);
}

# the slot's confirmed_flush as last written to disk (pg_replslot/<slot>/state; PG 15 layout:
# 16 bytes of header, then name (64), database, persistency, xmin, catalog_xmin (4 each),
# restart_lsn, invalidated_at, confirmed_flush (8 each))
sub persisted_confirmed_flush
{
	my ($slot) = @_;
	my $state = slurp_file($node->data_dir . "/pg_replslot/$slot/state");
	my $lsn = unpack('x112 Q<', $state);
	return sprintf('%X/%X', $lsn >> 32, $lsn & 0xffffffff);
}

# a < b for LSNs written as X/Y (works while the server is down)
sub lsn_lt
{
	my ($a, $b) = @_;
	my @a = map { hex } split m{/}, $a;
	my @b = map { hex } split m{/}, $b;
	return $a[0] < $b[0] || ($a[0] == $b[0] && $a[1] < $b[1]);
}

# the extension in postgres, its decoder running; returns the slot's name
sub create_extension
{
	$node->safe_psql('postgres', 'CREATE EXTENSION dynview');
	wait_for_decoder('postgres');
	my $slot = $node->safe_psql('postgres',
		"SELECT 'dynview_' || oid FROM pg_database WHERE datname = current_database()");
	is($node->safe_psql('postgres',
			"SELECT plugin FROM pg_replication_slots WHERE slot_name = '$slot'"),
		'dynview', $node->name . ': the decoder created its slot');
	return $slot;
}

# ---- a. crash right after a large transaction ------------------------------------------------

$node = new_node('capture_a');
create_extension();

$node->safe_psql(
	'postgres', q{
CREATE TABLE big (id int PRIMARY KEY, v int);
INSERT INTO big VALUES (0, 0);   -- before tracking: seen by the initial build
SELECT dynview.create_dynamic_table('big_dt', 'SELECT id, v FROM big', schedule => 'manual');
});
my $big_buffer = buffer_of('postgres', 'big');
my $big_after = after_build($big_buffer, 'big_dt');

# Round 1 crashes at once (the decoder has at most begun reading the transaction); round 2 lets
# it work a moment first (reading, decoding or writing the batch, or done).
for my $round (1, 2)
{
	my $lo = ($round - 1) * 200000 + 1;
	my $hi = $round * 200000;
	$node->safe_psql('postgres',
		"INSERT INTO big SELECT g, g % 1000 FROM generate_series($lo, $hi) g");
	usleep(300_000) if $round == 2;
	crash_and_restart('postgres');
	my $caught_up = caught_up('postgres', "a.$round");
	is( $node->safe_psql(
			'postgres', qq{
SELECT count(*), count(*) FILTER (WHERE dv_weight = 1), count(DISTINCT (dv_xid, dv_seq)),
       count(DISTINCT id), count(DISTINCT dv_xid), min(id), max(id)
  FROM $big_after}),
		join('|', $hi, $hi, $hi, $hi, $round, 1, $hi),
		"a.$round: the buffer holds each of the ${hi} inserted rows once, weight +1");
	is( $node->safe_psql(
			'postgres', qq{
SELECT count(*) FROM (SELECT dv_xid, min(dv_seq), max(dv_seq), count(*) FROM $big_after
                       GROUP BY dv_xid HAVING min(dv_seq) <> 0 OR max(dv_seq) <> 199999) s}),
		'0',
		"a.$round: each transaction's ordinals are 0 .. 199999");
	last unless $caught_up;    # the decoder is stuck: the next round would only wait again
}
SKIP:
{
	skip 'a: the decoder did not catch up', 3 unless $node->safe_psql('postgres',
		"SELECT dynview.wait_for_capture('1 second')") eq 't';
	is($node->safe_psql('postgres', "SELECT state FROM dynview.refresh('big_dt')"),
		'SUCCEED', 'a: refresh big_dt');
	is($node->safe_psql('postgres', "SELECT dynview.verify('big_dt')"), 't', 'a: verify big_dt');
	is($node->safe_psql('postgres', 'SELECT count(*) FROM big_dt'), '400001', 'a: big_dt has every row');
}
$node->stop('immediate');

# ---- b. crash while many small transactions are committed and decoded -------------------------

$node = new_node('capture');
my $slot = create_extension();

$node->safe_psql(
	'postgres', q{
CREATE TABLE many (id int PRIMARY KEY, v text);
INSERT INTO many SELECT -g, 'before' FROM generate_series(1, 100) g;   -- seen by the initial build
SELECT dynview.create_dynamic_table('many_dt', 'SELECT id, v FROM many', schedule => 'manual');
CREATE PROCEDURE many_insert(first int, n int) LANGUAGE plpgsql AS $$
BEGIN
  FOR i IN first .. first + n - 1 LOOP
    INSERT INTO many VALUES (i, 'row ' || i);
    COMMIT;
  END LOOP;
END $$;
});
my $many_buffer = buffer_of('postgres', 'many');
my $many_after = after_build($many_buffer, 'many_dt');

my $psql = $node->installed_command('psql');
for my $round (1, 2)
{
	my $first = ($round - 1) * 100000 + 1;
	my $seen = $node->safe_psql('postgres', "SELECT count(*) FROM $many_buffer");

	# The writer commits one row per transaction (up to 100000) until the server goes down.
	my ($out, $err) = ('', '');
	my $writer = IPC::Run::start(
		[
			$psql, '-XAtq', '-d', $node->connstr('postgres'),
			'-c', "CALL many_insert($first, 100000)"
		],
		'<', \undef, '>', \$out, '2>', \$err);

	# crash once the decoder has written some of them (it is busy writing batches then)
	$node->poll_query_until('postgres',
		"SELECT count(*) >= $seen + 1000 FROM $many_buffer")
	  or die "b.$round: the decoder wrote nothing";
	crash_and_restart('postgres');
	$writer->finish;
	note "b.$round: the writer committed "
	  . $node->safe_psql('postgres', "SELECT count(*) FROM many WHERE id >= $first")
	  . " rows before the crash";

	caught_up('postgres', "b.$round");
	is( $node->safe_psql(
			'postgres', qq{
SELECT count(*), count(*) FILTER (WHERE dv_weight = 1), count(DISTINCT id), count(DISTINCT dv_xid),
       count(*) FILTER (WHERE dv_seq <> 0), count(*) FILTER (WHERE id < 0)
  FROM $many_after}),
		join('|', (scalar $node->safe_psql('postgres', 'SELECT count(*) FROM many WHERE id > 0')) x 4, 0, 0),
		"b.$round: every committed row once, one transaction each, none from before tracking");
	is( $node->safe_psql(
			'postgres', qq{
SELECT count(*) FROM (SELECT id, v FROM many WHERE id > 0
                      EXCEPT ALL SELECT id, v FROM $many_after) s},
		),
		'0',
		"b.$round: the buffer rows are the source rows");
}

# ---- c. restart with the slot behind decoder_state ------------------------------------------

# a source of its own, so that what happened to the others does not count here
$node->safe_psql(
	'postgres', q{
CREATE TABLE steady (id int PRIMARY KEY, v text);
INSERT INTO steady SELECT -g, 'before' FROM generate_series(1, 10) g;   -- seen by the initial build
SELECT dynview.create_dynamic_table('steady_dt', 'SELECT id, v FROM steady', schedule => 'manual');
});
my $steady_buffer = buffer_of('postgres', 'steady');
my $steady_after = after_build($steady_buffer, 'steady_dt');

# every row of steady committed since tracking began is in the buffer once, weight +1
my $steady_exact = qq{
SELECT (SELECT count(*) FROM steady WHERE id > 0) = count(*) AND count(*) = count(DISTINCT id)
       AND count(*) = count(*) FILTER (WHERE dv_weight = 1)
       AND NOT EXISTS (SELECT id, v FROM steady WHERE id > 0 EXCEPT ALL SELECT id, v FROM $steady_after)
  FROM $steady_after};

# Capture a few transactions after the slot was last saved, so that its persisted confirmed
# position is behind decoded_lsn; if a save got in between (a running-xacts record from the
# checkpointer or the background writer lets the slot advance and be saved), try again.
my ($decoded, $persisted);
for my $try (1 .. 5)
{
	$node->safe_psql('postgres', 'CHECKPOINT');
	for my $i (1 .. 3)
	{
		my $lo = $try * 1000 + $i * 100;
		$node->safe_psql('postgres',
			"INSERT INTO steady SELECT g, 'before the stop' FROM generate_series($lo, $lo + 49) g");
		caught_up('postgres', "c: batch $try.$i");
	}
	$decoded = $node->safe_psql('postgres', 'SELECT decoded_lsn FROM dynview.decoder_state');
	$persisted = persisted_confirmed_flush($slot);
	last if lsn_lt($persisted, $decoded);
	note "c: try $try: the slot was saved at $persisted, decoded $decoded; again";
}
is($node->safe_psql('postgres', $steady_exact), 't', 'c: before the stop, every row once');
$node->stop('immediate');
$persisted = persisted_confirmed_flush($slot);
ok(lsn_lt($persisted, $decoded),
	"c: the slot's persisted confirmed position $persisted is behind decoded_lsn $decoded");
$node->start;
wait_for_decoder('postgres');
$node->safe_psql('postgres',
	"INSERT INTO steady SELECT g, 'after the stop' FROM generate_series(10001, 11000) g");
caught_up('postgres', 'c: after the immediate stop');
is($node->safe_psql('postgres', $steady_exact), 't',
	'c: after the immediate stop, every row once (those decoded again are skipped)');

# a clean restart (the shutdown checkpoint saves the slot), then inserts, updates and deletes
$node->restart;
wait_for_decoder('postgres');
my $mark = $node->safe_psql('postgres', 'SELECT pg_current_wal_lsn()');
$node->safe_psql(
	'postgres', q{
INSERT INTO steady SELECT g, 'after the restart' FROM generate_series(20001, 21000) g;
UPDATE steady SET v = 'updated' WHERE id BETWEEN 10001 AND 10010;
DELETE FROM steady WHERE id BETWEEN 10011 AND 10020;
});
caught_up('postgres', 'c: after the clean restart');
is( $node->safe_psql(
		'postgres', qq{
SELECT count(*), count(DISTINCT dv_xid), count(*) FILTER (WHERE dv_weight = 1 AND v = 'after the restart'),
       count(*) FILTER (WHERE dv_weight = -1 AND v = 'after the stop'),
       count(*) FILTER (WHERE dv_weight = 1 AND v = 'updated'), count(DISTINCT (dv_xid, dv_seq))
  FROM $steady_buffer WHERE dv_commit_lsn > '$mark'}),
	'1030|3|1000|20|10|1030',
	'c: after the clean restart, the inserts, updates and deletes once each');
is( $node->safe_psql(
		'postgres', qq{
SELECT sum(dv_weight) = (SELECT count(*) FROM steady WHERE id > 0),
       NOT EXISTS (SELECT id, v FROM $steady_after GROUP BY id, v HAVING sum(dv_weight) NOT IN (0, 1))
  FROM $steady_after}),
	't|t', 'c: the weights add up to the source');

# the dynamic tables are right after all that
for my $dt ('steady_dt', 'many_dt')
{
	is($node->safe_psql('postgres', "SELECT state FROM dynview.refresh('$dt')"),
		'SUCCEED', "c: refresh $dt");
	is($node->safe_psql('postgres', "SELECT dynview.verify('$dt')"), 't', "c: verify $dt");
}
is( $node->safe_psql(
		'postgres',
		'SELECT (SELECT count(*) FROM steady_dt) = (SELECT count(*) FROM steady), (SELECT count(*) FROM many_dt) = (SELECT count(*) FROM many)'
	),
	't|t',
	'c: the dynamic tables have every row of their sources');

# ---- d. DROP EXTENSION and DROP DATABASE -----------------------------------------------------

# another database with the extension and a tracked source, dropped as a whole
$node->safe_psql('postgres', 'CREATE DATABASE dropme');
$node->safe_psql('dropme', 'CREATE EXTENSION dynview');
$node->safe_psql(
	'dropme', q{
CREATE TABLE s (id int PRIMARY KEY);
SELECT dynview.create_dynamic_table('s_dt', 'SELECT id FROM s', schedule => 'manual');
INSERT INTO s SELECT generate_series(1, 100);
});
caught_up('dropme', 'd: dropme');
my $dropme_oid = $node->safe_psql('postgres', "SELECT oid FROM pg_database WHERE datname = 'dropme'");
is($node->safe_psql('postgres',
		"SELECT count(*) FROM pg_replication_slots WHERE slot_name = 'dynview_$dropme_oid'"),
	'1', 'd: dropme has its slot');
$node->safe_psql('postgres', 'DROP DATABASE dropme');
is($node->safe_psql('postgres', "SELECT count(*) FROM pg_database WHERE datname = 'dropme'"),
	'0', 'd: DROP DATABASE of a database with the extension');
ok( $node->poll_query_until(
		'postgres', qq{
SELECT NOT EXISTS (SELECT FROM pg_replication_slots WHERE slot_name = 'dynview_$dropme_oid')
   AND NOT EXISTS (SELECT FROM pg_stat_activity WHERE backend_type = 'dynview decoder' AND datid = $dropme_oid)}
	),
	'd: the dropped database has no slot and no decoder');

# DROP EXTENSION in postgres
$node->safe_psql('postgres', 'DROP EXTENSION dynview CASCADE');
ok( $node->poll_query_until(
		'postgres',
		"SELECT NOT EXISTS (SELECT FROM pg_replication_slots WHERE slot_name = '$slot')"),
	'd: DROP EXTENSION drops the slot');
ok( $node->poll_query_until(
		'postgres',
		"SELECT NOT EXISTS (SELECT FROM pg_stat_activity WHERE backend_type = 'dynview decoder')"),
	'd: no dynview decoder remains');
is($node->safe_psql('postgres',
		"SELECT count(*) FROM pg_class WHERE relname LIKE 'changes\\_%' AND relnamespace::regnamespace::text = 'dynview_buffer'"),
	'0', 'd: the buffers are gone');

# and after a restart nothing comes back
# (the launcher probes every database at start: a probe exits at once where there is no extension)
$node->restart;
ok( $node->poll_query_until(
		'postgres', q{
SELECT NOT EXISTS (SELECT FROM pg_replication_slots WHERE slot_name LIKE 'dynview\_%')
   AND NOT EXISTS (SELECT FROM pg_stat_activity WHERE backend_type = 'dynview decoder')}),
	'd: after a restart, no slot and no decoder');

$node->stop;
done_testing();
