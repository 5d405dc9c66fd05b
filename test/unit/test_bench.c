/* Tests for pkg/bench: generator decoding and expansion, the token
 * bucket, statistics, the ideal run (hand-computed) and the range check. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bucket.h"
#include "bench/cqusage.h"
#include "bench/gen.h"
#include "bench/ideal.h"
#include "bench/range.h"
#include "bench/report.h"
#include "bench/stats.h"
#include "yaml/yaml.h"

#define SEC INT64_C(1000000000)
#define MS  INT64_C(1000000)

static cJSON *yaml(const char *text)
{
    cJSON *root = NULL;
    struct ts_err err = {0};

    assert_int_equal(ts_yaml_decode_one(text, strlen(text), &root, &err), 0);
    return root;
}

static int decode(const char *text, struct ts_bench_gen *g, struct ts_err *err)
{
    cJSON *root = yaml(text);
    int rc = ts_bench_gen_decode(root, g, err);

    cJSON_Delete(root);
    return rc;
}

/* One ClusterQueue of 2 cpu; four 1-cpu workloads every 100 ms running
 * 300 ms.  By hand: w0 at 0 and w1 at 0.1 start at once; w2 (0.2) waits
 * for w0's end at 0.3; w3 (0.3) for w1's end at 0.4. */
static const char *single = "- className: co\n"
                            "  count: 1\n"
                            "  queuesSets:\n"
                            "  - className: cq\n"
                            "    count: 1\n"
                            "    nominalQuota: 2\n"
                            "    workloadsSets:\n"
                            "    - count: 4\n"
                            "      creationIntervalMs: 100\n"
                            "      workloads:\n"
                            "      - {className: one, runtimeMs: 300, priority: 10, request: 1}\n";

static void test_gen_decode_errors_name_the_field(void **state)
{
    static const struct {
        const char *name, *in, *want;
    } cases[] = {
        {"not a list", "3\n", "generator: must be a non-empty list of cohort sets"},
        {"unknown top-level field", "cohort: []\n", "cohort: unknown field"},
        {"mapping without cohorts", "{}\n", "generator: cohorts: Required value"},
        {"empty cohorts", "cohorts: []\n",
         "generator: cohorts: must be a non-empty list of cohort sets"},
        {"topology refused", "topology: {name: t}\ncohorts: []\n",
         "generator: topology: Unsupported value: topology-aware scheduling is not supported "
         "yet (docs/compatibility.md)"},
        {"resourceFlavor refused", "resourceFlavor: {name: f}\ncohorts: []\n",
         "generator: resourceFlavor: Unsupported value: topology-aware scheduling is not "
         "supported yet (docs/compatibility.md)"},
        {"mapping names the path", "cohorts: [{className: c, count: 1, queuesSets: [{}]}]\n",
         "cohorts[0].queuesSets[0].className: Required value"},
        {"string quantity checked",
         "cohorts: [{className: c, count: 1, queuesSets: [{className: q, count: 1, "
         "nominalQuota: \"-2\"}]}]\n",
         "cohorts[0].queuesSets[0].nominalQuota: Invalid value: must be a non-negative quantity"},
        {"no className", "- count: 1\n  queuesSets: [{}]\n", "[0].className: Required value"},
        {"bad count", "- {className: c, count: -1, queuesSets: []}\n",
         "[0].count: Invalid value: must be an integer in [0, 100000]"},
        {"empty queuesSets", "- {className: c, count: 1, queuesSets: []}\n",
         "[0].queuesSets: Invalid value: must be a non-empty list"},
        {"nominalQuota missing",
         "- {className: c, count: 1, queuesSets: [{className: q, count: 1}]}\n",
         "[0].queuesSets[0].nominalQuota: Required value"},
        {"bad quantity",
         "- {className: c, count: 1, queuesSets: [{className: q, count: 1, nominalQuota: "
         "abc}]}\n",
         "[0].queuesSets[0].nominalQuota: Invalid value: must be a non-negative quantity"},
        {"bad policy",
         "- {className: c, count: 1, queuesSets: [{className: q, count: 1, nominalQuota: 1, "
         "withinClusterQueue: Sometimes}]}\n",
         "[0].queuesSets[0].withinClusterQueue: Unsupported value: must be Never, LowerPriority, "
         "LowerOrNewerEqualPriority or Any"},
        {"unknown field",
         "- {className: c, count: 1, queuesSets: [{className: q, count: 1, nominalQuota: 1, "
         "workloadsSets: [{count: 1, workloads: [{className: w, runtimeMs: 1, request: 1, "
         "prio: 3}]}]}]}\n",
         "[0].queuesSets[0].workloadsSets[0].workloads[0].prio: unknown field"},
        {"request missing",
         "- {className: c, count: 1, queuesSets: [{className: q, count: 1, nominalQuota: 1, "
         "workloadsSets: [{count: 1, workloads: [{className: w, runtimeMs: 1}]}]}]}\n",
         "[0].queuesSets[0].workloadsSets[0].workloads[0].request: Required value"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct ts_bench_gen g;
        struct ts_err err = {0};

        if (decode(cases[i].in, &g, &err) != TS_EINVAL || strcmp(err.msg, cases[i].want))
            fail_msg("%s: got '%s', want '%s'", cases[i].name, err.msg, cases[i].want);
        assert_int_equal(g.n_cohort_sets, 0);
    }
}

static size_t count_kind(const cJSON *objs, const char *kind)
{
    const cJSON *o;
    size_t n = 0;

    cJSON_ArrayForEach(o, objs)
    {
        n += !strcmp(cJSON_GetObjectItemCaseSensitive(o, "kind")->valuestring, kind);
    }
    return n;
}

static cJSON *yaml_file(const char *path)
{
    FILE *f = fopen(path, "r");
    static char buf[16384];
    size_t n;

    assert_non_null(f);
    n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = 0;
    return yaml(buf);
}

/* Kueue's baseline shape: 5 x 6 queues, 350/100/50 per queue. */
static void test_gen_expands_baseline_counts(void **state)
{
    cJSON *root;
    struct ts_bench_gen g;
    struct ts_bench_plan p;
    struct ts_err err = {0};
    size_t per_class[3] = {0};

    (void)state;
    root = yaml_file("test/perf/baseline/generator.yaml");
    assert_int_equal(ts_bench_gen_decode(root, &g, &err), 0);
    ts_bench_plan_build(&g, &p);
    assert_int_equal(p.n_queues, 30);
    assert_int_equal(p.n_wls, 15000);
    assert_int_equal(count_kind(p.objects, "ResourceFlavor"), 1);
    assert_int_equal(count_kind(p.objects, "Cohort"), 5);
    assert_int_equal(count_kind(p.objects, "ClusterQueue"), 30);
    assert_int_equal(count_kind(p.objects, "LocalQueue"), 30);
    assert_int_equal(p.n_classes, 3);
    assert_string_equal(p.classes[0], "small");
    assert_string_equal(p.queues[7].name, "cohort-1-cq-1");
    for (size_t i = 0; i < p.n_wls; i++) {
        per_class[p.wls[i].wl_class]++;
        if (i)
            assert_true(p.wls[i - 1].created <= p.wls[i].created);
    }
    assert_int_equal(per_class[0], 10500);
    assert_int_equal(per_class[1], 3000);
    assert_int_equal(per_class[2], 1500);
    /* the last large one of a queue: 49 x 1200 ms */
    assert_int_equal(p.wls[p.n_wls - 1].created, 49 * 1200 * MS);
    assert_int_equal(p.wls[p.n_wls - 1].request_milli, 20000);
    ts_bench_plan_release(&p);
    ts_bench_gen_release(&g);
    cJSON_Delete(root);
}

/* Kueue's TAS file writes quantities as strings: "20" and 20 decode alike,
 * and "500m" is half a cpu. */
static void test_gen_quantities_as_strings(void **state)
{
    struct ts_bench_gen g;
    struct ts_err err = {0};

    (void)state;
    assert_int_equal(decode("cohorts:\n"
                            "- className: c\n"
                            "  count: 1\n"
                            "  queuesSets:\n"
                            "  - {className: q, count: 1, nominalQuota: \"20\", borrowingLimit: "
                            "\"100\", workloadsSets: [{count: 1, workloads: [{className: w, "
                            "runtimeMs: 1, request: \"500m\"}]}]}\n",
                            &g, &err),
                     0);
    assert_int_equal(g.cohort_sets[0].queue_sets[0].nominal_milli, 20000);
    assert_int_equal(g.cohort_sets[0].queue_sets[0].borrowing_milli, 100000);
    assert_int_equal(g.cohort_sets[0].queue_sets[0].sets[0].templates[0].request_milli, 500);
    ts_bench_gen_release(&g);
}

/* Kueue's large-scale file as shipped: 10 x 100 queues, 35/11/4 per queue. */
static void test_gen_expands_large_scale_counts(void **state)
{
    cJSON *root = yaml_file("test/perf/large-scale/generator.yaml");
    struct ts_bench_gen g;
    struct ts_bench_plan p;
    struct ts_err err = {0};
    size_t per_class[3] = {0};

    (void)state;
    assert_int_equal(ts_bench_gen_decode(root, &g, &err), 0);
    ts_bench_plan_build(&g, &p);
    assert_int_equal(p.n_queues, 1000);
    assert_int_equal(p.n_wls, 50000);
    for (size_t i = 0; i < p.n_wls; i++)
        per_class[p.wls[i].wl_class]++;
    assert_int_equal(per_class[0], 35000);
    assert_int_equal(per_class[1], 11000);
    assert_int_equal(per_class[2], 4000);
    /* the last creation: the last medium one of a queue, 10 x 300 ms (the
     * last small one is at 34 x 60, the last large at 3 x 700) */
    assert_int_equal(p.wls[p.n_wls - 1].created, 10 * 300 * MS);
    ts_bench_plan_release(&p);
    ts_bench_gen_release(&g);
    cJSON_Delete(root);
}

/* Kueue's range files as shipped: YAML 1.1 integers with underscores,
 * percentages with comments after them. */
static void test_range_reads_kueue_files(void **state)
{
    static const struct {
        const char *path;
        double wall_ms, usage, large_ms;
    } cases[] = {
        {"test/perf/baseline/rangespec.yaml", 425000, 55, 11000},
        {"test/perf/large-scale/rangespec.yaml", 1416000, 31.6, 128000},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cJSON *root = yaml_file(cases[i].path);
        struct ts_bench_range r;
        struct ts_err err = {0};

        if (ts_bench_range_decode(root, &r, &err))
            fail_msg("%s: %s", cases[i].path, err.msg);
        assert_true(r.max_wall_ms == cases[i].wall_ms);
        assert_int_equal(r.n_usage, 1);
        assert_string_equal(r.min_usage[0].name, "cq");
        assert_true(r.min_usage[0].value == cases[i].usage);
        assert_int_equal(r.n_tta, 3);
        for (size_t k = 0; k < r.n_tta; k++) {
            if (!strcmp(r.max_tta_ms[k].name, "large"))
                assert_true(r.max_tta_ms[k].value == cases[i].large_ms);
        }
        ts_bench_range_release(&r);
        cJSON_Delete(root);
    }
}

/* Kueue's recorder by hand: one queue of 2 cpu shows 0 at 0 ms, 1 cpu at
 * 100, 2 cpu at 300 and 0 at 400: 1000 x 200 + 2000 x 100 milli-ms used
 * of 2000 x 400 available = 50 %. */
static void test_cq_usage_as_kueue_reads_status(void **state)
{
    struct ts_bench_gen g;
    struct ts_bench_plan p;
    struct ts_bench_cq_usage u;
    struct ts_err err = {0};

    (void)state;
    assert_int_equal(decode(single, &g, &err), 0);
    ts_bench_plan_build(&g, &p);
    ts_bench_cq_usage_init(&u, &p);
    ts_bench_cq_usage_observe(&u, 0, 1000, 0);
    assert_true(ts_bench_cq_usage_percent(&u, &p, 0) == -1); /* one status: no span */
    ts_bench_cq_usage_observe(&u, 0, 1100, 1000);
    {
        cJSON *cq = yaml("status: {flavorsUsage: [{name: f, resources: [{name: cpu, total: "
                         "'2'}]}]}\n");

        ts_bench_cq_usage_observe_cq(&u, 0, 1300, cq);
        cJSON_Delete(cq);
    }
    ts_bench_cq_usage_observe(&u, 0, 1400, 0);
    ts_bench_cq_usage_observe(&u, 7, 1500, 9000); /* no such queue: ignored */
    assert_true(ts_bench_cq_usage_percent(&u, &p, 0) == 50);
    assert_true(ts_bench_cq_usage_percent(&u, &p, 1) == -1); /* no such class */
    ts_bench_cq_usage_release(&u);
    ts_bench_plan_release(&p);
    ts_bench_gen_release(&g);
}

static void test_bucket_grants_in_order(void **state)
{
    static const struct {
        double qps, burst;
        ts_time asks[6];
        ts_time want[6];
    } cases[] = {
        /* burst 2 at once, then one every 100 ms */
        {10, 2, {SEC, SEC, SEC, SEC, 0}, {SEC, SEC, SEC + 100 * MS, SEC + 200 * MS, 0}},
        /* refills while idle, never beyond burst */
        {10,
         2,
         {SEC, SEC, 10 * SEC, 10 * SEC, 10 * SEC, 0},
         {SEC, SEC, 10 * SEC, 10 * SEC, 10 * SEC + 100 * MS, 0}},
        /* a later ask waits behind the queue */
        {1, 1, {SEC, SEC, SEC + 500 * MS, 0}, {SEC, 2 * SEC, 3 * SEC, 0}},
        /* unlimited */
        {0, 0, {SEC, SEC, SEC, 0}, {SEC, SEC, SEC, 0}},
    };

    (void)state;
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        struct ts_bench_bucket b;

        ts_bench_bucket_init(&b, cases[c].qps, cases[c].burst);
        for (size_t i = 0; i < 6 && cases[c].asks[i]; i++) {
            ts_time got = ts_bench_bucket_take(&b, cases[c].asks[i]);

            if (got != cases[c].want[i])
                fail_msg("case %zu ask %zu: got %lld, want %lld", c, i, (long long)got,
                         (long long)cases[c].want[i]);
        }
    }
}

static void test_stats(void **state)
{
    double v[10] = {10, 1, 9, 2, 8, 3, 7, 4, 6, 5}, mean, sd;
    double runs[3] = {1, 2, 3};
    struct ts_bench_summary s;

    (void)state;
    ts_bench_summarize(v, 10, &s);
    assert_int_equal(s.n, 10);
    assert_true(s.mean == 5.5);
    assert_true(s.p50 == 5);  /* rank ceil(5) = 5th */
    assert_true(s.p90 == 9);  /* rank 9 */
    assert_true(s.p99 == 10); /* rank ceil(9.9) = 10 */
    assert_true(s.max == 10);
    ts_bench_mean_stdev(runs, 3, &mean, &sd);
    assert_true(mean == 2 && sd == 1);
    ts_bench_mean_stdev(runs, 1, &mean, &sd);
    assert_true(mean == 1 && sd == 0);
    ts_bench_summarize(v, 0, &s);
    assert_int_equal(s.n, 0);
}

static void run_single(double qps, double burst, struct ts_bench_plan *p, struct ts_bench_result *r,
                       struct ts_bench_report *rep)
{
    struct ts_bench_gen g;
    struct ts_err err = {0};
    struct ts_bench_ideal_opts o = {qps, burst, 0};

    assert_int_equal(decode(single, &g, &err), 0);
    ts_bench_plan_build(&g, p);
    ts_bench_gen_release(&g);
    assert_int_equal(ts_bench_ideal_run(p, &o, r, &err), 0);
    ts_bench_report_build(p, r, rep);
}

static void release_all(struct ts_bench_plan *p, struct ts_bench_result *r,
                        struct ts_bench_report *rep)
{
    ts_bench_report_release(rep);
    ts_bench_result_release(r);
    ts_bench_plan_release(p);
}

static void test_ideal_single_queue_by_hand(void **state)
{
    static const ts_time want[4] = {0, 100 * MS, 300 * MS, 400 * MS};
    struct ts_bench_plan p;
    struct ts_bench_result r;
    struct ts_bench_report rep;

    (void)state;
    run_single(0, 0, &p, &r, &rep);
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(r.wls[i].admitted, want[i]);
        assert_int_equal(r.wls[i].finished, want[i] + 300 * MS);
    }
    assert_true(fabs(rep.classes[0].tta.mean - 0.05) < 1e-9);
    assert_true(fabs(rep.classes[0].tta.p50 - 0) < 1e-9);
    assert_true(fabs(rep.classes[0].tta.p90 - 0.1) < 1e-9);
    assert_true(fabs(rep.wall - 0.7) < 1e-9);
    /* 4 x 1 cpu x 0.3 s over 2 cpu x 0.7 s */
    assert_true(fabs(rep.min_usage - 100.0 * 1.2 / 1.4) < 1e-6);
    assert_int_equal(rep.admission_writes, 4);
    assert_int_equal(rep.never_admitted, 0);
    release_all(&p, &r, &rep);
}

/* Under 1 write/s (burst 1): decisions at 0, 0.1, 0.3, 1.3 s; their writes
 * are granted at 0, 1, 2 and 3 s, and each runtime starts at its grant. */
static void test_ideal_write_budget_by_hand(void **state)
{
    static const ts_time want[4] = {0, SEC, 2 * SEC, 3 * SEC};
    struct ts_bench_plan p;
    struct ts_bench_result r;
    struct ts_bench_report rep;

    (void)state;
    run_single(1, 1, &p, &r, &rep);
    for (size_t i = 0; i < 4; i++)
        assert_int_equal(r.wls[i].admitted, want[i]);
    assert_true(fabs(rep.classes[0].tta.mean - 1.35) < 1e-9);
    assert_true(fabs(rep.wall - 3.3) < 1e-9);
    assert_true(fabs(rep.min_usage - 100.0 * 1.2 / 6.6) < 1e-6);
    release_all(&p, &r, &rep);
}

/* Decisions wait for a write token, as in the live controller: under
 * 1 write/s (burst 1) six low-priority workloads and a high one arrive at
 * 0, a second high one at 1.5 s, all fitting the queue.  One admission
 * per cycle, each at its token: high-0 at 0, low-0 at 1, then high-1 at 2
 * (it arrived before that token), the other lows at 3..7.  Decided at
 * once, all seven of time 0 would have queued for the tokens ahead of
 * high-1 (granted at 7). */
/* A generator's one cohort of one ClusterQueue with 10 cpu, up to its
 * workloadsSets. */
#define ONE_QUEUE                                                                                  \
    "- className: co\n  count: 1\n  queuesSets:\n  - className: cq\n    count: 1\n"                \
    "    nominalQuota: 10\n    workloadsSets:\n"

/* Runs the ideal on gen's eight workloads under qps/burst and checks
 * when each was admitted (want, in plan order). */
static void ideal_admits_at(const char *gen, double qps, double burst, const ts_time want[8])
{
    struct ts_bench_ideal_opts o = {qps, burst, 1};
    struct ts_bench_gen g;
    struct ts_bench_plan p;
    struct ts_bench_result r;
    struct ts_err err = {0};

    assert_int_equal(decode(gen, &g, &err), 0);
    ts_bench_plan_build(&g, &p);
    ts_bench_gen_release(&g);
    assert_int_equal(p.n_wls, 8);
    if (ts_bench_ideal_run(&p, &o, &r, &err))
        fail_msg("%s", err.msg);
    for (size_t i = 0; i < 8; i++)
        if (r.wls[i].admitted != want[i])
            fail_msg("%s admitted at %.3f s, want %.3f s", p.wls[i].name,
                     (double)r.wls[i].admitted / SEC, (double)want[i] / SEC);
    ts_bench_result_release(&r);
    ts_bench_plan_release(&p);
}

/* At 40 QPS (burst 4) a cycle waits until 100 ms of budget, four
 * tokens, is at hand, as the live controller does: one ClusterQueue
 * admits one head a cycle, so its admissions go 25 ms apart from the
 * start (without the wait: the burst's four at once, then 25 ms apart). */
static void test_ideal_decides_in_batches(void **state)
{
    static const char *gen =
        ONE_QUEUE "    - count: 8\n"
                  "      creationIntervalMs: 0\n"
                  "      workloads:\n"
                  "      - {className: w, runtimeMs: 60000, priority: 0, request: 1}\n";
    static const ts_time want[8] = {0,        25 * MS,  50 * MS,  75 * MS,
                                    100 * MS, 125 * MS, 150 * MS, 175 * MS};

    (void)state;
    ideal_admits_at(gen, 40, 4, want);
}

static void test_ideal_decides_at_the_token(void **state)
{
    static const char *gen =
        ONE_QUEUE "    - count: 6\n"
                  "      creationIntervalMs: 0\n"
                  "      workloads:\n"
                  "      - {className: low, runtimeMs: 60000, priority: 0, request: 1}\n"
                  "    - count: 2\n"
                  "      creationIntervalMs: 1500\n"
                  "      workloads:\n"
                  "      - {className: high, runtimeMs: 60000, priority: 100, request: 1}\n";
    /* plan order: low-0..5, high-0, high-1 */
    static const ts_time want[8] = {1 * SEC, 3 * SEC, 4 * SEC, 5 * SEC,
                                    6 * SEC, 7 * SEC, 0,       2 * SEC};

    (void)state;
    ideal_admits_at(gen, 1, 1, want);
}

/* Two cohorts of four queues that borrow from each other and reclaim,
 * three priorities, under a write budget that keeps preemptors waiting for
 * their victims over many cycles: the searches the engine answers from
 * memory (engine/memo.h). */
static const char *contended =
    "- className: co\n"
    "  count: 2\n"
    "  queuesSets:\n"
    "  - className: cq\n"
    "    count: 4\n"
    "    nominalQuota: 4\n"
    "    borrowingLimit: 20\n"
    "    reclaimWithinCohort: Any\n"
    "    withinClusterQueue: LowerPriority\n"
    "    workloadsSets:\n"
    "    - count: 30\n"
    "      creationIntervalMs: 100\n"
    "      workloads:\n"
    "      - {className: small, runtimeMs: 200, priority: 50, request: 1}\n"
    "    - count: 8\n"
    "      creationIntervalMs: 500\n"
    "      workloads:\n"
    "      - {className: medium, runtimeMs: 500, priority: 100, request: 5}\n"
    "    - count: 4\n"
    "      creationIntervalMs: 1200\n"
    "      workloads:\n"
    "      - {className: large, runtimeMs: 1000, priority: 200, request: 12}\n";

/* Every answer the engine gives from memory equals a fresh search (the
 * self-check after every step fails the run otherwise), and remembering
 * changes no decision: the run matches one without the checks. */
static void test_ideal_memo_matches_fresh_searches(void **state)
{
    static const double budgets[][2] = {{0, 0}, {10, 20}, {40, 40}};
    struct ts_bench_gen g;
    struct ts_bench_plan p;
    struct ts_err err = {0};

    (void)state;
    assert_int_equal(decode(contended, &g, &err), 0);
    ts_bench_plan_build(&g, &p);
    ts_bench_gen_release(&g);
    for (size_t b = 0; b < sizeof(budgets) / sizeof(budgets[0]); b++) {
        struct ts_bench_ideal_opts checked = {budgets[b][0], budgets[b][1], 1};
        struct ts_bench_ideal_opts plain = {budgets[b][0], budgets[b][1], 0};
        struct ts_bench_result r1, r2;

        if (ts_bench_ideal_run(&p, &checked, &r1, &err))
            fail_msg("budget %g/%g: %s", budgets[b][0], budgets[b][1], err.msg);
        assert_int_equal(ts_bench_ideal_run(&p, &plain, &r2, &err), 0);
        assert_true(r1.evictions > 0); /* preemptors did wait for victims */
        assert_int_equal(r1.evictions, r2.evictions);
        assert_int_equal(r1.admissions, r2.admissions);
        for (size_t i = 0; i < p.n_wls; i++) {
            assert_int_equal(r1.wls[i].admitted, r2.wls[i].admitted);
            assert_int_equal(r1.wls[i].finished, r2.wls[i].finished);
        }
        ts_bench_result_release(&r1);
        ts_bench_result_release(&r2);
    }
    ts_bench_plan_release(&p);
}

static void test_range_check_names_each_bound(void **state)
{
    static const char *range_yaml = "cmd: {maxWallMs: 500, maxrss: 10}\n"
                                    "wlClassesMaxAvgTimeToAdmissionMs: {one: 40, two: 1}\n"
                                    "clusterQueueClassesMinUsage: {cq: 90}\n";
    struct ts_bench_plan p;
    struct ts_bench_result r;
    struct ts_bench_report rep;
    struct ts_bench_range range;
    struct ts_bench_proc proc = {0, 0, 20};
    struct ts_buf out = TS_BUF_INIT;
    struct ts_err err = {0};
    cJSON *root = yaml(range_yaml);

    (void)state;
    run_single(0, 0, &p, &r, &rep);
    assert_int_equal(ts_bench_range_decode(root, &range, &err), 0);
    assert_int_equal(ts_bench_range_check(&range, &rep, NULL, &out), 4);
    assert_string_equal(out.ptr, "wall ms 700 > cmd.maxWallMs 500\n"
                                 "class one: mean time to admission 50 ms > "
                                 "wlClassesMaxAvgTimeToAdmissionMs.one 40\n"
                                 "wlClassesMaxAvgTimeToAdmissionMs.two: no such workload class\n"
                                 "ClusterQueue class cq: minimum usage 85.7 % < "
                                 "clusterQueueClassesMinUsage.cq 90\n");
    ts_buf_reset(&out);
    assert_int_equal(ts_bench_range_check(&range, &rep, &proc, &out), 5);
    assert_non_null(strstr(out.ptr, "controller peak RSS KiB 20 > cmd.maxrss 10\n"));
    ts_buf_release(&out);
    ts_bench_range_release(&range);
    cJSON_Delete(root);
    root = yaml("wlClassesMaxAvgTimeToAdmissionMs: {one: -1}\n");
    assert_int_equal(ts_bench_range_decode(root, &range, &err), TS_EINVAL);
    assert_string_equal(err.msg, "wlClassesMaxAvgTimeToAdmissionMs.one: Invalid value: must be a "
                                 "non-negative number");
    cJSON_Delete(root);
    release_all(&p, &r, &rep);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gen_decode_errors_name_the_field),
        cmocka_unit_test(test_gen_expands_baseline_counts),
        cmocka_unit_test(test_gen_quantities_as_strings),
        cmocka_unit_test(test_gen_expands_large_scale_counts),
        cmocka_unit_test(test_range_reads_kueue_files),
        cmocka_unit_test(test_cq_usage_as_kueue_reads_status),
        cmocka_unit_test(test_bucket_grants_in_order),
        cmocka_unit_test(test_stats),
        cmocka_unit_test(test_ideal_single_queue_by_hand),
        cmocka_unit_test(test_ideal_write_budget_by_hand),
        cmocka_unit_test(test_ideal_decides_at_the_token),
        cmocka_unit_test(test_ideal_decides_in_batches),
        cmocka_unit_test(test_ideal_memo_matches_fresh_searches),
        cmocka_unit_test(test_range_check_names_each_bound),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
