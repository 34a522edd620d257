# A DBA sees what the scheduler is refreshing (issue 16): while a scheduled refresh runs, its
# refresh_history row is visible from another session in state RUNNING and pg_stat_activity of
# the scheduler names the dynamic table; when it commits, the same row (same refresh_id) holds the
# outcome.  The refresh is held deterministically: a session keeps a lock on its source
# (dynview.lock_timeout = 0 lets the scheduler wait for it).  A RUNNING row left by a crash
# becomes FAILED when the scheduler starts again.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

use FindBin;
use lib $FindBin::RealBin;
use DynviewNode;

my $node = dynview_node('visibility', q{
dynview.naptime = 100
dynview.lock_timeout = 0
});
$node->safe_psql(
	'postgres', q{
SET client_min_messages = warning;
CREATE TABLE orders (id int PRIMARY KEY, grp int, amount int);
INSERT INTO orders SELECT g, g % 3, g FROM generate_series(1, 30) g;
SELECT dynview.create_dynamic_table('order_totals',
  'SELECT grp, count(*) AS n, sum(amount) AS total FROM orders GROUP BY grp', schedule => '1 second');
});
$node->safe_psql('postgres', q{INSERT INTO orders VALUES (31, 1, 31)});

# hold the refresh: a lock on the source that its reads wait for
my $locker = $node->background_psql('postgres');
$locker->query_safe(q{BEGIN; LOCK TABLE orders IN ACCESS EXCLUSIVE MODE});

ok( $node->poll_query_until(
		'postgres', q{SELECT count(*) = 1 FROM dynview.refresh_history
		              WHERE name = 'order_totals'::regclass AND state = 'RUNNING'
		                AND refresh_trigger = 'SYSTEM_SCHEDULED' AND start_time IS NOT NULL
		                AND end_time IS NULL}),
	'another session sees the scheduled refresh RUNNING in refresh_history');
ok( $node->poll_query_until(
		'postgres', q{SELECT count(*) = 1 FROM pg_stat_activity
		              WHERE backend_type = 'dynview scheduler' AND wait_event_type = 'Lock'
		                AND query LIKE '%order_totals%'}),
	'pg_stat_activity of the scheduler names the table while it waits');
my $running_id = $node->safe_psql('postgres',
	q{SELECT refresh_id FROM dynview.refresh_history WHERE state = 'RUNNING'});
is( $node->safe_psql(
		'postgres', q{SELECT last_refresh_state FROM dynview.dynamic_tables WHERE name = 'order_totals'::regclass}),
	'SUCCEED', 'the catalog still shows the last finished refresh');

$locker->query_safe('COMMIT');
$locker->quit;

ok( $node->poll_query_until(
		'postgres', qq{SELECT state = 'SUCCEED' AND end_time IS NOT NULL FROM dynview.refresh_history
		               WHERE refresh_id = $running_id}),
	'the RUNNING row becomes the outcome, with the same refresh_id');
is($node->safe_psql('postgres', q{SELECT count(*) FROM dynview.refresh_history WHERE state = 'RUNNING'}),
	'0', 'no RUNNING row is left');
is($node->safe_psql('postgres', q{SELECT total FROM order_totals WHERE grp = 1}),
	$node->safe_psql('postgres', q{SELECT sum(amount) FROM orders WHERE grp = 1}),
	'the refresh applied the change');
is($node->safe_psql('postgres', q{SELECT dynview.verify('order_totals')}), 't', 'verify()');
ok( $node->poll_query_until(
		'postgres', q{SELECT count(*) = 1 FROM pg_stat_activity
		              WHERE backend_type = 'dynview scheduler' AND state = 'idle'}),
	'the scheduler reports idle between refreshes');

# a crash while a refresh is RUNNING: the row becomes FAILED at the scheduler's next start
$node->safe_psql('postgres', q{INSERT INTO orders VALUES (32, 2, 32)});
$locker = $node->background_psql('postgres');
$locker->query_safe(q{BEGIN; LOCK TABLE orders IN ACCESS EXCLUSIVE MODE});
ok( $node->poll_query_until(
		'postgres', q{SELECT count(*) = 1 FROM dynview.refresh_history WHERE state = 'RUNNING'}),
	'a second scheduled refresh is RUNNING');
$running_id = $node->safe_psql('postgres',
	q{SELECT refresh_id FROM dynview.refresh_history WHERE state = 'RUNNING'});
# (the scheduler commits its RUNNING rows asynchronously, scheduler.c announce: a crash within
# wal_writer_delay of that commit may lose the row, and with it what this test looks at; a
# checkpoint flushes the WAL that holds it)
$node->safe_psql('postgres', 'CHECKPOINT');
$node->stop('immediate');
$locker->{run}->kill_kill;
$node->start;
ok( $node->poll_query_until(
		'postgres', qq{SELECT state = 'FAILED' AND error_message LIKE 'The refresh was interrupted%'
		               FROM dynview.refresh_history WHERE refresh_id = $running_id}),
	'after a crash, the interrupted refresh is recorded FAILED');
ok( $node->poll_query_until(
		'postgres', q{SELECT n = (SELECT count(*) FROM orders WHERE grp = 2) FROM order_totals WHERE grp = 2}),
	'the scheduler refreshes again after the crash');
is($node->safe_psql('postgres', q{SELECT dynview.verify('order_totals')}), 't', 'verify() after the crash');

$node->stop;
done_testing();
