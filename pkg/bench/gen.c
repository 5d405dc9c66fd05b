#include "bench/gen.h"

#include "resource/quantity.h"
#include "util/alloc.h"
#include "util/buf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- decoding -------------------------------------------------------------- */

/* A field path being decoded ("[0].queuesSets[1]"), grown and cut back. */
struct path {
    char s[256];
};

static int fail(struct ts_err *err, const struct path *p, const char *field, const char *what)
{
    return ts_err_set(err, TS_EINVAL, "%s%s%s: %s", p->s, *p->s && *field ? "." : "", field, what);
}

/* Refuses members other than the known ones (a typo must not silently
 * become a default). */
static int check_known(const cJSON *obj, const char *const *known, const struct path *p,
                       struct ts_err *err)
{
    const cJSON *m;

    cJSON_ArrayForEach(m, obj)
    {
        size_t i;

        for (i = 0; known[i] && strcmp(known[i], m->string); i++)
            ;
        if (!known[i])
            return fail(err, p, m->string, "unknown field");
    }
    return 0;
}

static int get_string(const cJSON *obj, const char *name, int required, char **out,
                      const struct path *p, struct ts_err *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);

    *out = NULL;
    if (!v)
        return required ? fail(err, p, name, "Required value") : 0;
    if (!cJSON_IsString(v) || !*v->valuestring)
        return fail(err, p, name, "Invalid value: must be a non-empty string");
    *out = ts_xstrdup(v->valuestring);
    return 0;
}

/* A whole number in [min, max]; required unless *out holds a default. */
static int get_int(const cJSON *obj, const char *name, int required, int64_t min, int64_t max,
                   int64_t *out, const struct path *p, struct ts_err *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
    char msg[128];

    if (!v)
        return required ? fail(err, p, name, "Required value") : 0;
    if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) ||
        v->valuedouble < (double)min || v->valuedouble > (double)max) {
        snprintf(msg, sizeof(msg), "Invalid value: must be an integer in [%lld, %lld]",
                 (long long)min, (long long)max);
        return fail(err, p, name, msg);
    }
    *out = (int64_t)v->valuedouble;
    return 0;
}

/* A cpu quantity (number or string), >= 0, in thousandths. */
static int get_quantity(const cJSON *obj, const char *name, int required, int64_t *out,
                        const struct path *p, struct ts_err *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
    struct ts_quantity q;
    char text[64];

    if (!v)
        return required ? fail(err, p, name, "Required value") : 0;
    if (cJSON_IsNumber(v))
        snprintf(text, sizeof(text), "%.17g", v->valuedouble);
    else if (cJSON_IsString(v))
        snprintf(text, sizeof(text), "%s", v->valuestring);
    else
        return fail(err, p, name, "Invalid value: must be a quantity");
    if (ts_quantity_parse_c(text, &q, NULL) || ts_quantity_sign(&q) < 0 ||
        ts_quantity_milli_value(&q, out))
        return fail(err, p, name, "Invalid value: must be a non-negative quantity");
    return 0;
}

static const cJSON *get_list(const cJSON *obj, const char *name, const struct path *p,
                             struct ts_err *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);

    if (!v)
        fail(err, p, name, "Required value");
    else if (!cJSON_IsArray(v) || !cJSON_GetArraySize(v))
        fail(err, p, name, "Invalid value: must be a non-empty list");
    else
        return v;
    return NULL;
}

static void path_push(struct path *p, const char *field, size_t i)
{
    size_t n = strlen(p->s);

    snprintf(p->s + n, sizeof(p->s) - n, "%s%s[%zu]", n && *field ? "." : "", field, i);
}

static void path_cut(struct path *p, size_t n)
{
    p->s[n] = 0;
}

typedef int (*decode_fn)(const cJSON *o, void *item, struct path *p, struct ts_err *err);

/* Decodes list (the member `field`, "" at the top) into a new array of
 * `size`-byte items, each by fn with its index in the path. */
static int decode_items(const cJSON *list, const char *field, size_t size, void **items, size_t *n,
                        decode_fn fn, struct path *p, struct ts_err *err)
{
    size_t n0 = strlen(p->s);
    const cJSON *it;
    int rc;

    *items = ts_xcalloc((size_t)cJSON_GetArraySize(list), size);
    cJSON_ArrayForEach(it, list)
    {
        path_push(p, field, *n);
        rc = fn(it, (char *)*items + size * (*n)++, p, err);
        path_cut(p, n0);
        if (rc)
            return rc;
    }
    return 0;
}

/* The same for the non-empty list obj[field]. */
static int decode_list(const cJSON *obj, const char *field, size_t size, void **items, size_t *n,
                       decode_fn fn, struct path *p, struct ts_err *err)
{
    const cJSON *list = get_list(obj, field, p, err);

    return list ? decode_items(list, field, size, items, n, fn, p, err) : TS_EINVAL;
}

static const char *const wl_fields[] = {"className", "runtimeMs", "priority", "request", NULL};

static int decode_template(const cJSON *o, void *item, struct path *p, struct ts_err *err)
{
    struct ts_bench_wl_template *t = item;
    int64_t prio = 0;
    int rc;

    if (!cJSON_IsObject(o))
        return fail(err, p, "", "Invalid value: must be a mapping");
    if ((rc = check_known(o, wl_fields, p, err)) ||
        (rc = get_string(o, "className", 1, &t->class_name, p, err)) ||
        (rc = get_int(o, "runtimeMs", 1, 0, INT64_C(1000000000), &t->runtime_ms, p, err)) ||
        (rc = get_int(o, "priority", 0, INT32_MIN, INT32_MAX, &prio, p, err)) ||
        (rc = get_quantity(o, "request", 1, &t->request_milli, p, err)))
        return rc;
    t->priority = (int32_t)prio;
    return 0;
}

static const char *const set_fields[] = {"count", "creationIntervalMs", "workloads", NULL};

static int decode_wl_set(const cJSON *o, void *item, struct path *p, struct ts_err *err)
{
    struct ts_bench_wl_set *s = item;
    int rc;

    if (!cJSON_IsObject(o))
        return fail(err, p, "", "Invalid value: must be a mapping");
    if ((rc = check_known(o, set_fields, p, err)) ||
        (rc = get_int(o, "count", 1, 0, 10000000, &s->count, p, err)) ||
        (rc = get_int(o, "creationIntervalMs", 0, 0, INT64_C(1000000000), &s->interval_ms, p, err)))
        return rc;
    return decode_list(o, "workloads", sizeof(*s->templates), (void **)&s->templates,
                       &s->n_templates, decode_template, p, err);
}

static const char *const queue_fields[] = {"className",           "count",
                                           "nominalQuota",        "borrowingLimit",
                                           "reclaimWithinCohort", "withinClusterQueue",
                                           "workloadsSets",       NULL};

static int check_policy(const char *v, const char *field, const struct path *p, struct ts_err *err)
{
    static const char *const ok[] = {"Never", "LowerPriority", "LowerOrNewerEqualPriority", "Any",
                                     NULL};

    for (size_t i = 0; v && ok[i]; i++) {
        if (!strcmp(v, ok[i]))
            return 0;
    }
    return v ? fail(err, p, field,
                    "Unsupported value: must be Never, LowerPriority, LowerOrNewerEqualPriority "
                    "or Any")
             : 0;
}

static int decode_queue_set(const cJSON *o, void *item, struct path *p, struct ts_err *err)
{
    struct ts_bench_queue_set *q = item;
    int rc;

    if (!cJSON_IsObject(o))
        return fail(err, p, "", "Invalid value: must be a mapping");
    q->borrowing_milli = -1;
    if ((rc = check_known(o, queue_fields, p, err)) ||
        (rc = get_string(o, "className", 1, &q->class_name, p, err)) ||
        (rc = get_int(o, "count", 1, 0, 100000, &q->count, p, err)) ||
        (rc = get_quantity(o, "nominalQuota", 1, &q->nominal_milli, p, err)) ||
        (rc = get_quantity(o, "borrowingLimit", 0, &q->borrowing_milli, p, err)) ||
        (rc = get_string(o, "reclaimWithinCohort", 0, &q->reclaim_within_cohort, p, err)) ||
        (rc = check_policy(q->reclaim_within_cohort, "reclaimWithinCohort", p, err)) ||
        (rc = get_string(o, "withinClusterQueue", 0, &q->within_cluster_queue, p, err)) ||
        (rc = check_policy(q->within_cluster_queue, "withinClusterQueue", p, err)))
        return rc;
    return decode_list(o, "workloadsSets", sizeof(*q->sets), (void **)&q->sets, &q->n_sets,
                       decode_wl_set, p, err);
}

static const char *const cohort_fields[] = {"className", "count", "queuesSets", NULL};

static int decode_cohort_set(const cJSON *o, void *item, struct path *p, struct ts_err *err)
{
    struct ts_bench_cohort_set *c = item;
    int rc;

    if (!cJSON_IsObject(o))
        return fail(err, p, "", "Invalid value: must be a mapping");
    if ((rc = check_known(o, cohort_fields, p, err)) ||
        (rc = get_string(o, "className", 1, &c->class_name, p, err)) ||
        (rc = get_int(o, "count", 1, 0, 100000, &c->count, p, err)))
        return rc;
    return decode_list(o, "queuesSets", sizeof(*c->queue_sets), (void **)&c->queue_sets,
                       &c->n_queue_sets, decode_queue_set, p, err);
}

/* Kueue's generator file is a mapping with a `cohorts:` list (and, for
 * topology-aware scheduling, `topology:` and `resourceFlavor:`); earlier
 * files of ours are the bare list.  Both shapes decode the same way. */
static const char *const top_fields[] = {"cohorts", NULL};

int ts_bench_gen_decode(const cJSON *root, struct ts_bench_gen *out, struct ts_err *err)
{
    struct path p = {{0}};
    const cJSON *list = root;
    int rc;

    memset(out, 0, sizeof(*out));
    if (cJSON_IsObject(root)) {
        static const char *const tas[] = {"topology", "resourceFlavor"};

        for (size_t i = 0; i < sizeof(tas) / sizeof(tas[0]); i++) {
            if (cJSON_GetObjectItemCaseSensitive(root, tas[i]))
                return ts_err_set(err, TS_EINVAL,
                                  "generator: %s: Unsupported value: topology-aware scheduling "
                                  "is not supported yet (docs/compatibility.md)",
                                  tas[i]);
        }
        if ((rc = check_known(root, top_fields, &p, err)))
            return rc;
        list = cJSON_GetObjectItemCaseSensitive(root, "cohorts");
        if (!list)
            return ts_err_set(err, TS_EINVAL, "generator: cohorts: Required value");
        snprintf(p.s, sizeof(p.s), "cohorts");
    }
    if (!cJSON_IsArray(list) || !cJSON_GetArraySize(list))
        return ts_err_set(err, TS_EINVAL, "generator: %s%smust be a non-empty list of cohort sets",
                          p.s, *p.s ? ": " : "");
    rc = decode_items(list, "", sizeof(*out->cohort_sets), (void **)&out->cohort_sets,
                      &out->n_cohort_sets, decode_cohort_set, &p, err);
    if (rc)
        ts_bench_gen_release(out);
    return rc;
}

void ts_bench_gen_release(struct ts_bench_gen *g)
{
    for (size_t c = 0; c < g->n_cohort_sets; c++) {
        struct ts_bench_cohort_set *cs = &g->cohort_sets[c];

        for (size_t q = 0; q < cs->n_queue_sets; q++) {
            struct ts_bench_queue_set *qs = &cs->queue_sets[q];

            for (size_t s = 0; s < qs->n_sets; s++) {
                for (size_t t = 0; t < qs->sets[s].n_templates; t++)
                    free(qs->sets[s].templates[t].class_name);
                free(qs->sets[s].templates);
            }
            free(qs->sets);
            free(qs->class_name);
            free(qs->reclaim_within_cohort);
            free(qs->within_cluster_queue);
        }
        free(cs->queue_sets);
        free(cs->class_name);
    }
    free(g->cohort_sets);
    memset(g, 0, sizeof(*g));
}
