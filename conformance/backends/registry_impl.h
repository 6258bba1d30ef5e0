/*
 * registry_impl.h - private to the plugin loader (registry.c) and its
 * child-process probe (probe.c): the stages a plugin load reports to the
 * probe's parent. Callers use registry.h.
 */
#ifndef CS_REGISTRY_IMPL_H
#define CS_REGISTRY_IMPL_H

/* Where a plugin load has got to, for cs_backend_probe's child: one byte
 * written to the stage descriptor as each step returns. */
#define STAGE_OPENED 'O'  /* dlopen returned: its constructors ran */
#define STAGE_ENTERED 'E' /* its entry point returned */
#define STAGE_REPLY 'R'   /* the load's outcome follows */

/* Report each later load stage as one byte on fd (only in the probe's
 * forked child; -1, the default, reports nothing). */
void cs_backend_set_stage_fd(int fd);
/* Write stage to the stage descriptor, if one is set; a failed write means
 * the parent is gone, and the child _exits (status 3). */
void cs_backend_load_stage(char stage);

#endif /* CS_REGISTRY_IMPL_H */
