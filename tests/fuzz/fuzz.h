/*
 * fuzz.h - what the fuzz targets of tests/fuzz share: the libFuzzer entry
 * points, a quiet mode for the parsers' own messages, shell-like word
 * splitting, and the way a target reports a broken property.
 *
 * Every target defines LLVMFuzzerTestOneInput. Built with clang and
 * -fsanitize=fuzzer it is a libFuzzer binary; built with any compiler and
 * replay.c it runs the inputs named on its command line once each (the
 * checked-in corpus, as a regression test).
 */
#ifndef CS_FUZZ_H
#define CS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/*
 * Make the parsers quiet: the C streams stdout and stderr are pointed at
 * /dev/null, so the usage and error messages the parsers print for most
 * inputs do not flood the log; file descriptors 1 and 2 are left alone,
 * so libFuzzer's and the sanitizers' reports still reach the terminal.
 * CS_FUZZ_VERBOSE=1 in the environment keeps the messages. Called once,
 * from LLVMFuzzerInitialize (fuzz.c defines it).
 */
void cs_fuzz_quiet(void);

/*
 * A broken property: print "fuzz: " and the message on the original
 * stderr, then abort(), which libFuzzer reports as a crash and saves the
 * input for. Never returns.
 */
void cs_fuzz_fail(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

#define CS_FUZZ_CHECK(cond, ...)                                               \
	do {                                                                   \
		if (!(cond))                                                   \
			cs_fuzz_fail(__VA_ARGS__);                             \
	} while (0)

/*
 * A copy of data[0..size) up to its first NUL, NUL-terminated, malloc'ed
 * (the caller frees it); NULL when out of memory.
 */
char *cs_fuzz_str(const uint8_t *data, size_t size);

/*
 * Split s into words as a POSIX shell does for a simple command: blanks
 * (space, tab, newline) separate words; '...' keeps everything literally;
 * "..." keeps everything but \" \\ \$ \` and backslash-newline, and
 * replaces $(printf 'F') with what printf F writes (escapes \ooo, \\, \n
 * ... and %% only; trailing newlines dropped), the one expansion a re-run
 * line uses (cs_repro_format); an unquoted backslash quotes the next byte
 * (backslash-newline is removed). No other expansion: $ and ` are
 * literal. On success *argv is a malloc'ed
 * NULL-terminated array of malloc'ed words, *argc their number; free both
 * with cs_fuzz_free_words. Returns 0, or -1 on an unterminated quote, a
 * printf format it does not know, or out of memory (nothing to free).
 */
int cs_fuzz_split(const char *s, int *argc, char ***argv);
void cs_fuzz_free_words(int argc, char **argv);

#endif /* CS_FUZZ_H */
