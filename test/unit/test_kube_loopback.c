/* Tests for pkg/kube against the real turnstile-apiserver on loopback
 * (started from <build>/bin next to this test binary; the tests skip when
 * it is missing): every request type and error class over HTTPS with a
 * bearer token; paging; a watch cut mid-stream by a proxy that resumes
 * without losing or repeating an event; 410 leading to a relist that
 * converges; informer indexes and handlers; event aggregation; two leader
 * electors with hand-over; TLS connections keep their record buffers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "json/json.h"
#include "kube/client.h"
#include "kube/events.h"
#include "kube/http.h"
#include "kube/informer.h"
#include "kube/leader.h"
#include "kube/watch.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/hmap.h"
#include "util/parse.h"
#include "yaml/yaml.h"

#define MS  INT64_C(1000000)
#define SEC INT64_C(1000000000)

extern char **environ;

static char server_bin[512];

struct server {
    pid_t pid;
    char dir[64];
    struct ts_kubeconfig cfg;
};

static struct server tls_srv, http_srv, small_srv; /* small: 20 events of history */
static struct ts_loop *loop;
static struct ts_kube_client *tc, *hc, *sc; /* clients of the TLS, HTTP and small server */

/* --- servers ------------------------------------------------------------------------- */

static int file_has(const char *path, const char *needle)
{
    char buf[4096] = "";
    FILE *f = fopen(path, "r");
    size_t n;

    if (!f)
        return 0;
    n = fread(buf, 1, sizeof(buf) - 1, f);
    buf[n] = '\0';
    fclose(f);
    return strstr(buf, needle) != NULL;
}

static int server_start(struct server *s, int http, const char *history)
{
    char out[128], kc[128], log[128];
    const char *argv[12];
    int n = 0;
    posix_spawn_file_actions_t fa;
    struct ts_err e = {0};

    snprintf(s->dir, sizeof(s->dir), "/tmp/ts-kubetest.XXXXXX");
    if (!mkdtemp(s->dir))
        return -1;
    snprintf(out, sizeof(out), "%s/out", s->dir);
    snprintf(kc, sizeof(kc), "%s/kubeconfig", s->dir);
    argv[n++] = server_bin;
    argv[n++] = "--listen";
    argv[n++] = "127.0.0.1:0";
    argv[n++] = "--kubeconfig-out";
    argv[n++] = kc;
    argv[n++] = "--token";
    argv[n++] = "loopback-secret";
    argv[n++] = "--no-access-log";
    argv[n++] = "--event-history";
    argv[n++] = history;
    if (http)
        argv[n++] = "--insecure-http";
    argv[n] = NULL;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    snprintf(log, sizeof(log), "%s/log", s->dir);
    posix_spawn_file_actions_addopen(&fa, 2, log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (posix_spawn(&s->pid, server_bin, &fa, NULL, (char *const *)(uintptr_t)argv, environ))
        return -1;
    posix_spawn_file_actions_destroy(&fa);
    for (int i = 0; i < 200 && !(file_has(out, "serving on") && access(kc, R_OK) == 0); i++)
        usleep(25000);
    usleep(50000);
    if (ts_kubeconfig_load_files((const char *const[]){kc}, 1, NULL, &s->cfg, &e)) {
        fprintf(stderr, "kubeconfig: %s\n", e.msg);
        return -1;
    }
    return 0;
}

static void server_stop(struct server *s)
{
    char cmd[128];

    if (s->pid > 0) {
        kill(s->pid, SIGTERM);
        waitpid(s->pid, NULL, 0);
    }
    ts_kubeconfig_release(&s->cfg);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", s->dir);
    if (s->dir[0] && system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", s->dir);
}

/* test/e2e/data/crd-mini-kueue.yaml serves v1beta1 only. */
static const struct ts_kube_resource cq_v1beta1 = {"kueue.x-k8s.io", "v1beta1", "clusterqueues",
                                                   "ClusterQueue", 0};

static void install_crds(struct ts_kube_client *c)
{
    struct ts_yaml_stream ys = TS_YAML_STREAM_INIT;
    struct ts_err e = {0};

    assert_int_equal(ts_yaml_decode_file("test/e2e/data/crd-mini-kueue.yaml", &ys, &e), 0);
    for (size_t i = 0; i < ys.n; i++) {
        int rc = ts_kube_create_sync(c, &ts_kube_res_crds, NULL, ys.docs[i].root, NULL, &e);

        if (rc && rc != TS_EEXIST)
            fail_msg("install CRD: %s", e.msg);
    }
    ts_yaml_stream_release(&ys);
    usleep(100000);
}

static int setup(void **state)
{
    struct ts_err e = {0};

    (void)state;
    if (access(server_bin, X_OK) != 0)
        return 0;
    if (server_start(&tls_srv, 0, "10000") || server_start(&http_srv, 1, "10000") ||
        server_start(&small_srv, 1, "20"))
        return -1;
    loop = ts_loop_new();
    tc = ts_kube_client_new(loop, &tls_srv.cfg, &(struct ts_kube_client_opts){.qps = -1}, &e);
    hc = ts_kube_client_new(loop, &http_srv.cfg, &(struct ts_kube_client_opts){.qps = -1}, &e);
    sc = ts_kube_client_new(loop, &small_srv.cfg, &(struct ts_kube_client_opts){.qps = -1}, &e);
    if (!tc || !hc || !sc)
        return -1;
    install_crds(tc);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    ts_kube_client_free(tc);
    ts_kube_client_free(hc);
    ts_kube_client_free(sc);
    ts_loop_free(loop);
    server_stop(&tls_srv);
    server_stop(&http_srv);
    server_stop(&small_srv);
    return 0;
}

#define NEED_SERVER()                                                                              \
    do {                                                                                           \
        if (!tc) {                                                                                 \
            fprintf(stderr, "skip: %s not built\n", server_bin);                                   \
            skip();                                                                                \
        }                                                                                          \
    } while (0)

static cJSON *json(const char *s)
{
    cJSON *j = cJSON_Parse(s);

    assert_non_null(j);
    return j;
}

static void make_ns(struct ts_kube_client *c, const char *ns)
{
    cJSON *o = cJSON_CreateObject();
    struct ts_err e = {0};
    int rc;

    ts_json_set_string(o, "metadata.name", ns, NULL);
    rc = ts_kube_create_sync(c, &ts_kube_res_namespaces, NULL, o, NULL, &e);
    if (rc && rc != TS_EEXIST)
        fail_msg("namespace %s: %s", ns, e.msg);
    cJSON_Delete(o);
}

static cJSON *cm(const char *name, const char *value)
{
    cJSON *o = json("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{},\"data\":{}}");

    ts_json_set_string(o, "metadata.name", name, NULL);
    ts_json_set_string(o, "data.v", value, NULL);
    return o;
}

/* Runs req and checks its code; returns the reply (owned). */
static cJSON *expect(struct ts_kube_client *c, const struct ts_kube_req *r, int want,
                     const char *what)
{
    struct ts_err e = {0};
    cJSON *out = NULL;
    int rc = ts_kube_do(c, r, &out, &e);

    if (rc != want)
        fail_msg("%s: want %s, got %s: %s", what, ts_err_name(want), ts_err_name(rc), e.msg);
    return out;
}

/* --- requests and errors -------------------------------------------------------------- */

static void test_configmap_crud(void **state)
{
    struct ts_kube_req r = {.res = &ts_kube_res_configmaps, .ns = "crud"};
    cJSON *o, *body, *got;
    char uid[64], rv[32];

    (void)state;
    NEED_SERVER();
    make_ns(tc, "crud");
    r.verb = TS_KUBE_CREATE;
    r.body = body = cm("a", "1");
    r.field_manager = "turnstile-test";
    o = expect(tc, &r, 0, "create");
    snprintf(uid, sizeof(uid), "%s", ts_json_get_string(o, "metadata.uid"));
    snprintf(rv, sizeof(rv), "%s", ts_json_get_string(o, "metadata.resourceVersion"));
    cJSON_Delete(expect(tc, &r, TS_EEXIST, "create again"));
    cJSON_Delete(body);
    /* get */
    r = (struct ts_kube_req){
        .verb = TS_KUBE_GET, .res = &ts_kube_res_configmaps, .ns = "crud", .name = "a"};
    got = expect(tc, &r, 0, "get");
    assert_string_equal(ts_json_get_string(got, "data.v"), "1");
    cJSON_Delete(got);
    /* update with the current RV, then with the stale one */
    ts_json_set_string(o, "data.v", "2", NULL);
    r.verb = TS_KUBE_UPDATE;
    r.body = o;
    got = expect(tc, &r, 0, "update");
    assert_string_equal(ts_json_get_string(got, "data.v"), "2");
    cJSON_Delete(got);
    cJSON_Delete(expect(tc, &r, TS_ECONFLICT, "stale update"));
    cJSON_Delete(o);
    /* merge, JSON and apply patches */
    r.verb = TS_KUBE_PATCH;
    r.body = body = json("{\"data\":{\"m\":\"merge\"}}");
    cJSON_Delete(expect(tc, &r, 0, "merge patch"));
    cJSON_Delete(body);
    r.patch = TS_KUBE_PATCH_JSON;
    r.body = body = json("[{\"op\":\"add\",\"path\":\"/data/j\",\"value\":\"json\"}]");
    cJSON_Delete(expect(tc, &r, 0, "json patch"));
    cJSON_Delete(body);
    r.body = body = json("[{\"op\":\"test\",\"path\":\"/data/j\",\"value\":\"other\"}]");
    cJSON_Delete(expect(tc, &r, TS_EINVAL, "failed json patch test"));
    cJSON_Delete(body);
    r.patch = TS_KUBE_PATCH_APPLY;
    r.field_manager = "turnstile-test";
    r.force = 1;
    r.body = body = json("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":"
                         "\"a\",\"namespace\":\"crud\"},\"data\":{\"s\":\"ssa\"}}");
    got = expect(tc, &r, 0, "server-side apply");
    assert_string_equal(ts_json_get_string(got, "data.s"), "ssa");
    assert_string_equal(ts_json_get_string(got, "data.m"), "merge");
    assert_string_equal(ts_json_get_string(got, "data.j"), "json");
    cJSON_Delete(got);
    cJSON_Delete(body);
    /* delete: a wrong precondition conflicts, the right one deletes */
    r = (struct ts_kube_req){.verb = TS_KUBE_DELETE,
                             .res = &ts_kube_res_configmaps,
                             .ns = "crud",
                             .name = "a",
                             .propagation = "Background",
                             .precondition_uid = "not-the-uid"};
    cJSON_Delete(expect(tc, &r, TS_ECONFLICT, "delete with wrong uid"));
    r.precondition_uid = uid;
    cJSON_Delete(expect(tc, &r, 0, "delete"));
    r.verb = TS_KUBE_GET;
    cJSON_Delete(expect(tc, &r, TS_ENOTFOUND, "get deleted"));
    cJSON_Delete(expect(tc, &r, TS_ENOTFOUND, "get deleted"));
}

static void test_server_side_apply_creates(void **state)
{
    cJSON *body = json("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":"
                       "\"ssa\",\"namespace\":\"crud\"},\"data\":{\"a\":\"b\"}}");
    struct ts_kube_req r = {.verb = TS_KUBE_PATCH,
                            .res = &ts_kube_res_configmaps,
                            .ns = "crud",
                            .name = "ssa",
                            .patch = TS_KUBE_PATCH_APPLY,
                            .field_manager = "turnstile-test",
                            .body = body};
    cJSON *got;

    (void)state;
    NEED_SERVER();
    make_ns(tc, "crud");
    got = expect(tc, &r, 0, "apply creates");
    assert_string_equal(ts_json_get_string(got, "data.a"), "b");
    cJSON_Delete(got);
    cJSON_Delete(body);
}

static void test_job_strategic_merge(void **state)
{
    cJSON *job = json(
        "{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"j\"},\"spec\":{"
        "\"suspend\":true,\"template\":{\"spec\":{\"restartPolicy\":\"Never\",\"containers\":["
        "{\"name\":\"a\",\"image\":\"busybox\",\"args\":[\"sleep\",\"1\"]},"
        "{\"name\":\"b\",\"image\":\"busybox\"}]}}}}");
    /* (a suspended Job may change its containers' resources, not images) */
    cJSON *p = json("{\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"b\","
                    "\"resources\":{\"limits\":{\"cpu\":\"2\"}}}]}}}}");
    struct ts_kube_req r = {
        .verb = TS_KUBE_CREATE, .res = &ts_kube_res_jobs, .ns = "crud", .body = job};
    cJSON *got;

    (void)state;
    NEED_SERVER();
    make_ns(tc, "crud");
    cJSON_Delete(expect(tc, &r, 0, "create job"));
    r = (struct ts_kube_req){.verb = TS_KUBE_PATCH,
                             .res = &ts_kube_res_jobs,
                             .ns = "crud",
                             .name = "j",
                             .patch = TS_KUBE_PATCH_STRATEGIC,
                             .body = p};
    got = expect(tc, &r, 0, "strategic merge patch");
    /* merged by name: container a keeps its args, b keeps its image and
     * gets the new limit */
    assert_string_equal(ts_json_get_string(got, "spec.template.spec.containers[0].args[0]"),
                        "sleep");
    assert_string_equal(ts_json_get_string(got, "spec.template.spec.containers[1].image"),
                        "busybox");
    assert_string_equal(
        ts_json_get_string(got, "spec.template.spec.containers[1].resources.limits.cpu"), "2");
    cJSON_Delete(got);
    cJSON_Delete(job);
    cJSON_Delete(p);
}

static void test_status_subresource(void **state)
{
    cJSON *cq = json("{\"apiVersion\":\"kueue.x-k8s.io/v1beta1\",\"kind\":\"ClusterQueue\","
                     "\"metadata\":{\"name\":\"status-cq\"},\"spec\":{}}");
    cJSON *st = json("{\"status\":{\"pendingWorkloads\":7},\"spec\":{\"cohort\":\"ignored\"}}");
    struct ts_kube_req r = {.verb = TS_KUBE_CREATE, .res = &cq_v1beta1, .body = cq};
    cJSON *got;
    int64_t gen = 0, pending = 0;

    (void)state;
    NEED_SERVER();
    cJSON_Delete(expect(tc, &r, 0, "create cq"));
    r = (struct ts_kube_req){.verb = TS_KUBE_PATCH,
                             .res = &cq_v1beta1,
                             .name = "status-cq",
                             .subresource = "status",
                             .body = st};
    got = expect(tc, &r, 0, "patch status");
    ts_json_get_i64(ts_json_get(got, "status.pendingWorkloads"), &pending);
    ts_json_get_i64(ts_json_get(got, "metadata.generation"), &gen);
    assert_int_equal(pending, 7);
    assert_int_equal(gen, 1);
    assert_null(ts_json_get(got, "spec.cohort")); /* /status ignores spec */
    /* update through /status with PUT */
    ts_json_set(got, "status.pendingWorkloads", cJSON_CreateNumber(9), NULL);
    r.verb = TS_KUBE_UPDATE;
    r.body = got;
    cJSON_Delete(expect(tc, &r, 0, "update status"));
    cJSON_Delete(got);
    r = (struct ts_kube_req){
        .verb = TS_KUBE_GET, .res = &cq_v1beta1, .name = "status-cq", .subresource = "status"};
    got = expect(tc, &r, 0, "get status");
    ts_json_get_i64(ts_json_get(got, "status.pendingWorkloads"), &pending);
    assert_int_equal(pending, 9);
    cJSON_Delete(got);
    cJSON_Delete(cq);
    cJSON_Delete(st);
}

static void test_error_classes(void **state)
{
    cJSON *bad = json("{\"apiVersion\":\"kueue.x-k8s.io/v1beta1\",\"kind\":\"ClusterQueue\","
                      "\"metadata\":{\"name\":\"bad-cq\"},\"spec\":{\"queueingStrategy\":"
                      "\"Bogus\"}}");
    cJSON *p = json("{\"spec\":{\"cohort\":\"x\"}}");
    struct ts_kube_req r = {.verb = TS_KUBE_CREATE, .res = &cq_v1beta1, .body = bad};
    struct ts_kube_result res;
    struct ts_kubeconfig wrong;
    struct ts_kube_client *wc;
    struct ts_err e = {0};

    (void)state;
    NEED_SERVER();
    /* Invalid, with causes naming the field */
    {
        cJSON *out = NULL;
        int rc = ts_kube_do(tc, &r, &out, &e);

        assert_int_equal(rc, TS_EINVAL);
        assert_non_null(strstr(e.msg, "spec.queueingStrategy"));
    }
    (void)res;
    /* UnsupportedMediaType: strategic merge on a custom resource */
    r = (struct ts_kube_req){.verb = TS_KUBE_PATCH,
                             .res = &cq_v1beta1,
                             .name = "status-cq",
                             .patch = TS_KUBE_PATCH_STRATEGIC,
                             .body = p};
    cJSON_Delete(expect(tc, &r, TS_EUNSUPPORTED, "strategic merge on a CR"));
    /* BadRequest: a malformed label selector */
    r = (struct ts_kube_req){
        .verb = TS_KUBE_LIST, .res = &ts_kube_res_configmaps, .label_selector = "a in (b"};
    cJSON_Delete(expect(tc, &r, TS_EINVAL, "bad selector"));
    /* NotFound for a resource the server does not serve */
    r = (struct ts_kube_req){
        .verb = TS_KUBE_LIST,
        .res = &(struct ts_kube_resource){"nope.example.com", "v1", "things", "Thing", 0}};
    cJSON_Delete(expect(tc, &r, TS_ENOTFOUND, "unknown resource"));
    /* Unauthorized: a wrong token */
    wrong = tls_srv.cfg;
    wrong.token = "wrong";
    wc = ts_kube_client_new(loop, &wrong, NULL, &e);
    r = (struct ts_kube_req){.verb = TS_KUBE_LIST, .res = &ts_kube_res_namespaces};
    cJSON_Delete(expect(wc, &r, TS_EUNAUTHORIZED, "wrong token"));
    ts_kube_client_free(wc);
    /* tls-server-name: verified against that name, connected to the server's address */
    wrong.token = tls_srv.cfg.token;
    wrong.tls_server_name = "localhost";
    wc = ts_kube_client_new(loop, &wrong, NULL, &e);
    cJSON_Delete(expect(wc, &r, 0, "tls-server-name in the certificate"));
    ts_kube_client_free(wc);
    wrong.tls_server_name = "other.example.com";
    wc = ts_kube_client_new(loop, &wrong, NULL, &e);
    cJSON_Delete(expect(wc, &r, TS_ETLS, "tls-server-name not in the certificate"));
    ts_kube_client_free(wc);
    wrong.tls_server_name = NULL;
    /* TLS: the server's certificate is not trusted without the CA */
    wrong.ca_data = NULL;
    wc = ts_kube_client_new(loop, &wrong, NULL, &e);
    cJSON_Delete(expect(wc, &r, TS_ETLS, "untrusted certificate"));
    ts_kube_client_free(wc);
    cJSON_Delete(bad);
    cJSON_Delete(p);
}

static void test_paging(void **state)
{
    struct ts_kube_req r = {
        .verb = TS_KUBE_LIST, .res = &ts_kube_res_configmaps, .ns = "paging", .limit = 7};
    struct ts_kube_stats before, after;
    struct ts_err e = {0};
    cJSON *list = NULL, *page;
    char name[32];

    (void)state;
    NEED_SERVER();
    make_ns(tc, "paging");
    for (int i = 0; i < 25; i++) {
        cJSON *o;

        snprintf(name, sizeof(name), "cm-%02d", i);
        o = cm(name, "x");
        assert_int_equal(ts_kube_create_sync(tc, &ts_kube_res_configmaps, "paging", o, NULL, &e),
                         0);
        cJSON_Delete(o);
    }
    page = expect(tc, &r, 0, "one page");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(page, "items")), 7);
    assert_non_null(ts_json_get_string(page, "metadata.continue"));
    cJSON_Delete(page);
    ts_kube_client_stats(tc, &before);
    assert_int_equal(ts_kube_list_sync(tc, &r, &list, &e), 0);
    ts_kube_client_stats(tc, &after);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(list, "items")), 25);
    assert_int_equal(after.requests - before.requests, 4);
    assert_non_null(ts_json_get_string(list, "metadata.resourceVersion"));
    cJSON_Delete(list);
}

/* --- the cutting proxy --------------------------------------------------------------- */

struct pconn {
    int down, up;
    long budget; /* bytes server->client before the cut; -1: never */
};

struct proxy {
    int lfd, port, upstream;
    struct pconn c[64];
    int refuse, cuts;
    long cut_min, cut_max;
    uint64_t rng;
};

static struct proxy px;

static void pconn_close(struct pconn *c)
{
    ts_loop_unwatch(loop, c->down);
    ts_loop_unwatch(loop, c->up);
    close(c->down);
    close(c->up);
    c->down = c->up = -1;
}

static long next_budget(void)
{
    if (px.cut_max <= 0)
        return -1;
    px.rng ^= px.rng << 13;
    px.rng ^= px.rng >> 7;
    px.rng ^= px.rng << 17;
    return px.cut_min + (long)(px.rng % (uint64_t)(px.cut_max - px.cut_min + 1));
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);

        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static void on_pdata(struct ts_loop *l, int fd, unsigned ev, void *data)
{
    struct pconn *c = data;
    char buf[16384];
    ssize_t n = read(fd, buf, sizeof(buf));
    int from_up = fd == c->up;

    (void)l;
    (void)ev;
    if (n <= 0) {
        pconn_close(c);
        return;
    }
    if (from_up && c->budget >= 0 && n > c->budget) {
        write_all(c->down, buf, (size_t)c->budget); /* cut inside whatever this is */
        px.cuts++;
        pconn_close(c);
        return;
    }
    if (from_up && c->budget >= 0)
        c->budget -= n;
    if (write_all(from_up ? c->down : c->up, buf, (size_t)n))
        pconn_close(c);
}

static void on_paccept(struct ts_loop *l, int fd, unsigned ev, void *data)
{
    struct sockaddr_in a = {0};
    int d = accept(fd, NULL, NULL), u;

    (void)ev;
    (void)data;
    if (d < 0)
        return;
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons((uint16_t)px.upstream);
    u = socket(AF_INET, SOCK_STREAM, 0);
    if (px.refuse || connect(u, (struct sockaddr *)&a, sizeof(a))) {
        close(d);
        close(u);
        return;
    }
    for (int i = 0; i < 64; i++) {
        if (px.c[i].down < 0) {
            px.c[i] = (struct pconn){d, u, next_budget()};
            ts_loop_watch(l, d, TS_LOOP_READ, on_pdata, &px.c[i]);
            ts_loop_watch(l, u, TS_LOOP_READ, on_pdata, &px.c[i]);
            return;
        }
    }
    close(d);
    close(u);
}

static void proxy_start(int upstream)
{
    struct sockaddr_in a = {0};
    socklen_t len = sizeof(a);

    memset(&px, 0, sizeof(px));
    for (int i = 0; i < 64; i++)
        px.c[i].down = px.c[i].up = -1;
    px.upstream = upstream;
    px.rng = 88172645463325252ull;
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    px.lfd = socket(AF_INET, SOCK_STREAM, 0);
    assert_int_equal(bind(px.lfd, (struct sockaddr *)&a, sizeof(a)), 0);
    assert_int_equal(listen(px.lfd, 64), 0);
    getsockname(px.lfd, (struct sockaddr *)&a, &len);
    px.port = ntohs(a.sin_port);
    ts_loop_watch(loop, px.lfd, TS_LOOP_READ, on_paccept, NULL);
}

static void proxy_cut_all(void)
{
    for (int i = 0; i < 64; i++)
        if (px.c[i].down >= 0)
            pconn_close(&px.c[i]);
}

static void proxy_stop(void)
{
    proxy_cut_all();
    ts_loop_unwatch(loop, px.lfd);
    close(px.lfd);
}

static int port_of(const char *url)
{
    const char *colon = strrchr(url, ':');
    int64_t port = 0;

    if (colon)
        ts_parse_i64_c(colon + 1, &port);
    return (int)port;
}

/* A client of the HTTP server that goes through the proxy. */
static struct ts_kube_client *proxied_client(const struct ts_kubeconfig *base,
                                             struct ts_kubeconfig *cfg, char *url, size_t len)
{
    struct ts_err e = {0};

    *cfg = *base;
    snprintf(url, len, "%s://127.0.0.1:%d", strncmp(base->server, "https", 5) ? "http" : "https",
             px.port);
    cfg->server = url;
    return ts_kube_client_new(
        loop, cfg,
        &(struct ts_kube_client_opts){.qps = -1, .backoff_base = 5 * MS, .backoff_cap = 50 * MS},
        &e);
}

/* --- watch cut mid-stream --------------------------------------------------------------- */

struct writer {
    int step, done, failed;
    struct ts_hmap rvs; /* RVs written by creates and patches */
    int deletes;
};

static void write_next(struct writer *w);

static void on_written(struct ts_kube_client *c, struct ts_kube_result *res, void *data)
{
    struct writer *w = data;
    const char *rv = ts_json_get_string(res->obj, "metadata.resourceVersion");

    (void)c;
    if (res->code) {
        fprintf(stderr, "writer step %d: %s\n", w->step, res->err.msg);
        w->failed++;
    } else if (w->step < 100 && rv) {
        ts_hmap_put(&w->rvs, rv, (void *)1);
    } else if (w->step >= 100) {
        w->deletes++;
    }
    w->step++;
    write_next(w);
}

/* 50 creates, 50 patches, 50 deletes, one at a time. */
static void write_next(struct writer *w)
{
    struct ts_kube_req r = {.res = &ts_kube_res_configmaps, .ns = "cut"};
    char name[32];
    cJSON *body = NULL;

    if (w->step == 150) {
        w->done = 1;
        return;
    }
    snprintf(name, sizeof(name), "w-%02d", w->step % 50);
    if (w->step < 50) {
        r.verb = TS_KUBE_CREATE;
        r.body = body = cm(name, "0");
    } else if (w->step < 100) {
        r.verb = TS_KUBE_PATCH;
        r.name = name;
        r.body = body = json("{\"data\":{\"v\":\"patched\"}}");
    } else {
        r.verb = TS_KUBE_DELETE;
        r.name = name;
    }
    assert_int_equal(ts_kube_submit(hc, &r, on_written, w, NULL, NULL), 0);
    cJSON_Delete(body);
}

struct seen {
    struct ts_hmap rvs;
    int64_t last_rv;
    int events, deleted, dups, out_of_order;
};

static int on_watch_event(enum ts_watch_type type, cJSON *obj, void *data)
{
    struct seen *s = data;
    const char *rv = ts_json_get_string(obj, "metadata.resourceVersion");
    int64_t n = 0;

    if (rv)
        ts_parse_i64_c(rv, &n);

    s->events++;
    if (n <= s->last_rv)
        s->out_of_order++;
    s->last_rv = n;
    if (type == TS_WATCH_DELETED)
        s->deleted++;
    else if (ts_hmap_put(&s->rvs, rv, (void *)1))
        s->dups++;
    cJSON_Delete(obj);
    return 0;
}

static void test_watch_cut_mid_stream(void **state)
{
    struct writer w = {0};
    struct seen s = {0};
    struct ts_kubeconfig pcfg;
    struct ts_kube_client *pc;
    struct ts_watch *wt;
    struct ts_watch_stats st;
    struct ts_err e = {0};
    char url[64];
    cJSON *list = NULL;
    size_t it = 0;
    const char *k;
    void *v;

    (void)state;
    NEED_SERVER();
    make_ns(hc, "cut");
    proxy_start(port_of(http_srv.cfg.server));
    px.cut_min = 150; /* anywhere: in headers, chunk sizes, events */
    px.cut_max = 1500;
    pc = proxied_client(&http_srv.cfg, &pcfg, url, sizeof(url));
    assert_int_equal(ts_kube_list_sync(hc,
                                       &(struct ts_kube_req){.verb = TS_KUBE_LIST,
                                                             .res = &ts_kube_res_configmaps,
                                                             .ns = "cut"},
                                       &list, &e),
                     0);
    wt = ts_watch_start(pc,
                        &(struct ts_watch_opts){.res = &ts_kube_res_configmaps,
                                                .ns = "cut",
                                                .resource_version = ts_json_get_string(
                                                    list, "metadata.resourceVersion"),
                                                .backoff_base = 5 * MS,
                                                .backoff_cap = 20 * MS,
                                                .on_event = on_watch_event,
                                                .data = &s},
                        &e);
    assert_non_null(wt);
    cJSON_Delete(list);
    write_next(&w);
    for (int i = 0; i < 20000 && (!w.done || s.events < 150); i++)
        ts_loop_run_once(loop, 10 * MS);
    ts_watch_stats(wt, &st);
    fprintf(stderr, "watch: %d events, %d cuts, %llu streams, %llu failures\n", s.events, px.cuts,
            (unsigned long long)st.streams, (unsigned long long)st.failures);
    assert_int_equal(w.failed, 0);
    assert_int_equal(s.events, 150);
    assert_int_equal(s.dups, 0);
    assert_int_equal(s.out_of_order, 0);
    assert_int_equal(s.deleted, 50);
    assert_int_equal(s.rvs.n, w.rvs.n); /* every write seen exactly once */
    while (ts_hmap_next(&w.rvs, &it, &k, &v))
        if (!ts_hmap_get(&s.rvs, k))
            fail_msg("write with resourceVersion %s never seen", k);
    assert_true(px.cuts >= 5);
    assert_true(st.streams > 5);
    ts_watch_stop(wt);
    ts_kube_client_free(pc);
    proxy_stop();
    ts_hmap_release(&w.rvs);
    ts_hmap_release(&s.rvs);
}

/* --- informer: 410 and relist, indexes, handlers ---------------------------------------- */

struct tally {
    int adds, updates, deletes;
    int compact; /* the informer is: on_update's old is NULL */
};

static void t_add(struct ts_informer *inf, const cJSON *o, void *d)
{
    (void)inf;
    (void)o;
    ((struct tally *)d)->adds++;
}

static void t_update(struct ts_informer *inf, const cJSON *old, const cJSON *o, void *d)
{
    (void)inf;
    if (((struct tally *)d)->compact)
        assert_null(old);
    else
        assert_string_equal(ts_json_get_string(old, "metadata.name"),
                            ts_json_get_string(o, "metadata.name"));
    assert_non_null(ts_json_get_string(o, "metadata.name"));
    ((struct tally *)d)->updates++;
}

static void t_delete(struct ts_informer *inf, const cJSON *o, void *d)
{
    (void)inf;
    assert_non_null(ts_json_get_string(o, "metadata.name"));
    ((struct tally *)d)->deletes++;
}

static void by_value(const cJSON *obj, struct ts_strlist *out, void *data)
{
    const char *v = ts_json_get_string(obj, "data.v");

    (void)data;
    if (v)
        ts_strlist_push(out, v);
}

static int count_visit(const char *key, const cJSON *obj, void *data)
{
    (void)key;
    assert_non_null(ts_json_get_string(obj, "data.v"));
    (*(int *)data)++;
    return 0;
}

/* Whether the store holds exactly the server's objects at their RVs. */
static int converged(struct ts_informer *inf, const char *ns)
{
    struct ts_kube_req r = {.verb = TS_KUBE_LIST, .res = &ts_kube_res_configmaps, .ns = ns};
    cJSON *list = NULL, *it;
    int ok;

    if (ts_kube_list_sync(sc, &r, &list, NULL))
        return 0;
    ok = (size_t)cJSON_GetArraySize(cJSON_GetObjectItem(list, "items")) == ts_informer_len(inf);
    cJSON_ArrayForEach(it, cJSON_GetObjectItem(list, "items"))
    {
        cJSON *mine = ts_informer_fetch(inf, ns, ts_json_get_string(it, "metadata.name"));

        const char *rv = ts_informer_rv_of(inf, ns, ts_json_get_string(it, "metadata.name"));

        ok = ok && mine && rv &&
             !strcmp(ts_json_get_string(mine, "metadata.resourceVersion"),
                     ts_json_get_string(it, "metadata.resourceVersion")) &&
             !strcmp(rv, ts_json_get_string(it, "metadata.resourceVersion")) &&
             ts_json_equal(cJSON_GetObjectItem(mine, "data"), cJSON_GetObjectItem(it, "data"));
        cJSON_Delete(mine);
    }
    cJSON_Delete(list);
    return ok;
}

static void run_for(int64_t ns)
{
    int64_t end = ts_loop_update_time(loop) + ns;

    while (ts_loop_update_time(loop) < end)
        ts_loop_run_once(loop, 10 * MS);
}

/* An informer (compact: keeping JSON text) converges after a 410 and a
 * relist; a compact one has no indexes and lends no trees. */
static void informer_relist(int compact)
{
    struct ts_informer_stats st;
    struct tally t = {.compact = compact};
    struct ts_kubeconfig pcfg;
    struct ts_kube_client *pc;
    struct ts_informer *inf;
    struct ts_err e = {0};
    char url[64], name[32];
    int n = 0;

    const char *space = compact ? "relist-compact" : "relist";

    make_ns(sc, space);
    for (int i = 0; i < 10; i++) {
        cJSON *o;

        snprintf(name, sizeof(name), "r-%02d", i);
        o = cm(name, i % 2 ? "odd" : "even");
        assert_int_equal(ts_kube_create_sync(sc, &ts_kube_res_configmaps, space, o, NULL, &e), 0);
        cJSON_Delete(o);
    }
    proxy_start(port_of(small_srv.cfg.server));
    pc = proxied_client(&small_srv.cfg, &pcfg, url, sizeof(url));
    inf = ts_informer_new(pc, &(struct ts_informer_opts){.res = &ts_kube_res_configmaps,
                                                         .ns = space,
                                                         .page_size = 4,
                                                         .backoff_base = 5 * MS,
                                                         .backoff_cap = 50 * MS,
                                                         .compact = compact,
                                                         .strip_managed_fields = compact});
    if (compact) {
        assert_int_equal(ts_informer_add_index(inf, "value", by_value, NULL), TS_EINVAL);
    } else {
        assert_int_equal(ts_informer_add_index(inf, "value", by_value, NULL), 0);
        assert_int_equal(ts_informer_add_index(inf, "value", by_value, NULL), TS_EEXIST);
    }
    assert_int_equal(ts_informer_add_handlers(
                         inf, &(struct ts_informer_handlers){t_add, t_update, t_delete, &t}),
                     0);
    assert_int_equal(ts_informer_start(inf, &e), 0);
    for (int i = 0; i < 500 && !ts_informer_has_synced(inf); i++)
        ts_loop_run_once(loop, 10 * MS);
    assert_true(ts_informer_has_synced(inf));
    assert_int_equal(ts_informer_len(inf), 10);
    assert_int_equal(t.adds, 10);
    if (compact) {
        struct ts_kube_req g = {
            .verb = TS_KUBE_GET, .res = &ts_kube_res_configmaps, .ns = space, .name = "r-01"};
        cJSON *mine = ts_informer_fetch(inf, space, "r-01"), *theirs = expect(sc, &g, 0, "get");

        /* the server tracks managedFields; the stripping informer drops them */
        assert_non_null(ts_json_get(theirs, "metadata.managedFields"));
        assert_non_null(mine);
        assert_null(ts_json_get(mine, "metadata.managedFields"));
        assert_string_equal(ts_json_get_string(mine, "data.v"), "odd");
        assert_string_equal(ts_informer_rv_of(inf, space, "r-01"),
                            ts_json_get_string(theirs, "metadata.resourceVersion"));
        assert_null(ts_informer_rv_of(inf, space, "no-such"));
        cJSON_Delete(mine);
        cJSON_Delete(theirs);
        assert_null(ts_informer_get_ns(inf, space, "r-01"));
        assert_int_equal(ts_informer_each(inf, count_visit, &n), 10);
        assert_int_equal(n, 10);
    } else {
        assert_int_equal(ts_informer_by_index(inf, "value", "odd", count_visit, &n), 5);
    }
    /* the watch loses its connection and cannot come back for a while */
    px.refuse = 1;
    proxy_cut_all();
    run_for(100 * MS);
    for (int i = 0; i < 30; i++) { /* far more changes than the server's 20-event history */
        cJSON *o;

        snprintf(name, sizeof(name), "r-%02d", 10 + i);
        o = cm(name, "new");
        assert_int_equal(ts_kube_create_sync(sc, &ts_kube_res_configmaps, space, o, NULL, &e), 0);
        cJSON_Delete(o);
    }
    for (int i = 0; i < 4; i++) {
        snprintf(name, sizeof(name), "r-%02d", i);
        assert_int_equal(ts_kube_delete_sync(sc, &ts_kube_res_configmaps, space, name, &e), 0);
    }
    px.refuse = 0;
    for (int i = 0; i < 1000 && !converged(inf, space); i++)
        run_for(10 * MS);
    ts_informer_stats(inf, &st);
    assert_true(converged(inf, space));
    assert_true(st.relists >= 1);
    assert_int_equal(ts_informer_len(inf), 36);
    assert_int_equal(t.adds - t.deletes, 36);
    n = 0;
    if (!compact) {
        assert_int_equal(ts_informer_by_index(inf, "value", "new", count_visit, &n), 30);
        n = 0;
        assert_int_equal(ts_informer_by_index(inf, "value", "even", count_visit, &n), 3);
    }
    /* watch events keep flowing after the relist */
    {
        struct ts_kube_req r = {
            .verb = TS_KUBE_PATCH, .res = &ts_kube_res_configmaps, .ns = space, .name = "r-09"};
        cJSON *p = json("{\"data\":{\"v\":\"even\"}}");

        r.body = p;
        cJSON_Delete(expect(sc, &r, 0, "patch"));
        cJSON_Delete(p);
        for (int i = 0; i < 300 && !converged(inf, space); i++)
            run_for(10 * MS);
        assert_true(converged(inf, space));
        assert_true(t.updates >= 1);
        n = 0;
        if (!compact)
            assert_int_equal(ts_informer_by_index(inf, "value", "even", count_visit, &n), 4);
    }
    ts_informer_free(inf);
    ts_kube_client_free(pc);
    proxy_stop();
}

static void test_informer_relist_after_410(void **state)
{
    (void)state;
    NEED_SERVER();
    informer_relist(0);
}

/* list_all with on_page hands each page over as it arrives and gathers
 * nothing: a relist's memory is one page, not the whole list. */
struct pages {
    int pages, items, done, gathered;
};

static void count_page(cJSON *items, void *data)
{
    struct pages *p = data;

    if (items) {
        p->pages++;
        p->items += cJSON_GetArraySize(items);
        cJSON_Delete(items);
    }
}

static void pages_done(struct ts_kube_client *c, struct ts_kube_result *res, void *data)
{
    struct pages *p = data;

    (void)c;
    p->done = res->code ? -1 : 1;
    p->gathered = cJSON_GetArraySize(cJSON_GetObjectItem(res->obj, "items"));
}

static void test_list_pages_handed_over(void **state)
{
    struct ts_kube_req r = {.verb = TS_KUBE_LIST,
                            .res = &ts_kube_res_configmaps,
                            .ns = "paged",
                            .limit = 3,
                            .on_page = count_page};
    struct pages p = {0};
    struct ts_err e = {0};
    char name[32];

    (void)state;
    NEED_SERVER();
    make_ns(tc, "paged");
    for (int i = 0; i < 8; i++) {
        cJSON *o;

        snprintf(name, sizeof(name), "p-%d", i);
        o = cm(name, "x");
        assert_int_equal(ts_kube_create_sync(tc, &ts_kube_res_configmaps, "paged", o, NULL, &e), 0);
        cJSON_Delete(o);
    }
    assert_int_equal(ts_kube_list_all(tc, &r, pages_done, &p, NULL, &e), 0);
    for (int i = 0; i < 500 && !p.done; i++)
        ts_loop_run_once(loop, 10 * MS);
    assert_int_equal(p.done, 1);
    assert_int_equal(p.pages, 3);
    assert_int_equal(p.items, 8);
    assert_int_equal(p.gathered, 0);
}

static void test_informer_compact(void **state)
{
    (void)state;
    NEED_SERVER();
    informer_relist(1);
}

/* --- events ------------------------------------------------------------------------------ */

static void test_event_aggregation(void **state)
{
    struct ts_recorder *rec = ts_recorder_new(tc, "turnstile-test", "host-1");
    struct ts_kube_req r = {.verb = TS_KUBE_LIST, .res = &ts_kube_res_events, .ns = "events"};
    cJSON *obj = cm("subject", "x"), *spam = cm("spammed", "x"), *list = NULL, *ev;
    struct ts_recorder_stats st;
    struct ts_err e = {0};
    int64_t count = 0;
    int n_admitted = 0;
    char *name, *first;

    (void)state;
    NEED_SERVER();
    make_ns(tc, "events");
    ts_json_set_string(obj, "metadata.namespace", "events", NULL);
    ts_json_set_string(obj, "metadata.uid", "uid-1", NULL);
    ts_json_set_string(spam, "metadata.namespace", "events", NULL);
    for (int i = 0; i < 5; i++)
        ts_recorder_event(rec, obj, "Normal", "Admitted", "admitted by %s", "cq-1");
    /* written as text: quotes, backslashes and control characters escaped */
    ts_recorder_event(rec, obj, "Warning", "Pending", "no \"quota\"\n\tin cq\\1 \x01");
    for (int i = 0; i < 30; i++)
        ts_recorder_event(rec, spam, "Normal", "Spam", "message %d", i);
    for (int i = 0; i < 500; i++) {
        ts_recorder_stats(rec, &st);
        if (st.created + st.failed >= 27 && st.patched >= 1)
            break;
        ts_loop_run_once(loop, 10 * MS);
    }
    ts_recorder_stats(rec, &st);
    assert_int_equal(st.failed, 0);
    assert_int_equal(st.created, 27); /* 2 about subject, 25 spam before the filter */
    assert_int_equal(st.dropped, 5);
    assert_int_equal(ts_kube_list_sync(tc, &r, &list, &e), 0);
    cJSON_ArrayForEach(ev, cJSON_GetObjectItem(list, "items"))
    {
        if (strcmp(ts_json_get_string(ev, "reason"), "Admitted"))
            continue;
        n_admitted++;
        ts_json_get_i64(cJSON_GetObjectItem(ev, "count"), &count);
        assert_string_equal(ts_json_get_string(ev, "involvedObject.uid"), "uid-1");
        assert_string_equal(ts_json_get_string(ev, "source.component"), "turnstile-test");
        assert_string_equal(ts_json_get_string(ev, "message"), "admitted by cq-1");
    }
    assert_int_equal(n_admitted, 1);
    assert_int_equal(count, 5);
    cJSON_ArrayForEach(ev, cJSON_GetObjectItem(list, "items"))
    {
        if (!strcmp(ts_json_get_string(ev, "reason"), "Pending"))
            break;
    }
    assert_non_null(ev);
    assert_string_equal(ts_json_get_string(ev, "message"), "no \"quota\"\n\tin cq\\1 \x01");
    assert_string_equal(ts_json_get_string(ev, "type"), "Warning");
    assert_string_equal(ts_json_get_string(ev, "involvedObject.name"), "subject");
    /* the Event expired on the server: the next repeat creates it again,
     * whole, with the count and first time kept */
    ev = cJSON_GetArrayItem(cJSON_GetObjectItem(list, "items"), 0);
    for (int i = 0; ev && strcmp(ts_json_get_string(ev, "reason"), "Admitted"); i++)
        ev = cJSON_GetArrayItem(cJSON_GetObjectItem(list, "items"), i);
    assert_non_null(ev);
    name = ts_xstrdup(ts_json_get_string(ev, "metadata.name"));
    first = ts_xstrdup(ts_json_get_string(ev, "firstTimestamp"));
    assert_int_equal(ts_kube_delete_sync(tc, &ts_kube_res_events, "events", name, &e), 0);
    ts_recorder_event(rec, obj, "Normal", "Admitted", "admitted by %s", "cq-1");
    for (int i = 0; i < 500; i++) {
        ts_recorder_stats(rec, &st);
        if (st.created >= 28)
            break;
        ts_loop_run_once(loop, 10 * MS);
    }
    assert_int_equal(st.created, 28);
    ev = NULL;
    assert_int_equal(ts_kube_get_sync(tc, &ts_kube_res_events, "events", name, &ev, &e), 0);
    assert_int_equal(ts_json_get_i64(cJSON_GetObjectItem(ev, "count"), &count), 0);
    assert_int_equal(count, 6);
    assert_string_equal(ts_json_get_string(ev, "firstTimestamp"), first);
    assert_string_equal(ts_json_get_string(ev, "type"), "Normal");
    assert_string_equal(ts_json_get_string(ev, "reason"), "Admitted");
    assert_string_equal(ts_json_get_string(ev, "involvedObject.kind"), "ConfigMap");
    assert_string_equal(ts_json_get_string(ev, "involvedObject.name"), "subject");
    assert_string_equal(ts_json_get_string(ev, "involvedObject.namespace"), "events");
    assert_string_equal(ts_json_get_string(ev, "involvedObject.uid"), "uid-1");
    assert_string_equal(ts_json_get_string(ev, "reportingInstance"), "host-1");
    cJSON_Delete(ev);
    free(name);
    free(first);
    cJSON_Delete(list);
    cJSON_Delete(obj);
    cJSON_Delete(spam);
    ts_recorder_free(rec);
}

/* Behind a client budget the recorder keeps at most 1000 Events waiting
 * and drops the rest (client-go's broadcaster does too); the client's
 * queue never walks itself per request (that would be O(queue) each). */
static void test_event_queue_bounded(void **state)
{
    struct ts_err e = {0};
    struct ts_kube_client *slow = ts_kube_client_new(
        loop, &http_srv.cfg, &(struct ts_kube_client_opts){.qps = 1, .burst = 1}, &e);
    struct ts_recorder *rec = ts_recorder_new(slow, "turnstile-test", NULL);
    struct ts_recorder_stats st;
    cJSON *obj = cm("many", "x");

    (void)state;
    NEED_SERVER();
    assert_non_null(slow);
    ts_json_set_string(obj, "metadata.namespace", "events", NULL);
    for (int i = 0; i < 1200; i++) {
        char name[32];

        snprintf(name, sizeof(name), "obj-%d", i); /* distinct objects: no spam filter */
        ts_json_set_string(obj, "metadata.name", name, NULL);
        ts_recorder_event(rec, obj, "Normal", "Admitted", "admitted");
    }
    ts_recorder_stats(rec, &st);
    assert_int_equal(st.dropped, 200);
    ts_loop_run_once(loop, 10 * MS); /* the first goes out; the queue stays full */
    ts_recorder_event(rec, obj, "Normal", "Other", "one more");
    ts_recorder_stats(rec, &st);
    assert_int_equal(st.dropped, 201);
    cJSON_Delete(obj);
    ts_recorder_free(rec);
    ts_kube_client_free(slow);
}

/* Without a budget at most 128 requests are on the wire at once; the rest
 * wait in the client's queue and all complete. */
static void done_count(struct ts_kube_client *c, struct ts_kube_result *res, void *data)
{
    int *n = data;

    (void)c;
    n[res->code ? 1 : 0]++;
}

static void test_requests_in_flight_bounded(void **state)
{
    struct ts_err e = {0};
    struct ts_kube_client *c =
        ts_kube_client_new(loop, &http_srv.cfg, &(struct ts_kube_client_opts){.qps = -1}, &e);
    struct ts_kube_req r = {.verb = TS_KUBE_LIST, .res = &ts_kube_res_namespaces};
    struct ts_kube_stats st;
    int n[2] = {0, 0};

    (void)state;
    NEED_SERVER();
    assert_non_null(c);
    for (int i = 0; i < 300; i++)
        assert_int_equal(ts_kube_submit(c, &r, done_count, n, NULL, &e), 0);
    for (int i = 0; i < 3000 && n[0] + n[1] < 300; i++)
        ts_loop_run_once(loop, 10 * MS);
    assert_int_equal(n[0], 300);
    assert_int_equal(n[1], 0);
    ts_kube_client_stats(c, &st);
    assert_int_equal(st.active_peak, 128);
    assert_int_equal(st.requests, 300);
    ts_kube_client_free(c);
}

/* --- leader election ------------------------------------------------------------------------ */

struct cand {
    struct ts_kube_client *c;
    struct ts_leader *l;
    int started, stopped;
};

static void on_started(struct ts_leader *l, void *data)
{
    (void)l;
    ((struct cand *)data)->started++;
}

static void on_stopped(struct ts_leader *l, void *data)
{
    (void)l;
    ((struct cand *)data)->stopped++;
}

static void cand_new(struct cand *c, const char *id)
{
    struct ts_leader_opts o = {.ns = "kube-system",
                               .name = "turnstile-test",
                               .identity = id,
                               .lease_duration = 2 * SEC,
                               .renew_deadline = 1500 * MS,
                               .retry_period = 200 * MS,
                               .on_started_leading = on_started,
                               .on_stopped_leading = on_stopped};
    struct ts_err e = {0};

    memset(c, 0, sizeof(*c));
    c->c = ts_kube_client_new(loop, &http_srv.cfg, &(struct ts_kube_client_opts){.qps = -1}, &e);
    o.data = c;
    c->l = ts_leader_new(c->c, &o, &e);
    assert_non_null(c->l);
    ts_leader_start(c->l);
}

static void cand_free(struct cand *c)
{
    ts_leader_free(c->l);
    ts_kube_client_free(c->c);
}

static int64_t wait_leader(struct cand *c, int64_t max)
{
    int64_t t0 = ts_loop_update_time(loop);

    while (!ts_leader_is_leader(c->l) && ts_loop_update_time(loop) - t0 < max)
        ts_loop_run_once(loop, 10 * MS);
    return ts_loop_update_time(loop) - t0;
}

static int try_write(struct ts_kube_client *c, const char *name)
{
    cJSON *o = cm(name, "x");
    int rc = ts_kube_create_sync(c, &ts_kube_res_configmaps, "kube-system", o, NULL, NULL);

    cJSON_Delete(o);
    return rc;
}

/* OpenSSL keeps a connection's record buffers between reads (libcurl asks
 * it to free them whenever drained: a 16 KB malloc and free per watch
 * event); plain HTTP has none to keep. */
struct tls_probe {
    int kept, done;
};

static int tls_probe_data(struct ts_http_req *req, long status, const char *p, size_t n, void *data)
{
    struct tls_probe *t = data;

    (void)status;
    (void)p;
    (void)n;
    t->kept = ts_http_req_tls_buffers_kept(req);
    return 0;
}

static void tls_probe_done(struct ts_http_req *req, const struct ts_http_result *res, void *data)
{
    struct tls_probe *t = data;

    (void)req;
    assert_int_equal(res->code, 0);
    assert_int_equal(res->status, 200);
    t->done = 1;
}

static int tls_buffers_kept(struct ts_http *h, const char *server)
{
    char url[256];
    struct tls_probe t = {-2, 0};
    struct ts_http_opts o = {.method = "GET",
                             .url = url,
                             .tls = &(struct ts_http_tls){.insecure = 1},
                             .on_data = tls_probe_data,
                             .on_done = tls_probe_done,
                             .data = &t};
    struct ts_err e = {0};

    snprintf(url, sizeof(url), "%s/version", server);
    assert_int_equal(ts_http_request(h, &o, NULL, &e), 0);
    for (int i = 0; i < 500 && !t.done; i++)
        ts_loop_run_once(loop, 10 * MS);
    assert_true(t.done);
    return t.kept;
}

static void test_tls_buffers_kept(void **state)
{
    struct ts_http *h;

    (void)state;
    NEED_SERVER();
    h = ts_http_new(loop, 0);
    assert_non_null(h);
    assert_int_equal(tls_buffers_kept(h, tls_srv.cfg.server), 1);
    assert_int_equal(tls_buffers_kept(h, tls_srv.cfg.server), 1); /* reused connection */
    assert_int_equal(ts_http_connections(h), 1);
    assert_int_equal(tls_buffers_kept(h, http_srv.cfg.server), -1);
    ts_http_free(h);
}

static void test_leader_handover(void **state)
{
    struct cand a, b, a2;
    int64_t took;

    (void)state;
    NEED_SERVER();
    make_ns(hc, "kube-system");
    cand_new(&a, "a");
    assert_true(wait_leader(&a, 3 * SEC) < 3 * SEC);
    cand_new(&b, "b");
    run_for(SEC);
    assert_false(ts_leader_is_leader(b.l));
    assert_string_equal(ts_leader_holder(b.l), "a");
    assert_int_equal(try_write(a.c, "from-a"), 0);
    assert_int_equal(try_write(b.c, "from-b"), TS_EFORBIDDEN); /* followers do not write */
    /* a dies without releasing: b waits out the lease, then takes over */
    ts_leader_free(a.l);
    a.l = NULL;
    took = wait_leader(&b, 5 * SEC);
    fprintf(stderr, "hand-over after a crash: %lld ms\n", (long long)(took / MS));
    assert_true(ts_leader_is_leader(b.l));
    assert_true(took >= 1000 * MS && took <= 2600 * MS);
    assert_int_equal(b.started, 1);
    assert_int_equal(try_write(b.c, "from-b"), 0);
    /* a clean release hands over within about a retry period */
    cand_new(&a2, "a2");
    run_for(300 * MS);
    assert_false(ts_leader_is_leader(a2.l));
    ts_leader_release(b.l, NULL, NULL);
    assert_int_equal(try_write(b.c, "after-release"), TS_EFORBIDDEN); /* stopped at once */
    took = wait_leader(&a2, 3 * SEC);
    fprintf(stderr, "hand-over after a release: %lld ms\n", (long long)(took / MS));
    assert_true(ts_leader_is_leader(a2.l));
    assert_true(took < 1000 * MS);
    /* someone else takes the Lease: a2 stops writing without waiting */
    {
        cJSON *lease = NULL;
        struct ts_kube_req r = {.verb = TS_KUBE_GET,
                                .res = &ts_kube_res_leases,
                                .ns = "kube-system",
                                .name = "turnstile-test"};

        lease = expect(hc, &r, 0, "get lease");
        ts_json_set_string(lease, "spec.holderIdentity", "intruder", NULL);
        ts_json_set(lease, "spec.leaseDurationSeconds", cJSON_CreateNumber(60), NULL);
        r.verb = TS_KUBE_UPDATE;
        r.body = lease;
        cJSON_Delete(expect(hc, &r, 0, "steal lease"));
        cJSON_Delete(lease);
        for (int i = 0; i < 300 && !a2.stopped; i++)
            ts_loop_run_once(loop, 10 * MS);
        assert_int_equal(a2.stopped, 1);
        assert_false(ts_leader_is_leader(a2.l));
        assert_int_equal(try_write(a2.c, "after-loss"), TS_EFORBIDDEN);
    }
    ts_kube_client_free(a.c);
    cand_free(&b);
    cand_free(&a2);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_configmap_crud),
        cmocka_unit_test(test_server_side_apply_creates),
        cmocka_unit_test(test_job_strategic_merge),
        cmocka_unit_test(test_status_subresource),
        cmocka_unit_test(test_error_classes),
        cmocka_unit_test(test_paging),
        cmocka_unit_test(test_watch_cut_mid_stream),
        cmocka_unit_test(test_informer_relist_after_410),
        cmocka_unit_test(test_informer_compact),
        cmocka_unit_test(test_list_pages_handed_over),
        cmocka_unit_test(test_event_aggregation),
        cmocka_unit_test(test_event_queue_bounded),
        cmocka_unit_test(test_requests_in_flight_bounded),
        cmocka_unit_test(test_tls_buffers_kept),
        cmocka_unit_test(test_leader_handover),
    };
    char self[512];

    if (argc > 1)
        cmocka_set_test_filter(argv[1]);
    snprintf(self, sizeof(self), "%s", argv[0]);
    snprintf(server_bin, sizeof(server_bin), "%s/../bin/turnstile-apiserver", dirname(self));
    signal(SIGPIPE, SIG_IGN);
    ts_alloc_init();
    return cmocka_run_group_tests_name("kube_loopback", tests, setup, teardown);
}
