/*
 * The CRDs in crds/ against Kueue's contract and against the C types in pkg/api,
 * so that schema and C code cannot drift apart:
 *
 *  1. names, scope, versions, conversion and printer columns of every CRD
 *     match the tables below (Kueue's values);
 *  2. the fully populated v1beta2 examples (test/data/api), decoded and
 *     re-encoded by the C code, validate strictly against the v1beta2
 *     schema: a field the C code writes can never be pruned or rejected;
 *  3. an object carrying every property of the schema (cs_generate()) goes
 *     through the C code (v1beta1: conversion up, decode, encode,
 *     conversion down) and every property comes back: the C decoder knows
 *     each schema field (the few known gaps are listed, and the list must
 *     stay exact);
 *  4. every `default:` of the schema equals what the C decoder fills in
 *     for the absent field;
 *  5. the examples converted down with ts_convert_kueue() validate against
 *     the v1beta1 schema;
 *  and every kueue.x-k8s.io object of ../shared/samples validates against
 *  the schema of its version.  The validator is crd_schema_test.h.
 *
 *  Over the 800-line budget on purpose: the checks share the kind tables,
 *  the fixture and the C pipeline; split, those would be duplicated.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <glob.h>
#include <stdlib.h>
#include <string.h>

#include "api/clusterqueue.h"
#include "api/cohort.h"
#include "api/convert.h"
#include "api/localqueue.h"
#include "api/resourceflavor.h"
#include "api/workload.h"
#include "api/workloadpriorityclass.h"
#include "crd_schema_test.h"
#include "json/json.h"
#include "util/alloc.h"
#include "yaml/yaml.h"

#define N_ELEMS(a)          (sizeof(a) / sizeof((a)[0]))
#define CRD_DIR             "crds/"
#define DATA                "test/data/api/"
#define V1BETA1             "v1beta1"
#define V1BETA2             "v1beta2"
#define DEPRECATION_WARNING "This version is deprecated. Use v1beta2 instead."
#define WEBHOOK_SERVICE     "turnstile-webhook-service"
#define WEBHOOK_NAMESPACE   "turnstile-system"

static const char *const versions[] = {V1BETA1, V1BETA2};

/* --- the C codecs ------------------------------------------------------------ */

typedef cJSON *(*round_trip_fn)(const cJSON *in, struct ts_field_errors *errs);

/* rt_<pfx>(): decode a v1beta2 object with the C decoder, encode it again. */
#define ROUND_TRIP(pfx, type)                                                                      \
    static cJSON *rt_##pfx(const cJSON *in, struct ts_field_errors *errs)                          \
    {                                                                                              \
        struct ts_dec d;                                                                           \
        struct type x;                                                                             \
        cJSON *out;                                                                                \
                                                                                                   \
        ts_dec_init(&d, errs);                                                                     \
        ts_##pfx##_init(&x);                                                                       \
        ts_##pfx##_decode(&d, in, &x);                                                             \
        out = ts_##pfx##_encode(&x);                                                               \
        ts_##pfx##_release(&x);                                                                    \
        return out;                                                                                \
    }

ROUND_TRIP(cluster_queue, ts_cluster_queue)
ROUND_TRIP(cohort, ts_cohort)
ROUND_TRIP(local_queue, ts_local_queue)
ROUND_TRIP(resource_flavor, ts_resource_flavor)
ROUND_TRIP(workload, ts_workload)
ROUND_TRIP(workload_priority_class, ts_workload_priority_class)

/* --- what Kueue has (its config/components/crd) --------------------------- */

static const struct kind {
    const char *kind, *plural, *singular, *scope;
    const char *short_names; /* in Kueue's order, space-separated */
    int status;              /* status subresource */
    int webhook;             /* conversion through /convert (else None) */
    round_trip_fn rt;        /* NULL: no C type for this kind */
    const char *example;     /* fully populated v1beta2 object */
} kinds[] = {
    {"AdmissionCheck", "admissionchecks", "admissioncheck", "Cluster", "ac", 1, 0, NULL, NULL},
    {"ClusterQueue", "clusterqueues", "clusterqueue", "Cluster", "cq", 1, 1, rt_cluster_queue,
     DATA "clusterqueue-full.json"},
    {"Cohort", "cohorts", "cohort", "Cluster", "co", 1, 1, rt_cohort, DATA "cohort-full.json"},
    {"LocalQueue", "localqueues", "localqueue", "Namespaced", "queue queues lq", 1, 1,
     rt_local_queue, DATA "localqueue-full.json"},
    {"ProvisioningRequestConfig", "provisioningrequestconfigs", "provisioningrequestconfig",
     "Cluster", "", 0, 0, NULL, NULL},
    {"ResourceFlavor", "resourceflavors", "resourceflavor", "Cluster", "flavor flavors rf", 0, 0,
     rt_resource_flavor, DATA "resourceflavor-full.json"},
    {"Topology", "topologies", "topology", "Cluster", "topo", 0, 0, NULL, NULL},
    {"Workload", "workloads", "workload", "Namespaced", "kwl kueueworkload kueueworkloads", 1, 1,
     rt_workload, DATA "workload-full.json"},
    {"WorkloadPriorityClass", "workloadpriorityclasses", "workloadpriorityclass", "Cluster", "wpc",
     0, 0, rt_workload_priority_class, DATA "workloadpriorityclass.json"},
};

#define N_KINDS N_ELEMS(kinds)

/* additionalPrinterColumns, in order; version NULL = both versions. */
static const struct column {
    const char *kind, *version, *name, *type, *json_path;
    int priority;
} columns[] = {
    {"ClusterQueue", V1BETA1, "Cohort", "string", ".spec.cohort", 0},
    {"ClusterQueue", V1BETA2, "Cohort", "string", ".spec.cohortName", 0},
    {"ClusterQueue", NULL, "Strategy", "string", ".spec.queueingStrategy", 1},
    {"ClusterQueue", NULL, "Pending Workloads", "integer", ".status.pendingWorkloads", 0},
    {"ClusterQueue", NULL, "Admitted Workloads", "integer", ".status.admittedWorkloads", 1},
    {"LocalQueue", NULL, "ClusterQueue", "string", ".spec.clusterQueue", 0},
    {"LocalQueue", NULL, "Pending Workloads", "integer", ".status.pendingWorkloads", 0},
    {"LocalQueue", NULL, "Admitted Workloads", "integer", ".status.admittedWorkloads", 0},
    {"Workload", NULL, "Queue", "string", ".spec.queueName", 0},
    {"Workload", NULL, "Reserved in", "string", ".status.admission.clusterQueue", 0},
    {"Workload", NULL, "Admitted", "string", ".status.conditions[?(@.type=='Admitted')].status", 0},
    {"Workload", NULL, "Finished", "string", ".status.conditions[?(@.type=='Finished')].status", 0},
    {"Workload", NULL, "Age", "date", ".metadata.creationTimestamp", 0},
    {"WorkloadPriorityClass", NULL, "Value", "integer", ".value", 0},
};

/* Schema properties the C code does not bring back (check 3).  Each entry
 * must still be missing; a fixed gap fails the test until it is removed.
 * version NULL = both versions. */
static const struct gap {
    const char *kind, *version, *path, *why;
} gaps[] = {
    {"ResourceFlavor", NULL, "spec.nodeTaints[0].timeAdded",
     "struct ts_taint has no timeAdded; Kueue's schema has it (core/v1 Taint)"},
    {"ClusterQueue", V1BETA1, "spec.admissionChecks",
     "folded into admissionChecksStrategy by the conversion, as Kueue does"},
    {"ClusterQueue", V1BETA1, "status.pendingWorkloadsStatus",
     "dead since Kueue v0.14, dropped by the conversion, as Kueue does"},
};

/* Values the schema allows but the C decoder refuses, as Kubernetes itself
 * does outside the schema: used instead of cs_generate()'s in checks 3, 4.
 * Paths are relative to the object; version NULL = both versions. */
static const struct hint {
    const char *kind, *version, *path, *json;
} hints[] = {
    /* metav1.LabelSelector's operator is a plain string in every CRD */
    {"ClusterQueue", NULL, "spec.namespaceSelector.matchExpressions[0].operator", "\"In\""},
};

/* --- fixture: the parsed CRDs ------------------------------------------------- */

struct fixture {
    cJSON *crd[N_KINDS];
};

static char *crd_file(const struct kind *k)
{
    struct ts_buf b = TS_BUF_INIT;

    ts_buf_addf(&b, "%skueue.x-k8s.io_%s.yaml", CRD_DIR, k->plural);
    return ts_buf_take(&b);
}

/* The only document of a YAML (or JSON) file.  Ownership: caller deletes. */
static cJSON *load_yaml(const char *path)
{
    struct ts_yaml_stream s = TS_YAML_STREAM_INIT;
    struct ts_err err = {0};
    cJSON *root;

    if (ts_yaml_decode_file(path, &s, &err))
        fail_msg("%s: %s", path, err.msg);
    if (s.n != 1)
        fail_msg("%s: %zu documents, want 1", path, s.n);
    root = ts_yaml_doc_take(&s.docs[0]);
    ts_yaml_stream_release(&s);
    return root;
}

static int setup(void **state)
{
    struct fixture *f = ts_xcalloc(1, sizeof(*f));

    for (size_t i = 0; i < N_KINDS; i++) {
        char *path = crd_file(&kinds[i]);

        f->crd[i] = load_yaml(path);
        free(path);
    }
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;

    for (size_t i = 0; i < N_KINDS; i++)
        cJSON_Delete(f->crd[i]);
    free(f);
    return 0;
}

static const struct kind *kind_of(const char *name)
{
    for (size_t i = 0; i < N_KINDS; i++) {
        if (strcmp(kinds[i].kind, name) == 0)
            return &kinds[i];
    }
    return NULL;
}

static const cJSON *crd_of(void **state, const struct kind *k)
{
    return ((struct fixture *)*state)->crd[k - kinds];
}

static const cJSON *version_of(const cJSON *crd, const char *version)
{
    const cJSON *vs = ts_json_get(crd, "spec.versions");
    const cJSON *v;

    cJSON_ArrayForEach(v, vs)
    {
        if (cs_streq(cs_str(v, "name"), version))
            return v;
    }
    return NULL;
}

static const cJSON *schema_of(void **state, const struct kind *k, const char *version)
{
    const cJSON *s = ts_json_get(version_of(crd_of(state, k), version), "schema.openAPIV3Schema");

    if (!s)
        fail_msg("%s %s: no openAPIV3Schema", k->kind, version);
    return s;
}

/* --- helpers ------------------------------------------------------------------ */

static char *field_errors_text(const struct ts_field_errors *errs)
{
    struct ts_buf b = TS_BUF_INIT;

    for (size_t i = 0; i < errs->n; i++) {
        ts_field_error_format(&errs->items[i], &b);
        ts_buf_addc(&b, '\n');
    }
    return ts_buf_take(&b);
}

/* Fails with `what` and the problems when errs is not empty. */
static void assert_no_problems(const char *what, struct ts_buf *errs)
{
    if (errs->len)
        fail_msg("%s:\n%s", what, errs->ptr);
    ts_buf_release(errs);
}

static void validate(const cJSON *schema, const cJSON *obj, const char *what)
{
    struct ts_buf errs = TS_BUF_INIT;

    cs_validate(schema, obj, "", &errs);
    assert_no_problems(what, &errs);
}

/* The C round trip of a v1beta2 object; decode errors fail the test.
 * Ownership: caller deletes. */
static cJSON *round_trip(const struct kind *k, const cJSON *obj, const char *what)
{
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    cJSON *out = k->rt(obj, &errs);

    if (errs.n) {
        char *t = field_errors_text(&errs);

        fail_msg("%s: the C decoder rejects it:\n%s", what, t);
        free(t);
    }
    ts_field_errors_release(&errs);
    return out;
}

static void convert(cJSON *obj, const char *version, const char *what)
{
    char api_version[64];
    struct ts_err err = {0};

    snprintf(api_version, sizeof(api_version), "%s/%s", TS_KUEUE_GROUP, version);
    if (ts_convert_kueue(obj, api_version, &err))
        fail_msg("%s: conversion to %s: %s", what, version, err.msg);
}

/* obj (of `version`) through the C code: conversion to v1beta2 when
 * needed, decode, encode, conversion back.  Ownership: caller deletes. */
static cJSON *through_c(const struct kind *k, const char *version, const cJSON *obj,
                        const char *what)
{
    cJSON *in = cJSON_Duplicate(obj, 1);
    cJSON *out;

    convert(in, V1BETA2, what);
    out = round_trip(k, in, what);
    cJSON_Delete(in);
    convert(out, version, what);
    return out;
}

/* cs_generate() of the version's schema with apiVersion, kind and a name
 * (and namespace).  Ownership: caller deletes. */
static cJSON *full_instance(void **state, const struct kind *k, const char *version)
{
    cJSON *o = cs_generate(schema_of(state, k, version));
    cJSON *md = cJSON_CreateObject();
    char api_version[64];

    snprintf(api_version, sizeof(api_version), "%s/%s", TS_KUEUE_GROUP, version);
    cJSON_ReplaceItemInObjectCaseSensitive(o, "apiVersion", cJSON_CreateString(api_version));
    cJSON_ReplaceItemInObjectCaseSensitive(o, "kind", cJSON_CreateString(k->kind));
    cJSON_AddStringToObject(md, "name", CS_GEN_STRING);
    if (strcmp(k->scope, "Namespaced") == 0)
        cJSON_AddStringToObject(md, "namespace", CS_GEN_STRING);
    cJSON_ReplaceItemInObjectCaseSensitive(o, "metadata", md);
    for (size_t i = 0; i < N_ELEMS(hints); i++) {
        struct ts_err err = {0};

        if (strcmp(hints[i].kind, k->kind) != 0 ||
            (hints[i].version && strcmp(hints[i].version, version) != 0))
            continue;
        if (!ts_json_get(o, hints[i].path) ||
            ts_json_set(o, hints[i].path, cJSON_Parse(hints[i].json), &err))
            fail_msg("hint %s %s: not in the schema's instance %s", k->kind, hints[i].path,
                     err.msg);
    }
    return o;
}

/* --- 1. names, versions, conversion, columns ----------------------------------- */

static void test_kustomization_lists_every_crd(void **state)
{
    /* "Kustomization" (no extension): kustomize finds it, and `kubectl apply
     * -f crds/` only reads .yaml/.yml/.json files, so it applies the CRDs alone */
    cJSON *kz = load_yaml(CRD_DIR "Kustomization");
    const cJSON *res = cs_get(kz, "resources");
    glob_t g;

    (void)state;
    assert_int_equal(cJSON_GetArraySize(res), N_KINDS);
    for (size_t i = 0; i < N_KINDS; i++) {
        char *path = crd_file(&kinds[i]);

        assert_string_equal(cJSON_GetStringValue(cJSON_GetArrayItem(res, (int)i)),
                            path + strlen(CRD_DIR));
        free(path);
    }
    assert_int_equal(glob(CRD_DIR "*.yaml", 0, NULL, &g), 0);
    assert_int_equal(g.gl_pathc, N_KINDS); /* nothing but CRDs */
    globfree(&g);
    cJSON_Delete(kz);
}

static void check_names(const struct kind *k, const cJSON *crd)
{
    char name[128];
    const cJSON *names = ts_json_get(crd, "spec.names");
    const cJSON *sn = cs_get(names, "shortNames"), *e;
    struct ts_buf shorts = TS_BUF_INIT;
    struct ts_buf list_kind = TS_BUF_INIT;

    snprintf(name, sizeof(name), "%s.%s", k->plural, TS_KUEUE_GROUP);
    assert_string_equal(cs_str(crd, "apiVersion"), "apiextensions.k8s.io/v1");
    assert_string_equal(cs_str(crd, "kind"), "CustomResourceDefinition");
    assert_string_equal(ts_json_get_string(crd, "metadata.name"), name);
    assert_string_equal(ts_json_get_string(crd, "spec.group"), TS_KUEUE_GROUP);
    assert_string_equal(ts_json_get_string(crd, "spec.scope"), k->scope);
    assert_string_equal(cs_str(names, "kind"), k->kind);
    ts_buf_addf(&list_kind, "%sList", k->kind);
    assert_string_equal(cs_str(names, "listKind"), list_kind.ptr);
    assert_string_equal(cs_str(names, "plural"), k->plural);
    assert_string_equal(cs_str(names, "singular"), k->singular);
    assert_null(cs_get(names, "categories")); /* Kueue's CRDs have none */
    cJSON_ArrayForEach(e, sn)
    {
        ts_buf_addf(&shorts, "%s%s", shorts.len ? " " : "", e->valuestring);
    }
    assert_string_equal(shorts.ptr, k->short_names);
    ts_buf_release(&shorts);
    ts_buf_release(&list_kind);
}

static void check_conversion(const struct kind *k, const cJSON *crd)
{
    const cJSON *conv = ts_json_get(crd, "spec.conversion");
    const cJSON *svc = ts_json_get(conv, "webhook.clientConfig.service");
    const cJSON *crv = ts_json_get(conv, "webhook.conversionReviewVersions");

    if (!k->webhook) {
        assert_string_equal(cs_str(conv, "strategy"), "None");
        assert_null(cs_get(conv, "webhook"));
        return;
    }
    assert_string_equal(cs_str(conv, "strategy"), "Webhook");
    assert_string_equal(cs_str(svc, "name"), WEBHOOK_SERVICE);
    assert_string_equal(cs_str(svc, "namespace"), WEBHOOK_NAMESPACE);
    assert_string_equal(cs_str(svc, "path"), "/convert");
    assert_int_equal(cJSON_GetArraySize(crv), 1);
    assert_string_equal(cJSON_GetStringValue(cJSON_GetArrayItem(crv, 0)), "v1");
}

static void check_versions(const struct kind *k, const cJSON *crd)
{
    const cJSON *vs = ts_json_get(crd, "spec.versions");

    assert_int_equal(cJSON_GetArraySize(vs), 2);
    for (size_t i = 0; i < N_ELEMS(versions); i++) {
        const cJSON *v = cJSON_GetArrayItem(vs, (int)i);
        int old = strcmp(versions[i], V1BETA1) == 0;

        assert_string_equal(cs_str(v, "name"), versions[i]);
        assert_true(cs_flag(v, "served"));
        assert_int_equal(cs_flag(v, "storage"), !old);
        assert_int_equal(cs_flag(v, "deprecated"), old);
        if (old)
            assert_string_equal(cs_str(v, "deprecationWarning"), DEPRECATION_WARNING);
        else
            assert_null(cs_get(v, "deprecationWarning"));
        assert_int_equal(ts_json_get(v, "subresources.status") != NULL, k->status);
        assert_null(ts_json_get(v, "subresources.scale"));
    }
}

static void test_names_versions_conversion(void **state)
{
    for (size_t i = 0; i < N_KINDS; i++) {
        const cJSON *crd = crd_of(state, &kinds[i]);

        check_names(&kinds[i], crd);
        check_conversion(&kinds[i], crd);
        check_versions(&kinds[i], crd);
    }
}

static void test_printer_columns(void **state)
{
    for (size_t i = 0; i < N_KINDS; i++) {
        for (size_t v = 0; v < N_ELEMS(versions); v++) {
            const cJSON *got = cs_get(version_of(crd_of(state, &kinds[i]), versions[v]),
                                      "additionalPrinterColumns");
            int n = 0;

            for (size_t c = 0; c < N_ELEMS(columns); c++) {
                const struct column *want = &columns[c];
                const cJSON *col = cJSON_GetArrayItem(got, n);
                const cJSON *prio;

                if (strcmp(want->kind, kinds[i].kind) != 0 ||
                    (want->version && strcmp(want->version, versions[v]) != 0))
                    continue;
                if (!col)
                    fail_msg("%s %s: column %s missing", kinds[i].kind, versions[v], want->name);
                prio = cs_get(col, "priority");
                assert_string_equal(cs_str(col, "name"), want->name);
                assert_string_equal(cs_str(col, "type"), want->type);
                assert_string_equal(cs_str(col, "jsonPath"), want->json_path);
                assert_int_equal(prio ? prio->valueint : 0, want->priority);
                n++;
            }
            if (cJSON_GetArraySize(got) != n)
                fail_msg("%s %s: %d columns, want %d", kinds[i].kind, versions[v],
                         cJSON_GetArraySize(got), n);
        }
    }
}

/* Structural schema, every default valid, the root carrying apiVersion,
 * kind and metadata, and the schema's own full instance valid. */
static void test_schemas_are_structural(void **state)
{
    for (size_t i = 0; i < N_KINDS; i++) {
        for (size_t v = 0; v < N_ELEMS(versions); v++) {
            const cJSON *s = schema_of(state, &kinds[i], versions[v]);
            struct ts_buf errs = TS_BUF_INIT;
            char what[128];
            cJSON *inst;

            snprintf(what, sizeof(what), "%s %s", kinds[i].kind, versions[v]);
            cs_check_structural(s, "", &errs);
            assert_no_problems(what, &errs);
            assert_string_equal(ts_json_get_string(s, "type"), "object");
            assert_string_equal(ts_json_get_string(s, "properties.apiVersion.type"), "string");
            assert_string_equal(ts_json_get_string(s, "properties.kind.type"), "string");
            assert_string_equal(ts_json_get_string(s, "properties.metadata.type"), "object");
            inst = full_instance(state, &kinds[i], versions[v]);
            validate(s, inst, what);
            cJSON_Delete(inst);
        }
    }
}

/* --- 2. what the C code writes is in the v1beta2 schema --------------------------- */

static void test_c_output_fits_schema(void **state)
{
    static const struct {
        const char *kind, *path;
    } extra[] = {
        {"Workload", DATA "workload-valid.json"},
    };

    for (size_t i = 0; i < N_KINDS + N_ELEMS(extra); i++) {
        const struct kind *k = i < N_KINDS ? &kinds[i] : kind_of(extra[i - N_KINDS].kind);
        const char *path = i < N_KINDS ? k->example : extra[i - N_KINDS].path;
        cJSON *in, *out;

        if (!k) {
            fail_msg("unknown kind in the extra table");
            return;
        }
        if (!k->rt)
            continue;
        in = load_yaml(path);
        out = round_trip(k, in, path);
        validate(schema_of(state, k, V1BETA2), in, path);
        validate(schema_of(state, k, V1BETA2), out, path);
        cJSON_Delete(in);
        cJSON_Delete(out);
    }
}

/* --- 3. every schema property is known to the C code ------------------------------- */

static int gap_applies(const struct gap *g, const struct kind *k, const char *version)
{
    return strcmp(g->kind, k->kind) == 0 && (!g->version || strcmp(g->version, version) == 0);
}

/* 1 when `line` (a missing path) is at or under a listed gap; marks it. */
static int is_known_gap(const struct kind *k, const char *version, const char *line, int *hit)
{
    for (size_t g = 0; g < N_ELEMS(gaps); g++) {
        size_t n = strlen(gaps[g].path);

        if (gap_applies(&gaps[g], k, version) && strncmp(line, gaps[g].path, n) == 0 &&
            (line[n] == '\0' || line[n] == '.' || line[n] == '[')) {
            hit[g] = 1;
            return 1;
        }
    }
    return 0;
}

static void check_coverage(const struct kind *k, const char *version, const cJSON *schema,
                           const cJSON *out)
{
    struct ts_buf missing = TS_BUF_INIT, drift = TS_BUF_INIT;
    int hit[N_ELEMS(gaps)] = {0};
    char what[128];
    char *nl;

    cs_cover(schema, out, "", &missing);
    for (char *line = missing.ptr; (nl = strchr(line, '\n')) != NULL; line = nl + 1) {
        *nl = '\0';
        if (!is_known_gap(k, version, line, hit))
            ts_buf_addf(&drift, "%s: in the schema, lost by the C code\n", line);
    }
    for (size_t g = 0; g < N_ELEMS(gaps); g++) {
        if (gap_applies(&gaps[g], k, version) && !hit[g])
            ts_buf_addf(&drift, "%s: listed as a gap but the C code keeps it now\n", gaps[g].path);
    }
    snprintf(what, sizeof(what), "%s %s: schema and C types differ", k->kind, version);
    ts_buf_release(&missing);
    assert_no_problems(what, &drift);
}

static void test_schema_fields_known_to_c(void **state)
{
    for (size_t i = 0; i < N_KINDS; i++) {
        if (!kinds[i].rt)
            continue;
        for (size_t v = 0; v < N_ELEMS(versions); v++) {
            const cJSON *s = schema_of(state, &kinds[i], versions[v]);
            cJSON *in = full_instance(state, &kinds[i], versions[v]);
            char what[128];
            cJSON *out;

            snprintf(what, sizeof(what), "%s %s full instance", kinds[i].kind, versions[v]);
            out = through_c(&kinds[i], versions[v], in, what);
            check_coverage(&kinds[i], versions[v], s, out);
            validate(s, out, what); /* and what comes back still fits */
            cJSON_Delete(in);
            cJSON_Delete(out);
        }
    }
}

/* --- 4. defaults ---------------------------------------------------------------- */

struct default_ctx {
    const struct kind *k;
    const char *version;
    const cJSON *instance; /* full_instance() */
    struct ts_buf *errs;
    int n;
};

/* Deletes the member at `path` (json/json.h syntax) from root. */
static void delete_path(cJSON *root, const char *path)
{
    const char *dot = strrchr(path, '.');
    char parent[CS_PATH_MAX];

    snprintf(parent, sizeof(parent), "%.*s", dot ? (int)(dot - path) : 0, path);
    cJSON_DeleteItemFromObjectCaseSensitive(ts_json_get(root, parent), dot ? dot + 1 : path);
}

static void check_default(const char *path, const cJSON *prop, void *arg)
{
    struct default_ctx *c = arg;
    cJSON *in = cJSON_Duplicate(c->instance, 1);
    cJSON *want = cJSON_Duplicate(cs_get(prop, "default"), 1);
    cJSON *out;
    const cJSON *got;

    assert_non_null(ts_json_get(in, path));
    delete_path(in, path);
    out = through_c(c->k, c->version, in, path);
    got = ts_json_get(out, path);
    cs_apply_defaults(prop, want);
    /* "" defaults (priorityClassSource, underlyingCause) are Go zero values
     * the C encoder omits; the server fills them in again on read */
    if (!(cs_absent(got) && cs_streq(cJSON_GetStringValue(want), "") && cJSON_IsString(want)) &&
        !cs_equal(prop, want, got)) {
        char *w = cJSON_PrintUnformatted(want);
        char *g = got ? cJSON_PrintUnformatted(got) : ts_xstrdup("<absent>");

        ts_buf_addf(c->errs, "%s: schema default %s, C decoder fills %s\n", path, w, g);
        free(w);
        free(g);
    }
    c->n++;
    cJSON_Delete(want);
    cJSON_Delete(in);
    cJSON_Delete(out);
}

static void test_defaults_match_c(void **state)
{
    static const struct {
        const char *kind;
        int n; /* defaults per version (so none is skipped silently) */
    } want[] = {
        {"ClusterQueue", 11},  {"Cohort", 1},   {"LocalQueue", 2},
        {"ResourceFlavor", 0}, {"Workload", 6}, {"WorkloadPriorityClass", 0},
    };

    for (size_t i = 0; i < N_ELEMS(want); i++) {
        const struct kind *k = kind_of(want[i].kind);

        for (size_t v = 0; v < N_ELEMS(versions); v++) {
            struct ts_buf errs = TS_BUF_INIT;
            struct default_ctx c = {k, versions[v], NULL, &errs, 0};
            cJSON *inst = full_instance(state, k, versions[v]);
            char what[128];

            c.instance = inst;
            cs_each_default(schema_of(state, k, versions[v]), "", check_default, &c);
            snprintf(what, sizeof(what), "%s %s defaults", k->kind, versions[v]);
            assert_no_problems(what, &errs);
            /* v1beta1 Workload adds priorityClassSource: "" */
            if (c.n != want[i].n + (strcmp(k->kind, "Workload") == 0 && v == 0))
                fail_msg("%s: %d defaults, want %d", what, c.n, want[i].n);
            cJSON_Delete(inst);
        }
    }
}

/* --- 5. v1beta1 ------------------------------------------------------------------- */

static void test_v1beta1_conversion_fits_schema(void **state)
{
    static const char *const v1beta1_files[] = {
        DATA "workload-v1beta1.json",
        DATA "workload-v1beta1-pc.json",
    };
    const struct kind *wl = kind_of("Workload");

    for (size_t i = 0; i < N_KINDS; i++) {
        cJSON *in, *out;

        if (!kinds[i].rt)
            continue;
        in = load_yaml(kinds[i].example);
        out = round_trip(&kinds[i], in, kinds[i].example);
        convert(out, V1BETA1, kinds[i].example);
        validate(schema_of(state, &kinds[i], V1BETA1), out, kinds[i].example);
        cJSON_Delete(in);
        cJSON_Delete(out);
    }
    for (size_t i = 0; i < N_ELEMS(v1beta1_files); i++) {
        cJSON *in = load_yaml(v1beta1_files[i]);
        cJSON *out;

        validate(schema_of(state, wl, V1BETA1), in, v1beta1_files[i]);
        out = through_c(wl, V1BETA1, in, v1beta1_files[i]);
        validate(schema_of(state, wl, V1BETA1), out, v1beta1_files[i]);
        convert(out, V1BETA2, v1beta1_files[i]);
        validate(schema_of(state, wl, V1BETA2), out, v1beta1_files[i]);
        cJSON_Delete(in);
        cJSON_Delete(out);
    }
}

/* --- samples ------------------------------------------------------------------------- */

/* Validates every kueue.x-k8s.io document of one file; returns how many. */
static int validate_sample_file(void **state, const char *path)
{
    struct ts_yaml_stream s = TS_YAML_STREAM_INIT;
    struct ts_err err = {0};
    size_t glen = strlen(TS_KUEUE_GROUP);
    int n = 0;

    if (ts_yaml_decode_file(path, &s, &err))
        fail_msg("%s: %s", path, err.msg);
    for (size_t d = 0; d < s.n; d++) {
        const char *av = cs_str(s.docs[d].root, "apiVersion");
        const char *kind = cs_str(s.docs[d].root, "kind");
        const struct kind *k = kind ? kind_of(kind) : NULL;
        char what[512];

        if (!av || strncmp(av, TS_KUEUE_GROUP "/", glen + 1) != 0)
            continue;
        snprintf(what, sizeof(what), "%s:%d: %s %s", path, s.docs[d].line, av, kind);
        if (!k || !version_of(crd_of(state, k), av + glen + 1))
            fail_msg("%s: no CRD serves it", what);
        validate(schema_of(state, k, av + glen + 1), s.docs[d].root, what);
        n++;
    }
    ts_yaml_stream_release(&s);
    return n;
}

static void test_samples_fit_schema(void **state)
{
    static const char *const patterns[] = {
        "../shared/samples/seeds/*.yaml",
        "../shared/samples/kueue-examples/*.yaml",
    };
    int n = 0;

    for (size_t p = 0; p < N_ELEMS(patterns); p++) {
        glob_t g;

        assert_int_equal(glob(patterns[p], 0, NULL, &g), 0);
        for (size_t i = 0; i < g.gl_pathc; i++)
            n += validate_sample_file(state, g.gl_pathv[i]);
        globfree(&g);
    }
    print_message("%d kueue.x-k8s.io sample objects validated\n", n);
    assert_true(n >= 20);
}

/* --- the validator itself ------------------------------------------------------------ */

static cJSON *quoted_json(const char *text)
{
    char *s = ts_xstrdup(text);
    cJSON *j;

    for (char *p = s; *p; p++) {
        if (*p == '\'')
            *p = '"';
    }
    j = cJSON_Parse(s);
    if (!j)
        fail_msg("test JSON does not parse: %s", s);
    free(s);
    return j;
}

static void test_validator_catches_mistakes(void **state)
{
    static const struct {
        const char *kind, *version, *spec; /* JSON, ' for " */
        const char *want;                  /* substring of the problems; NULL = valid */
    } cases[] = {
        {"ClusterQueue", V1BETA2, "{'cohort':'x'}", "spec.cohort: unknown field"},
        {"ClusterQueue", V1BETA1, "{'cohort':'x'}", NULL},
        {"ClusterQueue", V1BETA2, "{'queueingStrategy':'FIFO'}", "Unsupported value: \"FIFO\""},
        {"ClusterQueue", V1BETA2, "{'flavorFungibility':{'whenCanBorrow':'Borrow'}}",
         "Unsupported value"},
        {"ClusterQueue", V1BETA1, "{'flavorFungibility':{'whenCanBorrow':'Borrow'}}", NULL},
        {"ClusterQueue", V1BETA2, "{'cohortName':'Bad_Name'}", "spec.cohortName: \"Bad_Name\""},
        {"ClusterQueue", V1BETA2, "{'resourceGroups':[{'coveredResources':['cpu']}]}",
         "spec.resourceGroups[0].flavors: Required value"},
        {"ClusterQueue", V1BETA2,
         "{'resourceGroups':[{'coveredResources':['cpu'],'flavors':["
         "{'name':'f','resources':[{'name':'cpu','nominalQuota':1}]},"
         "{'name':'f','resources':[{'name':'cpu','nominalQuota':'2Gi'}]}]}]}",
         "spec.resourceGroups[0].flavors[1]: Duplicate value"},
        {"ClusterQueue", V1BETA2,
         "{'resourceGroups':[{'coveredResources':['cpu'],'flavors':["
         "{'name':'f','resources':[{'name':'cpu','nominalQuota':0.5}]}]}]}",
         "must be of type integer or string"},
        {"ClusterQueue", V1BETA2,
         "{'resourceGroups':[{'coveredResources':['cpu'],'flavors':["
         "{'name':'f','resources':[{'name':'cpu','nominalQuota':'lots'}]}]}]}",
         "nominalQuota: \"lots\" should match"},
        {"Workload", V1BETA2, "{'podSets':[]}", "spec.podSets: should have at least 1 items"},
        {"Workload", V1BETA2,
         "{'podSets':[{'template':{'spec':{'containers':[{'name':'c','x':1}]}}}]}", NULL},
        {"Workload", V1BETA2, "{'podSets':[{'template':{'spec':{'containers':[{'x':1}]}}}]}",
         "spec.podSets[0].template.spec.containers[0].name: Required value"},
        {"Workload", V1BETA2,
         "{'podSets':[{'template':{'spec':{'containers':[{'name':'c','resources':{'requests':"
         "{'cpu':'1e'}}}]}}}]}",
         "requests.cpu: \"1e\" should match"},
        {"Workload", V1BETA2, "{'podSets':[{'template':{'spec':{}}}],'priorityClassName':'x'}",
         "spec.priorityClassName: unknown field"},
        {"LocalQueue", V1BETA2, "{'clusterQueue':'cq','stopPolicy':'Drain'}", "Unsupported value"},
        {"ResourceFlavor", V1BETA2, "{'nodeTaints':[{'key':'k'}]}",
         "spec.nodeTaints[0].effect: Required value"},
    };

    for (size_t i = 0; i < N_ELEMS(cases); i++) {
        const struct kind *k = kind_of(cases[i].kind);
        cJSON *obj = quoted_json("{'metadata':{'name':'x'}}");
        struct ts_buf errs = TS_BUF_INIT;

        cJSON_AddItemToObject(obj, "spec", quoted_json(cases[i].spec));
        cs_validate(schema_of(state, k, cases[i].version), obj, "", &errs);
        if (!cases[i].want && errs.len)
            fail_msg("case %zu: want valid, got:\n%s", i, errs.ptr);
        if (cases[i].want && !strstr(errs.ptr, cases[i].want))
            fail_msg("case %zu: want ...%s..., got:\n%s", i, cases[i].want, errs.ptr);
        ts_buf_release(&errs);
        cJSON_Delete(obj);
    }
    /* WorkloadPriorityClass keeps value at the top level, and requires it */
    {
        cJSON *obj = quoted_json("{'metadata':{'name':'x'},'description':'d'}");
        struct ts_buf errs = TS_BUF_INIT;

        cs_validate(schema_of(state, kind_of("WorkloadPriorityClass"), V1BETA2), obj, "", &errs);
        assert_non_null(strstr(errs.ptr, "value: Required value"));
        ts_buf_release(&errs);
        cJSON_Delete(obj);
    }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kustomization_lists_every_crd),
        cmocka_unit_test(test_names_versions_conversion),
        cmocka_unit_test(test_printer_columns),
        cmocka_unit_test(test_schemas_are_structural),
        cmocka_unit_test(test_c_output_fits_schema),
        cmocka_unit_test(test_schema_fields_known_to_c),
        cmocka_unit_test(test_defaults_match_c),
        cmocka_unit_test(test_v1beta1_conversion_fits_schema),
        cmocka_unit_test(test_samples_fit_schema),
        cmocka_unit_test(test_validator_catches_mistakes),
    };

    ts_alloc_init();
    if (argc > 1)
        cmocka_set_test_filter(argv[1]);
    return cmocka_run_group_tests(tests, setup, teardown);
}
