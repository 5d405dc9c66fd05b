/* Tests for pkg/api/workload*: decode with defaults, encode round trips,
 * deep copy, the create and update validation rules, predicates, and the
 * v1beta1 <-> v1beta2 Workload conversion. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/convert.h"
#include "api/convert_int.h"
#include "api/object.h"
#include "api/workload.h"
#include "api/workload_checks.h"
#include "json/json.h"
#include "json/patch.h"
#include "util/alloc.h"
#include "util/buf.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))
#define DATA       "test/data/api/"

/* --- helpers -------------------------------------------------------------- */

static cJSON *load_json(const char *path)
{
    FILE *f = fopen(path, "rb");
    struct ts_buf b = TS_BUF_INIT;
    struct ts_err err = {0};
    char chunk[4096];
    size_t n;
    cJSON *out = NULL;

    if (!f)
        fail_msg("cannot open %s", path);
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        ts_buf_add(&b, chunk, n);
    fclose(f);
    if (ts_json_parse(b.ptr, b.len, &out, &err))
        fail_msg("%s: %s", path, err.msg);
    ts_buf_release(&b);
    return out;
}

static cJSON *parse(const char *s)
{
    struct ts_err err = {0};
    cJSON *out = NULL;

    if (ts_json_parse(s, strlen(s), &out, &err))
        fail_msg("bad test JSON: %s: %s", err.msg, s);
    return out;
}

/* doc with the RFC 6902 operations `patch` applied (NULL or JSON null = a
 * plain copy).  Ownership: caller deletes. */
static cJSON *patched(const cJSON *doc, const cJSON *patch)
{
    cJSON *out = NULL;
    struct ts_err err = {0};

    if (!patch || cJSON_IsNull(patch))
        return cJSON_Duplicate(doc, 1);
    if (ts_json_patch_apply(doc, patch, &out, &err))
        fail_msg("patch: %s", err.msg);
    return out;
}

static char *errors_text(const struct ts_field_errors *errs)
{
    struct ts_buf b = TS_BUF_INIT;

    ts_field_errors_format(errs, &b);
    return ts_buf_take(&b);
}

/* Decodes obj, failing the test on any decode error. */
static void decode_ok(const cJSON *obj, struct ts_workload *w)
{
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_dec d;

    ts_dec_init(&d, &errs);
    ts_workload_decode(&d, obj, w);
    if (errs.n) {
        char *t = errors_text(&errs);

        fail_msg("unexpected decode errors: %s", t);
    }
    ts_field_errors_release(&errs);
}

static char *dump(const cJSON *v)
{
    return ts_json_dumps(v, TS_JSON_COMPACT);
}

/* --- decode and defaults ---------------------------------------------------- */

static void test_decode_defaults(void **state)
{
    cJSON *obj = parse("{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"Workload\","
                       "\"metadata\":{\"name\":\"w\",\"namespace\":\"ns\"},"
                       "\"spec\":{\"podSets\":[{\"template\":{}}]},"
                       "\"status\":{\"admission\":{\"clusterQueue\":\"cq\","
                       "\"podSetAssignments\":[{\"count\":1}]},"
                       "\"resourceRequests\":[{\"resources\":{\"cpu\":\"1\"}}]}}");
    struct ts_workload w;
    cJSON *enc;

    (void)state;
    ts_workload_init(&w);
    decode_ok(obj, &w);
    assert_int_equal(w.spec.n_podsets, 1);
    assert_string_equal(w.spec.podsets[0].name, "main");
    assert_int_equal(w.spec.podsets[0].count, 1);
    assert_false(w.spec.podsets[0].min_count.set);
    assert_true(w.spec.active.set && w.spec.active.v);
    assert_true(ts_workload_is_active(&w));
    assert_false(w.spec.priority.set);
    assert_int_equal(ts_workload_priority(&w), 0);
    assert_string_equal(w.status.admission->podset_assignments[0].name, "main");
    assert_string_equal(w.status.resource_requests[0].name, "main");
    /* defaults are written out explicitly, as the apiserver returns them */
    enc = ts_workload_encode(&w);
    assert_string_equal(ts_json_get_string(enc, "spec.podSets[0].name"), "main");
    assert_int_equal(cJSON_GetNumberValue(ts_json_get(enc, "spec.podSets[0].count")), 1);
    assert_true(cJSON_IsTrue(ts_json_get(enc, "spec.active")));
    assert_null(ts_json_get(enc, "spec.priority"));
    assert_null(ts_json_get(enc, "status.conditions"));
    cJSON_Delete(enc);
    ts_workload_release(&w);
    cJSON_Delete(obj);
}

static void check_full_spec(const struct ts_workload *w)
{
    const struct ts_podset *ps;

    assert_string_equal(w->meta.name, "job-sample-job-abcde");
    assert_string_equal(w->spec.queue_name, "user-queue");
    assert_true(w->spec.priority_class_ref.set);
    assert_string_equal(w->spec.priority_class_ref.kind, "WorkloadPriorityClass");
    assert_string_equal(w->spec.priority_class_ref.name, "high");
    assert_int_equal(ts_workload_priority(w), 10000);
    assert_int_equal(w->spec.maximum_execution_time_seconds.v, 3600);
    assert_non_null(w->spec.preemption_gates);
    assert_int_equal(w->spec.n_podsets, 2);
    ps = ts_workload_find_podset(w, "workers");
    assert_non_null(ps);
    assert_int_equal(ps->count, 4);
    assert_true(ps->min_count.set);
    assert_int_equal(ps->min_count.v, 2);
    ps = ts_workload_find_podset(w, "driver");
    assert_non_null(ps->topology_request);
    assert_int_equal(ps->template.n_containers, 1);
    assert_int_equal(ps->template.n_init_containers, 2);
    assert_string_equal(ps->template.init_containers[1].restart_policy, "Always");
    assert_int_equal(ps->template.n_tolerations, 2);
    assert_int_equal(ps->template.n_affinity_terms, 2);
    assert_int_equal(ps->template.affinity_terms[0].exprs[1].op, TS_NODE_SELECTOR_GT);
    assert_string_equal(ps->template.priority_class_name, "high-priority");
    assert_string_equal(ps->template.runtime_class_name, "gvisor");
}

static void check_full_admission(const struct ts_workload *w)
{
    const struct ts_podset_assignment *psa = &w->status.admission->podset_assignments[0];
    char q[TS_QUANTITY_STR_MAX];

    assert_true(ts_workload_has_quota_reservation(w));
    assert_true(ts_workload_is_admitted(w));
    assert_false(ts_workload_is_evicted(w));
    assert_false(ts_workload_is_finished(w));
    assert_string_equal(w->status.admission->cluster_queue, "cluster-queue");
    assert_string_equal(ts_strmap_get(&psa->flavors, "memory"), "on-demand");
    ts_quantity_format(ts_resource_list_get(&psa->resource_usage, "cpu"), q, sizeof(q));
    assert_string_equal(q, "2100m");
    assert_non_null(psa->topology_assignment);
    assert_string_equal(psa->delayed_topology_request, "Ready");
}

static void check_full_status(const struct ts_workload *w)
{
    const struct ts_admission_check_state *ac = &w->status.admission_checks[0];

    assert_true(w->status.requeue_state.set);
    assert_int_equal(w->status.requeue_state.count.v, 2);
    assert_int_equal(w->status.requeue_state.requeue_at, INT64_C(1767326400) * TS_TIME_SECOND);
    assert_int_equal(w->status.n_reclaimable_pods, 1);
    assert_string_equal(ac->state, "Ready");
    assert_int_equal(ac->requeue_after_seconds.v, 60);
    assert_int_equal(ac->n_podset_updates, 2);
    assert_string_equal(ts_strmap_get(&ac->podset_updates[0].node_selector, "pool"), "p1");
    assert_int_equal(ac->podset_updates[0].n_tolerations, 1);
    assert_int_equal(w->status.accumulated_past_execution_time_seconds.v, 120);
    assert_int_equal(w->status.n_evictions, 2);
    assert_string_equal(w->status.evictions[0].underlying_cause, "InClusterQueue");
    assert_null(w->status.evictions[1].underlying_cause);
    assert_string_equal(w->status.cluster_name, "worker-1");
    assert_int_equal(w->status.unhealthy_nodes.n, 2);
    assert_string_equal(w->status.unhealthy_nodes.items[1], "node-9");
    assert_non_null(w->status.preemption_gates);
}

static void test_decode_full(void **state)
{
    cJSON *obj = load_json(DATA "workload-full.json");
    struct ts_workload w;

    (void)state;
    ts_workload_init(&w);
    decode_ok(obj, &w);
    check_full_spec(&w);
    check_full_admission(&w);
    check_full_status(&w);
    ts_workload_release(&w);
    cJSON_Delete(obj);
}

/* TS_DECODE_NO_RAW (the controller's feed): every typed field as without
 * it, and no raw copy of a pod template. */
static void test_decode_no_raw(void **state)
{
    cJSON *obj = load_json(DATA "workload-full.json");

    (void)state;
    for (unsigned flags = 0; flags <= TS_DECODE_NO_RAW; flags += TS_DECODE_NO_RAW) {
        struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
        struct ts_object o;

        assert_int_equal(ts_object_decode_flags(obj, flags, &o, &errs, NULL), 0);
        assert_int_equal(errs.n, 0);
        assert_int_equal(o.kind, TS_KIND_WORKLOAD);
        check_full_spec(&o.u.wl);
        check_full_status(&o.u.wl);
        assert_true(o.u.wl.spec.n_podsets > 0);
        for (size_t i = 0; i < o.u.wl.spec.n_podsets; i++) {
            const struct ts_pod_template *t = &o.u.wl.spec.podsets[i].template;

            if (flags & TS_DECODE_NO_RAW)
                assert_null(t->raw);
            else
                assert_non_null(t->raw);
            assert_true(t->n_containers > 0);
        }
        ts_object_release(&o);
        ts_field_errors_release(&errs);
    }
    cJSON_Delete(obj);
}

/* encode(decode(file)) == file for a file in canonical form, so nothing is
 * dropped or renamed; decode(encode(x)) == x; copy(x) == x. */
static void test_round_trip_and_copy(void **state)
{
    cJSON *obj = load_json(DATA "workload-full.json");
    struct ts_workload w, w2, c;
    cJSON *enc;

    (void)state;
    ts_workload_init(&w);
    ts_workload_init(&w2);
    ts_workload_init(&c);
    decode_ok(obj, &w);
    enc = ts_workload_encode(&w);
    if (!ts_json_equal(enc, obj)) {
        char *a = dump(enc), *b = dump(obj);

        fail_msg("encode(decode(x)) != x\n got: %s\nwant: %s", a, b);
    }
    decode_ok(enc, &w2);
    assert_true(ts_workload_equal(&w, &w2));
    ts_workload_copy(&c, &w);
    ts_workload_release(&w); /* the copy must not share anything */
    assert_true(ts_workload_equal(&c, &w2));
    c.spec.podsets[1].count = 5;
    assert_false(ts_workload_equal(&c, &w2));
    cJSON_Delete(enc);
    ts_workload_release(&w2);
    ts_workload_release(&c);
    cJSON_Delete(obj);
}

/* Malformed objects and the field error each must produce. */
static const struct {
    const char *json;
    const char *want;
} decode_error_cases[] = {
    {"{\"spec\":{\"podSets\":[{\"count\":\"3\",\"template\":{}}]}}",
     "spec.podSets[0].count: Invalid value: \"3\": must be of type int32"},
    {"{\"spec\":{\"podSets\":[{\"template\":{\"spec\":{\"containers\":[{\"resources\":"
     "{\"requests\":{\"cpu\":\"1x\"}}}]}}}]}}",
     "spec.podSets[0].template.spec.containers[0].resources.requests.cpu"},
    {"{\"spec\":{\"podSets\":[{\"template\":{\"spec\":{\"affinity\":{\"nodeAffinity\":"
     "{\"requiredDuringSchedulingIgnoredDuringExecution\":{\"nodeSelectorTerms\":"
     "[{\"matchExpressions\":[{\"key\":\"k\",\"operator\":\"Near\"}]}]}}}}}}]}}",
     "spec.podSets[0].template.spec.affinity.nodeAffinity."
     "requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]."
     "matchExpressions[0].operator: Unsupported value: \"Near\""},
    {"{\"spec\":{\"active\":\"yes\"}}", "spec.active: Invalid value: \"yes\""},
    {"{\"status\":{\"admission\":{\"podSetAssignments\":[{\"count\":1.5}]}}}",
     "status.admission.podSetAssignments[0].count: Invalid value: \"1.5\""},
    {"{\"status\":{\"requeueState\":{\"requeueAt\":\"yesterday\"}}}",
     "status.requeueState.requeueAt: Invalid value: \"yesterday\""},
    {"{\"spec\":{\"podSets\":{}}}", "spec.podSets: Invalid value"},
};

static void test_decode_errors(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEMS(decode_error_cases); i++) {
        struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
        struct ts_workload w;
        struct ts_dec d;
        cJSON *obj = parse(decode_error_cases[i].json);
        char *t;

        ts_workload_init(&w);
        ts_dec_init(&d, &errs);
        ts_workload_decode(&d, obj, &w);
        t = errors_text(&errs);
        if (!strstr(t, decode_error_cases[i].want))
            fail_msg("case %zu: want %s\n got %s", i, decode_error_cases[i].want, t);
        free(t);
        ts_field_errors_release(&errs);
        ts_workload_release(&w);
        cJSON_Delete(obj);
    }
}

static void test_predicates_and_priority(void **state)
{
    struct ts_workload w;
    struct ts_podset *ps;

    (void)state;
    ts_workload_init(&w);
    ps = ts_workload_add_podset(&w, NULL);
    assert_string_equal(ps->name, "main");
    assert_int_equal(ps->count, 1);
    assert_true(ts_workload_is_active(&w)); /* unset = active */
    w.spec.active.set = 1;
    w.spec.active.v = 0;
    assert_false(ts_workload_is_active(&w));
    w.spec.priority.set = 1;
    w.spec.priority.v = 2147483000;
    ts_strmap_set(&w.meta.annotations, TS_WL_ANNOTATION_PRIORITY_BOOST, "1000");
    assert_int_equal(ts_workload_effective_priority(&w, 0), 2147483000);
    assert_int_equal(ts_workload_effective_priority(&w, 1), INT32_MAX);
    ts_strmap_set(&w.meta.annotations, TS_WL_ANNOTATION_PRIORITY_BOOST, "-1000");
    assert_int_equal(ts_workload_effective_priority(&w, 1), 2147482000);
    ts_strmap_set(&w.meta.annotations, TS_WL_ANNOTATION_PRIORITY_BOOST, "x");
    assert_int_equal(ts_workload_effective_priority(&w, 1), 2147483000);
    ts_conditions_set(&w.status.conditions, TS_WL_COND_EVICTED, "True", TS_WL_REASON_PREEMPTED, "m",
                      0, TS_TIME_SECOND);
    ts_conditions_set(&w.status.conditions, TS_WL_COND_FINISHED, "False", TS_WL_REASON_SUCCEEDED,
                      "m", 0, TS_TIME_SECOND);
    assert_true(ts_workload_is_evicted(&w));
    assert_false(ts_workload_is_finished(&w));
    assert_false(ts_workload_has_quota_reservation(&w));
    ts_workload_release(&w);
}

/* A workload built with the engine's API (no JSON) validates. */
static void test_builders_validate(void **state)
{
    struct ts_workload w;
    struct ts_podset_assignment *psa;
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;

    (void)state;
    ts_workload_init(&w);
    w.meta.name = ts_xstrdup("wl");
    ts_workload_add_podset(&w, "main");
    ts_conditions_set(&w.status.conditions, TS_WL_COND_QUOTA_RESERVED, "True",
                      TS_WL_REASON_QUOTA_RESERVED, "m", 0, TS_TIME_SECOND);
    w.status.admission = ts_admission_new();
    w.status.admission->cluster_queue = ts_xstrdup("cq");
    psa = ts_admission_add(w.status.admission, NULL);
    psa->count.set = 1;
    psa->count.v = 1;
    ts_workload_validate(&w, &errs);
    if (errs.n)
        fail_msg("built workload invalid: %s", errors_text(&errs));
    ts_admission_add(w.status.admission, "extra");
    ts_workload_validate(&w, &errs);
    assert_int_equal(errs.n, 2); /* count mismatch + unknown pod set */
    ts_field_errors_release(&errs);
    ts_workload_release(&w);
}

/* --- create validation --------------------------------------------------------- */

/* Validation tables live in test/data/api/workload-validate-*.json: each
 * case patches workload-valid.json and names a substring of the expected
 * error text ("want"), or null when the object must be valid. */
static void expect_errors(const cJSON *c, const struct ts_field_errors *errs)
{
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(c, "name"));
    const char *want = cJSON_GetStringValue(cJSON_GetObjectItem(c, "want"));
    char *t = errors_text(errs);

    if (!want && errs->n)
        fail_msg("%s: want no errors, got %s", name, t);
    if (want && !strstr(t, want))
        fail_msg("%s:\nwant %s\n got %s", name, want, t);
    free(t);
}

static void run_create_case(const cJSON *base, const cJSON *c)
{
    cJSON *obj = patched(base, cJSON_GetObjectItem(c, "patch"));
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_workload w;

    ts_workload_init(&w);
    decode_ok(obj, &w);
    ts_workload_validate(&w, &errs);
    expect_errors(c, &errs);
    ts_field_errors_release(&errs);
    ts_workload_release(&w);
    cJSON_Delete(obj);
}

static void test_validate_create_table(void **state)
{
    cJSON *base = load_json(DATA "workload-valid.json");
    cJSON *cases = load_json(DATA "workload-validate-create.json");
    const cJSON *c;

    (void)state;
    assert_true(cJSON_GetArraySize(cases) > 40);
    cJSON_ArrayForEach(c, cases) run_create_case(base, c);
    cJSON_Delete(cases);
    cJSON_Delete(base);
}

static void test_validate_too_many_podsets(void **state)
{
    struct ts_workload w;
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    char name[16], *t;

    (void)state;
    ts_workload_init(&w);
    w.meta.name = ts_xstrdup("wl");
    for (int i = 0; i < 8; i++) {
        snprintf(name, sizeof(name), "ps-%d", i);
        ts_workload_add_podset(&w, name);
    }
    ts_workload_validate(&w, &errs);
    assert_int_equal(errs.n, 0);
    ts_workload_add_podset(&w, "ps-8");
    ts_workload_validate(&w, &errs);
    t = errors_text(&errs);
    assert_string_equal(t, "spec.podSets: Too many: 9: must have at most 8 items");
    free(t);
    ts_field_errors_release(&errs);
    ts_workload_release(&w);
}

/* --- update validation --------------------------------------------------------- */

static void run_update_case(const cJSON *base, const cJSON *c)
{
    cJSON *old_obj = patched(base, cJSON_GetObjectItem(c, "old"));
    cJSON *new_obj = patched(old_obj, cJSON_GetObjectItem(c, "new"));
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_workload o, n;

    ts_workload_init(&o);
    ts_workload_init(&n);
    decode_ok(old_obj, &o);
    decode_ok(new_obj, &n);
    ts_workload_validate_update(&o, &n, &errs);
    expect_errors(c, &errs);
    ts_field_errors_release(&errs);
    ts_workload_release(&o);
    ts_workload_release(&n);
    cJSON_Delete(old_obj);
    cJSON_Delete(new_obj);
}

static void test_validate_update_table(void **state)
{
    cJSON *base = load_json(DATA "workload-valid.json");
    cJSON *cases = load_json(DATA "workload-validate-update.json");
    const cJSON *c;

    (void)state;
    assert_true(cJSON_GetArraySize(cases) > 20);
    cJSON_ArrayForEach(c, cases) run_update_case(base, c);
    cJSON_Delete(cases);
    cJSON_Delete(base);
}

/* --- conversion ------------------------------------------------------------------ */

static void expect_round_trip(const char *file)
{
    cJSON *orig = load_json(file);
    cJSON *obj = cJSON_Duplicate(orig, 1);
    struct ts_err err = {0};

    assert_int_equal(ts_convert_kueue(obj, TS_KUEUE_V1BETA2, &err), 0);
    assert_string_equal(ts_json_get_string(obj, "apiVersion"), TS_KUEUE_V1BETA2);
    assert_int_equal(ts_convert_kueue(obj, TS_KUEUE_V1BETA1, &err), 0);
    if (!ts_json_equal(obj, orig)) {
        char *a = dump(obj), *b = dump(orig);

        fail_msg("%s: v1beta1 -> v1beta2 -> v1beta1 differs\n got: %s\nwant: %s", file, a, b);
    }
    cJSON_Delete(obj);
    cJSON_Delete(orig);
}

static void test_convert_wpc_source_and_typo(void **state)
{
    cJSON *obj = load_json(DATA "workload-v1beta1.json");
    const char *ta = "status.admission.podSetAssignments[0].topologyAssignment";
    char path[160];
    struct ts_workload w;
    struct ts_err err = {0};

    (void)state;
    assert_int_equal(ts_convert_kueue(obj, TS_KUEUE_V1BETA2, &err), 0);
    assert_null(ts_json_get(obj, "spec.priorityClassName"));
    assert_null(ts_json_get(obj, "spec.priorityClassSource"));
    assert_string_equal(ts_json_get_string(obj, "spec.priorityClassRef.group"), "kueue.x-k8s.io");
    assert_string_equal(ts_json_get_string(obj, "spec.priorityClassRef.kind"),
                        "WorkloadPriorityClass");
    assert_string_equal(ts_json_get_string(obj, "spec.priorityClassRef.name"), "medium");
    assert_null(ts_json_get(obj, "status.accumulatedPastExexcutionTimeSeconds"));
    assert_int_equal(
        cJSON_GetNumberValue(ts_json_get(obj, "status.accumulatedPastExecutionTimeSeconds")), 42);
    /* one slice of 3 domains: block shared, hostnames share a prefix and suffix */
    snprintf(path, sizeof(path), "%s.domains", ta);
    assert_null(ts_json_get(obj, path));
    snprintf(path, sizeof(path), "%s.slices[0].domainCount", ta);
    assert_int_equal(cJSON_GetNumberValue(ts_json_get(obj, path)), 3);
    snprintf(path, sizeof(path), "%s.slices[0].valuesPerLevel[0].universal", ta);
    assert_string_equal(ts_json_get_string(obj, path), "block-1");
    snprintf(path, sizeof(path), "%s.slices[0].valuesPerLevel[1].individual.prefix", ta);
    assert_string_equal(ts_json_get_string(obj, path), "gke-pool-node-");
    snprintf(path, sizeof(path), "%s.slices[0].valuesPerLevel[1].individual.suffix", ta);
    assert_string_equal(ts_json_get_string(obj, path), "7");
    snprintf(path, sizeof(path), "%s.slices[0].valuesPerLevel[1].individual.roots[2]", ta);
    assert_string_equal(ts_json_get_string(obj, path), "c");
    snprintf(path, sizeof(path), "%s.slices[0].podCounts.individual[0]", ta);
    assert_int_equal(cJSON_GetNumberValue(ts_json_get(obj, path)), 2);
    /* the typed decoder reads the converted object */
    ts_workload_init(&w);
    decode_ok(obj, &w);
    assert_string_equal(w.spec.priority_class_ref.kind, TS_WL_PRIO_KIND_WPC);
    assert_int_equal(w.status.accumulated_past_execution_time_seconds.v, 42);
    ts_workload_release(&w);
    cJSON_Delete(obj);
    expect_round_trip(DATA "workload-v1beta1.json");
}

static void test_convert_pc_source(void **state)
{
    cJSON *obj = load_json(DATA "workload-v1beta1-pc.json");
    struct ts_err err = {0};
    const char *p1 = "status.admission.podSetAssignments[1].topologyAssignment.slices[0]";
    char path[160];

    (void)state;
    assert_int_equal(ts_convert_kueue(obj, TS_KUEUE_V1BETA2, &err), 0);
    assert_string_equal(ts_json_get_string(obj, "spec.priorityClassRef.group"),
                        "scheduling.k8s.io");
    assert_string_equal(ts_json_get_string(obj, "spec.priorityClassRef.kind"), "PriorityClass");
    assert_string_equal(ts_json_get_string(obj, "spec.priorityClassRef.name"), "high-priority");
    snprintf(path, sizeof(path), "%s.valuesPerLevel[0].individual.roots[1]", p1);
    assert_string_equal(ts_json_get_string(obj, path), "2");
    snprintf(path, sizeof(path), "%s.valuesPerLevel[0].individual.prefix", p1);
    assert_string_equal(ts_json_get_string(obj, path), "r");
    snprintf(path, sizeof(path), "%s.podCounts.universal", p1);
    assert_int_equal(cJSON_GetNumberValue(ts_json_get(obj, path)), 1);
    /* the annotation the object already had survives, no conversion data added */
    assert_string_equal(ts_json_get_string(obj, "metadata.annotations.keep"), "me");
    assert_null(ts_json_get(obj, "metadata.annotations[turnstile.dev/conversion-data]"));
    cJSON_Delete(obj);
    expect_round_trip(DATA "workload-v1beta1-pc.json");
}

static void test_convert_no_priority_and_hooks_direct(void **state)
{
    cJSON *obj = parse("{\"apiVersion\":\"kueue.x-k8s.io/v1beta1\",\"kind\":\"Workload\","
                       "\"spec\":{\"podSets\":[],\"queueName\":\"q\"},\"status\":{}}");
    cJSON *orig = cJSON_Duplicate(obj, 1);
    struct ts_err err = {0};

    (void)state;
    assert_int_equal(ts__convert_workload_up(obj, &err), 0);
    assert_null(ts_json_get(obj, "spec.priorityClassRef"));
    assert_int_equal(ts__convert_workload_down(obj, &err), 0);
    assert_true(ts_json_equal(obj, orig));
    cJSON_Delete(obj);
    cJSON_Delete(orig);
}

static void test_convert_preemption_gates_stashed(void **state)
{
    cJSON *orig = load_json(DATA "workload-full.json");
    cJSON *obj = cJSON_Duplicate(orig, 1);
    struct ts_err err = {0};
    const char *ann;

    (void)state;
    assert_int_equal(ts_convert_kueue(obj, TS_KUEUE_V1BETA1, &err), 0);
    assert_null(ts_json_get(obj, "spec.preemptionGates"));
    assert_null(ts_json_get(obj, "status.preemptionGates"));
    assert_null(ts_json_get(obj, "spec.priorityClassRef"));
    assert_string_equal(ts_json_get_string(obj, "spec.priorityClassName"), "high");
    assert_string_equal(ts_json_get_string(obj, "spec.priorityClassSource"),
                        "kueue.x-k8s.io/workloadpriorityclass");
    assert_int_equal(
        cJSON_GetNumberValue(ts_json_get(obj, "status.accumulatedPastExexcutionTimeSeconds")), 120);
    assert_string_equal(ts_json_get_string(obj, "status.admission.podSetAssignments[0]."
                                                "topologyAssignment.domains[0].values[0]"),
                        "node-1");
    ann = ts_json_get_string(obj, "metadata.annotations[turnstile.dev/conversion-data]");
    assert_non_null(ann);
    assert_non_null(strstr(ann, "example.com/gate"));
    assert_int_equal(ts_convert_kueue(obj, TS_KUEUE_V1BETA2, &err), 0);
    if (!ts_json_equal(obj, orig)) {
        char *a = dump(obj);

        fail_msg("v1beta2 -> v1beta1 -> v1beta2 differs: %s", a);
    }
    cJSON_Delete(obj);
    cJSON_Delete(orig);
}

/* v1beta1 domains of levels [a, b] and the v1beta2 slices they compress to. */
static const struct {
    const char *domains; /* v1beta1 domains of levels [a, b] */
    const char *slice;   /* expected v1beta2 slices */
} topo_cases[] = {
    {"[]", "[]"},
    {"[{\"values\":[\"x\",\"n1\"],\"count\":3}]",
     "[{\"domainCount\":1,\"valuesPerLevel\":[{\"universal\":\"x\"},{\"universal\":\"n1\"}],"
     "\"podCounts\":{\"universal\":3}}]"},
    {"[{\"values\":[\"x\",\"n1\"],\"count\":1},{\"values\":[\"y\",\"n12\"],\"count\":2}]",
     "[{\"domainCount\":2,\"valuesPerLevel\":[{\"individual\":{\"roots\":[\"x\",\"y\"]}},"
     "{\"individual\":{\"prefix\":\"n1\",\"roots\":[\"\",\"2\"]}}],"
     "\"podCounts\":{\"individual\":[1,2]}}]"},
    {"[{\"values\":[\"rack-1-a\",\"aa\"],\"count\":1},"
     "{\"values\":[\"rack-2-a\",\"aaa\"],\"count\":1}]",
     "[{\"domainCount\":2,\"valuesPerLevel\":[{\"individual\":{\"prefix\":\"rack-\","
     "\"suffix\":\"-a\",\"roots\":[\"1\",\"2\"]}},"
     "{\"individual\":{\"prefix\":\"aa\",\"roots\":[\"\",\"a\"]}}],"
     "\"podCounts\":{\"universal\":1}}]"},
};

static void check_topology_case(size_t i)
{
    struct ts_buf b = TS_BUF_INIT;
    struct ts_err err = {0};
    cJSON *obj, *orig, *want;

    ts_buf_addf(&b,
                "{\"apiVersion\":\"kueue.x-k8s.io/v1beta1\",\"kind\":\"Workload\","
                "\"status\":{\"admission\":{\"podSetAssignments\":[{\"name\":\"main\","
                "\"topologyAssignment\":{\"levels\":[\"a\",\"b\"],\"domains\":%s}}]}}}",
                topo_cases[i].domains);
    obj = parse(b.ptr);
    orig = cJSON_Duplicate(obj, 1);
    want = parse(topo_cases[i].slice);
    assert_int_equal(ts_convert_kueue(obj, TS_KUEUE_V1BETA2, &err), 0);
    if (!ts_json_equal(ts_json_get(obj, "status.admission.podSetAssignments[0]."
                                        "topologyAssignment.slices"),
                       want))
        fail_msg("case %zu: got %s", i, dump(obj));
    assert_int_equal(ts_convert_kueue(obj, TS_KUEUE_V1BETA1, &err), 0);
    assert_true(ts_json_equal(obj, orig));
    ts_buf_release(&b);
    cJSON_Delete(obj);
    cJSON_Delete(orig);
    cJSON_Delete(want);
}

static void test_convert_topology_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEMS(topo_cases); i++)
        check_topology_case(i);
}

static void test_convert_errors(void **state)
{
    static const struct {
        const char *json, *to, *want;
    } cases[] = {
        {"{\"apiVersion\":\"kueue.x-k8s.io/v1beta1\",\"kind\":\"Workload\",\"spec\":"
         "{\"priorityClassName\":\"x\",\"priorityClassSource\":\"example.com/x\"}}",
         TS_KUEUE_V1BETA2, "spec.priorityClassSource: Unsupported value: \"example.com/x\""},
        {"{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"Workload\",\"spec\":"
         "{\"priorityClassRef\":{\"group\":\"x.io\",\"kind\":\"Thing\",\"name\":\"n\"}}}",
         TS_KUEUE_V1BETA1, "spec.priorityClassRef: unsupported group/kind"},
        {"{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"Workload\",\"status\":"
         "{\"admission\":{\"podSetAssignments\":[{\"topologyAssignment\":{\"levels\":[\"a\"],"
         "\"slices\":[{\"domainCount\":2,\"valuesPerLevel\":[{\"individual\":{\"roots\":"
         "[\"x\"]}}],\"podCounts\":{\"universal\":1}}]}}]}}}",
         TS_KUEUE_V1BETA1,
         "status.admission.podSetAssignments[0].topologyAssignment.slices[0].valuesPerLevel[0]"},
        {"{\"apiVersion\":\"kueue.x-k8s.io/v1beta1\",\"kind\":\"Workload\",\"status\":"
         "{\"admission\":{\"podSetAssignments\":[{\"topologyAssignment\":{\"levels\":[\"a\","
         "\"b\"],\"domains\":[{\"values\":[\"x\"],\"count\":1}]}}]}}}",
         TS_KUEUE_V1BETA2,
         "status.admission.podSetAssignments[0].topologyAssignment.domains[0].values"},
    };

    (void)state;
    for (size_t i = 0; i < N_ELEMS(cases); i++) {
        cJSON *obj = parse(cases[i].json);
        struct ts_err err = {0};

        assert_int_equal(ts_convert_kueue(obj, cases[i].to, &err), TS_EINVAL);
        if (!strstr(err.msg, cases[i].want))
            fail_msg("case %zu: want %s, got %s", i, cases[i].want, err.msg);
        cJSON_Delete(obj);
    }
}

/* Kueue's SyncAdmittedCondition, row by row: reservation x checks ready x
 * admitted before -> the Admitted condition written (or none), and the time
 * admitted added up when it turns False. */
static void test_sync_admitted(void **state)
{
    static const struct {
        int reserved, ready, admitted_before;
        const char *status, *reason; /* NULL: no change */
    } rows[] = {
        {1, 1, 0, "True", "Admitted"},
        {1, 0, 0, NULL, NULL}, /* not admitted and not to be: untouched */
        {0, 1, 0, NULL, NULL},
        {1, 1, 1, NULL, NULL}, /* stays admitted */
        {1, 0, 1, "False", "UnsatisfiedChecks"},
        {0, 1, 1, "False", "NoReservation"},
        {0, 0, 1, "False", "NoReservationUnsatisfiedChecks"},
    };
    const ts_time t0 = INT64_C(1795255200) * TS_TIME_SECOND;

    (void)state;
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        struct ts_workload wl;
        struct ts_strlist names = TS_STRLIST_INIT;
        const struct ts_condition *c;
        int changed;

        ts_workload_init(&wl);
        ts_strlist_push(&names, "check");
        ts_workload_sync_checks(&wl, &names, t0);
        if (rows[i].ready) {
            free(wl.status.admission_checks[0].state);
            wl.status.admission_checks[0].state = ts_xstrdup("Ready");
        }
        if (rows[i].reserved)
            ts_conditions_set(&wl.status.conditions, "QuotaReserved", "True", "QuotaReserved", "",
                              0, t0);
        if (rows[i].admitted_before)
            ts_conditions_set(&wl.status.conditions, "Admitted", "True", "Admitted", "", 0, t0);
        changed = ts_workload_sync_admitted(&wl, t0 + 90 * TS_TIME_SECOND);
        c = ts_conditions_find(&wl.status.conditions, "Admitted");
        if (!rows[i].status) {
            assert_false(changed);
            if (!rows[i].admitted_before)
                assert_null(c);
        } else {
            assert_true(changed);
            assert_string_equal(c->status, rows[i].status);
            assert_string_equal(c->reason, rows[i].reason);
            if (!strcmp(rows[i].status, "False"))
                assert_int_equal(wl.status.accumulated_past_execution_time_seconds.v, 90);
        }
        ts_strlist_release(&names);
        ts_workload_release(&wl);
    }
}

/* Check states: synced to a set (added Pending, others dropped, sorted),
 * reset after an eviction, the latest retry time. */
static void test_check_states(void **state)
{
    const ts_time t0 = INT64_C(1795255200) * TS_TIME_SECOND;
    struct ts_strlist names = TS_STRLIST_INIT;
    struct ts_workload wl;
    char buf[64];

    (void)state;
    ts_workload_init(&wl);
    ts_strlist_push(&names, "b");
    ts_strlist_push(&names, "a");
    assert_true(ts_workload_sync_checks(&wl, &names, t0));
    assert_false(ts_workload_sync_checks(&wl, &names, t0)); /* nothing to do */
    assert_string_equal(wl.status.admission_checks[0].name, "a");
    assert_string_equal(wl.status.admission_checks[1].state, "Pending");
    for (size_t i = 0; i < 2; i++) {
        free(wl.status.admission_checks[i].state);
        wl.status.admission_checks[i].state = ts_xstrdup("Retry");
        wl.status.admission_checks[i].requeue_after_seconds.set = 1;
        wl.status.admission_checks[i].requeue_after_seconds.v = (int32_t)(10 * (i + 1));
        wl.status.admission_checks[i].last_transition_time = t0;
    }
    assert_int_equal(ts_workload_checks_retry_at(&wl), t0 + 20 * TS_TIME_SECOND);
    assert_non_null(ts_workload_checks_in(&wl, "Retry", buf, sizeof(buf)));
    assert_string_equal(buf, "a,b");
    assert_null(ts_workload_checks_in(&wl, "Rejected", buf, sizeof(buf)));
    ts_workload_reset_checks(&wl, t0 + TS_TIME_SECOND);
    assert_string_equal(wl.status.admission_checks[0].state, "Pending");
    assert_string_equal(wl.status.admission_checks[0].message,
                        "Reset to Pending after eviction. Previously: Retry");
    assert_int_equal(wl.status.admission_checks[0].retry_count.v, 1);
    assert_int_equal(wl.status.admission_checks[0].requeue_after_seconds.v, 10);
    assert_int_equal(ts_workload_checks_retry_at(&wl), 0);
    ts_strlist_release(&names);
    ts_strlist_push(&names, "c");
    assert_true(ts_workload_sync_checks(&wl, &names, t0));
    assert_int_equal(wl.status.n_admission_checks, 1);
    assert_string_equal(wl.status.admission_checks[0].name, "c");
    ts_strlist_release(&names);
    assert_true(ts_workload_sync_checks(&wl, &names, t0));
    assert_null(wl.status.admission_checks);
    ts_workload_release(&wl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decode_defaults),
        cmocka_unit_test(test_decode_full),
        cmocka_unit_test(test_decode_no_raw),
        cmocka_unit_test(test_round_trip_and_copy),
        cmocka_unit_test(test_decode_errors),
        cmocka_unit_test(test_predicates_and_priority),
        cmocka_unit_test(test_builders_validate),
        cmocka_unit_test(test_validate_create_table),
        cmocka_unit_test(test_validate_too_many_podsets),
        cmocka_unit_test(test_validate_update_table),
        cmocka_unit_test(test_convert_wpc_source_and_typo),
        cmocka_unit_test(test_convert_pc_source),
        cmocka_unit_test(test_convert_no_priority_and_hooks_direct),
        cmocka_unit_test(test_convert_preemption_gates_stashed),
        cmocka_unit_test(test_convert_topology_table),
        cmocka_unit_test(test_convert_errors),
        cmocka_unit_test(test_sync_admitted),
        cmocka_unit_test(test_check_states),
    };

    ts_alloc_init();
    return cmocka_run_group_tests_name("api_workload", tests, NULL, NULL);
}
