/*
 * cred.h - the credentials of one client: a static token, a token file
 * re-read when it changes (projected service account tokens rotate), or
 * an exec credential plugin (client.authentication.k8s.io ExecCredential)
 * whose result is cached until its expirationTimestamp and refreshed
 * after it or after a 401.
 *
 * The plugin runs with KUBERNETES_EXEC_INFO set (spec.interactive false,
 * spec.cluster when provideClusterInfo), the configured env added, stdin
 * from /dev/null and stderr passed through, as client-go runs it.  It runs
 * synchronously with a 60 s limit: plugins run rarely (at expiry), and
 * client-go blocks the calling request the same way.
 *
 * Thread rule: one owner.  Ownership: ts_kube_cred_new() returns a handle
 * freed with ts_kube_cred_free(); strings returned are borrowed until the
 * next call.  Tokens and keys are never logged.
 */
#ifndef TS_KUBE_CRED_H
#define TS_KUBE_CRED_H

#include <stddef.h>
#include <stdint.h>

#include "kube/kubeconfig.h"
#include "util/err.h"

struct ts_kube_cred;

/* What a request needs: a bearer token and/or a client key pair, all
 * borrowed (valid until the next ts_kube_cred_get()). */
struct ts_kube_auth {
    const char *token;              /* NULL: no Authorization header */
    const char *cert_pem, *key_pem; /* from an exec plugin, or NULL */
    size_t cert_pem_len, key_pem_len;
};

/* Creates the credential source for cfg (borrowed: must outlive it). */
struct ts_kube_cred *ts_kube_cred_new(const struct ts_kubeconfig *cfg);

void ts_kube_cred_free(struct ts_kube_cred *c);

/* Fills *out for a request made at wall-clock time `now` (ns), running
 * the exec plugin or re-reading the token file if needed.  Returns 0,
 * TS_EIO (token file unreadable, plugin failed to run or exited non-zero)
 * or TS_EPARSE (bad ExecCredential). */
int ts_kube_cred_get(struct ts_kube_cred *c, int64_t now, struct ts_kube_auth *out,
                     struct ts_err *err);

/* Forgets cached credentials after a 401 so the next get refreshes them.
 * Returns 1 when a refresh can help (token file or exec plugin). */
int ts_kube_cred_invalidate(struct ts_kube_cred *c);

/* Times the exec plugin ran (tests). */
unsigned ts_kube_cred_exec_runs(const struct ts_kube_cred *c);

#endif
