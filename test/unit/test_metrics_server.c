/* Tests for pkg/metrics/server: the HTTP endpoint on a loopback port with
 * libcurl (paths, status codes, content type, body), the ready callback,
 * renders racing updates, and a client that stops reading. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "metrics/server.h"
#include "util/alloc.h"

#define V(...) ((const char *const[]){__VA_ARGS__})

struct fixture {
    struct ts_metrics_registry *reg;
    struct ts_metrics_family *hits;
    struct ts_metrics_server *srv;
    atomic_int ready;
};

struct reply {
    long status;
    char type[128];
    struct ts_buf body;
};

static int ready_cb(void *ud, struct ts_buf *why)
{
    struct fixture *f = ud;

    if (atomic_load(&f->ready))
        return 1;
    ts_buf_adds(why, "informers not synced");
    return 0;
}

static int setup(void **state)
{
    struct fixture *f = ts_xcalloc(1, sizeof(*f));
    struct ts_metrics_desc d = {TS_METRICS_COUNTER, "hits_total", "Hits.", V("path"), 1, NULL, 0};
    struct ts_metrics_server_options o;
    struct ts_err err = {0};

    f->reg = ts_metrics_registry_new();
    assert_int_equal(ts_metrics_family_add(f->reg, &d, &f->hits, &err), 0);
    atomic_store(&f->ready, 1);
    ts_metrics_server_options_init(&o);
    o.host = "127.0.0.1";
    o.port = 0;
    o.ready = ready_cb;
    o.ready_ud = f;
    if (ts_metrics_server_start(f->reg, &o, &f->srv, &err))
        fail_msg("%s", err.msg);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;

    ts_metrics_server_free(f->srv);
    ts_metrics_registry_free(f->reg);
    free(f);
    return 0;
}

static size_t sink(char *p, size_t size, size_t n, void *ud)
{
    ts_buf_add(ud, p, size * n);
    return size * n;
}

/* One request on a fresh connection; status is -curl code on failure. */
static void request(int port, const char *method, const char *path, struct reply *r)
{
    CURL *c = curl_easy_init();
    char url[128], *type = NULL;
    CURLcode rc;

    memset(r, 0, sizeof(*r));
    ts_buf_init(&r->body, 0);
    snprintf(url, sizeof(url), "http://127.0.0.1:%d%s", port, path);
    curl_easy_setopt(c, CURLOPT_URL, url);
    if (strcmp(method, "HEAD") == 0)
        curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
    else
        curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, sink);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &r->body);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 10L);
    rc = curl_easy_perform(c);
    if (rc == CURLE_OK) {
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
        curl_easy_getinfo(c, CURLINFO_CONTENT_TYPE, &type);
        snprintf(r->type, sizeof(r->type), "%s", type ? type : "");
    } else {
        r->status = -(long)rc;
    }
    curl_easy_cleanup(c);
}

static void test_paths(void **state)
{
    static const struct {
        const char *method, *path;
        long status;
        const char *type, *body;
    } cases[] = {
        {"GET", "/metrics", 200, "text/plain; version=0.0.4; charset=utf-8",
         "# HELP hits_total Hits.\n# TYPE hits_total counter\nhits_total{path=\"/a\"} 3\n"},
        {"GET", "/metrics?x=1", 200, "text/plain; version=0.0.4; charset=utf-8", NULL},
        {"HEAD", "/metrics", 200, "text/plain; version=0.0.4; charset=utf-8", ""},
        {"GET", "/healthz", 200, "text/plain; charset=utf-8", "ok"},
        {"GET", "/readyz", 200, "text/plain; charset=utf-8", "ok"},
        {"GET", "/nope", 404, "text/plain; charset=utf-8", "404 page not found\n"},
        {"GET", "/metrics/", 404, NULL, NULL},
        {"POST", "/metrics", 405, "text/plain; charset=utf-8", "method not allowed\n"},
        {"DELETE", "/healthz", 405, NULL, NULL},
    };
    struct fixture *f = *state;
    int port = ts_metrics_server_port(f->srv);

    assert_true(port > 0);
    ts_metrics_counter_add(f->hits, V("/a"), 3);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct reply r;

        request(port, cases[i].method, cases[i].path, &r);
        if (r.status != cases[i].status)
            fail_msg("%s %s: status %ld, want %ld", cases[i].method, cases[i].path, r.status,
                     cases[i].status);
        if (cases[i].type && strcmp(r.type, cases[i].type) != 0)
            fail_msg("%s %s: type '%s'", cases[i].method, cases[i].path, r.type);
        if (cases[i].body && strcmp(r.body.ptr, cases[i].body) != 0)
            fail_msg("%s %s: body '%s'", cases[i].method, cases[i].path, r.body.ptr);
        ts_buf_release(&r.body);
    }
}

static void test_ready_toggles(void **state)
{
    struct fixture *f = *state;
    int port = ts_metrics_server_port(f->srv);
    struct reply r;

    for (int round = 0; round < 2; round++) {
        atomic_store(&f->ready, 0);
        request(port, "GET", "/readyz", &r);
        assert_int_equal(r.status, 503);
        assert_string_equal(r.body.ptr, "informers not synced");
        ts_buf_release(&r.body);
        request(port, "GET", "/healthz", &r); /* liveness does not depend on readiness */
        assert_int_equal(r.status, 200);
        ts_buf_release(&r.body);
        atomic_store(&f->ready, 1);
        request(port, "GET", "/readyz", &r);
        assert_int_equal(r.status, 200);
        assert_string_equal(r.body.ptr, "ok");
        ts_buf_release(&r.body);
    }
}

struct writer {
    struct fixture *f;
    int n;
};

static void *write_loop(void *arg)
{
    struct writer *w = arg;

    for (int i = 0; i < w->n; i++) {
        ts_metrics_counter_add(w->f->hits, V("/w"), 1);
        if (i % 100 == 0) { /* new series appear while renders run */
            char p[32];

            snprintf(p, sizeof(p), "/s%d", i / 100);
            ts_metrics_counter_add(w->f->hits, V(p), 1);
        }
    }
    return NULL;
}

/* The /w counter in a /metrics body, or -1. */
static double counter_in(const char *body)
{
    const char *p = strstr(body, "hits_total{path=\"/w\"} ");

    return p ? strtod(p + strlen("hits_total{path=\"/w\"} "), NULL) : -1;
}

/* Scrapes while another thread updates: every body is complete (ends with
 * a newline, starts with HELP) and the counter never goes back. */
static void test_concurrent_renders(void **state)
{
    struct fixture *f = *state;
    struct writer w = {f, 200000};
    int port = ts_metrics_server_port(f->srv), scrapes = 0;
    double last = 0;
    pthread_t t;
    struct reply r;

    assert_int_equal(pthread_create(&t, NULL, write_loop, &w), 0);
    for (; scrapes < 40; scrapes++) {
        double v;

        request(port, "GET", "/metrics", &r);
        assert_int_equal(r.status, 200);
        assert_true(r.body.len == 0 || (strncmp(r.body.ptr, "# HELP hits_total Hits.\n", 24) == 0 &&
                                        r.body.ptr[r.body.len - 1] == '\n'));
        v = counter_in(r.body.ptr);
        if (v >= 0) {
            assert_true(v >= last);
            last = v;
        }
        ts_buf_release(&r.body);
    }
    pthread_join(t, NULL);
    request(port, "GET", "/metrics", &r);
    assert_true(counter_in(r.body.ptr) == 200000);
    assert_non_null(strstr(r.body.ptr, "hits_total{path=\"/s1999\"} 1\n"));
    ts_buf_release(&r.body);
}

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Clients that send half a request, or ask for a large /metrics and never
 * read it, hold no lock: updates stay fast and other scrapes are served. */
static void test_stalled_clients(void **state)
{
    struct fixture *f = *state;
    int port = ts_metrics_server_port(f->srv);
    struct sockaddr_in sa = {0};
    int half = socket(AF_INET, SOCK_STREAM, 0), stuck = socket(AF_INET, SOCK_STREAM, 0);
    const char *get = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
    double t0, render_s;
    struct reply r;
    int small = 4096;

    for (int i = 0; i < 100000; i++) { /* ~7.5 MB: more than the socket buffers hold */
        char p[64];

        snprintf(p, sizeof(p), "/padding/%08d/................................", i);
        ts_metrics_counter_add(f->hits, V(p), i);
    }
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(connect(half, (struct sockaddr *)&sa, sizeof(sa)), 0);
    setsockopt(stuck, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
    assert_int_equal(connect(stuck, (struct sockaddr *)&sa, sizeof(sa)), 0);
    assert_int_equal(write(half, "GET /metr", 9), 9);
    assert_int_equal(write(stuck, get, strlen(get)), (long)strlen(get));
    ts_buf_init(&r.body, 0);
    t0 = now_s(); /* how long one render holds the lock here (valgrind is slow) */
    assert_int_equal(ts_metrics_render(f->reg, &r.body), 0);
    render_s = now_s() - t0;
    ts_buf_release(&r.body);
    usleep(200 * 1000 + (useconds_t)(render_s * 2e6)); /* the server renders, then blocks */

    t0 = now_s(); /* updates wait for a render at most, never for the stuck client */
    for (int i = 0; i < 1000; i++)
        ts_metrics_counter_add(f->hits, V("/w"), 1);
    if (now_s() - t0 > 2 * render_s + 0.5)
        fail_msg("1000 updates took %.3fs (a render takes %.3fs)", now_s() - t0, render_s);
    request(port, "GET", "/healthz", &r);
    assert_int_equal(r.status, 200);
    ts_buf_release(&r.body);
    request(port, "GET", "/metrics", &r);
    assert_int_equal(r.status, 200);
    assert_true(counter_in(r.body.ptr) == 1000);
    if (r.body.len < 7 * 1024 * 1024)
        fail_msg("body %zu bytes", r.body.len);
    ts_buf_release(&r.body);
    assert_true(now_s() - t0 < 4 * render_s + 5);
    close(half);
    close(stuck);
}

static void test_port_in_use(void **state)
{
    struct fixture *f = *state;
    struct ts_metrics_server_options o;
    struct ts_metrics_server *s = NULL;
    struct ts_err err = {0};

    ts_metrics_server_options_init(&o);
    assert_int_equal(o.port, 8443);
    o.host = "127.0.0.1";
    o.port = ts_metrics_server_port(f->srv);
    assert_int_equal(ts_metrics_server_start(f->reg, &o, &s, &err), TS_EIO);
    assert_null(s);
    assert_non_null(strstr(err.msg, "127.0.0.1"));
    ts_metrics_server_free(NULL);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_paths, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ready_toggles, setup, teardown),
        cmocka_unit_test_setup_teardown(test_concurrent_renders, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stalled_clients, setup, teardown),
        cmocka_unit_test_setup_teardown(test_port_in_use, setup, teardown),
    };
    int rc;

    ts_alloc_init();
    curl_global_init(CURL_GLOBAL_DEFAULT);
    if (argc > 1)
        cmocka_set_test_filter(argv[1]);
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    curl_global_cleanup();
    return rc;
}
