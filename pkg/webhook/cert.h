/*
 * cert.h - the webhook's TLS material, as Kueue's internal certificate
 * management (open-policy-agent cert-controller) provides it, made with
 * OpenSSL: a self-signed CA and a serving certificate it signs for
 * <service>.<namespace>.svc (+ .svc.cluster.local, extra DNS names and IP
 * addresses such as 127.0.0.1 for local mode), rotation before expiry,
 * the Secret that stores them, and - when internal management is off - the
 * mounted files (cert-manager style) with a change check the caller's timer
 * drives.
 *
 * Keys are ECDSA P-256 (PKCS#8 PEM), certificates X.509 v3 with random
 * 128-bit serials; notBefore is backdated one hour for clock skew.
 * Nothing here logs: key material never reaches a log line.
 *
 * Thread rule: pure functions over caller-owned values; no shared state.
 * Ownership: a struct ts_cert_bundle owns its PEM strings (_release()).
 */
#ifndef TS_CERT_H
#define TS_CERT_H

#include <cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"
#include "util/err.h"
#include "util/time.h"

#define TS_CERT_DEFAULT_SERVICE "turnstile-webhook-service"
#define TS_CERT_DEFAULT_SECRET  "turnstile-webhook-server-cert"
#define TS_CERT_DAY             (INT64_C(86400))
/* cert-controller's defaults: CA 10 years, serving cert 1 year (Kueue's
 * rotator), rotation 90 days before either expires. */
#define TS_CERT_CA_VALIDITY (3650 * TS_CERT_DAY)
#define TS_CERT_VALIDITY    (365 * TS_CERT_DAY)
#define TS_CERT_LOOKAHEAD   (90 * TS_CERT_DAY)
/* File names in a cert directory (kubernetes.io/tls Secret keys). */
#define TS_CERT_FILE_CERT "tls.crt"
#define TS_CERT_FILE_KEY  "tls.key"
#define TS_CERT_FILE_CA   "ca.crt"
#define TS_CERT_MAX_NAMES 16

struct ts_cert_options {
    const char *service;                      /* default TS_CERT_DEFAULT_SERVICE */
    const char *namespace_;                   /* default "turnstile-system" */
    const char *extra_dns[TS_CERT_MAX_NAMES]; /* NULL-terminated */
    const char *ips[TS_CERT_MAX_NAMES];       /* NULL-terminated; default 127.0.0.1 */
    int64_t ca_validity_s;
    int64_t cert_validity_s;
};

struct ts_cert_bundle {
    char *ca_cert_pem;
    char *ca_key_pem; /* NULL when the CA key is not ours (mounted files) */
    char *cert_pem;
    char *key_pem;
};

/* Defaults above; ips = {"127.0.0.1"}. */
void ts_cert_options_init(struct ts_cert_options *o);

void ts_cert_bundle_init(struct ts_cert_bundle *b);
/* Frees the PEMs (key buffers are cleansed first) and re-initialises. */
void ts_cert_bundle_release(struct ts_cert_bundle *b);

/* Generates a new CA and a serving certificate valid from `now`.
 * Returns 0 or TS_ETLS (OpenSSL failed; message names the step) or
 * TS_EINVAL (an IP address that does not parse).  Ownership: out is
 * released first and then owns the new PEMs. */
int ts_cert_generate(const struct ts_cert_options *o, ts_time now, struct ts_cert_bundle *out,
                     struct ts_err *err);

/* Rotation: when the CA itself is due (see ts_cert_rotation_due) or its
 * key is unknown, generates everything anew; otherwise issues a fresh
 * serving key and certificate signed by the existing CA (so injected
 * caBundles stay valid).  Returns as ts_cert_generate(). */
int ts_cert_rotate(const struct ts_cert_options *o, ts_time now, struct ts_cert_bundle *b,
                   struct ts_err *err);

/* 1 when the bundle must be rotated at `now`: a PEM is missing or does not
 * parse, the serving certificate or the CA expires within `lookahead_s`
 * seconds (or already did), or is not yet valid.  0 otherwise. */
int ts_cert_rotation_due(const struct ts_cert_bundle *b, ts_time now, int64_t lookahead_s);

/* notBefore / notAfter of a PEM certificate.  Returns 0 or TS_EPARSE. */
int ts_cert_validity(const char *cert_pem, ts_time *not_before, ts_time *not_after,
                     struct ts_err *err);

/* Checks that key_pem is the private key of cert_pem.  Returns 0,
 * TS_EPARSE (a PEM does not parse) or TS_ETLS (they do not match). */
int ts_cert_check_pair(const char *cert_pem, const char *key_pem, struct ts_err *err);

/* Verifies cert_pem against the CA ca_pem at time `now` and, when `host`
 * is not NULL, that it is valid for that DNS name or IP address.  Returns
 * 0, TS_EPARSE or TS_ETLS (message from OpenSSL's verifier). */
int ts_cert_verify(const char *ca_pem, const char *cert_pem, const char *host, ts_time now,
                   struct ts_err *err);

/* The kubernetes.io/tls Secret holding the bundle (data: ca.crt, ca.key,
 * tls.crt, tls.key, base64), as Kueue's cert-controller writes it.
 * Ownership: caller cJSON_Delete()s. */
cJSON *ts_cert_secret(const struct ts_cert_bundle *b, const char *name, const char *ns);

/* Reads a bundle back from such a Secret.  Returns 0, TS_EINVAL (a key is
 * missing or not base64).  Ownership: out is released first. */
int ts_cert_from_secret(const cJSON *secret, struct ts_cert_bundle *out, struct ts_err *err);

/* Standard base64 with padding of data[0..len), appended to out. */
void ts_cert_base64(const void *data, size_t len, struct ts_buf *out);
/* Decodes base64 text s[0..len) (padding required), appending to out.
 * Returns 0 or TS_EINVAL. */
int ts_cert_unbase64(const char *s, size_t len, struct ts_buf *out);

/* --- mounted files (internal certificate management off) ----------------- */

/* What a directory's files looked like when last read. */
struct ts_cert_stamp {
    int64_t mtime_ns[3]; /* tls.crt, tls.key, ca.crt (0 = missing) */
    int64_t size[3];
    uint64_t ino[3];
};

/* Reads dir/tls.crt, dir/tls.key and (optional) dir/ca.crt into out and
 * their stamp into *stamp (may be NULL); checks the key matches.  Returns
 * 0, TS_EIO (cannot read; message names the file) or as
 * ts_cert_check_pair().  Ownership: out is released first. */
int ts_cert_files_load(const char *dir, struct ts_cert_bundle *out, struct ts_cert_stamp *stamp,
                       struct ts_err *err);

/* 1 when any of the files changed (mtime, size or inode; symlink swaps
 * of a Secret volume count) since `stamp`, 0 otherwise. */
int ts_cert_files_changed(const char *dir, const struct ts_cert_stamp *stamp);

/* Writes the bundle as dir/tls.crt, dir/tls.key (mode 0600) and
 * dir/ca.crt, each through a temporary file and rename().  Returns 0 or
 * TS_EIO. */
int ts_cert_files_write(const char *dir, const struct ts_cert_bundle *b, struct ts_err *err);

#endif
