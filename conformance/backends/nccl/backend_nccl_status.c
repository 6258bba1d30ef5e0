/*
 * backend_nccl_status.c - the status codes of the nccl backends and the
 * text of the last failure (error_string), and the devices they run on
 * (counted and selected through libcsgpu's device layer, csgpu/device.h).
 * What the codes are: backend_nccl_impl.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "backends/nccl/backend_nccl_impl.h"
#include "csgpu/device.h"

/* ---- status codes and the last failure ----------------------------------- */

/* The most recent failure in full, and its status. */
static char nb_detail[CS_NCCL_DETAIL_MAX];
static int nb_detail_err;

const char *cs_nccl_status_text(int err)
{
	if (err >= NB_CUDA)
		return cudaGetErrorString((cudaError_t)(err - NB_CUDA));
	if (err >= NB_NCCL)
		return ncclGetErrorString((ncclResult_t)(err - NB_NCCL));
	switch (err) {
	case 0:
		return "success";
	case CS_NCCL_ERR_NODEV:
		return "no CUDA device";
	case CS_NCCL_ERR_FEWDEV:
		return "fewer CUDA devices than ranks";
	case NB_EINVAL:
		return "invalid argument";
	case NB_ENOMEM:
		return "out of memory";
	case NB_EBOOT:
		return "the bootstrap channel failed";
	case NB_EPEER:
		return "another rank could not start";
	default:
		return "unknown status of the nccl backend";
	}
}

/* Record err with what failed ("<base>: <what>") and return err. */
int NB_FMT(2, 3) cs_nccl_fail(int err, const char *fmt, ...)
{
	char what[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	snprintf(nb_detail, sizeof nb_detail, "%s: %s", cs_nccl_status_text(err), what);
	nb_detail_err = err;
	return err;
}

/* 0 for ncclSuccess, else the shifted status, recorded with NCCL's own
 * last message. */
int cs_nccl_result(ncclResult_t r, const char *call, ncclComm_t nc)
{
	const char *last;

	if (r == ncclSuccess)
		return 0;
	last = ncclGetLastError(nc);
	if (!last || !*last)
		return cs_nccl_fail(NB_NCCL + (int)r, "%s failed", call);
	return cs_nccl_fail(NB_NCCL + (int)r, "%s failed: %s", call, last);
}

/* Record err with the device layer's message (cs_last_error(), which
 * names what failed) as its whole detail, and return err. */
static int nb_adopt(int err)
{
	snprintf(nb_detail, sizeof nb_detail, "%s", cs_last_error());
	nb_detail_err = err;
	return err;
}

/* 0 for cudaSuccess, else the shifted status, recorded with the device
 * layer's text of the error (which also clears CUDA's last error). */
int cs_nccl_cuda(cudaError_t e, const char *call)
{
	if (e == cudaSuccess)
		return 0;
	(void)cs_gpu_error(e, call);
	return nb_adopt(NB_CUDA + (int)e);
}

/* Make dev current: 0, CS_NCCL_ERR_NODEV without a device, NB_EINVAL for a
 * device this process does not have. */
int cs_nccl_set_device(int dev)
{
	cs_status_t st = cs_dev_set(dev);

	if (st == CS_OK)
		return 0;
	return nb_adopt(st == CS_ERR_UNSUPPORTED ? CS_NCCL_ERR_NODEV
			: NB_EINVAL);
}

void cs_nccl_detail_save(char *keep)
{
	memcpy(keep, nb_detail, CS_NCCL_DETAIL_MAX);
}

int cs_nccl_detail_restore(const char *keep, int err)
{
	memcpy(nb_detail, keep, CS_NCCL_DETAIL_MAX);
	nb_detail_err = err;
	return err;
}

/* ---- devices -------------------------------------------------------------- */

/* Devices this process sees (cached once found); CS_NCCL_ERR_NODEV, with
 * the device layer's "no CUDA device (...)", when none, or when CUDA
 * cannot even count them (no driver). */
int cs_nccl_devices(int *n)
{
	static int found;

	*n = found;
	if (found > 0)
		return 0;
	if (cs_dev_find(n) != CS_OK)
		return nb_adopt(CS_NCCL_ERR_NODEV);
	found = *n;
	return 0;
}

/* ---- the text of a status ------------------------------------------------ */

/* The backends' error_string: the most recent failure in full when err is
 * its status, else err's text alone. */
const char *cs_nccl_error_string(cs_bcomm_t comm, int err)
{
	(void)comm;
	if (err != 0 && err == nb_detail_err && nb_detail[0])
		return nb_detail;
	return cs_nccl_status_text(err);
}
