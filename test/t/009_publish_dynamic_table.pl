# Publishing dynamic tables (issue 16): a dynamic table in a publication replicates to a
# subscriber like any table, and a refresh ships only the rows it changed: an incremental refresh
# and a FULL one (which writes only the difference from the old contents) both send the changed
# group's old and new row and nothing for unchanged groups (counted with a test_decoding slot on
# the publisher).  A published dynamic table needs REPLICA IDENTITY FULL for its refreshes'
# updates and deletes (it has no primary key): dynview sets it, with a NOTICE, when a publication
# includes it (FOR TABLE, FOR TABLES IN SCHEMA, FOR ALL TABLES; also on tables created later), and
# on its own aggregate state tables and change buffers, which FOR ALL TABLES publishes too.
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
});
my ($ret, $out, $err) = $pub->psql('postgres', 'CREATE PUBLICATION totals_pub FOR TABLE region_totals, region_totals_full');
is($ret, 0, 'CREATE PUBLICATION of two dynamic tables');
like($err, qr/dynview set REPLICA IDENTITY FULL on published dynamic table "region_totals".*dynview set REPLICA IDENTITY FULL on published dynamic table "region_totals_full"/s,
	'a NOTICE says dynview set REPLICA IDENTITY FULL on both');
is($pub->safe_psql('postgres', q{SELECT string_agg(relreplident::text, ',' ORDER BY relname) FROM pg_class
	WHERE relname IN ('region_totals', 'region_totals_full')}), 'f,f', 'both have REPLICA IDENTITY FULL');

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

# FOR TABLES IN SCHEMA and FOR ALL TABLES, on a second database: dynamic tables there, one created
# later, and dynview's own tables dynview writes rows of (aggregate state tables, change buffers),
# which FOR ALL TABLES publishes too; every refresh and the buffers' pruning go on
$pub->safe_psql('postgres', 'CREATE DATABASE alldb');
$pub->safe_psql(
	'alldb', q{
SET client_min_messages = warning;
CREATE EXTENSION dynview;
CREATE SCHEMA rep;
CREATE TABLE items (id int PRIMARY KEY, cat text, qty int);
INSERT INTO items SELECT g, 'c' || (g % 4), g FROM generate_series(1, 200) g;
SELECT dynview.create_dynamic_table('rep.cat_qty',
  'SELECT cat, sum(qty) AS s, count(*) AS n FROM items GROUP BY cat', schedule => 'manual');
SELECT dynview.create_dynamic_table('cat_minmax',
  'SELECT cat, min(qty) AS mn, max(qty) AS mx FROM items GROUP BY cat', schedule => 'manual');
});
my $identity = q{SELECT string_agg(n.nspname || '.' || c.relname || '=' || c.relreplident::text, ',' ORDER BY n.nspname, c.relname)
	FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
	WHERE c.relkind = 'r' AND (n.nspname IN ('rep', 'dynview_state', 'dynview_buffer') OR c.relname LIKE 'cat\_%')
	  AND c.relreplident <> 'f'};
is($pub->safe_psql('alldb', "SELECT count(*) > 0 FROM pg_class WHERE relnamespace = 'dynview_state'::regnamespace"),
	't', 'the min/max table has aggregate state tables');
($ret, $out, $err) = $pub->psql('alldb', 'CREATE PUBLICATION schema_pub FOR TABLES IN SCHEMA rep');
like($err, qr/REPLICA IDENTITY FULL on published dynamic table "cat_qty"/, 'TABLES IN SCHEMA: NOTICE for its dynamic table');
($ret, $out, $err) = $pub->psql('alldb',
	q{SELECT dynview.create_dynamic_table('rep.cat_later', 'SELECT cat, count(*) AS n FROM items GROUP BY cat', schedule => 'manual')});
like($err, qr/REPLICA IDENTITY FULL on published dynamic table "cat_later"/, 'a dynamic table created in the published schema gets it');
($ret, $out, $err) = $pub->psql('alldb', 'CREATE PUBLICATION all_pub FOR ALL TABLES');
like($err, qr/REPLICA IDENTITY FULL on published aggregate state table/, 'FOR ALL TABLES: NOTICE for the state tables');
like($err, qr/REPLICA IDENTITY FULL on published change buffer/, 'FOR ALL TABLES: NOTICE for the change buffer');
like($err, qr/REPLICA IDENTITY FULL on published dynamic table "cat_minmax"/, 'FOR ALL TABLES: NOTICE for the other dynamic table');
is($pub->safe_psql('alldb', $identity), '', 'every table dynview updates or deletes rows of has REPLICA IDENTITY FULL');
$pub->safe_psql('alldb', q{UPDATE items SET qty = qty + 1000 WHERE id % 7 = 0; DELETE FROM items WHERE id % 5 = 0});
for my $t ('rep.cat_qty', 'rep.cat_later', 'cat_minmax')
{
	is($pub->safe_psql('alldb', "SELECT state || ' ' || refresh_mode FROM dynview.refresh('$t')"),
		'SUCCEED INCREMENTAL', "$t: refreshed incrementally while published");
	is($pub->safe_psql('alldb', "SELECT dynview.verify('$t')"), 't', "$t: verify()");
}
# a dynamic table (with its state tables) created under FOR ALL TABLES, and a new source's buffer
$pub->safe_psql(
	'alldb', q{
SET client_min_messages = warning;
CREATE TABLE more (id int PRIMARY KEY, cat text, w int);
INSERT INTO more SELECT g, 'c' || (g % 3), g FROM generate_series(1, 50) g;
SELECT dynview.create_dynamic_table('more_max', 'SELECT cat, max(w) AS mx FROM more GROUP BY cat', schedule => 'manual');
DELETE FROM more WHERE id = 48;
});
is($pub->safe_psql('alldb', $identity), '', 'tables created under FOR ALL TABLES have REPLICA IDENTITY FULL too');
is($pub->safe_psql('alldb', q{SELECT state || ' ' || refresh_mode FROM dynview.refresh('more_max')}),
	'SUCCEED INCREMENTAL', 'more_max: refreshed incrementally');
is($pub->safe_psql('alldb', q{SELECT dynview.verify('more_max')}), 't', 'more_max: verify()');
ok( $pub->poll_query_until(
		'alldb', q{SELECT count(*) = 0 FROM dynview_buffer.changes_} . $pub->safe_psql('alldb', q{SELECT 'items'::regclass::oid})),
	'the decoder prunes the published change buffer');
is($pub->safe_psql('alldb', q{SELECT count(*) FROM dynview.cdc_status WHERE source IS NULL AND decoder_state = 'RUNNING'}),
	'1', 'the decoder runs');

$sub->stop;
$pub->stop;
done_testing();
