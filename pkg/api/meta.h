/*
 * meta.h - ObjectMeta, OwnerReference and Condition (metav1), shared by
 * every kind.
 *
 * Ownership: each struct owns its strings and containers; release with its
 * _release() function (which leaves it re-initialised).  Decoders append
 * problems to the decoder's field error list and never stop early.
 */
#ifndef TS_API_META_H
#define TS_API_META_H

#include <cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "api/dec.h"
#include "api/opt.h"
#include "util/strlist.h"
#include "util/strmap.h"
#include "util/time.h"

struct ts_owner_ref {
    char *api_version;
    char *kind;
    char *name;
    char *uid;
    struct ts_opt_bool controller;
    struct ts_opt_bool block_owner_deletion;
};

struct ts_object_meta {
    char *name;
    char *generate_name;
    char *namespace_; /* "namespace" is not a keyword in C, but is in C++ headers */
    char *uid;
    char *resource_version;
    int64_t generation;
    ts_time creation_timestamp;
    ts_time deletion_timestamp;
    struct ts_opt_i64 deletion_grace_period_seconds;
    struct ts_strmap labels;
    struct ts_strmap annotations;
    struct ts_owner_ref *owner_refs;
    size_t n_owner_refs;
    struct ts_strlist finalizers;
};

void ts_object_meta_init(struct ts_object_meta *m);
void ts_object_meta_release(struct ts_object_meta *m);
void ts_object_meta_copy(struct ts_object_meta *dst, const struct ts_object_meta *src);
/* Decodes obj["metadata"] (the decoder's path gets "metadata"). */
void ts_object_meta_decode(struct ts_dec *d, const cJSON *obj, struct ts_object_meta *m);
/* Adds "metadata" to obj. */
void ts_object_meta_encode(const struct ts_object_meta *m, cJSON *obj);
/* The controller owner reference, or NULL. Borrowed. */
const struct ts_owner_ref *ts_object_meta_controller(const struct ts_object_meta *m);

/* A metav1.Status (kind Status, apiVersion v1): status "Success" below
 * code 400, else "Failure"; reason and msg are left out when NULL;
 * details (may be NULL) is consumed.  Ownership: caller cJSON_Delete()s. */
cJSON *ts_status_new(int code, const char *reason, const char *msg, cJSON *details);

/* A metav1.APIGroup's fields {name, versions, preferredVersion} for group
 * with versions[0..n) in preference order (the caller adds kind and
 * apiVersion when it stands alone).  Ownership: caller cJSON_Delete()s. */
cJSON *ts_apigroup_new(const char *group, const char *const *versions, size_t n);

/* metav1.Condition. status is "True", "False" or "Unknown". */
struct ts_condition {
    char *type;
    char *status;
    char *reason;
    char *message;
    ts_time last_transition_time;
    int64_t observed_generation;
};

struct ts_conditions {
    struct ts_condition *items;
    size_t n;
    size_t cap;
};

void ts_conditions_init(struct ts_conditions *c);
void ts_conditions_release(struct ts_conditions *c);
void ts_conditions_copy(struct ts_conditions *dst, const struct ts_conditions *src);
/* The condition of `type`, or NULL.  Borrowed until the list changes. */
const struct ts_condition *ts_conditions_find(const struct ts_conditions *c, const char *type);
/* 1 when the condition exists with status "True". */
int ts_conditions_is_true(const struct ts_conditions *c, const char *type);
/* meta.SetStatusCondition: inserts or updates `type`; lastTransitionTime
 * changes (to now) only when the status changes.  Returns 1 when anything
 * changed.  Strings are copied. */
int ts_conditions_set(struct ts_conditions *c, const char *type, const char *status,
                      const char *reason, const char *message, int64_t observed_generation,
                      ts_time now);
/* Removes `type`; returns 1 if it was present. */
int ts_conditions_remove(struct ts_conditions *c, const char *type);

void ts_conditions_decode(struct ts_dec *d, const cJSON *obj, const char *key,
                          struct ts_conditions *c);
void ts_conditions_encode(const struct ts_conditions *c, cJSON *obj, const char *key);

#endif
