/* Tests for the queue status versions (engine/status.h): the controller
 * computes a queue's status again only when its version changes, so every
 * change the status or the queue metrics show must change it, and changes
 * elsewhere should not (that is the saving).  And for admissions whose
 * write the controller could not land (ts_engine_admit_forget/refused). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "engine/status.h"
#include "sim/sim.h"
#include "sim_test.h"
#include "util/alloc.h"

#define NOW (INT64_C(1795255200) * TS_TIME_SECOND)

/* Two queues of 4 cpu in one cohort: a (LocalQueue la) and b (lb). */
static const char queues[] =
    "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: default}\n"
    "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: a}\n"
    "spec:\n  namespaceSelector: {}\n  cohortName: co\n  resourceGroups:\n"
    "  - coveredResources: [cpu]\n    flavors:\n    - name: default\n"
    "      resources: [{name: cpu, nominalQuota: 4}]\n"
    "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: b}\n"
    "spec:\n  namespaceSelector: {}\n  cohortName: co\n  resourceGroups:\n"
    "  - coveredResources: [cpu]\n    flavors:\n    - name: default\n"
    "      resources: [{name: cpu, nominalQuota: 4}]\n"
    "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\n"
    "metadata: {namespace: default, name: la}\nspec: {clusterQueue: a}\n"
    "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\n"
    "metadata: {namespace: default, name: lb}\nspec: {clusterQueue: b}\n";

static void add_workload(struct ts_sim *s, const char *name, const char *lq, const char *cpu)
{
    char y[1024];

    snprintf(y, sizeof(y),
             "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\n"
             "metadata: {namespace: default, name: %s}\n"
             "spec:\n  queueName: %s\n  podSets:\n  - name: main\n    count: 1\n"
             "    template: {spec: {containers: [{name: c, image: busybox, "
             "resources: {requests: {cpu: '%s'}}}]}}\n",
             name, lq, cpu);
    sim_add_yaml(s, y, NOW);
}

struct versions {
    struct ts_status_version a, b, la, lb;
};

static struct versions versions_of(struct ts_sim *s)
{
    struct ts_engine *e = ts_sim_engine(s);
    struct versions v;

    assert_int_equal(ts_engine_cq_status_version(e, "a", &v.a), 0);
    assert_int_equal(ts_engine_cq_status_version(e, "b", &v.b), 0);
    ts_engine_lq_status_version(e, "default", "la", &v.la);
    ts_engine_lq_status_version(e, "default", "lb", &v.lb);
    return v;
}

static int same(const struct ts_status_version *x, const struct ts_status_version *y)
{
    return x->epoch == y->epoch && x->seq == y->seq;
}

static int parked_same(const struct ts_status_version *x, const struct ts_status_version *y)
{
    return x->parking == y->parking;
}

/* The queues ts_engine_status_moved() names, by the names versions_of()
 * reads. */
struct named {
    int a, b, la, lb, other;
};

static void name_moved(const char *ns, const char *name, void *data)
{
    struct named *n = data;

    if (!ns && !strcmp(name, "a"))
        n->a++;
    else if (!ns && !strcmp(name, "b"))
        n->b++;
    else if (ns && !strcmp(ns, "default") && !strcmp(name, "la"))
        n->la++;
    else if (ns && !strcmp(ns, "default") && !strcmp(name, "lb"))
        n->lb++;
    else
        n->other++;
}

/* Whether version x moved to y, its parking part included. */
static int moved(const struct ts_status_version *x, const struct ts_status_version *y)
{
    return !same(x, y) || !parked_same(x, y);
}

enum step {
    ARRIVE_A,   /* a workload arrives in la */
    ADMIT,      /* a cycle admits it */
    IDLE_CYCLE, /* a cycle with nothing to do */
    TOO_BIG_A,  /* a workload too big for the cohort arrives in la */
    PARK,       /* a cycle finds it inadmissible */
    FINISH_A,   /* the admitted one finishes (the big one is requeued) */
    ARRIVE_B,   /* a workload arrives in lb */
    FINISH_B,   /* the one in b finishes: the big one is requeued */
    REPARK,     /* a cycle releases the big one and parks it again */
    NEW_FLAVOR, /* configuration: every queue may change */
};

static void test_versions_follow_changes(void **state)
{
    /* which status versions each step must change (1) and must keep (0),
     * and whether the parking versions of a and la (the pending metrics'
     * split between active and inadmissible) must change: a status counts
     * a parked workload as any pending one, so parking it again after a
     * requeue must not make the controller compute it again (-1: either) */
    static const struct {
        enum step step;
        int a, b, la, lb, park_a, park_la;
    } table[] = {
        {ARRIVE_A, 1, 0, 1, 0, 0, 0},     {ADMIT, 1, 0, 1, 0, 0, 0},
        {IDLE_CYCLE, 0, 0, 0, 0, 0, 0},   {TOO_BIG_A, 1, 0, 1, 0, 0, 0},
        {PARK, 0, 0, 0, 0, 1, 1},         {IDLE_CYCLE, 0, 0, 0, 0, 0, 0},
        {ARRIVE_B, 0, 1, 0, 1, 0, 0},     {ADMIT, 0, 1, 0, 1, 0, 0},
        {FINISH_B, 0, 1, 0, 1, 0, 0},     {REPARK, 0, 0, 0, 0, 1, 1},
        {IDLE_CYCLE, 0, 0, 0, 0, 0, 0},   {FINISH_A, 1, 0, 1, 0, 0, 0},
        {NEW_FLAVOR, 1, 1, 1, 1, -1, -1},
    };
    struct ts_sim *s = ts_sim_new(NULL);
    struct versions before, after;
    struct named n;

    (void)state;
    sim_add_yaml(s, queues, NOW);
    /* the first call names no queue: every queue may have moved */
    n = (struct named){0};
    assert_int_equal(ts_engine_status_moved(ts_sim_engine(s), name_moved, &n), 1);
    assert_int_equal(n.a + n.b + n.la + n.lb + n.other, 0);
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
        before = versions_of(s);
        switch (table[i].step) {
        case ARRIVE_A:
            add_workload(s, "w1", "la", "2");
            break;
        case TOO_BIG_A:
            add_workload(s, "big", "la", "9");
            break;
        case ARRIVE_B:
            add_workload(s, "w2", "lb", "1");
            break;
        case ADMIT:
        case PARK:
        case REPARK:
        case IDLE_CYCLE:
            ts_sim_run(s, 1, NOW);
            if (table[i].step == ADMIT)
                assert_true(ts_workload_has_quota_reservation(ts_sim_find(s, "default", "w1")));
            break;
        case FINISH_B:
            assert_int_equal(ts_sim_finish(s, "default", "w2", NOW), 0);
            break;
        case FINISH_A:
            assert_int_equal(ts_sim_finish(s, "default", "w1", NOW), 0);
            break;
        case NEW_FLAVOR:
            sim_add_yaml(s,
                         "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\n"
                         "metadata: {name: other}\n",
                         NOW);
            break;
        }
        after = versions_of(s);
        if (same(&before.a, &after.a) == table[i].a || same(&before.b, &after.b) == table[i].b ||
            same(&before.la, &after.la) == table[i].la ||
            same(&before.lb, &after.lb) == table[i].lb)
            fail_msg("step %zu: versions changed a %d b %d la %d lb %d, expected %d %d %d %d", i,
                     !same(&before.a, &after.a), !same(&before.b, &after.b),
                     !same(&before.la, &after.la), !same(&before.lb, &after.lb), table[i].a,
                     table[i].b, table[i].la, table[i].lb);
        if (table[i].park_a >= 0 && (parked_same(&before.a, &after.a) == table[i].park_a ||
                                     parked_same(&before.la, &after.la) == table[i].park_la))
            fail_msg("step %zu: parking versions changed a %d la %d, expected %d %d", i,
                     !parked_same(&before.a, &after.a), !parked_same(&before.la, &after.la),
                     table[i].park_a, table[i].park_la);
        /* the engine names the queues whose versions moved, each once,
         * and no other; after a configuration change, every queue */
        n = (struct named){0};
        if (ts_engine_status_moved(ts_sim_engine(s), name_moved, &n) == 1) {
            assert_int_equal(table[i].step, NEW_FLAVOR);
            assert_int_equal(n.a + n.b + n.la + n.lb + n.other, 0);
        } else if (n.a != moved(&before.a, &after.a) || n.b != moved(&before.b, &after.b) ||
                   n.la != moved(&before.la, &after.la) || n.lb != moved(&before.lb, &after.lb) ||
                   n.other) {
            fail_msg("step %zu: named a %d b %d la %d lb %d other %d", i, n.a, n.b, n.la, n.lb,
                     n.other);
        }
    }
    /* the steps did what they say */
    assert_true(ts_workload_is_finished(ts_sim_find(s, "default", "w1")));
    assert_true(ts_workload_is_finished(ts_sim_find(s, "default", "w2")));
    assert_false(ts_workload_has_quota_reservation(ts_sim_find(s, "default", "big")));
    ts_sim_free(s);
}

/* A finished workload, admitted or not, is forgotten as a deleted one
 * is: its quota goes back, no status counts it, and the engine keeps no
 * memory for it (kept, a long run's finished workloads would grow the
 * controller's memory without end).  A running one and a pending one
 * stay. */
static void test_finished_workloads_forgotten(void **state)
{
    struct ts_sim *s = ts_sim_new(NULL);
    struct ts_engine *e = ts_sim_engine(s);
    struct ts_engine_cq_stats st;
    char msg[256];

    (void)state;
    sim_add_yaml(s, queues, NOW);
    add_workload(s, "run", "la", "2");
    add_workload(s, "done", "la", "2");
    add_workload(s, "wait", "la", "8"); /* over what a has with both running */
    ts_sim_run(s, 4, NOW);
    assert_true(ts_workload_has_quota_reservation(ts_sim_find(s, "default", "done")));
    assert_int_equal(ts_engine_workload_count(e), 3);
    assert_int_equal(ts_sim_finish(s, "default", "done", NOW), 0);
    assert_int_equal(ts_engine_workload_count(e), 2);
    assert_int_equal(ts_engine_cq_stats(e, "a", &st), 0);
    assert_int_equal(st.admitted, 1);
    /* finished while it waits: gone too, and the others unchanged */
    assert_int_equal(ts_sim_finish(s, "default", "wait", NOW), 0);
    assert_int_equal(ts_engine_workload_count(e), 1);
    assert_int_equal(ts_engine_cq_stats(e, "a", &st), 0);
    assert_int_equal(st.pending, 0);
    assert_int_equal(st.admitted, 1);
    /* seen again (a later update of a finished one): still forgotten */
    assert_int_equal(ts_sim_finish(s, "default", "done", NOW), 0);
    assert_int_equal(ts_engine_workload_count(e), 1);
    if (ts_engine_check(e, msg, sizeof(msg)))
        fail_msg("%s", msg);
    ts_sim_free(s);
}

/* The cycle's own admission (assumed, its write not yet seen) shows at
 * once: the controller writes queue status while admissions are on their
 * way. */
static void test_assumed_admission_changes_versions(void **state)
{
    struct ts_sim *s = ts_sim_new(NULL);
    struct versions before, after;
    struct ts_cycle c;

    (void)state;
    sim_add_yaml(s, queues, NOW);
    add_workload(s, "w1", "la", "2");
    before = versions_of(s);
    ts_cycle_init(&c);
    ts_engine_cycle(ts_sim_engine(s), NOW, &c); /* not applied: no write lands */
    assert_int_equal(c.n, 1);
    assert_int_equal(c.items[0].kind, TS_DECISION_ADMIT);
    ts_cycle_release(&c);
    after = versions_of(s);
    assert_false(same(&before.a, &after.a));
    assert_false(same(&before.la, &after.la));
    assert_true(same(&before.b, &after.b));
    ts_sim_free(s);
}

/* A LocalQueue emptied and filled again never shows a version it showed
 * before (its set of workloads is recreated). */
static void test_refilled_local_queue_has_a_new_version(void **state)
{
    struct ts_sim *s = ts_sim_new(NULL);
    struct ts_status_version v1, v2, v3;
    struct named n = {0};

    (void)state;
    sim_add_yaml(s, queues, NOW);
    add_workload(s, "w1", "la", "1");
    ts_engine_lq_status_version(ts_sim_engine(s), "default", "la", &v1);
    ts_engine_status_moved(ts_sim_engine(s), name_moved, &n);
    assert_int_equal(ts_sim_delete(s, "default", "w1"), 0);
    ts_engine_lq_status_version(ts_sim_engine(s), "default", "la", &v2);
    /* emptied, its set is gone, and it is named as moved all the same */
    n = (struct named){0};
    assert_int_equal(ts_engine_status_moved(ts_sim_engine(s), name_moved, &n), 0);
    assert_int_equal(n.la, 1);
    assert_int_equal(n.a, 1);
    assert_int_equal(n.b + n.lb + n.other, 0);
    add_workload(s, "w1", "la", "3");
    ts_engine_lq_status_version(ts_sim_engine(s), "default", "la", &v3);
    assert_false(same(&v1, &v2));
    assert_false(same(&v2, &v3));
    assert_false(same(&v1, &v3));
    ts_sim_free(s);
}

/* With fair sharing a queue's share moves with its whole cohort: no
 * version, computed every time. */
static void test_fair_sharing_has_no_version(void **state)
{
    struct ts_engine_config ec;
    struct ts_sim *s;
    struct ts_status_version v;

    (void)state;
    ts_engine_config_init(&ec);
    ec.fair_sharing = 1;
    s = ts_sim_new(&ec);
    sim_add_yaml(s, queues, NOW);
    assert_int_equal(ts_engine_cq_status_version(ts_sim_engine(s), "a", &v), 1);
    assert_int_equal(ts_engine_cq_status_version(ts_sim_engine(s), "nope", &v), TS_ENOTFOUND);
    /* nor a list of moved queues: every call names them all */
    for (int i = 0; i < 2; i++)
        assert_int_equal(ts_engine_status_moved(ts_sim_engine(s), name_moved, NULL), 1);
    ts_sim_free(s);
}

static size_t admissions(struct ts_sim *s)
{
    struct ts_cycle c;
    size_t n = 0;

    ts_cycle_init(&c);
    ts_engine_cycle(ts_sim_engine(s), NOW, &c); /* not applied: no write lands */
    for (size_t i = 0; i < c.n; i++)
        n += c.items[i].kind == TS_DECISION_ADMIT;
    ts_cycle_release(&c);
    return n;
}

/* An admission whose write was lost is given back and decided again at
 * the next cycle; one the API server refused for good gives its quota
 * back and waits until the Workload changes: cycles do not admit and
 * refuse it in a loop. */
static void test_refused_admission_waits_for_a_change(void **state)
{
    struct ts_sim *s = ts_sim_new(NULL);
    struct ts_engine *e = ts_sim_engine(s);
    struct ts_engine_cq_stats st;
    int64_t used;

    (void)state;
    sim_add_yaml(s, queues, NOW);
    add_workload(s, "w1", "la", "2");
    assert_int_equal(admissions(s), 1);
    ts_engine_admit_forget(e, "default", "w1");
    assert_int_equal(admissions(s), 1);
    ts_engine_admit_refused(e, "default", "w1");
    assert_int_equal(ts_engine_usage(e, "a", 0, "default", "cpu", &used), 0);
    assert_int_equal(used, 0);
    assert_int_equal(ts_engine_cq_stats(e, "a", &st), 0);
    assert_int_equal(st.reserving, 0);
    assert_int_equal(admissions(s), 0);
    assert_int_equal(admissions(s), 0);
    assert_int_equal(ts_engine_check(e, NULL, 0), 0);
    /* the Workload changes (here: its request): it is decided again */
    add_workload(s, "w1", "la", "3");
    assert_int_equal(admissions(s), 1);
    assert_int_equal(ts_engine_usage(e, "a", 0, "default", "cpu", &used), 0);
    assert_int_equal(used, 3000);
    ts_sim_free(s);
}

/* Deleting a ClusterQueue, the last member of its cohort: the implicit
 * cohort goes with it, and the requeue of its tree must not touch it
 * afterwards (a use after free under ASan); the other queue of the old
 * cohort keeps admitting. */
static void test_delete_last_queue_of_a_cohort(void **state)
{
    struct ts_sim *s = ts_sim_new(NULL);

    (void)state;
    sim_add_yaml(s, queues, NOW);
    sim_add_yaml(s,
                 "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: lone}\n"
                 "spec:\n  namespaceSelector: {}\n  cohortName: only-me\n  resourceGroups:\n"
                 "  - coveredResources: [cpu]\n    flavors:\n    - name: default\n"
                 "      resources: [{name: cpu, nominalQuota: 1}]\n",
                 NOW);
    ts_engine_delete_cluster_queue(ts_sim_engine(s), "lone");
    ts_engine_delete_cluster_queue(ts_sim_engine(s), "a"); /* co keeps b */
    add_workload(s, "w", "lb", "6");                       /* 4 of b + borrowing none left */
    assert_int_equal(admissions(s), 0);
    add_workload(s, "v", "lb", "3");
    assert_int_equal(admissions(s), 1);
    ts_engine_delete_cluster_queue(ts_sim_engine(s), "b"); /* the implicit co goes too */
    assert_int_equal(admissions(s), 0);
    ts_sim_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_versions_follow_changes),
        cmocka_unit_test(test_assumed_admission_changes_versions),
        cmocka_unit_test(test_refilled_local_queue_has_a_new_version),
        cmocka_unit_test(test_fair_sharing_has_no_version),
        cmocka_unit_test(test_finished_workloads_forgotten),
        cmocka_unit_test(test_refused_admission_waits_for_a_change),
        cmocka_unit_test(test_delete_last_queue_of_a_cohort),
    };

    ts_alloc_init();
    return cmocka_run_group_tests_name("engine_status", tests, NULL, NULL);
}
