/*
 * inproc_plugin.c - a host-memory plugin of the all-ranks-in-one-process
 * model (CS_PROC_ALL_IN_PROCESS), for the harness's tests: one process
 * holds every rank's buffers, so allreduce, allgather and broadcast are
 * computed across the ranks' buffers when the group closes.
 *
 * Calls between group_start and group_end are recorded, one per rank;
 * group_end runs them, team by team (a team is the ranks of one
 * communicator), after checking that every rank of the team called the
 * same collective. comm_split works the same way: one call per rank in a
 * group, the new teams made at group_end, as MPI_Comm_split makes them.
 * A one-rank team may also be called outside a group.
 *
 * Reductions use csref's arithmetic, folding the ranks in rank order, so
 * every case of the three collectives can pass. --backend-opt chooses one
 * deliberate fault:
 *   none       no fault: must pass
 *   value      allreduce: the last rank's last element is its own input
 *   rankround  allreduce: each rank folds starting from its own input, so
 *              ranks round differently (ranks disagree)
 *   error      allreduce of count 1: every rank's call fails, with an
 *              error string the report must quote
 *   hang       allreduce of count 1: group_end never returns
 *   crash      allreduce of count 1: group_end aborts the process
 *   stdout     no fault in the results, but every group_end writes
 *              garbage (half a JSON object, an XML tag) to stdout
 * (other counts run normally, so a sweep can be seen to resume)
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "collspec/backend.h"
#include "csref/arith.h"
#include "csref/reduce.h"

enum fault { F_NONE, F_VALUE, F_RANKROUND, F_ERROR, F_HANG, F_CRASH,
	     F_STDOUT };

static const char *const fault_names[] = {
	"none", "value", "rankround", "error", "hang", "crash", "stdout",
};

#define IP_EINVAL 1
#define IP_ENOMEM 2
#define IP_EFAULT 7

static enum fault fault;
static char ip_err[256];

struct team {
	int nranks;
	int refs;
};

struct ip_comm {
	struct team *team; /* NULL until the group of its split closes */
	int rank;
};

/* A call recorded in a group: a collective, or a comm_split. */
struct rec {
	struct ip_comm *c;
	cs_coll_t coll;
	const void *s;
	void *r;
	size_t count;
	cs_dtype_t d;
	cs_op_t op;
	uint64_t scalar;
	int root;
	int split, color, key; /* comm_split: its arguments and result */
	struct ip_comm *newc;
};

static struct rec *recs;
static size_t nrec, caprec;
static int depth;

static int fail(int err, const char *msg)
{
	snprintf(ip_err, sizeof ip_err, "%s", msg);
	return err;
}

static int record(const struct rec *r)
{
	if (nrec == caprec) {
		size_t cap = caprec ? 2 * caprec : 16;
		struct rec *p = realloc(recs, cap * sizeof *p);
		if (!p)
			return fail(IP_ENOMEM, "out of memory");
		recs = p;
		caprec = cap;
	}
	recs[nrec++] = *r;
	return 0;
}

/* ---- communicators ------------------------------------------------------- */

static struct team *new_team(int nranks)
{
	struct team *t = malloc(sizeof *t);

	if (t) {
		t->nranks = nranks;
		t->refs = 0;
	}
	return t;
}

static int ip_init_all(int nranks, const char *options, cs_bcomm_t *comms)
{
	struct team *t;
	size_t i;
	int r;

	for (i = 0; i < sizeof fault_names / sizeof *fault_names; i++)
		if (options && !strcmp(options, fault_names[i]))
			break;
	if (i == sizeof fault_names / sizeof *fault_names)
		return fail(IP_EINVAL, "unknown fault in --backend-opt (none "
			    "value rankround error hang crash stdout)");
	fault = (enum fault)i;
	if (!(t = new_team(nranks)))
		return fail(IP_ENOMEM, "out of memory");
	for (r = 0; r < nranks; r++) {
		struct ip_comm *c = malloc(sizeof *c);
		if (!c)
			return fail(IP_ENOMEM, "out of memory");
		c->team = t;
		c->rank = r;
		t->refs++;
		comms[r] = c;
	}
	return 0;
}

static int ip_comm_free(cs_bcomm_t comm)
{
	struct ip_comm *c = comm;

	if (c->team && --c->team->refs == 0)
		free(c->team);
	free(c);
	return 0;
}

static int ip_flush(void);

static int ip_comm_split(cs_bcomm_t comm, int color, int key,
			 const cs_bootstrap_t *sub, cs_bcomm_t *out)
{
	struct ip_comm *c = comm, *n = calloc(1, sizeof *n);
	struct rec r;
	int rc;

	(void)sub; /* NULL in this model */
	if (!n)
		return fail(IP_ENOMEM, "out of memory");
	memset(&r, 0, sizeof r);
	r.c = c;
	r.split = 1;
	r.color = color;
	r.key = key;
	r.newc = n;
	if (depth == 0 && c->team->nranks != 1)
		rc = fail(IP_EINVAL, "comm_split outside a group");
	else
		rc = record(&r);
	if (rc) {
		free(n);
		return rc;
	}
	*out = n;
	return depth ? 0 : ip_flush();
}

/* Rank of member m among the team's records m[0..P): by key, then by
 * rank in the parent. */
static int split_rank(struct rec **m, int P, int me)
{
	int q, k = 0;

	for (q = 0; q < P; q++)
		if (m[q]->color == m[me]->color &&
		    (m[q]->key < m[me]->key ||
		     (m[q]->key == m[me]->key && q < me)))
			k++;
	return k;
}

/* The new teams of one split: one per color. */
static int run_split(struct rec **m, int P)
{
	int q, k;

	for (q = 0; q < P; q++) {
		struct team *t = NULL;
		for (k = 0; k < q && !t; k++)
			if (m[k]->color == m[q]->color)
				t = m[k]->newc->team;
		if (!t) {
			if (!(t = new_team(0)))
				return fail(IP_ENOMEM, "out of memory");
			for (k = 0; k < P; k++)
				t->nranks += m[k]->color == m[q]->color;
		}
		t->refs++;
		m[q]->newc->team = t;
		m[q]->newc->rank = split_rank(m, P, q);
	}
	return 0;
}

/* ---- the collectives, over a team's P records (m[rank]) ------------------ */

static unsigned char *gather_inputs(struct rec **m, int P, size_t bytes)
{
	unsigned char *all = malloc(bytes * (size_t)P + 1);
	int q;

	for (q = 0; all && q < P; q++)
		memcpy(all + (size_t)q * bytes, m[q]->s, bytes);
	return all;
}

/* out = the reduction of every rank's input, folding from rank `first`. */
static void fold(struct rec **m, int P, const unsigned char *all, int first,
		 void *out)
{
	cs_dtype_t d = m[0]->d;
	cs_op_t op = m[0]->op;
	size_t n = m[0]->count, bytes = n * cs_dtype_size(d);
	unsigned char *tmp = malloc(bytes + 1);
	int k;

	for (k = 0; k < P && tmp; k++) {
		int q = (first + k) % P;
		cs_op_prepare(d, op, P, m[q]->scalar, k ? tmp : out,
			      all + (size_t)q * bytes, n);
		if (k)
			cs_reduce_bufs(d, op, out, tmp, n);
	}
	cs_op_finish(d, op, P, out, n);
	free(tmp);
}

static int run_allreduce(struct rec **m, int P)
{
	size_t es = cs_dtype_size(m[0]->d), n = m[0]->count;
	unsigned char *all = gather_inputs(m, P, n * es);
	int q;

	if (!all)
		return fail(IP_ENOMEM, "out of memory");
	for (q = 0; q < P; q++)
		fold(m, P, all, fault == F_RANKROUND ? q : 0, m[q]->r);
	if (fault == F_VALUE && P > 1 && n)
		memcpy((unsigned char *)m[P - 1]->r + (n - 1) * es,
		       all + (size_t)(P - 1) * n * es + (n - 1) * es, es);
	free(all);
	return 0;
}

static int run_allgather(struct rec **m, int P)
{
	size_t bytes = m[0]->count * cs_dtype_size(m[0]->d);
	unsigned char *all = gather_inputs(m, P, bytes);
	int q;

	if (!all)
		return fail(IP_ENOMEM, "out of memory");
	for (q = 0; q < P; q++)
		memcpy(m[q]->r, all, bytes * (size_t)P);
	free(all);
	return 0;
}

static int run_broadcast(struct rec **m, int P)
{
	size_t bytes = m[0]->count * cs_dtype_size(m[0]->d);
	int root = m[0]->root, q;
	unsigned char *in;

	if (root < 0 || root >= P)
		return fail(IP_EINVAL, "broadcast root outside the team");
	if (!(in = malloc(bytes + 1)))
		return fail(IP_ENOMEM, "out of memory");
	memcpy(in, m[root]->s, bytes);
	for (q = 0; q < P; q++)
		memcpy(m[q]->r, in, bytes);
	free(in);
	return 0;
}

/* The faults that strike when the group runs an allreduce of count 1. */
static void strike(struct rec **m)
{
	if (m[0]->split || m[0]->coll != CS_COLL_ALLREDUCE || m[0]->count != 1)
		return;
	if (fault == F_HANG)
		for (;;)
			pause();
	if (fault == F_CRASH)
		abort();
}

static int run_team(struct rec **m, int P)
{
	strike(m);
	if (m[0]->split)
		return run_split(m, P);
	switch (m[0]->coll) {
	case CS_COLL_ALLREDUCE:
		return run_allreduce(m, P);
	case CS_COLL_ALLGATHER:
		return run_allgather(m, P);
	case CS_COLL_REDUCESCATTER:
	case CS_COLL_ALLTOALL:
	case CS_COLL_ALLTOALLV:
	case CS_COLL_BROADCAST:
	case CS_COLL_REDUCE:
	case CS_COLL_GATHER:
	case CS_COLL_SCATTER:
	case CS_COLL_SENDRECV:
	case CS_NUM_COLLS: /* not a collective */
	default:
		return run_broadcast(m, P);
	}
}

/* ---- groups --------------------------------------------------------------- */

/* The records of the team of recs[i], by rank, into m[]; marks them done.
 * 0, or an error when the team's ranks did not all make the same call. */
static int team_of(size_t i, char *done, struct rec **m)
{
	struct team *t = recs[i].c->team;
	size_t j;
	int n = 0;

	memset(m, 0, (size_t)t->nranks * sizeof *m);
	for (j = i; j < nrec; j++) {
		struct rec *r = &recs[j];
		if (done[j] || r->c->team != t)
			continue;
		if (m[r->c->rank] || r->split != recs[i].split ||
		    r->coll != recs[i].coll || r->count != recs[i].count)
			return fail(IP_EINVAL, "the ranks of a communicator "
				    "made different calls in one group");
		m[r->c->rank] = r;
		done[j] = 1;
		n++;
	}
	if (n != t->nranks)
		return fail(IP_EINVAL, "a group closed before every rank of a "
			    "communicator made its call");
	return 0;
}

static void garbage(void)
{
	static const char junk[] = "STDOUT-GARBAGE {\"verdict\":\"PASS\",\"ch";

	printf("STDOUT-GARBAGE <testcase name=\"bogus\"><failure>\n");
	fflush(stdout);
	(void)!write(STDOUT_FILENO, junk, sizeof junk - 1);
}

/* Run and forget every recorded call. */
static int ip_flush(void)
{
	char *done = calloc(nrec + 1, 1);
	struct rec **m = calloc(nrec + 1, sizeof *m);
	size_t i;
	int rc = done && m ? 0 : fail(IP_ENOMEM, "out of memory");

	if (fault == F_STDOUT)
		garbage();
	for (i = 0; i < nrec && !rc; i++)
		if (!done[i] && (rc = team_of(i, done, m)) == 0)
			rc = run_team(m, recs[i].c->team->nranks);
	nrec = 0;
	free(done);
	free(m);
	return rc;
}

static int ip_group_start(void)
{
	depth++;
	return 0;
}

static int ip_group_end(void)
{
	if (depth == 0)
		return fail(IP_EINVAL, "group_end without group_start");
	return --depth ? 0 : ip_flush();
}

/* Record one rank's collective (run at once for a one-rank team). */
static int call(struct rec *r, cs_bcomm_t comm, const void *scalar)
{
	int rc;

	r->c = comm;
	r->scalar = scalar ? cs_load(r->d, scalar, 0) : 0;
	if (fault == F_ERROR && r->coll == CS_COLL_ALLREDUCE && r->count == 1)
		return fail(IP_EFAULT, "injected error: the inproc test plugin "
			    "refuses allreduce of count 1");
	if (depth == 0 && r->c->team->nranks != 1)
		return fail(IP_EINVAL, "a collective outside a group");
	if ((rc = record(r)) != 0)
		return rc;
	return depth ? 0 : ip_flush();
}

static int ip_allreduce(const void *s, void *r, size_t count, cs_dtype_t d,
			cs_op_t op, const void *scalar, cs_bcomm_t comm,
			void *stream)
{
	struct rec x = { .coll = CS_COLL_ALLREDUCE, .s = s, .r = r,
			 .count = count, .d = d, .op = op };

	(void)stream;
	return call(&x, comm, scalar);
}

static int ip_allgather(const void *s, void *r, size_t count, cs_dtype_t d,
			cs_bcomm_t comm, void *stream)
{
	struct rec x = { .coll = CS_COLL_ALLGATHER, .s = s, .r = r,
			 .count = count, .d = d };

	(void)stream;
	return call(&x, comm, NULL);
}

static int ip_broadcast(const void *s, void *r, size_t count, cs_dtype_t d,
			int root, cs_bcomm_t comm, void *stream)
{
	struct rec x = { .coll = CS_COLL_BROADCAST, .s = s, .r = r,
			 .count = count, .d = d, .root = root };

	(void)stream;
	return call(&x, comm, NULL);
}

static int ip_sync(cs_bcomm_t comm, void *stream)
{
	(void)comm;
	(void)stream;
	return 0;
}

static const char *ip_error_string(cs_bcomm_t comm, int err)
{
	(void)comm;
	(void)err;
	return ip_err[0] ? ip_err : "inproc plugin error";
}

static int ip_finalize(void)
{
	free(recs);
	recs = NULL;
	nrec = caprec = 0;
	return 0;
}

static const cs_backend_t inproc_backend = {
	.abi_version = CS_BACKEND_ABI_VERSION,
	.struct_size = sizeof(cs_backend_t),
	.name = "inproc",
	.description = "every rank in one process, host memory (tests only)",
	.mem_kind = CS_MEM_HOST,
	.proc_model = CS_PROC_ALL_IN_PROCESS,
	.init_all = ip_init_all,
	.comm_split = ip_comm_split,
	.comm_free = ip_comm_free,
	.finalize = ip_finalize,
	.allreduce = ip_allreduce,
	.allgather = ip_allgather,
	.broadcast = ip_broadcast,
	.group_start = ip_group_start,
	.group_end = ip_group_end,
	.synchronize = ip_sync,
	.error_string = ip_error_string,
};

__attribute__((visibility("default")))
const cs_backend_t *collspec_backend(uint32_t harness_abi_version)
{
	(void)harness_abi_version;
	return &inproc_backend;
}
