/*
 * quantity.c - Kubernetes resource.Quantity without arbitrary precision.
 *
 * Parsing works on the decimal digit string (so any input length is exact),
 * binary suffixes multiply that string by 2^k, and only then is the value
 * rounded up to 1n and packed into value × 10^scale.  Arithmetic aligns the
 * operands in 128-bit integers, which is exact for everything the
 * representable range allows (see quantity.h), and repacks the result.
 */
#include "resource/quantity.h"

#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/parse.h"

/* Kubernetes' ErrFormatWrong text, so messages read like the apiserver's. */
#define FORMAT_MSG                                                                                 \
    "quantities must match the regular expression "                                                \
    "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"

/* Exponents beyond ±2^40 decide the outcome on their own (overflow, or a
 * value that rounds to 1n), and clamping them keeps the exponent
 * bookkeeping below free of int64 overflow for any input length. */
#define EXP_CLAMP ((int64_t)1 << 40)

/* 2^60 < 10^19, so multiplying by a binary suffix adds at most 19 digits. */
#define CARRY_ROOM 20

/* How much of the input an error message quotes. */
#define MSG_INPUT_MAX 64

static const char bin_letters[] = "KMGTPE"; /* Ki = 2^10 ... Ei = 2^60 */

struct scan {
    int neg;
    struct ts_str num;  /* integer digits, may be empty */
    struct ts_str frac; /* fraction digits, may be empty */
    int64_t exp10;      /* from a decimal SI suffix or e<int> */
    unsigned exp2;      /* from a binary suffix, 0 when none */
    enum ts_quantity_format format;
};

/* Significant digits of |value| = d × 10^exp, most significant first. */
struct digits {
    unsigned char *d;
    size_t n;
    int64_t exp;
    unsigned char *heap;
    unsigned char stack[64];
};

/* --- small integer helpers --------------------------------------------- */

static uint64_t mag64(int64_t v)
{
    return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
}

static int64_t ndigits(unsigned __int128 u)
{
    int64_t n = 1;

    while (u >= 10) {
        u /= 10;
        n++;
    }
    return n;
}

static __int128 pow10_128(int64_t e)
{
    __int128 p = 1;

    while (e-- > 0)
        p *= 10;
    return p;
}

/* Moves trailing zeros of value into scale. */
static struct ts_quantity norm(const struct ts_quantity *q)
{
    struct ts_quantity n = *q;

    if (n.value == 0) {
        n.scale = 0;
        return n;
    }
    while (n.value % 10 == 0 && n.scale < INT32_MAX) {
        n.value /= 10;
        n.scale++;
    }
    return n;
}

/* Packs v × 10^scale into *out if it is within the representable range. */
static int make(__int128 v, int64_t scale, enum ts_quantity_format format, struct ts_quantity *out)
{
    if (v == 0) {
        *out = (struct ts_quantity){0, 0, format};
        return 0;
    }
    while (v % 10 == 0) {
        v /= 10;
        scale++;
    }
    if (v > INT64_MAX || v < INT64_MIN)
        return TS_EOVERFLOW;
    if (ndigits(mag64((int64_t)v)) + scale > TS_QUANTITY_MAX_ORDER || scale < INT32_MIN)
        return TS_EOVERFLOW;
    *out = (struct ts_quantity){(int64_t)v, (int32_t)scale, format};
    return 0;
}

/* --- parse: scanning ----------------------------------------------------- */

static size_t span_digits(struct ts_str s, size_t i)
{
    while (i < s.len && s.ptr[i] >= '0' && s.ptr[i] <= '9')
        i++;
    return i;
}

/* [+-]? (digits ("." digits*)? | "." digits+); *pos is set past it. */
static int scan_mantissa(struct ts_str s, struct scan *sc, size_t *pos)
{
    size_t i = 0, j;

    if (s.len && (s.ptr[0] == '+' || s.ptr[0] == '-'))
        sc->neg = s.ptr[i++] == '-';
    j = span_digits(s, i);
    sc->num = (struct ts_str){s.ptr + i, j - i};
    i = j;
    if (i < s.len && s.ptr[i] == '.') {
        j = span_digits(s, ++i);
        sc->frac = (struct ts_str){s.ptr + i, j - i};
        i = j;
    }
    *pos = i;
    return sc->num.len + sc->frac.len ? 0 : TS_EPARSE;
}

static int scan_dec_suffix(char c, int64_t *exp10)
{
    static const struct {
        char c;
        int exp;
    } sfx[] = {{'n', -9}, {'u', -6}, {'m', -3}, {'k', 3}, {'M', 6},
               {'G', 9},  {'T', 12}, {'P', 15}, {'E', 18}};

    for (size_t i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
        if (sfx[i].c == c) {
            *exp10 = sfx[i].exp;
            return 0;
        }
    }
    return TS_EPARSE;
}

/* The digits after e/E: [+-]?digits+, which is exactly ts_parse_i64's
 * language; a huge exponent is clamped rather than rejected because its
 * meaning (overflow, or a tiny value that rounds up to 1n) is still clear. */
static int scan_exponent(const char *p, size_t n, int64_t *exp10)
{
    int rc = ts_parse_i64(p, n, exp10);

    if (rc == TS_EOVERFLOW)
        *exp10 = p[0] == '-' ? -EXP_CLAMP : EXP_CLAMP;
    else if (rc)
        return TS_EPARSE;
    if (*exp10 > EXP_CLAMP)
        *exp10 = EXP_CLAMP;
    if (*exp10 < -EXP_CLAMP)
        *exp10 = -EXP_CLAMP;
    return 0;
}

static int scan_suffix(const char *p, size_t n, struct scan *sc)
{
    const char *b;

    sc->format = TS_QUANTITY_DECIMAL_SI;
    if (n == 0)
        return 0;
    /* a lone E is exa, not an exponent: "1E" = 10^18 */
    if (n == 1)
        return scan_dec_suffix(p[0], &sc->exp10);
    if (n == 2 && p[1] == 'i' && (b = memchr(bin_letters, p[0], sizeof(bin_letters) - 1))) {
        sc->format = TS_QUANTITY_BINARY_SI;
        sc->exp2 = 10u * (unsigned)(b - bin_letters + 1);
        return 0;
    }
    if (p[0] == 'e' || p[0] == 'E') {
        sc->format = TS_QUANTITY_DECIMAL_EXP;
        return scan_exponent(p + 1, n - 1, &sc->exp10);
    }
    return TS_EPARSE;
}

/* --- parse: exact value -------------------------------------------------- */

/* The i-th digit of num ++ frac. */
static unsigned char digit_at(const struct scan *sc, size_t i)
{
    char c = i < sc->num.len ? sc->num.ptr[i] : sc->frac.ptr[i - sc->num.len];

    return (unsigned char)(c - '0');
}

/* Copies the significant digits (no leading or trailing zeros) of the
 * mantissa, leaving CARRY_ROOM free in front for digits_shl(). */
static void digits_load(struct digits *dg, const struct scan *sc)
{
    size_t total = sc->num.len + sc->frac.len, first = 0, end = total;

    while (first < total && digit_at(sc, first) == 0)
        first++;
    while (end > first && digit_at(sc, end - 1) == 0)
        end--;
    dg->n = end - first;
    dg->exp = sc->exp10 + (int64_t)(total - end) - (int64_t)sc->frac.len;
    dg->heap = NULL;
    dg->d = dg->stack + CARRY_ROOM;
    if (dg->n + CARRY_ROOM > sizeof(dg->stack)) {
        dg->heap = ts_xmalloc(dg->n + CARRY_ROOM);
        dg->d = dg->heap + CARRY_ROOM;
    }
    for (size_t i = 0; i < dg->n; i++)
        dg->d[i] = digit_at(sc, first + i);
}

/* d *= 2^k (k <= 60), exactly: digit × 2^k + carry < 10 × 2^60 < 2^64. */
static void digits_shl(struct digits *dg, unsigned k)
{
    uint64_t carry = 0;

    for (size_t i = dg->n; i-- > 0;) {
        uint64_t x = ((uint64_t)dg->d[i] << k) + carry;

        dg->d[i] = (unsigned char)(x % 10);
        carry = x / 10;
    }
    for (; carry; carry /= 10) {
        *--dg->d = (unsigned char)(carry % 10);
        dg->n++;
    }
    while (dg->n && dg->d[dg->n - 1] == 0) { /* ...5 × 2 ends in 0 */
        dg->n--;
        dg->exp++;
    }
}

/* Rounds d × 10^exp up to a whole number of nanos and packs it. */
static int digits_finish(const struct digits *dg, int neg, enum ts_quantity_format format,
                         struct ts_quantity *out)
{
    int64_t order = (int64_t)dg->n + dg->exp, scale = dg->exp;
    size_t keep = dg->n;
    __int128 v = 0;

    if (dg->n == 0)
        return make(0, 0, format, out);
    /* checked first so that the digit loop below never exceeds 36 digits */
    if (order > TS_QUANTITY_MAX_ORDER)
        return TS_EOVERFLOW;
    if (dg->exp < -9) {
        keep = order + 9 > 0 ? (size_t)(order + 9) : 0;
        scale = -9;
    }
    for (size_t i = 0; i < keep; i++)
        v = v * 10 + dg->d[i];
    /* the dropped digits end in a nonzero digit, so rounding up always adds
     * one: Kubernetes rounds up so that a tiny request is never free */
    if (keep < dg->n)
        v++;
    return make(neg ? -v : v, scale, format, out);
}

/* Sets err to "<what>: '<input>'" (input cut at MSG_INPUT_MAX bytes). */
static int parse_error(int code, const char *what, struct ts_str s, struct ts_err *err)
{
    int n = s.len > MSG_INPUT_MAX ? MSG_INPUT_MAX : (int)s.len;

    return ts_err_set(err, code, "%s: '%.*s'", what, n, s.ptr);
}

/* Kubernetes: a binary amount in (-1, 1) is decimal from then on. */
static void binary_below_one(struct ts_quantity *q)
{
    if (q->format == TS_QUANTITY_BINARY_SI && q->value && ndigits(mag64(q->value)) + q->scale <= 0)
        q->format = TS_QUANTITY_DECIMAL_SI;
}

int ts_quantity_parse(struct ts_str s, struct ts_quantity *out, struct ts_err *err)
{
    struct scan sc;
    struct digits dg;
    struct ts_quantity q;
    size_t pos;
    int rc;

    memset(&sc, 0, sizeof(sc));
    if (!s.ptr)
        s = ts_str_c("");
    if (scan_mantissa(s, &sc, &pos))
        return parse_error(TS_EPARSE, FORMAT_MSG, s, err);
    if (scan_suffix(s.ptr + pos, s.len - pos, &sc))
        return parse_error(TS_EPARSE, "unable to parse quantity's suffix", s, err);
    digits_load(&dg, &sc);
    if (sc.exp2 && dg.n)
        digits_shl(&dg, sc.exp2);
    rc = digits_finish(&dg, sc.neg, sc.format, &q);
    free(dg.heap);
    if (rc)
        return parse_error(rc, "quantity out of range", s, err);
    binary_below_one(&q);
    *out = q;
    return 0;
}

int ts_quantity_parse_c(const char *s, struct ts_quantity *out, struct ts_err *err)
{
    return ts_quantity_parse(ts_str_c(s), out, err);
}

struct ts_quantity ts_quantity_from_int(int64_t value, enum ts_quantity_format format)
{
    return (struct ts_quantity){value, 0, format};
}

struct ts_quantity ts_quantity_from_milli(int64_t milli)
{
    return (struct ts_quantity){milli, -3, TS_QUANTITY_DECIMAL_SI};
}

/* --- format -------------------------------------------------------------- */

/* A bounded writer: output past the buffer is dropped, never overrun. */
struct wr {
    char *buf;
    size_t len;
    size_t pos;
};

static void put_c(struct wr *w, char c)
{
    if (w->pos + 1 < w->len)
        w->buf[w->pos++] = c;
}

static void put_s(struct wr *w, const char *s)
{
    while (*s)
        put_c(w, *s++);
}

static void put_u(struct wr *w, unsigned __int128 u)
{
    char tmp[40];
    size_t n = 0;

    do {
        tmp[n++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    while (n)
        put_c(w, tmp[--n]);
}

/* Whether a normalised nonzero binary n can keep a binary suffix: it must
 * be whole (Kubernetes will not round to show "Ki"; normalised means a
 * negative scale leaves a fraction) and fit 128 bits.  Kubernetes also
 * sends |n| < 1024 to decimal SI, which prints the same digits. */
static int binary_ok(const struct ts_quantity *n)
{
    return n->scale >= 0 && ndigits(mag64(n->value)) + n->scale <= 38;
}

/* Kubernetes' AsCanonicalBase1024Bytes: strip factors of 1024 into the
 * suffix.  Ei is the largest suffix, so bigger values keep a bigger
 * mantissa instead of losing their suffix. */
static void put_binary(struct wr *w, const struct ts_quantity *n)
{
    static const char *const sfx[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
    unsigned __int128 u = mag64(n->value) * (unsigned __int128)pow10_128(n->scale);
    size_t p = 0;

    while (u % 1024 == 0 && p < 6) {
        u /= 1024;
        p++;
    }
    if (n->value < 0)
        put_c(w, '-');
    put_u(w, u);
    put_s(w, sfx[p]);
}

/* Kubernetes' AsCanonicalBytes: lower the exponent to a multiple of 3 by
 * appending zeros, then name it with an SI suffix or e<exp>. */
static void put_decimal(struct wr *w, const struct ts_quantity *n, enum ts_quantity_format f)
{
    static const char *const sfx[] = {"n", "u", "m", "", "k", "M", "G", "T", "P", "E"};
    int64_t e = n->scale, zeros = 0;

    while (e % 3 != 0) {
        e--;
        zeros++;
    }
    if (f == TS_QUANTITY_DECIMAL_SI && e > 18) {
        zeros += e - 18;
        e = 18;
    }
    if (f == TS_QUANTITY_DECIMAL_SI && e < -9) /* not a valid scale; stay readable */
        f = TS_QUANTITY_DECIMAL_EXP;
    if (n->value < 0)
        put_c(w, '-');
    put_u(w, mag64(n->value));
    for (int64_t i = 0; i < zeros && w->pos + 1 < w->len; i++)
        put_c(w, '0');
    if (f == TS_QUANTITY_DECIMAL_SI) {
        put_s(w, sfx[(e + 9) / 3]);
    } else if (e != 0) {
        put_c(w, 'e');
        if (e < 0)
            put_c(w, '-');
        put_u(w, mag64(e));
    }
}

char *ts_quantity_format(const struct ts_quantity *q, char *buf, size_t len)
{
    struct wr w = {buf, len, 0};
    struct ts_quantity n = norm(q);

    if (len == 0)
        return buf;
    if (n.value == 0)
        put_c(&w, '0');
    else if (n.format == TS_QUANTITY_BINARY_SI && binary_ok(&n))
        put_binary(&w, &n);
    else if (n.format == TS_QUANTITY_BINARY_SI)
        put_decimal(&w, &n, TS_QUANTITY_DECIMAL_SI);
    else
        put_decimal(&w, &n, n.format);
    buf[w.pos] = '\0';
    return buf;
}

/* --- compare ------------------------------------------------------------- */

int ts_quantity_sign(const struct ts_quantity *q)
{
    return (q->value > 0) - (q->value < 0);
}

int ts_quantity_is_zero(const struct ts_quantity *q)
{
    return q->value == 0;
}

/* Compares |a| and |b| (both nonzero, any scale) exactly. */
static int cmp_mag(const struct ts_quantity *a, const struct ts_quantity *b)
{
    unsigned __int128 x = mag64(a->value), y = mag64(b->value);
    int64_t oa = ndigits(x) + a->scale, ob = ndigits(y) + b->scale;
    int64_t d = (int64_t)a->scale - b->scale;

    if (oa != ob)
        return oa < ob ? -1 : 1;
    /* same order of magnitude, so the scales differ by at most 19 and
     * aligning them stays below 2^64 × 10^19 < 2^128 */
    for (; d > 0; d--)
        x *= 10;
    for (; d < 0; d++)
        y *= 10;
    return (x > y) - (x < y);
}

int ts_quantity_cmp(const struct ts_quantity *a, const struct ts_quantity *b)
{
    int sa = ts_quantity_sign(a), sb = ts_quantity_sign(b);

    if (sa != sb)
        return sa < sb ? -1 : 1;
    if (sa == 0)
        return 0;
    return sa * cmp_mag(a, b);
}

const struct ts_quantity *ts_quantity_min(const struct ts_quantity *a, const struct ts_quantity *b)
{
    return ts_quantity_cmp(a, b) <= 0 ? a : b;
}

const struct ts_quantity *ts_quantity_max(const struct ts_quantity *a, const struct ts_quantity *b)
{
    return ts_quantity_cmp(a, b) >= 0 ? a : b;
}

/* --- arithmetic ---------------------------------------------------------- */

static int add_signed(const struct ts_quantity *a, const struct ts_quantity *b, int negate_b,
                      struct ts_quantity *out)
{
    struct ts_quantity x = norm(a), y = norm(b);
    enum ts_quantity_format f = x.value ? a->format : b->format;
    __int128 vx = x.value, vy = negate_b ? -(__int128)y.value : (__int128)y.value;
    int64_t lo = x.scale < y.scale ? x.scale : y.scale;

    if (x.value == 0)
        return make(vy, y.scale, f, out);
    if (y.value == 0)
        return make(vx, x.scale, f, out);
    /* With both normalised, a scale gap over 19 leaves a nonzero last digit
     * under more than 19 digits: the sum cannot fit int64.  Within 19 the
     * aligned values stay below 2^63 × 10^19 < 2^127. */
    if ((int64_t)x.scale - lo > 19 || (int64_t)y.scale - lo > 19)
        return TS_EOVERFLOW;
    vx *= pow10_128(x.scale - lo);
    vy *= pow10_128(y.scale - lo);
    return make(vx + vy, lo, f, out);
}

int ts_quantity_add(const struct ts_quantity *a, const struct ts_quantity *b,
                    struct ts_quantity *out)
{
    return add_signed(a, b, 0, out);
}

int ts_quantity_sub(const struct ts_quantity *a, const struct ts_quantity *b,
                    struct ts_quantity *out)
{
    return add_signed(a, b, 1, out);
}

int ts_quantity_mul(const struct ts_quantity *q, int64_t factor, struct ts_quantity *out)
{
    /* |value × factor| <= 2^126: exact in 128 bits */
    return make((__int128)q->value * factor, q->scale, q->format, out);
}

/* q in units of 10^target, rounded away from zero like Kubernetes'
 * int64Amount.AsScaledInt64 (negativeScaleInt64). */
static int scaled_value(const struct ts_quantity *q, int64_t target, int64_t *out)
{
    int64_t d = (int64_t)q->scale - target;
    __int128 v = q->value, p, r;

    if (v == 0 || d == 0) {
        *out = q->value;
        return 0;
    }
    if (d > 0) {
        if (d > 19) /* |v| >= 1, so v × 10^20 is past int64 */
            return TS_EOVERFLOW;
        v *= pow10_128(d);
        if (v > INT64_MAX || v < INT64_MIN)
            return TS_EOVERFLOW;
        *out = (int64_t)v;
        return 0;
    }
    if (d < -19) { /* |v| < 10^19: only the rounding is left */
        *out = v < 0 ? -1 : 1;
        return 0;
    }
    p = pow10_128(-d);
    r = v % p;
    v /= p;
    *out = (int64_t)(v + (r > 0) - (r < 0));
    return 0;
}

int ts_quantity_value(const struct ts_quantity *q, int64_t *out)
{
    return scaled_value(q, 0, out);
}

int ts_quantity_milli_value(const struct ts_quantity *q, int64_t *out)
{
    return scaled_value(q, -3, out);
}
