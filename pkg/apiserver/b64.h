/*
 * b64.h - standard base64 with padding (RFC 4648 section 4).  Pure.
 * Ownership: output is appended to a caller-owned buffer.
 */
#ifndef TS_APISERVER_B64_H
#define TS_APISERVER_B64_H

#include <stddef.h>

#include "util/buf.h"

/* Appends the base64 text of data[0..len) to out. */
void ts_b64_encode(const void *data, size_t len, struct ts_buf *out);

/* Appends the bytes s decodes to; returns 0 or TS_EINVAL (a character
 * outside the alphabet).  Padding is optional. */
int ts_b64_decode(const char *s, struct ts_buf *out);

#endif
