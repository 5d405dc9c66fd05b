/* bench_kube_informer - informer throughput on loopback: how fast events
 * reach the store of a pkg/kube informer.
 *
 * Starts turnstile-apiserver (plain HTTP, no access log) on 127.0.0.1:0,
 * creates N ConfigMaps (about 400 bytes each), then measures
 *   list:   an informer's initial list into its store, in pages of 500
 *           and in one page (the stand-in's paging costs O(N) per page);
 *   watch:  M merge patches written by a second client (64 in flight)
 *           until the informer has applied all M MODIFIED events;
 *   replay: a watch from resourceVersion 0 (N synthetic ADDED events in
 *           one stream) parsed and stored, without the server's writes
 *           in the way.
 * Bounded: N and M are fixed (defaults 20000), and it stops by itself.
 *
 * usage: bench_kube_informer [APISERVER_BIN] [N] [M]
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_server.h"
#include "json/json.h"
#include "kube/client.h"
#include "kube/informer.h"
#include "kube/watch.h"
#include "util/alloc.h"
#include "util/hmap.h"
#include "util/log.h"
#include "util/parse.h"

#define INFLIGHT 64

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct writer {
    struct ts_kube_client *c;
    int total, sent, done, failed, patch;
};

static void write_one(struct writer *w);

static void on_written(struct ts_kube_client *c, struct ts_kube_result *res, void *data)
{
    struct writer *w = data;

    (void)c;
    w->done++;
    w->failed += res->code != 0;
    if (w->sent < w->total)
        write_one(w);
}

static void write_one(struct writer *w)
{
    char name[32], body[512];
    struct ts_kube_req r = {.res = &ts_kube_res_configmaps, .ns = "default"};
    int i = w->sent++;

    snprintf(name, sizeof(name), "bench-%06d", w->patch ? i % w->patch : i);
    if (w->patch) {
        snprintf(body, sizeof(body), "{\"data\":{\"round\":\"%d\"}}", i);
        r.verb = TS_KUBE_PATCH;
        r.name = name;
    } else {
        snprintf(body, sizeof(body),
                 "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"%s\","
                 "\"labels\":{\"app\":\"bench\",\"tier\":\"t%d\"}},\"data\":{\"queue\":\"q-%d\","
                 "\"payload\":\"%0200d\"}}",
                 name, i % 8, i % 16, i);
        r.verb = TS_KUBE_CREATE;
    }
    bench_submit_json(w->c, &r, body, on_written, w);
}

static double run_writer(struct ts_loop *l, struct writer *w)
{
    double t0 = now_s();

    for (int i = 0; i < INFLIGHT && w->sent < w->total; i++)
        write_one(w);
    while (w->done < w->total)
        ts_loop_run_once(l, -1);
    if (w->failed)
        ts_fatal("bench", "%d writes failed", w->failed);
    return now_s() - t0;
}

struct counter {
    uint64_t updates;
};

static void on_update(struct ts_informer *inf, const cJSON *old, const cJSON *o, void *data)
{
    (void)inf;
    (void)old;
    (void)o;
    ((struct counter *)data)->updates++;
}

struct replay {
    struct ts_hmap store;
    long events;
};

static int on_replay(enum ts_watch_type t, cJSON *obj, void *data)
{
    struct replay *r = data;
    char key[320];

    (void)t;
    ts_informer_key(obj, key, sizeof(key));
    cJSON_Delete(ts_hmap_put(&r->store, key, obj));
    r->events++;
    return 0;
}

static void free_store(struct ts_hmap *m)
{
    size_t it = 0;
    const char *k;
    void *v;

    while (ts_hmap_next(m, &it, &k, &v))
        cJSON_Delete(v);
    ts_hmap_release(m);
}

/* strip: metadata.managedFields cut from each event before parsing, as
 * the controller's informers do (ts_watch_opts.strip_managed_fields). */
static void bench_replay(struct ts_loop *l, struct ts_kube_client *c, int n, int strip)
{
    struct replay r = {TS_HMAP_INIT, 0};
    struct ts_watch *w;
    double t0 = now_s(), c0 = bench_cpu_s(), dt;

    w = ts_watch_start(c,
                       &(struct ts_watch_opts){.res = &ts_kube_res_configmaps,
                                               .ns = "default",
                                               .resource_version = "0",
                                               .strip_managed_fields = strip,
                                               .on_event = on_replay,
                                               .data = &r},
                       NULL);
    while (r.events < n)
        ts_loop_run_once(l, -1);
    dt = now_s() - t0;
    printf("replay: %d ADDED events from one watch stream into a store%s in %.3f s = %.0f "
           "events/s, client CPU %.2f us/event\n",
           n, strip ? " (managedFields cut)" : "", dt, n / dt, (bench_cpu_s() - c0) * 1e6 / n);
    ts_watch_stop(w);
    free_store(&r.store);
}

static void bench_unpaged(struct ts_loop *l, struct ts_kube_client *c, int n)
{
    struct ts_informer *inf =
        ts_informer_new(c, &(struct ts_informer_opts){
                               .res = &ts_kube_res_configmaps, .ns = "default", .page_size = -1});
    double t0 = now_s(), dt;

    ts_informer_start(inf, NULL);
    while (!ts_informer_has_synced(inf))
        ts_loop_run_once(l, -1);
    dt = now_s() - t0;
    printf("list:   %d objects listed (one page) into the store in %.3f s = %.0f objects/s\n", n,
           dt, n / dt);
    ts_informer_free(inf);
}

static void bench(struct ts_loop *l, struct ts_kube_client *wc, struct ts_kube_client *ic, int n,
                  int m)
{
    struct writer w = {wc, n, 0, 0, 0, 0};
    struct counter cnt = {0};
    struct ts_informer *inf;
    double dt, t0;

    dt = run_writer(l, &w);
    printf("setup:  %d creates in %.3f s = %.0f writes/s (server-bound)\n", n, dt, n / dt);
    inf = ts_informer_new(
        ic, &(struct ts_informer_opts){.res = &ts_kube_res_configmaps, .ns = "default"});
    ts_informer_add_handlers(inf, &(struct ts_informer_handlers){NULL, on_update, NULL, &cnt});
    t0 = now_s();
    ts_informer_start(inf, NULL);
    while (!ts_informer_has_synced(inf))
        ts_loop_run_once(l, -1);
    dt = now_s() - t0;
    printf("list:   %zu objects listed (pages of 500) into the store in %.3f s = %.0f objects/s\n",
           ts_informer_len(inf), dt, (double)ts_informer_len(inf) / dt);
    bench_unpaged(l, ic, n);
    w = (struct writer){wc, m, 0, 0, 0, n};
    t0 = now_s();
    dt = run_writer(l, &w);
    while (cnt.updates < (uint64_t)m)
        ts_loop_run_once(l, -1);
    printf("watch:  %d patches written in %.3f s; all %d events in the store after %.3f s = "
           "%.0f events/s\n",
           m, dt, m, now_s() - t0, m / (now_s() - t0));
    ts_informer_free(inf);
    bench_replay(l, ic, n, 0); /* in the order ABBA: the first stream runs cold */
    bench_replay(l, ic, n, 1);
    bench_replay(l, ic, n, 1);
    bench_replay(l, ic, n, 0);
}

int main(int argc, char **argv)
{
    const char *bin = argc > 1 ? argv[1] : "build/release/bin/turnstile-apiserver";
    int64_t n = 20000, m = 20000;
    char dir[] = "/tmp/ts-bench.XXXXXX";
    struct ts_kubeconfig cfg;
    struct ts_kube_client_opts o = {.qps = -1};
    struct ts_kube_client *wc, *ic;
    struct ts_loop *l;
    pid_t pid;

    ts_alloc_init();
    ts_log_set_level(TS_LOG_WARN);
    if ((argc > 2 && ts_parse_i64_c(argv[2], &n)) || (argc > 3 && ts_parse_i64_c(argv[3], &m)) ||
        n <= 0 || m <= 0 || n > 1000000 || m > 1000000 || !mkdtemp(dir))
        ts_fatal("bench", "usage: bench_kube_informer [APISERVER_BIN] [N] [M]");
    pid = bench_start_server(bin, dir, 1, &cfg);
    l = ts_loop_new();
    wc = ts_kube_client_new(l, &cfg, &o, NULL);
    ic = ts_kube_client_new(l, &cfg, &o, NULL);
    bench(l, wc, ic, (int)n, (int)m);
    ts_kube_client_free(wc);
    ts_kube_client_free(ic);
    ts_loop_free(l);
    ts_kubeconfig_release(&cfg);
    return bench_stop_server(pid, dir);
}
