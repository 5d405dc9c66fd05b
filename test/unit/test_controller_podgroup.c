/* Tests for the pod-group planner (controller/podgroup.c, Kueue's pod
 * integration for groups): the Workload waits for the whole group, is
 * made of one pod set per role, the excess member is deleted, members
 * start together, stop by deletion, the quota goes once none runs, the
 * group finishes from its members, a replacement member joins, and a
 * serving group never finishes.  Table-driven: each row is the members'
 * states and the Workload's, and the writes the plan must make. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/jobworkload.h"
#include "api/pod.h"
#include "controller/podgroup.h"
#include "json/json.h"
#include "util/alloc.h"

#include "jobkind_test.h"

#define NOW (INT64_C(1795255200) * TS_TIME_SECOND)

static const struct ts_jobplan_env env = {
    .flavor = jk_lookup, .backoff_base_s = 60, .backoff_max_s = 3600};

/* A member's state: G gated, R running, S succeeded, F failed, D deleting
 * (running), N new (gated, created last), Q gated in another queue, B a
 * bigger role (2 cpu, gated). */
static cJSON *member(char state, int i, const char *extra_annotation)
{
    char buf[1400];
    cJSON *pod;
    const char *cpu = state == 'B' ? "2" : "1";

    snprintf(buf, sizeof(buf),
             "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p%d\","
             "\"namespace\":\"ns\",\"uid\":\"u%d\",\"creationTimestamp\":"
             "\"2026-11-28T08:00:%02dZ\",\"labels\":{\"kueue.x-k8s.io/queue-name\":\"%s\","
             "\"kueue.x-k8s.io/managed\":\"true\",\"kueue.x-k8s.io/pod-group-name\":\"g\"},"
             "\"annotations\":{\"kueue.x-k8s.io/pod-group-total-count\":\"3\"%s},"
             "\"finalizers\":[\"kueue.x-k8s.io/managed\"]},\"spec\":{\"containers\":[{\"name\":"
             "\"c\",\"image\":\"x\",\"resources\":{\"requests\":{\"cpu\":\"%s\"}}}]},"
             "\"status\":{\"phase\":\"Pending\"}}",
             i, i, state == 'N' ? 30 + i : i, state == 'Q' ? "other" : "lq",
             extra_annotation ? extra_annotation : "", cpu);
    pod = cJSON_Parse(buf);
    assert_non_null(pod);
    if (strchr("GNQB", state))
        ts_pod_json_add_gate(pod, TS_POD_GATE);
    else
        ts_json_set_string(pod, "spec.nodeName", "n1", NULL);
    if (state == 'R' || state == 'D')
        ts_json_set_string(pod, "status.phase", "Running", NULL);
    if (state == 'S')
        ts_json_set_string(pod, "status.phase", "Succeeded", NULL);
    if (state == 'F')
        ts_json_set_string(pod, "status.phase", "Failed", NULL);
    if (state == 'D')
        ts_json_set_string(pod, "metadata.deletionTimestamp", "2026-11-28T09:00:00Z", NULL);
    return pod;
}

enum wl_state { NONE, PENDING, ADMITTED, EVICTED, FINISHED };

/* The group's Workload as podgroup.c would make it of members p1..p3
 * (gated), then brought to state s. */
static void workload(enum wl_state s, struct ts_workload *wl)
{
    struct ts_pod pods[3];
    struct ts_err err = {0};

    for (int i = 0; i < 3; i++) {
        cJSON *m = member('G', i + 1, NULL);
        struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
        struct ts_dec d;

        ts_dec_init(&d, &errs);
        ts_pod_init(&pods[i]);
        ts_pod_decode(&d, m, &pods[i]);
        cJSON_Delete(m);
    }
    ts_workload_init(wl);
    assert_int_equal(ts_jobworkload_from_pod_group(pods, 3, "g", NULL, wl, &err), 0);
    for (int i = 0; i < 3; i++)
        ts_pod_release(&pods[i]);
    if (s == PENDING)
        return;
    jk_admit(wl);
    ts_conditions_set(&wl->status.conditions, TS_WL_COND_QUOTA_RESERVED, "True", "QuotaReserved",
                      "", 1, NOW);
    ts_conditions_set(&wl->status.conditions, TS_WL_COND_ADMITTED, "True", "Admitted", "", 1, NOW);
    if (s == EVICTED)
        ts_conditions_set(&wl->status.conditions, TS_WL_COND_EVICTED, "True", "Preempted",
                          "Preempted to accommodate a workload", 1, NOW);
    if (s == FINISHED)
        ts_conditions_set(&wl->status.conditions, TS_WL_COND_FINISHED, "True", "Succeeded", "", 1,
                          NOW);
}

static const struct {
    const char *name;
    const char *members; /* one state letter per member p1, p2, ... */
    const char *annotation;
    enum wl_state wl;
    unsigned ops;
    size_t updates, deletes;
    const char *event;   /* NULL: none */
    const char *message; /* a substring of the event's or the Finished message */
} rows[] = {
    {"two of three: wait", "GG", NULL, NONE, 0, 0, 0, "ErrWorkloadCompose",
     "'g' group has fewer runnable pods than expected"},
    {"a failed member does not count", "GGF", NULL, NONE, 0, 1, 0, "ErrWorkloadCompose",
     "fewer runnable pods"},
    {"the whole group: its Workload", "GGG", NULL, NONE, TS_JOBPLAN_CREATE_WORKLOAD, 0, 0,
     "CreatedWorkload", "Created Workload: ns/g"},
    {"one more than the total: the newest goes", "GGGN", NULL, NONE, TS_JOBPLAN_CREATE_WORKLOAD, 1,
     1, "CreatedWorkload", NULL},
    {"queue names differ", "GGQ", NULL, NONE, 0, 0, 0, "ErrWorkloadCompose",
     "has different queue names"},
    {"pending: nothing", "GGG", NULL, PENDING, 0, 0, 0, NULL, NULL},
    {"admitted: every member starts", "GGG", NULL, ADMITTED, 0, 3, 0, "Started", "cq"},
    {"admitted and running: nothing", "RRR", NULL, ADMITTED, 0, 0, 0, NULL, NULL},
    {"evicted and running: every member deleted", "RRR", NULL, EVICTED, 0, 0, 3, "Stopped",
     "Preempted"},
    {"evicted, members terminating: finalizers go, so does the quota", "DDD", NULL, EVICTED,
     TS_JOBPLAN_WORKLOAD_STATUS, 3, 0, NULL, NULL},
    {"running without admission: deleted", "RRR", NULL, PENDING, 0, 0, 3, "Stopped",
     "Not admitted"},
    {"all succeeded: finished", "SSS", NULL, ADMITTED, TS_JOBPLAN_WORKLOAD_STATUS, 3, 0,
     "FinishedWorkload", "Pods succeeded: 3/3."},
    {"unretriable, all terminated: finished", "SFS",
     ",\"kueue.x-k8s.io/retriable-in-group\":"
     "\"false\"",
     ADMITTED, TS_JOBPLAN_WORKLOAD_STATUS, 3, 0, "FinishedWorkload", "Pods succeeded: 2/3."},
    {"retriable with a failure: not finished, the failed member finalized", "SFS", NULL, ADMITTED,
     0, 1, 0, NULL, NULL},
    {"serving: never finished", "SSS", ",\"kueue.x-k8s.io/pod-group-serving\":\"true\"", ADMITTED,
     0, 0, 0, NULL, NULL},
    {"finished Workload: finalizers go", "SSS", NULL, FINISHED, 0, 3, 0, NULL, NULL},
    {"a replacement joins as owner first", "RFRN", NULL, ADMITTED, TS_JOBPLAN_UPDATE_WORKLOAD, 1, 0,
     NULL, NULL},
};

static void test_podgroup_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        size_t n = strlen(rows[i].members);
        cJSON **pods = ts_xcalloc(n, sizeof(*pods));
        struct ts_podgroup_plan p;
        struct ts_workload wl;
        const char *msg;

        print_message("row: %s\n", rows[i].name);
        for (size_t j = 0; j < n; j++)
            pods[j] = member(rows[i].members[j], (int)j + 1, rows[i].annotation);
        if (rows[i].wl != NONE)
            workload(rows[i].wl, &wl);
        ts_podgroup_plan_init(&p);
        assert_int_equal(
            ts_podgroup_plan_make("g", pods, n, rows[i].wl != NONE ? &wl : NULL, &env, NOW, &p), 0);
        assert_int_equal(p.base.ops, rows[i].ops);
        assert_int_equal(p.n_updates, rows[i].updates);
        assert_int_equal(p.n_deletes, rows[i].deletes);
        if (rows[i].event)
            assert_string_equal(p.base.event_reason, rows[i].event);
        else
            assert_null(p.base.event_reason);
        msg = p.base.ops & TS_JOBPLAN_WORKLOAD_STATUS &&
                      ts_conditions_find(&p.base.workload.status.conditions, "Finished")
                  ? ts_conditions_find(&p.base.workload.status.conditions, "Finished")->message
                  : p.base.event_message;
        if (rows[i].message && !strstr(msg, rows[i].message))
            fail_msg("%s: message '%s' lacks '%s'", rows[i].name, msg, rows[i].message);
        ts_podgroup_plan_release(&p);
        if (rows[i].wl != NONE)
            ts_workload_release(&wl);
        for (size_t j = 0; j < n; j++)
            cJSON_Delete(pods[j]);
        free(pods);
    }
}

/* The details of the Workload and of a start. */
static void test_podgroup_workload_and_start(void **state)
{
    cJSON *pods[4] = {member('G', 1, NULL), member('B', 2, NULL), member('G', 3, NULL),
                      member('N', 4, NULL)};
    struct ts_podgroup_plan p;
    struct ts_workload wl;

    (void)state;
    ts_podgroup_plan_init(&p);
    /* two roles: pod sets by role hash, sorted, counted */
    assert_int_equal(ts_podgroup_plan_make("g", pods, 3, NULL, &env, NOW, &p), 0);
    assert_string_equal(p.base.workload.meta.name, "g");
    assert_int_equal(p.base.workload.meta.n_owner_refs, 3);
    assert_false(p.base.workload.meta.owner_refs[0].controller.set);
    assert_string_equal(
        ts_strmap_get(&p.base.workload.meta.annotations, "kueue.x-k8s.io/is-group-workload"),
        "true");
    assert_int_equal(p.base.workload.spec.n_podsets, 2);
    assert_true(strcmp(p.base.workload.spec.podsets[0].name, p.base.workload.spec.podsets[1].name) <
                0);
    assert_int_equal(p.base.workload.spec.podsets[0].count + p.base.workload.spec.podsets[1].count,
                     3);
    assert_int_equal(strlen(p.base.workload.spec.podsets[0].name), 8);
    /* the excess member is the newest one: p4 */
    assert_int_equal(ts_podgroup_plan_make("g", pods, 4, NULL, &env, NOW, &p), 0);
    assert_int_equal(p.n_deletes, 1);
    assert_string_equal(p.deletes[0], "p4");
    assert_null(ts_json_get(p.updates[0], "metadata.finalizers"));
    /* a start injects the role's flavor and drops the gate */
    workload(ADMITTED, &wl);
    cJSON_Delete(pods[1]);
    pods[1] = member('G', 2, NULL);
    assert_int_equal(ts_podgroup_plan_make("g", pods, 3, &wl, &env, NOW, &p), 0);
    assert_int_equal(p.n_updates, 3);
    for (size_t i = 0; i < 3; i++) {
        assert_false(ts_pod_json_has_gate(p.updates[i], TS_POD_GATE));
        assert_string_equal(ts_json_get_string(p.updates[i], "spec.nodeSelector[pool]"), "gpu");
        assert_non_null(ts_json_get(p.updates[i], "metadata.finalizers"));
    }
    ts_workload_release(&wl);
    ts_podgroup_plan_release(&p);
    for (size_t i = 0; i < 4; i++)
        cJSON_Delete(pods[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_podgroup_table),
        cmocka_unit_test(test_podgroup_workload_and_start),
    };

    return cmocka_run_group_tests(tests, jk_setup, jk_teardown);
}
