/* turnstile-apiserver-bench - a bounded-count loopback load generator for
 * turnstile-apiserver: starts the server in-process on 127.0.0.1:0 (plain
 * HTTP, no access log), sends --patches merge PATCHes to custom resources
 * from --clients keep-alive connections, while --watchers watch streams
 * receive the events.  Prints PATCH rate, watch-delivery rate and p50/p99
 * latencies (PATCH round trip; PATCH sent -> event received).
 *
 * --data-dir DIR runs the server with its write-ahead log there (every
 * PATCH fdatasync'ed before its reply).
 *
 * usage: turnstile-apiserver-bench [--patches N] [--clients C] [--watchers W] [--data-dir DIR]
 */
#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "apiserver/apiserver.h"
#include "json/json.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/parse.h"

#define MAX_THREADS 16
#define CRD                                                                                        \
    "{\"apiVersion\":\"apiextensions.k8s.io/v1\",\"kind\":\"CustomResourceDefinition\","           \
    "\"metadata\":{\"name\":\"benches.bench.io\"},\"spec\":{\"group\":\"bench.io\",\"names\":{"    \
    "\"kind\":\"Bench\",\"plural\":\"benches\"},\"scope\":\"Namespaced\",\"versions\":[{\"name\":" \
    "\"v1\",\"served\":true,\"storage\":true,\"subresources\":{\"status\":{}},\"schema\":{"        \
    "\"openAPIV3Schema\":{\"type\":\"object\",\"properties\":{\"spec\":{\"type\":\"object\","      \
    "\"properties\":{\"n\":{\"type\":\"integer\"},\"queue\":{\"type\":\"string\"}}},\"status\":{"  \
    "\"type\":\"object\",\"x-kubernetes-preserve-unknown-fields\":true}}}}}]}}"
#define COLL "/apis/bench.io/v1/namespaces/default/benches"

struct cfg {
    const char *url;
    long patches, clients, watchers;
};

struct client {
    const struct cfg *cfg;
    int id;
    long n;
    int64_t *lat; /* ns per request */
    int errors;
};

struct watcher {
    const struct cfg *cfg;
    char rv[32];
    struct ts_buf line;
    long events, want;
    int64_t *lat;
    volatile int stop;
};

static int64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static size_t sink(char *p, size_t sz, size_t n, void *ud)
{
    (void)p;
    (void)ud;
    return sz * n;
}

static long request(CURL *c, const char *url, const char *method, const char *ctype,
                    const char *body)
{
    struct curl_slist *h = NULL;
    char hdr[128];
    long code = 0;

    snprintf(hdr, sizeof(hdr), "Content-Type: %s", ctype);
    h = curl_slist_append(h, hdr);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, sink);
    if (curl_easy_perform(c) == CURLE_OK)
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, NULL);
    curl_slist_free_all(h);
    return code;
}

static void *client_run(void *arg)
{
    struct client *cl = arg;
    CURL *c = curl_easy_init();
    char url[256], body[256];

    snprintf(url, sizeof(url), "%s%s/obj-%d", cl->cfg->url, COLL, cl->id);
    for (long i = 0; i < cl->n; i++) {
        int64_t t0 = now_ns();

        snprintf(body, sizeof(body),
                 "{\"metadata\":{\"annotations\":{\"t\":\"%lld\"}},"
                 "\"spec\":{\"n\":%ld}}",
                 (long long)t0, i);
        if (request(c, url, "PATCH", "application/merge-patch+json", body) != 200)
            cl->errors++;
        cl->lat[i] = now_ns() - t0;
    }
    curl_easy_cleanup(c);
    return NULL;
}

static void on_event(struct watcher *w, const char *line)
{
    cJSON *ev = NULL;
    const char *t;
    int64_t sent;

    if (ts_json_parse(line, strlen(line), &ev, NULL))
        return;
    t = ts_json_get_string(ev, "object.metadata.annotations.t");
    if (t && !ts_parse_i64_c(t, &sent) && w->events < w->want)
        w->lat[w->events++] = now_ns() - sent;
    cJSON_Delete(ev);
}

static size_t watch_data(char *p, size_t sz, size_t n, void *ud)
{
    struct watcher *w = ud;

    for (size_t i = 0; i < sz * n; i++) {
        if (p[i] != '\n') {
            ts_buf_addc(&w->line, p[i]);
            continue;
        }
        if (w->line.len)
            on_event(w, w->line.ptr);
        ts_buf_reset(&w->line);
    }
    return sz * n;
}

static int watch_progress(void *ud, curl_off_t a, curl_off_t b, curl_off_t c, curl_off_t d)
{
    struct watcher *w = ud;

    (void)a, (void)b, (void)c, (void)d;
    return w->stop || w->events >= w->want;
}

static void *watch_run(void *arg)
{
    struct watcher *w = arg;
    CURL *c = curl_easy_init();
    char url[256];

    snprintf(url, sizeof(url), "%s%s?watch=true&resourceVersion=%s&timeoutSeconds=120", w->cfg->url,
             COLL, w->rv);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, watch_data);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, w);
    curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, watch_progress);
    curl_easy_setopt(c, CURLOPT_XFERINFODATA, w);
    curl_easy_perform(c);
    curl_easy_cleanup(c);
    return NULL;
}

static int cmp64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return (x > y) - (x < y);
}

static void report(const char *what, int64_t *lat, long n, double secs)
{
    qsort(lat, (size_t)n, sizeof(*lat), cmp64);
    printf("%-16s %8ld in %6.2f s = %9.0f/s   p50 %7.1f us   p99 %7.1f us\n", what, n, secs,
           n / secs, n ? lat[n / 2] / 1e3 : 0.0, n ? lat[n * 99 / 100] / 1e3 : 0.0);
}

static void setup(const struct cfg *cfg, char rv[32])
{
    CURL *c = curl_easy_init();
    char url[256], body[256];
    struct ts_buf out = TS_BUF_INIT;

    snprintf(url, sizeof(url), "%s/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
             cfg->url);
    request(c, url, "POST", "application/json", CRD);
    snprintf(url, sizeof(url), "%s%s", cfg->url, COLL);
    for (long i = 0; i < cfg->clients; i++) {
        snprintf(body, sizeof(body),
                 "{\"apiVersion\":\"bench.io/v1\",\"kind\":\"Bench\","
                 "\"metadata\":{\"name\":\"obj-%ld\"},\"spec\":{\"queue\":\"q\"}}",
                 i);
        request(c, url, "POST", "application/json", body);
    }
    /* the current resourceVersion, from a list */
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, "GET");
    curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, NULL);
    {
        FILE *f = open_memstream(&out.ptr, &out.len);
        curl_easy_setopt(c, CURLOPT_WRITEDATA, f);
        curl_easy_perform(c);
        fclose(f);
        cJSON *l = NULL;
        ts_json_parse(out.ptr, out.len, &l, NULL);
        snprintf(rv, 32, "%s", ts_json_get_string(l, "metadata.resourceVersion"));
        cJSON_Delete(l);
        free(out.ptr);
    }
    curl_easy_cleanup(c);
}

static int parse_args(int argc, char **argv, struct cfg *cfg, const char **data_dir)
{
    for (int i = 1; i + 1 < argc; i += 2) {
        int64_t v;

        if (!strcmp(argv[i], "--data-dir")) {
            *data_dir = argv[i + 1];
            continue;
        }
        if (ts_parse_i64_c(argv[i + 1], &v) || v < 0)
            return -1;
        if (!strcmp(argv[i], "--patches"))
            cfg->patches = v;
        else if (!strcmp(argv[i], "--clients") && v > 0 && v <= MAX_THREADS)
            cfg->clients = v;
        else if (!strcmp(argv[i], "--watchers") && v <= MAX_THREADS)
            cfg->watchers = v;
        else
            return -1;
    }
    return argc % 2 == 1 ? 0 : -1;
}

static void start_watchers(const struct cfg *cfg, const char *rv, struct watcher *w, pthread_t *wt)
{
    for (long i = 0; i < cfg->watchers; i++) {
        memset(&w[i], 0, sizeof(w[i]));
        w[i].cfg = cfg;
        snprintf(w[i].rv, sizeof(w[i].rv), "%s", rv);
        ts_buf_init(&w[i].line, 0);
        w[i].want = cfg->patches;
        w[i].lat = ts_xcalloc((size_t)cfg->patches + 1, sizeof(int64_t));
        pthread_create(&wt[i], NULL, watch_run, &w[i]);
    }
}

static void start_clients(const struct cfg *cfg, struct client *cl, pthread_t *ct)
{
    for (long i = 0; i < cfg->clients; i++) {
        memset(&cl[i], 0, sizeof(cl[i]));
        cl[i].cfg = cfg;
        cl[i].id = (int)i;
        cl[i].n = cfg->patches / cfg->clients + (i < cfg->patches % cfg->clients);
        cl[i].lat = ts_xcalloc((size_t)cl[i].n + 1, sizeof(int64_t));
        pthread_create(&ct[i], NULL, client_run, &cl[i]);
    }
}

/* Prints the PATCH figures; returns the number of failed requests. */
static long report_clients(const struct cfg *cfg, struct client *cl, double secs)
{
    int64_t *all = ts_xcalloc((size_t)cfg->patches + 1, sizeof(int64_t));
    long total = 0, errors = 0;

    for (long i = 0; i < cfg->clients; i++) {
        memcpy(all + total, cl[i].lat, (size_t)cl[i].n * sizeof(int64_t));
        total += cl[i].n;
        errors += cl[i].errors;
        free(cl[i].lat);
    }
    printf("turnstile-apiserver-bench: %ld patches, %ld clients, %ld watchers, %ld errors\n",
           cfg->patches, cfg->clients, cfg->watchers, errors);
    report("PATCH", all, total, secs);
    free(all);
    return errors;
}

/* Prints the delivery figures; returns the number of events received. */
static long report_watchers(const struct cfg *cfg, struct watcher *w, double secs)
{
    int64_t *all = ts_xcalloc((size_t)(cfg->patches * cfg->watchers) + 1, sizeof(int64_t));
    long got = 0;

    for (long i = 0; i < cfg->watchers; i++) {
        memcpy(all + got, w[i].lat, (size_t)w[i].events * sizeof(int64_t));
        got += w[i].events;
        free(w[i].lat);
        ts_buf_release(&w[i].line);
    }
    if (cfg->watchers)
        report("watch delivery", all, got, secs);
    free(all);
    return got;
}

int main(int argc, char **argv)
{
    struct cfg cfg = {NULL, 20000, 1, 1};
    struct ts_apiserver_opts o = {.listen = "127.0.0.1:0", .insecure_http = 1};
    struct client cl[MAX_THREADS];
    struct watcher w[MAX_THREADS];
    pthread_t ct[MAX_THREADS], wt[MAX_THREADS];
    struct timespec pause = {0, 200000000};
    struct ts_apiserver *s;
    char rv[32];
    int64_t t0, t1, t2;
    long errors, got;

    ts_alloc_init();
    if (parse_args(argc, argv, &cfg, &o.data_dir)) {
        fprintf(stderr,
                "usage: %s [--patches N] [--clients C<=16] [--watchers W<=16] [--data-dir DIR]\n",
                argv[0]);
        return 2;
    }
    curl_global_init(CURL_GLOBAL_DEFAULT);
    s = ts_apiserver_new(&o);
    if (ts_apiserver_start(s, NULL)) {
        fprintf(stderr, "cannot start the server\n");
        return 1;
    }
    cfg.url = ts_apiserver_url(s);
    setup(&cfg, rv);
    start_watchers(&cfg, rv, w, wt);
    nanosleep(&pause, NULL); /* let the watches connect */
    t0 = now_ns();
    start_clients(&cfg, cl, ct);
    for (long i = 0; i < cfg.clients; i++)
        pthread_join(ct[i], NULL);
    t1 = now_ns();
    for (long i = 0; i < cfg.watchers; i++)
        pthread_join(wt[i], NULL);
    t2 = now_ns();
    errors = report_clients(&cfg, cl, (t1 - t0) / 1e9);
    got = report_watchers(&cfg, w, (t2 - t0) / 1e9);
    ts_apiserver_free(s);
    curl_global_cleanup();
    return errors || got < cfg.patches * cfg.watchers;
}
