/*
 * fuzz.h - what every fuzz target under test/fuzz/ shares.
 *
 * Each fuzz_<name>.c defines LLVMFuzzerTestOneInput() and nothing else
 * that is global, so the same object links either with libFuzzer (clang,
 * `make fuzz`) or with replay.c (gcc, `make test`: the corpus plus seeded
 * mutations).  A target must accept any bytes; besides "does not crash"
 * it checks the cheap properties of its parser with TS_FUZZ_CHECK, which
 * aborts (a crash, so both drivers report it with the input that broke).
 */
#ifndef TS_TEST_FUZZ_H
#define TS_TEST_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define TS_FUZZ_CHECK(cond)                                                                        \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: property failed: %s\n", __FILE__, __LINE__, #cond);            \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* Inputs larger than this are ignored: the parsers have their own caps
 * far above it, and big inputs only slow the search down. */
#define TS_FUZZ_MAX_INPUT ((size_t)1 << 20)

#endif
