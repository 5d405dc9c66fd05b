/*
 * manager_int.h - the controller manager's state, shared by manager.c
 * (setup, informers, run), feed.c (informer events -> engine),
 * sched.c (cycles -> Workload status) and jobs.c (job reconciler).
 */
#ifndef TS_CONTROLLER_MANAGER_INT_H
#define TS_CONTROLLER_MANAGER_INT_H

#include "controller/jobkind.h"
#include "controller/manager.h"
#include "engine/engine.h"
#include "kube/client.h"
#include "kube/events.h"
#include "kube/informer.h"
#include "kube/kubeconfig.h"
#include "kube/leader.h"
#include "kube/loop.h"
#include "kube/ratelimit.h"
#include "kube/workqueue.h"
#include "metrics/kueue.h"
#include "metrics/server.h"
#include "util/hmap.h"

enum ts__ctl_inf {
    TS__CTL_RF = 0,
    TS__CTL_CQ,
    TS__CTL_COHORT,
    TS__CTL_LQ,
    TS__CTL_WPC,
    TS__CTL_PC,
    TS__CTL_NS,
    TS__CTL_AC,
    TS__CTL_WL,
    TS__CTL_JOB, /* the job kinds, in ts_jobkinds order (TS_JOBKIND_N of them) */
    TS__CTL_LR = TS__CTL_JOB + TS_JOBKIND_N, /* core/v1 LimitRanges and node.k8s.io
                                              * RuntimeClasses (limitrange.c) */
    TS__CTL_RC,
    TS__CTL_PRC, /* ProvisioningRequestConfigs, ProvisioningRequests, PodTemplates (provreq.c) */
    TS__CTL_PR,
    TS__CTL_PT,
    TS__CTL_STS, /* apps/v1 StatefulSets whose Pods run as a group (statefulset.c) */
    TS__CTL_TR,  /* TrainJob runtimes: TrainingRuntimes, ClusterTrainingRuntimes (trainjob.c) */
    TS__CTL_CTR,
    TS__CTL_N,
};

/* The informer of the i-th job kind of ts_jobkinds. */
#define TS__CTL_JOBKIND_INF(i) ((enum ts__ctl_inf)(TS__CTL_JOB + (i)))
#define TS__CTL_IS_JOB_INF(i)  ((i) >= TS__CTL_JOB && (i) < TS__CTL_JOB + TS_JOBKIND_N)

struct ts_ctl;

/* What an informer's handlers receive: which informer they serve. */
struct ts__ctl_feed {
    struct ts_ctl *c;
    enum ts__ctl_inf which;
};

struct ts__ctl_expect {
    int64_t rv;       /* the resourceVersion our write produced */
    int64_t deadline; /* loop time after which the cache is trusted anyway */
};

struct ts_ctl {
    struct ts_ctl_opts opts;
    struct ts_kubeconfig kc;
    struct ts_loop *loop;
    struct ts_kube_client *client;
    struct ts_kube_client *event_client; /* the recorder's: its own budget */
    struct ts_recorder *events;
    struct ts_leader *leader;
    struct ts_informer *inf[TS__CTL_N];
    struct ts__ctl_feed feeds[TS__CTL_N];
    struct ts_engine *engine;
    struct ts_workqueue *jobs; /* "<Kind>/ns/name" ("Job/ns/name", "TFJob/ns/name"), and
                                * "Finalize/..." (finalize.c) */
    int dirty;                 /* something changed: a cycle is due */
    uint64_t cycle_timer;      /* every TS__CTL_CYCLE_PERIOD: pending reasons, retries, a cycle */
    uint64_t soon_timer;       /* a cycle asked for by a change, or 0 */
    int64_t soon_due;          /* its loop time */
    int64_t cycle_end;         /* loop time the last engine cycle ended */
    int64_t cycle_cost;        /* its duration, ns */
    uint64_t status_timer;
    size_t inflight; /* API writes not yet answered */
    /* queue status writes not yet answered, "resource/ns/name" -> owned
     * struct (sched.c): at most one per queue in flight */
    struct ts_hmap status_inflight;
    /* "resource/ns/name" -> owned int64_t: loop time of the last queue
     * status write sent, so a queue's status waits for spare budget at
     * most TS__CTL_STATUS_MAX_WAIT (opts.status_max_wait_ns) */
    struct ts_hmap status_last;
    /* "resource/ns/name" -> owned struct (qstatus.c): the engine's status
     * version when the queue's status was last computed, marked when the
     * object changes; unchanged, the queue is not computed again (for at
     * most TS__CTL_STATUS_MAX_WAIT) */
    struct ts_hmap status_seen;
    /* numbers the queue status passes (a record notes the last that
     * visited it), and counts those since one visited every queue: 0, the
     * next does (TS__CTL_STATUS_FULL_EVERY) */
    uint64_t status_pass;
    unsigned status_partial;
    struct ts_ratelimit status_rl; /* overdue queue status writes: TS__CTL_STATUS_SHARE */
    /* Job keys with a job write in flight -> count (boxed as a pointer):
     * their reconcile waits, the cache may not show the write yet. */
    struct ts_hmap job_writes;
    /* Job keys whose last write landed -> struct ts__ctl_expect: their
     * reconcile waits until the cache shows that resourceVersion. */
    struct ts_hmap job_expect;
    /* Victims whose eviction write conflicted, "ns/name" -> owned int64_t
     * loop time after which the engine forgets the eviction (sched.c) */
    struct ts_hmap evict_retry;
    /* Workload status writes that landed and the cache does not show yet:
     * "ns/name" -> owned struct ts__ctl_written (written.c) */
    struct ts_hmap wl_written;
    /* Pending reasons to write (tell.c): "ns/name" -> owned struct
     * ts__ctl_tell, queued in one of two lists sorted by due time (0: a
     * first tell or a retry, 1: a refresh) or in flight. */
    struct ts_hmap tells;
    struct ts__ctl_tell *tell_due[2], *tell_last[2];
    struct ts_ratelimit tell_rl;
    struct ts_metrics_registry *registry;
    struct ts_kmetrics *metrics;
    struct ts_metrics_server *metrics_server;
    struct ts_metrics_server *health_server; /* health.healthProbeBindAddress, or NULL */
    struct ts__ctl_vis *vis;                 /* the visibility API server, or NULL */
    int ready;                               /* synced and scheduling; read by the server threads */
    int stopping;
    int64_t stopping_at; /* loop time of ts_ctl_stop() */
    int synced;
    /* fence.c: the start fence's resourceVersion (0: none, or seen), the
     * loop time it was written, whether a slow informer was logged */
    int64_t fence_rv;
    int64_t fence_at;
    int fence_told;
};

/* What informer i lists and watches. */
const struct ts_kube_resource *ts__ctl_resource(enum ts__ctl_inf i);

/* fence.c: without leader election, writes the start fence (a Lease of
 * our own) before the informers list; ts__ctl_fence_seen() says whether
 * every informer has observed it (or there is none), see fence.c. */
void ts__ctl_fence_write(struct ts_ctl *c);
int ts__ctl_fence_seen(struct ts_ctl *c);

/* trainjob.c: the TrainJobs that reference runtime obj (of informer
 * `which`, TS__CTL_TR or TS__CTL_CTR) are reconciled again; _runtime is
 * jobplan.h's runtime lookup on those informers. */
void ts__ctl_runtime_changed(struct ts_ctl *c, enum ts__ctl_inf which, const cJSON *obj);
cJSON *ts__ctl_runtime(void *ctx, int cluster, const char *ns, const char *name);

/* feed.c */
void ts__ctl_feed_handlers(struct ts_ctl *c);
/* The wall clock as the engine's ts_time. */
ts_time ts__ctl_now(const struct ts_ctl *c);
/* Asks for a scheduling cycle soon. */
void ts__ctl_kick(struct ts_ctl *c);

/* sched.c */
void ts__ctl_cycle(struct ts_loop *loop, void *data);
/* Runs a cycle `gap` ns after the last one ended (at once if that is
 * past), unless one is already due sooner. */
void ts__ctl_cycle_soon(struct ts_ctl *c, int64_t gap);
/* The cached Workload ns/name, typed: 0, or TS_ENOTFOUND or a decode
 * error.  Ownership: the caller releases *wl (ts_workload_release()). */
int ts__ctl_cached_workload(struct ts_ctl *c, const char *ns, const char *name,
                            struct ts_workload *wl);
/* PUTs wl's status; `why` is the decision (or NULL for a victim), `target`
 * the victim's entry and `preemptor` its preemptor's queue.  The answer
 * confirms or forgets an admission, and reports a PENDING write to
 * ts__ctl_tell_done(). */
void ts__ctl_put_status(struct ts_ctl *c, const struct ts_workload *wl, enum ts_decision_kind kind,
                        const struct ts_decision *why, const struct ts_decision_target *target,
                        const char *preemptor);
/* Whether Kueue's local_queue_* series are kept for LocalQueue ns/name:
 * metrics.localQueueMetrics.enable and its selector on the LQ's labels. */
int ts__ctl_lq_metrics(struct ts_ctl *c, const char *ns, const char *name);
void ts__ctl_queue_status(struct ts_loop *loop, void *data);
/* Forgets a deleted queue's last status write time. */
void ts__ctl_status_forget(struct ts_ctl *c, const struct ts_kube_resource *res, const char *ns,
                           const char *name);
/* Frees the records of the status pass (at shutdown). */
void ts__ctl_status_release(struct ts_ctl *c);
/* The queue object changed (a new resourceVersion): its status is computed
 * again at the next pass. */
void ts__ctl_status_changed(struct ts_ctl *c, const struct ts_kube_resource *res, const char *ns,
                            const char *name);

/* The scheduling cycle runs this often; at once again while cycles make
 * progress (one head per ClusterQueue is admitted a cycle); and after a
 * change once the last cycle is TS__CTL_CYCLE_GAP_MIN, or
 * TS__CTL_CYCLE_GAP_COST times its cost, behind: a change after a quiet
 * spell is decided at once, a stream of them costs at most a fifth of a
 * core in cycles.  A shorter gap cycles more often for no gain in
 * latency. */
#define TS__CTL_CYCLE_PERIOD   (20 * 1000 * 1000)
#define TS__CTL_CYCLE_GAP_MIN  (20 * 1000 * 1000)
#define TS__CTL_CYCLE_GAP_COST 4

/* Under a saturated client budget a cycle waits until the writes this
 * much of the budget grants can go out together (ts_kube_client_batch_
 * ready(); 5 at 50 QPS, 1 at 10 QPS or less): a decision waits at most
 * this long, and the controller wakes once per batch rather than once per
 * write. */
#define TS__CTL_DECIDE_WINDOW (100 * 1000 * 1000)

/* Writes that only inform (pending reasons, queue status) go out while
 * this much of the client's burst is left for the writes that decide
 * (admissions, evictions, jobs): see ts_kube_client_spare(). */
#define TS__CTL_SPARE 0.5
/* ...but a queue whose status changed is written at least this often
 * (60 queues cost 2 writes/s of a saturated budget), within at most this
 * share of the client's QPS (more queues wait longer). */
#define TS__CTL_STATUS_MAX_WAIT (30 * TS_TIME_SECOND)
#define TS__CTL_STATUS_SHARE    0.05
/* Between these, a queue status pass visits only the queues that may have
 * changed (qstatus.c); every this many passes it visits all. */
#define TS__CTL_STATUS_FULL_EVERY 10

/* written.c: read your own Workload writes (see there). */
/* A status write built on base_rv landed as rv; obj is what it wrote
 * (consumed). */
void ts__ctl_written_put(struct ts_ctl *c, const char *ns, const char *name, const char *base_rv,
                         const char *rv, cJSON *obj);
/* The Workload ns/name as this controller last knows it: its own landed
 * write while the cache lags behind it, else the cached one.  Ownership:
 * the caller deletes the copy; NULL when there is none. */
cJSON *ts__ctl_workload_fetch(struct ts_ctl *c, const char *ns, const char *name);
/* Its resourceVersion alike.  Borrowed until the next cache change. */
const char *ts__ctl_workload_rv(struct ts_ctl *c, const char *ns, const char *name);
/* The watch brought obj (or its deletion): a landed write it moves past
 * is dropped. */
void ts__ctl_written_seen(struct ts_ctl *c, const cJSON *obj);
void ts__ctl_written_release(struct ts_ctl *c);

/* tell.c: pending reasons, written late and coalesced (see there). */
void ts__ctl_tell_init(struct ts_ctl *c);
void ts__ctl_tell_release(struct ts_ctl *c);
/* The engine has a (new) pending verdict for ns/name. */
void ts__ctl_tell(struct ts_ctl *c, const char *ns, const char *name, ts_time now);
/* A pending-reason write of ns/name was answered (ok: it landed). */
void ts__ctl_tell_done(struct ts_ctl *c, const char *ns, const char *name, int ok, ts_time now);
/* Writes the verdicts that are due, while the budget allows. */
void ts__ctl_tell_flush(struct ts_ctl *c, ts_time now);

/* jobs.c */
void ts__ctl_reconcile_job(struct ts_workqueue *q, const char *key, void *data);
/* A pod group's work queue key: "PodGroup/ns/group" (no kind is named
 * PodGroup); the Pod informer's index of members by "ns/group". */
#define TS__CTL_PODGROUP_PREFIX "PodGroup/"
#define TS__CTL_POD_GROUP_INDEX "pod-group"
/* ... and of Pods by their controlling StatefulSet, "ns/name" */
#define TS__CTL_POD_STS_INDEX "pod-statefulset"

/* statefulset.c: a StatefulSet's key "StatefulSet/ns/name". */
struct ts_jobplan_env;
#define TS__CTL_STATEFULSET_PREFIX "StatefulSet/"
extern const struct ts_kube_resource ts__ctl_res_statefulsets;
int ts__ctl_is_statefulset_key(const char *key);
/* Queues the key of the StatefulSet controlling pod, if one does. */
void ts__ctl_statefulset_of_pod(struct ts_ctl *c, const cJSON *pod);
/* Reconciles a StatefulSet's key: its group's Workload and members. */
void ts__ctl_reconcile_statefulset(struct ts_ctl *c, struct ts_workqueue *q, const char *key,
                                   const struct ts_jobplan_env *env);
/* jobs.c: the writes of a pod-group plan for key (members in ns), the
 * event on event_obj (may be NULL). */
struct ts_podgroup_plan;
struct ts_jobplan_env;
void ts__ctl_execute_group(struct ts_ctl *c, const char *key, const char *ns,
                           struct ts_podgroup_plan *gp, const cJSON *event_obj);
/* ResourceFlavors decoded from the cache for one reconcile, looked up by
 * ts__ctl_flavor() (a ts_flavor_lookup_fn with ctx a struct
 * ts__ctl_flavors whose c is set); the flavors are borrowed from it until
 * ts__ctl_flavors_release(). */
#define TS__CTL_FLAVORS_MAX 16
struct ts__ctl_flavors {
    struct ts_ctl *c;
    struct ts_resource_flavor rf[TS__CTL_FLAVORS_MAX];
    size_t n;
};
const struct ts_resource_flavor *ts__ctl_flavor(void *ctx, const char *name);
void ts__ctl_flavors_release(struct ts__ctl_flavors *f);
/* Counts the writes in flight of a work queue key (d = +1 or -1): a key
 * with writes in flight is reconciled again only once they are answered
 * (c->job_writes). */
void ts__ctl_count_write(struct ts_ctl *c, const char *key, int d);
/* Queues the job that owns workload obj (if any). */
void ts__ctl_enqueue_owner(struct ts_ctl *c, const cJSON *wl);

/* manager.c: "host:port" (host may be empty) of the `what` listener. */
int ts__ctl_split_addr(const char *what, const char *addr, char *host, size_t len, int *port,
                       struct ts_err *err);

/* visibility.c: Kueue's visibility API (opts.visibility_addr); stop
 * before the loop is freed.  NULL-safe. */
int ts__ctl_vis_start(struct ts_ctl *c, struct ts_err *err);
void ts__ctl_vis_stop(struct ts_ctl *c);

/* finalize.c: queues the removal of Kueue's finalizer from a Workload
 * being deleted (key "Finalize/NS/NAME" of the job work queue). */
void ts__ctl_finalize_workload(struct ts_ctl *c, const cJSON *wl);
/* The same for a ClusterQueue (flavor 0) or ResourceFlavor (flavor 1)
 * being deleted: removed once nothing uses it (else the key is dropped and
 * the events below ask again).  NULL-safe. */
void ts__ctl_finalize_queue(struct ts_ctl *c, int flavor, const cJSON *obj);
/* Every ResourceFlavor being deleted, again (a ClusterQueue changed). */
void ts__ctl_finalize_flavors(struct ts_ctl *c);
/* The ClusterQueue wl holds quota in, again if it is being deleted (wl
 * is leaving it). */
void ts__ctl_finalize_admitted_to(struct ts_ctl *c, const cJSON *wl);
/* Whether a work queue key is a finalizer removal. */
int ts__ctl_is_finalize_key(const char *key);
/* Handles a "Finalize/..." key (marks it done; a failure is retried with
 * the queue's backoff). */
void ts__ctl_reconcile_finalizer(struct ts_ctl *c, const char *key);

/* limitrange.c: adjusts wl's pod sets to its namespace's LimitRanges and
 * its RuntimeClasses (api/limitrange.h) and returns why they do not
 * satisfy the LimitRanges (NULL: they do).  Ownership: caller frees. */
char *ts__ctl_adjust_workload(struct ts_ctl *c, struct ts_workload *wl);
/* Indexes the LimitRange informer by namespace (before it starts). */
void ts__ctl_limitrange_index(struct ts_ctl *c);
/* A LimitRange (which TS__CTL_LR) or RuntimeClass (TS__CTL_RC) changed:
 * put() again each Workload without quota it may change. */
void ts__ctl_limitrange_changed(struct ts_ctl *c, enum ts__ctl_inf which, const cJSON *obj,
                                void (*put)(struct ts_ctl *c, const cJSON *wl));

/* provreq.c: Kueue's ProvisioningRequest admission check controller
 * (keys "ProvReq/NS/NAME" and "ProvReqAC/NAME" of the job work queue). */
int ts__ctl_is_provreq_key(const char *key);
void ts__ctl_reconcile_provreq(struct ts_ctl *c, const char *key);
/* Indexes the ProvisioningRequest informer by owner (before it starts). */
void ts__ctl_provreq_index(struct ts_ctl *c);
/* An object of informer `which` changed: queues what it concerns. */
void ts__ctl_provreq_event(struct ts_ctl *c, enum ts__ctl_inf which, const cJSON *obj);

#endif
