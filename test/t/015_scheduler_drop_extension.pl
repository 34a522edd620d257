
# DROP EXTENSION while the scheduler is between its check that the extension is there and a
# statement on dynview's catalogs: the statement waits for DROP EXTENSION's locks, then finds the
# catalogs gone ("relation dynview.dynamic_table_catalog does not exist") or is chosen as the
# victim of a deadlock with them.  The scheduler must leave quietly (exit code 0, no ERROR), as
# its loop does when it sees the extension gone; before, it logged the error and exited with code
# 1.  Made deterministic with a lock: a session holds dynview.dynamic_table_catalog exclusively
# until pg_locks shows the scheduler waiting for it, then drops the extension and commits.  The
# decoder may be the one waiting (or the session may lose a deadlock with it): such a round is
# done again, at most ten times.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

use FindBin;
use lib $FindBin::RealBin;
use DynviewNode;

my $node = dynview_node('dropext');
$node->safe_psql('postgres', q{CREATE TABLE dx (id int PRIMARY KEY); INSERT INTO dx VALUES (1)});

my $happened = 0;
my $log_from = 0;
for my $round (1 .. 10)
{
	$node->safe_psql('postgres', q{CREATE EXTENSION IF NOT EXISTS dynview CASCADE}) if $round > 1;
	$node->safe_psql('postgres', q{SET client_min_messages = warning; DROP TABLE IF EXISTS dx_t});
	$node->safe_psql('postgres',
		q{SELECT dynview.create_dynamic_table('dx_t', 'SELECT id FROM dx', schedule => '1 second')});
	ok( $node->poll_query_until(
			'postgres', q{SELECT count(*) = 1 FROM pg_stat_activity WHERE backend_type = 'dynview scheduler'}),
		"round $round: the scheduler runs");
	$log_from = -s $node->logfile;
	my ($ret, $out, $err) = $node->psql(
		'postgres', q{
SET client_min_messages = warning;
BEGIN;
LOCK TABLE dynview.dynamic_table_catalog IN ACCESS EXCLUSIVE MODE;
DO $$ BEGIN
  FOR i IN 1..1200 LOOP
    EXIT WHEN EXISTS (SELECT 1 FROM pg_locks l JOIN pg_stat_activity a USING (pid)
                       WHERE NOT l.granted AND l.relation = 'dynview.dynamic_table_catalog'::regclass
                         AND a.backend_type = 'dynview scheduler');
    PERFORM pg_sleep(0.05);
  END LOOP;
END $$;
SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a USING (pid)
 WHERE NOT l.granted AND a.backend_type = 'dynview scheduler';
DROP EXTENSION dynview CASCADE;
COMMIT;
}, on_error_stop => 1);
	if ($ret == 0 && $out eq '1')
	{
		$happened = 1;
		last;
	}
	note "round $round: not the case looked for (scheduler waiting: '$out', error: $err)";
}
ok($happened, 'DROP EXTENSION committed while the scheduler waited for its catalog');

# the scheduler has left; it logged no error on its way out
ok( $node->poll_query_until(
		'postgres', q{SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type = 'dynview scheduler'}),
	'the scheduler left');
my $log = substr(slurp_file($node->logfile), $log_from);
unlike($log, qr/background worker "dynview scheduler" \(PID \d+\) exited with exit code 1/,
	'the scheduler exited with code 0');
unlike($log, qr/dynamic_table_catalog" does not exist/, 'no error about the dropped catalog');

# created again: a new scheduler runs and refreshes
$node->safe_psql('postgres', q{SET client_min_messages = warning; CREATE EXTENSION dynview CASCADE; DROP TABLE dx_t});
$node->safe_psql('postgres',
	q{SELECT dynview.create_dynamic_table('dx_t', 'SELECT id FROM dx', schedule => '1 second')});
$node->safe_psql('postgres', q{INSERT INTO dx VALUES (2)});
ok($node->poll_query_until('postgres', q{SELECT count(*) = 2 FROM dx_t}),
	'after CREATE EXTENSION the scheduler refreshes again');
is($node->safe_psql('postgres', q{SELECT dynview.verify('dx_t')}), 't', 'verify() after the scheduled refresh');

$node->stop;
done_testing();
