/*
 * explain.h - `turnstilectl explain`: where a workload is in line, why it
 * waits (per flavor: requested, available now, the most it could ever
 * get) and the smallest change that would admit it now.  The state comes
 * from YAML files (-f) — a cluster's live objects, dumped with
 * `kubectl get ... -o yaml`, give the same answer the controller's engine
 * would.
 */
#ifndef TS_CLI_EXPLAIN_H
#define TS_CLI_EXPLAIN_H

#include <stdio.h>

/* Runs `turnstilectl explain` with argv after "explain".  Returns the
 * process exit code (0, 1 not found or input errors, 2 usage). */
int ts_cli_explain(int argc, char **argv, FILE *out, FILE *err);

#endif
