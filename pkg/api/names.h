/*
 * names.h - Kubernetes name and label validation (apimachinery
 * validation.IsDNS1123Subdomain, IsDNS1123Label, IsQualifiedName,
 * IsValidLabelValue) with Kubernetes' own messages.
 *
 * Each check appends field errors under `path` for `value` and returns the
 * number of problems found (0 = valid).
 */
#ifndef TS_API_NAMES_H
#define TS_API_NAMES_H

#include "api/field.h"

/* At most 253 chars of [a-z0-9.-], dot-separated DNS labels. */
int ts_names_dns1123_subdomain(const char *value, const char *path, struct ts_field_errors *errs);
/* At most 63 chars, [a-z0-9]([-a-z0-9]*[a-z0-9])?. */
int ts_names_dns1123_label(const char *value, const char *path, struct ts_field_errors *errs);
/* A label key / qualified name: optional DNS-subdomain prefix and '/',
 * then a name of at most 63 chars of [A-Za-z0-9_.-] starting and ending
 * alphanumeric. */
int ts_names_qualified(const char *value, const char *path, struct ts_field_errors *errs);
/* A label value: empty, or at most 63 chars like the name part above. */
int ts_names_label_value(const char *value, const char *path, struct ts_field_errors *errs);

/* Boolean forms, no messages. */
int ts_names_is_dns1123_subdomain(const char *value);
int ts_names_is_dns1123_label(const char *value);
int ts_names_is_qualified(const char *value);
int ts_names_is_label_value(const char *value);

#endif
