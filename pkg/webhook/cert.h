/*
 * cert.h - where the webhook's TLS material (httpd/cert.h makes and
 * checks it) is kept, as Kueue's internal certificate management
 * (open-policy-agent cert-controller) keeps it: the kubernetes.io/tls
 * Secret that stores it, shared between replicas, and - when internal
 * management is off - the mounted files (cert-manager style) with a change
 * check the caller's timer drives.  Also the names the webhook's
 * certificate and Secret have by default, and the base64 the Secret and
 * the webhook configurations' caBundle use.
 *
 * Nothing here logs: key material never reaches a log line.
 *
 * Thread rule: pure functions over caller-owned values (and files); no
 * shared state.
 * Ownership: a struct ts_httpd_cert_bundle owns its PEM strings
 * (ts_httpd_cert_bundle_release()).
 */
#ifndef TS_CERT_H
#define TS_CERT_H

#include <cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "httpd/cert.h"
#include "util/buf.h"
#include "util/err.h"

#define TS_CERT_DEFAULT_SERVICE "turnstile-webhook-service"
#define TS_CERT_DEFAULT_SECRET  "turnstile-webhook-server-cert"
/* File names in a cert directory (kubernetes.io/tls Secret keys). */
#define TS_CERT_FILE_CERT "tls.crt"
#define TS_CERT_FILE_KEY  "tls.key"
#define TS_CERT_FILE_CA   "ca.crt"

/* The kubernetes.io/tls Secret holding the bundle (data: ca.crt, ca.key,
 * tls.crt, tls.key, base64), as Kueue's cert-controller writes it.
 * Ownership: caller cJSON_Delete()s. */
cJSON *ts_cert_secret(const struct ts_httpd_cert_bundle *b, const char *name, const char *ns);

/* Reads a bundle back from such a Secret.  Returns 0, TS_EINVAL (a key is
 * missing or not base64).  Ownership: out is released first. */
int ts_cert_from_secret(const cJSON *secret, struct ts_httpd_cert_bundle *out, struct ts_err *err);

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
 * ts_httpd_cert_check_pair().  Ownership: out is released first. */
int ts_cert_files_load(const char *dir, struct ts_httpd_cert_bundle *out,
                       struct ts_cert_stamp *stamp, struct ts_err *err);

/* 1 when any of the files changed (mtime, size or inode; symlink swaps
 * of a Secret volume count) since `stamp`, 0 otherwise. */
int ts_cert_files_changed(const char *dir, const struct ts_cert_stamp *stamp);

/* Writes the bundle as dir/tls.crt, dir/tls.key (mode 0600) and
 * dir/ca.crt, each through a temporary file and rename().  Returns 0 or
 * TS_EIO. */
int ts_cert_files_write(const char *dir, const struct ts_httpd_cert_bundle *b, struct ts_err *err);

#endif
