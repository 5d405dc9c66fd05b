/*
 * simulate.h - `turnstilectl simulate`: read Kueue objects (and Jobs,
 * Kubeflow jobs) from YAML files, run the engine's scheduling cycles, print
 * every Workload with its resulting status as `kubectl get workloads`
 * would show it (-o yaml, -o json) or as a table.
 *
 * Shell code: reads files, writes to the given streams.
 */
#ifndef TS_CLI_SIMULATE_H
#define TS_CLI_SIMULATE_H

#include <stddef.h>
#include <stdio.h>

#include "util/time.h"

enum ts_cli_output {
    TS_CLI_OUTPUT_YAML = 0,
    TS_CLI_OUTPUT_JSON,
    TS_CLI_OUTPUT_TABLE,
};

struct ts_cli_simulate_opts {
    const char *const *files; /* "-" = standard input */
    size_t n_files;
    size_t cycles; /* 0 = until nothing changes */
    enum ts_cli_output output;
    ts_time now;
    const char *config; /* Kueue Configuration file, or NULL */
    int fair_sharing;   /* --fair-sharing: Kueue's default strategies */
    int show_queues;    /* --show-queues: also print ClusterQueues and Cohorts with status */
};

/* Runs the simulation.  Problems go to err as "file:line: document N:
 * <message naming the object and field>".  Returns the process exit code
 * (0 ok, 1 input errors — the valid objects are still simulated and
 * printed — 2 usage or I/O errors). */
int ts_cli_simulate(const struct ts_cli_simulate_opts *o, FILE *out, FILE *err);

struct ts_engine_config;
/* The engine settings of a Kueue Configuration file (`config`, NULL:
 * Kueue's defaults), with fair sharing forced on by `fair_sharing`
 * (--fair-sharing); shared by simulate, explain and what-if.  Returns 0,
 * or 2 after printing "error: FILE:LINE: <field errors>" (or the read
 * error) to err.  Ownership: *ec is filled in either case; the caller
 * releases it with ts_engine_config_release(). */
int ts_cli_engine_config(const char *config, int fair_sharing, struct ts_engine_config *ec,
                         FILE *err);

/* Parses argv after "simulate" into o (files point into argv).  Returns
 * 0, or 2 after printing a usage error to err. */
int ts_cli_simulate_parse(int argc, char **argv, struct ts_cli_simulate_opts *o, FILE *err);

#endif
