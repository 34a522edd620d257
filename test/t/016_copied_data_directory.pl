# A copied data directory (a stopped cluster's files copied, as a restored file-level base backup
# is) is the same database: its dynamic tables keep refreshing INCREMENTAL, exactly, on the copy
# and on the original, with no FULL recompute for a change that did not happen (the seventeenth
# session saw every table of a copied SF1 database refresh FULL, SOURCE_ALTERED, once).
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

use FindBin;
use lib $FindBin::RealBin;
use DynviewNode;

my $orig = dynview_node('copied_orig');
$orig->safe_psql('postgres', q{
	CREATE TABLE items (id int PRIMARY KEY, grp int NOT NULL, v numeric NOT NULL);
	CREATE TABLE grps (grp int PRIMARY KEY, name text NOT NULL);
	INSERT INTO grps SELECT g, 'g' || g FROM generate_series(1, 5) g;
	INSERT INTO items SELECT i, i % 5 + 1, i * 1.5 FROM generate_series(1, 200) i;
	SET client_min_messages = warning;
	SELECT dynview.create_dynamic_table('per_grp',
		'SELECT g.name, count(*) AS n, sum(i.v) AS total FROM items i JOIN grps g USING (grp) GROUP BY g.name',
		schedule => 'manual');
	SELECT dynview.create_dynamic_table('rows_of',
		'SELECT i.id, i.v, g.name FROM items i LEFT JOIN grps g USING (grp)',
		schedule => 'manual');
});

# one change and refresh each, so that each has refreshed INCREMENTAL before the copy
sub change_and_refresh
{
	my ($node, $base, $what) = @_;
	$node->safe_psql('postgres', qq{
		INSERT INTO items SELECT i, i % 5 + 1, i FROM generate_series($base, $base + 9) i;
		DELETE FROM items WHERE id = $base - 150;
		UPDATE grps SET name = name || 'x' WHERE grp = 2;
	});
	for my $t ('per_grp', 'rows_of')
	{
		is( $node->safe_psql('postgres',
				qq{SELECT refresh_mode || ' ' || coalesce(mode_reason_code, '-') FROM dynview.refresh('$t')}),
			'INCREMENTAL -', "$what: $t refreshes INCREMENTAL");
		is($node->safe_psql('postgres', qq{SELECT dynview.verify('$t')}), 't', "$what: $t verified");
	}
}

change_and_refresh($orig, 1000, 'original before the copy');

# a stopped cluster's files copied (PostgreSQL::Test::Cluster's cold file-system backup)
$orig->stop;
$orig->backup_fs_cold('cold');
my $copy = PostgreSQL::Test::Cluster->new('copied_copy');
$copy->init_from_backup($orig, 'cold');
$copy->start;
$copy->safe_psql('postgres', q{SELECT dynview.wait_for_capture('60 seconds')});

change_and_refresh($copy, 2000, 'the copy');
change_and_refresh($copy, 3000, 'the copy, again');

$orig->start;
$orig->safe_psql('postgres', q{SELECT dynview.wait_for_capture('60 seconds')});
change_and_refresh($orig, 2000, 'the original after the copy');

# a base backup taken while the original runs (pg_basebackup: it leaves replication slots out),
# restored: change capture starts anew on it, so the first refresh is FULL (CAPTURE_RESTARTED: what
# was written after the backup's slot position is not in any buffer), exact, then INCREMENTAL
$orig->backup('hot');
my $restored = PostgreSQL::Test::Cluster->new('copied_restored');
$restored->init_from_backup($orig, 'hot');
$restored->start;
$restored->safe_psql('postgres', q{SELECT dynview.wait_for_capture('60 seconds')});
$restored->safe_psql('postgres', q{INSERT INTO items VALUES (5000, 1, 1)});
for my $t ('per_grp', 'rows_of')
{
	is( $restored->safe_psql('postgres',
			qq{SELECT refresh_mode || ' ' || coalesce(mode_reason_code, '-') FROM dynview.refresh('$t')}),
		'FULL CAPTURE_RESTARTED', "restored base backup: ${t}'s first refresh is FULL, capture restarted");
	is($restored->safe_psql('postgres', qq{SELECT dynview.verify('$t')}), 't',
		"restored base backup: $t verified");
}
change_and_refresh($restored, 6000, 'restored base backup, then');

$restored->stop;
$copy->stop;
$orig->stop;
done_testing();
