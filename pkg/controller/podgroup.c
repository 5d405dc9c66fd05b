#include "controller/podgroup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/jobworkload.h"
#include "api/pod.h"
#include "controller/podset.h"
#include "engine/apply.h"
#include "json/json.h"
#include "util/alloc.h"
#include "util/parse.h"

struct member {
    cJSON *json; /* borrowed */
    struct ts_pod pod;
    int update; /* index into plan->updates, -1: none yet */
};

void ts_podgroup_plan_init(struct ts_podgroup_plan *p)
{
    memset(p, 0, sizeof(*p));
    ts_jobplan_init(&p->base);
}

void ts_podgroup_plan_release(struct ts_podgroup_plan *p)
{
    for (size_t i = 0; i < p->n_updates; i++)
        cJSON_Delete(p->updates[i]);
    for (size_t i = 0; i < p->n_deletes; i++)
        free(p->deletes[i]);
    free(p->updates);
    free(p->deletes);
    ts_jobplan_release(&p->base);
    ts_podgroup_plan_init(p);
}

static void event(struct ts_podgroup_plan *p, const struct member *m, const char *type,
                  const char *reason, const char *msg)
{
    p->base.event_type = type;
    p->base.event_reason = reason;
    snprintf(p->base.event_message, sizeof(p->base.event_message), "%s", msg);
    p->event_pod = m->pod.meta.name;
}

/* The member's copy to write back (made on first use). */
static cJSON *update_of(struct ts_podgroup_plan *p, struct member *m)
{
    if (m->update < 0) {
        p->updates = ts_xrealloc(p->updates, (p->n_updates + 1) * sizeof(*p->updates));
        p->updates[p->n_updates] = cJSON_Duplicate(m->json, 1);
        m->update = (int)p->n_updates++;
    }
    return p->updates[m->update];
}

static int has_finalizer(const struct member *m)
{
    return ts_strlist_index(&m->pod.meta.finalizers, TS_POD_FINALIZER) >= 0;
}

/* Kueue's removePodFinalizers. */
static void finalize(struct ts_podgroup_plan *p, struct member *m)
{
    cJSON *meta, *fin, *f;

    if (!has_finalizer(m))
        return;
    meta = cJSON_GetObjectItemCaseSensitive(update_of(p, m), "metadata");
    fin = cJSON_GetObjectItemCaseSensitive(meta, "finalizers");
    cJSON_ArrayForEach(f, fin)
    {
        if (cJSON_IsString(f) && !strcmp(f->valuestring, TS_POD_FINALIZER)) {
            cJSON_Delete(cJSON_DetachItemViaPointer(fin, f));
            break;
        }
    }
    if (!cJSON_GetArraySize(fin)) /* as the API server drops an empty list */
        cJSON_DeleteItemFromObjectCaseSensitive(meta, "finalizers");
}

static void delete_member(struct ts_podgroup_plan *p, const struct member *m)
{
    p->deletes = ts_xrealloc(p->deletes, (p->n_deletes + 1) * sizeof(*p->deletes));
    p->deletes[p->n_deletes++] = ts_xstrdup(m->pod.meta.name ? m->pod.meta.name : "");
}

static int phase_is(const struct member *m, const char *phase)
{
    return m->pod.phase && !strcmp(m->pod.phase, phase);
}

static int deleting(const struct member *m)
{
    return m->pod.meta.deletion_timestamp != 0;
}

/* Kueue's isPodRunnableOrSucceeded. */
static int runnable(const struct member *m)
{
    return !phase_is(m, "Failed") && !(deleting(m) && !m->pod.node_name);
}

/* Running for quota: neither terminated, gated nor being deleted. */
static int running(const struct member *m)
{
    return !ts_pod_is_suspended(&m->pod) && !deleting(m);
}

static const char *annotation(const struct member *m, const char *key)
{
    const char *v = ts_strmap_get(&m->pod.meta.annotations, key);

    return v ? v : "";
}

static int64_t total_of(const struct member *m)
{
    int64_t n;

    return ts_parse_i64_c(annotation(m, TS_POD_ANNOTATION_GROUP_TOTAL), &n) || n < 1 ? -1 : n;
}

/* Kueue's sortActivePods: kept first are members with the finalizer, then
 * ungated ones, then the older. */
static int keep_order(const void *a, const void *b)
{
    const struct member *x = *(const struct member *const *)a;
    const struct member *y = *(const struct member *const *)b;

    if (has_finalizer(x) != has_finalizer(y))
        return has_finalizer(y) - has_finalizer(x);
    if (x->pod.gated != y->pod.gated)
        return x->pod.gated - y->pod.gated;
    return x->pod.meta.creation_timestamp < y->pod.meta.creation_timestamp   ? -1
           : x->pod.meta.creation_timestamp > y->pod.meta.creation_timestamp ? 1
                                                                             : 0;
}

/* No Workload yet: Kueue's ConstructComposableWorkload for a group. */
static void compose(struct ts_podgroup_plan *p, const char *group, struct member *ms, size_t n,
                    const struct ts_jobplan_env *env)
{
    struct member **run = ts_xcalloc(n, sizeof(*run));
    struct ts_pod *pods;
    size_t nr = 0;
    int64_t total = -1;
    const char *queue = NULL;
    char msg[512];
    struct ts_err e = {0};
    int rc;

    for (size_t i = 0; i < n; i++) {
        const char *q = ts_job_meta_queue_name(&ms[i].pod.meta);

        if (phase_is(&ms[i], "Failed"))
            continue;
        if (total < 0) {
            total = total_of(&ms[i]);
            queue = q ? q : "";
        } else if (total_of(&ms[i]) != total || strcmp(q ? q : "", queue)) {
            snprintf(msg, sizeof(msg),
                     total_of(&ms[i]) != total
                         ? "pods '%s' and '%s' has different '" TS_POD_ANNOTATION_GROUP_TOTAL
                           "' values"
                         : "pods '%s' and '%s' has different queue names",
                     ms[0].pod.meta.name, ms[i].pod.meta.name);
            event(p, &ms[i], "Warning", "ErrWorkloadCompose", msg);
            free(run);
            return;
        }
        if (runnable(&ms[i]))
            run[nr++] = &ms[i];
    }
    if (total < 0 || (int64_t)nr < total) {
        snprintf(msg, sizeof(msg), "'%s' group has fewer runnable pods than expected", group);
        event(p, &ms[0], "Warning", "ErrWorkloadCompose", msg);
        free(run);
        return;
    }
    qsort(run, nr, sizeof(*run), keep_order);
    for (size_t i = (size_t)total; i < nr; i++) { /* Kueue's removeExcessPods */
        finalize(p, run[i]);
        if (!deleting(run[i]))
            delete_member(p, run[i]);
        event(p, run[i], "Normal", "ExcessPodDeleted", "Excess pod deleted");
    }
    nr = (size_t)total;
    pods = ts_xcalloc(nr, sizeof(*pods));
    for (size_t i = 0; i < nr; i++)
        pods[i] = run[i]->pod; /* shallow: owned by the members */
    rc = ts_jobworkload_from_pod_group(pods, nr, group, env->prio, &p->base.workload, &e);
    if (rc == TS_ENOTFOUND) {
        event(p, run[0], "Warning", "WorkloadPriorityClassNotFound", e.msg);
    } else if (rc) {
        event(p, run[0], "Warning", "ErrWorkloadCompose", e.msg);
    } else {
        ts_jobworkload_copy_labels(&run[0]->pod.meta, env->label_keys_to_copy, &p->base.workload);
        p->base.ops |= TS_JOBPLAN_CREATE_WORKLOAD;
        snprintf(msg, sizeof(msg), "Created Workload: %s/%s", p->base.workload.meta.namespace_,
                 p->base.workload.meta.name);
        event(p, run[0], "Normal", "CreatedWorkload", msg);
    }
    free(pods);
    free(run);
}

/* Kueue's EnsureWorkloadOwnedByAllMembers: 1 when an update is planned. */
static int own_all(struct ts_podgroup_plan *p, const struct member *ms, size_t n,
                   const struct ts_workload *wl)
{
    int added = 0;

    for (size_t i = 0; i < n; i++) {
        size_t j;

        if (!runnable(&ms[i]) || !ms[i].pod.meta.uid)
            continue;
        for (j = 0; j < wl->meta.n_owner_refs; j++) {
            const char *uid = wl->meta.owner_refs[j].uid;

            if (uid && !strcmp(uid, ms[i].pod.meta.uid))
                break;
        }
        if (j < wl->meta.n_owner_refs)
            continue;
        if (!added++)
            ts_workload_copy(&p->base.workload, wl);
        p->base.workload.meta.owner_refs =
            ts_xrealloc(p->base.workload.meta.owner_refs,
                        (p->base.workload.meta.n_owner_refs + 1) * sizeof(struct ts_owner_ref));
        memset(&p->base.workload.meta.owner_refs[p->base.workload.meta.n_owner_refs], 0,
               sizeof(struct ts_owner_ref));
        p->base.workload.meta.owner_refs[p->base.workload.meta.n_owner_refs].api_version =
            ts_xstrdup(TS_POD_API_VERSION);
        p->base.workload.meta.owner_refs[p->base.workload.meta.n_owner_refs].kind =
            ts_xstrdup(TS_POD_KIND);
        p->base.workload.meta.owner_refs[p->base.workload.meta.n_owner_refs].name =
            ts_xstrdup(ms[i].pod.meta.name);
        p->base.workload.meta.owner_refs[p->base.workload.meta.n_owner_refs++].uid =
            ts_xstrdup(ms[i].pod.meta.uid);
    }
    if (added)
        p->base.ops |= TS_JOBPLAN_UPDATE_WORKLOAD;
    return added > 0;
}

/* Admitted: every gated member starts with its role's flavors.  A member
 * whose injection conflicts with its own template stays gated, and the
 * event says why (Kueue fails the start). */
static void start(struct ts_podgroup_plan *p, struct member *ms, size_t n,
                  const struct ts_workload *wl, const struct ts_jobplan_env *env)
{
    int started = 0;

    for (size_t i = 0; i < n; i++) {
        cJSON *copy;
        char role[9];
        struct ts_err e = {0};

        if (!ms[i].pod.gated || deleting(&ms[i]) || ts_pod_is_terminated(&ms[i].pod))
            continue;
        if (ts_pod_role_hash(ms[i].json, role))
            continue;
        copy = cJSON_Duplicate(ms[i].json, 1);
        if (ts_podset_inject(copy, wl, role, env->flavor, env->flavor_ctx, &e)) {
            event(p, &ms[i], "Warning", "FailedToStart", e.msg);
            cJSON_Delete(copy);
            continue;
        }
        ts_pod_json_remove_gate(copy, TS_POD_GATE);
        if (ms[i].update >= 0) { /* keep the finalize already planned */
            cJSON_Delete(p->updates[ms[i].update]);
            p->updates[ms[i].update] = copy;
        } else {
            p->updates = ts_xrealloc(p->updates, (p->n_updates + 1) * sizeof(*p->updates));
            p->updates[p->n_updates] = copy;
            ms[i].update = (int)p->n_updates++;
        }
        if (!started++) {
            char msg[512];

            snprintf(msg, sizeof(msg), "Admitted by clusterQueue %s",
                     wl->status.admission ? wl->status.admission->cluster_queue : "");
            event(p, &ms[i], "Normal", "Started", msg);
        }
    }
}

/* Evicted or running without admission: Kueue's Pod.Stop deletes every
 * running member; once none runs an evicted Workload's quota goes. */
static void stop(struct ts_podgroup_plan *p, const struct member *ms, size_t n,
                 const struct ts_workload *wl, ts_time now)
{
    const struct ts_condition *ev = ts_conditions_find(&wl->status.conditions, TS_WL_COND_EVICTED);
    int any = 0;

    for (size_t i = 0; i < n; i++) {
        if (!running(&ms[i]))
            continue;
        delete_member(p, &ms[i]);
        if (!any++)
            event(p, &ms[i], "Normal", "Stopped",
                  ev && ev->message ? ev->message : "Not admitted by cluster queue");
    }
    if (!any && ts_workload_is_evicted(wl) && ts_workload_has_quota_reservation(wl)) {
        ts_workload_copy(&p->base.workload, wl);
        if (ts_apply_quota_released(&p->base.workload, now))
            p->base.ops |= TS_JOBPLAN_WORKLOAD_STATUS;
    }
}

/* Kueue's Finished for a group. */
static int group_finished(const struct member *ms, size_t n, int *succeeded, int64_t *total)
{
    int active = 0, unretriable = 0, serving = 0;

    *succeeded = 0;
    *total = n ? total_of(&ms[0]) : -1;
    for (size_t i = 0; i < n; i++) {
        *succeeded += phase_is(&ms[i], "Succeeded");
        active |= !ts_pod_is_terminated(&ms[i].pod);
        unretriable |= !strcmp(annotation(&ms[i], TS_POD_ANNOTATION_RETRIABLE), "false");
        serving |= !strcmp(annotation(&ms[i], TS_POD_ANNOTATION_SERVING), "true");
    }
    if (serving || *total < 1)
        return 0;
    return *succeeded >= *total || (!active && unretriable);
}

int ts_podgroup_plan_make(const char *group, cJSON *const *pods, size_t n,
                          const struct ts_workload *wl, const struct ts_jobplan_env *env,
                          ts_time now, struct ts_podgroup_plan *p)
{
    struct member *ms;
    int succeeded;
    int64_t total;

    ts_podgroup_plan_release(p);
    if (!n)
        return 0;
    ms = ts_xcalloc(n, sizeof(*ms));
    for (size_t i = 0; i < n; i++) {
        struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
        struct ts_dec d;

        ts_dec_init(&d, &errs);
        ms[i].json = pods[i];
        ms[i].update = -1;
        ts_pod_init(&ms[i].pod);
        ts_pod_decode(&d, pods[i], &ms[i].pod);
        ts_field_errors_release(&errs);
    }
    for (size_t i = 0; i < n; i++) {
        if (deleting(&ms[i]) || phase_is(&ms[i], "Failed"))
            finalize(p, &ms[i]); /* gone or never running again */
    }
    if (wl && ts_workload_is_finished(wl)) {
        for (size_t i = 0; i < n; i++)
            finalize(p, &ms[i]);
    } else if (group_finished(ms, n, &succeeded, &total)) {
        for (size_t i = 0; i < n; i++)
            finalize(p, &ms[i]);
        if (wl) {
            char msg[128];

            snprintf(msg, sizeof(msg), "Pods succeeded: %d/%lld.", succeeded, (long long)total);
            ts_workload_copy(&p->base.workload, wl);
            ts_conditions_set(&p->base.workload.status.conditions, TS_WL_COND_FINISHED, "True",
                              TS_WL_REASON_SUCCEEDED, msg, wl->meta.generation, now);
            p->base.ops |= TS_JOBPLAN_WORKLOAD_STATUS;
            p->base.metric = TS_JOBPLAN_METRIC_FINISHED;
            snprintf(msg, sizeof(msg), "Workload '%s/%s' is declared finished", wl->meta.namespace_,
                     wl->meta.name);
            event(p, &ms[0], "Normal", "FinishedWorkload", msg);
        }
    } else if (!wl) {
        compose(p, group, ms, n, env);
    } else if (!own_all(p, ms, n, wl)) {
        ts_jobplan_make_standalone(wl, env, now, &p->base);
        if (!p->base.ops && (ts_workload_is_evicted(wl) || !ts_workload_is_admitted(wl)))
            stop(p, ms, n, wl, now);
        else if (!p->base.ops)
            start(p, ms, n, wl, env);
    }
    for (size_t i = 0; i < n; i++) {
        if (p->event_pod == ms[i].pod.meta.name)
            p->event_pod = ts_json_get_string(pods[i], "metadata.name"); /* outlives ms */
        ts_pod_release(&ms[i].pod);
    }
    free(ms);
    return 0;
}
