#include "cli/bench.h"

#include "bench/gen.h"
#include "bench/ideal.h"
#include "bench/range.h"
#include "bench/report.h"
#include "cli/bench_int.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/parse.h"
#include "yaml/yaml.h"

#include <stdlib.h>
#include <string.h>

#define USAGE                                                                                      \
    "usage: turnstilectl bench FILE --ideal [--write-budget QPS/BURST] [--runs N]\n"               \
    "                               [-o table|json] [--check RANGEFILE] [--series FILE]\n"         \
    "       turnstilectl bench FILE --live [--qps Q --burst B] [--runs N] [-o table|json]\n"       \
    "                               [--check RANGEFILE] [--bin-dir DIR] [--crds DIR]\n"            \
    "                               [--timeout SECONDS] [--keep] [--series FILE]\n"                \
    "                               [--jobs | --kubeconfig FILE [--no-cleanup]]\n"

/* "50/100" -> qps 50, burst 100. */
static int parse_budget(const char *s, double *qps, double *burst)
{
    const char *slash = strchr(s, '/');
    int64_t q, b;

    if (!slash || ts_parse_i64(s, (size_t)(slash - s), &q) || ts_parse_i64_c(slash + 1, &b) ||
        q <= 0 || b <= 0)
        return -1;
    *qps = (double)q;
    *burst = (double)b;
    return 0;
}

/* One branch per flag (over the 40-line budget on purpose: a flat list
 * reads better than flags split across helpers). */
static int parse(int argc, char **argv, struct ts__bench_opts *o, FILE *err)
{
    memset(o, 0, sizeof(*o));
    o->runs = 1;
    o->timeout_s = 3600;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int64_t n;

        if (!strcmp(a, "--ideal") || !strcmp(a, "--live") || !strcmp(a, "--keep") ||
            !strcmp(a, "--jobs") || !strcmp(a, "--no-cleanup")) {
            *(!strcmp(a, "--ideal")        ? &o->ideal
              : !strcmp(a, "--live")       ? &o->live
              : !strcmp(a, "--jobs")       ? &o->jobs
              : !strcmp(a, "--no-cleanup") ? &o->no_cleanup
                                           : &o->keep) = 1;
            continue;
        }
        if (!strcmp(a, "--write-budget") && v && !parse_budget(v, &o->qps, &o->burst)) {
        } else if (!strcmp(a, "--runs") && v && !ts_parse_i64_c(v, &n) && n > 0 && n <= 1000) {
            o->runs = (size_t)n;
        } else if ((!strcmp(a, "-o") || !strcmp(a, "--output")) && v &&
                   (!strcmp(v, "json") || !strcmp(v, "table"))) {
            o->json = !strcmp(v, "json");
        } else if (!strcmp(a, "--check") && v) {
            o->check = v;
        } else if (!strcmp(a, "--qps") && v && !ts_parse_i64_c(v, &n) && n > 0) {
            o->qps = (double)n;
        } else if (!strcmp(a, "--burst") && v && !ts_parse_i64_c(v, &n) && n > 0) {
            o->burst = (double)n;
        } else if (!strcmp(a, "--timeout") && v && !ts_parse_i64_c(v, &n) && n > 0) {
            o->timeout_s = (double)n;
        } else if (!strcmp(a, "--series") && v) {
            o->series = v;
        } else if (!strcmp(a, "--bin-dir") && v) {
            o->bin_dir = v;
        } else if (!strcmp(a, "--crds") && v) {
            o->crds = v;
        } else if (!strcmp(a, "--kubeconfig") && v) {
            o->kubeconfig = v;
        } else if (a[0] != '-' && !o->file) {
            o->file = a;
            continue;
        } else {
            fprintf(err, "turnstilectl bench: bad argument '%s'\n" USAGE, a);
            return 2;
        }
        i++;
    }
    if (!o->file || o->ideal == o->live || (o->qps > 0) != (o->burst > 0) ||
        (o->jobs && !o->live) || (o->kubeconfig && (!o->live || o->jobs)) ||
        (o->no_cleanup && !o->kubeconfig)) {
        fprintf(err, "turnstilectl bench: %s\n" USAGE,
                !o->file                    ? "no generator file"
                : o->ideal == o->live       ? "give --ideal or --live"
                : o->jobs && !o->live       ? "--jobs is for --live"
                : o->kubeconfig && !o->live ? "--kubeconfig is for --live"
                : o->no_cleanup && !o->kubeconfig
                    ? "--no-cleanup is for --kubeconfig (a run on its own server leaves nothing)"
                : o->kubeconfig && o->jobs
                    ? "--jobs needs the job simulator of the turnstile-apiserver bench starts: "
                      "not with --kubeconfig"
                : o->live ? "give --qps and --burst together"
                          : "bad --write-budget");
        return 2;
    }
    return 0;
}

/* Reads a YAML file holding one document. Ownership: caller deletes. */
static cJSON *read_one(const char *file, FILE *err)
{
    struct ts_yaml_stream st = TS_YAML_STREAM_INIT;
    struct ts_err e = {0};
    cJSON *root = NULL;

    if (ts_yaml_decode_file(file, &st, &e))
        fprintf(err, "error: %s\n", e.msg);
    else if (st.n != 1)
        fprintf(err, "error: %s: want exactly one YAML document, found %zu\n", file, st.n);
    else
        root = ts_yaml_doc_take(&st.docs[0]);
    ts_yaml_stream_release(&st);
    return root;
}

static int load_plan(const char *file, struct ts_bench_plan *plan, FILE *err)
{
    cJSON *root = read_one(file, err);
    struct ts_bench_gen g;
    struct ts_err e = {0};

    if (!root)
        return 2;
    if (ts_bench_gen_decode(root, &g, &e)) {
        fprintf(err, "error: %s: %s\n", file, e.msg);
        cJSON_Delete(root);
        return 2;
    }
    ts_bench_plan_build(&g, plan);
    ts_bench_gen_release(&g);
    cJSON_Delete(root);
    return 0;
}

static int load_range(const char *file, struct ts_bench_range *r, FILE *err)
{
    cJSON *root = read_one(file, err);
    struct ts_err e = {0};
    int rc = 0;

    if (!root)
        return 2;
    if (ts_bench_range_decode(root, r, &e)) {
        fprintf(err, "error: %s: %s\n", file, e.msg);
        rc = 2;
    }
    cJSON_Delete(root);
    return rc;
}

static int run_ideal(const struct ts__bench_opts *o, const struct ts_bench_plan *plan,
                     struct ts_bench_report *reps, FILE *err)
{
    struct ts_bench_ideal_opts io = {o->qps, o->burst, 0};

    for (size_t i = 0; i < o->runs; i++) {
        struct ts_bench_result r;
        struct ts_err e = {0};
        int rc = ts_bench_ideal_run(plan, &io, &r, &e);

        if (!rc)
            ts_bench_report_build(plan, &r, &reps[i]);
        if (!rc && !i && o->series)
            rc = ts__bench_write_series(o->series, plan, &r, err) ? TS_EIO : 0;
        ts_bench_result_release(&r);
        if (rc) {
            fprintf(err, "error: %s: %s\n", o->file, e.msg);
            return 1;
        }
    }
    return 0;
}

/* Live runs, and the ideal under the same budget beside them. */
static int run_live(const struct ts__bench_opts *o, const struct ts_bench_plan *plan,
                    struct ts_bench_report *reps, struct ts__bench_live *live,
                    struct ts_bench_report *ideal, FILE *err)
{
    struct ts__bench_opts io = *o;

    for (size_t i = 0; i < o->runs; i++) {
        if (ts__bench_live_run(&io, plan, &reps[i], &live[i], err))
            return 1;
        io.series = NULL; /* the first run's */
    }
    io.runs = 1;
    return run_ideal(&io, plan, ideal, err);
}

/* Checks the mean of the runs against the range file. */
static int check(const struct ts__bench_opts *o, const struct ts_bench_report *rep,
                 const struct ts_bench_proc *proc, FILE *out, FILE *err)
{
    struct ts_bench_range range;
    struct ts_buf msg = TS_BUF_INIT;
    size_t bad;
    int rc;

    if ((rc = load_range(o->check, &range, err)))
        return rc;
    bad = ts_bench_range_check(&range, rep, proc, &msg);
    if (bad)
        fprintf(out, "range check %s: %zu bound(s) violated\n%s", o->check, bad, msg.ptr);
    else
        fprintf(out, "range check %s: ok\n", o->check);
    ts_buf_release(&msg);
    ts_bench_range_release(&range);
    return bad ? 1 : 0;
}

int ts_cli_bench(int argc, char **argv, FILE *out, FILE *err)
{
    struct ts__bench_opts o;
    struct ts_bench_plan plan;
    struct ts_bench_report *reps, mean, ideal = {0};
    struct ts__bench_live *live;
    struct ts_bench_proc proc = {0, 0, 0};
    int rc;

    if ((rc = parse(argc, argv, &o, err)) || (rc = load_plan(o.file, &plan, err)))
        return rc;
    reps = ts_xcalloc(o.runs, sizeof(*reps));
    live = ts_xcalloc(o.runs, sizeof(*live));
    rc = o.live ? run_live(&o, &plan, reps, live, &ideal, err) : run_ideal(&o, &plan, reps, err);
    if (!rc) {
        ts__bench_print(&o, &plan, reps, o.live ? live : NULL, o.live ? &ideal : NULL, out);
        ts__bench_mean(reps, o.runs, &mean);
        for (size_t i = 0; i < o.runs; i++) { /* the range bounds the worst run */
            proc.user_ms = live[i].user_ms > proc.user_ms ? live[i].user_ms : proc.user_ms;
            proc.sys_ms = live[i].sys_ms > proc.sys_ms ? live[i].sys_ms : proc.sys_ms;
            proc.max_rss_kib =
                live[i].rss_kib > proc.max_rss_kib ? live[i].rss_kib : proc.max_rss_kib;
        }
        if (o.check)
            rc = check(&o, &mean, o.live ? &proc : NULL, out, err);
        ts_bench_report_release(&mean);
    }
    for (size_t i = 0; i < o.runs; i++) {
        ts_bench_report_release(&reps[i]);
        ts_buf_release(&live[i].writes);
        free(live[i].kueue_usage);
    }
    ts_bench_report_release(&ideal);
    free(live);
    free(reps);
    ts_bench_plan_release(&plan);
    return rc;
}
