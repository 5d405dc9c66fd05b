/* The fields Turnstile accepts but does not honour yet: the table of
 * pkg/api/unhonoured.c against docs/compatibility.md (its "not yet" rows
 * are exactly the table), the CRD schemas of crds/ against the document
 * (every field path has a row), and which fields an object sets. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/unhonoured.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "json/json.h"
#include "yaml/yaml.h"

#define DOC_PATH "docs/compatibility.md"
#define CRD_DIR  "crds/"

static const char *const crd_files[] = {
    "kueue.x-k8s.io_admissionchecks.yaml",
    "kueue.x-k8s.io_clusterqueues.yaml",
    "kueue.x-k8s.io_cohorts.yaml",
    "kueue.x-k8s.io_localqueues.yaml",
    "kueue.x-k8s.io_resourceflavors.yaml",
    "kueue.x-k8s.io_topologies.yaml",
    "kueue.x-k8s.io_workloads.yaml",
    "kueue.x-k8s.io_workloadpriorityclasses.yaml",
    "kueue.x-k8s.io_provisioningrequestconfigs.yaml",
};
#define N_CRDS (sizeof(crd_files) / sizeof(crd_files[0]))

static const char *const states[] = {"honoured", "not yet", "not applicable", "converted"};

/* One row of a table of docs/compatibility.md: "Kind path" and state. */
struct row {
    char key[256];
    char state[32];
};

struct doc {
    struct row *rows;
    size_t n;
};

static void trim(char *s)
{
    size_t n = strlen(s), i = 0;

    while (n && (s[n - 1] == ' ' || s[n - 1] == '`'))
        s[--n] = 0;
    while (s[i] == ' ' || s[i] == '`')
        i++;
    memmove(s, s + i, n - i + 1);
}

/* Reads "| `path` | state | notes |" rows under "## Kind" headings. */
static void doc_load(struct doc *d)
{
    FILE *f = fopen(DOC_PATH, "r");
    char line[2048], kind[64] = "";

    memset(d, 0, sizeof(*d));
    if (!f)
        fail_msg("%s: cannot open (tests run from the repository root)", DOC_PATH);
    while (fgets(line, sizeof(line), f)) {
        char *bar1, *bar2, *bar3;
        struct row *r;

        if (!strncmp(line, "## ", 3)) {
            snprintf(kind, sizeof(kind), "%.*s", (int)strcspn(line + 3, " \n"), line + 3);
            continue;
        }
        if (strncmp(line, "| `", 3) != 0)
            continue;
        bar1 = line;
        bar2 = strchr(bar1 + 1, '|');
        bar3 = bar2 ? strchr(bar2 + 1, '|') : NULL;
        if (!bar2 || !bar3)
            fail_msg("%s: a row without three columns: %s", DOC_PATH, line);
        *bar2 = *bar3 = 0;
        d->rows = ts_xrealloc(d->rows, (d->n + 1) * sizeof(*d->rows));
        r = &d->rows[d->n++];
        trim(bar1 + 1);
        trim(bar2 + 1);
        snprintf(r->key, sizeof(r->key), "%.60s %.190s", kind, bar1 + 1);
        snprintf(r->state, sizeof(r->state), "%.31s", bar2 + 1);
    }
    fclose(f);
}

static const struct row *doc_find(const struct doc *d, const char *key)
{
    for (size_t i = 0; i < d->n; i++) {
        if (!strcmp(d->rows[i].key, key))
            return &d->rows[i];
    }
    return NULL;
}

/* Every row has a known state and appears once; the "not yet" rows, in
 * order, are the table. */
static void test_doc_matches_table(void **state)
{
    size_t n, k = 0;
    const struct ts_unhonoured_field *t = ts_unhonoured_table(&n);
    struct doc d;

    (void)state;
    doc_load(&d);
    assert_true(d.n > 100);
    for (size_t i = 0; i < d.n; i++) {
        size_t s = 0;
        char want[256];

        while (s < 4 && strcmp(d.rows[i].state, states[s]))
            s++;
        if (s == 4)
            fail_msg("%s: row %s: unknown state \"%s\"", DOC_PATH, d.rows[i].key, d.rows[i].state);
        if (doc_find(&d, d.rows[i].key) != &d.rows[i])
            fail_msg("%s: row %s appears twice", DOC_PATH, d.rows[i].key);
        if (strcmp(d.rows[i].state, "not yet"))
            continue;
        if (k == n)
            fail_msg("%s: \"not yet\" row %s is not in pkg/api/unhonoured.c", DOC_PATH,
                     d.rows[i].key);
        snprintf(want, sizeof(want), "%s %s", t[k].kind, t[k].path);
        if (strcmp(want, d.rows[i].key))
            fail_msg("%s: \"not yet\" row %s, but pkg/api/unhonoured.c has %s next", DOC_PATH,
                     d.rows[i].key, want);
        k++;
    }
    if (k != n)
        fail_msg("pkg/api/unhonoured.c: %s %s has no \"not yet\" row in %s", t[k].kind, t[k].path,
                 DOC_PATH);
    free(d.rows);
}

/* --- every CRD field has a row ------------------------------------------ */

struct walk {
    const struct doc *doc;
    const char *kind;
    struct ts_buf missing;
    size_t leaves;
};

static void leaf(struct walk *w, const char *path)
{
    char key[512];

    w->leaves++;
    snprintf(key, sizeof(key), "%s %s", w->kind, path);
    if (!doc_find(w->doc, key) && (!w->missing.len || !strstr(w->missing.ptr, key)))
        ts_buf_addf(&w->missing, "  %s\n", key);
}

/* Objects with properties and lists of such objects are descended into;
 * anything else (scalars, scalar lists, maps, free-form objects) is a
 * leaf, as the document lists it. */
static void walk(struct walk *w, const cJSON *s, const char *path)
{
    const cJSON *props = cJSON_GetObjectItemCaseSensitive(s, "properties");
    const cJSON *items = cJSON_GetObjectItemCaseSensitive(s, "items");
    const cJSON *p;
    char sub[512];

    if (cJSON_IsObject(items) && cJSON_IsObject(cJSON_GetObjectItem(items, "properties"))) {
        snprintf(sub, sizeof(sub), "%s[]", path);
        walk(w, items, sub);
        return;
    }
    if (!cJSON_IsObject(props) || !props->child) {
        leaf(w, path);
        return;
    }
    cJSON_ArrayForEach(p, props)
    {
        snprintf(sub, sizeof(sub), "%s%s%s", path, *path ? "." : "", p->string);
        walk(w, p, sub);
    }
}

static cJSON *load_crd(const char *file)
{
    struct ts_yaml_stream s = TS_YAML_STREAM_INIT;
    struct ts_err err = {0};
    char path[256];
    cJSON *root;

    snprintf(path, sizeof(path), "%s%s", CRD_DIR, file);
    if (ts_yaml_decode_file(path, &s, &err))
        fail_msg("%s: %s", path, err.msg);
    assert_int_equal(s.n, 1);
    root = ts_yaml_doc_take(&s.docs[0]);
    ts_yaml_stream_release(&s);
    return root;
}

/* Every version's schema, every field a user sets (all but apiVersion,
 * kind, metadata and status), recursively, has a row. */
static void test_crd_fields_in_doc(void **state)
{
    struct doc d;
    struct walk w = {&d, NULL, TS_BUF_INIT, 0};

    (void)state;
    doc_load(&d);
    for (size_t i = 0; i < N_CRDS; i++) {
        cJSON *crd = load_crd(crd_files[i]);
        const cJSON *v, *p;

        w.kind = ts_json_get_string(crd, "spec.names.kind");
        assert_non_null(w.kind);
        cJSON_ArrayForEach(v, ts_json_get(crd, "spec.versions"))
        {
            cJSON_ArrayForEach(p, ts_json_get(v, "schema.openAPIV3Schema.properties"))
            {
                if (strcmp(p->string, "apiVersion") && strcmp(p->string, "kind") &&
                    strcmp(p->string, "metadata") && strcmp(p->string, "status"))
                    walk(&w, p, p->string);
            }
        }
        cJSON_Delete(crd);
    }
    if (w.missing.len)
        fail_msg("fields of crds/ without a row in %s:\n%s", DOC_PATH, w.missing.ptr);
    assert_true(w.leaves > 100);
    ts_buf_release(&w.missing);
    free(d.rows);
}

/* --- which fields an object sets ---------------------------------------- */

/* {"apiVersion": av, "kind": kind} with `path` set to "x" (no entry's
 * benign value), one item in each list on the way. */
static cJSON *object_with(const char *av, const char *kind, const char *path)
{
    cJSON *root = cJSON_CreateObject(), *cur = root;
    char seg[128];

    cJSON_AddStringToObject(root, "apiVersion", av);
    cJSON_AddStringToObject(root, "kind", kind);
    while (path) {
        const char *dot = strchr(path, '.');
        size_t n = dot ? (size_t)(dot - path) : strlen(path);
        int each = n > 2 && !memcmp(path + n - 2, "[]", 2);
        cJSON *next;

        snprintf(seg, sizeof(seg), "%.*s", (int)(n - (each ? 2 : 0)), path);
        if (!dot && !each) {
            cJSON_AddStringToObject(cur, seg, "x");
            break;
        }
        next = cJSON_CreateObject();
        if (each) {
            cJSON *list = cJSON_AddArrayToObject(cur, seg);

            if (!dot) {
                cJSON_AddItemToArray(list, cJSON_CreateString("x"));
                cJSON_Delete(next);
                break;
            }
            cJSON_AddItemToArray(list, next);
        } else {
            cJSON_AddItemToObject(cur, seg, next);
        }
        cur = next;
        path = dot ? dot + 1 : NULL;
    }
    return root;
}

static const char *av_of(const char *kind)
{
    return strcmp(kind, TS_UNHONOURED_CONFIG) ? "kueue.x-k8s.io/v1beta2"
                                              : "config.kueue.x-k8s.io/v1beta2";
}

static size_t report(const cJSON *obj, int config, struct ts_strlist *out)
{
    return config ? ts_unhonoured_config_fields(obj, out) : ts_unhonoured_fields(obj, out);
}

/* Each entry alone is reported, by the function of its kind only. */
static void test_each_entry_reported(void **state)
{
    size_t n;
    const struct ts_unhonoured_field *t = ts_unhonoured_table(&n);

    (void)state;
    for (size_t i = 0; i < n; i++) {
        int config = !strcmp(t[i].kind, TS_UNHONOURED_CONFIG);
        cJSON *obj = object_with(av_of(t[i].kind), t[i].kind, t[i].path);
        struct ts_strlist got = TS_STRLIST_INIT, other = TS_STRLIST_INIT;

        if (report(obj, config, &got) != 1 || got.n != 1 || strcmp(got.items[0], t[i].path))
            fail_msg("%s %s set: reported %zu paths, first \"%s\"", t[i].kind, t[i].path, got.n,
                     got.n ? got.items[0] : "");
        assert_int_equal(report(obj, !config, &other), 0);
        ts_strlist_release(&got);
        ts_strlist_release(&other);
        cJSON_Delete(obj);
    }
}

static const struct set_case {
    const char *name;
    const char *yaml;
    const char *want; /* paths joined by ",", "" for none */
} set_cases[] = {
    {"honoured ClusterQueue fields: nothing",
     "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: cq}\n"
     "spec:\n  cohortName: c\n  namespaceSelector: {}\n  stopPolicy: HoldAndDrain\n"
     "  queueingStrategy: StrictFIFO\n  fairSharing: {weight: 2}\n"
     "  preemption: {withinClusterQueue: LowerPriority}\n"
     "  resourceGroups:\n  - coveredResources: [cpu]\n"
     "    flavors: [{name: f, resources: [{name: cpu, nominalQuota: 1, borrowingLimit: 1}]}]\n",
     ""},
    {"admission checks are honoured, scope is not",
     "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: cq}\n"
     "spec:\n  admissionChecksStrategy:\n    admissionChecks:\n    - name: a\n"
     "    - name: b\n      onFlavors: [f]\n"
     "  admissionScope: {admissionMode: UsageBasedAdmissionFairSharing}\n",
     "spec.admissionScope.admissionMode"},
    {"v1beta1 admissionChecks: converted, honoured",
     "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: {name: cq}\n"
     "spec: {cohort: c, admissionChecks: [a]}\n",
     ""},
    {"what Turnstile does anyway is not reported",
     "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: cq}\n"
     "spec: {admissionScope: {admissionMode: NoAdmissionFairSharing}}\n",
     ""},
    {"empty values ask for nothing",
     "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: cq}\n"
     "spec: {admissionChecksStrategy: {admissionChecks: []}, admissionScope: {}}\n",
     ""},
    {"Workload: TAS",
     "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: w, namespace: n}\n"
     "spec:\n  queueName: q\n  maximumExecutionTimeSeconds: 60\n  podSets:\n"
     "  - {name: a, count: 1, template: {spec: {containers: []}}}\n"
     "  - name: b\n    count: 1\n    template: {spec: {containers: []}}\n"
     "    topologyRequest: {required: rack, podIndexLabel: idx}\n",
     "spec.podSets[].topologyRequest.required,spec.podSets[].topologyRequest.podIndexLabel"},
    {"v1beta1 Workload with a priority class: nothing",
     "apiVersion: kueue.x-k8s.io/v1beta1\nkind: Workload\nmetadata: {name: w, namespace: n}\n"
     "spec: {queueName: q, priorityClassName: p, priorityClassSource: kueue.x-k8s.io/"
     "workloadpriorityclass, podSets: [{name: main, count: 1, template: {spec: {}}}]}\n",
     ""},
    {"ResourceFlavor topologyName",
     "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: f}\n"
     "spec: {nodeLabels: {a: b}, topologyName: t}\n",
     "spec.topologyName"},
    {"v1beta1 AdmissionCheck: retryDelayMinutes is not applicable",
     "apiVersion: kueue.x-k8s.io/v1beta1\nkind: AdmissionCheck\nmetadata: {name: ac}\n"
     "spec: {controllerName: c, retryDelayMinutes: 15}\n",
     ""},
    {"not a Kueue object",
     "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec: {topologyName: t}\n", ""},
    {"a Configuration is not a Kueue object",
     "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nnamespace: n\n", ""},
};

static const struct set_case config_cases[] = {
    {"shipped configuration: everything in it is honoured",
     "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nnamespace: s\n"
     "health: {healthProbeBindAddress: ':8081'}\nmetrics: {bindAddress: ':8443'}\n"
     "webhook: {port: 9443}\nleaderElection: {leaderElect: true, resourceName: r}\n"
     "clientConnection: {qps: 50, burst: 100}\n"
     "internalCertManagement: {enable: true, webhookServiceName: s, webhookSecretName: c}\n"
     "manageJobsWithoutQueueName: false\nintegrations: {frameworks: [batch/job]}\n",
     ""},
    {"v1beta1 resources excludes and transforms are honoured; DRA mappings are not",
     "apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\n"
     "resources:\n  excludeResourcePrefixes: [example.com/]\n"
     "  transformations:\n  - input: nvidia.com/mig-1g.5gb\n    strategy: Replace\n"
     "    multiplyBy: nvidia.com/gpu\n    outputs: {example.com/accelerator-memory: 5Gi}\n"
     "  deviceClassMappings: [{name: gpu, deviceClassNames: [gpu.example.com]}]\n",
     "resources.deviceClassMappings[].name,resources.deviceClassMappings[].deviceClassNames"},
    {"requeuing by eviction time is what Turnstile does",
     "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
     "waitForPodsReady: {timeout: 5m, requeuingStrategy: {timestamp: Eviction}}\n",
     ""},
    {"requeuing by creation time is not",
     "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
     "waitForPodsReady: {requeuingStrategy: {timestamp: Creation, backoffLimitCount: 3}}\n",
     "waitForPodsReady.requeuingStrategy.timestamp"},
    {"featureGates Turnstile acts on, and multiKueue",
     "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
     "featureGates: {PartialAdmission: false, PriorityBoost: true}\nmultiKueue: {gcInterval: 1m}\n",
     "multiKueue.gcInterval"},
    {"another feature gate",
     "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
     "featureGates: {PriorityBoost: true, TopologyAwareScheduling: true}\n",
     "featureGates"},
    {"not a Configuration",
     "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nnamespace: n\n", ""},
};

static void check_cases(const struct set_case *cases, size_t n, int config)
{
    for (size_t i = 0; i < n; i++) {
        struct ts_yaml_stream s = TS_YAML_STREAM_INIT;
        struct ts_strlist got = TS_STRLIST_INIT;
        struct ts_buf joined = TS_BUF_INIT;
        struct ts_err err = {0};
        size_t added;

        if (ts_yaml_decode(cases[i].yaml, strlen(cases[i].yaml), cases[i].name, &s, &err) ||
            s.n != 1)
            fail_msg("%s: %s", cases[i].name, err.msg);
        added = report(s.docs[0].root, config, &got);
        for (size_t k = 0; k < got.n; k++)
            ts_buf_addf(&joined, "%s%s", k ? "," : "", got.items[k]);
        if (strcmp(joined.ptr, cases[i].want) || added != got.n)
            fail_msg("%s: got \"%s\", want \"%s\"", cases[i].name, joined.ptr, cases[i].want);
        ts_buf_release(&joined);
        ts_strlist_release(&got);
        ts_yaml_stream_release(&s);
    }
}

static void test_object_cases(void **state)
{
    (void)state;
    check_cases(set_cases, sizeof(set_cases) / sizeof(set_cases[0]), 0);
}

static void test_config_cases(void **state)
{
    (void)state;
    check_cases(config_cases, sizeof(config_cases) / sizeof(config_cases[0]), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_doc_matches_table),   cmocka_unit_test(test_crd_fields_in_doc),
        cmocka_unit_test(test_each_entry_reported), cmocka_unit_test(test_object_cases),
        cmocka_unit_test(test_config_cases),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
