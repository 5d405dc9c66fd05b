/*
 * whatif.h - `turnstilectl what-if`: the current state (YAML files, e.g.
 * a cluster's objects dumped with kubectl) is settled by the engine, then
 * the proposed objects (a new quota, a new job, a cohort change) are
 * applied to a copy in memory and the engine runs again; the command lists
 * every workload whose outcome changes: newly admitted, preempted, or still
 * pending with a new reason.  Nothing is written anywhere.
 */
#ifndef TS_CLI_WHATIF_H
#define TS_CLI_WHATIF_H

#include <stdio.h>

/* Runs `turnstilectl what-if` with argv after "what-if".  Returns the exit
 * code (0, 1 input errors, 2 usage). */
int ts_cli_whatif(int argc, char **argv, FILE *out, FILE *err);

#endif
