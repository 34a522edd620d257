# When change capture cannot run, dynview says why at once instead of hanging (issue 16): the
# server does not let dynview be an output plugin (output_plugin_libraries, on builds that have
# that setting), no replication slot is free, no background worker slot is free.  For each:
# CREATE EXTENSION warns, create_dynamic_table fails with an error naming the cause and its fix
# (well within statement_timeout, which only guards against the old hang), cdc_status shows the
# decoder's state; after the fix, the same create works and the table is right.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

use FindBin;
use lib $FindBin::RealBin;
use DynviewNode;

my $node = dynview_init('capture_unavailable');
my $has_plugin_setting = has_output_plugin_libraries($node);
$node->start;

# run SQL in database $db; returns (stdout, stderr)
sub run_sql
{
	my ($db, $sql) = @_;
	my ($stdout, $stderr);
	$node->psql($db, $sql, stdout => \$stdout, stderr => \$stderr);
	return ($stdout, $stderr);
}

# the create that hung before: it must fail with our error, not with the statement timeout
sub create_fails
{
	my ($db, $what, $cause, $hint) = @_;
	my ($out, $err) = run_sql($db,
		q{SET statement_timeout = '20s';
		  SELECT dynview.create_dynamic_table('d', 'SELECT id, v FROM src')});
	like($err, qr/ERROR:  change capture cannot run in database "$db"/,
		"$what: create_dynamic_table fails naming change capture");
	like($err, $cause, "$what: the error names the cause");
	like($err, $hint, "$what: the hint names the fix");
	unlike($err, qr/statement timeout/, "$what: it did not hang");
	is($node->safe_psql($db, q{SELECT count(*) FROM pg_class WHERE relname = 'd'}),
		'0', "$what: nothing was created");
}

sub create_works
{
	my ($db, $what) = @_;
	$node->safe_psql($db, q{SELECT dynview.wait_for_capture('60 seconds')});
	$node->safe_psql($db,
		q{SET client_min_messages = warning;
		  SELECT dynview.create_dynamic_table('d', 'SELECT id, v FROM src', schedule => 'manual')});
	$node->safe_psql($db, q{INSERT INTO src VALUES (100, 'after'); UPDATE src SET v = 'x' WHERE id = 1});
	is( $node->safe_psql(
			$db, q{SELECT refresh_mode || ' ' || state FROM dynview.refresh('d')}),
		'INCREMENTAL SUCCEED',
		"$what: after the fix, refreshes are incremental");
	is($node->safe_psql($db, q{SELECT dynview.verify('d')}), 't', "$what: verify() after the fix");
	is($node->safe_psql($db, q{SELECT decoder_state FROM dynview.cdc_status WHERE source IS NULL}),
		'RUNNING', "$what: cdc_status shows the decoder running");
}

sub new_database
{
	my ($db) = @_;
	$node->safe_psql('postgres', "CREATE DATABASE $db");
	$node->safe_psql($db,
		q{CREATE TABLE src (id int PRIMARY KEY, v text);
		  INSERT INTO src SELECT g, 'v' || g FROM generate_series(1, 10) g});
	my ($out, $err) = run_sql($db, 'CREATE EXTENSION dynview');
	return $err;
}

# 1. the server does not let dynview be an output plugin
SKIP:
{
	skip 'this PostgreSQL build has no output_plugin_libraries', 1 unless $has_plugin_setting;
	# (changed with a restart: on this build a reload that changes output_plugin_libraries can
	# crash a background worker that has no database connection, such as dynview's launcher)
	$node->safe_psql('postgres', q{ALTER SYSTEM SET output_plugin_libraries = 'pgoutput'});
	$node->restart;
	my $warn = new_database('plugin_db');
	like($warn, qr/WARNING:  dynview cannot capture changes: this server does not let dynview be a logical decoding output plugin/,
		'output plugin: CREATE EXTENSION warns');
	create_fails('plugin_db', 'output plugin', qr/library "dynview" may not be used as an output plugin/,
		qr/HINT:  Add dynview to output_plugin_libraries/);
	is( $node->safe_psql(
			'plugin_db', q{SELECT decoder_state, decoder_last_error IS NOT NULL, decoded_lsn IS NULL,
			                      decoder_lag_bytes IS NULL
			               FROM dynview.cdc_status WHERE source IS NULL}),
		'FAILED|t|t|t', 'output plugin: cdc_status shows FAILED with the error, no lag of 0');
	$node->safe_psql('postgres', q{ALTER SYSTEM RESET output_plugin_libraries});
	$node->restart;
	create_works('plugin_db', 'output plugin');
	# capture stops after the table exists: an incremental refresh fails at once too
	$node->safe_psql('postgres', q{ALTER SYSTEM SET output_plugin_libraries = 'pgoutput'});
	$node->restart;
	$node->safe_psql('plugin_db', q{INSERT INTO src VALUES (200, 'while down')});
	my ($out, $err) = run_sql('plugin_db',
		q{SET statement_timeout = '20s'; SELECT state FROM dynview.refresh('d')});
	like($err, qr/ERROR:  change capture cannot run in database "plugin_db".*HINT:  Add dynview to output_plugin_libraries/s,
		'output plugin: a refresh fails at once with the cause, not FULL after a minute');
	like( $node->safe_psql(
			'plugin_db', q{SELECT decoder_state || ' ' || (decoder_lag_bytes > 0)
			               FROM dynview.cdc_status WHERE source IS NULL}),
		qr/^FAILED true$/, 'output plugin: cdc_status shows the lag of the stopped decoder');
	# a scheduled refresh while capture cannot run is SKIPPED (CAPTURE_UNAVAILABLE) and retried,
	# never counted as a failure: more attempts than max_consecutive_failures (5) suspend nothing
	$node->safe_psql('plugin_db', q{SELECT dynview.alter_dynamic_table('d', schedule => '1 second')});
	ok( $node->poll_query_until(
			'plugin_db', q{SELECT count(*) >= 6 FROM dynview.refresh_history
			               WHERE name = 'd'::regclass AND state = 'SKIPPED'
			                 AND mode_reason_code = 'CAPTURE_UNAVAILABLE'
			                 AND mode_reason LIKE 'change capture cannot run in database "plugin_db"%retried at the next cycle%'}),
		'output plugin: scheduled refreshes are SKIPPED with reason CAPTURE_UNAVAILABLE');
	is( $node->safe_psql(
			'plugin_db', q{SELECT scheduling_state || ' ' || consecutive_failures || ' ' || last_refresh_state
			               FROM dynview.dynamic_tables WHERE name = 'd'::regclass}),
		'ACTIVE 0 SKIPPED', 'output plugin: the table is not suspended while capture is down');
	$node->safe_psql('plugin_db', q{SELECT dynview.alter_dynamic_table('d', schedule => 'manual')});
	$node->safe_psql('postgres', q{ALTER SYSTEM RESET output_plugin_libraries});
	$node->restart;
	$node->safe_psql('plugin_db', q{SELECT dynview.wait_for_capture('60 seconds')});
	is($node->safe_psql('plugin_db', q{SELECT refresh_mode || ' ' || state FROM dynview.refresh('d')}),
		'INCREMENTAL SUCCEED', 'output plugin: capture resumes where it stopped');
	is($node->safe_psql('plugin_db', q{SELECT dynview.verify('d')}), 't',
		'output plugin: verify() after capture resumed');
	$node->safe_psql('postgres', 'DROP DATABASE plugin_db');
}

# 2. no replication slot is free
$node->append_conf('postgresql.conf', 'max_replication_slots = 1');
$node->restart;
$node->safe_psql('postgres', q{SELECT pg_create_physical_replication_slot('hog')});
my $warn = new_database('slot_db');
like($warn, qr/WARNING:  dynview cannot capture changes: no replication slot is free/,
	'replication slot: CREATE EXTENSION warns');
create_fails('slot_db', 'replication slot', qr/all replication slots are in use/,
	qr/HINT:  Drop an unused replication slot with pg_drop_replication_slot\(\), or raise max_replication_slots/);
$node->safe_psql('postgres', q{SELECT pg_drop_replication_slot('hog')});
create_works('slot_db', 'replication slot');
$node->safe_psql('postgres', 'DROP DATABASE slot_db');

# 3. no background worker slot is free: only the launcher fits
$node->append_conf('postgresql.conf',
	"max_replication_slots = 10\nmax_worker_processes = 1\nmax_logical_replication_workers = 0");
$node->restart;
$warn = new_database('worker_db');
like($warn, qr/WARNING:  dynview cannot capture changes: no background worker slot is free for its decoder/,
	'worker slot: CREATE EXTENSION warns');
create_fails('worker_db', 'worker slot', qr/No background worker slot was free to start the dynview decoder/,
	qr/HINT:  Raise max_worker_processes/);
is($node->safe_psql('worker_db', q{SELECT decoder_state FROM dynview.cdc_status WHERE source IS NULL}),
	'NO_WORKER', 'worker slot: cdc_status shows NO_WORKER');
$node->append_conf('postgresql.conf', 'max_worker_processes = 16');
$node->restart;
create_works('worker_db', 'worker slot');

$node->stop;
done_testing();
