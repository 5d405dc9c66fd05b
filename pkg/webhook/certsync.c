/*
 * certsync.c - the webhook certificate shared through a Secret (see
 * certsync.h).
 */
#include "webhook/certsync.h"

#include <stdio.h>
#include <string.h>

#include "json/json.h"
#include "util/log.h"

static const struct ts_kube_resource res_secrets = {"", "v1", "secrets", "Secret", 1};

enum ts_certsync_action ts_certsync_decide(const struct ts_httpd_cert_bundle *ours,
                                           const struct ts_httpd_cert_bundle *theirs,
                                           const char *host, ts_time now, int64_t lookahead_s,
                                           struct ts_err *why)
{
    if (!theirs) {
        ts_err_set(why, TS_ENOTFOUND, "no secret yet");
        return TS_CERTSYNC_WRITE;
    }
    if (ts_httpd_cert_check_pair(theirs->cert_pem, theirs->key_pem, why) ||
        ts_httpd_cert_verify(theirs->ca_cert_pem, theirs->cert_pem, host, now, why))
        return TS_CERTSYNC_WRITE;
    if (!theirs->ca_key_pem) { /* nobody could rotate it */
        ts_err_set(why, TS_EINVAL, "secret has no data[ca.key]");
        return TS_CERTSYNC_WRITE;
    }
    if (ts_httpd_cert_rotation_due(theirs, now, lookahead_s)) {
        ts_err_set(why, TS_EINVAL, "certificate expires within the rotation lookahead");
        return TS_CERTSYNC_WRITE;
    }
    return strcmp(theirs->cert_pem, ours->cert_pem) ? TS_CERTSYNC_ADOPT : TS_CERTSYNC_KEEP;
}

/* Creates the Secret (rv NULL) or replaces the one at rv with ours. */
static int write_secret(struct ts_kube_client *c, const struct ts_httpd_cert_bundle *ours,
                        const char *ns, const char *name, const char *rv, struct ts_err *err)
{
    cJSON *body = ts_cert_secret(ours, name, ns);
    struct ts_kube_req r = {0};
    int rc;

    if (rv) {
        cJSON_AddStringToObject(cJSON_GetObjectItem(body, "metadata"), "resourceVersion", rv);
        r.verb = TS_KUBE_UPDATE;
        r.res = &res_secrets;
        r.ns = ns;
        r.name = name;
        r.body = body;
        rc = ts_kube_do(c, &r, NULL, err);
    } else {
        rc = ts_kube_create_sync(c, &res_secrets, ns, body, NULL, err);
    }
    cJSON_Delete(body);
    return rc;
}

int ts_certsync_run(struct ts_kube_client *c, struct ts_certsrc *src, const char *ns,
                    const char *name, ts_time now, int *changed, struct ts_err *err)
{
    char host[600];

    *changed = 0;
    snprintf(host, sizeof(host), "%s.%s.svc", ts_certsrc_service(src), ns);
    for (int attempt = 0; attempt < 3; attempt++) {
        const struct ts_httpd_cert_bundle *ours = ts_certsrc_bundle(src);
        struct ts_httpd_cert_bundle theirs;
        struct ts_err why = {0};
        cJSON *secret = NULL;
        char rv[64] = "";
        int rc = ts_kube_get_sync(c, &res_secrets, ns, name, &secret, err);
        enum ts_certsync_action act;

        if (rc && rc != TS_ENOTFOUND)
            return rc;
        ts_err_clear(err);
        ts_httpd_cert_bundle_init(&theirs);
        if (secret) {
            snprintf(rv, sizeof(rv), "%s",
                     ts_json_get_string(secret, "metadata.resourceVersion")
                         ? ts_json_get_string(secret, "metadata.resourceVersion")
                         : "");
            if (ts_cert_from_secret(secret, &theirs, &why))
                ts_httpd_cert_bundle_release(&theirs); /* unusable: replaced below */
        }
        if (secret && theirs.cert_pem)
            act = ts_certsync_decide(ours, &theirs, host, now, ts_certsrc_lookahead(src), &why);
        else
            act = ts_certsync_decide(ours, NULL, host, now, 0, secret ? NULL : &why);
        cJSON_Delete(secret);
        if (act == TS_CERTSYNC_ADOPT) {
            rc = ts_certsrc_adopt(src, &theirs, err);
            ts_httpd_cert_bundle_release(&theirs);
            if (!rc) {
                *changed = 1;
                ts_log_info("webhook", "certificate adopted from secret %s/%s", ns, name);
            }
            return rc;
        }
        ts_httpd_cert_bundle_release(&theirs);
        if (act == TS_CERTSYNC_KEEP)
            return 0;
        rc = write_secret(c, ours, ns, name, rv[0] ? rv : NULL, err);
        if (rc == TS_ECONFLICT || rc == TS_EEXIST) { /* another replica won: read its */
            ts_err_clear(err);
            continue;
        }
        if (!rc)
            ts_log_info("webhook", "certificate stored in secret %s/%s (%s)", ns, name, why.msg);
        return rc;
    }
    return ts_err_set(err, TS_ECONFLICT, "secret %s/%s kept changing", ns, name);
}
