/*
 * peer.h - the host-side rule for enabling CUDA peer access between two
 * devices of a world (runtime.cu), apart so that it runs on the CPU in
 * tests/gpu/test_gpu_peer.c. Internal to libcsgpu.
 */
#ifndef CSGPU_PEER_H
#define CSGPU_PEER_H

#include <cuda_runtime_api.h>

/*
 * The outcome of cudaDeviceEnablePeerAccess's status err. Peer access
 * outlives a world, so the second world of a process finds its pairs
 * enabled: cudaErrorPeerAccessAlreadyEnabled means the pair is reachable.
 * That error also stays in the runtime's last-error slot, where the next
 * cudaGetLastError (the launch checks) would report it, so it is taken
 * out with clear() (cudaGetLastError; it returns the error it removes)
 * and cudaSuccess is returned. Any other status is returned as it is.
 */
static inline cudaError_t csg_peer_outcome(cudaError_t err,
					   cudaError_t (*clear)(void))
{
	if (err != cudaErrorPeerAccessAlreadyEnabled)
		return err;
	(void)clear();
	return cudaSuccess;
}

#endif /* CSGPU_PEER_H */
