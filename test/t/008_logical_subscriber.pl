# dynview on a logical-replication subscriber (issue 16): sources replicated from two OLTP
# primaries by subscriptions are captured on the subscriber like local writes (the apply
# workers' changes are decoded from the subscriber's WAL; their replication origin is not
# filtered), so dynamic tables there refresh incrementally and exactly, off the primaries.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

use FindBin;
use lib $FindBin::RealBin;
use DynviewNode;

# two primaries without dynview
my @pubs;
for my $name ('orders_primary', 'customers_primary')
{
	my $pub = PostgreSQL::Test::Cluster->new($name);
	$pub->init(allows_streaming => 'logical');
	$pub->start;
	push @pubs, $pub;
}
my ($orders_pub, $customers_pub) = @pubs;
$orders_pub->safe_psql('postgres',
	q{CREATE TABLE orders (id int PRIMARY KEY, customer int, amount numeric(10,2));
	  INSERT INTO orders SELECT g, g % 10, g FROM generate_series(1, 300) g;
	  CREATE PUBLICATION orders_pub FOR TABLE orders});
$customers_pub->safe_psql('postgres',
	q{CREATE TABLE customers (id int PRIMARY KEY, region text);
	  INSERT INTO customers SELECT g, 'r' || (g % 3) FROM generate_series(0, 9) g;
	  CREATE PUBLICATION customers_pub FOR TABLE customers});

# the analytics subscriber, with dynview
my $sub = dynview_node('subscriber');
$sub->safe_psql('postgres',
	q{CREATE TABLE orders (id int PRIMARY KEY, customer int, amount numeric(10,2));
	  CREATE TABLE customers (id int PRIMARY KEY, region text)});
my $c1 = $orders_pub->connstr . ' dbname=postgres';
my $c2 = $customers_pub->connstr . ' dbname=postgres';
$sub->safe_psql('postgres', "CREATE SUBSCRIPTION orders_sub CONNECTION '$c1' PUBLICATION orders_pub");
$sub->safe_psql('postgres', "CREATE SUBSCRIPTION customers_sub CONNECTION '$c2' PUBLICATION customers_pub");
$sub->wait_for_subscription_sync($orders_pub, 'orders_sub');
$sub->wait_for_subscription_sync($customers_pub, 'customers_sub');

$sub->safe_psql(
	'postgres', q{
SET client_min_messages = warning;
SELECT dynview.create_dynamic_table('region_totals',
  'SELECT c.region, count(*) AS n, sum(o.amount) AS total FROM orders o JOIN customers c ON c.id = o.customer GROUP BY c.region',
  schedule => 'manual');
});
my $query = q{SELECT string_agg(region || ':' || n || ':' || total, ',' ORDER BY region) FROM %s};
my $recomputed = sprintf($query,
	q{(SELECT c.region, count(*) AS n, sum(o.amount) AS total FROM orders o JOIN customers c ON c.id = o.customer GROUP BY c.region) q});

# changes on both primaries, replicated, then refreshed on the subscriber
sub replicated_and_refreshed
{
	my ($what, $expect_mode) = @_;
	$orders_pub->wait_for_catchup('orders_sub');
	$customers_pub->wait_for_catchup('customers_sub');
	# the apply workers' changes are in the change buffers before the refresh consumes them
	$sub->safe_psql('postgres', q{SELECT dynview.wait_for_capture('60 seconds')});
	is( $sub->safe_psql(
			'postgres', q{SELECT sum(buffered_changes) > 0 FROM dynview.cdc_status
			              WHERE source IN ('orders'::regclass, 'customers'::regclass)}),
		't', "$what: the replicated changes are captured on the subscriber");
	is($sub->safe_psql('postgres', q{SELECT refresh_mode FROM dynview.refresh('region_totals')}),
		$expect_mode, "$what: the refresh on the subscriber is $expect_mode");
	is($sub->safe_psql('postgres', sprintf($query, 'region_totals')),
		$sub->safe_psql('postgres', $recomputed), "$what: the totals equal the query");
	is($sub->safe_psql('postgres', q{SELECT dynview.verify('region_totals')}), 't', "$what: verify()");
}

$orders_pub->safe_psql('postgres',
	q{INSERT INTO orders SELECT g, g % 10, g FROM generate_series(301, 350) g;
	  UPDATE orders SET amount = amount + 0.5 WHERE id % 7 = 0;
	  DELETE FROM orders WHERE id % 13 = 0});
replicated_and_refreshed('orders changed on the first primary', 'INCREMENTAL');

$customers_pub->safe_psql('postgres', q{UPDATE customers SET region = 'r_new' WHERE id IN (1, 4)});
$orders_pub->safe_psql('postgres', q{INSERT INTO orders VALUES (1000, 4, 10.00)});
replicated_and_refreshed('both primaries changed', 'INCREMENTAL');

# the scheduler keeps it fresh with no manual step
$sub->safe_psql('postgres', q{SELECT dynview.alter_dynamic_table('region_totals', schedule => '1 second')});
$orders_pub->safe_psql('postgres', q{DELETE FROM orders WHERE customer = 4});
$orders_pub->wait_for_catchup('orders_sub');
ok($sub->poll_query_until('postgres', 'SELECT (' . sprintf($query, 'region_totals') . ') = (' . $recomputed . ')'),
	'the scheduler on the subscriber applies replicated changes');
is($sub->safe_psql('postgres', q{SELECT dynview.verify('region_totals')}), 't', 'verify() after scheduled refreshes');
is( $sub->safe_psql(
		'postgres', q{SELECT count(*) FROM dynview.refresh_history WHERE name = 'region_totals'::regclass
		              AND refresh_mode = 'FULL' AND refresh_trigger <> 'CREATION'}),
	'0', 'no refresh needed to recompute');

$sub->stop;
$orders_pub->stop;
$customers_pub->stop;
done_testing();
