/* provreq_state.c - a check's state from its ProvisioningRequest (provreq.h;
 * Kueue's syncCheckStates, podSetUpdates and syncOwnedProvisionRequest in
 * pkg/controller/admissionchecks/provisioning/controller.go, and
 * UpdateAdmissionCheckRequeueState in pkg/workload/admissionchecks.go). */
#include "controller/provreq.h"

#include "json/json.h"
#include "util/alloc.h"
#include "util/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MSG_INACTIVE   "the check is not active"
#define MSG_NOT_NEEDED "the provisioning request is not needed"

int32_t ts_provreq_backoff(int32_t base_s, int32_t max_s, int32_t n)
{
    /* Kueue's Cap: backoffMaxSeconds, or MaxInt64/2 ns when 0 */
    int64_t cap = max_s > 0 ? max_s : INT64_MAX / 2 / 1000000000;
    int64_t d = base_s > 0 ? base_s : 0;

    for (int32_t i = 1; i < n && d != cap; i++)
        d = d * 2 > cap ? cap : d * 2; /* d < 2^62: no overflow */
    return d > INT32_MAX ? INT32_MAX : (int32_t)d;
}

static const cJSON *cond(const cJSON *pr, const char *type)
{
    const cJSON *c;

    cJSON_ArrayForEach(c, ts_json_get(pr, "status.conditions"))
    {
        const char *t = ts_json_get_string(c, "type");

        if (t && !strcmp(t, type))
            return c;
    }
    return NULL;
}

static int is_true(const cJSON *pr, const char *type)
{
    const char *s = ts_json_get_string(cond(pr, type), "status");

    return s && !strcmp(s, "True");
}

static const char *cond_message(const cJSON *pr, const char *type)
{
    const char *m = ts_json_get_string(cond(pr, type), "message");

    return m ? m : "";
}

static long find(const struct ts_workload *wl, const char *check)
{
    for (size_t i = 0; i < wl->status.n_admission_checks; i++) {
        const struct ts_admission_check_state *s = &wl->status.admission_checks[i];

        if (s->name && !strcmp(s->name, check))
            return (long)i;
    }
    return -1;
}

/* updateCheckState / updateCheckMessage. */
static int set_state(struct ts_admission_check_state *s, const char *state)
{
    if (s->state && !strcmp(s->state, state))
        return 0;
    free(s->state);
    s->state = ts_xstrdup(state);
    return 1;
}

static int set_message(struct ts_admission_check_state *s, const char *msg)
{
    if (!msg || !*msg || (s->message && !strcmp(s->message, msg)))
        return 0;
    free(s->message);
    s->message = ts_xstrdup(msg);
    return 1;
}

static void clear_updates(struct ts_admission_check_state *s)
{
    for (size_t i = 0; i < s->n_podset_updates; i++)
        ts_podset_update_release(&s->podset_updates[i]);
    free(s->podset_updates);
    s->podset_updates = NULL;
    s->n_podset_updates = 0;
}

/* Kueue's podSetUpdates(): one per pod set of the request. */
static void podset_updates(struct ts_admission_check_state *s, const struct ts_workload *wl,
                           const cJSON *pr, const struct ts_provreq_config *cfg)
{
    const char *name = ts_json_get_string(pr, "metadata.name");
    const char *cls = ts_json_get_string(pr, "spec.provisioningClassName");
    const cJSON *details = ts_json_get(pr, "status.provisioningClassDetails"), *ps;
    size_t n = (size_t)cJSON_GetArraySize(ts_json_get(pr, "spec.podSets")), k = 0;

    clear_updates(s);
    s->podset_updates = ts_xcalloc(n + 1, sizeof(*s->podset_updates));
    cJSON_ArrayForEach(ps, ts_json_get(pr, "spec.podSets"))
    {
        struct ts_podset_update *u = &s->podset_updates[k++];
        const char *ref = ts_json_get_string(ps, "podTemplateRef.name");

        ts_strmap_init(&u->labels);
        ts_strmap_init(&u->annotations);
        ts_strmap_init(&u->node_selector);
        for (size_t i = 0; i < wl->spec.n_podsets && !u->name; i++) {
            char *pt = ts_provreq_template_name(name ? name : "", wl->spec.podsets[i].name);

            if (ref && !strcmp(pt, ref))
                u->name = ts_xstrdup(wl->spec.podsets[i].name);
            free(pt);
        }
        if (!u->name)
            u->name = ts_xstrdup("");
        ts_strmap_set(&u->annotations, TS_PROVREQ_CONSUME_ANNOT, name ? name : "");
        ts_strmap_set(&u->annotations, TS_PROVREQ_CLASS_ANNOT, cls ? cls : "");
        for (size_t i = 0; cfg->has_podset_updates && i < cfg->node_selector.n; i++) {
            const cJSON *v =
                cJSON_GetObjectItemCaseSensitive(details, cfg->node_selector.items[i].value);

            if (cJSON_IsString(v)) /* a missing detail is skipped (Kueue logs it) */
                ts_strmap_set(&u->node_selector, cfg->node_selector.items[i].key, v->valuestring);
        }
    }
    s->n_podset_updates = k;
}

/* Failed or BookingExpired: Retry with backoff up to backoffLimitCount,
 * then Rejected. */
static int retry_or_reject(struct ts_admission_check_state *s, const struct ts_workload *wl,
                           const char *check, const cJSON *pr, const struct ts_provreq_config *cfg,
                           const char *type, const char *what)
{
    int32_t attempt =
        ts_provreq_attempt(ts_json_get_string(pr, "metadata.name"), wl->meta.name, check);
    char msg[1024];
    int upd;

    if (attempt <= cfg->limit_count) {
        snprintf(msg, sizeof(msg), "Retrying after %s: %s", what, cond_message(pr, type));
        upd = set_message(s, msg);
        if (attempt > (s->retry_count.set ? s->retry_count.v : 0)) {
            set_state(s, TS_WL_CHECK_RETRY);
            s->requeue_after_seconds.set = 1;
            s->requeue_after_seconds.v = ts_provreq_backoff(
                cfg->base_s, cfg->max_s, (s->retry_count.set ? s->retry_count.v : 0) + 1);
            upd = 1;
        }
        return upd;
    }
    set_state(s, TS_WL_CHECK_REJECTED);
    free(s->message);
    s->message = ts_xstrdup(cond_message(pr, type));
    return 1;
}

static int from_request(struct ts_admission_check_state *s, const struct ts_workload *wl,
                        const char *check, const cJSON *pr, const struct ts_provreq_config *cfg)
{
    int upd = 0;

    if (is_true(pr, "Failed"))
        return retry_or_reject(s, wl, check, pr, cfg, "Failed", "failure");
    if (is_true(pr, "CapacityRevoked")) {
        if (ts_workload_is_active(wl) && !ts_workload_is_finished(wl)) {
            upd = set_state(s, TS_WL_CHECK_REJECTED);
            upd = set_message(s, cond_message(pr, "CapacityRevoked")) || upd;
        }
        return upd;
    }
    if (is_true(pr, "BookingExpired")) {
        if (ts_workload_is_admitted(wl))
            return 0;
        return retry_or_reject(s, wl, check, pr, cfg, "BookingExpired", "booking expired");
    }
    if (is_true(pr, "Provisioned")) {
        if (!set_state(s, TS_WL_CHECK_READY))
            return 0;
        podset_updates(s, wl, pr, cfg);
        set_message(s, cond_message(pr, "Provisioned"));
        return 1;
    }
    if (is_true(pr, "Accepted")) {
        if (cond(pr, "Provisioned")) { /* the ETA the autoscaler gives */
            upd = set_message(s, cond_message(pr, "Provisioned"));
            upd = set_state(s, TS_WL_CHECK_PENDING) || upd;
        }
        return upd;
    }
    return set_state(s, TS_WL_CHECK_PENDING);
}

static void event(struct ts_strlist *events, const char *check, const char *from,
                  const struct ts_admission_check_state *s)
{
    struct ts_buf b;

    ts_buf_init(&b, 0);
    ts_buf_addf(&b, "Admission check %s updated state from %s to %s", check, from, s->state);
    if (s->message && *s->message)
        ts_buf_addf(&b, " with message: %s", s->message);
    ts_strlist_push(events, b.ptr);
    ts_buf_release(&b);
}

int ts_provreq_sync_check(struct ts_workload *wl, const char *check,
                          const struct ts_provreq_config *cfg, const cJSON *pr, ts_time now,
                          struct ts_strlist *events)
{
    long i = find(wl, check);
    struct ts_admission_check_state *s = i < 0 ? NULL : &wl->status.admission_checks[i];
    char *was;
    int upd = 0;

    if (!s)
        return 0;
    if (cfg && ts_provreq_needed(wl, cfg) && !pr)
        return -1;
    was = ts_xstrdup(s->state ? s->state : "");
    if (!cfg) {
        upd = set_state(s, TS_WL_CHECK_PENDING);
        upd = set_message(s, MSG_INACTIVE) || upd;
    } else if (!ts_provreq_needed(wl, cfg)) {
        if ((upd = set_state(s, TS_WL_CHECK_READY))) {
            free(s->message);
            s->message = ts_xstrdup(MSG_NOT_NEEDED);
            clear_updates(s);
        }
    } else {
        upd = from_request(s, wl, check, pr, cfg);
    }
    if (strcmp(was, s->state ? s->state : "")) {
        s->last_transition_time = now;
        event(events, check, was, s);
    }
    free(was);
    return upd;
}

int ts_provreq_should_create(const struct ts_workload *wl, const char *check, const cJSON *pr,
                             int32_t *attempt)
{
    long i = find(wl, check);
    const struct ts_admission_check_state *s = i < 0 ? NULL : &wl->status.admission_checks[i];
    int32_t a;

    *attempt = 1;
    if (s && s->state && !strcmp(s->state, TS_WL_CHECK_READY))
        return 0;
    if (!pr)
        return 1;
    if (!(is_true(pr, "Failed") || (is_true(pr, "BookingExpired") && !ts_workload_is_admitted(wl))))
        return 0;
    if (!s || !s->state || strcmp(s->state, TS_WL_CHECK_PENDING))
        return 0;
    a = ts_provreq_attempt(ts_json_get_string(pr, "metadata.name"), wl->meta.name, check);
    *attempt = a < INT32_MAX ? a + 1 : INT32_MAX;
    return 1;
}
