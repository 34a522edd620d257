# Parallel pipelines (issue 16): with dynview.max_refresh_workers = 2 a pipeline that cannot
# finish (held here by a lock on its source, with dynview.lock_timeout = 0 so it waits without
# limit) does not delay an independent one: the fast table keeps being refreshed by another
# refresh worker.  With one worker the fast table would wait behind the held one.  Pipelines
# sharing a table never run at once.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

use FindBin;
use lib $FindBin::RealBin;
use DynviewNode;

my $node = dynview_node('parallel', q{
dynview.naptime = 100
dynview.lock_timeout = 0
dynview.max_refresh_workers = 2
});
$node->safe_psql(
	'postgres', q{
SET client_min_messages = warning;
CREATE TABLE slow_src (id int PRIMARY KEY, v int);
CREATE TABLE fast_src (id int PRIMARY KEY, v int);
INSERT INTO slow_src VALUES (1, 1);
INSERT INTO fast_src VALUES (1, 1);
SELECT dynview.create_dynamic_table('slow_t', 'SELECT id, v FROM slow_src', schedule => '1 second');
SELECT dynview.create_dynamic_table('slow_down', 'SELECT count(*) AS n FROM slow_t', schedule => '1 second');
SELECT dynview.create_dynamic_table('fast_t', 'SELECT id, v FROM fast_src', schedule => '1 second');
});

# hold the slow pipeline
$node->safe_psql('postgres', q{INSERT INTO slow_src VALUES (2, 2)});
my $locker = $node->background_psql('postgres');
$locker->query_safe(q{BEGIN; LOCK TABLE slow_src IN ACCESS EXCLUSIVE MODE});
ok( $node->poll_query_until(
		'postgres', q{SELECT count(*) = 1 FROM pg_stat_activity
		              WHERE backend_type = 'dynview refresh worker' AND wait_event_type = 'Lock'}),
	'a refresh worker waits for the held source');

# the independent pipeline keeps being refreshed, change after change
for my $i (2 .. 4)
{
	$node->safe_psql('postgres', "INSERT INTO fast_src VALUES ($i, $i)");
	ok($node->poll_query_until('postgres', "SELECT count(*) = $i FROM fast_t"),
		"change $i of the fast source reaches its table while the slow pipeline is held");
}
is( $node->safe_psql(
		'postgres', q{SELECT count(*) FROM dynview.refresh_history
		              WHERE name IN ('slow_t'::regclass, 'slow_down'::regclass) AND state = 'RUNNING'}),
	'2', 'the held pipeline is RUNNING (both its tables)');
is( $node->safe_psql(
		'postgres', q{SELECT count(*) FROM pg_stat_activity
		              WHERE backend_type = 'dynview refresh worker' AND wait_event_type = 'Lock'}),
	'1', 'only one worker waits: the held pipeline was not started twice');

$locker->query_safe('COMMIT');
$locker->quit;
ok( $node->poll_query_until(
		'postgres', q{SELECT (SELECT count(*) FROM slow_t) = 2 AND (SELECT n FROM slow_down) = 2}),
	'the held pipeline completes once the lock is gone');
is( $node->safe_psql(
		'postgres', q{SELECT dynview.verify('slow_t') AND dynview.verify('slow_down') AND dynview.verify('fast_t')}),
	't', 'verify() after parallel refreshes');
is( $node->safe_psql(
		'postgres', q{SELECT count(*) FROM dynview.refresh_history WHERE state NOT IN ('SUCCEED', 'RUNNING')}),
	'0', 'no refresh failed or was skipped');
ok( $node->poll_query_until(
		'postgres', q{SELECT count(*) = 0 FROM dynview.refresh_history WHERE state = 'RUNNING'}),
	'no RUNNING row is left');

# a refresh worker terminated mid-refresh: its RUNNING rows become FAILED, none stays RUNNING
$node->safe_psql('postgres', q{INSERT INTO slow_src VALUES (3, 3)});
$locker = $node->background_psql('postgres');
$locker->query_safe(q{BEGIN; LOCK TABLE slow_src IN ACCESS EXCLUSIVE MODE});
ok( $node->poll_query_until(
		'postgres', q{SELECT count(*) = 1 FROM pg_stat_activity
		              WHERE backend_type = 'dynview refresh worker' AND wait_event_type = 'Lock'}),
	'a refresh worker waits for the held source again');
# a configuration reload while a refresh worker waits reaches the launcher, the scheduler, the
# decoder and the worker; none of them crashes (the launcher once did, freeing a list twice)
$node->append_conf('postgresql.conf', "dynview.naptime = 150\n");
$node->safe_psql('postgres', 'SELECT pg_reload_conf()');
ok( $node->poll_query_until(
		'postgres', q{SELECT setting = '150' FROM pg_settings WHERE name = 'dynview.naptime'}),
	'the reload is taken');
$node->safe_psql('postgres', "INSERT INTO fast_src VALUES (5, 5)");
ok($node->poll_query_until('postgres', "SELECT count(*) = 5 FROM fast_t"),
	'refreshes go on after the reload');
unlike(slurp_file($node->logfile), qr/terminated by signal/, 'no dynview process crashed on the reload');
$node->safe_psql('postgres',
	q{SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE backend_type = 'dynview refresh worker'});
ok( $node->poll_query_until(
		'postgres', q{SELECT count(*) = 2 FROM dynview.refresh_history
		              WHERE state = 'FAILED' AND error_message LIKE '%refresh worker stopped%'}),
	'the RUNNING rows of a terminated refresh worker become FAILED');
$locker->query_safe('COMMIT');
$locker->quit;
ok( $node->poll_query_until(
		'postgres', q{SELECT (SELECT count(*) FROM slow_t) = 3 AND (SELECT n FROM slow_down) = 3}),
	'the held pipeline completes once the lock is gone (refreshed by a new worker)');
ok( $node->poll_query_until(
		'postgres', q{SELECT count(*) = 0 FROM dynview.refresh_history WHERE state = 'RUNNING'}),
	'no RUNNING row is left after the terminated worker');
is( $node->safe_psql(
		'postgres', q{SELECT dynview.verify('slow_t') AND dynview.verify('slow_down') AND dynview.verify('fast_t')}),
	't', 'verify() after the terminated worker');

$node->stop;
done_testing();
