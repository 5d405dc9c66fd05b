/*
 * expfmt.c - float formatting and escaping for the text exposition format
 * (see expfmt.h).
 */
#include "metrics/expfmt.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether printf's prec significant digits of v read back as v; the
 * printed form ("d.ddde+XX") is left in tmp. */
static int round_trips(double v, int prec, char tmp[TS_METRICS_FLOAT_MAX])
{
    snprintf(tmp, TS_METRICS_FLOAT_MAX, "%.*e", prec - 1, v);
    return strtod(tmp, NULL) == v;
}

/* The exponent printf wrote after the 'e': a sign and two or three digits. */
static int exponent(const char *p)
{
    int neg = *p == '-', e = 0;

    for (p++; *p >= '0' && *p <= '9'; p++)
        e = e * 10 + (*p - '0');
    return neg ? -e : e;
}

/* The shortest decimal digits that read back as v (finite, > 0): the
 * fewest significant digits printf can give that strtod turns into v
 * again, found by binary search over 1..17 (17 always round-trip).  Go's
 * strconv finds the same digits with Ryu; they could differ only at
 * power-of-two boundaries, where the rounding interval is asymmetric.
 * Writes the digits without trailing zeros to d and returns the decimal
 * exponent of the first digit. */
static int shortest_digits(double v, char d[20])
{
    char tmp[TS_METRICS_FLOAT_MAX];
    const char *p = tmp;
    int lo = 1, hi = 17;
    size_t nd = 0;

    while (lo < hi) {
        int mid = (lo + hi) / 2;

        if (round_trips(v, mid, tmp))
            hi = mid;
        else
            lo = mid + 1;
    }
    round_trips(v, lo, tmp);
    for (; *p != 'e'; p++)
        if (*p != '.')
            d[nd++] = *p;
    while (nd > 1 && d[nd - 1] == '0')
        nd--;
    d[nd] = '\0';
    return exponent(p + 1);
}

/* The same for an integer below 1e15 (so below 2^53 and exact): any other
 * decimal with fewer digits is at least 1 away, more than half an ulp, so
 * the integer's own digits are the shortest.  The common case (counts,
 * bucket counts), without printf and strtod. */
static int integer_digits(uint64_t u, char d[20])
{
    char rev[20];
    int n = 0, exp;
    size_t nd = 0;

    for (; u; u /= 10)
        rev[n++] = (char)('0' + u % 10);
    exp = n - 1;
    while (n > 0)
        d[nd++] = rev[--n];
    while (nd > 1 && d[nd - 1] == '0')
        nd--;
    d[nd] = '\0';
    return exp;
}

/* Go's %e: d[.ddd]e±XX (at least two exponent digits). */
static size_t put_exp(char *out, const char *d, int exp)
{
    size_t n = 0, nd = strlen(d);

    out[n++] = d[0];
    if (nd > 1) {
        out[n++] = '.';
        memcpy(out + n, d + 1, nd - 1);
        n += nd - 1;
    }
    n += (size_t)snprintf(out + n, TS_METRICS_FLOAT_MAX - n, "e%c%02d", exp < 0 ? '-' : '+',
                          exp < 0 ? -exp : exp);
    return n;
}

/* Go's %f with exactly the digits given (-4 <= exp < 6, so it fits). */
static size_t put_fixed(char *out, const char *d, int exp)
{
    size_t n = 0, nd = strlen(d);

    if (exp < 0) {
        out[n++] = '0';
        out[n++] = '.';
        for (int i = -1; i > exp; i--)
            out[n++] = '0';
        memcpy(out + n, d, nd);
        return n + nd;
    }
    for (size_t i = 0; i <= (size_t)exp || i < nd; i++) {
        if (i == (size_t)exp + 1)
            out[n++] = '.';
        out[n++] = i < nd ? d[i] : '0';
    }
    return n;
}

size_t ts_metrics_fmt_float(double v, char out[TS_METRICS_FLOAT_MAX])
{
    char d[20];
    size_t n = 0;
    int exp;

    if (isnan(v))
        return (size_t)snprintf(out, TS_METRICS_FLOAT_MAX, "NaN");
    if (isinf(v))
        return (size_t)snprintf(out, TS_METRICS_FLOAT_MAX, v > 0 ? "+Inf" : "-Inf");
    if (v == 0) /* also -0, which Go prints as "0" */
        return (size_t)snprintf(out, TS_METRICS_FLOAT_MAX, "0");
    if (v < 0) {
        out[n++] = '-';
        v = -v;
    }
    exp = v < 1e15 && v == (double)(uint64_t)v ? integer_digits((uint64_t)v, d)
                                               : shortest_digits(v, d);
    n += exp < -4 || exp >= 6 ? put_exp(out + n, d, exp) : put_fixed(out + n, d, exp);
    out[n] = '\0';
    return n;
}

static int escape(struct ts_buf *b, const char *s, int quote)
{
    const char *run = s;
    int rc = 0;

    for (; *s && !rc; s++) {
        const char *rep = *s == '\\'           ? "\\\\"
                          : *s == '\n'         ? "\\n"
                          : quote && *s == '"' ? "\\\""
                                               : NULL;

        if (!rep)
            continue;
        rc = ts_buf_add(b, run, (size_t)(s - run));
        if (!rc)
            rc = ts_buf_adds(b, rep);
        run = s + 1;
    }
    return rc ? rc : ts_buf_add(b, run, (size_t)(s - run));
}

int ts_metrics_escape_label(struct ts_buf *b, const char *s)
{
    return escape(b, s ? s : "", 1);
}

int ts_metrics_escape_help(struct ts_buf *b, const char *s)
{
    return escape(b, s ? s : "", 0);
}
