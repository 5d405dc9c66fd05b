/*
 * json_scan.c - JSON text read without a tree: one string out of it, or
 * where a member is (ts_json_scan_string(), ts_json_scan_member() in
 * json.h).
 */
#include "json/json.h"

#include <string.h>

struct scan {
    const char *p, *end;
};

static void skip_ws(struct scan *s)
{
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
        s->p++;
}

/* At an opening quote: moves past the closing one.  Returns 0, or -1 on
 * an unterminated string. */
static int skip_string(struct scan *s)
{
    for (s->p++; s->p < s->end; s->p++) {
        if (*s->p == '\\')
            s->p++;
        else if (*s->p == '"')
            return s->p++, 0;
    }
    return -1;
}

/* Moves past one value (string, object, array, number or literal). */
static int skip_value(struct scan *s)
{
    int depth = 0;

    skip_ws(s);
    if (s->p >= s->end)
        return -1;
    if (*s->p == '"')
        return skip_string(s);
    if (*s->p != '{' && *s->p != '[') {
        while (s->p < s->end && !strchr(",}] \t\r\n", *s->p))
            s->p++;
        return 0;
    }
    while (s->p < s->end) {
        char ch = *s->p;

        if (ch == '"') {
            if (skip_string(s))
                return -1;
            continue;
        }
        if (ch == '{' || ch == '[')
            depth++;
        else if ((ch == '}' || ch == ']') && --depth == 0)
            return s->p++, 0;
        s->p++;
    }
    return -1;
}

/* At '{': finds member `key` (len bytes) and leaves s->p at its value.
 * *kstart is set to its key's opening quote, *comma to the comma before
 * it (NULL for the first member). */
static int find_member(struct scan *s, const char *key, size_t len, const char **kstart,
                       const char **comma)
{
    *comma = NULL;
    s->p++;
    for (;;) {
        const char *k;
        size_t klen;

        skip_ws(s);
        if (s->p >= s->end || *s->p != '"')
            return -1; /* '}' (not found) or malformed */
        *kstart = s->p;
        k = s->p + 1;
        if (skip_string(s))
            return -1;
        klen = (size_t)(s->p - 1 - k);
        skip_ws(s);
        if (s->p >= s->end || *s->p++ != ':')
            return -1;
        if (klen == len && !memcmp(k, key, len)) {
            skip_ws(s);
            return 0;
        }
        if (skip_value(s))
            return -1;
        skip_ws(s);
        if (s->p >= s->end || *s->p != ',')
            return -1;
        *comma = s->p++;
    }
}

/* Leaves s->p at the value at `path`; *kstart and *comma as find_member()
 * says for its last key. */
static int find_path(struct scan *s, const char *path, const char **kstart, const char **comma)
{
    const char *seg = path;

    for (;;) {
        const char *dot = strchr(seg, '.');
        size_t n = dot ? (size_t)(dot - seg) : strlen(seg);

        skip_ws(s);
        if (s->p >= s->end || *s->p != '{' || find_member(s, seg, n, kstart, comma))
            return TS_ENOTFOUND;
        if (!dot)
            return 0;
        seg = dot + 1;
    }
}

int ts_json_scan_string(const char *text, size_t len, const char *path, char *out, size_t cap)
{
    struct scan s = {text, text + len};
    const char *v, *kstart, *comma;

    if (find_path(&s, path, &kstart, &comma))
        return TS_ENOTFOUND;
    if (*s.p != '"')
        return TS_ENOTFOUND;
    v = s.p + 1;
    if (skip_string(&s))
        return TS_ENOTFOUND;
    len = (size_t)(s.p - 1 - v);
    if (memchr(v, '\\', len) || len >= cap)
        return TS_EINVAL;
    memcpy(out, v, len);
    out[len] = '\0';
    return 0;
}

int ts_json_scan_member(const char *text, size_t len, const char *path, size_t *off, size_t *n)
{
    struct scan s = {text, text + len};
    const char *kstart, *comma, *vend;

    if (find_path(&s, path, &kstart, &comma) || skip_value(&s))
        return TS_ENOTFOUND;
    vend = s.p;
    skip_ws(&s);
    if (s.p < s.end && *s.p == ',') { /* and the comma after it */
        *off = (size_t)(kstart - text);
        *n = (size_t)(s.p + 1 - kstart);
    } else if (s.p < s.end && *s.p == '}') { /* the last: and the comma before it */
        *off = (size_t)((comma ? comma : kstart) - text);
        *n = (size_t)(vend - text) - *off;
    } else {
        return TS_ENOTFOUND; /* malformed after it */
    }
    return 0;
}
