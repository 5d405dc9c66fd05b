/*
 * certsrc.h - where the webhook's certificate comes from, behind one
 * interface the main loop ticks:
 *   internal (Kueue's internalCertManagement.enable, the default): a CA and
 *     serving certificate generated in memory, rotated before expiry, and
 *     (when a directory is given) written there as tls.crt/tls.key/ca.crt;
 *   files (internal management off, cert-manager style): dir/tls.crt and
 *     dir/tls.key as mounted, reloaded when they change.
 * Writing the Secret and injecting the CA bundle are the controller's
 * (cert.h, whconfig.h give it the pieces).
 *
 * Thread rule: one thread (the controller's loop) owns a source.
 * Ownership: ts_certsrc_free() releases everything; bundles are borrowed.
 */
#ifndef TS_CERTSRC_H
#define TS_CERTSRC_H

#include "httpd/cert.h"
#include "util/err.h"
#include "util/time.h"
#include "webhook/cert.h"

struct ts_certsrc_options {
    int internal;    /* 1 = generate and rotate; 0 = read the files in dir */
    const char *dir; /* cert directory; NULL allowed only when internal */
    struct ts_httpd_cert_options cert;
    int64_t lookahead_s; /* rotate this long before expiry (TS_HTTPD_CERT_LOOKAHEAD) */
};

struct ts_certsrc;

/* Internal management on, no directory, the certificate named for
 * TS_CERT_DEFAULT_SERVICE in TS_WEBHOOK_DEFAULT_NAMESPACE. */
void ts_certsrc_options_init(struct ts_certsrc_options *o);

/* Generates (and writes) or loads the certificate.  Returns 0, or the
 * errors of ts_httpd_cert_generate() / ts_cert_files_write() /
 * ts_cert_files_load().  Ownership: free *out with ts_certsrc_free(); dir,
 * service and namespace are copied, o->cert.extra_dns / ips are borrowed
 * (they must live as long as the source, e.g. argv). */
int ts_certsrc_open(const struct ts_certsrc_options *o, ts_time now, struct ts_certsrc **out,
                    struct ts_err *err);

/* The current bundle.  Borrowed until the next tick that reports a
 * change. */
const struct ts_httpd_cert_bundle *ts_certsrc_bundle(const struct ts_certsrc *s);

/* Periodic check: internal sources rotate when due at `now`; file sources
 * reload when the files changed (a half-written pair that does not match
 * is retried on the next tick, the old certificate staying in use).
 * Sets *changed when the bundle is new.  Returns 0 or the error of the
 * failed rotation/reload. */
int ts_certsrc_tick(struct ts_certsrc *s, ts_time now, int *changed, struct ts_err *err);

struct ts_httpd_server;

/* ts_certsrc_tick() and, when the bundle changed, ts_httpd_server_reload() of
 * srv with it (*changed set); logs the outcome (never the key).  Returns 0
 * or the error of either step (the server keeps its old certificate then). */
int ts_certsrc_refresh(struct ts_certsrc *s, struct ts_httpd_server *srv, ts_time now, int *changed,
                       struct ts_err *err);

/* Serves `b` from now on (an internal source only: another replica's
 * certificate, see certsync.h); written to the directory when there is
 * one.  Returns 0, TS_EINVAL (a files source, or the key does not match)
 * or TS_EIO.  b is copied. */
int ts_certsrc_adopt(struct ts_certsrc *s, const struct ts_httpd_cert_bundle *b,
                     struct ts_err *err);

/* The service name certificates are issued for, and the rotation
 * lookahead in seconds.  Borrowed. */
const char *ts_certsrc_service(const struct ts_certsrc *s);
int64_t ts_certsrc_lookahead(const struct ts_certsrc *s);

void ts_certsrc_free(struct ts_certsrc *s);

#endif
