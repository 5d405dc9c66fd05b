/*
 * json_print.c - JSON text from cJSON trees, compact or kubectl-style
 * pretty.  Numbers are written exactly (cJSON_Print rounds to 15 digits,
 * which turns 1234567890123456 into 1.23456789012346e+15).
 */
#include "json/json.h"
#include "util/alloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Integral values below 1e21 in full, others in the shortest %g form
 * that reads back as the same double. */
static int add_number(double d, struct ts_buf *out)
{
    char buf[40];

    if (!isfinite(d))
        return TS_EINVAL;
    /* integers by hand: most numbers in Kubernetes objects are, and
     * printf would be a visible part of printing every stored object */
    if (floor(d) == d && fabs(d) < 1e18 && !(d == 0 && signbit(d))) {
        unsigned long long u = d < 0 ? (unsigned long long)-d : (unsigned long long)d;
        char *end = buf + sizeof(buf), *q = end;

        do
            *--q = (char)('0' + u % 10);
        while (u /= 10);
        if (d < 0)
            *--q = '-';
        return ts_buf_add(out, q, (size_t)(end - q));
    }
    if (floor(d) == d && fabs(d) < 1e21)
        return ts_buf_addf(out, "%.0f", d);
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, sizeof(buf), "%.*g", prec, d);
        if (strtod(buf, NULL) == d)
            break;
    }
    return ts_buf_adds(out, buf);
}

int ts_json_print_string(const char *s, struct ts_buf *out)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)s, *run = p;
    int rc = ts_buf_addc(out, '"');

    /* runs of plain characters in one append, not one call per byte */
    for (; *p && !rc; p++) {
        const char *esc = NULL;

        if (*p >= 0x20 && *p != '"' && *p != '\\')
            continue;
        if (p > run && (rc = ts_buf_add(out, run, (size_t)(p - run))))
            break;
        run = p + 1;
        switch (*p) {
        case '"':
            esc = "\\\"";
            break;
        case '\\':
            esc = "\\\\";
            break;
        case '\b':
            esc = "\\b";
            break;
        case '\f':
            esc = "\\f";
            break;
        case '\n':
            esc = "\\n";
            break;
        case '\r':
            esc = "\\r";
            break;
        case '\t':
            esc = "\\t";
            break;
        default:
            break;
        }
        if (esc)
            rc = ts_buf_adds(out, esc);
        else
            rc = ts_buf_addf(out, "\\u00%c%c", hex[*p >> 4], hex[*p & 15]);
    }
    if (!rc && p > run)
        rc = ts_buf_add(out, run, (size_t)(p - run));
    return rc ? rc : ts_buf_addc(out, '"');
}

static int newline(struct ts_buf *out, int pretty, int depth)
{
    int rc;

    if (!pretty)
        return 0;
    rc = ts_buf_addc(out, '\n');
    for (int i = 0; i < depth && !rc; i++)
        rc = ts_buf_add(out, "    ", 4);
    return rc;
}

static int add_value(const cJSON *v, int pretty, int depth, struct ts_buf *out);

static int add_container(const cJSON *v, int pretty, int depth, struct ts_buf *out)
{
    int obj = cJSON_IsObject(v);
    int rc = ts_buf_addc(out, obj ? '{' : '[');

    if (!v->child)
        return rc ? rc : ts_buf_addc(out, obj ? '}' : ']');
    for (const cJSON *c = v->child; c && !rc; c = c->next) {
        rc = newline(out, pretty, depth + 1);
        if (!rc && obj)
            rc = ts_json_print_string(c->string ? c->string : "", out);
        if (!rc && obj)
            rc = pretty ? ts_buf_add(out, ": ", 2) : ts_buf_addc(out, ':');
        if (!rc)
            rc = add_value(c, pretty, depth + 1, out);
        if (!rc && c->next)
            rc = ts_buf_addc(out, ',');
    }
    if (!rc)
        rc = newline(out, pretty, depth);
    return rc ? rc : ts_buf_addc(out, obj ? '}' : ']');
}

static int add_value(const cJSON *v, int pretty, int depth, struct ts_buf *out)
{
    switch (v->type & 0xff) {
    case cJSON_NULL:
        return ts_buf_adds(out, "null");
    case cJSON_False:
        return ts_buf_adds(out, "false");
    case cJSON_True:
        return ts_buf_adds(out, "true");
    case cJSON_Number:
        return add_number(v->valuedouble, out);
    case cJSON_String:
        return ts_json_print_string(v->valuestring ? v->valuestring : "", out);
    case cJSON_Raw:
        return v->valuestring ? ts_buf_adds(out, v->valuestring) : TS_EINVAL;
    case cJSON_Array:
    case cJSON_Object:
        return add_container(v, pretty, depth, out);
    default:
        return TS_EINVAL;
    }
}

int ts_json_print(const cJSON *v, unsigned flags, struct ts_buf *out, struct ts_err *err)
{
    size_t start = out->len;
    int rc;

    if (!v)
        return ts_err_set(err, TS_EINVAL, "cannot print a missing JSON value");
    rc = add_value(v, (flags & TS_JSON_PRETTY) != 0, 0, out);
    if (rc == 0)
        return 0;
    if (out->cap) {
        out->len = start;
        out->ptr[start] = '\0';
    }
    if (rc == TS_EOVERFLOW)
        return ts_err_set(err, rc, "JSON text exceeds the buffer limit of %zu bytes", out->max);
    return ts_err_set(err, rc, "cannot print JSON value (non-finite number or empty raw node)");
}

char *ts_json_dumps(const cJSON *v, unsigned flags)
{
    struct ts_buf b;
    size_t len;

    ts_buf_init(&b, 0);
    if (ts_json_print(v, flags, &b, NULL)) {
        ts_buf_release(&b);
        return NULL;
    }
    /* cut to size: the printing buffer grows by doubling, and a request
     * body can wait a long time in a client's queue (up to 1,000 Events
     * behind their budget, the Workload writes behind theirs) */
    len = b.len;
    return ts_xrealloc(ts_buf_take(&b), len + 1);
}
