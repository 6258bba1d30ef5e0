#!/bin/sh
# large_gate.sh GIB COMMAND... - run COMMAND, a test labelled `large`, only
# when it is asked for (CS_TEST_LARGE=1 in the environment) and when
# /proc/meminfo's MemAvailable holds at least GIB GiB; otherwise exit 77,
# which CTest reports as skipped, after one line giving the reason.
need_gib=$1
shift
if [ "${CS_TEST_LARGE:-0}" != 1 ]; then
	echo "skipped: label large (needs $need_gib GiB of free memory): run it" \
		"with CS_TEST_LARGE=1 ctest -L large, or scripts/test.sh's" \
		"large stage"
	exit 77
fi
avail_kib=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo 2>/dev/null)
if [ -z "$avail_kib" ]; then
	echo "skipped: no MemAvailable in /proc/meminfo to check that" \
		"$need_gib GiB are free"
	exit 77
fi
if [ "$avail_kib" -lt $((need_gib * 1024 * 1024)) ]; then
	echo "skipped: needs $need_gib GiB of free memory; MemAvailable is" \
		"$((avail_kib / 1024)) MiB"
	exit 77
fi
exec "$@"
