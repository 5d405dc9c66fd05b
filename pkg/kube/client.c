/*
 * client.c - the life of a call: rate-limiter queue, credentials, the
 * HTTP attempt, retries, decoding and the callback (see client.h).
 */
#include "kube/client_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "json/json.h"
#include "util/alloc.h"
#include "util/log.h"

#define SEC             INT64_C(1000000000)
#define MAX_RETRY_AFTER (60 * SEC)

/* --- construction ------------------------------------------------------------ */

static void defaults(struct ts_kube_client_opts *o)
{
    if (o->qps == 0)
        o->qps = 20;
    if (o->burst <= 0)
        o->burst = 30;
    if (o->timeout_ns <= 0)
        o->timeout_ns = 60 * SEC;
    if (o->max_retries == 0)
        o->max_retries = 10;
    if (o->backoff_base <= 0)
        o->backoff_base = SEC / 10;
    if (o->backoff_cap <= 0)
        o->backoff_cap = 10 * SEC;
    if (!o->user_agent)
        o->user_agent = TS_KUBE_USER_AGENT;
}

/* tls-server-name: the URL names the TLS name (SNI and verification use
 * it) and CURLOPT_CONNECT_TO sends the connection to the real host. */
static void set_base(struct ts_kube_client *c)
{
    const struct ts_kubeconfig *cfg = c->cfg;
    const char *hp = strstr(cfg->server, "://") + 3, *colon, *slash;
    struct ts_buf b = TS_BUF_INIT;
    const char *port;
    size_t hlen;

    if (!cfg->tls_server_name || strncmp(cfg->server, "https://", 8)) {
        c->base = ts_xstrdup(cfg->server);
        return;
    }
    slash = strchr(hp, '/');
    colon = hp[0] == '[' ? strstr(hp, "]:") : strchr(hp, ':');
    colon = colon && hp[0] == '[' ? colon + 1 : colon;
    if (colon && slash && colon > slash)
        colon = NULL;
    hlen = colon ? (size_t)(colon - hp) : slash ? (size_t)(slash - hp) : strlen(hp);
    port = colon ? colon + 1 : "443";
    ts_buf_addf(&b, "https://%s:%.*s%s", cfg->tls_server_name, (int)strcspn(port, "/"), port,
                slash ? slash : "");
    c->base = ts_buf_take(&b);
    ts_buf_addf(&b, "%s:%.*s:%.*s:%.*s", cfg->tls_server_name, (int)strcspn(port, "/"), port,
                (int)hlen, hp, (int)strcspn(port, "/"), port);
    c->connect_to = ts_buf_take(&b);
}

struct ts_kube_client *ts_kube_client_new(struct ts_loop *loop, const struct ts_kubeconfig *cfg,
                                          const struct ts_kube_client_opts *opts,
                                          struct ts_err *err)
{
    struct ts_kube_client *c;
    struct timespec ts;

    if (!cfg->server || !strstr(cfg->server, "://")) {
        ts_err_set(err, TS_EINVAL, "kubeconfig has no server URL");
        return NULL;
    }
    c = ts_xcalloc(1, sizeof(*c));
    if (opts)
        c->o = *opts;
    defaults(&c->o);
    c->loop = loop;
    c->cfg = cfg;
    if (!(c->http = ts_http_new(loop, !c->o.no_http2))) {
        free(c);
        ts_err_set(err, TS_EIO, "cannot initialise libcurl");
        return NULL;
    }
    c->cred = ts_kube_cred_new(cfg);
    ts_hmap_init(&c->lane_of);
    clock_gettime(CLOCK_REALTIME, &ts);
    ts_backoff_init(&c->rng, c->o.backoff_base, c->o.backoff_cap, 2, 0.5,
                    c->o.seed ? c->o.seed : (uint64_t)ts.tv_nsec * 2654435761u + 1);
    set_base(c);
    return c;
}

static void call_free(struct ts_kube_call *call);

void ts_kube_client_free(struct ts_kube_client *c)
{
    if (!c)
        return;
    while (c->all)
        call_free(c->all);
    ts_loop_timer_cancel(c->loop, c->qtimer);
    ts_http_free(c->http);
    ts_kube_cred_free(c->cred);
    ts_hmap_release(&c->lane_of);
    free(c->lanes);
    free(c->base);
    free(c->connect_to);
    free(c);
}

struct ts_loop *ts_kube_client_loop(const struct ts_kube_client *c)
{
    return c->loop;
}

const struct ts_kubeconfig *ts_kube_client_config(const struct ts_kube_client *c)
{
    return c->cfg;
}

void ts_kube_client_set_gate(struct ts_kube_client *c, ts_kube_gate_fn fn, void *data)
{
    c->gate = fn;
    c->gate_data = data;
}

/* --- rate-limit lanes ------------------------------------------------------------ */

/* Each resource has two lanes, each a token bucket of the client's QPS
 * and burst: one for the informers' lists and watches, one for the rest.
 * So has Kueue: controller-runtime builds a REST client, with a rate
 * limiter of its own, per kind for its client and per kind for its
 * cache, and the event recorder has a clientset of its own.  With one
 * bucket for all, Events would take most of the budget from the Workload
 * writes, and a watch that timed out would wait behind the queued writes
 * to resume: the cache would fall behind, its stale versions make 409s,
 * and a relist outlive its continue token. */
static size_t lane_of(struct ts_kube_client *c, const struct ts_kube_resource *res, int cache)
{
    char key[256];
    uintptr_t i;

    snprintf(key, sizeof(key), "%s/%s/%c", res && res->group ? res->group : "",
             res && res->resource ? res->resource : "", cache ? 'c' : 'w');
    if ((i = (uintptr_t)ts_hmap_get(&c->lane_of, key)))
        return i - 1;
    c->lanes = ts_xrealloc(c->lanes, (c->nlanes + 1) * sizeof(*c->lanes));
    memset(&c->lanes[c->nlanes], 0, sizeof(*c->lanes));
    ts_ratelimit_init(&c->lanes[c->nlanes].rl, c->o.qps, c->o.burst, ts_loop_now(c->loop));
    ts_hmap_put(&c->lane_of, key, (void *)(uintptr_t)(c->nlanes + 1));
    return c->nlanes++;
}

static int is_cache_verb(enum ts_kube_verb v)
{
    return v == TS_KUBE_LIST || v == TS_KUBE_WATCH;
}

/* Whether no call of res's lane waits for a token and enough are at
 * hand: `fraction` of the burst, or else what the lane's QPS grants over
 * `window` ns; at least 1, at most the burst. */
static int lane_has(struct ts_kube_client *c, const struct ts_kube_resource *res, double fraction,
                    int64_t window)
{
    size_t i = lane_of(c, res, 0); /* before c->lanes is read: it may grow */
    struct ts__kube_lane *l = &c->lanes[i];
    int64_t now = ts_loop_now(c->loop);
    double need;

    if (l->rl.qps <= 0)
        return 1;
    need = fraction > 0 ? fraction * l->rl.burst : l->rl.qps * (double)window / 1e9;
    if (need > l->rl.burst)
        need = l->rl.burst;
    /* a lane is FIFO in token order: if its last call may go now, no call
     * waits for a token */
    return (!l->qtail || l->qtail->ready_at <= now) &&
           ts_ratelimit_has(&l->rl, now, need < 1 ? 1 : need);
}

int ts_kube_client_spare(struct ts_kube_client *c, const struct ts_kube_resource *res,
                         double fraction)
{
    return lane_has(c, res, fraction, 0);
}

int ts_kube_client_batch_ready(struct ts_kube_client *c, const struct ts_kube_resource *res,
                               int64_t window)
{
    return lane_has(c, res, 0, window);
}

void ts_kube_client_stats(const struct ts_kube_client *c, struct ts_kube_stats *out)
{
    *out = c->stats;
    out->connections = ts_http_connections(c->http);
}

/* --- call list and queue -------------------------------------------------------- */

static void arm_queue(struct ts_kube_client *c);

/* Requests on the wire at once (watches aside); the rest wait in the
 * queue.  Without a budget the controller handed libcurl thousands of
 * writes at a time, each with its transfer state and buffers (peak RSS
 * 100-250 MiB); client-go is held likewise by HTTP/2's stream limit. */
#define MAX_ACTIVE 128

static int may_start(const struct ts_kube_client *c, const struct ts_kube_call *call)
{
    return call->verb == TS_KUBE_WATCH || c->active < MAX_ACTIVE;
}

static void active_done(struct ts_kube_call *call)
{
    if (!call->active)
        return;
    call->active = 0;
    call->c->active--;
    arm_queue(call->c); /* a call may be waiting for this slot */
}

static void unqueue(struct ts_kube_call *call)
{
    struct ts__kube_lane *l;
    struct ts_kube_call **pp, *prev = NULL;

    /* only a call cancelled while it waits for a token is in the queue:
     * walking it for every finished call would be O(queue) per request,
     * and the Event queue can be deep */
    if (!call->queued)
        return;
    call->queued = 0;
    l = &call->c->lanes[call->lane];
    pp = &l->qhead;
    while (*pp && *pp != call) {
        prev = *pp;
        pp = &(*pp)->qnext;
    }
    if (!*pp)
        return;
    *pp = call->qnext;
    if (l->qtail == call)
        l->qtail = prev;
    call->qnext = NULL;
}

static void call_free(struct ts_kube_call *call)
{
    struct ts_kube_client *c = call->c;

    if (call->release)
        call->release(call->data);
    unqueue(call);
    active_done(call);
    ts_loop_timer_cancel(c->loop, call->timer);
    ts_http_cancel(call->http);
    if (call->prev)
        call->prev->next = call->next;
    else
        c->all = call->next;
    if (call->next)
        call->next->prev = call->prev;
    free(call->path);
    free(call->body);
    free(call->cont);
    cJSON_Delete(call->items);
    ts_buf_release(&call->err_body);
    free(call);
}

void ts_kube_cancel(struct ts_kube_call *call)
{
    if (call)
        call_free(call);
}

static void start(struct ts_kube_call *call);

/* The lane whose head may start first (the earliest token among the
 * heads that may go on the wire), or NULL. */
static struct ts__kube_lane *first_lane(const struct ts_kube_client *c)
{
    struct ts__kube_lane *best = NULL;

    for (size_t i = 0; i < c->nlanes; i++) {
        struct ts__kube_lane *l = &c->lanes[i];

        if (l->qhead && may_start(c, l->qhead) &&
            (!best || l->qhead->ready_at < best->qhead->ready_at))
            best = l;
    }
    return best;
}

static void on_queue(struct ts_loop *loop, void *data)
{
    struct ts_kube_client *c = data;
    int64_t now = ts_loop_now(loop);
    struct ts__kube_lane *l;

    c->qtimer = 0;
    while ((l = first_lane(c)) && l->qhead->ready_at <= now) {
        struct ts_kube_call *call = l->qhead;

        l->qhead = call->qnext;
        if (!l->qhead)
            l->qtail = NULL;
        call->qnext = NULL;
        call->queued = 0;
        c->stats.throttled_ns += now - call->queued_at;
        start(call); /* may reallocate c->lanes */
    }
    arm_queue(c);
}

/* Sets the timer for the first head's token, unless it is set earlier.
 * A head that waits for its token starts on the next throttle_tick
 * instead, with every other head whose token is due by then: the rate is
 * the same, but a saturated client wakes once per tick rather than once
 * per request, and a wakeup can cost more CPU than the request it sends
 * (test/bench/bench_kube_requests.c measures both).  Heads that only
 * wait for a slot are started by active_done(). */
static void arm_queue(struct ts_kube_client *c)
{
    struct ts__kube_lane *l = first_lane(c);
    int64_t at;

    if (!l)
        return;
    at = l->qhead->ready_at;
    if (c->o.throttle_tick > 0 && at > ts_loop_now(c->loop))
        at = (at + c->o.throttle_tick - 1) / c->o.throttle_tick * c->o.throttle_tick;
    if (c->qtimer && c->qtimer_at <= at)
        return;
    ts_loop_timer_cancel(c->loop, c->qtimer);
    c->qtimer = ts_loop_timer_add(c->loop, at - ts_loop_now(c->loop), on_queue, c);
    c->qtimer_at = at;
}

/* Every attempt waits for a token of its lane, in order; callbacks never
 * run inside ts_kube_submit() because the queues are always drained from
 * a timer. */
static void enqueue(struct ts_kube_call *call)
{
    struct ts_kube_client *c = call->c;
    struct ts__kube_lane *l = &c->lanes[call->lane];
    int64_t now = ts_loop_now(c->loop), wait = ts_ratelimit_reserve(&l->rl, now);

    if (wait > 0)
        c->stats.throttled++;
    call->queued_at = now;
    call->ready_at = now + wait;
    call->queued = 1;
    if (l->qtail)
        l->qtail->qnext = call;
    else
        l->qhead = call;
    l->qtail = call;
    arm_queue(c);
}

/* --- completion ----------------------------------------------------------------- */

static void finish(struct ts_kube_call *call, struct ts_kube_result *res)
{
    res->attempts = call->attempts;
    res->unsure = res->code && call->unsure;
    call->release = NULL; /* fn has data now */
    call->fn(call->c, res, call->data);
    cJSON_Delete(res->obj);
    ts_kube_status_release(&res->status);
    call_free(call);
}

static void fail(struct ts_kube_call *call, int code, const char *msg)
{
    struct ts_kube_result res = {0};

    res.code = code;
    ts_err_set(&res.err, code, "%s %s: %s", call->method, call->path, msg);
    finish(call, &res);
}

static int idempotent(const struct ts_kube_call *call)
{
    return call->verb == TS_KUBE_GET || call->verb == TS_KUBE_LIST ||
           call->verb == TS_KUBE_UPDATE || call->verb == TS_KUBE_DELETE;
}

static void on_retry(struct ts_loop *loop, void *data)
{
    struct ts_kube_call *call = data;

    (void)loop;
    call->timer = 0;
    enqueue(call);
}

/* Returns 1 when the call was scheduled again. */
static int retry(struct ts_kube_call *call, const struct ts_http_result *h)
{
    struct ts_kube_client *c = call->c;
    int64_t delay;
    unsigned step = call->attempts - 1;
    int ok;

    if ((call->flags & TS_KUBE_REQ_NO_RETRY) || call->verb == TS_KUBE_WATCH ||
        (int)call->attempts > c->o.max_retries)
        return 0;
    if (h->code == TS_ETLS) /* a certificate will not get better */
        ok = 0;
    else if (h->code)
        ok = !h->sent || idempotent(call);
    else
        ok = h->status == 429 || (idempotent(call) && (h->status == 500 || h->status == 502 ||
                                                       h->status == 503 || h->status == 504));
    if (!ok)
        return 0;
    c->rng.steps = step;
    delay = ts_backoff_next(&c->rng);
    if (!h->code && h->retry_after >= 0)
        delay = h->retry_after * SEC > MAX_RETRY_AFTER ? MAX_RETRY_AFTER : h->retry_after * SEC;
    c->stats.retries++;
    ts_log_debug("kube", "retry method=%s path=%s attempt=%u status=%ld delay_ms=%lld",
                 call->method, call->path, call->attempts, h->status, (long long)(delay / 1000000));
    call->timer = ts_loop_timer_add(c->loop, delay, on_retry, call);
    return 1;
}

/* Paging: returns 1 when another page was requested. */
static int next_page(struct ts_kube_call *call, struct ts_kube_result *res)
{
    const char *cont = ts_json_get_string(res->obj, "metadata.continue");
    cJSON *items = cJSON_DetachItemFromObjectCaseSensitive(res->obj, "items"), *it;

    if (call->on_page) {
        call->on_page(items ? items : cJSON_CreateArray(), call->data);
        items = NULL;
    } else if (!call->items)
        call->items = cJSON_CreateArray();
    while (items && (it = cJSON_DetachItemFromArray(items, 0)))
        cJSON_AddItemToArray(call->items, it);
    cJSON_Delete(items);
    free(call->cont);
    call->cont = cont && cont[0] ? ts_xstrdup(cont) : NULL;
    if (!call->cont) {
        if (res->obj && !call->on_page) /* else handed over page by page */
            cJSON_AddItemToObject(res->obj, "items", call->items);
        else
            cJSON_Delete(call->items);
        call->items = NULL;
        return 0;
    }
    call->paged = 1;
    call->attempts = 0;
    enqueue(call);
    return 1;
}

/* An expired continue token: list again from the start without paging. */
static int restart_list(struct ts_kube_call *call)
{
    if (!call->paging || !call->paged || call->restarted)
        return 0;
    call->restarted = 1;
    call->limit = 0;
    free(call->cont);
    call->cont = NULL;
    cJSON_Delete(call->items);
    call->items = NULL;
    call->attempts = 0;
    if (call->on_page)
        call->on_page(NULL, call->data);
    enqueue(call);
    return 1;
}

static void decode_ok(struct ts_kube_call *call, const struct ts_http_result *h,
                      struct ts_kube_result *res)
{
    if (call->verb == TS_KUBE_WATCH || !h->body->len)
        return;
    res->body = h->body->ptr;
    res->body_len = h->body->len;
    if (call->flags & TS_KUBE_REQ_NO_REPLY)
        return;
    if (ts_json_parse(h->body->ptr, h->body->len, &res->obj, &res->err)) {
        res->code = TS_EPARSE;
        ts_err_prefix(&res->err, "%s %s: reply", call->method, call->path);
    }
}

static void decode_fail(struct ts_kube_call *call, const struct ts_http_result *h,
                        struct ts_kube_result *res)
{
    const struct ts_buf *body = call->verb == TS_KUBE_WATCH ? &call->err_body : h->body;

    ts_kube_status_decode(h->status, body->ptr, body->len, &res->status);
    res->code = ts_kube_status_err(&res->status, &res->err);
}

static void on_http(struct ts_http_req *req, const struct ts_http_result *h, void *data)
{
    struct ts_kube_call *call = data;
    struct ts_kube_result res = {0};

    (void)req;
    call->http = NULL;
    active_done(call);
    call->c->stats.http2_replies += h->http_version == 2;
    if (ts_kube_verb_writes(call->verb) &&
        (h->code ? h->sent : h->status == 500 || h->status == 502 || h->status == 504))
        call->unsure = 1;
    if (h->status == 401 && !call->auth_retried && ts_kube_cred_invalidate(call->c->cred)) {
        call->auth_retried = 1;
        enqueue(call);
        return;
    }
    if ((h->code || h->status >= 300 || h->status < 200) && retry(call, h))
        return;
    res.http_status = h->status;
    if (call->stream_rc)
        res.code = ts_err_set(&res.err, call->stream_rc, "%s %s: stopped by the stream reader",
                              call->method, call->path);
    else if (h->code)
        res.code = ts_err_set(&res.err, h->code, "%s %s%s: %s", call->method, call->c->base,
                              call->path, h->error);
    else if (h->status >= 200 && h->status < 300)
        decode_ok(call, h, &res);
    else
        decode_fail(call, h, &res);
    if ((call->paging && !res.code && next_page(call, &res)) ||
        (res.code == TS_EGONE && restart_list(call))) {
        cJSON_Delete(res.obj);
        ts_kube_status_release(&res.status);
        return;
    }
    finish(call, &res);
}

/* --- sending ---------------------------------------------------------------------- */

static int on_data(struct ts_http_req *req, long status, const char *p, size_t n, void *data)
{
    struct ts_kube_call *call = data;

    (void)req;
    if (status < 200 || status >= 300)
        return ts_buf_add(&call->err_body, p, n) ? 1 : 0;
    if ((call->stream_rc = call->on_stream(p, n, call->stream_data)))
        return 1;
    return 0;
}

struct hdrs {
    const char *h[4];
    char ct[96];
    struct ts_buf auth;
};

static void hdrs_init(struct hdrs *hd, const struct ts_kube_call *call,
                      const struct ts_kube_auth *a)
{
    int n = 0;

    ts_buf_init(&hd->auth, 0);
    hd->h[n++] = "Accept: application/json";
    if (call->content_type) {
        snprintf(hd->ct, sizeof(hd->ct), "Content-Type: %s", call->content_type);
        hd->h[n++] = hd->ct;
    }
    if (a->token) {
        ts_buf_addf(&hd->auth, "Authorization: Bearer %s", a->token);
        hd->h[n++] = hd->auth.ptr;
    }
    hd->h[n] = NULL;
}

static void tls_opts(const struct ts_kube_client *c, const struct ts_kube_auth *a,
                     struct ts_http_tls *t)
{
    const struct ts_kubeconfig *cfg = c->cfg;

    memset(t, 0, sizeof(*t));
    t->ca_file = cfg->ca_file;
    t->ca_pem = cfg->ca_data;
    t->ca_pem_len = cfg->ca_data_len;
    t->insecure = cfg->insecure;
    t->cert_file = cfg->cert_file;
    t->key_file = cfg->key_file;
    t->cert_pem = a->cert_pem ? a->cert_pem : cfg->cert_data;
    t->cert_pem_len = a->cert_pem ? a->cert_pem_len : cfg->cert_data_len;
    t->key_pem = a->key_pem ? a->key_pem : cfg->key_data;
    t->key_pem_len = a->key_pem ? a->key_pem_len : cfg->key_data_len;
    t->connect_to = c->connect_to;
    t->proxy = cfg->proxy_url;
    t->username = cfg->username;
    t->password = cfg->password;
}

static void send_call(struct ts_kube_call *call, const struct ts_kube_auth *a)
{
    struct ts_kube_client *c = call->c;
    struct hdrs hd;
    struct ts_http_tls tls;
    struct ts_http_opts o = {0};
    struct ts_err e = {0};
    char *url = ts__kube_url(call);

    tls_opts(c, a, &tls);
    hdrs_init(&hd, call, a);
    o.method = call->method;
    o.url = url;
    o.headers = hd.h;
    o.body = call->body;
    o.body_len = call->body_len;
    o.timeout_ns = call->timeout_ns;
    o.tls = &tls;
    o.user_agent = c->o.user_agent;
    o.on_data = call->on_stream ? on_data : NULL;
    o.on_done = on_http;
    o.data = call;
    call->attempts++;
    c->stats.requests++;
    /* method and path only: credentials live in headers, never logged */
    ts_log_debug("kube", "request method=%s path=%s", call->method, call->path);
    ts_buf_reset(&call->err_body);
    if (ts_http_request(c->http, &o, &call->http, &e)) {
        fail(call, e.code, e.msg);
    } else if (call->verb != TS_KUBE_WATCH) {
        call->active = 1;
        if (++c->active > c->stats.active_peak)
            c->stats.active_peak = c->active;
    }
    ts_buf_release(&hd.auth);
    free(url);
}

static void start(struct ts_kube_call *call)
{
    struct ts_kube_client *c = call->c;
    struct ts_kube_auth a;
    int rc;
    struct ts_err e = {0};

    if (ts_kube_verb_writes(call->verb) && !(call->flags & TS_KUBE_REQ_UNGATED) && c->gate &&
        !c->gate(c->gate_data)) {
        fail(call, TS_EFORBIDDEN, "writes are stopped: this instance is not the leader");
        return;
    }
    if (call->check && (rc = call->check(call->data))) {
        ts_ratelimit_cancel(&c->lanes[call->lane].rl);
        c->stats.unsent++;
        fail(call, rc, "not sent: what it was built on has changed");
        return;
    }
    if (ts_kube_cred_get(c->cred, ts_loop_wall(c->loop), &a, &e)) {
        fail(call, e.code, e.msg);
        return;
    }
    send_call(call, &a);
}

static struct ts_kube_call *new_call(struct ts_kube_client *c, const struct ts_kube_req *r,
                                     ts_kube_done_fn fn, void *data)
{
    struct ts_kube_call *call = ts_xcalloc(1, sizeof(*call));

    call->c = c;
    call->fn = fn;
    call->data = data;
    call->flags = r->flags;
    call->on_stream = r->verb == TS_KUBE_WATCH ? r->on_stream : NULL;
    call->stream_data = r->stream_data;
    call->timeout_ns = r->timeout_ns > 0 ? r->timeout_ns : c->o.timeout_ns;
    if (r->verb == TS_KUBE_WATCH && r->timeout_ns <= 0)
        call->timeout_ns = r->timeout_seconds > 0 ? (r->timeout_seconds + 30) * SEC : 0;
    ts_buf_init(&call->err_body, 1 << 20);
    return call;
}

static int submit(struct ts_kube_client *c, const struct ts_kube_req *r, int paging,
                  ts_kube_done_fn fn, void *data, struct ts_kube_call **out, struct ts_err *err)
{
    struct ts_kube_call *call;
    int rc;

    if (!fn || (r->verb == TS_KUBE_WATCH && !r->on_stream))
        return ts_err_set(err, TS_EINVAL,
                          "request needs a callback (and a stream reader for "
                          "watches)");
    call = new_call(c, r, fn, data);
    call->next = c->all;
    if (c->all)
        c->all->prev = call;
    c->all = call;
    if ((rc = ts__kube_build(c, r, call, err))) {
        call_free(call);
        return rc;
    }
    call->lane = lane_of(c, r->res, is_cache_verb(r->verb));
    call->paging = paging;
    call->on_page = paging ? r->on_page : NULL;
    call->release = r->release; /* only now: on an error above, the caller keeps data */
    call->check = r->check;
    enqueue(call);
    if (out)
        *out = call;
    return 0;
}

int ts_kube_submit(struct ts_kube_client *c, const struct ts_kube_req *r, ts_kube_done_fn fn,
                   void *data, struct ts_kube_call **out, struct ts_err *err)
{
    return submit(c, r, 0, fn, data, out, err);
}

int ts_kube_list_all(struct ts_kube_client *c, const struct ts_kube_req *r, ts_kube_done_fn fn,
                     void *data, struct ts_kube_call **out, struct ts_err *err)
{
    if (r->verb != TS_KUBE_LIST)
        return ts_err_set(err, TS_EINVAL, "list_all needs a list request");
    return submit(c, r, 1, fn, data, out, err);
}
