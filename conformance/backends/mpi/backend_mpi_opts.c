/*
 * backend_mpi_opts.c - the `mpi` backend's --backend-opt string: a comma
 * list of ctypes=0|1|2 (the MPI types of the dtypes: backend_mpi.c's top
 * comment) and api=blocking|nonblocking|persistent (the calls made:
 * backend_mpi_api.c), each at most once.
 */
#include <stdio.h>
#include <string.h>
#include "backends/mpi/backend_mpi_impl.h"

static const char *const api_names[] = {"blocking", "nonblocking",
					"persistent"};

static enum cs_mpib_api current_api = CS_MPIB_BLOCKING;

const char *cs_mpib_api_name(enum cs_mpib_api api)
{
	return (unsigned)api < 3 ? api_names[api] : "?";
}

enum cs_mpib_api cs_mpib_api(void)
{
	return current_api;
}

void cs_mpib_set_api(enum cs_mpib_api api)
{
	current_api = api;
}

/* One item "key=value" (len bytes) into o; 0, or -1 with err written. */
static int one_opt(const char *item, size_t len, struct cs_mpib_opts *o,
		   int *seen, char *err, size_t n)
{
	int k;

	if (len == 8 && !strncmp(item, "ctypes=", 7) && item[7] >= '0' &&
	    item[7] <= '2' && !(*seen & 1)) {
		o->ctypes = item[7] - '0';
		*seen |= 1;
		return 0;
	}
	for (k = 0; k < 3 && len > 4 && !strncmp(item, "api=", 4); k++)
		if (len - 4 == strlen(api_names[k]) && !(*seen & 2) &&
		    !strncmp(item + 4, api_names[k], len - 4)) {
			o->api = (enum cs_mpib_api)k;
			*seen |= 2;
			return 0;
		}
	snprintf(err, n, "bad backend option '%.*s' (valid, comma separated, "
		 "each once: ctypes=0|1|2, api=blocking|nonblocking|"
		 "persistent)", (int)(len > 200 ? 200 : len), item);
	return -1;
}

int cs_mpib_parse_opts(const char *s, struct cs_mpib_opts *o, char *err,
		       size_t n)
{
	int seen = 0;

	o->ctypes = 0;
	o->api = CS_MPIB_BLOCKING;
	if (!s || !*s)
		return 0;
	for (;;) {
		size_t len = strcspn(s, ",");

		if (one_opt(s, len, o, &seen, err, n))
			return -1;
		if (!s[len])
			return 0;
		s += len + 1;
	}
}
