/* Tests for pkg/metrics/kueue: Kueue's family names, label names and bucket
 * layouts as the exposition shows them, one-hot statuses, roles and the
 * forget_* calls that drop a deleted queue's series. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/kueue.h"
#include "util/alloc.h"

#define V(...) ((const char *const[]){__VA_ARGS__})

struct fixture {
    struct ts_metrics_registry *reg;
    struct ts_kmetrics *m;
};

static int setup(void **state)
{
    struct fixture *f = ts_xcalloc(1, sizeof(*f));
    struct ts_err err = {0};

    f->reg = ts_metrics_registry_new();
    if (ts_kmetrics_new(f->reg, "leader", &f->m, &err))
        fail_msg("%s", err.msg);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;

    ts_kmetrics_free(f->m);
    ts_metrics_registry_free(f->reg);
    free(f);
    return 0;
}

static char *render(struct ts_metrics_registry *reg)
{
    struct ts_buf b = TS_BUF_INIT;

    assert_int_equal(ts_metrics_render(reg, &b), 0);
    return ts_buf_take(&b);
}

/* Calls every helper once for one workload of cq in lq (NULL lq: no
 * LocalQueue series) and for the cohorts above it. */
static void feed(struct ts_kmetrics *m, const char *cq, const char *lq, int with_cohorts)
{
    struct ts_kmetrics_wl w = {cq, "high", "team", lq};
    const char *const cohorts[] = {"child", "root"};

    ts_kmetrics_admission_attempt(m, 1, 0.2);
    ts_kmetrics_preemption_skips(m, cq, 2);
    ts_kmetrics_preemption_recomputed(m, cq, "new_targets");
    ts_kmetrics_workload_created(m, "batch/job", 0.05);
    ts_kmetrics_quota_reserved(m, &w, 3);
    ts_kmetrics_admitted(m, &w, 4, cohorts, with_cohorts ? 2 : 0);
    ts_kmetrics_admission_checks_waited(m, &w, 1.5);
    ts_kmetrics_pods_ready(m, &w, 10, 6);
    ts_kmetrics_finished(m, &w, 60);
    ts_kmetrics_evicted(m, &w, "Preempted", "", 1);
    ts_kmetrics_pods_ready_to_evicted(m, cq, "PodsReadyTimeout", "", 30);
    ts_kmetrics_eviction_latency(m, cq, "Preempted", 0.5);
    ts_kmetrics_preempted(m, cq, "InCohortReclamation");
    ts_kmetrics_slice_replaced(m, cq);
    ts_kmetrics_pending(m, cq, 5, 2);
    ts_kmetrics_pending_hashes(m, cq, 3, 1);
    ts_kmetrics_reserving_active(m, cq, 4);
    ts_kmetrics_admitted_active(m, cq, 3);
    ts_kmetrics_finished_count(m, cq, 7);
    ts_kmetrics_cq_status(m, cq, TS_KMETRICS_CQ_ACTIVE);
    ts_kmetrics_unadmitted(m, cq, "NoFit", "", 2);
    ts_kmetrics_cq_resource(m, cq, "root", "default", "cpu", 1.5, 2, 10, NAN, 5);
    ts_kmetrics_cq_resource_pending(m, cq, "memory", 1073741824);
    ts_kmetrics_weighted_share(m, cq, "root", 0);
    if (with_cohorts) {
        ts_kmetrics_cohort_weighted_share(m, "root", 0.25);
        ts_kmetrics_cohort_resource(m, "root", "default", "cpu", 20, 2);
        ts_kmetrics_cohort_admitted_active(m, "root", 3);
    }
    if (!lq)
        return;
    ts_kmetrics_lq_pending(m, "team", lq, 5, 2);
    ts_kmetrics_lq_reserving_active(m, "team", lq, 4);
    ts_kmetrics_lq_admitted_active(m, "team", lq, 3);
    ts_kmetrics_lq_finished_count(m, "team", lq, 7);
    ts_kmetrics_lq_status(m, "team", lq, TS_KMETRICS_LQ_TRUE);
    ts_kmetrics_lq_unadmitted(m, "team", lq, cq, "NoFit", "", 2);
    ts_kmetrics_lq_resource(m, "team", lq, "default", "cpu", 1.5, 2);
    ts_kmetrics_lq_fair_sharing_usage(m, "team", lq, cq, 0.75);
}

#define ROLE "replica_role=\"leader\""
#define CQPC "cluster_queue=\"cq-a\",priority_class=\"high\"," ROLE
#define LQPC "name=\"lq-a\",namespace=\"team\",priority_class=\"high\"," ROLE
#define LQ   "name=\"lq-a\",namespace=\"team\""

/* One sample line per family (labels sorted by name, as client_golang
 * prints them): names and label names are Kueue's. */
static const char *const want_lines[] = {
    "kueue_build_info{build_date=\"2025-01-01\",compiler=\"gcc 12\",git_commit=\"abc\","
    "git_version=\"v0.1.0\",go_version=\"\",platform=\"linux/amd64\"} 1",
    "kueue_admission_attempts_total{" ROLE ",result=\"success\"} 1",
    "kueue_admission_attempt_duration_seconds_bucket{" ROLE ",result=\"success\",le=\"0.25\"} 1",
    "kueue_admission_cycle_preemption_skips{cluster_queue=\"cq-a\"," ROLE "} 2",
    "kueue_preemption_target_recomputations_total{cluster_queue=\"cq-a\"," ROLE
    ",result=\"new_targets\"} 1",
    "kueue_workload_creation_latency_seconds_bucket{job_kind=\"batch/job\"," ROLE ",le=\"0.08\"} 1",
    "kueue_quota_reserved_workloads_total{" CQPC "} 1",
    "kueue_quota_reserved_wait_time_seconds_sum{" CQPC "} 3",
    "kueue_local_queue_quota_reserved_workloads_total{" LQPC "} 1",
    "kueue_local_queue_quota_reserved_wait_time_seconds_sum{" LQPC "} 3",
    "kueue_admitted_workloads_total{" CQPC "} 1",
    "kueue_admission_wait_time_seconds_sum{" CQPC "} 4",
    "kueue_local_queue_admitted_workloads_total{" LQPC "} 1",
    "kueue_local_queue_admission_wait_time_seconds_sum{" LQPC "} 4",
    "kueue_cohort_subtree_admitted_workloads_total{cohort=\"child\",priority_class=\"high\"," ROLE
    "} 1",
    "kueue_cohort_subtree_admitted_workloads_total{cohort=\"root\",priority_class=\"high\"," ROLE
    "} 1",
    "kueue_admission_checks_wait_time_seconds_sum{" CQPC "} 1.5",
    "kueue_local_queue_admission_checks_wait_time_seconds_sum{" LQPC "} 1.5",
    "kueue_ready_wait_time_seconds_sum{" CQPC "} 10",
    "kueue_admitted_until_ready_wait_time_seconds_sum{" CQPC "} 6",
    "kueue_local_queue_ready_wait_time_seconds_sum{" LQPC "} 10",
    "kueue_local_queue_admitted_until_ready_wait_time_seconds_sum{" LQPC "} 6",
    "kueue_finished_workloads_total{" CQPC "} 1",
    "kueue_execution_time_seconds_sum{" CQPC "} 60",
    "kueue_local_queue_finished_workloads_total{" LQPC "} 1",
    "kueue_local_queue_execution_time_seconds_sum{" LQPC "} 60",
    "kueue_evicted_workloads_total{cluster_queue=\"cq-a\",priority_class=\"high\","
    "reason=\"Preempted\"," ROLE ",underlying_cause=\"\"} 1",
    "kueue_evicted_workloads_once_total{cluster_queue=\"cq-a\",priority_class=\"high\","
    "reason=\"Preempted\"," ROLE ",underlying_cause=\"\"} 1",
    "kueue_local_queue_evicted_workloads_total{" LQ ",priority_class=\"high\","
    "reason=\"Preempted\"," ROLE ",underlying_cause=\"\"} 1",
    "kueue_pods_ready_to_evicted_time_seconds_sum{cluster_queue=\"cq-a\","
    "reason=\"PodsReadyTimeout\"," ROLE ",underlying_cause=\"\"} 30",
    "kueue_workload_eviction_latency_seconds_sum{cluster_queue=\"cq-a\",reason=\"Preempted\"," ROLE
    "} 0.5",
    "kueue_preempted_workloads_total{preempting_cluster_queue=\"cq-a\","
    "reason=\"InCohortReclamation\"," ROLE "} 1",
    "kueue_replaced_workload_slices_total{cluster_queue=\"cq-a\"," ROLE "} 1",
    "kueue_pending_workloads{cluster_queue=\"cq-a\"," ROLE ",status=\"active\"} 5",
    "kueue_pending_workloads{cluster_queue=\"cq-a\"," ROLE ",status=\"inadmissible\"} 2",
    "kueue_pending_scheduling_hashes{cluster_queue=\"cq-a\"," ROLE ",status=\"active\"} 3",
    "kueue_pending_scheduling_hashes{cluster_queue=\"cq-a\"," ROLE ",status=\"inadmissible\"} 1",
    "kueue_reserving_active_workloads{cluster_queue=\"cq-a\"," ROLE "} 4",
    "kueue_admitted_active_workloads{cluster_queue=\"cq-a\"," ROLE "} 3",
    "kueue_finished_workloads{cluster_queue=\"cq-a\"," ROLE "} 7",
    "kueue_cluster_queue_status{cluster_queue=\"cq-a\"," ROLE ",status=\"active\"} 1",
    "kueue_cluster_queue_status{cluster_queue=\"cq-a\"," ROLE ",status=\"pending\"} 0",
    "kueue_cluster_queue_status{cluster_queue=\"cq-a\"," ROLE ",status=\"terminating\"} 0",
    "kueue_unadmitted_workloads{cluster_queue=\"cq-a\",reason=\"NoFit\"," ROLE
    ",underlying_cause=\"\"} 2",
    "kueue_cluster_queue_resource_usage{cluster_queue=\"cq-a\",cohort=\"root\","
    "flavor=\"default\"," ROLE ",resource=\"cpu\"} 1.5",
    "kueue_cluster_queue_resource_reservation{cluster_queue=\"cq-a\",cohort=\"root\","
    "flavor=\"default\"," ROLE ",resource=\"cpu\"} 2",
    "kueue_cluster_queue_nominal_quota{cluster_queue=\"cq-a\",cohort=\"root\","
    "flavor=\"default\"," ROLE ",resource=\"cpu\"} 10",
    "kueue_cluster_queue_lending_limit{cluster_queue=\"cq-a\",cohort=\"root\","
    "flavor=\"default\"," ROLE ",resource=\"cpu\"} 5",
    "kueue_cluster_queue_resource_pending{cluster_queue=\"cq-a\"," ROLE
    ",resource=\"memory\"} 1.073741824e+09",
    "kueue_cluster_queue_weighted_share{cluster_queue=\"cq-a\",cohort=\"root\"," ROLE "} 0",
    "kueue_cohort_weighted_share{cohort=\"root\"," ROLE "} 0.25",
    "kueue_cohort_subtree_quota{cohort=\"root\",flavor=\"default\"," ROLE ",resource=\"cpu\"} 20",
    "kueue_cohort_subtree_resource_reservations{cohort=\"root\",flavor=\"default\"," ROLE
    ",resource=\"cpu\"} 2",
    "kueue_cohort_subtree_admitted_active_workloads{cohort=\"root\"," ROLE "} 3",
    "kueue_local_queue_pending_workloads{" LQ "," ROLE ",status=\"active\"} 5",
    "kueue_local_queue_pending_workloads{" LQ "," ROLE ",status=\"inadmissible\"} 2",
    "kueue_local_queue_reserving_active_workloads{" LQ "," ROLE "} 4",
    "kueue_local_queue_admitted_active_workloads{" LQ "," ROLE "} 3",
    "kueue_local_queue_finished_workloads{" LQ "," ROLE "} 7",
    "kueue_local_queue_status{active=\"False\"," LQ "," ROLE "} 0",
    "kueue_local_queue_status{active=\"True\"," LQ "," ROLE "} 1",
    "kueue_local_queue_status{active=\"Unknown\"," LQ "," ROLE "} 0",
    "kueue_local_queue_unadmitted_workloads{cluster_queue=\"cq-a\"," LQ ",reason=\"NoFit\"," ROLE
    ",underlying_cause=\"\"} 2",
    "kueue_local_queue_resource_usage{flavor=\"default\"," LQ "," ROLE ",resource=\"cpu\"} 1.5",
    "kueue_local_queue_resource_reservation{flavor=\"default\"," LQ "," ROLE ",resource=\"cpu\"} 2",
    "kueue_local_queue_admission_fair_sharing_usage{cluster_queue=\"cq-a\"," LQ "," ROLE "} 0.75",
};

static void test_every_family(void **state)
{
    struct fixture *f = *state;
    char *out, line[512];
    size_t types = 0;

    ts_kmetrics_build_info(f->m, "v0.1.0", "abc", "2025-01-01", "", "gcc 12", "linux/amd64");
    feed(f->m, "cq-a", "lq-a", 1);
    ts_kmetrics_cq_resource(f->m, "cq-a", "root", "spot", "cpu", 0, 0, 4, 2, NAN);
    out = render(f->reg);
    for (size_t i = 0; i < sizeof(want_lines) / sizeof(want_lines[0]); i++) {
        snprintf(line, sizeof(line), "\n%s\n", want_lines[i]);
        if (!strstr(out, line))
            fail_msg("missing line: %s", want_lines[i]);
    }
    for (const char *p = out; (p = strstr(p, "# TYPE ")); p++)
        types++;
    assert_int_equal(types, 59); /* every family registered has shown up */
    /* NAN = no limit = no series */
    assert_non_null(strstr(out, "\nkueue_cluster_queue_borrowing_limit{cluster_queue=\"cq-a\","
                                "cohort=\"root\",flavor=\"spot\"," ROLE ",resource=\"cpu\"} 2\n"));
    assert_null(strstr(out, "kueue_cluster_queue_borrowing_limit{cluster_queue=\"cq-a\","
                            "cohort=\"root\",flavor=\"default\""));
    assert_null(strstr(out, "kueue_cluster_queue_lending_limit{cluster_queue=\"cq-a\","
                            "cohort=\"root\",flavor=\"spot\""));
    free(out);
}

/* HELP keeps Kueue's text; its newlines are escaped on the HELP line. */
static void test_help_text(void **state)
{
    struct fixture *f = *state;
    char *out;

    ts_kmetrics_pending(f->m, "q", 1, 0);
    out = render(f->reg);
    assert_non_null(strstr(out, "# HELP kueue_pending_workloads The number of pending workloads, "
                                "per 'cluster_queue' and 'status'.\\n'status' can have the "
                                "following values:\\n- \"active\" means that the workloads are "
                                "in the admission queue.\\n- \"inadmissible\" means there was a "
                                "failed admission attempt"));
    assert_non_null(strstr(out, "# TYPE kueue_pending_workloads gauge\n"));
    free(out);
}

/* The `le` values of the first series of a histogram, space-separated. */
static void bucket_list(const char *out, const char *name, char *list, size_t cap)
{
    char prefix[128];
    const char *p = out;
    size_t n = 0;

    snprintf(prefix, sizeof(prefix), "\n%s_bucket{", name);
    list[0] = '\0';
    while ((p = strstr(p, prefix))) {
        const char *le = strstr(p, ",le=\""), *end;

        assert_non_null(le);
        le += 5;
        end = strchr(le, '"');
        n += (size_t)snprintf(list + n, cap - n, "%s%.*s", n ? " " : "", (int)(end - le), le);
        if (strncmp(le, "+Inf", 4) == 0)
            break;
        p = end;
    }
}

static void test_bucket_layouts(void **state)
{
    static const struct {
        const char *family, *want;
    } cases[] = {
        {"kueue_quota_reserved_wait_time_seconds",
         "1 2.5 5 10 20 40 80 160 320 640 1280 2560 5120 10240 +Inf"},
        {"kueue_admission_wait_time_seconds",
         "1 2.5 5 10 20 40 80 160 320 640 1280 2560 5120 10240 20480 40960 +Inf"},
        {"kueue_execution_time_seconds",
         "1 2.5 5 10 20 40 80 160 320 640 1280 2560 5120 10240 20480 40960 +Inf"},
        {"kueue_local_queue_admission_wait_time_seconds",
         "1 2.5 5 10 20 40 80 160 320 640 1280 2560 5120 10240 +Inf"},
        {"kueue_local_queue_execution_time_seconds",
         "1 2.5 5 10 20 40 80 160 320 640 1280 2560 5120 10240 20480 40960 +Inf"},
        {"kueue_pods_ready_to_evicted_time_seconds",
         "1 2.5 5 10 20 40 80 160 320 640 1280 2560 5120 10240 +Inf"},
        {"kueue_workload_creation_latency_seconds",
         "0.01 0.02 0.04 0.08 0.16 0.32 0.64 1.28 2.56 5.12 10.24 +Inf"},
        {"kueue_admission_attempt_duration_seconds",
         "0.005 0.01 0.025 0.05 0.1 0.25 0.5 1 2.5 5 10 +Inf"},
    };
    struct fixture *f = *state;
    char list[512], *out;

    feed(f->m, "cq-a", "lq-a", 1);
    out = render(f->reg);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        bucket_list(out, cases[i].family, list, sizeof(list));
        if (strcmp(list, cases[i].want) != 0)
            fail_msg("%s: buckets '%s', want '%s'", cases[i].family, list, cases[i].want);
    }
    free(out);
}

static double value(struct fixture *f, const char *family, const char *const *values)
{
    struct ts_metrics_family *fam = ts_metrics_family_find(f->reg, family);
    double v = -1;

    assert_non_null(fam);
    if (ts_metrics_value(fam, values, &v) != 0)
        fail_msg("%s: no such series", family);
    return v;
}

static void test_cq_status_one_hot(void **state)
{
    static const char *const names[] = {"pending", "active", "terminating"};
    struct fixture *f = *state;

    for (int st = TS_KMETRICS_CQ_PENDING; st <= TS_KMETRICS_CQ_TERMINATING; st++) {
        ts_kmetrics_cq_status(f->m, "cq", (enum ts_kmetrics_cq_status)st);
        for (int k = 0; k < 3; k++) {
            double v = value(f, "kueue_cluster_queue_status", V("cq", names[k], "leader"));

            if (v != (k == st))
                fail_msg("status %d: %s = %g", st, names[k], v);
        }
    }
    ts_kmetrics_lq_status(f->m, "ns", "lq", TS_KMETRICS_LQ_UNKNOWN);
    assert_true(value(f, "kueue_local_queue_status", V("lq", "ns", "Unknown", "leader")) == 1);
    assert_true(value(f, "kueue_local_queue_status", V("lq", "ns", "True", "leader")) == 0);
    assert_int_equal(
        ts_metrics_series_count(ts_metrics_family_find(f->reg, "kueue_cluster_queue_status")), 3);
}

/* What the queues that stay produce on their own: cq-b with lq-b, and
 * the queue-less series that feeding cq-a adds as well. */
static char *baseline(void)
{
    struct ts_metrics_registry *alone = ts_metrics_registry_new();
    struct ts_kmetrics *m;
    char *want;

    assert_int_equal(ts_kmetrics_new(alone, "leader", &m, NULL), 0);
    feed(m, "cq-b", "lq-b", 0);
    feed(m, "cq-b", NULL, 0);
    ts_kmetrics_admission_attempt(m, 1, 0.2);
    ts_kmetrics_workload_created(m, "batch/job", 0.05);
    want = render(alone);
    ts_kmetrics_free(m);
    ts_metrics_registry_free(alone);
    return want;
}

static void feed_both(struct fixture *f)
{
    feed(f->m, "cq-a", NULL, 0);
    feed(f->m, "cq-b", "lq-b", 0);
    feed(f->m, "cq-b", NULL, 0);
}

static void expect_render(struct fixture *f, const char *want)
{
    char *got = render(f->reg);

    assert_string_equal(got, want);
    free(got);
}

/* Forgetting a queue leaves exactly what the other queues alone produce. */
static void test_forget_cq(void **state)
{
    struct fixture *f = *state;
    char *want = baseline(), *got;

    feed_both(f);
    ts_kmetrics_preempted(f->m, "cq-a", "InClusterQueue");
    ts_kmetrics_forget_cq(f->m, "cq-a");
    expect_render(f, want);

    ts_kmetrics_forget_cq_resources(f->m, "cq-b");
    got = render(f->reg);
    assert_null(strstr(got, "kueue_cluster_queue_resource_usage"));
    assert_null(strstr(got, "kueue_cluster_queue_weighted_share"));
    assert_non_null(strstr(got, "kueue_pending_workloads{cluster_queue=\"cq-b\""));
    free(got);
    free(want);
}

static void test_forget_lq_and_cohort(void **state)
{
    struct fixture *f = *state;
    char *want = baseline();

    feed_both(f);
    ts_kmetrics_forget_cq(f->m, "cq-a");
    ts_kmetrics_lq_status(f->m, "team", "lq-x", TS_KMETRICS_LQ_FALSE);
    ts_kmetrics_lq_status(f->m, "other", "lq-b", TS_KMETRICS_LQ_FALSE); /* same name elsewhere */
    ts_kmetrics_lq_resource(f->m, "team", "lq-x", "default", "cpu", 1, 1);
    ts_kmetrics_forget_lq(f->m, "team", "lq-x");
    ts_kmetrics_forget_lq(f->m, "other", "lq-b");
    expect_render(f, want);

    ts_kmetrics_cohort_weighted_share(f->m, "gone", 1);
    ts_kmetrics_cohort_resource(f->m, "gone", "default", "cpu", 20, 2);
    ts_kmetrics_cohort_admitted_active(f->m, "gone", 3);
    ts_kmetrics_forget_cohort(f->m, "gone");
    expect_render(f, want);
    free(want);
}

static void test_roles(void **state)
{
    struct fixture *f = *state;
    struct ts_metrics_registry *reg = ts_metrics_registry_new();
    struct ts_kmetrics *m = NULL;
    struct ts_err err = {0};
    char *out;

    assert_int_equal(ts_kmetrics_new(reg, "boss", &m, &err), TS_EINVAL);
    assert_null(m);
    assert_int_equal(ts_kmetrics_new(f->reg, "standalone", &m, &err), TS_EEXIST);
    ts_metrics_registry_free(reg);

    ts_kmetrics_build_info(f->m, "v1", "c", "d", "", "cc", "p");
    ts_kmetrics_pending(f->m, "cq", 1, 0);
    assert_int_equal(ts_kmetrics_set_role(f->m, "nobody"), TS_EINVAL);
    assert_int_equal(ts_kmetrics_set_role(f->m, "follower"), 0);
    out = render(f->reg);
    assert_null(strstr(out, "kueue_pending_workloads{"));
    assert_non_null(strstr(out, "\nkueue_build_info{build_date=\"d\""));
    free(out);
    ts_kmetrics_pending(f->m, "cq", 1, 0);
    out = render(f->reg);
    assert_non_null(
        strstr(out, "\nkueue_pending_workloads{cluster_queue=\"cq\",replica_role=\"follower\","
                    "status=\"active\"} 1\n"));
    free(out);
}

/* Without a LocalQueue in the workload no local_queue_* series appear. */
static void test_no_local_queue(void **state)
{
    struct fixture *f = *state;
    char *out;

    feed(f->m, "cq-a", NULL, 1);
    out = render(f->reg);
    assert_null(strstr(out, "kueue_local_queue_"));
    assert_non_null(strstr(out, "kueue_admitted_workloads_total{"));
    free(out);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_every_family, setup, teardown),
        cmocka_unit_test_setup_teardown(test_help_text, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bucket_layouts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cq_status_one_hot, setup, teardown),
        cmocka_unit_test_setup_teardown(test_forget_cq, setup, teardown),
        cmocka_unit_test_setup_teardown(test_forget_lq_and_cohort, setup, teardown),
        cmocka_unit_test_setup_teardown(test_roles, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_local_queue, setup, teardown),
    };

    ts_alloc_init();
    if (argc > 1)
        cmocka_set_test_filter(argv[1]);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
