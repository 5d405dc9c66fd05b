/* json.c - parse with positions, print, equality, integer access. */
#include "json/json.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/arena.h"
#include "util/hmap.h"
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

#define TS_JSON_STR_(x) #x
#define TS_JSON_STR(x)  TS_JSON_STR_(x)

/* Whether a later member of the same object has c's key. */
static int key_repeated_later(const cJSON *c)
{
    for (const cJSON *n = c->next; n; n = n->next)
        if (strcmp(n->string, c->string) == 0)
            return 1;
    return 0;
}

/* Brings a parsed tree to what Kubernetes' decoder (Go's encoding/json)
 * makes of the same text.  An object member whose key a later member
 * repeats is removed, so the last one wins: cJSON keeps them all and its
 * lookups find the first, so a webhook would judge another spec than the
 * one the API server stores.  Big objects use a map, so hostile input
 * stays linear.  Returns 1 when a number does not fit a double (1e400:
 * cJSON makes it infinite, Go refuses it, and it could not be printed). */
static int normalize(cJSON *v)
{
    struct ts_hmap seen = TS_HMAP_INIT;
    cJSON *c, *prev;
    int n = 0;

    if (cJSON_IsNumber(v) && !isfinite(v->valuedouble))
        return 1;
    cJSON_ArrayForEach(c, v)
    {
        if (normalize(c))
            return 1;
        n++;
    }
    if (!cJSON_IsObject(v) || n < 2)
        return 0;
    for (c = v->child->prev; c; c = prev) { /* last to first */
        prev = c == v->child ? NULL : c->prev;
        if (n <= 16 ? key_repeated_later(c) : ts_hmap_put(&seen, c->string, c) != NULL)
            cJSON_Delete(cJSON_DetachItemViaPointer(v, c));
    }
    ts_hmap_release(&seen);
    return 0;
}

/* The nesting depth of s at byte off (brackets outside strings), to tell
 * cJSON's depth limit from a syntax error. */
static size_t depth_at(const char *s, size_t off)
{
    size_t depth = 0;
    int in_str = 0;

    for (size_t i = 0; i < off; i++) {
        if (in_str) {
            if (s[i] == '\\')
                i++;
            else if (s[i] == '"')
                in_str = 0;
        } else if (s[i] == '"') {
            in_str = 1;
        } else if (s[i] == '[' || s[i] == '{') {
            depth++;
        } else if ((s[i] == ']' || s[i] == '}') && depth) {
            depth--;
        }
    }
    return depth;
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
        if (off == len && !normalize(v)) {
            *out = v;
            return 0;
        }
        cJSON_Delete(v);
        what = off == len ? "invalid JSON: number out of range"
                          : "invalid JSON: unexpected data after the value";
        off = off == len ? 0 : off;
    } else if (skip_space(s, off, len) == len) {
        off = len;
        what = "invalid JSON: unexpected end of input";
    } else if (depth_at(s, off) >= CJSON_NESTING_LIMIT) {
        what = "invalid JSON: nested deeper than " TS_JSON_STR(CJSON_NESTING_LIMIT) " levels";
    }
    offset_to_pos(s, off, &line, &col);
    return ts_err_set(err, TS_EPARSE, "%s at line %d column %d (byte %zu)", what, line, col, off);
}

int ts_json_parse_arena(struct ts_arena *a, const char *s, size_t len, cJSON **out,
                        struct ts_err *err)
{
    int rc;

    ts_arena_reset(a);
    ts_alloc_cjson_into(a);
    rc = ts_json_parse(s, len, out, err);
    ts_alloc_cjson_into(NULL);
    return rc;
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

/* cJSON's own compare (banned by make lint) walks every object twice,
 * once from each side, at every level: 2^depth work, seconds for a CRD's
 * schema.  This compares each pair once and only checks that b has no key
 * a lacks. */
static int equal(const cJSON *a, const cJSON *b)
{
    const cJSON *x, *y;
    int na = 0, nb = 0;

    if ((a->type & 0xFF) != (b->type & 0xFF))
        return 0;
    switch (a->type & 0xFF) {
    case cJSON_False:
    case cJSON_True:
    case cJSON_NULL:
        return 1;
    case cJSON_Number: /* cJSON's own tolerance */
        return fabs(a->valuedouble - b->valuedouble) <=
               fmax(fabs(a->valuedouble), fabs(b->valuedouble)) * DBL_EPSILON;
    case cJSON_String:
    case cJSON_Raw:
        if (!a->valuestring || !b->valuestring)
            return a->valuestring == b->valuestring;
        return strcmp(a->valuestring, b->valuestring) == 0;
    case cJSON_Array:
        for (x = a->child, y = b->child; x && y; x = x->next, y = y->next) {
            if (!equal(x, y))
                return 0;
        }
        return !x && !y;
    case cJSON_Object:
        cJSON_ArrayForEach(x, a) na++;
        cJSON_ArrayForEach(y, b) nb++;
        if (na != nb)
            return 0;
        cJSON_ArrayForEach(x, a)
        {
            y = cJSON_GetObjectItemCaseSensitive(b, x->string);
            if (!y || !equal(x, y))
                return 0;
        }
        cJSON_ArrayForEach(y, b)
        {
            if (!cJSON_GetObjectItemCaseSensitive(a, y->string))
                return 0;
        }
        return 1;
    default:
        return 0;
    }
}

int ts_json_equal(const cJSON *a, const cJSON *b)
{
    if (!a || !b)
        return a == b;
    return equal(a, b);
}
