#include "cli/explain.h"

#include "cli/live.h"
#include "cli/load.h"
#include "cli/simulate.h"
#include "engine/amount.h"
#include "engine/explain.h"
#include "json/json.h"
#include "util/time.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define USAGE                                                                                      \
    "usage: turnstilectl explain [-f FILE...] [-n NAMESPACE] WORKLOAD|KIND/NAME\n"                 \
    "         [-o table|json] [--now RFC3339] [--kubeconfig FILE] [--context NAME]\n"              \
    "         [--config FILE]\n"                                                                   \
    "  --config: Kueue's Configuration (fair sharing, resource transformations, ...)\n"            \
    "  KIND/NAME: the job that owns the Workload (job, pytorchjob, tfjob, jobset, ...)\n"          \
    "  without -f the state is read from the cluster (kubeconfig); nothing is written\n"

struct opts {
    const char *files[64];
    size_t n_files;
    const char *ns, *target;
    const char *config; /* --config FILE */
    struct ts_cli_live_opts live;
    int json;
    ts_time now;
};

static int parse(int argc, char **argv, struct opts *o, FILE *err)
{
    struct timespec ts;

    memset(o, 0, sizeof(*o));
    o->ns = "default";
    clock_gettime(CLOCK_REALTIME, &ts);
    o->now = (ts_time)ts.tv_sec * TS_TIME_SECOND;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

        if (!strcmp(a, "-f") && v && o->n_files < 64)
            o->files[o->n_files++] = argv[++i];
        else if (!strcmp(a, "-n") && v)
            o->ns = argv[++i];
        else if (!strcmp(a, "--kubeconfig") && v)
            o->live.kubeconfig = argv[++i];
        else if (!strcmp(a, "--context") && v)
            o->live.context = argv[++i];
        else if (!strcmp(a, "--config") && v)
            o->config = argv[++i];
        else if (!strcmp(a, "-o") && v && (!strcmp(v, "json") || !strcmp(v, "table")))
            o->json = !strcmp(argv[++i], "json");
        else if (!strcmp(a, "--now") && v && !ts_time_parse(v, &o->now))
            i++;
        else if (a[0] != '-' && !o->target)
            o->target = a;
        else {
            fprintf(err, "turnstilectl explain: bad argument '%s'\n" USAGE, a);
            return 2;
        }
    }
    if (!o->target) {
        fprintf(err, "turnstilectl explain: which workload?\n" USAGE);
        return 2;
    }
    return 0;
}

/* The Workload for WORKLOAD or KIND/NAME (job/NAME, pytorchjob/NAME,
 * jobset/NAME, ...: the owner's kind, any case). */
static const struct ts_workload *resolve(const struct ts_sim *sim, const char *ns,
                                         const char *target)
{
    const char *slash = strchr(target, '/');
    size_t n = slash ? (size_t)(slash - target) : 0;

    if (!slash)
        return ts_sim_find(sim, ns, target);
    for (size_t i = 0; i < ts_sim_n_workloads(sim); i++) {
        const struct ts_workload *w = ts_sim_workload(sim, i);
        const struct ts_owner_ref *o = ts_object_meta_controller(&w->meta);

        if (o && o->kind && strlen(o->kind) == n && !strncasecmp(o->kind, target, n) && o->name &&
            !strcmp(o->name, slash + 1) && !strcmp(w->meta.namespace_, ns))
            return w;
    }
    return NULL;
}

static cJSON *to_json(const struct ts_workload *w, const struct ts_explanation *x)
{
    cJSON *o = cJSON_CreateObject(), *facts = cJSON_CreateArray(), *ahead = cJSON_CreateArray();
    char q[TS_QUANTITY_STR_MAX];

    cJSON_AddStringToObject(o, "namespace", w->meta.namespace_);
    cJSON_AddStringToObject(o, "name", w->meta.name);
    if (x->cluster_queue)
        cJSON_AddStringToObject(o, "clusterQueue", x->cluster_queue);
    cJSON_AddBoolToObject(o, "admitted", x->reason == NULL);
    if (ts_workload_is_finished(w))
        cJSON_AddBoolToObject(o, "finished", 1);
    if (x->reason) {
        cJSON_AddStringToObject(o, "reason", x->reason);
        cJSON_AddStringToObject(o, "message", x->message ? x->message : "");
        cJSON_AddNumberToObject(o, "positionInClusterQueue", (double)x->position_in_cq);
        cJSON_AddNumberToObject(o, "positionInLocalQueue", (double)x->position_in_lq);
    }
    for (size_t i = 0; i < x->n_ahead; i++)
        cJSON_AddItemToArray(ahead, cJSON_CreateString(x->ahead[i]));
    cJSON_AddItemToObject(o, "ahead", ahead);
    for (size_t i = 0; i < x->n_facts; i++) {
        const struct ts_flavor_fact *f = &x->facts[i];
        cJSON *e = cJSON_CreateObject();

        cJSON_AddStringToObject(e, "podSet", f->podset);
        cJSON_AddStringToObject(e, "resource", f->resource);
        cJSON_AddStringToObject(e, "flavor", f->flavor);
        cJSON_AddStringToObject(e, "requested",
                                ts_amount_format(f->resource, f->requested, q, sizeof(q)));
        cJSON_AddStringToObject(e, "available",
                                ts_amount_format(f->resource, f->available, q, sizeof(q)));
        cJSON_AddStringToObject(e, "maximum",
                                ts_amount_format(f->resource, f->maximum, q, sizeof(q)));
        cJSON_AddItemToArray(facts, e);
    }
    cJSON_AddItemToObject(o, "flavors", facts);
    if (x->cf)
        cJSON_AddStringToObject(o, "wouldAdmitIt", x->cf_text);
    return o;
}

static void print_text(const struct ts_workload *w, const struct ts_explanation *x, FILE *out)
{
    char a[48], b[48], c[48];

    fprintf(out, "Workload:       %s/%s\n", w->meta.namespace_, w->meta.name);
    fprintf(out, "ClusterQueue:   %s\n", x->cluster_queue ? x->cluster_queue : "(none)");
    if (!x->reason) {
        fprintf(out, "Status:         %s\n", ts_workload_is_finished(w) ? "finished" : "admitted");
        return;
    }
    fprintf(out, "Position:       %zu in ClusterQueue, %zu in LocalQueue %s\n", x->position_in_cq,
            x->position_in_lq, w->spec.queue_name ? w->spec.queue_name : "");
    fprintf(out, "Ahead:         ");
    for (size_t i = 0; i < x->n_ahead; i++)
        fprintf(out, " %s", x->ahead[i]);
    fprintf(out, "%s\nReason:         %s\nMessage:        %s\n", x->n_ahead ? "" : " (none)",
            x->reason, x->message ? x->message : "");
    if (x->n_facts)
        fprintf(out, "\n%-10s %-16s %-16s %-10s %-10s %s\n", "POD SET", "RESOURCE", "FLAVOR",
                "REQUESTED", "AVAILABLE", "MAXIMUM");
    for (size_t i = 0; i < x->n_facts; i++) {
        const struct ts_flavor_fact *f = &x->facts[i];

        fprintf(out, "%-10s %-16s %-16s %-10s %-10s %s\n", f->podset, f->resource, f->flavor,
                ts_amount_format(f->resource, f->requested, a, sizeof(a)),
                ts_amount_format(f->resource, f->available, b, sizeof(b)),
                ts_amount_format(f->resource, f->maximum, c, sizeof(c)));
    }
    fprintf(out, "\nWhat would admit it: %s\n", x->cf ? x->cf_text : "nothing simple; see above");
}

int ts_cli_explain(int argc, char **argv, FILE *out, FILE *err)
{
    struct opts o;
    struct ts_sim *sim;
    const struct ts_workload *w;
    struct ts_explanation x;
    struct ts_engine_config ec;
    int rc = parse(argc, argv, &o, err), bad;

    if (rc)
        return rc;
    rc = ts_cli_engine_config(o.config, 0, &ec, err);
    if (rc) {
        ts_engine_config_release(&ec);
        return rc;
    }
    sim = ts_sim_new(&ec);
    ts_engine_config_release(&ec);
    bad = o.n_files ? ts_cli_load(sim, o.files, o.n_files, o.now, err)
                    : ts_cli_load_live(sim, &o.live, o.now, err);
    if (bad >= 0)
        ts_sim_run(sim, 0, o.now);
    w = bad < 0 ? NULL : resolve(sim, o.ns, o.target);
    if (w && ts_workload_is_finished(w)) { /* the engine does not keep it */
        memset(&x, 0, sizeof(x));
        x.cluster_queue = w->status.admission ? w->status.admission->cluster_queue : NULL;
    } else if (!w || ts_engine_explain(ts_sim_engine(sim), w->meta.namespace_, w->meta.name, &x)) {
        if (bad >= 0)
            fprintf(err, "error: workload %s not found in namespace %s\n", o.target, o.ns);
        ts_sim_free(sim);
        return bad < 0 ? 2 : 1;
    }
    if (o.json) {
        cJSON *j = to_json(w, &x);
        char *s = ts_json_dumps(j, TS_JSON_PRETTY);

        fprintf(out, "%s\n", s);
        free(s);
        cJSON_Delete(j);
    } else {
        print_text(w, &x, out);
    }
    ts_explanation_release(&x);
    ts_sim_free(sim);
    return bad ? 1 : 0;
}
