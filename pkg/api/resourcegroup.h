/*
 * resourcegroup.h - the quota types ClusterQueue and Cohort share
 * (ResourceGroup, FlavorQuotas, ResourceQuota), FairSharing and its
 * status, the status usage lists (FlavorUsage / ResourceUsage) and the
 * StopPolicy enum, in their kueue.x-k8s.io/v1beta2 shape, plus the few
 * CRD-schema helpers the queue kinds share (ts__queue_*).
 *
 * Validation is split the way the API server runs it: *_validate_schema()
 * holds the CRD rules (minItems/maxItems, patterns, listMap keys, CEL);
 * *_validate() holds Kueue's webhook rules (pkg/webhooks/common.go).  The
 * kinds run the schema first and the webhook only when the schema passed,
 * as kube-apiserver does (a schema failure never reaches the webhook).
 *
 * Ownership: every struct owns its strings and arrays; _release() frees
 * them and leaves the struct re-initialised.  Decoders fill initialised
 * structs and append problems to the decoder's error list.
 * Thread rule: none (plain values).
 */
#ifndef TS_API_RESOURCEGROUP_H
#define TS_API_RESOURCEGROUP_H

#include <cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "api/dec.h"
#include "api/field.h"
#include "api/meta.h"
#include "api/opt.h"
#include "resource/quantity.h"
#include "resource/resource_list.h"
#include "util/strlist.h"
#include "util/time.h"

/* Kueue's caps (clusterqueue_types.go markers and webhook totals). */
#define TS_RG_MAX_GROUPS             16
#define TS_RG_MAX_COVERED            64
#define TS_RG_MAX_FLAVORS            64
#define TS_RG_MAX_RESOURCES          64
#define TS_RG_MAX_TOTAL_FLAVORS      256
#define TS_RG_MAX_TOTAL_COVERED      256
#define TS_RG_MAX_GROUP_COMBINATIONS 512
/* maxItems of status flavorsReservation / flavorsUsage. */
#define TS_USAGE_MAX_FLAVORS 64

/* --- ResourceGroup ------------------------------------------------------ */

struct ts_resource_quota {
    char *name;
    struct ts_quantity nominal_quota;
    struct ts_opt_quantity borrowing_limit; /* unset = unlimited borrowing */
    struct ts_opt_quantity lending_limit;   /* unset = lend everything */
};

struct ts_flavor_quotas {
    char *name;
    struct ts_resource_quota *resources;
    size_t n_resources;
};

struct ts_resource_group {
    struct ts_strlist covered_resources;
    struct ts_flavor_quotas *flavors;
    size_t n_flavors;
};

struct ts_resource_groups {
    struct ts_resource_group *items;
    size_t n;
};

/* What the webhook rules depend on (validationConfig in Kueue). */
struct ts_quota_rules {
    int has_parent;            /* CQ: cohortName set; Cohort: parentName set */
    const char *no_parent_msg; /* "must be nil when cohort is empty" */
    int lending_le_nominal;    /* CQ only: lendingLimit <= nominalQuota */
    int limit_totals;          /* CQ only: flavors, covered resources and
                                * flavor-resource pairs counted across groups */
};

#define TS_RG_NO_COHORT_MSG "must be nil when cohort is empty"
#define TS_RG_NO_PARENT_MSG "must be nil when parent is empty"

/* Empty list / free every group and leave g empty. */
void ts_resource_groups_init(struct ts_resource_groups *g);
void ts_resource_groups_release(struct ts_resource_groups *g);

/* Decodes obj[key] (absent = no groups).  Missing required members
 * (coveredResources, flavors, name, resources, nominalQuota) are reported
 * as "Required value".  Ownership: g owns copies (ts_resource_groups_release()). */
void ts_resource_groups_decode(struct ts_dec *d, const cJSON *obj, const char *key,
                               struct ts_resource_groups *g);
/* Adds obj[key] unless there are no groups. */
void ts_resource_groups_encode(const struct ts_resource_groups *g, cJSON *obj, const char *key);

/* CRD rules under `path` ("spec.resourceGroups"): at most 16 groups,
 * coveredResources/flavors/resources 1..64, flavor names are
 * ResourceFlavorReferences, listMap keys unique, and the CEL rule "flavors
 * must have the same number of resources as the coveredResources". */
void ts_resource_groups_validate_schema(const struct ts_resource_groups *g, const char *path,
                                        struct ts_field_errors *errs);
/* Kueue's webhook rules: resource names are qualified names, unique across
 * groups; flavor names unique across groups; resources[i].name ==
 * coveredResources[i]; quantities >= 0; limits only with a parent; lending
 * <= nominal when rules->lending_le_nominal; the 256/256/512 totals. */
void ts_resource_groups_validate(const struct ts_resource_groups *g,
                                 const struct ts_quota_rules *rules, const char *path,
                                 struct ts_field_errors *errs);
/* 1 when any resource of any flavor has a borrowingLimit. */
int ts_resource_groups_has_borrowing_limit(const struct ts_resource_groups *g);

/* The flavor called `name` and (when group is not NULL) its group index,
 * or NULL.  Borrowed. */
const struct ts_flavor_quotas *ts_resource_groups_find_flavor(const struct ts_resource_groups *g,
                                                              const char *name, size_t *group);
/* Index of the group covering `resource`, or -1. */
long ts_resource_groups_group_of(const struct ts_resource_groups *g, const char *resource);
/* The quota of `resource` in a flavor, or NULL.  Borrowed. */
const struct ts_resource_quota *ts_flavor_quotas_find(const struct ts_flavor_quotas *f,
                                                      const char *resource);

/* --- FairSharing -------------------------------------------------------- */

struct ts_fair_sharing {
    int set;                   /* spec.fairSharing present */
    struct ts_quantity weight; /* defaulted to 1 when fairSharing is present */
};

/* Absent fairSharing (the effective weight is then 1). */
void ts_fair_sharing_init(struct ts_fair_sharing *fs);
/* Decodes obj[key]; a present object without weight gets weight 1.
 * No memory is kept (a plain value). */
void ts_fair_sharing_decode(struct ts_dec *d, const cJSON *obj, const char *key,
                            struct ts_fair_sharing *fs);
/* Adds obj[key] = {weight} when fs->set. */
void ts_fair_sharing_encode(const struct ts_fair_sharing *fs, cJSON *obj, const char *key);
/* Webhook rule under `path` ("spec.fairSharing"): weight >= 0 ("must be
 * greater than or equal to 0") and not in (0, 1n] ("When not 0, weight
 * must be > 10e-9"). */
void ts_fair_sharing_validate(const struct ts_fair_sharing *fs, const char *path,
                              struct ts_field_errors *errs);
/* The effective weight: the set weight, or 1 when fairSharing is absent. */
struct ts_quantity ts_fair_sharing_weight(const struct ts_fair_sharing *fs);

struct ts_fair_sharing_status {
    int set;
    int64_t weighted_share;
    int has_admission; /* admissionFairSharingStatus present */
    struct ts_resource_list consumed_resources;
    ts_time last_update;
};

/* Absent status / free consumedResources and leave s absent. */
void ts_fair_sharing_status_init(struct ts_fair_sharing_status *s);
void ts_fair_sharing_status_release(struct ts_fair_sharing_status *s);
/* Decodes obj[key].  Ownership: s owns copies (ts_fair_sharing_status_release()). */
void ts_fair_sharing_status_decode(struct ts_dec *d, const cJSON *obj, const char *key,
                                   struct ts_fair_sharing_status *s);
/* Adds obj[key] when s->set (weightedShare always, as Go writes it). */
void ts_fair_sharing_status_encode(const struct ts_fair_sharing_status *s, cJSON *obj,
                                   const char *key);

/* --- status usage lists -------------------------------------------------- */

struct ts_resource_usage {
    char *name;
    struct ts_quantity total;
    struct ts_quantity borrowed; /* ClusterQueue only; always 0 for LocalQueue */
};

struct ts_flavor_usage {
    char *name;
    struct ts_resource_usage *resources;
    size_t n_resources;
};

struct ts_flavor_usages {
    struct ts_flavor_usage *items;
    size_t n;
};

enum ts_usage_flags {
    TS_USAGE_TOTAL_ONLY = 0,
    TS_USAGE_WITH_BORROWED = 1 << 0, /* ClusterQueue's ResourceUsage */
};

/* Empty list / free every entry and leave u empty. */
void ts_flavor_usages_init(struct ts_flavor_usages *u);
void ts_flavor_usages_release(struct ts_flavor_usages *u);
/* Decodes obj[key] ([{name, resources[{name, total, borrowed?}]}]).
 * Ownership: u owns copies (ts_flavor_usages_release()). */
void ts_flavor_usages_decode(struct ts_dec *d, const cJSON *obj, const char *key,
                             struct ts_flavor_usages *u);
/* Adds obj[key] unless empty.  total (and borrowed with
 * TS_USAGE_WITH_BORROWED) are always written, as Go writes a Quantity. */
void ts_flavor_usages_encode(const struct ts_flavor_usages *u, cJSON *obj, const char *key,
                             unsigned flags);
/* CRD rule: at most 64 flavors and 64 resources per flavor. */
void ts_flavor_usages_validate_schema(const struct ts_flavor_usages *u, const char *path,
                                      struct ts_field_errors *errs);
/* Finds or appends flavor/resource and returns its entry (total and
 * borrowed 0 when new), for status writers.  Borrowed until the next
 * change of u. */
struct ts_resource_usage *ts_flavor_usages_at(struct ts_flavor_usages *u, const char *flavor,
                                              const char *resource);

/* --- StopPolicy ----------------------------------------------------------- */

enum ts_stop_policy {
    TS_STOP_NONE = 0,
    TS_STOP_HOLD,
    TS_STOP_HOLD_AND_DRAIN,
};

/* "None", "Hold", "HoldAndDrain".  Static string. */
const char *ts_stop_policy_name(enum ts_stop_policy p);
/* Decodes obj[key] into *p (left untouched when absent). */
void ts_stop_policy_decode(struct ts_dec *d, const cJSON *obj, const char *key,
                           enum ts_stop_policy *p);

/* --- helpers shared by the kind modules (internal) ------------------------ */

/* Decodes one array element; `item` points at the element's storage. */
typedef void (*ts__queue_elem_fn)(struct ts_dec *d, const cJSON *e, void *item);

/* Decodes obj[key], an array of objects, into a calloc'd array of `elem`
 * byte items, calling fn for each with the path at key[i].  Non-objects are
 * reported and left zeroed.  When absent: *out = NULL, returns 0, and
 * "Required value" is reported if `required`.  Returns the item count.
 * Ownership: the caller frees *out (after releasing the items). */
size_t ts__queue_dec_array(struct ts_dec *d, const cJSON *obj, const char *key, int required,
                           size_t elem, ts__queue_elem_fn fn, void **out);
/* Decodes a required string: reports "Required value" when absent. */
void ts__queue_dec_required_string(struct ts_dec *d, const cJSON *obj, const char *key, char **out);
/* Decodes an enum string into *out (untouched when absent), mapping table
 * index i to i + offset.  Returns ts_dec_enum()'s 1 / 0 (absent) / -1. */
int ts__queue_dec_enum(struct ts_dec *d, const cJSON *obj, const char *key,
                       const char *const *table, int offset, int *out);
/* Reports a kind/apiVersion mismatch when obj carries them. */
void ts__queue_dec_check_type(struct ts_dec *d, const cJSON *obj, const char *api_version,
                              const char *kind);
/* A new {"apiVersion","kind"} object.  Ownership: caller deletes. */
cJSON *ts__queue_new_object(const char *api_version, const char *kind);

/* CRD pattern + maxLength of a *Reference (DNS-1123 subdomain, <= 253):
 * "Invalid value: "X": <path> in body should match '<pattern>'". */
void ts__queue_check_ref(const char *v, const char *path, struct ts_field_errors *errs);
/* minItems/maxItems: "Invalid value: N: <path> in body should have at
 * least MIN items" / "Too many: N: must have at most MAX items". */
void ts__queue_check_items(size_t n, size_t min, size_t max, const char *path,
                           struct ts_field_errors *errs);
/* A CEL rule failure: "<path>: Invalid value: <msg>" for a rule on an
 * object or array type, "<path>: Invalid value: "<type>": <msg>" otherwise. */
void ts__queue_cel(struct ts_field_errors *errs, const char *path, const char *type,
                   const char *msg);
/* metadata.name: required unless generateName is set; a DNS-1123
 * subdomain, or a DNS-1123 label when `label` is set. */
void ts__queue_check_name(const struct ts_object_meta *m, int label, struct ts_field_errors *errs);
/* Appends an error for a negative quantity at path ("must be greater than
 * or equal to 0"). */
void ts__queue_check_nonneg(const struct ts_quantity *q, const char *path,
                            struct ts_field_errors *errs);

#endif
