/*
 * options.c - what the environment says of a run (options.h).
 */
#include <stdlib.h>
#include "base/options.h"

/* True when this process was started by an MPI launcher. Decided once,
 * at the first call (cs_cmd_run makes it before MPI_Init, which sets some
 * of these variables in a process started without a launcher). */
int cs_run_launched(void)
{
	static int launched = -1;

	if (launched < 0)
		launched = getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") ||
			   getenv("PMIX_RANK") ||
			   (getenv("SLURM_PROCID") && getenv("SLURM_STEP_ID"));
	return launched;
}
