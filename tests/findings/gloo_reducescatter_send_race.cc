/*
 * gloo_reducescatter_send_race.cc - Gloo (Debian's libgloo-dev
 * 0.0~git20220518): gloo::ReduceScatterHalvingDoubling<T>::run()
 * (gloo/reduce_scatter.h) sends parts of the caller's buffer to its
 * peers and, in its distribution phase, copies this rank's result block
 * to the start of that same buffer without waiting for those sends to be
 * written. When a peer is slow to read, the bytes still queued are read
 * after the copy: the peer reduces this rank's result instead of its
 * input (docs/findings/gloo-reducescatter-send-race.md).
 *
 *   g++ gloo_reducescatter_send_race.cc -lgloo -pthread -o r && ./r
 *
 * Two forked ranks (Gloo's file store and TCP on 127.0.0.1), N ints per
 * rank's block, rank r's 2N inputs all r + 1: a sum whose result is 3
 * everywhere. Run twice: alone (the control), then with a message
 * before it: rank 1 first sends rank 0 64 MiB on a bound buffer of
 * another slot, which rank 0 receives from a second thread one second
 * later (a slow reader: rank 1's later messages wait behind it in the
 * socket and in Gloo's send queue). Prints, for each run, the wrong
 * elements of rank 0's block and the first of them; exits 1 when the
 * second run got any, 0 otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <memory>
#include <thread>
#include <vector>
#include <gloo/reduce_scatter.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/transport/tcp/device.h>

#define N (1 << 16)             /* elements of one rank's block */
#define BLOCKER (64u << 20)     /* bytes of the message sent first */
#define BLOCKER_SLOT (1 << 24)  /* far above the slots nextSlot() hands out */

/* One rank of two; slow: with the first message, read one second late.
 * Rank 0 prints its wrong elements; exit status: 1 when it had any. */
static int run_rank(int rank, const char *dir, int slow)
{
	gloo::rendezvous::FileStore store(dir);
	auto dev = gloo::transport::tcp::CreateDevice(
		gloo::transport::tcp::attr("127.0.0.1"));
	auto ctx = std::make_shared<gloo::rendezvous::Context>(rank, 2);
	std::vector<char> big(BLOCKER, 7);
	std::vector<int> v(2 * N, rank + 1);
	std::unique_ptr<gloo::transport::Buffer> b;
	std::thread reader;
	int wrong = 0, first = -1;

	ctx->connectFullMesh(store, dev);
	auto &pair = ctx->getPair(1 - rank);
	if (slow && rank == 1) {
		b = pair->createSendBuffer(BLOCKER_SLOT, big.data(), BLOCKER);
		b->send();
	} else if (slow) {
		reader = std::thread([&] {
			sleep(1);
			b = pair->createRecvBuffer(BLOCKER_SLOT, big.data(),
						   BLOCKER);
			b->waitRecv();
		});
	}
	gloo::ReduceScatterHalvingDoubling<int> rs(
		ctx, std::vector<int *>{v.data()}, 2 * N, std::vector<int>{N, N},
		gloo::ReductionFunction<int>::sum);
	rs.run();
	if (rank == 1) {
		if (slow)
			b->waitSend();
		return 0;
	}
	if (slow)
		reader.join();
	for (int i = 0; i < N; i++)
		if (v[i] != 3 && wrong++ == 0)
			first = i;
	printf("  rank 0: %d of the %d elements of its block wrong", wrong, N);
	if (wrong)
		printf(" (the first: element %d is %d, expected 3)", first,
		       v[first]);
	printf("\n");
	fflush(stdout);
	return wrong != 0;
}

/* Both ranks forked: 1 when rank 0 had wrong elements, 0 when not, -1
 * when a rank died. */
static int wrong_elements(int slow)
{
	char dir[] = "/tmp/gloo-finding-XXXXXX";
	int st, wrong = 0;

	if (!mkdtemp(dir))
		return perror("mkdtemp"), -1;
	fflush(stdout);
	for (int r = 0; r < 2; r++)
		if (fork() == 0)
			_exit(run_rank(r, dir, slow));
	while (wait(&st) > 0)
		if (!WIFEXITED(st) || wrong < 0)
			wrong = -1;
		else
			wrong += WEXITSTATUS(st);
	return wrong;
}

int main(void)
{
	int alone, behind;

	printf("the reduce-scatter alone:\n");
	alone = wrong_elements(0);
	printf("behind 64 MiB that rank 0 reads one second late:\n");
	behind = wrong_elements(1);
	if (alone < 0 || behind < 0)
		printf("a rank died\n");
	printf(behind > 0 ? "DEFECT: rank 1's queued send carried its result, "
			    "not its input\n"
			  : "no defect: every element right\n");
	return behind != 0;
}
