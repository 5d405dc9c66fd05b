/* bench_live.c - `turnstilectl bench --live`: the plan against the real
 * binaries on loopback, as Kueue's runner does it.  turnstile-apiserver
 * (in memory) and turnstile (client budget --qps/--burst) are started
 * here; the runner creates the Workloads at the generator's pace,
 * records each admission from a watch, and marks each Finished (status
 * subresource) its runtime after the admission.  With --jobs it creates
 * suspended batch Jobs instead: the controller makes their Workloads and
 * starts and stops them, the API server's job simulator runs each for its
 * runtime, and the controller marks the Workload Finished: the whole
 * Job -> Workload -> unsuspend -> finish path.  With --kubeconfig the
 * run goes to that cluster instead (no server is started here): the
 * controller and the runner use its kubeconfig, and what the plan made is
 * deleted afterwards by its cleanup label. */
#include "cli/bench_int.h"

#include "api/object.h"
#include "bench/cqusage.h"
#include "engine/apply.h"
#include "json/json.h"
#include "kube/client.h"
#include "kube/informer.h"
#include "kube/kubeconfig.h"
#include "kube/loop.h"
#include "util/alloc.h"
#include "util/hmap.h"
#include "yaml/yaml.h"

#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct live;

struct wl {
    struct live *x;       /* back pointer for its timer */
    int64_t held_from;    /* loop time of the admission being run */
    uint64_t timer;       /* its finish timer */
    uint64_t retry_timer; /* a conflicted release's retry, or a look after one landed */
    int running, finished, releasing;
    /* resourceVersion a release was made from: while the cache still
     * shows it, that release's own update has not arrived yet */
    char released_rv[32];
};

struct live {
    const struct ts__bench_opts *o;
    const struct ts_bench_plan *p;
    char dir[64];
    int as_pid, ctl_pid;
    struct ts_loop *loop;
    struct ts_kubeconfig kc;
    struct ts_kube_client *c;
    struct ts_informer *inf;
    struct ts_informer *cq_inf; /* ClusterQueue status, read as Kueue's runner reads it */
    struct ts_hmap queue_by_name;
    struct ts_bench_cq_usage cq_usage;
    struct ts_bench_result r;
    struct wl *w;
    struct ts_hmap by_name;
    int64_t t0;
    struct timespec
        ctl_started; /* the controller's process wall, as Kueue's runner times its own */
    size_t next_create, finished, patched, n_released, errors;
    int timed_out;
};

/* Runner offsets are from the first creation. */
static ts_time since(const struct live *x)
{
    return ts_loop_now(x->loop) - x->t0;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

    nanosleep(&ts, NULL);
}

/* The kubeconfig everyone uses: the given cluster's, or the one the
 * started server writes. */
static const char *kubeconfig_path(const struct live *x, char *buf, size_t len)
{
    if (x->o->kubeconfig)
        return x->o->kubeconfig;
    snprintf(buf, len, "%s/kubeconfig", x->dir);
    return buf;
}

static int start_apiserver(struct live *x, FILE *err)
{
    char bin[4096], kc[128], out[128], log[128];
    char *argv[] = {bin, "--listen", "127.0.0.1:0", "--kubeconfig-out", kc, NULL, NULL, NULL};
    struct stat st;

    if (x->o->kubeconfig)
        return 0;
    ts__bench_bin(x->o->bin_dir, "turnstile-apiserver", bin, sizeof(bin));
    snprintf(kc, sizeof(kc), "%s/kubeconfig", x->dir);
    snprintf(out, sizeof(out), "%s/apiserver.out", x->dir);
    snprintf(log, sizeof(log), "%s/apiserver.log", x->dir);
    if (x->o->jobs) { /* each Job's runtime is in its annotation */
        argv[5] = "--simulate-job-runtime";
        argv[6] = "1h";
    }
    if ((x->as_pid = ts__bench_spawn(argv, out, log, err)) < 0)
        return -1;
    for (int i = 0; i < 400 && (stat(kc, &st) || !st.st_size); i++)
        sleep_ms(50);
    if (stat(kc, &st) || !st.st_size) {
        fprintf(err, "error: %s did not start (see %s)\n", bin, log);
        return -1;
    }
    return 0; /* the server renames the kubeconfig into place once it listens */
}

static int connect_client(struct live *x, FILE *err)
{
    struct ts_kubeconfig_opts ko = {0};
    struct ts_kube_client_opts co = {0};
    struct ts_err e = {0};
    char kc[128];

    ko.path = kubeconfig_path(x, kc, sizeof(kc));
    ko.env_kubeconfig = "";
    co.qps = -1; /* the runner is not what is measured */
    /* told apart from the controller's ("turnstile/...") in audit logs */
    co.user_agent = "turnstilectl-bench/" TS_VERSION;
    if (ts_kubeconfig_load(&ko, &x->kc, &e) || !(x->loop = ts_loop_new()) ||
        !(x->c = ts_kube_client_new(x->loop, &x->kc, &co, &e))) {
        fprintf(err, "error: %s\n", e.msg[0] ? e.msg : "cannot create the event loop");
        return -1;
    }
    return 0;
}

static int create(struct live *x, const struct ts_kube_resource *res, const char *ns,
                  const cJSON *obj, FILE *err)
{
    struct ts_err e = {0};
    int rc = ts_kube_create_sync(x->c, res, ns, obj, NULL, &e);

    if (rc && rc != TS_EEXIST) {
        fprintf(err, "error: create %s %s: %s\n", res->kind,
                ts_json_get_string(obj, "metadata.name"), e.msg);
        return -1;
    }
    return 0;
}

static int apply_crds(struct live *x, FILE *err)
{
    const char *dir = x->o->crds ? x->o->crds : "crds";
    DIR *d = opendir(dir);
    struct dirent *de;
    int rc = 0;

    if (!d) {
        fprintf(err, "error: cannot read Kueue's CRDs in '%s' (give --crds DIR)\n", dir);
        return -1;
    }
    while (!rc && (de = readdir(d))) {
        struct ts_yaml_stream st = TS_YAML_STREAM_INIT;
        struct ts_err e = {0};
        char path[1024];
        size_t n = strlen(de->d_name);

        if (n < 5 || strcmp(de->d_name + n - 5, ".yaml") || !strchr(de->d_name, '_'))
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
        if (ts_yaml_decode_file(path, &st, &e)) {
            fprintf(err, "error: %s\n", e.msg);
            rc = -1;
        }
        for (size_t i = 0; !rc && i < st.n; i++)
            rc = create(x, &ts_kube_res_crds, NULL, st.docs[i].root, err);
        ts_yaml_stream_release(&st);
    }
    closedir(d);
    return rc;
}

/* Waits until the server serves Workloads (the CRDs are established). */
static int wait_served(struct live *x, FILE *err)
{
    for (int i = 0; i < 200; i++) {
        struct ts_kube_req r = {0};
        struct ts_err e = {0};
        cJSON *out = NULL;
        int rc;

        r.verb = TS_KUBE_LIST;
        r.res = &ts_kube_res_workloads;
        r.ns = TS_BENCH_NAMESPACE;
        r.limit = 1;
        rc = ts_kube_list_sync(x->c, &r, &out, &e);
        cJSON_Delete(out);
        if (!rc)
            return 0;
        sleep_ms(50);
    }
    fprintf(err, "error: the API server does not serve Workloads\n");
    return -1;
}

static const struct ts_kube_resource *resource_of(const cJSON *obj)
{
    const char *kind = ts_json_get_string(obj, "kind");

    return !strcmp(kind, "ResourceFlavor") ? &ts_kube_res_resourceflavors
           : !strcmp(kind, "Cohort")       ? &ts_kube_res_cohorts
           : !strcmp(kind, "ClusterQueue") ? &ts_kube_res_clusterqueues
                                           : &ts_kube_res_localqueues;
}

static int create_queues(struct live *x, FILE *err)
{
    cJSON *ns = cJSON_Parse("{\"apiVersion\":\"v1\",\"kind\":\"Namespace\","
                            "\"metadata\":{\"name\":\"" TS_BENCH_NAMESPACE "\"}}");
    const cJSON *obj;
    int rc = create(x, &ts_kube_res_namespaces, NULL, ns, err);

    cJSON_Delete(ns);
    cJSON_ArrayForEach(obj, x->p->objects)
    {
        const struct ts_kube_resource *res = resource_of(obj);

        if (!rc)
            rc = create(x, res, res->namespaced ? TS_BENCH_NAMESPACE : NULL, obj, err);
    }
    if (x->o->jobs) {
        cJSON *wpcs = ts_bench_plan_priority_classes(x->p);

        cJSON_ArrayForEach(obj, wpcs)
        {
            if (!rc)
                rc = create(x, &ts_kube_res_workloadpriorityclasses, NULL, obj, err);
        }
        cJSON_Delete(wpcs);
    }
    return rc;
}

static int start_controller(struct live *x, FILE *err)
{
    char bin[4096], kc[4096], own[128], cfg[128], log[128];
    char *argv[] = {
        bin, "--kubeconfig", kc, "--config", cfg, "--metrics-bind-address", "127.0.0.1:0", NULL};
    FILE *f;

    ts__bench_bin(x->o->bin_dir, "turnstile", bin, sizeof(bin));
    snprintf(kc, sizeof(kc), "%s", kubeconfig_path(x, own, sizeof(own)));
    snprintf(cfg, sizeof(cfg), "%s/config.yaml", x->dir);
    snprintf(log, sizeof(log), "%s/controller.log", x->dir);
    if (!(f = fopen(cfg, "w"))) {
        fprintf(err, "error: cannot write %s\n", cfg);
        return -1;
    }
    /* qps < 0: the client's limiter is off */
    fprintf(f,
            "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
            "clientConnection:\n  qps: %g\n  burst: %d\n",
            x->o->qps > 0 ? x->o->qps : -1, x->o->qps > 0 ? (int)x->o->burst : 1000000);
    fclose(f);
    clock_gettime(CLOCK_MONOTONIC, &x->ctl_started);
    return (x->ctl_pid = ts__bench_spawn(argv, log, log, err)) < 0 ? -1 : 0;
}

/* The controller is up once it wrote a ClusterQueue's status.  Under a
 * budget its first status writes (one per ClusterQueue and LocalQueue)
 * take 2 x queues / qps seconds: 40 s for the large-scale file at 50. */
static int wait_controller(struct live *x, FILE *err)
{
    double limit_s = 30 + (x->o->qps > 0 ? 2.0 * (double)x->p->n_queues / x->o->qps : 0);

    for (int i = 0; i < (int)(limit_s * 20); i++) {
        struct ts_err e = {0};
        cJSON *cq = NULL;
        int ok = !ts_kube_get_sync(x->c, &ts_kube_res_clusterqueues, NULL, x->p->queues[0].name,
                                   &cq, &e) &&
                 ts_json_get(cq, "status.conditions");

        cJSON_Delete(cq);
        if (ok)
            return 0;
        sleep_ms(50);
    }
    fprintf(
        err,
        "error: the controller wrote no ClusterQueue status in %.0f s (see %s/controller.log)\n",
        limit_s, x->dir);
    return -1;
}

static void count_error(struct ts_kube_client *c, struct ts_kube_result *res, void *data)
{
    struct live *x = data;

    (void)c;
    if (res->code) {
        if (!x->errors++)
            fprintf(stderr, "turnstilectl bench: request failed: %s\n", res->err.msg);
    }
}

/* A Finished patch is done: the run ends with the last one. */
static void patched(struct ts_kube_client *c, struct ts_kube_result *res, void *data)
{
    struct live *x = data;

    count_error(c, res, data);
    if (++x->patched == x->p->n_wls)
        ts_loop_stop(x->loop);
}

static void creations(struct ts_loop *loop, void *data)
{
    struct live *x = data;
    const struct ts_bench_plan *p = x->p;

    while (x->next_create < p->n_wls && p->wls[x->next_create].created <= since(x)) {
        size_t i = x->next_create++;
        cJSON *obj = x->o->jobs ? ts_bench_plan_job(p, i) : ts_bench_plan_workload(p, i, 0);
        struct ts_kube_req r = {0};
        struct ts_err e = {0};

        r.verb = TS_KUBE_CREATE;
        r.res = x->o->jobs ? &ts_kube_res_jobs : &ts_kube_res_workloads;
        r.ns = TS_BENCH_NAMESPACE;
        r.body = obj;
        if (ts_kube_submit(x->c, &r, count_error, x, NULL, &e))
            x->errors++;
        cJSON_Delete(obj);
    }
    if (x->next_create < p->n_wls)
        ts_loop_timer_add(loop, p->wls[x->next_create].created - since(x), creations, x);
}

static void hold_end(struct live *x, size_t i)
{
    x->w[i].running = 0;
    ts_bench_result_hold(&x->r, x->p, i, x->w[i].held_from, since(x));
}

/* Kueue's runner: a workload's runtime after its admission, it is marked
 * Finished through the status subresource. */
static void finish(struct ts_loop *loop, void *data)
{
    struct wl *w = data;
    struct live *x = w->x;
    size_t i = (size_t)(w - x->w);
    char ts[TS_TIME_STR_MAX], patch[512];
    struct ts_kube_req r = {0};
    struct ts_err e = {0};
    cJSON *body;

    hold_end(x, i);
    x->w[i].finished = 1;
    x->r.wls[i].finished = since(x);
    ts_time_format(ts_loop_wall(loop), ts, sizeof(ts));
    snprintf(patch, sizeof(patch),
             "[{\"op\":\"add\",\"path\":\"/status/conditions/-\",\"value\":{\"type\":"
             "\"Finished\",\"status\":\"True\",\"reason\":\"Succeeded\",\"message\":"
             "\"Job finished successfully\",\"lastTransitionTime\":\"%s\"}}]",
             ts);
    body = cJSON_Parse(patch);
    r.verb = TS_KUBE_PATCH;
    r.patch = TS_KUBE_PATCH_JSON;
    r.res = &ts_kube_res_workloads;
    r.ns = TS_BENCH_NAMESPACE;
    r.name = x->p->wls[i].name;
    r.subresource = "status";
    r.body = body;
    if (ts_kube_submit(x->c, &r, patched, x, NULL, &e))
        patched(x->c, &(struct ts_kube_result){.code = TS_EINVAL, .err = e}, x);
    cJSON_Delete(body);
    x->finished++;
}

/* Whether condition `type` of obj is True. */
static int condition(const cJSON *obj, const char *type)
{
    const cJSON *c;

    cJSON_ArrayForEach(c, ts_json_get(obj, "status.conditions"))
    {
        const char *t = ts_json_get_string(c, "type"), *st = ts_json_get_string(c, "status");

        if (t && st && !strcmp(t, type))
            return !strcmp(st, "True");
    }
    return 0;
}

static void release(struct live *x, struct wl *w, const cJSON *obj);

/* The cache as it is now, after a release was answered: an eviction seen
 * while the release was in flight was not acted on (a run would hang on
 * Workloads evicted again before their release's answer came), and after
 * a conflict the update that made it conflict may have arrived meanwhile
 * with no other to follow. */
static void release_again(struct ts_loop *loop, void *data)
{
    struct wl *w = data;
    struct live *x = w->x;
    const cJSON *obj = ts_informer_get_ns(x->inf, TS_BENCH_NAMESPACE, x->p->wls[w - x->w].name);
    const char *rv = obj ? ts_json_get_string(obj, "metadata.resourceVersion") : NULL;

    (void)loop;
    w->retry_timer = 0;
    if (obj && !w->finished && !w->releasing && condition(obj, "QuotaReserved") &&
        condition(obj, "Evicted") && !(rv && !strcmp(rv, w->released_rv)))
        release(x, w, obj);
}

static void released(struct ts_kube_client *c, struct ts_kube_result *res, void *data)
{
    struct wl *w = data;

    (void)c;
    w->releasing = 0;
    w->x->n_released += !res->code;
    if (res->code && res->code != TS_ECONFLICT) {
        count_error(c, res, w->x);
        return;
    }
    if (res->code) /* the cache is behind: the next look tries whatever it shows */
        w->released_rv[0] = 0;
    if (!w->retry_timer)
        w->retry_timer =
            ts_loop_timer_add(w->x->loop, res->code ? 100 * 1000 * 1000 : 0, release_again, w);
}

/* An evicted Workload has no job to stop: the runner plays the job
 * integration and releases its quota (QuotaReserved=False, admission
 * cleared), as Kueue's runner does. */
static void release(struct live *x, struct wl *w, const cJSON *obj)
{
    const char *rv;
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_object o;
    struct ts_kube_req r = {0};
    struct ts_err e = {0};
    cJSON *body = NULL;

    if (ts_object_decode(obj, &o, &errs, &e) || o.kind != TS_KIND_WORKLOAD) {
        x->errors++;
        ts_field_errors_release(&errs);
        return;
    }
    if (ts_apply_quota_released(&o.u.wl, ts_loop_wall(x->loop)))
        body = ts_workload_encode(&o.u.wl);
    ts_object_release(&o);
    ts_field_errors_release(&errs);
    if (!body)
        return;
    r.verb = TS_KUBE_UPDATE;
    r.res = &ts_kube_res_workloads;
    r.ns = TS_BENCH_NAMESPACE;
    r.name = ts_json_get_string(obj, "metadata.name");
    r.subresource = "status";
    r.body = body;
    w->releasing = 1;
    rv = ts_json_get_string(obj, "metadata.resourceVersion");
    snprintf(w->released_rv, sizeof(w->released_rv), "%s", rv ? rv : "");
    if (ts_kube_submit(x->c, &r, released, w, NULL, &e))
        released(x->c, &(struct ts_kube_result){.code = TS_EINVAL, .err = e}, w);
    cJSON_Delete(body);
}

/* --jobs: the controller marked the Workload Finished (its Job completed). */
static void job_finished(struct live *x, size_t i)
{
    if (x->w[i].running)
        hold_end(x, i);
    x->w[i].finished = 1;
    x->r.wls[i].finished = since(x);
    if (++x->finished == x->p->n_wls)
        ts_loop_stop(x->loop);
}

static void observe(struct ts_informer *inf, const cJSON *obj, void *data)
{
    struct live *x = data;
    /* --jobs: a Workload is its Job's (named after the plan's workload) */
    const char *name =
        x->o->jobs
            ? ts_json_get_string(
                  cJSON_GetArrayItem(ts_json_get(obj, "metadata.ownerReferences"), 0), "name")
            : ts_json_get_string(obj, "metadata.name");
    void *v = name ? ts_hmap_get(&x->by_name, name) : NULL;
    size_t i = (size_t)(uintptr_t)v - 1;
    struct wl *w;
    int held = condition(obj, "QuotaReserved");

    (void)inf;
    if (!v)
        return;
    w = &x->w[i];
    if (w->finished)
        return;
    if (held && !w->running) {
        w->running = 1;
        w->held_from = since(x);
        x->r.admissions++;
        if (x->r.wls[i].admitted < 0)
            x->r.wls[i].admitted = w->held_from;
        if (!x->o->jobs)
            w->timer = ts_loop_timer_add(x->loop, x->p->wls[i].runtime, finish, w);
    }
    if (x->o->jobs && condition(obj, "Finished")) {
        job_finished(x, i);
    } else if (x->o->jobs && held && condition(obj, "Evicted")) {
        /* the controller stops the Job and releases the quota */
    } else if (held && condition(obj, "Evicted")) {
        ts_loop_timer_cancel(x->loop, w->timer); /* its pods stop: the run is lost */
        if (!w->releasing)
            release(x, w, obj);
    } else if (!held && w->running) { /* released: it starts over when admitted again */
        hold_end(x, i);
        x->r.wls[i].evictions++;
    }
}

static void on_add(struct ts_informer *inf, const cJSON *obj, void *data)
{
    observe(inf, obj, data);
}

static void on_update(struct ts_informer *inf, const cJSON *old, const cJSON *obj, void *data)
{
    (void)old;
    observe(inf, obj, data);
}

/* A ClusterQueue status: its cpu usage (the first flavor's first
 * resource, as Kueue's recorder reads it) from now on. */
static void observe_cq(struct ts_informer *inf, const cJSON *obj, void *data)
{
    struct live *x = data;
    const char *name = ts_json_get_string(obj, "metadata.name");
    void *v = name ? ts_hmap_get(&x->queue_by_name, name) : NULL;

    (void)inf;
    if (!v)
        return;
    ts_loop_update_time(x->loop);
    ts_bench_cq_usage_observe_cq(&x->cq_usage, (size_t)(uintptr_t)v - 1,
                                 (double)ts_loop_now(x->loop) / 1e6, obj);
}

static void on_cq_add(struct ts_informer *inf, const cJSON *obj, void *data)
{
    observe_cq(inf, obj, data);
}

static void on_cq_update(struct ts_informer *inf, const cJSON *old, const cJSON *obj, void *data)
{
    (void)old;
    observe_cq(inf, obj, data);
}

static void give_up(struct ts_loop *loop, void *data)
{
    ((struct live *)data)->timed_out = 1;
    ts_loop_stop(loop);
}

static int watch_and_run(struct live *x, FILE *err)
{
    struct ts_informer_opts io = {0};
    struct ts_informer_handlers h = {on_add, on_update, NULL, x};
    struct ts_informer_handlers hq = {on_cq_add, on_cq_update, NULL, x};
    struct ts_informer_opts qo = {0};
    struct ts_err e = {0};

    for (size_t i = 0; i < x->p->n_queues; i++)
        ts_hmap_put(&x->queue_by_name, x->p->queues[i].name, (void *)(uintptr_t)(i + 1));
    qo.res = &ts_kube_res_clusterqueues;
    x->cq_inf = ts_informer_new(x->c, &qo);
    if (ts_informer_add_handlers(x->cq_inf, &hq) || ts_informer_start(x->cq_inf, &e)) {
        fprintf(err, "error: cannot watch ClusterQueues: %s\n", e.msg);
        return -1;
    }
    io.res = &ts_kube_res_workloads;
    io.ns = TS_BENCH_NAMESPACE;
    x->inf = ts_informer_new(x->c, &io);
    if (ts_informer_add_handlers(x->inf, &h) || ts_informer_start(x->inf, &e)) {
        fprintf(err, "error: cannot watch Workloads: %s\n", e.msg);
        return -1;
    }
    while (!ts_informer_has_synced(x->inf) || !ts_informer_has_synced(x->cq_inf))
        ts_loop_run_once(x->loop, 50 * 1000 * 1000);
    for (size_t i = 0; i < x->p->n_wls; i++)
        ts_hmap_put(&x->by_name, x->p->wls[i].name, (void *)(uintptr_t)(i + 1));
    ts_loop_update_time(x->loop);
    x->t0 = ts_loop_now(x->loop);
    ts_loop_timer_add(x->loop, (int64_t)(x->o->timeout_s * 1e9), give_up, x);
    creations(x->loop, x);
    ts_loop_run(x->loop);
    if (x->timed_out)
        fprintf(err, "error: gave up after %.0f s with %zu of %zu workloads finished\n",
                x->o->timeout_s, x->finished, x->p->n_wls);
    return x->timed_out ? -1 : 0;
}

/* On a cluster given by --kubeconfig: deletes what the plan made (every
 * object carries its cleanup label), namespaced kinds in the bench's
 * namespace, the others cluster-wide by the label only.  Best effort:
 * says what it could not delete. */
static void cleanup(struct live *x, FILE *err)
{
    struct ts_kube_client_opts co = {0};
    struct ts_kube_client *c = NULL;
    struct ts_err ce = {0};
    /* the run's loop is stopped for good: a loop of its own */
    struct ts_loop *loop = ts_loop_new();
    static const struct ts_kube_resource *const res[] = {
        &ts_kube_res_workloads, &ts_kube_res_localqueues,     &ts_kube_res_clusterqueues,
        &ts_kube_res_cohorts,   &ts_kube_res_resourceflavors, &ts_kube_res_workloadpriorityclasses};

    co.qps = -1;
    co.user_agent = "turnstilectl-bench/" TS_VERSION;
    if (!loop || !(c = ts_kube_client_new(loop, &x->kc, &co, &ce))) {
        fprintf(err, "warning: cleanup: %s\n", ce.msg[0] ? ce.msg : "no event loop");
        ts_loop_free(loop);
        return;
    }
    for (size_t i = 0; i < sizeof(res) / sizeof(res[0]); i++) {
        struct ts_kube_req r = {0};
        struct ts_err e = {0};

        r.verb = TS_KUBE_DELETE_COLLECTION;
        r.res = res[i];
        r.ns = res[i]->namespaced ? TS_BENCH_NAMESPACE : NULL;
        r.label_selector = TS_BENCH_CLEANUP_LABEL "=true";
        if (ts_kube_do(c, &r, NULL, &e) && e.code != TS_ENOTFOUND)
            fprintf(err, "warning: cleanup: cannot delete %s: %s\n", res[i]->resource, e.msg);
    }
    ts_kube_client_free(c);
    ts_loop_free(loop);
}

static void teardown(struct live *x, struct ts__bench_live *out, FILE *err)
{
    struct rusage ru;
    char log[128];

    if (x->ctl_pid > 0 && !ts__bench_stop(x->ctl_pid, SIGTERM, 10, &ru)) {
        struct timespec now;

        clock_gettime(CLOCK_MONOTONIC, &now);
        out->ctl_wall_s = (double)(now.tv_sec - x->ctl_started.tv_sec) +
                          (double)(now.tv_nsec - x->ctl_started.tv_nsec) / 1e9;
        out->user_ms = (double)ru.ru_utime.tv_sec * 1e3 + (double)ru.ru_utime.tv_usec / 1e3;
        out->sys_ms = (double)ru.ru_stime.tv_sec * 1e3 + (double)ru.ru_stime.tv_usec / 1e3;
        out->cpu_s = (out->user_ms + out->sys_ms) / 1e3;
        out->rss_kib = (double)ru.ru_maxrss;
    }
    ts_informer_free(x->inf);
    ts_informer_free(x->cq_inf);
    x->inf = x->cq_inf = NULL;
    out->n_kueue_usage = x->p->n_queue_classes;
    out->kueue_usage = ts_xcalloc(x->p->n_queue_classes + 1, sizeof(*out->kueue_usage));
    for (size_t k = 0; k < x->p->n_queue_classes; k++)
        out->kueue_usage[k] = ts_bench_cq_usage_percent(&x->cq_usage, x->p, k);
    if (x->o->kubeconfig && !x->o->no_cleanup)
        cleanup(x, err);
    ts_kube_client_free(x->c);
    ts_loop_free(x->loop);
    ts_kubeconfig_release(&x->kc);
    if (x->as_pid > 0)
        ts__bench_stop(x->as_pid, SIGTERM, 10, NULL);
    /* what remains after the runner's creates, Finished patches and
     * quota releases; with --jobs the controller makes the creates and
     * the Finished writes itself: they are left out alike */
    out->runner_wl_writes = x->p->n_wls + (x->o->jobs ? x->finished : x->patched + x->n_released);
    if (x->o->kubeconfig) { /* the cluster's server: its writes are counted there, if at all */
        out->writes_counted = 0;
        return;
    }
    snprintf(log, sizeof(log), "%s/apiserver.log", x->dir);
    if (ts__bench_count_writes(log, &out->writes, &out->ctl_wl_writes))
        fprintf(err, "warning: cannot read %s\n", log);
    out->writes_counted = 1;
    out->ctl_wl_writes -=
        out->ctl_wl_writes >= out->runner_wl_writes ? out->runner_wl_writes : out->ctl_wl_writes;
}

/* Removes the run's directory (its few files). */
static void remove_dir(const char *dir)
{
    static const char *const files[] = {"kubeconfig", "config.yaml", "apiserver.out",
                                        "apiserver.log", "controller.log"};
    char path[160];

    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(dir);
}

int ts__bench_live_run(const struct ts__bench_opts *o, const struct ts_bench_plan *plan,
                       struct ts_bench_report *rep, struct ts__bench_live *live, FILE *err)
{
    struct live x;
    int rc;

    memset(&x, 0, sizeof(x));
    memset(live, 0, sizeof(*live));
    ts_buf_init(&live->writes, 0);
    x.o = o;
    x.p = plan;
    snprintf(x.dir, sizeof(x.dir), "/tmp/ts-bench.XXXXXX");
    if (!mkdtemp(x.dir)) {
        fprintf(err, "error: cannot create a temporary directory\n");
        return 1;
    }
    ts_bench_result_init(&x.r, plan);
    ts_bench_cq_usage_init(&x.cq_usage, plan);
    x.w = ts_xcalloc(plan->n_wls + 1, sizeof(*x.w));
    for (size_t i = 0; i < plan->n_wls; i++)
        x.w[i].x = &x;
    rc = start_apiserver(&x, err) || connect_client(&x, err) || apply_crds(&x, err) ||
         wait_served(&x, err) || create_queues(&x, err) || start_controller(&x, err) ||
         wait_controller(&x, err) || watch_and_run(&x, err);
    live->admissions = x.r.admissions;
    teardown(&x, live, err);
    ts_bench_report_build(plan, &x.r, rep);
    if (!rc && o->series)
        rc = ts__bench_write_series(o->series, plan, &x.r, err);
    live->wall_s = rep->wall;
    if (x.errors)
        fprintf(err, "warning: %zu runner request(s) failed\n", x.errors);
    if (o->keep || rc)
        fprintf(err, "logs: %s\n", x.dir);
    else
        remove_dir(x.dir);
    ts_hmap_release(&x.by_name);
    ts_hmap_release(&x.queue_by_name);
    ts_bench_cq_usage_release(&x.cq_usage);
    ts_bench_result_release(&x.r);
    free(x.w);
    return rc ? 1 : 0;
}
