/*
 * fuzz.h - the libFuzzer entry points every tests/fuzz/fuzz_*.c defines
 *
 * Each target is linked either with libFuzzer (make fuzz: clang
 * -fsanitize=fuzzer) or with replay.c, a plain main() that feeds it the
 * files of a corpus (make check, any compiler).  FUZZ_CHECK() turns a
 * violated property into a crash that both drivers report.
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* LLVMFuzzerTestOneInput - run one input; returns 0 */
int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* LLVMFuzzerInitialize - optional one-time set-up (define it or not) */
int	LLVMFuzzerInitialize(int *argc, char ***argv);

#define FUZZ_CHECK(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "%s:%d: FUZZ_CHECK failed: %s\n",	\
		    __FILE__, __LINE__, #cond);				\
		abort();						\
	}								\
} while (0)

#endif
