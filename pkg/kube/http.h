/*
 * http.h - asynchronous HTTP/1.1 and HTTP/2 requests on one libcurl multi
 * handle driven by the event loop (CURLMOPT_SOCKETFUNCTION and
 * CURLMOPT_TIMERFUNCTION, as in curl's docs/examples/ephiperfifo.c).
 *
 * No thread per request: every transfer is a curl easy handle on the
 * multi; the loop calls curl_multi_socket_action() when a socket is ready
 * or curl's timer expires, and completions are delivered as callbacks on
 * the loop thread.  Connections are reused from the multi's cache, and
 * HTTP/2 is negotiated by ALPN over TLS (CURL_HTTP_VERSION_2TLS) with
 * multiplexing, so concurrent requests and watches share one connection
 * when the server offers h2.
 *
 * libcurl's allocator is routed through ts_x* (curl_global_init_mem), so
 * the OOM policy of util/alloc.h holds here too.  Verbose output is never
 * enabled: headers carry bearer tokens.
 *
 * Thread rule: loop thread only.
 * Ownership: ts_http_new() returns a handle freed with ts_http_free()
 * (which cancels pending requests without calling their callbacks).
 * Request options are copied at ts_http_request(); the result passed to a
 * callback is borrowed for the duration of the callback.
 */
#ifndef TS_KUBE_HTTP_H
#define TS_KUBE_HTTP_H

#include <stddef.h>
#include <stdint.h>

#include "kube/loop.h"
#include "util/buf.h"
#include "util/err.h"

struct ts_http;
struct ts_http_req;

/* TLS and proxy settings of one request.  Strings are borrowed during
 * ts_http_request() (curl copies them).  PEM blobs win over files. */
struct ts_http_tls {
    const char *ca_file; /* CA bundle file */
    const char *ca_pem;  /* CA bundle PEM text */
    size_t ca_pem_len;
    int insecure;          /* skip server certificate verification */
    const char *cert_file; /* client certificate */
    const char *key_file;  /* client key */
    const char *cert_pem;
    size_t cert_pem_len;
    const char *key_pem;
    size_t key_pem_len;
    const char *connect_to; /* CURLOPT_CONNECT_TO entry (tls-server-name) */
    const char *proxy;      /* proxy URL */
    const char *username;   /* basic auth */
    const char *password;
};

struct ts_http_result {
    int code;                  /* 0, or TS_EIO / TS_ETIMEDOUT / TS_ETLS (transport) */
    long status;               /* HTTP status, 0 when none was received */
    const struct ts_buf *body; /* buffered body (empty for streamed requests) */
    const char *content_type;  /* "" when absent */
    long retry_after;          /* Retry-After in seconds, -1 when absent */
    int sent;                  /* 0 when the request surely never reached the server */
    int http_version;          /* 1 or 2 */
    const char *error;         /* transport error text ("" when none) */
};

typedef void (*ts_http_done_fn)(struct ts_http_req *req, const struct ts_http_result *res,
                                void *data);
/* Streams body bytes as they arrive (status already known); return
 * nonzero to abort the transfer (it then completes with TS_EIO). */
typedef int (*ts_http_data_fn)(struct ts_http_req *req, long status, const char *p, size_t n,
                               void *data);

struct ts_http_opts {
    const char *method; /* "GET", "POST", … */
    const char *url;
    const char *const *headers; /* NULL-terminated "Name: value" lines, or NULL */
    const char *body;           /* request body (copied), or NULL */
    size_t body_len;
    int64_t timeout_ns;         /* whole transfer; 0 = none */
    int64_t connect_timeout_ns; /* 0 = 10 s */
    size_t max_body;            /* buffered body cap; 0 = 256 MiB */
    const struct ts_http_tls *tls;
    const char *user_agent;
    ts_http_data_fn on_data; /* non-NULL: stream instead of buffering */
    ts_http_done_fn on_done; /* required */
    void *data;
};

/* Creates the multi handle on `loop`.  http2: allow HTTP/2 over TLS.
 * Returns NULL when libcurl cannot be initialised.
 * Ownership: caller frees with ts_http_free() before freeing the loop. */
struct ts_http *ts_http_new(struct ts_loop *loop, int http2);

/* Cancels every request (no callbacks) and frees the handle.  NULL ok. */
void ts_http_free(struct ts_http *h);

/* Starts a request; on_done runs exactly once on the loop thread, unless
 * the request is cancelled first.  Returns 0 or TS_EINVAL (bad options).
 * Ownership: *out (may be NULL) is a borrowed handle, valid until on_done
 * returns or ts_http_cancel() is called. */
int ts_http_request(struct ts_http *h, const struct ts_http_opts *o, struct ts_http_req **out,
                    struct ts_err *err);

/* Aborts a request without calling its callback.  Safe from any
 * callback, including the request's own on_data.  NULL does nothing. */
void ts_http_cancel(struct ts_http_req *req);

/* Number of requests in flight. */
size_t ts_http_pending(const struct ts_http *h);

/* Connections opened so far (for tests of connection reuse). */
long ts_http_connections(const struct ts_http *h);

/* Whether the TLS connection under `req` keeps its record buffers between
 * reads (for tests): 1 or 0, -1 when it has no OpenSSL connection (plain
 * HTTP, another TLS library).  Call from the request's callbacks. */
int ts_http_req_tls_buffers_kept(struct ts_http_req *req);

#endif
