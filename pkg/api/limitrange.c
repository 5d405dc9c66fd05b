/* LimitRange defaults and RuntimeClass overhead in a pod set's requests,
 * and the LimitRange check (Kueue's pkg/workload/resources.go and
 * pkg/util/limitrange). */
#include "api/limitrange.h"

#include "api/dec.h"
#include "json/json.h"
#include "util/buf.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void item_init(struct ts_limitrange_item *it)
{
    it->set = 0;
    ts_resource_list_init(&it->max);
    ts_resource_list_init(&it->min);
    ts_resource_list_init(&it->def);
    ts_resource_list_init(&it->def_request);
}

static void item_release(struct ts_limitrange_item *it)
{
    ts_resource_list_release(&it->max);
    ts_resource_list_release(&it->min);
    ts_resource_list_release(&it->def);
    ts_resource_list_release(&it->def_request);
    item_init(it);
}

void ts_limitrange_summary_init(struct ts_limitrange_summary *s)
{
    item_init(&s->container);
    item_init(&s->pod);
}

void ts_limitrange_summary_release(struct ts_limitrange_summary *s)
{
    item_release(&s->container);
    item_release(&s->pod);
}

/* Kueue's MergeResourceList*: names of src missing from dst are added;
 * a name in both keeps dst's (keep < 0: the smaller, keep > 0: the
 * larger, 0: dst's). */
static void merge(struct ts_resource_list *dst, const struct ts_resource_list *src, int keep)
{
    for (size_t i = 0; i < src->n; i++) {
        const struct ts_quantity *cur = ts_resource_list_get(dst, src->items[i].name);
        int c = cur ? ts_quantity_cmp(&src->items[i].q, cur) : 0;

        if (!cur || (keep < 0 && c < 0) || (keep > 0 && c > 0))
            ts_resource_list_set(dst, src->items[i].name, &src->items[i].q);
    }
}

static void add_item(struct ts_limitrange_item *it, struct ts_dec *d, const cJSON *item)
{
    struct ts_resource_list l[4];
    static const char *const keys[4] = {"max", "min", "default", "defaultRequest"};

    for (size_t k = 0; k < 4; k++) {
        ts_resource_list_init(&l[k]);
        ts_dec_resource_list(d, item, keys[k], &l[k]);
    }
    merge(&it->max, &l[0], -1);
    merge(&it->min, &l[1], 1);
    merge(&it->def, &l[2], 0);
    merge(&it->def_request, &l[3], 0);
    it->set = 1;
    for (size_t k = 0; k < 4; k++)
        ts_resource_list_release(&l[k]);
}

void ts_limitrange_summary_add(struct ts_limitrange_summary *s, const cJSON *lr)
{
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT; /* bad quantities: left out */
    struct ts_dec d;
    const cJSON *item;

    ts_dec_init(&d, &errs);
    cJSON_ArrayForEach(item, ts_json_get(lr, "spec.limits"))
    {
        const char *type = ts_json_get_string(item, "type");

        if (type && !strcmp(type, "Container"))
            add_item(&s->container, &d, item);
        else if (type && !strcmp(type, "Pod"))
            add_item(&s->pod, &d, item);
    }
    ts_field_errors_release(&errs);
}

int ts_limitrange_summary_empty(const struct ts_limitrange_summary *s)
{
    return !s->container.set && !s->pod.set;
}

int ts_limitrange_runtime_overhead(const cJSON *runtime_class, struct ts_resource_list *out)
{
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_dec d;

    ts_resource_list_release(out);
    ts_dec_init(&d, &errs);
    ts_dec_resource_list(&d, ts_json_get(runtime_class, "overhead"), "podFixed", out);
    ts_field_errors_release(&errs);
    return out->n > 0;
}

/* --- adjusting ---------------------------------------------------------- */

static void adjust_containers(struct ts_container *c, size_t n,
                              const struct ts_limitrange_summary *s)
{
    for (size_t i = 0; i < n; i++) {
        if (s && s->container.set) {
            merge(&c[i].limits, &s->container.def, 0);
            merge(&c[i].requests, &s->container.def_request, 0);
        }
        merge(&c[i].requests, &c[i].limits, 0); /* UseLimitsAsMissingRequestsInPod */
    }
}

void ts_limitrange_adjust(struct ts_pod_template *t, const struct ts_limitrange_summary *s,
                          const struct ts_resource_list *runtime_overhead)
{
    /* handlePodOverhead: only a template without overhead of its own */
    if (t->runtime_class_name && !t->overhead.n && runtime_overhead)
        ts_resource_list_copy(&t->overhead, runtime_overhead);
    adjust_containers(t->init_containers, t->n_init_containers, s);
    adjust_containers(t->containers, t->n_containers, s);
}

void ts_limitrange_adjust_workload(struct ts_workload *wl, const struct ts_limitrange_summary *s,
                                   ts_runtime_class_fn rc, void *ctx)
{
    struct ts_resource_list overhead = TS_RESOURCE_LIST_INIT;

    for (size_t i = 0; i < wl->spec.n_podsets; i++) {
        struct ts_pod_template *t = &wl->spec.podsets[i].template;
        const cJSON *cls = t->runtime_class_name && rc ? rc(ctx, t->runtime_class_name) : NULL;
        int has = cls && ts_limitrange_runtime_overhead(cls, &overhead);

        ts_limitrange_adjust(t, s, has ? &overhead : NULL);
    }
    ts_resource_list_release(&overhead);
}

/* --- validating --------------------------------------------------------- */

/* Kueue's ResourceValue: millis for cpu, whole units (rounded up)
 * otherwise; saturated where it does not fit. */
static int64_t value_of(const char *name, const struct ts_quantity *q)
{
    int64_t v;
    int rc = !strcmp(name, "cpu") ? ts_quantity_milli_value(q, &v) : ts_quantity_value(q, &v);

    if (rc)
        return ts_quantity_sign(q) < 0 ? INT64_MIN : INT64_MAX;
    return v;
}

/* Kueue's Requests.GreaterKeys: the names in both a and b whose value in
 * a is greater, as a JSON array into out.  Returns how many. */
static int greater_keys(const struct ts_resource_list *a, const struct ts_resource_list *b,
                        struct ts_buf *out)
{
    int k = 0;

    ts_buf_addc(out, '[');
    for (size_t i = 0; i < a->n; i++) {
        const char *name = a->items[i].name;
        const struct ts_quantity *other = ts_resource_list_get(b, name);

        if (other && value_of(name, &a->items[i].q) > value_of(name, other))
            ts_buf_addf(out, "%s\"%s\"", k++ ? "," : "", name);
    }
    ts_buf_addc(out, ']');
    return k;
}

/* One check: when the names of a above b are not empty, an error. */
static int check(const struct ts_resource_list *a, const struct ts_resource_list *b,
                 const char *field, const char *detail, struct ts_field_errors *errs)
{
    struct ts_buf keys = TS_BUF_INIT;
    int n = greater_keys(a, b, &keys);

    if (n)
        ts_field_errors_add(errs, TS_FIELD_INVALID, field, keys.ptr, 0, "%s", detail);
    ts_buf_release(&keys);
    return n ? 1 : 0;
}

static int check_containers(const struct ts_container *c, size_t n,
                            const struct ts_limitrange_item *range, const char *spec,
                            const char *key, struct ts_field_errors *errs)
{
    int found = 0;

    for (size_t i = 0; i < n; i++) {
        struct ts_resource_list lo = TS_RESOURCE_LIST_INIT, hi = TS_RESOURCE_LIST_INIT;
        char field[TS_PATH_MAX + 64];

        snprintf(field, sizeof(field), "%s.%s[%zu]", spec, key, i);
        ts_resource_list_copy(&lo, &c[i].requests);
        ts_resource_list_copy(&hi, &c[i].requests);
        merge(&lo, &c[i].limits, -1);
        merge(&hi, &c[i].limits, 1);
        found += check(&hi, &range->max, field, TS_LIMITRANGE_ABOVE_MAX, errs);
        found += check(&range->min, &lo, field, TS_LIMITRANGE_BELOW_MIN, errs);
        ts_resource_list_release(&lo);
        ts_resource_list_release(&hi);
    }
    return found;
}

int ts_limitrange_validate(const struct ts_pod_template *t, const struct ts_limitrange_summary *s,
                           const char *path, struct ts_field_errors *errs)
{
    char spec[TS_PATH_MAX + 32];
    int found = 0;

    snprintf(spec, sizeof(spec), "%s.template.spec", path);
    if (s->container.set) {
        found += check_containers(t->init_containers, t->n_init_containers, &s->container, spec,
                                  "initContainers", errs);
        found += check_containers(t->containers, t->n_containers, &s->container, spec, "containers",
                                  errs);
    }
    if (s->pod.set) {
        struct ts_resource_list total = TS_RESOURCE_LIST_INIT;

        /* a total that overflows is refused elsewhere ("too large to count") */
        if (!ts_pod_template_requests(t, &total)) {
            found += check(&total, &s->pod.max, spec, TS_LIMITRANGE_ABOVE_MAX, errs);
            found += check(&s->pod.min, &total, spec, TS_LIMITRANGE_BELOW_MIN, errs);
        }
        ts_resource_list_release(&total);
    }
    return found;
}

char *ts_limitrange_workload_message(const struct ts_workload *wl,
                                     const struct ts_limitrange_summary *s)
{
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_buf b = TS_BUF_INIT;

    if (!s || ts_limitrange_summary_empty(s))
        return NULL;
    for (size_t i = 0; i < wl->spec.n_podsets; i++) {
        char path[64];

        snprintf(path, sizeof(path), "spec.podSets[%zu]", i);
        ts_limitrange_validate(&wl->spec.podsets[i].template, s, path, &errs);
    }
    if (!errs.n)
        return NULL;
    ts_buf_adds(&b, TS_LIMITRANGE_UNSATISFIED ": ");
    ts_field_errors_format(&errs, &b);
    ts_field_errors_release(&errs);
    return ts_buf_take(&b);
}
