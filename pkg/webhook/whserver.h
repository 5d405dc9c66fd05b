/*
 * whserver.h - the webhook's HTTPS server: libmicrohttpd over TLS
 * (GnuTLS inside libmicrohttpd; TLS 1.2 and 1.3 only) on Turnstile's
 * webhook port (9443, as Kueue's), serving ts_webhook_handle() for POSTs
 * and /healthz, /readyz for GETs.  Given a GET handler it also serves other
 * GETs through it (the controller's visibility API uses the same server
 * with no webhook at all).  Optionally a plain-HTTP health listener
 * (Kueue's health port, 8081) that answers only /healthz and /readyz.
 *
 * Threads (house style item 19): the server runs libmicrohttpd's own
 * thread pool (epoll, internal polling threads), so it answers while the
 * controller's loop is busy.  Handlers read only immutable state - the
 * struct ts_webhook and these options - and the per-connection context;
 * the one mutable thing, the current daemon (swapped by a reload), sits
 * behind one mutex.
 *
 * Hostile clients: bodies over TS_WEBHOOK_MAX_BODY get 413 (up front from
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
 * Ownership: the server borrows `wh` (it must outlive the server) and
 * copies the PEMs.  ts_whserver_free() stops everything (NULL is fine).
 */
#ifndef TS_WHSERVER_H
#define TS_WHSERVER_H

#include "util/buf.h"
#include "util/err.h"
#include "util/strmap.h"
#include "webhook/webhook.h"

#define TS_WHSERVER_DEFAULT_PORT        9443
#define TS_WHSERVER_DEFAULT_HEALTH_PORT 8081

/* Answers a GET of `path` with its query arguments: appends the JSON body
 * to out and returns the HTTP status.  Runs on a server thread (several at
 * once); it may wait, holding only that thread. */
typedef int (*ts_whserver_get_fn)(void *ud, const char *path, const struct ts_strmap *query,
                                  struct ts_buf *out);

struct ts_whserver_options {
    const char *host;          /* bind address; NULL or "" = all (dual stack when possible) */
    int port;                  /* 0 = any free port (see ts_whserver_port()) */
    int health_port;           /* plain HTTP health listener; -1 = none, 0 = any free port */
    unsigned threads;          /* thread pool size, default 4 */
    unsigned conn_limit;       /* 0 (default): what the process's file limit allows */
    unsigned per_ip_limit;     /* default 64 */
    unsigned timeout_s;        /* idle timeout of a connection that sent a request, default 10 */
    unsigned header_timeout_s; /* a new connection must finish its TLS handshake and
                                * request headers without idling this long, default 3 */
    unsigned deadline_s;       /* a request body must arrive within this, default 10 */
    ts_whserver_get_fn get;    /* other GETs; NULL: 405 */
    void *get_ud;
};

struct ts_whserver;

/* Defaults above; port 9443, no health listener. */
void ts_whserver_options_init(struct ts_whserver_options *o);

/* Binds, loads the certificate and starts serving (wh may be NULL: POSTs
 * then get 405).  Returns 0, TS_EIO
 * (cannot bind/listen; message names the address) or TS_ETLS (the
 * certificate or key does not load).  Ownership: *out is freed with
 * ts_whserver_free(); PEMs are copied. */
int ts_whserver_start(const struct ts_webhook *wh, const struct ts_whserver_options *o,
                      const char *cert_pem, const char *key_pem, struct ts_whserver **out,
                      struct ts_err *err);

/* Serves a new certificate from now on without closing the socket (see the
 * top comment).  Returns 0 or TS_ETLS (the old certificate stays).
 * Thread rule: call from one thread at a time (the controller's loop). */
int ts_whserver_reload(struct ts_whserver *s, const char *cert_pem, const char *key_pem,
                       struct ts_err *err);

/* The bound webhook / health port (useful with port 0); -1 when none. */
int ts_whserver_port(const struct ts_whserver *s);
int ts_whserver_health_port(const struct ts_whserver *s);

/* Number of certificate reloads done (for tests and logs). */
unsigned ts_whserver_generation(struct ts_whserver *s);

void ts_whserver_free(struct ts_whserver *s);

#endif
