/*
 * crdcheck.h - what kube-apiserver checks of a custom resource before any
 * validating webhook sees it, from CustomResourceDefinitions read from a
 * directory (crds/): the namespace of a cluster-scoped object dropped,
 * unknown fields pruned, the schema's defaults applied, then ObjectMeta,
 * the OpenAPI schema and the CEL rules (x-kubernetes-validations).
 *
 * Ownership: ts_cli_crds_load() returns a set the caller frees with
 * ts_cli_crds_free(); objects passed in are borrowed.
 */
#ifndef TS_CLI_CRDCHECK_H
#define TS_CLI_CRDCHECK_H

#include <cJSON.h>

#include "api/field.h"
#include "util/err.h"

struct ts_cli_crds;

/* Reads every CustomResourceDefinition in the *.yaml files of dir.
 * NULL with a message on err when dir cannot be read, a file does not
 * parse, or no file holds a CustomResourceDefinition. */
struct ts_cli_crds *ts_cli_crds_load(const char *dir, struct ts_err *err);
void ts_cli_crds_free(struct ts_cli_crds *c);

/* Applies the steps above to obj (changed in place: namespace, pruning,
 * defaults), as on create, appending problems to errs.  Returns 0, or -1
 * when c has no schema for obj's apiVersion and kind (obj untouched). */
int ts_cli_crds_check(const struct ts_cli_crds *c, cJSON *obj, struct ts_field_errors *errs);

/* The same on UPDATE of old (the stored object) to obj, both changed in
 * place (namespace, pruning, defaults, as the API server reads them):
 * first the custom resource strategy's PrepareForUpdate where the version
 * serves /status (with status set, an update of /status: obj becomes old
 * with obj's status; else obj keeps old's status), then ObjectMeta, the
 * schema (of the status alone for /status) and the CEL rules with old,
 * transition rules (oldSelf) included.  Not modelled: ratcheting of
 * schema errors on values unchanged from old (an old object that passes
 * the schema makes no difference).  Returns 0, -1 when c has no schema
 * for obj, or TS_ENOTFOUND for status on a version without /status. */
int ts_cli_crds_check_update(const struct ts_cli_crds *c, cJSON *obj, cJSON *old, int status,
                             struct ts_field_errors *errs);

#endif
