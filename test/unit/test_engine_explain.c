/* Tests for pkg/engine/explain: positions in the scheduler's order, and for
 * every kind of counterfactual a case where applying the suggested change
 * really admits the workload (checked by running the engine again). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/explain.h"
#include "sim/sim.h"
#include "sim_test.h"
#include "util/alloc.h"

#define NOW (INT64_C(1795255200) * TS_TIME_SECOND)

static void add_yaml(struct ts_sim *s, const char *yaml)
{
    sim_add_yaml(s, yaml, NOW);
}

static const char base[] = "apiVersion: kueue.x-k8s.io/v1beta2\n"
                           "kind: ResourceFlavor\nmetadata: {name: default}\n---\n"
                           "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\n"
                           "metadata: {namespace: default, name: lq}\nspec: {clusterQueue: cq}\n"
                           "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\n"
                           "metadata: {namespace: default, name: lq2}\nspec: {clusterQueue: cq}\n";

static void add_cq(struct ts_sim *s, int cpu, const char *preemption)
{
    char y[1024];

    snprintf(
        y, sizeof(y),
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: cq}\n"
        "spec:\n  namespaceSelector: {}\n%s  resourceGroups:\n  - coveredResources: [cpu]\n"
        "    flavors:\n    - name: default\n      resources: [{name: cpu, nominalQuota: %d}]\n",
        preemption, cpu);
    add_yaml(s, y);
}

static void add_wl(struct ts_sim *s, const char *name, const char *lq, int cpu, int count, int min,
                   int prio, const char *created)
{
    char y[1024];

    snprintf(y, sizeof(y),
             "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {namespace: default, "
             "name: %s, creationTimestamp: \"%s\"}\nspec:\n  queueName: %s\n  priority: %d\n"
             "  podSets:\n  - name: main\n    count: %d\n%s    template:\n      spec:\n"
             "        containers: [{name: c, resources: {requests: {cpu: \"%d\"}}}]\n",
             name, created, lq, prio, count, min ? "    minCount: 1\n" : "", cpu);
    if (min) { /* minCount: exactly `min` */
        char *p = strstr(y, "minCount: 1");

        snprintf(p, sizeof(y) - (size_t)(p - y),
                 "minCount: %d\n    template:\n      spec:\n"
                 "        containers: [{name: c, resources: {requests: {cpu: \"%d\"}}}]\n",
                 min, cpu);
    }
    add_yaml(s, y);
}

static int admitted(struct ts_sim *s, const char *name)
{
    const struct ts_workload *w = ts_sim_find(s, "default", name);

    return w && w->status.admission && ts_workload_has_quota_reservation(w);
}

static void test_pending_positions(void **state)
{
    struct ts_sim *s = ts_sim_new(NULL);
    struct ts_pending_list l;

    (void)state;
    add_yaml(s, base);
    add_cq(s, 0, "");
    add_wl(s, "low-old", "lq", 1, 1, 0, 1, "2026-11-21T08:00:00Z");
    add_wl(s, "high", "lq2", 1, 1, 0, 9, "2026-11-21T09:00:00Z");
    add_wl(s, "low-new", "lq", 1, 1, 0, 1, "2026-11-21T08:30:00Z");
    add_wl(s, "mid", "lq", 1, 1, 0, 5, "2026-11-21T10:00:00Z");
    ts_sim_run(s, 0, NOW);
    assert_int_equal(ts_engine_pending(ts_sim_engine(s), "cq", NULL, NULL, 0, 1000, &l), 0);
    assert_int_equal(l.total, 4);
    assert_string_equal(l.items[0].name, "high");
    assert_string_equal(l.items[1].name, "mid");
    assert_string_equal(l.items[2].name, "low-old");
    assert_string_equal(l.items[3].name, "low-new");
    assert_int_equal(l.items[3].position_in_lq, 2); /* mid, low-old ahead in lq */
    ts_pending_list_release(&l);
    assert_int_equal(ts_engine_pending(ts_sim_engine(s), "cq", "default", "lq", 1, 1, &l), 0);
    assert_int_equal(l.total, 3);
    assert_int_equal(l.n, 1);
    assert_string_equal(l.items[0].name, "low-old");
    assert_int_equal(l.items[0].position_in_cq, 2);
    assert_int_equal(l.items[0].position_in_lq, 1);
    ts_pending_list_release(&l);
    /* limit 0: only the total; an offset past the end: nothing */
    assert_int_equal(ts_engine_pending(ts_sim_engine(s), "cq", NULL, NULL, 0, 0, &l), 0);
    assert_int_equal(l.total, 4);
    assert_int_equal(l.n, 0);
    ts_pending_list_release(&l);
    assert_int_equal(ts_engine_pending(ts_sim_engine(s), "cq", NULL, NULL, 9, 5, &l), 0);
    assert_int_equal(l.n, 0);
    ts_pending_list_release(&l);
    /* the LocalQueue alone names its ClusterQueue */
    assert_int_equal(ts_engine_pending(ts_sim_engine(s), NULL, "default", "lq2", 0, 5, &l), 0);
    assert_int_equal(l.total, 1);
    assert_string_equal(l.items[0].name, "high");
    ts_pending_list_release(&l);
    assert_int_equal(ts_engine_pending(ts_sim_engine(s), NULL, "default", "nope", 0, 5, &l),
                     TS_ENOTFOUND);
    assert_int_equal(ts_engine_pending(ts_sim_engine(s), "nope", NULL, NULL, 0, 5, &l),
                     TS_ENOTFOUND);
    ts_sim_free(s);
}

/* The visibility order is the admission order: with room for one
 * workload at a time, finishing the running one admits exactly the next in
 * the pending list, for both queueing strategies. */
static void order_is_admission_order(const char *strategy)
{
    static const int prios[] = {0, 9, 5, 0, 5, 9, 0, 0, 5, 9, 5, 0};
    static const int minutes[] = {7, 3, 11, 0, 5, 9, 2, 10, 1, 6, 4, 8};
    enum { N = sizeof(prios) / sizeof(prios[0]) };
    struct ts_sim *s = ts_sim_new(NULL);
    struct ts_pending_list l;
    char names[N][16], spec[128], running[200] = "";
    char *order[N];

    add_yaml(s, base);
    snprintf(spec, sizeof(spec), "  queueingStrategy: %s\n", strategy);
    add_cq(s, 1, spec);
    for (int i = 0; i < N; i++) {
        char created[32];

        snprintf(names[i], sizeof(names[i]), "w%02d", i);
        snprintf(created, sizeof(created), "2026-11-21T08:%02d:00Z", minutes[i]);
        add_wl(s, names[i], i % 3 ? "lq" : "lq2", 1, 1, 0, prios[i], created);
    }
    ts_sim_run(s, 0, NOW);
    assert_int_equal(ts_engine_pending(ts_sim_engine(s), "cq", NULL, NULL, 0, 1000, &l), 0);
    assert_int_equal(l.total, N - 1);
    for (size_t i = 0; i < l.n; i++)
        order[i] = ts_xstrdup(l.items[i].name);
    ts_pending_list_release(&l);
    for (int i = 0; i < N; i++) {
        if (admitted(s, names[i]))
            snprintf(running, sizeof(running), "%s", names[i]);
    }
    for (int i = 0; i < N - 1; i++) {
        assert_int_equal(ts_sim_finish(s, "default", running, NOW), 0);
        ts_sim_run(s, 0, NOW);
        if (!admitted(s, order[i]))
            fail_msg("%s: position %d was %s, but it was not admitted next", strategy, i, order[i]);
        snprintf(running, sizeof(running), "%s", order[i]);
        free(order[i]);
    }
    ts_sim_free(s);
}

static void test_order_strict_fifo(void **state)
{
    (void)state;
    order_is_admission_order("StrictFIFO");
}

static void test_order_best_effort_fifo(void **state)
{
    (void)state;
    order_is_admission_order("BestEffortFIFO");
}

/* Pending reasons without a write storm: workloads parked behind a head
 * get its reason once; when the head's message changes (the amounts in it
 * move with every admission) only the head is rewritten, not the 7
 * workloads behind it. */
static void test_parked_class_told_once(void **state)
{
    struct ts_sim *s = ts_sim_new(NULL);
    struct ts_engine *e = ts_sim_engine(s);
    size_t members = 0;

    (void)state;
    add_yaml(s, base);
    add_cq(s, 4, "");
    add_wl(s, "big", "lq", 3, 1, 0, 9, "2026-11-21T07:00:00Z");
    ts_sim_run(s, 0, NOW);
    for (int i = 0; i < 10; i++) {
        char name[16], created[32];

        snprintf(name, sizeof(name), "w%d", i);
        snprintf(created, sizeof(created), "2026-11-21T08:%02d:00Z", i);
        add_wl(s, name, "lq", 2, 1, 0, 0, created);
    }
    ts_sim_run(s, 0, NOW);
    for (int i = 0; i < 10; i++) { /* each says why it waits */
        char name[16];
        const struct ts_workload *w;

        snprintf(name, sizeof(name), "w%d", i);
        w = ts_sim_find(s, "default", name);
        assert_non_null(w);
        assert_non_null(ts_conditions_find(&w->status.conditions, "QuotaReserved"));
    }
    /* big finishes: w0 and w1 take its place, and the next head's "1 more
     * needed" becomes "2 more needed" */
    assert_int_equal(ts_sim_finish(s, "default", "big", NOW), 0);
    for (int cycle = 0; cycle < 5; cycle++) {
        struct ts_cycle c;

        ts_cycle_init(&c);
        ts_engine_cycle(e, NOW, &c);
        for (size_t d = 0; d < c.n; d++) {
            if (c.items[d].kind == TS_DECISION_ADMIT)
                ts_engine_admit_confirm(e, c.items[d].ns, c.items[d].name);
            else if (c.items[d].kind == TS_DECISION_PENDING && c.items[d].name[0] == 'w')
                members++;
        }
        ts_cycle_release(&c);
    }
    assert_true(members >= 1); /* the head's new message */
    if (members > 2)
        fail_msg("%zu pending-reason writes for one change of the head's message", members);
    ts_sim_free(s);
}

static void explain(struct ts_sim *s, const char *name, struct ts_explanation *x)
{
    assert_int_equal(ts_engine_explain(ts_sim_engine(s), "default", name, x), 0);
}

static void test_cf_never_then_more_quota(void **state)
{
    struct ts_sim *s = ts_sim_new(NULL);
    struct ts_explanation x;

    (void)state;
    add_yaml(s, base);
    add_cq(s, 4, "");
    add_wl(s, "big", "lq", 10, 1, 0, 0, "2026-11-21T08:00:00Z");
    ts_sim_run(s, 0, NOW);
    explain(s, "big", &x);
    assert_int_equal(x.cf, TS_CF_NEVER);
    assert_non_null(strstr(x.cf_text, "exceeds it by 6"));
    assert_int_equal(x.n_facts, 1);
    assert_true(x.facts[0].requested == 10000 && x.facts[0].maximum == 4000);
    ts_explanation_release(&x);
    add_cq(s, 10, ""); /* the suggested change */
    ts_sim_run(s, 0, NOW);
    assert_true(admitted(s, "big"));
    ts_sim_free(s);
}

static void test_cf_partial_then_min_count(void **state)
{
    struct ts_sim *s = ts_sim_new(NULL);
    struct ts_explanation x;

    (void)state;
    add_yaml(s, base);
    add_cq(s, 4, "");
    add_wl(s, "wide", "lq", 1, 6, 0, 0, "2026-11-21T08:00:00Z");
    ts_sim_run(s, 0, NOW);
    explain(s, "wide", &x);
    assert_int_equal(x.cf, TS_CF_PARTIAL);
    assert_non_null(strstr(x.cf_text, "count 4 of 6"));
    ts_explanation_release(&x);
    add_wl(s, "wide", "lq", 1, 6, 4, 0, "2026-11-21T08:00:00Z");
    ts_sim_run(s, 0, NOW);
    assert_true(admitted(s, "wide"));
    assert_int_equal(
        ts_sim_find(s, "default", "wide")->status.admission->podset_assignments[0].count.v, 4);
    ts_sim_free(s);
}

static void test_cf_priority_then_higher_priority(void **state)
{
    struct ts_sim *s = ts_sim_new(NULL);
    struct ts_explanation x;

    (void)state;
    add_yaml(s, base);
    add_cq(s, 4, "  preemption: {withinClusterQueue: LowerPriority}\n");
    add_wl(s, "held", "lq", 4, 1, 0, 5, "2026-11-21T07:00:00Z");
    ts_sim_run(s, 0, NOW);
    add_wl(s, "waiting", "lq", 4, 1, 0, 1, "2026-11-21T08:00:00Z");
    ts_sim_run(s, 0, NOW);
    explain(s, "waiting", &x);
    assert_int_equal(x.cf, TS_CF_PRIORITY);
    assert_string_equal(x.cf_text, "would preempt default/held if its priority were above 5");
    assert_int_equal(x.position_in_cq, 0);
    ts_explanation_release(&x);
    add_wl(s, "waiting", "lq", 4, 1, 0, 6, "2026-11-21T08:00:00Z");
    ts_sim_run(s, 0, NOW);
    assert_true(admitted(s, "waiting"));
    assert_false(admitted(s, "held"));
    ts_sim_free(s);
}

static void test_cf_free_quota_then_finish(void **state)
{
    struct ts_sim *s = ts_sim_new(NULL);
    struct ts_explanation x;

    (void)state;
    add_yaml(s, base);
    add_cq(s, 4, "");
    add_wl(s, "held", "lq", 3, 1, 0, 0, "2026-11-21T07:00:00Z");
    add_wl(s, "next", "lq2", 2, 1, 0, 0, "2026-11-21T08:00:00Z");
    add_wl(s, "after", "lq", 2, 1, 0, 0, "2026-11-21T09:00:00Z");
    ts_sim_run(s, 0, NOW);
    explain(s, "after", &x);
    assert_int_equal(x.cf, TS_CF_FREE_QUOTA);
    assert_string_equal(x.cf_text, "fits in flavor default if 1 cpu are freed in ClusterQueue cq");
    assert_int_equal(x.position_in_cq, 1);
    assert_int_equal(x.position_in_lq, 0);
    assert_int_equal(x.n_ahead, 1);
    assert_string_equal(x.ahead[0], "next");
    assert_string_equal(x.reason, "WaitingForQuota");
    ts_explanation_release(&x);
    ts_sim_finish(s, "default", "held", NOW);
    ts_sim_run(s, 0, NOW);
    assert_true(admitted(s, "next"));
    assert_true(admitted(s, "after"));
    explain(s, "after", &x);
    assert_null(x.reason); /* admitted: nothing to explain */
    assert_string_equal(x.cluster_queue, "cq");
    ts_explanation_release(&x);
    ts_sim_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pending_positions),
        cmocka_unit_test(test_order_strict_fifo),
        cmocka_unit_test(test_order_best_effort_fifo),
        cmocka_unit_test(test_parked_class_told_once),
        cmocka_unit_test(test_cf_never_then_more_quota),
        cmocka_unit_test(test_cf_partial_then_min_count),
        cmocka_unit_test(test_cf_priority_then_higher_priority),
        cmocka_unit_test(test_cf_free_quota_then_finish),
    };

    ts_alloc_init();
    return cmocka_run_group_tests_name("engine_explain", tests, NULL, NULL);
}
