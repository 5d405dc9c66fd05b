/*
 * walrec.c - write-ahead log records: framing, CRC-32, payload fields.
 */
#include "apiserver/walrec.h"

#include <string.h>

#include "util/err.h"
#include "util/parse.h"

static const char magic[4] = {'T', 'S', 'W', '1'};

uint32_t ts_walrec_crc32(const void *data, size_t len)
{
    static uint32_t table[256];
    static int ready;
    const unsigned char *p = data;
    uint32_t c = 0xffffffffu;

    if (!ready) { /* idempotent: racing initialisers write the same values */
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t v = i;
            for (int k = 0; k < 8; k++)
                v = (v & 1) ? 0xedb88320u ^ (v >> 1) : v >> 1;
            table[i] = v;
        }
        ready = 1;
    }
    for (size_t i = 0; i < len; i++)
        c = table[(c ^ p[i]) & 0xff] ^ (c >> 8);
    return c ^ 0xffffffffu;
}

static void put_u32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

static uint32_t get_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void add_field(struct ts_buf *b, struct ts_str s)
{
    ts_buf_add(b, s.ptr ? s.ptr : "", s.len);
    ts_buf_addc(b, '\n');
}

int ts_walrec_encode(struct ts_buf *out, const struct ts_walrec *rec)
{
    struct ts_buf pl = TS_BUF_INIT;
    unsigned char hdr[TS_WALREC_HDR];
    int rc;

    ts_buf_addc(&pl, rec->op);
    ts_buf_addc(&pl, '\n');
    add_field(&pl, rec->group);
    add_field(&pl, rec->resource);
    ts_buf_addf(&pl, "%lld\n", (long long)rec->rv);
    add_field(&pl, rec->ns);
    add_field(&pl, rec->name);
    ts_buf_add(&pl, rec->body.ptr ? rec->body.ptr : "", rec->body.len);
    memcpy(hdr, magic, 4);
    put_u32(hdr + 4, (uint32_t)pl.len);
    put_u32(hdr + 8, ts_walrec_crc32(pl.ptr, pl.len));
    rc = ts_buf_add(out, hdr, sizeof(hdr));
    if (!rc && (rc = ts_buf_add(out, pl.ptr, pl.len)))
        out->len -= sizeof(hdr), out->ptr[out->len] = '\0';
    ts_buf_release(&pl);
    return rc;
}

/* Next '\n'-terminated field of [*p, end). */
static int field(const char **p, const char *end, struct ts_str *out)
{
    const char *nl = memchr(*p, '\n', (size_t)(end - *p));

    if (!nl)
        return -1;
    out->ptr = *p;
    out->len = (size_t)(nl - *p);
    *p = nl + 1;
    return 0;
}

static int payload(const char *p, size_t len, struct ts_walrec *rec)
{
    const char *end = p + len;
    struct ts_str op, rv;

    if (field(&p, end, &op) || op.len != 1 || !strchr("PDS", op.ptr[0]) ||
        field(&p, end, &rec->group) || field(&p, end, &rec->resource) || field(&p, end, &rv) ||
        ts_parse_i64(rv.ptr, rv.len, &rec->rv) || field(&p, end, &rec->ns) ||
        field(&p, end, &rec->name))
        return TS_EPARSE;
    rec->op = op.ptr[0];
    rec->body.ptr = p;
    rec->body.len = (size_t)(end - p);
    return 0;
}

int ts_walrec_decode(const char *p, size_t len, struct ts_walrec *rec, size_t *used)
{
    const unsigned char *u = (const unsigned char *)p;
    uint32_t n;

    memset(rec, 0, sizeof(*rec));
    if (len == 0)
        return 1;
    if (len < TS_WALREC_HDR || memcmp(p, magic, 4))
        return TS_EPARSE;
    n = get_u32(u + 4);
    if (n > len - TS_WALREC_HDR || ts_walrec_crc32(p + TS_WALREC_HDR, n) != get_u32(u + 8))
        return TS_EPARSE;
    if (payload(p + TS_WALREC_HDR, n, rec))
        return TS_EPARSE;
    *used = TS_WALREC_HDR + n;
    return 0;
}
