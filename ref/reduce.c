/* reduce.c - buffer-level reduction arithmetic (see csref/reduce.h). */
#include "csref/reduce.h"
#include "csref/arith.h"

void cs_reduce_bufs(cs_dtype_t d, cs_op_t op, void *inout, const void *in,
		    size_t n)
{
	cs_op_t step = cs_step_op(op);
	size_t i;

#pragma omp parallel for if (n > 65536) schedule(static)
	for (i = 0; i < n; i++)
		cs_store(d, inout, i,
			 cs_step(d, step, cs_load(d, inout, i), cs_load(d, in, i)));
}

void cs_op_prepare(cs_dtype_t d, cs_op_t op, int nranks, uint64_t scalar,
		   void *dst, const void *src, size_t n)
{
	int premul = op == CS_OP_PREMULSUM || (op == CS_OP_AVG && cs_is_float(d));
	uint64_t k = op == CS_OP_AVG ? cs_avg_scalar(d, nranks) : scalar;
	size_t i;

#pragma omp parallel for if (n > 65536) schedule(static)
	for (i = 0; i < n; i++) {
		uint64_t x = cs_load(d, src, i);
		cs_store(d, dst, i, premul ? cs_op_premul(d, x, k) : x);
	}
}

void cs_op_finish(cs_dtype_t d, cs_op_t op, int nranks, void *buf, size_t n)
{
	size_t i;

	if (op != CS_OP_AVG || cs_is_float(d))
		return;
#pragma omp parallel for if (n > 65536) schedule(static)
	for (i = 0; i < n; i++)
		cs_store(d, buf, i, cs_op_postdiv(d, cs_load(d, buf, i), nranks));
}
