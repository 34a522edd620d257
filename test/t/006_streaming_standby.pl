# Streaming standbys serve dynamic tables (issue 16): a dynamic table is an ordinary WAL-logged
# table, so a hot standby on loopback reads exactly the primary's contents after each refresh
# (incremental and FULL), while dynview's workers do not run there (they start at the end of
# recovery) and the standby holds no dynview slot.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

use FindBin;
use lib $FindBin::RealBin;
use DynviewNode;

my $primary = dynview_node('primary');
$primary->safe_psql(
	'postgres', q{
SET client_min_messages = warning;
CREATE TABLE orders (id int PRIMARY KEY, customer int, amount numeric(10,2));
INSERT INTO orders SELECT g, g % 7, g * 1.5 FROM generate_series(1, 200) g;
SELECT dynview.create_dynamic_table('customer_totals',
  'SELECT customer, count(*) AS n, sum(amount) AS total FROM orders GROUP BY customer', schedule => 'manual');
SELECT dynview.create_dynamic_table('top_customers',
  'SELECT customer, total, rank() OVER (ORDER BY total DESC) AS r FROM customer_totals', schedule => 'manual');
});

$primary->backup('backup');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'backup', has_streaming => 1);
$standby->start;

my $contents = q{SELECT string_agg(t::text, ',' ORDER BY t::text) FROM (
                   SELECT 'c' AS k, customer, n::numeric, total FROM customer_totals
                   UNION ALL SELECT 't', customer, r::numeric, total FROM top_customers) t};

# after each step: the standby reads what the primary reads
sub same_on_standby
{
	my ($what) = @_;
	$primary->wait_for_catchup($standby);
	is($standby->safe_psql('postgres', $contents), $primary->safe_psql('postgres', $contents),
		"$what: the standby reads the primary's dynamic tables");
	is($primary->safe_psql('postgres', q{SELECT dynview.verify('customer_totals') AND dynview.verify('top_customers')}),
		't', "$what: verify() on the primary");
}

same_on_standby('after creation');

$primary->safe_psql('postgres',
	q{INSERT INTO orders SELECT g, g % 7, g FROM generate_series(201, 260) g;
	  UPDATE orders SET amount = amount + 1 WHERE id % 5 = 0;
	  DELETE FROM orders WHERE id % 11 = 0});
is($primary->safe_psql('postgres', q{SELECT state FROM dynview.refresh('top_customers')}),
	'SUCCEED', 'the pipeline refreshed');
is( $primary->safe_psql(
		'postgres', q{SELECT refresh_mode FROM dynview.refresh_history('customer_totals', 1)}),
	'INCREMENTAL', 'the aggregate layer refreshed incrementally');
same_on_standby('after an incremental refresh');

# the scheduler on the primary: the standby follows without any action
$primary->safe_psql('postgres',
	q{SELECT dynview.alter_dynamic_table('top_customers', schedule => '1 second');
	  INSERT INTO orders VALUES (1000, 3, 99.99)});
ok( $primary->poll_query_until(
		'postgres', q{SELECT total = (SELECT sum(amount) FROM orders WHERE customer = 3)
		              FROM customer_totals WHERE customer = 3}),
	'the scheduler refreshed on the primary');
same_on_standby('after a scheduled refresh');

# the standby runs no dynview worker and has no slot of its own; it refuses refreshes
is( $standby->safe_psql(
		'postgres', q{SELECT count(*) FROM pg_stat_activity WHERE backend_type LIKE 'dynview%'}),
	'0', 'no dynview worker runs on the standby');
is($standby->safe_psql('postgres', q{SELECT count(*) FROM pg_replication_slots}),
	'0', 'the standby has no replication slot');
my ($out, $err);
$standby->psql('postgres', q{SELECT dynview.refresh('customer_totals')}, stdout => \$out, stderr => \$err);
like($err, qr/ERROR:  .*read-only transaction|recovery/, 'a refresh on the standby fails (read-only)');

$standby->stop;
$primary->stop;
done_testing();
