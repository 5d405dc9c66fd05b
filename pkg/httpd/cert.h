/*
 * cert.h - the TLS material of Turnstile's HTTPS servers, as Kueue's
 * internal certificate management (open-policy-agent cert-controller)
 * provides it, made with OpenSSL: a self-signed CA and a serving
 * certificate it signs for <service>.<namespace>.svc (+ .svc.cluster.local,
 * extra DNS names and IP addresses such as 127.0.0.1 for local mode),
 * rotation before expiry, and the checks a server runs before it serves a
 * certificate.  The webhook keeps its certificates in a Secret or a
 * directory (webhook/cert.h); the visibility server generates one at start.
 *
 * Keys are ECDSA P-256 (PKCS#8 PEM), certificates X.509 v3 with random
 * 128-bit serials; notBefore is backdated one hour for clock skew.
 * Nothing here logs: key material never reaches a log line.
 *
 * Thread rule: pure functions over caller-owned values; no shared state.
 * Ownership: a struct ts_httpd_cert_bundle owns its PEM strings
 * (ts_httpd_cert_bundle_release()); options borrow their strings.
 */
#ifndef TS_HTTPD_CERT_H
#define TS_HTTPD_CERT_H

#include <stdint.h>

#include "util/err.h"
#include "util/time.h"

#define TS_HTTPD_CERT_DAY (INT64_C(86400))
/* cert-controller's defaults: CA 10 years, serving cert 1 year (Kueue's
 * rotator), rotation 90 days before either expires. */
#define TS_HTTPD_CERT_CA_VALIDITY (3650 * TS_HTTPD_CERT_DAY)
#define TS_HTTPD_CERT_VALIDITY    (365 * TS_HTTPD_CERT_DAY)
#define TS_HTTPD_CERT_LOOKAHEAD   (90 * TS_HTTPD_CERT_DAY)
#define TS_HTTPD_CERT_MAX_NAMES   16

struct ts_httpd_cert_options {
    const char *service;                            /* the Service the server is reached by */
    const char *namespace_;                         /* its namespace */
    const char *extra_dns[TS_HTTPD_CERT_MAX_NAMES]; /* NULL-terminated */
    const char *ips[TS_HTTPD_CERT_MAX_NAMES];       /* NULL-terminated; default 127.0.0.1 */
    int64_t ca_validity_s;
    int64_t cert_validity_s;
};

struct ts_httpd_cert_bundle {
    char *ca_cert_pem;
    char *ca_key_pem; /* NULL when the CA key is not ours (mounted files) */
    char *cert_pem;
    char *key_pem;
};

/* Names the certificate for service.namespace_ (both borrowed: they must
 * outlive the options' use); the validities above; ips = {"127.0.0.1"}. */
void ts_httpd_cert_options_init(struct ts_httpd_cert_options *o, const char *service,
                                const char *namespace_);

void ts_httpd_cert_bundle_init(struct ts_httpd_cert_bundle *b);
/* Frees the PEMs (key buffers are cleansed first) and re-initialises. */
void ts_httpd_cert_bundle_release(struct ts_httpd_cert_bundle *b);

/* Generates a new CA and a serving certificate valid from `now`.
 * Returns 0 or TS_ETLS (OpenSSL failed; message names the step) or
 * TS_EINVAL (an IP address that does not parse).  Ownership: out is
 * released first and then owns the new PEMs. */
int ts_httpd_cert_generate(const struct ts_httpd_cert_options *o, ts_time now,
                           struct ts_httpd_cert_bundle *out, struct ts_err *err);

/* Rotation: when the CA itself is due (see ts_httpd_cert_rotation_due) or
 * its key is unknown, generates everything anew; otherwise issues a fresh
 * serving key and certificate signed by the existing CA (so injected
 * caBundles stay valid).  Returns as ts_httpd_cert_generate().
 * Ownership: b keeps owning its PEMs (the replaced ones are freed). */
int ts_httpd_cert_rotate(const struct ts_httpd_cert_options *o, ts_time now,
                         struct ts_httpd_cert_bundle *b, struct ts_err *err);

/* 1 when the bundle must be rotated at `now`: a PEM is missing or does not
 * parse, the serving certificate or the CA expires within `lookahead_s`
 * seconds (or already did), or is not yet valid.  0 otherwise. */
int ts_httpd_cert_rotation_due(const struct ts_httpd_cert_bundle *b, ts_time now,
                               int64_t lookahead_s);

/* notBefore / notAfter of a PEM certificate.  Returns 0 or TS_EPARSE. */
int ts_httpd_cert_validity(const char *cert_pem, ts_time *not_before, ts_time *not_after,
                           struct ts_err *err);

/* Checks that key_pem is the private key of cert_pem.  Returns 0,
 * TS_EPARSE (a PEM does not parse) or TS_ETLS (they do not match). */
int ts_httpd_cert_check_pair(const char *cert_pem, const char *key_pem, struct ts_err *err);

/* Verifies cert_pem against the CA ca_pem at time `now` and, when `host`
 * is not NULL, that it is valid for that DNS name or IP address.  Returns
 * 0, TS_EPARSE or TS_ETLS (message from OpenSSL's verifier). */
int ts_httpd_cert_verify(const char *ca_pem, const char *cert_pem, const char *host, ts_time now,
                         struct ts_err *err);

#endif
