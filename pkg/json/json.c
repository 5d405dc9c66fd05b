/* json.c - parse with positions, print, equality, integer access. */
#include "json/json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/parse.h"

static void offset_to_pos(const char *s, size_t off, int *line, int *col)
{
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < off; i++) {
        if (s[i] == '\n') {
            (*line)++;
            *col = 1;
        } else {
            (*col)++;
        }
    }
}

/* Index of the first byte in [off, len) that is not JSON whitespace. */
static size_t skip_space(const char *s, size_t off, size_t len)
{
    while (off < len && (s[off] == ' ' || s[off] == '\t' || s[off] == '\n' || s[off] == '\r'))
        off++;
    return off;
}

int ts_json_parse(const char *s, size_t len, cJSON **out, struct ts_err *err)
{
    const char *end = NULL;
    const char *what = "invalid JSON";
    cJSON *v;
    size_t off;
    int line, col;

    *out = NULL;
    v = len ? cJSON_ParseWithLengthOpts(s, len, &end, 0) : NULL;
    off = end && end >= s && end <= s + len ? (size_t)(end - s) : 0;
    if (v) {
        off = skip_space(s, off, len);
        if (off == len) {
            *out = v;
            return 0;
        }
        cJSON_Delete(v);
        what = "invalid JSON: unexpected data after the value";
    } else if (skip_space(s, off, len) == len) {
        off = len;
        what = "invalid JSON: unexpected end of input";
    }
    offset_to_pos(s, off, &line, &col);
    return ts_err_set(err, TS_EPARSE, "%s at line %d column %d (byte %zu)", what, line, col, off);
}

int ts_json_get_i64(const cJSON *v, int64_t *out)
{
    double d;

    if (cJSON_IsRaw(v) && v->valuestring)
        return ts_parse_i64_c(v->valuestring, out);
    if (!cJSON_IsNumber(v))
        return TS_EINVAL;
    d = v->valuedouble;
    if (!isfinite(d) || floor(d) != d)
        return TS_EINVAL;
    if (d < -9223372036854775808.0 || d >= 9223372036854775808.0)
        return TS_EOVERFLOW;
    *out = (int64_t)d;
    return 0;
}

int ts_json_equal(const cJSON *a, const cJSON *b)
{
    if (!a || !b)
        return a == b;
    return cJSON_Compare(a, b, 1) ? 1 : 0;
}
