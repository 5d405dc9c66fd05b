/*
 * admission.c - admission webhooks, the side that runs under the server
 * lock: which Mutating/ValidatingWebhookConfiguration webhooks match a
 * request (rules with operations, groups, versions, resources and
 * subresources, scope; matchPolicy Equivalent; namespaceSelector and
 * objectSelector), and the three points of the write pipeline where their
 * results are picked up (see server_int.h for the rounds).
 */
#include "apiserver/admission_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/json.h"
#include "util/alloc.h"

#define MAX_ROUNDS 8

static int list_has(const cJSON *list, const char *v)
{
    const cJSON *e;

    cJSON_ArrayForEach(e, list) if (cJSON_IsString(e) && (!strcmp(e->valuestring, "*") ||
                                                          !strcmp(e->valuestring, v))) return 1;
    return 0;
}

static int resource_matches(const cJSON *list, const char *res, const char *sub)
{
    const cJSON *e;

    cJSON_ArrayForEach(e, list)
    {
        const char *v = cJSON_GetStringValue(e), *slash;
        size_t rl;

        if (!v)
            continue;
        slash = strchr(v, '/');
        rl = slash ? (size_t)(slash - v) : strlen(v);
        if (!((rl == 1 && v[0] == '*') || (rl == strlen(res) && !strncmp(v, res, rl))))
            continue;
        if (!sub && (!slash || !strcmp(slash + 1, "*")))
            return 1;
        if (sub && slash && (!strcmp(slash + 1, "*") || !strcmp(slash + 1, sub)))
            return 1;
    }
    return 0;
}

static int rule_matches(const cJSON *rule, const struct ts__as_adm *a, const char *version,
                        int namespaced)
{
    const char *scope = ts_json_get_string(rule, "scope");

    if (!list_has(cJSON_GetObjectItemCaseSensitive(rule, "operations"), a->op) ||
        !list_has(cJSON_GetObjectItemCaseSensitive(rule, "apiGroups"), a->group) ||
        !list_has(cJSON_GetObjectItemCaseSensitive(rule, "apiVersions"), version) ||
        !resource_matches(cJSON_GetObjectItemCaseSensitive(rule, "resources"), a->resource, a->sub))
        return 0;
    if (scope && !strcmp(scope, "Cluster"))
        return !namespaced;
    if (scope && !strcmp(scope, "Namespaced"))
        return namespaced;
    return 1;
}

static int rules_match(const cJSON *wh, const struct ts__as_adm *a, const char *version,
                       int namespaced)
{
    const cJSON *rule;

    cJSON_ArrayForEach(rule, cJSON_GetObjectItemCaseSensitive(wh, "rules"))
    {
        if (rule_matches(rule, a, version, namespaced))
            return 1;
    }
    return 0;
}

/* metav1.LabelSelector against a labels object; NULL selector matches. */
static int expr_matches(const cJSON *e, const cJSON *labels)
{
    const char *key = ts_json_get_string(e, "key"), *op = ts_json_get_string(e, "operator");
    const cJSON *lv = key ? cJSON_GetObjectItemCaseSensitive(labels, key) : NULL;
    const char *v = cJSON_GetStringValue(lv);
    const cJSON *values = cJSON_GetObjectItemCaseSensitive(e, "values"), *x;
    int in = 0;

    if (!op)
        return 0;
    cJSON_ArrayForEach(x, values) in |= v && cJSON_IsString(x) && !strcmp(x->valuestring, v);
    if (!strcmp(op, "In"))
        return in;
    if (!strcmp(op, "NotIn"))
        return !in;
    if (!strcmp(op, "Exists"))
        return v != NULL;
    if (!strcmp(op, "DoesNotExist"))
        return v == NULL;
    return 0;
}

int ts__as_labelsel_match(const cJSON *sel, const cJSON *labels)
{
    const cJSON *m;

    cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(sel, "matchLabels"))
    {
        const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(labels, m->string));
        if (!v || !cJSON_IsString(m) || strcmp(v, m->valuestring))
            return 0;
    }
    cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(sel, "matchExpressions"))
    {
        if (!expr_matches(m, labels))
            return 0;
    }
    return 1;
}

static int selectors_match(struct ts__as_req *q, const cJSON *wh, const struct ts__as_adm *a)
{
    const cJSON *nsel = cJSON_GetObjectItemCaseSensitive(wh, "namespaceSelector");
    const cJSON *osel = cJSON_GetObjectItemCaseSensitive(wh, "objectSelector");
    const cJSON *subject = a->sel_obj ? a->sel_obj : a->sel_old;

    if (osel && !ts__as_labelsel_match(osel, ts_json_get(a->sel_obj, "metadata.labels")) &&
        !(a->sel_old && ts__as_labelsel_match(osel, ts_json_get(a->sel_old, "metadata.labels"))))
        return 0;
    if (!nsel)
        return 1;
    if (q->res->kindid == TS__AS_NAMESPACE)
        return ts__as_labelsel_match(nsel, ts_json_get(subject, "metadata.labels"));
    if (q->res->namespaced && a->ns) {
        struct ts__as_res *nsres = ts__as_res_by_kind(q->s, "", "Namespace");
        struct ts__as_obj *ns = ts__as_store_get(nsres, NULL, a->ns);
        return ts__as_labelsel_match(nsel, ns ? ts_json_get(ns->json, "metadata.labels") : NULL);
    }
    return 1;
}

/* The version a webhook wants the object in, or NULL when it does not
 * match (Exact: the request's version only; Equivalent: any served
 * version of the same resource). */
static const char *hook_version(struct ts__as_req *q, const cJSON *wh, const struct ts__as_adm *a)
{
    const char *mp = ts_json_get_string(wh, "matchPolicy");
    int nsd = q->res->namespaced;

    if (rules_match(wh, a, a->version, nsd))
        return a->version;
    if (mp && !strcmp(mp, "Exact"))
        return NULL;
    for (size_t i = 0; i < q->res->n_vers; i++) {
        const char *v = q->res->vers[i].name;
        if (q->res->vers[i].served && strcmp(v, a->version) && rules_match(wh, a, v, nsd))
            return v;
    }
    return NULL;
}

static void add_hooks(struct ts__as_req *q, struct ts__as_adm *a, const char *kind)
{
    struct ts__as_res *cres = ts__as_res_by_kind(q->s, "admissionregistration.k8s.io", kind);
    struct ts__as_obj **cfgs;
    size_t n, cap = a->n_hooks;

    if (!cres)
        return;
    cfgs = ts__as_store_list(cres, NULL, &n); /* sorted by name */
    for (size_t i = 0; i < n; i++) {
        const cJSON *wh;

        cJSON_ArrayForEach(wh, ts_json_get(cfgs[i]->json, "webhooks"))
        {
            const char *v = hook_version(q, wh, a);

            if (!v || !selectors_match(q, wh, a))
                continue;
            TS_GROW(a->hooks, cap, a->n_hooks + 1);
            a->hooks[a->n_hooks].wh = cJSON_Duplicate(wh, 1);
            a->hooks[a->n_hooks].version = ts_xstrdup(v);
            a->hooks[a->n_hooks++].kueue = q->res->convert_kueue;
        }
    }
    free(cfgs);
}

/* --- the points in the write pipeline ----------------------------------- */

static struct ts__as_adm *adm_of(struct ts__as_req *q)
{
    if (!q->adm) {
        q->adm = ts_xcalloc(1, sizeof(*q->adm));
        ts_strlist_init(&q->adm->warnings);
    }
    return q->adm;
}

void ts__as_adm_clear_call(struct ts__as_adm *a)
{
    for (size_t i = 0; i < a->n_hooks; i++) {
        cJSON_Delete(a->hooks[i].wh);
        free(a->hooks[i].version);
    }
    free(a->hooks);
    a->hooks = NULL;
    a->n_hooks = 0;
    cJSON_Delete(a->obj);
    cJSON_Delete(a->old);
    cJSON_Delete(a->options);
    a->obj = a->old = a->options = NULL;
    a->sel_obj = a->sel_old = NULL;
    free(a->group), free(a->version), free(a->resource), free(a->sub);
    free(a->kind), free(a->ns), free(a->name), free(a->op);
    a->group = a->version = a->resource = a->sub = a->kind = a->ns = a->name = a->op = NULL;
}

static void reset(struct ts__as_adm *a)
{
    ts__as_adm_clear_call(a);
    cJSON_Delete(a->mutated);
    cJSON_Delete(a->final);
    a->mutated = a->final = NULL;
    a->mutated_done = a->validated_done = a->have_old = 0;
    a->old_rv = 0;
}

static int exempt(const struct ts__as_req *q)
{
    return !strcmp(q->res->group, "admissionregistration.k8s.io");
}

static int stale(const struct ts__as_adm *a, const struct ts__as_obj *old)
{
    return a->have_old != (old != NULL) || (old && old->rv != a->old_rv);
}

static char *dup0(const char *s)
{
    return ts_xstrdup(s ? s : "");
}

static cJSON *options(const struct ts__as_req *q, const char *op)
{
    cJSON *o = cJSON_CreateObject();
    const char *fm = ts__as_query(q, "fieldManager"), *fv = ts__as_query(q, "fieldValidation");
    char kind[32];

    snprintf(kind, sizeof(kind), "%sOptions",
             !strcmp(op, "CREATE")   ? "Create"
             : !strcmp(op, "UPDATE") ? "Update"
                                     : "Delete");
    cJSON_AddStringToObject(o, "apiVersion", "meta.k8s.io/v1");
    cJSON_AddStringToObject(o, "kind", kind);
    if (fm && strcmp(op, "DELETE"))
        cJSON_AddStringToObject(o, "fieldManager", fm);
    if (fv && strcmp(op, "DELETE"))
        cJSON_AddStringToObject(o, "fieldValidation", fv);
    if (ts__as_query(q, "dryRun"))
        cJSON_AddItemToArray(cJSON_AddArrayToObject(o, "dryRun"), cJSON_CreateString("All"));
    return o;
}

static void set_call(struct ts__as_req *q, struct ts__as_adm *a, const char *op, const cJSON *obj,
                     const cJSON *old)
{
    const char *name = ts_json_get_string(obj ? obj : old, "metadata.name");

    ts__as_adm_clear_call(a);
    a->op = ts_xstrdup(op);
    a->group = dup0(q->res->group);
    a->version = dup0(q->ver->name);
    a->resource = dup0(q->res->resource);
    a->sub = q->rt.sub ? ts_xstrdup(q->rt.sub) : NULL;
    a->kind = dup0(q->res->kind);
    a->ns = q->res->namespaced ? dup0(q->rt.ns) : NULL;
    a->name = dup0(name ? name : q->rt.name);
    a->sel_obj = obj;
    a->sel_old = old;
    a->dry_run = ts__as_query(q, "dryRun") != NULL;
}

/* The rest of the call once a webhook matched: copies of the objects
 * (the borrowed ones are the caller's), the options and a uid. */
static void fill_call(struct ts__as_req *q, struct ts__as_adm *a)
{
    a->obj = a->sel_obj ? cJSON_Duplicate(a->sel_obj, 1) : NULL;
    a->old = a->sel_old ? cJSON_Duplicate(a->sel_old, 1) : NULL;
    a->sel_obj = a->sel_old = NULL;
    a->options = options(q, a->op);
    ts__as_new_uid(q->s, a->uid);
}

static void note_old(struct ts__as_adm *a, const struct ts__as_obj *old)
{
    a->have_old = old != NULL;
    a->old_rv = old ? old->rv : 0;
}

/* The old object changed between rounds: everything starts over. */
static int start_over(struct ts__as_req *q, struct ts__as_resp *r, struct ts__as_adm *a)
{
    reset(a);
    if (++a->rounds > MAX_ROUNDS) {
        ts__as_reply_conflict(r, q->res, q->rt.name);
        return 1;
    }
    a->phase = TS__AS_ADM_RESTART;
    return 1;
}

static void swap_in(cJSON **obj, const cJSON *v)
{
    cJSON_Delete(*obj);
    *obj = cJSON_Duplicate(v, 1);
}

int ts__as_admit_mutate(struct ts__as_req *q, struct ts__as_resp *r, cJSON **obj,
                        const struct ts__as_obj *old)
{
    struct ts__as_adm *a;

    if (exempt(q))
        return 0;
    a = adm_of(q);
    if (a->mutated_done && stale(a, old))
        return start_over(q, r, a);
    if (a->mutated_done) {
        if (a->mutated)
            swap_in(obj, a->mutated);
        return 0;
    }
    note_old(a, old);
    set_call(q, a, old ? "UPDATE" : "CREATE", *obj, old ? old->json : NULL);
    add_hooks(q, a, "MutatingWebhookConfiguration");
    if (!a->n_hooks) {
        a->mutated_done = 1;
        ts__as_adm_clear_call(a);
        return 0;
    }
    fill_call(q, a);
    a->phase = TS__AS_ADM_MUTATE;
    return 1;
}

int ts__as_admit_validate(struct ts__as_req *q, struct ts__as_resp *r, cJSON **obj,
                          const struct ts__as_obj *old)
{
    struct ts__as_adm *a;

    if (exempt(q))
        return 0;
    a = adm_of(q);
    if (a->validated_done && stale(a, old))
        return start_over(q, r, a);
    if (a->validated_done) {
        if (a->final)
            swap_in(obj, a->final);
        return 0;
    }
    note_old(a, old);
    set_call(q, a, old ? "UPDATE" : "CREATE", *obj, old ? old->json : NULL);
    add_hooks(q, a, "ValidatingWebhookConfiguration");
    if (!a->n_hooks) {
        a->validated_done = 1;
        ts__as_adm_clear_call(a);
        return 0;
    }
    fill_call(q, a);
    a->final = cJSON_Duplicate(*obj, 1);
    a->phase = TS__AS_ADM_VALIDATE;
    return 1;
}

int ts__as_admit_delete(struct ts__as_req *q, struct ts__as_resp *r, const struct ts__as_obj *o)
{
    struct ts__as_adm *a;
    cJSON *view;

    if (exempt(q))
        return 0;
    a = adm_of(q);
    if (a->validated_done)
        return stale(a, o) ? start_over(q, r, a) : 0;
    note_old(a, o);
    view = ts__as_present(q, q->res, o->json);
    set_call(q, a, "DELETE", NULL, view);
    add_hooks(q, a, "MutatingWebhookConfiguration");
    add_hooks(q, a, "ValidatingWebhookConfiguration");
    if (!a->n_hooks) {
        a->validated_done = 1;
        ts__as_adm_clear_call(a);
        cJSON_Delete(view);
        return 0;
    }
    fill_call(q, a);
    cJSON_Delete(view);
    a->phase = TS__AS_ADM_VALIDATE;
    return 1;
}

int ts__as_admit_pending(const struct ts__as_req *q)
{
    return q->adm ? q->adm->phase : TS__AS_ADM_IDLE;
}

void ts__as_admit_finish(struct ts__as_req *q, struct ts__as_resp *r)
{
    struct ts__as_adm *a = q->adm;

    if (!a)
        return;
    for (size_t i = 0; i < a->warnings.n; i++)
        ts_strlist_push(&r->warnings, a->warnings.items[i]);
    reset(a);
    ts_strlist_release(&a->warnings);
    free(a);
    q->adm = NULL;
}
