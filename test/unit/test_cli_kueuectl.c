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

/* create clusterqueue: kueuectl v0.17's objects and messages (each case
 * checked against kueuectl itself with --dry-run=client -o json). */
static void test_clusterqueue_table(void **state)
{
    static const struct {
        const char *name, *nominal, *borrowing, *lending, *ns_sel, *want, *want_err;
    } cases[] = {
        {"defaults", NULL, NULL, NULL, NULL,
         "{\"kind\":\"ClusterQueue\",\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"metadata\":"
         "{\"name\":\"cq\"},\"spec\":{\"queueingStrategy\":\"BestEffortFIFO\","
         "\"namespaceSelector\":{},\"preemption\":{\"reclaimWithinCohort\":\"Never\","
         "\"withinClusterQueue\":\"Never\"}},\"status\":{\"pendingWorkloads\":0,"
         "\"reservingWorkloads\":0,\"admittedWorkloads\":0}}",
         NULL},
        {"two flavors in one group, limits merged by flavor, canonical quantities",
         "a:cpu=9;memory=36Gi,b:cpu=18;memory=72Gi", "a:cpu=1000m;memory=1024Mi",
         "b:memory=2Gi;cpu=1e3", "x=y",
         "[{\"coveredResources\":[\"cpu\",\"memory\"],\"flavors\":[{\"name\":\"a\",\"resources\":"
         "[{\"name\":\"cpu\",\"nominalQuota\":\"9\",\"borrowingLimit\":\"1\"},{\"name\":"
         "\"memory\",\"nominalQuota\":\"36Gi\",\"borrowingLimit\":\"1Gi\"}]},{\"name\":\"b\","
         "\"resources\":[{\"name\":\"cpu\",\"nominalQuota\":\"18\",\"lendingLimit\":\"1e3\"},"
         "{\"name\":\"memory\",\"nominalQuota\":\"72Gi\",\"lendingLimit\":\"2Gi\"}]}]}]"
         "|{\"matchLabels\":{\"x\":\"y\"}}",
         NULL},
        {"disjoint resources: two groups", "a:cpu=1,b:memory=3", NULL, NULL, NULL,
         "[{\"coveredResources\":[\"cpu\"],\"flavors\":[{\"name\":\"a\",\"resources\":[{\"name\":"
         "\"cpu\",\"nominalQuota\":\"1\"}]}]},{\"coveredResources\":[\"memory\"],\"flavors\":[{"
         "\"name\":\"b\",\"resources\":[{\"name\":\"memory\",\"nominalQuota\":\"3\"}]}]}]|{}",
         NULL},
        {"a limit alone: nominal 0, then the later nominal", NULL, "a:cpu=3", NULL, NULL,
         "[{\"coveredResources\":[\"cpu\"],\"flavors\":[{\"name\":\"a\",\"resources\":[{\"name\":"
         "\"cpu\",\"nominalQuota\":\"0\",\"borrowingLimit\":\"3\"}]}]}]|{}",
         NULL},
        {"the same flavor twice: the first quota wins", "a:cpu=1,a:cpu=2", NULL, NULL, NULL,
         "[{\"coveredResources\":[\"cpu\"],\"flavors\":[{\"name\":\"a\",\"resources\":[{\"name\":"
         "\"cpu\",\"nominalQuota\":\"1\"}]}]}]|{}",
         NULL},
        {"a flavor whose resources differ", "a:cpu=1;memory=2,a:cpu=2", NULL, NULL, NULL, NULL,
         "invalid flavor"},
        {"a group inside another (substring check)", "a:cpu=1;memory=2,b:cpu=3", NULL, NULL, NULL,
         NULL, "invalid resource group"},
        {"upper-case flavor", "A:cpu=1", NULL, NULL, NULL, NULL, "invalid resources specification"},
        {"a fraction is not \\w", "a:cpu=1.5", NULL, NULL, NULL, NULL,
         "invalid resources specification"},
        {"a word that is no quantity", "a:cpu=abc", NULL, NULL, NULL, NULL,
         "invalid resource quota"},
        {"a trailing ';' is an empty quota", "a:cpu=1;", NULL, NULL, NULL, NULL,
         "invalid resource quota"},
        {"no resources", "a:", NULL, NULL, NULL, NULL, "invalid resources specification"},
        {"bad lending limit after good quotas", "a:cpu=1", NULL, "a:cpu=x", NULL, NULL,
         "invalid resource quota"},
        {"namespace selector without '='", NULL, NULL, NULL, "x", NULL,
         "invalid argument \"x\" for \"--namespace-selector\" flag: x must be formatted as "
         "key=value"},
    };

    (void)state;
    for (size_t i = 0; i < COUNT(cases); i++) {
        struct ts__kctl_cq_opts o = {.name = "cq"};
        struct ts_buf e = TS_BUF_INIT;
        cJSON *cq = NULL;
        char *got;
        int rc;

        o.nominal = &cases[i].nominal, o.n_nominal = cases[i].nominal != NULL;
        o.borrowing = &cases[i].borrowing, o.n_borrowing = cases[i].borrowing != NULL;
        o.lending = &cases[i].lending, o.n_lending = cases[i].lending != NULL;
        o.ns_selector = &cases[i].ns_sel, o.n_ns_selector = cases[i].ns_sel != NULL;
        rc = ts__kctl_new_clusterqueue(&o, &cq, &e);
        if (cases[i].want_err) {
            if (!rc || strcmp(e.ptr, cases[i].want_err))
                fail_msg("%s: want error '%s', got rc %d '%s'", cases[i].name, cases[i].want_err,
                         rc, e.ptr);
            assert_null(cq);
            ts_buf_release(&e);
            continue;
        }
        if (rc)
            fail_msg("%s: unexpected error '%s'", cases[i].name, e.ptr);
        if (!strncmp(cases[i].want, "{\"kind\"", 7)) {
            got = compact(cq);
        } else {
            char *g = compact(ts_json_get(cq, "spec.resourceGroups"));
            char *sel = compact(ts_json_get(cq, "spec.namespaceSelector"));
            struct ts_buf b = TS_BUF_INIT;

            ts_buf_addf(&b, "%s|%s", g, sel);
            free(g), free(sel);
            got = ts_buf_take(&b);
        }
        if (strcmp(got, cases[i].want))
            fail_msg("%s:\nwant %s\ngot  %s", cases[i].name, cases[i].want, got);
        free(got);
        cJSON_Delete(cq);
        ts_buf_release(&e);
    }
}

/* The options kueuectl fills in when a flag is given empty: left out. */
static void test_clusterqueue_flags(void **state)
{
    struct ts__kctl_cq_opts o = {.name = "cq",
                                 .cohort = "co",
                                 .queuing_strategy = "StrictFIFO",
                                 .reclaim = "",
                                 .within_cq = "LowerPriority"};
    cJSON *cq = NULL;
    char *got;

    (void)state;
    assert_int_equal(ts__kctl_new_clusterqueue(&o, &cq, NULL), 0);
    got = compact(ts_json_get(cq, "spec"));
    assert_string_equal(got, "{\"cohortName\":\"co\",\"queueingStrategy\":\"StrictFIFO\","
                             "\"namespaceSelector\":{},\"preemption\":{\"withinClusterQueue\":"
                             "\"LowerPriority\"}}");
    free(got);
    cJSON_Delete(cq);
}

static void test_guess_resource_table(void **state)
{
    static const struct {
        const char *kind, *want;
    } cases[] = {
        {"Job", "jobs"},          {"PyTorchJob", "pytorchjobs"}, {"Pod", "pods"},
        {"Policy", "policies"},   {"Gateway", "gateways"},       {"Ingress", "ingresses"},
        {"Mailbox", "mailboxes"}, {"Patch", "patches"},          {"", ""},
    };
    char buf[64];

    (void)state;
    for (size_t i = 0; i < COUNT(cases); i++)
        if (strcmp(ts__kctl_guess_resource(cases[i].kind, buf, sizeof(buf)), cases[i].want))
            fail_msg("%s: want %s got %s", cases[i].kind, cases[i].want, buf);
}

/* delete_workload.go's confirmation: one entry per Workload with owners,
 * the entries joined by an empty line. */
static void test_delete_prompt(void **state)
{
    cJSON *wls = cJSON_Parse("[{\"metadata\":{\"name\":\"w1\",\"namespace\":\"ns\"}},"
                             "{\"metadata\":{\"name\":\"w2\",\"namespace\":\"ns\"}},"
                             "{\"metadata\":{\"name\":\"w3\",\"namespace\":\"ns\"}}]");
    cJSON *own = cJSON_Parse("[[\"jobs.batch/a\"],[],[\"jobsets.jobset.x-k8s.io/b\","
                             "\"pods/c\"]]");
    cJSON *none = cJSON_Parse("[[],[],[]]");
    char *p;

    (void)state;
    p = ts__kctl_delete_prompt(wls, own);
    assert_string_equal(p, "This operation will also delete:\n"
                           "  - jobs.batch/a associated with the ns/w1 workload\n"
                           "\n"
                           "  - jobsets.jobset.x-k8s.io/b, pods/c associated with the ns/w3 "
                           "workload\n");
    free(p);
    p = ts__kctl_delete_prompt(wls, none);
    assert_string_equal(p, "");
    free(p);
    cJSON_Delete(wls), cJSON_Delete(own), cJSON_Delete(none);
}

/* kubectl's pod printer (printPod) on the states a Job's pods go through. */
static void test_pod_columns_table(void **state)
{
    static const struct {
        const char *name, *pod, *ready, *status, *restarts;
    } cases[] = {
        {"pending, no statuses",
         "{\"spec\":{\"containers\":[{}]},\"status\":{\"phase\":"
         "\"Pending\"}}",
         "0/1", "Pending", "0"},
        {"gated",
         "{\"spec\":{\"containers\":[{}]},\"status\":{\"phase\":\"Pending\","
         "\"conditions\":[{\"type\":\"PodScheduled\",\"status\":\"False\",\"reason\":"
         "\"SchedulingGated\"}]}}",
         "0/1", "SchedulingGated", "0"},
        {"running and ready, one of two",
         "{\"spec\":{\"containers\":[{},{}]},\"status\":{"
         "\"phase\":\"Running\",\"containerStatuses\":[{"
         "\"ready\":true,\"state\":{\"running\":{}}},{"
         "\"ready\":false,\"state\":{\"waiting\":{\"reason\":"
         "\"ContainerCreating\"}}}]}}",
         "1/2", "ContainerCreating", "0"},
        {"completed",
         "{\"spec\":{\"containers\":[{}]},\"status\":{\"phase\":\"Succeeded\","
         "\"containerStatuses\":[{\"state\":{\"terminated\":{\"reason\":"
         "\"Completed\",\"exitCode\":0}}}]}}",
         "0/1", "Completed", "0"},
        {"killed by a signal, restarted",
         "{\"spec\":{\"containers\":[{}]},\"status\":{\"phase\":"
         "\"Running\",\"containerStatuses\":[{"
         "\"restartCount\":2,\"lastState\":{\"terminated\":{"
         "\"finishedAt\":\"2025-12-31T23:55:00Z\"}},\"state\":{"
         "\"terminated\":{\"signal\":9}}}]}}",
         "0/1", "Signal:9", "2 (5m ago)"},
        {"init container waiting",
         "{\"spec\":{\"initContainers\":[{},{}],\"containers\":[{}]},"
         "\"status\":{\"phase\":\"Pending\",\"initContainerStatuses\":"
         "[{\"state\":{\"terminated\":{\"exitCode\":0}}},{\"state\":{"
         "\"running\":{}}}]}}",
         "0/1", "Init:1/2", "0"},
        {"terminating",
         "{\"metadata\":{\"deletionTimestamp\":\"2026-01-01T00:00:00Z\"},"
         "\"spec\":{\"containers\":[{}]},\"status\":{\"phase\":\"Running\"}}",
         "0/1", "Terminating", "0"},
    };
    ts_time now;

    (void)state;
    assert_int_equal(ts_time_parse(T0, &now), 0);
    for (size_t i = 0; i < COUNT(cases); i++) {
        cJSON *pod = cJSON_Parse(cases[i].pod);
        char cells[7][64];

        assert_non_null(pod);
        ts__kctl_pod_columns(pod, now, 1, cells);
        if (strcmp(cells[0], cases[i].ready) || strcmp(cells[1], cases[i].status) ||
            strcmp(cells[2], cases[i].restarts))
            fail_msg("%s: want %s %s %s got %s %s %s", cases[i].name, cases[i].ready,
                     cases[i].status, cases[i].restarts, cells[0], cells[1], cells[2]);
        assert_string_equal(cells[3], "<none>");
        cJSON_Delete(pod);
    }
}

static void test_pod_selector_table(void **state)
{
    static const struct {
        const char *kind, *obj, *want;
    } cases[] = {
        {"Job", "{\"metadata\":{\"name\":\"j\"}}", "batch.kubernetes.io/job-name=j"},
        {"JobSet", "{\"metadata\":{\"name\":\"s\"}}", "jobset.sigs.k8s.io/jobset-name=s"},
        {"PyTorchJob", "{\"metadata\":{\"name\":\"p\"}}",
         "training.kubeflow.org/job-name=p,training.kubeflow.org/operator-name="
         "pytorchjob-controller"},
        {"MPIJob", "{\"metadata\":{\"name\":\"m\"}}",
         "training.kubeflow.org/job-name=m,training.kubeflow.org/operator-name=mpi-operator"},
        {"Pod",
         "{\"metadata\":{\"name\":\"p\",\"labels\":{\"kueue.x-k8s.io/pod-group-name\":"
         "\"g\"}}}",
         "kueue.x-k8s.io/pod-group-name=g"},
        {"Deployment", "{}", NULL},
    };

    (void)state;
    for (size_t i = 0; i < COUNT(cases); i++) {
        cJSON *obj = cJSON_Parse(cases[i].obj);
        char sel[256] = "";
        int rc = ts__kctl_pod_selector(cases[i].kind, obj, sel, sizeof(sel));

        if (!cases[i].want)
            assert_int_equal(rc, -1);
        else if (rc || strcmp(sel, cases[i].want))
            fail_msg("%s: want %s got %s", cases[i].kind, cases[i].want, sel);
        cJSON_Delete(obj);
    }
}

/* __complete's answers that need no server, as kueuectl's. */
static char *complete(const char *const *words, size_t n, int desc)
{
    struct ts__kctl k;
    char *text = NULL, *etext = NULL;
    size_t len = 0, elen = 0;
    char *argv[8];

    memset(&k, 0, sizeof(k));
    for (size_t i = 0; i < n; i++)
        argv[i] = (char *)(uintptr_t)words[i];
    k.out = open_memstream(&text, &len);
    k.err = open_memstream(&etext, &elen);
    ts__kctl_complete(&k, (int)n, argv, desc);
    fclose(k.out);
    fclose(k.err);
    free(etext);
    return text;
}

static void test_complete_table(void **state)
{
    static const struct {
        const char *words[4];
        size_t n;
        int desc;
        const char *want;
    } cases[] = {
        {{"li"}, 1, 1, "list\tDisplay resources\n:4\n"},
        {{"list", ""}, 2, 0, "clusterqueue\nlocalqueue\npods\nresourceflavor\nworkload\n:4\n"},
        {{"create", "c"}, 2, 1, "clusterqueue\tCreates a clusterqueue\n:4\n"},
        {{"delete", "w"},
         2,
         1,
         "workload\tDelete the given Workload and its corresponding Job\n:4\n"},
        {{"get", "r"},
         2,
         1,
         "resourceflavor\tPass-through \"get resourceflavor\" to kubectl\n:4\n"},
        {{"completion", "z"}, 2, 0, "zsh\n:4\n"},
        {{"list", "workload", "--st"}, 3, 0, "--status\n:4\n"},
        {{"create", "cq", "x", "--nom"}, 4, 0, "--nominal-quota\n:4\n"},
        {{"create", "cq", "x", ""}, 4, 0, ":0\n"},
    };

    (void)state;
    for (size_t i = 0; i < COUNT(cases); i++) {
        char *got = complete(cases[i].words, cases[i].n, cases[i].desc);

        if (strcmp(got, cases[i].want))
            fail_msg("case %zu: want\n%sgot\n%s", i, cases[i].want, got);
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
    assert_int_equal(ts_cli_kueuectl_argv0("/bin/kubectl_complete-kueue"), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_taints_table),
        cmocka_unit_test(test_tolerations_table),
        cmocka_unit_test(test_labels_table),
        cmocka_unit_test(test_objects),
        cmocka_unit_test(test_wl_status_table),
        cmocka_unit_test(test_tables),
        cmocka_unit_test(test_argv0),
        cmocka_unit_test(test_clusterqueue_table),
        cmocka_unit_test(test_clusterqueue_flags),
        cmocka_unit_test(test_guess_resource_table),
        cmocka_unit_test(test_delete_prompt),
        cmocka_unit_test(test_pod_columns_table),
        cmocka_unit_test(test_pod_selector_table),
        cmocka_unit_test(test_complete_table),
    };

    ts_alloc_init();
    return cmocka_run_group_tests_name("cli_kueuectl", tests, NULL, NULL);
}
