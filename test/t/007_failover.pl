# Failover (issue 16): a standby promoted to primary starts dynview's workers (they wait for the
# end of recovery), creates the decoder's slot there (logical slots are not replicated), and
# since changes between the old primary's last capture and the new slot are not in any change
# buffer, every dynamic table's next refresh is FULL once with reason CAPTURE_RESTARTED,
# then incremental again; verify() holds throughout.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

use FindBin;
use lib $FindBin::RealBin;
use DynviewNode;

my $primary = dynview_node('old_primary');
$primary->safe_psql(
	'postgres', q{
SET client_min_messages = warning;
CREATE TABLE orders (id int PRIMARY KEY, customer int, amount int);
CREATE TABLE customers (id int PRIMARY KEY, region text);
INSERT INTO customers SELECT g, 'r' || (g % 3) FROM generate_series(0, 9) g;
INSERT INTO orders SELECT g, g % 10, g FROM generate_series(1, 100) g;
SELECT dynview.create_dynamic_table('order_detail',
  'SELECT o.id, o.amount, c.region FROM orders o JOIN customers c ON c.id = o.customer', schedule => 'manual');
SELECT dynview.create_dynamic_table('region_totals',
  'SELECT region, count(*) AS n, sum(amount) AS total FROM order_detail GROUP BY region', schedule => 'manual');
});
$primary->backup('backup');
my $standby = PostgreSQL::Test::Cluster->new('new_primary');
$standby->init_from_backup($primary, 'backup', has_streaming => 1);
$standby->start;

# changes on the old primary, refreshed there and not
$primary->safe_psql('postgres', q{INSERT INTO orders SELECT g, g % 10, g FROM generate_series(101, 150) g});
$primary->safe_psql('postgres', q{SELECT dynview.refresh('region_totals')});
# committed and replicated, but never refreshed (and maybe never captured) on the old primary
$primary->safe_psql('postgres', q{UPDATE orders SET amount = amount * 2 WHERE id % 4 = 0; DELETE FROM orders WHERE id % 9 = 0});
$primary->wait_for_catchup($standby);
$primary->stop('immediate');

$standby->promote;
$standby->safe_psql('postgres', q{SELECT dynview.wait_for_capture('60 seconds')});
ok( $standby->poll_query_until(
		'postgres', q{SELECT count(*) = 3 FROM pg_stat_activity WHERE backend_type LIKE 'dynview%'}),
	'after promotion, the launcher, decoder and scheduler run');
is( $standby->safe_psql(
		'postgres', q{SELECT slot_name || ' ' || decoder_state FROM dynview.cdc_status WHERE source IS NULL}),
	'dynview_' . $standby->safe_psql('postgres', q{SELECT oid FROM pg_database WHERE datname = 'postgres'})
	  . ' RUNNING',
	'the decoder created its slot on the new primary');

# changes after the promotion, and the first refresh: FULL, CAPTURE_RESTARTED, once per table
$standby->safe_psql('postgres', q{INSERT INTO orders VALUES (500, 1, 500); UPDATE customers SET region = 'r9' WHERE id = 2});
my $before = $standby->safe_psql('postgres', q{SELECT max(refresh_id) FROM dynview.refresh_history});
$standby->safe_psql('postgres', q{SELECT dynview.refresh('region_totals')});
is( $standby->safe_psql(
		'postgres', q{SELECT string_agg(table_name || ':' || refresh_mode || ':' || coalesce(mode_reason_code, ''), ',' ORDER BY table_name)
		              FROM dynview.refresh_history WHERE refresh_id > } . $before),
	'order_detail:FULL:CAPTURE_RESTARTED,region_totals:FULL:CAPTURE_RESTARTED',
	'the first refresh after failover is FULL with reason CAPTURE_RESTARTED');
is($standby->safe_psql('postgres', q{SELECT dynview.verify('order_detail') AND dynview.verify('region_totals')}),
	't', 'verify() after the first refresh on the new primary');

# then incremental
$standby->safe_psql('postgres', q{INSERT INTO orders VALUES (501, 2, 501); DELETE FROM orders WHERE id = 1; UPDATE customers SET region = 'r0' WHERE id = 3});
$standby->safe_psql('postgres', q{SELECT dynview.refresh('region_totals')});
is( $standby->safe_psql(
		'postgres', q{SELECT string_agg(table_name || ':' || refresh_mode, ',' ORDER BY table_name)
		              FROM (SELECT DISTINCT ON (table_name) table_name, refresh_mode FROM dynview.refresh_history
		                    ORDER BY table_name, refresh_id DESC) h}),
	'order_detail:INCREMENTAL,region_totals:INCREMENTAL', 'the next refreshes are incremental');
is($standby->safe_psql('postgres', q{SELECT dynview.verify('order_detail') AND dynview.verify('region_totals')}),
	't', 'verify() after the incremental refresh');

# the scheduler works on the new primary too
$standby->safe_psql('postgres',
	q{SELECT dynview.alter_dynamic_table('region_totals', schedule => '1 second');
	  INSERT INTO orders VALUES (502, 5, 502)});
ok( $standby->poll_query_until(
		'postgres', q{SELECT (SELECT sum(total) FROM region_totals) =
		                     (SELECT sum(o.amount) FROM orders o JOIN customers c ON c.id = o.customer)}),
	'scheduled refreshes run on the new primary');
is($standby->safe_psql('postgres', q{SELECT dynview.verify('order_detail') AND dynview.verify('region_totals')}),
	't', 'verify() after scheduled refreshes');

$standby->stop;
done_testing();
