/*
 * cohort.h - the kueue.x-k8s.io Cohort (cluster-scoped, shortName co),
 * internal shape = v1beta2.
 *
 * A Cohort groups ClusterQueues and other Cohorts (spec.parentName; unset =
 * root).  Its resourceGroups are extra quota shared by the subtree;
 * borrowingLimit / lendingLimit bound what the subtree borrows from / lends
 * to its parent, so they are only valid with a parent, and lendingLimit
 * may exceed nominalQuota (unlike a ClusterQueue's).
 *
 * Validation = CRD schema, then (if it passed) the validating webhook
 * (pkg/webhooks/cohort_webhook.go).
 *
 * Ownership: the struct owns everything it points to; release with
 * ts_cohort_release().  Thread rule: none (plain value).
 */
#ifndef TS_API_COHORT_H
#define TS_API_COHORT_H

#include <cJSON.h>

#include "api/dec.h"
#include "api/field.h"
#include "api/meta.h"
#include "api/resourcegroup.h"

#define TS_COHORT_KIND "Cohort"

struct ts_cohort_spec {
    char *parent_name; /* NULL = root */
    struct ts_resource_groups resource_groups;
    struct ts_fair_sharing fair_sharing;
};

struct ts_cohort_status {
    struct ts_fair_sharing_status fair_sharing;
};

struct ts_cohort {
    struct ts_object_meta meta;
    struct ts_cohort_spec spec;
    struct ts_cohort_status status;
};

/* An empty object (defaults applied) / free everything co owns and
 * re-initialise it. */
void ts_cohort_init(struct ts_cohort *co);
void ts_cohort_release(struct ts_cohort *co);

/* Decodes v1beta2 JSON into co (initialised by the caller); fairSharing
 * gets weight 1 when present without one.  Problems are appended to
 * d->errs; co is always left releasable.  Ownership: obj is borrowed; co
 * owns copies of everything decoded (ts_cohort_release()). */
void ts_cohort_decode(struct ts_dec *d, const cJSON *obj, struct ts_cohort *co);
/* v1beta2 JSON with apiVersion and kind.  Ownership: caller deletes the
 * result with cJSON_Delete(). */
cJSON *ts_cohort_encode(const struct ts_cohort *co);

/* Create validation: metadata.name, CRD schema (parentName pattern,
 * resourceGroups limits), then the webhook rules (resource groups with
 * limits only when parentName is set - "must be nil when parent is
 * empty" - and fairSharing.weight).  Appends to errs. */
void ts_cohort_validate(const struct ts_cohort *co, struct ts_field_errors *errs);
/* Update validation: the create rules applied to new_co (Kueue has no
 * update-only rule for Cohorts). */
void ts_cohort_validate_update(const struct ts_cohort *old_co, const struct ts_cohort *new_co,
                               struct ts_field_errors *errs);

#endif
