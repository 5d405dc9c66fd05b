/*
 * ssa.h - server-side apply and managedFields (pure: no I/O, no shared
 * state).  Field sets are lists of paths; a path is FieldsV1 tokens
 * ("f:spec", "k:{\"name\":\"a\"}", ".") joined by TS_SSA_SEP.  Lists are
 * atomic unless the schema marks them x-kubernetes-list-type: map (then
 * their items are merged and owned by x-kubernetes-list-map-keys).
 * Tracked: everything but apiVersion, kind and server-owned metadata (of
 * metadata, only labels, annotations, finalizers and ownerReferences);
 * status only through the status subresource.
 *
 * Ownership: returned trees are new (caller deletes); inputs are borrowed.
 */
#ifndef TS_APISERVER_SSA_H
#define TS_APISERVER_SSA_H

#include <cJSON.h>

#include "util/buf.h"
#include "util/strlist.h"

#define TS_SSA_SEP "\x1f"

/* What a write is and who makes it. */
struct ts_ssa_ctx {
    const char *manager;     /* fieldManager */
    const char *api_version; /* "group/version" of the request */
    const char *time;        /* RFC 3339 now */
    const char *subresource; /* "status" or NULL */
    const cJSON *schema;     /* openAPIV3Schema of the version, or NULL */
};

/* One field owned by another manager with a different value. */
struct ts_ssa_conflict {
    char *manager;
    char *who;   /* the other manager as kube-apiserver names it: "name"
                  * [with subresource "s"] [using V (an Update)] */
    char *field; /* ".spec.cohort" as kube-apiserver prints it */
};

struct ts_ssa_conflicts {
    struct ts_ssa_conflict *items;
    size_t n, cap;
};

/* Leaf paths of obj (the tracked part, see above).  Appends to out. */
void ts_ssa_paths(const cJSON *obj, const struct ts_ssa_ctx *c, struct ts_strlist *out);
/* FieldsV1 tree of a path list, and back. */
cJSON *ts_ssa_fieldsv1(const struct ts_strlist *paths);
void ts_ssa_fieldsv1_paths(const cJSON *fields, struct ts_strlist *out);
/* The node at path in obj (borrowed), or NULL. */
const cJSON *ts_ssa_get(const cJSON *obj, const char *path);
/* Removes the node at path; 1 when something was removed. */
int ts_ssa_remove(cJSON *obj, const char *path);

/* Server-side apply of cfg onto live (NULL = create) by c->manager.
 * Without force, fields other managers own with a different value are
 * conflicts: returns 1 and fills cf (nothing else done).  Otherwise
 * returns 0 and *out is the new object with metadata.managedFields
 * updated (forced fields taken over, fields this manager applied before
 * and no longer applies removed unless another manager owns them). */
int ts_ssa_apply(const cJSON *live, const cJSON *cfg, int force, const struct ts_ssa_ctx *c,
                 cJSON **out, struct ts_ssa_conflicts *cf);
/* managedFields bookkeeping for an ordinary write (create, update, patch)
 * by c->manager from old (NULL = create) to obj: the changed fields move
 * to its "Update" entry.  Edits obj's metadata.managedFields. */
void ts_ssa_track(const cJSON *old, cJSON *obj, const struct ts_ssa_ctx *c);
/* "Apply failed with N conflicts: conflict with \"m\": .a, ..." */
void ts_ssa_conflicts_message(const struct ts_ssa_conflicts *cf, struct ts_buf *out);
void ts_ssa_conflicts_release(struct ts_ssa_conflicts *cf);

#endif
