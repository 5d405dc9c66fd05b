/*
 * webhook_kueue.c - Kueue's webhooks for its own kinds (pkg/webhooks/):
 * validation (create and update, incl. workloads/status) through the rules
 * of pkg/api, and the mutating webhooks of ClusterQueue, ResourceFlavor
 * (finalizer kueue.x-k8s.io/resource-in-use on create) and Workload
 * (finalizer, podSets[0].name "main" when a single pod set has none,
 * minCount dropped when partial admission is off).  An object admitted
 * with fields Turnstile does not honour yet gets a warning for each.
 *
 * Objects arrive as v1beta1 or v1beta2; ts_object_decode() converts them,
 * so both path versions share these handlers.  Mutations are made on a
 * copy of the JSON the API server sent and returned as the JSONPatch
 * between the two, so fields Turnstile does not model are never touched.
 */
#include <string.h>

#include "api/kueue_default.h"
#include "api/unhonoured.h"
#include "json/json.h"
#include "util/alloc.h"
#include "webhook/webhook_int.h"

static const char *sget(const cJSON *obj, const char *path)
{
    const char *s = ts_json_get_string(obj, path);

    return s ? s : "";
}

/* Decodes obj as `kind`; on failure or a different kind, denies rs and
 * returns -1. */
static int decode_as(const cJSON *obj, enum ts_kind kind, struct ts_object *o,
                     struct ts_field_errors *errs, struct ts__wh_resp *rs)
{
    struct ts_err err = {0};

    if (ts_object_kind(obj) != kind) {
        ts__wh_deny(rs, 400, "BadRequest", "expected a %s, got apiVersion \"%s\", kind \"%s\"",
                    ts_kind_name(kind), sget(obj, "apiVersion"), sget(obj, "kind"));
        return -1;
    }
    if (ts_object_decode(obj, o, errs, &err) != 0) {
        ts__wh_deny(rs, 400, "BadRequest", "%s", err.msg);
        return -1;
    }
    return 0;
}

/* UPDATE: decode the old object too (its own problems are not the
 * requester's) and run the update rules. */
static void check_update(const struct ts__wh_req *rq, enum ts_kind kind, const struct ts_object *nw,
                         struct ts_field_errors *errs, struct ts__wh_resp *rs)
{
    struct ts_field_errors old_errs = TS_FIELD_ERRORS_INIT;
    struct ts_object old;

    if (decode_as(rq->old_object, kind, &old, &old_errs, rs) == 0) {
        ts_object_validate_update(&old, nw, errs);
        ts_object_release(&old);
    }
    ts_field_errors_release(&old_errs);
}

/* One warning per field the object sets that Turnstile does not honour
 * yet (docs/compatibility.md): accepted, but never silently. */
static void warn_unhonoured(const cJSON *obj, struct ts__wh_resp *rs)
{
    struct ts_strlist paths = TS_STRLIST_INIT;
    struct ts_buf w = TS_BUF_INIT;

    ts_unhonoured_fields(obj, &paths);
    for (size_t i = 0; i < paths.n; i++) {
        ts_buf_reset(&w);
        ts_buf_addf(&w, "%s" TS_UNHONOURED_SUFFIX, paths.items[i]);
        ts_strlist_push(&rs->warnings, w.ptr);
    }
    ts_buf_release(&w);
    ts_strlist_release(&paths);
}

void ts__wh_validate_kueue(const struct ts_webhook *wh, const struct ts__wh_req *rq,
                           enum ts_kind kind, struct ts__wh_resp *rs)
{
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_object nw;

    /* Kueue registers CREATE and UPDATE only; anything else passes. */
    if (!ts__wh_op_is(rq, "CREATE") && !ts__wh_op_is(rq, "UPDATE"))
        return;
    if (decode_as(rq->object, kind, &nw, &errs, rs) != 0) {
        ts_field_errors_release(&errs);
        return;
    }
    if (ts__wh_op_is(rq, "UPDATE"))
        check_update(rq, kind, &nw, &errs, rs);
    else
        ts_object_validate(&nw, &errs);
    if (wh->opts.priority_boost && kind == TS_KIND_WORKLOAD)
        ts_workload_validate_priority_boost(&nw.u.wl, &errs);
    if (rs->allowed)
        ts__wh_deny_errs(rs, &errs);
    if (rs->allowed && !*rq->sub_resource)
        warn_unhonoured(rq->object, rs);
    ts_object_release(&nw);
    ts_field_errors_release(&errs);
}

/* --- mutation ---------------------------------------------------------------- */

void ts__wh_mutate_kueue(const struct ts_webhook *wh, const struct ts__wh_req *rq,
                         enum ts_kind kind, struct ts__wh_resp *rs)
{
    cJSON *obj;

    /* Registered for CREATE only: on UPDATE the controller may be removing
     * the finalizer of an object being deleted. */
    if (!ts__wh_op_is(rq, "CREATE"))
        return;
    if (ts_object_kind(rq->object) != kind) {
        ts__wh_deny(rs, 400, "BadRequest", "expected a %s, got apiVersion \"%s\", kind \"%s\"",
                    ts_kind_name(kind), sget(rq->object, "apiVersion"), sget(rq->object, "kind"));
        return;
    }
    obj = cJSON_Duplicate(rq->object, 1);
    ts_kueue_default(obj, wh->opts.partial_admission);
    ts__wh_set_patch(rs, rq->object, obj);
    cJSON_Delete(obj);
}
