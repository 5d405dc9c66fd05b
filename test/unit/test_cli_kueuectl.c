/* Tests for `kubectl kueue` (pkg/cli/kueuectl*.c), the pure parts: the
 * --node-taints, --tolerations and --node-labels parsers with kueuectl's
 * messages (cmd/kueuectl/app/create/create_resourceflavor_test.go), the
 * objects `create` sends, workload status, and the list tables with
 * kueuectl's columns and ages (list/list_*_printer.go). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/kueuectl.h"
#include "cli/kueuectl_int.h"
#include "json/json.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "yaml/yaml.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static char *compact(const cJSON *v)
{
    struct ts_buf b = TS_BUF_INIT;

    ts_json_print(v, TS_JSON_COMPACT, &b, NULL);
    return b.ptr;
}

static void check_parse(const char *name,
                        int (*fn)(const char *const *, size_t, cJSON **, struct ts_buf *),
                        const char *in, const char *want, const char *want_err)
{
    const char *items[4];
    size_t n = 0;
    char buf[256];
    struct ts_buf e = TS_BUF_INIT;
    cJSON *out = NULL;
    int rc;

    /* in: items separated by '|' */
    snprintf(buf, sizeof(buf), "%s", in);
    for (char *p = buf; p && n < 4; n++) {
        items[n] = p;
        p = strchr(p, '|');
        if (p)
            *p++ = '\0';
    }
    rc = fn(items, n, &out, &e);
    if (want_err) {
        if (rc == 0 || strcmp(e.ptr, want_err))
            fail_msg("%s: want error '%s', got rc %d '%s'", name, want_err, rc, e.ptr);
        assert_null(out);
        ts_buf_release(&e);
        return;
    }
    if (rc)
        fail_msg("%s: unexpected error '%s'", name, e.ptr);
    {
        char *got = compact(out);

        if (strcmp(got, want))
            fail_msg("%s: want %s got %s", name, want, got);
        free(got);
    }
    cJSON_Delete(out);
}

#define NAME_PART_MSG                                                                              \
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "  \
    "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used "     \
    "for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"

static void test_taints_table(void **state)
{
    static const struct {
        const char *name, *in, *want, *want_err;
    } cases[] = {
        {"key=value:effect", "key=value:NoSchedule",
         "[{\"key\":\"key\",\"value\":\"value\","
         "\"effect\":\"NoSchedule\"}]",
         NULL},
        {"key:effect, two", "a:NoExecute|b=c:PreferNoSchedule",
         "[{\"key\":\"a\",\"effect\":\"NoExecute\"},{\"key\":\"b\",\"value\":\"c\","
         "\"effect\":\"PreferNoSchedule\"}]",
         NULL},
        {"empty", "", NULL, "invalid taint spec"},
        {"no effect", "key=value", NULL, "invalid taint spec: key=value"},
        {"effect only", "NoSchedule", NULL, "invalid taint spec: NoSchedule"},
        {"two colons", "key=value:NoSchedule:NoSchedule", NULL,
         "invalid taint spec: key=value:NoSchedule:NoSchedule"},
        {"two equals", "key=value=value:NoSchedule", NULL,
         "invalid taint spec: key=value=value:NoSchedule"},
        {"bad effect", "key=value:Invalid", NULL,
         "invalid taint effect: Invalid, unsupported taint effect"},
        {"duplicate", "key=value:NoSchedule|key=other:NoSchedule", NULL,
         "duplicated taints with the same key and effect: {key other NoSchedule <nil>}"},
        {"bad key", "@=value:NoSchedule", NULL,
         "invalid taint spec: @=value:NoSchedule, " NAME_PART_MSG},
    };

    (void)state;
    for (size_t i = 0; i < COUNT(cases); i++)
        check_parse(cases[i].name, ts__kctl_parse_taints, cases[i].in, cases[i].want,
                    cases[i].want_err);
}

static void test_tolerations_table(void **state)
{
    static const struct {
        const char *name, *in, *want, *want_err;
    } cases[] = {
        {"key=value:effect", "key=value:NoSchedule",
         "[{\"key\":\"key\",\"operator\":\"Equal\",\"value\":\"value\",\"effect\":"
         "\"NoSchedule\"}]",
         NULL},
        {"key:effect", "key2:NoExecute",
         "[{\"key\":\"key2\",\"operator\":\"Exists\",\"effect\":\"NoExecute\"}]", NULL},
        {"key=value", "key3=value",
         "[{\"key\":\"key3\",\"operator\":\"Equal\",\"value\":"
         "\"value\"}]",
         NULL},
        {"key", "key4", "[{\"key\":\"key4\",\"operator\":\"Exists\"}]", NULL},
        {":effect", ":PreferNoSchedule",
         "[{\"operator\":\"Exists\",\"effect\":"
         "\"PreferNoSchedule\"}]",
         NULL},
        {"empty", "", NULL, "invalid toleration spec"},
        {"two colons", "key=value:NoSchedule:NoSchedule", NULL,
         "invalid toleration spec: key=value:NoSchedule:NoSchedule"},
        {"value without key", "=value:NoSchedule", NULL,
         "invalid toleration spec: =value:NoSchedule"},
        {"bad effect", "key:Invalid", NULL,
         "invalid taint effect: Invalid, unsupported taint effect"},
        {"bad value", "key=@:NoSchedule", NULL,
         "invalid toleration spec: key=@:NoSchedule, a valid label must be an empty string or "
         "consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
         "alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for "
         "validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"},
    };

    (void)state;
    for (size_t i = 0; i < COUNT(cases); i++)
        check_parse(cases[i].name, ts__kctl_parse_tolerations, cases[i].in, cases[i].want,
                    cases[i].want_err);
}

static int parse_node_labels(const char *const *items, size_t n, cJSON **out, struct ts_buf *err)
{
    return ts__kctl_parse_labels(items, n, "node-labels", out, err);
}

static void test_labels_table(void **state)
{
    static const struct {
        const char *name, *in, *want, *want_err;
    } cases[] = {
        {"two in one flag", "kubernetes.io/arch=arm64,kubernetes.io/os=linux",
         "{\"kubernetes.io/arch\":\"arm64\",\"kubernetes.io/os\":\"linux\"}", NULL},
        {"repeated flags merge, the later wins", "a=1|b=2,a=3", "{\"b\":\"2\",\"a\":\"3\"}", NULL},
        {"empty value", "a=", "{\"a\":\"\"}", NULL},
        {"no equals", "x", NULL,
         "invalid argument \"x\" for \"--node-labels\" flag: x must be formatted as key=value"},
    };

    (void)state;
    for (size_t i = 0; i < COUNT(cases); i++)
        check_parse(cases[i].name, parse_node_labels, cases[i].in, cases[i].want,
                    cases[i].want_err);
}

static char *yaml_of(const cJSON *v)
{
    struct ts_buf b = TS_BUF_INIT;

    ts_yaml_encode(v, TS_YAML_SORT_KEYS, &b, NULL);
    return b.ptr;
}

/* What kueuectl's typed objects print with --dry-run=client -o yaml. */
static void test_objects(void **state)
{
    cJSON *lq = ts__kctl_new_localqueue("lq", "team-a", "cq");
    cJSON *labels = cJSON_Parse("{\"a\":\"b\"}"), *taints = cJSON_CreateArray();
    cJSON *rf = ts__kctl_new_resourceflavor("rf", labels, taints, NULL);
    cJSON *empty = ts__kctl_new_resourceflavor("rf", NULL, NULL, NULL);
    char *y;

    (void)state;
    y = yaml_of(lq);
    assert_string_equal(y, "apiVersion: kueue.x-k8s.io/v1beta2\n"
                           "kind: LocalQueue\n"
                           "metadata:\n"
                           "  name: lq\n"
                           "  namespace: team-a\n"
                           "spec:\n"
                           "  clusterQueue: cq\n"
                           "status:\n"
                           "  admittedWorkloads: 0\n"
                           "  pendingWorkloads: 0\n"
                           "  reservingWorkloads: 0\n");
    free(y);
    y = yaml_of(rf);
    assert_string_equal(y, "apiVersion: kueue.x-k8s.io/v1beta2\n"
                           "kind: ResourceFlavor\n"
                           "metadata:\n"
                           "  name: rf\n"
                           "spec:\n"
                           "  nodeLabels:\n"
                           "    a: b\n");
    free(y);
    y = yaml_of(empty);
    assert_string_equal(y, "apiVersion: kueue.x-k8s.io/v1beta2\n"
                           "kind: ResourceFlavor\n"
                           "metadata:\n"
                           "  name: rf\n"
                           "spec: {}\n");
    free(y);
    cJSON_Delete(lq);
    cJSON_Delete(rf);
    cJSON_Delete(empty);
}

static void test_wl_status_table(void **state)
{
    static const struct {
        const char *conds, *want;
    } cases[] = {
        {"[]", "pending"},
        {"[{\"type\":\"QuotaReserved\",\"status\":\"False\"}]", "pending"},
        {"[{\"type\":\"QuotaReserved\",\"status\":\"True\"}]", "quotaReserved"},
        {"[{\"type\":\"QuotaReserved\",\"status\":\"True\"},{\"type\":\"Admitted\","
         "\"status\":\"True\"}]",
         "admitted"},
        {"[{\"type\":\"Admitted\",\"status\":\"True\"},{\"type\":\"Finished\",\"status\":"
         "\"True\"}]",
         "finished"},
    };

    (void)state;
    for (size_t i = 0; i < COUNT(cases); i++) {
        char doc[512];
        cJSON *wl;

        snprintf(doc, sizeof(doc), "{\"status\":{\"conditions\":%s}}", cases[i].conds);
        wl = cJSON_Parse(doc);
        if (strcmp(ts__kctl_wl_status(wl), cases[i].want))
            fail_msg("case %zu: want %s got %s", i, cases[i].want, ts__kctl_wl_status(wl));
        cJSON_Delete(wl);
    }
}

/* Prints a table of `objs` (a JSON array) into a string. */
static char *table(enum ts__kctl_kind kind, const char *objs, int with_ns, const char *lq_cq,
                   const char *pos, ts_time now)
{
    cJSON *arr = cJSON_Parse(objs), *map = lq_cq ? cJSON_Parse(lq_cq) : NULL,
          *p = pos ? cJSON_Parse(pos) : NULL, *it;
    struct ts__kctl_table t;
    char *text = NULL;
    size_t n, len = 0;
    const char *const *h = ts__kctl_headers(kind, &n);
    FILE *f = open_memstream(&text, &len);

    assert_non_null(arr);
    ts__kctl_table_init(&t, h, n, with_ns);
    cJSON_ArrayForEach(it, arr)
    {
        ts__kctl_table_add(&t, kind, it, map, p, now);
    }
    ts__kctl_table_print(&t, f);
    fclose(f);
    ts__kctl_table_release(&t);
    cJSON_Delete(arr);
    cJSON_Delete(map);
    cJSON_Delete(p);
    return text;
}

#define T0 "2026-01-01T00:00:00Z"

static void test_tables(void **state)
{
    ts_time now;
    static const struct {
        const char *name;
        enum ts__kctl_kind kind;
        int with_ns;
        const char *objs, *lq_cq, *pos, *want;
    } cases[] = {
        /* list_workload_test.go's first case, with its 60m age */
        {"workload pending, ClusterQueue through its LocalQueue", TS__KCTL_WL, 0,
         "[{\"metadata\":{\"name\":\"wl1\",\"namespace\":\"ns\",\"creationTimestamp\":"
         "\"2025-12-31T23:00:00Z\",\"ownerReferences\":[{\"name\":\"j1\"}]},"
         "\"spec\":{\"queueName\":\"lq1\"}}]",
         "{\"ns/lq1\":\"cq1\"}", NULL,
         "NAME   JOB TYPE   JOB NAME   LOCALQUEUE   CLUSTERQUEUE   STATUS    POSITION IN QUEUE   "
         "EXEC TIME   AGE\n"
         "wl1               j1         lq1          cq1            PENDING                        "
         "           60m\n"},
        {"workload admitted then finished, one pending with a position, -A", TS__KCTL_WL, 1,
         "[{\"metadata\":{\"name\":\"job-a-1\",\"namespace\":\"team-a\",\"creationTimestamp\":"
         "\"2025-12-31T23:58:00Z\",\"ownerReferences\":[{\"apiVersion\":\"batch/v1\",\"kind\":"
         "\"Job\",\"name\":\"a\"}]},\"spec\":{\"queueName\":\"lq\"},\"status\":{\"admission\":"
         "{\"clusterQueue\":\"cq\"},\"conditions\":[{\"type\":\"Admitted\",\"status\":\"True\","
         "\"lastTransitionTime\":\"2025-12-31T23:58:05Z\"},{\"type\":\"Finished\",\"status\":"
         "\"True\",\"lastTransitionTime\":\"2025-12-31T23:59:15Z\"}]}},"
         "{\"metadata\":{\"name\":\"w2\",\"namespace\":\"team-a\",\"creationTimestamp\":"
         "\"2025-12-29T00:00:00Z\",\"ownerReferences\":[{\"apiVersion\":"
         "\"kubeflow.org/v1\",\"kind\":\"PyTorchJob\",\"name\":\"p\"}]},"
         "\"spec\":{\"queueName\":\"lq\"}}]",
         "{\"team-a/lq\":\"cq\"}", "{\"team-a/w2\":0}",
         "NAMESPACE   NAME      JOB TYPE                  JOB NAME   LOCALQUEUE   CLUSTERQUEUE   "
         "STATUS     POSITION IN QUEUE   EXEC TIME   AGE\n"
         "team-a      job-a-1   job.batch                 a          lq           cq             "
         "FINISHED                       70s         2m\n"
         "team-a      w2        pytorchjob.kubeflow....   p          lq           cq             "
         "PENDING    0                               3d\n"},
        {"clusterqueues: cohort, counters, Active", TS__KCTL_CQ, 0,
         "[{\"metadata\":{\"name\":\"cq\",\"creationTimestamp\":\"2025-12-31T20:30:00Z\"},"
         "\"spec\":{\"cohortName\":\"all\"},\"status\":{\"pendingWorkloads\":3,"
         "\"admittedWorkloads\":12,\"conditions\":[{\"type\":\"Active\",\"status\":\"True\"}]}},"
         "{\"metadata\":{\"name\":\"stopped\",\"creationTimestamp\":\"2025-12-31T23:59:59Z\"}}]",
         NULL, NULL,
         "NAME      COHORT   PENDING WORKLOADS   ADMITTED WORKLOADS   ACTIVE   AGE\n"
         "cq        all      3                   12                   true     3h30m\n"
         "stopped            0                   0                    false    1s\n"},
        {"localqueues with NAMESPACE", TS__KCTL_LQ, 1,
         "[{\"metadata\":{\"name\":\"lq\",\"namespace\":\"team-a\",\"creationTimestamp\":"
         "\"2024-06-01T00:00:00Z\"},\"spec\":{\"clusterQueue\":\"cq\"},\"status\":"
         "{\"pendingWorkloads\":1,\"admittedWorkloads\":2}}]",
         NULL, NULL,
         "NAMESPACE   NAME   CLUSTERQUEUE   PENDING WORKLOADS   ADMITTED WORKLOADS   AGE\n"
         "team-a      lq     cq             1                   2                    579d\n"},
        {"resourceflavors: labels sorted", TS__KCTL_RF, 0,
         "[{\"metadata\":{\"name\":\"rf\",\"creationTimestamp\":\"2025-12-31T23:55:00Z\"},"
         "\"spec\":{\"nodeLabels\":{\"z\":\"1\",\"a\":\"2\"}}},"
         "{\"metadata\":{\"name\":\"plain\",\"creationTimestamp\":\"bad\"}}]",
         NULL, NULL,
         "NAME    NODE LABELS   AGE\n"
         "rf      a=2, z=1      5m\n"
         "plain                 <unknown>\n"},
        {"no rows: no header", TS__KCTL_CQ, 0, "[]", NULL, NULL, ""},
    };

    (void)state;
    assert_int_equal(ts_time_parse(T0, &now), 0);
    for (size_t i = 0; i < COUNT(cases); i++) {
        char *got = table(cases[i].kind, cases[i].objs, cases[i].with_ns, cases[i].lq_cq,
                          cases[i].pos, now);

        if (strcmp(got, cases[i].want))
            fail_msg("%s:\nwant:\n%sgot:\n%s", cases[i].name, cases[i].want, got);
        free(got);
    }
}

static void test_argv0(void **state)
{
    (void)state;
    assert_true(ts_cli_kueuectl_argv0("kubectl-kueue"));
    assert_true(ts_cli_kueuectl_argv0("/usr/local/bin/kubectl-kueue"));
    assert_true(ts_cli_kueuectl_argv0("./kueuectl"));
    assert_false(ts_cli_kueuectl_argv0("turnstilectl"));
    assert_false(ts_cli_kueuectl_argv0("/x/kubectl-kueue/turnstilectl"));
    assert_false(ts_cli_kueuectl_argv0(NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_taints_table),    cmocka_unit_test(test_tolerations_table),
        cmocka_unit_test(test_labels_table),    cmocka_unit_test(test_objects),
        cmocka_unit_test(test_wl_status_table), cmocka_unit_test(test_tables),
        cmocka_unit_test(test_argv0),
    };

    ts_alloc_init();
    return cmocka_run_group_tests_name("cli_kueuectl", tests, NULL, NULL);
}
