#include "bench/ideal.h"

#include "api/object.h"
#include "bench/bucket.h"
#include "engine/engine.h"
#include "engine/heap.h"
#include "util/alloc.h"
#include "util/hmap.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Virtual time starts at 2026-01-01T00:00:00Z: a real-looking timestamp,
 * and never 0 (which means "unset"). */
#define T0 (INT64_C(1767225600) * TS_TIME_SECOND)

/* An evicted workload releases its quota this long after the eviction
 * write: its pods must stop.  Without it, the engine at one instant can
 * preempt and re-admit the same workloads forever (the victims come back
 * at once and take the freed quota before the preemptor; see
 * docs/perf-log.md). */
#define STOP (INT64_C(1000000)) /* 1 ms */

/* A write on its way to the API server: granted at `at`. */
struct write {
    ts_time at;
    size_t wl;
    int evict;
};

struct fifo {
    struct write *items;
    size_t head, n, cap;
};

struct wl_state {
    ts_time run_start; /* when its admission write was granted */
    ts_time finish_at;
    size_t heap_pos;
    int running;
};

struct run {
    const struct ts_bench_plan *p;
    struct ts_bench_result *r;
    struct ts_engine *e;
    struct ts_bench_bucket bucket;
    struct wl_state *st;
    struct ts_hmap by_name; /* name -> index + 1 */
    struct ts_heap finishing;
    struct fifo admits, evicts; /* each in non-decreasing time */
    size_t next_create;
    int gated; /* a cycle is due and waits for a write token */
};

static int finish_less(const void *a, const void *b)
{
    const struct wl_state *x = a, *y = b;

    if (x->finish_at != y->finish_at)
        return x->finish_at < y->finish_at ? -1 : 1;
    return x < y ? -1 : x > y; /* plan order on ties */
}

static size_t *finish_pos(void *e)
{
    return &((struct wl_state *)e)->heap_pos;
}

static int put_object(struct ts_engine *e, const cJSON *obj, struct ts_err *err)
{
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_object o;
    int rc = ts_object_decode(obj, &o, &errs, err);

    if (rc)
        goto out;
    switch (o.kind) {
    case TS_KIND_RESOURCE_FLAVOR:
        rc = ts_engine_put_flavor(e, &o.u.rf, err);
        break;
    case TS_KIND_COHORT:
        rc = ts_engine_put_cohort(e, &o.u.cohort, err);
        break;
    case TS_KIND_CLUSTER_QUEUE:
        rc = ts_engine_put_cluster_queue(e, &o.u.cq, err);
        break;
    case TS_KIND_LOCAL_QUEUE:
        rc = ts_engine_put_local_queue(e, &o.u.lq, err);
        break;
    default:
        rc = ts_err_set(err, TS_EINVAL, "unexpected object kind");
        break;
    }
    if (!rc && errs.n)
        rc = ts_field_errors_to_err(&errs, "generated object", err);
    ts_object_release(&o);
out:
    ts_field_errors_release(&errs);
    return rc;
}

static int create(struct run *x, size_t i, struct ts_err *err)
{
    ts_time now = T0 + x->p->wls[i].created;
    cJSON *obj = ts_bench_plan_workload(x->p, i, now);
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_object o;
    int rc = ts_object_decode(obj, &o, &errs, err);

    if (!rc) {
        rc = errs.n ? ts_field_errors_to_err(&errs, "generated workload", err)
                    : ts_engine_put_workload(x->e, &o.u.wl, now, err);
        ts_object_release(&o);
    }
    ts_field_errors_release(&errs);
    cJSON_Delete(obj);
    return rc;
}

static void finish(struct run *x, struct wl_state *s, ts_time now)
{
    size_t i = (size_t)(s - x->st);

    ts_heap_remove(&x->finishing, s);
    s->running = 0;
    x->r->wls[i].finished = now - T0;
    ts_bench_result_hold(x->r, x->p, i, s->run_start - T0, now - T0);
    ts_engine_delete_workload(x->e, TS_BENCH_NAMESPACE, x->p->wls[i].name);
}

/* A write was granted at `now`. */
static void land(struct run *x, const struct write *w, ts_time now)
{
    struct wl_state *s = &x->st[w->wl];
    struct ts_bench_wl_result *res = &x->r->wls[w->wl];
    const char *name = x->p->wls[w->wl].name;

    if (!w->evict) {
        ts_engine_admit_confirm(x->e, TS_BENCH_NAMESPACE, name);
        if (res->admitted < 0)
            res->admitted = now - T0;
        s->running = 1;
        s->run_start = now;
        s->finish_at = now + x->p->wls[w->wl].runtime;
        ts_heap_push(&x->finishing, s);
        return;
    }
    if (!s->running)
        return; /* finished before its eviction landed: the write conflicts */
    ts_heap_remove(&x->finishing, s);
    s->running = 0;
    res->evictions++;
    ts_bench_result_hold(x->r, x->p, w->wl, s->run_start - T0, now - T0);
    ts_engine_release(x->e, TS_BENCH_NAMESPACE, name);
}

static void fifo_push(struct fifo *f, size_t wl, int evict, ts_time at)
{
    if (f->head && f->head == f->n)
        f->head = f->n = 0; /* drained: reuse the array from its start */
    TS_GROW(f->items, f->cap, f->n + 1);
    f->items[f->n].wl = wl;
    f->items[f->n].evict = evict;
    f->items[f->n++].at = at;
}

static const struct write *fifo_peek(const struct fifo *f)
{
    return f->head < f->n ? &f->items[f->head] : NULL;
}

static void queue_write(struct run *x, const char *name, int evict, ts_time now)
{
    void *v = ts_hmap_get(&x->by_name, name);
    ts_time at;

    if (!v)
        return;
    at = ts_bench_bucket_take(&x->bucket, now);
    if (evict) {
        fifo_push(&x->evicts, (size_t)(uintptr_t)v - 1, 1, at + STOP);
        x->r->evictions++;
    } else {
        fifo_push(&x->admits, (size_t)(uintptr_t)v - 1, 0, at);
        x->r->admissions++;
    }
}

/* Lands every write of f due by `now`; returns how many. */
static size_t land_due(struct run *x, struct fifo *f, ts_time now)
{
    const struct write *w;
    size_t n = 0;

    while ((w = fifo_peek(f)) && w->at <= now) {
        struct write copy = *w;

        f->head++;
        land(x, &copy, now);
        n++;
    }
    return n;
}

/* What the budget grants over this window can go out at once before a
 * cycle runs: the live controller's TS__CTL_DECIDE_WINDOW (100 ms). */
#define DECIDE_WINDOW 0.1

static ts_time ready_at(const struct run *x)
{
    return ts_bench_bucket_ready_at(&x->bucket, x->bucket.qps * DECIDE_WINDOW);
}

/* Cycles at `now` until nothing changes.  As the live controller does
 * (pkg/controller/sched.c, run_cycle), a cycle runs only when the writes
 * of DECIDE_WINDOW's budget would be granted at once: decided earlier,
 * admissions would wait in the bucket's queue holding their quota. */
static int settle(struct run *x, ts_time now, struct ts_err *err)
{
    for (size_t rounds = 0;; rounds++) {
        struct ts_cycle c;
        size_t n;

        if ((x->gated = ready_at(x) > now))
            return 0;
        if (rounds > 1000000)
            return ts_err_set(err, TS_EINTERNAL, "cycles never settle at +%.3f s",
                              (double)(now - T0) / 1e9);
        ts_cycle_init(&c);
        n = ts_engine_cycle(x->e, now, &c);
        for (size_t d = 0; d < c.n; d++) {
            const struct ts_decision *dec = &c.items[d];

            if (dec->kind == TS_DECISION_ADMIT)
                queue_write(x, dec->name, 0, now);
            for (size_t t = 0; t < dec->n_targets; t++)
                queue_write(x, dec->targets[t].name, 1, now);
        }
        ts_cycle_release(&c);
        land_due(x, &x->admits, now); /* granted at once when there is no budget */
        if (!n)
            return 0;
        x->r->cycles++;
    }
}

/* The time of the next event, or -1 when nothing is left. */
static ts_time next_time(const struct run *x)
{
    ts_time t = -1;
    const struct wl_state *f = ts_heap_peek(&x->finishing);

    if (x->next_create < x->p->n_wls)
        t = T0 + x->p->wls[x->next_create].created;
    if (f && (t < 0 || f->finish_at < t))
        t = f->finish_at;
    for (int i = 0; i < 2; i++) {
        const struct write *w = fifo_peek(i ? &x->evicts : &x->admits);

        if (w && (t < 0 || w->at < t))
            t = w->at;
    }
    if (x->gated) {
        ts_time ready = ready_at(x);

        if (t < 0 || ready < t)
            t = ready;
    }
    return t;
}

static int step(struct run *x, ts_time now, struct ts_err *err)
{
    struct wl_state *f;
    size_t changed = 0;
    int rc;

    while ((f = ts_heap_peek(&x->finishing)) && f->finish_at <= now) {
        finish(x, f, now);
        changed++;
    }
    changed += land_due(x, &x->evicts, now);
    land_due(x, &x->admits, now); /* confirms what the engine assumed: no new decision */
    while (x->next_create < x->p->n_wls && T0 + x->p->wls[x->next_create].created <= now) {
        if ((rc = create(x, x->next_create++, err)))
            return rc;
        changed++;
    }
    return changed || x->gated ? settle(x, now, err) : 0;
}

static int setup(struct run *x, struct ts_err *err)
{
    const cJSON *obj;
    int rc;

    cJSON_ArrayForEach(obj, x->p->objects)
    {
        if ((rc = put_object(x->e, obj, err)))
            return rc;
    }
    for (size_t i = 0; i < x->p->n_wls; i++)
        ts_hmap_put(&x->by_name, x->p->wls[i].name, (void *)(uintptr_t)(i + 1));
    return 0;
}

static int check(const struct run *x, ts_time now, struct ts_err *err)
{
    char msg[512];

    if (!ts_engine_check(x->e, msg, sizeof(msg)))
        return 0;
    return ts_err_set(err, TS_EINTERNAL, "engine self-check at %.3f s: %s",
                      (double)(now - T0) / TS_TIME_SECOND, msg);
}

int ts_bench_ideal_run(const struct ts_bench_plan *p, const struct ts_bench_ideal_opts *o,
                       struct ts_bench_result *out, struct ts_err *err)
{
    struct run x = {0};
    struct ts_engine_config ec;
    ts_time t;
    int rc;

    ts_bench_result_init(out, p);
    x.p = p;
    x.r = out;
    ts_engine_config_init(&ec);
    ec.check_memo = o && o->check;
    x.e = ts_engine_new(&ec);
    x.st = ts_xcalloc(p->n_wls + 1, sizeof(*x.st));
    ts_bench_bucket_init(&x.bucket, o ? o->qps : 0, o ? o->burst : 1);
    ts_heap_init(&x.finishing, finish_less, finish_pos);
    for (size_t i = 0; i < p->n_wls; i++)
        x.st[i].heap_pos = TS_HEAP_NOT_IN;
    rc = setup(&x, err);
    while (!rc && (t = next_time(&x)) >= 0) {
        rc = step(&x, t, err);
        if (!rc && o && o->check)
            rc = check(&x, t, err);
    }
    ts_heap_release(&x.finishing);
    ts_hmap_release(&x.by_name);
    ts_engine_free(x.e);
    free(x.admits.items);
    free(x.evicts.items);
    free(x.st);
    return rc;
}
