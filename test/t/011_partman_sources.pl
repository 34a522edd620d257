
# A pg_partman-managed partitioned source (issue 15): while clients insert, move rows between
# partitions (updates of the partition key), update and delete, pg_partman's maintenance creates
# new partitions (CREATE TABLE + ATTACH PARTITION of an empty table) and other clients refresh the
# dynamic tables reading the partitioned table.  After each round every dynamic table is exact
# (verify), and every refresh after creation was INCREMENTAL or NO_DATA (never FULL).
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

use FindBin;
use lib $FindBin::RealBin;
use DynviewNode;

my $node = dynview_init('partman');
$node->start;

my $sharedir = $node->config_data('--sharedir');
if (!-e "$sharedir/extension/pg_partman.control")
{
	plan skip_all => 'pg_partman is not installed (Debian package postgresql-15-partman)';
}

$node->safe_psql('postgres', 'CREATE EXTENSION dynview');
$node->safe_psql('postgres', q{SELECT dynview.wait_for_capture('60 seconds')});
$node->safe_psql(
	'postgres', q{
SET client_min_messages = warning;
CREATE SCHEMA partman;
CREATE EXTENSION pg_partman SCHEMA partman;
CREATE TABLE pm_customers (id int PRIMARY KEY, name text);
INSERT INTO pm_customers SELECT g, 'customer ' || g FROM generate_series(1, 20) g;
CREATE SEQUENCE pm_order_ids;
CREATE TABLE pm_orders (order_id bigint NOT NULL, bucket int NOT NULL, customer int NOT NULL,
                        amount numeric(10,2) NOT NULL) PARTITION BY RANGE (bucket);
CREATE INDEX ON pm_orders (order_id);
SELECT partman.create_parent('public.pm_orders', 'bucket', 'native', '10', p_premake => 2,
                             p_start_partition => '0');
INSERT INTO pm_orders SELECT nextval('pm_order_ids'), g % 30, 1 + g % 20, g FROM generate_series(1, 300) g;
SELECT dynview.create_dynamic_table('pm_totals',
  'SELECT customer, count(*) AS n, sum(amount) AS total FROM pm_orders GROUP BY customer',
  schedule => 'manual', refresh_mode => 'incremental');
SELECT dynview.create_dynamic_table('pm_rows',
  'SELECT o.order_id, o.bucket, c.name, o.amount FROM pm_orders o JOIN pm_customers c ON c.id = o.customer WHERE o.amount > 50',
  schedule => 'manual', refresh_mode => 'incremental');
SELECT dynview.create_dynamic_table('pm_buckets',
  'SELECT bucket, count(*) AS n, max(amount) AS top FROM pm_orders GROUP BY bucket',
  schedule => 'manual', refresh_mode => 'incremental');
});
my $partitions_before = $node->safe_psql('postgres',
	q{SELECT count(*) FROM pg_inherits WHERE inhparent = 'pm_orders'::regclass});
# where each of the first 300 orders was at the start (its partition), to see rows move
$node->safe_psql('postgres',
	q{CREATE TABLE pm_start AS SELECT order_id, tableoid::regclass::text AS part FROM pm_orders});
my $made_during_writes = 0;

my %scripts = (
	'pm_insert@6' => q{
\set b random(0, :maxb - 1)
\set c random(1, 20)
\set a random(1, 100000)
INSERT INTO pm_orders VALUES (nextval('pm_order_ids'), :b, :c, :a / 100.0);
},
	'pm_move@3' => q{
\set b random(0, :maxb - 1)
\set o random(1, :maxo)
UPDATE pm_orders SET bucket = :b, amount = amount + 1 WHERE order_id = :o;
},
	'pm_update@2' => q{
\set c random(1, 20)
\set o random(1, :maxo)
UPDATE pm_orders SET customer = :c WHERE order_id = :o;
},
	'pm_delete@1' => q{
\set o random(1, :maxo)
DELETE FROM pm_orders WHERE order_id = :o;
},
	'pm_maintenance@1' => q{
BEGIN;
SELECT pg_advisory_xact_lock(15);
SELECT partman.run_maintenance('public.pm_orders');
COMMIT;
},
	'pm_refresh@2' => q{
SELECT dynview.refresh('pm_totals');
SELECT dynview.refresh('pm_rows');
SELECT dynview.refresh('pm_buckets');
},);

for my $round (1 .. 4)
{
	# partitions exist for buckets below 10 * (round + 2): the maintenance of the round before
	# saw rows up to 10 * (round + 1) - 1 and made two partitions ahead
	my $maxb = 10 * ($round + 2);
	my $maxo = $node->safe_psql('postgres', q{SELECT last_value FROM pm_order_ids});
	my %files = map { ("r${round}_$_" => $scripts{$_}) } keys %scripts;
	my $count_sql = q{SELECT count(*) FROM pg_inherits WHERE inhparent = 'pm_orders'::regclass};
	my $before_run = $node->safe_psql('postgres', $count_sql);
	$node->pgbench(
		"--no-vacuum --client=4 --jobs=2 --time=4 --max-tries=50 -D maxb=$maxb -D maxo=$maxo",
		0,
		[qr{processed: [1-9]}],
		[qr{}],
		"round $round: writers, pg_partman maintenance and refreshes ran without errors",
		\%files);
	# partitions pg_partman made while the writers and refreshes ran (not by the call below)
	$made_during_writes += $node->safe_psql('postgres', $count_sql) - $before_run;
	$node->safe_psql('postgres', q{SELECT partman.run_maintenance('public.pm_orders')});
	$node->safe_psql('postgres', q{SELECT dynview.refresh(t) FROM unnest(ARRAY['pm_totals', 'pm_rows', 'pm_buckets']) t});
	is( $node->safe_psql('postgres',
			q{SELECT dynview.verify('pm_totals') AND dynview.verify('pm_rows') AND dynview.verify('pm_buckets')}),
		't',
		"round $round: every dynamic table is exact");
}

my $partitions_after = $node->safe_psql('postgres',
	q{SELECT count(*) FROM pg_inherits WHERE inhparent = 'pm_orders'::regclass});
ok($partitions_after > $partitions_before,
	"pg_partman created partitions meanwhile ($partitions_before -> $partitions_after)");
ok($made_during_writes > 0,
	"pg_partman created $made_during_writes partitions while writes and refreshes ran");
ok( $node->safe_psql('postgres',
		q{SELECT count(*) FROM pm_orders o JOIN pm_start s USING (order_id)
		   WHERE o.tableoid::regclass::text <> s.part}) > 0,
	'updates of the partition key moved rows between partitions');
is($node->safe_psql('postgres', q{SELECT count(*) FROM pm_orders_default}),
	'0', 'no row went to the default partition');
is( $node->safe_psql('postgres',
		q{SELECT count(*) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
		   WHERE i.inhparent = 'pm_orders'::regclass AND c.relreplident <> 'f'}),
	'0',
	'every partition, also those pg_partman made later, has REPLICA IDENTITY FULL');
# rows of the partitions made during the run are in the dynamic tables
ok( $node->safe_psql('postgres',
		qq{SELECT count(*) FROM pm_buckets WHERE bucket >= 30}) > 0,
	'rows of partitions created during the run reached the dynamic tables');
is( $node->safe_psql('postgres',
		q{SELECT string_agg(DISTINCT refresh_mode || coalesce(' ' || mode_reason_code, ''), ', ')
		    FROM dynview.refresh_history WHERE refresh_trigger <> 'CREATION'}),
	'INCREMENTAL, NO_DATA',
	'every refresh after creation was INCREMENTAL or NO_DATA');
ok( $node->safe_psql('postgres',
		q{SELECT count(*) FROM dynview.refresh_history WHERE refresh_mode = 'INCREMENTAL'}) >= 12,
	'incremental refreshes ran in every round');

$node->stop;
done_testing();
