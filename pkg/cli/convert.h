/*
 * convert.h - `turnstilectl convert --to v1beta1|v1beta2 -f FILE
 * [-o json|yaml]`: every kueue.x-k8s.io object of FILE ("-": standard
 * input) converted by ts_convert_kueue(), the function the conversion
 * webhook and the local API server use.  -o json (the default) prints one
 * compact JSON object per line, {"error": "..."} for a document that
 * cannot be converted; -o yaml prints a YAML stream.
 *
 * Shell code: reads files, writes to the given streams.
 */
#ifndef TS_CLI_CONVERT_H
#define TS_CLI_CONVERT_H

#include <stdio.h>

/* Runs `convert` with argv after "convert".  Returns the exit code: 0,
 * 1 (a document not converted, or a file unreadable: the reason on err),
 * 2 (usage). */
int ts_cli_convert(int argc, char **argv, FILE *out, FILE *err);

#endif
