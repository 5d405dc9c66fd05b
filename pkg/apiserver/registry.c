/*
 * registry.c - the table of served resource types (built-ins and CRDs)
 * and Kubernetes' version priority order.
 */
#include "apiserver/server_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/parse.h"

struct ts__as_res *ts__as_res_new(const char *group, const char *resource, const char *kind,
                                  int namespaced)
{
    struct ts__as_res *res = ts_xcalloc(1, sizeof(*res));
    size_t n = strlen(kind);
    char *lower = ts_xstrdup(kind);

    for (size_t i = 0; i < n; i++)
        lower[i] = (char)tolower((unsigned char)lower[i]);
    res->group = ts_xstrdup(group);
    res->resource = ts_xstrdup(resource);
    res->kind = ts_xstrdup(kind);
    res->singular = lower;
    res->list_kind = ts_xmalloc(n + 5);
    memcpy(res->list_kind, kind, n);
    memcpy(res->list_kind + n, "List", 5);
    res->namespaced = namespaced;
    ts_strlist_init(&res->short_names);
    ts_strlist_init(&res->categories);
    ts_hmap_init(&res->objs);
    return res;
}

void ts__as_res_add_version(struct ts__as_res *res, const char *version)
{
    struct ts__as_ver *v;

    res->vers = ts_xrealloc(res->vers, (res->n_vers + 1) * sizeof(*res->vers));
    v = &res->vers[res->n_vers++];
    memset(v, 0, sizeof(*v));
    v->name = ts_xstrdup(version);
    v->served = 1;
    v->storage = res->n_vers == 1;
}

void ts__as_ver_release(struct ts__as_ver *v)
{
    free(v->name);
    free(v->warning);
    ts_cel_rules_free(v->cel); /* borrows the schema: freed first */
    cJSON_Delete(v->schema);
    ts_schema_patterns_free(v->patterns);
    cJSON_Delete(v->columns);
    cJSON_Delete(v->selectable);
    memset(v, 0, sizeof(*v));
}

void ts__as_res_free(struct ts__as_res *res)
{
    size_t it = 0;
    const char *k;
    void *v;

    if (!res)
        return;
    while (ts_hmap_next(&res->objs, &it, &k, &v))
        ts__as_obj_unref(v);
    ts_hmap_release(&res->objs);
    for (size_t i = 0; i < res->n_vers; i++)
        ts__as_ver_release(&res->vers[i]);
    free(res->vers);
    cJSON_Delete(res->conv_cc);
    ts_strlist_release(&res->short_names);
    ts_strlist_release(&res->categories);
    free(res->group);
    free(res->resource);
    free(res->singular);
    free(res->kind);
    free(res->list_kind);
    free(res);
}

void ts__as_res_register(struct ts_apiserver *s, struct ts__as_res *res)
{
    TS_GROW(s->res, s->cap_res, s->n_res + 1);
    s->res[s->n_res++] = res;
    s->gen++;
}

struct ts__as_ver *ts__as_res_version(struct ts__as_res *res, const char *version)
{
    for (size_t i = 0; i < res->n_vers; i++)
        if (res->vers[i].served && !strcmp(res->vers[i].name, version))
            return &res->vers[i];
    return NULL;
}

struct ts__as_res *ts__as_res_find(struct ts_apiserver *s, const char *group, const char *version,
                                   const char *resource, struct ts__as_ver **ver)
{
    for (size_t i = 0; i < s->n_res; i++) {
        struct ts__as_res *res = s->res[i];
        struct ts__as_ver *v;

        if (res->dead || strcmp(res->group, group) || strcmp(res->resource, resource))
            continue;
        if ((v = ts__as_res_version(res, version))) {
            if (ver)
                *ver = v;
            return res;
        }
    }
    return NULL;
}

struct ts__as_res *ts__as_res_by_kind(struct ts_apiserver *s, const char *group, const char *kind)
{
    for (size_t i = 0; i < s->n_res; i++)
        if (!s->res[i]->dead && !strcmp(s->res[i]->group, group) && !strcmp(s->res[i]->kind, kind))
            return s->res[i];
    return NULL;
}

/* Splits "v1beta2" into major 1, stage (2 GA, 1 beta, 0 alpha), minor 2.
 * Returns 0 when the string is not Kubernetes-shaped. */
static int kube_version(const char *v, int64_t *major, int *stage, int64_t *minor)
{
    const char *p = v + 1, *q;

    if (v[0] != 'v' || !isdigit((unsigned char)*p))
        return 0;
    for (q = p; isdigit((unsigned char)*q); q++)
        ;
    if (ts_parse_i64(p, (size_t)(q - p), major) || *major == 0)
        return 0;
    *minor = 0;
    if (!*q) {
        *stage = 2;
        return 1;
    }
    if (!strncmp(q, "beta", 4))
        *stage = 1, q += 4;
    else if (!strncmp(q, "alpha", 5))
        *stage = 0, q += 5;
    else
        return 0;
    return *q && ts_parse_i64_c(q, minor) == 0;
}

int ts__as_version_cmp(const char *a, const char *b)
{
    int64_t ma, mb, na, nb;
    int sa, sb;
    int ka = kube_version(a, &ma, &sa, &na), kb = kube_version(b, &mb, &sb, &nb);

    if (ka != kb)
        return ka ? -1 : 1;
    if (!ka)
        return strcmp(a, b);
    if (sa != sb)
        return sb - sa;
    if (ma != mb)
        return ma > mb ? -1 : 1;
    if (na != nb)
        return na > nb ? -1 : 1;
    return 0;
}

const char *ts__as_group_preferred(struct ts_apiserver *s, const char *group)
{
    const char *best = NULL;

    for (size_t i = 0; i < s->n_res; i++) {
        struct ts__as_res *res = s->res[i];

        if (res->dead || strcmp(res->group, group))
            continue;
        for (size_t j = 0; j < res->n_vers; j++)
            if (res->vers[j].served && (!best || ts__as_version_cmp(res->vers[j].name, best) < 0))
                best = res->vers[j].name;
    }
    return best;
}
