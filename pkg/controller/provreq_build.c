/* provreq_build.c - the ProvisioningRequest and PodTemplates built for a
 * Workload (provreq.h; Kueue's syncOwnedProvisionRequest, createPodTemplate,
 * mergePodSets in pkg/controller/admissionchecks/provisioning/controller.go). */
#include "controller/provreq.h"

#include "json/json.h"
#include "util/alloc.h"

#include <stdlib.h>
#include <string.h>

struct merged {
    const struct ts_podset *ps;
    const struct ts_podset_assignment *psa;
    int64_t count; /* saturates at INT32_MAX */
};

static const struct ts_podset_assignment *assignment_of(const struct ts_workload *wl,
                                                        const char *name)
{
    const struct ts_admission *a = wl->status.admission;

    for (size_t i = 0; a && i < a->n_podset_assignments; i++) {
        if (!strcmp(a->podset_assignments[i].name ? a->podset_assignments[i].name : "", name))
            return &a->podset_assignments[i];
    }
    return NULL;
}

static int containers_equal(const struct ts_container *a, size_t na, const struct ts_container *b,
                            size_t nb)
{
    if (na != nb)
        return 0;
    for (size_t i = 0; i < na; i++) {
        if (!ts_resource_list_equal(&a[i].requests, &b[i].requests))
            return 0;
    }
    return 1;
}

/* Kueue's arePodSetsSimilar. */
static int similar(const struct ts_podset *a, const struct ts_podset *b)
{
    static const char *const keys[] = {"spec.resources", "spec.nodeSelector", "spec.tolerations",
                                       "spec.affinity", "spec.resourceClaims"};
    const struct ts_pod_template *x = &a->template, *y = &b->template;

    if (!containers_equal(x->containers, x->n_containers, y->containers, y->n_containers) ||
        !containers_equal(x->init_containers, x->n_init_containers, y->init_containers,
                          y->n_init_containers))
        return 0;
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        if (!ts_json_equal(ts_json_get(x->raw, keys[i]), ts_json_get(y->raw, keys[i])))
            return 0;
    }
    return 1;
}

static int can_merge(const struct ts_podset *a, const struct ts_podset *b, enum ts_provreq_merge m)
{
    if (m == TS_PROVREQ_MERGE_IDENTICAL_TEMPLATES)
        return ts_json_equal(a->template.raw, b->template.raw);
    if (m == TS_PROVREQ_MERGE_IDENTICAL_SCHEDULING)
        return similar(a, b);
    return 0;
}

static int64_t count_of(const struct ts_podset *ps, const struct ts_podset_assignment *psa)
{
    return psa->count.set ? psa->count.v : ps->count;
}

/* The required pod sets, merged.  Returns the number, or -1 when one has
 * no assignment.  Ownership: *out is the caller's to free. */
static long merge_podsets(const struct ts_workload *wl, const struct ts_provreq_config *cfg,
                          struct merged **out)
{
    struct merged *m = ts_xcalloc(wl->spec.n_podsets + 1, sizeof(*m));
    size_t n = 0;

    for (size_t i = 0; i < wl->spec.n_podsets; i++) {
        const struct ts_podset *ps = &wl->spec.podsets[i];
        const struct ts_podset_assignment *psa = assignment_of(wl, ps->name);
        size_t j = 0;

        if (!ts_provreq_podset_needed(ps, cfg))
            continue;
        if (!psa) {
            free(m);
            return -1;
        }
        while (j < n && !(cfg->merge && can_merge(m[j].ps, ps, cfg->merge)))
            j++;
        if (j == n)
            m[n++] = (struct merged){ps, psa, 0};
        m[j].count += count_of(ps, psa);
        if (m[j].count > INT32_MAX)
            m[j].count = INT32_MAX;
    }
    *out = m;
    return (long)n;
}

static cJSON *owner_refs(const char *api_version, const char *kind, const char *name,
                         const char *uid)
{
    cJSON *refs = cJSON_CreateArray(), *r = cJSON_CreateObject();

    cJSON_AddStringToObject(r, "apiVersion", api_version);
    cJSON_AddStringToObject(r, "kind", kind);
    cJSON_AddStringToObject(r, "name", name ? name : "");
    cJSON_AddStringToObject(r, "uid", uid ? uid : "");
    cJSON_AddBoolToObject(r, "controller", 1);
    cJSON_AddBoolToObject(r, "blockOwnerDeletion", 1);
    cJSON_AddItemToArray(refs, r);
    return refs;
}

static cJSON *new_object(const char *api_version, const char *kind, const char *name,
                         const struct ts_workload *wl)
{
    cJSON *o = cJSON_CreateObject(), *meta;

    cJSON_AddStringToObject(o, "apiVersion", api_version);
    cJSON_AddStringToObject(o, "kind", kind);
    meta = cJSON_AddObjectToObject(o, "metadata");
    cJSON_AddStringToObject(meta, "name", name);
    cJSON_AddStringToObject(meta, "namespace", wl->meta.namespace_ ? wl->meta.namespace_ : "");
    cJSON_AddStringToObject(cJSON_AddObjectToObject(meta, "labels"), TS_PROVREQ_MANAGED_LABEL,
                            "true");
    cJSON_AddItemToObject(
        meta, "ownerReferences",
        owner_refs("kueue.x-k8s.io/v1beta2", "Workload", wl->meta.name, wl->meta.uid));
    return o;
}

/* Kueue's UseLimitsAsMissingRequestsInPod on one container list. */
static void limits_as_requests(cJSON *containers)
{
    cJSON *c, *l;

    cJSON_ArrayForEach(c, containers)
    {
        cJSON *res = cJSON_GetObjectItemCaseSensitive(c, "resources"), *req;

        if (!cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(res, "limits")))
            continue;
        req = cJSON_GetObjectItemCaseSensitive(res, "requests");
        if (!cJSON_IsObject(req)) {
            cJSON_DeleteItemFromObjectCaseSensitive(res, "requests");
            req = cJSON_AddObjectToObject(res, "requests");
        }
        cJSON_ArrayForEach(l, cJSON_GetObjectItemCaseSensitive(res, "limits"))
        {
            if (!cJSON_GetObjectItemCaseSensitive(req, l->string))
                cJSON_AddItemToObject(req, l->string, cJSON_Duplicate(l, 1));
        }
    }
}

static cJSON *pod_template(const struct ts_workload *wl, const char *name, const struct merged *m,
                           ts_flavor_lookup_fn lookup, void *ctx, struct ts_err *err)
{
    cJSON *pt = new_object("v1", "PodTemplate", name, wl), *tmpl, *spec;

    tmpl = m->ps->template.raw ? cJSON_Duplicate(m->ps->template.raw, 1) : cJSON_CreateObject();
    cJSON_AddItemToObject(pt, "template", tmpl);
    if (ts_podset_inject_flavors(tmpl, wl, m->ps->name, lookup, ctx, err)) {
        cJSON_Delete(pt);
        return NULL;
    }
    spec = cJSON_GetObjectItemCaseSensitive(tmpl, "spec");
    limits_as_requests(cJSON_GetObjectItemCaseSensitive(spec, "initContainers"));
    limits_as_requests(cJSON_GetObjectItemCaseSensitive(spec, "containers"));
    return pt;
}

/* spec.parameters: the config's, then the Workload's provreq.kueue.x-k8s.io/
 * annotations (passProvReqParams). */
static void add_parameters(cJSON *spec, const struct ts_workload *wl,
                           const struct ts_provreq_config *cfg)
{
    const struct ts_strmap *an = &wl->meta.annotations;
    size_t plen = strlen(TS_PROVREQ_PARAM_PREFIX);
    cJSON *p = cJSON_CreateObject();

    for (size_t i = 0; i < cfg->parameters.n; i++)
        cJSON_AddStringToObject(p, cfg->parameters.items[i].key, cfg->parameters.items[i].value);
    for (size_t i = 0; i < an->n; i++) {
        const char *k = an->items[i].key;

        if (strncmp(k, TS_PROVREQ_PARAM_PREFIX, plen))
            continue;
        cJSON_DeleteItemFromObjectCaseSensitive(p, k + plen);
        cJSON_AddStringToObject(p, k + plen, an->items[i].value);
    }
    if (cJSON_GetArraySize(p))
        cJSON_AddItemToObject(spec, "parameters", p);
    else
        cJSON_Delete(p);
}

int ts_provreq_build(const struct ts_workload *wl, const struct ts_provreq_config *cfg,
                     const char *check, int32_t attempt, ts_flavor_lookup_fn lookup, void *ctx,
                     cJSON **pr, cJSON **templates, struct ts_err *err)
{
    char *name = ts_provreq_name(wl->meta.name ? wl->meta.name : "", check, attempt);
    struct merged *m = NULL;
    long n = merge_podsets(wl, cfg, &m);
    cJSON *spec, *sets;
    int rc = 0;

    *pr = NULL;
    *templates = NULL;
    if (n < 0) {
        free(name);
        return ts_err_set(err, TS_EINVAL, "inconsistent podSet assignments");
    }
    *pr = new_object("autoscaling.x-k8s.io/v1", "ProvisioningRequest", name, wl);
    *templates = cJSON_CreateArray();
    spec = cJSON_AddObjectToObject(*pr, "spec");
    add_parameters(spec, wl, cfg);
    cJSON_AddStringToObject(spec, "provisioningClassName", cfg->class_name);
    sets = cJSON_AddArrayToObject(spec, "podSets");
    for (long i = 0; i < n && !rc; i++) {
        char *pt_name = ts_provreq_template_name(name, m[i].ps->name);
        cJSON *pt = pod_template(wl, pt_name, &m[i], lookup, ctx, err), *s;

        if (!pt) {
            rc = err && err->code ? err->code : TS_EINVAL;
        } else {
            cJSON_AddItemToArray(*templates, pt);
            s = cJSON_CreateObject();
            cJSON_AddStringToObject(cJSON_AddObjectToObject(s, "podTemplateRef"), "name", pt_name);
            cJSON_AddNumberToObject(s, "count", (double)m[i].count);
            cJSON_AddItemToArray(sets, s);
        }
        free(pt_name);
    }
    free(m);
    free(name);
    if (rc) {
        cJSON_Delete(*pr);
        cJSON_Delete(*templates);
        *pr = *templates = NULL;
    }
    return rc;
}
