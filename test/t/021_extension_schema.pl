
# Schema dynview belongs to the extension.  CREATE EXTENSION makes it, unless it exists: then
# PostgreSQL uses it as it is.  A tester (session 35) let an ordinary role make schema dynview
# before a superuser created the extension: the role kept the schema, its objects made there
# before stayed, it could add types and operators, and DROP SCHEMA dynview CASCADE dropped the
# extension.  The install script now refuses a schema dynview owned by a role that is not a
# superuser, one where such a role may create objects, and one holding such a role's objects;
# each refusal changes nothing.  A schema a superuser made empty beforehand is taken.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

use FindBin;
use lib $FindBin::RealBin;
use DynviewNode;

my $node = dynview_init('extension_schema');
$node->start;

$node->safe_psql('postgres', q{
CREATE ROLE plain LOGIN;
CREATE DATABASE owned;
CREATE DATABASE granted;
CREATE DATABASE holding;
CREATE DATABASE clean;
GRANT CREATE ON DATABASE owned TO plain;
});

# CREATE EXTENSION dynview in $db: (stdout, stderr)
sub create_extension
{
	my ($db) = @_;
	my ($stdout, $stderr);
	$node->psql($db, 'CREATE EXTENSION dynview', stdout => \$stdout, stderr => \$stderr);
	return ($stdout, $stderr);
}

sub extension_absent
{
	my ($db, $test_name) = @_;
	is($node->safe_psql($db, q{SELECT count(*) FROM pg_extension WHERE extname = 'dynview'}),
		'0', $test_name);
}

# 1. made by an ordinary role, with an aggregate of its own under dynview's name
$node->safe_psql('owned', q{
SET ROLE plain;
CREATE SCHEMA dynview;
CREATE FUNCTION dynview.zero(bigint, numeric) RETURNS bigint LANGUAGE sql AS 'SELECT 0::bigint';
CREATE AGGREGATE dynview._nonnull_count(numeric) (SFUNC = dynview.zero, STYPE = bigint, INITCOND = '0');
});
my ($out, $err) = create_extension('owned');
like($err, qr/ERROR:  schema "dynview" existed before CREATE EXTENSION dynview and it is owned by role plain, which is not a superuser/,
	'a schema dynview owned by an ordinary role is refused');
like($err, qr/HINT:  Drop schema "dynview"/, 'with a hint');
extension_absent('owned', 'nothing is installed');

# 2. a superuser's schema where every role may create objects
$node->safe_psql('granted', q{CREATE SCHEMA dynview; GRANT CREATE ON SCHEMA dynview TO PUBLIC;});
($out, $err) = create_extension('granted');
like($err, qr/and a role that is not a superuser may create objects in it/,
	'a schema dynview where PUBLIC may create is refused');
extension_absent('granted', 'nothing is installed there either');

# 3. a superuser's schema holding an ordinary role's table
$node->safe_psql('holding', q{
CREATE SCHEMA dynview;
GRANT USAGE, CREATE ON SCHEMA dynview TO plain;
SET ROLE plain;
CREATE TABLE dynview.planted (id int);
RESET ROLE;
REVOKE CREATE ON SCHEMA dynview FROM plain;
});
($out, $err) = create_extension('holding');
like($err, qr/and it holds objects of a role that is not a superuser/,
	'a schema dynview holding an ordinary role\'s table is refused');
extension_absent('holding', 'and not installed');
# after the hint's fix, it installs
$node->safe_psql('holding', q{DROP TABLE dynview.planted; REVOKE ALL ON SCHEMA dynview FROM plain;});
($out, $err) = create_extension('holding');
is($err, '', 'once the table is gone and the grant revoked, CREATE EXTENSION works');

# 4. an empty schema a superuser made: taken; the extension works in it
$node->safe_psql('clean', q{CREATE SCHEMA dynview;});
($out, $err) = create_extension('clean');
is($err, '', 'an empty schema dynview of a superuser is taken');
$node->safe_psql('clean', q{
SET client_min_messages = warning;
CREATE TABLE src (id int PRIMARY KEY, g int, v numeric);
INSERT INTO src VALUES (1, 1, 1.5), (2, 1, NULL), (3, 2, 2);
SELECT dynview.create_dynamic_table('sums', 'SELECT g, sum(v) AS s, count(*) AS n FROM src GROUP BY g', schedule => 'manual');
UPDATE src SET v = NULL WHERE id = 1;
SELECT dynview.wait_for_capture('60 seconds');
SELECT dynview.refresh('sums');
});
is($node->safe_psql('clean', q{SELECT dynview.verify('sums')}), 't', 'a table there refreshes and verifies');
is($node->safe_psql('clean', q{SELECT string_agg(g || ':' || coalesce(s::text, 'null'), ',' ORDER BY g) FROM sums}),
	'1:null,2:2', 'its rows: group 1\'s sum NULL again');

$node->stop;
done_testing();
