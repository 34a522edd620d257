/*-------------------------------------------------------------------------
 *
 * launcher.c
 *	  The dynview launcher: a static background worker, registered when the
 *	  library is in shared_preload_libraries.
 *
 * For now the launcher only idles, reloading its configuration on SIGHUP
 * and exiting on SIGTERM; the per-database decoder and scheduler workers it
 * will start (design section 3) come with change capture and the scheduler.
 * It needs no database connection.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "tcop/tcopprot.h"
#include "utils/guc.h"

#include "dynview.h"

PGDLLEXPORT void dynview_launcher_main(Datum main_arg);

/*
 * dv_launcher_register - register the launcher (from _PG_init while
 * shared_preload_libraries are loaded).
 */
void
dv_launcher_register(void)
{
	BackgroundWorker worker;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS;
	worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
	worker.bgw_restart_time = 10;
	snprintf(worker.bgw_library_name, BGW_MAXLEN, "dynview");
	snprintf(worker.bgw_function_name, BGW_MAXLEN, "dynview_launcher_main");
	snprintf(worker.bgw_name, BGW_MAXLEN, "dynview launcher");
	snprintf(worker.bgw_type, BGW_MAXLEN, "dynview launcher");
	RegisterBackgroundWorker(&worker);
}

void
dynview_launcher_main(Datum main_arg)
{
	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();

	for (;;)
	{
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 60 * 1000L, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
		}
	}
}
