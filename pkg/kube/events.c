/*
 * events.c - aggregated core/v1 Event recording (see events.h).
 */
#include "kube/events.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/json.h"
#include "kube/ratelimit.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/hmap.h"
#include "util/log.h"
#include "util/time.h"

#define CACHE_MAX 4096
/* Events waiting for the recorder's client: beyond this, new ones are
 * dropped, as client-go's broadcaster drops past its 1000-event queue.
 * Unbounded, a controller admitting faster than its Event budget would
 * queue Events without end (memory, and CPU: every new one scans them
 * all). */
#define QUEUED_MAX 1000
#define SPAM_BURST 25
#define SPAM_QPS   (1.0 / 300)

struct agg {
    struct ts_recorder *r;
    char *key, *name, *ns, *message;
    int count, pending;
    ts_time first; /* wall time of the first occurrence */
    /* what an Event about it says besides the message, for creating it
     * (again, after it expired): type, reason and the involved object's
     * apiVersion, kind, namespace, name, uid, resourceVersion, each
     * NUL-terminated.  Up to CACHE_MAX of these are kept, so as text
     * rather than as cJSON trees, which take many times the memory. */
    char *ref;
    struct ts_kube_call *call;
};

struct ts_recorder {
    struct ts_kube_client *c;
    char *component, *host;
    struct ts_hmap aggs; /* key -> struct agg * */
    struct ts_hmap spam; /* object key -> struct ts_ratelimit * */
    uint64_t seq;
    size_t queued; /* aggregates with a create or patch in flight */
    struct ts_recorder_stats st;
};

struct ts_recorder *ts_recorder_new(struct ts_kube_client *c, const char *component,
                                    const char *host)
{
    struct ts_recorder *r = ts_xcalloc(1, sizeof(*r));

    r->c = c;
    r->component = ts_xstrdup(component ? component : "turnstile");
    r->host = host ? ts_xstrdup(host) : NULL;
    return r;
}

static void agg_free(struct agg *a)
{
    if (a->call)
        a->r->queued--;
    ts_kube_cancel(a->call);
    free(a->key);
    free(a->name);
    free(a->ns);
    free(a->message);
    free(a->ref);
    free(a);
}

static void drop(struct ts_recorder *r, struct agg *a)
{
    ts_hmap_del(&r->aggs, a->key);
    agg_free(a);
}

void ts_recorder_free(struct ts_recorder *r)
{
    size_t it = 0;
    const char *k;
    void *v;

    if (!r)
        return;
    while (ts_hmap_next(&r->aggs, &it, &k, &v))
        agg_free(v);
    ts_hmap_release(&r->aggs);
    ts_hmap_release_free(&r->spam);
    free(r->component);
    free(r->host);
    free(r);
}

void ts_recorder_stats(const struct ts_recorder *r, struct ts_recorder_stats *out)
{
    *out = r->st;
}

/* --- requests ------------------------------------------------------------------- */

static void submit_create(struct agg *a);
static void submit_patch(struct agg *a);

static void on_patched(struct ts_kube_client *c, struct ts_kube_result *res, void *data)
{
    struct agg *a = data;

    (void)c;
    a->call = NULL;
    a->r->queued--;
    if (res->code == TS_ENOTFOUND) { /* the Event expired: create it again */
        submit_create(a);
        return;
    }
    if (res->code) {
        a->r->st.failed++;
        ts_log_debug("events", "patch event %s/%s: %s", a->ns, a->name, res->err.msg);
        return;
    }
    a->r->st.patched++;
    if (a->pending)
        submit_patch(a);
}

static void on_created(struct ts_kube_client *c, struct ts_kube_result *res, void *data)
{
    struct agg *a = data;

    (void)c;
    a->call = NULL;
    a->r->queued--;
    if (res->code) {
        a->r->st.failed++;
        ts_log_debug("events", "create event %s/%s: %s", a->ns, a->name, res->err.msg);
        drop(a->r, a);
        return;
    }
    a->r->st.created++;
    if (a->pending)
        submit_patch(a);
}

static void now_str(const struct ts_recorder *r, char *buf, size_t len)
{
    ts_time_format(ts_loop_wall(ts_kube_client_loop(r->c)), buf, len);
}

static char *event_body(const struct agg *a, size_t *len);

static void submit_create(struct agg *a)
{
    struct ts_kube_req q = {
        .verb = TS_KUBE_CREATE, .res = &ts_kube_res_events, .flags = TS_KUBE_REQ_NO_REPLY};
    char *body = event_body(a, &q.body_len);
    struct ts_err e = {0};

    q.ns = a->ns;
    q.body_text = body;
    a->pending = 0;
    if (ts_kube_submit(a->r->c, &q, on_created, a, &a->call, &e))
        ts_log_debug("events", "create event: %s", e.msg);
    else
        a->r->queued++;
    free(body);
}

static void submit_patch(struct agg *a)
{
    struct ts_kube_req q = {
        .verb = TS_KUBE_PATCH, .res = &ts_kube_res_events, .flags = TS_KUBE_REQ_NO_REPLY};
    cJSON *p = cJSON_CreateObject();
    char ts[TS_TIME_STR_MAX];
    struct ts_err e = {0};

    now_str(a->r, ts, sizeof(ts));
    cJSON_AddNumberToObject(p, "count", a->count);
    cJSON_AddStringToObject(p, "lastTimestamp", ts);
    cJSON_AddStringToObject(p, "message", a->message);
    q.ns = a->ns;
    q.name = a->name;
    q.body = p;
    q.patch = TS_KUBE_PATCH_MERGE;
    a->pending = 0;
    if (ts_kube_submit(a->r->c, &q, on_patched, a, &a->call, &e))
        ts_log_debug("events", "patch event: %s", e.msg);
    else
        a->r->queued++;
    cJSON_Delete(p);
}

/* --- building -------------------------------------------------------------------- */

/* The object fields an Event's involvedObject names, in a->ref's order
 * after type and reason. */
static const char *const ref_paths[][2] = {{"apiVersion", "apiVersion"},
                                           {"kind", "kind"},
                                           {"metadata.namespace", "namespace"},
                                           {"metadata.name", "name"},
                                           {"metadata.uid", "uid"},
                                           {"metadata.resourceVersion", "resourceVersion"}};
#define N_REF_PATHS (sizeof(ref_paths) / sizeof(ref_paths[0]))

static char *ref_pack(const cJSON *obj, const char *type, const char *reason)
{
    struct ts_buf b = TS_BUF_INIT;

    ts_buf_add(&b, type, strlen(type) + 1);
    ts_buf_add(&b, reason, strlen(reason) + 1);
    for (size_t i = 0; i < N_REF_PATHS; i++) {
        const char *v = ts_json_get_string(obj, ref_paths[i][0]);

        v = v ? v : "";
        ts_buf_add(&b, v, strlen(v) + 1);
    }
    return ts_buf_take(&b);
}

/* Appends ,"key":"value" (without the comma first in its object); key
 * is one of this file's constant names, written as is. */
static void add_member(struct ts_buf *b, int first, const char *key, const char *value)
{
    if (!first)
        ts_buf_addc(b, ',');
    ts_buf_addc(b, '"');
    ts_buf_adds(b, key);
    ts_buf_add(b, "\":", 2);
    ts_json_print_string(value, b);
}

/* The Event as JSON text: about one an admission goes out, and building
 * it as a cJSON tree to print it would take dozens of allocations each. */
static char *event_body(const struct agg *a, size_t *len)
{
    const struct ts_recorder *r = a->r;
    const char *type = a->ref, *reason = type + strlen(type) + 1, *v = reason;
    char first[TS_TIME_STR_MAX], last[TS_TIME_STR_MAX];
    struct ts_buf b = TS_BUF_INIT;
    int none = 1;

    ts_time_format(a->first, first, sizeof(first));
    now_str(r, last, sizeof(last));
    ts_buf_adds(&b, "{\"apiVersion\":\"v1\",\"kind\":\"Event\",\"metadata\":{");
    add_member(&b, 1, "name", a->name);
    add_member(&b, 0, "namespace", a->ns);
    ts_buf_adds(&b, "},\"involvedObject\":{");
    for (size_t i = 0; i < N_REF_PATHS; i++) {
        v += strlen(v) + 1;
        if (v[0]) {
            add_member(&b, none, ref_paths[i][1], v);
            none = 0;
        }
    }
    ts_buf_addc(&b, '}');
    add_member(&b, 0, "reason", reason);
    add_member(&b, 0, "message", a->message);
    add_member(&b, 0, "type", type);
    ts_buf_adds(&b, ",\"source\":{");
    add_member(&b, 1, "component", r->component);
    if (r->host)
        add_member(&b, 0, "host", r->host);
    ts_buf_addc(&b, '}');
    add_member(&b, 0, "firstTimestamp", first);
    add_member(&b, 0, "lastTimestamp", last);
    ts_buf_addf(&b, ",\"count\":%d", a->count);
    add_member(&b, 0, "reportingComponent", r->component);
    add_member(&b, 0, "reportingInstance", r->host ? r->host : "");
    ts_buf_addc(&b, '}');
    *len = b.len;
    return ts_buf_take(&b);
}

static int spam_ok(struct ts_recorder *r, const char *objkey)
{
    struct ts_ratelimit *b = ts_hmap_get(&r->spam, objkey);
    int64_t now = ts_loop_now(ts_kube_client_loop(r->c));

    if (!b) {
        if (r->spam.n >= CACHE_MAX)
            ts_hmap_release_free(&r->spam);
        b = ts_xmalloc(sizeof(*b));
        ts_ratelimit_init(b, SPAM_QPS, SPAM_BURST, now);
        ts_hmap_put(&r->spam, objkey, b);
    }
    return ts_ratelimit_try(b, now);
}

static void evict_idle(struct ts_recorder *r)
{
    size_t it = 0;
    const char *k;
    void *v;

    while (ts_hmap_next(&r->aggs, &it, &k, &v)) {
        struct agg *a = v;

        if (!a->call) {
            ts_hmap_del(&r->aggs, a->key); /* a->key is a separate copy */
            agg_free(a);
        }
    }
}

static struct agg *new_agg(struct ts_recorder *r, const char *key, const cJSON *obj,
                           const char *msg)
{
    const char *ns = ts_json_get_string(obj, "metadata.namespace");
    struct agg *a = ts_xcalloc(1, sizeof(*a));
    struct ts_buf b = TS_BUF_INIT;

    if (r->aggs.n >= CACHE_MAX)
        evict_idle(r);
    a->r = r;
    a->key = ts_xstrdup(key);
    a->ns = ts_xstrdup(ns && ns[0] ? ns : "default");
    ts_buf_addf(&b, "%s.%llx", ts_json_get_string(obj, "metadata.name"),
                (unsigned long long)(ts_loop_wall(ts_kube_client_loop(r->c)) + (int64_t)r->seq++));
    a->name = ts_buf_take(&b);
    a->message = ts_xstrdup(msg);
    ts_hmap_put(&r->aggs, key, a);
    return a;
}

void ts_recorder_event(struct ts_recorder *r, const cJSON *obj, const char *type,
                       const char *reason, const char *fmt, ...)
{
    struct ts_buf msg = TS_BUF_INIT, key = TS_BUF_INIT;
    const char *name = ts_json_get_string(obj, "metadata.name");
    struct agg *a;
    va_list ap;

    if (!name || !ts_json_get_string(obj, "kind"))
        return;
    va_start(ap, fmt);
    ts_buf_vaddf(&msg, fmt, ap);
    va_end(ap);
    ts_buf_addf(&key, "%s\x1f%s\x1f%s\x1f%s\x1f%s", r->component, ts_json_get_string(obj, "kind"),
                ts_str_c(ts_json_get_string(obj, "metadata.namespace")).len
                    ? ts_json_get_string(obj, "metadata.namespace")
                    : "",
                name,
                ts_str_c(ts_json_get_string(obj, "metadata.uid")).len
                    ? ts_json_get_string(obj, "metadata.uid")
                    : "");
    if (!spam_ok(r, key.ptr)) {
        r->st.dropped++;
    } else {
        ts_buf_addf(&key, "\x1f%s\x1f%s\x1f%s", type, reason, msg.ptr);
        a = ts_hmap_get(&r->aggs, key.ptr);
        if (a && a->call) { /* folded into the patch after the call in flight */
            a->count++;
            a->pending = 1;
        } else if (r->queued >= QUEUED_MAX) {
            r->st.dropped++;
        } else if (a) {
            a->count++;
            a->pending = 1;
            submit_patch(a);
        } else {
            a = new_agg(r, key.ptr, obj, msg.ptr);
            a->count = 1;
            a->first = ts_loop_wall(ts_kube_client_loop(r->c));
            a->ref = ref_pack(obj, type, reason);
            submit_create(a);
        }
    }
    ts_buf_release(&msg);
    ts_buf_release(&key);
}
