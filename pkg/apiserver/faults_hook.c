/*
 * faults_hook.c - where --faults acts on requests (the decisions are
 * faults.c's): pauses and latency before serving, failed writes and
 * expired resumes answered instead of serving, replies cut mid-body, the
 * GET /debug/faults counters.  Watch drops are in watch.c.
 *
 * A request carrying "X-Turnstile-Faults: off" (an invariant checker),
 * health checks and /debug/faults itself are never faulted.
 */
#include "apiserver/server_int.h"

#include <microhttpd.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "apiserver/faults.h"
#include "util/alloc.h"
#include "util/log.h"

static ts_time mono_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (ts_time)ts.tv_sec * TS_TIME_SECOND + ts.tv_nsec;
}

static void nap(int64_t ns)
{
    struct timespec ts = {.tv_sec = (time_t)(ns / TS_TIME_SECOND),
                          .tv_nsec = (long)(ns % TS_TIME_SECOND)};

    while (nanosleep(&ts, &ts))
        ;
}

int ts__as_faults_enable(struct ts_apiserver *s, const char *spec, struct ts_err *err)
{
    struct ts_faults_spec fs;
    int rc;

    if (!spec)
        return 0;
    if ((rc = ts_faults_parse(spec, &fs, err)))
        return rc;
    s->faults = ts_xmalloc(sizeof(*s->faults));
    ts_faults_init(s->faults, &fs);
    s->faults_t0 = mono_now();
    return 0;
}

void ts__as_faults_release(struct ts_apiserver *s)
{
    struct ts_buf b = TS_BUF_INIT;

    if (!s->faults)
        return;
    ts_faults_json(s->faults, &b);
    ts_log_info("apiserver", "faults injected=%s", b.ptr);
    ts_buf_release(&b);
    free(s->faults);
    s->faults = NULL;
}

int ts__as_faults_apply(const struct ts_apiserver *s, const char *path, const char *header)
{
    if (!s->faults || (header && !strcmp(header, "off")))
        return 0;
    return strcmp(path, "/debug/faults") && strncmp(path, "/healthz", 8) &&
           strncmp(path, "/readyz", 7) && strncmp(path, "/livez", 6);
}

static enum ts_fault_req classify(const struct ts__as_req *q)
{
    const char *rv = ts__as_query(q, "resourceVersion"), *cont = ts__as_query(q, "continue");

    if (strcmp(q->method, "GET"))
        return TS_FAULT_REQ_WRITE;
    if (ts__as_query_bool(q, "watch"))
        return rv && rv[0] && strcmp(rv, "0") ? TS_FAULT_REQ_RESUME : TS_FAULT_REQ_WATCH;
    return cont && cont[0] ? TS_FAULT_REQ_RESUME : TS_FAULT_REQ_READ;
}

/* Holds the calling thread while the server is paused; 1 when it did. */
static int wait_pause(struct ts_apiserver *s)
{
    int waited = 0;
    int64_t left;

    while ((left = ts_faults_pause_left(&s->faults->spec, mono_now() - s->faults_t0)) > 0) {
        pthread_mutex_lock(&s->mu);
        if (s->stopping)
            left = 0;
        pthread_mutex_unlock(&s->mu);
        if (!left)
            break;
        waited = 1;
        nap(left < TS_TIME_SECOND / 10 ? left : TS_TIME_SECOND / 10); /* notice shutdown */
    }
    return waited;
}

void ts__as_faults_wait_pause(struct ts_apiserver *s)
{
    if (s->faults)
        wait_pause(s);
}

void ts__as_faults_watch_lag(struct ts_apiserver *s)
{
    int64_t lag = s->faults ? s->faults->spec.watch_lag : 0;

    if (lag <= 0)
        return;
    pthread_mutex_lock(&s->mu);
    s->faults->count[TS_FAULT_WATCH_LAG]++;
    pthread_mutex_unlock(&s->mu);
    nap(lag);
}

int ts__as_faults_before(struct ts__as_req *q, struct ts__as_resp *r, int *cut)
{
    static const struct {
        int code;
        const char *reason, *msg;
    } fails[] = {
        [TS_FAULT_WRITE_409] = {409, "Conflict",
                                "Operation cannot be fulfilled: injected conflict (--faults), "
                                "please apply your changes to the latest version and try again"},
        [TS_FAULT_WRITE_429] = {429, "TooManyRequests",
                                "injected by --faults: too many requests, please try again later"},
        [TS_FAULT_WRITE_500] = {500, "InternalError",
                                "Internal error occurred: injected by --faults"},
        [TS_FAULT_WRITE_503] = {503, "ServiceUnavailable", "injected by --faults: unavailable"},
        [TS_FAULT_GONE] = {410, "Expired", "too old resource version (injected by --faults)"},
    };
    struct ts_apiserver *s = q->s;
    struct ts_fault_decision d;
    int paused = wait_pause(s);
    enum ts_fault_req req = classify(q);
    cJSON *details;

    pthread_mutex_lock(&s->mu);
    if (paused)
        ts_faults_count_pause(s->faults);
    ts_faults_decide(s->faults, req, &d);
    pthread_mutex_unlock(&s->mu);
    if (d.latency > 0)
        nap(d.latency);
    *cut = d.cut;
    if (!d.fail)
        return 0;
    if (d.fail == TS_FAULT_GONE && req == TS_FAULT_REQ_RESUME && ts__as_query_bool(q, "watch")) {
        q->expire = 1; /* the stream starts with the 410 ERROR event, as kube's does */
        return 0;
    }
    details = cJSON_CreateObject();
    if (d.fail == TS_FAULT_WRITE_429)
        cJSON_AddNumberToObject(details, "retryAfterSeconds", (double)s->faults->spec.retry_after);
    ts__as_reply_status(r, fails[d.fail].code, fails[d.fail].reason, fails[d.fail].msg, details);
    r->retry_after = d.fail == TS_FAULT_WRITE_429 ? s->faults->spec.retry_after : -1;
    return 1;
}

/* A reply that stops halfway through its body and drops the connection. */
struct cut_body {
    char *ptr;
    size_t len;
};

static ssize_t cut_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    struct cut_body *b = cls;
    size_t half = b->len / 2, n;

    if (pos >= half)
        return MHD_CONTENT_READER_END_WITH_ERROR;
    n = half - (size_t)pos < max ? half - (size_t)pos : max;
    memcpy(buf, b->ptr + pos, n);
    return (ssize_t)n;
}

static void cut_free(void *cls)
{
    struct cut_body *b = cls;

    free(b->ptr);
    free(b);
}

struct MHD_Response *ts__as_faults_cut_response(struct ts__as_resp *r)
{
    struct cut_body *b = ts_xmalloc(sizeof(*b));

    b->len = r->body.len;
    b->ptr = ts_buf_take(&r->body);
    return MHD_create_response_from_callback(b->len, 4096, cut_read, b, cut_free);
}

int ts__as_faults_endpoint(struct ts__as_req *q, struct ts__as_resp *r)
{
    if (strcmp(q->path, "/debug/faults"))
        return 0;
    if (strcmp(q->method, "GET")) {
        ts__as_reply_status(r, 405, "MethodNotAllowed", "GET only", NULL);
        return 1;
    }
    r->code = 200;
    r->ctype = "application/json";
    if (q->s->faults)
        ts_faults_json(q->s->faults, &r->body);
    else
        ts_buf_adds(&r->body, "{\"enabled\":false}");
    return 1;
}
