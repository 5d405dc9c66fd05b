/*
 * routes.c - request paths (/api/v1/..., /apis/g/v/...), query values
 * and Accept media-type parameters.
 */
#include "apiserver/server_int.h"

#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

#define MAX_SEGS 10

static size_t split(const char *path, char **segs, size_t max)
{
    size_t n = 0;
    const char *p = path;

    while (*p == '/')
        p++;
    while (*p && n < max) {
        const char *e = strchr(p, '/');
        size_t len = e ? (size_t)(e - p) : strlen(p);

        segs[n++] = ts_xstrndup(p, len);
        p += len;
        while (*p == '/')
            p++;
    }
    if (*p) { /* too many segments */
        segs[n++] = ts_xstrdup("");
    }
    return n;
}

static char *take(char **segs, size_t i, size_t n)
{
    char *v = i < n ? segs[i] : NULL;

    if (i < n)
        segs[i] = NULL;
    return v;
}

static int parse_rest(struct ts__as_route *rt, char **segs, size_t i, size_t n)
{
    if (i >= n)
        return 0;
    if (!strcmp(segs[i], "namespaces") && n - i >= 3 &&
        !(n - i == 3 && (!strcmp(segs[i + 2], "status") || !strcmp(segs[i + 2], "finalize")))) {
        rt->ns = take(segs, i + 1, n);
        i += 2;
    }
    if (n - i > 3)
        return -1;
    rt->resource = take(segs, i, n);
    rt->name = take(segs, i + 1, n);
    rt->sub = take(segs, i + 2, n);
    rt->is_resource = 1;
    return 0;
}

int ts__as_route_parse(const char *path, struct ts__as_route *rt)
{
    char *segs[MAX_SEGS + 1] = {0};
    size_t n = split(path, segs, MAX_SEGS), i;
    int rc = 0;

    memset(rt, 0, sizeof(*rt));
    if (n >= 2 && !strcmp(segs[0], "api")) {
        rt->group = ts_xstrdup("");
        rt->version = take(segs, 1, n);
        i = 2;
    } else if (n >= 3 && !strcmp(segs[0], "apis")) {
        rt->group = take(segs, 1, n);
        rt->version = take(segs, 2, n);
        i = 3;
    } else {
        i = n;
    }
    if (i < n)
        rc = parse_rest(rt, segs, i, n);
    for (size_t j = 0; j < n; j++)
        free(segs[j]);
    if (rc == 0 && rt->is_resource &&
        (!rt->resource[0] || (rt->name && !rt->name[0]) || (rt->sub && !rt->sub[0])))
        rc = -1;
    return rc;
}

void ts__as_route_release(struct ts__as_route *rt)
{
    free(rt->group);
    free(rt->version);
    free(rt->resource);
    free(rt->ns);
    free(rt->name);
    free(rt->sub);
    memset(rt, 0, sizeof(*rt));
}

int ts__as_parse_bool(const char *s)
{
    static const char *const yes[] = {"1", "t", "T", "true", "True", "TRUE"};
    static const char *const no[] = {"0", "f", "F", "false", "False", "FALSE"};

    for (size_t i = 0; i < 6; i++) {
        if (!strcmp(s, yes[i]))
            return 1;
        if (!strcmp(s, no[i]))
            return 0;
    }
    return -1;
}

const char *ts__as_query(const struct ts__as_req *q, const char *key)
{
    return ts_strmap_get(&q->query, key);
}

int ts__as_query_bool(const struct ts__as_req *q, const char *key)
{
    const char *v = ts__as_query(q, key);

    return v && ts__as_parse_bool(v) == 1;
}

/* Whether the parameter list p[0..len) (";k=v;k=v") has k=want. */
static int has_param(const char *p, size_t len, const char *k, const char *want)
{
    size_t kl = strlen(k), wl = strlen(want);
    const char *end = p + len;

    while (p < end) {
        const char *semi = memchr(p, ';', (size_t)(end - p));
        const char *e = semi ? semi : end;

        while (p < e && (*p == ' ' || *p == ';'))
            p++;
        if ((size_t)(e - p) >= kl + 1 && !strncmp(p, k, kl) && p[kl] == '=') {
            const char *v = p + kl + 1;
            size_t vl = (size_t)(e - v);

            while (vl && v[vl - 1] == ' ')
                vl--;
            if (vl == wl && !strncmp(v, want, wl))
                return 1;
        }
        p = e + (semi ? 1 : 0);
    }
    return 0;
}

int ts__as_accept_has(const char *accept, const char *g, const char *v, const char *as)
{
    const char *p = accept;
    int idx = 0;

    while (p && *p) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);

        idx++;
        if (has_param(p, len, "as", as) && (!g || has_param(p, len, "g", g)) &&
            (!v || has_param(p, len, "v", v)))
            return idx;
        p = comma ? comma + 1 : NULL;
    }
    return 0;
}
