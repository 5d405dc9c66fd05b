/* The webhook's certificates (pkg/webhook/cert_files.c, certsrc.c,
 * certsync.c) and webhook configurations (whconfig.c): the Secret and the
 * files round trip, change detection, rotation through the source, the
 * replicas' Secret, and the caBundle injection helpers.  Generating and
 * checking certificates is pkg/httpd/cert.c's (test_httpd_cert.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sys/stat.h>
#include <unistd.h>

#include "api/config.h"
#include "webhook/certsrc.h"
#include "webhook/certsync.h"
#include "yaml/yaml.h"
#include "webhook/whconfig.h"
#include "webhook_test.h"

#define NOW (INT64_C(1795000000) * TS_TIME_SECOND) /* 2026-11-19 */
#define DAY (TS_HTTPD_CERT_DAY * TS_TIME_SECOND)

static struct ts_httpd_cert_bundle bundle; /* generated once, shared by the tests */

static int setup(void **state)
{
    struct ts_httpd_cert_options o;
    struct ts_err err = {0};

    (void)state;
    ts_alloc_init();
    ts_httpd_cert_options_init(&o, TS_CERT_DEFAULT_SERVICE, TS_WEBHOOK_DEFAULT_NAMESPACE);
    o.extra_dns[0] = "localhost";
    o.ips[1] = "::1";
    ts_httpd_cert_bundle_init(&bundle);
    if (ts_httpd_cert_generate(&o, NOW, &bundle, &err))
        fail_msg("generate: %s", err.msg);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    ts_httpd_cert_bundle_release(&bundle);
    return 0;
}

static void secret(void **state)
{
    cJSON *s = ts_cert_secret(&bundle, TS_CERT_DEFAULT_SECRET, "turnstile-system");
    struct ts_httpd_cert_bundle b;
    struct ts_err err = {0};

    (void)state;
    assert_string_equal(ts_json_get_string(s, "type"), "kubernetes.io/tls");
    assert_string_equal(ts_json_get_string(s, "metadata.name"), "turnstile-webhook-server-cert");
    ts_httpd_cert_bundle_init(&b);
    assert_int_equal(ts_cert_from_secret(s, &b, &err), 0);
    assert_string_equal(b.ca_cert_pem, bundle.ca_cert_pem);
    assert_string_equal(b.ca_key_pem, bundle.ca_key_pem);
    assert_string_equal(b.cert_pem, bundle.cert_pem);
    assert_string_equal(b.key_pem, bundle.key_pem);
    cJSON_DeleteItemFromObject(cJSON_GetObjectItem(s, "data"), "tls.key");
    assert_int_equal(ts_cert_from_secret(s, &b, &err), TS_EINVAL);
    assert_null(b.cert_pem);
    cJSON_AddStringToObject(cJSON_GetObjectItem(s, "data"), "tls.key", "!!!");
    assert_int_equal(ts_cert_from_secret(s, &b, &err), TS_EINVAL);
    cJSON_Delete(s);
}

static void base64(void **state)
{
    static const char *const texts[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    static const char *const want[] = {"",         "Zg==",     "Zm8=",    "Zm9v",
                                       "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};

    (void)state;
    for (size_t i = 0; i < N_ELEMS(texts); i++) {
        struct ts_buf e = TS_BUF_INIT, d = TS_BUF_INIT;

        ts_cert_base64(texts[i], strlen(texts[i]), &e);
        assert_string_equal(e.ptr, want[i]);
        assert_int_equal(ts_cert_unbase64(e.ptr, e.len, &d), 0);
        assert_string_equal(d.ptr, texts[i]);
        ts_buf_release(&e), ts_buf_release(&d);
    }
    {
        struct ts_buf e = TS_BUF_INIT, d = TS_BUF_INIT;

        ts_cert_base64(bundle.cert_pem, strlen(bundle.cert_pem), &e);
        assert_int_equal(ts_cert_unbase64(e.ptr, e.len, &d), 0);
        assert_string_equal(d.ptr, bundle.cert_pem);
        assert_int_equal(ts_cert_unbase64("abc", 3, &d), TS_EINVAL);
        ts_buf_release(&e), ts_buf_release(&d);
    }
}

static void files(void **state)
{
    char dir[] = "/tmp/ts-cert-XXXXXX";
    struct ts_httpd_cert_bundle b, other;
    struct ts_cert_stamp st;
    struct ts_httpd_cert_options o;
    struct ts_err err = {0};
    struct stat sb;
    char path[256];

    (void)state;
    assert_non_null(mkdtemp(dir));
    ts_httpd_cert_bundle_init(&b);
    assert_int_equal(ts_cert_files_load(dir, &b, &st, &err), TS_EIO);
    assert_int_equal(ts_cert_files_write(dir, &bundle, &err), 0);
    snprintf(path, sizeof(path), "%s/tls.key", dir);
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0600);
    assert_int_equal(ts_cert_files_load(dir, &b, &st, &err), 0);
    assert_string_equal(b.cert_pem, bundle.cert_pem);
    assert_string_equal(b.ca_cert_pem, bundle.ca_cert_pem);
    assert_null(b.ca_key_pem);
    assert_int_equal(ts_cert_files_changed(dir, &st), 0);
    /* a new pair is noticed (new inode through rename) */
    ts_httpd_cert_options_init(&o, TS_CERT_DEFAULT_SERVICE, TS_WEBHOOK_DEFAULT_NAMESPACE);
    ts_httpd_cert_bundle_init(&other);
    assert_int_equal(ts_httpd_cert_generate(&o, NOW, &other, &err), 0);
    assert_int_equal(ts_cert_files_write(dir, &other, &err), 0);
    assert_int_equal(ts_cert_files_changed(dir, &st), 1);
    assert_int_equal(ts_cert_files_load(dir, &b, &st, &err), 0);
    assert_string_equal(b.cert_pem, other.cert_pem);
    assert_int_equal(ts_cert_files_changed(dir, &st), 0);
    /* a key that does not match is refused and the old bundle kept */
    snprintf(path, sizeof(path), "%s/tls.key", dir);
    {
        FILE *f = fopen(path, "w");

        fputs(bundle.key_pem, f);
        fclose(f);
    }
    assert_int_equal(ts_cert_files_changed(dir, &st), 1);
    assert_int_equal(ts_cert_files_load(dir, &b, &st, &err), TS_ETLS);
    assert_string_equal(b.cert_pem, other.cert_pem);
    ts_httpd_cert_bundle_release(&b), ts_httpd_cert_bundle_release(&other);
    for (const char *const *f = (const char *const[]){"tls.crt", "tls.key", "ca.crt", NULL}; *f;
         f++) {
        snprintf(path, sizeof(path), "%s/%s", dir, *f);
        unlink(path);
    }
    rmdir(dir);
}

static void certsrc(void **state)
{
    struct ts_certsrc_options o;
    struct ts_certsrc *gen = NULL, *mounted = NULL;
    struct ts_err err = {0};
    char dir[] = "/tmp/ts-certsrc-XXXXXX";
    int changed;
    const char *first;
    char path[256];

    (void)state;
    assert_non_null(mkdtemp(dir));
    ts_certsrc_options_init(&o);
    o.dir = dir;
    assert_int_equal(ts_certsrc_open(&o, NOW, &gen, &err), 0);
    first = ts_certsrc_bundle(gen)->cert_pem;
    assert_int_equal(ts_certsrc_tick(gen, NOW + 10 * DAY, &changed, &err), 0);
    assert_int_equal(changed, 0);
    /* the files source sees what the generator wrote */
    o.internal = 0;
    assert_int_equal(ts_certsrc_open(&o, NOW, &mounted, &err), 0);
    assert_string_equal(ts_certsrc_bundle(mounted)->cert_pem, first);
    assert_int_equal(ts_certsrc_tick(mounted, NOW, &changed, &err), 0);
    assert_int_equal(changed, 0);
    /* rotation 90 days before expiry writes new files ... */
    assert_int_equal(ts_certsrc_tick(gen, NOW + 280 * DAY, &changed, &err), 0);
    assert_int_equal(changed, 1);
    /* ... which the files source picks up */
    assert_int_equal(ts_certsrc_tick(mounted, NOW, &changed, &err), 0);
    assert_int_equal(changed, 1);
    assert_string_equal(ts_certsrc_bundle(mounted)->cert_pem, ts_certsrc_bundle(gen)->cert_pem);
    ts_certsrc_free(gen);
    ts_certsrc_free(mounted);
    o.dir = NULL;
    assert_int_equal(ts_certsrc_open(&o, NOW, &mounted, &err), TS_EINVAL);
    for (const char *const *f = (const char *const[]){"tls.crt", "tls.key", "ca.crt", NULL}; *f;
         f++) {
        snprintf(path, sizeof(path), "%s/%s", dir, *f);
        unlink(path);
    }
    rmdir(dir);
}

/* Replicas sharing the Secret: keep ours, adopt a valid other one,
 * replace an absent or unusable one. */
static void certsync_decide(void **state)
{
    const char *host = "turnstile-webhook-service.turnstile-system.svc";
    struct ts_httpd_cert_options o, other_svc;
    struct ts_httpd_cert_bundle other, wrong_host, no_ca_key, swapped;
    struct ts_err err = {0};
    struct {
        const char *name;
        const struct ts_httpd_cert_bundle *theirs;
        ts_time now;
        enum ts_certsync_action want;
    } cases[] = {
        {"no secret", NULL, NOW, TS_CERTSYNC_WRITE},
        {"ours", &bundle, NOW, TS_CERTSYNC_KEEP},
        {"another replica's", &other, NOW, TS_CERTSYNC_ADOPT},
        {"another's, due for rotation", &other, NOW + 300 * DAY, TS_CERTSYNC_WRITE},
        {"another's, not yet valid", &other, NOW - 2 * DAY, TS_CERTSYNC_WRITE},
        {"for another service", &wrong_host, NOW, TS_CERTSYNC_WRITE},
        {"without the CA key", &no_ca_key, NOW, TS_CERTSYNC_WRITE},
        {"key of another certificate", &swapped, NOW, TS_CERTSYNC_WRITE},
    };

    (void)state;
    ts_httpd_cert_options_init(&o, TS_CERT_DEFAULT_SERVICE, TS_WEBHOOK_DEFAULT_NAMESPACE);
    ts_httpd_cert_options_init(&other_svc, TS_CERT_DEFAULT_SERVICE, TS_WEBHOOK_DEFAULT_NAMESPACE);
    other_svc.service = "somebody-else";
    ts_httpd_cert_bundle_init(&other);
    ts_httpd_cert_bundle_init(&wrong_host);
    assert_int_equal(ts_httpd_cert_generate(&o, NOW, &other, &err), 0);
    assert_int_equal(ts_httpd_cert_generate(&other_svc, NOW, &wrong_host, &err), 0);
    no_ca_key = other;
    no_ca_key.ca_key_pem = NULL;
    swapped = other;
    swapped.key_pem = bundle.key_pem;
    for (size_t i = 0; i < N_ELEMS(cases); i++) {
        struct ts_err why = {0};
        enum ts_certsync_action got = ts_certsync_decide(
            &bundle, cases[i].theirs, host, cases[i].now, TS_HTTPD_CERT_LOOKAHEAD, &why);

        if (got != cases[i].want)
            fail_msg("%s: action %d, want %d (%s)", cases[i].name, got, cases[i].want, why.msg);
        if (got == TS_CERTSYNC_WRITE && !why.msg[0])
            fail_msg("%s: no reason given", cases[i].name);
    }
    ts_httpd_cert_bundle_release(&other);
    ts_httpd_cert_bundle_release(&wrong_host);
}

static void certsrc_adopt(void **state)
{
    struct ts_certsrc_options o;
    struct ts_certsrc *src = NULL, *mounted = NULL;
    struct ts_httpd_cert_bundle bad;
    struct ts_err err = {0};
    char dir[] = "/tmp/ts-adopt-XXXXXX";

    (void)state;
    assert_non_null(mkdtemp(dir));
    ts_certsrc_options_init(&o);
    o.dir = dir;
    assert_int_equal(ts_certsrc_open(&o, NOW, &src, &err), 0);
    assert_string_not_equal(ts_certsrc_bundle(src)->cert_pem, bundle.cert_pem);
    bad = bundle;
    bad.key_pem = ts_certsrc_bundle(src)->key_pem;
    assert_int_equal(ts_certsrc_adopt(src, &bad, &err), TS_ETLS);
    assert_int_equal(ts_certsrc_adopt(src, &bundle, &err), 0);
    assert_string_equal(ts_certsrc_bundle(src)->cert_pem, bundle.cert_pem);
    assert_string_equal(ts_certsrc_bundle(src)->ca_key_pem, bundle.ca_key_pem);
    /* written to the directory too, where a files source reads it */
    o.internal = 0;
    assert_int_equal(ts_certsrc_open(&o, NOW, &mounted, &err), 0);
    assert_string_equal(ts_certsrc_bundle(mounted)->cert_pem, bundle.cert_pem);
    assert_int_equal(ts_certsrc_adopt(mounted, &bundle, &err), TS_EINVAL);
    assert_string_equal(ts_certsrc_service(src), TS_CERT_DEFAULT_SERVICE);
    assert_true(ts_certsrc_lookahead(src) == TS_HTTPD_CERT_LOOKAHEAD);
    ts_certsrc_free(src);
    ts_certsrc_free(mounted);
    for (const char *const *f = (const char *const[]){"tls.crt", "tls.key", "ca.crt", NULL}; *f;
         f++) {
        char path[256];

        snprintf(path, sizeof(path), "%s/%s", dir, *f);
        unlink(path);
    }
    rmdir(dir);
}

/* --- webhook configurations ------------------------------------------------ */

static const cJSON *hook(const cJSON *cfg, const char *name)
{
    const cJSON *w;

    cJSON_ArrayForEach(w, cJSON_GetObjectItem(cfg, "webhooks"))
    {
        if (strcmp(ts_json_get_string(w, "name"), name) == 0)
            return w;
    }
    fail_msg("no webhook %s", name);
    return NULL;
}

static void configurations(void **state)
{
    struct ts_whconfig_options o;
    cJSON *m, *v;
    const cJSON *w, *x;
    struct ts_buf ca64 = TS_BUF_INIT;

    (void)state;
    ts_whconfig_options_init(&o);
    o.ca_pem = bundle.ca_cert_pem;
    m = ts_whconfig_mutating(&o);
    v = ts_whconfig_validating(&o);
    ts_cert_base64(bundle.ca_cert_pem, strlen(bundle.ca_cert_pem), &ca64);
    assert_string_equal(ts_json_get_string(m, "kind"), "MutatingWebhookConfiguration");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(m, "webhooks")), 17);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(v, "webhooks")), 20);
    cJSON_ArrayForEach(w, cJSON_GetObjectItem(v, "webhooks"))
    {
        assert_string_equal(ts_json_get_string(w, "failurePolicy"), "Fail");
        assert_string_equal(ts_json_get_string(w, "sideEffects"), "None");
        assert_string_equal(ts_json_get_string(w, "admissionReviewVersions[0]"), "v1");
        assert_string_equal(ts_json_get_string(w, "clientConfig.caBundle"), ca64.ptr);
        assert_string_equal(ts_json_get_string(w, "clientConfig.service.namespace"),
                            "turnstile-system");
        assert_true(ts_webhook_path_known(ts_json_get_string(w, "clientConfig.service.path")));
        assert_string_equal(ts_json_get_string(w, "rules[0].operations[1]"), "UPDATE");
    }
    x = hook(v, "vworkload.kb.io");
    assert_string_equal(ts_json_get_string(x, "rules[0].resources[1]"), "workloads/status");
    assert_string_equal(ts_json_get_string(x, "rules[0].apiVersions[0]"), "v1beta2");
    assert_null(ts_json_get(x, "namespaceSelector"));
    x = hook(m, "mrayjob.kb.io"); /* Kueue's path and resource */
    assert_string_equal(ts_json_get_string(x, "clientConfig.service.path"),
                        "/mutate-ray-io-v1-rayjob");
    assert_string_equal(ts_json_get_string(x, "rules[0].resources[0]"), "rayjobs");
    x = hook(v, "vraycluster.kb.io");
    assert_string_equal(ts_json_get_string(x, "clientConfig.service.path"),
                        "/validate-ray-io-v1-raycluster");
    assert_string_equal(ts_json_get_string(x, "rules[0].apiGroups[0]"), "ray.io");
    x = hook(m, "mjob.kb.io");
    assert_string_equal(ts_json_get_string(x, "clientConfig.service.path"), "/mutate-batch-v1-job");
    assert_int_equal(cJSON_GetArraySize(ts_json_get(x, "rules[0].operations")), 1);
    assert_string_equal(ts_json_get_string(x, "namespaceSelector.matchExpressions[0].operator"),
                        "NotIn");
    assert_string_equal(ts_json_get_string(x, "namespaceSelector.matchExpressions[0].values[1]"),
                        "turnstile-system");
    assert_string_equal(ts_json_get_string(x, "objectSelector.matchExpressions[0].key"),
                        "kueue.x-k8s.io/queue-name");
    assert_string_equal(ts_json_get_string(x, "objectSelector.matchExpressions[0].operator"),
                        "Exists");
    /* Pods: the core group (""), CREATE only, the same blast radius as jobs */
    x = hook(m, "mpod.kb.io");
    assert_string_equal(ts_json_get_string(x, "rules[0].apiGroups[0]"), "");
    assert_string_equal(ts_json_get_string(x, "rules[0].resources[0]"), "pods");
    assert_string_equal(ts_json_get_string(x, "objectSelector.matchExpressions[0].key"),
                        "kueue.x-k8s.io/queue-name");
    x = hook(v, "vpod.kb.io");
    assert_string_equal(ts_json_get_string(x, "clientConfig.service.path"), "/validate--v1-pod");
    cJSON_Delete(m);
    /* wide scope (annotation queue names): no objectSelector; local mode URL */
    o.wide_job_scope = 1;
    o.url = "https://127.0.0.1:9443";
    m = ts_whconfig_mutating(&o);
    x = hook(m, "mpytorchjob.kb.io");
    assert_null(ts_json_get(x, "objectSelector"));
    assert_non_null(ts_json_get(x, "namespaceSelector"));
    assert_string_equal(ts_json_get_string(x, "clientConfig.url"),
                        "https://127.0.0.1:9443/mutate-kubeflow-org-v1-pytorchjob");
    assert_null(ts_json_get(x, "clientConfig.service"));
    cJSON_Delete(m), cJSON_Delete(v);
    ts_buf_release(&ca64);
}

static cJSON *load_yaml(const char *path)
{
    struct ts_yaml_stream st = TS_YAML_STREAM_INIT;
    struct ts_err err = {0};
    cJSON *out;

    if (ts_yaml_decode_file(path, &st, &err))
        fail_msg("%s: %s", path, err.msg);
    out = ts_yaml_doc_take(&st.docs[0]);
    ts_yaml_stream_release(&st);
    return out;
}

/* The CRDs in crds/ get the bundle on their conversion webhook; CRDs
 * without one are left alone. */
static void inject_crds(void **state)
{
    cJSON *cq = load_yaml("crds/kueue.x-k8s.io_clusterqueues.yaml");
    cJSON *rf = load_yaml("crds/kueue.x-k8s.io_resourceflavors.yaml");
    struct ts_err err = {0};
    int changed;

    (void)state;
    assert_int_equal(ts_whconfig_inject(cq, bundle.ca_cert_pem, NULL, &changed, &err), 0);
    assert_int_equal(changed, 1);
    assert_non_null(ts_json_get_string(cq, "spec.conversion.webhook.clientConfig.caBundle"));
    assert_string_equal(ts_json_get_string(cq, "spec.conversion.webhook.clientConfig.service.path"),
                        "/convert");
    assert_int_equal(ts_whconfig_inject(cq, NULL, "https://127.0.0.1:9443", &changed, &err), 0);
    assert_string_equal(ts_json_get_string(cq, "spec.conversion.webhook.clientConfig.url"),
                        "https://127.0.0.1:9443/convert");
    assert_int_equal(ts_whconfig_inject(rf, bundle.ca_cert_pem, NULL, &changed, &err), 0);
    assert_int_equal(changed, 0);
    cJSON_Delete(cq), cJSON_Delete(rf);
}

/* config/webhook/manifests.yaml is what the builders produce, and
 * config/manager/config.yaml is a Configuration Turnstile decodes. */
static void manifests(void **state)
{
    struct ts_yaml_stream st = TS_YAML_STREAM_INIT;
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_whconfig_options o;
    struct ts_err err = {0};
    struct ts_config cfg;
    cJSON *want[2], *c;

    (void)state;
    ts_whconfig_options_init(&o);
    want[0] = ts_whconfig_mutating(&o);
    want[1] = ts_whconfig_validating(&o);
    if (ts_yaml_decode_file("config/webhook/manifests.yaml", &st, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(st.n, 2);
    for (size_t i = 0; i < 2; i++) {
        if (!ts_json_equal(st.docs[i].root, want[i]))
            fail_msg("config/webhook/manifests.yaml document %zu differs from whconfig.c", i);
        cJSON_Delete(want[i]);
    }
    ts_yaml_stream_release(&st);
    c = load_yaml("config/manager/config.yaml");
    ts_config_init(&cfg);
    ts_config_decode(c, &cfg, &errs);
    assert_int_equal(errs.n, 0);
    ts_config_release(&cfg);
    ts_field_errors_release(&errs);
    cJSON_Delete(c);
}

static void inject(void **state)
{
    struct ts_whconfig_options o;
    struct ts_err err = {0};
    struct ts_buf ca64 = TS_BUF_INIT;
    cJSON *v;
    int changed;

    (void)state;
    ts_whconfig_options_init(&o);
    v = ts_whconfig_validating(&o);
    ts_cert_base64(bundle.ca_cert_pem, strlen(bundle.ca_cert_pem), &ca64);
    assert_null(ts_json_get(v, "webhooks[0].clientConfig.caBundle"));
    assert_int_equal(ts_whconfig_inject(v, bundle.ca_cert_pem, NULL, &changed, &err), 0);
    assert_int_equal(changed, 1);
    assert_string_equal(ts_json_get_string(v, "webhooks[3].clientConfig.caBundle"), ca64.ptr);
    assert_int_equal(ts_whconfig_inject(v, bundle.ca_cert_pem, NULL, &changed, &err), 0);
    assert_int_equal(changed, 0);
    assert_int_equal(ts_whconfig_inject(v, NULL, "https://127.0.0.1:9443", &changed, &err), 0);
    assert_int_equal(changed, 1);
    assert_string_equal(ts_json_get_string(v, "webhooks[0].clientConfig.url"),
                        "https://127.0.0.1:9443/validate-kueue-x-k8s-io-v1beta2-clusterqueue");
    assert_string_equal(ts_json_get_string(v, "webhooks[0].clientConfig.caBundle"), ca64.ptr);
    /* a URL is re-pointed keeping its path */
    assert_int_equal(ts_whconfig_inject(v, NULL, "https://10.1.2.3:8443", &changed, &err), 0);
    assert_string_equal(ts_json_get_string(v, "webhooks[0].clientConfig.url"),
                        "https://10.1.2.3:8443/validate-kueue-x-k8s-io-v1beta2-clusterqueue");
    cJSON_Delete(v);
    v = wt_json("{'kind':'Namespace'}");
    assert_int_equal(ts_whconfig_inject(v, bundle.ca_cert_pem, NULL, NULL, &err), TS_EINVAL);
    cJSON_Delete(v);
    v = wt_json("{'kind':'ValidatingWebhookConfiguration','webhooks':[{'name':'x'}]}");
    assert_int_equal(ts_whconfig_inject(v, bundle.ca_cert_pem, NULL, NULL, &err), TS_EINVAL);
    assert_non_null(strstr(err.msg, "webhooks[0]"));
    cJSON_Delete(v);
    ts_buf_release(&ca64);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(secret),          cmocka_unit_test(base64),
        cmocka_unit_test(files),           cmocka_unit_test(certsrc),
        cmocka_unit_test(certsync_decide), cmocka_unit_test(certsrc_adopt),
        cmocka_unit_test(configurations),  cmocka_unit_test(inject),
        cmocka_unit_test(inject_crds),     cmocka_unit_test(manifests),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
