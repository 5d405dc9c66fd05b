/*
 * server.h - the plain-HTTP metrics endpoint: GET /metrics (the registry in
 * text format 0.0.4), /healthz (200 "ok") and /readyz (200 "ok", or 503
 * with the reason the ready callback gives).  Other paths get 404, other
 * methods than GET and HEAD get 405.
 *
 * Threads (house style item 19): libmicrohttpd runs its own polling
 * thread (epoll), so scrapes are answered while the controller's loop is
 * busy, and the loop never waits for a scraper: a render holds the
 * registry's mutex only while it formats, and the response is sent
 * afterwards from a buffer by non-blocking I/O, so a stalled client costs
 * a socket, not a lock or a thread.  Idle connections are closed after
 * `timeout_s`; at most `conn_limit` are open at once, `per_ip_limit` from
 * one address.
 *
 * The ready callback runs on the server's thread: it must only read state
 * that is safe to read from there (an atomic flag, or state behind its own
 * lock).
 *
 * Ownership: the server borrows the registry and the callback's user data
 * (both must outlive it); the options' host is copied.
 */
#ifndef TS_METRICS_SERVER_H
#define TS_METRICS_SERVER_H

#include "metrics/registry.h"
#include "util/buf.h"
#include "util/err.h"

/* Kueue's metrics.bindAddress port. */
#define TS_METRICS_SERVER_DEFAULT_PORT 8443

/* Returns 1 when ready; otherwise 0, after appending the reason to why
 * (it becomes the 503 body). */
typedef int (*ts_metrics_ready_fn)(void *ud, struct ts_buf *why);

struct ts_metrics_server_options {
    const char *host;          /* bind address; NULL or "" = all (dual stack when possible) */
    int port;                  /* 0 = any free port (see ts_metrics_server_port()) */
    ts_metrics_ready_fn ready; /* NULL = always ready */
    void *ready_ud;
    unsigned timeout_s;    /* idle connection timeout, default 10 */
    unsigned conn_limit;   /* default 64 */
    unsigned per_ip_limit; /* default 64 */
    int probes_only;       /* /healthz and /readyz only (a health probe port) */
};

struct ts_metrics_server;

/* Defaults above: all addresses, port 8443, always ready. */
void ts_metrics_server_options_init(struct ts_metrics_server_options *o);

/* Binds and starts serving reg.  Returns 0, TS_EINVAL (host is not an
 * address or resolvable name) or TS_EIO (cannot bind/listen; the message
 * names the address).  Ownership: *out is freed with
 * ts_metrics_server_free(). */
int ts_metrics_server_start(struct ts_metrics_registry *reg,
                            const struct ts_metrics_server_options *o,
                            struct ts_metrics_server **out, struct ts_err *err);

/* The bound port (useful with port 0), or -1 for NULL. */
int ts_metrics_server_port(const struct ts_metrics_server *s);

/* Stops serving (waits for the server thread) and frees.  NULL is fine. */
void ts_metrics_server_free(struct ts_metrics_server *s);

#endif
