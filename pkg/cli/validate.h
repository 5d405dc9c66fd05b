/*
 * validate.h - `turnstilectl validate -f FILE [--crds DIR] [--old FILE
 * [--subresource status]] [-o text|json]`:
 * every Kueue object of FILE ("-": standard input) through what the API
 * server and Turnstile's webhook do to it on CREATE.  With --crds, first
 * the API server's own checks from the CustomResourceDefinitions in DIR
 * (cli/crdcheck.h: ObjectMeta, schema, CEL rules), which refuse before any
 * webhook is asked; then the mutating webhook's defaults
 * (api/kueue_default.h, as the webhook runs it), decoding with the CRD's
 * defaults and schema rules, and the kind's create validation (ts_object_validate), the same
 * functions the webhook server runs.  A namespaced object without a
 * namespace gets "default", as kubectl gives it; a cluster-scoped one loses
 * its namespace, as kube-apiserver drops it.
 *
 * With --old FILE, an UPDATE instead: the i-th document of FILE is the
 * stored object the i-th document of -f replaces (--subresource status:
 * an update of /status); see ts_cli_validate_update_doc().
 *
 * Output, one line per document: "Kind/name: accepted" or
 * "Kind/name: refused: MESSAGE"; with -o json one JSON object per line,
 *   {"apiVersion","kind","name","namespace","allowed",
 *    "errors":[{"type":"FieldValueInvalid","field":"spec.x","message":"spec.x: ..."}],
 *    "object": the defaulted object in v1beta2}
 * and {"error": "..."} for a document that is not a Kueue object (the
 * format of test/oracle's kueue-api-oracle).
 *
 * Shell code: reads files, writes to the given streams.
 */
#ifndef TS_CLI_VALIDATE_H
#define TS_CLI_VALIDATE_H

#include <cJSON.h>
#include <stdio.h>

#include "cli/crdcheck.h"

/* Runs `validate` with argv after "validate".  Returns the exit code: 0
 * (every document accepted), 1 (one refused, or a file unreadable: the
 * reason on err), 2 (usage). */
int ts_cli_validate(int argc, char **argv, FILE *out, FILE *err);

/* The JSON result of one document (the -o json line); crds NULL skips the
 * API server's checks.  partial_admission is the feature gate the Workload
 * webhook reads.  Ownership: doc and crds are borrowed; the caller frees
 * the result with cJSON_Delete(). */
cJSON *ts_cli_validate_doc(const cJSON *doc, const struct ts_cli_crds *crds, int partial_admission);

/* The JSON result of an UPDATE of old_doc (the stored object) to doc, in
 * the same format: with crds, the API server's update checks
 * (ts_cli_crds_check_update(): the stored status kept, or with status
 * set, an update of /status that keeps everything else; CEL transition
 * rules); then, if they passed, the validating webhook's update rules
 * (ts_object_validate_update(); on /status for Workloads only, the one
 * kind whose webhook serves it).  No mutating webhook runs: Turnstile's,
 * as Kueue's, serve CREATE only.  Without crds the objects are validated
 * as given.  Ownership: doc, old_doc and crds are borrowed; the caller
 * frees the result with cJSON_Delete(). */
cJSON *ts_cli_validate_update_doc(const cJSON *doc, const cJSON *old_doc,
                                  const struct ts_cli_crds *crds, int status);

#endif
