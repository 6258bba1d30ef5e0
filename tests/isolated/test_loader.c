/*
 * test_loader.c - the plugin loader on what a broken plugin can hand it
 * (Check, fork mode): cs_backend_validate on garbage backend tables, and
 * cs_backend_probe on plugins that crash or block while they load.
 *
 * A table from a plugin is outside data: the loader must refuse each
 * defect with the status and the member its contract names
 * (backends/registry.h: CS_ERR_UNSUPPORTED for the ABI version and struct size,
 * CS_ERR_INVALID for the rest) and never crash on one. A crash here would
 * take the driver down with no verdict, so each test runs in its own
 * child with a timeout. No MPI is started, so forking is safe (STYLE.md:
 * never fork an MPI or CUDA process).
 *
 * Arguments: the paths of cs_plugin_bad (tests/plugins/bad_plugin.c: it
 * crashes or blocks while loading as CS_BAD_PLUGIN_LOAD says) and
 * cs_plugin_no_symbol.
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "collspec/backend.h"
#include "backends/registry.h"
#include "base/result.h"
#include "guard.h"

static const char *bad_plugin, *no_symbol_plugin;

/* ---- tables -------------------------------------------------------------- */

static int t_init(const cs_bootstrap_t *w, const char *o, cs_bcomm_t *c)
{
	(void)w;
	(void)o;
	(void)c;
	return 1;
}

static int t_init_all(int n, const char *o, cs_bcomm_t *c)
{
	(void)n;
	(void)o;
	(void)c;
	return 1;
}

static int t_sync(cs_bcomm_t c, void *s)
{
	(void)c;
	(void)s;
	return 0;
}

static const char *t_error_string(cs_bcomm_t c, int e)
{
	(void)c;
	(void)e;
	return "t";
}

static int t_group(void)
{
	return 0;
}

/* A table the loader accepts: rank per process, the required members. */
static cs_backend_t good_table(void)
{
	cs_backend_t b;

	memset(&b, 0, sizeof b);
	b.abi_version = CS_BACKEND_ABI_VERSION;
	b.struct_size = sizeof b;
	b.name = "t";
	b.description = "a table of test_loader";
	b.mem_kind = CS_MEM_HOST;
	b.proc_model = CS_PROC_RANK_PER_PROCESS;
	b.init = t_init;
	b.synchronize = t_sync;
	b.error_string = t_error_string;
	return b;
}

/* The all-ranks-in-one-process variant. */
static cs_backend_t good_all_table(void)
{
	cs_backend_t b = good_table();

	b.proc_model = CS_PROC_ALL_IN_PROCESS;
	b.init = NULL;
	b.init_all = t_init_all;
	b.group_start = t_group;
	b.group_end = t_group;
	return b;
}

/* b must be refused with status want and a message holding what. */
static void refused(const cs_backend_t *b, cs_status_t want, const char *what,
		    const char *defect)
{
	cs_status_t st = cs_backend_validate(b, "plugin p.so");

	ck_assert_msg(st == want, "%s: status %d, want %d (%s)", defect,
		      (int)st, (int)want, st ? cs_last_error() : "accepted");
	ck_assert_msg(strstr(cs_last_error(), what) != NULL,
		      "%s: message '%s' does not name '%s'", defect,
		      cs_last_error(), what);
	ck_assert_msg(strstr(cs_last_error(), "plugin p.so") != NULL,
		      "%s: message '%s' does not name the plugin", defect,
		      cs_last_error());
}

START_TEST(test_validate_good)
{
	cs_backend_t b = good_table(), a = good_all_table();

	ck_assert_int_eq(cs_backend_validate(&b, "plugin p.so"), CS_OK);
	ck_assert_int_eq(cs_backend_validate(&a, "plugin p.so"), CS_OK);
}
END_TEST

START_TEST(test_validate_version_and_size)
{
	cs_backend_t b = good_table();
	char want[64];

	b.abi_version = CS_BACKEND_ABI_VERSION + 1;
	snprintf(want, sizeof want, "version %u", CS_BACKEND_ABI_VERSION + 1);
	refused(&b, CS_ERR_UNSUPPORTED, want, "next version");
	snprintf(want, sizeof want, "version %u", CS_BACKEND_ABI_VERSION);
	refused(&b, CS_ERR_UNSUPPORTED, want, "next version (ours named)");
	b.abi_version = UINT32_MAX; /* a table of 0xff bytes starts so */
	refused(&b, CS_ERR_UNSUPPORTED, "4294967295", "version 2^32-1");
	b = good_table();
	b.struct_size = (uint32_t)sizeof b - 8;
	snprintf(want, sizeof want, "%zu bytes", sizeof b - 8);
	refused(&b, CS_ERR_UNSUPPORTED, want, "short struct");
	b.struct_size = 0;
	refused(&b, CS_ERR_UNSUPPORTED, "0 bytes", "empty struct");
}
END_TEST

/* Each required member left NULL is named. */
START_TEST(test_validate_missing_members)
{
	cs_backend_t b;

	b = good_table();
	b.name = NULL;
	refused(&b, CS_ERR_INVALID, "'name'", "no name");
	b = good_table();
	b.error_string = NULL;
	refused(&b, CS_ERR_INVALID, "'error_string'", "no error_string");
	b = good_table();
	b.synchronize = NULL;
	refused(&b, CS_ERR_INVALID, "'synchronize'", "no synchronize");
	b = good_table();
	b.init = NULL;
	refused(&b, CS_ERR_INVALID, "'init'", "rank per process, no init");
	b = good_all_table();
	b.init_all = NULL;
	refused(&b, CS_ERR_INVALID, "'init_all'", "all in one, no init_all");
	b = good_all_table();
	b.group_start = NULL;
	refused(&b, CS_ERR_INVALID, "group_start", "all in one, no group_start");
	b = good_all_table();
	b.group_end = NULL;
	refused(&b, CS_ERR_INVALID, "group_end", "all in one, no group_end");
}
END_TEST

/* Values outside the ABI's enumerations. */
START_TEST(test_validate_bad_enums)
{
	cs_backend_t b = good_table();

	b.mem_kind = (cs_mem_kind_t)7;
	refused(&b, CS_ERR_INVALID, "memory kind 7", "memory kind 7");
	b.mem_kind = (cs_mem_kind_t)-1;
	refused(&b, CS_ERR_INVALID, "memory kind -1", "memory kind -1");
	b = good_table();
	b.proc_model = (cs_proc_model_t)9;
	refused(&b, CS_ERR_INVALID, "process model 9", "process model 9");
}
END_TEST

/* Names of 0, CS_BACKEND_NAME_MAX and one more byte, each ending where
 * readable memory ends: the longest is refused without reading past its
 * NUL. */
START_TEST(test_validate_name_lengths)
{
	char name[CS_BACKEND_NAME_MAX + 2];
	cs_backend_t b = good_table();
	guard_t g;

	guard_init(&g, sizeof name);
	b.name = guard_place_str(&g, "", 0);
	refused(&b, CS_ERR_INVALID, "holds 0 bytes", "empty name");
	memset(name, 'n', sizeof name);
	b.name = guard_place_str(&g, name, CS_BACKEND_NAME_MAX);
	ck_assert_int_eq(cs_backend_validate(&b, "plugin p.so"), CS_OK);
	b.name = guard_place_str(&g, name, CS_BACKEND_NAME_MAX + 1);
	refused(&b, CS_ERR_INVALID, "name", "name one byte too long");
	/* no NUL at all before readable memory ends: refused after reading
	 * one byte more than a name may hold, not a crash */
	b.name = guard_place(&g, name, CS_BACKEND_NAME_MAX + 1);
	refused(&b, CS_ERR_INVALID, "more than", "name without a NUL");
	guard_free(&g);
}
END_TEST

/* ---- plugins that crash or block while loading --------------------------- */

static cs_status_t probe_with(const char *fault, const char *path,
			      double timeout, cs_backend_info_t *info)
{
	char spec[4096];

	if (fault)
		setenv("CS_BAD_PLUGIN_LOAD", fault, 1);
	else
		unsetenv("CS_BAD_PLUGIN_LOAD");
	snprintf(spec, sizeof spec, "plugin:%s", path);
	memset(info, 0, sizeof *info);
	info->fault = -1;
	return cs_backend_probe(spec, timeout, info);
}

/* The plugin itself, loading normally: described, not a fault. */
START_TEST(test_probe_loads)
{
	cs_backend_info_t info;

	ck_assert_int_eq(probe_with(NULL, bad_plugin, 10, &info), CS_OK);
	ck_assert_int_eq(info.fault, 0);
	ck_assert_uint_gt(strlen(info.name), 0);
	ck_assert_int_eq(info.proc_model, CS_PROC_RANK_PER_PROCESS);
}
END_TEST

/* A constructor or entry point that crashes: this process survives, and
 * the error is a fault that names the signal. */
START_TEST(test_probe_crash)
{
	static const char *const faults[] = { "ctor-crash", "entry-crash" };
	cs_backend_info_t info;
	size_t i;

	for (i = 0; i < 2; i++) {
		cs_status_t st = probe_with(faults[i], bad_plugin, 10, &info);

		ck_assert_msg(st != CS_OK, "%s: loaded", faults[i]);
		ck_assert_int_eq(info.fault, 1);
		ck_assert_msg(strstr(cs_last_error(), "crashed while loading "
				     "(signal 11") != NULL,
			      "%s: '%s'", faults[i], cs_last_error());
	}
}
END_TEST

/* One that blocks is killed after the timeout: a fault, in about that
 * time (the test case's timeout is the margin). */
START_TEST(test_probe_hang)
{
	static const char *const faults[] = { "ctor-hang", "entry-hang" };
	cs_backend_info_t info;
	size_t i;

	for (i = 0; i < 2; i++) {
		cs_status_t st = probe_with(faults[i], bad_plugin, 1, &info);

		ck_assert_msg(st != CS_OK, "%s: loaded", faults[i]);
		ck_assert_int_eq(info.fault, 1);
		ck_assert_msg(strstr(cs_last_error(), "did not finish loading "
				     "within 1 s") != NULL,
			      "%s: '%s'", faults[i], cs_last_error());
	}
}
END_TEST

/* A plugin refused (here: no entry point) is not a fault. */
START_TEST(test_probe_refused)
{
	cs_backend_info_t info;

	ck_assert_int_ne(probe_with(NULL, no_symbol_plugin, 10, &info), CS_OK);
	ck_assert_int_eq(info.fault, 0);
	ck_assert_ptr_nonnull(strstr(cs_last_error(), CS_BACKEND_SYMBOL));
}
END_TEST

static Suite *loader_suite(void)
{
	Suite *s = suite_create("loader");
	TCase *tables = tcase_create("tables"), *probe = tcase_create("probe");

	tcase_set_timeout(tables, 10);
	/* two 1 s load timeouts, with a wide margin for a loaded machine */
	tcase_set_timeout(probe, 30);
	tcase_add_test(tables, test_validate_good);
	tcase_add_test(tables, test_validate_version_and_size);
	tcase_add_test(tables, test_validate_missing_members);
	tcase_add_test(tables, test_validate_bad_enums);
	tcase_add_test(tables, test_validate_name_lengths);
	tcase_add_test(probe, test_probe_loads);
	tcase_add_test(probe, test_probe_crash);
	tcase_add_test(probe, test_probe_hang);
	tcase_add_test(probe, test_probe_refused);
	suite_add_tcase(s, tables);
	suite_add_tcase(s, probe);
	return s;
}

int main(int argc, char **argv)
{
	SRunner *sr;
	int failed;

	if (argc != 3) {
		fprintf(stderr, "usage: test_loader BAD_PLUGIN NO_SYMBOL_PLUGIN\n");
		return 2;
	}
	bad_plugin = argv[1];
	no_symbol_plugin = argv[2];
	sr = srunner_create(loader_suite());
	/* each test in its own child, whatever CK_FORK says */
	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
