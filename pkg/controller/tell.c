/* tell.c - pending reasons, written late, coalesced and on spare budget.
 *
 * A pending reason (QuotaReserved=False with Kueue's reason and message)
 * only informs: no decision depends on it.  Written on every change it
 * would be most of the controller's Workload writes: a waiting head's
 * message changes with each admission in its cohort ("N more needed"),
 * and under a client budget (Kueue's harness runs 50 QPS) those writes
 * would queue ahead of the admissions and go stale.  So:
 *  - a workload is told TELL_DELAY after its first verdict (the heads of
 *    a moving queue are mostly admitted before), then at most once per
 *    TELL_REFRESH while its verdict keeps changing;
 *  - the verdict is read from the engine when the write goes out: the
 *    changes in between cost nothing, and a workload admitted meanwhile
 *    is not told at all;
 *  - at most one write per workload is in flight;
 *  - writes go out only while the client has spare budget (no admission
 *    or eviction waits behind them) and within TELL_QPS of their own.
 */
#include "api/object.h"
#include "controller/manager_int.h"
#include "engine/apply.h"
#include "util/alloc.h"
#include "util/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TELL_DELAY   (1 * TS_TIME_SECOND)
#define TELL_REFRESH (5 * TS_TIME_SECOND)
#define TELL_QPS     20.0

struct ts__ctl_tell {
    struct ts__ctl_tell *next; /* in its due list */
    ts_time due;
    int inflight;
    char key[]; /* "ns/name" in c->tells */
};

void ts__ctl_tell_init(struct ts_ctl *c)
{
    ts_hmap_init(&c->tells);
    ts_ratelimit_init(&c->tell_rl, TELL_QPS, (int)TELL_QPS, ts_loop_now(c->loop));
}

void ts__ctl_tell_release(struct ts_ctl *c)
{
    ts_hmap_release_free(&c->tells);
    c->tell_due[0] = c->tell_due[1] = c->tell_last[0] = c->tell_last[1] = NULL;
}

/* Appends t to due list `which` (0: TELL_DELAY from now: a first tell or
 * a retry; 1: TELL_REFRESH from now).  Each list adds its own constant to
 * the time of its appends, so each stays sorted by due time. */
static void push(struct ts_ctl *c, struct ts__ctl_tell *t, int which, ts_time due)
{
    t->due = due;
    t->next = NULL;
    if (c->tell_due[which])
        c->tell_last[which]->next = t;
    else
        c->tell_due[which] = t;
    c->tell_last[which] = t;
}

void ts__ctl_tell(struct ts_ctl *c, const char *ns, const char *name, ts_time now)
{
    struct ts__ctl_tell *t;
    char key[512];

    snprintf(key, sizeof(key), "%s/%s", ns, name);
    if (ts_hmap_get(&c->tells, key))
        return; /* queued or in flight: the write reads the latest verdict */
    t = ts_xcalloc(1, sizeof(*t) + strlen(key) + 1);
    memcpy(t->key, key, strlen(key) + 1);
    ts_hmap_put(&c->tells, t->key, t);
    push(c, t, 0, now + TELL_DELAY);
}

void ts__ctl_tell_done(struct ts_ctl *c, const char *ns, const char *name, int ok, ts_time now)
{
    struct ts__ctl_tell *t;
    char key[512];

    snprintf(key, sizeof(key), "%s/%s", ns, name);
    if (!(t = ts_hmap_get(&c->tells, key)) || !t->inflight)
        return;
    t->inflight = 0;
    /* look again later: for a newer verdict, or to retry a failed write
     * on a fresher cache */
    if (ok)
        push(c, t, 1, now + TELL_REFRESH);
    else
        push(c, t, 0, now + TELL_DELAY);
}

static void drop(struct ts_ctl *c, struct ts__ctl_tell *t)
{
    ts_hmap_del(&c->tells, t->key);
    free(t);
}

/* Writes t's workload's latest verdict if the cached Workload does not
 * say it yet.  Returns 1 when a write went out (t is in flight), else 0:
 * t was dropped (nothing to tell) or queued to look again. */
static int tell_one(struct ts_ctl *c, struct ts__ctl_tell *t, ts_time now)
{
    const char *slash = strchr(t->key, '/'), *reason, *message;
    struct ts_decision d = {0};
    struct ts_workload wl;
    char ns[256];
    int changed;

    snprintf(ns, sizeof(ns), "%.*s", (int)(slash - t->key), t->key);
    if (ts_engine_verdict(c->engine, ns, slash + 1, &reason, &message) ||
        ts__ctl_cached_workload(c, ns, slash + 1, &wl)) {
        drop(c, t); /* admitted, deleted, or nothing to say */
        return 0;
    }
    d.kind = TS_DECISION_PENDING;
    d.ns = ns;
    d.name = slash + 1;
    d.reason = reason;
    d.message = message;
    if (wl.status.admission) {
        /* pending to the engine, admitted in the cache: a release the
         * cache does not show yet; look again once it may */
        push(c, t, 0, now + TELL_DELAY);
        changed = 0;
    } else if ((changed = ts_apply_pending(&wl, &d, now))) {
        t->inflight = 1;
        ts__ctl_put_status(c, &wl, TS_DECISION_PENDING, &d, NULL, NULL);
    } else {
        drop(c, t);
    }
    ts_workload_release(&wl);
    return changed;
}

void ts__ctl_tell_flush(struct ts_ctl *c, ts_time now)
{
    for (;;) {
        struct ts__ctl_tell *a = c->tell_due[0], *b = c->tell_due[1], *t;
        int which = !a || (b && b->due < a->due);

        t = which ? b : a;
        if (!t || t->due > now ||
            !ts_kube_client_spare(c->client, &ts_kube_res_workloads, TS__CTL_SPARE) ||
            !ts_ratelimit_has(&c->tell_rl, ts_loop_now(c->loop), 1))
            return;
        c->tell_due[which] = t->next;
        t->next = NULL;
        if (tell_one(c, t, now))
            ts_ratelimit_try(&c->tell_rl, ts_loop_now(c->loop));
    }
}
