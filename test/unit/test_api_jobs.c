/* Tests for pkg/api/podtemplate*, job and pytorchjob: decoding of the
 * customer's seeds and Kueue's samples, unknown fields surviving encode,
 * queue-name label vs annotation, pod request arithmetic, requests vs
 * limits, node affinity matching, finished detection. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/job.h"
#include "api/podtemplate.h"
#include "api/pytorchjob.h"
#include "json/json.h"
#include "json/patch.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "yaml/yaml.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))
#define DATA       "test/data/api/"
#define SEEDS      "../shared/samples/seeds/"
#define EXAMPLES   "../shared/samples/kueue-examples/"

/* --- helpers -------------------------------------------------------------- */

static cJSON *parse(const char *s)
{
    struct ts_err err = {0};
    cJSON *out = NULL;

    if (ts_json_parse(s, strlen(s), &out, &err))
        fail_msg("bad test JSON: %s: %s", err.msg, s);
    return out;
}

/* Document `index` of a YAML (or JSON) file.  Ownership: caller deletes. */
static cJSON *load_doc(const char *path, size_t index)
{
    struct ts_yaml_stream s = TS_YAML_STREAM_INIT;
    struct ts_err err = {0};
    cJSON *out;

    if (ts_yaml_decode_file(path, &s, &err))
        fail_msg("%s: %s", path, err.msg);
    if (index >= s.n)
        fail_msg("%s: no document %zu", path, index);
    out = ts_yaml_doc_take(&s.docs[index]);
    ts_yaml_stream_release(&s);
    return out;
}

static char *errors_text(const struct ts_field_errors *errs)
{
    struct ts_buf b = TS_BUF_INIT;

    ts_field_errors_format(errs, &b);
    return ts_buf_take(&b);
}

static void check_no_errors(const struct ts_field_errors *errs, const char *what)
{
    if (errs->n)
        fail_msg("%s: unexpected errors: %s", what, errors_text(errs));
}

static void decode_job(const cJSON *obj, struct ts_job *j, const char *what)
{
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_dec d;

    ts_dec_init(&d, &errs);
    ts_job_decode(&d, obj, j);
    check_no_errors(&errs, what);
    ts_field_errors_release(&errs);
}

static void decode_ptj(const cJSON *obj, struct ts_pytorch_job *j, const char *what)
{
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_dec d;

    ts_dec_init(&d, &errs);
    ts_pytorchjob_decode(&d, obj, j);
    check_no_errors(&errs, what);
    ts_field_errors_release(&errs);
}

/* "cpu=2,memory=1Gi" (sorted by name, canonical quantities). */
static char *list_text(const struct ts_resource_list *l)
{
    struct ts_buf b = TS_BUF_INIT;
    char q[TS_QUANTITY_STR_MAX];

    for (size_t i = 0; i < l->n; i++)
        ts_buf_addf(&b, "%s%s=%s", i ? "," : "", l->items[i].name,
                    ts_quantity_format(&l->items[i].q, q, sizeof(q)));
    return ts_buf_take(&b);
}

static void expect_same_json(const cJSON *got, const cJSON *want, const char *what)
{
    if (!ts_json_equal(got, want))
        fail_msg("%s: JSON differs\n got: %s\nwant: %s", what, ts_json_dumps(got, 0),
                 ts_json_dumps(want, 0));
}

/* --- batch/v1 Job samples --------------------------------------------------- */

/* The customer's seed and Kueue's samples: decoded, then encoded back. */
static const struct {
    const char *file;
    const char *queue;
    int32_t pods;
    int suspended;
    const char *requests; /* per-pod requests of the template */
} job_samples[] = {
    {SEEDS "job-preprocessing.yaml", "ai-local-queue", 1, 0, "cpu=2,memory=4Gi"},
    {EXAMPLES "jobs-sample-job.yaml", "user-queue", 3, 0, "cpu=1,memory=200Mi"},
    {EXAMPLES "jobs-sample-job-partial-admission.yaml", "user-queue", 20, 0, "cpu=1,memory=200Mi"},
    {EXAMPLES "jobs-sample-scalable-job.yaml", "user-queue", 3, 0, "cpu=100m,memory=100Mi"},
    {EXAMPLES "getting-started-quick-start-job.yaml", "user-queue", 3, 0, "cpu=1,memory=200Mi"},
    {EXAMPLES "admin-shared-quota-sample-job.yaml", "team-queue", 1, 1, "cpu=3"},
    {DATA "job-full.json", "user-queue", 4, 1, "cpu=1,memory=200Mi"},
};

static void test_job_samples(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEMS(job_samples); i++) {
        cJSON *obj = load_doc(job_samples[i].file, 0);
        struct ts_resource_list req = TS_RESOURCE_LIST_INIT;
        struct ts_job j;
        cJSON *enc;
        char *t;

        ts_job_init(&j);
        decode_job(obj, &j, job_samples[i].file);
        assert_string_equal(ts_job_queue_name(&j), job_samples[i].queue);
        assert_int_equal(ts_job_pod_count(&j), job_samples[i].pods);
        assert_int_equal(ts_job_is_suspended(&j), job_samples[i].suspended);
        assert_false(ts_job_is_finished(&j, NULL, NULL));
        assert_int_equal(ts_pod_template_requests(&j.template, &req), 0);
        t = list_text(&req);
        assert_string_equal(t, job_samples[i].requests);
        /* nothing modelled changed: encode gives the input back exactly */
        enc = ts_job_encode(&j);
        expect_same_json(enc, obj, job_samples[i].file);
        free(t);
        cJSON_Delete(enc);
        ts_resource_list_release(&req);
        ts_job_release(&j);
        cJSON_Delete(obj);
    }
}

static void test_job_decode_fields(void **state)
{
    cJSON *obj = load_doc(DATA "job-full.json", 0);
    struct ts_job j, c;

    (void)state;
    ts_job_init(&j);
    ts_job_init(&c);
    decode_job(obj, &j, "job-full");
    assert_string_equal(j.meta.name, "pi");
    assert_int_equal(j.parallelism.v, 4);
    assert_int_equal(j.completions.v, 8);
    assert_string_equal(j.completion_mode, "Indexed");
    assert_int_equal(j.backoff_limit.v, 6);
    assert_int_equal(j.active, 2);
    assert_true(j.ready.set);
    assert_int_equal(j.ready.v, 1);
    assert_int_equal(j.succeeded, 3);
    assert_int_equal(j.failed, 1);
    assert_int_equal(j.start_time, INT64_C(1772359202) * TS_TIME_SECOND);
    assert_int_equal(j.n_conditions, 1);
    assert_string_equal(ts_job_condition(&j, "Suspended")->reason, "JobSuspended");
    assert_null(ts_job_condition(&j, "Complete"));
    assert_string_equal(ts_strmap_get(&j.template.labels, "batch.kubernetes.io/job-name"), "pi");
    assert_string_equal(ts_strmap_get(&j.template.node_selector, "disktype"), "ssd");
    assert_int_equal(j.template.n_tolerations, 1);
    ts_job_copy(&c, &j);
    ts_job_release(&j);
    {
        cJSON *enc = ts_job_encode(&c);

        expect_same_json(enc, obj, "copy");
        cJSON_Delete(enc);
    }
    ts_job_release(&c);
    cJSON_Delete(obj);
}

/* Changing modelled fields rewrites exactly those; everything else stays. */
static void test_job_encode_preserves_unknown(void **state)
{
    cJSON *obj = load_doc(DATA "job-full.json", 0);
    struct ts_job j;
    struct ts_quantity q;
    struct ts_toleration tol = {0};
    cJSON *enc, *want, *patch;
    struct ts_err err = {0};

    (void)state;
    ts_job_init(&j);
    decode_job(obj, &j, "job-full");
    j.suspend.v = 0;
    j.parallelism.v = 2;
    ts_strmap_set(&j.meta.annotations, "kueue.x-k8s.io/stopping", "true");
    ts_strmap_set(&j.template.labels, "kueue.x-k8s.io/podset", "main");
    ts_strmap_set(&j.template.node_selector, "cloud.provider/flavor", "spot");
    tol.key = ts_xstrdup("spot");
    tol.op = ts_xstrdup("Exists");
    j.template.tolerations =
        ts_xrealloc(j.template.tolerations, 2 * sizeof(*j.template.tolerations));
    j.template.tolerations[j.template.n_tolerations++] = tol;
    ts_quantity_parse_c("2", &q, NULL);
    ts_resource_list_set(&j.template.containers[0].requests, "cpu", &q);
    j.start_time = 0;
    enc = ts_job_encode(&j);
    patch = load_doc(DATA "job-full-edit-patch.json", 0); /* the edits above, as JSON */
    assert_int_equal(ts_json_patch_apply(obj, patch, &want, &err), 0);
    expect_same_json(enc, want, "modified job");
    /* spot checks on fields Turnstile never models (the comparison above
     * covers them all) */
    assert_string_equal(ts_json_get_string(enc, "spec.template.spec.containers[0].resources."
                                                "claims[0].name"),
                        "gpu");
    assert_string_equal(ts_json_get_string(enc, "status.completedIndexes"), "0-2");
    assert_true(cJSON_IsNull(ts_json_get(enc, "spec.template.metadata.creationTimestamp")));
    cJSON_Delete(patch);
    cJSON_Delete(want);
    cJSON_Delete(enc);
    ts_job_release(&j);
    cJSON_Delete(obj);
}

static void test_job_from_scratch(void **state)
{
    struct ts_job j;
    struct ts_container *c;
    cJSON *enc;

    (void)state;
    ts_job_init(&j);
    j.meta.name = ts_xstrdup("built");
    j.suspend.set = j.suspend.v = 1;
    j.template.containers = c = ts_xcalloc(1, sizeof(*c));
    j.template.n_containers = 1;
    c->name = ts_xstrdup("c");
    enc = ts_job_encode(&j);
    assert_string_equal(ts_json_get_string(enc, "apiVersion"), "batch/v1");
    assert_string_equal(ts_json_get_string(enc, "kind"), "Job");
    assert_string_equal(ts_json_get_string(enc, "metadata.name"), "built");
    assert_true(cJSON_IsTrue(ts_json_get(enc, "spec.suspend")));
    assert_string_equal(ts_json_get_string(enc, "spec.template.spec.containers[0].name"), "c");
    assert_null(ts_json_get(enc, "status"));
    assert_null(ts_json_get(enc, "spec.template.spec.containers[0].resources"));
    cJSON_Delete(enc);
    ts_job_release(&j);
}

static void test_queue_name_precedence(void **state)
{
    static const struct {
        const char *label, *annotation, *want;
    } cases[] = {
        {"from-label", NULL, "from-label"},
        {NULL, "from-annotation", "from-annotation"},
        {"from-label", "from-annotation", "from-label"},
        {NULL, NULL, NULL},
        {"", "from-annotation", "from-annotation"}, /* an empty label does not count */
        {"", "", NULL},
    };

    (void)state;
    for (size_t i = 0; i < N_ELEMS(cases); i++) {
        const char *got;
        struct ts_job j;

        ts_job_init(&j);
        if (cases[i].label)
            ts_strmap_set(&j.meta.labels, TS_LABEL_QUEUE_NAME, cases[i].label);
        if (cases[i].annotation)
            ts_strmap_set(&j.meta.annotations, TS_LABEL_QUEUE_NAME, cases[i].annotation);
        got = ts_job_queue_name(&j);
        assert_string_equal(got ? got : "(null)", cases[i].want ? cases[i].want : "(null)");
        ts_job_release(&j);
    }
}

/* Cases in test/data/api/job-status.json: {job, pods, finished, success,
 * message}. */
static void check_status_case(const cJSON *c, size_t i)
{
    const cJSON *want_msg = cJSON_GetObjectItem(c, "message");
    int want = cJSON_IsTrue(cJSON_GetObjectItem(c, "finished"));
    const char *msg = NULL;
    int success = -1;
    struct ts_job j;
    cJSON *enc;

    ts_job_init(&j);
    decode_job(cJSON_GetObjectItem(c, "job"), &j, "job-status.json");
    if (ts_job_pod_count(&j) != (int32_t)cJSON_GetNumberValue(cJSON_GetObjectItem(c, "pods")))
        fail_msg("job-status.json case %zu: pods %d", i, ts_job_pod_count(&j));
    assert_int_equal(ts_job_is_finished(&j, &success, &msg), want);
    if (want) {
        assert_int_equal(success, cJSON_IsTrue(cJSON_GetObjectItem(c, "success")));
        assert_string_equal(msg, cJSON_GetStringValue(want_msg));
    }
    enc = ts_job_encode(&j); /* adds only apiVersion and kind to a partial job */
    cJSON_DeleteItemFromObject(enc, "apiVersion");
    cJSON_DeleteItemFromObject(enc, "kind");
    expect_same_json(enc, cJSON_GetObjectItem(c, "job"), "job-status.json");
    cJSON_Delete(enc);
    ts_job_release(&j);
}

static void test_job_finished_and_pod_count(void **state)
{
    cJSON *cases = load_doc(DATA "job-status.json", 0);
    const cJSON *c;
    size_t i = 0;

    (void)state;
    assert_true(cJSON_GetArraySize(cases) >= 8);
    cJSON_ArrayForEach(c, cases) check_status_case(c, i++);
    cJSON_Delete(cases);
}

/* Cases in test/data/api/job-decode-errors.json: {object, want}. */
static void test_job_decode_errors(void **state)
{
    cJSON *cases = load_doc(DATA "job-decode-errors.json", 0);
    const cJSON *c;

    (void)state;
    cJSON_ArrayForEach(c, cases)
    {
        const char *want = cJSON_GetStringValue(cJSON_GetObjectItem(c, "want"));
        struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
        struct ts_job j;
        struct ts_dec d;
        char *t;

        ts_job_init(&j);
        ts_dec_init(&d, &errs);
        ts_job_decode(&d, cJSON_GetObjectItem(c, "object"), &j);
        t = errors_text(&errs);
        if (!strstr(t, want))
            fail_msg("want %s, got %s", want, t);
        free(t);
        ts_field_errors_release(&errs);
        ts_job_release(&j);
    }
    cJSON_Delete(cases);
}

/* --- pod requests ------------------------------------------------------------ */

/* Cases in test/data/api/pod-requests.json: {name, template, want,
 * limitErrors?}: want is the per-pod request as "name=quantity" sorted by
 * name, limitErrors the requests-above-limits errors (none when absent). */
static void check_limits_case(const struct ts_pod_template *t, const cJSON *c)
{
    const char *want = cJSON_GetStringValue(cJSON_GetObjectItem(c, "limitErrors"));
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    int n = ts_pod_template_validate_limits(t, "podSets[0]", &errs);
    char *got = errors_text(&errs);

    assert_int_equal(n, (int)errs.n);
    assert_string_equal(got, want ? want : "");
    free(got);
    ts_field_errors_release(&errs);
}

static void check_requests_case(const cJSON *c)
{
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(c, "name"));
    const char *want = cJSON_GetStringValue(cJSON_GetObjectItem(c, "want"));
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_resource_list req = TS_RESOURCE_LIST_INIT;
    struct ts_pod_template t;
    struct ts_dec d;
    char *got;

    ts_pod_template_init(&t);
    ts_dec_init(&d, &errs);
    ts_pod_template_decode(&d, cJSON_GetObjectItem(c, "template"), &t);
    check_no_errors(&errs, name);
    check_limits_case(&t, c);
    assert_int_equal(ts_pod_template_requests(&t, &req), 0);
    got = list_text(&req);
    if (strcmp(got, want))
        fail_msg("%s: got %s, want %s", name, got, want);
    free(got);
    /* the output is replaced, not accumulated */
    assert_int_equal(ts_pod_template_requests(&t, &req), 0);
    got = list_text(&req);
    assert_string_equal(got, want);
    free(got);
    ts_resource_list_release(&req);
    ts_field_errors_release(&errs);
    ts_pod_template_release(&t);
}

static void test_pod_requests_table(void **state)
{
    cJSON *cases = load_doc(DATA "pod-requests.json", 0);
    const cJSON *c;

    (void)state;
    assert_true(cJSON_GetArraySize(cases) >= 17);
    cJSON_ArrayForEach(c, cases) check_requests_case(c);
    cJSON_Delete(cases);
}

/* Cases in test/data/api/node-affinity.json: one nodeSelectorTerm's
 * matchExpressions evaluated against a node's labels. */
static void check_affinity_case(const cJSON *c, size_t i)
{
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_strmap labels = TS_STRMAP_INIT;
    struct ts_pod_template t;
    struct ts_dec d;
    cJSON *tmpl = cJSON_CreateObject();
    cJSON *req = ts_json_mkpath(tmpl,
                                "spec.affinity.nodeAffinity."
                                "requiredDuringSchedulingIgnoredDuringExecution",
                                NULL);
    cJSON *term = cJSON_CreateObject();
    const cJSON *e;

    cJSON_AddItemToObject(term, "matchExpressions",
                          cJSON_Duplicate(cJSON_GetObjectItem(c, "matchExpressions"), 1));
    cJSON_AddItemToArray(cJSON_AddArrayToObject(req, "nodeSelectorTerms"), term);
    cJSON_ArrayForEach(e, cJSON_GetObjectItem(c, "labels"))
    {
        ts_strmap_set(&labels, e->string, e->valuestring);
    }
    ts_pod_template_init(&t);
    ts_dec_init(&d, &errs);
    ts_pod_template_decode(&d, tmpl, &t);
    check_no_errors(&errs, "affinity case");
    if (ts_pod_template_affinity_matches(&t, &labels) !=
        cJSON_IsTrue(cJSON_GetObjectItem(c, "want")))
        fail_msg("node-affinity.json case %zu: wrong result", i);
    ts_field_errors_release(&errs);
    ts_strmap_release(&labels);
    ts_pod_template_release(&t);
    cJSON_Delete(tmpl);
}

static void test_node_affinity_matching(void **state)
{
    cJSON *cases = load_doc(DATA "node-affinity.json", 0);
    size_t i = 0;
    const cJSON *c;

    (void)state;
    assert_true(cJSON_GetArraySize(cases) >= 14);
    cJSON_ArrayForEach(c, cases) check_affinity_case(c, i++);
    cJSON_Delete(cases);
}

#define REQUIRED_AFFINITY                                                                          \
    "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"

/* The first pod set template of workload-full.json, decoded into t. */
static cJSON *driver_template(struct ts_pod_template *t)
{
    cJSON *wl = load_doc(DATA "workload-full.json", 0);
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_dec d;

    ts_dec_init(&d, &errs);
    ts_pod_template_decode(&d, ts_json_get(wl, "spec.podSets[0].template"), t);
    check_no_errors(&errs, "template");
    ts_field_errors_release(&errs);
    return wl;
}

/* The driver template's terms: (zone In [a,b] AND gpu-count Gt 3) OR
 * (spot DoesNotExist). */
static void test_affinity_terms_are_ored(void **state)
{
    struct ts_strmap labels = TS_STRMAP_INIT;
    struct ts_pod_template t;
    cJSON *wl;

    (void)state;
    ts_pod_template_init(&t);
    assert_true(ts_pod_template_affinity_matches(&t, &labels)); /* no affinity */
    wl = driver_template(&t);
    assert_true(ts_pod_template_affinity_matches(&t, &labels));
    ts_strmap_set(&labels, "spot", "1");
    assert_false(ts_pod_template_affinity_matches(&t, &labels));
    ts_strmap_set(&labels, "zone", "b");
    ts_strmap_set(&labels, "gpu-count", "4");
    assert_true(ts_pod_template_affinity_matches(&t, &labels));
    assert_string_equal(ts_node_selector_op_name(TS_NODE_SELECTOR_DOES_NOT_EXIST), "DoesNotExist");
    ts_strmap_release(&labels);
    ts_pod_template_release(&t);
    cJSON_Delete(wl);
}

static void test_template_unchanged_and_copy(void **state)
{
    struct ts_pod_template t, c;
    cJSON *wl, *enc;

    (void)state;
    ts_pod_template_init(&t);
    ts_pod_template_init(&c);
    wl = driver_template(&t);
    enc = ts_pod_template_encode(&t);
    expect_same_json(enc, ts_json_get(wl, "spec.podSets[0].template"), "unchanged template");
    ts_pod_template_copy(&c, &t);
    ts_pod_template_release(&t);
    assert_false(ts_pod_template_equal(&c, &t));
    cJSON_Delete(enc);
    enc = ts_pod_template_encode(&c);
    expect_same_json(enc, ts_json_get(wl, "spec.podSets[0].template"), "copied template");
    cJSON_Delete(enc);
    ts_pod_template_release(&c);
    cJSON_Delete(wl);
}

/* The placement copy keeps what flavor assignment reads and nothing else:
 * same affinity answers, same tolerations, no raw JSON or containers. */
static void test_template_copy_placement(void **state)
{
    struct ts_strmap labels = TS_STRMAP_INIT;
    struct ts_pod_template t, c;
    cJSON *wl;

    (void)state;
    ts_pod_template_init(&t);
    ts_pod_template_init(&c);
    wl = driver_template(&t);
    assert_true(t.raw && t.n_containers && t.n_tolerations && t.n_affinity_terms);
    ts_pod_template_copy_placement(&c, &t);
    assert_null(c.raw);
    assert_int_equal(c.n_containers, 0);
    assert_int_equal(c.labels.n + c.annotations.n, 0);
    assert_null(c.priority_class_name);
    assert_int_equal(c.node_selector.n, t.node_selector.n);
    assert_int_equal(c.n_tolerations, t.n_tolerations);
    assert_string_equal(c.tolerations[0].key, t.tolerations[0].key);
    assert_int_equal(c.has_required_affinity, t.has_required_affinity);
    assert_int_equal(c.n_affinity_terms, t.n_affinity_terms);
    ts_pod_template_release(&t); /* the copy owns its strings */
    assert_true(ts_pod_template_affinity_matches(&c, &labels));
    ts_strmap_set(&labels, "spot", "1");
    assert_false(ts_pod_template_affinity_matches(&c, &labels));
    ts_strmap_set(&labels, "zone", "b");
    ts_strmap_set(&labels, "gpu-count", "4");
    assert_true(ts_pod_template_affinity_matches(&c, &labels));
    ts_strmap_release(&labels);
    ts_pod_template_release(&c);
    cJSON_Delete(wl);
}

/* Typed edits to a template land in the JSON; untouched parts stay. */
static void test_template_encode_edits(void **state)
{
    struct ts_pod_template t;
    cJSON *wl, *enc;

    (void)state;
    ts_pod_template_init(&t);
    wl = driver_template(&t);
    ts_tolerations_free(t.tolerations, t.n_tolerations);
    t.tolerations = NULL;
    t.n_tolerations = 0;
    free(t.priority_class_name);
    t.priority_class_name = NULL;
    ts_strmap_remove(&t.annotations, "note");
    t.affinity_terms[1].exprs[0].op = TS_NODE_SELECTOR_EXISTS;
    enc = ts_pod_template_encode(&t);
    assert_null(ts_json_get(enc, "spec.tolerations"));
    assert_null(ts_json_get(enc, "spec.priorityClassName"));
    assert_null(ts_json_get(enc, "metadata.annotations"));
    assert_string_equal(ts_json_get_string(enc, "metadata.labels.app"), "driver");
    assert_string_equal(ts_json_get_string(enc, REQUIRED_AFFINITY ".nodeSelectorTerms[1]."
                                                                  "matchExpressions[0].operator"),
                        "Exists");
    /* matchFields of the same term and the preferred terms are kept */
    assert_string_equal(
        ts_json_get_string(enc, REQUIRED_AFFINITY ".nodeSelectorTerms[1].matchFields[0].key"),
        "metadata.name");
    assert_non_null(ts_json_get(enc, "spec.affinity.nodeAffinity."
                                     "preferredDuringSchedulingIgnoredDuringExecution[0]"));
    assert_string_equal(ts_json_get_string(enc, "spec.volumes[0].name"), "data");
    assert_string_equal(ts_json_get_string(enc, "spec.containers[0].env[0].name"), "A");
    cJSON_Delete(enc);
    /* removing the required affinity prunes only what became empty */
    t.has_required_affinity = 0;
    enc = ts_pod_template_encode(&t);
    assert_null(ts_json_get(enc, REQUIRED_AFFINITY));
    assert_non_null(ts_json_get(enc, "spec.affinity.podAntiAffinity"));
    cJSON_Delete(enc);
    ts_pod_template_release(&t);
    cJSON_Delete(wl);
}

/* --- PyTorchJob ---------------------------------------------------------------- */

/* The customer's seeds and Kueue's sample, decoded and encoded back. */
static const struct {
    const char *file;
    size_t doc;
    const char *queue;
    size_t n_replicas;
    int32_t master, worker; /* replicas, -1 = no such replica type */
    const char *priority_class;
    const char *worker_requests;
} ptj_samples[] = {
    {SEEDS "pytorchjob-annotated.yaml", 0, "ai-local-queue", 2, 1, 2, NULL,
     "cpu=2,memory=4Gi,nvidia.com/gpu=1"},
    {SEEDS "priority.yaml", 2, "ai-local-queue", 1, 1, -1, "high-priority", NULL},
    {EXAMPLES "jobs-sample-pytorchjob.yaml", 0, "user-queue", 2, 1, 1, NULL, "cpu=1,memory=200Mi"},
    {DATA "pytorchjob-full.json", 0, "label-queue", 2, 1, 3, "from-run-policy",
     "cpu=2,nvidia.com/gpu=1"},
};

static void check_worker_requests(const struct ts_replica_spec *w, const char *want)
{
    struct ts_resource_list req = TS_RESOURCE_LIST_INIT;
    char *t;

    assert_int_equal(ts_pod_template_requests(&w->template, &req), 0);
    t = list_text(&req);
    assert_string_equal(t, want);
    free(t);
    ts_resource_list_release(&req);
}

static void check_ptj_sample(size_t i)
{
    cJSON *obj = load_doc(ptj_samples[i].file, ptj_samples[i].doc);
    const struct ts_replica_spec *m, *w;
    struct ts_pytorch_job j;
    const char *pc;
    cJSON *enc;

    ts_pytorchjob_init(&j);
    decode_ptj(obj, &j, ptj_samples[i].file);
    assert_string_equal(ts_pytorchjob_queue_name(&j), ptj_samples[i].queue);
    assert_int_equal(j.n_replicas, ptj_samples[i].n_replicas);
    assert_string_equal(j.replicas[0].type, "Master");
    m = ts_pytorchjob_replica(&j, "Master");
    w = ts_pytorchjob_replica(&j, "Worker");
    assert_int_equal(m ? m->replicas : -1, ptj_samples[i].master);
    assert_int_equal(w ? w->replicas : -1, ptj_samples[i].worker);
    if (w) {
        assert_ptr_equal(w, &j.replicas[1]);
        check_worker_requests(w, ptj_samples[i].worker_requests);
    }
    pc = ts_pytorchjob_priority_class(&j);
    if (ptj_samples[i].priority_class)
        assert_string_equal(pc, ptj_samples[i].priority_class);
    else
        assert_null(pc);
    enc = ts_pytorchjob_encode(&j);
    expect_same_json(enc, obj, ptj_samples[i].file);
    cJSON_Delete(enc);
    ts_pytorchjob_release(&j);
    cJSON_Delete(obj);
}

static void test_pytorchjob_samples(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEMS(ptj_samples); i++)
        check_ptj_sample(i);
}

/* TFJob and MPIJob share the PyTorchJob shape under their own replica key:
 * Kueue's TFJob example and an MPIJob decode in Kueue's replica order and
 * encode back unchanged (fields not modelled, like slotsPerWorker, too). */
static void test_kubeflow_siblings(void **state)
{
    cJSON *tf = load_doc(EXAMPLES "jobs-sample-tfjob.yaml", 0);
    cJSON *mpi = cJSON_Parse(
        "{\"apiVersion\":\"kubeflow.org/v2beta1\",\"kind\":\"MPIJob\",\"metadata\":{\"name\":"
        "\"pi\"},\"spec\":{\"slotsPerWorker\":2,\"runPolicy\":{\"suspend\":true},"
        "\"mpiReplicaSpecs\":{\"Worker\":{\"replicas\":3,\"template\":{\"spec\":{\"containers\":"
        "[{\"name\":\"w\",\"image\":\"mpi\"}]}}},\"Launcher\":{\"template\":{\"spec\":"
        "{\"priorityClassName\":\"launcher-pc\",\"containers\":[{\"name\":\"l\",\"image\":"
        "\"mpi\"}]}}}}}}");
    struct ts_pytorch_job j;
    cJSON *enc;

    (void)state;
    ts_pytorchjob_init(&j);
    decode_ptj(tf, &j, "jobs-sample-tfjob.yaml");
    assert_ptr_equal(j.kf, &ts_kf_tfjob);
    assert_string_equal(ts_pytorchjob_queue_name(&j), "user-queue");
    assert_int_equal(j.n_replicas, 2);
    assert_string_equal(j.replicas[0].type, "PS");
    assert_string_equal(j.replicas[1].type, "Worker");
    assert_int_equal(j.replicas[1].replicas, 2);
    check_worker_requests(&j.replicas[1], "cpu=1,memory=200Mi");
    enc = ts_pytorchjob_encode(&j);
    expect_same_json(enc, tf, "jobs-sample-tfjob.yaml");
    cJSON_Delete(enc);

    decode_ptj(mpi, &j, "mpijob");
    assert_ptr_equal(j.kf, &ts_kf_mpijob);
    assert_true(ts_pytorchjob_is_suspended(&j));
    assert_string_equal(j.replicas[0].type, "Launcher");
    assert_int_equal(j.replicas[0].replicas, 1);
    assert_int_equal(j.replicas[1].replicas, 3);
    assert_string_equal(ts_pytorchjob_priority_class(&j), "launcher-pc");
    enc = ts_pytorchjob_encode(&j);
    expect_same_json(enc, mpi, "mpijob");
    cJSON_Delete(enc);
    ts_pytorchjob_release(&j);
    cJSON_Delete(tf);
    cJSON_Delete(mpi);
}

static void test_pytorchjob_fields(void **state)
{
    cJSON *obj = load_doc(DATA "pytorchjob-full.json", 0);
    struct ts_pytorch_job j;

    (void)state;
    ts_pytorchjob_init(&j);
    decode_ptj(obj, &j, "pytorchjob-full");
    assert_true(ts_pytorchjob_is_suspended(&j));
    assert_string_equal(j.run_policy.clean_pod_policy, "None");
    assert_int_equal(j.run_policy.min_available.v, 3);
    assert_int_equal(j.run_policy.backoff_limit.v, 3);
    assert_string_equal(j.replicas[1].restart_policy, "OnFailure");
    assert_int_equal(j.n_conditions, 2);
    assert_false(ts_pytorchjob_is_finished(&j, NULL, NULL));
    assert_true(ts_pytorchjob_is_active(&j));
    assert_int_equal(j.n_replica_statuses, 2);
    assert_string_equal(j.replica_statuses[0].type, "Master");
    assert_int_equal(j.replica_statuses[1].succeeded, 1);
    /* fall back to the first template with a priorityClassName */
    free(j.run_policy.priority_class);
    j.run_policy.priority_class = NULL;
    assert_string_equal(ts_pytorchjob_priority_class(&j), "from-worker");
    ts_pytorchjob_release(&j);
    cJSON_Delete(obj);
}

/* Start: unsuspend and scale workers; unknown fields survive. */
static void test_pytorchjob_edits(void **state)
{
    cJSON *obj = load_doc(DATA "pytorchjob-full.json", 0);
    struct ts_pytorch_job j;
    cJSON *enc;

    (void)state;
    ts_pytorchjob_init(&j);
    decode_ptj(obj, &j, "pytorchjob-full");
    free(j.run_policy.priority_class);
    j.run_policy.priority_class = NULL;
    j.run_policy.suspend.v = 0;
    j.replicas[1].replicas = 2;
    j.replica_statuses[0].active = 0;
    j.replica_statuses[1].active = 0;
    assert_false(ts_pytorchjob_is_active(&j));
    enc = ts_pytorchjob_encode(&j);
    assert_true(cJSON_IsFalse(ts_json_get(enc, "spec.runPolicy.suspend")));
    assert_null(ts_json_get(enc, "spec.runPolicy.schedulingPolicy.priorityClass"));
    assert_non_null(ts_json_get(enc, "spec.runPolicy.schedulingPolicy.scheduleTimeoutSeconds"));
    assert_int_equal(
        cJSON_GetNumberValue(ts_json_get(enc, "spec.pytorchReplicaSpecs.Worker.replicas")), 2);
    assert_null(ts_json_get(enc, "spec.pytorchReplicaSpecs.Master.replicas"));
    assert_string_equal(ts_json_get_string(enc, "spec.elasticPolicy.rdzvBackend"), "c10d");
    assert_string_equal(ts_json_get_string(enc, "spec.nprocPerNode"), "auto");
    assert_null(ts_json_get(enc, "status.replicaStatuses.Master.active"));
    assert_string_equal(ts_json_get_string(enc, "status.replicaStatuses.Master.selector"), "app=m");
    assert_non_null(ts_json_get(enc, "status.replicaStatuses.Worker.labelSelector"));
    cJSON_Delete(enc);
    ts_pytorchjob_release(&j);
    cJSON_Delete(obj);
}

static void test_pytorchjob_order_and_defaults(void **state)
{
    cJSON *obj = parse("{\"metadata\":{\"annotations\":{\"kueue.x-k8s.io/queue-name\":\"q\"}},"
                       "\"spec\":{\"pytorchReplicaSpecs\":{\"Worker\":{\"replicas\":4},"
                       "\"Zeta\":{},\"Alpha\":{\"replicas\":0},\"Master\":{}}}}");
    struct ts_pytorch_job j;
    char *name;

    (void)state;
    ts_pytorchjob_init(&j);
    decode_ptj(obj, &j, "order");
    assert_int_equal(j.n_replicas, 4);
    assert_string_equal(j.replicas[0].type, "Master");
    assert_string_equal(j.replicas[1].type, "Worker");
    assert_string_equal(j.replicas[2].type, "Alpha");
    assert_string_equal(j.replicas[3].type, "Zeta");
    assert_int_equal(j.replicas[0].replicas, 1); /* defaulted */
    assert_int_equal(j.replicas[1].replicas, 4);
    assert_int_equal(j.replicas[2].replicas, 0);
    assert_string_equal(ts_pytorchjob_queue_name(&j), "q");
    assert_false(ts_pytorchjob_is_suspended(&j));
    assert_null(ts_pytorchjob_priority_class(&j));
    name = ts_pytorchjob_podset_name(j.replicas[1].type);
    assert_string_equal(name, "worker");
    free(name);
    ts_pytorchjob_release(&j);
    cJSON_Delete(obj);
}

/* Cases in test/data/api/pytorchjob-status.json: {conditions, finished,
 * success}; finished ones carry the message "ok". */
static void check_ptj_status_case(const cJSON *c)
{
    int want = cJSON_IsTrue(cJSON_GetObjectItem(c, "finished"));
    cJSON *obj = cJSON_CreateObject();
    struct ts_pytorch_job j;
    const char *msg = NULL;
    int success = -1;

    cJSON_AddItemToObject(cJSON_AddObjectToObject(obj, "status"), "conditions",
                          cJSON_Duplicate(cJSON_GetObjectItem(c, "conditions"), 1));
    ts_pytorchjob_init(&j);
    decode_ptj(obj, &j, "pytorchjob-status.json");
    assert_int_equal(ts_pytorchjob_is_finished(&j, &success, &msg), want);
    if (want) {
        assert_int_equal(success, cJSON_IsTrue(cJSON_GetObjectItem(c, "success")));
        assert_string_equal(msg, "ok");
    }
    ts_pytorchjob_release(&j);
    cJSON_Delete(obj);
}

static void test_pytorchjob_finished(void **state)
{
    cJSON *cases = load_doc(DATA "pytorchjob-status.json", 0);
    const cJSON *c;

    (void)state;
    assert_true(cJSON_GetArraySize(cases) >= 5);
    cJSON_ArrayForEach(c, cases) check_ptj_status_case(c);
    cJSON_Delete(cases);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_job_samples),
        cmocka_unit_test(test_job_decode_fields),
        cmocka_unit_test(test_job_encode_preserves_unknown),
        cmocka_unit_test(test_job_from_scratch),
        cmocka_unit_test(test_queue_name_precedence),
        cmocka_unit_test(test_job_finished_and_pod_count),
        cmocka_unit_test(test_job_decode_errors),
        cmocka_unit_test(test_pod_requests_table),
        cmocka_unit_test(test_node_affinity_matching),
        cmocka_unit_test(test_affinity_terms_are_ored),
        cmocka_unit_test(test_template_unchanged_and_copy),
        cmocka_unit_test(test_template_copy_placement),
        cmocka_unit_test(test_template_encode_edits),
        cmocka_unit_test(test_pytorchjob_samples),
        cmocka_unit_test(test_kubeflow_siblings),
        cmocka_unit_test(test_pytorchjob_fields),
        cmocka_unit_test(test_pytorchjob_edits),
        cmocka_unit_test(test_pytorchjob_order_and_defaults),
        cmocka_unit_test(test_pytorchjob_finished),
    };

    ts_alloc_init();
    return cmocka_run_group_tests_name("api_jobs", tests, NULL, NULL);
}
