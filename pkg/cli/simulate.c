#include "cli/simulate.h"

#include "api/config.h"
#include "cli/load.h"
#include "json/json.h"
#include "sim/sim.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/parse.h"
#include "yaml/yaml.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define USAGE                                                                                      \
    "usage: turnstilectl simulate -f FILE [-f FILE...] [--cycles N] [-o yaml|json|table]\n"        \
    "                             [--config FILE] [--fair-sharing] [--show-queues]\n"              \
    "                             [--now RFC3339]\n"

int ts_cli_simulate_parse(int argc, char **argv, struct ts_cli_simulate_opts *o, FILE *err)
{
    static const char *files[64];
    struct timespec ts;

    memset(o, 0, sizeof(*o));
    clock_gettime(CLOCK_REALTIME, &ts);
    o->now = (ts_time)ts.tv_sec * TS_TIME_SECOND;
    o->files = files;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int64_t n;

        if ((!strcmp(a, "-f") || !strcmp(a, "--filename")) && v && o->n_files < 64) {
            files[o->n_files++] = v;
        } else if (!strcmp(a, "--cycles") && v && !ts_parse_i64_c(v, &n) && n >= 0) {
            o->cycles = (size_t)n;
        } else if ((!strcmp(a, "-o") || !strcmp(a, "--output")) && v &&
                   (!strcmp(v, "yaml") || !strcmp(v, "json") || !strcmp(v, "table"))) {
            o->output = !strcmp(v, "yaml")   ? TS_CLI_OUTPUT_YAML
                        : !strcmp(v, "json") ? TS_CLI_OUTPUT_JSON
                                             : TS_CLI_OUTPUT_TABLE;
        } else if (!strcmp(a, "--fair-sharing")) {
            o->fair_sharing = 1;
            i--; /* no value */
        } else if (!strcmp(a, "--show-queues")) {
            o->show_queues = 1;
            i--;
        } else if (!strcmp(a, "--config") && v) {
            o->config = v;
        } else if (!strcmp(a, "--now") && v && !ts_time_parse(v, &o->now)) {
        } else {
            fprintf(err, "turnstilectl simulate: bad argument '%s'\n" USAGE, a);
            return 2;
        }
        i++;
    }
    if (!o->n_files) {
        fprintf(err, "turnstilectl simulate: no input: give -f FILE\n" USAGE);
        return 2;
    }
    return 0;
}

static const char *condition_status(const struct ts_workload *w, const char *type)
{
    const struct ts_condition *c = ts_conditions_find(&w->status.conditions, type);

    return c && c->status ? c->status : "";
}

#define TABLE_COLS 6

/* One row of cells; each cell is an owned string. */
static void table_row(const struct ts_workload *w, char **cells)
{
    const struct ts_condition *qr =
        ts_conditions_find(&w->status.conditions, TS_WL_COND_QUOTA_RESERVED);
    struct ts_buf why = TS_BUF_INIT;

    if (qr && qr->status && strcmp(qr->status, "True"))
        ts_buf_addf(&why, "%s: %s", qr->reason ? qr->reason : "", qr->message ? qr->message : "");
    cells[0] = ts_xstrdup(w->meta.namespace_);
    cells[1] = ts_xstrdup(w->meta.name);
    cells[2] = ts_xstrdup(w->spec.queue_name ? w->spec.queue_name : "");
    cells[3] = ts_xstrdup(w->status.admission ? w->status.admission->cluster_queue : "");
    cells[4] = ts_xstrdup(condition_status(w, TS_WL_COND_ADMITTED));
    cells[5] = ts_buf_take(&why);
}

/* Columns as wide as their widest cell, three spaces apart (kubectl). */
static void print_table(const struct ts_sim *sim, FILE *out)
{
    static const char *const head[TABLE_COLS] = {"NAMESPACE",   "NAME",     "QUEUE",
                                                 "RESERVED IN", "ADMITTED", "REASON/MESSAGE"};
    size_t n = ts_sim_n_workloads(sim), width[TABLE_COLS];
    char **cells = ts_xcalloc((n + 1) * TABLE_COLS, sizeof(*cells));

    for (size_t c = 0; c < TABLE_COLS; c++) {
        cells[c] = ts_xstrdup(head[c]);
        width[c] = strlen(head[c]);
    }
    for (size_t r = 0; r < n; r++) {
        table_row(ts_sim_workload(sim, r), &cells[(r + 1) * TABLE_COLS]);
        for (size_t c = 0; c < TABLE_COLS; c++) {
            size_t l = strlen(cells[(r + 1) * TABLE_COLS + c]);

            width[c] = l > width[c] ? l : width[c];
        }
    }
    for (size_t r = 0; r <= n; r++) {
        for (size_t c = 0; c < TABLE_COLS; c++) {
            const char *cell = cells[r * TABLE_COLS + c];

            if (c + 1 < TABLE_COLS)
                fprintf(out, "%-*s   ", (int)width[c], cell);
            else
                fprintf(out, "%s\n", cell);
        }
    }
    for (size_t i = 0; i < (n + 1) * TABLE_COLS; i++)
        free(cells[i]);
    free(cells);
}

static const char *cell_str(const cJSON *o, const char *path)
{
    const cJSON *v = ts_json_get(o, path);

    return cJSON_IsString(v) ? v->valuestring : "";
}

static void print_queue_table(const cJSON *queues, FILE *out)
{
    const cJSON *q;

    fprintf(out, "\n%-24s %-16s %-8s %-10s %-9s %-7s %s\n", "CLUSTERQUEUE", "COHORT", "PENDING",
            "RESERVING", "ADMITTED", "ACTIVE", "WEIGHTED SHARE");
    cJSON_ArrayForEach(q, queues)
    {
        const cJSON *share = ts_json_get(q, "status.fairSharing.weightedShare");
        char sh[32] = "";

        if (strcmp(cell_str(q, "kind"), "ClusterQueue"))
            continue;
        if (cJSON_IsNumber(share))
            snprintf(sh, sizeof(sh), "%.0f", share->valuedouble);
        fprintf(out, "%-24s %-16s %-8d %-10d %-9d %-7s %s\n", cell_str(q, "metadata.name"),
                cell_str(q, "spec.cohortName"),
                ts_json_get(q, "status.pendingWorkloads")
                    ? ts_json_get(q, "status.pendingWorkloads")->valueint
                    : 0,
                ts_json_get(q, "status.reservingWorkloads")
                    ? ts_json_get(q, "status.reservingWorkloads")->valueint
                    : 0,
                ts_json_get(q, "status.admittedWorkloads")
                    ? ts_json_get(q, "status.admittedWorkloads")->valueint
                    : 0,
                cell_str(q, "status.conditions[0].status"), sh);
    }
}

/* kubectl's -o yaml|json of a list of workloads: a v1 List. */
static void print_list(const struct ts_sim *sim, enum ts_cli_output fmt, cJSON *queues, FILE *out)
{
    cJSON *list = cJSON_CreateObject();
    cJSON *items;
    struct ts_buf b = TS_BUF_INIT;

    cJSON_AddStringToObject(list, "apiVersion", "v1");
    items = cJSON_AddArrayToObject(list, "items");
    for (size_t i = 0; i < ts_sim_n_workloads(sim); i++)
        cJSON_AddItemToArray(items, ts_workload_encode(ts_sim_workload(sim, i)));
    while (queues && cJSON_GetArraySize(queues))
        cJSON_AddItemToArray(items, cJSON_DetachItemFromArray(queues, 0));
    cJSON_AddStringToObject(list, "kind", "List");
    cJSON_AddStringToObject(cJSON_AddObjectToObject(list, "metadata"), "resourceVersion", "");
    if (fmt == TS_CLI_OUTPUT_JSON) {
        ts_json_print(list, TS_JSON_PRETTY, &b, NULL);
        ts_buf_addc(&b, '\n');
    } else {
        ts_yaml_encode(list, TS_YAML_SORT_KEYS, &b, NULL);
    }
    fputs(b.ptr, out);
    ts_buf_release(&b);
    cJSON_Delete(list);
}

int ts_cli_engine_config(const char *config, int fair_sharing, struct ts_engine_config *ec,
                         FILE *err)
{
    struct ts_yaml_stream st = TS_YAML_STREAM_INIT;
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_err e = {0};
    struct ts_config c;
    int rc = 0;

    ts_config_init(&c);
    if (config && ts_yaml_decode_file(config, &st, &e)) {
        fprintf(err, "error: %s\n", e.msg);
        rc = 2;
    } else if (config && st.n) {
        ts_config_decode(st.docs[0].root, &c, &errs);
        if (errs.n) {
            struct ts_buf b = TS_BUF_INIT;

            ts_field_errors_format(&errs, &b);
            fprintf(err, "error: %s:%d: %s\n", config,
                    ts_yaml_doc_line(&st.docs[0], errs.items[0].field), b.ptr);
            ts_buf_release(&b);
            rc = 2;
        }
    }
    if (fair_sharing)
        c.fair_sharing = 1;
    ts_engine_config_from(ec, &c);
    ts_field_errors_release(&errs);
    ts_yaml_stream_release(&st);
    ts_config_release(&c);
    return rc;
}

int ts_cli_simulate(const struct ts_cli_simulate_opts *o, FILE *out, FILE *err)
{
    struct ts_engine_config ec;
    struct ts_sim *sim;
    cJSON *queues;
    int bad = 0, rc = ts_cli_engine_config(o->config, o->fair_sharing, &ec, err);

    if (rc) {
        ts_engine_config_release(&ec);
        return rc;
    }
    sim = ts_sim_new(&ec);
    ts_engine_config_release(&ec);
    bad = ts_cli_load(sim, o->files, o->n_files, o->now, err);
    if (bad < 0) {
        ts_sim_free(sim);
        return 2;
    }
    if (!o->cycles && ts_sim_run(sim, 0, o->now) == TS_SIM_SETTLE_CAP)
        fprintf(err,
                "warning: decisions still change after %d cycles (workloads preempting each "
                "other in turn?): the state after the last one is shown\n",
                TS_SIM_SETTLE_CAP);
    else if (o->cycles)
        ts_sim_run(sim, o->cycles, o->now);
    queues = o->show_queues ? ts_sim_queues(sim, o->now) : NULL;
    if (o->output == TS_CLI_OUTPUT_TABLE) {
        print_table(sim, out);
        if (queues)
            print_queue_table(queues, out);
    } else {
        print_list(sim, o->output, queues, out);
    }
    cJSON_Delete(queues);
    ts_sim_free(sim);
    return bad ? 1 : 0;
}
