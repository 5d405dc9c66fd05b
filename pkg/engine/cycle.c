/* cycle.c - one scheduling cycle (Kueue's pkg/scheduler/scheduler.go
 * schedule()): take the head of every active ClusterQueue, nominate each
 * (checks and flavor assignment), order them (non-borrowing first, then
 * priority, then queue time), and admit in that order against usage that
 * already includes the admissions made earlier in the same cycle. */
#include "api/workload.h"
#include "engine/assign.h"
#include "engine/memo.h"
#include "engine/preempt.h"
#include "engine/engine_int.h"
#include "util/alloc.h"
#include "util/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ts_cycle_init(struct ts_cycle *c)
{
    memset(c, 0, sizeof(*c));
}

void ts_cycle_release(struct ts_cycle *c)
{
    for (size_t i = 0; i < c->n; i++) {
        for (size_t p = 0; p < c->items[i].n_podsets; p++) {
            free(c->items[i].podsets[p].resources);
            free(c->items[i].podsets[p].flavors);
            free(c->items[i].podsets[p].usage);
        }
        free(c->items[i].podsets);
        for (size_t t = 0; t < c->items[i].n_targets; t++)
            free(c->items[i].targets[t].message);
        free(c->items[i].targets);
        free(c->items[i].checks);
    }
    free(c->items);
    ts_cycle_init(c);
}

static struct ts_decision *decision_add(struct ts_cycle *c, enum ts_decision_kind kind,
                                        const struct ts__eng_wl *wl)
{
    struct ts_decision *d;

    TS_GROW(c->items, c->cap, c->n + 1);
    d = &c->items[c->n++];
    memset(d, 0, sizeof(*d));
    d->kind = kind;
    d->ns = wl->ns;
    d->name = wl->name;
    d->cluster_queue = wl->cq ? wl->cq->name : NULL;
    return d;
}

static int same(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

/* Records why wl is pending; emits a decision (and returns 1) only when
 * that changed. */
static int pending(struct ts_cycle *c, struct ts__eng_wl *wl, const char *reason,
                   const char *message)
{
    struct ts_decision *d;

    if (same(wl->last_reason, reason) && same(wl->last_message, message))
        return 0;
    free(wl->last_reason);
    free(wl->last_message);
    wl->last_reason = ts_xstrdup(reason);
    wl->last_message = ts_xstrdup(message);
    d = decision_add(c, TS_DECISION_PENDING, wl);
    d->reason = wl->last_reason;
    d->message = wl->last_message;
    return 1;
}

struct tell {
    struct ts_cycle *c;
    const struct ts__eng_wl *from;
};

static void tell_one(struct ts__eng_wl *wl, void *arg)
{
    const struct tell *t = arg;

    if (!wl->last_reason)
        pending(t->c, wl, t->from->last_reason, t->from->last_message);
}

/* A parked class shares its head's verdict: a workload parked behind it
 * gets the head's reason once, so every pending workload says why it
 * waits.  Later changes of the head's message (the amounts in it move
 * with every admission) are written to the head only, as Kueue writes
 * only the heads it evaluates: rewriting the whole class each time would
 * be a write storm. */
static void tell_class(struct ts__eng_cq *cq, const struct ts__eng_wl *wl, struct ts_cycle *c)
{
    struct tell t = {c, wl};

    ts__eng_class_each(cq, wl->shape, tell_one, &t);
}

/* Why a workload outside every queue waits (Kueue's workload controller,
 * pkg/controller/core/workload_controller.go). */
static void orphan_status(const struct ts_engine *e, struct ts__eng_wl *wl, struct ts_cycle *c)
{
    char key[512], msg[600];
    const struct ts__eng_lq *lq;
    const struct ts__eng_cq *cq;
    const char *why;

    if (!wl->lq_name)
        return; /* no queue name: not Kueue's to manage */
    snprintf(key, sizeof(key), "%s/%s", wl->ns, wl->lq_name);
    lq = ts_hmap_get(&e->lqs, key);
    cq = lq && lq->cq_name ? ts_hmap_get(&e->cqs, lq->cq_name) : NULL;
    if (!lq) {
        snprintf(msg, sizeof(msg), "LocalQueue %s is terminating or missing", wl->lq_name);
        pending(c, wl, TS_WL_REASON_MISCONFIGURED, msg);
    } else if (lq->stopped) {
        snprintf(msg, sizeof(msg), "LocalQueue %s is stopped", wl->lq_name);
        pending(c, wl, TS_WL_REASON_SUSPENDED, msg);
    } else if (!cq || cq->terminating) {
        snprintf(msg, sizeof(msg), "ClusterQueue %s is terminating or missing",
                 lq->cq_name ? lq->cq_name : "");
        pending(c, wl, TS_WL_REASON_MISCONFIGURED, msg);
    } else if ((why = ts__eng_cq_inactive(e, cq))) {
        snprintf(msg, sizeof(msg), "ClusterQueue %s is %s", cq->name,
                 strcmp(why, "Stopped") == 0 ? "stopped" : "inactive");
        pending(c, wl, TS_WL_REASON_SUSPENDED, msg);
    }
}

static void process_dirty(struct ts_engine *e, struct ts_cycle *c)
{
    for (size_t i = 0; i < e->n_dirty; i++) {
        struct ts__eng_wl *wl = e->dirty[i];

        wl->dirty = 0;
        if (wl->state == TS__ENG_WL_PENDING)
            orphan_status(e, wl, c);
    }
    e->n_dirty = 0;
}

struct entry {
    struct ts__eng_wl *wl;
    struct ts__eng_cq *cq;
    struct ts__eng_assignment a;
    const char *reason; /* set when nomination failed before assignment */
    char *message;
    int inadmissible; /* requeue to the inadmissible list even in StrictFIFO */
    /* preempting: the victims found at nomination, before any entry of the
     * cycle was processed (Kueue's nominate, getAssignments) */
    struct ts__eng_target *t;
    size_t nt;
};

static int ns_matches(const struct ts_engine *e, const struct ts__eng_cq *cq, const char *ns)
{
    const struct ts_strmap *labels;
    struct ts_strmap implicit = TS_STRMAP_INIT;
    int ok;

    if (!cq->has_ns_selector)
        return 0; /* nil selector: no namespace */
    if (!cq->ns_selector.match_labels.n && !cq->ns_selector.n_exprs)
        return 1; /* {}: every namespace, without looking up its labels */
    if ((labels = ts_hmap_get(&e->namespaces, ns)))
        return ts_label_selector_matches(&cq->ns_selector, labels);
    ts_strmap_set(&implicit, "kubernetes.io/metadata.name", ns);
    ok = ts_label_selector_matches(&cq->ns_selector, &implicit);
    ts_strmap_release(&implicit);
    return ok;
}

static size_t totals(const struct ts__eng_assignment *a, size_t **fr, int64_t **need);

/* Searches the victims of the whole assignment.  A pod set whose own
 * pairs found no candidates still counts as preempting: the search over
 * every pair the assignment lacks can find victims the searches of single
 * pairs did not (Kueue's flavorassigner.go maps noPreemptionCandidates to
 * the Preempt mode, and scheduler.go getInitialAssignments searches
 * whenever that is the assignment's mode); the mode then says where the
 * victims are.  Returns whether there are any. */
static int search_targets(const struct ts_engine *e, struct entry *en)
{
    size_t *fr, n;
    int64_t *need;
    int cross;

    n = totals(&en->a, &fr, &need);
    en->nt = ts__eng_preempt_targets_memo(e, en->cq, en->wl, fr, need, n, &en->t, &cross);
    free(fr);
    free(need);
    if (en->nt && en->a.mode == TS__ENG_NO_CANDIDATES)
        en->a.mode = cross ? TS__ENG_RECLAIM : TS__ENG_PREEMPT;
    return en->nt > 0;
}

static int preempting(enum ts__eng_mode m)
{
    return m == TS__ENG_NO_CANDIDATES || m == TS__ENG_PREEMPT || m == TS__ENG_RECLAIM;
}

/* Kueue's getInitialAssignments (scheduler.go): the full counts, with
 * their victims if they need any; fewer pods (partial admission) only
 * when the full counts neither fit nor find a victim. */
static void assign_entry(struct ts_engine *e, struct entry *en)
{
    enum ts__eng_mode full;

    ts__eng_assign(e, en->cq, en->wl, NULL, &en->a);
    if (en->a.mode == TS__ENG_FIT || (preempting(en->a.mode) && search_targets(e, en)))
        return;
    if (!e->config.partial_admission)
        return;
    /* the full counts' search found nobody: for the reducer, as if
     * their own pairs had found nobody either */
    full = en->a.mode;
    if (preempting(full))
        en->a.mode = TS__ENG_NO_CANDIDATES;
    ts__eng_assign_partial(e, en->cq, en->wl, &en->a);
    if (en->a.mode == TS__ENG_FIT ||
        ((en->a.mode == TS__ENG_PREEMPT || en->a.mode == TS__ENG_RECLAIM) && search_targets(e, en)))
        return;
    if (en->a.mode == TS__ENG_PREEMPT || en->a.mode == TS__ENG_RECLAIM) {
        /* fewer pods found no victim either: the full counts stand */
        ts__eng_assignment_release(&en->a);
        ts__eng_assign(e, en->cq, en->wl, NULL, &en->a);
    } else {
        en->a.mode = full; /* not replaced */
    }
}

static void nominate(struct ts_engine *e, struct entry *en)
{
    if (!ns_matches(e, en->cq, en->wl->ns)) {
        en->reason = TS_WL_REASON_MISCONFIGURED;
        en->message = ts_xstrdup("Workload namespace doesn't match ClusterQueue selector");
        en->inadmissible = 1;
        return;
    }
    if (en->wl->limits_message) { /* checked once, when the workload was read */
        en->message = ts_xstrdup(en->wl->limits_message);
        en->reason = TS_WL_REASON_MISCONFIGURED;
        en->inadmissible = 1;
        return;
    }
    assign_entry(e, en);
}

static int entry_cmp(const void *pa, const void *pb)
{
    const struct entry *a = *(struct entry *const *)pa, *b = *(struct entry *const *)pb;
    int ba = a->reason ? 1000 : a->a.borrow_level;
    int bb = b->reason ? 1000 : b->a.borrow_level;

    if (ba != bb)
        return ba < bb ? -1 : 1;
    return ts__eng_wl_less(a->wl, b->wl);
}

static const struct ts__eng_blocked *blocked(const struct ts__eng_cq *cq, uint64_t shape)
{
    for (size_t i = 0; i < cq->n_blocked; i++) {
        if (cq->blocked[i].shape == shape)
            return &cq->blocked[i];
    }
    return NULL;
}

/* *slot = a copy of s, keeping the one it holds when equal. */
static void keep_copy(char **slot, const char *s)
{
    if (*slot && !strcmp(*slot, s))
        return;
    free(*slot);
    *slot = ts_xstrdup(s);
}

static void block(struct ts__eng_cq *cq, const struct ts__eng_wl *wl)
{
    struct ts__eng_blocked *b;
    size_t had = cq->cap_blocked;

    if (cq->queueing != TS_QUEUEING_BEST_EFFORT_FIFO || blocked(cq, wl->shape))
        return;
    TS_GROW(cq->blocked, cq->cap_blocked, cq->n_blocked + 1);
    /* slots past n_blocked keep their strings (ts__eng_unblock) */
    memset(cq->blocked + had, 0, (cq->cap_blocked - had) * sizeof(*cq->blocked));
    b = &cq->blocked[cq->n_blocked++];
    b->shape = wl->shape;
    keep_copy(&b->reason, wl->last_reason ? wl->last_reason : "");
    keep_copy(&b->message, wl->last_message ? wl->last_message : "");
}

static void requeue(struct ts__eng_cq *cq, struct ts__eng_wl *wl, int inadmissible, size_t *moved)
{
    if (!inadmissible) {
        ts_heap_push(&cq->pending, wl);
        return;
    }
    ts__eng_park(cq, wl, wl->shape);
    (*moved)++;
}

static const char *nofit_reason(const struct ts__eng_assignment *a)
{
    if (a->mode == TS__ENG_NO_CANDIDATES)
        return TS_WL_REASON_WAITING_FOR_QUOTA;
    switch (a->nofit) {
    case TS__ENG_NOFIT_MAX:
        return TS_WL_REASON_EXCEEDS_MAX_QUOTA;
    case TS__ENG_NOFIT_QUOTA:
        return TS_WL_REASON_WAITING_FOR_QUOTA;
    case TS__ENG_NOFIT_FLAVOR:
        break;
    }
    return TS_WL_REASON_NO_MATCHING_FLAVOR;
}

/* Fills an ADMIT decision's pod sets from the assumed admission. */
static void admit_decision(const struct ts_engine *e, struct ts_decision *d,
                           const struct ts__eng_wl *wl, int borrows)
{
    d->borrows = borrows;
    d->n_podsets = wl->n_podsets;
    d->podsets = ts_xcalloc(wl->n_podsets ? wl->n_podsets : 1, sizeof(*d->podsets));
    for (size_t i = 0; i < wl->n_podsets; i++) {
        const struct ts__eng_psa *psa = &wl->admission[i];
        struct ts_decision_podset *p = &d->podsets[i];

        p->name = wl->podsets[i].name;
        p->count = psa->count;
        p->n_resources = psa->n;
        p->resources = ts_xcalloc(psa->n + 1, sizeof(*p->resources));
        p->flavors = ts_xcalloc(psa->n + 1, sizeof(*p->flavors));
        p->usage = ts_xcalloc(psa->n + 1, sizeof(*p->usage));
        for (size_t j = 0; j < psa->n; j++) {
            /* insertion by resource name keeps the output sorted */
            const char *res = e->resource_names[e->fr_resource[psa->fr[j]]];
            size_t k = j;

            while (k > 0 && strcmp(p->resources[k - 1], res) > 0) {
                p->resources[k] = p->resources[k - 1];
                p->flavors[k] = p->flavors[k - 1];
                p->usage[k] = p->usage[k - 1];
                k--;
            }
            p->resources[k] = res;
            p->flavors[k] = e->fr_flavor[psa->fr[j]];
            p->usage[k] = psa->amount[j];
        }
    }
}

/* Assumes the admission: usage counts at once (see engine.h). */
static void assume(struct ts_engine *e, struct entry *en, struct ts_cycle *c, ts_time now)
{
    struct ts__eng_wl *wl = en->wl;
    struct ts_decision *d;

    wl->reserved_at = now;
    wl->admitted_config = e->config_seq + 1;
    wl->admission = en->a.ps;
    en->a.ps = NULL;
    free(wl->admission_cq);
    wl->admission_cq = ts_xstrdup(en->cq->name);
    wl->state = TS__ENG_WL_ASSUMED;
    if (en->cq->preemptor && !strcmp(en->cq->preemptor, wl->key)) {
        free(en->cq->preemptor); /* admitted: first no longer */
        en->cq->preemptor = NULL;
    }
    ts__eng_release_next(en->cq, wl->shape); /* its class may fit too */
    ts__eng_wl_add_usage(wl, 1);
    ts__eng_touch(wl);
    free(wl->last_reason);
    free(wl->last_message);
    wl->last_reason = wl->last_message = NULL;
    d = decision_add(c, TS_DECISION_ADMIT, wl);
    admit_decision(e, d, wl, en->a.borrow_level > 0);
    ts__eng_decision_checks(e, en->cq, wl, d);
    wl->awaiting_checks = d->n_checks > 0;
}

/* The assignment's total per flavor-resource (pod sets may share one). */
static size_t totals(const struct ts__eng_assignment *a, size_t **fr, int64_t **need)
{
    size_t n = 0, cap = 0;

    for (size_t i = 0; i < a->n_podsets; i++)
        cap += a->ps[i].n;
    *fr = ts_xcalloc(cap + 1, sizeof(**fr));
    *need = ts_xcalloc(cap + 1, sizeof(**need));
    for (size_t i = 0; i < a->n_podsets; i++) {
        for (size_t j = 0; j < a->ps[i].n; j++) {
            size_t k = 0;

            while (k < n && (*fr)[k] != a->ps[i].fr[j])
                k++;
            if (k == n)
                (*fr)[n++] = a->ps[i].fr[j];
            (*need)[k] = ts_amount_add((*need)[k], a->ps[i].amount[j]);
        }
    }
    return n;
}

/* Quota held back, for the rest of one cycle, for preemptors waiting on
 * their victims (Kueue's resourcesToReserve). */
struct reservations {
    struct ts_quota_node **node;
    size_t *fr;
    int64_t *v;
    size_t n, cap;
    /* the victims of the preemptions issued this cycle (Kueue's
     * preemptedWorkloads), on their way out already or not */
    struct ts__eng_wl **victims;
    size_t n_victims, cap_victims;
};

/* Without it, the quota a preemptor frees goes to whichever entry comes
 * next in the cycle or the next one (a borrowing workload of the queue it
 * reclaims from, say), which the preemptor then evicts again: a loop that
 * never admits it.  As Kueue: the preemptor's usage, capped at what its
 * queue may still use (nominal, or nominal + borrowingLimit when the
 * assignment borrows), counts as used until the cycle ends. */
static void reserve(struct reservations *r, struct entry *en, const size_t *fr, const int64_t *need,
                    size_t n)
{
    struct ts_quota_node *node = &en->cq->node;

    for (size_t i = 0; i < n; i++) {
        int64_t bl = node->borrowing_limit[fr[i]], v;
        ts_quota_sum room;

        if (en->a.borrow_level > 0)
            room = bl == TS_AMOUNT_NONE
                       ? need[i]
                       : (ts_quota_sum)node->nominal[fr[i]] + bl - node->usage_sum[fr[i]];
        else
            room = (ts_quota_sum)node->nominal[fr[i]] - node->usage_sum[fr[i]];
        v = need[i] < room ? need[i] : ts_quota_clamp(room);
        if (v <= 0)
            continue;
        if (r->n == r->cap) {
            r->cap = r->cap ? 2 * r->cap : 8;
            r->node = ts_xrealloc(r->node, r->cap * sizeof(*r->node));
            r->fr = ts_xrealloc(r->fr, r->cap * sizeof(*r->fr));
            r->v = ts_xrealloc(r->v, r->cap * sizeof(*r->v));
        }
        ts_quota_add_usage(node, fr[i], v);
        ts__eng_memo_reserve(node, fr[i], v, 1);
        r->node[r->n] = node;
        r->fr[r->n] = fr[i];
        r->v[r->n++] = v;
    }
}

/* With no victim to preempt, Kueue (scheduler.go) holds the capacity
 * back too, unless the queue can always reclaim it later
 * (reclaimWithinCohort Any): a lower workload of another queue must not
 * take it first. */
static void reserve_without_victims(struct reservations *r, struct entry *en)
{
    size_t *fr, n;
    int64_t *need;

    if (en->cq->preemption.reclaim_within_cohort == TS_RECLAIM_ANY)
        return;
    n = totals(&en->a, &fr, &need);
    reserve(r, en, fr, need, n);
    free(fr);
    free(need);
}

/* Gives the reservations of the cycle back. */
static void unreserve(struct reservations *r)
{
    for (size_t i = 0; i < r->n; i++) {
        ts_quota_remove_usage(r->node[i], r->fr[i], r->v[i]);
        ts__eng_memo_reserve(r->node[i], r->fr[i], r->v[i], -1);
    }
    free(r->node);
    free(r->fr);
    free(r->v);
    free(r->victims);
    memset(r, 0, sizeof(*r));
}

static int is_victim(const struct reservations *r, const struct ts__eng_wl *w)
{
    for (size_t i = 0; i < r->n_victims; i++) {
        if (r->victims[i] == w)
            return 1;
    }
    return 0;
}

/* Whether the entry fits once this cycle's victims and its own are gone
 * (Kueue's scheduler.go fits: the quota they free counts, as the entries
 * processed before took theirs). */
static int fits_without(const struct entry *en, const struct reservations *r,
                        const struct ts__eng_target *t, size_t nt)
{
    int ok;

    for (size_t i = 0; i < r->n_victims; i++)
        ts__eng_wl_quota(r->victims[i], -1);
    for (size_t i = 0; i < nt; i++)
        ts__eng_wl_quota(t[i].wl, -1);
    ok = ts__eng_assignment_fits(en->cq, &en->a);
    for (size_t i = 0; i < nt; i++)
        ts__eng_wl_quota(t[i].wl, 1);
    for (size_t i = 0; i < r->n_victims; i++)
        ts__eng_wl_quota(r->victims[i], 1);
    return ok;
}

/* Whether a fitting entry may be admitted after this cycle's preemptions:
 * into the quota free now, its victims still holding theirs and nothing
 * held back for the preemptors (nothing is admitted into quota still in
 * use), and into what is left once the victims are gone and the
 * preemptors hold theirs (Kueue's scheduler.go fits(), on which the
 * preemptors rely).  Without victims this cycle it is the second alone. */
static int fits_now_and_after(const struct entry *en, const struct reservations *r)
{
    int ok;

    if (!r->n_victims)
        return ts__eng_assignment_fits(en->cq, &en->a);
    ok = fits_without(en, r, NULL, 0);
    if (!ok || !r->n)
        return ok;
    for (size_t i = 0; i < r->n; i++)
        ts_quota_remove_usage(r->node[i], r->fr[i], r->v[i]);
    ok = ts__eng_assignment_fits(en->cq, &en->a);
    for (size_t i = 0; i < r->n; i++)
        ts_quota_add_usage(r->node[i], r->fr[i], r->v[i]);
    return ok;
}

/* Issues the preemptions an entry needs, or says why it cannot. */
/* A head that is neither admitted nor preempting this cycle: its pending
 * status, its class told of the verdict (BestEffortFIFO), and back to the
 * heap; with flavors left to try at once (Kueue's requeueIfNotPresent,
 * PendingFlavors), else as inadmissible, its shape blocked when
 * may_block. */
static void not_admitted(struct ts_engine *e, struct entry *en, struct ts_cycle *c, size_t *moved,
                         const char *reason, int may_block)
{
    struct ts__eng_wl *wl = en->wl;
    int best_effort = en->cq->queueing != TS_QUEUEING_STRICT_FIFO;
    int left = ts__eng_keep_tried(e, en->cq, wl, &en->a);

    if (pending(c, wl, reason, en->a.message ? en->a.message : "")) {
        /* a new status: Kueue's queue manager takes the workload's info
         * anew from the update, without its last assignment */
        ts__eng_forget_tried(wl);
        if (best_effort)
            tell_class(en->cq, wl, c);
    }
    requeue(en->cq, wl, best_effort && !left, moved);
    if (left)
        (*moved)++; /* a retry due: the next cycle has work */
    else if (may_block)
        block(en->cq, wl);
}

static void preempt(struct ts_engine *e, struct entry *en, struct ts_cycle *c, size_t *moved,
                    struct reservations *resv)
{
    struct ts__eng_wl *wl = en->wl;
    struct ts__eng_target *t;
    size_t *fr, n, nt, fresh = 0;
    int64_t *need;
    struct ts_buf msg = TS_BUF_INIT;
    struct ts_decision *d;

    t = en->t;
    nt = en->nt;
    en->t = NULL;
    for (size_t i = 0; i < nt; i++) {
        if (is_victim(resv, t[i].wl)) {
            ts__eng_forget_tried(wl); /* Kueue's setSkipped */
            pending(c, wl, TS_WL_REASON_WAITING_FOR_QUOTA,
                    "Workload has overlapping preemption targets with another workload");
            requeue(en->cq, wl, 0, moved);
            free(t);
            return;
        }
        fresh += !t[i].wl->evicting && !t[i].wl->evicted;
    }
    if (nt && !fits_without(en, resv, t, nt)) {
        pending(c, wl, TS_WL_REASON_WAITING_FOR_QUOTA,
                "Workload no longer fits after processing another workload");
        requeue(en->cq, wl, 0, moved);
        free(t);
        return;
    }
    n = totals(&en->a, &fr, &need);
    if (nt) {
        ts__eng_forget_tried(wl); /* preempting: the next attempt tries every flavor */
        for (size_t i = 0; i < nt; i++) {
            TS_GROW(resv->victims, resv->cap_victims, resv->n_victims + 1);
            resv->victims[resv->n_victims++] = t[i].wl;
        }
        reserve(resv, en, fr, need, n);
        if (en->cq->queueing == TS_QUEUEING_BEST_EFFORT_FIFO) {
            free(en->cq->preemptor);
            en->cq->preemptor = ts_xstrdup(wl->key);
        }
    }
    free(fr);
    free(need);
    if (!nt) {
        reserve_without_victims(resv, en);
        not_admitted(e, en, c, moved, TS_WL_REASON_WAITING_FOR_QUOTA, 0);
        free(t);
        return;
    }
    ts_buf_addf(&msg, "%s. Pending the preemption of %zu workload(s)",
                en->a.message ? en->a.message : "", nt);
    if (!fresh) { /* the victims are already on their way out */
        pending(c, wl, TS_WL_REASON_WAITING_FOR_PREEMPTED_WORKLOADS, msg.ptr);
    } else {
        free(wl->last_reason);
        free(wl->last_message);
        wl->last_reason = ts_xstrdup(TS_WL_REASON_WAITING_FOR_PREEMPTED_WORKLOADS);
        wl->last_message = ts_buf_take(&msg);
        d = decision_add(c, TS_DECISION_PREEMPT, wl);
        d->reason = wl->last_reason;
        d->message = wl->last_message;
        d->targets = ts_xcalloc(fresh, sizeof(*d->targets));
        for (size_t i = 0; i < nt; i++) {
            struct ts_decision_target *dt;

            if (t[i].wl->evicting || t[i].wl->evicted) /* on its way out already */
                continue;
            t[i].wl->evicting = 1;
            ts__eng_holders_changed(t[i].wl->cq);
            t[i].wl->evict_cycle = e->cycle_seq;
            dt = &d->targets[d->n_targets++];
            dt->ns = t[i].wl->ns;
            dt->name = t[i].wl->name;
            dt->reason = t[i].reason;
            dt->message = ts__eng_preempt_message(wl, en->cq, t[i].wl, t[i].reason);
        }
    }
    ts_buf_release(&msg);
    requeue(en->cq, wl, 0, moved); /* retried first once the victims are gone */
    free(t);
}

static void process(struct ts_engine *e, struct entry *en, struct ts_cycle *c, size_t *moved,
                    ts_time now, struct reservations *resv)
{
    struct ts__eng_wl *wl = en->wl;

    if (en->reason) {
        /* misconfiguration is per workload: a class of its own */
        pending(c, wl, en->reason, en->message);
        ts__eng_park(en->cq, wl, wl->shape ^ ts_hash_str(wl->key));
        (*moved)++;
        return;
    }
    if (en->a.mode == TS__ENG_FIT) {
        if (e->blocking) {
            size_t retried = 0; /* not progress: a PodsReady change kicks the next cycle */

            pending(c, wl, TS_WL_REASON_WAITING_FOR_PODS_READY,
                    "waiting for all admitted workloads to be in PodsReady condition");
            requeue(en->cq, wl, 0, &retried);
            return;
        }
        if (fits_now_and_after(en, resv)) {
            assume(e, en, c, now);
            e->blocking = e->config.block_admission; /* the new one is not ready yet */
            return;
        }
        /* an earlier entry of this cycle took the quota: retry at once,
         * from the first flavors (Kueue's setSkipped) */
        ts__eng_forget_tried(wl);
        pending(c, wl, TS_WL_REASON_WAITING_FOR_QUOTA,
                "Workload no longer fits after processing another workload");
        requeue(en->cq, wl, 0, moved);
        return;
    }
    if (en->a.mode == TS__ENG_PREEMPT || en->a.mode == TS__ENG_RECLAIM) {
        preempt(e, en, c, moved, resv);
        return;
    }
    if (en->a.mode == TS__ENG_NO_CANDIDATES)
        reserve_without_victims(resv, en);
    not_admitted(e, en, c, moved, nofit_reason(&en->a), 1);
}

/* The next head of cq worth a look: heads equivalent to one that did not
 * fit since the last requeue are parked with the same verdict at once. */
static struct ts__eng_wl *next_head(const struct ts_engine *e, struct ts__eng_cq *cq,
                                    struct ts_cycle *c, size_t *moved)
{
    struct ts__eng_wl *wl;
    const struct ts__eng_blocked *b;

    if (cq->preemptor) {
        wl = ts_hmap_get(&e->workloads, cq->preemptor);
        if (!wl || wl->cq != cq || wl->state != TS__ENG_WL_PENDING) {
            free(cq->preemptor); /* admitted, deleted or moved away */
            cq->preemptor = NULL;
        } else if (ts_heap_remove(&cq->pending, wl)) {
            return wl; /* parked, it stays first for when it is back */
        }
    }

    while ((wl = ts_heap_pop(&cq->pending))) {
        if (!(b = blocked(cq, wl->shape)))
            return wl;
        pending(c, wl, b->reason, b->message);
        requeue(cq, wl, 1, moved);
    }
    return NULL;
}

/* Whether an admitted (or assumed) workload is not PodsReady. */
static int any_unready(const struct ts_engine *e)
{
    size_t it = 0;
    const char *k;
    void *v;

    while (ts_hmap_next(&e->cqs, &it, &k, &v)) {
        const struct ts__eng_cq *cq = v;

        for (size_t h = 0; h < cq->n_holders; h++) {
            if (!cq->holders[h]->pods_ready && !cq->holders[h]->evicting)
                return 1;
        }
    }
    return 0;
}

/* Decisions from `from` on that move quota (admissions, preemptions): a
 * pending verdict alone is no progress.  Counted as progress, the changing
 * "N more needed" of many waiting heads would keep a controller cycling
 * on a full core, its watch falling behind. */
static size_t quota_moves(const struct ts_cycle *out, size_t from)
{
    size_t n = 0;

    for (size_t i = from; i < out->n; i++)
        n += out->items[i].kind != TS_DECISION_PENDING;
    return n;
}

static void done_with(struct entry *en)
{
    ts__eng_assignment_release(&en->a);
    free(en->message);
    free(en->t);
}

/* Under fair sharing the heads go in Kueue's tournament order
 * (fsorder.c); the ones refused before flavor assignment take no part in
 * it (Kueue's inadmissible entries) and move no quota. */
static void fair_order(struct ts_engine *e, struct entry *entries, size_t n, struct ts_cycle *out,
                       size_t *moved, ts_time now, struct reservations *resv)
{
    struct ts__eng_fs_cand *cands = ts_xcalloc(n + 1, sizeof(*cands)), *c;
    size_t m = 0;

    for (size_t i = 0; i < n; i++) {
        struct entry *en = &entries[i];

        if (en->reason) {
            process(e, en, out, moved, now, resv);
            done_with(en);
            continue;
        }
        c = &cands[m++];
        c->wl = en->wl;
        c->cq = en->cq;
        c->idx = i;
        c->usage = ts_xcalloc(e->nfr + 1, sizeof(*c->usage));
        for (size_t p = 0; en->a.ps && p < en->a.n_podsets; p++) {
            for (size_t j = 0; j < en->a.ps[p].n; j++)
                c->usage[en->a.ps[p].fr[j]] =
                    ts_amount_add(c->usage[en->a.ps[p].fr[j]], en->a.ps[p].amount[j]);
        }
        en->cq->fs_cand = c;
    }
    while ((c = ts__eng_fs_next(e, cands, m))) {
        struct entry *en = &entries[c->idx];
        int may_move = en->a.mode != TS__ENG_NOFIT; /* admits or reserves */

        process(e, en, out, moved, now, resv);
        if (may_move)
            ts__eng_fs_moved(cands, m, &en->cq->node);
        done_with(en);
    }
    for (size_t i = 0; i < m; i++)
        ts__eng_fs_cand_release(&cands[i]);
    free(cands);
}

size_t ts_engine_cycle(struct ts_engine *e, ts_time now, struct ts_cycle *out)
{
    size_t before = out->n, n = 0, moved = 0, it = 0;
    struct reservations resv = {0};
    struct entry *entries, **order; /* order: sorted, not the entries (large) */
    size_t each = sizeof(*entries) + sizeof(*order);
    const char *k;
    void *v;

    e->cycle_seq++;
    e->blocking = e->config.block_admission && any_unready(e);
    ts__eng_requeue_flush(e);
    process_dirty(e, out);
    if (e->cap_scratch < e->cqs.n * each || !e->scratch) {
        free(e->scratch);
        e->cap_scratch = (e->cqs.n + 16) * each;
        e->scratch = ts_xmalloc(e->cap_scratch);
    }
    entries = e->scratch;
    order = (struct entry **)(entries + e->cqs.n);
    memset(entries, 0, e->cqs.n * sizeof(*entries));
    while (ts_hmap_next(&e->cqs, &it, &k, &v)) {
        struct ts__eng_cq *cq = v;

        if (!cq->pending.n || ts__eng_cq_inactive(e, cq))
            continue;
        entries[n].cq = cq;
        if ((entries[n].wl = next_head(e, cq, out, &moved)))
            n++;
    }
    for (size_t i = 0; i < n; i++) {
        nominate(e, &entries[i]);
        order[i] = &entries[i];
    }
    if (e->config.fair_sharing) {
        fair_order(e, entries, n, out, &moved, now, &resv);
    } else {
        qsort(order, n, sizeof(*order), entry_cmp);
        for (size_t i = 0; i < n; i++) {
            process(e, order[i], out, &moved, now, &resv);
            ts__eng_assignment_release(&order[i]->a);
            free(order[i]->message);
            free(order[i]->t);
        }
    }
    unreserve(&resv);
    out->heads += n;
    return moved + quota_moves(out, before);
}
