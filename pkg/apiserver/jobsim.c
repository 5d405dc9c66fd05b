/*
 * jobsim.c - --simulate-job-runtime: a stand-in for kube-controller-manager
 * and the kubelets for batch/v1 Jobs and the kubeflow.org jobs Turnstile
 * manages (PyTorchJob, TFJob, MPIJob, XGBoostJob, PaddleJob, JAXJob: one
 * shape, api/pytorchjob.h), for the JobSet controller (jobset.x-k8s.io
 * JobSets), for KubeRay's RayJob and RayCluster (their status:
 * jobsim_ray.c) and for Kubeflow Trainer's TrainJobs (jobsStatus, one
 * entry per replicated job of Kueue's runtime patch; Complete as the
 * Trainer copies its JobSet's Completed condition).  An unsuspended job gets startTime (a JobSet:
 * active replicated jobs) and ready/active counts; after the runtime (or the job's
 * turnstile.dev/simulated-runtime annotation) it completes with the status a real controller writes
 * (a RayCluster runs until deleted); suspending it clears active and startTime.
 *
 * One thread, woken by every write (the store broadcasts the condition
 * variable) or by the nearest deadline.  It follows the event history
 * from the last revision it saw, so each write costs one object check;
 * when the history has moved past it, it rescans everything.  Status
 * writes go straight to the store (as the job controller's /status
 * writes would, without admission).
 */
#include "apiserver/server_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/jobset.h"
#include "api/pytorchjob.h"
#include "api/trainjob.h"
#include "json/json.h"
#include "util/alloc.h"
#include "util/log.h"

#define RUNTIME_ANNOTATION "turnstile.dev/simulated-runtime"

struct sim_run {
    struct ts__as_res *res;
    char *key; /* "ns/name" */
    ts_time deadline;
};

struct ts__as_jobsim {
    pthread_t th;
    int64_t seen;
    struct sim_run *run;
    size_t n, cap;
};

static ts_time now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (ts_time)ts.tv_sec * TS_TIME_SECOND + ts.tv_nsec;
}

/* Go time.ParseDuration subset: sequences of <number><unit> with units
 * ns, us, ms, s, m, h and decimal fractions ("1m30s", "1.5s"). */
int ts_apiserver_parse_duration(const char *s, int64_t *out)
{
    static const struct {
        const char *u;
        double mul;
    } units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"m", 60e9}, {"h", 3600e9}};
    double total = 0;

    if (!s || !*s)
        return TS_EPARSE;
    if (!strcmp(s, "0"))
        return *out = 0, 0;
    while (*s) {
        char *end;
        double v = strtod(s, &end);
        size_t best = 0, bl = 0;

        if (end == s || v < 0)
            return TS_EPARSE;
        for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
            size_t l = strlen(units[i].u);
            if (!strncmp(end, units[i].u, l) && l > bl)
                best = i, bl = l;
        }
        if (!bl)
            return TS_EPARSE;
        total += v * units[best].mul;
        s = end + bl;
    }
    *out = (ts_time)total;
    return 0;
}

/* The Kubeflow kind res stores, or NULL. */
static const struct ts_kf_kind *kubeflow(const struct ts__as_res *res)
{
    if (res->kindid != TS__AS_CR || strcmp(res->group, "kubeflow.org"))
        return NULL;
    return ts_kf_kind_of(res->kind);
}

static int jobset(const struct ts__as_res *res)
{
    return res->kindid == TS__AS_CR && !strcmp(res->group, TS_JOBSET_GROUP) &&
           !strcmp(res->kind, TS_JOBSET_KIND);
}

static int trainjob(const struct ts__as_res *res)
{
    return res->kindid == TS__AS_CR && !strcmp(res->group, TS_TRAINER_GROUP) &&
           !strcmp(res->kind, TS_TRAINJOB_KIND);
}

static int simulated(const struct ts__as_res *res)
{
    return !res->dead && (res->kindid == TS__AS_JOB || kubeflow(res) || jobset(res) ||
                          ts__as_ray_kind(res) || trainjob(res));
}

static int cond_true(const cJSON *obj, const char *type)
{
    const cJSON *c;

    cJSON_ArrayForEach(c, ts_json_get(obj, "status.conditions"))
    {
        const char *t = ts_json_get_string(c, "type"), *st = ts_json_get_string(c, "status");
        if (t && st && !strcmp(t, type) && !strcmp(st, "True"))
            return 1;
    }
    return 0;
}

/* Sets (or replaces) condition `type` in obj's status.conditions. */
static void set_cond(cJSON *obj, const char *type, const char *st, const char *reason,
                     const char *msg, const char *now)
{
    cJSON *conds = ts_json_get(obj, "status.conditions"), *c, *nc;

    if (!cJSON_IsArray(conds)) {
        conds = cJSON_CreateArray();
        ts_json_set(obj, "status.conditions", conds, NULL);
    }
    cJSON_ArrayForEach(c, conds)
    {
        const char *t = ts_json_get_string(c, "type");
        if (t && !strcmp(t, type))
            break;
    }
    if (c && !strcmp(ts_json_get_string(c, "status") ? ts_json_get_string(c, "status") : "", st) &&
        !strcmp(ts_json_get_string(c, "reason") ? ts_json_get_string(c, "reason") : "", reason))
        return;
    nc = cJSON_CreateObject();
    cJSON_AddStringToObject(nc, "type", type);
    cJSON_AddStringToObject(nc, "status", st);
    cJSON_AddStringToObject(nc, "lastProbeTime", now);
    cJSON_AddStringToObject(nc, "lastTransitionTime", now);
    cJSON_AddStringToObject(nc, "reason", reason);
    cJSON_AddStringToObject(nc, "message", msg);
    if (c)
        cJSON_ReplaceItemViaPointer(conds, c, nc);
    else
        cJSON_AddItemToArray(conds, nc);
}

static void set_num(cJSON *obj, const char *path, int64_t v)
{
    ts_json_set(obj, path, cJSON_CreateNumber((double)v), NULL);
}

static int64_t get_num(const cJSON *obj, const char *path, int64_t dflt)
{
    int64_t v;

    return ts_json_get_i64(ts_json_get(obj, path), &v) ? dflt : v;
}

static ts_time runtime_of(const struct ts_apiserver *s, const cJSON *obj)
{
    const char *a = ts_json_get_string(obj, "metadata.annotations[" RUNTIME_ANNOTATION "]");
    ts_time d;

    if (a && !ts_apiserver_parse_duration(a, &d))
        return d;
    return s->opts.simulate_job_runtime;
}

static int suspended(const struct ts__as_res *res, const cJSON *obj)
{
    return cJSON_IsTrue(
        ts_json_get(obj, kubeflow(res) ? "spec.runPolicy.suspend" : "spec.suspend"));
}

static int finished(const struct ts__as_res *res, const cJSON *obj)
{
    if (ts__as_ray_kind(res))
        return ts__as_ray_finished(ts__as_ray_kind(res), obj);
    if (kubeflow(res))
        return cond_true(obj, "Succeeded") || cond_true(obj, "Failed");
    if (jobset(res))
        return cond_true(obj, "Completed") || cond_true(obj, "Failed");
    if (trainjob(res))
        return cond_true(obj, "Complete") || cond_true(obj, "Failed");
    return cond_true(obj, "Complete") || cond_true(obj, "Failed");
}

/* --- status transitions (each edits a copy of the stored object) ------- */

static void job_start(cJSON *obj, const char *now)
{
    int64_t p = get_num(obj, "spec.parallelism", 1);
    int64_t c = get_num(obj, "spec.completions", p);
    int64_t left = c - get_num(obj, "status.succeeded", 0), a = p < left ? p : left;

    ts_json_set_string(obj, "status.startTime", now, NULL);
    set_num(obj, "status.active", a > 0 ? a : 0);
    set_num(obj, "status.ready", a > 0 ? a : 0);
    set_num(obj, "status.terminating", 0);
    if (!ts_json_get(obj, "status.uncountedTerminatedPods"))
        ts_json_set(obj, "status.uncountedTerminatedPods", cJSON_CreateObject(), NULL);
    if (ts_json_get(obj, "status.conditions"))
        set_cond(obj, "Suspended", "False", "JobResumed", "Job resumed", now);
}

static void job_complete(cJSON *obj, const char *now)
{
    int64_t p = get_num(obj, "spec.parallelism", 1), c = get_num(obj, "spec.completions", p);
    const char *mode = ts_json_get_string(obj, "spec.completionMode");
    cJSON *st = ts_json_get(obj, "status");
    char idx[48];

    cJSON_DeleteItemFromObjectCaseSensitive(st, "active");
    set_num(obj, "status.ready", 0);
    set_num(obj, "status.terminating", 0);
    set_num(obj, "status.succeeded", c);
    ts_json_set_string(obj, "status.completionTime", now, NULL);
    if (mode && !strcmp(mode, "Indexed") && c > 0) {
        if (c == 1)
            snprintf(idx, sizeof(idx), "0");
        else
            snprintf(idx, sizeof(idx), "0-%lld", (long long)(c - 1));
        ts_json_set_string(obj, "status.completedIndexes", idx, NULL);
    }
    set_cond(obj, "SuccessCriteriaMet", "True", "CompletionsReached",
             "Reached expected number of succeeded pods", now);
    set_cond(obj, "Complete", "True", "CompletionsReached",
             "Reached expected number of succeeded pods", now);
}

static void job_suspend(cJSON *obj, const char *now)
{
    cJSON *st = ts_json_get(obj, "status");

    cJSON_DeleteItemFromObjectCaseSensitive(st, "active");
    cJSON_DeleteItemFromObjectCaseSensitive(st, "startTime");
    set_num(obj, "status.ready", 0);
    set_cond(obj, "Suspended", "True", "JobSuspended", "Job suspended", now);
}

static void pt_replicas(const struct ts_kf_kind *k, cJSON *obj, const char *field, int zero)
{
    cJSON *rs = cJSON_CreateObject();
    const cJSON *spec;

    cJSON_ArrayForEach(spec,
                       cJSON_GetObjectItemCaseSensitive(ts_json_get(obj, "spec"), k->replicas_key))
    {
        cJSON *one = cJSON_AddObjectToObject(rs, spec->string);
        int64_t n = get_num(spec, "replicas", 1);

        if (!zero)
            cJSON_AddNumberToObject(one, field, (double)n);
    }
    ts_json_set(obj, "status.replicaStatuses", rs, NULL);
}

/* The operator's message ("TFJob ns/name is running.") and reason
 * ("TFJobRunning"). */
static void pt_msg(const struct ts_kf_kind *k, const cJSON *obj, const char *what, char *out,
                   size_t len)
{
    snprintf(out, len, "%s %s/%s %s.", k->kind, ts_json_get_string(obj, "metadata.namespace"),
             ts_json_get_string(obj, "metadata.name"), what);
}

static const char *pt_reason(const struct ts_kf_kind *k, const char *what, char *out, size_t len)
{
    snprintf(out, len, "%s%s", k->kind, what);
    return out;
}

static void pt_start(const struct ts_kf_kind *k, cJSON *obj, const char *now)
{
    char m[600], r[64];

    ts_json_set_string(obj, "status.startTime", now, NULL);
    pt_msg(k, obj, "is created", m, sizeof(m));
    set_cond(obj, "Created", "True", pt_reason(k, "Created", r, sizeof(r)), m, now);
    if (cond_true(obj, "Suspended") || ts_json_get(obj, "status.conditions[0]")) {
        const cJSON *c;
        cJSON_ArrayForEach(c, ts_json_get(obj, "status.conditions"))
        {
            const char *t = ts_json_get_string(c, "type");
            if (t && !strcmp(t, "Suspended")) {
                pt_msg(k, obj, "is resumed", m, sizeof(m));
                set_cond(obj, "Suspended", "False", pt_reason(k, "Resumed", r, sizeof(r)), m, now);
                break;
            }
        }
    }
    pt_msg(k, obj, "is running", m, sizeof(m));
    set_cond(obj, "Running", "True", pt_reason(k, "Running", r, sizeof(r)), m, now);
    pt_replicas(k, obj, "active", 0);
}

static void pt_complete(const struct ts_kf_kind *k, cJSON *obj, const char *now)
{
    char m[600], r[64];

    pt_msg(k, obj, "successfully completed", m, sizeof(m));
    set_cond(obj, "Running", "False", pt_reason(k, "Succeeded", r, sizeof(r)), m, now);
    set_cond(obj, "Succeeded", "True", pt_reason(k, "Succeeded", r, sizeof(r)), m, now);
    ts_json_set_string(obj, "status.completionTime", now, NULL);
    pt_replicas(k, obj, "succeeded", 0);
}

static void pt_suspend(const struct ts_kf_kind *k, cJSON *obj, const char *now)
{
    char m[600], r[64];

    cJSON_DeleteItemFromObjectCaseSensitive(ts_json_get(obj, "status"), "startTime");
    pt_msg(k, obj, "is suspended", m, sizeof(m));
    set_cond(obj, "Running", "False", pt_reason(k, "Suspended", r, sizeof(r)), m, now);
    set_cond(obj, "Suspended", "True", pt_reason(k, "Suspended", r, sizeof(r)), m, now);
    pt_replicas(k, obj, "active", 1);
}

/* --- JobSet (sigs.k8s.io/jobset pkg/controllers, pkg/constants) --------- */

/* `at` (a JobSet's status.replicatedJobsStatus, a TrainJob's
 * status.jobsStatus): for each of the replicated jobs rjs, `field`
 * ("active", "succeeded", "suspended") is its replicas, the others 0;
 * "active" counts them ready too. */
static void statuses(cJSON *obj, const cJSON *rjs, const char *at, const char *field)
{
    cJSON *a = cJSON_CreateArray();
    const cJSON *rj;

    cJSON_ArrayForEach(rj, rjs)
    {
        static const char *const fields[] = {"ready", "succeeded", "failed", "active", "suspended"};
        cJSON *one = cJSON_CreateObject();
        int64_t n = get_num(rj, "replicas", 1);
        const char *name = ts_json_get_string(rj, "name");

        cJSON_AddStringToObject(one, "name", name ? name : "");
        for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
            int on = !strcmp(fields[i], field) || (!strcmp(field, "active") && !i);

            cJSON_AddNumberToObject(one, fields[i], on ? (double)n : 0);
        }
        cJSON_AddItemToArray(a, one);
    }
    ts_json_set(obj, at, a, NULL);
}

static void js_statuses(cJSON *obj, const char *field)
{
    statuses(obj, ts_json_get(obj, "spec.replicatedJobs"), "status.replicatedJobsStatus", field);
}

static int js_started(const cJSON *obj, const char *at)
{
    const cJSON *st;

    cJSON_ArrayForEach(st, ts_json_get(obj, at))
    {
        if (get_num(st, "active", 0) > 0)
            return 1;
    }
    return 0;
}

static void js_start(cJSON *obj, const char *now)
{
    if (ts_json_get(obj, "status.conditions"))
        set_cond(obj, "Suspended", "False", "ResumeJobs", "jobset is resumed", now);
    js_statuses(obj, "active");
}

static void js_complete(cJSON *obj, const char *now)
{
    js_statuses(obj, "succeeded");
    set_cond(obj, "Completed", "True", "AllJobsCompleted", "jobset completed successfully", now);
    ts_json_set_string(obj, "status.terminalState", "Completed", NULL);
}

static void js_suspend(cJSON *obj, const char *now)
{
    js_statuses(obj, "suspended");
    set_cond(obj, "Suspended", "True", "SuspendedJobs", "jobset is suspended", now);
}

/* --- TrainJob (Kubeflow Trainer pkg/controller, plugins/jobset Status) --- */

/* A TrainJob's jobs: the replicated jobs of Kueue's runtime patch (one per
 * admitted pod set), else one "node". */
static void tj_statuses(cJSON *obj, const char *field)
{
    const cJSON *p = ts_trainjob_json_patch(obj, TS_TRAINJOB_PATCH_MANAGER);
    const cJSON *rjs = ts_json_get(p, "trainingRuntimeSpec.template.spec.replicatedJobs");
    cJSON *dflt = NULL;

    if (!cJSON_GetArraySize(rjs)) {
        cJSON *one = cJSON_CreateObject();

        cJSON_AddStringToObject(one, "name", "node");
        cJSON_AddItemToArray((dflt = cJSON_CreateArray()), one);
        rjs = dflt;
    }
    statuses(obj, rjs, "status.jobsStatus", field);
    cJSON_Delete(dflt);
}

static void tj_start(cJSON *obj, const char *now)
{
    if (ts_json_get(obj, "status.conditions"))
        set_cond(obj, "Suspended", "False", "Resumed", "TrainJob is resumed", now);
    tj_statuses(obj, "active");
}

static void tj_complete(cJSON *obj, const char *now)
{
    tj_statuses(obj, "succeeded");
    set_cond(obj, "Complete", "True", "AllJobsCompleted", "jobset completed successfully", now);
}

static void tj_suspend(cJSON *obj, const char *now)
{
    tj_statuses(obj, "suspended");
    set_cond(obj, "Suspended", "True", "Suspended", "TrainJob is suspended", now);
}

/* --- the run list --------------------------------------------------------- */

static struct sim_run *run_find(struct ts__as_jobsim *js, const struct ts__as_res *res,
                                const char *key)
{
    for (size_t i = 0; i < js->n; i++)
        if (js->run[i].res == res && !strcmp(js->run[i].key, key))
            return &js->run[i];
    return NULL;
}

static void run_drop(struct ts__as_jobsim *js, const struct ts__as_res *res, const char *key)
{
    struct sim_run *r = run_find(js, res, key);

    if (!r)
        return;
    free(r->key);
    *r = js->run[--js->n];
}

static void run_set(struct ts__as_jobsim *js, struct ts__as_res *res, const char *key,
                    ts_time deadline)
{
    struct sim_run *r = run_find(js, res, key);

    if (!r) {
        TS_GROW(js->run, js->cap, js->n + 1);
        r = &js->run[js->n++];
        r->res = res;
        r->key = ts_xstrdup(key);
    }
    r->deadline = deadline;
}

enum sim_step {
    SIM_START = 0,
    SIM_COMPLETE,
    SIM_SUSPEND,
};

/* The status the kind's controller writes for `step`, into obj. */
static void transition(const struct ts__as_res *res, cJSON *obj, enum sim_step step,
                       const char *now)
{
    static void (*const job[])(cJSON *, const char *) = {job_start, job_complete, job_suspend};
    static void (*const js[])(cJSON *, const char *) = {js_start, js_complete, js_suspend};
    static void (*const tj[])(cJSON *, const char *) = {tj_start, tj_complete, tj_suspend};
    static void (*const kf[])(const struct ts_kf_kind *, cJSON *,
                              const char *) = {pt_start, pt_complete, pt_suspend};
    static void (*const ray[])(enum ts__as_ray, cJSON *, const char *) = {
        ts__as_ray_start, ts__as_ray_complete, ts__as_ray_suspend};
    const struct ts_kf_kind *pt = kubeflow(res);
    enum ts__as_ray rk = ts__as_ray_kind(res);

    if (rk)
        ray[step](rk, obj, now);
    else if (pt)
        kf[step](pt, obj, now);
    else if (jobset(res))
        js[step](obj, now);
    else if (trainjob(res))
        tj[step](obj, now);
    else
        job[step](obj, now);
}

/* Decides the next state of one job and writes it when it changes. */
static void evaluate(struct ts_apiserver *s, struct ts__as_res *res, struct ts__as_obj *o,
                     ts_time now)
{
    struct ts__as_jobsim *js = s->jobsim;
    const cJSON *cur = o->json;
    enum ts__as_ray ray = ts__as_ray_kind(res);
    char key[600], ts[TS_TIME_STR_MAX];
    const char *start = ts_json_get_string(cur, "status.startTime");
    int started = ray             ? ts__as_ray_started(ray, cur)
                  : jobset(res)   ? js_started(cur, "status.replicatedJobsStatus")
                  : trainjob(res) ? js_started(cur, "status.jobsStatus")
                                  : start != NULL;
    struct sim_run *r;
    cJSON *obj;

    snprintf(key, sizeof(key), "%s/%s", ts_json_get_string(cur, "metadata.namespace"),
             ts_json_get_string(cur, "metadata.name"));
    if (ts_json_get(cur, "metadata.deletionTimestamp") || finished(res, cur)) {
        run_drop(js, res, key);
        return;
    }
    ts_time_format(now, ts, sizeof(ts));
    obj = cJSON_Duplicate(cur, 1);
    if (suspended(res, cur)) {
        run_drop(js, res, key);
        transition(res, obj, SIM_SUSPEND, ts);
    } else if (!started) {
        transition(res, obj, SIM_START, ts);
        if (ray != TS__AS_RAY_CLUSTER) /* a RayCluster runs until deleted */
            run_set(js, res, key, now + runtime_of(s, cur));
    } else if (ray != TS__AS_RAY_CLUSTER) {
        ts_time t0 = now;
        if (!(r = run_find(js, res, key))) {
            if (start) /* a JobSet has no start time: its runtime starts now */
                ts_time_parse(start, &t0);
            run_set(js, res, key, t0 + runtime_of(s, cur));
            r = run_find(js, res, key);
        }
        if (r && r->deadline <= now) {
            transition(res, obj, SIM_COMPLETE, ts);
            run_drop(js, res, key);
        }
    }
    if (ts_json_equal(obj, cur))
        cJSON_Delete(obj);
    else
        ts__as_store_put(s, res, obj);
}

static void scan_all(struct ts_apiserver *s, ts_time now)
{
    for (size_t i = 0; i < s->n_res; i++) {
        struct ts__as_obj **objs;
        size_t n;

        if (!simulated(s->res[i]))
            continue;
        objs = ts__as_store_list(s->res[i], NULL, &n);
        for (size_t j = 0; j < n; j++)
            ts__as_obj_ref(objs[j]);
        for (size_t j = 0; j < n; j++) {
            evaluate(s, s->res[i], objs[j], now);
            ts__as_obj_unref(objs[j]);
        }
        free(objs);
    }
}

/* Objects named by the events after js->seen (current state, deduped by
 * checking that the event is that object's latest). */
static void follow_events(struct ts_apiserver *s, ts_time now)
{
    struct ts__as_jobsim *js = s->jobsim;
    int64_t upto = s->rv;

    if (js->seen < s->ring_floor) {
        scan_all(s, now);
    } else {
        for (size_t i = ts__as_ring_seek(s, js->seen); i < s->ring_n; i++) {
            struct ts__as_event *e = ts__as_ring_at(s, i);
            struct ts__as_obj *o;

            if (e->rv > upto || e->type == TS__AS_DELETED || !simulated(e->res))
                continue;
            o = ts__as_store_get(e->res, ts_json_get_string(e->obj->json, "metadata.namespace"),
                                 ts_json_get_string(e->obj->json, "metadata.name"));
            if (o == e->obj)
                evaluate(s, e->res, o, now);
        }
    }
    js->seen = s->rv;
}

static struct sim_run *first_due(struct ts__as_jobsim *js, ts_time now, ts_time *next)
{
    struct sim_run *hit = NULL;

    for (size_t i = 0; i < js->n; i++) {
        if (js->run[i].deadline <= now)
            hit = &js->run[i];
        else if (js->run[i].deadline < *next)
            *next = js->run[i].deadline;
    }
    return hit;
}

/* Completes the jobs whose runtime is over; *next is the nearest
 * deadline left (at most a second away). */
static void due(struct ts_apiserver *s, ts_time now, ts_time *next)
{
    struct ts__as_jobsim *js = s->jobsim;
    struct sim_run *r;

    *next = now + TS_TIME_SECOND;
    while ((r = first_due(js, now, next))) {
        struct ts__as_res *res = r->res;
        const char *slash = strchr(r->key, '/');
        char ns[300], *key = ts_xstrdup(r->key);
        struct ts__as_obj *o;

        snprintf(ns, sizeof(ns), "%.*s", (int)(slash - r->key), r->key);
        o = res->dead ? NULL : ts__as_store_get(res, ns, slash + 1);
        if (o)
            evaluate(s, res, o, now);
        if ((r = run_find(js, res, key)) && r->deadline <= now)
            run_drop(js, res, key);
        free(key);
    }
}

static void *sim_main(void *arg)
{
    struct ts_apiserver *s = arg;
    ts_time next;
    struct timespec dl;

    pthread_mutex_lock(&s->mu);
    while (!s->stopping) {
        ts_time now = now_ns();

        follow_events(s, now);
        due(s, now, &next);
        ts__as_wal_sync(s);
        s->jobsim->seen = s->rv; /* our own writes need no second look */
        dl.tv_sec = (time_t)(next / TS_TIME_SECOND);
        dl.tv_nsec = (long)(next % TS_TIME_SECOND);
        pthread_cond_timedwait(&s->cond, &s->mu, &dl);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

int ts__as_jobsim_start(struct ts_apiserver *s, struct ts_err *err)
{
    s->jobsim = ts_xcalloc(1, sizeof(*s->jobsim));
    if (pthread_create(&s->jobsim->th, NULL, sim_main, s)) {
        free(s->jobsim);
        s->jobsim = NULL;
        return ts_err_set(err, TS_EIO, "cannot start the job simulator thread");
    }
    ts_log_info("apiserver", "simulating job runtime=%lldms",
                (long long)(s->opts.simulate_job_runtime / 1000000));
    return 0;
}

void ts__as_jobsim_stop(struct ts_apiserver *s)
{
    if (!s->jobsim)
        return;
    pthread_join(s->jobsim->th, NULL);
    for (size_t i = 0; i < s->jobsim->n; i++)
        free(s->jobsim->run[i].key);
    free(s->jobsim->run);
    free(s->jobsim);
    s->jobsim = NULL;
}
