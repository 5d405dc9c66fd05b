/* workload_checks.c - admission check states and the Admitted condition
 * (workload_checks.h). */
#include "api/workload_checks.h"

#include "util/alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int by_name(const void *a, const void *b)
{
    const struct ts_admission_check_state *x = a, *y = b;

    return strcmp(x->name ? x->name : "", y->name ? y->name : "");
}

int ts_workload_sync_checks(struct ts_workload *wl, const struct ts_strlist *names, ts_time now)
{
    struct ts_workload_status *st = &wl->status;
    size_t kept = 0;
    int changed = 0;

    for (size_t i = 0; i < st->n_admission_checks; i++) {
        struct ts_admission_check_state *c = &st->admission_checks[i];

        if (c->name && ts_strlist_index(names, c->name) >= 0) {
            st->admission_checks[kept++] = *c;
            continue;
        }
        ts_admission_check_state_release(c);
        changed = 1;
    }
    st->n_admission_checks = kept;
    for (size_t i = 0; i < names->n; i++) {
        struct ts_admission_check_state *c;
        int have = 0;

        for (size_t j = 0; j < st->n_admission_checks && !have; j++)
            have = !strcmp(st->admission_checks[j].name, names->items[i]);
        if (have)
            continue;
        st->admission_checks = ts_xrealloc(st->admission_checks, (st->n_admission_checks + 1) *
                                                                     sizeof(*st->admission_checks));
        c = &st->admission_checks[st->n_admission_checks++];
        memset(c, 0, sizeof(*c));
        c->name = ts_xstrdup(names->items[i]);
        c->state = ts_xstrdup(TS_WL_CHECK_PENDING);
        c->last_transition_time = now;
        changed = 1;
    }
    if (!st->n_admission_checks) {
        free(st->admission_checks);
        st->admission_checks = NULL;
    }
    for (size_t i = 1; i < st->n_admission_checks; i++) {
        if (by_name(&st->admission_checks[i - 1], &st->admission_checks[i]) > 0) {
            qsort(st->admission_checks, st->n_admission_checks, sizeof(*st->admission_checks),
                  by_name);
            changed = 1;
            break;
        }
    }
    return changed;
}

static int in_state(const struct ts_admission_check_state *c, const char *state)
{
    return c->state && !strcmp(c->state, state);
}

int ts_workload_checks_ready(const struct ts_workload *wl)
{
    for (size_t i = 0; i < wl->status.n_admission_checks; i++) {
        if (!in_state(&wl->status.admission_checks[i], TS_WL_CHECK_READY))
            return 0;
    }
    return 1;
}

int ts_workload_has_check_state(const struct ts_workload *wl, const char *state)
{
    for (size_t i = 0; i < wl->status.n_admission_checks; i++) {
        if (in_state(&wl->status.admission_checks[i], state))
            return 1;
    }
    return 0;
}

const struct ts_admission_check_state *
ts_workload_checks_in(const struct ts_workload *wl, const char *state, char *buf, size_t len)
{
    const struct ts_admission_check_state *first = NULL;
    size_t used = 0;

    if (len)
        buf[0] = '\0';
    for (size_t i = 0; i < wl->status.n_admission_checks; i++) {
        const struct ts_admission_check_state *c = &wl->status.admission_checks[i];
        int n;

        if (!in_state(c, state))
            continue;
        if (!first)
            first = c;
        if (used >= len)
            continue;
        n = snprintf(buf + used, len - used, "%s%s", used ? "," : "", c->name ? c->name : "");
        used = n < 0 ? len : used + (size_t)n;
    }
    return first;
}

ts_time ts_workload_checks_retry_at(const struct ts_workload *wl)
{
    ts_time latest = 0;

    for (size_t i = 0; i < wl->status.n_admission_checks; i++) {
        const struct ts_admission_check_state *c = &wl->status.admission_checks[i];
        ts_time at;

        if (!in_state(c, TS_WL_CHECK_RETRY) || !c->requeue_after_seconds.set ||
            !c->last_transition_time)
            continue;
        at = c->last_transition_time + (ts_time)c->requeue_after_seconds.v * TS_TIME_SECOND;
        if (at > latest)
            latest = at;
    }
    return latest;
}

/* The time Admitted was True adds to accumulatedPastExecutionTimeSeconds. */
static void accumulate(struct ts_workload *wl, ts_time now)
{
    const struct ts_condition *adm =
        ts_conditions_find(&wl->status.conditions, TS_WL_COND_ADMITTED);
    struct ts_opt_i32 *past = &wl->status.accumulated_past_execution_time_seconds;
    int64_t d, sum;

    if (!adm || now < adm->last_transition_time)
        return;
    d = (now - adm->last_transition_time) / TS_TIME_SECOND;
    sum = (past->set ? past->v : 0) + d;
    past->set = 1;
    past->v = sum > INT32_MAX ? INT32_MAX : (int32_t)sum;
}

int ts_workload_sync_admitted(struct ts_workload *wl, ts_time now)
{
    int reserved = ts_workload_has_quota_reservation(wl);
    int ready = ts_workload_checks_ready(wl);
    int admitted = ts_workload_is_admitted(wl);
    const char *status = "False", *reason, *message;

    if (admitted == (reserved && ready))
        return 0;
    if (reserved && ready) {
        status = "True";
        reason = TS_WL_REASON_ADMITTED;
        message = "The workload is admitted";
    } else if (!reserved && !ready) {
        reason = TS_WL_REASON_NO_RESERVATION_UNSATISFIED_CHECKS;
        message = "The workload has no reservation and not all checks ready";
    } else if (!reserved) {
        reason = TS_WL_REASON_NO_RESERVATION;
        message = "The workload has no reservation";
    } else {
        reason = TS_WL_REASON_UNSATISFIED_CHECKS;
        message = "The workload has not all checks ready";
    }
    if (admitted)
        accumulate(wl, now);
    return ts_conditions_set(&wl->status.conditions, TS_WL_COND_ADMITTED, status, reason, message,
                             wl->meta.generation, now);
}

void ts_workload_reset_checks(struct ts_workload *wl, ts_time now)
{
    for (size_t i = 0; i < wl->status.n_admission_checks; i++) {
        struct ts_admission_check_state *c = &wl->status.admission_checks[i];
        char msg[128];

        if (in_state(c, TS_WL_CHECK_PENDING))
            continue;
        if (in_state(c, TS_WL_CHECK_RETRY)) {
            int32_t n = c->retry_count.set ? c->retry_count.v : 0;

            c->retry_count.set = 1;
            c->retry_count.v = n < INT32_MAX ? n + 1 : n;
        } else {
            c->retry_count.set = 0;
        }
        snprintf(msg, sizeof(msg), "Reset to Pending after eviction. Previously: %s",
                 c->state ? c->state : "");
        free(c->state);
        free(c->message);
        c->state = ts_xstrdup(TS_WL_CHECK_PENDING);
        c->message = ts_xstrdup(msg);
        c->last_transition_time = now;
        for (size_t j = 0; j < c->n_podset_updates; j++)
            ts_podset_update_release(&c->podset_updates[j]);
        free(c->podset_updates);
        c->podset_updates = NULL;
        c->n_podset_updates = 0;
    }
}
