/*
 * status.c - metav1.Status decoding and mapping to TS_E* codes.
 */
#include "kube/status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/json.h"
#include "util/alloc.h"
#include "util/buf.h"

static const char *const reason_names[] = {
#define TS__KUBE_REASON_NAME(name, text) text,
    TS_KUBE_REASON_MAP(TS__KUBE_REASON_NAME)
#undef TS__KUBE_REASON_NAME
};

#define N_REASONS (sizeof(reason_names) / sizeof(reason_names[0]))

enum ts_kube_reason ts_kube_reason_parse(const char *s)
{
    for (size_t i = 1; s && i < N_REASONS; i++)
        if (!strcmp(reason_names[i], s))
            return (enum ts_kube_reason)i;
    return TS_KUBE_REASON_UNKNOWN;
}

const char *ts_kube_reason_name(enum ts_kube_reason r)
{
    return (size_t)r < N_REASONS ? reason_names[r] : "";
}

/* The reason client-go's NewGenericServerResponse gives a bare code. */
static enum ts_kube_reason reason_for_code(long code)
{
    switch (code) {
    case 400:
        return TS_KUBE_REASON_BAD_REQUEST;
    case 401:
        return TS_KUBE_REASON_UNAUTHORIZED;
    case 403:
        return TS_KUBE_REASON_FORBIDDEN;
    case 404:
        return TS_KUBE_REASON_NOT_FOUND;
    case 405:
        return TS_KUBE_REASON_METHOD_NOT_ALLOWED;
    case 406:
        return TS_KUBE_REASON_NOT_ACCEPTABLE;
    case 409:
        return TS_KUBE_REASON_CONFLICT;
    case 410:
        return TS_KUBE_REASON_GONE;
    case 413:
        return TS_KUBE_REASON_REQUEST_ENTITY_TOO_LARGE;
    case 415:
        return TS_KUBE_REASON_UNSUPPORTED_MEDIA_TYPE;
    case 422:
        return TS_KUBE_REASON_INVALID;
    case 429:
        return TS_KUBE_REASON_TOO_MANY_REQUESTS;
    case 500:
        return TS_KUBE_REASON_INTERNAL_ERROR;
    case 503:
        return TS_KUBE_REASON_SERVICE_UNAVAILABLE;
    case 504:
        return TS_KUBE_REASON_TIMEOUT;
    default:
        return TS_KUBE_REASON_UNKNOWN;
    }
}

static char *dup_opt(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

    return cJSON_IsString(v) ? ts_xstrdup(v->valuestring) : NULL;
}

static void decode_causes(const cJSON *arr, struct ts_kube_status *out)
{
    const cJSON *c;
    size_t n = (size_t)cJSON_GetArraySize(arr), i = 0;

    if (!cJSON_IsArray(arr) || !n)
        return;
    out->causes = ts_xcalloc(n, sizeof(*out->causes));
    cJSON_ArrayForEach(c, arr)
    {
        out->causes[i].reason = dup_opt(c, "reason");
        out->causes[i].message = dup_opt(c, "message");
        out->causes[i].field = dup_opt(c, "field");
        i++;
    }
    out->n_causes = i;
}

static void decode_details(const cJSON *d, struct ts_kube_status *out)
{
    int64_t ra;

    if (!cJSON_IsObject(d))
        return;
    out->name = dup_opt(d, "name");
    out->group = dup_opt(d, "group");
    out->kind = dup_opt(d, "kind");
    if (!ts_json_get_i64(cJSON_GetObjectItemCaseSensitive(d, "retryAfterSeconds"), &ra) && ra > 0)
        out->retry_after = (long)ra;
    decode_causes(cJSON_GetObjectItemCaseSensitive(d, "causes"), out);
}

static void generic_message(long code, const char *body, size_t len, struct ts_kube_status *out)
{
    struct ts_buf b = TS_BUF_INIT;

    if (len && body) {
        ts_buf_add(&b, body, len > 512 ? 512 : len);
        while (b.len && (b.ptr[b.len - 1] == '\n' || b.ptr[b.len - 1] == '\r'))
            b.ptr[--b.len] = '\0';
    }
    if (!b.len)
        ts_buf_addf(&b, "the server responded with the status code %ld", code);
    out->message = ts_buf_take(&b);
}

void ts_kube_status_from_json(long http_status, const cJSON *st, struct ts_kube_status *out)
{
    int64_t code;

    memset(out, 0, sizeof(*out));
    out->retry_after = -1;
    out->code = http_status;
    if (!ts_json_get_i64(cJSON_GetObjectItemCaseSensitive(st, "code"), &code) && code > 0)
        out->code = (long)code;
    out->reason_text = dup_opt(st, "reason");
    if (!out->reason_text)
        out->reason_text = ts_xstrdup("");
    out->reason = ts_kube_reason_parse(out->reason_text);
    if (out->reason == TS_KUBE_REASON_UNKNOWN)
        out->reason = reason_for_code(out->code);
    out->message = dup_opt(st, "message");
    if (!out->message)
        generic_message(out->code, NULL, 0, out);
    decode_details(cJSON_GetObjectItemCaseSensitive(st, "details"), out);
}

void ts_kube_status_decode(long http_status, const char *body, size_t len,
                           struct ts_kube_status *out)
{
    cJSON *j = NULL;

    if (len && !ts_json_parse(body, len, &j, NULL) && cJSON_IsObject(j) &&
        ts_str_eq(ts_str_c(ts_json_get_string(j, "kind")), "Status")) {
        ts_kube_status_from_json(http_status, j, out);
        cJSON_Delete(j);
        return;
    }
    cJSON_Delete(j);
    memset(out, 0, sizeof(*out));
    out->retry_after = -1;
    out->code = http_status;
    out->reason = reason_for_code(http_status);
    out->reason_text = ts_xstrdup(reason_names[out->reason]);
    generic_message(http_status, body, len, out);
}

static int errno_for_reason(enum ts_kube_reason r)
{
    switch (r) {
    case TS_KUBE_REASON_NOT_FOUND:
        return TS_ENOTFOUND;
    case TS_KUBE_REASON_ALREADY_EXISTS:
        return TS_EEXIST;
    case TS_KUBE_REASON_CONFLICT:
        return TS_ECONFLICT;
    case TS_KUBE_REASON_INVALID:
    case TS_KUBE_REASON_BAD_REQUEST:
        return TS_EINVAL;
    case TS_KUBE_REASON_GONE:
    case TS_KUBE_REASON_EXPIRED:
        return TS_EGONE;
    case TS_KUBE_REASON_TOO_MANY_REQUESTS:
        return TS_ETOOMANY;
    case TS_KUBE_REASON_SERVICE_UNAVAILABLE:
        return TS_EUNAVAILABLE;
    case TS_KUBE_REASON_TIMEOUT:
    case TS_KUBE_REASON_SERVER_TIMEOUT:
        return TS_ETIMEDOUT;
    case TS_KUBE_REASON_FORBIDDEN:
        return TS_EFORBIDDEN;
    case TS_KUBE_REASON_UNAUTHORIZED:
        return TS_EUNAUTHORIZED;
    case TS_KUBE_REASON_METHOD_NOT_ALLOWED:
    case TS_KUBE_REASON_NOT_ACCEPTABLE:
    case TS_KUBE_REASON_UNSUPPORTED_MEDIA_TYPE:
        return TS_EUNSUPPORTED;
    case TS_KUBE_REASON_REQUEST_ENTITY_TOO_LARGE:
        return TS_EOVERFLOW;
    case TS_KUBE_REASON_INTERNAL_ERROR:
        return TS_EINTERNAL;
    default:
        return 0;
    }
}

int ts_kube_status_errno(const struct ts_kube_status *st)
{
    int rc = errno_for_reason(st->reason);

    if (rc)
        return rc;
    if (st->code == 410)
        return TS_EGONE;
    if (st->code >= 500)
        return TS_EINTERNAL;
    return TS_EIO;
}

int ts_kube_status_err(const struct ts_kube_status *st, struct ts_err *err)
{
    return ts_err_set(err, ts_kube_status_errno(st), "%s", st->message ? st->message : "");
}

void ts_kube_status_release(struct ts_kube_status *st)
{
    if (!st)
        return;
    for (size_t i = 0; i < st->n_causes; i++) {
        free(st->causes[i].reason);
        free(st->causes[i].message);
        free(st->causes[i].field);
    }
    free(st->causes);
    free(st->reason_text);
    free(st->message);
    free(st->name);
    free(st->group);
    free(st->kind);
    memset(st, 0, sizeof(*st));
    st->retry_after = -1;
}
