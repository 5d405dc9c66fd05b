/*
 * get.h - `turnstilectl get <resource> [NAME] [-A | -n NS] [-l SELECTOR]
 * [-o wide|name|json|yaml] [--kubeconfig F] [--context C]`: lists objects
 * from a cluster through pkg/kube with the user's kubeconfig, printed as
 * kubectl prints them (NAMESPACE with -A, NAME, the Kueue printer columns
 * for workloads, clusterqueues and localqueues, AGE).
 *
 * Shell code: reads the kubeconfig, talks to the API server, writes to
 * the given streams.  Thread rule: single-threaded.
 */
#ifndef TS_CLI_GET_H
#define TS_CLI_GET_H

#include <stdio.h>

/* Runs `get` with argv after "get".  Returns the exit code: 0, 1 (the
 * API refused or could not be reached; the reason is on err), 2 (usage). */
int ts_cli_get(int argc, char **argv, FILE *out, FILE *err);

/* Formats an age the way kubectl's duration.HumanDuration does ("45s",
 * "3m20s", "5h", "12d", "2y30d") into buf; returns buf. */
const char *ts_cli_human_duration(long long seconds, char *buf, size_t len);

#endif
