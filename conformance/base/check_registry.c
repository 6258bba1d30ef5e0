/*
 * check_registry.c - the check registry (check_registry.h): every check
 * name a result can carry, with its verdicts, priority, signature family
 * and description.
 *
 * The ranked rows come first, in priority order: when one rank's checks
 * give two verdicts of the same level, the earlier row wins, because it
 * explains the later ones (a backend error explains wrong values; writing
 * past a buffer explains a corrupted neighbour). The unranked rows are set
 * on a merged result by the driver, the report or the expectations, or
 * for the whole run.
 */
#include <stdio.h>
#include <string.h>
#include "base/check_registry.h"
#include "base/names.h"

#define V(x) CS_CHECK_V(CS_V_##x)

static const cs_check_info_t checks[] = {
	{"error", V(FAIL), 0, CS_CHECK_CASE, CS_CHECKF_ERROR,
	 "each rank",
	 "the backend returned a non-zero status for the call; the reason "
	 "quotes its `error_string`. (A run that stopped early also ends its "
	 "reports with an `error` entry: JSON `\"aborted\":true`, a JUnit "
	 "`<error>`.)"},
	{"guard", V(FAIL), 1, CS_CHECK_CASE, CS_CHECKF_MEMORY,
	 "each rank",
	 "a byte was written in the 64 guard bytes before or after a buffer: "
	 "the call writes outside its range"},
	{"sendbuf", V(FAIL), 2, CS_CHECK_CASE, CS_CHECKF_MEMORY,
	 "each rank",
	 "input the call must only read was changed: out of place, the send "
	 "buffer on every rank (significant there or not); in place, input "
	 "outside the receive range (scatter's other blocks at the root)"},
	{"untouched", V(FAIL), 3, CS_CHECK_CASE, CS_CHECKF_MEMORY,
	 "each rank",
	 "an element the call must not write was written: receive buffers of "
	 "reduce and gather off the root, and, in place, the parts of the "
	 "shared buffer that hold neither input nor result (gather off the "
	 "root)"},
	{"value", V(FAIL), 4, CS_CHECK_CASE, CS_CHECKF_VALUES,
	 "each rank",
	 "a received element does not conform: integers, data movement, "
	 "exact-mode floats and `max`/`min` must match bit for bit "
	 "(`max`/`min` return one of the inputs; +0/-0 ties may return either "
	 "zero); other float results must be within the element's forward "
	 "error bound (`spec/numerics.md` section 4); alltoallv gap elements "
	 "must be left as they were. The detail lists the first wrong elements"},
	{"identity", V(FAIL), 5, CS_CHECK_CASE, CS_CHECKF_IDENTITY,
	 "all ranks of the communicator",
	 "ranks that must hold the same result (allreduce, allgather, "
	 "broadcast) hold different values: a NaN equals any NaN and, where "
	 "the op allows either (a `max`/`min` tie of +0 and -0, a `sum` of "
	 "0), +0 equals -0 (`spec/numerics.md` section 5.1); compared by a "
	 "keyed fingerprint of each rank's whole receive buffer (a pattern's "
	 "allreduce: the whole buffers themselves, within the pattern's "
	 "group)"},
	{"bitidentity", V(FAIL) | V(WARN), 6, CS_CHECK_CASE,
	 CS_CHECKF_IDENTITY, "all ranks of the communicator",
	 "ranks that hold the same values hold different bits (NaN payloads "
	 "or signs, zero signs), compared like `identity` on the raw bytes: "
	 "WARN, and FAIL for a backend that promises bit-identical results "
	 "(`CS_BACKEND_F_BIT_IDENTICAL`: nccl, nccl-local, gpu, gpu-sim)"},
	{"nanrule", V(FAIL), 7, CS_CHECK_CASE, CS_CHECKF_VALUES,
	 "the merge of all ranks",
	 "`max`/`min` ignored a NaN in some elements and propagated one in "
	 "others within one case: no consistent NaN rule"},
	{"ovfrule", V(FAIL), 8, CS_CHECK_CASE, CS_CHECKF_VALUES,
	 "the merge of all ranks",
	 "an overflow came back as Inf or NaN in some elements and saturated "
	 "(float8) in others within one case: no consistent overflow rule "
	 "(`spec/numerics.md` section 4.9.4)"},
	{"sign", V(FAIL) | V(WARN), 9, CS_CHECK_CASE, CS_CHECKF_VALUES,
	 "the merge of all ranks",
	 "statistics of a random-mode float `sum`, `avg`, `premulsum` or "
	 "`prod`: too many results are 0 or of the other sign than the exact "
	 "result for rounding to explain"},
	{"bias", V(FAIL) | V(WARN), 10, CS_CHECK_CASE, CS_CHECKF_VALUES,
	 "the merge of all ranks",
	 "statistics as for `sign`: the results lean to one side of the exact "
	 "value far more often than rounding to nearest allows (truncation at "
	 "every step, an `avg` whose division truncates, a float8 result of 0)"},
	{"precision", V(FAIL) | V(WARN), 11, CS_CHECK_CASE, CS_CHECKF_VALUES,
	 "the merge of all ranks",
	 "statistics as for `sign`: the mean squared error is far above the "
	 "probabilistic error scale `sqrt(k)*u` of the computation (float8: "
	 "WARN at most)"},
	{"oracle", V(FAIL), 12, CS_CHECK_CASE, CS_CHECKF_OTHER,
	 "each rank",
	 "collspec's oracle could not compute the expected values of the case "
	 "(the reason says why): a defect or limit of collspec, not of the "
	 "backend"},
	{"harness", V(FAIL), 13, CS_CHECK_CASE, CS_CHECKF_OTHER,
	 "each rank",
	 "collspec itself could not set up or check the case (out of memory, "
	 "a copy to or from the device failed, no random bytes for the "
	 "identity key); the reason says which rank and why"},
	{"determinism", V(WARN), 14, CS_CHECK_CASE, CS_CHECKF_OTHER,
	 "each rank",
	 "a later call on the first call's inputs gave different bits than "
	 "the first call; FAIL the run on it with `--fail-on-warn`"},
	{"skip", V(SKIP), 15, CS_CHECK_CASE, CS_CHECKF_OTHER,
	 "each rank",
	 "the backend does not implement the collective, declines the case, "
	 "has no `comm_split`, or has no device; the reason says which"},
	{"crash", V(FAIL), CS_CHECK_UNRANKED, CS_CHECK_CASE, CS_CHECKF_CRASH,
	 "the driver",
	 "driver mode only: a rank died during the case; the reason names the "
	 "signal or exit status, and the sweep resumes after the case"},
	{"hang", V(FAIL), CS_CHECK_UNRANKED, CS_CHECK_CASE, CS_CHECKF_CRASH,
	 "the driver",
	 "driver mode only: the case outlived `--timeout`; its processes were "
	 "killed and the sweep resumes after the case"},
	{"guardpage", V(FAIL), CS_CHECK_UNRANKED, CS_CHECK_CASE,
	 CS_CHECKF_MEMORY, "the rank that faulted",
	 "host memory: the call read or wrote beyond a buffer's guard bytes, "
	 "into the inaccessible page before or after it, and the rank "
	 "faulted; the reason names the rank, the buffer and the side, and "
	 "the sweep resumes after the case"},
	{"profile", V(INFO), CS_CHECK_UNRANKED, CS_CHECK_CASE, CS_CHECKF_OTHER,
	 "the merge of all ranks",
	 "an implementation-defined behaviour was observed (`nan=ignore` or "
	 "`nan=propagate`, `ovf=nonfinite` or `ovf=saturate`); the reason "
	 "lists the tokens"},
	{"expect", V(XPASS), CS_CHECK_UNRANKED, CS_CHECK_CASE, CS_CHECKF_OTHER,
	 "the report (`--expect`)",
	 "an entry of the expectations file selected cases of the run and "
	 "none of them failed by its check: the defect no longer shows "
	 "anywhere it was looked for, or the entry selects the wrong cases; "
	 "fix or remove the entry (one line per entry after the last case); "
	 "never for an entry given `--shows sometimes`"},
	{"load", V(FAIL), CS_CHECK_UNRANKED, CS_CHECK_RUN, CS_CHECKF_OTHER,
	 "the driver",
	 "driver mode only: the plugin crashed, exited or blocked past "
	 "`--timeout` while loading; the run's only result"},
};

#define NUM_CHECKS (sizeof checks / sizeof checks[0])

const cs_check_info_t *cs_check_at(size_t i)
{
	return i < NUM_CHECKS ? &checks[i] : NULL;
}

const cs_check_info_t *cs_check_find(const char *name)
{
	size_t i;

	for (i = 0; name && i < NUM_CHECKS; i++)
		if (strcmp(checks[i].name, name) == 0)
			return &checks[i];
	return NULL;
}

/* The number of ranked checks: the priority of every other name. */
static int num_ranked(void)
{
	size_t i;
	int n = 0;

	for (i = 0; i < NUM_CHECKS; i++)
		n += checks[i].prio != CS_CHECK_UNRANKED;
	return n;
}

int cs_check_priority(const char *name)
{
	const cs_check_info_t *c = cs_check_find(name);

	return c && c->prio != CS_CHECK_UNRANKED ? c->prio : num_ranked();
}

int cs_check_expectable(const cs_check_info_t *c)
{
	return c && c->scope == CS_CHECK_CASE &&
	       (c->verdicts & CS_CHECK_V(CS_V_FAIL));
}

void cs_check_verdicts_text(const cs_check_info_t *c, char *buf, size_t n)
{
	size_t used = 0;
	int v;

	if (!buf || !n)
		return;
	buf[0] = '\0';
	for (v = CS_NUM_VERDICTS - 1; c && v >= 0 && used < n; v--)
		if (c->verdicts & CS_CHECK_V(v))
			used += (size_t)snprintf(buf + used, n - used, "%s%s",
						 used ? " or " : "",
						 cs_verdict_name((cs_verdict_t)v));
}
