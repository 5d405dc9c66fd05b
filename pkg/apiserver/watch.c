/*
 * watch.c - watch streams: newline-delimited {"type","object"} events
 * replayed from the event history after a resourceVersion (or synthetic
 * ADDED events for the current state), selector transitions (an object
 * that stops matching arrives as DELETED), bookmarks, timeoutSeconds, the
 * 410 Expired ERROR event, and Table-shaped events for kubectl get -w.
 *
 * The reader runs on the connection's own thread (apiserver.h): it takes
 * the server mutex, formats what is pending, and otherwise sleeps on the
 * server's condition variable until a write, the deadline or shutdown.
 */
#include "apiserver/server_int.h"

#include "api/meta.h"

#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "apiserver/faults.h"
#include "json/json.h"
#include "util/alloc.h"
#include "util/parse.h"

#define BOOKMARK_EVERY      (30 * TS_TIME_SECOND)
#define MAX_TIMEOUT_SECONDS (366 * 86400)
#define FLUSH_AT            (256u << 10)

struct ts__as_watch {
    struct ts__as_req q; /* s, res, query, now (per event), version */
    char *version;
    char *ns;
    struct ts__as_filter *filter;
    int64_t last_rv;
    int table, columns_sent, bookmarks, started, done;
    ts_time deadline, next_bookmark;
    struct ts__as_obj **initial;
    size_t n_initial, i_initial;
    struct ts_buf out;
    size_t off;
    struct ts_faults *faults; /* --faults for this stream, or NULL */
    uint64_t sent;            /* events sent, for watch-drop-after */
    int cut;                  /* --faults: drop the connection after out */
    int expire;               /* --faults: start with 410 Expired */
};

static ts_time mono_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (ts_time)ts.tv_sec * TS_TIME_SECOND + ts.tv_nsec;
}

static ts_time wall_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (ts_time)ts.tv_sec * TS_TIME_SECOND + ts.tv_nsec;
}

static void emit_status(struct ts__as_watch *w, int code, const char *reason, const char *msg)
{
    cJSON *ev = cJSON_CreateObject();

    cJSON_AddStringToObject(ev, "type", "ERROR");
    cJSON_AddItemToObject(ev, "object", ts_status_new(code, reason, msg, NULL));
    ts_json_print(ev, TS_JSON_COMPACT, &w->out, NULL);
    ts_buf_addc(&w->out, '\n');
    cJSON_Delete(ev);
    w->done = 1;
}

static void emit(struct ts__as_watch *w, const char *type, struct ts__as_obj *o)
{
    ts_buf_addf(&w->out, "{\"type\":\"%s\",\"object\":", type);
    if (w->table) {
        cJSON *t = ts__as_table(&w->q, w->q.res, &o, 1, !w->columns_sent);
        char rv[32];

        snprintf(rv, sizeof(rv), "%lld", (long long)o->rv);
        cJSON_AddStringToObject(cJSON_GetObjectItemCaseSensitive(t, "metadata"), "resourceVersion",
                                rv);
        ts_json_print(t, TS_JSON_COMPACT, &w->out, NULL);
        cJSON_Delete(t);
        w->columns_sent = 1;
    } else {
        const char *av = ts_json_get_string(o->json, "apiVersion");
        char want[300];
        size_t len;

        snprintf(want, sizeof(want), "%s%s%s", w->q.res->group, w->q.res->group[0] ? "/" : "",
                 w->version);
        if (av && !strcmp(av, want)) {
            const char *text = ts__as_obj_text(o, &len);
            ts_buf_add(&w->out, text, len);
        } else {
            cJSON *c = ts__as_present(&w->q, w->q.res, o->json);
            ts_json_print(c, TS_JSON_COMPACT, &w->out, NULL);
            cJSON_Delete(c);
        }
    }
    ts_buf_adds(&w->out, "}\n");
    if (w->faults && ts_faults_watch_drop(w->faults, ++w->sent))
        w->cut = 1;
}

static void emit_bookmark(struct ts__as_watch *w)
{
    ts_buf_addf(&w->out,
                "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"%s\",\"apiVersion\":\"%s%s%s\","
                "\"metadata\":{\"resourceVersion\":\"%lld\"}}}\n",
                w->q.res->kind, w->q.res->group, w->q.res->group[0] ? "/" : "", w->version,
                (long long)w->last_rv);
}

static int visible(const struct ts__as_watch *w, const struct ts__as_obj *o)
{
    const char *ns = ts_json_get_string(o->json, "metadata.namespace");

    if (w->ns && (!ns || strcmp(ns, w->ns)))
        return 0;
    return ts__as_filter_match(w->filter, w->q.res, o->json);
}

static void deliver(struct ts__as_watch *w, const struct ts__as_event *e)
{
    int cur = visible(w, e->obj), old = e->old ? visible(w, e->old) : 0;

    switch (e->type) {
    case TS__AS_ADDED:
        if (cur)
            emit(w, "ADDED", e->obj);
        break;
    case TS__AS_MODIFIED:
        if (cur)
            emit(w, old ? "MODIFIED" : "ADDED", e->obj);
        else if (old)
            emit(w, "DELETED", e->obj);
        break;
    default:
        if (cur || old)
            emit(w, "DELETED", e->obj);
        break;
    }
}

/* Formats pending events; returns 1 when something was produced. */
static int drain(struct ts__as_watch *w)
{
    struct ts_apiserver *s = w->q.s;
    size_t i;

    w->q.now = wall_now();
    w->q.ver = ts__as_res_version(w->q.res, w->version);
    while (w->i_initial < w->n_initial && w->out.len < FLUSH_AT && !w->cut)
        emit(w, "ADDED", w->initial[w->i_initial++]);
    if (w->i_initial < w->n_initial)
        return 1;
    if (w->last_rv < s->ring_floor || w->expire) {
        char msg[128];

        snprintf(msg, sizeof(msg), "too old resource version: %lld (%lld)", (long long)w->last_rv,
                 (long long)s->ring_floor + 1);
        emit_status(w, 410, "Expired", msg);
        return 1;
    }
    for (i = ts__as_ring_seek(s, w->last_rv); i < s->ring_n && w->out.len < FLUSH_AT && !w->cut;
         i++) {
        const struct ts__as_event *e = ts__as_ring_at(s, i);

        if (e->res == w->q.res)
            deliver(w, e);
        w->last_rv = e->rv;
    }
    if (i == s->ring_n && s->rv > w->last_rv)
        w->last_rv = s->rv;
    return w->out.len > 0;
}

static int stream_over(struct ts__as_watch *w)
{
    return w->q.s->stopping || w->q.res->dead || !ts__as_res_version(w->q.res, w->version) ||
           mono_now() >= w->deadline;
}

/* When the next bookmark is due, as kube-apiserver's watch cache schedules
 * them: every BOOKMARK_EVERY, and one 2 s before the deadline so that the
 * client can resume from it; none when that moment has passed (a watch of
 * timeoutSeconds 2 or less gets none).  INT64_MAX: none. */
static ts_time next_bookmark(const struct ts__as_watch *w, ts_time now)
{
    ts_time at = now + BOOKMARK_EVERY, pre = w->deadline - 2 * TS_TIME_SECOND;

    if (pre < at)
        at = pre;
    return at < now ? INT64_MAX : at;
}

static void wait_for_change(struct ts__as_watch *w)
{
    ts_time until = w->deadline, now;
    struct timespec ts;

    if (w->bookmarks && w->next_bookmark < until)
        until = w->next_bookmark;
    now = mono_now();
    if (until <= now)
        return;
    clock_gettime(CLOCK_REALTIME, &ts);
    until = (ts_time)ts.tv_sec * TS_TIME_SECOND + ts.tv_nsec + (until - now);
    ts.tv_sec = (time_t)(until / TS_TIME_SECOND);
    ts.tv_nsec = (long)(until % TS_TIME_SECOND);
    pthread_cond_timedwait(&w->q.s->cond, &w->q.s->mu, &ts);
}

/* Fills w->out with at least one byte or sets done. Mutex held. */
static void fill(struct ts__as_watch *w)
{
    for (;;) {
        if (drain(w) || w->done)
            return;
        if (stream_over(w)) {
            w->done = 1;
            return;
        }
        if (w->bookmarks && mono_now() >= w->next_bookmark) {
            emit_bookmark(w);
            w->next_bookmark = next_bookmark(w, mono_now());
            return;
        }
        wait_for_change(w);
    }
}

ssize_t ts__as_watch_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    struct ts__as_watch *w = cls;
    size_t n;

    (void)pos;
    if (w->off >= w->out.len) {
        ts_buf_reset(&w->out);
        w->off = 0;
        if (w->cut)
            return MHD_CONTENT_READER_END_WITH_ERROR;
        if (w->done)
            return MHD_CONTENT_READER_END_OF_STREAM;
        if (!w->started) {
            /* flush the headers at once: a bare newline is whitespace to
             * every client's JSON stream decoder */
            w->started = 1;
            ts_buf_addc(&w->out, '\n');
        } else {
            if (w->faults)
                ts__as_faults_wait_pause(w->q.s);
            pthread_mutex_lock(&w->q.s->mu);
            fill(w);
            pthread_mutex_unlock(&w->q.s->mu);
            if (!w->out.len)
                return MHD_CONTENT_READER_END_OF_STREAM;
            if (w->faults)
                ts__as_faults_watch_lag(w->q.s);
        }
    }
    n = w->out.len - w->off < max ? w->out.len - w->off : max;
    memcpy(buf, w->out.ptr + w->off, n);
    w->off += n;
    return (ssize_t)n;
}

void ts__as_watch_free(void *cls)
{
    struct ts__as_watch *w = cls;
    struct ts_apiserver *s = w->q.s;

    pthread_mutex_lock(&s->mu);
    for (size_t i = 0; i < w->n_initial; i++)
        ts__as_obj_unref(w->initial[i]);
    pthread_mutex_unlock(&s->mu);
    free(w->initial);
    ts__as_filter_free(w->filter);
    ts_strmap_release(&w->q.query);
    ts_buf_release(&w->out);
    free(w->version);
    free(w->ns);
    free(w);
}

static void snapshot(struct ts__as_watch *w)
{
    size_t n;
    struct ts__as_obj **objs = ts__as_store_list(w->q.res, w->ns, &n);

    w->initial = ts_xmalloc((n + 1) * sizeof(*w->initial));
    for (size_t i = 0; i < n; i++)
        if (ts__as_filter_match(w->filter, w->q.res, objs[i]->json)) {
            ts__as_obj_ref(objs[i]);
            w->initial[w->n_initial++] = objs[i];
        }
    free(objs);
}

static struct ts__as_watch *watch_new(struct ts__as_req *q, struct ts__as_filter *f)
{
    struct ts__as_watch *w = ts_xcalloc(1, sizeof(*w));
    const char *to = ts__as_query(q, "timeoutSeconds");
    int64_t secs = 1800;

    w->q.s = q->s;
    w->q.res = q->res;
    ts_strmap_copy(&w->q.query, &q->query);
    w->version = ts_xstrdup(q->ver->name);
    w->ns = q->res->namespaced && q->rt.ns ? ts_xstrdup(q->rt.ns) : NULL;
    w->filter = f;
    w->table = ts__as_want_table(q);
    w->bookmarks = ts__as_query_bool(q, "allowWatchBookmarks");
    if (to && (ts_parse_i64_c(to, &secs) || secs < 0))
        secs = 1800;
    if (secs > MAX_TIMEOUT_SECONDS) /* the deadline in ns must not wrap */
        secs = MAX_TIMEOUT_SECONDS;
    w->deadline = mono_now() + secs * TS_TIME_SECOND;
    w->faults = q->faulty ? q->s->faults : NULL;
    w->next_bookmark = next_bookmark(w, mono_now());
    ts_buf_init(&w->out, 0);
    return w;
}

void ts__as_handle_watch(struct ts__as_req *q, struct ts__as_resp *r)
{
    const char *rvs = ts__as_query(q, "resourceVersion");
    struct ts__as_filter *f;
    struct ts__as_watch *w;
    int64_t rv = 0;

    if (rvs && rvs[0] && ts_parse_i64_c(rvs, &rv)) {
        ts__as_reply_badreq(r, "invalid resource version: %s", rvs);
        return;
    }
    if (ts__as_filter_new(q, r, &f))
        return;
    w = watch_new(q, f);
    if (!rvs || !rvs[0] || rv == 0) {
        snapshot(w);
        w->last_rv = q->s->rv;
    } else {
        w->last_rv = rv;
        w->expire = q->expire;
    }
    r->watch = w;
    r->code = 200;
    r->ctype = "application/json";
}
