/*
 * kueuectl.h - `kubectl kueue`: Kueue's kubectl plugin (kueuectl v0.17)
 * answered by turnstilectl when it runs as `kubectl-kueue` (kubectl's
 * plugin discovery finds that name on PATH and runs it with the words
 * after `kubectl kueue`).
 *
 * Commands, flags, columns, ages and messages are kueuectl's
 * (cmd/kueuectl/app in sigs.k8s.io/kueue): `list clusterqueue|localqueue|
 * workload|resourceflavor|pods`, `stop|resume workload|localqueue|
 * clusterqueue NAME`, `create clusterqueue|localqueue|resourceflavor NAME`,
 * `delete workload`, `version`, `completion bash|zsh`, and the verbs
 * get|describe|edit|patch|delete on Kueue's kinds passed to kubectl.  The
 * kubeconfig comes from --kubeconfig, $KUBECONFIG or ~/.kube/config and
 * the namespace from -n or the context, as kubectl's.  Reads and writes
 * go through pkg/kube at kueue.x-k8s.io/v1beta2.
 *
 * Shell code: reads the kubeconfig, talks to the API server, writes to
 * the given streams.  Thread rule: single-threaded.
 */
#ifndef TS_CLI_KUEUECTL_H
#define TS_CLI_KUEUECTL_H

#include <stdio.h>

/* Runs kueuectl with argv after the program name.  Returns the exit code:
 * 0, or 1 with "Error: ..." on err (kueuectl's cobra exit). */
int ts_cli_kueuectl(int argc, char **argv, FILE *out, FILE *err);

/* Whether a program name (argv[0], any directory) asks for kueuectl:
 * 1 for "kubectl-kueue" or "kueuectl", 2 for "kubectl_complete-kueue"
 * (the completion program kubectl runs for a plugin's words), else 0. */
int ts_cli_kueuectl_argv0(const char *argv0);

/* Runs as kubectl_complete-kueue: argv are the plugin's words, the last
 * the one to complete; prints cobra's __complete answer.  Returns 0. */
int ts_cli_kueuectl_complete(int argc, char **argv, FILE *out, FILE *err);

#endif
