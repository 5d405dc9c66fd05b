/*
 * cainject.h - makes the API server trust the webhook: writes the CA of
 * the internally managed certificate into the caBundle of Turnstile's
 * Mutating/ValidatingWebhookConfigurations and of the Kueue CRDs'
 * conversion webhooks (Kueue's cert-controller does the same).  Without it
 * a fresh install refuses every Kueue object (failurePolicy Fail, unknown
 * CA), so it runs at start and after every rotation.
 *
 * Each object is read, changed with ts_whconfig_inject() and written back
 * with its resourceVersion; unchanged objects are not written, a conflict
 * is retried, a missing object is skipped (it may be installed later: the
 * next rotation or restart injects it).
 *
 * Thread rule: blocking (uses the client's synchronous calls); call it
 * from the webhook process's main thread, never from a server thread.
 */
#ifndef TS_WEBHOOK_CAINJECT_H
#define TS_WEBHOOK_CAINJECT_H

#include "kube/client.h"
#include "util/err.h"

#define TS_CAINJECT_MUTATING   "turnstile-mutating-webhook-configuration"
#define TS_CAINJECT_VALIDATING "turnstile-validating-webhook-configuration"

/* Injects ca_pem everywhere.  Returns the number of objects updated, or a
 * negative TS_E* code (err set) when one could not be read or written for
 * another reason than absence. */
int ts_cainject_run(struct ts_kube_client *c, const char *ca_pem, struct ts_err *err);

#endif
