/* Tests for the engine's bookkeeping of preemption victims between a
 * PREEMPT decision and the victim's quota release, as the controller
 * drives it: the victim's Evicted write may fail (it is evicted again next
 * cycle) or land (it is never evicted twice).  The soak found a preemptor
 * waiting forever for a victim whose eviction write had failed, reserving
 * the quota the other queues' heads needed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "sim/sim.h"
#include "sim_test.h"
#include "util/alloc.h"
#include "util/buf.h"

#define NOW (INT64_C(1795255200) * TS_TIME_SECOND)

/* One queue of 4 cpu that preempts lower priorities; `low` holds all of
 * it, `incoming` (higher priority) needs all of it. */
static const char objects[] =
    "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: default}\n---\n"
    "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: cq}\n"
    "spec:\n  namespaceSelector: {}\n"
    "  preemption: {withinClusterQueue: LowerPriority, reclaimWithinCohort: Never}\n"
    "  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n    - name: default\n"
    "      resources: [{name: cpu, nominalQuota: 4}]\n---\n"
    "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\n"
    "metadata: {namespace: default, name: lq}\nspec: {clusterQueue: cq}\n---\n"
    "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\n"
    "metadata: {namespace: default, name: incoming}\n"
    "spec:\n  queueName: lq\n  priority: 10\n  podSets:\n  - name: main\n    count: 1\n"
    "    template: {spec: {containers: [{name: c, image: busybox, "
    "resources: {requests: {cpu: '4'}}}]}}\n";

/* `low`, admitted; with its eviction landed when `evicted`. */
static void put_low(struct ts_sim *s, int evicted)
{
    static const char fmt[] =
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\n"
        "metadata: {namespace: default, name: low}\n"
        "spec:\n  queueName: lq\n  priority: 1\n  podSets:\n  - name: main\n    count: 1\n"
        "    template: {spec: {containers: [{name: c, image: busybox, "
        "resources: {requests: {cpu: '4'}}}]}}\n"
        "status:\n  admission:\n    clusterQueue: cq\n    podSetAssignments:\n"
        "    - {name: main, count: 1, flavors: {cpu: default}, resourceUsage: {cpu: '4'}}\n"
        "  conditions:\n"
        "  - {type: QuotaReserved, status: 'True', reason: QuotaReserved, message: m, "
        "lastTransitionTime: '2026-11-21T08:00:00Z'}\n"
        "  - {type: Admitted, status: 'True', reason: Admitted, message: m, "
        "lastTransitionTime: '2026-11-21T08:00:00Z'}\n"
        "%s";
    const char *ev = evicted ? "  - {type: Evicted, status: 'True', reason: Preempted, message: m, "
                               "lastTransitionTime: '2026-11-21T08:05:00Z'}\n"
                             : "";
    char y[2048];

    snprintf(y, sizeof(y), fmt, ev);
    sim_add_yaml(s, y, NOW);
}

static struct ts_sim *setup_sim(int evicted)
{
    struct ts_sim *s = ts_sim_new(NULL);

    sim_add_yaml(s, objects, NOW);
    put_low(s, evicted);
    return s;
}

/* Runs one cycle without applying it (the controller's writes are in
 * flight); returns how many times it evicts `low`. */
static int cycle_evicts_low(struct ts_engine *e)
{
    struct ts_cycle c;
    int n = 0;

    ts_cycle_init(&c);
    ts_engine_cycle(e, NOW, &c);
    for (size_t d = 0; d < c.n; d++) {
        assert_int_not_equal(c.items[d].kind, TS_DECISION_ADMIT); /* low still holds it all */
        for (size_t t = 0; t < c.items[d].n_targets; t++)
            n += strcmp(c.items[d].targets[t].name, "low") == 0;
    }
    ts_cycle_release(&c);
    return n;
}

/* The victim's Evicted write failed (a 409, a 5xx, a cut): the controller
 * says so and the next cycle evicts it again: kept as "on its way out",
 * it would make the preemptor wait for it forever. */
static void test_failed_eviction_is_issued_again(void **state)
{
    struct ts_sim *s = setup_sim(0);
    struct ts_engine *e = ts_sim_engine(s);

    (void)state;
    assert_int_equal(cycle_evicts_low(e), 1);
    assert_int_equal(cycle_evicts_low(e), 0); /* the write is in flight */
    ts_engine_evict_forget(e, "default", "low");
    assert_int_equal(cycle_evicts_low(e), 1);
    /* this time it lands: the informer shows Evicted=True, quota held
     * until the job stops; nothing is evicted again meanwhile */
    put_low(s, 1);
    for (int i = 0; i < 3; i++)
        assert_int_equal(cycle_evicts_low(e), 0);
    ts_engine_evict_forget(e, "default", "ghost"); /* unknown: ignored */
    ts_sim_free(s);
}

/* A victim whose eviction is stored (found so after a restart, or a write
 * whose reply was lost but which landed) is never evicted a second time,
 * even when a later write about it fails. */
static void test_landed_eviction_is_not_issued_again(void **state)
{
    struct ts_sim *s = setup_sim(1);
    struct ts_engine *e = ts_sim_engine(s);

    (void)state;
    assert_int_equal(cycle_evicts_low(e), 0);
    ts_engine_evict_forget(e, "default", "low");
    assert_int_equal(cycle_evicts_low(e), 0);
    /* its job stopped: the quota goes to the preemptor */
    assert_int_equal(ts_sim_delete(s, "default", "low"), 0);
    ts_sim_run(s, 0, NOW);
    assert_true(ts_workload_has_quota_reservation(ts_sim_find(s, "default", "incoming")));
    ts_sim_free(s);
}

/* A queue with 70 resources in two groups: the victim holds the 70th, past the 64 a
 * holder's mask of flavor-resources covers (preempt.c uses_needed()); the
 * search still finds it. */
static void test_victim_beyond_the_mask(void **state)
{
    struct ts_sim *s = ts_sim_new(NULL);
    struct ts_buf y = TS_BUF_INIT;
    static const char wl[] =
        "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\n"
        "metadata: {namespace: default, name: %s}\n"
        "spec:\n  queueName: lq\n  priority: %d\n  podSets:\n  - name: main\n    count: 1\n"
        "    template: {spec: {containers: [{name: c, image: busybox, "
        "resources: {requests: {example.com/r69: '4'}}}]}}\n";

    (void)state;
    ts_buf_adds(&y, "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\n"
                    "metadata: {name: fa}\n---\n"
                    "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\n"
                    "metadata: {name: fb}\n---\n"
                    "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\n"
                    "metadata: {name: cq}\nspec:\n  namespaceSelector: {}\n"
                    "  preemption: {withinClusterQueue: LowerPriority}\n"
                    "  resourceGroups:\n");
    for (int g = 0; g < 2; g++) { /* at most 64 resources per group */
        ts_buf_adds(&y, "  - coveredResources: [");
        for (int r = 35 * g; r < 35 * (g + 1); r++)
            ts_buf_addf(&y, "%sexample.com/r%d", r > 35 * g ? ", " : "", r);
        ts_buf_addf(&y, "]\n    flavors:\n    - name: f%c\n      resources:\n", "ab"[g]);
        for (int r = 35 * g; r < 35 * (g + 1); r++)
            ts_buf_addf(&y, "      - {name: example.com/r%d, nominalQuota: 4}\n", r);
    }
    ts_buf_adds(&y, "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\n"
                    "metadata: {namespace: default, name: lq}\nspec: {clusterQueue: cq}\n");
    ts_buf_addf(&y, wl, "low", 1);
    sim_add_yaml(s, y.ptr, NOW);
    ts_sim_run(s, 0, NOW);
    assert_true(ts_workload_has_quota_reservation(ts_sim_find(s, "default", "low")));
    ts_buf_reset(&y);
    ts_buf_addf(&y, wl + 4, "incoming", 10); /* without the leading "---\n" */
    sim_add_yaml(s, y.ptr, NOW);
    assert_int_equal(cycle_evicts_low(ts_sim_engine(s)), 1);
    ts_buf_release(&y);
    ts_sim_free(s);
}

/* Each queue keeps its holders in candidate order between searches
 * (preempt.c); a victim chosen, or forgotten after a failed write, moves
 * in that order (Kueue takes workloads on their way out first).  Queue a
 * borrows b's cpu: h1 (the newer, first in order) holds cpu, h2 cpu and
 * all the memory.  `incoming` (a) needs memory and evicts h2; then b's
 * `reclaimer` needs b's cpu back: h2, already on its way out, is enough,
 * and h1 must stay.  The engine's self-check compares the order kept with
 * the holders after every step. */
static void test_candidate_order_follows_evictions(void **state)
{
    static const char queues[] =
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: default}\n"
        "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: a}\n"
        "spec:\n  namespaceSelector: {}\n  cohortName: co\n"
        "  preemption: {withinClusterQueue: LowerPriority, reclaimWithinCohort: Any}\n"
        "  resourceGroups:\n  - coveredResources: [cpu, memory]\n    flavors:\n"
        "    - name: default\n      resources: [{name: cpu, nominalQuota: 2}, "
        "{name: memory, nominalQuota: 2Gi}]\n"
        "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: b}\n"
        "spec:\n  namespaceSelector: {}\n  cohortName: co\n"
        "  preemption: {withinClusterQueue: LowerPriority, reclaimWithinCohort: Any}\n"
        "  resourceGroups:\n  - coveredResources: [cpu, memory]\n    flavors:\n"
        "    - name: default\n      resources: [{name: cpu, nominalQuota: 2}, "
        "{name: memory, nominalQuota: 0}]\n"
        "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\n"
        "metadata: {namespace: default, name: a}\nspec: {clusterQueue: a}\n"
        "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\n"
        "metadata: {namespace: default, name: b}\nspec: {clusterQueue: b}\n";
    static const char held[] =
        "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\n"
        "metadata: {namespace: default, name: %s}\n"
        "spec:\n  queueName: a\n  priority: 1\n  podSets:\n  - name: main\n    count: 1\n"
        "    template: {spec: {containers: [{name: c, image: busybox, "
        "resources: {requests: {%s}}}]}}\n"
        "status:\n  admission:\n    clusterQueue: a\n    podSetAssignments:\n"
        "    - {name: main, count: 1, flavors: {%s}, resourceUsage: {%s}}\n"
        "  conditions:\n"
        "  - {type: QuotaReserved, status: 'True', reason: QuotaReserved, message: m, "
        "lastTransitionTime: '%s'}\n";
    static const char pending[] =
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\n"
        "metadata: {namespace: default, name: %s}\n"
        "spec:\n  queueName: %s\n  priority: 10\n  podSets:\n  - name: main\n    count: 1\n"
        "    template: {spec: {containers: [{name: c, image: busybox, "
        "resources: {requests: {%s}}}]}}\n";
    struct ts_sim *s = ts_sim_new(NULL);
    struct ts_engine *e = ts_sim_engine(s);
    struct ts_buf b = TS_BUF_INIT;
    struct ts_cycle c;
    char msg[512];

    (void)state;
    ts_buf_adds(&b, queues);
    ts_buf_addf(&b, held, "h1", "cpu: '2'", "cpu: default", "cpu: '2'", "2026-11-21T08:01:00Z");
    ts_buf_addf(&b, held, "h2", "cpu: '2', memory: 2Gi", "cpu: default, memory: default",
                "cpu: '2', memory: 2Gi", "2026-11-21T08:00:00Z");
    sim_add_yaml(s, b.ptr, NOW);
    ts_buf_reset(&b);
    ts_buf_addf(&b, pending, "incoming", "a", "memory: 1Gi");
    sim_add_yaml(s, b.ptr, NOW);

    ts_cycle_init(&c);
    ts_engine_cycle(e, NOW, &c);
    assert_int_equal(c.n, 1);
    assert_int_equal(c.items[0].n_targets, 1);
    assert_string_equal(c.items[0].targets[0].name, "h2");
    ts_cycle_release(&c);
    if (ts_engine_check(e, msg, sizeof(msg)))
        fail_msg("after h2 was chosen: %s", msg);

    ts_buf_reset(&b);
    ts_buf_addf(&b, pending, "reclaimer", "b", "cpu: '2'");
    sim_add_yaml(s, b.ptr, NOW);
    for (int i = 0; i < 2; i++) {
        ts_cycle_init(&c);
        ts_engine_cycle(e, NOW, &c);
        for (size_t d = 0; d < c.n; d++)
            assert_int_equal(c.items[d].n_targets, 0); /* h2 is enough; h1 stays */
        ts_cycle_release(&c);
        if (ts_engine_check(e, msg, sizeof(msg)))
            fail_msg("while h2 is on its way out: %s", msg);
    }

    ts_engine_evict_forget(e, "default", "h2"); /* its write failed */
    if (ts_engine_check(e, msg, sizeof(msg)))
        fail_msg("after h2 was forgotten: %s", msg);
    ts_buf_release(&b);
    ts_sim_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_failed_eviction_is_issued_again),
        cmocka_unit_test(test_landed_eviction_is_not_issued_again),
        cmocka_unit_test(test_victim_beyond_the_mask),
        cmocka_unit_test(test_candidate_order_follows_evictions),
    };

    ts_alloc_init();
    return cmocka_run_group_tests_name("engine_preempt", tests, NULL, NULL);
}
