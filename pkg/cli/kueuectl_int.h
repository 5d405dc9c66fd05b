/*
 * kueuectl_int.h - the parts of `kubectl kueue` (kueuectl.h) shared by its
 * files: the parsed command line, the API helpers, and the pure pieces
 * (tables, rows, workload status, taint and toleration parsing, the
 * objects `create` sends) that the unit tests drive directly.
 *
 * The pure functions do no I/O and read no clock: `now` is passed in.
 * Thread rule: single-threaded.  Ownership: per function.
 */
#ifndef TS_CLI_KUEUECTL_INT_H
#define TS_CLI_KUEUECTL_INT_H

#include <cJSON.h>
#include <stddef.h>
#include <stdio.h>

#include "kube/kubeconfig.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/time.h"

struct ts_kube_client;
struct ts_kube_req;
struct ts_loop;

/* What the command line asked for (strings borrowed from argv). */
struct ts__kctl_opts {
    const char *kubeconfig, *context, *ns;
    int all_ns;
    const char *output; /* NULL: the default printer */
    const char *selector, *field_selector, *cq, *lq, *for_obj;
    const char *status[8];
    size_t n_status;
    const char *active[4]; /* list clusterqueue --active */
    size_t n_active;
    const char *dry_run; /* "none", "client", "server" */
    int keep_running, ignore_unknown_cq;
    const char *node_labels[16], *node_taints[16], *tolerations[16];
    size_t n_node_labels, n_node_taints, n_tolerations;
    /* create clusterqueue: NULL when the flag was not given */
    const char *cohort, *queuing_strategy, *reclaim, *within_cq;
    const char *ns_selector[16], *nominal[16], *borrowing[16], *lending[16];
    size_t n_ns_selector, n_nominal, n_borrowing, n_lending;
    int yes, all; /* delete workload */
    const char *args[64];
    size_t n_args;
};

/* A command of kueuectl: its verb and kind, and the flags it takes. */
enum ts__kctl_kind {
    TS__KCTL_CQ = 0,
    TS__KCTL_LQ,
    TS__KCTL_WL,
    TS__KCTL_RF,
};

/* A connected command: the options, a client and the namespace to use. */
struct ts__kctl {
    struct ts__kctl_opts o;
    struct ts_kube_client *c;
    struct ts_loop *loop;
    struct ts_kubeconfig cfg;
    const char *ns; /* -n, else the kubeconfig context's */
    FILE *out, *err;
    char conn_err[256];
};

/* ---- API (kueuectl.c) ---- */

/* Loads the kubeconfig of k->o (--kubeconfig, --context) and creates the
 * client; sets k->ns.  Returns 0, or -1 with k->conn_err set.  Either
 * way release with ts__kctl_disconnect(). */
int ts__kctl_connect(struct ts__kctl *k);
void ts__kctl_disconnect(struct ts__kctl *k);

/* Runs one request to completion.  Returns 0 or a TS_E* code; on failure
 * msg receives what kubectl would print after "Error: " (the server's
 * Status message, e.g. `clusterqueues.kueue.x-k8s.io "cq" not found`).
 * Ownership: caller deletes *out (may be NULL). */
int ts__kctl_call(struct ts__kctl *k, const struct ts_kube_req *r, cJSON **out, char *msg,
                  size_t len);

/* The kind of a kind word of kueuectl ("cq", "workload", "kwl", ...).
 * Returns 0 or -1. */
int ts__kctl_kind_of(const char *s, enum ts__kctl_kind *k);

/* Whether a flag word ("-n", "--context") takes a value. */
int ts__kctl_flag_takes_value(const char *arg);

/* Stores the known flags of argv in o, skipping everything else (the
 * words being completed need not parse). */
void ts__kctl_lenient_parse(int argc, char **argv, struct ts__kctl_opts *o);

/* Prints the long flags of the command VERB KIND that start with prefix,
 * one a line.  Returns cobra's ShellCompDirectiveNoFileComp (4). */
int ts__kctl_complete_flags(const char *verb, const char *kind_s, const char *prefix, FILE *out);

/* Prints "Error: msg" on err and returns 1 (kueuectl's exit code). */
int ts__kctl_fail(struct ts__kctl *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints obj as -o yaml|json (yaml: sorted keys, as kubectl does), or the
 * name printer line "<kind>.kueue.x-k8s.io/<name>[ <operation>]" (-o name
 * drops the operation).  Returns 0 or 1 (an unsupported format, reported). */
int ts__kctl_print_obj(struct ts__kctl *k, const cJSON *obj, const char *kind,
                       const char *operation);

/* ---- commands ---- */
int ts__kctl_list(struct ts__kctl *k, enum ts__kctl_kind kind);
int ts__kctl_stop_resume(struct ts__kctl *k, enum ts__kctl_kind kind, int stop);
int ts__kctl_create(struct ts__kctl *k, enum ts__kctl_kind kind);
int ts__kctl_delete_workloads(struct ts__kctl *k);
int ts__kctl_list_pods(struct ts__kctl *k);

/* ---- pure: tables (kueuectl_print.c) ---- */

/* A table printed as kubectl's printers.GetNewTabWriter does: columns
 * separated by three spaces, the last one unpadded. */
struct ts__kctl_table {
    char **cells; /* nrows * ncols, row-major, owned */
    size_t ncols, nrows, cap;
    int with_ns; /* NAMESPACE is the first column */
};

/* Starts a table with upper-cased headers ("Job Type" -> "JOB TYPE"),
 * with NAMESPACE first when with_ns.  Ownership: release with
 * ts__kctl_table_release(). */
void ts__kctl_table_init(struct ts__kctl_table *t, const char *const *headers, size_t n,
                         int with_ns);
void ts__kctl_table_release(struct ts__kctl_table *t);

/* Appends the row of one object (NAMESPACE first when the table has it).
 * lq_cq maps "ns/localqueue" to its ClusterQueue name and positions
 * "ns/workload" to its position in the LocalQueue (both may be NULL); now
 * is the clock for the AGE and EXEC TIME columns. */
void ts__kctl_table_add(struct ts__kctl_table *t, enum ts__kctl_kind kind, const cJSON *obj,
                        const cJSON *lq_cq, const cJSON *positions, ts_time now);

/* Appends a row of given cells (ncols of them, NAMESPACE aside: ns is
 * its cell when the table has it).  Cells are copied. */
void ts__kctl_table_add_row(struct ts__kctl_table *t, const char *ns, const char *const *cells);

/* Prints the header and rows (nothing when there are no rows, as kubectl's
 * table printer). */
void ts__kctl_table_print(const struct ts__kctl_table *t, FILE *out);

/* The headers of kueuectl's table for a kind; *n receives the count. */
const char *const *ts__kctl_headers(enum ts__kctl_kind kind, size_t *n);

/* Kueue's workload.Status(): "finished", "admitted", "quotaReserved" or
 * "pending", from the conditions.  Borrowed static string. */
const char *ts__kctl_wl_status(const cJSON *wl);

/* Whether a ClusterQueue's Active condition is True. */
int ts__kctl_cq_active(const cJSON *cq);

/* ---- pure: specs and objects (kueuectl_spec.c) ---- */

/* Parses --node-taints items (KEY[=VALUE]:EFFECT) into a JSON array of
 * corev1.Taint, with kueuectl's messages (in err, replacing what it held;
 * the same for the two parsers below).  Returns 0 or TS_EINVAL.
 * Ownership: caller deletes *out. */
int ts__kctl_parse_taints(const char *const *items, size_t n, cJSON **out, struct ts_buf *err);

/* Parses --tolerations items (KEY[=VALUE][:EFFECT] or :EFFECT) into a JSON
 * array of corev1.Toleration.  Returns 0 or TS_EINVAL.
 * Ownership: caller deletes *out. */
int ts__kctl_parse_tolerations(const char *const *items, size_t n, cJSON **out, struct ts_buf *err);

/* Parses the values of a pflag stringToString flag such as --node-labels
 * ("k=v,k2=v2", repeated flags merge) into a JSON object; flag names it in
 * the messages.  Returns 0 or TS_EINVAL.  Ownership: caller deletes *out. */
int ts__kctl_parse_labels(const char *const *items, size_t n, const char *flag, cJSON **out,
                          struct ts_buf *err);

/* The objects `create` sends, shaped as kueuectl's typed Go objects
 * serialise (LocalQueue with its zero status counters).  The arrays and
 * object passed to resourceflavor are consumed (NULL: absent).
 * Ownership: caller deletes the result. */
cJSON *ts__kctl_new_localqueue(const char *name, const char *ns, const char *cq);
cJSON *ts__kctl_new_resourceflavor(const char *name, cJSON *labels, cJSON *taints,
                                   cJSON *tolerations);

/* ---- pure: create clusterqueue (kueuectl_cq.c) ---- */

/* What create clusterqueue was given; NULL strings: the flag was not
 * given (kueuectl's defaults apply), "" given empty (the field is left
 * out).  The quota arrays hold the flags' raw values. */
struct ts__kctl_cq_opts {
    const char *name, *cohort, *queuing_strategy, *reclaim, *within_cq;
    const char *const *ns_selector, *const *nominal, *const *borrowing, *const *lending;
    size_t n_ns_selector, n_nominal, n_borrowing, n_lending;
};

/* The ClusterQueue kueuectl sends, in its Go field order, or TS_EINVAL
 * with kueuectl's message in err ("invalid resources specification",
 * "invalid resource quota", "invalid flavor", "invalid resource group",
 * or pflag's for --namespace-selector).
 * Ownership: caller deletes *out. */
int ts__kctl_new_clusterqueue(const struct ts__kctl_cq_opts *o, cJSON **out, struct ts_buf *err);

/* ---- pure: list pods (kueuectl_pods.c) ---- */

/* The label selector of the pods of a --for TYPE/NAME object (jobframework
 * PodLabelSelector of its kind) into sel; obj is the object.  Returns 0,
 * or -1 when the kind has none ("unsupported kind"). */
int ts__kctl_pod_selector(const char *kind, const cJSON *obj, char *sel, size_t len);

/* The row kubectl's pod printer gives a Pod: READY, STATUS, RESTARTS
 * (and, wide, IP, NODE, NOMINATED NODE, READINESS GATES) into the cells
 * (each at least 64 bytes); now is the clock for "(5m ago)". */
void ts__kctl_pod_columns(const cJSON *pod, ts_time now, int wide, char cells[][64]);

/* ---- delete workload (kueuectl_delete.c) ---- */

/* The plural resource kubectl guesses for a kind (UnsafeGuessKindToResource:
 * lower-cased, "s" added; "y" -> "ies", "s"/"x"/"ch"/"sh" -> +"es").
 * Writes into buf and returns it. */
const char *ts__kctl_guess_resource(const char *kind, char *buf, size_t len);

/* The confirmation kueuectl asks before deleting the owners of named
 * Workloads (generateConfirmationMessage): "" when none has an owner.
 * wls is an array of Workloads, owners a parallel array of arrays of
 * "jobs.batch/NAME" strings.  Ownership: caller frees the result. */
char *ts__kctl_delete_prompt(const cJSON *wls, const cJSON *owners);

/* ---- completion (kueuectl_complete.c) ---- */

/* cobra's hidden __complete: the candidates for the last word of args
 * (after the program name) and the ":<directive>" line on out.  Names of
 * queues and workloads come from the server through k when it is not
 * NULL.  Returns 0. */
int ts__kctl_complete(struct ts__kctl *k, int argc, char **argv, int descriptions);

/* `completion bash|zsh`: the shell script.  Returns 0 or 1 (reported). */
int ts__kctl_completion_script(struct ts__kctl *k, const char *shell);

#endif
