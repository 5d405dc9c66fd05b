/*
 * server.h - Turnstile's HTTPS server: libmicrohttpd over TLS (GnuTLS
 * inside libmicrohttpd; TLS 1.2 and 1.3 only) answering /healthz and
 * /readyz for GETs itself, other GETs through a GET handler and POSTs
 * through a POST handler; the webhook (webhook/whserver.h plugs
 * ts_webhook_handle() in) and the controller's visibility API (a GET
 * handler, no POSTs) serve on it.  Optionally a plain-HTTP health listener
 * (Kueue's health port, 8081) that answers only /healthz and /readyz.
 *
 * Threads (house style item 19): the server runs libmicrohttpd's own
 * thread pool (epoll, internal polling threads), so it answers while the
 * controller's loop is busy.  Handlers run on those threads, several at
 * once; the server itself reads only these options (immutable) and the
 * per-connection context; the one mutable thing, the current daemon
 * (swapped by a reload), sits behind one mutex.  A POST handler's user
 * data is const: it reads only immutable state (the webhook's handler
 * set); a GET handler guards what it shares itself.
 *
 * Hostile clients: bodies over `max_body` get 413 (up front from
 * Content-Length, or after the upload for chunked bodies, of which at most
 * twice the limit is read before the connection is dropped); a connection
 * that has not sent a request yet is closed once idle for
 * `header_timeout_s` (a TLS handshake or headers that stall), one that has
 * once idle for `timeout_s` (slow-loris trickles are cut by these, by the
 * header memory limit and by the request deadline); connections are
 * capped per IP (so one address cannot take them all) and in total only by
 * what the file limit allows (httpd/fdlimit.h), so idle clients
 * from many addresses cannot lock the API server out; a body that is still
 * arriving after `deadline_s` is dropped.  A slow client costs a socket,
 * never a thread.
 *
 * Certificate reload: GnuTLS's certificate callback would need GnuTLS
 * headers (Turnstile links only libmicrohttpd and OpenSSL), so a reload
 * starts a second daemon with the new certificate on a dup() of the same
 * listening socket, swaps it in, quiesces the old one (it stops accepting),
 * lets its open connections finish for up to a second and stops it.  No
 * connection is refused during the swap: the socket never closes.  If the
 * new certificate does not load, the old daemon keeps serving.
 *
 * Ownership: the server borrows the handlers' user data (it must outlive
 * the server) and copies the name, the host and the PEMs.
 * ts_httpd_server_free() stops everything (NULL is fine).
 */
#ifndef TS_HTTPD_SERVER_H
#define TS_HTTPD_SERVER_H

#include <stddef.h>

#include "util/buf.h"
#include "util/err.h"
#include "util/strmap.h"

/* kube-apiserver's own request body limit */
#define TS_HTTPD_SERVER_DEFAULT_MAX_BODY (3u * 1024u * 1024u)

/* Answers a GET of `path` with its query arguments: appends the JSON body
 * to out and returns the HTTP status.  Runs on a server thread (several at
 * once); it may wait, holding only that thread.  Ownership: out is the
 * server's, appended to; query is borrowed for the call. */
typedef int (*ts_httpd_server_get_fn)(void *ud, const char *path, const struct ts_strmap *query,
                                      struct ts_buf *out);

/* Answers a POST of `path` (without the query) whose body is body[0..len)
 * (not NUL-terminated, at most max_body bytes): appends the response body
 * to out and returns the HTTP status (a 200 for /healthz or /readyz is
 * sent as text/plain, every other answer as application/json).
 * Runs on a server thread (several at once).  Ownership: out is the
 * server's, appended to; body is borrowed for the call. */
typedef int (*ts_httpd_server_post_fn)(const void *ud, const char *path, const char *body,
                                       size_t len, struct ts_buf *out);

/* 1 when `path` (without the query) is one the POST handler serves, 0 for
 * a 404 before the body is read. */
typedef int (*ts_httpd_server_path_fn)(const void *ud, const char *path);

struct ts_httpd_server_options {
    const char *name;           /* log component and subject of messages, default "httpd" */
    const char *host;           /* bind address; NULL or "" = all (dual stack when possible) */
    int port;                   /* 0 (default) = any free port (see ts_httpd_server_port()) */
    int health_port;            /* plain HTTP health listener; -1 (default) = none, 0 = any */
    unsigned threads;           /* thread pool size, default 4 (at least 2 are started) */
    unsigned conn_limit;        /* 0 (default): what the process's file limit allows */
    unsigned per_ip_limit;      /* default 64 */
    unsigned timeout_s;         /* idle timeout of a connection that sent a request, default 10 */
    unsigned header_timeout_s;  /* a new connection must finish its TLS handshake and
                                 * request headers without idling this long, default 3 */
    unsigned deadline_s;        /* a request body must arrive within this, default 10 */
    size_t max_body;            /* default TS_HTTPD_SERVER_DEFAULT_MAX_BODY */
    ts_httpd_server_get_fn get; /* GETs other than the health paths; NULL: 405 */
    void *get_ud;
    ts_httpd_server_post_fn post;      /* POSTs; NULL: 405 */
    ts_httpd_server_path_fn post_path; /* NULL: every path goes to post */
    const void *post_ud;
};

struct ts_httpd_server;

/* The defaults above. */
void ts_httpd_server_options_init(struct ts_httpd_server_options *o);

/* Binds, loads the certificate and starts serving.  Returns 0, TS_EIO
 * (cannot bind/listen; message names the address) or TS_ETLS (the
 * certificate or key does not load).  Ownership: *out is freed with
 * ts_httpd_server_free(); o's strings and the PEMs are copied, the
 * handlers' user data is borrowed. */
int ts_httpd_server_start(const struct ts_httpd_server_options *o, const char *cert_pem,
                          const char *key_pem, struct ts_httpd_server **out, struct ts_err *err);

/* Serves a new certificate from now on without closing the socket (see the
 * top comment).  Returns 0 or TS_ETLS (the old certificate stays).
 * Thread rule: call from one thread at a time (the controller's loop).
 * Ownership: the PEMs are copied. */
int ts_httpd_server_reload(struct ts_httpd_server *s, const char *cert_pem, const char *key_pem,
                           struct ts_err *err);

/* The bound TLS / health port (useful with port 0); -1 when none. */
int ts_httpd_server_port(const struct ts_httpd_server *s);
int ts_httpd_server_health_port(const struct ts_httpd_server *s);

/* Number of certificate reloads done (for tests and logs). */
unsigned ts_httpd_server_generation(struct ts_httpd_server *s);

void ts_httpd_server_free(struct ts_httpd_server *s);

#endif
