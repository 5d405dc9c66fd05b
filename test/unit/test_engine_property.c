/* Property test for the engine: random cohort trees, quotas, limits and
 * preemption policies, random arrivals and completions (seeded, so a
 * failure reproduces), and after every cycle the engine's self-check:
 * usage equals what admitted workloads hold, no queue exceeds nominal +
 * borrowingLimit or what its cohort can lend, no cohort exceeds its
 * capacity.  20 seeds x 500 cycles = 10,000 cycles; every other seed runs
 * with fair sharing (so its preemption path is exercised too). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim.h"
#include "util/alloc.h"
#include "util/buf.h"

#define SEEDS  20
#define CYCLES 500
#define NOW    (INT64_C(1795255200) * TS_TIME_SECOND)

static unsigned seed_state;
static size_t rejected;

static int rnd(int n)
{
    return (int)(rand_r(&seed_state) % (unsigned)n);
}

static void add(struct ts_sim *s, const char *json)
{
    cJSON *o = cJSON_Parse(json);
    struct ts_err err = {0};

    if (!o)
        fail_msg("bad JSON in test: %s", json);
    /* invalid random combinations (e.g. lending above nominal) are
     * rejected by validation, as the webhook would: count them */
    if (ts_sim_add(s, o, NOW, &err)) {
        rejected++;
        if (getenv("TS_TEST_VERBOSE"))
            fprintf(stderr, "rejected: %s\n", err.msg);
    }
    cJSON_Delete(o);
}

static const char *const policies_within[] = {"Never", "LowerPriority",
                                              "LowerOrNewerEqualPriority"};
static const char *const policies_reclaim[] = {"Never", "LowerPriority", "Any"};

static void add_quota(struct ts_buf *b, const char *res, int nominal, const char *unit, int cohort)
{
    ts_buf_addf(b, "{\"name\":\"%s\",\"nominalQuota\":\"%d%s\"", res, nominal, unit);
    if (cohort && rnd(3) == 0)
        ts_buf_addf(b, ",\"borrowingLimit\":\"%d%s\"", rnd(6), unit);
    if (cohort && rnd(3) == 0)
        ts_buf_addf(b, ",\"lendingLimit\":\"%d%s\"", rnd(nominal + 1), unit);
    ts_buf_adds(b, "}");
}

static void add_cq(struct ts_sim *s, int i, const char *cohort)
{
    struct ts_buf b = TS_BUF_INIT;

    ts_buf_addf(&b,
                "{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"ClusterQueue\","
                "\"metadata\":{\"name\":\"cq%d\"},\"spec\":{\"namespaceSelector\":{},"
                "\"queueingStrategy\":\"%s\",\"preemption\":{\"withinClusterQueue\":\"%s\","
                "\"reclaimWithinCohort\":\"%s\"}",
                i, rnd(2) ? "StrictFIFO" : "BestEffortFIFO", policies_within[rnd(3)],
                cohort ? policies_reclaim[rnd(3)] : "Never");
    if (cohort)
        ts_buf_addf(&b, ",\"cohortName\":\"%s\"", cohort);
    ts_buf_adds(&b, ",\"resourceGroups\":[{\"coveredResources\":[\"cpu\",\"memory\"],"
                    "\"flavors\":[");
    for (int f = 0; f < 2; f++) {
        ts_buf_addf(&b, "%s{\"name\":\"f%d\",\"resources\":[", f ? "," : "", f);
        add_quota(&b, "cpu", rnd(10), "", cohort != NULL);
        ts_buf_adds(&b, ",");
        add_quota(&b, "memory", rnd(20), "Gi", cohort != NULL);
        ts_buf_adds(&b, "]}");
    }
    ts_buf_adds(&b, "]}]}}");
    add(s, b.ptr);
    ts_buf_reset(&b);
    ts_buf_addf(
        &b,
        "{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"LocalQueue\",\"metadata\":"
        "{\"namespace\":\"default\",\"name\":\"lq%d\"},\"spec\":{\"clusterQueue\":\"cq%d\"}}",
        i, i);
    add(s, b.ptr);
    ts_buf_release(&b);
}

static int setup(struct ts_sim *s)
{
    int ncq = 3 + rnd(6);

    add(s, "{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"ResourceFlavor\","
           "\"metadata\":{\"name\":\"f0\"}}");
    add(s, "{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"ResourceFlavor\","
           "\"metadata\":{\"name\":\"f1\"}}");
    /* a two-level tree: cohorts c1 and c2 under root, some queues alone */
    add(s, "{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"Cohort\",\"metadata\":"
           "{\"name\":\"c1\"},\"spec\":{\"parentName\":\"root\"}}");
    add(s, "{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"Cohort\",\"metadata\":"
           "{\"name\":\"c2\"},\"spec\":{\"parentName\":\"root\",\"resourceGroups\":[{"
           "\"coveredResources\":[\"cpu\",\"memory\"],\"flavors\":[{\"name\":\"f0\","
           "\"resources\":[{\"name\":\"cpu\",\"nominalQuota\":3},{\"name\":\"memory\","
           "\"nominalQuota\":\"4Gi\"}]}]}]}}");
    for (int i = 0; i < ncq; i++) {
        static const char *const cohorts[] = {"c1", "c2", "root", NULL};

        add_cq(s, i, cohorts[rnd(4)]);
    }
    return ncq;
}

static void arrive(struct ts_sim *s, int ncq, int *seq)
{
    char json[1024];
    int count = 1 + rnd(3), min = count > 1 && rnd(3) == 0;

    snprintf(json, sizeof(json),
             "{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"Workload\",\"metadata\":"
             "{\"namespace\":\"default\",\"name\":\"w%d\"},\"spec\":{\"queueName\":\"lq%d\","
             "\"priority\":%d,\"podSets\":[{\"name\":\"main\",\"count\":%d%s,\"template\":"
             "{\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":"
             "\"%d\",\"memory\":\"%dGi\"}}}]}}}]}}",
             (*seq)++, rnd(ncq), rnd(4) * 10, count, min ? ",\"minCount\":1" : "", 1 + rnd(4),
             1 + rnd(6));
    add(s, json);
}

static void finish_some(struct ts_sim *s)
{
    for (size_t i = 0; i < ts_sim_n_workloads(s); i++) {
        const struct ts_workload *w = ts_sim_workload(s, i);

        if (w->status.admission && !ts_workload_is_finished(w) && rnd(6) == 0)
            ts_sim_finish(s, w->meta.namespace_, w->meta.name, NOW);
    }
}

static void test_random_cycles_keep_quota(void **state)
{
    size_t cycles = 0, admitted = 0;

    (void)state;
    for (unsigned seed = 1; seed <= SEEDS; seed++) {
        struct ts_engine_config ec;
        struct ts_sim *s;
        int seq = 0, ncq;
        char msg[512];

        ts_engine_config_init(&ec);
        ec.fair_sharing = seed % 2 == 0;
        ec.check_memo = 1;
        s = ts_sim_new(&ec);
        seed_state = seed;
        ncq = setup(s);
        for (int c = 0; c < CYCLES; c++, cycles++) {
            for (int a = rnd(3); a > 0; a--)
                arrive(s, ncq, &seq);
            ts_sim_run(s, 1, NOW);
            if (ts_engine_check(ts_sim_engine(s), msg, sizeof(msg)))
                fail_msg("seed %u cycle %d: %s", seed, c, msg);
            finish_some(s);
            if (ts_engine_check(ts_sim_engine(s), msg, sizeof(msg)))
                fail_msg("seed %u cycle %d after finishing: %s", seed, c, msg);
        }
        for (size_t i = 0; i < ts_sim_n_workloads(s); i++)
            admitted += ts_sim_workload(s, i)->status.admission != NULL;
        ts_sim_free(s);
    }
    assert_int_equal(cycles, SEEDS * CYCLES);
    print_message("%zu cycles, %zu workloads admitted at the end, %zu objects rejected\n", cycles,
                  admitted, rejected);
    assert_true(admitted > 100); /* the random states did admit work */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_cycles_keep_quota),
    };

    ts_alloc_init();
    return cmocka_run_group_tests_name("engine_property", tests, NULL, NULL);
}
