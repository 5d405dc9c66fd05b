/*
 * yaml_resolve.c - typing of plain scalars as go-yaml v2 (resolve.go) does,
 * the checks the encoder needs to decide on quoting, and go's shortest
 * float formatting.
 */
#include "yaml/yaml_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

/* go-yaml v2 resolve table: exact words.  val: the bool, or for floats
 * 0 = NaN, +1/-1 = infinity. */
static const struct {
    const char *word;
    enum ts__yaml_kind kind;
    int val;
} words[] = {
    {"y", TS__YAML_BOOL, 1},       {"Y", TS__YAML_BOOL, 1},       {"yes", TS__YAML_BOOL, 1},
    {"Yes", TS__YAML_BOOL, 1},     {"YES", TS__YAML_BOOL, 1},     {"true", TS__YAML_BOOL, 1},
    {"True", TS__YAML_BOOL, 1},    {"TRUE", TS__YAML_BOOL, 1},    {"on", TS__YAML_BOOL, 1},
    {"On", TS__YAML_BOOL, 1},      {"ON", TS__YAML_BOOL, 1},      {"n", TS__YAML_BOOL, 0},
    {"N", TS__YAML_BOOL, 0},       {"no", TS__YAML_BOOL, 0},      {"No", TS__YAML_BOOL, 0},
    {"NO", TS__YAML_BOOL, 0},      {"false", TS__YAML_BOOL, 0},   {"False", TS__YAML_BOOL, 0},
    {"FALSE", TS__YAML_BOOL, 0},   {"off", TS__YAML_BOOL, 0},     {"Off", TS__YAML_BOOL, 0},
    {"OFF", TS__YAML_BOOL, 0},     {"~", TS__YAML_NULL, 0},       {"null", TS__YAML_NULL, 0},
    {"Null", TS__YAML_NULL, 0},    {"NULL", TS__YAML_NULL, 0},    {".nan", TS__YAML_FLOAT, 0},
    {".NaN", TS__YAML_FLOAT, 0},   {".NAN", TS__YAML_FLOAT, 0},   {".inf", TS__YAML_FLOAT, 1},
    {".Inf", TS__YAML_FLOAT, 1},   {".INF", TS__YAML_FLOAT, 1},   {"+.inf", TS__YAML_FLOAT, 1},
    {"+.Inf", TS__YAML_FLOAT, 1},  {"+.INF", TS__YAML_FLOAT, 1},  {"-.inf", TS__YAML_FLOAT, -1},
    {"-.Inf", TS__YAML_FLOAT, -1}, {"-.INF", TS__YAML_FLOAT, -1},
};

static int lookup_word(const char *s, size_t len, struct ts__yaml_scalar *out)
{
    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
        if (strlen(words[i].word) != len || memcmp(words[i].word, s, len))
            continue;
        out->kind = words[i].kind;
        out->b = words[i].val;
        if (out->kind == TS__YAML_FLOAT)
            out->d = words[i].val == 0 ? (double)NAN : words[i].val * (double)INFINITY;
        return 1;
    }
    return 0;
}

static int digit_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return 99;
}

/* Number prefix as go's strconv.ParseInt(s, 0, 64) reads it; returns the
 * base and advances *i past the prefix. */
static unsigned base_prefix(const char *p, size_t len, size_t *i)
{
    if (p[*i] != '0' || *i + 1 >= len)
        return 10;
    switch (p[*i + 1]) {
    case 'x':
    case 'X':
        *i += 2;
        return 16;
    case 'o':
    case 'O':
        *i += 2;
        return 8;
    case 'b':
    case 'B':
        *i += 2;
        return 2;
    default:
        *i += 1;
        return 8;
    }
}

/* ParseInt(s, 0, 64), then ParseUint(s, 0, 64), as go-yaml v2 tries them. */
static int parse_int(const char *p, size_t len, struct ts__yaml_scalar *out)
{
    size_t i = 0;
    int sign = len && (p[0] == '+' || p[0] == '-');
    int neg = sign && p[0] == '-';
    uint64_t v = 0;
    unsigned base;

    i = (size_t)sign;
    if (i == len)
        return 0;
    base = base_prefix(p, len, &i);
    if (i == len)
        return 0;
    for (; i < len; i++) {
        unsigned d = (unsigned)digit_value(p[i]);

        if (d >= base || v > (UINT64_MAX - d) / base)
            return 0;
        v = v * base + d;
    }
    if (neg && v > (uint64_t)INT64_MAX + 1)
        return 0;
    if (!neg && v > (uint64_t)INT64_MAX && sign)
        return 0;
    out->kind = !neg && v > (uint64_t)INT64_MAX ? TS__YAML_UINT : TS__YAML_INT;
    out->u = v;
    out->i = neg ? (v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v) : (int64_t)v;
    return 1;
}

static size_t skip_digits(const char *p, size_t len, size_t i)
{
    while (i < len && p[i] >= '0' && p[i] <= '9')
        i++;
    return i;
}

/* ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$ */
static int float_syntax(const char *p, size_t len)
{
    size_t i = len && (p[0] == '+' || p[0] == '-') ? 1 : 0;
    size_t j;

    if (i < len && p[i] == '.') {
        j = skip_digits(p, len, i + 1);
        if (j == i + 1)
            return 0;
    } else {
        j = skip_digits(p, len, i);
        if (j == i)
            return 0;
        if (j < len && p[j] == '.')
            j = skip_digits(p, len, j + 1);
    }
    if (j < len && (p[j] == 'e' || p[j] == 'E')) {
        i = j + 1;
        if (i < len && (p[i] == '+' || p[i] == '-'))
            i++;
        j = skip_digits(p, len, i);
        if (j == i)
            return 0;
    }
    return j == len;
}

/* p is NUL-terminated and passed float_syntax(); overflow stays a string
 * (go's ParseFloat fails with ErrRange), underflow gives 0. */
static void parse_float(const char *p, struct ts__yaml_scalar *out)
{
    double d = strtod(p, NULL);

    if (isinf(d))
        return;
    out->kind = TS__YAML_FLOAT;
    out->d = d;
}

/* Reads 1..max digits at *i into *val; returns 0 when there are none. */
static int num(const char *s, size_t len, size_t *i, size_t max, int *val)
{
    size_t start = *i;

    *val = 0;
    while (*i < len && *i - start < max && s[*i] >= '0' && s[*i] <= '9')
        *val = *val * 10 + (s[(*i)++] - '0');
    return *i > start;
}

static int lit(const char *s, size_t len, size_t *i, char c)
{
    if (*i < len && s[*i] == c) {
        (*i)++;
        return 1;
    }
    return 0;
}

/* H:M:S[.frac], each of H, M, S one or two digits. */
static int clock_part(const char *s, size_t len, size_t *i)
{
    int h, m, sec;
    size_t j;

    if (!num(s, len, i, 2, &h) || h > 23 || !lit(s, len, i, ':') || !num(s, len, i, 2, &m) ||
        m > 59 || !lit(s, len, i, ':') || !num(s, len, i, 2, &sec) || sec > 59)
        return 0;
    if (!lit(s, len, i, '.'))
        return 1;
    j = skip_digits(s, len, *i);
    if (j == *i)
        return 0;
    *i = j;
    return 1;
}

/* The layouts go-yaml v2 accepts: 2006-1-2, 2006-1-2T15:4:5.999999999Z07:00
 * (also 't'), 2006-1-2 15:4:5.999999999.  Days are checked against 31. */
static int is_timestamp(const char *s, size_t len)
{
    size_t i = 0, zone;
    int y, mo, d, zh, zm;
    char sep;

    if (!num(s, len, &i, 4, &y) || i != 4 || !lit(s, len, &i, '-') || !num(s, len, &i, 2, &mo) ||
        mo < 1 || mo > 12 || !lit(s, len, &i, '-') || !num(s, len, &i, 2, &d) || d < 1 || d > 31)
        return 0;
    if (i == len)
        return 1;
    sep = s[i++];
    if ((sep != 'T' && sep != 't' && sep != ' ') || !clock_part(s, len, &i))
        return 0;
    if (sep == ' ' || lit(s, len, &i, 'Z'))
        return i == len;
    if (!lit(s, len, &i, '+') && !lit(s, len, &i, '-'))
        return 0;
    zone = i;
    if (!num(s, len, &i, 2, &zh) || !lit(s, len, &i, ':') || !num(s, len, &i, 2, &zm))
        return 0;
    return i == len && i - zone == 5;
}

/* Digits, signs, dots: ints, floats, or strings; s is not a table word. */
static void resolve_number(const char *s, size_t len, struct ts__yaml_scalar *out)
{
    char small[64];
    char *p = len < sizeof(small) ? small : ts_xmalloc(len + 1);
    size_t n = 0;

    if (s[0] == '.') {
        memcpy(p, s, len);
        n = len;
    } else {
        for (size_t i = 0; i < len; i++)
            if (s[i] != '_')
                p[n++] = s[i];
    }
    p[n] = '\0';
    if (s[0] != '.' && is_timestamp(s, len))
        out->kind = TS__YAML_TIMESTAMP;
    else if (n && (s[0] == '.' || !parse_int(p, n, out)) && float_syntax(p, n))
        parse_float(p, out);
    if (p != small)
        free(p);
}

void ts__yaml_resolve_plain(const char *s, size_t len, struct ts__yaml_scalar *out)
{
    memset(out, 0, sizeof(*out));
    out->kind = TS__YAML_STR;
    if (len == 0) {
        out->kind = TS__YAML_NULL;
        return;
    }
    if (!strchr("+-0123456789.yYnNtTfFoO~", s[0]))
        return;
    if (lookup_word(s, len, out))
        return;
    if (strchr("yYnNtTfFoO~", s[0]))
        return;
    resolve_number(s, len, out);
}

/* ^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$ (go-yaml quotes these
 * for YAML 1.1 readers). */
static int is_base60(const char *s, size_t len)
{
    size_t i = len && (s[0] == '+' || s[0] == '-') ? 1 : 0;
    int groups = 0;

    if (i >= len || s[i] < '0' || s[i] > '9')
        return 0;
    while (i < len && ((s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
        i++;
    while (i < len && s[i] == ':') {
        size_t j = skip_digits(s, len, i + 1);

        if (j == i + 1 || j > i + 3 || (j == i + 3 && s[i + 1] > '5'))
            return 0;
        i = j;
        groups++;
    }
    if (groups == 0)
        return 0;
    if (i < len && s[i] == '.')
        for (i++; i < len && ((s[i] >= '0' && s[i] <= '9') || s[i] == '_'); i++)
            ;
    return i == len;
}

int ts__yaml_needs_quotes(const char *s, size_t len)
{
    struct ts__yaml_scalar sc;

    ts__yaml_resolve_plain(s, len, &sc);
    if (sc.kind != TS__YAML_STR)
        return 1;
    return is_base60(s, len);
}

/* Shortest "%.*e" that reads back as v (as a float when bits is 32). */
static int shortest_e(double v, int bits, char *tmp, size_t size)
{
    int prec;

    for (prec = 1; prec < 17; prec++) {
        double r;

        snprintf(tmp, size, "%.*e", prec - 1, v);
        r = strtod(tmp, NULL);
        if (bits == 32 ? (float)r == (float)v : r == v)
            return prec;
    }
    snprintf(tmp, size, "%.*e", prec - 1, v);
    return prec;
}

void ts__yaml_format_float(double v, int bits, char *out, size_t size)
{
    char tmp[40];
    const char *e;
    int digits, exp = 0, neg;

    if (bits == 32)
        v = (double)(float)v;
    if (!isfinite(v)) { /* a float32 key past 3.4e38 (fuzz_yaml): as sigs.k8s.io/yaml */
        snprintf(out, size, "%s", isnan(v) ? ".nan" : v > 0 ? ".inf" : "-.inf");
        return;
    }
    digits = shortest_e(v, bits, tmp, sizeof(tmp));
    e = strchr(tmp, 'e');
    neg = e[1] == '-';
    for (e += 2; *e; e++)
        exp = exp * 10 + (*e - '0');
    exp = neg ? -exp : exp;
    /* go: %e when exp < -4 || exp >= 6 for the shortest form */
    if (exp < -4 || exp >= 6)
        snprintf(out, size, "%s", tmp);
    else
        snprintf(out, size, "%.*f", digits - 1 - exp > 0 ? digits - 1 - exp : 0, v);
}
