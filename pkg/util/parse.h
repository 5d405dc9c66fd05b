/*
 * parse.h - strict number parsing (atoi/strtol are banned: they accept
 * trailing garbage and hide overflow).
 */
#ifndef TS_PARSE_H
#define TS_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* Parses a whole base-10 integer (optional sign, no spaces, no trailing
 * bytes) of `len` bytes.  Returns 0, TS_EINVAL (not a number) or
 * TS_EOVERFLOW (out of int64 range). */
int ts_parse_i64(const char *s, size_t len, int64_t *out);

/* Same for a NUL-terminated string. */
int ts_parse_i64_c(const char *s, int64_t *out);

#endif
