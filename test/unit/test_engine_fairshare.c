/* Tests for the fair-sharing share a queue's status shows
 * (status.fairSharing.weightedShare, engine/fairshare.c), against what
 * Kueue writes: pkg/controller/core/helpers.go WeightedShare over
 * pkg/cache/scheduler/fair_sharing.go PreciseWeightedShare. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>

#include "engine/engine.h"
#include "sim/sim.h"
#include "sim_test.h"

#define NOW (INT64_C(1795255200) * TS_TIME_SECOND)

/* Cohort co of ClusterQueues a (nominal a_cpu, fairSharing weight) and b
 * (nominal b_cpu); a holds an admitted workload of used_cpu. */
static void build(struct ts_sim *s, const char *a_cpu, const char *weight, const char *b_cpu,
                  const char *used_cpu)
{
    char y[4096];

    snprintf(y, sizeof(y),
             "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: f}\n"
             "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: a}\n"
             "spec:\n  namespaceSelector: {}\n  cohortName: co\n  fairSharing: {weight: '%s'}\n"
             "  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n    - name: f\n"
             "      resources: [{name: cpu, nominalQuota: '%s'}]\n"
             "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: b}\n"
             "spec:\n  namespaceSelector: {}\n  cohortName: co\n  resourceGroups:\n"
             "  - coveredResources: [cpu]\n    flavors:\n    - name: f\n"
             "      resources: [{name: cpu, nominalQuota: '%s'}]\n"
             "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\n"
             "metadata: {namespace: default, name: la}\nspec: {clusterQueue: a}\n"
             "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\n"
             "metadata: {namespace: default, name: held, creationTimestamp: "
             "'2026-11-27T17:00:00Z'}\n"
             "spec:\n  queueName: la\n  podSets:\n  - name: main\n    count: 1\n"
             "    template: {spec: {containers: [{name: c, image: busybox, "
             "resources: {requests: {cpu: '%s'}}}]}}\n"
             "status:\n  admission:\n    clusterQueue: a\n    podSetAssignments:\n"
             "    - {name: main, count: 1, flavors: {cpu: f}, resourceUsage: {cpu: '%s'}}\n"
             "  conditions:\n  - {type: QuotaReserved, status: 'True', reason: QuotaReserved, "
             "message: Quota reserved in ClusterQueue a, lastTransitionTime: "
             "'2026-11-27T17:00:00Z'}\n"
             "  - {type: Admitted, status: 'True', reason: Admitted, message: The workload is "
             "admitted, lastTransitionTime: '2026-11-27T17:00:00Z'}\n",
             weight, a_cpu, b_cpu, used_cpu, used_cpu);
    sim_add_yaml(s, y, NOW);
}

static void test_weighted_share_as_kueue_writes_it(void **state)
{
    static const struct {
        const char *name, *a_cpu, *weight, *b_cpu, *used;
        int64_t want;
    } rows[] = {
        {"within its nominal quota", "4", "1", "4", "2", 0},
        {"borrows 2 of the 10 the cohort could lend", "4", "1", "6", "6", 200},
        {"a ratio of 333.3 is rounded up", "1", "1", "2", "2", 334},
        {"divided by a fractional weight, rounded up", "4", "300m", "6", "6", 667},
        {"divided by weight 2", "4", "2", "6", "6", 100},
        {"weight 0 while borrowing", "4", "0", "6", "6", INT64_MAX},
        {"weight 0 while within its quota", "4", "0", "6", "3", 0},
        {"borrowing where nothing can be lent", "0", "1", "0", "2", 0},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        struct ts_sim *s = ts_sim_new(NULL);
        int64_t got = -1;

        build(s, rows[i].a_cpu, rows[i].weight, rows[i].b_cpu, rows[i].used);
        assert_int_equal(ts_engine_weighted_share(ts_sim_engine(s), "a", 0, &got), 0);
        if (got != rows[i].want)
            fail_msg("%s: weightedShare %lld, want %lld", rows[i].name, (long long)got,
                     (long long)rows[i].want);
        ts_sim_free(s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_weighted_share_as_kueue_writes_it),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
