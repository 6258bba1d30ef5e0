/*
 * no_symbol_plugin.c - a shared object that is not a collspec plugin, for
 * the harness's tests: it exports a function with a near-miss name but no
 * `collspec_backend`. The harness must refuse it at load with a message
 * naming the missing symbol, and run no case.
 */
#include <stdint.h>

__attribute__((visibility("default")))
int collspec_backend_v2(uint32_t harness_abi_version)
{
	return (int)harness_abi_version;
}
