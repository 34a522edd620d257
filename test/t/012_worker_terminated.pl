# Terminating dynview's supervising workers leaves no orphan behind (issue 16).  A launcher that
# is terminated takes its decoders and schedulers with it: its restarted successor starts them
# anew (it once started a second decoder beside the surviving one, which failed on the slot and
# marked capture FAILED for good, failing every refresh).  A scheduler that is terminated takes
# its refresh workers with it (one once went on waiting for a lock beside the new scheduler).
# The backoff of a decoder's restarts starts over once it has run a while (it once kept doubling
# over the server's life, so that a decoder stopping now and then came back after a minute).
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

use FindBin;
use lib $FindBin::RealBin;
use DynviewNode;

my $node = dynview_node('terminated', q{
dynview.naptime = 100
dynview.lock_timeout = 0
dynview.max_refresh_workers = 2
});
$node->safe_psql(
	'postgres', q{
SET client_min_messages = warning;
CREATE TABLE src (id int PRIMARY KEY, v int);
INSERT INTO src VALUES (1, 1);
SELECT dynview.create_dynamic_table('t', 'SELECT id, v FROM src', schedule => '1 second');
});

sub pid_of
{
	my ($type) = @_;
	return $node->safe_psql('postgres',
		"SELECT coalesce(string_agg(pid::text, ','), '') FROM pg_stat_activity WHERE backend_type = '$type'");
}

# the launcher is terminated: its decoder and scheduler go too, and come back once each
my $decoder = pid_of('dynview decoder');
my $scheduler = pid_of('dynview scheduler');
$node->safe_psql('postgres',
	q{SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE backend_type = 'dynview launcher'});
ok( $node->poll_query_until(
		'postgres', qq{SELECT count(*) = 0 FROM pg_stat_activity WHERE pid IN ($decoder, $scheduler)}),
	'the decoder and the scheduler of a terminated launcher stop');
ok( $node->poll_query_until(
		'postgres', q{SELECT decoder_state = 'RUNNING' AND decoder_pid =
		                (SELECT pid FROM pg_stat_activity WHERE backend_type = 'dynview decoder')
		              FROM dynview.cdc_status WHERE source IS NULL}),
	'the restarted launcher starts one decoder, and capture runs');
ok( $node->poll_query_until(
		'postgres', q{SELECT count(*) = 1 FROM pg_stat_activity WHERE backend_type = 'dynview scheduler'}),
	'and one scheduler');
$node->safe_psql('postgres', 'INSERT INTO src VALUES (2, 2)');
ok($node->poll_query_until('postgres', 'SELECT count(*) = 2 FROM t'),
	'scheduled refreshes go on after the launcher restarted');
is($node->safe_psql('postgres', q{SELECT dynview.verify('t')}), 't', 'verify() after the launcher restarted');
# (a refresh that ran when its scheduler was terminated with the launcher is recorded as
# interrupted, as it must be; any other failure, such as a capture marked FAILED, counts)
is( $node->safe_psql(
		'postgres', q{SELECT count(*) FROM dynview.refresh_history WHERE state = 'FAILED'
		              AND error_message NOT LIKE 'The refresh was interrupted: %'}),
	'0', 'no refresh failed but those interrupted by the termination');

# the scheduler is terminated while its refresh worker waits for a lock: the worker goes too
$node->safe_psql('postgres', 'INSERT INTO src VALUES (3, 3)');
my $locker = $node->background_psql('postgres');
$locker->query_safe(q{BEGIN; LOCK TABLE src IN ACCESS EXCLUSIVE MODE});
ok( $node->poll_query_until(
		'postgres', q{SELECT count(*) = 1 FROM pg_stat_activity
		              WHERE backend_type = 'dynview refresh worker' AND wait_event_type = 'Lock'}),
	'a refresh worker waits for the held source');
my $worker = pid_of('dynview refresh worker');
$node->safe_psql('postgres',
	q{SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE backend_type = 'dynview scheduler'});
ok( $node->poll_query_until(
		'postgres', qq{SELECT count(*) = 0 FROM pg_stat_activity WHERE pid = $worker}),
	'the refresh worker of a terminated scheduler stops while the lock is still held');
ok( $node->poll_query_until(
		'postgres', q{SELECT count(*) = 1 FROM dynview.refresh_history
		              WHERE state = 'FAILED' AND error_message LIKE 'The refresh was interrupted%'}),
	'its RUNNING row becomes FAILED');
$locker->query_safe('COMMIT');
$locker->quit;
ok($node->poll_query_until('postgres', 'SELECT count(*) = 3 FROM t'),
	'the restarted scheduler refreshes the table once the lock is gone');
ok( $node->poll_query_until(
		'postgres', q{SELECT count(*) = 0 FROM dynview.refresh_history WHERE state = 'RUNNING'}),
	'no RUNNING row is left');
is($node->safe_psql('postgres', q{SELECT dynview.verify('t')}), 't', 'verify() after the scheduler restarted');
# the restart backoff doubles while the decoder keeps stopping at once, and starts over once it
# ran a while: terminated 4 times in a row (backoffs 1, 2, 4, 8 s), then after running 10 s, it
# is back after the first backoff, not after 16 s
sub terminate_decoder
{
	my $old = pid_of('dynview decoder');
	$node->safe_psql('postgres', "SELECT pg_terminate_backend($old)");
	$node->poll_query_until(
		'postgres', qq{SELECT decoder_state = 'RUNNING' AND decoder_pid <> $old
		               FROM dynview.cdc_status WHERE source IS NULL})
	  or die "the decoder did not come back";
}
terminate_decoder() for 1 .. 4;
ok( $node->poll_query_until(
		'postgres', q{SELECT backend_start < now() - interval '11 seconds' FROM pg_stat_activity
		              WHERE backend_type = 'dynview decoder'}),
	'the decoder runs for 11 seconds');
my $t0 = time;
terminate_decoder();
cmp_ok(time - $t0, '<', 16, 'a decoder that had run a while is restarted after the first backoff');

unlike(slurp_file($node->logfile), qr/terminated by signal|is active for PID/,
	'no crash, and no second decoder competing for the slot');

$node->stop;
done_testing();
