/* statefulset.c - Kueue's StatefulSet integration
 * (pkg/controller/jobs/statefulset: statefulset_reconciler.go,
 * statefulset_pod_reconciler.go): a StatefulSet the webhook marked (its
 * pod template annotated kueue.x-k8s.io/pod-suspending-parent=statefulset)
 * runs as one pod group, all or nothing:
 *   - its prebuilt Workload "statefulset-<name>-<hash>" (one pod set "main"
 *     of spec.replicas) is created once it has replicas and a queue name
 *     (or manageJobsWithoutQueueName), kept owned by the set while it has
 *     replicas (a set scaled to 0 lets it go) and on the set's queue;
 *   - each of its Pods (gated by the pod webhook) is labelled a member of
 *     that group: the group and prebuilt-workload names, the queue and
 *     priority class, the total count (replicas), fast admission, serving
 *     and the role "main";
 * then the pod-group reconciler (podgroup.c) admits, starts and stops the
 * group as any other, and never finishes it (serving).
 * Key "StatefulSet/ns/name" of the job work queue; writes go through
 * ts__ctl_execute_group(). */
#include "api/jobworkload.h"
#include "api/pod.h"
#include "controller/manager_int.h"
#include "controller/podgroup.h"
#include "json/json.h"
#include "util/alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct ts_kube_resource ts__ctl_res_statefulsets = {"apps", "v1", "statefulsets",
                                                          "StatefulSet", 1};

#define PREBUILT_LABEL "kueue.x-k8s.io/prebuilt-workload-name"
#define INDEX_ANN      "kueue.x-k8s.io/pod-group-pod-index-label"

int ts__ctl_is_statefulset_key(const char *key)
{
    return !strncmp(key, TS__CTL_STATEFULSET_PREFIX, strlen(TS__CTL_STATEFULSET_PREFIX));
}

void ts__ctl_statefulset_of_pod(struct ts_ctl *c, const cJSON *pod)
{
    const cJSON *ref;

    cJSON_ArrayForEach(ref, ts_json_get(pod, "metadata.ownerReferences"))
    {
        const char *kind = ts_json_get_string(ref, "kind");
        char key[600];

        if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ref, "controller")) || !kind ||
            strcmp(kind, "StatefulSet"))
            continue;
        snprintf(key, sizeof(key), TS__CTL_STATEFULSET_PREFIX "%s/%s",
                 ts_json_get_string(pod, "metadata.namespace"), ts_json_get_string(ref, "name"));
        ts_workqueue_add(c->jobs, key);
    }
}

static const char *label(const cJSON *o, const char *key)
{
    char path[200];
    const char *v;

    snprintf(path, sizeof(path), "metadata.labels[%s]", key);
    v = ts_json_get_string(o, path);
    return v ? v : "";
}

static void set_meta(cJSON *o, const char *map, const char *key, const char *v)
{
    char path[200];

    snprintf(path, sizeof(path), "metadata.%s[%s]", map, key);
    ts_json_set_string(o, path, v, NULL);
}

struct pods_of {
    cJSON **pods;
    size_t n;
};

static int collect(const char *key, const cJSON *pod, void *data)
{
    struct pods_of *p = data;

    (void)key;
    p->pods = ts_xrealloc(p->pods, (p->n + 1) * sizeof(*p->pods));
    p->pods[p->n++] = cJSON_Duplicate(pod, 1);
    return 0;
}

/* Kueue's PodReconciler.setDefault: a Pod of the set becomes a member of
 * its group.  Returns the Pod to write, or NULL when it already is one. */
static cJSON *member_of(const cJSON *pod, const char *wl_name, const char *queue, const char *prio,
                        int replicas)
{
    cJSON *m;
    char n[16];

    if (!strcmp(label(pod, TS_POD_LABEL_GROUP_NAME), wl_name) &&
        (!*queue || !strcmp(label(pod, TS_LABEL_QUEUE_NAME), queue)))
        return NULL;
    m = cJSON_Duplicate(pod, 1);
    snprintf(n, sizeof(n), "%d", replicas);
    set_meta(m, "labels", TS_POD_LABEL_MANAGED, "true");
    set_meta(m, "labels", TS_POD_LABEL_GROUP_NAME, wl_name);
    set_meta(m, "labels", PREBUILT_LABEL, wl_name);
    if (*queue)
        set_meta(m, "labels", TS_LABEL_QUEUE_NAME, queue);
    if (*prio)
        set_meta(m, "labels", TS_LABEL_PRIORITY_CLASS, prio);
    set_meta(m, "annotations", TS_POD_ANNOTATION_GROUP_TOTAL, n);
    set_meta(m, "annotations", TS_POD_ANNOTATION_FAST_ADMIT, "true");
    set_meta(m, "annotations", TS_POD_ANNOTATION_SERVING, "true");
    set_meta(m, "annotations", INDEX_ANN, "apps.kubernetes.io/pod-index");
    set_meta(m, "annotations", TS_POD_ANNOTATION_ROLE_HASH, TS_WL_DEFAULT_PODSET);
    return m;
}

/* The Workload's owner reference to the set: present or not as Kueue's
 * reconcileWorkload wants it (1 when wl was changed). */
static int own(struct ts_workload *wl, const cJSON *sts, int want)
{
    const char *uid = ts_json_get_string(sts, "metadata.uid");
    size_t i;

    for (i = 0; i < wl->meta.n_owner_refs; i++) {
        if (uid && wl->meta.owner_refs[i].uid && !strcmp(wl->meta.owner_refs[i].uid, uid))
            break;
    }
    if (want == (i < wl->meta.n_owner_refs))
        return 0;
    if (!want) {
        struct ts_owner_ref *r = &wl->meta.owner_refs[i];

        free(r->api_version), free(r->kind), free(r->name), free(r->uid);
        memmove(r, r + 1, (wl->meta.n_owner_refs - i - 1) * sizeof(*r));
        wl->meta.n_owner_refs--;
        return 1;
    }
    wl->meta.owner_refs =
        ts_xrealloc(wl->meta.owner_refs, (wl->meta.n_owner_refs + 1) * sizeof(struct ts_owner_ref));
    memset(&wl->meta.owner_refs[wl->meta.n_owner_refs], 0, sizeof(struct ts_owner_ref));
    wl->meta.owner_refs[wl->meta.n_owner_refs].api_version = ts_xstrdup("apps/v1");
    wl->meta.owner_refs[wl->meta.n_owner_refs].kind = ts_xstrdup("StatefulSet");
    wl->meta.owner_refs[wl->meta.n_owner_refs].name =
        ts_xstrdup(ts_json_get_string(sts, "metadata.name"));
    wl->meta.owner_refs[wl->meta.n_owner_refs++].uid = ts_xstrdup(uid ? uid : "");
    return 1;
}

void ts__ctl_reconcile_statefulset(struct ts_ctl *c, struct ts_workqueue *q, const char *key,
                                   const struct ts_jobplan_env *env)
{
    const char *rest = key + strlen(TS__CTL_STATEFULSET_PREFIX), *slash = strchr(rest, '/');
    struct ts_informer *pods_inf =
        c->inf[TS__CTL_JOBKIND_INF(ts_jobkind_by_kind(TS_POD_KIND) - ts_jobkinds)];
    struct pods_of pods = {NULL, 0};
    struct ts_podgroup_plan gp;
    cJSON *sts = NULL;
    char ns[256], *wl_name = NULL;
    const char *queue, *prio;
    const cJSON *r;
    int replicas, managed;
    struct ts_workload wl;

    ts_podgroup_plan_init(&gp);
    if (!slash || !c->inf[TS__CTL_STS] || !pods_inf)
        goto out;
    if (ts_hmap_get(&c->job_writes, key) || !c->synced) {
        ts_workqueue_add_after(q, key, 20 * 1000 * 1000, ts_loop_now(c->loop));
        goto out;
    }
    snprintf(ns, sizeof(ns), "%.*s", (int)(slash - rest), rest);
    sts = ts_informer_fetch(c->inf[TS__CTL_STS], ns, slash + 1);
    if (!sts) /* gone: its Pods go with it, and its Workload when they have */
        goto out;
    managed =
        ts_json_get_string(sts, "spec.template.metadata.annotations[" TS_POD_ANNOTATION_SUSPENDED_BY
                                "]") != NULL;
    queue = label(sts, TS_LABEL_QUEUE_NAME);
    prio = label(sts, TS_LABEL_PRIORITY_CLASS);
    r = ts_json_get(sts, "spec.replicas");
    replicas = cJSON_IsNumber(r) ? (int)r->valuedouble : 1;
    if (!managed || (!*queue && !env->manage_jobs_without_queue_name))
        goto out;
    wl_name = ts_jobworkload_name("StatefulSet", "apps", slash + 1,
                                  ts_json_get_string(sts, "metadata.uid"));
    ts_informer_by_index(pods_inf, TS__CTL_POD_STS_INDEX, rest, collect, &pods);
    for (size_t i = 0; i < pods.n; i++) {
        cJSON *m = member_of(pods.pods[i], wl_name, queue, prio, replicas);

        if (!m)
            continue;
        gp.updates = ts_xrealloc(gp.updates, (gp.n_updates + 1) * sizeof(*gp.updates));
        gp.updates[gp.n_updates++] = m;
    }
    if (ts__ctl_cached_workload(c, ns, wl_name, &wl)) {
        struct ts_err e = {0};

        if (replicas > 0 &&
            ts_jobworkload_from_statefulset(sts, env->prio, &gp.base.workload, &e) == 0) {
            gp.base.ops |= TS_JOBPLAN_CREATE_WORKLOAD;
            gp.base.event_type = "Normal";
            gp.base.event_reason = "CreatedWorkload";
            snprintf(gp.base.event_message, sizeof(gp.base.event_message),
                     "Created Workload: %s/%s", ns, wl_name);
        } else if (e.code) {
            gp.base.event_type = "Warning";
            gp.base.event_reason = "ErrWorkloadCompose";
            snprintf(gp.base.event_message, sizeof(gp.base.event_message), "%s", e.msg);
        }
    } else {
        int changed = own(&wl, sts, replicas > 0);

        if (replicas > 0 && *queue && (!wl.spec.queue_name || strcmp(wl.spec.queue_name, queue))) {
            free(wl.spec.queue_name);
            wl.spec.queue_name = ts_xstrdup(queue);
            changed = 1;
        }
        if (changed) {
            ts_workload_copy(&gp.base.workload, &wl);
            gp.base.ops |= TS_JOBPLAN_UPDATE_WORKLOAD;
        }
        ts_workload_release(&wl);
    }
    ts__ctl_execute_group(c, key, ns, &gp, sts);
out:
    ts_podgroup_plan_release(&gp);
    for (size_t i = 0; i < pods.n; i++)
        cJSON_Delete(pods.pods[i]);
    free(pods.pods);
    free(wl_name);
    cJSON_Delete(sts);
    ts_workqueue_done(q, key);
}
