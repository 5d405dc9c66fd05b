/*
 * aggregate.c - aggregated APIs, as kube-aggregator serves them: a request
 * under /apis/GROUP/VERSION/ for which an APIService "VERSION.GROUP" with
 * a spec.service exists is proxied to that service over HTTPS (address
 * from --webhook-service, as for webhooks), verified with spec.caBundle
 * unless spec.insecureSkipTLSVerify (Kueue's visibility APIService sets
 * it).  The backend's status, content type and body are returned as they
 * are; an unreachable backend gives 503, as the aggregator does.
 *
 * The APIService is looked up under the server mutex; the call is made
 * without it (the backend may call back into us).  The group is not added
 * to /apis discovery: Kueue's visibility group reuses the names
 * clusterqueues/localqueues, and kubectl resolves plain names by group
 * priority, which this server does not model.
 */
#include "apiserver/server_int.h"

#include "api/meta.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apiserver/b64.h"
#include "json/json.h"

#define PROXY_TIMEOUT_MS 30000L

static size_t on_data(char *p, size_t size, size_t n, void *cls)
{
    struct ts_buf *b = cls;

    return ts_buf_add(b, p, size * n) ? 0 : size * n;
}

/* The backend's content type as a string that outlives the call. */
static const char *static_ctype(const char *t)
{
    static const char *const known[] = {"application/json", "application/yaml",
                                        "application/vnd.kubernetes.protobuf", "text/plain"};

    for (size_t i = 0; t && i < sizeof(known) / sizeof(known[0]); i++) {
        if (!strncmp(t, known[i], strlen(known[i])))
            return known[i];
    }
    return "application/octet-stream";
}

/* The APIService for path ("/apis/G/V[/...]") with a service, or NULL. */
static const cJSON *find_apiservice(struct ts_apiserver *s, const char *path)
{
    struct ts__as_ver *ver;
    struct ts__as_res *res;
    struct ts__as_obj *o;
    const char *g, *v, *end;
    char name[512];

    if (strncmp(path, "/apis/", 6))
        return NULL;
    g = path + 6;
    if (!(v = strchr(g, '/')))
        return NULL;
    end = strchr(v + 1, '/');
    if (!end)
        end = v + 1 + strlen(v + 1);
    if (end == v + 1 || snprintf(name, sizeof(name), "%.*s.%.*s", (int)(end - v - 1), v + 1,
                                 (int)(v - g), g) >= (int)sizeof(name))
        return NULL;
    res = ts__as_res_find(s, "apiregistration.k8s.io", "v1", "apiservices", &ver);
    if (!res || !(o = ts__as_store_get(res, NULL, name)))
        return NULL;
    return cJSON_IsObject(ts_json_get(o->json, "spec.service")) ? o->json : NULL;
}

static int by_priority(const void *a, const void *b)
{
    const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;
    int64_t px = 0, py = 0;

    ts_json_get_i64(ts_json_get(x, "spec.versionPriority"), &px);
    ts_json_get_i64(ts_json_get(y, "spec.versionPriority"), &py);
    return px > py ? -1 : px < py ? 1 : 0;
}

int ts__as_aggregated_group(struct ts__as_req *q, struct ts__as_resp *r)
{
    struct ts__as_ver *ver;
    struct ts__as_res *res =
        ts__as_res_find(q->s, "apiregistration.k8s.io", "v1", "apiservices", &ver);
    const char *p = q->path;
    char group[256];
    const cJSON *mine[64];
    const char *versions[64];
    struct ts__as_obj **objs;
    size_t n, k = 0, len;
    cJSON *g;

    if (!res || strncmp(p, "/apis/", 6))
        return 0;
    p += 6;
    len = strcspn(p, "/");
    if (!len || len >= sizeof(group) || (p[len] && p[len + 1]))
        return 0;
    snprintf(group, sizeof(group), "%.*s", (int)len, p);
    objs = ts__as_store_list(res, NULL, &n);
    for (size_t i = 0; i < n && k < 64; i++) {
        const char *gr = ts_json_get_string(objs[i]->json, "spec.group");

        if (gr && !strcmp(gr, group) &&
            cJSON_IsObject(ts_json_get(objs[i]->json, "spec.service")) &&
            ts_json_get_string(objs[i]->json, "spec.version"))
            mine[k++] = objs[i]->json;
    }
    free(objs);
    if (!k)
        return 0;
    qsort(mine, k, sizeof(mine[0]), by_priority);
    for (size_t i = 0; i < k; i++)
        versions[i] = ts_json_get_string(mine[i], "spec.version");
    g = ts_apigroup_new(group, versions, k);
    cJSON_AddStringToObject(g, "kind", "APIGroup");
    cJSON_AddStringToObject(g, "apiVersion", "v1");
    ts__as_reply_json(r, 200, g);
    cJSON_Delete(g);
    return 1;
}

int ts__as_aggregated(struct ts_apiserver *s, const struct ts__as_req *q, struct ts__as_proxy *px)
{
    const cJSON *api;

    memset(px, 0, sizeof(*px));
    api = find_apiservice(s, q->path);
    if (api) {
        const cJSON *spec = cJSON_GetObjectItemCaseSensitive(api, "spec");

        px->cc = cJSON_CreateObject();
        cJSON_AddItemToObject(px->cc, "service",
                              cJSON_Duplicate(cJSON_GetObjectItem(spec, "service"), 1));
        if (ts_json_get_string(spec, "caBundle"))
            cJSON_AddStringToObject(px->cc, "caBundle", ts_json_get_string(spec, "caBundle"));
        px->insecure = cJSON_IsTrue(cJSON_GetObjectItem(spec, "insecureSkipTLSVerify"));
        /* the path is the backend's own: service.path does not apply */
        cJSON_DeleteItemFromObject(cJSON_GetObjectItem(px->cc, "service"), "path");
    }
    return api != NULL;
}

void ts__as_proxy_release(struct ts__as_proxy *px)
{
    cJSON_Delete(px->cc);
    px->cc = NULL;
}

/* url + "?k=v&..." from the request's query, escaped. */
static void add_query(CURL *c, const struct ts_strmap *query, char *url, size_t len)
{
    size_t n = strlen(url);

    for (size_t i = 0; i < query->n && n < len; i++) {
        char *k = curl_easy_escape(c, query->items[i].key, 0);
        char *v = curl_easy_escape(c, query->items[i].value, 0);

        snprintf(url + n, len - n, "%s%s=%s", i ? "&" : "?", k ? k : "", v ? v : "");
        n = strlen(url);
        curl_free(k);
        curl_free(v);
    }
}

void ts__as_proxy(struct ts_apiserver *s, const struct ts__as_proxy *px, const struct ts__as_req *q,
                  struct ts__as_resp *r)
{
    char url[4096], conn[1024], eb[CURL_ERROR_SIZE] = "", accept[300];
    struct ts_buf ca = TS_BUF_INIT;
    struct curl_slist *hdrs = NULL, *ct = NULL;
    const char *b64 = ts_json_get_string(px->cc, "caBundle");
    struct ts_err err = {0};
    char *ctype = NULL;
    long st = 0;
    CURLcode cr;
    CURL *c;

    if (ts__as_hook_url(&s->svc_map, px->cc, url, sizeof(url), conn, sizeof(conn), &err)) {
        ts__as_reply_status(r, 503, "ServiceUnavailable", err.msg, NULL);
        return;
    }
    if (b64 && ts_b64_decode(b64, &ca)) {
        ts__as_reply_status(r, 503, "ServiceUnavailable", "spec.caBundle is not base64", NULL);
        return;
    }
    c = curl_easy_init();
    snprintf(url + strlen(url), sizeof(url) - strlen(url), "%s", q->path);
    add_query(c, &q->query, url, sizeof(url));
    snprintf(accept, sizeof(accept), "Accept: %s", q->accept ? q->accept : "application/json");
    hdrs = curl_slist_append(hdrs, accept);
    if (q->ctype) {
        char h[300];

        snprintf(h, sizeof(h), "Content-Type: %s", q->ctype);
        hdrs = curl_slist_append(hdrs, h);
    }
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, q->method);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
    if (q->body.len) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, q->body.ptr);
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)q->body.len);
    }
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, PROXY_TIMEOUT_MS);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "https");
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, eb);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &r->body);
    if (conn[0]) {
        ct = curl_slist_append(NULL, conn);
        curl_easy_setopt(c, CURLOPT_CONNECT_TO, ct);
    }
    if (px->insecure) {
        curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
    } else if (ca.len) {
        struct curl_blob blob = {ca.ptr, ca.len, CURL_BLOB_COPY};

        curl_easy_setopt(c, CURLOPT_CAINFO_BLOB, &blob);
    }
    cr = curl_easy_perform(c);
    if (cr != CURLE_OK) {
        char msg[CURL_ERROR_SIZE + 300];

        snprintf(msg, sizeof(msg), "error trying to reach service: %s",
                 eb[0] ? eb : curl_easy_strerror(cr));
        ts_buf_release(&r->body);
        ts_buf_init(&r->body, 0);
        ts__as_reply_status(r, 503, "ServiceUnavailable", msg, NULL);
    } else {
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &st);
        curl_easy_getinfo(c, CURLINFO_CONTENT_TYPE, &ctype);
        r->code = (int)st;
        r->ctype = static_ctype(ctype);
    }
    curl_easy_cleanup(c);
    curl_slist_free_all(hdrs);
    curl_slist_free_all(ct);
    ts_buf_release(&ca);
}
