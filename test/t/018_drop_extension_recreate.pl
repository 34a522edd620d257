
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

my $log = slurp_file($node->logfile);
unlike($log, qr/differs from its query/, 'verify() found no difference');

$node->stop;
done_testing();
