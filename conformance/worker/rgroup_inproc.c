/*
 * rgroup_inproc.c - the all-in-one-process group (rgroup.h): for a backend
 * whose process model is CS_PROC_ALL_IN_PROCESS, this one process drives
 * every rank of one world size P, with no MPI. The exchanges between ranks
 * are copies in memory; a communicator variant's groups are computed as
 * MPI_Comm_split would form them (ranks of one color, ordered by key, then
 * by world rank).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "base/names.h"
#include "worker/rgroup.h"

/* Every variant's groups, per world rank. */
struct ipg {
	int *color[CS_RG_SLOTS]; /* NULL until split */
	int *rank[CS_RG_SLOTS];
};

static struct ipg *ipg_of(cs_rgroup_t *g)
{
	return g->impl;
}

static cs_status_t ip_split(cs_rgroup_t *g, cs_commvar_t v, const int *color,
			    const int *key, int *rank, int *size)
{
	struct ipg *m = ipg_of(g);
	int P = g->world, r, q;

	m->color[v] = malloc((size_t)P * sizeof *m->color[v]);
	m->rank[v] = malloc((size_t)P * sizeof *m->rank[v]);
	if (!m->color[v] || !m->rank[v])
		return cs_error(CS_ERR_NOMEM, "out of memory");
	memcpy(m->color[v], color, (size_t)P * sizeof *color);
	for (r = 0; r < P; r++) {
		rank[r] = size[r] = 0;
		for (q = 0; q < P; q++) {
			if (color[q] != color[r])
				continue;
			size[r]++;
			rank[r] += key[q] < key[r] || (key[q] == key[r] && q < r);
		}
	}
	memcpy(m->rank[v], rank, (size_t)P * sizeof *rank);
	return CS_OK;
}

static const cs_bootstrap_t *ip_boot(cs_rgroup_t *g, cs_commvar_t v, int i)
{
	(void)g, (void)v, (void)i;
	return NULL;
}

static int ip_max(cs_rgroup_t *g, const int *v)
{
	int r, max = v[0];

	for (r = 1; r < g->nlocal; r++)
		max = v[r] > max ? v[r] : max;
	return max;
}

static void ip_gather(cs_rgroup_t *g, const void *mine, size_t n, void *all)
{
	if (all != mine)
		memcpy(all, mine, (size_t)g->world * n);
}

static void ip_allgather(cs_rgroup_t *g, cs_commvar_t v, const void *mine,
			 size_t n, void *out)
{
	const struct ipg *m = ipg_of(g);
	size_t P = (size_t)g->world, r, q;

	for (r = 0; r < P; r++)
		for (q = 0; q < P; q++)
			if (m->color[v][q] == m->color[v][r])
				memcpy((char *)out + (r * P + (size_t)m->rank[v][q]) * n,
				       (const char *)mine + q * n, n);
}

static void ip_bcast(cs_rgroup_t *g, cs_commvar_t v, void *const *buf,
		     size_t n, int root)
{
	const struct ipg *m = ipg_of(g);
	int P = g->world, r, q;

	for (q = 0; q < P; q++) {
		if (m->rank[v][q] != root)
			continue;
		for (r = 0; r < P; r++)
			if (r != q && m->color[v][r] == m->color[v][q])
				memcpy(buf[r], buf[q], n);
	}
}

static double ip_now(cs_rgroup_t *g)
{
	struct timespec ts;

	(void)g;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void ip_free(cs_rgroup_t *g)
{
	struct ipg *m = ipg_of(g);
	int v;

	for (v = 0; m && v < CS_RG_SLOTS; v++) {
		free(m->color[v]);
		free(m->rank[v]);
	}
	free(m);
}

static const cs_rgroup_ops_t ip_ops = {
	.split = ip_split,
	.boot = ip_boot,
	.max = ip_max,
	.gather = ip_gather,
	.allgather = ip_allgather,
	.bcast = ip_bcast,
	.now = ip_now,
	.free = ip_free,
};

cs_status_t cs_rgroup_inproc(cs_rgroup_t *g, int P)
{
	memset(g, 0, sizeof *g);
	if (P < 1)
		return cs_error(CS_ERR_INVALID, "cs_rgroup_inproc: %d ranks", P);
	if (!(g->impl = calloc(1, sizeof(struct ipg))))
		return cs_error(CS_ERR_NOMEM, "out of memory");
	g->ops = &ip_ops;
	g->world = P;
	g->nlocal = P;
	g->first = 0;
	g->grouped = 1;
	return CS_OK;
}
