/*
 * kueuectl_write.c - `kubectl kueue stop|resume workload|localqueue|
 * clusterqueue NAME` and `create clusterqueue|localqueue|resourceflavor NAME`
 * (cmd/kueuectl/app/{stop,resume,create}): get, change, merge-patch or
 * create, then print with the name printer ("... stopped", "... created",
 * "(client dry run)") or -o yaml|json.
 */
#include "cli/kueuectl_int.h"

#include <string.h>

#include "json/json.h"
#include "json/patch.h"
#include "kube/client.h"

static const struct ts_kube_resource *res_of(enum ts__kctl_kind kind)
{
    return kind == TS__KCTL_WL   ? &ts_kube_res_workloads
           : kind == TS__KCTL_LQ ? &ts_kube_res_localqueues
           : kind == TS__KCTL_CQ ? &ts_kube_res_clusterqueues
                                 : &ts_kube_res_resourceflavors;
}

static const char *singular(enum ts__kctl_kind kind)
{
    return kind == TS__KCTL_WL   ? "workload"
           : kind == TS__KCTL_LQ ? "localqueue"
           : kind == TS__KCTL_CQ ? "clusterqueue"
                                 : "resourceflavor";
}

/* The operation the name printer prints, with the dry-run suffix of
 * dryrun.PrintFlagsWithStrategy(). */
static const char *operation(const struct ts__kctl *k, const char *op, char *buf, size_t len)
{
    if (!strcmp(k->o.dry_run, "none"))
        return op;
    snprintf(buf, len, "%s (%s dry run)", op, k->o.dry_run);
    return buf;
}

/* stop|resume: Workloads get spec.active (and honour --dry-run); queues
 * get spec.stopPolicy Hold (--keep-already-running), HoldAndDrain or None
 * and print no operation, as kueuectl's do. */
int ts__kctl_stop_resume(struct ts__kctl *k, enum ts__kctl_kind kind, int stop)
{
    const struct ts_kube_resource *res = res_of(kind);
    struct ts_kube_req r = {.verb = TS_KUBE_GET, .res = res, .name = k->o.args[2]};
    cJSON *obj = NULL, *patch = cJSON_CreateObject(), *spec, *out = NULL;
    int wl = kind == TS__KCTL_WL, client_dry = wl && !strcmp(k->o.dry_run, "client");
    char msg[512], op[64];
    int rc;

    r.ns = res->namespaced ? k->ns : NULL;
    spec = cJSON_AddObjectToObject(patch, "spec");
    if (wl)
        cJSON_AddBoolToObject(spec, "active", !stop);
    else
        cJSON_AddStringToObject(spec, "stopPolicy",
                                !stop               ? "None"
                                : k->o.keep_running ? "Hold"
                                                    : "HoldAndDrain");
    if ((rc = ts__kctl_call(k, &r, &obj, msg, sizeof(msg)))) {
        rc = ts__kctl_fail(k, "%s", msg);
    } else if (client_dry) {
        ts_json_merge_patch_apply(obj, patch, &out, NULL);
        rc = ts__kctl_print_obj(k, out ? out : obj, singular(kind),
                                operation(k, stop ? "stopped" : "resumed", op, sizeof(op)));
    } else {
        r.verb = TS_KUBE_PATCH;
        r.patch = TS_KUBE_PATCH_MERGE;
        r.body = patch;
        r.dry_run = wl && !strcmp(k->o.dry_run, "server") ? "All" : NULL;
        if ((rc = ts__kctl_call(k, &r, &out, msg, sizeof(msg))))
            rc = ts__kctl_fail(k, "%s", msg);
        else
            rc = ts__kctl_print_obj(k, out, singular(kind),
                                    wl ? operation(k, stop ? "stopped" : "resumed", op, sizeof(op))
                                       : "");
    }
    cJSON_Delete(obj);
    cJSON_Delete(out);
    cJSON_Delete(patch);
    return rc;
}

static cJSON *build_rf(struct ts__kctl *k)
{
    cJSON *labels = NULL, *taints = NULL, *tols = NULL;
    struct ts_buf e = TS_BUF_INIT;

    if (ts__kctl_parse_labels(k->o.node_labels, k->o.n_node_labels, "node-labels", &labels, &e) ||
        ts__kctl_parse_taints(k->o.node_taints, k->o.n_node_taints, &taints, &e) ||
        ts__kctl_parse_tolerations(k->o.tolerations, k->o.n_tolerations, &tols, &e)) {
        cJSON_Delete(labels);
        cJSON_Delete(taints);
        ts__kctl_fail(k, "%s", e.ptr);
        ts_buf_release(&e);
        return NULL;
    }
    ts_buf_release(&e);
    return ts__kctl_new_resourceflavor(k->o.args[2], labels, taints, tols);
}

/* create localqueue: -c is required, and the ClusterQueue must exist
 * unless --ignore-unknown-cq (create_localqueue.go Validate). */
static cJSON *build_lq(struct ts__kctl *k)
{
    struct ts_kube_req r = {.verb = TS_KUBE_GET, .res = &ts_kube_res_clusterqueues};
    char msg[512];

    if (!k->o.cq) {
        ts__kctl_fail(k, "required flag(s) \"clusterqueue\" not set");
        return NULL;
    }
    if (!*k->o.cq) {
        ts__kctl_fail(k, "clusterqueue must be specified");
        return NULL;
    }
    r.name = k->o.cq;
    if (!k->o.ignore_unknown_cq && ts__kctl_call(k, &r, NULL, msg, sizeof(msg))) {
        ts__kctl_fail(k, "%s", msg);
        return NULL;
    }
    return ts__kctl_new_localqueue(k->o.args[2], k->ns, k->o.cq);
}

/* create clusterqueue: the flags as create_clusterqueue.go reads them. */
static cJSON *build_cq(struct ts__kctl *k)
{
    const struct ts__kctl_opts *o = &k->o;
    struct ts__kctl_cq_opts co = {
        .name = o->args[2],
        .cohort = o->cohort,
        .queuing_strategy = o->queuing_strategy,
        .reclaim = o->reclaim,
        .within_cq = o->within_cq,
        .ns_selector = o->ns_selector,
        .n_ns_selector = o->n_ns_selector,
        .nominal = o->nominal,
        .n_nominal = o->n_nominal,
        .borrowing = o->borrowing,
        .n_borrowing = o->n_borrowing,
        .lending = o->lending,
        .n_lending = o->n_lending,
    };
    struct ts_buf e = TS_BUF_INIT;
    cJSON *cq = NULL;

    if (ts__kctl_new_clusterqueue(&co, &cq, &e))
        ts__kctl_fail(k, "%s", e.ptr);
    ts_buf_release(&e);
    return cq;
}

int ts__kctl_create(struct ts__kctl *k, enum ts__kctl_kind kind)
{
    const struct ts_kube_resource *res = res_of(kind);
    struct ts_kube_req r = {.verb = TS_KUBE_CREATE, .res = res};
    cJSON *obj = kind == TS__KCTL_LQ   ? build_lq(k)
                 : kind == TS__KCTL_CQ ? build_cq(k)
                                       : build_rf(k),
          *out = NULL;
    char msg[512], op[64];
    int rc = 1;

    if (!obj)
        return 1;
    r.ns = res->namespaced ? k->ns : NULL;
    r.body = obj;
    r.dry_run = !strcmp(k->o.dry_run, "server") ? "All" : NULL;
    if (!strcmp(k->o.dry_run, "client"))
        rc = ts__kctl_print_obj(k, obj, singular(kind), operation(k, "created", op, sizeof(op)));
    else if (ts__kctl_call(k, &r, &out, msg, sizeof(msg)))
        rc = ts__kctl_fail(k, "%s", msg);
    else
        rc = ts__kctl_print_obj(k, out, singular(kind), operation(k, "created", op, sizeof(op)));
    cJSON_Delete(obj);
    cJSON_Delete(out);
    return rc;
}
