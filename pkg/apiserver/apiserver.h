/*
 * apiserver.h - turnstile-apiserver: a local stand-in for kube-apiserver
 * that real kubectl (1.27-1.33) and python3-kubernetes can use, answering
 * as kube-apiserver does for what those clients send.
 *
 * Threading model (chosen once, kept everywhere): libmicrohttpd runs with
 * MHD_USE_THREAD_PER_CONNECTION and an internal poll thread.  Every
 * request handler takes ONE mutex around the whole server state (resource
 * registry, object store, event history) and drops it before any network
 * write.  Watches block in libmicrohttpd's content-reader callback on one
 * condition variable that every write broadcasts, so a watch costs a
 * thread and no polling.  Why: requests are short (microseconds under the
 * lock), watch streams are long and blocking, and a thread per connection
 * makes both trivial and race-free; a test server never has thousands of
 * connections.
 *
 * Ownership: ts_apiserver_new() returns a handle the caller frees with
 * ts_apiserver_free(), which stops the daemon first.
 */
#ifndef TS_APISERVER_H
#define TS_APISERVER_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

struct ts_apiserver;

struct ts_apiserver_opts {
    const char *listen;           /* "127.0.0.1:6443"; port 0 picks a free one */
    const char *tls_cert_file;    /* PEM serving certificate, or NULL */
    const char *tls_key_file;     /* PEM private key, or NULL */
    int insecure_http;            /* serve plain HTTP */
    const char *token;            /* bearer token required when not NULL */
    const char *kubeconfig_out;   /* kubeconfig written after start, or NULL */
    const char *version_minor;    /* "/version" minor, default "32" */
    size_t event_history;         /* watch history events kept (default 10000) */
    int access_log;               /* one log line per request */
    const char *data_dir;         /* write-ahead log + snapshot directory, or NULL */
    uint64_t snapshot_every;      /* compact the log after this many records (0: 100000) */
    int64_t simulate_job_runtime; /* ns; > 0 runs the Job/PyTorchJob simulator */
    /* "NAMESPACE/NAME[:PORT]=HOST:PORT": where a webhook clientConfig.service
     * is reached (services cannot be resolved here); TLS is still verified
     * against NAME.NAMESPACE.svc */
    const char *const *webhook_services;
    size_t n_webhook_services;
    /* --faults SPEC (apiserver/faults.h), or NULL: off; borrowed until
     * ts_apiserver_start() has parsed it */
    const char *faults;
};

/* Creates a server with the built-in resources and seeded namespaces.
 * Nothing listens until ts_apiserver_start().  Never fails.
 * Ownership: caller frees with ts_apiserver_free(); opts is copied. */
struct ts_apiserver *ts_apiserver_new(const struct ts_apiserver_opts *opts);

/* Generates TLS material if needed, binds and starts serving, then writes
 * the kubeconfig.  Returns 0, TS_EINVAL (bad --listen or --faults), TS_ETLS or TS_EIO
 * (bind failure, unwritable kubeconfig). */
int ts_apiserver_start(struct ts_apiserver *s, struct ts_err *err);

/* The bound TCP port (after a successful start), else 0. */
int ts_apiserver_port(const struct ts_apiserver *s);

/* The server URL ("https://127.0.0.1:PORT").  Ownership: borrowed, valid
 * until ts_apiserver_free(). */
const char *ts_apiserver_url(const struct ts_apiserver *s);

/* Parses a Go duration ("90s", "1m30s", "250ms", "1.5h") into
 * nanoseconds.  Returns 0 or TS_EPARSE. */
int ts_apiserver_parse_duration(const char *s, int64_t *out);

/* Stops the daemon (ends open watches cleanly) and frees everything.
 * NULL does nothing. */
void ts_apiserver_free(struct ts_apiserver *s);

#endif
