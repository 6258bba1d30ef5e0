/*
 * gloo_allgather_zero.cc - Gloo (Debian's libgloo-dev 0.0~git20220518):
 * gloo::allgather of zero elements on two or more ranks dies of SIGFPE
 * (docs/findings/gloo-allgather-zero.md).
 *
 *   g++ gloo_allgather_zero.cc -lgloo -o r && ./r
 *
 * Two processes (Gloo's file store and TCP on 127.0.0.1) call
 * gloo::allgather with an input of 0 elements and an output of 0
 * elements (2 ranks x 0). gloo/allgather.cc takes its offsets modulo the
 * output's size, which is 0: an integer division by zero. For comparison
 * the same call with 1 element first. Exits 1 when a rank dies or fails,
 * 0 when both calls return.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <memory>
#include <gloo/allgather.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/transport/tcp/device.h>

static void run_rank(int rank, const char *dir)
{
	gloo::rendezvous::FileStore store(dir);
	auto dev = gloo::transport::tcp::CreateDevice(
		gloo::transport::tcp::attr("127.0.0.1"));
	auto ctx = std::make_shared<gloo::rendezvous::Context>(rank, 2);
	int in[1] = {rank + 1}, out[2] = {0, 0};

	ctx->connectFullMesh(store, dev);
	for (size_t n = 1; n + 1 > 0; n--) { /* 1 element, then 0 */
		gloo::AllgatherOptions o(ctx);

		o.setInput(in, n);
		o.setOutput(out, 2 * n);
		gloo::allgather(o);
		if (rank == 0)
			printf("allgather of %zu element(s): returned\n", n);
		fflush(stdout);
	}
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
			run_rank(r, dir);
			_exit(0);
		}
	while (wait(&st) > 0) {
		if (WIFSIGNALED(st))
			printf("a rank died of signal %d (%s)\n", WTERMSIG(st),
			       strsignal(WTERMSIG(st)));
		bad |= !WIFEXITED(st) || WEXITSTATUS(st) != 0;
	}
	printf(bad ? "DEFECT: allgather of zero elements killed a rank\n"
		   : "no defect: both calls returned\n");
	return bad;
}
