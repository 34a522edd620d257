# Publishing dynamic tables (issue 16): a dynamic table in a publication replicates to a
# subscriber like any table, and a refresh ships only the rows it changed: an incremental refresh
# and a FULL one (which writes only the difference from the old contents) both send the changed
# group's old and new row and nothing for unchanged groups (counted with a test_decoding slot on
# the publisher).  Like any table without a primary key, a published dynamic table needs
# REPLICA IDENTITY FULL for its refreshes' updates and deletes.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

use FindBin;
use lib $FindBin::RealBin;
use DynviewNode;

my $pub = dynview_node('publisher');
$pub->safe_psql(
	'postgres', q{
SET client_min_messages = warning;
CREATE TABLE orders (id int PRIMARY KEY, region text, amount int);
INSERT INTO orders SELECT g, 'r' || (g % 5), g FROM generate_series(1, 500) g;
SELECT dynview.create_dynamic_table('region_totals',
  'SELECT region, count(*) AS n, sum(amount) AS total FROM orders GROUP BY region', schedule => 'manual');
SELECT dynview.create_dynamic_table('region_totals_full',
  'SELECT region, count(*) AS n, sum(amount) AS total FROM orders GROUP BY region', schedule => 'manual',
  refresh_mode => 'full');
ALTER TABLE region_totals REPLICA IDENTITY FULL;
ALTER TABLE region_totals_full REPLICA IDENTITY FULL;
CREATE PUBLICATION totals_pub FOR TABLE region_totals, region_totals_full;
});

my $sub = PostgreSQL::Test::Cluster->new('subscriber');
$sub->init;
$sub->start;
$sub->safe_psql('postgres',
	q{CREATE TABLE region_totals (region text PRIMARY KEY, n bigint, total bigint);
	  CREATE TABLE region_totals_full (region text PRIMARY KEY, n bigint, total bigint)});
my $connstr = $pub->connstr . ' dbname=postgres';
$sub->safe_psql('postgres', "CREATE SUBSCRIPTION totals_sub CONNECTION '$connstr' PUBLICATION totals_pub");
$sub->wait_for_subscription_sync($pub, 'totals_sub');

my $contents = q{SELECT string_agg(region || ':' || n || ':' || total, ',' ORDER BY region) FROM %s};
for my $t ('region_totals', 'region_totals_full')
{
	is($sub->safe_psql('postgres', sprintf($contents, $t)), $pub->safe_psql('postgres', sprintf($contents, $t)),
		"$t: the subscriber has the initial contents");
}

# a change of one group; what each refresh writes to the WAL for its table
$pub->safe_psql('postgres', q{SELECT pg_create_logical_replication_slot('peek', 'test_decoding')});
$pub->safe_psql('postgres', q{INSERT INTO orders VALUES (1000, 'r2', 7); UPDATE orders SET amount = amount + 1 WHERE id = 12});
is($pub->safe_psql('postgres', q{SELECT refresh_mode FROM dynview.refresh('region_totals')}),
	'INCREMENTAL', 'the incremental table refreshed incrementally');
is($pub->safe_psql('postgres', q{SELECT refresh_mode FROM dynview.refresh('region_totals_full')}),
	'FULL', 'the full table refreshed in full');
$pub->safe_psql('postgres',
	q{CREATE TABLE shipped AS SELECT data FROM pg_logical_slot_get_changes('peek', NULL, NULL)
	  WHERE data LIKE 'table public.region_totals%'});
for my $t ('region_totals', 'region_totals_full')
{
	is( $pub->safe_psql(
			'postgres', qq{SELECT count(*) FILTER (WHERE data LIKE '%region[text]:''r2''%') || ' '
			               || count(*) FILTER (WHERE data NOT LIKE '%region[text]:''r2''%')
			               FROM shipped WHERE data LIKE 'table public.$t:%'}),
		'2 0', "$t: its refresh wrote only the changed group (old and new row), nothing else");
}
$pub->safe_psql('postgres', q{SELECT pg_drop_replication_slot('peek')});

$pub->wait_for_catchup('totals_sub');
for my $t ('region_totals', 'region_totals_full')
{
	is($sub->safe_psql('postgres', sprintf($contents, $t)), $pub->safe_psql('postgres', sprintf($contents, $t)),
		"$t: the subscriber has the refreshed contents");
	is($pub->safe_psql('postgres', "SELECT dynview.verify('$t')"), 't', "$t: verify() on the publisher");
}

# scheduled refreshes replicate too, including a group that disappears
$pub->safe_psql('postgres',
	q{SELECT dynview.alter_dynamic_table('region_totals', schedule => '1 second');
	  DELETE FROM orders WHERE region = 'r4'});
ok( $pub->poll_query_until(
		'postgres', q{SELECT count(*) = 0 FROM region_totals WHERE region = 'r4'}),
	'the scheduler refreshed the published table');
$pub->wait_for_catchup('totals_sub');
is( $sub->safe_psql('postgres', sprintf($contents, 'region_totals')),
	$pub->safe_psql('postgres', sprintf($contents, 'region_totals')),
	'the subscriber follows scheduled refreshes');

$sub->stop;
$pub->stop;
done_testing();
