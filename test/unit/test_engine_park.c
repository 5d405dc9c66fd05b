/* Tests for parked equivalence classes (pkg/engine/park.c, cycle.c):
 * under BestEffortFIFO a head equivalent to one that did not fit since the
 * last requeue is parked with that one's verdict without an evaluation, so
 * the verdict it copies must be the latest one, not one from before the
 * requeue. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "api/workload.h"
#include "sim/sim.h"
#include "sim_test.h"

#define NOW (INT64_C(1795255200) * TS_TIME_SECOND)

/* One queue of 4 cpu. */
static const char queues[] =
    "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: default}\n---\n"
    "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: cq}\n"
    "spec:\n  namespaceSelector: {}\n"
    "  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n    - name: default\n"
    "      resources: [{name: cpu, nominalQuota: 4}]\n---\n"
    "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\n"
    "metadata: {namespace: default, name: lq}\nspec: {clusterQueue: cq}\n";

/* A pending workload asking `cpu`, created `minute` minutes past 08:00. */
static void put(struct ts_sim *s, const char *name, const char *cpu, int minute)
{
    char y[1024];

    snprintf(y, sizeof(y),
             "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\n"
             "metadata: {namespace: default, name: %s, "
             "creationTimestamp: '2026-11-21T08:%02d:00Z'}\n"
             "spec:\n  queueName: lq\n  podSets:\n  - name: main\n    count: 1\n"
             "    template: {spec: {containers: [{name: c, image: busybox, "
             "resources: {requests: {cpu: '%s'}}}]}}\n",
             name, minute, cpu);
    sim_add_yaml(s, y, NOW);
}

/* The message of name's QuotaReserved condition ("" when none). */
static const char *pending_message(const struct ts_sim *s, const char *name)
{
    const struct ts_workload *wl = ts_sim_find(s, "default", name);
    const struct ts_condition *c;

    assert_non_null(wl);
    c = ts_conditions_find(&wl->status.conditions, TS_WL_COND_QUOTA_RESERVED);
    return c && c->message ? c->message : "";
}

#define NEEDED(n)                                                                                  \
    "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor "        \
    "default, " n " more needed"

/* a and b wait with "4 more needed"; a release of 1 cpu requeues a, which
 * now needs 3 more; c, of a's class, arrives and is parked with a's latest
 * verdict at once: it must read "3 more needed".  (The blocked class kept
 * its message strings across the requeue; it once could have kept a stale
 * one.) */
static void test_parked_head_gets_the_latest_verdict(void **state)
{
    struct ts_sim *s = ts_sim_new(NULL);

    (void)state;
    sim_add_yaml(s, queues, NOW);
    put(s, "three", "3", 0);
    put(s, "one", "1", 1);
    ts_sim_run(s, 10, NOW);
    put(s, "a", "4", 2);
    put(s, "b", "4", 3);
    ts_sim_run(s, 10, NOW);
    assert_string_equal(pending_message(s, "a"), NEEDED("4"));
    assert_string_equal(pending_message(s, "b"), NEEDED("4"));

    assert_int_equal(ts_sim_finish(s, "default", "one", NOW), 0);
    ts_sim_run(s, 10, NOW);
    assert_string_equal(pending_message(s, "a"), NEEDED("3"));
    /* b was told its class's verdict once; later amounts go to the head only */
    assert_string_equal(pending_message(s, "b"), NEEDED("4"));

    put(s, "c", "4", 4);
    ts_sim_run(s, 10, NOW);
    assert_string_equal(pending_message(s, "c"), NEEDED("3"));
    ts_sim_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parked_head_gets_the_latest_verdict),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
