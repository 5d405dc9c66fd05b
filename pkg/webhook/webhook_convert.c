/*
 * webhook_convert.c - the CRD conversion webhook (/convert): a
 * ConversionReview v1 whose objects are converted one by one with
 * ts_convert_kueue() to request.desiredAPIVersion.  Any failure fails the
 * whole review (result.status "Failure" and the message), as the API
 * server expects; the response always echoes request.uid when there is one.
 */
#include <string.h>

#include "api/convert.h"
#include "json/json.h"
#include "util/alloc.h"
#include "webhook/webhook_int.h"

#define CONVERSION_V1 "apiextensions.k8s.io/v1"

static const char *str_of(const cJSON *obj, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* Converts every object into a new array; returns 0 or sets msg. */
static int convert_all(const cJSON *objects, const char *to, cJSON **out, struct ts_buf *msg)
{
    cJSON *res = cJSON_CreateArray();
    const cJSON *o;
    size_t i = 0;

    cJSON_ArrayForEach(o, objects)
    {
        struct ts_err err = {0};
        cJSON *c = cJSON_Duplicate(o, 1);

        if (!cJSON_IsObject(o) || ts_convert_kueue(c, to, &err) != 0) {
            ts_buf_addf(msg, "objects[%zu]: %s", i, cJSON_IsObject(o) ? err.msg : "not an object");
            cJSON_Delete(c);
            cJSON_Delete(res);
            return -1;
        }
        cJSON_AddItemToArray(res, c);
        i++;
    }
    *out = res;
    return 0;
}

/* Reads the review; returns the request or NULL with msg set. */
static const cJSON *read_request(const cJSON *review, struct ts_buf *msg)
{
    const char *av = str_of(review, "apiVersion");
    const char *kind = str_of(review, "kind");
    const cJSON *req = cJSON_GetObjectItemCaseSensitive(review, "request");
    const char *uid;

    if (!av || strcmp(av, CONVERSION_V1) != 0 || !kind || strcmp(kind, "ConversionReview") != 0) {
        ts_buf_addf(msg,
                    "unsupported review: apiVersion \"%s\", kind \"%s\" (want %s "
                    "ConversionReview)",
                    av ? av : "", kind ? kind : "", CONVERSION_V1);
        return NULL;
    }
    if (!cJSON_IsObject(req)) {
        ts_buf_adds(msg, "ConversionReview has no request");
        return NULL;
    }
    uid = str_of(req, "uid");
    if (!uid || !*uid) {
        ts_buf_adds(msg, "ConversionReview request.uid is missing");
        return NULL;
    }
    if (!str_of(req, "desiredAPIVersion")) {
        ts_buf_adds(msg, "ConversionReview request.desiredAPIVersion is missing");
        return NULL;
    }
    if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(req, "objects"))) {
        ts_buf_adds(msg, "ConversionReview request.objects must be a list");
        return NULL;
    }
    return req;
}

static void write_response(const char *uid, cJSON *converted, const char *failure,
                           struct ts_buf *out)
{
    cJSON *rv = cJSON_CreateObject();
    cJSON *resp, *result;

    cJSON_AddStringToObject(rv, "apiVersion", CONVERSION_V1);
    cJSON_AddStringToObject(rv, "kind", "ConversionReview");
    resp = cJSON_AddObjectToObject(rv, "response");
    cJSON_AddStringToObject(resp, "uid", uid ? uid : "");
    cJSON_AddItemToObject(resp, "convertedObjects", converted ? converted : cJSON_CreateArray());
    result = cJSON_AddObjectToObject(resp, "result");
    cJSON_AddItemToObject(result, "metadata", cJSON_CreateObject());
    cJSON_AddStringToObject(result, "status", failure ? "Failure" : "Success");
    if (failure)
        cJSON_AddStringToObject(result, "message", failure);
    ts_json_print(rv, TS_JSON_COMPACT, out, NULL);
    cJSON_Delete(rv);
}

void ts__wh_convert(const char *body, size_t len, struct ts_buf *out)
{
    struct ts_buf msg = TS_BUF_INIT;
    struct ts_err err = {0};
    cJSON *review = NULL, *converted = NULL;
    const cJSON *req = NULL;
    const char *uid = NULL;

    if (ts_json_parse(body, len, &review, &err) != 0 || !cJSON_IsObject(review))
        ts_buf_addf(&msg, "cannot decode ConversionReview: %s",
                    review ? "not a JSON object" : err.msg);
    else if ((req = read_request(review, &msg)) != NULL)
        convert_all(cJSON_GetObjectItemCaseSensitive(req, "objects"),
                    str_of(req, "desiredAPIVersion"), &converted, &msg);
    if (cJSON_IsObject(review) && cJSON_IsObject(cJSON_GetObjectItem(review, "request")))
        uid = str_of(cJSON_GetObjectItem(review, "request"), "uid");
    write_response(uid, converted, msg.len ? msg.ptr : NULL, out);
    ts_buf_release(&msg);
    cJSON_Delete(review);
}
