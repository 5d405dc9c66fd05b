/* checks.c - AdmissionChecks: which a ClusterQueue names, whether they
 * exist and are active (Kueue's pkg/cache/scheduler/clusterqueue.go,
 * updateWithAdmissionChecks), and which apply to an admission (Kueue's
 * pkg/workload/workload.go, AdmissionChecksForWorkload). */
#include "engine/engine_int.h"

#include "api/workload.h"
#include "util/alloc.h"

#include <stdlib.h>
#include <string.h>

static void check_free(struct ts__eng_check *c)
{
    if (!c)
        return;
    free(c->name);
    free(c->controller);
    free(c);
}

void ts_engine_put_admission_check(struct ts_engine *e, const char *name, const char *controller,
                                   int active)
{
    struct ts__eng_check *c = ts_xcalloc(1, sizeof(*c));

    ts__eng_config_changed(e);
    c->name = ts_xstrdup(name);
    c->controller = ts_xstrdup(controller ? controller : "");
    c->active = active;
    check_free(ts_hmap_put(&e->checks, c->name, c));
    ts__eng_reroute(e);
    ts__eng_requeue_all(e);
}

void ts_engine_delete_admission_check(struct ts_engine *e, const char *name)
{
    struct ts__eng_check *c = ts_hmap_del(&e->checks, name);

    ts__eng_config_changed(e);
    if (!c)
        return;
    check_free(c);
    ts__eng_reroute(e);
}

void ts__eng_free_checks(struct ts_engine *e)
{
    size_t it = 0;
    const char *k;
    void *v;

    while (ts_hmap_next(&e->checks, &it, &k, &v))
        check_free(v);
    ts_hmap_release(&e->checks);
}

static int by_name(const void *a, const void *b)
{
    const struct ts__eng_cq_check *x = a, *y = b;

    return strcmp(x->name, y->name);
}

void ts__eng_cq_free_checks(struct ts__eng_cq *cq)
{
    for (size_t i = 0; i < cq->n_checks; i++) {
        free(cq->checks[i].name);
        ts_strlist_release(&cq->checks[i].on_flavors);
    }
    free(cq->checks);
    cq->checks = NULL;
    cq->n_checks = 0;
}

void ts__eng_cq_set_checks(struct ts__eng_cq *cq, const struct ts_admission_checks_strategy *s)
{
    ts__eng_cq_free_checks(cq);
    if (!s->n)
        return;
    cq->checks = ts_xcalloc(s->n, sizeof(*cq->checks));
    for (size_t i = 0; i < s->n; i++) {
        if (!s->items[i].name)
            continue;
        cq->checks[cq->n_checks].name = ts_xstrdup(s->items[i].name);
        ts_strlist_copy(&cq->checks[cq->n_checks].on_flavors, &s->items[i].on_flavors);
        cq->n_checks++;
    }
    qsort(cq->checks, cq->n_checks, sizeof(*cq->checks), by_name);
}

size_t ts__eng_cq_bad_checks(const struct ts_engine *e, const struct ts__eng_cq *cq, int inactive,
                             struct ts_buf *out)
{
    size_t n = 0;

    for (size_t i = 0; i < cq->n_checks; i++) {
        const struct ts__eng_check *c = ts_hmap_get(&e->checks, cq->checks[i].name);

        if (inactive ? !c || c->active : c != NULL)
            continue;
        if (out)
            ts_buf_addf(out, "%s%s", n ? "," : "", cq->checks[i].name);
        n++;
    }
    return n;
}

/* Whether the queue has flavor `name` in a resource group. */
static int cq_has_flavor(const struct ts__eng_cq *cq, const char *name)
{
    for (size_t g = 0; g < cq->n_rgs; g++) {
        for (size_t f = 0; f < cq->rgs[g].n_flavors; f++) {
            if (!strcmp(cq->rgs[g].flavors[f].name, name))
                return 1;
        }
    }
    return 0;
}

/* Whether check i applies to exactly the queue's flavors (Kueue compares
 * its flavor set with the queue's: onFlavors unset means all of them). */
static int on_all_flavors(const struct ts__eng_cq *cq, size_t i)
{
    const struct ts_strlist *on = &cq->checks[i].on_flavors;

    if (!on->n)
        return 1;
    for (size_t k = 0; k < on->n; k++) {
        if (!cq_has_flavor(cq, on->items[k]))
            return 0;
    }
    for (size_t g = 0; g < cq->n_rgs; g++) {
        for (size_t f = 0; f < cq->rgs[g].n_flavors; f++) {
            if (ts_strlist_index(on, cq->rgs[g].flavors[f].name) < 0)
                return 0;
        }
    }
    return 1;
}

static int all_on_all_flavors(const struct ts__eng_cq *cq)
{
    for (size_t i = 0; i < cq->n_checks; i++) {
        if (!on_all_flavors(cq, i))
            return 0;
    }
    return 1;
}

/* Whether check i applies to flavor `name`. */
static int applies_to(const struct ts__eng_cq *cq, size_t i, const char *name)
{
    const struct ts_strlist *on = &cq->checks[i].on_flavors;

    return on->n ? ts_strlist_index(on, name) >= 0 : cq_has_flavor(cq, name);
}

void ts__eng_decision_checks(const struct ts_engine *e, const struct ts__eng_cq *cq,
                             const struct ts__eng_wl *wl, struct ts_decision *d)
{
    int all = all_on_all_flavors(cq);

    d->n_checks = 0;
    d->checks = cq->n_checks ? ts_xcalloc(cq->n_checks, sizeof(*d->checks)) : NULL;
    for (size_t i = 0; i < cq->n_checks; i++) {
        int use = all;

        for (size_t p = 0; !use && wl->admission && p < wl->n_podsets; p++) {
            for (size_t j = 0; !use && j < wl->admission[p].n; j++)
                use = applies_to(cq, i, e->fr_flavor[wl->admission[p].fr[j]]);
        }
        if (use)
            d->checks[d->n_checks++] = cq->checks[i].name;
    }
}

int ts_engine_checks_for(const struct ts_engine *e, const char *name,
                         const struct ts_admission *admission, struct ts_strlist *out)
{
    const struct ts__eng_cq *cq = ts_hmap_get(&e->cqs, name);
    int all;

    if (!cq)
        return TS_ENOTFOUND;
    all = all_on_all_flavors(cq);
    for (size_t i = 0; i < cq->n_checks; i++) {
        int use = all;

        for (size_t p = 0; !use && admission && p < admission->n_podset_assignments; p++) {
            const struct ts_strmap *fl = &admission->podset_assignments[p].flavors;

            for (size_t j = 0; !use && j < fl->n; j++)
                use = applies_to(cq, i, fl->items[j].value);
        }
        if (use)
            ts_strlist_push(out, cq->checks[i].name);
    }
    return 0;
}

int ts_engine_cq_has_checks(const struct ts_engine *e, const char *name)
{
    const struct ts__eng_cq *cq = ts_hmap_get(&e->cqs, name);

    return cq && cq->n_checks > 0;
}
