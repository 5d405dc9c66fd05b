/* provreq.c - Kueue's ProvisioningRequest admission check controller
 * (pkg/controller/admissionchecks/provisioning), the shell around
 * provreq.h: keys of the job work queue,
 *   "ProvReqAC/NAME"   an AdmissionCheck of this controller: its Active
 *                      condition (acReconciler);
 *   "ProvReq/NS/NAME"  a Workload: its checks' states, its
 *                      ProvisioningRequests and PodTemplates (Controller).
 * Informers: ProvisioningRequestConfigs, ProvisioningRequests (indexed by
 * owning Workload) and PodTemplates, started only when the
 * ProvisioningRequest CRD is served, as Kueue sets the controller up only
 * then.  Each reconcile makes one step and waits for the watch to show it:
 * a status write, or the deletes and creates; PodTemplates are created
 * before their request and handed to it once it exists. */
#include "api/object.h"
#include "controller/manager_int.h"
#include "controller/provreq.h"
#include "json/json.h"
#include "util/alloc.h"
#include "util/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WL_PREFIX   "ProvReq/"
#define AC_PREFIX   "ProvReqAC/"
#define OWNER_INDEX "owner"

static const char *orempty(const char *s)
{
    return s ? s : "";
}

static int is_ours(const cJSON *ac)
{
    return !strcmp(orempty(ts_json_get_string(ac, "spec.controllerName")), TS_PROVREQ_CONTROLLER);
}

int ts__ctl_is_provreq_key(const char *key)
{
    return !strncmp(key, WL_PREFIX, strlen(WL_PREFIX)) ||
           !strncmp(key, AC_PREFIX, strlen(AC_PREFIX));
}

static void add_key(struct ts_ctl *c, const char *prefix, const char *ns, const char *name)
{
    char key[600];

    if (!name || c->stopping || !c->inf[TS__CTL_PR])
        return;
    if (ns)
        snprintf(key, sizeof(key), "%s%s/%s", prefix, ns, name);
    else
        snprintf(key, sizeof(key), "%s%s", prefix, name);
    ts_workqueue_add(c->jobs, key);
}

static int has_check(const cJSON *wl, const char *check)
{
    const cJSON *s;

    cJSON_ArrayForEach(s, ts_json_get(wl, "status.admissionChecks"))
    {
        if (!check || !strcmp(orempty(ts_json_get_string(s, "name")), check))
            return 1;
    }
    return 0;
}

/* What a visit of an informer looks for. */
struct by_name {
    struct ts_ctl *c;
    const char *name;
};

static int wl_using(const char *key, const cJSON *wl, void *data)
{
    const struct by_name *check = data;

    (void)key;
    if (has_check(wl, check->name))
        add_key(check->c, WL_PREFIX, ts_json_get_string(wl, "metadata.namespace"),
                ts_json_get_string(wl, "metadata.name"));
    return 0;
}

/* An AdmissionCheck of ours changed: its Active condition, and every
 * Workload that has it (Kueue's acHandler). */
static void check_changed(struct ts_ctl *c, const cJSON *ac)
{
    const char *name = ts_json_get_string(ac, "metadata.name");
    struct by_name arg = {c, name};

    add_key(c, AC_PREFIX, NULL, name);
    if (name && c->inf[TS__CTL_WL])
        ts_informer_each(c->inf[TS__CTL_WL], wl_using, &arg);
}

static int ac_using(const char *key, const cJSON *ac, void *data)
{
    const struct by_name *cfg = data;
    char why[256];
    const char *ref = ts_provreq_config_ref(ac, why, sizeof(why));

    (void)key;
    if (is_ours(ac) && ref && !strcmp(ref, cfg->name))
        check_changed(cfg->c, ac);
    return 0;
}

static void owner_of(const cJSON *obj, struct ts_strlist *out, void *data)
{
    const cJSON *r;
    char k[600];

    (void)data;
    cJSON_ArrayForEach(r, ts_json_get(obj, "metadata.ownerReferences"))
    {
        snprintf(k, sizeof(k), "%s/%s", orempty(ts_json_get_string(obj, "metadata.namespace")),
                 orempty(ts_json_get_string(r, "name")));
        ts_strlist_push(out, k);
    }
}

void ts__ctl_provreq_index(struct ts_ctl *c)
{
    if (c->inf[TS__CTL_PR])
        ts_informer_add_index(c->inf[TS__CTL_PR], OWNER_INDEX, owner_of, NULL);
}

static void owners_changed(struct ts_ctl *c, const cJSON *obj)
{
    const cJSON *r;

    cJSON_ArrayForEach(r, ts_json_get(obj, "metadata.ownerReferences"))
    {
        if (!strcmp(orempty(ts_json_get_string(r, "kind")), "Workload"))
            add_key(c, WL_PREFIX, ts_json_get_string(obj, "metadata.namespace"),
                    ts_json_get_string(r, "name"));
    }
}

void ts__ctl_provreq_event(struct ts_ctl *c, enum ts__ctl_inf which, const cJSON *obj)
{
    struct by_name arg = {c, ts_json_get_string(obj, "metadata.name")};

    switch (which) {
    case TS__CTL_AC:
        if (is_ours(obj))
            check_changed(c, obj);
        break;
    case TS__CTL_WL:
        if (has_check(obj, NULL))
            add_key(c, WL_PREFIX, ts_json_get_string(obj, "metadata.namespace"), arg.name);
        break;
    case TS__CTL_PRC:
        if (arg.name && c->inf[TS__CTL_AC])
            ts_informer_each(c->inf[TS__CTL_AC], ac_using, &arg);
        break;
    case TS__CTL_PR:
    case TS__CTL_PT:
        owners_changed(c, obj);
        break;
    default:
        break;
    }
}

/* --- writes ------------------------------------------------------------- */

/* The writes of one reconcile.  pending counts the reconcile's own hold
 * and the writes in flight; when it drops to 0 the request in `then` is
 * created (its PodTemplates all landed), or the key is done: forgotten,
 * or retried with the queue's backoff when a write failed. */
struct batch {
    struct ts_ctl *c;
    char *key;
    int pending, failed, cancelled, created;
    cJSON *then; /* the ProvisioningRequest to create next, or NULL */
    cJSON *wl;   /* the Workload the event ProvisioningRequestCreated goes on */
    char *pr_name;
};

static void submit(struct batch *b, struct ts_kube_req *r);

static void send_then(struct batch *b)
{
    struct ts_kube_req r = {0};
    cJSON *pr = b->then;

    b->then = NULL;
    b->pr_name = ts_xstrdup(orempty(ts_json_get_string(pr, "metadata.name")));
    r.verb = TS_KUBE_CREATE;
    r.res = &ts_kube_res_provisioningrequests;
    r.ns = ts_json_get_string(pr, "metadata.namespace");
    r.body = pr;
    submit(b, &r);
    cJSON_Delete(pr);
}

static void batch_unref(struct batch *b)
{
    if (--b->pending > 0)
        return;
    if (b->then && !b->failed && !b->cancelled) {
        b->pending = 1;
        send_then(b);
        batch_unref(b);
        return;
    }
    if (!b->cancelled && b->failed)
        ts_workqueue_add_rate_limited(b->c->jobs, b->key, ts_loop_now(b->c->loop));
    else if (!b->cancelled)
        ts_workqueue_forget(b->c->jobs, b->key);
    if (!b->cancelled && b->created)
        ts_recorder_event(b->c->events, b->wl, "Normal", "ProvisioningRequestCreated",
                          "Created ProvisioningRequest: \"%s\"", b->pr_name);
    ts__ctl_count_write(b->c, b->key, -1);
    cJSON_Delete(b->then);
    cJSON_Delete(b->wl);
    free(b->pr_name);
    free(b->key);
    free(b);
}

static void released(void *data)
{
    struct batch *b = data;

    b->cancelled = 1;
    batch_unref(b);
}

static void answered(struct ts_kube_client *kc, struct ts_kube_result *res, void *data)
{
    struct batch *b = data;
    const char *kind = res->obj ? ts_json_get_string(res->obj, "kind") : NULL;

    (void)kc;
    b->c->inflight--;
    if (res->code && res->code != TS_EEXIST && res->code != TS_ENOTFOUND) {
        ts_log_info("controller", "%s: write failed: %s", b->key, res->err.msg);
        b->failed = 1;
    } else if (!res->code && kind && !strcmp(kind, "ProvisioningRequest") && b->pr_name &&
               !ts_json_get(res->obj, "metadata.deletionTimestamp") &&
               !strcmp(b->pr_name, orempty(ts_json_get_string(res->obj, "metadata.name")))) {
        b->created = 1;
    }
    batch_unref(b);
}

static void submit(struct batch *b, struct ts_kube_req *r)
{
    struct ts_err err = {0};

    b->pending++;
    b->c->inflight++;
    r->release = released;
    if (ts_kube_submit(b->c->client, r, answered, b, NULL, &err)) {
        struct ts_kube_result res = {0};

        res.code = TS_EINVAL;
        res.err = err;
        answered(b->c->client, &res, b);
    }
}

static struct batch *batch_new(struct ts_ctl *c, const char *key)
{
    struct batch *b = ts_xcalloc(1, sizeof(*b));

    b->c = c;
    b->key = ts_xstrdup(key);
    b->pending = 1;
    ts__ctl_count_write(c, key, +1);
    return b;
}

static void write_obj(struct batch *b, enum ts_kube_verb verb, const struct ts_kube_resource *res,
                      const cJSON *obj, const char *sub)
{
    struct ts_kube_req r = {0};

    r.verb = verb;
    r.res = res;
    r.ns = ts_json_get_string(obj, "metadata.namespace");
    r.name = verb == TS_KUBE_CREATE ? NULL : ts_json_get_string(obj, "metadata.name");
    r.subresource = sub;
    r.body = verb == TS_KUBE_DELETE ? NULL : obj;
    if (verb == TS_KUBE_DELETE)
        r.propagation = "Background";
    submit(b, &r);
}

/* --- the AdmissionCheck ---------------------------------------------------- */

static void reconcile_ac(struct ts_ctl *c, const char *key, const char *name)
{
    const cJSON *ac = ts_informer_get_ns(c->inf[TS__CTL_AC], NULL, name), *cfg = NULL;
    struct batch *b;
    char why[256];
    const char *ref;
    cJSON *upd;

    if (!ac || !is_ours(ac)) {
        ts_workqueue_forget(c->jobs, key);
        return;
    }
    if ((ref = ts_provreq_config_ref(ac, why, sizeof(why))))
        cfg = ts_informer_get_ns(c->inf[TS__CTL_PRC], NULL, ref);
    upd = ts_provreq_ac_status(ac, cfg, ts__ctl_now(c));
    b = batch_new(c, key);
    if (upd)
        write_obj(b, TS_KUBE_UPDATE, &ts_kube_res_admissionchecks, upd, "status");
    cJSON_Delete(upd);
    batch_unref(b);
}

/* --- the Workload ------------------------------------------------------------ */

struct check {
    const char *name;
    struct ts_provreq_config cfg;
    int has_cfg;
    const cJSON *pr; /* the active or last request (activeOrLastPRForChecks) */
};

struct wlrun {
    struct ts_ctl *c;
    struct ts_workload wl;
    const cJSON *obj;
    struct check *checks;
    size_t n;
    const cJSON **owned;
    size_t n_owned, cap;
};

static int collect_owned(const char *key, const cJSON *pr, void *data)
{
    struct wlrun *w = data;
    const cJSON *r;

    (void)key;
    cJSON_ArrayForEach(r, ts_json_get(pr, "metadata.ownerReferences"))
    {
        if (!strcmp(orempty(ts_json_get_string(r, "name")), w->wl.meta.name)) {
            TS_GROW(w->owned, w->cap, w->n_owned + 1);
            w->owned[w->n_owned++] = pr;
            break;
        }
    }
    return 0;
}

/* The configuration of check `name` if it is one of ours: 1 (cfg read,
 * or has_cfg 0 when missing), 0 not ours, -1 a bad reference (Kueue's
 * reconcile fails on it and writes nothing). */
static int check_of(struct ts_ctl *c, const char *name, struct check *ck)
{
    const cJSON *ac = ts_informer_get_ns(c->inf[TS__CTL_AC], NULL, name), *obj;
    struct ts_err err = {0};
    char why[256];
    const char *ref;

    memset(ck, 0, sizeof(*ck));
    ck->name = name;
    if (!ac || !is_ours(ac))
        return 0;
    if (!(ref = ts_provreq_config_ref(ac, why, sizeof(why)))) {
        ts_log_info("controller", "admissioncheck=%s spec.parameters: %s", name, why);
        return -1;
    }
    if (!(obj = ts_informer_get_ns(c->inf[TS__CTL_PRC], NULL, ref)))
        return 1;
    if (ts_provreq_config_read(obj, &ck->cfg, &err)) {
        ts_log_warn("controller", "object=%s not taken: %s", ref, err.msg);
        ts_provreq_config_release(&ck->cfg);
        return 1;
    }
    ck->has_cfg = 1;
    return 1;
}

static void pick_requests(struct wlrun *w, struct check *ck)
{
    int32_t best = 0;

    if (!ck->has_cfg || !ts_provreq_needed(&w->wl, &ck->cfg))
        return;
    for (size_t i = 0; i < w->n_owned; i++) {
        const char *name = orempty(ts_json_get_string(w->owned[i], "metadata.name"));
        int32_t a = ts_provreq_attempt(name, w->wl.meta.name, ck->name);

        if (a > 0 && ts_provreq_synced(w->owned[i], &ck->cfg) && (!ck->pr || a > best)) {
            ck->pr = w->owned[i];
            best = a;
        }
    }
}

/* Reads the Workload, its checks of this controller and its requests.
 * Returns 1 when there is something to reconcile. */
static int wlrun_load(struct wlrun *w, struct ts_ctl *c, const cJSON *obj)
{
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_object o;
    char idx[600];
    int ok = ts_object_decode(obj, &o, &errs, NULL) == 0;

    ts_field_errors_release(&errs);
    if (ok && o.kind != TS_KIND_WORKLOAD)
        ts_object_release(&o);
    if (!ok || o.kind != TS_KIND_WORKLOAD)
        return 0;
    w->c = c;
    w->obj = obj;
    w->wl = o.u.wl;
    if (!ts_workload_has_quota_reservation(&w->wl) || ts_workload_is_finished(&w->wl) ||
        ts_workload_is_evicted(&w->wl))
        return 1;
    w->checks = ts_xcalloc(w->wl.status.n_admission_checks + 1, sizeof(*w->checks));
    for (size_t i = 0; i < w->wl.status.n_admission_checks; i++) {
        int rc = check_of(c, orempty(w->wl.status.admission_checks[i].name), &w->checks[w->n]);

        if (rc < 0) { /* nothing is written for this Workload until it is fixed */
            for (size_t j = 0; j < w->n; j++)
                ts_provreq_config_release(&w->checks[j].cfg);
            w->n = 0;
            return 1;
        }
        if (rc > 0)
            w->n++;
    }
    snprintf(idx, sizeof(idx), "%s/%s", orempty(w->wl.meta.namespace_), w->wl.meta.name);
    ts_informer_by_index(c->inf[TS__CTL_PR], OWNER_INDEX, idx, collect_owned, w);
    for (size_t i = 0; i < w->n; i++)
        pick_requests(w, &w->checks[i]);
    return 1;
}

static void wlrun_release(struct wlrun *w)
{
    for (size_t i = 0; i < w->n; i++)
        ts_provreq_config_release(&w->checks[i].cfg);
    free(w->checks);
    free(w->owned);
    ts_workload_release(&w->wl);
}

/* syncCheckStates: 1 when a status write was sent. */
static int sync_states(struct wlrun *w, struct batch *b)
{
    struct ts_strlist events = TS_STRLIST_INIT;
    struct ts_workload copy;
    int upd = 0, blocked = 0;

    ts_workload_init(&copy);
    ts_workload_copy(&copy, &w->wl);
    for (size_t i = 0; i < w->n; i++) {
        struct check *ck = &w->checks[i];
        int rc = ts_provreq_sync_check(&copy, ck->name, ck->has_cfg ? &ck->cfg : NULL, ck->pr,
                                       ts__ctl_now(w->c), &events);

        blocked |= rc < 0;
        upd |= rc > 0;
    }
    if (upd && !blocked) {
        cJSON *body = ts_workload_encode(&copy);

        write_obj(b, TS_KUBE_UPDATE, &ts_kube_res_workloads, body, "status");
        for (size_t i = 0; i < events.n; i++)
            ts_recorder_event(w->c->events, w->obj, "Normal", "AdmissionCheckUpdated", "%s",
                              events.items[i]);
        cJSON_Delete(body);
    }
    ts_strlist_release(&events);
    ts_workload_release(&copy);
    return upd && !blocked;
}

static void delete_unused(struct wlrun *w, struct batch *b)
{
    for (size_t i = 0; i < w->n_owned; i++) {
        size_t j = 0;

        while (j < w->n && w->checks[j].pr != w->owned[i])
            j++;
        if (j == w->n && !ts_json_get(w->owned[i], "metadata.deletionTimestamp"))
            write_obj(b, TS_KUBE_DELETE, &ts_kube_res_provisioningrequests, w->owned[i], NULL);
    }
}

static cJSON *stub_of(const cJSON *wl)
{
    cJSON *o = cJSON_CreateObject(), *m;
    static const char *const keys[] = {"name", "namespace", "uid", "resourceVersion"};

    cJSON_AddStringToObject(o, "apiVersion", "kueue.x-k8s.io/v1beta2");
    cJSON_AddStringToObject(o, "kind", "Workload");
    m = cJSON_AddObjectToObject(o, "metadata");
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        const char *v = ts_json_get_string(ts_json_get(wl, "metadata"), keys[i]);

        if (v)
            cJSON_AddStringToObject(m, keys[i], v);
    }
    return o;
}

/* The PodTemplates then the request of a new attempt. */
static void create(struct wlrun *w, struct check *ck, int32_t attempt, struct batch *b)
{
    struct ts__ctl_flavors fl = {.c = w->c};
    struct ts_err err = {0};
    cJSON *pr, *pts, *pt;

    if (ts_provreq_build(&w->wl, &ck->cfg, ck->name, attempt, ts__ctl_flavor, &fl, &pr, &pts,
                         &err)) {
        ts_log_warn("controller",
                    "workload=%s/%s admissioncheck=%s: cannot build the "
                    "ProvisioningRequest: %s",
                    orempty(w->wl.meta.namespace_), w->wl.meta.name, ck->name, err.msg);
        ts_recorder_event(w->c->events, w->obj, "Warning", "FailedCreate", "%s", err.msg);
        b->failed = 1;
    } else {
        cJSON_ArrayForEach(pt, pts)
        {
            if (!ts_informer_get_ns(w->c->inf[TS__CTL_PT], w->wl.meta.namespace_,
                                    ts_json_get_string(pt, "metadata.name")))
                write_obj(b, TS_KUBE_CREATE, &ts_kube_res_podtemplates, pt, NULL);
        }
        b->then = pr;
        b->wl = stub_of(w->obj);
        cJSON_Delete(pts);
    }
    ts__ctl_flavors_release(&fl);
}

/* syncProvisionRequestsPodTemplates for one template: the request becomes
 * its controller in the Workload's place.  NULL when nothing changes.
 * Ownership: caller cJSON_Delete()s. */
static cJSON *handed_over(const cJSON *pt, const cJSON *pr, const char *wl_uid)
{
    const char *pr_uid = orempty(ts_json_get_string(pr, "metadata.uid"));
    cJSON *out = cJSON_Duplicate(pt, 1), *refs, *keep = cJSON_CreateArray(), *r, *add;
    int changed = 0, has = 0;

    refs = ts_json_get(out, "metadata.ownerReferences");
    cJSON_ArrayForEach(r, refs)
    {
        const char *uid = orempty(ts_json_get_string(r, "uid"));

        if (!strcmp(uid, wl_uid) && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "controller")))
            changed = 1;
        else
            cJSON_AddItemToArray(keep, cJSON_Duplicate(r, 1));
        has |=
            !strcmp(uid, pr_uid) && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "controller"));
    }
    if (!has && *pr_uid) {
        add = cJSON_CreateObject();
        cJSON_AddStringToObject(add, "apiVersion", "autoscaling.x-k8s.io/v1");
        cJSON_AddStringToObject(add, "kind", "ProvisioningRequest");
        cJSON_AddStringToObject(add, "name", orempty(ts_json_get_string(pr, "metadata.name")));
        cJSON_AddStringToObject(add, "uid", pr_uid);
        cJSON_AddBoolToObject(add, "controller", 1);
        cJSON_AddBoolToObject(add, "blockOwnerDeletion", 1);
        cJSON_AddItemToArray(keep, add);
        changed = 1;
    }
    if (!changed) {
        cJSON_Delete(keep);
        cJSON_Delete(out);
        return NULL;
    }
    cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(out, "metadata"),
                                            "ownerReferences");
    cJSON_AddItemToObject(cJSON_GetObjectItemCaseSensitive(out, "metadata"), "ownerReferences",
                          keep);
    return out;
}

static void sync_templates(struct wlrun *w, const cJSON *pr, struct batch *b)
{
    const cJSON *ps;

    cJSON_ArrayForEach(ps, ts_json_get(pr, "spec.podSets"))
    {
        const cJSON *pt = ts_informer_get_ns(w->c->inf[TS__CTL_PT], w->wl.meta.namespace_,
                                             ts_json_get_string(ps, "podTemplateRef.name"));
        cJSON *upd = pt ? handed_over(pt, pr, orempty(w->wl.meta.uid)) : NULL;

        if (upd)
            write_obj(b, TS_KUBE_UPDATE, &ts_kube_res_podtemplates, upd, NULL);
        cJSON_Delete(upd);
    }
}

/* syncOwnedProvisionRequest. */
static void sync_requests(struct wlrun *w, struct batch *b)
{
    for (size_t i = 0; i < w->n; i++) {
        struct check *ck = &w->checks[i];
        int32_t attempt;

        if (!ck->has_cfg || !ts_provreq_needed(&w->wl, &ck->cfg))
            continue;
        if (ts_provreq_should_create(&w->wl, ck->name, ck->pr, &attempt)) {
            if (!b->then && !b->failed) /* one request a reconcile; the next one follows */
                create(w, ck, attempt, b);
        } else if (ck->pr) {
            sync_templates(w, ck->pr, b);
        }
    }
}

static void reconcile_wl(struct ts_ctl *c, const char *key, const char *ns, const char *name)
{
    cJSON *obj = ts__ctl_workload_fetch(c, ns, name);
    struct wlrun w;
    struct batch *b;

    memset(&w, 0, sizeof(w));
    if (!obj || !wlrun_load(&w, c, obj)) {
        ts_workqueue_forget(c->jobs, key);
        cJSON_Delete(obj);
        return;
    }
    b = batch_new(c, key);
    if (w.n && !sync_states(&w, b)) {
        delete_unused(&w, b);
        sync_requests(&w, b);
    }
    batch_unref(b);
    wlrun_release(&w);
    cJSON_Delete(obj);
}

void ts__ctl_reconcile_provreq(struct ts_ctl *c, const char *key)
{
    char ns[256];
    const char *rest, *slash;

    if (ts_hmap_get(&c->job_writes, key)) { /* our writes are still in flight */
        ts_workqueue_add_after(c->jobs, key, 20 * 1000 * 1000, ts_loop_now(c->loop));
    } else if (!c->synced || !c->inf[TS__CTL_PR]) {
        if (c->inf[TS__CTL_PR])
            ts_workqueue_add_after(c->jobs, key, 100 * 1000 * 1000, ts_loop_now(c->loop));
        else
            ts_workqueue_forget(c->jobs, key);
    } else if (!strncmp(key, AC_PREFIX, strlen(AC_PREFIX))) {
        reconcile_ac(c, key, key + strlen(AC_PREFIX));
    } else {
        rest = key + strlen(WL_PREFIX);
        slash = strchr(rest, '/');
        if (slash && (size_t)(slash - rest) < sizeof(ns)) {
            snprintf(ns, sizeof(ns), "%.*s", (int)(slash - rest), rest);
            reconcile_wl(c, key, ns, slash + 1);
        } else {
            ts_workqueue_forget(c->jobs, key);
        }
    }
    ts_workqueue_done(c->jobs, key);
}
