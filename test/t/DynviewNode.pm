# DynviewNode - test clusters with dynview preloaded, for the Perl TAP tests in test/t.
#
#   use FindBin;
#   use lib $FindBin::RealBin;
#   use DynviewNode;
#
#   my $node = dynview_node('name', "dynview.naptime = 100\n");   # started, extension created
#   my $cold = dynview_init('name2');                              # initialised, not started
#
# Both write the settings every dynview cluster needs (dynview preloaded, wal_level = logical,
# slots and worker processes for the decoder, scheduler and refresh workers) followed by EXTRA
# (default: dynview.naptime = 200), and, on PostgreSQL builds that restrict which libraries may
# be output plugins, output_plugin_libraries naming dynview.  dynview_node then starts the node,
# creates the extension in database postgres and waits until change capture and the scheduler run.
package DynviewNode;

use strict;
use warnings;

use Exporter 'import';
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;

our @EXPORT = qw(dynview_init dynview_node has_output_plugin_libraries);

my $base_settings = q{
shared_preload_libraries = 'dynview'
wal_level = logical
max_replication_slots = 10
max_worker_processes = 16
};

# Does this PostgreSQL build have the output_plugin_libraries setting?
sub has_output_plugin_libraries
{
	my ($node) = @_;
	my $bindir = $node->config_data('--bindir');
	my ($described) = run_command([ "$bindir/postgres", '--describe-config' ]);
	return $described =~ /^output_plugin_libraries\t/m;
}

# A new node, initialised for logical decoding with dynview's settings and EXTRA; not started.
sub dynview_init
{
	my ($name, $extra) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init(allows_streaming => 'logical');
	$node->append_conf('postgresql.conf',
		$base_settings . ($extra // "dynview.naptime = 200\n"));
	$node->append_conf('postgresql.conf',
		"output_plugin_libraries = 'pgoutput, test_decoding, dynview'")
	  if has_output_plugin_libraries($node);
	return $node;
}

# dynview_init, then started, with the extension created and change capture running.
sub dynview_node
{
	my ($name, $extra) = @_;
	my $node = dynview_init($name, $extra);
	$node->start;
	$node->safe_psql('postgres', 'CREATE EXTENSION dynview');
	$node->safe_psql('postgres', q{SELECT dynview.wait_for_capture('60 seconds')});
	# the scheduler starts beside the decoder, maybe a little later: tests read its pid
	$node->poll_query_until('postgres',
		q{SELECT count(*) = 1 FROM pg_stat_activity WHERE backend_type = 'dynview scheduler'})
	  or die 'the dynview scheduler did not start';
	return $node;
}

1;
