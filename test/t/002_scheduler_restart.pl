
# The scheduler keeps dynamic tables fresh across a clean restart and a crash (issue 5): after the
# server comes back, scheduled refreshes continue (trigger SYSTEM_SCHEDULED), every table is right
# (verify), and the change buffers hold each change once.  Assertions are exact and hold whatever
# the moment of the crash; waits are bounded polls.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

use FindBin;
use lib $FindBin::RealBin;
use DynviewNode;

my $node = dynview_node('sched');
$node->safe_psql(
	'postgres', q{
SET client_min_messages = warning;
CREATE TABLE orders (id int PRIMARY KEY, grp int, amount int);
INSERT INTO orders SELECT g, g % 5, g FROM generate_series(1, 100) g;
SELECT dynview.create_dynamic_table('detail', 'SELECT id, grp, amount FROM orders WHERE amount > 10', schedule => '1 second');
SELECT dynview.create_dynamic_table('totals', 'SELECT grp, count(*) AS n, sum(amount) AS s FROM detail GROUP BY grp', schedule => '1 second');
});

# the totals equal the query on the source, through both layers
sub fresh_and_right
{
	my ($what) = @_;
	my $expected = $node->safe_psql('postgres',
		q{SELECT string_agg(grp || ':' || n || ':' || s, ',' ORDER BY grp) FROM
		  (SELECT grp, count(*) AS n, sum(amount) AS s FROM orders WHERE amount > 10 GROUP BY grp) q});
	ok( $node->poll_query_until(
			'postgres',
			qq{SELECT coalesce(string_agg(grp || ':' || n || ':' || s, ',' ORDER BY grp), '') = '$expected' FROM totals}),
		"$what: the scheduler brought the totals up to date");
	is($node->safe_psql('postgres', q{SELECT dynview.verify('detail') AND dynview.verify('totals')}),
		't', "$what: verify() after the scheduled refreshes");
}

$node->safe_psql('postgres', q{INSERT INTO orders SELECT g, g % 5, g FROM generate_series(101, 200) g});
fresh_and_right('before any restart');

# a clean restart
$node->safe_psql('postgres', q{UPDATE orders SET amount = amount + 1 WHERE id % 3 = 0});
$node->restart;
$node->safe_psql('postgres', q{DELETE FROM orders WHERE id % 7 = 0});
fresh_and_right('after a clean restart');
# the decoder started after the restart registers the database itself: cdc_status names its pid
is( $node->safe_psql(
		'postgres', q{SELECT decoder_pid = (SELECT pid FROM pg_stat_activity WHERE backend_type = 'dynview decoder')
		  FROM dynview.cdc_status WHERE source IS NULL AND decoder_state = 'RUNNING'}),
	't', 'after a clean restart: cdc_status.decoder_pid is the running decoder');

# crashes while the scheduler refreshes under a stream of writes
for my $round (1 .. 3)
{
	$node->safe_psql('postgres',
		qq{INSERT INTO orders SELECT g, g % 5, g FROM generate_series(1000 * $round, 1000 * $round + 300) g});
	$node->safe_psql('postgres', q{UPDATE orders SET grp = (grp + 1) % 5 WHERE id % 11 = 0});
	$node->stop('immediate');
	$node->start;
	$node->safe_psql('postgres', qq{INSERT INTO orders VALUES (900000 + $round, 1, 50)});
	fresh_and_right("after crash $round");
}

# scheduled refreshes happened after the last start
ok($node->safe_psql('postgres',
		q{SELECT count(*) > 0 FROM dynview.refresh_history WHERE refresh_trigger = 'SYSTEM_SCHEDULED'
		    AND start_time > pg_postmaster_start_time()}) eq 't',
	'scheduled refreshes continue after the restarts');
# no duplicated change: each buffered (transaction, ordinal) of the source once
my $buffer = $node->safe_psql('postgres',
	q{SELECT buffer_relid::regclass FROM dynview.source_tracking WHERE source_relid = 'orders'::regclass});
is( $node->safe_psql(
		'postgres', qq{SELECT count(*) FROM (SELECT dv_xid, dv_seq FROM $buffer
		  GROUP BY 1, 2 HAVING count(*) > 1) d}),
	'0', 'no change is buffered twice');

$node->stop;
done_testing();
