/* manager.c - builds the controller manager (kubeconfig, loop, client,
 * informers, engine, job work queue, optional leader election), runs it
 * and shuts it down cleanly: stop scheduling, let in-flight writes land,
 * give the Lease back. */
#include "api/pod.h"
#include "controller/manager_int.h"
#include "httpd/fdlimit.h"
#include "json/json.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/parse.h"
#include "util/log.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct ts_kube_resource *const resources[TS__CTL_N] = {
    [TS__CTL_RF] = &ts_kube_res_resourceflavors,
    [TS__CTL_CQ] = &ts_kube_res_clusterqueues,
    [TS__CTL_COHORT] = &ts_kube_res_cohorts,
    [TS__CTL_LQ] = &ts_kube_res_localqueues,
    [TS__CTL_WPC] = &ts_kube_res_workloadpriorityclasses,
    [TS__CTL_PC] = &ts_kube_res_priorityclasses,
    [TS__CTL_NS] = &ts_kube_res_namespaces,
    [TS__CTL_AC] = &ts_kube_res_admissionchecks,
    [TS__CTL_WL] = &ts_kube_res_workloads,
    [TS__CTL_LR] = &ts_kube_res_limitranges,
    [TS__CTL_RC] = &ts_kube_res_runtimeclasses,
    [TS__CTL_PRC] = &ts_kube_res_provisioningrequestconfigs,
    [TS__CTL_PR] = &ts_kube_res_provisioningrequests,
    [TS__CTL_PT] = &ts_kube_res_podtemplates,
    [TS__CTL_STS] = &ts__ctl_res_statefulsets,
    [TS__CTL_TR] = &ts_kube_res_trainingruntimes,
    [TS__CTL_CTR] = &ts_kube_res_clustertrainingruntimes,
};

const struct ts_kube_resource *ts__ctl_resource(enum ts__ctl_inf i)
{
    return TS__CTL_IS_JOB_INF(i) ? &ts_jobkinds[i - TS__CTL_JOB].res : resources[i];
}

#define DRAIN_NS (5 * TS_TIME_SECOND)

void ts_ctl_opts_init(struct ts_ctl_opts *o)
{
    memset(o, 0, sizeof(*o));
    ts_config_init(&o->config);
    o->lease_ns = "turnstile-system";
    o->metrics_addr = ":8443";
    o->visibility_addr = ":8082";
}

/* /readyz: ready once every informer synced (the metrics thread reads it). */
static int ready(void *ud, struct ts_buf *why)
{
    struct ts_ctl *c = ud;

    if (__atomic_load_n(&c->ready, __ATOMIC_ACQUIRE))
        return 1;
    ts_buf_adds(why, "informers have not synced yet");
    return 0;
}

int ts__ctl_split_addr(const char *what, const char *addr, char *host, size_t len, int *port,
                       struct ts_err *err)
{
    const char *colon = strrchr(addr, ':');
    int64_t p;

    if (!colon || ts_parse_i64_c(colon + 1, &p) || p < 0 || p > 65535 ||
        (size_t)(colon - addr) >= len)
        return ts_err_set(err, TS_EINVAL, "%s address '%s': want host:port", what, addr);
    snprintf(host, len, "%.*s", (int)(colon - addr), addr);
    *port = (int)p;
    return 0;
}

/* Serves the registry (or only the probes) on "host:port" (host may be
 * empty). */
static int serve(struct ts_ctl *c, const char *what, const char *addr, int probes_only,
                 struct ts_metrics_server **out, struct ts_err *err)
{
    struct ts_metrics_server_options so;
    char host[256];
    int port;

    if (ts__ctl_split_addr(what, addr, host, sizeof(host), &port, err))
        return err->code;
    ts_metrics_server_options_init(&so);
    so.host = host;
    so.port = port;
    so.ready = ready;
    so.ready_ud = c;
    so.probes_only = probes_only;
    so.conn_limit = ts_httpd_conn_budget(65536); /* idle scrapers cannot lock Prometheus out */
    if (ts_metrics_server_start(c->registry, &so, out, err))
        return err->code;
    ts_log_info("controller", "%s serving on %s:%d (%s)", what, host[0] ? host : "*",
                ts_metrics_server_port(*out),
                probes_only ? "/healthz /readyz" : "/metrics /healthz /readyz");
    return 0;
}

/* Starts the metrics server (and the health probe one, when asked). */
static int start_metrics(struct ts_ctl *c, struct ts_err *err)
{
    const char *addr = c->opts.metrics_addr;

    if (ts_kmetrics_new(c->registry, c->opts.leader_elect ? "follower" : "standalone", &c->metrics,
                        err))
        return err->code;
    ts_kmetrics_build_info(c->metrics, TS_VERSION, "", "", "", "cc", "linux");
    if (addr && strcmp(addr, "0") && serve(c, "metrics", addr, 0, &c->metrics_server, err))
        return err->code;
    if (c->opts.health_addr && serve(c, "health", c->opts.health_addr, 1, &c->health_server, err))
        return err->code;
    return 0;
}

/* Whether the server serves res: a one-item list answers yes, 404 no.
 * Anything else (a reply cut short, a 5xx, a timeout) says nothing, so it
 * is asked again (the client retries, then so do we): guessing "served"
 * for a kind that is not would start an informer that never syncs, and
 * nothing would ever be scheduled. */
static int served(struct ts_ctl *c, const struct ts_kube_resource *res)
{
    for (int round = 1;; round++) {
        struct ts_kube_req r = {0};
        struct ts_err err = {0};
        cJSON *out = NULL;
        int rc;

        r.verb = TS_KUBE_LIST;
        r.res = res;
        r.limit = 1;
        rc = ts_kube_list_sync(c->client, &r, &out, &err);
        cJSON_Delete(out);
        if (rc == 0 || rc == TS_ENOTFOUND)
            return rc == 0;
        if (rc == TS_ECANCELED) /* stopping: the caller looks no further */
            return 1;
        ts_log_warn("controller", "cannot tell whether %s/%s %s are served (%s)%s", res->group,
                    res->version, res->resource, err.msg,
                    round < 3 ? ": asking again" : ": assuming they are");
        if (round == 3)
            return 1;
    }
}

static const int stop_signals[] = {SIGTERM, SIGINT};

static void on_signal(struct ts_loop *loop, int signo, void *data)
{
    (void)loop;
    ts_log_info("controller", "signal %d: shutting down", signo);
    ts_ctl_stop(data);
}

struct ts_ctl *ts_ctl_new(const struct ts_ctl_opts *o, struct ts_err *err)
{
    struct ts_kubeconfig_opts ko = {0};
    struct ts_kube_client_opts co = {0};
    struct ts_engine_config ec;
    struct ts_err verr = {0};
    struct ts_ctl *c = ts_xcalloc(1, sizeof(*c));

    c->opts = *o;
    ko.path = o->kubeconfig;
    ko.context = o->context;
    if (ts_kubeconfig_load(&ko, &c->kc, err))
        goto fail;
    c->loop = ts_loop_new();
    if (!c->loop) {
        ts_err_set(err, TS_EIO, "cannot create the event loop");
        goto fail;
    }
    ts__ctl_tell_init(c);
    {
        double q = o->config.qps > 0 ? o->config.qps * TS__CTL_STATUS_SHARE : 0;

        ts_ratelimit_init(&c->status_rl, q, q >= 1 ? (int)q : 1, ts_loop_now(c->loop));
    }
    /* Before the metrics and visibility servers start their threads, which
     * inherit the blocked mask: else the kernel hands a SIGTERM to one of
     * them and its default action ends the process, undrained, the Lease
     * kept (and a leak check at exit sees everything still reachable). */
    if (ts_loop_signals(c->loop, stop_signals, 2, on_signal, c)) {
        ts_err_set(err, TS_EIO, "cannot watch signals");
        goto fail;
    }
    co.qps = o->config.qps;
    co.burst = o->config.burst;
    c->client = ts_kube_client_new(c->loop, &c->kc, &co, err);
    /* Events get a client (and so a QPS/burst budget) of their own, as in
     * Kueue: controller-runtime's recorder builds its own clientset from
     * the same config.  On a shared budget, ~3 Events per Workload would
     * queue the admissions behind them.  Throttled Events start together
     * every 100 ms: a wakeup per request costs more CPU than the request,
     * and nothing waits on an Event.  The decisions' client keeps each
     * token's time: on the grid every admission would wait for the next
     * tick as well. */
    co.throttle_tick = TS_TIME_SECOND / 10;
    c->event_client = c->client ? ts_kube_client_new(c->loop, &c->kc, &co, err) : NULL;
    if (!c->client || !c->event_client)
        goto fail;
    c->events = ts_recorder_new(c->event_client, "kueue-admission", NULL);
    ts_engine_config_from(&ec, &o->config);
    c->engine = ts_engine_new(&ec);
    ts_engine_config_release(&ec);
    c->jobs = ts_workqueue_new(NULL);
    c->registry = ts_metrics_registry_new();
    if (start_metrics(c, err))
        goto fail;
    if (ts__ctl_vis_start(c, &verr)) {
        /* a read-only extra must not keep admissions from running */
        ts_log_error("controller", "visibility API off: %s", verr.msg);
        ts__ctl_vis_stop(c);
    }
    return c;
fail:
    ts_ctl_free(c);
    return NULL;
}

void ts_ctl_free(struct ts_ctl *c)
{
    if (!c)
        return;
    ts__ctl_vis_stop(c);                       /* first: its threads wait on the loop */
    ts_metrics_server_free(c->metrics_server); /* it renders the registry */
    ts_metrics_server_free(c->health_server);
    ts_kmetrics_free(c->metrics);
    ts_metrics_registry_free(c->registry);
    for (int i = 0; i < TS__CTL_N; i++)
        ts_informer_free(c->inf[i]);
    ts_leader_free(c->leader);
    ts_workqueue_free(c->jobs);
    ts_recorder_free(c->events);
    ts_kube_client_free(c->event_client);
    ts_kube_client_free(c->client); /* cancels the status writes in flight: free them */
    ts_hmap_release_free(&c->status_inflight);
    ts_hmap_release_free(&c->status_last);
    ts__ctl_status_release(c);
    ts_hmap_release_free(&c->evict_retry);
    ts__ctl_written_release(c);
    ts_hmap_release(&c->job_writes); /* values are counts, not pointers */
    ts_hmap_release_free(&c->job_expect);
    ts__ctl_tell_release(c);
    ts_engine_free(c->engine);
    ts_loop_free(c->loop);
    ts_kubeconfig_release(&c->kc);
    free(c);
}

static void released(struct ts_leader *l, void *data)
{
    struct ts_ctl *c = data;

    (void)l;
    ts_loop_stop(c->loop);
}

/* Waits (by re-arming itself) for in-flight writes, then gives the Lease
 * back and stops the loop. */
static void drain(struct ts_loop *loop, void *data)
{
    struct ts_ctl *c = data;

    if (c->inflight && ts_loop_now(loop) < c->stopping_at + DRAIN_NS) {
        ts_loop_timer_add(loop, 20 * 1000 * 1000, drain, c);
        return;
    }
    if (c->inflight)
        ts_log_warn("controller", "stopping with %zu writes unanswered", c->inflight);
    if (c->leader)
        ts_leader_release(c->leader, released, c);
    else
        ts_loop_stop(loop);
}

void ts_ctl_stop(struct ts_ctl *c)
{
    if (c->stopping)
        return;
    c->stopping = 1;
    c->stopping_at = ts_loop_now(c->loop);
    ts_loop_timer_cancel(c->loop, c->cycle_timer);
    if (c->soon_timer)
        ts_loop_timer_cancel(c->loop, c->soon_timer);
    ts_loop_timer_cancel(c->loop, c->status_timer);
    ts_workqueue_shutdown(c->jobs);
    ts_loop_timer_add(c->loop, 0, drain, c);
}

static void started_leading(struct ts_leader *l, void *data)
{
    struct ts_ctl *c = data;

    (void)l;
    ts_log_info("controller", "leading; scheduling starts");
    ts_kmetrics_set_role(c->metrics, "leader");
    ts__ctl_kick(c);
}

static void stopped_leading(struct ts_leader *l, void *data)
{
    struct ts_ctl *c = data;

    (void)l;
    /* Our in-memory admissions may now be stale: a new leader decides.
     * Stopping (and being restarted) rebuilds from the API, as Kueue does. */
    ts_log_warn("controller", "lost the lease; stopping");
    ts_ctl_stop(c);
}

static int start_leader(struct ts_ctl *c, struct ts_err *err)
{
    struct ts_leader_opts lo = {0};
    char ident[300], host[256] = "turnstile";

    if (!c->opts.leader_elect)
        return 0;
    gethostname(host, sizeof(host) - 1);
    snprintf(ident, sizeof(ident), "%s_%ld", host, (long)getpid());
    lo.ns = c->opts.lease_ns;
    lo.name = c->opts.lease_name ? c->opts.lease_name : "c1f6bfd2.kueue.x-k8s.io"; /* Kueue's */
    lo.identity = c->opts.identity ? c->opts.identity : ident;
    lo.on_started_leading = started_leading;
    lo.on_stopped_leading = stopped_leading;
    lo.data = c;
    c->leader = ts_leader_new(c->client, &lo, err);
    if (!c->leader)
        return err->code;
    ts_leader_start(c->leader);
    return 0;
}

/* Kueue sets its ProvisioningRequest controller up only when the
 * ProvisioningRequest CRD is served (and its own config CRD with it). */
static int provreq_on(struct ts_ctl *c, int i)
{
    if (i == TS__CTL_PRC) {
        if (served(c, &ts_kube_res_provisioningrequests) &&
            served(c, &ts_kube_res_provisioningrequestconfigs))
            return 1;
        ts_log_info("controller", "autoscaling.x-k8s.io/v1 provisioningrequests or "
                                  "kueue.x-k8s.io provisioningrequestconfigs not served; the "
                                  "ProvisioningRequest admission check controller is off");
        return 0;
    }
    return c->inf[i - 1] != NULL; /* PR after PRC, PT after PR */
}

/* The Pod informer's group index: "ns/group" for a pod-group member. */
static void pod_group_index(const cJSON *obj, struct ts_strlist *out, void *data)
{
    const char *g = ts_json_get_string(obj, "metadata.labels[" TS_POD_LABEL_GROUP_NAME "]");
    char v[600];

    (void)data;
    if (!g || !*g)
        return;
    snprintf(v, sizeof(v), "%s/%s", ts_json_get_string(obj, "metadata.namespace"), g);
    ts_strlist_push(out, v);
}

/* The Pod informer's StatefulSet index: "ns/name" of the set controlling
 * the Pod. */
static void pod_sts_index(const cJSON *obj, struct ts_strlist *out, void *data)
{
    const cJSON *ref;
    char v[600];

    (void)data;
    cJSON_ArrayForEach(ref, ts_json_get(obj, "metadata.ownerReferences"))
    {
        const char *kind = ts_json_get_string(ref, "kind"), *name = ts_json_get_string(ref, "name");

        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ref, "controller")) && kind && name &&
            !strcmp(kind, "StatefulSet")) {
            snprintf(v, sizeof(v), "%s/%s", ts_json_get_string(obj, "metadata.namespace"), name);
            ts_strlist_push(out, v);
        }
    }
}

/* Whether integrations.frameworks has job kind k; the pod integration is
 * also on, implicitly, for the Pods of managed Deployments (Kueue). */
static int kind_on(const struct ts_ctl *c, const struct ts_jobkind *k)
{
    return ts_config_framework_on(&c->opts.config, k->framework) ||
           (k->shape == TS_JOBKIND_POD && (ts_config_framework_on(&c->opts.config, "deployment") ||
                                           ts_config_framework_on(&c->opts.config, "statefulset")));
}

static int start_informers(struct ts_ctl *c, struct ts_err *err)
{
    for (int i = 0; i < TS__CTL_N && !c->stopping; i++) {
        const struct ts_kube_resource *res = ts__ctl_resource((enum ts__ctl_inf)i);
        struct ts_informer_opts io = {0};

        if (TS__CTL_IS_JOB_INF(i) && !kind_on(c, &ts_jobkinds[i - TS__CTL_JOB])) {
            ts_log_info("controller", "%s/%s %s not in integrations.frameworks; not managed",
                        res->group, res->version, res->resource);
            continue;
        }
        /* Kubeflow, JobSet and KubeRay CRDs are optional: without them the integration is off */
        if (TS__CTL_IS_JOB_INF(i) && i != TS__CTL_JOB && !served(c, res)) {
            ts_log_info("controller", "%s/%s %s not served; the %s integration is off", res->group,
                        res->version, res->resource, res->kind);
            continue;
        }
        if (i >= TS__CTL_PRC && i <= TS__CTL_PT && !provreq_on(c, i))
            continue;
        if (i == TS__CTL_STS && !ts_config_framework_on(&c->opts.config, "statefulset"))
            continue;
        /* a TrainJob's pod sets are its runtime's */
        if ((i == TS__CTL_TR || i == TS__CTL_CTR) &&
            (!c->inf[TS__CTL_JOBKIND_INF(ts_jobkind_by_kind("TrainJob") - ts_jobkinds)] ||
             !served(c, res)))
            continue;
        /* without the CRDs the informers would retry forever and nothing
         * would ever be scheduled: say so and stop */
        if (res->group[0] && !strcmp(res->group, "kueue.x-k8s.io") && !served(c, res))
            return ts_err_set(err, TS_ENOTFOUND,
                              "%s/%s %s are not served: install the CRDs first "
                              "(kubectl apply -f crds/)",
                              res->group, res->version, res->resource);
        io.res = res;
        if (TS__CTL_IS_JOB_INF(i) && ts_jobkinds[i - TS__CTL_JOB].shape == TS_JOBKIND_POD)
            /* the webhook marks the Pods Turnstile manages */
            io.label_selector = TS_POD_LABEL_MANAGED "=true";
        /* the many (Workloads, jobs) are kept as text: a fifth of the memory;
         * Pods (only the managed ones) as trees, for their group index */
        io.compact = i == TS__CTL_WL || (TS__CTL_IS_JOB_INF(i) &&
                                         ts_jobkinds[i - TS__CTL_JOB].shape != TS_JOBKIND_POD);
        io.strip_managed_fields = 1; /* never read; the server keeps them on our writes */
        c->inf[i] = ts_informer_new(c->client, &io);
        if (!io.compact && io.label_selector) {
            ts_informer_add_index(c->inf[i], TS__CTL_POD_GROUP_INDEX, pod_group_index, NULL);
            ts_informer_add_index(c->inf[i], TS__CTL_POD_STS_INDEX, pod_sts_index, NULL);
        }
    }
    if (c->stopping)
        return 0;
    ts__ctl_feed_handlers(c);
    ts__ctl_fence_write(c); /* after discovery: as late as the lists allow */
    for (int i = 0; i < TS__CTL_N && !c->stopping; i++) {
        if (c->inf[i] && ts_informer_start(c->inf[i], err))
            return err->code;
    }
    return 0;
}

int ts_ctl_run(struct ts_ctl *c, struct ts_err *err)
{
    int64_t period = c->opts.status_period_ns ? c->opts.status_period_ns : TS_TIME_SECOND;

    if (start_informers(c, err))
        return err->code;
    /* A SIGTERM came during the synchronous discovery above: no Lease, no
     * first cycle; the loop only drains (or returns at once, drained). */
    if (c->stopping)
        return ts_loop_run(c->loop);
    if (start_leader(c, err))
        return err->code;
    if (ts_workqueue_run_on(c->jobs, c->loop, 64, ts__ctl_reconcile_job, c))
        return ts_err_set(err, TS_EOVERFLOW, "no loop hook left for the job queue");
    c->cycle_timer = ts_loop_timer_add(c->loop, 0, ts__ctl_cycle, c);
    c->status_timer = ts_loop_timer_add(c->loop, period, ts__ctl_queue_status, c);
    ts_log_info("controller", "started against %s", c->kc.server);
    return ts_loop_run(c->loop);
}
