/*
 * meta_validate.h - the ObjectMeta rules kube-apiserver applies to every
 * object it is asked to store (apimachinery pkg/api/validation/objectmeta.go
 * ValidateObjectMetaAccessor), with its messages.  Pure.
 */
#ifndef TS_API_META_VALIDATE_H
#define TS_API_META_VALIDATE_H

#include <cJSON.h>

#include "api/field.h"

/* The most bytes of annotation keys and values together. */
#define TS_META_ANNOTATIONS_MAX 262144

/* How metadata.name is checked: most kinds want a DNS-1123 subdomain,
 * Namespaces a DNS-1123 label, a few kinds (ConfigMap, Secret, Event) only
 * that it is there. */
enum ts_meta_name_rule {
    TS_META_NAME_SUBDOMAIN = 0,
    TS_META_NAME_LABEL,
    TS_META_NAME_PRESENT,
};

/* Appends to errs what is wrong with obj's metadata: name (required, then
 * the rule), namespace (required and a DNS-1123 label on a namespaced
 * kind, forbidden on a cluster-scoped one), generation (not negative),
 * label keys and values, annotation keys (case-insensitive qualified
 * names) and their total size, finalizer names.  obj is borrowed. */
void ts_meta_validate(const cJSON *obj, enum ts_meta_name_rule rule, int namespaced,
                      struct ts_field_errors *errs);

#endif
