/*
 * certsrc.c - generated-and-rotated or mounted-and-reloaded certificates.
 */
#include "webhook/certsrc.h"

#include <stdlib.h>
#include <string.h>

#include "httpd/server.h"
#include "util/alloc.h"
#include "util/log.h"
#include "webhook/webhook.h"

struct ts_certsrc {
    int internal;
    char *dir;
    char *service, *ns;
    struct ts_httpd_cert_options cert; /* service/namespace point at the copies */
    int64_t lookahead_s;
    struct ts_httpd_cert_bundle bundle;
    struct ts_cert_stamp stamp;
};

void ts_certsrc_options_init(struct ts_certsrc_options *o)
{
    memset(o, 0, sizeof(*o));
    o->internal = 1;
    ts_httpd_cert_options_init(&o->cert, TS_CERT_DEFAULT_SERVICE, TS_WEBHOOK_DEFAULT_NAMESPACE);
    o->lookahead_s = TS_HTTPD_CERT_LOOKAHEAD;
}

/* Generates or rotates, then writes the files when there is a dir. */
static int issue(struct ts_certsrc *s, ts_time now, int fresh, struct ts_err *err)
{
    struct ts_httpd_cert_bundle b;
    int rc;

    ts_httpd_cert_bundle_init(&b);
    if (!fresh) {
        b.ca_cert_pem = ts_xstrdup(s->bundle.ca_cert_pem);
        b.ca_key_pem = s->bundle.ca_key_pem ? ts_xstrdup(s->bundle.ca_key_pem) : NULL;
    }
    rc = fresh ? ts_httpd_cert_generate(&s->cert, now, &b, err)
               : ts_httpd_cert_rotate(&s->cert, now, &b, err);
    if (!rc && s->dir)
        rc = ts_cert_files_write(s->dir, &b, err);
    if (rc) {
        ts_httpd_cert_bundle_release(&b);
        return rc;
    }
    ts_httpd_cert_bundle_release(&s->bundle);
    s->bundle = b;
    return 0;
}

int ts_certsrc_open(const struct ts_certsrc_options *o, ts_time now, struct ts_certsrc **out,
                    struct ts_err *err)
{
    struct ts_certsrc *s = ts_xcalloc(1, sizeof(*s));
    int rc;

    *out = NULL;
    if (!o->internal && !o->dir) {
        free(s);
        return ts_err_set(err, TS_EINVAL,
                          "a certificate directory is required when internal "
                          "certificate management is off");
    }
    s->internal = o->internal;
    s->dir = o->dir ? ts_xstrdup(o->dir) : NULL;
    s->cert = o->cert;
    s->service = ts_xstrdup(o->cert.service ? o->cert.service : TS_CERT_DEFAULT_SERVICE);
    s->ns = ts_xstrdup(o->cert.namespace_ ? o->cert.namespace_ : "turnstile-system");
    s->cert.service = s->service;
    s->cert.namespace_ = s->ns;
    s->lookahead_s = o->lookahead_s;
    ts_httpd_cert_bundle_init(&s->bundle);
    rc = s->internal ? issue(s, now, 1, err)
                     : ts_cert_files_load(s->dir, &s->bundle, &s->stamp, err);
    if (rc) {
        ts_certsrc_free(s);
        return rc;
    }
    *out = s;
    return 0;
}

const struct ts_httpd_cert_bundle *ts_certsrc_bundle(const struct ts_certsrc *s)
{
    return &s->bundle;
}

int ts_certsrc_tick(struct ts_certsrc *s, ts_time now, int *changed, struct ts_err *err)
{
    struct ts_cert_stamp stamp;
    int rc;

    *changed = 0;
    if (s->internal) {
        if (!ts_httpd_cert_rotation_due(&s->bundle, now, s->lookahead_s))
            return 0;
        rc = issue(s, now, 0, err);
    } else {
        if (!ts_cert_files_changed(s->dir, &s->stamp))
            return 0;
        rc = ts_cert_files_load(s->dir, &s->bundle, &stamp, err);
        if (!rc)
            s->stamp = stamp;
    }
    *changed = rc == 0;
    return rc;
}

int ts_certsrc_refresh(struct ts_certsrc *s, struct ts_httpd_server *srv, ts_time now, int *changed,
                       struct ts_err *err)
{
    int rc = ts_certsrc_tick(s, now, changed, err);

    if (!rc && *changed)
        rc = ts_httpd_server_reload(srv, s->bundle.cert_pem, s->bundle.key_pem, err);
    if (rc)
        ts_log_warn("webhook", "certificate refresh failed: %s", err ? err->msg : ts_strerror(rc));
    else if (*changed)
        ts_log_info("webhook", "certificate reloaded generation=%u source=%s",
                    ts_httpd_server_generation(srv), s->internal ? "internal" : "files");
    return rc;
}

static char *dup_or_null(const char *p)
{
    return p ? ts_xstrdup(p) : NULL;
}

int ts_certsrc_adopt(struct ts_certsrc *s, const struct ts_httpd_cert_bundle *b, struct ts_err *err)
{
    struct ts_httpd_cert_bundle copy;
    int rc;

    if (!s->internal)
        return ts_err_set(err, TS_EINVAL, "mounted certificates are not replaced");
    if ((rc = ts_httpd_cert_check_pair(b->cert_pem, b->key_pem, err)))
        return rc;
    ts_httpd_cert_bundle_init(&copy);
    copy.ca_cert_pem = dup_or_null(b->ca_cert_pem);
    copy.ca_key_pem = dup_or_null(b->ca_key_pem);
    copy.cert_pem = dup_or_null(b->cert_pem);
    copy.key_pem = dup_or_null(b->key_pem);
    if (s->dir && (rc = ts_cert_files_write(s->dir, &copy, err))) {
        ts_httpd_cert_bundle_release(&copy);
        return rc;
    }
    ts_httpd_cert_bundle_release(&s->bundle);
    s->bundle = copy;
    return 0;
}

const char *ts_certsrc_service(const struct ts_certsrc *s)
{
    return s->service;
}

int64_t ts_certsrc_lookahead(const struct ts_certsrc *s)
{
    return s->lookahead_s;
}

void ts_certsrc_free(struct ts_certsrc *s)
{
    if (!s)
        return;
    ts_httpd_cert_bundle_release(&s->bundle);
    free(s->dir);
    free(s->service);
    free(s->ns);
    free(s);
}
