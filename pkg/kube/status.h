/*
 * status.h - metav1.Status error bodies decoded into a typed error.
 *
 * Every failed API call answers a Status object (Kubernetes API
 * conventions, "Response Status Kind"):
 *   {"kind":"Status","status":"Failure","message":…,"reason":"NotFound",
 *    "details":{"name":…,"group":…,"kind":…,"causes":[{reason,message,
 *    field}],"retryAfterSeconds":N},"code":404}
 * ts_kube_status_decode() reads it (or, for a body that is not a Status,
 * builds one from the HTTP code as client-go's newUnstructuredResponseError
 * does) and ts_kube_status_errno() maps it to a TS_E* code; the reason is
 * kept as an enum so callers can tell AlreadyExists from Conflict (both
 * 409) or Expired from Gone (both 410), as apimachinery's errors.IsX do.
 *
 * Thread rule: none.  Ownership: struct ts_kube_status owns its strings;
 * release with ts_kube_status_release().
 */
#ifndef TS_KUBE_STATUS_H
#define TS_KUBE_STATUS_H

#include <cJSON.h>
#include <stddef.h>

#include "util/err.h"

/* metav1.StatusReason values (apimachinery/pkg/apis/meta/v1/types.go). */
#define TS_KUBE_REASON_MAP(XX)                                                                     \
    XX(UNKNOWN, "")                                                                                \
    XX(UNAUTHORIZED, "Unauthorized")                                                               \
    XX(FORBIDDEN, "Forbidden")                                                                     \
    XX(NOT_FOUND, "NotFound")                                                                      \
    XX(ALREADY_EXISTS, "AlreadyExists")                                                            \
    XX(CONFLICT, "Conflict")                                                                       \
    XX(GONE, "Gone")                                                                               \
    XX(INVALID, "Invalid")                                                                         \
    XX(SERVER_TIMEOUT, "ServerTimeout")                                                            \
    XX(TIMEOUT, "Timeout")                                                                         \
    XX(TOO_MANY_REQUESTS, "TooManyRequests")                                                       \
    XX(BAD_REQUEST, "BadRequest")                                                                  \
    XX(METHOD_NOT_ALLOWED, "MethodNotAllowed")                                                     \
    XX(NOT_ACCEPTABLE, "NotAcceptable")                                                            \
    XX(REQUEST_ENTITY_TOO_LARGE, "RequestEntityTooLarge")                                          \
    XX(UNSUPPORTED_MEDIA_TYPE, "UnsupportedMediaType")                                             \
    XX(INTERNAL_ERROR, "InternalError")                                                            \
    XX(EXPIRED, "Expired")                                                                         \
    XX(SERVICE_UNAVAILABLE, "ServiceUnavailable")

enum ts_kube_reason {
#define TS__KUBE_REASON_ENUM(name, text) TS_KUBE_REASON_##name,
    TS_KUBE_REASON_MAP(TS__KUBE_REASON_ENUM)
#undef TS__KUBE_REASON_ENUM
};

struct ts_kube_cause {
    char *reason; /* "FieldValueNotSupported", "FieldManagerConflict", … */
    char *message;
    char *field; /* "spec.queueingStrategy" */
};

struct ts_kube_status {
    long code; /* HTTP status code (from the body, else the reply) */
    enum ts_kube_reason reason;
    char *reason_text;         /* the reason as sent ("" when none) */
    char *message;             /* never NULL after decode */
    char *name, *group, *kind; /* details; NULL when absent */
    struct ts_kube_cause *causes;
    size_t n_causes;
    long retry_after; /* details.retryAfterSeconds, else -1 */
};

/* Decodes the body of a failed reply (http_status >= 300) into *out, which
 * must be zeroed or released.  A body that is not a Status object yields a
 * generic one from http_status (message = the body text, cut to 512 bytes,
 * or "the server responded with the status code N").  Never fails.
 * Ownership: caller releases *out. */
void ts_kube_status_decode(long http_status, const char *body, size_t len,
                           struct ts_kube_status *out);

/* Same from an already parsed Status object (a watch ERROR event). */
void ts_kube_status_from_json(long http_status, const cJSON *st, struct ts_kube_status *out);

/* The TS_E* code for a status: NotFound -> TS_ENOTFOUND, AlreadyExists ->
 * TS_EEXIST, Conflict -> TS_ECONFLICT, Invalid/BadRequest -> TS_EINVAL,
 * Gone/Expired/410 -> TS_EGONE, TooManyRequests -> TS_ETOOMANY,
 * ServiceUnavailable/503 -> TS_EUNAVAILABLE, Timeout/ServerTimeout/504 ->
 * TS_ETIMEDOUT, Forbidden -> TS_EFORBIDDEN, Unauthorized ->
 * TS_EUNAUTHORIZED, MethodNotAllowed/NotAcceptable/UnsupportedMediaType ->
 * TS_EUNSUPPORTED, RequestEntityTooLarge -> TS_EOVERFLOW, other 5xx ->
 * TS_EINTERNAL, anything else -> TS_EIO. */
int ts_kube_status_errno(const struct ts_kube_status *st);

/* Parses a reason string ("NotFound"); unknown text gives UNKNOWN. */
enum ts_kube_reason ts_kube_reason_parse(const char *s);

/* The text of a reason ("NotFound"; "" for UNKNOWN).  Static string. */
const char *ts_kube_reason_name(enum ts_kube_reason r);

/* Sets err to the status' code and "<message>" ("<reason>: <message>"
 * would repeat kubectl's prefix, so only the message is kept) and returns
 * the code. */
int ts_kube_status_err(const struct ts_kube_status *st, struct ts_err *err);

/* Frees the strings and causes and zeroes st.  NULL does nothing. */
void ts_kube_status_release(struct ts_kube_status *st);

#endif
