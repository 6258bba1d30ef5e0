/*
 * replay.c - main() for a fuzz target built without libFuzzer: runs
 * LLVMFuzzerTestOneInput once on every file named on the command line and
 * on every file in the directories named there (not recursively). A
 * broken property or a sanitizer error aborts, as under libFuzzer.
 *
 * usage: fuzz_NAME_replay PATH...
 * Exits 0 after at least one input, 1 when a path cannot be read or no
 * input was found.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "fuzz.h"

/* Run the target on the bytes of file path; 0, or -1 if unreadable. */
static int replay_file(const char *path, FILE *log)
{
	FILE *f = fopen(path, "rb");
	uint8_t *data = NULL;
	long size;
	int rc = -1;

	if (!f)
		goto out_log;
	if (fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET))
		goto out_close;
	data = malloc((size_t)size + 1); /* +1: a valid pointer at size 0 */
	if (!data || fread(data, 1, (size_t)size, f) != (size_t)size)
		goto out_free_data;
	LLVMFuzzerTestOneInput(data, (size_t)size);
	rc = 0;
out_free_data:
	free(data);
out_close:
	fclose(f);
out_log:
	if (rc)
		fprintf(log, "replay: cannot read '%s'\n", path);
	return rc;
}

/* Every regular file in directory dir; adds to *n. -1 on an error. */
static int replay_dir(const char *dir, FILE *log, int *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[4096];
	struct stat st;
	int rc = 0;

	if (!d) {
		fprintf(log, "replay: cannot open directory '%s'\n", dir);
		return -1;
	}
	while (rc == 0 && (e = readdir(d)) != NULL) {
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		if (stat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		rc = replay_file(path, log);
		*n += rc == 0;
	}
	closedir(d);
	return rc;
}

int main(int argc, char **argv)
{
	FILE *log = stderr; /* before the target makes stderr quiet */
	struct stat st;
	int i, n = 0, rc = 0;

	LLVMFuzzerInitialize(&argc, &argv);
	for (i = 1; i < argc && rc == 0; i++) {
		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
			rc = replay_dir(argv[i], log, &n);
		else if ((rc = replay_file(argv[i], log)) == 0)
			n++;
	}
	if (rc == 0 && n == 0)
		fprintf(log, "replay: no input found\n");
	else if (rc == 0)
		fprintf(log, "replay: %d inputs, no property broken\n", n);
	return rc || n == 0;
}
