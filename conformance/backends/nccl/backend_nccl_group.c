/*
 * backend_nccl_group.c - group calls of the nccl backends (nccl-local's
 * group_start and group_end) and the rule they enforce: every call of a
 * many-rank nccl-local communicator sits inside a group.
 */
#include <stdbool.h>
#include "backends/nccl/backend_nccl_impl.h"

/* Depth of group_start/group_end (nccl-local). */
static int nb_group_depth;

bool cs_nccl_in_group(void)
{
	return nb_group_depth > 0;
}

/*
 * nccl-local: each rank's call must sit between group_start and group_end,
 * or the first one would wait forever for ranks this thread has not yet
 * called for. A one-rank communicator needs no group.
 */
int cs_nccl_grouped(const struct nb_comm *c, const char *what)
{
	if (!c->local || nb_group_depth > 0 || c->nranks == 1)
		return 0;
	return cs_nccl_fail(NB_EINVAL, "nccl-local: %s must be called "
			    "between group_start and group_end, once per "
			    "rank", what);
}

/* The backends' group_start and group_end (nccl-local only): NCCL's group
 * calls, with the depth counted for cs_nccl_grouped. */
int cs_nccl_group_start(void)
{
	int rc = cs_nccl_result(ncclGroupStart(), "ncclGroupStart", NULL);

	if (!rc)
		nb_group_depth++;
	return rc;
}

int cs_nccl_group_end(void)
{
	if (nb_group_depth == 0)
		return cs_nccl_fail(NB_EINVAL,
				    "group_end without group_start");
	nb_group_depth--;
	return cs_nccl_result(ncclGroupEnd(), "ncclGroupEnd", NULL);
}
