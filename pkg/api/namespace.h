/*
 * namespace.h - core/v1 Namespace, metadata only: its labels are what a
 * ClusterQueue's namespaceSelector matches, and the API server adds
 * kubernetes.io/metadata.name=<name> to every namespace.
 *
 * Ownership: the struct owns its metadata; release with
 * ts_namespace_release().  Thread rule: none.
 */
#ifndef TS_API_NAMESPACE_H
#define TS_API_NAMESPACE_H

#include <cJSON.h>

#include "api/dec.h"
#include "api/field.h"
#include "api/meta.h"

#define TS_NAMESPACE_KIND       "Namespace"
#define TS_NAMESPACE_NAME_LABEL "kubernetes.io/metadata.name"

struct ts_namespace {
    struct ts_object_meta meta;
};

/* An empty object (defaults applied) / free everything ns owns and
 * re-initialise it. */
void ts_namespace_init(struct ts_namespace *ns);
void ts_namespace_release(struct ts_namespace *ns);

/* Decodes v1 Namespace JSON (metadata; spec and status are ignored).
 * Ownership: obj is borrowed; ns owns copies (ts_namespace_release()). */
void ts_namespace_decode(struct ts_dec *d, const cJSON *obj, struct ts_namespace *ns);
/* {"apiVersion":"v1","kind":"Namespace","metadata":...}.  Ownership:
 * caller deletes the result with cJSON_Delete(). */
cJSON *ts_namespace_encode(const struct ts_namespace *ns);

/* Sets the kubernetes.io/metadata.name label to the name, as
 * kube-apiserver does on create and update (no-op without a name). */
void ts_namespace_default(struct ts_namespace *ns);

/* metadata.name must be a DNS-1123 label (Kubernetes'
 * ValidateNamespaceName). */
void ts_namespace_validate(const struct ts_namespace *ns, struct ts_field_errors *errs);

#endif
