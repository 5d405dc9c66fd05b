#include "util/buf.h"

#include "util/alloc.h"
#include "util/err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char ts__buf_empty[1];

struct ts_str ts_str_c(const char *s)
{
    struct ts_str v = {s ? s : "", s ? strlen(s) : 0};

    return v;
}

int ts_str_eq(struct ts_str a, const char *s)
{
    size_t n = strlen(s);

    return a.len == n && memcmp(a.ptr, s, n) == 0;
}

void ts_buf_init(struct ts_buf *b, size_t max)
{
    b->ptr = ts__buf_empty;
    b->len = 0;
    b->cap = 0;
    b->max = max;
}

void ts_buf_release(struct ts_buf *b)
{
    if (b->cap)
        free(b->ptr);
    ts_buf_init(b, b->max);
}

void ts_buf_reset(struct ts_buf *b)
{
    b->len = 0;
    if (b->cap)
        b->ptr[0] = '\0';
}

static int reserve(struct ts_buf *b, size_t extra)
{
    size_t need;

    if (b->max && (extra > b->max || b->len > b->max - extra))
        return TS_EOVERFLOW;
    need = b->len + extra + 1;
    if (need <= b->cap)
        return 0;
    if (!b->cap) {
        size_t cap = need < 64 ? 64 : need;

        b->ptr = ts_xmalloc(cap);
        b->ptr[0] = '\0';
        b->cap = cap;
        return 0;
    }
    ts_xgrow((void **)&b->ptr, &b->cap, need, 1);
    return 0;
}

int ts_buf_add(struct ts_buf *b, const void *data, size_t len)
{
    if (reserve(b, len))
        return TS_EOVERFLOW;
    if (len)
        memcpy(b->ptr + b->len, data, len);
    b->len += len;
    if (b->cap)
        b->ptr[b->len] = '\0';
    return 0;
}

int ts_buf_adds(struct ts_buf *b, const char *s)
{
    return ts_buf_add(b, s, strlen(s));
}

int ts_buf_addc(struct ts_buf *b, char c)
{
    return ts_buf_add(b, &c, 1);
}

int ts_buf_vaddf(struct ts_buf *b, const char *fmt, va_list ap)
{
    va_list cp;
    int n;

    va_copy(cp, ap);
    n = vsnprintf(NULL, 0, fmt, cp);
    va_end(cp);
    if (n < 0)
        return TS_EINVAL;
    if (reserve(b, (size_t)n))
        return TS_EOVERFLOW;
    vsnprintf(b->ptr + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
    return 0;
}

int ts_buf_addf(struct ts_buf *b, const char *fmt, ...)
{
    va_list ap;
    int rc;

    va_start(ap, fmt);
    rc = ts_buf_vaddf(b, fmt, ap);
    va_end(ap);
    return rc;
}

char *ts_buf_take(struct ts_buf *b)
{
    char *s = b->cap ? b->ptr : ts_xstrdup("");

    ts_buf_init(b, b->max);
    return s;
}
