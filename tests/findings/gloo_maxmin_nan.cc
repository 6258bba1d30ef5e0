/*
 * gloo_maxmin_nan.cc - Gloo (Debian's libgloo-dev 0.0~git20220518):
 * gloo::max and gloo::min (gloo/math.h, std::max and std::min per
 * element) follow no NaN rule: whether a NaN survives depends on the rank
 * that holds it (docs/findings/gloo-maxmin-nan.md).
 *
 *   g++ gloo_maxmin_nan.cc -lgloo -o r && ./r
 *
 * Two processes (Gloo's file store and TCP on 127.0.0.1), 64 elements:
 * at even elements rank 0 holds NaN and rank 1 holds 1, at odd elements
 * the reverse; gloo::allreduce with gloo::max, then gloo::min, on float
 * and double. Under either rule (ignore NaN, or propagate it) all 64
 * results would be alike. Exits 1 when they are not, 0 when they are.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include <memory>
#include <gloo/allreduce.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/transport/tcp/device.h>

#define N 64

typedef void (*fn_t)(void *, const void *, const void *, size_t);

/* One allreduce of the pattern above with fn; rank 0 prints how many
 * results are NaN, one, or neither. 1 when they are not all alike. */
template <typename T>
static int check(const std::shared_ptr<gloo::Context> &ctx, fn_t fn,
		 const char *what)
{
	T v[N];
	int nan = 0, one = 0;

	for (int i = 0; i < N; i++)
		v[i] = (i + ctx->rank) % 2 == 0 ? (T)NAN : (T)1;
	gloo::AllreduceOptions o(ctx);
	o.setOutput(v, N);
	o.setReduceFunction(fn);
	gloo::allreduce(o);
	for (int i = 0; i < N; i++) {
		nan += isnan(v[i]);
		one += v[i] == (T)1;
	}
	if (ctx->rank == 0)
		printf("%-12s %2d NaN, %2d one, %2d other\n", what, nan, one,
		       N - nan - one);
	return nan != N && one != N;
}

static int run_rank(int rank, const char *dir)
{
	gloo::rendezvous::FileStore store(dir);
	auto dev = gloo::transport::tcp::CreateDevice(
		gloo::transport::tcp::attr("127.0.0.1"));
	auto ctx = std::make_shared<gloo::rendezvous::Context>(rank, 2);
	int bad;

	ctx->connectFullMesh(store, dev);
	bad = check<float>(ctx, &gloo::max<float>, "max float");
	bad |= check<double>(ctx, &gloo::max<double>, "max double");
	bad |= check<float>(ctx, &gloo::min<float>, "min float");
	bad |= check<double>(ctx, &gloo::min<double>, "min double");
	return bad;
}

int main(void)
{
	char dir[] = "/tmp/gloo-finding-XXXXXX";
	int st, bad = 0;

	if (!mkdtemp(dir))
		return perror("mkdtemp"), 2;
	fflush(stdout);
	for (int r = 0; r < 2; r++)
		if (fork() == 0) {
			int rc = run_rank(r, dir);

			fflush(stdout);
			_exit(rc);
		}
	while (wait(&st) > 0)
		bad |= !WIFEXITED(st) || WEXITSTATUS(st) != 0;
	printf(bad ? "DEFECT: NaN handling depends on the rank holding the "
		     "NaN\n"
		   : "no defect: one NaN rule throughout\n");
	return bad;
}
