# pg_dump of a database with dynamic tables, restored by pg_restore in one job and with -j 2.
# A parallel pg_restore loads each table it has just made with TRUNCATE TABLE ONLY and then COPY,
# in one transaction; dynview's write guard refused that TRUNCATE of a dynamic table, so the
# dynamic tables stayed empty and pg_restore exited with status 1.  TRUNCATE of a dynamic table
# that holds no row changes nothing and is now let through.  After either restore every dynamic
# table holds the dumped rows; its first refresh is FULL (UPSTREAM_RECREATED: it finds its sources
# again by name), the next ones incremental, and each is checked against its query recomputed
# (verify(), and the rows' text forms).
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

use FindBin;
use lib $FindBin::RealBin;
use DynviewNode;

my $node = dynview_node('dump');
my $tempdir = PostgreSQL::Test::Utils::tempdir;

$node->safe_psql('postgres', 'CREATE DATABASE dr_src');
$node->safe_psql(
	'dr_src', q{
SET client_min_messages = warning;
CREATE EXTENSION dynview;
SELECT dynview.wait_for_capture('60 seconds');
CREATE TABLE dr_orders (id int PRIMARY KEY, region text NOT NULL, amount numeric NOT NULL);
INSERT INTO dr_orders SELECT n, 'r' || (n % 7), (n % 13) * 1.50 FROM generate_series(1, 2000) n;
SELECT dynview.create_dynamic_table('dr_by_region',
    'SELECT region, count(*) AS n, sum(amount) AS total FROM dr_orders GROUP BY region', schedule => 'manual');
SELECT dynview.create_dynamic_table('dr_big_regions',
    'SELECT region, total FROM dr_by_region WHERE n > 100', schedule => 'manual');
SELECT dynview.create_dynamic_table('dr_large',
    'SELECT id, amount FROM dr_orders WHERE amount > 15', schedule => 'manual');
SELECT dynview.create_dynamic_table('dr_none',
    'SELECT id, amount FROM dr_orders WHERE amount > 1000', schedule => 'manual');
});

my %query = (
	dr_by_region => 'SELECT region, count(*) AS n, sum(amount) AS total FROM dr_orders GROUP BY region',
	dr_big_regions =>
	  'SELECT region, sum(amount) AS total FROM dr_orders GROUP BY region HAVING count(*) > 100',
	dr_large => 'SELECT id, amount FROM dr_orders WHERE amount > 15',
	dr_none => 'SELECT id, amount FROM dr_orders WHERE amount > 1000');
my @tables = sort keys %query;

# rows of each table that its query (recomputed) does not give, either way, compared as text
sub text_differences
{
	my ($db) = @_;
	my @sql;
	for my $t (@tables)
	{
		push @sql,
		  "SELECT '$t', (SELECT count(*) FROM ((SELECT d::text FROM $t d EXCEPT ALL SELECT q::text FROM ($query{$t}) q)"
		  . " UNION ALL (SELECT q::text FROM ($query{$t}) q EXCEPT ALL SELECT d::text FROM $t d)) x)";
	}
	return $node->safe_psql($db, join(' UNION ALL ', @sql) . ' ORDER BY 1');
}

# refresh each table (upstreams before downstreams: a refresh refreshes its upstreams first, and
# their own refresh would then find nothing to do) and check the modes, then verify() them all
sub refresh_and_verify
{
	my ($db, $mode, $what) = @_;
	my $array = "ARRAY['dr_by_region', 'dr_big_regions', 'dr_large', 'dr_none']";
	is( $node->safe_psql($db,
			"SELECT t, r.refresh_mode FROM unnest($array) t, dynview.refresh(t) r ORDER BY t"),
		join("\n", map { "$_|$mode" } @tables),
		"$what are $mode");
	is( $node->safe_psql($db, "SELECT bool_and(dynview.verify(t)) FROM unnest($array) t"),
		't', "$what: verify()");
}

my $counts_sql = join(' UNION ALL ', map { "SELECT '$_', count(*) FROM $_" } @tables) . ' ORDER BY 1';
my $dumped_counts = $node->safe_psql('dr_src', $counts_sql);
like($dumped_counts, qr/^dr_big_regions\|7\ndr_by_region\|7\ndr_large\|\d+\ndr_none\|0$/,
	'the dumped database has its dynamic tables filled');

my $dump = "$tempdir/dr.dump";
$node->command_ok([ 'pg_dump', '-Fc', '-d', 'dr_src', '-f', $dump ], 'pg_dump of the database');

for my $jobs (1, 2)
{
	my $db = "dr_copy_j$jobs";
	$node->safe_psql('postgres', "CREATE DATABASE $db");
	$node->command_ok([ 'pg_restore', '-j', $jobs, '-d', $db, $dump ],
		"pg_restore -j $jobs exits with status 0");
	is($node->safe_psql($db, $counts_sql),
		$dumped_counts, "pg_restore -j $jobs: every dynamic table holds the dumped rows");
	is( $node->safe_psql($db,
			'SELECT count(*) FROM dynview.dynamic_tables'),
		'4', "pg_restore -j $jobs: the four dynamic tables are registered");

	# the first refresh of each finds its sources again; the next is incremental
	$node->safe_psql($db, q{SELECT dynview.wait_for_capture('60 seconds')});
	refresh_and_verify($db, 'FULL', "pg_restore -j $jobs: the first refreshes");
	$node->safe_psql(
		$db, q{
UPDATE dr_orders SET amount = amount + 2000 WHERE id % 100 = 0;
DELETE FROM dr_orders WHERE id % 97 = 0;
INSERT INTO dr_orders SELECT n, 'r' || (n % 3), 17.25 FROM generate_series(2001, 2300) n;
});
	refresh_and_verify($db, 'INCREMENTAL', "pg_restore -j $jobs: the next refreshes");
	is(text_differences($db),
		"dr_big_regions|0\ndr_by_region|0\ndr_large|0\ndr_none|0",
		"pg_restore -j $jobs: no row differs from the query's in its text form");
}

# the guard still refuses TRUNCATE of a restored dynamic table that holds rows
my ($ret, $stdout, $stderr) = $node->psql('dr_copy_j2', 'TRUNCATE dr_large');
isnt($ret, 0, 'TRUNCATE of a dynamic table that holds rows still fails');
like($stderr, qr/cannot modify dynamic table "dr_large"/, 'with the guard\'s error');

done_testing();
