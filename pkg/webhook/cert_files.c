/*
 * cert_files.c - where certificates are kept: the kubernetes.io/tls
 * Secret (base64 data), and a directory of PEM files (the Secret mounted
 * by kubelet, or written by Turnstile itself in local mode) with the
 * stat-based change check that drives reloading.
 */
#include "webhook/cert.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json/json.h"
#include "util/alloc.h"

#define MAX_PEM (1024 * 1024)

static const char *const files[3] = {TS_CERT_FILE_CERT, TS_CERT_FILE_KEY, TS_CERT_FILE_CA};

void ts_cert_base64(const void *data, size_t len, struct ts_buf *out)
{
    unsigned char chunk[4 * 48 / 3 + 1];
    const unsigned char *p = data;

    /* 48 is a multiple of 3: only the last chunk gets padding. */
    while (len > 0) {
        size_t n = len < 48 ? len : 48;
        int w = EVP_EncodeBlock(chunk, p, (int)n);

        ts_buf_add(out, chunk, (size_t)w);
        p += n;
        len -= n;
    }
}

int ts_cert_unbase64(const char *s, size_t len, struct ts_buf *out)
{
    unsigned char chunk[48];

    if (len % 4)
        return TS_EINVAL;
    for (size_t off = 0; off < len; off += 64) {
        size_t n = len - off < 64 ? len - off : 64;
        int w = EVP_DecodeBlock(chunk, (const unsigned char *)s + off, (int)n);
        size_t pad = 0;

        if (w < 0)
            return TS_EINVAL;
        /* EVP_DecodeBlock counts padding as zero bytes. */
        if (off + n == len)
            pad = (n > 0 && s[len - 1] == '=') + (n > 1 && s[len - 2] == '=');
        ts_buf_add(out, chunk, (size_t)w - pad);
    }
    return 0;
}

static void add_data(cJSON *data, const char *key, const char *pem)
{
    struct ts_buf b = TS_BUF_INIT;

    if (!pem)
        return;
    ts_cert_base64(pem, strlen(pem), &b);
    cJSON_AddStringToObject(data, key, b.ptr);
    OPENSSL_cleanse(b.ptr, b.len);
    ts_buf_release(&b);
}

cJSON *ts_cert_secret(const struct ts_httpd_cert_bundle *b, const char *name, const char *ns)
{
    cJSON *s = cJSON_CreateObject();
    cJSON *meta, *data;

    cJSON_AddStringToObject(s, "apiVersion", "v1");
    cJSON_AddStringToObject(s, "kind", "Secret");
    meta = cJSON_AddObjectToObject(s, "metadata");
    cJSON_AddStringToObject(meta, "name", name);
    cJSON_AddStringToObject(meta, "namespace", ns);
    cJSON_AddStringToObject(s, "type", "kubernetes.io/tls");
    data = cJSON_AddObjectToObject(s, "data");
    add_data(data, "ca.crt", b->ca_cert_pem);
    add_data(data, "ca.key", b->ca_key_pem);
    add_data(data, "tls.crt", b->cert_pem);
    add_data(data, "tls.key", b->key_pem);
    return s;
}

static int get_data(const cJSON *secret, const char *key, int required, char **out,
                    struct ts_err *err)
{
    char path[64];
    const char *v;
    struct ts_buf b = TS_BUF_INIT;

    snprintf(path, sizeof(path), "data[%s]", key);
    v = ts_json_get_string(secret, path);
    if (!v)
        return required ? ts_err_set(err, TS_EINVAL, "secret has no data[%s]", key) : 0;
    if (ts_cert_unbase64(v, strlen(v), &b) != 0) {
        ts_buf_release(&b);
        return ts_err_set(err, TS_EINVAL, "secret data[%s] is not base64", key);
    }
    *out = ts_buf_take(&b);
    return 0;
}

int ts_cert_from_secret(const cJSON *secret, struct ts_httpd_cert_bundle *out, struct ts_err *err)
{
    struct ts_httpd_cert_bundle b;
    int rc;

    ts_httpd_cert_bundle_init(&b);
    rc = get_data(secret, "ca.crt", 1, &b.ca_cert_pem, err);
    if (!rc)
        rc = get_data(secret, "ca.key", 0, &b.ca_key_pem, err);
    if (!rc)
        rc = get_data(secret, "tls.crt", 1, &b.cert_pem, err);
    if (!rc)
        rc = get_data(secret, "tls.key", 1, &b.key_pem, err);
    ts_httpd_cert_bundle_release(out);
    if (rc)
        ts_httpd_cert_bundle_release(&b);
    else
        *out = b;
    return rc;
}

/* --- files ------------------------------------------------------------------- */

static void join(char *buf, size_t n, const char *dir, const char *file)
{
    snprintf(buf, n, "%s/%s", dir, file);
}

/* Reads a whole (small) file; NULL with err set on failure. */
static char *read_file(const char *path, struct ts_err *err)
{
    struct ts_buf b;
    char chunk[4096];
    FILE *f = fopen(path, "r");
    size_t n;

    if (!f) {
        ts_err_set(err, TS_EIO, "open '%s': %s", path, strerror(errno));
        return NULL;
    }
    ts_buf_init(&b, MAX_PEM);
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
        if (ts_buf_add(&b, chunk, n) != 0) {
            ts_err_set(err, TS_EIO, "read '%s': file too large", path);
            break;
        }
    }
    fclose(f);
    if (err && err->code) {
        ts_buf_release(&b);
        return NULL;
    }
    return ts_buf_take(&b);
}

static void stamp_one(const char *dir, size_t i, struct ts_cert_stamp *st)
{
    char path[4096];
    struct stat sb;

    join(path, sizeof(path), dir, files[i]);
    if (stat(path, &sb) != 0) {
        st->mtime_ns[i] = 0;
        st->size[i] = 0;
        st->ino[i] = 0;
        return;
    }
    st->mtime_ns[i] = (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec;
    st->size[i] = (int64_t)sb.st_size;
    st->ino[i] = (uint64_t)sb.st_ino;
}

int ts_cert_files_load(const char *dir, struct ts_httpd_cert_bundle *out,
                       struct ts_cert_stamp *stamp, struct ts_err *err)
{
    struct ts_httpd_cert_bundle b;
    struct ts_err e = {0};
    char path[4096];
    int rc;

    ts_httpd_cert_bundle_init(&b);
    if (stamp) {
        for (size_t i = 0; i < 3; i++)
            stamp_one(dir, i, stamp);
    }
    join(path, sizeof(path), dir, TS_CERT_FILE_CERT);
    b.cert_pem = read_file(path, &e);
    join(path, sizeof(path), dir, TS_CERT_FILE_KEY);
    if (!e.code)
        b.key_pem = read_file(path, &e);
    join(path, sizeof(path), dir, TS_CERT_FILE_CA);
    if (!e.code && access(path, F_OK) == 0)
        b.ca_cert_pem = read_file(path, &e);
    rc = e.code ? e.code : ts_httpd_cert_check_pair(b.cert_pem, b.key_pem, &e);
    if (rc) {
        ts_httpd_cert_bundle_release(&b);
        return ts_err_set(err, rc, "%s", e.msg);
    }
    ts_httpd_cert_bundle_release(out);
    *out = b;
    return 0;
}

int ts_cert_files_changed(const char *dir, const struct ts_cert_stamp *stamp)
{
    struct ts_cert_stamp now;

    for (size_t i = 0; i < 3; i++)
        stamp_one(dir, i, &now);
    return memcmp(&now, stamp, sizeof(now)) != 0;
}

static int write_file(const char *dir, const char *file, const char *data, mode_t mode,
                      struct ts_err *err)
{
    char path[4096], tmp[4200];
    size_t len = strlen(data);
    int fd, ok;

    join(path, sizeof(path), dir, file);
    snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());
    fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
    if (fd < 0)
        return ts_err_set(err, TS_EIO, "create '%s': %s", tmp, strerror(errno));
    ok = write(fd, data, len) == (ssize_t)len;
    ok = (close(fd) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        unlink(tmp);
        return ts_err_set(err, TS_EIO, "write '%s': %s", path, strerror(errno));
    }
    return 0;
}

int ts_cert_files_write(const char *dir, const struct ts_httpd_cert_bundle *b, struct ts_err *err)
{
    int rc;

    if (!b->cert_pem || !b->key_pem)
        return ts_err_set(err, TS_EINVAL, "incomplete certificate bundle");
    rc = write_file(dir, TS_CERT_FILE_KEY, b->key_pem, 0600, err);
    if (!rc)
        rc = write_file(dir, TS_CERT_FILE_CERT, b->cert_pem, 0644, err);
    if (!rc && b->ca_cert_pem)
        rc = write_file(dir, TS_CERT_FILE_CA, b->ca_cert_pem, 0644, err);
    return rc;
}
