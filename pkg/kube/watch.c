/*
 * watch.c - keeps one watch alive: resume from the last resourceVersion,
 * backoff after failures, 410 handed to the owner (see watch.h).
 */
#include "kube/watch.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "json/json.h"
#include "kube/backoff.h"
#include "util/alloc.h"
#include "util/log.h"

#define SEC INT64_C(1000000000)

struct ts_watch {
    struct ts_kube_client *c;
    struct ts_watch_opts o;
    char *ns, *ls, *fs, *rv;
    struct ts_watch_parser p;
    struct ts_kube_call *call;
    uint64_t timer;
    struct ts_backoff bo;
    int64_t stream_start;
    int gone, stopped, in_stream, got_events;
    unsigned failing; /* consecutive failed streams */
    struct ts_watch_stats st;
};

static char *dup_or_null(const char *s)
{
    return s ? ts_xstrdup(s) : NULL;
}

static void set_rv(struct ts_watch *w, const cJSON *obj)
{
    const char *rv = ts_json_get_string(obj, "metadata.resourceVersion");

    if (rv && rv[0]) {
        free(w->rv);
        w->rv = ts_xstrdup(rv);
    }
}

static int error_event(struct ts_watch *w, cJSON *obj)
{
    struct ts_kube_status st;

    ts_kube_status_from_json(500, obj, &st);
    cJSON_Delete(obj);
    if (st.code == 410 || ts_kube_status_errno(&st) == TS_EGONE) {
        w->gone = 1;
    } else {
        ts_log_warn("watch", "resource=%s error event code=%ld msg=\"%s\"", w->o.res->resource,
                    st.code, st.message);
    }
    ts_kube_status_release(&st);
    return TS_EIO; /* ends this stream */
}

static int on_parsed(enum ts_watch_type type, cJSON *obj, void *data)
{
    struct ts_watch *w = data;

    if (w->stopped) {
        cJSON_Delete(obj);
        return 1;
    }
    if (type == TS_WATCH_ERROR)
        return error_event(w, obj);
    set_rv(w, obj);
    if (type == TS_WATCH_BOOKMARK) {
        w->st.bookmarks++;
        cJSON_Delete(obj);
        return 0;
    }
    w->st.events++;
    w->got_events = 1;
    w->o.on_event(type, obj, w->o.data);
    return w->stopped;
}

static int on_bytes(const char *p, size_t n, void *data)
{
    struct ts_watch *w = data;
    struct ts_err e = {0};
    int rc;

    w->in_stream = 1;
    rc = ts_watch_parser_feed(&w->p, p, n, &e);
    w->in_stream = 0;
    if (w->stopped)
        return 1;
    if (rc && !w->gone)
        ts_log_warn("watch", "resource=%s stream error: %s", w->o.res->resource, e.msg);
    return rc;
}

static void on_done(struct ts_kube_client *c, struct ts_kube_result *res, void *data);

static void start_stream(struct ts_watch *w)
{
    struct ts_kube_req r = {0};
    struct ts_err e = {0};

    r.verb = TS_KUBE_WATCH;
    r.res = w->o.res;
    r.ns = w->ns;
    r.label_selector = w->ls;
    r.field_selector = w->fs;
    r.resource_version = w->rv;
    r.bookmarks = 1;
    r.timeout_seconds = w->o.timeout_seconds > 0 ? w->o.timeout_seconds
                                                 : 300 + (long)(ts_backoff_rand(&w->bo) * 300);
    r.on_stream = on_bytes;
    r.stream_data = w;
    w->gone = w->got_events = 0;
    w->st.streams++;
    w->stream_start = ts_loop_now(ts_kube_client_loop(w->c));
    ts_watch_parser_reset(&w->p);
    if (ts_kube_submit(w->c, &r, on_done, w, &w->call, &e))
        ts_log_error("watch", "resource=%s cannot watch: %s", w->o.res->resource, e.msg);
}

static void on_timer(struct ts_loop *loop, void *data)
{
    struct ts_watch *w = data;

    (void)loop;
    w->timer = 0;
    start_stream(w);
}

static void later(struct ts_watch *w, int64_t delay)
{
    w->timer = ts_loop_timer_add(ts_kube_client_loop(w->c), delay, on_timer, w);
}

static void free_watch(struct ts_watch *w)
{
    ts_watch_parser_release(&w->p);
    free(w->ns);
    free(w->ls);
    free(w->fs);
    free(w->rv);
    free(w);
}

/* A stream ended cleanly: parse a last unterminated line, then go on. */
static void clean_end(struct ts_watch *w)
{
    int64_t took = ts_loop_now(ts_kube_client_loop(w->c)) - w->stream_start;
    struct ts_err e = {0};

    w->in_stream = 1;
    ts_watch_parser_finish(&w->p, &e);
    w->in_stream = 0;
    if (w->stopped)
        return;
    if (w->got_events || took > SEC) {
        w->failing = 0;
        ts_backoff_reset(&w->bo);
        start_stream(w);
    } else {
        later(w, ts_backoff_next(&w->bo)); /* a server ending streams at once */
    }
}

static void on_done(struct ts_kube_client *c, struct ts_kube_result *res, void *data)
{
    struct ts_watch *w = data;

    (void)c;
    w->call = NULL;
    if (w->stopped) {
        free_watch(w);
        return;
    }
    if (w->gone || res->code == TS_EGONE) {
        w->st.gone++;
        ts_log_info("watch", "resource=%s rv=%s expired: relisting", w->o.res->resource,
                    w->rv ? w->rv : "");
        if (w->o.on_gone) {
            w->o.on_gone(w, w->o.data); /* may free w */
            return;
        }
        free(w->rv);
        w->rv = NULL;
        start_stream(w);
        return;
    }
    if (!res->code) {
        clean_end(w);
        if (w->stopped)
            free_watch(w);
        return;
    }
    w->st.failures++;
    w->failing = w->got_events ? 1 : w->failing + 1;
    if (w->got_events)
        ts_backoff_reset(&w->bo);
    /* a dropped stream is routine; say so loudly only when it keeps failing */
    if (w->failing >= 3)
        ts_log_info("watch", "resource=%s rv=%s stream ended (%u in a row): %s", w->o.res->resource,
                    w->rv ? w->rv : "", w->failing, res->err.msg);
    else
        ts_log_debug("watch", "resource=%s rv=%s stream ended: %s", w->o.res->resource,
                     w->rv ? w->rv : "", res->err.msg);
    later(w, ts_backoff_next(&w->bo));
}

struct ts_watch *ts_watch_start(struct ts_kube_client *c, const struct ts_watch_opts *o,
                                struct ts_err *err)
{
    struct ts_watch *w;
    struct timespec ts;

    if (!o->res || !o->on_event) {
        ts_err_set(err, TS_EINVAL, "watch needs a resource and an event handler");
        return NULL;
    }
    w = ts_xcalloc(1, sizeof(*w));
    w->c = c;
    w->o = *o;
    w->ns = dup_or_null(o->ns);
    w->ls = dup_or_null(o->label_selector);
    w->fs = dup_or_null(o->field_selector);
    w->rv = dup_or_null(o->resource_version);
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts_backoff_init(&w->bo, o->backoff_base > 0 ? o->backoff_base : SEC * 8 / 10,
                    o->backoff_cap > 0 ? o->backoff_cap : 30 * SEC, 2, 0.5,
                    (uint64_t)ts.tv_nsec * 6364136223846793005u + (uintptr_t)w);
    ts_watch_parser_init(&w->p, o->max_event, on_parsed, w);
    w->p.strip_managed_fields = o->strip_managed_fields;
    if (o->transient)
        ts_watch_parser_transient(&w->p);
    start_stream(w);
    return w;
}

void ts_watch_stop(struct ts_watch *w)
{
    if (!w || w->stopped)
        return;
    if (w->in_stream) {
        w->stopped = 1; /* freed when the stream unwinds */
        return;
    }
    ts_kube_cancel(w->call);
    ts_loop_timer_cancel(ts_kube_client_loop(w->c), w->timer);
    free_watch(w);
}

void ts_watch_resume(struct ts_watch *w, const char *rv)
{
    ts_kube_cancel(w->call);
    w->call = NULL;
    ts_loop_timer_cancel(ts_kube_client_loop(w->c), w->timer);
    w->timer = 0;
    free(w->rv);
    w->rv = dup_or_null(rv);
    start_stream(w);
}

const char *ts_watch_rv(const struct ts_watch *w)
{
    return w->rv ? w->rv : "";
}

void ts_watch_stats(const struct ts_watch *w, struct ts_watch_stats *out)
{
    *out = w->st;
}
