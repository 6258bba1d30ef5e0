/*
 * gloo_reducescatter_send_race.cc - Gloo (Debian's libgloo-dev
 * 0.0~git20220518): gloo::ReduceScatterHalvingDoubling<T>::run()
 * (gloo/reduce_scatter.h) sends parts of the caller's buffer to its peers
 * without waiting for those sends to be written: (1) in its distribution
 * phase it copies result blocks to the start of that same buffer, and
 * (2) a rank of the smaller binary block (3, 5, 6, 7 ranks) returns while
 * its sends to the larger block may still be queued. When a peer is slow
 * to read, the queued bytes are read after the copy, or after the caller
 * has written the buffer again (docs/findings/gloo-reducescatter-send-race.md).
 *
 *   g++ gloo_reducescatter_send_race.cc -lgloo -pthread -o r && ./r
 *
 * At 2 and then 3 forked ranks (Gloo's file store and TCP on 127.0.0.1),
 * N ints per rank's block, rank r's inputs all r + 1: a sum whose result
 * is P(P+1)/2 everywhere. Each P runs twice: alone (the control), then
 * with a message before it: rank P-1 first sends rank 0 64 MiB on a
 * bound buffer of another slot, which rank 0 receives from a second
 * thread one second later (a slow reader: rank P-1's later messages to
 * rank 0 wait behind it in the socket and in Gloo's send queue); at 3
 * ranks rank 2 also writes 100 over all but its own block as soon as
 * run() returns, as a caller may. Prints each rank's wrong elements and
 * the first of them; exits 1 when a run behind the message had any, 0
 * otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>
#include <memory>
#include <thread>
#include <vector>
#include <gloo/barrier.h>
#include <gloo/reduce_scatter.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/transport/tcp/device.h>

#define N (1 << 16)             /* elements of one rank's block */
#define BLOCKER (64u << 20)     /* bytes of the message sent first */
#define BLOCKER_SLOT (1 << 24)  /* far above the slots nextSlot() hands out */

/* One rank of P (2 or 3); slow: rank P-1 first sends rank 0 the 64 MiB
 * message, which rank 0 reads one second late; and at 3 ranks, rank 2
 * writes 100 over the part of its buffer that run() does not write (all
 * but its own block at the start) as soon as run() returns. Each rank
 * prints its wrong elements; exit status: 1 when it had any. */
static int run_rank(int rank, int P, const char *dir, int slow)
{
	gloo::rendezvous::FileStore store(dir);
	auto dev = gloo::transport::tcp::CreateDevice(
		gloo::transport::tcp::attr("127.0.0.1"));
	auto ctx = std::make_shared<gloo::rendezvous::Context>(rank, P);
	std::vector<char> big(BLOCKER, 7);
	std::vector<int> v((size_t)P * N, rank + 1);
	std::unique_ptr<gloo::transport::Buffer> b;
	std::thread reader;
	const int want = P * (P + 1) / 2;
	int wrong = 0, first = -1;

	ctx->connectFullMesh(store, dev);
	if (slow && rank == P - 1) {
		b = ctx->getPair(0)->createSendBuffer(BLOCKER_SLOT, big.data(),
						      BLOCKER);
		b->send();
	} else if (slow && rank == 0) {
		reader = std::thread([&] {
			sleep(1);
			b = ctx->getPair(P - 1)->createRecvBuffer(
				BLOCKER_SLOT, big.data(), BLOCKER);
			b->waitRecv();
		});
	}
	gloo::ReduceScatterHalvingDoubling<int> rs(
		ctx, std::vector<int *>{v.data()}, P * N,
		std::vector<int>((size_t)P, N), gloo::ReductionFunction<int>::sum);
	rs.run();
	if (slow && P == 3 && rank == 2)
		std::fill(v.begin() + N, v.end(), 100);
	if (slow && rank == P - 1)
		b->waitSend();
	if (slow && rank == 0)
		reader.join();
	for (int i = 0; i < N; i++)
		if (v[i] != want && wrong++ == 0)
			first = i;
	/* (every rank's queued sends done before rs goes) */
	gloo::BarrierOptions bo(ctx);
	gloo::barrier(bo);
	if (wrong)
		printf("  rank %d: %d of the %d elements of its block wrong (the "
		       "first: element %d is %d, expected %d)\n", rank, wrong,
		       N, first, v[first], want);
	fflush(stdout);
	return wrong != 0;
}

/* P ranks forked: how many had wrong elements, -1 when one died. */
static int wrong_ranks(int P, int slow)
{
	char dir[] = "/tmp/gloo-finding-XXXXXX";
	int st, wrong = 0;

	if (!mkdtemp(dir))
		return perror("mkdtemp"), -1;
	fflush(stdout);
	for (int r = 0; r < P; r++)
		if (fork() == 0)
			_exit(run_rank(r, P, dir, slow));
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

	for (int P = 2; P <= 3; P++) {
		int alone, behind;

		alone = wrong_ranks(P, 0);
		printf("%d ranks, alone: ranks with wrong elements: %d\n", P,
		       alone);
		behind = wrong_ranks(P, 1);
		printf("%d ranks, behind 64 MiB that rank 0 reads one second "
		       "late: ranks with wrong elements: %d\n", P, behind);
		if (alone < 0 || behind < 0)
			printf("a rank died\n");
		bad |= behind != 0;
	}
	printf(bad ? "DEFECT: a queued send carried data written after it "
		     "was sent\n"
		   : "no defect: every element right\n");
	return bad;
}
