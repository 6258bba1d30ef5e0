/*
 * dcheck.c - the value check where the data is (check/dcheck.h): which
 * backends use it, and a range checked by the CPU grid executor or the
 * device kernel, passed or handed back to the host oracle.
 */
#include <string.h>
#include "backends/registry.h"
#include "base/cli_parse.h"
#include "check/dcheck.h"
#include "check/exec.h"
#include "check/verdict.h"
#include "csgpu/dcheck.h"
#include "csref/arith.h"
#include "csref/dcheck.h"
#include "csref/stats.h"

int cs_dcheck_where(const char *name, const char *opts)
{
	switch (cs_backend_dcheck(name)) {
	case CS_BACKEND_DCHECK_GRID:
		return cs_list_has(opts, "dcheck=0", 8) ? CS_DCHECK_OFF
							: CS_DCHECK_GRID;
	case CS_BACKEND_DCHECK_DEVICE:
		/* a pass there skips the host oracle, and the kernel and the
		 * choice of device buffer it reads have only been compiled */
		return cs_list_has(opts, "dcheck=1", 8) ? CS_DCHECK_DEV
							: CS_DCHECK_OFF;
	default:
		return CS_DCHECK_OFF;
	}
}

/* The range checked where e->dcheck says, into *r: 0, or -1 when it could
 * not be (no memory, no device). */
static int run_check(const cs_exec_t *e, int of, const cs_dcheck_desc_t *d,
		     const unsigned char *got, size_t lo, size_t end,
		     cs_dcheck_res_t *r)
{
	uint64_t B, T;

	cs_dcheck_grid_shape(end - lo, &B, &T);
	if (e->dcheck == CS_DCHECK_GRID)
		return cs_dcheck_grid_host(d, got, lo, end - lo, B, T, r);
	if (e->dcheck == CS_DCHECK_DEV && of == e->rank &&
	    e->buf[e->nbuf - 1].dev)
		return cs_dev_dcheck(e->device, e->stream, d,
				     e->buf[e->nbuf - 1].dev +
					     e->buf[e->nbuf - 1].pre +
					     e->ro * cs_dtype_size(e->c.dtype),
				     lo, end - lo, B, T, r) == CS_OK ? 0 : -1;
	return -1;
}

int cs_exec_dcheck_pass(const cs_exec_t *e, int of, const unsigned char *got,
			size_t lo, size_t end, cs_local_t *l)
{
	cs_dcheck_desc_t d;
	cs_dcheck_res_t r;

	if (e->dcheck == CS_DCHECK_OFF || end <= lo ||
	    !cs_dcheck_desc_init(&e->c, of, &d))
		return 0;
	if (run_check(e, of, &d, got, lo, end, &r) != 0 || r.wrong ||
	    r.checked != end - lo)
		return 0;
	l->elems += end - lo;
	l->bytes += (end - lo) * cs_dtype_size(e->c.dtype);
	/* the covered cases (integers, or no op) have no statistical model:
	 * cs_stats_add only notes the case and counts the elements, and
	 * reads neither goldens nor data */
	if (cs_exec_stats_call(e))
		cs_stats_add(&l->stats, e->c.dtype, e->c.op, e->c.nranks, NULL,
			     NULL, end - lo);
	return 1;
}
