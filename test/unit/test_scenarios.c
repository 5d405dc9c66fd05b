/* Engine scenarios: every test/scenarios/NAME.yaml is one test.  A scenario
 * file holds Kueue objects plus one `kind: Scenario` document whose steps
 * run the simulator (the engine, decisions applied) and check the
 * resulting Workload statuses:
 *
 *   apiVersion: turnstile.dev/v1alpha1
 *   kind: Scenario
 *   metadata: {name: ...}
 *   addErrors: ["substring of an expected add error", ...]
 *   configuration: {apiVersion: config.kueue.x-k8s.io/v1beta2, kind: Configuration, ...}
 *   steps:
 *   - run: {cycles: N}            # N = 0 or absent: until nothing changes
 *     expect:
 *     - workload: ns/name
 *       admitted: true | false
 *       clusterQueue: cq
 *       flavors: {podset: {resource: flavor}}
 *       count: {podset: N}
 *       usage: {podset: {resource: quantity}}
 *       reason: WaitingForQuota           # QuotaReserved=False reason
 *       message: "exact message"
 *       messageContains: "substring"
 *       conditions: {Evicted: {status: "True", reason: Preempted,
 *                    messageContains: "..."}}   # any condition type
 *       checks: {name: Pending}         # status.admissionChecks, exactly
 *     - localQueue: ns/name               # the LocalQueue status
 *       pending: N
 *       reserving: N
 *       admitted: N
 *       active: Ready                     # Active condition reason
 *       usage: {flavor: {resource: quantity}}
 *     - clusterQueue: name                # the ClusterQueue status
 *       reserving: N
 *       admitted: N
 *       active: Ready                     # Active condition reason
 *       activeMessage: "exact message"
 *   - finish: [ns/name, ...]
 *   - delete: [ns/name, ...]
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/config.h"
#include "engine/status.h"
#include "sim/sim.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "yaml/yaml.h"

#define NOW           (INT64_C(1795255200) * TS_TIME_SECOND)
#define SETTLE_CYCLES 5000

struct scenario {
    char *path;
    char name[256];
};

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void split_key(const char *key, char *ns, size_t nlen, const char **name)
{
    const char *slash = strchr(key, '/');

    if (!slash) {
        snprintf(ns, nlen, "default");
        *name = key;
        return;
    }
    snprintf(ns, nlen, "%.*s", (int)(slash - key), key);
    *name = slash + 1;
}

static const struct ts_podset_assignment *psa_of(const struct ts_workload *wl, const char *ps)
{
    for (size_t i = 0; wl->status.admission && i < wl->status.admission->n_podset_assignments;
         i++) {
        const struct ts_podset_assignment *a = &wl->status.admission->podset_assignments[i];

        if (a->name && strcmp(a->name, ps) == 0)
            return a;
    }
    return NULL;
}

/* Appends a problem to out. */
static void problem(struct ts_buf *out, const char *wl, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void problem(struct ts_buf *out, const char *wl, const char *fmt, ...)
{
    va_list ap;

    ts_buf_addf(out, "\n  %s: ", wl);
    va_start(ap, fmt);
    ts_buf_vaddf(out, fmt, ap);
    va_end(ap);
}

static void check_podset_maps(const struct ts_workload *wl, const cJSON *exp, const char *key,
                              struct ts_buf *out)
{
    const cJSON *flavors = cJSON_GetObjectItemCaseSensitive(exp, "flavors");
    const cJSON *ps, *r;

    cJSON_ArrayForEach(ps, flavors)
    {
        const struct ts_podset_assignment *a = psa_of(wl, ps->string);

        cJSON_ArrayForEach(r, ps)
        {
            const char *got = a ? ts_strmap_get(&a->flavors, r->string) : NULL;

            if (!got || !cJSON_IsString(r) || strcmp(got, r->valuestring))
                problem(out, key, "pod set %s resource %s: flavor %s, want %s", ps->string,
                        r->string, got ? got : "(none)", cJSON_IsString(r) ? r->valuestring : "?");
        }
    }
}

static void check_counts_usage(const struct ts_workload *wl, const cJSON *exp, const char *key,
                               struct ts_buf *out)
{
    const cJSON *ps, *r;

    cJSON_ArrayForEach(ps, cJSON_GetObjectItemCaseSensitive(exp, "count"))
    {
        const struct ts_podset_assignment *a = psa_of(wl, ps->string);

        if (!a || !a->count.set || a->count.v != (int32_t)ps->valuedouble)
            problem(out, key, "pod set %s: count %d, want %d", ps->string,
                    a && a->count.set ? a->count.v : -1, (int)ps->valuedouble);
    }
    cJSON_ArrayForEach(ps, cJSON_GetObjectItemCaseSensitive(exp, "usage"))
    {
        const struct ts_podset_assignment *a = psa_of(wl, ps->string);

        cJSON_ArrayForEach(r, ps)
        {
            const struct ts_quantity *q =
                a ? ts_resource_list_get(&a->resource_usage, r->string) : NULL;
            char got[TS_QUANTITY_STR_MAX] = "(none)";

            if (q)
                ts_quantity_format(q, got, sizeof(got));
            if (!cJSON_IsString(r) || strcmp(got, r->valuestring))
                problem(out, key, "pod set %s usage of %s: %s, want %s", ps->string, r->string, got,
                        cJSON_IsString(r) ? r->valuestring : "?");
        }
    }
}

static void check_conditions(const struct ts_workload *wl, const cJSON *exp, const char *key,
                             struct ts_buf *out)
{
    const cJSON *c;

    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(exp, "conditions"))
    {
        const struct ts_condition *got = ts_conditions_find(&wl->status.conditions, c->string);
        const char *want;

        if (!got) {
            problem(out, key, "no %s condition", c->string);
            continue;
        }
        if ((want = str(c, "status")) && (!got->status || strcmp(got->status, want)))
            problem(out, key, "%s status %s, want %s", c->string, got->status, want);
        if ((want = str(c, "reason")) && (!got->reason || strcmp(got->reason, want)))
            problem(out, key, "%s reason %s, want %s", c->string, got->reason, want);
        if ((want = str(c, "messageContains")) && (!got->message || !strstr(got->message, want)))
            problem(out, key, "%s message \"%s\" lacks \"%s\"", c->string,
                    got->message ? got->message : "", want);
    }
}

/* {localQueue: ns/name, pending: N, reserving: N, admitted: N,
 *  active: Reason, usage: {flavor: {resource: "q"}}} against the status
 * the controller would write. */
static void check_local_queue(struct ts_sim *sim, const cJSON *exp, struct ts_buf *out)
{
    static const char *const counts[] = {"pending", "reserving", "admitted"};
    const char *key = str(exp, "localQueue"), *name, *want;
    struct ts_local_queue_status st;
    const struct ts_condition *active;
    const cJSON *fl, *r;
    char ns[256];

    memset(&st, 0, sizeof(st));
    split_key(key, ns, sizeof(ns), &name);
    if (ts_engine_lq_status(ts_sim_engine(sim), ns, name, 0, &st)) {
        problem(out, key, "no such local queue");
        return;
    }
    for (size_t i = 0; i < 3; i++) {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(exp, counts[i]);
        int32_t got = i == 0   ? st.pending_workloads
                      : i == 1 ? st.reserving_workloads
                               : st.admitted_workloads;

        if (n && n->valueint != got)
            problem(out, key, "%s %d, want %d", counts[i], (int)got, n->valueint);
    }
    active = ts_conditions_find(&st.conditions, "Active");
    if ((want = str(exp, "active")) && (!active || strcmp(active->reason, want)))
        problem(out, key, "Active reason %s, want %s", active ? active->reason : "(none)", want);
    cJSON_ArrayForEach(fl, cJSON_GetObjectItemCaseSensitive(exp, "usage"))
    {
        cJSON_ArrayForEach(r, fl)
        {
            const struct ts_resource_usage *u = NULL;
            char got[64] = "(none)";

            for (size_t f = 0; f < st.flavors_usage.n; f++) {
                const struct ts_flavor_usage *fu = &st.flavors_usage.items[f];

                for (size_t k = 0; strcmp(fu->name, fl->string) == 0 && k < fu->n_resources; k++) {
                    if (strcmp(fu->resources[k].name, r->string) == 0)
                        u = &fu->resources[k];
                }
            }
            if (u)
                ts_quantity_format(&u->total, got, sizeof(got));
            if (strcmp(got, r->valuestring))
                problem(out, key, "usage %s/%s %s, want %s", fl->string, r->string, got,
                        r->valuestring);
        }
    }
    ts_conditions_release(&st.conditions);
    ts_flavor_usages_release(&st.flavors_reservation);
    ts_flavor_usages_release(&st.flavors_usage);
}

/* {clusterQueue: name, reserving: N, admitted: N, active: Reason,
 *  activeMessage: "..."} against the status the controller would write. */
static void check_cluster_queue(struct ts_sim *sim, const cJSON *exp, struct ts_buf *out)
{
    const char *key = str(exp, "clusterQueue"), *want;
    struct ts_cluster_queue_status st;
    const struct ts_condition *active;
    const cJSON *n;

    memset(&st, 0, sizeof(st));
    if (ts_engine_cq_status(ts_sim_engine(sim), key, NOW, &st)) {
        problem(out, key, "no such cluster queue");
        return;
    }
    if ((n = cJSON_GetObjectItemCaseSensitive(exp, "reserving")) &&
        n->valueint != st.reserving_workloads)
        problem(out, key, "reserving %d, want %d", (int)st.reserving_workloads, n->valueint);
    if ((n = cJSON_GetObjectItemCaseSensitive(exp, "admitted")) &&
        n->valueint != st.admitted_workloads)
        problem(out, key, "admitted %d, want %d", (int)st.admitted_workloads, n->valueint);
    active = ts_conditions_find(&st.conditions, "Active");
    if ((want = str(exp, "active")) && (!active || strcmp(active->reason, want)))
        problem(out, key, "Active reason %s, want %s", active ? active->reason : "(none)", want);
    if ((want = str(exp, "activeMessage")) && (!active || strcmp(active->message, want)))
        problem(out, key, "Active message \"%s\"\n      want \"%s\"",
                active ? active->message : "(none)", want);
    ts_conditions_release(&st.conditions);
    ts_flavor_usages_release(&st.flavors_reservation);
    ts_flavor_usages_release(&st.flavors_usage);
}

/* checks: {name: State}: status.admissionChecks holds exactly these. */
static void check_checks(const struct ts_workload *wl, const cJSON *exp, const char *key,
                         struct ts_buf *out)
{
    const cJSON *want = cJSON_GetObjectItemCaseSensitive(exp, "checks"), *c;

    if (!want)
        return;
    if ((size_t)cJSON_GetArraySize(want) != wl->status.n_admission_checks)
        problem(out, key, "%zu admission checks, want %d", wl->status.n_admission_checks,
                cJSON_GetArraySize(want));
    cJSON_ArrayForEach(c, want)
    {
        const struct ts_admission_check_state *got = NULL;

        for (size_t i = 0; i < wl->status.n_admission_checks; i++) {
            if (!strcmp(wl->status.admission_checks[i].name, c->string))
                got = &wl->status.admission_checks[i];
        }
        if (!got)
            problem(out, key, "no admission check %s", c->string);
        else if (!cJSON_IsString(c) || strcmp(got->state, c->valuestring))
            problem(out, key, "admission check %s is %s, want %s", c->string, got->state,
                    cJSON_IsString(c) ? c->valuestring : "?");
    }
}

static void check_one(struct ts_sim *sim, const cJSON *exp, struct ts_buf *out)
{
    const char *key = str(exp, "workload"), *name, *want;
    const cJSON *adm = cJSON_GetObjectItemCaseSensitive(exp, "admitted");
    const struct ts_workload *wl;
    const struct ts_condition *qr;
    char ns[256];
    int admitted;

    if (!key && str(exp, "localQueue")) {
        check_local_queue(sim, exp, out);
        return;
    }
    if (!key && str(exp, "clusterQueue")) {
        check_cluster_queue(sim, exp, out);
        return;
    }
    if (!key) {
        problem(out, "?", "expectation without workload");
        return;
    }
    split_key(key, ns, sizeof(ns), &name);
    wl = ts_sim_find(sim, ns, name);
    if (!wl) {
        problem(out, key, "no such workload");
        return;
    }
    qr = ts_conditions_find(&wl->status.conditions, "QuotaReserved");
    admitted = wl->status.admission && qr && qr->status && strcmp(qr->status, "True") == 0;
    if (adm && cJSON_IsTrue(adm) != admitted)
        problem(out, key, "admitted %d, want %d (QuotaReserved %s: %s)", admitted,
                cJSON_IsTrue(adm), qr && qr->reason ? qr->reason : "-",
                qr && qr->message ? qr->message : "-");
    if ((want = str(exp, "clusterQueue")) &&
        (!wl->status.admission || strcmp(wl->status.admission->cluster_queue, want)))
        problem(out, key, "admitted to %s, want %s",
                wl->status.admission ? wl->status.admission->cluster_queue : "(none)", want);
    if ((want = str(exp, "reason")) && (!qr || !qr->reason || strcmp(qr->reason, want)))
        problem(out, key, "reason %s, want %s", qr && qr->reason ? qr->reason : "(none)", want);
    if ((want = str(exp, "message")) && (!qr || !qr->message || strcmp(qr->message, want)))
        problem(out, key, "message \"%s\"\n      want \"%s\"",
                qr && qr->message ? qr->message : "(none)", want);
    if ((want = str(exp, "messageContains")) && (!qr || !qr->message || !strstr(qr->message, want)))
        problem(out, key, "message \"%s\" lacks \"%s\"", qr && qr->message ? qr->message : "(none)",
                want);
    check_podset_maps(wl, exp, key, out);
    check_counts_usage(wl, exp, key, out);
    check_conditions(wl, exp, key, out);
    check_checks(wl, exp, key, out);
}

static void names_step(struct ts_sim *sim, const cJSON *list, int finish, struct ts_buf *out)
{
    const cJSON *k;

    cJSON_ArrayForEach(k, list)
    {
        char ns[256];
        const char *name;
        int rc;

        if (!cJSON_IsString(k))
            continue;
        split_key(k->valuestring, ns, sizeof(ns), &name);
        rc = finish ? ts_sim_finish(sim, ns, name, NOW) : ts_sim_delete(sim, ns, name);
        if (rc)
            problem(out, k->valuestring, "cannot %s: not found", finish ? "finish" : "delete");
    }
}

static void run_steps(struct ts_sim *sim, const cJSON *scenario, struct ts_buf *out)
{
    const cJSON *step, *exp;
    size_t i = 0;
    char msg[512];

    cJSON_ArrayForEach(step, cJSON_GetObjectItemCaseSensitive(scenario, "steps"))
    {
        const cJSON *run = cJSON_GetObjectItemCaseSensitive(step, "run");
        size_t before = out->len;

        if (run) {
            const cJSON *cy = cJSON_GetObjectItemCaseSensitive(run, "cycles");
            size_t want = cJSON_IsNumber(cy) ? (size_t)cy->valuedouble : 0;

            /* "until nothing changes" must come: a livelock is a failure */
            if (!want && ts_sim_run(sim, SETTLE_CYCLES, NOW) == SETTLE_CYCLES)
                ts_buf_addf(out, "\n  still changing after %d cycles (a livelock?)", SETTLE_CYCLES);
            else if (want)
                ts_sim_run(sim, want, NOW);
        }
        names_step(sim, cJSON_GetObjectItemCaseSensitive(step, "finish"), 1, out);
        names_step(sim, cJSON_GetObjectItemCaseSensitive(step, "delete"), 0, out);
        cJSON_ArrayForEach(exp, cJSON_GetObjectItemCaseSensitive(step, "expect"))
            check_one(sim, exp, out);
        if (ts_engine_check(ts_sim_engine(sim), msg, sizeof(msg)))
            ts_buf_addf(out, "\n  engine self-check: %s", msg);
        if (out->len > before)
            ts_buf_addf(out, "\n  (in step %zu)", i);
        i++;
    }
}

static int expected_error(const cJSON *scenario, const char *msg)
{
    const cJSON *e;

    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(scenario, "addErrors"))
    {
        if (cJSON_IsString(e) && strstr(msg, e->valuestring))
            return 1;
    }
    return 0;
}

/* A simulator with the engine settings of the scenario's configuration. */
static struct ts_sim *new_sim(const cJSON *scenario, struct ts_buf *out)
{
    const cJSON *cfg =
        scenario ? cJSON_GetObjectItemCaseSensitive(scenario, "configuration") : NULL;
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_engine_config ec;
    struct ts_config c;
    struct ts_sim *sim;

    ts_config_init(&c);
    if (cfg)
        ts_config_decode(cfg, &c, &errs);
    if (errs.n) {
        ts_buf_adds(out, "\n  configuration: ");
        ts_field_errors_format(&errs, out);
    }
    ts_engine_config_from(&ec, &c);
    ec.check_memo = 1; /* every search answered from memory is checked */
    ts_field_errors_release(&errs);
    ts_config_release(&c);
    sim = ts_sim_new(&ec);
    ts_engine_config_release(&ec);
    return sim;
}

static void run_scenario(void **state)
{
    const struct scenario *sc = *state;
    struct ts_yaml_stream st = TS_YAML_STREAM_INIT;
    struct ts_buf out = TS_BUF_INIT;
    struct ts_err err = {0};
    const cJSON *scenario = NULL;
    struct ts_sim *sim;

    if (ts_yaml_decode_file(sc->path, &st, &err))
        fail_msg("%s: %s", sc->path, err.msg);
    for (size_t i = 0; i < st.n; i++) {
        const char *kind = str(st.docs[i].root, "kind");

        if (kind && strcmp(kind, "Scenario") == 0)
            scenario = st.docs[i].root;
    }
    sim = new_sim(scenario, &out);
    for (size_t i = 0; i < st.n; i++) {
        if (st.docs[i].root == scenario)
            continue;
        ts_err_clear(&err);
        if (ts_sim_add(sim, st.docs[i].root, NOW, &err) &&
            !(scenario && expected_error(scenario, err.msg)))
            problem(&out, "add", "%s:%d: %s", sc->path, st.docs[i].line, err.msg);
    }
    if (!scenario)
        problem(&out, sc->path, "no Scenario document");
    else
        run_steps(sim, scenario, &out);
    ts_sim_free(sim);
    ts_yaml_stream_release(&st);
    if (out.len) {
        print_error("scenario %s failed:%s\n", sc->name, out.ptr);
        ts_buf_release(&out);
        fail();
    }
    ts_buf_release(&out);
}

int main(int argc, char **argv)
{
    glob_t g;
    struct CMUnitTest *tests;
    struct scenario *scs;
    int rc;

    ts_alloc_init();
    if (glob("test/scenarios/*.yaml", 0, NULL, &g) != 0) {
        fprintf(stderr, "no scenarios found under test/scenarios/ (run from the repo root)\n");
        return 1;
    }
    tests = ts_xcalloc(g.gl_pathc, sizeof(*tests));
    scs = ts_xcalloc(g.gl_pathc, sizeof(*scs));
    for (size_t i = 0; i < g.gl_pathc; i++) {
        const char *base = strrchr(g.gl_pathv[i], '/');

        scs[i].path = g.gl_pathv[i];
        snprintf(scs[i].name, sizeof(scs[i].name), "%s", base ? base + 1 : g.gl_pathv[i]);
        tests[i].name = scs[i].name;
        tests[i].test_func = run_scenario;
        tests[i].initial_state = &scs[i];
    }
    if (argc > 1)
        cmocka_set_test_filter(argv[1]);
    rc = _cmocka_run_group_tests("scenarios", tests, g.gl_pathc, NULL, NULL);
    free(tests);
    free(scs);
    globfree(&g);
    return rc;
}
