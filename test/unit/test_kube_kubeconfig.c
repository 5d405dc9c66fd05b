/* Tests for pkg/kube/kubeconfig and cred: every auth form, kubectl's merge
 * rules, the search order, error messages naming file, line, context and
 * field, token file rotation and the exec credential plugin
 * (test/data/kube/exec-plugin.sh). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kube/cred.h"
#include "kube/kubeconfig.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/time.h"

#define CONFIG "test/data/kube/config.yaml"
#define SECOND "test/data/kube/second.yaml"

static char tmpdir[64];

static int setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof(tmpdir), "/tmp/ts-kubeconfig.XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    char cmd[128];

    (void)state;
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static const char *write_tmp(const char *name, const char *text)
{
    static char path[128];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

static int ends(const char *s, const char *suffix)
{
    size_t a = s ? strlen(s) : 0, b = suffix ? strlen(suffix) : 0;

    if (!suffix)
        return !s;
    return s && a >= b && !strcmp(s + a - b, suffix) && s[0] == '/';
}

static int same(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

static void test_every_auth_form(void **state)
{
    static const struct {
        const char *ctx, *server, *ns, *ca_file, *ca_data, *tls_name, *proxy;
        int insecure;
        const char *token, *token_file, *cert_file, *key_file, *cert_data, *key_data, *user, *pass,
            *exec;
    } cases[] = {
        {.ctx = "token",
         .server = "https://k8s.example.com:6443",
         .ns = "team-a",
         .ca_file = "/certs/ca.crt",
         .token = "static-token"},
        {.ctx = "tokenfile",
         .server = "https://k8s.example.com:6443",
         .ns = "default",
         .ca_file = "/certs/ca.crt",
         .token_file = "/kube/token"},
        {.ctx = "certfile",
         .server = "https://k8s.example.com:6443",
         .ns = "default",
         .ca_file = "/certs/ca.crt",
         .cert_file = "/certs/client.crt",
         .key_file = "/certs/client.key"},
        {.ctx = "certdata",
         .server = "https://10.0.0.1",
         .ns = "default",
         .ca_data = "PEM-CA",
         .tls_name = "kubernetes.default",
         .proxy = "http://proxy.example.com:3128",
         .cert_data = "PEM-CERT",
         .key_data = "PEM-KEY"},
        {.ctx = "basic",
         .server = "https://127.0.0.1:6443",
         .ns = "default",
         .insecure = 1,
         .user = "admin",
         .pass = "s3cret"},
        {.ctx = "exec",
         .server = "https://10.0.0.1",
         .ns = "ml",
         .ca_data = "PEM-CA",
         .tls_name = "kubernetes.default",
         .proxy = "http://proxy.example.com:3128",
         .exec = "/kube/exec-plugin.sh"},
        {.ctx = "anonymous", .server = "https://127.0.0.1:6443", .ns = "default", .insecure = 1},
    };
    const char *files[] = {CONFIG};

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct ts_kubeconfig c;
        struct ts_err e = {0};
        int rc = ts_kubeconfig_load_files(files, 1, cases[i].ctx, &c, &e);

        if (rc)
            fail_msg("context %s: %s", cases[i].ctx, e.msg);
        if (!same(c.server, cases[i].server) || !same(c.namespace, cases[i].ns) ||
            !ends(c.ca_file, cases[i].ca_file) || !same(c.ca_data, cases[i].ca_data) ||
            !same(c.tls_server_name, cases[i].tls_name) || !same(c.proxy_url, cases[i].proxy) ||
            c.insecure != cases[i].insecure || !same(c.token, cases[i].token) ||
            !ends(c.token_file, cases[i].token_file) || !ends(c.cert_file, cases[i].cert_file) ||
            !ends(c.key_file, cases[i].key_file) || !same(c.cert_data, cases[i].cert_data) ||
            !same(c.key_data, cases[i].key_data) || !same(c.username, cases[i].user) ||
            !same(c.password, cases[i].pass) ||
            !ends(c.exec ? c.exec->command : NULL, cases[i].exec))
            fail_msg("context %s: server=%s ns=%s ca=%s token_file=%s exec=%s", cases[i].ctx,
                     c.server, c.namespace, c.ca_file, c.token_file,
                     c.exec ? c.exec->command : "-");
        assert_string_equal(c.context, cases[i].ctx);
        assert_true(ends(c.source, "/config.yaml") || !strcmp(c.source, CONFIG));
        ts_kubeconfig_release(&c);
    }
}

static void test_exec_fields(void **state)
{
    const char *files[] = {CONFIG};
    struct ts_kubeconfig c;
    struct ts_err e = {0};

    (void)state;
    assert_int_equal(ts_kubeconfig_load_files(files, 1, "exec", &c, &e), 0);
    assert_string_equal(c.exec->api_version, "client.authentication.k8s.io/v1");
    assert_int_equal(c.exec->args.n, 1);
    assert_string_equal(c.exec->args.items[0], "cluster");
    assert_int_equal(c.exec->env.n, 1);
    assert_string_equal(c.exec->env.items[0], "TS_TEST_EXP=2030-01-01T00:00:00Z");
    assert_string_equal(c.exec->interactive_mode, "Never");
    assert_int_equal(c.exec->provide_cluster_info, 1);
    assert_string_equal(c.exec->install_hint, "install the test plugin");
    ts_kubeconfig_release(&c);
}

/* KUBECONFIG=a:b: a's entries and current-context win; b adds the rest. */
static void test_merge_rules(void **state)
{
    static const struct {
        const char *first, *second, *ctx, *want_ctx, *server, *token, *ns;
    } cases[] = {
        {CONFIG, SECOND, NULL, "token", "https://k8s.example.com:6443", "static-token", "team-a"},
        {CONFIG, SECOND, "other", "other", "https://other.example.com", "static-token", "other-ns"},
        {SECOND, CONFIG, NULL, "other", "https://other.example.com", "second-file-token",
         "other-ns"},
        {SECOND, CONFIG, "token", "token", "https://k8s.example.com:6443", "second-file-token",
         "team-a"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *files[] = {cases[i].first, cases[i].second};
        struct ts_kubeconfig c;
        struct ts_err e = {0};

        if (ts_kubeconfig_load_files(files, 2, cases[i].ctx, &c, &e))
            fail_msg("case %zu: %s", i, e.msg);
        if (strcmp(c.context, cases[i].want_ctx) || strcmp(c.server, cases[i].server) ||
            strcmp(c.token, cases[i].token) || strcmp(c.namespace, cases[i].ns))
            fail_msg("case %zu: ctx=%s server=%s token=%s ns=%s", i, c.context, c.server, c.token,
                     c.namespace);
        ts_kubeconfig_release(&c);
    }
}

static void test_search_order(void **state)
{
    struct ts_kubeconfig_opts o = {0};
    struct ts_kubeconfig c;
    struct ts_buf env = TS_BUF_INIT, sa = TS_BUF_INIT, home = TS_BUF_INIT;
    struct ts_err e = {0};

    (void)state;
    ts_buf_addf(&env, "%s/missing:" CONFIG ":" CONFIG ":" SECOND, tmpdir);
    ts_buf_addf(&sa, "%s/sa", tmpdir);
    ts_buf_addf(&home, "%s/home", tmpdir);
    mkdir(sa.ptr, 0700);
    write_tmp("sa/token", "sa-token\n");
    write_tmp("sa/ca.crt", "ca\n");
    write_tmp("sa/namespace", "kueue-system\n");
    o.env_kubeconfig = env.ptr;
    o.sa_dir = sa.ptr;
    o.service_host = "10.96.0.1";
    o.service_port = "443";
    o.home = home.ptr;
    /* $KUBECONFIG beats in-cluster; missing entries skipped, duplicates once */
    assert_int_equal(ts_kubeconfig_load(&o, &c, &e), 0);
    assert_string_equal(c.context, "token");
    ts_kubeconfig_release(&c);
    /* --kubeconfig beats $KUBECONFIG */
    o.path = SECOND;
    assert_int_equal(ts_kubeconfig_load(&o, &c, &e), 0);
    assert_string_equal(c.context, "other");
    ts_kubeconfig_release(&c);
    o.path = NULL;
    /* in-cluster next */
    o.env_kubeconfig = "";
    assert_int_equal(ts_kubeconfig_load(&o, &c, &e), 0);
    assert_int_equal(c.in_cluster, 1);
    assert_string_equal(c.server, "https://10.96.0.1:443");
    assert_string_equal(c.namespace, "kueue-system");
    assert_true(ends(c.token_file, "/sa/token"));
    assert_true(ends(c.ca_file, "/sa/ca.crt"));
    ts_kubeconfig_release(&c);
    /* then ~/.kube/config */
    o.service_host = "";
    assert_int_equal(ts_kubeconfig_load(&o, &c, &e), TS_ENOTFOUND);
    assert_non_null(strstr(e.msg, "/home/.kube/config"));
    ts_kubeconfig_release(&c);
    mkdir(home.ptr, 0700);
    ts_buf_reset(&sa);
    ts_buf_addf(&sa, "%s/.kube", home.ptr);
    mkdir(sa.ptr, 0700);
    write_tmp("home/.kube/config", "current-context: c\nclusters: [{name: k, cluster: {server: "
                                   "'https://h:1'}}]\ncontexts: [{name: c, context: {cluster: k,"
                                   " user: u}}]\nusers: [{name: u, user: {token: t}}]\n");
    assert_int_equal(ts_kubeconfig_load(&o, &c, &e), 0);
    assert_string_equal(c.server, "https://h:1");
    ts_kubeconfig_release(&c);
    /* an explicit file must exist */
    o.path = "/nonexistent/kubeconfig";
    assert_int_equal(ts_kubeconfig_load(&o, &c, &e), TS_EIO);
    assert_non_null(strstr(e.msg, "/nonexistent/kubeconfig"));
    ts_kubeconfig_release(&c);
    ts_buf_release(&env);
    ts_buf_release(&sa);
    ts_buf_release(&home);
}

#define HEAD       "apiVersion: v1\nkind: Config\n"
#define CL(extra)  "clusters:\n- name: k\n  cluster:\n    server: https://h\n" extra
#define CTX        "contexts:\n- name: c\n  context:\n    cluster: k\n    user: u\n"
#define USER(body) "users:\n- name: u\n  user:\n" body

static void test_errors(void **state)
{
    static const struct {
        const char *name, *yaml, *ctx;
        int code;
        const char *msg;
    } cases[] = {
        {"no current context", HEAD CL("") CTX USER("    token: t\n"), NULL, TS_ENOTFOUND,
         "current-context is not set"},
        {"unknown context", HEAD CL("") CTX USER("    token: t\n"), "nope", TS_ENOTFOUND,
         "context \"nope\" not found in kubeconfig"},
        {"unknown cluster", HEAD CTX USER("    token: t\n"), "c", TS_ENOTFOUND,
         "context \"c\": K:6: contexts[0].context.cluster: cluster \"k\" not found"},
        {"unknown user", HEAD CL("") CTX, "c", TS_ENOTFOUND,
         "contexts[0].context.user: user \"u\" not found"},
        {"no server",
         HEAD "clusters:\n- name: k\n  cluster:\n    insecure-skip-tls-verify: true\n" CTX USER(
             "    token: t\n"),
         "c", TS_EINVAL, "K:5: clusters[0].cluster.server: no server found"},
        {"unreadable CA",
         HEAD CL("    certificate-authority: nope.crt\n") CTX USER("    token: t\n"), "c", TS_EIO,
         "K:7: clusters[0].cluster.certificate-authority: cannot read '"},
        {"CA twice",
         HEAD CL("    certificate-authority: K\n    certificate-authority-data: "
                 "QQ==\n") CTX USER("    token: t\n"),
         "c", TS_EINVAL, "are both set"},
        {"insecure with CA",
         HEAD CL("    certificate-authority-data: QQ==\n    "
                 "insecure-skip-tls-verify: true\n") CTX USER("    token: t\n"),
         "c", TS_EINVAL, "insecure-skip-tls-verify: a certificate authority and"},
        {"bad base64",
         HEAD CL("    certificate-authority-data: '@@@'\n") CTX USER("    token: t\n"), "c",
         TS_EPARSE, "K:7: clusters[0].cluster.certificate-authority-data: invalid base64"},
        {"cert without key", HEAD CL("") CTX USER("    client-certificate-data: QQ==\n"), "c",
         TS_EINVAL, "users[0].user: a client certificate needs a client key"},
        {"token and basic",
         HEAD CL("") CTX USER("    token: t\n    username: a\n    password: b\n"), "c", TS_EINVAL,
         "may be set, but not both"},
        {"missing token file", HEAD CL("") CTX USER("    tokenFile: /nonexistent/tok\n"), "c",
         TS_EIO, "K:15: users[0].user.tokenFile: cannot read '/nonexistent/tok'"},
        {"token not a string", HEAD CL("") CTX USER("    token: [1]\n"), "c", TS_EINVAL,
         "users[0].user.token: must be a string"},
        {"auth-provider", HEAD CL("") CTX USER("    auth-provider:\n      name: gcp\n"), "c",
         TS_EUNSUPPORTED, "auth-provider plugins were removed"},
        {"exec without command",
         HEAD CL("") CTX USER("    exec:\n      apiVersion: "
                              "client.authentication.k8s.io/v1\n      "
                              "interactiveMode: Never\n"),
         "c", TS_EINVAL, "users[0].user.exec.command: exec plugin needs a command"},
        {"exec old api",
         HEAD CL("") CTX USER("    exec:\n      apiVersion: "
                              "client.authentication.k8s.io/v1alpha1\n      command: x\n"),
         "c", TS_EUNSUPPORTED, "users[0].user.exec.apiVersion"},
        {"exec v1 needs interactiveMode",
         HEAD CL("") CTX USER("    exec:\n      apiVersion: "
                              "client.authentication.k8s.io/v1\n      "
                              "command: x\n"),
         "c", TS_EINVAL, "interactiveMode must be set"},
        {"exec always interactive",
         HEAD CL("") CTX USER("    exec:\n      apiVersion: "
                              "client.authentication.k8s.io/v1beta1\n      "
                              "command: x\n      interactiveMode: Always\n"),
         "c", TS_EUNSUPPORTED, "needs a terminal"},
        {"exec bad env",
         HEAD CL("") CTX USER("    exec:\n      apiVersion: "
                              "client.authentication.k8s.io/v1beta1\n      command: x\n"
                              "      env:\n      - value: v\n"),
         "c", TS_EINVAL, "users[0].user.exec.env: every entry needs a valid name"},
        {"bad yaml", HEAD "clusters: [\n", "c", TS_EPARSE, "kubeconfig: "},
        {"not a mapping", "- a\n- b\n", "c", TS_EPARSE, "not a kubeconfig"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct ts_kubeconfig c;
        struct ts_err e = {0};
        char path[128];
        const char *files[1];
        struct ts_buf want = TS_BUF_INIT;
        const char *k;
        int rc;

        snprintf(path, sizeof(path), "%s", write_tmp("K", cases[i].yaml));
        files[0] = path;
        rc = ts_kubeconfig_load_files(files, 1, cases[i].ctx, &c, &e);
        /* "K:" in the expected text stands for the file's path */
        for (const char *p = cases[i].msg; *p; p++) {
            if (p[0] == 'K' && p[1] == ':')
                ts_buf_adds(&want, path);
            else
                ts_buf_addc(&want, *p);
        }
        k = strstr(e.msg, want.ptr);
        if (rc != cases[i].code || !k)
            fail_msg("case '%s': rc %s msg '%s' (want '%s')", cases[i].name, ts_err_name(rc), e.msg,
                     want.ptr);
        ts_kubeconfig_release(&c);
        ts_buf_release(&want);
    }
}

static void test_exec_plugin(void **state)
{
    const char *files[] = {CONFIG};
    struct ts_kubeconfig c;
    struct ts_kube_cred *cred;
    struct ts_kube_auth a;
    struct ts_err e = {0};
    char counter[128];
    ts_time exp;

    (void)state;
    snprintf(counter, sizeof(counter), "%s/runs", tmpdir);
    setenv("TS_TEST_COUNTER", counter, 1);
    assert_int_equal(ts_kubeconfig_load_files(files, 1, "exec", &c, &e), 0);
    assert_int_equal(ts_time_parse("2030-01-01T00:00:00Z", &exp), 0);
    cred = ts_kube_cred_new(&c);
    /* first use runs the plugin (which checks it got the cluster info) */
    assert_int_equal(ts_kube_cred_get(cred, exp - 100, &a, &e), 0);
    assert_string_equal(a.token, "cluster-1");
    /* cached until the expiry */
    assert_int_equal(ts_kube_cred_get(cred, exp - 1, &a, &e), 0);
    assert_string_equal(a.token, "cluster-1");
    assert_int_equal(ts_kube_cred_exec_runs(cred), 1);
    /* refreshed after it */
    assert_int_equal(ts_kube_cred_get(cred, exp, &a, &e), 0);
    assert_string_equal(a.token, "cluster-2");
    /* and after a 401 */
    assert_int_equal(ts_kube_cred_invalidate(cred), 1);
    assert_int_equal(ts_kube_cred_get(cred, exp, &a, &e), 0);
    assert_string_equal(a.token, "cluster-3");
    ts_kube_cred_free(cred);
    ts_kubeconfig_release(&c);
}

static void test_exec_plugin_failures(void **state)
{
    static const struct {
        const char *arg;
        int code;
        const char *msg;
    } cases[] = {
        {"fail", TS_EIO, "failed with exit status 3"},
        {"garbage", TS_EPARSE, "output is not an ExecCredential"},
        {"wrongapi", TS_EPARSE, "differs from the configured"},
    };
    const char *files[] = {CONFIG};

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct ts_kubeconfig c;
        struct ts_kube_cred *cred;
        struct ts_kube_auth a;
        struct ts_err e = {0};
        int rc;

        assert_int_equal(ts_kubeconfig_load_files(files, 1, "exec", &c, &e), 0);
        free(c.exec->args.items[0]);
        c.exec->args.items[0] = ts_xstrdup(cases[i].arg);
        cred = ts_kube_cred_new(&c);
        rc = ts_kube_cred_get(cred, 0, &a, &e);
        if (rc != cases[i].code || !strstr(e.msg, cases[i].msg))
            fail_msg("plugin %s: rc %s msg '%s'", cases[i].arg, ts_err_name(rc), e.msg);
        ts_kube_cred_free(cred);
        ts_kubeconfig_release(&c);
    }
    {
        struct ts_kubeconfig c;
        struct ts_kube_cred *cred;
        struct ts_kube_auth a;
        struct ts_err e = {0};

        assert_int_equal(ts_kubeconfig_load_files(files, 1, "exec", &c, &e), 0);
        free(c.exec->command);
        c.exec->command = ts_xstrdup("/nonexistent/plugin");
        cred = ts_kube_cred_new(&c);
        assert_int_equal(ts_kube_cred_get(cred, 0, &a, &e), TS_EIO);
        assert_non_null(strstr(e.msg, "install the test plugin"));
        ts_kube_cred_free(cred);
        ts_kubeconfig_release(&c);
    }
}

static void test_token_file_rotation(void **state)
{
    struct ts_kubeconfig c;
    struct ts_kube_cred *cred;
    struct ts_kube_auth a;
    struct ts_err e = {0};
    char path[128];

    (void)state;
    memset(&c, 0, sizeof(c));
    snprintf(path, sizeof(path), "%s", write_tmp("tok", "first\n"));
    c.token_file = path;
    cred = ts_kube_cred_new(&c);
    assert_int_equal(ts_kube_cred_get(cred, 0, &a, &e), 0);
    assert_string_equal(a.token, "first");
    write_tmp("tok.new", "second-token\n"); /* kubelet swaps the file atomically */
    {
        char tmp[128];

        snprintf(tmp, sizeof(tmp), "%s/tok.new", tmpdir);
        assert_int_equal(rename(tmp, path), 0);
    }
    assert_int_equal(ts_kube_cred_get(cred, 0, &a, &e), 0);
    assert_string_equal(a.token, "second-token");
    unlink(path);
    assert_int_equal(ts_kube_cred_get(cred, 0, &a, &e), TS_EIO);
    ts_kube_cred_free(cred);
}

static void test_base64(void **state)
{
    static const struct {
        const char *in, *out;
        int rc;
    } cases[] = {
        {"", "", 0},
        {"QQ==", "A", 0},
        {"QUI=", "AB", 0},
        {"QUJD", "ABC", 0},
        {"QUJD\nRA==", "ABCD", 0},
        {"QUJDRA", "ABCD", 0},
        {"Q*==", NULL, TS_EPARSE},
        {"QQ==QQ==", NULL, TS_EPARSE},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *out = NULL;
        size_t len = 0;
        int rc = ts_kube_b64_decode(cases[i].in, &out, &len);

        assert_int_equal(rc, cases[i].rc);
        if (!rc) {
            assert_string_equal(out, cases[i].out);
            assert_int_equal(len, strlen(cases[i].out));
        }
        free(out);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_auth_form),
        cmocka_unit_test(test_exec_fields),
        cmocka_unit_test(test_merge_rules),
        cmocka_unit_test(test_search_order),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_exec_plugin),
        cmocka_unit_test(test_exec_plugin_failures),
        cmocka_unit_test(test_token_file_rotation),
        cmocka_unit_test(test_base64),
    };

    ts_alloc_init();
    return cmocka_run_group_tests_name("kube_kubeconfig", tests, setup, teardown);
}
