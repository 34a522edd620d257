
# DROP EXTENSION dynview while its decoder runs, then CREATE EXTENSION dynview at once, and a dynamic
# table made and its source changed right after: the changes must reach the table.  The decoder of
# the dropped installation notices the drop only at its next check (once a second); until then it
# went on decoding and publishing its position, wait_for_capture() and create_dynamic_table took that
# position for the new installation's, and the decoder dropped the new table's changes (its batch
# found the extension replaced) while still publishing past them: every refresh said NO_DATA and
# verify() was false.  A position now counts only for the installation whose decoder published it.
# Each round runs in one session, well within the old decoder's second; three rounds, so that the
# old behaviour would have failed at least one of them whatever the timing.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

use FindBin;
use lib $FindBin::RealBin;
use DynviewNode;

my $node = dynview_node('recreate');

for my $round (1 .. 3)
{
	my $out = $node->safe_psql(
		'postgres', qq{
SET client_min_messages = warning;
SELECT dynview.wait_for_capture('60 seconds');
DROP EXTENSION dynview CASCADE;
CREATE EXTENSION dynview;
SELECT dynview.wait_for_capture('60 seconds');
DROP TABLE IF EXISTS rc_dt, rc_src;
CREATE TABLE rc_src (id int PRIMARY KEY, grp int, v numeric);
INSERT INTO rc_src SELECT n, n % 5, n * 1.5 FROM generate_series(1, 50) n;
SELECT dynview.create_dynamic_table('rc_dt', 'SELECT grp, count(*) AS n, sum(v) AS s FROM rc_src GROUP BY grp',
                                    schedule => 'manual', refresh_mode => 'incremental');
UPDATE rc_src SET v = v + 1 WHERE id <= 10;
INSERT INTO rc_src VALUES (51, 7, 2.25);
DELETE FROM rc_src WHERE id = 50;
SELECT refresh_mode FROM dynview.refresh('rc_dt');
SELECT dynview.verify('rc_dt');
SELECT count(*) FROM ((SELECT grp, n, s FROM rc_dt EXCEPT ALL SELECT grp, count(*), sum(v) FROM rc_src GROUP BY grp)
                      UNION ALL (SELECT grp, count(*), sum(v) FROM rc_src GROUP BY grp EXCEPT ALL SELECT grp, n, s FROM rc_dt)) d;
SELECT count(*) FROM ((SELECT grp::text, n::text, s::text FROM rc_dt
                       EXCEPT ALL SELECT grp::text, count(*)::text, sum(v)::text FROM rc_src GROUP BY grp)
                      UNION ALL (SELECT grp::text, count(*)::text, sum(v)::text FROM rc_src GROUP BY grp
                       EXCEPT ALL SELECT grp::text, n::text, s::text FROM rc_dt)) d;
UPDATE rc_src SET grp = 2 WHERE id = 3;
SELECT refresh_mode FROM dynview.refresh('rc_dt');
SELECT dynview.verify('rc_dt');
});
	is( $out, join("\n", 't', 't', 'rc_dt', 'INCREMENTAL', 't', '0', '0', 'INCREMENTAL', 't'),
		"round $round: changes made just after DROP and CREATE EXTENSION are captured and refreshed");
}

# DROP and CREATE EXTENSION in one transaction: the old decoder sees its installation replaced at
# its next check (never the database unregistered in between), so it leaves for the new one.  That
# is not a failure: the launcher starts the new installation's decoder at once instead of after a
# restart backoff doubling at each round (1, 2, 4, ... s for decoders that ran < 10 s: six rounds
# of the above took 1.9, 3.1, 4.8, 9.0, 17.1, 33.4 s from CREATE EXTENSION to wait_for_capture()
# before, about 1 s each after).
my $before = length(slurp_file($node->logfile));
my $out = $node->safe_psql(
	'postgres', q{
SET client_min_messages = warning;
SELECT dynview.wait_for_capture('60 seconds');
BEGIN;
DROP EXTENSION dynview CASCADE;
CREATE EXTENSION dynview;
COMMIT;
SELECT dynview.wait_for_capture('60 seconds');
CREATE TABLE rc_src2 (id int PRIMARY KEY, v int);
SELECT dynview.create_dynamic_table('rc_dt2', 'SELECT id, v FROM rc_src2', schedule => 'manual');
INSERT INTO rc_src2 SELECT n, n FROM generate_series(1, 10) n;
SELECT refresh_mode FROM dynview.refresh('rc_dt2');
SELECT dynview.verify('rc_dt2');
});
is($out, join("\n", 't', 't', 'rc_dt2', 'INCREMENTAL', 't'),
	'DROP and CREATE EXTENSION in one transaction: changes captured and refreshed');
like(
	substr(slurp_file($node->logfile), $before),
	qr/the decoder of database \d+ left for a new installation of the extension; starting its decoder now/,
	'the launcher starts the new installation\'s decoder at once, without a backoff');

my $log = slurp_file($node->logfile);
unlike($log, qr/differs from its query/, 'verify() found no difference');

$node->stop;
done_testing();
