/*
 * mpialg.c - --mpi-alg's tables and parser (mpialg.h).
 *
 * The names are the libraries' own, as Debian 12's builds list them:
 * Open MPI 4.1.4 `ompi_info --param coll tuned --level 9` and `--param
 * coll libnbc` (the value of an algorithm variable is its position in
 * that list, counted from 1; 0 is "ignore"), MPICH 4.0.2 `mpivars` (each
 * name was checked against MPI_Init, which refuses an unknown one). The
 * components are Open MPI 4.1's coll components that take a collective
 * of the harness, with the collectives each provides.
 */
#define _POSIX_C_SOURCE 200809L /* strtok_r */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/cli_parse.h"
#include "base/mpialg.h"

/* One selectable collective: the spec's key, the library's variable (a
 * printf format taking nothing), the algorithms (NULL-ended). */
struct sel {
	const char *key, *var;
	const char *const *algs;
	int tuned; /* Open MPI coll_tuned: needs use_dynamic_rules=1 */
};

/* One Open MPI component: its name, what it provides, the api. */
struct comp {
	const char *name, *colls, *api;
};

#define L(...) ((const char *const[]){__VA_ARGS__, NULL})

static const struct sel ompi_sels[] = {
	{"allreduce", "coll_tuned_allreduce_algorithm",
	 L("basic_linear", "nonoverlapping", "recursive_doubling", "ring",
	   "segmented_ring", "rabenseifner"), 1},
	{"allgather", "coll_tuned_allgather_algorithm",
	 L("linear", "bruck", "recursive_doubling", "ring", "neighbor",
	   "two_proc"), 1},
	{"reducescatter", "coll_tuned_reduce_scatter_block_algorithm",
	 L("basic_linear", "recursive_doubling", "recursive_halving",
	   "butterfly"), 1},
	{"alltoall", "coll_tuned_alltoall_algorithm",
	 L("linear", "pairwise", "modified_bruck", "linear_sync",
	   "two_proc"), 1},
	{"alltoallv", "coll_tuned_alltoallv_algorithm",
	 L("basic_linear", "pairwise"), 1},
	{"broadcast", "coll_tuned_bcast_algorithm",
	 L("basic_linear", "chain", "pipeline", "split_binary_tree",
	   "binary_tree", "binomial", "knomial", "scatter_allgather",
	   "scatter_allgather_ring"), 1},
	{"reduce", "coll_tuned_reduce_algorithm",
	 L("linear", "chain", "pipeline", "binary", "binomial",
	   "in-order_binary", "rabenseifner"), 1},
	{"gather", "coll_tuned_gather_algorithm",
	 L("basic_linear", "binomial", "linear_sync"), 1},
	{"scatter", "coll_tuned_scatter_algorithm",
	 L("basic_linear", "binomial", "linear_nb"), 1},
	{"iallreduce", "coll_libnbc_iallreduce_algorithm",
	 L("ring", "binomial", "rabenseifner", "recursive_doubling"), 0},
	{"iallgather", "coll_libnbc_iallgather_algorithm",
	 L("linear", "recursive_doubling"), 0},
	{"ibroadcast", "coll_libnbc_ibcast_algorithm",
	 L("linear", "binomial", "chain", "knomial"), 0},
	{"ireduce", "coll_libnbc_ireduce_algorithm",
	 L("chain", "binomial", "rabenseifner"), 0},
};

static const struct comp ompi_comps[] = {
	{"tuned", "allreduce,allgather,reducescatter,alltoall,alltoallv,"
		  "broadcast,reduce,gather,scatter", "blocking"},
	{"basic", "allreduce,allgather,reducescatter,alltoall,alltoallv,"
		  "broadcast,reduce,gather,scatter", "blocking"},
	/* (han disqualifies itself on a communicator whose ranks share one
	 * node: "comm has only local processes", coll_base_verbose=20) */
	{"han", "allreduce,allgather,broadcast,reduce,gather,scatter",
	 "multinode"},
	{"adapt", "broadcast,reduce", "blocking"},
	{"sm", "allreduce,broadcast,reduce", "blocking"},
	{"libnbc", "allreduce,allgather,reducescatter,alltoall,alltoallv,"
		   "broadcast,reduce,gather,scatter", "nonblocking"},
};

static const struct sel mpich_sels[] = {
	{"allreduce", "ALLREDUCE",
	 L("nb", "smp", "recursive_doubling", "reduce_scatter_allgather"), 0},
	{"allgather", "ALLGATHER",
	 L("brucks", "nb", "recursive_doubling", "ring"), 0},
	{"reducescatter", "REDUCE_SCATTER_BLOCK",
	 L("noncommutative", "recursive_doubling", "pairwise",
	   "recursive_halving", "nb"), 0},
	{"alltoall", "ALLTOALL",
	 L("brucks", "nb", "pairwise", "pairwise_sendrecv_replace",
	   "scattered"), 0},
	{"alltoallv", "ALLTOALLV",
	 L("nb", "pairwise_sendrecv_replace", "scattered"), 0},
	{"broadcast", "BCAST",
	 L("binomial", "nb", "smp", "scatter_recursive_doubling_allgather",
	   "scatter_ring_allgather"), 0},
	{"reduce", "REDUCE",
	 L("binomial", "nb", "smp", "reduce_scatter_gather"), 0},
	{"gather", "GATHER", L("binomial", "nb"), 0},
	{"scatter", "SCATTER", L("binomial", "nb"), 0},
	{"iallreduce", "IALLREDUCE",
	 L("sched_auto", "sched_naive", "sched_smp",
	   "sched_recursive_doubling", "sched_reduce_scatter_allgather",
	   "tsp_recexch_single_buffer", "tsp_recexch_multiple_buffer",
	   "tsp_tree", "tsp_ring",
	   "tsp_recexch_reduce_scatter_recexch_allgatherv"), 0},
	{"iallgather", "IALLGATHER",
	 L("sched_auto", "sched_ring", "sched_brucks",
	   "sched_recursive_doubling", "tsp_ring", "tsp_brucks",
	   "tsp_recexch_doubling", "tsp_recexch_halving"), 0},
	{"ireducescatter", "IREDUCE_SCATTER_BLOCK",
	 L("sched_auto", "sched_noncommutative", "sched_recursive_doubling",
	   "sched_pairwise", "sched_recursive_halving", "tsp_recexch"), 0},
	{"ialltoall", "IALLTOALL",
	 L("sched_auto", "sched_brucks", "sched_inplace", "sched_pairwise",
	   "sched_permuted_sendrecv", "tsp_ring", "tsp_brucks",
	   "tsp_scattered"), 0},
	{"ialltoallv", "IALLTOALLV",
	 L("sched_auto", "sched_blocked", "sched_inplace", "tsp_scattered",
	   "tsp_blocked", "tsp_inplace"), 0},
	{"ibroadcast", "IBCAST",
	 L("sched_auto", "sched_binomial", "sched_smp",
	   "sched_scatter_recursive_doubling_allgather",
	   "sched_scatter_ring_allgather", "tsp_tree",
	   "tsp_scatterv_recexch_allgatherv", "tsp_ring"), 0},
	{"ireduce", "IREDUCE",
	 L("sched_auto", "sched_smp", "sched_binomial",
	   "sched_reduce_scatter_gather", "tsp_tree", "tsp_ring"), 0},
	{"igather", "IGATHER", L("sched_auto", "sched_binomial", "tsp_tree"),
	 0},
	{"iscatter", "ISCATTER", L("sched_auto", "sched_binomial",
				   "tsp_tree"), 0},
};

#define NSEL(t) (sizeof t / sizeof *t)

cs_mpilib_t cs_mpilib_of(const char *text)
{
	if (!text)
		return CS_MPILIB_OTHER;
	if (strstr(text, "Open MPI"))
		return CS_MPILIB_OPENMPI;
	if (strstr(text, "MPICH Version"))
		return CS_MPILIB_MPICH;
	return CS_MPILIB_OTHER;
}

const char *cs_mpilib_name(cs_mpilib_t lib)
{
	return lib == CS_MPILIB_OPENMPI ? "Open MPI"
	       : lib == CS_MPILIB_MPICH ? "MPICH" : "another MPI";
}

static const struct sel *sels_of(cs_mpilib_t lib, size_t *n)
{
	*n = lib == CS_MPILIB_OPENMPI ? NSEL(ompi_sels)
	     : lib == CS_MPILIB_MPICH ? NSEL(mpich_sels) : 0;
	return lib == CS_MPILIB_OPENMPI ? ompi_sels : mpich_sels;
}

/* Append "NAME=VALUE" to e; false when it is full or the pair does not
 * fit CS_MPIALG_ENV_LEN (never cut). */
static int put_var(cs_mpialg_env_t *e, const char *name, const char *val)
{
	int i, len;

	for (i = 0; i < e->n; i++) /* (the dynamic-rules switch, once) */
		if (!strncmp(e->var[i], name, strlen(name)) &&
		    e->var[i][strlen(name)] == '=')
			return 1;
	if (e->n == CS_MPIALG_MAX_ENV)
		return 0;
	len = snprintf(e->var[e->n], CS_MPIALG_ENV_LEN, "%s=%s", name, val);
	if (len < 0 || len >= CS_MPIALG_ENV_LEN)
		return 0;
	e->n++;
	return 1;
}

/* The valid values of s, comma separated, into buf. */
static const char *valid_list(const char *const *algs, char *buf, size_t n)
{
	size_t used = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; algs[i] && used < n; i++)
		used += (size_t)snprintf(buf + used, n - used, "%s%s",
					 i ? ", " : "", algs[i]);
	return buf;
}

/* Position (from 1) of val in algs, by name or by number; 0 if none. */
static int alg_index(const char *const *algs, const char *val, int numbers)
{
	char *end;
	long v;
	int i;

	for (i = 0; algs[i]; i++)
		if (!strcmp(algs[i], val))
			return i + 1;
	if (!numbers || !*val)
		return 0;
	v = strtol(val, &end, 10);
	return *end || v < 1 || v > i ? 0 : (int)v;
}

/* One COLL=ALG of library lib into e. */
static cs_status_t one_sel(cs_mpilib_t lib, const struct sel *s,
			   const char *val, cs_mpialg_env_t *e)
{
	char name[200], num[16], valid[1024];
	int k = alg_index(s->algs, val, lib == CS_MPILIB_OPENMPI);

	if (!k)
		return cs_error(CS_ERR_INVALID, "--mpi-alg: %s has no %s "
				"algorithm '%s' (valid: %s)", cs_mpilib_name(lib),
				s->key, val, valid_list(s->algs, valid,
							sizeof valid));
	if (lib == CS_MPILIB_MPICH) {
		snprintf(name, sizeof name, "MPIR_CVAR_%s_INTRA_ALGORITHM",
			 s->var);
		/* (a refusal is an error of the call, not a silent fallback
		 * to another algorithm) */
		return put_var(e, "MPIR_CVAR_COLLECTIVE_FALLBACK", "error") &&
		       put_var(e, name, s->algs[k - 1]) ? CS_OK
			: cs_error(CS_ERR_INVALID, "--mpi-alg: too many keys");
	}
	if (s->tuned && !put_var(e, "OMPI_MCA_coll_tuned_use_dynamic_rules",
				 "1"))
		return cs_error(CS_ERR_INVALID, "--mpi-alg: too many keys");
	snprintf(name, sizeof name, "OMPI_MCA_%s", s->var);
	snprintf(num, sizeof num, "%d", k);
	return put_var(e, name, num) ? CS_OK
		: cs_error(CS_ERR_INVALID, "--mpi-alg: too many keys");
}

/* component=NAME (Open MPI only) into e. */
static cs_status_t one_comp(cs_mpilib_t lib, const char *val,
			    cs_mpialg_env_t *e)
{
	char name[200], valid[256] = "";
	size_t i, used = 0;

	if (lib != CS_MPILIB_OPENMPI)
		return cs_error(CS_ERR_INVALID, "--mpi-alg: component= is Open "
				"MPI's; %s selects algorithms per collective "
				"(COLL=ALG)", cs_mpilib_name(lib));
	for (i = 0; i < NSEL(ompi_comps); i++) {
		if (!strcmp(ompi_comps[i].name, val)) {
			snprintf(name, sizeof name, "OMPI_MCA_coll_%s_priority",
				 val);
			return put_var(e, name, "100") ? CS_OK
				: cs_error(CS_ERR_INVALID, "--mpi-alg: too "
					   "many keys");
		}
		used += (size_t)snprintf(valid + used, sizeof valid - used,
					 "%s%s", i ? ", " : "",
					 ompi_comps[i].name);
	}
	return cs_error(CS_ERR_INVALID, "--mpi-alg: Open MPI has no coll "
			"component '%s' here (valid: %s)", val, valid);
}

/* fallback=error|print|silent (MPICH only): MPIR_CVAR_COLLECTIVE_FALLBACK,
 * replacing the "error" the algorithm keys set, wherever it stands. */
static cs_status_t one_fallback(cs_mpilib_t lib, const char *val,
				cs_mpialg_env_t *e)
{
	static const char var[] = "MPIR_CVAR_COLLECTIVE_FALLBACK";
	int i;

	if (lib != CS_MPILIB_MPICH)
		return cs_error(CS_ERR_INVALID, "--mpi-alg: fallback= is "
				"MPICH's; %s has no such setting",
				cs_mpilib_name(lib));
	if (strcmp(val, "error") && strcmp(val, "print") &&
	    strcmp(val, "silent"))
		return cs_error(CS_ERR_INVALID, "--mpi-alg: MPICH has no "
				"fallback '%s' (valid: error, print, silent)",
				val);
	for (i = 0; i < e->n; i++)
		if (!strncmp(e->var[i], var, sizeof var - 1)) {
			snprintf(e->var[i], CS_MPIALG_ENV_LEN, "%s=%.8s", var, val);
			return CS_OK;
		}
	return put_var(e, var, val) ? CS_OK
		: cs_error(CS_ERR_INVALID, "--mpi-alg: too many keys");
}

/* The keys lib has, comma separated, into buf. */
static const char *key_list(cs_mpilib_t lib, char *buf, size_t n)
{
	size_t k, ns, used = 0;
	const struct sel *s = sels_of(lib, &ns);

	buf[0] = '\0';
	for (k = 0; k < ns && used < n; k++)
		used += (size_t)snprintf(buf + used, n - used, "%s%s",
					 k ? ", " : "", s[k].key);
	if (used < n)
		snprintf(buf + used, n - used, lib == CS_MPILIB_OPENMPI ?
			 ", component" : ", fallback");
	return buf;
}

/* One KEY=VALUE item into e; seen holds the keys so far, each with a
 * blank on either side. */
static cs_status_t one_item(cs_mpilib_t lib, const char *item,
			    cs_mpialg_env_t *e, char *seen, size_t nseen)
{
	char key[64], val[128], keys[512], pat[68];
	const char *eq = strchr(item, '=');
	size_t k, ns, klen = eq ? (size_t)(eq - item) : 0;
	const struct sel *s = sels_of(lib, &ns);

	if (!eq || !klen || !eq[1] || klen >= sizeof key ||
	    strlen(eq + 1) >= sizeof val)
		return cs_error(CS_ERR_INVALID, "--mpi-alg: '%s' is not "
				"KEY=ALG (e.g. allreduce=ring)", item);
	snprintf(key, sizeof key, "%.*s", (int)klen, item);
	snprintf(val, sizeof val, "%s", eq + 1);
	snprintf(pat, sizeof pat, " %s ", key);
	if (strstr(seen, pat))
		return cs_error(CS_ERR_INVALID, "--mpi-alg: %s given twice",
				key);
	if (strlen(seen) + klen + 2 < nseen)
		strcat(strcat(seen, key), " ");
	if (!strcmp(key, "component"))
		return one_comp(lib, val, e);
	if (!strcmp(key, "fallback"))
		return one_fallback(lib, val, e);
	for (k = 0; k < ns; k++)
		if (!strcmp(s[k].key, key))
			return one_sel(lib, &s[k], val, e);
	return cs_error(CS_ERR_INVALID, "--mpi-alg: %s has no algorithm "
			"selection for '%s' (keys: %s)", cs_mpilib_name(lib),
			key, key_list(lib, keys, sizeof keys));
}

cs_status_t cs_mpialg_env(cs_mpilib_t lib, const char *spec,
			  cs_mpialg_env_t *out)
{
	char buf[CS_MPIALG_SPEC_MAX + 1], seen[CS_MPIALG_SPEC_MAX + 2] = " ";
	char *item, *save = NULL;
	cs_status_t st = CS_OK;

	if (!out || !spec)
		return cs_error(CS_ERR_INVALID, "cs_mpialg_env: NULL argument");
	memset(out, 0, sizeof *out);
	if (lib == CS_MPILIB_OTHER)
		return cs_error(CS_ERR_INVALID, "--mpi-alg knows the algorithms "
				"of Open MPI and MPICH only; this MPI library "
				"is neither");
	if (!*spec || strlen(spec) > CS_MPIALG_SPEC_MAX ||
	    spec[strlen(spec) - 1] == ',' || spec[0] == ',' ||
	    strstr(spec, ",,"))
		return cs_error(CS_ERR_INVALID, "--mpi-alg: a comma list of "
				"KEY=ALG of at most %d bytes, not '%.64s'",
				CS_MPIALG_SPEC_MAX, spec);
	strcpy(buf, spec);
	for (item = strtok_r(buf, ",", &save); item && st == CS_OK;
	     item = strtok_r(NULL, ",", &save))
		st = one_item(lib, item, out, seen, sizeof seen);
	return st;
}

int cs_mpialg_list(cs_mpilib_t lib, FILE *f)
{
	size_t k, ns, i;
	const struct sel *s = sels_of(lib, &ns);
	int n = 0;

	for (k = 0; k < ns; k++)
		for (i = 0; s[k].algs[i]; i++, n++)
			fprintf(f, "%s=%s %s %s\n", s[k].key, s[k].algs[i],
				s[k].key + (s[k].key[0] == 'i'),
				s[k].key[0] == 'i' ? "nonblocking"
						   : "blocking");
	for (k = 0; lib == CS_MPILIB_OPENMPI && k < NSEL(ompi_comps); k++, n++)
		fprintf(f, "component=%s %s %s\n", ompi_comps[k].name,
			ompi_comps[k].colls, ompi_comps[k].api);
	return n;
}
