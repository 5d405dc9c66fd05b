/*
 * visibility.h - Kueue's on-demand visibility API (group
 * visibility.kueue.x-k8s.io, versions v1beta1 and v1beta2): the request
 * paths and options it serves, its discovery documents and the
 * PendingWorkloadsSummary it answers with.
 *
 *   GET /apis/visibility.kueue.x-k8s.io/V/clusterqueues/CQ/pendingworkloads
 *   GET /apis/visibility.kueue.x-k8s.io/V/namespaces/NS/localqueues/LQ/pendingworkloads
 *       ?limit=N (default 1000, at most 100000, negative: none) &offset=N
 *
 * The positions come from the engine (engine/explain.h); this file only
 * speaks the wire format, so the controller and tests share it.
 *
 * Pure.  Ownership: returned cJSON trees belong to the caller.
 */
#ifndef TS_API_VISIBILITY_H
#define TS_API_VISIBILITY_H

#include <cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"
#include "util/time.h"

#define TS_VISIBILITY_GROUP         "visibility.kueue.x-k8s.io"
#define TS_VISIBILITY_LIMIT_DEFAULT 1000
#define TS_VISIBILITY_LIMIT_MAX     100000

enum ts_visibility_target {
    TS_VISIBILITY_GROUP_DOC = 1, /* /apis/visibility.kueue.x-k8s.io: APIGroup */
    TS_VISIBILITY_RESOURCES,     /* /apis/visibility.kueue.x-k8s.io/V: APIResourceList */
    TS_VISIBILITY_CQ_PENDING,
    TS_VISIBILITY_LQ_PENDING,
};

struct ts_visibility_req {
    enum ts_visibility_target target;
    char version[16];
    char cluster_queue[254];
    char ns[64];
    char local_queue[254];
    size_t offset;
    size_t limit; /* already defaulted and capped; 0 = no items */
};

/* Parses a request path (without the query) and the raw `limit` and
 * `offset` query values (NULL when absent).  Returns 0, TS_ENOTFOUND (not
 * a path this API serves) or TS_EINVAL (a bad option; the message names
 * it, as a 400 would). */
int ts_visibility_parse(const char *path, const char *limit, const char *offset,
                        struct ts_visibility_req *out, struct ts_err *err);

/* The APIGroup document (preferred version v1beta2). */
cJSON *ts_visibility_group_doc(void);
/* The APIResourceList of `version`. */
cJSON *ts_visibility_resources_doc(const char *version);

/* An empty PendingWorkloadsSummary of `version`; add items with
 * ts_visibility_add_item(). */
cJSON *ts_visibility_summary_new(const char *version);

struct ts_visibility_item {
    const char *ns, *name, *local_queue;
    int32_t priority;
    size_t position_in_cq, position_in_lq;
    ts_time created;            /* used when wl_meta has no creationTimestamp */
    const cJSON *owner_refs;    /* the Workload's metadata.ownerReferences, or NULL */
    const char *creation_stamp; /* the Workload's metadata.creationTimestamp, or NULL */
};

/* Appends one PendingWorkload to summary's items (the values are copied). */
void ts_visibility_add_item(cJSON *summary, const struct ts_visibility_item *it);

#endif
