/* bench_kube_requests - what one request costs the client, paced as the
 * controller sends them: over TLS on loopback, one at a time at a steady
 * rate, each waking the client's loop on its own.
 *
 * Starts turnstile-apiserver (HTTPS, self-signed, no access log) on
 * 127.0.0.1:0 and measures this process's CPU (user + system, rusage)
 * per request in phases of D seconds each:
 *   post:   ConfigMap creates of about 700 bytes (an Event's size) at R/s,
 *           the reply read and not parsed (TS_KUBE_REQ_NO_REPLY, as the
 *           event recorder sends them);
 *   put:    PUTs of a 2.5 KB ConfigMap (a Workload status write's size)
 *           at R/s, the reply not parsed (as the scheduler's);
 *   mix:    both at R/s each, interleaved (the controller at 50/100 sends
 *           about 50 of each a second);
 *   watch:  the mix again with a compact informer on the ConfigMaps (as
 *           the controller's on Workloads): the difference to "mix" is
 *           the cost of each watch event, paced;
 *   mix/5, watch/5: the same rates, five requests of a kind at a time;
 *   throttled: R*D requests of each kind submitted at once to a client
 *           whose limiter allows R/s (burst 1; both kinds are ConfigMaps,
 *           so one lane), as a saturated controller's is: each started at
 *           its token's time (tick none), then on a 100 ms grid
 *           (ts_kube_client_opts.throttle_tick).
 * The controller's goal of 40 mCPU at about 100 requests/s and 140 watch
 * events/s (docs/perf-log.md) is set against these figures.
 * Bounded: phases are fixed in length and it stops by itself.
 *
 * usage: bench_kube_requests [APISERVER_BIN] [RATE] [SECONDS]
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
#include "util/alloc.h"
#include "util/log.h"
#include "util/parse.h"

#define TIME_SECOND 1000000000LL

enum { POST = 1, PUT = 2 };

struct pacer {
    struct ts_loop *l;
    struct ts_kube_client *c;
    int kinds;      /* POST | PUT */
    int group;      /* requests of a kind sent together each period */
    int64_t period; /* ns between two groups */
    int64_t end;    /* loop time to stop sending */
    int sent, done, failed;
    char *payload_put; /* 2 KB of data */
};

static void on_done(struct ts_kube_client *c, struct ts_kube_result *res, void *data)
{
    struct pacer *p = data;

    (void)c;
    p->done++;
    p->failed += res->code != 0;
}

static void submit(struct pacer *p, int kind)
{
    char name[32], body[4096];
    struct ts_kube_req r = {
        .res = &ts_kube_res_configmaps, .ns = "default", .flags = TS_KUBE_REQ_NO_REPLY};
    static int seq;
    int i = seq++;

    p->sent++;

    if (kind == POST) {
        snprintf(name, sizeof(name), "ev-%07d", i);
        snprintf(body, sizeof(body),
                 "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"%s\","
                 "\"namespace\":\"default\"},\"data\":{\"reason\":\"QuotaReserved\",\"message\":"
                 "\"Quota reserved in ClusterQueue cq-3, wait time since queued was 12s\","
                 "\"involvedObject\":\"%0400d\"}}",
                 name, i);
        r.verb = TS_KUBE_CREATE;
    } else {
        snprintf(name, sizeof(name), "wl-%03d", i % 500);
        snprintf(body, sizeof(body),
                 "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"%s\","
                 "\"namespace\":\"default\"},\"data\":{\"round\":\"%d\",\"status\":\"%s\"}}",
                 name, i, p->payload_put);
        r.verb = TS_KUBE_UPDATE;
        r.name = name;
    }
    bench_submit_json(p->c, &r, body, on_done, p);
}

static void tick(struct ts_loop *l, void *data)
{
    struct pacer *p = data;

    if (ts_loop_now(l) >= p->end)
        return;
    ts_loop_timer_add(l, p->period, tick, p);
    for (int i = 0; i < p->group; i++) {
        if (p->kinds & POST)
            submit(p, POST);
        if (p->kinds & PUT)
            submit(p, PUT);
    }
}

struct counter {
    long events;
};

static void on_change(struct ts_informer *inf, const cJSON *o, void *data)
{
    (void)inf;
    (void)o;
    ((struct counter *)data)->events++;
}

static void on_update(struct ts_informer *inf, const cJSON *old, const cJSON *o, void *data)
{
    (void)old;
    on_change(inf, o, data);
}

static void phase(struct ts_loop *l, struct ts_kube_client *c, const char *what, int kinds,
                  int group, int informer, int rate, int seconds, char *payload)
{
    struct pacer p = {l, c, kinds, group, TIME_SECOND * group / rate, 0, 0, 0, 0, payload};
    struct counter cnt = {0};
    struct ts_informer *inf = NULL;
    double c0, dt;

    if (informer) {
        inf = ts_informer_new(c, &(struct ts_informer_opts){.res = &ts_kube_res_configmaps,
                                                            .ns = "default",
                                                            .compact = 1,
                                                            .strip_managed_fields = 1});
        ts_informer_add_handlers(inf,
                                 &(struct ts_informer_handlers){on_change, on_update, NULL, &cnt});
        ts_informer_start(inf, NULL);
        while (!ts_informer_has_synced(inf))
            ts_loop_run_once(l, -1);
    }
    c0 = bench_cpu_s();
    p.end = ts_loop_now(l) + (int64_t)seconds * TIME_SECOND;
    tick(l, &p);
    while (ts_loop_now(l) < p.end || p.done < p.sent)
        ts_loop_run_once(l, -1);
    dt = bench_cpu_s() - c0;
    if (p.failed)
        ts_fatal("bench", "%s: %d requests failed", what, p.failed);
    printf("%-8s %6d requests in %d s (%d/s%s, %d at a time)%s: client CPU %.2f s = %.0f "
           "us/request, %.1f mCPU\n",
           what, p.sent, seconds, rate, kinds == (POST | PUT) ? " of each" : "", group,
           informer ? ", informer on" : "", dt, dt * 1e6 / p.sent, dt * 1e3 / seconds);
    if (informer) {
        printf("%-8s %6ld watch events applied to the informer's store\n", "", cnt.events);
        ts_informer_free(inf);
    }
}

/* A saturated client: everything queued at once, the limiter spreads it. */
static void throttled(struct ts_loop *l, const struct ts_kubeconfig *cfg, int64_t tick, int rate,
                      int seconds, char *payload)
{
    struct ts_kube_client_opts o = {.qps = rate, .burst = 1, .throttle_tick = tick};
    struct ts_kube_client *c = ts_kube_client_new(l, cfg, &o, NULL);
    struct pacer p = {l, c, POST | PUT, 1, 0, 0, 0, 0, 0, payload};
    double c0 = bench_cpu_s(), t0 = (double)ts_loop_now(l) / 1e9, dt;

    for (int i = 0; i < rate * seconds; i++) {
        submit(&p, POST);
        submit(&p, PUT);
    }
    while (p.done < p.sent)
        ts_loop_run_once(l, -1);
    dt = bench_cpu_s() - c0;
    if (p.failed)
        ts_fatal("bench", "throttled: %d requests failed", p.failed);
    printf("%-8s %6d requests in %.1f s (limiter %d/s, tick %s): client CPU %.2f s = %.0f "
           "us/request, %.1f mCPU\n",
           "throttled", p.sent, (double)ts_loop_now(l) / 1e9 - t0, rate,
           tick > 0 ? "100 ms" : "none", dt, dt * 1e6 / p.sent,
           dt * 1e3 / ((double)ts_loop_now(l) / 1e9 - t0));
    ts_kube_client_free(c);
}

int main(int argc, char **argv)
{
    const char *bin = argc > 1 ? argv[1] : "build/release/bin/turnstile-apiserver";
    int64_t rate = 50, seconds = 20;
    char dir[] = "/tmp/ts-bench.XXXXXX", payload[2049];
    struct ts_kubeconfig cfg;
    struct ts_kube_client_opts o = {.qps = -1};
    struct ts_kube_client *c;
    struct ts_loop *l;
    pid_t pid;

    ts_alloc_init();
    ts_log_set_level(TS_LOG_WARN);
    if ((argc > 2 && ts_parse_i64_c(argv[2], &rate)) ||
        (argc > 3 && ts_parse_i64_c(argv[3], &seconds)) || rate <= 0 || rate > 2000 ||
        seconds <= 0 || seconds > 600 || !mkdtemp(dir))
        ts_fatal("bench", "usage: bench_kube_requests [APISERVER_BIN] [RATE] [SECONDS]");
    memset(payload, 'x', sizeof(payload) - 1);
    payload[sizeof(payload) - 1] = 0;
    pid = bench_start_server(bin, dir, 0, &cfg);
    l = ts_loop_new();
    c = ts_kube_client_new(l, &cfg, &o, NULL);
    {
        /* the objects the PUTs replace, created first (not measured) */
        struct pacer p = {l, c, PUT, 1, 0, 0, 0, 0, 0, payload};

        for (int i = 0; i < 500; i++) {
            char name[32], body[256];
            struct ts_kube_req r = {
                .verb = TS_KUBE_CREATE, .res = &ts_kube_res_configmaps, .ns = "default"};

            snprintf(name, sizeof(name), "wl-%03d", i);
            snprintf(body, sizeof(body),
                     "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":"
                     "\"%s\"}}",
                     name);
            bench_submit_json(c, &r, body, on_done, &p);
            p.sent++;
        }
        while (p.done < p.sent)
            ts_loop_run_once(l, -1);
        if (p.failed)
            ts_fatal("bench", "setup: %d creates failed", p.failed);
    }
    printf("TLS on loopback, one client, requests paced by a timer (RATE %d/s, %d s each)\n",
           (int)rate, (int)seconds);
    phase(l, c, "post", POST, 1, 0, (int)rate, (int)seconds, payload);
    phase(l, c, "put", PUT, 1, 0, (int)rate, (int)seconds, payload);
    phase(l, c, "mix", POST | PUT, 1, 0, (int)rate, (int)seconds, payload);
    phase(l, c, "watch", POST | PUT, 1, 1, (int)rate, (int)seconds, payload);
    phase(l, c, "mix/5", POST | PUT, 5, 0, (int)rate, (int)seconds, payload);
    phase(l, c, "watch/5", POST | PUT, 5, 1, (int)rate, (int)seconds, payload);
    throttled(l, &cfg, 0, (int)rate, (int)seconds, payload);
    throttled(l, &cfg, TIME_SECOND / 10, (int)rate, (int)seconds, payload);
    ts_kube_client_free(c);
    ts_loop_free(l);
    ts_kubeconfig_release(&cfg);
    return bench_stop_server(pid, dir);
}
