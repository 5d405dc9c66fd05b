/*
 * hookcall.c - outgoing webhook calls (admission and conversion) as
 * kube-apiserver makes them: POST JSON over HTTPS to clientConfig.url, or
 * to https://NAME.NAMESPACE.svc:PORT/PATH for a service reference (the
 * address comes from --webhook-service; the certificate is still checked
 * against the service name), verified with clientConfig.caBundle (the
 * system store when absent), with ?timeout=Ns and a deadline.
 * Called WITHOUT the server mutex (a webhook may call back into us).
 */
#include "apiserver/server_int.h"

#include <curl/curl.h>
#include <stdio.h>
#include <string.h>

#include "apiserver/b64.h"
#include "json/json.h"
#include "util/alloc.h"

static size_t on_data(char *p, size_t size, size_t n, void *cls)
{
    struct ts_buf *b = cls;

    return ts_buf_add(b, p, size * n) ? 0 : size * n;
}

/* "ns/name[:port]=host:port" entry for the service, or NULL. */
static const char *mapped(const struct ts_strlist *map, const char *ns, const char *name,
                          int64_t port)
{
    char want[600], want_port[640];

    snprintf(want, sizeof(want), "%s/%s=", ns, name);
    snprintf(want_port, sizeof(want_port), "%s/%s:%lld=", ns, name, (long long)port);
    for (size_t i = 0; i < map->n; i++) {
        const char *e = map->items[i];
        if (!strncmp(e, want_port, strlen(want_port)))
            return e + strlen(want_port);
        if (!strncmp(e, want, strlen(want)))
            return e + strlen(want);
    }
    return NULL;
}

int ts__as_hook_url(const struct ts_strlist *map, const cJSON *cc, char *url, size_t len,
                    char *connect_to, size_t clen, struct ts_err *err)
{
    const char *u = ts_json_get_string(cc, "url");
    const char *ns = ts_json_get_string(cc, "service.namespace");
    const char *name = ts_json_get_string(cc, "service.name");
    const char *path = ts_json_get_string(cc, "service.path");
    const char *target;
    int64_t port = 443;

    connect_to[0] = '\0';
    if (u) {
        snprintf(url, len, "%s", u);
        return 0;
    }
    if (!ns || !name)
        return ts_err_set(err, TS_EINVAL, "clientConfig has neither url nor service");
    ts_json_get_i64(ts_json_get(cc, "service.port"), &port);
    snprintf(url, len, "https://%s.%s.svc:%lld%s", name, ns, (long long)port, path ? path : "");
    if (!(target = mapped(map, ns, name, port)))
        return ts_err_set(err, TS_EUNAVAILABLE,
                          "service \"%s/%s\" has no address (see --webhook-service)", ns, name);
    snprintf(connect_to, clen, "%s.%s.svc:%lld:%s", name, ns, (long long)port, target);
    return 0;
}

static void add_timeout(char *url, size_t len, int timeout_s)
{
    size_t n = strlen(url);

    snprintf(url + n, len - n, "%stimeout=%ds", strchr(url, '?') ? "&" : "?", timeout_s);
}

static int perform(CURL *c, const char *url, struct ts_buf *out, struct ts_err *err)
{
    char eb[CURL_ERROR_SIZE] = "";
    CURLcode cr;
    long st = 0;

    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, eb);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, out);
    cr = curl_easy_perform(c);
    if (cr != CURLE_OK)
        return ts_err_set(err, cr == CURLE_OPERATION_TIMEDOUT ? TS_ETIMEDOUT : TS_EIO,
                          "Post \"%s\": %s", url, eb[0] ? eb : curl_easy_strerror(cr));
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &st);
    if (st != 200)
        return ts_err_set(err, TS_EIO, "Post \"%s\": the server responded with HTTP %ld", url, st);
    return 0;
}

int ts__as_hook_post(const struct ts_strlist *map, const cJSON *cc, int timeout_s,
                     const struct ts_buf *body, struct ts_buf *out, struct ts_err *err)
{
    char url[2048], conn[1024];
    struct ts_buf ca = TS_BUF_INIT;
    struct curl_slist *hdrs = NULL, *ct = NULL;
    const char *b64 = ts_json_get_string(cc, "caBundle");
    CURL *c;
    int rc;

    if ((rc = ts__as_hook_url(map, cc, url, sizeof(url), conn, sizeof(conn), err)))
        return rc;
    add_timeout(url, sizeof(url), timeout_s);
    if (b64 && ts_b64_decode(b64, &ca))
        return ts_err_set(err, TS_EINVAL, "clientConfig.caBundle is not base64");
    c = curl_easy_init();
    hdrs = curl_slist_append(hdrs, "Content-Type: application/json");
    hdrs = curl_slist_append(hdrs, "Accept: application/json, */*");
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body->ptr);
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)body->len);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)timeout_s * 1000L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "https,http");
    if (conn[0]) {
        ct = curl_slist_append(NULL, conn);
        curl_easy_setopt(c, CURLOPT_CONNECT_TO, ct);
    }
    if (ca.len) {
        struct curl_blob blob = {ca.ptr, ca.len, CURL_BLOB_COPY};
        curl_easy_setopt(c, CURLOPT_CAINFO_BLOB, &blob);
    }
    rc = perform(c, url, out, err);
    curl_easy_cleanup(c);
    curl_slist_free_all(hdrs);
    curl_slist_free_all(ct);
    ts_buf_release(&ca);
    return rc;
}
