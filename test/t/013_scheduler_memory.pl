# The scheduler's memory does not grow with the number of refreshes (issue 16): when it refreshed
# several pipelines in one look, every one after the first left its pg_stat_activity text and
# table name in TopMemoryContext (about 1.3 kB a second with a dozen 1-second tables).  The
# TopMemoryContext of the scheduler, logged by pg_log_backend_memory_contexts(), does not grow
# over 60 more scheduled refreshes.  dynview.naptime = 1 s, so that one look finds several tables due.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);

use FindBin;
use lib $FindBin::RealBin;
use DynviewNode;

my $node = dynview_node('memory', "dynview.naptime = 1000\n");
$node->safe_psql(
	'postgres', q{
SET client_min_messages = warning;
CREATE TABLE src (id int PRIMARY KEY, g int);
INSERT INTO src SELECT i, i % 4 FROM generate_series(1, 20) i;
SELECT dynview.create_dynamic_table('m' || g, format('SELECT id FROM src WHERE g = %s', g),
                                    schedule => '1 second')
  FROM generate_series(0, 3) g;
});

my $pid = $node->safe_psql('postgres',
	q{SELECT pid FROM pg_stat_activity WHERE backend_type = 'dynview scheduler'});

# the scheduler's TopMemoryContext "used" bytes, as it logs them now
sub top_used
{
	my $offset = -s $node->logfile;
	$node->safe_psql('postgres', "SELECT pg_log_backend_memory_contexts($pid)");
	for (1 .. 600)
	{
		return $1
		  if slurp_file($node->logfile, $offset) =~ /\[$pid\] LOG:  level: 0; TopMemoryContext: [^\n]*?(\d+) used/;
		usleep(100_000);
	}
	die 'the scheduler did not log its memory contexts';
}

sub scheduled
{
	return $node->safe_psql('postgres',
		q{SELECT count(*) FROM dynview.refresh_history WHERE refresh_trigger = 'SYSTEM_SCHEDULED' AND state = 'SUCCEED'});
}

# past the first looks (caches warm), then 60 refreshes more
my $n = scheduled() + 20;
ok($node->poll_query_until('postgres', qq{SELECT count(*) >= $n FROM dynview.refresh_history
	WHERE refresh_trigger = 'SYSTEM_SCHEDULED' AND state = 'SUCCEED'}), 'the scheduler refreshes');
my $before = top_used();
$n = scheduled() + 60;
ok($node->poll_query_until('postgres', qq{SELECT count(*) >= $n FROM dynview.refresh_history
	WHERE refresh_trigger = 'SYSTEM_SCHEDULED' AND state = 'SUCCEED'}), '60 more scheduled refreshes');
# (leaking, it grew by about 8 kB here; a little slack for allocations that come once)
cmp_ok(top_used() - $before, '<', 2000, 'the scheduler\'s TopMemoryContext did not grow');
is($node->safe_psql('postgres', q{SELECT bool_and(dynview.verify('m' || g)) FROM generate_series(0, 3) g}),
	't', 'verify() after the scheduled refreshes');

$node->stop;
done_testing();
