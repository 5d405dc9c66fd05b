/* bench_int.h - private to `turnstilectl bench` (pkg/cli/bench*.c). */
#ifndef TS_CLI_BENCH_INT_H
#define TS_CLI_BENCH_INT_H

#include <stddef.h>
#include <stdio.h>
#include <sys/resource.h>

#include "bench/gen.h"
#include "bench/report.h"
#include "util/buf.h"

struct ts__bench_opts {
    const char *file;
    int ideal, live;
    double qps, burst; /* qps 0: no write budget (ideal), no client limit (live) */
    size_t runs;
    int json;
    const char *check;
    /* live mode */
    const char *bin_dir;    /* turnstile and turnstile-apiserver; NULL: next to turnstilectl */
    const char *crds;       /* Kueue's CRDs, default "crds" */
    double timeout_s;       /* give up after this long (default 3600) */
    int keep;               /* keep the temporary directory (logs) */
    int jobs;               /* live: batch Jobs (run by the API server's job simulator) */
    const char *series;     /* per-workload series of the first run, or NULL */
    const char *kubeconfig; /* live: run on this cluster; NULL: start turnstile-apiserver */
    int no_cleanup;         /* --kubeconfig: leave the plan's objects (a throwaway cluster) */
};

/* Writes a run's per-workload series (class, creation, first admission and
 * time to admission, seconds) to path.  Returns 0 or 1 (said on err). */
int ts__bench_write_series(const char *path, const struct ts_bench_plan *plan,
                           const struct ts_bench_result *r, FILE *err);

/* What a live run measured besides the report. */
struct ts__bench_live {
    double cpu_s; /* controller user + system CPU */
    double user_ms, sys_ms;
    double rss_kib;          /* controller peak RSS */
    double wall_s;           /* runner: first creation to last finish */
    double ctl_wall_s;       /* the controller process's, start to exit (Kueue's "wall") */
    size_t admissions;       /* admissions seen (re-admissions included) */
    size_t ctl_wl_writes;    /* the controller's Workload writes (status and object) */
    size_t runner_wl_writes; /* the runner's: creates, Finished patches, quota releases */
    struct ts_buf writes;    /* "METHOD resource[/sub] count" lines, every client */
    /* per queue class: usage as Kueue's runner reads ClusterQueue status
     * (bench/cqusage.h), percent, -1 unknown; owned, freed with writes */
    size_t n_kueue_usage;
    double *kueue_usage;
    int writes_counted; /* 0 on a --kubeconfig cluster: writes and ctl_wl_writes unknown */
};

/* Runs the plan once against turnstile-apiserver and turnstile started
 * here.  Fills rep (release with ts_bench_report_release()) and live
 * (release live->writes).  Returns 0, or 1 after printing why to err. */
int ts__bench_live_run(const struct ts__bench_opts *o, const struct ts_bench_plan *plan,
                       struct ts_bench_report *rep, struct ts__bench_live *live, FILE *err);

struct ts__bench_live;

/* Prints the runs' reports (one run: values; several: mean ± stdev) as a
 * table or JSON; live runs (live[i] beside reps[i]) also show the ideal
 * under the same budget, the ratios and the controller's costs. */
void ts__bench_print(const struct ts__bench_opts *o, const struct ts_bench_plan *plan,
                     const struct ts_bench_report *reps, const struct ts__bench_live *live,
                     const struct ts_bench_report *ideal, FILE *out);

/* The mean of n reports (same plan), field by field.  Ownership: release
 * *out with ts_bench_report_release(); names stay borrowed from the plan. */
void ts__bench_mean(const struct ts_bench_report *reps, size_t n, struct ts_bench_report *out);

/* --- processes (bench_proc.c) --- */

/* Starts argv[0] with stdout and stderr appended to the given files.
 * Returns the pid, or -1 after printing why to err. */
int ts__bench_spawn(char *const *argv, const char *out_path, const char *err_path, FILE *err);

/* Sends sig to pid and reaps it (SIGKILL after timeout_s); fills *ru
 * with its resource usage when ru is not NULL.  Returns 0 or -1. */
int ts__bench_stop(int pid, int sig, double timeout_s, struct rusage *ru);

/* The path of a sibling binary: bin_dir/name, or next to this program
 * when bin_dir is NULL.  Writes into buf. */
const char *ts__bench_bin(const char *bin_dir, const char *name, char *buf, size_t len);

/* Counts the writes (POST, PUT, PATCH, DELETE) in turnstile-apiserver's
 * access log by method and resource ("PUT workloads/status 15012"),
 * appending one line each to out; *wl_writes receives the writes to
 * Workloads (object and status).  Returns 0 or -1 (unreadable log). */
int ts__bench_count_writes(const char *log_path, struct ts_buf *out, size_t *wl_writes);

#endif
