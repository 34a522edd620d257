# Two-phase commit and subtransactions around refreshes (the window protocol of design section 5
# selects buffer rows by their transaction's visibility; s17-win's dynview._window_contains decides
# it).  A transaction prepared before a refresh is in progress for it: its rows are not in that
# window, and they are in the window of the first refresh after COMMIT PREPARED, however many
# refreshes ran between; a prepared transaction rolled back never shows; rows of a subtransaction
# rolled back to its savepoint never show, those of a released one do.  Every refresh is checked
# with verify() and the table compared with its query by text.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

use FindBin;
use lib $FindBin::RealBin;
use DynviewNode;

my $node = dynview_node('prepared', "dynview.naptime = 200\nmax_prepared_transactions = 5\n");
$node->safe_psql('postgres', q{
	CREATE TABLE pt_src (id int PRIMARY KEY, g int NOT NULL, v int NOT NULL);
	CREATE TABLE pt_dim (g int PRIMARY KEY, name text NOT NULL);
	INSERT INTO pt_dim SELECT g, 'g' || g FROM generate_series(0, 4) g;
	INSERT INTO pt_src SELECT i, i % 5, i FROM generate_series(1, 100) i;
	SET client_min_messages = warning;
	SELECT dynview.create_dynamic_table('pt_sum',
		'SELECT d.name, count(*) AS n, sum(s.v) AS total FROM pt_src s JOIN pt_dim d USING (g) GROUP BY d.name',
		schedule => 'manual');
	SELECT dynview.create_dynamic_table('pt_rows', 'SELECT id, g, v FROM pt_src WHERE v % 3 = 0',
		schedule => 'manual');
});

my $step = 0;
sub refresh_all
{
	my ($what) = @_;
	$step++;
	$node->safe_psql('postgres', 'SELECT dynview.wait_for_capture()');
	for my $t ('pt_sum', 'pt_rows')
	{
		my $mode = $node->safe_psql('postgres', qq{SELECT refresh_mode FROM dynview.refresh('$t')});
		like($mode, qr/^(INCREMENTAL|NO_DATA)$/, "$step $what: $t refreshed ($mode)");
		is($node->safe_psql('postgres', qq{SELECT dynview.verify('$t')}), 't', "$step $what: $t verified");
	}
	is( $node->safe_psql('postgres', q{
			SELECT (SELECT array_agg(t ORDER BY name)::text FROM pt_sum t) =
			       (SELECT array_agg(q ORDER BY name)::text FROM
			          (SELECT d.name, count(*) AS n, sum(s.v) AS total FROM pt_src s JOIN pt_dim d USING (g)
			            GROUP BY d.name) q)}),
		't', "$step $what: pt_sum equals its query by text");
}

refresh_all('start');

# prepared before a refresh, committed after two more
$node->safe_psql('postgres', q{
	BEGIN;
	INSERT INTO pt_src SELECT i, i % 5, i FROM generate_series(1001, 1030) i;
	UPDATE pt_src SET v = v + 1000 WHERE id <= 6;
	DELETE FROM pt_src WHERE id BETWEEN 50 AND 55;
	PREPARE TRANSACTION 'pt_a';
});
$node->safe_psql('postgres', q{INSERT INTO pt_src VALUES (2001, 1, 9)});
refresh_all('while pt_a is prepared');
$node->safe_psql('postgres', q{UPDATE pt_src SET v = v + 1 WHERE id = 2001});
refresh_all('pt_a still prepared');
is($node->safe_psql('postgres', q{SELECT count(*) FROM pt_rows WHERE id BETWEEN 1001 AND 1030}),
	'0', 'rows of the prepared transaction not shown');
$node->safe_psql('postgres', q{COMMIT PREPARED 'pt_a'});
refresh_all('after COMMIT PREPARED pt_a');
is($node->safe_psql('postgres', q{SELECT count(*) FROM pt_rows WHERE id BETWEEN 1001 AND 1030}),
	'10', 'rows of the committed prepared transaction shown');

# prepared, then rolled back; and one prepared across a refresh of a dimension change
$node->safe_psql('postgres', q{
	BEGIN;
	INSERT INTO pt_src SELECT i, i % 5, i FROM generate_series(3001, 3020) i;
	PREPARE TRANSACTION 'pt_b';
});
$node->safe_psql('postgres', q{
	BEGIN;
	UPDATE pt_dim SET name = name || 'x' WHERE g = 2;
	PREPARE TRANSACTION 'pt_c';
});
refresh_all('pt_b and pt_c prepared');
$node->safe_psql('postgres', q{ROLLBACK PREPARED 'pt_b'});
refresh_all('pt_b rolled back');
$node->safe_psql('postgres', q{COMMIT PREPARED 'pt_c'});
refresh_all('pt_c committed');
is($node->safe_psql('postgres', q{SELECT count(*) FROM pt_src WHERE id BETWEEN 3001 AND 3020}),
	'0', 'the rolled back prepared transaction wrote nothing');

# subtransactions: one rolled back to its savepoint, one released, in a transaction with a refresh
$node->safe_psql('postgres', q{
	BEGIN;
	INSERT INTO pt_src VALUES (4001, 0, 3);
	SAVEPOINT a;
	INSERT INTO pt_src VALUES (4002, 0, 6);
	UPDATE pt_src SET v = 99 WHERE id = 10;
	ROLLBACK TO SAVEPOINT a;
	SAVEPOINT b;
	INSERT INTO pt_src VALUES (4003, 1, 9);
	DELETE FROM pt_src WHERE id = 12;
	RELEASE SAVEPOINT b;
	COMMIT;
});
refresh_all('subtransactions');
is($node->safe_psql('postgres', q{SELECT string_agg(id::text, ',' ORDER BY id) FROM pt_rows WHERE id > 4000}),
	'4001,4003', 'the released subtransaction shown, the rolled back one not');

# a prepared transaction with a subtransaction rolled back inside it
$node->safe_psql('postgres', q{
	BEGIN;
	INSERT INTO pt_src VALUES (5001, 2, 3);
	SAVEPOINT s;
	INSERT INTO pt_src VALUES (5002, 2, 6);
	ROLLBACK TO SAVEPOINT s;
	UPDATE pt_src SET v = v + 3 WHERE id = 4001;
	PREPARE TRANSACTION 'pt_d';
});
refresh_all('pt_d prepared');
$node->safe_psql('postgres', q{COMMIT PREPARED 'pt_d'});
refresh_all('pt_d committed');
is($node->safe_psql('postgres', q{SELECT string_agg(id::text, ',' ORDER BY id) FROM pt_rows WHERE id > 5000}),
	'5001', 'the prepared transaction without its rolled back subtransaction');

$node->stop;
done_testing();
