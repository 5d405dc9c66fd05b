#include "cli/whatif.h"

#include "cli/live.h"
#include "cli/load.h"
#include "cli/simulate.h"
#include "util/alloc.h"
#include "util/hmap.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define USAGE                                                                                      \
    "usage: turnstilectl what-if [-f STATE.yaml...] --change CHANGE.yaml [--change ...]\n"         \
    "         [--now RFC3339] [--kubeconfig FILE] [--context NAME] [--config FILE]\n"              \
    "  --config: Kueue's Configuration (fair sharing, resource transformations, ...)\n"            \
    "  without -f the state is read from the cluster (kubeconfig); nothing is written\n"

struct outcome {
    int admitted;
    int evicted;
    char *cq;
    char *reason;
};

static void outcome_of(const struct ts_workload *w, struct outcome *o)
{
    const struct ts_condition *qr = ts_conditions_find(&w->status.conditions, "QuotaReserved");

    o->admitted = w->status.admission && qr && qr->status && !strcmp(qr->status, "True");
    o->evicted = ts_workload_is_evicted(w);
    o->cq = ts_xstrdup(o->admitted ? w->status.admission->cluster_queue : "");
    o->reason = ts_xstrdup(!o->admitted && qr && qr->reason ? qr->reason : "");
}

/* Snapshot: ns/name -> outcome. */
static void snapshot(const struct ts_sim *sim, struct ts_hmap *m)
{
    for (size_t i = 0; i < ts_sim_n_workloads(sim); i++) {
        const struct ts_workload *w = ts_sim_workload(sim, i);
        struct outcome *o = ts_xcalloc(1, sizeof(*o));
        char key[512];

        outcome_of(w, o);
        snprintf(key, sizeof(key), "%s/%s", w->meta.namespace_, w->meta.name);
        free(ts_hmap_put(m, key, o));
    }
}

static void outcome_free(struct ts_hmap *m)
{
    size_t it = 0;
    const char *k;
    void *v;

    while (ts_hmap_next(m, &it, &k, &v)) {
        struct outcome *o = v;

        free(o->cq);
        free(o->reason);
        free(o);
    }
    ts_hmap_release(m);
}

static const char *verdict(const struct outcome *before, const struct outcome *after)
{
    if (!before)
        return after->admitted ? "would be admitted" : "would wait";
    if (before->admitted && !after->admitted)
        return after->evicted ? "would be preempted" : "would lose its admission";
    if (!before->admitted && after->admitted)
        return "would be admitted";
    if (!after->admitted && strcmp(before->reason, after->reason))
        return "would wait for another reason";
    return NULL;
}

static int print_changes(const struct ts_sim *sim, struct ts_hmap *before, FILE *out)
{
    int n = 0;

    fprintf(out, "%-12s %-40s %-26s %-18s %s\n", "NAMESPACE", "NAME", "WHAT-IF", "CLUSTERQUEUE",
            "REASON");
    for (size_t i = 0; i < ts_sim_n_workloads(sim); i++) {
        const struct ts_workload *w = ts_sim_workload(sim, i);
        struct outcome after;
        char key[512];
        const char *v;

        snprintf(key, sizeof(key), "%s/%s", w->meta.namespace_, w->meta.name);
        outcome_of(w, &after);
        if ((v = verdict(ts_hmap_get(before, key), &after))) {
            fprintf(out, "%-12s %-40s %-26s %-18s %s\n", w->meta.namespace_, w->meta.name, v,
                    after.cq, after.reason);
            n++;
        }
        free(after.cq);
        free(after.reason);
    }
    if (!n)
        fprintf(out, "(no workload's outcome changes)\n");
    return n;
}

int ts_cli_whatif(int argc, char **argv, FILE *out, FILE *err)
{
    const char *state[64], *change[64], *config = NULL;
    struct ts_engine_config ec;
    size_t ns = 0, nc = 0;
    struct timespec tsp;
    ts_time now;
    struct ts_hmap before = TS_HMAP_INIT;
    struct ts_cli_live_opts live = {0};
    struct ts_sim *sim;
    int bad;

    clock_gettime(CLOCK_REALTIME, &tsp);
    now = (ts_time)tsp.tv_sec * TS_TIME_SECOND;
    for (int i = 0; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;

        if (!strcmp(argv[i], "-f") && v && ns < 64)
            state[ns++] = argv[++i];
        else if (!strcmp(argv[i], "--change") && v && nc < 64)
            change[nc++] = argv[++i];
        else if (!strcmp(argv[i], "--now") && v && !ts_time_parse(v, &now))
            i++;
        else if (!strcmp(argv[i], "--kubeconfig") && v)
            live.kubeconfig = argv[++i];
        else if (!strcmp(argv[i], "--context") && v)
            live.context = argv[++i];
        else if (!strcmp(argv[i], "--config") && v)
            config = argv[++i];
        else {
            fprintf(err, "turnstilectl what-if: bad argument '%s'\n" USAGE, argv[i]);
            return 2;
        }
    }
    if (!nc) {
        fprintf(err, "turnstilectl what-if: nothing to try: give --change FILE\n" USAGE);
        return 2;
    }
    if (ts_cli_engine_config(config, 0, &ec, err)) {
        ts_engine_config_release(&ec);
        return 2;
    }
    sim = ts_sim_new(&ec);
    ts_engine_config_release(&ec);
    bad = ns ? ts_cli_load(sim, state, ns, now, err) : ts_cli_load_live(sim, &live, now, err);
    if (bad >= 0) {
        ts_sim_run(sim, 0, now);
        snapshot(sim, &before);
        bad = ts_cli_load(sim, change, nc, now, err);
    }
    if (bad >= 0) {
        ts_sim_run(sim, 0, now);
        print_changes(sim, &before, out);
    }
    outcome_free(&before);
    ts_sim_free(sim);
    return bad < 0 ? 2 : bad ? 1 : 0;
}
