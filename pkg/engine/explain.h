/*
 * explain.h - answers to "why is my job pending, where is it in line, and
 * what would make it run?", computed by the same engine
 * that makes the decision, so the explanation cannot disagree with it.
 *
 * Positions follow the scheduler's own order (Kueue's visibility API:
 * PendingWorkloadsSummary).  Explanations give, per pod set, resource and
 * flavor tried: the request, what is available now and the most the queue
 * could ever get, plus the smallest change that would admit the workload
 * now (a counterfactual), each computed on the live state and restored.
 *
 * Pure.  Ownership: strings in results are borrowed from the engine and
 * valid until the next call that changes it; arrays are owned by the
 * result and freed with the matching _release().
 */
#ifndef TS_ENGINE_EXPLAIN_H
#define TS_ENGINE_EXPLAIN_H

#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"

struct ts_pending_item {
    const char *ns;
    const char *name;
    const char *local_queue;
    int32_t priority;
    ts_time created;
    size_t position_in_cq; /* 0-based, in the ClusterQueue */
    size_t position_in_lq; /* 0-based, among the same LocalQueue's */
};

struct ts_pending_list {
    struct ts_pending_item *items;
    size_t n;
    size_t total; /* pending workloads in the queue, before offset/limit */
};

#define TS_PENDING_LIMIT_MAX 100000 /* Kueue's cap */

/* The pending workloads of ClusterQueue `cq` (or, when lq_ns/lq are set,
 * of that LocalQueue; cq may then be NULL: the LocalQueue's own) in
 * scheduling order, from `offset`, at most `limit` (capped at
 * TS_PENDING_LIMIT_MAX; 0 gives only the total).  Returns TS_ENOTFOUND for
 * an unknown queue; a LocalQueue whose ClusterQueue does not exist has an
 * empty list. */
int ts_engine_pending(const struct ts_engine *e, const char *cq, const char *lq_ns, const char *lq,
                      size_t offset, size_t limit, struct ts_pending_list *out);
void ts_pending_list_release(struct ts_pending_list *l);

enum ts_counterfactual_kind {
    TS_CF_NONE = 0,   /* it is admitted, or nothing simple helps */
    TS_CF_FREE_QUOTA, /* fits in flavor F if N of resource R are freed in cohort C */
    TS_CF_PARTIAL,    /* fits now with count K */
    TS_CF_PRIORITY,   /* would preempt victims if its priority were above P */
    TS_CF_NEVER,      /* exceeds what the queue can ever provide by N */
};

struct ts_flavor_fact {
    const char *podset;
    const char *resource;
    const char *flavor;
    int64_t requested; /* for the pod set (cpu in milli-units) */
    int64_t available; /* the queue could use now */
    int64_t maximum;   /* nominal + what the cohort tree could ever lend */
};

struct ts_explanation {
    const char *cluster_queue; /* NULL when it has none */
    const char *reason;        /* Kueue's QuotaReserved reason, or NULL when admitted */
    const char *message;
    size_t position_in_cq, position_in_lq;
    size_t n_ahead;
    const char **ahead; /* names of the workloads ahead in the ClusterQueue (at most 20) */
    struct ts_flavor_fact *facts;
    size_t n_facts;
    enum ts_counterfactual_kind cf;
    char cf_text[512]; /* the counterfactual in words */
};

/* Explains workload ns/name.  Returns TS_ENOTFOUND when unknown. */
int ts_engine_explain(struct ts_engine *e, const char *ns, const char *name,
                      struct ts_explanation *out);
void ts_explanation_release(struct ts_explanation *x);

#endif
