#include "engine/assign.h"

#include "engine/amount.h"
#include "engine/memo.h"
#include "engine/preempt.h"
#include "util/alloc.h"
#include "util/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reasons collected while scanning flavors; Kueue sorts and joins them. */
struct status {
    struct ts_strlist reasons;
    enum ts__eng_nofit nofit;
};

static void status_add(struct status *s, enum ts__eng_nofit kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void status_add(struct status *s, enum ts__eng_nofit kind, const char *fmt, ...)
{
    char line[1024]; /* names are bounded (253), so reasons fit */
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    ts_strlist_push(&s->reasons, line);
    if (kind > s->nofit)
        s->nofit = kind;
}

/* One requested resource of a pod set: total for the pod set. */
struct req {
    size_t res;
    int64_t total;
    size_t fr;  /* chosen flavor-resource, SIZE_MAX while unassigned */
    size_t cov; /* index among the covering group's resources */
};

/* The running usage of this workload's earlier pod sets, per fr. */
struct acc {
    size_t n, cap;
    size_t *fr;
    int64_t *amount;
};

static int64_t acc_get(const struct acc *a, size_t fr)
{
    for (size_t i = 0; i < a->n; i++) {
        if (a->fr[i] == fr)
            return a->amount[i];
    }
    return 0;
}

static void acc_add(struct acc *a, size_t fr, int64_t v)
{
    size_t cap_amount = a->cap;

    for (size_t i = 0; i < a->n; i++) {
        if (a->fr[i] == fr) {
            a->amount[i] = ts_amount_add(a->amount[i], v);
            return;
        }
    }
    TS_GROW(a->fr, a->cap, a->n + 1);
    TS_GROW(a->amount, cap_amount, a->n + 1);
    a->fr[a->n] = fr;
    a->amount[a->n++] = v;
}

static void taint_string(const struct ts_taint *t, char *buf, size_t len)
{
    /* v1.Taint.ToString(): key[=value][:effect] */
    snprintf(buf, len, "%s%s%s%s%s", t->key ? t->key : "", t->value && t->value[0] ? "=" : "",
             t->value ? t->value : "", t->effect && t->effect[0] ? ":" : "",
             t->effect ? t->effect : "");
}

static int effect_blocks(const char *effect)
{
    return effect && (strcmp(effect, "NoSchedule") == 0 || strcmp(effect, "NoExecute") == 0);
}

/* The first flavor taint (NoSchedule/NoExecute) tolerated neither by the
 * pods nor by the flavor's own tolerations, or NULL. */
static const struct ts_taint *untolerated(const struct ts__eng_flavor *f,
                                          const struct ts_pod_template *t)
{
    for (size_t i = 0; i < f->n_taints; i++) {
        const struct ts_taint *taint = &f->taints[i];

        if (!effect_blocks(taint->effect))
            continue;
        if (ts_tolerations_tolerate(t->tolerations, t->n_tolerations, taint) ||
            ts_tolerations_tolerate(f->tolerations, f->n_tolerations, taint))
            continue;
        return taint;
    }
    return NULL;
}

static int term_matches_filtered(const struct ts_node_selector_term *term,
                                 const struct ts_strlist *keys, const struct ts_strmap *labels,
                                 int *emptied)
{
    size_t kept = 0;

    for (size_t j = 0; j < term->n_exprs; j++) {
        if (ts_strlist_index(keys, term->exprs[j].key) < 0)
            continue;
        kept++;
        if (!ts_node_selector_req_matches(&term->exprs[j], labels))
            return 0;
    }
    *emptied = kept == 0;
    return 1;
}

/* Kueue's flavorSelector: the pods' nodeSelector and required affinity,
 * restricted to the label keys the group's flavors use, matched against a
 * node carrying the flavor's labels. */
static int affinity_matches(const struct ts_pod_template *t, const struct ts_strlist *keys,
                            const struct ts_strmap *labels)
{
    int any = 0;

    for (size_t i = 0; i < t->node_selector.n; i++) {
        const struct ts_strmap_entry *kv = &t->node_selector.items[i];
        const char *v;

        if (ts_strlist_index(keys, kv->key) < 0)
            continue;
        v = ts_strmap_get(labels, kv->key);
        if (!v || strcmp(v, kv->value))
            return 0;
    }
    if (!t->has_required_affinity || !t->n_affinity_terms)
        return 1;
    for (size_t i = 0; i < t->n_affinity_terms; i++) {
        int emptied = 0;
        int m = term_matches_filtered(&t->affinity_terms[i], keys, labels, &emptied);

        if (emptied) /* a term left empty makes the ORed affinity match anything */
            return 1;
        any |= m;
    }
    return any;
}

struct ctx {
    const struct ts_engine *e;
    struct ts__eng_cq *cq; /* the preemption oracle borrows its quota tree */
    const struct ts__eng_wl *wl;
    struct acc acc;
    struct status st;
    const int32_t *start; /* wl's tried indexes for cq, or NULL */
    int32_t *tried;       /* this attempt's, n_podsets * cq->n_rgs */
};

/* Kueue's fitsResourceQuota for `val` (already including this workload's
 * earlier pod sets) of fr. */
static enum ts__eng_mode fits_quota(struct ctx *c, size_t fr, int64_t val, int *borrow)
{
    const struct ts_quota_node *n = &c->cq->node;
    const char *res = c->e->resource_names[c->e->fr_resource[fr]];
    const char *flavor = c->e->fr_flavor[fr];
    int64_t potential = ts_quota_potential(n, fr), avail;
    char a[TS_QUANTITY_STR_MAX], b[TS_QUANTITY_STR_MAX];
    int may_reclaim = 0;

    if (val == TS_AMOUNT_UNLIMITED) {
        /* where Kueue's int64 arithmetic would wrap, a request too large
         * to count never fits (quota.h) */
        status_add(&c->st, TS__ENG_NOFIT_MAX,
                   "insufficient quota for %s in flavor %s, request too large to count "
                   "(at least %s)",
                   res, flavor, ts_amount_format(res, TS_AMOUNT_UNLIMITED, a, sizeof(a)));
        return TS__ENG_NOFIT;
    }
    if (val > potential) {
        status_add(&c->st, TS__ENG_NOFIT_MAX,
                   "insufficient quota for %s in flavor %s, request > maximum capacity (%s > %s)",
                   res, flavor, ts_amount_format(res, val, a, sizeof(a)),
                   ts_amount_format(res, potential, b, sizeof(b)));
        return TS__ENG_NOFIT;
    }
    *borrow = ts_quota_fit_height(n, fr, val, &may_reclaim);
    avail = ts_quota_available(n, fr);
    if (val <= avail)
        return TS__ENG_FIT;
    status_add(&c->st, TS__ENG_NOFIT_QUOTA,
               "insufficient unused quota for %s in flavor %s, %s more needed", res, flavor,
               ts_amount_format(res, val - avail, a, sizeof(a)));
    if (val <= n->nominal[fr] || may_reclaim ||
        c->cq->preemption.borrow_within_cohort != TS_BORROW_NEVER ||
        (c->e->config.fair_sharing &&
         c->cq->preemption.reclaim_within_cohort != TS_RECLAIM_NEVER)) {
        /* the preemption oracle: could victims make room for this pair? */
        struct ts__eng_target *t;
        int cross;
        size_t nt = ts__eng_preempt_targets_memo(c->e, c->cq, c->wl, &fr, &val, 1, &t, &cross);

        /* Kueue's oracle reports the borrowing once the victims are gone */
        for (size_t i = 0; i < nt; i++)
            ts__eng_wl_quota(t[i].wl, -1);
        if (nt)
            *borrow = ts_quota_fit_height(n, fr, val, &may_reclaim);
        for (size_t i = 0; i < nt; i++)
            ts__eng_wl_quota(t[i].wl, 1);
        free(t);
        if (!nt)
            return TS__ENG_NO_CANDIDATES;
        return cross ? TS__ENG_RECLAIM : TS__ENG_PREEMPT;
    }
    return TS__ENG_NOFIT;
}

static int should_try_next(const struct ts__eng_cq *cq, enum ts__eng_mode mode, int borrow)
{
    const struct ts_flavor_fungibility *f = &cq->fungibility;

    if (mode == TS__ENG_PREEMPT || mode == TS__ENG_RECLAIM) {
        if (f->when_can_preempt == TS_FUNGIBILITY_MAY_STOP_SEARCH &&
            (!borrow || f->when_can_borrow == TS_FUNGIBILITY_MAY_STOP_SEARCH))
            return 0;
    }
    if (mode == TS__ENG_FIT && (!borrow || f->when_can_borrow == TS_FUNGIBILITY_MAY_STOP_SEARCH))
        return 0;
    return 1;
}

/* isPreferred: is (m1,b1) better than (m2,b2)? */
static int preferred(const struct ts__eng_cq *cq, enum ts__eng_mode m1, int b1,
                     enum ts__eng_mode m2, int b2)
{
    if (m2 == TS__ENG_NOFIT)
        return m1 != TS__ENG_NOFIT;
    if (m1 <= TS__ENG_NO_CANDIDATES || m2 <= TS__ENG_NO_CANDIDATES)
        return m1 > m2;
    if (cq->fungibility.preference == TS_PREFERENCE_PREEMPTION_OVER_BORROWING && b1 != b2)
        return b1 < b2;
    if (m1 != m2)
        return m1 > m2;
    return b1 < b2;
}

/* Walks one resource group's flavors for the requests it covers;
 * assigns the chosen flavor into reqs[].fr. */
static enum ts__eng_mode find_flavor(struct ctx *c, size_t psi, size_t g,
                                     const struct ts__eng_podset *ps, struct req *reqs, size_t n,
                                     int *borrow_out)
{
    const struct ts__eng_rg *rg = &c->cq->rgs[g];
    enum ts__eng_mode best = TS__ENG_NOFIT;
    long best_idx = -1, attempted = -1;
    int best_borrow = 0;
    int32_t last = c->start ? c->start[psi * c->cq->n_rgs + g] : TS__ENG_TRIED_NONE;
    size_t fi = last >= 0 ? (size_t)last + 1 : 0; /* Kueue's NextFlavorToTryForPodSetResource */

    for (; fi < rg->n_flavors; fi++) {
        attempted = (long)fi;
        const char *fname = rg->flavors[fi].name;
        const struct ts__eng_flavor *f = rg->flavors[fi].flavor;
        enum ts__eng_mode mode = TS__ENG_FIT;
        const struct ts_taint *taint;
        int borrow = 0;

        if (!f) {
            status_add(&c->st, TS__ENG_NOFIT_FLAVOR, "flavor %s not found", fname);
            continue;
        }
        if ((taint = untolerated(f, &ps->tmpl))) {
            char ts[256];

            taint_string(taint, ts, sizeof(ts));
            status_add(&c->st, TS__ENG_NOFIT_FLAVOR, "untolerated taint %s in flavor %s", ts,
                       fname);
            continue;
        }
        if (!affinity_matches(&ps->tmpl, &rg->label_keys, &f->node_labels)) {
            status_add(&c->st, TS__ENG_NOFIT_FLAVOR, "flavor %s doesn't match node affinity",
                       fname);
            continue;
        }
        for (size_t i = 0; i < n && mode != TS__ENG_NOFIT; i++) {
            size_t fr = rg->flavors[fi].fr[reqs[i].cov];
            int b = 0;
            enum ts__eng_mode m =
                fits_quota(c, fr, ts_amount_add(reqs[i].total, acc_get(&c->acc, fr)), &b);

            if (m < mode)
                mode = m;
            if (b > borrow)
                borrow = b;
        }
        if (mode != TS__ENG_NOFIT && preferred(c->cq, mode, borrow, best, best_borrow)) {
            best = mode;
            best_idx = (long)fi;
            best_borrow = borrow;
        }
        if (mode != TS__ENG_NOFIT && !should_try_next(c->cq, mode, borrow)) {
            best = mode;
            best_idx = (long)fi;
            best_borrow = borrow;
            break;
        }
    }
    for (size_t i = 0; best_idx >= 0 && i < n; i++)
        reqs[i].fr = rg->flavors[best_idx].fr[reqs[i].cov];
    /* where the search stopped, -1 once it reached the last flavor (the
     * next attempt starts over) */
    if (best_idx >= 0)
        c->tried[psi * c->cq->n_rgs + g] =
            attempted == (long)rg->n_flavors - 1 ? -1 : (int32_t)attempted;
    *borrow_out = best_borrow;
    return best;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Appends "couldn't assign flavors to pod set X: r1, r2" (sorted reasons). */
static void podset_message(struct ts_buf *msg, const char *ps, struct status *st)
{
    qsort(st->reasons.items, st->reasons.n, sizeof(char *), cmp_str);
    if (msg->len)
        ts_buf_adds(msg, "; ");
    /* no printf: every waiting head of a large cohort is told this again
     * at each requeue */
    ts_buf_adds(msg, "couldn't assign flavors to pod set ");
    ts_buf_adds(msg, ps);
    ts_buf_adds(msg, ": ");
    for (size_t i = 0; i < st->reasons.n; i++) {
        if (i)
            ts_buf_adds(msg, ", ");
        ts_buf_adds(msg, st->reasons.items[i]);
    }
}

/* The group covering res (and res's index in it), or -1. */
static long group_of(const struct ts__eng_cq *cq, size_t res, size_t *cov)
{
    for (size_t g = 0; g < cq->n_rgs; g++) {
        for (size_t i = 0; i < cq->rgs[g].n_covered; i++) {
            if (cq->rgs[g].covered[i] == res) {
                if (cov)
                    *cov = i;
                return (long)g;
            }
        }
    }
    return -1;
}

/* The pod set's requests × count, plus pods=count when the queue covers
 * "pods"; returns how many entries were written into reqs. */
static size_t podset_requests(const struct ts_engine *e, const struct ts__eng_cq *cq,
                              const struct ts__eng_podset *ps, int32_t count, struct req *reqs)
{
    size_t n = 0;
    void *pods = ts_hmap_get(&e->resource_ids, "pods");

    for (size_t i = 0; i < ps->n_req; i++) {
        reqs[n].res = ps->req_res[i];
        reqs[n].total = ts_amount_mul(ps->req_amount[i], count);
        reqs[n++].fr = SIZE_MAX;
    }
    if (pods && group_of(cq, (size_t)((uintptr_t)pods - 1), NULL) >= 0) {
        reqs[n].res = (size_t)((uintptr_t)pods - 1);
        reqs[n].total = count;
        reqs[n++].fr = SIZE_MAX;
    }
    return n;
}

/* Assigns every request of one pod set; returns its worst mode. */
static enum ts__eng_mode assign_podset(struct ctx *c, size_t psi, const struct ts__eng_podset *ps,
                                       struct req *reqs, size_t n, int *borrow)
{
    enum ts__eng_mode worst = TS__ENG_FIT;

    for (size_t i = 0; i < n; i++) {
        struct req sub[64];
        size_t idx[64], ns = 0;
        long g;
        int b = 0;
        enum ts__eng_mode m;

        if (reqs[i].fr != SIZE_MAX || reqs[i].total == 0)
            continue; /* done, or a zero request the queue may ignore */
        if ((g = group_of(c->cq, reqs[i].res, &reqs[i].cov)) < 0) {
            status_add(&c->st, TS__ENG_NOFIT_FLAVOR, "resource %s unavailable in ClusterQueue",
                       c->e->resource_names[reqs[i].res]);
            return TS__ENG_NOFIT;
        }
        for (size_t j = i; j < n && ns < 64; j++) {
            if (reqs[j].fr == SIZE_MAX && group_of(c->cq, reqs[j].res, &reqs[j].cov) == g) {
                sub[ns] = reqs[j];
                idx[ns++] = j;
            }
        }
        m = find_flavor(c, psi, (size_t)g, ps, sub, ns, &b);
        if (m == TS__ENG_NOFIT)
            return TS__ENG_NOFIT;
        for (size_t k = 0; k < ns; k++)
            reqs[idx[k]].fr = sub[k].fr;
        if (m < worst)
            worst = m;
        if (b > *borrow)
            *borrow = b;
    }
    return worst;
}

static void fill_psa(struct ctx *c, struct ts__eng_psa *psa, int32_t count, const struct req *reqs,
                     size_t n)
{
    psa->count = count;
    psa->fr = ts_xcalloc(n ? n : 1, sizeof(*psa->fr));
    psa->amount = ts_xcalloc(n ? n : 1, sizeof(*psa->amount));
    psa->n = 0;
    for (size_t i = 0; i < n; i++) {
        if (reqs[i].fr == SIZE_MAX)
            continue;
        psa->fr[psa->n] = reqs[i].fr;
        psa->amount[psa->n++] = reqs[i].total;
        acc_add(&c->acc, reqs[i].fr, reqs[i].total);
    }
}

void ts__eng_assign(const struct ts_engine *e, struct ts__eng_cq *cq, const struct ts__eng_wl *wl,
                    const int32_t *counts, struct ts__eng_assignment *out)
{
    struct ctx c = {e,    cq,  wl, {0, 0, NULL, NULL}, {TS_STRLIST_INIT, TS__ENG_NOFIT_FLAVOR},
                    NULL, NULL};
    struct ts_buf msg = TS_BUF_INIT;
    size_t n_tried = wl->n_podsets * cq->n_rgs;

    memset(out, 0, sizeof(*out));
    out->mode = TS__ENG_FIT;
    out->n_podsets = wl->n_podsets;
    out->ps = ts_xcalloc(wl->n_podsets ? wl->n_podsets : 1, sizeof(*out->ps));
    out->tried = ts_xcalloc(n_tried ? n_tried : 1, sizeof(*out->tried));
    for (size_t i = 0; i < n_tried; i++)
        out->tried[i] = TS__ENG_TRIED_NONE;
    c.tried = out->tried;
    /* a change of the queue's configuration voids it (Kueue's
     * AllocatableResourceGeneration) */
    if (wl->tried && wl->tried_cq == cq && wl->tried_config == e->config_seq)
        c.start = wl->tried;
    for (size_t i = 0; i < wl->n_podsets; i++) {
        const struct ts__eng_podset *ps = &wl->podsets[i];
        int32_t count = counts ? counts[i] : ps->count;
        struct req *reqs = ts_xcalloc(ps->n_req + 1, sizeof(*reqs));
        size_t n = podset_requests(e, cq, ps, count, reqs);
        int borrow = 0;
        enum ts__eng_mode m = assign_podset(&c, i, ps, reqs, n, &borrow);

        if (m == TS__ENG_NOFIT) { /* Kueue records nothing of a failed pod set */
            for (size_t g = 0; g < cq->n_rgs; g++)
                out->tried[i * cq->n_rgs + g] = TS__ENG_TRIED_NONE;
        }
        if (m != TS__ENG_FIT) {
            podset_message(&msg, ps->name, &c.st);
            if (c.st.nofit > out->nofit)
                out->nofit = c.st.nofit;
        }
        if (m < out->mode)
            out->mode = m;
        if (borrow > out->borrow_level)
            out->borrow_level = borrow;
        if (m != TS__ENG_NOFIT)
            fill_psa(&c, &out->ps[i], count, reqs, n);
        free(reqs);
        ts_strlist_release(&c.st.reasons);
        c.st.nofit = TS__ENG_NOFIT_FLAVOR;
        if (m == TS__ENG_NOFIT)
            break;
    }
    out->message = out->mode == TS__ENG_FIT ? NULL : ts_buf_take(&msg);
    ts_buf_release(&msg);
    free(c.acc.fr);
    free(c.acc.amount);
}

void ts__eng_psa_free(struct ts__eng_psa *ps, size_t n)
{
    for (size_t i = 0; ps && i < n; i++) {
        free(ps[i].fr);
        free(ps[i].amount);
    }
    free(ps);
}

void ts__eng_assignment_release(struct ts__eng_assignment *a)
{
    ts__eng_psa_free(a->ps, a->n_podsets);
    free(a->message);
    free(a->tried);
    memset(a, 0, sizeof(*a));
}

int ts__eng_keep_tried(const struct ts_engine *e, const struct ts__eng_cq *cq,
                       struct ts__eng_wl *wl, struct ts__eng_assignment *a)
{
    size_t n = a->n_podsets * cq->n_rgs;
    int left = 0;

    free(wl->tried);
    wl->tried = a->tried;
    a->tried = NULL;
    wl->tried_cq = cq;
    wl->tried_config = e->config_seq;
    for (size_t i = 0; wl->tried && i < n; i++)
        left |= wl->tried[i] >= 0;
    return left;
}

void ts__eng_forget_tried(struct ts__eng_wl *wl)
{
    free(wl->tried);
    wl->tried = NULL;
    wl->tried_cq = NULL;
}

int ts__eng_assignment_fits(const struct ts__eng_cq *cq, const struct ts__eng_assignment *a)
{
    /* sum per fr first: two pod sets may share a flavor */
    for (size_t i = 0; i < a->n_podsets; i++) {
        for (size_t j = 0; j < a->ps[i].n; j++) {
            size_t fr = a->ps[i].fr[j];
            int64_t total = 0;

            for (size_t k = 0; k < a->n_podsets; k++) {
                for (size_t l = 0; l < a->ps[k].n; l++) {
                    if (a->ps[k].fr[l] == fr)
                        total = ts_amount_add(total, a->ps[k].amount[l]);
                }
            }
            if (total == TS_AMOUNT_UNLIMITED || total > ts_quota_available(&cq->node, fr))
                return 0;
        }
    }
    return 1;
}

/* Counts for step i of Kueue's podset reducer: count_j - floor(delta_j*i/T). */
static void reduced_counts(const struct ts__eng_wl *wl, int64_t i, int64_t total, int32_t *out)
{
    for (size_t j = 0; j < wl->n_podsets; j++) {
        const struct ts__eng_podset *ps = &wl->podsets[j];
        int64_t delta = ps->min_count ? ps->count - ps->min_count : 0;

        out[j] = (int32_t)(ps->count - (total ? delta * i / total : 0));
    }
}

void ts__eng_assign_partial(const struct ts_engine *e, struct ts__eng_cq *cq,
                            const struct ts__eng_wl *wl, struct ts__eng_assignment *a)
{
    int64_t total = 0, lo, hi;
    int32_t *counts;
    struct ts__eng_assignment best = {0};
    int found = 0;

    for (size_t j = 0; j < wl->n_podsets; j++) {
        if (wl->podsets[j].min_count && wl->podsets[j].min_count < wl->podsets[j].count)
            total += wl->podsets[j].count - wl->podsets[j].min_count;
    }
    /* Kueue tries fewer pods only when the full count can neither fit nor
     * preempt its way in */
    if (!total || (a->mode != TS__ENG_NOFIT && a->mode != TS__ENG_NO_CANDIDATES))
        return;
    counts = ts_xcalloc(wl->n_podsets, sizeof(*counts));
    /* smallest reduction step i in [1, total] that fits */
    for (lo = 1, hi = total; lo <= hi;) {
        int64_t mid = lo + (hi - lo) / 2;
        struct ts__eng_assignment t;

        reduced_counts(wl, mid, total, counts);
        ts__eng_assign(e, cq, wl, counts, &t);
        /* as Kueue's PodSetReducer: a count that fits, or that preempting
         * would make fit */
        if (t.mode == TS__ENG_FIT || t.mode == TS__ENG_PREEMPT || t.mode == TS__ENG_RECLAIM) {
            ts__eng_assignment_release(&best);
            best = t;
            found = 1;
            hi = mid - 1;
        } else {
            ts__eng_assignment_release(&t);
            lo = mid + 1;
        }
    }
    free(counts);
    if (found) {
        ts__eng_assignment_release(a);
        *a = best;
    }
}
