
# A scheduled table whose source is dropped: each refresh records NO_DATA with reason
# UPSTREAM_MISSING and takes no data, so the table's data_timestamp stays where it was.  The
# scheduler must try it again once per schedule interval, not at every look: before, a table on a
# '2 seconds' schedule with dynview.naptime = 100 was refreshed about ten times a second, each
# attempt a history row.  When a table of the source's name appears again, the table is
# refreshed on its schedule (FULL, UPSTREAM_RECREATED) and verified.  Waits are bounded polls on
# the history the scheduler writes.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

use FindBin;
use lib $FindBin::RealBin;
use DynviewNode;

my $node = dynview_node('missing_source', "dynview.naptime = 100\n");

# a dynamic table NAME reading SOURCE (made with one row) on SCHEDULE, SOURCE dropped, and a manual
# refresh that finds it missing (the table's newest history row: NO_DATA, UPSTREAM_MISSING)
sub table_with_missing_source
{
	my ($name, $source, $schedule, $test_name) = @_;
	$node->safe_psql(
		'postgres', qq{
SET client_min_messages = warning;
CREATE TABLE $source (id int PRIMARY KEY, v int);
INSERT INTO $source VALUES (1, 1);
SELECT dynview.create_dynamic_table('$name', 'SELECT id, v FROM $source', schedule => '$schedule');
DROP TABLE $source;
});
	is( $node->safe_psql(
			'postgres', qq{SELECT refresh_mode || ' ' || mode_reason_code FROM dynview.refresh('$name')}),
		'NO_DATA UPSTREAM_MISSING', $test_name);
}

$node->safe_psql(
	'postgres', q{
SET client_min_messages = warning;
CREATE TABLE gone (id int PRIMARY KEY, v int);
INSERT INTO gone VALUES (1, 10), (2, 20);
CREATE TABLE kept (id int PRIMARY KEY, v int);
INSERT INTO kept VALUES (1, 1);
SELECT dynview.create_dynamic_table('reads_gone', 'SELECT id, v FROM gone', schedule => '2 seconds');
SELECT dynview.create_dynamic_table('reads_kept', 'SELECT id, v FROM kept', schedule => '1 second');
});

$node->safe_psql('postgres', q{DROP TABLE gone});
ok( $node->poll_query_until(
		'postgres', q{SELECT count(*) >= 3 FROM dynview.refresh_history
		              WHERE name = 'reads_gone'::regclass AND refresh_trigger = 'SYSTEM_SCHEDULED'
		                AND refresh_mode = 'NO_DATA' AND mode_reason_code = 'UPSTREAM_MISSING'}),
	'the scheduler refreshes the table whose source is missing');
# each attempt starts at least one interval after the one before ended (a little less: the
# history's start_time is taken when the pipeline is announced, before the refresh itself)
is( $node->safe_psql(
		'postgres', q{
SELECT count(*) FILTER (WHERE start_time - prev_end < interval '1.9 seconds')
  FROM (SELECT start_time, lag(end_time) OVER (ORDER BY refresh_id) AS prev_end
          FROM dynview.refresh_history
         WHERE name = 'reads_gone'::regclass AND refresh_trigger = 'SYSTEM_SCHEDULED'
           AND mode_reason_code = 'UPSTREAM_MISSING') h
 WHERE prev_end IS NOT NULL}),
	'0', 'a table whose source is missing is tried once per schedule interval, not at every look');
is( $node->safe_psql(
		'postgres', q{SELECT scheduling_state || ' ' || consecutive_failures
		              FROM dynview.dynamic_tables WHERE name = 'reads_gone'::regclass}),
	'ACTIVE 0', 'a missing source is no failure: the table stays ACTIVE');
is($node->safe_psql('postgres', q{SELECT count(*) FROM reads_gone}),
	'2', 'the table keeps its data while its source is missing');

# the other table keeps its one-second schedule meanwhile
$node->safe_psql('postgres', q{INSERT INTO kept VALUES (2, 2)});
ok($node->poll_query_until('postgres', q{SELECT count(*) = 2 FROM reads_kept}),
	'another table is refreshed on its schedule');

# the source appears again: the next scheduled refresh recomputes the table
$node->safe_psql(
	'postgres', q{
CREATE TABLE gone (id int PRIMARY KEY, v int);
INSERT INTO gone VALUES (3, 30);
});
ok( $node->poll_query_until(
		'postgres', q{SELECT count(*) = 1 FROM dynview.refresh_history
		              WHERE name = 'reads_gone'::regclass AND refresh_trigger = 'SYSTEM_SCHEDULED'
		                AND refresh_mode = 'FULL' AND mode_reason_code = 'UPSTREAM_RECREATED'}),
	'the table is refreshed once its source exists again');
is( $node->safe_psql(
		'postgres', q{SELECT string_agg(id || ':' || v, ',' ORDER BY id) FROM reads_gone}),
	'3:30', 'the table holds the new source\'s rows');
is($node->safe_psql('postgres', q{SELECT dynview.verify('reads_gone') AND dynview.verify('reads_kept')}),
	't', 'verify() after the source came back');
# and it is incremental again, on its schedule
$node->safe_psql('postgres', q{INSERT INTO gone VALUES (4, 40)});
ok( $node->poll_query_until(
		'postgres', q{SELECT count(*) = 2 FROM reads_gone}),
	'a change of the new source reaches the table');
is( $node->safe_psql(
		'postgres', q{SELECT refresh_mode FROM dynview.refresh_history
		              WHERE name = 'reads_gone'::regclass AND rows_inserted = 1 ORDER BY refresh_id DESC LIMIT 1}),
	'INCREMENTAL', 'the refresh after the recompute is incremental');
is($node->safe_psql('postgres', q{SELECT dynview.verify('reads_gone')}), 't',
	'verify() after the incremental refresh');

# A definition replaced, without its first refresh, while the table's last refresh found a
# source missing: the new definition's sources exist, so the table is due at once (it has no
# data), not one interval after that refresh.  (A tester found it left empty for the interval.)
$node->safe_psql('postgres', q{CREATE TABLE new_src (id int PRIMARY KEY, v int); INSERT INTO new_src VALUES (7, 70), (8, 80)});
table_with_missing_source('replaced', 'old_src', '1 hour', 'a manual refresh finds the source missing');
$node->safe_psql('postgres',
	q{SELECT dynview.create_or_replace_dynamic_table('replaced', 'SELECT id, v FROM new_src', schedule => '1 hour', initialize => false)});
ok( $node->poll_query_until(
		'postgres', q{SELECT count(*) = 1 FROM dynview.refresh_history
		              WHERE name = 'replaced'::regclass AND refresh_trigger = 'SYSTEM_SCHEDULED'
		                AND state = 'SUCCEED' AND refresh_mode = 'FULL'}),
	'a replaced definition whose sources exist is refreshed by the scheduler at once');
is( $node->safe_psql(
		'postgres', q{SELECT string_agg(id || ':' || v, ',' ORDER BY id) FROM replaced}),
	'7:70,8:80', 'the replaced table holds the new query\'s rows');
is($node->safe_psql('postgres', q{SELECT dynview.verify('replaced')}), 't',
	'verify() after the replaced definition\'s first refresh');

# A source that appears again makes the table due at once too, not one interval after the last
# refresh that found it missing; and the scheduler notices it at its next look (dynview.naptime),
# although creating a table does not wake it (a tester saw it noticed only an interval later).
# The other tables' schedules are made manual first, so that nothing else wakes the scheduler.
$node->safe_psql(
	'postgres', q{
SELECT dynview.alter_dynamic_table('reads_gone', schedule => 'manual');
SELECT dynview.alter_dynamic_table('reads_kept', schedule => 'manual');
});
table_with_missing_source('hourly', 'hourly_src', '1 hour', 'the hourly table\'s source is missing');
# its data made two hours old, as the wait for its schedule would (its data snapshot was taken
# when it was created, a moment ago); then a schedule change wakes the scheduler, which finds the
# table held back by its missing source.  (The half second lets that look happen before the
# source is created again: with the look after it, the table is due at once anyway.)
$node->safe_psql(
	'postgres', q{
UPDATE dynview.dynamic_table_catalog SET data_timestamp = data_timestamp - interval '2 hours' WHERE relid = 'hourly'::regclass;
SELECT dynview.alter_dynamic_table('hourly', schedule => '59 minutes');
SELECT pg_sleep(0.5);
});
my $created = $node->safe_psql(
	'postgres', q{
CREATE TABLE hourly_src (id int PRIMARY KEY, v int);
INSERT INTO hourly_src VALUES (2, 20);
SELECT clock_timestamp();
});
ok( $node->poll_query_until(
		'postgres', q{SELECT count(*) = 1 FROM dynview.refresh_history
		              WHERE name = 'hourly'::regclass AND refresh_trigger = 'SYSTEM_SCHEDULED'
		                AND refresh_mode = 'FULL' AND mode_reason_code = 'UPSTREAM_RECREATED'}),
	'a table whose source appeared again is refreshed');
is( $node->safe_psql(
		'postgres', qq{SELECT start_time - '$created'::timestamptz < interval '10 seconds'
		               FROM dynview.refresh_history
		              WHERE name = 'hourly'::regclass AND mode_reason_code = 'UPSTREAM_RECREATED'}),
	't', 'at the scheduler\'s next look, not one interval (or a minute) later');
is($node->safe_psql('postgres', q{SELECT string_agg(id || ':' || v, ',') FROM hourly}), '2:20',
	'it holds the new source\'s rows');
is($node->safe_psql('postgres', q{SELECT dynview.verify('hourly')}), 't', 'verify() of the hourly table');

$node->stop;
done_testing();

