/*
 * asan_leak_canary.c - proof that the sanitizer stage still sees leaks:
 * an MPI program that loses 77 bytes of its own. Under the `asan-mpi`
 * test preset (Open MPI's leaks suppressed, .ci/lsan-openmpi.supp) the
 * test passes only when LeakSanitizer reports exactly that leak, so a
 * suppression file or an option that hides CollSpec's own leaks fails it.
 */
#include <mpi.h>
#include <stdlib.h>

/* volatile: the compiler may not drop the allocation or the stores */
static void *volatile lost;
static void *volatile kept; /* still reachable at exit: not a leak */

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	lost = malloc(77);
	kept = malloc(5);
	lost = NULL; /* the only pointer to the 77 bytes is gone */
	MPI_Finalize();
	return 0;
}
