/*
 * backend_gpu_coll.c - the collectives of the `gpu` and `gpu-sim`
 * backends up to their executors: options, which cases run, and the plan
 * of one team's call (see backend_gpu_impl.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "backends/gpu/backend_gpu_impl.h"
#include "csref/catalog.h"

static const char *const algo_names[] = {
#define ALGO_NAME_(ID, name, ...) name,
	CSG_ALGO_LIST(ALGO_NAME_)
#undef ALGO_NAME_
};

const char *cs_gpu_algo_name(csg_algo_t a)
{
	return (unsigned)a < CSG_NUM_ALGOS ? algo_names[a] : "?";
}

/* A number 0..max (0: default) from [s, s + n) into *out: true, or false
 * (*out untouched) when [s, s + n) is not one. */
static bool small_number_ok(const char *s, size_t n, int max, int *out)
{
	char buf[16], *end;
	long v;

	if (n == 0 || n >= sizeof buf)
		return false;
	memcpy(buf, s, n);
	buf[n] = 0;
	if (buf[0] < '0' || buf[0] > '9')
		return false;
	errno = 0;
	v = strtol(buf, &end, 10);
	if (errno || *end || v < 0 || v > max)
		return false;
	*out = (int)v;
	return true;
}

/* One "key=value" item of length n into o: true, or false with the
 * message in err[0..len). */
static bool item_ok(const char *s, size_t n, cs_gpuopts_t *o, char *err,
		    size_t len)
{
	const char *eq = memchr(s, '=', n);
	size_t k = eq ? (size_t)(eq - s) : n, vn = eq ? n - k - 1 : 0;
	int a, dcheck;

	if (eq && k == 4 && !strncmp(s, "algo", 4)) {
		for (a = 0; a < CSG_NUM_ALGOS; a++)
			if (strlen(algo_names[a]) == vn &&
			    !strncmp(eq + 1, algo_names[a], vn)) {
				o->algo = (csg_algo_t)a;
				return true;
			}
	} else if (eq && k == 8 && !strncmp(s, "channels", 8)) {
		if (small_number_ok(eq + 1, vn, CSG_MAX_CHAN, &o->nchan))
			return true;
	} else if (eq && k == 6 && !strncmp(s, "slices", 6)) {
		if (small_number_ok(eq + 1, vn, 64, &o->nslices))
			return true;
	} else if (eq && k == 6 && !strncmp(s, "dcheck", 6)) {
		/* read by the harness's check (check/dcheck.h), not here */
		if (vn == 1 && small_number_ok(eq + 1, vn, 1, &dcheck))
			return true;
	}
	snprintf(err, len, "bad backend option '%.*s' (valid: algo=auto|ring|"
		 "tree|direct|pairwise, channels=0..%d, slices=0..64, dcheck=0|1)",
		 (int)(n > 200 ? 200 : n), s, CSG_MAX_CHAN);
	return false;
}

cs_status_t cs_gpuopts_parse(const char *options, cs_gpuopts_t *o, char *err,
			     size_t len)
{
	const char *s = options ? options : "", *comma;

	o->algo = CSG_ALGO_AUTO;
	o->nchan = 0;
	o->nslices = 0;
	while (*s) {
		comma = strchr(s, ',');
		size_t n = comma ? (size_t)(comma - s) : strlen(s);

		if (n && !item_ok(s, n, o, err, len))
			return CS_ERR_INVALID;
		s += n + (comma != NULL);
	}
	return CS_OK;
}

int cs_gpu_supports(const cs_gpuopts_t *o, const cs_backend_query_t *q,
		    char *reason, size_t len)
{
	int a, n = 0;

	if (q->nranks > CSG_MAX_RANKS) {
		snprintf(reason, len, "the GPU schedules run at most %d ranks",
			 CSG_MAX_RANKS);
		return 0;
	}
	if (csg_algo_supports(o->algo, q->coll))
		return 1;
	n = snprintf(reason, len, "algo=%s implements", algo_names[o->algo]);
	for (a = 0; a < CS_NUM_COLLS && n > 0 && (size_t)n < len; a++)
		if (csg_algo_supports(o->algo, (cs_coll_t)a))
			n += snprintf(reason + n, len - (size_t)n, " %s",
				      cs_coll_name((cs_coll_t)a));
	if (n > 0 && (size_t)n < len)
		snprintf(reason + n, len - (size_t)n, " only");
	return 0;
}

void cs_gpu_vmat_free(cs_gpuvmat_t *v)
{
	free(v->cnt);
	v->cnt = v->sdis = v->rdis = NULL;
}

/* The matrix of an alltoallv from every rank's own arrays. */
static int build_vmat(const cs_ipcall_t *c, cs_gpuvmat_t *v, char *err,
		      size_t len)
{
	size_t P = (size_t)c->P, q, r;

	if (!(v->cnt = calloc(3 * P * P + 1, sizeof *v->cnt))) {
		snprintf(err, len, "out of memory");
		return CS_IPG_ENOMEM;
	}
	v->sdis = v->cnt + P * P;
	v->rdis = v->sdis + P * P;
	for (q = 0; q < P; q++)
		if (!c->sc[q] || !c->sd[q] || !c->rc[q] || !c->rd[q]) {
			snprintf(err, len, "alltoallv: rank %zu passed a NULL "
				 "count or displacement array", q);
			return CS_IPG_EINVAL;
		}
	for (q = 0; q < P; q++)
		for (r = 0; r < P; r++) {
			if (c->sc[q][r] != c->rc[r][q]) {
				snprintf(err, len, "alltoallv: rank %zu sends "
					 "%zu elements to rank %zu, which "
					 "expects %zu", q, c->sc[q][r], r,
					 c->rc[r][q]);
				return CS_IPG_EINVAL;
			}
			v->cnt[q * P + r] = c->sc[q][r];
			v->sdis[q * P + r] = c->sd[q][r];
			v->rdis[r * P + q] = c->rd[r][q];
		}
	return 0;
}

/* The in-place flag every significant rank agrees on, into *ip: true,
 * or false when some ranks called in place and some not. */
static bool agreed_inplace_ok(const cs_ipcall_t *c, int *ip)
{
	int q;

	if (cs_coll_rooted(c->coll)) {
		*ip = cs_ipcall_inplace(c, c->root);
		return true;
	}
	*ip = cs_ipcall_inplace(c, 0);
	for (q = 1; q < c->P; q++)
		if (cs_ipcall_inplace(c, q) != *ip)
			return false;
	return true;
}

int cs_gpu_plan(const cs_gpuopts_t *o, const cs_ipcall_t *c, csg_plan_t *p,
		cs_gpuvmat_t *v, char *err, size_t len)
{
	csg_vmat_t m = { NULL, NULL, NULL };
	int ip = 0, rc;

	v->cnt = v->sdis = v->rdis = NULL;
	if (!agreed_inplace_ok(c, &ip)) {
		snprintf(err, len, "%s: some ranks called in place and some "
			 "not", cs_coll_name(c->coll));
		return CS_IPG_EINVAL;
	}
	if (c->coll == CS_COLL_ALLTOALLV) {
		if ((rc = build_vmat(c, v, err, len)) != 0) {
			cs_gpu_vmat_free(v);
			return rc;
		}
		m.cnt = v->cnt;
		m.sdis = v->sdis;
		m.rdis = v->rdis;
	}
	if (csg_plan_init(p, c->coll, o->algo, c->P, c->root, ip, c->count,
			  cs_dtype_size(c->dtype), o->nchan ? o->nchan : 1,
			  o->nslices ? o->nslices : 1, m)) {
		snprintf(err, len, "%s with algo=%s over %d ranks (root %d): "
			 "not a plan the schedules accept",
			 cs_coll_name(c->coll), algo_names[o->algo], c->P,
			 c->root);
		cs_gpu_vmat_free(v);
		return CS_IPG_EINVAL;
	}
	return 0;
}

/* The largest end of rank q's blocks in the matrix (send or receive). */
static size_t vmat_extent(const csg_plan_t *p, int q, int send)
{
	size_t P = (size_t)p->P, r, end, most = 0, cnt, dis;

	for (r = 0; r < P; r++) {
		cnt = send ? p->v.cnt[(size_t)q * P + r]
			   : p->v.cnt[r * P + (size_t)q];
		dis = send ? p->v.sdis[(size_t)q * P + r]
			   : p->v.rdis[(size_t)q * P + r];
		end = dis + cnt;
		if (end > most)
			most = end;
	}
	return most;
}

size_t cs_gpu_send_len(const csg_plan_t *p, int q)
{
	size_t P = (size_t)p->P;

	switch (p->coll) {
	case CS_COLL_REDUCESCATTER:
	case CS_COLL_ALLTOALL:
		return P * p->n;
	case CS_COLL_SCATTER:
		return q == p->root ? P * p->n : 0;
	case CS_COLL_BROADCAST:
		return q == p->root ? p->n : 0;
	case CS_COLL_ALLTOALLV:
		return vmat_extent(p, q, 1);
	case CS_COLL_ALLREDUCE:
	case CS_COLL_ALLGATHER:
	case CS_COLL_REDUCE:
	case CS_COLL_GATHER:
	case CS_COLL_SENDRECV:
	case CS_NUM_COLLS: /* not a collective */
	default:
		return p->n;
	}
}

size_t cs_gpu_recv_len(const csg_plan_t *p, int q)
{
	size_t P = (size_t)p->P;

	switch (p->coll) {
	case CS_COLL_ALLGATHER:
	case CS_COLL_ALLTOALL:
		return P * p->n;
	case CS_COLL_GATHER:
		return q == p->root ? P * p->n : 0;
	case CS_COLL_REDUCE:
		return q == p->root ? p->n : 0;
	case CS_COLL_ALLTOALLV:
		return vmat_extent(p, q, 0);
	case CS_COLL_ALLREDUCE:
	case CS_COLL_REDUCESCATTER:
	case CS_COLL_BROADCAST:
	case CS_COLL_SCATTER:
	case CS_COLL_SENDRECV:
	case CS_NUM_COLLS: /* not a collective */
	default:
		return p->n;
	}
}
