/* Tests for pkg/kube/client against a scripted HTTP server on loopback
 * (run by the same event loop): which failures are retried for which
 * verbs, Retry-After, backoff limits, 401 credential refresh, the
 * rate limiter measured with a fake clock, the write gate, timeouts,
 * release of unanswered calls' data and connection reuse. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "json/json.h"
#include "kube/client.h"
#include "kube/loop.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/parse.h"

#define MS  INT64_C(1000000)
#define SEC INT64_C(1000000000)

struct step {
    int status;          /* 0: close the connection without replying */
    const char *headers; /* extra header lines, each ending in \r\n */
    const char *body;
};

struct conn {
    int fd;
    struct ts_buf in;
};

struct fsrv {
    struct ts_loop *loop;
    int lfd, port;
    const struct step *steps;
    size_t nsteps, next;
    struct conn conns[64];
    int requests, accepts;
    struct ts_buf log; /* "METHOD path auth\n" per request */
};

static void conn_close(struct fsrv *s, struct conn *c)
{
    ts_loop_unwatch(s->loop, c->fd);
    close(c->fd);
    c->fd = -1;
    ts_buf_release(&c->in);
}

/* Whether c->in holds a whole request (headers and Content-Length body). */
static int complete(const struct conn *c)
{
    const char *end = strstr(c->in.ptr, "\r\n\r\n"), *cl = strstr(c->in.ptr, "Content-Length:");
    int64_t body = 0;

    if (!end)
        return 0;
    if (cl && cl < end)
        ts_parse_i64(cl + 16, strcspn(cl + 16, "\r"), &body);
    return c->in.len >= (size_t)(end - c->in.ptr) + 4 + (size_t)body;
}

static void log_request(struct fsrv *s, const struct conn *c)
{
    const char *sp = strchr(c->in.ptr, ' '), *sp2 = sp ? strchr(sp + 1, ' ') : NULL;
    const char *auth = strstr(c->in.ptr, "Authorization: Bearer ");

    ts_buf_add(&s->log, c->in.ptr, sp2 ? (size_t)(sp2 - c->in.ptr) : 0);
    ts_buf_addc(&s->log, ' ');
    if (auth)
        ts_buf_add(&s->log, auth + 22, strcspn(auth + 22, "\r"));
    else
        ts_buf_adds(&s->log, "-");
    ts_buf_addc(&s->log, '\n');
}

static void respond(struct fsrv *s, struct conn *c)
{
    static const struct step ok = {200, NULL, "{\"kind\":\"ConfigMap\"}"};
    const struct step *st = s->next < s->nsteps ? &s->steps[s->next] : &ok;
    struct ts_buf out = TS_BUF_INIT;
    const char *body = st->body ? st->body : "";

    s->next++;
    s->requests++;
    log_request(s, c);
    if (!st->status) {
        conn_close(s, c);
        return;
    }
    ts_buf_addf(&out,
                "HTTP/1.1 %d X\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n"
                "%s\r\n%s",
                st->status, strlen(body), st->headers ? st->headers : "", body);
    assert_int_equal(write(c->fd, out.ptr, out.len), (ssize_t)out.len);
    ts_buf_release(&out);
    ts_buf_reset(&c->in);
}

static void on_conn(struct ts_loop *l, int fd, unsigned ev, void *data)
{
    struct fsrv *s = data;
    struct conn *c = NULL;
    char buf[8192];
    ssize_t n;

    (void)l;
    (void)ev;
    for (int i = 0; i < 64; i++)
        if (s->conns[i].fd == fd)
            c = &s->conns[i];
    n = read(fd, buf, sizeof(buf));
    if (n <= 0) {
        conn_close(s, c);
        return;
    }
    ts_buf_add(&c->in, buf, (size_t)n);
    if (complete(c))
        respond(s, c);
}

static void on_accept(struct ts_loop *l, int fd, unsigned ev, void *data)
{
    struct fsrv *s = data;
    int cfd = accept(fd, NULL, NULL);

    (void)ev;
    if (cfd < 0)
        return;
    s->accepts++;
    for (int i = 0; i < 64; i++) {
        if (s->conns[i].fd < 0) {
            s->conns[i].fd = cfd;
            ts_buf_init(&s->conns[i].in, 0);
            ts_loop_watch(l, cfd, TS_LOOP_READ, on_conn, s);
            return;
        }
    }
    close(cfd);
}

static void fsrv_start(struct fsrv *s, struct ts_loop *l, const struct step *steps, size_t n)
{
    struct sockaddr_in a = {0};
    socklen_t len = sizeof(a);

    memset(s, 0, sizeof(*s));
    for (int i = 0; i < 64; i++)
        s->conns[i].fd = -1;
    s->loop = l;
    s->steps = steps;
    s->nsteps = n;
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    s->lfd = socket(AF_INET, SOCK_STREAM, 0);
    assert_int_equal(bind(s->lfd, (struct sockaddr *)&a, sizeof(a)), 0);
    assert_int_equal(listen(s->lfd, 64), 0);
    getsockname(s->lfd, (struct sockaddr *)&a, &len);
    s->port = ntohs(a.sin_port);
    ts_loop_watch(l, s->lfd, TS_LOOP_READ, on_accept, s);
    ts_buf_init(&s->log, 0);
}

static void fsrv_stop(struct fsrv *s)
{
    for (int i = 0; i < 64; i++)
        if (s->conns[i].fd >= 0)
            conn_close(s, &s->conns[i]);
    ts_loop_unwatch(s->loop, s->lfd);
    close(s->lfd);
    ts_buf_release(&s->log);
}

/* --- harness ------------------------------------------------------------------------ */

struct env {
    struct ts_loop *loop;
    struct fsrv srv;
    struct ts_kubeconfig cfg;
    struct ts_kube_client *c;
    char server[64];
};

static void env_up(struct env *e, const struct step *steps, size_t n,
                   const struct ts_kube_client_opts *o)
{
    struct ts_kube_client_opts d = {.backoff_base = 10 * MS, .backoff_cap = 40 * MS};
    struct ts_err err = {0};

    memset(e, 0, sizeof(*e));
    e->loop = ts_loop_new();
    fsrv_start(&e->srv, e->loop, steps, n);
    snprintf(e->server, sizeof(e->server), "http://127.0.0.1:%d", e->srv.port);
    e->cfg.server = e->server;
    e->cfg.token = "tok-1";
    e->c = ts_kube_client_new(e->loop, &e->cfg, o ? o : &d, &err);
    assert_non_null(e->c);
}

static void env_down(struct env *e)
{
    ts_kube_client_free(e->c);
    fsrv_stop(&e->srv);
    ts_loop_free(e->loop);
}

struct done {
    int n, code, unsure;
    unsigned attempts;
    long status;
};

static void on_done(struct ts_kube_client *c, struct ts_kube_result *res, void *data)
{
    struct done *d = data;

    (void)c;
    d->n++;
    d->code = res->code;
    d->attempts = res->attempts;
    d->status = res->http_status;
    d->unsure = res->unsure;
}

static struct done run(struct env *e, enum ts_kube_verb verb)
{
    cJSON *body = cJSON_Parse("{\"metadata\":{\"name\":\"x\"}}");
    struct ts_kube_req r = {.verb = verb,
                            .res = &ts_kube_res_configmaps,
                            .ns = "default",
                            .name = verb == TS_KUBE_CREATE ? NULL : "x",
                            .body = body};
    struct done d = {0};
    struct ts_err err = {0};

    assert_int_equal(ts_kube_submit(e->c, &r, on_done, &d, NULL, &err), 0);
    assert_int_equal(d.n, 0); /* never called from inside submit */
    while (!d.n)
        ts_loop_run_once(e->loop, -1);
    cJSON_Delete(body);
    return d;
}

/* --- tests -------------------------------------------------------------------------- */

static void test_retry_policy(void **state)
{
    static const struct step s503[] = {{503, NULL, NULL}, {503, NULL, NULL}};
    static const struct step s500[] = {{500, NULL,
                                        "{\"kind\":\"Status\",\"reason\":"
                                        "\"InternalError\",\"message\":\"boom\"}"}};
    static const struct step s429[] = {{429, "Retry-After: 0\r\n", NULL}};
    static const struct step hang[] = {{0, NULL, NULL}};
    static const struct step s404[] = {{404, NULL,
                                        "{\"kind\":\"Status\",\"reason\":"
                                        "\"NotFound\",\"message\":\"nope\"}"}};
    static const struct step s409[] = {{409, NULL,
                                        "{\"kind\":\"Status\",\"reason\":"
                                        "\"Conflict\",\"message\":\"modified\"}"}};
    /* the first attempt may have been carried out: its retry's 409 may be its own doing */
    static const struct step hang409[] = {{0, NULL, NULL}, s409[0]};
    static const struct step s504409[] = {{504, NULL, NULL}, s409[0]};
    static const struct step s503409[] = {{503, NULL, NULL}, s409[0]};
    static const struct {
        const char *name;
        const struct step *steps;
        size_t n;
        enum ts_kube_verb verb;
        int code;
        unsigned attempts;
        int unsure;
    } cases[] = {
        {"GET 503 twice then 200", s503, 2, TS_KUBE_GET, 0, 3, 0},
        {"PUT 503 twice then 200", s503, 2, TS_KUBE_UPDATE, 0, 3, 0},
        {"DELETE 503 twice then 200", s503, 2, TS_KUBE_DELETE, 0, 3, 0},
        {"POST 503 not retried", s503, 2, TS_KUBE_CREATE, TS_EUNAVAILABLE, 1, 0},
        {"PATCH 500 not retried", s500, 1, TS_KUBE_PATCH, TS_EINTERNAL, 1, 1},
        {"POST 429 retried", s429, 1, TS_KUBE_CREATE, 0, 2, 0},
        {"PATCH 429 retried", s429, 1, TS_KUBE_PATCH, 0, 2, 0},
        {"GET dropped connection retried", hang, 1, TS_KUBE_GET, 0, 2, 0},
        {"PATCH dropped connection not retried", hang, 1, TS_KUBE_PATCH, TS_EIO, 1, 1},
        {"GET 404 not retried", s404, 1, TS_KUBE_GET, TS_ENOTFOUND, 1, 0},
        {"PUT 409", s409, 1, TS_KUBE_UPDATE, TS_ECONFLICT, 1, 0},
        {"PUT dropped connection then 409", hang409, 2, TS_KUBE_UPDATE, TS_ECONFLICT, 2, 1},
        {"PUT 504 then 409", s504409, 2, TS_KUBE_UPDATE, TS_ECONFLICT, 2, 1},
        {"PUT 503 then 409", s503409, 2, TS_KUBE_UPDATE, TS_ECONFLICT, 2, 0},
        {"PUT dropped connection then 200", hang, 1, TS_KUBE_UPDATE, 0, 2, 0},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct env e;
        struct done d;

        env_up(&e, cases[i].steps, cases[i].n, NULL);
        d = run(&e, cases[i].verb);
        if (d.code != cases[i].code || d.attempts != cases[i].attempts ||
            e.srv.requests != (int)cases[i].attempts || d.unsure != cases[i].unsure)
            fail_msg("case '%s': code %s attempts %u server saw %d unsure %d", cases[i].name,
                     ts_err_name(d.code), d.attempts, e.srv.requests, d.unsure);
        env_down(&e);
    }
}

static void test_retry_after_and_limit(void **state)
{
    static const struct step s429[] = {{429, "Retry-After: 1\r\n", NULL}};
    static const struct step always[] = {{503, NULL, NULL},
                                         {503, NULL, NULL},
                                         {503, NULL, NULL},
                                         {503, NULL, NULL},
                                         {503, NULL, NULL}};
    struct ts_kube_client_opts o = {.max_retries = 3, .backoff_base = MS, .backoff_cap = 2 * MS};
    struct env e;
    struct done d;
    int64_t t0;

    (void)state;
    env_up(&e, s429, 1, NULL);
    t0 = ts_loop_update_time(e.loop);
    d = run(&e, TS_KUBE_GET);
    assert_int_equal(d.code, 0);
    assert_true(ts_loop_update_time(e.loop) - t0 >= SEC); /* Retry-After honoured */
    env_down(&e);
    env_up(&e, always, 5, &o);
    d = run(&e, TS_KUBE_GET);
    assert_int_equal(d.code, TS_EUNAVAILABLE);
    assert_int_equal(d.attempts, 4); /* 1 + max_retries */
    env_down(&e);
}

static void test_connection_refused(void **state)
{
    struct ts_kube_client_opts o = {.max_retries = 2, .backoff_base = MS, .backoff_cap = 2 * MS};
    struct env e;
    struct done d;

    (void)state;
    env_up(&e, NULL, 0, &o);
    fsrv_stop(&e.srv); /* nothing listens on the port any more */
    e.srv.lfd = -1;
    /* nothing was sent, so even a POST is retried */
    d = run(&e, TS_KUBE_CREATE);
    assert_int_equal(d.code, TS_EIO);
    assert_int_equal(d.attempts, 3);
    ts_kube_client_free(e.c);
    ts_loop_free(e.loop);
}

static void stop_loop(struct ts_loop *l, void *data)
{
    (void)data;
    ts_loop_stop(l);
}

static void set_flag(struct ts_loop *l, void *data)
{
    *(int *)data = 1;
    ts_loop_stop(l);
}

/* A SIGTERM handled inside a blocking call (the controller's discovery at
 * start-up) stops the loop: the call gives up instead of waiting out the
 * server's Retry-After, and the stop holds for a ts_loop_run() after it
 * (were it reset there, a controller killed while starting would run on). */
static void test_sync_call_ends_with_the_loop(void **state)
{
    static const struct step busy[] = {{503, "Retry-After: 30\r\n", NULL}};
    struct env e;
    struct ts_err err = {0};
    cJSON *out = NULL;
    int64_t t0;
    int ran = 0;

    (void)state;
    env_up(&e, busy, 1, NULL);
    t0 = ts_loop_update_time(e.loop);
    ts_loop_timer_add(e.loop, 30 * MS, stop_loop, NULL);
    assert_int_equal(ts_kube_get_sync(e.c, &ts_kube_res_configmaps, "default", "x", &out, &err),
                     TS_ECANCELED);
    assert_null(out);
    assert_non_null(strstr(err.msg, "configmaps"));
    assert_true(ts_loop_update_time(e.loop) - t0 < 5 * SEC);
    assert_int_equal(e.srv.requests, 1);
    ts_loop_timer_add(e.loop, 0, set_flag, &ran);
    assert_int_equal(ts_loop_run(e.loop), 0);
    assert_int_equal(ran, 0);
    env_down(&e); /* the cancelled call is freed; its callback never runs */
}

static void test_unauthorized_refresh(void **state)
{
    static const struct step s401[] = {{401, NULL, "Unauthorized"}, {401, NULL, "Unauthorized"}};
    struct env e;
    struct done d;
    char path[] = "/tmp/ts-token.XXXXXX";
    int fd = mkstemp(path);

    (void)state;
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "old\n", 4), 4);
    close(fd);
    env_up(&e, s401, 1, NULL);
    e.cfg.token = NULL;
    e.cfg.token_file = path;
    d = run(&e, TS_KUBE_GET); /* 401, the file is read again, then 200 */
    assert_int_equal(d.code, 0);
    assert_string_equal(e.srv.log.ptr, "GET /api/v1/namespaces/default/configmaps/x old\n"
                                       "GET /api/v1/namespaces/default/configmaps/x old\n");
    env_down(&e);
    env_up(&e, s401, 2, NULL); /* a static token cannot be refreshed */
    d = run(&e, TS_KUBE_GET);
    assert_int_equal(d.code, TS_EUNAUTHORIZED);
    assert_int_equal(d.attempts, 1);
    env_down(&e);
    unlink(path);
}

static int64_t fake_clock(void *data)
{
    return *(int64_t *)data;
}

/* Kueue's defaults on a fake clock: 30 requests at once, then 20 per
 * second, in submission order. */
static void test_rate_limit_fake_clock(void **state)
{
    struct done d[50] = {{0}};
    struct ts_kube_stats st;
    int64_t now = 1000 * SEC;
    struct env e;

    (void)state;
    env_up(&e, NULL, 0, &(struct ts_kube_client_opts){0});
    ts_loop_set_clock(e.loop, fake_clock, NULL, &now);
    for (int i = 0; i < 50; i++) {
        struct ts_kube_req r = {
            .verb = TS_KUBE_GET, .res = &ts_kube_res_configmaps, .ns = "default", .name = "x"};

        assert_int_equal(ts_kube_submit(e.c, &r, on_done, &d[i], NULL, NULL), 0);
    }
    for (int i = 0; i < 200 && e.srv.requests < 30; i++)
        ts_loop_run_once(e.loop, 10 * MS);
    for (int i = 0; i < 20; i++)
        ts_loop_run_once(e.loop, MS);
    assert_int_equal(e.srv.requests, 30); /* the burst, and not one more */
    now += 249 * MS;
    for (int i = 0; i < 40; i++)
        ts_loop_run_once(e.loop, MS);
    assert_int_equal(e.srv.requests, 34); /* 50, 100, 150, 200 ms */
    now += 751 * MS;
    for (int i = 0; i < 100 && e.srv.requests < 50; i++)
        ts_loop_run_once(e.loop, MS);
    assert_int_equal(e.srv.requests, 50);
    for (int i = 0; i < 100 && !d[49].n; i++)
        ts_loop_run_once(e.loop, MS);
    ts_kube_client_stats(e.c, &st);
    assert_int_equal(st.throttled, 20);
    assert_int_equal(d[49].code, 0);
    assert_true(e.srv.accepts <= 30); /* the 20 later requests reuse connections */
    env_down(&e);
}

/* Runs the loop until the server has seen n requests, then 20 passes
 * more, so a request that should not start yet has had its chance to. */
static void serve_settled(struct env *e, int n)
{
    for (int i = 0; i < 200 && e->srv.requests < n; i++)
        ts_loop_run_once(e->loop, MS);
    for (int i = 0; i < 20; i++)
        ts_loop_run_once(e->loop, MS);
}

/* Throttled requests start together on the client's tick grid, not each
 * at its own token's time: a wakeup per request can cost the controller
 * more CPU than the request itself.  QPS 50, burst 1:
 * after the first request a token every 20 ms, the first four due by
 * 81 ms after a start 1 ms past the grid. */
static void test_rate_limit_tick(void **state)
{
    static const struct {
        int64_t tick;
        int at_99ms, at_100ms, at_199ms, at_200ms; /* requests on the server */
    } rows[] = {
        {100 * MS, 1, 5, 5, 6}, /* the grid: four at once at 100 ms */
        {0, 5, 5, 6, 6},        /* none: each at its token */
    };

    (void)state;
    for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
        static const int64_t at[] = {99 * MS, 100 * MS, 199 * MS, 200 * MS};
        int want[4] = {rows[r].at_99ms, rows[r].at_100ms, rows[r].at_199ms, rows[r].at_200ms};
        struct done d[6] = {{0}};
        int64_t start = 1000 * SEC + MS, now = start;
        struct env e;

        env_up(&e, NULL, 0,
               &(struct ts_kube_client_opts){.qps = 50, .burst = 1, .throttle_tick = rows[r].tick});
        ts_loop_set_clock(e.loop, fake_clock, NULL, &now);
        for (int i = 0; i < 6; i++) {
            struct ts_kube_req q = {
                .verb = TS_KUBE_GET, .res = &ts_kube_res_configmaps, .ns = "default", .name = "x"};

            assert_int_equal(ts_kube_submit(e.c, &q, on_done, &d[i], NULL, NULL), 0);
        }
        serve_settled(&e, 1);
        assert_int_equal(e.srv.requests, 1);
        for (int k = 0; k < 4; k++) {
            now = start - MS + at[k];
            serve_settled(&e, want[k]);
            assert_int_equal(e.srv.requests, want[k]);
        }
        for (int i = 0; i < 200 && !d[5].n; i++)
            ts_loop_run_once(e.loop, MS);
        assert_int_equal(d[5].code, 0);
        env_down(&e);
    }
}

/* Each resource's writes, and its lists and watches, wait in lanes of
 * their own (Kueue's per-kind REST clients): throttled ConfigMap GETs
 * hold back neither an Event nor a ConfigMap list. */
static void test_rate_limit_lanes(void **state)
{
    struct done d[5] = {{0}};
    int64_t now = 1000 * SEC;
    struct env e;
    cJSON *ev = cJSON_Parse("{\"metadata\":{\"name\":\"e\"}}");
    const struct ts_kube_req reqs[5] = {
        {.verb = TS_KUBE_GET, .res = &ts_kube_res_configmaps, .ns = "default", .name = "x"},
        {.verb = TS_KUBE_GET, .res = &ts_kube_res_configmaps, .ns = "default", .name = "y"},
        {.verb = TS_KUBE_GET, .res = &ts_kube_res_configmaps, .ns = "default", .name = "z"},
        {.verb = TS_KUBE_CREATE, .res = &ts_kube_res_events, .ns = "default", .body = ev},
        {.verb = TS_KUBE_LIST, .res = &ts_kube_res_configmaps, .ns = "default"},
    };

    (void)state;
    env_up(&e, NULL, 0, &(struct ts_kube_client_opts){.qps = 1, .burst = 1});
    ts_loop_set_clock(e.loop, fake_clock, NULL, &now);
    assert_true(ts_kube_client_spare(e.c, &ts_kube_res_configmaps, 0.5));
    for (int i = 0; i < 5; i++)
        assert_int_equal(ts_kube_submit(e.c, &reqs[i], on_done, &d[i], NULL, NULL), 0);
    serve_settled(&e, 3);
    assert_int_equal(e.srv.requests, 3);
    assert_non_null(strstr(e.srv.log.ptr, "GET /api/v1/namespaces/default/configmaps/x "));
    assert_non_null(strstr(e.srv.log.ptr, "POST /api/v1/namespaces/default/events "));
    assert_non_null(strstr(e.srv.log.ptr, "GET /api/v1/namespaces/default/configmaps "));
    assert_false(ts_kube_client_spare(e.c, &ts_kube_res_configmaps, 0.5));
    assert_false(ts_kube_client_spare(e.c, &ts_kube_res_events, 0)); /* its only token went */
    assert_true(ts_kube_client_spare(e.c, &ts_kube_res_pods, 1));
    now += SEC;
    for (int i = 0; i < 200 && e.srv.requests < 4; i++)
        ts_loop_run_once(e.loop, MS);
    assert_int_equal(e.srv.requests, 4);
    assert_non_null(strstr(e.srv.log.ptr, "configmaps/y "));
    assert_null(strstr(e.srv.log.ptr, "configmaps/z "));
    now += SEC;
    for (int i = 0; i < 200 && !d[2].n; i++)
        ts_loop_run_once(e.loop, MS);
    assert_int_equal(e.srv.requests, 5);
    cJSON_Delete(ev);
    env_down(&e);
}

/* A batch is ready when the tokens a window of the lane's QPS grants
 * are at hand: at least one, at most the burst, and no call waiting. */
static void test_batch_ready(void **state)
{
    struct done d[5] = {{0}};
    int64_t now = 1000 * SEC;
    struct env e;
    const struct ts_kube_req r = {
        .verb = TS_KUBE_GET, .res = &ts_kube_res_configmaps, .ns = "default", .name = "x"};
    static const struct {
        int64_t advance, window;
        int ready;
    } steps[] = {
        {0, 100 * MS, 0},        /* the burst went: no token */
        {0, 0, 0},               /* at least one, whatever the window */
        {100 * MS, 100 * MS, 1}, /* one token, one wanted */
        {0, 300 * MS, 0},        /* three wanted */
        {0, 0, 1},
        {200 * MS, 300 * MS, 1},
        {0, 1000 * MS, 0}, /* ten wanted, capped to the burst of four */
        {100 * MS, 1000 * MS, 1},
        {0, 100 * SEC, 1},
    };

    (void)state;
    env_up(&e, NULL, 0, &(struct ts_kube_client_opts){.qps = 10, .burst = 4});
    ts_loop_set_clock(e.loop, fake_clock, NULL, &now);
    assert_true(ts_kube_client_batch_ready(e.c, &ts_kube_res_configmaps, 1000 * MS));
    for (int i = 0; i < 4; i++)
        assert_int_equal(ts_kube_submit(e.c, &r, on_done, &d[i], NULL, NULL), 0);
    serve_settled(&e, 4);
    assert_int_equal(e.srv.requests, 4);
    for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
        now += steps[i].advance;
        ts_loop_update_time(e.loop);
        if (ts_kube_client_batch_ready(e.c, &ts_kube_res_configmaps, steps[i].window) !=
            steps[i].ready)
            fail_msg("step %zu: want %d", i, steps[i].ready);
    }
    /* a call waiting for its token: not ready, whatever is at hand */
    for (int i = 0; i < 5; i++)
        assert_int_equal(ts_kube_submit(e.c, &r, on_done, &d[i % 4], NULL, NULL), 0);
    assert_false(ts_kube_client_batch_ready(e.c, &ts_kube_res_configmaps, 0));
    assert_true(ts_kube_client_batch_ready(e.c, &ts_kube_res_events, 100 * MS)); /* other lane */
    now += SEC;
    serve_settled(&e, 9);
    env_down(&e);
}

static int refuse(void *data)
{
    (void)data;
    return TS_ECONFLICT;
}

/* A call whose check says no is not sent, fails with the check's code,
 * and gives its token back to its lane. */
static void test_check_before_send(void **state)
{
    struct done d = {0};
    struct ts_kube_stats st;
    int64_t now = 1000 * SEC;
    struct env e;
    struct ts_kube_req r = {.verb = TS_KUBE_GET,
                            .res = &ts_kube_res_configmaps,
                            .ns = "default",
                            .name = "x",
                            .check = refuse};

    (void)state;
    env_up(&e, NULL, 0, &(struct ts_kube_client_opts){.qps = 1, .burst = 1});
    ts_loop_set_clock(e.loop, fake_clock, NULL, &now);
    assert_int_equal(ts_kube_submit(e.c, &r, on_done, &d, NULL, NULL), 0);
    assert_false(ts_kube_client_spare(e.c, &ts_kube_res_configmaps, 1)); /* reserved */
    for (int i = 0; i < 200 && !d.n; i++)
        ts_loop_run_once(e.loop, MS);
    assert_int_equal(d.n, 1);
    assert_int_equal(d.code, TS_ECONFLICT);
    assert_int_equal(d.attempts, 0);
    assert_int_equal(e.srv.requests, 0);
    assert_true(ts_kube_client_spare(e.c, &ts_kube_res_configmaps, 1)); /* given back */
    ts_kube_client_stats(e.c, &st);
    assert_int_equal(st.unsent, 1);
    r.check = NULL; /* the next one goes out at once on the returned token */
    memset(&d, 0, sizeof(d));
    assert_int_equal(ts_kube_submit(e.c, &r, on_done, &d, NULL, NULL), 0);
    for (int i = 0; i < 200 && !d.n; i++)
        ts_loop_run_once(e.loop, MS);
    assert_int_equal(d.code, 0);
    assert_int_equal(e.srv.requests, 1);
    env_down(&e);
}

static int gate_open;

static int gate(void *data)
{
    (void)data;
    return gate_open;
}

static void test_write_gate(void **state)
{
    struct env e;
    struct done d;

    (void)state;
    env_up(&e, NULL, 0, NULL);
    ts_kube_client_set_gate(e.c, gate, NULL);
    gate_open = 0;
    d = run(&e, TS_KUBE_PATCH);
    assert_int_equal(d.code, TS_EFORBIDDEN);
    d = run(&e, TS_KUBE_GET); /* reads are never gated */
    assert_int_equal(d.code, 0);
    gate_open = 1;
    d = run(&e, TS_KUBE_CREATE);
    assert_int_equal(d.code, 0);
    assert_int_equal(e.srv.requests, 2);
    env_down(&e);
}

static void test_timeout_and_user_agent(void **state)
{
    static const struct step slow[] = {{0, NULL, NULL}};
    struct ts_kube_req r = {.verb = TS_KUBE_GET,
                            .res = &ts_kube_res_configmaps,
                            .ns = "default",
                            .name = "x",
                            .timeout_ns = 200 * MS,
                            .flags = TS_KUBE_REQ_NO_RETRY};
    struct done d = {0};
    struct env e;

    (void)state;
    env_up(&e, slow, 1, NULL);
    ts_loop_unwatch(e.loop, e.srv.lfd); /* accepted by the kernel, never served */
    assert_int_equal(ts_kube_submit(e.c, &r, on_done, &d, NULL, NULL), 0);
    while (!d.n)
        ts_loop_run_once(e.loop, -1);
    assert_int_equal(d.code, TS_ETIMEDOUT);
    env_down(&e);
    assert_string_equal(TS_KUBE_USER_AGENT, "turnstile/" TS_VERSION);
}

/* req.release: runs with the data exactly when the callback never will
 * (cancelled, or the client freed with the call unanswered), so a caller
 * can free its data; not after the callback, not when submit fails. */
struct owned {
    int answered, released;
};

static void owned_done(struct ts_kube_client *c, struct ts_kube_result *res, void *data)
{
    (void)c;
    (void)res;
    ((struct owned *)data)->answered++;
}

static void owned_release(void *data)
{
    ((struct owned *)data)->released++;
}

static void test_release(void **state)
{
    struct ts_kube_req r = {.verb = TS_KUBE_GET,
                            .res = &ts_kube_res_configmaps,
                            .ns = "default",
                            .name = "x",
                            .release = owned_release};
    struct owned answered = {0}, cancelled = {0}, unanswered = {0}, refused = {0};
    struct ts_kube_req bad = r;
    struct ts_kube_call *call = NULL;
    struct env e;

    (void)state;
    env_up(&e, NULL, 0, NULL);
    assert_int_equal(ts_kube_submit(e.c, &r, owned_done, &answered, NULL, NULL), 0);
    while (!answered.answered)
        ts_loop_run_once(e.loop, -1);
    assert_int_equal(ts_kube_submit(e.c, &r, owned_done, &cancelled, &call, NULL), 0);
    ts_kube_cancel(call);
    bad.name = NULL; /* a GET needs a name */
    assert_int_equal(ts_kube_submit(e.c, &bad, owned_done, &refused, NULL, NULL), TS_EINVAL);
    env_down(&e);
    env_up(&e, NULL, 0, NULL);
    ts_loop_unwatch(e.loop, e.srv.lfd); /* accepted by the kernel, never served */
    assert_int_equal(ts_kube_submit(e.c, &r, owned_done, &unanswered, NULL, NULL), 0);
    for (int i = 0; i < 5; i++) /* sent, waiting for the reply */
        ts_loop_run_once(e.loop, 10 * MS);
    env_down(&e);
    assert_int_equal(answered.answered, 1);
    assert_int_equal(answered.released, 0);
    assert_int_equal(cancelled.answered + refused.answered + unanswered.answered, 0);
    assert_int_equal(cancelled.released, 1);
    assert_int_equal(refused.released, 0);
    assert_int_equal(unanswered.released, 1);
}

static void test_request_validation(void **state)
{
    struct env e;
    struct ts_err err = {0};
    struct done d = {0};
    cJSON *body = cJSON_CreateObject();
    static const struct {
        struct ts_kube_req r;
        const char *msg;
    } cases[] = {
        {{.verb = TS_KUBE_GET, .res = &ts_kube_res_configmaps, .ns = "default"}, "name required"},
        {{.verb = TS_KUBE_GET, .res = &ts_kube_res_configmaps, .name = "x"}, "namespace required"},
        {{.verb = TS_KUBE_GET, .res = &ts_kube_res_configmaps, .ns = "a/b", .name = "x"},
         "invalid namespace"},
        {{.verb = TS_KUBE_GET, .res = &ts_kube_res_configmaps, .ns = "a", .name = ".."},
         "invalid name"},
        {{.verb = TS_KUBE_CREATE, .res = &ts_kube_res_configmaps, .ns = "a"}, "body required"},
        {{.verb = TS_KUBE_LIST}, "no resource"},
        /* a delete without a name is refused, never widened to all */
        {{.verb = TS_KUBE_DELETE, .res = &ts_kube_res_workloads, .ns = "a"}, "name required"},
        {{.verb = TS_KUBE_DELETE_COLLECTION, .res = &ts_kube_res_workloads, .ns = "a", .name = "x"},
         "a collection has no name"},
    };

    (void)state;
    env_up(&e, NULL, 0, NULL);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        if (ts_kube_submit(e.c, &cases[i].r, on_done, &d, NULL, &err) != TS_EINVAL ||
            !strstr(err.msg, cases[i].msg))
            fail_msg("case %zu: '%s'", i, err.msg);
    }
    {
        struct ts_kube_req r = {.verb = TS_KUBE_PATCH,
                                .res = &ts_kube_res_configmaps,
                                .ns = "a",
                                .name = "x",
                                .body = body,
                                .patch = TS_KUBE_PATCH_APPLY};

        assert_int_equal(ts_kube_submit(e.c, &r, on_done, &d, NULL, &err), TS_EINVAL);
        assert_non_null(strstr(err.msg, "field manager"));
    }
    assert_int_equal(d.n, 0);
    cJSON_Delete(body);
    env_down(&e);
}

static void test_paths(void **state)
{
    static const struct {
        struct ts_kube_req r;
        const char *want;
    } cases[] = {
        {{.verb = TS_KUBE_LIST, .res = &ts_kube_res_workloads},
         "/apis/kueue.x-k8s.io/v1beta2/workloads"},
        {{.verb = TS_KUBE_LIST, .res = &ts_kube_res_workloads, .ns = "team"},
         "/apis/kueue.x-k8s.io/v1beta2/namespaces/team/workloads"},
        {{.verb = TS_KUBE_PATCH,
          .res = &ts_kube_res_workloads,
          .ns = "t",
          .name = "w",
          .subresource = "status"},
         "/apis/kueue.x-k8s.io/v1beta2/namespaces/t/workloads/w/status"},
        {{.verb = TS_KUBE_GET, .res = &ts_kube_res_clusterqueues, .name = "cq"},
         "/apis/kueue.x-k8s.io/v1beta2/clusterqueues/cq"},
        {{.verb = TS_KUBE_GET, .res = &ts_kube_res_namespaces, .name = "default"},
         "/api/v1/namespaces/default"},
        {{.verb = TS_KUBE_CREATE, .res = &ts_kube_res_pods, .ns = "d"},
         "/api/v1/namespaces/d/pods"},
        {{.verb = TS_KUBE_DELETE_COLLECTION,
          .res = &ts_kube_res_workloads,
          .ns = "d",
          .label_selector = "a=true"},
         "/apis/kueue.x-k8s.io/v1beta2/namespaces/d/workloads"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct ts_buf b = TS_BUF_INIT;

        assert_int_equal(ts_kube_path(&cases[i].r, &b, NULL), 0);
        assert_string_equal(b.ptr, cases[i].want);
        ts_buf_release(&b);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_retry_policy),
        cmocka_unit_test(test_retry_after_and_limit),
        cmocka_unit_test(test_connection_refused),
        cmocka_unit_test(test_sync_call_ends_with_the_loop),
        cmocka_unit_test(test_unauthorized_refresh),
        cmocka_unit_test(test_rate_limit_fake_clock),
        cmocka_unit_test(test_write_gate),
        cmocka_unit_test(test_rate_limit_tick),
        cmocka_unit_test(test_rate_limit_lanes),
        cmocka_unit_test(test_batch_ready),
        cmocka_unit_test(test_check_before_send),
        cmocka_unit_test(test_timeout_and_user_agent),
        cmocka_unit_test(test_release),
        cmocka_unit_test(test_request_validation),
        cmocka_unit_test(test_paths),
    };

    ts_alloc_init();
    return cmocka_run_group_tests_name("kube_retry", tests, NULL, NULL);
}
