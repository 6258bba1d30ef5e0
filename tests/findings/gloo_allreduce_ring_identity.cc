/*
 * gloo_allreduce_ring_identity.cc - Gloo (Debian's libgloo-dev
 * 0.0~git20220518): gloo::AllreduceRing<T> (gloo/allreduce_ring.h) hands
 * every rank's whole buffer around the ring and each rank adds the P-1
 * buffers it receives into its own, in its own order, so on floats the
 * ranks of one allreduce end with different results
 * (docs/findings/gloo-allreduce-ring-identity.md).
 *
 *   g++ gloo_allreduce_ring_identity.cc -lgloo -o r && ./r
 *
 * Three processes (Gloo's file store and TCP on 127.0.0.1), one float
 * each: 1, 1e8 and -1e8 (each exact in float; 1 - 1e8 rounds to -1e8).
 * The same sum with gloo::AllreduceRing<float> and with gloo::allreduce
 * (whose ring reduces each element on one rank); every rank's result is
 * then gathered (gloo::allgather) and rank 0 prints them. An allreduce
 * must hand every rank the same value. Exits 1 when a call's ranks
 * disagree, 0 when they agree.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include <memory>
#include <vector>
#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/allreduce_ring.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/transport/tcp/device.h>

#define P 3

typedef void (*fn_t)(void *, const void *, const void *, size_t);

static const float input[P] = {1.0f, 1e8f, -1e8f};

/* Gather v from every rank; rank 0 prints them under `what`. 1 when the
 * ranks disagree. */
static int compare(const std::shared_ptr<gloo::Context> &ctx, float v,
		   const char *what)
{
	float all[P];
	int differ = 0;

	gloo::AllgatherOptions o(ctx);
	o.setInput(&v, 1);
	o.setOutput(all, P);
	gloo::allgather(o);
	for (int r = 1; r < P; r++)
		differ |= all[r] != all[0];
	if (ctx->rank == 0)
		printf("%-24s ranks 0, 1, 2 got %g %g %g  %s\n", what, all[0],
		       all[1], all[2], differ ? "DIFFERENT" : "the same");
	return differ;
}

static int run_rank(int rank, const char *dir)
{
	gloo::rendezvous::FileStore store(dir);
	auto dev = gloo::transport::tcp::CreateDevice(
		gloo::transport::tcp::attr("127.0.0.1"));
	auto ctx = std::make_shared<gloo::rendezvous::Context>(rank, P);
	float a = input[rank], b = input[rank];
	int bad;

	ctx->connectFullMesh(store, dev);
	gloo::AllreduceRing<float> ring(ctx, std::vector<float *>{&a}, 1,
		gloo::ReductionFunction<float>::sum);
	ring.run();
	bad = compare(ctx, a, "AllreduceRing<float>");

	gloo::AllreduceOptions o(ctx);
	o.setOutput(&b, 1);
	o.setReduceFunction(static_cast<fn_t>(&gloo::sum<float>));
	gloo::allreduce(o);
	bad |= compare(ctx, b, "gloo::allreduce");
	return bad;
}

int main(void)
{
	char dir[] = "/tmp/gloo-finding-XXXXXX";
	int st, bad = 0;

	if (!mkdtemp(dir))
		return perror("mkdtemp"), 2;
	fflush(stdout);
	for (int r = 0; r < P; r++)
		if (fork() == 0) {
			int rc = run_rank(r, dir);

			fflush(stdout);
			_exit(rc);
		}
	while (wait(&st) > 0)
		bad |= !WIFEXITED(st) || WEXITSTATUS(st) != 0;
	printf(bad ? "DEFECT: the ranks of one allreduce got different "
		     "results\n"
		   : "no defect: every rank got the same result\n");
	return bad;
}
