/*
 * tls.c - TLS material: a fresh CA and a serving certificate it signs
 * (SAN IP:127.0.0.1, IP:::1, DNS:localhost; ECDSA P-256, one year),
 * generated with OpenSSL when no files are given, or PEM files loaded
 * from disk.
 */
#include "apiserver/server_int.h"

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/alloc.h"

static char *bio_take(BIO *b)
{
    char *data;
    long n = BIO_get_mem_data(b, &data);
    char *out = ts_xstrndup(data, (size_t)(n > 0 ? n : 0));

    BIO_free(b);
    return out;
}

static char *key_pem(EVP_PKEY *k)
{
    BIO *b = BIO_new(BIO_s_mem());

    PEM_write_bio_PrivateKey(b, k, NULL, NULL, 0, NULL, NULL);
    return bio_take(b);
}

static char *cert_pem(X509 *x)
{
    BIO *b = BIO_new(BIO_s_mem());

    PEM_write_bio_X509(b, x);
    return bio_take(b);
}

static int add_ext(X509 *cert, X509 *issuer, int nid, const char *value)
{
    X509V3_CTX ctx;
    X509_EXTENSION *ext;

    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer, cert, NULL, NULL, 0);
    if (!(ext = X509V3_EXT_conf_nid(NULL, &ctx, nid, value)))
        return -1;
    X509_add_ext(cert, ext, -1);
    X509_EXTENSION_free(ext);
    return 0;
}

static X509 *new_cert(EVP_PKEY *key, const char *cn)
{
    X509 *x = X509_new();
    unsigned char serial[16];
    BIGNUM *bn;

    RAND_bytes(serial, sizeof(serial));
    serial[0] &= 0x7f;
    bn = BN_bin2bn(serial, sizeof(serial), NULL);
    BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(x));
    BN_free(bn);
    X509_set_version(x, 2);
    X509_gmtime_adj(X509_getm_notBefore(x), -3600);
    X509_gmtime_adj(X509_getm_notAfter(x), 365L * 24 * 3600);
    X509_set_pubkey(x, key);
    X509_NAME_add_entry_by_txt(X509_get_subject_name(x), "CN", MBSTRING_ASC,
                               (const unsigned char *)cn, -1, -1, 0);
    return x;
}

static int make_ca(EVP_PKEY *ca_key, X509 **out)
{
    X509 *ca = new_cert(ca_key, "turnstile-apiserver-ca");

    X509_set_issuer_name(ca, X509_get_subject_name(ca));
    if (add_ext(ca, ca, NID_basic_constraints, "critical,CA:TRUE") ||
        add_ext(ca, ca, NID_key_usage, "critical,keyCertSign,cRLSign,digitalSignature") ||
        add_ext(ca, ca, NID_subject_key_identifier, "hash") ||
        !X509_sign(ca, ca_key, EVP_sha256())) {
        X509_free(ca);
        return -1;
    }
    *out = ca;
    return 0;
}

static int make_serving(EVP_PKEY *key, X509 *ca, EVP_PKEY *ca_key, X509 **out)
{
    X509 *x = new_cert(key, "turnstile-apiserver");

    X509_set_issuer_name(x, X509_get_subject_name(ca));
    if (add_ext(x, ca, NID_basic_constraints, "critical,CA:FALSE") ||
        add_ext(x, ca, NID_key_usage, "critical,digitalSignature,keyEncipherment") ||
        add_ext(x, ca, NID_ext_key_usage, "serverAuth") ||
        add_ext(x, ca, NID_subject_alt_name, "IP:127.0.0.1,IP:::1,DNS:localhost") ||
        add_ext(x, ca, NID_subject_key_identifier, "hash") ||
        add_ext(x, ca, NID_authority_key_identifier, "keyid:always") ||
        !X509_sign(x, ca_key, EVP_sha256())) {
        X509_free(x);
        return -1;
    }
    *out = x;
    return 0;
}

int ts__as_tls_generate(struct ts_apiserver *s, struct ts_err *err)
{
    EVP_PKEY *ca_key = EVP_EC_gen("P-256"), *key = EVP_EC_gen("P-256");
    X509 *ca = NULL, *cert = NULL;
    int rc = 0;

    if (!ca_key || !key || make_ca(ca_key, &ca) || make_serving(key, ca, ca_key, &cert)) {
        rc = ts_err_set(err, TS_ETLS, "cannot generate a self-signed certificate");
    } else {
        s->ca_pem = cert_pem(ca);
        s->cert_pem = cert_pem(cert);
        s->key_pem = key_pem(key);
    }
    X509_free(ca);
    X509_free(cert);
    EVP_PKEY_free(ca_key);
    EVP_PKEY_free(key);
    return rc;
}

static int read_file(const char *path, char **out, struct ts_err *err)
{
    FILE *f = fopen(path, "rb");
    struct ts_buf b = TS_BUF_INIT;
    char chunk[4096];
    size_t n;

    if (!f)
        return ts_err_set(err, TS_EIO, "cannot open '%s'", path);
    ts_buf_init(&b, 1 << 20);
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        if (ts_buf_add(&b, chunk, n)) {
            fclose(f);
            ts_buf_release(&b);
            return ts_err_set(err, TS_EOVERFLOW, "'%s' is too large", path);
        }
    fclose(f);
    *out = ts_buf_take(&b);
    return 0;
}

int ts__as_tls_load(struct ts_apiserver *s, struct ts_err *err)
{
    int rc;

    if ((rc = read_file(s->cert_file, &s->cert_pem, err)) ||
        (rc = read_file(s->key_file, &s->key_pem, err)))
        return rc;
    s->ca_pem = ts_xstrdup(s->cert_pem);
    return 0;
}
