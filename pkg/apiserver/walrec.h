/*
 * walrec.h - the record format of turnstile-apiserver's write-ahead log
 * and snapshot files (pure: no I/O).
 *
 * A record is a 12-byte header - magic "TSW1", payload length (u32 little
 * endian), CRC-32 (IEEE) of the payload - followed by the payload:
 *
 *     op '\n' group '\n' resource '\n' rv '\n' namespace '\n' name '\n' body
 *
 * op is 'P' (put: body is the object's JSON), 'D' (delete: empty body) or
 * 'S' (snapshot header: rv is the global resourceVersion, other fields
 * empty).  A record that is cut short or whose checksum does not match
 * is torn: decoding stops there, and everything before it is intact.
 *
 * Ownership: decoded records borrow from the input buffer.
 */
#ifndef TS_APISERVER_WALREC_H
#define TS_APISERVER_WALREC_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

#define TS_WALREC_HDR 12

struct ts_walrec {
    char op;
    int64_t rv;
    struct ts_str group, resource, ns, name, body;
};

/* CRC-32 (IEEE 802.3, as zlib's crc32) of data. */
uint32_t ts_walrec_crc32(const void *data, size_t len);

/* Appends the encoded record to out.  Returns 0 or TS_EOVERFLOW (out's
 * cap). */
int ts_walrec_encode(struct ts_buf *out, const struct ts_walrec *rec);

/* Decodes the record at p[0..len).  Returns 0 and sets *used to its size,
 * 1 at a clean end (len == 0), or TS_EPARSE when the record is torn or
 * corrupt (short header or payload, bad magic, checksum mismatch,
 * malformed payload).  Ownership: rec's views point into p. */
int ts_walrec_decode(const char *p, size_t len, struct ts_walrec *rec, size_t *used);

#endif
