/*
 * gloo_allreduce_bcube.cc - Gloo (Debian's libgloo-dev 0.0~git20220518):
 * gloo::AllreduceBcube<T> (gloo/allreduce_bcube.h, base 2) returns wrong
 * sums when the number of ranks is not a power of two: at 3, 5, 6 and 7
 * ranks, though its comment says it handles any number of nodes that
 * the base (2) divides, such as 6 (docs/findings/gloo-allreduce-bcube.md).
 *
 *   g++ gloo_allreduce_bcube.cc -lgloo -o r && ./r
 *
 * For P = 2 to 8 processes (Gloo's file store and TCP on 127.0.0.1):
 * rank r holds 10 ints, all r + 1; one AllreduceBcube<int> sum, and each
 * rank counts its elements that are not P(P+1)/2. Prints, per P, how many
 * elements were wrong over all ranks. Exits 1 when any was, 0 otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include <memory>
#include <vector>
#include <gloo/allreduce_bcube.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/transport/tcp/device.h>

#define N 10

/* One rank of P: its number of wrong elements (at most N). */
static int run_rank(int rank, int P, const char *dir)
{
	gloo::rendezvous::FileStore store(dir);
	auto dev = gloo::transport::tcp::CreateDevice(
		gloo::transport::tcp::attr("127.0.0.1"));
	auto ctx = std::make_shared<gloo::rendezvous::Context>(rank, P);
	std::vector<int> v(N, rank + 1);
	int wrong = 0;

	ctx->connectFullMesh(store, dev);
	gloo::AllreduceBcube<int> a(ctx, std::vector<int *>{v.data()}, N,
				    gloo::ReductionFunction<int>::sum);
	a.run();
	for (int i = 0; i < N; i++)
		wrong += v[i] != P * (P + 1) / 2;
	return wrong;
}

/* P forked ranks; the wrong elements of all of them, -1 if one died. */
static int sum_over_ranks(int P)
{
	char dir[] = "/tmp/gloo-finding-XXXXXX";
	int st, wrong = 0;

	if (!mkdtemp(dir))
		return perror("mkdtemp"), -1;
	fflush(stdout);
	for (int r = 0; r < P; r++)
		if (fork() == 0)
			_exit(run_rank(r, P, dir));
	while (wait(&st) > 0)
		if (!WIFEXITED(st) || wrong < 0)
			wrong = -1;
		else
			wrong += WEXITSTATUS(st);
	return wrong;
}

int main(void)
{
	int bad = 0;

	for (int P = 2; P <= 8; P++) {
		int w = sum_over_ranks(P);

		if (w < 0)
			printf("%d ranks: a rank died\n", P);
		else
			printf("%d ranks: %2d of %2d elements wrong\n", P, w,
			       P * N);
		bad |= w != 0;
	}
	printf(bad ? "DEFECT: AllreduceBcube summed wrongly\n"
		   : "no defect: every sum right\n");
	return bad;
}
