/* harness.c - one checked call of the MPI reference (see harness.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "csref/arith.h"
#include "csref/compare.h"
#include "csref/gen.h"
#include "csref/mpiref.h"
#include "csref/oracle.h"
#include "harness.h"

#define GUARD 64 /* guard bytes on each side; the front one plus an element */

/* A buffer with guards: base = [front guard | payload | back guard]. */
struct arena {
	unsigned char *base, *snap;
	size_t front, bytes; /* front guard, payload bytes */
};

/* Everything one call needs and leaves behind on this rank. */
struct call {
	const t_run_t *t;
	int rank, P;
	size_t es;
	struct arena ar[2];
	int nar;
	void *sendbuf, *recvbuf;
	int rar;            /* arena of the receive range, -1 for none */
	size_t roff, rn;    /* receive range: payload element offset, count */
	size_t *lay;        /* alltoallv: sc, sd, rc, rd (P each), then every
			       rank's sdispls (P*P) */
};

static int prints;

/* ---- inputs ------------------------------------------------------------- */

static uint64_t local_input(cs_dtype_t d, uint64_t seed, int rank, size_t i)
{
	uint64_t h = cs_mix64(seed ^ ((uint64_t)(rank + 1) << 40) ^ i);
	double m;

	if (!cs_is_float(d))
		return h & cs_bits_mask(d);
	/* a full-width mantissa in [-8, 8): sums depend on their order */
	m = ((double)(h >> 11) * 0x1p-53 * 2 - 1) * (double)(1 << (h & 3));
	return cs_from_f64(d, m, 1);
}

uint64_t t_input(const t_run_t *t, int rank, size_t i)
{
	if (t->src == T_SRC_LOCAL)
		return local_input(t->c.dtype, t->c.seed, rank, i);
	return cs_gen_input(&t->c, rank, i);
}

uint64_t t_scalar(const t_run_t *t, int rank)
{
	cs_dtype_t d = t->c.dtype;

	if (t->src != T_SRC_LOCAL)
		return cs_gen_scalar(&t->c, rank);
	if (cs_is_float(d))
		return cs_from_f64(d, 0.75 + 0.5 * (rank % 3), 1);
	return (uint64_t)(int64_t)(rank % 5 - 2) & cs_bits_mask(d);
}

static void fill_input(const struct call *x, void *buf, size_t n)
{
	size_t i;

	if (x->t->src != T_SRC_LOCAL) {
		cs_gen_fill(&x->t->c, x->rank, buf, 0, n);
		return;
	}
	for (i = 0; i < n; i++)
		cs_store(x->t->c.dtype, buf, i, t_input(x->t, x->rank, i));
}

/* ---- the test's own expectation ----------------------------------------- */

/* The rank-order left fold of input element i (csref/reduce.h, per
 * element): what every rank must receive bit for bit. */
static uint64_t fold(const t_run_t *t, int P, size_t i)
{
	cs_dtype_t d = t->c.dtype;
	cs_op_t op = t->c.op;
	uint64_t acc = 0;
	int s;

	for (s = 0; s < P; s++) {
		uint64_t x = t_input(t, s, i);

		if (op == CS_OP_PREMULSUM)
			x = cs_op_premul(d, x, t_scalar(t, s));
		else if (op == CS_OP_AVG && cs_is_float(d))
			x = cs_op_premul(d, x, cs_avg_scalar(d, P));
		acc = s ? cs_step(d, cs_step_op(op), acc, x) : x;
	}
	if (op == CS_OP_AVG && !cs_is_float(d))
		acc = cs_op_postdiv(d, acc, P);
	return acc;
}

static uint64_t prior(const struct call *x, size_t j)
{
	const struct arena *a = &x->ar[x->rar];

	return cs_load(x->t->c.dtype, a->snap + a->front, x->roff + j);
}

/* alltoallv: element j of our receive buffer. */
static uint64_t expect_a2av(const struct call *x, size_t j)
{
	const size_t *rc = x->lay + 2 * x->P, *rd = x->lay + 3 * x->P;
	const size_t *all_sd = x->lay + 4 * x->P;
	int q;

	for (q = 0; q < x->P; q++)
		if (j >= rd[q] && j < rd[q] + rc[q])
			return t_input(x->t, q, all_sd[(size_t)q * x->P + x->rank] +
				       (j - rd[q]));
	return prior(x, j); /* a gap */
}

static uint64_t expect(const struct call *x, size_t j)
{
	const cs_case_t *c = &x->t->c;
	size_t n = c->count;
	int r = x->rank, P = x->P;

	switch (c->coll) {
	case CS_COLL_ALLREDUCE:
	case CS_COLL_REDUCE:
		return fold(x->t, P, j);
	case CS_COLL_REDUCESCATTER:
		return fold(x->t, P, (size_t)r * n + j);
	case CS_COLL_ALLGATHER:
	case CS_COLL_GATHER:
		return t_input(x->t, (int)(j / n), j % n);
	case CS_COLL_ALLTOALL:
		return t_input(x->t, (int)(j / n), (size_t)r * n + j % n);
	case CS_COLL_ALLTOALLV:
		return expect_a2av(x, j);
	case CS_COLL_BROADCAST:
		return t_input(x->t, c->root, j);
	case CS_COLL_SCATTER:
		return t_input(x->t, c->root, (size_t)r * n + j);
	case CS_COLL_SENDRECV:
	case CS_NUM_COLLS: /* not a collective */
	default: /* sendrecv */
		return t_input(x->t, (r + P - 1) % P, j);
	}
}

/* ---- buffers -------------------------------------------------------------- */

static uint64_t canary(cs_dtype_t d, int k, size_t i)
{
	return cs_mix64(0xca11ab1eull ^ ((uint64_t)k << 56) ^ i) & cs_bits_mask(d);
}

/* A new arena of n elements: guards and payload hold canary patterns. */
static unsigned char *arena_new(struct call *x, size_t n)
{
	struct arena *a = &x->ar[x->nar];
	size_t total, i;

	a->front = GUARD + x->es;
	a->bytes = n * x->es;
	total = a->front + a->bytes + GUARD;
	a->base = malloc(total);
	a->snap = malloc(total);
	if (!a->base || !a->snap) {
		fprintf(stderr, "test: out of memory for %zu bytes\n", total);
		abort();
	}
	for (i = 0; i < total; i++)
		a->base[i] = (unsigned char)(0xc5 ^ (i * 7) ^ x->nar);
	for (i = 0; i < n; i++)
		cs_store(x->t->c.dtype, a->base + a->front, i,
			 canary(x->t->c.dtype, x->nar, i));
	x->nar++;
	return a->base + a->front;
}

static void set_recv(struct call *x, void *buf, int ar, size_t off, size_t n)
{
	x->recvbuf = buf;
	x->rar = ar;
	x->roff = off;
	x->rn = n;
}

/* Out of place: send arena (NULL at non-roots of broadcast/scatter) and
 * receive arena (full size but an empty range at non-roots of
 * reduce/gather, which must not be touched). */
static void layout_out(struct call *x)
{
	const cs_case_t *c = &x->t->c;
	size_t sn = cs_case_send_count(c, x->rank);
	size_t rn = cs_case_recv_count(c, x->rank);
	int rooted_send = c->coll == CS_COLL_BROADCAST || c->coll == CS_COLL_SCATTER;
	int rooted_recv = c->coll == CS_COLL_REDUCE || c->coll == CS_COLL_GATHER;
	int root = x->rank == c->root;
	unsigned char *r;

	x->sendbuf = NULL;
	if (!rooted_send || root) {
		x->sendbuf = arena_new(x, sn);
		fill_input(x, x->sendbuf, sn);
	}
	if (rooted_recv && !root) {
		r = arena_new(x, c->coll == CS_COLL_GATHER ? c->count * x->P
							     : c->count);
		set_recv(x, r, x->nar - 1, 0, 0);
	} else {
		r = arena_new(x, rn);
		set_recv(x, r, x->nar - 1, 0, rn);
	}
}

/* In place, one shared arena (csref/mpiref.h gives each form). */
static void layout_in(struct call *x)
{
	const cs_case_t *c = &x->t->c;
	size_t n = c->count, Pn = n * (size_t)x->P, r = (size_t)x->rank;
	size_t sn = cs_case_send_count(c, x->rank);
	size_t rn = cs_case_recv_count(c, x->rank);
	unsigned char *a = arena_new(x, sn > rn ? sn : rn);

	x->sendbuf = a;
	set_recv(x, a, 0, 0, rn);
	switch (c->coll) {
	case CS_COLL_ALLGATHER: /* our input already in block r */
		x->sendbuf = a + r * n * x->es;
		fill_input(x, x->sendbuf, n);
		return;
	case CS_COLL_REDUCESCATTER: /* our result lands on block r */
		fill_input(x, a, Pn);
		set_recv(x, a + r * n * x->es, 0, r * n, n);
		return;
	case CS_COLL_ALLREDUCE:
	case CS_COLL_ALLTOALL:
	case CS_COLL_ALLTOALLV:
	case CS_COLL_BROADCAST:
	case CS_COLL_REDUCE:
	case CS_COLL_GATHER:
	case CS_COLL_SCATTER:
	case CS_COLL_SENDRECV:
	case CS_NUM_COLLS: /* not a collective */
	default:
		/* the input (none at non-roots of broadcast and scatter)
		 * fills the start of the one buffer; gather's root has it in
		 * block 0 and reduce's non-roots get an empty receive range */
		fill_input(x, a, sn);
	}
}

/* gather/scatter with the root's block in place (MPI_IN_PLACE layout). */
static void layout_in_mpi(struct call *x)
{
	const cs_case_t *c = &x->t->c;
	size_t n = c->count, off = (size_t)c->root * n;
	unsigned char *a;

	if (x->rank != c->root) {
		layout_out(x);
		if (c->coll == CS_COLL_GATHER) /* recvbuf may be NULL here */
			x->recvbuf = NULL;
		return;
	}
	a = arena_new(x, n * (size_t)x->P);
	if (c->coll == CS_COLL_GATHER) {
		x->sendbuf = a + off * x->es;
		fill_input(x, x->sendbuf, n);
		set_recv(x, a, 0, 0, n * (size_t)x->P);
	} else {
		x->sendbuf = a;
		fill_input(x, a, n * (size_t)x->P);
		set_recv(x, a + off * x->es, 0, off, n);
	}
}

static void layout_a2av(struct call *x)
{
	size_t P = (size_t)x->P, q, *tmp;

	x->lay = malloc(sizeof(size_t) * (4 * P + P * P));
	tmp = malloc(sizeof(size_t) * 3 * P);
	if (!x->lay || !tmp)
		abort();
	cs_a2av_layout(&x->t->c, x->rank, x->lay, x->lay + P, x->lay + 2 * P,
		       x->lay + 3 * P);
	for (q = 0; q < P; q++)
		cs_a2av_layout(&x->t->c, (int)q, tmp, x->lay + 4 * P + q * P,
			       tmp + P, tmp + 2 * P);
	free(tmp);
}

static void snapshot(struct call *x)
{
	int k;

	for (k = 0; k < x->nar; k++)
		memcpy(x->ar[k].snap, x->ar[k].base,
		       x->ar[k].front + x->ar[k].bytes + GUARD);
}

/* ---- the call ------------------------------------------------------------ */

static cs_status_t call_ref(const struct call *x)
{
	const cs_case_t *c = &x->t->c;
	cs_dtype_t d = c->dtype;
	size_t n = c->count, P = (size_t)x->P;
	uint64_t s = t_scalar(x->t, x->rank);
	MPI_Comm m = x->t->comm;

	switch (c->coll) {
	case CS_COLL_ALLREDUCE:
		return cs_mpiref_allreduce(x->sendbuf, x->recvbuf, n, d, c->op, s, m);
	case CS_COLL_ALLGATHER:
		return cs_mpiref_allgather(x->sendbuf, x->recvbuf, n, d, m);
	case CS_COLL_REDUCESCATTER:
		return cs_mpiref_reducescatter(x->sendbuf, x->recvbuf, n, d, c->op,
					       s, m);
	case CS_COLL_ALLTOALL:
		return cs_mpiref_alltoall(x->sendbuf, x->recvbuf, n, d, m);
	case CS_COLL_ALLTOALLV:
		return cs_mpiref_alltoallv(x->sendbuf, x->lay, x->lay + P,
					   x->recvbuf, x->lay + 2 * P,
					   x->lay + 3 * P, d, m);
	case CS_COLL_BROADCAST:
		return cs_mpiref_broadcast(x->sendbuf, x->recvbuf, n, d, c->root, m);
	case CS_COLL_REDUCE:
		return cs_mpiref_reduce(x->sendbuf, x->recvbuf, n, d, c->op, s,
					c->root, m);
	case CS_COLL_GATHER:
		return cs_mpiref_gather(x->sendbuf, x->recvbuf, n, d, c->root, m);
	case CS_COLL_SCATTER:
		return cs_mpiref_scatter(x->sendbuf, x->recvbuf, n, d, c->root, m);
	case CS_COLL_SENDRECV:
	case CS_NUM_COLLS: /* not a collective */
	default:
		return cs_mpiref_sendrecv(x->sendbuf, x->recvbuf, n, d, m);
	}
}

/* ---- checks --------------------------------------------------------------- */

static void report(const struct call *x, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void report(const struct call *x, const char *fmt, ...)
{
	char what[256], run[256];
	int world;
	va_list ap;

	if (prints++ >= T_MAX_PRINTS)
		return;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	t_run_format(x->t, run, sizeof run);
	MPI_Comm_rank(MPI_COMM_WORLD, &world);
	fprintf(stderr, "FAIL world rank %d (rank %d of %s): %s\n  %s\n",
		world, x->rank, x->t->comm_name, run, what);
}

/* Every byte outside the receive range is as it was. */
static int check_untouched(const struct call *x)
{
	int k, bad = 0;

	for (k = 0; k < x->nar; k++) {
		const struct arena *a = &x->ar[k];
		size_t total = a->front + a->bytes + GUARD, i;
		size_t lo = total, hi = total;

		if (k == x->rar) {
			lo = a->front + x->roff * x->es;
			hi = lo + x->rn * x->es;
		}
		for (i = 0; i < total; i++) {
			if ((i >= lo && i < hi) || a->base[i] == a->snap[i])
				continue;
			report(x, "buffer %d byte %td (payload-relative) changed "
			       "outside the receive range: 0x%02x -> 0x%02x", k,
			       (ptrdiff_t)i - (ptrdiff_t)a->front, a->snap[i],
			       a->base[i]);
			bad++;
			break;
		}
	}
	return bad;
}

/* The receive range against the test's own expectation, bit for bit. */
static int check_local(const struct call *x)
{
	cs_dtype_t d = x->t->c.dtype;
	size_t j, wrong = 0;

	for (j = 0; j < x->rn; j++) {
		uint64_t got = cs_load(d, x->recvbuf, j), want = expect(x, j);

		if (got == want)
			continue;
		if (wrong++ < 3)
			report(x, "element %zu: got 0x%llx, expected 0x%llx", j,
			       (unsigned long long)got, (unsigned long long)want);
	}
	return wrong ? 1 : 0;
}

static const struct call *canary_call;

static uint64_t oracle_canary(size_t j)
{
	return prior(canary_call, j);
}

/* The receive range against the pure oracle (generated inputs only). */
static int check_oracle(const struct call *x)
{
	enum { SLICE = 2048 };
	cs_golden_t *g = malloc(SLICE * sizeof *g);
	cs_cmp_summary_t sum;
	size_t lo;

	if (!g)
		abort();
	cs_cmp_summary_init(&sum);
	canary_call = x;
	for (lo = 0; lo < x->rn; lo += SLICE) {
		size_t m = x->rn - lo < SLICE ? x->rn - lo : SLICE;

		if (cs_oracle_expect(&x->t->c, x->rank, lo, m, oracle_canary, g)) {
			report(x, "oracle: %s", cs_last_error());
			free(g);
			return 1;
		}
		cs_compare_range(x->t->c.dtype, g,
				 (unsigned char *)x->recvbuf + lo * x->es, m, lo,
				 &sum);
	}
	free(g);
	if (sum.n_wrong == 0)
		return 0;
	report(x, "oracle: %zu of %zu elements wrong; first at %zu: got 0x%llx, "
	       "expected 0x%llx (bound %g)", sum.n_wrong, sum.n,
	       sum.first[0].index, (unsigned long long)sum.first[0].got,
	       (unsigned long long)sum.first[0].expected, sum.first[0].bound);
	return 1;
}

/* allreduce: the same bits on every rank of the communicator. */
static int check_identical(const struct call *x)
{
	uint64_t h = 0x9e3779b97f4a7c15ull, mx, mn;
	size_t j;

	for (j = 0; j < x->rn; j++)
		h = cs_mix64(h ^ cs_load(x->t->c.dtype, x->recvbuf, j));
	MPI_Allreduce(&h, &mx, 1, MPI_UINT64_T, MPI_MAX, x->t->comm);
	MPI_Allreduce(&h, &mn, 1, MPI_UINT64_T, MPI_MIN, x->t->comm);
	if (mx == mn)
		return 0;
	report(x, "allreduce results differ between ranks");
	return 1;
}

static int check_all(const struct call *x, cs_status_t st)
{
	int bad = 0;

	if (st != CS_OK) {
		report(x, "returned %d (%s): %s", st, cs_status_string(st),
		       cs_last_error());
		bad++;
	}
	bad += check_untouched(x);
	bad += check_local(x);
	if (x->t->src != T_SRC_LOCAL && x->rn > 0)
		bad += check_oracle(x);
	if (x->t->c.coll == CS_COLL_ALLREDUCE)
		bad += check_identical(x);
	return bad;
}

int t_run_exec(const t_run_t *t)
{
	struct call x = {.t = t, .rar = -1};
	cs_status_t st;
	int bad, k;

	MPI_Comm_rank(t->comm, &x.rank);
	MPI_Comm_size(t->comm, &x.P);
	x.es = cs_dtype_size(t->c.dtype);
	if (cs_case_validate(&t->c) != CS_OK || t->c.nranks != x.P) {
		report(&x, "bad test case: %s", cs_last_error());
		return 1;
	}
	if (t->c.coll == CS_COLL_ALLTOALLV)
		layout_a2av(&x);
	if (t->place == T_OUT)
		layout_out(&x);
	else if (t->place == T_IN)
		layout_in(&x);
	else
		layout_in_mpi(&x);
	snapshot(&x);
	st = call_ref(&x);
	bad = check_all(&x, st);
	for (k = 0; k < x.nar; k++) {
		free(x.ar[k].base);
		free(x.ar[k].snap);
	}
	free(x.lay);
	return bad;
}

void t_run_format(const t_run_t *t, char *buf, size_t n)
{
	static const char *src[] = {"gen-exact", "gen-random", "local"};
	static const char *place[] = {"out-of-place", "in-place",
				      "in-place(root block)"};
	int k = cs_case_format(&t->c, buf, n);

	if (k >= 0 && (size_t)k < n)
		snprintf(buf + k, n - (size_t)k, " inputs=%s %s", src[t->src],
			 place[t->place]);
}
