/*
 * engine_int.h - the engine's private state, shared by its files
 * (engine.c: objects; workloads.c: workload accounting and queues;
 * assign.c: flavor assignment; cycle.c: the scheduling cycle).
 */
#ifndef TS_ENGINE_INT_H
#define TS_ENGINE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"
#include "engine/heap.h"
#include "engine/quota.h"
#include "api/clusterqueue.h"
#include "api/core.h"
#include "api/podtemplate.h"
#include "util/buf.h"
#include "util/hmap.h"
#include "util/strlist.h"
#include "util/strmap.h"

struct ts__eng_memo; /* memo.c */

struct ts__eng_flavor {
    char *name;
    struct ts_strmap node_labels;
    struct ts_taint *taints;
    size_t n_taints;
    struct ts_toleration *tolerations;
    size_t n_tolerations;
};

/* One flavor of a resource group: the fr id of each covered resource. */
struct ts__eng_rg_flavor {
    char *name;
    size_t *fr;                          /* indexed like the group's covered resources */
    const struct ts__eng_flavor *flavor; /* NULL while missing; refreshed on flavor changes */
};

struct ts__eng_rg {
    size_t n_covered;
    size_t *covered; /* resource ids */
    size_t n_flavors;
    struct ts__eng_rg_flavor *flavors;
    struct ts_strlist label_keys; /* union of the flavors' nodeLabels keys */
};

struct ts__eng_cohort {
    char *name;
    int64_t fs_weight; /* spec.fairSharing.weight in milli-units (default 1000) */
    int explicit_;     /* a Cohort object exists (else implicit, from a CQ's cohortName) */
    char *parent_name;
    struct ts_quota_node node;
    size_t refs; /* CQs and cohorts naming it as parent/cohort */
};

/* An AdmissionCheck (checks.c). */
struct ts__eng_check {
    char *name;
    char *controller; /* spec.controllerName */
    int active;       /* status condition Active is True */
};

/* One entry of a ClusterQueue's admissionChecksStrategy. */
struct ts__eng_cq_check {
    char *name;
    struct ts_strlist on_flavors; /* empty: every flavor of the queue */
};

struct ts__eng_cq {
    char *name;
    struct ts_quota_node node;
    int64_t fs_weight; /* spec.fairSharing.weight in milli-units (default 1000) */
    char *cohort_name;
    enum ts_queueing_strategy queueing;
    struct ts_flavor_fungibility fungibility;
    struct ts_cq_preemption preemption;
    int has_ns_selector;
    struct ts_label_selector ns_selector;
    int stopped;     /* stopPolicy != None */
    int terminating; /* being deleted: admits nothing new (Kueue's terminating status) */
    size_t n_rgs;
    struct ts__eng_rg *rgs;
    size_t n_checks;
    struct ts__eng_cq_check *checks; /* sorted by name */
    struct ts_heap pending;
    /* Parked (inadmissible) workloads, grouped in equivalence classes by
     * shape: a requeue releases one workload per class, the next follows
     * when that one is admitted (park.c). */
    struct ts_hmap classes; /* shape (hex) -> struct ts__eng_class */
    size_t n_inadmissible;
    /* Scheduling-equivalence classes found not to fit since the last
     * requeue (Kueue's SchedulingEquivalenceHashing, BestEffortFIFO only):
     * a later head of the same shape is parked without a second look. */
    struct ts__eng_blocked *blocked;
    size_t n_blocked, cap_blocked;
    /* BestEffortFIFO: the workload ("ns/name") that last issued
     * preemptions here, the queue's head ahead of its usual order each time
     * it is in the heap, until it is admitted or leaves the queue (Kueue's
     * stickyWorkload, pkg/cache/queue/cluster_queue.go): the quota its
     * victims free goes to it and not to a workload the queue skipped
     * over, nor to the queue it was reclaimed from (which the preemptor
     * would then evict again).  NULL when none. */
    char *preemptor;
    size_t n_reserving;
    size_t n_admitted;
    /* workloads holding quota here: the preemption candidates */
    struct ts__eng_wl **holders;
    size_t n_holders, cap_holders;
    /* holders in preemption candidate order (preempt.c), sorted again on
     * first use after order_stale is set: by a change of the holders or of
     * a holder's evicting, evicted, priority or reservation time */
    struct ts__eng_wl **order;
    size_t cap_order;
    int order_stale;
    uint64_t status_seq;             /* see ts__eng_touch() */
    uint64_t parking_seq;            /* see ts__eng_touch_parking() */
    uint64_t status_told;            /* their sum when ts_engine_status_moved() last looked */
    struct ts__eng_memo *memo;       /* preemption searches remembered (memo.c), or NULL */
    struct ts__eng_fs_cand *fs_cand; /* during a fair-sharing cycle: its head's, or NULL */
};

/* Parked workloads of one shape, in queue order: first, then rest.  A
 * requeue releases the first; most often it fails again and comes back
 * first, so it waits outside the heap: releasing and parking it again cost
 * no heap operation (each would sift through cold workloads). */
struct ts__eng_class {
    uint64_t shape;
    struct ts__eng_wl *first; /* NULL, or ahead of every workload in rest */
    struct ts_heap rest;
};

struct ts__eng_blocked {
    uint64_t shape;
    char *reason;
    char *message;
};

struct ts__eng_members {
    struct ts__eng_wl **items;
    size_t n, cap;
    /* see ts__eng_touch(); a new set starts a range of its own
     * (generation << 32), so a LocalQueue emptied and filled again never
     * repeats a version the controller saw */
    uint64_t status_seq;
    uint64_t parking_seq; /* see ts__eng_touch_parking() */
    uint64_t status_told; /* their sum when ts_engine_status_moved() last looked */
};

struct ts__eng_lq {
    char *key; /* ns/name */
    char *cq_name;
    int stopped;
};

enum ts__eng_wl_state {
    TS__ENG_WL_PENDING = 0, /* queued, or waiting for its queue to exist */
    TS__ENG_WL_ASSUMED,     /* admitted by a cycle, write not confirmed */
    TS__ENG_WL_ADMITTED,    /* holds quota (confirmed or found admitted) */
    TS__ENG_WL_IDLE,        /* finished or inactive: holds nothing */
};

struct ts__eng_podset {
    char *name;
    int32_t count;
    int32_t min_count; /* 0 = no partial admission */
    size_t n_req;
    size_t *req_res;             /* resource ids, sorted by name */
    int64_t *req_amount;         /* per pod */
    struct ts_pod_template tmpl; /* nodeSelector, affinity, tolerations */
};

/* One pod set's admitted assignment. */
struct ts__eng_psa {
    int32_t count;
    size_t n;
    size_t *fr;      /* flavor-resource id per requested resource */
    int64_t *amount; /* total per requested resource */
};

struct ts__eng_wl {
    char *key; /* ns/name */
    char *ns;
    char *name;
    char *uid;
    uint64_t id_prefix; /* ts__eng_id_prefix(uid or key): most ties end here */
    char *lq_name;
    size_t lq_pos;                   /* index in its by_lq members */
    struct ts__eng_members *members; /* those members, or NULL */
    int32_t priority;
    uint64_t shape; /* hash of everything that decides fit: requests, placement, priority */
    ts_time created;
    ts_time queue_ts;
    size_t n_podsets;
    struct ts__eng_podset *podsets;
    enum ts__eng_wl_state state;
    struct ts__eng_cq *cq; /* queue it is in, or whose quota it holds */
    size_t heap_pos;
    int inadmissible; /* parked in klass */
    struct ts__eng_class *klass;
    int dirty;
    struct ts__eng_psa *admission; /* n_podsets entries while holding quota */
    char *admission_cq;            /* ClusterQueue named by the admission */
    size_t holder_pos;             /* index in cq->holders while holding quota */
    uint64_t fr_mask;              /* holding: bit fr for each flavor-resource fr < 64 used */
    int fr_wide;                   /* holding: it uses a flavor-resource >= 64 too */
    ts_time reserved_at;           /* when its quota was reserved */
    /* config_seq + 1 when this engine admitted it (0: admitted by someone
     * else, or read back from the API only): the self-check holds an
     * admission made under the current configuration to the current
     * quota, while usage left above a lowered quota is legal (Kueue evicts
     * nothing when quota shrinks) */
    uint64_t admitted_config;
    int evicting;         /* chosen as a preemption victim; usage not yet released */
    int evicted;          /* holds quota, stored Evicted=True: on its way out too */
    uint64_t evict_cycle; /* the cycle that chose it */
    char *job_uid;        /* label kueue.x-k8s.io/job-uid, for preemption messages */
    char *limits_message; /* requests above limits (Misconfigured), or NULL */
    int pods_ready;       /* PodsReady=True (waitForPodsReady.blockAdmission) */
    /* holds quota but is not Admitted: its admission checks are not all
     * Ready (admittedWorkloads and flavorsUsage leave it out) */
    int awaiting_checks;
    char *last_reason;
    char *last_message;
    /* Kueue's LastAssignment (AssignmentClusterQueueState in
     * pkg/workload/workload.go): per pod set and resource group of tried_cq,
     * tried[ps * n_rgs + g] is the flavor index its last attempt stopped at
     * (-1: it reached the group's last flavor; TS__ENG_TRIED_NONE: nothing
     * recorded).  The next attempt resumes after it.  NULL: none. */
    int32_t *tried;
    const struct ts__eng_cq *tried_cq;
    uint64_t tried_config; /* e->config_seq it was recorded under */
};

#define TS__ENG_TRIED_NONE INT32_MIN

/* A change of wl that its ClusterQueue's or LocalQueue's status (or queue
 * metrics) may show: a new status version for both. */
static inline void ts__eng_touch(struct ts__eng_wl *wl)
{
    if (wl->cq)
        wl->cq->status_seq++;
    if (wl->members)
        wl->members->status_seq++;
}

/* A pending workload of wl's queue moved between the active and the
 * inadmissible lists (parked, or released by a requeue): the queue's status
 * counts both alike, only the pending metrics split them.  Every completion
 * in a cohort releases and parks again the heads of all its queues, so a
 * status version bumped by it made the controller compute every status of
 * the cohort again each second. */
static inline void ts__eng_touch_parking(struct ts__eng_wl *wl)
{
    if (wl->cq)
        wl->cq->parking_seq++;
    if (wl->members)
        wl->members->parking_seq++;
}

/* A change of the flavors, namespaces, queues or cohorts: every queue's
 * status may change, and every preemption search.  (Priority classes are
 * not in it: a workload's priority is resolved when it is put, and a
 * holder put again moves its tree's version.) */
/* Kueue's DRS (pkg/cache/scheduler/fair_sharing.go, dominantResourceShare)
 * of a node as its usage stands: for each resource, what the node uses
 * beyond its subtree quota (summed over flavors) per 1000 of what its
 * parent could lend (potentialAvailable, summed over flavors); the largest.
 * A root never borrows. */
struct ts__eng_share {
    double ratio;   /* unweighted; 0 when nothing is borrowed or lendable */
    int64_t weight; /* fairSharing.weight in milli-units */
    int borrowing;  /* some pair is used beyond the subtree quota */
};

static inline void ts__eng_config_changed(struct ts_engine *e);

/* A change a preemption search of node's tree reads: usage held by a
 * workload, a holder added or removed, a holder's evicting, evicted,
 * priority or reservation time.  Forgets the tree's remembered searches
 * (memo.c) by moving its root's version on. */
static inline void ts__eng_tree_changed(struct ts_quota_node *node)
{
    ts_quota_root(node)->gen++;
}

/* The holders of cq or one of their flags changed: their candidate order
 * must be sorted again, and the tree's searches made again. */
static inline void ts__eng_holders_changed(struct ts__eng_cq *cq)
{
    cq->order_stale = 1;
    ts__eng_tree_changed(&cq->node);
}

/* The workloads naming LocalQueue ns/name, or NULL when none does. */
const struct ts__eng_members *ts__eng_lq_members(const struct ts_engine *e, const char *ns,
                                                 const char *name);

struct ts_engine {
    struct ts_engine_config config;
    struct ts_hmap flavors;    /* name -> ts__eng_flavor */
    struct ts_hmap cqs;        /* name -> ts__eng_cq */
    struct ts_hmap cohorts;    /* name -> ts__eng_cohort */
    struct ts_hmap lqs;        /* ns/name -> ts__eng_lq */
    struct ts_hmap namespaces; /* name -> struct ts_strmap */
    struct ts_hmap wpcs;       /* name -> int32 (boxed) */
    struct ts_hmap pcs;        /* name -> int32 (boxed) */
    struct ts_hmap workloads;  /* ns/name -> ts__eng_wl */
    struct ts_hmap checks;     /* name -> ts__eng_check */
    /* "ns/queueName" -> struct ts__eng_members: the workloads naming each
     * LocalQueue (whether it exists or not), so a LocalQueue's status
     * costs its own workloads, not all of them */
    struct ts_hmap by_lq;
    struct ts_hmap resource_ids; /* resource name -> id + 1 */
    char **resource_names;
    size_t n_resources, cap_resources;
    struct ts_hmap fr_ids; /* "flavor/resource" -> id + 1 */
    size_t *fr_resource;   /* fr id -> resource id */
    char **fr_flavor;      /* fr id -> flavor name */
    size_t nfr, cap_fr;
    /* pending workloads outside any queue whose message must be (re)computed */
    struct ts__eng_wl **dirty;
    size_t n_dirty, cap_dirty;
    /* cycle.c's per-cycle scratch, kept between cycles: allocating it anew
     * each cycle costs more than the cycle's use of it */
    void *scratch;
    size_t cap_scratch;
    uint64_t cycle_seq; /* numbers the cycles (preemption overlap checks) */
    int requeue_marked; /* some tree's root has requeue set */
    /* queue status versions (ts_engine_cq_status_version): bumped by every
     * change of a flavor, namespace, cohort or queue, which may change any
     * queue's status; the workloads' changes bump their own queues' */
    uint64_t status_epoch;
    /* ts_engine_status_moved(): the epoch it last reported, and the
     * LocalQueues whose workload sets were freed since (their versions
     * moved with no set left to compare) */
    uint64_t status_epoch_told;
    struct ts_hmap status_gone;
    /* bumped with status_epoch: the configuration a preemption search
     * reads (memo.c) */
    uint64_t config_seq;
    uint64_t members_generation;
    int blocking; /* this cycle: an admitted workload is not PodsReady */
};

static inline void ts__eng_config_changed(struct ts_engine *e)
{
    e->status_epoch++;
    e->config_seq++;
}

/* fsorder.c: a head in Kueue's fair-sharing tournament */
struct ts__eng_fs_val;
struct ts__eng_fs_cand {
    struct ts__eng_wl *wl;
    struct ts__eng_cq *cq; /* cq->fs_cand points back while the cycle runs */
    int64_t *usage;        /* per flavor-resource (e->nfr): the assignment's; owned */
    size_t idx;            /* the caller's */
    int done;
    struct ts__eng_fs_val *lv; /* shares on the path below the root (n_lv 0: to take); owned */
    size_t n_lv, cap_lv;
};

#endif

/* engine.c */
size_t ts__eng_resource_id(struct ts_engine *e, const char *name);
size_t ts__eng_fr_id(struct ts_engine *e, const char *flavor, const char *resource);
long ts__eng_find_fr(const struct ts_engine *e, const char *flavor, const char *resource);

/* checks.c */
void ts__eng_cq_set_checks(struct ts__eng_cq *cq, const struct ts_admission_checks_strategy *s);
void ts__eng_cq_free_checks(struct ts__eng_cq *cq);
void ts__eng_free_checks(struct ts_engine *e);
/* Appends the names of cq's checks that are missing (inactive = 0) or
 * exist but are not active (inactive = 1), comma-separated, to out;
 * returns how many. */
size_t ts__eng_cq_bad_checks(const struct ts_engine *e, const struct ts__eng_cq *cq, int inactive,
                             struct ts_buf *out);
/* Fills d's checks for wl's assumed admission in cq. */
void ts__eng_decision_checks(const struct ts_engine *e, const struct ts__eng_cq *cq,
                             const struct ts__eng_wl *wl, struct ts_decision *d);

/* queues.c */
void ts__eng_resize_nodes(struct ts_engine *e);
void ts__eng_flavors_changed(struct ts_engine *e);
void ts__eng_free_queues(struct ts_engine *e);
/* Why workloads of cq cannot be admitted now, or NULL when it is active. */
const char *ts__eng_cq_inactive(const struct ts_engine *e, const struct ts__eng_cq *cq);
/* Moves every inadmissible workload of the tree holding node back to its
 * queue (Kueue's requeue on a quota or configuration change). */
void ts__eng_requeue_tree(struct ts_engine *e, struct ts_quota_node *node);
void ts__eng_requeue_all(struct ts_engine *e);
/* Releases the parked workloads of the trees marked since the last call. */
void ts__eng_requeue_flush(struct ts_engine *e);
struct ts__eng_cq *ts__eng_cq_of_node(struct ts_quota_node *n);
/* Forgets the equivalence classes found not to fit. */
void ts__eng_unblock(struct ts__eng_cq *cq);

/* park.c */
/* Parks wl (not queued anywhere) in cq's class `shape`. */
void ts__eng_park(struct ts__eng_cq *cq, struct ts__eng_wl *wl, uint64_t shape);
/* Takes a parked wl out of its class. */
void ts__eng_unpark(struct ts__eng_cq *cq, struct ts__eng_wl *wl);
/* Requeue: the first workload of every class goes back to the queue. */
void ts__eng_release_classes(struct ts__eng_cq *cq);
/* After a workload of `shape` was admitted, the next of its class follows. */
void ts__eng_release_next(struct ts__eng_cq *cq, uint64_t shape);
/* Calls fn for every workload parked in the class of `shape`. */
void ts__eng_class_each(struct ts__eng_cq *cq, uint64_t shape,
                        void (*fn)(struct ts__eng_wl *wl, void *arg), void *arg);
void ts__eng_free_classes(struct ts__eng_cq *cq);
/* Appends every workload parked in cq to out (room for n_inadmissible);
 * returns how many. */
size_t ts__eng_parked(const struct ts__eng_cq *cq, struct ts__eng_wl **out);
/* 0 when cq's classes hold exactly its n_inadmissible workloads, each
 * class in order; else -1 with a message (the self-check). */
int ts__eng_classes_check(const struct ts__eng_cq *cq, char *msg, size_t len);

/* fairshare.c */
/* status.fairSharing.weightedShare of node as Kueue writes it
 * (pkg/controller/core/helpers.go WeightedShare over PreciseWeightedShare):
 * the ratio over the weight rounded up, 0 while not borrowing or where
 * nothing can be lent, INT64_MAX for weight 0 while borrowing. */
int64_t ts__eng_weighted_share(const struct ts_engine *e, const struct ts_quota_node *n);
int64_t ts__eng_node_weight(const struct ts_quota_node *n);
/* Kueue's DRS of a node (struct ts__eng_share, above). */
void ts__eng_share(const struct ts_engine *e, const struct ts_quota_node *n,
                   struct ts__eng_share *out);
/* Kueue's CompareDRS: by weighted share (ratio / weight), except that a
 * zero-weight node that borrows is above every other and such nodes compare
 * by ratio.  Returns <0, 0, >0. */
int ts__eng_share_cmp(const struct ts__eng_share *a, const struct ts__eng_share *b);

/* fsorder.c: Kueue's fair-sharing tournament over one cycle's heads */
/* Marks done and returns the candidate Kueue's fair-sharing iterator pops
 * next from cands[0..n), NULL when all are done. */
struct ts__eng_fs_cand *ts__eng_fs_next(const struct ts_engine *e, struct ts__eng_fs_cand *cands,
                                        size_t n);
/* Usage changed at `moved` (and up its path): the shares of the heads it
 * can change are taken again at the next pop. */
void ts__eng_fs_moved(struct ts__eng_fs_cand *cands, size_t n, const struct ts_quota_node *moved);
/* Frees what c owns and unhooks it from its queue. */
void ts__eng_fs_cand_release(struct ts__eng_fs_cand *c);

/* workloads.c */
void ts__eng_free_workloads(struct ts_engine *e);
/* Re-evaluates where pending workloads belong after queues changed. */
void ts__eng_reroute(struct ts_engine *e);
/* Attaches admitted workloads that name cq (created after them). */
void ts__eng_attach_admitted(struct ts_engine *e, struct ts__eng_cq *cq);
/* Detaches workloads queued in or holding quota of cq (before it goes). */
void ts__eng_detach_cq(struct ts_engine *e, struct ts__eng_cq *cq);
void ts__eng_wl_enqueue(struct ts_engine *e, struct ts__eng_wl *wl);
void ts__eng_wl_add_usage(struct ts__eng_wl *wl, int sign);
int ts__eng_wl_less(const void *a, const void *b);
/* The first 8 bytes of id, big-endian and zero-padded: ordered as strcmp
 * orders the strings, so a comparison can try it first. */
uint64_t ts__eng_id_prefix(const char *id);
size_t *ts__eng_wl_pos(void *e);
