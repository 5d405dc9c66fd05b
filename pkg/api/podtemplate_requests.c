/* Pod request arithmetic (Kubernetes PodRequests as Kueue uses it), the
 * requests-vs-limits check and node selector matching for pod templates. */
#include "api/podtemplate.h"

#include "util/buf.h"
#include "util/parse.h"

#include <string.h>

void ts_container_effective_requests(const struct ts_container *c, struct ts_resource_list *out)
{
    ts_resource_list_release(out);
    ts_resource_list_init(out);
    ts_resource_list_copy(out, &c->requests);
    for (size_t i = 0; i < c->limits.n; i++) {
        if (!ts_resource_list_get(out, c->limits.items[i].name))
            ts_resource_list_set(out, c->limits.items[i].name, &c->limits.items[i].q);
    }
}

/* dst[r] = max(dst[r], src[r]) for every r of src (maxResourceList). */
static void max_list(struct ts_resource_list *dst, const struct ts_resource_list *src)
{
    for (size_t i = 0; i < src->n; i++) {
        const struct ts_quantity *cur = ts_resource_list_get(dst, src->items[i].name);

        if (!cur || ts_quantity_cmp(&src->items[i].q, cur) > 0)
            ts_resource_list_set(dst, src->items[i].name, &src->items[i].q);
    }
}

static int is_sidecar(const struct ts_container *c)
{
    return c->restart_policy && strcmp(c->restart_policy, "Always") == 0;
}

/* max over init containers of (its request + sidecars started before it);
 * sidecars also add to *sum. */
static int init_requests(const struct ts_pod_template *t, struct ts_resource_list *sum,
                         struct ts_resource_list *init_max)
{
    struct ts_resource_list sidecars = TS_RESOURCE_LIST_INIT;
    struct ts_resource_list eff = TS_RESOURCE_LIST_INIT;
    int rc = 0;

    for (size_t i = 0; i < t->n_init_containers && !rc; i++) {
        const struct ts_container *c = &t->init_containers[i];

        ts_container_effective_requests(c, &eff);
        if (is_sidecar(c)) {
            rc = ts_resource_list_add(sum, &eff);
            if (!rc)
                rc = ts_resource_list_add(&sidecars, &eff);
            max_list(init_max, &sidecars);
        } else {
            rc = ts_resource_list_add(&eff, &sidecars);
            max_list(init_max, &eff);
        }
    }
    ts_resource_list_release(&sidecars);
    ts_resource_list_release(&eff);
    return rc;
}

static int is_pod_level_resource(const char *name)
{
    return strcmp(name, "cpu") == 0 || strcmp(name, "memory") == 0;
}

/* Pod-level requests (limits filling in missing ones) override the
 * aggregated container requests for the supported resources. */
static void pod_level(const struct ts_pod_template *t, struct ts_resource_list *reqs)
{
    for (size_t i = 0; i < t->pod_limits.n; i++) {
        const struct ts_resource *r = &t->pod_limits.items[i];

        if (is_pod_level_resource(r->name) && !ts_resource_list_get(&t->pod_requests, r->name))
            ts_resource_list_set(reqs, r->name, &r->q);
    }
    for (size_t i = 0; i < t->pod_requests.n; i++) {
        const struct ts_resource *r = &t->pod_requests.items[i];

        if (is_pod_level_resource(r->name))
            ts_resource_list_set(reqs, r->name, &r->q);
    }
}

int ts_pod_template_requests(const struct ts_pod_template *t, struct ts_resource_list *out)
{
    struct ts_resource_list reqs = TS_RESOURCE_LIST_INIT;
    struct ts_resource_list init_max = TS_RESOURCE_LIST_INIT;
    struct ts_resource_list eff = TS_RESOURCE_LIST_INIT;
    int rc = 0;

    for (size_t i = 0; i < t->n_containers && !rc; i++) {
        ts_container_effective_requests(&t->containers[i], &eff);
        rc = ts_resource_list_add(&reqs, &eff);
    }
    if (!rc)
        rc = init_requests(t, &reqs, &init_max);
    if (!rc) {
        max_list(&reqs, &init_max);
        pod_level(t, &reqs);
        rc = ts_resource_list_add(&reqs, &t->overhead);
    }
    ts_resource_list_release(&eff);
    ts_resource_list_release(&init_max);
    ts_resource_list_release(out);
    if (rc) {
        ts_resource_list_release(&reqs);
        return rc;
    }
    *out = reqs;
    return 0;
}

/* --- requests must not exceed limits ---------------------------------- */

static int check_containers(const struct ts_container *c, size_t n, const char *path,
                            const char *key, struct ts_field_errors *errs)
{
    int found = 0;

    for (size_t i = 0; i < n; i++) {
        struct ts_buf keys = TS_BUF_INIT;
        struct ts_path p;
        int k = 0;

        ts_buf_addc(&keys, '['); /* json.Marshal of the names, as Kueue prints them */
        for (size_t j = 0; j < c[i].requests.n; j++) {
            const struct ts_resource *r = &c[i].requests.items[j];
            const struct ts_quantity *lim = ts_resource_list_get(&c[i].limits, r->name);

            if (lim && ts_quantity_cmp(&r->q, lim) > 0)
                ts_buf_addf(&keys, "%s\"%s\"", k++ ? "," : "", r->name);
        }
        if (k) {
            ts_path_init(&p, path);
            ts_path_push(&p, "template");
            ts_path_push(&p, "spec");
            ts_path_push(&p, key);
            ts_path_push_index(&p, i);
            ts_buf_addc(&keys, ']');
            ts_field_errors_add(errs, TS_FIELD_INVALID, ts_path_str(&p), keys.ptr, 0,
                                "requests must not exceed its limits");
            found++;
        }
        ts_buf_release(&keys);
    }
    return found;
}

int ts_pod_template_validate_limits(const struct ts_pod_template *t, const char *path,
                                    struct ts_field_errors *errs)
{
    return check_containers(t->init_containers, t->n_init_containers, path, "initContainers",
                            errs) +
           check_containers(t->containers, t->n_containers, path, "containers", errs);
}

/* --- node selector matching ------------------------------------------- */

static int int_of(const char *s, int64_t *out)
{
    return s && ts_parse_i64_c(s, out) == 0;
}

int ts_node_selector_req_matches(const struct ts_node_selector_req *r,
                                 const struct ts_strmap *labels)
{
    const char *v = r->key ? ts_strmap_get(labels, r->key) : NULL;
    int64_t have, want;

    switch (r->op) {
    case TS_NODE_SELECTOR_IN:
        return v && ts_strlist_index(&r->values, v) >= 0;
    case TS_NODE_SELECTOR_NOT_IN:
        return !v || ts_strlist_index(&r->values, v) < 0;
    case TS_NODE_SELECTOR_EXISTS:
        return v != NULL;
    case TS_NODE_SELECTOR_DOES_NOT_EXIST:
        return v == NULL;
    case TS_NODE_SELECTOR_GT:
    case TS_NODE_SELECTOR_LT:
        if (!v || r->values.n != 1 || !int_of(v, &have) || !int_of(r->values.items[0], &want))
            return 0;
        return r->op == TS_NODE_SELECTOR_GT ? have > want : have < want;
    }
    return 0;
}

int ts_node_selector_term_matches(const struct ts_node_selector_term *term,
                                  const struct ts_strmap *labels)
{
    if (!term->n_exprs)
        return 0;
    for (size_t i = 0; i < term->n_exprs; i++) {
        if (!ts_node_selector_req_matches(&term->exprs[i], labels))
            return 0;
    }
    return 1;
}

int ts_pod_template_affinity_matches(const struct ts_pod_template *t,
                                     const struct ts_strmap *labels)
{
    if (!t->has_required_affinity)
        return 1;
    for (size_t i = 0; i < t->n_affinity_terms; i++) {
        if (ts_node_selector_term_matches(&t->affinity_terms[i], labels))
            return 1;
    }
    return 0;
}
