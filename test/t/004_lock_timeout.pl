# One session holding a lock on one source must not stall the scheduler (issue 16): scheduled
# refreshes wait at most dynview.lock_timeout for a lock, record SKIPPED with reason LOCK_TIMEOUT
# (not a failure: no suspension), and the scheduler goes on with the other pipelines; once the
# lock is gone the table catches up.  Waits are bounded polls on what the scheduler did.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

use FindBin;
use lib $FindBin::RealBin;
use DynviewNode;

my $node = dynview_node('lock_timeout', q{
dynview.naptime = 100
dynview.lock_timeout = 200
dynview.max_consecutive_failures = 2
});
$node->safe_psql(
	'postgres', q{
SET client_min_messages = warning;
CREATE TABLE src_locked (id int PRIMARY KEY, v int);
CREATE TABLE src_free (id int PRIMARY KEY, v int);
INSERT INTO src_locked VALUES (1, 10);
INSERT INTO src_free VALUES (1, 10);
SELECT dynview.create_dynamic_table('d_locked', 'SELECT id, v FROM src_locked', schedule => '1 second');
SELECT dynview.create_dynamic_table('d_down', 'SELECT count(*) AS n, sum(v) AS s FROM d_locked', schedule => '1 second');
SELECT dynview.create_dynamic_table('d_free', 'SELECT id, v FROM src_free', schedule => '1 second');
});

# a session holds an ACCESS EXCLUSIVE lock on one source, as LOCK TABLE or ALTER TABLE do
$node->safe_psql('postgres', q{INSERT INTO src_locked VALUES (2, 20)});
my $locker = $node->background_psql('postgres');
$locker->query_safe(q{BEGIN; LOCK TABLE src_locked IN ACCESS EXCLUSIVE MODE});

# the other pipeline goes on: a change of its source reaches its table while the lock is held
$node->safe_psql('postgres', q{INSERT INTO src_free VALUES (2, 20)});
ok( $node->poll_query_until(
		'postgres', q{SELECT count(*) = 2 FROM d_free}),
	'the scheduler refreshes another pipeline while a source of one is locked');
ok( $node->poll_query_until(
		'postgres', q{SELECT count(*) > 0 FROM dynview.refresh_history
		              WHERE name = 'd_locked'::regclass AND state = 'SKIPPED'
		                AND mode_reason_code = 'LOCK_TIMEOUT'
		                AND mode_reason LIKE 'A lock was not granted within dynview.lock_timeout (200 ms)%'}),
	'the blocked refresh is recorded SKIPPED with reason LOCK_TIMEOUT');
# skipped as often as it was tried, never counted as failures (max_consecutive_failures = 2)
ok( $node->poll_query_until(
		'postgres', q{SELECT count(*) >= 3 FROM dynview.refresh_history
		              WHERE name = 'd_locked'::regclass AND state = 'SKIPPED'}),
	'the blocked table is retried at every cycle');
is( $node->safe_psql(
		'postgres', q{SELECT bool_and(end_time - start_time >= interval '200 ms'
		                       AND duration_ms >= 200)
		              FROM dynview.refresh_history WHERE name = 'd_locked'::regclass AND state = 'SKIPPED'}),
	't', 'a SKIPPED row spans the wait: it starts when the refresh was announced, not when it was given up');
is( $node->safe_psql(
		'postgres', q{SELECT scheduling_state || ' ' || consecutive_failures || ' ' || last_refresh_state
		              FROM dynview.dynamic_tables WHERE name = 'd_locked'::regclass}),
	'ACTIVE 0 SKIPPED', 'a skipped refresh is no failure: the table stays ACTIVE');
is( $node->safe_psql(
		'postgres', q{SELECT count(*) FROM dynview.refresh_history
		              WHERE state IN ('FAILED', 'UPSTREAM_FAILED')}),
	'0', 'no refresh failed');
# the free table stays fresh, on its own schedule, while the lock is held
$node->safe_psql('postgres', q{INSERT INTO src_free VALUES (3, 30)});
ok($node->poll_query_until('postgres', q{SELECT count(*) = 3 FROM d_free}),
	'the other pipeline keeps being refreshed');

# A manual refresh waits for a locked source once, for lock_timeout, and fails with its error.
# It used to wait three times: the lock timeout in the definition's analysis was taken for a
# definition that no longer analyses, so the refresh tried the rename path and the analysis
# again.  Counted in the server log: each lock wait longer than deadlock_timeout logs one line.
my ($rc, $out, $err) = $node->psql('postgres', q{
SET log_lock_waits = on;
SET deadlock_timeout = '10ms';
SET lock_timeout = '300ms';
SELECT pg_backend_pid();
SELECT * FROM dynview.refresh('d_locked');
});
like($err, qr/canceling statement due to lock timeout/, 'a manual refresh of a locked source fails with lock timeout');
my $pid = $out;
$pid =~ s/\s+//g;
my @waits = grep { /process $pid still waiting for AccessShareLock/ } split(/\n/, slurp_file($node->logfile));
is(scalar(@waits), 1, 'the manual refresh waited for the locked source once');

$locker->query_safe('COMMIT');
$locker->quit;

# the lock is gone: the blocked table and its downstream catch up
ok( $node->poll_query_until(
		'postgres', q{SELECT (SELECT count(*) FROM d_locked) = 2 AND (SELECT n FROM d_down) = 2}),
	'after the lock is released, the skipped pipeline catches up');
is( $node->safe_psql(
		'postgres', q{SELECT dynview.verify('d_locked') AND dynview.verify('d_down') AND dynview.verify('d_free')}),
	't', 'verify() after the scheduled refreshes');
is( $node->safe_psql(
		'postgres', q{SELECT consecutive_failures FROM dynview.dynamic_tables WHERE name = 'd_locked'::regclass}),
	'0', 'no failure counted');

# A manual refresh left open in a transaction holds the table's catalog row (and its refresh
# lock): the scheduled refresh is given up after dynview.lock_timeout and its SKIPPED row is
# written while that transaction stays open.  Writing it used to wait for the row for as long as
# the transaction stayed open, and held up every other pipeline of the database meanwhile.
$node->safe_psql('postgres', q{INSERT INTO src_locked VALUES (3, 30)});
my $mark = $node->safe_psql('postgres', q{SELECT max(refresh_id) FROM dynview.refresh_history});
my $refresher = $node->background_psql('postgres');
$refresher->query_safe(q{BEGIN; SELECT dynview.refresh('d_locked')});
ok( $node->poll_query_until(
		'postgres', qq{SELECT count(*) >= 2 FROM dynview.refresh_history
		               WHERE refresh_id > $mark AND name = 'd_locked'::regclass AND state = 'SKIPPED'
		                 AND mode_reason_code = 'LOCK_TIMEOUT'}),
	'a manual refresh left open: scheduled refreshes are recorded SKIPPED while it stays open');
$node->safe_psql('postgres', q{INSERT INTO src_free VALUES (4, 40)});
ok($node->poll_query_until('postgres', q{SELECT count(*) = 4 FROM d_free}),
	'the other pipeline keeps being refreshed while the manual refresh stays open');
$refresher->query_safe('COMMIT');
$refresher->quit;
ok( $node->poll_query_until(
		'postgres', q{SELECT (SELECT count(*) FROM d_locked) = 3 AND (SELECT n FROM d_down) = 3}),
	'after the manual refresh commits, the pipeline catches up');
is( $node->safe_psql(
		'postgres', q{SELECT dynview.verify('d_locked') AND dynview.verify('d_down') AND dynview.verify('d_free')}),
	't', 'verify() after the open manual refresh');

$node->stop;
done_testing();
