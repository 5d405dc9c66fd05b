/* Kueue's Configuration: the knobs Turnstile reads, their defaults per
 * version, and errors that name the field. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "api/config.h"
#include "yaml/yaml.h"

struct config_case {
    const char *name, *yaml;
    int wfpr;
    int64_t timeout_s;
    int block, fair_sharing;
    double qps;
    const char *error_field; /* NULL: no error */
};

static const struct config_case cases[] = {
    {"v1beta2 without waitForPodsReady: on, 30m",
     "apiVersion: config.kueue.x-k8s.io/v1beta2\n"
     "kind: Configuration\n",
     1, 1800, 0, 0, 300, NULL},
    {"v1beta2 block present",
     "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
     "waitForPodsReady: {timeout: 10m, blockAdmission: true}\n",
     1, 600, 1, 0, 300, NULL},
    {"v1beta2 compound duration",
     "apiVersion: config.kueue.x-k8s.io/v1beta2\n"
     "kind: Configuration\nwaitForPodsReady: {timeout: 1h30m}\n",
     1, 5400, 0, 0, 300, NULL},
    {"v1beta1 without the block: off, 5m",
     "apiVersion: config.kueue.x-k8s.io/v1beta1\n"
     "kind: Configuration\n",
     0, 300, 0, 0, 20, NULL},
    {"v1beta1 enable: blockAdmission follows",
     "apiVersion: config.kueue.x-k8s.io/v1beta1\n"
     "kind: Configuration\nwaitForPodsReady: {enable: true}\n",
     1, 300, 1, 0, 20, NULL},
    {"v1beta1 enable, blockAdmission false",
     "apiVersion: config.kueue.x-k8s.io/v1beta1\n"
     "kind: Configuration\nwaitForPodsReady: {enable: true, blockAdmission: false, timeout: 90s}\n",
     1, 90, 0, 0, 20, NULL},
    {"v1beta1 fairSharing enable",
     "apiVersion: config.kueue.x-k8s.io/v1beta1\n"
     "kind: Configuration\nfairSharing: {enable: true}\nclientConnection: {qps: 50, burst: 100}\n",
     0, 300, 0, 1, 50, NULL},
    {"v1beta2 fairSharing without preemptionStrategies is refused, as Kueue",
     "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nfairSharing: {}\n", 1, 1800,
     0, 1, 300, "fairSharing.preemptionStrategies"},
    {"v1beta2 fairSharing strategies in an order Kueue does not support",
     "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
     "fairSharing: {preemptionStrategies: [LessThanInitialShare, LessThanOrEqualToFinalShare]}\n",
     1, 1800, 0, 1, 300, "fairSharing.preemptionStrategies"},
    {"v1beta2 fairSharing with one strategy",
     "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
     "fairSharing: {preemptionStrategies: [LessThanInitialShare]}\n",
     1, 1800, 0, 1, 300, NULL},
    {"bad timeout names the field",
     "apiVersion: config.kueue.x-k8s.io/v1beta2\n"
     "kind: Configuration\nwaitForPodsReady: {timeout: soon}\n",
     1, 1800, 0, 0, 300, "waitForPodsReady.timeout"},
    {"negative timeout",
     "apiVersion: config.kueue.x-k8s.io/v1beta2\n"
     "kind: Configuration\nwaitForPodsReady: {timeout: \"-5m\"}\n",
     1, -300, 0, 0, 300, "waitForPodsReady.timeout"},
    {"wrong kind", "apiVersion: v1\nkind: ConfigMap\n", 1, 1800, 0, 0, 300, "kind"},
};

static void test_config_cases(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct config_case *t = &cases[i];
        struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
        struct ts_err e = {0};
        struct ts_config c;
        cJSON *obj = NULL;

        ts_config_init(&c);
        if (ts_yaml_decode_one(t->yaml, strlen(t->yaml), &obj, &e))
            fail_msg("%s: %s", t->name, e.msg);
        ts_config_decode(obj, &c, &errs);
        if (t->error_field) {
            if (errs.n != 1 || strcmp(errs.items[0].field, t->error_field))
                fail_msg("%s: want one error on %s, got %zu (%s)", t->name, t->error_field, errs.n,
                         errs.n ? errs.items[0].field : "-");
        } else if (errs.n) {
            fail_msg("%s: unexpected error on %s", t->name, errs.items[0].field);
        }
        if (c.wait_for_pods_ready != t->wfpr || c.pods_ready_timeout_s != t->timeout_s ||
            c.block_admission != t->block || c.fair_sharing != t->fair_sharing || c.qps != t->qps)
            fail_msg("%s: got wfpr %d timeout %lld block %d fs %d qps %g", t->name,
                     c.wait_for_pods_ready, (long long)c.pods_ready_timeout_s, c.block_admission,
                     c.fair_sharing, c.qps);
        ts_field_errors_release(&errs);
        ts_config_release(&c);
        cJSON_Delete(obj);
    }
}

static void test_requeuing_strategy(void **state)
{
    static const char yaml[] = "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
                               "waitForPodsReady:\n  requeuingStrategy: {backoffBaseSeconds: 10, "
                               "backoffMaxSeconds: 100}\n";
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_err e = {0};
    struct ts_config c;
    cJSON *obj = NULL;

    (void)state;
    ts_config_init(&c);
    assert_int_equal(c.backoff_base_s, 60); /* Kueue's defaults */
    assert_int_equal(c.backoff_max_s, 3600);
    assert_int_equal(ts_yaml_decode_one(yaml, strlen(yaml), &obj, &e), 0);
    ts_config_decode(obj, &c, &errs);
    assert_int_equal(errs.n, 0);
    assert_int_equal(c.backoff_base_s, 10);
    assert_int_equal(c.backoff_max_s, 100);
    assert_int_equal(c.pods_ready_timeout_s, 1800);
    ts_config_release(&c);
    cJSON_Delete(obj);
}

/* Decodes the Configuration printf(fmt, ...) into c (initialised here). */
static void decode_config(struct ts_config *c, struct ts_field_errors *errs, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void decode_config(struct ts_config *c, struct ts_field_errors *errs, const char *fmt, ...)
{
    struct ts_err e = {0};
    cJSON *obj = NULL;
    char yaml[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(yaml, sizeof(yaml), fmt, ap);
    va_end(ap);
    ts_config_init(c);
    assert_int_equal(ts_yaml_decode_one(yaml, strlen(yaml), &obj, &e), 0);
    ts_config_decode(obj, c, errs);
    cJSON_Delete(obj);
}

/* recoveryTimeout defaults to the timeout (whatever set it), and
 * backoffLimitCount is unset unless given; bad values name the field. */
static void test_recovery_and_limit(void **state)
{
    static const struct {
        const char *wfpr; /* the waitForPodsReady block, NULL = absent */
        const char *version;
        int64_t recovery_s;
        int limit_set;
        int32_t limit;
        const char *error_field;
    } rl[] = {
        {NULL, "v1beta2", 1800, 0, 0, NULL},
        {NULL, "v1beta1", 300, 0, 0, NULL},
        {"{timeout: 10m}", "v1beta2", 600, 0, 0, NULL},
        {"{timeout: 10m, recoveryTimeout: 2m}", "v1beta2", 120, 0, 0, NULL},
        {"{enable: true, recoveryTimeout: 90s}", "v1beta1", 90, 0, 0, NULL},
        {"{requeuingStrategy: {backoffLimitCount: 0}}", "v1beta2", 1800, 1, 0, NULL},
        {"{requeuingStrategy: {backoffLimitCount: 3}}", "v1beta2", 1800, 1, 3, NULL},
        {"{recoveryTimeout: later}", "v1beta2", 1800, 0, 0, "waitForPodsReady.recoveryTimeout"},
        {"{requeuingStrategy: {backoffLimitCount: -1}}", "v1beta2", 1800, 1, -1,
         "waitForPodsReady.requeuingStrategy.backoffLimitCount"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(rl) / sizeof(rl[0]); i++) {
        struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
        struct ts_config c;

        decode_config(
            &c, &errs, "apiVersion: config.kueue.x-k8s.io/%s\nkind: Configuration\n%s%s\n",
            rl[i].version, rl[i].wfpr ? "waitForPodsReady: " : "", rl[i].wfpr ? rl[i].wfpr : "");
        if (rl[i].error_field ? errs.n != 1 || strcmp(errs.items[0].field, rl[i].error_field)
                              : errs.n != 0)
            fail_msg("case %zu: %zu errors (%s)", i, errs.n, errs.n ? errs.items[0].field : "-");
        if ((!rl[i].error_field || rl[i].limit_set) &&
            (c.pods_ready_recovery_timeout_s != rl[i].recovery_s ||
             c.backoff_limit_count.set != rl[i].limit_set ||
             c.backoff_limit_count.v != rl[i].limit))
            fail_msg("case %zu: recovery %lld limit %d/%d", i,
                     (long long)c.pods_ready_recovery_timeout_s, c.backoff_limit_count.set,
                     c.backoff_limit_count.v);
        ts_field_errors_release(&errs);
        ts_config_release(&c);
    }
}

/* The manager's knobs: addresses and ports, leader election, Kueue's
 * metrics switches (off by default); a bad port names the field. */
static void test_manager_knobs(void **state)
{
    static const char yaml[] =
        "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
        "metrics:\n  bindAddress: ':9090'\n  enableClusterQueueResources: true\n"
        "  localQueueMetrics:\n    enable: true\n"
        "    localQueueSelector: {matchLabels: {team: a}}\n"
        "health: {healthProbeBindAddress: '127.0.0.1:9091'}\n"
        "webhook: {port: 9444}\n"
        "visibilityServer: {bindPort: 8083}\n"
        "leaderElection: {leaderElect: true, resourceNamespace: kueue-system, resourceName: "
        "lock}\n"
        "integrations: {labelKeysToCopy: [app, example.com/team]}\n";
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_strmap a = TS_STRMAP_INIT, b = TS_STRMAP_INIT;
    struct ts_config c;

    (void)state;
    ts_config_init(&c);
    assert_false(c.metrics_cq_resources);
    assert_false(c.metrics_lq);
    assert_null(c.metrics_bind_address);
    assert_false(c.leader_elect.set);
    decode_config(&c, &errs, "%s", yaml);
    assert_int_equal(errs.n, 0);
    assert_string_equal(c.metrics_bind_address, ":9090");
    assert_true(c.metrics_cq_resources);
    assert_true(c.metrics_lq);
    ts_strmap_set(&a, "team", "a");
    ts_strmap_set(&b, "team", "b");
    assert_true(ts_label_selector_matches(&c.metrics_lq_selector, &a));
    assert_false(ts_label_selector_matches(&c.metrics_lq_selector, &b));
    assert_string_equal(c.health_probe_bind_address, "127.0.0.1:9091");
    assert_int_equal(c.webhook_port, 9444);
    assert_int_equal(c.visibility_port, 8083);
    assert_true(c.leader_elect.set && c.leader_elect.v);
    assert_string_equal(c.lease_namespace, "kueue-system");
    assert_string_equal(c.lease_name, "lock");
    assert_int_equal(c.label_keys_to_copy.n, 2);
    assert_string_equal(c.label_keys_to_copy.items[1], "example.com/team");
    ts_config_release(&c);
    decode_config(&c, &errs,
                  "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
                  "webhook: {port: 70000}\n");
    assert_int_equal(errs.n, 1);
    assert_string_equal(errs.items[0].field, "webhook.port");
    ts_config_release(&c);
    ts_field_errors_release(&errs);
    decode_config(&c, &errs,
                  "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
                  "visibilityServer: {bindPort: 0}\n");
    assert_int_equal(errs.n, 1);
    assert_string_equal(errs.items[0].field, "visibilityServer.bindPort");
    ts_config_release(&c);
    ts_field_errors_release(&errs);
    ts_strmap_release(&a);
    ts_strmap_release(&b);
}

/* integrations.frameworks: want[i] says whether names[i] is managed. */
/* integrations.externalFrameworks: "Kind.version.group" matched against an
 * owner reference's apiVersion and kind. */
static void test_external_frameworks(void **state)
{
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_config c;

    (void)state;
    decode_config(
        &c, &errs,
        "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
        "integrations:\n  externalFrameworks: [AppWrapper.v1beta2.workload.codeflare.dev, "
        "Foo.v1]\n");
    assert_int_equal(errs.n, 0);
    assert_true(ts_config_external_framework(&c.external_frameworks,
                                             "workload.codeflare.dev/v1beta2", "AppWrapper"));
    assert_false(ts_config_external_framework(&c.external_frameworks,
                                              "workload.codeflare.dev/v1beta1", "AppWrapper"));
    assert_false(ts_config_external_framework(&c.external_frameworks, "batch/v1", "Job"));
    assert_true(ts_config_external_framework(&c.external_frameworks, "v1", "Foo")); /* core */
    assert_false(ts_config_external_framework(NULL, "v1", "Foo"));
    ts_config_release(&c);
}

static void test_integrations(void **state)
{
    static const char *const names[] = {
        "batch/job",
        "kubeflow.org/pytorchjob",
        "kubeflow.org/tfjob",
        "kubeflow.org/mpijob",
        "kubeflow.org/xgboostjob",
        "kubeflow.org/paddlejob",
        "kubeflow.org/jaxjob",
        "jobset.x-k8s.io/jobset",
        "pod",
        "deployment",
        "ray.io/rayjob",
        "ray.io/raycluster",
        "trainer.kubeflow.org/trainjob",
    };
    static const struct {
        const char *frameworks;
        const char *want;
    } fw[] = {
        {NULL, "1111111111111"},
        {"[batch/job]", "1000000000000"},
        {"[kubeflow.org/pytorchjob, kubeflow.org/tfjob]", "0110000000000"},
        {"[kubeflow.org/mpijob, ray.io/rayjob]", "0001000000100"},
        {"[kubeflow.org/xgboostjob, kubeflow.org/paddlejob]", "0000110000000"},
        {"[kubeflow.org/jaxjob, jobset.x-k8s.io/jobset]", "0000001100000"},
        {"[pod, ray.io/raycluster, ray.io/rayservice]", "0000000010010"},
        {"[deployment]", "0000000001000"},
        {"[trainer.kubeflow.org/trainjob]", "0000000000001"},
        {"[]", "0000000000000"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(fw) / sizeof(fw[0]); i++) {
        struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
        struct ts_config c;
        char got[14];

        decode_config(&c, &errs,
                      "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n%s%s\n",
                      fw[i].frameworks ? "integrations:\n  frameworks: " : "",
                      fw[i].frameworks ? fw[i].frameworks : "");
        assert_int_equal(errs.n, 0);
        for (size_t j = 0; j < 13; j++)
            got[j] = ts_config_framework_on(&c, names[j]) ? '1' : '0';
        got[13] = '\0';
        if (strcmp(got, fw[i].want))
            fail_msg("%s: managed %s, want %s", fw[i].frameworks ? fw[i].frameworks : "(absent)",
                     got, fw[i].want);
        ts_config_release(&c);
    }
}

/* featureGates: PartialAdmission and PriorityBoost act, others are kept
 * by name (to be told), a value that is not a boolean names the gate. */
static void test_feature_gates(void **state)
{
    static const struct {
        const char *gates;
        int partial, boost;
        const char *ignored; /* first ignored name, or NULL */
        const char *error;   /* field, or NULL */
    } rows[] = {
        {NULL, 1, 0, NULL, NULL},
        {"{PriorityBoost: true}", 1, 1, NULL, NULL},
        {"{PartialAdmission: false, PriorityBoost: false}", 0, 0, NULL, NULL},
        {"{TopologyAwareScheduling: true}", 1, 0, "TopologyAwareScheduling", NULL},
        {"{PriorityBoost: yes please}", 1, 0, NULL, "featureGates.PriorityBoost"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
        struct ts_config c;

        decode_config(&c, &errs,
                      "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n%s%s\n",
                      rows[i].gates ? "featureGates: " : "", rows[i].gates ? rows[i].gates : "");
        if (c.partial_admission != rows[i].partial || c.priority_boost != rows[i].boost)
            fail_msg("row %zu: partial %d boost %d", i, c.partial_admission, c.priority_boost);
        if (rows[i].ignored)
            assert_string_equal(c.feature_gates_ignored.items[0], rows[i].ignored);
        else
            assert_int_equal(c.feature_gates_ignored.n, 0);
        if (rows[i].error) {
            assert_int_equal(errs.n, 1);
            assert_string_equal(errs.items[0].field, rows[i].error);
        } else {
            assert_int_equal(errs.n, 0);
        }
        ts_field_errors_release(&errs);
        ts_config_release(&c);
    }
}

/* namespace and internalCertManagement (the webhook-only process and the
 * Lease take them where no flag says otherwise). */
static void test_namespace_and_certs(void **state)
{
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_config c;

    (void)state;
    decode_config(&c, &errs,
                  "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
                  "namespace: kueue-system\ninternalCertManagement: {enable: false, "
                  "webhookServiceName: svc, webhookSecretName: sec}\n%s",
                  "");
    assert_int_equal(errs.n, 0);
    assert_string_equal(c.namespace_, "kueue-system");
    assert_true(c.internal_certs.set);
    assert_false(c.internal_certs.v);
    assert_string_equal(c.webhook_service_name, "svc");
    assert_string_equal(c.webhook_secret_name, "sec");
    ts_config_release(&c);
    decode_config(&c, &errs, "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n%s",
                  "");
    assert_null(c.namespace_);
    assert_false(c.internal_certs.set);
    ts_config_release(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_config_cases),       cmocka_unit_test(test_requeuing_strategy),
        cmocka_unit_test(test_recovery_and_limit), cmocka_unit_test(test_manager_knobs),
        cmocka_unit_test(test_integrations),       cmocka_unit_test(test_external_frameworks),
        cmocka_unit_test(test_feature_gates),      cmocka_unit_test(test_namespace_and_certs),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
