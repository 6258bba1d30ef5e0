/*
 * test_mpialg.c - --mpi-alg's environment (base/mpialg.h) and the mpi
 * backend's option string (cs_mpib_parse_opts), without MPI_Init.
 *
 * The expected variables are written by hand from what the libraries
 * print: `ompi_info --param coll tuned --level 9` (Open MPI 4.1.4: the
 * allreduce list is 1 basic_linear ... 4 ring ... 6 rabenseifner, the
 * reduce_scatter_block list ends with 4 butterfly), `--param coll libnbc`
 * (iallreduce 3 rabenseifner), and MPICH 4.0.2's `mpivars`
 * (MPIR_CVAR_BCAST_INTRA_ALGORITHM scatter_ring_allgather, ...).
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream, fmemopen */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "base/mpialg.h"
#include "base/options.h"
#include "base/result.h"
#include "check/verdict.h"
#include "backends/mpi/backend_mpi_impl.h"

static cs_mpialg_env_t env;

/* spec in lib gives exactly the variables of want (NULL-ended). */
static void expect_env(cs_mpilib_t lib, const char *spec,
		       const char *const *want)
{
	int i;

	assert_int_equal(cs_mpialg_env(lib, spec, &env), CS_OK);
	for (i = 0; want[i]; i++) {
		assert_true(i < env.n);
		assert_string_equal(env.var[i], want[i]);
	}
	assert_int_equal(env.n, i);
}

/* spec in lib is refused, with a message holding each of the texts. */
static void expect_refused(cs_mpilib_t lib, const char *spec,
			   const char *const *texts)
{
	int i;

	assert_int_equal(cs_mpialg_env(lib, spec, &env), CS_ERR_INVALID);
	for (i = 0; texts[i]; i++) {
		if (!strstr(cs_last_error(), texts[i]))
			fail_msg("'%s': message '%s' lacks '%s'", spec,
				 cs_last_error(), texts[i]);
	}
}

#define V(...) ((const char *const[]){__VA_ARGS__, NULL})

static void test_openmpi_env(void **state)
{
	(void)state;
	expect_env(CS_MPILIB_OPENMPI, "allreduce=ring",
		   V("OMPI_MCA_coll_tuned_use_dynamic_rules=1",
		     "OMPI_MCA_coll_tuned_allreduce_algorithm=4"));
	expect_env(CS_MPILIB_OPENMPI, "allreduce=4",
		   V("OMPI_MCA_coll_tuned_use_dynamic_rules=1",
		     "OMPI_MCA_coll_tuned_allreduce_algorithm=4"));
	expect_env(CS_MPILIB_OPENMPI, "reducescatter=butterfly",
		   V("OMPI_MCA_coll_tuned_use_dynamic_rules=1",
		     "OMPI_MCA_coll_tuned_reduce_scatter_block_algorithm=4"));
	expect_env(CS_MPILIB_OPENMPI, "allreduce=rabenseifner,broadcast=chain",
		   V("OMPI_MCA_coll_tuned_use_dynamic_rules=1",
		     "OMPI_MCA_coll_tuned_allreduce_algorithm=6",
		     "OMPI_MCA_coll_tuned_bcast_algorithm=2"));
	expect_env(CS_MPILIB_OPENMPI, "iallreduce=rabenseifner",
		   V("OMPI_MCA_coll_libnbc_iallreduce_algorithm=3"));
	expect_env(CS_MPILIB_OPENMPI, "component=han",
		   V("OMPI_MCA_coll_han_priority=100"));
	expect_env(CS_MPILIB_OPENMPI, "component=sm,reduce=in-order_binary",
		   V("OMPI_MCA_coll_sm_priority=100",
		     "OMPI_MCA_coll_tuned_use_dynamic_rules=1",
		     "OMPI_MCA_coll_tuned_reduce_algorithm=6"));
}

static void test_mpich_env(void **state)
{
	(void)state;
	expect_env(CS_MPILIB_MPICH, "broadcast=scatter_ring_allgather",
		   V("MPIR_CVAR_COLLECTIVE_FALLBACK=error",
		     "MPIR_CVAR_BCAST_INTRA_ALGORITHM=scatter_ring_allgather"));
	expect_env(CS_MPILIB_MPICH,
		   "reducescatter=recursive_halving,ireducescatter=tsp_recexch",
		   V("MPIR_CVAR_COLLECTIVE_FALLBACK=error",
		     "MPIR_CVAR_REDUCE_SCATTER_BLOCK_INTRA_ALGORITHM="
		     "recursive_halving",
		     "MPIR_CVAR_IREDUCE_SCATTER_BLOCK_INTRA_ALGORITHM="
		     "tsp_recexch"));
	expect_env(CS_MPILIB_MPICH, "allreduce=smp,fallback=silent",
		   V("MPIR_CVAR_COLLECTIVE_FALLBACK=silent",
		     "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=smp"));
	expect_env(CS_MPILIB_MPICH, "fallback=print,reduce=smp",
		   V("MPIR_CVAR_COLLECTIVE_FALLBACK=print",
		     "MPIR_CVAR_REDUCE_INTRA_ALGORITHM=smp"));
	expect_env(CS_MPILIB_MPICH, "ialltoallv=tsp_blocked",
		   V("MPIR_CVAR_COLLECTIVE_FALLBACK=error",
		     "MPIR_CVAR_IALLTOALLV_INTRA_ALGORITHM=tsp_blocked"));
}

static void test_refused(void **state)
{
	(void)state;
	expect_refused(CS_MPILIB_OPENMPI, "allreduce=bogus",
		       V("Open MPI has no allreduce algorithm 'bogus'",
			 "valid: basic_linear, nonoverlapping, "
			 "recursive_doubling, ring, segmented_ring, "
			 "rabenseifner)"));
	expect_refused(CS_MPILIB_OPENMPI, "allreduce=0", V("'0'"));
	expect_refused(CS_MPILIB_OPENMPI, "allreduce=7", V("'7'"));
	expect_refused(CS_MPILIB_OPENMPI, "sendrecv=ring",
		       V("no algorithm selection for 'sendrecv'",
			 "keys: allreduce,", "component"));
	expect_refused(CS_MPILIB_OPENMPI, "component=nccl",
		       V("no coll component 'nccl'",
			 "tuned, basic, han, adapt, sm, libnbc"));
	expect_refused(CS_MPILIB_OPENMPI, "allreduce=ring,allreduce=ring",
		       V("allreduce given twice"));
	expect_refused(CS_MPILIB_OPENMPI, "allreduce", V("not KEY=ALG"));
	expect_refused(CS_MPILIB_OPENMPI, "allreduce=", V("not KEY=ALG"));
	expect_refused(CS_MPILIB_OPENMPI, "allreduce=ring,", V("comma list"));
	expect_refused(CS_MPILIB_OPENMPI, "", V("comma list"));
	expect_refused(CS_MPILIB_MPICH, "allreduce=ring",
		       V("MPICH has no allreduce algorithm 'ring'",
			 "recursive_doubling"));
	expect_refused(CS_MPILIB_MPICH, "allreduce=3", V("'3'"));
	expect_refused(CS_MPILIB_MPICH, "component=han", V("Open MPI's"));
	expect_refused(CS_MPILIB_MPICH, "fallback=never",
		       V("no fallback 'never' (valid: error, print, silent)"));
	expect_refused(CS_MPILIB_OPENMPI, "fallback=silent", V("MPICH's"));
	expect_refused(CS_MPILIB_OTHER, "allreduce=ring", V("neither"));
}

/* Every line `--mpi-alg list` prints is a spec the library takes. */
static void test_list_accepted(void **state)
{
	cs_mpilib_t libs[2] = {CS_MPILIB_OPENMPI, CS_MPILIB_MPICH};
	char *buf = NULL, line[256];
	size_t len = 0;
	int k, n, lines;

	(void)state;
	for (k = 0; k < 2; k++) {
		FILE *f = open_memstream(&buf, &len);

		n = cs_mpialg_list(libs[k], f);
		fclose(f);
		assert_true(n > 20);
		f = fmemopen(buf, len, "r");
		for (lines = 0; fgets(line, sizeof line, f); lines++) {
			line[strcspn(line, " ")] = '\0';
			if (cs_mpialg_env(libs[k], line, &env) != CS_OK)
				fail_msg("%s", cs_last_error());
		}
		fclose(f);
		assert_int_equal(lines, n);
		free(buf);
		buf = NULL;
	}
	assert_int_equal(cs_mpialg_list(CS_MPILIB_OTHER, stdout), 0);
}

static void test_library_names(void **state)
{
	(void)state;
	assert_int_equal(cs_mpilib_of("Open MPI v4.1.4, package: Debian "
				      "OpenMPI, ident: 4.1.4"),
			 CS_MPILIB_OPENMPI);
	assert_int_equal(cs_mpilib_of("MPICH Version:\t4.0.2\nMPICH Release "
				      "date: Thu Apr  7"), CS_MPILIB_MPICH);
	assert_int_equal(cs_mpilib_of("Intel(R) MPI Library 2021"),
			 CS_MPILIB_OTHER);
	assert_int_equal(cs_mpilib_of(NULL), CS_MPILIB_OTHER);
}

/* the mpi backend's --backend-opt: ctypes= and api=, comma separated */
static void test_backend_opts(void **state)
{
	struct cs_mpib_opts o;
	char err[300];

	(void)state;
	assert_int_equal(cs_mpib_parse_opts("", &o, err, sizeof err), 0);
	assert_int_equal(o.ctypes, 0);
	assert_int_equal(o.api, CS_MPIB_BLOCKING);
	assert_int_equal(cs_mpib_parse_opts("api=nonblocking", &o, err,
					    sizeof err), 0);
	assert_int_equal(o.api, CS_MPIB_NONBLOCKING);
	assert_int_equal(cs_mpib_parse_opts("ctypes=2,api=persistent", &o,
					    err, sizeof err), 0);
	assert_int_equal(o.ctypes, 2);
	assert_int_equal(o.api, CS_MPIB_PERSISTENT);
	assert_int_equal(cs_mpib_parse_opts("api=blocking,ctypes=1", &o, err,
					    sizeof err), 0);
	assert_int_equal(o.ctypes, 1);
	assert_int_equal(o.api, CS_MPIB_BLOCKING);
	assert_int_equal(cs_mpib_parse_opts("api=persist", &o, err,
					    sizeof err), -1);
	assert_non_null(strstr(err, "'api=persist'"));
	assert_non_null(strstr(err, "api=blocking|nonblocking|persistent"));
	assert_int_equal(cs_mpib_parse_opts("api=nonblocking,api=blocking",
					    &o, err, sizeof err), -1);
	assert_non_null(strstr(err, "'api=blocking'"));
	assert_int_equal(cs_mpib_parse_opts("ctypes=1,", &o, err, sizeof err),
			 -1);
	assert_int_equal(cs_mpib_parse_opts("ctypes=3", &o, err, sizeof err),
			 -1);
	assert_non_null(strstr(err, "ctypes=0|1|2"));
	assert_int_equal(cs_mpib_parse_opts("api=nonblockingx", &o, err,
					    sizeof err), -1);
}

/* the re-run line of a case carries --mpi-alg */
static void test_repro_line(void **state)
{
	cs_hcase_t hc;
	cs_run_opts_t o;
	char line[CS_REPRO_MAX];
	const char *tail;

	(void)state;
	memset(&hc, 0, sizeof hc);
	memset(&o, 0, sizeof o);
	hc.c.coll = CS_COLL_ALLREDUCE;
	hc.c.dtype = CS_DTYPE_INT32;
	hc.c.op = CS_OP_SUM;
	hc.c.count = 7;
	hc.c.nranks = 3;
	o.backend = "mpi";
	o.backend_opt = "api=persistent";
	o.suite = "quick";
	o.repeat = 2;
	o.mpi_alg = "allreduce=ring,component=tuned";
	assert_true(cs_run_repro(&o, &hc, 3, line, sizeof line) > 0);
	tail = line + strlen(line) - strlen(" --mpi-alg allreduce=ring,"
					     "component=tuned");
	assert_string_equal(tail, " --mpi-alg allreduce=ring,component=tuned");
	assert_non_null(strstr(line, " --backend-opt api=persistent "));
	o.mpi_alg = NULL;
	assert_true(cs_run_repro(&o, &hc, 3, line, sizeof line) > 0);
	assert_null(strstr(line, "--mpi-alg"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_openmpi_env),
		cmocka_unit_test(test_mpich_env),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_list_accepted),
		cmocka_unit_test(test_library_names),
		cmocka_unit_test(test_backend_opts),
		cmocka_unit_test(test_repro_line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
