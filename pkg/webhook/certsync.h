/*
 * certsync.h - one certificate for every webhook replica: the internally
 * managed certificate lives in a Secret (Kueue's cert-controller keeps
 * kueue-webhook-server-cert; ours is turnstile-webhook-server-cert, type
 * kubernetes.io/tls, data ca.crt/ca.key/tls.crt/tls.key).  The first
 * replica to start creates it; the others adopt it before they serve, so
 * the caBundle injected into the webhook configurations is valid for all
 * of them.  A replica that rotates writes the Secret with the
 * resourceVersion it read; one that loses that race reads the winner's and
 * adopts it.  A Secret that is unusable (missing keys, a key that does not
 * match, not valid for the service's name, expiring within the rotation
 * lookahead) is replaced.
 *
 * Thread rule: blocking (the client's synchronous calls); the webhook
 * process's main thread only, never a server thread.
 */
#ifndef TS_WEBHOOK_CERTSYNC_H
#define TS_WEBHOOK_CERTSYNC_H

#include "httpd/cert.h"
#include "kube/client.h"
#include "util/err.h"
#include "webhook/cert.h"
#include "webhook/certsrc.h"

enum ts_certsync_action {
    TS_CERTSYNC_KEEP = 0, /* the Secret holds our certificate */
    TS_CERTSYNC_ADOPT,    /* the Secret holds another valid one: serve it */
    TS_CERTSYNC_WRITE,    /* no Secret, or an unusable one: write ours */
};

/* Pure: what to do with ours and the Secret's bundle (NULL: no Secret),
 * for a certificate that must be valid for `host` at `now` and not expire
 * within lookahead_s.  When the Secret's is unusable, `why` says so. */
enum ts_certsync_action ts_certsync_decide(const struct ts_httpd_cert_bundle *ours,
                                           const struct ts_httpd_cert_bundle *theirs,
                                           const char *host, ts_time now, int64_t lookahead_s,
                                           struct ts_err *why);

/* Reads Secret ns/name and acts on ts_certsync_decide(); an adopted
 * bundle replaces src's (ts_certsrc_adopt) and sets *changed, so the
 * caller reloads its server and injects the CA.  Returns 0 or the error of
 * the read or write (a write conflict is retried by reading again). */
int ts_certsync_run(struct ts_kube_client *c, struct ts_certsrc *src, const char *ns,
                    const char *name, ts_time now, int *changed, struct ts_err *err);

#endif
