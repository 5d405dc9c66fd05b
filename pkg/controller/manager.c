/* manager.c - builds the controller manager (kubeconfig, loop, client,
 * informers, engine, job work queue, optional leader election), runs it
 * and shuts it down cleanly: stop scheduling, let in-flight writes land,
 * give the Lease back. */
#include "controller/manager_int.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/parse.h"
#include "util/log.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const struct ts_kube_resource
    ts__ctl_res_workloads = {"kueue.x-k8s.io", "v1beta2", "workloads", "Workload", 1},
    ts__ctl_res_clusterqueues = {"kueue.x-k8s.io", "v1beta2", "clusterqueues", "ClusterQueue", 0},
    ts__ctl_res_localqueues = {"kueue.x-k8s.io", "v1beta2", "localqueues", "LocalQueue", 1},
    ts__ctl_res_resourceflavors = {"kueue.x-k8s.io", "v1beta2", "resourceflavors", "ResourceFlavor",
                                   0},
    ts__ctl_res_cohorts = {"kueue.x-k8s.io", "v1beta2", "cohorts", "Cohort", 0},
    ts__ctl_res_workloadpriorityclasses = {"kueue.x-k8s.io", "v1beta2", "workloadpriorityclasses",
                                           "WorkloadPriorityClass", 0},
    ts__ctl_res_priorityclasses = {"scheduling.k8s.io", "v1", "priorityclasses", "PriorityClass",
                                   0},
    ts__ctl_res_pytorchjobs = {"kubeflow.org", "v1", "pytorchjobs", "PyTorchJob", 1};

static const struct ts_kube_resource *const resources[TS__CTL_N] = {
    [TS__CTL_RF] = &ts__ctl_res_resourceflavors,
    [TS__CTL_CQ] = &ts__ctl_res_clusterqueues,
    [TS__CTL_COHORT] = &ts__ctl_res_cohorts,
    [TS__CTL_LQ] = &ts__ctl_res_localqueues,
    [TS__CTL_WPC] = &ts__ctl_res_workloadpriorityclasses,
    [TS__CTL_PC] = &ts__ctl_res_priorityclasses,
    [TS__CTL_NS] = &ts_kube_res_namespaces,
    [TS__CTL_WL] = &ts__ctl_res_workloads,
    [TS__CTL_JOB] = &ts_kube_res_jobs,
    [TS__CTL_PTJ] = &ts__ctl_res_pytorchjobs,
};

#define DRAIN_NS (5 * TS_TIME_SECOND)

void ts_ctl_opts_init(struct ts_ctl_opts *o)
{
    memset(o, 0, sizeof(*o));
    ts_config_init(&o->config);
    o->lease_ns = "turnstile-system";
    o->metrics_addr = ":8443";
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

/* Starts the metrics server on "host:port" (host may be empty). */
static int start_metrics(struct ts_ctl *c, struct ts_err *err)
{
    const char *addr = c->opts.metrics_addr, *colon;
    struct ts_metrics_server_options so;
    char host[256];
    int64_t port;

    if (ts_kmetrics_new(c->registry, c->opts.leader_elect ? "follower" : "standalone", &c->metrics,
                        err))
        return err->code;
    ts_kmetrics_build_info(c->metrics, TS_VERSION, "", "", "", "cc", "linux");
    if (!addr || !strcmp(addr, "0"))
        return 0;
    colon = strrchr(addr, ':');
    if (!colon || ts_parse_i64_c(colon + 1, &port) || port < 0 || port > 65535)
        return ts_err_set(err, TS_EINVAL, "metrics address '%s': want host:port", addr);
    snprintf(host, sizeof(host), "%.*s", (int)(colon - addr), addr);
    ts_metrics_server_options_init(&so);
    so.host = host;
    so.port = (int)port;
    so.ready = ready;
    so.ready_ud = c;
    if (ts_metrics_server_start(c->registry, &so, &c->metrics_server, err))
        return err->code;
    ts_log_info("controller", "metrics serving on %s:%d (/metrics /healthz /readyz)",
                host[0] ? host : "*", ts_metrics_server_port(c->metrics_server));
    return 0;
}

/* Whether the server serves res (a one-item list answers; 404 does not). */
static int served(struct ts_ctl *c, const struct ts_kube_resource *res)
{
    struct ts_kube_req r = {0};
    struct ts_err err = {0};
    cJSON *out = NULL;
    int rc;

    r.verb = TS_KUBE_LIST;
    r.res = res;
    r.limit = 1;
    r.flags = TS_KUBE_REQ_NO_RETRY;
    rc = ts_kube_list_sync(c->client, &r, &out, &err);
    cJSON_Delete(out);
    return rc != TS_ENOTFOUND;
}

struct ts_ctl *ts_ctl_new(const struct ts_ctl_opts *o, struct ts_err *err)
{
    struct ts_kubeconfig_opts ko = {0};
    struct ts_kube_client_opts co = {0};
    struct ts_engine_config ec;
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
    co.qps = o->config.qps;
    co.burst = o->config.burst;
    c->client = ts_kube_client_new(c->loop, &c->kc, &co, err);
    /* Events get a client (and so a QPS/burst budget) of their own, as in
     * Kueue: controller-runtime's recorder builds its own clientset from
     * the same config.  On a shared budget, ~3 Events per Workload would
     * queue the admissions behind them. */
    c->event_client = c->client ? ts_kube_client_new(c->loop, &c->kc, &co, err) : NULL;
    if (!c->client || !c->event_client)
        goto fail;
    c->events = ts_recorder_new(c->event_client, "kueue-admission", NULL);
    ts_engine_config_from(&ec, &o->config);
    c->engine = ts_engine_new(&ec);
    c->jobs = ts_workqueue_new(NULL);
    c->registry = ts_metrics_registry_new();
    if (start_metrics(c, err))
        goto fail;
    return c;
fail:
    ts_ctl_free(c);
    return NULL;
}

void ts_ctl_free(struct ts_ctl *c)
{
    if (!c)
        return;
    ts_metrics_server_free(c->metrics_server); /* first: it renders the registry */
    ts_kmetrics_free(c->metrics);
    ts_metrics_registry_free(c->registry);
    for (int i = 0; i < TS__CTL_N; i++)
        ts_informer_free(c->inf[i]);
    ts_leader_free(c->leader);
    ts_workqueue_free(c->jobs);
    ts_recorder_free(c->events);
    ts_kube_client_free(c->event_client);
    ts_kube_client_free(c->client); /* cancels the status writes in flight: free them */
    {
        size_t it = 0;
        const char *k;
        void *v;

        while (ts_hmap_next(&c->status_inflight, &it, &k, &v))
            free(v);
        ts_hmap_release(&c->status_inflight);
    }
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
    ts_loop_timer_cancel(c->loop, c->status_timer);
    ts_workqueue_shutdown(c->jobs);
    ts_loop_timer_add(c->loop, 0, drain, c);
}

static void on_signal(struct ts_loop *loop, int signo, void *data)
{
    (void)loop;
    ts_log_info("controller", "signal %d: shutting down", signo);
    ts_ctl_stop(data);
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
    lo.name = "c1f6bfd2.kueue.x-k8s.io"; /* Kueue's lease name */
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

static int start_informers(struct ts_ctl *c, struct ts_err *err)
{
    for (int i = 0; i < TS__CTL_N; i++) {
        struct ts_informer_opts io = {0};

        if ((i == TS__CTL_JOB && !c->opts.config.manage_batch_job) ||
            (i == TS__CTL_PTJ && !c->opts.config.manage_pytorchjob)) {
            ts_log_info("controller", "%s/%s %s not in integrations.frameworks; not managed",
                        resources[i]->group, resources[i]->version, resources[i]->resource);
            continue;
        }
        if (i == TS__CTL_PTJ && !served(c, resources[i])) {
            ts_log_info("controller", "kubeflow.org/v1 pytorchjobs not served; "
                                      "the PyTorchJob integration is off");
            continue;
        }
        /* without the CRDs the informers would retry forever and nothing
         * would ever be scheduled: say so and stop */
        if (resources[i]->group[0] && !strcmp(resources[i]->group, "kueue.x-k8s.io") &&
            !served(c, resources[i]))
            return ts_err_set(err, TS_ENOTFOUND,
                              "%s/%s %s are not served: install the CRDs first "
                              "(kubectl apply -f crds/)",
                              resources[i]->group, resources[i]->version, resources[i]->resource);
        io.res = resources[i];
        c->inf[i] = ts_informer_new(c->client, &io);
    }
    ts__ctl_feed_handlers(c);
    for (int i = 0; i < TS__CTL_N; i++) {
        if (c->inf[i] && ts_informer_start(c->inf[i], err))
            return err->code;
    }
    return 0;
}

int ts_ctl_run(struct ts_ctl *c, struct ts_err *err)
{
    static const int sigs[] = {SIGTERM, SIGINT};
    int64_t period = c->opts.status_period_ns ? c->opts.status_period_ns : TS_TIME_SECOND;

    if (ts_loop_signals(c->loop, sigs, 2, on_signal, c))
        return ts_err_set(err, TS_EIO, "cannot watch signals");
    if (start_informers(c, err) || start_leader(c, err))
        return err->code;
    if (ts_workqueue_run_on(c->jobs, c->loop, 64, ts__ctl_reconcile_job, c))
        return ts_err_set(err, TS_EOVERFLOW, "no loop hook left for the job queue");
    c->cycle_timer = ts_loop_timer_add(c->loop, 0, ts__ctl_cycle, c);
    c->status_timer = ts_loop_timer_add(c->loop, period, ts__ctl_queue_status, c);
    ts_log_info("controller", "started against %s", c->kc.server);
    return ts_loop_run(c->loop);
}
